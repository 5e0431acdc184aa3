/*
 * lanes_load.h - the blocks of 8 or 16 messages transposed into lane order: word t of every lane's
 * block in vector t, big-endian words byte-swapped (FIPS 180-4, 3.1: SHA-1 and SHA-256 read the
 * block as 16 big-endian words alike). Included by the multi-buffer kernels of SHA-1
 * (sha1_lanes_avx2.c, sha1_lanes_avx512.c) and SHA-256 (sha256_lanes_avx2.c, sha256_lanes_avx512.c)
 * after <immintrin.h>.
 */
#ifndef SHA1KIT_X86_LANES_LOAD_H
#define SHA1KIT_X86_LANES_LOAD_H

#if SHA1KIT_HAVE_AVX2
/*
 * Each half of the 8 lanes' blocks as 8 rows of 8 words: byte-swap (VPSHUFB; not with swap = 0, for
 * words already in host order), interleave words of row pairs, then 64-bit pairs, which leaves
 * 128-bit half c of b[4i + j] holding word 4c + j of rows 4i..4i+3; VPERM2I128 joins the rows 0-3
 * and 4-7 halves. 56 shuffles for 8 blocks.
 */
__attribute__((always_inline)) __attribute__((target("avx2"))) static inline void
load8x8(void *out, const uint8_t *const *p, size_t off, int swap)
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

#endif

#if SHA1KIT_HAVE_AVX512
/*
 * The 16 lanes' blocks as 16 rows of 16 words; byte-swap each word (VPSHUFB; not with swap = 0, for
 * words already in host order), then transpose the 16x16 matrix of words: interleave words of row
 * pairs, then 64-bit pairs, which leaves each 128-bit chunk c of vector b[4i + j] holding word
 * 4c + j of rows 4i..4i+3; a 4x4 transpose of 128-bit chunks among b[j], b[4 + j], b[8 + j],
 * b[12 + j] finishes. 80 shuffles for 16 blocks.
 */
__attribute__((always_inline)) __attribute__((target("avx512f,avx512bw"))) static inline void
load16x16(void *out, const uint8_t *const *p, size_t off, int swap)
{
	const __m512i bswap =
	    _mm512_broadcast_i32x4(_mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3));
	__m512i r[16], a[16], b[16], *W = out;
	for (int l = 0; l < 16; l++) {
		r[l] = _mm512_loadu_si512((const void *)(p[l] + off));
		if (swap)
			r[l] = _mm512_shuffle_epi8(r[l], bswap);
	}
	for (int i = 0; i < 8; i++) {
		a[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
		a[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
	}
	for (int i = 0; i < 4; i++) {
		b[4 * i] = _mm512_unpacklo_epi64(a[4 * i], a[4 * i + 2]);
		b[4 * i + 1] = _mm512_unpackhi_epi64(a[4 * i], a[4 * i + 2]);
		b[4 * i + 2] = _mm512_unpacklo_epi64(a[4 * i + 1], a[4 * i + 3]);
		b[4 * i + 3] = _mm512_unpackhi_epi64(a[4 * i + 1], a[4 * i + 3]);
	}
	for (int j = 0; j < 4; j++) {
		__m512i t0 = _mm512_shuffle_i32x4(b[j], b[4 + j], 0x44);      /* P0 P1 Q0 Q1 */
		__m512i t1 = _mm512_shuffle_i32x4(b[j], b[4 + j], 0xee);      /* P2 P3 Q2 Q3 */
		__m512i t2 = _mm512_shuffle_i32x4(b[8 + j], b[12 + j], 0x44); /* R0 R1 S0 S1 */
		__m512i t3 = _mm512_shuffle_i32x4(b[8 + j], b[12 + j], 0xee); /* R2 R3 S2 S3 */
		W[j] = _mm512_shuffle_i32x4(t0, t2, 0x88);                    /* P0 Q0 R0 S0 */
		W[4 + j] = _mm512_shuffle_i32x4(t0, t2, 0xdd);
		W[8 + j] = _mm512_shuffle_i32x4(t1, t3, 0x88);
		W[12 + j] = _mm512_shuffle_i32x4(t1, t3, 0xdd);
	}
}

#endif

#endif /* SHA1KIT_X86_LANES_LOAD_H */
