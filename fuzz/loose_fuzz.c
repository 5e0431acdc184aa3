/*
 * loose_fuzz.c - libFuzzer target: loose objects and the commit-graph / multi-pack-index / .rev
 * checks of the Git layer (src/git/loose.c, trailer.c, midx.c), on in-memory files.
 *
 * Input: byte 0 = flags, the rest = the file. Flags bits 0-1 choose the parser: 0 and 1 a loose
 * object (skg_loose_parse), 2 a commit-graph, 3 a multi-pack-index (bit 2 clear; its contents
 * too, skg_trailer_midx_buf_verify, with its packs absent; with bits 4 and 6 set also as git 2.55.0's
 * incremental chain of two layers, the file's halves, skg_trailer_midx_chain_buf_verify) or a .rev
 * file (bit 2 set). For loose
 * objects, bit 4 deflates the rest first (so that mutations reach the
 * header and content code instead of stopping in zlib), bits 2-3 choose core.bigFileThreshold
 * (0: every blob streamed, 64, or git's default), bit 5 git 2.50+'s reading of an unknown type
 * (unknown_type_corrupt) and 2.40+'s of an empty file (empty_not_found); sizes are limited to 1 MiB
 * (max_size). For a commit-graph and a multi-pack-index, bit 4 chooses the Git whose load and verify are used
 * (2.39.5, or 2.55.0), and bit 5 the object format (clear: SHA-1, set: SHA-256; so also for .rev).
 * Invariants: a status in range; well-formed lines (NUL-terminated, `len` and `count` right, a "fatal: " line
 * alone for a fatal status); a computed ID is SHA-1 of header + content (kept or streamed); reading again
 * with that ID as the path's gives no corruption, mismatch or fatal, and git's parse_object
 * (skg_loose_reparse) reads such an object (not a blob) back with its type whatever type git knew it by; on
 * any file, parse_object ends in range, with a "fatal: " last line when git dies and a "hash mismatch" line
 * when the object is not there for git.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include <sha1kit/git.h>

#include "loose.h"
#include "sha1kit.h"
#include "trailer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The objects directory of the multi-pack-index: one that does not exist, so no pack is read. */
#define FUZZ_OBJDIR "/nonexistent-sha1kit-fuzz/objects"

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "loose_fuzz: invariant failed: %s\n", what);
		abort();
	}
}

static void check_lines(const struct skg_lines *l)
{
	check(l->len < sizeof(l->text), "lines length");
	check(strlen(l->text) == l->len, "lines NUL");
	unsigned n = 0;
	for (size_t i = 0; i < l->len; i++) {
		n += l->text[i] == '\n';
	}
	check(n == l->count, "lines count");
	check(l->len == 0 || l->text[l->len - 1] == '\n', "lines end with a newline");
}

/* What a stream function received, to check the streamed ID. */
struct sink {
	uint8_t *buf;
	size_t len, cap;
	bool overflow;
};

static void on_stream(void *ctx, const uint8_t *p, size_t n)
{
	struct sink *s = ctx;
	check(n > 0, "empty stream call");
	if (s->overflow || s->len + n > ((size_t)8 << 20)) {
		s->overflow = true;
		return;
	}
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		while (cap < s->len + n) {
			cap *= 2;
		}
		uint8_t *nb = realloc(s->buf, cap);
		if (nb == NULL) {
			s->overflow = true;
			return;
		}
		s->buf = nb;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

/* SHA-1 of "<type_name> <size>\0" + body. */
static void object_id(const struct skg_loose_object *o, const uint8_t *body, size_t len, uint8_t id[20])
{
	char hdr[SKG_HEADER_MAX + 8];
	int n = snprintf(hdr, sizeof(hdr), "%s %llu", o->type_name, (unsigned long long)o->size);
	sha1kit_fast_ctx c;
	sha1kit_fast_init(&c);
	sha1kit_fast_update(&c, hdr, (size_t)n + 1);
	sha1kit_fast_update(&c, body, len);
	sha1kit_fast_final(&c, id);
}

static void fuzz_loose(unsigned flags, const uint8_t *file, size_t len)
{
	struct skg_loose_options opt;
	skg_loose_options_default(&opt);
	opt.max_size = (uint64_t)1 << 20;
	if (flags & 4) {
		opt.big_file_threshold = 0;
	} else if (flags & 8) {
		opt.big_file_threshold = 64;
	}
	/* bit 5: git 2.40+/2.50+'s readings (an unknown type fails the read, an empty file is no
	 * object), as fsck gives them with --git-version=2.55 */
	opt.unknown_type_corrupt = (flags & 32) != 0;
	opt.empty_not_found = (flags & 32) != 0;
	struct skg_loose_reader *r = skg_loose_reader_new(&opt);
	if (r == NULL) {
		return;
	}
	static const char path[] = "objects/12/3456789012345678901234567890123456789a";
	uint8_t expect[SKG_RAWSZ] = {0};
	struct skg_lines *lines = malloc(sizeof(*lines));
	struct sink sink = {NULL, 0, 0, false};
	if (lines == NULL) {
		skg_loose_reader_free(r);
		return;
	}
	struct skg_loose_object obj;
	int st = skg_loose_parse(r, file, len, path, expect, on_stream, &sink, &obj, lines);
	check(st >= SKG_LOOSE_OK && st <= SKG_LOOSE_FATAL, "status range");
	check_lines(lines);
	check((st == SKG_LOOSE_OK) == (lines->count == 0), "lines iff not ok");
	if (st == SKG_LOOSE_FATAL) {
		check(lines->count == 1 && strncmp(lines->text, "fatal: ", 7) == 0, "fatal line");
	}
	if (obj.have_header) {
		check(obj.have_type && strlen(obj.type_name) == obj.type_len, "type name");
		check(obj.type == skg_type_from_name(obj.type_name, obj.type_len), "type");
	}
	if (obj.have_id) {
		uint8_t id[SKG_RAWSZ];
		if (obj.streamed) {
			check(obj.type == SKG_BLOB && obj.size > opt.big_file_threshold,
			      "streamed a non-big blob");
			if (!sink.overflow) {
				object_id(&obj, sink.buf, sink.len, id);
				check(memcmp(id, obj.id, SKG_RAWSZ) == 0, "streamed ID");
			}
		} else if (obj.content != NULL) {
			check(obj.content[obj.size] == 0, "content NUL");
			object_id(&obj, obj.content, (size_t)obj.size, id);
			check(memcmp(id, obj.id, SKG_RAWSZ) == 0, "content ID");
		}
		/* Again, as the object the ID names: no longer a corruption. */
		uint8_t real[SKG_RAWSZ], id2[SKG_RAWSZ];
		memcpy(real, obj.id, SKG_RAWSZ);
		bool streamed = obj.streamed;
		int again = skg_loose_parse(r, file, len, path, real, NULL, NULL, &obj, lines);
		check_lines(lines);
		check(again == SKG_LOOSE_OK || again == SKG_LOOSE_UNKNOWN_TYPE ||
		          again == SKG_LOOSE_COLLISION,
		      "the real ID is not accepted");
		check(obj.streamed == streamed && obj.have_id && memcmp(obj.id, real, SKG_RAWSZ) == 0,
		      "second read differs");
		if (again != SKG_LOOSE_COLLISION && !streamed) {
			check(obj.content != NULL, "no content for an accepted object");
			check(obj.content[obj.size] == 0, "content NUL (again)");
			object_id(&obj, obj.content, (size_t)obj.size, id2);
			check(memcmp(id2, real, SKG_RAWSZ) == 0, "content ID (again)");
		}
		/* what fsck accepts, git's parse_object of a ref reads too, whatever git knew of it; not
		 * so for blobs, which git streams: a stream giving more than the header's size does
		 * not match there, while fsck's read keeps the first `size` bytes */
		if (again == SKG_LOOSE_OK && obj.type != SKG_BLOB && obj.size < opt.max_size) {
			unsigned want = obj.type, got;
			for (unsigned known = SKG_NONE; known <= SKG_TAG; known++) {
				int rp = skg_loose_reparse(r, file, len, path, real, known, &got, NULL, NULL,
				                           lines);
				check(rp == SKG_REPARSE_OK && got == want && lines->count == 0,
				      "an accepted object does not read back as git's parse_object");
			}
		}
	}
	/* git's parse_object on the file as object `expect`, with each type git could know it by */
	for (unsigned known = SKG_NONE; known <= SKG_TAG; known++) {
		unsigned got;
		uint8_t *content;
		size_t clen;
		int rp = skg_loose_reparse(r, file, len, path, expect, known, &got, &content, &clen, lines);
		free(content);
		check(rp >= SKG_REPARSE_OK && rp <= SKG_REPARSE_DIES, "reparse status");
		check_lines(lines);
		if (rp == SKG_REPARSE_OK) {
			check(got >= SKG_COMMIT && got <= SKG_TAG && lines->count == 0, "reparse ok");
		} else if (rp == SKG_REPARSE_DIES) {
			const char *last = lines->text;
			for (const char *q = lines->text; *q != '\0'; q++) {
				if (q[0] == '\n' && q[1] != '\0') {
					last = q + 1;
				}
			}
			check(strncmp(last, "fatal: ", 7) == 0, "reparse dies without a fatal line");
		} else if (len == 0 && opt.empty_not_found) {
			check(strstr(lines->text, "error: object file ") != NULL &&
			          strstr(lines->text, " is empty") != NULL,
			      "reparse of an empty file without its line");
		} else {
			check(strstr(lines->text, "hash mismatch ") != NULL, "reparse mismatch line");
		}
	}
	free(sink.buf);
	free(lines);
	skg_loose_reader_free(r);
}

/*
 * A multi-pack-index's contents (midx.h) with its packs absent (none are added, so no pack is
 * read): the checks of the file itself, its fanout, OID order and pack-int-ids, sorting and
 * lookups. What the plain verify (status, lines) said comes first, unchanged, and the status
 * only gets worse; a fatal status ends with a "fatal: " line.
 */
static void fuzz_midx_contents(const uint8_t *file, size_t len, unsigned rawsz, unsigned git_version,
                               int plain, const struct skg_lines *plain_lines)
{
	struct skg_lines *lines = malloc(sizeof(*lines));
	if (lines == NULL) {
		return;
	}
	int st = skg_trailer_midx_buf_verify(file, len, FUZZ_OBJDIR, NULL, rawsz, git_version, lines);
	check(st >= SKG_TRAILER_OK && st <= SKG_TRAILER_FATAL && st != SKG_TRAILER_ABSENT, "midx status");
	check_lines(lines);
	check(st >= plain, "midx contents make the status better");
	check(lines->len >= plain_lines->len && memcmp(lines->text, plain_lines->text, plain_lines->len) == 0,
	      "midx contents change the lines before them");
	check((st == SKG_TRAILER_OK) == (lines->count == 0), "midx lines iff not ok");
	if (st == SKG_TRAILER_FATAL && !lines->nomem && !lines->truncated) {
		/* a fatal line can hold a newline of its own (a pack name): one line starts with it */
		check(strncmp(lines->text, "fatal: ", 7) == 0 || strstr(lines->text, "\nfatal: ") != NULL,
		      "midx fatal without a fatal line");
	}
	free(lines);
}

/* The file's halves as the two layers of an incremental multi-pack-index (git 2.55.0), each in a
 * buffer of its exact size: the same invariants as a single file's, in range and well-formed. */
static void fuzz_midx_chain(const uint8_t *file, size_t len, unsigned rawsz)
{
	size_t half = len / 2;
	size_t lens[2] = {half, len - half};
	uint8_t *base = malloc(lens[0] ? lens[0] : 1), *top = malloc(lens[1] ? lens[1] : 1);
	struct skg_lines *lines = malloc(sizeof(*lines));
	if (base != NULL && top != NULL && lines != NULL) {
		memcpy(base, file, lens[0]);
		memcpy(top, file + half, lens[1]);
		const uint8_t *layers[2] = {base, top};
		int st = skg_trailer_midx_chain_buf_verify(layers, lens, 2, FUZZ_OBJDIR, NULL, rawsz, lines);
		check(st >= SKG_TRAILER_OK && st <= SKG_TRAILER_FATAL && st != SKG_TRAILER_ABSENT,
		      "chain status");
		check_lines(lines);
		check((st == SKG_TRAILER_OK) == (lines->count == 0), "chain lines iff not ok");
	}
	free(lines);
	free(top);
	free(base);
}

static void fuzz_trailer(unsigned flags, const uint8_t *file, size_t len)
{
	struct skg_lines *lines = malloc(sizeof(*lines));
	if (lines == NULL) {
		return;
	}
	unsigned git_version = flags & 16 ? SKG_GIT_2_55 : SKG_GIT_2_39;
	unsigned rawsz = flags & 32 ? SKG_MAX_RAWSZ : SKG_RAWSZ;
	for (int mode = SKG_TRAILER_VERIFY; mode <= SKG_TRAILER_LOAD; mode++) {
		int st;
		if ((flags & 3) == 2) {
			/* both Gits' reading of the chunks (git 2.39.5; 2.43+ as 2.55.0) */
			st = skg_trailer_graph_buf(file, len, (enum skg_trailer_mode)mode, rawsz, git_version,
			                           lines);
		} else if (!(flags & 4)) {
			st = skg_trailer_midx_buf(file, len, FUZZ_OBJDIR "/pack/multi-pack-index",
			                          (enum skg_trailer_mode)mode, rawsz, git_version, lines);
		} else {
			st = skg_trailer_rev_buf(file, len, "objects/pack/pack-1.rev", rawsz,
			                         flags & 8 ? (int64_t)(len / 4) - 3 - (int64_t)rawsz / 2 : -1,
			                         lines);
		}
		check(st >= SKG_TRAILER_OK && st <= SKG_TRAILER_FATAL && st != SKG_TRAILER_ABSENT,
		      "trailer status");
		check_lines(lines);
		check((st == SKG_TRAILER_OK) == (lines->count == 0), "trailer lines iff not ok");
		if (st == SKG_TRAILER_OK && mode == SKG_TRAILER_VERIFY) {
			check(skg_trailer_checksum_ok(file, len, rawsz), "accepted with a bad checksum");
		}
		if (mode == SKG_TRAILER_VERIFY && (flags & 3) == 3 && !(flags & 4)) {
			fuzz_midx_contents(file, len, rawsz, git_version, st, lines);
			if ((flags & 64) && git_version == SKG_GIT_2_55) {
				fuzz_midx_chain(file, len, rawsz);
			}
		}
	}
	free(lines);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1) {
		return 0;
	}
	unsigned flags = data[0];
	size_t len = size - 1;
	/* An exact-size copy: ASan then catches any read past the end. */
	uint8_t *file = malloc(len ? len : 1);
	if (file == NULL) {
		return 0;
	}
	memcpy(file, data + 1, len);
	if ((flags & 3) >= 2) {
		fuzz_trailer(flags, file, len);
	} else if (flags & 16) {
		uLongf zlen = compressBound((uLong)len);
		uint8_t *z = malloc(zlen);
		if (z != NULL && compress(z, &zlen, file, (uLong)len) == Z_OK) {
			uint8_t *exact = realloc(z, zlen);
			z = exact != NULL ? exact : z;
			fuzz_loose(flags, z, zlen);
		}
		free(z);
	} else {
		fuzz_loose(flags, file, len);
	}
	free(file);
	return 0;
}
