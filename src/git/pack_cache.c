/*
 * pack_cache.c - a delta base cache for pack reads (see pack_cache.h).
 *
 * Part of the Git layer (src/git/, library sha1kit_git).
 */
#include "pack_cache.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 1024

struct skg_pk_slot {
	uint32_t pack;
	uint64_t offset;
	unsigned type;
	uint8_t *data; /* NULL: empty */
	uint64_t len;
};

int skg_pk_cache_init(struct skg_pk_cache *c, uint64_t limit)
{
	c->cached = 0;
	c->limit = limit;
	c->pack = 0;
	c->slots = calloc(SLOTS, sizeof(*c->slots));
	return c->slots != NULL ? 0 : -1;
}

void skg_pk_cache_release(struct skg_pk_cache *c)
{
	if (c->slots != NULL) {
		for (size_t i = 0; i < SLOTS; i++) {
			free(c->slots[i].data);
		}
		free(c->slots);
	}
	c->slots = NULL;
	c->cached = 0;
}

static struct skg_pk_slot *slot_of(struct skg_pk_cache *c, uint64_t offset)
{
	uint64_t h = (offset ^ ((uint64_t)c->pack << 40)) * 0x9e3779b97f4a7c15ull;
	return &c->slots[(size_t)(h >> 54) % SLOTS];
}

static bool cache_get(void *ctx, uint64_t offset, unsigned *type, uint8_t **buf, uint64_t *len)
{
	struct skg_pk_cache *c = ctx;
	struct skg_pk_slot *s = slot_of(c, offset);
	if (s->data == NULL || s->pack != c->pack || s->offset != offset) {
		return false;
	}
	uint8_t *p = malloc(s->len > 0 ? (size_t)s->len : 1);
	if (p == NULL) {
		return false;
	}
	memcpy(p, s->data, (size_t)s->len);
	*type = s->type;
	*buf = p;
	*len = s->len;
	return true;
}

static void cache_put(void *ctx, uint64_t offset, unsigned type, const uint8_t *buf, uint64_t len)
{
	struct skg_pk_cache *c = ctx;
	struct skg_pk_slot *s = slot_of(c, offset);
	if (s->data != NULL) {
		c->cached -= s->len;
		free(s->data);
		s->data = NULL;
	}
	if (len > c->limit - c->cached || (s->data = malloc(len > 0 ? (size_t)len : 1)) == NULL) {
		return;
	}
	memcpy(s->data, buf, (size_t)len);
	s->pack = c->pack;
	s->offset = offset;
	s->type = type;
	s->len = len;
	c->cached += len;
}

struct skg_pk_base_cache skg_pk_cache_iface(struct skg_pk_cache *c)
{
	return (struct skg_pk_base_cache){cache_get, cache_put, c};
}
