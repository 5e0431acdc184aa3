/*
 * dispatch.c - the kernel table and the choice of kernel. The CPU is probed once per process, and
 * $SHA1KIT_CPU read then (the cached word is the library's only global mutable state); each context
 * records the kernel index at init and keeps it for its whole life, so nothing is decided per block.
 */
#include "internal.h"

#if defined(__STDC_NO_ATOMICS__)
#error "C11 atomics are required for the one-time CPU probe"
#endif
#include <stdatomic.h>
#include <stdlib.h>

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

/* ---- CPU features and the SHA1KIT_CPU mask ---------------------------------------------------- */

/* Indexed by bit number (src/internal.h). */
static const char *const cpu_feature_names[SHA1KIT_CPU_COUNT] = {
    "sse2", "ssse3", "sse4.1", "avx2", "bmi2", "avx512", "shani", "armv8-sha1",
};

const char *sha1kit_cpu_feature_name(int bit)
{
	return bit >= 0 && bit < SHA1KIT_CPU_COUNT ? cpu_feature_names[bit] : NULL;
}

/* Turning a feature off also turns off those built on it: their kernels (and the compiler, for
 * code built for them) use its instructions. */
static uint32_t cpu_mask_close(uint32_t m)
{
	if (m & SHA1KIT_CPU_SSE2)
		m |= SHA1KIT_CPU_SSSE3;
	if (m & SHA1KIT_CPU_SSSE3)
		m |= SHA1KIT_CPU_SSE41;
	if (m & SHA1KIT_CPU_SSE41)
		m |= SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_SHA;
	if (m & SHA1KIT_CPU_AVX2)
		m |= SHA1KIT_CPU_AVX512;
	return m;
}

/* A message in a caller's buffer: truncated, always NUL-terminated when size > 0. */
typedef struct msg_buf {
	char *p;
	size_t size, used;
} msg_buf;

/* Append `len` bytes at `s`; with `quote`, control bytes become '?' and more than 40 bytes "...". */
static void msg_put(msg_buf *m, const char *s, size_t len, int quote)
{
	size_t n = quote && len > 40 ? 40 : len;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (quote && ((unsigned char)c < 0x20 || c == 0x7f))
			c = '?';
		if (m->used + 1 < m->size)
			m->p[m->used++] = c;
	}
	if (n < len)
		msg_put(m, "...", 3, 0);
	if (m->size > 0)
		m->p[m->used] = 0;
}

static void msg_str(msg_buf *m, const char *s)
{
	msg_put(m, s, strlen(s), 0);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The message of the first bad entry `e` (`len` bytes, not empty unless the list has an empty
 * entry) of the list `value`, with the known names. */
static void msg_bad(msg_buf *m, const char *value, const char *e, size_t len)
{
	if (len == 0) {
		msg_str(m, "empty entry in '");
		msg_put(m, value, strlen(value), 1);
		msg_str(m, "'");
	} else if (e[0] == '-') {
		msg_str(m, "unknown feature '");
		msg_put(m, e + 1, len - 1, 1);
		msg_str(m, "'");
	} else {
		size_t skip = e[0] == '+';
		msg_str(m, "'");
		msg_put(m, e, len, 1);
		msg_str(m, "': features can only be turned off, as in '-");
		msg_put(m, e + skip, len - skip, 1);
		msg_str(m, "'");
	}
	msg_str(m, " (known: ");
	for (int i = 0; i < SHA1KIT_CPU_COUNT; i++) {
		msg_str(m, cpu_feature_names[i]);
		msg_str(m, ", ");
	}
	msg_str(m, "all)");
}

int sha1kit_cpu_mask_parse(const char *value, uint32_t *masked_off, char *msg, size_t msg_size)
{
	msg_buf m = {msg, msg_size, 0};
	uint32_t mask = 0;
	int bad = 0;
	const char *p = value;

	if (msg_size > 0)
		msg[0] = 0;
	while (p != NULL && is_blank(*p))
		p++;
	if (p == NULL || *p == 0) { /* unset or blank: nothing off */
		if (masked_off != NULL)
			*masked_off = 0;
		return 0;
	}
	for (p = value;; p++) {
		const char *e = p, *end;
		while (*p != 0 && *p != ',')
			p++;
		end = p;
		while (e < end && is_blank(*e))
			e++;
		while (end > e && is_blank(end[-1]))
			end--;
		size_t len = (size_t)(end - e);
		uint32_t bit = 0;
		if (len > 1 && e[0] == '-') {
			if (len - 1 == 3 && memcmp(e + 1, "all", 3) == 0)
				bit = SHA1KIT_CPU_ALL;
			for (int i = 0; i < SHA1KIT_CPU_COUNT && bit == 0; i++)
				if (strlen(cpu_feature_names[i]) == len - 1 &&
				    memcmp(e + 1, cpu_feature_names[i], len - 1) == 0)
					bit = 1u << i;
		}
		if (bit != 0) {
			mask |= bit;
		} else if (!bad++) { /* the first bad entry gives the message */
			msg_bad(&m, value, e, len);
		}
		if (*p == 0)
			break;
	}
	if (masked_off != NULL)
		*masked_off = cpu_mask_close(mask);
	return bad ? -1 : 0;
}

/*
 * The cached probe, one word: bit 31 marks "probed"; bits 0-11 the features found; bits 12-23 the
 * SHA1KIT_CPU mask; bits 24-25 its state (0 unset, 1 valid, 2 invalid). Threads racing on the first
 * call compute and store the same value.
 */
#define CPU_PROBED      0x80000000u
#define CPU_MASK_SHIFT  12
#define CPU_STATE_SHIFT 24
#define CPU_FIELD       0xfffu
_Static_assert(SHA1KIT_CPU_ALL <= CPU_FIELD, "CPU feature bits do not fit the cached word");
static _Atomic uint32_t cpu_cache;

static uint32_t cpu_probe(void)
{
	uint32_t c = atomic_load_explicit(&cpu_cache, memory_order_relaxed), f, mask = 0, state = 0;
	if (c & CPU_PROBED)
		return c;
#if SHA1KIT_X86
	f = sha1kit_x86_probe();
#elif SHA1KIT_ARM64
	f = sha1kit_arm_probe();
#else
	f = 0;
#endif
	const char *env = getenv("SHA1KIT_CPU");
	if (env != NULL)
		state = sha1kit_cpu_mask_parse(env, &mask, NULL, 0) == 0 ? 1 : 2;
	c = CPU_PROBED | (f & CPU_FIELD) | (mask & CPU_FIELD) << CPU_MASK_SHIFT | state << CPU_STATE_SHIFT;
	atomic_store_explicit(&cpu_cache, c, memory_order_relaxed);
	return c;
}

uint32_t sha1kit_cpu_features(void)
{
	uint32_t c = cpu_probe();
	return c & CPU_FIELD & ~(c >> CPU_MASK_SHIFT);
}

uint32_t sha1kit_cpu_features_detected(void)
{
	return cpu_probe() & CPU_FIELD;
}

int sha1kit_cpu_mask(uint32_t *masked_off)
{
	uint32_t c = cpu_probe(), state = (c >> CPU_STATE_SHIFT) & 3;
	if (masked_off != NULL)
		*masked_off = (c >> CPU_MASK_SHIFT) & CPU_FIELD;
	return state == 2 ? -1 : (int)state;
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
