/*
 * test_ahead.c - the read ahead of fsck's pass over a damaged pack (src/git/fsck_ahead.c) on a
 * pack git makes (git fast-import, then git repack with long OFS_DELTA chains), on eight threads
 * whatever the machine has: every entry taken in order; an object read ahead whole must be what
 * git's reader (skg_pk_git_unpack) reads at that entry, with no line, and hash to its ID; the
 * CRC-32 flags must be the idx's comparison. Then the same on copies of the pack with one byte
 * changed at 24 places across it: the damaged entry, and every delta whose chain runs through
 * it, must not be read whole, and the rest must still agree with git's reader there.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <sha1kit/git_object.h>

#include "fsck_ahead.h"
#include "pack.h"

struct fixture {
	char dir[64];
	uint8_t *pack, *idx;
	size_t pack_len, idx_len;
	struct skg_fsck_ent *e;
	size_t n;
};

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	long n = ftell(fp);
	assert_true(n > 0);
	rewind(fp);
	uint8_t *b = malloc((size_t)n);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*len = (size_t)n;
	return b;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct skg_fsck_ent *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* 160 commits changing five files a line at a time, repacked with chains up to 50 deltas long. */
static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	assert_non_null(fx);
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/sk_ahead_XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "git init -q --bare %s/r.git && git -C %s/r.git fast-import --quiet",
	         fx->dir, fx->dir);
	FILE *fi = popen(cmd, "w");
	assert_non_null(fi);
	char text[5][8192];
	size_t tlen[5] = {0};
	for (int i = 0; i < 160; i++) {
		int f = i % 5;
		tlen[f] += (size_t)snprintf(text[f] + tlen[f], sizeof(text[f]) - tlen[f],
		                            "file %d, line %d: the quick brown fox %d\n", f, i, i * 7919);
		fprintf(fi, "commit refs/heads/main\ncommitter A U Thor <a@example.com> %d +0000\n",
		        1700000000 + i);
		fprintf(fi, "data %d\ncommit %03d\n", 11, i);
		fprintf(fi, "M 100644 inline f%d.txt\ndata %zu\n", f, tlen[f]);
		fwrite(text[f], 1, tlen[f], fi);
		fputc('\n', fi);
	}
	assert_int_equal(pclose(fi), 0);
	snprintf(cmd, sizeof(cmd),
	         "git -C %s/r.git repack -adfq --depth=50 --window=50 && "
	         "cd %s/r.git/objects/pack && for f in pack-*.pack; do mv $f ../../../p.pack; "
	         "mv ${f%%.pack}.idx ../../../p.idx; done",
	         fx->dir, fx->dir);
	assert_int_equal(system(cmd), 0);
	char path[128];
	snprintf(path, sizeof(path), "%s/p.pack", fx->dir);
	fx->pack = slurp(path, &fx->pack_len);
	snprintf(path, sizeof(path), "%s/p.idx", fx->dir);
	fx->idx = slurp(path, &fx->idx_len);
	fx->n = (size_t)skg_pk_idx_count(fx->idx, fx->idx_len);
	assert_true(fx->n >= 480);
	fx->e = calloc(fx->n, sizeof(*fx->e));
	assert_non_null(fx->e);
	for (size_t k = 0; k < fx->n; k++) {
		assert_true(
		    skg_pk_idx_entry_as(fx->idx, fx->idx_len, SKG_RAWSZ, k, &fx->e[k].id, &fx->e[k].off));
		fx->e[k].k = k;
	}
	qsort(fx->e, fx->n, sizeof(*fx->e), cmp_ent);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fx->dir);
	assert_int_equal(system(cmd), 0);
	free(fx->pack);
	free(fx->idx);
	free(fx->e);
	free(fx);
	return 0;
}

/* git's reader's callbacks: its lines counted; a base's ID from the idx, as fsck gives it. */
struct reader {
	const struct fixture *fx;
	unsigned lines;
};

static void count_line(void *ctx, const char *text)
{
	struct reader *r = ctx;
	assert_true(strncmp(text, "error: ", 7) == 0 || strncmp(text, "fatal: ", 7) == 0);
	r->lines++;
}

static bool base_id(void *ctx, uint64_t offset, uint8_t *id)
{
	const struct reader *r = ctx;
	const struct skg_fsck_ent key = {offset, NULL, 0};
	const struct skg_fsck_ent *b = bsearch(&key, r->fx->e, r->fx->n, sizeof(key), cmp_ent);
	if (b != NULL) {
		memcpy(id, b->id, SKG_RAWSZ);
	}
	return b != NULL;
}

/*
 * Every entry of pack[0..len) taken from a read ahead on eight threads and compared with git's
 * reader; returns how many came read whole. *delta_whole: how many of those were deltas.
 */
static size_t take_all(const struct fixture *fx, const uint8_t *pack, size_t len, size_t *delta_whole)
{
	const struct skg_file file = {.data = pack, .len = len};
	const struct skg_file idx = {.data = fx->idx, .len = fx->idx_len};
	const uint64_t sig_at = len - SKG_RAWSZ;
	struct skg_fsck_ahead *a =
	    skg_fsck_ahead_start(&file, &idx, fx->e, fx->n, sig_at, SKG_FORMAT_SHA1, SKG_RAWSZ, 1 << 20, 8);
	assert_non_null(a);
	size_t whole = 0;
	*delta_whole = 0;
	for (size_t k = 0; k < fx->n; k++) {
		/* git's reader first: the threads meanwhile read on */
		struct reader r = {fx, 0};
		unsigned type = 0;
		uint8_t *data = NULL;
		uint64_t n = 0, hsize;
		int rc = skg_pk_git_unpack(pack, len, fx->idx, fx->idx_len, SKG_RAWSZ, fx->e[k].off, true,
		                           UINT64_MAX, NULL, "p.pack", base_id, count_line, NULL, &r, &type,
		                           &data, &n);
		struct skg_fsck_ahead_obj o = {false, 0, NULL, 0, -1};
		assert_true(skg_fsck_ahead_take(a, k, NULL, &o));
		uint64_t next = k + 1 < fx->n ? fx->e[k + 1].off : sig_at;
		assert_int_equal(o.crc, skg_pk_idx_crc_differs(fx->idx, fx->idx_len, SKG_RAWSZ, fx->e[k].k,
		                                               pack, fx->e[k].off, next - fx->e[k].off)
		                            ? 1
		                            : 0);
		if (o.whole) {
			assert_int_equal(rc, 0);
			assert_int_equal(r.lines, 0);
			assert_int_equal(o.type, type);
			assert_int_equal(o.len, n);
			assert_memory_equal(o.data, data, (size_t)n);
			struct skg_object_hasher h;
			uint8_t got[SKG_MAX_RAWSZ];
			skg_object_hash_begin_as(&h, SKG_FORMAT_SHA1, skg_type_name(type), n);
			skg_object_hash_update(&h, data, (size_t)n);
			assert_int_equal(skg_object_hash_final_as(&h, got, NULL), 0);
			assert_memory_equal(got, fx->e[k].id, SKG_RAWSZ);
			int t = skg_pk_git_entry_header(pack, len, SKG_RAWSZ, fx->e[k].off, &hsize);
			*delta_whole += t == SKG_PK_OFS_DELTA || t == SKG_PK_REF_DELTA;
			whole++;
		} else {
			assert_null(o.data);
		}
		free(o.data);
		free(data);
	}
	skg_fsck_ahead_stop(a);
	return whole;
}

static void test_sound(void **state)
{
	const struct fixture *fx = *state;
	size_t deltas = 0;
	/* every object whole, the deltas among them */
	assert_int_equal(take_all(fx, fx->pack, fx->pack_len, &deltas), fx->n);
	assert_true(deltas > fx->n / 2);
}

static void test_damaged(void **state)
{
	const struct fixture *fx = *state;
	uint8_t *copy = malloc(fx->pack_len);
	assert_non_null(copy);
	for (size_t p = 0; p < 24; p++) {
		/* a byte inside an entry's data, spread over the pack */
		size_t k = 1 + p * (fx->n - 2) / 24;
		uint64_t at = fx->e[k].off + (fx->e[k + 1].off - fx->e[k].off) / 2 + 1;
		memcpy(copy, fx->pack, fx->pack_len);
		copy[at] ^= 0x21;
		size_t deltas;
		assert_true(take_all(fx, copy, fx->pack_len, &deltas) < fx->n);
		/* and the damaged entry itself is never whole */
		const struct skg_file file = {.data = copy, .len = fx->pack_len};
		const struct skg_file idx = {.data = fx->idx, .len = fx->idx_len};
		struct skg_fsck_ahead *a =
		    skg_fsck_ahead_start(&file, &idx, fx->e, fx->n, fx->pack_len - SKG_RAWSZ, SKG_FORMAT_SHA1,
		                         SKG_RAWSZ, 1 << 20, 8);
		assert_non_null(a);
		for (size_t j = 0; j < fx->n; j++) {
			struct skg_fsck_ahead_obj o = {false, 0, NULL, 0, -1};
			assert_true(skg_fsck_ahead_take(a, j, NULL, &o));
			if (j == k) {
				assert_false(o.whole);
				assert_int_equal(o.crc, 1);
			}
			free(o.data);
		}
		skg_fsck_ahead_stop(a);
	}
	free(copy);
}

/* Stopped before all is taken: what was read and not taken is freed (the sanitizers' run). */
static void test_stop_early(void **state)
{
	const struct fixture *fx = *state;
	const struct skg_file file = {.data = fx->pack, .len = fx->pack_len};
	const struct skg_file idx = {.data = fx->idx, .len = fx->idx_len};
	struct skg_fsck_ahead *a = skg_fsck_ahead_start(&file, &idx, fx->e, fx->n, fx->pack_len - SKG_RAWSZ,
	                                                SKG_FORMAT_SHA1, SKG_RAWSZ, 1 << 20, 8);
	assert_non_null(a);
	struct skg_fsck_ahead_obj o = {false, 0, NULL, 0, -1};
	(void)skg_fsck_ahead_take(a, 0, NULL, &o);
	free(o.data);
	usleep(20000);
	skg_fsck_ahead_stop(a);
	/* one thread: nothing runs ahead */
	assert_null(skg_fsck_ahead_start(&file, &idx, fx->e, fx->n, fx->pack_len - SKG_RAWSZ, SKG_FORMAT_SHA1,
	                                 SKG_RAWSZ, 1 << 20, 1));
	o = (struct skg_fsck_ahead_obj){false, 0, NULL, 0, -1};
	assert_false(skg_fsck_ahead_take(NULL, 0, NULL, &o));
	assert_null(o.data);
	skg_fsck_ahead_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sound),
	    cmocka_unit_test(test_damaged),
	    cmocka_unit_test(test_stop_early),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
