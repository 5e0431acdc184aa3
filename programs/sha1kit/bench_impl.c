/*
 * bench_impl.c - the sha1kit implementations that `sha1kit bench` measures: every kernel of both
 * flavours that this CPU runs, each forced through the context's kernel index after init (an
 * internal switch, as tests/test_kernels.c does: src/internal.h is not installed).
 *
 * The batch APIs (sha1kit_fast_batch, sha1kit_dc_batch) are measured in rows of shape "batch", one
 * per batch kernel this CPU runs (forced through the internal sha1kit_*_batch_with); the row of the
 * kernel the library picks is marked default. Each call hashes impl->per_call messages (--batch,
 * default 64), all of them the same bytes, as the single-stream rows re-hash one buffer.
 *
 * bench_cpu_avx2() and bench_cpu_avx512() hand the library's CPU probe to bench_peers.c, which
 * gates the peers whose set-up picks AVX code by CPUID alone (ipsec-mb) on it.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "internal.h"
#include "sha1kit.h"

static uint32_t digest_word(const uint8_t d[SHA1KIT_DIGEST_SIZE])
{
	uint32_t w;
	memcpy(&w, d, sizeof(w));
	return w;
}

/* Plain SHA-1, one-shot per message (init, update, final) on the forced kernel. */
static uint32_t run_fast(const struct bench_impl *impl, const uint8_t *msg, size_t len, size_t count)
{
	uint8_t digest[SHA1KIT_DIGEST_SIZE];
	uint32_t acc = 0;
	for (size_t i = 0; i < count; i++) {
		sha1kit_fast_ctx ctx;
		sha1kit_fast_init(&ctx);
		ctx.kernel = impl->index;
		sha1kit_fast_update(&ctx, msg, len);
		sha1kit_fast_final(&ctx, digest);
		acc = bench_fold(acc, digest_word(digest));
	}
	return acc;
}

static sha1kit_msg batch_msgs[BENCH_MAX_BATCH];
static uint8_t batch_digests[BENCH_MAX_BATCH * SHA1KIT_DIGEST_SIZE];

/* The batch rows' messages: `per` copies of the same bytes. */
static void batch_fill(const uint8_t *msg, size_t len, size_t per)
{
	for (size_t i = 0; i < per; i++) {
		batch_msgs[i].data = msg;
		batch_msgs[i].len = len;
	}
}

/* sha1kit_fast_batch of impl->per_call messages per call; count is a multiple of per_call. */
static uint32_t run_fast_batch(const struct bench_impl *impl, const uint8_t *msg, size_t len, size_t count)
{
	size_t per = impl->per_call;
	uint32_t acc = 0;
	batch_fill(msg, len, per);
	for (size_t done = 0; done < count; done += per) {
		sha1kit_fast_batch_with(impl->index, batch_msgs, per, batch_digests);
		for (size_t i = 0; i < per; i++)
			acc = bench_fold(acc, digest_word(batch_digests + SHA1KIT_DIGEST_SIZE * i));
	}
	return acc;
}

/* sha1kit_dc_batch (default options) of impl->per_call messages per call. */
static uint32_t run_dc_batch(const struct bench_impl *impl, const uint8_t *msg, size_t len, size_t count)
{
	size_t per = impl->per_call;
	uint32_t acc = 0;
	batch_fill(msg, len, per);
	for (size_t done = 0; done < count; done += per) {
		uint32_t flagged =
		    (uint32_t)sha1kit_dc_batch_with(impl->index, batch_msgs, per, NULL, batch_digests, NULL);
		for (size_t i = 0; i < per; i++)
			acc = bench_fold(acc, digest_word(batch_digests + SHA1KIT_DIGEST_SIZE * i) ^ flagged);
	}
	return acc;
}

/* SHA-1DC with the default options (detection and UBC on, safe hash off), one-shot per message. */
static uint32_t run_dc(const struct bench_impl *impl, const uint8_t *msg, size_t len, size_t count)
{
	uint8_t digest[SHA1KIT_DIGEST_SIZE];
	uint32_t acc = 0;
	for (size_t i = 0; i < count; i++) {
		sha1kit_dc_ctx ctx;
		sha1kit_dc_init(&ctx, NULL);
		ctx.kernel = impl->index;
		sha1kit_dc_update(&ctx, msg, len);
		uint32_t flagged = (uint32_t)sha1kit_dc_final(&ctx, digest, NULL);
		acc = bench_fold(acc, digest_word(digest) ^ flagged);
	}
	return acc;
}

size_t bench_add_sha1kit(struct bench_impl *out, size_t max, size_t batch)
{
	size_t n = 0;
	const char *fast_default = sha1kit_kernel_name();
	const char *dc_default = sha1kit_dc_kernel_name();

	for (uint32_t i = 0; i < sha1kit_kernel_count && n < max; i++) {
		if (!sha1kit_kernel_supported(i))
			continue;
		struct bench_impl *b = &out[n++];
		memset(b, 0, sizeof(*b));
		snprintf(b->id, sizeof(b->id), "sha1kit-fast-%s", sha1kit_kernels[i].name);
		b->library = "sha1kit";
		b->flavour = "fast";
		b->kernel = sha1kit_kernels[i].name;
		b->shape = "single";
		b->note = "sha1kit_fast_init/update/final, kernel forced";
		b->per_call = 1;
		b->is_default = strcmp(b->kernel, fast_default) == 0;
		b->run = run_fast;
		b->index = i;
	}
	for (uint32_t i = 0; i < sha1kit_dc_kernel_count && n < max; i++) {
		if (!sha1kit_dc_kernel_supported(i))
			continue;
		struct bench_impl *b = &out[n++];
		memset(b, 0, sizeof(*b));
		snprintf(b->id, sizeof(b->id), "sha1kit-dc-%s", sha1kit_dc_kernels[i].name);
		b->library = "sha1kit";
		b->flavour = "dc";
		b->kernel = sha1kit_dc_kernels[i].name;
		b->shape = "single";
		b->note = "sha1kit_dc_init/update/final (default options), kernel forced";
		b->per_call = 1;
		b->is_default = strcmp(b->kernel, dc_default) == 0;
		b->run = run_dc;
		b->index = i;
	}
	for (int dc = 0; dc < 2 && batch > 0 && batch <= BENCH_MAX_BATCH; dc++) {
		const sha1kit_batch_kernel *table =
		    dc ? sha1kit_dc_batch_kernels : sha1kit_fast_batch_kernels;
		uint32_t count = dc ? sha1kit_dc_batch_kernel_count : sha1kit_fast_batch_kernel_count;
		uint32_t chosen = dc ? sha1kit_select_dc_batch_kernel() : sha1kit_select_fast_batch_kernel();
		for (uint32_t i = 0; i < count && n < max; i++) {
			if (!sha1kit_batch_kernel_supported(&table[i]))
				continue;
			struct bench_impl *b = &out[n++];
			memset(b, 0, sizeof(*b));
			snprintf(b->id, sizeof(b->id), "sha1kit-%s-batch-%s", dc ? "dc" : "fast",
			         table[i].name);
			b->library = "sha1kit";
			b->flavour = dc ? "dc" : "fast";
			b->kernel = table[i].name;
			b->shape = "batch";
			b->note =
			    dc ? "sha1kit_dc_batch (default options), equal messages, batch kernel forced"
			       : "sha1kit_fast_batch, equal messages, batch kernel forced";
			b->per_call = batch;
			b->is_default = i == chosen;
			b->run = dc ? run_dc_batch : run_fast_batch;
			b->index = i;
		}
	}
	return n;
}

void bench_kernel_list(struct bench_machine *m)
{
	m->n_fast_kernels = 0;
	for (uint32_t i = 0; i < sha1kit_kernel_count && m->n_fast_kernels < BENCH_MAX_KERNELS; i++) {
		m->fast_kernels[m->n_fast_kernels].name = sha1kit_kernels[i].name;
		m->fast_kernels[m->n_fast_kernels++].supported = sha1kit_kernel_supported(i) != 0;
	}
	m->n_dc_kernels = 0;
	for (uint32_t i = 0; i < sha1kit_dc_kernel_count && m->n_dc_kernels < BENCH_MAX_KERNELS; i++) {
		m->dc_kernels[m->n_dc_kernels].name = sha1kit_dc_kernels[i].name;
		m->dc_kernels[m->n_dc_kernels++].supported = sha1kit_dc_kernel_supported(i) != 0;
	}
	m->kernel = sha1kit_kernel_name();
	m->dc_kernel = sha1kit_dc_kernel_name();
	m->library_version = sha1kit_version();
}

bool bench_cpu_avx2(void)
{
	return (sha1kit_cpu_features() & SHA1KIT_CPU_AVX2) != 0;
}

bool bench_cpu_avx512(void)
{
	return (sha1kit_cpu_features() & SHA1KIT_CPU_AVX512) != 0;
}
