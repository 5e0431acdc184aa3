/*
 * pack_io.h - file handling shared by `index-pack` and `verify-pack`: mapping a pack, reading an
 * idx, progress lines, option parsing helpers.
 */
#ifndef SHA1KIT_CLI_PACK_IO_H
#define SHA1KIT_CLI_PACK_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pack.h"

/* A read-only file in memory (mapped; empty files have data pointing at a static empty string). */
struct pk_file {
	const uint8_t *data;
	uint64_t len;
	void *map; /* for munmap, NULL when nothing is mapped */
	size_t map_len;
	int fd;            /* the file, open while mapped (for pk_file_read) */
	uint64_t released; /* pages before this offset were dropped by pk_file_release */
	dev_t dev;         /* identity of the file mapped */
	ino_t ino;
	const char *failed; /* after a failure of pk_file_map: "open", "map" */
	/* "sha1kit: CMD: NAME: the file shrank while it was read\n", made before the file is mapped
	 * (the SIGBUS handler writes it as it is); NULL when nothing is mapped. */
	char *shrank_msg;
	size_t shrank_len;
	int guard; /* slot of the mapping in the SIGBUS guard, -1 for none */
};

/* pk_file_map's errors for a file that is not a regular one (FIFO, device, socket), and for one
 * whose size is not known (a /proc file such as /proc/self/mem reports 0 bytes but does not read
 * as empty): such files are refused. */
#define PK_ENOTREG (-1)
#define PK_ENOSIZE (-2)

/*
 * Map `path`, a regular file (FIFOs and devices are refused without being opened, so that a FIFO
 * never blocks); returns 0, an errno value, PK_ENOTREG or PK_ENOSIZE. `cmd` names the command in
 * the message below.
 *
 * Should the file shrink while it is mapped (truncated by another process), reading a page past
 * its new end raises SIGBUS. While a file is mapped, a SIGBUS handler (SA_SIGINFO) catches the
 * faults whose address lies in one of the mappings made here: it calls the function given to
 * pk_file_on_shrink (e.g. to remove a temporary output file), writes the one line
 * "sha1kit: CMD: NAME: the file shrank while it was read" to standard error with write(2) and ends
 * the process with _exit(1). Any other SIGBUS keeps its default action (the process dies of it).
 */
int pk_file_map(struct pk_file *f, const char *cmd, const char *path);
/* Report the failure `e` of pk_file_map(f, path): "sha1kit: CMD: cannot open NAME: REASON",
 * "... cannot map NAME: REASON" or "sha1kit: CMD: NAME: not a regular file". */
void pk_file_error(const char *cmd, const struct pk_file *f, const char *path, int e);
/* The same line without the "sha1kit: " in front, into buf[0..n) (for callers that order their
 * lines themselves). */
void pk_file_error_format(char *buf, size_t n, const char *cmd, const struct pk_file *f, const char *path,
                          int e);
void pk_file_unmap(struct pk_file *f);

/* The function the SIGBUS handler of pk_file_map calls before it writes its line and exits (NULL:
 * none). It runs in a signal handler: only async-signal-safe calls (unlink(2), ...). */
void pk_file_on_shrink(void (*cleanup)(void));

/*
 * Guard a mapping made elsewhere (the Git layer's, told through struct skg_check_options.on_map)
 * as pk_file_map guards its own: a SIGBUS inside [map, map + len) writes
 * "sha1kit: CMD: PATH: the file shrank while it was read" and exits 1. Returns 0, or -1 when it
 * could not (no free slot, no memory: the mapping is then unguarded). pk_unguard_mapping(map)
 * ends it (before the unmap).
 */
int pk_guard_mapping(const char *cmd, const void *map, uint64_t len, const char *path);
void pk_unguard_mapping(const void *map);

/* After a failure: when the mapped file `f` is now shorter than when it was mapped (a pread past
 * its new end came back short, or its last page read as zeros), print the line the SIGBUS handler
 * prints and return true; else (or when nothing is mapped) return false and print nothing. */
bool pk_file_report_shrank(const struct pk_file *f);

/* pk_options.release for a mapped file read in order: drop the pages before `upto` from memory
 * (they stay in the page cache and come back on the next access). Only the pages not dropped by
 * an earlier call are dropped: the range since the last call, not everything from offset 0. */
void pk_file_release(void *file, uint64_t upto);

/* pk_options.read for a mapped file: copy bytes [offset, offset + n) with pread, so that they are
 * not mapped into the process (see pk_options.read). Returns 0 or -1. */
int pk_file_read(void *file, uint64_t offset, uint8_t *buf, size_t n);

/* An idx compared with an existing one as it is made (pk_idx_write with pk_idx_compare_sink), so
 * that it is never whole in memory: start with {old, 0, 0, false, 0}. */
struct pk_idx_compare {
	struct pk_file *old; /* the existing idx, mapped; its pages are dropped once compared */
	uint64_t at;         /* bytes compared so far */
	uint64_t released;   /* pages of the old idx dropped up to here */
	bool differs;
	uint64_t first_diff; /* when it differs: the offset of the first difference */
};

/* pk_idx_sink comparing each piece with the existing idx (ctx = struct pk_idx_compare *); stops
 * the writing (-1, err untouched) at the first difference. After the writing, the files also
 * differ when cmp.at != cmp.old->len (pk_idx_compare_end). */
int pk_idx_compare_sink(void *ctx, const uint8_t *p, size_t n, struct pk_error *err);
/* After pk_idx_write: whether the idx equals the existing one (else c->first_diff is set). */
bool pk_idx_compare_end(struct pk_idx_compare *c);

/* Progress on standard error, Git style ("Indexing objects:  42% (420/1000)"), only when enabled. */
struct pk_progress {
	bool enabled;
	int phase;        /* phase of the line on screen, -1 for none */
	unsigned percent; /* last percentage printed */
	double last;      /* time of the last line (seconds) */
};

void pk_progress_init(struct pk_progress *p, bool enabled);
/* pk_options.progress callback (ctx = struct pk_progress *). */
void pk_progress_cb(void *ctx, enum pk_phase phase, uint64_t done, uint64_t total);
/* End an unfinished progress line (before an error message). */
void pk_progress_abort(struct pk_progress *p);

/* The largest --threads=N (a plain number: PK_THREADS_RANGE spells it). */
#define PK_THREADS_MAX 1024
#define PK_STR_(x)     #x
#define PK_STR(x)      PK_STR_(x)
/* The accepted range, as the messages and --help give it. */
#define PK_THREADS_RANGE "0.." PK_STR(PK_THREADS_MAX)
/* The error for a thread count pk_parse_threads refuses (a format for one string, the argument). */
#define PK_THREADS_INVALID "invalid thread count '%s' (" PK_THREADS_RANGE "; 0: one per CPU)"

/* Parse a thread count (0 = one per online CPU). False when not a number in 0..PK_THREADS_MAX. */
bool pk_parse_threads(const char *arg, unsigned *out);
/* Number of online CPUs (at least 1). */
unsigned pk_online_cpus(void);

/* Print "sha1kit: CMD: [NAME: ]MSG[ (at offset N)]" for a pack error. */
void pk_report(const char *cmd, const char *name, const struct pk_error *err);
/* The same line without the "sha1kit: " in front, into buf[0..n). */
void pk_report_format(char *buf, size_t n, const char *cmd, const char *name, const struct pk_error *err);

#endif /* SHA1KIT_CLI_PACK_IO_H */
