/*
 * quote.c - Git's C-style quoting of paths, read back (Git's quote.c, unquote_c_style): a path in
 * double quotes with backslash escapes, as git writes names that hold control characters, quotes
 * or bytes above 0x7f, and as it reads them from `info/alternates` and `hash-object --stdin-paths`.
 */
#include "sha1kit/git.h"

int skg_unquote_c(const char *s, size_t len, char *out, size_t *out_len, size_t *used)
{
	const char *p = s, *end = s + len;
	size_t n = 0;
	if (p >= end || *p != '"') {
		return -1;
	}
	p++;
	while (p < end) {
		char c = *p++;
		if (c == '"') {
			*out_len = n;
			if (used != NULL) {
				*used = (size_t)(p - s);
			}
			return 0;
		}
		if (c == '\0') {
			return -1; /* git reads a C string: its strcspn stops here, not at a quote */
		}
		if (c == '\\') {
			if (p >= end) {
				return -1;
			}
			c = *p++;
			switch (c) {
			case 'a':
				c = '\a';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'n':
				c = '\n';
				break;
			case 'r':
				c = '\r';
				break;
			case 't':
				c = '\t';
				break;
			case 'v':
				c = '\v';
				break;
			case '\\':
			case '"':
				break;
			case '0':
			case '1':
			case '2':
			case '3':
				/* three octal digits, the first at most 3: one byte */
				if (end - p < 2 || p[0] < '0' || p[0] > '7' || p[1] < '0' || p[1] > '7') {
					return -1;
				}
				c = (char)(((c - '0') << 6) | ((p[0] - '0') << 3) | (p[1] - '0'));
				p += 2;
				break;
			default:
				return -1;
			}
		}
		out[n++] = c;
	}
	return -1; /* no closing quote */
}
