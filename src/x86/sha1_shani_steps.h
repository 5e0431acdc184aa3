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

/* F(g, ...) for the 20 groups in order. */
#define SHANI_FOR_GROUPS(F, ...)                                                                             \
	F(0, __VA_ARGS__);                                                                                   \
	F(1, __VA_ARGS__);                                                                                   \
	F(2, __VA_ARGS__);                                                                                   \
	F(3, __VA_ARGS__);                                                                                   \
	F(4, __VA_ARGS__);                                                                                   \
	F(5, __VA_ARGS__);                                                                                   \
	F(6, __VA_ARGS__);                                                                                   \
	F(7, __VA_ARGS__);                                                                                   \
	F(8, __VA_ARGS__);                                                                                   \
	F(9, __VA_ARGS__);                                                                                   \
	F(10, __VA_ARGS__);                                                                                  \
	F(11, __VA_ARGS__);                                                                                  \
	F(12, __VA_ARGS__);                                                                                  \
	F(13, __VA_ARGS__);                                                                                  \
	F(14, __VA_ARGS__);                                                                                  \
	F(15, __VA_ARGS__);                                                                                  \
	F(16, __VA_ARGS__);                                                                                  \
	F(17, __VA_ARGS__);                                                                                  \
	F(18, __VA_ARGS__);                                                                                  \
	F(19, __VA_ARGS__)

#define SHANI_RING_STEP(g, abcd, e_cur, e_next, m, HOOK)                                                     \
	do {                                                                                                 \
		HOOK(g, m[(g) % 4]);                                                                         \
		SHANI_GROUP(g, abcd, e_cur, e_next, m);                                                      \
	} while (0)

/* All 20 groups on the ring m[4]; HOOK(g, w) runs before group g, w being the register that holds
 * W[4g..4g+3] (an empty hook for the fast kernels). */
#define SHANI_80_STEPS(abcd, e_cur, e_next, m, HOOK)                                                         \
	do {                                                                                                 \
		SHANI_FOR_GROUPS(SHANI_RING_STEP, abcd, e_cur, e_next, m, HOOK);                             \
	} while (0)

/*
 * The same 80 steps with the expansion of groups 8..19 in SSE2 instead of SHA1MSG1/SHA1MSG2: the
 * recurrence applied twice gives, for t >= 32, W[t] = rotl2(W[t-6] ^ W[t-16] ^ W[t-28] ^ W[t-32])
 * (Locktyukhin, "Improving the Performance of the Secure Hash Algorithm (SHA-1)", Intel, 2010), in
 * which no word of a group depends on another of the same group. Some Intel cores run SHA1MSG2 as
 * microcode (the Rust sha1dc crate's notes, 0.1.5: Sapphire Rapids); where measured faster, the
 * preference table picks the kernels built on this form (docs/PERFORMANCE.md, "SHA1MSG2 on Intel
 * 6/207"). v[20] holds every group's words, W[4k] in lane 3 of v[k].
 */
#define SHANI_V_AT(k) ((k) >= 0 && (k) < 20 ? (k) : 0) /* an index for the unreached branches */
#define SHANI_EXPAND_V(g, v)                                                                                 \
	do {                                                                                                 \
		if ((g) < 4) {                                                                               \
			v[SHANI_V_AT((g) + 4)] = _mm_sha1msg2_epu32(                                         \
			    _mm_xor_si128(_mm_sha1msg1_epu32(v[SHANI_V_AT(g)], v[SHANI_V_AT((g) + 1)]),      \
			                  v[SHANI_V_AT((g) + 2)]),                                           \
			    v[SHANI_V_AT((g) + 3)]);                                                         \
		} else if ((g) < 16) {                                                                       \
			/* group k = g + 4: W[4k-32..] ^ W[4k-28..] ^ W[4k-16..], and W[4k-6..4k-3], the     \
			 * low half of group k-2 and the high half of group k-1 (lane order reversed) */     \
			const __m128i x_ = _mm_xor_si128(                                                    \
			    _mm_xor_si128(_mm_xor_si128(v[SHANI_V_AT((g)-4)], v[SHANI_V_AT((g)-3)]),         \
			                  v[SHANI_V_AT(g)]),                                                 \
			    _mm_alignr_epi8(v[SHANI_V_AT((g) + 2)], v[SHANI_V_AT((g) + 3)], 8));             \
			v[SHANI_V_AT((g) + 4)] =                                                             \
			    _mm_or_si128(_mm_slli_epi32(x_, 2), _mm_srli_epi32(x_, 30));                     \
		}                                                                                            \
	} while (0)

#define SHANI_ROL2_STEP(g, abcd, e_cur, e_next, v, HOOK)                                                     \
	do {                                                                                                 \
		HOOK(g, v[g]);                                                                               \
		if ((g) == 0)                                                                                \
			e_next = _mm_add_epi32(e_cur, v[0]);                                                 \
		else                                                                                         \
			e_next = _mm_sha1nexte_epu32(e_cur, v[g]);                                           \
		e_cur = abcd;                                                                                \
		abcd = _mm_sha1rnds4_epu32(abcd, e_next, (g) / 5);                                           \
		SHANI_EXPAND_V(g, v);                                                                        \
	} while (0)

/* All 20 groups with v[20] (v[0..3] loaded); HOOK as for SHANI_80_STEPS. */
#define SHANI_80_STEPS_ROL2(abcd, e_cur, e_next, v, HOOK)                                                    \
	do {                                                                                                 \
		SHANI_FOR_GROUPS(SHANI_ROL2_STEP, abcd, e_cur, e_next, v, HOOK);                             \
	} while (0)

#define SHANI_NO_HOOK(g, w) ((void)0)

#endif
