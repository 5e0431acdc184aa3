/*
 * sha1_ssse3.c - SHA-1 with the message expansion in SSE registers (4 words per operation) and the
 * steps in scalar registers; for x86 CPUs without SHA-NI. PSHUFB (SSSE3) swaps the bytes and
 * PALIGNR (SSSE3) assembles the W[t-14] vector.
 *
 * Four words W[t..t+3] at once (t = 16, 20, ..., 76): W[t+3] needs W[t] from the same vector, so
 * lane 3 is first computed without that term and then corrected: rotl1 is linear over XOR, so
 * W[t+3] = rotl1(partial) ^ rotl1(W[t]) (the method of Intel's "Improving the Performance of the
 * Secure Hash Algorithm (SHA-1)", M. Locktyukhin, 2010).
 */
#include "../internal.h"

#if SHA1KIT_HAVE_SSSE3
#include <immintrin.h>

#define TARGET __attribute__((target("ssse3")))

#include "sha1_wk_rounds.h"

static const uint32_t round_k[4] = {0x5a827999u, 0x6ed9eba1u, 0x8f1bbcdcu, 0xca62c1d6u};

TARGET static inline __m128i rotl1_4(__m128i x)
{
	return _mm_or_si128(_mm_slli_epi32(x, 1), _mm_srli_epi32(x, 31));
}

/* V[k] = W[4k..4k+3] (lane i = W[4k+i]) from V[k-4..k-1]. */
TARGET static inline __m128i expand4(__m128i v16, __m128i v12, __m128i v8, __m128i v4)
{
	__m128i x = _mm_xor_si128(_mm_xor_si128(v16, _mm_alignr_epi8(v12, v16, 8)),
	                          _mm_xor_si128(v8, _mm_srli_si128(v4, 4)));
	__m128i r = rotl1_4(x);
	return _mm_xor_si128(r, rotl1_4(_mm_slli_si128(r, 12)));
}

TARGET void sha1kit_blocks_ssse3(uint32_t ihv[5], const uint8_t *blocks, size_t nblocks)
{
	const __m128i bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
	uint32_t wk[80];
	uint32_t h0 = ihv[0], h1 = ihv[1], h2 = ihv[2], h3 = ihv[3], h4 = ihv[4];

	while (nblocks--) {
		__m128i v[20];
		for (int k = 0; k < 4; k++)
			v[k] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16 * k)), bswap);
		for (int k = 4; k < 20; k++)
			v[k] = expand4(v[k - 4], v[k - 3], v[k - 2], v[k - 1]);
		for (int k = 0; k < 20; k++)
			_mm_storeu_si128((__m128i *)(wk + 4 * k),
			                 _mm_add_epi32(v[k], _mm_set1_epi32((int)round_k[k / 5])));
#define WK(t) wk[t]
		WK_COMPRESS(h0, h1, h2, h3, h4);
#undef WK
		blocks += 64;
	}
	ihv[0] = h0;
	ihv[1] = h1;
	ihv[2] = h2;
	ihv[3] = h3;
	ihv[4] = h4;
}
#endif
