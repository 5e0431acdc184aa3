/*
 * test_large.c - messages over 4 GiB, streamed (never stored): the 64-bit length counter, through
 * SHA-1DC in whole chunks and through the plain SHA-1 in pieces of 1 to 8191 bytes, so that the
 * partial-block buffer is in use across the 2^32-byte boundary. Labelled "slow" in ctest. Oracle:
 * OpenSSL's EVP SHA-1 on the same stream. (Until 2026-12-04 the plain SHA-1 took the stream one byte
 * per call, more than 2^32 calls: 30 s of CI's CPU for a count no code keeps.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "sha1kit.h"
#include "test_util.h"

#define CHUNK (1u << 20)
/* 4 GiB + 4097 bytes: past 2^32 bytes, so a 32-bit byte count (or a 32-bit bit count) would wrap,
 * and the final block holds bits of the length above 2^35. */
#define TOTAL ((UINT64_C(1) << 32) + 4097)

static void test_over_4gib(void **state)
{
	uint8_t *buf = malloc(CHUNK), expect[20], d[20];
	tu_rng rng = {0x4916b5eedull};
	sha1kit_fast_ctx pieces;
	sha1kit_dc_ctx dc;
	EVP_MD_CTX *oracle = EVP_MD_CTX_new();
	uint64_t done = 0, updates = 0, odd = 0;
	(void)state;
	assert_non_null(buf);
	tu_fill(&rng, buf, CHUNK);
	assert_non_null(oracle);
	assert_int_equal(EVP_DigestInit_ex(oracle, EVP_sha1(), NULL), 1);
	sha1kit_fast_init(&pieces);
	sha1kit_dc_init(&dc, NULL);
	while (done < TOTAL) {
		size_t n = TOTAL - done < CHUNK ? (size_t)(TOTAL - done) : CHUNK;
		buf[done / CHUNK % CHUNK] ^= 0x5a; /* vary the chunks */
		assert_int_equal(EVP_DigestUpdate(oracle, buf, n), 1);
		sha1kit_dc_update(&dc, buf, n);
		/* pieces of 1 to 8191 bytes: most of them leave a partial block in the buffer */
		for (size_t i = 0; i < n;) {
			size_t k = (size_t)(tu_next(&rng) % 8191) + 1;
			if (k > n - i)
				k = n - i;
			sha1kit_fast_update(&pieces, buf + i, k);
			odd += (done + i + k) % 64 != 0;
			updates++;
			i += k;
		}
		done += n;
	}
	assert_true(updates > (TOTAL >> 13) && odd > updates / 2);
	assert_int_equal(EVP_DigestFinal_ex(oracle, expect, NULL), 1);
	EVP_MD_CTX_free(oracle);
	sha1kit_fast_final(&pieces, d);
	assert_memory_equal(d, expect, 20);
	assert_int_equal(sha1kit_dc_final(&dc, d, NULL), SHA1KIT_DC_NO_COLLISION);
	assert_memory_equal(d, expect, 20);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_over_4gib)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
