/*
 * sha1_lanes_avx512.c - the multi-buffer kernels of src/sha1_lanes.h with AVX-512 (F and BW): 16
 * messages at once, one per 32-bit lane of a ZMM register (the compiler turns the rotations into
 * VPROLD and the step functions into VPTERNLOGD).
 */
#include "../internal.h"

#if SHA1KIT_HAVE_AVX512
#include <immintrin.h>

#include "lanes_load.h"

#define TARGET __attribute__((target("avx512f,avx512bw")))

#define LANES               16
#define SK_LANES_TARGET     TARGET
#define SK_LANES_FAST       sha1kit_lanes16_avx512
#define SK_LANES_DC         sha1kit_lanes16_dc_avx512
#define SK_LANES_LOAD       load16x16
#define SK_LANES_UBC        sha1kit_ubc_lanes16_avx512
#define SK_LANES_AHEAD      sha1kit_ubc_ahead16_avx512
#define SK_LANES_PIPE       sha1kit_ubc_pipe16_avx512
#define SK_LANES_UBC_PART   sha1kit_ubc_part16
#define SK_LANES_RECOMPRESS sha1kit_lanes16_recompress_avx512
#include "ubc_part16.h"
#include "../sha1_lanes.h"

#if SHA1KIT_HAVE_SHANI
#include "sha1_shani_steps.h"

/*
 * SHA-NI blocks with the steps of the pipelined look-ahead between them (see sha1kit_dc_run16_fn):
 * one function, so that the chaining value stays in registers from block to block. Called one block
 * at a time, the plain kernel stores it and loads it back around every block, on the latency-bound
 * SHA-NI chain: on Zen 5 that took 82 TSC ticks a block against 74.5 in one call, and the steps
 * between them (out of line, as sha1kit_ubc_pipe16_avx512) about 1 more (docs/PERFORMANCE.md, "Git
 * against sha1kit: one SHA-NI function for a group"). `flatten` inlines the steps (lanes_load, the
 * expansion, the parts of the filter). The SHA instructions have only legacy-SSE encodings, mixed
 * here with AVX-512 ones: no penalty on AMD Zen, for which the preference table chooses this kernel.
 * Intel CPUs run legacy SSE after dirty upper ZMM state with a penalty: correct, but about 100x
 * slower on Intel 6/207 (docs/PERFORMANCE.md, "Intel Xeon family 6 model 207"), whose choice is
 * shani+avx512.
 */
__attribute__((target("avx512f,avx512bw,sha,sse4.1,ssse3"), flatten)) unsigned
sha1kit_dc_run16_shani_avx512(uint32_t ihv[5], const uint8_t *blocks, unsigned start, unsigned n,
                              const uint32_t *mask, uint32_t *state, const uint8_t *next, size_t nnext,
                              uint32_t *next_mask)
{
	const __m128i bswap = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
	__m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)ihv), 0x1b);
	__m128i e0 = _mm_set_epi32((int)ihv[4], 0, 0, 0);
	unsigned b = start;

	for (; b < n && mask[b] == 0; b++) {
		const uint8_t *p = blocks + 64 * (size_t)b;
		const __m128i abcd_save = abcd, e_save = e0;
		__m128i m[4], e_cur = e0, e_next;
		for (int g = 0; g < 4; g++)
			m[g] = SHANI_LOAD(p, g, bswap);
		SHANI_80_STEPS(abcd, e_cur, e_next, m, SHANI_NO_HOOK);
		e0 = _mm_sha1nexte_epu32(e_cur, e_save);
		abcd = _mm_add_epi32(abcd, abcd_save);
		if (next != NULL)
			lanes_pipe_step(state, next, nnext, b, next_mask);
	}
	_mm_storeu_si128((__m128i *)ihv, _mm_shuffle_epi32(abcd, 0x1b));
	ihv[4] = (uint32_t)_mm_extract_epi32(e0, 3);
	return b;
}
#endif
#endif
