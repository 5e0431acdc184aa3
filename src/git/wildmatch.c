/*
 * wildmatch.c - git's glob matching (wildmatch.h has the rules). Written from gitignore(5) and the
 * behaviour of git's wildmatch.c (git 2.39.5): the same three outcomes inside (a match, no match
 * here, no match anywhere further on), so that a `*` stops trying once the rest cannot match.
 */
#include "wildmatch.h"

#include <string.h>

enum wm_result {
	WM_MATCH,
	WM_NOMATCH,
	WM_ABORT_ALL,        /* the text ran out: no later start can match either */
	WM_ABORT_TO_STARSTAR /* a single `*` met a `/`: only an enclosing `**` may go on */
};

static unsigned char fold(unsigned char c, unsigned flags)
{
	return (flags & SKG_WM_CASEFOLD) && c >= 'A' && c <= 'Z' ? (unsigned char)(c + ('a' - 'A')) : c;
}

/* `[:name:]` with name of `len` bytes at s: 1 member, 0 not, -1 an unknown class. */
static int in_posix_class(const char *s, size_t len, unsigned char c, unsigned flags)
{
	static const char *const names[] = {"alnum", "alpha", "blank", "cntrl", "digit", "graph",
	                                    "lower", "print", "punct", "space", "upper", "xdigit"};
	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++) {
		if (strlen(names[i]) != len || memcmp(s, names[i], len) != 0) {
			continue;
		}
		/* ASCII classes, whatever the locale, as git's ctype.c has them (its space: no \v, \f) */
		bool lower = c >= 'a' && c <= 'z', upper = c >= 'A' && c <= 'Z', digit = c >= '0' && c <= '9';
		bool alpha = lower || upper, space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
		bool print = c >= 0x20 && c < 0x7f;
		switch (i) {
		case 0:
			return alpha || digit;
		case 1:
			return alpha;
		case 2:
			return c == ' ' || c == '\t';
		case 3:
			return c < 0x20 || c == 0x7f;
		case 4:
			return digit;
		case 5:
			return print && c != ' ';
		case 6:
			return lower;
		case 7:
			return print;
		case 8:
			return print && c != ' ' && !alpha && !digit;
		case 9:
			return space;
		case 10:
			/* the text is folded to lower case: [:upper:] then takes lower-case letters too */
			return upper || ((flags & SKG_WM_CASEFOLD) && lower);
		default:
			return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
		}
	}
	return -1;
}

/* The class starting after `[` at *pp, against t; *pp ends on its closing `]`. */
static enum wm_result match_class(const char **pp, unsigned char t, unsigned flags)
{
	const char *p = *pp;
	unsigned char pc = (unsigned char)*p, prev = 0;
	bool negated = false, matched = false;
	if (pc == '^') {
		pc = '!';
	}
	if (pc == '!') {
		negated = true;
		pc = (unsigned char)*++p;
	}
	do {
		if (pc == '\0') {
			return WM_ABORT_ALL;
		}
		if (pc == '\\') {
			pc = (unsigned char)*++p;
			if (pc == '\0') {
				return WM_ABORT_ALL;
			}
			matched |= t == pc;
		} else if (pc == '-' && prev != 0 && p[1] != '\0' && p[1] != ']') {
			pc = (unsigned char)*++p;
			if (pc == '\\') {
				pc = (unsigned char)*++p;
				if (pc == '\0') {
					return WM_ABORT_ALL;
				}
			}
			if (t >= prev && t <= pc) {
				matched = true;
			} else if ((flags & SKG_WM_CASEFOLD) && t >= 'a' && t <= 'z') {
				unsigned char up = (unsigned char)(t - ('a' - 'A'));
				matched |= up >= prev && up <= pc;
			}
			pc = 0; /* a range does not start another one */
		} else if (pc == '[' && p[1] == ':') {
			const char *s = p + 2, *e = s;
			while (*e != '\0' && *e != ']') {
				e++;
			}
			if (*e == '\0') {
				return WM_ABORT_ALL;
			}
			if (e - s < 1 || e[-1] != ':') {
				/* no ":]": the `[` is an ordinary member */
				matched |= t == '[';
			} else {
				int in = in_posix_class(s, (size_t)(e - s - 1), t, flags);
				if (in < 0) {
					return WM_ABORT_ALL;
				}
				matched |= in == 1;
				p = e;
				pc = 0;
			}
		} else {
			matched |= t == pc;
		}
		prev = pc;
		pc = (unsigned char)*++p;
	} while (pc != ']');
	*pp = p;
	if (matched == negated || ((flags & SKG_WM_PATHNAME) && t == '/')) {
		return WM_NOMATCH;
	}
	return WM_MATCH;
}

static enum wm_result wild(const char *pattern, const char *text, unsigned flags);

/* A run of `*` starting at p (within the pattern that starts at `pattern`) against text. */
static enum wm_result star(const char *pattern, const char *p, const char *text, unsigned flags)
{
	bool match_slash, run = p[1] == '*';
	const char *before = p - 1; /* the character before the run, if any */
	while (*p == '*') {
		p++;
	}
	if (!(flags & SKG_WM_PATHNAME)) {
		match_slash = true; /* every `*` crosses `/` */
	} else if (run && (before < pattern || *before == '/') &&
	           (*p == '\0' || *p == '/' || (p[0] == '\\' && p[1] == '/'))) {
		/* `**` as a whole component: at the start or after `/`, at the end or before `/` */
		if (*p == '/' && wild(p + 1, text, flags) == WM_MATCH) {
			return WM_MATCH; /* "**" + "/" matching no directory at all */
		}
		match_slash = true;
	} else {
		match_slash = false;
	}
	if (*p == '\0') {
		/* a trailing `**` matches everything, a trailing `*` what has no more `/` */
		return match_slash || strchr(text, '/') == NULL ? WM_MATCH : WM_NOMATCH;
	}
	if (!match_slash && *p == '/') {
		/* `*` then `/`: the rest of this directory name, then the `/` */
		const char *slash = strchr(text, '/');
		if (slash == NULL) {
			return WM_NOMATCH;
		}
		return wild(p + 1, slash + 1, flags);
	}
	for (; *text != '\0'; text++) {
		enum wm_result r = wild(p, text, flags);
		if (r != WM_NOMATCH) {
			if (!match_slash || r != WM_ABORT_TO_STARSTAR) {
				return r;
			}
		} else if (!match_slash && *text == '/') {
			return WM_ABORT_TO_STARSTAR;
		}
	}
	return WM_ABORT_ALL;
}

static enum wm_result wild(const char *pattern, const char *text, unsigned flags)
{
	for (const char *p = pattern; *p != '\0'; p++, text++) {
		unsigned char pc = (unsigned char)*p, t = fold((unsigned char)*text, flags);
		if (t == '\0' && pc != '*') {
			return WM_ABORT_ALL;
		}
		switch (pc) {
		case '\\':
			/* the next character literally, not folded (as git); a trailing `\` matches nothing
			 */
			pc = (unsigned char)*++p;
			if (pc == '\0' || t != pc) {
				return WM_NOMATCH;
			}
			break;
		case '?':
			if ((flags & SKG_WM_PATHNAME) && t == '/') {
				return WM_NOMATCH;
			}
			break;
		case '[': {
			++p;
			enum wm_result r = match_class(&p, t, flags);
			if (r != WM_MATCH) {
				return r;
			}
			break;
		}
		case '*':
			return star(pattern, p, text, flags);
		default:
			if (t != fold(pc, flags)) {
				return WM_NOMATCH;
			}
			break;
		}
	}
	return *text != '\0' ? WM_NOMATCH : WM_MATCH;
}

bool skg_wildmatch(const char *pattern, const char *text, unsigned flags)
{
	return wild(pattern, text, flags) == WM_MATCH;
}
