/*
 * bench_measure.c - the measurement of `sha1kit bench` (the method is at the top of bench.c): every
 * implementation at one size and alignment, through bench_impl.h only: the digest check, the
 * calibration to --sample-ms of the thread's CPU time, the warm-up, the repetitions round-robin with
 * a rotating start, and the median, quartiles, minimum and maximum of the samples.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_impl.h"
#include "bench_measure.h"
#include "bench_output.h"
#include "cli.h"
#include "sha1kit.h"

static double thread_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CPU time of `iters` messages; their fold goes to *sink, so that the work cannot be left out. */
static double sample(const struct bench_impl *impl, const struct bench_msgs *m, size_t iters,
                     volatile uint32_t *sink)
{
	double t0 = thread_ns();
	*sink ^= impl->run(impl->state, m, iters);
	return thread_ns() - t0;
}

/* Messages per sample so that one sample takes at least target_ns of CPU time. */
static size_t calibrate(const struct bench_impl *impl, const struct bench_msgs *m, double target_ns,
                        volatile uint32_t *sink)
{
	size_t iters = impl->per_call;
	for (;;) {
		double t = sample(impl, m, iters, sink);
		if (t >= target_ns)
			return iters;
		double want = t > 0 ? (double)iters * target_ns * 1.15 / t : (double)iters * 100.0;
		if (want > (double)iters * 100.0)
			want = (double)iters * 100.0;
		size_t next = (size_t)want;
		if (next <= iters)
			next = iters + impl->per_call;
		iters = (next + impl->per_call - 1) / impl->per_call * impl->per_call;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Quantile q of sorted v[0..n-1], linear interpolation between order statistics. */
static double quantile(const double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)pos;
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (pos - (double)lo) * (v[lo + 1] - v[lo]);
}

static void summarise(struct bench_result *r)
{
	double *v = malloc((size_t)r->reps * sizeof(*v));
	if (v == NULL) {
		sk_error(errno, "bench: out of memory");
		exit(SK_EXIT_FAILURE);
	}
	memcpy(v, r->samples, (size_t)r->reps * sizeof(*v));
	qsort(v, (size_t)r->reps, sizeof(*v), cmp_double);
	r->min = v[0];
	r->max = v[r->reps - 1];
	r->median = quantile(v, (size_t)r->reps, 0.5);
	r->q1 = quantile(v, (size_t)r->reps, 0.25);
	r->q3 = quantile(v, (size_t)r->reps, 0.75);
	free(v);
}

static void progress_show(struct bench_progress *p, const char *what, size_t size, int misalignment,
                          const char *impl)
{
	char label[32];
	if (!p->on)
		return;
	fprintf(stderr, "\r%-79.79s", "");
	fprintf(stderr, "\r[%3u%%] %s %s%s: %s", (unsigned)(p->total ? 100 * p->done / p->total : 0), what,
	        bench_size_label(size, label, sizeof(label)), misalignment ? " +1" : "", impl);
	fflush(stderr);
}

void bench_progress_end(struct bench_progress *p)
{
	if (p->on) {
		fprintf(stderr, "\r%-79.79s\r", "");
		fflush(stderr);
	}
}

/* The first word of each message's digest (SHA-1, or SHA-256 when sha256), for the digest check. */
static uint32_t *reference_words(const struct bench_msgs *m, bool sha256)
{
	uint32_t *words = malloc(m->count * sizeof(*words));
	const uint8_t *msg = m->base;
	if (words == NULL) {
		sk_error(errno, "bench: out of memory");
		exit(SK_EXIT_FAILURE);
	}
	for (size_t k = 0; k < m->count; k++, msg = bench_next(m, msg)) {
		uint8_t d[SHA1KIT_SHA256_DIGEST_SIZE];
		if (sha256)
			sha1kit_sha256(msg, m->len, d);
		else
			sha1kit_fast(msg, m->len, d);
		memcpy(&words[k], d, sizeof(words[k]));
	}
	return words;
}

/* Hash every message of m once or more (a whole number of calls) with impl and compare the fold of
 * the digests with the one words[] gives. */
static bool digests_right(const struct bench_impl *impl, const struct bench_msgs *m, const uint32_t *words)
{
	size_t count = (m->count + impl->per_call - 1) / impl->per_call * impl->per_call;
	uint32_t want = 0;
	for (size_t k = 0; k < count; k++)
		want = bench_fold(want, words[k % m->count]);
	return impl->run(impl->state, m, count) == want;
}

bool bench_measure(const struct bench_impl *impls, size_t n_impls, const struct bench_settings *s,
                   const struct bench_msgs *m, int misalignment, struct bench_result *results,
                   struct bench_progress *prog)
{
	uint32_t *words[2] = {NULL, NULL}; /* SHA-1, SHA-256: made when an implementation needs them */
	double target = s->sample_ms * 1e6;
	volatile uint32_t sink = 0;
	bool ok = true;

	for (size_t i = 0; i < n_impls; i++) {
		int sha256 = strcmp(impls[i].flavour, "sha256") == 0;
		results[i].impl = i;
		results[i].size = m->len;
		results[i].misalignment = misalignment;
		results[i].messages = m->count;
		results[i].skipped = impls[i].max_len != 0 && m->len > impls[i].max_len;
		if (results[i].skipped) {
			results[i].reps = 0;
			results[i].iterations = 0;
			results[i].samples = NULL;
			results[i].median = results[i].min = results[i].max = results[i].q1 = results[i].q3 =
			    -1;
			continue;
		}
		if (words[sha256] == NULL)
			words[sha256] = reference_words(m, sha256);
		if (ok && !digests_right(&impls[i], m, words[sha256])) {
			bench_progress_end(prog);
			sk_error(0, "bench: %s gives a wrong digest for a %zu-byte message", impls[i].id,
			         m->len);
			ok = false;
		}
	}
	free(words[0]);
	free(words[1]);
	if (!ok)
		return false;
	for (size_t i = 0; i < n_impls; i++) {
		if (results[i].skipped)
			continue;
		progress_show(prog, "calibrating", m->len, misalignment, impls[i].id);
		results[i].reps = s->reps;
		results[i].iterations = calibrate(&impls[i], m, target, &sink);
		results[i].samples = calloc((size_t)s->reps, sizeof(double));
		if (results[i].samples == NULL) {
			sk_error(errno, "bench: out of memory");
			exit(SK_EXIT_FAILURE);
		}
	}
	for (int w = 0; w < s->warmup; w++)
		for (size_t i = 0; i < n_impls; i++) {
			if (results[i].skipped)
				continue;
			progress_show(prog, "warming up", m->len, misalignment, impls[i].id);
			sample(&impls[i], m, results[i].iterations, &sink);
		}
	for (int rep = 0; rep < s->reps; rep++) {
		for (size_t k = 0; k < n_impls; k++) {
			size_t i = (k + (size_t)rep) % n_impls; /* rotate the order every round */
			if (results[i].skipped) {
				prog->done++;
				continue;
			}
			progress_show(prog, "measuring", m->len, misalignment, impls[i].id);
			double t = sample(&impls[i], m, results[i].iterations, &sink);
			results[i].samples[rep] = t / (double)results[i].iterations;
			prog->done++;
		}
	}
	for (size_t i = 0; i < n_impls; i++)
		if (!results[i].skipped)
			summarise(&results[i]);
	return true;
}
