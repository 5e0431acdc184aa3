/*
 * loose.c - loose objects: the walk over objects/xx/, inflate, header, ID (loose.h).
 *
 * The zlib calls are made in the sequence whose outcome git 2.39.5's diagnostics depend on (one
 * call into a 32-byte buffer for the header, then Z_FINISH calls for the rest, with at most 1 GiB
 * of input and output handed to zlib per call), so that every stream git accepts is accepted
 * here, every one it rejects is rejected with the same words. With libdeflate, an object that is
 * not streamed is first inflated whole in one libdeflate call, about twice as fast; only a stream
 * that inflates cleanly to exactly its header's size with no byte left over is taken that way, and
 * any other goes through the zlib sequence from its header on, for git's words.
 */
#include "loose.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util.h"
#if defined(SK_HAVE_LIBDEFLATE)
#include <libdeflate.h>
#endif

/* ---- Lines -------------------------------------------------------------------------------------- */

/* git's error(), warning() and die() format into 4096 bytes: prefix, message, NUL. */
#define GIT_REPORT_MAX 4096

void skg_lines_clear(struct skg_lines *lines)
{
	lines->len = 0;
	lines->count = 0;
	lines->truncated = false;
	lines->nomem = false;
	lines->text[0] = '\0';
}

void skg_lines_nomem(struct skg_lines *lines)
{
	lines->nomem = true;
}

/* Control characters git's report functions replace with '?' (its own ctype: 0-31 and 127). */
static bool git_cntrl(unsigned char c)
{
	return (c < 32 || c == 127) && c != '\t' && c != '\n';
}

/* Format one line into buf (GIT_REPORT_MAX bytes) as git's vreportf does; returns its length. */
static size_t format_reported(char *buf, const char *prefix, const char *fmt, va_list ap)
{
	size_t plen = strlen(prefix);
	if (plen >= GIT_REPORT_MAX) {
		plen = GIT_REPORT_MAX - 1;
	}
	memcpy(buf, prefix, plen);
	if (vsnprintf(buf + plen, GIT_REPORT_MAX - plen, fmt, ap) < 0) {
		buf[plen] = '\0';
	}
	size_t len = plen;
	for (; buf[len] != '\0'; len++) {
		if (git_cntrl((unsigned char)buf[len])) {
			buf[len] = '?';
		}
	}
	return len;
}

static void lines_vadd(struct skg_lines *lines, const char *prefix, const char *fmt, va_list ap)
{
	size_t room = sizeof(lines->text) - lines->len; /* with the NUL */
	char *p = lines->text + lines->len;
	size_t len;
	if (prefix != NULL) {
		char buf[GIT_REPORT_MAX];
		len = format_reported(buf, prefix, fmt, ap);
		if (len + 2 > room) {
			lines->truncated = true;
			return;
		}
		memcpy(p, buf, len);
	} else {
		int n = vsnprintf(p, room > 1 ? room - 1 : 0, fmt, ap);
		if (n < 0 || (size_t)n + 2 > room) {
			lines->truncated = true;
			*p = '\0';
			return;
		}
		len = (size_t)n;
	}
	p[len] = '\n';
	p[len + 1] = '\0';
	lines->len += len + 1;
	/* git lets newlines of a message through (a type name may have one): count what is printed */
	for (size_t i = 0; i <= len; i++) {
		lines->count += p[i] == '\n';
	}
}

void skg_lines_add(struct skg_lines *lines, const char *prefix, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	lines_vadd(lines, prefix, fmt, ap);
	va_end(ap);
}

/* One reported line into buf (GIT_REPORT_MAX bytes), for the walk's callback. */
static void SKG_PRINTF(3, 4) report_line(char *buf, const char *prefix, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	format_reported(buf, prefix, fmt, ap);
	va_end(ap);
}

/* ---- The walk ----------------------------------------------------------------------------------- */

/* The rawsz - 1 bytes of ID that a file name of 2 * (rawsz - 1) hex digits gives (38, or 62 in a
 * SHA-256 repository); false if it is not that. */
static bool name_to_id(const char *name, size_t len, size_t rawsz, uint8_t *id)
{
	if (len != 2 * (rawsz - 1)) {
		return false;
	}
	for (size_t i = 0; i < rawsz - 1; i++) {
		int hi = skg_hexval(name[2 * i]), lo = skg_hexval(name[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			return false;
		}
		id[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

/* A growable path: objdir + "/" + xx + "/" + name. */
struct pathbuf {
	char *buf;
	size_t len, cap;
};

static bool path_reserve(struct pathbuf *p, size_t extra)
{
	if (p->len + extra + 1 <= p->cap) {
		return true;
	}
	size_t cap = p->cap ? p->cap : 256;
	while (cap < p->len + extra + 1) {
		cap *= 2;
	}
	char *nb = realloc(p->buf, cap);
	if (nb == NULL) {
		return false;
	}
	p->buf = nb;
	p->cap = cap;
	return true;
}

static bool path_add(struct pathbuf *p, const char *s, size_t n)
{
	if (!path_reserve(p, n)) {
		return false;
	}
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	p->buf[p->len] = '\0';
	return true;
}

static int report_oom(skg_loose_report_fn on_report, void *ctx, size_t size)
{
	if (on_report != NULL) {
		char line[GIT_REPORT_MAX];
		report_line(line, "fatal: ", "Out of memory, malloc failed (tried to allocate %zu bytes)",
		            size);
		int rc = on_report(ctx, line, true);
		if (rc != 0) {
			return rc;
		}
	}
	return SKG_LOOSE_WALK_NOMEM;
}

static int for_each_range(const char *objdir, size_t rawsz, unsigned first, unsigned count,
                          skg_loose_object_fn on_object, skg_loose_report_fn on_report, void *ctx);

int skg_loose_for_each(const char *objdir, size_t rawsz, skg_loose_object_fn on_object,
                       skg_loose_report_fn on_report, void *ctx)
{
	return for_each_range(objdir, rawsz == SKG_MAX_RAWSZ ? SKG_MAX_RAWSZ : SKG_RAWSZ, 0, 256, on_object,
	                      on_report, ctx);
}

static int for_each_range(const char *objdir, size_t rawsz, unsigned first, unsigned count,
                          skg_loose_object_fn on_object, skg_loose_report_fn on_report, void *ctx)
{
	struct pathbuf p = {NULL, 0, 0};
	size_t dlen = strlen(objdir);
	int rc = 0;
	if (!path_add(&p, objdir, dlen) || (dlen > 0 && objdir[dlen - 1] != '/' && !path_add(&p, "/", 1))) {
		free(p.buf);
		return report_oom(on_report, ctx, dlen + 2);
	}
	size_t base = p.len;
	for (unsigned nr = first; nr < 256 && nr - first < count && rc == 0; nr++) {
		char sub[4];
		snprintf(sub, sizeof(sub), "%02x", nr);
		p.len = base;
		if (!path_add(&p, sub, 2)) {
			rc = report_oom(on_report, ctx, base + 4);
			break;
		}
		DIR *dir = opendir(p.buf);
		if (dir == NULL) {
			if (errno != ENOENT) {
				if (on_report != NULL) {
					char line[GIT_REPORT_MAX];
					report_line(line, "error: ", "unable to open %s: %s", p.buf,
					            strerror(errno));
					rc = on_report(ctx, line, true);
				}
				if (rc == 0) {
					rc = SKG_LOOSE_WALK_STOPPED;
				}
			}
			continue;
		}
		if (!path_add(&p, "/", 1)) {
			closedir(dir);
			rc = report_oom(on_report, ctx, p.len + 2);
			break;
		}
		size_t subdir_len = p.len;
		uint8_t id[SKG_MAX_RAWSZ];
		id[0] = (uint8_t)nr;
		struct dirent *de;
		while (rc == 0 && (de = readdir(dir)) != NULL) {
			const char *name = de->d_name;
			if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
				continue;
			}
			size_t nlen = strlen(name);
			p.len = subdir_len;
			if (!path_add(&p, name, nlen)) {
				rc = report_oom(on_report, ctx, subdir_len + nlen + 1);
				break;
			}
			if (name_to_id(name, nlen, rawsz, id + 1)) {
				rc = on_object(ctx, id, p.buf);
			} else if (strncmp(name, "tmp_obj_", 8) != 0 && on_report != NULL) {
				/* git prints this one with fprintf: no prefix, no sanitizing. */
				char *line = malloc(p.len + 16);
				if (line == NULL) {
					rc = report_oom(on_report, ctx, p.len + 16);
					break;
				}
				snprintf(line, p.len + 16, "bad sha1 file: %s", p.buf);
				rc = on_report(ctx, line, false);
				free(line);
			}
		}
		closedir(dir);
	}
	free(p.buf);
	return rc;
}

/* ---- zlib as git drives it ------------------------------------------------------------------- */

/* git hands zlib at most 1 GiB of input and of output per call (zlib.c, ZLIB_BUF_MAX). */
#define ZLIB_CAP ((size_t)1 << 30)

struct zs {
	z_stream z;
	const uint8_t *in;
	size_t in_left;
	uint8_t *out; /* NULL: no output room */
	size_t out_left;
	uint8_t dummy; /* zlib wants a non-NULL next_out even for 0 bytes; never written */
};

/*
 * One inflate step as git's git_inflate(): Z_FINISH only when all input is handed over, another
 * round while the output was cut by the cap; statuses other than Z_OK, Z_BUF_ERROR and
 * Z_STREAM_END are reported as git reports them ("error: inflate: data stream error (MSG)").
 */
static int zrun(struct zs *s, int flush, struct skg_lines *lines)
{
	int status;
	for (;;) {
		uInt in = (uInt)(s->in_left < ZLIB_CAP ? s->in_left : ZLIB_CAP);
		uInt out = (uInt)(s->out_left < ZLIB_CAP ? s->out_left : ZLIB_CAP);
		s->z.next_in = (Bytef *)(uintptr_t)s->in;
		s->z.avail_in = in;
		s->z.next_out = s->out != NULL ? s->out : &s->dummy;
		s->z.avail_out = out;
		status = inflate(&s->z, in != s->in_left ? Z_NO_FLUSH : flush);
		size_t used = in - s->z.avail_in, made = out - s->z.avail_out;
		s->in += used;
		s->in_left -= used;
		if (s->out != NULL) {
			s->out += made;
		}
		s->out_left -= made;
		if (status == Z_MEM_ERROR) {
			return status;
		}
		if (s->out_left != 0 && s->z.avail_out == 0 && (status == Z_OK || status == Z_BUF_ERROR)) {
			continue;
		}
		break;
	}
	if (status == Z_OK || status == Z_BUF_ERROR || status == Z_STREAM_END) {
		return status;
	}
	skg_lines_add(lines, "error: ", "inflate: %s (%s)", skg_zerr_name(status),
	              s->z.msg != NULL ? s->z.msg : "no message");
	return status;
}

/* ---- The reader ----------------------------------------------------------------------------------- */

#define FILE_READ_MAX  ((size_t)4 << 20)   /* files up to this size are read, larger ones mapped */
#define STREAM_CHUNK   ((size_t)64 << 10)  /* output buffer of a streamed blob */
#define BATCH_MAX      64                  /* objects hashed together */
#define BATCH_BYTES    ((size_t)2 << 20)   /* arena bytes that trigger a batch */
#define SOLO_SIZE      ((size_t)256 << 10) /* objects this large are hashed alone */
#define ARENA_KEEP     ((size_t)64 << 20)  /* a larger arena is freed after use */
#define HEADER_BUF     32                  /* git's MAX_HEADER_LEN */
#define STATUS_PENDING (-1)                /* internal: inflated, hash deferred to a batch */

/* An object waiting for its ID in a batch. */
struct pending {
	size_t path_off;   /* in r->paths */
	size_t region_off; /* header + content + NUL in r->arena */
	size_t hdr_len;
	uint8_t expect[SKG_MAX_RAWSZ];
	struct skg_loose_object obj; /* content == NULL here; set at delivery */
};

struct skg_loose_reader {
	struct skg_loose_options opt;
	size_t rawsz; /* bytes of an object ID: 20 (SHA-1DC) or 32 (SHA-256), opt.rawsz */
	struct zs zs;
	bool z_ready;
	uint8_t *file; /* contents of a small file */
	size_t file_cap;
	uint8_t *arena; /* header + content regions */
	size_t arena_len, arena_cap;
	uint8_t *chunk; /* STREAM_CHUNK bytes */
	char *paths;
	size_t paths_len, paths_cap;
	struct pending pend[BATCH_MAX];
	size_t npend;
	sha1kit_msg msgs[BATCH_MAX];
	uint8_t digests[SKG_MAX_RAWSZ * BATCH_MAX];
	sha1kit_dc_detection where[BATCH_MAX];
	struct skg_lines lines;  /* of the object read last */
	struct skg_lines blines; /* of a batched object being delivered */
#if defined(SK_HAVE_LIBDEFLATE)
	struct libdeflate_decompressor *ld; /* NULL: zlib only */
#endif
};

void skg_loose_options_default(struct skg_loose_options *opt)
{
	opt->big_file_threshold = (uint64_t)512 << 20;
	opt->max_size = (uint64_t)8 << 30;
	opt->no_hash = false;
	opt->unknown_type_corrupt = false;
	opt->empty_not_found = false;
	opt->rawsz = SKG_RAWSZ;
}

struct skg_loose_reader *skg_loose_reader_new(const struct skg_loose_options *opt)
{
	struct skg_loose_reader *r = calloc(1, sizeof(*r));
	if (r == NULL) {
		return NULL;
	}
	if (opt != NULL) {
		r->opt = *opt;
	} else {
		skg_loose_options_default(&r->opt);
	}
	r->rawsz = r->opt.rawsz == SKG_MAX_RAWSZ ? SKG_MAX_RAWSZ : SKG_RAWSZ;
	r->chunk = malloc(STREAM_CHUNK);
	if (r->chunk == NULL || inflateInit(&r->zs.z) != Z_OK) {
		free(r->chunk);
		free(r);
		return NULL;
	}
	r->z_ready = true;
#if defined(SK_HAVE_LIBDEFLATE)
	r->ld = libdeflate_alloc_decompressor(); /* NULL: every object goes through zlib */
#endif
	return r;
}

void skg_loose_reader_free(struct skg_loose_reader *r)
{
	if (r == NULL) {
		return;
	}
	if (r->z_ready) {
		inflateEnd(&r->zs.z);
	}
#if defined(SK_HAVE_LIBDEFLATE)
	if (r->ld != NULL) {
		libdeflate_free_decompressor(r->ld);
	}
#endif
	free(r->file);
	free(r->arena);
	free(r->chunk);
	free(r->paths);
	free(r);
}

/* Make room for `need` bytes at arena + arena_len; false when out of memory. */
static bool arena_reserve(struct skg_loose_reader *r, size_t need)
{
	if (need > SIZE_MAX - r->arena_len) {
		return false;
	}
	size_t want = r->arena_len + need;
	if (want <= r->arena_cap) {
		return true;
	}
	size_t cap = r->arena_cap ? r->arena_cap : (size_t)64 << 10;
	while (cap < want) {
		cap = cap > SIZE_MAX / 2 ? want : cap * 2;
	}
	uint8_t *na = realloc(r->arena, cap);
	if (na == NULL) {
		return false;
	}
	r->arena = na;
	r->arena_cap = cap;
	return true;
}

static void arena_release(struct skg_loose_reader *r)
{
	r->arena_len = 0;
	if (r->arena_cap > ARENA_KEEP) {
		free(r->arena);
		r->arena = NULL;
		r->arena_cap = 0;
	}
}

static int fatal_oom(struct skg_lines *lines, uint64_t size)
{
	skg_lines_add(lines, "fatal: ", "Out of memory, malloc failed (tried to allocate %" PRIu64 " bytes)",
	              size);
	return SKG_LOOSE_FATAL;
}

/* the null ID's hex digits, as many as the object's ID has (40, or 64 for SHA-256) */
static const char null_hex[] = "0000000000000000000000000000000000000000000000000000000000000000";

/* The last line(s) git fsck prints for an object read_loose_object() failed on (r: the reader, or
 * NULL where no type word was read). Git 2.39 adds the type of a header whose type it does not
 * know; 2.50+ (4ae0e9423c) does not. */
static int corrupt(const struct skg_loose_reader *r, const struct skg_loose_object *out, const char *hex,
                   const char *path, struct skg_lines *lines)
{
	skg_lines_add(lines, "error: ", "%s: object corrupt or missing: %s", hex, path);
	if (out->have_type && out->type == SKG_NONE && (r == NULL || !r->opt.unknown_type_corrupt)) {
		skg_lines_add(lines, "error: ", "%.*s: object is of unknown type '%s': %s", (int)strlen(hex),
		              null_hex, out->type_name, path);
	}
	return SKG_LOOSE_CORRUPT;
}

size_t skg_loose_collision_message(char *buf, size_t n, const char *hex, const char *path,
                                   const sha1kit_dc_detection *where)
{
	const char *dv = sha1kit_dv_name(where->dv);
	int k = snprintf(
	    buf, n,
	    "%s: SHA-1 collision attack detected (disturbance vector %s, block at byte offset %" PRIu64
	    "): %s",
	    hex, dv != NULL ? dv : "?", where->offset, path);
	return k < 0 ? 0 : (size_t)k;
}

static void add_collision(struct skg_lines *lines, const char *hex, const char *path,
                          const sha1kit_dc_detection *where)
{
	char buf[GIT_REPORT_MAX];
	skg_loose_collision_message(buf, sizeof(buf), hex, path, where);
	skg_lines_add(lines, "error: ", "%s", buf);
}

/*
 * Parse the header "<type> <size>\0" at hdr (NUL-terminated) as git's parse_loose_header(): 0 when
 * it parses, -1 when not (out->have_type says whether the type word was read), SKG_LOOSE_FATAL
 * (with git's line) when the size overflows 64 bits.
 */
static int parse_header(const char *hdr, struct skg_loose_object *out, struct skg_lines *lines)
{
	const char *p = hdr;
	size_t tlen = 0;
	for (;;) {
		char c = *p++;
		if (c == '\0') {
			return -1;
		}
		if (c == ' ') {
			break;
		}
		tlen++;
	}
	/* The header fits HEADER_BUF bytes, so tlen < SKG_HEADER_MAX. */
	memcpy(out->type_name, hdr, tlen);
	out->type_name[tlen] = '\0';
	out->type_len = tlen;
	out->have_type = true;
	out->type = skg_type_from_name(hdr, tlen);

	int d = (unsigned char)*p++ - '0';
	if (d < 0 || d > 9) {
		return -1;
	}
	uint64_t size = (uint64_t)d;
	if (size != 0) {
		for (;;) {
			d = (unsigned char)*p - '0';
			if (d < 0 || d > 9) {
				break;
			}
			p++;
			if (size > UINT64_MAX / 10) {
				skg_lines_add(lines, "fatal: ", "size_t overflow: %" PRIu64 " * %u", size,
				              10u);
				return SKG_LOOSE_FATAL;
			}
			size *= 10;
			if (size > UINT64_MAX - (uint64_t)d) {
				skg_lines_add(lines, "fatal: ", "size_t overflow: %" PRIu64 " + %d", size, d);
				return SKG_LOOSE_FATAL;
			}
			size += (uint64_t)d;
		}
	}
	out->size = size;
	if (*p != '\0') {
		return -1;
	}
	out->have_header = true;
	return 0;
}

/* Where load() left a deferred object: header + content + NUL at arena + arena_len. */
struct region {
	size_t hdr_len;
	size_t len;
};

static const uint8_t zeros[4096];

/*
 * An object's ID being computed in the reader's format: SHA-1DC (with its detection, git's
 * settings) or SHA-256 (gitformat-loose: the same header and content hashed; nothing to detect).
 */
struct id_hash {
	union {
		sha1kit_dc_ctx dc;
		sha1kit_sha256_ctx sha256;
	} u;
	bool sha256;
};

static void id_init(struct id_hash *h, size_t rawsz)
{
	h->sha256 = rawsz == SKG_MAX_RAWSZ;
	if (h->sha256) {
		sha1kit_sha256_init(&h->u.sha256);
	} else {
		sha1kit_dc_init(&h->u.dc, NULL);
	}
}

static void id_update(struct id_hash *h, const void *p, size_t n)
{
	if (h->sha256) {
		sha1kit_sha256_update(&h->u.sha256, p, n);
	} else {
		sha1kit_dc_update(&h->u.dc, p, n);
	}
}

/* The ID into digest; where->dv >= 0 when SHA-1DC detected a collision attack (-1 for SHA-256). */
static void id_final(struct id_hash *h, uint8_t *digest, sha1kit_dc_detection *where)
{
	if (h->sha256) {
		sha1kit_sha256_final(&h->u.sha256, digest);
		memset(where, 0, sizeof(*where));
		where->dv = -1;
	} else {
		sha1kit_dc_final(&h->u.dc, digest, where);
	}
}

static void id_oneshot(size_t rawsz, const void *p, size_t n, uint8_t *digest, sha1kit_dc_detection *where)
{
	if (rawsz == SKG_MAX_RAWSZ) {
		sha1kit_sha256(p, n, digest);
		memset(where, 0, sizeof(*where));
		where->dv = -1;
	} else {
		sha1kit_dc(p, n, NULL, digest, where);
	}
}

/*
 * Compare the ID with the path's, say what git says. The ID was computed (header, content) in a
 * non-streamed read.
 */
static int finish(struct skg_loose_object *out, size_t rawsz, const char *hex, const uint8_t *expect,
                  const char *path, struct skg_lines *lines, const uint8_t *digest,
                  const sha1kit_dc_detection *where)
{
	out->have_id = true;
	memcpy(out->id, digest, rawsz);
	out->where = *where;
	char real[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(digest, rawsz, real);
	int status = SKG_LOOSE_OK;
	if (where->dv >= 0) {
		add_collision(lines, hex, path, where);
		status = SKG_LOOSE_COLLISION;
	}
	if (memcmp(digest, expect, rawsz) != 0) {
		skg_lines_add(lines, "error: ", "%s: hash-path mismatch, found at: %s", real, path);
		if (status == SKG_LOOSE_OK) {
			status = SKG_LOOSE_MISMATCH;
		}
	}
	if (out->type == SKG_NONE) {
		skg_lines_add(lines, "error: ", "%s: object is of unknown type '%s': %s", real,
		              out->type_name, path);
		if (status == SKG_LOOSE_OK) {
			status = SKG_LOOSE_UNKNOWN_TYPE;
		}
	}
	if (status != SKG_LOOSE_OK && status != SKG_LOOSE_UNKNOWN_TYPE) {
		out->content = NULL;
	}
	return status;
}

/* The rest of a blob above big_file_threshold, hashed as it is inflated (git's check_stream_oid). */
static int stream_rest(struct skg_loose_reader *r, const uint8_t *hdr, size_t produced, size_t hdr_len,
                       const char *hex, const uint8_t *expect, const char *path, skg_loose_stream_fn stream,
                       void *sctx, struct skg_loose_object *out, struct skg_lines *lines)
{
	struct zs *zs = &r->zs;
	uint64_t size = out->size;
	struct id_hash c;
	id_init(&c, r->rawsz);
	id_update(&c, hdr, produced); /* git hashes all the header call made */
	if (stream != NULL && produced > hdr_len) {
		stream(sctx, hdr + hdr_len, produced - hdr_len);
	}
	out->streamed = true;
	uint64_t total = produced - hdr_len;
	int st = Z_OK;
	while (total <= size && (st == Z_OK || (st == Z_BUF_ERROR && zs->out_left == 0))) {
		size_t want = size - total < STREAM_CHUNK ? (size_t)(size - total) : STREAM_CHUNK;
		const uint8_t *before = zs->in;
		zs->out = r->chunk;
		zs->out_left = want;
		st = zrun(zs, Z_FINISH, lines);
		if (st == Z_MEM_ERROR) {
			return SKG_LOOSE_NOMEM;
		}
		size_t got = want - zs->out_left;
		id_update(&c, r->chunk, got);
		if (stream != NULL && got > 0) {
			stream(sctx, r->chunk, got);
		}
		total += got;
		if (got == 0 && zs->in == before && st == Z_BUF_ERROR) {
			/* Content goes on past the header's size and zlib can make no progress into a
			 * full buffer: git 2.39.5 calls inflate again for ever here. */
			break;
		}
	}
	if (st != Z_STREAM_END) {
		skg_lines_add(lines, "error: ", "corrupt loose object '%s'", hex);
		return corrupt(r, out, hex, path, lines);
	}
	if (zs->in_left != 0) {
		skg_lines_add(lines, "error: ", "garbage at end of loose object '%s'", hex);
		return corrupt(r, out, hex, path, lines);
	}
	uint8_t digest[SKG_MAX_RAWSZ];
	sha1kit_dc_detection where;
	id_final(&c, digest, &where);
	out->have_id = true;
	memcpy(out->id, digest, r->rawsz);
	out->where = where;
	int status = SKG_LOOSE_OK;
	if (where.dv >= 0) {
		add_collision(lines, hex, path, &where);
		status = SKG_LOOSE_COLLISION;
	}
	if (memcmp(digest, expect, r->rawsz) != 0) {
		skg_lines_add(lines, "error: ", "hash mismatch for %s (expected %s)", path, hex);
		skg_lines_add(lines, "error: ", "%s: object corrupt or missing: %s", hex, path);
		if (status == SKG_LOOSE_OK) {
			status = SKG_LOOSE_CORRUPT;
		}
	}
	return status;
}

static int deliver(struct skg_loose_reader *r, size_t hdr_len, size_t have, const char *hex,
                   const uint8_t *expect, const char *path, struct skg_loose_object *out,
                   struct skg_lines *lines, bool defer, struct region *reg);

/*
 * The rest of any other object, into a buffer of the header's size (git's unpack_loose_rest): the
 * arena at arena_len holds header + content + NUL. The buffer grows with what is inflated, up to
 * the header's size, instead of being allocated at that size first; zlib's outcome is the same.
 */
static int buffer_rest(struct skg_loose_reader *r, const uint8_t *hdr, size_t produced, size_t hdr_len,
                       size_t in_len, const char *hex, const uint8_t *expect, const char *path,
                       struct skg_loose_object *out, struct skg_lines *lines, bool defer, struct region *reg)
{
	struct zs *zs = &r->zs;
	uint64_t size = out->size;
	if (size == UINT64_MAX) {
		skg_lines_add(lines, "fatal: ", "Data too large to fit into virtual memory space.");
		return SKG_LOOSE_FATAL;
	}
	if ((r->opt.max_size != 0 && size >= r->opt.max_size) || size > SIZE_MAX - hdr_len - 2) {
		return fatal_oom(lines, size + 1);
	}
	size_t n = produced - hdr_len;
	if (n > size) {
		n = (size_t)size; /* inflated with the header, beyond the size: dropped, as git does */
	}
	size_t guess = in_len < SIZE_MAX / 4 ? in_len * 4 : SIZE_MAX;
	if (guess < ((size_t)64 << 10)) {
		guess = (size_t)64 << 10;
	}
	size_t cap = size < guess ? (size_t)size : guess;
	if (!arena_reserve(r, hdr_len + cap + 1)) {
		return SKG_LOOSE_NOMEM;
	}
	uint8_t *region = r->arena + r->arena_len;
	memcpy(region, hdr, hdr_len + n);
	size_t have = n;
	int st = Z_OK;
	while (st == Z_OK) {
		region = r->arena + r->arena_len;
		zs->out = region + hdr_len + have;
		zs->out_left = cap - have;
		st = zrun(zs, Z_FINISH, lines);
		have = cap - zs->out_left;
		if (st == Z_MEM_ERROR) {
			return SKG_LOOSE_NOMEM;
		}
		if (st == Z_BUF_ERROR && zs->out_left == 0 && cap < size) {
			/* Full, but git's buffer would not be: grow and go on. */
			size_t ncap = cap > size / 2 ? (size_t)size : cap * 2;
			if (!arena_reserve(r, hdr_len + ncap + 1)) {
				return SKG_LOOSE_NOMEM;
			}
			cap = ncap;
			st = Z_OK;
		}
	}
	region = r->arena + r->arena_len;
	if (st != Z_STREAM_END || zs->in_left != 0) {
		if (st < 0) {
			skg_lines_add(lines, "error: ", "corrupt loose object '%s'", hex);
		} else if (zs->in_left != 0) {
			skg_lines_add(lines, "error: ", "garbage at end of loose object '%s'", hex);
		}
		skg_lines_add(lines, "error: ", "unable to unpack contents of %s", path);
		return corrupt(r, out, hex, path, lines);
	}
	return deliver(r, hdr_len, have, hex, expect, path, out, lines, defer, reg);
}

/*
 * An object inflated into the arena at arena_len (header, then `have` bytes of content): its ID
 * now, or STATUS_PENDING for a batch (`defer`, and the content is as long as the header says).
 */
static int deliver(struct skg_loose_reader *r, size_t hdr_len, size_t have, const char *hex,
                   const uint8_t *expect, const char *path, struct skg_loose_object *out,
                   struct skg_lines *lines, bool defer, struct region *reg)
{
	uint64_t size = out->size;
	uint8_t *region = r->arena + r->arena_len;
	region[hdr_len + have] = '\0';
	out->content = region + hdr_len;
	if (r->opt.no_hash && have == size) {
		return out->type == SKG_NONE ? SKG_LOOSE_UNKNOWN_TYPE : SKG_LOOSE_OK;
	}
	if (have == size && defer && size < SOLO_SIZE) {
		reg->hdr_len = hdr_len;
		reg->len = hdr_len + have + 1;
		return STATUS_PENDING;
	}
	uint8_t digest[SKG_MAX_RAWSZ];
	sha1kit_dc_detection where;
	if (have == size) {
		id_oneshot(r->rawsz, region, hdr_len + have, digest, &where);
	} else {
		/* Shorter than the header says: git hashes its whole buffer, see loose.h. */
		struct id_hash c;
		id_init(&c, r->rawsz);
		id_update(&c, region, hdr_len + have);
		for (uint64_t left = size - have; left > 0;) {
			size_t k = left < sizeof(zeros) ? (size_t)left : sizeof(zeros);
			id_update(&c, zeros, k);
			left -= k;
		}
		id_final(&c, digest, &where);
	}
	int status = finish(out, r->rawsz, hex, expect, path, lines, digest, &where);
	if (have < size && out->content != NULL) {
		/* The padded ID is the path's: the content is what git would hand on, zeros included. */
		if (!arena_reserve(r, hdr_len + (size_t)size + 1)) {
			skg_lines_clear(lines);
			return SKG_LOOSE_NOMEM;
		}
		region = r->arena + r->arena_len;
		memset(region + hdr_len + have, 0, (size_t)size - have + 1);
		out->content = region + hdr_len;
	}
	return status;
}

/*
 * The header step of git's unpack_loose_header(): reset the stream and inflate data[0..len) into
 * hdr, at most HEADER_BUF bytes, once. *produced gets the bytes made, *zst zlib's status. False
 * (after git's fatal line) when the stream cannot be reset or memory runs out.
 */
static bool header_step(struct skg_loose_reader *r, const uint8_t *data, size_t len,
                        uint8_t hdr[HEADER_BUF + 1], size_t *produced, int *zst, struct skg_lines *lines)
{
	struct zs *zs = &r->zs;
	if (inflateReset(&zs->z) != Z_OK) {
		skg_lines_add(lines, "fatal: ", "inflateInit: %s (%s)", skg_zerr_name(Z_STREAM_ERROR),
		              "no message");
		return false;
	}
	zs->in = data;
	zs->in_left = len;
	zs->out = hdr;
	zs->out_left = HEADER_BUF;
	*zst = zrun(zs, Z_NO_FLUSH, lines);
	if (*zst == Z_MEM_ERROR) {
		return false; /* an error of the run: no line */
	}
	*produced = HEADER_BUF - zs->out_left;
	return true;
}

/*
 * Inflate and check the loose object file contents data[0..len) (len > 0). Returns a status, or
 * STATUS_PENDING when `defer` is set and the object waits for a batch (*reg says where).
 */
static int load(struct skg_loose_reader *r, const uint8_t *data, size_t len, const char *path,
                const char *hex, const uint8_t *expect, skg_loose_stream_fn stream, void *sctx,
                struct skg_loose_object *out, struct skg_lines *lines, bool defer, struct region *reg)
{
	uint8_t hdr[HEADER_BUF + 1];
	size_t produced;
	int st = Z_OK;
	if (!header_step(r, data, len, hdr, &produced, &st, lines)) {
		return st == Z_MEM_ERROR ? SKG_LOOSE_NOMEM : SKG_LOOSE_FATAL;
	}
	if (st < Z_OK || memchr(hdr, '\0', produced) == NULL) {
		skg_lines_add(lines, "error: ", "unable to unpack header of %s", path);
		return corrupt(r, out, hex, path, lines);
	}
	int pr = parse_header((const char *)hdr, out, lines);
	if (pr == SKG_LOOSE_FATAL) {
		return pr;
	}
	if (pr < 0) {
		skg_lines_add(lines, "error: ", "unable to parse header of %s", path);
		return corrupt(r, out, hex, path, lines);
	}
	if (out->type == SKG_NONE && r->opt.unknown_type_corrupt) {
		/* git 2.50+: read_loose_object fails at a type it does not know, before the content */
		skg_lines_add(lines, "error: ", "unable to parse type from header '%s' of %s",
		              (const char *)hdr, path);
		return corrupt(r, out, hex, path, lines);
	}
	size_t hdr_len = strlen((const char *)hdr) + 1;
	if (out->type == SKG_BLOB && out->size > r->opt.big_file_threshold) {
		return stream_rest(r, hdr, produced, hdr_len, hex, expect, path, stream, sctx, out, lines);
	}
#if defined(SK_HAVE_LIBDEFLATE)
	/*
	 * The whole stream in one libdeflate call, into exactly header + size bytes. Taken only when
	 * zlib's sequence would end the same way: the stream ends (checksum verified) with all of the
	 * file consumed and exactly that many bytes out; anything else is redone by zlib below, whose
	 * state is still that of the header step.
	 */
	uint64_t whole = (uint64_t)hdr_len + out->size;
	if (r->ld != NULL && out->size != UINT64_MAX && whole < ZLIB_CAP && len <= ZLIB_CAP &&
	    (r->opt.max_size == 0 || out->size < r->opt.max_size) && arena_reserve(r, (size_t)whole + 1)) {
		size_t in_used = 0, out_used = 0;
		uint8_t *region = r->arena + r->arena_len;
		if (libdeflate_zlib_decompress_ex(r->ld, data, len, region, (size_t)whole, &in_used,
		                                  &out_used) == LIBDEFLATE_SUCCESS &&
		    in_used == len && out_used == whole) {
			return deliver(r, hdr_len, (size_t)out->size, hex, expect, path, out, lines, defer,
			               reg);
		}
	}
#endif
	return buffer_rest(r, hdr, produced, hdr_len, len, hex, expect, path, out, lines, defer, reg);
}

static void object_init(struct skg_loose_object *out)
{
	memset(out, 0, sizeof(*out));
	out->where.dv = -1;
}

static int empty_file(const struct skg_loose_object *out, const char *hex, const char *path,
                      struct skg_lines *lines)
{
	skg_lines_add(lines, "error: ", "object file %s is empty", path);
	/* git's mmap step reports the errno it finds, which is ENOENT from its start-up. */
	skg_lines_add(lines, "error: ", "unable to mmap %s: %s", path, strerror(ENOENT));
	return corrupt(NULL, out, hex, path, lines);
}

/* Read all of fd (st_size `len`) into r->file; the number of bytes read, or -1 with errno. */
static ssize_t read_all(struct skg_loose_reader *r, int fd, size_t len)
{
	if (len > r->file_cap) {
		uint8_t *nb = realloc(r->file, len);
		if (nb == NULL) {
			errno = ENOMEM;
			return -1;
		}
		r->file = nb;
		r->file_cap = len;
	}
	size_t got = 0;
	while (got < len) {
		ssize_t k = read(fd, r->file + got, len - got);
		if (k < 0) {
			if (errno == EINTR) {
				continue;
			}
			return -1;
		}
		if (k == 0) {
			break;
		}
		got += (size_t)k;
	}
	return (ssize_t)got;
}

static int read_file(struct skg_loose_reader *r, const char *path, const uint8_t *expect,
                     skg_loose_stream_fn stream, void *sctx, struct skg_loose_object *out,
                     struct skg_lines *lines, bool defer, struct region *reg)
{
	char hex[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(expect, r->rawsz, hex);
	skg_lines_clear(lines);
	object_init(out);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		skg_lines_add(lines, "error: ", "unable to mmap %s: %s", path, strerror(errno));
		return corrupt(r, out, hex, path, lines);
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		skg_lines_add(lines, "error: ", "unable to mmap %s: %s", path, strerror(e));
		return corrupt(r, out, hex, path, lines);
	}
	if (st.st_size == 0) {
		close(fd);
		return empty_file(out, hex, path, lines);
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > SIZE_MAX) {
		/* git maps it and dies: a directory cannot be mapped. */
		close(fd);
		skg_lines_add(lines, "fatal: ", "mmap failed: %s",
		              strerror(S_ISREG(st.st_mode) ? ENOMEM : ENODEV));
		return SKG_LOOSE_FATAL;
	}
	size_t len = (size_t)st.st_size;
	const uint8_t *data;
	void *map = NULL;
	if (len <= FILE_READ_MAX) {
		ssize_t got = read_all(r, fd, len);
		int e = errno;
		close(fd);
		if (got < 0 && e == ENOMEM) {
			return SKG_LOOSE_NOMEM;
		}
		if (got < 0) {
			skg_lines_add(lines, "error: ", "unable to mmap %s: %s", path, strerror(e));
			return corrupt(r, out, hex, path, lines);
		}
		if (got == 0) {
			return empty_file(out, hex, path, lines); /* emptied since fstat */
		}
		len = (size_t)got;
		data = r->file;
	} else {
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		int e = errno;
		close(fd);
		if (map == MAP_FAILED) {
			skg_lines_add(lines, "fatal: ", "mmap failed: %s", strerror(e));
			return SKG_LOOSE_FATAL;
		}
		data = map;
	}
	int status = load(r, data, len, path, hex, expect, stream, sctx, out, lines, defer, reg);
	if (map != NULL) {
		munmap(map, len);
	}
	return status;
}

int skg_loose_read(struct skg_loose_reader *r, const char *path, const uint8_t *expect_id,
                   skg_loose_stream_fn stream, void *stream_ctx, struct skg_loose_object *out,
                   struct skg_lines *lines)
{
	arena_release(r);
	return read_file(r, path, expect_id, stream, stream_ctx, out, lines, false, NULL);
}

int skg_loose_parse(struct skg_loose_reader *r, const uint8_t *data, size_t len, const char *path,
                    const uint8_t *expect_id, skg_loose_stream_fn stream, void *stream_ctx,
                    struct skg_loose_object *out, struct skg_lines *lines)
{
	char hex[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(expect_id, r->rawsz, hex);
	arena_release(r);
	skg_lines_clear(lines);
	object_init(out);
	if (len == 0) {
		return empty_file(out, hex, path, lines);
	}
	return load(r, data, len, path, hex, expect_id, stream, stream_ctx, out, lines, false, NULL);
}

/* ---- The whole directory, with batched IDs -------------------------------------------------- */

struct walk {
	struct skg_loose_reader *r;
	skg_loose_checked_fn on_object;
	skg_loose_report_fn on_report;
	void *ctx;
};

/* Hash the pending objects together and deliver them in order. */
static int flush(struct walk *w)
{
	struct skg_loose_reader *r = w->r;
	size_t n = r->npend;
	if (n == 0) {
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		r->msgs[i].data = r->arena + r->pend[i].region_off;
		r->msgs[i].len = r->pend[i].hdr_len + (size_t)r->pend[i].obj.size;
	}
	if (r->rawsz == SKG_MAX_RAWSZ) {
		sha1kit_sha256_batch(r->msgs, n, r->digests);
		for (size_t i = 0; i < n; i++) {
			memset(&r->where[i], 0, sizeof(r->where[i]));
			r->where[i].dv = -1;
		}
	} else {
		sha1kit_dc_batch(r->msgs, n, NULL, r->digests, r->where);
	}
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct pending *p = &r->pend[i];
		const char *path = r->paths + p->path_off;
		char hex[SKG_MAX_HEXSZ + 1];
		skg_to_hex_len(p->expect, r->rawsz, hex);
		p->obj.content = r->arena + p->region_off + p->hdr_len;
		skg_lines_clear(&r->blines);
		int st = finish(&p->obj, r->rawsz, hex, p->expect, path, &r->blines,
		                r->digests + r->rawsz * i, &r->where[i]);
		rc = w->on_object(w->ctx, p->expect, path, st, &p->obj, &r->blines);
	}
	r->npend = 0;
	r->paths_len = 0;
	return rc;
}

/* Keep a copy of path for a pending object; its offset, or SIZE_MAX when out of memory. */
static size_t keep_path(struct skg_loose_reader *r, const char *path)
{
	size_t len = strlen(path) + 1;
	if (r->paths_len + len > r->paths_cap) {
		size_t cap = r->paths_cap ? r->paths_cap : 4096;
		while (cap < r->paths_len + len) {
			cap *= 2;
		}
		char *np = realloc(r->paths, cap);
		if (np == NULL) {
			return SIZE_MAX;
		}
		r->paths = np;
		r->paths_cap = cap;
	}
	memcpy(r->paths + r->paths_len, path, len);
	size_t off = r->paths_len;
	r->paths_len += len;
	return off;
}

static int walk_object(void *vctx, const uint8_t *id, const char *path)
{
	struct walk *w = vctx;
	struct skg_loose_reader *r = w->r;
	struct skg_loose_object obj;
	struct region reg = {0, 0};
	int st = read_file(r, path, id, NULL, NULL, &obj, &r->lines, true, &reg);
	if (st == STATUS_PENDING) {
		size_t off = keep_path(r, path);
		if (off != SIZE_MAX) {
			struct pending *p = &r->pend[r->npend++];
			p->path_off = off;
			p->region_off = r->arena_len;
			p->hdr_len = reg.hdr_len;
			memcpy(p->expect, id, r->rawsz);
			p->obj = obj;
			p->obj.content = NULL;
			r->arena_len += reg.len;
			if (r->npend < BATCH_MAX && r->arena_len < BATCH_BYTES) {
				return 0;
			}
			int rc = flush(w);
			arena_release(r);
			return rc;
		}
		/* No memory to keep it waiting: hash it alone now. */
		char hex[SKG_MAX_HEXSZ + 1];
		skg_to_hex_len(id, r->rawsz, hex);
		uint8_t digest[SKG_MAX_RAWSZ];
		sha1kit_dc_detection where;
		const uint8_t *region = r->arena + r->arena_len;
		id_oneshot(r->rawsz, region, reg.hdr_len + (size_t)obj.size, digest, &where);
		obj.content = region + reg.hdr_len;
		st = finish(&obj, r->rawsz, hex, id, path, &r->lines, digest, &where);
	}
	int rc = flush(w);
	if (rc == 0) {
		rc = w->on_object(w->ctx, id, path, st, &obj, &r->lines);
	}
	arena_release(r);
	return rc;
}

/* A report of the walk: objects read before it are delivered first, to keep git's order. */
static int walk_report(void *vctx, const char *line, bool is_error)
{
	struct walk *w = vctx;
	int rc = flush(w);
	arena_release(w->r);
	if (rc == 0 && w->on_report != NULL) {
		rc = w->on_report(w->ctx, line, is_error);
	}
	return rc;
}

int skg_loose_check_all(struct skg_loose_reader *r, const char *objdir, skg_loose_checked_fn on_object,
                        skg_loose_report_fn on_report, void *ctx)
{
	return skg_loose_check_dirs(r, objdir, 0, 256, on_object, on_report, ctx);
}

int skg_loose_check_dirs(struct skg_loose_reader *r, const char *objdir, unsigned first, unsigned count,
                         skg_loose_checked_fn on_object, skg_loose_report_fn on_report, void *ctx)
{
	struct walk w = {r, on_object, on_report, ctx};
	arena_release(r);
	r->npend = 0;
	r->paths_len = 0;
	int rc = for_each_range(objdir, r->rawsz, first, count, walk_object, walk_report, &w);
	if (rc == 0) {
		rc = flush(&w);
	}
	r->npend = 0;
	r->paths_len = 0;
	arena_release(r);
	return rc;
}

/* ---- An object read again, as git's object store reads it (parse_object) ---------------------- */

/*
 * The header step of git's loose_object_info() (object-file.c, git 2.39.5): map (an empty file
 * fails), inflate up to MAX_HEADER_LEN bytes once, parse. 0 with *type and *size, or -1 after
 * git's line. Leaves r->zs after the header step and hdr[] with what it inflated (*produced).
 */
static int reparse_header(struct skg_loose_reader *r, const uint8_t *data, size_t len, const char *path,
                          const char *hex, uint8_t hdr[HEADER_BUF + 1], size_t *produced,
                          struct skg_loose_object *obj, struct skg_lines *lines)
{
	object_init(obj);
	if (len == 0) {
		skg_lines_add(lines, "error: ", "object file %s is empty", path);
		return -1;
	}
	int st;
	if (!header_step(r, data, len, hdr, produced, &st, lines)) {
		return SKG_LOOSE_FATAL;
	}
	hdr[*produced] = '\0';
	if (st != Z_OK && st != Z_STREAM_END) {
		skg_lines_add(lines, "error: ", "unable to unpack %s header", hex);
		return -1;
	}
	if (memchr(hdr, '\0', *produced) == NULL) {
		skg_lines_add(lines, "error: ", "header for %s too long, exceeds %d bytes", hex, HEADER_BUF);
		return -1;
	}
	int pr = parse_header((const char *)hdr, obj, lines);
	if (pr == SKG_LOOSE_FATAL) {
		return pr;
	}
	if (pr < 0) {
		skg_lines_add(lines, "error: ", "unable to parse %s header", hex);
		return -1;
	}
	if (obj->type == SKG_NONE) {
		skg_lines_add(lines, "fatal: ", "invalid object type");
		return SKG_LOOSE_FATAL;
	}
	return 0;
}

/* The ID of header + content (git's check_object_signature); -1 when git dies on a collision. */
static int reparse_same(const struct skg_loose_object *obj, size_t rawsz, const uint8_t *content, size_t n,
                        const uint8_t *id, struct skg_lines *lines)
{
	char h[SKG_HEADER_MAX];
	size_t hl = skg_object_header(h, obj->type, obj->size);
	struct id_hash c;
	uint8_t got[SKG_MAX_RAWSZ];
	sha1kit_dc_detection where;
	id_init(&c, rawsz);
	id_update(&c, h, hl);
	id_update(&c, content, n);
	id_final(&c, got, &where);
	if (where.dv >= 0) {
		char gh[SKG_MAX_HEXSZ + 1];
		skg_to_hex_len(got, rawsz, gh);
		skg_lines_add(lines, "fatal: ", "SHA-1 appears to be part of a collision attack: %s", gh);
		return -1;
	}
	return memcmp(got, id, rawsz) == 0;
}

/*
 * A blob through git's stream (stream_object_signature, read_istream_loose): the content after
 * the header, Z_FINISH steps until the stream ends (what follows it is not looked at) or fails;
 * everything it gives is hashed. Returns as skg_loose_reparse.
 */
static int reparse_stream(struct skg_loose_reader *r, const uint8_t *data, size_t len, const char *path,
                          const char *hex, const uint8_t *id, struct skg_lines *lines)
{
	uint8_t hdr[HEADER_BUF + 1];
	size_t produced = 0;
	struct skg_loose_object obj;
	int st = reparse_header(r, data, len, path, hex, hdr, &produced, &obj, lines);
	if (st == SKG_LOOSE_FATAL) {
		return SKG_REPARSE_DIES;
	}
	int same = 0;
	if (st == 0 && obj.size < r->opt.max_size && obj.size < SIZE_MAX) {
		/* one byte more than the header says: a stream that gives more does not match */
		size_t want = (size_t)obj.size + 1, hdr_len = strlen((const char *)hdr) + 1;
		uint8_t *buf = malloc(want);
		if (buf == NULL) {
			fatal_oom(lines, want);
			return SKG_REPARSE_DIES;
		}
		size_t n = produced - hdr_len < want ? produced - hdr_len : want;
		memcpy(buf, hdr + hdr_len, n);
		struct zs *zs = &r->zs;
		zs->out = buf + n;
		zs->out_left = want - n;
		int zst = Z_OK;
		while (zst == Z_OK && zs->out_left > 0) {
			zst = zrun(zs, Z_FINISH, lines);
		}
		size_t got = want - zs->out_left;
		if (zst == Z_STREAM_END || (zst == Z_BUF_ERROR && got >= obj.size) ||
		    (zst == Z_OK && got >= obj.size)) {
			same = got == obj.size ? reparse_same(&obj, r->rawsz, buf, got, id, lines) : 0;
		}
		free(buf);
		if (same < 0) {
			return SKG_REPARSE_DIES;
		}
	}
	if (!same) {
		skg_lines_add(lines, "error: ", "hash mismatch %s", hex);
		return SKG_REPARSE_MISMATCH;
	}
	return SKG_REPARSE_OK;
}

/*
 * read_object_file()'s read of a loose object (object-file.c: loose_object_info with contentp,
 * unpack_loose_rest; git 2.39.5): the header step again, then the content after what the header
 * step inflated, Z_FINISH until the stream ends or fails; then nothing of the file may be left.
 * 0 with *obj and a malloc'd *buf of obj->size bytes and a NUL; -1 when the read fails (git's
 * lines given; git then dies with "loose object ... is corrupt", which the caller adds); 1 when
 * git dies here (its fatal line given: a bad type, an allocation git cannot make); 2 when malloc
 * failed (no line).
 */
static int read_rest(struct skg_loose_reader *r, const uint8_t *data, size_t len, const char *path,
                     const char *hex, struct skg_loose_object *obj, uint8_t **buf, struct skg_lines *lines)
{
	uint8_t hdr[HEADER_BUF + 1];
	size_t produced = 0;
	int st = reparse_header(r, data, len, path, hex, hdr, &produced, obj, lines);
	if (st == SKG_LOOSE_FATAL) {
		return 1;
	}
	if (st != 0) {
		return -1;
	}
	size_t hdr_len = strlen((const char *)hdr) + 1;
	if (obj->size >= r->opt.max_size || obj->size >= SIZE_MAX) {
		fatal_oom(lines, obj->size + 1);
		return 1;
	}
	/* as fsck's read (see load): what a short stream leaves out reads as zeros */
	uint8_t *b = calloc(1, (size_t)obj->size + 1);
	if (b == NULL) {
		return 2;
	}
	size_t n = produced - hdr_len;
	if (n > obj->size) {
		n = (size_t)obj->size;
	}
	memcpy(b, hdr + hdr_len, n);
	struct zs *zs = &r->zs;
	zs->out = b + n;
	zs->out_left = (size_t)obj->size - n;
	int zst = Z_OK;
	while (zst == Z_OK) {
		zst = zrun(zs, Z_FINISH, lines);
	}
	if (zst != Z_STREAM_END || zs->in_left > 0) {
		if (zst < 0) {
			skg_lines_add(lines, "error: ", "corrupt loose object '%s'", hex);
		} else if (zs->in_left > 0) {
			skg_lines_add(lines, "error: ", "garbage at end of loose object '%s'", hex);
		}
		free(b);
		return -1;
	}
	*buf = b;
	return 0;
}

int skg_loose_stored_info(struct skg_loose_reader *r, const uint8_t *data, size_t len, const char *path,
                          const char *hex, unsigned *type, uint64_t *size, struct skg_lines *lines)
{
	uint8_t hdr[HEADER_BUF + 1];
	size_t produced = 0;
	struct skg_loose_object obj;
	skg_lines_clear(lines);
	int st = reparse_header(r, data, len, path, hex, hdr, &produced, &obj, lines);
	if (st == SKG_LOOSE_FATAL) {
		return SKG_STORED_DIES;
	}
	if (st != 0) {
		return SKG_STORED_FAILED;
	}
	*type = obj.type;
	*size = obj.size;
	return SKG_STORED_OK;
}

int skg_loose_stored_read(struct skg_loose_reader *r, const uint8_t *data, size_t len, const char *path,
                          const char *hex, uint8_t **content, size_t *content_len, unsigned *type,
                          struct skg_lines *lines)
{
	struct skg_loose_object obj;
	skg_lines_clear(lines);
	*content = NULL;
	*content_len = 0;
	int st = read_rest(r, data, len, path, hex, &obj, content, lines);
	if (st == 2) {
		return SKG_STORED_NOMEM;
	}
	if (st < 0) {
		/* read_object_file_extended(): the loose file is there, so git dies */
		skg_lines_add(lines, "fatal: ", "loose object %s (stored in %s) is corrupt", hex, path);
	}
	if (st != 0) {
		return SKG_STORED_DIES;
	}
	*content_len = (size_t)obj.size;
	if (type != NULL) {
		*type = obj.type;
	}
	return SKG_STORED_OK;
}

int skg_loose_reparse(struct skg_loose_reader *r, const uint8_t *data, size_t len, const char *path,
                      const uint8_t *id, unsigned known_type, unsigned *type, uint8_t **content,
                      size_t *content_len, struct skg_lines *lines)
{
	if (content != NULL) {
		*content = NULL;
		*content_len = 0;
	}
	char hex[SKG_MAX_HEXSZ + 1];
	uint8_t hdr[HEADER_BUF + 1];
	size_t produced = 0;
	struct skg_loose_object obj;
	skg_to_hex_len(id, r->rawsz, hex);
	skg_lines_clear(lines);
	*type = SKG_NONE;
	int st;
	if (known_type == SKG_NONE || known_type == SKG_BLOB) {
		/* parse_object of an object git has not met, or knows as a blob: oid_object_info()
		 * first, and a blob is streamed */
		st = reparse_header(r, data, len, path, hex, hdr, &produced, &obj, lines);
		if (st == SKG_LOOSE_FATAL) {
			return SKG_REPARSE_DIES;
		}
		if (st == 0 && obj.type == SKG_BLOB) {
			*type = SKG_BLOB;
			return reparse_stream(r, data, len, path, hex, id, lines);
		}
	}
	/* read_object_file(): the header (again), then the content */
	uint8_t *buf = NULL;
	st = read_rest(r, data, len, path, hex, &obj, &buf, lines);
	if (st == 2) {
		fatal_oom(lines, obj.size + 1);
	}
	if (st > 0) {
		return SKG_REPARSE_DIES;
	}
	if (st < 0) {
		goto dies;
	}
	int same = reparse_same(&obj, r->rawsz, buf, (size_t)obj.size, id, lines);
	if (same <= 0) {
		free(buf);
		if (same < 0) {
			return SKG_REPARSE_DIES;
		}
		skg_lines_add(lines, "error: ", "hash mismatch %s", hex);
		return SKG_REPARSE_MISMATCH;
	}
	*type = obj.type;
	if (content != NULL) {
		*content = buf;
		*content_len = (size_t)obj.size;
	} else {
		free(buf);
	}
	return SKG_REPARSE_OK;
dies:
	if (len == 0 && r->opt.empty_not_found) {
		return SKG_REPARSE_MISMATCH; /* git 2.40+: an empty file is no object, not a corrupt one */
	}
	/* read_object_file_extended(): the loose file is there, so git dies */
	skg_lines_add(lines, "fatal: ", "loose object %s (stored in %s) is corrupt", hex, path);
	return SKG_REPARSE_DIES;
}
