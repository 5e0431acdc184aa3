/*
 * batch.c - plain SHA-1, SHA-1DC and SHA-256 of many independent messages in one call
 * (multi-buffer hashing).
 *
 * Each lane holds one message at a time. A message is a run of its full 64-byte blocks, read in
 * place, followed by one or two padding blocks (FIPS 180-4, 5.1.1) built in the lane. Lanes are
 * refilled as messages end. Three ways to fill the machine, chosen per CPU (src/dispatch.c):
 *  - a lanes kernel (src/sha1_lanes.h: 16 lanes with AVX-512, 8 with AVX2): all lanes advance
 *    together, by the smallest number of blocks left in any lane's current run (DC: one block at a
 *    time, so that flagged lanes are checked between blocks). A lane with no message left repeats
 *    another lane's blocks and its result is dropped; once fewer than `min_active` lanes have
 *    messages, each of them is finished on the single-stream kernel, which is then faster;
 *  - two interleaved streams of the single-stream kernel (SHA-NI), as many blocks as both have;
 *  - one message after the other.
 * SHA-256 (sha1kit_sha256_batch) runs the same lanes as plain SHA-1 (src/sha256_lanes.h kernels),
 * the padding being the same (FIPS 180-4, 5.1.1), with eight chaining words instead of five.
 * SHA-1DC in lanes: the kernel gives every lane's UBC mask; for the few lanes with a non-zero mask,
 * the lane's W[0..79] and states before steps 58 and 65 go to the same detection step as a
 * single-stream context (sha1kit_dc_check), with that lane's own context for options and results.
 */
#include "internal.h"
#include "rc_queue.h"

/* The hash a lane computes: its initial chaining value and its width in 32-bit words. */
typedef struct md_shape {
	const uint32_t *iv;
	unsigned words; /* 5 (SHA-1) or 8 (SHA-256); the digest is 4 * words bytes */
} md_shape;

static const md_shape sha1_shape = {sha1kit_iv, 5};
static const md_shape sha256_shape = {sha1kit_sha256_iv, 8};

typedef struct lane {
	uint32_t ihv[8];  /* the chaining value: shape->words of them */
	const uint8_t *p; /* next block of the current run */
	size_t left;      /* blocks left in the current run */
	int in_tail;      /* 0: the message's own blocks, 1: the padding blocks in tail[] */
	size_t tail_blocks;
	size_t msg;      /* index of the message */
	uint64_t offset; /* message offset of the next block (DC) */
	const md_shape *shape;
	uint8_t tail[128];
} lane;

static void lane_start_shape(lane *l, const sha1kit_msg *m, size_t index, const md_shape *shape)
{
	const uint8_t *data = m->data;
	size_t full = m->len / 64, rem = m->len % 64;
	uint64_t bits = (uint64_t)m->len << 3;

	memcpy(l->ihv, shape->iv, 4 * shape->words);
	l->shape = shape;
	l->msg = index;
	l->offset = 0;
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

static void lane_start(lane *l, const sha1kit_msg *m, size_t index)
{
	lane_start_shape(l, m, index, &sha1_shape);
}

/* Move the lane on by k blocks; returns 1 when its message is complete. */
static int lane_advance(lane *l, size_t k)
{
	l->p += 64 * k;
	l->left -= k;
	l->offset += 64 * (uint64_t)k;
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
	const unsigned words = l->shape->words;
	for (unsigned i = 0; i < words; i++)
		sha1kit_store_be32(digests + 4 * words * l->msg + 4 * i, l->ihv[i]);
}

/* The rest of a lane's message on a single-stream kernel (of the lane's hash). */
static void lane_run_single(lane *l, sha1kit_blocks_fn blocks, uint8_t *digests)
{
	do
		blocks(l->ihv, l->p, l->left);
	while (!lane_advance(l, l->left));
	lane_finish(l, digests);
}

/* Copy `words` words of a lane's chaining value out of / into the word-major lanes state. */
static inline void state_get_n(const uint32_t *state, unsigned L, unsigned i, uint32_t *ihv, unsigned words)
{
	for (unsigned w = 0; w < words; w++)
		ihv[w] = state[w * L + i];
}

static inline void state_put_n(uint32_t *state, unsigned L, unsigned i, const uint32_t *ihv, unsigned words)
{
	for (unsigned w = 0; w < words; w++)
		state[w * L + i] = ihv[w];
}

/* The same for SHA-1's five words. */
static inline void state_get(const uint32_t *state, unsigned L, unsigned i, uint32_t ihv[5])
{
	state_get_n(state, L, i, ihv, 5);
}

static inline void state_put(uint32_t *state, unsigned L, unsigned i, const uint32_t ihv[5])
{
	state_put_n(state, L, i, ihv, 5);
}

/* The pointers the lanes kernel reads: idle lanes repeat the first busy lane's blocks. */
static size_t lanes_prepare(const lane *lanes, const int *busy, unsigned L, const uint8_t **ptr, size_t most)
{
	size_t k = most;
	const uint8_t *any = NULL;
	for (unsigned i = 0; i < L; i++)
		if (busy[i]) {
			ptr[i] = lanes[i].p;
			if (!any)
				any = lanes[i].p;
			if (lanes[i].left < k)
				k = lanes[i].left;
		}
	for (unsigned i = 0; i < L; i++)
		if (!busy[i])
			ptr[i] = any;
	return k;
}

/*
 * The messages on a lanes kernel `lanes_fn` of L lanes (plain SHA-1 or SHA-256 by `shape`); once
 * fewer than min_active lanes are busy, each is finished on the single-stream kernel `single`.
 */
static void md_lanes(const md_shape *shape, unsigned L, unsigned min_active, sha1kit_lanes_fast_fn lanes_fn,
                     sha1kit_blocks_fn single, const sha1kit_msg *msgs, size_t n, uint8_t *digests)
{
	lane lanes[SHA1KIT_MAX_LANES];
	int busy[SHA1KIT_MAX_LANES] = {0};
	uint32_t state[8 * SHA1KIT_MAX_LANES];
	const uint8_t *ptr[SHA1KIT_MAX_LANES];
	unsigned nbusy = 0;
	size_t next = 0;

	for (unsigned i = 0; i < L && next < n; i++, next++, nbusy++) {
		lane_start_shape(&lanes[i], &msgs[next], next, shape);
		state_put_n(state, L, i, lanes[i].ihv, shape->words);
		busy[i] = 1;
	}
	while (nbusy >= min_active) {
		size_t k = lanes_prepare(lanes, busy, L, ptr, SIZE_MAX);
		lanes_fn(state, ptr, k);
		for (unsigned i = 0; i < L; i++) {
			if (!busy[i] || !lane_advance(&lanes[i], k))
				continue;
			state_get_n(state, L, i, lanes[i].ihv, shape->words);
			lane_finish(&lanes[i], digests);
			if (next < n) {
				lane_start_shape(&lanes[i], &msgs[next], next, shape);
				state_put_n(state, L, i, lanes[i].ihv, shape->words);
				next++;
			} else {
				busy[i] = 0;
				nbusy--;
			}
		}
	}
	for (unsigned i = 0; i < L; i++)
		if (busy[i]) {
			state_get_n(state, L, i, lanes[i].ihv, shape->words);
			lane_run_single(&lanes[i], single, digests);
		}
}

static void fast_lanes(const sha1kit_batch_kernel *bk, const sha1kit_msg *msgs, size_t n, uint8_t *digests)
{
	md_lanes(&sha1_shape, bk->lanes, bk->min_active, bk->fast,
	         sha1kit_kernels[sha1kit_select_fast_kernel()].blocks, msgs, n, digests);
}

static void fast_x2(const sha1kit_kernel *kernel, const sha1kit_msg *msgs, size_t n, uint8_t *digests)
{
	lane lanes[2];
	int active[2] = {0, 0};
	size_t next = 0;

	for (int i = 0; i < 2 && next < n; i++, next++) {
		lane_start(&lanes[i], &msgs[next], next);
		active[i] = 1;
	}
	while (active[0] && active[1]) {
		size_t k = lanes[0].left < lanes[1].left ? lanes[0].left : lanes[1].left;
		kernel->blocks_x2(lanes[0].ihv, lanes[0].p, lanes[1].ihv, lanes[1].p, k);
		for (int i = 0; i < 2; i++)
			if (lane_advance(&lanes[i], k)) {
				lane_finish(&lanes[i], digests);
				if (next < n)
					lane_start(&lanes[i], &msgs[next], next), next++;
				else
					active[i] = 0;
			}
	}
	for (int i = 0; i < 2; i++)
		if (active[i])
			lane_run_single(&lanes[i], kernel->blocks, digests);
}

void sha1kit_fast_batch_with(uint32_t kernel, const sha1kit_msg *msgs, size_t n, uint8_t *digests)
{
	const sha1kit_batch_kernel *bk = &sha1kit_fast_batch_kernels[kernel];
	const sha1kit_kernel *single = &sha1kit_kernels[sha1kit_select_fast_kernel()];

	if (bk->lanes) {
		fast_lanes(bk, msgs, n, digests);
	} else if (bk->x2 && single->blocks_x2) {
		fast_x2(single, msgs, n, digests);
	} else {
		for (size_t i = 0; i < n; i++) {
			lane l;
			lane_start(&l, &msgs[i], i);
			lane_run_single(&l, single->blocks, digests);
		}
	}
}

void sha1kit_fast_batch(const sha1kit_msg *msgs, size_t n, uint8_t *digests)
{
	sha1kit_fast_batch_with(sha1kit_select_fast_batch_kernel(), msgs, n, digests);
}

int sha1kit_fast_batch_on(uint32_t kernel, const sha1kit_msg *msgs, size_t n, uint8_t *digests)
{
	if (kernel >= sha1kit_fast_batch_kernel_count ||
	    !sha1kit_batch_kernel_supported(&sha1kit_fast_batch_kernels[kernel]))
		return -1;
	sha1kit_fast_batch_with(kernel, msgs, n, digests);
	return 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* SHA-1DC                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

static void dc_store_digest(const uint32_t ihv[5], size_t msg, uint8_t *digests)
{
	for (int i = 0; i < 5; i++)
		sha1kit_store_be32(digests + 20 * msg + 4 * i, ihv[i]);
}

/* A finished DC message: digest, and its first detection (dv -1: none). Returns 1 if flagged. */
static int dc_finish(const sha1kit_dc_ctx *ctx, size_t msg, uint8_t *digests, sha1kit_dc_detection *where)
{
	dc_store_digest(ctx->ihv, msg, digests);
	if (where)
		where[msg] = ctx->first;
	return ctx->found != 0;
}

/* The rest of a lane's message through the context's single-stream DC path (as sha1kit_dc_update). */
static int dc_lane_run_single(lane *l, sha1kit_dc_ctx *ctx, uint8_t *digests, sha1kit_dc_detection *where)
{
	do
		sha1kit_dc_blocks(ctx, l->p, l->left, l->offset);
	while (!lane_advance(l, l->left));
	return dc_finish(ctx, l->msg, digests, where);
}

/* The lane count L is a compile-time constant in these (see dc_lanes_n): strided copies get simple. */
#define INLINE static inline __attribute__((always_inline))

INLINE int dc_lanes_n(const sha1kit_batch_kernel *bk, const sha1kit_dc_ctx *proto, const sha1kit_msg *msgs,
                      size_t n, uint8_t *digests, sha1kit_dc_detection *where, const unsigned L)
{
	/* with the safe hash off, candidates wait for the vector recompression */
	const int deferred = !proto->options.safe_hash && bk->recompress;
	lane lanes[SHA1KIT_MAX_LANES];
	sha1kit_dc_ctx ctx[SHA1KIT_MAX_LANES];
	int busy[SHA1KIT_MAX_LANES] = {0};
	uint32_t state[5 * SHA1KIT_MAX_LANES];
	const uint8_t *ptr[SHA1KIT_MAX_LANES];
	static const sha1kit_dc_detection none = {0, -1, 0};
	sha1kit_lanes_dc out;
	sha1kit_rc_run run;
	unsigned nbusy = 0;
	size_t next = 0;

	sha1kit_rc_init(&run, bk->recompress, sha1kit_dc_kernel_get(sha1kit_select_dc_kernel())->collides,
	                proto->options.reduced_round, where);
	for (unsigned i = 0; i < L && next < n; i++, next++, nbusy++) {
		lane_start(&lanes[i], &msgs[next], next);
		state_put(state, L, i, lanes[i].ihv);
		if (!deferred) /* a lane's context is used by the immediate detection step only */
			ctx[i] = *proto;
		if (where)
			where[next] = none;
		busy[i] = 1;
	}
	while (nbusy >= bk->min_active) {
		uint32_t hits;
		lanes_prepare(lanes, busy, L, ptr, 1);
		hits = bk->dc(state, ptr, proto->options.use_ubc, &out); /* out.before: state on entry */
		for (unsigned i = 0; i < L; i++) {
			if (!busy[i])
				continue;
			if ((hits & (1u << i)) && deferred) {
				sha1kit_rc_add(&run, out.mask[i], out.W + i, L, out.s58 + i, out.s65 + i, L,
				               out.before + i, state + i, L, lanes[i].msg, lanes[i].offset,
				               L);
			} else if (hits & (1u << i)) {
				/* the lane's own detection step, which may change its chaining value */
				uint32_t W[80], ihv_before[5];
				sha1kit_dc_state s58, s65;
				for (int t = 0; t < 80; t++)
					W[t] = out.W[t * L + i];
				for (int w = 0; w < 5; w++) {
					s58.s[w] = out.s58[w * L + i];
					s65.s[w] = out.s65[w * L + i];
				}
				state_get(out.before, L, i, ihv_before);
				state_get(state, L, i, ctx[i].ihv);
				sha1kit_dc_check(&ctx[i], out.mask[i], W, &s58, &s65, ihv_before,
				                 lanes[i].offset);
				state_put(state, L, i, ctx[i].ihv);
			}
			if (!lane_advance(&lanes[i], 1))
				continue;
			if (deferred) {
				uint32_t ihv[5];
				state_get(state, L, i, ihv);
				dc_store_digest(ihv, lanes[i].msg, digests);
			} else {
				state_get(state, L, i, ctx[i].ihv);
				run.flagged |= dc_finish(&ctx[i], lanes[i].msg, digests, where);
			}
			if (next < n) {
				lane_start(&lanes[i], &msgs[next], next);
				state_put(state, L, i, lanes[i].ihv);
				if (!deferred)
					ctx[i] = *proto;
				if (where)
					where[next] = none;
				next++;
			} else {
				busy[i] = 0;
				nbusy--;
			}
		}
	}
	sha1kit_rc_flush(&run, L);
	for (unsigned i = 0; i < L; i++)
		if (busy[i]) {
			/* the single-stream rest merges its detection with the lanes' (earlier blocks first)
			 */
			sha1kit_dc_detection early = where ? where[lanes[i].msg] : none;
			if (deferred)
				ctx[i] = *proto;
			state_get(state, L, i, ctx[i].ihv);
			run.flagged |= dc_lane_run_single(&lanes[i], &ctx[i], digests, where);
			if (where && early.dv >= 0)
				where[lanes[i].msg] = early;
		}
	return run.flagged;
}

static int dc_lanes(const sha1kit_batch_kernel *bk, const sha1kit_dc_ctx *proto, const sha1kit_msg *msgs,
                    size_t n, uint8_t *digests, sha1kit_dc_detection *where)
{
	if (bk->lanes == 16)
		return dc_lanes_n(bk, proto, msgs, n, digests, where, 16);
	return dc_lanes_n(bk, proto, msgs, n, digests, where, 8);
}

sha1kit_dc_result sha1kit_dc_batch_with(uint32_t kernel, const sha1kit_msg *msgs, size_t n,
                                        const sha1kit_dc_options *opt, uint8_t *digests,
                                        sha1kit_dc_detection *where)
{
	const sha1kit_batch_kernel *bk = &sha1kit_dc_batch_kernels[kernel];
	sha1kit_dc_ctx proto;
	int flagged = 0;

	sha1kit_dc_init(&proto, opt);
	if (bk->lanes && proto.options.detect) {
		flagged = dc_lanes(bk, &proto, msgs, n, digests, where);
	} else if (bk->lanes) {
		/* detection off: plain SHA-1 on the same lanes */
		fast_lanes(bk, msgs, n, digests);
		for (size_t i = 0; where && i < n; i++)
			where[i] = proto.first;
	} else {
		for (size_t i = 0; i < n; i++) {
			sha1kit_dc_ctx ctx = proto;
			lane l;
			lane_start(&l, &msgs[i], i);
			flagged |= dc_lane_run_single(&l, &ctx, digests, where);
		}
	}
	return flagged ? SHA1KIT_DC_COLLISION : SHA1KIT_DC_NO_COLLISION;
}

sha1kit_dc_result sha1kit_dc_batch(const sha1kit_msg *msgs, size_t n, const sha1kit_dc_options *opt,
                                   uint8_t *digests, sha1kit_dc_detection *where)
{
	return sha1kit_dc_batch_with(sha1kit_select_dc_batch_kernel(), msgs, n, opt, digests, where);
}

int sha1kit_dc_batch_on(uint32_t kernel, const sha1kit_msg *msgs, size_t n, const sha1kit_dc_options *opt,
                        uint8_t *digests, sha1kit_dc_detection *where)
{
	if (kernel >= sha1kit_dc_batch_kernel_count ||
	    !sha1kit_batch_kernel_supported(&sha1kit_dc_batch_kernels[kernel]))
		return -1;
	return (int)sha1kit_dc_batch_with(kernel, msgs, n, opt, digests, where);
}

/* ------------------------------------------------------------------------------------------------ */
/* SHA-256                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

void sha1kit_sha256_batch_with(uint32_t kernel, const sha1kit_msg *msgs, size_t n, uint8_t *digests)
{
	const sha1kit_batch_kernel *bk = &sha1kit_sha256_batch_kernels[kernel];
	/* the same function type as SHA-1's kernels (a chaining-value array is a pointer parameter) */
	sha1kit_blocks_fn single = sha1kit_sha256_kernel_fn(sha1kit_select_sha256_kernel());

	if (bk->lanes) {
		md_lanes(&sha256_shape, bk->lanes, bk->min_active, bk->fast, single, msgs, n, digests);
	} else {
		for (size_t i = 0; i < n; i++) {
			lane l;
			lane_start_shape(&l, &msgs[i], i, &sha256_shape);
			lane_run_single(&l, single, digests);
		}
	}
}

void sha1kit_sha256_batch(const sha1kit_msg *msgs, size_t n, uint8_t *digests)
{
	sha1kit_sha256_batch_with(sha1kit_select_sha256_batch_kernel(), msgs, n, digests);
}

int sha1kit_sha256_batch_on(uint32_t kernel, const sha1kit_msg *msgs, size_t n, uint8_t *digests)
{
	if (kernel >= sha1kit_sha256_batch_kernel_count ||
	    !sha1kit_batch_kernel_supported(&sha1kit_sha256_batch_kernels[kernel]))
		return -1;
	sha1kit_sha256_batch_with(kernel, msgs, n, digests);
	return 0;
}
