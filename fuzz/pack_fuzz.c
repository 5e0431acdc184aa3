/*
 * pack_fuzz.c - libFuzzer target: the pack engine of the Git layer (src/git/pack.c), which
 * `sha1kit index-pack` runs, on in-memory packs.
 *
 * Input: byte 0 = flags (bit 0 --strict: with git's object checks and link checks of
 * pack_strict.c as the object callback, bit 1 two resolver threads, bit 2 keep the trailer as
 * given, bit 3 the strict checks of Git 2.39.5 rather than 2.55.0's, bit 4 a SHA-256 pack: 32-byte IDs,
 * REF_DELTA bases and trailer, the object checks of --strict on SHA-256 IDs), the rest = the pack.
 * Unless bit 2 is set the trailer (last 20 or 32 bytes) is recomputed, so that mutations reach the object,
 * zlib and delta code
 * instead of stopping at the checksum. The base cache is tiny (4 KiB), so eviction and the rebuilding of
 * bases from the pack run all the time; objects are limited to 1 MiB. A pack that is accepted must give
 * consistent results: every object typed, delta depths and bases coherent, and the idx files of versions 1
 * and 2 (and with a 64-bit offset table) well formed, with skg_pk_idx_params recovering the parameters they
 * were built with. Every object of an accepted pack is then read back through each idx (skg_pk_idx_find,
 * skg_pk_read_object) and must hash to its ID, and git's reader (skg_pk_git_unpack) must read it the same
 * without an error line; a rejected pack is read from offset 12 without an idx by both, which must
 * fail or succeed cleanly. git's first pass (skg_pack_git_refusal) must take every pack the
 * engine takes, and give a line wherever it refuses one.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"
#include "pack_cache.h"
#include "sha1kit/git_pack.h"
#include "pack_strict.h"
#include "sha1kit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "pack_fuzz: invariant failed: %s\n", what);
		abort();
	}
}

static void count_line(void *ctx, const char *text)
{
	check(text[0] != '\0' && strlen(text) < 512, "empty or overlong line");
	(*(unsigned *)ctx)++;
}

static bool no_base_id(void *ctx, uint64_t offset, uint8_t *id)
{
	(void)ctx;
	(void)offset;
	(void)id;
	return false;
}

/* Every object through the idx: found at its offset, read whole, with the ID it has in the pack. */
static void check_reads(const struct skg_pk_pack *pack, const uint8_t *idx, size_t len)
{
	const unsigned rawsz = pack->rawsz;
	check(skg_pk_idx_count(idx, len) == pack->nr, "idx count");
	/* git's reader through a base cache of 4 KiB as well, kept across the objects (fsck's read of
	 * a damaged pack): each read must give what the uncached one gives */
	struct skg_pk_cache gcache;
	check(skg_pk_cache_init(&gcache, 4096) == 0, "cache");
	const struct skg_pk_base_cache giface = skg_pk_cache_iface(&gcache);
	for (uint32_t i = 0; i < pack->nr; i++) {
		const struct skg_pk_object *o = &pack->objs[i];
		uint64_t off;
		check(skg_pk_idx_find_as(idx, len, rawsz, o->id, &off), "object not found through the idx");
		if (off != o->offset) {
			continue; /* a duplicate object: the idx lists one of its copies */
		}
		unsigned type;
		uint8_t *content;
		uint64_t n;
		struct skg_pk_error err;
		check(skg_pk_read_object_cached(pack->data, pack->len, idx, len, rawsz, off,
		                                (uint64_t)1 << 20, NULL, &type, &content, &n, &err) == 0,
		      "object of an accepted pack not readable through its idx");
		check(type == o->real_type, "type read differs");
		static const char *const names[] = {"", "commit", "tree", "blob", "tag"};
		char hdr[32];
		int h = snprintf(hdr, sizeof(hdr), "%s %llu", names[type], (unsigned long long)n);
		uint8_t id[SKG_MAX_RAWSZ];
		if (rawsz == SKG_MAX_RAWSZ) {
			sha1kit_sha256_ctx c;
			sha1kit_sha256_init(&c);
			sha1kit_sha256_update(&c, hdr, (size_t)h + 1);
			sha1kit_sha256_update(&c, content, (size_t)n);
			sha1kit_sha256_final(&c, id);
		} else {
			sha1kit_fast_ctx c;
			sha1kit_fast_init(&c);
			sha1kit_fast_update(&c, hdr, (size_t)h + 1);
			sha1kit_fast_update(&c, content, (size_t)n);
			sha1kit_fast_final(&c, id);
		}
		check(memcmp(id, o->id, rawsz) == 0, "object read through the idx has another ID");
		unsigned gtype, lines = 0;
		uint8_t *gcontent;
		uint64_t gn;
		for (int cached = 0; cached < 2; cached++) {
			check(skg_pk_git_unpack(pack->data, pack->len, idx, len, rawsz, off, true,
			                        (uint64_t)1 << 24, cached ? &giface : NULL, "p.pack",
			                        no_base_id, count_line, NULL, &lines, &gtype, &gcontent,
			                        &gn) == 0 &&
			          lines == 0,
			      "git's reader fails on an object of an accepted pack");
			check(gtype == type && gn == n && memcmp(gcontent, content, (size_t)n) == 0,
			      "git's reader reads another object");
			free(gcontent);
		}
		free(content);
	}
	skg_pk_cache_release(&gcache);
}

/* A SHA-256 pack's idx: every object listed, in ID order, at its offset. */
static void check_entries(const struct skg_pk_pack *pack, const uint8_t *idx, size_t len)
{
	check(skg_pk_idx_count(idx, len) == pack->nr, "idx count");
	const uint8_t *prev = NULL;
	for (uint32_t k = 0; k < pack->nr; k++) {
		const uint8_t *id;
		uint64_t off;
		check(skg_pk_idx_entry_as(idx, len, pack->rawsz, k, &id, &off), "idx entry");
		check(prev == NULL || memcmp(prev, id, pack->rawsz) <= 0, "idx not in ID order");
		prev = id;
		bool found = false;
		for (uint32_t i = 0; i < pack->nr && !found; i++) {
			found = pack->objs[i].offset == off && memcmp(pack->objs[i].id, id, pack->rawsz) == 0;
		}
		check(found, "idx entry not an object of the pack");
	}
}

static void check_idx(const struct skg_pk_pack *pack, unsigned version, uint64_t limit)
{
	uint8_t *idx;
	size_t len;
	struct skg_pk_error err;
	const size_t rawsz = pack->rawsz;
	check(skg_pk_idx_build(pack, version, limit, false, &idx, &len, &err) == 0, "idx build failed");
	/* as git: version 2 when the last object needs a large offset */
	uint64_t last = pack->nr > 0 ? pack->objs[pack->nr - 1].offset : 0;
	if (version == 1 && (last >> 31 != 0 || last > limit)) {
		version = 2;
	}
	size_t min = version == 1 ? 1024 + (size_t)pack->nr * (rawsz + 4) + 2 * rawsz
	                          : 8 + 1024 + (size_t)pack->nr * (rawsz + 8) + 2 * rawsz;
	check(len >= min, "idx too short");
	uint8_t sum[SKG_MAX_RAWSZ];
	if (rawsz == SKG_MAX_RAWSZ) {
		sha1kit_sha256(idx, len - rawsz, sum);
	} else {
		sha1kit_fast(idx, len - rawsz, sum);
	}
	check(memcmp(sum, idx + len - rawsz, rawsz) == 0, "idx checksum");
	check(memcmp(pack->checksum, idx + len - 2 * rawsz, rawsz) == 0, "pack checksum in idx");
	unsigned v;
	uint64_t l;
	skg_pk_idx_params_as(idx, len, (unsigned)rawsz, &v, &l);
	check(v == version, "idx version not recovered");
	check_reads(pack, idx, len);
	if (rawsz != SKG_RAWSZ) {
		check_entries(pack, idx, len);
	}
	if (version == 2 && len > min) {
		/* The 64-bit table is used: the limit recovered must give the same file. */
		uint8_t *again;
		size_t again_len;
		check(skg_pk_idx_build(pack, v, l, false, &again, &again_len, &err) == 0, "rebuild");
		check(again_len == len && memcmp(again, idx, len) == 0,
		      "idx not reproduced from its parameters");
		free(again);
	}
	free(idx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1) {
		return 0;
	}
	unsigned flags = data[0];
	size_t len = size - 1;
	/* An exact-size copy: ASan then catches any read past the end. */
	uint8_t *buf = malloc(len ? len : 1);
	if (buf == NULL) {
		return 0;
	}
	memcpy(buf, data + 1, len);
	const bool sha256 = flags & 16;
	const unsigned format = sha256 ? SKG_FORMAT_SHA256 : SKG_FORMAT_SHA1;
	if (!(flags & 4) && len >= (sha256 ? 12 + 32u : 12 + 20u)) {
		if (sha256) {
			sha1kit_sha256(buf, len - 32, buf + len - 32);
		} else {
			sha1kit_fast(buf, len - 20, buf + len - 20);
		}
	}

	struct skg_pk_options opt;
	skg_pk_options_default(&opt);
	opt.format = format;
	opt.strict = (flags & 1) != 0;
	opt.threads = (flags & 2) ? 2 : 1;
	opt.cache_limit = 4096;
	opt.max_object_size = 1 << 20;
	struct skg_pk_pack pack;
	struct skg_pk_error err;
	struct skg_strict *strict = NULL;
	if (opt.strict) {
		/* index-pack --strict: the checks run as the objects come (no repository, no sink) */
		struct skg_error e;
		unsigned git_version = (flags & 8) ? SKG_GIT_2_39 : SKG_GIT_2_55;
		if (skg_strict_new(&strict, &pack, sha256 ? SKG_MAX_RAWSZ : SKG_RAWSZ, NULL, NULL, false,
		                   git_version, NULL, &e) != 0) {
			free(buf);
			return 0;
		}
		opt.object = skg_strict_object;
		opt.object_ctx = strict;
		opt.whole_blobs = true;
	}
	int indexed = skg_pk_index_pack(&pack, buf, len, &opt, &err);
	if (indexed == 0 && strict != NULL) {
		struct skg_error e;
		if (skg_strict_links(strict, &e) == 0) {
			check(skg_strict_finish(strict, true, &e) == 0 || e.code == SKG_E_GIT,
			      "strict finish");
		} else {
			check(e.code == SKG_E_GIT && e.msg[0] != '\0', "strict links: git's message");
		}
	} else if (strict != NULL && err.code == SKG_E_GIT) {
		struct skg_error e;
		skg_strict_error(strict, &e);
		check(e.code == SKG_E_GIT && e.msg[0] != '\0', "strict checks: git's message");
	}
	skg_strict_free(strict);
	/* git's first pass (pack_refusal.c) takes every pack the engine takes; on the others it
	 * says why or takes them too (a fault after its first pass), within its buffers */
	struct skg_pack_refusal refusal;
	for (unsigned v = 0; v < 2; v++) {
		bool refused =
		    skg_pack_git_refusal(buf, len, true, v ? SKG_GIT_2_39 : SKG_GIT_2_55, format, &refusal);
		/* but 2.55's limit on the size varint (shift past 57), which the engine reads on */
		check(indexed != 0 || !refused ||
		          (v == 0 && strcmp(refusal.fatal, "object size too large for this platform") == 0),
		      "git's first pass refuses a pack the engine takes");
		check(!refused ||
		          (refusal.fatal[0] != '\0' && strlen(refusal.fatal) < sizeof(refusal.fatal) - 1),
		      "git's refusal without a line");
	}
	if (indexed == 0) {
		uint64_t deltas = 0;
		for (uint32_t i = 0; i < pack.nr; i++) {
			const struct skg_pk_object *o = &pack.objs[i];
			check(o->real_type >= 1 && o->real_type <= 4, "object without a type");
			check(i == 0 || o->offset > pack.objs[i - 1].offset, "offsets not increasing");
			if (o->type == SKG_PK_OFS_DELTA || o->type == SKG_PK_REF_DELTA) {
				deltas++;
				check(o->base < pack.nr, "delta without a base");
				check(o->depth == pack.objs[o->base].depth + 1, "depth");
				check(o->real_type == pack.objs[o->base].real_type,
				      "type differs from the base's");
				check(o->depth <= pack.max_depth, "max depth");
			} else {
				check(o->base == SKG_PK_NO_BASE && o->depth == 0, "whole object with a base");
			}
		}
		check(deltas == pack.n_deltas, "delta count");
		check(pack.rawsz == skg_format_rawsz(format), "ID size of the format");
		check_idx(&pack, 2, SKG_PK_IDX_OFF32_LIMIT);
		check_idx(&pack, 2, 0);
		check_idx(&pack, 1, 0);
		check_idx(&pack, 1, SKG_PK_IDX_OFF32_LIMIT);
		skg_pk_pack_free(&pack);
	} else {
		check(err.msg[0] != '\0', "error without a message");
		check(!err.has_offset || err.offset <= len, "error offset past the end");
		unsigned type;
		uint8_t *content;
		uint64_t n;
		const unsigned rawsz = sha256 ? SKG_MAX_RAWSZ : SKG_RAWSZ;
		if (skg_pk_read_object_cached(buf, len, (const uint8_t *)"", 0, rawsz, 12, (uint64_t)1 << 20,
		                              NULL, &type, &content, &n, &err) == 0) {
			check(type >= 1 && type <= 4, "type read");
			free(content);
		}
		unsigned lines = 0;
		int rc = skg_pk_git_unpack(buf, len, (const uint8_t *)"", 0, rawsz, 12, true,
		                           (uint64_t)1 << 24, NULL, "p.pack", no_base_id, count_line, NULL,
		                           &lines, &type, &content, &n);
		check(rc == 0 || rc == -1 || rc == -2, "git's reader status");
		if (rc == 0) {
			check(type >= 1 && type <= 4, "type read by git's reader");
			free(content);
		}
	}
	free(buf);
	return 0;
}
