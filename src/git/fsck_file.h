/*
 * fsck_file.h - the files of the pack check of a repository check (fsck_run.h): a pack or idx
 * mapped read-only, the reads and page drops the pack engine asks for (pack.h: pk_options.read and
 * .release), and an idx compared with the one the pack engine writes, piece by piece.
 * Internal to the Git layer.
 */
#ifndef SHA1KIT_GIT_FSCK_FILE_H
#define SHA1KIT_GIT_FSCK_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pack.h"

/* A read-only file in memory (mapped; an empty file has data pointing at a static empty byte). */
struct skg_fsck_file {
	const uint8_t *data;
	uint64_t len;
	void *map; /* NULL when nothing is mapped */
	size_t map_len;
	int fd;             /* the file, open while mapped (skg_fsck_file_read) */
	uint64_t released;  /* pages before this offset were dropped (skg_fsck_file_release) */
	const char *failed; /* after a failure of skg_fsck_file_map: "open" or "map" */
	/* the caller's mapping hook (struct skg_check_options.on_map), told again at the unmap */
	void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped);
	void *map_ctx;
	const char *path;
};

/* skg_fsck_file_map's errors for a file that is not a regular one, and one whose size is unknown
 * (a /proc file). */
#define SKG_FSCK_ENOTREG (-1)
#define SKG_FSCK_ENOSIZE (-2)

/* Map the regular file at path (a FIFO or device is refused without being opened): 0, an errno
 * value (ENOMEM when the mapping does not fit: a failure of the machine), SKG_FSCK_ENOTREG or
 * SKG_FSCK_ENOSIZE. A file that shrinks while mapped raises SIGBUS on a read past its new end. */
int skg_fsck_file_map(struct skg_fsck_file *f, const char *path,
                      void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path,
                                     bool mapped),
                      void *map_ctx);
void skg_fsck_file_unmap(struct skg_fsck_file *f);
/* "fsck: cannot open NAME: REASON" (or "cannot map", "not a regular file") into buf[0..n), for
 * the failure e of skg_fsck_file_map(f, path). */
void skg_fsck_file_error(char *buf, size_t n, const struct skg_fsck_file *f, const char *path, int e);
/* name as the CLI's messages quote a file name (its sk_quote, for the common cases): as it is when
 * made of characters harmless to a shell, else in single quotes; into out[0..n), cut to fit. */
void skg_fsck_quote(char *out, size_t n, const char *name);
/* pk_options.release: drop the pages before upto (a hint). */
void skg_fsck_file_release(void *file, uint64_t upto);
/* pk_options.read: bytes [offset, offset + n) with pread; 0 or -1. */
int skg_fsck_file_read(void *file, uint64_t offset, uint8_t *buf, size_t n);

/* An idx compared with an existing one as pk_idx_write makes it: start with {old}. */
struct skg_fsck_idx_compare {
	struct skg_fsck_file *old;
	uint64_t at;       /* bytes compared so far */
	uint64_t released; /* pages of the old idx dropped up to here */
	bool differs;
	uint64_t first_diff; /* when it differs: the offset of the first difference */
};

/* pk_idx_sink comparing each piece (ctx: struct skg_fsck_idx_compare *); stops at the first
 * difference. */
int skg_fsck_idx_compare_sink(void *ctx, const uint8_t *p, size_t n, struct pk_error *err);
/* After pk_idx_write: whether the idx equals the existing one (else c->first_diff is set). */
bool skg_fsck_idx_compare_end(struct skg_fsck_idx_compare *c);

#endif /* SHA1KIT_GIT_FSCK_FILE_H */
