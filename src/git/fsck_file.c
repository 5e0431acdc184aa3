/*
 * fsck_file.c - the words of the pack check for its files (fsck_file.h); the files themselves are
 * pack_file.c's (struct skg_file of <sha1kit/git_pack.h>).
 */
#include "fsck_file.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void skg_fsck_quote(char *out, size_t n, const char *name)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	                           "_-./+,@%";
	bool plain = name[0] != '\0' && name[strspn(name, safe)] == '\0';
	size_t k = 0;
	if (n == 0) {
		return;
	}
	if (!plain && k + 1 < n) {
		out[k++] = '\'';
	}
	for (const char *p = name; *p != '\0' && k + 1 < n; p++) {
		if (!plain && *p == '\'') {
			for (const char *q = "'\\''"; *q != '\0' && k + 1 < n; q++) {
				out[k++] = *q;
			}
		} else {
			out[k++] = *p;
		}
	}
	if (!plain && k + 1 < n) {
		out[k++] = '\'';
	}
	out[k] = '\0';
}

void skg_fsck_file_error(char *buf, size_t n, const struct skg_file *f, const char *path,
                         const struct skg_error *err)
{
	char q[4096];
	skg_fsck_quote(q, sizeof(q), path);
	if (f->failed == SKG_FILE_NOT_REGULAR) {
		snprintf(buf, n, "fsck: %s: not a regular file", q);
	} else if (f->failed == SKG_FILE_SIZE_UNKNOWN) {
		snprintf(buf, n, "fsck: cannot map %s: not a regular file (its size is unknown)", q);
	} else {
		snprintf(buf, n, "fsck: cannot %s %s: %s", f->failed == SKG_FILE_MAP ? "map" : "open", q,
		         strerror(err->sys_errno));
	}
}
