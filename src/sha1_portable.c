/*
 * sha1_portable.c - portable C SHA-1 compression (FIPS 180-4, section 6.1.2), the reference kernel
 * every other kernel is tested against.
 */
#include "internal.h"

const uint32_t sha1kit_iv[5] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u};

/* The round functions and constants of FIPS 180-4 section 4.1.1 / 4.2.1. Ch and Maj are written in
 * the forms with fewer operations; they are bitwise identical to the standard's. */
#define F1(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define F2(b, c, d) ((b) ^ (c) ^ (d))
#define F3(b, c, d) (((b) & (c)) | ((d) & ((b) | (c))))
#define F4(b, c, d) ((b) ^ (c) ^ (d))
#define K1          0x5a827999u
#define K2          0x6ed9eba1u
#define K3          0x8f1bbcdcu
#define K4          0xca62c1d6u

/* One step with the five working variables renamed instead of moved: the caller rotates the
 * arguments (a,b,c,d,e) -> (e,a,b,c,d) from one step to the next. */
#define STEP(f, k, a, b, c, d, e, w)                                                                         \
	do {                                                                                                 \
		e += sha1kit_rotl32(a, 5) + f(b, c, d) + (k) + (w);                                          \
		b = sha1kit_rotl32(b, 30);                                                                   \
	} while (0)

/* Message expansion in a 16-word circular buffer: W[t] for t >= 16. */
#define EXPAND(W, t)                                                                                         \
	(W[(t)&15] =                                                                                         \
	     sha1kit_rotl32(W[((t) + 13) & 15] ^ W[((t) + 8) & 15] ^ W[((t) + 2) & 15] ^ W[(t)&15], 1))

#define FIVE(f, k, t, wexpr)                                                                                 \
	do {                                                                                                 \
		STEP(f, k, a, b, c, d, e, wexpr(t));                                                         \
		STEP(f, k, e, a, b, c, d, wexpr((t) + 1));                                                   \
		STEP(f, k, d, e, a, b, c, wexpr((t) + 2));                                                   \
		STEP(f, k, c, d, e, a, b, wexpr((t) + 3));                                                   \
		STEP(f, k, b, c, d, e, a, wexpr((t) + 4));                                                   \
	} while (0)

#define WLOAD(t) (W[t])
#define WEXP(t)  EXPAND(W, t)

void sha1kit_blocks_portable(uint32_t ihv[5], const uint8_t *blocks, size_t nblocks)
{
	uint32_t a, b, c, d, e;
	uint32_t W[16];

	while (nblocks--) {
		for (int i = 0; i < 16; i++)
			W[i] = sha1kit_load_be32(blocks + 4 * i);
		a = ihv[0];
		b = ihv[1];
		c = ihv[2];
		d = ihv[3];
		e = ihv[4];
		FIVE(F1, K1, 0, WLOAD);
		FIVE(F1, K1, 5, WLOAD);
		FIVE(F1, K1, 10, WLOAD);
		STEP(F1, K1, a, b, c, d, e, W[15]);
		STEP(F1, K1, e, a, b, c, d, WEXP(16));
		STEP(F1, K1, d, e, a, b, c, WEXP(17));
		STEP(F1, K1, c, d, e, a, b, WEXP(18));
		STEP(F1, K1, b, c, d, e, a, WEXP(19));
		FIVE(F2, K2, 20, WEXP);
		FIVE(F2, K2, 25, WEXP);
		FIVE(F2, K2, 30, WEXP);
		FIVE(F2, K2, 35, WEXP);
		FIVE(F3, K3, 40, WEXP);
		FIVE(F3, K3, 45, WEXP);
		FIVE(F3, K3, 50, WEXP);
		FIVE(F3, K3, 55, WEXP);
		FIVE(F4, K4, 60, WEXP);
		FIVE(F4, K4, 65, WEXP);
		FIVE(F4, K4, 70, WEXP);
		FIVE(F4, K4, 75, WEXP);
		ihv[0] += a;
		ihv[1] += b;
		ihv[2] += c;
		ihv[3] += d;
		ihv[4] += e;
		blocks += 64;
	}
}
