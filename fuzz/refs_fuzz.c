/*
 * refs_fuzz.c - libFuzzer target for the in-memory parsers of src/git/repo.c and refs.c: packed-refs,
 * reflogs, config files (read as files and as blobs), the index (with its TREE and REUC extensions)
 * and ref-name checks.
 *
 * Input: one selector byte, then the text. Selector & 7: 0 packed-refs, 1 reflog, 2 config,
 * 3 index as is, 4 index with its trailing checksum recomputed (so that the fuzzer gets past the
 * checksum test), 5 ref names (one per line), 6 a reftable (src/git/reftable.c) as is, 7 a reftable
 * with its footer's CRC-32 recomputed (version 1 footer, 68 bytes; version 2, 72).
 * Corpus: fuzz/corpus/refs.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha1kit.h>
#include <zlib.h>

#include "config.h"
#include "index_file.h"
#include "reflog.h"
#include "refname.h"
#include "refs.h"
#include "reftable.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

static void touch(const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		sink += b[i];
	}
}

static void report(void *ctx, const struct skg_report *r)
{
	enum skg_level level = r->level;
	int id = r->id;
	const char *msg = r->text;
	(void)ctx;
	sink += (unsigned)level + (unsigned)id;
	touch(msg, strlen(msg));
}

static const struct skg_sink reporter = {report, NULL};

static int packed_cb(void *ctx, const char *refname, const uint8_t *id, const uint8_t *peeled, unsigned flags)
{
	(void)ctx;
	touch(refname, strlen(refname));
	touch(id, SKG_RAWSZ);
	if (peeled != NULL) {
		touch(peeled, SKG_RAWSZ);
	}
	sink += flags;
	return 0;
}

static int reflog_cb(void *ctx, const struct skg_reflog_entry *e)
{
	(void)ctx;
	touch(e->old_id, SKG_RAWSZ);
	touch(e->new_id, SKG_RAWSZ);
	touch(e->ident, strlen(e->ident));
	touch(e->message, strlen(e->message));
	sink += (unsigned)e->timestamp + (unsigned)e->tz;
	return 0;
}

static int config_cb(void *ctx, const char *key, const char *value)
{
	(void)ctx;
	touch(key, strlen(key));
	if (value != NULL) {
		touch(value, strlen(value));
		sink += (unsigned)skg_config_bool(value);
	}
	return 0;
}

static int entry_cb(void *ctx, const struct skg_index_entry *e)
{
	(void)ctx;
	touch(e->path, e->path_len + 1);
	touch(e->id, SKG_RAWSZ);
	sink += e->mode + e->stage + e->flags;
	return 0;
}

static int tree_cb(void *ctx, const char *path, int entries, int subtrees, const uint8_t *id, bool *descend)
{
	(void)ctx;
	touch(path, strlen(path));
	if (id != NULL) {
		touch(id, SKG_RAWSZ);
	}
	sink += (unsigned)entries + (unsigned)subtrees;
	*descend = (sink & 1) != 0;
	return 0;
}

static int reuc_cb(void *ctx, const char *path, const uint32_t mode[3], const uint8_t *const id[3])
{
	(void)ctx;
	touch(path, strlen(path));
	for (int i = 0; i < 3; i++) {
		sink += mode[i];
		if (id[i] != NULL) {
			touch(id[i], SKG_RAWSZ);
		}
	}
	return 0;
}

static int reftable_ref_cb(void *ctx, const struct skg_reftable_ref *r)
{
	(void)ctx;
	touch(r->name, strlen(r->name));
	touch(r->id, SKG_RAWSZ);
	if (r->target != NULL) {
		touch(r->target, strlen(r->target));
	}
	sink += (unsigned)r->type + (unsigned)r->update_index;
	return 0;
}

static int reftable_log_cb(void *ctx, const struct skg_reftable_log *l)
{
	(void)ctx;
	touch(l->refname, strlen(l->refname));
	if (l->message != NULL) {
		touch(l->name, strlen(l->name));
		touch(l->email, strlen(l->email));
		touch(l->message, strlen(l->message));
	}
	sink += (unsigned)l->tz_minutes + (unsigned)l->time;
	return 0;
}

static void reftable(const uint8_t *data, size_t size, bool fix_crc)
{
	uint8_t *copy = malloc(size ? size : 1); /* exact size: ASan sees reads past the end */
	if (copy == NULL) {
		return;
	}
	memcpy(copy, data, size);
	size_t footer = size > 4 && copy[4] == 2 ? 72 : 68;
	if (fix_crc && size >= footer) {
		uint8_t *f = copy + size - footer;
		uLong crc = crc32(0L, f, (uInt)(footer - 4));
		for (int i = 0; i < 4; i++) {
			f[footer - 4 + (size_t)i] = (uint8_t)(crc >> (24 - 8 * i));
		}
	}
	struct skg_error err;
	skg_reftable_parse(copy, size, "t.ref", reftable_ref_cb, reftable_log_cb, NULL, &err);
	/* as a stack: git's reader where the table's ref block needs it (its iteration, then a read of
	 * each name it gave and of a few others) */
	struct skg_reftable_stack *st = NULL;
	if (skg_reftable_open_mem(&st, copy, size, 0, &err) == 0) {
		bool failed;
		static const char *const names[] = {"", "HEAD", "refs/heads/main", "refs/tags/v1", "zzz"};
		for (size_t i = 0; i < skg_reftable_ref_count(st); i++) {
			const char *name = skg_reftable_ref_at(st, i)->name;
			const struct skg_reftable_ref *r = skg_reftable_read(st, name, &failed);
			if (r != NULL) {
				reftable_ref_cb(NULL, r);
			}
		}
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			const struct skg_reftable_ref *r = skg_reftable_read(st, names[i], &failed);
			sink += failed + (r != NULL ? (unsigned)r->type : 0u);
		}
		sink += skg_reftable_iter_failed(st);
		skg_reftable_free(st);
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1) {
		return 0;
	}
	unsigned sel = data[0] & 7;
	size_t rawsz = data[0] & 8 ? SKG_MAX_RAWSZ : SKG_RAWSZ; /* the object format: SHA-1 or SHA-256 */
	data++;
	size--;
	struct skg_error err;
	switch (sel) {
	case 0:
		skg_packed_refs_parse((const char *)data, size, "packed-refs", rawsz, packed_cb, NULL, &err);
		break;
	case 1:
		skg_reflog_parse((const char *)data, size, rawsz, reflog_cb, NULL, &reporter, &err);
		break;
	case 2:
		skg_config_parse((const char *)data, size, "config", config_cb, NULL, &err);
		skg_config_parse_blob((const char *)data, size, ".gitmodules", config_cb, NULL, &err);
		break;
	case 3:
	case 4: {
		/* an exact-size heap copy, so that ASan sees every read past the end */
		uint8_t *copy = malloc(size ? size : 1);
		if (copy == NULL) {
			return 0;
		}
		memcpy(copy, data, size);
		if (sel == 4 && size >= rawsz) { /* a right checksum, to reach the entries */
			if (rawsz == SKG_RAWSZ) {
				sha1kit_fast(copy, size - rawsz, copy + size - rawsz);
			} else {
				sha1kit_sha256(copy, size - rawsz, copy + size - rawsz);
			}
		}
		struct skg_index_callbacks cb = {entry_cb, tree_cb, reuc_cb, NULL};
		struct skg_index_info info;
		skg_index_parse(copy, size, "index", rawsz, &cb, &info, &reporter, &err);
		free(copy);
		break;
	}
	case 5: {
		char *s = malloc(size + 1);
		if (s == NULL) {
			return 0;
		}
		memcpy(s, data, size);
		s[size] = '\0';
		for (char *line = s; line != NULL;) {
			char *nl = strchr(line, '\n');
			if (nl != NULL) {
				*nl = '\0';
			}
			for (unsigned flags = 0; flags < 4; flags++) {
				sink += skg_refname_ok(line, flags);
			}
			sink += skg_refname_is_safe(line);
			char key[256];
			sink += skg_config_canonical_key(line, key, sizeof(key)) == NULL;
			int v;
			sink += skg_config_int(line, &v);
			line = nl ? nl + 1 : NULL;
		}
		free(s);
		break;
	}
	case 6:
	case 7:
		reftable(data, size, sel == 7);
		break;
	default:
		break;
	}
	return 0;
}
