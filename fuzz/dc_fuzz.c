/*
 * dc_fuzz.c - libFuzzer target: the accelerated SHA-1DC kernels against the portable one.
 *
 * Input: byte 0 = options (bit 0 safe hash, bit 1 UBC off, bit 2 detection off, bit 3 reduced-round,
 * bits 4-5 prefix: none / the first 320 bytes of shattered-1.pdf / of shattered-2.pdf / sha-mbles-1.bin,
 * so that inputs with a known attack as prefix are common), byte 1 = split seed, byte 2 = where to copy
 * the context (in 8-byte units), the rest = the message (after the prefix). The message is hashed
 * with the portable kernel in one call and with the default (fastest) kernel in random splits (some
 * long enough for the look-ahead UBC path, some through sha1kit_dc_masks and
 * sha1kit_dc_update_masked), with a context copy mid-stream; digests, results and
 * detection details must agree. Then sha1kit_dc_batch hashes 1..24 prefixes of the message at once
 * (all with the attack prefix, so lanes flag together), each against the portable kernel.
 * The attack files come from $SHA1KIT_TESTDATA (default testdata/, run from the repository);
 * without them the prefixes are empty.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sha1kit.h"

static uint8_t prefixes[4][640];
static size_t prefix_len[4];

static void load_prefix(int i, const char *name, size_t len)
{
	const char *dir = getenv("SHA1KIT_TESTDATA");
	char path[4096];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "testdata", name);
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "dc_fuzz: %s not found: attack prefixes off\n", path);
		return;
	}
	prefix_len[i] = fread(prefixes[i], 1, len, f);
	fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	load_prefix(1, "shattered-1.pdf", 320);
	load_prefix(2, "shattered-2.pdf", 320);
	load_prefix(3, "sha-mbles-1.bin", 640);
	return 0;
}

static uint32_t portable_index(void)
{
	for (uint32_t i = 0; i < sha1kit_dc_kernel_count; i++)
		if (strcmp(sha1kit_dc_kernels[i].name, "portable") == 0)
			return i;
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sha1kit_dc_options opt;
	sha1kit_dc_ctx ref, acc, copy;
	sha1kit_dc_detection w_ref, w_acc, w_copy;
	uint8_t d_ref[20], d_acc[20], d_copy[20], *msg;
	size_t len, pre, copy_at;
	uint32_t seed;
	int r_ref, r_acc, r_copy;

	if (size < 3)
		return 0;
	sha1kit_dc_options_default(&opt);
	opt.safe_hash = data[0] & 1;
	opt.use_ubc = !(data[0] & 2);
	opt.detect = !(data[0] & 4);
	opt.reduced_round = (data[0] & 8) != 0;
	pre = prefix_len[(data[0] >> 4) & 3];
	seed = data[1] * 2654435761u + 1;
	len = pre + size - 3;
	msg = malloc(len ? len : 1);
	if (!msg)
		return 0;
	memcpy(msg, prefixes[(data[0] >> 4) & 3], pre);
	memcpy(msg + pre, data + 3, size - 3);
	copy_at = (size_t)data[2] * 8 < len ? (size_t)data[2] * 8 : len;

	sha1kit_dc_init(&ref, &opt);
	ref.kernel = portable_index();
	sha1kit_dc_update(&ref, msg, len);
	r_ref = sha1kit_dc_final(&ref, d_ref, &w_ref);

	sha1kit_dc_init(&acc, &opt);
	for (size_t i = 0; i < len;) {
		size_t n;
		seed = seed * 1103515245u + 12345u;
		n = (seed & 0x80000000u) ? (seed >> 16) % 2048 : (seed >> 16) % 300;
		if (i < copy_at && i + n > copy_at)
			n = copy_at - i;
		if (n > len - i)
			n = len - i;
		if ((seed >> 8) & 1) {
			/* the whole blocks through sha1kit_dc_masks + sha1kit_dc_update_masked (which
			 * ignores the masks when the context is not at a block boundary) */
			uint32_t masks[2048 / 64];
			sha1kit_dc_masks(msg + i, n / 64, masks);
			sha1kit_dc_update_masked(&acc, msg + i, n / 64, masks);
			sha1kit_dc_update(&acc, msg + i + n / 64 * 64, n % 64);
		} else {
			sha1kit_dc_update(&acc, msg + i, n);
		}
		i += n;
		if (i == copy_at) {
			copy = acc;
			sha1kit_dc_update(&copy, msg + i, len - i);
			r_copy = sha1kit_dc_final(&copy, d_copy, &w_copy);
			if (r_copy != r_ref || memcmp(d_copy, d_ref, 20) || w_copy.dv != w_ref.dv ||
			    w_copy.offset != w_ref.offset)
				abort();
		}
	}
	if (copy_at == len && len == 0) {
		copy = acc;
		r_copy = sha1kit_dc_final(&copy, d_copy, &w_copy);
		if (r_copy != r_ref || memcmp(d_copy, d_ref, 20))
			abort();
	}
	r_acc = sha1kit_dc_final(&acc, d_acc, &w_acc);
	if (r_acc != r_ref || memcmp(d_acc, d_ref, 20) || w_acc.dv != w_ref.dv ||
	    w_acc.offset != w_ref.offset || w_acc.reduced_round != w_ref.reduced_round)
		abort();
	/* plain SHA-1 agrees when safe hash is off or nothing was flagged */
	if (!opt.safe_hash || r_ref == SHA1KIT_DC_NO_COLLISION) {
		uint8_t plain[20];
		sha1kit_fast(msg, len, plain);
		if (memcmp(plain, d_ref, 20))
			abort();
	}
	{
		enum { MAXB = 24 };
		sha1kit_msg msgs[MAXB];
		uint8_t digests[MAXB * 20];
		sha1kit_dc_detection where[MAXB];
		size_t k = 1 + data[1] % MAXB;
		int any = 0;
		for (size_t i = 0; i < k; i++) {
			msgs[i].data = msg;
			msgs[i].len = len - (len * i) / k;
		}
		r_acc = sha1kit_dc_batch(msgs, k, &opt, digests, where);
		for (size_t i = 0; i < k; i++) {
			sha1kit_dc_init(&ref, &opt);
			ref.kernel = portable_index();
			sha1kit_dc_update(&ref, msg, msgs[i].len);
			r_ref = sha1kit_dc_final(&ref, d_ref, &w_ref);
			any |= r_ref == SHA1KIT_DC_COLLISION;
			if (memcmp(digests + 20 * i, d_ref, 20) || where[i].dv != w_ref.dv ||
			    (w_ref.dv >= 0 && (where[i].offset != w_ref.offset ||
			                       where[i].reduced_round != w_ref.reduced_round)))
				abort();
		}
		if (r_acc != (any ? SHA1KIT_DC_COLLISION : SHA1KIT_DC_NO_COLLISION))
			abort();
	}
	free(msg);
	return 0;
}
