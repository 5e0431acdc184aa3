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
 * goes (skg_pk_options.release).
 */
#include "pack_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	skg_pk_set_failure(err, SKG_E_COLLISION, true, offset,
	                   "collision attack detected in object at offset %" PRIu64, offset);
}

/* Finish a SHA-1DC object ID; false (and `err` set) when a collision attack was detected. */
bool skg_pk_finish_id(sha1kit_dc_ctx *dc, uint8_t id[SKG_RAWSZ], uint64_t offset, struct skg_pk_error *err)
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
#define HB_ARENA ((size_t)4 << 20) /* bytes of queued objects */
#define HB_MSGS  256               /* queued objects */

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
bool skg_pk_batch_ids(const sha1kit_msg *msgs, const uint32_t *obj, size_t n, uint8_t *digests,
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
	return skg_pk_batch_ids(hb->msgs, hb->obj, n, hb->digests, hb->where, objs, hb->opt, err);
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

/*
 * Parse the entry header at data[pos], reading nothing at or past `end`: type and size
 * (little-endian base-128 with 4 bits in the first byte), then an OFS_DELTA's negative offset
 * (big-endian base-128, 1 added per continuation byte) or a REF_DELTA's base ID. Returns NULL, or
 * h->why (the error).
 */
const char *skg_pk_entry_header(const uint8_t *data, uint64_t end, uint64_t pos, struct skg_pk_entry_hdr *h)
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

/* Pass 1 lets the pack pages it has read go (opt->release) every RELEASE_EVERY bytes. */
#define RELEASE_EVERY ((uint64_t)2 << 20)

int skg_pk_pass1(struct skg_pk_pack *pack, const struct skg_pk_options *opt, struct skg_pk_inflater *inf,
                 struct skg_pk_ref_table *refs, struct skg_pk_error *err)
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
		skg_pk_set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
		hb_free(hb);
		return -1;
	}
	sha1kit_fast_init(&trailer);
	sha1kit_dc_init(&dc, NULL); /* Git's settings: true digest, detection on */

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

		struct skg_pk_entry_hdr h;
		if (skg_pk_entry_header(data, end, pos, &h) != NULL) {
			skg_pk_set_error(err, true, pos, "%s", h.why);
			goto out;
		}
		unsigned type = h.type;
		uint64_t size = h.size;
		uint64_t p = pos + h.len;
		if (opt->max_object_size != 0 && size > opt->max_object_size) {
			skg_pk_set_error(err, true, pos, "object of %" PRIu64 " bytes is over the size limit",
			                 size);
			goto out;
		}
		o->type = (uint8_t)type;
		o->size = size;
		if (type == SKG_PK_OFS_DELTA) {
			o->base = find_offset(pack->objs, i, h.base_offset);
			if (o->base == SKG_PK_NO_BASE) {
				skg_pk_set_error(err, true, pos,
				                 "delta base at offset %" PRIu64
				                 " is not the start of an object",
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
				struct skg_pk_ref_entry *n = realloc(refs->e, (size_t)ncap * sizeof(*n));
				if (n == NULL) {
					skg_pk_set_failure(err, SKG_E_NOMEM, false, 0,
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
		enum skg_pk_inf_status st;
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
			char hdr[SKG_PK_HEADER_MAX];
			sha1kit_dc_update(&dc, hdr, skg_pk_object_header(hdr, type, size));
		}
		if (room != NULL) {
			/* inflated straight into the batch arena: exactly `size` bytes or an error */
			st = skg_pk_inflate_exact(inf, data + p, end - p, room, size, NULL, NULL, chunk,
			                          CHUNK_LEN, &consumed);
			if (st == SKG_PK_INF_OK) {
				hb_commit(hb, i);
			}
		} else if (whole && opt->object != NULL &&
		           (type != SKG_PK_BLOB || (opt->whole_blobs && size <= SKG_PK_BIG_FILE_THRESHOLD))) {
			/* The whole object, for the object callback; the buffer grows with the data, so
			 * a false size cannot make us allocate much. */
			in_full = true;
			full.len = 0;
			st = skg_pk_inflate_exact(inf, data + p, end - p, NULL, size, grow_sink, &full, chunk,
			                          CHUNK_LEN, &consumed);
			if (full.failed) {
				skg_pk_set_failure(err, SKG_E_NOMEM, true, pos,
				                   "out of memory (object of %" PRIu64 " bytes)", size);
				goto out;
			}
			if (st == SKG_PK_INF_OK) {
				sha1kit_dc_update(&dc, full.p, full.len);
			}
		} else if (size > CHUNK_LEN && size <= SCRATCH_MAX && scratch_fit(&scratch, size)) {
			/* a delta or an object too large to batch, up to a few MiB: one libdeflate call
			 * into a buffer is faster than zlib in pieces */
			st = skg_pk_inflate_exact(inf, data + p, end - p, scratch.p, size, NULL, NULL, chunk,
			                          CHUNK_LEN, &consumed);
			if (st == SKG_PK_INF_OK && whole) {
				sha1kit_dc_update(&dc, scratch.p, (size_t)size);
			}
		} else {
			st = skg_pk_inflate_exact(inf, data + p, end - p, NULL, size,
			                          whole ? dc_sink : null_sink, &dc, chunk, CHUNK_LEN,
			                          &consumed);
		}
		if (st != SKG_PK_INF_OK) {
			skg_pk_inflate_error(err, inf, st, pos, size, "object");
			goto out;
		}
		if (whole && room == NULL && !skg_pk_finish_id(&dc, o->id, pos, err)) {
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
				skg_pk_stopped_error(err, pos);
				goto out;
			}
		}
		if (!whole) {
			sha1kit_dc_reset(&dc);
		}
		p += consumed;
		o->crc32 = skg_pk_crc32(0, data + pos, p - pos);
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
		skg_pk_set_error(err, true, pos,
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
		skg_pk_to_hex(sum, want);
		skg_pk_to_hex(data + end, got);
		skg_pk_set_error(err, true, end,
		                 "pack trailer mismatch: the pack's SHA-1 is %s, its trailer says %s", want,
		                 got);
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
