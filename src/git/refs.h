/*
 * refs.h - the ref database: refs (loose and packed) and their resolution, the ref stores of
 * worktrees; with worktree.h (worktrees and their HEADs), reflog.h and index_file.h, the roots git
 * fsck starts from (the order it uses them in is below).
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
#include "util.h"

struct skg_repo;

/* ---- The ref database ------------------------------------------------------------------------ */

struct skg_packed_refs; /* refs.c: the packed-refs file, read on first use */
struct skg_reftables;   /* refs.c: the reftable stacks read so far */
struct skg_reftable_stack;

/*
 * The refs of a repository as git's files backend reads them, or, in a repository with
 * extensions.refStorage = reftable (repo->reftable), as git's reftable backend reads them
 * (reftable.h; git 2.55.0's refs/reftable-backend.c): every function of this header and of reflog.h
 * serves both. The packed-refs file, or each reftable stack, is read once, when first needed, and
 * kept until skg_refdb_release (git's snapshot). The repository must outlive the database; it
 * knows nothing of it.
 */
struct skg_refdb {
	const struct skg_repo *repo;
	size_t rawsz; /* bytes of the repository's object IDs (20, or 32 for SHA-256): every ID below */
	struct skg_packed_refs *packed;  /* NULL until first needed (refs.c's) */
	struct skg_reftables *reftables; /* NULL until first needed (refs.c's) */
	/* reflog files as git 2.45+ lists them: in name order (e69e8ffef7, "refs/files: sort reflogs
	 * returned by the reflog iterator": each directory's entries sorted), and each file whose name
	 * is a valid refname without its ref being resolved (no "bad ref for"); false (the default of
	 * skg_refdb_init): readdir order, every ref resolved, as git 2.39.5 */
	bool sorted_reflogs;
	/* the files backend as git 2.55 reads it where 2.39.5 differs: packed-refs' header prefix is
	 * "# pack-refs with: " with the space, and a refname with a NUL byte in it is fatal ("packed
	 * refname contains embedded NULL: NAME", refs/packed-backend.c); a loose ref directory's entry
	 * that is neither a directory nor a regular file (after symbolic links: a FIFO, a socket) is
	 * no ref (refs/files-backend.c loose_fill_ref_dir; 2.39.5 reads it, and waits on a FIFO);
	 * false (skg_refdb_init's): as git 2.39.5 */
	bool files_current;
};

void skg_refdb_init(struct skg_refdb *db, const struct skg_repo *repo);
void skg_refdb_release(struct skg_refdb *db);

/* ---- Refs ----------------------------------------------------------------------------------- */

#define SKG_REF_ISSYMREF 0x01u /* a symbolic ref (the ID is the one it resolves to) */
#define SKG_REF_ISPACKED 0x02u /* the last step of the resolution came from packed-refs */
#define SKG_REF_ISBROKEN 0x04u /* could not be resolved to an ID: the ID is all zeros */
#define SKG_REF_BAD_NAME 0x08u /* the name fails skg_refname_ok(): the ID is all zeros */

typedef int (*skg_ref_fn)(void *ctx, const char *refname, const uint8_t *id, unsigned flags);

/*
 * Call fn for every ref under refs/ as git's for_each_rawref() sees it from db's repository (the current
 * worktree). Reftable: the stack's refs under refs/ in name order (a linked worktree's own refs from
 * its stack, the others from the common one), symbolic refs resolved, bad names and unresolvable
 * ones broken as below; a table that cannot be read returns -1 with reftable.h's error. Files: loose refs
 * (recursively; refs/bisect/, refs/worktree/, refs/rewritten/ from the git dir, the rest from the common dir;
 * names starting with '.' or ending with ".lock" skipped) merged with <common>/packed-refs (a loose ref hides
 * a packed one of the same name), in strcmp order of the names. Symbolic refs are resolved (up to 5 steps,
 * loose then packed at each step). Returns 0, fn's non-zero value, or -1 with git's fatal message (a
 * packed-refs file git dies on: "unexpected line in .git/packed-refs: ...", "unterminated line in ...",
 * "packed refname is dangerous: ...") after the refs sorted before the bad record were passed to fn, as git
 * does.
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
int skg_resolve_ref(struct skg_refdb *db, const char *refname, unsigned resolve_flags, uint8_t *id,
                    struct skg_buf *target, unsigned *flags, struct skg_error *err);

/* ---- packed-refs in memory ------------------------------------------------------------------ */

/*
 * Call fn for each record of packed-refs text buf[0..len) in git's iteration order (sorted by name
 * unless the header says "sorted", which git trusts), with the peeled ID ("^" line) if any
 * (peeled NULL otherwise), as git's packed-refs reader: bad names come with SKG_REF_BAD_NAME |
 * SKG_REF_ISBROKEN and a null ID; what git dies on returns -1 with its message, file name name.
 * IDs are rawsz bytes (2 * rawsz hex digits in the file).
 */
int skg_packed_refs_parse(const char *buf, size_t len, const char *name, size_t rawsz,
                          int (*fn)(void *ctx, const char *refname, const uint8_t *id, const uint8_t *peeled,
                                    unsigned flags),
                          void *ctx, struct skg_error *err);

/* ---- Ref stores (for reflog.c) --------------------------------------------------------------- */

/* Where one worktree's refs are: absolute paths for I/O, and git's spelling for messages. */
struct skg_ref_store {
	const char *git_dir, *common_dir;
	const char *git_dir_display, *common_dir_display;
};

/* The ref store of the repository's current worktree. */
void skg_ref_store_main(const struct skg_repo *repo, struct skg_ref_store *st);

/* The file of refname in st, or of its reflog (files-backend files_ref_path / files_reflog_path). */
void skg_ref_path(const struct skg_ref_store *st, const char *refname, bool logs, struct skg_buf *out);

/* skg_resolve_ref in the ref store st (a worktree's): 1 resolved, 0 git's resolution fails, -1 fatal. */
int skg_resolve_ref_in(struct skg_refdb *db, const struct skg_ref_store *st, const char *refname,
                       unsigned rflags, uint8_t *id, unsigned *flags, struct skg_error *err);

/* ---- Reftable stacks (for reflog.c) ---------------------------------------------------------- */

/*
 * The reftable stack of git directory dir (<dir>/reftable; display: dir as git spells it), read on
 * first use and kept in db. 0 with *stack, or -1 with reftable.h's error.
 */
int skg_refdb_reftable_at(struct skg_refdb *db, const char *dir, const char *display,
                          const struct skg_reftable_stack **stack, struct skg_error *err);

/*
 * The stack that holds refname of ref store st (a per-worktree ref, "HEAD", "refs/bisect/...",
 * from the worktree's own stack; "main-worktree/X" and "worktrees/<id>/X" from those worktrees';
 * the rest from the common dir's) and the name it has there (*name points into refname).
 */
int skg_refdb_reftable(struct skg_refdb *db, const struct skg_ref_store *st, const char *refname,
                       const struct skg_reftable_stack **stack, const char **name, struct skg_error *err);

#endif /* SHA1KIT_GIT_REFS_H */
