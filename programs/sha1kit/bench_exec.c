/*
 * bench_exec.c - `sha1kit bench` in the sha1kit program: it runs the program sha1kit-bench
 * (programs/bench/), which alone links the peers the benchmark measures (OpenSSL, nettle, libgcrypt,
 * ipsec-mb) and jansson, so that `sum`, `hash-object` and the pack commands load none of them.
 *
 * sha1kit-bench is looked for, in this order:
 *  1. next to the running sha1kit (the directory of /proc/self/exe): the build tree, where both
 *     programs are built into one directory;
 *  2. the install's libexec directory, found from that directory (SK_BENCH_LIBEXEC_REL: the path of
 *     LIBEXECDIR/sha1kit relative to BINDIR), so an installed tree works when it was installed
 *     with `cmake --install --prefix P` or moved;
 *  3. the install's libexec directory as configured (SK_BENCH_LIBEXEC_DIR, absolute).
 * It runs with the arguments that follow "bench"; its messages and help name `sha1kit bench`.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#ifndef SK_BENCH_LIBEXEC_DIR
#error "SK_BENCH_LIBEXEC_DIR (the directory sha1kit-bench is installed to) is set by CMakeLists.txt"
#endif

#define BENCH_PROGRAM "sha1kit-bench"
#define MAX_PLACES    3

struct places {
	char dir[MAX_PLACES][PATH_MAX];
	size_t n;
};

static void add_place(struct places *p, const char *dir)
{
	size_t len = strlen(dir);
	if (len == 0 || len + sizeof("/" BENCH_PROGRAM) > PATH_MAX || p->n >= MAX_PLACES)
		return;
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->dir[i], dir) == 0)
			return;
	memcpy(p->dir[p->n++], dir, len + 1);
}

#if defined(SK_BENCH_LIBEXEC_REL)
/* `dir` (absolute) followed by the relative path `rel`, each ".." removing the last component: a
 * clean absolute path, for the message as much as for execv. False if it does not fit. */
static bool join_relative(char *out, size_t n, const char *dir, const char *rel)
{
	size_t len = strlen(dir);
	if (len >= n)
		return false;
	memcpy(out, dir, len + 1);
	while (*rel != '\0') {
		size_t c = strcspn(rel, "/");
		if (c == 2 && rel[0] == '.' && rel[1] == '.') {
			char *slash = strrchr(out, '/');
			if (slash != NULL)
				*slash = '\0';
			len = strlen(out);
		} else if (c > 0 && !(c == 1 && rel[0] == '.')) {
			if (len + 1 + c >= n)
				return false;
			out[len++] = '/';
			memcpy(out + len, rel, c);
			len += c;
			out[len] = '\0';
		}
		rel += c;
		rel += *rel == '/';
	}
	if (out[0] == '\0')
		snprintf(out, n, "/");
	return true;
}
#endif

/* Run sha1kit-bench with the arguments that follow the command name; `command` is "bench" or
 * "report", and sha1kit-bench gets "report" as its first argument for the latter. */
static int run_bench_program(const char *command, int argc, char **argv)
{
	struct places places = {.n = 0};
	char self[PATH_MAX], path[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len > 0) {
		self[len] = '\0';
		/* `bench --git` times this very program (bench_git.c). */
		if (setenv("SHA1KIT_BENCH_SHA1KIT", self, 1) != 0) {
			sk_error(errno, "%s: cannot set SHA1KIT_BENCH_SHA1KIT", command);
			return SK_EXIT_FAILURE;
		}
		char *slash = strrchr(self, '/');
		if (slash != NULL) {
			slash[slash == self] = '\0'; /* "/sha1kit" -> "/" */
			add_place(&places, self);
#if defined(SK_BENCH_LIBEXEC_REL)
			if (self[0] == '/' && join_relative(path, sizeof(path), strcmp(self, "/") ? self : "",
			                                    SK_BENCH_LIBEXEC_REL))
				add_place(&places, path);
#endif
		}
	}
	add_place(&places, SK_BENCH_LIBEXEC_DIR);

	/* argv[0] of sha1kit-bench is its name; its messages say "sha1kit: bench: ..." anyway. */
	static char name[] = BENCH_PROGRAM, report[] = "report";
	bool is_report = strcmp(command, "report") == 0;
	char **args = calloc((size_t)argc + 2, sizeof(*args));
	if (args == NULL) {
		sk_error(errno, "%s: out of memory", command);
		return SK_EXIT_FAILURE;
	}
	size_t k = 0;
	args[k++] = name;
	if (is_report)
		args[k++] = report;
	for (int i = 1; i < argc; i++)
		args[k++] = argv[i];

	for (size_t i = 0; i < places.n; i++) {
		int w = snprintf(path, sizeof(path), "%s%s" BENCH_PROGRAM, places.dir[i],
		                 strcmp(places.dir[i], "/") ? "/" : "");
		if (w < 0 || (size_t)w >= sizeof(path) || access(path, F_OK) != 0)
			continue;
		fflush(NULL);
		execv(path, args);
		sk_error(errno, "%s: cannot run %s", command, sk_quote(path));
		free(args);
		return SK_EXIT_FAILURE;
	}
	free(args);

	char where[MAX_PLACES * (PATH_MAX + 8)] = "";
	size_t used = 0;
	for (size_t i = 0; i < places.n && used < sizeof(where); i++)
		used += (size_t)snprintf(where + used, sizeof(where) - used, "%s%s",
		                         i == 0              ? ""
		                         : i + 1 == places.n ? " and "
		                                             : ", ",
		                         places.dir[i]);
	sk_error(0,
	         "%s: " BENCH_PROGRAM " not found (looked in %s): build its target (`cmake --build DIR "
	         "--target " BENCH_PROGRAM
	         "`, or all targets; it needs -DSHA1KIT_BUILD_BENCH=ON, the default)",
	         command, where);
	return SK_EXIT_FAILURE;
}

int sk_cmd_bench(int argc, char **argv)
{
	return run_bench_program("bench", argc, argv);
}

/* `sha1kit report` (report.c) is in sha1kit-bench too: it reads JSON with jansson. */
int sk_cmd_report(int argc, char **argv)
{
	return run_bench_program("report", argc, argv);
}
