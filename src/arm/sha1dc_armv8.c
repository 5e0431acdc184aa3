/*
 * sha1dc_armv8.c - the SHA-1DC compression kernel with the ARMv8 SHA1 instructions: one block, as
 * sha1_armv8.c, that also writes out W[0..79] and the working states before steps 56 and 64 (the
 * (A,B,C,D) vector before groups 14 and 16; E is SHA1H of A before groups 13 and 15, i.e.
 * E_t = ROTL30(A_{t-4}) of FIPS 180-4). See src/x86/sha1dc_shani.c for the reasoning.
 */
#include "../internal.h"

#if SHA1KIT_HAVE_ARMV8
#include "sha1_armv8_steps.h"

#define TARGET __attribute__((target("+crypto")))

/* Before group g: store W[4g..4g+3], and keep the (A,B,C,D) register before groups 13..16. */
#define DC_HOOK(g)                                                                                           \
	do {                                                                                                 \
		vst1q_u32(W + 4 * (g), m[(g) % 4]);                                                          \
		if ((g) >= 13 && (g) <= 16)                                                                  \
			snap[(g)-13] = abcd;                                                                 \
	} while (0)

TARGET static inline void state_at(sha1kit_dc_state *st, uint32x4_t before_prev, uint32x4_t before)
{
	vst1q_u32(st->s, before); /* lane 0 = A ... lane 3 = D */
	st->s[4] = vsha1h_u32(vgetq_lane_u32(before_prev, 0));
}

TARGET void sha1kit_dc_compress_armv8(uint32_t ihv[5], const uint8_t block[64], uint32_t W[80],
                                      sha1kit_dc_state st[2])
{
	const uint32x4_t k[4] = {vdupq_n_u32(0x5a827999u), vdupq_n_u32(0x6ed9eba1u), vdupq_n_u32(0x8f1bbcdcu),
	                         vdupq_n_u32(0xca62c1d6u)};
	const uint32x4_t abcd_save = vld1q_u32(ihv);
	uint32x4_t abcd = abcd_save, m[4], snap[4];
	uint32_t e = ihv[4];

	for (int i = 0; i < 4; i++)
		m[i] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(block + 16 * i)));
	ARMV8_80_STEPS(abcd, e, m, k, DC_HOOK);
	vst1q_u32(ihv, vaddq_u32(abcd, abcd_save));
	ihv[4] += e;
	state_at(&st[0], snap[0], snap[1]);
	state_at(&st[1], snap[2], snap[3]);
}

/* The partner's words of group g (steps 4g..4g+3) plus the round constant, W[4g] in lane 0. */
TARGET static inline uint32x4_t partner_group(const uint32_t *W, const uint32_t *dm, int g, uint32x4_t k)
{
	uint32x4_t w = vld1q_u32(W + 4 * g);
	if (dm)
		w = veorq_u32(w, vld1q_u32(dm + 4 * g));
	return vaddq_u32(w, k);
}

/* Group g with the operation of its round: E in the scalar e, (A,B,C,D) in abcd (A in lane 0); the
 * next E is SHA1H of A before the group (FIPS 180-4, E_t = ROTL30(A_{t-4})). */
#define GROUP(g, op)                                                                                         \
	do {                                                                                                 \
		uint32_t e_next_ = vsha1h_u32(vgetq_lane_u32(abcd, 0));                                      \
		abcd = op(abcd, e, partner_group(W, dm, g, k[(g) / 5]));                                     \
		e = e_next_;                                                                                 \
	} while (0)

/* The test of sha1kit_dc_collides_fn (src/internal.h) with the ARMv8 SHA1 instructions; see
 * sha1kit_dc_collides_shani (src/x86/sha1dc_shani.c) for the reasoning. */
TARGET int sha1kit_dc_collides_armv8(int testt, const uint32_t W[80], const uint32_t *dm,
                                     const uint32_t st[5], const uint32_t target[5])
{
	const uint32x4_t k[4] = {vdupq_n_u32(0x5a827999u), vdupq_n_u32(0x6ed9eba1u), vdupq_n_u32(0x8f1bbcdcu),
	                         vdupq_n_u32(0xca62c1d6u)};
	uint32_t S[5], diff[4];
	const int t0 = sha1kit_dc_partner_boundary(testt, W, dm, st, S);
	const uint32x4_t want = vld1q_u32(S);
	uint32x4_t abcd = want;
	uint32_t e = S[4];

	/* out to step 80 from the partner's state at t0 */
	if (t0 == 60)
		GROUP(15, vsha1pq_u32);
	GROUP(16, vsha1pq_u32);
	GROUP(17, vsha1pq_u32);
	GROUP(18, vsha1pq_u32);
	GROUP(19, vsha1pq_u32);
	/* X = target - (state at 80), then in from X to t0 */
	abcd = vsubq_u32(vld1q_u32(target), abcd);
	e = target[4] - e;
	GROUP(0, vsha1cq_u32);
	GROUP(1, vsha1cq_u32);
	GROUP(2, vsha1cq_u32);
	GROUP(3, vsha1cq_u32);
	GROUP(4, vsha1cq_u32);
	GROUP(5, vsha1pq_u32);
	GROUP(6, vsha1pq_u32);
	GROUP(7, vsha1pq_u32);
	GROUP(8, vsha1pq_u32);
	GROUP(9, vsha1pq_u32);
	GROUP(10, vsha1mq_u32);
	GROUP(11, vsha1mq_u32);
	GROUP(12, vsha1mq_u32);
	GROUP(13, vsha1mq_u32);
	GROUP(14, vsha1mq_u32);
	if (t0 == 64)
		GROUP(15, vsha1pq_u32);
	/* the partner starts from X exactly when this reaches its state at t0 */
	vst1q_u32(diff, veorq_u32(abcd, want));
	return ((diff[0] | diff[1] | diff[2] | diff[3]) == 0) & (e == S[4]);
}
#undef GROUP
#endif
