/*
 * sha1_shani_x2.c - two independent SHA-1 streams with SHA-NI at once. SHA1RNDS4 has a latency of
 * several cycles and a throughput of about one per cycle or two, so one stream leaves the unit idle
 * most of the time; interleaving the groups of two streams fills it (the multi-buffer idea of Intel's
 * ipsec-mb). Steps as in sha1_shani.c.
 */
#include "../internal.h"

#if SHA1KIT_HAVE_SHANI
#include <immintrin.h>

#define SHANI_TARGET __attribute__((target("sha,sse4.1,ssse3")))

#define LOAD2(x, g) _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p##x + 16 * (g))), bswap)

#define GROUP1(x, g)                                                                                         \
	do {                                                                                                 \
		if ((g) == 0) {                                                                              \
			e_next##x = _mm_add_epi32(e_cur##x, m##x[0]);                                        \
		} else {                                                                                     \
			e_next##x = _mm_sha1nexte_epu32(e_cur##x, m##x[(g) % 4]);                            \
		}                                                                                            \
		e_cur##x = abcd##x;                                                                          \
		abcd##x = _mm_sha1rnds4_epu32(abcd##x, e_next##x, (g) / 5);                                  \
		if ((g) < 16)                                                                                \
			m##x[(g) % 4] = _mm_sha1msg2_epu32(                                                  \
			    _mm_xor_si128(_mm_sha1msg1_epu32(m##x[(g) % 4], m##x[((g) + 1) % 4]),            \
			                  m##x[((g) + 2) % 4]),                                              \
			    m##x[((g) + 3) % 4]);                                                            \
	} while (0)

#define GROUP2(g)                                                                                            \
	do {                                                                                                 \
		GROUP1(0, g);                                                                                \
		GROUP1(1, g);                                                                                \
	} while (0)

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
		for (int i = 0; i < 4; i++) {
			m0[i] = LOAD2(0, i);
			m1[i] = LOAD2(1, i);
		}
		GROUP2(0);
		GROUP2(1);
		GROUP2(2);
		GROUP2(3);
		GROUP2(4);
		GROUP2(5);
		GROUP2(6);
		GROUP2(7);
		GROUP2(8);
		GROUP2(9);
		GROUP2(10);
		GROUP2(11);
		GROUP2(12);
		GROUP2(13);
		GROUP2(14);
		GROUP2(15);
		GROUP2(16);
		GROUP2(17);
		GROUP2(18);
		GROUP2(19);
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
