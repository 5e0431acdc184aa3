/*
 * bench.h - `sha1kit bench`: the implementations it measures, the machine description and the
 * results, shared by bench.c (options, measurement), bench_impl.c (sha1kit kernels), bench_peers.c
 * (OpenSSL, nettle, libgcrypt, ipsec-mb) and bench_output.c (table, CSV, Markdown, JSON, SVG plot),
 * which make up the program sha1kit-bench (bench_main.c) that `sha1kit bench` runs (bench_exec.c).
 */
#ifndef SHA1KIT_BENCH_H
#define SHA1KIT_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct bench_impl;

/*
 * Hash `count` messages of `len` bytes, each of them the bytes at `msg`, and return a word derived
 * from the digests with bench_fold() in message order (the caller checks it against the true digest
 * and sinks it, so the work cannot be optimised away).
 * A single-stream implementation ("single" shape) makes `count` one-shot calls. A batch
 * implementation ("batch" shape, impl->per_call messages per call) makes count / per_call calls;
 * the caller always passes a multiple of per_call.
 */
/* How run functions combine digests (in message order): the digest check recomputes it. */
static inline uint32_t bench_fold(uint32_t acc, uint32_t digest_word)
{
	return (acc ^ digest_word) * UINT32_C(0x9e3779b1) + 1u;
}

typedef uint32_t (*bench_run_fn)(const struct bench_impl *impl, const uint8_t *msg, size_t len, size_t count);

#define BENCH_ID_MAX 48

struct bench_impl {
	char id[BENCH_ID_MAX];   /* unique, stable: "sha1kit-fast-shani", "openssl-evp", ... */
	const char *library;     /* "sha1kit", "openssl", "nettle", "libgcrypt" */
	const char *flavour;     /* "fast" (plain SHA-1) or "dc" (collision detection) */
	const char *kernel;      /* sha1kit kernel name; NULL for peers */
	const char *shape;       /* "single" (one-shot per message) or "batch" */
	const char *note;        /* one line: what exactly is called */
	size_t per_call;         /* messages per call: 1 for "single" */
	size_t max_len;          /* longest message it can hash (bytes); 0: no limit */
	bool is_default;         /* the kernel sha1kit picks on this CPU */
	const char *unavailable; /* why it cannot run here (listed, not measured), or NULL */
	bench_run_fn run;
	uint32_t index; /* kernel index (sha1kit) or variant (peers) */
};

/* Append the sha1kit implementations this CPU runs (bench_impl.c): every supported kernel of both
 * flavours, single stream, then the batch API with `batch` messages per call (0: none). Returns how
 * many were added. */
#define BENCH_MAX_BATCH 4096
size_t bench_add_sha1kit(struct bench_impl *out, size_t max, size_t batch);
/* Append the peers linked at build time (bench_peers.c), those that cannot run on this machine with
 * `unavailable` set; returns how many were added. */
size_t bench_add_peers(struct bench_impl *out, size_t max, size_t batch);

/* What sha1kit's CPU probe (sha1kit_cpu_features) says this machine runs, for the peers whose own
 * initialisation would pick code by CPUID alone (bench_impl.c): AVX2 with the YMM state saved by the
 * OS (XGETBV), and AVX-512 F+BW with the opmask and ZMM state saved. */
bool bench_cpu_avx2(void);
bool bench_cpu_avx512(void);

/* Kernels compiled into the library, with whether this CPU runs them. */
struct bench_kernel_info {
	const char *name;
	bool supported;
};

#define BENCH_MAX_KERNELS 16
#define BENCH_MAX_PEERS   4

struct bench_peer_version {
	const char *library; /* "openssl", "nettle", "libgcrypt", "ipsec-mb" */
	char version[192];   /* with " (unavailable: REASON)" for a peer that cannot run here */
};

struct bench_machine {
	char cpu_model[128];
	char cpu_id[160];    /* vendor, family, model, stepping (x86) or implementer/part (arm) */
	char cpu_flags[512]; /* the SHA-1-relevant flags of /proc/cpuinfo, space-separated */
	long logical_cpus;
	char os[256]; /* uname: sysname release machine */
	const char *compiler;
	const char *c_flags;
	const char *build_type;
	const char *library_version;
	const char *kernel;    /* sha1kit_kernel_name() */
	const char *dc_kernel; /* sha1kit_dc_kernel_name() */
	struct bench_kernel_info fast_kernels[BENCH_MAX_KERNELS];
	size_t n_fast_kernels;
	struct bench_kernel_info dc_kernels[BENCH_MAX_KERNELS];
	size_t n_dc_kernels;
	struct bench_peer_version peers[BENCH_MAX_PEERS];
	size_t n_peers;
	const char *openssl_ia32cap; /* $OPENSSL_ia32cap, or NULL */
	char date[32];               /* UTC, ISO 8601 */
};

void bench_kernel_list(struct bench_machine *m); /* fills the kernel lists (bench_impl.c) */
void bench_peer_versions(struct bench_machine *m);

struct bench_settings {
	size_t *sizes;
	size_t n_sizes;
	int alignments[2]; /* byte offsets from a 64-byte boundary: 0 and/or 1 */
	size_t n_alignments;
	int reps;
	int warmup;
	double sample_ms;
	uint64_t seed;
	bool quick;
	const char *baseline; /* implementation id that ratios refer to */
	const char *only;     /* the --only filter, or NULL: every implementation */
	size_t batch;         /* messages per call of the batch rows (0: no batch rows) */
	const char *note;     /* --note=TEXT, or NULL */
};

/* Summary of the samples of one implementation at one size and alignment (ns per message). */
struct bench_result {
	size_t impl; /* index into the implementation array */
	size_t size;
	int misalignment;
	size_t iterations; /* messages per sample */
	int reps;
	double *samples; /* ns per message, in measurement order */
	double median, min, max, q1, q3;
	double ratio; /* baseline median / this median (> 1: faster than the baseline); < 0 if none */
	bool skipped; /* not measured: the size is above the implementation's max_len */
};

struct bench_report {
	const struct bench_machine *machine;
	const struct bench_settings *settings;
	const struct bench_impl *impls;
	size_t n_impls;
	const struct bench_result *results; /* for each alignment, for each size, for each impl */
	size_t n_results;
	const struct bench_git *git; /* the Git workloads, or NULL */
};

/*
 * The Git workloads (bench_git.c, --git=PACK, --git-repo=DIR): index-pack and verify-pack of a pack,
 * fsck of a repository, as whole processes of sha1kit, of the git on PATH and of every
 * --git-binary, alternating runs; see bench_git.c for the method.
 */
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

/* Output (bench_output.c). Each returns 0, or -1 after printing a diagnostic. */
int bench_print_table(FILE *out, const struct bench_report *r);
int bench_print_csv(FILE *out, const struct bench_report *r);
int bench_print_markdown(FILE *out, const struct bench_report *r);
int bench_print_json(FILE *out, const struct bench_report *r);
/*
 * --plot FILE: checked before measuring (bench_plot_check) that the name and every machine string the
 * gnuplot script quotes hold no control character, and that FILE's directory exists and is writable.
 * bench_plot_svg has gnuplot write a temporary file in that directory and renames it to FILE on
 * success only. Both return 0, or -1 after a one-line diagnostic.
 */
int bench_plot_check(const char *file, const struct bench_machine *m);
int bench_plot_svg(const char *file, const struct bench_report *r);
/* Whether a usable gnuplot is on PATH (checked before measuring when --plot is given). */
bool bench_have_gnuplot(void);
bool bench_have_json(void);

/* `sha1kit bench ARG...` (bench.c), argv[0] the program's name; returns the exit status. */
int bench_command(int argc, char **argv);
/* `sha1kit report ARG...` (report.c): sha1kit-bench runs it when its first argument is "report". */
int report_command(int argc, char **argv);

/* "64 B", "1 KiB", "16 KiB", "1 MiB", "1000 B": exact binary units only. */
const char *bench_size_label(size_t size, char *buf, size_t bufsize);

#endif /* SHA1KIT_BENCH_H */
