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
/* Ch and Maj as one VPTERNLOGD each: 0xca is x ? y : z, 0xe8 the majority of three bits. */
#define SK256_CH(x, y, z)                                                                                    \
	((__typeof__(x))_mm512_ternarylogic_epi32((__m512i)(x), (__m512i)(y), (__m512i)(z), 0xca))
#define SK256_MAJ(x, y, z)                                                                                   \
	((__typeof__(x))_mm512_ternarylogic_epi32((__m512i)(x), (__m512i)(y), (__m512i)(z), 0xe8))
#include "../sha256_lanes.h"
#endif
