/*
 * dispatch.c - the kernel table and the choice of kernel. The CPU is probed once per process (the
 * cached feature word is the library's only global mutable state); each context records the kernel
 * index at init and keeps it for its whole life, so nothing is decided per block.
 */
#include "internal.h"

#if defined(__STDC_NO_ATOMICS__)
#error "C11 atomics are required for the one-time CPU probe"
#endif
#include <stdatomic.h>

const sha1kit_kernel sha1kit_kernels[] = {
#if SHA1KIT_HAVE_SHANI
    {"shani", sha1kit_blocks_shani, sha1kit_blocks_shani_x2, SHA1KIT_CPU_SHA},
#endif
#if SHA1KIT_HAVE_AVX2
    {"avx2", sha1kit_blocks_avx2, NULL, SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_BMI2},
#endif
#if SHA1KIT_HAVE_SSSE3
    {"ssse3", sha1kit_blocks_ssse3, NULL, SHA1KIT_CPU_SSSE3},
#endif
#if SHA1KIT_HAVE_ARMV8
    {"armv8", sha1kit_blocks_armv8, NULL, SHA1KIT_CPU_ARM_SHA1},
#endif
    {"portable", sha1kit_blocks_portable, NULL, 0},
};

const uint32_t sha1kit_kernel_count = sizeof(sha1kit_kernels) / sizeof(sha1kit_kernels[0]);

/* Bit 31 marks "probed"; threads racing on the first call compute and store the same value. */
static _Atomic uint32_t cpu_features_cache;

uint32_t sha1kit_cpu_features(void)
{
	uint32_t f = atomic_load_explicit(&cpu_features_cache, memory_order_relaxed);
	if (f & 0x80000000u)
		return f & 0x7fffffffu;
#if SHA1KIT_X86
	f = sha1kit_x86_probe();
#elif SHA1KIT_ARM64
	f = sha1kit_arm_probe();
#else
	f = 0;
#endif
	atomic_store_explicit(&cpu_features_cache, f | 0x80000000u, memory_order_relaxed);
	return f;
}

int sha1kit_kernel_supported(uint32_t i)
{
	return i < sha1kit_kernel_count && (sha1kit_kernels[i].needs & ~sha1kit_cpu_features()) == 0;
}

uint32_t sha1kit_select_fast_kernel(void)
{
	uint32_t i = 0;
	while (!sha1kit_kernel_supported(i))
		i++;
	return i;
}

const char *sha1kit_kernel_name(void)
{
	return sha1kit_kernels[sha1kit_select_fast_kernel()].name;
}

/*
 * SHA-1DC kernels: compression (which must also give W and the states at 56 and 64) + UBC filter;
 * the look-ahead kernels also filter `ahead` blocks at once and compress the blocks whose mask is
 * zero with a plain kernel. ahead_min (the fewest blocks in an update for a look-ahead call) is
 * measured: below it the per-block path is as fast (docs/PERFORMANCE.md).
 */
#define NO_AHEAD NULL, 0, 0, NULL, NULL
const sha1kit_dc_kernel sha1kit_dc_kernels[] = {
#if SHA1KIT_HAVE_SHANI && SHA1KIT_HAVE_AVX2 && SHA1KIT_HAVE_AVX512
    {"shani+avx512", sha1kit_dc_compress_shani, sha1kit_ubc_mask_avx2,
     SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_AVX512, sha1kit_ubc_ahead16_avx512, 16, 16,
     sha1kit_blocks_shani, sha1kit_lanes16_recompress_avx512},
#endif
#if SHA1KIT_HAVE_SHANI && SHA1KIT_HAVE_AVX2
    {"shani+avx2", sha1kit_dc_compress_shani, sha1kit_ubc_mask_avx2, SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX2,
     NO_AHEAD},
#endif
#if SHA1KIT_HAVE_SHANI && SHA1KIT_HAVE_SSE2
    {"shani+sse2", sha1kit_dc_compress_shani, sha1kit_ubc_mask_sse2, SHA1KIT_CPU_SHA | SHA1KIT_CPU_SSE2,
     NO_AHEAD},
#endif
#if SHA1KIT_HAVE_AVX2 && SHA1KIT_HAVE_AVX512
    {"avx2+avx512", sha1kit_dc_compress_portable, sha1kit_ubc_mask_avx2,
     SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_BMI2 | SHA1KIT_CPU_AVX512, sha1kit_ubc_ahead16_avx512, 16, 8,
     sha1kit_blocks_avx2, sha1kit_lanes16_recompress_avx512},
#endif
#if SHA1KIT_HAVE_AVX2
    {"portable+avx2", sha1kit_dc_compress_portable, sha1kit_ubc_mask_avx2, SHA1KIT_CPU_AVX2, NO_AHEAD},
#endif
#if SHA1KIT_HAVE_SSE2
    {"portable+sse2", sha1kit_dc_compress_portable, sha1kit_ubc_mask_sse2, SHA1KIT_CPU_SSE2, NO_AHEAD},
#endif
#if SHA1KIT_HAVE_ARMV8
    {"armv8", sha1kit_dc_compress_armv8, sha1kit_ubc_mask, SHA1KIT_CPU_ARM_SHA1, NO_AHEAD},
#endif
    {"portable", sha1kit_dc_compress_portable, sha1kit_ubc_mask, 0, NO_AHEAD},
};

const uint32_t sha1kit_dc_kernel_count = sizeof(sha1kit_dc_kernels) / sizeof(sha1kit_dc_kernels[0]);

int sha1kit_dc_kernel_supported(uint32_t i)
{
	return i < sha1kit_dc_kernel_count && (sha1kit_dc_kernels[i].needs & ~sha1kit_cpu_features()) == 0;
}

uint32_t sha1kit_select_dc_kernel(void)
{
	uint32_t i = 0;
	while (!sha1kit_dc_kernel_supported(i))
		i++;
	return i;
}

const char *sha1kit_dc_kernel_name(void)
{
	return sha1kit_dc_kernels[sha1kit_select_dc_kernel()].name;
}

/*
 * Batch kernels, in order of preference (measured on the CPUs we have, docs/PERFORMANCE.md). The
 * lanes kernels finish their last messages one by one once fewer than min_active lanes are busy:
 * a lanes call costs about as much as min_active single-stream blocks (measured with SHA-NI as the
 * single-stream kernel: 16-lane call 165 ns plain / 285-300 ns DC, against 40 / 60 ns a block).
 */
/* The lanes kernels, with the flavour's min_active. */
#define LANES16_AVX512(min_active)                                                                           \
	{                                                                                                    \
		"avx512x16", 16, min_active, 0, sha1kit_lanes16_avx512, sha1kit_lanes16_dc_avx512,           \
		    sha1kit_lanes16_recompress_avx512, SHA1KIT_CPU_AVX512                                    \
	}
#define LANES8_AVX2(min_active)                                                                              \
	{                                                                                                    \
		"avx2x8", 8, min_active, 0, sha1kit_lanes8_avx2, sha1kit_lanes8_dc_avx2,                     \
		    sha1kit_lanes8_recompress_avx2, SHA1KIT_CPU_AVX2                                         \
	}
#define SINGLE                                                                                               \
	{                                                                                                    \
		"single", 0, 0, 0, NULL, NULL, NULL, 0                                                       \
	}

const sha1kit_batch_kernel sha1kit_fast_batch_kernels[] = {
#if SHA1KIT_HAVE_AVX512
    LANES16_AVX512(5),
#endif
#if SHA1KIT_HAVE_SHANI
    {"shani-x2", 0, 0, 1, NULL, NULL, NULL, SHA1KIT_CPU_SHA},
#endif
#if SHA1KIT_HAVE_AVX2
    LANES8_AVX2(3),
#endif
    SINGLE,
};
const uint32_t sha1kit_fast_batch_kernel_count =
    sizeof(sha1kit_fast_batch_kernels) / sizeof(sha1kit_fast_batch_kernels[0]);

const sha1kit_batch_kernel sha1kit_dc_batch_kernels[] = {
#if SHA1KIT_HAVE_AVX512
    LANES16_AVX512(6),
#endif
#if SHA1KIT_HAVE_AVX2
    LANES8_AVX2(3),
#endif
    SINGLE,
};
const uint32_t sha1kit_dc_batch_kernel_count =
    sizeof(sha1kit_dc_batch_kernels) / sizeof(sha1kit_dc_batch_kernels[0]);

int sha1kit_batch_kernel_supported(const sha1kit_batch_kernel *k)
{
	return (k->needs & ~sha1kit_cpu_features()) == 0;
}

uint32_t sha1kit_select_fast_batch_kernel(void)
{
	uint32_t i = 0;
	while (!sha1kit_batch_kernel_supported(&sha1kit_fast_batch_kernels[i]))
		i++;
	return i;
}

uint32_t sha1kit_select_dc_batch_kernel(void)
{
	uint32_t i = 0;
	while (!sha1kit_batch_kernel_supported(&sha1kit_dc_batch_kernels[i]))
		i++;
	return i;
}

const char *sha1kit_fast_batch_kernel_name(void)
{
	return sha1kit_fast_batch_kernels[sha1kit_select_fast_batch_kernel()].name;
}

const char *sha1kit_dc_batch_kernel_name(void)
{
	return sha1kit_dc_batch_kernels[sha1kit_select_dc_batch_kernel()].name;
}

const char *sha1kit_version(void)
{
	return SHA1KIT_VERSION_STRING;
}
