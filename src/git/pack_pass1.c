/*
 * pack_pass1.c - the pack engine's first pass (skg_pk_pass1, run by skg_pk_index_pack).
 *
 * Written from Git's format documentation (Documentation/gitformat-pack.txt) and by comparing
 * results with `git index-pack` and `git verify-pack` (Git 2.39); no code was taken from Git.
 *
 * Pass 1 walks the entries in order: it decodes each header, inflates the zlib stream (the pack
 * gives only the inflated size, so inflating to Z_STREAM_END is what tells where the entry ends),
 * computes the CRC-32 of the stored entry, hashes whole objects with SHA-1DC (in batches, see
 * struct hbatch), copies the base IDs of REF_DELTA entries into a compact table, and hashes the
 * pack itself with the fast SHA-1 for the trailer check. The pages it has read are let go as it
 * goes (skg_pk_options.release). When the idx is given, the same work per entry (pass1_entry) runs
 * on threads, each entry checked to end where the idx says the next starts (pass1_parallel, below).
 */
#include "pack_internal.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_LEN (64 * 1024)

static void id_sink(void *ctx, const uint8_t *p, size_t n)
{
	skg_pk_hash_update(ctx, p, n);
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
	skg_pk_set_failure(err, SKG_E_COLLISION, true, offset,
	                   "collision attack detected in object at offset %" PRIu64, offset);
}

/* Finish an object ID; false (and `err` set) when a collision attack was detected. */
bool skg_pk_finish_id(struct skg_pk_hash *h, uint8_t *id, uint64_t offset, struct skg_pk_error *err)
{
	if (!skg_pk_hash_final(h, id)) {
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
#define HB_ARENA     ((size_t)4 << 20)   /* bytes of queued objects */
#define HB_MSGS      256                 /* queued objects */
#define HB_MIN_ARENA ((size_t)512 << 10) /* a thread's share in the parallel pass, at least */
_Static_assert(HB_MIN_ARENA >= SKG_PK_HB_MAX_OBJ + SKG_PK_HEADER_MAX, "an arena holds any batched object");

struct hbatch {
	uint8_t *arena;   /* NULL: batching off (allocation failed), objects are hashed one by one */
	size_t arena_len; /* HB_ARENA, or a thread's share of it (HB_MIN_ARENA at least) */
	size_t used, n;
	sha1kit_msg msgs[HB_MSGS];
	uint32_t obj[HB_MSGS];
	uint8_t digests[HB_MSGS * SKG_MAX_RAWSZ];
	sha1kit_dc_detection where[HB_MSGS];
	const struct skg_pk_options *opt;
	unsigned rawsz;
};

static struct hbatch *hb_new(const struct skg_pk_options *opt, size_t arena_len)
{
	struct hbatch *hb = calloc(1, sizeof(*hb));
	if (hb != NULL) {
		hb->opt = opt;
		hb->rawsz = skg_pk_opt_rawsz(opt);
		hb->arena_len = arena_len;
		hb->arena = malloc(arena_len);
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
 * sha1kit_dc_batch or sha1kit_sha256_batch (digests and where: room for n results); false (and
 * `err` set) on a collision attack, reported for the first flagged object in pack order. */
bool skg_pk_batch_ids(unsigned rawsz, const sha1kit_msg *msgs, const uint32_t *obj, size_t n,
                      uint8_t *digests, sha1kit_dc_detection *where, struct skg_pk_object *objs,
                      const struct skg_pk_options *opt, struct skg_pk_error *err)
{
	size_t first = n;
	if (n == 0) {
		return true;
	}
	if (rawsz == SKG_MAX_RAWSZ) {
		sha1kit_sha256_batch(msgs, n, digests);
	} else if (sha1kit_dc_batch(msgs, n, NULL, digests, where) == SHA1KIT_DC_COLLISION) {
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
		memcpy(objs[obj[i]].id, digests + (size_t)rawsz * i, rawsz);
	}
	if (opt->object != NULL) {
		for (size_t i = 0; i < n; i++) {
			/* each message is the header "<type> <size>\0" and then the content */
			const uint8_t *m = msgs[i].data, *nul = memchr(m, 0, msgs[i].len);
			size_t hl = (size_t)(nul - m) + 1;
			if (opt->object(opt->object_ctx, obj[i], objs[obj[i]].real_type, m + hl,
			                msgs[i].len - hl) != 0) {
				skg_pk_stopped_error(err, objs[obj[i]].offset);
				return false;
			}
		}
	}
	return true;
}

/* Hash the queued objects into objs[].id (see skg_pk_batch_ids). */
static bool hb_flush(struct hbatch *hb, struct skg_pk_object *objs, struct skg_pk_error *err)
{
	size_t n = hb->n;
	hb->n = 0;
	hb->used = 0;
	return skg_pk_batch_ids(hb->rawsz, hb->msgs, hb->obj, n, hb->digests, hb->where, objs, hb->opt, err);
}

/* Room for an object of `len` bytes of content with its header (flushing first if needed): where
 * the content goes, after the header written there; NULL when the object is not batched. */
static uint8_t *hb_room(struct hbatch *hb, struct skg_pk_object *objs, unsigned type, uint64_t len, bool *ok,
                        struct skg_pk_error *err)
{
	char hdr[SKG_PK_HEADER_MAX];
	size_t hl;
	*ok = true;
	if (hb == NULL || hb->arena == NULL || len > SKG_PK_HB_MAX_OBJ) {
		return NULL;
	}
	hl = skg_pk_object_header(hdr, type, len);
	if (hb->n == HB_MSGS || hb->arena_len - hb->used < hl + len) {
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

/*
 * Parse the entry header at data[pos], reading nothing at or past `end`: type and size
 * (little-endian base-128 with 4 bits in the first byte), then an OFS_DELTA's negative offset
 * (big-endian base-128, 1 added per continuation byte) or a REF_DELTA's base ID. Returns NULL, or
 * h->why (the error).
 */
const char *skg_pk_entry_header(const uint8_t *data, uint64_t end, uint64_t pos, unsigned rawsz,
                                struct skg_pk_entry_hdr *h)
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
		if (end - p < rawsz) {
			snprintf(h->why, sizeof(h->why), "pack is truncated inside a delta base name");
			return h->why;
		}
		h->base_id = data + p;
		p += rawsz;
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

/* Pass 1 lets the pack pages it has read go (opt->release) every RELEASE_EVERY bytes. */
#define RELEASE_EVERY ((uint64_t)2 << 20)

/* One thread's state in pass 1. */
struct p1 {
	const struct skg_pk_options *opt; /* in the parallel pass without the object callback */
	bool keep_whole;                  /* the object callback is set (in the parallel pass: for
	                                   * after it): non-blobs not batched are inflated whole */
	struct skg_pk_inflater *inf;
	uint8_t *chunk;
	struct grow full;    /* a whole object for the object callback */
	struct grow scratch; /* an entry inflated whole (scratch_fit) */
	struct hbatch *hb;
	size_t keep; /* full and scratch are let go after an entry when larger (the parallel pass) */
	struct skg_pk_hash id; /* the ID of a whole object not batched */
};

static bool p1_init(struct p1 *p, const struct skg_pk_options *opt, bool keep_whole,
                    struct skg_pk_inflater *inf, size_t arena_len)
{
	memset(p, 0, sizeof(*p));
	p->opt = opt;
	p->keep_whole = keep_whole;
	p->inf = inf;
	p->keep = SIZE_MAX;
	p->chunk = malloc(CHUNK_LEN);
	p->hb = hb_new(opt, arena_len);
	skg_pk_hash_init(&p->id, skg_pk_id_kind(skg_pk_opt_rawsz(opt)));
	return p->chunk != NULL;
}

static void p1_free(struct p1 *p)
{
	free(p->chunk);
	free(p->full.p);
	free(p->scratch.p);
	hb_free(p->hb);
}

/*
 * Entry i, which starts at `pos` (pack->objs[i].offset; its other fields zero but base,
 * SKG_PK_NO_BASE): its header, its zlib stream inflated, its CRC-32, a whole object's ID (or the
 * object queued in p->hb for it) and, with p->opt->object, the object handed out; a REF_DELTA's
 * base goes to `refs`. Writes no field of pack->objs but entry i's (and, when p->hb is flushed, the
 * IDs of the objects it queued) and never its offset; reads the offsets of the entries before it.
 * Returns where the entry ends, or 0 (and `err` set).
 */
static uint64_t pass1_entry(struct p1 *p, struct skg_pk_pack *pack, uint32_t i, uint64_t pos,
                            struct skg_pk_ref_table *refs, struct skg_pk_error *err)
{
	const struct skg_pk_options *opt = p->opt;
	const uint8_t *data = pack->data;
	const uint64_t end = pack->len - pack->rawsz; /* objects end where the trailer starts */
	struct skg_pk_object *o = &pack->objs[i];
	struct skg_pk_entry_hdr h;
	if (skg_pk_entry_header(data, end, pos, pack->rawsz, &h) != NULL) {
		skg_pk_set_error(err, true, pos, "%s", h.why);
		return 0;
	}
	unsigned type = h.type;
	uint64_t size = h.size;
	uint64_t q = pos + h.len;
	if (opt->max_object_size != 0 && size > opt->max_object_size) {
		skg_pk_set_error(err, true, pos, "object of %" PRIu64 " bytes is over the size limit", size);
		return 0;
	}
	o->type = (uint8_t)type;
	o->size = size;
	if (type == SKG_PK_OFS_DELTA) {
		o->base = find_offset(pack->objs, i, h.base_offset);
		if (o->base == SKG_PK_NO_BASE && !opt->ofs_unresolved) {
			skg_pk_set_error(err, true, pos,
			                 "delta base at offset %" PRIu64 " is not the start of an object",
			                 h.base_offset);
			return 0;
		}
	} else if (type == SKG_PK_REF_DELTA) {
		if (refs->n == refs->cap) {
			/* grows with the entries found, as pack->objs */
			uint32_t ncap = refs->cap < 1024 ? 1024 : refs->cap;
			ncap = ncap > pack->nr / 2 ? pack->nr : ncap * 2;
			if (ncap > pack->nr) {
				ncap = pack->nr;
			}
			struct skg_pk_ref_entry *n = realloc(refs->e, (size_t)ncap * sizeof(*n));
			if (n == NULL) {
				skg_pk_set_failure(err, SKG_E_NOMEM, false, 0,
				                   "out of memory (%" PRIu32 " deltas)", ncap);
				return 0;
			}
			refs->e = n;
			refs->cap = ncap;
		}
		memcpy(refs->e[refs->n].id, h.base_id, pack->rawsz);
		refs->e[refs->n].obj = i;
		refs->n++;
	} else {
		o->real_type = (uint8_t)type;
	}
	o->hdr_len = (uint8_t)(q - pos); /* at most 10 + 32 bytes */

	/* The zlib stream. */
	uint64_t consumed = 0;
	enum skg_pk_inf_status st;
	bool whole = type != SKG_PK_OFS_DELTA && type != SKG_PK_REF_DELTA;
	bool in_full = false; /* inflated into `full` */
	uint8_t *room = NULL;
	/* With strict, no whole object is batched: the checks see them in pack order, as
	 * git's first pass checks each object before it reads the next. */
	if (whole && !opt->strict) {
		bool ok;
		room = hb_room(p->hb, pack->objs, type, size, &ok, err);
		if (!ok) {
			return 0;
		}
	}
	if (whole && room == NULL) {
		char hdr[SKG_PK_HEADER_MAX];
		skg_pk_hash_update(&p->id, hdr, skg_pk_object_header(hdr, type, size));
	}
	if (room != NULL) {
		/* inflated straight into the batch arena: exactly `size` bytes or an error */
		st = skg_pk_inflate_exact(p->inf, data + q, end - q, room, size, NULL, NULL, p->chunk,
		                          CHUNK_LEN, &consumed);
		if (st == SKG_PK_INF_OK) {
			hb_commit(p->hb, i);
		}
	} else if (whole && p->keep_whole &&
	           (type != SKG_PK_BLOB || (opt->whole_blobs && size <= SKG_PK_BIG_FILE_THRESHOLD))) {
		/* The whole object, for the object callback; the buffer grows with the data, so
		 * a false size cannot make us allocate much. */
		in_full = true;
		p->full.len = 0;
		st = skg_pk_inflate_exact(p->inf, data + q, end - q, NULL, size, grow_sink, &p->full,
		                          p->chunk, CHUNK_LEN, &consumed);
		if (p->full.failed) {
			skg_pk_set_failure(err, SKG_E_NOMEM, true, pos,
			                   "out of memory (object of %" PRIu64 " bytes)", size);
			return 0;
		}
		if (st == SKG_PK_INF_OK) {
			skg_pk_hash_update(&p->id, p->full.p, p->full.len);
		}
	} else if (size > CHUNK_LEN && size <= SCRATCH_MAX && scratch_fit(&p->scratch, size)) {
		/* a delta or an object too large to batch, up to a few MiB: one libdeflate call
		 * into a buffer is faster than zlib in pieces */
		st = skg_pk_inflate_exact(p->inf, data + q, end - q, p->scratch.p, size, NULL, NULL, p->chunk,
		                          CHUNK_LEN, &consumed);
		if (st == SKG_PK_INF_OK && whole) {
			skg_pk_hash_update(&p->id, p->scratch.p, (size_t)size);
		}
	} else {
		st = skg_pk_inflate_exact(p->inf, data + q, end - q, NULL, size, whole ? id_sink : null_sink,
		                          &p->id, p->chunk, CHUNK_LEN, &consumed);
	}
	if (st != SKG_PK_INF_OK) {
		skg_pk_inflate_error(err, p->inf, st, pos, size, "object");
		return 0;
	}
	if (whole && room == NULL && !skg_pk_finish_id(&p->id, o->id, pos, err)) {
		return 0;
	}
	if (whole && room == NULL && opt->object != NULL) {
		/* in_order: the batched objects before it are handed out first */
		if (opt->in_order && p->hb != NULL && p->hb->n > 0 && !hb_flush(p->hb, pack->objs, err)) {
			return 0;
		}
		/* a blob not inflated whole was streamed or inflated into scratch: not passed on */
		if (opt->object(opt->object_ctx, i, type, in_full ? p->full.p : NULL,
		                in_full ? p->full.len : size) != 0) {
			skg_pk_stopped_error(err, pos);
			return 0;
		}
	}
	if (p->full.cap > p->keep || p->scratch.cap > p->keep) {
		/* let go before the next entry: the threads' buffers do not add up (free(NULL): nothing) */
		free(p->full.cap > p->keep ? p->full.p : NULL);
		free(p->scratch.cap > p->keep ? p->scratch.p : NULL);
		if (p->full.cap > p->keep) {
			p->full = (struct grow){NULL, 0, 0, false};
		}
		if (p->scratch.cap > p->keep) {
			p->scratch = (struct grow){NULL, 0, 0, false};
		}
	}
	q += consumed;
	o->crc32 = skg_pk_crc32(0, data + pos, q - pos);
	return q;
}

/* The pass in pack order, on the calling thread. */
static int pass1_sequential(struct skg_pk_pack *pack, const struct skg_pk_options *opt,
                            struct skg_pk_inflater *inf, struct skg_pk_ref_table *refs,
                            struct skg_pk_error *err)
{
	const uint8_t *data = pack->data;
	const uint64_t end = pack->len - pack->rawsz; /* objects end where the trailer starts */
	uint64_t pos = 12, hashed = 0, released = 0;
	uint32_t cap = 0;
	struct skg_pk_hash trailer;
	struct p1 p;
	int rc = -1;

	/* a small pack (a push's, a test's) gets the smallest arena: it has little to queue, and 4 MiB
	 * allocated and freed cost more than its whole pass under AddressSanitizer and qemu */
	size_t arena_len = pack->len < HB_MIN_ARENA ? HB_MIN_ARENA : HB_ARENA;
	if (!p1_init(&p, opt, opt->object != NULL, inf, arena_len)) {
		skg_pk_set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
		p1_free(&p);
		return -1;
	}
	skg_pk_hash_init(&trailer, skg_pk_sum_kind(pack->rawsz));

	for (uint32_t i = 0; i < pack->nr; i++) {
		if (pos >= end) {
			skg_pk_set_error(err, true, pos,
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
				skg_pk_set_failure(err, SKG_E_NOMEM, false, 0,
				                   "out of memory (%" PRIu32 " objects)", ncap);
				goto out;
			}
			pack->objs = n;
			cap = ncap;
		}
		struct skg_pk_object *o = &pack->objs[i];
		memset(o, 0, sizeof(*o));
		o->offset = pos;
		o->base = SKG_PK_NO_BASE;
		pos = pass1_entry(&p, pack, i, pos, refs, err);
		if (pos == 0) {
			goto out;
		}
		if (o->type == SKG_PK_OFS_DELTA || o->type == SKG_PK_REF_DELTA) {
			pack->n_deltas++;
		}

		if (pos - hashed >= (1u << 20)) {
			skg_pk_hash_update(&trailer, data + hashed, (size_t)(pos - hashed));
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
		skg_pk_set_error(err, true, pos,
		                 "pack has %" PRIu64 " bytes of unexpected data after its %" PRIu32
		                 " objects (wrong object count?)",
		                 end - pos, pack->nr);
		goto out;
	}
	if (p.hb != NULL && !hb_flush(p.hb, pack->objs, err)) {
		goto out;
	}
	skg_pk_hash_update(&trailer, data + hashed, (size_t)(end - hashed));
	if (opt->release != NULL) {
		/* pass 2 reads the pack through opt->read, if at all: nothing of it need stay */
		opt->release(opt->release_ctx, pack->len);
	}
	uint8_t sum[SKG_MAX_RAWSZ];
	skg_pk_hash_final(&trailer, sum);
	if (memcmp(sum, data + end, pack->rawsz) != 0) {
		char want[2 * SKG_MAX_RAWSZ + 1], got[2 * SKG_MAX_RAWSZ + 1];
		skg_to_hex_len(sum, pack->rawsz, want);
		skg_to_hex_len(data + end, pack->rawsz, got);
		skg_pk_set_error(err, true, end,
		                 "pack trailer mismatch: the pack's %s is %s, its trailer says %s",
		                 pack->rawsz == SKG_MAX_RAWSZ ? "SHA-256" : "SHA-1", want, got);
		goto out;
	}
	memcpy(pack->checksum, data + end, pack->rawsz);
	if (opt->progress != NULL) {
		opt->progress(opt->progress_ctx, SKG_PK_PHASE_INDEXING, pack->nr, pack->nr);
	}
	rc = 0;
out:
	if (rc != 0 && opt->in_order && p.hb != NULL && p.hb->n > 0 && err->code == SKG_E_CORRUPT) {
		/* git's first pass stops at an object before the entry at fault (a collision, the
		 * object callback), which then wins */
		struct skg_pk_error e2;
		if (!hb_flush(p.hb, pack->objs, &e2)) {
			*err = e2;
		}
	}
	p1_free(&p);
	return rc;
}

/*
 * The parallel pass (opt->idx set, several threads). The idx gives every entry's offset, so
 * every entry's start and end: the entries, sorted by offset, are cut into tasks of contiguous
 * entries (about a quarter of a thread's share of the pack, PAR_TASK bytes at most),
 * which the threads take in order from a shared counter and pass through pass1_entry as the
 * sequential pass would, each with its own inflater, batch and buffers. The idx is not trusted:
 * every entry must end where the next one starts (the last where the trailer starts), as the
 * sequential pass would find it. The pack's SHA-1 for the trailer follows the tasks done, in
 * order, hashed under a lock by the thread that finishes a task, which then lets the pages hashed
 * go (opt->release); no task is begun more than PAR_AHEAD bytes past them, so that the pages held
 * stay bounded however many threads there are. The object callback is not called during the
 * pass: once every entry and the trailer are found sound, the whole objects are handed out, on
 * the threads, each inflated again (blobs: without their data, unless opt->whole_blobs). On any
 * error, or any entry that does not end where the next starts, the pass gives up and the caller
 * runs the sequential pass, which gives the error exactly as it would have.
 */
#define PAR_TASK   ((uint64_t)256 << 10) /* pack bytes of a task, at most (one entry at least) */
#define PAR_WINDOW ((uint64_t)64 << 10)  /* bytes read at once through opt->read (handing out) */
#define PAR_KEEP   ((size_t)4 << 20)     /* a worker's buffers larger than this are let go after use */
#define PAR_AHEAD  ((uint64_t)32 << 20)  /* a task starts at most this far past the bytes hashed */

struct par_task {
	uint32_t first, end; /* entries [first, end) */
	atomic_bool done;
};

struct par {
	struct skg_pk_pack *pack;
	const struct skg_pk_options *opt; /* the caller's */
	struct skg_pk_options wopt;       /* the workers': no object callback */
	struct par_task *tasks;
	uint32_t n_tasks;
	atomic_uint next; /* the next task to take */
	atomic_bool stop; /* a thread failed: the others stop */
	atomic_uint_fast64_t entries_done;
	atomic_uint_fast64_t hashed; /* pack bytes [0, hashed) are in `trailer` */
	pthread_mutex_t lock;        /* over trailer, hashed_tasks, released and opt->release */
	pthread_cond_t moved;        /* hashed moved on, or stop was set */
	struct skg_pk_hash trailer;
	uint32_t hashed_tasks;
	uint64_t released; /* told to opt->release */
	bool handing_out;  /* the second round: the whole objects to the object callback */
};

struct par_worker {
	struct par *r;
	pthread_t thread;
	bool caller; /* the calling thread */
	struct skg_pk_inflater inf;
	struct p1 p;
	struct skg_pk_ref_table refs;
	uint8_t *buf; /* handing out: an object's content */
	size_t buf_cap;
	uint8_t *in; /* handing out: pack bytes [in_off, in_off + in_len), read through opt->read */
	size_t in_cap;
	uint64_t in_off, in_len;
	bool failed;
	struct skg_pk_error err;
};

/* Where task t's bytes end (for the trailer's hash): where the next starts, or at the trailer. */
static uint64_t task_end(const struct par *r, uint32_t t)
{
	return t + 1 < r->n_tasks ? r->pack->objs[r->tasks[t + 1].first].offset
	                          : r->pack->len - r->pack->rawsz;
}

/* Under r->lock: hash the tasks done since the last time, in order, into the trailer's SHA-1, and
 * let the pages hashed go (opt->release: never from two threads at once); wake the threads that
 * wait for it (wait_ahead). */
static void hash_done_locked(struct par *r)
{
	uint64_t from = atomic_load(&r->hashed);
	bool moved = false;
	while (r->hashed_tasks < r->n_tasks && atomic_load(&r->tasks[r->hashed_tasks].done)) {
		uint64_t to = task_end(r, r->hashed_tasks++);
		skg_pk_hash_update(&r->trailer, r->pack->data + from, (size_t)(to - from));
		from = to;
		moved = true;
	}
	if (moved) {
		atomic_store(&r->hashed, from);
		if (r->opt->release != NULL && from - r->released >= RELEASE_EVERY) {
			r->opt->release(r->opt->release_ctx, from);
			r->released = from;
		}
		pthread_cond_broadcast(&r->moved);
	}
}

/* Wait until task t starts at most PAR_AHEAD bytes past the bytes hashed (and so let go), so
 * that the pack's pages held do not grow with the threads, nor behind a slow entry; false when
 * another thread failed meanwhile. The tasks before t are all taken: the first one not done is
 * being worked on, and its thread hashes it when done. */
static bool wait_ahead(struct par *r, uint32_t t)
{
	uint64_t start = r->pack->objs[r->tasks[t].first].offset;
	if (start - atomic_load(&r->hashed) <= PAR_AHEAD) {
		return true;
	}
	pthread_mutex_lock(&r->lock);
	hash_done_locked(r);
	while (start - atomic_load(&r->hashed) > PAR_AHEAD && !atomic_load(&r->stop)) {
		pthread_cond_wait(&r->moved, &r->lock);
	}
	pthread_mutex_unlock(&r->lock);
	return !atomic_load(&r->stop);
}

/* The content of whole object i, inflated again (its stream was found sound) into w->buf, read
 * through opt->read when set. False on a failure (w->err set). */
static bool reinflate(struct par_worker *w, uint32_t i)
{
	const struct skg_pk_pack *pack = w->r->pack;
	const struct skg_pk_options *opt = w->r->opt;
	const struct skg_pk_object *o = &pack->objs[i];
	uint64_t start = o->offset + o->hdr_len;
	uint64_t end = i + 1 < pack->nr ? pack->objs[i + 1].offset : pack->len - pack->rawsz;
	const uint8_t *in = pack->data + start;
	uint64_t consumed;
	if (o->size > w->buf_cap) {
		uint8_t *n = o->size <= SIZE_MAX ? realloc(w->buf, (size_t)o->size) : NULL;
		if (n == NULL) {
			skg_pk_set_failure(&w->err, SKG_E_NOMEM, true, o->offset,
			                   "out of memory (object of %" PRIu64 " bytes)", o->size);
			return false;
		}
		w->buf = n;
		w->buf_cap = (size_t)o->size;
	}
	if (opt->read != NULL) {
		if (start < w->in_off || end > w->in_off + w->in_len) {
			uint64_t limit = pack->len - pack->rawsz;
			uint64_t n = end - start < PAR_WINDOW ? PAR_WINDOW : end - start;
			n = n > limit - start ? limit - start : n;
			if (n > w->in_cap) {
				free(w->in);
				w->in_cap = 0;
				w->in_len = 0;
				w->in = n <= SIZE_MAX ? malloc((size_t)n) : NULL;
				if (w->in == NULL) {
					skg_pk_set_failure(&w->err, SKG_E_NOMEM, true, o->offset,
					                   "out of memory (entry of %" PRIu64 " bytes)", n);
					return false;
				}
				w->in_cap = (size_t)n;
			}
			if (opt->read(opt->read_ctx, start, w->in, (size_t)n) != 0) {
				w->in_len = 0;
				/* the caller's read failed: the machine's fault, not the pack's */
				skg_pk_set_failure(&w->err, SKG_E_IO, true, o->offset,
				                   "cannot read the pack");
				return false;
			}
			w->in_off = start;
			w->in_len = n;
		}
		in = w->in + (start - w->in_off);
	}
	enum skg_pk_inf_status st =
	    skg_pk_inflate_exact(&w->inf, in, end - start, w->buf, o->size, NULL, NULL, NULL, 0, &consumed);
	if (st != SKG_PK_INF_OK) {
		skg_pk_inflate_error(&w->err, &w->inf, st, o->offset, o->size, "object");
		return false;
	}
	return true;
}

/* Hand the whole objects of task t to the object callback. */
static bool hand_out(struct par_worker *w, uint32_t t)
{
	struct par *r = w->r;
	const struct skg_pk_options *opt = r->opt;
	const struct skg_pk_object *objs = r->pack->objs;
	for (uint32_t i = r->tasks[t].first; i < r->tasks[t].end; i++) {
		unsigned type = objs[i].type;
		uint64_t size = objs[i].size;
		if (type == SKG_PK_OFS_DELTA || type == SKG_PK_REF_DELTA) {
			continue;
		}
		bool with_data =
		    type != SKG_PK_BLOB || (opt->whole_blobs && size <= SKG_PK_BIG_FILE_THRESHOLD);
		if (with_data && size > 0 && !reinflate(w, i)) {
			return false;
		}
		int stop = opt->object(opt->object_ctx, i, type, with_data && size > 0 ? w->buf : NULL, size);
		if (w->buf_cap > PAR_KEEP) {
			free(w->buf);
			w->buf = NULL;
			w->buf_cap = 0;
		}
		if (w->in_cap > PAR_KEEP) {
			free(w->in);
			w->in = NULL;
			w->in_cap = w->in_len = 0;
		}
		if (stop != 0) {
			skg_pk_stopped_error(&w->err, objs[i].offset);
			return false;
		}
	}
	return true;
}

static void *par_main(void *arg)
{
	struct par_worker *w = arg;
	struct par *r = w->r;
	struct skg_pk_pack *pack = r->pack;
	const struct skg_pk_options *opt = r->opt;
	const uint64_t end = pack->len - pack->rawsz;
	for (;;) {
		if (atomic_load_explicit(&r->stop, memory_order_relaxed)) {
			return NULL;
		}
		unsigned t = atomic_fetch_add(&r->next, 1);
		if (t >= r->n_tasks) {
			break;
		}
		if (r->handing_out) {
			if (!hand_out(w, t)) {
				goto fail;
			}
			continue;
		}
		struct par_task *task = &r->tasks[t];
		if (!wait_ahead(r, t)) {
			return NULL;
		}
		for (uint32_t i = task->first; i < task->end; i++) {
			uint64_t want = i + 1 < pack->nr ? pack->objs[i + 1].offset : end;
			/* an error, or the entry does not end where the idx says the next one starts */
			if (pass1_entry(&w->p, pack, i, pack->objs[i].offset, &w->refs, &w->err) != want) {
				goto fail;
			}
		}
		atomic_store(&task->done, true);
		uint64_t n =
		    atomic_fetch_add(&r->entries_done, task->end - task->first) + (task->end - task->first);
		pthread_mutex_lock(&r->lock);
		hash_done_locked(r);
		pthread_mutex_unlock(&r->lock);
		if (w->caller && opt->progress != NULL) {
			/* the meter's end (done == total) is pass1_parallel's, once every check is through */
			opt->progress(opt->progress_ctx, SKG_PK_PHASE_INDEXING,
			              n < pack->nr ? n : pack->nr - 1, pack->nr);
		}
	}
	/* every task is taken: the objects still queued are hashed */
	if (r->handing_out || w->p.hb == NULL || hb_flush(w->p.hb, pack->objs, &w->err)) {
		return NULL;
	}
fail:
	w->failed = true;
	pthread_mutex_lock(&r->lock);
	atomic_store(&r->stop, true);
	pthread_cond_broadcast(&r->moved); /* the threads waiting in wait_ahead */
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* Run the workers ws[0..n), ws[0] on the calling thread; a thread that cannot start leaves its
 * share to the others (they take the tasks from the shared counter). */
static void run_workers(struct par *r, struct par_worker *ws, unsigned n)
{
	unsigned started = 1;
	atomic_store(&r->next, 0);
	while (started < n && pthread_create(&ws[started].thread, NULL, par_main, &ws[started]) == 0) {
		started++;
	}
	par_main(&ws[0]);
	for (unsigned t = 1; t < started; t++) {
		pthread_join(ws[t].thread, NULL);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_ref_obj(const void *a, const void *b)
{
	uint32_t x = ((const struct skg_pk_ref_entry *)a)->obj, y = ((const struct skg_pk_ref_entry *)b)->obj;
	return (x > y) - (x < y);
}

/* pack->objs with the offsets of the idx, sorted (every other field zero, no base), when they can
 * be the entries' offsets: as many as the pack's entries, the first after the pack header,
 * increasing, before the trailer. False otherwise, or when out of memory. */
static bool objs_from_idx(struct skg_pk_pack *pack, const struct skg_pk_options *opt)
{
	uint32_t nr = pack->nr;
	if (nr < 2 || skg_pk_idx_count(opt->idx, opt->idx_len) != nr) {
		return false;
	}
	uint64_t *offs = malloc((size_t)nr * sizeof(*offs));
	bool ok = offs != NULL;
	for (uint32_t k = 0; ok && k < nr; k++) {
		const uint8_t *id;
		ok = skg_pk_idx_entry_as(opt->idx, opt->idx_len, pack->rawsz, k, &id, &offs[k]);
	}
	if (ok) {
		qsort(offs, nr, sizeof(*offs), cmp_u64);
		ok = offs[0] == 12 && offs[nr - 1] < pack->len - pack->rawsz;
	}
	for (uint32_t k = 1; ok && k < nr; k++) {
		ok = offs[k] > offs[k - 1];
	}
	if (ok && (pack->objs = calloc(nr, sizeof(*pack->objs))) == NULL) {
		ok = false;
	}
	for (uint32_t k = 0; ok && k < nr; k++) {
		pack->objs[k].offset = offs[k];
		pack->objs[k].base = SKG_PK_NO_BASE;
	}
	free(offs);
	return ok;
}

/* The tasks of the parallel pass over pack->objs (offsets from the idx); false when out of memory. */
static bool make_tasks(struct par *r, unsigned threads)
{
	const struct skg_pk_object *objs = r->pack->objs;
	uint64_t target = (r->pack->len - r->pack->rawsz - 12) / ((uint64_t)threads * 4);
	target = target > PAR_TASK ? PAR_TASK : target;
	for (int round = 0; round < 2; round++) {
		uint32_t n = 0, first = 0;
		for (uint32_t i = 1; i <= r->pack->nr; i++) {
			if (i == r->pack->nr || objs[i].offset - objs[first].offset >= target) {
				if (round == 1) {
					r->tasks[n].first = first;
					r->tasks[n].end = i;
					atomic_init(&r->tasks[n].done, false);
				}
				n++;
				first = i;
			}
		}
		r->n_tasks = n;
		if (round == 0 && (r->tasks = malloc((size_t)n * sizeof(*r->tasks))) == NULL) {
			return false;
		}
	}
	return true;
}

/* The parallel pass: 0 (done), -1 (err set: the object callback stopped, or a failure while the
 * objects were handed out), or 1: given up (pack->objs to be freed, the sequential pass to run). */
static int pass1_parallel(struct skg_pk_pack *pack, const struct skg_pk_options *opt,
                          struct skg_pk_ref_table *refs, struct skg_pk_error *err)
{
	const uint64_t end = pack->len - pack->rawsz;
	struct par r;
	struct par_worker *ws = NULL;
	unsigned n = 0;
	int rc = 1;
	memset(&r, 0, sizeof(r));
	r.pack = pack;
	r.opt = opt;
	if (!objs_from_idx(pack, opt) || !make_tasks(&r, opt->threads) || r.n_tasks < 2 ||
	    pthread_mutex_init(&r.lock, NULL) != 0) {
		free(r.tasks);
		return 1;
	}
	if (pthread_cond_init(&r.moved, NULL) != 0) {
		pthread_mutex_destroy(&r.lock);
		free(r.tasks);
		return 1;
	}
	r.wopt = *opt;
	r.wopt.object = NULL;
	atomic_init(&r.next, 0);
	atomic_init(&r.stop, false);
	atomic_init(&r.entries_done, 0);
	atomic_init(&r.hashed, 0);
	skg_pk_hash_init(&r.trailer, skg_pk_sum_kind(pack->rawsz));
	/* no more threads than CPUs online: more would add no speed, each with its buffers */
	unsigned nthreads = skg_pk_cpu_clamp(opt->threads < r.n_tasks ? opt->threads : r.n_tasks);
	/* the batch arenas: HB_ARENA shared out, so that memory does not grow with the threads */
	size_t arena_len = HB_ARENA / nthreads < HB_MIN_ARENA ? HB_MIN_ARENA : HB_ARENA / nthreads;
	ws = calloc(nthreads, sizeof(*ws));
	if (ws == NULL) {
		goto out;
	}
	n = nthreads;
	for (unsigned t = 0; t < n; t++) {
		ws[t].r = &r;
		ws[t].caller = t == 0;
		if (!skg_pk_inflater_init(&ws[t].inf)) {
			n = t; /* those before have an inflater to end */
			goto out;
		}
		if (!p1_init(&ws[t].p, &r.wopt, opt->object != NULL, &ws[t].inf, arena_len)) {
			n = t + 1;
			goto out;
		}
		ws[t].p.keep = SKG_PK_HB_MAX_OBJ;
	}
	run_workers(&r, ws, n);
	for (unsigned t = 0; t < n; t++) {
		if (ws[t].failed) {
			goto out;
		}
	}
	hash_done_locked(&r); /* the threads are joined */
	uint8_t sum[SKG_MAX_RAWSZ];
	skg_pk_hash_final(&r.trailer, sum);
	if (r.hashed_tasks != r.n_tasks || memcmp(sum, pack->data + end, pack->rawsz) != 0) {
		goto out;
	}
	/* the REF_DELTA entries in pack order, as the sequential pass lists them */
	uint32_t n_ref = 0;
	for (unsigned t = 0; t < n; t++) {
		n_ref += ws[t].refs.n;
	}
	if (n_ref > 0) {
		if ((refs->e = malloc((size_t)n_ref * sizeof(*refs->e))) == NULL) {
			goto out;
		}
		for (unsigned t = 0; t < n; t++) {
			if (ws[t].refs.n > 0) {
				memcpy(refs->e + refs->n, ws[t].refs.e,
				       (size_t)ws[t].refs.n * sizeof(*refs->e));
				refs->n += ws[t].refs.n;
			}
		}
		refs->cap = n_ref;
		qsort(refs->e, n_ref, sizeof(*refs->e), cmp_ref_obj);
	}
	for (uint32_t i = 0; i < pack->nr; i++) {
		if (pack->objs[i].type == SKG_PK_OFS_DELTA || pack->objs[i].type == SKG_PK_REF_DELTA) {
			pack->n_deltas++;
		}
	}
	memcpy(pack->checksum, pack->data + end, pack->rawsz);
	if (opt->release != NULL) {
		/* pass 2 reads the pack through opt->read, if at all: nothing of it need stay */
		opt->release(opt->release_ctx, pack->len);
	}
	rc = 0;
	if (opt->object != NULL) {
		/* every entry and the trailer are sound: the whole objects to the object callback */
		r.handing_out = true;
		run_workers(&r, ws, n);
		const struct skg_pk_error *first = NULL;
		for (unsigned t = 0; t < n; t++) {
			if (ws[t].failed && (first == NULL || ws[t].err.offset < first->offset)) {
				first = &ws[t].err;
			}
		}
		if (first != NULL) {
			*err = *first;
			rc = -1;
		}
	}
	if (rc == 0 && opt->progress != NULL) {
		opt->progress(opt->progress_ctx, SKG_PK_PHASE_INDEXING, pack->nr, pack->nr);
	}
out:
	for (unsigned t = 0; t < n; t++) {
		p1_free(&ws[t].p);
		skg_pk_inflater_end(&ws[t].inf);
		free(ws[t].refs.e);
		free(ws[t].buf);
		free(ws[t].in);
	}
	free(ws);
	free(r.tasks);
	pthread_cond_destroy(&r.moved);
	pthread_mutex_destroy(&r.lock);
	if (rc == 1) {
		free(refs->e);
		refs->e = NULL;
		refs->n = refs->cap = 0;
		pack->n_deltas = 0;
	}
	return rc;
}

int skg_pk_pass1(struct skg_pk_pack *pack, const struct skg_pk_options *opt, struct skg_pk_inflater *inf,
                 struct skg_pk_ref_table *refs, struct skg_pk_error *err)
{
	if (opt->idx != NULL && opt->threads > 1 && !opt->strict && !opt->in_order) {
		int rc = pass1_parallel(pack, opt, refs, err);
		if (rc != 1) {
			return rc;
		}
		/* given up: the sequential pass, from the start, gives the error as it finds it */
		free(pack->objs);
		pack->objs = NULL;
	}
	return pass1_sequential(pack, opt, inf, refs, err);
}
