/* util.c - diagnostics, usage errors, closing of the standard streams, version text. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sha1kit.h"

static void verror(int errnum, const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs(SK_PROGRAM ": ", stderr);
	vfprintf(stderr, fmt, ap);
	if (errnum != 0) {
		fprintf(stderr, ": %s", strerror(errnum));
	}
	putc('\n', stderr);
}

void sk_error(int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror(errnum, fmt, ap);
	va_end(ap);
}

void sk_usage_error(const char *cmd, const char *fmt, ...)
{
	if (fmt != NULL) {
		va_list ap;
		va_start(ap, fmt);
		verror(0, fmt, ap);
		va_end(ap);
	}
	fprintf(stderr, "Try '%s%s%s --help' for more information.\n", SK_PROGRAM, cmd ? " " : "",
	        cmd ? cmd : "");
	exit(SK_EXIT_FAILURE);
}

/* gnu: word the write error as GNU sha1sum does (the errno only when stdout was closed). */
static int finish(int status, bool read_stdin, bool gnu)
{
	if (read_stdin && fclose(stdin) == EOF) {
		sk_error(errno, "standard input");
		status |= SK_EXIT_FAILURE;
	}
	bool failed = ferror(stdout) != 0;
	errno = 0;
	if (!failed && fflush(stdout) == 0) {
		if (fclose(stdout) != 0 && errno != EBADF) {
			fprintf(stderr, "%s: write error: %s\n", SK_PROGRAM, strerror(errno));
			return status | SK_EXIT_FAILURE;
		}
		return status;
	}
	int e = errno;
	if (failed && !gnu) {
		/* The write that failed was earlier and its errno is gone: what is still buffered is
		 * flushed once more to learn the reason (the output has failed either way). */
		clearerr(stdout);
		errno = 0;
		e = fflush(stdout) != 0 ? errno : 0;
	}
	if (gnu) {
		/* Like sha1sum: reported once, at the end; the errno only when standard output was
		 * closed (EBADF); for a full disk or a broken pipe the bare "write error". */
		e = (!failed && e == EBADF) ? e : 0;
	}
	fprintf(stderr, "%s: write error%s%s\n", SK_PROGRAM, e ? ": " : "", e ? strerror(e) : "");
	return status | SK_EXIT_FAILURE;
}

int sk_finish(int status, bool read_stdin)
{
	return finish(status, read_stdin, false);
}

int sk_finish_sha1sum(int status, bool read_stdin)
{
	return finish(status, read_stdin, true);
}

const char *sk_compiler_name(void)
{
#if defined(__clang__)
	return "clang " __clang_version__;
#elif defined(__GNUC__)
	return "gcc " __VERSION__;
#elif defined(__VERSION__)
	return __VERSION__;
#else
	return "unknown";
#endif
}

void sk_print_version(void)
{
	const char *cc = sk_compiler_name();
	size_t len = strlen(cc);
	while (len > 0 && cc[len - 1] == ' ') { /* __clang_version__ ends with a space */
		len--;
	}
	printf("%s %s\n", SK_PROGRAM, SHA1KIT_VERSION_STRING);
	printf("library: libsha1kit %s\n", sha1kit_version());
	printf("compiler: %.*s\n", (int)len, cc);
	printf("kernel: %s\n", sha1kit_kernel_name());
	printf("dc-kernel: %s\n", sha1kit_dc_kernel_name());
	printf("batch-kernel: %s\n", sha1kit_fast_batch_kernel_name());
	printf("dc-batch-kernel: %s\n", sha1kit_dc_batch_kernel_name());
}
