/* openssl_sha1.c - SHA1() and SHA256() of tests/win/openssl/sha.h on CNG (BCrypt*); any failure ends
 * the test. */
#include <windows.h>

#include <bcrypt.h>
#include <stdio.h>
#include <stdlib.h>

#include "openssl/sha.h"

static void cng_check(NTSTATUS st, const char *what)
{
	if (!BCRYPT_SUCCESS(st)) {
		fprintf(stderr, "openssl_sha1.c: %s failed: NTSTATUS 0x%08lx\n", what, (unsigned long)st);
		exit(1);
	}
}

/* The digest (`size` bytes) of algorithm `id` over n bytes at d, with the provider opened once in
 * *alg. */
static unsigned char *cng_hash(BCRYPT_ALG_HANDLE *alg, LPCWSTR id, ULONG size, const unsigned char *d,
                               size_t n, unsigned char *md)
{
	BCRYPT_HASH_HANDLE h;
	if (*alg == NULL)
		cng_check(BCryptOpenAlgorithmProvider(alg, id, NULL, 0), "BCryptOpenAlgorithmProvider");
	cng_check(BCryptCreateHash(*alg, &h, NULL, 0, NULL, 0, 0), "BCryptCreateHash");
	/* BCryptHashData takes a ULONG (32-bit) length. */
	while (n > 0) {
		ULONG part = n > 0x40000000u ? 0x40000000u : (ULONG)n;
		cng_check(BCryptHashData(h, (PUCHAR)(uintptr_t)d, part, 0), "BCryptHashData");
		d += part;
		n -= part;
	}
	cng_check(BCryptFinishHash(h, md, size, 0), "BCryptFinishHash");
	BCryptDestroyHash(h);
	return md;
}

unsigned char *SHA1(const unsigned char *d, size_t n, unsigned char *md)
{
	static BCRYPT_ALG_HANDLE alg;
	return cng_hash(&alg, BCRYPT_SHA1_ALGORITHM, SHA_DIGEST_LENGTH, d, n, md);
}

unsigned char *SHA256(const unsigned char *d, size_t n, unsigned char *md)
{
	static BCRYPT_ALG_HANDLE alg;
	return cng_hash(&alg, BCRYPT_SHA256_ALGORITHM, SHA256_DIGEST_LENGTH, d, n, md);
}
