/*
 * faults.h - failures of the machine injected into the Git layer for its unit tests: the test
 * binary is linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,
 * --wrap=strndup,--wrap=pthread_create,--wrap=chdir,--wrap=fchdir (tests/git/api.cmake), so every call the
 * layer's objects (libsha1kit-git.a, linked statically) make to these functions comes through
 * faults.c, which passes it on until the armed one fails (chdir is only counted). Calls from shared libraries
 * (libc's own, zlib, libdeflate, cmocka) are not seen.
 */
#ifndef SHA1KIT_TESTS_GIT_FAULTS_H
#define SHA1KIT_TESTS_GIT_FAULTS_H

#include <stdbool.h>

/* Which calls an armed fault counts. */
enum fault_kind {
	FAULT_ALLOC,  /* malloc, calloc, realloc (to a non-zero size), strdup, strndup: NULL, ENOMEM */
	FAULT_THREAD, /* pthread_create: EAGAIN */
};

/* From now on, the call number n (0 for the next one) of that kind fails, and only that one. */
void fault_arm(enum fault_kind kind, long n);

/* Stop failing; returns whether the armed call was reached (i.e. a failure was injected). */
bool fault_disarm(void);

/* Calls of the armed kind since fault_arm. */
long fault_calls(void);

/* The chdir and fchdir calls made so far (the program's own and the layer's: --wrap=chdir and
 * --wrap=fchdir count them). */
long fault_chdirs(void);

/*
 * Run op(ctx) with the call number 0, 1, 2, ... of kind failing in turn, until a run in which the
 * failure was not reached; check(ctx, rc, injected) judges each run (rc: what op returned). Returns
 * the number of runs with a failure injected (the calls of that kind op makes).
 */
long fault_each(enum fault_kind kind, int (*op)(void *ctx), void (*check)(void *ctx, int rc, bool injected),
                void *ctx);

#endif
