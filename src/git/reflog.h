/*
 * reflog.h - reflogs: the logs of a worktree's ref store, and the entries of one.
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Sources: Git's Documentation/git-reflog.txt
 * and Documentation/gitrepository-layout.txt ("logs/refs/heads/<name>", line format
 * "<old> SP <new> SP <ident> SP <timestamp> SP <tz> TAB <message> LF"). Order of use by fsck: refs.h.
 */
#ifndef SHA1KIT_GIT_REFLOG_H
#define SHA1KIT_GIT_REFLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"
#include "refs.h"
#include "worktree.h"

/* ---- Reflogs -------------------------------------------------------------------------------- */

/*
 * Call fn(ctx, refname, path) for every reflog of worktree wt as git fsck walks them
 * (refs_for_each_reflog on the worktree's ref store). In a reftable repository (repo->reftable)
 * path is NULL and the names are those of the log records, once each, in name order, bad names left
 * out (git 2.55.0's reftable backend; a table that cannot be read: -1 with reftable.h's error);
 * read the entries with skg_reflog_entries. Files: the regular files under its logs/ directory
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
	uint8_t old_id[SKG_MAX_RAWSZ], new_id[SKG_MAX_RAWSZ]; /* rawsz bytes each */
	const char *ident;                                    /* "Name <email>" (NUL-terminated) */
	uint64_t timestamp;
	int tz;              /* e.g. -130 for "-0130" */
	const char *message; /* after the TAB, without the final LF (NUL-terminated) */
	size_t line;         /* 1-based line number */
};

typedef int (*skg_reflog_entry_fn)(void *ctx, const struct skg_reflog_entry *e);

/*
 * Call fn for each line of the reflog file at path that git accepts (refs/files-backend.c
 * show_one_reflog_ent): IDs of rawsz bytes (20 or 32) as 2 * rawsz hex digits, "<40 hex> SP <40 hex> SP
 * <ident ending with '>'> SP <timestamp != 0> SP <+|-><4 digits> [TAB <message>] LF". Other lines (and a last
 * line without LF) are skipped as git skips them, reported as SKG_LEVEL_SILENT. A missing file is no error
 * (returns 0).
 */
int skg_for_each_reflog_entry(const char *path, size_t rawsz, skg_reflog_entry_fn fn, void *ctx,
                              const struct skg_sink *rep, struct skg_error *err);

/*
 * The entries of a reflog skg_for_each_reflog named (refname, path), whichever the backend: the
 * file at path as skg_for_each_reflog_entry reads it, or for path NULL the log records of refname
 * (as skg_for_each_reflog qualified it, read from db's current worktree) in the reftable stack,
 * oldest first, as lines would give them (line: 1 for the oldest). Returns 0, fn's non-zero
 * value, or -1 with err.
 */
int skg_reflog_entries(struct skg_refdb *db, const char *refname, const char *path, skg_reflog_entry_fn fn,
                       void *ctx, const struct skg_sink *rep, struct skg_error *err);

/* The same on reflog text in memory (no I/O). */
int skg_reflog_parse(const char *buf, size_t len, size_t rawsz, skg_reflog_entry_fn fn, void *ctx,
                     const struct skg_sink *rep, struct skg_error *err);

#endif /* SHA1KIT_GIT_REFLOG_H */
