/*
 * sha1kit/git_fsck.h - check a whole repository as `git fsck --full` does (git 2.39.5 and 2.55.0:
 * builtin/fsck.c, fsck.c, pack-check.c, packfile.c, object-file.c; where the two differ, the one
 * skg_check_options.git_version names), with SHA-1DC on every object.
 *
 * Either object format: a repository whose extensions.objectFormat is sha256 (`git init
 * --object-format=sha256`) is checked with SHA-256 object IDs (64 hex digits in the lines; loose
 * objects, packs, idx, .rev, commit-graph, multi-pack-index, index, refs, reflogs, shallow and
 * grafts all read in that format, as git reads them). The `oid` of a report is then 32 bytes, else
 * SKG_RAWSZ (20).
 *
 * One call, skg_check_repo(), does what `sha1kit fsck` does: it finds the repository as git does,
 * reads its config (fsck.<msg-id>, fsck.skipList), checks every loose object and every pack (the
 * idx rebuilt and compared), the .gitmodules and .gitattributes blobs, takes the refs, HEADs,
 * reflogs and index as roots, walks the links, and checks the commit-graph, multi-pack-index and
 * .rev files. Every line git fsck prints comes to the caller's sink (sha1kit/git.h) as one
 * struct skg_report, in git's order: the result lines of stdout ("dangling blob ID", "missing tree
 * ID", "broken link from ...", "root ID", "tagged ...", "unreachable ...") with level
 * SKG_LEVEL_OUTPUT, those of stderr with git's level (ERROR, WARNING, NOTICE; PLAIN for the lines
 * git writes without a prefix, such as "error in tree ID: msgId: detail", and for the "fatal: ..."
 * line git dies with, prefix included and `fatal` set). Printing skg_level_prefix(level), the text
 * and "\n" of each record (stdout for OUTPUT, stderr for the others) gives git's output byte for
 * byte.
 */
#ifndef SHA1KIT_GIT_FSCK_H
#define SHA1KIT_GIT_FSCK_H

#include <sha1kit/git.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The options of a check: `git fsck --full`'s, with their defaults from skg_check_options_default.
 *   show_dangling     --dangling: "dangling TYPE ID" lines (default true)
 *   show_unreachable  --unreachable: "unreachable TYPE ID" for every unreachable object instead
 *   show_root         --root: "root ID" for each root commit
 *   show_tags         --tags: "tagged TYPE ID (NAME) in ID" for each tag
 *   name_objects      --name-objects: the lines of the connectivity walk ("broken link from ...",
 *                     "wrong object type in link", "missing ...") describe each object git has
 *                     a name for as "ID (NAME)", the name git gives it (a ref, "REF@{TIME}" of a
 *                     reflog entry, ":PATH" of an index entry, then "NAME:", "NAME~N", "NAME^2",
 *                     "NAME:PATH/" down the walk; fsck.c fsck_put_object_name); the other lines
 *                     are as without it, as in git (its object check runs before any name is
 *                     known)
 *   connectivity_only --connectivity-only: links only, no object syntax checks (objects are still
 *                     hashed)
 *   strict            --strict: git's stricter checks (fsck.c's strict mode)
 *   include_reflogs   --reflogs: reflog entries are roots (default true; lost_found turns it off
 *                     as git does)
 *   keep_cache        --cache: the index is a root (default true; as in git without objects
 *                     named, the index is always read)
 *   lost_found        --lost-found: each dangling object is written into lost-found/ of the
 *                     common directory (GIT_COMMON_DIR: the main repository's from a worktree)
 *                     (commit/ID holds "ID\n", other/ID a blob's content or a tree's or tag's ID),
 *                     with git's lines where that fails
 *   check_refs        --references: first check the ref database as Git 2.48 and later do by
 *                     default (`git refs verify`, skg_refs_verify of <sha1kit/git_refs.h>, with
 *                     strict as its --strict): its lines, and exit bit 8 when it reports an error
 *                     or dies; git's "Checking ref database" progress meter (default true, as git
 *                     2.55; git 2.39.5 has no such check)
 *   git_version       where Git 2.39.5 and Git 2.55.0 differ, the one whose lines the check gives:
 *                     SKG_GIT_2_55 (the default) or SKG_GIT_2_39 (see enum skg_git_version)
 *   threads           threads reading loose objects and resolving deltas; 0: one per online CPU;
 *                     more than SKG_CHECK_MAX_THREADS (1024, sha1kit fsck's limit) are that many
 *   progress          git's progress meters ("Checking object directories", "Checking objects"):
 *                     fn NULL for none (see skg_check_repo)
 *   cancel            when not NULL and *cancel becomes nonzero, the check stops between objects
 *                     (read from every thread of the check with a relaxed atomic load: set it
 *                     from another thread with an atomic store, e.g. __atomic_store_n(&flag, 1,
 *                     __ATOMIC_RELAXED) or C11 atomic_store on an atomic_int, else the store is
 *                     a data race in C11's terms; a plain store from a signal handler works too)
 */
#define SKG_CHECK_MAX_THREADS 1024

struct skg_check_options {
	bool show_dangling;
	bool show_unreachable;
	bool show_root;
	bool show_tags;
	bool name_objects;
	bool connectivity_only;
	bool strict;
	bool include_reflogs;
	bool keep_cache;
	bool lost_found;
	bool check_refs;
	unsigned git_version;
	unsigned threads;
	struct skg_progress progress;
	const volatile int *cancel;
	/*
	 * Optional: told of each file the check maps into memory (a pack, an idx), with mapped true
	 * after mapping and before any byte of [addr, addr + len) is read, and with mapped false just
	 * before it is unmapped; path as given to open(2). A file that another process truncates
	 * while it is mapped raises SIGBUS on the next access of a page past its end: the library
	 * installs no signal handler (a handler belongs to the process), so a program that wants a
	 * message instead of the default death guards these ranges itself (sha1kit fsck does).
	 * Called from the thread that maps, one call at a time.
	 */
	void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped);
	void *map_ctx;
};

/* git fsck's defaults: dangling, reflogs, cache and the ref check on, everything else off,
 * git_version SKG_GIT_2_55, threads 0, no progress, no cancel flag. */
void skg_check_options_default(struct skg_check_options *opt);

/* git fsck's exit status bits (builtin/fsck.c), ORed into struct skg_check_result.exit_status and
 * given per line in struct skg_report.exit_bits. */
enum skg_check_exit {
	SKG_CHECK_ERROR_OBJECT = 01,            /* an object is corrupt */
	SKG_CHECK_ERROR_REACHABLE = 02,         /* missing objects, broken links */
	SKG_CHECK_ERROR_PACK = 04,              /* a pack or idx is corrupt */
	SKG_CHECK_ERROR_REFS = 010,             /* a ref, HEAD, reflog or the index names bad objects */
	SKG_CHECK_ERROR_COMMIT_GRAPH = 020,     /* the commit-graph fails its verify */
	SKG_CHECK_ERROR_MULTI_PACK_INDEX = 040, /* the multi-pack-index fails its verify */
	SKG_CHECK_ERROR_PACK_REV_INDEX = 0100,  /* a .rev file fails (git 2.41+; SKG_GIT_2_55 only) */
	SKG_CHECK_ERROR_COLLISION = 0200,       /* beyond git: SHA-1DC detected a collision attack */
	/* a .bitmap file whose trailing checksum is wrong (git 2.41+'s verify_bitmap_files, its
	 * ERROR_BITMAP; SKG_GIT_2_55 only): the same bit as SKG_CHECK_ERROR_COLLISION, as git's
	 * status is 128 for it (the records tell the two apart: SKG_R_FSCK lines "bitmap file 'P'
	 * has invalid checksum") */
	SKG_CHECK_ERROR_BITMAP = 0200,
};

/* What a finished check found. exit_status: git fsck's exit status (enum skg_check_exit ORed; 0
 * when the repository is sound). */
struct skg_check_result {
	int exit_status;
};

/*
 * Check the repository `git_dir` (as `git --git-dir=GIT_DIR fsck --full`), or, when NULL, the one
 * git finds ($GIT_DIR, else discovery upwards from the current directory: skg_repo_open).
 *
 * Inputs: opt (NULL: skg_check_options_default's), sink (NULL or a NULL report function: records
 * are dropped). Records come from one thread at a time, in git's order, not necessarily on the
 * caller's thread; each one's `exit_bits` is what that line adds to the exit status where it adds
 * something (0 elsewhere), `msg_id` git's fsck message ID ("badTimezone") on the lines of the
 * object checks, `type`/`oid` the object the line is about where there is one, `id` SKG_R_FSCK or
 * the SKG_R_* of the repository readers.
 *
 * Progress: opt->progress.fn(ctx, title, done, total) is called (from one thread at a time) where
 * git redraws its meter (a new percentage, or a second since the last call), from the start of a
 * phase (done 0); the end of a phase, git's ", done." line, goes to opt->progress.stop when set
 * (done may then differ from total, as in git), else to fn with done == total.
 *
 * Working directory: as git after its setup, the check runs in the top of the work tree (the paths
 * in the records are relative to it, as git prints them). Only when the current directory is below
 * that top (in a subdirectory of the work tree) is the process's working directory changed, to
 * the top, for the duration of the call, and changed back before it returns: do not make such a
 * call while another thread of the process depends on the working directory. Called from the top
 * of the work tree, from outside it, or on a bare repository, the check leaves the working
 * directory alone.
 *
 * Returns 0 and res->exit_status when the check ran to its end (whatever it found). Returns -1 and
 * err when it did not:
 *   SKG_E_GIT        git dies at this point of the check (exit 128): its "fatal: MSG" line was the
 *                    last record (fatal set), and err->msg holds MSG
 *   SKG_E_NOMEM      memory ran out (git: "fatal: Out of memory, malloc failed")
 *   SKG_E_THREAD     a thread could not be started (err->sys_errno: pthread_create's error)
 *   SKG_E_IO         a file or directory the check needs could not be read (err->sys_errno)
 *   SKG_E_CANCELLED  *opt->cancel was set
 * After an SKG_E_NOMEM, SKG_E_THREAD, SKG_E_IO or SKG_E_CANCELLED no record is a finding about the
 * repository any more (the check stopped part way): the records already sent stand, nothing else
 * follows. res may be NULL. Thread-safe for distinct repositories, except for the working
 * directory (above).
 */
int skg_check_repo(const char *git_dir, const struct skg_check_options *opt, const struct skg_sink *sink,
                   struct skg_check_result *res, struct skg_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SHA1KIT_GIT_FSCK_H */
