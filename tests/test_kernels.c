/*
 * test_kernels.c - every plain-SHA-1 kernel this CPU can run, forced through the context's kernel
 * index (an internal switch: src/internal.h is not installed), against the portable kernel and
 * OpenSSL: all lengths 0..4096 at odd offsets, buffers that end at a guard page, random splits, and
 * direct multi-block calls of 0..40 blocks.
 *
 * Which kernels must run is not taken from the library's own probe: it comes from
 * $SHA1KIT_EXPECT_KERNELS (comma-separated; set by the emulation runs, where /proc/cpuinfo shows the
 * host; "portable" alone for a build without accelerated kernels) or else from the flags in
 * /proc/cpuinfo. A kernel that is expected but not supported, or a
 * default choice other than the first expected kernel, fails the test. $SHA1KIT_CPU is removed from
 * the environment before the probe; the SHA1KIT_CPU tests parse values directly, and run this
 * program again with a value set (the child mode, argument --cpu-mask-child).
 */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <cmocka.h>
#include <openssl/sha.h>

#include "internal.h"
#include "sha1kit.h"
#include "test_util.h"

#define SEED 0x6b65726e656c73ull

static char expected[256];
static int expect_avx512; /* AVX-512 F expected: "avx512f" in /proc/cpuinfo or $SHA1KIT_EXPECT_KERNELS */
/* vendor_id, "cpu family" and "model" of /proc/cpuinfo (x86; none under $SHA1KIT_EXPECT_KERNELS) */
static char expect_vendor[32];
static unsigned expect_family, expect_model;

static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == ',' || p[-1] == '\t') &&
		    (p[n] == 0 || p[n] == ' ' || p[n] == ',' || p[n] == '\n'))
			return 1;
	return 0;
}

/* The kernels this machine must run, fastest first, independently of the library's probe. */
static void expected_kernels(void)
{
	const char *env = getenv("SHA1KIT_EXPECT_KERNELS");
	char line[8192];
	FILE *f;

	if (env && *env) {
		/* and the CPU as "VENDOR FAMILY MODEL" (cmake/wine-run.sh, from the host's cpuinfo) */
		const char *cpu = getenv("SHA1KIT_EXPECT_CPU");
		snprintf(expected, sizeof(expected), "%s,portable", env);
		expect_avx512 = SHA1KIT_HAVE_AVX512 && has_word(env, "avx512f");
		if (cpu != NULL &&
		    sscanf(cpu, "%31s %u %u", expect_vendor, &expect_family, &expect_model) != 3)
			expect_vendor[0] = 0;
		return;
	}
	expected[0] = 0;
#ifdef _WIN32
	/* No /proc/cpuinfo: tests/win/wine-run.sh reads the host's and sets the variable. */
	fail_msg("SHA1KIT_EXPECT_KERNELS is not set (tests/win/wine-run.sh sets it from /proc/cpuinfo)");
#endif
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "vendor_id", 9) == 0)
			sscanf(line, "vendor_id : %31s", expect_vendor);
		if (strncmp(line, "cpu family", 10) == 0)
			sscanf(line, "cpu family : %u", &expect_family);
		if (strncmp(line, "model\t", 6) == 0 || strncmp(line, "model :", 7) == 0)
			sscanf(line, "model : %u", &expect_model);
		if (strncmp(line, "flags", 5) == 0) { /* x86 */
			if (SHA1KIT_HAVE_SHANI && has_word(line, "sha_ni"))
				strcat(expected, "shani,");
			if (SHA1KIT_HAVE_AVX2 && has_word(line, "avx2") && has_word(line, "bmi1") &&
			    has_word(line, "bmi2"))
				strcat(expected, "avx2,");
			if (SHA1KIT_HAVE_SSSE3 && has_word(line, "ssse3"))
				strcat(expected, "ssse3,");
			expect_avx512 =
			    SHA1KIT_HAVE_AVX512 && has_word(line, "avx512f") && has_word(line, "avx512bw");
			break;
		}
		if (strncmp(line, "Features", 8) == 0) { /* arm64 */
			if (SHA1KIT_HAVE_ARMV8 && has_word(line, "sha1"))
				strcat(expected, "armv8,");
			break;
		}
	}
	if (f)
		fclose(f);
	strcat(expected, "portable");
}

static int find_kernel(const char *name)
{
	for (uint32_t i = 0; i < sha1kit_kernel_count; i++)
		if (strcmp(sha1kit_kernels[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Intel 6/207: the SHA-NI kernels with the SSE2 expansion of groups 8..19 (src/dispatch.c) */
static int expect_rol2(void)
{
	return strcmp(expect_vendor, "GenuineIntel") == 0 && expect_family == 6 && expect_model == 207;
}

static void test_expected_kernels_run(void **state)
{
	char list[256], *save = NULL;
	int first = 1;
	(void)state;
	expected_kernels();
	print_message("expected kernels: %s; default: %s\n", expected, sha1kit_kernel_name());
	memcpy(list, expected, sizeof(list));
	for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (strcmp(name, "avx512f") == 0) /* a feature (expect_avx512), not a kernel of the table */
			continue;
		int k = find_kernel(name);
		if (k < 0)
			fail_msg("kernel %s is expected on this CPU but not built", name);
		if (!sha1kit_kernel_supported((uint32_t)k))
			fail_msg("kernel %s is expected on this CPU but the probe rejects it", name);
		/* shani-rol2 goes with shani and AVX2 (src/dispatch.c) */
		const int rol2 = strcmp(name, "shani") == 0 && has_word(expected, "avx2");
		if (first)
			assert_string_equal(sha1kit_kernel_name(),
			                    expect_rol2() && rol2 ? "shani-rol2" : name);
		if (rol2 && (find_kernel("shani-rol2") < 0 ||
		             !sha1kit_kernel_supported((uint32_t)find_kernel("shani-rol2"))))
			fail_msg("kernel shani-rol2 goes with shani and avx2 but is not built or the probe "
			         "rejects it");
		first = 0;
	}
	/* the SHA-1DC kernel follows from the same features */
	{
		const char *dc = "portable";
		int shani = has_word(expected, "shani"), avx2 = has_word(expected, "avx2");
		if (shani && avx2 && expect_avx512)
			dc = "shani+avx512";
		else if (shani && avx2)
			dc = "shani+avx2";
		else if (shani && SHA1KIT_HAVE_SSE2)
			dc = "shani+sse2";
		else if (avx2 && expect_avx512)
			dc = "avx2+avx512";
		else if (avx2)
			dc = SHA1KIT_HAVE_DC_AVX2 ? "avx2" : "portable+avx2";
		else if (has_word(expected, "ssse3") && SHA1KIT_HAVE_SSE2)
			dc = "portable+sse2";
		else if (has_word(expected, "armv8"))
			dc = "armv8";
		/* Zen 4 and Zen 5: the filter steps between the SHA-NI blocks (src/dispatch.c) */
		if (strcmp(expect_vendor, "AuthenticAMD") == 0 &&
		    (expect_family == 25 || expect_family == 26) && strcmp(dc, "shani+avx512") == 0)
			dc = "shani+avx512-pipe";
		/* Zen 3 (Milan): the shorter vector part of the AVX2 filter */
		if (strcmp(expect_vendor, "AuthenticAMD") == 0 && expect_family == 25 && expect_model <= 15 &&
		    strcmp(dc, "shani+avx2") == 0)
			dc = "shani+avx2-short";
		if (expect_rol2() && strcmp(dc, "shani+avx512") == 0)
			dc = "shani-rol2+avx512";
		else if (expect_rol2() && strcmp(dc, "shani+avx2") == 0)
			dc = "shani-rol2+avx2";
		assert_string_equal(sha1kit_dc_kernel_name(), dc);
	}
	/* the CPUID decoding agrees with Linux */
	if (expect_vendor[0] != 0 && SHA1KIT_X86) {
		sha1kit_cpu_id id = sha1kit_cpu_ident();
		print_message("cpu: %s family %u model %u\n", expect_vendor, expect_family, expect_model);
		assert_int_equal(id.vendor, strcmp(expect_vendor, "GenuineIntel") == 0 ? SHA1KIT_VENDOR_INTEL
		                            : strcmp(expect_vendor, "AuthenticAMD") == 0
		                                ? SHA1KIT_VENDOR_AMD
		                                : SHA1KIT_VENDOR_OTHER);
		assert_int_equal(id.family, expect_family);
		assert_int_equal(id.model, expect_model);
	}
	/* the batch kernels too (plain SHA-1, SHA-1DC, SHA-256): in table order, those the features
	 * allow, the first is the default */
	static const char *const flavour[3] = {"fast", "dc", "sha256"};
	for (int dc = 0; dc < 3; dc++) {
		const sha1kit_batch_kernel *table = dc == 2   ? sha1kit_sha256_batch_kernels
		                                    : dc == 1 ? sha1kit_dc_batch_kernels
		                                              : sha1kit_fast_batch_kernels;
		uint32_t count = dc == 2   ? sha1kit_sha256_batch_kernel_count
		                 : dc == 1 ? sha1kit_dc_batch_kernel_count
		                           : sha1kit_fast_batch_kernel_count;
		const char *chosen = dc == 2   ? sha1kit_sha256_batch_kernel_name()
		                     : dc == 1 ? sha1kit_dc_batch_kernel_name()
		                               : sha1kit_fast_batch_kernel_name();
		const char *first_expected = NULL;
		for (uint32_t i = 0; i < count; i++) {
			const char *name = table[i].name;
			int want = strcmp(name, "single") == 0 ||
			           (strcmp(name, "avx512x16") == 0 && expect_avx512) ||
			           ((strcmp(name, "shani-x2") == 0 || strcmp(name, "shani") == 0) &&
			            has_word(expected, "shani")) ||
			           (strcmp(name, "avx2x8") == 0 && has_word(expected, "avx2"));
			if (want != sha1kit_batch_kernel_supported(&table[i]))
				fail_msg("%s batch kernel %s: expected %d, probe says %d", flavour[dc], name,
				         want, sha1kit_batch_kernel_supported(&table[i]));
			if (want && !first_expected)
				first_expected = name;
		}
		/* Intel: eight AVX2 lanes before two SHA-NI streams (src/dispatch.c) */
		if (!dc && strcmp(expect_vendor, "GenuineIntel") == 0 &&
		    strcmp(first_expected, "shani-x2") == 0 && has_word(expected, "avx2") &&
		    SHA1KIT_HAVE_AVX2)
			first_expected = "avx2x8";
		/* Zen 3 (Milan): SHA-1DC a message at a time with SHA-NI before eight AVX2 lanes */
		if (dc == 1 && strcmp(expect_vendor, "AuthenticAMD") == 0 && expect_family == 25 &&
		    expect_model <= 15)
			first_expected = "single";
		print_message("%s batch kernel: %s\n", flavour[dc], chosen);
		assert_string_equal(chosen, first_expected);
	}
	if (SHA1KIT_HAVE_AVX512 && SHA1KIT_HAVE_AVX2 && has_word(expected, "avx2") &&
	    !getenv("SHA1KIT_EXPECT_KERNELS"))
		assert_int_equal(expect_avx512, (sha1kit_cpu_features() & SHA1KIT_CPU_AVX512) != 0);
	/* and no kernel runs that the CPU was not expected to have */
	for (uint32_t i = 0; i < sha1kit_kernel_count; i++)
		if (sha1kit_kernel_supported(i) && !has_word(expected, sha1kit_kernels[i].name) &&
		    !(strcmp(sha1kit_kernels[i].name, "shani-rol2") == 0 && has_word(expected, "shani") &&
		      has_word(expected, "avx2")))
			fail_msg("the probe accepts kernel %s, not expected here", sha1kit_kernels[i].name);
}

static void hash_with(uint32_t kernel, const uint8_t *p, size_t len, uint8_t d[20])
{
	sha1kit_fast_ctx ctx;
	sha1kit_fast_init(&ctx);
	ctx.kernel = kernel;
	sha1kit_fast_update(&ctx, p, len);
	assert_int_equal(ctx.kernel, kernel);
	sha1kit_fast_final(&ctx, d);
}

/* Every supported kernel on every length 0..4096 at offsets 0..15, against OpenSSL. */
static void test_all_lengths(void **state)
{
	uint8_t *buf = malloc(4096 + 16), expect[20], d[20];
	tu_rng rng = {SEED};
	uint32_t tested = 0;
	(void)state;
	assert_non_null(buf);
	tu_fill(&rng, buf, 4096 + 16);
	for (uint32_t k = 0; k < sha1kit_kernel_count; k++) {
		if (!sha1kit_kernel_supported(k))
			continue;
		tested++;
		for (size_t len = 0; len <= 4096; len++) {
			size_t off = (len * 7) % 16;
			SHA1(buf + off, len, expect);
			hash_with(k, buf + off, len, d);
			if (memcmp(d, expect, 20) != 0)
				fail_msg("kernel %s: length %zu offset %zu (seed 0x%llx)",
				         sha1kit_kernels[k].name, len, off, (unsigned long long)SEED);
		}
	}
	assert_true(tested >= 1);
	free(buf);
}

/* Direct calls of the block function with 0..40 blocks against the portable kernel, from any
 * starting chaining value. */
static void test_multiblock(void **state)
{
	uint8_t *buf = malloc(64 * 40 + 3);
	tu_rng rng = {SEED ^ 1};
	(void)state;
	assert_non_null(buf);
	tu_fill(&rng, buf, 64 * 40 + 3);
	for (uint32_t k = 0; k < sha1kit_kernel_count; k++) {
		if (!sha1kit_kernel_supported(k))
			continue;
		for (size_t n = 0; n <= 40; n++) {
			uint32_t a[5], b[5];
			for (int i = 0; i < 5; i++)
				a[i] = b[i] = (uint32_t)tu_next(&rng);
			sha1kit_kernels[k].blocks(a, buf + 3, n);
			sha1kit_blocks_portable(b, buf + 3, n);
			if (memcmp(a, b, sizeof(a)) != 0)
				fail_msg("kernel %s: %zu blocks", sha1kit_kernels[k].name, n);
		}
	}
	free(buf);
}

static size_t page_size(void)
{
#ifdef _WIN32
	SYSTEM_INFO si;
	GetSystemInfo(&si);
	return si.dwPageSize;
#else
	return (size_t)sysconf(_SC_PAGESIZE);
#endif
}

/* `span` writable bytes followed by one inaccessible page; NULL on failure. */
static uint8_t *map_guarded(size_t span, size_t page)
{
#ifdef _WIN32
	DWORD old;
	uint8_t *map = VirtualAlloc(NULL, span + page, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
	if (map == NULL || !VirtualProtect(map + span, page, PAGE_NOACCESS, &old))
		return NULL;
#else
	uint8_t *map = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || mprotect(map + span, page, PROT_NONE) != 0)
		return NULL;
#endif
	return map;
}

/* Data that ends exactly at an inaccessible page: a kernel that reads past the end faults. */
static void test_guard_page(void **state)
{
	size_t page = page_size(), span = 2 * page;
	uint8_t *map = map_guarded(span, page);
	uint8_t expect[20], d[20];
	tu_rng rng = {SEED ^ 2};
	(void)state;
	assert_non_null(map);
	tu_fill(&rng, map, span);
	for (uint32_t k = 0; k < sha1kit_kernel_count; k++) {
		if (!sha1kit_kernel_supported(k))
			continue;
		for (size_t len = 0; len <= 300; len++) {
			const uint8_t *p = map + span - len;
			SHA1(p, len, expect);
			hash_with(k, p, len, d);
			assert_memory_equal(d, expect, 20);
		}
		/* a whole multi-block run ending at the guard */
		const uint8_t *p = map + span - 64 * 31;
		uint32_t a[5] = {1, 2, 3, 4, 5}, b[5] = {1, 2, 3, 4, 5};
		sha1kit_kernels[k].blocks(a, p, 31);
		sha1kit_blocks_portable(b, p, 31);
		assert_memory_equal(a, b, sizeof(a));
	}
#ifdef _WIN32
	VirtualFree(map, 0, MEM_RELEASE);
#else
	munmap(map, span + page);
#endif
}

/*
 * The one-shot calls (sha1kit_fast, sha1kit_dc, sha1kit_sha256) read a message's last part block as
 * one 16-byte load ending at its end (src/md_last.c): on data that ends at an inaccessible page and
 * on data that starts right after one, every length 0..300 gives OpenSSL's digest (a read past
 * either end faults). The byte-wise form runs in the aarch64 pass (under qemu).
 */
static void test_oneshot_guards(void **state)
{
	size_t page = page_size(), span = 2 * page;
	/* [guard page][span bytes][guard page]: the second guard from map_guarded, the first here */
	uint8_t *map = map_guarded(span + page, page), *lo;
	uint8_t expect[32], d[32];
	tu_rng rng = {SEED ^ 9};
	(void)state;
	assert_non_null(map);
#ifdef _WIN32
	DWORD old;
	assert_true(VirtualProtect(map, page, PAGE_NOACCESS, &old));
#else
	assert_int_equal(mprotect(map, page, PROT_NONE), 0);
#endif
	lo = map + page;
	tu_fill(&rng, lo, span);
	for (size_t len = 0; len <= 300; len++) {
		const uint8_t *at[2] = {lo + span - len, lo};
		for (int w = 0; w < 2; w++) {
			SHA1(at[w], len, expect);
			sha1kit_fast(at[w], len, d);
			if (memcmp(d, expect, 20) != 0)
				fail_msg("sha1kit_fast: length %zu, %s a guard page", len,
				         w ? "after" : "before");
			assert_int_equal(sha1kit_dc(at[w], len, NULL, d, NULL), SHA1KIT_DC_NO_COLLISION);
			if (memcmp(d, expect, 20) != 0)
				fail_msg("sha1kit_dc: length %zu, %s a guard page", len,
				         w ? "after" : "before");
			SHA256(at[w], len, expect);
			sha1kit_sha256(at[w], len, d);
			if (memcmp(d, expect, 32) != 0)
				fail_msg("sha1kit_sha256: length %zu, %s a guard page", len,
				         w ? "after" : "before");
		}
	}
#ifdef _WIN32
	VirtualFree(map, 0, MEM_RELEASE);
#else
	munmap(map, span + 2 * page);
#endif
}

/* Random splits of one stream give the same digest with every kernel. */
static void test_random_splits(void **state)
{
	const size_t len = 20000;
	uint8_t *buf = malloc(len), expect[20], d[20];
	tu_rng rng = {SEED ^ 3};
	(void)state;
	assert_non_null(buf);
	tu_fill(&rng, buf, len);
	SHA1(buf, len, expect);
	for (uint32_t k = 0; k < sha1kit_kernel_count; k++) {
		if (!sha1kit_kernel_supported(k))
			continue;
		for (int round = 0; round < 20; round++) {
			uint64_t seed = rng.s;
			sha1kit_fast_ctx ctx;
			sha1kit_fast_init(&ctx);
			ctx.kernel = k;
			for (size_t i = 0; i < len;) {
				size_t n = (size_t)(tu_next(&rng) % 700);
				if (n > len - i)
					n = len - i;
				sha1kit_fast_update(&ctx, buf + i, n);
				i += n;
			}
			sha1kit_fast_final(&ctx, d);
			if (memcmp(d, expect, 20) != 0)
				fail_msg("kernel %s: random splits, seed 0x%llx", sha1kit_kernels[k].name,
				         (unsigned long long)seed);
		}
	}
	free(buf);
}

/* Batches of 0..40 messages of mixed lengths (0 included, long and short side by side, so lanes
 * refill at different times; every lane count of the lanes kernels) on every batch kernel this CPU
 * runs equal OpenSSL, and nothing past the n digests is written. */
static void test_batch(void **state)
{
	const size_t max = 70000;
	uint8_t *buf = malloc(max), digests[40 * 20], expect[40][20];
	sha1kit_msg msgs[40];
	tu_rng rng = {SEED ^ 4};
	int kernels = 0;
	(void)state;
	assert_non_null(buf);
	tu_fill(&rng, buf, max);
	for (int round = 0; round < 4; round++)
		for (size_t n = 0; n <= 40; n++) {
			uint64_t seed = rng.s;
			for (size_t i = 0; i < n; i++) {
				uint64_t r = tu_next(&rng);
				size_t len = (r & 3) == 0   ? 0
				             : (r & 3) == 1 ? (size_t)(r >> 8) % 130
				                            : (size_t)(r >> 8) % 5000;
				if (i == 7)
					len = 65536 + (size_t)(r >> 40) % 64;
				msgs[i].data = len ? buf + (size_t)(r >> 20) % (max - len) : NULL;
				msgs[i].len = len;
				SHA1(msgs[i].data ? msgs[i].data : (const void *)"", len, expect[i]);
			}
			for (uint32_t k = 0; k < sha1kit_fast_batch_kernel_count; k++) {
				if (!sha1kit_batch_kernel_supported(&sha1kit_fast_batch_kernels[k]))
					continue;
				kernels += round == 0 && n == 0;
				memset(digests, 0xaa, sizeof(digests));
				if (k == sha1kit_select_fast_batch_kernel() && (n & 1))
					sha1kit_fast_batch(msgs, n, digests);
				else
					sha1kit_fast_batch_with(k, msgs, n, digests);
				for (size_t i = 0; i < n; i++)
					if (memcmp(digests + 20 * i, expect[i], 20) != 0)
						fail_msg("batch kernel %s: batch of %zu, message %zu (length "
						         "%zu), "
						         "seed 0x%llx",
						         sha1kit_fast_batch_kernels[k].name, n, i,
						         msgs[i].len, (unsigned long long)seed);
				for (size_t i = 20 * n; i < sizeof(digests); i++)
					assert_int_equal(digests[i], 0xaa);
			}
		}
	assert_true(kernels >= 1);
	free(buf);
}

/* ---- SHA1KIT_CPU ------------------------------------------------------------------------------- */

#define KNOWN " (known: sse2, ssse3, sse4.1, avx2, bmi2, avx512, shani, armv8-sha1, armv8-sha2, all)"

/* sha1kit_cpu_mask_parse(value) returns `rc` with *masked_off == `mask` and the message `msg`. */
static void parse_is(const char *value, int rc, uint32_t mask, const char *msg)
{
	char buf[512];
	uint32_t got = 0xdeadbeef;
	memset(buf, 'x', sizeof(buf));
	int r = sha1kit_cpu_mask_parse(value, &got, buf, sizeof(buf));
	if (r != rc || got != mask || strcmp(buf, msg) != 0)
		fail_msg("SHA1KIT_CPU='%s': got %d 0x%x '%s', expected %d 0x%x '%s'",
		         value ? value : "(unset)", r, got, buf, rc, mask, msg);
}

static void test_cpu_mask_parse(void **state)
{
	const uint32_t SSE41_UP = SHA1KIT_CPU_SSE41 | SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_AVX512 | SHA1KIT_CPU_SHA;
	(void)state;
	/* nothing off */
	parse_is(NULL, 0, 0, "");
	parse_is("", 0, 0, "");
	parse_is(" \t\n ", 0, 0, "");
	/* valid lists, blanks around entries */
	parse_is("-shani", 0, SHA1KIT_CPU_SHA, "");
	parse_is("-shani,-avx512", 0, SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX512, "");
	parse_is(" -shani ,\t-avx512 ", 0, SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX512, "");
	parse_is("-shani,-shani", 0, SHA1KIT_CPU_SHA, "");
	parse_is("-bmi2", 0, SHA1KIT_CPU_BMI2, "");
	parse_is("-armv8-sha1", 0, SHA1KIT_CPU_ARM_SHA1, "");
	parse_is("-armv8-sha2", 0, SHA1KIT_CPU_ARM_SHA2, "");
	parse_is("-avx512", 0, SHA1KIT_CPU_AVX512, "");
	parse_is("-all", 0, SHA1KIT_CPU_ALL, "");
	parse_is("-shani,-all", 0, SHA1KIT_CPU_ALL, "");
	/* features built on the one turned off go with it */
	parse_is("-avx2", 0, SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_AVX512, "");
	parse_is("-sse4.1", 0, SSE41_UP, "");
	parse_is("-ssse3", 0, SHA1KIT_CPU_SSSE3 | SSE41_UP, "");
	parse_is("-sse2", 0, SHA1KIT_CPU_SSE2 | SHA1KIT_CPU_SSSE3 | SSE41_UP, "");
	/* every name, and only the names (no prefixes, no other case) */
	for (int i = 0; i < SHA1KIT_CPU_COUNT; i++) {
		char v[64];
		uint32_t m;
		assert_non_null(sha1kit_cpu_feature_name(i));
		snprintf(v, sizeof(v), "-%s", sha1kit_cpu_feature_name(i));
		assert_int_equal(sha1kit_cpu_mask_parse(v, &m, NULL, 0), 0);
		assert_true(m & (1u << i));
		v[strlen(v) - 1] = 0;
		assert_int_equal(sha1kit_cpu_mask_parse(v, &m, NULL, 0), -1);
	}
	parse_is("-SHANI", -1, 0, "unknown feature 'SHANI'" KNOWN);
	parse_is("-shanix", -1, 0, "unknown feature 'shanix'" KNOWN);
	parse_is("-sha", -1, 0, "unknown feature 'sha'" KNOWN);
	/* unknown names; the valid entries still count, the first bad entry is named */
	parse_is("-bogus", -1, 0, "unknown feature 'bogus'" KNOWN);
	parse_is("-shani,-bogus,-avx512", -1, SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX512,
	         "unknown feature 'bogus'" KNOWN);
	parse_is("-bogus,+shani", -1, 0, "unknown feature 'bogus'" KNOWN);
	parse_is("-", -1, 0, "'-' names no feature in '-'" KNOWN);
	parse_is("- shani", -1, 0, "unknown feature ' shani'" KNOWN);
	/* it can only remove */
	parse_is("+shani", -1, 0, "'+shani': features can only be turned off, as in '-shani'" KNOWN);
	parse_is("-avx2,+shani", -1, SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_AVX512,
	         "'+shani': features can only be turned off, as in '-shani'" KNOWN);
	parse_is("shani", -1, 0, "'shani': features can only be turned off, as in '-shani'" KNOWN);
	parse_is("~0", -1, 0, "'~0': features can only be turned off, as in '-~0'" KNOWN);
	/* empty entries */
	parse_is("-shani,", -1, SHA1KIT_CPU_SHA, "empty entry in '-shani,'" KNOWN);
	parse_is(",-shani", -1, SHA1KIT_CPU_SHA, "empty entry in ',-shani'" KNOWN);
	parse_is("-shani, ,-avx512", -1, SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX512,
	         "empty entry in '-shani, ,-avx512'" KNOWN);
	/* one line: control characters shown as '?', long entries cut */
	parse_is("-bo\ngus\x7f", -1, 0, "unknown feature 'bo?gus?'" KNOWN);
	parse_is("-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	         -1, 0, "unknown feature 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'" KNOWN);
	/* the message buffer: truncated and terminated; NULL arguments */
	{
		char small[12];
		uint32_t m = 1;
		memset(small, 'x', sizeof(small));
		assert_int_equal(sha1kit_cpu_mask_parse("-bogus", &m, small, sizeof(small)), -1);
		assert_string_equal(small, "unknown fea");
		assert_int_equal(m, 0);
		small[0] = 'x';
		assert_int_equal(sha1kit_cpu_mask_parse("-bogus", NULL, small, 1), -1);
		assert_int_equal(small[0], 0);
		assert_int_equal(sha1kit_cpu_mask_parse("-bogus", NULL, NULL, 0), -1);
		assert_int_equal(sha1kit_cpu_mask_parse("-shani", NULL, NULL, 0), 0);
	}
}

/* The names and bits of the public API, and the state of this process (SHA1KIT_CPU unset). */
static void test_cpu_features(void **state)
{
	uint32_t off = 0xdeadbeef;
	(void)state;
	assert_string_equal(sha1kit_cpu_feature_name(0), "sse2");
	assert_null(sha1kit_cpu_feature_name(-1));
	assert_null(sha1kit_cpu_feature_name(SHA1KIT_CPU_COUNT));
	assert_null(sha1kit_cpu_feature_name(31));
	assert_null(sha1kit_cpu_feature_name(32));
	for (int i = 0; i < SHA1KIT_CPU_COUNT; i++)
		for (int j = 0; j < i; j++)
			assert_string_not_equal(sha1kit_cpu_feature_name(i), sha1kit_cpu_feature_name(j));
	assert_string_equal(sha1kit_cpu_feature_name(sha1kit_ctz32(SHA1KIT_CPU_SSSE3)), "ssse3");
	assert_string_equal(sha1kit_cpu_feature_name(sha1kit_ctz32(SHA1KIT_CPU_SSE41)), "sse4.1");
	assert_string_equal(sha1kit_cpu_feature_name(sha1kit_ctz32(SHA1KIT_CPU_AVX2)), "avx2");
	assert_string_equal(sha1kit_cpu_feature_name(sha1kit_ctz32(SHA1KIT_CPU_BMI2)), "bmi2");
	assert_string_equal(sha1kit_cpu_feature_name(sha1kit_ctz32(SHA1KIT_CPU_AVX512)), "avx512");
	assert_string_equal(sha1kit_cpu_feature_name(sha1kit_ctz32(SHA1KIT_CPU_SHA)), "shani");
	assert_string_equal(sha1kit_cpu_feature_name(sha1kit_ctz32(SHA1KIT_CPU_ARM_SHA1)), "armv8-sha1");
	assert_string_equal(sha1kit_cpu_feature_name(sha1kit_ctz32(SHA1KIT_CPU_ARM_SHA2)), "armv8-sha2");
	assert_int_equal(sha1kit_cpu_mask(&off), 0);
	assert_int_equal(off, 0);
	assert_int_equal(sha1kit_cpu_mask(NULL), 0);
	assert_int_equal(sha1kit_cpu_features_detected(), sha1kit_cpu_features());
	assert_int_equal(sha1kit_cpu_features_detected() & ~SHA1KIT_CPU_ALL, 0);
}

static const char *self_path; /* this program, for the child runs */

/* The child mode: the mask state, the features and the kernels of a process with $SHA1KIT_CPU. */
static int cpu_mask_child(void)
{
	uint32_t off;
	int st = sha1kit_cpu_mask(&off);
	printf("%d %x %x %x %s %s %s %s %s\n", st, (unsigned)off, (unsigned)sha1kit_cpu_features_detected(),
	       (unsigned)sha1kit_cpu_features(), sha1kit_kernel_name(), sha1kit_dc_kernel_name(),
	       sha1kit_fast_batch_kernel_name(), sha1kit_dc_batch_kernel_name(),
	       sha1kit_sha256_kernel_name());
	return 0;
}

struct child_result {
	int state;
	unsigned off, detected, features;
	char kernel[32], dc[32], batch[32], dc_batch[32], sha256[32];
};

/* Run this program in the child mode with SHA1KIT_CPU=value; 0 when it ran and answered. */
#ifdef _WIN32
/* Windows: no fork; the child inherits the variable, set here for the moment of _popen (this
 * process probed the CPU long before, and the probe is cached). */
static int run_child(const char *value, struct child_result *r)
{
	char cmd[MAX_PATH + 64], out[512];
	size_t got = 0, n;
	FILE *p;
	/* An empty value removes the variable on Windows: a blank is also "nothing off". */
	if (_putenv_s("SHA1KIT_CPU", *value ? value : " ") != 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "\"%s\" --cpu-mask-child", self_path);
	p = _popen(cmd, "r");
	_putenv_s("SHA1KIT_CPU", "");
	if (p == NULL)
		return -1;
	while (got + 1 < sizeof(out) && (n = fread(out + got, 1, sizeof(out) - 1 - got, p)) > 0)
		got += n;
	out[got] = 0;
	if (_pclose(p) != 0)
		return -1;
	return sscanf(out, "%d %x %x %x %31s %31s %31s %31s %31s", &r->state, &r->off, &r->detected,
	              &r->features, r->kernel, r->dc, r->batch, r->dc_batch, r->sha256) == 9
	           ? 0
	           : -1;
}
#else
static int run_child(const char *value, struct child_result *r)
{
	int fd[2], status;
	char out[512];
	ssize_t n, got = 0;
	if (pipe(fd) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		setenv("SHA1KIT_CPU", value, 1);
		execl(self_path, self_path, "--cpu-mask-child", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (got + 1 < (ssize_t)sizeof(out) &&
	       (n = read(fd[0], out + got, sizeof(out) - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = 0;
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return sscanf(out, "%d %x %x %x %31s %31s %31s %31s %31s", &r->state, &r->off, &r->detected,
	              &r->features, r->kernel, r->dc, r->batch, r->dc_batch, r->sha256) == 9
	           ? 0
	           : -1;
}
#endif

/* The probe applies $SHA1KIT_CPU: features = detected & ~mask, kernels chosen from them. */
static void test_cpu_mask_applied(void **state)
{
	struct child_result r;
	uint32_t detected = sha1kit_cpu_features_detected();
	(void)state;
	if (run_child("", &r) != 0) {
		print_message("cannot run %s again (emulator without binfmt?): not tested here\n", self_path);
		skip();
	}
	assert_int_equal(r.state, 1);
	assert_int_equal(r.off, 0);
	assert_int_equal(r.features, r.detected);
	if (r.detected == detected) {
		assert_string_equal(r.kernel, sha1kit_kernel_name());
		assert_string_equal(r.dc, sha1kit_dc_kernel_name());
		assert_string_equal(r.sha256, sha1kit_sha256_kernel_name());
	} else { /* under qemu-user the child runs on the host */
		print_message("the child runs on another CPU (features 0x%x, here 0x%x)\n", r.detected,
		              detected);
		detected = r.detected;
	}

	assert_int_equal(run_child(" -shani , -avx512", &r), 0);
	assert_int_equal(r.state, 1);
	assert_int_equal(r.off, SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX512);
	assert_int_equal(r.features, detected & ~(SHA1KIT_CPU_SHA | SHA1KIT_CPU_AVX512));
	assert_string_not_equal(r.kernel, "shani");
	assert_string_not_equal(r.sha256, "shani"); /* SHA-256 falls back too (one CPUID bit for both) */
	assert_null(strstr(r.dc, "shani"));
	assert_null(strstr(r.dc, "avx512"));
	assert_string_not_equal(r.batch, "shani-x2");
	assert_string_not_equal(r.batch, "avx512x16");
	assert_string_not_equal(r.dc_batch, "avx512x16");

	/* invalid: the valid entries are applied, the state says so */
	assert_int_equal(run_child("-avx2,-bogus", &r), 0);
	assert_int_equal(r.state, -1);
	assert_int_equal(r.off, SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_AVX512);
	assert_int_equal(r.features, detected & ~(SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_AVX512));
	assert_null(strstr(r.kernel, "avx2"));
	assert_null(strstr(r.dc, "avx"));
	assert_string_equal(r.dc_batch, "single");

	assert_int_equal(run_child("+shani", &r), 0);
	assert_int_equal(r.state, -1);
	assert_int_equal(r.off, 0);
	assert_int_equal(r.features, detected);

	assert_int_equal(run_child("-all", &r), 0);
	assert_int_equal(r.state, 1);
	assert_int_equal(r.off, SHA1KIT_CPU_ALL);
	assert_int_equal(r.features, 0);
	assert_string_equal(r.kernel, "portable");
	assert_string_equal(r.dc, "portable");
	assert_string_equal(r.batch, "single");
	assert_string_equal(r.dc_batch, "single");
	assert_string_equal(r.sha256, "portable");

	/* the arm64 SHA256 instructions alone: the SHA-1 kernels keep theirs */
	assert_int_equal(run_child("-armv8-sha2", &r), 0);
	assert_int_equal(r.state, 1);
	assert_int_equal(r.off, SHA1KIT_CPU_ARM_SHA2);
	assert_int_equal(r.features, detected & ~SHA1KIT_CPU_ARM_SHA2);
	assert_string_not_equal(r.sha256, "armv8");
	if ((detected & SHA1KIT_CPU_SHA) && SHA1KIT_HAVE_SHANI)
		assert_string_equal(r.sha256, "shani");
}

/* ---- kernel preferences by CPU (src/dispatch.c) on synthetic CPUs ---- */

#define F_NEHALEM  (SHA1KIT_CPU_SSE2 | SHA1KIT_CPU_SSSE3 | SHA1KIT_CPU_SSE41)
#define F_HASWELL  (F_NEHALEM | SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_BMI2)
#define F_SHA_AVX2 (F_HASWELL | SHA1KIT_CPU_SHA)     /* Zen 3, Alder Lake */
#define F_ALL_X86  (F_SHA_AVX2 | SHA1KIT_CPU_AVX512) /* Zen 4, Zen 5, Sapphire Rapids */

struct synthetic_cpu {
	const char *what;
	sha1kit_cpu_id id;
	uint32_t features;
	const char *fast, *dc, *fast_batch, *dc_batch;
	const char *ahead_kernel; /* NULL: no ahead_min of its own */
	unsigned ahead_min;
};

static void check_choice(const struct synthetic_cpu *c)
{
	sha1kit_kernel_choice k;
	sha1kit_choose_kernels(sha1kit_cpu_pref_find(&c->id), c->features, &k);
	print_message("%-32s fast %s, dc %s, batch %s, dc batch %s\n", c->what, sha1kit_kernels[k.fast].name,
	              sha1kit_dc_kernels[k.dc].name, sha1kit_fast_batch_kernels[k.fast_batch].name,
	              sha1kit_dc_batch_kernels[k.dc_batch].name);
	assert_string_equal(sha1kit_kernels[k.fast].name, c->fast);
	assert_string_equal(sha1kit_dc_kernels[k.dc].name, c->dc);
	assert_string_equal(sha1kit_fast_batch_kernels[k.fast_batch].name, c->fast_batch);
	assert_string_equal(sha1kit_dc_batch_kernels[k.dc_batch].name, c->dc_batch);
	if (c->ahead_kernel) {
		assert_true(k.ahead_kernel < sha1kit_dc_kernel_count);
		assert_string_equal(sha1kit_dc_kernels[k.ahead_kernel].name, c->ahead_kernel);
		assert_int_equal(k.ahead_min, c->ahead_min);
	} else {
		assert_int_equal(k.ahead_kernel, sha1kit_dc_kernel_count);
		assert_int_equal(k.ahead_min, 0);
	}
}

/* In any build, on every entry and feature set: the choice runs on those features, and a
 * preferred kernel that the build has and the features allow is the one chosen. */
static void check_choice_rules(const sha1kit_cpu_pref *p, uint32_t features)
{
	sha1kit_kernel_choice k;
	sha1kit_choose_kernels(p, features, &k);
	assert_true(k.fast < sha1kit_kernel_count && k.dc < sha1kit_dc_kernel_count);
	assert_int_equal(sha1kit_kernels[k.fast].needs & ~features, 0);
	assert_int_equal(sha1kit_dc_kernels[k.dc].needs & ~features, 0);
	assert_int_equal(sha1kit_fast_batch_kernels[k.fast_batch].needs & ~features, 0);
	assert_int_equal(sha1kit_dc_batch_kernels[k.dc_batch].needs & ~features, 0);
	for (int i = 0; i < SHA1KIT_PREF_MAX && p->dc[i]; i++) {
		uint32_t j = 0;
		while (j < sha1kit_dc_kernel_count && strcmp(sha1kit_dc_kernels[j].name, p->dc[i]) != 0)
			j++;
		if (j < sha1kit_dc_kernel_count && (sha1kit_dc_kernels[j].needs & ~features) == 0) {
			assert_string_equal(sha1kit_dc_kernels[k.dc].name, p->dc[i]);
			break;
		}
	}
	if (features == 0) {
		assert_string_equal(sha1kit_kernels[k.fast].name, "portable");
		assert_string_equal(sha1kit_dc_kernels[k.dc].name, "portable");
		assert_string_equal(sha1kit_fast_batch_kernels[k.fast_batch].name, "single");
		assert_string_equal(sha1kit_dc_batch_kernels[k.dc_batch].name, "single");
	}
}

static void test_cpu_prefs(void **state)
{
	(void)state;
	const sha1kit_cpu_id zen4 = {SHA1KIT_VENDOR_AMD, 25, 17}, zen5 = {SHA1KIT_VENDOR_AMD, 26, 2},
	                     xeon = {SHA1KIT_VENDOR_INTEL, 6, 207}, via = {SHA1KIT_VENDOR_OTHER, 6, 15},
	                     zen2 = {SHA1KIT_VENDOR_AMD, 23, 49};
	/* the entries each CPU falls under */
	assert_int_equal(sha1kit_cpu_pref_find(&zen4)->family, 25);
	assert_int_equal(sha1kit_cpu_pref_find(&zen5)->family, 26);
	assert_int_equal(sha1kit_cpu_pref_find(&xeon)->vendor, SHA1KIT_VENDOR_INTEL);
	assert_ptr_equal(sha1kit_cpu_pref_find(&via), &sha1kit_cpu_prefs[sha1kit_cpu_pref_count - 1]);
	assert_ptr_equal(sha1kit_cpu_pref_find(&zen2), &sha1kit_cpu_prefs[sha1kit_cpu_pref_count - 1]);
	for (uint32_t i = 0; i < sha1kit_cpu_pref_count; i++) {
		const sha1kit_cpu_pref *p = &sha1kit_cpu_prefs[i];
		assert_non_null(p->basis);
		assert_true(p->ahead_kernel == NULL || p->ahead_min > 0);
		const uint32_t sets[] = {0,
		                         SHA1KIT_CPU_SSE2,
		                         F_NEHALEM,
		                         F_HASWELL,
		                         F_SHA_AVX2,
		                         F_ALL_X86,
		                         F_ALL_X86 & ~SHA1KIT_CPU_SHA,
		                         SHA1KIT_CPU_ARM_SHA1};
		for (size_t j = 0; j < sizeof(sets) / sizeof(sets[0]); j++)
			check_choice_rules(p, sets[j]);
	}
	/* the last entry matches anything and changes nothing */
	assert_int_equal(sha1kit_cpu_prefs[sha1kit_cpu_pref_count - 1].vendor, SHA1KIT_VENDOR_OTHER);
	assert_int_equal(sha1kit_cpu_prefs[sha1kit_cpu_pref_count - 1].family, 0);
#if SHA1KIT_HAVE_SHANI && SHA1KIT_HAVE_AVX2 && SHA1KIT_HAVE_AVX512 && SHA1KIT_HAVE_SSSE3 && SHA1KIT_HAVE_SSE2
	/* every x86 kernel built: the choices docs/PERFORMANCE.md ("Kernel choice by CPU") gives */
	const struct synthetic_cpu cpus[] = {
	    {"Zen 4 (AMD 25/17)", zen4, F_ALL_X86, "shani", "shani+avx512-pipe", "avx512x16", "avx512x16",
	     NULL, 0},
	    {"Zen 4, SHA1KIT_CPU=-avx512", zen4, F_SHA_AVX2, "shani", "shani+avx2", "shani-x2", "avx2x8",
	     NULL, 0},
	    {"Zen 4, SHA1KIT_CPU=-shani", zen4, F_ALL_X86 & ~SHA1KIT_CPU_SHA, "avx2", "avx2+avx512",
	     "avx512x16", "avx512x16", NULL, 0},
	    {"Zen 3 (AMD 25/1)",
	     {SHA1KIT_VENDOR_AMD, 25, 1},
	     F_SHA_AVX2,
	     "shani",
	     "shani+avx2-short",
	     "shani-x2",
	     "single",
	     NULL,
	     0},
	    {"Zen 3 (AMD 25/33)",
	     {SHA1KIT_VENDOR_AMD, 25, 33},
	     F_SHA_AVX2,
	     "shani",
	     "shani+avx2",
	     "shani-x2",
	     "avx2x8",
	     NULL,
	     0},
	    {"Zen 5 (AMD 26/2)", zen5, F_ALL_X86, "shani", "shani+avx512-pipe", "avx512x16", "avx512x16",
	     "shani+avx512", 32},
	    {"Zen 5, SHA1KIT_CPU=-avx512", zen5, F_SHA_AVX2, "shani", "shani+avx2", "shani-x2", "avx2x8",
	     "shani+avx512", 32},
	    {"Zen 2 (AMD 23/49)", zen2, F_SHA_AVX2, "shani", "shani+avx2", "shani-x2", "avx2x8", NULL, 0},
	    {"Xeon (Intel 6/207)", xeon, F_ALL_X86, "shani-rol2", "shani-rol2+avx512", "avx512x16",
	     "avx512x16", NULL, 0},
	    {"Xeon (Intel 6/207), SHA1KIT_CPU=-avx512", xeon, F_SHA_AVX2, "shani-rol2", "shani-rol2+avx2",
	     "avx2x8", "avx2x8", NULL, 0},
	    {"Intel SHA-NI, AVX2 (6/151)",
	     {SHA1KIT_VENDOR_INTEL, 6, 151},
	     F_SHA_AVX2,
	     "shani",
	     "shani+avx2",
	     "avx2x8",
	     "avx2x8",
	     NULL,
	     0},
	    {"Intel, no SHA-NI (6/60)",
	     {SHA1KIT_VENDOR_INTEL, 6, 60},
	     F_HASWELL,
	     "avx2",
	     SHA1KIT_HAVE_DC_AVX2 ? "avx2" : "portable+avx2",
	     "avx2x8",
	     "avx2x8",
	     NULL,
	     0},
	    {"Intel, no SHA-NI (6/85)",
	     {SHA1KIT_VENDOR_INTEL, 6, 85},
	     F_ALL_X86 & ~SHA1KIT_CPU_SHA,
	     "avx2",
	     "avx2+avx512",
	     "avx512x16",
	     "avx512x16",
	     NULL,
	     0},
	    {"Intel Nehalem (6/26)",
	     {SHA1KIT_VENDOR_INTEL, 6, 26},
	     F_NEHALEM,
	     "ssse3",
	     "portable+sse2",
	     "single",
	     "single",
	     NULL,
	     0},
	    {"other vendor, SHA-NI, AVX2", via, F_SHA_AVX2, "shani", "shani+avx2", "shani-x2", "avx2x8", NULL,
	     0},
	    {"any CPU, SHA1KIT_CPU=-all", xeon, 0, "portable", "portable", "single", "single", NULL, 0},
	};
#else
	/* not every x86 kernel built: the choices that hold in any build */
	const struct synthetic_cpu cpus[] = {
	    {"any CPU, SHA1KIT_CPU=-all", xeon, 0, "portable", "portable", "single", "single", NULL, 0},
	    {"Zen 4, SHA1KIT_CPU=-all", zen4, 0, "portable", "portable", "single", "single", NULL, 0},
	};
	print_message(
	    "not every x86 kernel is built: the other named choices are checked in the full build\n");
#endif
	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++)
		check_choice(&cpus[i]);
	/* this CPU: the library's choice is the table's for its id and features */
	sha1kit_cpu_id id = sha1kit_cpu_ident();
	sha1kit_kernel_choice k;
	sha1kit_choose_kernels(sha1kit_cpu_pref_find(&id), sha1kit_cpu_features(), &k);
	assert_int_equal(k.fast, sha1kit_select_fast_kernel());
	assert_int_equal(k.dc, sha1kit_select_dc_kernel());
	assert_int_equal(k.fast_batch, sha1kit_select_fast_batch_kernel());
	assert_int_equal(k.dc_batch, sha1kit_select_dc_batch_kernel());
	for (uint32_t i = 0; i < sha1kit_dc_kernel_count; i++)
		assert_int_equal(sha1kit_dc_ahead_min(i),
		                 i == k.ahead_kernel ? k.ahead_min : sha1kit_dc_kernels[i].ahead_min);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_expected_kernels_run),
	    cmocka_unit_test(test_all_lengths),
	    cmocka_unit_test(test_multiblock),
	    cmocka_unit_test(test_guard_page),
	    cmocka_unit_test(test_oneshot_guards),
	    cmocka_unit_test(test_random_splits),
	    cmocka_unit_test(test_batch),
	    cmocka_unit_test(test_cpu_mask_parse),
	    cmocka_unit_test(test_cpu_features),
	    cmocka_unit_test(test_cpu_mask_applied),
	    cmocka_unit_test(test_cpu_prefs),
	};
	if (argc == 2 && strcmp(argv[1], "--cpu-mask-child") == 0)
		return cpu_mask_child();
#ifdef _WIN32
	static char self[MAX_PATH];
	/* The expected kernels are those of the CPU: no mask (before anything probes). */
	_putenv_s("SHA1KIT_CPU", "");
	/* argv[0] may lack the directory or the .exe */
	DWORD len = GetModuleFileNameA(NULL, self, sizeof(self));
	self_path = len > 0 && len < sizeof(self) ? self : argv[0];
#else
	/* The expected kernels are those of the CPU: no mask (before anything probes). */
	unsetenv("SHA1KIT_CPU");
	self_path = argc > 0 ? argv[0] : "";
#endif
	return cmocka_run_group_tests(tests, NULL, NULL);
}
