/*
 * test_api.c - unit tests of the Git layer's public API (<sha1kit/git.h>, <sha1kit/git_pack.h>,
 * <sha1kit/git_object.h>): a pack built here with zlib (one blob, one tree, one commit), indexed
 * from memory and through the streaming indexer in pieces of every size from 1 byte; every
 * truncation and a flipped byte at every offset fail with an error and leave nothing behind; the
 * idx written is verified and a changed idx is not; the pack and idx as files (struct skg_file:
 * mapped with the hook told, read, the idx compared with the first difference found, refused when
 * not a regular file); object IDs against values git gives (`git hash-object`) and the format
 * checks; the small functions of git.h. Failures of the machine (faults.h): every allocation and
 * every thread start of indexing (on 1 and 2 threads, a pack with both kinds of delta), of the idx
 * writer and verifier and of the streaming indexer fails in turn: each run either gives the same
 * idx or fails with SKG_E_NOMEM / SKG_E_THREAD, and leaves no file behind. The reverse index
 * (.rev): header, size, trailer, and every position checked against the idx (it must name the
 * entry with that object's ID and offset), for packs with deltas and with an object twice;
 * compared with a changed, shortened or lengthened copy; written by the streaming indexer by
 * default (git 2.41+), not with rev_index off; the config's pack.writeReverseIndex.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include <sha1kit.h>
#include <sha1kit/git_object.h>
#include <sha1kit/git_pack.h>
#include <sha1kit/git_refs.h>

#include "faults.h"

/* ---- A pack made here (gitformat-pack.txt) ---------------------------------------------------- */

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void put_entry(struct buf *b, unsigned type, const void *data, size_t len)
{
	uint8_t h[16];
	size_t k = 0, size = len;
	h[k] = (uint8_t)(type << 4 | (size & 15));
	size >>= 4;
	while (size != 0) {
		h[k++] |= 0x80;
		h[k] = size & 0x7f;
		size >>= 7;
	}
	put(b, h, k + 1);
	uLongf zlen = compressBound((uLong)len);
	uint8_t *z = malloc(zlen);
	assert_non_null(z);
	assert_int_equal(compress(z, &zlen, data, (uLong)len), Z_OK);
	put(b, z, zlen);
	free(z);
}

static const char blob[] = "hello\n"; /* ce013625030ba8dba906f756967f9e9ca394464a */

/* A pack of the blob, a tree naming it as "f", and a commit of that tree. */
static struct buf make_pack(void)
{
	struct buf b = {0};
	uint8_t hdr[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 3};
	put(&b, hdr, sizeof(hdr));
	put_entry(&b, SKG_BLOB, blob, 6);
	uint8_t tree[7 + 2 + SKG_RAWSZ] = "100644 f";
	assert_true(skg_from_hex("ce013625030ba8dba906f756967f9e9ca394464a", tree + 9));
	put_entry(&b, SKG_TREE, tree, sizeof(tree));
	char commit[256];
	uint8_t tree_id[SKG_RAWSZ];
	struct skg_error err;
	assert_int_equal(skg_hash_object("tree", tree, sizeof(tree), NULL, tree_id, &err), 0);
	char hex[SKG_HEXSZ + 1];
	skg_to_hex(tree_id, hex);
	int n = snprintf(commit, sizeof(commit),
	                 "tree %s\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nm\n", hex);
	put_entry(&b, SKG_COMMIT, commit, (size_t)n);
	uint8_t sum[SKG_RAWSZ];
	sha1kit_fast(b.p, b.n, sum);
	put(&b, sum, sizeof(sum));
	return b;
}

static int collect(void *ctx, const uint8_t *p, size_t n)
{
	put(ctx, p, n);
	return 0;
}

/* ---- Tests ---------------------------------------------------------------------------------- */

static void test_index_memory(void **state)
{
	(void)state;
	struct buf pk = make_pack();
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	struct skg_pack *pack;
	struct skg_error err;
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), 0);
	assert_int_equal(skg_pack_count(pack), 3);
	assert_memory_equal(skg_pack_checksum(pack), pk.p + pk.n - SKG_RAWSZ, SKG_RAWSZ);
	struct skg_pack_object o;
	assert_true(skg_pack_object(pack, 0, &o));
	char hex[SKG_HEXSZ + 1];
	skg_to_hex(o.id, hex);
	assert_string_equal(hex, "ce013625030ba8dba906f756967f9e9ca394464a");
	assert_int_equal(o.type, SKG_BLOB);
	assert_int_equal(o.offset, 12);
	assert_false(skg_pack_object(pack, 3, &o));

	/* The idx: 1072 + 3 * 28 + 40 bytes (v2), and it verifies; one changed byte does not. */
	struct buf idx = {0};
	assert_int_equal(skg_pack_write_idx(pack, &opt, collect, &idx, &err), 0);
	assert_int_equal(idx.n, 8 + 1024 + 3 * (20 + 4 + 4) + 40);
	assert_int_equal(skg_pack_verify_idx(pack, idx.p, idx.n, false, &err), 0);
	for (size_t i = 0; i < idx.n; i += 7) {
		idx.p[i] ^= 1;
		assert_int_equal(skg_pack_verify_idx(pack, idx.p, idx.n, false, &err), -1);
		assert_int_equal(err.code, SKG_E_CORRUPT);
		idx.p[i] ^= 1;
	}
	assert_int_equal(skg_pack_verify_idx(pack, idx.p, idx.n - 1, false, &err), -1);

	skg_pack_free(pack);
	/* Threads 0 is one per CPU (git's pack.threads=0); idx version 3 is an error of use. */
	opt.threads = 0;
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), 0);
	skg_pack_free(pack);
	opt.threads = 1;
	opt.idx_version = 3;
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);
	free(idx.p);
	free(pk.p);
}

static void test_index_truncated_and_flipped(void **state)
{
	(void)state;
	struct buf pk = make_pack();
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	struct skg_error err;
	for (size_t len = 0; len < pk.n; len++) {
		struct skg_pack *pack = (struct skg_pack *)&pack;
		assert_int_equal(skg_pack_index(&pack, pk.p, len, &opt, &err), -1);
		assert_null(pack);
		assert_int_equal(err.code, SKG_E_CORRUPT);
		assert_true(err.msg[0] != '\0');
	}
	for (size_t i = 0; i < pk.n; i++) {
		struct skg_pack *pack;
		pk.p[i] ^= 0x20;
		assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), -1);
		assert_int_equal(err.code, SKG_E_CORRUPT);
		pk.p[i] ^= 0x20;
	}
	free(pk.p);
}

/* The names in dir, sorted, joined by ' '. */
static void list_dir(const char *dir, char *out, size_t n)
{
	struct dirent **names;
	int k = scandir(dir, &names, NULL, alphasort);
	assert_true(k >= 0);
	out[0] = '\0';
	for (int i = 0; i < k; i++) {
		if (names[i]->d_name[0] != '.') {
			strncat(out, names[i]->d_name, n - strlen(out) - 2);
			strcat(out, " ");
		}
		free(names[i]);
	}
	free(names);
}

/* dir holds the files `want` lists and the indexer's temporary pack, nothing more */
static void assert_dir_and_temp(const char *dir, const char *want, const struct skg_indexer *ix)
{
	char names[1024], with_tmp[1024];
	const char *tp = strrchr(skg_indexer_temp_path(ix), '/');
	snprintf(with_tmp, sizeof(with_tmp), "%s%s ", want, tp != NULL ? tp + 1 : "?");
	list_dir(dir, names, sizeof(names));
	assert_string_equal(names, with_tmp);
}

/* A read callback that always fails (skg_index_options.read). */
static int fail_read(void *ctx, uint64_t offset, uint8_t *buf, size_t n)
{
	(void)ctx;
	(void)offset;
	(void)buf;
	(void)n;
	return -1;
}

static void test_indexer(void **state)
{
	(void)state;
	struct buf pk = make_pack();
	char dir[] = "/tmp/sk-test-api-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	struct skg_error err;
	char names[512], hex[SKG_HEXSZ + 1], want[512];
	skg_to_hex(pk.p + pk.n - SKG_RAWSZ, hex);
	snprintf(want, sizeof(want), "pack-%s.idx pack-%s.pack pack-%s.rev ", hex, hex, hex);
	/* In pieces of every size: the same pack, idx and .rev (on by default, as git 2.41+). */
	for (size_t piece = 1; piece <= pk.n; piece += piece < 8 ? 1 : 37) {
		struct skg_indexer *ix;
		assert_int_equal(skg_indexer_new(&ix, dir, &opt, &err), 0);
		for (size_t at = 0; at < pk.n; at += piece) {
			size_t n = pk.n - at < piece ? pk.n - at : piece;
			assert_int_equal(skg_indexer_append(ix, pk.p + at, n, &err), 0);
		}
		uint8_t sum[SKG_RAWSZ];
		assert_int_equal(skg_indexer_commit(ix, NULL, NULL, sum, &err), 0);
		assert_memory_equal(sum, pk.p + pk.n - SKG_RAWSZ, SKG_RAWSZ);
		assert_int_equal(skg_indexer_commit(ix, NULL, NULL, sum, &err), -1);
		assert_int_equal(err.code, SKG_E_USAGE);
		skg_indexer_free(ix);
		list_dir(dir, names, sizeof(names));
		assert_string_equal(names, want);
	}
	/* What an embedder's trial found (its repros 04, 06, 10, 13, 17): the strings of opt are
	 * copied (freed before the commit, the .keep is still made of them); opt NULL is the
	 * defaults; options the index refuses are refused before a byte is received; threads 0 is
	 * one per CPU; a read callback of opt (for a buffer of the caller's) is not the indexer's. */
	{
		struct skg_indexer *ix;
		struct skg_index_options o = opt;
		o.idx_version = 3;
		assert_int_equal(skg_indexer_new(&ix, dir, &o, &err), -1);
		assert_int_equal(err.code, SKG_E_USAGE);
		assert_null(ix);
		o = opt;
		o.object_format = 9;
		assert_int_equal(skg_indexer_new(&ix, dir, &o, &err), -1);
		assert_int_equal(err.code, SKG_E_USAGE);
		list_dir(dir, names, sizeof(names));
		assert_string_equal(names, want);
		o = opt;
		o.threads = 0;
		o.read = fail_read;
		char *msg = strdup("kept by the test");
		assert_non_null(msg);
		o.keep_msg = msg;
		assert_int_equal(skg_indexer_new(&ix, dir, &o, &err), 0);
		free(msg);
		assert_int_equal(skg_indexer_append(ix, pk.p, pk.n, &err), 0);
		assert_int_equal(skg_indexer_commit(ix, NULL, NULL, NULL, &err), 0);
		skg_indexer_free(ix);
		char path[600], text[64] = {0};
		snprintf(path, sizeof(path), "%s/pack-%s.keep", dir, hex);
		FILE *kf = fopen(path, "r");
		assert_non_null(kf);
		assert_non_null(fgets(text, sizeof(text), kf));
		fclose(kf);
		assert_string_equal(text, "kept by the test\n");
		assert_int_equal(unlink(path), 0);
		assert_int_equal(skg_indexer_new(&ix, dir, NULL, &err), 0);
		assert_int_equal(skg_indexer_append(ix, pk.p, pk.n, &err), 0);
		assert_int_equal(skg_indexer_commit(ix, NULL, NULL, NULL, &err), 0);
		skg_indexer_free(ix);
		list_dir(dir, names, sizeof(names));
		assert_string_equal(names, want);
		struct skg_pack *pack;
		assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, NULL, &err), 0);
		assert_memory_equal(skg_pack_checksum(pack), pk.p + pk.n - SKG_RAWSZ, SKG_RAWSZ);
		skg_pack_free(pack);
	}
	/* With rev_index off: no .rev (the one of the runs above removed first). */
	{
		char path[600];
		snprintf(path, sizeof(path), "%s/pack-%s.rev", dir, hex);
		assert_int_equal(unlink(path), 0);
		opt.rev_index = false;
		struct skg_indexer *ix;
		assert_int_equal(skg_indexer_new(&ix, dir, &opt, &err), 0);
		assert_int_equal(skg_indexer_append(ix, pk.p, pk.n, &err), 0);
		assert_int_equal(skg_indexer_commit(ix, NULL, NULL, NULL, &err), 0);
		skg_indexer_free(ix);
		list_dir(dir, names, sizeof(names));
		snprintf(want, sizeof(want), "pack-%s.idx pack-%s.pack ", hex, hex);
		assert_string_equal(names, want);
		opt.rev_index = true;
		/* An idx name that does not end in .idx: git's fatal text, nothing written. */
		snprintf(path, sizeof(path), "%s/x.pack", dir);
		char idx_path[600];
		snprintf(idx_path, sizeof(idx_path), "%s/x.foo", dir);
		assert_int_equal(skg_indexer_new(&ix, dir, &opt, &err), 0);
		assert_int_equal(skg_indexer_append(ix, pk.p, pk.n, &err), 0);
		assert_int_equal(skg_indexer_commit(ix, path, idx_path, NULL, &err), -1);
		assert_int_equal(err.code, SKG_E_GIT);
		char msg[700];
		snprintf(msg, sizeof(msg), "packfile name '%s' does not end with '.idx'", idx_path);
		assert_string_equal(err.msg, msg);
		skg_indexer_free(ix);
		list_dir(dir, names, sizeof(names));
		assert_string_equal(names, want);
		/* A pack name without an idx name: the idx and .rev named after the pack, as git's
		 * index-pack --stdin PACK; a pack name that does not end in .pack: git's fatal text,
		 * nothing written (an embedder's trial: the idx got git's default name, the pack none
		 * a reader could use) */
		snprintf(path, sizeof(path), "%s/x.pk", dir);
		assert_int_equal(skg_indexer_new(&ix, dir, &opt, &err), 0);
		assert_int_equal(skg_indexer_append(ix, pk.p, pk.n, &err), 0);
		assert_int_equal(skg_indexer_commit(ix, path, NULL, NULL, &err), -1);
		assert_int_equal(err.code, SKG_E_GIT);
		snprintf(msg, sizeof(msg), "packfile name '%s' does not end with '.pack'", path);
		assert_string_equal(err.msg, msg);
		skg_indexer_free(ix);
		list_dir(dir, names, sizeof(names));
		assert_string_equal(names, want);
		snprintf(path, sizeof(path), "%s/incoming.pack", dir);
		assert_int_equal(skg_indexer_new(&ix, dir, &opt, &err), 0);
		assert_int_equal(skg_indexer_append(ix, pk.p, pk.n, &err), 0);
		assert_int_equal(skg_indexer_commit(ix, path, NULL, NULL, &err), 0);
		skg_indexer_free(ix);
		list_dir(dir, names, sizeof(names));
		snprintf(want, sizeof(want),
		         "incoming.idx incoming.pack incoming.rev pack-%s.idx pack-%s.pack ", hex, hex);
		assert_string_equal(names, want);
		static const char *const made[] = {"idx", "pack", "rev"};
		for (size_t m = 0; m < sizeof(made) / sizeof(made[0]); m++) {
			snprintf(path, sizeof(path), "%s/incoming.%s", dir, made[m]);
			assert_int_equal(unlink(path), 0);
		}
		snprintf(want, sizeof(want), "pack-%s.idx pack-%s.pack pack-%s.rev ", hex, hex, hex);
		assert_int_equal(skg_indexer_new(&ix, dir, &opt, &err), 0);
		assert_int_equal(skg_indexer_append(ix, pk.p, pk.n, &err), 0);
		assert_int_equal(skg_indexer_commit(ix, NULL, NULL, NULL, &err), 0);
		skg_indexer_free(ix);
	}
	/* A truncated pack, a pack with a flipped byte, and an indexer freed before its commit:
	 * an error, and nothing more in the directory. */
	for (int k = 0; k < 3; k++) {
		struct skg_indexer *ix;
		assert_int_equal(skg_indexer_new(&ix, dir, &opt, &err), 0);
		if (k == 1) {
			pk.p[20] ^= 1;
		}
		assert_int_equal(skg_indexer_append(ix, pk.p, k == 0 ? pk.n - 1 : pk.n, &err), 0);
		if (k < 2) {
			uint8_t sum[SKG_RAWSZ];
			assert_int_equal(skg_indexer_commit(ix, NULL, NULL, sum, &err), -1);
			assert_int_equal(err.code, SKG_E_CORRUPT);
			/* the failed commit leaves the received pack alone, until the free */
			assert_dir_and_temp(dir, want, ix);
		}
		if (k == 1) {
			pk.p[20] ^= 1;
		}
		skg_indexer_free(ix);
		list_dir(dir, names, sizeof(names));
		assert_string_equal(names, want);
	}
	/* A pack name in a directory that does not exist: the commit fails where it makes the idx
	 * there (its name from the pack's), with git's line for the pack; nothing is left but the
	 * received pack, until the free. */
	{
		struct skg_indexer *ixm;
		assert_int_equal(skg_indexer_new(&ixm, dir, &opt, &err), 0);
		assert_int_equal(skg_indexer_append(ixm, pk.p, pk.n, &err), 0);
		assert_int_equal(skg_indexer_commit(ixm, "/nonexistent/sha1kit/x.pack", NULL, NULL, &err),
		                 -1);
		assert_int_equal(err.code, SKG_E_GIT);
		assert_string_equal(
		    err.msg, "unable to create '/nonexistent/sha1kit/x.pack': No such file or directory");
		assert_dir_and_temp(dir, want, ixm);
		skg_indexer_free(ixm);
		list_dir(dir, names, sizeof(names));
		assert_string_equal(names, want);
	}
	/* An idx path that is a directory: the pack was renamed before the idx's rename failed; it
	 * goes back to its temporary name, there until the free. */
	{
		struct skg_indexer *ixd;
		char pack_path[600], idx_dir[600], tmp[600];
		snprintf(pack_path, sizeof(pack_path), "%s/d.pack", dir);
		snprintf(idx_dir, sizeof(idx_dir), "%s/d.idx", dir);
		assert_int_equal(mkdir(idx_dir, 0700), 0);
		assert_int_equal(skg_indexer_new(&ixd, dir, &opt, &err), 0);
		assert_int_equal(skg_indexer_append(ixd, pk.p, pk.n, &err), 0);
		snprintf(tmp, sizeof(tmp), "%s", skg_indexer_temp_path(ixd));
		assert_int_equal(skg_indexer_commit(ixd, pack_path, idx_dir, NULL, &err), -1);
		struct stat st;
		assert_int_equal(stat(tmp, &st), 0);
		assert_int_not_equal(stat(pack_path, &st), 0);
		skg_indexer_free(ixd);
		assert_int_not_equal(stat(tmp, &st), 0);
		assert_int_equal(rmdir(idx_dir), 0);
	}
	/* A directory that does not exist: an I/O error with its errno. */
	struct skg_indexer *ix;
	assert_int_equal(skg_indexer_new(&ix, "/nonexistent/sha1kit", &opt, &err), -1);
	assert_int_equal(err.code, SKG_E_IO);
	assert_int_not_equal(err.sys_errno, 0);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(pk.p);
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* What the mapping hook was told: mappings made minus mappings ended, the last size. */
struct hook_log {
	int live, calls;
	uint64_t len;
};

static void on_map(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped)
{
	struct hook_log *h = ctx;
	assert_non_null(addr);
	assert_non_null(path);
	h->live += mapped ? 1 : -1;
	h->calls++;
	h->len = len;
}

/* skg_pack_compare_idx under injected failures: equal, or SKG_E_NOMEM. */
struct compare_run {
	const struct skg_pack *pack;
	const struct skg_index_options *opt;
	struct skg_file *idx;
	struct skg_error err;
};

static int op_compare(void *ctx)
{
	struct compare_run *r = ctx;
	uint64_t first_diff;
	return skg_pack_compare_idx(r->pack, r->opt, r->idx, &first_diff, &r->err);
}

static void check_compare(void *ctx, int rc, bool injected)
{
	struct compare_run *r = ctx;
	if (rc != 0) {
		assert_true(injected);
		assert_int_equal(rc, -1);
		assert_int_equal(r->err.code, SKG_E_NOMEM);
	}
}

static void test_files(void **state)
{
	(void)state;
	struct buf pk = make_pack();
	char dir[] = "/tmp/sk-test-api-XXXXXX", pack_path[64], idx_path[64], v1_path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(pack_path, sizeof(pack_path), "%s/p.pack", dir);
	snprintf(idx_path, sizeof(idx_path), "%s/p.idx", dir);
	snprintf(v1_path, sizeof(v1_path), "%s/v1.idx", dir);
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	struct skg_error err;
	struct skg_pack *pack;
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), 0);
	struct buf idx = {0}, v1 = {0};
	assert_int_equal(skg_pack_write_idx(pack, &opt, collect, &idx, &err), 0);
	opt.idx_version = 1;
	assert_int_equal(skg_pack_write_idx(pack, &opt, collect, &v1, &err), 0);
	assert_int_equal(v1.n, 1024 + 3 * (4 + 20) + 40);
	opt.idx_version = 2;
	skg_pack_free(pack);
	write_file(pack_path, pk.p, pk.n);
	write_file(idx_path, idx.p, idx.n);
	write_file(v1_path, v1.p, v1.n);

	/* Mapped, with the hook told of it; indexed through the file's read and release. */
	struct hook_log log = {0, 0, 0};
	struct skg_file file = {0}, fidx = {0};
	assert_int_equal(skg_file_map(&file, pack_path, on_map, &log, &err), 0);
	assert_int_equal(log.live, 1);
	assert_int_equal(log.len, pk.n);
	assert_int_equal(file.len, pk.n);
	assert_memory_equal(file.data, pk.p, pk.n);
	uint8_t b[4];
	assert_int_equal(skg_file_read(&file, 0, b, 4), 0);
	assert_memory_equal(b, "PACK", 4);
	assert_int_equal(skg_file_read(&file, pk.n - 2, b, 4), -1);
	opt.read = skg_file_read;
	opt.read_ctx = &file;
	opt.release = skg_file_release;
	opt.release_ctx = &file;
	assert_int_equal(skg_pack_index(&pack, file.data, file.len, &opt, &err), 0);
	assert_int_equal(skg_pack_count(pack), 3);

	/* The idx compares equal, in either version with the layout found in it. */
	uint64_t first_diff = 99;
	assert_int_equal(skg_file_map(&fidx, idx_path, on_map, &log, &err), 0);
	assert_int_equal(log.live, 2);
	skg_idx_layout(fidx.data, fidx.len, &opt);
	assert_int_equal(opt.idx_version, 2);
	assert_int_equal(opt.off32_limit, 0x7fffffff);
	assert_int_equal(skg_pack_compare_idx(pack, &opt, &fidx, &first_diff, &err), 0);
	assert_int_equal(first_diff, 0);
	struct compare_run r = {pack, &opt, &fidx, {0}};
	assert_true(fault_each(FAULT_ALLOC, op_compare, check_compare, &r) >= 1);
	skg_file_unmap(&fidx);
	assert_int_equal(skg_file_map(&fidx, v1_path, NULL, NULL, &err), 0);
	skg_idx_layout(fidx.data, fidx.len, &opt);
	assert_int_equal(opt.idx_version, 1);
	assert_int_equal(skg_pack_compare_idx(pack, &opt, &fidx, &first_diff, &err), 0);
	/* A v1 idx against the v2 one: they differ from byte 0 (v2's magic). */
	opt.idx_version = 2;
	assert_int_equal(skg_pack_compare_idx(pack, &opt, &fidx, &first_diff, &err), 1);
	assert_int_equal(first_diff, 0);
	skg_file_unmap(&fidx);
	/* One changed byte: its offset; a truncated idx: its length. */
	idx.p[1100] ^= 1;
	write_file(idx_path, idx.p, idx.n);
	assert_int_equal(skg_file_map(&fidx, idx_path, NULL, NULL, &err), 0);
	assert_int_equal(skg_pack_compare_idx(pack, &opt, &fidx, &first_diff, &err), 1);
	assert_int_equal(first_diff, 1100);
	skg_file_unmap(&fidx);
	idx.p[1100] ^= 1;
	write_file(idx_path, idx.p, idx.n - 5);
	assert_int_equal(skg_file_map(&fidx, idx_path, NULL, NULL, &err), 0);
	assert_int_equal(skg_pack_compare_idx(pack, &opt, &fidx, &first_diff, &err), 1);
	assert_int_equal(first_diff, idx.n - 5);
	assert_false(skg_file_shrank(&fidx));
	assert_false(skg_file_grew(&fidx));
	/* A file made longer while mapped says so (index-pack: git's "pack has junk at the end") */
	assert_int_equal(truncate(idx_path, (off_t)idx.n), 0);
	assert_true(skg_file_grew(&fidx));
	assert_false(skg_file_shrank(&fidx));
	/* A file shortened while mapped says so (nothing past its new end is read here). */
	assert_int_equal(truncate(idx_path, 100), 0);
	assert_true(skg_file_shrank(&fidx));
	assert_false(skg_file_grew(&fidx));
	skg_file_unmap(&fidx);
	assert_false(skg_file_shrank(&fidx));
	assert_false(skg_file_grew(&fidx));
	skg_pack_free(pack);
	skg_file_unmap(&file);
	assert_int_equal(log.live, 0);
	assert_int_equal(log.calls, 4);

	/* An empty file maps (nothing to guard); what cannot be mapped fails with its step and code. */
	write_file(idx_path, idx.p, 0);
	assert_int_equal(skg_file_map(&fidx, idx_path, on_map, &log, &err), 0);
	assert_int_equal(fidx.len, 0);
	assert_non_null(fidx.data);
	assert_int_equal(log.calls, 4);
	skg_file_unmap(&fidx);
	assert_int_equal(skg_file_map(&fidx, dir, NULL, NULL, &err), -1);
	assert_int_equal(fidx.failed, SKG_FILE_OPEN);
	assert_int_equal(err.code, SKG_E_IO);
	assert_int_equal(err.sys_errno, EISDIR);
	snprintf(v1_path, sizeof(v1_path), "%s/none", dir);
	assert_int_equal(skg_file_map(&fidx, v1_path, NULL, NULL, &err), -1);
	assert_int_equal(fidx.failed, SKG_FILE_OPEN);
	assert_int_equal(err.sys_errno, ENOENT);
	assert_int_equal(mkfifo(v1_path, 0600), 0);
	assert_int_equal(skg_file_map(&fidx, v1_path, NULL, NULL, &err), -1);
	assert_int_equal(fidx.failed, SKG_FILE_NOT_REGULAR);
	assert_int_equal(err.code, SKG_E_USAGE);
	if (access("/proc/self/status", R_OK) == 0) {
		assert_int_equal(skg_file_map(&fidx, "/proc/self/status", NULL, NULL, &err), -1);
		assert_int_equal(fidx.failed, SKG_FILE_SIZE_UNKNOWN);
		assert_int_equal(err.code, SKG_E_USAGE);
	}
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(idx.p);
	free(v1.p);
	free(pk.p);
}

static void test_hash_object(void **state)
{
	(void)state;
	uint8_t oid[SKG_RAWSZ];
	char hex[SKG_HEXSZ + 1];
	struct skg_error err;
	assert_int_equal(skg_hash_object("blob", "", 0, NULL, oid, &err), 0);
	skg_to_hex(oid, hex);
	assert_string_equal(hex, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"); /* git hash-object /dev/null */
	assert_int_equal(skg_hash_object("tree", "", 0, NULL, oid, &err), 0);
	skg_to_hex(oid, hex);
	assert_string_equal(hex, "4b825dc642cb6eb9a060e54bf8d69288fbee4904"); /* the empty tree */
	/* In pieces: the same ID. */
	struct skg_object_hasher h;
	skg_object_hash_begin(&h, "blob", 6);
	skg_object_hash_update(&h, "hel", 3);
	struct skg_object_hasher copy = h; /* contexts are copyable */
	skg_object_hash_update(&copy, "lo\n", 3);
	assert_int_equal(skg_object_hash_final(&copy, oid, &err), 0);
	skg_to_hex(oid, hex);
	assert_string_equal(hex, "ce013625030ba8dba906f756967f9e9ca394464a");
	/* SHA-256 object IDs: git's empty blob and empty tree in a SHA-256 repository (git's hash.h,
	 * EMPTY_BLOB_SHA256 / EMPTY_TREE_SHA256), and "hello\n" in pieces (git hash-object there) */
	uint8_t oid256[SKG_MAX_RAWSZ];
	char hex256[SKG_MAX_HEXSZ + 1];
	assert_int_equal(skg_format_rawsz(SKG_FORMAT_SHA256), 32);
	assert_int_equal(skg_format_rawsz(SKG_FORMAT_SHA1), 20);
	skg_object_hash_begin_as(&h, SKG_FORMAT_SHA256, "blob", 0);
	assert_int_equal(skg_object_hash_final_as(&h, oid256, &err), 0);
	skg_to_hex_len(oid256, 32, hex256);
	assert_string_equal(hex256, "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813");
	skg_object_hash_begin_as(&h, SKG_FORMAT_SHA256, "tree", 0);
	assert_int_equal(skg_object_hash_final_as(&h, oid256, &err), 0);
	skg_to_hex_len(oid256, 32, hex256);
	assert_string_equal(hex256, "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321");
	skg_object_hash_begin_as(&h, SKG_FORMAT_SHA256, "blob", 6);
	skg_object_hash_update(&h, "hel", 3);
	copy = h;
	skg_object_hash_update(&copy, "lo\n", 3);
	assert_int_equal(skg_object_hash_final_as(&copy, oid256, &err), 0);
	skg_to_hex_len(oid256, 32, hex256);
	assert_string_equal(hex256, "2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb4");
	/* a SHA-256 ID does not fit the SHA-1 call */
	skg_object_hash_begin_as(&h, SKG_FORMAT_SHA256, "blob", 0);
	assert_int_equal(skg_object_hash_final(&h, oid, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);
	/* errors of use (an embedder's trial, its repro 07): content shorter or longer than the
	 * header says (the ID of no object), a second final, an unknown format */
	skg_object_hash_begin(&h, "blob", 5);
	skg_object_hash_update(&h, "h", 1);
	assert_int_equal(skg_object_hash_final(&h, oid, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);
	assert_string_equal(err.msg, "1 bytes of content where the header says 5");
	skg_object_hash_begin(&h, "blob", 1);
	skg_object_hash_update(&h, "hi", 2);
	assert_int_equal(skg_object_hash_final_as(&h, oid256, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);
	skg_object_hash_begin(&h, "blob", 0);
	assert_int_equal(skg_object_hash_final(&h, oid, &err), 0);
	assert_int_equal(skg_object_hash_final(&h, oid, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);
	skg_object_hash_begin_as(&h, 7, "blob", 0);
	assert_int_equal(skg_object_hash_final_as(&h, oid256, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);
	/* SKG_FORMAT_SHA1 through the _as calls: the SHA-1 ID */
	skg_object_hash_begin_as(&h, SKG_FORMAT_SHA1, "blob", 0);
	assert_int_equal(skg_object_hash_final_as(&h, oid256, &err), 0);
	skg_to_hex_len(oid256, 20, hex256);
	assert_string_equal(hex256, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	/* git's checks (fsck, as git >= 2.40): a bad type, a corrupt tree, commit and tag;
	 * --literally takes them. */
	assert_int_equal(skg_hash_object("blub", "x", 1, NULL, oid, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);
	struct skg_hash_options badfmt;
	skg_hash_options_default(&badfmt);
	badfmt.object_format = 7; /* no such format: refused, as skg_pack_index refuses it */
	assert_int_equal(skg_hash_object("blob", "x", 1, &badfmt, oid, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);
	assert_int_equal(skg_hash_object(NULL, "x", 1, NULL, oid, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);
	assert_int_equal(skg_hash_object("blob", NULL, 1, NULL, oid, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);
	assert_int_equal(skg_hash_object("blob", NULL, 0, NULL, oid, &err), 0); /* the empty blob */
	assert_int_equal(skg_hash_object("tree", "100644 f", 8, NULL, oid, &err), -1);
	assert_int_equal(err.code, SKG_E_GIT);
	assert_string_equal(err.msg, "refusing to create malformed object");
	assert_int_equal(skg_hash_object("commit", "tree x\n", 7, NULL, oid, &err), -1);
	assert_int_equal(skg_hash_object("tag", "object", 6, NULL, oid, &err), -1);
	struct skg_hash_options lit;
	skg_hash_options_default(&lit);
	lit.literally = true;
	assert_int_equal(skg_hash_object("blub", "x", 1, &lit, oid, &err), 0);
	assert_int_equal(skg_object_check(SKG_NONE, (const uint8_t *)"", 0, NULL, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);
	assert_int_equal(skg_object_check(SKG_BLOB, (const uint8_t *)"", 0, NULL, &err), 0);
	/* object_format SHA-256: the checks read 64-digit IDs and 32-byte tree entries, the ID is
	 * SHA-256 (git hash-object -t tree / -t commit in a SHA-256 repository: the tree "100644 a"
	 * naming "hello\n" and a commit of it) */
	struct skg_hash_options o256;
	skg_hash_options_default(&o256);
	o256.object_format = SKG_FORMAT_SHA256;
	uint8_t tree256[9 + 32] = "100644 a";
	assert_true(skg_from_hex_len("2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb4", 32,
	                             tree256 + 9)); /* "hello\n"'s SHA-256 ID, from above */
	assert_false(skg_from_hex_len("2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb", 32,
	                              oid256)); /* 63 digits */
	assert_int_equal(skg_hash_object("tree", tree256, sizeof(tree256), &o256, oid256, &err), 0);
	skg_to_hex_len(oid256, 32, hex256);
	assert_string_equal(hex256, "6ebf092cf7d68fcf2cebb8713cd1ecd134ff0c527197b2f7c60d1611d4885ea5");
	/* the same tree is too short as a SHA-1 one, and a SHA-1 ID is a bad one in a SHA-256 commit */
	assert_int_equal(skg_hash_object("tree", tree256, sizeof(tree256), NULL, oid, &err), -1);
	char commit[256];
	int n = snprintf(
	    commit, sizeof(commit),
	    "tree %s\nauthor A <a@b> 1700000000 +0000\ncommitter A <a@b> 1700000000 +0000\n\nm\n", hex256);
	assert_int_equal(skg_hash_object("commit", commit, (size_t)n, &o256, oid256, &err), 0);
	skg_to_hex_len(oid256, 32, hex256);
	assert_string_equal(hex256, "edf4d6d214325c2659df92c5b78a457458aa971a95cb4051a0bfe8d003357767");
	assert_int_equal(skg_hash_object("commit", commit, (size_t)n, NULL, oid, &err), -1);
	assert_int_equal(err.code, SKG_E_GIT);
}

/* ---- Findings through the sink ------------------------------------------------------------- */

struct records {
	char text[8][256];
	char msg_id[8][64];
	enum skg_level level[8];
	char oid[8][SKG_MAX_HEXSZ + 1]; /* "" for none */
	unsigned type[8];
	unsigned n;
};

static void record(void *ctx, const struct skg_report *r)
{
	struct records *rs = ctx;
	if (rs->n < 8) {
		snprintf(rs->text[rs->n], sizeof(rs->text[0]), "%s", r->text);
		snprintf(rs->msg_id[rs->n], sizeof(rs->msg_id[0]), "%s", r->msg_id != NULL ? r->msg_id : "");
		rs->level[rs->n] = r->level;
		rs->type[rs->n] = r->type;
		rs->oid[rs->n][0] = '\0';
		if (r->oid != NULL) {
			skg_to_hex_len(r->oid, SKG_RAWSZ, rs->oid[rs->n]);
		}
	}
	rs->n++;
}

/* Default hash options whose findings go to rs. */
static void hash_options_to(struct skg_hash_options *opt, struct records *rs)
{
	skg_hash_options_default(opt);
	opt->sink.report = record;
	opt->sink.ctx = rs;
}

/* A tree whose one entry is named ".git" (hasDotgit), pointing to the blob "hello\n". */
static void dotgit_tree(uint8_t tree[7 + 5 + SKG_RAWSZ])
{
	memcpy(tree, "100644 .git", 12);
	assert_true(skg_from_hex("ce013625030ba8dba906f756967f9e9ca394464a", tree + 12));
}

/* git >= 2.40 hash-object (object-file.c hash_format_check_report): every finding, a warning too,
 * is "object fails fsck: msgId: text", and the object is refused. */
static void test_hash_object_fsck(void **state)
{
	(void)state;
	uint8_t tree[7 + 5 + SKG_RAWSZ], oid[SKG_RAWSZ];
	dotgit_tree(tree);
	struct records rs = {0};
	struct skg_hash_options opt;
	hash_options_to(&opt, &rs);
	struct skg_error err;
	assert_int_equal(skg_hash_object("tree", tree, sizeof(tree), &opt, oid, &err), -1);
	assert_int_equal(err.code, SKG_E_GIT);
	assert_string_equal(err.msg, "refusing to create malformed object");
	assert_int_equal(rs.n, 1);
	assert_int_equal(rs.level[0], SKG_LEVEL_ERROR);
	assert_string_equal(rs.msg_id[0], "hasDotgit");
	assert_string_equal(rs.text[0], "object fails fsck: hasDotgit: contains '.git'");
	/* the record names the object refused: its ID as --literally gives it */
	struct skg_hash_options lit;
	skg_hash_options_default(&lit);
	lit.literally = true;
	char hex[SKG_MAX_HEXSZ + 1];
	assert_int_equal(skg_hash_object("tree", tree, sizeof(tree), &lit, oid, &err), 0);
	skg_to_hex(oid, hex);
	assert_string_equal(rs.oid[0], hex);
	assert_int_equal(rs.type[0], SKG_TREE);
	/* mode 100664: badFilemode is only info-level in fsck, but it fails hash-object */
	memcpy(tree, "100664 a\0\0\0", 12);
	rs.n = 0;
	assert_int_equal(skg_hash_object("tree", tree, sizeof(tree) - 3, &opt, oid, &err), -1);
	assert_int_equal(rs.n, 1);
	assert_string_equal(rs.text[0], "object fails fsck: badFilemode: contains bad file modes");
}

/* skg_object_check of tree[0..n) with the findings to a sink: their number, and the first one's
 * message ID in msg_id ("" for none); the call fails exactly when there is a finding. */
static unsigned tree_findings(const uint8_t *tree, size_t n, char msg_id[64])
{
	struct records rs = {0};
	struct skg_hash_options opt;
	hash_options_to(&opt, &rs);
	struct skg_error err;
	int ret = skg_object_check(SKG_TREE, tree, n, &opt, &err);
	assert_int_equal(ret, rs.n > 0 ? -1 : 0);
	snprintf(msg_id, 64, "%s", rs.n > 0 ? rs.msg_id[0] : "");
	return rs.n;
}

/* The findings of one tree entry named name[0..len) whose ID is all 0x2f ('/') and 0x5c ('\\')
 * bytes. */
static unsigned name_findings(const char *name, size_t len, char msg_id[64])
{
	uint8_t tree[7 + 64 + 1 + SKG_RAWSZ];
	memcpy(tree, "100644 ", 7);
	memcpy(tree + 7, name, len);
	tree[7 + len] = 0;
	for (size_t k = 0; k < SKG_RAWSZ; k++)
		tree[8 + len + k] = k % 2 ? 0x5c : 0x2f;
	return tree_findings(tree, 8 + len + SKG_RAWSZ, msg_id);
}

/* The tree check looks for '/' and '\\' in a name eight bytes at a time: every name length from 1
 * to 24 (three words, and every way of ending in one) with each separator at each place, and bytes
 * of the ID that follow the name (read with its last word) never count. */
static void test_tree_name_separators(void **state)
{
	(void)state;
	char name[24], msg_id[64];
	for (size_t len = 1; len <= sizeof(name); len++) {
		memset(name, 'a', len);
		assert_int_equal(name_findings(name, len, msg_id), 0);
		for (size_t p = 0; p < len; p++) {
			name[p] = '/';
			assert_int_equal(name_findings(name, len, msg_id), 1);
			assert_string_equal(msg_id, "fullPathname");
			name[p] = '\\'; /* a backslash alone is a name like any other (NTFS: see below) */
			assert_int_equal(name_findings(name, len, msg_id), 0);
			name[p] = 'a';
		}
		if (len >= 5) { /* "\\.git" at the end: ".git" as NTFS's next path component */
			memcpy(name + len - 5, "\\.git", 5);
			assert_int_equal(name_findings(name, len, msg_id), 1);
			assert_string_equal(msg_id, "hasDotgit");
		}
	}
}

/* The findings of a tree of two entries (mode "100644" or "40000", then the name), each with an
 * ID of 0xff bytes. */
static unsigned pair_findings(const char *mode1, const char *name1, const char *mode2, const char *name2,
                              char msg_id[64])
{
	uint8_t tree[2 * (8 + 64 + 1 + SKG_RAWSZ)];
	size_t n = 0;
	const char *modes[2] = {mode1, mode2}, *names[2] = {name1, name2};
	for (int k = 0; k < 2; k++) {
		n += (size_t)sprintf((char *)tree + n, "%s %s", modes[k], names[k]) + 1;
		memset(tree + n, 0xff, SKG_RAWSZ);
		n += SKG_RAWSZ;
	}
	return tree_findings(tree, n, msg_id);
}

/* The order of two names, compared eight bytes at a time: a difference at each place of names of
 * 1 to 24 bytes, a directory against a file that goes on with a byte below '/' (the implied '/'),
 * and a name twice. */
static void test_tree_name_order(void **state)
{
	(void)state;
	char a[48], b[48], id[64];
	for (size_t len = 1; len <= 24; len++) {
		for (size_t k = 0; k < len; k++)
			a[k] = (char)('a' + k % 26);
		a[len] = 0;
		for (size_t p = 0; p < len; p++) {
			memcpy(b, a, len + 1);
			b[p]++;
			assert_int_equal(pair_findings("100644", a, "100644", b, id), 0);
			assert_int_equal(pair_findings("100644", b, "100644", a, id), 1);
			assert_string_equal(id, "treeNotSorted");
		}
		memcpy(b, a, len);
		b[len] = '-'; /* "a/" sorts after "a-" */
		b[len + 1] = 0;
		assert_int_equal(pair_findings("100644", b, "40000", a, id), 0);
		assert_int_equal(pair_findings("40000", a, "100644", b, id), 1);
		assert_string_equal(id, "treeNotSorted");
		assert_int_equal(pair_findings("100644", a, "100644", b, id), 0);
		assert_int_equal(pair_findings("100644", a, "100644", a, id), 1);
		assert_string_equal(id, "duplicateEntries");
	}
}

/* A pack of the blob and the ".git" tree. */
static struct buf make_dotgit_pack(void)
{
	struct buf b = {0};
	uint8_t hdr[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 2};
	put(&b, hdr, sizeof(hdr));
	put_entry(&b, SKG_BLOB, blob, 6);
	uint8_t tree[7 + 5 + SKG_RAWSZ];
	dotgit_tree(tree);
	put_entry(&b, SKG_TREE, tree, sizeof(tree));
	uint8_t sum[SKG_RAWSZ];
	sha1kit_fast(b.p, b.n, sum);
	put(&b, sum, sizeof(sum));
	return b;
}

/* index-pack --strict (git 2.39 builtin/index-pack.c, fsck.c): the finding, then git's fatal;
 * with the message set to ignore or warn, the pack passes. */
static void test_index_strict(void **state)
{
	(void)state;
	struct buf pk = make_dotgit_pack();
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	struct records rs = {0};
	opt.sink.report = record;
	opt.sink.ctx = &rs;
	struct skg_pack *pack = NULL;
	struct skg_error err;
	/* without strict: indexed, nothing said */
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), 0);
	skg_pack_free(pack);
	assert_int_equal(rs.n, 0);
	opt.strict = true;
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), -1);
	assert_null(pack);
	assert_int_equal(err.code, SKG_E_GIT);
	assert_string_equal(err.msg, "fsck error in packed object");
	assert_int_equal(rs.n, 1);
	assert_int_equal(rs.level[0], SKG_LEVEL_ERROR);
	assert_string_equal(rs.msg_id[0], "hasDotgit");
	assert_string_equal(rs.text[0],
	                    "object 9be7dbdff054f0ff91b6c716702486210be5132e: hasDotgit: contains '.git'");
	/* ignored: indexed, nothing said; warn: a warning */
	opt.strict_args = "hasDotgit=ignore";
	rs.n = 0;
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), 0);
	assert_int_equal(rs.n, 0);
	assert_int_equal(skg_pack_strict_finish(pack, false, &err), 0);
	skg_pack_free(pack);
	opt.strict_args = "hasdotgit=warn";
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), 0);
	assert_int_equal(rs.n, 1);
	assert_int_equal(rs.level[0], SKG_LEVEL_WARNING);
	skg_pack_free(pack);
	/* git's refusals of the list, before the pack is read */
	opt.strict_args = "hasDotgit";
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), -1);
	assert_int_equal(err.code, SKG_E_GIT);
	assert_string_equal(err.msg, "Missing '=': 'hasdotgit'");
	opt.strict_args = "noSuchMessage=warn";
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), -1);
	assert_string_equal(err.msg, "Unhandled message id: nosuchmessage");
	/* a link to an object neither in the pack nor in a repository */
	opt.strict_args = NULL;
	struct buf lone = {0};
	uint8_t hdr[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 1};
	put(&lone, hdr, sizeof(hdr));
	uint8_t tree[7 + 5 + SKG_RAWSZ];
	dotgit_tree(tree);
	memcpy(tree, "100644 ok\0\0\0", 12);
	put_entry(&lone, SKG_TREE, tree, sizeof(tree) - 2);
	uint8_t sum[SKG_RAWSZ];
	sha1kit_fast(lone.p, lone.n, sum);
	put(&lone, sum, sizeof(sum));
	rs.n = 0;
	assert_int_equal(skg_pack_index(&pack, lone.p, lone.n, &opt, &err), -1);
	assert_int_equal(err.code, SKG_E_GIT);
	assert_int_equal(rs.n, 0);
	assert_true(strncmp(err.msg, "did not receive expected object ", 32) == 0);
	free(lone.p);
	free(pk.p);
}

/*
 * A .gitmodules blob before its tree, outside a repository: git 2.53+ (8dc22e87f0) dies once the
 * idx is written ("cannot perform queued object checks outside of a repository"), 2.39.5 reads
 * the blob from the pack it installed and checks it (skg_index_options.git_version).
 */
static void test_index_strict_queued(void **state)
{
	(void)state;
	struct buf pk = {0};
	uint8_t hdr[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 2};
	put(&pk, hdr, sizeof(hdr));
	put_entry(&pk, SKG_BLOB, blob, 6);
	uint8_t tree[19 + SKG_RAWSZ];
	memcpy(tree, "100644 .gitmodules", 19); /* with its NUL */
	assert_true(skg_from_hex("ce013625030ba8dba906f756967f9e9ca394464a", tree + 19));
	put_entry(&pk, SKG_TREE, tree, sizeof(tree));
	uint8_t sum[SKG_RAWSZ];
	sha1kit_fast(pk.p, pk.n, sum);
	put(&pk, sum, sizeof(sum));
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	assert_int_equal(opt.git_version, SKG_GIT_2_55);
	struct records rs = {0};
	opt.sink.report = record;
	opt.sink.ctx = &rs;
	opt.strict = true;
	struct skg_pack *pack = NULL;
	struct skg_error err;
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), 0);
	assert_int_equal(skg_pack_strict_finish(pack, true, &err), -1);
	assert_int_equal(err.code, SKG_E_GIT);
	assert_string_equal(err.msg, "cannot perform queued object checks outside of a repository");
	assert_int_equal(rs.n, 0);
	skg_pack_free(pack);
	opt.git_version = SKG_GIT_2_39;
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), 0);
	assert_int_equal(skg_pack_strict_finish(pack, true, &err), 0);
	skg_pack_free(pack);
	free(pk.p);
}

/*
 * SHAttered as a blob: the "blob N\0" header moves the colliding blocks off their 64-byte places,
 * so the blob is no collision and gets git's ID (`git hash-object testdata/shattered-1.pdf`).
 * No known colliding file can be a Git object's content (tests/compat/test_hash_object.sh).
 */
static void test_hash_object_shattered(void **state)
{
	(void)state;
	const char *td = getenv("SHA1KIT_TESTDATA");
	char path[4096];
	snprintf(path, sizeof(path), "%s/shattered-1.pdf", td != NULL ? td : SHA1KIT_SOURCE_DIR "/testdata");
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	static uint8_t data[1 << 20];
	size_t n = fread(data, 1, sizeof(data), fp);
	fclose(fp);
	assert_int_equal(n, 422435);
	uint8_t oid[SKG_RAWSZ];
	char hex[SKG_HEXSZ + 1];
	struct skg_error err;
	assert_int_equal(skg_hash_object("blob", data, n, NULL, oid, &err), 0);
	skg_to_hex(oid, hex);
	assert_string_equal(hex, "ba9aaa145ccd24ef760cf31c74d8f7ca1a2e47b0");
}

/* ---- Failures of the machine (faults.h) ---------------------------------------------------- */

/* A delta's size field (gitformat-pack.txt: little-endian base-128). */
static size_t put_varint(uint8_t *p, size_t v)
{
	size_t k = 0;
	do {
		p[k] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v != 0) {
			p[k] |= 0x80;
		}
		k++;
	} while (v != 0);
	return k;
}

/* A delta that copies all of a base of base_len bytes and appends add (at most 127 bytes). */
static size_t make_delta(uint8_t *d, size_t base_len, const char *add)
{
	size_t n = put_varint(d, base_len), k = strlen(add);
	n += put_varint(d + n, base_len + k);
	d[n++] = 0x90; /* copy: offset 0, one size byte */
	d[n++] = (uint8_t)base_len;
	d[n++] = (uint8_t)k; /* insert k bytes */
	memcpy(d + n, add, k);
	return n + k;
}

/* An entry's header (type, size) and zlib data, with the OFS_DELTA distance or REF_DELTA base. */
static void put_delta_entry(struct buf *b, unsigned type, uint64_t dist, const uint8_t *base_id,
                            const uint8_t *d, size_t len)
{
	uint8_t h[8] = {(uint8_t)(type << 4 | (len & 15))};
	size_t k = 1;
	assert_true(len < 2048);
	if (len >> 4 != 0) {
		h[0] |= 0x80;
		h[k++] = (uint8_t)(len >> 4);
	}
	put(b, h, k);
	if (type == 6) { /* OFS_DELTA: the distance back to the base, one byte here */
		assert_true(dist < 128);
		uint8_t o = (uint8_t)dist;
		put(b, &o, 1);
	} else {
		put(b, base_id, SKG_RAWSZ);
	}
	uLongf zlen = compressBound((uLong)len);
	uint8_t z[4096];
	assert_true(zlen <= sizeof(z));
	assert_int_equal(compress(z, &zlen, d, (uLong)len), Z_OK);
	put(b, z, zlen);
}

/* Two blobs, an OFS_DELTA on the first and a REF_DELTA on the second: two delta roots, so that
 * indexing on 2 threads starts one. */
static struct buf make_delta_pack(void)
{
	struct buf b = {0};
	uint8_t hdr[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 4}, d[256], id[SKG_RAWSZ];
	struct skg_error err;
	put(&b, hdr, sizeof(hdr));
	size_t first = b.n;
	put_entry(&b, SKG_BLOB, blob, 6);
	size_t here = b.n;
	put_delta_entry(&b, 6, here - first, NULL, d, make_delta(d, 6, "world\n"));
	static const char second[] = "second blob\n";
	put_entry(&b, SKG_BLOB, second, strlen(second));
	assert_int_equal(skg_hash_object("blob", second, strlen(second), NULL, id, &err), 0);
	put_delta_entry(&b, 7, 0, id, d, make_delta(d, strlen(second), "more\n"));
	uint8_t sum[SKG_RAWSZ];
	sha1kit_fast(b.p, b.n, sum);
	put(&b, sum, sizeof(sum));
	return b;
}

/* A buffer that needs no allocation while a fault is armed (the test's own calls are wrapped). */
static struct buf roomy(void)
{
	struct buf b = {malloc(1 << 16), 0, 1 << 16};
	assert_non_null(b.p);
	return b;
}

struct index_run {
	struct buf pk, want; /* the pack, and its idx from a run without faults */
	struct buf idx;      /* the idx of a run, its room made before the faults are armed */
	unsigned threads;
	const struct skg_repo *repo; /* indexed inside it (its copies compared), or NULL */
	enum skg_errc expect;        /* the error a failure must give */
	struct skg_error err;
};

/* Index, write the idx and verify it: with a failure injected, the same idx or an error. */
static int op_index(void *ctx)
{
	struct index_run *r = ctx;
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	opt.threads = r->threads;
	opt.repo = r->repo;
	struct skg_pack *pack = (struct skg_pack *)&pack;
	if (skg_pack_index(&pack, r->pk.p, r->pk.n, &opt, &r->err) != 0) {
		assert_null(pack);
		return -1;
	}
	assert_int_equal(skg_pack_count(pack), 4);
	assert_int_equal(skg_pack_max_depth(pack), 1);
	r->idx.n = 0;
	int rc = skg_pack_write_idx(pack, &opt, collect, &r->idx, &r->err);
	if (rc == 0) {
		assert_int_equal(r->idx.n, r->want.n);
		assert_memory_equal(r->idx.p, r->want.p, r->idx.n);
		rc = skg_pack_verify_idx(pack, r->idx.p, r->idx.n, true, &r->err);
	}
	skg_pack_free(pack);
	return rc;
}

static void check_index(void *ctx, int rc, bool injected)
{
	struct index_run *r = ctx;
	if (rc != 0) {
		assert_true(injected); /* without a fault, the pack indexes */
		if (r->err.code != r->expect) {
			print_error("%s (%s)\n", r->err.msg, skg_errc_name(r->err.code));
		}
		assert_int_equal(r->err.code, r->expect);
		assert_true(r->err.msg[0] != '\0');
	}
}

static void test_index_faults(void **state)
{
	(void)state;
	struct index_run r = {
	    .pk = make_delta_pack(), .want = roomy(), .idx = roomy(), .threads = 1, .expect = SKG_E_NOMEM};
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	struct skg_pack *pack;
	assert_int_equal(skg_pack_index(&pack, r.pk.p, r.pk.n, &opt, &r.err), 0);
	assert_int_equal(skg_pack_write_idx(pack, &opt, collect, &r.want, &r.err), 0);
	struct skg_pack_object o;
	assert_true(skg_pack_object(pack, 1, &o));
	char hex[SKG_HEXSZ + 1];
	skg_to_hex(o.id, hex);
	assert_string_equal(hex, "94954abda49de8615a048f8d2e64b5de848e27a1"); /* printf 'hello\nworld\n' */
	skg_pack_free(pack);
	for (r.threads = 1; r.threads <= 2; r.threads++) {
		long n = fault_each(FAULT_ALLOC, op_index, check_index, &r);
		print_message("indexing on %u thread(s): %ld allocations, each failed in turn\n", r.threads,
		              n);
		assert_true(n > 10);
	}
	r.threads = 2;
	r.expect = SKG_E_THREAD;
	assert_int_equal(fault_each(FAULT_THREAD, op_index, check_index, &r), 1); /* one thread to start */
	free(r.pk.p);
	free(r.want.p);
	free(r.idx.p);
}

/* A loose object file in the object directory `objects` with `data` as its content (of the object
 * whose ID is `id`, which need not be the ID of that content); mode "garbage": not a zlib stream. */
static void write_loose(const char *objects, const uint8_t id[SKG_RAWSZ], const char *type, const char *data,
                        bool garbage)
{
	char hex[SKG_HEXSZ + 1], path[512];
	skg_to_hex(id, hex);
	snprintf(path, sizeof(path), "%s/%.2s", objects, hex);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%.2s/%s", objects, hex, hex + 2);
	uint8_t raw[256], z[512];
	int n = snprintf((char *)raw, sizeof(raw), "%s %zu", type, strlen(data));
	memcpy(raw + n + 1, data, strlen(data));
	uLongf zlen = sizeof(z);
	assert_int_equal(compress(z, &zlen, raw, (uLong)(n + 1 + strlen(data))), Z_OK);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	if (garbage) {
		fputs("garbage garbage", f);
	} else {
		assert_int_equal(fwrite(z, 1, zlen, f), zlen);
	}
	assert_int_equal(fclose(f), 0);
}

/* As check_index, where every run without a fault fails with git's collision message r->want. */
struct collide_run {
	struct index_run ix;
	const char *msg;
	struct records rs;
};

static int op_collide(void *ctx)
{
	struct collide_run *r = ctx;
	r->rs.n = 0;
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	opt.threads = r->ix.threads;
	opt.repo = r->ix.repo;
	opt.sink.report = record;
	opt.sink.ctx = &r->rs;
	struct skg_pack *pack = (struct skg_pack *)&pack;
	int rc = skg_pack_index(&pack, r->ix.pk.p, r->ix.pk.n, &opt, &r->ix.err);
	assert_true(rc != 0);
	assert_null(pack);
	return rc;
}

static void check_collide(void *ctx, int rc, bool injected)
{
	struct collide_run *r = ctx;
	assert_int_equal(rc, -1);
	if (injected && r->ix.err.code == SKG_E_NOMEM) {
		return;
	}
	assert_int_equal(r->ix.err.code, SKG_E_GIT);
	assert_string_equal(r->ix.err.msg, r->msg);
}

/* Inside a repository (git's builtin/index-pack.c sha1_object): every object the repository has is
 * compared with its copy there; the same copies index, another content is git's "SHA1 COLLISION
 * FOUND WITH ID !", a copy that does not read git's lines and "cannot read existing object info";
 * with allocations and threads failing in turn, SKG_E_NOMEM / SKG_E_THREAD, never a finding. */
static void test_index_collision(void **state)
{
	(void)state;
	char dir[] = "/tmp/sha1kit-collide-XXXXXX", objects[64], path[128];
	assert_non_null(mkdtemp(dir));
	snprintf(objects, sizeof(objects), "%s/objects", dir);
	assert_int_equal(mkdir(objects, 0755), 0);
	snprintf(path, sizeof(path), "%s/refs", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/HEAD", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("ref: refs/heads/main\n", f);
	assert_int_equal(fclose(f), 0);
	/* the four objects of the delta pack, loose */
	static const char *const contents[] = {"hello\n", "hello\nworld\n", "second blob\n",
	                                       "second blob\nmore\n"};
	uint8_t ids[4][SKG_RAWSZ];
	struct skg_error err;
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(
		    skg_hash_object("blob", contents[i], strlen(contents[i]), NULL, ids[i], &err), 0);
		write_loose(objects, ids[i], "blob", contents[i], false);
	}
	struct skg_repo *repo;
	assert_int_equal(skg_repo_open(&repo, dir, NULL, &err), 0);
	struct index_run r = {.pk = make_delta_pack(),
	                      .want = roomy(),
	                      .idx = roomy(),
	                      .threads = 1,
	                      .repo = repo,
	                      .expect = SKG_E_NOMEM};
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	struct skg_pack *pack;
	assert_int_equal(skg_pack_index(&pack, r.pk.p, r.pk.n, &opt, &r.err), 0);
	assert_int_equal(skg_pack_write_idx(pack, &opt, collect, &r.want, &r.err), 0);
	skg_pack_free(pack);
	for (r.threads = 1; r.threads <= 2; r.threads++) {
		long n = fault_each(FAULT_ALLOC, op_index, check_index, &r);
		print_message("indexing inside a repository with the same copies on %u thread(s): %ld "
		              "allocations, each failed in turn\n",
		              r.threads, n);
		assert_true(n > 10);
	}
	r.threads = 2;
	r.expect = SKG_E_THREAD;
	assert_int_equal(fault_each(FAULT_THREAD, op_index, check_index, &r), 1);
	skg_repo_free(repo);

	/* the REF_DELTA's result, stored with another content of its size */
	char hex[SKG_HEXSZ + 1], want[128];
	write_loose(objects, ids[3], "blob", "second blob\nMORE\n", false);
	assert_int_equal(skg_repo_open(&repo, dir, NULL, &err), 0);
	skg_to_hex(ids[3], hex);
	snprintf(want, sizeof(want), "SHA1 COLLISION FOUND WITH %s !", hex);
	struct collide_run c = {.ix = r, .msg = want};
	c.ix.repo = repo;
	for (c.ix.threads = 1; c.ix.threads <= 2; c.ix.threads++) {
		long n = fault_each(FAULT_ALLOC, op_collide, check_collide, &c);
		assert_true(n > 10);
		assert_int_equal(c.rs.n, 0);
	}
	/* another type: a tree of the same size */
	write_loose(objects, ids[3], "tree", "second blob\nmore\n", false);
	c.ix.threads = 1;
	assert_int_equal(op_collide(&c), -1);
	check_collide(&c, -1, false);
	/* a copy that is no zlib stream: git's two lines, then its fatal one */
	write_loose(objects, ids[3], "blob", "", true);
	snprintf(want, sizeof(want), "cannot read existing object info %s", hex);
	assert_int_equal(op_collide(&c), -1);
	check_collide(&c, -1, false);
	assert_int_equal(c.rs.n, 2);
	assert_int_equal(c.rs.level[0], SKG_LEVEL_ERROR);
	assert_string_equal(c.rs.text[0], "inflate: data stream error (incorrect header check)");
	snprintf(path, sizeof(path), "unable to unpack %s header", hex);
	assert_string_equal(c.rs.text[1], path);
	skg_repo_free(repo);
	free(r.pk.p);
	free(r.want.p);
	free(r.idx.p);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

struct indexer_run {
	struct buf pk, want, want_rev;
	char dir[64], names[512];
	struct skg_error err;
};

/* Receive the pack in pieces of 50 bytes and commit it. */
static int op_indexer(void *ctx)
{
	struct indexer_run *r = ctx;
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	struct skg_indexer *ix = (struct skg_indexer *)&ix;
	if (skg_indexer_new(&ix, r->dir, &opt, &r->err) != 0) {
		assert_null(ix);
		return -1;
	}
	int rc = 0;
	for (size_t at = 0; at < r->pk.n && rc == 0; at += 50) {
		rc = skg_indexer_append(ix, r->pk.p + at, r->pk.n - at < 50 ? r->pk.n - at : 50, &r->err);
	}
	uint8_t sum[SKG_RAWSZ];
	if (rc == 0) {
		rc = skg_indexer_commit(ix, NULL, NULL, sum, &r->err);
	}
	skg_indexer_free(ix);
	return rc;
}

static void check_indexer(void *ctx, int rc, bool injected)
{
	struct indexer_run *r = ctx;
	list_dir(r->dir, r->names, sizeof(r->names));
	if (rc != 0) {
		assert_true(injected);
		if (r->err.code != SKG_E_NOMEM) {
			print_error("%s (%s)\n", r->err.msg, skg_errc_name(r->err.code));
		}
		assert_int_equal(r->err.code, SKG_E_NOMEM);
		assert_string_equal(r->names, ""); /* nothing left behind */
		return;
	}
	char hex[SKG_HEXSZ + 1], want[512], path[600];
	skg_to_hex(r->pk.p + r->pk.n - SKG_RAWSZ, hex);
	snprintf(want, sizeof(want), "pack-%s.idx pack-%s.pack pack-%s.rev ", hex, hex, hex);
	assert_string_equal(r->names, want);
	for (int k = 0; k < 2; k++) {
		const struct buf *w = k == 0 ? &r->want : &r->want_rev;
		snprintf(path, sizeof(path), "%s/pack-%s.%s", r->dir, hex, k == 0 ? "idx" : "rev");
		FILE *fp = fopen(path, "rb");
		assert_non_null(fp);
		static uint8_t got[1 << 16];
		size_t n = fread(got, 1, sizeof(got), fp);
		fclose(fp);
		assert_int_equal(n, w->n);
		assert_memory_equal(got, w->p, n);
		assert_int_equal(unlink(path), 0);
	}
	snprintf(path, sizeof(path), "%s/pack-%s.pack", r->dir, hex);
	assert_int_equal(unlink(path), 0);
}

/* The indexer's temporary pack is not inherited across exec (O_CLOEXEC, as every file the layer
 * opens; found by an embedder's trial). */
static void test_indexer_cloexec(void **state)
{
	(void)state;
#if defined(__linux__)
	char dir[] = "/tmp/sha1kit-cloexec-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct skg_indexer *ix = NULL;
	struct skg_error err;
	assert_int_equal(skg_indexer_new(&ix, dir, NULL, &err), 0);
	const char *tmp = skg_indexer_temp_path(ix);
	int found = 0;
	for (int fd = 3; fd < 1024; fd++) {
		char link[64], target[4096];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0) {
			continue;
		}
		target[n] = '\0';
		if (strcmp(target, tmp) == 0) {
			found++;
			assert_true((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
		}
	}
	assert_int_equal(found, 1);
	skg_indexer_free(ix);
	assert_int_equal(rmdir(dir), 0); /* the temporary pack is gone with it */
#endif
}

static void test_indexer_faults(void **state)
{
	(void)state;
	struct indexer_run r = {
	    .pk = make_delta_pack(), .want = roomy(), .want_rev = roomy(), .dir = "/tmp/sk-test-api-XXXXXX"};
	assert_non_null(mkdtemp(r.dir));
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	struct skg_pack *pack;
	assert_int_equal(skg_pack_index(&pack, r.pk.p, r.pk.n, &opt, &r.err), 0);
	assert_int_equal(skg_pack_write_idx(pack, &opt, collect, &r.want, &r.err), 0);
	assert_int_equal(skg_pack_write_rev(pack, collect, &r.want_rev, &r.err), 0);
	skg_pack_free(pack);
	long n = fault_each(FAULT_ALLOC, op_indexer, check_indexer, &r);
	print_message("streaming indexer: %ld allocations, each failed in turn\n", n);
	assert_true(n > 10);
	assert_int_equal(rmdir(r.dir), 0);
	free(r.pk.p);
	free(r.want.p);
	free(r.want_rev.p);
}

/* The small functions of <sha1kit/git.h> and the option defaults. */
/* skg_idx_check: git's reasons for an idx it cannot open, from idx files made here. */
static void expect_idx_refused(const uint8_t *idx, size_t len, const char *msg)
{
	struct skg_error err;
	memset(&err, 0, sizeof(err));
	assert_int_equal(skg_idx_check(idx, len, "d/p.idx", "d/p.pack", &err), -1);
	assert_int_equal(err.code, SKG_E_CORRUPT);
	assert_string_equal(err.msg, msg);
}

static void test_idx_check(void **state)
{
	(void)state;
	struct buf pk = make_pack();
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	struct skg_error err;
	struct skg_pack *pack;
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), 0);
	struct buf idx = {0}, v1 = {0}, all = {0}, big = {0};
	assert_int_equal(skg_pack_write_idx(pack, &opt, collect, &idx, &err), 0);
	/* every offset in the 64-bit table: git writes it (--index-version=2,0) but cannot open it,
	 * load_idx allows count - 1 entries there */
	opt.off32_limit = 0;
	assert_int_equal(skg_pack_write_idx(pack, &opt, collect, &all, &err), 0);
	assert_int_equal(all.n, idx.n + 3 * 8);
	expect_idx_refused(all.p, all.n, "wrong index v2 file size in d/p.idx");
	/* the objects after the first one (offset 12) in the 64-bit table */
	opt.off32_limit = 12;
	assert_int_equal(skg_pack_write_idx(pack, &opt, collect, &big, &err), 0);
	assert_int_equal(big.n, idx.n + 2 * 8);
	/* version 1 with objects above the limit: version 2, as git's write_idx_file */
	struct buf v1big = {0};
	opt.idx_version = 1;
	assert_int_equal(skg_pack_write_idx(pack, &opt, collect, &v1big, &err), 0);
	assert_int_equal(v1big.n, big.n);
	assert_memory_equal(v1big.p, big.p, big.n);
	free(v1big.p);
	opt.off32_limit = 0x7fffffff; /* the default */
	assert_int_equal(skg_pack_write_idx(pack, &opt, collect, &v1, &err), 0);
	skg_pack_free(pack);
	assert_int_equal(skg_idx_check(idx.p, idx.n, "d/p.idx", "d/p.pack", &err), 0);
	assert_int_equal(skg_idx_check(v1.p, v1.n, "d/p.idx", "d/p.pack", &err), 0);
	assert_int_equal(skg_idx_check(big.p, big.n, "d/p.idx", "d/p.pack", &err), 0);

	expect_idx_refused(idx.p, 0, "index file d/p.idx is too small");
	expect_idx_refused(idx.p, 1024 + 39, "index file d/p.idx is too small");
	idx.p[7] = 3;
	expect_idx_refused(idx.p, idx.n,
	                   "index file d/p.idx is version 3 and is not supported by this binary (try "
	                   "upgrading GIT to a newer version)");
	idx.p[7] = 2;
	uint8_t keep = idx.p[8 + 4 * 9 + 3];
	idx.p[8 + 4 * 9 + 3] = 9; /* fan-out[9] = 9 > fan-out[255] = 3 */
	expect_idx_refused(idx.p, idx.n, "non-monotonic index d/p.idx");
	idx.p[8 + 4 * 9 + 3] = keep;
	assert_int_equal(skg_idx_check(idx.p, idx.n, "d/p.idx", "d/p.pack", &err), 0);
	expect_idx_refused(idx.p, idx.n - 1, "wrong index v2 file size in d/p.idx");
	/* up to count - 1 = 2 entries of 8 bytes may follow the offsets (git checks only the size: with
	 * one of them cut off the file still opens), one more is too many */
	assert_int_equal(skg_idx_check(big.p, big.n - 8, "d/p.idx", "d/p.pack", &err), 0);
	uint8_t *longer = calloc(1, big.n + 8);
	assert_non_null(longer);
	memcpy(longer, big.p, big.n);
	expect_idx_refused(longer, big.n + 8, "wrong index v2 file size in d/p.idx");
	free(longer);
	expect_idx_refused(v1.p, v1.n - 1, "wrong index v1 file size in d/p.idx");
	v1.p[4 * 200 + 3] = 7;
	expect_idx_refused(v1.p, v1.n, "non-monotonic index d/p.idx");
	/* An index into the 64-bit table: in the file up to the end less 8 bytes, then beyond it. */
	size_t offs = 8 + 1024 + 3 * 24, large = offs + 3 * 4, e = 0;
	while (e < 3 && (big.p[offs + 4 * e] & 0x80) == 0) {
		e++;
	}
	assert_true(e < 3);
	uint32_t beyond = (uint32_t)((big.n - 8 - large) / 8); /* 16 + 40 - 8 bytes: entry 6 */
	assert_int_equal(beyond, 6);
	big.p[offs + 4 * e + 3] = (uint8_t)(beyond - 1);
	assert_int_equal(skg_idx_check(big.p, big.n, "d/p.idx", "d/p.pack", &err), 0);
	big.p[offs + 4 * e + 3] = (uint8_t)beyond;
	expect_idx_refused(big.p, big.n, "offset beyond end of pack index for d/p.pack (truncated index?)");
	big.p[offs + 4 * e] = 0xff; /* 0x7f...: far beyond */
	expect_idx_refused(big.p, big.n, "offset beyond end of pack index for d/p.pack (truncated index?)");
	free(all.p);
	free(idx.p);
	free(v1.p);
	free(big.p);
	free(pk.p);
}

static void test_basics(void **state)
{
	(void)state;
	assert_string_equal(skg_type_name(SKG_COMMIT), "commit");
	assert_string_equal(skg_type_name(SKG_TREE), "tree");
	assert_string_equal(skg_type_name(SKG_BLOB), "blob");
	assert_string_equal(skg_type_name(SKG_TAG), "tag");
	assert_null(skg_type_name(SKG_NONE));
	assert_null(skg_type_name(5));
	uint8_t id[SKG_RAWSZ];
	char hex[SKG_HEXSZ + 1];
	assert_true(skg_from_hex("CE013625030BA8DBA906F756967F9E9CA394464A", id));
	skg_to_hex(id, hex);
	assert_string_equal(hex, "ce013625030ba8dba906f756967f9e9ca394464a");
	assert_false(skg_from_hex("ce013625030ba8dba906f756967f9e9ca394464g", id));
	assert_false(skg_from_hex("ce01", id)); /* the NUL byte is not a hex digit */
	const enum skg_errc codes[] = {SKG_E_GIT,   SKG_E_NOMEM,     SKG_E_THREAD,    SKG_E_IO,
	                               SKG_E_USAGE, SKG_E_CANCELLED, SKG_E_COLLISION, SKG_E_CORRUPT};
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		assert_non_null(skg_errc_name(codes[i]));
		for (size_t j = 0; j < i; j++) {
			assert_string_not_equal(skg_errc_name(codes[i]), skg_errc_name(codes[j]));
		}
	}
	assert_string_equal(skg_errc_name(SKG_E_NOMEM), "out of memory");
	assert_string_equal(skg_level_prefix(SKG_LEVEL_ERROR), "error: ");
	assert_string_equal(skg_level_prefix(SKG_LEVEL_WARNING), "warning: ");
	assert_string_equal(skg_level_prefix(SKG_LEVEL_NOTICE), "notice: ");
	assert_string_equal(skg_level_prefix(SKG_LEVEL_PLAIN), "");
	assert_string_equal(skg_level_prefix(SKG_LEVEL_OUTPUT), "");
	assert_null(skg_level_prefix(SKG_LEVEL_SILENT));
	struct skg_index_options opt;
	memset(&opt, 0xa5, sizeof(opt));
	skg_index_options_default(&opt);
	assert_int_equal(opt.threads, 1);
	assert_int_equal(opt.cache_limit, 96 << 20);
	assert_false(opt.strict);
	assert_int_equal(opt.idx_version, 2);
	assert_int_equal(opt.off32_limit, 0x7fffffff);
	assert_null(opt.progress.fn);
	assert_null(opt.read);
}

/*
 * skg_index_read_config outside a repository: the global file (GIT_CONFIG_GLOBAL; no system file)
 * sets the idx version (0 as 1), the threads and the reverse index (on unless set false); git's fatal texts
 * for a version above 2, threads below 0 and a value that is not a number (naming the file); unset keys
 * change nothing.
 */
static void test_index_config(void **state)
{
	(void)state;
	char dir[] = "/tmp/sha1kit-cfg.XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/global", dir);
	static const struct {
		const char *text;
		int rc;
		unsigned version, threads;
		const char *msg;
		int rev_off; /* after a success: 1 when opt.rev_index is false */
	} cases[] = {
	    {"", 0, 2, 7, NULL, 0},
	    {"[pack]\n\tindexVersion = 1\n\tthreads = 3\n", 0, 1, 3, NULL, 0},
	    {"[pack]\n\twriteReverseIndex = false\n", 0, 2, 7, NULL, 1},
	    {"[pack]\n\twriteReverseIndex = off\n\twriteReverseIndex\n", 0, 2, 7, NULL, 0},
	    {"[pack]\n\twriteReverseIndex = 0\n", 0, 2, 7, NULL, 1},
	    {"[pack]\n\twriteReverseIndex = maybe\n", -1, 0, 0,
	     "bad boolean config value 'maybe' for 'pack.writereverseindex'", 0},
	    {"[pack]\n\tindexVersion = 0\n", 0, 1, 7, NULL, 0},
	    {"[pack]\n\tindexVersion = 3\n", -1, 0, 0, "bad pack.indexVersion=3", 0},
	    {"[pack]\n\tindexVersion = -1\n", -1, 0, 0, "bad pack.indexVersion=4294967295", 0},
	    {"[pack]\n\tthreads = -2\n", -1, 0, 0, "invalid number of threads specified (-2)", 0},
	    {"[pack]\n\tindexVersion = 2x\n", -1, 0, 0,
	     "bad numeric config value '2x' for 'pack.indexversion' in file %s: invalid unit", 0},
	    {"[core]\n\tbigFileThreshold = 9999999999999999999999\n", -1, 0, 0,
	     "bad numeric config value '9999999999999999999999' for 'core.bigfilethreshold' in file %s: out "
	     "of range",
	     0},
	};
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", path, 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(cases[i].text, f);
		fclose(f);
		struct skg_index_options opt;
		skg_index_options_default(&opt);
		unsigned threads = 7;
		struct skg_error err;
		int rc = skg_index_read_config(NULL, &opt, &threads, &err);
		assert_int_equal(rc, cases[i].rc);
		if (rc == 0) {
			assert_int_equal(opt.idx_version, cases[i].version);
			assert_int_equal(threads, cases[i].threads);
			assert_int_equal(opt.rev_index, cases[i].rev_off == 0);
		} else {
			char want[256];
			snprintf(want, sizeof(want), cases[i].msg, path);
			assert_string_equal(err.msg, want);
			assert_int_equal(err.code, SKG_E_GIT);
		}
	}
	unsetenv("GIT_CONFIG_GLOBAL");
	unsetenv("GIT_CONFIG_NOSYSTEM");
	unlink(path);
	rmdir(dir);
}

/* The command line's config: GIT_CONFIG_PARAMETERS as `git -c` writes it is read by the config
 * readers (pack.indexVersion=1 through skg_index_read_config), and skg_config_check_command_line
 * gives git's error for each form git refuses (git 2.55.0 config.c, quote.c). */
static void test_command_line_config(void **state)
{
	(void)state;
	static const struct {
		const char *params, *count, *msg; /* msg NULL: it parses */
	} cases[] = {
	    {"'pack.indexversion'='1'", NULL, NULL},
	    {"'pack.indexversion=1'", NULL, NULL},
	    {"'x.y'='a b' \t'pack.IndexVersion'='1' ", NULL, NULL},
	    {" 'pack.indexversion'='1'", NULL, "bogus format in GIT_CONFIG_PARAMETERS"}, /* no blank first */
	    {"'core.x'= 'pack.indexversion'='1'", NULL, NULL}, /* 'KEY'= alone: an implicit true */
	    {"'pack.ind'\\''exversion'='1'", NULL, "invalid key: pack.ind'exversion"},
	    {"bogus", NULL, "bogus format in GIT_CONFIG_PARAMETERS"},
	    {"'a.b'='1'x", NULL, "bogus format in GIT_CONFIG_PARAMETERS"},
	    {"'a.b'x", NULL, "bogus format in GIT_CONFIG_PARAMETERS"},
	    {"'unterminated", NULL, "bogus format in GIT_CONFIG_PARAMETERS"},
	    {"'=1'", NULL, "bogus config parameter: =1"},
	    {"''=''", NULL, "empty config key"},
	    {"'x'", NULL, "key does not contain a section: x"},
	    {"'x.'", NULL, "key does not contain variable name: x."},
	    {"'a.1b'", NULL, "invalid key: a.1b"},
	    {"'a.b_c'", NULL, "invalid key: a.b_c"},
	    {"'a.sub\nsection.b'", NULL, "invalid key (newline): a.sub\nsection.b"},
	    {NULL, "x", "bogus count in GIT_CONFIG_COUNT"},
	    {NULL, "9999999999", "too many entries in GIT_CONFIG_COUNT"},
	    {NULL, "1", "missing config key GIT_CONFIG_KEY_0"},
	};
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].params != NULL) {
			setenv("GIT_CONFIG_PARAMETERS", cases[i].params, 1);
		} else {
			unsetenv("GIT_CONFIG_PARAMETERS");
		}
		if (cases[i].count != NULL) {
			setenv("GIT_CONFIG_COUNT", cases[i].count, 1);
		} else {
			unsetenv("GIT_CONFIG_COUNT");
		}
		struct skg_error err;
		int rc = skg_config_check_command_line(&err);
		if (cases[i].msg == NULL) {
			assert_int_equal(rc, 0);
			struct skg_index_options opt;
			skg_index_options_default(&opt);
			assert_int_equal(skg_index_read_config(NULL, &opt, NULL, &err), 0);
			assert_int_equal(opt.idx_version, 1);
		} else {
			assert_int_equal(rc, -1);
			assert_string_equal(err.msg, cases[i].msg);
			assert_int_equal(skg_config_check_command_line(NULL), -1);
		}
	}
	unsetenv("GIT_CONFIG_PARAMETERS");
	unsetenv("GIT_CONFIG_COUNT");
	assert_int_equal(skg_config_check_command_line(NULL), 0);
	unsetenv("GIT_CONFIG_GLOBAL");
	unsetenv("GIT_CONFIG_NOSYSTEM");
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * The .rev of pk (idx version 2, no 64-bit offsets): "RIDX", 1, 1, then a permutation whose word k
 * is the idx position of pack-order object k (the idx entry there has its ID and offset: a
 * duplicated ID is told apart by the offset), the pack checksum, the SHA-1 of the rest; the
 * comparison finds every changed byte, a shorter and a longer file.
 */
static void check_rev(struct buf pk, uint32_t nr)
{
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	struct skg_pack *pack;
	struct skg_error err;
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), 0);
	assert_int_equal(skg_pack_count(pack), nr);
	struct buf idx = {0}, rev = {0};
	assert_int_equal(skg_pack_write_idx(pack, &opt, collect, &idx, &err), 0);
	assert_int_equal(skg_pack_write_rev(pack, collect, &rev, &err), 0);
	assert_int_equal(rev.n, 12 + 4 * nr + 40);
	assert_memory_equal(rev.p, "RIDX\0\0\0\1\0\0\0\1", 12);
	bool seen[32] = {false};
	assert_true(nr <= 32);
	for (uint32_t k = 0; k < nr; k++) {
		uint32_t p = be32(rev.p + 12 + 4 * k);
		assert_true(p < nr);
		assert_false(seen[p]);
		seen[p] = true;
		struct skg_pack_object o;
		assert_true(skg_pack_object(pack, k, &o));
		assert_memory_equal(idx.p + 8 + 1024 + SKG_RAWSZ * p, o.id, SKG_RAWSZ);
		assert_int_equal(be32(idx.p + 8 + 1024 + (SKG_RAWSZ + 4) * nr + 4 * p), o.offset);
	}
	assert_memory_equal(rev.p + 12 + 4 * nr, skg_pack_checksum(pack), SKG_RAWSZ);
	uint8_t sum[SKG_RAWSZ];
	sha1kit_fast(rev.p, rev.n - SKG_RAWSZ, sum);
	assert_memory_equal(rev.p + rev.n - SKG_RAWSZ, sum, SKG_RAWSZ);

	uint64_t first;
	assert_int_equal(skg_pack_compare_rev(pack, rev.p, rev.n, &first, &err), 0);
	for (size_t i = 0; i < rev.n; i++) {
		rev.p[i] ^= 0x10;
		assert_int_equal(skg_pack_compare_rev(pack, rev.p, rev.n, &first, &err), 1);
		assert_int_equal(first, i);
		rev.p[i] ^= 0x10;
	}
	assert_int_equal(skg_pack_compare_rev(pack, rev.p, rev.n - 1, &first, &err), 1);
	assert_int_equal(first, rev.n - 1);
	put(&rev, "", 1);
	assert_int_equal(skg_pack_compare_rev(pack, rev.p, rev.n, &first, &err), 1);
	assert_int_equal(first, rev.n - 1);
	skg_pack_free(pack);
	free(idx.p);
	free(rev.p);
	free(pk.p);
}

/* make_pack with the blob once more at the end: an object twice (accepted without strict). */
static struct buf make_dup_pack(void)
{
	struct buf b = make_pack();
	b.n -= SKG_RAWSZ;
	b.p[11] = 4;
	put_entry(&b, SKG_BLOB, blob, 6);
	uint8_t sum[SKG_RAWSZ];
	sha1kit_fast(b.p, b.n, sum);
	put(&b, sum, sizeof(sum));
	return b;
}

/*
 * A pack of 30 blobs whose IDs all begin with 16 zero bits (found by trying contents, 65536 tries
 * each on average) and the first of them once more at the end: the .rev writer's buckets by the
 * first 16 bits then hold more than it sorts by insertion, and an ID twice.
 */
static struct buf make_prefix_pack(void)
{
	struct buf b = {0};
	uint8_t hdr[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 31}, id[SKG_RAWSZ], sum[SKG_RAWSZ];
	put(&b, hdr, sizeof(hdr));
	char text[32], first[32] = "";
	struct skg_error err;
	unsigned found = 0;
	for (unsigned long n = 0; found < 30; n++) {
		int len = snprintf(text, sizeof(text), "%lu\n", n);
		assert_int_equal(skg_hash_object("blob", text, (size_t)len, NULL, id, &err), 0);
		if (id[0] == 0 && id[1] == 0) {
			put_entry(&b, SKG_BLOB, text, (size_t)len);
			if (found++ == 0) {
				memcpy(first, text, (size_t)len + 1);
			}
		}
	}
	put_entry(&b, SKG_BLOB, first, strlen(first));
	sha1kit_fast(b.p, b.n, sum);
	put(&b, sum, sizeof(sum));
	return b;
}

/* A SHA-256 pack (skg_index_options.object_format): the blob "hello\n", then a REF_DELTA naming it
 * by its 32-byte ID that makes "hello\nworld\n", and the SHA-256 trailer. IDs as `git hash-object`
 * gives them in a SHA-256 repository (sha256sum of "blob 6\0hello\n" and "blob 12\0...");
 * the idx has 32-byte names and checksums; the same bytes read as SHA-1 are no pack. */
static void test_index_sha256(void **state)
{
	(void)state;
	struct buf b = {0};
	uint8_t hdr[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 2};
	put(&b, hdr, sizeof(hdr));
	put_entry(&b, SKG_BLOB, blob, 6);
	uint8_t base[32];
	const char *base_hex = "2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb4";
	for (int i = 0; i < 32; i++) {
		assert_int_equal(sscanf(base_hex + 2 * i, "%2hhx", &base[i]), 1);
	}
	/* delta: base size 6, result 12; copy 6 bytes from offset 0; insert "world\n" */
	static const uint8_t delta[] = {6, 12, 0x90, 6, 6, 'w', 'o', 'r', 'l', 'd', '\n'};
	uint8_t h = (uint8_t)(7 << 4 | sizeof(delta));
	put(&b, &h, 1);
	put(&b, base, sizeof(base));
	uLongf zlen = compressBound(sizeof(delta));
	uint8_t z[64];
	assert_true(zlen <= sizeof(z));
	assert_int_equal(compress(z, &zlen, delta, sizeof(delta)), Z_OK);
	put(&b, z, zlen);
	uint8_t sum[32];
	sha1kit_sha256(b.p, b.n, sum);
	put(&b, sum, sizeof(sum));

	struct skg_index_options opt;
	skg_index_options_default(&opt);
	opt.object_format = SKG_FORMAT_SHA256;
	struct skg_pack *pack;
	struct skg_error err;
	assert_int_equal(skg_pack_index(&pack, b.p, b.n, &opt, &err), 0);
	assert_int_equal(skg_pack_rawsz(pack), 32);
	assert_int_equal(skg_pack_count(pack), 2);
	assert_memory_equal(skg_pack_checksum(pack), sum, 32);
	struct skg_pack_object o;
	char hex[SKG_MAX_HEXSZ + 1];
	assert_true(skg_pack_object(pack, 1, &o));
	skg_to_hex_len(o.id, 32, hex);
	assert_string_equal(hex, "fe76325aa5521b207ebe01e12fd8e9e3abf030cacd5398e3744a3a56a81ad1bd");
	assert_int_equal(o.type, SKG_BLOB);
	assert_int_equal(o.pack_type, 7);
	assert_int_equal(o.depth, 1);
	assert_memory_equal(o.base_id, base, 32);
	struct buf idx = {0};
	assert_int_equal(skg_pack_write_idx(pack, &opt, collect, &idx, &err), 0);
	assert_int_equal(idx.n, 8 + 1024 + 2 * (32 + 4 + 4) + 2 * 32);
	assert_memory_equal(idx.p + idx.n - 64, sum, 32);
	uint8_t isum[32];
	sha1kit_sha256(idx.p, idx.n - 32, isum);
	assert_memory_equal(idx.p + idx.n - 32, isum, 32);
	assert_int_equal(skg_idx_check_as(idx.p, idx.n, SKG_FORMAT_SHA256, "x.idx", "x.pack", &err), 0);
	assert_int_equal(skg_idx_check(idx.p, idx.n, "x.idx", "x.pack", &err), -1); /* sizes of SHA-1 */
	assert_int_equal(skg_pack_verify_idx(pack, idx.p, idx.n, true, &err), 0);
	/* the second object in the table of 64-bit offsets: its layout is found again */
	struct buf idx64 = {0};
	uint64_t limit = opt.off32_limit;
	opt.off32_limit = 12;
	assert_int_equal(skg_pack_write_idx(pack, &opt, collect, &idx64, &err), 0);
	opt.off32_limit = limit;
	assert_int_equal(idx64.n, idx.n + 8);
	assert_int_equal(skg_pack_verify_idx(pack, idx64.p, idx64.n, true, &err), 0);
	free(idx64.p);
	struct buf rev = {0};
	assert_int_equal(skg_pack_write_rev(pack, collect, &rev, &err), 0);
	assert_int_equal(rev.n, 12 + 2 * 4 + 2 * 32);
	assert_int_equal(rev.p[11], 2); /* hash id: SHA-256 */
	skg_pack_free(pack);
	free(rev.p);
	free(idx.p);

	/* read as SHA-1: the REF_DELTA's base name is 20 bytes, the trailer too */
	opt.object_format = SKG_FORMAT_SHA1;
	assert_int_equal(skg_pack_index(&pack, b.p, b.n, &opt, &err), -1);
	assert_int_equal(err.code, SKG_E_CORRUPT);
	/* with git's object checks (--strict): blobs pass them; a skip list of 40-digit IDs is not
	 * one of this format's (git: "invalid object name") */
	opt.object_format = SKG_FORMAT_SHA256;
	opt.strict = true;
	assert_int_equal(skg_pack_index(&pack, b.p, b.n, &opt, &err), 0);
	assert_int_equal(skg_pack_rawsz(pack), 32);
	skg_pack_free(pack);
	char dir[] = "/tmp/sk-test-api-XXXXXX", skip[64], args[96];
	assert_non_null(mkdtemp(dir));
	snprintf(skip, sizeof(skip), "%s/skip", dir);
	FILE *fp = fopen(skip, "w");
	assert_non_null(fp);
	assert_true(fputs("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n", fp) >= 0);
	assert_int_equal(fclose(fp), 0);
	snprintf(args, sizeof(args), "skiplist=%s", skip);
	opt.strict_args = args;
	assert_int_equal(skg_pack_index(&pack, b.p, b.n, &opt, &err), -1);
	assert_int_equal(err.code, SKG_E_GIT);
	assert_string_equal(err.msg, "invalid object name: e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	assert_int_equal(remove(skip), 0);
	assert_int_equal(rmdir(dir), 0);
	opt.strict_args = NULL;
	opt.strict = false;
	opt.object_format = 3;
	assert_int_equal(skg_pack_index(&pack, b.p, b.n, &opt, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);
	free(b.p);
}

static void test_rev(void **state)
{
	(void)state;
	check_rev(make_pack(), 3);
	check_rev(make_delta_pack(), 4);
	check_rev(make_dup_pack(), 4);
	check_rev(make_prefix_pack(), 31);
	/* the empty pack: header, trailer */
	struct buf b = {0};
	uint8_t hdr[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0}, sum[SKG_RAWSZ];
	put(&b, hdr, sizeof(hdr));
	sha1kit_fast(b.p, b.n, sum);
	put(&b, sum, sizeof(sum));
	check_rev(b, 0);
}

/* A writer that stops and leaves errno as it was. */
static int fail_write(void *ctx, const uint8_t *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
	return 1;
}

/* An embedder's trial (its repros 01, 06 and 17): a read callback that fails is the machine's
 * fault (SKG_E_IO), not the pack's; a writer that stops without an errno is said to have failed;
 * NULL where a repository or a name is wanted is an answer, not a crash. */
static void test_null_and_read_failure(void **state)
{
	(void)state;
	struct buf pk = make_delta_pack();
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	opt.read = fail_read;
	struct skg_pack *pack = NULL;
	struct skg_error err;
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), -1);
	assert_int_equal(err.code, SKG_E_IO);
	assert_string_equal(err.msg, "cannot read the pack");
	assert_null(pack);
	free(pk.p);
	/* a writer that stops without an errno: "the writer failed", not strerror(0) (its repro 01) */
	pk = make_delta_pack();
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, NULL, &err), 0);
	assert_int_equal(skg_pack_write_idx(pack, NULL, fail_write, NULL, &err), -1);
	assert_int_equal(err.code, SKG_E_IO);
	assert_string_equal(err.msg, "cannot write the index: the writer failed");
	assert_int_equal(skg_pack_write_rev(pack, fail_write, NULL, &err), -1);
	assert_string_equal(err.msg, "cannot write the reverse index: the writer failed");
	skg_pack_free(pack);
	free(pk.p);
	assert_int_equal(skg_format_from_name(NULL), 0);
	assert_int_equal(skg_refs_verify(NULL, NULL, NULL, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);

	/* err NULL: the same failures, the error dropped (an embedder's trial: the indexer's commit
	 * into a directory it cannot write dereferenced it) */
	pk = make_delta_pack();
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, NULL), -1);
	assert_null(pack);
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, NULL, NULL), 0);
	assert_int_equal(skg_pack_write_idx(pack, NULL, fail_write, NULL, NULL), -1);
	assert_int_equal(skg_pack_write_rev(pack, fail_write, NULL, NULL), -1);
	skg_pack_free(pack);
	assert_int_equal(skg_refs_verify(NULL, NULL, NULL, NULL), -1);
	struct skg_repo *repo = (struct skg_repo *)&err; /* must become NULL */
	assert_int_equal(skg_repo_open(&repo, "/nonexistent/sha1kit-test", NULL, NULL), -1);
	assert_null(repo);
	char dir[] = "/tmp/sha1kit-errnull.XXXXXX", gone[64];
	assert_non_null(mkdtemp(dir));
	struct skg_indexer *ix = NULL;
	assert_int_equal(skg_indexer_new(&ix, dir, NULL, NULL), 0);
	assert_int_equal(skg_indexer_append(ix, pk.p, pk.n, NULL), 0);
	snprintf(gone, sizeof(gone), "%s/gone/x.pack", dir); /* a directory that is not there */
	assert_int_equal(skg_indexer_commit(ix, gone, NULL, NULL, NULL), -1);
	skg_indexer_free(ix);
	assert_int_equal(rmdir(dir), 0); /* nothing left behind */
	free(pk.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_index_memory),
	    cmocka_unit_test(test_index_truncated_and_flipped),
	    cmocka_unit_test(test_indexer),
	    cmocka_unit_test(test_null_and_read_failure),
	    cmocka_unit_test(test_files),
	    cmocka_unit_test(test_hash_object),
	    cmocka_unit_test(test_hash_object_shattered),
	    cmocka_unit_test(test_hash_object_fsck),
	    cmocka_unit_test(test_tree_name_separators),
	    cmocka_unit_test(test_tree_name_order),
	    cmocka_unit_test(test_index_strict),
	    cmocka_unit_test(test_index_strict_queued),
	    cmocka_unit_test(test_basics),
	    cmocka_unit_test(test_index_faults),
	    cmocka_unit_test(test_indexer_faults),
	    cmocka_unit_test(test_indexer_cloexec),
	    cmocka_unit_test(test_idx_check),
	    cmocka_unit_test(test_index_collision),
	    cmocka_unit_test(test_index_config),
	    cmocka_unit_test(test_command_line_config),
	    cmocka_unit_test(test_rev),
	    cmocka_unit_test(test_index_sha256),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
