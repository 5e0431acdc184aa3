/* faults.c - the wrapped allocator, thread start and chdir of faults.h. */
#define _GNU_SOURCE
#include "faults.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __real_chdir(const char *path);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_chdir(const char *path);
int __real_fchdir(int fd);
int __wrap_fchdir(int fd);

/* The armed fault: set by the test's thread between runs, read by the layer's threads (atomics:
 * the calls come from every thread of a check). The state of a test program, not of the library. */
static int armed_kind = -1;
static long armed_at, calls, hit;

void fault_arm(enum fault_kind kind, long n)
{
	__atomic_store_n(&calls, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&hit, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&armed_at, n, __ATOMIC_SEQ_CST);
	__atomic_store_n(&armed_kind, (int)kind, __ATOMIC_SEQ_CST);
}

bool fault_disarm(void)
{
	__atomic_store_n(&armed_kind, -1, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&hit, __ATOMIC_SEQ_CST) != 0;
}

long fault_calls(void)
{
	return __atomic_load_n(&calls, __ATOMIC_SEQ_CST);
}

/* Whether this call of kind must fail. */
static bool fail_now(enum fault_kind kind)
{
	if (__atomic_load_n(&armed_kind, __ATOMIC_SEQ_CST) != (int)kind) {
		return false;
	}
	if (__atomic_fetch_add(&calls, 1, __ATOMIC_SEQ_CST) != __atomic_load_n(&armed_at, __ATOMIC_SEQ_CST)) {
		return false;
	}
	__atomic_store_n(&hit, 1, __ATOMIC_SEQ_CST);
	return true;
}

void *__wrap_malloc(size_t n)
{
	if (fail_now(FAULT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
	if (fail_now(FAULT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
	if (n != 0 && fail_now(FAULT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	if (fail_now(FAULT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	if (fail_now(FAULT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_strndup(s, n);
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	if (fail_now(FAULT_THREAD)) {
		return EAGAIN;
	}
	return __real_pthread_create(t, a, fn, arg);
}

static long chdirs;

int __wrap_chdir(const char *path)
{
	__atomic_fetch_add(&chdirs, 1, __ATOMIC_SEQ_CST);
	return __real_chdir(path);
}

int __wrap_fchdir(int fd)
{
	__atomic_fetch_add(&chdirs, 1, __ATOMIC_SEQ_CST);
	return __real_fchdir(fd);
}

long fault_chdirs(void)
{
	return __atomic_load_n(&chdirs, __ATOMIC_SEQ_CST);
}

long fault_each(enum fault_kind kind, int (*op)(void *ctx), void (*check)(void *ctx, int rc, bool injected),
                void *ctx)
{
	for (long n = 0;; n++) {
		fault_arm(kind, n);
		int rc = op(ctx);
		bool injected = fault_disarm();
		check(ctx, rc, injected);
		if (!injected) {
			return n;
		}
	}
}
