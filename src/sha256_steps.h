/*
 * sha256_steps.h - the functions, the message schedule and the steps of SHA-256 (FIPS 180-4,
 * sections 4.1.2 and 6.2.2) for any type with the operators of uint32_t, given its rotation
 * ROTR(x, n): the portable kernel (sha256_portable.c, uint32_t) and the lanes kernels
 * (sha256_lanes.h, vectors of 8 or 16 lanes) expand the same macros.
 */
#ifndef SHA1KIT_SHA256_STEPS_H
#define SHA1KIT_SHA256_STEPS_H

/* Ch and Maj in forms with fewer operations, bitwise identical to the standard's. */
#define SHA256_CH(x, y, z)    ((z) ^ ((x) & ((y) ^ (z))))
#define SHA256_MAJ(x, y, z)   (((x) & (y)) | ((z) & ((x) | (y))))
#define SHA256_BSIG0(ROTR, x) (ROTR(x, 2) ^ ROTR(x, 13) ^ ROTR(x, 22))
#define SHA256_BSIG1(ROTR, x) (ROTR(x, 6) ^ ROTR(x, 11) ^ ROTR(x, 25))
#define SHA256_SSIG0(ROTR, x) (ROTR(x, 7) ^ ROTR(x, 18) ^ ((x) >> 3))
#define SHA256_SSIG1(ROTR, x) (ROTR(x, 17) ^ ROTR(x, 19) ^ ((x) >> 10))

/* W[t] for t >= 16 in a 16-word ring, where the step uses it (section 6.2.2 step 1). */
#define SHA256_EXPAND(ROTR, W, t)                                                                            \
	(W[(t)&15] +=                                                                                        \
	 SHA256_SSIG1(ROTR, W[((t) + 14) & 15]) + W[((t) + 9) & 15] + SHA256_SSIG0(ROTR, W[((t) + 1) & 15]))

/*
 * One step (section 6.2.2 step 3) with the eight working variables renamed instead of moved: the
 * caller rotates (a..h) -> (h,a..g) from one step to the next. CH and MAJ are the caller's Ch and
 * Maj (SHA256_CH and SHA256_MAJ, or one instruction each where there is one). The sums are grouped
 * so that the new e and the new a wait on the step's e and a only through one Sigma and one
 * addition: T1 = (h + K[t] + W[t]) + Ch + Sigma1(e), e = (d + h + K[t] + W[t] + Ch) + Sigma1(e), a =
 * (h + K[t] + W[t] + Ch + Maj) + Sigma1(e) + Sigma0(a); where additions take two cycles (AVX-512 and
 * AVX2 on Zen 5) this makes a step of the lanes kernels 6 cycles long instead of 8 or more
 * (docs/PERFORMANCE.md, "SHA-256 batch"). Compilers that reorder integer sums undo the grouping:
 * the lanes kernels are built without GCC's reassociation (CMakeLists.txt).
 */
#define SHA256_STEP(T, ROTR, CH, MAJ, a, b, c, d, e, f, g, h, k, w)                                          \
	do {                                                                                                 \
		T hkw_ = (h) + ((k) + (w)), ch_ = CH(e, f, g), s1_ = SHA256_BSIG1(ROTR, e);                  \
		T dhkw_ = (d) + hkw_;                                                                        \
		d = (dhkw_ + ch_) + s1_;                                                                     \
		h = (((hkw_ + ch_) + MAJ(a, b, c)) + s1_) + SHA256_BSIG0(ROTR, a);                           \
	} while (0)

/* Steps t..t+7 with the constants K[t..t+7], word t of the schedule read through wexpr(t). */
#define SHA256_EIGHT(T, ROTR, CH, MAJ, K, t, wexpr)                                                          \
	do {                                                                                                 \
		SHA256_STEP(T, ROTR, CH, MAJ, a, b, c, d, e, f, g, h, (K)[(t)], wexpr(t));                   \
		SHA256_STEP(T, ROTR, CH, MAJ, h, a, b, c, d, e, f, g, (K)[(t) + 1], wexpr((t) + 1));         \
		SHA256_STEP(T, ROTR, CH, MAJ, g, h, a, b, c, d, e, f, (K)[(t) + 2], wexpr((t) + 2));         \
		SHA256_STEP(T, ROTR, CH, MAJ, f, g, h, a, b, c, d, e, (K)[(t) + 3], wexpr((t) + 3));         \
		SHA256_STEP(T, ROTR, CH, MAJ, e, f, g, h, a, b, c, d, (K)[(t) + 4], wexpr((t) + 4));         \
		SHA256_STEP(T, ROTR, CH, MAJ, d, e, f, g, h, a, b, c, (K)[(t) + 5], wexpr((t) + 5));         \
		SHA256_STEP(T, ROTR, CH, MAJ, c, d, e, f, g, h, a, b, (K)[(t) + 6], wexpr((t) + 6));         \
		SHA256_STEP(T, ROTR, CH, MAJ, b, c, d, e, f, g, h, a, (K)[(t) + 7], wexpr((t) + 7));         \
	} while (0)

#endif /* SHA1KIT_SHA256_STEPS_H */
