/*
 * sha256_armv8.c - SHA-256 compression with the ARMv8 Cryptographic Extension (Arm Architecture
 * Reference Manual, A64 SHA256H, SHA256H2, SHA256SU0, SHA256SU1):
 *  - SHA256H Qd, Qn, Vm performs four rounds and returns the new (A,B,C,D); Qd holds (A,B,C,D),
 *    Qn (E,F,G,H), Vm W[t]+K[t] of the four rounds (first word in lane 0 throughout).
 *  - SHA256H2 Qd, Qn, Vm returns the new (E,F,G,H) of the same four rounds from Qd = (E,F,G,H)
 *    and Qn = the (A,B,C,D) before them, so it takes the copy kept before SHA256H.
 *  - SHA256SU0 Vd, Vn: W[t-16] + sigma0(W[t-15]) for four t, Vd = W[t-16..t-13], Vn = W[t-12..t-9].
 *  - SHA256SU1 Vd, Vn, Vm: adds W[t-7] (from Vn = W[t-8..t-5] and Vm) and sigma1(W[t-2]) (Vm =
 *    W[t-4..t-1], then the first two results), giving W[t..t+3] (FIPS 180-4 section 6.2.2 step 1).
 */
#include "../internal.h"

#if SHA1KIT_HAVE_ARMV8
#include <arm_neon.h>

#define TARGET __attribute__((target("+crypto")))

/* Four rounds 4g..4g+3 with the message words m (W[4g] in lane 0). */
#define ROUNDS4(g, m)                                                                                        \
	do {                                                                                                 \
		const uint32x4_t wk = vaddq_u32((m), vld1q_u32(sha1kit_sha256_k + 4 * (g)));                 \
		const uint32x4_t abcd_in = abcd;                                                             \
		abcd = vsha256hq_u32(abcd, efgh, wk);                                                        \
		efgh = vsha256h2q_u32(efgh, abcd_in, wk);                                                    \
	} while (0)

/* m0 = W[t..t+3] from m0 = W[t-16..t-13], m1 = W[t-12..t-9], m2 = W[t-8..t-5], m3 = W[t-4..t-1]. */
#define SCHEDULE(m0, m1, m2, m3) (m0 = vsha256su1q_u32(vsha256su0q_u32(m0, m1), m2, m3))

#define SIXTEEN(g)                                                                                           \
	do {                                                                                                 \
		SCHEDULE(m0, m1, m2, m3);                                                                    \
		ROUNDS4((g), m0);                                                                            \
		SCHEDULE(m1, m2, m3, m0);                                                                    \
		ROUNDS4((g) + 1, m1);                                                                        \
		SCHEDULE(m2, m3, m0, m1);                                                                    \
		ROUNDS4((g) + 2, m2);                                                                        \
		SCHEDULE(m3, m0, m1, m2);                                                                    \
		ROUNDS4((g) + 3, m3);                                                                        \
	} while (0)

TARGET void sha1kit_sha256_blocks_armv8(uint32_t h[8], const uint8_t *blocks, size_t nblocks)
{
	uint32x4_t abcd = vld1q_u32(h), efgh = vld1q_u32(h + 4);

	while (nblocks--) {
		const uint32x4_t abcd_save = abcd, efgh_save = efgh;
		uint32x4_t m0 = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(blocks)));
		uint32x4_t m1 = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(blocks + 16)));
		uint32x4_t m2 = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(blocks + 32)));
		uint32x4_t m3 = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(blocks + 48)));

		ROUNDS4(0, m0);
		ROUNDS4(1, m1);
		ROUNDS4(2, m2);
		ROUNDS4(3, m3);
		SIXTEEN(4);
		SIXTEEN(8);
		SIXTEEN(12);
		abcd = vaddq_u32(abcd, abcd_save);
		efgh = vaddq_u32(efgh, efgh_save);
		blocks += 64;
	}
	vst1q_u32(h, abcd);
	vst1q_u32(h + 4, efgh);
}
#endif
