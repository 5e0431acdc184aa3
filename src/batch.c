/*
 * batch.c - plain SHA-1 of many independent messages in one call (multi-buffer hashing).
 *
 * Each lane holds one message at a time. A message is a run of its full 64-byte blocks, read in
 * place, followed by one or two padding blocks (FIPS 180-4, 5.1.1) built in the lane. When the
 * chosen kernel has a two-stream form (SHA-NI), both lanes advance together by the smaller number
 * of blocks left in their current runs; a lane whose message ends stores the digest and takes the
 * next message, so lanes are refilled as messages end. Otherwise each message runs on its own.
 */
#include "internal.h"

typedef struct lane {
	uint32_t ihv[5];
	const uint8_t *p; /* next block of the current run */
	size_t left;      /* blocks left in the current run */
	int in_tail;      /* 0: the message's own blocks, 1: the padding blocks in tail[] */
	size_t tail_blocks;
	size_t msg; /* index of the message */
	uint8_t tail[128];
} lane;

static void lane_start(lane *l, const sha1kit_msg *m, size_t index)
{
	const uint8_t *data = m->data;
	size_t full = m->len / 64, rem = m->len % 64;
	uint64_t bits = (uint64_t)m->len << 3;

	memcpy(l->ihv, sha1kit_iv, sizeof(l->ihv));
	l->msg = index;
	if (rem)
		memcpy(l->tail, data + 64 * full, rem);
	l->tail[rem] = 0x80;
	l->tail_blocks = rem < 56 ? 1 : 2;
	memset(l->tail + rem + 1, 0, 64 * l->tail_blocks - rem - 1 - 8);
	sha1kit_store_be32(l->tail + 64 * l->tail_blocks - 8, (uint32_t)(bits >> 32));
	sha1kit_store_be32(l->tail + 64 * l->tail_blocks - 4, (uint32_t)bits);
	l->p = data;
	l->left = full;
	l->in_tail = 0;
	if (full == 0) {
		l->p = l->tail;
		l->left = l->tail_blocks;
		l->in_tail = 1;
	}
}

/* Move the lane on by k blocks; returns 1 when its message is complete. */
static int lane_advance(lane *l, size_t k)
{
	l->p += 64 * k;
	l->left -= k;
	if (l->left)
		return 0;
	if (l->in_tail)
		return 1;
	l->p = l->tail;
	l->left = l->tail_blocks;
	l->in_tail = 1;
	return 0;
}

static void lane_finish(const lane *l, uint8_t *digests)
{
	for (int i = 0; i < 5; i++)
		sha1kit_store_be32(digests + 20 * l->msg + 4 * i, l->ihv[i]);
}

void sha1kit_fast_batch(const sha1kit_msg *msgs, size_t n, uint8_t *digests)
{
	const sha1kit_kernel *kernel = &sha1kit_kernels[sha1kit_select_fast_kernel()];
	lane lanes[2];
	int active[2] = {0, 0};
	size_t next = 0;

	if (!kernel->blocks_x2) {
		for (size_t i = 0; i < n; i++) {
			lane_start(&lanes[0], &msgs[i], i);
			kernel->blocks(lanes[0].ihv, lanes[0].p, lanes[0].left);
			if (!lane_advance(&lanes[0], lanes[0].left))
				kernel->blocks(lanes[0].ihv, lanes[0].p, lanes[0].left);
			lane_finish(&lanes[0], digests);
		}
		return;
	}
	for (int i = 0; i < 2 && next < n; i++, next++) {
		lane_start(&lanes[i], &msgs[next], next);
		active[i] = 1;
	}
	while (active[0] || active[1]) {
		size_t k;
		if (active[0] && active[1]) {
			k = lanes[0].left < lanes[1].left ? lanes[0].left : lanes[1].left;
			kernel->blocks_x2(lanes[0].ihv, lanes[0].p, lanes[1].ihv, lanes[1].p, k);
			for (int i = 0; i < 2; i++)
				if (lane_advance(&lanes[i], k)) {
					lane_finish(&lanes[i], digests);
					if (next < n)
						lane_start(&lanes[i], &msgs[next], next), next++;
					else
						active[i] = 0;
				}
		} else {
			lane *l = &lanes[active[0] ? 0 : 1];
			kernel->blocks(l->ihv, l->p, l->left);
			if (lane_advance(l, l->left)) {
				lane_finish(l, digests);
				if (next < n)
					lane_start(l, &msgs[next], next), next++;
				else
					active[l == &lanes[0] ? 0 : 1] = 0;
			}
		}
	}
}
