/* cmocka_shim.c - the runner of tests/win/cmocka.h (see there why it exists). */
#include "cmocka.h"

#include <stdarg.h>

const char *sk_cm_current = "(setup)";
int sk_cm_skipped;

void sk_cm_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fprintf(stderr, "[  FAILED  ] %s\n%s:%d: ", sk_cm_current, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n0 passed, 1 failed\n");
	exit(1);
}

int sk_cm_run(const struct CMUnitTest *tests, size_t n, sk_cm_fixture_fn setup, sk_cm_fixture_fn teardown)
{
	void *state = NULL;
	size_t passed = 0, skipped = 0;
	printf("[==========] Running %zu test(s) (tests/win/cmocka.h: no cmocka for MinGW).\n", n);
	if (setup != NULL && setup(&state) != 0)
		sk_cm_fail(__FILE__, __LINE__, "group setup failed");
	for (size_t i = 0; i < n; i++) {
		sk_cm_current = tests[i].name;
		sk_cm_skipped = 0;
		printf("[ RUN      ] %s\n", tests[i].name);
		fflush(stdout);
		tests[i].test(&state);
		if (sk_cm_skipped) {
			printf("[  SKIPPED ] %s\n", tests[i].name);
			skipped++;
		} else {
			printf("[       OK ] %s\n", tests[i].name);
			passed++;
		}
	}
	sk_cm_current = "(teardown)";
	if (teardown != NULL && teardown(&state) != 0)
		sk_cm_fail(__FILE__, __LINE__, "group teardown failed");
	printf("[==========] %zu test(s) run.\n", n);
	printf("%zu passed, 0 failed, %zu skipped\n", passed, skipped);
	/* A skipped test is a test that did not run: the run fails (see cmocka.h). */
	return skipped ? 1 : 0;
}
