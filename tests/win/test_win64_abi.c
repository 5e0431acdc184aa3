/*
 * test_win64_abi.c - every x86-64 kernel of the library keeps the Win64 calling convention: called
 * through tests/win/abi_call.S with the nonvolatile registers (rbx, rbp, rdi, rsi, r12-r15,
 * xmm6-xmm15) set to known patterns, each returns them unchanged, with MXCSR unchanged, and
 * computes what a direct call computes (or the portable kernel).
 *
 * Covered (from src/dispatch.c and src/internal.h): the single-stream kernels and their two-stream
 * forms, the SHA-256 kernels, the SHA-1DC compression kernels, UBC filters, look-ahead filters and
 * plain kernels of each SHA-1DC kernel entry, the 16-lane recompression, the batch lanes kernels
 * (plain, DC, recompression), the 16-lane UBC filter, and the public entry points (sha1kit_fast,
 * sha1kit_dc, the batch functions) on the chosen kernels. Kernels the CPU lacks are named on the
 * output, never called; the ones that ran are listed too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <xmmintrin.h>

#include "internal.h"
#include "sha1kit.h"
#include "test_util.h"

typedef struct sk_abi_regs {
	uint64_t gpr[8]; /* rbx, rbp, rdi, rsi, r12, r13, r14, r15 */
	uint8_t xmm[10][16];
	uint32_t mxcsr;
} sk_abi_regs;

uint64_t sk_abi_call(const void *fn, const uint64_t args[6], sk_abi_regs *after);
void sk_abi_clobber(void);

/* Read by abi_call.S. */
uint64_t sk_abi_gpr_pattern[8];
uint8_t sk_abi_xmm_pattern[10][16];

static const char *const gpr_names[8] = {"rbx", "rbp", "rdi", "rsi", "r12", "r13", "r14", "r15"};
static char ran[4096];
static int calls;

/* A function pointer as the harness takes it (ISO C has no object <-> function pointer cast). */
#define FN(f)  ((const void *)(uintptr_t)(f))
#define ARG(x) ((uint64_t)(uintptr_t)(x))

/* Call fn through the harness with a fresh pattern; returns the number of registers it changed. */
static int abi_diffs(const char *what, const void *fn, const uint64_t args[6], uint64_t *ret, int quiet)
{
	sk_abi_regs after;
	int bad = 0;
	calls++;
	for (int i = 0; i < 8; i++)
		sk_abi_gpr_pattern[i] =
		    0x5a17c0de00000000ull ^ ((uint64_t)calls << 8) ^ (uint64_t)(i * 0x1111);
	for (int i = 0; i < 10; i++)
		for (int j = 0; j < 16; j++)
			sk_abi_xmm_pattern[i][j] = (uint8_t)(calls * 7 + i * 16 + j + 1);
	uint32_t mxcsr = _mm_getcsr();
	memset(&after, 0, sizeof(after));
	uint64_t r = sk_abi_call(fn, args, &after);
	if (ret != NULL)
		*ret = r;
	for (int i = 0; i < 8; i++)
		if (after.gpr[i] != sk_abi_gpr_pattern[i]) {
			if (!quiet)
				print_message("%s: %s changed: 0x%016llx -> 0x%016llx\n", what, gpr_names[i],
				              (unsigned long long)sk_abi_gpr_pattern[i],
				              (unsigned long long)after.gpr[i]);
			bad++;
		}
	for (int i = 0; i < 10; i++)
		if (memcmp(after.xmm[i], sk_abi_xmm_pattern[i], 16) != 0) {
			if (!quiet)
				print_message("%s: xmm%d changed\n", what, i + 6);
			bad++;
		}
	if (after.mxcsr != mxcsr) {
		if (!quiet)
			print_message("%s: MXCSR changed: 0x%x -> 0x%x\n", what, mxcsr, after.mxcsr);
		bad++;
	}
	return bad;
}

static uint64_t abi_call(const char *what, const void *fn, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
                         uint64_t a4)
{
	const uint64_t args[6] = {a0, a1, a2, a3, a4, 0};
	uint64_t ret;
	if (abi_diffs(what, fn, args, &ret, 0) != 0)
		fail_msg("%s does not keep the Win64 nonvolatile registers", what);
	if (!strstr(ran, what) && strlen(ran) + strlen(what) + 3 < sizeof(ran)) {
		strcat(ran, ran[0] ? ", " : "");
		strcat(ran, what);
	}
	return ret;
}

static void test_harness_sees_a_clobber(void **state)
{
	const uint64_t args[6] = {0};
	(void)state;
	/* rbx, r13, xmm7 and xmm15: four registers */
	assert_int_equal(abi_diffs("sk_abi_clobber", FN(sk_abi_clobber), args, NULL, 1), 4);
	/* and a conforming function passes, arguments in the right registers and on the stack */
	uint8_t d[20], e[20];
	const char msg[] = "abc";
	sha1kit_fast(msg, 3, e);
	abi_call("sha1kit_fast", FN(sha1kit_fast), ARG(msg), 3, ARG(d), 0, 0);
	assert_memory_equal(d, e, 20);
}

static void test_single_stream_kernels(void **state)
{
	uint8_t data[64 * 9 + 1];
	tu_rng rng = {0x41424921};
	(void)state;
	tu_fill(&rng, data, sizeof(data));
	for (uint32_t k = 0; k < sha1kit_kernel_count; k++) {
		const sha1kit_kernel *kk = &sha1kit_kernels[k];
		char what[64];
		if (!sha1kit_kernel_supported(k)) {
			print_message("kernel %s: not on this CPU, not called\n", kk->name);
			continue;
		}
		uint32_t a[5] = {1, 2, 3, 4, 5}, b[5] = {1, 2, 3, 4, 5}, c[5] = {6, 7, 8, 9, 10},
		         e[5] = {6, 7, 8, 9, 10};
		snprintf(what, sizeof(what), "blocks_%s", kk->name);
		abi_call(what, FN(kk->blocks), ARG(a), ARG(data + 1), 9, 0, 0);
		sha1kit_blocks_portable(b, data + 1, 9);
		assert_memory_equal(a, b, sizeof(a));
		if (kk->blocks_x2 != NULL) {
			memcpy(a, (uint32_t[5]){1, 2, 3, 4, 5}, sizeof(a));
			memcpy(b, a, sizeof(b));
			snprintf(what, sizeof(what), "blocks_x2_%s", kk->name);
			/* five arguments: the block count goes on the stack */
			abi_call(what, FN(kk->blocks_x2), ARG(a), ARG(data), ARG(c), ARG(data + 64), 8);
			sha1kit_blocks_portable(b, data, 8);
			sha1kit_blocks_portable(e, data + 64, 8);
			assert_memory_equal(a, b, sizeof(a));
			assert_memory_equal(c, e, sizeof(c));
		}
	}
}

static void test_sha256_kernels(void **state)
{
	uint8_t data[64 * 9 + 1];
	tu_rng rng = {0x41424922};
	(void)state;
	tu_fill(&rng, data, sizeof(data));
	for (uint32_t k = 0; k < sha1kit_sha256_kernel_count; k++) {
		const sha1kit_sha256_kernel *kk = &sha1kit_sha256_kernels[k];
		char what[64];
		if (!sha1kit_sha256_kernel_supported(k)) {
			print_message("SHA-256 kernel %s: not on this CPU, not called\n", kk->name);
			continue;
		}
		uint32_t a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
		snprintf(what, sizeof(what), "sha256_blocks_%s", kk->name);
		abi_call(what, FN(kk->blocks), ARG(a), ARG(data + 1), 9, 0, 0);
		sha1kit_sha256_blocks_portable(b, data + 1, 9);
		assert_memory_equal(a, b, sizeof(a));
	}
}

static void test_dc_kernels(void **state)
{
	uint8_t data[64 * 16 + 1];
	tu_rng rng = {0x4443};
	(void)state;
	tu_fill(&rng, data, sizeof(data));
	for (uint32_t k = 0; k < sha1kit_dc_kernel_count; k++) {
		const sha1kit_dc_kernel *dk = &sha1kit_dc_kernels[k];
		char what[80];
		if (!sha1kit_dc_kernel_supported(k)) {
			print_message("SHA-1DC kernel %s: not on this CPU, not called\n", dk->name);
			continue;
		}
		uint32_t ihv[5] = {1, 2, 3, 4, 5}, ref[5] = {1, 2, 3, 4, 5}, W[80], refW[80];
		sha1kit_dc_state st[2], refst[2];
		snprintf(what, sizeof(what), "dc_compress[%s]", dk->name);
		abi_call(what, FN(dk->compress), ARG(ihv), ARG(data + 1), ARG(W), ARG(st), 0);
		sha1kit_dc_compress_portable(ref, data + 1, refW, refst);
		assert_memory_equal(ihv, ref, sizeof(ihv));
		assert_memory_equal(W, refW, sizeof(W));
		assert_memory_equal(st, refst, sizeof(st));
		snprintf(what, sizeof(what), "ubc[%s]", dk->name);
		assert_int_equal((uint32_t)abi_call(what, FN(dk->ubc), ARG(refW), 0, 0, 0, 0),
		                 sha1kit_ubc_mask(refW));
		if (dk->ubc_ahead != NULL) {
			uint32_t mask[16], refmask[16];
			snprintf(what, sizeof(what), "ubc_ahead[%s]", dk->name);
			abi_call(what, FN(dk->ubc_ahead), ARG(data + 1), dk->ahead, ARG(mask), 0, 0);
			for (unsigned i = 0; i < dk->ahead; i++) {
				sha1kit_dc_compress_portable((uint32_t[5]){0}, data + 1 + 64 * i, refW,
				                             refst);
				refmask[i] = sha1kit_ubc_mask(refW);
			}
			assert_memory_equal(mask, refmask, dk->ahead * sizeof(uint32_t));
		}
		if (dk->blocks != NULL) {
			memcpy(ihv, (uint32_t[5]){1, 2, 3, 4, 5}, sizeof(ihv));
			memcpy(ref, ihv, sizeof(ref));
			snprintf(what, sizeof(what), "dc_blocks[%s]", dk->name);
			abi_call(what, FN(dk->blocks), ARG(ihv), ARG(data), 16, 0, 0);
			sha1kit_blocks_portable(ref, data, 16);
			assert_memory_equal(ihv, ref, sizeof(ihv));
		}
	}
}

/* The lanes kernels of one batch table entry (same inputs through the harness and directly). */
static void lanes_kernels(const sha1kit_batch_kernel *bk, const char *table)
{
	enum { L = SHA1KIT_MAX_LANES };
	static uint8_t data[L][64 * 3];
	static sha1kit_lanes_dc out, ref_out;
	static uint32_t Wl[80 * L], st[5 * L], in1[5 * L], out1[5 * L], in2[5 * L], out2[5 * L];
	uint32_t state[5 * L], ref[5 * L];
	const uint8_t *blocks[L];
	tu_rng rng = {0x4c414e45};
	char what[80];
	unsigned lanes = bk->lanes;
	tu_fill(&rng, &data[0][0], sizeof(data));
	tu_fill(&rng, (uint8_t *)Wl, sizeof(Wl));
	tu_fill(&rng, (uint8_t *)st, sizeof(st));
	for (unsigned l = 0; l < L; l++)
		blocks[l] = data[l];

	for (unsigned i = 0; i < 5 * lanes; i++)
		state[i] = ref[i] = (uint32_t)tu_next(&rng);
	snprintf(what, sizeof(what), "%s_lanes_fast[%s]", table, bk->name);
	abi_call(what, FN(bk->fast), ARG(state), ARG(blocks), 3, 0, 0);
	for (unsigned l = 0; l < lanes; l++) { /* each lane against the portable kernel */
		uint32_t one[5];
		for (int w = 0; w < 5; w++)
			one[w] = ref[w * lanes + l];
		sha1kit_blocks_portable(one, data[l], 3);
		for (int w = 0; w < 5; w++)
			assert_int_equal(state[w * lanes + l], one[w]);
	}

	memcpy(ref, state, sizeof(state));
	snprintf(what, sizeof(what), "%s_lanes_dc[%s]", table, bk->name);
	uint32_t flagged = (uint32_t)abi_call(what, FN(bk->dc), ARG(state), ARG(blocks), 1, ARG(&out), 0);
	assert_int_equal(bk->dc(ref, blocks, 1, &ref_out), flagged);
	assert_memory_equal(state, ref, 5 * lanes * sizeof(uint32_t));
	assert_memory_equal(out.mask, ref_out.mask, lanes * sizeof(uint32_t));

	for (int testt = 58; testt <= 65; testt += 7) {
		snprintf(what, sizeof(what), "%s_lanes_recompress[%s]", table, bk->name);
		abi_call(what, FN(bk->recompress), (uint64_t)testt, ARG(Wl), ARG(st), ARG(in1), ARG(out1));
		bk->recompress(testt, Wl, st, in2, out2);
		assert_memory_equal(in1, in2, 5 * lanes * sizeof(uint32_t));
		assert_memory_equal(out1, out2, 5 * lanes * sizeof(uint32_t));
	}
}

static void test_batch_kernels(void **state)
{
	(void)state;
	for (int dc = 0; dc < 2; dc++) {
		const sha1kit_batch_kernel *table =
		    dc ? sha1kit_dc_batch_kernels : sha1kit_fast_batch_kernels;
		uint32_t count = dc ? sha1kit_dc_batch_kernel_count : sha1kit_fast_batch_kernel_count;
		for (uint32_t i = 0; i < count; i++) {
			if (table[i].lanes == 0)
				continue; /* single-stream kernels: test_single_stream_kernels */
			if (!sha1kit_batch_kernel_supported(&table[i])) {
				print_message("batch kernel %s: not on this CPU, not called\n",
				              table[i].name);
				continue;
			}
			lanes_kernels(&table[i], dc ? "dc" : "fast");
		}
	}
#if SHA1KIT_HAVE_AVX512
	if (sha1kit_cpu_features() & SHA1KIT_CPU_AVX512) {
		static uint32_t W[80 * 16];
		uint32_t mask[16], ref[16];
		tu_rng rng = {0x55424331};
		tu_fill(&rng, (uint8_t *)W, sizeof(W));
		abi_call("ubc_lanes16_avx512", FN(sha1kit_ubc_lanes16_avx512), ARG(W), ARG(mask), 0, 0, 0);
		sha1kit_ubc_lanes16_avx512(W, ref);
		assert_memory_equal(mask, ref, sizeof(mask));
	} else {
		print_message("ubc_lanes16_avx512: not on this CPU, not called\n");
	}
#endif
}

/* The public entry points, on the kernels the library chose (the whole path through the library). */
static void test_public_api(void **state)
{
	size_t len;
	uint8_t *pdf = tu_read_testdata("shattered-1.pdf", &len), d[20], e[20];
	sha1kit_dc_options opt;
	sha1kit_dc_detection where, where2;
	(void)state;
	sha1kit_dc_options_default(&opt);
	/* five arguments: `where` on the stack */
	uint64_t r = abi_call("sha1kit_dc", FN(sha1kit_dc), ARG(pdf), len, ARG(&opt), ARG(d), ARG(&where));
	assert_int_equal((sha1kit_dc_result)r, SHA1KIT_DC_COLLISION);
	assert_int_equal(sha1kit_dc(pdf, len, &opt, e, &where2), SHA1KIT_DC_COLLISION);
	assert_memory_equal(d, e, 20);
	abi_call("sha1kit_fast", FN(sha1kit_fast), ARG(pdf), len, ARG(d), 0, 0);
	sha1kit_fast(pdf, len, e);
	assert_memory_equal(d, e, 20);

	sha1kit_msg msgs[20];
	uint8_t dg[20][20], eg[20][20];
	for (int i = 0; i < 20; i++) {
		msgs[i].data = pdf + 1000 * i;
		msgs[i].len = 500 + 700 * (size_t)i;
	}
	abi_call("sha1kit_fast_batch", FN(sha1kit_fast_batch), ARG(msgs), 20, ARG(dg), 0, 0);
	for (int i = 0; i < 20; i++)
		sha1kit_fast(msgs[i].data, msgs[i].len, eg[i]);
	assert_memory_equal(dg, eg, sizeof(dg));
	/* msgs[0] holds SHAttered's collision blocks: it is flagged, the others are not */
	sha1kit_dc_detection wg[20], wg2[20];
	r = abi_call("sha1kit_dc_batch", FN(sha1kit_dc_batch), ARG(msgs), 20, ARG(&opt), ARG(dg), ARG(wg));
	assert_int_equal((sha1kit_dc_result)r, SHA1KIT_DC_COLLISION);
	assert_int_equal(sha1kit_dc_batch(msgs, 20, &opt, eg[0], wg2), SHA1KIT_DC_COLLISION);
	assert_memory_equal(dg, eg, sizeof(dg));
	assert_int_equal(wg[0].dv, wg2[0].dv);
	assert_true(wg[0].dv >= 0);
	for (int i = 1; i < 20; i++)
		assert_int_equal(wg[i].dv, -1);
	print_message("kernels chosen: %s, %s, %s, %s\n", sha1kit_kernel_name(), sha1kit_dc_kernel_name(),
	              sha1kit_fast_batch_kernel_name(), sha1kit_dc_batch_kernel_name());
	print_message("called through the harness (%d calls): %s\n", calls, ran);
	free(pdf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_harness_sees_a_clobber), cmocka_unit_test(test_single_stream_kernels),
	    cmocka_unit_test(test_sha256_kernels),         cmocka_unit_test(test_dc_kernels),
	    cmocka_unit_test(test_batch_kernels),          cmocka_unit_test(test_public_api),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
