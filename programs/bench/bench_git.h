/*
 * bench_git.h - the Git workloads of `sha1kit bench` (bench_git.c, --git=PACK, --git-repo=DIR):
 * index-pack and verify-pack of a pack, fsck of a repository, as whole processes of sha1kit, of the
 * git on PATH and of every --git-binary, alternating runs; see bench_git.c for the method.
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
};

struct bench_git_stat {
	double median, min, max;
};

struct bench_git_row {
	const char *workload; /* "index-pack", "verify-pack", "fsck" */
	size_t tool;          /* index into bench_git.tools */
	char argv[BENCH_GIT_MAX_ARGS][4096];
	size_t n_argv;
	struct bench_git_sample samples[BENCH_GIT_MAX_REPS];
	int n_samples;
	struct bench_git_stat wall, user, sys, cpu, rss_kib;
	double ratio_wall, ratio_cpu; /* the git on PATH's median / this median */
};

struct bench_git {
	const char *pack_arg, *repo_arg;               /* as given, or NULL */
	const char *binaries[BENCH_GIT_MAX_TOOLS - 2]; /* --git-binary, in order */
	size_t n_binaries;
	int reps;
	char pack[4096], repo[4096]; /* absolute; "" when not measured */
	uint64_t pack_bytes;
	uint32_t pack_objects;
	char work[4096], ceiling[4096];
	struct bench_git_tool tools[BENCH_GIT_MAX_TOOLS]; /* sha1kit, git, the --git-binary ones */
	size_t n_tools;
	struct bench_git_row rows[3 * BENCH_GIT_MAX_TOOLS]; /* for each workload, for each tool */
	size_t n_rows;
};

/* Before the throughput measurement: the pack, the repository and the programs (their versions);
 * then the measurement itself. Each returns 0, or -1 after a one-line diagnostic. */
int bench_git_prepare(struct bench_git *g);
int bench_git_measure(struct bench_git *g, bool progress);
void bench_git_cleanup(struct bench_git *g);
void bench_git_print(FILE *out, const struct bench_git *g, bool markdown);
void *bench_git_json(const struct bench_git *g); /* a json_t *, NULL without jansson */

#endif /* SHA1KIT_BENCH_GIT_H */
