/* graph.c - the object graph and connectivity walk of fsck (graph.h). */
#include "graph.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum {
	F_HAS = 1,       /* the object exists (added) */
	F_REACHABLE = 2, /* marked by the walk */
	F_USED = 4,      /* an existing object links to it */
	F_ROOT = 8,      /* named as a root */
	F_WALKERR = 16,  /* following its links fails part way (skg_graph_add) */
};

#define LINK_TYPE_SHIFT 29
#define LINK_INDEX_MASK ((1u << LINK_TYPE_SHIFT) - 1)
#define NO_LINKS        UINT32_MAX

struct gobj {
	uint8_t id[SKG_RAWSZ];
	uint8_t type; /* the real type when F_HAS, else the type of the first link to it (0: none) */
	uint8_t flags;
	uint8_t pad[2];
	uint32_t first; /* links[first .. first + n) */
	uint32_t n;
};

struct skg_graph {
	pthread_mutex_t lock;
	struct gobj *objs;
	uint32_t nr, alloc;
	uint32_t *slots; /* index + 1 of each object, open addressing; 0 = empty */
	uint32_t nslots; /* a power of two, at least twice nr */
	uint32_t *links; /* target index | link type << LINK_TYPE_SHIFT */
	uint64_t nlinks, links_alloc;
	uint32_t *roots;
	uint32_t nroots, roots_alloc;
};

static uint32_t id_hash(const uint8_t *id)
{
	/* as git's oidhash(): the first 4 bytes, little-endian on the machines we emulate */
	return (uint32_t)id[0] | (uint32_t)id[1] << 8 | (uint32_t)id[2] << 16 | (uint32_t)id[3] << 24;
}

struct skg_graph *skg_graph_new(void)
{
	struct skg_graph *g = calloc(1, sizeof(*g));
	if (g == NULL) {
		return NULL;
	}
	pthread_mutex_init(&g->lock, NULL);
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
		free(g->objs);
		free(g->slots);
		free(g->links);
		free(g->roots);
		free(g);
	}
}

/* Two object IDs equal: three loads each instead of a call to memcmp (the hottest compare here). */
static bool id_eq(const uint8_t *a, const uint8_t *b)
{
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
	for (uint32_t s = id_hash(id) & mask;; s = (s + 1) & mask) {
		uint32_t v = g->slots[s];
		if (v == 0 || id_eq(g->objs[v - 1].id, id)) {
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
	for (uint32_t i = 0; i < g->nr; i++) {
		uint32_t s = id_hash(g->objs[i].id) & mask;
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
	}
	uint32_t i = g->nr++;
	memset(&g->objs[i], 0, sizeof(g->objs[i]));
	memcpy(g->objs[i].id, id, SKG_RAWSZ);
	g->objs[i].first = NO_LINKS;
	g->slots[s] = i + 1;
	if ((uint64_t)g->nr * 2 > g->nslots && !grow_slots(g)) {
		g->nr--;
		g->slots[find(g, id)] = 0;
		return UINT32_MAX;
	}
	return i;
}

int skg_graph_add(struct skg_graph *g, const uint8_t id[SKG_RAWSZ], unsigned type,
                  const struct skg_link *links, size_t n, bool walk_error)
{
	int ret = -1;
	pthread_mutex_lock(&g->lock);
	uint32_t i = lookup_or_add(g, id);
	if (i == UINT32_MAX) {
		goto out;
	}
	if (g->objs[i].flags & F_HAS) {
		ret = 0; /* a second copy: the first record stays */
		goto out;
	}
	if (g->nlinks + n > g->links_alloc) {
		uint64_t a = g->links_alloc ? g->links_alloc : 4096;
		while (a < g->nlinks + n) {
			a *= 2;
		}
		uint32_t *l = realloc(g->links, (size_t)a * sizeof(*l));
		if (l == NULL) {
			goto out;
		}
		g->links = l;
		g->links_alloc = a;
	}
	if (g->nlinks + n > UINT32_MAX) {
		goto out;
	}
	uint32_t first = (uint32_t)g->nlinks;
	/*
	 * The links of a tree go to objects all over the table: fetch the slot of link k + 8 and the
	 * object of link k + 4 ahead, so that the misses overlap (about 1.5 per link otherwise).
	 */
	const uint32_t mask = g->nslots - 1;
	for (size_t k = 0; k < n && k < 8; k++) {
		__builtin_prefetch(&g->slots[id_hash(links[k].id) & mask]);
	}
	for (size_t k = 0; k < n; k++) {
		if (k + 8 < n) {
			__builtin_prefetch(&g->slots[id_hash(links[k + 8].id) & (g->nslots - 1)]);
		}
		if (k + 4 < n) {
			uint32_t v = g->slots[id_hash(links[k + 4].id) & (g->nslots - 1)];
			if (v != 0) {
				__builtin_prefetch(&g->objs[v - 1]);
			}
		}
		uint32_t t = lookup_or_add(g, links[k].id);
		if (t == UINT32_MAX) {
			goto out;
		}
		if (g->objs[t].type == 0 && !(g->objs[t].flags & F_HAS)) {
			g->objs[t].type = links[k].type;
		}
		g->objs[t].flags |= F_USED;
		g->links[g->nlinks++] = t | (uint32_t)(links[k].type & 7) << LINK_TYPE_SHIFT;
	}
	/* lookup_or_add may have moved g->objs: index again */
	g->objs[i].flags |= F_HAS | (walk_error ? F_WALKERR : 0);
	g->objs[i].type = (uint8_t)type;
	g->objs[i].first = n ? first : NO_LINKS;
	g->objs[i].n = (uint32_t)n;
	ret = 0;
out:
	pthread_mutex_unlock(&g->lock);
	return ret;
}

int skg_graph_reserve(struct skg_graph *g, uint64_t objects)
{
	int ret = -1;
	pthread_mutex_lock(&g->lock);
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
	}
	while (objects * 2 > g->nslots) {
		if (!grow_slots(g)) {
			goto out;
		}
	}
	ret = 0;
out:
	pthread_mutex_unlock(&g->lock);
	return ret;
}

int skg_graph_root(struct skg_graph *g, const uint8_t id[SKG_RAWSZ], unsigned type)
{
	int ret = -1;
	pthread_mutex_lock(&g->lock);
	uint32_t i = lookup_or_add(g, id);
	if (i == UINT32_MAX) {
		goto out;
	}
	if (g->nroots == g->roots_alloc) {
		uint32_t a = g->roots_alloc ? g->roots_alloc * 2 : 64;
		uint32_t *r = realloc(g->roots, (size_t)a * sizeof(*r));
		if (r == NULL) {
			goto out;
		}
		g->roots = r;
		g->roots_alloc = a;
	}
	g->roots[g->nroots++] = i;
	g->objs[i].flags |= F_ROOT | F_USED;
	if (g->objs[i].type == 0 && !(g->objs[i].flags & F_HAS)) {
		g->objs[i].type = (uint8_t)type;
	}
	ret = 0;
out:
	pthread_mutex_unlock(&g->lock);
	return ret;
}

bool skg_graph_has(const struct skg_graph *g, const uint8_t id[SKG_RAWSZ], unsigned *type)
{
	uint32_t v = g->slots[find(g, id)];
	if (v == 0 || !(g->objs[v - 1].flags & F_HAS)) {
		return false;
	}
	if (type != NULL) {
		*type = g->objs[v - 1].type;
	}
	return true;
}

uint32_t skg_graph_count(const struct skg_graph *g)
{
	return g->nr;
}

/* git's mark_object: mark `t` reachable through a link of `ltype` from `from` (UINT32_MAX for a
 * root), report what git reports, and push it when its links are to be followed. */
static void mark(struct skg_graph *g, uint32_t from, uint32_t t, unsigned ltype, uint32_t *stack,
                 uint32_t *sp, const struct skg_graph_report *rep)
{
	struct gobj *o = &g->objs[t];
	if (from != UINT32_MAX && (o->flags & F_HAS) && o->type != ltype && rep->wrong_type != NULL) {
		rep->wrong_type(rep->ctx, g->objs[from].type, g->objs[from].id);
	}
	if (o->flags & F_REACHABLE) {
		return;
	}
	o->flags |= F_REACHABLE;
	if (!(o->flags & F_HAS)) {
		if (from != UINT32_MAX && rep->broken_link != NULL) {
			rep->broken_link(rep->ctx, g->objs[from].type, g->objs[from].id, o->type, o->id);
		}
		return;
	}
	stack[(*sp)++] = t;
}

/* The order in which git's object hash table lists the objects (see skg_graph_walk). */
static uint32_t *git_hash_order(const struct skg_graph *g, uint32_t *size_out)
{
	uint32_t size = 32;
	while ((uint64_t)g->nr * 2 > size) {
		size *= 2;
	}
	uint32_t *t = calloc(size, sizeof(*t)), mask = size - 1;
	if (t == NULL) {
		return NULL;
	}
	for (uint32_t i = 0; i < g->nr; i++) {
		uint32_t s = id_hash(g->objs[i].id) & mask;
		while (t[s] != 0) {
			s = (s + 1) & mask;
		}
		t[s] = i + 1;
	}
	*size_out = size;
	return t;
}

int skg_graph_walk(struct skg_graph *g, const struct skg_graph_report *rep)
{
	/* each object is pushed at most once (when it becomes reachable) */
	uint32_t *stack = malloc(((size_t)g->nr + 1) * sizeof(*stack)), sp = 0;
	if (stack == NULL) {
		return -1;
	}
	for (uint32_t r = 0; r < g->nroots; r++) {
		mark(g, UINT32_MAX, g->roots[r], 0, stack, &sp, rep);
	}
	while (sp > 0) {
		uint32_t i = stack[--sp];
		uint32_t first = g->objs[i].first, n = g->objs[i].n;
		if ((g->objs[i].flags & F_WALKERR) && rep->walk_error != NULL) {
			rep->walk_error(rep->ctx, g->objs[i].type, g->objs[i].id);
		}
		for (uint32_t k = 0; k < n && first != NO_LINKS; k++) {
			uint32_t l = g->links[first + k];
			mark(g, i, l & LINK_INDEX_MASK, l >> LINK_TYPE_SHIFT, stack, &sp, rep);
		}
	}
	free(stack);

	uint32_t size;
	uint32_t *order = git_hash_order(g, &size);
	if (order == NULL) {
		return -1;
	}
	for (uint32_t s = 0; s < size; s++) {
		if (order[s] == 0) {
			continue;
		}
		const struct gobj *o = &g->objs[order[s] - 1];
		if (o->flags & F_REACHABLE) {
			if (!(o->flags & F_HAS) && rep->missing != NULL) {
				rep->missing(rep->ctx, o->type, o->id);
			}
		} else if (o->flags & F_HAS) {
			if (rep->show_unreachable) {
				if (rep->unreachable != NULL) {
					rep->unreachable(rep->ctx, o->type, o->id);
				}
			} else if (!(o->flags & F_USED) && rep->dangling != NULL) {
				rep->dangling(rep->ctx, o->type, o->id);
			}
		}
	}
	free(order);
	return 0;
}
