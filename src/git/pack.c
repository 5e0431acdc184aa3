/*
 * pack.c - Git pack parsing, delta resolution, object IDs and idx files (see pack.h).
 *
 * Written from Git's format documentation (Documentation/gitformat-pack.txt) and by comparing
 * results with `git index-pack` and `git verify-pack` (Git 2.39); no code was taken from Git.
 *
 * Pass 1 walks the entries in order: it decodes each header, inflates the zlib stream (the pack
 * gives only the inflated size, so inflating to Z_STREAM_END is what tells where the entry ends),
 * computes the CRC-32 of the stored entry, hashes whole objects with SHA-1DC (in batches, see
 * struct hbatch), copies the base IDs of REF_DELTA entries into a compact table, and hashes the
 * pack itself with the fast SHA-1 for the trailer check. The pages it has read are let go as it
 * goes (skg_pk_options.release).
 *
 * Pass 2 resolves deltas: each whole object that serves as a base is the root of a tree of deltas
 * (OFS_DELTA children found by offset, REF_DELTA children by object ID, in the compact table, once
 * the base's ID is known). Worker threads take roots from a shared counter. Each keeps a stack of
 * nodes, bases whose ID is known and whose children are still to be built, and expands the top
 * one: builds its children from its data, which is then freed. The IDs of the objects built are
 * computed in batches (sha1kit_dc_batch), each object's buffer holding its Git header just before
 * its content; once a batch is hashed, the objects with children become nodes, the others are
 * freed. The wait for a batch is what lets a base's children be known only later: a thread
 * takes a new root rather than hash a batch that is not full, and while its nodes hold more than
 * its share of P2_HOLD (or for an object too large to batch) it hashes at once and goes depth
 * first. Node data over the thread's share of the cache limit is dropped, from the bottom of the
 * stack (the nodes expanded last) up, and rebuilt from the pack when needed (the whole ancestor
 * inflated, then the deltas down to the node applied in turn). With skg_pk_options.read set, entries
 * are read through it (pread) rather than from the mapping, so that no pack pages pile up.
 *
 * The idx is written in pieces straight from the table sorted by object ID (skg_pk_idx_write).
 */
#include "pack.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#if defined(SK_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

#include "object.h"
#include "sha1kit.h"

/* ------------------------------------------------------------------------------------------------ */
/* Small helpers                                                                                    */
/* ------------------------------------------------------------------------------------------------ */

static void set_error_v(struct skg_pk_error *err, enum skg_errc code, bool has_offset, uint64_t offset,
                        const char *fmt, va_list ap)
{
	err->code = code;
	err->has_offset = has_offset;
	err->offset = offset;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

/* A malformed pack (SKG_E_CORRUPT). */
static void set_error(struct skg_pk_error *err, bool has_offset, uint64_t offset, const char *fmt, ...)
    SKG_PRINTF(4, 5);

static void set_error(struct skg_pk_error *err, bool has_offset, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_error_v(err, SKG_E_CORRUPT, has_offset, offset, fmt, ap);
	va_end(ap);
}

/* A failure of the machine (SKG_E_NOMEM, SKG_E_THREAD). */
static void set_failure(struct skg_pk_error *err, enum skg_errc code, bool has_offset, uint64_t offset,
                        const char *fmt, ...) SKG_PRINTF(5, 6);

static void set_failure(struct skg_pk_error *err, enum skg_errc code, bool has_offset, uint64_t offset,
                        const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_error_v(err, code, has_offset, offset, fmt, ap);
	va_end(ap);
}

/* The object callback asked to stop (its owner keeps the reason). */
static void stopped_error(struct skg_pk_error *err, uint64_t offset)
{
	set_failure(err, SKG_E_GIT, true, offset, "stopped by the object callback");
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void to_hex(const uint8_t *id, char out[2 * SKG_RAWSZ + 1])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < SKG_RAWSZ; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * SKG_RAWSZ] = '\0';
}

const char *skg_pk_type_name(unsigned type)
{
	switch (type) {
	case SKG_PK_COMMIT:
		return "commit";
	case SKG_PK_TREE:
		return "tree";
	case SKG_PK_BLOB:
		return "blob";
	case SKG_PK_TAG:
		return "tag";
	case SKG_PK_OFS_DELTA:
		return "ofs-delta";
	case SKG_PK_REF_DELTA:
		return "ref-delta";
	default:
		return "unknown";
	}
}

void skg_pk_options_default(struct skg_pk_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->threads = 1;
	opt->cache_limit = (uint64_t)96 << 20;
}

/* CRC-32 (zlib's; libdeflate computes the same, faster) of any length, from crc == 0. */
static uint32_t crc32_any(uint32_t crc, const uint8_t *p, uint64_t n)
{
	while (n > 0) {
		size_t step = n > ((size_t)1 << 30) ? ((size_t)1 << 30) : (size_t)n;
#if defined(SK_HAVE_LIBDEFLATE)
		crc = libdeflate_crc32(crc, p, step);
#else
		crc = (uint32_t)crc32_z(crc, p, step);
#endif
		p += step;
		n -= step;
	}
	return crc;
}

/* Longest object header: "unknown " (the longest type name), 20 digits, the NUL. */
#define HEADER_MAX 29

/* Object header "<type> <size>\0" for the object ID into buf (HEADER_MAX bytes at least); returns
 * its length (NUL included). */
static size_t object_header(char *buf, unsigned type, uint64_t size)
{
	const char *name = skg_pk_type_name(type);
	size_t n = strlen(name);
	char digits[20];
	size_t k = 0;
	do {
		digits[k++] = (char)('0' + size % 10);
		size /= 10;
	} while (size != 0);
	memcpy(buf, name, n);
	buf[n++] = ' ';
	while (k > 0) {
		buf[n++] = digits[--k];
	}
	buf[n++] = '\0';
	return n;
}

/* ------------------------------------------------------------------------------------------------ */
/* Inflate (zlib)                                                                                   */
/* ------------------------------------------------------------------------------------------------ */

enum inf_status { INF_OK = 0, INF_TRUNCATED, INF_CORRUPT, INF_TOO_LONG, INF_TOO_SHORT, INF_NOMEM };

struct inflater {
	z_stream zs;
#if defined(SK_HAVE_LIBDEFLATE)
	struct libdeflate_decompressor *ld; /* NULL: zlib only */
#endif
	bool ready;
	const char *zmsg; /* zlib's message for INF_CORRUPT, if any */
	uint64_t produced;
};

static bool inflater_init(struct inflater *f)
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

static void inflater_end(struct inflater *f)
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

typedef void (*inflate_sink)(void *ctx, const uint8_t *p, size_t n);

#define ZCAP ((uint64_t)1 << 30) /* largest slice handed to zlib's 32-bit counters at once */

/*
 * Inflate the zlib stream starting at in[0], of which `avail` bytes may be read, expecting exactly
 * `size` bytes of output. Output goes to `out` (size bytes) or, when out is NULL, through `sink` in
 * pieces of at most chunk_len bytes staged in `chunk`. *consumed gets the length of the stream.
 */
static enum inf_status inflate_exact(struct inflater *f, const uint8_t *in, uint64_t avail, uint8_t *out,
                                     uint64_t size, inflate_sink sink, void *sink_ctx, uint8_t *chunk,
                                     size_t chunk_len, uint64_t *consumed)
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
			return INF_OK;
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
			return INF_TOO_LONG;
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
				return INF_TRUNCATED;
			}
			f->zmsg = "no progress";
			return INF_CORRUPT;
		}
		if (ret == Z_MEM_ERROR) {
			return INF_NOMEM;
		}
		f->zmsg = ret == Z_NEED_DICT ? "stream needs a preset dictionary" : zs->msg;
		return INF_CORRUPT;
	}
	f->produced = produced;
	if (produced != size) {
		return INF_TOO_SHORT;
	}
	*consumed = avail - in_left - zs->avail_in;
	return INF_OK;
}

/* Describe a failed inflate_exact in `err`. */
static void inflate_error(struct skg_pk_error *err, const struct inflater *f, enum inf_status st,
                          uint64_t offset, uint64_t size, const char *what)
{
	switch (st) {
	case INF_TRUNCATED:
		set_error(err, true, offset,
		          "pack is truncated: the zlib stream of the %s ends past the pack data", what);
		break;
	case INF_CORRUPT:
		set_error(err, true, offset, "corrupt zlib stream in the %s%s%s", what, f->zmsg ? ": " : "",
		          f->zmsg ? f->zmsg : "");
		break;
	case INF_TOO_LONG:
		set_error(err, true, offset,
		          "the %s inflates to more than the %" PRIu64 " bytes its header gives", what, size);
		break;
	case INF_TOO_SHORT:
		set_error(err, true, offset,
		          "the %s inflates to %" PRIu64 " bytes, its header gives %" PRIu64, what,
		          f->produced, size);
		break;
	case INF_NOMEM:
		set_failure(err, SKG_E_NOMEM, true, offset, "out of memory while inflating the %s", what);
		break;
	case INF_OK:
		break;
	}
}

/* ------------------------------------------------------------------------------------------------ */
/* Pass 1: walk the entries                                                                         */
/* ------------------------------------------------------------------------------------------------ */

#define CHUNK_LEN (64 * 1024)

static void dc_sink(void *ctx, const uint8_t *p, size_t n)
{
	sha1kit_dc_update(ctx, p, n);
}

struct grow {
	uint8_t *p;
	size_t len, cap;
	bool failed;
};

static void grow_sink(void *ctx, const uint8_t *p, size_t n)
{
	struct grow *g = ctx;
	if (g->failed) {
		return;
	}
	if (n > g->cap - g->len) {
		size_t ncap = g->cap ? g->cap : 4096;
		while (ncap - g->len < n) {
			if (ncap > SIZE_MAX / 2) {
				g->failed = true;
				return;
			}
			ncap *= 2;
		}
		uint8_t *np = realloc(g->p, ncap);
		if (np == NULL) {
			g->failed = true;
			return;
		}
		g->p = np;
		g->cap = ncap;
	}
	memcpy(g->p + g->len, p, n);
	g->len += n;
}

static void null_sink(void *ctx, const uint8_t *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
}

static void collision_error(struct skg_pk_error *err, uint64_t offset)
{
	set_failure(err, SKG_E_COLLISION, true, offset,
	            "collision attack detected in object at offset %" PRIu64, offset);
}

/* Finish a SHA-1DC object ID; false (and `err` set) when a collision attack was detected. */
static bool finish_id(sha1kit_dc_ctx *dc, uint8_t id[SKG_RAWSZ], uint64_t offset, struct skg_pk_error *err)
{
	if (sha1kit_dc_final(dc, id, NULL) == SHA1KIT_DC_COLLISION) {
		collision_error(err, offset);
		return false;
	}
	return true;
}

/*
 * Object IDs computed many at a time (sha1kit_dc_batch, which hashes 16 or 8 objects at once where
 * the CPU allows): each queued object is its Git header and content, inflated into an arena; the
 * IDs land in objs[].id when the queue is flushed. Used for whole objects in pass 1 (pass 2 queues
 * the buffers its objects are built in: struct pending). Larger objects are hashed one at a time.
 */
#define HB_ARENA   ((size_t)4 << 20) /* bytes of queued objects */
#define HB_MSGS    256               /* queued objects */
#define HB_MAX_OBJ ((size_t)256 << 10)

struct hbatch {
	uint8_t *arena; /* NULL: batching off (allocation failed), objects are hashed one by one */
	size_t used, n;
	sha1kit_msg msgs[HB_MSGS];
	uint32_t obj[HB_MSGS];
	uint8_t digests[HB_MSGS * SKG_RAWSZ];
	sha1kit_dc_detection where[HB_MSGS];
	const struct skg_pk_options *opt;
};

static struct hbatch *hb_new(const struct skg_pk_options *opt)
{
	struct hbatch *hb = calloc(1, sizeof(*hb));
	if (hb != NULL) {
		hb->opt = opt;
		hb->arena = malloc(HB_ARENA);
	}
	return hb;
}

static void hb_free(struct hbatch *hb)
{
	if (hb != NULL) {
		free(hb->arena);
		free(hb);
	}
}

/* The IDs of objects obj[0..n), whose headers and contents are msgs[0..n), into objs[].id, with
 * sha1kit_dc_batch (digests and where: room for n results); false (and `err` set) on a collision
 * attack, reported for the first flagged object in pack order. */
static bool batch_ids(const sha1kit_msg *msgs, const uint32_t *obj, size_t n, uint8_t *digests,
                      sha1kit_dc_detection *where, struct skg_pk_object *objs,
                      const struct skg_pk_options *opt, struct skg_pk_error *err)
{
	size_t first = n;
	if (n == 0) {
		return true;
	}
	if (sha1kit_dc_batch(msgs, n, NULL, digests, where) == SHA1KIT_DC_COLLISION) {
		for (size_t i = 0; i < n; i++) {
			if (where[i].dv >= 0 &&
			    (first == n || objs[obj[i]].offset < objs[obj[first]].offset)) {
				first = i;
			}
		}
		collision_error(err, objs[obj[first]].offset);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(objs[obj[i]].id, digests + SKG_RAWSZ * i, SKG_RAWSZ);
	}
	if (opt->object != NULL) {
		for (size_t i = 0; i < n; i++) {
			/* each message is the header "<type> <size>\0" and then the content */
			const uint8_t *m = msgs[i].data, *nul = memchr(m, 0, msgs[i].len);
			size_t hl = (size_t)(nul - m) + 1;
			if (opt->object(opt->object_ctx, obj[i], objs[obj[i]].real_type, m + hl,
			                msgs[i].len - hl) != 0) {
				stopped_error(err, objs[obj[i]].offset);
				return false;
			}
		}
	}
	return true;
}

/* Hash the queued objects into objs[].id (see batch_ids). */
static bool hb_flush(struct hbatch *hb, struct skg_pk_object *objs, struct skg_pk_error *err)
{
	size_t n = hb->n;
	hb->n = 0;
	hb->used = 0;
	return batch_ids(hb->msgs, hb->obj, n, hb->digests, hb->where, objs, hb->opt, err);
}

/* Room for an object of `len` bytes of content with its header (flushing first if needed): where
 * the content goes, after the header written there; NULL when the object is not batched. */
static uint8_t *hb_room(struct hbatch *hb, struct skg_pk_object *objs, unsigned type, uint64_t len, bool *ok,
                        struct skg_pk_error *err)
{
	char hdr[HEADER_MAX];
	size_t hl;
	*ok = true;
	if (hb == NULL || hb->arena == NULL || len > HB_MAX_OBJ) {
		return NULL;
	}
	hl = object_header(hdr, type, len);
	if (hb->n == HB_MSGS || HB_ARENA - hb->used < hl + len) {
		if (!hb_flush(hb, objs, err)) {
			*ok = false;
			return NULL;
		}
	}
	memcpy(hb->arena + hb->used, hdr, hl);
	hb->msgs[hb->n].data = hb->arena + hb->used;
	hb->msgs[hb->n].len = hl + (size_t)len;
	return hb->arena + hb->used + hl;
}

/* Queue the object whose room hb_room gave (its content now written) as object `obj`. */
static void hb_commit(struct hbatch *hb, uint32_t obj)
{
	hb->obj[hb->n] = obj;
	hb->used += hb->msgs[hb->n].len;
	hb->n++;
}

/* Pass 1 inflates entries of CHUNK_LEN .. SCRATCH_MAX bytes that are not batched into one buffer
 * (with libdeflate, in one call); larger ones go through zlib in pieces. */
#if defined(SK_HAVE_LIBDEFLATE)
#define SCRATCH_MAX ((uint64_t)4 << 20)
#else
#define SCRATCH_MAX ((uint64_t)0) /* zlib only: in pieces */
#endif

/* Make g->p hold at least n bytes (n <= SCRATCH_MAX); false when it cannot (then unchanged). */
static bool scratch_fit(struct grow *g, uint64_t n)
{
	if (n <= g->cap) {
		return true;
	}
	uint8_t *p = realloc(g->p, (size_t)n);
	if (p == NULL) {
		return false;
	}
	g->p = p;
	g->cap = (size_t)n;
	return true;
}

/* The header of the entry at `pos` (gitformat-pack(5), "Object entries"). */
struct entry_hdr {
	unsigned type;          /* 1..4, 6, 7 */
	uint64_t size;          /* inflated size of the entry's data */
	uint64_t base_offset;   /* OFS_DELTA: the base entry's offset (below pos) */
	const uint8_t *base_id; /* REF_DELTA: the base's ID, in the pack */
	unsigned len;           /* bytes of header and base reference */
	char why[80];           /* the error, when entry_header returns non-NULL */
};

/*
 * Parse the entry header at data[pos], reading nothing at or past `end`: type and size
 * (little-endian base-128 with 4 bits in the first byte), then an OFS_DELTA's negative offset
 * (big-endian base-128, 1 added per continuation byte) or a REF_DELTA's base ID. Returns NULL, or
 * h->why (the error).
 */
static const char *entry_header(const uint8_t *data, uint64_t end, uint64_t pos, struct entry_hdr *h)
{
	uint64_t p = pos;
	memset(h, 0, sizeof(*h));
	if (p >= end) {
		snprintf(h->why, sizeof(h->why), "pack is truncated inside an object header");
		return h->why;
	}
	unsigned c = data[p++];
	h->type = (c >> 4) & 7;
	h->size = c & 15;
	unsigned shift = 4;
	while (c & 0x80) {
		if (p >= end) {
			snprintf(h->why, sizeof(h->why), "pack is truncated inside an object header");
			return h->why;
		}
		c = data[p++];
		if (shift > 63 || (shift > 57 && ((c & 0x7fu) >> (64 - shift)) != 0)) {
			snprintf(h->why, sizeof(h->why), "object size in the entry header overflows 64 bits");
			return h->why;
		}
		h->size |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	}
	if (h->type == 0 || h->type == 5) {
		snprintf(h->why, sizeof(h->why), "invalid object type %u", h->type);
		return h->why;
	}
	if (h->type == SKG_PK_OFS_DELTA) {
		if (p >= end) {
			snprintf(h->why, sizeof(h->why), "pack is truncated inside a delta base offset");
			return h->why;
		}
		c = data[p++];
		uint64_t rel = c & 0x7f;
		while (c & 0x80) {
			if (p >= end) {
				snprintf(h->why, sizeof(h->why),
				         "pack is truncated inside a delta base offset");
				return h->why;
			}
			if (rel >= (UINT64_MAX >> 7) - 1) {
				snprintf(h->why, sizeof(h->why), "delta base offset overflows");
				return h->why;
			}
			c = data[p++];
			rel = ((rel + 1) << 7) | (c & 0x7f);
		}
		if (rel == 0 || rel > pos) {
			snprintf(h->why, sizeof(h->why), "delta base offset %" PRIu64 " is out of bounds",
			         rel);
			return h->why;
		}
		h->base_offset = pos - rel;
	} else if (h->type == SKG_PK_REF_DELTA) {
		if (end - p < SKG_RAWSZ) {
			snprintf(h->why, sizeof(h->why), "pack is truncated inside a delta base name");
			return h->why;
		}
		h->base_id = data + p;
		p += SKG_RAWSZ;
	}
	h->len = (unsigned)(p - pos);
	return NULL;
}

/* Index of the object at `offset` among objs[0..n) (sorted by offset), or SKG_PK_NO_BASE. */
static uint32_t find_offset(const struct skg_pk_object *objs, uint32_t n, uint64_t offset)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (objs[mid].offset < offset) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < n && objs[lo].offset == offset ? lo : SKG_PK_NO_BASE;
}

/* A REF_DELTA entry: the ID of its base, copied from the pack in pass 1 (so that pass 2 finds the
 * children of a base in this compact table, never in the pack's pages), and the entry's index. */
struct ref_entry {
	uint8_t id[SKG_RAWSZ];
	uint32_t obj;
};

struct ref_table {
	struct ref_entry *e;
	uint32_t n, cap;
};

/* Pass 1 lets the pack pages it has read go (opt->release) every RELEASE_EVERY bytes. */
#define RELEASE_EVERY ((uint64_t)2 << 20)

static int pass1(struct skg_pk_pack *pack, const struct skg_pk_options *opt, struct inflater *inf,
                 struct ref_table *refs, struct skg_pk_error *err)
{
	const uint8_t *data = pack->data;
	const uint64_t end = pack->len - SKG_RAWSZ; /* objects end where the trailer starts */
	uint64_t pos = 12, hashed = 0, released = 0;
	uint32_t cap = 0;
	sha1kit_fast_ctx trailer;
	sha1kit_dc_ctx dc;
	uint8_t *chunk = malloc(CHUNK_LEN);
	struct grow full = {NULL, 0, 0, false};    /* a whole object for the object callback */
	struct grow scratch = {NULL, 0, 0, false}; /* an entry inflated whole (scratch_fit) */
	struct hbatch *hb = hb_new(opt);
	int rc = -1;

	if (chunk == NULL) {
		set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
		hb_free(hb);
		return -1;
	}
	sha1kit_fast_init(&trailer);
	sha1kit_dc_init(&dc, NULL); /* Git's settings: true digest, detection on */

	for (uint32_t i = 0; i < pack->nr; i++) {
		if (pos >= end) {
			set_error(err, true, pos,
			          "pack is truncated or its object count is wrong: object %" PRIu32
			          " of %" PRIu32 " would start at the trailer",
			          i + 1, pack->nr);
			goto out;
		}
		if (i == cap) {
			/* Grow as entries are found, so a false count cannot make us allocate much. */
			uint32_t ncap = cap < 1024 ? 1024 : (cap > pack->nr / 2 ? pack->nr : cap * 2);
			if (ncap > pack->nr) {
				ncap = pack->nr;
			}
			struct skg_pk_object *n = realloc(pack->objs, (size_t)ncap * sizeof(*n));
			if (n == NULL) {
				set_failure(err, SKG_E_NOMEM, false, 0, "out of memory (%" PRIu32 " objects)",
				            ncap);
				goto out;
			}
			pack->objs = n;
			cap = ncap;
		}
		struct skg_pk_object *o = &pack->objs[i];
		memset(o, 0, sizeof(*o));
		o->offset = pos;
		o->base = SKG_PK_NO_BASE;

		struct entry_hdr h;
		if (entry_header(data, end, pos, &h) != NULL) {
			set_error(err, true, pos, "%s", h.why);
			goto out;
		}
		unsigned type = h.type;
		uint64_t size = h.size;
		uint64_t p = pos + h.len;
		if (opt->max_object_size != 0 && size > opt->max_object_size) {
			set_error(err, true, pos, "object of %" PRIu64 " bytes is over the size limit", size);
			goto out;
		}
		o->type = (uint8_t)type;
		o->size = size;
		if (type == SKG_PK_OFS_DELTA) {
			o->base = find_offset(pack->objs, i, h.base_offset);
			if (o->base == SKG_PK_NO_BASE) {
				set_error(err, true, pos,
				          "delta base at offset %" PRIu64 " is not the start of an object",
				          h.base_offset);
				goto out;
			}
			pack->n_deltas++;
		} else if (type == SKG_PK_REF_DELTA) {
			if (refs->n == refs->cap) {
				/* grows with the entries found, as pack->objs */
				uint32_t ncap = refs->cap < 1024 ? 1024 : refs->cap;
				ncap = ncap > pack->nr / 2 ? pack->nr : ncap * 2;
				if (ncap > pack->nr) {
					ncap = pack->nr;
				}
				struct ref_entry *n = realloc(refs->e, (size_t)ncap * sizeof(*n));
				if (n == NULL) {
					set_failure(err, SKG_E_NOMEM, false, 0,
					            "out of memory (%" PRIu32 " deltas)", ncap);
					goto out;
				}
				refs->e = n;
				refs->cap = ncap;
			}
			memcpy(refs->e[refs->n].id, h.base_id, SKG_RAWSZ);
			refs->e[refs->n].obj = i;
			refs->n++;
			pack->n_deltas++;
		} else {
			o->real_type = (uint8_t)type;
		}
		o->hdr_len = (uint8_t)(p - pos); /* at most 10 + 20 bytes */

		/* The zlib stream. */
		uint64_t consumed = 0;
		enum inf_status st;
		bool whole = type != SKG_PK_OFS_DELTA && type != SKG_PK_REF_DELTA;
		bool in_full = false; /* inflated into `full` */
		uint8_t *room = NULL;
		/* With strict, no whole object is batched: the checks see them in pack order, as
		 * git's first pass checks each object before it reads the next. */
		if (whole && !opt->strict) {
			bool ok;
			room = hb_room(hb, pack->objs, type, size, &ok, err);
			if (!ok) {
				goto out;
			}
		}
		if (whole && room == NULL) {
			char hdr[HEADER_MAX];
			sha1kit_dc_update(&dc, hdr, object_header(hdr, type, size));
		}
		if (room != NULL) {
			/* inflated straight into the batch arena: exactly `size` bytes or an error */
			st = inflate_exact(inf, data + p, end - p, room, size, NULL, NULL, chunk, CHUNK_LEN,
			                   &consumed);
			if (st == INF_OK) {
				hb_commit(hb, i);
			}
		} else if (whole && opt->object != NULL &&
		           (type != SKG_PK_BLOB || (opt->whole_blobs && size <= SKG_PK_BIG_FILE_THRESHOLD))) {
			/* The whole object, for the object callback; the buffer grows with the data, so
			 * a false size cannot make us allocate much. */
			in_full = true;
			full.len = 0;
			st = inflate_exact(inf, data + p, end - p, NULL, size, grow_sink, &full, chunk,
			                   CHUNK_LEN, &consumed);
			if (full.failed) {
				set_failure(err, SKG_E_NOMEM, true, pos,
				            "out of memory (object of %" PRIu64 " bytes)", size);
				goto out;
			}
			if (st == INF_OK) {
				sha1kit_dc_update(&dc, full.p, full.len);
			}
		} else if (size > CHUNK_LEN && size <= SCRATCH_MAX && scratch_fit(&scratch, size)) {
			/* a delta or an object too large to batch, up to a few MiB: one libdeflate call
			 * into a buffer is faster than zlib in pieces */
			st = inflate_exact(inf, data + p, end - p, scratch.p, size, NULL, NULL, chunk,
			                   CHUNK_LEN, &consumed);
			if (st == INF_OK && whole) {
				sha1kit_dc_update(&dc, scratch.p, (size_t)size);
			}
		} else {
			st = inflate_exact(inf, data + p, end - p, NULL, size, whole ? dc_sink : null_sink,
			                   &dc, chunk, CHUNK_LEN, &consumed);
		}
		if (st != INF_OK) {
			inflate_error(err, inf, st, pos, size, "object");
			goto out;
		}
		if (whole && room == NULL && !finish_id(&dc, o->id, pos, err)) {
			goto out;
		}
		if (whole && room == NULL && opt->object != NULL) {
			/* in_order: the batched objects before it are handed out first */
			if (opt->in_order && hb != NULL && hb->n > 0 && !hb_flush(hb, pack->objs, err)) {
				goto out;
			}
			/* a blob not inflated whole was streamed or inflated into scratch: not passed on */
			if (opt->object(opt->object_ctx, i, type, in_full ? full.p : NULL,
			                in_full ? full.len : size) != 0) {
				stopped_error(err, pos);
				goto out;
			}
		}
		if (!whole) {
			sha1kit_dc_reset(&dc);
		}
		p += consumed;
		o->crc32 = crc32_any(0, data + pos, p - pos);
		pos = p;

		if (pos - hashed >= (1u << 20)) {
			sha1kit_fast_update(&trailer, data + hashed, (size_t)(pos - hashed));
			hashed = pos;
			if (opt->release != NULL && hashed - released >= RELEASE_EVERY) {
				opt->release(opt->release_ctx, hashed);
				released = hashed;
			}
		}
		if (opt->progress != NULL && (i & 1023) == 0) {
			opt->progress(opt->progress_ctx, SKG_PK_PHASE_INDEXING, i, pack->nr);
		}
	}
	if (pos != end) {
		set_error(err, true, pos,
		          "pack has %" PRIu64 " bytes of unexpected data after its %" PRIu32
		          " objects (wrong object count?)",
		          end - pos, pack->nr);
		goto out;
	}
	if (hb != NULL && !hb_flush(hb, pack->objs, err)) {
		goto out;
	}
	sha1kit_fast_update(&trailer, data + hashed, (size_t)(end - hashed));
	if (opt->release != NULL) {
		/* pass 2 reads the pack through opt->read, if at all: nothing of it need stay */
		opt->release(opt->release_ctx, pack->len);
	}
	uint8_t sum[SKG_RAWSZ];
	sha1kit_fast_final(&trailer, sum);
	if (memcmp(sum, data + end, SKG_RAWSZ) != 0) {
		char want[2 * SKG_RAWSZ + 1], got[2 * SKG_RAWSZ + 1];
		to_hex(sum, want);
		to_hex(data + end, got);
		set_error(err, true, end,
		          "pack trailer mismatch: the pack's SHA-1 is %s, its trailer says %s", want, got);
		goto out;
	}
	memcpy(pack->checksum, data + end, SKG_RAWSZ);
	if (opt->progress != NULL) {
		opt->progress(opt->progress_ctx, SKG_PK_PHASE_INDEXING, pack->nr, pack->nr);
	}
	rc = 0;
out:
	if (rc != 0 && opt->in_order && hb != NULL && hb->n > 0 && err->code == SKG_E_CORRUPT) {
		/* git's first pass stops at an object before the entry at fault (a collision, the
		 * object callback), which then wins */
		struct skg_pk_error e2;
		if (!hb_flush(hb, pack->objs, &e2)) {
			*err = e2;
		}
	}
	free(chunk);
	free(full.p);
	free(scratch.p);
	hb_free(hb);
	return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* Deltas                                                                                           */
/* ------------------------------------------------------------------------------------------------ */

/* Size field of a delta: little-endian base-128. */
static bool delta_size(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0, c;
	do {
		if (*p >= end) {
			return false;
		}
		c = *(*p)++;
		if (shift > 63 || (shift > 57 && ((c & 0x7fu) >> (64 - shift)) != 0)) {
			return false;
		}
		r |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	*v = r;
	return true;
}

/* Check the delta instructions d[0..dend) against a base of base_len bytes without applying them:
 * NULL and the exact result length in *total, or the reason of the failure. Run before the result
 * is allocated, so a false size in a delta header cannot make us allocate anything. */
static const char *scan_delta(uint64_t base_len, const uint8_t *d, const uint8_t *dend, uint64_t *total)
{
	uint64_t o = 0;
	while (d < dend) {
		unsigned c = *d++;
		if (c & 0x80) {
			uint64_t off = 0, sz = 0;
			for (unsigned b = 0; b < 7; b++) {
				if (c & (1u << b)) {
					if (d >= dend) {
						return "delta copy instruction is truncated";
					}
					if (b < 4) {
						off |= (uint64_t)*d++ << (8 * b);
					} else {
						sz |= (uint64_t)*d++ << (8 * (b - 4));
					}
				}
			}
			if (sz == 0) {
				sz = 0x10000;
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
static const char *apply_delta(const uint8_t *base, uint64_t base_len, const uint8_t *d, const uint8_t *dend,
                               uint8_t *out, uint64_t out_len)
{
	uint64_t o = 0;
	while (d < dend) {
		unsigned c = *d++;
		if (c & 0x80) {
			uint64_t off = 0, sz = 0;
			for (unsigned b = 0; b < 4; b++) {
				if (c & (1u << b)) {
					if (d >= dend) {
						return "delta copy instruction is truncated";
					}
					off |= (uint64_t)*d++ << (8 * b);
				}
			}
			for (unsigned b = 0; b < 3; b++) {
				if (c & (0x10u << b)) {
					if (d >= dend) {
						return "delta copy instruction is truncated";
					}
					sz |= (uint64_t)*d++ << (8 * b);
				}
			}
			if (sz == 0) {
				sz = 0x10000;
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

/* ------------------------------------------------------------------------------------------------ */
/* Pass 2: resolve deltas                                                                           */
/* ------------------------------------------------------------------------------------------------ */

struct resolver {
	struct skg_pk_pack *pack;
	const struct skg_pk_options *opt;
	uint32_t *ofs_first; /* CSR: children of object i are ofs_child[ofs_first[i] .. ofs_first[i+1]) */
	uint32_t *ofs_child;
	const struct ref_entry *refs; /* the REF_DELTA entries sorted by base ID (then pack order) */
	uint32_t n_ref;
	uint32_t *ref_fan; /* refs[ref_fan[k] .. ref_fan[k + 1]): base IDs starting with the 16 bits k */
	_Atomic unsigned char *claimed; /* per object: a REF_DELTA already taken by a thread */
	uint32_t *roots;
	uint32_t n_roots;
	atomic_uint next_root;
	atomic_uint_fast64_t resolved;
	atomic_bool stop;
	uint64_t thread_limit;
	uint32_t batch_msgs;  /* a thread's pass-2 batch: at most this many objects */
	uint64_t batch_bytes; /* and this many bytes */
	uint64_t batch_hold;  /* objects are batched only while the thread's nodes hold less */
};

/* Bytes before an object's content in the buffers of pass 2: room for its Git header ("<type>
 * <size>\0", at most HEADER_MAX bytes), written there when the object is hashed, so that header
 * and content are one message for sha1kit_dc_batch without a copy. */
#define HEADROOM 32

/*
 * Pass 2 hashes the objects it resolves in batches of up to P2_MSGS objects or P2_BYTES bytes
 * (objects of more than HB_MAX_OBJ bytes are hashed at once, alone), shared out between the
 * threads, down to P2_MIN_MSGS objects and P2_MIN_BYTES bytes each. Smaller than pass 1's: the
 * bases among them stay in memory until their children are built, so the batch size sets much of
 * the memory held (on Git's pack, one thread, 128 objects and 2 MiB gave the same speed as 256
 * and 4 MiB, with 3.5 MB less peak RSS). Where bases have many children, each batch leaves more
 * bases waiting than the last: while a thread's nodes hold more than P2_HOLD bytes (shared out
 * likewise, down to P2_MIN_HOLD) the objects it resolves are hashed at once, which makes the walk
 * depth first until they hold less (on Git's pack, at most 10.3 MB in nodes instead of 12.6 MB
 * with one thread, 5.8 MB instead of 12.7 MB with two; the same speed).
 */
#define P2_MSGS      128
#define P2_BYTES     ((size_t)2 << 20)
#define P2_MIN_MSGS  48
#define P2_MIN_BYTES ((size_t)768 << 10)
#define P2_HOLD      ((uint64_t)8 << 20)
#define P2_MIN_HOLD  ((uint64_t)3 << 20)
_Static_assert(HEADROOM >= HEADER_MAX, "HEADROOM holds an object header");

/* A base whose children are still to be built; its ID is known. */
struct node {
	uint32_t obj;
	uint32_t ofs_next;         /* its OFS_DELTA children not yet built: ofs_child[ofs_next ..] */
	uint32_t ref_next, ref_hi; /* its REF_DELTA children not yet taken: refs[ref_next .. ref_hi) */
	uint8_t *buf;              /* HEADROOM bytes, then the content; NULL: not (or no longer) in memory */
	uint64_t size;
};

/* A resolved object waiting for its ID, which is computed with others (sha1kit_dc_batch). */
struct pending {
	uint32_t obj;
	uint8_t *buf; /* as in struct node; NULL once handed on */
	uint64_t size;
};

struct worker {
	struct resolver *r;
	unsigned index;
	pthread_t thread;
	struct inflater inf;
	struct node *nodes; /* the bases to expand, last in first out */
	uint32_t n_nodes, nodes_cap;
	uint32_t low;  /* nodes[0 .. low) hold no data */
	uint64_t used; /* bytes of content held by the nodes and by the base being expanded */
	struct pending pend[P2_MSGS];
	sha1kit_msg msgs[P2_MSGS];
	uint32_t msg_obj[P2_MSGS];
	uint8_t digests[P2_MSGS * SKG_RAWSZ];
	sha1kit_dc_detection where[P2_MSGS];
	uint32_t n_pend;
	uint64_t pend_bytes;
	uint32_t *chain; /* rebuild(): the deltas between an object and its whole ancestor */
	uint32_t chain_cap;
	uint8_t *delta;
	size_t delta_cap;
	uint8_t *in; /* entries' stored data, when read through opt->read (entry_data) */
	size_t in_cap;
	uint64_t in_off, in_len;
	sha1kit_dc_ctx dc;
	bool roots_done; /* no root left to take */
	bool stopped;    /* gave up because another thread failed */
	bool failed;
	struct skg_pk_error err;
};

/* The base ID of REF_DELTA entry i, in the pack (for an error message only: pass 2 never reads the
 * pack's pages but through opt->read, when set). */
static const uint8_t *ref_base_id(const struct skg_pk_pack *pack, uint32_t i)
{
	const struct skg_pk_object *o = &pack->objs[i];
	return pack->data + o->offset + o->hdr_len - SKG_RAWSZ;
}

#define REF_FAN 65536 /* buckets of resolver.ref_fan */

static int cmp_ref(const void *a, const void *b)
{
	const struct ref_entry *x = a, *y = b;
	int c = memcmp(x->id, y->id, SKG_RAWSZ);
	return c != 0 ? c : (x->obj > y->obj) - (x->obj < y->obj);
}

/* The REF_DELTA entries whose base is `id`: refs[*lo .. *hi). */
static void ref_range(const struct resolver *r, const uint8_t *id, uint32_t *lo_out, uint32_t *hi_out)
{
	const struct ref_entry *refs = r->refs;
	if (r->n_ref == 0) {
		*lo_out = *hi_out = 0;
		return;
	}
	unsigned k = (unsigned)id[0] << 8 | id[1];
	uint32_t lo = r->ref_fan[k], end = r->ref_fan[k + 1], hi = end;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (memcmp(refs[mid].id, id, SKG_RAWSZ) < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	uint32_t first = lo;
	hi = end;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (memcmp(refs[mid].id, id, SKG_RAWSZ) <= 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	*lo_out = first;
	*hi_out = lo;
}

static bool worker_fail(struct worker *w)
{
	w->failed = true;
	atomic_store(&w->r->stop, true);
	return false;
}

/* Largest entry data kept in w->in between two objects. */
#define IN_KEEP ((size_t)1 << 20)

/* Bytes read from the pack at once through opt->read: the entries read next are often near (on
 * Git's pack, 8 KiB windows serve 73% of the reads, which then cost no system call). */
#define READ_WINDOW ((uint64_t)8 << 10)

/* The stored data (zlib stream) of object `i` and the bytes available from there: in the pack, or
 * copied into w->in through opt->read, with the bytes after it up to READ_WINDOW (w->in holds
 * pack bytes [w->in_off, w->in_off + w->in_len)). NULL on error (w->err filled). */
static const uint8_t *entry_data(struct worker *w, uint32_t i, uint64_t *avail)
{
	const struct skg_pk_pack *pack = w->r->pack;
	const struct skg_pk_object *o = &pack->objs[i];
	uint64_t start = o->offset + o->hdr_len;
	if (w->r->opt->read == NULL) {
		*avail = pack->len - SKG_RAWSZ - start;
		return pack->data + start;
	}
	/* Pass 1 found the stream to end where the next entry (or the trailer) starts. */
	uint64_t limit = pack->len - SKG_RAWSZ;
	uint64_t end = i + 1 < pack->nr ? pack->objs[i + 1].offset : limit;
	uint64_t n = end - start;
	*avail = n;
	if (w->in_len > 0 && start >= w->in_off && end <= w->in_off + w->in_len) {
		return w->in + (start - w->in_off);
	}
	w->in_len = 0;
	if (n < READ_WINDOW) {
		n = limit - start < READ_WINDOW ? limit - start : READ_WINDOW;
	}
	if (n > w->in_cap) {
		if (n > SIZE_MAX - 1) {
			set_error(&w->err, true, o->offset,
			          "entry of %" PRIu64 " bytes does not fit in memory", n);
			return NULL;
		}
		free(w->in);
		w->in_cap = 0;
		w->in = malloc((size_t)n);
		if (w->in == NULL) {
			set_failure(&w->err, SKG_E_NOMEM, true, o->offset,
			            "out of memory (entry of %" PRIu64 " bytes)", n);
			return NULL;
		}
		w->in_cap = (size_t)n;
	}
	if (w->r->opt->read(w->r->opt->read_ctx, start, w->in, (size_t)n) != 0) {
		set_error(&w->err, true, o->offset, "cannot read the pack");
		return NULL;
	}
	w->in_off = start;
	w->in_len = n;
	return w->in;
}

/* Let a large w->in go after use. */
static void entry_done(struct worker *w)
{
	if (w->in_cap > IN_KEEP) {
		free(w->in);
		w->in = NULL;
		w->in_cap = 0;
		w->in_len = 0;
	}
}

/* Inflate the whole object `i` into a new buffer, after HEADROOM bytes. */
static uint8_t *load_whole(struct worker *w, uint32_t i)
{
	const struct skg_pk_pack *pack = w->r->pack;
	const struct skg_pk_object *o = &pack->objs[i];
	uint64_t consumed;
	if (o->size > SIZE_MAX - HEADROOM) {
		set_error(&w->err, true, o->offset, "object of %" PRIu64 " bytes does not fit in memory",
		          o->size);
		return NULL;
	}
	uint8_t *buf = malloc(HEADROOM + (size_t)o->size);
	if (buf == NULL) {
		set_failure(&w->err, SKG_E_NOMEM, true, o->offset,
		            "out of memory (object of %" PRIu64 " bytes)", o->size);
		return NULL;
	}
	uint64_t avail;
	const uint8_t *in = entry_data(w, i, &avail);
	if (in == NULL) {
		free(buf);
		return NULL;
	}
	enum inf_status st =
	    inflate_exact(&w->inf, in, avail, buf + HEADROOM, o->size, NULL, NULL, NULL, 0, &consumed);
	entry_done(w);
	if (st != INF_OK) {
		inflate_error(&w->err, &w->inf, st, o->offset, o->size, "object");
		free(buf);
		return NULL;
	}
	return buf;
}

/* Inflate the delta data of object `i` into w->delta; returns its length or false on error. */
static bool load_delta(struct worker *w, uint32_t i)
{
	const struct skg_pk_pack *pack = w->r->pack;
	const struct skg_pk_object *o = &pack->objs[i];
	uint64_t consumed;
	if (o->size > w->delta_cap) {
		if (o->size > SIZE_MAX - 1) {
			set_error(&w->err, true, o->offset,
			          "delta of %" PRIu64 " bytes does not fit in memory", o->size);
			return false;
		}
		uint8_t *n = realloc(w->delta, (size_t)o->size);
		if (n == NULL) {
			set_failure(&w->err, SKG_E_NOMEM, true, o->offset,
			            "out of memory (delta of %" PRIu64 " bytes)", o->size);
			return false;
		}
		w->delta = n;
		w->delta_cap = (size_t)o->size;
	}
	uint64_t avail;
	const uint8_t *in = entry_data(w, i, &avail);
	if (in == NULL) {
		return false;
	}
	enum inf_status st =
	    inflate_exact(&w->inf, in, avail, w->delta, o->size, NULL, NULL, NULL, 0, &consumed);
	entry_done(w);
	if (st != INF_OK) {
		inflate_error(&w->err, &w->inf, st, o->offset, o->size, "delta");
		return false;
	}
	return true;
}

/* Build object `i` (a delta) from its base's content: returns a new buffer (HEADROOM bytes, then
 * the content) and the content's size, or NULL. */
static uint8_t *build_delta(struct worker *w, uint32_t i, const uint8_t *base, uint64_t base_len,
                            uint64_t *out_len)
{
	const struct skg_pk_object *o = &w->r->pack->objs[i];
	if (!load_delta(w, i)) {
		return NULL;
	}
	const uint8_t *d = w->delta, *dend = w->delta + o->size;
	uint64_t want_base, result;
	if (o->size < 4) { /* two sizes and one instruction at least; Git refuses shorter deltas too */
		set_error(&w->err, true, o->offset, "delta data of %" PRIu64 " bytes is too short", o->size);
		return NULL;
	}
	if (!delta_size(&d, dend, &want_base) || !delta_size(&d, dend, &result)) {
		set_error(&w->err, true, o->offset, "delta header is truncated or malformed");
		return NULL;
	}
	if (want_base != base_len) {
		set_error(&w->err, true, o->offset,
		          "delta is for a base of %" PRIu64 " bytes, but its base has %" PRIu64, want_base,
		          base_len);
		return NULL;
	}
	uint64_t total;
	const char *why = scan_delta(base_len, d, dend, &total);
	if (why != NULL) {
		set_error(&w->err, true, o->offset, "%s", why);
		return NULL;
	}
	if (total != result) {
		set_error(&w->err, true, o->offset,
		          "delta result is %" PRIu64 " bytes, its header says %" PRIu64, total, result);
		return NULL;
	}
	uint64_t max = w->r->opt->max_object_size;
	if ((max != 0 && result > max) || result > SIZE_MAX - HEADROOM) {
		set_error(&w->err, true, o->offset,
		          "delta result of %" PRIu64 " bytes is over the size limit", result);
		return NULL;
	}
	uint8_t *out = malloc(HEADROOM + (size_t)result);
	if (out == NULL) {
		set_failure(&w->err, SKG_E_NOMEM, true, o->offset,
		            "out of memory (object of %" PRIu64 " bytes)", result);
		return NULL;
	}
	why = apply_delta(base, base_len, d, dend, out + HEADROOM, result);
	if (why != NULL) {
		set_error(&w->err, true, o->offset, "%s", why);
		free(out);
		return NULL;
	}
	*out_len = result;
	return out;
}

/* Queue resolved object `obj` of `type` (content at buf + HEADROOM, `size` bytes) for its ID. */
static void pend_add(struct worker *w, uint32_t obj, unsigned type, uint8_t *buf, uint64_t size)
{
	char hdr[HEADER_MAX];
	size_t hl = object_header(hdr, type, size);
	uint8_t *m = buf + HEADROOM - hl;
	memcpy(m, hdr, hl);
	uint32_t k = w->n_pend++;
	w->pend[k].obj = obj;
	w->pend[k].buf = buf;
	w->pend[k].size = size;
	w->msgs[k].data = m;
	w->msgs[k].len = hl + (size_t)size;
	w->msg_obj[k] = obj;
	w->pend_bytes += size;
}

/* Drop the data of the nodes expanded last (the bottom of the stack; never the top node, expanded
 * next) while the thread holds more than its share of the cache. */
static void evict(struct worker *w)
{
	uint32_t k = w->low;
	while (w->used > w->r->thread_limit && k + 1 < w->n_nodes) {
		struct node *n = &w->nodes[k++];
		if (n->buf != NULL) {
			free(n->buf);
			n->buf = NULL;
			w->used -= n->size;
		}
	}
	w->low = k;
}

/* Room for one node more; false on error (w->err filled). */
static bool node_room(struct worker *w)
{
	if (w->n_nodes == w->nodes_cap) {
		uint32_t ncap = w->nodes_cap ? w->nodes_cap * 2 : 256;
		struct node *n = ncap > w->nodes_cap ? realloc(w->nodes, (size_t)ncap * sizeof(*n)) : NULL;
		if (n == NULL) {
			set_failure(&w->err, SKG_E_NOMEM, false, 0, "out of memory");
			return false;
		}
		w->nodes = n;
		w->nodes_cap = ncap;
	}
	return true;
}

/* Make resolved object `obj` (its ID known) a node when it has children; `buf` (may be NULL: not
 * in memory) then belongs to the node, and *pushed says so. False on error (w->err filled). */
static bool push_node(struct worker *w, uint32_t obj, uint8_t *buf, uint64_t size, bool *pushed)
{
	struct resolver *r = w->r;
	uint32_t lo, hi;
	*pushed = false;
	ref_range(r, r->pack->objs[obj].id, &lo, &hi);
	if (r->ofs_first[obj] == r->ofs_first[obj + 1] && lo == hi) {
		return true; /* a leaf */
	}
	if (!node_room(w)) {
		return false;
	}
	struct node *n = &w->nodes[w->n_nodes++];
	n->obj = obj;
	n->ofs_next = r->ofs_first[obj];
	n->ref_next = lo;
	n->ref_hi = hi;
	n->buf = buf;
	n->size = size;
	if (buf != NULL) {
		w->used += size;
	}
	*pushed = true;
	return true;
}

/* Compute the IDs of the pending objects; those with children become nodes, the others are freed. */
static bool flush_pending(struct worker *w)
{
	uint32_t n = w->n_pend;
	if (n == 0) {
		return true;
	}
	if (!batch_ids(w->msgs, w->msg_obj, n, w->digests, w->where, w->r->pack->objs, w->r->opt, &w->err)) {
		return false; /* the buffers are freed with the worker */
	}
	for (uint32_t k = n; k-- > 0;) { /* backwards: the first built is expanded first */
		struct pending *p = &w->pend[k];
		bool pushed;
		if (!push_node(w, p->obj, p->buf, p->size, &pushed)) {
			return false;
		}
		if (!pushed) {
			free(p->buf);
		}
		p->buf = NULL;
	}
	w->n_pend = 0;
	w->pend_bytes = 0;
	evict(w);
	return true;
}

/* The content of resolved object `obj` again, after its node's data was evicted: its whole
 * ancestor inflated from the pack, then the deltas between applied in turn. Returns the buffer
 * (HEADROOM bytes, then the content) or NULL (w->err filled). */
static uint8_t *rebuild(struct worker *w, uint32_t obj)
{
	const struct skg_pk_object *objs = w->r->pack->objs;
	uint32_t n = 0, x = obj;
	while (objs[x].depth > 0) { /* a resolved delta: its base is known */
		if (n == w->chain_cap) {
			uint32_t ncap = w->chain_cap ? w->chain_cap * 2 : 64;
			uint32_t *c =
			    ncap > w->chain_cap ? realloc(w->chain, (size_t)ncap * sizeof(*c)) : NULL;
			if (c == NULL) {
				set_failure(&w->err, SKG_E_NOMEM, false, 0, "out of memory");
				return NULL;
			}
			w->chain = c;
			w->chain_cap = ncap;
		}
		w->chain[n++] = x;
		x = objs[x].base;
	}
	uint8_t *buf = load_whole(w, x);
	uint64_t len = objs[x].size;
	while (buf != NULL && n > 0) {
		uint8_t *next = build_delta(w, w->chain[--n], buf + HEADROOM, len, &len);
		free(buf);
		buf = next;
	}
	return buf;
}

static void progress_tick(struct worker *w)
{
	uint64_t done = atomic_fetch_add(&w->r->resolved, 1) + 1;
	if (w->index == 0 && w->r->opt->progress != NULL && (done & 255) == 0) {
		w->r->opt->progress(w->r->opt->progress_ctx, SKG_PK_PHASE_RESOLVING, done,
		                    w->r->pack->n_deltas);
	}
}

/* Build delta `c` from its base `base` (of `type`, content at base_buf + HEADROOM): its ID is
 * queued with others, or computed now; *pushed tells whether `c` is then a node (on top). */
static bool build_child(struct worker *w, uint32_t base, unsigned type, const uint8_t *base_buf,
                        uint64_t base_size, uint32_t c, bool *pushed)
{
	struct resolver *r = w->r;
	struct skg_pk_object *objs = r->pack->objs;
	uint64_t len;
	uint8_t *buf = build_delta(w, c, base_buf + HEADROOM, base_size, &len);
	if (buf == NULL) {
		return false;
	}
	objs[c].real_type = (uint8_t)type;
	objs[c].depth = objs[base].depth + 1;
	objs[c].base = base;
	progress_tick(w);
	*pushed = false;
	if (len <= HB_MAX_OBJ && w->used < r->batch_hold) {
		pend_add(w, c, type, buf, len);
		return (w->n_pend < r->batch_msgs && w->pend_bytes < r->batch_bytes) || flush_pending(w);
	}
	/* A large object (a batch would gain little), or too much held: hashed now, in one stream. */
	char hdr[HEADER_MAX];
	size_t hl = object_header(hdr, type, len);
	memcpy(buf + HEADROOM - hl, hdr, hl);
	sha1kit_dc_update(&w->dc, buf + HEADROOM - hl, hl + (size_t)len);
	if (!finish_id(&w->dc, objs[c].id, objs[c].offset, &w->err)) {
		free(buf);
		return false;
	}
	if (r->opt->object != NULL && r->opt->object(r->opt->object_ctx, c, type, buf + HEADROOM, len) != 0) {
		stopped_error(&w->err, objs[c].offset);
		free(buf);
		return false;
	}
	if (!push_node(w, c, buf, len, pushed)) {
		free(buf);
		return false;
	}
	if (!*pushed) {
		free(buf);
	} else {
		evict(w);
	}
	return true;
}

/* Pop the top node and build its children (OFS_DELTA ones, then the REF_DELTA ones no other
 * thread took); its data is freed after the last. Should a child become a node at once (its ID
 * computed at once), the node goes back under it, to be resumed once the child's own descendants
 * are done: depth first, as only the bases on the path then stay in memory. */
static bool expand(struct worker *w)
{
	struct resolver *r = w->r;
	const struct skg_pk_object *objs = r->pack->objs;
	struct node n = w->nodes[--w->n_nodes];
	if (w->low > w->n_nodes) {
		w->low = w->n_nodes;
	}
	if (n.buf == NULL) {
		n.buf = rebuild(w, n.obj);
		if (n.buf == NULL) {
			return false;
		}
		w->used += n.size;
	}
	unsigned type = objs[n.obj].real_type;
	uint32_t ofs_end = r->ofs_first[n.obj + 1];
	bool ok = true;
	for (;;) {
		if (atomic_load_explicit(&r->stop, memory_order_relaxed)) {
			w->stopped = true;
			ok = false;
			break;
		}
		uint32_t c = SKG_PK_NO_BASE;
		if (n.ofs_next < ofs_end) {
			c = r->ofs_child[n.ofs_next++];
		} else {
			while (n.ref_next < n.ref_hi) {
				uint32_t k = r->refs[n.ref_next++].obj;
				if (atomic_exchange(&r->claimed[k], 1) == 0) {
					c = k;
					break;
				}
			}
		}
		if (c == SKG_PK_NO_BASE) {
			break;
		}
		bool pushed;
		if (!build_child(w, n.obj, type, n.buf, n.size, c, &pushed)) {
			ok = false;
			break;
		}
		if (pushed && (n.ofs_next < ofs_end || n.ref_next < n.ref_hi)) {
			if (!node_room(w)) {
				ok = false;
				break;
			}
			/* under the child: its data stays counted in w->used */
			w->nodes[w->n_nodes] = w->nodes[w->n_nodes - 1];
			w->nodes[w->n_nodes - 1] = n;
			w->n_nodes++;
			return true;
		}
	}
	free(n.buf);
	w->used -= n.size;
	return ok;
}

/*
 * A resolver thread: expands its nodes, last pushed first; with none left, takes the next root
 * (a whole object with children) from the shared counter; with no root left either, computes the
 * pending IDs (which gives new nodes), until nothing is left. The IDs of resolved objects are
 * computed in batches (resolver.batch_msgs objects, resolver.batch_bytes bytes): a batch is
 * hashed when full, or when nothing else can be done without the IDs.
 */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct resolver *r = w->r;
	for (;;) {
		if (atomic_load(&r->stop)) {
			break;
		}
		if (w->n_nodes > 0) {
			if (!expand(w)) {
				if (!w->stopped) {
					worker_fail(w);
				}
				break;
			}
			continue;
		}
		if (!w->roots_done) {
			unsigned i = atomic_fetch_add(&r->next_root, 1);
			if (i < r->n_roots) {
				bool pushed;
				uint32_t root = r->roots[i];
				if (!push_node(w, root, NULL, r->pack->objs[root].size, &pushed)) {
					worker_fail(w);
					break;
				}
				continue;
			}
			w->roots_done = true;
		}
		if (w->n_pend == 0) {
			break;
		}
		if (!flush_pending(w)) {
			worker_fail(w);
			break;
		}
	}
	/* after an error: free what is held */
	for (uint32_t k = 0; k < w->n_pend; k++) {
		free(w->pend[k].buf);
	}
	w->n_pend = 0;
	while (w->n_nodes > 0) {
		free(w->nodes[--w->n_nodes].buf);
	}
	return NULL;
}

/* After pass 2: report the first delta that could not be resolved, if any. */
static bool check_unresolved(const struct skg_pk_pack *pack, struct skg_pk_error *err)
{
	for (uint32_t i = 0; i < pack->nr; i++) {
		if (pack->objs[i].real_type != 0) {
			continue;
		}
		/* Follow OFS_DELTA bases down to the REF_DELTA whose base is missing. */
		uint32_t j = i;
		while (pack->objs[j].type == SKG_PK_OFS_DELTA && pack->objs[j].base != SKG_PK_NO_BASE &&
		       pack->objs[pack->objs[j].base].real_type == 0) {
			j = pack->objs[j].base;
		}
		char hex[2 * SKG_RAWSZ + 1];
		if (pack->objs[j].type == SKG_PK_REF_DELTA) {
			to_hex(ref_base_id(pack, j), hex);
			set_error(err, true, pack->objs[j].offset,
			          "unresolved delta: base object %s is not in the pack (or the deltas form a "
			          "cycle)",
			          hex);
		} else {
			set_error(err, true, pack->objs[i].offset, "unresolved delta");
		}
		return false;
	}
	return true;
}

static int pass2(struct skg_pk_pack *pack, const struct skg_pk_options *opt, struct ref_table *refs,
                 struct skg_pk_error *err)
{
	struct resolver r;
	uint32_t nr = pack->nr;
	int rc = -1;
	memset(&r, 0, sizeof(r));
	r.pack = pack;
	r.opt = opt;
	atomic_init(&r.next_root, 0);
	atomic_init(&r.resolved, 0);
	atomic_init(&r.stop, false);
	/* the phase starts here (the workers report every 256 deltas, and the last at the end) */
	if (opt->progress != NULL && pack->n_deltas > 0) {
		opt->progress(opt->progress_ctx, SKG_PK_PHASE_RESOLVING, 0, pack->n_deltas);
	}

	r.ofs_first = calloc((size_t)nr + 1, sizeof(uint32_t));
	r.claimed = calloc(nr ? nr : 1, 1);
	if (r.ofs_first == NULL || r.claimed == NULL) {
		set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
		goto out;
	}
	uint32_t n_ofs = 0;
	for (uint32_t i = 0; i < nr; i++) {
		if (pack->objs[i].type == SKG_PK_OFS_DELTA) {
			r.ofs_first[pack->objs[i].base + 1]++;
			n_ofs++;
		}
	}
	for (uint32_t i = 0; i < nr; i++) {
		r.ofs_first[i + 1] += r.ofs_first[i];
	}
	r.ofs_child = malloc((n_ofs ? n_ofs : 1) * sizeof(uint32_t));
	r.roots = malloc((nr ? nr : 1) * sizeof(uint32_t));
	uint32_t *fill = calloc((size_t)nr + 1, sizeof(uint32_t));
	if (r.ofs_child == NULL || r.roots == NULL || fill == NULL) {
		free(fill);
		set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < nr; i++) {
		const struct skg_pk_object *o = &pack->objs[i];
		if (o->type == SKG_PK_OFS_DELTA) {
			r.ofs_child[r.ofs_first[o->base] + fill[o->base]++] = i;
		}
	}
	free(fill);
	r.refs = refs->e;
	r.n_ref = refs->n;
	if (r.n_ref > 0) {
		qsort(refs->e, refs->n, sizeof(*refs->e), cmp_ref);
		r.ref_fan = malloc((REF_FAN + 1) * sizeof(uint32_t));
		if (r.ref_fan == NULL) {
			set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
			goto out;
		}
		for (uint32_t k = 0, i = 0; k <= REF_FAN; k++) {
			while (i < r.n_ref && ((unsigned)r.refs[i].id[0] << 8 | r.refs[i].id[1]) < k) {
				i++;
			}
			r.ref_fan[k] = i;
		}
	}
	for (uint32_t i = 0; i < nr; i++) {
		const struct skg_pk_object *o = &pack->objs[i];
		if (o->type == SKG_PK_OFS_DELTA || o->type == SKG_PK_REF_DELTA) {
			continue;
		}
		uint32_t lo, hi;
		ref_range(&r, o->id, &lo, &hi);
		if (r.ofs_first[i] != r.ofs_first[i + 1] || lo != hi) {
			r.roots[r.n_roots++] = i;
		}
	}

	unsigned nthreads = opt->threads ? opt->threads : 1;
	if (nthreads > r.n_roots) {
		nthreads = r.n_roots ? r.n_roots : 1;
	}
	r.thread_limit = opt->cache_limit / nthreads;
	r.batch_msgs = P2_MSGS / nthreads < P2_MIN_MSGS ? P2_MIN_MSGS : P2_MSGS / nthreads;
	r.batch_bytes = P2_BYTES / nthreads < P2_MIN_BYTES ? P2_MIN_BYTES : P2_BYTES / nthreads;
	r.batch_hold = P2_HOLD / nthreads < P2_MIN_HOLD ? P2_MIN_HOLD : P2_HOLD / nthreads;
	struct worker *ws = calloc(nthreads, sizeof(*ws));
	if (ws == NULL) {
		set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
		goto out;
	}
	unsigned started = 0;
	bool spawn_failed = false;
	for (unsigned t = 0; t < nthreads; t++) {
		ws[t].r = &r;
		ws[t].index = t;
		sha1kit_dc_init(&ws[t].dc, NULL);
		if (!inflater_init(&ws[t].inf)) {
			spawn_failed = true;
			break;
		}
		if (t > 0 && pthread_create(&ws[t].thread, NULL, worker_main, &ws[t]) != 0) {
			inflater_end(&ws[t].inf);
			spawn_failed = true;
			break;
		}
		started++;
	}
	if (spawn_failed) {
		atomic_store(&r.stop, true);
	}
	if (started > 0) {
		worker_main(&ws[0]); /* the calling thread is worker 0 */
	}
	for (unsigned t = 1; t < started; t++) {
		pthread_join(ws[t].thread, NULL);
	}
	const struct skg_pk_error *first = NULL;
	for (unsigned t = 0; t < started; t++) {
		if (ws[t].failed &&
		    (first == NULL ||
		     (ws[t].err.has_offset && (!first->has_offset || ws[t].err.offset < first->offset)))) {
			first = &ws[t].err;
		}
	}
	if (first != NULL) {
		*err = *first;
	} else if (spawn_failed) {
		set_failure(err, SKG_E_THREAD, false, 0, "cannot start the delta resolution threads");
	} else if (check_unresolved(pack, err)) {
		rc = 0;
	}
	for (unsigned t = 0; t < started; t++) {
		inflater_end(&ws[t].inf);
		free(ws[t].nodes);
		free(ws[t].chain);
		free(ws[t].delta);
		free(ws[t].in);
	}
	free(ws);
	if (rc == 0) {
		for (uint32_t i = 0; i < nr; i++) {
			if (pack->objs[i].depth > pack->max_depth) {
				pack->max_depth = pack->objs[i].depth;
			}
		}
		if (opt->progress != NULL && pack->n_deltas > 0) {
			opt->progress(opt->progress_ctx, SKG_PK_PHASE_RESOLVING, pack->n_deltas,
			              pack->n_deltas);
		}
	}
out:
	free(r.ofs_first);
	free(r.ofs_child);
	free(r.ref_fan);
	free((void *)r.claimed);
	free(r.roots);
	return rc;
}

/* ------------------------------------------------------------------------------------------------ */
/* Entry point                                                                                      */
/* ------------------------------------------------------------------------------------------------ */

int skg_pk_index_pack(struct skg_pk_pack *pack, const uint8_t *data, uint64_t len,
                      const struct skg_pk_options *opt, struct skg_pk_error *err)
{
	struct inflater inf;
	memset(pack, 0, sizeof(*pack));
	memset(err, 0, sizeof(*err));
	pack->data = data;
	pack->len = len;
	if (len < 4 || memcmp(data, "PACK", 4) != 0) {
		set_error(err, false, 0, "not a pack file (no PACK signature)");
		return -1;
	}
	if (len < 12) {
		set_error(err, false, 0, "pack is truncated: incomplete header");
		return -1;
	}
	pack->version = get_be32(data + 4);
	if (pack->version != 2 && pack->version != 3) {
		set_error(err, false, 0, "unsupported pack version %" PRIu32, pack->version);
		return -1;
	}
	if (len < 12 + SKG_RAWSZ) {
		set_error(err, true, 12, "pack is truncated: no room for the trailer");
		return -1;
	}
	pack->nr = get_be32(data + 8);
	if (!inflater_init(&inf)) {
		set_error(err, false, 0, "cannot initialise zlib");
		return -1;
	}
	struct ref_table refs = {NULL, 0, 0};
	int rc = pass1(pack, opt, &inf, &refs, err);
	inflater_end(&inf);
	if (rc == 0) {
		rc = pass2(pack, opt, &refs, err);
	}
	free(refs.e);
	if (rc != 0) {
		skg_pk_pack_free(pack);
	}
	return rc;
}

void skg_pk_pack_free(struct skg_pk_pack *pack)
{
	free(pack->objs);
	pack->objs = NULL;
}

/* ------------------------------------------------------------------------------------------------ */
/* idx files                                                                                        */
/* ------------------------------------------------------------------------------------------------ */

/* An object in the idx's order: its ID beside its index in pack order, so that qsort needs no
 * pointer to the pack's table (no global: two idx writes may run at once in one process). */
struct id_order {
	uint8_t id[SKG_RAWSZ];
	uint32_t i;
};

static int cmp_id(const void *a, const void *b)
{
	const struct id_order *x = a, *y = b;
	int c = memcmp(x->id, y->id, SKG_RAWSZ);
	return c != 0 ? c : (x->i > y->i) - (x->i < y->i); /* equal IDs stay in pack order */
}

/* The idx on its way out: a small buffer handed to the sink when full, and the idx checksum. */
struct idx_out {
	skg_pk_idx_sink sink;
	void *ctx;
	struct skg_pk_error *err;
	sha1kit_fast_ctx sha;
	size_t n;
	bool failed;
	uint8_t buf[64 << 10];
};

static void idx_flush(struct idx_out *w)
{
	if (!w->failed && w->n > 0) {
		sha1kit_fast_update(&w->sha, w->buf, w->n);
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
	const struct skg_pk_object *objs = pack->objs;
	struct id_order *sorted = malloc((nr ? nr : 1) * sizeof(*sorted));
	uint32_t *order = malloc((nr ? nr : 1) * sizeof(uint32_t));
	struct idx_out *w = malloc(sizeof(*w));
	if (sorted == NULL || order == NULL || w == NULL) {
		set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
		free(sorted);
		free(order);
		free(w);
		return -1;
	}
	for (uint32_t i = 0; i < nr; i++) {
		memcpy(sorted[i].id, objs[i].id, SKG_RAWSZ);
		sorted[i].i = i;
	}
	qsort(sorted, nr, sizeof(*sorted), cmp_id);
	for (uint32_t i = 0; i < nr; i++) {
		order[i] = sorted[i].i;
	}
	free(sorted);

	int rc = -1;
	for (uint32_t i = 0; i < nr; i++) {
		const struct skg_pk_object *o = &objs[order[i]];
		if (strict && i > 0 && memcmp(objs[order[i - 1]].id, o->id, SKG_RAWSZ) == 0) {
			char hex[2 * SKG_RAWSZ + 1];
			to_hex(o->id, hex);
			set_error(err, true, o->offset, "object %s appears twice in the pack", hex);
			goto out;
		}
		if (version == 1 && o->offset > UINT32_MAX) {
			set_error(err, true, o->offset, "pack too large for index version 1");
			goto out;
		}
	}

	/* Written in pieces, straight from the sorted table: the idx is never whole in memory. */
	w->sink = sink;
	w->ctx = ctx;
	w->err = err;
	w->n = 0;
	w->failed = false;
	sha1kit_fast_init(&w->sha);
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
			uint8_t *p = idx_room(w, 24);
			put_be32(p, (uint32_t)objs[order[i]].offset);
			memcpy(p + 4, objs[order[i]].id, SKG_RAWSZ);
		}
	} else {
		for (uint32_t i = 0; i < nr && !w->failed; i++) {
			memcpy(idx_room(w, SKG_RAWSZ), objs[order[i]].id, SKG_RAWSZ);
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
	memcpy(idx_room(w, SKG_RAWSZ), pack->checksum, SKG_RAWSZ);
	idx_flush(w);
	if (!w->failed) {
		sha1kit_fast_final(&w->sha, w->buf);
		w->failed = sink(ctx, w->buf, SKG_RAWSZ, err) != 0;
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
				set_error(err, false, 0, "index too large for memory");
				return -1;
			}
			ncap *= 2;
		}
		uint8_t *nb = realloc(m->buf, ncap);
		if (nb == NULL) {
			set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
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

void skg_pk_idx_params(const uint8_t *idx, size_t len, unsigned *version, uint64_t *off32_limit)
{
	*version = 2;
	*off32_limit = SKG_PK_IDX_OFF32_LIMIT;
	if (len < 8 || memcmp(idx, "\377tOc", 4) != 0) {
		if (len >= 1024 + 40) {
			*version = 1;
		}
		return;
	}
	if (get_be32(idx + 4) != 2 || len < 8 + 1024 + 40) {
		return;
	}
	uint64_t nr = get_be32(idx + 8 + 255 * 4);
	if (len < 8 + 1024 + nr * 28 + 40) {
		return;
	}
	const uint8_t *offs = idx + 8 + 1024 + nr * 24;
	const uint8_t *large = offs + nr * 4;
	uint64_t n_large = (len - 40 - (uint64_t)(large - idx)) / 8;
	uint64_t min = UINT64_MAX;
	for (uint64_t i = 0; i < nr; i++) {
		uint32_t v = get_be32(offs + 4 * i);
		if (v & 0x80000000u) {
			uint32_t k = v & 0x7fffffffu;
			if (k < n_large) {
				uint64_t off = (uint64_t)get_be32(large + 8 * (size_t)k) << 32 |
				               get_be32(large + 8 * (size_t)k + 4);
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

enum skg_pk_git_open skg_pk_git_idx_check(const uint8_t *idx, size_t idx_len, uint32_t *a)
{
	*a = 0;
	/* check_packed_git_idx (packfile.c): size, version, fan-out, the size the count implies */
	if (idx_len < 4 * 256 + 2 * SKG_RAWSZ) {
		return SKG_PK_GIT_IDX_SMALL; /* "index file %s is too small" */
	}
	unsigned version = 1;
	const uint8_t *fanout = idx;
	if (memcmp(idx, "\377tOc", 4) == 0) {
		version = get_be32(idx + 4);
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
		uint32_t n = get_be32(fanout + 4 * i);
		if (n < nr) {
			return SKG_PK_GIT_IDX_FANOUT; /* "non-monotonic index %s" */
		}
		nr = n;
	}
	if (version == 1) {
		if (idx_len != 4 * 256 + nr * (SKG_RAWSZ + 4) + 2 * SKG_RAWSZ) {
			return SKG_PK_GIT_IDX_V1_SIZE; /* "wrong index v1 file size in %s" */
		}
	} else {
		uint64_t min = 8 + 4 * 256 + nr * (SKG_RAWSZ + 8) + 2 * SKG_RAWSZ;
		uint64_t max = min + (nr > 0 ? (nr - 1) * 8 : 0);
		if (idx_len < min || idx_len > max) {
			return SKG_PK_GIT_IDX_V2_SIZE; /* "wrong index v2 file size in %s" */
		}
	}
	return SKG_PK_GIT_OK;
}

enum skg_pk_git_open skg_pk_git_open_check(const uint8_t *idx, size_t idx_len, const uint8_t *pack,
                                           uint64_t pack_len, uint32_t *a, uint32_t *b)
{
	*b = 0;
	enum skg_pk_git_open go = skg_pk_git_idx_check(idx, idx_len, a);
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
	uint32_t pv = get_be32(pack + 4);
	if (pv != 2 && pv != 3) {
		*a = pv;
		return SKG_PK_GIT_PACK_VERSION; /* "packfile %s is version %u and not supported" */
	}
	if (get_be32(pack + 8) != nr) {
		*a = get_be32(pack + 8);
		*b = (uint32_t)nr;
		return SKG_PK_GIT_PACK_COUNT; /* "... claims to have %u objects while index indicates %u" */
	}
	if (pack_len < SKG_RAWSZ) {
		return SKG_PK_GIT_PACK_SIGNATURE; /* "packfile %s signature is unavailable" */
	}
	/* "packfile %s does not match index": the trailer against the idx's copy of it */
	return memcmp(pack + pack_len - SKG_RAWSZ, idx + idx_len - 2 * SKG_RAWSZ, SKG_RAWSZ) == 0
	           ? SKG_PK_GIT_OK
	           : SKG_PK_GIT_PACK_MISMATCH;
}

bool skg_pk_git_usable(const uint8_t *idx, size_t idx_len, const uint8_t *pack, uint64_t pack_len)
{
	uint32_t a, b;
	return skg_pk_git_open_check(idx, idx_len, pack, pack_len, &a, &b) == SKG_PK_GIT_OK;
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
		return snprintf(buf, n, "packfile %s signature is unavailable", path);
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

/* ------------------------------------------------------------------------------------------------ */
/* One object through the idx                                                                       */
/* ------------------------------------------------------------------------------------------------ */

uint64_t skg_pk_idx_count(const uint8_t *idx, size_t len)
{
	size_t fanout = len >= 8 && memcmp(idx, "\377tOc", 4) == 0 ? 8 : 0;
	if (len < fanout + 256 * 4) {
		return 0;
	}
	return get_be32(idx + fanout + 255 * 4);
}

bool skg_pk_idx_crc_differs(const uint8_t *idx, size_t idx_len, uint64_t k, const uint8_t *pack,
                            uint64_t offset, uint64_t len)
{
	uint64_t nr = skg_pk_idx_count(idx, idx_len);
	if (!(idx_len >= 8 && memcmp(idx, "\377tOc", 4) == 0) || k >= nr) {
		return false;
	}
	uint64_t at = 8 + 1024 + nr * SKG_RAWSZ + 4 * k;
	if (at + 4 > idx_len) {
		return false;
	}
	return crc32_any(0, pack + offset, len) != get_be32(idx + at);
}

bool skg_pk_idx_entry(const uint8_t *idx, size_t len, uint64_t k, const uint8_t **id, uint64_t *offset)
{
	uint64_t nr = skg_pk_idx_count(idx, len);
	if (k >= nr) {
		return false;
	}
	if (!(len >= 8 && memcmp(idx, "\377tOc", 4) == 0)) {
		/* v1: after the fan-out, nr entries of a 4-byte offset and the ID */
		if (1024 + (k + 1) * 24 > len) {
			return false;
		}
		*id = idx + 1024 + 24 * k + 4;
		*offset = get_be32(idx + 1024 + 24 * k);
		return true;
	}
	/* v2: header, fan-out, nr IDs, nr CRC-32s, nr 31-bit offsets (or an index into the table of
	 * 64-bit offsets that follows them, when the top bit is set) */
	uint64_t ids = 8 + 1024, offs = ids + nr * (SKG_RAWSZ + 4), large = offs + nr * 4;
	if (large > len) {
		return false;
	}
	*id = idx + ids + k * SKG_RAWSZ;
	uint32_t v = get_be32(idx + offs + 4 * k);
	if (v & 0x80000000u) {
		/* git's check_pack_index_ptr: a 64-bit entry must start before the idx's last 8 bytes */
		uint64_t at = large + 8 * (uint64_t)(v & 0x7fffffffu);
		if (at + 8 >= len) {
			return false;
		}
		*offset = (uint64_t)get_be32(idx + at) << 32 | get_be32(idx + at + 4);
	} else {
		*offset = v;
	}
	return true;
}

bool skg_pk_idx_find(const uint8_t *idx, size_t len, const uint8_t id[SKG_RAWSZ], uint64_t *offset)
{
	size_t fanout = len >= 8 && memcmp(idx, "\377tOc", 4) == 0 ? 8 : 0;
	if (len < fanout + 256 * 4) {
		return false;
	}
	/* the fan-out: entries [fanout[id[0] - 1], fanout[id[0]]) have this first byte */
	uint64_t lo = id[0] > 0 ? get_be32(idx + fanout + 4 * (id[0] - 1u)) : 0;
	uint64_t hi = get_be32(idx + fanout + 4 * id[0]);
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const uint8_t *mid_id;
		uint64_t off;
		if (!skg_pk_idx_entry(idx, len, mid, &mid_id, &off)) {
			return false;
		}
		int c = memcmp(mid_id, id, SKG_RAWSZ);
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

/* One step of a delta chain: the entry and its header. */
struct chain_step {
	uint64_t offset;
	struct entry_hdr h;
};

/* Inflate the data of the entry of header h at `offset` into a new buffer of h->size bytes. */
static uint8_t *inflate_entry(struct inflater *inf, const uint8_t *pack, uint64_t end, uint64_t offset,
                              const struct entry_hdr *h, uint64_t max_size, bool *large,
                              struct skg_pk_error *err)
{
	if (h->size > max_size || h->size >= SIZE_MAX) {
		set_error(err, true, offset, "object of %" PRIu64 " bytes is over the size limit", h->size);
		*large = true;
		return NULL;
	}
	uint8_t *buf = malloc(h->size > 0 ? (size_t)h->size : 1);
	if (buf == NULL) {
		set_failure(err, SKG_E_NOMEM, true, offset, "out of memory (object of %" PRIu64 " bytes)",
		            h->size);
		return NULL;
	}
	uint64_t consumed;
	uint8_t chunk[1];
	enum inf_status st = inflate_exact(inf, pack + offset + h->len, end - offset - h->len, buf, h->size,
	                                   NULL, NULL, chunk, 0, &consumed);
	if (st != INF_OK) {
		inflate_error(err, inf, st, offset, h->size, "object");
		free(buf);
		return NULL;
	}
	return buf;
}

int skg_pk_read_object(const uint8_t *pack, uint64_t pack_len, const uint8_t *idx, size_t idx_len,
                       uint64_t offset, uint64_t max_size, unsigned *type, uint8_t **out, uint64_t *out_len,
                       struct skg_pk_error *err)
{
	return skg_pk_read_object_cached(pack, pack_len, idx, idx_len, offset, max_size, NULL, type, out,
	                                 out_len, err);
}

int skg_pk_read_object_cached(const uint8_t *pack, uint64_t pack_len, const uint8_t *idx, size_t idx_len,
                              uint64_t offset, uint64_t max_size, const struct skg_pk_base_cache *cache,
                              unsigned *type, uint8_t **out, uint64_t *out_len, struct skg_pk_error *err)
{
	if (pack_len < 12 + SKG_RAWSZ || offset < 12 || offset >= pack_len - SKG_RAWSZ) {
		set_error(err, true, offset, "no object starts at this offset of the pack");
		return -1;
	}
	const uint64_t end = pack_len - SKG_RAWSZ;
	/* A chain longer than the pack has objects goes round a loop of REF_DELTA entries. */
	uint64_t limit = skg_pk_idx_count(idx, idx_len) + 1;
	struct chain_step *chain = NULL;
	size_t n = 0, cap = 0;
	uint8_t *buf = NULL, *delta = NULL;
	uint64_t len = 0;
	struct inflater inf;
	int rc = -1;
	bool large = false, cached = false;
	unsigned base_type = 0;
	if (!inflater_init(&inf)) {
		set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
		return -1;
	}
	/* follow the bases down to a whole object */
	for (uint64_t at = offset;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			struct chain_step *c = realloc(chain, cap * sizeof(*c));
			if (c == NULL) {
				set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
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
		if (entry_header(pack, end, at, &s->h) != NULL) {
			set_error(err, true, at, "%s", s->h.why);
			goto out;
		}
		if (s->h.type != SKG_PK_OFS_DELTA && s->h.type != SKG_PK_REF_DELTA) {
			break;
		}
		if (n > limit) {
			set_error(err, true, offset, "delta chain loops");
			goto out;
		}
		if (s->h.type == SKG_PK_OFS_DELTA) {
			at = s->h.base_offset;
		} else if (!skg_pk_idx_find(idx, idx_len, s->h.base_id, &at)) {
			char h[2 * SKG_RAWSZ + 1];
			to_hex(s->h.base_id, h);
			set_error(err, true, s->offset, "delta base %s is not in the pack", h);
			goto out;
		} else if (at < 12 || at >= end) {
			set_error(err, true, s->offset,
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
		if (!delta_size(&d, dend, &base_size) || !delta_size(&d, dend, &result_size)) {
			set_error(err, true, s->offset, "delta header is truncated");
			goto out;
		}
		if (base_size != len) {
			set_error(err, true, s->offset,
			          "delta base size mismatch: the delta says %" PRIu64
			          ", the base has %" PRIu64,
			          base_size, len);
			goto out;
		}
		if (result_size > max_size || result_size >= SIZE_MAX) {
			set_error(err, true, s->offset, "object of %" PRIu64 " bytes is over the size limit",
			          result_size);
			large = true;
			goto out;
		}
		uint8_t *r = malloc(result_size > 0 ? (size_t)result_size : 1);
		if (r == NULL) {
			set_failure(err, SKG_E_NOMEM, true, s->offset,
			            "out of memory (object of %" PRIu64 " bytes)", result_size);
			goto out;
		}
		const char *why = apply_delta(buf, len, d, dend, r, result_size);
		if (why != NULL) {
			set_error(err, true, s->offset, "%s", why);
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
	inflater_end(&inf);
	free(delta);
	free(buf);
	free(chain);
	return rc != 0 && large ? 1 : rc;
}

int skg_pk_entry_base(const uint8_t *pack, uint64_t pack_len, const uint8_t *idx, size_t idx_len,
                      uint64_t offset, uint64_t *base)
{
	struct entry_hdr h;
	if (pack_len < 12 + SKG_RAWSZ || offset < 12 || offset >= pack_len - SKG_RAWSZ ||
	    entry_header(pack, pack_len - SKG_RAWSZ, offset, &h) != NULL) {
		return -1;
	}
	if (h.type == SKG_PK_OFS_DELTA) {
		*base = h.base_offset;
		return 1;
	}
	if (h.type == SKG_PK_REF_DELTA) {
		return skg_pk_idx_find(idx, idx_len, h.base_id, base) ? 1 : -1;
	}
	return 0;
}

/* ---- git's unpack_entry, with its error lines ------------------------------------------------- */

struct git_unpack {
	const uint8_t *pack;
	uint64_t pack_len;
	uint64_t alloc_limit;
	const char *name;
	void (*line)(void *ctx, const char *text);
	void *ctx;
	bool died;
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
	if (at > u->pack_len - SKG_RAWSZ) {
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
	if (b + SKG_RAWSZ <= end && !skg_pk_idx_find(idx, idx_len, b, &base)) {
		base = 0;
	}
	*at += SKG_RAWSZ;
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
	if (buf == NULL) {
		gu_line(u, "error: Out of memory, malloc failed (tried to allocate %" PRIu64 " bytes)",
		        size + 1);
		return NULL;
	}
	if (scratch) {
		free(buf); /* it cannot be filled: inflated into `small`, for zlib's words only */
		buf = NULL;
	}
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK) {
		free(buf);
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
	if (st != Z_OK && st != Z_STREAM_END && st != Z_BUF_ERROR) {
		const char *what = st == Z_NEED_DICT      ? "needs dictionary"
		                   : st == Z_DATA_ERROR   ? "data stream error"
		                   : st == Z_STREAM_ERROR ? "stream consistency error"
		                   : st == Z_MEM_ERROR    ? "out of memory"
		                                          : "unknown error";
		gu_line(u, "error: inflate: %s (%s)", what, z.msg != NULL ? z.msg : "no message");
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
		return NULL;
	}
	const char *why = apply_delta(base, base_len, d, top, out, sizes[1]);
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

static void no_line(void *ctx, const char *text)
{
	(void)ctx;
	(void)text;
}

int skg_pk_git_entry_header(const uint8_t *pack, uint64_t pack_len, uint64_t offset, uint64_t *size)
{
	struct git_unpack u = {pack, pack_len, 0, "", no_line, NULL, false};
	if (pack_len < 12 + SKG_RAWSZ) {
		return -1;
	}
	uint64_t at = offset;
	return gu_header(&u, &at, size);
}

int skg_pk_git_unpack(const uint8_t *pack, uint64_t pack_len, const uint8_t *idx, size_t idx_len,
                      uint64_t offset, bool header_first, uint64_t alloc_limit, const char *pack_name,
                      bool (*base_id)(void *ctx, uint64_t offset, uint8_t *id),
                      void (*line)(void *ctx, const char *text), void *ctx, unsigned *type, uint8_t **out,
                      uint64_t *out_len)
{
	struct git_unpack u = {pack, pack_len, alloc_limit, pack_name, line, ctx, false};
	struct step {
		uint64_t obj_offset, curpos, size;
	} *stack = NULL;
	size_t n = 0, cap = 0, limit = (size_t)skg_pk_idx_count(idx, idx_len) + 1;
	uint8_t *data = NULL;
	uint64_t size = 0, curpos = offset, obj_offset = offset;
	int t;
	if (pack_len < 12 + SKG_RAWSZ) {
		return -1;
	}
	if (header_first) {
		uint64_t at = offset, sz;
		(void)gu_header(&u, &at, &sz); /* verify_packfile's look at the type */
		if (u.died) {
			return -2;
		}
	}
	/* phase 1: down to the innermost base */
	for (;;) {
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
				return -1;
			}
			stack = v;
		}
		stack[n++] = (struct step){obj_offset, curpos, size};
		curpos = obj_offset = base;
	}
	/* phase 2: the base */
	if (t >= 1 && t <= 4) {
		data = gu_inflate(&u, curpos, size);
		if (u.died) {
			goto out;
		}
	} else if (t != SKG_PK_OFS_DELTA && t != SKG_PK_REF_DELTA) {
		gu_line(&u, "error: unknown object type %d at offset %" PRIu64 " in %s", t, obj_offset,
		        pack_name);
	}
	/* phase 3: the deltas, innermost first */
	while (n > 0) {
		uint8_t *base = data;
		uint64_t base_size = size;
		data = NULL;
		if (base == NULL) {
			uint8_t id[SKG_RAWSZ];
			char h[2 * SKG_RAWSZ + 1];
			if (base_id(ctx, obj_offset, id)) {
				to_hex(id, h);
				gu_line(&u,
				        "error: failed to read delta base object %s at offset %" PRIu64
				        " from %s",
				        h, obj_offset, pack_name);
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
		if (u.died) {
			free(base);
			goto out;
		}
		if (delta == NULL) {
			gu_line(&u, "error: failed to unpack compressed delta at offset %" PRIu64 " from %s",
			        st.curpos, pack_name);
		} else {
			data = gu_patch(&u, base, base_size, delta, st.size, &size);
			if (data == NULL) {
				gu_line(&u, "error: failed to apply delta");
			}
		}
		free(delta);
		free(base);
	}
out:
	free(stack);
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
