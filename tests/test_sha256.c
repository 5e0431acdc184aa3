/*
 * test_sha256.c - SHA-256: FIPS 180-4 / NIST example vectors, and every SHA-256 kernel this CPU can
 * run (forced through the context's kernel index) against OpenSSL's SHA256() as oracle: every
 * length 0..4096 at offsets 0..15, two- and three-part splits around every block boundary, random
 * splits, direct multi-block calls from random chaining values, data that ends at a guard page;
 * context copies and reuse, the batch call on every batch kernel, the public kernel choice (sha1kit_kernel_at
 * / sha1kit_sha256_init_on) and the expected default kernel.
 *
 * Which kernels must run comes, as in test_kernels.c, from $SHA1KIT_EXPECT_KERNELS (the emulation,
 * cross and Wine runs: "shani" or "armv8" in the list means that kernel, for SHA-256 too) or else
 * from /proc/cpuinfo ("sha_ni" on x86, "sha2" on arm64), never from the library's own probe.
 * $SHA1KIT_CPU is removed from the environment before the probe (test_kernels.c runs the masks).
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
#include <unistd.h>
#endif

#include <cmocka.h>
#include <openssl/sha.h>

#include "internal.h"
#include "sha1kit.h"
#include "test_util.h"

#define SEED 0x5348413235360aull
#define DS   SHA1KIT_SHA256_DIGEST_SIZE

static void hex_equal(const uint8_t digest[DS], const char *expect)
{
	char hex[2 * DS + 1];
	tu_hex(digest, DS, hex);
	assert_string_equal(hex, expect);
}

/* Hash with SHA-256 kernel `kernel` in the given parts (lengths summing to len). */
static void hash_parts(uint32_t kernel, const uint8_t *p, const size_t *parts, int nparts, uint8_t d[DS])
{
	sha1kit_sha256_ctx ctx;
	assert_int_equal(sha1kit_sha256_init_on(&ctx, kernel), 0);
	for (int i = 0; i < nparts; i++) {
		sha1kit_sha256_update(&ctx, p, parts[i]);
		p += parts[i];
	}
	assert_int_equal(ctx.kernel, kernel);
	sha1kit_sha256_final(&ctx, d);
}

static void hash_with(uint32_t kernel, const uint8_t *p, size_t len, uint8_t d[DS])
{
	hash_parts(kernel, p, &len, 1, d);
}

/* Known answers: FIPS 180-4 examples (NIST "Example Algorithms", SHA256.pdf: "abc", the 448-bit
 * two-block message, one million 'a'), the 896-bit message of the SHA-384/512 examples hashed
 * with SHA-256, the empty message, on every kernel this process runs. */
static void test_nist_vectors(void **state)
{
	static const struct {
		const char *msg;
		const char *sha256;
	} v[] = {
	    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqr"
	     "smnopqrstnopqrstu",
	     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
	    {"The quick brown fox jumps over the lazy dog",
	     "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"},
	};
	static uint8_t buf[1000];
	uint8_t d[DS];
	uint32_t tested = 0;
	(void)state;
	memset(buf, 'a', sizeof(buf));
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sha1kit_sha256(v[i].msg, strlen(v[i].msg), d);
		hex_equal(d, v[i].sha256);
	}
	for (uint32_t k = 0; k < sha1kit_sha256_kernel_count; k++) {
		if (!sha1kit_sha256_kernel_supported(k))
			continue;
		tested++;
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			hash_with(k, (const uint8_t *)v[i].msg, strlen(v[i].msg), d);
			hex_equal(d, v[i].sha256);
		}
		/* one million 'a', in uneven chunks */
		sha1kit_sha256_ctx ctx;
		assert_int_equal(sha1kit_sha256_init_on(&ctx, k), 0);
		for (size_t done = 0, step = 1; done < 1000000; step = step % 993 + 7) { /* step <= 999 */
			size_t n = step < 1000000 - done ? step : 1000000 - done;
			sha1kit_sha256_update(&ctx, buf, n);
			done += n;
		}
		sha1kit_sha256_final(&ctx, d);
		hex_equal(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	}
	assert_true(tested >= 1);
}

static char expected[256];

static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == ',' || p[-1] == '\t') &&
		    (p[n] == 0 || p[n] == ' ' || p[n] == ',' || p[n] == '\n'))
			return 1;
	return 0;
}

/* The SHA-256 kernels this machine must run, fastest first, independently of the library's probe. */
static void expected_kernels(void)
{
	const char *env = getenv("SHA1KIT_EXPECT_KERNELS");
	char line[8192];
	FILE *f;

	expected[0] = 0;
	if (env && *env) {
		if (SHA1KIT_HAVE_SHANI && has_word(env, "shani"))
			strcat(expected, "shani,");
		if (SHA1KIT_HAVE_ARMV8 && has_word(env, "armv8"))
			strcat(expected, "armv8,");
		strcat(expected, "portable");
		return;
	}
#ifdef _WIN32
	fail_msg("SHA1KIT_EXPECT_KERNELS is not set (cmake/wine-run.sh sets it from /proc/cpuinfo)");
#endif
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) == 0) { /* x86 */
			if (SHA1KIT_HAVE_SHANI && has_word(line, "sha_ni"))
				strcat(expected, "shani,");
			break;
		}
		if (strncmp(line, "Features", 8) == 0) { /* arm64 */
			if (SHA1KIT_HAVE_ARMV8 && has_word(line, "sha2"))
				strcat(expected, "armv8,");
			break;
		}
	}
	if (f)
		fclose(f);
	strcat(expected, "portable");
}

static void test_expected_kernels(void **state)
{
	(void)state;
	expected_kernels();
	print_message("expected SHA-256 kernels: %s; default: %s\n", expected, sha1kit_sha256_kernel_name());
	/* the default is the first expected kernel; exactly the expected kernels run */
	char first[32];
	size_t n = strcspn(expected, ",");
	assert_true(n < sizeof(first));
	memcpy(first, expected, n);
	first[n] = 0;
	assert_string_equal(sha1kit_sha256_kernel_name(), first);
	assert_string_equal(sha1kit_sha256_kernels[sha1kit_select_sha256_kernel()].name, first);
	assert_string_equal(sha1kit_sha256_kernels[sha1kit_sha256_kernel_count - 1].name, "portable");
	for (uint32_t i = 0; i < sha1kit_sha256_kernel_count; i++) {
		const char *name = sha1kit_sha256_kernels[i].name;
		if (sha1kit_sha256_kernel_supported(i) != has_word(expected, name))
			fail_msg("SHA-256 kernel %s: expected %d, the probe says %d", name,
			         has_word(expected, name), sha1kit_sha256_kernel_supported(i));
	}
}

/* Every kernel on every length 0..4096 at offsets 0..15, against OpenSSL's SHA256(). */
static void test_all_lengths(void **state)
{
	uint8_t *buf = malloc(4096 + 16), expect[DS], d[DS];
	tu_rng rng = {SEED};
	(void)state;
	assert_non_null(buf);
	tu_fill(&rng, buf, 4096 + 16);
	for (size_t len = 0; len <= 4096; len++) {
		const uint8_t *p = buf + len % 16;
		SHA256(p, len, expect);
		sha1kit_sha256(p, len, d);
		if (memcmp(d, expect, DS) != 0)
			fail_msg("default kernel %s: length %zu offset %zu", sha1kit_sha256_kernel_name(),
			         len, len % 16);
		for (uint32_t k = 0; k < sha1kit_sha256_kernel_count; k++) {
			if (!sha1kit_sha256_kernel_supported(k))
				continue;
			hash_with(k, p, len, d);
			if (memcmp(d, expect, DS) != 0)
				fail_msg("kernel %s: length %zu offset %zu", sha1kit_sha256_kernels[k].name,
				         len, len % 16);
		}
	}
	free(buf);
}

/* Streaming: a message split in two at every position, and in three around every pair of block
 * boundary positions (b-1, b, b+1 for each 64-byte boundary b), with empty parts included, on every
 * kernel; byte-by-byte updates. */
static void test_splits(void **state)
{
	const size_t len = 320; /* five blocks; the padding makes a sixth */
	uint8_t buf[320], expect[DS], d[DS];
	size_t cut[32], ncut = 0;
	tu_rng rng = {SEED ^ 1};
	(void)state;
	tu_fill(&rng, buf, sizeof(buf));
	for (size_t b = 0; b <= len; b += 64)
		for (size_t o = b ? b - 1 : b; o <= b + 1 && o <= len; o++)
			cut[ncut++] = o;
	for (size_t l = 0; l <= len; l += 1 + (l % 64 == 0 || l % 64 > 53 ? 0 : 9)) {
		SHA256(buf, l, expect);
		for (uint32_t k = 0; k < sha1kit_sha256_kernel_count; k++) {
			if (!sha1kit_sha256_kernel_supported(k))
				continue;
			for (size_t i = 0; i <= l; i++) {
				size_t parts[2] = {i, l - i};
				hash_parts(k, buf, parts, 2, d);
				if (memcmp(d, expect, DS) != 0)
					fail_msg("kernel %s: length %zu split at %zu",
					         sha1kit_sha256_kernels[k].name, l, i);
			}
			for (size_t i = 0; i < ncut && cut[i] <= l; i++)
				for (size_t j = i; j < ncut && cut[j] <= l; j++) {
					size_t parts[3] = {cut[i], cut[j] - cut[i], l - cut[j]};
					hash_parts(k, buf, parts, 3, d);
					if (memcmp(d, expect, DS) != 0)
						fail_msg("kernel %s: length %zu split at %zu and %zu",
						         sha1kit_sha256_kernels[k].name, l, cut[i], cut[j]);
				}
			if (l % 64 == 0 || l == len - 1) {
				size_t ones[320];
				for (size_t i = 0; i < l; i++)
					ones[i] = 1;
				hash_parts(k, buf, ones, (int)l, d);
				assert_memory_equal(d, expect, DS);
			}
		}
	}
}

/* Random splits of one 20000-byte stream, with empty and NULL updates between them. */
static void test_random_splits(void **state)
{
	const size_t len = 20000;
	uint8_t *buf = malloc(len), expect[DS], d[DS];
	tu_rng rng = {SEED ^ 2};
	(void)state;
	assert_non_null(buf);
	tu_fill(&rng, buf, len);
	SHA256(buf, len, expect);
	for (uint32_t k = 0; k < sha1kit_sha256_kernel_count; k++) {
		if (!sha1kit_sha256_kernel_supported(k))
			continue;
		for (int round = 0; round < 20; round++) {
			uint64_t seed = rng.s;
			sha1kit_sha256_ctx ctx;
			assert_int_equal(sha1kit_sha256_init_on(&ctx, k), 0);
			for (size_t i = 0; i < len;) {
				size_t n = (size_t)(tu_next(&rng) % (round < 10 ? 200 : 3000));
				if (n > len - i)
					n = len - i;
				sha1kit_sha256_update(&ctx, buf + i, n);
				sha1kit_sha256_update(&ctx, NULL, 0);
				i += n;
			}
			sha1kit_sha256_final(&ctx, d);
			if (memcmp(d, expect, DS) != 0)
				fail_msg("kernel %s: random splits, seed 0x%llx",
				         sha1kit_sha256_kernels[k].name, (unsigned long long)seed);
		}
	}
	free(buf);
}

/* Direct kernel calls of 0..40 blocks at an odd address from random chaining values = portable. */
static void test_multiblock(void **state)
{
	uint8_t *buf = malloc(64 * 40 + 3);
	tu_rng rng = {SEED ^ 3};
	(void)state;
	assert_non_null(buf);
	tu_fill(&rng, buf, 64 * 40 + 3);
	for (uint32_t k = 0; k < sha1kit_sha256_kernel_count; k++) {
		if (!sha1kit_sha256_kernel_supported(k))
			continue;
		for (size_t n = 0; n <= 40; n++) {
			uint32_t a[8], b[8];
			for (int i = 0; i < 8; i++)
				a[i] = b[i] = (uint32_t)tu_next(&rng);
			sha1kit_sha256_kernels[k].blocks(a, buf + 3, n);
			sha1kit_sha256_blocks_portable(b, buf + 3, n);
			if (memcmp(a, b, sizeof(a)) != 0)
				fail_msg("kernel %s: %zu blocks", sha1kit_sha256_kernels[k].name, n);
		}
	}
	free(buf);
}

/* Data that ends exactly at an inaccessible page: a kernel that reads past the end faults. */
static void test_guard_page(void **state)
{
#ifdef _WIN32
	SYSTEM_INFO si;
	DWORD old;
	GetSystemInfo(&si);
	size_t page = si.dwPageSize, span = 2 * page;
	uint8_t *map = VirtualAlloc(NULL, span + page, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
	assert_non_null(map);
	assert_true(VirtualProtect(map + span, page, PAGE_NOACCESS, &old));
#else
	size_t page = (size_t)sysconf(_SC_PAGESIZE), span = 2 * page;
	uint8_t *map = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + span, page, PROT_NONE), 0);
#endif
	uint8_t expect[DS], d[DS];
	tu_rng rng = {SEED ^ 4};
	(void)state;
	tu_fill(&rng, map, span);
	for (uint32_t k = 0; k < sha1kit_sha256_kernel_count; k++) {
		if (!sha1kit_sha256_kernel_supported(k))
			continue;
		for (size_t len = 0; len <= 300; len++) {
			const uint8_t *p = map + span - len;
			SHA256(p, len, expect);
			hash_with(k, p, len, d);
			assert_memory_equal(d, expect, DS);
		}
	}
#ifdef _WIN32
	VirtualFree(map, 0, MEM_RELEASE);
#else
	munmap(map, span + page);
#endif
}

/* A context copied mid-stream continues independently; final leaves a reusable empty context on
 * the same kernel. */
static void test_context_copy(void **state)
{
	uint8_t m1[500], m2[500], d1[DS], d2[DS], e1[DS], e2[DS];
	tu_rng rng = {SEED ^ 5};
	(void)state;
	tu_fill(&rng, m1, sizeof(m1));
	memcpy(m2, m1, 300);
	tu_fill(&rng, m2 + 300, 200);
	SHA256(m1, 500, e1);
	SHA256(m2, 500, e2);
	for (uint32_t k = 0; k < sha1kit_sha256_kernel_count; k++) {
		sha1kit_sha256_ctx c, copy;
		if (!sha1kit_sha256_kernel_supported(k))
			continue;
		assert_int_equal(sha1kit_sha256_init_on(&c, k), 0);
		sha1kit_sha256_update(&c, m1, 300);
		copy = c;
		sha1kit_sha256_update(&c, m1 + 300, 200);
		sha1kit_sha256_update(&copy, m2 + 300, 200);
		sha1kit_sha256_final(&c, d1);
		sha1kit_sha256_final(&copy, d2);
		assert_memory_equal(d1, e1, DS);
		assert_memory_equal(d2, e2, DS);
		assert_int_equal(c.kernel, k);
		sha1kit_sha256_final(&c, d1);
		hex_equal(d1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	}
}

/* The batch call equals one-shot calls, for lengths around the block boundaries, 0 and NULL. */
static void test_batch(void **state)
{
	static const size_t lens[] = {0, 0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 4097, 3};
	enum { N = sizeof(lens) / sizeof(lens[0]) };
	uint8_t *buf = malloc(8192), got[N * DS + 1], want[DS];
	sha1kit_msg msgs[N];
	tu_rng rng = {SEED ^ 6};
	(void)state;
	assert_non_null(buf);
	tu_fill(&rng, buf, 8192);
	for (size_t i = 0; i < N; i++) {
		msgs[i].data = i == 0 ? NULL : buf + 7 * i;
		msgs[i].len = lens[i];
	}
	memset(got, 0xa5, sizeof(got));
	sha1kit_sha256_batch(msgs, N, got);
	for (size_t i = 0; i < N; i++) {
		SHA256(i == 0 ? (const uint8_t *)"" : buf + 7 * i, lens[i], want);
		assert_memory_equal(got + DS * i, want, DS);
	}
	assert_int_equal(got[N * DS], 0xa5); /* nothing past the n digests */
	sha1kit_sha256_batch(msgs, 0, got + N * DS);
	assert_int_equal(got[N * DS], 0xa5);
	free(buf);
}

/*
 * Every SHA-256 batch kernel this process runs (sha1kit_sha256_batch_on), against OpenSSL: one call
 * with the 4097 lengths 0..4096 in order (lanes start and end together, then drift apart), one with
 * random lengths 0..300 in random order at random offsets (lanes refilled at every block), and a
 * call of fewer messages than lanes; a kernel that cannot run, or does not exist, is refused and
 * writes nothing.
 */
static void test_batch_kernels(void **state)
{
	enum { MAXLEN = 4096, NRAND = 333 };
	uint8_t *buf = malloc(MAXLEN + 16), *got = malloc((MAXLEN + 1) * DS), want[DS];
	sha1kit_msg *msgs = malloc((MAXLEN + 1) * sizeof(*msgs));
	tu_rng rng = {SEED ^ 0xba7c};
	int tested = 0, usable;
	const char *name;
	(void)state;
	assert_non_null(buf);
	assert_non_null(got);
	assert_non_null(msgs);
	tu_fill(&rng, buf, MAXLEN + 16);
	for (uint32_t k = 0; (name = sha1kit_kernel_at(SHA1KIT_KERNELS_SHA256_BATCH, k, &usable)) != NULL;
	     k++) {
		assert_string_equal(name, sha1kit_sha256_batch_kernels[k].name);
		if (!usable) {
			memset(got, 0xa5, DS);
			assert_int_equal(sha1kit_sha256_batch_on(k, msgs, 1, got), -1);
			assert_int_equal(got[0], 0xa5);
			continue;
		}
		tested++;
		for (size_t len = 0; len <= MAXLEN; len++) {
			msgs[len].data = buf + (len * 7) % 16;
			msgs[len].len = len;
		}
		assert_int_equal(sha1kit_sha256_batch_on(k, msgs, MAXLEN + 1, got), 0);
		for (size_t len = 0; len <= MAXLEN; len++) {
			SHA256(msgs[len].data, len, want);
			if (memcmp(got + DS * len, want, DS) != 0)
				fail_msg("SHA-256 batch kernel %s: message of %zu bytes", name, len);
		}
		for (int round = 0; round < 2; round++) {
			size_t n = round ? 5 : NRAND; /* 5: fewer messages than lanes */
			for (size_t i = 0; i < n; i++) {
				msgs[i].len = (size_t)(tu_next(&rng) % 301);
				msgs[i].data = buf + tu_next(&rng) % (MAXLEN + 16 - 300);
			}
			assert_int_equal(sha1kit_sha256_batch_on(k, msgs, n, got), 0);
			for (size_t i = 0; i < n; i++) {
				SHA256(msgs[i].data, msgs[i].len, want);
				if (memcmp(got + DS * i, want, DS) != 0)
					fail_msg("SHA-256 batch kernel %s: random message %zu (%zu bytes)",
					         name, i, msgs[i].len);
			}
		}
	}
	assert_true(tested >= 1); /* "single" runs everywhere */
	assert_int_equal(sha1kit_sha256_batch_on(UINT32_MAX, msgs, 1, got), -1);
	assert_null(sha1kit_kernel_at(SHA1KIT_KERNELS_SHA256_BATCH, sha1kit_sha256_batch_kernel_count, NULL));
	free(msgs);
	free(got);
	free(buf);
}

/* The public kernel choice: the list is the dispatch table; a kernel that does not exist, or cannot
 * run here, is refused and the context gets the library's choice. */
static void test_kernel_choice(void **state)
{
	uint8_t d[DS], want[DS];
	int usable;
	(void)state;
	sha1kit_sha256("abc", 3, want);
	for (uint32_t i = 0; i < sha1kit_sha256_kernel_count; i++) {
		sha1kit_sha256_ctx c;
		const char *name = sha1kit_kernel_at(SHA1KIT_KERNELS_SHA256, i, &usable);
		assert_non_null(name);
		assert_string_equal(name, sha1kit_sha256_kernels[i].name);
		assert_int_equal(usable, sha1kit_sha256_kernel_supported(i));
		assert_int_equal(sha1kit_sha256_init_on(&c, i), usable ? 0 : -1);
		assert_int_equal(c.kernel, usable ? i : sha1kit_select_sha256_kernel());
		sha1kit_sha256_update(&c, "abc", 3);
		sha1kit_sha256_final(&c, d);
		assert_memory_equal(d, want, DS);
	}
	assert_null(sha1kit_kernel_at(SHA1KIT_KERNELS_SHA256, sha1kit_sha256_kernel_count, &usable));
	assert_int_equal(usable, 0);
	assert_null(sha1kit_kernel_at(SHA1KIT_KERNELS_SHA256, UINT32_MAX, NULL));
	sha1kit_sha256_ctx c;
	assert_int_equal(sha1kit_sha256_init_on(&c, UINT32_MAX), -1);
	assert_int_equal(c.kernel, sha1kit_select_sha256_kernel());
	/* the choice made from the CPU's features is the one the library caches */
	sha1kit_cpu_id id = sha1kit_cpu_ident();
	sha1kit_kernel_choice k;
	sha1kit_choose_kernels(sha1kit_cpu_pref_find(&id), sha1kit_cpu_features(), &k);
	assert_int_equal(k.sha256, sha1kit_select_sha256_kernel());
	/* with no features: portable */
	sha1kit_choose_kernels(sha1kit_cpu_pref_find(&id), 0, &k);
	assert_string_equal(sha1kit_sha256_kernels[k.sha256].name, "portable");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_expected_kernels),
	    cmocka_unit_test(test_nist_vectors),
	    cmocka_unit_test(test_all_lengths),
	    cmocka_unit_test(test_splits),
	    cmocka_unit_test(test_random_splits),
	    cmocka_unit_test(test_multiblock),
	    cmocka_unit_test(test_guard_page),
	    cmocka_unit_test(test_context_copy),
	    cmocka_unit_test(test_batch),
	    cmocka_unit_test(test_batch_kernels),
	    cmocka_unit_test(test_kernel_choice),
	};
	/* The expected kernels are those of the CPU: no mask (before anything probes). */
#ifdef _WIN32
	_putenv_s("SHA1KIT_CPU", "");
#else
	unsetenv("SHA1KIT_CPU");
#endif
	return cmocka_run_group_tests(tests, NULL, NULL);
}
