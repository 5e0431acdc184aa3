/*
 * worktree.h - a repository's worktrees, and git fsck's check of each worktree's HEAD.
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Sources: Git's Documentation/git-worktree.txt
 * and Documentation/gitrepository-layout.txt (worktrees/<id>/). Order of use by fsck: refs.h.
 */
#ifndef SHA1KIT_GIT_WORKTREE_H
#define SHA1KIT_GIT_WORKTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object.h"
#include "refs.h"
#include "util.h"

struct skg_repo;

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
	uint8_t id[SKG_MAX_RAWSZ]; /* what it resolves to (null if nothing; the refdb's rawsz bytes) */
	bool is_root;              /* fsck handles (head_ref, id) as a ref: resolved and not null */
	unsigned flags;            /* SKG_REF_* of the resolution */
	struct skg_buf target;     /* the ref it points at (refname itself when detached) */
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

#endif /* SHA1KIT_GIT_WORKTREE_H */
