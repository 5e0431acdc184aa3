/*
 * sha1_shani_x2.c - two independent SHA-1 streams with SHA-NI at once. SHA1RNDS4 has a latency of
 * several cycles and a throughput of about one per cycle or two, so one stream leaves the unit idle
 * most of the time; interleaving the groups of two streams fills it (the multi-buffer idea of Intel's
 * ipsec-mb). Steps as in sha1_shani.c.
 */
#include "../internal.h"

#if SHA1KIT_HAVE_SHANI
#include "sha1_shani_steps.h"

#define SHANI_TARGET __attribute__((target("sha,sse4.1,ssse3")))

/* Before each group of stream 0, the same group of stream 1. */
#define GROUP_OF_1(g, w) SHANI_GROUP(g, abcd1, e_cur1, e_next1, m1)

SHANI_TARGET void sha1kit_blocks_shani_x2(uint32_t ihv0[5], const uint8_t *p0, uint32_t ihv1[5],
                                          const uint8_t *p1, size_t nblocks)
{
	const __m128i bswap = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
	__m128i abcd0 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)ihv0), 0x1b);
	__m128i abcd1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)ihv1), 0x1b);
	__m128i e00 = _mm_set_epi32((int)ihv0[4], 0, 0, 0), e01 = _mm_set_epi32((int)ihv1[4], 0, 0, 0);

	while (nblocks--) {
		const __m128i abcd_save0 = abcd0, e_save0 = e00, abcd_save1 = abcd1, e_save1 = e01;
		__m128i m0[4], m1[4], e_cur0 = e00, e_cur1 = e01, e_next0, e_next1;
		for (int g = 0; g < 4; g++) {
			m0[g] = SHANI_LOAD(p0, g, bswap);
			m1[g] = SHANI_LOAD(p1, g, bswap);
		}
		SHANI_80_STEPS(abcd0, e_cur0, e_next0, m0, GROUP_OF_1);
		e00 = _mm_sha1nexte_epu32(e_cur0, e_save0);
		abcd0 = _mm_add_epi32(abcd0, abcd_save0);
		e01 = _mm_sha1nexte_epu32(e_cur1, e_save1);
		abcd1 = _mm_add_epi32(abcd1, abcd_save1);
		p0 += 64;
		p1 += 64;
	}
	_mm_storeu_si128((__m128i *)ihv0, _mm_shuffle_epi32(abcd0, 0x1b));
	ihv0[4] = (uint32_t)_mm_extract_epi32(e00, 3);
	_mm_storeu_si128((__m128i *)ihv1, _mm_shuffle_epi32(abcd1, 0x1b));
	ihv1[4] = (uint32_t)_mm_extract_epi32(e01, 3);
}
#endif
