/*
 * refs.c - `sha1kit refs verify`: check the ref database as `git refs verify` (Git 2.47 and later)
 * does, with Git 2.55.0's checks, lines and exit status.
 *
 * The check is the Git layer's skg_refs_verify (<sha1kit/git_refs.h>, src/git/refs_verify.c):
 * this file parses the options, opens the repository and prints the records on standard error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha1kit/git_refs.h>

#include "cli.h"
#include "pack_io.h"

#define CMD          "refs"
#define USAGE_STATUS 129 /* git's exit status for a usage error (parse-options) */
#define FAILED       255 /* git's: cmd_refs_verify returns -1 when an error was reported */

static void print_record(void *ctx, const struct skg_report *r)
{
	const char *prefix = skg_level_prefix(r->level);
	(void)ctx;
	if (prefix != NULL) {
		fprintf(stderr, "%s%s\n", prefix, r->text);
	}
}

static void usage(void)
{
	printf("Usage: %s refs verify [--strict] [--verbose] [--git-dir=DIR]\n", SK_PROGRAM);
	fputs("Check the refs of a Git repository as `git refs verify` does (Git 2.47 and\n"
	      "later; the checks, lines and exit status of Git 2.55), which Git 2.55's `git\n"
	      "fsck` runs first. The repository is found as git finds it (GIT_DIR, or upwards\n"
	      "from the current directory), or named by --git-dir.\n"
	      "\n"
	      "For each worktree (the main one, then each of GIT_COMMON_DIR/worktrees/), every\n"
	      "file below refs/ (symbolic links not followed; names ending in .lock skipped),\n"
	      "then the root refs (HEAD, ORIG_HEAD, ...), then, once, packed-refs:\n"
	      "  badRefName             a ref whose name git would not accept\n"
	      "  badRefFiletype         a ref that is not a file or a symbolic link\n"
	      "  badRefContent          a ref that is neither an object ID nor 'ref: NAME'\n"
	      "  badRefOid              a ref holding the null object ID\n"
	      "  badReferentName        a symbolic ref to a name git would not accept\n"
	      "  badHeadTarget          a HEAD that points outside refs/heads/\n"
	      "  symrefTargetIsNotARef  a symbolic ref to something not below refs/ (warning)\n"
	      "  refMissingNewline      a ref without its final newline (warning)\n"
	      "  trailingRefContent     more after the object ID or ref name (warning)\n"
	      "  symlinkRef             a symbolic ref kept as a symbolic link (warning)\n"
	      "  badPackedRefHeader, badPackedRefEntry, packedRefEntryNotTerminated,\n"
	      "  packedRefUnsorted      a damaged packed-refs file\n"
	      "  emptyPackedRefsFile    an empty packed-refs file (warning)\n"
	      "Each finding is git's line on standard error, 'error: REF: msgId: TEXT' or\n"
	      "'warning: REF: msgId: TEXT'. The config's fsck.<msg-id> = error, warn or ignore\n"
	      "changes a message's severity, as in git.\n"
	      "In a SHA-256 repository (git init --object-format=sha256) an object ID is 64\n"
	      "hex digits, in refs, packed-refs and the fsck.skipList file, as git reads them\n"
	      "there (a SHA-1 ID there is badRefContent or badPackedRefEntry).\n"
	      "\n"
	      "Options:\n"
	      "      --[no-]strict   messages of severity 'warn' become errors (the ref\n"
	      "                        messages above marked as warnings are 'info' in git\n"
	      "                        and stay warnings)\n"
	      "      --[no-]verbose  git's lines 'Checking references consistency',\n"
	      "                        'Checking REF', 'Checking packed-refs file PATH'\n"
	      "      --git-dir=DIR   the repository (its git directory)\n"
	      "  -h, --help          display this help and exit (-h: with git's status for\n"
	      "                        it, 129)\n"
	      "\n"
	      "In a repository with reftable refs (git init --ref-format=reftable) the names\n"
	      "of the tables (badReftableTableName, a warning) and the value of every ref\n"
	      "are checked, as git 2.55 does; a table that does not read (on which git 2.55\n"
	      "crashes) is one 'fatal:' line naming it, exit status 128.\n"
	      "\n"
	      "Exit status: 0 no error (warnings may have been printed); 255 an error was\n"
	      "reported (git's status: its command returns -1); 128 the repository could not\n"
	      "be opened or its config is bad (git's 'fatal:' line); 129 a usage error.\n",
	      stdout);
}

int sk_cmd_refs(int argc, char **argv)
{
	enum { OPT_STRICT = 256, OPT_NO_STRICT, OPT_VERBOSE, OPT_NO_VERBOSE, OPT_GIT_DIR, OPT_HELP };
	static const struct option options[] = {
	    {"strict", no_argument, NULL, OPT_STRICT},
	    {"no-strict", no_argument, NULL, OPT_NO_STRICT},
	    {"no-verbose", no_argument, NULL, OPT_NO_VERBOSE},
	    {"verbose", no_argument, NULL, OPT_VERBOSE},
	    {"git-dir", required_argument, NULL, OPT_GIT_DIR},
	    {"help", no_argument, NULL, OPT_HELP},
	    {NULL, 0, NULL, 0},
	};
	struct skg_refs_verify_options o = {false, false};
	const char *git_dir = NULL;
	int c;
	optind = 0;
	/* "+": options end at the subcommand's name, then its own options follow it */
	while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
		if (c == OPT_HELP || c == 'h') {
			usage(); /* -h as git's: status 129 */
			return sk_finish(c == 'h' ? USAGE_STATUS : SK_EXIT_OK, false);
		}
		sk_usage_exit(USAGE_STATUS, CMD, c == '?' ? NULL : CMD ": options come after 'verify'");
	}
	if (optind >= argc) {
		sk_usage_exit(USAGE_STATUS, CMD, CMD ": need a subcommand (verify)");
	}
	if (strcmp(argv[optind], "verify") != 0) {
		sk_usage_exit(USAGE_STATUS, CMD, CMD ": unknown subcommand: '%s' (only 'verify' is known)",
		              argv[optind]);
	}
	int sub_argc = argc - optind;
	char **sub_argv = argv + optind;
	sub_argv[0] = argv[0]; /* getopt_long's messages name the program, not "verify" */
	/* git finds the repository before it parses the subcommand's options (RUN_SETUP): outside one,
	 * -h and a bad option give its fatal line too (--help, git's manual page, does not need one) */
	bool long_help = false;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(sub_argc, sub_argv, "h", options, NULL)) != -1) {
		git_dir = c == OPT_GIT_DIR ? optarg : git_dir;
		long_help = long_help || c == OPT_HELP;
	}
	opterr = 1;
	struct skg_sink sink = {print_record, NULL};
	struct skg_error err;
	struct skg_repo *repo = NULL;
	int r = long_help ? 0 : skg_repo_open_formats(&repo, git_dir, SKG_GIT_2_55, &sink, &err);
	if (r != 0) {
		goto fail;
	}
	optind = 0;
	while ((c = getopt_long(sub_argc, sub_argv, "h", options, NULL)) != -1) {
		switch (c) {
		case OPT_STRICT:
		case OPT_NO_STRICT:
			o.strict = c == OPT_STRICT;
			break;
		case OPT_VERBOSE:
		case OPT_NO_VERBOSE:
			o.verbose = c == OPT_VERBOSE;
			break;
		case OPT_GIT_DIR:
			git_dir = optarg;
			break;
		case OPT_HELP:
			usage();
			return sk_finish(SK_EXIT_OK, false);
		case 'h':
			usage(); /* git's -h: the usage on standard output, status 129 */
			return sk_finish(USAGE_STATUS, false);
		default:
			sk_usage_exit(USAGE_STATUS, CMD, NULL);
		}
	}
	sk_git_command_config(); /* git -c KEY=VALUE that does not parse: git dies at its config read */
	if (optind < sub_argc) {
		sk_usage_exit(USAGE_STATUS, CMD, CMD ": 'refs verify' takes no arguments (got '%s')",
		              sub_argv[optind]);
	}
	r = skg_refs_verify(repo, &o, &sink, &err);
	skg_repo_free(repo);
	if (r >= 0) {
		return sk_finish(r > 0 ? FAILED : SK_EXIT_OK, false);
	}
fail:
	fflush(stdout);
	switch (err.code) {
	case SKG_E_NOMEM:
		sk_git_line("fatal: Out of memory, malloc failed\n");
		break;
	default:
		sk_git_line("fatal: %s%s%s\n", err.msg, err.sys_errno != 0 ? ": " : "",
		            err.sys_errno != 0 ? strerror(err.sys_errno) : "");
		break;
	}
	return 128;
}
