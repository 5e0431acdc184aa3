/*
 * bench_impl.h - the one interface of the implementations `sha1kit bench` measures: a description
 * (id, library, flavour, shape, ...) and three operations. A provider's add function (sha1kit's
 * kernels: bench_sha1kit.h; other libraries: bench_peers.h) sets each implementation up, with the
 * state its run function needs; run hashes messages; bench_impl_free releases the state. The
 * measurement (bench.c) sees implementations only through this header.
 */
#ifndef SHA1KIT_BENCH_IMPL_H
#define SHA1KIT_BENCH_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most messages per call of a batch implementation (--batch). */
#define BENCH_MAX_BATCH 4096
#define BENCH_ID_MAX    48

/* How run functions combine digests (in message order): the digest check recomputes it. */
static inline uint32_t bench_fold(uint32_t acc, uint32_t digest_word)
{
	return (acc ^ digest_word) * UINT32_C(0x9e3779b1) + 1u;
}

/*
 * The messages a run function hashes: message i (i = 0, 1, 2, ...) is the `len` bytes at
 * base + (i mod count) * stride. `sha1kit bench` hashes `count` distinct random messages in turn
 * (count 1: one message again and again, --fixed-message): on random data about 1 block in 20
 * passes SHA-1DC's UBC filter and is recompressed, so a fixed message would time its own blocks'
 * luck, not the real rate.
 */
struct bench_msgs {
	const uint8_t *base;
	size_t len;    /* bytes per message */
	size_t stride; /* bytes from one message to the next (a multiple of 64, >= len) */
	size_t count;  /* distinct messages, >= 1 */
};

/* The message after the one at p (the first again after the last). */
static inline const uint8_t *bench_next(const struct bench_msgs *m, const uint8_t *p)
{
	p += m->stride;
	return p == m->base + m->count * m->stride ? m->base : p;
}

/*
 * Hash `count` messages, messages 0 .. count-1 of `m` in turn, and return a word derived from the
 * digests with bench_fold() in message order, each digest taken as its first 4 bytes in host order
 * (the caller checks it against the true digests and sinks it, so that the work cannot be optimised
 * away). `state` is the implementation's. A single-stream implementation ("single" shape) makes
 * `count` one-shot calls; a batch implementation ("batch" shape, per_call messages per call) makes
 * count / per_call calls: the caller always passes a multiple of per_call.
 */
typedef uint32_t (*bench_run_fn)(void *state, const struct bench_msgs *m, size_t count);

struct bench_impl {
	char id[BENCH_ID_MAX];           /* unique, stable: "sha1kit-fast-shani", "openssl-evp", ... */
	const char *library;             /* "sha1kit", "openssl", "nettle", "libgcrypt", "ipsec-mb" */
	const char *flavour;             /* "fast" (plain SHA-1), "dc" (collision detection), "sha256" */
	const char *kernel;              /* sha1kit kernel name; NULL for peers */
	const char *shape;               /* "single" (one-shot per message) or "batch" */
	const char *note;                /* one line: what exactly is called */
	size_t per_call;                 /* messages per call: 1 for "single" */
	size_t max_len;                  /* longest message it can hash (bytes); 0: no limit */
	bool is_default;                 /* the kernel sha1kit picks on this CPU */
	const char *unavailable;         /* why it cannot run here (listed, not measured), or NULL */
	bench_run_fn run;                /* NULL when unavailable */
	void *state;                     /* run's first argument; owned by the implementation */
	void (*free_state)(void *state); /* NULL: nothing to free */
};

/* Release impl->state, once all is printed: note and unavailable may point into it. */
static inline void bench_impl_free(struct bench_impl *impl)
{
	if (impl->free_state != NULL)
		impl->free_state(impl->state);
	impl->free_state = NULL;
	impl->state = NULL;
}

#endif /* SHA1KIT_BENCH_IMPL_H */
