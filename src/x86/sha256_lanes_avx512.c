/*
 * sha256_lanes_avx512.c - the multi-buffer SHA-256 kernel of src/sha256_lanes.h with AVX-512: 16
 * messages at once, one per 32-bit lane (sha1kit_sha256_batch; src/sha256_batch.c).
 */
#include "../internal.h"

#if SHA1KIT_HAVE_AVX512
#include <immintrin.h>

#include "lanes_load.h"

#define LANES        16
#define SK256_TARGET __attribute__((target("avx512f,avx512bw")))
#define SK256_LANES  sha1kit_sha256_lanes16_avx512
#define SK256_LOAD   load16x16
#include "../sha256_lanes.h"
#endif
