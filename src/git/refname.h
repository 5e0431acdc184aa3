/*
 * refname.h - ref names: git's check-ref-format rules and the worktree prefixes of ref names.
 *
 * Part of the Git layer (src/git/, library sha1kit_git). Sources: Git's
 * Documentation/git-check-ref-format.txt (valid ref names), Documentation/git-worktree.txt
 * ("REFS": per-worktree refs HEAD, refs/bisect/, refs/worktree/, refs/rewritten/, pseudo refs, and
 * the main-worktree/ and worktrees/<id>/ prefixes). No I/O.
 */
#ifndef SHA1KIT_GIT_REFNAME_H
#define SHA1KIT_GIT_REFNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* ---- Worktree ref names (git's parse_worktree_ref) ------------------------------------------- */

/* Whose ref store a ref name is in: the current worktree's, the shared one (common dir), the main
 * worktree's ("main-worktree/..."), another worktree's ("worktrees/<id>/..."). */
enum skg_wt_type { SKG_WT_CURRENT, SKG_WT_SHARED, SKG_WT_MAIN, SKG_WT_OTHER };

/* The store of ref: *wt, *wt_len name the worktree of SKG_WT_OTHER (else NULL, 0), *bare is ref
 * without its prefix. */
enum skg_wt_type skg_parse_worktree_ref(const char *ref, const char **wt, size_t *wt_len, const char **bare);

#endif /* SHA1KIT_GIT_REFNAME_H */
