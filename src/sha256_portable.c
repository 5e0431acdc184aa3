/*
 * sha256_portable.c - the SHA-256 constants and the portable C compression (FIPS 180-4, sections
 * 4.1.2, 4.2.2, 5.3.3 and 6.2.2), the reference kernel every other SHA-256 kernel is tested against.
 */
#include "internal.h"
#include "sha256_steps.h"

/* Initial hash value H(0), FIPS 180-4 section 5.3.3: the first 32 bits of the fractional parts of
 * the square roots of the first eight primes. */
const uint32_t sha1kit_sha256_iv[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                                       0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};

/* The constants K0..K63, FIPS 180-4 section 4.2.2: the first 32 bits of the fractional parts of the
 * cube roots of the first 64 primes. */
const uint32_t sha1kit_sha256_k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};

#define ROTR(x, n)  sha1kit_rotr32(x, n)
#define W_LOAD(t)   W[(t)&15]
#define W_EXPAND(t) SHA256_EXPAND(ROTR, W, t)

void sha1kit_sha256_blocks_portable(uint32_t hv[8], const uint8_t *blocks, size_t nblocks)
{
	while (nblocks--) {
		uint32_t W[16];
		uint32_t a = hv[0], b = hv[1], c = hv[2], d = hv[3], e = hv[4], f = hv[5], g = hv[6],
		         h = hv[7];

		for (int i = 0; i < 16; i++)
			W[i] = sha1kit_load_be32(blocks + 4 * i);
		SHA256_EIGHT(uint32_t, ROTR, SHA256_CH, SHA256_MAJ, sha1kit_sha256_k, 0, W_LOAD);
		SHA256_EIGHT(uint32_t, ROTR, SHA256_CH, SHA256_MAJ, sha1kit_sha256_k, 8, W_LOAD);
		for (int t = 16; t < 64; t += 8)
			SHA256_EIGHT(uint32_t, ROTR, SHA256_CH, SHA256_MAJ, sha1kit_sha256_k, t, W_EXPAND);
		hv[0] += a;
		hv[1] += b;
		hv[2] += c;
		hv[3] += d;
		hv[4] += e;
		hv[5] += f;
		hv[6] += g;
		hv[7] += h;
		blocks += 64;
	}
}
