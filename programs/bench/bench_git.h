/*
 * bench_git.h - the Git workloads of `sha1kit bench` (bench_git.c, --git=PACK, --git-repo=DIR,
 * --git-loose=DIR, --git-workloads=LIST): index-pack, index-pack --verify and verify-pack of a pack,
 * fsck of a repository, as whole processes of sha1kit, of the git on PATH and of every --git-binary,
 * alternating runs; see bench_git.c for the method. bench/pack-bench.sh makes the pack and the
 * repositories of Git's own history and runs these workloads through `sha1kit bench --git-only`.
 */
#ifndef SHA1KIT_BENCH_GIT_H
#define SHA1KIT_BENCH_GIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_GIT_MAX_TOOLS   8
#define BENCH_GIT_MAX_REPS    100
#define BENCH_GIT_MAX_ARGS    10
#define BENCH_GIT_MAX_OPTIONS 24

/* The workloads, in the order they run and are reported. Names as in the JSON ("workload") and in
 * --git-workloads; "-1": on one thread (fsck-1: sha1kit only, git fsck checks packs on one). */
enum bench_git_workload {
	BENCH_GIT_INDEX_PACK,     /* index-pack -o OUT.idx PACK, each tool's default thread count */
	BENCH_GIT_INDEX_PACK_1,   /* the same, --threads=1 */
	BENCH_GIT_INDEX_VERIFY,   /* index-pack --verify PACK, git's idx beside it */
	BENCH_GIT_INDEX_VERIFY_1, /* the same, --threads=1 */
	BENCH_GIT_VERIFY_PACK,    /* verify-pack PACK.idx */
	BENCH_GIT_FSCK,           /* fsck in --git-repo */
	BENCH_GIT_FSCK_1,         /* sha1kit fsck --threads=1 in --git-repo */
	BENCH_GIT_FSCK_LOOSE,     /* fsck in --git-loose (the history as loose objects) */
	BENCH_GIT_N_WORKLOADS
};
extern const char *const bench_git_workload_names[BENCH_GIT_N_WORKLOADS];

struct bench_git_tool {
	char id[16]; /* "sha1kit", "git" (the git on PATH), "git-2", "git-3", ... (--git-binary) */
	char path[4096];
	char version[256];
	char sha1_backend[128]; /* git version --build-options' "SHA-1:" line; "" when not said */
	char build_options[BENCH_GIT_MAX_OPTIONS][160];
	size_t n_build_options;
	bool is_sha1kit;
};

struct bench_git_sample {
	double wall, user, sys; /* seconds */
	long rss_kib;           /* peak resident set size (wait4's ru_maxrss) */
	long minor_faults;      /* wait4's ru_minflt */
};

struct bench_git_stat {
	double median, min, max;
};

struct bench_git_row {
	enum bench_git_workload workload;
	size_t tool; /* index into bench_git.tools */
	char argv[BENCH_GIT_MAX_ARGS][4096];
	size_t n_argv;
	struct bench_git_sample samples[BENCH_GIT_MAX_REPS];
	int n_samples;
	struct bench_git_stat wall, user, sys, cpu, rss_kib, minor_faults;
	double ratio_wall, ratio_cpu;   /* the git on PATH's median / this median */
	double per_sk_wall, per_sk_cpu; /* this median / sha1kit's median */
};

struct bench_git {
	const char *pack_arg, *repo_arg, *loose_arg; /* as given, or NULL */
	bool want[BENCH_GIT_N_WORKLOADS];            /* --git-workloads (bench_git_select) */
	bool workloads_given;
	const char *binaries[BENCH_GIT_MAX_TOOLS - 2]; /* --git-binary, in order */
	size_t n_binaries;
	int reps;
	bool sha256; /* --git-object-format=sha256: the pack's IDs are SHA-256 (--object-format=sha256) */
	char pack[4096], repo[4096], loose[4096]; /* absolute; "" when not measured */
	uint64_t pack_bytes;
	uint32_t pack_objects;
	char work[4096], ceiling[4096];
	char *ref_idx; /* the idx the git on PATH writes for the pack (the reference) */
	size_t ref_idx_len;
	struct bench_git_tool tools[BENCH_GIT_MAX_TOOLS]; /* sha1kit, git, the --git-binary ones */
	size_t n_tools;
	struct bench_git_row rows[BENCH_GIT_N_WORKLOADS * BENCH_GIT_MAX_TOOLS]; /* workload, tool */
	size_t n_rows;
};

/* --git-workloads=LIST: comma-separated names of bench_git_workload_names. Returns 0, or -1 with
 * *bad pointing at the name (within LIST, up to the next comma) that is not a workload. */
int bench_git_select(struct bench_git *g, const char *list, const char **bad);
/* Whether --git, --git-repo or --git-loose was given (the Git workloads are to run). */
bool bench_git_wanted(const struct bench_git *g);

/* Before the throughput measurement: the pack, the repositories and the programs (their versions),
 * the workloads to run (those of --git-workloads, else index-pack and verify-pack with a pack, fsck
 * with a repository, fsck-loose with a loose one), and the reference idx (written by the git on PATH);
 * then the measurement itself. Each returns 0, or -1 after a one-line diagnostic. */
int bench_git_prepare(struct bench_git *g);
int bench_git_measure(struct bench_git *g, bool progress);
void bench_git_cleanup(struct bench_git *g);
void bench_git_print(FILE *out, const struct bench_git *g, bool markdown);
void *bench_git_json(const struct bench_git *g); /* a json_t *, NULL without jansson */

#endif /* SHA1KIT_BENCH_GIT_H */
