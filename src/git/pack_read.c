/*
 * pack_read.c - one object of a pack through its idx: inflated, its delta chain applied
 * (skg_pk_read_object, with a cache of bases: skg_pk_read_object_cached), and an entry's delta
 * base (skg_pk_entry_base).
 *
 * Written from Git's format documentation (Documentation/gitformat-pack.txt) and by comparing
 * results with `git index-pack` and `git verify-pack` (Git 2.39); no code was taken from Git.
 */
#include "pack_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* One step of a delta chain: the entry and its header. */
struct chain_step {
	uint64_t offset;
	struct skg_pk_entry_hdr h;
};

/* Inflate the data of the entry of header h at `offset` into a new buffer of h->size bytes. */
static uint8_t *inflate_entry(struct skg_pk_inflater *inf, const uint8_t *pack, uint64_t end, uint64_t offset,
                              const struct skg_pk_entry_hdr *h, uint64_t max_size, bool *large,
                              struct skg_pk_error *err)
{
	if (h->size > max_size || h->size >= SIZE_MAX) {
		skg_pk_set_error(err, true, offset, "object of %" PRIu64 " bytes is over the size limit",
		                 h->size);
		*large = true;
		return NULL;
	}
	uint8_t *buf = malloc(h->size > 0 ? (size_t)h->size : 1);
	if (buf == NULL) {
		skg_pk_set_failure(err, SKG_E_NOMEM, true, offset,
		                   "out of memory (object of %" PRIu64 " bytes)", h->size);
		return NULL;
	}
	uint64_t consumed;
	uint8_t chunk[1];
	enum skg_pk_inf_status st = skg_pk_inflate_exact(inf, pack + offset + h->len, end - offset - h->len,
	                                                 buf, h->size, NULL, NULL, chunk, 0, &consumed);
	if (st != SKG_PK_INF_OK) {
		skg_pk_inflate_error(err, inf, st, offset, h->size, "object");
		free(buf);
		return NULL;
	}
	return buf;
}

int skg_pk_read_object(const uint8_t *pack, uint64_t pack_len, const uint8_t *idx, size_t idx_len,
                       uint64_t offset, uint64_t max_size, unsigned *type, uint8_t **out, uint64_t *out_len,
                       struct skg_pk_error *err)
{
	return skg_pk_read_object_cached(pack, pack_len, idx, idx_len, SKG_RAWSZ, offset, max_size, NULL,
	                                 type, out, out_len, err);
}

int skg_pk_read_object_cached(const uint8_t *pack, uint64_t pack_len, const uint8_t *idx, size_t idx_len,
                              unsigned rawsz, uint64_t offset, uint64_t max_size,
                              const struct skg_pk_base_cache *cache, unsigned *type, uint8_t **out,
                              uint64_t *out_len, struct skg_pk_error *err)
{
	if (pack_len < 12 + rawsz || offset < 12 || offset >= pack_len - rawsz) {
		skg_pk_set_error(err, true, offset, "no object starts at this offset of the pack");
		return -1;
	}
	const uint64_t end = pack_len - rawsz;
	/* A chain longer than the pack has objects goes round a loop of REF_DELTA entries. */
	uint64_t limit = skg_pk_idx_count(idx, idx_len) + 1;
	struct chain_step *chain = NULL;
	size_t n = 0, cap = 0;
	uint8_t *buf = NULL, *delta = NULL;
	uint64_t len = 0;
	struct skg_pk_inflater inf;
	int rc = -1;
	bool large = false, cached = false;
	unsigned base_type = 0;
	if (!skg_pk_inflater_init(&inf)) {
		skg_pk_set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
		return -1;
	}
	/* follow the bases down to a whole object */
	for (uint64_t at = offset;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			struct chain_step *c = realloc(chain, cap * sizeof(*c));
			if (c == NULL) {
				skg_pk_set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
				goto out;
			}
			chain = c;
		}
		struct chain_step *s = &chain[n++];
		s->offset = at;
		/* a base kept from an earlier read (git's delta base cache) ends the walk */
		if (n > 1 && cache != NULL && cache->get(cache->ctx, at, &base_type, &buf, &len)) {
			cached = true;
			break;
		}
		if (skg_pk_entry_header(pack, end, at, rawsz, &s->h) != NULL) {
			skg_pk_set_error(err, true, at, "%s", s->h.why);
			goto out;
		}
		if (s->h.type != SKG_PK_OFS_DELTA && s->h.type != SKG_PK_REF_DELTA) {
			break;
		}
		if (n > limit) {
			skg_pk_set_error(err, true, offset, "delta chain loops");
			goto out;
		}
		if (s->h.type == SKG_PK_OFS_DELTA) {
			at = s->h.base_offset;
		} else if (!skg_pk_idx_find_as(idx, idx_len, rawsz, s->h.base_id, &at)) {
			char h[2 * SKG_MAX_RAWSZ + 1];
			skg_to_hex_len(s->h.base_id, rawsz, h);
			skg_pk_set_error(err, true, s->offset, "delta base %s is not in the pack", h);
			goto out;
		} else if (at < 12 || at >= end) {
			skg_pk_set_error(err, true, s->offset,
			                 "the idx gives the delta base an offset outside the pack");
			goto out;
		}
	}
	if (!cached) {
		buf = inflate_entry(&inf, pack, end, chain[n - 1].offset, &chain[n - 1].h, max_size, &large,
		                    err);
		if (buf == NULL) {
			goto out;
		}
		len = chain[n - 1].h.size;
		base_type = chain[n - 1].h.type;
		if (n > 1 && cache != NULL) {
			cache->put(cache->ctx, chain[n - 1].offset, base_type, buf, len);
		}
	}
	/* apply the deltas, the innermost first */
	for (size_t k = n - 1; k-- > 0;) {
		const struct chain_step *s = &chain[k];
		delta = inflate_entry(&inf, pack, end, s->offset, &s->h, max_size, &large, err);
		if (delta == NULL) {
			goto out;
		}
		const uint8_t *d = delta, *dend = delta + s->h.size;
		uint64_t base_size, result_size;
		if (!skg_pk_delta_size(&d, dend, &base_size) || !skg_pk_delta_size(&d, dend, &result_size)) {
			skg_pk_set_error(err, true, s->offset, "delta header is truncated");
			goto out;
		}
		if (base_size != len) {
			skg_pk_set_error(err, true, s->offset,
			                 "delta base size mismatch: the delta says %" PRIu64
			                 ", the base has %" PRIu64,
			                 base_size, len);
			goto out;
		}
		if (result_size > max_size || result_size >= SIZE_MAX) {
			skg_pk_set_error(err, true, s->offset,
			                 "object of %" PRIu64 " bytes is over the size limit", result_size);
			large = true;
			goto out;
		}
		uint8_t *r = malloc(result_size > 0 ? (size_t)result_size : 1);
		if (r == NULL) {
			skg_pk_set_failure(err, SKG_E_NOMEM, true, s->offset,
			                   "out of memory (object of %" PRIu64 " bytes)", result_size);
			goto out;
		}
		const char *why = skg_pk_apply_delta(buf, len, d, dend, r, result_size);
		if (why != NULL) {
			skg_pk_set_error(err, true, s->offset, "%s", why);
			free(r);
			goto out;
		}
		free(buf);
		free(delta);
		delta = NULL;
		buf = r;
		len = result_size;
		if (k > 0 && cache != NULL) {
			cache->put(cache->ctx, s->offset, base_type, buf, len);
		}
	}
	*type = base_type;
	*out = buf;
	*out_len = len;
	buf = NULL;
	rc = 0;
out:
	skg_pk_inflater_end(&inf);
	free(delta);
	free(buf);
	free(chain);
	return rc != 0 && large ? 1 : rc;
}

int skg_pk_entry_base(const uint8_t *pack, uint64_t pack_len, const uint8_t *idx, size_t idx_len,
                      unsigned rawsz, uint64_t offset, uint64_t *base)
{
	struct skg_pk_entry_hdr h;
	if (pack_len < 12 + rawsz || offset < 12 || offset >= pack_len - rawsz ||
	    skg_pk_entry_header(pack, pack_len - rawsz, offset, rawsz, &h) != NULL) {
		return -1;
	}
	if (h.type == SKG_PK_OFS_DELTA) {
		*base = h.base_offset;
		return 1;
	}
	if (h.type == SKG_PK_REF_DELTA) {
		return skg_pk_idx_find_as(idx, idx_len, rawsz, h.base_id, base) ? 1 : -1;
	}
	return 0;
}
