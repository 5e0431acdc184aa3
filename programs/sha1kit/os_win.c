/*
 * os_win.c - what the Windows build of the sha1kit program has instead of a POSIX part: `sha1kit
 * bench`, which runs sha1kit-bench (bench_exec.c) and measures against peers Debian has no MinGW
 * builds of, is not part of it (docs/git.md). The POSIX calls of the other commands are in
 * src/git/os_win.h.
 */
#include "cli.h"

int sk_cmd_bench(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sk_error(0, "bench: not part of the Windows build (run sha1kit bench on Linux)");
	return SK_EXIT_FAILURE;
}
