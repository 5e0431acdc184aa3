/* util.c - diagnostics, usage errors, closing of the standard streams, version text, CPU mask. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#ifdef __GLIBC__
#include <stdio_ext.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sha1kit.h"

/* The name a link to the program ran it as (sha1sum, sha256sum), or NULL: set once by main. */
static const char *alias;
static bool alias_sha256;

void sk_set_alias(const char *name, bool sha256)
{
	alias = name;
	alias_sha256 = sha256;
}

bool sk_alias(bool *sha256)
{
	*sha256 = alias_sha256;
	return alias != NULL;
}

const char *sk_invocation(const char *cmd, char *buf, size_t n)
{
	if (alias != NULL) {
		snprintf(buf, n, "%s", alias);
	} else {
		snprintf(buf, n, "%s%s%s", SK_PROGRAM, cmd != NULL ? " " : "", cmd != NULL ? cmd : "");
	}
	return buf;
}

static void verror(int errnum, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", alias != NULL ? alias : SK_PROGRAM);
	vfprintf(stderr, fmt, ap);
	if (errnum != 0) {
		fprintf(stderr, ": %s", strerror(errnum));
	}
	putc('\n', stderr);
}

void sk_git_line(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0) {
		return;
	}
	size_t len = strlen(buf);
	if ((size_t)n >= sizeof(buf)) {
		buf[len - 1] = '\n'; /* cut as git's vreportf cuts, the line still ended */
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if ((c < 0x20 || c == 0x7f) && c != '\t' && c != '\n') {
			buf[i] = '?';
		}
	}
	fputs(buf, stderr);
}

void sk_error(int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror(errnum, fmt, ap);
	va_end(ap);
}

static SK_NORETURN void vusage(int status, const char *cmd, const char *fmt, va_list ap)
{
	if (fmt != NULL) {
		verror(0, fmt, ap);
	}
	char inv[64];
	fprintf(stderr, "Try '%s --help' for more information.\n", sk_invocation(cmd, inv, sizeof(inv)));
	exit(status);
}

void sk_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vusage(SK_EXIT_FAILURE, cmd, fmt, ap);
}

void sk_usage_exit(int status, const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vusage(status, cmd, fmt, ap);
}

/* gnu: word the write error as GNU sha1sum does (the errno only when stdout was closed). */
static int finish(int status, bool read_stdin, bool gnu)
{
	/* a closed standard input (EBADF) was reported by the read that found it: once is enough,
	 * but sha1sum says it twice */
	if (read_stdin && fclose(stdin) == EOF && (gnu || errno != EBADF)) {
		sk_error(errno, "standard input");
		status |= SK_EXIT_FAILURE;
	}
	if (gnu) {
		/* gnulib's close_stdout and close_stream: the errno only when fclose itself failed, and
		 * a failed fclose of a closed stream (EBADF) no error when nothing was pending */
#ifdef __GLIBC__
		bool pending = __fpending(stdout) != 0;
#else
		bool pending = true;
#endif
		bool prev_fail = ferror(stdout) != 0;
		errno = 0;
		bool fclose_fail = fclose(stdout) != 0;
		int fe = fclose_fail ? errno : 0;
		if (prev_fail || (fclose_fail && (pending || fe != EBADF))) {
			fprintf(stderr, "%s: write error%s%s\n", alias != NULL ? alias : SK_PROGRAM,
			        fe ? ": " : "", fe ? strerror(fe) : "");
			return status | SK_EXIT_FAILURE;
		}
		return status;
	}
	bool failed = ferror(stdout) != 0;
	errno = 0;
	if (!failed && fflush(stdout) == 0) {
		if (fclose(stdout) != 0 && errno != EBADF) {
			fprintf(stderr, "%s: write error: %s\n", alias != NULL ? alias : SK_PROGRAM,
			        strerror(errno));
			return status | SK_EXIT_FAILURE;
		}
		return status;
	}
	int e = errno;
	if (failed) {
		/* The write that failed was earlier and its errno is gone: what is still buffered is
		 * flushed once more to learn the reason (the output has failed either way). */
		clearerr(stdout);
		errno = 0;
		e = fflush(stdout) != 0 ? errno : 0;
	}
	fprintf(stderr, "%s: write error%s%s\n", alias != NULL ? alias : SK_PROGRAM, e ? ": " : "",
	        e ? strerror(e) : "");
	return status | SK_EXIT_FAILURE;
}

void sk_check_pipe(int e)
{
#ifdef SIGPIPE /* (Windows has none: the caller's fatal line follows) */
	if (e == EPIPE) {
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
#else
	(void)e;
#endif
}

/* The errno of the first flush of standard output that failed (sk_flush_stdout), and whether a
 * line the command's success depends on failed (sk_stdout_line_failed). */
static int stdout_errno;
static bool stdout_line_failed;

void sk_stdout_line_failed(void)
{
	stdout_line_failed = true;
}

int sk_flush_stdout(void)
{
	int r = fflush(stdout);
	if (r != 0 && stdout_errno == 0) {
		stdout_errno = errno;
	}
	return r;
}

int sk_finish_git(int status, int fail_status)
{
	/* git.c run_builtin's checks of standard output at the end (the line of die_errno), which it
	 * makes only after a success; sha1kit also after the failure of a line the command's success
	 * depends on (index-pack's pack line, sk_stdout_line_failed) */
	if (status != 0 && !stdout_line_failed) {
		return status;
	}
	bool failed = ferror(stdout) != 0;
	errno = 0;
	if (!failed && fflush(stdout) == 0) {
		if (fclose(stdout) != 0 && errno != EBADF) {
			sk_git_line("fatal: close failed on standard output: %s\n", strerror(errno));
			return fail_status;
		}
		return status;
	}
	int e = errno;
	if (failed) {
		/* the write that failed was earlier: what is still buffered is flushed once more to
		 * learn the reason */
		clearerr(stdout);
		errno = 0;
		e = fflush(stdout) != 0 ? errno : stdout_errno;
	}
	if (e != 0) {
		sk_git_line("fatal: write failure on standard output: %s\n", strerror(e));
	} else {
		sk_git_line("fatal: unknown write failure on standard output\n");
	}
	return fail_status;
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

/* The names of the feature bits `f`, space-separated, or "none". */
static void feature_list(char *buf, size_t n, uint32_t f)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < 32; i++) {
		const char *name = sha1kit_cpu_feature_name(i);
		if (name != NULL && (f & (UINT32_C(1) << i)) && used < n)
			used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? " " : "", name);
	}
	if (used == 0)
		snprintf(buf, n, "none");
}

const char *sk_cpu_mask_text(void)
{
	static char text[400];
	char off[160], value[160];
	uint32_t masked;
	int state = sha1kit_cpu_mask(&masked);
	const char *env = getenv("SHA1KIT_CPU");
	if (state == 0 || env == NULL) {
		return "none (SHA1KIT_CPU unset)";
	}
	size_t i = 0;
	for (; env[i] != '\0' && i + 1 < sizeof(value); i++) { /* one line: control characters as '?' */
		value[i] = (unsigned char)env[i] < 0x20 || env[i] == 0x7f ? '?' : env[i];
	}
	value[i] = '\0';
	feature_list(off, sizeof(off), masked);
	snprintf(text, sizeof(text), "SHA1KIT_CPU=%s (%soff: %s)", value, state < 0 ? "invalid; " : "", off);
	return text;
}

int sk_check_cpu_mask(void)
{
	char msg[512];
	uint32_t masked;
	if (sha1kit_cpu_mask(&masked) >= 0) {
		return 0;
	}
	sha1kit_cpu_mask_parse(getenv("SHA1KIT_CPU"), &masked, msg, sizeof(msg));
	sk_error(0, "SHA1KIT_CPU: %s", msg);
	return -1;
}

void sk_print_version(void)
{
	char features[160];
	const char *cc = sk_compiler_name();
	size_t len = strlen(cc);
	while (len > 0 && cc[len - 1] == ' ') { /* __clang_version__ ends with a space */
		len--;
	}
	printf("%s %s\n", SK_PROGRAM, SHA1KIT_VERSION_STRING);
	printf("library: libsha1kit %s\n", sha1kit_version());
	printf("compiler: %.*s\n", (int)len, cc);
	feature_list(features, sizeof(features), sha1kit_cpu_features_detected());
	printf("cpu features: %s\n", features);
	printf("cpu mask: %s\n", sk_cpu_mask_text());
	printf("kernel: %s\n", sha1kit_kernel_name());
	printf("dc-kernel: %s\n", sha1kit_dc_kernel_name());
	printf("batch-kernel: %s\n", sha1kit_fast_batch_kernel_name());
	printf("dc-batch-kernel: %s\n", sha1kit_dc_batch_kernel_name());
	printf("sha256-kernel: %s\n", sha1kit_sha256_kernel_name());
	printf("sha256-batch-kernel: %s\n", sha1kit_sha256_batch_kernel_name());
}
