/*
 * repo.h - finding a Git repository as git does, its directories, alternates and config.
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Sources: Git's
 * Documentation/gitrepository-layout.txt (the files of $GIT_DIR: HEAD, objects/, refs/, commondir,
 * worktrees/, objects/info/alternates, config, config.worktree), Documentation/git.txt
 * ("ENVIRONMENT VARIABLES": GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR, GIT_OBJECT_DIRECTORY,
 * GIT_ALTERNATE_OBJECT_DIRECTORIES, GIT_INDEX_FILE, GIT_CEILING_DIRECTORIES,
 * GIT_DISCOVERY_ACROSS_FILESYSTEM, GIT_CONFIG_NOSYSTEM, GIT_CONFIG_SYSTEM, GIT_CONFIG_GLOBAL,
 * GIT_CONFIG_COUNT), Documentation/config.txt ("CONFIGURATION FILE": syntax, sections,
 * subsections, quoting and escapes, includes), Documentation/technical/repository-version.txt and
 * Documentation/config/extensions.txt (core.repositoryformatversion, extensions.*).
 * Behaviour checked against git 2.39.5.
 *
 * This module does file I/O (stat, open, read, opendir, realpath, getcwd) but never prints, never
 * exits and keeps no global state: a failure that git treats as fatal (git prints "fatal: MSG" and
 * exits 128) comes back as a negative return value with MSG in a struct skg_error; diagnostics git
 * prints and goes on after ("error: ...", "warning: ...", "notice: ...") go to a reporter callback
 * with git's exact words, so that a command can print them as git does.
 */
#ifndef SHA1KIT_GIT_REPO_H
#define SHA1KIT_GIT_REPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"

/* ---- Errors and reports ------------------------------------------------------------------- */

/* struct skg_error, enum skg_level, skg_level_prefix, enum skg_report_id and struct skg_sink are
 * the public ones of <sha1kit/git.h> (through object.h). */

/* ---- The repository ------------------------------------------------------------------------- */

struct skg_packed_refs; /* refs.c: the packed-refs file, read once per repository */

/*
 * A repository as git finds it. Every path is a NUL-terminated heap string owned by the struct.
 * The *_dir, work_tree and index_file fields are absolute and free of symbolic links, "." and
 * ".." (what `git rev-parse --absolute-git-dir` etc. print). The *_display fields are the same
 * paths as git itself spells them in its messages after its setup (it changes into the top of the
 * work tree first), e.g. ".git" for a repository found from inside its work tree, "." inside a
 * bare repository, the GIT_DIR value as given: git fsck prints "bad ref for .git/logs/x..y" and
 * "unexpected line in .git/packed-refs: ...".
 */
struct skg_repo {
	char *git_dir;     /* $GIT_DIR: HEAD, index, logs/HEAD, per-worktree refs */
	char *common_dir;  /* $GIT_COMMON_DIR: refs/, packed-refs, logs/refs/, config, worktrees/ */
	char *objects_dir; /* GIT_OBJECT_DIRECTORY or <common>/objects */
	char *work_tree;   /* NULL without a work tree */
	char *index_file;  /* GIT_INDEX_FILE or <git_dir>/index */
	char *git_dir_display;
	char *common_dir_display;
	char *objects_dir_display;
	char *index_file_display;
	char *cwd;            /* the directory the search started from (getcwd) */
	char *git_cwd;        /* where git runs after its setup (the top of the work tree when cwd is
	                       * inside it, else cwd): relative *_display paths are relative to it */
	bool bare;            /* what `git rev-parse --is-bare-repository` prints */
	bool worktree_config; /* extensions.worktreeConfig: <git_dir>/config.worktree is read */
	int format_version;   /* core.repositoryformatversion, -1 when not set */
	struct skg_packed_refs *packed; /* NULL until first needed */
};

/*
 * Find and open the repository as git does (git 2.39.5 setup.c), without changing the process's
 * working directory:
 *  - git_dir_arg (as `git --git-dir=D`) if not NULL, else the GIT_DIR environment variable: that
 *    directory (or the repository a ".git" file there names) must be a repository;
 *  - else discovery upwards from the current directory: in each directory first ".git" (a
 *    directory that is a repository, or a file "gitdir: PATH", PATH relative to the file's
 *    directory), then the directory itself as a bare repository (HEAD that is "ref: refs/..." or
 *    a hex object ID or a symbolic link into refs/, plus objects/ and refs/), then the parent, up
 *    to the root, a GIT_CEILING_DIRECTORIES entry, or (unless GIT_DISCOVERY_ACROSS_FILESYSTEM is
 *    true) a change of file system.
 * A directory is a repository by the test above, with objects/ and refs/ looked up in its common
 * directory (the "commondir" file of a linked worktree, or GIT_COMMON_DIR).
 * Then the repository format is checked as git does (<common>/config: core.repositoryformatversion
 * at most 1, no unknown extension with version 1, no v1-only extension with version 0) and, beyond
 * git 2.39.5, extensions.objectFormat=sha256 is refused (this library handles SHA-1 only). The work
 * tree follows GIT_WORK_TREE, core.bare, core.worktree and the discovery as git's does.
 * On success *out is a new repository (free with skg_repo_free) and 0 is returned; on failure -1
 * with git's fatal message in err ("not a git repository (or any of the parent directories): .git"
 * etc.). Warnings git prints during setup go to rep.
 * Left out: safe.directory ownership checks and safe.bareRepository (git 2.39.5 refuses a repository
 * owned by another user unless configured), GIT_DIR spellings past git's PATH_MAX check.
 */
int skg_repo_open(struct skg_repo **out, const char *git_dir_arg, const struct skg_sink *rep,
                  struct skg_error *err);

void skg_repo_free(struct skg_repo *repo);

/* Free the packed-refs snapshot (refs.c; NULL is fine). */
void skg_packed_refs_free(struct skg_packed_refs *packed);

/* ---- Alternates ----------------------------------------------------------------------------- */

/*
 * Call fn(ctx, dir) for each alternate object directory, in git's order: the entries of
 * GIT_ALTERNATE_OBJECT_DIRECTORIES (separated by ':', relative to repo->git_cwd), then the
 * lines of <objects>/info/alternates (relative to that objects directory), each followed at once
 * by its own alternates, recursively to git's depth limit (an alternates file read at depth 6 is
 * ignored with an error). Lines starting with '#' are comments; an entry in double quotes is
 * C-unquoted. dir is absolute and without symbolic links; the repository's own objects directory
 * and entries already listed are skipped silently, missing directories with git's error. A
 * non-zero return of fn stops the walk and is returned; -1 is returned with err set on a fatal
 * error (out of memory).
 */
int skg_for_each_alternate(const struct skg_repo *repo, int (*fn)(void *ctx, const char *dir), void *ctx,
                           const struct skg_sink *rep, struct skg_error *err);

/* ---- Config --------------------------------------------------------------------------------- */

/*
 * A config entry: key is "section.name" or "section.subsection.name" with section and name in
 * lower case and the subsection as written ("[Section \"Sub\"]" gives "section.Sub.name"; the old
 * form "[section.sub]" gives "section.sub.name"). value is NULL for a key without "=" (a boolean
 * true), else the value with quotes and escapes (\\ \" \n \t \b, backslash-newline) resolved,
 * comments (# ;) dropped and runs of outer whitespace collapsed as git does. A positive return
 * stops the parse and is returned by the reader; a negative one fails the parse at this line as in
 * git (-1, "bad config line N in file NAME").
 */
typedef int (*skg_config_fn)(void *ctx, const char *key, const char *value);

/*
 * Parse config text buf[0..len) and call fn per entry in file order. name is used in the error
 * message: on a syntax error -1 is returned with err = "bad config line N in file NAME" (git's
 * words and line number). A UTF-8 byte order mark at the start is skipped.
 * Entries after a NUL byte in a value are kept; the value passed is cut at the NUL (as git's).
 */
int skg_config_parse(const char *buf, size_t len, const char *name, skg_config_fn fn, void *ctx,
                     struct skg_error *err);

/*
 * Parse buf[0..len) as git parses a config blob (git_config_from_mem, as for a .gitmodules blob):
 * as skg_config_parse, except that git reads the bytes of a buffer as `char` values where it
 * reads a file's with fgetc. Where char is signed (x86-64; arm64 Linux has it unsigned), that makes
 * git's own blob parser, and this one: refuse a UTF-8 byte order mark (0xEF is not the 239 git
 * compares with: a syntax error at line 1), take a byte 0xFF for the end of input (eof is set, the
 * current line ends there; a line break right after it ends the parse without error, as does 0xFF
 * outside an entry; reading goes on otherwise, with eof set, which fails the next section
 * header and ends the next key name at once), drop a 0xFF right after a CR, and see bytes
 * 0x80..0xFE as the negative values they are (no key or section character, as in files).
 * The error is "bad config line N in blob NAME" (git's wording for blobs).
 */
int skg_config_parse_blob(const char *buf, size_t len, const char *name, skg_config_fn fn, void *ctx,
                          struct skg_error *err);

/* Read and parse the file at path (a missing file is empty: returns 0). name as above. */
int skg_config_read_file(const char *path, const char *name, skg_config_fn fn, void *ctx,
                         struct skg_error *err);

/*
 * Every config entry git sees in this repository, in git's order: the system file (GIT_CONFIG_SYSTEM,
 * else /etc/gitconfig; none when GIT_CONFIG_NOSYSTEM is true), the global files (GIT_CONFIG_GLOBAL,
 * else $XDG_CONFIG_HOME/git/config or ~/.config/git/config, then ~/.gitconfig), the repository's
 * <common>/config, <git_dir>/config.worktree with extensions.worktreeConfig, then
 * GIT_CONFIG_COUNT/GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n>. include.path is followed (relative to
 * the including file, "~/" expanded, at most 10 deep as git); includeIf is not (left out), nor
 * GIT_CONFIG_PARAMETERS (`git -c`).
 */
int skg_repo_config(const struct skg_repo *repo, skg_config_fn fn, void *ctx, struct skg_error *err);

/*
 * git's boolean values: NULL (no "="), "true", "yes", "on" -> 1; "false", "no", "off", "" -> 0
 * (case-insensitive); an integer (with an optional k, m, g unit) -> non-zero or 0; else -1.
 */
int skg_config_bool(const char *value);

/* git's integer values (strtoimax base 0, optional k/m/g unit, int range): true and *out, or false. */
bool skg_config_int(const char *value, int *out);

/*
 * Canonical form of a config key as given on a command line ("Fsck.zeroPaddedFilemode" ->
 * "fsck.zeropaddedfilemode"; "a.B.c" -> "a.B.c" with the subsection kept): lower-cases the section
 * and the last part. Returns false (out unchanged) for a key without a section or name.
 */
bool skg_config_canonical_key(const char *key, char *out, size_t out_size);

/* ---- Grafts and shallow commits ---------------------------------------------------------------- */

/* A commit whose parents git replaces: by the graft file's list, or by none (a shallow commit). */
struct skg_graft {
	uint8_t id[SKG_RAWSZ];
	size_t nparents;  /* parents[0 .. nparents) */
	uint8_t *parents; /* nparents * SKG_RAWSZ bytes (NULL when none) */
};

struct skg_grafts {
	struct skg_graft *v; /* sorted by id, no duplicates */
	size_t n;
};

/*
 * The grafts git applies when it parses commits (commit.c prepare_commit_graft, shallow.c
 * is_repository_shallow): the graft file (GIT_GRAFT_FILE, else <common>/info/grafts: per line
 * "COMMIT [PARENT]...", hex IDs separated by one blank; empty lines and '#' lines skipped; a bad
 * line is "error: bad graft data: LINE", a second graft of a commit "error: duplicate graft data:
 * LINE", both ignored), then <common>/shallow (one commit per line: its parents are cut, replacing
 * any graft). When the graft file exists git first prints its deprecation hint (reports
 * SKG_R_GRAFT_DEPRECATED, one per line) unless `hint` is false (advice.graftFileDeprecated).
 * Returns 0 (out filled; free with skg_grafts_free), or -1 with err set: a shallow line that is
 * not an ID, where git dies ("bad shallow line: LINE"), or out of memory.
 */
int skg_repo_grafts(const struct skg_repo *repo, bool hint, struct skg_grafts *out,
                    const struct skg_sink *rep, struct skg_error *err);

/* The graft of commit `id`, or NULL. */
const struct skg_graft *skg_graft_find(const struct skg_grafts *g, const uint8_t id[SKG_RAWSZ]);

void skg_grafts_free(struct skg_grafts *g);

/* ---- Helpers shared by the Git layer's file readers ------------------------------------------ */

/* A growable NUL-terminated string. p is NULL until something is added (use skg_buf_str). */
struct skg_buf {
	char *p;
	size_t len, cap;
	bool failed; /* an allocation failed: contents are truncated */
};

void skg_buf_add(struct skg_buf *b, const void *data, size_t len);
void skg_buf_adds(struct skg_buf *b, const char *s);
void skg_buf_addc(struct skg_buf *b, char c);
void skg_buf_addf(struct skg_buf *b, const char *fmt, ...) SKG_PRINTF(2, 3);
void skg_buf_setlen(struct skg_buf *b, size_t len);
const char *skg_buf_str(const struct skg_buf *b); /* "" when empty */
void skg_buf_release(struct skg_buf *b);

/*
 * Read the whole file at path into a new heap buffer (*data, NUL-terminated; *len bytes without the
 * NUL). Returns 0, or -1 with errno set (ENOENT for a missing file, EFBIG beyond max bytes).
 */
int skg_read_file(const char *path, size_t max, char **data, size_t *len);

/* snprintf into err->msg; returns -1 (for `return skg_fail(err, ...)`). */
int skg_fail(struct skg_error *err, const char *fmt, ...) SKG_PRINTF(2, 3);

/* As skg_fail, with another code (SKG_E_NOMEM, SKG_E_IO, ...) and the errno of the failed call. */
int skg_fail_sys(struct skg_error *err, enum skg_errc code, int sys_errno, const char *fmt, ...)
    SKG_PRINTF(4, 5);

/* Hand the record r to sink (which may be NULL, or have no report function). */
void skg_sink_emit(const struct skg_sink *sink, const struct skg_report *r);

/* Send a formatted diagnostic to rep (which may be NULL): a record with text, level and id. */
void skg_report(const struct skg_sink *rep, enum skg_level level, enum skg_report_id id, const char *fmt, ...)
    SKG_PRINTF(4, 5);

/*
 * The absolute path of path (relative to the current directory) without symbolic links, "." and
 * "..", into a new heap string; like git's strbuf_realpath(), the last component need not exist.
 * NULL (errno set) if another component is missing or not a directory.
 */
char *skg_realpath(const char *path);

/* git's isspace(): space, \t, \n, \r only (git's ctype, not the C locale's). */
static inline bool skg_isspace(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

#endif /* SHA1KIT_GIT_REPO_H */
