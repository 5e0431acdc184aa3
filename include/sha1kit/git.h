/*
 * sha1kit/git.h - the Git layer of sha1kit: what every part of its public API shares.
 *
 * The Git layer (library sha1kit_git, `pkg-config sha1kit-git`, CMake target sha1kit::git) reads
 * and checks Git's formats on top of libsha1kit's collision-detecting SHA-1 (sha1kit.h): object
 * IDs, loose objects, packs and their idx files, refs, reflogs, the index and whole repositories.
 * Its parts, each with a header of its own that includes this one:
 *   sha1kit/git_object.h   hash an object as `git hash-object` does, with its checks
 *   sha1kit/git_pack.h     index a pack (from memory or from a stream of pieces), write its idx,
 *                          verify a pack against its idx
 *   sha1kit/git_fsck.h     check a whole repository as `git fsck --full` does
 *   sha1kit/git_refs.h     check the refs of a repository as `git refs verify` does
 *
 * Conventions of every function of the layer:
 *  - Nothing prints and nothing exits. Findings about the input (a corrupt object, a broken link,
 *    a line git would print) go to the caller's report sink (struct skg_sink) as records; a
 *    failure of the run comes back as a negative return value with a struct skg_error.
 *  - A failure of the machine (memory, a thread that cannot start, a file or directory that
 *    cannot be read or written, a file size limit: EFBIG where the caller ignores SIGXFSZ, as
 *    sha1kit's programs do; the layer changes no signal's disposition, and by default SIGXFSZ
 *    kills the process) is an error of the run,
 *    never a finding about the repository: the function stops, frees what it made, removes any
 *    output or temporary file, and returns SKG_E_NOMEM, SKG_E_THREAD or SKG_E_IO.
 *  - "git stops here" (where git prints "fatal: ..." and exits 128 because of the repository's
 *    content) is SKG_E_GIT with git's message, or a record whose `fatal` field is set.
 *  - The `err` argument of every function may be NULL: the failure is then returned without its
 *    description.
 *  - Sizes are in bytes; object IDs are SKG_RAWSZ (20) bytes of SHA-1 (SHA-1DC: Stevens 2013,
 *    Stevens-Shumow 2017), or 32 bytes of SHA-256 (FIPS 180-4) in a SHA-256 repository where a
 *    function says so (its rawsz or format); no global mutable state: any number of threads may
 *    use the layer on different objects at once.
 * Sources: Git's Documentation/gitformat-loose.txt, gitformat-pack.txt (pack and idx v1/v2),
 * gitrepository-layout.txt, git-fsck.txt and git-index-pack.txt; behaviour checked against git.
 */
#ifndef SHA1KIT_GIT_H
#define SHA1KIT_GIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SKG_RAWSZ 20 /* bytes of a SHA-1 object ID */
#define SKG_HEXSZ 40 /* hex digits of one */

/*
 * A repository's object format (extensions.objectFormat; Git's Documentation/technical/
 * hash-function-transition.txt): object IDs are the SHA-1 (SHA-1DC) or the SHA-256 (FIPS 180-4) of
 * "TYPE SIZE\0" and the content. The layer hashes objects, indexes and verifies packs and checks
 * whole repositories (skg_check_repo) in either format: the repository's, from
 * skg_repo_open_formats, or the caller's (skg_object_hash_begin_as, skg_index_options).
 */
enum skg_object_format {
	SKG_FORMAT_SHA1 = 1,
	SKG_FORMAT_SHA256 = 2,
};
#define SKG_MAX_RAWSZ 32 /* bytes of the longest object ID (SHA-256) */
#define SKG_MAX_HEXSZ 64 /* hex digits of one */

/* Bytes of an object ID of `format` (20 or 32; 0 for anything else). */
size_t skg_format_rawsz(unsigned format);

/* The format named `name` as git's --object-format= and extensions.objectFormat spell it, "sha1"
 * or "sha256" (hash.c hash_algo_by_name: exact, lowercase); 0 for any other name, and NULL. */
unsigned skg_format_from_name(const char *name);

/* Object types, with the numbers the pack format gives them (gitformat-pack.txt). */
enum skg_type {
	SKG_NONE = 0,
	SKG_COMMIT = 1,
	SKG_TREE = 2,
	SKG_BLOB = 3,
	SKG_TAG = 4,
};

/* "commit", "tree", "blob", "tag" for 1..4; NULL for anything else. */
const char *skg_type_name(unsigned type);

/* Write the 40 lowercase hex digits of id and a NUL byte into out. */
void skg_to_hex(const uint8_t id[SKG_RAWSZ], char out[SKG_HEXSZ + 1]);

/* Write the 2 * rawsz lowercase hex digits of id[0..rawsz) and a NUL byte into out (rawsz at most
 * SKG_MAX_RAWSZ; out has room for 2 * rawsz + 1 bytes). */
void skg_to_hex_len(const uint8_t *id, size_t rawsz, char *out);

/* Parse exactly 40 hex digits (either case) at p into id; false if any is not a hex digit (the
 * bytes are read in order up to the first that is not, so a shorter NUL-terminated string is safe). */
bool skg_from_hex(const char *p, uint8_t id[SKG_RAWSZ]);

/* The same for 2 * rawsz hex digits into id[0..rawsz) (rawsz at most SKG_MAX_RAWSZ). */
bool skg_from_hex_len(const char *p, size_t rawsz, uint8_t *id);

/*
 * Git's C-style quoting read back (Git's quote.c unquote_c_style), as git reads a quoted path in
 * `info/alternates` and in `hash-object --stdin-paths`: s[0..len) starts with '"'; the bytes up to
 * the closing quote, with the escapes \a \b \f \n \r \t \v \\ \" and three octal digits
 * (the first 0-3) turned into their bytes, go to out, which has room for len bytes (the result is
 * never longer); *out_len is their count, *used (unless NULL) the bytes of s read through the
 * closing quote (what follows it is the caller's). Returns 0; -1 when s is not quoted that way (no
 * opening or closing quote, another escape, a NUL before the closing quote): git's "badly quoted".
 * The result is not NUL-terminated and may hold NUL bytes (\000).
 */
int skg_unquote_c(const char *s, size_t len, char *out, size_t *out_len, size_t *used);

/* ---- Errors of a run ---------------------------------------------------------------------- */

/* What stopped a run (struct skg_error.code). */
enum skg_errc {
	SKG_E_GIT = 1,     /* the input is such that git stops here ("fatal: MSG", exit 128) */
	SKG_E_NOMEM,       /* an allocation failed */
	SKG_E_THREAD,      /* a thread could not be started */
	SKG_E_IO,          /* a file or directory could not be read, written or created (sys_errno) */
	SKG_E_USAGE,       /* an argument or option is invalid (msg says which) */
	SKG_E_CANCELLED,   /* the caller's cancel flag was set */
	SKG_E_COLLISION,   /* SHA-1DC detected a collision attack in an object (msg names it) */
	SKG_E_CORRUPT,     /* the input is malformed (a pack or idx: msg says how, offset where) */
	SKG_E_UNSUPPORTED, /* a repository sha1kit cannot work in, which git can (SHA-256 objects, a
	                      ref store in another place): msg says which; print as git's fatal */
};

#define SKG_ERROR_MAX 8192

/*
 * The error of a failed run. msg: for SKG_E_GIT what git prints after "fatal: " (one or more
 * lines, no final newline), already in the form git's die() gives it (control characters other
 * than TAB and LF replaced by '?', lines cut at 4095 bytes); for the other codes a message in
 * sha1kit's words (the cause, with strerror(sys_errno) for SKG_E_IO). sys_errno: the errno of a
 * failed system call, else 0. has_offset/offset: the pack offset of the object at fault.
 * Functions of the layer that fail set code and msg; code 0 never comes back from a failure.
 */
struct skg_error {
	enum skg_errc code;
	int sys_errno;
	bool has_offset;
	uint64_t offset;
	char msg[SKG_ERROR_MAX];
};

/* A short English name of an error code, a static string: "fatal" (SKG_E_GIT), "out of memory",
 * "cannot start a thread", "input/output error" (SKG_E_IO), "invalid argument" (SKG_E_USAGE),
 * "cancelled", "collision attack detected", "corrupt input", "unsupported repository"; "unknown
 * error" for a value that is no enum skg_errc. */
const char *skg_errc_name(enum skg_errc code);

/* ---- The report sink ----------------------------------------------------------------------- */

/* How git prints a report (the prefix of its line) and where. */
enum skg_level {
	SKG_LEVEL_ERROR,   /* stderr "error: TEXT" */
	SKG_LEVEL_WARNING, /* stderr "warning: TEXT" */
	SKG_LEVEL_NOTICE,  /* stderr "notice: TEXT" */
	SKG_LEVEL_PLAIN,   /* stderr "TEXT" (no prefix; also git's "fatal: ..." lines of a record with
	                    * `fatal` set, prefix included in TEXT) */
	SKG_LEVEL_SILENT,  /* git says nothing; reported for tests and verbose tools only */
	SKG_LEVEL_OUTPUT,  /* stdout "TEXT": a result line ("dangling blob ID", "missing tree ID",
	                    * "root ID", "tagged commit ID (NAME) in TAG", a pack checksum) */
};

/* "error: ", "warning: ", "notice: ", "" (plain and output) or NULL (silent: print nothing). */
const char *skg_level_prefix(enum skg_level level);

/*
 * The Git releases whose behaviour the Git layer can follow where they differ (docs/git.md,
 * sections 5 and 6), as 100 * major + minor. For a check (skg_check_repo of <sha1kit/git_fsck.h>,
 * option git_version) with SKG_GIT_2_55 (Git 2.55.0's builtin/fsck.c, the default):
 *   - the index lines name the index file: "error: ID: invalid sha1 pointer in cache-tree of
 *     .git/index", "... in resolve-undo of .git/index" (git 592ec63b38, 2.41);
 *   - the grafts hint reads "git config set advice.graftFileDeprecated false" and its empty lines
 *     are "hint:" without a blank (git 6c397d0104, 2.48; 2d8cf94b28, 2.45);
 *   - no "bad ref for" a reflog with a bad name (git 59c50a96c5, 2.45);
 *   - no "invalid HEAD", "HEAD points to something strange", unborn-branch notice: HEADs are
 *     checked by the ref check (check_refs) only (git 46d611cada / 9727336b31, 2.53);
 *   - the ref check (check_refs) on by default, 2.55's message IDs valid in fsck.<msg-id>;
 *   - the index of every worktree read (git 8d3e7eac52, 2.40), GIT_INDEX_FILE not consulted;
 *   - dates in ident lines read as 2.40+ reads them: a sign or a newline is badDate (8e4309038f);
 *   - the .rev files checked (git 2.41+, 0d30feef3c, 5a6072f631): their load, checksum and
 *     entries, exit bit 64; git 2.39 does not look at them;
 *   - a loose object of a type git does not know: "unable to parse type from header" and
 *     "object corrupt or missing" (git 2.50+, 4ae0e9423c), not "object is of unknown type";
 *   - commit-graph chunks read as git 2.43+ reads them (their sizes, the fan-out's order,
 *     "commit-graph required ... chunk missing or corrupted"), and a chain that does not load
 *     whole fails its verify (exit bit 16);
 *   - reflogs taken in name order (git 2.45+, e69e8ffef7), not in the order the directory lists.
 * With SKG_GIT_2_39 every line is Git 2.39.5's (check_refs still adds the ref check when set).
 * Other differences between the two (docs/git.md section 5, items a6, a10, the rest of a11,
 * a14-a17, c1-c5) are
 * not followed yet: there the lines are 2.39.5's with either value.
 */
enum skg_git_version {
	SKG_GIT_2_39 = 239,
	SKG_GIT_2_55 = 255,
};

/*
 * Parse a Git version as a user gives it ("2.39", "2.39.5", "2.55", "2.55.1": 2.39 or 2.55, with
 * or without a maintenance release of 1 to 3 digits, which changes none of fsck's lines) into
 * *out (SKG_GIT_2_39 or SKG_GIT_2_55). Returns 0, or -1 for any other text (*out unchanged).
 */
int skg_git_version_parse(const char *text, unsigned *out);

/*
 * Check the config given on git's command line, which every git command parses at its first read
 * of its config (config.c git_config_from_parameters): GIT_CONFIG_COUNT with GIT_CONFIG_KEY_<N>
 * and GIT_CONFIG_VALUE_<N>, then GIT_CONFIG_PARAMETERS (what `git -c KEY=VALUE` passes on: words
 * in single quotes, 'KEY=VALUE' or 'KEY'='VALUE', quote.c sq_dequote_step). Their form and keys are
 * checked, not their values. Returns 0, or -1 with err->msg git's error line without its
 * "error: " ("bogus format in GIT_CONFIG_PARAMETERS", "invalid key: KEY", "missing config value
 * GIT_CONFIG_VALUE_0", ...); git then dies with "fatal: unable to parse command-line config"
 * (exit 128). err may be NULL.
 */
int skg_config_check_command_line(struct skg_error *err);

/*
 * One finding, as git reports it. Valid during the sink call only (copy what you keep).
 *   level     how and where git prints it (enum skg_level)
 *   id        what it is about, for callers that act on kinds: a SKG_R_* value of
 *             enum skg_report_id below, or 0 for lines that carry no such meaning
 *   msg_id    git's fsck message ID where it has one ("badTimezone", "hasDotgit", ...: the
 *             names of `fsck.<msg-id>` in git-config(1)), else NULL
 *   type, oid the object it is about (SKG_NONE and NULL when none); oid is the ID in the object
 *             format of the repository or pack the call reads: 20 bytes (SHA-1), or 32 (SHA-256)
 *   text      git's words without the level's prefix, no final newline: print
 *             skg_level_prefix(level), text and "\n" to get git's line byte for byte
 *   fatal     git stops after this line (exit 128); the run stops too and fails with SKG_E_GIT.
 *             A "fatal: " line of a process `git fsck` runs (`git commit-graph verify`, `git
 *             multi-pack-index verify`) ends that process only: level SKG_LEVEL_PLAIN, fatal false
 *   exit_bits what `git fsck` ORs into its exit status for it (1 error, 2 missing/broken link,
 *             4 corrupt pack/object, 8 refs, 16 commit-graph, 32 multi-pack-index, ...; the
 *             failing lines of such a process carry its bit; one that fails without a line
 *             but warnings comes as a SKG_LEVEL_SILENT record), 0 for other commands. The OR of
 *             all records' exit_bits is the check's exit status unless it died (128)
 */
struct skg_report {
	enum skg_level level;
	int id;
	const char *msg_id;
	unsigned type;
	const uint8_t *oid;
	const char *text;
	bool fatal;
	unsigned exit_bits;
};

/*
 * The one channel through which the layer reports findings. report may be NULL (or the whole sink
 * pointer NULL) to drop them. Calls come in git's order of printing, from one thread at a time
 * (never two at once), not necessarily the caller's thread.
 */
struct skg_sink {
	void (*report)(void *ctx, const struct skg_report *r);
	void *ctx;
};

/* What a report is about where the callers act on kinds (struct skg_report.id). */
enum skg_report_id {
	SKG_R_REFLOG_BAD_REF = 1,  /* error "bad ref for PATH": exit status unchanged */
	SKG_R_REFLOG_CORRUPT_LINE, /* silent: git skips a reflog line that does not parse */
	SKG_R_HEAD_INVALID,        /* error "invalid HEAD": ERROR_REFS (exit |= 8) */
	SKG_R_HEAD_STRANGE,        /* error "HEAD points to something strange (REF)": ERROR_REFS */
	SKG_R_HEAD_DETACHED_NULL,  /* error "HEAD: detached HEAD points at nothing": ERROR_REFS */
	SKG_R_HEAD_UNBORN,         /* notice "HEAD points to an unborn branch (NAME)": unchanged */
	SKG_R_ALT_MISSING,         /* error "object directory D does not exist; check ..." */
	SKG_R_ALT_NORMALIZE,       /* error "unable to normalize alternate object path: P" */
	SKG_R_ALT_TOO_DEEP,        /* error "D: ignoring alternate object stores, nesting too deep" */
	SKG_R_ALT_UNREADABLE,      /* warning "unable to access 'P': STRERROR" */
	SKG_R_INDEX_EXT_IGNORED,   /* plain "ignoring XXXX extension": unchanged */
	SKG_R_INDEX_BAD_REUC,      /* error "Index records invalid resolve-undo information" */
	SKG_R_INDEX_BAD_TREE,      /* silent: git drops a cache-tree extension that does not parse */
	SKG_R_INDEX_BAD_SIGNATURE, /* error "bad signature 0x..." (a fatal error follows) */
	SKG_R_INDEX_BAD_VERSION,   /* error "bad index version N" (a fatal error follows) */
	SKG_R_INDEX_BAD_CHECKSUM,  /* error "bad index file sha1 signature" (a fatal error follows) */
	SKG_R_INDEX_UNKNOWN_EXT,   /* error "index uses xxxx extension, ..." (a fatal error follows) */
	SKG_R_INDEX_BAD_FSMN, /* error "corrupt fsmonitor extension (too short)", "bad fsmonitor version N" */
	SKG_R_WORKTREE_SKIPPED, /* silent: git skips a worktrees/<id> without a readable gitdir */
	SKG_R_SETUP,            /* setup: "warning: core.bare and core.worktree do not make sense",
	                         * "error: invalid value for 'extensions.objectformat': 'X'" */
	SKG_R_GRAFT_BAD,        /* error "bad graft data: LINE", "duplicate graft data: LINE": unchanged */
	SKG_R_GRAFT_DEPRECATED, /* plain "hint: Support for <GIT_DIR>/info/grafts is deprecated" and
	                         * git's other hint lines (one report per line): unchanged */
	SKG_R_FSCK,             /* a line of `git fsck` (object checks, links, packs, refs): see
	                         * msg_id, type, oid and exit_bits */
	SKG_R_INDEX_BAD_LINK,   /* error "corrupt link extension (too short)", "corrupt ewah bitmap:
	                         * ...", "corrupt delete|replace bitmap in link extension", "garbage at
	                         * the end of link extension" (a fatal error follows) */
	SKG_R_INDEX_SPARSE_EXPANDED, /* plain "hint: The sparse index is expanding to a full index,
	                              * ..." (one report per line; git 2.46+, advice
	                              * sparseIndexExpanded): unchanged */
	SKG_R_SETUP_IGNORED,         /* warning "ignoring git dir 'D': MSG" (skg_repo_open_gently) */
};

/* ---- Progress and cancellation ------------------------------------------------------------- */

/*
 * Progress of a long run: fn(ctx, title, done, total) now and then from one thread at a time
 * (title is git's, e.g. "Checking objects", "Indexing objects"; total 0 when unknown), and once
 * with done == total at the end of each phase. stop (optional, may be NULL): when set, the end of
 * each phase goes to it instead, with the count git's ", done." line shows (which a phase that
 * skipped objects leaves below total, as git's meter does). skg_check_repo calls fn exactly where
 * git's fsck draws its line (progress.c: a changed percentage or a second passed, at the points
 * fsck updates its meter), and stop at the end of every phase, with done UINT64_MAX when git draws
 * no ", done." line (a meter that never moved, such as "Checking objects" without a pack). start
 * (optional, may be NULL; skg_check_repo): the beginning of each phase, where git draws nothing.
 * skg_pack_index and the indexer use fn alone (its done == total ends each phase), never stop
 * or start.
 */
struct skg_progress {
	void (*fn)(void *ctx, const char *title, uint64_t done, uint64_t total);
	void *ctx;
	void (*stop)(void *ctx, const char *title, uint64_t done, uint64_t total);
	void (*start)(void *ctx, const char *title, uint64_t total);
};

/* ---- Repositories -------------------------------------------------------------------------- */

struct skg_repo; /* an open repository (its fields: the layer's own repo.h) */

/*
 * Find and open a repository as git does (git's setup.c; gitrepository-layout.txt): `path` (as
 * `git --git-dir=PATH`) if not NULL, else $GIT_DIR, else discovery upwards from the current
 * directory (".git" directories and files, bare repositories, GIT_CEILING_DIRECTORIES), with its
 * common directory, object directory, work tree and index file, and the repository format checked
 * (core.repositoryformatversion, extensions). The process's working directory is not changed.
 * Returns 0 with a new repository in *out (free with skg_repo_free); -1 with err: SKG_E_GIT and
 * git's fatal message ("not a git repository (or any of the parent directories): .git"),
 * SKG_E_UNSUPPORTED for a repository git can work in and sha1kit cannot (SHA-256 objects, a ref
 * store in another place: "unsupported repository: ..."), SKG_E_NOMEM. Warnings git prints during setup go to
 * sink. Thread-safe for distinct outputs.
 */
int skg_repo_open(struct skg_repo **out, const char *path, const struct skg_sink *sink,
                  struct skg_error *err);

/*
 * skg_repo_open as the Git `git_version` (SKG_GIT_2_39 or SKG_GIT_2_55; skg_repo_open is
 * SKG_GIT_2_55) checks the repository format: the v1 extensions Git 2.39.5 does not know
 * (refStorage, compatObjectFormat, relativeWorktrees, submodulePathConfig; setup.c
 * handle_extension of each) fail as unknown there ("unknown repository extension found:\n\t
 * refstorage", SKG_E_GIT), as git 2.39.5 refuses a repository that git 2.45+ made with
 * `--ref-format=reftable`. With 2.55, relativeWorktrees and submodulePathConfig are accepted
 * (booleans) and compatObjectFormat fails with SKG_E_UNSUPPORTED.
 */
int skg_repo_open_as(struct skg_repo **out, const char *path, unsigned git_version,
                     const struct skg_sink *sink, struct skg_error *err);

/*
 * skg_repo_open_as, but a repository whose objects are SHA-256 (extensions.objectFormat =
 * sha256, `git init --object-format=sha256`) opens too, for a caller that handles both formats:
 * skg_repo_object_format says which it has: skg_pack_index (index_options.object_format and
 * repo), skg_hash_object (hash_options.object_format), skg_refs_verify and skg_check_repo read
 * either format.
 */
int skg_repo_open_formats(struct skg_repo **out, const char *path, unsigned git_version,
                          const struct skg_sink *sink, struct skg_error *err);

/*
 * The repository of a command that also works outside one (git's gentle set-up,
 * setup_git_directory_gently: index-pack, hash-object), as skg_repo_open_formats(out, NULL, ...)
 * finds it, except that a repository whose format git refuses (core.repositoryformatversion
 * above 1, an extension unknown to that Git, a v1-only one with version 0) is not an error: git
 * warns and goes on as outside a repository. Then *out is NULL, 0 is returned, and the sink gets
 * git's "warning: MSG" (SKG_R_SETUP; MSG as skg_repo_open_formats's err->msg would be) and, for a
 * repository that was discovered (not named by $GIT_DIR), "warning: ignoring git dir 'D': MSG"
 * (SKG_R_SETUP_IGNORED: what the discovery of git's read_early_config prints for the commands
 * that read it, index-pack among them, hash-object not; D as git spells it from the top of the
 * work tree: ".git", "." for a bare repository). Outside any repository: 0 and *out NULL, nothing
 * reported. Other failures as skg_repo_open_formats (err set, -1).
 */
int skg_repo_open_gently(struct skg_repo **out, unsigned git_version, const struct skg_sink *sink,
                         struct skg_error *err);

/* The repository's object format: SKG_FORMAT_SHA1 or SKG_FORMAT_SHA256. */
unsigned skg_repo_object_format(const struct skg_repo *repo);

/* Close a repository (NULL is fine). */
void skg_repo_free(struct skg_repo *repo);

/* Its $GIT_DIR and object directory: absolute, without symbolic links; valid until freed. */
const char *skg_repo_git_dir(const struct skg_repo *repo);
const char *skg_repo_objects_dir(const struct skg_repo *repo);
/* Its work tree's top directory (absolute, as the directories above), or NULL for a repository
 * without one (bare). Git's set-up moves there when started inside it (setup.c). */
const char *skg_repo_work_tree(const struct skg_repo *repo);

#ifdef __cplusplus
}
#endif

#endif /* SHA1KIT_GIT_H */
