/*
 * pack_idx_write.c - the idx (v1, v2) of an indexed pack: written in pieces straight from the table
 * sorted by object ID (skg_pk_idx_write), into memory (skg_pk_idx_build), and the version and
 * 64-bit offset threshold of an existing idx (skg_pk_idx_params).
 *
 * Written from Git's format documentation (Documentation/gitformat-pack.txt) and by comparing
 * results with `git index-pack` and `git verify-pack` (Git 2.39); no code was taken from Git.
 */
#include "pack_internal.h"
#include "pack_rev.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The idx on its way out: a small buffer handed to the sink when full, and the idx checksum. */
struct idx_out {
	skg_pk_idx_sink sink;
	void *ctx;
	struct skg_pk_error *err;
	struct skg_pk_hash sum; /* the idx's checksum */
	size_t n;
	bool failed;
	uint8_t buf[64 << 10];
};

static void idx_flush(struct idx_out *w)
{
	if (!w->failed && w->n > 0) {
		skg_pk_hash_update(&w->sum, w->buf, w->n);
		w->failed = w->sink(w->ctx, w->buf, w->n, w->err) != 0;
	}
	w->n = 0;
}

/* Room for `n` (at most sizeof(buf)) more bytes in the buffer. */
static uint8_t *idx_room(struct idx_out *w, size_t n)
{
	if (sizeof(w->buf) - w->n < n) {
		idx_flush(w);
	}
	uint8_t *p = w->buf + w->n;
	w->n += n;
	return p;
}

int skg_pk_idx_write(const struct skg_pk_pack *pack, unsigned version, uint64_t off32_limit, bool strict,
                     skg_pk_idx_sink sink, void *ctx, struct skg_pk_error *err)
{
	uint32_t nr = pack->nr;
	const unsigned rawsz = pack->rawsz;
	const struct skg_pk_object *objs = pack->objs;
	/* pack-write.c write_idx_file: version 2 whenever the last object needs a large offset
	 * (need_large_offset: past 31 bits, or above off32_limit), whatever version was asked */
	uint64_t last = nr > 0 ? objs[nr - 1].offset : 0; /* objs are in pack order */
	if (version == 1 && (last >> 31 != 0 || last > off32_limit)) {
		version = 2;
	}
	/* the objects by ID, an ID twice in pack order: the .rev's order (pack_rev.c) */
	uint32_t *order;
	if (skg_pk_idx_order(pack, &order, err) != 0) {
		return -1;
	}
	struct idx_out *w = malloc(sizeof(*w));
	if (w == NULL) {
		skg_pk_set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
		free(order);
		return -1;
	}

	int rc = -1;
	for (uint32_t i = 0; i < nr; i++) {
		const struct skg_pk_object *o = &objs[order[i]];
		if (strict && i > 0 && memcmp(objs[order[i - 1]].id, o->id, rawsz) == 0) {
			char hex[2 * SKG_MAX_RAWSZ + 1];
			skg_to_hex_len(o->id, rawsz, hex);
			/* git's die in pack-write.c write_idx_file (WRITE_IDX_STRICT) */
			skg_pk_set_failure(err, SKG_E_GIT, true, o->offset,
			                   "The same object %s appears twice in the pack", hex);
			goto out;
		}
	}

	/* Written in pieces, straight from the sorted table: the idx is never whole in memory. */
	w->sink = sink;
	w->ctx = ctx;
	w->err = err;
	w->n = 0;
	w->failed = false;
	skg_pk_hash_init(&w->sum, skg_pk_sum_kind(rawsz));
	if (version == 2) {
		uint8_t *p = idx_room(w, 8);
		memcpy(p, "\377tOc", 4);
		put_be32(p + 4, 2);
	}
	uint8_t *fan = idx_room(w, 1024);
	uint32_t count = 0;
	for (unsigned b = 0, i = 0; b < 256; b++) {
		while (i < nr && objs[order[i]].id[0] == b) {
			i++;
			count++;
		}
		put_be32(fan + 4 * b, count);
	}
	if (version == 1) {
		for (uint32_t i = 0; i < nr && !w->failed; i++) {
			uint8_t *p = idx_room(w, 4 + rawsz);
			put_be32(p, (uint32_t)objs[order[i]].offset);
			memcpy(p + 4, objs[order[i]].id, rawsz);
		}
	} else {
		for (uint32_t i = 0; i < nr && !w->failed; i++) {
			memcpy(idx_room(w, rawsz), objs[order[i]].id, rawsz);
		}
		for (uint32_t i = 0; i < nr && !w->failed; i++) {
			put_be32(idx_room(w, 4), objs[order[i]].crc32);
		}
		uint32_t k = 0;
		for (uint32_t i = 0; i < nr && !w->failed; i++) {
			uint64_t off = objs[order[i]].offset;
			put_be32(idx_room(w, 4), off > off32_limit ? 0x80000000u | k++ : (uint32_t)off);
		}
		for (uint32_t i = 0; i < nr && !w->failed; i++) {
			uint64_t off = objs[order[i]].offset;
			if (off > off32_limit) {
				uint8_t *p = idx_room(w, 8);
				put_be32(p, (uint32_t)(off >> 32));
				put_be32(p + 4, (uint32_t)off);
			}
		}
	}
	memcpy(idx_room(w, rawsz), pack->checksum, rawsz);
	idx_flush(w);
	if (!w->failed) {
		skg_pk_hash_final(&w->sum, w->buf);
		w->failed = sink(ctx, w->buf, rawsz, err) != 0;
	}
	rc = w->failed ? -1 : 0;
out:
	free(order);
	free(w);
	return rc;
}

struct mem_sink {
	uint8_t *buf;
	size_t len, cap;
};

static int mem_sink(void *ctx, const uint8_t *p, size_t n, struct skg_pk_error *err)
{
	struct mem_sink *m = ctx;
	if (m->cap - m->len < n) {
		size_t ncap = m->cap ? m->cap : 1 << 16;
		while (ncap - m->len < n) {
			if (ncap > SIZE_MAX / 2) {
				skg_pk_set_error(err, false, 0, "index too large for memory");
				return -1;
			}
			ncap *= 2;
		}
		uint8_t *nb = realloc(m->buf, ncap);
		if (nb == NULL) {
			skg_pk_set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
			return -1;
		}
		m->buf = nb;
		m->cap = ncap;
	}
	memcpy(m->buf + m->len, p, n);
	m->len += n;
	return 0;
}

int skg_pk_idx_build(const struct skg_pk_pack *pack, unsigned version, uint64_t off32_limit, bool strict,
                     uint8_t **out, size_t *out_len, struct skg_pk_error *err)
{
	struct mem_sink m = {NULL, 0, 0};
	if (skg_pk_idx_write(pack, version, off32_limit, strict, mem_sink, &m, err) != 0) {
		free(m.buf);
		return -1;
	}
	*out = m.buf;
	*out_len = m.len;
	return 0;
}

void skg_pk_idx_params_as(const uint8_t *idx, size_t len, unsigned rawsz, unsigned *version,
                          uint64_t *off32_limit)
{
	const uint64_t sums = 2 * (uint64_t)rawsz; /* the pack's checksum and the idx's */
	*version = 2;
	*off32_limit = SKG_PK_IDX_OFF32_LIMIT;
	if (len < 8 || memcmp(idx, "\377tOc", 4) != 0) {
		if (len >= 1024 + sums) {
			*version = 1;
		}
		return;
	}
	if (skg_pk_get_be32(idx + 4) != 2 || len < 8 + 1024 + sums) {
		return;
	}
	uint64_t nr = skg_pk_get_be32(idx + 8 + 255 * 4);
	if (len < 8 + 1024 + nr * (rawsz + 8) + sums) {
		return;
	}
	const uint8_t *offs = idx + 8 + 1024 + nr * (rawsz + 4);
	const uint8_t *large = offs + nr * 4;
	uint64_t n_large = (len - sums - (uint64_t)(large - idx)) / 8;
	uint64_t min = UINT64_MAX;
	for (uint64_t i = 0; i < nr; i++) {
		uint32_t v = skg_pk_get_be32(offs + 4 * i);
		if (v & 0x80000000u) {
			uint32_t k = v & 0x7fffffffu;
			if (k < n_large) {
				uint64_t off = (uint64_t)skg_pk_get_be32(large + 8 * (size_t)k) << 32 |
				               skg_pk_get_be32(large + 8 * (size_t)k + 4);
				if (off < min) {
					min = off;
				}
			}
		}
	}
	if (min != UINT64_MAX) {
		*off32_limit = min > 0 ? min - 1 : 0;
	}
}

void skg_pk_idx_params(const uint8_t *idx, size_t len, unsigned *version, uint64_t *off32_limit)
{
	skg_pk_idx_params_as(idx, len, SKG_RAWSZ, version, off32_limit);
}
