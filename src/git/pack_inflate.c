/*
 * pack_inflate.c - inflating a pack entry's zlib stream to exactly the size its header gives (zlib,
 * and libdeflate where the whole output fits one buffer), with the reason of a failure.
 *
 * Written from Git's format documentation (Documentation/gitformat-pack.txt) and by comparing
 * results with `git index-pack` and `git verify-pack` (Git 2.39); no code was taken from Git.
 */
#include "pack_internal.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

bool skg_pk_inflater_init(struct skg_pk_inflater *f)
{
	memset(f, 0, sizeof(*f));
	if (inflateInit(&f->zs) != Z_OK) {
		return false;
	}
#if defined(SK_HAVE_LIBDEFLATE)
	f->ld = libdeflate_alloc_decompressor();
#endif
	f->ready = true;
	return true;
}

void skg_pk_inflater_end(struct skg_pk_inflater *f)
{
	if (f->ready) {
		inflateEnd(&f->zs);
#if defined(SK_HAVE_LIBDEFLATE)
		libdeflate_free_decompressor(f->ld);
		f->ld = NULL;
#endif
		f->ready = false;
	}
}

#define ZCAP ((uint64_t)1 << 30) /* largest slice handed to zlib's 32-bit counters at once */

/*
 * Inflate the zlib stream starting at in[0], of which `avail` bytes may be read, expecting exactly
 * `size` bytes of output. Output goes to `out` (size bytes) or, when out is NULL, through `sink` in
 * pieces of at most chunk_len bytes staged in `chunk`. *consumed gets the length of the stream.
 */
enum skg_pk_inf_status skg_pk_inflate_exact(struct skg_pk_inflater *f, const uint8_t *in, uint64_t avail,
                                            uint8_t *out, uint64_t size, skg_pk_inflate_sink sink,
                                            void *sink_ctx, uint8_t *chunk, size_t chunk_len,
                                            uint64_t *consumed)
{
	z_stream *zs = &f->zs;
	uint64_t in_left = avail;
	uint64_t produced = 0;
	uint8_t extra;

	f->zmsg = NULL;
#if defined(SK_HAVE_LIBDEFLATE)
	/* When the whole output fits a buffer, libdeflate inflates it in one call (about twice as fast
	 * as zlib). A stream it does not take exactly (corrupt, truncated, or not `size` bytes) goes to
	 * zlib below, which gives the diagnosis; the sink is called only on success. */
	if (f->ld != NULL && (out != NULL || size <= chunk_len)) {
		size_t in_used = 0, out_used = 0;
		uint8_t *o = out != NULL ? out : chunk;
		size_t in_len = avail > SIZE_MAX ? SIZE_MAX : (size_t)avail;
		if (libdeflate_zlib_decompress_ex(f->ld, in, in_len, o, (size_t)size, &in_used, &out_used) ==
		        LIBDEFLATE_SUCCESS &&
		    out_used == size) {
			if (out == NULL && size > 0) {
				sink(sink_ctx, chunk, (size_t)size);
			}
			f->produced = size;
			*consumed = in_used;
			return SKG_PK_INF_OK;
		}
	}
#endif
	inflateReset(zs);
	zs->next_in = (Bytef *)(uintptr_t)in; /* zlib does not write through next_in */
	zs->avail_in = (uInt)(in_left > ZCAP ? ZCAP : in_left);
	in_left -= zs->avail_in;
	for (;;) {
		uint64_t want = size - produced;
		uint8_t *o;
		uInt olen;
		bool overflow_probe = false;
		if (want == 0) {
			/* Room for one byte more than announced: the rest of the stream (end of block,
			 * Adler-32) must then produce nothing. */
			o = &extra;
			olen = 1;
			overflow_probe = true;
		} else if (out != NULL) {
			o = out + produced;
			olen = (uInt)(want > ZCAP ? ZCAP : want);
		} else {
			o = chunk;
			olen = (uInt)(want > chunk_len ? chunk_len : want);
		}
		zs->next_out = o;
		zs->avail_out = olen;
		int ret = inflate(zs, Z_NO_FLUSH);
		size_t got = olen - zs->avail_out;
		if (overflow_probe && got > 0) {
			f->produced = produced + got;
			return SKG_PK_INF_TOO_LONG;
		}
		if (out == NULL && got > 0) {
			sink(sink_ctx, chunk, got);
		}
		produced += got;
		bool refilled = false;
		if (zs->avail_in == 0 && in_left > 0) {
			zs->avail_in = (uInt)(in_left > ZCAP ? ZCAP : in_left);
			in_left -= zs->avail_in;
			refilled = true;
		}
		if (ret == Z_STREAM_END) {
			break;
		}
		if (ret == Z_OK) {
			continue;
		}
		if (ret == Z_BUF_ERROR) {
			if (refilled) {
				continue;
			}
			if (zs->avail_in == 0) {
				f->produced = produced;
				return SKG_PK_INF_TRUNCATED;
			}
			f->zmsg = "no progress";
			return SKG_PK_INF_CORRUPT;
		}
		if (ret == Z_MEM_ERROR) {
			return SKG_PK_INF_NOMEM;
		}
		f->zmsg = ret == Z_NEED_DICT ? "stream needs a preset dictionary" : zs->msg;
		return SKG_PK_INF_CORRUPT;
	}
	f->produced = produced;
	if (produced != size) {
		return SKG_PK_INF_TOO_SHORT;
	}
	*consumed = avail - in_left - zs->avail_in;
	return SKG_PK_INF_OK;
}

/* Describe a failed skg_pk_inflate_exact in `err`. */
void skg_pk_inflate_error(struct skg_pk_error *err, const struct skg_pk_inflater *f,
                          enum skg_pk_inf_status st, uint64_t offset, uint64_t size, const char *what)
{
	switch (st) {
	case SKG_PK_INF_TRUNCATED:
		skg_pk_set_error(err, true, offset,
		                 "pack is truncated: the zlib stream of the %s ends past the pack data",
		                 what);
		break;
	case SKG_PK_INF_CORRUPT:
		skg_pk_set_error(err, true, offset, "corrupt zlib stream in the %s%s%s", what,
		                 f->zmsg ? ": " : "", f->zmsg ? f->zmsg : "");
		break;
	case SKG_PK_INF_TOO_LONG:
		skg_pk_set_error(err, true, offset,
		                 "the %s inflates to more than the %" PRIu64 " bytes its header gives", what,
		                 size);
		break;
	case SKG_PK_INF_TOO_SHORT:
		skg_pk_set_error(err, true, offset,
		                 "the %s inflates to %" PRIu64 " bytes, its header gives %" PRIu64, what,
		                 f->produced, size);
		break;
	case SKG_PK_INF_NOMEM:
		skg_pk_set_failure(err, SKG_E_NOMEM, true, offset, "out of memory while inflating the %s",
		                   what);
		break;
	case SKG_PK_INF_OK:
		break;
	}
}
