/*
 * pack_resolve.c - skg_pk_index_pack: the pack's header, the first pass (pack_pass1.c), then
 * delta resolution on threads (pass 2).
 *
 * Written from Git's format documentation (Documentation/gitformat-pack.txt) and by comparing
 * results with `git index-pack` and `git verify-pack` (Git 2.39); no code was taken from Git.
 *
 * Pass 2 resolves deltas: each whole object that serves as a base is the root of a tree of deltas
 * (OFS_DELTA children found by offset, REF_DELTA children by object ID, in the compact table, once
 * the base's ID is known). Worker threads take roots from a shared counter, no more of them at
 * once than there are CPUs online (take_turn: a thread that holds nothing lets a waiting one go
 * first now and then), and share out the batch, hold and buffer budgets below. Each keeps a stack of
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
 */
#include "pack_internal.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct resolver {
	struct skg_pk_pack *pack;
	const struct skg_pk_options *opt;
	uint32_t *ofs_first; /* CSR: children of object i are ofs_child[ofs_first[i] .. ofs_first[i+1]) */
	uint32_t *ofs_child;
	const struct skg_pk_ref_entry *refs; /* the REF_DELTA entries sorted by base ID (then pack order) */
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
	size_t keep;          /* a thread's entry and delta buffers are let go after use when larger */
	/* The turns (see take_turn): at most `turns` threads resolve at once; a thread waits for
	 * ticket `t` until t < turns_given + turns. */
	pthread_mutex_t turn_lock;
	pthread_cond_t *turn_cv; /* n_threads of them, when turns < n_threads */
	unsigned turns, n_threads;
	uint32_t turn_objs; /* objects a thread resolves before it lets a waiting thread go first */
	uint64_t tickets, turns_given;
};

/* Bytes before an object's content in the buffers of pass 2: room for its Git header ("<type>
 * <size>\0", at most SKG_PK_HEADER_MAX bytes), written there when the object is hashed, so that header
 * and content are one message for sha1kit_dc_batch without a copy. */
#define HEADROOM 32

/*
 * Pass 2 hashes the objects it resolves in batches of up to P2_MSGS objects or P2_BYTES bytes
 * (objects of more than SKG_PK_HB_MAX_OBJ bytes are hashed at once, alone), shared out between the
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
_Static_assert(HEADROOM >= SKG_PK_HEADER_MAX, "HEADROOM holds an object header");

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
	struct skg_pk_inflater inf;
	struct node *nodes; /* the bases to expand, last in first out */
	uint32_t n_nodes, nodes_cap;
	uint32_t low;  /* nodes[0 .. low) hold no data */
	uint64_t used; /* bytes of content held by the nodes and by the base being expanded */
	struct pending pend[P2_MSGS];
	sha1kit_msg msgs[P2_MSGS];
	uint32_t msg_obj[P2_MSGS];
	uint8_t digests[P2_MSGS * SKG_MAX_RAWSZ];
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
	struct skg_pk_hash id; /* the ID of a large object, hashed alone */
	bool roots_done;       /* no root left to take */
	bool has_turn;         /* it holds one of resolver.turns */
	uint32_t turn_objs;    /* objects resolved since it took its turn */
	bool stopped;          /* gave up because another thread failed */
	bool failed;
	struct skg_pk_error err;
};

/* The base ID of REF_DELTA entry i, in the pack (for an error message only: pass 2 never reads the
 * pack's pages but through opt->read, when set). */
static const uint8_t *ref_base_id(const struct skg_pk_pack *pack, uint32_t i)
{
	const struct skg_pk_object *o = &pack->objs[i];
	return pack->data + o->offset + o->hdr_len - pack->rawsz;
}

#define REF_FAN 65536 /* buckets of resolver.ref_fan */

static int cmp_ref_n(const struct skg_pk_ref_entry *x, const struct skg_pk_ref_entry *y, size_t rawsz)
{
	int c = memcmp(x->id, y->id, rawsz);
	return c != 0 ? c : (x->obj > y->obj) - (x->obj < y->obj);
}

static int cmp_ref(const void *a, const void *b)
{
	return cmp_ref_n(a, b, SKG_RAWSZ);
}

static int cmp_ref_sha256(const void *a, const void *b)
{
	return cmp_ref_n(a, b, SKG_MAX_RAWSZ);
}

/* The order of two object IDs (memcmp's sign), the first 8 bytes compared as one number. */
static inline int id_order(const uint8_t *a, const uint8_t *b, size_t rawsz)
{
	uint64_t x = 0, y = 0;
	for (int k = 0; k < 8; k++) {
		x = x << 8 | a[k];
		y = y << 8 | b[k];
	}
	if (x != y) {
		return x < y ? -1 : 1;
	}
	return memcmp(a + 8, b + 8, rawsz - 8);
}

/* The REF_DELTA entries whose base is `id`: refs[*lo .. *hi). */
static void ref_range(const struct resolver *r, const uint8_t *id, uint32_t *lo_out, uint32_t *hi_out)
{
	const struct skg_pk_ref_entry *refs = r->refs;
	if (r->n_ref == 0) {
		*lo_out = *hi_out = 0;
		return;
	}
	unsigned k = (unsigned)id[0] << 8 | id[1];
	uint32_t lo = r->ref_fan[k], end = r->ref_fan[k + 1], hi = end;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (id_order(refs[mid].id, id, r->pack->rawsz) < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	/* the entries equal to id follow (most objects have none, a few several) */
	hi = lo;
	while (hi < end && id_order(refs[hi].id, id, r->pack->rawsz) == 0) {
		hi++;
	}
	*lo_out = lo;
	*hi_out = hi;
}

static void stop_all(struct resolver *r);

static bool worker_fail(struct worker *w)
{
	w->failed = true;
	stop_all(w->r);
	return false;
}

/* Entry data (w->in) and delta (w->delta) buffers kept between two objects: IN_KEEP shared out
 * between the threads (resolver.keep), IN_MIN_KEEP at least, so that what the threads keep does not
 * grow with their number. */
#define IN_KEEP     ((size_t)2 << 20)
#define IN_MIN_KEEP ((size_t)64 << 10)

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
		*avail = pack->len - pack->rawsz - start;
		return pack->data + start;
	}
	/* Pass 1 found the stream to end where the next entry (or the trailer) starts. */
	uint64_t limit = pack->len - pack->rawsz;
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
			skg_pk_set_error(&w->err, true, o->offset,
			                 "entry of %" PRIu64 " bytes does not fit in memory", n);
			return NULL;
		}
		free(w->in);
		w->in_cap = 0;
		w->in = malloc((size_t)n);
		if (w->in == NULL) {
			skg_pk_set_failure(&w->err, SKG_E_NOMEM, true, o->offset,
			                   "out of memory (entry of %" PRIu64 " bytes)", n);
			return NULL;
		}
		w->in_cap = (size_t)n;
	}
	if (w->r->opt->read(w->r->opt->read_ctx, start, w->in, (size_t)n) != 0) {
		/* the caller's read failed: the machine's fault, not the pack's */
		skg_pk_set_failure(&w->err, SKG_E_IO, true, o->offset, "cannot read the pack");
		return NULL;
	}
	w->in_off = start;
	w->in_len = n;
	return w->in;
}

/* Let a large w->in go after use. */
static void entry_done(struct worker *w)
{
	if (w->in_cap > w->r->keep) {
		free(w->in);
		w->in = NULL;
		w->in_cap = 0;
		w->in_len = 0;
	}
}

/* Let a large w->delta go after use. */
static void delta_done(struct worker *w)
{
	if (w->delta_cap > w->r->keep) {
		free(w->delta);
		w->delta = NULL;
		w->delta_cap = 0;
	}
}

/* Inflate the whole object `i` into a new buffer, after HEADROOM bytes. */
static uint8_t *load_whole(struct worker *w, uint32_t i)
{
	const struct skg_pk_pack *pack = w->r->pack;
	const struct skg_pk_object *o = &pack->objs[i];
	uint64_t consumed;
	if (o->size > SIZE_MAX - HEADROOM) {
		skg_pk_set_error(&w->err, true, o->offset,
		                 "object of %" PRIu64 " bytes does not fit in memory", o->size);
		return NULL;
	}
	uint8_t *buf = malloc(HEADROOM + (size_t)o->size);
	if (buf == NULL) {
		skg_pk_set_failure(&w->err, SKG_E_NOMEM, true, o->offset,
		                   "out of memory (object of %" PRIu64 " bytes)", o->size);
		return NULL;
	}
	uint64_t avail;
	const uint8_t *in = entry_data(w, i, &avail);
	if (in == NULL) {
		free(buf);
		return NULL;
	}
	enum skg_pk_inf_status st =
	    skg_pk_inflate_exact(&w->inf, in, avail, buf + HEADROOM, o->size, NULL, NULL, NULL, 0, &consumed);
	entry_done(w);
	if (st != SKG_PK_INF_OK) {
		skg_pk_inflate_error(&w->err, &w->inf, st, o->offset, o->size, "object");
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
			skg_pk_set_error(&w->err, true, o->offset,
			                 "delta of %" PRIu64 " bytes does not fit in memory", o->size);
			return false;
		}
		uint8_t *n = realloc(w->delta, (size_t)o->size);
		if (n == NULL) {
			skg_pk_set_failure(&w->err, SKG_E_NOMEM, true, o->offset,
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
	enum skg_pk_inf_status st =
	    skg_pk_inflate_exact(&w->inf, in, avail, w->delta, o->size, NULL, NULL, NULL, 0, &consumed);
	entry_done(w);
	if (st != SKG_PK_INF_OK) {
		skg_pk_inflate_error(&w->err, &w->inf, st, o->offset, o->size, "delta");
		return false;
	}
	return true;
}

/* build_delta's work, with the delta in w->delta. */
static uint8_t *apply_loaded(struct worker *w, uint32_t i, const uint8_t *base, uint64_t base_len,
                             uint64_t *out_len);

/* Build object `i` (a delta) from its base's content: returns a new buffer (HEADROOM bytes, then
 * the content) and the content's size, or NULL. */
static uint8_t *build_delta(struct worker *w, uint32_t i, const uint8_t *base, uint64_t base_len,
                            uint64_t *out_len)
{
	if (!load_delta(w, i)) {
		return NULL;
	}
	uint8_t *out = apply_loaded(w, i, base, base_len, out_len);
	delta_done(w);
	return out;
}

/* apply_loaded's failure (w->err set, not SKG_E_NOMEM) with git's words for it, when git's
 * patch_delta fails on the delta too (skg_pk_git_patch_check). */
static uint8_t *delta_fails(struct worker *w, uint32_t i, uint64_t base_len)
{
	const struct skg_pk_object *o = &w->r->pack->objs[i];
	struct skg_pk_error git;
	if (skg_pk_git_patch_check(base_len, w->delta, o->size, o->offset, &git) != 0) {
		w->err.git_error = git.git_error;
		memcpy(w->err.git_fatal, git.git_fatal, sizeof(git.git_fatal));
	}
	return NULL;
}

static uint8_t *apply_loaded(struct worker *w, uint32_t i, const uint8_t *base, uint64_t base_len,
                             uint64_t *out_len)
{
	const struct skg_pk_object *o = &w->r->pack->objs[i];
	const uint8_t *d = w->delta, *dend = w->delta + o->size;
	uint64_t want_base, result;
	if (o->size < 4) { /* two sizes and one instruction at least; Git refuses shorter deltas too */
		skg_pk_set_error(&w->err, true, o->offset, "delta data of %" PRIu64 " bytes is too short",
		                 o->size);
		return delta_fails(w, i, base_len);
	}
	if (!skg_pk_delta_size(&d, dend, &want_base) || !skg_pk_delta_size(&d, dend, &result)) {
		skg_pk_set_error(&w->err, true, o->offset, "delta header is truncated or malformed");
		return delta_fails(w, i, base_len);
	}
	if (want_base != base_len) {
		skg_pk_set_error(&w->err, true, o->offset,
		                 "delta is for a base of %" PRIu64 " bytes, but its base has %" PRIu64,
		                 want_base, base_len);
		return delta_fails(w, i, base_len);
	}
	uint64_t total;
	const char *why = skg_pk_scan_delta(base_len, d, dend, &total);
	if (why != NULL) {
		skg_pk_set_error(&w->err, true, o->offset, "%s", why);
		return delta_fails(w, i, base_len);
	}
	if (total != result) {
		skg_pk_set_error(&w->err, true, o->offset,
		                 "delta result is %" PRIu64 " bytes, its header says %" PRIu64, total,
		                 result);
		return delta_fails(w, i, base_len);
	}
	uint64_t max = w->r->opt->max_object_size;
	if ((max != 0 && result > max) || result > SIZE_MAX - HEADROOM) {
		skg_pk_set_error(&w->err, true, o->offset,
		                 "delta result of %" PRIu64 " bytes is over the size limit", result);
		return delta_fails(w, i, base_len);
	}
	uint8_t *out = malloc(HEADROOM + (size_t)result);
	if (out == NULL) {
		skg_pk_set_failure(&w->err, SKG_E_NOMEM, true, o->offset,
		                   "out of memory (object of %" PRIu64 " bytes)", result);
		return NULL;
	}
	why = skg_pk_apply_delta(base, base_len, d, dend, out + HEADROOM, result);
	if (why != NULL) {
		skg_pk_set_error(&w->err, true, o->offset, "%s", why);
		free(out);
		return delta_fails(w, i, base_len);
	}
	*out_len = result;
	return out;
}

/* Queue resolved object `obj` of `type` (content at buf + HEADROOM, `size` bytes) for its ID. */
static void pend_add(struct worker *w, uint32_t obj, unsigned type, uint8_t *buf, uint64_t size)
{
	char hdr[SKG_PK_HEADER_MAX];
	size_t hl = skg_pk_object_header(hdr, type, size);
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
			skg_pk_set_failure(&w->err, SKG_E_NOMEM, false, 0, "out of memory");
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
	if (!skg_pk_batch_ids(w->r->pack->rawsz, w->msgs, w->msg_obj, n, w->digests, w->where,
	                      w->r->pack->objs, w->r->opt, &w->err)) {
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
				skg_pk_set_failure(&w->err, SKG_E_NOMEM, false, 0, "out of memory");
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
	w->turn_objs++;
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
	if (len <= SKG_PK_HB_MAX_OBJ && w->used < r->batch_hold) {
		pend_add(w, c, type, buf, len);
		return (w->n_pend < r->batch_msgs && w->pend_bytes < r->batch_bytes) || flush_pending(w);
	}
	/* A large object (a batch would gain little), or too much held: hashed now, in one stream. */
	char hdr[SKG_PK_HEADER_MAX];
	size_t hl = skg_pk_object_header(hdr, type, len);
	memcpy(buf + HEADROOM - hl, hdr, hl);
	skg_pk_hash_update(&w->id, buf + HEADROOM - hl, hl + (size_t)len);
	if (!skg_pk_finish_id(&w->id, objs[c].id, objs[c].offset, &w->err)) {
		free(buf);
		return false;
	}
	if (r->opt->object != NULL && r->opt->object(r->opt->object_ctx, c, type, buf + HEADROOM, len) != 0) {
		skg_pk_stopped_error(&w->err, objs[c].offset);
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
 * Turns. With more threads than CPUs online, the threads beyond the CPUs add no speed, but each
 * would hold its working set (the object being built, its base and nodes, its batch) at the same
 * time as the others, and the heap would grow with --threads. So at most resolver.turns threads
 * (the CPUs online, or the threads if fewer) resolve at once: each takes a turn before its first
 * root and gives it up, once it holds nothing (no nodes, no pending IDs), after resolver.turn_objs
 * objects if another thread waits, or when it is done. Tickets make the waiting threads take their turns
 * in order: a thread holds one ticket at most, so ticket t waits on turn_cv[t % threads] alone.
 * With no more threads than CPUs no thread ever waits.
 */
#define TURN_MIN_OBJS 32   /* a turn: a quarter of a thread's share of the deltas, this at least */
#define TURN_MAX_OBJS 4096 /* and this at most */

static void take_turn(struct worker *w)
{
	struct resolver *r = w->r;
	w->turn_objs = 0;
	if (r->turns == r->n_threads) {
		return;
	}
	pthread_mutex_lock(&r->turn_lock);
	uint64_t t = r->tickets++;
	while (t >= r->turns_given + r->turns && !atomic_load(&r->stop)) {
		pthread_cond_wait(&r->turn_cv[t % r->n_threads], &r->turn_lock);
	}
	pthread_mutex_unlock(&r->turn_lock);
	w->has_turn = true;
}

static void give_turn(struct worker *w)
{
	struct resolver *r = w->r;
	if (!w->has_turn) {
		return;
	}
	w->has_turn = false;
	pthread_mutex_lock(&r->turn_lock);
	uint64_t next = r->turns_given++ + r->turns; /* the ticket that now has its turn */
	pthread_cond_signal(&r->turn_cv[next % r->n_threads]);
	pthread_mutex_unlock(&r->turn_lock);
}

/* Whether a thread that holds nothing should let a waiting thread have its turn. */
static bool turn_over(struct worker *w)
{
	struct resolver *r = w->r;
	if (!w->has_turn || w->turn_objs < r->turn_objs) {
		return false;
	}
	pthread_mutex_lock(&r->turn_lock);
	bool waiting = r->tickets > r->turns_given + r->turns;
	pthread_mutex_unlock(&r->turn_lock);
	if (!waiting) {
		w->turn_objs = 0;
	}
	return waiting;
}

/* A stop: wake the threads that wait for a turn. */
static void stop_all(struct resolver *r)
{
	atomic_store(&r->stop, true);
	if (r->turns < r->n_threads) {
		pthread_mutex_lock(&r->turn_lock);
		for (unsigned k = 0; k < r->n_threads; k++) {
			pthread_cond_signal(&r->turn_cv[k]);
		}
		pthread_mutex_unlock(&r->turn_lock);
	}
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
	take_turn(w);
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
		if (!w->roots_done && turn_over(w)) {
			if (w->n_pend > 0) { /* their IDs first: they may give nodes */
				if (!flush_pending(w)) {
					worker_fail(w);
					break;
				}
				continue;
			}
			give_turn(w);
			take_turn(w);
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
	give_turn(w);
	return NULL;
}

/* After pass 2: report the first delta that could not be resolved, if any (and, as git's
 * conclude_pack dies, how many there are). */
static bool check_unresolved(const struct skg_pk_pack *pack, struct skg_pk_error *err)
{
	for (uint32_t i = 0; i < pack->nr; i++) {
		if (pack->objs[i].real_type != 0) {
			continue;
		}
		uint32_t n = 0;
		for (uint32_t k = i; k < pack->nr; k++) {
			n += pack->objs[k].real_type == 0;
		}
		/* Follow OFS_DELTA bases down to the REF_DELTA whose base is missing. */
		uint32_t j = i;
		while (pack->objs[j].type == SKG_PK_OFS_DELTA && pack->objs[j].base != SKG_PK_NO_BASE &&
		       pack->objs[pack->objs[j].base].real_type == 0) {
			j = pack->objs[j].base;
		}
		char hex[2 * SKG_MAX_RAWSZ + 1];
		if (pack->objs[j].type == SKG_PK_REF_DELTA) {
			skg_to_hex_len(ref_base_id(pack, j), pack->rawsz, hex);
			skg_pk_set_error(
			    err, true, pack->objs[j].offset,
			    "unresolved delta: base object %s is not in the pack (or the deltas form a "
			    "cycle)",
			    hex);
		} else if (pack->objs[j].base == SKG_PK_NO_BASE) {
			skg_pk_set_error(err, true, pack->objs[j].offset,
			                 "unresolved delta: no entry starts at its base's offset");
		} else {
			skg_pk_set_error(err, true, pack->objs[i].offset, "unresolved delta");
		}
		/* builtin/index-pack.c conclude_pack (2.39.5, 2.55.0): "pack has %d unresolved delta" /
		 * "... deltas" */
		snprintf(err->git_fatal, sizeof(err->git_fatal), "pack has %" PRIu32 " unresolved delta%s", n,
		         n == 1 ? "" : "s");
		return false;
	}
	return true;
}

/* The lock and condition variables of the turns, when some threads will wait; false when they
 * cannot be made. */
static bool turns_init(struct resolver *r)
{
	unsigned k = 0;
	if (r->turns == r->n_threads) {
		return true;
	}
	r->turn_cv = malloc(r->n_threads * sizeof(*r->turn_cv));
	if (r->turn_cv == NULL || pthread_mutex_init(&r->turn_lock, NULL) != 0) {
		free(r->turn_cv);
		return false;
	}
	while (k < r->n_threads && pthread_cond_init(&r->turn_cv[k], NULL) == 0) {
		k++;
	}
	if (k == r->n_threads) {
		return true;
	}
	while (k > 0) {
		pthread_cond_destroy(&r->turn_cv[--k]);
	}
	pthread_mutex_destroy(&r->turn_lock);
	free(r->turn_cv);
	return false;
}

static void turns_end(struct resolver *r)
{
	if (r->turns < r->n_threads) {
		for (unsigned k = 0; k < r->n_threads; k++) {
			pthread_cond_destroy(&r->turn_cv[k]);
		}
		pthread_mutex_destroy(&r->turn_lock);
		free(r->turn_cv);
	}
}

static int pass2(struct skg_pk_pack *pack, const struct skg_pk_options *opt, struct skg_pk_ref_table *refs,
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
		skg_pk_set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
		goto out;
	}
	uint32_t n_ofs = 0;
	for (uint32_t i = 0; i < nr; i++) {
		/* (an OFS_DELTA on no entry, opt->ofs_unresolved, is nobody's child) */
		if (pack->objs[i].type == SKG_PK_OFS_DELTA && pack->objs[i].base != SKG_PK_NO_BASE) {
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
		skg_pk_set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < nr; i++) {
		const struct skg_pk_object *o = &pack->objs[i];
		if (o->type == SKG_PK_OFS_DELTA && o->base != SKG_PK_NO_BASE) {
			r.ofs_child[r.ofs_first[o->base] + fill[o->base]++] = i;
		}
	}
	free(fill);
	r.refs = refs->e;
	r.n_ref = refs->n;
	if (r.n_ref > 0) {
		qsort(refs->e, refs->n, sizeof(*refs->e),
		      pack->rawsz == SKG_MAX_RAWSZ ? cmp_ref_sha256 : cmp_ref);
		r.ref_fan = malloc((REF_FAN + 1) * sizeof(uint32_t));
		if (r.ref_fan == NULL) {
			skg_pk_set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
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
	r.n_threads = nthreads;
	r.turns = skg_pk_cpu_clamp(nthreads);
	/* the budgets are shared out between the threads that hold memory at once: those that have a
	 * turn (a thread gives its turn up only when it holds nothing) */
	unsigned holders = r.turns;
	uint64_t turn = pack->n_deltas / ((uint64_t)nthreads * 4);
	r.turn_objs = turn < TURN_MIN_OBJS   ? TURN_MIN_OBJS
	              : turn > TURN_MAX_OBJS ? TURN_MAX_OBJS
	                                     : (uint32_t)turn;
	r.thread_limit = opt->cache_limit / nthreads;
	r.batch_msgs = P2_MSGS / holders < P2_MIN_MSGS ? P2_MIN_MSGS : P2_MSGS / holders;
	r.batch_bytes = P2_BYTES / holders < P2_MIN_BYTES ? P2_MIN_BYTES : P2_BYTES / holders;
	r.batch_hold = P2_HOLD / holders < P2_MIN_HOLD ? P2_MIN_HOLD : P2_HOLD / holders;
	r.keep = IN_KEEP / holders < IN_MIN_KEEP ? IN_MIN_KEEP : IN_KEEP / holders;
	struct worker *ws = calloc(nthreads, sizeof(*ws));
	if (ws == NULL || !turns_init(&r)) {
		free(ws);
		skg_pk_set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
		goto out;
	}
	unsigned started = 0;
	bool spawn_failed = false, zlib_failed = false;
	for (unsigned t = 0; t < nthreads; t++) {
		ws[t].r = &r;
		ws[t].index = t;
		skg_pk_hash_init(&ws[t].id, skg_pk_id_kind(pack->rawsz));
		if (!skg_pk_inflater_init(&ws[t].inf)) {
			spawn_failed = zlib_failed = true; /* zlib could not allocate its state */
			break;
		}
		if (t > 0 && pthread_create(&ws[t].thread, NULL, worker_main, &ws[t]) != 0) {
			skg_pk_inflater_end(&ws[t].inf);
			spawn_failed = true;
			break;
		}
		started++;
	}
	if (spawn_failed) {
		stop_all(&r);
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
	} else if (zlib_failed) {
		skg_pk_set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
	} else if (spawn_failed) {
		skg_pk_set_failure(err, SKG_E_THREAD, false, 0, "cannot start the delta resolution threads");
	} else if (opt->allow_unresolved || check_unresolved(pack, err)) {
		rc = 0;
	} else if (opt->progress != NULL && pack->n_deltas > 0) {
		/* git's conclude_pack dies once the resolvable deltas are resolved: its meter stands at
		 * their count */
		opt->progress(opt->progress_ctx, SKG_PK_PHASE_RESOLVING, atomic_load(&r.resolved),
		              pack->n_deltas);
	}
	for (unsigned t = 0; t < started; t++) {
		skg_pk_inflater_end(&ws[t].inf);
		free(ws[t].nodes);
		free(ws[t].chain);
		free(ws[t].delta);
		free(ws[t].in);
	}
	free(ws);
	turns_end(&r);
	if (rc == 0) {
		for (uint32_t i = 0; i < nr; i++) {
			if (pack->objs[i].depth > pack->max_depth) {
				pack->max_depth = pack->objs[i].depth;
			}
		}
		uint64_t done = atomic_load(&r.resolved);
		if (opt->progress != NULL && pack->n_deltas > 0) {
			/* with deltas left for --fix-thin's local bases, the meter stands at those
			 * resolved: git's ends after its fix_unresolved_deltas */
			opt->progress(opt->progress_ctx, SKG_PK_PHASE_RESOLVING,
			              opt->allow_unresolved && done < pack->n_deltas ? done : pack->n_deltas,
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
	struct skg_pk_inflater inf;
	memset(pack, 0, sizeof(*pack));
	memset(err, 0, sizeof(*err));
	pack->data = data;
	pack->len = len;
	pack->rawsz = skg_pk_opt_rawsz(opt);
	if (len < 4 || memcmp(data, "PACK", 4) != 0) {
		skg_pk_set_error(err, false, 0, "not a pack file (no PACK signature)");
		return -1;
	}
	if (len < 12) {
		skg_pk_set_error(err, false, 0, "pack is truncated: incomplete header");
		return -1;
	}
	pack->version = skg_pk_get_be32(data + 4);
	if (pack->version != 2 && pack->version != 3) {
		skg_pk_set_error(err, false, 0, "unsupported pack version %" PRIu32, pack->version);
		return -1;
	}
	if (len < 12 + pack->rawsz) {
		skg_pk_set_error(err, true, 12, "pack is truncated: no room for the trailer");
		return -1;
	}
	pack->nr = skg_pk_get_be32(data + 8);
	if (!skg_pk_inflater_init(&inf)) { /* zlib could not allocate its state */
		skg_pk_set_failure(err, SKG_E_NOMEM, false, 0, "out of memory");
		return -1;
	}
	struct skg_pk_ref_table refs = {NULL, 0, 0};
	int rc = skg_pk_pass1(pack, opt, &inf, &refs, err);
	skg_pk_inflater_end(&inf);
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
