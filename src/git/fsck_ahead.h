/*
 * fsck_ahead.h - the read ahead of fsck's object-by-object pass over a damaged pack (fsck_pack.c
 * check_rest, git's verify_packfile): while that pass runs in pack order on the calling thread,
 * the other threads read the objects ahead of it, each whole through the pack engine
 * (skg_pk_read_object_cached), hash them and compare the CRC-32 the idx gives. An object read
 * whole that hashes to its idx ID is one git's unpack_entry reads the same, with no line, so the
 * pass checks it without reading it again; any other is left to the pass, which reads it as git
 * does, with git's lines.
 *
 * Part of the Git layer (src/git/, library sha1kit_git).
 */
#ifndef SHA1KIT_GIT_FSCK_AHEAD_H
#define SHA1KIT_GIT_FSCK_AHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsck_file.h"
#include "pack.h"

/* An idx entry: its pack offset and ID (in the idx). */
struct skg_fsck_ent {
	uint64_t off;
	const uint8_t *id;
	uint64_t k; /* its place in the idx */
};

/* What the read ahead found of one entry. */
struct skg_fsck_ahead_obj {
	bool whole;    /* read whole and hashed to its ID: type, data (malloc'd, the taker's), len */
	unsigned type; /* 1..4 */
	uint8_t *data;
	uint64_t len;
	int crc; /* the CRC-32 of its bytes up to the next entry: 0 as the idx gives, 1 other, -1 not
	          * computed (they lie past the pack's end) */
};

struct skg_fsck_ahead;

/*
 * Starts the read ahead of the entries e[0..n) (sorted by offset) of `file` (the pack; its
 * trailer at sig_at) with its idx, in a repository of object format `format` (SKG_FORMAT_SHA1 or
 * SKG_FORMAT_SHA256) and IDs of rawsz bytes, on threads - 1 threads. A blob at or over big_file
 * bytes (which git streams) is not read ahead. NULL where there is nothing to run it on (threads
 * under 2, a thread that does not start, no memory): the pass reads every object itself.
 */
struct skg_fsck_ahead *skg_fsck_ahead_start(const struct skg_file *file, const struct skg_file *idx,
                                            const struct skg_fsck_ent *e, size_t n, uint64_t sig_at,
                                            unsigned format, size_t rawsz, uint64_t big_file,
                                            unsigned threads);

/*
 * The read ahead of entry k, taken in order (k = 0, 1, ...; each once, k < n): true with *out
 * filled (out->data the caller's to free). Where no thread has claimed entry k yet, or one is
 * still reading it, the caller reads the next entries itself, through its base cache `cache`
 * (NULL: none), rather than wait. False for a NULL a (nothing read ahead).
 */
bool skg_fsck_ahead_take(struct skg_fsck_ahead *a, size_t k, const struct skg_pk_base_cache *cache,
                         struct skg_fsck_ahead_obj *out);

/* Stops the threads, frees what was read and not taken, and a (NULL: nothing). */
void skg_fsck_ahead_stop(struct skg_fsck_ahead *a);

#endif /* SHA1KIT_GIT_FSCK_AHEAD_H */
