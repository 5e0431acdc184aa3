/*
 * enospc.c - a full file system for the command tests (LD_PRELOAD, Linux): write() and pwrite() on
 * a regular file fail with ENOSPC ("No space left on device") once this process has written
 * SK_ENOSPC_AFTER bytes (default 0) to regular files; the write that crosses the limit is cut
 * short first, as a file system that fills up does. Pipes, terminals and standard output are left
 * alone. Only calls through the dynamic symbols are caught (glibc's stdio writes with its own
 * internal calls), which is how sha1kit writes its idx and loose objects.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static _Atomic long long written; /* bytes written to regular files so far */

/* How many of n bytes may go to fd now: n for a file that is not regular. */
static size_t allowed(int fd, size_t n)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		return n;
	}
	const char *e = getenv("SK_ENOSPC_AFTER");
	long long limit = e != NULL ? atoll(e) : 0;
	long long done = atomic_load(&written);
	if (done >= limit) {
		return 0;
	}
	return (long long)n > limit - done ? (size_t)(limit - done) : n;
}

__attribute__((visibility("default"))) ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
	if (real == NULL) {
		real = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	}
	size_t k = allowed(fd, n);
	if (k == 0 && n > 0) {
		errno = ENOSPC;
		return -1;
	}
	ssize_t w = real(fd, buf, k);
	struct stat st;
	if (w > 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		atomic_fetch_add(&written, (long long)w);
	}
	return w;
}

__attribute__((visibility("default"))) ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);
	if (real == NULL) {
		real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	}
	size_t k = allowed(fd, n);
	if (k == 0 && n > 0) {
		errno = ENOSPC;
		return -1;
	}
	ssize_t w = real(fd, buf, k, off);
	struct stat st;
	if (w > 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		atomic_fetch_add(&written, (long long)w);
	}
	return w;
}
