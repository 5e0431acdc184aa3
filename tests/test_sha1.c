/*
 * test_sha1.c - plain SHA-1 and the streaming layer: FIPS 180-4 / NIST known answers, every length
 * 0..1024 (and the block boundaries) against OpenSSL's libcrypto as oracle, for both flavours;
 * chunking, alignment, context copies; the byte-order canary; the public kernel choice.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/sha.h>

#include "internal.h"
#include "sha1kit.h"
#include "test_util.h"

#define SEED 0x5eed5a1f00d5eedull

static void hex_equal(const uint8_t digest[20], const char *expect)
{
	char hex[41];
	tu_hex(digest, 20, hex);
	assert_string_equal(hex, expect);
}

/* Known answers: FIPS 180-4 examples (NIST "Example Algorithm" SHA1.pdf) and the NIST CAVS
 * short/long-message style vectors. */
static void test_nist_vectors(void **state)
{
	static const struct {
		const char *msg;
		const char *sha1;
	} v[] = {
	    {"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
	    {"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
	    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	     "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
	    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqr"
	     "smnopqrs"
	     "tnopqrstu",
	     "a49b2446a02c645bf419f995b67091253a04a259"},
	    {"The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"},
	};
	uint8_t d[20];
	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n = strlen(v[i].msg);
		sha1kit_fast(v[i].msg, n, d);
		hex_equal(d, v[i].sha1);
		assert_int_equal(sha1kit_dc(v[i].msg, n, NULL, d, NULL), SHA1KIT_DC_NO_COLLISION);
		hex_equal(d, v[i].sha1);
	}
}

/* One million 'a' (FIPS 180-4 example), fed in uneven chunks. */
static void test_million_a(void **state)
{
	static uint8_t buf[1000];
	sha1kit_fast_ctx f;
	sha1kit_dc_ctx dc;
	uint8_t d[20];
	(void)state;
	memset(buf, 'a', sizeof(buf));
	sha1kit_fast_init(&f);
	sha1kit_dc_init(&dc, NULL);
	for (size_t done = 0, step = 1; done < 1000000; step = step % 993 + 7) { /* step <= 999 */
		size_t n = step < 1000000 - done ? step : 1000000 - done;
		sha1kit_fast_update(&f, buf, n);
		sha1kit_dc_update(&dc, buf, n);
		done += n;
	}
	sha1kit_fast_final(&f, d);
	hex_equal(d, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
	assert_int_equal(sha1kit_dc_final(&dc, d, NULL), SHA1KIT_DC_NO_COLLISION);
	hex_equal(d, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

static size_t oracle_lengths(size_t *lens)
{
	static const size_t extra[] = {55, 56, 63, 64, 65, 119, 120, 127, 128, 4095, 4096, 4097, 65536 + 17};
	size_t n = 0;
	for (size_t i = 0; i <= 1024; i++)
		lens[n++] = i;
	for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
		lens[n++] = extra[i];
	return n;
}

/* Every length 0..1024 plus boundaries, at offsets 0..7 of the buffer: fast and DC (all option
 * combinations that do not change the digest of a non-attack input) against OpenSSL's SHA1(). */
static void test_lengths_vs_openssl(void **state)
{
	size_t lens[1100], nlens = oracle_lengths(lens);
	size_t max = 65536 + 17 + 8;
	uint8_t *buf = malloc(max), expect[20], d[20];
	tu_rng rng = {SEED};
	(void)state;
	assert_non_null(buf);
	tu_fill(&rng, buf, max);
	for (size_t i = 0; i < nlens; i++) {
		size_t off = i % 8, len = lens[i];
		sha1kit_dc_options opt;
		sha1kit_dc_detection where;

		SHA1(buf + off, len, expect);
		sha1kit_fast(buf + off, len, d);
		if (memcmp(d, expect, 20) != 0)
			fail_msg("fast: length %zu offset %zu (seed 0x%llx)", len, off,
			         (unsigned long long)SEED);
		for (int mode = 0; mode < 8; mode++) {
			sha1kit_dc_options_default(&opt);
			opt.safe_hash = mode & 1;
			opt.use_ubc = !(mode & 2);
			opt.reduced_round = (mode & 4) != 0;
			if (!opt.use_ubc && len > 4096)
				continue; /* all 32 DVs per block: covered up to 4 KiB */
			assert_int_equal(sha1kit_dc(buf + off, len, &opt, d, &where),
			                 SHA1KIT_DC_NO_COLLISION);
			assert_int_equal(where.dv, -1);
			if (memcmp(d, expect, 20) != 0)
				fail_msg("dc mode %d: length %zu offset %zu (seed 0x%llx)", mode, len, off,
				         (unsigned long long)SEED);
		}
	}
	free(buf);
}

/* One-shot = one update = byte-by-byte = random splits, for both flavours. */
static void test_chunking(void **state)
{
	const size_t max = 3000;
	uint8_t *buf = malloc(max), ref[20], d[20];
	tu_rng rng = {SEED ^ 1};
	(void)state;
	assert_non_null(buf);
	tu_fill(&rng, buf, max);
	for (size_t len = 0; len < max; len += 1 + len / 3) {
		sha1kit_fast_ctx f;
		sha1kit_dc_ctx dc;
		uint64_t seed = rng.s;

		sha1kit_fast(buf, len, ref);
		/* byte by byte */
		sha1kit_fast_init(&f);
		sha1kit_dc_init(&dc, NULL);
		for (size_t i = 0; i < len; i++) {
			sha1kit_fast_update(&f, buf + i, 1);
			sha1kit_dc_update(&dc, buf + i, 1);
		}
		sha1kit_fast_final(&f, d);
		assert_memory_equal(d, ref, 20);
		sha1kit_dc_final(&dc, d, NULL);
		assert_memory_equal(d, ref, 20);
		/* random splits, with empty and NULL updates in between */
		sha1kit_fast_init(&f);
		sha1kit_dc_init(&dc, NULL);
		for (size_t i = 0; i < len;) {
			size_t n = (size_t)(tu_next(&rng) % 200);
			if (n > len - i)
				n = len - i;
			sha1kit_fast_update(&f, buf + i, n);
			sha1kit_dc_update(&dc, buf + i, n);
			sha1kit_fast_update(&f, NULL, 0);
			sha1kit_dc_update(&dc, NULL, 0);
			i += n;
		}
		sha1kit_fast_final(&f, d);
		if (memcmp(d, ref, 20) != 0)
			fail_msg("fast random splits: length %zu, split seed 0x%llx", len,
			         (unsigned long long)seed);
		sha1kit_dc_final(&dc, d, NULL);
		if (memcmp(d, ref, 20) != 0)
			fail_msg("dc random splits: length %zu, split seed 0x%llx", len,
			         (unsigned long long)seed);
	}
	free(buf);
}

/* A context copied mid-stream continues independently; final leaves a reusable empty context. */
static void test_context_copy(void **state)
{
	/* message 1 = prefix(300) + a(200), message 2 = prefix(300) + b(200) */
	uint8_t m1[500], m2[500], d1[20], d2[20], e1[20], e2[20];
	tu_rng rng = {SEED ^ 2};
	sha1kit_fast_ctx f, fcopy;
	sha1kit_dc_ctx dc, dccopy;
	(void)state;
	tu_fill(&rng, m1, sizeof(m1));
	memcpy(m2, m1, 300);
	tu_fill(&rng, m2 + 300, 200);
	SHA1(m1, 500, e1);
	SHA1(m2, 500, e2);

	sha1kit_fast_init(&f);
	sha1kit_dc_init(&dc, NULL);
	sha1kit_fast_update(&f, m1, 300);
	sha1kit_dc_update(&dc, m1, 300);
	fcopy = f;
	memcpy(&dccopy, &dc, sizeof(dc));
	sha1kit_fast_update(&f, m1 + 300, 200);
	sha1kit_fast_update(&fcopy, m2 + 300, 200);
	sha1kit_dc_update(&dc, m1 + 300, 200);
	sha1kit_dc_update(&dccopy, m2 + 300, 200);
	sha1kit_fast_final(&f, d1);
	sha1kit_fast_final(&fcopy, d2);
	assert_memory_equal(d1, e1, 20);
	assert_memory_equal(d2, e2, 20);
	sha1kit_dc_final(&dc, d1, NULL);
	sha1kit_dc_final(&dccopy, d2, NULL);
	assert_memory_equal(d1, e1, 20);
	assert_memory_equal(d2, e2, 20);
	/* reuse after final = the empty message */
	sha1kit_fast_final(&f, d1);
	hex_equal(d1, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
	sha1kit_dc_final(&dc, d1, NULL);
	hex_equal(d1, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}

/* The compile-time byte order must agree with how the machine lays out an integer in memory, and
 * the loaders must give big-endian words whatever the host. */
static void test_byte_order_canary(void **state)
{
	const uint32_t x = 0x01020304u;
	uint8_t mem[4], p[5] = {0xff, 0x01, 0x02, 0x03, 0x04};
	(void)state;
	memcpy(mem, &x, 4);
	assert_int_equal(mem[0], SHA1KIT_BIG_ENDIAN ? 0x01 : 0x04);
	assert_int_equal(sha1kit_load_be32(p + 1), 0x01020304u);
	sha1kit_store_be32(mem, 0xa1b2c3d4u);
	assert_int_equal(mem[0], 0xa1);
	assert_int_equal(mem[3], 0xd4);
	/* the reference's own endianness self-test: with the wrong byte order this file hashes to
	 * e98a60b4... instead of a56374e1... (SOURCES.md) */
	size_t n;
	uint8_t *f = tu_read_testdata("sha1_reducedsha_coll.bin", &n), d[20];
	sha1kit_fast(f, n, d);
	hex_equal(d, "a56374e1cf4c3746499bc7c0acb39498ad2ee185");
	free(f);
}

/* The kernel query names a kernel, the version matches the header. */
static void test_queries(void **state)
{
	(void)state;
	assert_string_equal(sha1kit_version(), SHA1KIT_VERSION_STRING);
	assert_string_equal(sha1kit_kernel_name(), sha1kit_kernels[sha1kit_select_fast_kernel()].name);
	assert_string_equal(sha1kit_dc_kernel_name(), sha1kit_dc_kernels[sha1kit_select_dc_kernel()].name);
	assert_string_equal(sha1kit_dv_name(0), "I(43,0)");
	assert_string_equal(sha1kit_dv_name(27), "II(52,0)");
	assert_null(sha1kit_dv_name(32));
	assert_null(sha1kit_dv_name(-1));
}

/* The public kernel choice: the lists are the dispatch tables; every kernel this process runs gives
 * the default kernel's digests, one-shot and batched; a kernel that does not exist, or cannot run
 * here, is refused (a context then gets the library's choice; a batch writes nothing). */
static void test_kernel_choice(void **state)
{
	static const uint32_t lens[] = {0, 1, 55, 56, 64, 119, 1000};
	static const uint32_t *const counts[] = {&sha1kit_kernel_count, &sha1kit_dc_kernel_count,
	                                         &sha1kit_fast_batch_kernel_count,
	                                         &sha1kit_dc_batch_kernel_count};
	uint8_t data[1000], want[7][20], got[7 * 20], d[20];
	sha1kit_msg msgs[7];
	int usable;
	(void)state;
	tu_rng rng = {SEED ^ 3};
	tu_fill(&rng, data, sizeof(data));
	for (int k = 0; k < 4; k++) {
		sha1kit_kernel_kind kind = (sha1kit_kernel_kind)k;
		uint32_t n = *counts[k];
		for (uint32_t i = 0; i < n; i++) {
			const char *name = sha1kit_kernel_at(kind, i, &usable);
			const char *table = k == 0   ? sha1kit_kernels[i].name
			                    : k == 1 ? sha1kit_dc_kernels[i].name
			                    : k == 2 ? sha1kit_fast_batch_kernels[i].name
			                             : sha1kit_dc_batch_kernels[i].name;
			int runs = k == 0   ? sha1kit_kernel_supported(i)
			           : k == 1 ? sha1kit_dc_kernel_supported(i)
			           : k == 2 ? sha1kit_batch_kernel_supported(&sha1kit_fast_batch_kernels[i])
			                    : sha1kit_batch_kernel_supported(&sha1kit_dc_batch_kernels[i]);
			assert_non_null(name);
			assert_string_equal(name, table);
			assert_int_equal(usable, runs != 0);
			for (size_t j = 0; j < 7; j++) {
				msgs[j].data = data;
				msgs[j].len = lens[j];
				if (k == 0 || k == 2)
					sha1kit_fast(data, lens[j], want[j]);
				else
					sha1kit_dc(data, lens[j], NULL, want[j], NULL);
			}
			memset(got, 0xa5, sizeof(got));
			for (size_t j = 0; j < 7 && k < 2; j++) {
				int rc;
				if (k == 0) {
					sha1kit_fast_ctx c;
					rc = sha1kit_fast_init_on(&c, i);
					assert_int_equal(c.kernel, usable ? i : sha1kit_select_fast_kernel());
					sha1kit_fast_update(&c, data, lens[j]);
					sha1kit_fast_final(&c, got + 20 * j);
				} else {
					sha1kit_dc_ctx c;
					rc = sha1kit_dc_init_on(&c, NULL, i);
					assert_int_equal(c.kernel, usable ? i : sha1kit_select_dc_kernel());
					sha1kit_dc_update(&c, data, lens[j]);
					assert_int_equal(sha1kit_dc_final(&c, got + 20 * j, NULL),
					                 SHA1KIT_DC_NO_COLLISION);
				}
				assert_int_equal(rc, usable ? 0 : -1);
			}
			if (k == 2)
				assert_int_equal(sha1kit_fast_batch_on(i, msgs, 7, got), usable ? 0 : -1);
			if (k == 3)
				assert_int_equal(sha1kit_dc_batch_on(i, msgs, 7, NULL, got, NULL),
				                 usable ? 0 : -1);
			for (size_t j = 0; j < 7; j++) {
				if (usable || k < 2)
					assert_memory_equal(got + 20 * j, want[j], 20);
				else
					assert_int_equal(got[20 * j], 0xa5);
			}
		}
		assert_null(sha1kit_kernel_at(kind, n, &usable));
		assert_int_equal(usable, 0);
		assert_null(sha1kit_kernel_at(kind, UINT32_MAX, NULL));
	}
	assert_null(sha1kit_kernel_at((sha1kit_kernel_kind)6, 0, NULL)); /* 4, 5 are SHA-256: test_sha256.c */
	sha1kit_fast_ctx fc;
	sha1kit_dc_ctx dc;
	assert_int_equal(sha1kit_fast_init_on(&fc, sha1kit_kernel_count), -1);
	assert_int_equal(fc.kernel, sha1kit_select_fast_kernel());
	assert_int_equal(sha1kit_dc_init_on(&dc, NULL, UINT32_MAX), -1);
	assert_int_equal(dc.kernel, sha1kit_select_dc_kernel());
	memset(d, 0xa5, sizeof(d));
	assert_int_equal(sha1kit_fast_batch_on(sha1kit_fast_batch_kernel_count, msgs, 1, d), -1);
	assert_int_equal(sha1kit_dc_batch_on(sha1kit_dc_batch_kernel_count, msgs, 1, NULL, d, NULL), -1);
	assert_int_equal(d[0], 0xa5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nist_vectors),
	    cmocka_unit_test(test_million_a),
	    cmocka_unit_test(test_lengths_vs_openssl),
	    cmocka_unit_test(test_chunking),
	    cmocka_unit_test(test_context_copy),
	    cmocka_unit_test(test_byte_order_canary),
	    cmocka_unit_test(test_queries),
	    cmocka_unit_test(test_kernel_choice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
