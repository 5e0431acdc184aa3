/*
 * fsck_ahead.c - the read ahead of fsck's object-by-object pass over a damaged pack (see
 * fsck_ahead.h).
 *
 * Part of the Git layer (src/git/, library sha1kit_git).
 */
#include "fsck_ahead.h"

#include <pthread.h>
#include <stdlib.h>

#include "object.h"
#include "pack.h"
#include "pack_cache.h"

enum {
	WINDOW = 4096, /* entries claimed ahead of the pass at most (the ring's slots) */
	CHUNK = 64     /* entries a thread claims at once (consecutive: its base cache serves them) */
};
#define MAX_OBJECT  ((uint64_t)1 << 20)  /* an object (or a base on its chain) larger: the pass's */
#define BUDGET      ((uint64_t)64 << 20) /* bytes read and not taken, past which no chunk is claimed */
#define CACHE_BYTES ((uint64_t)96 << 20) /* the threads' base caches in all */

struct slot {
	struct skg_fsck_ahead_obj obj;
	bool done;
};

struct skg_fsck_ahead {
	pthread_mutex_t lock;
	pthread_cond_t room;  /* the threads wait for entries they may claim */
	pthread_cond_t ready; /* the pass waits for an entry a thread claimed */
	const struct skg_file *file, *idx;
	const struct skg_fsck_ent *e;
	size_t n;
	uint64_t sig_at, big_file, cache_limit;
	unsigned format;
	size_t rawsz;
	size_t next;   /* the first entry nobody claimed */
	size_t cur;    /* the entry the pass takes next */
	uint64_t held; /* bytes read and not taken */
	bool stop;
	struct slot *ring; /* entry k in ring[k % WINDOW] */
	pthread_t *tids;
	unsigned started;
};

/* Entry k as the pass would find it, where it is whole. */
static void read_one(const struct skg_fsck_ahead *a, const struct skg_pk_base_cache *cache, size_t k,
                     struct skg_fsck_ahead_obj *o)
{
	const struct skg_fsck_ent *x = &a->e[k];
	const uint8_t *pack = a->file->data;
	const uint64_t pack_len = a->file->len;
	uint64_t next = k + 1 < a->n ? a->e[k + 1].off : a->sig_at, hsize = 0;
	*o = (struct skg_fsck_ahead_obj){false, 0, NULL, 0, -1};
	if (x->off > a->sig_at || next > pack_len) {
		return; /* where git dies: the pass's */
	}
	o->crc = skg_pk_idx_crc_differs(a->idx->data, (size_t)a->idx->len, (unsigned)a->rawsz, x->k, pack,
	                                x->off, next - x->off)
	             ? 1
	             : 0;
	if (skg_pk_git_entry_header(pack, pack_len, (unsigned)a->rawsz, x->off, &hsize) == SKG_BLOB &&
	    hsize >= a->big_file) {
		return; /* a blob git streams */
	}
	struct skg_pk_error err;
	if (skg_pk_read_object_cached(pack, pack_len, a->idx->data, (size_t)a->idx->len, (unsigned)a->rawsz,
	                              x->off, MAX_OBJECT, cache, &o->type, &o->data, &o->len, &err) != 0) {
		o->data = NULL;
		return;
	}
	if (skg_object_id_differs(a->format, a->rawsz, o->type, x->id, o->data, (size_t)o->len)) {
		free(o->data);
		o->data = NULL;
		return;
	}
	o->whole = true;
}

/* With a->lock held: the end of the next chunk to claim (a whole chunk, or the last, within the
 * window and the budget), or 0 where none may be claimed now. */
static size_t claimable(const struct skg_fsck_ahead *a)
{
	size_t to = a->next + CHUNK < a->n ? a->next + CHUNK : a->n;
	return a->stop || a->next >= a->n || to > a->cur + WINDOW || a->held >= BUDGET ? 0 : to;
}

/* With a->lock held: claims the next chunk where one may be claimed and reads it (the lock
 * released meanwhile); false where none may be. */
static bool read_chunk(struct skg_fsck_ahead *a, const struct skg_pk_base_cache *cache)
{
	size_t from = a->next, to = claimable(a);
	if (to == 0) {
		return false;
	}
	a->next = to;
	for (size_t k = from; k < to; k++) {
		struct skg_fsck_ahead_obj o;
		pthread_mutex_unlock(&a->lock);
		read_one(a, cache, k, &o);
		pthread_mutex_lock(&a->lock);
		a->ring[k % WINDOW] = (struct slot){o, true};
		a->held += o.whole ? o.len : 0;
		pthread_cond_broadcast(&a->ready);
	}
	return true;
}

static void *ahead_main(void *arg)
{
	struct skg_fsck_ahead *a = arg;
	struct skg_pk_cache cache = {0};
	const bool cached = skg_pk_cache_init(&cache, a->cache_limit) == 0;
	const struct skg_pk_base_cache iface = skg_pk_cache_iface(&cache);
	pthread_mutex_lock(&a->lock);
	while (!a->stop && a->next < a->n) {
		if (!read_chunk(a, cached ? &iface : NULL)) {
			pthread_cond_wait(&a->room, &a->lock);
		}
	}
	pthread_mutex_unlock(&a->lock);
	skg_pk_cache_release(&cache);
	return NULL;
}

struct skg_fsck_ahead *skg_fsck_ahead_start(const struct skg_file *file, const struct skg_file *idx,
                                            const struct skg_fsck_ent *e, size_t n, uint64_t sig_at,
                                            unsigned format, size_t rawsz, uint64_t big_file,
                                            unsigned threads)
{
	if (threads < 2 || n == 0) {
		return NULL;
	}
	struct skg_fsck_ahead *a = calloc(1, sizeof(*a));
	if (a == NULL) {
		return NULL;
	}
	*a = (struct skg_fsck_ahead){.file = file,
	                             .idx = idx,
	                             .e = e,
	                             .n = n,
	                             .sig_at = sig_at,
	                             .big_file = big_file,
	                             .cache_limit = CACHE_BYTES / (threads - 1),
	                             .format = format,
	                             .rawsz = rawsz};
	a->ring = calloc(WINDOW, sizeof(*a->ring));
	a->tids = calloc(threads - 1, sizeof(*a->tids));
	if (a->ring == NULL || a->tids == NULL) {
		free(a->ring);
		free(a->tids);
		free(a);
		return NULL;
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->room, NULL);
	pthread_cond_init(&a->ready, NULL);
	while (a->started < threads - 1 && pthread_create(&a->tids[a->started], NULL, ahead_main, a) == 0) {
		a->started++;
	}
	if (a->started == 0) {
		skg_fsck_ahead_stop(a);
		return NULL;
	}
	return a;
}

bool skg_fsck_ahead_take(struct skg_fsck_ahead *a, size_t k, const struct skg_pk_base_cache *cache,
                         struct skg_fsck_ahead_obj *out)
{
	if (a == NULL || k >= a->n) {
		return false;
	}
	pthread_mutex_lock(&a->lock);
	struct slot *s = &a->ring[k % WINDOW];
	while (k >= a->next || !s->done) {
		/* not claimed yet (then this chunk is the next), or still being read: rather than wait,
		 * the pass reads the next chunk itself */
		if (!read_chunk(a, cache)) {
			pthread_cond_wait(&a->ready, &a->lock);
		}
	}
	*out = s->obj;
	s->done = false;
	a->held -= out->whole ? out->len : 0;
	a->cur = k + 1;
	if (claimable(a) != 0) {
		pthread_cond_signal(&a->room); /* a chunk may be claimed: one thread wakes for it */
	}
	pthread_mutex_unlock(&a->lock);
	return true;
}

void skg_fsck_ahead_stop(struct skg_fsck_ahead *a)
{
	if (a == NULL) {
		return;
	}
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_broadcast(&a->room);
	pthread_mutex_unlock(&a->lock);
	for (unsigned t = 0; t < a->started; t++) {
		pthread_join(a->tids[t], NULL);
	}
	for (size_t i = 0; i < WINDOW; i++) {
		if (a->ring[i].done) {
			free(a->ring[i].obj.data);
		}
	}
	pthread_cond_destroy(&a->ready);
	pthread_cond_destroy(&a->room);
	pthread_mutex_destroy(&a->lock);
	free(a->ring);
	free(a->tids);
	free(a);
}
