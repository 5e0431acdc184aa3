/*
 * objtab.h - git's object hash table, for its slot order.
 *
 * Part of the Git layer (src/git/). git keeps every object it has created in memory in one
 * open-addressing table (object.c obj_hash, git v2.39.5), and two of its outputs go through that
 * table slot by slot, so that their lines come out in its slot order: fsck's missing, dangling and
 * unreachable objects (builtin/fsck.c check_connectivity, get_indexed_object(0 .. max)) and
 * index-pack --strict's links (builtin/index-pack.c check_objects). The facts this models, from
 * git's object.c and hashmap.h (facts, not code):
 *  - hash (hashmap.h oidhash, object.c hash_obj): the first 4 bytes of the ID copied into an
 *    unsigned int, so read in the machine's byte order (object.c: "the return value is *not*
 *    consistent across computer architectures"): as a little-endian number on x86-64, aarch64 or
 *    i686, as a big-endian one on s390x; the first slot of an ID is that & (size - 1);
 *  - collisions (insert_obj_hash): the next slot, wrapping from the last to slot 0;
 *  - size (create_object, grow_object_hash): 0 until the first object; before an object is created
 *    the table grows when size - 1 <= 2 * objects (so it is never more than half full), to 32, then
 *    to twice its size, re-inserting the objects in the order of the old table's slots (not of
 *    their creation);
 *  - lookups (lookup_object): an object found away from its first slot is swapped with the one in
 *    its first slot.
 *
 * The table holds indices into the caller's array of objects (index + 1 in each slot, 0: empty);
 * it reads their IDs there: the ID of object k is the rawsz bytes at ids + k * stride (for an
 * array of structs whose first member is the ID: ids = &arr[0].id[0], stride = sizeof(arr[0]); pass
 * them again after the array moves). Order of slots: for (s = 0; s < t.size; s++) t.slot[s].
 * No state outside the struct; one thread at a time per table. Memory: 4 bytes a slot, 2 to 4
 * slots an object.
 */
#ifndef SHA1KIT_GIT_OBJTAB_H
#define SHA1KIT_GIT_OBJTAB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "object.h"

/* Zero-initialised ({0}): an empty table; skg_objtab_free releases it. */
struct skg_objtab {
	uint32_t *slot; /* size entries: index + 1 of the object there, 0 for an empty slot */
	uint32_t size;  /* 0 before the first object, then a power of two, at least 32 */
	uint32_t nr;    /* objects added */
	size_t rawsz;   /* bytes of an ID: 0 (as 20) for SHA-1, 32 for SHA-256; set before the first add */
	uint32_t *at;   /* optional (NULL: none), the caller's: at[k] the slot of object k once added,
	                 * kept by add, lookup and touch (entries of objects not added are left alone) */
};

/* git's oidhash(): the first 4 bytes of id as an unsigned int in the machine's byte order. */
static inline uint32_t skg_objtab_hash(const uint8_t *id)
{
	uint32_t h;
	memcpy(&h, id, sizeof(h));
	return h;
}

/*
 * create_object: add object k (k < UINT32_MAX, not in the table yet), growing the table first as
 * git does. Returns 0, or SKG_E_NOMEM (the table unchanged) when the larger table cannot be
 * allocated or would have more than 2^31 slots.
 */
int skg_objtab_add(struct skg_objtab *t, const uint8_t *ids, size_t stride, uint32_t k);

/*
 * lookup_object: the index of the object whose ID is id (rawsz bytes), or -1 when it is not in
 * the table; a hit away from its first slot is swapped into that slot, as git does.
 */
int64_t skg_objtab_lookup(struct skg_objtab *t, const uint8_t *ids, size_t stride, const uint8_t *id);

/*
 * lookup_object of object k, which is in the table, without a search: at[k] says where it is (t->at
 * must be set) and hash is skg_objtab_hash of its ID; away from its first slot it is swapped into
 * it, as skg_objtab_lookup does.
 */
void skg_objtab_touch(struct skg_objtab *t, uint32_t k, uint32_t hash);

/* Release the slots; the table is empty (and usable) again. */
void skg_objtab_free(struct skg_objtab *t);

#endif /* SHA1KIT_GIT_OBJTAB_H */
