/*
 * sha1_shani.c - SHA-1 compression with the x86 SHA extensions (SHA-NI); the steps are in
 * sha1_shani_steps.h.
 *
 * Intel, "Intel SHA Extensions: New Instructions Supporting the Secure Hash Algorithm on Intel
 * Architecture Processors" (2013): SHA1RNDS4 performs four steps with the round function selected by
 * its immediate (0..3 for steps 0-19, 20-39, 40-59, 60-79); SHA1NEXTE derives the next E from the
 * previous A (rotl 30) and adds it to the next four message words; SHA1MSG1/SHA1MSG2 and one XOR
 * compute four words of the message expansion W[t] = rotl1(W[t-3]^W[t-8]^W[t-14]^W[t-16]).
 * Needs SHA, SSSE3 (PSHUFB) and SSE4.1 (PEXTRD), never AVX: some CPUs have SHA-NI without AVX.
 */
#include "../internal.h"

#if SHA1KIT_HAVE_SHANI
#include "sha1_shani_steps.h"

#define SHANI_TARGET __attribute__((target("sha,sse4.1,ssse3")))
/* the rol2 form in VEX encoding: its SSE2 expansion needs no register copies (taken only with AVX2) */
#define SHANI_ROL2_TARGET __attribute__((target("sha,sse4.1,ssse3,avx")))

/* The blocks of sha1kit_blocks_shani (src/internal.h); rol2: the expansion of groups 8..19 in SSE2
 * (SHANI_80_STEPS_ROL2). Inlined with a constant into the two kernels below. */
SHANI_TARGET static inline __attribute__((always_inline)) void blocks(uint32_t ihv[5], const uint8_t *p,
                                                                      size_t nblocks, int rol2)
{
	const __m128i bswap = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
	/* A in the highest lane: the order SHA1RNDS4 expects */
	__m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)ihv), 0x1b);
	__m128i e0 = _mm_set_epi32((int)ihv[4], 0, 0, 0);

	while (nblocks--) {
		const __m128i abcd_save = abcd, e_save = e0;
		__m128i m[20], e_cur = e0, e_next;

		for (int g = 0; g < 4; g++)
			m[g] = SHANI_LOAD(p, g, bswap);
		if (rol2)
			SHANI_80_STEPS_ROL2(abcd, e_cur, e_next, m, SHANI_NO_HOOK);
		else
			SHANI_80_STEPS(abcd, e_cur, e_next, m, SHANI_NO_HOOK);
		/* feed-forward: E from the last A, plus the saved E; ABCD plus the saved ABCD */
		e0 = _mm_sha1nexte_epu32(e_cur, e_save);
		abcd = _mm_add_epi32(abcd, abcd_save);
		p += 64;
	}
	abcd = _mm_shuffle_epi32(abcd, 0x1b);
	_mm_storeu_si128((__m128i *)ihv, abcd);
	ihv[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

SHANI_TARGET void sha1kit_blocks_shani(uint32_t ihv[5], const uint8_t *p, size_t nblocks)
{
	blocks(ihv, p, nblocks, 0);
}

SHANI_ROL2_TARGET void sha1kit_blocks_shani_rol2(uint32_t ihv[5], const uint8_t *p, size_t nblocks)
{
	blocks(ihv, p, nblocks, 1);
}
#endif
