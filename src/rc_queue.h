/*
 * rc_queue.h - candidates waiting for recompression (Stevens 2013, section 4), run L at a time in
 * the vector lanes of a recompression kernel (src/sha1_lanes.h). Included by the batch and the
 * single-stream SHA-1DC code; the functions are inline so that a constant lane count and strides
 * give simple copies.
 *
 * Deferring is allowed when a detection changes no chaining value: with the safe hash off and no
 * detection callback (which expects each block's report in order). A result goes to the detection
 * record of its message: the first block wins, then, within a block, the lowest DV index, which is
 * what the single-stream loop, trying the DVs in table order and stopping at the first hit, reports.
 */
#ifndef SHA1KIT_RC_QUEUE_H
#define SHA1KIT_RC_QUEUE_H

#include "internal.h"

typedef struct sha1kit_rc_queue {
	uint32_t Wl[SHA1KIT_MAX_LANES][80] __attribute__((aligned(64)));    /* partner words, lane-major */
	uint32_t st[5 * SHA1KIT_MAX_LANES] __attribute__((aligned(64)));    /* our state before testt */
	uint32_t in[5 * SHA1KIT_MAX_LANES], out[5 * SHA1KIT_MAX_LANES];     /* partner's IHVs (results) */
	uint32_t before[SHA1KIT_MAX_LANES][5], after[SHA1KIT_MAX_LANES][5]; /* our IHVs around the block */
	size_t msg[SHA1KIT_MAX_LANES];
	uint64_t offset[SHA1KIT_MAX_LANES];
	int dv[SHA1KIT_MAX_LANES];
	unsigned n;
	int testt;
} sha1kit_rc_queue;

typedef struct sha1kit_rc_run {
	sha1kit_lanes_recompress_fn recompress;
	sha1kit_dc_collides_fn collides; /* the scalar path's test with SHA-1 instructions; NULL: none */
	int reduced_round;
	sha1kit_dc_detection *where; /* where[msg]: detection record of each message; NULL: none */
	int flagged;                 /* some candidate was a detection */
	sha1kit_rc_queue q[2];       /* testt 58, 65 */
} sha1kit_rc_run;

/* collides: the kernel's forward test (sha1kit_dc_collides_fn), used for queues the scalar code
 * runs when the reduced-round test is off; NULL: the scalar recompression. */
static inline void sha1kit_rc_init(sha1kit_rc_run *r, sha1kit_lanes_recompress_fn fn,
                                   sha1kit_dc_collides_fn collides, int reduced_round,
                                   sha1kit_dc_detection *where)
{
	r->recompress = fn;
	r->collides = reduced_round ? NULL : collides;
	r->reduced_round = reduced_round;
	r->where = where;
	r->flagged = 0;
	r->q[0].n = r->q[1].n = 0;
	r->q[0].testt = 58;
	r->q[1].testt = 65;
}

/*
 * A queue of at most this many candidates is recompressed one candidate at a time by the scalar code
 * (sha1kit_dc_recompress_words) rather than in the vector lanes, whose run costs as much whether one
 * lane or all are used. Measured on AMD EPYC family 26 model 2 (Zen 5), 2026-12-02, thread CPU time
 * per call (docs/PERFORMANCE.md, "A lone candidate"): scalar 105 ns (testt 58) / 110 ns (65), the
 * 16-lane AVX-512 run 340-400 ns, the 8-lane AVX2 run 650-780 ns: the scalar code is cheaper up to 3
 * candidates against either.
 */
#ifndef SHA1KIT_RC_SCALAR_MAX
#define SHA1KIT_RC_SCALAR_MAX 3
#endif
/* The same bound when the forward test with SHA-1 instructions answers instead (r->collides): on
 * Intel Xeon family 6 model 207, 2026-12-04, thread CPU time per call in a loop of 10^6: the SHA-NI
 * test 31-34 ns, the scalar recompression 135-177 ns, one run of the 16-lane AVX-512 kernel
 * 270-282 ns (docs/PERFORMANCE.md, "The per-block UBC filter: a scalar tail, and candidates tested
 * forwards with SHA-NI"): up to 8 candidates one at a time cost less than one vector run. */
#ifndef SHA1KIT_RC_COLLIDES_MAX
#define SHA1KIT_RC_COLLIDES_MAX 8
#endif

/* Recompress the queued candidates (lanes past q->n hold stale data; their results are unread). */
static inline __attribute__((always_inline)) void sha1kit_rc_run_queue(sha1kit_rc_run *r, sha1kit_rc_queue *q,
                                                                       const unsigned L)
{
	unsigned char hit[SHA1KIT_MAX_LANES] = {0}; /* 1: full collision, 2: reduced-round only */
	if (q->n <= (r->collides ? SHA1KIT_RC_COLLIDES_MAX : SHA1KIT_RC_SCALAR_MAX)) {
		for (unsigned s = 0; s < q->n; s++) {
			uint32_t st[5], in[5], out[5];
			int full = 1, reduced = r->reduced_round;
			for (int w = 0; w < 5; w++)
				st[w] = q->st[w * L + s];
			if (r->collides) {
				hit[s] =
				    (unsigned char)r->collides(q->testt, q->Wl[s], NULL, st, q->after[s]);
				continue;
			}
			sha1kit_dc_recompress_words(q->testt, q->Wl[s], st, in, out);
			for (int w = 0; w < 5; w++) {
				full &= out[w] == q->after[s][w];
				reduced &= in[w] == q->before[s][w];
			}
			hit[s] = full ? 1 : reduced ? 2 : 0;
		}
	} else {
		r->recompress(q->testt, &q->Wl[0][0], q->st, q->in, q->out);
		for (unsigned s = 0; s < q->n; s++) {
			int full = 1, reduced = r->reduced_round;
			for (int w = 0; w < 5; w++) {
				full &= q->out[w * L + s] == q->after[s][w];
				reduced &= q->in[w * L + s] == q->before[s][w];
			}
			hit[s] = full ? 1 : reduced ? 2 : 0;
		}
	}
	for (unsigned s = 0; s < q->n; s++) {
		int full = hit[s] == 1;
		if (!hit[s])
			continue;
		r->flagged = 1;
		if (r->where) {
			sha1kit_dc_detection *d = &r->where[q->msg[s]];
			if (d->dv < 0 || q->offset[s] < d->offset ||
			    (q->offset[s] == d->offset && q->dv[s] < d->dv)) {
				d->offset = q->offset[s];
				d->dv = q->dv[s];
				d->reduced_round = !full;
			}
		}
	}
	q->n = 0;
}

/*
 * Queue a block's candidates (one per DV in the UBC mask). W[t * ws] is the block's W[t]; s58/s65
 * [w * ss] the states before steps 58 and 65; before/after[w * is] our chaining value before and
 * after the block. `msg` and `offset` say where a detection is recorded.
 */
static inline __attribute__((always_inline)) void
sha1kit_rc_add(sha1kit_rc_run *r, uint32_t mask, const uint32_t *W, size_t ws, const uint32_t *s58,
               const uint32_t *s65, size_t ss, const uint32_t *before, const uint32_t *after, size_t is,
               size_t msg, uint64_t offset, const unsigned L)
{
	while (mask) {
		int k = sha1kit_ctz32(mask);
		const sha1kit_dv *dv = &sha1kit_dvs[k];
		sha1kit_rc_queue *q = &r->q[dv->testt == 58 ? 0 : 1];
		const uint32_t *st = dv->testt == 58 ? s58 : s65;
		unsigned s = q->n++;
		mask &= mask - 1;
		for (int t = 0; t < 80; t++)
			q->Wl[s][t] = W[t * ws] ^ dv->dm[t];
		for (int w = 0; w < 5; w++) {
			q->st[w * L + s] = st[w * ss];
			q->before[s][w] = before[w * is];
			q->after[s][w] = after[w * is];
		}
		q->msg[s] = msg;
		q->offset[s] = offset;
		q->dv[s] = k;
		if (q->n == L)
			sha1kit_rc_run_queue(r, q, L);
	}
}

static inline __attribute__((always_inline)) void sha1kit_rc_flush(sha1kit_rc_run *r, const unsigned L)
{
	for (int k = 0; k < 2; k++)
		if (r->q[k].n)
			sha1kit_rc_run_queue(r, &r->q[k], L);
}

#endif /* SHA1KIT_RC_QUEUE_H */
