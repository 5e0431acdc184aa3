/*
 * sha1_ssse3.c - SHA-1 for x86 CPUs without AVX2 (or BMI) and without SHA-NI: the message expansion
 * in SSE registers (4 words per operation), the steps in scalar registers. PSHUFB (SSSE3) swaps the
 * bytes and PALIGNR (SSSE3) assembles the W[t-14] vector. The expansion of the next block is spread
 * over the steps of the current one, so that the vector units work while the scalar steps wait on
 * their dependency chain (the arrangement of the AVX2 kernel, sha1_avx2.c, one block at a time).
 *
 * Four words W[t..t+3] at once: for t = 16..28, W[t+3] needs W[t] from the same vector, so lane 3
 * is first computed without that term and then corrected: rotl1 is linear over XOR, so
 * W[t+3] = rotl1(partial) ^ rotl1(W[t]) (the method of Intel's "Improving the Performance of the
 * Secure Hash Algorithm (SHA-1)", M. Locktyukhin, 2010). From t = 32 on,
 * W[t] = rotl(W[t-6] ^ W[t-16] ^ W[t-28] ^ W[t-32], 2) (the recurrence applied to itself, same
 * source): no term lies in the vector being formed.
 */
#include "../internal.h"

#if SHA1KIT_HAVE_SSSE3
#include <immintrin.h>

#define TARGET __attribute__((target("ssse3")))

#include "sha1_wk_rounds.h"

static const uint32_t round_k[4] = {0x5a827999u, 0x6ed9eba1u, 0x8f1bbcdcu, 0xca62c1d6u};

TARGET static inline __m128i rotl_4(__m128i x, int n)
{
	return _mm_or_si128(_mm_slli_epi32(x, n), _mm_srli_epi32(x, 32 - n));
}

/*
 * Stage k of a block's expansion: v[k] = W[4k..4k+3] (lane i = W[4k+i]) and wk[4k + i] = W + K.
 * Stages 0..3 load the block, 4..7 use the corrected four-word step, 8..19 the W[t-6] form.
 */
__attribute__((always_inline)) TARGET static inline void expand_stage(int k, __m128i v[20], uint32_t *wk,
                                                                      const uint8_t *block)
{
	const __m128i bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
	if (k < 4) {
		v[k] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 16 * k)), bswap);
	} else if (k < 8) {
		__m128i x = _mm_xor_si128(_mm_xor_si128(v[k - 4], _mm_alignr_epi8(v[k - 3], v[k - 4], 8)),
		                          _mm_xor_si128(v[k - 2], _mm_srli_si128(v[k - 1], 4)));
		__m128i r = rotl_4(x, 1);
		v[k] = _mm_xor_si128(r, rotl_4(_mm_slli_si128(r, 12), 1));
	} else {
		__m128i x = _mm_xor_si128(_mm_alignr_epi8(v[k - 1], v[k - 2], 8), v[k - 4]);
		v[k] = rotl_4(_mm_xor_si128(x, _mm_xor_si128(v[k - 7], v[k - 8])), 2);
	}
	_mm_store_si128((__m128i *)(wk + 4 * k), _mm_add_epi32(v[k], _mm_set1_epi32((int)round_k[k / 5])));
}

#if defined(__x86_64__)
/*
 * The 80 steps, scheduled for latency as in the AVX2 kernel (see sha1_avx2.c: step t adds
 * rotl(A[t], 5) to a word prepared one step early, then prepares step t+1's: W[t+1] + K plus the
 * round function of A[t]), without BMI: a copy of A is rotated by 5 for E, A itself by 30 into the
 * next step's B, and a second copy keeps the unrotated A for the round function. (Rotating A in
 * place by 5 and then by 7, one MOV fewer, measured slower here.) F1 is z ^ (x & (y ^ z)) (no
 * ANDN), F3 = (x & y) + (z & (x ^ y)).
 *
 * On entry to step t: a = A[t], b = R(A[t-1]), c = R(A[t-2]), d = R(A[t-3]), e = R(A[t-4]) + W[t] +
 * K_t + F_t(A[t-1], b, c) and x is free. Step (A, B, C, D, E, X) with W = WK(t+1):
 *   E += rotl(A, 5) (now A[t+1]); X = A; A = R(A); D += W + F_{t+1}(X, B, C), destroying X.
 * The names rotate (a, b, c, d, e) -> (e, a, b, c, d) with x fixed: back in place after five
 * steps, so the steps are assembly, five to a statement.
 */
/* clang-format off */
#define R_(n) "%[" #n "]"
#define S_HEAD(A, D, E, W)                                                     \
	"movl " R_(A) ", %[x]\n\t"                                             \
	"roll $5, %[x]\n\t"                                                    \
	"addl %[x], " R_(E) "\n\t"                                             \
	"movl " R_(A) ", %[x]\n\t"                                             \
	"rorl $2, " R_(A) "\n\t"                                               \
	"addl " R_(W) ", " R_(D) "\n\t"
#define F_1(B, C, D)                                                           \
	"movl " R_(B) ", %[u]\n\t"                                             \
	"xorl " R_(C) ", %[u]\n\t"                                             \
	"andl %[x], %[u]\n\t"                                                  \
	"xorl " R_(C) ", %[u]\n\t"                                             \
	"addl %[u], " R_(D) "\n\t"
#define F_2(B, C, D)                                                           \
	"xorl " R_(B) ", %[x]\n\t"                                             \
	"xorl " R_(C) ", %[x]\n\t"                                             \
	"addl %[x], " R_(D) "\n\t"
#define F_3(B, C, D)                                                           \
	"movl %[x], %[u]\n\t"                                                  \
	"xorl " R_(B) ", %[u]\n\t"                                             \
	"andl " R_(B) ", %[x]\n\t"                                             \
	"andl " R_(C) ", %[u]\n\t"                                             \
	"addl %[x], " R_(D) "\n\t"                                             \
	"addl %[u], " R_(D) "\n\t"
/* clang-format on */
#define S_(F, A, B, C, D, E, W) S_HEAD(A, D, E, W) F(B, C, D)

/* Steps t..t+4; Fk is the round function step t+k prepares (that of step t+k+1). */
#define FIVE(t, F0, F1, F2, F3, F4)                                                                          \
	__asm__(                                                                                             \
	    S_(F0, a, b, c, d, e, w0) S_(F1, e, a, b, c, d, w1) S_(F2, d, e, a, b, c, w2)                    \
	        S_(F3, c, d, e, a, b, w3) S_(F4, b, c, d, e, a, w4)                                          \
	    : [a] "+r"(a), [b] "+r"(b), [c] "+r"(c), [d] "+r"(d), [e] "+r"(e), [x] "=&r"(x), [u] "=&r"(u)    \
	    : [w0] "m"(WK((t) + 1)), [w1] "m"(WK((t) + 2)), [w2] "m"(WK((t) + 3)), [w3] "m"(WK((t) + 4)),    \
	      [w4] "m"(WK((t) + 5))                                                                          \
	    : "cc")

/*
 * One block into the chaining value h0..h4 (five scalars, not an array: see sha1_avx2.c). HOOK(k),
 * k = 0..9, the caller's vector work, runs after ten of the sixteen groups of five steps, spread
 * over the block (measured: 179.5 TSC ticks per block, against 182.8 with the hooks after the
 * first ten groups).
 */
#define SSSE3_COMPRESS(h0, h1, h2, h3, h4)                                                                   \
	do {                                                                                                 \
		uint32_t a = (h0), b = sha1kit_rotl32((h1), 30), c = (h2), d = (h3), x, u;                   \
		uint32_t e = (h4) + WK(0) + (d ^ ((h1) & (c ^ d)));                                          \
		FIVE(0, F_1, F_1, F_1, F_1, F_1);                                                            \
		FIVE(5, F_1, F_1, F_1, F_1, F_1);                                                            \
		HOOK(0);                                                                                     \
		FIVE(10, F_1, F_1, F_1, F_1, F_1);                                                           \
		HOOK(1);                                                                                     \
		FIVE(15, F_1, F_1, F_1, F_1, F_2);                                                           \
		FIVE(20, F_2, F_2, F_2, F_2, F_2);                                                           \
		HOOK(2);                                                                                     \
		FIVE(25, F_2, F_2, F_2, F_2, F_2);                                                           \
		HOOK(3);                                                                                     \
		FIVE(30, F_2, F_2, F_2, F_2, F_2);                                                           \
		FIVE(35, F_2, F_2, F_2, F_2, F_3);                                                           \
		HOOK(4);                                                                                     \
		FIVE(40, F_3, F_3, F_3, F_3, F_3);                                                           \
		HOOK(5);                                                                                     \
		FIVE(45, F_3, F_3, F_3, F_3, F_3);                                                           \
		FIVE(50, F_3, F_3, F_3, F_3, F_3);                                                           \
		HOOK(6);                                                                                     \
		FIVE(55, F_3, F_3, F_3, F_3, F_2);                                                           \
		HOOK(7);                                                                                     \
		FIVE(60, F_2, F_2, F_2, F_2, F_2);                                                           \
		FIVE(65, F_2, F_2, F_2, F_2, F_2);                                                           \
		HOOK(8);                                                                                     \
		FIVE(70, F_2, F_2, F_2, F_2, F_2);                                                           \
		HOOK(9);                                                                                     \
		/* steps 75..78 prepare the next; step 79 (names b, c, d, e, a) only adds rotl(A, 5) */      \
		__asm__(S_(F_2, a, b, c, d, e, w0) S_(F_2, e, a, b, c, d, w1) S_(F_2, d, e, a, b, c, w2)     \
		            S_(F_2, c, d, e, a, b, w3) "movl %[b], %[x]\n\troll $5, %[x]\n\taddl %[x], %[a]" \
		        : [a] "+r"(a), [b] "+r"(b), [c] "+r"(c), [d] "+r"(d), [e] "+r"(e), [x] "=&r"(x),     \
		          [u] "=&r"(u)                                                                       \
		        : [w0] "m"(WK(76)), [w1] "m"(WK(77)), [w2] "m"(WK(78)), [w3] "m"(WK(79))             \
		        : "cc");                                                                             \
		(h0) += a;                                                                                   \
		(h1) += b;                                                                                   \
		(h2) += c;                                                                                   \
		(h3) += d;                                                                                   \
		(h4) += e;                                                                                   \
	} while (0)
#else
#define SSSE3_COMPRESS WK_COMPRESS_AFTER_HOOKS
#endif

TARGET void sha1kit_blocks_ssse3(uint32_t ihv[5], const uint8_t *blocks, size_t nblocks)
{
	uint32_t wkb[2][80] __attribute__((aligned(16)));
	uint32_t h0 = ihv[0], h1 = ihv[1], h2 = ihv[2], h3 = ihv[3], h4 = ihv[4];
	__m128i v[20];
	int cur = 0;

	if (nblocks == 0)
		return;
#pragma GCC unroll 20
	for (int k = 0; k < 20; k++)
		expand_stage(k, v, wkb[0], blocks);
	/* blocks that have a block after them: two stages of its expansion after each of the first
	 * ten groups of six steps */
	while (nblocks > 1) {
		const uint32_t *wk = wkb[cur];
		uint32_t *next = wkb[cur ^ 1];
		const uint8_t *nb = blocks + 64;
#define WK(t) wk[t]
#define HOOK(k)                                                                                              \
	do {                                                                                                 \
		expand_stage(2 * (k), v, next, nb);                                                          \
		expand_stage(2 * (k) + 1, v, next, nb);                                                      \
	} while (0)
		SSSE3_COMPRESS(h0, h1, h2, h3, h4);
#undef HOOK
		cur ^= 1;
		nblocks--;
		blocks += 64;
	}
	{
		const uint32_t *wk = wkb[cur];
#define HOOK(k) (void)0
		SSSE3_COMPRESS(h0, h1, h2, h3, h4);
#undef HOOK
#undef WK
	}
	ihv[0] = h0;
	ihv[1] = h1;
	ihv[2] = h2;
	ihv[3] = h3;
	ihv[4] = h4;
}
#endif
