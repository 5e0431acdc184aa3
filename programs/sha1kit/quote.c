/*
 * quote.c - file names in diagnostics and in checksum lines.
 *
 * sk_quote() reproduces the quoting that GNU coreutils applies to file names in its messages
 * ("shell-escape" style with ':' quoted too), so that `sha1kit sum` prints the same diagnostics as
 * sha1sum. The rules were worked out by running sha1sum on many names; summary:
 *  - a name made only of printable characters that are harmless to a shell is printed as it is;
 *  - otherwise it is put in single quotes; a single quote becomes '\'' and a non-printable byte
 *    becomes a $'...' segment (\a \b \f \n \r \t \v, else three octal digits per byte);
 *  - a name with a single quote but nothing else that needs care goes in double quotes instead.
 * "Printable" follows the current locale (LC_CTYPE): in a UTF-8 locale a valid printable
 * multibyte character is kept, in the C locale every byte >= 0x80 is escaped.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "cli.h"

/* Characters that make a name need quotes (besides non-printable ones, '#' or '~' first, and a
 * name that is a lone '{' or '}'). */
static const char shell_special[] = " !\"$&()*;<=>?[\\^`|':";
/* Characters that rule out the double-quote form. */
static const char not_dq_safe[] = "!\"$&()*;<=>?[\\^`{|}";

struct unit {
	size_t len;     /* bytes in this character */
	bool printable; /* printable in the current locale */
};

/* The character at s[i] (n = strlen(s)). */
static struct unit unit_at(const char *s, size_t i, size_t n)
{
	struct unit u = {1, false};
	unsigned char c = (unsigned char)s[i];

	if (c < 0x80 || MB_CUR_MAX == 1) {
		u.printable = isprint(c) != 0;
		return u;
	}
	mbstate_t st;
	wchar_t wc;
	memset(&st, 0, sizeof(st));
	size_t r = mbrtowc(&wc, s + i, n - i, &st);
	if (r == (size_t)-1 || r == 0) {
		return u; /* invalid sequence: this byte alone, escaped */
	}
	if (r == (size_t)-2) {
		u.len = n - i; /* truncated sequence at the end: every remaining byte escaped */
		return u;
	}
	u.len = r;
	u.printable = iswprint((wint_t)wc) != 0;
	return u;
}

static bool is_ascii(const struct unit *u, char c)
{
	return u->len == 1 && (unsigned char)c < 0x80;
}

static bool forces_quotes(const struct unit *u, char c, size_t i, size_t n)
{
	if (!u->printable) {
		return true;
	}
	if (!is_ascii(u, c)) {
		return false;
	}
	if (strchr(shell_special, c) != NULL) {
		return true;
	}
	if ((c == '{' || c == '}') && n == 1) {
		return true; /* a lone brace */
	}
	return (c == '#' || c == '~') && i == 0;
}

static bool double_quote_safe(const struct unit *u, char c, size_t i)
{
	if (!u->printable) {
		return false;
	}
	if (!is_ascii(u, c)) {
		return true;
	}
	if ((c == '#' || c == '~') && i != 0) {
		return false;
	}
	return strchr(not_dq_safe, c) == NULL;
}

static char *buf;
static size_t buf_cap;

static char escape_letter(unsigned char c)
{
	switch (c) {
	case '\a':
		return 'a';
	case '\b':
		return 'b';
	case '\f':
		return 'f';
	case '\n':
		return 'n';
	case '\r':
		return 'r';
	case '\t':
		return 't';
	case '\v':
		return 'v';
	default:
		return 0;
	}
}

/* Output cursor that only counts when `p` is NULL (a dry run that just follows the states). */
struct out {
	char *p;
};

static void put(struct out *o, const char *s, size_t len)
{
	if (o->p != NULL) {
		memcpy(o->p, s, len);
		o->p += len;
	}
}

/*
 * Write `name` in single quotes; `dollar` says whether to start as if a $'...' segment were open.
 * Returns whether a $'...' segment is open at the end.
 */
static bool put_single_quoted(struct out *o, const char *name, size_t n, bool dollar)
{
	put(o, "'", 1);
	for (size_t i = 0; i < n;) {
		struct unit u = unit_at(name, i, n);
		if (u.printable && is_ascii(&u, name[i]) && name[i] == '\'') {
			put(o, "'\\''", 4);
			dollar = false;
		} else if (u.printable) {
			if (dollar) {
				put(o, "''", 2);
				dollar = false;
			}
			put(o, name + i, u.len);
		} else {
			if (!dollar) {
				put(o, "'$'", 3);
				dollar = true;
			}
			for (size_t k = 0; k < u.len; k++) {
				unsigned char c = (unsigned char)name[i + k];
				char esc[4] = {'\\', escape_letter(c), 0, 0};
				if (esc[1] != 0) {
					put(o, esc, 2);
				} else {
					esc[1] = (char)('0' + (c >> 6));
					esc[2] = (char)('0' + ((c >> 3) & 7));
					esc[3] = (char)('0' + (c & 7));
					put(o, esc, 4);
				}
			}
		}
		i += u.len;
	}
	put(o, "'", 1);
	return dollar;
}

const char *sk_quote(const char *name)
{
	size_t n = strlen(name);
	bool need = n == 0, has_squote = false, dq_ok = true;

	for (size_t i = 0; i < n;) {
		struct unit u = unit_at(name, i, n);
		need = need || forces_quotes(&u, name[i], i, n);
		has_squote = has_squote || (is_ascii(&u, name[i]) && name[i] == '\'');
		dq_ok = dq_ok && double_quote_safe(&u, name[i], i);
		i += u.len;
	}
	if (!need) {
		return name;
	}

	/* Worst case: every byte an octal escape that opens and closes a $'...' segment. */
	size_t cap = 8 * n + 8;
	if (cap > buf_cap) {
		char *p = realloc(buf, cap);
		if (p == NULL) {
			return name;
		}
		buf = p;
		buf_cap = cap;
	}
	struct out o = {buf};

	if (has_squote && dq_ok) {
		put(&o, "\"", 1);
		put(&o, name, n);
		put(&o, "\"", 1);
	} else {
		/*
		 * A name with a single quote is written by a second pass that starts in the state the
		 * first pass ended in (GNU tools do so): when the name ends inside a $'...' segment the
		 * output starts with an extra '' ("a'<TAB>" gives '''a'\'''$'\t').
		 */
		struct out dry = {NULL};
		bool dollar = has_squote && put_single_quoted(&dry, name, n, false);
		put_single_quoted(&o, name, n, dollar);
	}
	*o.p = '\0';
	return buf;
}

bool sk_name_needs_escape(const char *name)
{
	return strpbrk(name, "\\\n\r") != NULL;
}

void sk_put_name(FILE *out, const char *name, bool escape)
{
	if (!escape) {
		fputs(name, out);
		return;
	}
	for (const char *p = name; *p != '\0'; p++) {
		switch (*p) {
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			putc(*p, out);
			break;
		}
	}
}
