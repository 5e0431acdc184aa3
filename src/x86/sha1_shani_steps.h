/*
 * sha1_shani_steps.h - the SHA-NI step groups shared by the fast and DC kernels (sha1_shani.c,
 * sha1_shani_x2.c, sha1dc_shani.c). Intel, "Intel SHA Extensions" (2013): SHA1RNDS4 performs four
 * steps with the round function chosen by its immediate; SHA1NEXTE derives the next E from the
 * previous A (rotl30) and adds it to the next four message words; SHA1MSG1, SHA1MSG2 and one XOR
 * compute four words of the expansion W[t] = rotl1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]).
 * Registers hold (A,B,C,D) with A in lane 3, and W[4g..4g+3] with W[4g] in lane 3.
 */
#ifndef SHA1KIT_SHANI_STEPS_H
#define SHA1KIT_SHANI_STEPS_H

#include <immintrin.h>

/* The four message words of group g of the block at p, byte-swapped into lane order. */
#define SHANI_LOAD(p, g, bswap) _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)((p) + 16 * (g))), (bswap))

/*
 * Group g = steps 4g..4g+3 on the state register `abcd`, with e_cur the register before the
 * previous group (its A gives this group's E) and m[4] the message ring: m[g % 4] holds the words of
 * group g; once the group has used them the register receives the words of group g + 4, which need
 * the groups g .. g+3.
 */
#define SHANI_GROUP(g, abcd, e_cur, e_next, m)                                                               \
	do {                                                                                                 \
		if ((g) == 0)                                                                                \
			e_next = _mm_add_epi32(e_cur, m[0]);                                                 \
		else                                                                                         \
			e_next = _mm_sha1nexte_epu32(e_cur, m[(g) % 4]);                                     \
		e_cur = abcd;                                                                                \
		abcd = _mm_sha1rnds4_epu32(abcd, e_next, (g) / 5);                                           \
		if ((g) < 16)                                                                                \
			m[(g) % 4] = _mm_sha1msg2_epu32(                                                     \
			    _mm_xor_si128(_mm_sha1msg1_epu32(m[(g) % 4], m[((g) + 1) % 4]),                  \
			                  m[((g) + 2) % 4]),                                                 \
			    m[((g) + 3) % 4]);                                                               \
	} while (0)

/* All 20 groups; HOOK(g) runs before each group (an empty hook for the fast kernels). */
#define SHANI_80_STEPS(abcd, e_cur, e_next, m, HOOK)                                                         \
	do {                                                                                                 \
		HOOK(0);                                                                                     \
		SHANI_GROUP(0, abcd, e_cur, e_next, m);                                                      \
		HOOK(1);                                                                                     \
		SHANI_GROUP(1, abcd, e_cur, e_next, m);                                                      \
		HOOK(2);                                                                                     \
		SHANI_GROUP(2, abcd, e_cur, e_next, m);                                                      \
		HOOK(3);                                                                                     \
		SHANI_GROUP(3, abcd, e_cur, e_next, m);                                                      \
		HOOK(4);                                                                                     \
		SHANI_GROUP(4, abcd, e_cur, e_next, m);                                                      \
		HOOK(5);                                                                                     \
		SHANI_GROUP(5, abcd, e_cur, e_next, m);                                                      \
		HOOK(6);                                                                                     \
		SHANI_GROUP(6, abcd, e_cur, e_next, m);                                                      \
		HOOK(7);                                                                                     \
		SHANI_GROUP(7, abcd, e_cur, e_next, m);                                                      \
		HOOK(8);                                                                                     \
		SHANI_GROUP(8, abcd, e_cur, e_next, m);                                                      \
		HOOK(9);                                                                                     \
		SHANI_GROUP(9, abcd, e_cur, e_next, m);                                                      \
		HOOK(10);                                                                                    \
		SHANI_GROUP(10, abcd, e_cur, e_next, m);                                                     \
		HOOK(11);                                                                                    \
		SHANI_GROUP(11, abcd, e_cur, e_next, m);                                                     \
		HOOK(12);                                                                                    \
		SHANI_GROUP(12, abcd, e_cur, e_next, m);                                                     \
		HOOK(13);                                                                                    \
		SHANI_GROUP(13, abcd, e_cur, e_next, m);                                                     \
		HOOK(14);                                                                                    \
		SHANI_GROUP(14, abcd, e_cur, e_next, m);                                                     \
		HOOK(15);                                                                                    \
		SHANI_GROUP(15, abcd, e_cur, e_next, m);                                                     \
		HOOK(16);                                                                                    \
		SHANI_GROUP(16, abcd, e_cur, e_next, m);                                                     \
		HOOK(17);                                                                                    \
		SHANI_GROUP(17, abcd, e_cur, e_next, m);                                                     \
		HOOK(18);                                                                                    \
		SHANI_GROUP(18, abcd, e_cur, e_next, m);                                                     \
		HOOK(19);                                                                                    \
		SHANI_GROUP(19, abcd, e_cur, e_next, m);                                                     \
	} while (0)

#define SHANI_NO_HOOK(g) ((void)0)

#endif
