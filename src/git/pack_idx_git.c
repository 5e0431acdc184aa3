/*
 * pack_idx_git.c - the checks git makes when it opens an idx beside its pack (packfile.c
 * check_packed_git_idx, open_packed_git_1), and git's messages for them (skg_pk_git_idx_check,
 * skg_pk_git_open_check, skg_pk_git_usable, skg_pk_git_open_text).
 *
 * Written from Git's format documentation (Documentation/gitformat-pack.txt) and by comparing
 * results with `git index-pack` and `git verify-pack` (Git 2.39); no code was taken from Git.
 */
#include "pack_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum skg_pk_git_open skg_pk_git_idx_check_as(const uint8_t *idx, size_t idx_len, unsigned rawsz, uint32_t *a)
{
	*a = 0;
	/* check_packed_git_idx (packfile.c): size, version, fan-out, the size the count implies */
	if (idx_len < 4 * 256 + 2 * (uint64_t)rawsz) {
		return SKG_PK_GIT_IDX_SMALL; /* "index file %s is too small" */
	}
	unsigned version = 1;
	const uint8_t *fanout = idx;
	if (memcmp(idx, "\377tOc", 4) == 0) {
		version = skg_pk_get_be32(idx + 4);
		if (version != 2) {
			*a = version;
			return SKG_PK_GIT_IDX_VERSION; /* "index file %s is version %d and is not supported"
			                                */
		}
		fanout = idx + 8;
	}
	uint64_t nr = 0;
	for (int i = 0; i < 256; i++) {
		if (version == 2 && idx_len < 8 + 4 * 256) {
			return SKG_PK_GIT_IDX_V2_SIZE;
		}
		uint32_t n = skg_pk_get_be32(fanout + 4 * i);
		if (n < nr) {
			return SKG_PK_GIT_IDX_FANOUT; /* "non-monotonic index %s" */
		}
		nr = n;
	}
	if (version == 1) {
		if (idx_len != 4 * 256 + nr * (rawsz + 4) + 2 * (uint64_t)rawsz) {
			return SKG_PK_GIT_IDX_V1_SIZE; /* "wrong index v1 file size in %s" */
		}
	} else {
		uint64_t min = 8 + 4 * 256 + nr * (rawsz + 8) + 2 * (uint64_t)rawsz;
		uint64_t max = min + (nr > 0 ? (nr - 1) * 8 : 0);
		if (idx_len < min || idx_len > max) {
			return SKG_PK_GIT_IDX_V2_SIZE; /* "wrong index v2 file size in %s" */
		}
	}
	return SKG_PK_GIT_OK;
}

enum skg_pk_git_open skg_pk_git_idx_check(const uint8_t *idx, size_t idx_len, uint32_t *a)
{
	return skg_pk_git_idx_check_as(idx, idx_len, SKG_RAWSZ, a);
}

enum skg_pk_git_open skg_pk_git_open_check_as(const uint8_t *idx, size_t idx_len, const uint8_t *pack,
                                              uint64_t pack_len, unsigned rawsz, uint32_t *a, uint32_t *b)
{
	*b = 0;
	enum skg_pk_git_open go = skg_pk_git_idx_check_as(idx, idx_len, rawsz, a);
	if (go != SKG_PK_GIT_OK) {
		return go;
	}
	uint64_t nr = skg_pk_idx_count(idx, idx_len);
	/* open_packed_git_1: the pack's header, count and trailer against the idx */
	if (pack_len < 12) {
		return SKG_PK_GIT_PACK_SHORT; /* "file %s is far too short to be a packfile" */
	}
	if (memcmp(pack, "PACK", 4) != 0) {
		return SKG_PK_GIT_PACK_MAGIC; /* "file %s is not a GIT packfile" */
	}
	uint32_t pv = skg_pk_get_be32(pack + 4);
	if (pv != 2 && pv != 3) {
		*a = pv;
		return SKG_PK_GIT_PACK_VERSION; /* "packfile %s is version %u and not supported" */
	}
	if (skg_pk_get_be32(pack + 8) != nr) {
		*a = skg_pk_get_be32(pack + 8);
		*b = (uint32_t)nr;
		return SKG_PK_GIT_PACK_COUNT; /* "... claims to have %u objects while index indicates %u" */
	}
	if (pack_len < rawsz) {
		/* git's pread of the trailer at pack_size - hashsz, a negative offset: EINVAL */
		return SKG_PK_GIT_PACK_SIGNATURE; /* "error reading from %s: Invalid argument" */
	}
	/* "packfile %s does not match index": the trailer against the idx's copy of it */
	return memcmp(pack + pack_len - rawsz, idx + idx_len - 2 * (size_t)rawsz, rawsz) == 0
	           ? SKG_PK_GIT_OK
	           : SKG_PK_GIT_PACK_MISMATCH;
}

enum skg_pk_git_open skg_pk_git_open_check(const uint8_t *idx, size_t idx_len, const uint8_t *pack,
                                           uint64_t pack_len, uint32_t *a, uint32_t *b)
{
	return skg_pk_git_open_check_as(idx, idx_len, pack, pack_len, SKG_RAWSZ, a, b);
}

bool skg_pk_git_usable_as(const uint8_t *idx, size_t idx_len, const uint8_t *pack, uint64_t pack_len,
                          unsigned rawsz)
{
	uint32_t a, b;
	return skg_pk_git_open_check_as(idx, idx_len, pack, pack_len, rawsz, &a, &b) == SKG_PK_GIT_OK;
}

bool skg_pk_git_usable(const uint8_t *idx, size_t idx_len, const uint8_t *pack, uint64_t pack_len)
{
	return skg_pk_git_usable_as(idx, idx_len, pack, pack_len, SKG_RAWSZ);
}

int skg_pk_git_open_text(enum skg_pk_git_open go, const char *path, uint32_t a, uint32_t b, char *buf,
                         size_t n)
{
	/* the texts of packfile.c's load_idx and open_packed_git_1 (git 2.39.5, the same in 2.55.0) */
	switch (go) {
	case SKG_PK_GIT_IDX_SMALL:
		return snprintf(buf, n, "index file %s is too small", path);
	case SKG_PK_GIT_IDX_VERSION:
		return snprintf(buf, n,
		                "index file %s is version %" PRIu32
		                " and is not supported by this binary (try upgrading GIT to a newer version)",
		                path, a);
	case SKG_PK_GIT_IDX_FANOUT:
		return snprintf(buf, n, "non-monotonic index %s", path);
	case SKG_PK_GIT_IDX_V1_SIZE:
	case SKG_PK_GIT_IDX_V2_SIZE:
		return snprintf(buf, n, "wrong index v%d file size in %s",
		                go == SKG_PK_GIT_IDX_V1_SIZE ? 1 : 2, path);
	case SKG_PK_GIT_PACK_SHORT:
		return snprintf(buf, n, "file %s is far too short to be a packfile", path);
	case SKG_PK_GIT_PACK_MAGIC:
		return snprintf(buf, n, "file %s is not a GIT packfile", path);
	case SKG_PK_GIT_PACK_VERSION:
		return snprintf(buf, n,
		                "packfile %s is version %" PRIu32
		                " and not supported (try upgrading GIT to a newer version)",
		                path, a);
	case SKG_PK_GIT_PACK_COUNT:
		return snprintf(buf, n,
		                "packfile %s claims to have %" PRIu32
		                " objects while index indicates %" PRIu32 " objects",
		                path, a, b);
	case SKG_PK_GIT_PACK_SIGNATURE:
		/* error_errno("error reading from %s"): the pread at a negative offset (git never gets
		 * to its "signature is unavailable", a short read of a regular file) */
		return snprintf(buf, n, "error reading from %s: %s", path, strerror(EINVAL));
	case SKG_PK_GIT_PACK_MISMATCH:
		return snprintf(buf, n, "packfile %s does not match index", path);
	case SKG_PK_GIT_OK:
		break;
	}
	if (n > 0) {
		buf[0] = '\0';
	}
	return 0;
}
