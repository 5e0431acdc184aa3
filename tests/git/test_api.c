/*
 * test_api.c - unit tests of the Git layer's public API (<sha1kit/git_pack.h>,
 * <sha1kit/git_object.h>): a pack built here with zlib (one blob, one tree, one commit), indexed
 * from memory and through the streaming indexer in pieces of every size from 1 byte; every
 * truncation and a flipped byte at every offset fail with an error and leave nothing behind; the
 * idx written is verified and a changed idx is not; object IDs against values git gives
 * (`git hash-object`) and the format checks.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include <sha1kit.h>
#include <sha1kit/git_object.h>
#include <sha1kit/git_pack.h>

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
	assert_int_equal(skg_hash_object("tree", tree, sizeof(tree), false, tree_id, &err), 0);
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
	/* Threads 0 and idx version 3 are errors of use. */
	opt.threads = 0;
	assert_int_equal(skg_pack_index(&pack, pk.p, pk.n, &opt, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);
	assert_null(pack);
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
	snprintf(want, sizeof(want), "pack-%s.idx pack-%s.pack ", hex, hex);
	/* In pieces of every size: the same pack and idx. */
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
		}
		if (k == 1) {
			pk.p[20] ^= 1;
		}
		skg_indexer_free(ix);
		list_dir(dir, names, sizeof(names));
		assert_string_equal(names, want);
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

static void test_hash_object(void **state)
{
	(void)state;
	uint8_t oid[SKG_RAWSZ];
	char hex[SKG_HEXSZ + 1];
	struct skg_error err;
	assert_int_equal(skg_hash_object("blob", "", 0, false, oid, &err), 0);
	skg_to_hex(oid, hex);
	assert_string_equal(hex, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"); /* git hash-object /dev/null */
	assert_int_equal(skg_hash_object("tree", "", 0, false, oid, &err), 0);
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
	/* git's checks: a bad type, a corrupt tree, commit and tag; --literally takes them. */
	assert_int_equal(skg_hash_object("blub", "x", 1, false, oid, &err), -1);
	assert_int_equal(err.code, SKG_E_USAGE);
	assert_int_equal(skg_hash_object("tree", "100644 f", 8, false, oid, &err), -1);
	assert_int_equal(err.code, SKG_E_CORRUPT);
	assert_string_equal(err.msg, "corrupt tree object");
	assert_int_equal(skg_hash_object("commit", "tree x\n", 7, false, oid, &err), -1);
	assert_int_equal(skg_hash_object("tag", "object", 6, false, oid, &err), -1);
	assert_int_equal(skg_hash_object("blub", "x", 1, true, oid, &err), 0);
	assert_false(skg_object_format_ok(SKG_NONE, (const uint8_t *)"", 0));
	assert_true(skg_object_format_ok(SKG_BLOB, (const uint8_t *)"", 0));
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
	assert_int_equal(skg_hash_object("blob", data, n, false, oid, &err), 0);
	skg_to_hex(oid, hex);
	assert_string_equal(hex, "ba9aaa145ccd24ef760cf31c74d8f7ca1a2e47b0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_index_memory),
	    cmocka_unit_test(test_index_truncated_and_flipped),
	    cmocka_unit_test(test_indexer),
	    cmocka_unit_test(test_hash_object),
	    cmocka_unit_test(test_hash_object_shattered),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
