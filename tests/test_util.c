/* test_util.c - helpers shared by the unit tests. */
#include "test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#ifndef SHA1KIT_SOURCE_DIR
#define SHA1KIT_SOURCE_DIR "."
#endif

const char *tu_testdata_dir(void)
{
	const char *env = getenv("SHA1KIT_TESTDATA");
	return env && *env ? env : SHA1KIT_SOURCE_DIR "/testdata";
}

uint8_t *tu_read_testdata(const char *name, size_t *len)
{
	char path[4096];
	FILE *f;
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	snprintf(path, sizeof(path), "%s/%s", tu_testdata_dir(), name);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("test data %s is missing (set SHA1KIT_TESTDATA; the repository has it in testdata/)",
		         path);
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			buf = realloc(buf, cap + 1);
			assert_non_null(buf);
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		if (got == 0)
			break;
		n += got;
	}
	assert_int_equal(ferror(f), 0);
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int tu_unhex(const char *hex, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hexval(hex[2 * i]), lo = hi < 0 ? -1 : hexval(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

void tu_hex(const uint8_t *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = 0;
}

uint64_t tu_next(tu_rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s;
}

void tu_fill(tu_rng *r, uint8_t *p, size_t n)
{
	while (n) {
		uint64_t v = tu_next(r);
		for (int i = 0; i < 8 && n; i++, n--)
			*p++ = (uint8_t)(v >> (8 * i));
	}
}
