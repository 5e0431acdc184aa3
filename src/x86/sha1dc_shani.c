/*
 * sha1dc_shani.c - the SHA-1DC compression kernel with SHA-NI: one block, as sha1_shani.c, that
 * also writes out the expanded message W[0..79] (the UBC filter and the recompression read it) and
 * the working states before steps 56 and 64. SHA1RNDS4 exposes (A,B,C,D) only at 4-step group
 * boundaries; E before step 4g is rotl30 of A before step 4g-4 (FIPS 180-4: E_t = ROTL30(A_{t-4})),
 * so the register before groups 13..16 gives both states. The states before steps 58 and 65, which
 * the detector needs, are one or two scalar steps further and are computed only for the blocks
 * whose UBC mask is non-zero (src/sha1dc.c).
 */
#include "../internal.h"

#if SHA1KIT_HAVE_SHANI
#include "sha1_shani_steps.h"

#define SHANI_TARGET __attribute__((target("sha,sse4.1,ssse3")))
/* the rol2 form in VEX encoding: its SSE2 expansion needs no register copies (taken only with AVX2) */
#define SHANI_ROL2_TARGET __attribute__((target("sha,sse4.1,ssse3,avx")))

/* Before group g: store W[4g..4g+3] from w (lanes reversed to memory order), and keep the
 * (A,B,C,D) register before groups 13..16. */
#define DC_HOOK(g, w)                                                                                        \
	do {                                                                                                 \
		_mm_storeu_si128((__m128i *)(W + 4 * (g)), _mm_shuffle_epi32((w), 0x1b));                    \
		if ((g) >= 13 && (g) <= 16)                                                                  \
			snap[(g)-13] = abcd;                                                                 \
	} while (0)

/* The state before step 4g from the registers before groups g-1 and g (lane 3 = A ... lane 0 = D):
 * A..D in one reversed store, E = rotl30 of the A before group g-1. One shuffle, one store and one
 * extract a state, where two register spills and five scalar copies were 2-7% of the time of a
 * 1 KiB-1 MiB message on Zen 4 (docs/PERFORMANCE.md, "SHA-1DC on Zen 4"). */
SHANI_TARGET static inline void state_at(sha1kit_dc_state *st, __m128i before_prev, __m128i before)
{
	_mm_storeu_si128((__m128i *)st->s, _mm_shuffle_epi32(before, 0x1b));
	st->s[4] = sha1kit_rotl32((uint32_t)_mm_extract_epi32(before_prev, 3), 30);
}

/* One block as sha1kit_dc_compress_shani (src/internal.h); rol2: the expansion of groups 8..19 in
 * SSE2 (SHANI_80_STEPS_ROL2). Inlined with a constant into the two kernels below. */
SHANI_TARGET static inline __attribute__((always_inline)) void
dc_compress(uint32_t ihv[5], const uint8_t block[64], uint32_t W[80], sha1kit_dc_state st[2], int rol2)
{
	const __m128i bswap = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
	const __m128i abcd_save = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)ihv), 0x1b);
	const __m128i e_save = _mm_set_epi32((int)ihv[4], 0, 0, 0);
	__m128i abcd = abcd_save, e_cur = e_save, e_next, m[20], snap[4];

	for (int g = 0; g < 4; g++)
		m[g] = SHANI_LOAD(block, g, bswap);
	if (rol2)
		SHANI_80_STEPS_ROL2(abcd, e_cur, e_next, m, DC_HOOK);
	else
		SHANI_80_STEPS(abcd, e_cur, e_next, m, DC_HOOK);
	e_cur = _mm_sha1nexte_epu32(e_cur, e_save);
	abcd = _mm_shuffle_epi32(_mm_add_epi32(abcd, abcd_save), 0x1b);
	_mm_storeu_si128((__m128i *)ihv, abcd);
	ihv[4] = (uint32_t)_mm_extract_epi32(e_cur, 3);
	state_at(&st[0], snap[0], snap[1]);
	state_at(&st[1], snap[2], snap[3]);
}

SHANI_TARGET void sha1kit_dc_compress_shani(uint32_t ihv[5], const uint8_t block[64], uint32_t W[80],
                                            sha1kit_dc_state st[2])
{
	dc_compress(ihv, block, W, st, 0);
}

SHANI_ROL2_TARGET void sha1kit_dc_compress_shani_rol2(uint32_t ihv[5], const uint8_t block[64],
                                                      uint32_t W[80], sha1kit_dc_state st[2])
{
	dc_compress(ihv, block, W, st, 1);
}

/* The partner's words of group g (steps 4g..4g+3), W[4g] in lane 3: W ^ dm, or W itself. */
SHANI_TARGET static inline __m128i partner_group(const uint32_t *W, const uint32_t *dm, int g)
{
	__m128i w = _mm_loadu_si128((const __m128i *)(W + 4 * g));
	if (dm)
		w = _mm_xor_si128(w, _mm_loadu_si128((const __m128i *)(dm + 4 * g)));
	return _mm_shuffle_epi32(w, 0x1b);
}

/* Group g (steps 4g..4g+3) on (A,B,C,D) in abcd: FIRST takes E from lane 3 of e (other lanes
 * zero), NEXT from the A of `held`, the register before the previous group (rotl30: FIPS 180-4,
 * E_t = ROTL30(A_{t-4})). The round function is the group's (g / 5). */
#define FIRST(g)                                                                                             \
	do {                                                                                                 \
		held = abcd;                                                                                 \
		abcd = _mm_sha1rnds4_epu32(abcd, _mm_add_epi32(e, partner_group(W, dm, g)), (g) / 5);        \
	} while (0)
#define NEXT(g)                                                                                              \
	do {                                                                                                 \
		__m128i e_next = _mm_sha1nexte_epu32(held, partner_group(W, dm, g));                         \
		held = abcd;                                                                                 \
		abcd = _mm_sha1rnds4_epu32(abcd, e_next, (g) / 5);                                           \
	} while (0)

/* The test of sha1kit_dc_collides_fn (src/internal.h) with SHA-NI. */
SHANI_TARGET int sha1kit_dc_collides_shani(int testt, const uint32_t W[80], const uint32_t *dm,
                                           const uint32_t st[5], const uint32_t target[5])
{
	uint32_t S[5], bound[4];
	__m128i abcd, held, e, want;
	/* The partner's state S at the group boundary t0 (60 or 64). */
	const int t0 = sha1kit_dc_partner_boundary(testt, W, dm, st, S);

	want = _mm_set_epi32((int)S[0], (int)S[1], (int)S[2], (int)S[3]);

	/* Out to step 80 from S. */
	abcd = want;
	e = _mm_set_epi32((int)S[4], 0, 0, 0);
	if (t0 == 60) {
		FIRST(15);
		NEXT(16);
	} else {
		FIRST(16);
	}
	NEXT(17);
	NEXT(18);
	NEXT(19);

	/* X = target - (state at 80), then in from X to t0. */
	e = _mm_sha1nexte_epu32(held, _mm_setzero_si128()); /* lane 3: E at 80 */
	e = _mm_sub_epi32(_mm_set_epi32((int)target[4], 0, 0, 0), e);
	abcd = _mm_sub_epi32(_mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)target), 0x1b), abcd);
	FIRST(0);
	NEXT(1);
	NEXT(2);
	NEXT(3);
	NEXT(4);
	NEXT(5);
	NEXT(6);
	NEXT(7);
	NEXT(8);
	NEXT(9);
	NEXT(10);
	NEXT(11);
	NEXT(12);
	NEXT(13);
	NEXT(14);
	if (t0 == 64)
		NEXT(15);

	/* The partner starts from X exactly when this reaches S. */
	_mm_storeu_si128((__m128i *)bound, _mm_xor_si128(abcd, want));
	e = _mm_sha1nexte_epu32(held, _mm_setzero_si128());
	return ((bound[0] | bound[1] | bound[2] | bound[3]) == 0) &
	       ((uint32_t)_mm_extract_epi32(e, 3) == S[4]);
}
#undef FIRST
#undef NEXT
#endif
