/*
 * sha256_shani.c - SHA-256 compression with the x86 SHA extensions (SHA-NI).
 *
 * Intel, "Intel SHA Extensions: New Instructions Supporting the Secure Hash Algorithm on Intel
 * Architecture Processors" (2013), and the Intel SDM vol. 2 entries of the three instructions:
 *  - SHA256RNDS2 xmm1, xmm2, <XMM0> performs two rounds: xmm2 holds the state words (A,B,E,F) and
 *    xmm1 (C,D,G,H), each with the first-named word in bits 127:96 (lane 3); XMM0 bits 31:0 and
 *    63:32 hold W[t]+K[t] of the two rounds. The result, written to xmm1, is the new (A,B,E,F); the
 *    old (A,B,E,F) is then the new (C,D,G,H), so two calls with the registers swapped make four
 *    rounds and leave each register with its name.
 *  - SHA256MSG1 xmm1, xmm2: W[t-16] + sigma0(W[t-15]) for four consecutive t, xmm1 holding
 *    W[t-16..t-13] and xmm2 W[t-12..t-9] (the first word in lane 0).
 *  - SHA256MSG2 xmm1, xmm2: adds sigma1(W[t-2]) to the four words of xmm1, xmm2 holding
 *    W[t-4..t-1]; the last two words use the first two results.
 * The W[t-7] term (FIPS 180-4 section 6.2.2 step 1) is added between them: W[t-7..t-4] is PALIGNR
 * of the two previous groups. Needs SHA and SSSE3 (PSHUFB, PALIGNR); SHA1KIT_CPU_SHA is only set
 * together with SSSE3 and SSE4.1 (src/x86/cpu_features.c). No AVX: some CPUs have SHA-NI without it.
 */
#include "../internal.h"

#if SHA1KIT_HAVE_SHANI
#include <immintrin.h>

#define SHANI_TARGET __attribute__((target("sha,sse4.1,ssse3")))

/* Four rounds 4g..4g+3 with the message words m (W[4g] in lane 0). */
#define ROUNDS4(g, m)                                                                                        \
	do {                                                                                                 \
		__m128i wk =                                                                                 \
		    _mm_add_epi32((m), _mm_loadu_si128((const __m128i *)(sha1kit_sha256_k + 4 * (g))));      \
		cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);                                                \
		abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0e));                       \
	} while (0)

/* m0 = W[t..t+3] from m0 = W[t-16..t-13], m1 = W[t-12..t-9], m2 = W[t-8..t-5], m3 = W[t-4..t-1]. */
#define SCHEDULE(m0, m1, m2, m3)                                                                             \
	(m0 = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(m0, m1), _mm_alignr_epi8(m3, m2, 4)),  \
	                           m3))

/* Four groups of four rounds with the expansion of the four message registers before each. */
#define SIXTEEN(g)                                                                                           \
	do {                                                                                                 \
		SCHEDULE(m0, m1, m2, m3);                                                                    \
		ROUNDS4((g), m0);                                                                            \
		SCHEDULE(m1, m2, m3, m0);                                                                    \
		ROUNDS4((g) + 1, m1);                                                                        \
		SCHEDULE(m2, m3, m0, m1);                                                                    \
		ROUNDS4((g) + 2, m2);                                                                        \
		SCHEDULE(m3, m0, m1, m2);                                                                    \
		ROUNDS4((g) + 3, m3);                                                                        \
	} while (0)

SHANI_TARGET void sha1kit_sha256_blocks_shani(uint32_t h[8], const uint8_t *blocks, size_t nblocks)
{
	/* PSHUFB indices that reverse the bytes of each 32-bit lane (big-endian message words) */
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	/* (D,C,B,A) and (H,G,F,E) from lane 0 up, then the two halves the rounds expect */
	__m128i dcba = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)h), 0x1b);
	__m128i hgfe = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(h + 4)), 0x1b);
	__m128i abef = _mm_unpackhi_epi64(hgfe, dcba); /* F,E,B,A from lane 0 up */
	__m128i cdgh = _mm_unpacklo_epi64(hgfe, dcba); /* H,G,D,C from lane 0 up */

	while (nblocks--) {
		const __m128i abef_save = abef, cdgh_save = cdgh;
		__m128i m0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)blocks), bswap);
		__m128i m1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16)), bswap);
		__m128i m2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 32)), bswap);
		__m128i m3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 48)), bswap);

		ROUNDS4(0, m0);
		ROUNDS4(1, m1);
		ROUNDS4(2, m2);
		ROUNDS4(3, m3);
		SIXTEEN(4);
		SIXTEEN(8);
		SIXTEEN(12);
		abef = _mm_add_epi32(abef, abef_save);
		cdgh = _mm_add_epi32(cdgh, cdgh_save);
		blocks += 64;
	}
	dcba = _mm_shuffle_epi32(_mm_unpackhi_epi64(cdgh, abef), 0x1b);
	hgfe = _mm_shuffle_epi32(_mm_unpacklo_epi64(cdgh, abef), 0x1b);
	_mm_storeu_si128((__m128i *)h, dcba);
	_mm_storeu_si128((__m128i *)(h + 4), hgfe);
}
#endif
