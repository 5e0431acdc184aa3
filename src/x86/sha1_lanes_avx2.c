/*
 * sha1_lanes_avx2.c - the multi-buffer kernels of src/sha1_lanes.h with AVX2: 8 messages at once,
 * one per 32-bit lane of a YMM register; and the UBC masks of 8 consecutive blocks of one message at
 * once (sha1kit_ubc_ahead8_avx2), which sha1kit_dc_masks uses where the SHA-1DC kernel has no
 * look-ahead of its own.
 */
#include "../internal.h"

#if SHA1KIT_HAVE_AVX2
#include <immintrin.h>

#include "lanes_load.h"

#define TARGET __attribute__((target("avx2")))

#define LANES               8
#define SK_LANES_TARGET     TARGET
#define SK_LANES_FAST       sha1kit_lanes8_avx2
#define SK_LANES_DC         sha1kit_lanes8_dc_avx2
#define SK_LANES_LOAD       load8x8
#define SK_LANES_RECOMPRESS sha1kit_lanes8_recompress_avx2
#define SK_LANES_AHEAD      sha1kit_ubc_ahead8_avx2
#include "../sha1_lanes.h"
#endif
