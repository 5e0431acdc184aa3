/*
 * sha256_lanes.h - multi-buffer SHA-256: LANES independent messages at once, one per 32-bit lane
 * of a vector, the steps of FIPS 180-4 section 6.2.2 done lane-wise (as src/sha1_lanes.h does for
 * SHA-1). Written with GCC/Clang vector extensions, so the same source becomes an AVX2 (8 lanes) or
 * AVX-512 (16 lanes) kernel by the including file's vector width and target attribute; with AVX-512
 * the compiler turns the rotations into VPRORD and the three-input functions into VPTERNLOGD.
 *
 * Include once per instantiation, after defining:
 *   LANES              8 or 16
 *   SK256_TARGET       the function attribute (e.g. __attribute__((target("avx2"))))
 *   SK256_LANES        name of the kernel (sha1kit_sha256_lanes_fn)
 *   SK256_LOAD(W, p, off, swap)  writes word t of block `off` of every lane, big-endian, to W[t]
 *                      (t = 0..15); src/x86/lanes_load.h has them.
 * and optionally SK256_CH(x, y, z) and SK256_MAJ(x, y, z), Ch and Maj of vectors in one instruction
 * each (VPTERNLOGD with AVX-512; GCC makes two of Maj); SHA256_CH and SHA256_MAJ otherwise.
 */
#include "sha256_steps.h"

#ifndef SK256_CH
#define SK256_CH  SHA256_CH
#define SK256_MAJ SHA256_MAJ
#endif

typedef uint32_t lv256 __attribute__((vector_size(4 * LANES)));

#define L256_ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
/* The schedule in a 16-word ring, where the step uses it. Computing the whole schedule first (64
 * vectors, W[t] + K[t] in memory) was 30% slower on Zen 5 (17 against 23 ns a block in one process:
 * docs/PERFORMANCE.md, "SHA-256 batch"). */
#define L256_LOADED(t) (W[(t)&15])
#define L256_EXPAND(t) SHA256_EXPAND(L256_ROTR, W, t)

/*
 * `nblocks` blocks of every lane: lane i's blocks are consecutive from blocks[i]; state holds the
 * eight chaining words word-major (word j of lane i at state[j * LANES + i]).
 */
SK256_TARGET void SK256_LANES(uint32_t *state, const uint8_t *const *blocks, size_t nblocks)
{
	lv256 hv[8], W[16];
	memcpy(hv, state, sizeof(hv));
	for (size_t n = 0; n < nblocks; n++) {
		lv256 a = hv[0], b = hv[1], c = hv[2], d = hv[3], e = hv[4], f = hv[5], g = hv[6], h = hv[7];
		SK256_LOAD(W, blocks, 64 * n, 1);
		const uint32_t *k = sha1kit_sha256_k;
		SHA256_EIGHT(lv256, L256_ROTR, SK256_CH, SK256_MAJ, k, 0, L256_LOADED);
		SHA256_EIGHT(lv256, L256_ROTR, SK256_CH, SK256_MAJ, k, 8, L256_LOADED);
		/* steps 16..63 in three turns of sixteen: the ring's indices are the same in each */
		for (k += 16; k < sha1kit_sha256_k + 64; k += 16) {
			SHA256_EIGHT(lv256, L256_ROTR, SK256_CH, SK256_MAJ, k, 0, L256_EXPAND);
			SHA256_EIGHT(lv256, L256_ROTR, SK256_CH, SK256_MAJ, k, 8, L256_EXPAND);
		}
		hv[0] += a;
		hv[1] += b;
		hv[2] += c;
		hv[3] += d;
		hv[4] += e;
		hv[5] += f;
		hv[6] += g;
		hv[7] += h;
	}
	memcpy(state, hv, sizeof(hv));
}
