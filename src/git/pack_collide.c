/*
 * pack_collide.c - index-pack's check of the pack's objects against the repository's copies
 * (pack_collide.h). Source: git v2.39.5 builtin/index-pack.c sha1_object, check_collison,
 * compare_objects; object-file.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include <sha1kit.h>

#include "loose.h"
#include "odb.h"
#include "pack_collide.h"
#include "pack_internal.h"
#include "util.h"

struct skg_collide {
	pthread_mutex_t lock;
	const struct skg_pk_pack *pack;
	unsigned git_version; /* SKG_GIT_2_39 or SKG_GIT_2_55: an empty loose base (read_base) */
	struct skg_odb *odb;
	struct skg_sink sink;
	struct skg_lines lines;
	bool failed;
	enum skg_errc code;
	char msg[SKG_ERROR_MAX];
};

int skg_collide_new(struct skg_collide **out, const struct skg_pk_pack *pack, const struct skg_repo *repo,
                    unsigned git_version, const struct skg_sink *sink,
                    void (*on_map)(void *ctx, const void *addr, uint64_t len, const char *path, bool mapped),
                    void *map_ctx, struct skg_error *err)
{
	*out = NULL;
	struct skg_collide *c = calloc(1, sizeof(*c));
	if (c == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	if (pthread_mutex_init(&c->lock, NULL) != 0) {
		free(c);
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	c->pack = pack;
	c->git_version = git_version;
	if (sink != NULL) {
		c->sink = *sink;
	}
	if (skg_odb_open_mapped(&c->odb, repo, sink, on_map, map_ctx, err) != 0) {
		pthread_mutex_destroy(&c->lock);
		free(c);
		return -1;
	}
	*out = c;
	return 0;
}

void skg_collide_free(struct skg_collide *c)
{
	if (c != NULL) {
		skg_odb_free(c->odb);
		pthread_mutex_destroy(&c->lock);
		free(c);
	}
}

bool skg_collide_failed(const struct skg_collide *c)
{
	return c != NULL && c->failed;
}

void skg_collide_error(const struct skg_collide *c, struct skg_error *err)
{
	skg_fail_sys(err, c->code, c->code == SKG_E_NOMEM ? ENOMEM : 0, "%s", c->msg);
}

static int die(struct skg_collide *c, const char *fmt, ...) SKG_PRINTF(2, 3);

static int die(struct skg_collide *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	c->code = SKG_E_GIT;
	c->failed = true;
	return 1;
}

static int nomem(struct skg_collide *c)
{
	snprintf(c->msg, sizeof(c->msg), "out of memory");
	c->code = SKG_E_NOMEM;
	c->failed = true;
	return 1;
}

/* The lines git printed reading the stored copy, as records; a last "fatal: " line is where git
 * dies (returns 1 with its message kept), else 0. */
static int send_lines(struct skg_collide *c)
{
	char *p = c->lines.text, *end = p + c->lines.len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL) {
			nl = end;
		}
		*nl = '\0';
		static const struct {
			const char *prefix;
			enum skg_level level;
		} kinds[] = {{"error: ", SKG_LEVEL_ERROR}, {"warning: ", SKG_LEVEL_WARNING}};
		if (skg_starts_with(p, "fatal: ")) {
			return die(c, "%s", p + strlen("fatal: "));
		}
		enum skg_level level = SKG_LEVEL_PLAIN;
		const char *text = p;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			if (skg_starts_with(p, kinds[k].prefix)) {
				level = kinds[k].level;
				text = p + strlen(kinds[k].prefix);
			}
		}
		if (c->sink.report != NULL) {
			struct skg_report r = {level, 0, NULL, SKG_NONE, NULL, text, false, 0};
			c->sink.report(c->sink.ctx, &r);
		}
		p = nl + 1;
	}
	return 0;
}

/* Whole object i of the pack, inflated again from its entry (the engine passed no content):
 * compared with want[0..len). 1 when they are equal, 0 when not, -1 out of memory. */
static int same_as_entry(const struct skg_collide *c, uint32_t i, const uint8_t *want, uint64_t len)
{
	const struct skg_pk_object *o = &c->pack->objs[i];
	const uint8_t *src = c->pack->data + o->offset + o->hdr_len;
	uint64_t left_in = c->pack->len - c->pack->rawsz - (o->offset + o->hdr_len);
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK) {
		return -1;
	}
	uint8_t buf[65536];
	uint64_t done = 0;
	int st = Z_OK, same = 1;
	while (st == Z_OK && same) {
		if (zs.avail_in == 0 && left_in > 0) {
			unsigned n = left_in > (1u << 30) ? (1u << 30) : (unsigned)left_in;
			zs.next_in = (Bytef *)(uintptr_t)src;
			zs.avail_in = n;
			src += n;
			left_in -= n;
		}
		zs.next_out = buf;
		zs.avail_out = sizeof(buf);
		st = inflate(&zs, Z_NO_FLUSH);
		size_t got = sizeof(buf) - zs.avail_out;
		if (got > len - done || memcmp(buf, want + done, got) != 0) {
			same = 0;
		}
		done += got;
		if (st == Z_BUF_ERROR && got == 0) {
			break;
		}
	}
	int mem = st == Z_MEM_ERROR;
	inflateEnd(&zs);
	if (mem) {
		return -1;
	}
	/* the first pass inflated this entry to exactly len bytes */
	return same && done == len;
}

int skg_collide_object(void *ctx, uint32_t i, unsigned type, const uint8_t *data, uint64_t len)
{
	struct skg_collide *c = ctx;
	const uint8_t *id = c->pack->objs[i].id;
	char hex[SKG_MAX_HEXSZ + 1];
	pthread_mutex_lock(&c->lock);
	int rc = 0;
	if (c->failed) {
		rc = 1;
		goto out;
	}
	int has = skg_odb_has(c->odb, id);
	if (has <= 0) {
		rc = has < 0 ? nomem(c) : 0;
		goto out;
	}
	skg_to_hex_len(id, c->pack->rawsz, hex);
	/* sha1_object: oid_object_info, then the type and size (check_collison does the same for a
	 * blob above core.bigFileThreshold, whose stored copy it streams; the stored copy is read
	 * whole here) */
	unsigned htype = 0;
	uint64_t hsize = 0;
	int st = skg_odb_info(c->odb, id, &htype, &hsize, &c->lines);
	if (st == SKG_STORED_NOMEM) {
		rc = nomem(c);
		goto out;
	}
	if (send_lines(c) != 0) {
		rc = 1;
		goto out;
	}
	if (st != SKG_STORED_OK) {
		rc = die(c, "cannot read existing object info %s", hex);
		goto out;
	}
	if (htype != type || hsize != len) {
		rc = die(c, "SHA1 COLLISION FOUND WITH %s !", hex);
		goto out;
	}
	uint8_t *stored = NULL;
	size_t slen = 0;
	st = skg_odb_content(c->odb, id, &stored, &slen, &c->lines);
	if (st == SKG_STORED_NOMEM) {
		rc = nomem(c);
		goto out;
	}
	if (send_lines(c) != 0) {
		free(stored);
		rc = 1;
		goto out;
	}
	if (st != SKG_STORED_OK) {
		rc = die(c, "cannot read existing object %s", hex);
		goto out;
	}
	int same;
	if (slen != len) {
		same = 0;
	} else if (data != NULL || len == 0) {
		same = len == 0 || memcmp(data, stored, slen) == 0;
	} else {
		same = same_as_entry(c, i, stored, len);
	}
	free(stored);
	if (same < 0) {
		rc = nomem(c);
	} else if (!same) {
		rc = die(c, "SHA1 COLLISION FOUND WITH %s !", hex);
	}
out:
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int skg_collide_read_base(struct skg_collide *c, const uint8_t *id, unsigned *type, uint8_t **data,
                          size_t *len)
{
	const unsigned rawsz = c->pack->rawsz;
	char hex[SKG_MAX_HEXSZ + 1];
	*data = NULL;
	*len = 0;
	if (c->failed) {
		return -1;
	}
	if (skg_is_empty_tree(id, rawsz)) {
		/* find_cached_object: git always has the empty tree */
		*type = SKG_TREE;
		*data = malloc(1);
		if (*data == NULL) {
			nomem(c);
			return -1;
		}
		return 1;
	}
	skg_to_hex_len(id, rawsz, hex);
	uint64_t size = 0;
	int st = skg_odb_info(c->odb, id, type, &size, &c->lines);
	if (st == SKG_STORED_NOMEM) {
		nomem(c);
		return -1;
	}
	if (send_lines(c) != 0) {
		return -1;
	}
	if (st != SKG_STORED_OK) {
		/* read_object_file_extended: none found; a loose file that is there is corrupt */
		char *path = skg_odb_loose_path(c->odb, id);
		if (path == NULL && errno == ENOMEM) {
			nomem(c);
			return -1;
		}
		if (path == NULL) {
			/* has_packed_and_bad: a pack lists it, and its copy did not read */
			const char *pack = skg_odb_packed_path(c->odb, id);
			if (pack != NULL) {
				die(c, "packed object %s (stored in %s) is corrupt", hex, pack);
				return -1;
			}
			return 0;
		}
		struct stat sb;
		if (c->git_version >= SKG_GIT_2_55 && stat(path, &sb) == 0 && sb.st_size == 0) {
			free(path); /* git 2.40+: an empty file is no object (its line was sent) */
			return 0;
		}
		die(c, "loose object %s (stored in %s) is corrupt", hex, path);
		free(path);
		return -1;
	}
	st = skg_odb_content(c->odb, id, data, len, &c->lines);
	if (st == SKG_STORED_NOMEM) {
		nomem(c);
		return -1;
	}
	if (send_lines(c) != 0) {
		free(*data);
		*data = NULL;
		return -1;
	}
	if (st != SKG_STORED_OK) {
		return 0;
	}
	/* check_object_signature: the content must hash to its name */
	char hdr[64];
	int n = snprintf(hdr, sizeof(hdr), "%s %zu", skg_type_name(*type), *len);
	uint8_t got[SKG_MAX_RAWSZ];
	struct skg_pk_hash h;
	skg_pk_hash_init(&h, skg_pk_id_kind(rawsz));
	skg_pk_hash_update(&h, hdr, (size_t)n + 1);
	skg_pk_hash_update(&h, *data, *len);
	(void)skg_pk_hash_final(&h, got);
	if (memcmp(got, id, rawsz) != 0) {
		free(*data);
		*data = NULL;
		die(c, "local object %s is corrupt", hex);
		return -1;
	}
	return 1;
}
