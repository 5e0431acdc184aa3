/*
 * fsck_file.h - the words of the pack check of a repository check (fsck_run.h) for its files: a
 * pack or idx that cannot be mapped (struct skg_file, pack_file.c), and file names quoted as the
 * CLI quotes them. Internal to the Git layer.
 */
#ifndef SHA1KIT_GIT_FSCK_FILE_H
#define SHA1KIT_GIT_FSCK_FILE_H

#include <stddef.h>

#include <sha1kit/git_pack.h>

/* "fsck: cannot open NAME: REASON" (or "cannot map", "not a regular file") into buf[0..n), for
 * the failure err of skg_file_map(f, path, ...). */
void skg_fsck_file_error(char *buf, size_t n, const struct skg_file *f, const char *path,
                         const struct skg_error *err);
/* name as the CLI's messages quote a file name (its sk_quote, for the common cases): as it is when
 * made of characters harmless to a shell, else in single quotes; into out[0..n), cut to fit. */
void skg_fsck_quote(char *out, size_t n, const char *name);

#endif /* SHA1KIT_GIT_FSCK_FILE_H */
