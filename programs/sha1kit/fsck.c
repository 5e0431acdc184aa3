/*
 * fsck.c - `sha1kit fsck`: verify a whole repository as `git fsck --full` does, with SHA-1DC on
 * every object, and print what git prints (stdout: broken links, missing, dangling, unreachable,
 * root and tagged lines; stderr: errors, warnings, notices) with git's exit status bits.
 *
 * The check is the Git layer's skg_check_repo (<sha1kit/git_fsck.h>, src/git/fsck_*.c): this
 * file parses the options, renders git's progress lines, prints the check's records (each one
 * git's line: stdout for results, stderr for the rest) and maps the result to the exit status.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sha1kit/git_fsck.h>

#include "cli.h"
#include "pack_io.h"

#define CMD          "fsck"
#define USAGE_STATUS 129 /* git's exit status for a usage error (parse-options) */

/* SHA1KIT_FSCK_TRACE=FILE: every record of the check appended to FILE as one line,
 * "EXIT_BITS<TAB>ID<TAB>MSG_ID<TAB>LINE" (MSG_ID "-" where there is none; LINE git's line with its
 * prefix, empty for a record git does not print, its newlines and backslashes written \n and \\),
 * then "exit STATUS" (the man page, ENVIRONMENT). */
#define TRACE_ENV "SHA1KIT_FSCK_TRACE"

/* A record of the check: git's line, on stdout for a result, else on stderr (stdout flushed
 * first, so that both streams keep git's order when they are one file). ctx: the trace file or
 * NULL. */
static void print_record(void *ctx, const struct skg_report *r)
{
	const char *prefix = skg_level_prefix(r->level);
	FILE *trace = ctx;
	if (trace != NULL) {
		fprintf(trace, "%u\t%d\t%s\t%s", r->exit_bits, r->id, r->msg_id != NULL ? r->msg_id : "-",
		        prefix != NULL ? prefix : "");
		for (const char *p = prefix != NULL ? r->text : ""; *p != '\0'; p++) {
			/* one line per record: a fatal record of several lines has them as \n */
			if (*p == '\n' || *p == '\\') {
				fputc('\\', trace);
				fputc(*p == '\n' ? 'n' : '\\', trace);
			} else {
				fputc(*p, trace);
			}
		}
		fputc('\n', trace);
	}
	if (prefix == NULL) {
		return; /* git says nothing */
	}
	if (r->level == SKG_LEVEL_OUTPUT) {
		fputs(r->text, stdout);
		putchar('\n');
		return;
	}
	fflush(stdout);
	fprintf(stderr, "%s%s\n", prefix, r->text);
}

/* git's progress.c as fsck uses it: "TITLE:  P% (N/TOTAL)\r", and "TITLE: P% (N/TOTAL), done.\n"
 * at the end of a phase (the check calls these where git draws its line). */
static void progress_line(const char *title, uint64_t done, uint64_t total, const char *end)
{
	if (total == 0) { /* a meter without a total, as git draws it: the count alone */
		fprintf(stderr, "%s: %" PRIu64 "%s", title, done, end);
	} else {
		unsigned pct = (unsigned)(done * 100 / total);
		fprintf(stderr, "%s: %3u%% (%" PRIu64 "/%" PRIu64 ")%s", title, pct, done, total, end);
	}
	fflush(stderr);
}

/* What the progress callbacks do: git's lines (when shown), and --stats' phases. */
struct progress_ui {
	bool lines;
	struct sk_stats stats;
};

static void on_progress(void *ctx, const char *title, uint64_t done, uint64_t total)
{
	struct progress_ui *ui = ctx;
	sk_stats_phase(&ui->stats, title); /* the end is on_progress_stop */
	if (ui->lines) {
		progress_line(title, done, total, "\r");
	}
}

static void on_progress_start(void *ctx, const char *title, uint64_t total)
{
	struct progress_ui *ui = ctx;
	(void)total;
	sk_stats_phase(&ui->stats, title);
}

static void on_progress_stop(void *ctx, const char *title, uint64_t done, uint64_t total)
{
	struct progress_ui *ui = ctx;
	sk_stats_phase_end(&ui->stats, title);
	if (ui->lines && done != UINT64_MAX) {
		progress_line(title, done, total, ", done.\n");
	}
}

/* ---- the command ---------------------------------------------------------------------------------- */

/*
 * git's run_builtin after the command: when it succeeded, standard output is flushed and closed,
 * and a failure there is fatal (128); when it failed, or standard output is a pipe or a socket,
 * git does not look.
 */
static int git_finish(int status)
{
	struct stat st;
	if (status != 0 || fstat(fileno(stdout), &st) != 0 || S_ISFIFO(st.st_mode)
#if defined(S_ISSOCK)
	    || S_ISSOCK(st.st_mode)
#endif
	) {
		return status;
	}
	if (fflush(stdout) != 0) {
		sk_git_line("fatal: write failure on standard output: %s\n", strerror(errno));
		return 128;
	}
	if (ferror(stdout)) {
		sk_git_line("fatal: unknown write failure on standard output\n");
		return 128;
	}
	if (fclose(stdout) != 0) {
		sk_git_line("fatal: close failed on standard output: %s\n", strerror(errno));
		return 128;
	}
	return 0;
}

static void usage(void)
{
	printf("Usage: %s fsck [OPTION]... [GIT_DIR]\n"
	       "Verify the connectivity and validity of the objects of a Git repository, as\n"
	       "'git fsck --full' does, with SHA-1 collision detection (SHA-1DC) on every\n"
	       "object. A repository of SHA-256 object IDs (git init --object-format=sha256)\n"
	       "is checked in SHA-256, as git checks it.\n"
	       "\n"
	       "The repository is GIT_DIR, else --git-dir, else $GIT_DIR, else the one found\n"
	       "upwards from the current directory, as git finds it (bare or not, .git files,\n"
	       "alternates). Checked: every loose object and every pack with its idx (object\n"
	       "IDs recomputed with SHA-1DC, CRC-32s, trailers, the idx rebuilt and compared\n"
	       "byte for byte; a corrupt pack, or an idx whose checksum fails, is then read\n"
	       "object by object through the idx as git does, with git's lines), the syntax\n"
	       "of commits, trees and tags with git's message IDs and severities\n"
	       "(fsck.<msg-id>, fsck.skipList and core.bigFileThreshold in the config),\n"
	       "connectivity from every ref, HEAD, reflog and index entry, and the\n"
	       "commit-graph, multi-pack-index and .rev files. Where git 2.39.5 and git 2.55.0\n"
	       "differ, the lines are 2.55.0's (--git-version).\n"
	       "\n"
	       "Options:\n"
	       "      --git-dir=DIR        the repository (as git --git-dir)\n"
	       "      --[no-]dangling      print dangling objects (default: on)\n"
	       "      --[no-]unreachable   print every unreachable object instead\n"
	       "      --[no-]root          print root commits\n"
	       "      --[no-]tags          print tags and what they tag\n"
	       "      --[no-]name-objects  in the lines of the connectivity walk (broken link,\n"
	       "                             missing), describe each object by the name git\n"
	       "                             gives it, after its ID (default: off), e.g. \"ID\n"
	       "                             (refs/heads/main~2:src/main.c)\": the ref, reflog\n"
	       "                             entry (REF@{TIME}) or index entry (:PATH, or\n"
	       "                             INDEX:PATH of another worktree's index; : for\n"
	       "                             the cache-tree, :(STAGE):PATH for resolve-undo)\n"
	       "                             it is reached from first, then NAME:, NAME^,\n"
	       "                             NAME~N, NAME^2, NAME:PATH/ down the walk. The\n"
	       "                             object checks, which git runs before any name is\n"
	       "                             known, print IDs only, as in git\n"
	       "      --[no-]reflogs       take reflog entries as roots (default: on)\n"
	       "      --[no-]cache         take the index as roots (always so, as in git without\n"
	       "                             objects given)\n"
	       "      --[no-]connectivity-only\n"
	       "                           check only connectivity: as git, a pack's commits,\n"
	       "                             trees and tags are read, its blobs are not, and no\n"
	       "                             packed object is hashed (loose ones still are)\n"
	       "      --[no-]strict        stricter checks (git fsck --strict)\n"
	       "      --full               accepted: packs and alternates are always checked\n"
	       "                             (--no-full is refused: a usage error, 129)\n"
	       "      --[no-]references    first check the ref database as Git 2.48 and later\n"
	       "                             do (as 'sha1kit refs verify': git 2.55's lines,\n"
	       "                             exit bit 8 on an error). Default: on, as git\n"
	       "                             2.48+; off with --git-version=2.39, where\n"
	       "                             --references also drops the HEAD and reflog\n"
	       "                             lines git 2.53 no longer prints\n"
	       "      --git-version=VERSION\n"
	       "                           where git 2.39.5 and git 2.55.0 differ, give the\n"
	       "                             lines of VERSION, 2.39 or 2.55 (default: 2.55, or\n"
	       "                             $SHA1KIT_GIT_VERSION). With 2.55: the ref check\n"
	       "                             (--references), no HEAD or 'bad ref for' reflog\n"
	       "                             lines, the index named in its lines ('invalid sha1\n"
	       "                             pointer in cache-tree of .git/index') and read\n"
	       "                             in every worktree, dates with a sign 'badDate',\n"
	       "                             the .rev files checked (exit bit 64), loose\n"
	       "                             objects of unknown type 'corrupt or missing',\n"
	       "                             commit-graph chunks and chains as 2.43+ reads\n"
	       "                             them, the multi-pack-index as 2.55 loads and\n"
	       "                             verifies it, .bitmap checksums, an empty loose\n"
	       "                             object read as missing, the objects of the refs\n"
	       "                             read before the others (their lines first),\n"
	       "                             reflogs in name order, 2.55's grafts hint and\n"
	       "                             message IDs, .gitmodules URLs as 2.55 reads\n"
	       "                             them, a loose object that cannot be read or an\n"
	       "                             objects/pack that does not open reported and\n"
	       "                             gone past (2.39 dies there), and git's death\n"
	       "                             at a ref's packed object that an idx puts past\n"
	       "                             the end (before any other line); with 2.39, a\n"
	       "                             repository with an extension 2.39.5 does not\n"
	       "                             know (reftable refs, relativeWorktrees) refused\n"
	       "                             as it refuses it. Where else the two differ\n"
	       "                             (docs/git.md, section 5: an idx that does not\n"
	       "                             open), both give 2.39's lines\n"
	       "      --[no-]lost-found    write each dangling object into lost-found/ of the\n"
	       "                             repository (GIT_COMMON_DIR: the main one's from a\n"
	       "                             linked worktree, as git): commit/ID holds \"ID\",\n"
	       "                             other/ID a blob's content or the ID of a tree or\n"
	       "                             tag (implies --no-reflogs)\n"
	       "      --[no-]progress      progress lines on standard error (default: when it\n"
	       "                             is a terminal), git's lines byte for byte:\n"
	       "                             \"Checking objects:  42%% (N/TOTAL)\"\n"
	       "      --stats              at the end, where the time went on standard error:\n"
	       "                             one line per phase of the progress lines and a\n"
	       "                             total, with wall time, CPU time over all threads\n"
	       "                             and their ratio\n"
	       "      --threads=N          threads reading loose objects and pack entries and\n"
	       "                             resolving deltas, 0 to 1024 (0 or default: one\n"
	       "                             per CPU; with more, at most one per CPU resolves\n"
	       "                             deltas at a time)\n"
	       "  -h, --help               display this help and exit (-h: with git's status\n"
	       "                             for it, 129)\n"
	       "\n"
	       "Output as git fsck's: on standard output 'broken link from ...', 'missing TYPE\n"
	       "ID', 'dangling TYPE ID', 'unreachable TYPE ID', 'root ID', 'tagged ...'; on\n"
	       "standard error 'error in TYPE ID: msgId: detail', 'warning in ...' and the\n"
	       "errors of refs, packs and loose objects. A collision attack is an error naming\n"
	       "the object and its place (loose path, or pack and offset).\n"
	       "\n"
	       "Not as in git: objects cannot be named as arguments (the operand is the git\n"
	       "directory); --verbose is not supported (git -c settings, GIT_CONFIG_PARAMETERS,\n"
	       "are read as git reads them);\n"
	       "where git reads a failed delta base from another copy, sha1kit reads it from a\n"
	       "loose file or a pack checked before, not from a pack checked later; with\n"
	       "--connectivity-only, every loose object is still read and hashed: a corrupt one\n"
	       "is reported where git, which reads only the commits and trees its walk parses,\n"
	       "mostly says nothing (exit 0). Links to an object of another type get\n"
	       "git's lines: git keeps the type of the first it reads of the object\n"
	       "and the links to it, and sha1kit works that order out (the objects are read\n"
	       "again when there are such links); with --connectivity-only git types an object\n"
	       "by the first link that looks it up and reads it there ('Object ID not a tree'),\n"
	       "and a ref's commit or tag whose link names an object a ref before typed\n"
	       "otherwise does not parse ('bad parent', 'invalid sha1 pointer', dangling).\n"
	       "Where git dies part way (status 128: a ref or\n"
	       "the index names an object it cannot read), sha1kit prints git's lines and dies\n"
	       "there too. A repository found upwards that another user owns is refused unless\n"
	       "safe.directory allows it, as git does. Refs and reflogs in reftables (git init\n"
	       "--ref-format=reftable, Git 2.45+) are read as git 2.55 reads them, and so is a\n"
	       "table whose one ref block has a record that does not decode or keys out of\n"
	       "order (git's refs before it, 'could not read record for worktree', its seeks).\n"
	       "Another corrupt table of the main stack, where git 2.55 crashes or reads\n"
	       "outside its buffers, stops the check with one line naming it (status 128); a\n"
	       "linked worktree's stack that does not open is git's error line, and as in git\n"
	       "no reflog entry is read and no HEAD from that worktree on (status 8).\n"
	       "\n"
	       "Partial clones (git clone --filter=blob:none, tree:0, blob:limit=N): what the\n"
	       "packs with a .promisor file promise is not missing, as in git. git collects\n"
	       "those objects by reading the promisor packs, newest first, and stops at the\n"
	       "first object it cannot read: it dies there where the read fails (status 128),\n"
	       "and from a pack that does not open on nothing is promised, so what it promised\n"
	       "is reported missing; sha1kit does the same (git 2.39 also hashes each object\n"
	       "there: with --git-version=2.39 --connectivity-only the promisor packs are read\n"
	       "and hashed whole).\n"
	       "\n"
	       "Environment: SHA1KIT_FSCK_TRACE=FILE appends every line of the check to FILE\n"
	       "with the exit bits it adds, one line each: \"BITS<TAB>ID<TAB>MSG-ID<TAB>LINE\"\n"
	       "(ID the library's report kind, MSG-ID git's message ID or -, LINE git's line\n"
	       "with its prefix, empty for a record git does not print, newlines and\n"
	       "backslashes in it as \\n and \\\\), then \"exit STATUS\". The bits of the lines OR\n"
	       "to STATUS unless fsck died (128): which line made which bit.\n"
	       "\n"
	       "Exit status: the sum of git fsck's bits: 1 an object is corrupt, 2 an object is\n"
	       "missing (a broken link), 4 a pack is corrupt, 8 a ref is broken, 16 the\n"
	       "commit-graph, 32 the multi-pack-index, 64 a .rev file; 128 a SHA-1 collision\n"
	       "attack was detected (git dies there: 128), a .bitmap file with a bad checksum\n"
	       "(git 2.41+'s bit 128) or a fatal error (git's 128 too);\n"
	       "129 a usage error, as git's. 0 when everything is sound.\n",
	       SK_PROGRAM);
}

int sk_cmd_fsck(int argc, char **argv)
{
	enum {
		OPT_GIT_DIR = 256,
		OPT_DANGLING,
		OPT_NO_DANGLING,
		OPT_UNREACHABLE,
		OPT_NO_UNREACHABLE,
		OPT_ROOT,
		OPT_NO_ROOT,
		OPT_TAGS,
		OPT_NO_TAGS,
		OPT_NAME_OBJECTS,
		OPT_NO_NAME_OBJECTS,
		OPT_NO_CACHE,
		OPT_NO_CONN,
		OPT_NO_STRICT,
		OPT_REFLOGS,
		OPT_NO_REFLOGS,
		OPT_CACHE,
		OPT_CONN,
		OPT_STRICT,
		OPT_FULL,
		OPT_NO_FULL,
		OPT_PROGRESS,
		OPT_NO_PROGRESS,
		OPT_STATS,
		OPT_THREADS,
		OPT_HELP,
		OPT_LOST_FOUND,
		OPT_NO_LOST_FOUND,
		OPT_REFERENCES,
		OPT_NO_REFERENCES,
		OPT_GIT_VERSION,
	};
	static const struct option options[] = {
	    {"git-dir", required_argument, NULL, OPT_GIT_DIR},
	    {"dangling", no_argument, NULL, OPT_DANGLING},
	    {"no-dangling", no_argument, NULL, OPT_NO_DANGLING},
	    {"unreachable", no_argument, NULL, OPT_UNREACHABLE},
	    {"no-unreachable", no_argument, NULL, OPT_NO_UNREACHABLE},
	    {"root", no_argument, NULL, OPT_ROOT},
	    {"no-root", no_argument, NULL, OPT_NO_ROOT},
	    {"tags", no_argument, NULL, OPT_TAGS},
	    {"no-tags", no_argument, NULL, OPT_NO_TAGS},
	    {"name-objects", no_argument, NULL, OPT_NAME_OBJECTS},
	    {"no-name-objects", no_argument, NULL, OPT_NO_NAME_OBJECTS},
	    {"no-cache", no_argument, NULL, OPT_NO_CACHE},
	    {"no-connectivity-only", no_argument, NULL, OPT_NO_CONN},
	    {"no-strict", no_argument, NULL, OPT_NO_STRICT},
	    {"reflogs", no_argument, NULL, OPT_REFLOGS},
	    {"no-reflogs", no_argument, NULL, OPT_NO_REFLOGS},
	    {"cache", no_argument, NULL, OPT_CACHE},
	    {"connectivity-only", no_argument, NULL, OPT_CONN},
	    {"strict", no_argument, NULL, OPT_STRICT},
	    {"full", no_argument, NULL, OPT_FULL},
	    {"no-full", no_argument, NULL, OPT_NO_FULL},
	    {"progress", no_argument, NULL, OPT_PROGRESS},
	    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
	    {"stats", no_argument, NULL, OPT_STATS},
	    {"threads", required_argument, NULL, OPT_THREADS},
	    {"lost-found", no_argument, NULL, OPT_LOST_FOUND},
	    {"no-lost-found", no_argument, NULL, OPT_NO_LOST_FOUND},
	    {"references", no_argument, NULL, OPT_REFERENCES},
	    {"no-references", no_argument, NULL, OPT_NO_REFERENCES},
	    {"git-version", required_argument, NULL, OPT_GIT_VERSION},
	    {"help", no_argument, NULL, OPT_HELP},
	    {NULL, 0, NULL, 0},
	};
	struct skg_check_options o;
	const char *git_dir = NULL, *operand = NULL;
	int progress = -1; /* --progress 1, --no-progress 0, else (-1) when stderr is a terminal */
	bool stats = false;
	bool full = true; /* --no-full is refused */
	int refs = -1;    /* --references 1, --no-references 0, else (-1) as the Git followed */
	int c;
	skg_check_options_default(&o);
	sk_git_version_env(CMD, USAGE_STATUS, &o.git_version);
	/* the Git layer's mappings under the command's SIGBUS guard: a pack or idx truncated
	 * meanwhile gives one line and exit 1 (pack_io.c) */
	o.on_map = sk_guard_map;
	o.map_ctx = (void *)"fsck";
	optind = 0;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case OPT_GIT_DIR:
			git_dir = optarg;
			break;
		case OPT_DANGLING:
			o.show_dangling = true;
			break;
		case OPT_NO_DANGLING:
			o.show_dangling = false;
			break;
		case OPT_UNREACHABLE:
		case OPT_NO_UNREACHABLE:
			o.show_unreachable = c == OPT_UNREACHABLE;
			break;
		case OPT_ROOT:
		case OPT_NO_ROOT:
			o.show_root = c == OPT_ROOT;
			break;
		case OPT_TAGS:
		case OPT_NO_TAGS:
			o.show_tags = c == OPT_TAGS;
			break;
		case OPT_NAME_OBJECTS:
		case OPT_NO_NAME_OBJECTS:
			o.name_objects = c == OPT_NAME_OBJECTS;
			break;
		case OPT_NO_CACHE:
			/* as in git: without objects named, the index is always read */
			break;
		case OPT_NO_CONN:
			o.connectivity_only = false;
			break;
		case OPT_NO_STRICT:
			o.strict = false;
			break;
		case OPT_REFLOGS:
			o.include_reflogs = true;
			break;
		case OPT_NO_REFLOGS:
			o.include_reflogs = false;
			break;
		case OPT_CACHE:
			o.keep_cache = true;
			break;
		case OPT_CONN:
			o.connectivity_only = true;
			break;
		case OPT_STRICT:
			o.strict = true;
			break;
		case OPT_FULL:
		case OPT_NO_FULL:
			full = c == OPT_FULL; /* the last one counts, as in git */
			break;
		case OPT_LOST_FOUND:
		case OPT_NO_LOST_FOUND:
			o.lost_found = c == OPT_LOST_FOUND;
			break;
		case OPT_REFERENCES:
		case OPT_NO_REFERENCES:
			refs = c == OPT_REFERENCES;
			break;
		case OPT_GIT_VERSION:
			sk_git_version_arg(CMD, USAGE_STATUS, optarg, &o.git_version);
			break;
		case OPT_PROGRESS:
			progress = 1;
			break;
		case OPT_STATS:
			stats = true;
			break;
		case OPT_NO_PROGRESS:
			progress = 0;
			break;
		case OPT_THREADS:
			if (!sk_parse_threads(optarg, &o.threads)) {
				sk_usage_exit(USAGE_STATUS, CMD, CMD ": " SK_THREADS_INVALID, optarg);
			}
			break;
		case OPT_HELP:
			usage();
			return sk_finish(SK_EXIT_OK, false);
		case 'h':
			usage(); /* git's -h: the usage on standard output, status 129 */
			return sk_finish(129, false);
		default:
			sk_usage_exit(USAGE_STATUS, CMD, NULL);
		}
	}
	sk_git_command_config(); /* git -c KEY=VALUE that does not parse: git dies at its config read */
	if (!full) {
		/* git --no-full checks loose objects only and takes packed ones for missing in places
		 * (its reflog check: "invalid reflog entry"); sha1kit always reads packs and alternates */
		sk_usage_exit(USAGE_STATUS, CMD,
		              CMD ": --no-full is not supported: packs and alternates are always checked, as "
		                  "with --full");
	}
	if (argc - optind > 1) {
		sk_usage_exit(USAGE_STATUS, CMD, CMD ": extra operand '%s'", argv[optind + 1]);
	}
	if (optind < argc) {
		if (git_dir != NULL) {
			sk_usage_exit(USAGE_STATUS, CMD,
			              CMD ": --git-dir and the operand '%s' both name a repository",
			              argv[optind]);
		}
		git_dir = argv[optind];
		operand = argv[optind];
	}
	/* git 2.48+ checks the refs by default; 2.39 has no such check */
	o.check_refs = refs >= 0 ? refs == 1 : o.git_version >= SKG_GIT_2_55;
	if (progress < 0) {
		progress = isatty(STDERR_FILENO) ? 1 : 0;
	}
	struct progress_ui ui = {progress == 1, {0}};
	sk_stats_init(&ui.stats, stats);
	if (progress == 1 || stats) {
		o.progress = (struct skg_progress){on_progress, &ui, on_progress_stop, on_progress_start};
	}
	const char *trace_path = getenv(TRACE_ENV);
	FILE *trace = NULL;
	if (trace_path != NULL && *trace_path != '\0') {
		trace = fopen(trace_path, "a");
		if (trace == NULL) {
			sk_git_line("fatal: " TRACE_ENV ": cannot open '%s': %s\n", trace_path,
			            strerror(errno));
			return 128;
		}
	}
	struct skg_sink sink = {print_record, trace};
	struct skg_check_result res;
	struct skg_error err;
	int rc = skg_check_repo(git_dir, &o, &sink, &res, &err);
	if (trace != NULL) {
		fprintf(trace, "exit %d\n", rc == 0 ? res.exit_status : 128);
		if (fclose(trace) != 0) {
			sk_git_line("fatal: " TRACE_ENV ": cannot write '%s': %s\n", trace_path,
			            strerror(errno));
			return 128;
		}
	}
	if (rc == 0) {
		/* git fsck's start_command flushed standard output before it ran `git commit-graph
		 * verify` (its last lines are on standard error): a failure there shows at the end as
		 * git's "unknown write failure" */
		(void)fflush(stdout);
		sk_stats_print(&ui.stats, "fsck");
		return git_finish(res.exit_status);
	}
	switch (err.code) {
	case SKG_E_GIT:
		break; /* git's fatal line was the last record */
	case SKG_E_NOMEM:
		fflush(stdout);
		sk_git_line("fatal: Out of memory, malloc failed\n");
		break;
	case SKG_E_THREAD:
		fflush(stdout);
		sk_git_line("fatal: unable to create thread: %s\n",
		            strerror(err.sys_errno != 0 ? err.sys_errno : EAGAIN));
		break;
	default:
		fflush(stdout);
		sk_git_line("fatal: %s%s%s\n", err.msg, err.sys_errno != 0 ? ": " : "",
		            err.sys_errno != 0 ? strerror(err.sys_errno) : "");
		break;
	}
	if (operand != NULL && access(operand, F_OK) != 0 && errno == ENOENT) {
		/* `git fsck HEAD` checks an object: here the operand is the repository */
		sk_git_line("hint: the operand of sha1kit fsck is a repository, and '%s' is no path: objects "
		            "cannot be named for it to check (see sha1kit fsck --help)\n",
		            operand);
	}
	return git_finish(128);
}
