/*
 * sha256_lanes_avx2.c - the multi-buffer SHA-256 kernel of src/sha256_lanes.h with AVX2: 8
 * messages at once, one per 32-bit lane (sha1kit_sha256_batch; src/sha256_batch.c).
 */
#include "../internal.h"

#if SHA1KIT_HAVE_AVX2
#include <immintrin.h>

#include "lanes_load.h"

#define LANES        8
#define SK256_TARGET __attribute__((target("avx2")))
#define SK256_LANES  sha1kit_sha256_lanes8_avx2
#define SK256_LOAD   load8x8
#include "../sha256_lanes.h"
#endif
