/*
 * pack_cache.h - a delta base cache for skg_pk_read_object_cached (pack.h): git's delta base cache
 * (packfile.c, core.deltaBaseCacheLimit's 96 MiB), direct-mapped by pack and offset.
 *
 * Part of the Git layer (src/git/, library sha1kit_git).
 */
#ifndef SHA1KIT_GIT_PACK_CACHE_H
#define SHA1KIT_GIT_PACK_CACHE_H

#include <stdint.h>

#include "pack.h"

struct skg_pk_slot;

/* The bases kept: at most `limit` bytes in all (a base larger than what is left is not kept). */
struct skg_pk_cache {
	struct skg_pk_slot *slots;
	uint64_t cached, limit;
	uint32_t pack; /* the pack being read (set before each read: slots are per pack and offset) */
};

/* An empty cache of at most limit bytes: 0, or -1 when out of memory. */
int skg_pk_cache_init(struct skg_pk_cache *c, uint64_t limit);

/* The callbacks of skg_pk_read_object_cached on c (valid while c is). */
struct skg_pk_base_cache skg_pk_cache_iface(struct skg_pk_cache *c);

/* Frees the bases kept (c may be zero-filled or already released). */
void skg_pk_cache_release(struct skg_pk_cache *c);

#endif /* SHA1KIT_GIT_PACK_CACHE_H */
