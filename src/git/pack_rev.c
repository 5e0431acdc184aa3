/*
 * pack_rev.c - the pack reverse index (.rev) of an indexed pack (see pack_rev.h).
 *
 * Facts from git (Documentation/gitformat-pack.txt, "pack-*.rev files have the format"; pack-write.c
 * write_rev_file and write_rev_file_order, git 2.31 to 2.55.0): git sorts the positions 0..N-1 of
 * its idx-ordered object list by pack offset and writes, after the header, each position as a
 * big-endian 32-bit word, then the pack checksum, then the checksum of the file (hashfile, SHA-1).
 * Here the same words come the other way round: objects are already in pack order (by offset), so
 * the word for pack-order object k is its rank in the idx order, the inverse of the permutation
 * that sorts the objects by ID. That order is skg_pk_idx_write's (pack.c): by object ID, an ID
 * found twice kept in pack order, so that the .rev always matches the idx written beside it.
 * No code was taken from Git.
 */
#include "pack_rev.h"

#include <stdlib.h>
#include <string.h>

#include <sha1kit.h>

#include "trailer.h"

/* An object's ID beside its index in pack order (as pack.c's idx sort; no global for qsort). */
struct by_id {
	uint8_t id[SKG_RAWSZ];
	uint32_t i;
};

static int cmp_by_id(const void *a, const void *b)
{
	const struct by_id *x = a, *y = b;
	int c = memcmp(x->id, y->id, SKG_RAWSZ);
	return c != 0 ? c : (x->i > y->i) - (x->i < y->i); /* equal IDs stay in pack order */
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

uint64_t skg_pk_rev_size(uint32_t nr)
{
	return SKG_RIDX_HEADER + 4 * (uint64_t)nr + 2 * SKG_RAWSZ;
}

int skg_pk_rev_build(const struct skg_pk_pack *pack, uint8_t **out, size_t *out_len, struct skg_pk_error *err)
{
	*out = NULL;
	*out_len = 0;
	uint32_t nr = pack->nr;
	uint64_t size = skg_pk_rev_size(nr);
	struct by_id *sorted = malloc((nr ? nr : 1) * sizeof(*sorted));
	uint8_t *buf = size <= SIZE_MAX ? malloc((size_t)size) : NULL;
	if (sorted == NULL || buf == NULL) {
		free(sorted);
		free(buf);
		err->code = SKG_E_NOMEM;
		err->has_offset = false;
		err->offset = 0;
		strcpy(err->msg, "out of memory");
		return -1;
	}
	for (uint32_t k = 0; k < nr; k++) {
		memcpy(sorted[k].id, pack->objs[k].id, SKG_RAWSZ);
		sorted[k].i = k;
	}
	qsort(sorted, nr, sizeof(*sorted), cmp_by_id);
	put_be32(buf, SKG_RIDX_SIGNATURE);
	put_be32(buf + 4, SKG_RIDX_VERSION);
	put_be32(buf + 8, SKG_RIDX_HASH_SHA1); /* sha1kit indexes SHA-1 packs only */
	uint8_t *pos = buf + SKG_RIDX_HEADER;
	for (uint32_t p = 0; p < nr; p++) {
		put_be32(pos + 4 * (size_t)sorted[p].i, p); /* object sorted[p].i is at idx position p */
	}
	free(sorted);
	uint8_t *tail = pos + 4 * (size_t)nr;
	memcpy(tail, pack->checksum, SKG_RAWSZ);
	sha1kit_fast_ctx sha;
	sha1kit_fast_init(&sha);
	sha1kit_fast_update(&sha, buf, (size_t)(tail + SKG_RAWSZ - buf));
	sha1kit_fast_final(&sha, tail + SKG_RAWSZ);
	*out = buf;
	*out_len = (size_t)size;
	return 0;
}
