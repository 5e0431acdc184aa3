/*
 * bench_sha1kit.c - the sha1kit implementations that `sha1kit bench` measures: every kernel of both
 * flavours that this process runs, each chosen through the public API (sha1kit_fast_init_on,
 * sha1kit_dc_init_on: <sha1kit.h>, "Kernel choice"), and every SHA-256 kernel (sha1kit_sha256_init_on,
 * flavour "sha256": measured with `sha1kit bench --sha256`).
 *
 * The batch APIs (sha1kit_fast_batch, sha1kit_dc_batch) are measured in rows of shape "batch", one
 * per batch kernel this process runs (sha1kit_fast_batch_on, sha1kit_dc_batch_on); the row of the
 * kernel the library picks is marked default. Each call hashes per_call messages (--batch, default
 * 64), the next per_call of the messages the single-stream rows hash in turn (bench_impl.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_sha1kit.h"
#include "sha1kit.h"

/* What a run function needs: the kernel, and for the batch rows the messages and digests. */
struct sk_state {
	uint32_t kernel;
	size_t per_call;
	/* the batch rows of plain SHA-1 and SHA-256: the call and its digest size */
	int (*batch_on)(uint32_t kernel, const sha1kit_msg *msgs, size_t n, uint8_t *digests);
	size_t digest_size;
	sha1kit_msg *msgs;
	uint8_t *digests;
};

static void sk_state_free(void *p)
{
	struct sk_state *st = p;
	if (st != NULL) {
		free(st->msgs);
		free(st->digests);
		free(st);
	}
}

static uint32_t digest_word(const uint8_t d[SHA1KIT_DIGEST_SIZE])
{
	uint32_t w;
	memcpy(&w, d, sizeof(w));
	return w;
}

/* Plain SHA-1, one-shot per message (init, update, final) on the chosen kernel. */
static uint32_t run_fast(void *state, const struct bench_msgs *m, size_t count)
{
	const struct sk_state *st = state;
	uint8_t digest[SHA1KIT_DIGEST_SIZE];
	uint32_t acc = 0;
	const uint8_t *msg = m->base;
	const size_t len = m->len;
	for (size_t i = 0; i < count; i++, msg = bench_next(m, msg)) {
		sha1kit_fast_ctx ctx;
		if (sha1kit_fast_init_on(&ctx, st->kernel) != 0)
			abort(); /* only kernels this process runs are added */
		sha1kit_fast_update(&ctx, msg, len);
		sha1kit_fast_final(&ctx, digest);
		acc = bench_fold(acc, digest_word(digest));
	}
	return acc;
}

/* SHA-1DC with the default options (detection and UBC on, safe hash off), one-shot per message. */
static uint32_t run_dc(void *state, const struct bench_msgs *m, size_t count)
{
	const struct sk_state *st = state;
	uint8_t digest[SHA1KIT_DIGEST_SIZE];
	uint32_t acc = 0;
	const uint8_t *msg = m->base;
	const size_t len = m->len;
	for (size_t i = 0; i < count; i++, msg = bench_next(m, msg)) {
		sha1kit_dc_ctx ctx;
		if (sha1kit_dc_init_on(&ctx, NULL, st->kernel) != 0)
			abort();
		sha1kit_dc_update(&ctx, msg, len);
		uint32_t flagged = (uint32_t)sha1kit_dc_final(&ctx, digest, NULL);
		acc = bench_fold(acc, digest_word(digest) ^ flagged);
	}
	return acc;
}

/* SHA-1DC through the one-shot call sha1kit_dc() (default options, the kernel the library chooses):
 * the path of a caller with the whole message, beside init/update/final (Git's). */
static uint32_t run_dc_oneshot(void *state, const struct bench_msgs *m, size_t count)
{
	(void)state;
	uint8_t digest[SHA1KIT_DIGEST_SIZE];
	uint32_t acc = 0;
	const uint8_t *msg = m->base;
	const size_t len = m->len;
	for (size_t i = 0; i < count; i++, msg = bench_next(m, msg)) {
		uint32_t flagged = (uint32_t)sha1kit_dc(msg, len, NULL, digest, NULL);
		acc = bench_fold(acc, digest_word(digest) ^ flagged);
	}
	return acc;
}

/* SHA-256, one-shot per message (init, update, final) on the chosen kernel. */
static uint32_t run_sha256(void *state, const struct bench_msgs *m, size_t count)
{
	const struct sk_state *st = state;
	uint8_t digest[SHA1KIT_SHA256_DIGEST_SIZE];
	uint32_t acc = 0;
	const uint8_t *msg = m->base;
	const size_t len = m->len;
	for (size_t i = 0; i < count; i++, msg = bench_next(m, msg)) {
		sha1kit_sha256_ctx ctx;
		if (sha1kit_sha256_init_on(&ctx, st->kernel) != 0)
			abort();
		sha1kit_sha256_update(&ctx, msg, len);
		sha1kit_sha256_final(&ctx, digest);
		acc = bench_fold(acc, digest_word(digest));
	}
	return acc;
}

/* The batch rows' messages of one call: the next per_call messages of m, from *at on. */
static void batch_fill(struct sk_state *st, const struct bench_msgs *m, const uint8_t **at)
{
	for (size_t i = 0; i < st->per_call; i++) {
		st->msgs[i].data = *at;
		st->msgs[i].len = m->len;
		*at = bench_next(m, *at);
	}
}

/* sha1kit_fast_batch or sha1kit_sha256_batch (st->batch_on) of per_call messages per call; count
 * is a multiple of per_call. */
static uint32_t run_md_batch(void *state, const struct bench_msgs *m, size_t count)
{
	struct sk_state *st = state;
	size_t per = st->per_call;
	const uint8_t *at = m->base;
	uint32_t acc = 0;
	for (size_t done = 0; done < count; done += per) {
		batch_fill(st, m, &at);
		if (st->batch_on(st->kernel, st->msgs, per, st->digests) != 0)
			abort();
		for (size_t i = 0; i < per; i++)
			acc = bench_fold(acc, digest_word(st->digests + st->digest_size * i));
	}
	return acc;
}

/* sha1kit_dc_batch (default options) of per_call messages per call. */
static uint32_t run_dc_batch(void *state, const struct bench_msgs *m, size_t count)
{
	struct sk_state *st = state;
	size_t per = st->per_call;
	const uint8_t *at = m->base;
	uint32_t acc = 0;
	for (size_t done = 0; done < count; done += per) {
		batch_fill(st, m, &at);
		int flagged = sha1kit_dc_batch_on(st->kernel, st->msgs, per, NULL, st->digests, NULL);
		if (flagged < 0)
			abort();
		for (size_t i = 0; i < per; i++)
			acc = bench_fold(acc, digest_word(st->digests + SHA1KIT_DIGEST_SIZE * i) ^
			                          (uint32_t)flagged);
	}
	return acc;
}

/* The kinds of kernel, in the order of the rows. */
static const struct kind {
	sha1kit_kernel_kind kind;
	const char *flavour, *id_format, *shape, *note;
	bench_run_fn run;
} kinds[] = {
    {SHA1KIT_KERNELS_FAST, "fast", "sha1kit-fast-%s", "single",
     "sha1kit_fast_init/update/final, kernel forced", run_fast},
    {SHA1KIT_KERNELS_DC, "dc", "sha1kit-dc-%s", "single",
     "sha1kit_dc_init/update/final (default options), kernel forced", run_dc},
    {SHA1KIT_KERNELS_FAST_BATCH, "fast", "sha1kit-fast-batch-%s", "batch",
     "sha1kit_fast_batch, batch kernel forced", run_md_batch},
    {SHA1KIT_KERNELS_DC_BATCH, "dc", "sha1kit-dc-batch-%s", "batch",
     "sha1kit_dc_batch (default options), batch kernel forced", run_dc_batch},
    {SHA1KIT_KERNELS_SHA256, "sha256", "sha1kit-sha256-%s", "single",
     "sha1kit_sha256_init/update/final, kernel forced", run_sha256},
    {SHA1KIT_KERNELS_SHA256_BATCH, "sha256", "sha1kit-sha256-batch-%s", "batch",
     "sha1kit_sha256_batch, batch kernel forced", run_md_batch},
};

/* The name of the kernel the library picks for `kind` in this process. */
static const char *default_kernel(sha1kit_kernel_kind kind)
{
	switch (kind) {
	case SHA1KIT_KERNELS_FAST:
		return sha1kit_kernel_name();
	case SHA1KIT_KERNELS_DC:
		return sha1kit_dc_kernel_name();
	case SHA1KIT_KERNELS_FAST_BATCH:
		return sha1kit_fast_batch_kernel_name();
	case SHA1KIT_KERNELS_DC_BATCH:
		return sha1kit_dc_batch_kernel_name();
	case SHA1KIT_KERNELS_SHA256:
		return sha1kit_sha256_kernel_name();
	case SHA1KIT_KERNELS_SHA256_BATCH:
		return sha1kit_sha256_batch_kernel_name();
	}
	return "";
}

/* The state of one row; NULL when out of memory. */
static struct sk_state *sk_state_new(uint32_t kernel, size_t per_call, bool batch)
{
	struct sk_state *st = calloc(1, sizeof(*st));
	if (st == NULL)
		return NULL;
	st->kernel = kernel;
	st->per_call = per_call;
	if (batch) {
		st->msgs = calloc(per_call, sizeof(*st->msgs));
		st->digests = calloc(per_call, SHA1KIT_SHA256_DIGEST_SIZE); /* room for either */
		if (st->msgs == NULL || st->digests == NULL) {
			sk_state_free(st);
			return NULL;
		}
	}
	return st;
}

size_t bench_sha1kit_add(struct bench_impl *out, size_t max, size_t batch)
{
	size_t n = 0;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		const struct kind *kd = &kinds[k];
		bool is_batch = strcmp(kd->shape, "batch") == 0;
		if (is_batch && (batch == 0 || batch > BENCH_MAX_BATCH))
			continue;
		const char *chosen = default_kernel(kd->kind), *name;
		int usable;
		for (uint32_t i = 0; (name = sha1kit_kernel_at(kd->kind, i, &usable)) != NULL && n < max;
		     i++) {
			if (!usable)
				continue;
			struct bench_impl *b = &out[n++];
			memset(b, 0, sizeof(*b));
			snprintf(b->id, sizeof(b->id), kd->id_format, name);
			b->library = "sha1kit";
			b->flavour = kd->flavour;
			b->kernel = name;
			b->shape = kd->shape;
			b->note = kd->note;
			b->per_call = is_batch ? batch : 1;
			b->is_default = strcmp(name, chosen) == 0;
			struct sk_state *st = sk_state_new(i, b->per_call, is_batch);
			b->state = st;
			if (st == NULL) {
				b->unavailable = "out of memory";
				continue;
			}
			if (kd->kind == SHA1KIT_KERNELS_SHA256_BATCH) {
				st->batch_on = sha1kit_sha256_batch_on;
				st->digest_size = SHA1KIT_SHA256_DIGEST_SIZE;
			} else {
				st->batch_on = sha1kit_fast_batch_on;
				st->digest_size = SHA1KIT_DIGEST_SIZE;
			}
			b->run = kd->run;
			b->free_state = sk_state_free;
		}
		if (kd->kind == SHA1KIT_KERNELS_DC && n < max) {
			struct bench_impl *b = &out[n++];
			memset(b, 0, sizeof(*b));
			snprintf(b->id, sizeof(b->id), "sha1kit-dc-oneshot");
			b->library = "sha1kit";
			b->flavour = "dc";
			b->kernel = chosen;
			b->shape = "single";
			b->note =
			    "sha1kit_dc() one-shot per message (default options), the kernel sha1kit chooses";
			b->per_call = 1;
			b->run = run_dc_oneshot;
		}
	}
	return n;
}

size_t bench_sha1kit_kernels(bool dc, struct bench_kernel_info *out, size_t max)
{
	sha1kit_kernel_kind kind = dc ? SHA1KIT_KERNELS_DC : SHA1KIT_KERNELS_FAST;
	const char *name;
	int usable;
	size_t n = 0;
	for (uint32_t i = 0; n < max && (name = sha1kit_kernel_at(kind, i, &usable)) != NULL; i++) {
		out[n].name = name;
		out[n++].supported = usable != 0;
	}
	return n;
}
