/* graph.c - the object graph and connectivity walk of fsck (graph.h). */
#include "graph.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "object.h"
#include "objtab.h"
#include "util.h"

enum {
	F_HAS = 1,       /* the object exists (added) */
	F_REACHABLE = 2, /* marked by the walk */
	F_USED = 4,      /* an existing object links to it */
	F_ROOT = 8,      /* named as a root */
	F_WALKERR = 16,  /* following its links fails part way (skg_graph_add) */
	F_RELOAD = 32,   /* its links are not kept: the walk asks for them (skg_graph_add_reload) */
	F_UNREAD = 64,   /* present, never read: type and links unknown (skg_graph_add_unread) */
	F_BADREAD = 128, /* F_UNREAD, and cannot be read: absent to skg_graph_has */
};
/* The flags skg_graph_add_unread_walked gives (F_BADREAD too): listed, read by git's walk, failing */
#define F_WALKED (F_HAS | F_UNREAD | F_WALKERR)

/* The type byte of an object: its type (1..4, 0: none) in the low bits, and two marks. */
#define TYPE_MASK  7u
#define T_NOREAD   0x08u /* git's walk reads it again and cannot (skg_graph_set_noread) */
#define T_COPY     0x08u /* the same bit on an F_UNREAD object: a copy of it was added and read */
#define T_PPACK    0x10u /* an object of a promisor pack (skg_graph_set_promisor with links) */
#define T_PROMISOR 0x20u /* a promisor object (skg_graph_set_promisor) */
#define T_CONFLICT 0x40u /* two events disagree on its type (skg_graph_conflicts) */
#define T_FORCED   0x80u /* its type is git's, set by skg_graph_force_type */
#define TY(o)      ((unsigned)(o)->type & TYPE_MASK)

#define LINK_TYPE_SHIFT 29
#define LINK_INDEX_MASK ((1u << LINK_TYPE_SHIFT) - 1)
#define NO_LINKS        UINT32_MAX

/*
 * The links live in blocks of 2^22 (16 MiB) that never move: growing one array by doubling copied
 * the whole of it each time (6% of a one-thread fsck of git.git's pack in realloc's memcpy). An
 * object's links are contiguous: a list that does not fit the rest of the current block starts a
 * new allocation of as many blocks as it needs, whose block slots all point into it. The first
 * allocation, when the first list fits in FIRST_LINKS, is only that long (the start of block 0):
 * most repositories a program checks are small (a test's, a fresh clone's), and a 16 MiB
 * allocation and free cost each of them more than their whole check under AddressSanitizer (which
 * clears the shadow of both) and under qemu; the next allocation starts at block 1.
 */
#define BLOCK_SHIFT 22
#define BLOCK_LINKS ((uint64_t)1 << BLOCK_SHIFT)
#define MAX_BLOCKS  ((size_t)1 << (32 - BLOCK_SHIFT))
#define FIRST_LINKS ((uint64_t)1 << 16)
/* The blocks links_alloc reaches into (the first may be partial). */
#define BLOCKS_USED(g) (((g)->links_alloc + BLOCK_LINKS - 1) >> BLOCK_SHIFT)

struct gobj {
	uint8_t id[SKG_MAX_RAWSZ]; /* the graph's rawsz bytes, then zeros */
	uint8_t type; /* the real type when F_HAS, else the type of the first link to it (0: none);
	               * TYPE_MASK, with T_CONFLICT and T_FORCED */
	uint8_t flags;
	uint16_t source; /* F_RELOAD: where the caller can read the object again */
	uint32_t first;  /* links[first .. first + n) */
	uint32_t n;
	uint32_t pos;
	/* the first event that named it in git's order of checks (see git_hash_order): the order of
	 * the add (skg_graph_add's `order`; UINT64_MAX: none) and 0 for the object itself, k + 1 for
	 * its k-th link */
	uint64_t order;
	uint64_t add_order; /* F_HAS: the `order` of its (first) add */
};

/*
 * An add that found the graph busy (another thread inside): queued, with its links, for the thread
 * inside to insert before it leaves. A header, then n struct skg_link (alignment 1).
 */
struct pending {
	uint8_t id[SKG_MAX_RAWSZ];
	uint8_t type, walk_error, keep;
	uint16_t source;
	uint32_t n;
	uint64_t order;
};

struct queue {
	uint8_t *p;
	size_t len, cap;
};

/* A root of the walk: the object, and whether git parses it there (a ref or HEAD). */
struct root {
	uint32_t obj;
	bool parse;
	uint8_t type; /* what the root says it is (skg_graph_root's `type`) */
	bool dropped; /* --connectivity-only: git's lookup of it failed (gty_start) */
};

/* skg_graph_root_lookup: git looked `obj` up when `at` roots had been given. */
struct root_lookup {
	uint32_t at, obj;
};

/* A root's name (skg_graph_root_named). */
struct root_name {
	uint32_t obj;
	char *name;
};

/* The other add of an object added twice: its `order` (skg_graph_add). */
struct dup_add {
	uint64_t order;
	uint32_t obj;
};

/* The array v of n elements of `size` bytes with room for one more: v itself, or v moved to a
 * larger allocation (*alloc elements: doubled, 16 at first); NULL when out of memory (v stays). */
static void *grow(void *v, size_t size, uint32_t n, uint32_t *alloc)
{
	if (n < *alloc) {
		return v;
	}
	uint32_t a = *alloc ? *alloc * 2 : 16;
	void *w = realloc(v, (size_t)a * size);
	if (w != NULL) {
		*alloc = a;
	}
	return w;
}

#define PACK_IN_MIDX  0x80000000u
#define PACK_PROMISOR 0x40000000u

struct skg_graph {
	pthread_mutex_t lock;
	/*
	 * Adds that found `lock` taken (pending records). Whoever holds `lock` swaps it with `spare`
	 * and inserts them; `qlock` guards `queue` only, for a memcpy at a time. Every queued add is
	 * inserted before the last add returns: the one who queues tries `lock` after queueing, and
	 * whoever leaves `lock` looks at the queue after leaving (release).
	 */
	pthread_mutex_t qlock;
	struct queue queue, spare;
	bool failed;  /* out of memory while inserting a queued add: every later call fails */
	size_t rawsz; /* bytes of an object ID: 20 (SHA-1) or 32 (SHA-256) */
	struct gobj *objs;
	uint32_t nr, alloc;
	uint32_t *slots;   /* index + 1 of each object, open addressing (git's hash, objtab.h); 0 = empty */
	uint32_t *rereads; /* the objects skg_graph_set_reread marked (indexes; few, mostly none) */
	uint32_t nrereads;
	uint8_t *graft_ids; /* skg_graph_set_graft_lookups: ngraft_ids IDs of rawsz bytes */
	uint32_t ngraft_ids;
	uint32_t nslots;  /* a power of two, at least twice nr */
	uint32_t **block; /* block[i >> BLOCK_SHIFT] + (i & (BLOCK_LINKS - 1)): link i, a target index |
	                   * link type << LINK_TYPE_SHIFT; MAX_BLOCKS slots when one is allocated */
	bool *block_owns; /* block[k] is the start of an allocation (freed with it) */
	uint64_t nlinks, links_alloc; /* links used, links addressable (a multiple of BLOCK_LINKS, or
	                               * FIRST_LINKS) */
	struct root *roots;
	uint32_t nroots, roots_alloc;
	struct root_lookup *rlook; /* skg_graph_root_lookup, in order */
	uint32_t nrlook, rlook_alloc;
	/* names (skg_graph_enable_names): the roots' names in git's order, and from the walk's start,
	 * for each object, who named it: nm_from 0 none, NM_ROOT a root (nm_arg: its root_names
	 * index), else the index + 1 of the object whose link nm_arg named it */
	bool names;
	struct root_name *root_names;
	uint32_t n_root_names, root_names_alloc;
	uint32_t *nm_from, *nm_arg;
	uint32_t *snap; /* skg_graph_snapshot_parse, in order */
	uint32_t nsnap, snap_alloc;
	/* the other copies of objects added twice (a loose and a packed copy, two packs); git looks
	 * the object up again when it reads that copy */
	struct dup_add *dups;
	uint32_t ndups, dups_alloc;
	bool promisor_asked;    /* skg_graph_promisor_asked: git's promisor set was made before the walk */
	uint32_t snap_promisor; /* skg_graph_snapshot_promisor: 1 + the snapshot entries before it, or 0 */
	uint32_t *pack_odb;     /* skg_graph_pack_source: by pack_seq, the object directory + 1 (0: unknown),
	                         * | PACK_IN_MIDX */
	int64_t *pack_mtime;    /* skg_graph_pack_source: by pack_seq, the .pack's time */
	uint32_t npack_odb, pack_odb_alloc;
};

struct skg_graph *skg_graph_new(size_t rawsz)
{
	struct skg_graph *g = calloc(1, sizeof(*g));
	if (g == NULL) {
		return NULL;
	}
	g->rawsz = rawsz == SKG_MAX_RAWSZ ? SKG_MAX_RAWSZ : SKG_RAWSZ;
	pthread_mutex_init(&g->lock, NULL);
	pthread_mutex_init(&g->qlock, NULL);
	g->nslots = 1024;
	g->slots = calloc(g->nslots, sizeof(*g->slots));
	if (g->slots == NULL) {
		free(g);
		return NULL;
	}
	return g;
}

void skg_graph_free(struct skg_graph *g)
{
	if (g != NULL) {
		pthread_mutex_destroy(&g->lock);
		pthread_mutex_destroy(&g->qlock);
		free(g->queue.p);
		free(g->spare.p);
		free(g->objs);
		free(g->slots);
		free(g->rereads);
		free(g->graft_ids);
		for (uint64_t k = 0; k < BLOCKS_USED(g); k++) {
			if (g->block_owns[k]) {
				free(g->block[k]);
			}
		}
		free(g->block);
		free(g->block_owns);
		free(g->roots);
		for (uint32_t k = 0; k < g->n_root_names; k++) {
			free(g->root_names[k].name);
		}
		free(g->root_names);
		free(g->nm_from);
		free(g->nm_arg);
		free(g->snap);
		free(g->dups);
		free(g->pack_odb);
		free(g->pack_mtime);
		free(g->rlook);
		free(g);
	}
}

/* Two object IDs equal: three loads each instead of a call to memcmp (the hottest compare here);
 * `a` is a stored ID (zeros past rawsz), `b` the caller's (rawsz bytes). */
static bool id_eq(const struct skg_graph *g, const uint8_t *a, const uint8_t *b)
{
	if (g->rawsz != SKG_RAWSZ) {
		return memcmp(a, b, SKG_MAX_RAWSZ) == 0;
	}
	uint64_t a0, a1, b0, b1;
	uint32_t a2, b2;
	memcpy(&a0, a, 8);
	memcpy(&b0, b, 8);
	memcpy(&a1, a + 8, 8);
	memcpy(&b1, b + 8, 8);
	memcpy(&a2, a + 16, 4);
	memcpy(&b2, b + 16, 4);
	return ((a0 ^ b0) | (a1 ^ b1) | (uint64_t)(a2 ^ b2)) == 0;
}

static uint32_t find(const struct skg_graph *g, const uint8_t *id)
{
	uint32_t mask = g->nslots - 1;
	for (uint32_t s = skg_objtab_hash(id) & mask;; s = (s + 1) & mask) {
		uint32_t v = g->slots[s];
		if (v == 0 || id_eq(g, g->objs[v - 1].id, id)) {
			return s;
		}
	}
}

static bool grow_slots(struct skg_graph *g)
{
	uint32_t n = g->nslots * 2, mask = n - 1;
	uint32_t *slots = calloc(n, sizeof(*slots));
	if (slots == NULL) {
		return false;
	}
	skg_mem_hint_huge(slots, (size_t)n * sizeof(*slots)); /* before the first write of a page */
	for (uint32_t i = 0; i < g->nr; i++) {
		uint32_t s = skg_objtab_hash(g->objs[i].id) & mask;
		while (slots[s] != 0) {
			s = (s + 1) & mask;
		}
		slots[s] = i + 1;
	}
	free(g->slots);
	g->slots = slots;
	g->nslots = n;
	return true;
}

/* The index of `id`, created (type 0, no flags) when new; UINT32_MAX when out of memory. */
static uint32_t lookup_or_add(struct skg_graph *g, const uint8_t *id)
{
	uint32_t s = find(g, id);
	if (g->slots[s] != 0) {
		return g->slots[s] - 1;
	}
	if (g->nr >= LINK_INDEX_MASK) {
		return UINT32_MAX;
	}
	if (g->nr == g->alloc) {
		uint32_t n = g->alloc ? g->alloc * 2 : 1024;
		struct gobj *o = realloc(g->objs, (size_t)n * sizeof(*o));
		if (o == NULL) {
			return UINT32_MAX;
		}
		g->objs = o;
		g->alloc = n;
		skg_mem_hint_huge(o, (size_t)n * sizeof(*o));
	}
	uint32_t i = g->nr++;
	memset(&g->objs[i], 0, sizeof(g->objs[i]));
	memcpy(g->objs[i].id, id, g->rawsz);
	g->objs[i].first = NO_LINKS;
	g->objs[i].order = UINT64_MAX;
	g->objs[i].pos = UINT32_MAX;
	g->slots[s] = i + 1;
	if ((uint64_t)g->nr * 2 > g->nslots && !grow_slots(g)) {
		g->nr--;
		g->slots[find(g, id)] = 0;
		return UINT32_MAX;
	}
	return i;
}

/* Object i named by the event (order, pos): kept when it comes before the first one known. */
static inline void seen(struct gobj *o, uint64_t order, uint32_t pos)
{
	if (order < o->order || (order == o->order && pos < o->pos)) {
		o->order = order;
		o->pos = pos;
	}
}

/* The links of an object from index first on (contiguous: see BLOCK_SHIFT). */
static inline uint32_t *links_at(const struct skg_graph *g, uint32_t first)
{
	return g->block[first >> BLOCK_SHIFT] + (first & (BLOCK_LINKS - 1));
}

/*
 * Room for n more links, contiguous, from *first on (g->nlinks moves to the start of a new
 * allocation when the current block's rest is too short). false when out of memory or past 2^32
 * links.
 */
static bool links_room(struct skg_graph *g, size_t n, uint32_t *first)
{
	uint64_t at = g->nlinks;
	if (at + n > g->links_alloc) {
		/* the new allocation's start: the rest of the last block stays unused */
		uint64_t k0 = BLOCKS_USED(g);
		at = k0 << BLOCK_SHIFT;
		uint64_t blocks = (n + BLOCK_LINKS - 1) >> BLOCK_SHIFT;
		if (blocks == 0) {
			blocks = 1;
		}
		uint64_t want = blocks << BLOCK_SHIFT;
		if (k0 == 0 && n <= FIRST_LINKS) {
			want = FIRST_LINKS;
		}
		if (k0 + blocks > MAX_BLOCKS) {
			return false;
		}
		if (g->block == NULL) {
			g->block = calloc(MAX_BLOCKS, sizeof(*g->block));
		}
		if (g->block_owns == NULL) {
			g->block_owns = calloc(MAX_BLOCKS, sizeof(*g->block_owns));
		}
		if (g->block == NULL || g->block_owns == NULL) {
			return false; /* what was allocated stays for the next try, and is freed with g */
		}
		size_t bytes = (size_t)want * sizeof(uint32_t);
		if ((uint64_t)bytes != want * sizeof(uint32_t)) {
			return false; /* a 32-bit size_t */
		}
		uint32_t *mem = malloc(bytes);
		if (mem == NULL) {
			return false;
		}
		skg_mem_hint_huge(mem, bytes);
		for (uint64_t j = 0; j < blocks; j++) {
			g->block[k0 + j] = mem + (j << BLOCK_SHIFT);
		}
		g->block_owns[k0] = true;
		g->links_alloc = at + want;
	}
	if (at + n > UINT32_MAX) {
		return false;
	}
	g->nlinks = at;
	*first = (uint32_t)at;
	return true;
}

static int insert(struct skg_graph *g, const uint8_t *id, unsigned type, const struct skg_link *links,
                  size_t n, bool walk_error, bool keep, uint16_t source, uint64_t order);

/* Holding g->lock: insert the queued adds, until the queue is found empty. */
static void drain_queue(struct skg_graph *g)
{
	for (;;) {
		pthread_mutex_lock(&g->qlock);
		struct queue t = g->queue;
		g->queue = g->spare;
		g->spare = t;
		pthread_mutex_unlock(&g->qlock);
		if (g->spare.len == 0) {
			return;
		}
		for (size_t at = 0; at < g->spare.len;) {
			struct pending h;
			memcpy(&h, g->spare.p + at, sizeof(h));
			const struct skg_link *links = (const struct skg_link *)(g->spare.p + at + sizeof(h));
			if (!g->failed && insert(g, h.id, h.type, links, h.n, h.walk_error, h.keep, h.source,
			                         h.order) != 0) {
				g->failed = true;
			}
			at += sizeof(h) + (size_t)h.n * sizeof(struct skg_link);
		}
		g->spare.len = 0;
	}
}

/* Take g->lock (blocking) with the queue inserted. */
static void acquire(struct skg_graph *g)
{
	pthread_mutex_lock(&g->lock);
	drain_queue(g);
}

/* Leave g->lock; insert what was queued meanwhile if the lock is free again (see struct skg_graph). */
static void release(struct skg_graph *g)
{
	for (;;) {
		pthread_mutex_unlock(&g->lock);
		pthread_mutex_lock(&g->qlock);
		bool more = g->queue.len > 0;
		pthread_mutex_unlock(&g->qlock);
		if (!more || pthread_mutex_trylock(&g->lock) != 0) {
			return;
		}
		drain_queue(g);
	}
}

/* Queue an add for the thread inside; false when out of memory (nothing queued). */
static bool enqueue(struct skg_graph *g, const uint8_t *id, unsigned type, const struct skg_link *links,
                    size_t n, bool walk_error, bool keep, uint16_t source, uint64_t order)
{
	if (n > UINT32_MAX || n > (SIZE_MAX / 4 - sizeof(struct pending)) / sizeof(*links)) {
		return false; /* the caller inserts it itself */
	}
	struct pending h = {0};
	memcpy(h.id, id, g->rawsz);
	h.type = (uint8_t)type;
	h.walk_error = walk_error;
	h.keep = keep;
	h.source = source;
	h.n = (uint32_t)n;
	h.order = order;
	size_t need = sizeof(h) + n * sizeof(*links);
	bool ok = true;
	pthread_mutex_lock(&g->qlock);
	struct queue *q = &g->queue;
	if (q->cap - q->len < need) {
		size_t cap = q->cap ? q->cap : 65536;
		while (cap - q->len < need) {
			cap *= 2;
		}
		uint8_t *p = realloc(q->p, cap);
		ok = p != NULL;
		if (ok) {
			q->p = p;
			q->cap = cap;
		}
	}
	if (ok) {
		memcpy(q->p + q->len, &h, sizeof(h));
		if (n > 0) {
			memcpy(q->p + q->len + sizeof(h), links, n * sizeof(*links));
		}
		q->len += need;
	}
	pthread_mutex_unlock(&g->qlock);
	return ok;
}

/*
 * An add from any thread. With the graph free it inserts at once; with another thread inside it
 * queues the add (a copy of the links) and goes back to its own work, instead of sleeping on the
 * lock: the thread inside inserts it (release). Two fsck threads on a git.git pack had slept on
 * the lock about 40,000 times.
 */
static int add(struct skg_graph *g, const uint8_t *id, unsigned type, const struct skg_link *links, size_t n,
               bool walk_error, bool keep, uint16_t source, uint64_t order)
{
	if (pthread_mutex_trylock(&g->lock) != 0) {
		if (enqueue(g, id, type, links, n, walk_error, keep, source, order)) {
			if (pthread_mutex_trylock(&g->lock) == 0) {
				drain_queue(g);
				release(g);
			}
			return 0; /* a failure to insert it is seen by a later call, or by the walk */
		}
		pthread_mutex_lock(&g->lock);
	}
	drain_queue(g);
	int ret = g->failed ? -1 : insert(g, id, type, links, n, walk_error, keep, source, order);
	if (ret != 0) {
		g->failed = true;
	}
	release(g);
	return ret;
}

int skg_graph_add(struct skg_graph *g, const uint8_t *id, unsigned type, const struct skg_link *links,
                  size_t n, bool walk_error, uint64_t order)
{
	return add(g, id, type, links, n, walk_error, true, 0, order);
}

int skg_graph_add_reload(struct skg_graph *g, const uint8_t *id, unsigned type, const struct skg_link *links,
                         size_t n, bool walk_error, uint16_t source, uint64_t order)
{
	return add(g, id, type, links, n, walk_error, false, source, order);
}

/* An add, with g->lock held. */
static int insert(struct skg_graph *g, const uint8_t *id, unsigned type, const struct skg_link *links,
                  size_t n, bool walk_error, bool keep, uint16_t source, uint64_t order)
{
	int ret = -1;
	uint32_t i = lookup_or_add(g, id);
	if (i == UINT32_MAX) {
		goto out;
	}
	seen(&g->objs[i], order, 0);
	if (g->objs[i].flags & F_UNREAD) {
		g->objs[i].type |= T_COPY; /* (git reads this copy: not one it lists and cannot read) */
	}
	if ((g->objs[i].flags & (F_HAS | F_UNREAD | F_WALKERR)) == (F_HAS | F_UNREAD) && keep) {
		/* a copy read after one that could not be (not one git's walk cannot read: F_WALKED):
		 * git's check of it gives the object its type and marks what it links to used
		 * (fsck_obj); its links are kept for the walk, which follows them where git's read
		 * of the first copy fails and finds this one (skg_graph_report.reread), not where that
		 * read gives another type (skg_graph_set_noread) */
		if (TY(&g->objs[i]) == 0) {
			g->objs[i].type = (uint8_t)(g->objs[i].type | (type & TYPE_MASK));
		}
		uint32_t first = 0;
		uint32_t *store = NULL;
		if (n > 0 && g->objs[i].first == NO_LINKS && n < UINT32_MAX) {
			if (!links_room(g, n, &first)) {
				goto out;
			}
			store = links_at(g, first);
		}
		for (size_t k = 0; k < n; k++) {
			uint32_t t = lookup_or_add(g, links[k].id);
			if (t == UINT32_MAX) {
				goto out;
			}
			struct gobj *to = &g->objs[t];
			unsigned lt = links[k].type & TYPE_MASK;
			if (TY(to) == 0 && !(to->flags & F_HAS)) {
				to->type = (uint8_t)(lt | (to->type & (T_CONFLICT | T_PROMISOR)));
			}
			if (lt != 0 && (!(to->type & T_FORCED) || TY(to) == lt)) {
				to->flags |= F_USED;
			}
			if (store != NULL) {
				store[k] = t | (uint32_t)(links[k].type & 7) << LINK_TYPE_SHIFT;
			}
		}
		if (store != NULL) {
			g->objs[i].first = first;
			g->objs[i].n = (uint32_t)n;
			g->nlinks += n;
		}
	}
	if (g->objs[i].flags & F_HAS) {
		/* a second copy: the first record stays (with the earlier order in git's), the other
		 * add is kept for the order of the walk's last lines */
		uint64_t other = order;
		if (order < g->objs[i].add_order) {
			other = g->objs[i].add_order;
			g->objs[i].add_order = order;
		}
		struct dup_add *d = grow(g->dups, sizeof(*d), g->ndups, &g->dups_alloc);
		if (d == NULL) {
			goto out;
		}
		g->dups = d;
		g->dups[g->ndups++] = (struct dup_add){other, i};
		ret = 0;
		goto out;
	}
	uint32_t first = 0;
	uint32_t *store = NULL;
	if (keep && n > 0) {
		if (!links_room(g, n, &first)) {
			goto out;
		}
		store = links_at(g, first);
	}
	/*
	 * The links of a tree go to objects all over the table: fetch the slot of link k + 8 and the
	 * object of link k + 4 ahead, so that the misses overlap (about 1.5 per link otherwise).
	 */
	const uint32_t mask = g->nslots - 1;
	for (size_t k = 0; k < n && k < 8; k++) {
		__builtin_prefetch(&g->slots[skg_objtab_hash(links[k].id) & mask]);
	}
	for (size_t k = 0; k < n; k++) {
		if (k + 8 < n) {
			__builtin_prefetch(&g->slots[skg_objtab_hash(links[k + 8].id) & (g->nslots - 1)]);
		}
		if (k + 4 < n) {
			uint32_t v = g->slots[skg_objtab_hash(links[k + 4].id) & (g->nslots - 1)];
			if (v != 0) {
				__builtin_prefetch(&g->objs[v - 1]);
			}
		}
		uint32_t t = lookup_or_add(g, links[k].id);
		if (t == UINT32_MAX) {
			goto out;
		}
		struct gobj *to = &g->objs[t];
		seen(to, order, k + 1 < UINT32_MAX ? (uint32_t)(k + 1) : UINT32_MAX - 1);
		unsigned lt = links[k].type & TYPE_MASK;
		if (to->type & T_FORCED) {
			if (TY(to) != lt) {
				lt = 0; /* git's lookup of it fails: the link marks nothing used */
			}
		} else if (TY(to) == 0 && !(to->flags & F_HAS)) {
			to->type = (uint8_t)(lt | (to->type & (T_CONFLICT | T_PROMISOR)));
		} else if (TY(to) != lt && !(to->flags & F_UNREAD)) {
			to->type |= T_CONFLICT;
		}
		if (lt != 0) {
			to->flags |= F_USED;
		}
		if (store != NULL) {
			store[k] = t | (uint32_t)(links[k].type & 7) << LINK_TYPE_SHIFT;
		}
	}
	/* lookup_or_add may have moved g->objs: index again */
	g->objs[i].flags |= F_HAS | (walk_error ? F_WALKERR : 0) | (keep ? 0 : F_RELOAD);
	g->objs[i].add_order = order;
	unsigned before = g->objs[i].type;
	if (TY(&g->objs[i]) != 0 && TY(&g->objs[i]) != type && !(before & T_FORCED)) {
		before |= T_CONFLICT; /* linked to as another type than it has */
	}
	g->objs[i].type = (uint8_t)(type | (before & (T_CONFLICT | T_FORCED | T_PROMISOR | T_NOREAD)));
	g->objs[i].source = source;
	g->objs[i].first = store != NULL ? first : NO_LINKS;
	g->nlinks += store != NULL ? n : 0;
	g->objs[i].n = keep ? (uint32_t)n : 0;
	ret = 0;
out:
	return ret;
}

/* skg_graph_add_unread and skg_graph_add_unread_walked: an object not added yet gets `flags`. */
static int add_unread(struct skg_graph *g, const uint8_t *id, uint8_t flags, uint64_t order)
{
	int ret = -1;
	acquire(g);
	uint32_t i = lookup_or_add(g, id);
	if (i != UINT32_MAX) {
		seen(&g->objs[i], order, 0);
		if (!(g->objs[i].flags & F_HAS)) {
			g->objs[i].flags |= flags;
			g->objs[i].add_order = order;
			g->objs[i].first = NO_LINKS;
			g->objs[i].n = 0;
		}
		ret = 0;
	}
	release(g);
	return ret;
}

int skg_graph_add_unread_walked(struct skg_graph *g, const uint8_t *id, uint64_t order)
{
	return add_unread(g, id, F_WALKED | F_BADREAD, order);
}

int skg_graph_set_graph_links(struct skg_graph *g, const uint8_t *id, const struct skg_link *links, size_t n)
{
	int ret = 0;
	acquire(g);
	uint32_t v = g->slots[find(g, id)], first = 0;
	if (v != 0 && (g->objs[v - 1].flags & F_WALKED) == F_WALKED && g->objs[v - 1].first == NO_LINKS &&
	    n > 0 && n < UINT32_MAX) {
		if (!links_room(g, n, &first)) {
			ret = -1;
		}
		for (size_t k = 0; k < n && ret == 0; k++) {
			uint32_t t = lookup_or_add(g, links[k].id);
			if (t == UINT32_MAX) {
				ret = -1;
				break;
			}
			links_at(g, first)[k] = t | (uint32_t)(links[k].type & 7) << LINK_TYPE_SHIFT;
		}
		if (ret == 0) {
			/* lookup_or_add may have moved g->objs */
			g->objs[v - 1].first = first;
			g->objs[v - 1].n = (uint32_t)n;
			g->nlinks += n;
		}
	}
	release(g);
	return ret;
}

bool skg_graph_listed(const struct skg_graph *g, const uint8_t *id)
{
	uint32_t v = g->slots[find(g, id)];
	return v != 0 && (g->objs[v - 1].flags & F_WALKED) == F_WALKED;
}

int skg_graph_add_unread(struct skg_graph *g, const uint8_t *id, bool readable, uint64_t order)
{
	return add_unread(g, id, F_HAS | F_UNREAD | (readable ? 0 : F_BADREAD), order);
}

int skg_graph_reserve(struct skg_graph *g, uint64_t objects)
{
	int ret = -1;
	acquire(g);
	if (objects > LINK_INDEX_MASK) {
		goto out;
	}
	if (objects > g->alloc) {
		struct gobj *o = realloc(g->objs, (size_t)objects * sizeof(*o));
		if (o == NULL) {
			goto out;
		}
		g->objs = o;
		g->alloc = (uint32_t)objects;
		skg_mem_hint_huge(o, (size_t)objects * sizeof(*o));
	}
	while (objects * 2 > g->nslots) {
		if (!grow_slots(g)) {
			goto out;
		}
	}
	ret = 0;
out:
	release(g);
	return ret;
}

#define NM_ROOT UINT32_MAX

int skg_graph_enable_names(struct skg_graph *g)
{
	g->names = true;
	return 0;
}

/* A root's name, kept in the order the roots come (applied at the walk's start, first one wins). */
static bool keep_root_name(struct skg_graph *g, uint32_t i, const char *name)
{
	struct root_name *v = grow(g->root_names, sizeof(*v), g->n_root_names, &g->root_names_alloc);
	if (v == NULL) {
		return false;
	}
	g->root_names = v;
	char *copy = strdup(name);
	if (copy == NULL) {
		return false;
	}
	g->root_names[g->n_root_names++] = (struct root_name){i, copy};
	return true;
}

int skg_graph_root_lookup(struct skg_graph *g, const uint8_t *id)
{
	int ret = 0;
	acquire(g);
	const uint32_t v = g->slots[find(g, id)];
	if (v != 0) {
		struct root_lookup *l = grow(g->rlook, sizeof(*l), g->nrlook, &g->rlook_alloc);
		if (l == NULL) {
			ret = -1;
		} else {
			g->rlook = l;
			g->rlook[g->nrlook++] = (struct root_lookup){g->nroots, v - 1};
		}
	}
	release(g);
	return ret;
}

int skg_graph_pack_source(struct skg_graph *g, uint32_t pack_seq, uint32_t odb, bool in_midx, bool promisor,
                          int64_t mtime)
{
	int ret = 0;
	acquire(g);
	while (g->npack_odb <= pack_seq && ret == 0) {
		uint32_t alloc = g->pack_odb_alloc;
		uint32_t *v = grow(g->pack_odb, sizeof(*v), g->npack_odb, &g->pack_odb_alloc);
		int64_t *w = v != NULL ? grow(g->pack_mtime, sizeof(*w), g->npack_odb, &alloc) : NULL;
		if (v != NULL) {
			g->pack_odb = v;
		}
		if (w == NULL) {
			g->pack_odb_alloc = g->npack_odb; /* grow again next time */
			ret = -1;
		} else {
			g->pack_mtime = w;
			g->pack_odb[g->npack_odb] = 0;
			g->pack_mtime[g->npack_odb++] = 0;
		}
	}
	if (ret == 0) {
		g->pack_odb[pack_seq] =
		    (odb + 1) | (in_midx ? PACK_IN_MIDX : 0) | (promisor ? PACK_PROMISOR : 0);
		g->pack_mtime[pack_seq] = mtime;
	}
	release(g);
	return ret;
}

int skg_graph_snapshot_parse(struct skg_graph *g, const uint8_t *id)
{
	int ret = -1;
	acquire(g);
	uint32_t i = lookup_or_add(g, id);
	if (i == UINT32_MAX) {
		goto out;
	}
	uint32_t *v = grow(g->snap, sizeof(*v), g->nsnap, &g->snap_alloc);
	if (v == NULL) {
		goto out;
	}
	g->snap = v;
	g->snap[g->nsnap++] = i;
	ret = 0;
out:
	release(g);
	return ret;
}

int skg_graph_root(struct skg_graph *g, const uint8_t *id, unsigned type)
{
	return skg_graph_root_named(g, id, type, NULL);
}

static int root_add(struct skg_graph *g, const uint8_t *id, unsigned type, const char *name, bool parse);

int skg_graph_root_named(struct skg_graph *g, const uint8_t *id, unsigned type, const char *name)
{
	return root_add(g, id, type, name, false);
}

int skg_graph_root_ref(struct skg_graph *g, const uint8_t *id, unsigned type, const char *name)
{
	return root_add(g, id, type, name, true);
}

static int root_add(struct skg_graph *g, const uint8_t *id, unsigned type, const char *name, bool parse)
{
	int ret = -1;
	acquire(g);
	uint32_t i = lookup_or_add(g, id);
	if (i == UINT32_MAX) {
		goto out;
	}
	if (g->names && name != NULL && !keep_root_name(g, i, name)) {
		goto out;
	}
	struct root *r = grow(g->roots, sizeof(*r), g->nroots, &g->roots_alloc);
	if (r == NULL) {
		goto out;
	}
	g->roots = r;
	g->roots[g->nroots++] = (struct root){i, parse, (uint8_t)type, false};
	g->objs[i].flags |= F_ROOT | F_USED;
	if (TY(&g->objs[i]) == 0 &&
	    (!(g->objs[i].flags & F_HAS) || (g->objs[i].flags & F_WALKED) == F_WALKED)) {
		g->objs[i].type = (uint8_t)(type | (g->objs[i].type & T_PROMISOR));
	}
	const struct gobj *o = &g->objs[i];
	if (parse && (o->flags & (F_HAS | F_UNREAD)) == F_HAS && (TY(o) == SKG_COMMIT || TY(o) == SKG_TAG) &&
	    o->first != NO_LINKS) {
		/* git's parse of a ref's commit or tag looks up its tree and parents, or its target, as
		 * their links' types: an object git lists and cannot read gets its type there, before
		 * the walk (skg_graph_add_unread_walked) */
		const uint32_t *ls = links_at(g, o->first);
		for (uint32_t k = 0; k < o->n; k++) {
			struct gobj *t = &g->objs[ls[k] & LINK_INDEX_MASK];
			if ((t->flags & F_WALKED) == F_WALKED && TY(t) == 0) {
				t->type = (uint8_t)((t->type & ~TYPE_MASK) | (ls[k] >> LINK_TYPE_SHIFT));
			} else if ((t->flags & (F_HAS | F_UNREAD)) == F_HAS && (t->type & T_NOREAD) &&
			           (TY(t) == SKG_COMMIT || TY(t) == SKG_TAG) &&
			           TY(t) == (ls[k] >> LINK_TYPE_SHIFT)) {
				/* a commit or tag git's walk cannot read (--connectivity-only): typed here,
				 * before a reflog's entry reaches it as a root of no type (mark) */
				t->type |= T_FORCED;
			}
		}
	}
	ret = 0;
out:
	release(g);
	return ret;
}

void skg_graph_forget_strays(struct skg_graph *g, uint32_t pack_seq,
                             bool (*has)(const void *ctx, const uint8_t *id, unsigned rawsz, uint64_t offset),
                             const void *ctx)
{
	for (uint32_t i = 0; i < g->nr; i++) {
		struct gobj *o = &g->objs[i];
		uint32_t seq;
		uint64_t offset;
		if ((o->flags & (F_HAS | F_UNREAD)) == F_HAS &&
		    skg_graph_order_packed(o->add_order, &seq, &offset) && seq == pack_seq &&
		    !has(ctx, o->id, (unsigned)g->rawsz, offset)) {
			o->flags &= (uint8_t)~F_HAS;
			o->type = (uint8_t)(o->type & ~TYPE_MASK);
		}
	}
}

bool skg_graph_add_order(const struct skg_graph *g, const uint8_t *id, uint64_t *order)
{
	uint32_t v = g->slots[find(g, id)];
	if (v == 0 || !(g->objs[v - 1].flags & F_HAS)) {
		return false;
	}
	*order = g->objs[v - 1].add_order;
	return true;
}

bool skg_graph_has(const struct skg_graph *g, const uint8_t *id, unsigned *type)
{
	uint32_t v = g->slots[find(g, id)];
	if (v == 0 || !(g->objs[v - 1].flags & F_HAS) || (g->objs[v - 1].flags & F_BADREAD)) {
		return false;
	}
	if (type != NULL) {
		*type = TY(&g->objs[v - 1]);
	}
	return true;
}

bool skg_graph_links(const struct skg_graph *g, const uint8_t *id, struct skg_link *out, size_t max,
                     size_t *n)
{
	*n = 0;
	uint32_t v = g->slots[find(g, id)];
	if (v == 0 || !(g->objs[v - 1].flags & F_HAS)) {
		return false;
	}
	const struct gobj *o = &g->objs[v - 1];
	const uint32_t *ls = o->first != NO_LINKS ? links_at(g, o->first) : NULL;
	for (uint32_t k = 0; k < o->n && ls != NULL && *n < max; k++) {
		memset(out[*n].id, 0, sizeof(out[*n].id));
		memcpy(out[*n].id, g->objs[ls[k] & LINK_INDEX_MASK].id, g->rawsz);
		out[*n].type = (uint8_t)(ls[k] >> LINK_TYPE_SHIFT);
		(*n)++;
	}
	return true;
}

bool skg_graph_checked(const struct skg_graph *g, const uint8_t *id)
{
	uint32_t v = g->slots[find(g, id)];
	if (v == 0 || !(g->objs[v - 1].flags & F_HAS)) {
		return false;
	}
	/* F_BADREAD comes with F_UNREAD, where the type bit T_COPY says another copy was read */
	return !(g->objs[v - 1].flags & F_BADREAD) || (g->objs[v - 1].type & T_COPY);
}

bool skg_graph_known(const struct skg_graph *g, const uint8_t *id, unsigned *type)
{
	uint32_t v = g->slots[find(g, id)];
	if (v == 0) {
		return false;
	}
	if (type != NULL) {
		*type = TY(&g->objs[v - 1]);
	}
	return true;
}

int skg_graph_force_type(struct skg_graph *g, const uint8_t *id, unsigned type)
{
	acquire(g);
	uint32_t i = lookup_or_add(g, id);
	if (i != UINT32_MAX) {
		g->objs[i].type = (uint8_t)((type & TYPE_MASK) | T_FORCED | (g->objs[i].type & T_NOREAD));
	}
	release(g);
	return i == UINT32_MAX ? -1 : 0;
}

bool skg_graph_set_noread(struct skg_graph *g, const uint8_t *id)
{
	uint32_t v = g->slots[find(g, id)];
	struct gobj *o = v != 0 ? &g->objs[v - 1] : NULL;
	if (o != NULL && (o->flags & (F_HAS | F_UNREAD)) == F_HAS) {
		o->type |= T_NOREAD;
		return true;
	}
	if (o != NULL && (o->flags & (F_HAS | F_UNREAD | F_WALKERR)) == (F_HAS | F_UNREAD) &&
	    (o->type & T_COPY) && TY(o) == SKG_TREE) {
		/* the unreadable copy's record, a readable one added after it (T_COPY): a tree git's
		 * walk reads again, through the copy it cannot read */
		o->flags |= F_WALKERR;
		return true;
	}
	return false;
}

int skg_graph_set_graft_lookups(struct skg_graph *g, const uint8_t *ids, size_t n)
{
	uint8_t *v = n > 0 ? malloc(n * g->rawsz) : NULL;
	if (n > 0 && (v == NULL || n > UINT32_MAX)) {
		free(v);
		return -1;
	}
	if (n > 0) {
		memcpy(v, ids, n * g->rawsz);
	}
	free(g->graft_ids);
	g->graft_ids = v;
	g->ngraft_ids = (uint32_t)n;
	return 0;
}

int skg_graph_set_reread(struct skg_graph *g, const uint8_t *id)
{
	uint32_t v = g->slots[find(g, id)];
	if (v == 0 || (g->objs[v - 1].flags & (F_HAS | F_UNREAD)) != F_HAS) {
		return 0;
	}
	uint32_t *r = realloc(g->rereads, ((size_t)g->nrereads + 1) * sizeof(*r));
	if (r == NULL) {
		return -1;
	}
	g->rereads = r;
	g->rereads[g->nrereads++] = v - 1;
	return 1;
}

/* Whether skg_graph_set_reread marked object i. */
static bool marked_reread(const struct skg_graph *g, uint32_t i)
{
	for (uint32_t k = 0; k < g->nrereads; k++) {
		if (g->rereads[k] == i) {
			return true;
		}
	}
	return false;
}

int skg_graph_note_type(struct skg_graph *g, const uint8_t *id, unsigned type)
{
	acquire(g);
	uint32_t i = lookup_or_add(g, id);
	if (i != UINT32_MAX && TY(&g->objs[i]) == 0 && !(g->objs[i].flags & F_HAS)) {
		g->objs[i].type = (uint8_t)((type & TYPE_MASK) | (g->objs[i].type & ~TYPE_MASK));
	}
	release(g);
	return i == UINT32_MAX ? -1 : 0;
}

int skg_graph_conflicts(const struct skg_graph *g, uint8_t **ids, size_t *n)
{
	size_t k = 0;
	for (uint32_t i = 0; i < g->nr; i++) {
		k += (g->objs[i].type & T_CONFLICT) != 0;
	}
	*n = k;
	*ids = malloc(k > 0 ? k * g->rawsz : 1);
	if (*ids == NULL) {
		return -1;
	}
	k = 0;
	for (uint32_t i = 0; i < g->nr; i++) {
		if (g->objs[i].type & T_CONFLICT) {
			memcpy(*ids + k++ * g->rawsz, g->objs[i].id, g->rawsz);
		}
	}
	return 0;
}

int skg_graph_set_promisor(struct skg_graph *g, const uint8_t *id, bool links, unsigned *source)
{
	uint32_t v = g->slots[find(g, id)];
	if (v == 0) {
		return 0;
	}
	struct gobj *o = &g->objs[v - 1];
	o->type |= T_PROMISOR | (links ? T_PPACK : 0);
	if (!links || !(o->flags & F_HAS)) {
		return 0;
	}
	if (o->flags & F_RELOAD) {
		*source = o->source;
		return 1;
	}
	const uint32_t *l = o->first != NO_LINKS ? links_at(g, o->first) : NULL;
	for (uint32_t k = 0; k < o->n && l != NULL; k++) {
		g->objs[l[k] & LINK_INDEX_MASK].type |= T_PROMISOR;
	}
	return 0;
}

bool skg_graph_is_promisor(const struct skg_graph *g, const uint8_t *id)
{
	uint32_t v = g->slots[find(g, id)];
	return v != 0 && (g->objs[v - 1].type & T_PROMISOR);
}

void skg_graph_snapshot_promisor(struct skg_graph *g)
{
	if (g->snap_promisor == 0 && !g->promisor_asked) {
		g->snap_promisor = g->nsnap + 1;
	}
}

void skg_graph_promisor_asked(struct skg_graph *g)
{
	g->promisor_asked = true;
}

uint32_t skg_graph_count(const struct skg_graph *g)
{
	return g->nr;
}

/* A walk over the graph: its stack, and in the quiet pass what it found and what it left. */
struct walk {
	struct skg_graph *g;
	const struct skg_graph_report *rep;
	uint32_t *stack, sp; /* each object is pushed at most once (when it becomes reachable) */
	bool quiet;          /* report nothing, note `events`; F_RELOAD objects go to `later` */
	bool events;         /* quiet: the walk would have reported something */
	bool failed;         /* out of memory */
	uint32_t *later;     /* quiet: reachable F_RELOAD objects whose links are still to be read */
	size_t nlater, later_cap;
	/* --connectivity-only: git's type of each object in memory (0: none yet; rep->not_a), with
	 * GTY_PARSED on the objects a ref had parsed before the walk; NULL otherwise */
	uint8_t *gty;
};

#define GTY_PARSED  0x08u
#define GTY_STOPPED 0x10u /* reached, its links not followed (gty_parse): they are not "used" */
#define GTY(w, i)   ((unsigned)(w)->gty[i] & TYPE_MASK)

/* Whether git types object o in memory as the walk goes (struct walk.gty): one it lists and has
 * read nothing of but its type, or a missing one its lookups make; not one that does not read
 * (F_UNREAD: skg_graph_add_unread_walked's own model), nor one whose type was worked out
 * otherwise (T_FORCED, T_NOREAD). */
static bool gty_kept(const struct walk *w, const struct gobj *o)
{
	return w->gty != NULL && !(o->flags & F_UNREAD) && !(o->type & (T_FORCED | T_NOREAD));
}

/* git's mark_object: mark `t` reachable through a link of `ltype` from `from` (UINT32_MAX for a
 * root), report what git reports, and push it when its links are to be followed. */
static void mark(struct walk *w, uint32_t from, uint32_t t, unsigned ltype)
{
	struct skg_graph *g = w->g;
	const struct skg_graph_report *rep = w->rep;
	struct gobj *o = &g->objs[t];
	if (from != UINT32_MAX && (o->type & T_FORCED) && TY(o) != ltype) {
		/* git's lookup of it as `ltype` fails: the link is broken, `t` is not reached by it */
		if (w->quiet) {
			w->events = true;
		} else if (rep->failed_link != NULL) {
			rep->failed_link(rep->ctx, TY(&g->objs[from]), g->objs[from].id, TY(o), ltype, o->id);
		}
		return;
	}
	if (from != UINT32_MAX && gty_kept(w, o) && ltype >= SKG_COMMIT && ltype <= SKG_TAG) {
		if (GTY(w, t) == 0) {
			w->gty[t] = (uint8_t)(w->gty[t] | ltype); /* its first lookup types it */
		} else if (GTY(w, t) != ltype && TY(&g->objs[from]) == SKG_TREE) {
			/* fsck_walk_tree's lookup of the entry fails: mark_object of no object */
			if (w->quiet) {
				w->events = true;
			} else if (rep->failed_link != NULL) {
				rep->failed_link(rep->ctx, SKG_TREE, g->objs[from].id, GTY(w, t), ltype,
				                 o->id);
			}
			return;
		}
	}
	if (from != UINT32_MAX && (o->flags & F_HAS) && !(o->flags & F_UNREAD) && TY(o) != ltype &&
	    w->gty == NULL) {
		if (w->quiet) {
			w->events = true;
		} else if (rep->wrong_type != NULL) {
			rep->wrong_type(rep->ctx, TY(&g->objs[from]), g->objs[from].id);
		}
	}
	if (from != UINT32_MAX && (o->flags & F_WALKED) == F_WALKED && TY(o) == 0 && ltype <= 4) {
		/* git's lookup of it through a link gives it the link's type, reached before or not */
		o->type = (uint8_t)((o->type & ~TYPE_MASK) | ltype);
	}
	if (o->flags & F_REACHABLE) {
		return;
	}
	o->flags |= F_REACHABLE;
	if (o->type & T_PROMISOR) {
		return; /* git's mark_object does not go on from a promisor object, nor miss it */
	}
	if (!(o->flags & F_HAS)) {
		if (from != UINT32_MAX) {
			if (w->quiet) {
				w->events = true;
			} else if (rep->broken_link != NULL) {
				rep->broken_link(rep->ctx, TY(&g->objs[from]), g->objs[from].id, TY(o),
				                 o->id);
			}
		}
		return;
	}
	if (!(o->flags & F_UNREAD)) {
		if ((o->type & (T_NOREAD | T_FORCED)) == T_NOREAD && rep->connectivity_only && ltype <= 4) {
			/* git never read it: its type is the link's that reaches it first (0: a root
			 * of no type, a reflog's entry), as its lookup makes it */
			o->type = (uint8_t)((o->type & ~TYPE_MASK) | ltype);
		}
		w->stack[w->sp++] = t;
	} else if (o->flags & F_WALKERR) {
		/* an object git's walk reads and cannot (skg_graph_add_unread_walked): its type is
		 * the link's that reaches it first, as git's lookup makes it */
		if (TY(o) == 0 && ltype <= 4) {
			o->type = (uint8_t)((o->type & ~TYPE_MASK) | ltype);
		}
		w->stack[w->sp++] = t;
	} else if (o->first != NO_LINKS) {
		w->stack[w->sp++] = t; /* a copy that cannot be read, then one that was (insert) */
	}
}

/* An object's place in the order of events (gobj.order, .pos), ties by index. */
struct placed {
	uint64_t order;
	uint32_t pos, index;
};

static int cmp_placed(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;
	if (x->order != y->order) {
		return x->order < y->order ? -1 : 1;
	}
	if (x->pos != y->pos) {
		return x->pos < y->pos ? -1 : 1;
	}
	return x->index < y->index ? -1 : x->index > y->index;
}

/* --connectivity-only: git makes every object it has first, by lookup_unknown_object in
 * odb_for_each_object's order: the loose objects (the order of the adds), then each pack's objects
 * in the order of its idx (by ID), not by offset; git 2.55 goes so through each object directory in
 * turn (skg_graph_report.listing_by_source: `source`, the directory's index), 2.39 through all of
 * them for the loose objects, then all for the packs (`source` 0). */
struct listed {
	uint64_t order;
	const uint8_t *id; /* SKG_MAX_RAWSZ bytes, zero-padded */
	uint32_t pos, index, source;
	uint64_t orig; /* the add's order (`order` may rank the packs otherwise) */
};

/* skg_graph_order's fields (graph.h): ORDER_PACK for an object of a pack, and the 23 bits above
 * the low 40, the pack_seq of a pack's object or the object directory of a loose one. */
#define ORDER_PACK        ((uint64_t)1 << 63)
#define ORDER_FIELD_SHIFT 40
#define ORDER_FIELD       ((((uint64_t)1 << 23) - 1) << ORDER_FIELD_SHIFT)

static inline uint32_t order_field(uint64_t order)
{
	return (uint32_t)((order & ORDER_FIELD) >> ORDER_FIELD_SHIFT);
}

/* The object directory of the pack_seq-th pack (0 when not known). */
static uint32_t pack_source(const struct skg_graph *g, uint32_t seq)
{
	const uint32_t v = seq < g->npack_odb ? g->pack_odb[seq] & ~(PACK_IN_MIDX | PACK_PROMISOR) : 0;
	return v > 0 ? v - 1 : 0;
}

/* An add's object directory (by_source), or 0 (not by source: every add, as in 2.39). */
static uint32_t listed_source(const struct skg_graph *g, uint64_t order, bool by_source)
{
	if (!by_source) {
		return 0;
	}
	return (order & ORDER_PACK) ? pack_source(g, order_field(order)) : order_field(order);
}

static int cmp_listed(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	if (x->source != y->source) {
		return x->source < y->source ? -1 : 1;
	}
	if ((x->order & ORDER_PACK) && (y->order & ORDER_PACK) &&
	    order_field(x->order) == order_field(y->order)) {
		int c = memcmp(x->id, y->id, SKG_MAX_RAWSZ);
		if (c != 0) {
			return c;
		}
	}
	if (x->order != y->order) {
		return x->order < y->order ? -1 : 1;
	}
	if (x->pos != y->pos) {
		return x->pos < y->pos ? -1 : 1;
	}
	/* the same place: the objects of a pack that does not open (skg_graph_add_unread_walked, all
	 * at order 0), which git lists in its idx's order, by ID; not by the graph's index, which
	 * depends on which thread made the object first */
	int c = memcmp(x->id, y->id, SKG_MAX_RAWSZ);
	if (c != 0) {
		return c;
	}
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The adds in git's order of listing (--connectivity-only), in place. false: out of memory. */
static bool sort_listed(const struct skg_graph *g, struct placed *adds, uint32_t nadds, bool by_source,
                        const uint32_t *pack_rank)
{
	struct listed *v = malloc((size_t)nadds * sizeof(*v) + 1);
	if (v == NULL) {
		return false;
	}
	for (uint32_t a = 0; a < nadds; a++) {
		uint64_t order = adds[a].order;
		if (pack_rank != NULL && (order & ORDER_PACK) && order_field(order) < g->npack_odb) {
			/* the packs in another order (struct mru) */
			order = (order & ~ORDER_FIELD) | (uint64_t)pack_rank[order_field(order)]
			                                     << ORDER_FIELD_SHIFT;
		}
		v[a] = (struct listed){order,
		                       g->objs[adds[a].index].id,
		                       adds[a].pos,
		                       adds[a].index,
		                       listed_source(g, adds[a].order, by_source),
		                       adds[a].order};
	}
	qsort(v, nadds, sizeof(*v), cmp_listed);
	for (uint32_t a = 0; a < nadds; a++) {
		adds[a] = (struct placed){v[a].orig, v[a].pos, v[a].index};
	}
	free(v);
	return true;
}

/* git's create_object of object k, unless it is in the table already (t->at[k] set). */
static int create(struct skg_objtab *t, const struct skg_graph *g, uint32_t k)
{
	return t->at[k] == UINT32_MAX ? skg_objtab_add(t, g->objs[0].id, sizeof(g->objs[0]), k) : 0;
}

/* git's create_object of object k, or its lookup_object once k is in the table (objtab.h). */
static int event(struct skg_objtab *t, const struct skg_graph *g, const uint32_t *hash, uint32_t k)
{
	if (t->at[k] == UINT32_MAX) {
		return create(t, g, k);
	}
	skg_objtab_touch(t, k, hash[k]);
	return 0;
}

/* The links the replay follows: the kept ones, or a loose tree's read again once (rep->reload) and
 * kept for the replay's later passes. */
struct relinks {
	const struct skg_graph *g;
	const struct skg_graph_report *rep;
	uint32_t *at; /* per object: the offset + 1 of its read links in v (0: not read yet) */
	uint32_t *n;
	uint32_t *v; /* a target's index | the link's type << LINK_TYPE_SHIFT */
	size_t len, cap;
	bool failed;
	bool grafts_read; /* git's first parse of a commit read the graft file (parse_events) */
};

static void relink_collect(void *ctx, const uint8_t *id, unsigned type)
{
	struct relinks *c = ctx;
	uint32_t v = c->g->slots[find(c->g, id)];
	if (v == 0 || c->failed) {
		return;
	}
	if (c->len == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 4096;
		uint32_t *w = realloc(c->v, cap * sizeof(*w));
		if (w == NULL) {
			c->failed = true;
			return;
		}
		c->v = w;
		c->cap = cap;
	}
	c->v[c->len++] = (v - 1) | (uint32_t)type << LINK_TYPE_SHIFT;
}

/* The links of object i, *n of them (NULL: none, or out of memory: c->failed). */
static const uint32_t *object_links(struct relinks *c, uint32_t i, uint32_t *n)
{
	const struct gobj *o = &c->g->objs[i];
	if ((o->flags & F_RELOAD) && c->rep->reload != NULL) {
		if (c->at[i] == 0) {
			size_t start = c->len;
			uint8_t id[SKG_MAX_RAWSZ];
			memcpy(id, o->id, SKG_MAX_RAWSZ);
			c->rep->reload(c->rep->ctx, 0, o->source, id, TY(o), relink_collect, c);
			c->at[i] = (uint32_t)start + 1;
			c->n[i] = (uint32_t)(c->len - start);
		}
		*n = c->n[i];
		return c->failed || c->n[i] == 0 ? NULL : c->v + (c->at[i] - 1);
	}
	*n = o->n;
	return o->first != NO_LINKS ? links_at(c->g, o->first) : NULL;
}

/* The walk's lookups (below): its stack, what it has reached, and the table being replayed. */
struct lookup_replay {
	const struct skg_graph *g;
	struct skg_objtab *t;
	const uint32_t *hash;
	uint8_t *parsed; /* commits and tags git parsed before (their links looked up then) */
	uint8_t *reached;
	uint32_t *stack, sp;
	int rc;
	uint32_t *reads, *nreads; /* the reads (struct mru), or NULL */
};

/* One link of a walked object: git's lookup of a tree's entry (lookup_tree / lookup_blob, whose
 * lookup_object moves the object to its first slot), then mark's reach (as mark() above). */
static void replay_link(struct lookup_replay *r, uint32_t to, unsigned ltype, bool lookup)
{
	const struct gobj *o = &r->g->objs[to];
	if (lookup && r->rc == 0) {
		r->rc = event(r->t, r->g, r->hash, to);
	}
	if ((o->type & T_FORCED) && TY(o) != ltype) {
		return; /* the lookup failed: nothing marked */
	}
	if (r->reached[to]) {
		return;
	}
	r->reached[to] = 1;
	if (!(o->type & T_PROMISOR) && (o->flags & F_HAS) && !(o->flags & F_UNREAD)) {
		r->stack[r->sp++] = to;
	} else if (!(o->type & T_PROMISOR) && !(o->flags & F_HAS) && r->reads != NULL) {
		/* mark_object's odb_has_object(..., RECHECK_PACKED) of a missing object: not found, git
		 * prepares its packs again (git 2.55: sorted newest first again, struct mru) */
		r->reads[(*r->nreads)++] = UINT32_MAX;
	}
}

/*
 * The lookups of git's walk (check_connectivity's traversal: fsck_walk_tree looks up every entry
 * of every tree it walks; a commit or tag not parsed before, as with --connectivity-only, is
 * parsed there and looks up its links), in its order: the traversal again, from the roots, as
 * drain() makes it. 0, or -1 when out of memory.
 */
static int replay_walk_lookups(struct skg_objtab *t, const struct skg_graph *g, const uint32_t *hash,
                               uint8_t *parsed, struct relinks *c, uint32_t *reads, uint32_t *nreads,
                               const uint8_t *preparsed)
{
	struct lookup_replay r = {
	    g, t, hash,  parsed, calloc((size_t)g->nr + 1, 1), malloc(((size_t)g->nr + 1) * sizeof(uint32_t)),
	    0, 0, reads, nreads};
	if (r.reached == NULL || r.stack == NULL) {
		free(r.reached);
		free(r.stack);
		return -1;
	}
	for (uint32_t k = 0; k < g->nroots; k++) {
		const uint32_t i = g->roots[k].obj;
		const struct gobj *o = &g->objs[i];
		if (!r.reached[i]) {
			r.reached[i] = 1;
			if (!(o->type & T_PROMISOR) && (o->flags & F_HAS) && !(o->flags & F_UNREAD)) {
				r.stack[r.sp++] = i;
			}
		}
	}
	while (r.sp > 0 && r.rc == 0) {
		const uint32_t i = r.stack[--r.sp];
		const struct gobj *o = &g->objs[i];
		bool lookup = TY(o) == SKG_TREE;
		if ((TY(o) == SKG_COMMIT || TY(o) == SKG_TAG) && !parsed[i]) {
			parsed[i] = 1;
			lookup = true;
		}
		/* fsck_walk's parse reads it (a tree unless parsed at a root) */
		if (lookup && reads != NULL && !(TY(o) == SKG_TREE && preparsed != NULL && preparsed[i])) {
			reads[(*nreads)++] = i;
		}
		uint32_t n = 0;
		const uint32_t *ls = object_links(c, i, &n);
		for (uint32_t k = 0; k < n && ls != NULL; k++) {
			replay_link(&r, ls[k] & LINK_INDEX_MASK, ls[k] >> LINK_TYPE_SHIFT, lookup);
		}
	}
	if (c->failed && r.rc == 0) {
		r.rc = -1;
	}
	free(r.reached);
	free(r.stack);
	return r.rc;
}

/* git's lookups of the links of object i, in order. */
static int link_events(struct skg_objtab *t, const struct skg_graph *g, const uint32_t *hash, uint32_t i,
                       struct relinks *c)
{
	uint32_t n = 0;
	const uint32_t *ls = object_links(c, i, &n);
	int rc = c->failed ? -1 : 0;
	for (uint32_t k = 0; k < n && ls != NULL && rc == 0; k++) {
		rc = event(t, g, hash, ls[k] & LINK_INDEX_MASK);
	}
	return rc;
}

/* git's first parse of a commit or tag (parse_commit_buffer / parse_tag_buffer): its links looked
 * up, once per object (parsed[]); any other object, or one parsed before: nothing. */
static int parse_events(struct skg_objtab *t, const struct skg_graph *g, const uint32_t *hash,
                        uint8_t *parsed, uint32_t i, struct relinks *c)
{
	const unsigned type = TY(&g->objs[i]);
	if ((type != SKG_COMMIT && type != SKG_TAG) || parsed[i]) {
		return 0;
	}
	parsed[i] = 1;
	if (type != SKG_COMMIT || c->grafts_read || g->ngraft_ids == 0) {
		return link_events(t, g, hash, i, c);
	}
	/* the first commit parse (parse_commit_buffer): its tree, then lookup_commit_graft reads the
	 * graft file, whose register_commit_graft looks up each commit it registers (unparse_commit),
	 * then the parents */
	c->grafts_read = true;
	uint32_t n = 0;
	const uint32_t *ls = object_links(c, i, &n);
	int rc = c->failed ? -1 : 0;
	uint32_t k = 0;
	if (rc == 0 && ls != NULL && n > 0 && (ls[0] >> LINK_TYPE_SHIFT) == SKG_TREE) {
		rc = event(t, g, hash, ls[0] & LINK_INDEX_MASK);
		k = 1;
	}
	for (uint32_t j = 0; j < g->ngraft_ids && rc == 0; j++) {
		const uint32_t v = g->slots[find(g, g->graft_ids + (size_t)j * g->rawsz)];
		if (v != 0) { /* (one the graph does not have cannot be placed) */
			rc = event(t, g, hash, v - 1);
		}
	}
	for (; k < n && ls != NULL && rc == 0; k++) {
		rc = event(t, g, hash, ls[k] & LINK_INDEX_MASK);
	}
	return rc;
}

/* packfile.c is_promisor_object's first call (add_promisor_object): a lookup of every object of
 * the promisor packs, in the order they were checked (git: each pack's objects by offset), and the
 * parse_object of each one not parsed yet: with --connectivity-only none is, and a commit's or
 * tag's parse looks up its links (parse_events). */
static int promisor_pass(struct skg_objtab *t, const struct skg_graph *g, const uint32_t *hash,
                         const struct placed *adds, uint32_t nadds, uint8_t *parsed, struct relinks *c)
{
	int rc = 0;
	for (uint32_t a = 0; a < nadds && rc == 0; a++) {
		const uint32_t i = adds[a].index;
		const uint32_t seq = order_field(adds[a].order);
		/* the copies in promisor packs only (FOR_EACH_OBJECT_PROMISOR_ONLY), where the packs are
		 * known (skg_graph_pack_source) */
		const bool copy = g->npack_odb == 0 || ((adds[a].order & ORDER_PACK) && seq < g->npack_odb &&
		                                        (g->pack_odb[seq] & PACK_PROMISOR) != 0);
		if ((g->objs[i].type & T_PPACK) && copy) {
			rc = event(t, g, hash, i); /* made here when git 2.55's snapshot asked first */
			if (rc == 0 && TY(&g->objs[i]) == SKG_BLOB) {
				/* parse_object_with_flags: lookup_blob, then lookup_object, which moves a
				 * blob just made away from a slot past its first */
				skg_objtab_touch(t, i, hash[i]);
			}
			if (rc == 0 && !(g->objs[i].flags & F_UNREAD)) {
				rc = parse_events(t, g, hash, parsed, i, c);
			}
		}
	}
	return rc;
}

/*
 * git 2.55's list of packs, most recently used first (packfile.c find_pack_entry,
 * packfile_list_prepend): an object read is found in the first object directory that has a copy,
 * in the first of its packs in the list that holds it, which moves to the front of that
 * directory's packs; nothing moves for a copy found through a multi-pack-index or loose, nor while
 * git goes through the packs of a listing (skip_mru_updates). The listings (odb_for_each_object)
 * go through the list as it is when they reach the packs. pack_seq 1 .. np - 1, first in the order
 * of the check (the list as fsck's reprepare sorted it).
 */
struct mru {
	uint32_t np;
	uint32_t *list, *pos;  /* the pack_seqs in list order (list[0] unused: seq 0 is no pack), places */
	uint32_t *head, *next; /* by object, the chain of its other copies (dups) */
};

static void mru_free(struct mru *m)
{
	free(m->list);
	free(m->pos);
	free(m->head);
	free(m->next);
	*m = (struct mru){0};
}

static bool mru_init(struct mru *m, const struct skg_graph *g)
{
	m->np = g->npack_odb;
	m->list = malloc(((size_t)m->np + 1) * sizeof(*m->list));
	m->pos = malloc(((size_t)m->np + 1) * sizeof(*m->pos));
	m->head = malloc(((size_t)g->nr + 1) * sizeof(*m->head));
	m->next = malloc(((size_t)g->ndups + 1) * sizeof(*m->next));
	if (m->list == NULL || m->pos == NULL || m->head == NULL || m->next == NULL) {
		mru_free(m);
		return false;
	}
	for (uint32_t k = 0; k < m->np; k++) {
		m->list[k] = k;
		m->pos[k] = k;
	}
	for (uint32_t i = 0; i < g->nr; i++) {
		m->head[i] = UINT32_MAX;
	}
	for (uint32_t d = 0; d < g->ndups; d++) {
		m->next[d] = m->head[g->dups[d].obj];
		m->head[g->dups[d].obj] = d;
	}
	return true;
}

/* git reads object i (find_pack_entry through odb_read_object_info_extended). */
static void mru_read(struct mru *m, const struct skg_graph *g, uint32_t i)
{
	uint32_t src = UINT32_MAX, best = UINT32_MAX; /* the first directory with a copy, its first pack */
	bool via_midx = false, first = true;          /* the first copy (add_order), then the dups */
	if (!(g->objs[i].flags & F_HAS) || skg_is_empty_tree(g->objs[i].id, g->rawsz)) {
		return; /* the empty tree is git's in memory (odb/source-inmemory.c): no pack is read */
	}
	for (uint32_t d = m->head[i]; first || d != UINT32_MAX;) {
		uint64_t o = g->objs[i].add_order;
		if (!first) {
			o = g->dups[d].order;
			d = m->next[d];
		}
		first = false;
		const uint32_t seq = order_field(o);
		const uint32_t s = (o & ORDER_PACK) ? pack_source(g, seq) : seq; /* loose: the directory */
		if (s < src) {
			src = s;
			best = UINT32_MAX;
			via_midx = false;
		}
		if (s == src && (o & ORDER_PACK) && seq > 0 && seq < m->np) {
			via_midx = via_midx || (g->pack_odb[seq] & PACK_IN_MIDX) != 0;
			if (best == UINT32_MAX || m->pos[seq] < m->pos[best]) {
				best = seq;
			}
		}
	}
	if (best == UINT32_MAX || via_midx) {
		return;
	}
	uint32_t s0 = m->pos[best];
	while (s0 > 1 && pack_source(g, m->list[s0 - 1]) == src) {
		s0--;
	}
	for (uint32_t k = m->pos[best]; k > s0; k--) {
		m->list[k] = m->list[k - 1];
		m->pos[m->list[k]] = k;
	}
	m->list[s0] = best;
	m->pos[best] = s0;
}

/* git prepares its packs again (packfile_store_reprepare): each directory's list sorted, stably,
 * newest .pack first (packfile.c sort_pack). */
static void mru_reprepare(struct mru *m, const struct skg_graph *g)
{
	for (uint32_t a = 2; a < m->np; a++) {
		for (uint32_t b = a; b > 1; b--) {
			const uint32_t x = m->list[b - 1], y = m->list[b];
			if (pack_source(g, x) != pack_source(g, y) || g->pack_mtime[x] >= g->pack_mtime[y]) {
				break;
			}
			m->list[b - 1] = y;
			m->list[b] = x;
			m->pos[y] = b - 1;
			m->pos[x] = b;
		}
	}
}

/* An object git lists and cannot read: one whose pack does not open (F_WALKED, F_BADREAD), or one
 * the check read that git's lookups do not find (T_NOREAD: a multi-pack-index sends them elsewhere,
 * skg_graph_set_noread), unless a ref's commit or tag typed it (T_FORCED). */
static bool listed_unreadable(const struct gobj *o)
{
	return ((o->flags & F_WALKED) == F_WALKED && (o->flags & F_BADREAD)) ||
	       ((o->flags & (F_HAS | F_UNREAD)) == F_HAS && (o->type & (T_NOREAD | T_FORCED)) == T_NOREAD);
}

/*
 * --connectivity-only, with dangling lines or --lost-found: git's check_connectivity then lists
 * the objects again (mark_unreachable_referents): a lookup of each, and for each unreachable one
 * its type read when it has none and fsck_walk's lookups (a commit or tag parsed if it was not, a
 * tree's entries). Those reads move packs in git 2.55's list (`m`, or NULL) while it lists loose
 * objects, not packed ones; `typed`: the objects git knows the type of (by a link looked up).
 */
static int referent(struct skg_objtab *t, const struct skg_graph *g, const uint32_t *hash, uint8_t *parsed,
                    uint32_t i, struct relinks *c, struct mru *m, uint8_t *typed)
{
	const struct gobj *o = &g->objs[i];
	if (t->at[i] != UINT32_MAX) {
		skg_objtab_touch(t, i, hash[i]);
	}
	if ((o->flags & F_REACHABLE) || (o->flags & F_UNREAD) || listed_unreadable(o)) {
		return 0;
	}
	const unsigned type = TY(o);
	if (m != NULL && (type == SKG_TREE || (type == SKG_BLOB && !typed[i]) ||
	                  ((type == SKG_COMMIT || type == SKG_TAG) && !parsed[i]))) {
		mru_read(m, g, i);
	}
	uint32_t n = 0;
	const uint32_t *ls = object_links(c, i, &n); /* typed for the reads of later loose objects */
	for (uint32_t k = 0; k < n && ls != NULL; k++) {
		typed[ls[k] & LINK_INDEX_MASK] = 1;
	}
	return type == SKG_TREE ? link_events(t, g, hash, i, c) : parse_events(t, g, hash, parsed, i, c);
}

/*
 * The second listing (referent, above), in git's order: the adds in check order (`by_offset`,
 * copied into `adds`) listed as the first listing does, except that in git 2.55 (m) each object
 * directory's packs come in the order its loose objects' reads left the list in. 0, or -1 when out
 * of memory.
 */
static int referents_pass(struct skg_objtab *t, const struct skg_graph *g, const uint32_t *hash,
                          uint8_t *parsed, const struct placed *by_offset, struct placed *adds,
                          uint32_t nadds, bool by_source, struct relinks *c, struct mru *m)
{
	uint8_t *typed = calloc((size_t)g->nr + 1, 1);
	int rc = typed == NULL ? -1 : 0;
	memcpy(adds, by_offset, (size_t)nadds * sizeof(*adds));
	/* the packs ranked by their places in the list (m->pos) */
	if (rc == 0 && !sort_listed(g, adds, nadds, by_source, m != NULL ? m->pos : NULL)) {
		rc = -1;
	}
	for (uint32_t a = 0; a < nadds && rc == 0;) {
		/* one object directory's loose objects, then its packs */
		uint32_t e = a;
		const uint32_t s = listed_source(g, adds[a].order, by_source);
		while (e < nadds && listed_source(g, adds[e].order, by_source) == s &&
		       !(adds[e].order & ORDER_PACK)) {
			e++;
		}
		for (; a < e && rc == 0; a++) {
			rc = referent(t, g, hash, parsed, adds[a].index, c, m, typed);
		}
		while (e < nadds && listed_source(g, adds[e].order, by_source) == s &&
		       (adds[e].order & ORDER_PACK)) {
			e++;
		}
		if (m != NULL && e > a && rc == 0) {
			/* the packs as the loose objects' reads left them */
			rc = sort_listed(g, adds + a, e - a, by_source, m->pos) ? 0 : -1;
		}
		for (; a < e && rc == 0; a++) {
			rc = referent(t, g, hash, parsed, adds[a].index, c, NULL, typed);
		}
	}
	free(typed);
	return rc;
}

/*
 * git's object hash table with every object (objtab.h), for the order of the last lines of the walk.
 * git's table order follows from its creations and its lookups: lookup_object swaps an object it
 * finds away from its first slot into that slot. Replayed here in git's order:
 *  - git 2.53+'s snapshot of the refs (skg_graph_snapshot_parse): each ref's object, then what
 *    parse_commit_buffer / parse_tag_buffer look up for it (once per object); the object check's
 *    parse of such a commit or tag finds it parsed and looks nothing up;
 *  - the object check: for each add in git's order of checks (the adds' `order`: loose objects by
 *    directory, then the packs by offset), the object itself (parse_object_buffer's lookup_commit,
 *    lookup_tree, ...), then its links in order (parse_commit_buffer's tree and parents,
 *    parse_tag_buffer's target, fsck_walk_tree's entries). The first of these events makes an
 *    object (so the objects go in in the order of the first event that names each, as before);
 *    a loose tree's links are not kept (skg_graph_add_reload): it is read again (rep->reload) for
 *    them, or without a reader the objects they name first are made there, without the lookups
 *    of the others;
 *  - the roots (process_refs' parse_object of each ref, the reflogs' lookup_object, the index's
 *    lookup_blob), with, after the first, git's first is_promisor_object (mark_object), unless
 *    fsck_finish asked it already (skg_graph_promisor_asked): a lookup of each object of the
 *    promisor packs;
 *  - the lookups of the walk itself: fsck_walk_tree's of the entries of every tree it walks, in
 *    the walk's order (replay_walk_lookups); with --connectivity-only (skg_graph_report's flag:
 *    the check made the objects in git's listing order and parsed none), the parse of each commit
 *    and tag the walk reaches first, and then the second listing (referents_pass). Without them (and without
 * the snapshot), `--unreachable` on a packed repository of a few hundred objects with a commit missing gave
 * two lines in the other order: a lookup moves the object it finds, and so the one in its first slot;
 *  - objects no event named (missing roots) last, in the order the graph first saw them.
 * The table grows as git's does, re-inserting in slot order (skg_objtab_add). So the order does
 * not depend on the threads' interleaving.
 */
static int git_hash_order(const struct skg_graph *g, struct skg_objtab *t, const struct skg_graph_report *rep)
{
	const uint32_t nr = g->nr;
	if (nr == 0) {
		return 0;
	}
	struct placed *p = malloc((size_t)nr * sizeof(*p)); /* first events, as created */
	/* the adds, in git's order of checks, and the other copies (pos 1) */
	struct placed *adds = malloc(((size_t)nr + g->ndups) * sizeof(*adds));
	uint32_t *hash = malloc((size_t)nr * sizeof(*hash));
	uint8_t *parsed = calloc(nr, 1); /* commits and tags git parsed (their links looked up) */
	struct relinks c = {
	    g, rep, calloc(nr, sizeof(uint32_t)), calloc(nr, sizeof(uint32_t)), NULL, 0, 0, false, false};
	t->at = malloc((size_t)nr * sizeof(*t->at));
	struct placed *by_offset = NULL; /* the adds in git's order of checks (adds, or a copy) */
	int rc = -1;
	if (p == NULL || adds == NULL || hash == NULL || parsed == NULL || c.at == NULL || c.n == NULL ||
	    t->at == NULL) {
		goto out;
	}
	uint32_t nadds = 0;
	for (uint32_t i = 0; i < nr; i++) {
		const struct gobj *o = &g->objs[i];
		p[i] = (struct placed){o->order, o->pos, i};
		if (o->flags & F_HAS) {
			adds[nadds++] = (struct placed){o->add_order, 0, i};
		}
		hash[i] = skg_objtab_hash(o->id);
		t->at[i] = UINT32_MAX;
	}
	for (uint32_t d = 0; d < g->ndups; d++) {
		adds[nadds++] = (struct placed){g->dups[d].order, 1, g->dups[d].obj};
	}
	const bool listed = rep->connectivity_only;
	qsort(p, nr, sizeof(*p), cmp_placed);
	qsort(adds, nadds, sizeof(*adds), cmp_placed);
	/* is_promisor_object's pass goes by pack offset (FOR_EACH_OBJECT_PACK_ORDER) in either mode */
	by_offset = listed ? malloc((size_t)nadds * sizeof(*by_offset) + 1) : adds;
	if (by_offset == NULL) {
		goto out;
	}
	if (listed) {
		memcpy(by_offset, adds, (size_t)nadds * sizeof(*by_offset));
		if (!sort_listed(g, adds, nadds, rep->listing_by_source, NULL)) {
			goto out;
		}
	}
	rc = 0;
	/* git 2.53+'s snapshot: parse_object of each ref's object (the object, then what
	 * parse_commit_buffer / parse_tag_buffer look up), once each; the check's parse of those
	 * finds them parsed and looks nothing up */
	bool pass = false; /* is_promisor_object's pass made */
	for (uint32_t k = 0; k <= g->nsnap && rc == 0; k++) {
		if (g->snap_promisor == k + 1) {
			/* a ref at an object that does not parse: snapshot_ref asks is_promisor_object */
			rc = promisor_pass(t, g, hash, by_offset, nadds, parsed, &c);
			pass = true;
		}
		if (k < g->nsnap && rc == 0) {
			rc = event(t, g, hash, g->snap[k]);
			if (rc == 0 && TY(&g->objs[g->snap[k]]) == SKG_BLOB) {
				skg_objtab_touch(t, g->snap[k], hash[g->snap[k]]); /* as in promisor_pass */
			}
		}
		if (k < g->nsnap && rc == 0) {
			rc = parse_events(t, g, hash, parsed, g->snap[k], &c);
		}
	}
	uint32_t next = 0; /* p[next]: the first event not yet looked at */
	for (uint32_t a = 0; a < nadds && rc == 0; a++) {
		const uint32_t i = adds[a].index;
		const struct gobj *o = &g->objs[i];
		rc = event(t, g, hash, i);
		if (listed) {
			continue; /* --connectivity-only: made, not parsed */
		}
		if (adds[a].pos == 1) {
			/* another copy: fsck_obj_buffer and fsck_loose clear SEEN, so fsck_obj walks it
			 * again: a tree's entries are looked up again (a commit or tag is parsed already) */
			if (rc == 0 && TY(o) == SKG_TREE) {
				rc = link_events(t, g, hash, i, &c);
			}
			continue;
		}
		if (rc == 0) {
			/* a tree's entries (a loose tree's read again: its lookups, not only the objects it
			 * made), a commit's or tag's links at its first parse */
			rc = TY(o) == SKG_TREE ? link_events(t, g, hash, i, &c)
			                       : parse_events(t, g, hash, parsed, i, &c);
		}
		/* the objects this add named first that are not made yet: a loose tree's links when it
		 * cannot be read again (no reload) */
		while (next < nr && p[next].order <= o->add_order && rc == 0) {
			if (p[next].order == o->add_order) {
				rc = create(t, g, p[next].index);
			}
			next++;
		}
	}
	if (g->promisor_asked && !pass && rc == 0) {
		rc = promisor_pass(t, g, hash, by_offset, nadds, parsed, &c);
		pass = true;
	}
	/* git 2.55's second listing goes through the packs as the reads before it left them: those
	 * of parse_object at the roots (a cache-tree's tree; a ref's object the snapshot parsed
	 * already) and of the walk */
	const bool mru = listed && rep->referents && rep->listing_by_source;
	uint32_t *reads = mru ? malloc((2 * (size_t)nr + 1) * sizeof(*reads)) : NULL, nreads = 0;
	uint8_t *preparsed = mru ? calloc((size_t)nr + 1, 1) : NULL; /* trees parse_object read */
	struct mru m = {0};
	if (mru && (reads == NULL || preparsed == NULL || !mru_init(&m, g))) {
		rc = -1;
	}
	uint32_t lk = 0; /* the lookups of objects that are no roots (skg_graph_root_lookup) */
	for (uint32_t r = 0; r <= g->nroots && rc == 0; r++) {
		for (; lk < g->nrlook && g->rlook[lk].at == r && rc == 0; lk++) {
			if (t->at[g->rlook[lk].obj] != UINT32_MAX) {
				skg_objtab_touch(t, g->rlook[lk].obj, hash[g->rlook[lk].obj]);
			}
			if (!pass) { /* the is_promisor_object that follows */
				rc = promisor_pass(t, g, hash, by_offset, nadds, parsed, &c);
				pass = true;
			}
		}
		if (r == g->nroots || rc != 0) {
			break;
		}
		const uint32_t i = g->roots[r].obj;
		const struct gobj *o = &g->objs[i];
		if (t->at[i] != UINT32_MAX) {
			skg_objtab_touch(t, i, hash[i]);
		}
		/* a ref's or the cache-tree's parse_object of an object not parsed yet
		 * (--connectivity-only) */
		if (g->roots[r].parse && (o->flags & F_HAS) && !(o->flags & F_UNREAD)) {
			const bool tree = TY(o) == SKG_TREE;
			if (mru && ((tree && !preparsed[i]) || (!tree && TY(o) != SKG_BLOB && !parsed[i]))) {
				reads[nreads++] = i;
				preparsed[i] = tree;
			}
			rc = parse_events(t, g, hash, parsed, i, &c);
		}
		if (!pass && rc == 0) {
			rc = promisor_pass(t, g, hash, by_offset, nadds, parsed, &c);
			pass = true;
		}
	}
	if (rc == 0) {
		rc = replay_walk_lookups(t, g, hash, parsed, &c, reads, &nreads, preparsed);
	}
	free(preparsed);
	for (uint32_t r = 0; r < nreads && rc == 0; r++) {
		if (reads[r] == UINT32_MAX) {
			mru_reprepare(&m, g);
		} else {
			mru_read(&m, g, reads[r]);
		}
	}
	free(reads);
	if (rc == 0 && listed && rep->referents) {
		rc = referents_pass(t, g, hash, parsed, by_offset, adds, nadds, rep->listing_by_source, &c,
		                    mru ? &m : NULL);
	}
	if (mru) {
		mru_free(&m);
	}
	for (uint32_t k = 0; k < nr && rc == 0; k++) {
		rc = create(t, g, p[k].index);
	}
out:
	if (by_offset != adds) {
		free(by_offset);
	}
	free(p);
	free(adds);
	free(hash);
	free(parsed);
	free(c.at);
	free(c.n);
	free(c.v);
	free(t->at);
	t->at = NULL;
	return rc;
}

/* git's fsck_put_object_name in its walk of a named object `from`: `t`, the target of its link `k`
 * (as `ltype`), takes a name from it unless it has one, or git's lookup of it through the link
 * fails (lookup_tree or lookup_blob of an object git has as another type: no object to name). */
static inline void put_name(struct skg_graph *g, uint32_t from, uint32_t k, uint32_t t, unsigned ltype)
{
	const struct gobj *o = &g->objs[t];
	if (g->nm_from[t] == 0 && !((o->type & T_FORCED) && TY(o) != ltype)) {
		g->nm_from[t] = from + 1;
		g->nm_arg[t] = k;
	}
}

/* The links of an F_RELOAD object, as the caller reads them again: marked as kept ones are. */
struct reload {
	struct walk *w;
	uint32_t from;
	uint32_t k; /* the link's place, for its name */
};

static void reload_link(void *ctx, const uint8_t *id, unsigned type)
{
	struct reload *r = ctx;
	struct skg_graph *g = r->w->g;
	uint32_t v = g->slots[find(g, id)];
	if (v != 0) { /* always: skg_graph_add_reload entered every link */
		if (g->nm_from != NULL && !r->w->quiet && g->nm_from[r->from] != 0) {
			put_name(g, r->from, r->k, v - 1, type);
		}
		mark(r->w, r->from, v - 1, type);
	}
	r->k++;
}

/* The lookups of the parse of commit or tag i (its links in order: a commit's tree, then its
 * parents; a tag's object) with git's types in memory (struct walk.gty): false when one fails,
 * which fails the parse (reported). */
static bool gty_links(struct walk *w, uint32_t i)
{
	struct skg_graph *g = w->g;
	const struct gobj *o = &g->objs[i];
	const uint32_t *ls = o->first != NO_LINKS ? links_at(g, o->first) : NULL;
	for (uint32_t k = 0; k < o->n && ls != NULL; k++) {
		const uint32_t t = ls[k] & LINK_INDEX_MASK;
		const unsigned lt = ls[k] >> LINK_TYPE_SHIFT;
		if (!gty_kept(w, &g->objs[t]) || lt < SKG_COMMIT || lt > SKG_TAG) {
			continue;
		}
		if (GTY(w, t) == 0) {
			w->gty[t] = (uint8_t)(w->gty[t] | lt);
		} else if (GTY(w, t) != lt) {
			if (w->quiet) {
				w->events = true;
			} else if (w->rep->failed_parse != NULL) {
				w->rep->failed_parse(w->rep->ctx, TY(o), o->id, k, GTY(w, t), lt,
				                     g->objs[t].id);
			}
			return false;
		}
	}
	return true;
}

/* --connectivity-only: git's walk of object i (fsck_walk): one of no type yet (a reflog's entry)
 * is parsed for its own; one git has as another type than its object's is not followed (a blob
 * is not read; a tree, commit or tag read fails: rep->not_a); a commit or tag not parsed at a ref
 * looks up its links (gty_links). True when its links are followed. */
static bool gty_parse(struct walk *w, uint32_t i)
{
	const struct gobj *o = &w->g->objs[i];
	if (!(o->flags & F_HAS)) {
		return true;
	}
	if (GTY(w, i) == 0) {
		if (w->rep->parse_typeless != NULL &&
		    !w->rep->parse_typeless(w->rep->ctx, w->quiet, TY(o), o->id)) {
			w->events = w->events || w->quiet;
			return false; /* no type: fsck_walk's "Unknown object type" (given) */
		}
		w->gty[i] = (uint8_t)(w->gty[i] | TY(o)); /* parse_object: the type of its object */
	}
	const unsigned as = GTY(w, i);
	if (as != TY(o)) {
		if (as != SKG_BLOB) {
			if (w->quiet) {
				w->events = true;
			} else if (w->rep->not_a != NULL) {
				w->rep->not_a(w->rep->ctx, TY(o), as, o->id);
			}
		}
		return false;
	}
	if ((as == SKG_COMMIT || as == SKG_TAG) && !(w->gty[i] & GTY_PARSED)) {
		w->gty[i] |= GTY_PARSED;
		return gty_links(w, i);
	}
	return true;
}

/* Follow the links of everything on the stack. */
static void drain(struct walk *w)
{
	struct skg_graph *g = w->g;
	const struct skg_graph_report *rep = w->rep;
	while (w->sp > 0) {
		uint32_t i = w->stack[--w->sp];
		uint32_t first = g->objs[i].first, n = g->objs[i].n;
		if (gty_kept(w, &g->objs[i]) && !gty_parse(w, i)) {
			w->gty[i] |= GTY_STOPPED;
			continue;
		}
		if ((g->objs[i].type & T_NOREAD) && !(g->objs[i].flags & F_UNREAD)) {
			/* git's walk cannot read it again: its error, none of its links followed */
			if (w->quiet) {
				w->events = true;
			} else if (rep->walk_error != NULL) {
				rep->walk_error(rep->ctx, TY(&g->objs[i]), g->objs[i].id);
			}
			continue;
		}
		if ((g->objs[i].flags & F_WALKERR) &&
		    !((g->objs[i].flags & F_UNREAD) && n > 0 && TY(&g->objs[i]) == SKG_COMMIT)) {
			if (w->quiet) {
				w->events = true;
			} else if (rep->walk_error != NULL) {
				rep->walk_error(rep->ctx, TY(&g->objs[i]), g->objs[i].id);
			}
			if (g->objs[i].flags & F_UNREAD) {
				continue; /* (the commit-graph's links are git's only when it parses a commit)
				           */
			}
		}
		if ((g->objs[i].flags & (F_UNREAD | F_WALKERR)) == F_UNREAD ||
		    (g->nrereads > 0 && marked_reread(g, i))) {
			/* a copy that cannot be read, then one that was (insert), or one read with lines
			 * (skg_graph_set_reread): git's walk reads it */
			if (w->quiet) {
				w->events = true;
			} else if (rep->reread != NULL) {
				rep->reread(rep->ctx, TY(&g->objs[i]), g->objs[i].id);
			}
		}
		if ((g->objs[i].flags & F_RELOAD) && rep->reload != NULL) {
			if (w->quiet) {
				if (w->nlater == w->later_cap) {
					size_t cap = w->later_cap ? w->later_cap * 2 : 4096;
					uint32_t *v = realloc(w->later, cap * sizeof(*v));
					if (v == NULL) {
						w->failed = true;
						return;
					}
					w->later = v;
					w->later_cap = cap;
				}
				w->later[w->nlater++] = i;
				continue;
			}
			struct reload r = {w, i, 0};
			uint8_t id[SKG_MAX_RAWSZ];
			memcpy(id, g->objs[i].id, SKG_MAX_RAWSZ);
			rep->reload(rep->ctx, 0, g->objs[i].source, id, TY(&g->objs[i]), reload_link, &r);
			continue;
		}
		const uint32_t *ls = first != NO_LINKS ? links_at(g, first) : NULL;
		const bool named = g->nm_from != NULL && !w->quiet && g->nm_from[i] != 0;
		for (uint32_t k = 0; k < n && ls != NULL; k++) {
			uint32_t l = ls[k];
			if (named) {
				put_name(g, i, k, l & LINK_INDEX_MASK, l >> LINK_TYPE_SHIFT);
			}
			mark(w, i, l & LINK_INDEX_MASK, l >> LINK_TYPE_SHIFT);
		}
	}
}

/*
 * The quiet pass reads the F_RELOAD objects it reaches on rep->reload_threads threads, a chunk at
 * a time: each thread collects the links of its share (from, to, type) and the walk then marks
 * them on one thread. Reachability does not depend on the order; the reports would, so the quiet
 * pass only says whether there are any.
 */
#define RELOAD_CHUNK 1024

struct triple {
	uint32_t from, to, type;
};

struct collector {
	struct skg_graph *g;
	const struct skg_graph_report *rep;
	const uint32_t *items;
	size_t nitems;
	size_t *next; /* shared, under lock */
	pthread_mutex_t *lock;
	unsigned thread;
	uint32_t from;
	struct triple *out;
	size_t nout, cap;
	bool failed;
};

static void collect_link(void *ctx, const uint8_t *id, unsigned type)
{
	struct collector *c = ctx;
	uint32_t v = c->g->slots[find(c->g, id)];
	if (v == 0) {
		return;
	}
	if (c->nout == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8192;
		struct triple *t = realloc(c->out, cap * sizeof(*t));
		if (t == NULL) {
			c->failed = true;
			return;
		}
		c->out = t;
		c->cap = cap;
	}
	c->out[c->nout++] = (struct triple){c->from, v - 1, type};
}

static void *collect_thread(void *arg)
{
	struct collector *c = arg;
	for (;;) {
		pthread_mutex_lock(c->lock);
		size_t k = (*c->next)++;
		pthread_mutex_unlock(c->lock);
		if (k >= c->nitems || c->failed) {
			break;
		}
		uint32_t i = c->items[k];
		const struct gobj *o = &c->g->objs[i];
		uint8_t id[SKG_MAX_RAWSZ];
		memcpy(id, o->id, SKG_MAX_RAWSZ);
		c->from = i;
		c->rep->reload(c->rep->ctx, c->thread, o->source, id, TY(o), collect_link, c);
	}
	return NULL;
}

/* The quiet pass: marks every reachable object; false when out of memory. */
static bool quiet_pass(struct walk *w)
{
	unsigned nt = w->rep->reload_threads > 0 ? w->rep->reload_threads : 1;
	if (nt > 64) {
		nt = 64;
	}
	struct collector cs[64];
	pthread_t tids[64];
	pthread_mutex_t lock;
	pthread_mutex_init(&lock, NULL);
	memset(cs, 0, sizeof(cs));
	for (uint32_t r = 0; r < w->g->nroots; r++) {
		if (!w->g->roots[r].dropped) {
			mark(w, UINT32_MAX, w->g->roots[r].obj, 0);
		}
	}
	drain(w);
	uint32_t *cur = NULL;
	size_t ncur = 0;
	while (!w->failed && w->nlater > 0) {
		/* take the pending ones; marking their links fills `later` again */
		free(cur);
		cur = w->later;
		ncur = w->nlater;
		w->later = NULL;
		w->nlater = w->later_cap = 0;
		for (size_t at = 0; at < ncur && !w->failed; at += RELOAD_CHUNK) {
			size_t n = ncur - at < RELOAD_CHUNK ? ncur - at : RELOAD_CHUNK, next = 0;
			unsigned started = 0;
			for (unsigned t = 0; t < nt; t++) {
				cs[t].g = w->g;
				cs[t].rep = w->rep;
				cs[t].items = cur + at;
				cs[t].nitems = n;
				cs[t].next = &next;
				cs[t].lock = &lock;
				cs[t].thread = t;
				cs[t].nout = 0;
				if (t > 0 && pthread_create(&tids[t], NULL, collect_thread, &cs[t]) == 0) {
					started = t;
				} else if (t > 0) {
					break;
				}
			}
			collect_thread(&cs[0]);
			for (unsigned t = 1; t <= started; t++) {
				pthread_join(tids[t], NULL);
			}
			for (unsigned t = 0; t < nt; t++) {
				w->failed |= cs[t].failed;
				for (size_t k = 0; k < cs[t].nout; k++) {
					mark(w, cs[t].out[k].from, cs[t].out[k].to, cs[t].out[k].type);
				}
				cs[t].nout = 0;
				drain(w);
			}
		}
	}
	free(cur);
	for (unsigned t = 0; t < nt; t++) {
		free(cs[t].out);
	}
	pthread_mutex_destroy(&lock);
	return !w->failed;
}

/* One link's use for recount_used: `to` is used (set) or not (!set), as the link marks it. */
struct use {
	struct skg_graph *g;
	bool set;
};

static void use_index(struct skg_graph *g, uint32_t t, unsigned ltype, bool set)
{
	struct gobj *to = &g->objs[t];
	if (!set) {
		to->flags &= (uint8_t)~F_USED;
	} else if (!(to->type & T_FORCED) || TY(to) == (ltype & TYPE_MASK)) {
		to->flags |= F_USED; /* git's lookup of a forced type as another fails: no mark */
	}
}

static void use_link(void *ctx, const uint8_t *id, unsigned type)
{
	struct use *u = ctx;
	uint32_t v = u->g->slots[find(u->g, id)];
	if (v != 0) {
		use_index(u->g, v - 1, type, u->set);
	}
}

static void use_links(struct skg_graph *g, const struct skg_graph_report *rep, uint32_t i, bool set)
{
	const struct gobj *o = &g->objs[i];
	if (o->flags & F_RELOAD) {
		if (rep->reload != NULL) {
			struct use u = {g, set};
			uint8_t id[SKG_MAX_RAWSZ];
			memcpy(id, o->id, SKG_MAX_RAWSZ);
			rep->reload(rep->ctx, 0, o->source, id, TY(o), use_link, &u);
		}
		return;
	}
	const uint32_t *ls = o->first != NO_LINKS ? links_at(g, o->first) : NULL;
	for (uint32_t k = 0; k < o->n && ls != NULL; k++) {
		uint32_t l = ls[k];
		use_index(g, l & LINK_INDEX_MASK, l >> LINK_TYPE_SHIFT, set);
	}
}

/*
 * --connectivity-only (git's check_connectivity, mark_unreachable_referents): git marks "used" only
 * the roots and what existing unreachable objects link to, not what a reachable promisor object
 * links to (the walk stopped there), nor one whose links git's walk did not follow (`gty`:
 * GTY_STOPPED, or NULL). The links of such reachable objects are unmarked, then
 * the roots' and the unreachable objects' marked again. Other reachable objects' targets are
 * reachable themselves: their marks do not matter.
 */
static void recount_used(struct skg_graph *g, const struct skg_graph_report *rep, const uint8_t *gty)
{
	bool any = false;
	for (uint32_t i = 0; i < g->nr; i++) {
		const struct gobj *o = &g->objs[i];
		if (((o->type & T_PROMISOR) || (gty != NULL && (gty[i] & GTY_STOPPED))) &&
		    (o->flags & (F_REACHABLE | F_HAS | F_UNREAD)) == (F_REACHABLE | F_HAS)) {
			use_links(g, rep, i, false);
			any = true;
		}
	}
	for (uint32_t i = 0; any && i < g->nr; i++) {
		const struct gobj *o = &g->objs[i];
		if (o->flags & F_ROOT) {
			g->objs[i].flags |= F_USED;
		}
		if ((o->flags & (F_REACHABLE | F_HAS | F_UNREAD)) == F_HAS) {
			use_links(g, rep, i, true);
		}
	}
}

enum report_kind { REPORT_NONE, REPORT_MISSING, REPORT_UNREACHABLE, REPORT_DANGLING };

/* The line the walk's end gives object o (builtin/fsck.c check_object), if any. */
static enum report_kind reported(const struct gobj *o, const struct skg_graph_report *rep)
{
	if (o->flags & F_REACHABLE) {
		return !(o->flags & F_HAS) && !(o->type & T_PROMISOR) && rep->missing != NULL ? REPORT_MISSING
		                                                                              : REPORT_NONE;
	}
	if (!(o->flags & F_HAS) ||
	    ((o->flags & F_UNREAD) && !(rep->referent_error != NULL && (o->flags & F_WALKED) == F_WALKED &&
	                                (o->flags & F_BADREAD) && !(o->type & T_COPY)))) {
		return REPORT_NONE; /* (an object git lists and cannot read: as any other with
		                     * --connectivity-only's second listing, referent_errors) */
	}
	if (rep->show_unreachable) {
		return rep->unreachable != NULL ? REPORT_UNREACHABLE : REPORT_NONE;
	}
	return !(o->flags & F_USED) && rep->dangling != NULL ? REPORT_DANGLING : REPORT_NONE;
}

/* The roots' names, before the walk (git names every root before its traversal): the first one
 * an object is given stays. */
static bool start_names(struct skg_graph *g)
{
	free(g->nm_from);
	free(g->nm_arg);
	g->nm_from = calloc((size_t)g->nr + 1, sizeof(*g->nm_from));
	g->nm_arg = calloc((size_t)g->nr + 1, sizeof(*g->nm_arg));
	if (g->nm_from == NULL || g->nm_arg == NULL) {
		return false;
	}
	for (uint32_t k = 0; k < g->n_root_names; k++) {
		uint32_t i = g->root_names[k].obj;
		if (g->nm_from[i] == 0) {
			g->nm_from[i] = NM_ROOT;
			g->nm_arg[i] = k;
		}
	}
	return true;
}

/* git's fsck_walk_commit: the name of parent number `counter` (1 for the first) of a commit named
 * `b`, in place. A first parent: "PREFIX~N+1" when the name ends in "~N", "PREFIX~2" when it ends
 * in "^", else "NAME^"; the others "NAME^COUNTER". git parses the name's digits in an int (the
 * unsigned arithmetic here wraps as its does). */
static void parent_name(struct skg_buf *b, uint32_t counter)
{
	if (counter > 1) {
		skg_buf_addf(b, "^%u", counter);
		return;
	}
	const char *name = skg_buf_str(b);
	size_t len = b->len, prefix = len;
	unsigned generation = 0;
	if (len > 0 && name[len - 1] == '^') {
		generation = 1;
		prefix = len - 1;
	} else {
		unsigned power = 1;
		for (; len > 0 && name[len - 1] >= '0' && name[len - 1] <= '9'; power *= 10) {
			generation += power * (unsigned)(name[--len] - '0');
		}
		if (power > 1 && len > 0 && name[len - 1] == '~') {
			prefix = len - 1;
		} else {
			generation = 0;
		}
	}
	if (generation > 0) {
		skg_buf_setlen(b, prefix);
		skg_buf_addf(b, "~%d", (int)(generation + 1));
	} else {
		skg_buf_addc(b, '^');
	}
}

int skg_graph_name(const struct skg_graph *g, const uint8_t *id, skg_graph_entry_fn entry, void *ctx,
                   struct skg_buf *out)
{
	uint32_t v = g->nm_from != NULL ? g->slots[find(g, id)] : 0;
	if (v == 0 || g->nm_from[v - 1] == 0) {
		return 0;
	}
	/* the objects from `id` up to its root, each named through the one after it */
	uint32_t *chain = NULL, x = v - 1;
	size_t n = 0, cap = 0;
	while (g->nm_from[x] != NM_ROOT) {
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			uint32_t *c = realloc(chain, cap * sizeof(*c));
			if (c == NULL) {
				free(chain);
				return -1;
			}
			chain = c;
		}
		chain[n++] = x;
		x = g->nm_from[x] - 1;
	}
	struct skg_buf name = {0};
	int ret = 1;
	skg_buf_adds(&name, g->root_names[g->nm_arg[x]].name);
	while (n > 0 && ret == 1) {
		uint32_t c = chain[--n], p = g->nm_from[c] - 1, k = g->nm_arg[c];
		switch (TY(&g->objs[p])) {
		case SKG_COMMIT: /* link 0: the tree, then the parents */
			if (k == 0) {
				skg_buf_addc(&name, ':');
			} else {
				parent_name(&name, k);
			}
			break;
		case SKG_TREE: {
			bool dir = false;
			if (entry(ctx, g->objs[p].id, k, &name, &dir) != 0) {
				ret = 0; /* cannot be read again: no name */
			} else if (dir) {
				skg_buf_addc(&name, '/');
			}
			break;
		}
		default: /* a tag gives its object its own name */
			break;
		}
	}
	free(chain);
	if (name.failed) {
		ret = -1;
	} else if (ret == 1) {
		skg_buf_add(out, name.p, name.len);
	}
	skg_buf_release(&name);
	return ret;
}

/*
 * --connectivity-only's second listing over the objects git lists and cannot read
 * (listed_unreadable) that the walk did not reach (skg_graph_report.referent_error), in the
 * listing's order (their adds'). One that an unreachable object git reads links to has its type
 * from that link (git's lookup made it), and git's parse of it fails without a line unless it is a
 * corrupt packed commit, tree or tag, which git dies on (the callback's `linked`); any other has no
 * type for git (its dangling line says "unknown"). False when out of memory.
 */
static bool referent_errors(struct skg_graph *g, const struct skg_graph_report *rep)
{
	bool any = false; /* (on a sound repository, none: nothing is allocated) */
	for (uint32_t i = 0; i < g->nr && !any; i++) {
		const struct gobj *o = &g->objs[i];
		any = listed_unreadable(o);
	}
	if (!any) {
		return true;
	}
	uint8_t *linked = calloc((size_t)g->nr + 1, 1);
	struct placed *v = malloc(((size_t)g->nr + 1) * sizeof(*v));
	uint32_t n = 0;
	if (linked == NULL || v == NULL) {
		free(linked);
		free(v);
		return false;
	}
	for (uint32_t i = 0; i < g->nr; i++) {
		const struct gobj *o = &g->objs[i];
		if ((o->flags & (F_REACHABLE | F_HAS | F_UNREAD)) == F_HAS && !listed_unreadable(o) &&
		    o->first != NO_LINKS) {
			const uint32_t *ls = links_at(g, o->first);
			for (uint32_t k = 0; k < o->n; k++) {
				linked[ls[k] & LINK_INDEX_MASK] = 1;
			}
		}
	}
	/* git's "used" marks here are the roots' and those of the links of unreachable objects it
	 * reads (mark_used), not those of an object it cannot read: the unreachable targets of such
	 * an object are used only so */
	for (uint32_t i = 0; i < g->nr; i++) {
		const struct gobj *o = &g->objs[i];
		if (!(o->flags & F_UNREAD) && listed_unreadable(o) && o->first != NO_LINKS) {
			const uint32_t *ls = links_at(g, o->first);
			for (uint32_t k = 0; k < o->n; k++) {
				struct gobj *t = &g->objs[ls[k] & LINK_INDEX_MASK];
				if (!(t->flags & (F_REACHABLE | F_ROOT)) &&
				    !linked[ls[k] & LINK_INDEX_MASK]) {
					t->flags &= (uint8_t)~F_USED;
				}
			}
		}
	}
	for (uint32_t i = 0; i < g->nr; i++) {
		struct gobj *o = &g->objs[i];
		if (listed_unreadable(o) && !(o->flags & F_REACHABLE) &&
		    !((o->flags & F_UNREAD) && (o->type & T_COPY))) {
			/* (the `linked` ones too: git parses them, and dies at a corrupt packed one) */
			v[n++] = (struct placed){o->add_order, 0, i};
			if (!(o->flags & F_UNREAD) && !linked[i]) {
				o->type &= (uint8_t)~TYPE_MASK; /* git knows no type for it */
			}
		}
	}
	/* in git's listing order: by pack, each pack's objects by ID (its idx's order) */
	if (!sort_listed(g, v, n, rep->listing_by_source, NULL)) {
		free(linked);
		free(v);
		return false;
	}
	for (uint32_t k = 0; k < n; k++) {
		rep->referent_error(rep->ctx, g->objs[v[k].index].id, linked[v[k].index] != 0);
	}
	free(linked);
	free(v);
	return true;
}

/*
 * --connectivity-only: git's types in memory before its walk (struct walk.gty), from its roots in
 * their order: an object a ref parsed has its own type, and the lookups of its links (a commit's
 * or tag's) type them; an index entry is looked up as a blob (builtin/fsck.c fsck_index,
 * fsck_resolve_undo: lookup_blob), and where git has it as another type that lookup fails
 * (rep->failed_root) and the entry is no root (struct root.dropped). A reflog's entry types
 * nothing. false when out of memory.
 */
static bool gty_start(struct walk *w)
{
	struct skg_graph *g = w->g;
	if (!w->rep->connectivity_only) {
		return true;
	}
	free(w->gty);
	w->gty = calloc((size_t)g->nr + 1, 1);
	if (w->gty == NULL) {
		return false;
	}
	for (uint32_t r = 0; r < g->nroots; r++) {
		const uint32_t i = g->roots[r].obj;
		const struct gobj *o = &g->objs[i];
		g->roots[r].dropped = false;
		if (g->roots[r].parse && (o->flags & F_HAS) && gty_kept(w, o)) {
			w->gty[i] = (uint8_t)(TY(o) | GTY_PARSED);
			const uint32_t *ls = (TY(o) == SKG_COMMIT || TY(o) == SKG_TAG) && o->first != NO_LINKS
			                         ? links_at(g, o->first)
			                         : NULL;
			for (uint32_t k = 0; k < o->n && ls != NULL; k++) {
				const uint32_t t = ls[k] & LINK_INDEX_MASK;
				const unsigned lt = ls[k] >> LINK_TYPE_SHIFT;
				if (gty_kept(w, &g->objs[t]) && GTY(w, t) == 0 && lt >= SKG_COMMIT &&
				    lt <= SKG_TAG) {
					w->gty[t] = (uint8_t)(w->gty[t] | lt);
				}
			}
		} else if (!g->roots[r].parse && g->roots[r].type != 0 && gty_kept(w, o)) {
			const unsigned lt = g->roots[r].type;
			if (GTY(w, i) == 0) {
				w->gty[i] = (uint8_t)(w->gty[i] | lt);
			} else if (GTY(w, i) != lt) {
				g->roots[r].dropped = true;
				if (w->quiet) {
					w->events = true;
				} else if (w->rep->failed_root != NULL) {
					w->rep->failed_root(w->rep->ctx, GTY(w, i), lt, o->id);
				}
			}
		}
	}
	return true;
}

int skg_graph_walk(struct skg_graph *g, const struct skg_graph_report *rep)
{
	if (g->failed) {
		return -1; /* a queued add did not fit in memory: the graph is not whole */
	}
	struct walk w = {
	    g, rep, malloc(((size_t)g->nr + 1) * sizeof(uint32_t)), 0, false, false, false, NULL, 0, 0, NULL};
	if (w.stack == NULL) {
		return -1;
	}
	if (g->names && !start_names(g)) {
		free(w.stack);
		return -1;
	}
	bool done = false;
	if (rep->reload != NULL && rep->reload_threads > 1) {
		/* a quiet pass on several threads; the walk again, reporting, only if it has anything to say
		 */
		w.quiet = true;
		if (!gty_start(&w) || !quiet_pass(&w)) {
			free(w.gty);
			free(w.stack);
			free(w.later);
			return -1;
		}
		done = !w.events;
		if (!done) {
			for (uint32_t i = 0; i < g->nr; i++) {
				g->objs[i].flags &= (uint8_t)~F_REACHABLE;
			}
		}
		w.quiet = false;
		w.sp = 0;
	}
	if (!done) {
		if (!gty_start(&w)) {
			free(w.stack);
			free(w.later);
			return -1;
		}
		for (uint32_t r = 0; r < g->nroots; r++) {
			if (!g->roots[r].dropped) {
				mark(&w, UINT32_MAX, g->roots[r].obj, 0);
			}
		}
		drain(&w);
	}
	if (rep->used_by_unreachable || w.gty != NULL) {
		recount_used(g, rep, w.gty);
	}
	free(w.gty);
	free(w.later);
	uint32_t *stack = w.stack;
	free(stack);
	if (rep->referents && rep->referent_error != NULL && !referent_errors(g, rep)) {
		return -1;
	}

	/* the order is made only when there is a line to put in it (the replay of git's lookups costs
	 * about one step per link) */
	bool any = false;
	for (uint32_t i = 0; i < g->nr && !any; i++) {
		any = reported(&g->objs[i], rep) != REPORT_NONE;
	}
	struct skg_objtab order = {0};
	if (any && git_hash_order(g, &order, rep) != 0) {
		skg_objtab_free(&order);
		return -1;
	}
	for (uint32_t s = 0; s < order.size; s++) {
		if (order.slot[s] == 0) {
			continue;
		}
		const struct gobj *o = &g->objs[order.slot[s] - 1];
		switch (reported(o, rep)) {
		case REPORT_MISSING:
			rep->missing(rep->ctx, TY(o), o->id);
			break;
		case REPORT_UNREACHABLE:
			rep->unreachable(rep->ctx, TY(o), o->id);
			break;
		case REPORT_DANGLING:
			rep->dangling(rep->ctx, TY(o), o->id);
			break;
		case REPORT_NONE:
			break;
		}
	}
	skg_objtab_free(&order);
	return 0;
}
