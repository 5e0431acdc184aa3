/* test_util.h - helpers shared by the unit tests: test data location, hex, a seeded PRNG. */
#ifndef SHA1KIT_TEST_UTIL_H
#define SHA1KIT_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Directory of the test corpus and oracle data: $SHA1KIT_TESTDATA, else testdata/ of the
 * source tree. A missing corpus makes the calling test fail, never skip. */
const char *tu_testdata_dir(void);

/* Read a whole file of the test-data directory into a malloc'd buffer; fails the test if absent. */
uint8_t *tu_read_testdata(const char *name, size_t *len);

/* Parse 2*n hex digits into n bytes; returns 0 on success. */
int tu_unhex(const char *hex, uint8_t *out, size_t n);

/* Lowercase hex of n bytes into out (2n+1 bytes). */
void tu_hex(const uint8_t *in, size_t n, char *out);

/* xorshift64 (Marsaglia 13/7/17). Tests print the seed they start from. */
typedef struct tu_rng {
	uint64_t s;
} tu_rng;
uint64_t tu_next(tu_rng *r);
void tu_fill(tu_rng *r, uint8_t *p, size_t n);

#endif
