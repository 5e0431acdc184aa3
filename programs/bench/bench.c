/*
 * bench.c - `sha1kit bench`: throughput of every SHA-1 kernel this CPU runs, in both flavours (plain
 * and collision-detecting), against the SHA-1 of other libraries linked at build time, measured the
 * same way in the same process so that ratios can be compared across machines. Part of the program
 * sha1kit-bench (bench_main.c), which `sha1kit bench` runs (programs/sha1kit/bench_exec.c). The
 * implementations are measured through bench_impl.h only.
 *
 * Method (also printed in the header of every output):
 *  - every message is hashed one-shot (init, update, final) from a buffer filled from a fixed seed
 *    (random data: on it about 1 block in 20 passes SHA-1DC's UBC filter, as in real use), either
 *    64-byte aligned or at offset +1; each size has distinct messages (1 MiB of them, at most 4096)
 *    hashed in turn, so that the filter's flagged blocks, and the recompressions they cost, come at
 *    their real rate (--fixed-message: one message again and again, as result files before 2026-12 were);
 *  - the clock is the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID): time the scheduler gives
 *    to other processes does not count, which matters on a shared machine;
 *  - per size, each implementation is calibrated to a sample of at least --sample-ms (20 ms), then
 *    warmed up, then the repetitions run round-robin across implementations (rotating the start) so
 *    that slow drifts of the machine hit all of them alike;
 *  - the result is the median ns per message, with min/max and quartiles; ratios are baseline
 *    median / implementation median at the same size and alignment, from the same run.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_git.h"
#include "bench_impl.h"
#include "bench_measure.h"
#include "bench_output.h"
#include "bench_peers.h"
#include "bench_sha1kit.h"
#include "cli.h"

#define BENCH_CMD "bench"

#define MAX_IMPLS       64
#define MAX_SIZE        ((size_t)1 << 30)
#define NO_SHANI        ":~0x20000000" /* OPENSSL_ia32cap: clear CPUID.(EAX=7).EBX bit 29 (SHA) */
#define SEED            UINT64_C(0x5348413142454e43) /* "SHA1BENC" */
#define DEF_REPS        9
#define DEF_SAMPLE      20.0
#define QUICK_REPS      3
#define QUICK_SAMPL     2.0
#define MESSAGE_BYTES   ((size_t)1 << 20)    /* the distinct messages of one size, at most */
#define SHA256_BASELINE "openssl-evp-sha256" /* the SHA-256 rows' baseline with --all-hashes */
#define MAX_MESSAGES    4096

static const size_t default_sizes[] = {64, 1024, 16384, 1048576};
static const size_t quick_sizes[] = {64, 1024, 16384};

enum format { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_MARKDOWN };

enum {
	OPT_SIZES = 256,
	OPT_QUICK,
	OPT_REPS,
	OPT_SAMPLE_MS,
	OPT_WARMUP,
	OPT_MISALIGNED,
	OPT_ALIGNMENT,
	OPT_SEED,
	OPT_ONLY,
	OPT_BASELINE,
	OPT_JSON,
	OPT_CSV,
	OPT_MARKDOWN,
	OPT_PLOT,
	OPT_NO_SHANI,
	OPT_LIST,
	OPT_BATCH,
	OPT_NOTE,
	OPT_GIT,
	OPT_GIT_REPO,
	OPT_GIT_BINARY,
	OPT_GIT_REPS,
	OPT_GIT_LOOSE,
	OPT_GIT_WORKLOADS,
	OPT_GIT_ONLY,
	OPT_GIT_OBJECT_FORMAT,
	OPT_SHA256,
	OPT_FIXED_MESSAGE,
	OPT_ALL_HASHES,
	OPT_HELP,
	OPT_VERSION,
};

static const struct option bench_options[] = {
    {"sizes", required_argument, NULL, OPT_SIZES},
    {"quick", no_argument, NULL, OPT_QUICK},
    {"reps", required_argument, NULL, OPT_REPS},
    {"sample-ms", required_argument, NULL, OPT_SAMPLE_MS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"misaligned", no_argument, NULL, OPT_MISALIGNED},
    {"alignment", required_argument, NULL, OPT_ALIGNMENT},
    {"seed", required_argument, NULL, OPT_SEED},
    {"only", required_argument, NULL, OPT_ONLY},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"json", no_argument, NULL, OPT_JSON},
    {"csv", no_argument, NULL, OPT_CSV},
    {"markdown", no_argument, NULL, OPT_MARKDOWN},
    {"plot", required_argument, NULL, OPT_PLOT},
    {"openssl-no-shani", no_argument, NULL, OPT_NO_SHANI},
    {"list", no_argument, NULL, OPT_LIST},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"note", required_argument, NULL, OPT_NOTE},
    {"sha256", no_argument, NULL, OPT_SHA256},
    {"fixed-message", no_argument, NULL, OPT_FIXED_MESSAGE},
    {"all-hashes", no_argument, NULL, OPT_ALL_HASHES},
    {"git", required_argument, NULL, OPT_GIT},
    {"git-repo", required_argument, NULL, OPT_GIT_REPO},
    {"git-binary", required_argument, NULL, OPT_GIT_BINARY},
    {"git-reps", required_argument, NULL, OPT_GIT_REPS},
    {"git-loose", required_argument, NULL, OPT_GIT_LOOSE},
    {"git-workloads", required_argument, NULL, OPT_GIT_WORKLOADS},
    {"git-only", no_argument, NULL, OPT_GIT_ONLY},
    {"git-object-format", required_argument, NULL, OPT_GIT_OBJECT_FORMAT},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

static void bench_usage(void)
{
	fputs("Usage: sha1kit bench [OPTION]...\n"
	      "Measure SHA-1 throughput: every sha1kit kernel this CPU runs, plain (fast)\n"
	      "and with collision detection (dc), the batch APIs on every batch kernel, and\n"
	      "the SHA-1 of OpenSSL, nettle, libgcrypt and (batch) Intel's ipsec-mb when they\n"
	      "were found at build time. Each message is hashed on its own (batch rows: many\n"
	      "per call): sha1kit through init, update and final, as Git drives them, and\n"
	      "its SHA-1DC also through the one-shot sha1kit_dc() on the kernel it chooses\n"
	      "(row sha1kit-dc-oneshot). The clock is the thread's CPU time; repetitions are\n"
	      "interleaved across implementations; medians are reported, with ratios to\n"
	      "OpenSSL's EVP SHA-1 measured in the same run (> 1: faster). ipsec-mb takes\n"
	      "messages of at most 65534 bytes: its cells at larger sizes stay empty (a note\n"
	      "says so). It runs its SSE code where sha1kit finds no usable AVX2 (CPU, OS,\n"
	      "SHA1KIT_CPU).\n"
	      "\n"
	      "      --sizes=LIST        message sizes in bytes, comma-separated, each at most\n"
	      "                            once, 0 to 1G; optional suffix K, M or G (binary:\n"
	      "                            1K = 1024): default 64,1K,16K,1M\n"
	      "      --quick             sizes 64,1K,16K, 3 repetitions of 2 ms (CI: seconds)\n"
	      "      --reps=N            timed repetitions per implementation and size\n"
	      "                            (default 9)\n"
	      "      --sample-ms=MS      minimum CPU time of one repetition (default 20)\n"
	      "      --warmup=N          untimed repetitions before the timed ones (default 1)\n"
	      "      --misaligned        messages start 1 byte past a 64-byte boundary\n"
	      "      --alignment=WHICH   aligned (default), misaligned or both\n"
	      "      --seed=N            seed of the message data (default 0x5348413142454e43)\n"
	      "      --fixed-message     hash one message per size again and again (as result\n"
	      "                            files before 2026-12 were measured); by default each\n"
	      "                            size has distinct random messages (1 MiB of them, at\n"
	      "                            most 4096) hashed in turn, so that SHA-1DC's\n"
	      "                            recompressions of the blocks its filter flags (about\n"
	      "                            1 in 20) count at their real rate, not at the luck\n"
	      "                            of one message's blocks\n"
	      "      --only=LIST         measure only implementations whose id contains one of\n"
	      "                            the comma-separated strings (and the baseline)\n"
	      "      --baseline=ID       implementation the ratios refer to (openssl-evp;\n"
	      "                            openssl-evp-sha256 with --sha256)\n"
	      "      --batch=N           messages per call of the batch rows: sha1kit's batch\n"
	      "                            API and ipsec-mb (default 64; 0: no batch rows;\n"
	      "                            at most 4096); a call hashes N copies of the message\n"
	      "      --sha256            measure SHA-256 instead of SHA-1: every SHA-256 kernel\n"
	      "                            of sha1kit (sha1kit_sha256_init/update/final, and\n"
	      "                            the batch rows) and OpenSSL's SHA-256 (EVP one-shot,\n"
	      "                            reused context)\n"
	      "      --all-hashes        the SHA-1 rows and the SHA-256 rows in one run, each\n"
	      "                            with ratios to OpenSSL's EVP of its own hash\n"
	      "                            (openssl-evp, openssl-evp-sha256)\n"
	      "      --list              list the implementations and exit\n"
	      "      --openssl-no-shani  run OpenSSL without SHA-NI: the command re-runs itself\n"
	      "                            with OPENSSL_ia32cap=\"" NO_SHANI "\", replacing any\n"
	      "                            value set (for other masks, set OPENSSL_ia32cap\n"
	      "                            yourself and leave this option out)\n"
	      "\n"
	      "Git workloads (whole processes, after the throughput rows; each command runs\n"
	      "once untimed, then in alternating rounds; wall, user and system time, peak\n"
	      "RSS and minor page faults; ratios to the git on PATH and to sha1kit; every idx\n"
	      "sha1kit writes must be the one the git on PATH wrote, byte for byte, and fsck\n"
	      "must print what git fsck prints, else nothing is reported):\n"
	      "      --git=PACK          time `index-pack -o OUT.idx PACK` and `verify-pack` of\n"
	      "                            PACK (with git's idx) by sha1kit and by git\n"
	      "      --git-repo=DIR      time `sha1kit fsck --no-dangling --no-progress` and\n"
	      "                            `git fsck --full --no-dangling --no-progress`, both\n"
	      "                            run in DIR (a work tree or a git directory)\n"
	      "      --git-loose=DIR     the same fsck in DIR, a repository of loose objects\n"
	      "                            (workload fsck-loose)\n"
	      "      --git-workloads=LIST\n"
	      "                          the workloads, comma-separated, in place of the\n"
	      "                            default (index-pack, verify-pack, fsck and\n"
	      "                            fsck-loose, as the inputs given allow):\n"
	      "                            index-pack, index-pack-1 (--threads=1),\n"
	      "                            index-verify (index-pack --verify PACK),\n"
	      "                            index-verify-1, verify-pack, fsck, fsck-1 (sha1kit\n"
	      "                            fsck --threads=1; git fsck checks packs on one\n"
	      "                            thread), fsck-loose\n"
	      "      --git-object-format=FORMAT\n"
	      "                          PACK is a SHA-256 pack (sha256; default sha1): the\n"
	      "                            index-pack and verify-pack commands get the\n"
	      "                            option --object-format=sha256\n"
	      "      --git-binary=PATH   also time this git (repeatable, up to 6), e.g. one\n"
	      "                            built with another SHA-1 backend\n"
	      "      --git-reps=N        timed runs of each command (default 5, at most 100)\n"
	      "      --git-only          the Git workloads alone, no throughput rows (table or\n"
	      "                            --markdown; bench/pack-bench.sh runs this)\n"
	      "\n"
	      "Output (standard output; one of):\n"
	      "      (default)           a table for people: time/message, GB/s, ratio\n"
	      "      --json              JSON (structure: bench/schema.json in the source tree)\n",
	      stdout);
	if (!bench_have_json())
		fputs("                            not in this build: it needs libjansson-dev\n", stdout);
	fputs("      --csv               CSV, one row per implementation, size and alignment\n"
	      "      --markdown          Markdown tables, to paste into an issue\n"
	      "      --plot=FILE.svg     also draw throughput against message size (gnuplot)\n"
	      "      --note=TEXT         a remark kept with the results (--json: \"note\"; the\n"
	      "                            sha1kit report site shows it), e.g. \"shared VM\"\n"
	      "\n"
	      "      --help              display this help and exit\n"
	      "      --version           output version information and exit\n"
	      "\n"
	      "A default kernel (*) more than 3% slower than another sha1kit kernel of its\n"
	      "kind at a size is flagged: a line starting with '!' (JSON: default_not_fastest).\n"
	      "A progress line is written to standard error when it is a terminal. Results on\n"
	      "a shared or virtual machine are noisy: compare medians and same-run ratios.\n",
	      stdout);
}

/* ---- options ----------------------------------------------------------------------------------- */

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9') /* no sign, no leading space (strtoull would take them) */
		return false;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0')
		return false;
	*v = x;
	return true;
}

/* One size: digits with an optional suffix B, K/KiB, M/MiB, G/GiB (binary multiples). */
static bool parse_size(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9')
		return false;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno != 0)
		return false;
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift != 0) {
		end++;
		if (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)
			end += strlen(end);
	} else if (strcmp(end, "B") == 0) {
		end++;
	}
	if (*end != '\0' || x > (MAX_SIZE >> shift))
		return false;
	*out = (size_t)x << shift;
	return true;
}

/*
 * A comma-separated list of sizes, in the order given. An empty element ("1K,,2K", ",64", "64,") and
 * a size given twice ("64,64", "1K,1024") are usage errors.
 */
static size_t *parse_sizes(const char *list, size_t *n)
{
	size_t cap = 1;
	for (const char *p = list; *p; p++)
		cap += *p == ',';
	size_t *sizes = malloc(cap * sizeof(*sizes));
	char *copy = strdup(list);
	if (sizes == NULL || copy == NULL) {
		sk_error(errno, "bench: out of memory");
		exit(SK_EXIT_FAILURE);
	}
	if (*list == '\0')
		sk_usage_error(BENCH_CMD, "bench: --sizes: no size given");
	*n = 0;
	for (char *tok = copy, *next; tok != NULL; tok = next) {
		char *comma = strchr(tok, ',');
		next = comma != NULL ? comma + 1 : NULL;
		if (comma != NULL)
			*comma = '\0';
		if (*tok == '\0')
			sk_usage_error(BENCH_CMD,
			               "bench: --sizes '%s': empty element (separate sizes by one comma)",
			               list);
		size_t size;
		if (!parse_size(tok, &size))
			sk_usage_error(
			    BENCH_CMD,
			    "bench: invalid message size '%s' (0 to 1G; optional suffix K, M or G)", tok);
		for (size_t i = 0; i < *n; i++)
			if (sizes[i] == size)
				sk_usage_error(BENCH_CMD,
				               "bench: --sizes: duplicate size '%s' (give each size once)",
				               tok);
		sizes[(*n)++] = size;
	}
	free(copy);
	return sizes;
}

static bool id_matches(const char *id, const char *list)
{
	char *copy = strdup(list);
	bool hit = false;
	char *save = NULL;
	if (copy == NULL)
		return true;
	for (char *tok = strtok_r(copy, ",", &save); tok != NULL && !hit; tok = strtok_r(NULL, ",", &save))
		hit = strstr(id, tok) != NULL;
	free(copy);
	return hit;
}

/* The message data: splitmix64 from the seed. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/*
 * The messages of one size: `len` bytes each, `misalignment` bytes past a 64-byte boundary in buf,
 * one after the other every round_up(len, 64) bytes; as many as fit in MESSAGE_BYTES, 1 to
 * MAX_MESSAGES of them (1 with --fixed-message). 1 MiB of 64-byte messages is 4096 of them (about
 * 190 blocks flagged by the UBC filter); of 1 MiB messages, one (16384 blocks: about 770 flagged).
 */
static struct bench_msgs messages_of(const struct bench_settings *s, const uint8_t *buf, size_t len,
                                     int misalignment)
{
	struct bench_msgs m;
	m.base = buf != NULL ? buf + misalignment : NULL;
	m.len = len;
	m.stride = len == 0 ? 64 : (len + 63) & ~(size_t)63;
	m.count = s->fixed_message ? 1 : MESSAGE_BYTES / m.stride;
	if (m.count > MAX_MESSAGES)
		m.count = MAX_MESSAGES;
	if (m.count == 0)
		m.count = 1;
	return m;
}

/* OPENSSL_ia32cap is read when libcrypto is loaded, so masking SHA-NI needs a fresh process: this
 * program (sha1kit-bench) again, with the same arguments (argv is NULL-terminated). */
static void reexec_without_shani(char **argv)
{
	const char *cur = getenv("OPENSSL_ia32cap");
	if (cur != NULL && strcmp(cur, NO_SHANI) == 0)
		return;
	if (setenv("OPENSSL_ia32cap", NO_SHANI, 1) != 0) {
		sk_error(errno, "bench: cannot set OPENSSL_ia32cap");
		exit(SK_EXIT_FAILURE);
	}
	fflush(NULL);
	execv("/proc/self/exe", argv);
	sk_error(errno, "bench: cannot re-run /proc/self/exe with OPENSSL_ia32cap=%s", NO_SHANI);
	exit(SK_EXIT_FAILURE);
}

/* bench_command with the Git settings and the implementations (all[0..*n_all-1], set up here) owned
 * by the caller. */
/* --git-only: the machine, then the Git workloads. */
static int git_only_run(struct bench_git *git, bool markdown)
{
	struct bench_machine machine;
	bench_describe_machine(&machine);
	if (bench_git_prepare(git) != 0)
		return SK_EXIT_FAILURE;
	int status = SK_EXIT_OK;
	if (bench_git_measure(git, isatty(STDERR_FILENO) == 1) != 0)
		status = SK_EXIT_FAILURE;
	bench_git_cleanup(git);
	if (status == SK_EXIT_OK)
		bench_print_git_only(stdout, &machine, git, markdown);
	return sk_finish(status, false);
}

static int bench_run(int argc, char **argv, struct bench_git *git, struct bench_impl *all, size_t *n_all)
{
	struct bench_settings s = {0};
	enum format fmt = FMT_TABLE;
	int n_formats = 0;
	const char *sizes_arg = NULL, *only = NULL, *plot = NULL, *alignment = "aligned";
	bool list = false, no_shani = false, baseline_given = false, git_only = false;
	int reps = -1, warmup = 1;
	uint64_t batch = 64;
	double sample_ms = -1;
	int c;
	git->reps = 5;

	s.seed = SEED;
	s.baseline = "openssl-evp";
	/* Numbers in the options and in the CSV, JSON and gnuplot outputs use '.', whatever the locale. */
	setlocale(LC_NUMERIC, "C");
	/* getopt_long names the program after argv[0]: "sha1kit: bench: unrecognized option ...". */
	static char getopt_name[] = SK_PROGRAM ": " BENCH_CMD;
	char *argv0 = argv[0];
	argv[0] = getopt_name;
	optind = 0;
	while ((c = getopt_long(argc, argv, "", bench_options, NULL)) != -1) {
		uint64_t v;
		switch (c) {
		case OPT_SIZES:
			sizes_arg = optarg;
			break;
		case OPT_QUICK:
			s.quick = true;
			break;
		case OPT_REPS:
			if (!parse_u64(optarg, &v) || v < 1 || v > 10000)
				sk_usage_error(BENCH_CMD, "bench: invalid --reps '%s' (1 to 10000)", optarg);
			reps = (int)v;
			break;
		case OPT_SAMPLE_MS: {
			char *end;
			sample_ms = strtod(optarg, &end);
			if (*end != '\0' || !(sample_ms > 0 && sample_ms <= 60000))
				sk_usage_error(BENCH_CMD,
				               "bench: invalid --sample-ms '%s' (over 0, up to 60000)",
				               optarg);
			break;
		}
		case OPT_WARMUP:
			if (!parse_u64(optarg, &v) || v > 1000)
				sk_usage_error(BENCH_CMD, "bench: invalid --warmup '%s' (0 to 1000)", optarg);
			warmup = (int)v;
			break;
		case OPT_MISALIGNED:
			alignment = "misaligned";
			break;
		case OPT_ALIGNMENT:
			if (strcmp(optarg, "aligned") != 0 && strcmp(optarg, "misaligned") != 0 &&
			    strcmp(optarg, "both") != 0)
				sk_usage_error(
				    BENCH_CMD,
				    "bench: invalid --alignment '%s' (aligned, misaligned or both)", optarg);
			alignment = optarg;
			break;
		case OPT_SEED:
			if (!parse_u64(optarg, &s.seed))
				sk_usage_error(BENCH_CMD, "bench: invalid --seed '%s'", optarg);
			break;
		case OPT_ONLY:
			only = optarg;
			s.only = optarg;
			break;
		case OPT_BASELINE:
			s.baseline = optarg;
			baseline_given = true;
			break;
		case OPT_JSON:
			fmt = FMT_JSON;
			n_formats++;
			break;
		case OPT_CSV:
			fmt = FMT_CSV;
			n_formats++;
			break;
		case OPT_MARKDOWN:
			fmt = FMT_MARKDOWN;
			n_formats++;
			break;
		case OPT_PLOT:
			plot = optarg;
			break;
		case OPT_NO_SHANI:
			no_shani = true;
			break;
		case OPT_LIST:
			list = true;
			break;
		case OPT_BATCH:
			if (!parse_u64(optarg, &batch) || batch > BENCH_MAX_BATCH)
				sk_usage_error(BENCH_CMD, "bench: invalid --batch '%s' (0 to %d)", optarg,
				               BENCH_MAX_BATCH);
			break;
		case OPT_NOTE:
			s.note = optarg;
			break;
		case OPT_FIXED_MESSAGE:
			s.fixed_message = true;
			break;
		case OPT_ALL_HASHES:
			s.all_hashes = true;
			break;
		case OPT_SHA256:
			s.sha256 = true;
			break;
		case OPT_GIT:
			git->pack_arg = optarg;
			break;
		case OPT_GIT_REPO:
			git->repo_arg = optarg;
			break;
		case OPT_GIT_BINARY:
			if (git->n_binaries >= sizeof(git->binaries) / sizeof(git->binaries[0]))
				sk_usage_error(BENCH_CMD, "bench: --git-binary: at most %zu of them",
				               sizeof(git->binaries) / sizeof(git->binaries[0]));
			git->binaries[git->n_binaries++] = optarg;
			break;
		case OPT_GIT_REPS:
			if (!parse_u64(optarg, &v) || v < 1 || v > BENCH_GIT_MAX_REPS)
				sk_usage_error(BENCH_CMD, "bench: invalid --git-reps '%s' (1 to %d)", optarg,
				               BENCH_GIT_MAX_REPS);
			git->reps = (int)v;
			break;
		case OPT_GIT_LOOSE:
			git->loose_arg = optarg;
			break;
		case OPT_GIT_OBJECT_FORMAT:
			if (strcmp(optarg, "sha1") != 0 && strcmp(optarg, "sha256") != 0)
				sk_usage_error(BENCH_CMD,
				               "bench: invalid --git-object-format '%s' (sha1 or sha256)",
				               optarg);
			git->sha256 = strcmp(optarg, "sha256") == 0;
			break;
		case OPT_GIT_WORKLOADS: {
			const char *bad;
			if (bench_git_select(git, optarg, &bad) != 0)
				sk_usage_error(BENCH_CMD,
				               "bench: --git-workloads: unknown workload '%.*s' (see --help)",
				               (int)strcspn(bad, ","), bad);
			break;
		}
		case OPT_GIT_ONLY:
			git_only = true;
			break;
		case OPT_HELP:
			bench_usage();
			return sk_finish(SK_EXIT_OK, false);
		case OPT_VERSION:
			sk_print_version();
			return sk_finish(SK_EXIT_OK, false);
		default:
			sk_usage_error(BENCH_CMD, NULL);
		}
	}
	argv[0] = argv0;
	if (optind < argc)
		sk_usage_error(BENCH_CMD, "bench: extra operand '%s'", argv[optind]);
	if (n_formats > 1)
		sk_usage_error(BENCH_CMD, "bench: choose one of --json, --csv and --markdown");
	bool with_git = bench_git_wanted(git);
	if (with_git && fmt == FMT_CSV)
		sk_usage_error(BENCH_CMD, "bench: the Git workloads are not in --csv output (use --json)");
	if (sizes_arg != NULL) {
		s.sizes = parse_sizes(sizes_arg, &s.n_sizes);
	} else {
		const size_t *src = s.quick ? quick_sizes : default_sizes;
		s.n_sizes =
		    s.quick ? sizeof(quick_sizes) / sizeof(*src) : sizeof(default_sizes) / sizeof(*src);
		s.sizes = malloc(s.n_sizes * sizeof(*s.sizes));
		if (s.sizes == NULL) {
			sk_error(errno, "bench: out of memory");
			return SK_EXIT_FAILURE;
		}
		memcpy(s.sizes, src, s.n_sizes * sizeof(*src));
	}
	if (fmt == FMT_JSON && !bench_have_json()) {
		sk_error(0, "bench: --json is not available: built without jansson (Debian: libjansson-dev)");
		free(s.sizes);
		return SK_EXIT_FAILURE;
	}
	if (plot != NULL && !bench_have_gnuplot()) {
		sk_error(0, "bench: --plot needs gnuplot on PATH (Debian package gnuplot-nox)");
		free(s.sizes);
		return SK_EXIT_FAILURE;
	}

	*n_all = bench_sha1kit_add(all, MAX_IMPLS, (size_t)batch);
	s.batch = (size_t)batch;
	*n_all += bench_peers_add(all + *n_all, MAX_IMPLS - *n_all, (size_t)batch);
	/* The rows of the hash measured: SHA-256 with --sha256, both with --all-hashes, else SHA-1
	 * (fast and dc). */
	if (s.sha256 && s.all_hashes)
		sk_usage_error(BENCH_CMD, "bench: --sha256 and --all-hashes: give one of them");
	size_t kept = 0;
	for (size_t i = 0; i < *n_all; i++) {
		if (s.all_hashes || (strcmp(all[i].flavour, "sha256") == 0) == s.sha256)
			all[kept++] = all[i];
		else
			bench_impl_free(&all[i]);
	}
	*n_all = kept;
	if (s.sha256 && !baseline_given)
		s.baseline = "openssl-evp-sha256";
	if (s.all_hashes)
		s.baseline_sha256 = SHA256_BASELINE;
	if (no_shani) {
		bool have_openssl = false;
		for (size_t i = 0; i < *n_all; i++)
			have_openssl |= strcmp(all[i].library, "openssl") == 0;
		if (!have_openssl) {
			sk_error(0, "bench: --openssl-no-shani: built without OpenSSL (Debian: libssl-dev)");
			free(s.sizes);
			return SK_EXIT_FAILURE;
		}
		reexec_without_shani(argv);
	}
	if (list) {
		/* under a SHA1KIT_CPU mask the default is the mask's choice, not the CPU's */
		const char *mask = getenv("SHA1KIT_CPU");
		const char *dflt = mask != NULL && *mask ? " (default on this CPU with SHA1KIT_CPU's mask)"
		                                         : " (default on this CPU)";
		for (size_t i = 0; i < *n_all; i++)
			printf("%-30s %-5s %-6s %s%s%s\n", all[i].id, all[i].flavour, all[i].shape,
			       all[i].unavailable ? "unavailable: " : all[i].note,
			       all[i].unavailable ? all[i].unavailable : "", all[i].is_default ? dflt : "");
		free(s.sizes);
		return sk_finish(SK_EXIT_OK, false);
	}

	if (!with_git && git->n_binaries > 0)
		sk_usage_error(BENCH_CMD,
		               "bench: --git-binary needs --git=PACK, --git-repo=DIR or --git-loose=DIR");
	if (git->workloads_given && !with_git)
		sk_usage_error(BENCH_CMD, "bench: --git-workloads needs --git=PACK, --git-repo=DIR or "
		                          "--git-loose=DIR");
	if (git_only) {
		if (!with_git)
			sk_usage_error(BENCH_CMD, "bench: --git-only needs --git=PACK, --git-repo=DIR or "
			                          "--git-loose=DIR");
		if (fmt == FMT_JSON || plot != NULL)
			sk_usage_error(BENCH_CMD, "bench: --git-only prints a table or --markdown (a --json "
			                          "result or a --plot has the throughput rows)");
		free(s.sizes);
		return git_only_run(git, fmt == FMT_MARKDOWN);
	}

	/* Keep the implementations selected by --only, and the baseline; say which of them cannot run
	 * here (the machine header's peer list says so too). The copies share the state of all[]. */
	struct bench_impl impls[MAX_IMPLS];
	size_t n_impls = 0, n_matched = 0;
	bool have_baseline = false;
	bool have_baseline256 = false;
	for (size_t i = 0; i < *n_all; i++) {
		bool is_base256 = s.baseline_sha256 != NULL && strcmp(all[i].id, s.baseline_sha256) == 0;
		bool is_base = strcmp(all[i].id, s.baseline) == 0 || is_base256;
		bool match = only == NULL || id_matches(all[i].id, only);
		if (!match && !is_base)
			continue;
		if (all[i].unavailable != NULL) {
			fprintf(stderr, "sha1kit: bench: note: %s is not measured: unavailable: %s\n",
			        all[i].id, all[i].unavailable);
			continue;
		}
		n_matched += match;
		have_baseline |= is_base && !is_base256;
		have_baseline256 |= is_base256;
		impls[n_impls++] = all[i];
	}
	if (!have_baseline256)
		s.baseline_sha256 = NULL;
	if (baseline_given && !have_baseline)
		sk_usage_error(BENCH_CMD, "bench: no implementation '%s' (see --list)", s.baseline);
	if (!have_baseline)
		s.baseline = NULL; /* no OpenSSL: no ratios */
	if (n_matched == 0)
		sk_usage_error(BENCH_CMD, "bench: --only '%s' selects no implementation (see --list)", only);

	s.reps = reps > 0 ? reps : s.quick ? QUICK_REPS : DEF_REPS;
	s.sample_ms = sample_ms > 0 ? sample_ms : s.quick ? QUICK_SAMPL : DEF_SAMPLE;
	s.warmup = warmup;
	if (strcmp(alignment, "misaligned") != 0)
		s.alignments[s.n_alignments++] = 0;
	if (strcmp(alignment, "aligned") != 0)
		s.alignments[s.n_alignments++] = 1;

	/* Before measuring: everything that --plot writes into the gnuplot script, and its directory. */
	struct bench_machine machine;
	bench_describe_machine(&machine);
	if (plot != NULL && bench_plot_check(plot, &machine) != 0) {
		free(s.sizes);
		return SK_EXIT_FAILURE;
	}
	/* The pack, the repository and every git: checked (versions read) before measuring. */
	if (with_git && bench_git_prepare(git) != 0) {
		free(s.sizes);
		return SK_EXIT_FAILURE;
	}

	/* Sizes some implementation cannot hash: its cells stay empty. */
	for (size_t i = 0; i < n_impls; i++)
		for (size_t z = 0; z < s.n_sizes; z++)
			if (impls[i].max_len != 0 && s.sizes[z] > impls[i].max_len) {
				fprintf(
				    stderr,
				    "sha1kit: bench: note: %s is not measured above %zu bytes (its limit)\n",
				    impls[i].id, impls[i].max_len);
				break;
			}

	/* The message buffer: 64-byte aligned, filled from the seed, with room for the distinct messages
	 * of the largest size (each size's messages start at its beginning). */
	size_t buf_size = 64;
	for (size_t i = 0; i < s.n_sizes; i++) {
		struct bench_msgs m = messages_of(&s, NULL, s.sizes[i], 0);
		if (m.count * m.stride + 64 > buf_size)
			buf_size = m.count * m.stride + 64;
	}
	uint8_t *buf = aligned_alloc(64, buf_size);
	if (buf == NULL) {
		sk_error(errno, "bench: cannot allocate %zu bytes", buf_size);
		free(s.sizes);
		return SK_EXIT_FAILURE;
	}
	uint64_t state = s.seed;
	for (size_t i = 0; i < buf_size; i += 8) {
		uint64_t r = splitmix64(&state);
		memcpy(buf + i, &r, 8);
	}

	size_t n_results = s.n_alignments * s.n_sizes * n_impls;
	struct bench_result *results = calloc(n_results, sizeof(*results));
	if (results == NULL) {
		sk_error(errno, "bench: out of memory");
		free(buf);
		free(s.sizes);
		return SK_EXIT_FAILURE;
	}
	struct bench_progress prog = {isatty(STDERR_FILENO) == 1, 0, n_results * (size_t)s.reps};
	int status = SK_EXIT_OK;
	for (size_t a = 0; a < s.n_alignments && status == SK_EXIT_OK; a++)
		for (size_t z = 0; z < s.n_sizes && status == SK_EXIT_OK; z++) {
			struct bench_result *r = &results[(a * s.n_sizes + z) * n_impls];
			struct bench_msgs m = messages_of(&s, buf, s.sizes[z], s.alignments[a]);
			if (!bench_measure(impls, n_impls, &s, &m, s.alignments[a], r, &prog))
				status = SK_EXIT_FAILURE;
		}
	bench_progress_end(&prog);
	if (with_git && status == SK_EXIT_OK && bench_git_measure(git, prog.on) != 0)
		status = SK_EXIT_FAILURE;
	if (with_git)
		bench_git_cleanup(git);

	if (status == SK_EXIT_OK) {
		/* Ratios against the baseline at the same size and alignment (with --all-hashes, the
		 * SHA-256 rows against the SHA-256 baseline). */
		for (size_t g = 0; g < s.n_alignments * s.n_sizes; g++) {
			struct bench_result *r = &results[g * n_impls];
			double base = -1, base256 = -1;
			for (size_t i = 0; i < n_impls; i++) {
				if (s.baseline != NULL && strcmp(impls[i].id, s.baseline) == 0)
					base = r[i].median;
				if (s.baseline_sha256 != NULL && strcmp(impls[i].id, s.baseline_sha256) == 0)
					base256 = r[i].median;
			}
			for (size_t i = 0; i < n_impls; i++) {
				double b =
				    s.all_hashes && strcmp(impls[i].flavour, "sha256") == 0 ? base256 : base;
				r[i].ratio = b > 0 && r[i].median > 0 ? b / r[i].median : -1;
			}
		}
		struct bench_report report = {
		    &machine, &s, impls, n_impls, results, n_results, with_git ? git : NULL};
		int rc = 0;
		switch (fmt) {
		case FMT_TABLE:
			rc = bench_print_table(stdout, &report);
			break;
		case FMT_JSON:
			rc = bench_print_json(stdout, &report);
			break;
		case FMT_CSV:
			rc = bench_print_csv(stdout, &report);
			break;
		case FMT_MARKDOWN:
			rc = bench_print_markdown(stdout, &report);
			break;
		}
		if (rc != 0)
			status = SK_EXIT_FAILURE;
		if (plot != NULL && bench_plot_svg(plot, &report) != 0)
			status = SK_EXIT_FAILURE;
	}
	for (size_t i = 0; i < n_results; i++)
		free(results[i].samples);
	free(results);
	free(buf);
	free(s.sizes);
	return sk_finish(status, false);
}

int bench_command(int argc, char **argv)
{
	/* Large (the Git runs' argument vectors and samples, the implementations): on the heap. */
	struct bench_git *git = calloc(1, sizeof(*git));
	struct bench_impl *all = calloc(MAX_IMPLS, sizeof(*all));
	size_t n_all = 0;
	int status = SK_EXIT_FAILURE;
	if (git == NULL || all == NULL)
		sk_error(errno, "bench: out of memory");
	else
		status = bench_run(argc, argv, git, all, &n_all);
	for (size_t i = 0; i < n_all; i++)
		bench_impl_free(&all[i]);
	free(all);
	free(git);
	return status;
}
