/*
 * wildmatch.h - git's glob matching (wildmatch.c in git, after rsync's), as git uses it for the
 * conditions of `includeIf.<condition>.path` in the config (gitdir:, gitdir/i:, onbranch:).
 *
 * The rules (gitignore(5) "PATTERN FORMAT" and git's wildmatch.c, Git 2.39.5 and 2.55.0 alike):
 *  - `?` matches one character, `*` any run of characters, `[...]` one character of a class:
 *    ranges `a-z`, a leading `!` or `^` negates, `[:alpha:]` and the other POSIX classes (alnum,
 *    alpha, blank, cntrl, digit, graph, lower, print, punct, space, upper, xdigit), `\` quotes the
 *    next character; the first character after `[` (or after `[!`) is a member even if it is `]`;
 *  - with SKG_WM_PATHNAME, `?`, `*` and classes never match `/`; `**` matches across `/` only
 *    as a whole component: `**` + `/` at the start or after a `/` matches zero or more
 *    directories, a trailing `/` + `**` matches everything below; elsewhere `**` is `*`;
 *  - with SKG_WM_CASEFOLD, letters match regardless of case (ASCII).
 * A malformed pattern (an unterminated class, an unknown `[:class:]`, a trailing `\`) matches
 * nothing from where it goes wrong.
 */
#ifndef SHA1KIT_GIT_WILDMATCH_H
#define SHA1KIT_GIT_WILDMATCH_H

#include <stdbool.h>

#define SKG_WM_CASEFOLD 1u
#define SKG_WM_PATHNAME 2u

/* Whether `text` (NUL-terminated) matches `pattern` (NUL-terminated) under `flags`. */
bool skg_wildmatch(const char *pattern, const char *text, unsigned flags);

#endif /* SHA1KIT_GIT_WILDMATCH_H */
