/* typeorder.c - git's one type per object where links disagree on it (typeorder.h). */
#include "typeorder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct event {
	struct skg_read_pos pos;
	uint8_t id[SKG_MAX_RAWSZ]; /* zero-padded, as every ID stored here */
	uint8_t type;
	bool graft;
	bool repeat;       /* a second copy of an object read before */
	uint32_t first, n; /* its links to disputed objects: links[first .. first + n) */
};

struct tlink {
	uint32_t index;  /* the link's place among the object's links (0: a commit's tree) */
	uint32_t target; /* index in ids */
	uint8_t type;
};

struct skg_typeorder {
	pthread_mutex_t lock;
	uint8_t *ids; /* sorted, SKG_MAX_RAWSZ bytes each (IDs of rawsz bytes, zero-padded) */
	size_t rawsz;
	uint8_t *tau; /* git's type of each, once resolved */
	size_t n;
	struct event *events;
	size_t nevents, cap_events;
	struct tlink *links;
	size_t nlinks, cap_links;
	struct skg_typeorder_fate *fates; /* sorted by ID */
	size_t nfates;
	struct skg_read_pos first_commit; /* the first commit git parses (skg_typeorder_commit) */
	bool has_commit;
	bool failed;
};

static int cmp_id(const void *a, const void *b)
{
	return memcmp(a, b, SKG_MAX_RAWSZ);
}

struct skg_typeorder *skg_typeorder_new(const uint8_t *ids, size_t n, size_t rawsz)
{
	struct skg_typeorder *t = calloc(1, sizeof(*t));
	if (t == NULL) {
		return NULL;
	}
	t->ids = calloc(n > 0 ? n : 1, SKG_MAX_RAWSZ);
	t->rawsz = rawsz;
	t->tau = calloc(n > 0 ? n : 1, 1);
	if (t->ids == NULL || t->tau == NULL) {
		free(t->ids);
		free(t->tau);
		free(t);
		return NULL;
	}
	if (n > 0) {
		for (size_t k = 0; k < n; k++) {
			memcpy(t->ids + k * SKG_MAX_RAWSZ, ids + k * rawsz, rawsz);
		}
		qsort(t->ids, n, SKG_MAX_RAWSZ, cmp_id);
	}
	t->n = n;
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

void skg_typeorder_free(struct skg_typeorder *t)
{
	if (t != NULL) {
		pthread_mutex_destroy(&t->lock);
		free(t->ids);
		free(t->tau);
		free(t->events);
		free(t->links);
		free(t->fates);
		free(t);
	}
}

/* The index of `id` among the disputed IDs, or -1. */
static long find(const struct skg_typeorder *t, const uint8_t *id)
{
	if (t->n == 0) {
		return -1;
	}
	uint8_t key[SKG_MAX_RAWSZ] = {0};
	memcpy(key, id, t->rawsz);
	const uint8_t *p = bsearch(key, t->ids, t->n, SKG_MAX_RAWSZ, cmp_id);
	return p != NULL ? (long)((size_t)(p - t->ids) / SKG_MAX_RAWSZ) : -1;
}

bool skg_typeorder_disputed(const struct skg_typeorder *t, const uint8_t *id)
{
	return find(t, id) >= 0;
}

int skg_typeorder_event(struct skg_typeorder *t, const struct skg_read_pos *pos, const uint8_t *id,
                        unsigned type, const struct skg_link *links, size_t n, bool graft)
{
	bool keep = find(t, id) >= 0;
	for (size_t k = 0; k < n && !keep; k++) {
		keep = find(t, links[k].id) >= 0;
	}
	if (!keep) {
		return 0;
	}
	int ret = -1;
	pthread_mutex_lock(&t->lock);
	if (t->nevents == t->cap_events) {
		size_t cap = t->cap_events ? 2 * t->cap_events : 64;
		struct event *v = realloc(t->events, cap * sizeof(*v));
		if (v == NULL) {
			goto out;
		}
		t->events = v;
		t->cap_events = cap;
	}
	struct event *e = &t->events[t->nevents];
	*e = (struct event){.pos = *pos, .type = (uint8_t)type, .graft = graft, .first = (uint32_t)t->nlinks};
	memcpy(e->id, id, t->rawsz);
	for (size_t k = 0; k < n; k++) {
		long x = find(t, links[k].id);
		if (x < 0) {
			continue;
		}
		if (t->nlinks == t->cap_links) {
			size_t cap = t->cap_links ? 2 * t->cap_links : 256;
			struct tlink *v = realloc(t->links, cap * sizeof(*v));
			if (v == NULL) {
				t->nlinks = e->first; /* this event's links are dropped with it */
				goto out;
			}
			t->links = v;
			t->cap_links = cap;
		}
		t->links[t->nlinks++] = (struct tlink){(uint32_t)k, (uint32_t)x, links[k].type};
		e->n++;
	}
	t->nevents++;
	ret = 0;
out:
	if (ret != 0) {
		t->failed = true;
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}

/* Place x against y in git's order (-1, 0, 1), the set-up's lookups aside. */
static int cmp_place(const struct skg_read_pos *x, const struct skg_read_pos *y)
{
	if (x->tip != y->tip) { /* the snapshot's parses first, in their order */
		return x->tip == 0 ? 1 : y->tip == 0 ? -1 : x->tip < y->tip ? -1 : 1;
	}
	if (x->seq != y->seq) {
		return x->seq < y->seq ? -1 : 1;
	}
	if (x->odb != y->odb) {
		return x->odb < y->odb ? -1 : 1;
	}
	return x->where < y->where ? -1 : x->where > y->where;
}

static int cmp_pos(const void *a, const void *b)
{
	const struct skg_read_pos *x = &((const struct event *)a)->pos, *y = &((const struct event *)b)->pos;
	int c = cmp_place(x, y);
	if (c != 0 || x->setup == y->setup) {
		return c;
	}
	/* the set-up's lookups, placed at the first commit's parse, come just before it */
	return x->setup == 0 ? 1 : y->setup == 0 ? -1 : x->setup < y->setup ? -1 : 1;
}

void skg_typeorder_commit(struct skg_typeorder *t, const struct skg_read_pos *pos)
{
	pthread_mutex_lock(&t->lock);
	if (!t->has_commit || cmp_place(pos, &t->first_commit) < 0) {
		t->first_commit = *pos;
		t->has_commit = true;
	}
	pthread_mutex_unlock(&t->lock);
}

static int cmp_event_id(const void *a, const void *b)
{
	const struct event *const *x = a, *const *y = b;
	int c = memcmp((*x)->id, (*y)->id, SKG_MAX_RAWSZ);
	return c != 0 ? c : (*x < *y ? -1 : *x > *y);
}

int skg_typeorder_resolve(struct skg_typeorder *t)
{
	size_t n = t->nevents;
	if (t->failed) {
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		/* the set-up's lookups happen at the first commit's parse (none: they never do) */
		struct event *e = &t->events[i];
		if (e->pos.setup != 0) {
			uint32_t k = e->pos.setup;
			e->pos = t->first_commit;
			e->pos.setup = k;
		}
	}
	if (n > 0) {
		qsort(t->events, n, sizeof(*t->events), cmp_pos);
	}
	struct event **byid = malloc((n > 0 ? n : 1) * sizeof(*byid));
	t->fates = malloc((n > 0 ? n : 1) * sizeof(*t->fates));
	if (byid == NULL || t->fates == NULL) {
		free(byid);
		return -1;
	}
	/* an object read twice (loose and packed, two packs): its first read decides */
	for (size_t i = 0; i < n; i++) {
		byid[i] = &t->events[i];
	}
	if (n > 0) {
		qsort(byid, n, sizeof(*byid), cmp_event_id);
	}
	for (size_t i = 1; i < n; i++) {
		/* a tree the snapshot parsed: the object check's first read looks up its entries */
		bool entries =
		    byid[i]->type == SKG_TREE && byid[i]->pos.tip == 0 && byid[i - 1]->pos.tip != 0;
		byid[i]->repeat = memcmp(byid[i]->id, byid[i - 1]->id, SKG_MAX_RAWSZ) == 0 && !entries;
	}
	free(byid);
	for (size_t i = 0; i < n; i++) {
		/* each set-up lookup is one of its own (from no object), if it happens at all */
		if (t->events[i].pos.setup != 0) {
			t->events[i].repeat = !t->has_commit;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct event *e = &t->events[i];
		if (e->repeat) {
			continue;
		}
		struct skg_typeorder_fate fate = {.type = e->type, .rawsz = (uint8_t)t->rawsz};
		memcpy(fate.id, e->id, SKG_MAX_RAWSZ);
		long self = find(t, e->id);
		if (self >= 0 && t->tau[self] == 0) {
			t->tau[self] = e->type;
		} else if (self >= 0 && t->tau[self] != e->type) {
			fate.kind = SKG_TO_PARSE;
			fate.tau = t->tau[self];
			t->fates[t->nfates++] = fate;
			continue; /* its lookup fails: none of its links are looked up */
		}
		for (uint32_t k = 0; k < e->n; k++) {
			const struct tlink *l = &t->links[e->first + k];
			uint8_t *tau = &t->tau[l->target];
			if (*tau == 0) {
				*tau = l->type;
			} else if (*tau != l->type && e->type != SKG_TREE) {
				fate.kind = e->type == SKG_TAG ? SKG_TO_TAG_PTR
				            : l->index == 0    ? SKG_TO_TREE_PTR
				            : e->graft         ? SKG_TO_GRAFT_PARENT
				                               : SKG_TO_PARENT;
				fate.tau = *tau;
				fate.link_type = l->type;
				memcpy(fate.target, t->ids + (size_t)l->target * SKG_MAX_RAWSZ,
				       SKG_MAX_RAWSZ);
				t->fates[t->nfates++] = fate;
				break; /* the parse stops at the link */
			}
		}
	}
	if (t->nfates > 0) {
		qsort(t->fates, t->nfates, sizeof(*t->fates), cmp_id);
	}
	return 0;
}

size_t skg_typeorder_count(const struct skg_typeorder *t)
{
	return t->n;
}

const uint8_t *skg_typeorder_id(const struct skg_typeorder *t, size_t k, unsigned *type)
{
	*type = t->tau[k];
	return t->ids + k * SKG_MAX_RAWSZ;
}

unsigned skg_typeorder_type(const struct skg_typeorder *t, const uint8_t *id)
{
	long k = find(t, id);
	return k >= 0 ? t->tau[k] : 0;
}

const struct skg_typeorder_fate *skg_typeorder_fate(const struct skg_typeorder *t, const uint8_t *id)
{
	if (t->nfates == 0) {
		return NULL;
	}
	uint8_t key[SKG_MAX_RAWSZ] = {0};
	memcpy(key, id, t->rawsz);
	return bsearch(key, t->fates, t->nfates, sizeof(*t->fates), cmp_id);
}

static const char *tname(unsigned type)
{
	const char *n = skg_type_name(type);
	return n != NULL ? n : "unknown";
}

void skg_typeorder_fate_lines(const struct skg_typeorder_fate *fate, char *buf, size_t n)
{
	char a[SKG_MAX_HEXSZ + 1], b[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(fate->id, fate->rawsz, a);
	if (fate->kind == SKG_TO_PARSE) {
		snprintf(buf, n, "error: object %s is a %s, not a %s", a, tname(fate->tau),
		         tname(fate->type));
		return;
	}
	skg_to_hex_len(fate->target, fate->rawsz, b);
	if (fate->kind == SKG_TO_TAG_PTR) {
		snprintf(buf, n, "error: object %s is a %s, not a %s\nerror: bad tag pointer to %s in %s", b,
		         tname(fate->tau), tname(fate->link_type), b, a);
		return;
	}
	snprintf(buf, n, "error: object %s is a %s, not a %s\nerror: bad %s %s in commit %s", b,
	         tname(fate->tau), tname(fate->link_type),
	         fate->kind == SKG_TO_TREE_PTR       ? "tree pointer"
	         : fate->kind == SKG_TO_GRAFT_PARENT ? "graft parent"
	                                             : "parent",
	         b, a);
}
