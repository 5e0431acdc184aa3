/*
 * bench_main.c - the program sha1kit-bench: `sha1kit bench` (bench.c), run by the sha1kit program
 * (programs/sha1kit/bench_exec.c) with the arguments that follow "bench". It is a program of its own
 * so that only it links the libraries the benchmark measures against, and jansson; sha1kit itself
 * links none. It can be run directly (sha1kit-bench --list); its help and messages name `sha1kit
 * bench`. `sha1kit report ARG...` runs it as `sha1kit-bench report ARG...` (report.c, which needs
 * jansson too): bench takes no operand, so a first argument "report" cannot be meant for it.
 */
#include <locale.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "report.h"

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	if (argc < 1 || sk_check_cpu_mask() != 0) /* as sha1kit does, for a direct run */
		return SK_EXIT_FAILURE;
	if (argc >= 2 && strcmp(argv[1], "report") == 0)
		return report_command(argc - 1, argv + 1);
	return bench_command(argc, argv);
}
