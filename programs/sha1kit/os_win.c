/*
 * os_win.c - what the Windows build of the sha1kit program has instead of a POSIX part: the start
 * (sk_win_init); `sha1kit bench` and `sha1kit report`, which run sha1kit-bench (bench_exec.c) and
 * measure against peers Debian has no MinGW builds of, are not part of it (docs/git.md). The POSIX
 * calls of the other commands are in src/git/os_win.h.
 */
#include <stdlib.h>

#include "cli.h"

void sk_win_init(void)
{
	static char name[] = SK_PROGRAM;
	skg_os_init();
	/* MinGW's getopt_long names the process's own argv[0] (the path of sha1kit.exe) in its
	 * messages, not the argv it is given: "sha1kit", as on POSIX. */
	if (__argv != NULL && __argv[0] != NULL)
		__argv[0] = name;
}

int sk_cmd_bench(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sk_error(0, "bench: not part of the Windows build (run sha1kit bench on Linux)");
	return SK_EXIT_FAILURE;
}

int sk_cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sk_error(0, "report: not part of the Windows build (it is run by sha1kit-bench)");
	return SK_EXIT_FAILURE;
}
