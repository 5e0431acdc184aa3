/*
 * sha1_armv8_steps.h - the ARMv8 SHA1 step groups shared by the fast and DC kernels (Arm
 * Architecture Reference Manual: SHA1C/SHA1P/SHA1M perform four steps with Ch/Parity/Maj, SHA1H
 * gives rotl30 of A, the next E; SHA1SU0/SHA1SU1 compute four words of the message expansion).
 * Registers hold (A,B,C,D) with A in lane 0, and W[4g..4g+3] with W[4g] in lane 0.
 */
#ifndef SHA1KIT_ARMV8_STEPS_H
#define SHA1KIT_ARMV8_STEPS_H

#include <arm_neon.h>

/*
 * Group g = steps 4g..4g+3 with the operation `op` of its round, on abcd and the scalar e, with the
 * message ring m[4] (m[g % 4] = words of group g) and the round constants k[4]; after the group the
 * register receives the words of group g + 4: SHA1SU0 gives W[t-16] ^ W[t-14] ^ W[t-8], SHA1SU1
 * adds W[t-3] and rotates.
 */
#define ARMV8_GROUP(g, op, abcd, e, m, k)                                                                    \
	do {                                                                                                 \
		uint32x4_t wk_ = vaddq_u32(m[(g) % 4], k[(g) / 5]);                                          \
		uint32_t e_next_ = vsha1h_u32(vgetq_lane_u32(abcd, 0));                                      \
		abcd = op(abcd, e, wk_);                                                                     \
		e = e_next_;                                                                                 \
		if ((g) < 16)                                                                                \
			m[(g) % 4] =                                                                         \
			    vsha1su1q_u32(vsha1su0q_u32(m[(g) % 4], m[((g) + 1) % 4], m[((g) + 2) % 4]),     \
			                  m[((g) + 3) % 4]);                                                 \
	} while (0)

/* All 20 groups; HOOK(g) runs before each group. */
#define ARMV8_80_STEPS(abcd, e, m, k, HOOK)                                                                  \
	do {                                                                                                 \
		HOOK(0);                                                                                     \
		ARMV8_GROUP(0, vsha1cq_u32, abcd, e, m, k);                                                  \
		HOOK(1);                                                                                     \
		ARMV8_GROUP(1, vsha1cq_u32, abcd, e, m, k);                                                  \
		HOOK(2);                                                                                     \
		ARMV8_GROUP(2, vsha1cq_u32, abcd, e, m, k);                                                  \
		HOOK(3);                                                                                     \
		ARMV8_GROUP(3, vsha1cq_u32, abcd, e, m, k);                                                  \
		HOOK(4);                                                                                     \
		ARMV8_GROUP(4, vsha1cq_u32, abcd, e, m, k);                                                  \
		HOOK(5);                                                                                     \
		ARMV8_GROUP(5, vsha1pq_u32, abcd, e, m, k);                                                  \
		HOOK(6);                                                                                     \
		ARMV8_GROUP(6, vsha1pq_u32, abcd, e, m, k);                                                  \
		HOOK(7);                                                                                     \
		ARMV8_GROUP(7, vsha1pq_u32, abcd, e, m, k);                                                  \
		HOOK(8);                                                                                     \
		ARMV8_GROUP(8, vsha1pq_u32, abcd, e, m, k);                                                  \
		HOOK(9);                                                                                     \
		ARMV8_GROUP(9, vsha1pq_u32, abcd, e, m, k);                                                  \
		HOOK(10);                                                                                    \
		ARMV8_GROUP(10, vsha1mq_u32, abcd, e, m, k);                                                 \
		HOOK(11);                                                                                    \
		ARMV8_GROUP(11, vsha1mq_u32, abcd, e, m, k);                                                 \
		HOOK(12);                                                                                    \
		ARMV8_GROUP(12, vsha1mq_u32, abcd, e, m, k);                                                 \
		HOOK(13);                                                                                    \
		ARMV8_GROUP(13, vsha1mq_u32, abcd, e, m, k);                                                 \
		HOOK(14);                                                                                    \
		ARMV8_GROUP(14, vsha1mq_u32, abcd, e, m, k);                                                 \
		HOOK(15);                                                                                    \
		ARMV8_GROUP(15, vsha1pq_u32, abcd, e, m, k);                                                 \
		HOOK(16);                                                                                    \
		ARMV8_GROUP(16, vsha1pq_u32, abcd, e, m, k);                                                 \
		HOOK(17);                                                                                    \
		ARMV8_GROUP(17, vsha1pq_u32, abcd, e, m, k);                                                 \
		HOOK(18);                                                                                    \
		ARMV8_GROUP(18, vsha1pq_u32, abcd, e, m, k);                                                 \
		HOOK(19);                                                                                    \
		ARMV8_GROUP(19, vsha1pq_u32, abcd, e, m, k);                                                 \
	} while (0)

#define ARMV8_NO_HOOK(g) ((void)0)

#endif
