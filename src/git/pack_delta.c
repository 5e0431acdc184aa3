/*
 * pack_delta.c - Git's delta instructions (gitformat-pack(5), "Deltified representation"): the
 * size fields, a scan that checks them and gives the result's length, and their application.
 *
 * Written from Git's format documentation (Documentation/gitformat-pack.txt) and by comparing
 * results with `git index-pack` and `git verify-pack` (Git 2.39); no code was taken from Git.
 */
#include "pack_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Size field of a delta: little-endian base-128, as many bytes as have bit 7 set. false when it
 * runs past end or bits leave the 64 at a shift below 64 (git's st_left_shift dies there); a shift
 * of 64 or more (a field of more than 10 bytes) is not checked by git, and x86-64 shifts by the
 * count modulo 64: git takes the 11th and later bytes there (zero bytes change nothing; the gits
 * agree on such packs, by experiment), as git_hdr_size below. */
bool skg_pk_delta_size(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0, c;
	do {
		if (*p >= end) {
			return false;
		}
		c = *(*p)++;
		if (shift < 64 && shift > 57 && ((c & 0x7fu) >> (64 - shift)) != 0) {
			return false;
		}
		r |= (uint64_t)(c & 0x7f) << (shift & 63);
		shift += 7;
	} while (c & 0x80);
	*v = r;
	return true;
}

/* The offset and size of a copy instruction c (bit 7 set) whose argument bytes start at *dp (git's
 * patch_delta: bits 0-3 the offset bytes, 4-6 the size bytes, a size of 0 meaning 0x10000): false
 * when they run past dend. *dp moves past them. */
static inline bool copy_args(unsigned c, const uint8_t **dp, const uint8_t *dend, uint64_t *off, uint64_t *sz)
{
	const uint8_t *d = *dp;
	uint64_t v[2] = {0, 0};
	for (unsigned b = 0; b < 7; b++) {
		if (c & (1u << b)) {
			if (d >= dend) {
				return false;
			}
			v[b >= 4] |= (uint64_t)*d++ << (8 * (b & 3));
		}
	}
	*dp = d;
	*off = v[0];
	*sz = v[1] == 0 ? 0x10000 : v[1];
	return true;
}

/* Check the delta instructions d[0..dend) against a base of base_len bytes without applying them:
 * NULL and the exact result length in *total, or the reason of the failure. Run before the result
 * is allocated, so a false size in a delta header cannot make us allocate anything. */
const char *skg_pk_scan_delta(uint64_t base_len, const uint8_t *d, const uint8_t *dend, uint64_t *total)
{
	uint64_t o = 0;
	while (d < dend) {
		unsigned c = *d++;
		if (c & 0x80) {
			uint64_t off, sz;
			if (!copy_args(c, &d, dend, &off, &sz)) {
				return "delta copy instruction is truncated";
			}
			if (off > base_len || sz > base_len - off) {
				return "delta copies from outside its base";
			}
			o += sz; /* cannot overflow: at most 2^24 per byte of delta */
		} else if (c != 0) {
			if (c > (size_t)(dend - d)) {
				return "delta insert instruction runs past the end of the delta";
			}
			d += c;
			o += c;
		} else {
			return "delta uses the reserved instruction 0";
		}
	}
	*total = o;
	return NULL;
}

/* Apply the delta instructions d[0..dend) to `base`, producing exactly out_len bytes in `out`.
 * Returns NULL or the reason of the failure. */
const char *skg_pk_apply_delta(const uint8_t *base, uint64_t base_len, const uint8_t *d, const uint8_t *dend,
                               uint8_t *out, uint64_t out_len)
{
	uint64_t o = 0;
	while (d < dend) {
		unsigned c = *d++;
		if (c & 0x80) {
			uint64_t off, sz;
			if (!copy_args(c, &d, dend, &off, &sz)) {
				return "delta copy instruction is truncated";
			}
			if (off > base_len || sz > base_len - off) {
				return "delta copies from outside its base";
			}
			if (sz > out_len - o) {
				return "delta result is longer than its header says";
			}
			memcpy(out + o, base + off, (size_t)sz);
			o += sz;
		} else if (c != 0) {
			if (c > (size_t)(dend - d)) {
				return "delta insert instruction runs past the end of the delta";
			}
			if (c > out_len - o) {
				return "delta result is longer than its header says";
			}
			memcpy(out + o, d, c);
			d += c;
			o += c;
		} else {
			return "delta uses the reserved instruction 0";
		}
	}
	if (o != out_len) {
		return "delta result is shorter than its header says";
	}
	return NULL;
}

/*
 * git's get_delta_hdr_size (delta.h): 7 bits a byte, low first, until a byte without bit 7 or the
 * end of the delta; each shifted with st_left_shift (git-compat-util.h), which dies when bits
 * would leave the 64 (a shift of 64 or more is not checked: x86-64's shift, by the count modulo
 * 64, is what git's build does). A first field that takes the whole delta makes the second read
 * the 0 git's buffer has after it (index-pack's unpack_data allocates with xmallocz): *p then ends
 * one past `end`. false: the overflow die, in err->git_fatal.
 */
static bool git_hdr_size(const uint8_t **p, const uint8_t *end, uint64_t *v, struct skg_pk_error *err)
{
	uint64_t size = 0;
	unsigned shift = 0, c;
	do {
		c = *p < end ? **p : 0;
		(*p)++;
		uint64_t a = c & 0x7f;
		if (shift < 64 && a > UINT64_MAX >> shift) {
			snprintf(err->git_fatal, sizeof(err->git_fatal), "size_t overflow: %" PRIu64 " << %u",
			         a, shift);
			return false;
		}
		size |= a << (shift & 63);
		shift += 7;
	} while ((c & 0x80) && *p < end);
	*v = size;
	return true;
}

int skg_pk_git_patch_check(uint64_t base_len, const uint8_t *delta, uint64_t delta_len, uint64_t offset,
                           struct skg_pk_error *err)
{
	const uint8_t *d = delta, *top = delta + delta_len;
	uint64_t want_base, size;
	err->git_error = NULL;
	err->git_fatal[0] = '\0';
	if (delta_len < 4) { /* DELTA_SIZE_MIN */
		goto failed;
	}
	if (!git_hdr_size(&d, top, &want_base, err)) {
		return 1;
	}
	if (want_base != base_len) {
		goto failed;
	}
	if (!git_hdr_size(&d, top, &size, err)) {
		return 1;
	}
	/* the instructions, with `size` the room left in the result */
	while (d < top) {
		unsigned c = *d++;
		if (c & 0x80) {
			uint64_t off, sz;
			if (!copy_args(c, &d, top, &off, &sz) || off > UINT64_MAX - sz ||
			    off + sz > base_len || sz > size) {
				goto wild;
			}
			size -= sz;
		} else if (c != 0) {
			if (c > size || c > (uint64_t)(top - d)) {
				goto wild;
			}
			d += c;
			size -= c;
		} else {
			err->git_error = "unexpected delta opcode 0";
			goto failed;
		}
	}
	if (d != top || size != 0) {
		goto wild;
	}
	return 0;
wild:
	err->git_error = "delta replay has gone wild";
failed:
	/* builtin/index-pack.c resolve_delta / get_base_data: bad_object() */
	snprintf(err->git_fatal, sizeof(err->git_fatal),
	         "pack has bad object at offset %" PRIu64 ": failed to apply delta", offset);
	return 1;
}
