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
#if SHA1KIT_HAVE_SHANI && SHA1KIT_HAVE_AVX2 /* VEX encoding: taken with AVX2 */
    {"shani-rol2", sha1kit_blocks_shani_rol2, sha1kit_blocks_shani_x2, SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX2},
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

/* SHA-256 kernels, fastest first. SHA-NI's CPUID bit covers SHA256RNDS2/SHA256MSG1/SHA256MSG2 as well
 * as the SHA-1 instructions; on arm64 the SHA256 instructions have their own HWCAP bit. */
const sha1kit_sha256_kernel sha1kit_sha256_kernels[] = {
#if SHA1KIT_HAVE_SHANI
    {"shani", sha1kit_sha256_blocks_shani, SHA1KIT_CPU_SHA},
#endif
#if SHA1KIT_HAVE_ARMV8
    {"armv8", sha1kit_sha256_blocks_armv8, SHA1KIT_CPU_ARM_SHA2},
#endif
    {"portable", sha1kit_sha256_blocks_portable, 0},
};

const uint32_t sha1kit_sha256_kernel_count =
    sizeof(sha1kit_sha256_kernels) / sizeof(sha1kit_sha256_kernels[0]);

/* ---- CPU features and the SHA1KIT_CPU mask ---------------------------------------------------- */

/* Indexed by bit number (src/internal.h). */
static const char *const cpu_feature_names[SHA1KIT_CPU_COUNT] = {
    "sse2", "ssse3", "sse4.1", "avx2", "bmi2", "avx512", "shani", "armv8-sha1", "armv8-sha2",
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
	} else if (e[0] == '-' && len == 1) {
		msg_str(m, "'-' names no feature in '");
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

/* The kernels chosen for this CPU, cached (after the kernel tables). */
static uint32_t choice_word(void);
#define CHOICE_FIELD      0x1fu
#define CHOICE_DC         5
#define CHOICE_FAST_BATCH 10
#define CHOICE_DC_BATCH   15
#define CHOICE_SHA256     20
#define CHOICE_SHA256_BAT 25

int sha1kit_kernel_supported(uint32_t i)
{
	return i < sha1kit_kernel_count && (sha1kit_kernels[i].needs & ~sha1kit_cpu_features()) == 0;
}

uint32_t sha1kit_select_fast_kernel(void)
{
	return choice_word() & CHOICE_FIELD;
}

const char *sha1kit_kernel_name(void)
{
	return sha1kit_kernels[sha1kit_select_fast_kernel()].name;
}

int sha1kit_sha256_kernel_supported(uint32_t i)
{
	return i < sha1kit_sha256_kernel_count &&
	       (sha1kit_sha256_kernels[i].needs & ~sha1kit_cpu_features()) == 0;
}

uint32_t sha1kit_select_sha256_kernel(void)
{
	return (choice_word() >> CHOICE_SHA256) & CHOICE_FIELD;
}

const char *sha1kit_sha256_kernel_name(void)
{
	return sha1kit_sha256_kernels[sha1kit_select_sha256_kernel()].name;
}

/*
 * SHA-1DC kernels: compression (which must also give W and the states at 56 and 64) + UBC filter;
 * shani+avx512-pipe runs the look-ahead of the next 16 blocks in steps between the SHA-NI blocks of
 * the current 16 (chosen where that overlap was measured: the preference table below);
 * the look-ahead kernels also filter `ahead` blocks at once and compress the blocks whose mask is
 * zero with a plain kernel. ahead_min (the fewest blocks in an update for a look-ahead call) is
 * measured: below it the per-block path is as fast (docs/PERFORMANCE.md).
 */
#define NO_AHEAD NULL, 0, 0, NULL, NULL, NULL, NULL
const sha1kit_dc_kernel sha1kit_dc_kernels[] = {
#if SHA1KIT_HAVE_SHANI && SHA1KIT_HAVE_AVX2 && SHA1KIT_HAVE_AVX512
    {"shani+avx512", sha1kit_dc_compress_shani, sha1kit_ubc_mask_avx2,
     SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_AVX512, sha1kit_ubc_ahead16_avx512, 16, 16,
     sha1kit_blocks_shani, sha1kit_lanes16_recompress_avx512, NULL, NULL, sha1kit_dc_collides_shani, NULL},
    {"shani+avx512-pipe", sha1kit_dc_compress_shani, sha1kit_ubc_mask_avx2,
     SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_AVX512, sha1kit_ubc_ahead16_avx512, 16, 32,
     sha1kit_blocks_shani, sha1kit_lanes16_recompress_avx512, sha1kit_ubc_pipe16_avx512,
     sha1kit_dc_run16_shani_avx512, sha1kit_dc_collides_shani, NULL},
    {"shani-rol2+avx512", sha1kit_dc_compress_shani_rol2, sha1kit_ubc_mask_avx2,
     SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_AVX512, sha1kit_ubc_ahead16_avx512, 16, 16,
     sha1kit_blocks_shani_rol2, sha1kit_lanes16_recompress_avx512, NULL, NULL, sha1kit_dc_collides_shani,
     NULL},
#endif
#if SHA1KIT_HAVE_SHANI && SHA1KIT_HAVE_AVX2
    {"shani+avx2", sha1kit_dc_compress_shani, sha1kit_ubc_mask_avx2, SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX2,
     NO_AHEAD, sha1kit_dc_collides_shani, NULL},
    {"shani-rol2+avx2", sha1kit_dc_compress_shani_rol2, sha1kit_ubc_mask_avx2,
     SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX2, NO_AHEAD, sha1kit_dc_collides_shani, NULL},
    /* the per-block filter with 11 AVX2 windows instead of 16 (chosen by the preference table) */
    {"shani+avx2-short", sha1kit_dc_compress_shani, sha1kit_ubc_mask_avx2_short,
     SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX2, NO_AHEAD, sha1kit_dc_collides_shani, NULL},
#endif
#if SHA1KIT_HAVE_SHANI && SHA1KIT_HAVE_SSE2
    {"shani+sse2", sha1kit_dc_compress_shani, sha1kit_ubc_mask_sse2, SHA1KIT_CPU_SHA | SHA1KIT_CPU_SSE2,
     NO_AHEAD, sha1kit_dc_collides_shani, NULL},
#endif
#if SHA1KIT_HAVE_DC_AVX2
#define DC_COMPRESS_AVX2  sha1kit_dc_compress_avx2
#define DC_COMPRESS2_AVX2 sha1kit_dc_compress2_avx2
#else
#define DC_COMPRESS_AVX2  sha1kit_dc_compress_portable
#define DC_COMPRESS2_AVX2 NULL
#endif
#if SHA1KIT_HAVE_AVX2 && SHA1KIT_HAVE_AVX512
    {"avx2+avx512", DC_COMPRESS_AVX2, sha1kit_ubc_mask_avx2,
     SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_BMI2 | SHA1KIT_CPU_AVX512, sha1kit_ubc_ahead16_avx512, 16, 8,
     sha1kit_blocks_avx2, sha1kit_lanes16_recompress_avx512, NULL, NULL, NULL, DC_COMPRESS2_AVX2},
#endif
#if SHA1KIT_HAVE_DC_AVX2
    {"avx2", sha1kit_dc_compress_avx2, sha1kit_ubc_mask_avx2, SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_BMI2, NO_AHEAD,
     NULL, sha1kit_dc_compress2_avx2},
#endif
#if SHA1KIT_HAVE_AVX2
    {"portable+avx2", sha1kit_dc_compress_portable, sha1kit_ubc_mask_avx2, SHA1KIT_CPU_AVX2, NO_AHEAD, NULL,
     NULL},
#endif
#if SHA1KIT_HAVE_SSE2
    {"portable+sse2", sha1kit_dc_compress_portable, sha1kit_ubc_mask_sse2, SHA1KIT_CPU_SSE2, NO_AHEAD, NULL,
     NULL},
#endif
#if SHA1KIT_HAVE_ARMV8
    {"armv8", sha1kit_dc_compress_armv8, sha1kit_ubc_mask, SHA1KIT_CPU_ARM_SHA1, NO_AHEAD,
     sha1kit_dc_collides_armv8, NULL},
#endif
    {"portable", sha1kit_dc_compress_portable, sha1kit_ubc_mask, 0, NO_AHEAD, NULL, NULL},
};

const uint32_t sha1kit_dc_kernel_count = sizeof(sha1kit_dc_kernels) / sizeof(sha1kit_dc_kernels[0]);

int sha1kit_dc_kernel_supported(uint32_t i)
{
	return i < sha1kit_dc_kernel_count && (sha1kit_dc_kernels[i].needs & ~sha1kit_cpu_features()) == 0;
}

uint32_t sha1kit_select_dc_kernel(void)
{
	return (choice_word() >> CHOICE_DC) & CHOICE_FIELD;
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

/*
 * SHA-256 batch kernels. On Zen 5 (AMD EPYC family 26 model 2, 2026-12-05; docs/PERFORMANCE.md,
 * "SHA-256 batch") a block costs 11 ns a lane in 16 AVX-512 lanes, 38 ns in 8 AVX2 lanes, 36-37 ns
 * on SHA-NI and about 165 ns in portable C: with SHA-NI, AVX2 lanes lose to one stream, so "shani"
 * (one message after the other on SHA-NI) comes before them. min_active: below that many busy
 * lanes the rest run one by one; measured with `sha1kit bench --sha256 --batch=20,21,22` (16 lanes
 * then 4, 5 or 6 left): 6 left were 10% faster in lanes at 16 KiB, 5 the same, 4 10% slower (a
 * 16-lane call, 16 x 11 = 180 ns, against 5 SHA-NI blocks). AVX2 lanes run only where SHA-NI is
 * absent: 8 x 38 = 305 ns against 2 portable blocks.
 */
#define SHA256_MIN_ACTIVE16 5
#define SHA256_MIN_ACTIVE8  2
const sha1kit_batch_kernel sha1kit_sha256_batch_kernels[] = {
#if SHA1KIT_HAVE_AVX512
    {"avx512x16", 16, SHA256_MIN_ACTIVE16, 0, sha1kit_sha256_lanes16_avx512, NULL, NULL, SHA1KIT_CPU_AVX512},
#endif
#if SHA1KIT_HAVE_SHANI
    {"shani", 0, 0, 0, NULL, NULL, NULL, SHA1KIT_CPU_SHA},
#endif
#if SHA1KIT_HAVE_AVX2
    {"avx2x8", 8, SHA256_MIN_ACTIVE8, 0, sha1kit_sha256_lanes8_avx2, NULL, NULL, SHA1KIT_CPU_AVX2},
#endif
    SINGLE,
};
const uint32_t sha1kit_sha256_batch_kernel_count =
    sizeof(sha1kit_sha256_batch_kernels) / sizeof(sha1kit_sha256_batch_kernels[0]);

int sha1kit_batch_kernel_supported(const sha1kit_batch_kernel *k)
{
	return (k->needs & ~sha1kit_cpu_features()) == 0;
}

uint32_t sha1kit_select_fast_batch_kernel(void)
{
	return (choice_word() >> CHOICE_FAST_BATCH) & CHOICE_FIELD;
}

uint32_t sha1kit_select_dc_batch_kernel(void)
{
	return (choice_word() >> CHOICE_DC_BATCH) & CHOICE_FIELD;
}

const char *sha1kit_fast_batch_kernel_name(void)
{
	return sha1kit_fast_batch_kernels[sha1kit_select_fast_batch_kernel()].name;
}

const char *sha1kit_dc_batch_kernel_name(void)
{
	return sha1kit_dc_batch_kernels[sha1kit_select_dc_batch_kernel()].name;
}

uint32_t sha1kit_select_sha256_batch_kernel(void)
{
	return (choice_word() >> CHOICE_SHA256_BAT) & CHOICE_FIELD;
}

const char *sha1kit_sha256_batch_kernel_name(void)
{
	return sha1kit_sha256_batch_kernels[sha1kit_select_sha256_batch_kernel()].name;
}

/*
 * ---- Kernel preferences by CPU -------------------------------------------------------------------
 * The figures each entry rests on are in docs/PERFORMANCE.md ("Kernel choice by CPU"); ratios are to
 * OpenSSL's EVP SHA-1 in the same `sha1kit bench --reps 15` run, at 1 KiB / 16 KiB / 1 MiB.
 * An entry changes the choice only where a measurement showed the table order more than 3% slower
 * than another kernel at one of those sizes; what was not measured keeps the table order.
 */
const sha1kit_cpu_pref sha1kit_cpu_prefs[] = {
    /* Zen 3 (Milan, models 0-15): no AVX-512; the per-block AVX2 filter with 11 vector windows
     * (the rest in its scalar tail) instead of 16; SHA-1DC batches a message at a time (the SHA-NI
     * kernel above) before the eight AVX2 lanes, which were no faster at any size */
    {.vendor = SHA1KIT_VENDOR_AMD,
     .family = 0x19,
     .model_hi = 0x0f,
     .dc = {"shani+avx2-short"},
     .dc_batch = {"single"},
     .basis = "AMD EPYC family 25 model 1 (Zen 3), 2026-12-07, sha1kit bench --batch=0 --reps=9, random "
              "messages, ratio to plain shani in the same run, 2 runs, shani+avx2-short / shani+avx2: "
              "64 B 0.59-0.60 / 0.60, 1 KiB 0.79 / 0.73-0.75, 16 KiB 0.82-0.83 / 0.76-0.77, 1 MiB 0.83 / "
              "0.78; sha1kit-git-replay 0.876-0.881x / 0.795-0.798x OpenSSL. dc_batch: sha1kit bench "
              "--only=sha1kit-dc-batch,sha1kit-dc-oneshot --reps=7, single / avx2x8 time per message: "
              "64 B 1.16-1.24 (the one size avx2x8 won), 256 B 0.88, 1 KiB 0.96, 4 KiB 0.79-1.06, 16 KiB "
              "0.98, 1 MiB 0.98; fsck --threads=1 of the v2.50.0 repository 18.3-19.6 s / 20.1-21.5 s "
              "wall, 3 alternating runs; fsck and index-pack with 2 threads faster too"},
    /* Zen 4: the filter steps between the SHA-NI blocks, as Zen 5 (shani+avx512, the 16-block
     * look-ahead in one call, was slower than the per-block AVX2 filter: issue 16); a Zen 3 that
     * the entry above does not match has no AVX-512 and gets shani+avx2 by the table order */
    {.vendor = SHA1KIT_VENDOR_AMD,
     .family = 0x19,
     .model_hi = 0xff,
     .dc = {"shani+avx512-pipe"},
     .basis = "AMD EPYC family 25 model 17 (Zen 4), 2026-12-06, sha1kit bench --reps 9, random "
              "messages: time of dc shani+avx512-pipe / shani+avx2 in the same run, 9 runs: 1 KiB "
              "0.99-1.01 (the same per-block path), 16 KiB 0.82-0.98, 1 MiB 0.80-0.97, 3-4 KiB "
              "0.85-1.04; issue 16: shani+avx2 0.87x / 0.72-0.73x / 0.72-0.73x OpenSSL, "
              "shani+avx512 0.71x / 0.71x / 0.71x"},
    /* Zen 5: the filter steps overlap the SHA-NI blocks; the 16-block look-ahead pays from 32 blocks
     * in an update, not 16 */
    {.vendor = SHA1KIT_VENDOR_AMD,
     .family = 0x1a,
     .model_hi = 0xff,
     .dc = {"shani+avx512-pipe"},
     .ahead_kernel = "shani+avx512",
     .ahead_min = 32,
     .basis = "AMD EPYC family 26 model 2 (Zen 5), 2026-12-01: dc shani+avx512-pipe (group kernel) "
              "0.93x / 0.91x / 0.94x, shani+avx512 0.93x / 0.81x / 0.79x, shani+avx2 0.93x / 0.71x / "
              "0.70x; "
              "shani+avx512 with the look-ahead from 16 blocks 0.87x at 1 KiB, shani+avx2 0.93x; "
              "from 24 blocks 0.80x at 1.5 KiB, shani+avx2 0.85x; at 2 KiB 0.86x against 0.83x"},
    /* Intel 6/207 (Emerald Rapids): SHA1MSG2 is slow here; the kernels that expand groups 8..19 in
     * SSE2 instead (src/x86/sha1_shani_steps.h) are faster at every size */
    {.vendor = SHA1KIT_VENDOR_INTEL,
     .family = 6,
     .model_lo = 207,
     .model_hi = 207,
     .fast = {"shani-rol2"},
     .dc = {"shani-rol2+avx512", "shani-rol2+avx2"},
     .fast_batch = {"avx512x16", "avx2x8"},
     .basis = "Intel Xeon family 6 model 207, 2026-12-06, sha1kit bench --reps 9 --batch=0, random "
              "messages, load 3-6, time of the rol2 kernel / the SHA1MSG2 one in the same run, 5 runs, "
              "64 B / 1 KiB / 16 KiB / 1 MiB: fast 0.83-0.95 / 0.83-0.93 / 0.79-0.97 / 0.78-0.95; "
              "dc shani+avx512 0.95-1.16 / 0.78-0.92 / 0.84-0.99 / 0.80-0.95; dc shani+avx2 "
              "0.93-1.02 / 0.85-0.93 / 0.89-0.95 / 0.93-0.97"},
    /* Intel: two SHA-NI streams are slower than eight AVX2 lanes (matters without AVX-512) */
    {.vendor = SHA1KIT_VENDOR_INTEL,
     .model_hi = 0xff,
     .fast_batch = {"avx512x16", "avx2x8"},
     .basis = "Intel Xeon family 6 model 207, 2026-11-30 (README table): fast batch avx2x8 2.54x / "
              "1.81x / 1.77x, shani-x2 1.61x / 1.13x / 1.09x"},
    /* every other CPU: the table order */
    {.vendor = SHA1KIT_VENDOR_OTHER, .model_hi = 0xff, .basis = "the table order"},
};
const uint32_t sha1kit_cpu_pref_count = sizeof(sha1kit_cpu_prefs) / sizeof(sha1kit_cpu_prefs[0]);

const sha1kit_cpu_pref *sha1kit_cpu_pref_find(const sha1kit_cpu_id *id)
{
	uint32_t i = 0;
	for (; i + 1 < sha1kit_cpu_pref_count; i++) {
		const sha1kit_cpu_pref *p = &sha1kit_cpu_prefs[i];
		if ((p->vendor == SHA1KIT_VENDOR_OTHER || p->vendor == id->vendor) &&
		    (p->family == 0 || p->family == id->family) && id->model >= p->model_lo &&
		    id->model <= p->model_hi)
			break;
	}
	return &sha1kit_cpu_prefs[i];
}

/* One kernel table as the choice sees it: names and the features each entry needs. */
typedef struct table_view {
	uint32_t count;
	const char *(*name)(uint32_t i);
	uint32_t (*needs)(uint32_t i);
} table_view;

static const char *fast_name(uint32_t i)
{
	return sha1kit_kernels[i].name;
}
static uint32_t fast_needs(uint32_t i)
{
	return sha1kit_kernels[i].needs;
}
static const char *dc_name(uint32_t i)
{
	return sha1kit_dc_kernels[i].name;
}
static uint32_t dc_needs(uint32_t i)
{
	return sha1kit_dc_kernels[i].needs;
}
static const char *fast_batch_name(uint32_t i)
{
	return sha1kit_fast_batch_kernels[i].name;
}
static uint32_t fast_batch_needs(uint32_t i)
{
	return sha1kit_fast_batch_kernels[i].needs;
}
static const char *dc_batch_name(uint32_t i)
{
	return sha1kit_dc_batch_kernels[i].name;
}
static uint32_t dc_batch_needs(uint32_t i)
{
	return sha1kit_dc_batch_kernels[i].needs;
}
static const char *sha256_name(uint32_t i)
{
	return sha1kit_sha256_kernels[i].name;
}
static uint32_t sha256_needs(uint32_t i)
{
	return sha1kit_sha256_kernels[i].needs;
}
static const char *sha256_batch_name(uint32_t i)
{
	return sha1kit_sha256_batch_kernels[i].name;
}
static uint32_t sha256_batch_needs(uint32_t i)
{
	return sha1kit_sha256_batch_kernels[i].needs;
}

/* The index of `name` in the table, or t->count. */
static uint32_t table_find(const table_view *t, const char *name)
{
	uint32_t i = 0;
	while (i < t->count && strcmp(t->name(i), name) != 0)
		i++;
	return i;
}

/* The first preferred kernel the table has and the features allow, else the first entry they allow
 * (each table ends with one that needs nothing). */
static uint32_t choose(const table_view *t, const char *const prefer[SHA1KIT_PREF_MAX], uint32_t features)
{
	for (int k = 0; k < SHA1KIT_PREF_MAX && prefer[k] != NULL; k++) {
		uint32_t i = table_find(t, prefer[k]);
		if (i < t->count && (t->needs(i) & ~features) == 0)
			return i;
	}
	uint32_t i = 0;
	while ((t->needs(i) & ~features) != 0)
		i++;
	return i;
}

void sha1kit_choose_kernels(const sha1kit_cpu_pref *p, uint32_t features, sha1kit_kernel_choice *out)
{
	const table_view fast = {sha1kit_kernel_count, fast_name, fast_needs},
	                 dc = {sha1kit_dc_kernel_count, dc_name, dc_needs},
	                 fast_batch = {sha1kit_fast_batch_kernel_count, fast_batch_name, fast_batch_needs},
	                 dc_batch = {sha1kit_dc_batch_kernel_count, dc_batch_name, dc_batch_needs},
	                 sha256 = {sha1kit_sha256_kernel_count, sha256_name, sha256_needs},
	                 sha256_batch = {sha1kit_sha256_batch_kernel_count, sha256_batch_name,
	                                 sha256_batch_needs};
	out->fast = choose(&fast, p->fast, features);
	out->dc = choose(&dc, p->dc, features);
	out->fast_batch = choose(&fast_batch, p->fast_batch, features);
	out->dc_batch = choose(&dc_batch, p->dc_batch, features);
	out->sha256 = choose(&sha256, p->sha256, features);
	out->sha256_batch = choose(&sha256_batch, p->sha256_batch, features);
	out->ahead_kernel = p->ahead_kernel ? table_find(&dc, p->ahead_kernel) : sha1kit_dc_kernel_count;
	if (out->ahead_kernel < sha1kit_dc_kernel_count && p->ahead_min == 0)
		out->ahead_kernel = sha1kit_dc_kernel_count; /* 0 would mean none: the table's value */
	out->ahead_min = out->ahead_kernel < sha1kit_dc_kernel_count ? p->ahead_min : 0;
}

sha1kit_cpu_id sha1kit_cpu_ident(void)
{
	sha1kit_cpu_id id = {SHA1KIT_VENDOR_OTHER, 0, 0};
#if SHA1KIT_X86
	sha1kit_x86_cpu_id(&id);
#endif
	return id;
}

/*
 * The choice, cached in two words computed together (bit 31 "computed" in each; the same values
 * for racing threads): choice_cache the six kernel indices (5 bits each, CHOICE_*), ahead_cache the
 * look-ahead kernel whose ahead_min differs (bits 0-4, CHOICE_FIELD: none) and that
 * ahead_min (bits 8-15).
 */
_Static_assert(sizeof(sha1kit_dc_kernels) / sizeof(sha1kit_dc_kernels[0]) < CHOICE_FIELD &&
                   sizeof(sha1kit_kernels) / sizeof(sha1kit_kernels[0]) <= CHOICE_FIELD &&
                   sizeof(sha1kit_fast_batch_kernels) / sizeof(sha1kit_fast_batch_kernels[0]) <=
                       CHOICE_FIELD &&
                   sizeof(sha1kit_dc_batch_kernels) / sizeof(sha1kit_dc_batch_kernels[0]) <= CHOICE_FIELD &&
                   sizeof(sha1kit_sha256_kernels) / sizeof(sha1kit_sha256_kernels[0]) <= CHOICE_FIELD &&
                   sizeof(sha1kit_sha256_batch_kernels) / sizeof(sha1kit_sha256_batch_kernels[0]) <=
                       CHOICE_FIELD,
               "kernel indices do not fit the cached choice");
static _Atomic uint32_t choice_cache, ahead_cache;

static uint32_t choice_word(void)
{
	uint32_t c = atomic_load_explicit(&choice_cache, memory_order_relaxed);
	if (c & CPU_PROBED)
		return c;
	sha1kit_cpu_id id = sha1kit_cpu_ident();
	sha1kit_kernel_choice k;
	sha1kit_choose_kernels(sha1kit_cpu_pref_find(&id), sha1kit_cpu_features(), &k);
	uint32_t a = CPU_PROBED | (k.ahead_kernel < sha1kit_dc_kernel_count ? k.ahead_kernel : CHOICE_FIELD) |
	             (k.ahead_min > 0xff ? 0xffu : k.ahead_min) << 8;
	atomic_store_explicit(&ahead_cache, a, memory_order_relaxed);
	c = CPU_PROBED | k.fast | k.dc << CHOICE_DC | k.fast_batch << CHOICE_FAST_BATCH |
	    k.dc_batch << CHOICE_DC_BATCH | k.sha256 << CHOICE_SHA256 | k.sha256_batch << CHOICE_SHA256_BAT;
	atomic_store_explicit(&choice_cache, c, memory_order_relaxed);
	return c;
}

unsigned sha1kit_dc_ahead_min(uint32_t kernel)
{
	uint32_t a = atomic_load_explicit(&ahead_cache, memory_order_relaxed);
	if (!(a & CPU_PROBED)) {
		choice_word();
		a = atomic_load_explicit(&ahead_cache, memory_order_relaxed);
	}
	if (kernel == (a & CHOICE_FIELD))
		return (a >> 8) & 0xff;
	return sha1kit_dc_kernel_get(kernel)->ahead_min;
}

const char *sha1kit_kernel_at(sha1kit_kernel_kind kind, uint32_t index, int *usable)
{
	const char *name = NULL;
	int ok = 0;
	switch (kind) {
	case SHA1KIT_KERNELS_FAST:
		if (index < sha1kit_kernel_count) {
			name = sha1kit_kernels[index].name;
			ok = sha1kit_kernel_supported(index);
		}
		break;
	case SHA1KIT_KERNELS_DC:
		if (index < sha1kit_dc_kernel_count) {
			name = sha1kit_dc_kernels[index].name;
			ok = sha1kit_dc_kernel_supported(index);
		}
		break;
	case SHA1KIT_KERNELS_FAST_BATCH:
		if (index < sha1kit_fast_batch_kernel_count) {
			name = sha1kit_fast_batch_kernels[index].name;
			ok = sha1kit_batch_kernel_supported(&sha1kit_fast_batch_kernels[index]);
		}
		break;
	case SHA1KIT_KERNELS_DC_BATCH:
		if (index < sha1kit_dc_batch_kernel_count) {
			name = sha1kit_dc_batch_kernels[index].name;
			ok = sha1kit_batch_kernel_supported(&sha1kit_dc_batch_kernels[index]);
		}
		break;
	case SHA1KIT_KERNELS_SHA256:
		if (index < sha1kit_sha256_kernel_count) {
			name = sha1kit_sha256_kernels[index].name;
			ok = sha1kit_sha256_kernel_supported(index);
		}
		break;
	case SHA1KIT_KERNELS_SHA256_BATCH:
		if (index < sha1kit_sha256_batch_kernel_count) {
			name = sha1kit_sha256_batch_kernels[index].name;
			ok = sha1kit_batch_kernel_supported(&sha1kit_sha256_batch_kernels[index]);
		}
		break;
	}
	if (usable != NULL)
		*usable = ok;
	return name;
}

const char *sha1kit_version(void)
{
	return SHA1KIT_VERSION_STRING;
}
