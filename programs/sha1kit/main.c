/*
 * main.c - `sha1kit COMMAND [ARG]...`: top-level options and the command table.
 *
 * To add a command, write `int sk_cmd_NAME(int argc, char **argv)` in its own file (argv[0] is
 * "sha1kit"; parse options with getopt_long from optind = 0), declare it in cli.h, add it to
 * `commands` below and to CMakeLists.txt.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pack_io.h"

static int cmd_help(int argc, char **argv);

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	bool git; /* a Git command: git's closed standard streams (run_command) */
};

static const struct command commands[] = {
    {"sum", sk_cmd_sum, "print or check SHA-1 checksums (sha1sum), detecting collision attacks", false},
    {"bench", sk_cmd_bench, "measure SHA-1 speed: every kernel, fast and DC, against OpenSSL", false},
    {"report", sk_cmd_report, "make a static results site from bench --json files of many machines", false},
    {"hash-object", sk_cmd_hash_object, "print Git object IDs (git hash-object), detecting collision attacks",
     true},
    {"index-pack", sk_cmd_index_pack, "build or check the index (.idx) of a Git pack, as git index-pack",
     true},
    {"verify-pack", sk_cmd_verify_pack, "check Git packs against their indexes, as git verify-pack", true},
    {"fsck", sk_cmd_fsck, "verify a whole Git repository, as git fsck --full", true},
    {"refs", sk_cmd_refs, "check a repository's refs: sha1kit refs verify, as git refs verify", true},
    {"help", cmd_help, "show this help, or the help of a command: sha1kit help COMMAND", false},
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static char program_name[] = SK_PROGRAM;

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++) {
		if (strcmp(commands[i].name, name) == 0) {
			return &commands[i];
		}
	}
	return NULL;
}

static void usage(void)
{
	printf("Usage: %s COMMAND [OPTION]... [ARGUMENT]...\n"
	       "  or:  %s --help | --version\n"
	       "SHA-1 with collision detection (SHA-1DC), fast, and the tools built on it.\n"
	       "\n"
	       "Commands:\n",
	       SK_PROGRAM, SK_PROGRAM);
	for (size_t i = 0; i < N_COMMANDS; i++) {
		/* Names longer than the column get their summary on the next line (80 columns). */
		if (strlen(commands[i].name) > 6) {
			printf("  %s\n  %-6s %s\n", commands[i].name, "", commands[i].summary);
		} else {
			printf("  %-6s %s\n", commands[i].name, commands[i].summary);
		}
	}
	printf("\n"
	       "Options:\n"
	       "  -h, --help     display this help and exit\n"
	       "      --version  output version information (library, compiler, SHA-1 kernel)\n"
	       "                   and exit\n"
	       "\n"
	       "Run '%s COMMAND --help' for the options of a command.\n"
	       "\n"
	       "Environment: SHA1KIT_CPU=-shani,-avx512 turns CPU features off for the choice\n"
	       "of kernel (names: see --version; -all: portable C only).\n"
	       "\n"
	       "Exit status: 0 success; 1 failure or usage error; 2 SHA-1 collision attack\n"
	       "detected; 3 both (see '%s sum --help'). The Git commands exit as git\n"
	       "does: 128 where git dies, 129 for a usage error (the message is sha1kit's,\n"
	       "naming its --help, not git's usage text), fsck with git fsck's bits, refs\n"
	       "verify with 255 for an error; index-pack and verify-pack with 3 for an\n"
	       "attack, as the pack is refused too.\n",
	       SK_PROGRAM, SK_PROGRAM);
}

static void unknown_command(const char *name)
{
	sk_error(0, "'%s' is not a %s command; see '%s --help'", name, SK_PROGRAM, SK_PROGRAM);
	exit(SK_EXIT_FAILURE);
}

/* Run `cmd` with argv = {"sha1kit", args...}. */
static int run_command(const struct command *cmd, int argc, char **argv)
{
	argv[0] = program_name;
#ifndef _WIN32
	if (cmd->git) {
		/* the Git commands: a closed standard stream is /dev/null, as git's sanitize_stdfds
		 * makes it (hash-object --stdin then hashes the empty blob; sum keeps GNU's errors);
		 * but index-pack's standard output, whose pack line must reach its reader: with it
		 * closed, no index is left (sha1kit index-pack --help) */
		for (int k = 0; k <= 2; k++) {
			if ((k != 1 || cmd->run != sk_cmd_index_pack) && fcntl(k, F_GETFD) < 0 &&
			    errno == EBADF) {
				int fd = open("/dev/null", O_RDWR);
				if (fd >= 0 && fd != k) {
					dup2(fd, k);
					close(fd);
				}
			}
		}
	}
#endif
	return cmd->run(argc, argv);
}

/* `sha1kit help [COMMAND]` */
static int cmd_help(int argc, char **argv)
{
	static const struct option options[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int c;
	bool help = false;
	optind = 0;
	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (c != 'h') {
			sk_usage_error(NULL, NULL);
		}
		help = true;
	}
	if (optind == argc || help) {
		usage();
		return sk_finish(SK_EXIT_OK, false);
	}
	if (argc - optind > 1) {
		sk_usage_error(NULL, "help: extra operand '%s'", argv[optind + 1]);
	}
	const struct command *cmd = find_command(argv[optind]);
	if (cmd == NULL) {
		unknown_command(argv[optind]);
	}
	if (cmd->run == cmd_help) {
		usage();
		return sk_finish(SK_EXIT_OK, false);
	}
	static char help_opt[] = "--help";
	char *help_argv[] = {program_name, help_opt, NULL};
	return run_command(cmd, 2, help_argv);
}

int main(int argc, char **argv)
{
	enum { OPT_HELP = 256, OPT_VERSION };
	static const struct option options[] = {
	    {"help", no_argument, NULL, OPT_HELP},
	    {"version", no_argument, NULL, OPT_VERSION},
	    {NULL, 0, NULL, 0},
	};
	int c;

#ifdef _WIN32
	sk_win_init(); /* binary files and standard streams, getopt's name (os_win.c) */
#endif
	setlocale(LC_ALL, "");
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
	/* glibc gives threads up to 8 heap arenas per CPU, each keeping what was freed in it: with
	 * more threads than CPUs (--threads), the heap would grow with the threads although no more
	 * of them run at once. One arena per CPU online, unless MALLOC_ARENA_MAX says otherwise. */
	if (getenv("MALLOC_ARENA_MAX") == NULL) {
		mallopt(M_ARENA_MAX, (int)sk_online_cpus());
	}
#endif
	/* An invalid SHA1KIT_CPU stops every command, but not a request for help (which explains it). */
	bool help = argc > 1 && strcmp(argv[1], "help") == 0;
	for (int i = 1; i < argc && !help; i++) {
		help = strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0;
	}
	if (argc < 1) {
		return SK_EXIT_FAILURE;
	}
	/* Run through a link named sha1sum or sha256sum: `sum` (with --sha256) under that name, as a
	 * drop-in for GNU's (messages and usage lines name the link, that of SHA1KIT_CPU too). */
	const char *base = strrchr(argv[0], '/');
#ifdef _WIN32
	const char *bs = strrchr(argv[0], '\\');
	base = bs != NULL && (base == NULL || bs > base) ? bs : base;
#endif
	base = base != NULL ? base + 1 : argv[0];
	size_t blen = strcspn(base, ".");
	bool sha1 = blen == 7 && strncmp(base, "sha1sum", 7) == 0;
	bool sha256 = blen == 9 && strncmp(base, "sha256sum", 9) == 0;
	if ((sha1 || sha256) && (base[blen] == '\0' || strcmp(base + blen, ".exe") == 0)) {
		/* GNU's messages name the program by argv[0] as it was given */
		sk_set_alias(argv[0], sha256);
		if (!help && sk_check_cpu_mask() != 0) {
			return SK_EXIT_FAILURE;
		}
		return find_command("sum")->run(argc, argv);
	}
	if (!help && sk_check_cpu_mask() != 0) {
		return SK_EXIT_FAILURE;
	}
	argv[0] = program_name; /* getopt_long names the program after argv[0] in its messages */
	/* '+': stop at the command name; what follows belongs to the command. */
	while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
		switch (c) {
		case OPT_HELP:
		case 'h':
			usage();
			return sk_finish(SK_EXIT_OK, false);
		case OPT_VERSION:
			sk_print_version();
			return sk_finish(SK_EXIT_OK, false);
		default:
			sk_usage_error(NULL, NULL);
		}
	}
	if (optind >= argc) {
		sk_usage_error(NULL, "missing command");
	}
	const struct command *cmd = find_command(argv[optind]);
	if (cmd == NULL) {
		unknown_command(argv[optind]);
	}
	return run_command(cmd, argc - optind, argv + optind);
}
