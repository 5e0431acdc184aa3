/*
 * bench_output.h - what one run of `sha1kit bench` produced (the machine, the settings, the results
 * of every implementation at every size and alignment, the Git workloads) and how it is printed
 * (bench_output.c: table, CSV, Markdown, JSON, SVG plot). Filled by bench.c and bench_machine.c.
 */
#ifndef SHA1KIT_BENCH_OUTPUT_H
#define SHA1KIT_BENCH_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_git.h"
#include "bench_impl.h"
#include "bench_peers.h"
#include "bench_sha1kit.h"

#define BENCH_MAX_KERNELS 16

/* The machine the results were measured on (bench_machine.c). */
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

/* Describe this machine and build (CPU, OS, compiler, kernels, peers' versions, date). */
void bench_describe_machine(struct bench_machine *m);

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
	bool sha256;          /* --sha256: the SHA-256 rows (flavour "sha256") instead of the SHA-1 ones */
	bool fixed_message;   /* --fixed-message: one message per size, hashed again and again */
	bool all_hashes;      /* --all-hashes: the SHA-1 and the SHA-256 rows */
	const char *baseline_sha256; /* with all_hashes: the SHA-256 rows' baseline, or NULL */
};

/* Summary of the samples of one implementation at one size and alignment (ns per message). */
struct bench_result {
	size_t impl; /* index into the implementation array */
	size_t size;
	int misalignment;
	size_t iterations; /* messages per sample */
	size_t messages;   /* distinct messages hashed in turn (1: --fixed-message) */
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

/* Output (bench_output.c). Each returns 0, or -1 after printing a diagnostic. */
int bench_print_table(FILE *out, const struct bench_report *r);
int bench_print_csv(FILE *out, const struct bench_report *r);
int bench_print_markdown(FILE *out, const struct bench_report *r);
/* --git-only: the machine (CPU, OS, library) and the Git workloads, as a table or Markdown. */
void bench_print_git_only(FILE *out, const struct bench_machine *m, const struct bench_git *g, bool markdown);
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

/* "64 B", "1 KiB", "16 KiB", "1 MiB", "1000 B": exact binary units only. */
const char *bench_size_label(size_t size, char *buf, size_t bufsize);

#endif /* SHA1KIT_BENCH_OUTPUT_H */
