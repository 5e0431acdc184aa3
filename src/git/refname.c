/*
 * refname.c - ref names: git's check-ref-format rules and the worktree prefixes (refname.h).
 *
 * The rules follow git 2.39.5 (refs.c check_refname_format, refname_is_safe, parse_worktree_ref),
 * checked by running git; the code is this project's own.
 */
#include "refname.h"

#include <limits.h>
#include <string.h>

#include "util.h"

/* ---- Ref names ------------------------------------------------------------------------------ */

enum name_class { NC_OK, NC_END, NC_DOT, NC_BRACE, NC_STAR, NC_BAD };

static enum name_class name_class(unsigned char c)
{
	if (c == '\0' || c == '/') {
		return NC_END;
	}
	if (c == '.') {
		return NC_DOT;
	}
	if (c == '{') {
		return NC_BRACE;
	}
	if (c == '*') {
		return NC_STAR;
	}
	if (c < 0x20 || c == 0x7f || strchr(" ~^:?[\\", c) != NULL) {
		return NC_BAD;
	}
	return NC_OK;
}

/* Length of the component at name, 0 if empty, -1 if not allowed. */
static int check_component(const char *name, unsigned *flags)
{
	const char *p = name;
	unsigned char last = 0;
	for (;; p++) {
		unsigned char c = (unsigned char)*p;
		enum name_class k = name_class(c);
		if (k == NC_END) {
			break;
		}
		if ((k == NC_DOT && last == '.') || (k == NC_BRACE && last == '@') || k == NC_BAD) {
			return -1;
		}
		if (k == NC_STAR) {
			if (!(*flags & SKG_REFNAME_REFSPEC_PATTERN)) {
				return -1;
			}
			*flags &= ~SKG_REFNAME_REFSPEC_PATTERN; /* one '*' only */
		}
		last = c;
	}
	size_t n = (size_t)(p - name);
	if (n == 0) {
		return 0;
	}
	if (name[0] == '.' || (n >= 5 && memcmp(p - 5, ".lock", 5) == 0) || n > INT_MAX) {
		return -1;
	}
	return (int)n;
}

bool skg_refname_ok(const char *name, unsigned flags)
{
	if (strcmp(name, "@") == 0) {
		return false;
	}
	int count = 0, n;
	for (;;) {
		n = check_component(name, &flags);
		if (n <= 0) {
			return false;
		}
		count++;
		if (name[n] == '\0') {
			break;
		}
		name += n + 1;
	}
	if (name[n - 1] == '.') {
		return false;
	}
	return (flags & SKG_REFNAME_ALLOW_ONELEVEL) || count >= 2;
}

bool skg_refname_is_safe(const char *name)
{
	if (skg_starts_with(name, "refs/")) {
		/* a path under refs/ that normalising would not change: no empty, "." or ".." part */
		const char *p = name + 5;
		if (*p == '\0') {
			return false;
		}
		for (;;) {
			const char *slash = strchr(p, '/');
			size_t n = slash ? (size_t)(slash - p) : strlen(p);
			if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
				return false;
			}
			if (slash == NULL) {
				return true;
			}
			p = slash + 1;
		}
	}
	if (*name == '\0') {
		return false;
	}
	for (; *name; name++) {
		if (!skg_isupper((unsigned char)*name) && *name != '_') {
			return false;
		}
	}
	return true;
}

/* ---- Worktree ref names (refs.c parse_worktree_ref) ----------------------------------------- */

static bool is_pseudoref_syntax(const char *s)
{
	for (; *s; s++) {
		if (!skg_isupper((unsigned char)*s) && *s != '-' && *s != '_') {
			return false;
		}
	}
	return true;
}

static bool is_per_worktree_ref(const char *s)
{
	return skg_starts_with(s, "refs/worktree/") || skg_starts_with(s, "refs/bisect/") ||
	       skg_starts_with(s, "refs/rewritten/");
}

static bool is_current_worktree_ref(const char *s)
{
	return is_pseudoref_syntax(s) || is_per_worktree_ref(s);
}

enum skg_wt_type skg_parse_worktree_ref(const char *ref, const char **wt, size_t *wt_len, const char **bare)
{
	*wt = NULL;
	*wt_len = 0;
	if (skg_starts_with(ref, "worktrees/")) {
		const char *b = ref + 10;
		const char *slash = strchr(b, '/');
		if (slash == NULL) {
			*wt = b;
			*wt_len = strlen(b);
			*bare = b + *wt_len;
			return SKG_WT_OTHER;
		}
		if (is_current_worktree_ref(slash + 1)) {
			*wt = b;
			*wt_len = (size_t)(slash - b);
			*bare = slash + 1;
			return SKG_WT_OTHER;
		}
	}
	if (skg_starts_with(ref, "main-worktree/") && is_current_worktree_ref(ref + 14)) {
		*bare = ref + 14;
		return SKG_WT_MAIN;
	}
	*bare = ref;
	return is_current_worktree_ref(ref) ? SKG_WT_CURRENT : SKG_WT_SHARED;
}
