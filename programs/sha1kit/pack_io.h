/*
 * pack_io.h - what `index-pack`, `verify-pack` and `fsck` share around the Git layer's pack files
 * (struct skg_file of <sha1kit/git_pack.h>): the SIGBUS guard of the mappings, the command's lines
 * for a file that cannot be mapped, that shrank, or a pack that is bad, progress lines, option
 * parsing helpers.
 */
#ifndef SHA1KIT_CLI_PACK_IO_H
#define SHA1KIT_CLI_PACK_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sha1kit/git_pack.h>

/*
 * Should a mapped file shrink (truncated by another process), reading a page past its new end
 * raises SIGBUS. While a mapping is guarded, a SIGBUS handler (SA_SIGINFO) catches the faults
 * whose address lies in one of the guarded mappings: it calls the function given to
 * sk_file_on_shrink (e.g. to remove a temporary output file), writes the one line
 * "sha1kit: CMD: NAME: the file shrank while it was read" to standard error with write(2) and ends
 * the process with _exit(1). Any other SIGBUS keeps its default action (the process dies of it).
 *
 * sk_guard_mapping guards [map, map + len) of the file `path` for command `cmd`: returns 0, or -1
 * when it could not (no free slot, no memory: the mapping is then unguarded).
 * sk_unguard_mapping(map) ends it (before the unmap).
 */
int sk_guard_mapping(const char *cmd, const void *map, uint64_t len, const char *path);
void sk_unguard_mapping(const void *map);

/* The Git layer's mapping hook (skg_file_map, struct skg_check_options.on_map) that guards each
 * mapping as above; ctx: the command's name (a const char *). */
void sk_guard_map(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped);

/* The function the SIGBUS handler calls before it writes its line and exits (NULL: none). It runs
 * in a signal handler: only async-signal-safe calls (unlink(2), ...). */
void sk_file_on_shrink(void (*cleanup)(void));

/*
 * Map `path`, a regular file, with skg_file_map under the SIGBUS guard (FIFOs and devices are
 * refused without being opened, so that a FIFO never blocks). Returns 0, or -1 after the line
 * "sha1kit: CMD: cannot open NAME: REASON", "... cannot map NAME: REASON" or
 * "sha1kit: CMD: NAME: not a regular file". Unmap with skg_file_unmap.
 */
int sk_file_map(struct skg_file *f, const char *cmd, const char *path);
/* sk_file_map for the pack git's index-pack reads: where git dies on it, git's line and 128 (a
 * file that does not open: wrapper.c xopen's "could not open 'PATH' for reading: REASON"; a
 * directory: "read error on input: Is a directory", its first read); other failures as
 * sk_file_map (1). Returns 0 when mapped. */
int sk_pack_map_as_git(struct skg_file *f, const char *cmd, const char *path);

/* After a failure: when the mapped file `f` is now shorter than when it was mapped, print the line
 * the SIGBUS handler prints and return true; else (or when nothing is mapped) return false and
 * print nothing. */
bool sk_file_report_shrank(const struct skg_file *f, const char *cmd);

/*
 * Open the idx idx_name into *idx as `git index-pack --verify` (and so `git verify-pack`) opens it
 * before it reads the pack (builtin/index-pack.c read_idx_option); when git does not take it,
 * git's lines on standard error and git's exit status of index-pack, 128: "fatal: Cannot open existing pack
 * file 'IDX'" (a name not ending in .idx, or no regular file STEM.pack beside it), "fatal: Cannot open
 * existing pack idx file for 'IDX'" (an idx that does not open, or after "error: REASON" one that fails git's
 * checks, skg_idx_check_as), "fatal: offset beyond end of pack index for STEM.pack (truncated
 * index?)"; or sha1kit's line and 1 for an idx that is not a regular file (never opened), or one
 * that shrank while it was read. Returns 0 when git takes the idx.
 */
int sk_idx_open_as_git(struct skg_file *idx, const char *cmd, const char *idx_name, unsigned object_format);

/*
 * --verify's check of the reverse index rev_name of `pack` as git's index-pack does it with the
 * reverse index on (and so git's verify-pack, which runs it): nothing when there is none; git's
 * lines and 128 where git dies (a .rev that differs, that does not stat or open, a directory);
 * sha1kit's line and 1 for a FIFO or device (never opened) or a file that shrank. Returns the
 * exit status of index-pack (0 when the .rev is absent or right).
 */
int sk_verify_rev(const char *cmd, const struct skg_pack *pack, const char *rev_name);

/*
 * --stats: where a command's time went, by the phases its progress callback names ("Indexing
 * objects", "Resolving deltas"): a phase runs from its first report to its last (done == total);
 * the time before the first is "setup", the time after a phase until the next "after PHASE". Wall
 * time and the process's CPU time (all threads): CPU / wall says how many threads were busy.
 */
#define SK_STATS_PHASES 8
struct sk_stats {
	bool on;
	unsigned n;
	double wall0, cpu0;         /* at sk_progress_init */
	double mark_wall, mark_cpu; /* start of the current segment */
	char cur[48];               /* its name */
	struct {
		char title[48];
		double wall, cpu;
	} ph[SK_STATS_PHASES];
};

/* Progress on standard error, Git style ("Indexing objects:  42% (420/1000)"), only when enabled. */
struct sk_progress {
	bool enabled;
	const char *title;        /* title of the line on screen, NULL for none */
	const char *left;         /* after sk_progress_abort: the title of the line it left */
	unsigned percent;         /* last percentage printed (UINT_MAX: none yet) */
	uint64_t shown;           /* the count up to which git's lines were drawn */
	const char *indexing;     /* the first phase's title: "Indexing objects" (a file), "Receiving
	                           * objects" (git's for --stdin) */
	const uint64_t *bytes_in; /* not NULL: the bytes read so far, shown as git's throughput when
	                           * more than bytes_quiet */
	uint64_t bytes_quiet;
	double t0; /* when the meters started (seconds) */
	struct sk_stats stats;
};

/* The stats alone (for a command with progress lines of its own, as fsck): start now (when `on`);
 * a report within the phase `title`; the end of that phase; the lines (as sk_progress_stats). */
void sk_stats_init(struct sk_stats *s, bool on);
void sk_stats_phase(struct sk_stats *s, const char *title);
void sk_stats_phase_end(struct sk_stats *s, const char *title);
void sk_stats_print(struct sk_stats *s, const char *cmd);

/* `stats`: record the phases (sk_progress_stats prints them). */
void sk_progress_init_stats(struct sk_progress *p, bool enabled, bool stats);
void sk_progress_init(struct sk_progress *p, bool enabled);
/* With --stats: end the last phase and print one line per phase and a total on standard error,
 * "sha1kit: CMD: stats: PHASE: wall W s, CPU C s (C/W threads busy)". */
void sk_progress_stats(struct sk_progress *p, const char *cmd);
/* struct skg_progress.fn (ctx = struct sk_progress *). */
void sk_progress_cb(void *ctx, const char *title, uint64_t done, uint64_t total);

/* git's strbuf_humanise_bytes / strbuf_humanise_rate (strbuf.c): "1.50 MiB", "999 bytes",
 * "11.56 MiB/s" (a negative size as git prints it: its low 32 bits). */
void sk_humanise(int64_t bytes, bool rate, char *buf, size_t n);
/* git's stop_progress_msg: the meter `title` drawn up to done (of total), then its last line with
 * ", MSG." instead of ", done.". */
void sk_progress_stop_msg(struct sk_progress *p, const char *title, uint64_t done, uint64_t total,
                          const char *msg);
/* A progress line left as git's die leaves it (the error message is written over it). */
void sk_progress_abort(struct sk_progress *p);

/* The largest --threads=N (a plain number: SK_THREADS_RANGE spells it). */
#define SK_THREADS_MAX 1024
#define SK_STR_(x)     #x
#define SK_STR(x)      SK_STR_(x)
/* The accepted range, as the messages and --help give it. */
#define SK_THREADS_RANGE "0.." SK_STR(SK_THREADS_MAX)
/* The error for a thread count sk_parse_threads refuses (a format for one string, the argument). */
#define SK_THREADS_INVALID "invalid thread count '%s' (" SK_THREADS_RANGE "; 0: one per CPU)"

/* The Git that fsck and index-pack follow where Git 2.39.5 and 2.55.0 differ: --git-version=V,
 * else this variable, else 2.55 (<sha1kit/git.h> skg_git_version_parse). */
#define SK_GIT_VERSION_ENV "SHA1KIT_GIT_VERSION"
#define SK_GIT_VERSION_INVALID                                                                               \
	"the Git to follow is 2.39 or 2.55 (a maintenance release such as 2.39.5 or 2.55.0 names the same)"
/* *version from SK_GIT_VERSION_ENV when it is set and not empty; a value skg_git_version_parse
 * refuses is command cmd's usage error with exit status `status`. */
void sk_git_version_env(const char *cmd, int status, unsigned *version);
/* *version from --git-version=arg; a value skg_git_version_parse refuses is command cmd's usage
 * error with exit status `status`. */
void sk_git_version_arg(const char *cmd, int status, const char *arg, unsigned *version);

/* Parse a thread count (0 = one per online CPU). False when not a number in 0..SK_THREADS_MAX. */
bool sk_parse_threads(const char *arg, unsigned *out);
/* index-pack's --threads=N as git parses it (strtoul with base 0: "0x10" is 16, " 3" and "+3" are 3;
 * a value that is negative as an int is refused: false); a count above SK_THREADS_MAX runs as
 * SK_THREADS_MAX (the result is the same for every count). */
bool sk_parse_git_threads(const char *arg, unsigned *out);
/* git index-pack's one-line usage text as the Git of git_version (SKG_GIT_2_39 or SKG_GIT_2_55)
 * prints it after "usage: ". */
const char *sk_index_pack_usage(unsigned git_version);
/* The config of git's command line (GIT_CONFIG_COUNT, GIT_CONFIG_PARAMETERS), checked as every git
 * command checks it at its first read of its config: when it does not parse, git's two lines
 * ("error: ...", "fatal: unable to parse command-line config") and exit 128. */
void sk_git_command_config(void);
/* Number of online CPUs (at least 1). */
unsigned sk_online_cpus(void);

/* Print "sha1kit: CMD: [NAME: ]MSG[ (at offset N)]" for an error of the pack API (a collision's
 * message names its offset itself). */
void sk_pack_report(const char *cmd, const char *name, const struct skg_error *err);

/* A sink for the pack API's records (strict checks, collision check): each line as git prints it,
 * standard output for SKG_LEVEL_OUTPUT (flushed), standard error for the others. ctx unused. */
void sk_pack_print_record(void *ctx, const struct skg_report *r);

/* --object-format=ARG: SKG_FORMAT_SHA1 or SKG_FORMAT_SHA256 into *format, else git's "fatal: unknown
 * hash algorithm 'ARG'" and exit status 128. */
void sk_object_format_arg(const char *arg, unsigned *format);

/* For a pack the pack API refused as malformed (err SKG_E_CORRUPT), data[0..len) its bytes and
 * regular whether it came from a regular file, git_version the Git to follow, object_format the
 * pack's (enum skg_object_format): git's lines where git's index-pack dies on it in its first pass
 * (skg_pack_git_refusal: "error: LINE" when git prints one, then "fatal: LINE"), and true; false,
 * with nothing printed, for another error or when git's first pass takes it. With meter (index-pack
 * -v on a file), git's "Indexing objects" lines up to where it died come first. */
bool sk_pack_git_refused(const uint8_t *data, uint64_t len, bool regular, unsigned git_version,
                         unsigned object_format, const struct skg_error *err, struct sk_progress *meter);

#endif /* SHA1KIT_CLI_PACK_IO_H */
