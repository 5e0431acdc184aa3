/*
 * pack_rev.c - the pack reverse index (.rev) of an indexed pack (see pack_rev.h).
 *
 * Facts from git (Documentation/gitformat-pack.txt, "pack-*.rev files have the format"; pack-write.c
 * write_rev_file and write_rev_file_order, git 2.31 to 2.55.0): git sorts the positions 0..N-1 of
 * its idx-ordered object list by pack offset and writes, after the header, each position as a
 * big-endian 32-bit word, then the pack checksum, then the checksum of the file (hashfile: SHA-1, or SHA-256
 * in a SHA-256 pack). Here the same words come the other way round: objects are already in pack order (by
 * offset), so the word for pack-order object k is its rank in the idx order, the inverse of the permutation
 * that sorts the objects by ID: by object ID, an ID found twice kept in pack order. skg_pk_idx_write
 * (pack_idx_write.c) writes the idx in the same order, skg_pk_idx_order's, so that the .rev always
 * matches the idx written beside it. The sort is made in two steps that cost a fraction of a qsort
 * of the whole table: a counting sort by the first 16 bits of the ID (stable),
 * then each bucket (13 objects on average in a pack of 850,000) sorted on its own, by insertion
 * when small, else by qsort (IDs made to share a prefix cannot make it quadratic).
 * No code was taken from Git.
 */
#include "pack_rev.h"

#include <stdlib.h>
#include <string.h>

#include "pack_internal.h"
#include "trailer.h"

/* An object's ID beside its index in pack order (as pack.c's idx sort; no global for qsort). */
struct by_id {
	uint8_t id[SKG_MAX_RAWSZ];
	uint32_t i;
};

static int cmp_by_id_n(const struct by_id *x, const struct by_id *y, size_t rawsz)
{
	int c = memcmp(x->id, y->id, rawsz);
	return c != 0 ? c : (x->i > y->i) - (x->i < y->i); /* equal IDs stay in pack order */
}

static int cmp_by_id(const void *a, const void *b)
{
	return cmp_by_id_n(a, b, SKG_RAWSZ);
}

static int cmp_by_id_sha256(const void *a, const void *b)
{
	return cmp_by_id_n(a, b, SKG_MAX_RAWSZ);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

uint64_t skg_pk_rev_size(uint32_t nr, unsigned rawsz)
{
	return SKG_RIDX_HEADER + 4 * (uint64_t)nr + 2 * (uint64_t)rawsz;
}

#define BUCKETS    65536u /* by the first 16 bits of the ID */
#define SMALL_SORT 24u    /* buckets up to this size are sorted by insertion */

static unsigned bucket_of(const uint8_t *id)
{
	return (unsigned)id[0] << 8 | id[1];
}

/* Sort order[0..n) (pack-order indexes, ascending) by the objects' IDs, equal IDs keeping their
 * order. tmp: room for n entries when n > SMALL_SORT. */
static void sort_bucket(const struct skg_pk_object *objs, unsigned rawsz, uint32_t *order, uint32_t n,
                        struct by_id *tmp)
{
	if (n <= SMALL_SORT) {
		for (uint32_t a = 1; a < n; a++) {
			uint32_t k = order[a], b = a;
			/* strictly greater: an equal ID stays after the one before it (pack order) */
			while (b > 0 && memcmp(objs[order[b - 1]].id, objs[k].id, rawsz) > 0) {
				order[b] = order[b - 1];
				b--;
			}
			order[b] = k;
		}
		return;
	}
	for (uint32_t a = 0; a < n; a++) {
		memcpy(tmp[a].id, objs[order[a]].id, rawsz);
		tmp[a].i = order[a];
	}
	qsort(tmp, n, sizeof(*tmp), rawsz == SKG_MAX_RAWSZ ? cmp_by_id_sha256 : cmp_by_id);
	for (uint32_t a = 0; a < n; a++) {
		order[a] = tmp[a].i;
	}
}

static int no_memory(struct skg_pk_error *err)
{
	err->code = SKG_E_NOMEM;
	err->has_offset = false;
	err->offset = 0;
	strcpy(err->msg, "out of memory");
	return -1;
}

int skg_pk_idx_order(const struct skg_pk_pack *pack, uint32_t **out, struct skg_pk_error *err)
{
	*out = NULL;
	uint32_t nr = pack->nr;
	const struct skg_pk_object *objs = pack->objs;
	uint32_t *start = calloc(BUCKETS + 1, sizeof(uint32_t));
	uint32_t *order = malloc((nr ? nr : 1) * sizeof(uint32_t));
	if (start == NULL || order == NULL) {
		free(start);
		free(order);
		return no_memory(err);
	}
	/* counting sort by bucket: order[start[b] .. start[b + 1]) will hold bucket b */
	for (uint32_t k = 0; k < nr; k++) {
		start[bucket_of(objs[k].id) + 1]++;
	}
	uint32_t largest = 0;
	for (unsigned b = 0; b < BUCKETS; b++) {
		largest = start[b + 1] > largest ? start[b + 1] : largest;
		start[b + 1] += start[b];
	}
	struct by_id *tmp = NULL;
	if (largest > SMALL_SORT && (tmp = malloc(largest * sizeof(*tmp))) == NULL) {
		free(start);
		free(order);
		return no_memory(err);
	}
	/* into place in pack order (start[b] moves on to bucket b's next free slot and ends at bucket
	 * b + 1's start), then each bucket sorted */
	for (uint32_t k = 0; k < nr; k++) {
		order[start[bucket_of(objs[k].id)]++] = k;
	}
	for (uint32_t b = 0, from = 0; b < BUCKETS; b++) {
		sort_bucket(objs, pack->rawsz, order + from, start[b] - from, tmp);
		from = start[b];
	}
	free(tmp);
	free(start);
	*out = order;
	return 0;
}

int skg_pk_rev_build(const struct skg_pk_pack *pack, uint8_t **out, size_t *out_len, struct skg_pk_error *err)
{
	*out = NULL;
	*out_len = 0;
	uint32_t nr = pack->nr;
	const unsigned rawsz = pack->rawsz;
	uint64_t size = skg_pk_rev_size(nr, rawsz);
	uint8_t *buf = size <= SIZE_MAX ? malloc((size_t)size) : NULL;
	uint32_t *order;
	if (buf == NULL) {
		return no_memory(err);
	}
	if (skg_pk_idx_order(pack, &order, err) != 0) {
		free(buf);
		return -1;
	}
	put_be32(buf, SKG_RIDX_SIGNATURE);
	put_be32(buf + 4, SKG_RIDX_VERSION);
	put_be32(buf + 8, rawsz == SKG_MAX_RAWSZ ? SKG_RIDX_HASH_SHA256 : SKG_RIDX_HASH_SHA1);
	uint8_t *pos = buf + SKG_RIDX_HEADER;
	for (uint32_t p = 0; p < nr; p++) {
		put_be32(pos + 4 * (size_t)order[p], p); /* object order[p] is at idx position p */
	}
	free(order);
	uint8_t *tail = pos + 4 * (size_t)nr;
	memcpy(tail, pack->checksum, rawsz);
	skg_checksum(rawsz, buf, (size_t)(tail + rawsz - buf), tail + rawsz);
	*out = buf;
	*out_len = (size_t)size;
	return 0;
}
