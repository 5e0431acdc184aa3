/*
 * refs.h - the roots git fsck starts from: refs (loose and packed), HEADs of worktrees, reflogs,
 * and the index (entries, cache tree, resolve-undo).
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Sources: Git's
 * Documentation/gitrepository-layout.txt (refs/, packed-refs, logs/, worktrees/<id>/, index),
 * Documentation/git-check-ref-format.txt (valid ref names), Documentation/git-worktree.txt
 * ("REFS": per-worktree refs HEAD, refs/bisect/, refs/worktree/, refs/rewritten/, pseudo refs, and
 * the main-worktree/ and worktrees/<id>/ prefixes), Documentation/git-pack-refs.txt and the
 * packed-refs header ("# pack-refs with: peeled fully-peeled sorted"), Documentation/git-reflog.txt
 * and gitrepository-layout ("logs/refs/heads/<name>" line format
 * "<old> SP <new> SP <ident> SP <timestamp> SP <tz> TAB <message> LF"), and
 * Documentation/gitformat-index.txt (DIRC versions 2, 3, 4 with path prefix compression, the TREE
 * and REUC extensions, the trailing checksum). What git fsck 2.39.5 (builtin/fsck.c) takes as roots
 * and the messages it prints were checked by running it.
 *
 * No printing, no exit, no global state. Fatal problems (git dies: "fatal: MSG", exit 128) come back
 * as -1 with MSG in the struct skg_error; diagnostics git prints and continues after go to the
 * reporter (repo.h) with git's words. A callback's non-zero return stops a walk and is returned
 * (so callbacks should return positive values; -1 is this module's fatal error).
 *
 * How git fsck 2.39.5 uses these (the order matters for identical output):
 *   1. skg_for_each_ref(): every ref under refs/ of the current worktree's ref store, loose over
 *      packed, sorted by name; broken ones (unreadable, dangling or too deep symbolic refs, bad
 *      names, the null ID) come with SKG_REF_ISBROKEN and a null ID. fsck prints
 *      "error: <ref>: invalid sha1 pointer <hex>" for an ID that is no object (also for the null ID
 *      of a broken ref; ERROR_REACHABLE, exit |= 2) and "error: <ref>: not a commit" for a ref
 *      named exactly HEAD or under refs/heads/ that is no commit (ERROR_REFS, exit |= 8).
 *   2. skg_for_each_worktree(): the main worktree, then linked ones in directory order; for each:
 *      skg_check_head() on wt->head_ref (it reports "invalid HEAD", "HEAD points to something
 *      strange (...)", "HEAD: detached HEAD points at nothing" or the unborn-branch notice) and,
 *      when it says so, handles the HEAD as a ref like step 1; then skg_for_each_reflog(wt) and
 *      for each reflog skg_for_each_reflog_entry(): both IDs of each entry are roots unless null;
 *      fsck prints "error: <refname>: invalid reflog entry <hex>" for one that is no object
 *      (ERROR_REACHABLE).
 *   After the worktrees, if no ref was valid, fsck prints "notice: No default references".
 *   3. skg_read_index(): each entry's ID except gitlinks (mode 0160000) is a blob root (a missing
 *      one shows later as "missing blob <hex>" on stdout), then the cache-tree IDs of valid nodes
 *      (fsck: "error: <hex>: invalid sha1 pointer in cache-tree", ERROR_REFS, and then not below
 *      that node; "error in <type> <hex>: non-tree in cache-tree" for a non-tree), then
 *      resolve-undo IDs of regular-file modes ("error: <hex>: invalid sha1 pointer in
 *      resolve-undo", ERROR_REFS).
 */
#ifndef SHA1KIT_GIT_REFS_H
#define SHA1KIT_GIT_REFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"
#include "repo.h"
#include "util.h"

/* ---- Ref names (git-check-ref-format) ------------------------------------------------------- */

#define SKG_REFNAME_ALLOW_ONELEVEL  1u /* "HEAD", "FETCH_HEAD" (one component) are fine */
#define SKG_REFNAME_REFSPEC_PATTERN 2u /* one '*' is fine */

/*
 * Is name a valid ref name (git check-ref-format [--allow-onelevel] [--refspec-pattern])? Components
 * separated by '/', none empty or starting with '.' or ending with ".lock"; no "..", no "@{", no
 * control characters, space, ~ ^ : ? [ \ or (without the pattern flag) *; not ending with '.';
 * not "@"; two components at least unless ALLOW_ONELEVEL.
 */
bool skg_refname_ok(const char *name, unsigned flags);

/* Is a ref name that fails the check above still safe to use as a path (git's refname_is_safe)? */
bool skg_refname_is_safe(const char *name);

/* ---- The ref database ------------------------------------------------------------------------ */

struct skg_packed_refs; /* refs.c: the packed-refs file, read on first use */

/*
 * The refs of a repository as git's files backend reads them. The packed-refs file is read once,
 * when first needed, and kept until skg_refdb_release (git's packed-refs snapshot). The repository
 * must outlive the database; it knows nothing of it.
 */
struct skg_refdb {
	const struct skg_repo *repo;
	struct skg_packed_refs *packed; /* NULL until first needed (refs.c's) */
};

void skg_refdb_init(struct skg_refdb *db, const struct skg_repo *repo);
void skg_refdb_release(struct skg_refdb *db);

/* ---- Refs ----------------------------------------------------------------------------------- */

#define SKG_REF_ISSYMREF 0x01u /* a symbolic ref (the ID is the one it resolves to) */
#define SKG_REF_ISPACKED 0x02u /* the last step of the resolution came from packed-refs */
#define SKG_REF_ISBROKEN 0x04u /* could not be resolved to an ID: the ID is all zeros */
#define SKG_REF_BAD_NAME 0x08u /* the name fails skg_refname_ok(): the ID is all zeros */

typedef int (*skg_ref_fn)(void *ctx, const char *refname, const uint8_t id[SKG_RAWSZ], unsigned flags);

/*
 * Call fn for every ref under refs/ as git's for_each_rawref() sees it from db's repository (the current
 * worktree): loose refs (recursively; refs/bisect/, refs/worktree/, refs/rewritten/ from the git
 * dir, the rest from the common dir; names starting with '.' or ending with ".lock" skipped) merged
 * with <common>/packed-refs (a loose ref hides a packed one of the same name), in strcmp order of
 * the names. Symbolic refs are resolved (up to 5 steps, loose then packed at each step). Returns 0,
 * fn's non-zero value, or -1 with git's fatal message (a packed-refs file git dies on: "unexpected
 * line in .git/packed-refs: ...", "unterminated line in ...", "packed refname is dangerous: ...")
 * after the refs sorted before the bad record were passed to fn, as git does.
 */
int skg_for_each_ref(struct skg_refdb *db, skg_ref_fn fn, void *ctx, struct skg_error *err);

#define SKG_RESOLVE_READING        0x01u /* a ref that does not exist is a failure (else: null ID) */
#define SKG_RESOLVE_NO_RECURSE     0x02u /* stop at the first symbolic ref (target in *target) */
#define SKG_RESOLVE_ALLOW_BAD_NAME 0x04u /* accept bad but safe names (flagged SKG_REF_BAD_NAME) */

/*
 * Resolve refname in db's ref store as git's refs_resolve_ref_unsafe(): refname may be "HEAD",
 * "refs/...", a pseudo ref, "main-worktree/HEAD" or "worktrees/<id>/HEAD" (and other per-worktree
 * refs behind those prefixes). Returns 1 with id, *flags (SKG_REF_*) and the name it resolved to in
 * target (the last symbolic ref's target; refname itself for a plain ref; an unborn branch gives
 * its name with a null ID unless SKG_RESOLVE_READING), 0 if git's resolution fails (returns NULL),
 * or -1 on a fatal error. target may be NULL.
 */
int skg_resolve_ref(struct skg_refdb *db, const char *refname, unsigned resolve_flags, uint8_t id[SKG_RAWSZ],
                    struct skg_buf *target, unsigned *flags, struct skg_error *err);

/* ---- Worktrees and their HEADs ---------------------------------------------------------------- */

struct skg_worktree {
	const char *id;         /* NULL for the main worktree, else the name under <common>/worktrees/ */
	const char *git_dir;    /* absolute: <common> for the main worktree, else <common>/worktrees/<id> */
	const char *head_ref;   /* "HEAD" (current), "main-worktree/HEAD" or "worktrees/<id>/HEAD" */
	const char *common_dir; /* absolute: the common dir this worktree's ref store uses */
	bool is_current;        /* repo was opened in this worktree */
	/* this worktree's ref store as git spells it (for messages) */
	const char *git_dir_display, *common_dir_display;
};

/*
 * Call fn for the main worktree, then for each <common>/worktrees/<id> whose "gitdir" file is
 * readable and not empty, in readdir order (as git's get_worktrees()). The struct is valid during
 * the call only.
 */
int skg_for_each_worktree(struct skg_repo *repo, int (*fn)(void *ctx, const struct skg_worktree *wt),
                          void *ctx, const struct skg_sink *rep, struct skg_error *err);

enum skg_head_state {
	SKG_HEAD_BRANCH,        /* a symbolic ref to refs/heads/X that resolves */
	SKG_HEAD_DETACHED,      /* an object ID */
	SKG_HEAD_UNBORN,        /* refs/heads/X that does not exist (notice reported) */
	SKG_HEAD_INVALID,       /* cannot be resolved ("error: invalid HEAD") */
	SKG_HEAD_STRANGE,       /* points outside refs/heads/ (error reported) */
	SKG_HEAD_DETACHED_NULL, /* the null ID (error reported) */
};

struct skg_head {
	enum skg_head_state state;
	uint8_t id[SKG_RAWSZ]; /* what it resolves to (null if nothing) */
	bool is_root;          /* fsck handles (head_ref, id) as a ref: resolved and not null */
	unsigned flags;        /* SKG_REF_* of the resolution */
	struct skg_buf target; /* the ref it points at (refname itself when detached) */
};

/*
 * git fsck's check of a worktree's HEAD (fsck_head_link): resolves head_ref and reports, with git's
 * words and levels, "invalid HEAD", "HEAD points to something strange (refs/tags/x)",
 * "HEAD: detached HEAD points at nothing" (errors, git's ERROR_REFS) or
 * "HEAD points to an unborn branch (master)" (notice). Returns 0 (out filled) or -1 (fatal).
 * out must be zero-initialised before the first call (its target buffer is reused by later calls);
 * release it with skg_buf_release(&out->target).
 */
int skg_check_head(struct skg_refdb *db, const char *head_ref, struct skg_head *out,
                   const struct skg_sink *rep, struct skg_error *err);

/* ---- Reflogs -------------------------------------------------------------------------------- */

/*
 * Call fn(ctx, refname, path) for every reflog of worktree wt as git fsck walks them
 * (refs_for_each_reflog on the worktree's ref store): the regular files under its logs/ directory
 * in readdir order, depth first (for a linked worktree: its own logs/, then the shared ones of the
 * common dir). refname is the name fsck uses (per-worktree refs of a worktree that is not the
 * current one get its prefix: "worktrees/<id>/HEAD", "main-worktree/HEAD"); path is the absolute
 * file to read the entries from (skg_for_each_reflog_entry). A log whose name does not resolve in
 * the worktree's store is skipped with git's "error: bad ref for <path>" (path as git spells it;
 * git's exit status is unchanged).
 */
int skg_for_each_reflog(struct skg_refdb *db, const struct skg_worktree *wt,
                        int (*fn)(void *ctx, const char *refname, const char *path), void *ctx,
                        const struct skg_sink *rep, struct skg_error *err);

struct skg_reflog_entry {
	uint8_t old_id[SKG_RAWSZ], new_id[SKG_RAWSZ];
	const char *ident; /* "Name <email>" (NUL-terminated) */
	uint64_t timestamp;
	int tz;              /* e.g. -130 for "-0130" */
	const char *message; /* after the TAB, without the final LF (NUL-terminated) */
	size_t line;         /* 1-based line number */
};

typedef int (*skg_reflog_entry_fn)(void *ctx, const struct skg_reflog_entry *e);

/*
 * Call fn for each line of the reflog file at path that git accepts (refs/files-backend.c
 * show_one_reflog_ent): "<40 hex> SP <40 hex> SP <ident ending with '>'> SP <timestamp != 0>
 * SP <+|-><4 digits> [TAB <message>] LF". Other lines (and a last line without LF) are skipped as git
 * skips them, reported as SKG_LEVEL_SILENT. A missing file is no error (returns 0).
 */
int skg_for_each_reflog_entry(const char *path, skg_reflog_entry_fn fn, void *ctx, const struct skg_sink *rep,
                              struct skg_error *err);

/* The same on reflog text in memory (no I/O). */
int skg_reflog_parse(const char *buf, size_t len, skg_reflog_entry_fn fn, void *ctx,
                     const struct skg_sink *rep, struct skg_error *err);

/* ---- packed-refs in memory ------------------------------------------------------------------ */

/*
 * Call fn for each record of packed-refs text buf[0..len) in git's iteration order (sorted by name
 * unless the header says "sorted", which git trusts), with the peeled ID ("^" line) if any
 * (peeled NULL otherwise), as git's packed-refs reader: bad names come with SKG_REF_BAD_NAME |
 * SKG_REF_ISBROKEN and a null ID; what git dies on returns -1 with its message, file name name.
 */
int skg_packed_refs_parse(const char *buf, size_t len, const char *name,
                          int (*fn)(void *ctx, const char *refname, const uint8_t id[SKG_RAWSZ],
                                    const uint8_t *peeled, unsigned flags),
                          void *ctx, struct skg_error *err);

/* ---- The index ------------------------------------------------------------------------------ */

#define SKG_CE_STAGEMASK     0x3000u
#define SKG_CE_EXTENDED      0x4000u
#define SKG_CE_VALID         0x8000u
#define SKG_CE_INTENT_TO_ADD (1u << 29)
#define SKG_CE_SKIP_WORKTREE (1u << 30)

struct skg_index_entry {
	const char *path; /* NUL-terminated, valid during the callback */
	size_t path_len;
	uint32_t mode; /* 0100644, 0100755, 0120000, 0160000 (gitlink), 040000 (sparse directory) */
	uint8_t id[SKG_RAWSZ];
	unsigned stage;        /* 0..3 */
	uint32_t flags;        /* the 16-bit flags | extended flags << 16 (SKG_CE_*) */
	uint32_t size;         /* the stat size field */
	bool sparse_directory; /* mode 040000 in a sparse index (git expands these into the tree's files) */
};

struct skg_index_info {
	unsigned version; /* 2, 3 or 4 */
	uint32_t entries;
	uint8_t checksum[SKG_RAWSZ];
	bool has_cache_tree, has_resolve_undo, sparse; /* "sdir" extension */
};

struct skg_index_callbacks {
	/* each entry in index order */
	int (*entry)(void *ctx, const struct skg_index_entry *e);
	/*
	 * each cache-tree node in git fsck's order (the root, then subtrees depth first, siblings by
	 * name length, then bytes); entry_count < 0 is an invalidated node (no ID: id is NULL). path is
	 * "" for the root, else "dir/sub". *descend is true on entry; set it to false to skip this
	 * node's subtrees (git fsck does not look below a node whose tree is no object).
	 */
	int (*cache_tree)(void *ctx, const char *path, int entry_count, int subtrees, const uint8_t *id,
	                  bool *descend);
	/* each resolve-undo path in strcmp order (the last record of a path wins); id[i] NULL if no mode */
	int (*resolve_undo)(void *ctx, const char *path, const uint32_t mode[3], const uint8_t *const id[3]);
	void *ctx;
};

/*
 * Parse an index file in memory as git fsck reads it (verified checksum and entry order): every
 * problem git dies on returns -1 with its message ("<name>: index file smaller than expected",
 * "index file corrupt" after an "error: bad signature 0x...", "error: bad index version N" or
 * "error: bad index file sha1 signature" report, "unknown index entry format 0x...",
 * "unordered stage entries in index", "multiple stage entries for merged file 'P'",
 * "unordered stage entries for 'P'", "malformed name field in the index, near path 'P'",
 * "cache-tree: internal error", and "index file corrupt" after "error: index uses xxxx extension,
 * which we do not understand" for an unknown extension whose name does not start with A-Z).
 * Diagnostics: plain "ignoring XXXX extension", errors "Index records invalid resolve-undo
 * information", "corrupt fsmonitor extension (too short)", "bad fsmonitor version N". The file is
 * checked completely before the first callback. Entries that run past the end of buf, which git
 * reads from whatever memory follows its mapping, give "index file corrupt". Left out: split index
 * ("link" extension: refused with a fatal error), the EWAH bitmap of the FSMN extension, the
 * expansion of sparse directory entries (passed as they are).
 */
int skg_index_parse(const uint8_t *buf, size_t len, const char *name, const struct skg_index_callbacks *cb,
                    struct skg_index_info *info, const struct skg_sink *rep, struct skg_error *err);

/*
 * Read repo->index_file and parse it as above (name in messages: repo->index_file_display). A
 * missing index is an empty one: returns 0 without callbacks, info->entries 0, version 0. As git
 * maps the file, a corrupt entry may read on into the zeros that fill the file's last page; they
 * are read here too, so that such a file gives git's message.
 */
int skg_read_index(const struct skg_repo *repo, const struct skg_index_callbacks *cb,
                   struct skg_index_info *info, const struct skg_sink *rep, struct skg_error *err);

#endif /* SHA1KIT_GIT_REFS_H */
