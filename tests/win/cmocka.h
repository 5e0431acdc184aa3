/*
 * cmocka.h (tests/win/) - the cmocka calls the unit tests use, as plain checks, for the MinGW-w64
 * build: Debian has no cmocka for MinGW, and the tests must run unchanged under Wine. Only the
 * Windows test build puts this directory on the include path (tests/win/tests.cmake); everywhere else
 * the tests use the real cmocka.
 *
 * Each check that fails prints the test, the file and line and the values, and the program exits
 * with status 1 at once (cmocka would go on with the next test; the exit status is the same). skip()
 * counts the test as skipped and says so, and the run then fails too: no test is skipped silently.
 * The last line is "N passed, N failed" (plus the skipped count).
 */
#ifndef SHA1KIT_TESTS_WIN_CMOCKA_H
#define SHA1KIT_TESTS_WIN_CMOCKA_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*sk_cm_test_fn)(void **state);
typedef int (*sk_cm_fixture_fn)(void **state);

struct CMUnitTest {
	const char *name;
	sk_cm_test_fn test;
};

#define cmocka_unit_test(f)                                                                                  \
	{                                                                                                    \
#f, f                                                                                        \
	}

/* The test being run, and whether it called skip(). */
extern const char *sk_cm_current;
extern int sk_cm_skipped;

void sk_cm_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(gnu_printf, 3, 4), noreturn));
int sk_cm_run(const struct CMUnitTest *tests, size_t n, sk_cm_fixture_fn setup, sk_cm_fixture_fn teardown);

#define cmocka_run_group_tests(tests, setup, teardown)                                                       \
	sk_cm_run(tests, sizeof(tests) / sizeof((tests)[0]), setup, teardown)

#define print_message(...) (printf(__VA_ARGS__), fflush(stdout))
#define fail_msg(...)      sk_cm_fail(__FILE__, __LINE__, __VA_ARGS__)
#define fail()             sk_cm_fail(__FILE__, __LINE__, "fail()")
#define skip()                                                                                               \
	do {                                                                                                 \
		sk_cm_skipped = 1;                                                                           \
		return;                                                                                      \
	} while (0)

#define assert_true(c)     ((c) ? (void)0 : sk_cm_fail(__FILE__, __LINE__, "assert_true(%s)", #c))
#define assert_false(c)    (!(c) ? (void)0 : sk_cm_fail(__FILE__, __LINE__, "assert_false(%s)", #c))
#define assert_non_null(p) ((p) != NULL ? (void)0 : sk_cm_fail(__FILE__, __LINE__, "assert_non_null(%s)", #p))
#define assert_null(p)     ((p) == NULL ? (void)0 : sk_cm_fail(__FILE__, __LINE__, "assert_null(%s)", #p))
/* As cmocka: both values converted to its largest unsigned integer type. */
#define assert_int_equal(a, b)           sk_cm_int(__FILE__, __LINE__, #a, #b, (uintmax_t)(a), (uintmax_t)(b), 1)
#define assert_int_not_equal(a, b)       sk_cm_int(__FILE__, __LINE__, #a, #b, (uintmax_t)(a), (uintmax_t)(b), 0)
#define assert_string_equal(a, b)        sk_cm_str(__FILE__, __LINE__, #a, #b, (a), (b), 1)
#define assert_string_not_equal(a, b)    sk_cm_str(__FILE__, __LINE__, #a, #b, (a), (b), 0)
#define assert_memory_equal(a, b, n)     sk_cm_mem(__FILE__, __LINE__, #a, #b, (a), (b), (n), 1)
#define assert_memory_not_equal(a, b, n) sk_cm_mem(__FILE__, __LINE__, #a, #b, (a), (b), (n), 0)
#define assert_ptr_equal(a, b)                                                                               \
	((const void *)(a) == (const void *)(b)                                                              \
	     ? (void)0                                                                                       \
	     : sk_cm_fail(__FILE__, __LINE__, "assert_ptr_equal(%s, %s)", #a, #b))

static inline void sk_cm_int(const char *file, int line, const char *ea, const char *eb, uintmax_t a,
                             uintmax_t b, int equal)
{
	if ((a == b) != equal)
		sk_cm_fail(file, line,
		           "%s %s %s: %" PRIuMAX " (0x%" PRIxMAX ") %s %" PRIuMAX " (0x%" PRIxMAX ")", ea,
		           equal ? "==" : "!=", eb, a, a, equal ? "!=" : "==", b, b);
}

static inline void sk_cm_str(const char *file, int line, const char *ea, const char *eb, const char *a,
                             const char *b, int equal)
{
	if (a == NULL || b == NULL || (strcmp(a, b) == 0) != equal)
		sk_cm_fail(file, line, "%s %s %s: \"%s\" %s \"%s\"", ea, equal ? "==" : "!=", eb,
		           a ? a : "(null)", equal ? "!=" : "==", b ? b : "(null)");
}

static inline void sk_cm_mem(const char *file, int line, const char *ea, const char *eb, const void *a,
                             const void *b, size_t n, int equal)
{
	if ((memcmp(a, b, n) == 0) != equal)
		sk_cm_fail(file, line, "%s %s %s over %zu bytes", ea, equal ? "==" : "!=", eb, n);
}

#endif
