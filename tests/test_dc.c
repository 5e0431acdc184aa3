/*
 * test_dc.c - SHA-1DC against the reference implementation's recorded outputs and against
 * independent evaluations:
 *  - dc-vectors.txt: 503 messages with the reference digest, flag, safe hash and reduced-round
 *    results, and the per-block UBC masks; in every mode and several chunkings;
 *  - ubc-vectors.txt: 25,173 blocks with the reference UBC mask, plus a second evaluator that reads
 *    the conditions from ubc-conditions.json (jansson) on random schedules and on single-bit flips
 *    of every constructed block;
 *  - the DV table against dc-dvs.json and the message expansion;
 *  - recompression against an independent step-by-step forward computation, for every DV;
 *  - the attack corpus (SHAttered, Shambles, reduced-round) with the values of SOURCES.md.
 *
 * SHA1KIT_TEST_SHARE=N (N > 1; set by the Makefile for the sanitizer, qemu, Wine and opt-out passes,
 * never for the native pass, which runs everything): the random loops run 1/N of their count and
 * the single-bit flips of the ubc-vectors.txt blocks are 1/N of the 512 (bit positions rotating from
 * block to block, so every position is still flipped), and test_dc_batch cuts the attack files to
 * their first 20 KB (the attack blocks are in the first KiB). Every kernel and every ubc-vectors.txt
 * block is still tested, in every test; the tests print the share they ran.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "internal.h"
#include "sha1kit.h"
#include "test_util.h"

#define SEED 0xdc5eed0123456789ull

/* The DC kernel the vector tests force (an index into sha1kit_dc_kernels). */
static uint32_t kernel_under_test;

/* SHA1KIT_TEST_SHARE (see the top of the file): 1 runs everything. */
static unsigned test_share = 1;

/* n / test_share, at least 1. */
static long share_of(long n)
{
	long r = n / (long)test_share;
	return r > 0 ? r : 1;
}

/* Whether single-bit flip `bit` of the `block`th block is one of those this run makes. */
static int flip_in_share(int bit, size_t block)
{
	return (unsigned)bit % test_share == block % test_share;
}

static uint32_t rotl(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

static void expand_words(uint32_t W[80])
{
	for (int t = 16; t < 80; t++)
		W[t] = rotl(W[t - 3] ^ W[t - 8] ^ W[t - 14] ^ W[t - 16], 1);
}

/* ---- an independent UBC evaluator: the relations of ubc-conditions.json, per DV ---------------- */

typedef struct relation {
	uint8_t i, a, j, b, value;
} relation;

static struct {
	relation rel[SHA1KIT_DV_COUNT][32];
	int count[SHA1KIT_DV_COUNT];
	json_t *dvs; /* dc-dvs.json "dvs" array */
} oracle;

static json_t *load_json(const char *name)
{
	char path[4096];
	json_error_t err;
	json_t *root;
	snprintf(path, sizeof(path), "%s/%s", tu_testdata_dir(), name);
	root = json_load_file(path, 0, &err);
	if (!root)
		fail_msg("cannot load %s: %s (line %d)", path, err.text, err.line);
	return root;
}

static int setup_oracle(void **state)
{
	json_t *root = load_json("ubc-conditions.json"), *per_dv = json_object_get(root, "per_dv");
	(void)state;
	assert_int_equal(json_array_size(per_dv), SHA1KIT_DV_COUNT);
	for (int k = 0; k < SHA1KIT_DV_COUNT; k++) {
		json_t *entry = json_array_get(per_dv, (size_t)k),
		       *conds = json_object_get(entry, "conditions");
		assert_int_equal(json_integer_value(json_object_get(entry, "bit")), k);
		assert_true(json_array_size(conds) <= 32);
		oracle.count[k] = (int)json_array_size(conds);
		for (int n = 0; n < oracle.count[k]; n++) {
			json_t *c = json_array_get(conds, (size_t)n);
			relation *r = &oracle.rel[k][n];
			r->i = (uint8_t)json_integer_value(json_array_get(c, 0));
			r->a = (uint8_t)json_integer_value(json_array_get(c, 1));
			r->j = (uint8_t)json_integer_value(json_array_get(c, 2));
			r->b = (uint8_t)json_integer_value(json_array_get(c, 3));
			r->value = (uint8_t)json_integer_value(json_array_get(c, 4));
		}
	}
	json_decref(root);
	root = load_json("dc-dvs.json");
	oracle.dvs = json_incref(json_object_get(root, "dvs"));
	json_decref(root);
	kernel_under_test = sha1kit_select_dc_kernel();
	{
		const char *e = getenv("SHA1KIT_TEST_SHARE");
		long v = e && *e ? strtol(e, NULL, 10) : 1;
		if (v < 1 || v > 512)
			fail_msg("SHA1KIT_TEST_SHARE=%s: not a number from 1 to 512", e);
		test_share = (unsigned)v;
		if (test_share > 1)
			print_message("SHA1KIT_TEST_SHARE=%u: random loops and bit flips 1/%u of the native "
			              "pass's (every kernel, every ubc-vectors block still)\n",
			              test_share, test_share);
	}
	return 0;
}

static int teardown_oracle(void **state)
{
	(void)state;
	json_decref(oracle.dvs);
	return 0;
}

/* Mask bit k is set iff every relation of DV k holds (ubc-conditions.json "semantics"). */
static uint32_t oracle_mask(const uint32_t W[80])
{
	uint32_t mask = 0;
	for (int k = 0; k < SHA1KIT_DV_COUNT; k++) {
		int ok = 1;
		for (int n = 0; n < oracle.count[k] && ok; n++) {
			const relation *r = &oracle.rel[k][n];
			ok = (((W[r->i] >> r->a) ^ (W[r->j] >> r->b)) & 1) == r->value;
		}
		if (ok)
			mask |= 1u << k;
	}
	return mask;
}

/* ---- the DV table ------------------------------------------------------------------------------ */

static void test_dv_table(void **state)
{
	(void)state;
	assert_int_equal(json_array_size(oracle.dvs), SHA1KIT_DV_COUNT);
	for (int k = 0; k < SHA1KIT_DV_COUNT; k++) {
		const sha1kit_dv *dv = &sha1kit_dvs[k];
		json_t *j = json_array_get(oracle.dvs, (size_t)k), *dm = json_object_get(j, "dm");
		char name[16];
		uint32_t w[80];

		assert_string_equal(dv->name, json_string_value(json_object_get(j, "name")));
		snprintf(name, sizeof(name), "%s(%d,%d)", dv->type == 1 ? "I" : "II", dv->k, dv->b);
		assert_string_equal(dv->name, name);
		assert_int_equal(dv->k, json_integer_value(json_object_get(j, "K")));
		assert_int_equal(dv->b, json_integer_value(json_object_get(j, "b")));
		assert_int_equal(dv->testt, json_integer_value(json_object_get(j, "testt")));
		assert_int_equal(dv->testt, dv->k < 50 ? 58 : 65);
		assert_int_equal(json_integer_value(json_object_get(j, "maskb")), k);
		for (int t = 0; t < 80; t++)
			assert_int_equal(dv->dm[t],
			                 strtoul(json_string_value(json_array_get(dm, (size_t)t)), NULL, 16));
		/* dm is itself an expanded message */
		memcpy(w, dv->dm, sizeof(w));
		expand_words(w);
		assert_memory_equal(w, dv->dm, sizeof(w));
		assert_string_equal(sha1kit_dv_name(k), dv->name);
	}
}

/* ---- the UBC filter ------------------------------------------------------------------------------ */

static int parse_words(const char *line, uint32_t *out, int n)
{
	char *end;
	for (int i = 0; i < n; i++) {
		out[i] = (uint32_t)strtoul(line, &end, 16);
		if (end == line)
			return -1;
		line = end;
	}
	return 0;
}

/* Every UBC form this CPU runs (the kernels' per-block filters: SSE2, AVX2 with their scalar
 * tails) gives the scalar filter's mask on W; fails the test naming `what` otherwise. */
static void ubc_forms_agree(const uint32_t W[80], uint32_t want, const char *what, size_t line, int bit)
{
	for (uint32_t k = 0; k < sha1kit_dc_kernel_count; k++) {
		uint32_t m;
		if (!sha1kit_dc_kernel_supported(k))
			continue;
		m = sha1kit_dc_kernels[k].ubc(W);
		if (m != want)
			fail_msg("kernel %s: %s of data line %zu (flip %d): %08x vs %08x",
			         sha1kit_dc_kernels[k].name, what, line, bit, m, want);
	}
}

/* Every block of ubc-vectors.txt: our filter and the JSON evaluator both give the reference mask;
 * and for every block whose mask is non-zero (the searched and constructed blocks among them),
 * all 512 single-bit flips of W[0..15] agree between our filter and the evaluator. Every vector
 * form of the filter gives the same masks on these blocks and flips: they are where DVs survive
 * the vector windows and the scalar tails decide. */
static void test_ubc_vectors(void **state)
{
	size_t len, lines = 0, flips = 0, nonzero = 0;
	char *text = (char *)tu_read_testdata("ubc-vectors.txt", &len), *save = NULL;
	uint32_t per_dv_hits[SHA1KIT_DV_COUNT] = {0};
	(void)state;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint32_t W[80], words[17], mask;
		if (line[0] == '#')
			continue;
		assert_int_equal(parse_words(line, words, 17), 0);
		memcpy(W, words, 16 * sizeof(uint32_t));
		expand_words(W);
		mask = sha1kit_ubc_mask(W);
		if (mask != words[16])
			fail_msg("ubc-vectors.txt data line %zu: mask %08x, reference %08x", lines + 1, mask,
			         words[16]);
		assert_int_equal(oracle_mask(W), words[16]);
		ubc_forms_agree(W, mask, "block", lines + 1, -1);
		for (int k = 0; k < SHA1KIT_DV_COUNT; k++)
			per_dv_hits[k] += (mask >> k) & 1;
		lines++;
		if (mask == 0)
			continue;
		nonzero++;
		for (int bit = 0; bit < 512; bit++) {
			uint32_t F[80];
			if (!flip_in_share(bit, lines))
				continue;
			memcpy(F, words, 16 * sizeof(uint32_t));
			F[bit / 32] ^= 1u << (bit % 32);
			expand_words(F);
			uint32_t fm = sha1kit_ubc_mask(F);
			if (fm != oracle_mask(F))
				fail_msg("flip %d of data line %zu disagrees", bit, lines);
			ubc_forms_agree(F, fm, "single-bit flip", lines, bit);
			flips++;
		}
	}
	assert_int_equal(lines, 25173);
	print_message("ubc-vectors: %zu blocks, %zu non-zero, %zu single-bit flips (1/%u of them)\n", lines,
	              nonzero, flips, test_share);
	/* every DV is exercised by blocks that keep its conditions */
	for (int k = 0; k < SHA1KIT_DV_COUNT; k++)
		if (per_dv_hits[k] < 20)
			fail_msg("DV %s passed the filter on only %u blocks", sha1kit_dv_name(k),
			         per_dv_hits[k]);
	free(text);
}

/* Random schedules: our filter against the JSON evaluator. */
static void test_ubc_random(void **state)
{
	tu_rng rng = {SEED};
	const long count = share_of(200000);
	long nonzero = 0;
	(void)state;
	for (long n = 0; n < count; n++) {
		uint32_t W[80];
		for (int i = 0; i < 16; i += 2) {
			uint64_t v = tu_next(&rng);
			W[i] = (uint32_t)v;
			W[i + 1] = (uint32_t)(v >> 32);
		}
		expand_words(W);
		uint32_t ours = sha1kit_ubc_mask(W), theirs = oracle_mask(W);
		if (ours != theirs)
			fail_msg("random schedule %ld (seed 0x%llx): %08x vs %08x", n,
			         (unsigned long long)SEED, ours, theirs);
		nonzero += ours != 0;
	}
	/* about 4.7% of random blocks keep some DV (DESIGN.md section 2) */
	assert_true(nonzero > count * 4 / 100 && nonzero < count * 6 / 100);
}

/* ---- recompression ----------------------------------------------------------------------------- */

static uint32_t f_and_k(int t, uint32_t b, uint32_t c, uint32_t d)
{
	/* FIPS 180-4 section 4.1.1 in its textbook form */
	if (t < 20)
		return ((b & c) ^ (~b & d)) + 0x5a827999u;
	if (t < 40)
		return (b ^ c ^ d) + 0x6ed9eba1u;
	if (t < 60)
		return ((b & c) ^ (b & d) ^ (c & d)) + 0x8f1bbcdcu;
	return (b ^ c ^ d) + 0xca62c1d6u;
}

/* states[t] = (A,B,C,D,E) before step t, states[80] after the last step. */
static void forward_states(const uint32_t ihv[5], const uint32_t W[80], uint32_t states[81][5])
{
	memcpy(states[0], ihv, 5 * sizeof(uint32_t));
	for (int t = 0; t < 80; t++) {
		const uint32_t *s = states[t];
		uint32_t T = rotl(s[0], 5) + f_and_k(t, s[1], s[2], s[3]) + s[4] + W[t];
		states[t + 1][0] = T;
		states[t + 1][1] = s[0];
		states[t + 1][2] = rotl(s[1], 30);
		states[t + 1][3] = s[2];
		states[t + 1][4] = s[3];
	}
}

/* A random chaining value and block, its W[0..79] and the states before every step. */
static void random_block_states(tu_rng *rng, uint32_t ihv[5], uint32_t W[80], uint32_t ours[81][5])
{
	for (int i = 0; i < 5; i++)
		ihv[i] = (uint32_t)tu_next(rng);
	for (int i = 0; i < 16; i++)
		W[i] = (uint32_t)tu_next(rng);
	expand_words(W);
	forward_states(ihv, W, ours);
}

/* For every DV: the partner input chaining value found by running backwards from our state before
 * step testt must lead, run forwards with the partner's words, to that same state at step testt
 * and to the partner output chaining value the recompression reports; sha1kit_dc_recompress_words
 * (the queues' scalar path) gives the same from the partner's words. */
static void test_recompression(void **state)
{
	tu_rng rng = {SEED ^ 0x58};
	(void)state;
	for (int trial = 0; trial < 50; trial++) {
		uint32_t ihv[5], W[80], ours[81][5];
		random_block_states(&rng, ihv, W, ours);
		for (int k = 0; k < SHA1KIT_DV_COUNT; k++) {
			const sha1kit_dv *dv = &sha1kit_dvs[k];
			uint32_t W2[80], partner[81][5], in[5], out[5], expect_out[5];
			sha1kit_dc_state st;
			memcpy(st.s, ours[dv->testt], sizeof(st.s));
			sha1kit_dc_recompress(dv, W, &st, in, out);
			for (int t = 0; t < 80; t++)
				W2[t] = W[t] ^ dv->dm[t];
			forward_states(in, W2, partner);
			assert_memory_equal(partner[dv->testt], ours[dv->testt], sizeof(st.s));
			for (int i = 0; i < 5; i++)
				expect_out[i] = in[i] + partner[80][i];
			assert_memory_equal(out, expect_out, sizeof(out));
			/* the same from the partner's words, as a recompression queue holds them */
			uint32_t in_w[5], out_w[5];
			sha1kit_dc_recompress_words(dv->testt, W2, st.s, in_w, out_w);
			assert_memory_equal(in_w, in, sizeof(in));
			assert_memory_equal(out_w, out, sizeof(out));
		}
	}
}

/* Every kernel's forward test (sha1kit_dc_collides_fn, the SHA-NI one on this CPU) against the
 * scalar recompression, for every DV from random states and messages: it accepts the partner output
 * chaining value the recompression finds, from the DV's difference and from the partner's words,
 * and rejects that value with any one bit changed, or our own output (a real block is no collision). */
static void test_collides(void **state)
{
	tu_rng rng = {SEED ^ 0x65};
	int kernels = 0;
	(void)state;
	for (uint32_t k = 0; k < sha1kit_dc_kernel_count; k++) {
		sha1kit_dc_collides_fn collides = sha1kit_dc_kernels[k].collides;
		if (!collides || !sha1kit_dc_kernel_supported(k))
			continue;
		kernels++;
		for (int trial = 0; trial < 200; trial++) {
			uint32_t ihv[5], W[80], ours[81][5];
			random_block_states(&rng, ihv, W, ours);
			for (int d = 0; d < SHA1KIT_DV_COUNT; d++) {
				const sha1kit_dv *dv = &sha1kit_dvs[d];
				const uint32_t *st = ours[dv->testt];
				uint32_t in[5], out[5], W2[80], wrong[5], our_out[5];
				uint64_t r = tu_next(&rng);
				sha1kit_dc_state s;
				memcpy(s.s, st, sizeof(s.s));
				sha1kit_dc_recompress(dv, W, &s, in, out);
				for (int t = 0; t < 80; t++)
					W2[t] = W[t] ^ dv->dm[t];
				if (collides(dv->testt, W, dv->dm, st, out) != 1 ||
				    collides(dv->testt, W2, NULL, st, out) != 1)
					fail_msg("kernel %s, DV %s: the partner's own output rejected",
					         sha1kit_dc_kernels[k].name, sha1kit_dv_name(d));
				memcpy(wrong, out, sizeof(wrong));
				wrong[r % 5] ^= 1u << ((r >> 8) % 32);
				if (collides(dv->testt, W, dv->dm, st, wrong) != 0 ||
				    collides(dv->testt, W2, NULL, st, wrong) != 0)
					fail_msg("kernel %s, DV %s: a one-bit change of the partner's output "
					         "accepted",
					         sha1kit_dc_kernels[k].name, sha1kit_dv_name(d));
				for (int i = 0; i < 5; i++)
					our_out[i] = ihv[i] + ours[80][i];
				assert_int_equal(collides(dv->testt, W, dv->dm, st, our_out), 0);
			}
		}
	}
	/* on a CPU with SHA-NI or the ARMv8 SHA1 instructions (not masked off) their test must have run */
#if SHA1KIT_HAVE_SHANI
	if (sha1kit_cpu_features() & SHA1KIT_CPU_SHA)
		assert_true(kernels >= 1);
#endif
#if SHA1KIT_HAVE_ARMV8
	if (sha1kit_cpu_features() & SHA1KIT_CPU_ARM_SHA1)
		assert_true(kernels >= 1);
#endif
	print_message("collides: %d kernels with a forward test\n", kernels);
}

/* ---- dc-vectors.txt: the reference API's outputs ---------------------------------------------- */

typedef struct dc_vector {
	char label[64];
	size_t len;
	uint8_t *msg;
	char sha1[41], digest[41], digest_rr[41];
	int flag, flag_rr;
	char ubc[4096], det[256], det_rr[256];
} dc_vector;

static int first_block(const char *list)
{
	return strcmp(list, "-") == 0 ? -1 : atoi(list);
}

/* The UBC mask the reference recorded for padded block k ("k:MASK,..."), 0 if not listed. */
static uint32_t listed_mask(const char *ubc, int k)
{
	for (const char *p = ubc; *p && *p != '-';) {
		char *end;
		long blk = strtol(p, &end, 10);
		uint32_t m = (uint32_t)strtoul(end + 1, &end, 16);
		if (blk == k)
			return m;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

static void run_dc(const dc_vector *v, int safe, int ubc, int detect, int rr, size_t chunk, char hex[41],
                   sha1kit_dc_detection *where, int *flag)
{
	sha1kit_dc_options opt;
	sha1kit_dc_ctx ctx;
	uint8_t d[20];
	sha1kit_dc_options_default(&opt);
	opt.safe_hash = (uint8_t)safe;
	opt.use_ubc = (uint8_t)ubc;
	opt.detect = (uint8_t)detect;
	opt.reduced_round = (uint8_t)rr;
	sha1kit_dc_init(&ctx, &opt);
	ctx.kernel = kernel_under_test;
	for (size_t i = 0; i < v->len; i += chunk)
		sha1kit_dc_update(&ctx, v->msg + i, chunk < v->len - i ? chunk : v->len - i);
	*flag = sha1kit_dc_final(&ctx, d, where) == SHA1KIT_DC_COLLISION;
	tu_hex(d, 20, hex);
}

static void check_vector(const dc_vector *v)
{
	static const size_t chunks[] = {1, 3, 63, 64, 65, 1000, 4096};
	size_t nchunks = v->len <= 1200 ? 6 : 2;
	sha1kit_dc_detection where;
	char hex[41];
	int flag;

#define EXPECT(cond)                                                                                         \
	do {                                                                                                 \
		if (!(cond))                                                                                 \
			fail_msg("kernel %s: %s: %s", sha1kit_dc_kernels[kernel_under_test].name, v->label,  \
			         #cond);                                                                     \
	} while (0)

	/* reference defaults: safe hash on */
	run_dc(v, 1, 1, 1, 0, v->len ? v->len : 1, hex, &where, &flag);
	EXPECT(flag == v->flag && strcmp(hex, v->digest) == 0);
	EXPECT(where.dv == (flag ? where.dv : -1));
	if (flag) {
		int blk = first_block(v->det);
		EXPECT(where.offset == (uint64_t)blk * 64 && !where.reduced_round);
		EXPECT((listed_mask(v->ubc, blk) >> where.dv) & 1);
	}
	/* reduced-round detection on */
	run_dc(v, 1, 1, 1, 1, v->len ? v->len : 1, hex, &where, &flag);
	EXPECT(flag == v->flag_rr && strcmp(hex, v->digest_rr) == 0);
	if (flag) {
		int blk = first_block(v->det_rr);
		EXPECT(where.offset == (uint64_t)blk * 64);
		EXPECT((listed_mask(v->ubc, blk) >> where.dv) & 1);
	}
	/* safe hash off: the true SHA-1 and the same flags */
	run_dc(v, 0, 1, 1, 0, 64, hex, &where, &flag);
	EXPECT(flag == v->flag && strcmp(hex, v->sha1) == 0);
	run_dc(v, 0, 1, 1, 1, 64, hex, &where, &flag);
	EXPECT(flag == v->flag_rr && strcmp(hex, v->sha1) == 0);
	/* ... and in one update (look-ahead filter, deferred recompression where the kernel has them) */
	for (int rr = 0; rr < 2; rr++) {
		sha1kit_dc_detection w1;
		int f1;
		run_dc(v, 1, 1, 1, rr, v->len ? v->len : 1, hex, &where, &flag);
		run_dc(v, 0, 1, 1, rr, v->len ? v->len : 1, hex, &w1, &f1);
		EXPECT(f1 == flag && strcmp(hex, v->sha1) == 0);
		EXPECT(w1.dv == where.dv && w1.offset == where.offset &&
		       w1.reduced_round == where.reduced_round);
	}
	/* UBC off: all 32 DVs on every block, identical results */
	run_dc(v, 1, 0, 1, 0, 7, hex, &where, &flag);
	EXPECT(flag == v->flag && strcmp(hex, v->digest) == 0);
	run_dc(v, 1, 0, 1, 1, 7, hex, &where, &flag);
	EXPECT(flag == v->flag_rr && strcmp(hex, v->digest_rr) == 0);
	/* detection off: plain SHA-1, never flagged */
	run_dc(v, 1, 1, 0, 1, 64, hex, &where, &flag);
	EXPECT(flag == 0 && where.dv == -1 && strcmp(hex, v->sha1) == 0);
	/* chunkings */
	for (size_t c = 0; c < nchunks; c++) {
		run_dc(v, 1, 1, 1, 0, chunks[c], hex, &where, &flag);
		EXPECT(flag == v->flag && strcmp(hex, v->digest) == 0);
	}
	/* the per-block UBC masks of the padded message */
	{
		size_t padded = (v->len + 9 + 63) / 64 * 64;
		uint8_t *p = calloc(padded, 1);
		uint64_t bits = (uint64_t)v->len * 8;
		assert_non_null(p);
		if (v->len)
			memcpy(p, v->msg, v->len);
		p[v->len] = 0x80;
		for (int i = 0; i < 8; i++)
			p[padded - 1 - i] = (uint8_t)(bits >> (8 * i));
		for (size_t k = 0; k < padded / 64; k++) {
			uint32_t W[80];
			for (int t = 0; t < 16; t++)
				W[t] = sha1kit_load_be32(p + 64 * k + 4 * t);
			expand_words(W);
			if (sha1kit_ubc_mask(W) != listed_mask(v->ubc, (int)k))
				fail_msg("%s: block %zu UBC mask %08x, reference %08x", v->label, k,
				         sha1kit_ubc_mask(W), listed_mask(v->ubc, (int)k));
		}
		free(p);
	}
#undef EXPECT
}

static void dc_vectors_one_kernel(void)
{
	size_t len, count = 0, flagged = 0, recompressing = 0;
	char *text = (char *)tu_read_testdata("dc-vectors.txt", &len), *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		static char msghex[2 * 70000];
		dc_vector v;
		if (line[0] == '#')
			continue;
		memset(&v, 0, sizeof(v));
		assert_true(strlen(line) < sizeof(msghex));
		int n = sscanf(line, "%63s %zu %s %40s %d %40s %d %40s %4095s %255s %255s", v.label, &v.len,
		               msghex, v.sha1, &v.flag, v.digest, &v.flag_rr, v.digest_rr, v.ubc, v.det,
		               v.det_rr);
		assert_int_equal(n, 11);
		v.msg = malloc(v.len + 1);
		assert_non_null(v.msg);
		if (v.len)
			assert_int_equal(tu_unhex(msghex, v.msg, v.len), 0);
		check_vector(&v);
		count++;
		flagged += v.flag || v.flag_rr;
		recompressing += strcmp(v.ubc, "-") != 0;
		free(v.msg);
	}
	assert_int_equal(count, 503);
	assert_true(flagged >= 10);
	assert_int_equal(recompressing, 222);
	free(text);
}

/* ---- the attack corpus, SOURCES.md values ------------------------------------------------------ */

static const struct corpus_file {
	const char *name;
	const char *sha1;    /* plain SHA-1 */
	int flag;            /* reference defaults */
	const char *safe;    /* reference output (safe hash) */
	uint64_t offset;     /* first flagged block, defaults */
	const char *safe_rr; /* _partialcoll output */
	uint64_t offset_rr;  /* first flagged block with reduced-round detection */
} corpus[] = {
    {"shattered-1.pdf", "38762cf7f55934b34d179ae6a4c80cadccbb7f0a", 1,
     "16e96b70000dd1e7c85b8368ee197754400e58ec", 256, "d3a1d09969c3b57113fd17b23e01dd3de74a99bb", 192},
    {"shattered-2.pdf", "38762cf7f55934b34d179ae6a4c80cadccbb7f0a", 1,
     "e1761773e6a35916d99f891b77663e6405313587", 256, "92246b0b718f4c704d37bb025717cbc66babf102", 192},
    {"sha-mbles-1.bin", "8ac60ba76f1999a1ab70223f225aefdc78d4ddc0", 1,
     "4f3d9be4a472c4dae83c6314aa6c36a064c1fd14", 576, "4f3d9be4a472c4dae83c6314aa6c36a064c1fd14", 576},
    {"sha-mbles-2.bin", "8ac60ba76f1999a1ab70223f225aefdc78d4ddc0", 1,
     "9ed5d77a4f48be1dbf3e9e15650733eb850897f2", 576, "9ed5d77a4f48be1dbf3e9e15650733eb850897f2", 576},
    {"sha1_reducedsha_coll.bin", "a56374e1cf4c3746499bc7c0acb39498ad2ee185", 0,
     "a56374e1cf4c3746499bc7c0acb39498ad2ee185", 0, "dd39885a2a5d8f59030b451e00cb45da9f9d3828", 64},
};

static void corpus_run(const uint8_t *data, size_t len, int safe, int rr, size_t chunk, char hex[41],
                       sha1kit_dc_detection *where, int *flag)
{
	dc_vector v;
	memset(&v, 0, sizeof(v));
	v.msg = (uint8_t *)data;
	v.len = len;
	run_dc(&v, safe, 1, 1, rr, chunk, hex, where, flag);
}

static void corpus_one_kernel(void)
{
	static const size_t chunks[] = {1, 61, 64, 4096, 65536};
	for (size_t f = 0; f < sizeof(corpus) / sizeof(corpus[0]); f++) {
		const struct corpus_file *c = &corpus[f];
		size_t len;
		uint8_t *data = tu_read_testdata(c->name, &len), d[20];
		sha1kit_dc_detection where;
		char hex[41];
		int flag;

		sha1kit_fast(data, len, d);
		tu_hex(d, 20, hex);
		assert_string_equal(hex, c->sha1);
		for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
			size_t chunk = chunks[k];
			/* flag only (Git's mode) */
			corpus_run(data, len, 0, 0, chunk, hex, &where, &flag);
			assert_string_equal(hex, c->sha1);
			assert_int_equal(flag, c->flag);
			if (c->flag) {
				assert_int_equal(where.offset, c->offset);
				assert_string_equal(sha1kit_dv_name(where.dv), "II(52,0)");
				assert_int_equal(where.reduced_round, 0);
			} else {
				assert_int_equal(where.dv, -1);
			}
			/* reference defaults: safe hash */
			corpus_run(data, len, 1, 0, chunk, hex, &where, &flag);
			assert_string_equal(hex, c->safe);
			assert_int_equal(flag, c->flag);
			/* reduced-round detection (sha1dcsum_partialcoll) */
			corpus_run(data, len, 1, 1, chunk, hex, &where, &flag);
			assert_string_equal(hex, c->safe_rr);
			assert_int_equal(flag, 1);
			assert_int_equal(where.offset, c->offset_rr);
			assert_string_equal(sha1kit_dv_name(where.dv), "II(52,0)");
			corpus_run(data, len, 0, 1, chunk, hex, &where, &flag);
			assert_string_equal(hex, c->sha1);
		}
		/* the reduced-round file is caught by the "partner input = our input" test */
		if (!c->flag) {
			corpus_run(data, len, 1, 1, 64, hex, &where, &flag);
			assert_int_equal(where.reduced_round, 1);
		}
		free(data);
	}
}

/* Every DC kernel this CPU runs (each asserted in test_kernels.c to be the expected set). */
static void test_dc_vectors(void **state)
{
	uint32_t tested = 0;
	(void)state;
	for (kernel_under_test = 0; kernel_under_test < sha1kit_dc_kernel_count; kernel_under_test++) {
		if (!sha1kit_dc_kernel_supported(kernel_under_test))
			continue;
		print_message("dc-vectors: kernel %s\n", sha1kit_dc_kernels[kernel_under_test].name);
		dc_vectors_one_kernel();
		tested++;
	}
	kernel_under_test = sha1kit_select_dc_kernel();
	assert_true(tested >= 1);
}

static void test_corpus(void **state)
{
	(void)state;
	for (kernel_under_test = 0; kernel_under_test < sha1kit_dc_kernel_count; kernel_under_test++)
		if (sha1kit_dc_kernel_supported(kernel_under_test))
			corpus_one_kernel();
	kernel_under_test = sha1kit_select_dc_kernel();
}

/* Every UBC form this CPU runs against the scalar filter on 10^6 random schedules (fixed seed;
 * 1/SHA1KIT_TEST_SHARE of them). */
static void test_ubc_forms_random(void **state)
{
	tu_rng rng = {SEED ^ 0xf0f0};
	const long count = share_of(1000000);
	(void)state;
	for (long n = 0; n < count; n++) {
		uint32_t W[80], ref;
		for (int i = 0; i < 16; i += 2) {
			uint64_t v = tu_next(&rng);
			W[i] = (uint32_t)v;
			W[i + 1] = (uint32_t)(v >> 32);
		}
		expand_words(W);
		ref = sha1kit_ubc_mask(W);
		for (uint32_t k = 0; k < sha1kit_dc_kernel_count; k++) {
			if (!sha1kit_dc_kernel_supported(k))
				continue;
			uint32_t m = sha1kit_dc_kernels[k].ubc(W);
			if (m != ref)
				fail_msg("kernel %s: random schedule %ld (seed 0x%llx): %08x vs %08x",
				         sha1kit_dc_kernels[k].name, n, (unsigned long long)(SEED ^ 0xf0f0),
				         m, ref);
		}
	}
}

/* Each DC kernel's compression against the portable one: chaining value, W[0..79] and the states
 * before steps 56 and 64, from random chaining values and blocks. */
static void test_dc_compress_kernels(void **state)
{
	tu_rng rng = {SEED ^ 0xc0};
	(void)state;
	for (int trial = 0; trial < 20000; trial++) {
		uint8_t block[64 + 1];
		uint32_t ihv0[5], ref_ihv[5], ref_W[80];
		sha1kit_dc_state ref_st[2];
		tu_fill(&rng, block, sizeof(block));
		for (int i = 0; i < 5; i++)
			ihv0[i] = (uint32_t)tu_next(&rng);
		memcpy(ref_ihv, ihv0, sizeof(ihv0));
		sha1kit_dc_compress_portable(ref_ihv, block + 1, ref_W, ref_st);
		for (uint32_t k = 0; k < sha1kit_dc_kernel_count; k++) {
			uint32_t ihv[5], W[80];
			sha1kit_dc_state st[2];
			if (!sha1kit_dc_kernel_supported(k))
				continue;
			memcpy(ihv, ihv0, sizeof(ihv0));
			sha1kit_dc_kernels[k].compress(ihv, block + 1, W, st);
			assert_memory_equal(ihv, ref_ihv, sizeof(ihv));
			assert_memory_equal(W, ref_W, sizeof(W));
			assert_memory_equal(st, ref_st, sizeof(st));
		}
	}
}

/* Each two-block DC kernel (compress2) against two calls of the portable one: chaining values
 * (between the blocks and after), W and states of both blocks. */
static void test_dc_compress2_kernels(void **state)
{
	tu_rng rng = {SEED ^ 0xc2};
	int tested = 0;
	(void)state;
	for (int trial = 0; trial < 10000; trial++) {
		uint8_t blocks[128 + 1];
		uint32_t ihv0[5], ref_ihv[5], ref_mid[5], ref_W[160];
		sha1kit_dc_state ref_st[4];
		tu_fill(&rng, blocks, sizeof(blocks));
		for (int i = 0; i < 5; i++)
			ihv0[i] = (uint32_t)tu_next(&rng);
		memcpy(ref_ihv, ihv0, sizeof(ihv0));
		sha1kit_dc_compress_portable(ref_ihv, blocks + 1, ref_W, ref_st);
		memcpy(ref_mid, ref_ihv, sizeof(ref_mid));
		sha1kit_dc_compress_portable(ref_ihv, blocks + 65, ref_W + 80, ref_st + 2);
		for (uint32_t k = 0; k < sha1kit_dc_kernel_count; k++) {
			uint32_t ihv[5], mid[5], W[160];
			sha1kit_dc_state st[4];
			if (!sha1kit_dc_kernel_supported(k) || sha1kit_dc_kernels[k].compress2 == NULL)
				continue;
			memcpy(ihv, ihv0, sizeof(ihv0));
			sha1kit_dc_kernels[k].compress2(ihv, blocks + 1, W, st, mid);
			assert_memory_equal(mid, ref_mid, sizeof(mid));
			assert_memory_equal(ihv, ref_ihv, sizeof(ihv));
			assert_memory_equal(W, ref_W, sizeof(W));
			assert_memory_equal(st, ref_st, sizeof(st));
			tested++;
		}
	}
	/* x86-64 with AVX2 and BMI2 has one (avx2; avx2+avx512 with AVX-512 too) */
	if (SHA1KIT_HAVE_DC_AVX2 && (sha1kit_cpu_features() & (SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_BMI2)) ==
	                                (SHA1KIT_CPU_AVX2 | SHA1KIT_CPU_BMI2))
		assert_true(tested > 0);
}

typedef struct callback_log {
	int calls;
	sha1kit_dc_block_info first;
	uint32_t ihv[5], ihv_partner[5], W[80], W_partner[80];
} callback_log;

static void on_detect(void *user, const sha1kit_dc_block_info *info)
{
	callback_log *log = user;
	if (log->calls++ == 0) {
		log->first = *info;
		memcpy(log->ihv, info->ihv, sizeof(log->ihv));
		memcpy(log->ihv_partner, info->ihv_partner, sizeof(log->ihv_partner));
		memcpy(log->W, info->W, sizeof(log->W));
		memcpy(log->W_partner, info->W_partner, sizeof(log->W_partner));
	}
}

/* The one-shot call on messages shorter than the look-ahead takes each block alone (sha1kit_dc in
 * src/sha1dc.c): every prefix of shattered-1.pdf from 0 to 1200 bytes, in each of the 8 option
 * modes (and with no options: the defaults), gives what init/update/final give, the attack block (at byte
 * 256, the 5th block; at 192 with the reduced-round test) found once the prefix holds it, and the true SHA-1
 * (sha1kit_fast, checked against OpenSSL in test_sha1) when the safe hash is off. */
static void test_one_shot_short(void **state)
{
	size_t len;
	uint8_t *data = tu_read_testdata("shattered-1.pdf", &len);
	int flagged = 0;
	(void)state;
	assert_true(len > 1200);
	for (size_t n = 0; n <= 1200; n++) {
		for (int mode = 0; mode < 8; mode++) {
			sha1kit_dc_options o;
			sha1kit_dc_detection w1, w2;
			sha1kit_dc_ctx ctx;
			uint8_t d1[20], d2[20], want[20];
			sha1kit_dc_options_default(&o);
			o.safe_hash = mode & 1;
			o.use_ubc = !(mode & 2);
			o.reduced_round = (mode & 4) != 0;
			sha1kit_dc_result r1 = sha1kit_dc(data, n, &o, d1, &w1);
			sha1kit_dc_init(&ctx, &o);
			sha1kit_dc_update(&ctx, data, n);
			sha1kit_dc_result r2 = sha1kit_dc_final(&ctx, d2, &w2);
			if (r1 != r2 || memcmp(d1, d2, 20) != 0 || w1.dv != w2.dv || w1.offset != w2.offset ||
			    w1.reduced_round != w2.reduced_round)
				fail_msg("one-shot of %zu bytes, mode %d: not what init/update/final give", n,
				         mode);
			if (mode == 0) {
				/* the default options as NULL: a context only for the flagged blocks */
				sha1kit_dc_detection w0;
				uint8_t d0[20];
				sha1kit_dc_result r0 = sha1kit_dc(data, n, NULL, d0, &w0);
				if (r0 != r1 || memcmp(d0, d1, 20) != 0 || w0.dv != w1.dv ||
				    w0.offset != w1.offset || w0.reduced_round != w1.reduced_round)
					fail_msg("one-shot of %zu bytes without options: not what the "
					         "defaults give",
					         n);
			}
			uint64_t at = o.reduced_round ? 192 : 256;
			assert_int_equal(r1, n >= at + 64 ? SHA1KIT_DC_COLLISION : SHA1KIT_DC_NO_COLLISION);
			if (r1 == SHA1KIT_DC_COLLISION) {
				flagged++;
				assert_int_equal(w1.offset, at);
			}
			if (!o.safe_hash || r1 == SHA1KIT_DC_NO_COLLISION) {
				sha1kit_fast(data, n, want);
				assert_memory_equal(d1, want, 20);
			}
		}
	}
	assert_true(flagged > 0);
	free(data);
}

/* The detection callback on SHAttered: block 4, DV II(52,0), and the reported pair really is a
 * near-collision block pair: both compress (textbook forward computation) to the same output. */
static void test_callback(void **state)
{
	size_t len;
	uint8_t *data = tu_read_testdata("shattered-1.pdf", &len), d[20];
	callback_log log;
	sha1kit_dc_ctx ctx, copy;
	uint32_t ours[81][5], theirs[81][5];
	(void)state;
	memset(&log, 0, sizeof(log));
	sha1kit_dc_init(&ctx, NULL);
	sha1kit_dc_set_callback(&ctx, on_detect, &log);
	sha1kit_dc_update(&ctx, data, 200);
	copy = ctx; /* the callback travels with a copy */
	sha1kit_dc_update(&copy, data + 200, len - 200);
	assert_int_equal(sha1kit_dc_final(&copy, d, NULL), SHA1KIT_DC_COLLISION);
	assert_int_equal(log.calls, 1);
	assert_int_equal(log.first.offset, 256);
	assert_string_equal(sha1kit_dv_name(log.first.dv), "II(52,0)");
	assert_int_equal(log.first.reduced_round, 0);
	for (int t = 0; t < 80; t++)
		assert_int_equal(log.W_partner[t], log.W[t] ^ sha1kit_dvs[log.first.dv].dm[t]);
	assert_memory_not_equal(log.ihv, log.ihv_partner, sizeof(log.ihv));
	forward_states(log.ihv, log.W, ours);
	forward_states(log.ihv_partner, log.W_partner, theirs);
	for (int i = 0; i < 5; i++)
		assert_int_equal(log.ihv[i] + ours[80][i], log.ihv_partner[i] + theirs[80][i]);
	/* cleared: no more calls */
	sha1kit_dc_set_callback(&ctx, NULL, NULL);
	sha1kit_dc_update(&ctx, data + 200, len - 200);
	sha1kit_dc_final(&ctx, d, NULL);
	assert_int_equal(log.calls, 1);
	free(data);
}

/* A caller compiled with an older, smaller options struct gets defaults for the fields it lacks. */
static void test_options_growth(void **state)
{
	sha1kit_dc_options opt;
	sha1kit_dc_ctx ctx;
	(void)state;
	sha1kit_dc_options_default(&opt);
	assert_int_equal(opt.size, sizeof(opt));
	assert_int_equal(opt.safe_hash, 0);
	assert_int_equal(opt.use_ubc, 1);
	assert_int_equal(opt.detect, 1);
	assert_int_equal(opt.reduced_round, 0);
	opt.safe_hash = 1;
	opt.reduced_round = 1;
	opt.size = (uint32_t)offsetof(sha1kit_dc_options, use_ubc); /* knows only safe_hash */
	sha1kit_dc_init(&ctx, &opt);
	assert_int_equal(ctx.options.safe_hash, 1);
	assert_int_equal(ctx.options.reduced_round, 0);
	assert_int_equal(ctx.options.detect, 1);
}

/* ---- multi-buffer (lanes) DC kernels ----------------------------------------------------------- */

/* One call of lanes kernel `bk` on L blocks given as words (blk[l][0..15]) from chaining values
 * ihv[l]: the chaining values, W[0..79], the states before steps 58 and 65, every lane's UBC mask
 * and the returned bitmap must equal the portable compression, the scalar filter and forward_states. */
static void lanes_check(const sha1kit_batch_kernel *bk, uint32_t blk[][16], uint32_t ihv[][5], int use_ubc)
{
	const unsigned L = bk->lanes;
	uint8_t bytes[SHA1KIT_MAX_LANES][64];
	const uint8_t *ptr[SHA1KIT_MAX_LANES] = {0};
	uint32_t state[5 * SHA1KIT_MAX_LANES], bitmap, want_bitmap = 0;
	static sha1kit_lanes_dc out;
	for (unsigned l = 0; l < L; l++) {
		for (int t = 0; t < 16; t++) {
			bytes[l][4 * t] = (uint8_t)(blk[l][t] >> 24);
			bytes[l][4 * t + 1] = (uint8_t)(blk[l][t] >> 16);
			bytes[l][4 * t + 2] = (uint8_t)(blk[l][t] >> 8);
			bytes[l][4 * t + 3] = (uint8_t)blk[l][t];
		}
		ptr[l] = bytes[l];
		for (int w = 0; w < 5; w++)
			state[w * L + l] = ihv[l][w];
	}
	bitmap = bk->dc(state, ptr, use_ubc, &out);
	for (unsigned l = 0; l < L; l++) {
		uint32_t W[80], states[81][5], mask;
		memcpy(W, blk[l], 16 * sizeof(uint32_t));
		expand_words(W);
		forward_states(ihv[l], W, states);
		for (int t = 0; t < 80; t++)
			if (out.W[t * L + l] != W[t])
				fail_msg("%s lane %u: W[%d]", bk->name, l, t);
		for (int w = 0; w < 5; w++) {
			assert_int_equal(state[w * L + l], ihv[l][w] + states[80][w]);
			assert_int_equal(out.s58[w * L + l], states[58][w]);
			assert_int_equal(out.s65[w * L + l], states[65][w]);
		}
		mask = use_ubc ? sha1kit_ubc_mask(W) : 0xffffffffu;
		if (out.mask[l] != mask)
			fail_msg("%s lane %u: UBC mask %08x, scalar %08x", bk->name, l, out.mask[l], mask);
		want_bitmap |= (uint32_t)(mask != 0) << l;
	}
	assert_int_equal(bitmap, want_bitmap);
}

/* Every block of ubc-vectors.txt (`text`), and all 512 single-bit flips of each block whose mask is
 * non-zero (1/SHA1KIT_TEST_SHARE of them), to fn(words, arg) in order; returns how many. */
static size_t for_each_ubc_block(const char *text, void (*fn)(const uint32_t words[16], void *arg), void *arg)
{
	char *copy = strdup(text), *save = NULL;
	size_t blocks = 0, lines = 0;
	assert_non_null(copy);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint32_t words[17], W[80], b[16];
		if (line[0] == '#')
			continue;
		assert_int_equal(parse_words(line, words, 17), 0);
		memcpy(W, words, 16 * sizeof(uint32_t));
		expand_words(W);
		lines++;
		for (int bit = -1; bit < (sha1kit_ubc_mask(W) ? 512 : 0); bit++) {
			if (bit >= 0 && !flip_in_share(bit, lines))
				continue;
			memcpy(b, words, sizeof(b));
			if (bit >= 0)
				b[bit / 32] ^= 1u << (bit % 32);
			fn(b, arg);
			blocks++;
		}
	}
	free(copy);
	return blocks;
}

/* Blocks gathered into calls of a lanes DC kernel (L at a time, chaining value the IV). */
typedef struct lanes_fill {
	const sha1kit_batch_kernel *bk;
	uint32_t blk[SHA1KIT_MAX_LANES][16], ihv[SHA1KIT_MAX_LANES][5];
	unsigned fill;
} lanes_fill;

static void lanes_take(const uint32_t words[16], void *arg)
{
	lanes_fill *f = arg;
	memcpy(f->blk[f->fill], words, sizeof(f->blk[0]));
	memcpy(f->ihv[f->fill], sha1kit_iv, sizeof(f->ihv[0]));
	if (++f->fill == f->bk->lanes) {
		lanes_check(f->bk, f->blk, f->ihv, 1);
		f->fill = 0;
	}
}

/* Every lanes DC kernel this CPU runs: 10^6 random schedules (fixed seed) with random chaining
 * values, then every block of ubc-vectors.txt and all 512 single-bit flips of each block whose mask
 * is non-zero (the constructed blocks of every DV among them), L lanes per call. */
static void test_lanes_dc_kernels(void **state)
{
	size_t len;
	char *text = (char *)tu_read_testdata("ubc-vectors.txt", &len);
	int tested = 0;
	(void)state;
	for (uint32_t k = 0; k < sha1kit_dc_batch_kernel_count; k++) {
		const sha1kit_batch_kernel *bk = &sha1kit_dc_batch_kernels[k];
		uint32_t blk[SHA1KIT_MAX_LANES][16], ihv[SHA1KIT_MAX_LANES][5];
		tu_rng rng = {SEED ^ 0x1a4e5};
		size_t blocks = 0;
		if (!bk->lanes || !sha1kit_batch_kernel_supported(bk))
			continue;
		tested++;
		for (long n = 0; n < share_of(1000000); n += bk->lanes) {
			for (unsigned l = 0; l < bk->lanes; l++) {
				for (int t = 0; t < 16; t++)
					blk[l][t] = (uint32_t)tu_next(&rng);
				for (int w = 0; w < 5; w++)
					ihv[l][w] = (uint32_t)tu_next(&rng);
			}
			lanes_check(bk, blk, ihv, (n & 0xff) != 0);
		}
		/* the recompression kernel against the scalar one: random blocks, states and DVs, both
		 * testt values, 20000 candidates each */
		for (int trial = 0; trial < (int)(share_of(2 * 20000) / (long)bk->lanes); trial++) {
			/* deliberately only 4-byte aligned: the kernel must not assume more */
			static uint32_t Wl[80 * SHA1KIT_MAX_LANES + 1], st[5 * SHA1KIT_MAX_LANES];
			uint32_t in[5 * SHA1KIT_MAX_LANES], outv[5 * SHA1KIT_MAX_LANES];
			uint32_t W[SHA1KIT_MAX_LANES][80];
			int dvk[SHA1KIT_MAX_LANES], testt = trial & 1 ? 65 : 58;
			sha1kit_dc_state s[SHA1KIT_MAX_LANES];
			for (unsigned l = 0; l < bk->lanes; l++) {
				do
					dvk[l] = (int)(tu_next(&rng) % SHA1KIT_DV_COUNT);
				while (sha1kit_dvs[dvk[l]].testt != testt);
				for (int t = 0; t < 16; t++)
					W[l][t] = (uint32_t)tu_next(&rng);
				expand_words(W[l]);
				for (int t = 0; t < 80; t++)
					Wl[1 + 80 * l + t] = W[l][t] ^ sha1kit_dvs[dvk[l]].dm[t];
				for (int w = 0; w < 5; w++)
					st[w * bk->lanes + l] = s[l].s[w] = (uint32_t)tu_next(&rng);
			}
			bk->recompress(testt, Wl + 1, st, in, outv);
			for (unsigned l = 0; l < bk->lanes; l++) {
				uint32_t ref_in[5], ref_out[5];
				sha1kit_dc_recompress(&sha1kit_dvs[dvk[l]], W[l], &s[l], ref_in, ref_out);
				for (int w = 0; w < 5; w++) {
					assert_int_equal(in[w * bk->lanes + l], ref_in[w]);
					assert_int_equal(outv[w * bk->lanes + l], ref_out[w]);
				}
			}
		}
		{
			lanes_fill f;
			f.bk = bk;
			f.fill = 0;
			blocks = for_each_ubc_block(text, lanes_take, &f);
		}
		print_message("lanes kernel %s: 10^6/%u random blocks, %zu ubc-vectors blocks and flips\n",
		              bk->name, test_share, blocks);
		assert_true(blocks > 25173);
	}
	if (SHA1KIT_HAVE_AVX2 && (sha1kit_cpu_features() & SHA1KIT_CPU_AVX2))
		assert_true(tested >= 1);
	free(text);
}

/* Blocks (16 words each, host order) as message bytes: big-endian words. */
static void words_to_bytes(const uint32_t *words, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 4; b++)
			out[4 * i + (size_t)b] = (uint8_t)(words[i] >> (24 - 8 * b));
}

/* One look-ahead call on `n` blocks against the scalar filter of each block. */
static void ahead_check(const sha1kit_dc_kernel *k, const uint32_t (*blk)[16], size_t n)
{
	uint8_t bytes[SHA1KIT_MAX_LANES * 64];
	uint32_t mask[SHA1KIT_MAX_LANES];
	words_to_bytes(&blk[0][0], 16 * n, bytes);
	static uint32_t pipe_state[SHA1KIT_UBC_PIPE_WORDS] __attribute__((aligned(64)));
	uint32_t pipe_mask[SHA1KIT_MAX_LANES];
	k->ubc_ahead(bytes, n, mask);
	if (k->ubc_pipe) { /* the same in steps, from a state left dirty by anything before */
		memset(pipe_state, 0xa5 ^ (int)n, sizeof(pipe_state));
		memset(pipe_mask, 0x5a, sizeof(pipe_mask));
		for (unsigned st = 0; st < SHA1KIT_UBC_PIPE_STEPS; st++)
			k->ubc_pipe(pipe_state, bytes, n, st, pipe_mask);
	}
	for (size_t l = 0; l < n; l++) {
		uint32_t W[80];
		memcpy(W, blk[l], 16 * sizeof(uint32_t));
		expand_words(W);
		if (mask[l] != sha1kit_ubc_mask(W))
			fail_msg("kernel %s: look-ahead mask of block %zu of %zu: %08x, scalar %08x", k->name,
			         l, n, mask[l], sha1kit_ubc_mask(W));
		if (k->ubc_pipe && pipe_mask[l] != mask[l])
			fail_msg(
			    "kernel %s: pipelined look-ahead mask of block %zu of %zu: %08x, scalar %08x",
			    k->name, l, n, pipe_mask[l], mask[l]);
	}
}

/* Blocks gathered into calls of a look-ahead filter, `ahead` at a time. */
typedef struct ahead_fill {
	const sha1kit_dc_kernel *k;
	uint32_t blk[SHA1KIT_MAX_LANES][16];
	size_t fill;
} ahead_fill;

static void ahead_take(const uint32_t words[16], void *arg)
{
	ahead_fill *f = arg;
	memcpy(f->blk[f->fill], words, sizeof(f->blk[0]));
	if (++f->fill == f->k->ahead) {
		ahead_check(f->k, (const uint32_t(*)[16])f->blk, f->fill);
		f->fill = 0;
	}
}

/* Every look-ahead UBC filter this CPU runs against the scalar filter: 10^6 random blocks in calls
 * of every size 1..ahead, then every ubc-vectors.txt block and all 512 single-bit flips of each
 * block whose mask is non-zero. */
static void test_ubc_ahead(void **state)
{
	size_t len;
	char *text = (char *)tu_read_testdata("ubc-vectors.txt", &len);
	int tested = 0;
	(void)state;
	for (uint32_t i = 0; i < sha1kit_dc_kernel_count; i++) {
		const sha1kit_dc_kernel *k = &sha1kit_dc_kernels[i];
		uint32_t blk[SHA1KIT_MAX_LANES][16];
		tu_rng rng = {SEED ^ 0xa4ead};
		size_t blocks = 0;
		int seen = 0;
		for (uint32_t j = 0; j < i; j++)
			seen |= sha1kit_dc_kernels[j].ubc_ahead == k->ubc_ahead &&
			        sha1kit_dc_kernels[j].ubc_pipe == k->ubc_pipe &&
			        sha1kit_dc_kernel_supported(j);
		if (!k->ubc_ahead || !sha1kit_dc_kernel_supported(i) || seen) /* each filter once */
			continue;
		tested++;
		assert_true(k->ahead >= 1 && k->ahead <= SHA1KIT_MAX_LANES);
		for (long n = 0; n < share_of(1000000);) {
			size_t group = 1 + (size_t)(n / 64) % k->ahead;
			for (size_t l = 0; l < group; l++)
				for (int t = 0; t < 16; t++)
					blk[l][t] = (uint32_t)tu_next(&rng);
			ahead_check(k, (const uint32_t(*)[16])blk, group);
			n += (long)group;
		}
		{
			ahead_fill f;
			f.k = k;
			f.fill = 0;
			blocks = for_each_ubc_block(text, ahead_take, &f);
			if (f.fill)
				ahead_check(k, (const uint32_t(*)[16])f.blk, f.fill);
		}
		print_message("look-ahead filter%s of %s: 10^6/%u random blocks, %zu ubc-vectors blocks and "
		              "flips\n",
		              k->ubc_pipe ? " (and its steps)" : "", k->name, test_share, blocks);
		assert_true(blocks > 25173);
	}
	{
		/* the look-ahead kernels: shani+avx512 and avx2+avx512 (src/dispatch.c) */
		uint32_t f = sha1kit_cpu_features();
		if (SHA1KIT_HAVE_AVX2 && SHA1KIT_HAVE_AVX512 && (f & SHA1KIT_CPU_AVX2) &&
		    (f & SHA1KIT_CPU_AVX512) &&
		    ((SHA1KIT_HAVE_SHANI && (f & SHA1KIT_CPU_SHA)) || (f & SHA1KIT_CPU_BMI2)))
			assert_true(tested >= 1);
	}
	free(text);
}

/* Option combination `combo` (0..15): bit 0 safe hash, bit 1 UBC, bit 2 detection, bit 3
 * reduced-round. */
static void combo_options(int combo, sha1kit_dc_options *o)
{
	sha1kit_dc_options_default(o);
	o->safe_hash = combo & 1;
	o->use_ubc = (combo >> 1) & 1;
	o->detect = (combo >> 2) & 1;
	o->reduced_round = (combo >> 3) & 1;
}

/* One message through the portable DC (the oracle of the batch). */
static sha1kit_dc_result dc_portable(const sha1kit_msg *m, const sha1kit_dc_options *o, uint8_t d[20],
                                     sha1kit_dc_detection *w)
{
	sha1kit_dc_ctx ctx;
	sha1kit_dc_init(&ctx, o);
	ctx.kernel = sha1kit_dc_kernel_count - 1;
	sha1kit_dc_update(&ctx, m->data, m->len);
	return sha1kit_dc_final(&ctx, d, w);
}

/*
 * kernel->run16 (the fused SHA-NI kernel of shani+avx512-pipe) against the portable compression and
 * the one-call look-ahead: random groups of 1..16 blocks with random masks (about a third non-zero,
 * runs of zeros included), every start; it must compress exactly the blocks from `start` up to the
 * first non-zero mask, return that index, and its steps (those it runs, the caller's for the blocks
 * where it stopped) must give the look-ahead masks of the next group.
 */
static void test_dc_run16(void **state)
{
	static uint32_t pipe_state[SHA1KIT_UBC_PIPE_WORDS] __attribute__((aligned(64)));
	uint8_t blocks[16 * 64], next[16 * 64];
	tu_rng rng = {SEED ^ 0x4416};
	int tested = 0;
	/* A random loop (1/SHA1KIT_TEST_SHARE of it outside the native pass): the pipelined kernel is
	 * the slowest of all where AVX-512 and SHA-NI code alternate (Intel Xeon 6/207). */
	const long rounds = share_of(20000);
	(void)state;
	for (uint32_t i = 0; i < sha1kit_dc_kernel_count; i++) {
		const sha1kit_dc_kernel *k = &sha1kit_dc_kernels[i];
		long stops = 0, compressed = 0;
		if (!k->run16 || !sha1kit_dc_kernel_supported(i))
			continue;
		tested++;
		assert_non_null(k->ubc_pipe);
		for (int round = 0; round < rounds; round++) {
			uint32_t mask[16], want_next[16], next_mask[16], ihv[5], ref[5];
			unsigned n = 1 + (unsigned)(tu_next(&rng) % 16),
			         start = (unsigned)(tu_next(&rng) % n);
			size_t nnext = 1 + (size_t)(tu_next(&rng) % 16);
			int with_next = round % 4 != 3;
			tu_fill(&rng, blocks, sizeof(blocks));
			tu_fill(&rng, next, sizeof(next));
			for (int w = 0; w < 5; w++)
				ihv[w] = ref[w] = (uint32_t)tu_next(&rng);
			for (unsigned b = 0; b < 16; b++)
				mask[b] = tu_next(&rng) % 3 == 0 ? (uint32_t)tu_next(&rng) | 1u : 0;
			memset(pipe_state, 0xa5 ^ round, sizeof(pipe_state));
			memset(next_mask, 0x5a, sizeof(next_mask));
			/* the caller's loop of src/sha1dc.c, with the steps before `start` run here */
			for (unsigned b = 0; b < start && with_next; b++)
				k->ubc_pipe(pipe_state, next, nnext, b, next_mask);
			unsigned b = start;
			while (b < n) {
				unsigned stop = k->run16(ihv, blocks, b, n, mask, pipe_state,
				                         with_next ? next : NULL, nnext, next_mask);
				unsigned want = b;
				while (want < n && mask[want] == 0)
					want++;
				if (stop != want)
					fail_msg("kernel %s: run16 from %u of %u stopped at %u, first "
					         "non-zero mask "
					         "at %u (round %d)",
					         k->name, b, n, stop, want, round);
				sha1kit_blocks_portable(ref, blocks + 64 * b, stop - b);
				compressed += stop - b;
				for (int w = 0; w < 5; w++)
					if (ihv[w] != ref[w])
						fail_msg(
						    "kernel %s: run16 blocks %u..%u of %u: chaining value "
						    "word %d %08x, portable %08x (round %d)",
						    k->name, b, stop, n, w, ihv[w], ref[w], round);
				if (stop == n)
					break;
				/* the flagged block: compressed by the caller, its step run out of line */
				sha1kit_blocks_portable(ihv, blocks + 64 * stop, 1);
				sha1kit_blocks_portable(ref, blocks + 64 * stop, 1);
				if (with_next)
					k->ubc_pipe(pipe_state, next, nnext, stop, next_mask);
				stops++;
				b = stop + 1;
			}
			if (with_next && n == 16) {
				k->ubc_ahead(next, nnext, want_next);
				for (size_t l = 0; l < nnext; l++)
					if (next_mask[l] != want_next[l])
						fail_msg(
						    "kernel %s: run16 steps, mask of next block %zu of %zu: "
						    "%08x, look-ahead %08x (round %d)",
						    k->name, l, nnext, next_mask[l], want_next[l], round);
			}
		}
		print_message("run16 of %s: %ld groups, %ld blocks compressed, %ld stops\n", k->name, rounds,
		              compressed, stops);
		/* about 1.6 stops and 3.7 blocks compressed per group (seeded: the same every run) */
		assert_true(stops > rounds && compressed > rounds * 5 / 2);
	}
	{
		uint32_t f = sha1kit_cpu_features();
		if (SHA1KIT_HAVE_SHANI && SHA1KIT_HAVE_AVX2 && SHA1KIT_HAVE_AVX512 && (f & SHA1KIT_CPU_SHA) &&
		    (f & SHA1KIT_CPU_AVX2) && (f & SHA1KIT_CPU_AVX512))
			assert_true(tested >= 1);
	}
}

/*
 * Every DC kernel this CPU runs against the portable DC on every length 0..4096 (random bytes, at
 * offsets 0..15; about 1 block in 20 has a non-zero UBC mask, so the DC path runs at every place of
 * a group and of the blocks after the last whole group), in one update and in two split at a
 * pseudo-random point, with the safe hash off (deferred recompression) and on; then the first 8 KiB
 * of shattered-1.pdf with a first update of every length 0..320 bytes, so that the attack block comes at the
 * first places of a pipelined group, in Git's mode and with the reference defaults.
 */
static void test_dc_all_lengths(void **state)
{
	enum { MAXLEN = 4096 };
	static struct {
		uint8_t d[20];
		sha1kit_dc_result r;
		int dv;
	} want[2][MAXLEN + 1], want_shattered[2];
	uint8_t *buf = malloc(MAXLEN + 16);
	size_t flen;
	uint8_t *shattered = tu_read_testdata("shattered-1.pdf", &flen);
	tu_rng rng = {SEED ^ 0xa11};
	int tested = 0;
	(void)state;
	assert_non_null(buf);
	/* the attack blocks are in the first KiB; 128 blocks take the pipelined path */
	if (flen > 8192 + 5)
		flen = 8192 + 5;
	tu_fill(&rng, buf, MAXLEN + 16);
	/* the portable DC's answers, once */
	for (int safe = 0; safe < 2; safe++) {
		sha1kit_dc_options o;
		sha1kit_dc_detection w;
		sha1kit_dc_options_default(&o);
		o.safe_hash = (uint8_t)safe;
		for (size_t len = 0; len <= MAXLEN; len++) {
			sha1kit_msg mm = {buf + (len * 7) % 16, len};
			want[safe][len].r = dc_portable(&mm, &o, want[safe][len].d, &w);
			want[safe][len].dv = w.dv;
		}
		sha1kit_msg ms = {shattered, flen};
		want_shattered[safe].r = dc_portable(&ms, &o, want_shattered[safe].d, &w);
		assert_int_equal(want_shattered[safe].r, SHA1KIT_DC_COLLISION);
		assert_int_equal(w.offset, corpus[0].offset);
	}
	for (uint32_t k = 0; k < sha1kit_dc_kernel_count; k++) {
		if (!sha1kit_dc_kernel_supported(k))
			continue;
		tested++;
		for (int safe = 0; safe < 2; safe++) {
			sha1kit_dc_options o;
			sha1kit_dc_options_default(&o);
			o.safe_hash = (uint8_t)safe;
			for (size_t len = 0; len <= MAXLEN; len++) {
				const uint8_t *m = buf + (len * 7) % 16;
				size_t cut = len ? (size_t)(tu_next(&rng) % (len + 1)) : 0;
				for (int split = 0; split < 2; split++) {
					sha1kit_dc_ctx ctx;
					sha1kit_dc_detection gw;
					uint8_t got[20];
					sha1kit_dc_init(&ctx, &o);
					ctx.kernel = k;
					if (split) {
						sha1kit_dc_update(&ctx, m, cut);
						sha1kit_dc_update(&ctx, m + cut, len - cut);
					} else {
						sha1kit_dc_update(&ctx, m, len);
					}
					sha1kit_dc_result rg = sha1kit_dc_final(&ctx, got, &gw);
					if (rg != want[safe][len].r ||
					    memcmp(got, want[safe][len].d, 20) != 0 ||
					    gw.dv != want[safe][len].dv)
						fail_msg(
						    "kernel %s: length %zu (split %d at %zu, safe hash %d) "
						    "differs from the portable DC",
						    sha1kit_dc_kernels[k].name, len, split, cut, safe);
				}
			}
			for (size_t first = 0; first <= 320; first++) {
				sha1kit_dc_ctx ctx;
				sha1kit_dc_detection where;
				uint8_t d[20];
				sha1kit_dc_init(&ctx, &o);
				ctx.kernel = k;
				sha1kit_dc_update(&ctx, shattered, first);
				sha1kit_dc_update(&ctx, shattered + first, flen - first);
				assert_int_equal(sha1kit_dc_final(&ctx, d, &where), SHA1KIT_DC_COLLISION);
				assert_memory_equal(d, want_shattered[safe].d, 20);
				assert_int_equal(where.offset, corpus[0].offset);
				assert_string_equal(sha1kit_dv_name(where.dv), "II(52,0)");
			}
		}
	}
	assert_true(tested >= 1);
	free(shattered);
	free(buf);
}

/* A message through kernel k with sha1kit_dc_masks/sha1kit_dc_update_masked on random spans, an
 * ordinary update of a random length first (sometimes not a whole number of blocks: then the masks
 * must be ignored) and between spans now and then. */
static sha1kit_dc_result dc_masked(uint32_t k, const uint8_t *m, size_t len, const sha1kit_dc_options *o,
                                   tu_rng *rng, uint8_t d[20], sha1kit_dc_detection *w)
{
	static uint32_t masks[4096];
	sha1kit_dc_ctx ctx;
	size_t pos = 0;
	sha1kit_dc_init(&ctx, o);
	ctx.kernel = k;
	while (pos < len) {
		size_t r = (size_t)tu_next(rng), take;
		if (r % 4 == 0) {
			take = r / 4 % 200;
			take = take > len - pos ? len - pos : take;
			sha1kit_dc_update(&ctx, m + pos, take);
		} else {
			size_t nb = (r / 4) % 4096 + 1;
			if (nb > (len - pos) / 64)
				nb = (len - pos) / 64;
			if (nb == 0) {
				sha1kit_dc_update(&ctx, m + pos, len - pos);
				break;
			}
			sha1kit_dc_masks(m + pos, nb, masks);
			sha1kit_dc_update_masked(&ctx, m + pos, nb, masks);
			take = 64 * nb;
		}
		pos += take;
	}
	return sha1kit_dc_final(&ctx, d, w);
}

/* Every way sha1kit_dc_masks can compute the masks of nb blocks at m (each supported kernel's
 * look-ahead and per-block filter, the AVX2 lanes it takes where a kernel has no look-ahead) gives
 * `want`, what the chosen one gave (checked against the scalar filter by the caller). */
static void check_masks_paths(const uint8_t *m, size_t nb, const uint32_t *want)
{
	static uint32_t got[1000];
	for (uint32_t k = 0; k < sha1kit_dc_kernel_count; k++) {
		const sha1kit_dc_kernel *dk = &sha1kit_dc_kernels[k];
		if (!sha1kit_dc_kernel_supported(k))
			continue;
		for (int by_ahead = 0; by_ahead < 2; by_ahead++) {
			if (by_ahead && dk->ubc_ahead == NULL)
				continue;
			memset(got, 0x5a, sizeof(got));
			sha1kit_dc_masks_with(by_ahead ? dk->ubc_ahead : NULL, dk->ahead, dk->ubc, m, nb,
			                      got);
			for (size_t b = 0; b < nb; b++)
				if (got[b] != want[b])
					fail_msg("kernel %s, %s: block %zu of %zu: mask %08x, want %08x",
					         dk->name, by_ahead ? "look-ahead" : "per-block filter", b,
					         nb, got[b], want[b]);
		}
	}
#if SHA1KIT_HAVE_AVX2 && defined(__x86_64__)
	if (sha1kit_cpu_features() & SHA1KIT_CPU_AVX2) {
		memset(got, 0x5a, sizeof(got));
		sha1kit_dc_masks_with(sha1kit_ubc_ahead8_avx2, 8, NULL, m, nb, got);
		for (size_t b = 0; b < nb; b++)
			if (got[b] != want[b])
				fail_msg("AVX2 lanes: block %zu of %zu: mask %08x, want %08x", b, nb, got[b],
				         want[b]);
	}
#endif
}

/* sha1kit_dc_masks against the scalar filter, and sha1kit_dc_update_masked on every DC kernel this
 * CPU runs against the portable DC: the corpus (its first 20 KB), alone and behind a random prefix, and
 * random messages up to 64 KiB, in all 16 option combinations, with random spans. */
static void test_dc_masked(void **state)
{
	enum { NRANDOM = 6 };
	static uint32_t masks[1000];
	uint8_t *msg[2 * 5 + NRANDOM];
	size_t mlen[2 * 5 + NRANDOM], n = 0;
	tu_rng rng = {SEED ^ 0x3a5ced};
	(void)state;
	for (size_t f = 0; f < sizeof(corpus) / sizeof(corpus[0]); f++) {
		size_t flen, pre = 64 * (3 + 17 * f);
		uint8_t *data = tu_read_testdata(corpus[f].name, &flen);
		if (flen > 20000)
			flen = 20000 + f; /* the attack blocks are in the first KiB */
		msg[n] = data;
		mlen[n++] = flen;
		msg[n] = malloc(pre + flen);
		assert_non_null(msg[n]);
		tu_fill(&rng, msg[n], pre);
		memcpy(msg[n] + pre, data, flen);
		mlen[n++] = pre + flen;
	}
	for (int i = 0; i < NRANDOM; i++) {
		mlen[n] = (size_t)(tu_next(&rng) % (64 * 1024));
		msg[n] = malloc(mlen[n] + 1);
		assert_non_null(msg[n]);
		tu_fill(&rng, msg[n], mlen[n]);
		n++;
	}
	/* the masks of 1000 random blocks and of the corpus blocks */
	for (size_t i = 0; i < n; i++) {
		size_t nb = mlen[i] / 64 < 1000 ? mlen[i] / 64 : 1000;
		sha1kit_dc_masks(msg[i], nb, masks);
		for (size_t b = 0; b < nb; b++) {
			uint32_t W[80];
			for (int t = 0; t < 16; t++)
				W[t] = sha1kit_load_be32(msg[i] + 64 * b + 4 * (size_t)t);
			expand_words(W);
			if (masks[b] != sha1kit_ubc_mask(W))
				fail_msg("sha1kit_dc_masks: message %zu block %zu: %08x, scalar %08x", i, b,
				         masks[b], sha1kit_ubc_mask(W));
		}
		check_masks_paths(msg[i], nb, masks);
	}
	for (int combo = 0; combo < 16; combo++) {
		sha1kit_dc_options o;
		combo_options(combo, &o);
		for (size_t i = 0; i < n; i++) {
			uint8_t want[20], got[20];
			sha1kit_dc_detection want_w, got_w;
			sha1kit_msg mm = {msg[i], mlen[i]};
			sha1kit_dc_result rw = dc_portable(&mm, &o, want, &want_w);
			for (uint32_t k = 0; k < sha1kit_dc_kernel_count; k++) {
				sha1kit_dc_result rg;
				if (!sha1kit_dc_kernel_supported(k))
					continue;
				rg = dc_masked(k, msg[i], mlen[i], &o, &rng, got, &got_w);
				if (rg != rw || memcmp(got, want, 20) != 0 || got_w.dv != want_w.dv ||
				    got_w.offset != want_w.offset ||
				    got_w.reduced_round != want_w.reduced_round)
					fail_msg("kernel %s, options %d: message %zu (length %zu): masked "
					         "update differs "
					         "(dv %d at %llu, want %d at %llu)",
					         sha1kit_dc_kernels[k].name, combo, i, mlen[i], got_w.dv,
					         (unsigned long long)got_w.offset, want_w.dv,
					         (unsigned long long)want_w.offset);
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		free(msg[i]);
}

/* sha1kit_dc_batch on every batch kernel this CPU runs, against the portable DC one message at a
 * time: the 503 dc-vectors.txt messages, the attack corpus (also behind a random prefix) and random
 * messages of mixed lengths, shuffled; all 16 option combinations; whole and cut into batches of
 * 1..40 messages (every lane count, lanes refilled at different times). */
static void test_dc_batch(void **state)
{
	enum { MAXMSG = 700 };
	static sha1kit_msg msgs[MAXMSG];
	static uint8_t *owned[MAXMSG];
	static uint8_t want[MAXMSG][20], got[MAXMSG * 20];
	static sha1kit_dc_detection want_w[MAXMSG], got_w[MAXMSG];
	size_t n = 0, len, flagged_msgs = 0;
	char *text = (char *)tu_read_testdata("dc-vectors.txt", &len), *save = NULL;
	tu_rng rng = {SEED ^ 0xba7c};
	(void)state;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char label[64], *hex;
		size_t mlen;
		if (line[0] == '#')
			continue;
		assert_int_equal(sscanf(line, "%63s %zu", label, &mlen), 2);
		hex = strchr(strchr(line, ' ') + 1, ' ') + 1;
		owned[n] = malloc(mlen + 1);
		assert_non_null(owned[n]);
		if (mlen)
			assert_int_equal(tu_unhex(hex, owned[n], mlen), 0);
		msgs[n].data = owned[n];
		msgs[n].len = mlen;
		n++;
	}
	free(text);
	for (size_t f = 0; f < sizeof(corpus) / sizeof(corpus[0]); f++) {
		size_t flen, pre = 64 * (1 + f);
		uint8_t *data = tu_read_testdata(corpus[f].name, &flen);
		if (test_share > 1 && flen > 20000)
			flen = 20000 + f; /* the attack blocks are in the first KiB */
		owned[n] = data;
		msgs[n].data = data;
		msgs[n++].len = flen;
		owned[n] = malloc(pre + flen);
		assert_non_null(owned[n]);
		tu_fill(&rng, owned[n], pre);
		memcpy(owned[n] + pre, data, flen);
		msgs[n].data = owned[n];
		msgs[n++].len = pre + flen;
	}
	while (n < MAXMSG) {
		size_t mlen = (size_t)(tu_next(&rng) % 3000);
		owned[n] = malloc(mlen + 1);
		assert_non_null(owned[n]);
		tu_fill(&rng, owned[n], mlen);
		msgs[n].data = mlen ? owned[n] : NULL;
		msgs[n++].len = mlen;
	}
	for (size_t i = n - 1; i > 0; i--) { /* shuffle, keeping data and owner together */
		size_t j = (size_t)(tu_next(&rng) % (i + 1));
		sha1kit_msg m = msgs[i];
		uint8_t *o = owned[i];
		msgs[i] = msgs[j];
		owned[i] = owned[j];
		msgs[j] = m;
		owned[j] = o;
	}
	for (int combo = 0; combo < 16; combo++) {
		sha1kit_dc_options o;
		int any = 0;
		combo_options(combo, &o);
		for (size_t i = 0; i < n; i++) {
			any |= dc_portable(&msgs[i], &o, want[i], &want_w[i]) == SHA1KIT_DC_COLLISION;
			flagged_msgs += want_w[i].dv >= 0;
		}
		for (uint32_t k = 0; k < sha1kit_dc_batch_kernel_count; k++) {
			const sha1kit_batch_kernel *bk = &sha1kit_dc_batch_kernels[k];
			if (!sha1kit_batch_kernel_supported(bk))
				continue;
			for (int cut = 0; cut < 2; cut++) {
				size_t step = 0;
				memset(got, 0xaa, sizeof(got));
				memset(got_w, 0xaa, sizeof(got_w));
				for (size_t i = 0; i < n; i += step) {
					int r;
					step = cut ? 1 + (i * 7) % 40 : n;
					if (step > n - i)
						step = n - i;
					r = sha1kit_dc_batch_with(k, msgs + i, step, &o, got + 20 * i,
					                          got_w + i);
					if (!cut)
						assert_int_equal(r, any);
				}
				for (size_t i = 0; i < n; i++) {
					if (memcmp(got + 20 * i, want[i], 20) != 0 ||
					    memcmp(&got_w[i], &want_w[i], sizeof(want_w[i])) != 0)
						fail_msg("%s, options %d, cut %d: message %zu (length %zu) "
						         "differs",
						         bk->name, combo, cut, i, msgs[i].len);
				}
			}
		}
	}
	/* the data really exercises detection: flagged messages in the flagging option sets */
	assert_true(flagged_msgs >= 8 * 12);
	/* the public entry point takes the default batch kernel, and where may be NULL */
	assert_int_equal(sha1kit_dc_batch(msgs, n, NULL, got, NULL), SHA1KIT_DC_COLLISION);
	for (size_t i = 0; i < n; i++) {
		dc_portable(&msgs[i], NULL, want[i], NULL);
		assert_memory_equal(got + 20 * i, want[i], 20);
	}
	for (size_t i = 0; i < n; i++)
		free(owned[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dv_table),
	    cmocka_unit_test(test_ubc_vectors),
	    cmocka_unit_test(test_collides),
	    cmocka_unit_test(test_ubc_random),
	    cmocka_unit_test(test_recompression),
	    cmocka_unit_test(test_dc_vectors),
	    cmocka_unit_test(test_corpus),
	    cmocka_unit_test(test_options_growth),
	    cmocka_unit_test(test_ubc_forms_random),
	    cmocka_unit_test(test_dc_compress_kernels),
	    cmocka_unit_test(test_dc_compress2_kernels),
	    cmocka_unit_test(test_callback),
	    cmocka_unit_test(test_lanes_dc_kernels),
	    cmocka_unit_test(test_ubc_ahead),
	    cmocka_unit_test(test_dc_masked),
	    cmocka_unit_test(test_dc_run16),
	    cmocka_unit_test(test_dc_all_lengths),
	    cmocka_unit_test(test_dc_batch),
	    cmocka_unit_test(test_one_shot_short),
	};
	return cmocka_run_group_tests(tests, setup_oracle, teardown_oracle);
}
