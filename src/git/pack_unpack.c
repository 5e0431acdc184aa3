/*
 * pack_unpack.c - git's unpack_entry (packfile.c), with the lines git prints on a damaged entry
 * (skg_pk_git_unpack, skg_pk_git_entry_header), and its packed_to_object_type (skg_pk_git_info_type).
 *
 * Written from Git's format documentation (Documentation/gitformat-pack.txt) and by comparing
 * results with `git index-pack` and `git verify-pack` (Git 2.39); no code was taken from Git.
 */
#include "pack_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include <sha1kit/git_object.h>

#include "util.h"

struct git_unpack {
	const uint8_t *pack;
	uint64_t pack_len;
	unsigned rawsz; /* bytes of an ID and of the trailer: 20 (SHA-1) or 32 (SHA-256) */
	uint64_t alloc_limit;
	const char *name;
	void (*line)(void *ctx, const char *text);
	void *ctx;
	bool died;
	bool nomem; /* the machine failed (malloc, zlib's allocations): an error of the run, not git's */
	void *ld;   /* gu_inflate's libdeflate decompressor (allocated there; NULL: none yet) */
};

static void gu_line(struct git_unpack *u, const char *fmt, ...) SKG_PRINTF(2, 3);
static void gu_line(struct git_unpack *u, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	u->line(u->ctx, text);
}

/* git's use_pack at `at`: it dies past the last byte before the trailer. */
static bool gu_use(struct git_unpack *u, uint64_t at)
{
	if (at > u->pack_len - u->rawsz) {
		gu_line(u, "fatal: offset beyond end of packfile (truncated pack?)");
		u->died = true;
		return false;
	}
	return true;
}

/* unpack_object_header: the type (-1: OBJ_BAD) and size; *at moves past the header. */
static int gu_header(struct git_unpack *u, uint64_t *at, uint64_t *size)
{
	if (!gu_use(u, *at)) {
		return -1;
	}
	const uint8_t *b = u->pack + *at;
	uint64_t left = u->pack_len - *at, used = 0;
	unsigned c = b[used++];
	int type = (c >> 4) & 7;
	uint64_t sz = c & 15;
	unsigned shift = 4;
	while (c & 0x80) {
		if (left <= used || 57 < shift) {
			gu_line(u, "error: bad object header");
			*size = 0;
			return -1;
		}
		c = b[used++];
		sz += (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	}
	*size = sz;
	*at += used;
	return type;
}

/* get_delta_base: the base's offset, 0 when the reference is out of range (*at moves past it,
 * but for an OFS_DELTA that fails). */
static uint64_t gu_base(struct git_unpack *u, const uint8_t *idx, size_t idx_len, uint64_t *at, int type,
                        uint64_t delta_offset)
{
	const uint8_t *b = u->pack + *at, *end = u->pack + u->pack_len;
	if (type == SKG_PK_OFS_DELTA) {
		unsigned used = 0;
		if (b >= end) {
			return 0;
		}
		unsigned c = b[used++];
		uint64_t off = c & 127;
		while (c & 128) {
			off += 1;
			if (off == 0 || (off >> 57) != 0 || b + used >= end) {
				return 0; /* overflow */
			}
			c = b[used++];
			off = (off << 7) + (c & 127);
		}
		if (off == 0 || off >= delta_offset) {
			return 0; /* out of bound */
		}
		*at += used;
		return delta_offset - off;
	}
	uint64_t base = 0;
	if (b + u->rawsz <= end && !skg_pk_idx_find_as(idx, idx_len, u->rawsz, b, &base)) {
		base = 0;
	}
	*at += u->rawsz;
	return base;
}

/*
 * unpack_compressed_entry: `size` bytes inflated from `at` (zlib, as git), or NULL. git allocates
 * size + 1 bytes first; a size that the rest of the pack cannot inflate to (deflate expands at
 * most 1032 to 1) is inflated into a scratch buffer instead, for git's error line, and fails.
 */
static uint8_t *gu_inflate(struct git_unpack *u, uint64_t at, uint64_t size)
{
	if (!gu_use(u, at) || size >= SIZE_MAX - 1) {
		return NULL;
	}
	uint64_t in_left = u->pack_len - at;
	bool scratch = size / 1032 > in_left + 1 || size > UINT32_MAX - 1;
	uint8_t small[65536];
	/* git's xmallocz_gently of size + 1 bytes, which may fail (it says so) */
	uint8_t *buf = size + 1 > u->alloc_limit ? NULL : malloc((size_t)size + 1);
	if (buf == NULL && !scratch && size + 1 <= u->alloc_limit) {
		u->nomem = true; /* a size the pack can hold: the machine is out of memory */
		return NULL;
	}
	if (buf == NULL) {
		gu_line(u, "error: Out of memory, malloc failed (tried to allocate %" PRIu64 " bytes)",
		        size + 1);
		return NULL;
	}
	if (scratch) {
		free(buf); /* it cannot be filled: inflated into `small`, for zlib's words only */
		buf = NULL;
	}
#if defined(SK_HAVE_LIBDEFLATE)
	/* libdeflate first (about twice as fast as zlib): a stream it inflates to exactly `size` bytes
	 * is one zlib inflates the same way to its end; any other goes to zlib, for git's words */
	if (!scratch && u->ld == NULL) {
		u->ld = libdeflate_alloc_decompressor();
	}
	if (!scratch && u->ld != NULL) {
		size_t in_used = 0, out_used = 0;
		if (libdeflate_zlib_decompress_ex(u->ld, u->pack + at, (size_t)in_left, buf, (size_t)size,
		                                  &in_used, &out_used) == LIBDEFLATE_SUCCESS &&
		    out_used == size) {
			return buf;
		}
	}
#endif
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK) { /* it fails only for memory (or a zlib of another version) */
		free(buf);
		u->nomem = true;
		return NULL;
	}
	z.next_in = (Bytef *)(uintptr_t)(u->pack + at);
	z.avail_in = in_left > UINT32_MAX ? UINT32_MAX : (uInt)in_left;
	z.next_out = scratch ? small : buf;
	z.avail_out = scratch ? (uInt)sizeof(small) : (uInt)size + 1;
	int st = inflate(&z, Z_FINISH);
	while (scratch && (st == Z_OK || st == Z_BUF_ERROR) && z.avail_out == 0 && z.total_out <= size) {
		z.next_out = small;
		z.avail_out = (uInt)sizeof(small);
		st = inflate(&z, Z_FINISH);
	}
	bool ok = false;
	if (st == Z_MEM_ERROR) {
		u->nomem = true;
	} else if (st != Z_OK && st != Z_STREAM_END && st != Z_BUF_ERROR) {
		gu_line(u, "error: inflate: %s (%s)", skg_zerr_name(st),
		        z.msg != NULL ? z.msg : "no message");
	} else if (scratch ? z.total_out > size : z.avail_out == 0) {
		/* the payload is larger than it should be */
	} else if (st != Z_STREAM_END) {
		(void)gu_use(u, u->pack_len); /* git reads on past the end of the pack: it dies */
	} else {
		ok = !scratch && z.total_out == size;
	}
	inflateEnd(&z);
	if (!ok) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* patch_delta: the result, or NULL after git's line (none for the size checks). */
static uint8_t *gu_patch(struct git_unpack *u, const uint8_t *base, uint64_t base_len, const uint8_t *delta,
                         uint64_t delta_len, uint64_t *out_len)
{
	if (delta_len < 4) {
		return NULL;
	}
	const uint8_t *d = delta, *top = delta + delta_len;
	uint64_t sizes[2];
	for (int k = 0; k < 2; k++) {
		unsigned shift = 0, c;
		sizes[k] = 0;
		do {
			c = *d++;
			if (shift < 64) {
				sizes[k] |= (uint64_t)(c & 0x7f) << shift;
			}
			shift += 7;
		} while ((c & 0x80) && d < top);
	}
	if (sizes[0] != base_len) {
		return NULL;
	}
	/* each instruction byte gives at most the base's length (a copy) or 127 bytes: a longer
	 * result cannot be built, and git's replay of it goes wild */
	uint64_t per = base_len > 127 ? base_len : 127;
	if (sizes[1] >= SIZE_MAX || sizes[1] / per > delta_len) {
		gu_line(u, "error: delta replay has gone wild");
		return NULL;
	}
	uint8_t *out = malloc(sizes[1] > 0 ? (size_t)sizes[1] : 1);
	if (out == NULL) {
		u->nomem = true;
		return NULL;
	}
	const char *why = skg_pk_apply_delta(base, base_len, d, top, out, sizes[1]);
	if (why != NULL) {
		gu_line(u, "error: %s",
		        strcmp(why, "delta uses the reserved instruction 0") == 0
		            ? "unexpected delta opcode 0"
		            : "delta replay has gone wild");
		free(out);
		return NULL;
	}
	*out_len = sizes[1];
	return out;
}

void skg_pk_no_line(void *ctx, const char *text)
{
	(void)ctx;
	(void)text;
}

int skg_pk_git_entry_header(const uint8_t *pack, uint64_t pack_len, unsigned rawsz, uint64_t offset,
                            uint64_t *size)
{
	struct git_unpack u = {pack, pack_len, rawsz, 0, "", skg_pk_no_line, NULL, false, false, NULL};
	if (pack_len < 12 + rawsz) {
		return -1;
	}
	uint64_t at = offset;
	return gu_header(&u, &at, size);
}

int skg_pk_git_stream_blob(const uint8_t *pack, uint64_t pack_len, unsigned rawsz, uint64_t offset,
                           const uint8_t *id, const char *pack_name,
                           void (*line)(void *ctx, const char *text), void *ctx)
{
	struct git_unpack u = {pack, pack_len, rawsz, 0, pack_name, line, ctx, false, false, NULL};
	uint64_t at = offset, size;
	if (pack_len < 12 + rawsz) {
		return -1;
	}
	if (gu_header(&u, &at, &size) != SKG_PK_BLOB) {
		return u.died ? -2 : 1;
	}
	/* stream_object_signature: "blob SIZE\0" and what the stream inflates to, 16 KiB a read */
	struct skg_object_hasher h;
	skg_object_hash_begin_as(&h, rawsz == 32 ? SKG_FORMAT_SHA256 : SKG_FORMAT_SHA1, "blob", size);
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK) {
		return -3;
	}
	uint8_t buf[16384];
	int rc = 2;
	for (;;) {
		/* use_pack: git dies where the stream wants input past the last byte before the
		 * trailer; a window gives it what is left of the file */
		if (!gu_use(&u, at)) {
			rc = -2;
			break;
		}
		uint64_t left = pack_len - at;
		z.next_in = (Bytef *)(uintptr_t)(pack + at);
		z.avail_in = left > UINT32_MAX ? UINT32_MAX : (uInt)left;
		z.next_out = buf;
		z.avail_out = (uInt)sizeof(buf);
		int st = inflate(&z, Z_FINISH);
		at += (uint64_t)(z.next_in - (pack + at));
		skg_object_hash_update(&h, buf, sizeof(buf) - z.avail_out);
		if (st == Z_STREAM_END) {
			uint8_t got[SKG_MAX_RAWSZ];
			rc = skg_object_hash_final_as(&h, got, NULL) == 0 && memcmp(got, id, rawsz) == 0 ? 0
			                                                                                 : 1;
			break;
		}
		if (st == Z_MEM_ERROR) {
			rc = -3;
			break;
		}
		if (st != Z_OK && st != Z_BUF_ERROR) {
			gu_line(&u, "error: inflate: %s (%s)", skg_zerr_name(st),
			        z.msg != NULL ? z.msg : "no message");
			break;
		}
		if (st == Z_BUF_ERROR && z.avail_out > 0 && z.avail_in > 0) {
			break; /* no progress possible (zlib wants nothing more of this input) */
		}
	}
	inflateEnd(&z);
	return rc;
}

int skg_pk_git_info_type(const uint8_t *pack, uint64_t pack_len, const uint8_t *idx, size_t idx_len,
                         unsigned rawsz, uint64_t offset, const char *pack_name,
                         void (*line)(void *ctx, const char *text), void *ctx)
{
	struct git_unpack u = {pack, pack_len, rawsz, 0, pack_name, line, ctx, false, false, NULL};
	if (pack_len < 12 + rawsz) {
		return -1;
	}
	uint64_t at = offset, obj_offset = offset, size, steps = 0;
	const uint64_t limit = skg_pk_idx_count(idx, idx_len) + 1;
	int t = gu_header(&u, &at, &size);
	while (!u.died && (t == SKG_PK_OFS_DELTA || t == SKG_PK_REF_DELTA)) {
		uint64_t base = gu_base(&u, idx, idx_len, &at, t, obj_offset);
		if (base == 0 || ++steps > limit) {
			return -1; /* unwind: retry_bad_packed_offset finds no other copy here */
		}
		at = obj_offset = base;
		t = gu_header(&u, &at, &size);
		if (t <= 0) {
			return u.died ? -2 : -1; /* the base's header: retried, unwound */
		}
	}
	if (u.died) {
		return -2;
	}
	if (t < 0 || (t >= 1 && t <= 4)) {
		return t;
	}
	gu_line(&u, "error: unknown object type %d at offset %" PRIu64 " in %s", t, obj_offset, pack_name);
	return -1;
}

int skg_pk_git_unpack(const uint8_t *pack, uint64_t pack_len, const uint8_t *idx, size_t idx_len,
                      unsigned rawsz, uint64_t offset, bool header_first, uint64_t alloc_limit,
                      const struct skg_pk_base_cache *cache, const char *pack_name,
                      bool (*base_id)(void *ctx, uint64_t offset, uint8_t *id),
                      void (*line)(void *ctx, const char *text),
                      int (*other_base)(void *ctx, const uint8_t *id, unsigned *type, uint8_t **data,
                                        uint64_t *len),
                      void *ctx, unsigned *type, uint8_t **out, uint64_t *out_len)
{
	struct git_unpack u = {pack, pack_len, rawsz, alloc_limit, pack_name, line, ctx, false, false, NULL};
	struct step {
		uint64_t obj_offset, curpos, size;
	} *stack = NULL;
	size_t n = 0, cap = 0, limit = (size_t)skg_pk_idx_count(idx, idx_len) + 1;
	uint8_t *data = NULL;
	uint64_t size = 0, curpos = offset, obj_offset = offset;
	int t;
	if (pack_len < 12 + rawsz) {
		return -1;
	}
	if (header_first) {
		uint64_t at = offset, sz;
		(void)gu_header(&u, &at, &sz); /* verify_packfile's look at the type */
		if (u.died) {
			return -2;
		}
	}
	/* phase 1: down to the innermost base, or to a base the cache holds (git looks there first at
	 * each step, the object's own entry too) */
	bool from_cache = false;
	for (;;) {
		unsigned ct;
		if (cache != NULL && cache->get(cache->ctx, curpos, &ct, &data, &size)) {
			t = (int)ct;
			from_cache = true;
			break;
		}
		t = gu_header(&u, &curpos, &size);
		if (u.died) {
			goto out;
		}
		if (t != SKG_PK_OFS_DELTA && t != SKG_PK_REF_DELTA) {
			break;
		}
		uint64_t base = gu_base(&u, idx, idx_len, &curpos, t, obj_offset);
		if (base == 0) {
			gu_line(&u,
			        "error: failed to validate delta base reference at offset %" PRIu64
			        " from %s",
			        curpos, pack_name);
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			struct step *v = realloc(stack, cap * sizeof(*v));
			if (v == NULL || n >= limit) { /* out of memory, or a loop git would not leave */
				free(v == NULL ? stack : v);
				return v == NULL ? -3 : -1;
			}
			stack = v;
		}
		stack[n++] = (struct step){obj_offset, curpos, size};
		curpos = obj_offset = base;
	}
	/* phase 2: the base */
	if (from_cache) {
		/* (read whole before) */
	} else if (t >= 1 && t <= 4) {
		data = gu_inflate(&u, curpos, size);
		if (u.died || u.nomem) {
			goto out;
		}
	} else if (t != SKG_PK_OFS_DELTA && t != SKG_PK_REF_DELTA) {
		gu_line(&u, "error: unknown object type %d at offset %" PRIu64 " in %s", t, obj_offset,
		        pack_name);
	}
	/* phase 3: the deltas, innermost first */
	while (n > 0) {
		uint8_t *base = data;
		uint64_t base_size = size, base_offset = obj_offset;
		bool external = false;
		data = NULL;
		if (base == NULL) {
			uint8_t id[SKG_MAX_RAWSZ];
			char h[2 * SKG_MAX_RAWSZ + 1];
			if (base_id(ctx, obj_offset, id)) {
				skg_to_hex_len(id, rawsz, h);
				gu_line(&u,
				        "error: failed to read delta base object %s at offset %" PRIu64
				        " from %s",
				        h, obj_offset, pack_name);
				/* git marks the base bad here and reads it from another copy */
				unsigned other_type = t >= 1 && t <= 4 ? (unsigned)t : 0;
				int got = other_base != NULL
				              ? other_base(ctx, id, &other_type, &base, &base_size)
				              : 0;
				if (got == -2) {
					u.died = true;
					goto out;
				}
				if (got == -3) {
					u.nomem = true;
					goto out;
				}
				if (got == 1) {
					t = (int)other_type; /* the object's type: its base's */
					external = true;
				} else {
					base = NULL;
				}
			} else {
				gu_line(&u, "error: bad offset for revindex");
			}
		}
		struct step st = stack[--n];
		obj_offset = st.obj_offset;
		if (base == NULL) {
			continue;
		}
		uint8_t *delta = gu_inflate(&u, st.curpos, st.size);
		if (u.died || u.nomem) {
			free(base);
			goto out;
		}
		if (delta == NULL) {
			gu_line(&u, "error: failed to unpack compressed delta at offset %" PRIu64 " from %s",
			        st.curpos, pack_name);
		} else {
			data = gu_patch(&u, base, base_size, delta, st.size, &size);
			if (data == NULL && !u.nomem) {
				gu_line(&u, "error: failed to apply delta");
			}
		}
		if (cache != NULL && !external) {
			/* offered to the cache as git adds it (a copy from elsewhere is not) */
			cache->put(cache->ctx, base_offset, (unsigned)t, base, base_size);
		}
		free(delta);
		free(base);
		if (u.nomem) {
			goto out;
		}
	}
out:
	free(stack);
#if defined(SK_HAVE_LIBDEFLATE)
	libdeflate_free_decompressor(u.ld);
#endif
	if (u.nomem) {
		free(data);
		return -3;
	}
	if (u.died) {
		free(data);
		return -2;
	}
	if (data == NULL) {
		return -1;
	}
	*type = (unsigned)t;
	*out = data;
	*out_len = size;
	return 0;
}
