/*
 * git_replay.c - sha1kit-git-replay: Git's SHA-1 call pattern on one or more builds of
 * libsha1detectcoll.so.1 (and OpenSSL's unchecked SHA-1), alternated in one process.
 *
 * Git hashes an object with the reference API: SHA1DCInit, SHA1DCSetSafeHash(ctx, 0), an update of
 * the header ("blob 1234" and its NUL), one update of the content (index-pack and fsck inflate it
 * whole into a buffer first, so it is in the cache), SHA1DCFinal. This program does the same for
 * every object of a `git cat-file --batch` stream (or, without one, for random objects whose sizes
 * follow the v2.50.0 pack of Git's history: docs/PERFORMANCE.md, "Git against sha1kit"), copying each
 * object's content into one reused buffer first, as Git's inflate leaves it. Each library named by
 * --lib is loaded into a namespace of its own (dlmopen), so two builds with the same SONAME can be
 * compared in one process; the passes alternate library by library, and a pass that only copies
 * gives the part of each figure that is not hashing. Reported: the median and minimum thread CPU
 * time of the passes, ns per 64-byte block, and the ratio to OpenSSL's EVP SHA-1 net of the copy.
 * Every pass's digests are folded into a checksum, which must agree across libraries.
 *
 * Linux only (dlmopen, CLOCK_THREAD_CPUTIME_ID). A benchmark, not a test: it asserts nothing but
 * that the digests agree.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if SHA1KIT_REPLAY_OPENSSL
#include <openssl/evp.h>
#endif

#include "sha1dc/sha1.h"

typedef struct replay_lib {
	const char *path;
	void (*init)(SHA1_CTX *);
	void (*set_safe_hash)(SHA1_CTX *, int);
	void (*update)(SHA1_CTX *, const char *, size_t);
	int (*final)(unsigned char *, SHA1_CTX *);
} replay_lib;

typedef struct object {
	const uint8_t *data;
	size_t size;
	char header[32];
	size_t header_len;
} object;

static object *objects;
static size_t n_objects;
static uint64_t total_bytes;
static uint8_t *hot; /* the buffer each object is copied into before it is hashed */

static double thread_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint32_t fold(uint32_t acc, const unsigned char d[20], int flag)
{
	uint32_t w;
	memcpy(&w, d, sizeof(w));
	return (acc ^ w ^ (uint32_t)flag) * UINT32_C(0x9e3779b1) + 1u;
}

static uint32_t pass_dc(const replay_lib *lib)
{
	SHA1_CTX ctx;
	unsigned char d[20];
	uint32_t acc = 0;
	for (size_t i = 0; i < n_objects; i++) {
		const object *o = &objects[i];
		memcpy(hot, o->data, o->size);
		lib->init(&ctx);
		lib->set_safe_hash(&ctx, 0);
		lib->update(&ctx, o->header, o->header_len);
		lib->update(&ctx, (const char *)hot, o->size);
		int flag = lib->final(d, &ctx);
		acc = fold(acc, d, flag);
	}
	return acc;
}

#if SHA1KIT_REPLAY_OPENSSL
static uint32_t pass_openssl(void)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	const EVP_MD *md = EVP_sha1();
	unsigned char d[20];
	unsigned len;
	uint32_t acc = 0;
	for (size_t i = 0; i < n_objects; i++) {
		const object *o = &objects[i];
		memcpy(hot, o->data, o->size);
		EVP_DigestInit_ex(ctx, md, NULL);
		EVP_DigestUpdate(ctx, o->header, o->header_len);
		EVP_DigestUpdate(ctx, hot, o->size);
		EVP_DigestFinal_ex(ctx, d, &len);
		acc = fold(acc, d, 0);
	}
	EVP_MD_CTX_free(ctx);
	return acc;
}
#endif

static uint32_t pass_copy(void)
{
	uint32_t acc = 0;
	for (size_t i = 0; i < n_objects; i++) {
		memcpy(hot, objects[i].data, objects[i].size);
		acc += hot[objects[i].size / 2];
	}
	return acc;
}

/* A function of the library (dlsym's object pointer to a function pointer, as POSIX allows). */
static void sym(void *h, const char *name, void *fn, size_t size)
{
	void *p = dlsym(h, name);
	if (p == NULL) {
		fprintf(stderr, "sha1kit-git-replay: no %s in the library\n", name);
		exit(1);
	}
	memcpy(fn, &p, size);
}

static void load_lib(replay_lib *lib, const char *path)
{
	void *h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "sha1kit-git-replay: %s\n", dlerror());
		exit(1);
	}
	lib->path = path;
	sym(h, "SHA1DCInit", &lib->init, sizeof(lib->init));
	sym(h, "SHA1DCSetSafeHash", &lib->set_safe_hash, sizeof(lib->set_safe_hash));
	sym(h, "SHA1DCUpdate", &lib->update, sizeof(lib->update));
	sym(h, "SHA1DCFinal", &lib->final, sizeof(lib->final));
}

static void add_object(const char *type, const uint8_t *data, size_t size)
{
	static size_t cap;
	if (n_objects == cap) {
		cap = cap ? 2 * cap : 4096;
		objects = realloc(objects, cap * sizeof(*objects));
		if (objects == NULL) {
			perror("sha1kit-git-replay");
			exit(1);
		}
	}
	object *o = &objects[n_objects++];
	o->data = data;
	o->size = size;
	o->header_len = (size_t)snprintf(o->header, sizeof(o->header), "%s %zu", type, size) + 1;
	total_bytes += size;
}

/* `git cat-file --batch` output: "<oid> <type> <size>\n<content>\n" per object. */
static void read_batch(const char *path)
{
	FILE *f = fopen(path, "rb");
	long len;
	uint8_t *buf;
	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		perror(path);
		exit(1);
	}
	buf = malloc((size_t)len + 1);
	if (buf == NULL || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		perror(path);
		exit(1);
	}
	fclose(f);
	buf[len] = 0;
	for (size_t pos = 0; pos < (size_t)len;) {
		char oid[72], type[16];
		size_t size;
		const uint8_t *nl = memchr(buf + pos, '\n', (size_t)len - pos);
		if (nl == NULL || sscanf((const char *)buf + pos, "%71s %15s %zu", oid, type, &size) != 3 ||
		    size > (size_t)len - (size_t)(nl + 1 - buf)) {
			fprintf(stderr, "%s: not `git cat-file --batch` output at byte %zu\n", path, pos);
			exit(1);
		}
		add_object(type, nl + 1, size);
		pos = (size_t)(nl + 1 - buf) + size + 1;
	}
}

/*
 * Random objects with the sizes of the v2.50.0 pack (380,053 objects, every object as index-pack
 * hashes it, counted by the number of 64-byte blocks of header + content, as traced from Git's calls):
 * objects with 2^k .. 2^(k+1) - 1 blocks, per 10,000, for k = 0 .. 13 (no object had more).
 */
static const unsigned size_mix[14] = {63, 101, 697, 1408, 689, 672, 883, 2323, 1501, 1122, 402, 104, 19, 15};

static void random_objects(size_t count, uint64_t seed)
{
	uint64_t s = seed ? seed : 1;
	unsigned total = 0;
	size_t longest = 0;
	for (int k = 0; k < 14; k++)
		total += size_mix[k];
	for (size_t i = 0; i < count; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		unsigned r = (unsigned)(s % total), k = 0;
		while (r >= size_mix[k])
			r -= size_mix[k++];
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		size_t lo = (size_t)1 << k, blocks = lo + (size_t)(s % lo);
		size_t size =
		    64 * blocks - 16 + (size_t)(s >> 40) % 64; /* with its header, `blocks` blocks */
		add_object("blob", NULL, size);
		if (size > longest)
			longest = size;
	}
	/* all objects read from one random buffer (the content does not change the work) */
	uint8_t *buf = malloc(longest);
	if (buf == NULL) {
		perror("sha1kit-git-replay");
		exit(1);
	}
	for (size_t i = 0; i < longest; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		buf[i] = (uint8_t)(s >> 32);
	}
	for (size_t i = 0; i < n_objects; i++)
		objects[i].data = buf;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void usage(FILE *to)
{
	fprintf(to, "usage: sha1kit-git-replay [--batch FILE | --objects N [--seed S]] [--passes N] "
	            "--lib PATH [--lib PATH ...]\n"
	            "  --batch FILE  objects from `git cat-file --batch` output (else random objects)\n"
	            "  --objects N   that many random objects with the v2.50.0 pack's sizes (default "
	            "40000)\n"
	            "  --passes N    passes per library (default 7, alternating)\n"
	            "  --lib PATH    a libsha1detectcoll.so.1 to measure (up to 8)\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"batch", required_argument, NULL, 'b'},
	                                     {"objects", required_argument, NULL, 'n'},
	                                     {"seed", required_argument, NULL, 's'},
	                                     {"passes", required_argument, NULL, 'p'},
	                                     {"lib", required_argument, NULL, 'l'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	replay_lib libs[8];
	int n_libs = 0, passes = 7, c;
	const char *batch = NULL;
	size_t count = 40000, longest = 0;
	uint64_t seed = 0x9e3779b97f4a7c15u;

	while ((c = getopt_long(argc, argv, "b:n:s:p:l:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			batch = optarg;
			break;
		case 'n':
			count = strtoul(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'p':
			passes = atoi(optarg);
			break;
		case 'l':
			if (n_libs == 8) {
				usage(stderr);
				return 1;
			}
			load_lib(&libs[n_libs++], optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (n_libs == 0 || passes < 1 || passes > 99 || optind != argc) {
		usage(stderr);
		return 1;
	}
	if (batch)
		read_batch(batch);
	else
		random_objects(count, seed);
	for (size_t i = 0; i < n_objects; i++)
		longest = objects[i].size > longest ? objects[i].size : longest;
	hot = calloc(longest + 1, 1);
	if (hot == NULL) {
		perror("sha1kit-git-replay");
		return 1;
	}

	enum { MAX_ROWS = 10 };
	const char *names[MAX_ROWS];
	double t[MAX_ROWS][100];
	uint32_t check[MAX_ROWS];
	int rows = 0;
	for (int i = 0; i < n_libs; i++)
		names[rows++] = libs[i].path;
#if SHA1KIT_REPLAY_OPENSSL
	int openssl_row = rows;
	names[rows++] = "openssl-evp (no detection)";
#else
	int openssl_row = -1;
#endif
	int copy_row = rows;
	names[rows++] = "copy only";

	for (int p = 0; p < passes; p++) {
		for (int r = 0; r < rows; r++) {
			double t0 = thread_seconds();
			if (r < n_libs)
				check[r] = pass_dc(&libs[r]);
#if SHA1KIT_REPLAY_OPENSSL
			else if (r == openssl_row)
				check[r] = pass_openssl();
#endif
			else
				check[r] = pass_copy();
			t[r][p] = thread_seconds() - t0;
		}
	}
	printf("%zu objects, %" PRIu64 " bytes, %d passes each (thread CPU time)\n", n_objects, total_bytes,
	       passes);
	double copy, openssl = 0;
	qsort(t[copy_row], (size_t)passes, sizeof(double), cmp_double);
	copy = t[copy_row][passes / 2];
	for (int r = 0; r < rows; r++) {
		double *s = t[r];
		if (r != copy_row)
			qsort(s, (size_t)passes, sizeof(double), cmp_double);
		if (r == openssl_row)
			openssl = s[passes / 2] - copy;
	}
	int bad = 0;
	for (int r = 0; r < rows; r++) {
		double med = t[r][passes / 2];
		printf("%-60s median %.4f s  min %.4f s  %.2f ns/block", names[r], med, t[r][0],
		       1e9 * (med - (r == copy_row ? 0 : copy)) / ((double)total_bytes / 64));
		if (openssl > 0 && r != copy_row)
			printf("  %.3fx openssl", openssl / (med - copy));
		if (r != copy_row && check[r] != check[0]) {
			printf("  DIGESTS DIFFER");
			bad = 1;
		}
		printf("\n");
	}
	return bad;
}
