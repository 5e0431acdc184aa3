/*
 * compat_git.c - the reference SHA-1DC API (<sha1dc/sha1.h>, libsha1detectcoll) used the way Git
 * uses it, plus the reference defaults, checked against the reference's recorded outputs.
 *
 * Usage: compat_git TESTDATA_DIR
 *
 * Uses nothing but <sha1dc/sha1.h> and the C library, so it builds against an installed copy:
 *   cc compat_git.c $(pkg-config --cflags --libs libsha1detectcoll)
 * (tests/compat/test_install.sh does that; tests/compat/tests.cmake also builds it in the tree).
 *
 * Checks:
 *  - sizeof and alignment of SHA1_CTX equal those of the reference's struct (its field types, in
 *    order, are restated below; 2400 bytes aligned to 8 on x86-64);
 *  - Git's use (git_SHA1DCInit = SHA1DCInit + SHA1DCSetSafeHash(ctx, 0); updates of many sizes;
 *    the context kept in malloc'd memory and cloned with memcpy mid-stream; SHA1DCFinal's return
 *    value) on every message of dc-vectors.txt (true SHA-1, reference flag) and on the attack
 *    corpus (flag set, true SHA-1 = the colliding digest);
 *  - the reference defaults (safe hash on) and reduced-round detection: the digests recorded from
 *    the reference in dc-vectors.txt and SOURCES.md;
 *  - UBC off and detection off; reuse of a context after SHA1DCFinal;
 *  - the callback: called once per flagged block with the block's offset, chaining values and
 *    expanded messages; the two blocks it describes really collide (checked with a textbook SHA-1
 *    compression here), and a memcpy copy of the context calls it too.
 *
 * Prints one line per failure and "N passed, M failed"; exits 1 on any failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha1dc/sha1.h>

static unsigned passed, failed;

static void check(int ok, const char *what, const char *detail)
{
	if (ok) {
		passed++;
	} else {
		failed++;
		printf("FAIL: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	}
}

/* The reference's SHA1_CTX field types in order (cr-marcstevens/sha1collisiondetection lib/sha1.h),
 * to compare size and alignment. */
struct reference_layout {
	uint64_t total;
	uint32_t ihv[5];
	unsigned char buffer[64];
	int found_collision;
	int safe_hash;
	int detect_coll;
	int ubc_check;
	int reduced_round_coll;
	collision_block_callback callback;
	uint32_t ihv1[5];
	uint32_t ihv2[5];
	uint32_t m1[80];
	uint32_t m2[80];
	uint32_t states[80][5];
};

/* ---- small helpers --------------------------------------------------------------------------- */

static void to_hex(const unsigned char *d, size_t n, char *out)
{
	static const char xd[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = xd[d[i] >> 4];
		out[2 * i + 1] = xd[d[i] & 15];
	}
	out[2 * n] = '\0';
}

static int from_hex(const char *s, unsigned char *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1) {
			return -1;
		}
		out[i] = (unsigned char)v;
	}
	return 0;
}

static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = malloc(cap);
	size_t got;
	while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			unsigned char *nb = realloc(buf, cap *= 2);
			if (nb == NULL) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

/* xorshift64 for chunk sizes; the seed is fixed and printed. */
static uint64_t rng_state = 0x5eed5eed12345678u;
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* ---- Git's wrappers (sha1dc_git.c), restated --------------------------------------------------- */

static void git_init(SHA1_CTX *ctx)
{
	SHA1DCInit(ctx);
	SHA1DCSetSafeHash(ctx, 0);
}

/* Feed `len` bytes in chunks: mode 0 one call, 1 byte by byte, 2 random sizes (0..200), 3 a
 * pattern of sizes around the block boundaries. */
static void feed(SHA1_CTX *ctx, const unsigned char *p, size_t len, int mode)
{
	static const size_t pattern[] = {0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 127, 128, 1000, 4096};
	size_t k = 0;
	while (len > 0) {
		size_t n;
		switch (mode) {
		case 0:
			n = len;
			break;
		case 1:
			n = 1;
			break;
		case 2:
			n = (size_t)(rng() % 201);
			break;
		default:
			n = pattern[k++ % (sizeof(pattern) / sizeof(pattern[0]))];
			break;
		}
		if (n > len) {
			n = len;
		}
		SHA1DCUpdate(ctx, (const char *)p, n);
		p += n;
		len -= n;
	}
	SHA1DCUpdate(ctx, NULL, 0);
}

enum setting { GIT, DEFAULTS, REDUCED_ROUND, NO_UBC, NO_DETECT };

static SHA1_CTX *new_ctx(enum setting s)
{
	SHA1_CTX *ctx = malloc(sizeof(*ctx)); /* Git keeps contexts in malloc'd structs */
	if (ctx == NULL) {
		perror("malloc");
		exit(2);
	}
	if (s == GIT) {
		git_init(ctx);
	} else {
		SHA1DCInit(ctx);
	}
	if (s == REDUCED_ROUND) {
		SHA1DCSetDetectReducedRoundCollision(ctx, 1);
	}
	if (s == NO_UBC) {
		SHA1DCSetUseUBC(ctx, 0);
	}
	if (s == NO_DETECT) {
		SHA1DCSetUseDetectColl(ctx, 0);
	}
	return ctx;
}

/* Hash msg with setting s and chunking mode; also clone the context at `split` with memcpy and
 * finish both. Checks both give `want_hex` and `want_flag`. */
static void hash_check(const char *label, const unsigned char *msg, size_t len, enum setting s, int mode,
                       size_t split, const char *want_hex, int want_flag)
{
	static const char *const names[] = {"git", "defaults", "reduced-round", "no-ubc", "no-detect"};
	unsigned char out[20], out2[20];
	char hex[41], hex2[41], what[200];
	SHA1_CTX *ctx = new_ctx(s);
	if (split > len) {
		split = len;
	}
	feed(ctx, msg, split, mode);
	SHA1_CTX *copy = malloc(sizeof(*copy));
	if (copy == NULL) {
		exit(2);
	}
	memcpy(copy, ctx, sizeof(*ctx));
	feed(ctx, msg + split, len - split, mode);
	int flag = SHA1DCFinal(out, ctx);
	memset(ctx, 0x5a, sizeof(*ctx)); /* the copy must not depend on the original's memory */
	free(ctx);
	feed(copy, msg + split, len - split, (mode + 1) % 4);
	int flag2 = SHA1DCFinal(out2, copy);
	to_hex(out, 20, hex);
	to_hex(out2, 20, hex2);
	snprintf(what, sizeof(what), "%s [%s, chunking %d, copy at %zu]", label, names[s], mode, split);
	char detail[200];
	snprintf(detail, sizeof(detail), "got %s flag %d, copy %s flag %d; want %s flag %d", hex, flag, hex2,
	         flag2, want_hex, want_flag);
	check(strcmp(hex, want_hex) == 0 && flag == want_flag && strcmp(hex2, want_hex) == 0 &&
	          flag2 == want_flag,
	      what, detail);
	free(copy);
}

/* ---- dc-vectors.txt ----------------------------------------------------------------------------- */

static void test_vectors(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/dc-vectors.txt", dir);
	FILE *f = fopen(path, "r");
	check(f != NULL, "open dc-vectors.txt", path);
	if (f == NULL) {
		return;
	}
	size_t cap = 1 << 20;
	char *line = malloc(cap);
	unsigned lines = 0;
	while (line != NULL && fgets(line, (int)cap, f) != NULL) {
		if (line[0] == '#' || line[0] == '\n') {
			continue;
		}
		char label[64], msghex[40000], sha1[41], digest[41], digest_rr[41];
		int flag, flag_rr;
		size_t len;
		if (sscanf(line, "%63s %zu %39999s %40s %d %40s %d %40s", label, &len, msghex, sha1, &flag,
		           digest, &flag_rr, digest_rr) != 8 ||
		    len > sizeof(msghex) / 2) {
			check(0, "parse dc-vectors.txt line", label);
			continue;
		}
		unsigned char *msg = malloc(len + 1);
		if (msg == NULL || (len > 0 && from_hex(msghex, msg, len) != 0)) {
			check(0, "hex in dc-vectors.txt", label);
			free(msg);
			continue;
		}
		size_t split = len ? (size_t)(rng() % (len + 1)) : 0;
		int mode = (int)(lines % 4);
		/* Git: true SHA-1 and the reference's flag. */
		hash_check(label, msg, len, GIT, mode, split, sha1, flag);
		/* Reference defaults: the safe hash. */
		hash_check(label, msg, len, DEFAULTS, (mode + 1) % 4, len / 2, digest, flag);
		hash_check(label, msg, len, REDUCED_ROUND, (mode + 2) % 4, split, digest_rr, flag_rr);
		if (lines % 8 == 0) {
			hash_check(label, msg, len, NO_UBC, mode, split, digest, flag);
			hash_check(label, msg, len, NO_DETECT, mode, split, sha1, 0);
		}
		free(msg);
		lines++;
	}
	free(line);
	fclose(f);
	check(lines == 503, "dc-vectors.txt has the 503 messages", NULL);
}

/* ---- the attack corpus (values of SOURCES.md) ----------------------------------------------------- */

struct corpus_file {
	const char *name;
	const char *sha1;     /* plain SHA-1 = Git's digest (safe hash off) */
	int flag;             /* reference defaults */
	const char *safe;     /* reference defaults: safe hash */
	const char *safe_rr;  /* reduced-round detection on (flag always 1) */
	uint64_t flag_offset; /* offset of the block flagged with the defaults */
};

static const struct corpus_file corpus[] = {
    {"shattered-1.pdf", "38762cf7f55934b34d179ae6a4c80cadccbb7f0a", 1,
     "16e96b70000dd1e7c85b8368ee197754400e58ec", "d3a1d09969c3b57113fd17b23e01dd3de74a99bb", 256},
    {"shattered-2.pdf", "38762cf7f55934b34d179ae6a4c80cadccbb7f0a", 1,
     "e1761773e6a35916d99f891b77663e6405313587", "92246b0b718f4c704d37bb025717cbc66babf102", 256},
    {"sha-mbles-1.bin", "8ac60ba76f1999a1ab70223f225aefdc78d4ddc0", 1,
     "4f3d9be4a472c4dae83c6314aa6c36a064c1fd14", "4f3d9be4a472c4dae83c6314aa6c36a064c1fd14", 576},
    {"sha-mbles-2.bin", "8ac60ba76f1999a1ab70223f225aefdc78d4ddc0", 1,
     "9ed5d77a4f48be1dbf3e9e15650733eb850897f2", "9ed5d77a4f48be1dbf3e9e15650733eb850897f2", 576},
    {"sha1_reducedsha_coll.bin", "a56374e1cf4c3746499bc7c0acb39498ad2ee185", 0,
     "a56374e1cf4c3746499bc7c0acb39498ad2ee185", "dd39885a2a5d8f59030b451e00cb45da9f9d3828", 0},
};

/* Textbook SHA-1 compression of an expanded message W[0..79] into ihv (FIPS 180-4, 6.1.2). */
static uint32_t rotl(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

static void compress_w(uint32_t ihv[5], const uint32_t W[80])
{
	uint32_t a = ihv[0], b = ihv[1], c = ihv[2], d = ihv[3], e = ihv[4];
	for (int t = 0; t < 80; t++) {
		uint32_t f, k;
		if (t < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999u;
		} else if (t < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1u;
		} else if (t < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdcu;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6u;
		}
		uint32_t tmp = rotl(a, 5) + f + e + k + W[t];
		e = d;
		d = c;
		c = rotl(b, 30);
		b = a;
		a = tmp;
	}
	ihv[0] += a;
	ihv[1] += b;
	ihv[2] += c;
	ihv[3] += d;
	ihv[4] += e;
}

/* What the callback saw. */
static struct {
	int calls;
	uint64_t offset;
	int expansion_ok, block_ok, collides, partner_differs;
} cb;
static const unsigned char *cb_msg; /* the message being hashed, to check m1 against its block */
static size_t cb_len;

static void callback(uint64_t offset, const uint32_t *ihv1, const uint32_t *ihv2, const uint32_t *m1,
                     const uint32_t *m2)
{
	cb.calls++;
	cb.offset = offset;
	cb.expansion_ok = 1;
	for (int t = 16; t < 80; t++) {
		if (m1[t] != rotl(m1[t - 3] ^ m1[t - 8] ^ m1[t - 14] ^ m1[t - 16], 1) ||
		    m2[t] != rotl(m2[t - 3] ^ m2[t - 8] ^ m2[t - 14] ^ m2[t - 16], 1)) {
			cb.expansion_ok = 0;
		}
	}
	cb.block_ok = offset + 64 <= cb_len;
	for (int t = 0; t < 16 && cb.block_ok; t++) {
		const unsigned char *p = cb_msg + offset + 4 * (uint64_t)t;
		uint32_t w = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		cb.block_ok = w == m1[t];
	}
	uint32_t out1[5], out2[5];
	memcpy(out1, ihv1, sizeof(out1));
	memcpy(out2, ihv2, sizeof(out2));
	compress_w(out1, m1);
	compress_w(out2, m2);
	cb.collides = memcmp(out1, out2, sizeof(out1)) == 0;
	cb.partner_differs =
	    memcmp(ihv1, ihv2, 5 * sizeof(uint32_t)) != 0 && memcmp(m1, m2, 80 * sizeof(uint32_t)) != 0;
}

static void test_corpus(const char *dir)
{
	for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
		const struct corpus_file *c = &corpus[i];
		char path[4096];
		size_t len;
		snprintf(path, sizeof(path), "%s/%s", dir, c->name);
		unsigned char *msg = read_file(path, &len);
		check(msg != NULL, "read corpus file (see SOURCES.md)", path);
		if (msg == NULL) {
			continue;
		}
		/* Git: the true SHA-1, and SHA1DCFinal says "collision" (Git then dies). */
		hash_check(c->name, msg, len, GIT, 3, 300, c->sha1, c->flag);
		hash_check(c->name, msg, len, GIT, 0, 0, c->sha1, c->flag);
		hash_check(c->name, msg, len, DEFAULTS, 0, 100, c->safe, c->flag);
		hash_check(c->name, msg, len, DEFAULTS, 2, len - 1, c->safe, c->flag);
		hash_check(c->name, msg, len, REDUCED_ROUND, 3, 200, c->safe_rr, 1);
		hash_check(c->name, msg, len, NO_UBC, 0, 64, c->safe, c->flag);
		hash_check(c->name, msg, len, NO_DETECT, 0, 64, c->sha1, 0);

		/* The callback, set on a Git-style context, and on a memcpy copy made before the attack. */
		if (c->flag) {
			SHA1_CTX *ctx = new_ctx(GIT), copy;
			unsigned char out[20];
			SHA1DCSetCallback(ctx, callback);
			SHA1DCUpdate(ctx, (const char *)msg, 100);
			memcpy(&copy, ctx, sizeof(copy));
			cb_msg = msg;
			cb_len = len;
			for (int round = 0; round < 2; round++) {
				SHA1_CTX *x = round == 0 ? ctx : &copy;
				memset(&cb, 0, sizeof(cb));
				SHA1DCUpdate(x, (const char *)msg + 100, len - 100);
				int flag = SHA1DCFinal(out, x);
				char what[200];
				snprintf(what, sizeof(what), "%s: callback %s", c->name,
				         round ? "of the copy" : "");
				check(flag == 1 && cb.calls == 1, what, "called once on a flagged message");
				check(cb.offset == c->flag_offset, what, "offset of the flagged block");
				check(cb.expansion_ok && cb.block_ok, what,
				      "m1 is the expanded block, m2 an expansion");
				check(cb.collides && cb.partner_differs, what,
				      "the block and its partner (ihvin2, m2) are a different pair with the "
				      "same output");
			}
			/* No callback after SHA1DCSetCallback(ctx, NULL). */
			SHA1DCSetCallback(ctx, NULL);
			memset(&cb, 0, sizeof(cb));
			SHA1DCUpdate(ctx, (const char *)msg, len);
			check(SHA1DCFinal(out, ctx) == 1 && cb.calls == 0, c->name,
			      "no callback once cleared");
			free(ctx);
		}
		free(msg);
	}
}

/* ---- smaller things -------------------------------------------------------------------------------- */

static void test_misc(void)
{
	/* sizeof and alignment: the reference's, so that its callers' structs keep their layout. */
	check(sizeof(SHA1_CTX) == sizeof(struct reference_layout), "sizeof(SHA1_CTX) equals the reference's",
	      NULL);
	check(_Alignof(SHA1_CTX) == _Alignof(struct reference_layout),
	      "_Alignof(SHA1_CTX) equals the reference's", NULL);
#if defined(__x86_64__) && defined(__LP64__)
	check(sizeof(SHA1_CTX) == 2400 && _Alignof(SHA1_CTX) == 8,
	      "SHA1_CTX is 2400 bytes aligned to 8 on x86-64", NULL);
#endif
	printf("sizeof(SHA1_CTX) = %zu, _Alignof(SHA1_CTX) = %zu\n", sizeof(SHA1_CTX),
	       (size_t) _Alignof(SHA1_CTX));

	/* FIPS 180-4 examples; a million 'a' in 1000-byte updates. */
	static const unsigned char abc[] = "abc";
	hash_check("abc", abc, 3, GIT, 0, 1, "a9993e364706816aba3e25717850c26c9cd0d89d", 0);
	unsigned char *a = malloc(1000000);
	if (a != NULL) {
		memset(a, 'a', 1000000);
		hash_check("million a", a, 1000000, GIT, 3, 500000,
		           "34aa973cd4c4daa4f61eeb2bdbad27316534016f", 0);
		free(a);
	}

	/* After SHA1DCFinal the context starts a new message with the same settings (sha1kit). */
	SHA1_CTX ctx;
	unsigned char out[20];
	char hex[41];
	git_init(&ctx);
	SHA1DCUpdate(&ctx, "xyz", 3);
	SHA1DCFinal(out, &ctx);
	SHA1DCUpdate(&ctx, "abc", 3);
	int flag = SHA1DCFinal(out, &ctx);
	to_hex(out, 20, hex);
	check(flag == 0 && strcmp(hex, "a9993e364706816aba3e25717850c26c9cd0d89d") == 0,
	      "reuse after SHA1DCFinal", hex);

	/* Assignment copies a context too. */
	SHA1_CTX c1, c2;
	git_init(&c1);
	SHA1DCUpdate(&c1, "ab", 2);
	c2 = c1;
	SHA1DCUpdate(&c1, "c", 1);
	SHA1DCUpdate(&c2, "c", 1);
	unsigned char o1[20], o2[20];
	SHA1DCFinal(o1, &c1);
	SHA1DCFinal(o2, &c2);
	check(memcmp(o1, o2, 20) == 0 && memcmp(o1, out, 20) == 0, "copy by assignment", NULL);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s TESTDATA_DIR\n", argv[0]);
		return 2;
	}
	printf("chunk-size seed: 0x%016llx\n", (unsigned long long)rng_state);
	test_misc();
	test_corpus(argv[1]);
	test_vectors(argv[1]);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
