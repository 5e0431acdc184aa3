/*
 * verify_pack.c - `sha1kit verify-pack`: check Git packs against their indexes, with the output of
 * `git verify-pack` (-v: one line per object, the delta chain histogram and "PACK: ok").
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha1kit/git_pack.h>

#include "cli.h"
#include "pack_io.h"

#define CMD          "verify-pack"
#define USAGE_STATUS 129 /* git's exit status for a usage error (parse-options) */

static void verify_pack_usage(void)
{
	fputs("Usage: sha1kit verify-pack [OPTION]... PACK|IDX...\n"
	      "Check Git pack files against their indexes, like `git verify-pack`.\n"
	      "\n"
	      "Each argument names a pack by its .pack or .idx file (or by the name without\n"
	      "the extension): both NAME.pack and NAME.idx must exist. The pack is indexed as\n"
	      "by `sha1kit index-pack` (every object inflated, deltas resolved, object IDs\n"
	      "computed with SHA-1DC, which detects SHA-1 collision attacks, or with SHA-256\n"
	      "in a SHA-256 pack (see --object-format), the trailer checked) and the index it\n"
	      "gives must equal NAME.idx byte for byte. As in Git, an object that appears\n"
	      "twice in the pack makes it bad. Run inside a repository (of the pack's object\n"
	      "format), each object is compared with the copy the repository may have, as\n"
	      "git's verify-pack (its index-pack --verify) does: another content under the\n"
	      "same ID is 'fatal: SHA1 COLLISION FOUND WITH ID !' and the pack is bad (for a\n"
	      "pack of the repository itself every object is read again from it, as git does).\n"
	      "\n"
	      "  -v, --verbose         list the objects in pack order, then a histogram of\n"
	      "                          delta chain lengths, then 'NAME.pack: ok' (or\n"
	      "                          'NAME.pack: bad'; as in Git, the list and the\n"
	      "                          histogram come whenever the pack itself could be\n"
	      "                          indexed, before its .idx is compared)\n"
	      "  -s, --stat-only       print only the histogram (and 'NAME.pack: bad' when\n"
	      "                          the check fails); with -v too, as in Git, -s wins\n"
	      "      --no-verbose, --no-stat-only\n"
	      "                        undo -v / -s given before, as git's\n"
	      "      --threads=N       resolve deltas with N threads, N in " SK_THREADS_RANGE "\n"
	      "                          (default: one per online CPU; 0 means the same);\n"
	      "                          the entries are inflated and hashed on the N\n"
	      "                          threads too, from the offsets the idx gives; with\n"
	      "                          N over the CPUs online, one thread per CPU at most\n"
	      "                          inflates or resolves deltas at a time\n"
	      "      --stats           after each pack that is good, where the time went, on\n"
	      "                          standard error: one line per phase (setup,\n"
	      "                          Indexing objects, Resolving deltas, and 'after'\n"
	      "                          each: the index made and compared with NAME.idx)\n"
	      "                          and the total, with wall time, the process's CPU\n"
	      "                          time over all threads, and their ratio\n"
	      "      --git-version=VERSION\n"
	      "                        where git 2.39.5 and git 2.55.0 differ, do as VERSION,\n"
	      "                          2.39 or 2.55 (default: 2.55, or $SHA1KIT_GIT_VERSION):\n"
	      "                          an entry size longer than 57 bits is 'fatal: object\n"
	      "                          size too large for this platform' with 2.55 only\n"
	      "      --object-format=FORMAT\n"
	      "                        the object format of the packs, sha1 or sha256 (as\n"
	      "                          git's, which passes it to index-pack): default the\n"
	      "                          format of the repository verify-pack runs in\n"
	      "                          (extensions.objectFormat), else sha1. SHA-256\n"
	      "                          packs and their indexes have 32-byte IDs (64 hex\n"
	      "                          digits in -v's lines) and SHA-256 checksums. An\n"
	      "                          unknown FORMAT: git's 'fatal: unknown hash\n"
	      "                          algorithm 'FORMAT'' for each pack (exit status 1)\n"
	      "  -h, --help            display this help and exit (-h: with git's status for\n"
	      "                          it, 129)\n"
	      "      --version         output version information and exit\n"
	      "\n"
	      "NAME.pack and NAME.idx must be regular files: a FIFO, a device or a file\n"
	      "whose size is unknown (such as /proc/self/mem) is refused, never read.\n"
	      "\n"
	      "Object lines (-v), as Git prints them:\n"
	      "  ID TYPE SIZE SIZE-IN-PACK OFFSET                  for a whole object\n"
	      "  ID TYPE SIZE SIZE-IN-PACK OFFSET DEPTH BASE-ID     for a delta\n"
	      "TYPE is the object's type (padded to 6 columns), SIZE the size given by the\n"
	      "entry header (for a delta: of the delta data), SIZE-IN-PACK the bytes the\n"
	      "entry takes in the pack, DEPTH the length of its delta chain. The histogram:\n"
	      "'non delta: N objects', then 'chain length = D: N objects' for each D.\n"
	      "\n"
	      "Without -v or -s nothing is printed on success. A pack that git's index-pack\n"
	      "refuses as it reads it (git's verify-pack runs it) gives git's lines: 'fatal:\n"
	      "early EOF', 'fatal: pack signature mismatch', 'error: inflate: data stream\n"
	      "error (REASON)' then 'fatal: pack has bad object at offset N: inflate returned\n"
	      "-3', 'fatal: pack is corrupted (SHA1 mismatch)', 'fatal: pack has junk at the\n"
	      "end', ..., and where git dies in its second pass: 'fatal: pack has bad object\n"
	      "at offset N: failed to apply delta' (after 'error: delta replay has gone\n"
	      "wild', ...), 'fatal: pack has N unresolved deltas' (see sha1kit index-pack\n"
	      "--help), exit status 1 as git's. Other errors\n"
	      "go to standard error as 'sha1kit: verify-pack: NAME: REASON (at offset N)'.\n"
	      "An index that git itself cannot open fails before the pack is read, as in git\n"
	      "(no statistics, then 'NAME.pack: bad'), with git's lines: 'error: non-monotonic\n"
	      "index NAME.idx' (or: index file ... is too small, is version N and is not\n"
	      "supported..., wrong index v1/v2 file size in ...) then 'fatal: Cannot open\n"
	      "existing pack idx file for 'NAME.idx'' (also for a missing index), 'fatal:\n"
	      "offset beyond end of pack index for NAME.pack (truncated index?)', 'fatal:\n"
	      "Cannot open existing pack file 'NAME.idx'' (no NAME.pack). An index that\n"
	      "git opens but that differs from the one the pack gives is git's 'fatal: sha1\n"
	      "file 'NAME.idx' validation error' (or 'fatal: NAME.idx: sha1 file\n"
	      "truncated', '... has trailing garbage'), then 'NAME.pack: bad'. Then, as\n"
	      "git's (its index-pack reads pack.writeReverseIndex, on by default; with\n"
	      "--git-version=2.39 off by default, as in git 2.39), the\n"
	      "reverse index NAME.rev when there is one: it must be the one the pack gives,\n"
	      "byte for byte, else the same lines for NAME.rev ('fatal: could not stat:\n"
	      "...', 'fatal: NAME.rev: sha1 file read error: ...' where git's are). The\n"
	      "config is read as git's index-pack reads it (see sha1kit index-pack --help): a\n"
	      "bad value is git's fatal line for each pack, then 'NAME.pack: bad'. A file that\n"
	      "another process truncates while it is read gives\n"
	      "'sha1kit: verify-pack: NAME: the file shrank while it was read' and ends the\n"
	      "command at once (exit status 1).\n"
	      "\n"
	      "Exit status: 0 every pack is good; 1 a pack or index is bad or unreadable;\n"
	      "129 a usage error, as git's; 3 a collision attack was detected in an object\n"
	      "(the pack is then bad too).\n",
	      stdout);
}

static void print_histogram(const struct skg_pack *pack)
{
	uint32_t max = skg_pack_max_depth(pack), nr = skg_pack_count(pack);
	uint64_t *hist = calloc((size_t)max + 1, sizeof(uint64_t));
	if (hist == NULL) {
		return;
	}
	struct skg_pack_object o;
	for (uint32_t i = 0; i < nr && skg_pack_object(pack, i, &o); i++) {
		hist[o.depth]++;
	}
	if (hist[0] != 0) {
		printf("non delta: %" PRIu64 " object%s\n", hist[0], hist[0] == 1 ? "" : "s");
	}
	for (uint32_t d = 1; d <= max; d++) {
		if (hist[d] != 0) {
			printf("chain length = %" PRIu32 ": %" PRIu64 " object%s\n", d, hist[d],
			       hist[d] == 1 ? "" : "s");
		}
	}
	free(hist);
}

static void print_objects(const struct skg_pack *pack)
{
	char hex[SKG_MAX_HEXSZ + 1], base[SKG_MAX_HEXSZ + 1];
	const unsigned rawsz = skg_pack_rawsz(pack);
	struct skg_pack_object o;
	for (uint32_t i = 0; skg_pack_object(pack, i, &o); i++) {
		skg_to_hex_len(o.id, rawsz, hex);
		printf("%s %-6s %" PRIu64 " %" PRIu64 " %" PRIu64, hex, skg_type_name(o.type), o.size,
		       o.stored, o.offset);
		if (o.depth != 0) {
			skg_to_hex_len(o.base_id, rawsz, base);
			printf(" %" PRIu32 " %s", o.depth, base);
		}
		putchar('\n');
	}
}

/* The length of the name the argument gives without its .pack or .idx (git's verify-pack takes
 * NAME.pack, NAME.idx and NAME for NAME.pack). */
static size_t stem_len(const char *arg)
{
	size_t n = strlen(arg);
	if (n >= 5 && strcmp(arg + n - 5, ".pack") == 0) {
		return n - 5;
	}
	return n >= 4 && strcmp(arg + n - 4, ".idx") == 0 ? n - 4 : n;
}

/* Check one pack; returns the exit status bits. */
static int verify_one(const char *arg, bool verbose, bool stat_only, unsigned threads, bool stats,
                      unsigned git_version, unsigned object_format, struct skg_repo *repo, bool rev_index)
{
	size_t stem = stem_len(arg);
	char *pack_name = malloc(stem + 6), *idx_name = malloc(stem + 5), *rev_name = malloc(stem + 5);
	if (pack_name == NULL || idx_name == NULL || rev_name == NULL) {
		free(pack_name);
		free(idx_name);
		free(rev_name);
		sk_error(ENOMEM, CMD);
		return SK_EXIT_FAILURE;
	}
	memcpy(pack_name, arg, stem);
	memcpy(pack_name + stem, ".pack", 6);
	memcpy(idx_name, arg, stem);
	memcpy(idx_name + stem, ".idx", 5);
	memcpy(rev_name, arg, stem);
	memcpy(rev_name + stem, ".rev", 5);

	int status = SK_EXIT_FAILURE;
	struct skg_file file = {0}, old_idx = {0};
	struct skg_pack *pack = NULL;
	struct skg_error err;
	/* As git (its index-pack --verify): an idx that git cannot open fails before the pack is
	 * read (no statistics), with git's lines. */
	if (sk_idx_open_as_git(&old_idx, CMD, idx_name, object_format) != 0 ||
	    sk_pack_map_as_git(&file, CMD, pack_name) != 0) {
		goto out; /* git's child index-pack dies (its line); verify-pack exits 1 */
	}
	struct sk_progress progress; /* no progress lines (as git's verify-pack): the phases for --stats */
	sk_progress_init_stats(&progress, false, stats);
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	opt.object_format = object_format;
	opt.progress.fn = sk_progress_cb;
	opt.progress.ctx = &progress;
	opt.threads = threads;
	opt.cache_limit = ((uint64_t)96 << 20) * threads;
	opt.release = skg_file_release;
	opt.release_ctx = &file;
	opt.read = skg_file_read;
	opt.read_ctx = &file;
	opt.idx = old_idx.data; /* the first pass on all the threads (checked against the pack) */
	opt.idx_len = old_idx.len;
	opt.sink.report = sk_pack_print_record; /* git's lines before its die */
	opt.on_map = sk_guard_map;              /* the repository's packs the collision check reads */
	opt.map_ctx = (void *)CMD;
	if (repo != NULL && skg_repo_object_format(repo) == object_format) {
		/* git's index-pack --verify in the repository compares each object with its copy */
		opt.repo = repo;
	}
	if (skg_pack_index(&pack, file.data, file.len, &opt, &err) != 0) {
		if (err.code == SKG_E_GIT) {
			/* git's index-pack dies: the collision check, a delta that does not apply, deltas
			 * left unresolved; git's fatal line, the pack bad (verify-pack: 1) */
			sk_flush_stdout();
			sk_git_line("fatal: %s\n", err.msg);
			goto out;
		}
		/* A failure because the pack was truncated meanwhile says so. */
		if (sk_file_report_shrank(&file, CMD)) {
			goto out;
		}
		/* git's verify-pack runs index-pack --verify: its lines where its first pass dies */
		if (sk_pack_git_refused(file.data, file.len, true, git_version, object_format, &err, NULL)) {
			goto out;
		}
		sk_pack_report(CMD, pack_name, &err);
		if (err.code == SKG_E_COLLISION) {
			status |= SK_EXIT_COLLISION;
		}
		goto out;
	}
	/* As Git: the statistics of an indexed pack come before the check of its index. */
	if (verbose) {
		print_objects(pack);
	}
	if (verbose || stat_only) {
		print_histogram(pack);
	}
	/* Compared piece by piece as it is made: the idx is never whole in memory. What was printed
	 * goes out first: should the idx shrink meanwhile, the SIGBUS handler exits at once. As git's
	 * verify-pack (index-pack --verify --strict), with the layout found in the idx. */
	sk_flush_stdout();
	skg_idx_layout(old_idx.data, old_idx.len, &opt);
	opt.strict = true;
	if (skg_pack_verify_idx_as_git(pack, &opt, &old_idx, idx_name, &err) != 0) {
		if (sk_file_report_shrank(&old_idx, CMD)) {
			goto out;
		}
		if (err.code == SKG_E_GIT) {
			/* git's die (its index-pack --verify): an object twice, "sha1 file 'NAME.idx'
			 * validation error", "NAME.idx: sha1 file truncated", ... */
			sk_flush_stdout();
			sk_git_line("fatal: %s\n", err.msg);
		} else {
			sk_pack_report(CMD, pack_name, &err);
		}
		goto out;
	}
	/* then, with the reverse index on, the .rev beside the idx (git's index-pack --verify:
	 * write_rev_file with WRITE_REV_VERIFY; a missing one is fine) */
	if (rev_index && sk_verify_rev(CMD, pack, rev_name) != SK_EXIT_OK) {
		goto out;
	}
	status = SK_EXIT_OK;
	if (verbose) {
		printf("%s: ok\n", pack_name);
	}
	sk_flush_stdout();
	sk_progress_stats(&progress, CMD);
out:
	if (status != SK_EXIT_OK && (verbose || stat_only)) {
		printf("%s: bad\n", pack_name);
	}
	sk_flush_stdout();
	skg_pack_free(pack);
	skg_file_unmap(&file);
	skg_file_unmap(&old_idx);
	free(pack_name);
	free(idx_name);
	free(rev_name);
	return status;
}

/* The lines of the set-up's warnings (skg_repo_open_gently), as git prints them. */
struct setup_lines {
	char text[4096];
	size_t len;
};

static void keep_setup_line(void *ctx, const struct skg_report *r)
{
	struct setup_lines *s = ctx;
	const char *prefix = skg_level_prefix(r->level);
	if (prefix != NULL && s->len < sizeof(s->text)) {
		int n = snprintf(s->text + s->len, sizeof(s->text) - s->len, "%s%s\n", prefix, r->text);
		s->len = n < 0                                  ? s->len
		         : s->len + (size_t)n < sizeof(s->text) ? s->len + (size_t)n
		                                                : sizeof(s->text) - 1;
	}
}

int sk_cmd_verify_pack(int argc, char **argv)
{
	enum {
		OPT_THREADS = 256,
		OPT_STATS,
		OPT_GIT_VERSION,
		OPT_OBJECT_FORMAT,
		OPT_NO_VERBOSE,
		OPT_NO_STAT_ONLY,
		OPT_HELP,
		OPT_VERSION
	};
	static const struct option options[] = {
	    {"verbose", no_argument, NULL, 'v'},
	    {"stat-only", no_argument, NULL, 's'},
	    {"no-verbose", no_argument, NULL, OPT_NO_VERBOSE},
	    {"no-stat-only", no_argument, NULL, OPT_NO_STAT_ONLY},
	    {"threads", required_argument, NULL, OPT_THREADS},
	    {"stats", no_argument, NULL, OPT_STATS},
	    {"git-version", required_argument, NULL, OPT_GIT_VERSION},
	    {"object-format", required_argument, NULL, OPT_OBJECT_FORMAT},
	    {"help", no_argument, NULL, OPT_HELP},
	    {"version", no_argument, NULL, OPT_VERSION},
	    {NULL, 0, NULL, 0},
	};
	bool verbose = false, stat_only = false, stats = false;
	const char *bad_format = NULL;
	unsigned threads = 0, git_version = SKG_GIT_2_55, object_format = 0;
	int c;

	sk_git_version_env(CMD, USAGE_STATUS, &git_version); /* as --git-version's */
	optind = 0;
	while ((c = getopt_long(argc, argv, "vsh", options, NULL)) != -1) {
		switch (c) {
		case 'v':
			verbose = true;
			break;
		case 's':
			stat_only = true;
			break;
		case OPT_NO_VERBOSE: /* git's options are negatable: the last one counts */
			verbose = false;
			break;
		case OPT_NO_STAT_ONLY:
			stat_only = false;
			break;
		case OPT_THREADS:
			if (!sk_parse_threads(optarg, &threads)) {
				sk_usage_exit(USAGE_STATUS, CMD, CMD ": " SK_THREADS_INVALID, optarg);
			}
			break;
		case OPT_STATS:
			stats = true;
			break;
		case OPT_GIT_VERSION:
			sk_git_version_arg(CMD, USAGE_STATUS, optarg, &git_version);
			break;
		case OPT_OBJECT_FORMAT:
			/* git's verify-pack passes it to the index-pack it runs for each pack, which
			 * dies on a name it does not know */
			object_format = skg_format_from_name(optarg);
			bad_format = object_format == 0 ? optarg : NULL;
			break;
		case OPT_HELP:
			verify_pack_usage();
			return sk_finish_git(SK_EXIT_OK, 1);
		case 'h':
			verify_pack_usage(); /* git's -h: the usage on standard output, status 129 */
			return sk_finish_git(USAGE_STATUS, 1);
		case OPT_VERSION:
			sk_print_version();
			return sk_finish_git(SK_EXIT_OK, 1);
		default:
			sk_usage_exit(USAGE_STATUS, CMD, NULL);
		}
	}
	sk_git_command_config(); /* git -c KEY=VALUE that does not parse: git dies at its config read */
	if (optind >= argc) {
		sk_usage_exit(USAGE_STATUS, CMD, CMD ": missing PACK or IDX operand");
	}
	if (stat_only) {
		verbose = false; /* as git's: -s wins over -v, in either order */
	}
	if (threads == 0) {
		threads = sk_online_cpus();
	}
	/* git's verify-pack runs index-pack in the repository it is in, if any, which reads the pack
	 * in the repository's object format (SHA-1 outside one, or when the repository does not
	 * open) and compares its objects with the repository's */
	struct skg_repo *repo = NULL;
	struct skg_error err;
	/* the warnings of each index-pack's gentle set-up (a repository whose format git refuses),
	 * printed before each pack */
	struct setup_lines setup = {{0}, 0};
	const struct skg_sink setup_sink = {keep_setup_line, &setup};
	if (skg_repo_open_gently(&repo, git_version, &setup_sink, &err) != 0) {
		repo = NULL;
	}
	if (object_format == 0) {
		object_format = repo != NULL ? skg_repo_object_format(repo) : SKG_FORMAT_SHA1;
	}
	/* the config that index-pack reads first (builtin/index-pack.c git_index_pack_config):
	 * pack.writeReverseIndex, or by default the Git's rule (2.41+: on; 2.39: off), says whether
	 * NAME.rev is checked; a bad value is its die, for each pack */
	struct skg_index_options cfg;
	skg_index_options_default(&cfg);
	cfg.git_version = git_version;
	cfg.rev_index = git_version >= SKG_GIT_2_55;
	bool cfg_bad = skg_index_read_config(repo, &cfg, NULL, &err) != 0;
	if (cfg_bad && err.code != SKG_E_GIT) {
		sk_error(err.code == SKG_E_NOMEM ? ENOMEM : 0, CMD ": %s", err.msg);
		skg_repo_free(repo);
		return sk_finish_git(SK_EXIT_FAILURE, 1);
	}
	int status = SK_EXIT_OK;
	for (int i = optind; i < argc; i++) {
		if (setup.len > 0) {
			sk_flush_stdout();
			sk_git_line("%.*s", (int)setup.len, setup.text);
		}
		if (cfg_bad || bad_format != NULL || argv[i][0] == '-') {
			/* as git's: its index-pack child dies before it reads the pack, then the pack is
			 * "bad": the config is read before the options, and a name that starts with '-' is
			 * taken for an option (the usage line, exit 129) */
			if (cfg_bad) {
				sk_git_line("fatal: %s\n", err.msg);
			} else if (bad_format != NULL) {
				sk_git_line("fatal: unknown hash algorithm '%s'\n", bad_format);
			} else {
				sk_flush_stdout();
				sk_git_line("usage: %s\n", sk_index_pack_usage(git_version));
			}
			if (verbose || stat_only) {
				printf("%.*s.pack: bad\n", (int)stem_len(argv[i]), argv[i]);
			}
			status |= SK_EXIT_FAILURE;
			continue;
		}
		status |= verify_one(argv[i], verbose, stat_only, threads, stats, git_version, object_format,
		                     repo, cfg.rev_index);
	}
	skg_repo_free(repo);
	return sk_finish_git(status, 1);
}
