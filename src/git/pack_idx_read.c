/*
 * pack_idx_read.c - one entry of an idx (v1, v2): the count, the entry by position, an ID's
 * offset, and whether an entry's CRC-32 matches the pack.
 *
 * Written from Git's format documentation (Documentation/gitformat-pack.txt) and by comparing
 * results with `git index-pack` and `git verify-pack` (Git 2.39); no code was taken from Git.
 */
#include "pack_internal.h"

#include <string.h>

uint64_t skg_pk_idx_count(const uint8_t *idx, size_t len)
{
	size_t fanout = len >= 8 && memcmp(idx, "\377tOc", 4) == 0 ? 8 : 0;
	if (len < fanout + 256 * 4) {
		return 0;
	}
	return skg_pk_get_be32(idx + fanout + 255 * 4);
}

bool skg_pk_idx_crc_differs(const uint8_t *idx, size_t idx_len, unsigned rawsz, uint64_t k,
                            const uint8_t *pack, uint64_t offset, uint64_t len)
{
	uint64_t nr = skg_pk_idx_count(idx, idx_len);
	if (!(idx_len >= 8 && memcmp(idx, "\377tOc", 4) == 0) || k >= nr) {
		return false;
	}
	uint64_t at = 8 + 1024 + nr * rawsz + 4 * k;
	if (at + 4 > idx_len) {
		return false;
	}
	return skg_pk_crc32(0, pack + offset, len) != skg_pk_get_be32(idx + at);
}

bool skg_pk_idx_entry_as(const uint8_t *idx, size_t len, unsigned rawsz, uint64_t k, const uint8_t **id,
                         uint64_t *offset)
{
	uint64_t nr = skg_pk_idx_count(idx, len);
	if (k >= nr) {
		return false;
	}
	if (!(len >= 8 && memcmp(idx, "\377tOc", 4) == 0)) {
		/* v1: after the fan-out, nr entries of a 4-byte offset and the ID */
		uint64_t esz = 4 + (uint64_t)rawsz;
		if (1024 + (k + 1) * esz > len) {
			return false;
		}
		*id = idx + 1024 + esz * k + 4;
		*offset = skg_pk_get_be32(idx + 1024 + esz * k);
		return true;
	}
	/* v2: header, fan-out, nr IDs, nr CRC-32s, nr 31-bit offsets (or an index into the table of
	 * 64-bit offsets that follows them, when the top bit is set) */
	uint64_t ids = 8 + 1024, offs = ids + nr * (rawsz + 4), large = offs + nr * 4;
	if (large > len) {
		return false;
	}
	*id = idx + ids + k * rawsz;
	uint32_t v = skg_pk_get_be32(idx + offs + 4 * k);
	if (v & 0x80000000u) {
		/* git's check_pack_index_ptr: a 64-bit entry must start before the idx's last 8 bytes */
		uint64_t at = large + 8 * (uint64_t)(v & 0x7fffffffu);
		if (at + 8 >= len) {
			return false;
		}
		*offset = (uint64_t)skg_pk_get_be32(idx + at) << 32 | skg_pk_get_be32(idx + at + 4);
	} else {
		*offset = v;
	}
	return true;
}

bool skg_pk_idx_entry(const uint8_t *idx, size_t len, uint64_t k, const uint8_t **id, uint64_t *offset)
{
	return skg_pk_idx_entry_as(idx, len, SKG_RAWSZ, k, id, offset);
}

bool skg_pk_idx_find_as(const uint8_t *idx, size_t len, unsigned rawsz, const uint8_t *id, uint64_t *offset)
{
	size_t fanout = len >= 8 && memcmp(idx, "\377tOc", 4) == 0 ? 8 : 0;
	if (len < fanout + 256 * 4) {
		return false;
	}
	/* the fan-out: entries [fanout[id[0] - 1], fanout[id[0]]) have this first byte */
	uint64_t lo = id[0] > 0 ? skg_pk_get_be32(idx + fanout + 4 * (id[0] - 1u)) : 0;
	uint64_t hi = skg_pk_get_be32(idx + fanout + 4 * id[0]);
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const uint8_t *mid_id;
		uint64_t off;
		if (!skg_pk_idx_entry_as(idx, len, rawsz, mid, &mid_id, &off)) {
			return false;
		}
		int c = memcmp(mid_id, id, rawsz);
		if (c == 0) {
			*offset = off;
			return true;
		}
		if (c < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return false;
}

bool skg_pk_idx_find(const uint8_t *idx, size_t len, const uint8_t id[SKG_RAWSZ], uint64_t *offset)
{
	return skg_pk_idx_find_as(idx, len, SKG_RAWSZ, id, offset);
}

/* The ID of entry k, or NULL when k is out of range or the ID lies past the end of the idx. */
static const uint8_t *entry_name(const uint8_t *idx, size_t len, unsigned rawsz, uint64_t k)
{
	bool v2 = len >= 8 && memcmp(idx, "\377tOc", 4) == 0;
	uint64_t at = v2 ? 8 + 1024 + k * rawsz : 1024 + k * (rawsz + 4) + 4;
	return k < skg_pk_idx_count(idx, len) && at + rawsz <= len ? idx + at : NULL;
}

int skg_pk_idx_lookup(const uint8_t *idx, size_t len, unsigned rawsz, const uint8_t *id, uint64_t *offset)
{
	size_t fanout = len >= 8 && memcmp(idx, "\377tOc", 4) == 0 ? 8 : 0;
	if (len < fanout + 256 * 4) {
		return 0;
	}
	uint64_t lo = id[0] > 0 ? skg_pk_get_be32(idx + fanout + 4 * (id[0] - 1u)) : 0;
	uint64_t hi = skg_pk_get_be32(idx + fanout + 4 * id[0]);
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const uint8_t *name = entry_name(idx, len, rawsz, mid);
		if (name == NULL) {
			return 0;
		}
		int c = memcmp(name, id, rawsz);
		if (c == 0) {
			const uint8_t *eid;
			return skg_pk_idx_entry_as(idx, len, rawsz, mid, &eid, offset) ? 1 : -1;
		}
		if (c < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return 0;
}
