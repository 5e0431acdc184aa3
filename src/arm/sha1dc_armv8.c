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
#endif
