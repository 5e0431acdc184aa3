/*
 * bench_sha1kit.h - sha1kit's own implementations for `sha1kit bench` (bench_sha1kit.c): every kernel
 * of the public API's kernel lists (<sha1kit.h>, sha1kit_kernel_at) that this process runs.
 */
#ifndef SHA1KIT_BENCH_SHA1KIT_H
#define SHA1KIT_BENCH_SHA1KIT_H

#include <stdbool.h>
#include <stddef.h>

#include "bench_impl.h"

/*
 * Append to out[0..max-1] every kernel this process runs, in both flavours, single stream, then the
 * batch APIs on every batch kernel with `batch` messages per call (0: none; at most
 * BENCH_MAX_BATCH). Returns how many were added (one whose state could not be allocated says so
 * in `unavailable`).
 */
size_t bench_sha1kit_add(struct bench_impl *out, size_t max, size_t batch);

/* A kernel compiled into the library, and whether this process runs it. */
struct bench_kernel_info {
	const char *name;
	bool supported;
};

/* The single-stream kernels of one flavour (dc: SHA-1DC) into out[0..max-1]; returns how many. */
size_t bench_sha1kit_kernels(bool dc, struct bench_kernel_info *out, size_t max);

#endif /* SHA1KIT_BENCH_SHA1KIT_H */
