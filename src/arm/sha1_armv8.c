/*
 * sha1_armv8.c - SHA-1 compression with the ARMv8 Cryptographic Extension (Arm Architecture
 * Reference Manual, SHA1C/SHA1P/SHA1M: four steps with Ch/Parity/Maj, SHA1H: rotl30 of A giving the
 * next E, SHA1SU0/SHA1SU1: four words of the message expansion).
 */
#include "../internal.h"

#if SHA1KIT_HAVE_ARMV8
#include <arm_neon.h>

#define TARGET __attribute__((target("+crypto")))

/* Group g = steps 4g..4g+3 with the message words in m[g % 4]; the register then receives the words
 * of group g + 4: SHA1SU0 gives W[t-16] ^ W[t-14] ^ W[t-8], SHA1SU1 adds W[t-3] and rotates. */
#define GROUP(g, op)                                                                                         \
	do {                                                                                                 \
		uint32x4_t wk = vaddq_u32(m[(g) % 4], k[(g) / 5]);                                           \
		uint32_t e_next = vsha1h_u32(vgetq_lane_u32(abcd, 0));                                       \
		abcd = op(abcd, e, wk);                                                                      \
		e = e_next;                                                                                  \
		if ((g) < 16)                                                                                \
			m[(g) % 4] =                                                                         \
			    vsha1su1q_u32(vsha1su0q_u32(m[(g) % 4], m[((g) + 1) % 4], m[((g) + 2) % 4]),     \
			                  m[((g) + 3) % 4]);                                                 \
	} while (0)

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
		GROUP(15, vsha1pq_u32);
		GROUP(16, vsha1pq_u32);
		GROUP(17, vsha1pq_u32);
		GROUP(18, vsha1pq_u32);
		GROUP(19, vsha1pq_u32);
		abcd = vaddq_u32(abcd, abcd_save);
		e += e_save;
		blocks += 64;
	}
	vst1q_u32(ihv, abcd);
	ihv[4] = e;
}
#endif
