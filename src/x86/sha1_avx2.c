/*
 * sha1_avx2.c - SHA-1 for x86 CPUs with AVX2 (and BMI1/BMI2) but without SHA-NI. The message
 * expansion runs two blocks at once, one per 128-bit half of a YMM register; the 80 steps run in
 * scalar registers with RORX (rotations that leave the flags alone) and ANDN. The expansion of the
 * next pair of blocks is spread over the steps of the current pair, so that the vector units work
 * while the scalar steps wait on their dependency chain (the arrangement of OpenSSL's AVX2 code,
 * A. Polyakov; the code here is our own).
 */
#include "../internal.h"

#if SHA1KIT_HAVE_AVX2
#include <immintrin.h>

#define TARGET __attribute__((target("avx2,bmi,bmi2")))

#if !defined(__x86_64__)
#include "sha1_wk_rounds.h"
#endif

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

TARGET static inline __m256i rotl2_8(__m256i x)
{
	return _mm256_or_si256(_mm256_slli_epi32(x, 2), _mm256_srli_epi32(x, 30));
}

/*
 * The expansion of a pair of blocks in 20 stages: stage k forms v[k] = W[4k..4k+3] of both blocks
 * and stores wk[8k + 4h + i] = W[4k+i] + K of block h (h = 0, 1). From t = 32 on,
 * W[t] = rotl(W[t-6] ^ W[t-16] ^ W[t-28] ^ W[t-32], 2) (the recurrence applied to itself;
 * Locktyukhin 2010): no term lies in the vector being formed, so no correction step. The stages
 * of the next pair are spread over the steps of the current one (`k` is a constant).
 */
__attribute__((always_inline)) TARGET static inline void expand_stage(int k, __m256i v[20], uint32_t *wk,
                                                                      const uint8_t *b0, const uint8_t *b1,
                                                                      uint32_t *w0, uint32_t *w1)
{
	const __m256i bswap = _mm256_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13,
	                                      14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
	if (k < 4) {
		__m256i x = _mm256_inserti128_si256(
		    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(b0 + 16 * k))),
		    _mm_loadu_si128((const __m128i *)(b1 + 16 * k)), 1);
		v[k] = _mm256_shuffle_epi8(x, bswap);
	} else if (k < 8) {
		v[k] = expand8(v[k - 4], v[k - 3], v[k - 2], v[k - 1]);
	} else {
		__m256i x = _mm256_xor_si256(_mm256_alignr_epi8(v[k - 1], v[k - 2], 8), v[k - 4]);
		v[k] = rotl2_8(_mm256_xor_si256(x, _mm256_xor_si256(v[k - 7], v[k - 8])));
	}
	_mm256_store_si256((__m256i *)(wk + 8 * k),
	                   _mm256_add_epi32(v[k], _mm256_set1_epi32((int)round_k[k / 5])));
	/* the DC kernels' W of blocks b0 and b1 (constant NULLs in the others) */
	if (w0 != NULL)
		_mm_storeu_si128((__m128i *)(w0 + 4 * k), _mm256_castsi256_si128(v[k]));
	if (w1 != NULL)
		_mm_storeu_si128((__m128i *)(w1 + 4 * k), _mm256_extracti128_si256(v[k], 1));
}

/* wk (32-byte aligned) of the pair b0, b1 at once. */
TARGET static inline void expand_pair(uint32_t wk[160], const uint8_t *b0, const uint8_t *b1)
{
	__m256i v[20];
#pragma GCC unroll 20
	for (int k = 0; k < 20; k++)
		expand_stage(k, v, wk, b0, b1, NULL, NULL);
}

/*
 * The 80 steps, scheduled for latency: with A[t] the word step t-1 produces (A[0] = H0) and
 * R(x) = rotl(x, 30), step t computes A[t+1] = rotl(A[t], 5) + (E + W[t] + K_t + F_t(A[t-1], R(A[t-2]),
 * R(A[t-3]))), and everything in the parenthesis is known one step early. So step t only adds
 * rotl(A[t], 5) to the word prepared for it, and then prepares step t+1's: W[t+1] + K and the
 * round function of A[t], added term by term (F1 = (x & y) + (~x & z) with ANDN, F3 = (x & y) +
 * (z & (x ^ y)): the terms are disjoint, so + equals FIPS 180-4's ^ and |). The dependency chain
 * from A[t] to A[t+1] is then one RORX and one ADD; the round-function work hangs off it.
 *
 * On entry to step t: a = A[t], b = R(A[t-1]), c = R(A[t-2]), d = R(A[t-3]) (the E of step t+1)
 * and e = R(A[t-4]) + W[t] + K_t + F_t(A[t-1], R(A[t-2]), R(A[t-3])). Six names rotate,
 * (a, b, c, d, e, x) -> (e, x, b, c, d, a), so no value is copied.
 */
#if defined(__x86_64__)
/*
 * The steps are written as assembly, six to a statement (after six steps the names are back in
 * place, so each value keeps its register; left to itself the compiler adds a copy per step).
 * R_(n) names operand n. Step (A, B, C, D, E, X) with W = WK(t+1):
 *   E += rotl(A, 5) (now A[t+1]); X = R(A); D += W + F_{t+1}(A, B, C), destroying A.
 */
/* clang-format off */
#define R_(n) "%[" #n "]"
#define S_HEAD(A, D, E, X, W)                                                  \
	"rorxl $27, " R_(A) ", " R_(X) "\n\t"                                  \
	"addl " R_(X) ", " R_(E) "\n\t"                                        \
	"rorxl $2, " R_(A) ", " R_(X) "\n\t"                                   \
	"addl " R_(W) ", " R_(D) "\n\t"
#define F_1(A, B, C, D)                                                        \
	"andnl " R_(C) ", " R_(A) ", %[u]\n\t"                                 \
	"andl " R_(B) ", " R_(A) "\n\t"                                        \
	"addl %[u], " R_(D) "\n\t"                                             \
	"addl " R_(A) ", " R_(D) "\n\t"
#define F_2(A, B, C, D)                                                        \
	"xorl " R_(B) ", " R_(A) "\n\t"                                        \
	"xorl " R_(C) ", " R_(A) "\n\t"                                        \
	"addl " R_(A) ", " R_(D) "\n\t"
#define F_3(A, B, C, D)                                                        \
	"movl " R_(A) ", %[u]\n\t"                                             \
	"xorl " R_(B) ", %[u]\n\t"                                             \
	"andl " R_(B) ", " R_(A) "\n\t"                                        \
	"andl " R_(C) ", %[u]\n\t"                                             \
	"addl " R_(A) ", " R_(D) "\n\t"                                        \
	"addl %[u], " R_(D) "\n\t"
/* clang-format on */
#define S_(F, A, B, C, D, E, X, W) S_HEAD(A, D, E, X, W) F(A, B, C, D)

/* Steps t..t+5; Fk is the round function step t+k prepares (that of step t+k+1). */
#define SIX(t, F0, F1, F2, F3, F4, F5)                                                                       \
	__asm__(S_(F0, a, b, c, d, e, x, w0) S_(F1, e, x, b, c, d, a, w1) S_(F2, d, a, x, b, c, e, w2)       \
	            S_(F3, c, e, a, x, b, d, w3) S_(F4, b, d, e, a, x, c, w4) S_(F5, x, c, d, e, a, b, w5)   \
	        : [a] "+r"(a), [b] "+r"(b), [c] "+r"(c), [d] "+r"(d), [e] "+r"(e), [x] "+r"(x), [u] "=&r"(u) \
	        : [w0] "m"(WK((t) + 1)), [w1] "m"(WK((t) + 2)), [w2] "m"(WK((t) + 3)),                       \
	          [w3] "m"(WK((t) + 4)), [w4] "m"(WK((t) + 5)), [w5] "m"(WK((t) + 6))                        \
	        : "cc")

/*
 * HOOK(k), k = 0..9, runs between the groups of six steps (the caller's vector work). The chaining
 * value h0..h4 is five scalar variables, not an array: GCC (SLP vectorizer) otherwise moved the
 * feed-forward of an array into a vector register and back, 10 cycles on the dependency chain
 * between blocks.
 */
#define BMI_COMPRESS(h0, h1, h2, h3, h4)                                                                     \
	do {                                                                                                 \
		uint32_t a = (h0), b = sha1kit_rotl32((h1), 30), c = (h2), d = (h3), x = 0, u;               \
		uint32_t e = (h4) + WK(0) + (d ^ ((h1) & (c ^ d)));                                          \
		SIX(0, F_1, F_1, F_1, F_1, F_1, F_1);                                                        \
		HOOK(0);                                                                                     \
		SIX(6, F_1, F_1, F_1, F_1, F_1, F_1);                                                        \
		HOOK(1);                                                                                     \
		SIX(12, F_1, F_1, F_1, F_1, F_1, F_1);                                                       \
		HOOK(2);                                                                                     \
		SIX(18, F_1, F_2, F_2, F_2, F_2, F_2);                                                       \
		HOOK(3);                                                                                     \
		SIX(24, F_2, F_2, F_2, F_2, F_2, F_2);                                                       \
		HOOK(4);                                                                                     \
		SIX(30, F_2, F_2, F_2, F_2, F_2, F_2);                                                       \
		HOOK(5);                                                                                     \
		SIX(36, F_2, F_2, F_2, F_3, F_3, F_3);                                                       \
		HOOK(6);                                                                                     \
		SIX(42, F_3, F_3, F_3, F_3, F_3, F_3);                                                       \
		HOOK(7);                                                                                     \
		SIX(48, F_3, F_3, F_3, F_3, F_3, F_3);                                                       \
		HOOK(8);                                                                                     \
		SIX(54, F_3, F_3, F_3, F_3, F_3, F_2);                                                       \
		HOOK(9);                                                                                     \
		SIX(60, F_2, F_2, F_2, F_2, F_2, F_2);                                                       \
		SIX(66, F_2, F_2, F_2, F_2, F_2, F_2);                                                       \
		SIX(72, F_2, F_2, F_2, F_2, F_2, F_2);                                                       \
		/* step 78 prepares step 79; step 79 (names e, x, b, c, d, a) only adds */                   \
		__asm__(S_(F_2, a, b, c, d, e, x, w0) "rorxl $27, %[e], %[a]\n\taddl %[a], %[d]"             \
		        : [a] "+r"(a), [b] "+r"(b), [c] "+r"(c), [d] "+r"(d), [e] "+r"(e), [x] "+r"(x),      \
		          [u] "=&r"(u)                                                                       \
		        : [w0] "m"(WK(79))                                                                   \
		        : "cc");                                                                             \
		(h0) += d;                                                                                   \
		(h1) += e;                                                                                   \
		(h2) += x;                                                                                   \
		(h3) += b;                                                                                   \
		(h4) += c;                                                                                   \
	} while (0)
#else
#define BMI_COMPRESS WK_COMPRESS_AFTER_HOOKS
#endif

/* One block's steps; WK(t) = w[8 * (t / 4) + t % 4] (a block's half of a pair's wk). */
TARGET static void compress_wk(uint32_t ihv[5], const uint32_t *w)
{
#define WK(t)   w[8 * ((t) / 4) + ((t) % 4)]
#define HOOK(k) (void)0
	BMI_COMPRESS(ihv[0], ihv[1], ihv[2], ihv[3], ihv[4]);
#undef HOOK
#undef WK
}

TARGET void sha1kit_blocks_avx2(uint32_t ihv[5], const uint8_t *blocks, size_t nblocks)
{
	uint32_t wkb[2][160] __attribute__((aligned(32)));
	__m256i v[20];
	int cur = 0;
	uint32_t h0 = ihv[0], h1 = ihv[1], h2 = ihv[2], h3 = ihv[3], h4 = ihv[4];

	if (nblocks == 0)
		return;
	/* an odd last block is expanded beside itself; its second copy is not used */
	expand_pair(wkb[0], blocks, nblocks >= 2 ? blocks + 64 : blocks);
	/* pairs that have a block after them: the steps of each block carry half of the next
	 * pair's expansion, one stage after each of the first ten groups of six steps */
	while (nblocks > 2) {
		const uint32_t *wk = wkb[cur];
		uint32_t *next = wkb[cur ^ 1];
		const uint8_t *n0 = blocks + 128, *n1 = nblocks >= 4 ? blocks + 192 : n0;
#define WK(t)   wk[8 * ((t) / 4) + ((t) % 4)]
#define HOOK(k) expand_stage(k, v, next, n0, n1, NULL, NULL)
		BMI_COMPRESS(h0, h1, h2, h3, h4);
#undef WK
#undef HOOK
#define WK(t)   wk[8 * ((t) / 4) + 4 + ((t) % 4)]
#define HOOK(k) expand_stage(10 + (k), v, next, n0, n1, NULL, NULL)
		BMI_COMPRESS(h0, h1, h2, h3, h4);
#undef WK
#undef HOOK
		cur ^= 1;
		nblocks -= 2;
		blocks += 128;
	}
	/* GCC leaves out its own VZEROUPPER in a function with asm statements: without it, legacy
	 * SSE code run later (the caller, SHA-NI) pays for the dirty upper halves (measured: 64-byte
	 * messages took 426 ns instead of ~270) */
	_mm256_zeroupper();
	ihv[0] = h0;
	ihv[1] = h1;
	ihv[2] = h2;
	ihv[3] = h3;
	ihv[4] = h4;
	compress_wk(ihv, wkb[cur]);
	if (nblocks == 2)
		compress_wk(ihv, wkb[cur] + 4);
}

#if SHA1KIT_HAVE_DC_AVX2
/*
 * The SHA-1DC compression (sha1kit_dc_compress_fn) with these steps: the expansion in the vector
 * unit (the block beside itself), W[0..79] stored as it is formed, the steps of BMI_COMPRESS. Its
 * groups of six end before steps 54 and 60, where HOOK reads the state back in FIPS 180-4 naming
 * (A = a, B = rotl(b, 2), C = c, D = d, and E = e less the W[t] + K and F_t(B, C, D) added to it one
 * step early); a few steps more give the states before 56 and 64 the interface asks for.
 */
#define DC_SAVE(at, t, F)                                                                                    \
	do {                                                                                                 \
		uint32_t B_ = sha1kit_rotl32(b, 2);                                                          \
		(at)->s[0] = a;                                                                              \
		(at)->s[1] = B_;                                                                             \
		(at)->s[2] = c;                                                                              \
		(at)->s[3] = d;                                                                              \
		(at)->s[4] = e - WK(t) - F(B_, c, d);                                                        \
	} while (0)
#define DC_MAJ(x, y, z) (((x) & (y)) | ((z) & ((x) | (y))))
#define DC_PAR(x, y, z) ((x) ^ (y) ^ (z))
/* HOOK of a block's steps: its states before steps 54 and 60 (after groups 8 and 9). */
#define DC_SAVES(k, at)                                                                                      \
	do {                                                                                                 \
		if ((k) == 8) {                                                                              \
			DC_SAVE(&(at)[0], 54, DC_MAJ);                                                       \
		} else if ((k) == 9) {                                                                       \
			DC_SAVE(&(at)[1], 60, DC_PAR);                                                       \
		}                                                                                            \
	} while (0)
/* HOOK of the first block's steps: expansion stages 4..19 two after each of the first eight groups
 * of six (stage k is first read by step 4k - 1, which prepares step 4k), then the states. */
#define DC_HOOK(k, at, b0, b1, w0, w1)                                                                       \
	do {                                                                                                 \
		if ((k) < 8) {                                                                               \
			expand_stage(4 + 2 * (k), v, wk, b0, b1, w0, w1);                                    \
			expand_stage(5 + 2 * (k), v, wk, b0, b1, w0, w1);                                    \
		}                                                                                            \
		DC_SAVES(k, at);                                                                             \
	} while (0)

/* at[0..1], the states before steps 54 and 60 of a block, to those before 56 and 64. */
static inline void dc_states(sha1kit_dc_state st[2], const sha1kit_dc_state at[2], const uint32_t W[80])
{
	st[0] = at[0];
	sha1kit_dc_advance(&st[0], W, 54, 56);
	st[1] = at[1];
	sha1kit_dc_advance(&st[1], W, 60, 64);
}

TARGET void sha1kit_dc_compress_avx2(uint32_t ihv[5], const uint8_t block[64], uint32_t W[80],
                                     sha1kit_dc_state st[2])
{
	uint32_t wk[160] __attribute__((aligned(32)));
	__m256i v[20];
	sha1kit_dc_state at[2]; /* before steps 54 and 60 */

#pragma GCC unroll 4
	for (int k = 0; k < 4; k++)
		expand_stage(k, v, wk, block, block, W, NULL);
#define WK(t)   wk[8 * ((t) / 4) + ((t) % 4)]
#define HOOK(k) DC_HOOK(k, at, block, block, W, NULL)
	BMI_COMPRESS(ihv[0], ihv[1], ihv[2], ihv[3], ihv[4]);
#undef HOOK
#undef WK
	_mm256_zeroupper(); /* as in sha1kit_blocks_avx2: GCC leaves it out here */
	dc_states(st, at, W);
}

/* Two blocks (sha1kit_dc_compress2_fn): the pair's expansion in the first block's steps. */
TARGET void sha1kit_dc_compress2_avx2(uint32_t ihv[5], const uint8_t blocks[128], uint32_t W[160],
                                      sha1kit_dc_state st[4], uint32_t mid[5])
{
	uint32_t wk[160] __attribute__((aligned(32)));
	__m256i v[20];
	sha1kit_dc_state at[4];
	const uint8_t *b1 = blocks + 64;

#pragma GCC unroll 4
	for (int k = 0; k < 4; k++)
		expand_stage(k, v, wk, blocks, b1, W, W + 80);
#define WK(t)   wk[8 * ((t) / 4) + ((t) % 4)]
#define HOOK(k) DC_HOOK(k, at, blocks, b1, W, W + 80)
	BMI_COMPRESS(ihv[0], ihv[1], ihv[2], ihv[3], ihv[4]);
#undef HOOK
#undef WK
	memcpy(mid, ihv, 5 * sizeof(uint32_t));
#define WK(t)   wk[8 * ((t) / 4) + 4 + ((t) % 4)]
#define HOOK(k) DC_SAVES(k, at + 2)
	BMI_COMPRESS(ihv[0], ihv[1], ihv[2], ihv[3], ihv[4]);
#undef HOOK
#undef WK
	_mm256_zeroupper();
	dc_states(st, at, W);
	dc_states(st + 2, at + 2, W + 80);
}
#undef DC_HOOK
#undef DC_SAVES
#undef DC_SAVE
#undef DC_MAJ
#undef DC_PAR
#endif
#endif
