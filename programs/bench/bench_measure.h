/*
 * bench_measure.h - the measurement of `sha1kit bench` (bench_measure.c): every implementation
 * (bench_impl.h) at one size and alignment, into results (bench_output.h).
 */
#ifndef SHA1KIT_BENCH_MEASURE_H
#define SHA1KIT_BENCH_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_impl.h"
#include "bench_output.h"

/* The progress line on standard error (when `on`): repetitions done of total. */
struct bench_progress {
	bool on;
	size_t done, total;
};

/* Clear the progress line. */
void bench_progress_end(struct bench_progress *p);

/*
 * Measure impls[0..n_impls-1] on the messages m (each `misalignment` bytes past a 64-byte boundary)
 * as the settings say; results[i] gets implementation i. Fails (returns false, after a diagnostic)
 * when an implementation's digest of any of the messages differs from sha1kit_fast's (sha1kit_sha256's
 * for the SHA-256 rows).
 */
bool bench_measure(const struct bench_impl *impls, size_t n_impls, const struct bench_settings *s,
                   const struct bench_msgs *m, int misalignment, struct bench_result *results,
                   struct bench_progress *prog);

#endif /* SHA1KIT_BENCH_MEASURE_H */
