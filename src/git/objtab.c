/*
 * objtab.c - git's object hash table (objtab.h). Source, git v2.39.5 (facts, not code): object.c
 * hash_obj, insert_obj_hash, lookup_object, grow_object_hash, create_object; hashmap.h oidhash.
 */
#include "objtab.h"

#include <stdlib.h>

static const uint8_t *id_of(const uint8_t *ids, size_t stride, uint32_t k)
{
	return ids + (size_t)k * stride;
}

/* insert_obj_hash: object k into its first free slot from hash & (size - 1) on, wrapping. */
static void put(uint32_t *slot, uint32_t size, const uint8_t *ids, size_t stride, uint32_t k, uint32_t *at)
{
	uint32_t mask = size - 1;
	uint32_t s = skg_objtab_hash(id_of(ids, stride, k)) & mask;
	while (slot[s] != 0) {
		s = (s + 1) & mask;
	}
	slot[s] = k + 1;
	if (at != NULL) {
		at[k] = s;
	}
}

/* lookup_object's move of the object found in slot s to its first slot */
static void swap_first(struct skg_objtab *t, uint32_t s, uint32_t first)
{
	uint32_t v = t->slot[s];
	t->slot[s] = t->slot[first];
	t->slot[first] = v;
	if (t->at != NULL) {
		t->at[t->slot[s] - 1] = s;
		t->at[v - 1] = first;
	}
}

/* grow_object_hash, to `size` slots: the objects again in the order of the old slots. */
static int grow(struct skg_objtab *t, const uint8_t *ids, size_t stride, uint32_t size)
{
	uint32_t *slot = calloc(size, sizeof(*slot));
	if (slot == NULL) {
		return SKG_E_NOMEM;
	}
	for (uint32_t s = 0; s < t->size; s++) {
		if (t->slot[s] != 0) {
			put(slot, size, ids, stride, t->slot[s] - 1, t->at);
		}
	}
	free(t->slot);
	t->slot = slot;
	t->size = size;
	return 0;
}

/* The largest table: 2^31 slots (its size doubled would not fit the uint32_t). */
#define MAX_SIZE (UINT32_C(1) << 31)

int skg_objtab_add(struct skg_objtab *t, const uint8_t *ids, size_t stride, uint32_t k)
{
	/* create_object: grow when size - 1 <= 2 * nr (git's int arithmetic: true for size 0) */
	if (t->size == 0 || (uint64_t)t->size - 1 <= (uint64_t)t->nr * 2) {
		if (t->size >= MAX_SIZE) {
			return SKG_E_NOMEM;
		}
		int rc = grow(t, ids, stride, t->size < 32 ? 32 : 2 * t->size);
		if (rc != 0) {
			return rc;
		}
	}
	put(t->slot, t->size, ids, stride, k, t->at);
	t->nr++;
	return 0;
}

/* Two IDs of the table's size equal (constant-size compares, inlined). */
static bool same_id(const struct skg_objtab *t, const uint8_t *a, const uint8_t *b)
{
	return t->rawsz == SKG_MAX_RAWSZ ? memcmp(a, b, SKG_MAX_RAWSZ) == 0 : memcmp(a, b, SKG_RAWSZ) == 0;
}

int64_t skg_objtab_lookup(struct skg_objtab *t, const uint8_t *ids, size_t stride, const uint8_t *id)
{
	if (t->size == 0) {
		return -1;
	}
	uint32_t mask = t->size - 1;
	uint32_t first = skg_objtab_hash(id) & mask, s = first;
	while (t->slot[s] != 0 && !same_id(t, id_of(ids, stride, t->slot[s] - 1), id)) {
		s = (s + 1) & mask;
	}
	uint32_t v = t->slot[s];
	if (v == 0) {
		return -1;
	}
	if (s != first) { /* lookup_object's move to where the search starts */
		swap_first(t, s, first);
	}
	return (int64_t)v - 1;
}

void skg_objtab_touch(struct skg_objtab *t, uint32_t k, uint32_t hash)
{
	uint32_t s = t->at[k], first = hash & (t->size - 1);
	if (s != first) {
		swap_first(t, s, first);
	}
}

void skg_objtab_free(struct skg_objtab *t)
{
	free(t->slot);
	t->slot = NULL;
	t->size = 0;
	t->nr = 0;
}
