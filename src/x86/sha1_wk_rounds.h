/*
 * sha1_wk_rounds.h - the 80 scalar steps of SHA-1 (FIPS 180-4, 6.1.2) reading precomputed
 * W[t] + K[t] from memory. Included by the SIMD kernels whose vector units do the message expansion;
 * each includes it inside its own target region so that the steps compile for that target.
 */
#ifndef SHA1KIT_WK_ROUNDS_H
#define SHA1KIT_WK_ROUNDS_H

#define WK_F1(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define WK_F2(b, c, d) ((b) ^ (c) ^ (d))
#define WK_F3(b, c, d) (((b) & (c)) | ((d) & ((b) | (c))))

#define WK_STEP(f, a, b, c, d, e, wk)                                                                        \
	do {                                                                                                 \
		e += sha1kit_rotl32(a, 5) + f(b, c, d) + (wk);                                               \
		b = sha1kit_rotl32(b, 30);                                                                   \
	} while (0)

/* WK(t) must give W[t] + K[t]. */
#define WK_FIVE(f, t)                                                                                        \
	do {                                                                                                 \
		WK_STEP(f, a, b, c, d, e, WK(t));                                                            \
		WK_STEP(f, e, a, b, c, d, WK((t) + 1));                                                      \
		WK_STEP(f, d, e, a, b, c, WK((t) + 2));                                                      \
		WK_STEP(f, c, d, e, a, b, WK((t) + 3));                                                      \
		WK_STEP(f, b, c, d, e, a, WK((t) + 4));                                                      \
	} while (0)

#define WK_TWENTY(f, t)                                                                                      \
	do {                                                                                                 \
		WK_FIVE(f, (t));                                                                             \
		WK_FIVE(f, (t) + 5);                                                                         \
		WK_FIVE(f, (t) + 10);                                                                        \
		WK_FIVE(f, (t) + 15);                                                                        \
	} while (0)

/* The whole compression: (h0..h4) += steps(h0..h4), on five scalar lvalues (kept out of an array so
 * that GCC does not carry the chaining value between blocks through a vector register). */
#define WK_COMPRESS(h0, h1, h2, h3, h4)                                                                      \
	do {                                                                                                 \
		uint32_t a = (h0), b = (h1), c = (h2), d = (h3), e = (h4);                                   \
		WK_TWENTY(WK_F1, 0);                                                                         \
		WK_TWENTY(WK_F2, 20);                                                                        \
		WK_TWENTY(WK_F3, 40);                                                                        \
		WK_TWENTY(WK_F2, 60);                                                                        \
		(h0) += a;                                                                                   \
		(h1) += b;                                                                                   \
		(h2) += c;                                                                                   \
		(h3) += d;                                                                                   \
		(h4) += e;                                                                                   \
	} while (0)

/* For i386, which has too few registers for the assembly steps of the AVX2 and SSSE3 kernels: the
 * caller's vector work HOOK(0..9) first, then the plain steps. */
#define WK_COMPRESS_AFTER_HOOKS(h0, h1, h2, h3, h4)                                                          \
	do {                                                                                                 \
		for (int k_ = 0; k_ < 10; k_++)                                                              \
			HOOK(k_);                                                                            \
		WK_COMPRESS(h0, h1, h2, h3, h4);                                                             \
	} while (0)

#endif
