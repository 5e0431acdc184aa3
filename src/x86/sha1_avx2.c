/*
 * sha1_avx2.c - SHA-1 for x86 CPUs with AVX2 but without SHA-NI: the message expansion of two
 * blocks at once, one per 128-bit half of a YMM register (the same 4-word method as sha1_ssse3.c;
 * AVX2's byte shifts and PALIGNR work within each half), then the scalar steps of each block in turn,
 * compiled with BMI2 (RORX: rotations without flag dependencies).
 */
#include "../internal.h"

#if SHA1KIT_HAVE_AVX2
#include <immintrin.h>

#define TARGET __attribute__((target("avx2,bmi2")))

#include "sha1_wk_rounds.h"

static const uint32_t round_k[4] = {0x5a827999u, 0x6ed9eba1u, 0x8f1bbcdcu, 0xca62c1d6u};

TARGET static inline __m256i rotl1_8(__m256i x)
{
	return _mm256_or_si256(_mm256_slli_epi32(x, 1), _mm256_srli_epi32(x, 31));
}

TARGET static inline __m256i expand8(__m256i v16, __m256i v12, __m256i v8, __m256i v4)
{
	__m256i x = _mm256_xor_si256(_mm256_xor_si256(v16, _mm256_alignr_epi8(v12, v16, 8)),
	                             _mm256_xor_si256(v8, _mm256_srli_si256(v4, 4)));
	__m256i r = rotl1_8(x);
	return _mm256_xor_si256(r, rotl1_8(_mm256_slli_si256(r, 12)));
}

/* wk[8k + 4h + i] = W[4k+i] + K of block h (h = 0, 1). */
TARGET static void expand_pair(uint32_t wk[160], const uint8_t *b0, const uint8_t *b1)
{
	const __m256i bswap = _mm256_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13,
	                                      14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
	__m256i v[20];
	for (int k = 0; k < 4; k++) {
		__m256i x = _mm256_inserti128_si256(
		    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(b0 + 16 * k))),
		    _mm_loadu_si128((const __m128i *)(b1 + 16 * k)), 1);
		v[k] = _mm256_shuffle_epi8(x, bswap);
	}
	for (int k = 4; k < 20; k++)
		v[k] = expand8(v[k - 4], v[k - 3], v[k - 2], v[k - 1]);
	for (int k = 0; k < 20; k++)
		_mm256_storeu_si256((__m256i *)(wk + 8 * k),
		                    _mm256_add_epi32(v[k], _mm256_set1_epi32((int)round_k[k / 5])));
}

TARGET void sha1kit_blocks_avx2(uint32_t ihv[5], const uint8_t *blocks, size_t nblocks)
{
	uint32_t wk[160];

	while (nblocks) {
		/* an odd last block is expanded beside itself; its second copy is not used */
		const uint8_t *second = nblocks >= 2 ? blocks + 64 : blocks;
		expand_pair(wk, blocks, second);
#define WK(t) wk[8 * ((t) / 4) + ((t) % 4)]
		WK_COMPRESS(ihv);
#undef WK
		if (nblocks >= 2) {
#define WK(t) wk[8 * ((t) / 4) + 4 + ((t) % 4)]
			WK_COMPRESS(ihv);
#undef WK
			nblocks -= 2;
			blocks += 128;
		} else {
			nblocks = 0;
		}
	}
}
#endif
