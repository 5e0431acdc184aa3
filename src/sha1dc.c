/*
 * sha1dc.c - portable SHA-1 with collision detection (SHA-1DC).
 *
 * Per 64-byte block (M. Stevens, "Counter-cryptanalysis", CRYPTO 2013; M. Stevens and D. Shumow,
 * USENIX Security 2017; behaviour of the reference cr-marcstevens/sha1collisiondetection):
 *  1. expand the message to W[0..79] and compress, keeping the working state before steps 58 and
 *     65 (the only states the detector reads);
 *  2. the UBC filter gives the mask of disturbance vectors (DVs) whose unavoidable bit conditions
 *     hold; with the filter off every DV is tried;
 *  3. for each DV in the mask, in table order: the partner block has W'[t] = W[t] ^ dm[t]. Starting
 *     from our state before step testt (58 or 65), undo steps testt-1..0 with W' to get the
 *     partner's input chaining value IHV', and run steps testt..79 with W' to get its output
 *     chaining value. A collision attack is detected when the partner's output equals ours, or
 *     (reduced-round detection) when IHV' equals our input chaining value. The first hit ends the
 *     loop for the block;
 *  4. safe hash: a flagged block is compressed twice more with the same W, each time with its own
 *     feed-forward, so that the colliding pair no longer collides.
 */
#include "internal.h"
#include "rc_queue.h"

#define F1(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define F2(b, c, d) ((b) ^ (c) ^ (d))
#define F3(b, c, d) (((b) & (c)) | ((d) & ((b) | (c))))
#define F4(b, c, d) ((b) ^ (c) ^ (d))
#define K1          0x5a827999u
#define K2          0x6ed9eba1u
#define K3          0x8f1bbcdcu
#define K4          0xca62c1d6u

static inline void load_block(uint32_t W[80], const uint8_t block[64])
{
	for (int t = 0; t < 16; t++)
		W[t] = sha1kit_load_be32(block + 4 * t);
}

#define STEP(f, k, a, b, c, d, e, w)                                                                         \
	do {                                                                                                 \
		e += sha1kit_rotl32(a, 5) + f(b, c, d) + (k) + (w);                                          \
		b = sha1kit_rotl32(b, 30);                                                                   \
	} while (0)

/* W[t] for t >= 16, computed where the step uses it: an expansion loop of its own gets vectorised
 * by compilers into 2-word loads of words just stored, which stall on store forwarding. */
#define WX(t) (W[t] = sha1kit_rotl32(W[(t)-3] ^ W[(t)-8] ^ W[(t)-14] ^ W[(t)-16], 1))
#define WR(t) (W[t])

#define FIVE(f, k, t, w)                                                                                     \
	do {                                                                                                 \
		STEP(f, k, a, b, c, d, e, w(t));                                                             \
		STEP(f, k, e, a, b, c, d, w((t) + 1));                                                       \
		STEP(f, k, d, e, a, b, c, w((t) + 2));                                                       \
		STEP(f, k, c, d, e, a, b, w((t) + 3));                                                       \
		STEP(f, k, b, c, d, e, a, w((t) + 4));                                                       \
	} while (0)

/*
 * The 80 steps on (a,b,c,d,e), with W read through the macro `w` from step 16 on (WX expands on the
 * fly, WR reads W[] already expanded). SAVE56 and SAVE64 receive the state before steps 56 and 64
 * (the 4-step group boundaries that hardware kernels also see; the states before 58 and 65 follow
 * with one or two more steps, computed only for blocks the UBC filter passes). With the renaming
 * of STEP the variable holding A rotates a -> e -> d -> c -> b -> a, so before step 56 (= 55 + 1)
 * the state (A..E) is in (e,a,b,c,d), and before step 64 (= 60 + 4) in (b,c,d,e,a).
 */
#define STEPS_0_79(w, SAVE56, SAVE64)                                                                        \
	do {                                                                                                 \
		FIVE(F1, K1, 0, WR);                                                                         \
		FIVE(F1, K1, 5, WR);                                                                         \
		FIVE(F1, K1, 10, WR);                                                                        \
		STEP(F1, K1, a, b, c, d, e, W[15]);                                                          \
		STEP(F1, K1, e, a, b, c, d, w(16));                                                          \
		STEP(F1, K1, d, e, a, b, c, w(17));                                                          \
		STEP(F1, K1, c, d, e, a, b, w(18));                                                          \
		STEP(F1, K1, b, c, d, e, a, w(19));                                                          \
		FIVE(F2, K2, 20, w);                                                                         \
		FIVE(F2, K2, 25, w);                                                                         \
		FIVE(F2, K2, 30, w);                                                                         \
		FIVE(F2, K2, 35, w);                                                                         \
		FIVE(F3, K3, 40, w);                                                                         \
		FIVE(F3, K3, 45, w);                                                                         \
		FIVE(F3, K3, 50, w);                                                                         \
		STEP(F3, K3, a, b, c, d, e, w(55));                                                          \
		SAVE56(e, a, b, c, d);                                                                       \
		STEP(F3, K3, e, a, b, c, d, w(56));                                                          \
		STEP(F3, K3, d, e, a, b, c, w(57));                                                          \
		STEP(F3, K3, c, d, e, a, b, w(58));                                                          \
		STEP(F3, K3, b, c, d, e, a, w(59));                                                          \
		STEP(F4, K4, a, b, c, d, e, w(60));                                                          \
		STEP(F4, K4, e, a, b, c, d, w(61));                                                          \
		STEP(F4, K4, d, e, a, b, c, w(62));                                                          \
		STEP(F4, K4, c, d, e, a, b, w(63));                                                          \
		SAVE64(b, c, d, e, a);                                                                       \
		STEP(F4, K4, b, c, d, e, a, w(64));                                                          \
		FIVE(F4, K4, 65, w);                                                                         \
		FIVE(F4, K4, 70, w);                                                                         \
		FIVE(F4, K4, 75, w);                                                                         \
		ihv[0] += a;                                                                                 \
		ihv[1] += b;                                                                                 \
		ihv[2] += c;                                                                                 \
		ihv[3] += d;                                                                                 \
		ihv[4] += e;                                                                                 \
	} while (0)

#define SAVE(st, A, B, C, D, E)                                                                              \
	do {                                                                                                 \
		(st)->s[0] = A;                                                                              \
		(st)->s[1] = B;                                                                              \
		(st)->s[2] = C;                                                                              \
		(st)->s[3] = D;                                                                              \
		(st)->s[4] = E;                                                                              \
	} while (0)
#define SAVE_ST0(A, B, C, D, E) SAVE(&st[0], A, B, C, D, E)
#define SAVE_ST1(A, B, C, D, E) SAVE(&st[1], A, B, C, D, E)
#define NO_SAVE(A, B, C, D, E)  ((void)0)

/* The portable DC compression kernel (see sha1kit_dc_compress_fn). */
void sha1kit_dc_compress_portable(uint32_t ihv[5], const uint8_t block[64], uint32_t W[80],
                                  sha1kit_dc_state st[2])
{
	uint32_t a = ihv[0], b = ihv[1], c = ihv[2], d = ihv[3], e = ihv[4];
	load_block(W, block);
	STEPS_0_79(WX, SAVE_ST0, SAVE_ST1);
}

/* Compress an already expanded block into ihv (detection off, and the safe-hash rounds). */
static void compress_w(uint32_t ihv[5], const uint32_t W[80])
{
	uint32_t a = ihv[0], b = ihv[1], c = ihv[2], d = ihv[3], e = ihv[4];
	STEPS_0_79(WR, NO_SAVE, NO_SAVE);
}

/* Steps lo..hi-1 backwards (t descending) / forwards with round function f and constant k, on the
 * partner's words WP(t). Backwards, the state after step t is (T, A, rotl(B,30), C, D) of the state
 * (A,B,C,D,E) before it, so E = T - rotl(A,5) - f(B,C,D) - K - W'[t]. */
#define BACKWARD(f, k, lo, hi, WP)                                                                           \
	for (int t = (hi)-1; t >= (lo); t--) {                                                               \
		uint32_t A = b, B = sha1kit_rotr32(c, 30), C = d, D = e;                                     \
		e = a - sha1kit_rotl32(A, 5) - f(B, C, D) - (k)-WP(t);                                       \
		a = A;                                                                                       \
		b = B;                                                                                       \
		c = C;                                                                                       \
		d = D;                                                                                       \
	}
#define FORWARD(f, k, lo, hi, WP)                                                                            \
	for (int t = (lo); t < (hi); t++) {                                                                  \
		uint32_t T = sha1kit_rotl32(a, 5) + f(b, c, d) + (k) + e + WP(t);                            \
		e = d;                                                                                       \
		d = c;                                                                                       \
		c = sha1kit_rotl32(b, 30);                                                                   \
		b = a;                                                                                       \
		a = T;                                                                                       \
	}

/*
 * Recompression of the partner block (Stevens 2013, section 4): from the state s[5] before step
 * `testt` (58 or 65), run the steps backwards with the partner's words WP(t) to step 0 (giving the
 * partner's input chaining value ihv_in) and forwards to step 80 (giving its output chaining value
 * ihv_out).
 */
#define RECOMPRESS(testt, s, WP, ihv_in, ihv_out)                                                            \
	do {                                                                                                 \
		uint32_t a = (s)[0], b = (s)[1], c = (s)[2], d = (s)[3], e = (s)[4];                         \
		if ((testt) > 60) {                                                                          \
			BACKWARD(F4, K4, 60, (testt), WP);                                                   \
			BACKWARD(F3, K3, 40, 60, WP);                                                        \
		} else {                                                                                     \
			BACKWARD(F3, K3, 40, (testt), WP);                                                   \
		}                                                                                            \
		BACKWARD(F2, K2, 20, 40, WP);                                                                \
		BACKWARD(F1, K1, 0, 20, WP);                                                                 \
		(ihv_in)[0] = a;                                                                             \
		(ihv_in)[1] = b;                                                                             \
		(ihv_in)[2] = c;                                                                             \
		(ihv_in)[3] = d;                                                                             \
		(ihv_in)[4] = e;                                                                             \
		a = (s)[0];                                                                                  \
		b = (s)[1];                                                                                  \
		c = (s)[2];                                                                                  \
		d = (s)[3];                                                                                  \
		e = (s)[4];                                                                                  \
		if ((testt) < 60)                                                                            \
			FORWARD(F3, K3, (testt), 60, WP);                                                    \
		FORWARD(F4, K4, (testt) < 60 ? 60 : (testt), 80, WP);                                        \
		(ihv_out)[0] = (ihv_in)[0] + a;                                                              \
		(ihv_out)[1] = (ihv_in)[1] + b;                                                              \
		(ihv_out)[2] = (ihv_in)[2] + c;                                                              \
		(ihv_out)[3] = (ihv_in)[3] + d;                                                              \
		(ihv_out)[4] = (ihv_in)[4] + e;                                                              \
	} while (0)

/* For one DV: each partner word W[t] ^ dm[t] is formed where its step uses it; nothing is copied. */
#define WP_DM(t) (W[t] ^ dm[t])
void sha1kit_dc_recompress(const sha1kit_dv *dv, const uint32_t W[80], const sha1kit_dc_state *st,
                           uint32_t ihv_in[5], uint32_t ihv_out[5])
{
	const uint32_t *dm = dv->dm;
	RECOMPRESS(dv->testt, st->s, WP_DM, ihv_in, ihv_out);
}

/* For a candidate waiting in a recompression queue (src/rc_queue.h): the partner words are formed. */
#define WP_WORDS(t) (Wp[t])
void sha1kit_dc_recompress_words(int testt, const uint32_t Wp[80], const uint32_t st[5], uint32_t ihv_in[5],
                                 uint32_t ihv_out[5])
{
	RECOMPRESS(testt, st, WP_WORDS, ihv_in, ihv_out);
}

static int ihv_equal(const uint32_t x[5], const uint32_t y[5])
{
	return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) | (x[4] ^ y[4])) == 0;
}

/* Tell the caller's callback about a flagged block (rare: forms the partner's 80 words only here). */
static void report(const sha1kit_dc_ctx *ctx, uint64_t offset, int k, int reduced, const uint32_t ihv[5],
                   const uint32_t ihv_partner[5], const uint32_t W[80])
{
	uint32_t W2[80];
	sha1kit_dc_block_info info;
	for (int t = 0; t < 80; t++)
		W2[t] = W[t] ^ sha1kit_dvs[k].dm[t];
	info.offset = offset;
	info.dv = k;
	info.reduced_round = reduced;
	info.ihv = ihv;
	info.ihv_partner = ihv_partner;
	info.W = W;
	info.W_partner = W2;
	ctx->callback(ctx->callback_user, &info);
}

void sha1kit_dc_check(sha1kit_dc_ctx *ctx, uint32_t mask, const uint32_t W[80], const sha1kit_dc_state *s58,
                      const sha1kit_dc_state *s65, const uint32_t ihv_before[5], uint64_t offset)
{
	/* Without the reduced-round test only the partner's output chaining value matters: asked
	 * forwards with the SHA-1 instructions where the kernel has them (one compression instead of
	 * 80 scalar steps); the scalar recompression then runs only for a hit, for its ihv_in. */
	sha1kit_dc_collides_fn collides =
	    ctx->options.reduced_round ? NULL : sha1kit_dc_kernel_get(ctx->kernel)->collides;
	while (mask) {
		int k = sha1kit_ctz32(mask);
		const sha1kit_dv *dv = &sha1kit_dvs[k];
		const sha1kit_dc_state *st = dv->testt == 58 ? s58 : s65;
		uint32_t ihv_in[5], ihv_out[5];
		int full, reduced;

		mask &= mask - 1;
		if (collides && !collides(dv->testt, W, dv->dm, st->s, ctx->ihv))
			continue;
		sha1kit_dc_recompress(dv, W, st, ihv_in, ihv_out);
		full = ihv_equal(ihv_out, ctx->ihv);
		reduced = ctx->options.reduced_round && ihv_equal(ihv_in, ihv_before);
		if (full || reduced) {
			if (ctx->callback)
				report(ctx, offset, k, !full, ihv_before, ihv_in, W);
			if (!ctx->found) {
				ctx->found = 1;
				ctx->first.offset = offset;
				ctx->first.dv = k;
				ctx->first.reduced_round = !full;
			}
			if (ctx->options.safe_hash) {
				compress_w(ctx->ihv, W);
				compress_w(ctx->ihv, W);
			}
			break;
		}
	}
}

/* A block's candidates (mask non-zero) from its states before steps 56 and 64. */
static void dc_check_states(sha1kit_dc_ctx *ctx, uint32_t mask, const uint32_t W[80],
                            const sha1kit_dc_state st[2], const uint32_t ihv_before[5], uint64_t offset)
{
	sha1kit_dc_state s58 = st[0], s65 = st[1];
	sha1kit_dc_advance(&s58, W, 56, 58);
	sha1kit_dc_advance(&s65, W, 64, 65);
	sha1kit_dc_check(ctx, mask, W, &s58, &s65, ihv_before, offset);
}

/*
 * Two blocks through kernel->compress2 (detection on, safe hash off: a detection there would change
 * the chaining value the second block starts from), each then filtered and checked as
 * dc_block_mask does, the first against its own output chaining value.
 */
static void dc_block_pair(sha1kit_dc_ctx *ctx, const sha1kit_dc_kernel *kernel, const uint8_t *p,
                          uint64_t offset)
{
	uint32_t W[160], before[5], mid[5], mask[2];
	sha1kit_dc_state st[4];

	memcpy(before, ctx->ihv, sizeof(before));
	kernel->compress2(ctx->ihv, p, W, st, mid);
	for (int h = 0; h < 2; h++)
		mask[h] = ctx->options.use_ubc ? kernel->ubc(W + 80 * h) : 0xffffffffu;
	if (mask[0]) {
		uint32_t after[5];
		memcpy(after, ctx->ihv, sizeof(after));
		memcpy(ctx->ihv, mid, sizeof(mid));
		dc_check_states(ctx, mask[0], W, st, before, offset);
		memcpy(ctx->ihv, after, sizeof(after));
	}
	if (mask[1])
		dc_check_states(ctx, mask[1], W + 80, st + 2, mid, offset + 64);
}

/* One block whose UBC mask is known (or computed here when `known` is 0). */
static void dc_block_mask(sha1kit_dc_ctx *ctx, const sha1kit_dc_kernel *kernel, const uint8_t block[64],
                          uint64_t offset, int known, uint32_t mask)
{
	uint32_t W[80];
	uint32_t ihv_before[5];
	sha1kit_dc_state st[2];

	memcpy(ihv_before, ctx->ihv, sizeof(ihv_before));
	kernel->compress(ctx->ihv, block, W, st);
	if (!ctx->options.detect)
		return;
	if (!known)
		mask = ctx->options.use_ubc ? kernel->ubc(W) : 0xffffffffu;
	if (!mask)
		return;
	/* about 1 block in 20 on random data gets here */
	dc_check_states(ctx, mask, W, st, ihv_before, offset);
}

/* Process one 64-byte block at message offset `offset`. */
void sha1kit_dc_block(sha1kit_dc_ctx *ctx, const uint8_t block[64], uint64_t offset)
{
	dc_block_mask(ctx, sha1kit_dc_kernel_get(ctx->kernel), block, offset, 0, 0);
}

/* A block whose mask is non-zero, with its candidates queued for the vector recompression. */
static void dc_block_defer(sha1kit_dc_ctx *ctx, const sha1kit_dc_kernel *kernel, sha1kit_rc_run *run,
                           const uint8_t block[64], uint64_t offset, uint32_t mask)
{
	uint32_t W[80], before[5];
	sha1kit_dc_state st[2], s58, s65;

	memcpy(before, ctx->ihv, sizeof(before));
	kernel->compress(ctx->ihv, block, W, st);
	s58 = st[0];
	sha1kit_dc_advance(&s58, W, 56, 58);
	s65 = st[1];
	sha1kit_dc_advance(&s65, W, 64, 65);
	sha1kit_rc_add(run, mask, W, 1, s58.s, s65.s, 1, before, ctx->ihv, 1, 0, offset, SHA1KIT_MAX_LANES);
}

/*
 * Blocks whose UBC masks are known: runs of mask-zero blocks go to the plain kernel in one call
 * (across spans: the run is kept until a flagged block or the end), the others take the DC path,
 * deferred to the vector recompression where allowed.
 */
typedef struct masked_walk {
	sha1kit_blocks_fn blocks; /* plain kernel: the same chaining value without W or states */
	int defer;
	sha1kit_rc_run run;
	sha1kit_dc_detection det;
	const uint8_t *run_start;
	size_t run_len;
} masked_walk;

static void walk_begin(sha1kit_dc_ctx *ctx, const sha1kit_dc_kernel *kernel, masked_walk *w)
{
	static const sha1kit_dc_detection none = {0, -1, 0};
	w->blocks = kernel->blocks ? kernel->blocks : sha1kit_kernels[sha1kit_select_fast_kernel()].blocks;
	w->defer = kernel->recompress16 && !ctx->options.safe_hash && !ctx->callback;
	w->det = ctx->found ? ctx->first : none;
	w->run_start = NULL;
	w->run_len = 0;
	if (w->defer)
		sha1kit_rc_init(&w->run, kernel->recompress16, kernel->collides, ctx->options.reduced_round,
		                &w->det);
}

static void walk_span(sha1kit_dc_ctx *ctx, const sha1kit_dc_kernel *kernel, masked_walk *w, const uint8_t *p,
                      size_t nblocks, uint64_t offset, const uint32_t *mask)
{
	for (size_t b = 0; b < nblocks; b++) {
		if (mask[b] == 0) {
			if (w->run_len++ == 0)
				w->run_start = p + 64 * b;
			continue;
		}
		if (w->run_len)
			w->blocks(ctx->ihv, w->run_start, w->run_len);
		w->run_len = 0;
		if (w->defer)
			dc_block_defer(ctx, kernel, &w->run, p + 64 * b, offset + 64 * b, mask[b]);
		else
			dc_block_mask(ctx, kernel, p + 64 * b, offset + 64 * b, 1, mask[b]);
	}
}

static void walk_end_run(sha1kit_dc_ctx *ctx, masked_walk *w)
{
	if (w->run_len)
		w->blocks(ctx->ihv, w->run_start, w->run_len);
	w->run_len = 0;
}

/* The deferred candidates; blocks checked directly after the walk were later in the message. */
static void walk_end(sha1kit_dc_ctx *ctx, masked_walk *w)
{
	walk_end_run(ctx, w);
	if (!w->defer)
		return;
	sha1kit_rc_flush(&w->run, SHA1KIT_MAX_LANES);
	if (w->run.flagged) {
		sha1kit_dc_detection det = w->det;
		if (ctx->found && (ctx->first.offset < det.offset ||
		                   (ctx->first.offset == det.offset && ctx->first.dv < det.dv)))
			det = ctx->first;
		ctx->found = 1;
		ctx->first = det;
	}
}

/* One block whose mask is known, compressed at once (no run kept: the pipelined look-ahead runs a
 * filter step right after it). */
static void walk_block(sha1kit_dc_ctx *ctx, const sha1kit_dc_kernel *kernel, masked_walk *w, const uint8_t *p,
                       uint64_t offset, uint32_t mask)
{
	if (mask == 0)
		w->blocks(ctx->ihv, p, 1);
	else if (w->defer)
		dc_block_defer(ctx, kernel, &w->run, p, offset, mask);
	else
		dc_block_mask(ctx, kernel, p, offset, 1, mask);
}

/*
 * The pipelined look-ahead (kernel->ubc_pipe, groups of 16 blocks): the masks of group g + 1 are
 * computed in 16 steps, one after each block of group g; the first group's masks come first (one
 * look-ahead call), and the last whole group's steps compute the masks of the blocks after it (fewer
 * than 16, lanes past them repeat the first). kernel->run16 compresses the mask-zero blocks of a
 * group with the steps between them; a block with a non-zero mask stops it, takes the DC path here,
 * and its step follows (the same step, out of line).
 */
static void dc_blocks_pipe(sha1kit_dc_ctx *ctx, const sha1kit_dc_kernel *kernel, masked_walk *w,
                           const uint8_t *p, size_t nblocks, uint64_t offset)
{
	uint32_t state[SHA1KIT_UBC_PIPE_WORDS] __attribute__((aligned(64)));
	uint32_t mask[2][SHA1KIT_MAX_LANES];
	size_t groups = nblocks / 16, left = nblocks - 16 * groups;

	kernel->ubc_ahead(p, 16, mask[0]); /* the same masks in one call: nothing to overlap yet */
	for (size_t g = 0; g <= groups; g++) {
		const uint8_t *q = p + 64 * 16 * g, *next = q + 64 * 16;
		const uint32_t *m = mask[g & 1];
		uint32_t *next_mask = mask[(g + 1) & 1];
		uint64_t off = offset + 64 * 16 * g;
		unsigned n = g < groups ? 16 : (unsigned)left;
		if (n == 0)
			break;
		size_t nnext = g + 1 < groups ? 16 : left;
		if (g == groups || nnext == 0)
			next = NULL; /* the last group (or the blocks after the last whole one) */
		for (unsigned b = 0;
		     (b = kernel->run16(ctx->ihv, q, b, n, m, state, next, nnext, next_mask)) < n; b++) {
			walk_block(ctx, kernel, w, q + 64 * b, off + 64 * b, m[b]);
			if (next != NULL)
				kernel->ubc_pipe(state, next, nnext, b, next_mask);
		}
	}
}

/* The look-ahead part of sha1kit_dc_blocks, out of line: its walk (with the recompression queue,
 * about 19 KiB) is a stack frame the updates of a few blocks (Git's trees, commits, small blobs)
 * need not set up. */
static __attribute__((noinline)) void dc_blocks_ahead(sha1kit_dc_ctx *ctx, const sha1kit_dc_kernel *kernel,
                                                      const uint8_t *p, size_t nblocks, uint64_t offset,
                                                      size_t ahead_min)
{
	uint32_t mask[SHA1KIT_MAX_LANES];
	masked_walk w;
	/* once in, groups go on down to the table's ahead_min (the smaller of the two) */
	size_t group_min = ahead_min < kernel->ahead_min ? ahead_min : kernel->ahead_min;

	walk_begin(ctx, kernel, &w);
	/* A kernel with the pipelined look-ahead takes it from its ahead_min (the first group's masks
	 * need 16 blocks). Zen 5 with run16, at 2 / 2.5 KiB in one update: pipelined from 32 blocks
	 * 0.89x-0.90x / 0.89x OpenSSL, from 48 (before) 0.80x / 0.80x-0.81x, shani+avx512 0.85x-0.87x /
	 * 0.84x-0.85x (docs/PERFORMANCE.md, "Git against sha1kit: one SHA-NI function for a group"). */
	if (kernel->ubc_pipe && nblocks >= 16) {
		dc_blocks_pipe(ctx, kernel, &w, p, nblocks, offset);
		walk_end(ctx, &w);
		return;
	}
	while (nblocks >= group_min) {
		size_t group = nblocks < kernel->ahead ? nblocks : kernel->ahead;
		kernel->ubc_ahead(p, group, mask);
		walk_span(ctx, kernel, &w, p, group, offset, mask);
		p += 64 * group;
		offset += 64 * group;
		nblocks -= group;
	}
	walk_end_run(ctx, &w);
	for (size_t b = 0; b < nblocks; b++)
		dc_block_mask(ctx, kernel, p + 64 * b, offset + 64 * b, 0, 0);
	walk_end(ctx, &w);
}

/*
 * `nblocks` whole blocks at `p`, the first at message offset `offset`. With a look-ahead kernel
 * (and detection with the UBC filter on), the masks of up to kernel->ahead blocks come first; runs
 * of blocks with mask zero go through the plain kernel, which computes the same chaining value
 * without writing W or states, and only the other blocks (about 1 in 20) take the DC path.
 */
void sha1kit_dc_blocks(sha1kit_dc_ctx *ctx, const uint8_t *p, size_t nblocks, uint64_t offset)
{
	const sha1kit_dc_kernel *kernel = sha1kit_dc_kernel_get(ctx->kernel);
	/* an update of this CPU's ahead_min blocks or more takes the look-ahead */
	size_t ahead_min = kernel->ubc_ahead ? sha1kit_dc_ahead_min(ctx->kernel) : 0;

	if (!kernel->ubc_ahead || !ctx->options.detect || !ctx->options.use_ubc || nblocks < ahead_min) {
		size_t b = 0;
		if (kernel->compress2 != NULL && ctx->options.detect && !ctx->options.safe_hash) {
			for (; b + 2 <= nblocks; b += 2)
				dc_block_pair(ctx, kernel, p + 64 * b, offset + 64 * b);
		}
		for (; b < nblocks; b++)
			dc_block_mask(ctx, kernel, p + 64 * b, offset + 64 * b, 0, 0);
		return;
	}
	dc_blocks_ahead(ctx, kernel, p, nblocks, offset, ahead_min);
}

/* W[0..79] of a block (FIPS 180-4, 6.1.2), for the per-block filters. The words come from a 16-word ring of
 * locals and are only stored to W: a loop over W itself (WX) is vectorised by gcc into 8-byte loads that
 * straddle the two stores before them and wait on store forwarding: 330 ns a block with the filter on AMD
 * EPYC family 25 model 1, 51 ns so (docs/PERFORMANCE.md, "sha1kit_dc_masks"). */
static void expand_block(const uint8_t *block, uint32_t W[80])
{
	uint32_t r[16];
	for (int t = 0; t < 16; t++)
		W[t] = r[t] = sha1kit_load_be32(block + 4 * t);
#define RX(t)                                                                                                \
	(W[t] = r[(t)&15] =                                                                                  \
	     sha1kit_rotl32(r[((t)-3) & 15] ^ r[((t)-8) & 15] ^ r[((t)-14) & 15] ^ r[(t)&15], 1))
#define RX4(t)  (RX(t), RX((t) + 1), RX((t) + 2), RX((t) + 3))
#define RX16(t) (RX4(t), RX4((t) + 4), RX4((t) + 8), RX4((t) + 12))
	RX16(16), RX16(32), RX16(48), RX16(64);
#undef RX16
#undef RX4
#undef RX
}

void sha1kit_dc_masks_with(sha1kit_ubc_ahead_fn ahead_fn, size_t ahead, sha1kit_ubc_fn ubc,
                           const void *blocks, size_t nblocks, uint32_t *masks)
{
	const uint8_t *p = blocks;
	if (ahead_fn) {
		uint32_t m[SHA1KIT_MAX_LANES];
		while (nblocks) {
			size_t group = nblocks < ahead ? nblocks : ahead;
			ahead_fn(p, group, m);
			memcpy(masks, m, group * sizeof(uint32_t));
			masks += group;
			p += 64 * group;
			nblocks -= group;
		}
		return;
	}
	for (size_t b = 0; b < nblocks; b++) {
		uint32_t W[80];
		expand_block(p + 64 * b, W);
		masks[b] = ubc(W);
	}
}

/* The chosen kernel's look-ahead, else 8 blocks in AVX2 lanes where the CPU has AVX2 (AMD EPYC
 * family 25 model 1, whose kernel shani+avx2 has none: 24 ns a block, against 51 ns for the
 * expansion and the per-block filter; docs/PERFORMANCE.md, "sha1kit_dc_masks"), else the per-block
 * filter. */
void sha1kit_dc_masks(const void *blocks, size_t nblocks, uint32_t *masks)
{
	const sha1kit_dc_kernel *kernel = sha1kit_dc_kernel_get(sha1kit_select_dc_kernel());
	sha1kit_ubc_ahead_fn ahead_fn = kernel->ubc_ahead;
	size_t ahead = kernel->ahead;
#if SHA1KIT_HAVE_AVX2 && defined(__x86_64__)
	if (ahead_fn == NULL && (sha1kit_cpu_features() & SHA1KIT_CPU_AVX2)) {
		ahead_fn = sha1kit_ubc_ahead8_avx2;
		ahead = 8;
	}
#endif
	sha1kit_dc_masks_with(ahead_fn, ahead, kernel->ubc, blocks, nblocks, masks);
}

void sha1kit_dc_update_masked(sha1kit_dc_ctx *ctx, const void *blocks, size_t nblocks, const uint32_t *masks)
{
	const sha1kit_dc_kernel *kernel = sha1kit_dc_kernel_get(ctx->kernel);
	masked_walk w;

	if ((ctx->length & 63) != 0 || !ctx->options.detect || !ctx->options.use_ubc) {
		sha1kit_dc_update(ctx, blocks, 64 * nblocks);
		return;
	}
	walk_begin(ctx, kernel, &w);
	walk_span(ctx, kernel, &w, blocks, nblocks, ctx->length, masks);
	walk_end(ctx, &w);
	ctx->length += 64 * (uint64_t)nblocks;
}

void sha1kit_dc_options_default(sha1kit_dc_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->size = (uint32_t)sizeof(*opt);
	opt->safe_hash = 0;
	opt->use_ubc = 1;
	opt->detect = 1;
	opt->reduced_round = 0;
}

void sha1kit_dc_reset(sha1kit_dc_ctx *ctx)
{
	memcpy(ctx->ihv, sha1kit_iv, sizeof(ctx->ihv));
	ctx->length = 0;
	ctx->found = 0;
	ctx->first.offset = 0;
	ctx->first.dv = -1;
	ctx->first.reduced_round = 0;
}

/* sha1kit_dc_init on kernel index `kernel`. */
static void dc_init_kernel(sha1kit_dc_ctx *ctx, const sha1kit_dc_options *opt, uint32_t kernel)
{
	sha1kit_dc_options_default(&ctx->options);
	if (opt) {
		/* Copy only the fields the caller's version of the struct has; newer fields keep their
		 * defaults. */
		size_t n = opt->size < sizeof(*opt) ? opt->size : sizeof(*opt);
		if (n > sizeof(opt->size))
			memcpy((uint8_t *)&ctx->options + sizeof(opt->size),
			       (const uint8_t *)opt + sizeof(opt->size), n - sizeof(opt->size));
		ctx->options.size = (uint32_t)sizeof(*opt);
	}
	ctx->kernel = kernel;
	ctx->callback = NULL;
	ctx->callback_user = NULL;
	sha1kit_dc_reset(ctx);
}

void sha1kit_dc_init(sha1kit_dc_ctx *ctx, const sha1kit_dc_options *opt)
{
	dc_init_kernel(ctx, opt, sha1kit_select_dc_kernel());
}

/* As sha1kit_dc_init, with the check in place of the choice: a benchmark times it per message. */
int sha1kit_dc_init_on(sha1kit_dc_ctx *ctx, const sha1kit_dc_options *opt, uint32_t kernel)
{
	int ok = sha1kit_dc_kernel_supported(kernel);
	dc_init_kernel(ctx, opt, ok ? kernel : sha1kit_select_dc_kernel());
	return ok ? 0 : -1;
}

void sha1kit_dc_update(sha1kit_dc_ctx *ctx, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t used = (size_t)(ctx->length & 63);

	if (len == 0)
		return;
	if (used) {
		size_t take = 64 - used;
		if (take > len) {
			memcpy(ctx->buffer + used, p, len);
			ctx->length += len;
			return;
		}
		memcpy(ctx->buffer + used, p, take);
		ctx->length += take;
		sha1kit_dc_block(ctx, ctx->buffer, ctx->length - 64);
		p += take;
		len -= take;
	}
	if (len >= 64) {
		size_t nblocks = len / 64;
		sha1kit_dc_blocks(ctx, p, nblocks, ctx->length);
		ctx->length += 64 * (uint64_t)nblocks;
		p += 64 * nblocks;
		len -= 64 * nblocks;
	}
	if (len) {
		memcpy(ctx->buffer, p, len);
		ctx->length += len;
	}
}

void sha1kit_dc_set_callback(sha1kit_dc_ctx *ctx, sha1kit_dc_callback callback, void *user)
{
	ctx->callback = callback;
	ctx->callback_user = user;
}

/* The last block(s) of the message in ctx through `kernel` (sha1kit_md_last: its last length % 64
 * bytes at tail, `before` and in_block as there), and the digest; the context is left as it is. */
static sha1kit_dc_result dc_finish(sha1kit_dc_ctx *ctx, const sha1kit_dc_kernel *kernel,
                                   uint8_t digest[SHA1KIT_DIGEST_SIZE], sha1kit_dc_detection *where,
                                   const uint8_t *tail, size_t before, int in_block)
{
	uint64_t block_offset = ctx->length & ~(uint64_t)63;
	uint8_t last[128] __attribute__((aligned(16)));
	size_t blocks = sha1kit_md_last(last, tail, ctx->length, before, in_block);

	/* The padding blocks go through detection like any other block, as in the reference. */
	for (size_t b = 0; b < blocks; b++)
		dc_block_mask(ctx, kernel, last + 64 * b, block_offset + 64 * b, 0, 0);
	for (int i = 0; i < 5; i++)
		sha1kit_store_be32(digest + 4 * i, ctx->ihv[i]);
	if (where)
		*where = ctx->first;
	return ctx->found ? SHA1KIT_DC_COLLISION : SHA1KIT_DC_NO_COLLISION;
}

sha1kit_dc_result sha1kit_dc_final(sha1kit_dc_ctx *ctx, uint8_t digest[SHA1KIT_DIGEST_SIZE],
                                   sha1kit_dc_detection *where)
{
	sha1kit_dc_result result =
	    dc_finish(ctx, sha1kit_dc_kernel_get(ctx->kernel), digest, where, ctx->buffer, 0, 1);
	sha1kit_dc_reset(ctx);
	return result;
}

/*
 * sha1kit_dc on a message below the look-ahead (every message where the kernel has none), block by
 * block on a local chaining value: with the default options (opt NULL) a context is set up only for
 * a block the filter flags (about 1 in 20 random blocks), whose candidates sha1kit_dc_check tests as
 * for any other. About 3% faster at 64-256 bytes than through a context on AMD family 25 model 1
 * (docs/PERFORMANCE.md, "SHA-1DC of a few blocks: where a 64-byte message's time goes").
 */
static __attribute__((noinline)) void few_flagged(sha1kit_dc_ctx *ctx, int *have_ctx, uint32_t k,
                                                  uint32_t ihv[5], uint32_t mask, const uint32_t W[80],
                                                  const sha1kit_dc_state st[2], const uint32_t before[5],
                                                  uint64_t offset)
{
	if (!*have_ctx) {
		dc_init_kernel(ctx, NULL, k);
		*have_ctx = 1;
	}
	memcpy(ctx->ihv, ihv, sizeof(ctx->ihv));
	dc_check_states(ctx, mask, W, st, before, offset);
	memcpy(ihv, ctx->ihv, sizeof(ctx->ihv)); /* a safe hash changes it */
}

/* One block of dc_oneshot_few at message offset `offset`: compressed, filtered, and, where flagged,
 * its candidates tested. */
static inline void few_block(sha1kit_dc_ctx *ctx, int *have_ctx, uint32_t k, const sha1kit_dc_kernel *kernel,
                             int detect, int use_ubc, uint32_t ihv[5], const uint8_t block[64],
                             uint64_t offset)
{
	uint32_t W[80], before[5], mask;
	sha1kit_dc_state st[2];

	memcpy(before, ihv, sizeof(before));
	kernel->compress(ihv, block, W, st);
	mask = !detect ? 0 : use_ubc ? kernel->ubc(W) : 0xffffffffu;
	if (mask != 0)
		few_flagged(ctx, have_ctx, k, ihv, mask, W, st, before, offset);
}

static sha1kit_dc_result dc_oneshot_few(uint32_t k, const sha1kit_dc_kernel *kernel,
                                        const sha1kit_dc_options *opt, const uint8_t *p, size_t len,
                                        uint8_t digest[SHA1KIT_DIGEST_SIZE], sha1kit_dc_detection *where)
{
	static const sha1kit_dc_detection none = {0, -1, 0};
	uint8_t last[128] __attribute__((aligned(16)));
	uint32_t ihv[5];
	sha1kit_dc_ctx ctx;
	int have_ctx = 0, detect = 1, use_ubc = 1;
	size_t full = len / 64, nlast;

	if (opt != NULL) {
		dc_init_kernel(&ctx, opt, k);
		have_ctx = 1;
		detect = ctx.options.detect != 0;
		use_ubc = ctx.options.use_ubc != 0;
	}
	memcpy(ihv, sha1kit_iv, sizeof(ihv));
	/* the whole blocks from the message, then the last one or two built by sha1kit_md_last (which
	 * reads the tail from the message: the 64 * full bytes before it are readable) */
	for (size_t b = 0; b < full; b++)
		few_block(&ctx, &have_ctx, k, kernel, detect, use_ubc, ihv, p + 64 * b, 64 * (uint64_t)b);
	nlast = sha1kit_md_last(last, full ? p + 64 * full : p, len, 64 * full, 0); /* p may be NULL */
	for (size_t b = 0; b < nlast; b++)
		few_block(&ctx, &have_ctx, k, kernel, detect, use_ubc, ihv, last + 64 * b,
		          64 * (uint64_t)(full + b));
	for (int i = 0; i < 5; i++)
		sha1kit_store_be32(digest + 4 * i, ihv[i]);
	if (where)
		*where = have_ctx ? ctx.first : none;
	return have_ctx && ctx.found ? SHA1KIT_DC_COLLISION : SHA1KIT_DC_NO_COLLISION;
}

sha1kit_dc_result sha1kit_dc(const void *data, size_t len, const sha1kit_dc_options *opt,
                             uint8_t digest[SHA1KIT_DIGEST_SIZE], sha1kit_dc_detection *where)
{
	sha1kit_dc_ctx ctx;
	uint32_t k = sha1kit_select_dc_kernel();
	const sha1kit_dc_kernel *kernel = sha1kit_dc_kernel_get(k);

	if (len < 64 * (size_t)kernel->ahead_min || !kernel->ubc_ahead)
		return dc_oneshot_few(k, kernel, opt, data, len, digest, where);
	dc_init_kernel(&ctx, opt, k);
	sha1kit_dc_update(&ctx, data, len);
	return dc_finish(&ctx, kernel, digest, where, ctx.buffer, 0, 1);
}

const char *sha1kit_dv_name(int dv)
{
	if (dv < 0 || dv >= SHA1KIT_DV_COUNT)
		return NULL;
	return sha1kit_dvs[dv].name;
}
