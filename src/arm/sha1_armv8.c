/*
 * sha1_armv8.c - SHA-1 compression with the ARMv8 Cryptographic Extension (Arm Architecture
 * Reference Manual, SHA1C/SHA1P/SHA1M: four steps with Ch/Parity/Maj, SHA1H: rotl30 of A giving the
 * next E, SHA1SU0/SHA1SU1: four words of the message expansion); the steps are in sha1_armv8_steps.h.
 */
#include "../internal.h"

#if SHA1KIT_HAVE_ARMV8
#include "sha1_armv8_steps.h"

#define TARGET __attribute__((target("+crypto")))

TARGET void sha1kit_blocks_armv8(uint32_t ihv[5], const uint8_t *blocks, size_t nblocks)
{
	const uint32x4_t k[4] = {vdupq_n_u32(0x5a827999u), vdupq_n_u32(0x6ed9eba1u), vdupq_n_u32(0x8f1bbcdcu),
	                         vdupq_n_u32(0xca62c1d6u)};
	uint32x4_t abcd = vld1q_u32(ihv);
	uint32_t e = ihv[4];

	while (nblocks--) {
		const uint32x4_t abcd_save = abcd;
		const uint32_t e_save = e;
		uint32x4_t m[4];
		for (int i = 0; i < 4; i++)
			m[i] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(blocks + 16 * i)));
		ARMV8_80_STEPS(abcd, e, m, k, ARMV8_NO_HOOK);
		abcd = vaddq_u32(abcd, abcd_save);
		e += e_save;
		blocks += 64;
	}
	vst1q_u32(ihv, abcd);
	ihv[4] = e;
}
#endif
