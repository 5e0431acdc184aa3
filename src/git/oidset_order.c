/*
 * oidset_order.c - the order in which git iterates an oidset (oidset_order.h).
 */
#include "oidset_order.h"

#include <stdlib.h>
#include <string.h>

struct khset {
	uint32_t n_buckets, size, upper;
	uint32_t *keys; /* indexes into ids */
	uint8_t *used;  /* 1: occupied; 2: moved out during a resize (khash's "deleted") */
};

static uint32_t oidhash(const uint8_t *id)
{
	unsigned int h;
	memcpy(&h, id, sizeof(h)); /* the machine's byte order, as git */
	return (uint32_t)h;
}

/* khash's resize to `want` buckets (rounded up to a power of two, at least 4). */
static int resize(struct khset *h, uint32_t want, const uint8_t *const *ids)
{
	uint32_t n = 4;
	while (n < want) {
		n <<= 1;
	}
	uint32_t upper = (uint32_t)(n * 0.77 + 0.5);
	if (h->size >= upper) {
		return 0; /* khash keeps the table as it is */
	}
	uint8_t *fresh = calloc(n, 1);
	uint32_t *keys = n > h->n_buckets ? realloc(h->keys, n * sizeof(*keys)) : h->keys;
	if (fresh == NULL || keys == NULL) {
		free(fresh);
		return -1;
	}
	h->keys = keys;
	for (uint32_t j = 0; j < h->n_buckets; j++) {
		if (h->used[j] != 1) {
			continue;
		}
		uint32_t key = h->keys[j];
		h->used[j] = 2;
		for (;;) {
			uint32_t i = oidhash(ids[key]) & (n - 1), step = 0;
			while (fresh[i]) {
				i = (i + ++step) & (n - 1);
			}
			fresh[i] = 1;
			if (i < h->n_buckets && h->used[i] == 1) {
				uint32_t kicked = h->keys[i]; /* still to move: placed next */
				h->keys[i] = key;
				h->used[i] = 2;
				key = kicked;
			} else {
				h->keys[i] = key;
				break;
			}
		}
	}
	free(h->used);
	h->used = fresh;
	h->n_buckets = n;
	h->upper = upper;
	return 0;
}

static int put(struct khset *h, uint32_t key, const uint8_t *const *ids, size_t rawsz)
{
	if (h->size >= h->upper &&
	    resize(h, h->n_buckets > (h->size << 1) ? h->n_buckets - 1 : h->n_buckets + 1, ids) != 0) {
		return -1;
	}
	uint32_t mask = h->n_buckets - 1, i = oidhash(ids[key]) & mask, last = i, step = 0;
	while (h->used[i] && (h->used[i] == 2 || memcmp(ids[h->keys[i]], ids[key], rawsz) != 0)) {
		i = (i + ++step) & mask;
		if (i == last) {
			return -1; /* full: not below 77% */
		}
	}
	if (!h->used[i]) {
		h->keys[i] = key;
		h->used[i] = 1;
		h->size++;
	}
	return 0;
}

int skg_oidset_order(const uint8_t *const *ids, size_t n, size_t rawsz, uint32_t **order, size_t *norder)
{
	struct khset h = {0};
	*order = NULL;
	*norder = 0;
	int rc = -1;
	for (size_t i = 0; i < n; i++) {
		if (put(&h, (uint32_t)i, ids, rawsz) != 0) {
			goto out;
		}
	}
	uint32_t *v = malloc((h.size ? h.size : 1) * sizeof(*v));
	if (v == NULL) {
		goto out;
	}
	for (uint32_t b = 0; b < h.n_buckets; b++) {
		if (h.used[b] == 1) {
			v[(*norder)++] = h.keys[b];
		}
	}
	*order = v;
	rc = 0;
out:
	free(h.keys);
	free(h.used);
	return rc;
}
