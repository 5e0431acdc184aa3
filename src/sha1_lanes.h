/*
 * sha1_lanes.h - multi-buffer SHA-1 and SHA-1DC kernels: LANES independent messages at once, one
 * per 32-bit lane of a vector, with the steps of FIPS 180-4 section 6.1.2 done lane-wise. Written
 * with GCC/Clang vector extensions, so the same source becomes an AVX2 (8 lanes) or AVX-512
 * (16 lanes) kernel by the including file's vector width and target attribute.
 *
 * Include once per instantiation, after defining:
 *   LANES                 8 or 16
 *   SK_LANES_TARGET       the function attribute (e.g. __attribute__((target("avx2"))))
 *   SK_LANES_FAST         name of the plain kernel (sha1kit_lanes_fast_fn)
 *   SK_LANES_DC           name of the SHA-1DC kernel (sha1kit_lanes_dc_fn)
 *   SK_LANES_RECOMPRESS   name of the recompression kernel (sha1kit_lanes_recompress_fn)
 * and optionally SK_LANES_LOAD(W, p, off), a function of the includer that writes word t of block
 * `off` of every lane, big-endian, to W[t] (t = 0..15): a byte swap and a transposition of the
 * lanes' blocks in registers. Without it the words go through a small aligned buffer (scalar
 * big-endian loads). Either way any pointers and alignments work. Optionally SK_LANES_UBC(W, mask):
 * a UBC filter of the includer reading out->W and writing out->mask, in place of the generic
 * lane-wise SHA1KIT_UBC_LANES (src/ubc_lanes.h).
 */
#include "ubc_lanes.h"

typedef uint32_t lv __attribute__((vector_size(4 * LANES)));
typedef int32_t lvs __attribute__((vector_size(4 * LANES)));
/* The same vector read from memory with only 4-byte alignment promised (caller-owned arrays). */
typedef uint32_t lvu __attribute__((vector_size(4 * LANES), aligned(4)));

#define LROTL(x, n)  (((x) << (n)) | ((x) >> (32 - (n))))
#define LSIGN(x)     ((lv)((lvs)(x) >> 31))
#define LF1(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define LF2(b, c, d) ((b) ^ (c) ^ (d))
#define LF3(b, c, d) (((b) & (c)) | ((d) & ((b) | (c))))
#define LK1          0x5a827999u
#define LK2          0x6ed9eba1u
#define LK3          0x8f1bbcdcu
#define LK4          0xca62c1d6u

#define LSTEP(f, k, a, b, c, d, e, w)                                                                        \
	do {                                                                                                 \
		e += LROTL(a, 5) + f(b, c, d) + ((w) + (k));                                                 \
		b = LROTL(b, 30);                                                                            \
	} while (0)

#define LFIVE(f, k, t, w)                                                                                    \
	do {                                                                                                 \
		LSTEP(f, k, a, b, c, d, e, w(t));                                                            \
		LSTEP(f, k, e, a, b, c, d, w((t) + 1));                                                      \
		LSTEP(f, k, d, e, a, b, c, w((t) + 2));                                                      \
		LSTEP(f, k, c, d, e, a, b, w((t) + 3));                                                      \
		LSTEP(f, k, b, c, d, e, a, w((t) + 4));                                                      \
	} while (0)

/* W[t] for t < 16, as loaded. */
#define LW0(t) (W[t])
/* Message expansion where the step uses the word: a 16-word ring (plain) or all 80 words (DC). */
#define LWRING(t)                                                                                            \
	(W[(t)&15] = LROTL(W[((t)-3) & 15] ^ W[((t)-8) & 15] ^ W[((t)-14) & 15] ^ W[((t)-16) & 15], 1))
#define LWFULL(t) (W[t] = LROTL(W[(t)-3] ^ W[(t)-8] ^ W[(t)-14] ^ W[(t)-16], 1))

/*
 * The 80 steps; HOOK58 and HOOK65 receive the state (A,B,C,D,E) before steps 58 and 65. With the
 * renaming of LSTEP, the state before step t is in the argument order of step t: (a,b,c,d,e) when
 * t = 0 mod 5, (e,a,b,c,d) for 1, (d,e,a,b,c) for 2, (c,d,e,a,b) for 3, (b,c,d,e,a) for 4.
 */
#define LSTEPS(w, HOOK58, HOOK65)                                                                            \
	do {                                                                                                 \
		LFIVE(LF1, LK1, 0, LW0);                                                                     \
		LFIVE(LF1, LK1, 5, LW0);                                                                     \
		LFIVE(LF1, LK1, 10, LW0);                                                                    \
		LSTEP(LF1, LK1, a, b, c, d, e, W[15]);                                                       \
		LSTEP(LF1, LK1, e, a, b, c, d, w(16));                                                       \
		LSTEP(LF1, LK1, d, e, a, b, c, w(17));                                                       \
		LSTEP(LF1, LK1, c, d, e, a, b, w(18));                                                       \
		LSTEP(LF1, LK1, b, c, d, e, a, w(19));                                                       \
		LFIVE(LF2, LK2, 20, w);                                                                      \
		LFIVE(LF2, LK2, 25, w);                                                                      \
		LFIVE(LF2, LK2, 30, w);                                                                      \
		LFIVE(LF2, LK2, 35, w);                                                                      \
		LFIVE(LF3, LK3, 40, w);                                                                      \
		LFIVE(LF3, LK3, 45, w);                                                                      \
		LFIVE(LF3, LK3, 50, w);                                                                      \
		LSTEP(LF3, LK3, a, b, c, d, e, w(55));                                                       \
		LSTEP(LF3, LK3, e, a, b, c, d, w(56));                                                       \
		LSTEP(LF3, LK3, d, e, a, b, c, w(57));                                                       \
		HOOK58(c, d, e, a, b);                                                                       \
		LSTEP(LF3, LK3, c, d, e, a, b, w(58));                                                       \
		LSTEP(LF3, LK3, b, c, d, e, a, w(59));                                                       \
		LFIVE(LF2, LK4, 60, w);                                                                      \
		HOOK65(a, b, c, d, e);                                                                       \
		LFIVE(LF2, LK4, 65, w);                                                                      \
		LFIVE(LF2, LK4, 70, w);                                                                      \
		LFIVE(LF2, LK4, 75, w);                                                                      \
	} while (0)

#define LNOHOOK(A, B, C, D, E) ((void)0)

/* Word t of block `off` of every lane, big-endian, into W[0..15]. */
SK_LANES_TARGET static inline void lanes_load(lv W[16], const uint8_t *const p[LANES], size_t off)
{
#ifdef SK_LANES_LOAD
	SK_LANES_LOAD(W, p, off, 1);
#else
	uint32_t tmp[16][LANES] __attribute__((aligned(4 * LANES)));
	for (int l = 0; l < LANES; l++)
		for (int t = 0; t < 16; t++)
			tmp[t][l] = sha1kit_load_be32(p[l] + off + 4 * t);
	memcpy(W, tmp, sizeof(tmp));
#endif
}

SK_LANES_TARGET void SK_LANES_FAST(uint32_t *state, const uint8_t *const *blocks, size_t nblocks)
{
	lv a0, b0, c0, d0, e0, W[16];
	memcpy(&a0, state + 0 * LANES, sizeof(lv));
	memcpy(&b0, state + 1 * LANES, sizeof(lv));
	memcpy(&c0, state + 2 * LANES, sizeof(lv));
	memcpy(&d0, state + 3 * LANES, sizeof(lv));
	memcpy(&e0, state + 4 * LANES, sizeof(lv));
	for (size_t n = 0; n < nblocks; n++) {
		lv a = a0, b = b0, c = c0, d = d0, e = e0;
		lanes_load(W, blocks, 64 * n);
		LSTEPS(LWRING, LNOHOOK, LNOHOOK);
		a0 += a;
		b0 += b;
		c0 += c;
		d0 += d;
		e0 += e;
	}
	memcpy(state + 0 * LANES, &a0, sizeof(lv));
	memcpy(state + 1 * LANES, &b0, sizeof(lv));
	memcpy(state + 2 * LANES, &c0, sizeof(lv));
	memcpy(state + 3 * LANES, &d0, sizeof(lv));
	memcpy(state + 4 * LANES, &e0, sizeof(lv));
}

#define LSAVE(dst, A, B, C, D, E)                                                                            \
	do {                                                                                                 \
		memcpy((dst) + 0 * LANES, &(A), sizeof(lv));                                                 \
		memcpy((dst) + 1 * LANES, &(B), sizeof(lv));                                                 \
		memcpy((dst) + 2 * LANES, &(C), sizeof(lv));                                                 \
		memcpy((dst) + 3 * LANES, &(D), sizeof(lv));                                                 \
		memcpy((dst) + 4 * LANES, &(E), sizeof(lv));                                                 \
	} while (0)
#define LHOOK58(A, B, C, D, E) LSAVE(out->s58, A, B, C, D, E)
#define LHOOK65(A, B, C, D, E) LSAVE(out->s65, A, B, C, D, E)

SK_LANES_TARGET uint32_t SK_LANES_DC(uint32_t *state, const uint8_t *const *blocks, int use_ubc,
                                     sha1kit_lanes_dc *out)
{
	lv a, b, c, d, e, ihv[5], mask;
	lv *W = (lv *)(void *)out->W; /* out->W is aligned for the widest vector */
	uint32_t flagged = 0;

	memcpy(ihv, state, sizeof(ihv));
	memcpy(out->before, ihv, sizeof(ihv)); /* from registers: the caller's copy was a `rep movsq` */
	a = ihv[0];
	b = ihv[1];
	c = ihv[2];
	d = ihv[3];
	e = ihv[4];
	lanes_load(W, blocks, 0);
	LSTEPS(LWFULL, LHOOK58, LHOOK65);
	ihv[0] += a;
	ihv[1] += b;
	ihv[2] += c;
	ihv[3] += d;
	ihv[4] += e;
	memcpy(state, ihv, sizeof(ihv));
	mask = ~(lv){0};
#ifdef SK_LANES_UBC
	if (use_ubc)
		SK_LANES_UBC(out->W, out->mask);
	else
		memcpy(out->mask, &mask, sizeof(mask));
#else
	if (use_ubc)
		SHA1KIT_UBC_LANES(W, mask, LSIGN);
	memcpy(out->mask, &mask, sizeof(mask));
#endif
	for (int l = 0; l < LANES; l++)
		flagged |= (uint32_t)(out->mask[l] != 0) << l;
	return flagged;
}

/*
 * Recompression (Stevens 2013, section 4) of L candidate blocks at once, all with the same testt
 * (58 or 65): lane l holds one (block, DV) candidate. Wl[80 * l + t] is its partner's word
 * W[t] ^ dm[t] (lane-major: a candidate's words are written in one pass), st[w * L + l] our state
 * before step testt. From that state, steps testt-1..0 run backwards with the partner's words,
 * giving the partner's input chaining value (ihv_in), and steps testt..79 forwards, giving its
 * output chaining value ihv_out = ihv_in + state after step 79.
 */
#define LBACK(f, k, lo, hi)                                                                                  \
	for (int t = (hi)-1; t >= (lo); t--) {                                                               \
		lv A = b, B = LROTL(c, 2), C = d, D = e;                                                     \
		e = a - LROTL(A, 5) - f(B, C, D) - (k)-w[t];                                                 \
		a = A;                                                                                       \
		b = B;                                                                                       \
		c = C;                                                                                       \
		d = D;                                                                                       \
	}
#define LFWD(f, k, lo, hi)                                                                                   \
	for (int t = (lo); t < (hi); t++) {                                                                  \
		lv T = LROTL(a, 5) + f(b, c, d) + (k) + e + w[t];                                            \
		e = d;                                                                                       \
		d = c;                                                                                       \
		c = LROTL(b, 30);                                                                            \
		b = a;                                                                                       \
		a = T;                                                                                       \
	}

SK_LANES_TARGET void SK_LANES_RECOMPRESS(int testt, const uint32_t *Wl, const uint32_t *st, uint32_t *ihv_in,
                                         uint32_t *ihv_out)
{
	lv w[80], s[5], in[5], a, b, c, d, e;
#ifdef SK_LANES_LOAD
	/* the candidates' words, lane-major, into word-major vectors: five 16-word transposes */
	const uint8_t *rows[LANES];
	for (int l = 0; l < LANES; l++)
		rows[l] = (const uint8_t *)(Wl + 80 * l);
	for (int c16 = 0; c16 < 5; c16++)
		SK_LANES_LOAD(w + 16 * c16, rows, (size_t)(64 * c16), 0);
#else
	for (int t = 0; t < 80; t++)
		for (int l = 0; l < LANES; l++)
			w[t][l] = Wl[80 * l + t];
#endif
	memcpy(s, st, sizeof(s));
	a = s[0];
	b = s[1];
	c = s[2];
	d = s[3];
	e = s[4];
	if (testt > 60) {
		LBACK(LF2, LK4, 60, 65);
		LBACK(LF3, LK3, 40, 60);
	} else {
		LBACK(LF3, LK3, 40, 58);
	}
	LBACK(LF2, LK2, 20, 40);
	LBACK(LF1, LK1, 0, 20);
	in[0] = a;
	in[1] = b;
	in[2] = c;
	in[3] = d;
	in[4] = e;
	memcpy(ihv_in, in, sizeof(in));
	a = s[0];
	b = s[1];
	c = s[2];
	d = s[3];
	e = s[4];
	if (testt < 60) {
		LFWD(LF3, LK3, 58, 60);
		LFWD(LF2, LK4, 60, 80);
	} else {
		LFWD(LF2, LK4, 65, 80);
	}
	in[0] += a;
	in[1] += b;
	in[2] += c;
	in[3] += d;
	in[4] += e;
	memcpy(ihv_out, in, sizeof(in));
}

#ifdef SK_LANES_AHEAD
/*
 * The UBC masks of up to L consecutive blocks of one message (lane l = block l; lanes past nblocks
 * repeat block 0 and their masks are meaningless): message expansion and filter only, no
 * compression, since neither depends on the chaining value. A single-stream SHA-1DC context then
 * compresses with the plain kernel and takes the DC path only for blocks with a non-zero mask.
 */
SK_LANES_TARGET void SK_LANES_AHEAD(const uint8_t *blocks, size_t nblocks, uint32_t *mask)
{
	const uint8_t *p[LANES];
	lv W[80];
	for (size_t l = 0; l < LANES; l++)
		p[l] = blocks + (l < nblocks ? 64 * l : 0);
	lanes_load(W, p, 0);
	for (int t = 16; t < SHA1KIT_UBC_W_END; t++) /* no condition reads further */
		LWFULL(t);
#ifdef SK_LANES_UBC
	SK_LANES_UBC((const uint32_t *)(const void *)W, mask);
#else
	{
		lv m = ~(lv){0};
		SHA1KIT_UBC_LANES(W, m, LSIGN);
		memcpy(mask, &m, sizeof(m));
	}
#endif
}
#endif

#ifdef SK_LANES_PIPE
/*
 * The look-ahead of SK_LANES_AHEAD cut into SHA1KIT_UBC_PIPE_STEPS steps of similar size, for a
 * caller that runs one step after each block it compresses with SHA-NI: the out-of-order core then
 * overlaps the vector work with the latency-bound SHA-NI rounds. `state` (SHA1KIT_UBC_PIPE_WORDS
 * words, 64-byte aligned) carries W and the accumulators from step to step; step 0 loads the
 * blocks (lanes past nblocks repeat block 0), steps 1-3 expand W to SHA1KIT_UBC_W_END, steps 4-15
 * run the parts of the filter, and step 15 writes the L masks. Same masks as SK_LANES_AHEAD.
 */
_Static_assert(SHA1KIT_UBC_PIPE_STEPS == 4 + SHA1KIT_UBC_PARTS && SHA1KIT_UBC_W_END <= SHA1KIT_UBC_PIPE_ACC &&
                   SHA1KIT_UBC_W_END > 48,
               "the steps of the pipelined look-ahead do not match the generated filter");
/* The step itself, inline: the fused SHA-NI kernel of the includer runs it between its blocks with
 * the chaining value in registers (sha1kit_dc_run16_shani_avx512). */
__attribute__((always_inline)) SK_LANES_TARGET static inline void
lanes_pipe_step(uint32_t *state, const uint8_t *blocks, size_t nblocks, unsigned step, uint32_t *mask)
{
	lv *W = (lv *)(void *)state, *acc = W + SHA1KIT_UBC_PIPE_ACC;
	if (step == 0) {
		const uint8_t *p[LANES];
		for (size_t l = 0; l < LANES; l++)
			p[l] = blocks + (l < nblocks ? 64 * l : 0);
		lanes_load(W, p, 0);
		for (int i = 0; i < 4; i++)
			acc[i] = (lv){0};
	} else if (step < 4) { /* 16-31, 32-47, 48 to the end */
		for (int t = 16 * (int)step; t < (step == 3 ? SHA1KIT_UBC_W_END : 16 * (int)step + 16); t++)
			LWFULL(t);
	} else if (step < SHA1KIT_UBC_PIPE_STEPS) {
		SK_LANES_UBC_PART((const uint32_t *)(const void *)W, (uint32_t *)(void *)acc, step - 4);
		if (step == SHA1KIT_UBC_PIPE_STEPS - 1) {
			lv m = ~(acc[0] | acc[1] | acc[2] | acc[3]);
			memcpy(mask, &m, sizeof(m));
		}
	}
}

SK_LANES_TARGET void SK_LANES_PIPE(uint32_t *state, const uint8_t *blocks, size_t nblocks, unsigned step,
                                   uint32_t *mask)
{
	lanes_pipe_step(state, blocks, nblocks, step, mask);
}
#endif
