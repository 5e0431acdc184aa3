/*
 * index-pack.c - an example of the Git layer's public API (<sha1kit/git_pack.h>,
 * <sha1kit/git_object.h>), using only the installed headers and libraries:
 *
 *   cc index-pack.c $(pkg-config --cflags --libs sha1kit-git) -o index-pack
 *   git pack-objects --stdout --all < /dev/null | ./index-pack DIR
 *
 * It receives a pack on standard input in pieces, as a Git server receives a push, through the
 * streaming indexer (skg_indexer_*: DIR/pack-CHECKSUM.pack, .idx and .rev, the reverse index that
 * skg_index_options_default asks for, as git 2.41 and later write it; nothing left on error), then
 * maps nothing itself: it reads the pack back, indexes it in memory (skg_pack_index), verifies
 * the idx written against it (skg_pack_verify_idx), prints each object's ID and type, and hashes
 * one blob with skg_hash_object. Exit status 0, or 1 with one line on standard error (2 and a usage
 * line without the DIR operand).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha1kit/git_object.h>
#include <sha1kit/git_pack.h>

static int fail(const char *what, const struct skg_error *err)
{
	fprintf(stderr, "index-pack: %s: %s (%s)\n", what, err->msg, skg_errc_name(err->code));
	return 1;
}

/* The whole of a file in memory (NULL on failure). */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf = NULL;
	if (fp != NULL && fseek(fp, 0, SEEK_END) == 0) {
		long n = ftell(fp);
		if (n >= 0 && fseek(fp, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL &&
		    fread(buf, 1, (size_t)n, fp) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	if (fp != NULL) {
		fclose(fp);
	}
	return buf;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: index-pack DIR < PACK\n");
		return 2;
	}
	struct skg_error err;
	struct skg_index_options opt;
	skg_index_options_default(&opt);
	opt.threads = 2;

	/* 1. The pack arrives in pieces. */
	struct skg_indexer *ix;
	if (skg_indexer_new(&ix, argv[1], &opt, &err) != 0) {
		return fail("start", &err);
	}
	unsigned char piece[4096];
	size_t n;
	while ((n = fread(piece, 1, sizeof(piece), stdin)) > 0) {
		if (skg_indexer_append(ix, piece, n, &err) != 0) {
			skg_indexer_free(ix);
			return fail("append", &err);
		}
	}
	uint8_t sum[SKG_RAWSZ];
	int rc = skg_indexer_commit(ix, NULL, NULL, sum, &err);
	skg_indexer_free(ix);
	if (rc != 0) {
		return fail("commit", &err);
	}
	char hex[SKG_HEXSZ + 1], path[4096];
	skg_to_hex(sum, hex);
	printf("pack\t%s\n", hex);

	/* 2. Indexed again from memory and verified against the idx just written. */
	size_t pack_len, idx_len;
	snprintf(path, sizeof(path), "%s/pack-%s.pack", argv[1], hex);
	unsigned char *pack_data = slurp(path, &pack_len);
	snprintf(path, sizeof(path), "%s/pack-%s.idx", argv[1], hex);
	unsigned char *idx_data = slurp(path, &idx_len);
	struct skg_pack *pack = NULL;
	if (pack_data == NULL || idx_data == NULL) {
		fprintf(stderr, "index-pack: cannot read back the pack and its idx\n");
		rc = 1;
	} else if (skg_pack_index(&pack, pack_data, pack_len, &opt, &err) != 0) {
		rc = fail("index", &err);
	} else if (skg_pack_verify_idx(pack, idx_data, idx_len, false, &err) != 0) {
		rc = fail("verify", &err);
	} else {
		printf("verified: %u objects\n", skg_pack_count(pack));
		for (uint32_t i = 0; i < skg_pack_count(pack); i++) {
			struct skg_pack_object o;
			skg_pack_object(pack, i, &o);
			skg_to_hex(o.id, hex);
			printf("%s %s\n", hex, skg_type_name(o.type));
		}
	}

	/* 3. An object ID as `git hash-object --stdin` gives it. */
	uint8_t oid[SKG_RAWSZ];
	if (rc == 0 && skg_hash_object("blob", "hello\n", 6, NULL, oid, &err) != 0) {
		rc = fail("hash", &err);
	} else if (rc == 0) {
		skg_to_hex(oid, hex);
		printf("blob 'hello\\n': %s\n", hex);
	}
	skg_pack_free(pack);
	free(pack_data);
	free(idx_data);
	return rc;
}
