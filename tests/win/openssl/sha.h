/*
 * openssl/sha.h (tests/win/) - OpenSSL's one-shot SHA1() and SHA256() for the MinGW-w64 test build,
 * on Windows' own SHA-1 and SHA-256 (CNG, bcrypt.dll; Wine's builtin under Wine): an oracle
 * independent of sha1kit, as OpenSSL's libcrypto is on Linux, where Debian has no MinGW OpenSSL.
 * Only these two are provided: the unit tests built for Windows use nothing else of OpenSSL.
 */
#ifndef SHA1KIT_TESTS_WIN_OPENSSL_SHA_H
#define SHA1KIT_TESTS_WIN_OPENSSL_SHA_H

#include <stddef.h>

#define SHA_DIGEST_LENGTH    20
#define SHA256_DIGEST_LENGTH 32

unsigned char *SHA1(const unsigned char *d, size_t n, unsigned char *md);
unsigned char *SHA256(const unsigned char *d, size_t n, unsigned char *md);

#endif
