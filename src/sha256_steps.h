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

/* One step (section 6.2.2 step 3) with the eight working variables renamed instead of moved: the
 * caller rotates (a..h) -> (h,a..g) from one step to the next. */
#define SHA256_STEP(T, ROTR, a, b, c, d, e, f, g, h, k, w)                                                   \
	do {                                                                                                 \
		T t1 = (h) + SHA256_BSIG1(ROTR, e) + SHA256_CH(e, f, g) + (k) + (w);                         \
		d += t1;                                                                                     \
		h = t1 + SHA256_BSIG0(ROTR, a) + SHA256_MAJ(a, b, c);                                        \
	} while (0)

/* Steps t..t+7, word t of the schedule read through wexpr(t). */
#define SHA256_EIGHT(T, ROTR, t, wexpr)                                                                      \
	do {                                                                                                 \
		SHA256_STEP(T, ROTR, a, b, c, d, e, f, g, h, sha1kit_sha256_k[(t)], wexpr(t));               \
		SHA256_STEP(T, ROTR, h, a, b, c, d, e, f, g, sha1kit_sha256_k[(t) + 1], wexpr((t) + 1));     \
		SHA256_STEP(T, ROTR, g, h, a, b, c, d, e, f, sha1kit_sha256_k[(t) + 2], wexpr((t) + 2));     \
		SHA256_STEP(T, ROTR, f, g, h, a, b, c, d, e, sha1kit_sha256_k[(t) + 3], wexpr((t) + 3));     \
		SHA256_STEP(T, ROTR, e, f, g, h, a, b, c, d, sha1kit_sha256_k[(t) + 4], wexpr((t) + 4));     \
		SHA256_STEP(T, ROTR, d, e, f, g, h, a, b, c, sha1kit_sha256_k[(t) + 5], wexpr((t) + 5));     \
		SHA256_STEP(T, ROTR, c, d, e, f, g, h, a, b, sha1kit_sha256_k[(t) + 6], wexpr((t) + 6));     \
		SHA256_STEP(T, ROTR, b, c, d, e, f, g, h, a, sha1kit_sha256_k[(t) + 7], wexpr((t) + 7));     \
	} while (0)

#endif /* SHA1KIT_SHA256_STEPS_H */
