/*
 * sha1_lanes_avx2.c - the multi-buffer kernels of src/sha1_lanes.h with AVX2: 8 messages at once,
 * one per 32-bit lane of a YMM register.
 */
#include "../internal.h"

#if SHA1KIT_HAVE_AVX2
#include <immintrin.h>

#define TARGET __attribute__((target("avx2")))

/*
 * Each half of the 8 lanes' blocks as 8 rows of 8 words: byte-swap (VPSHUFB; not with swap = 0, for
 * words already in host order), interleave words of row pairs, then 64-bit pairs, which leaves
 * 128-bit half c of b[4i + j] holding word 4c + j of rows 4i..4i+3; VPERM2I128 joins the rows 0-3
 * and 4-7 halves. 56 shuffles for 8 blocks.
 */
__attribute__((always_inline)) TARGET static inline void load8x8(void *out, const uint8_t *const *p,
                                                                 size_t off, int swap)
{
	const __m256i bswap = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1,
	                                       0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
	__m256i *W = out;
	for (int h = 0; h < 2; h++) {
		__m256i r[8], a[8], b[8];
		for (int l = 0; l < 8; l++) {
			r[l] = _mm256_loadu_si256((const __m256i *)(p[l] + off + 32 * h));
			if (swap)
				r[l] = _mm256_shuffle_epi8(r[l], bswap);
		}
		for (int i = 0; i < 4; i++) {
			a[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
			a[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
		}
		for (int i = 0; i < 2; i++) {
			b[4 * i] = _mm256_unpacklo_epi64(a[4 * i], a[4 * i + 2]);
			b[4 * i + 1] = _mm256_unpackhi_epi64(a[4 * i], a[4 * i + 2]);
			b[4 * i + 2] = _mm256_unpacklo_epi64(a[4 * i + 1], a[4 * i + 3]);
			b[4 * i + 3] = _mm256_unpackhi_epi64(a[4 * i + 1], a[4 * i + 3]);
		}
		for (int j = 0; j < 4; j++) {
			W[8 * h + j] = _mm256_permute2x128_si256(b[j], b[4 + j], 0x20);
			W[8 * h + 4 + j] = _mm256_permute2x128_si256(b[j], b[4 + j], 0x31);
		}
	}
}

#define LANES               8
#define SK_LANES_TARGET     TARGET
#define SK_LANES_FAST       sha1kit_lanes8_avx2
#define SK_LANES_DC         sha1kit_lanes8_dc_avx2
#define SK_LANES_LOAD       load8x8
#define SK_LANES_RECOMPRESS sha1kit_lanes8_recompress_avx2
#include "../sha1_lanes.h"
#endif
