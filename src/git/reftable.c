/*
 * reftable.c - reading a reftable stack (reftable.h).
 *
 * The format is Git's Documentation/technical/reftable.adoc (v2.55.0); the reader's choices where
 * the document leaves them open follow git's reftable/ (v2.55.0), cited where they apply. The code
 * is this project's own.
 */
#include "reftable.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

/* ---- Fixed-width fields and varints (reftable.adoc "Network byte order", "Varint encoding") --- */

static uint32_t be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | be24(p + 1);
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* A cursor over bytes [p, end). */
struct cur {
	const uint8_t *p, *end;
};

/* The ofs-delta varint of the document ("val = ((val + 1) << 7) | next"); false when it runs past
 * the end or overflows 64 bits (git's get_var_int refuses both). */
static bool get_varint(struct cur *c, uint64_t *out)
{
	if (c->p >= c->end) {
		return false;
	}
	uint8_t b = *c->p++;
	uint64_t v = b & 0x7f;
	while (b & 0x80) {
		v++;
		if (v == 0 || (v >> 57) != 0) {
			return false;
		}
		if (c->p >= c->end) {
			return false;
		}
		b = *c->p++;
		v = (v << 7) | (b & 0x7f);
	}
	*out = v;
	return true;
}

static bool get_bytes(struct cur *c, size_t n, const uint8_t **out)
{
	if ((size_t)(c->end - c->p) < n) {
		return false;
	}
	*out = c->p;
	c->p += n;
	return true;
}

/* ---- One table ---------------------------------------------------------------------------- */

#define HEADER_V1      24
#define HEADER_V2      28
#define FOOTER_V1      68
#define FOOTER_V2      72
#define BLOCK_REF      'r'
#define BLOCK_LOG      'g'
#define BLOCK_OBJ      'o'
#define BLOCK_IDX      'i'
#define SHA1_FORMAT_ID 0x73686131u /* "sha1" */
#define S256_FORMAT_ID 0x73323536u /* "s256" */

struct table {
	const uint8_t *data;
	size_t size; /* without the footer: where blocks end (git's reftable_table.size) */
	size_t header_len;
	uint32_t block_size;
	uint64_t min_update_index;
	uint64_t log_position;
	size_t rawsz; /* object IDs: 20 (version 1, or 2 with hash ID "sha1") or 32 ("s256") */
	bool has_refs, has_logs;
	const char *name;
	struct skg_error *err;
	int (*on_ref)(void *ctx, const struct skg_reftable_ref *r);
	int (*on_log)(void *ctx, const struct skg_reftable_log *l);
	void *ctx;
	struct skg_buf key, strs;
	uint8_t *inflated;
	size_t inflated_cap;
	/* for a stack: set, and the log section ended, when a log block does not inflate (NULL: the
	 * table is corrupt) */
	bool *logs_unreadable;
};

static int corrupt(struct table *t, const char *what)
{
	return skg_fail(t->err, "%s: corrupt reftable file (%s)", t->name, what);
}

/* Header and footer (reftable.adoc "Header", "Footer", "Reading the footer"). */
static int parse_header_footer(struct table *t, size_t len)
{
	const uint8_t *d = t->data;
	if (len < HEADER_V1 || memcmp(d, "REFT", 4) != 0) {
		return corrupt(t, "no REFT header");
	}
	if (d[4] != 1 && d[4] != 2) {
		return corrupt(t, "unknown version");
	}
	t->header_len = d[4] == 1 ? HEADER_V1 : HEADER_V2;
	size_t footer_len = d[4] == 1 ? FOOTER_V1 : FOOTER_V2;
	if (len < t->header_len + footer_len) {
		return corrupt(t, "too short for its header and footer");
	}
	const uint8_t *f = d + len - footer_len;
	/* the footer begins with a copy of the header (git's parse_footer compares them) */
	if (memcmp(f, d, t->header_len) != 0) {
		return corrupt(t, "the footer does not repeat the header");
	}
	uint32_t crc = (uint32_t)crc32(0L, f, (uInt)(footer_len - 4));
	if (crc != be32(f + footer_len - 4)) {
		return corrupt(t, "footer CRC-32 mismatch");
	}
	t->block_size = be24(d + 5);
	t->min_update_index = be64(d + 8);
	t->rawsz = SKG_RAWSZ;
	if (d[4] == 2) {
		uint32_t id = be32(d + 24);
		if (id == S256_FORMAT_ID) {
			t->rawsz = SKG_MAX_RAWSZ;
		} else if (id != SHA1_FORMAT_ID) {
			return corrupt(t, "unknown hash ID");
		}
	}
	const uint8_t *p = f + t->header_len;
	/* ref_index_position, obj_position << 5 | obj_id_len, obj_index_position, log_position,
	 * log_index_position */
	uint64_t obj = be64(p + 8);
	t->log_position = be64(p + 24);
	if ((obj >> 5) != 0 && (obj & 31) == 0) {
		return corrupt(t, "obj blocks without an ID length"); /* git's parse_footer */
	}
	t->size = len - footer_len;
	/* git (table.c parse_footer): the sections present from the first block's type */
	uint8_t first = t->size > t->header_len ? d[t->header_len] : 0;
	t->has_refs = first == BLOCK_REF;
	t->has_logs = first == BLOCK_LOG || t->log_position > 0;
	return 0;
}

/* A block's records: [rec, rec_end) of buf, buf[0] being the block's start (the file's start for
 * the first block, whose header offsets count). */
struct block {
	const uint8_t *buf;
	size_t rec, rec_end;
	uint8_t type;
	size_t full; /* bytes to the next block */
};

/*
 * The block at off (git's reftable_block_init): its type after the file header for the block at
 * offset 0; block_len counts from the block's start; restart_count and the restart offsets end it.
 * Returns 1 (a block), 0 (none: the end of the blocks), -1 (corrupt, err set).
 */
static int read_block(struct table *t, size_t off, struct block *b)
{
	if (off >= t->size) {
		return 0;
	}
	size_t hdr = off == 0 ? t->header_len : 0;
	size_t avail = t->size - off;
	if (avail < hdr + 4) {
		return corrupt(t, "truncated block header");
	}
	const uint8_t *p = t->data + off;
	b->type = p[hdr];
	if (b->type != BLOCK_REF && b->type != BLOCK_LOG && b->type != BLOCK_OBJ && b->type != BLOCK_IDX) {
		return corrupt(t, "unknown block type");
	}
	size_t block_len = be24(p + hdr + 1);
	if (b->type == BLOCK_LOG) {
		/* reftable.adoc "Log block format": block_len is the inflated size with the header;
		 * the rest is one zlib stream, and the next block begins where it ends */
		size_t skip = hdr + 4;
		if (block_len < skip + 2) {
			return corrupt(t, "log block too short");
		}
		if (t->inflated_cap < block_len) {
			uint8_t *n = realloc(t->inflated, block_len);
			if (n == NULL) {
				return skg_fail_sys(t->err, SKG_E_NOMEM, ENOMEM, "out of memory");
			}
			t->inflated = n;
			t->inflated_cap = block_len;
		}
		memcpy(t->inflated, p, skip);
		z_stream z;
		memset(&z, 0, sizeof(z));
		if (inflateInit(&z) != Z_OK) {
			return skg_fail_sys(t->err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		z.next_in = (Bytef *)(p + skip);
		z.avail_in = (uInt)(avail - skip > 0xffffffffu ? 0xffffffffu : avail - skip);
		z.next_out = t->inflated + skip;
		z.avail_out = (uInt)(block_len - skip);
		int zr = inflate(&z, Z_FINISH);
		size_t out = z.total_out, in = z.total_in;
		inflateEnd(&z);
		if (zr == Z_MEM_ERROR) {
			return skg_fail_sys(t->err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		/* git: zlib must end the stream, with exactly block_len bytes out. git reads a log block
		 * only when it iterates reflogs, and its reflog walks (fsck's, refs verify's) stop on the
		 * error without a word: a stack reads as one without reflogs (skg_reftable_open) */
		if (zr != Z_STREAM_END || out + skip != block_len) {
			if (t->logs_unreadable != NULL) {
				*t->logs_unreadable = true;
				return 0;
			}
			return corrupt(t, zr != Z_STREAM_END ? "log block does not inflate"
			                                     : "log block of the wrong inflated size");
		}
		b->buf = t->inflated;
		b->full = skip + in;
	} else {
		if (block_len > avail) {
			return corrupt(t, "block runs past the end");
		}
		b->buf = p;
		/* git: unaligned tables (block_size 0) have no padding; in aligned ones a short block
		 * followed by a non-NUL byte is not padded either */
		if (t->block_size == 0 || block_len >= t->block_size ||
		    (block_len < avail && p[block_len] != 0)) {
			b->full = block_len;
		} else {
			b->full = t->block_size;
		}
	}
	if (block_len < hdr + 4 + 2) {
		return corrupt(t, "block too short");
	}
	size_t restarts = be16(b->buf + block_len - 2);
	if (restarts == 0 || 3 * restarts + 2 > block_len - hdr - 4) {
		return corrupt(t, "bad restart table");
	}
	b->rec = hdr + 4;
	b->rec_end = block_len - 2 - 3 * restarts;
	return 1;
}

/* A record's key (reftable.adoc "ref record": prefix_length, suffix_length << 3 | type, suffix):
 * t->key becomes the previous key's prefix plus the suffix. */
static bool decode_key(struct table *t, struct cur *c, unsigned *type)
{
	uint64_t prefix, suffix;
	const uint8_t *s;
	if (!get_varint(c, &prefix) || !get_varint(c, &suffix)) {
		return false;
	}
	*type = (unsigned)(suffix & 7);
	suffix >>= 3;
	if (prefix > t->key.len || !get_bytes(c, (size_t)suffix, &s)) {
		return false;
	}
	skg_buf_setlen(&t->key, (size_t)prefix);
	skg_buf_add(&t->key, s, (size_t)suffix);
	return true;
}

static int nomem(struct table *t)
{
	return skg_fail_sys(t->err, SKG_E_NOMEM, ENOMEM, "out of memory");
}

/* A ref record's value (reftable.adoc "ref record"). 1 ok, 0 malformed, -1 failed (err set). */
static int ref_record(struct table *t, struct cur *c, unsigned type)
{
	struct skg_reftable_ref r = {.type = (enum skg_reftable_ref_type)type, .rawsz = t->rawsz};
	uint64_t delta;
	const uint8_t *v;
	if (!get_varint(c, &delta)) {
		return 0;
	}
	r.update_index = t->min_update_index + delta;
	switch (type) {
	case SKG_REFTABLE_DELETION:
		break;
	case SKG_REFTABLE_VAL1:
		if (!get_bytes(c, t->rawsz, &v)) {
			return 0;
		}
		memcpy(r.id, v, t->rawsz);
		break;
	case SKG_REFTABLE_VAL2:
		if (!get_bytes(c, 2 * t->rawsz, &v)) {
			return 0;
		}
		memcpy(r.id, v, t->rawsz);
		memcpy(r.peeled, v + t->rawsz, t->rawsz);
		break;
	case SKG_REFTABLE_SYMREF: {
		uint64_t n;
		if (!get_varint(c, &n) || !get_bytes(c, (size_t)n, &v)) {
			return 0;
		}
		t->strs.len = 0;
		skg_buf_add(&t->strs, v, (size_t)n);
		if (t->strs.failed) {
			return nomem(t);
		}
		r.target = t->strs.p;
		break;
	}
	default:
		return 0; /* 0x4..0x7: reserved */
	}
	if (t->key.failed) {
		return nomem(t);
	}
	r.name = t->key.p;
	if (t->on_ref != NULL && t->on_ref(t->ctx, &r) != 0) {
		return -1;
	}
	return 1;
}

/* A varint-prefixed string into t->strs, NUL-terminated; its offset in *off. */
static bool log_string(struct table *t, struct cur *c, size_t *off)
{
	uint64_t n;
	const uint8_t *s;
	if (!get_varint(c, &n) || !get_bytes(c, (size_t)n, &s)) {
		return false;
	}
	*off = t->strs.len;
	skg_buf_add(&t->strs, s, (size_t)n);
	skg_buf_addc(&t->strs, '\0');
	return true;
}

/* A log record (reftable.adoc "log record"): key refname NUL reverse_int64(update_index). Git's
 * record.c: the key is longer than 9 bytes with NUL before the index; type 0 is a deletion, any
 * other type carries log_data. 1 ok, 0 malformed, -1 failed. */
static int log_record(struct table *t, struct cur *c, unsigned type)
{
	struct skg_reftable_log l = {.rawsz = t->rawsz};
	if (t->key.failed) {
		return nomem(t);
	}
	size_t klen = t->key.len;
	const uint8_t *k = (const uint8_t *)t->key.p;
	if (klen <= 9 || k[klen - 9] != 0) {
		return 0;
	}
	l.refname = t->key.p;
	l.update_index = UINT64_MAX - be64(k + klen - 8);
	if (type != 0) {
		const uint8_t *v;
		size_t name, email, msg;
		uint64_t time;
		if (!get_bytes(c, 2 * t->rawsz, &v)) {
			return 0;
		}
		memcpy(l.old_id, v, t->rawsz);
		memcpy(l.new_id, v + t->rawsz, t->rawsz);
		t->strs.len = 0;
		if (!log_string(t, c, &name) || !log_string(t, c, &email) || !get_varint(c, &time) ||
		    !get_bytes(c, 2, &v)) {
			return 0;
		}
		l.time = time;
		l.tz_minutes = (int16_t)be16(v); /* sint16 */
		if (!log_string(t, c, &msg)) {
			return 0;
		}
		if (t->strs.failed) {
			return nomem(t);
		}
		l.name = t->strs.p + name;
		l.email = t->strs.p + email;
		l.message = t->strs.p + msg;
	}
	if (t->on_log != NULL && t->on_log(t->ctx, &l) != 0) {
		return -1;
	}
	return 1;
}

/* Every record of the section of type want that begins at off, block after block until a block of
 * another type or the end of the blocks (git's table_iter_next_block). */
static int scan_section(struct table *t, size_t off, uint8_t want)
{
	for (;;) {
		struct block b = {0};
		int r = read_block(t, off, &b);
		if (r <= 0) {
			return r;
		}
		if (b.type != want) {
			return 0;
		}
		struct cur c = {b.buf + b.rec, b.buf + b.rec_end};
		skg_buf_setlen(&t->key, 0);
		while (c.p < c.end) {
			unsigned type;
			if (!decode_key(t, &c, &type) || t->key.len == 0) {
				return t->key.failed ? nomem(t) : corrupt(t, "malformed record key");
			}
			r = want == BLOCK_REF ? ref_record(t, &c, type) : log_record(t, &c, type);
			if (r < 0) {
				return -1;
			}
			if (r == 0) {
				return corrupt(t, want == BLOCK_REF ? "malformed ref record"
				                                    : "malformed log record");
			}
		}
		off += b.full;
	}
}

static int parse_table(const uint8_t *data, size_t len, const char *name,
                       int (*on_ref)(void *ctx, const struct skg_reftable_ref *r),
                       int (*on_log)(void *ctx, const struct skg_reftable_log *l), void *ctx,
                       bool *logs_unreadable, struct skg_error *err)
{
	struct table t = {.data = data,
	                  .name = name,
	                  .err = err,
	                  .on_ref = on_ref,
	                  .on_log = on_log,
	                  .ctx = ctx,
	                  .logs_unreadable = logs_unreadable};
	int r = parse_header_footer(&t, len);
	if (r == 0 && t.has_refs) {
		r = scan_section(&t, 0, BLOCK_REF);
	}
	if (r == 0 && t.has_logs) {
		/* git: the log section starts at log_position (the first block when it is 0) */
		r = scan_section(&t, (size_t)t.log_position, BLOCK_LOG);
	}
	skg_buf_release(&t.key);
	skg_buf_release(&t.strs);
	free(t.inflated);
	return r < 0 ? -1 : 0;
}

int skg_reftable_parse(const uint8_t *data, size_t len, const char *name,
                       int (*on_ref)(void *ctx, const struct skg_reftable_ref *r),
                       int (*on_log)(void *ctx, const struct skg_reftable_log *l), void *ctx,
                       struct skg_error *err)
{
	return parse_table(data, len, name, on_ref, on_log, ctx, NULL, err);
}

/* ---- The stack ------------------------------------------------------------------------------ */

struct ref_rec {
	struct skg_reftable_ref r;
	size_t table;
	bool keep;
	char *mem; /* name and target */
};

struct log_rec {
	struct skg_reftable_log l;
	size_t table;
	bool deletion, keep;
	char *mem; /* refname, name, email, message */
};

struct skg_reftable_stack {
	struct ref_rec *refs;
	size_t nrefs, refs_cap;
	struct log_rec *logs;
	size_t nlogs, logs_cap;
	size_t table; /* the table being read */
	size_t rawsz; /* the repository's ID size (0: any) */
	char **names; /* the tables, as tables.list names them, oldest first */
	size_t nnames;
	bool logs_unreadable; /* a log block of a table does not inflate */
	struct skg_error *err;
};

static char *dup_strings(const char *const *s, size_t n, const char **out)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		total += s[i] != NULL ? strlen(s[i]) + 1 : 0;
	}
	char *mem = malloc(total ? total : 1);
	if (mem == NULL) {
		return NULL;
	}
	char *p = mem;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == NULL) {
			out[i] = NULL;
			continue;
		}
		size_t len = strlen(s[i]) + 1;
		memcpy(p, s[i], len);
		out[i] = p;
		p += len;
	}
	return mem;
}

static bool grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap) {
		return true;
	}
	size_t nc = *cap ? 2 * *cap : 64;
	void *a = realloc(*arr, nc * elem);
	if (a == NULL) {
		return false;
	}
	*arr = a;
	*cap = nc;
	return true;
}

static int collect_ref(void *ctx, const struct skg_reftable_ref *r)
{
	struct skg_reftable_stack *s = ctx;
	if (!grow((void **)&s->refs, &s->refs_cap, s->nrefs, sizeof(*s->refs))) {
		return skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	struct ref_rec *e = &s->refs[s->nrefs];
	e->r = *r;
	e->table = s->table;
	const char *in[2] = {r->name, r->target}, *out[2];
	e->mem = dup_strings(in, 2, out);
	if (e->mem == NULL) {
		return skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	e->r.name = out[0];
	e->r.target = out[1];
	s->nrefs++;
	return 0;
}

static int collect_log(void *ctx, const struct skg_reftable_log *l)
{
	struct skg_reftable_stack *s = ctx;
	if (!grow((void **)&s->logs, &s->logs_cap, s->nlogs, sizeof(*s->logs))) {
		return skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	struct log_rec *e = &s->logs[s->nlogs];
	e->l = *l;
	e->table = s->table;
	e->deletion = l->message == NULL;
	const char *in[4] = {l->refname, l->name, l->email, l->message}, *out[4];
	e->mem = dup_strings(in, 4, out);
	if (e->mem == NULL) {
		return skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	e->l.refname = out[0];
	e->l.name = out[1];
	e->l.email = out[2];
	e->l.message = out[3];
	s->nlogs++;
	return 0;
}

/* By name, the newest table first. */
static int ref_cmp(const void *va, const void *vb)
{
	const struct ref_rec *a = va, *b = vb;
	int c = strcmp(a->r.name, b->r.name);
	if (c != 0) {
		return c;
	}
	return a->table > b->table ? -1 : a->table < b->table;
}

/* By refname, then update index descending, the newest table first. */
static int log_cmp(const void *va, const void *vb)
{
	const struct log_rec *a = va, *b = vb;
	int c = strcmp(a->l.refname, b->l.refname);
	if (c != 0) {
		return c;
	}
	if (a->l.update_index != b->l.update_index) {
		return a->l.update_index > b->l.update_index ? -1 : 1;
	}
	return a->table > b->table ? -1 : a->table < b->table;
}

/* The merged view (reftable.adoc "Update transactions": a newer table's record of a key replaces
 * the older ones; deletions hide, as in git's merged iterator with deletions suppressed). The
 * records are sorted with the newest of each key first: keep that one unless it is a deletion. */
static void merge(struct skg_reftable_stack *s)
{
	if (s->nrefs > 1) {
		qsort(s->refs, s->nrefs, sizeof(*s->refs), ref_cmp);
	}
	for (size_t i = 0; i < s->nrefs; i++) {
		bool newest = i == 0 || strcmp(s->refs[i].r.name, s->refs[i - 1].r.name) != 0;
		s->refs[i].keep = newest && s->refs[i].r.type != SKG_REFTABLE_DELETION;
	}
	size_t n = 0;
	for (size_t i = 0; i < s->nrefs; i++) {
		if (s->refs[i].keep) {
			s->refs[n++] = s->refs[i];
		} else {
			free(s->refs[i].mem);
		}
	}
	s->nrefs = n;
	if (s->nlogs > 1) {
		qsort(s->logs, s->nlogs, sizeof(*s->logs), log_cmp);
	}
	for (size_t i = 0; i < s->nlogs; i++) {
		const struct log_rec *a = &s->logs[i], *b = i ? &s->logs[i - 1] : NULL;
		bool newest = b == NULL || strcmp(a->l.refname, b->l.refname) != 0 ||
		              a->l.update_index != b->l.update_index;
		s->logs[i].keep = newest && !a->deletion;
	}
	n = 0;
	for (size_t i = 0; i < s->nlogs; i++) {
		if (s->logs[i].keep) {
			s->logs[n++] = s->logs[i];
		} else {
			free(s->logs[i].mem);
		}
	}
	s->nlogs = n;
}

void skg_reftable_free(struct skg_reftable_stack *s)
{
	if (s == NULL) {
		return;
	}
	for (size_t i = 0; i < s->nrefs; i++) {
		free(s->refs[i].mem);
	}
	for (size_t i = 0; i < s->nlogs; i++) {
		free(s->logs[i].mem);
	}
	for (size_t i = 0; i < s->nnames; i++) {
		free(s->names[i]);
	}
	free(s->names);
	free(s->refs);
	free(s->logs);
	free(s);
}

size_t skg_reftable_table_count(const struct skg_reftable_stack *s)
{
	return s->nnames;
}

const char *skg_reftable_table_name(const struct skg_reftable_stack *s, size_t i)
{
	return s->names[i];
}

/* One table of the stack, read whole. */
static int read_table(struct skg_reftable_stack *s, const char *dir, const char *display, const char *name,
                      struct skg_buf *path, struct skg_buf *shown)
{
	path->len = 0;
	skg_buf_addf(path, "%s/%s", dir, name);
	shown->len = 0;
	skg_buf_addf(shown, "%s/%s", display, name);
	if (path->failed || shown->failed) {
		return skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	char *data = NULL;
	size_t len = 0;
	if (skg_read_file(path->p, SIZE_MAX, &data, &len) != 0) {
		if (errno == ENOMEM) {
			return skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		/* git's reftable_error_str(REFTABLE_NOT_EXIST_ERROR) for a table it cannot open */
		return skg_fail(s->err, "%s: file does not exist (%s)", shown->p, strerror(errno));
	}
	/* a table of the other hash ID than the repository's (git's reader: a format error) */
	const uint8_t *d = (const uint8_t *)data;
	size_t table_rawsz =
	    len >= 28 && d[4] == 2 && be32(d + 24) == S256_FORMAT_ID ? SKG_MAX_RAWSZ : SKG_RAWSZ;
	if (s->rawsz != 0 && len >= 28 && memcmp(d, "REFT", 4) == 0 && table_rawsz != s->rawsz) {
		free(data);
		return skg_fail(s->err, "%s: corrupt reftable file (hash ID '%s' in a %s repository)",
		                shown->p, table_rawsz == SKG_MAX_RAWSZ ? "s256" : "sha1",
		                s->rawsz == SKG_MAX_RAWSZ ? "SHA-256" : "SHA-1");
	}
	int r = parse_table((const uint8_t *)data, len, shown->p, collect_ref, collect_log, s,
	                    &s->logs_unreadable, s->err);
	free(data);
	return r;
}

int skg_reftable_open(struct skg_reftable_stack **out, const char *dir, const char *display, size_t rawsz,
                      struct skg_error *err)
{
	*out = NULL;
	struct skg_reftable_stack *s = calloc(1, sizeof(*s));
	struct skg_buf path = {0}, shown = {0};
	char *list = NULL;
	size_t len = 0;
	if (s == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	s->err = err;
	s->rawsz = rawsz;
	int r = 0;
	skg_buf_addf(&path, "%s/tables.list", dir);
	if (path.failed) {
		r = skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	} else if (skg_read_file(path.p, SIZE_MAX, &list, &len) != 0) {
		if (errno == ENOMEM) {
			r = skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		} else if (errno != ENOENT) {
			r = skg_fail_sys(err, SKG_E_IO, errno, "%s/tables.list: %s", display,
			                 strerror(errno));
		}
	}
	/* reftable.adoc "Layout": one table name a line, oldest first (git skips empty lines) */
	for (char *p = list; r == 0 && p != NULL && p < list + len;) {
		char *eol = memchr(p, '\n', (size_t)(list + len - p));
		if (eol == NULL) {
			/* git's parse_names: a last line without its newline is a format error, and git
			 * finds no refs at all (2.55's refs verify then crashes) */
			r = skg_fail(err, "%s/tables.list: corrupt (no newline at its end)", display);
			break;
		}
		*eol = '\0';
		if (*p != '\0') {
			if (strlen(p) != (size_t)(eol - p) || strchr(p, '/') != NULL) {
				r = skg_fail(err, "%s/tables.list: corrupt (bad table name)", display);
				break;
			}
			char **names = realloc(s->names, (s->nnames + 1) * sizeof(*names));
			char *name = names != NULL ? strdup(p) : NULL;
			if (names != NULL) {
				s->names = names;
			}
			if (name == NULL) {
				r = skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
				break;
			}
			s->names[s->nnames++] = name;
			r = read_table(s, dir, display, p, &path, &shown);
			s->table++;
		}
		p = eol + 1;
	}
	free(list);
	skg_buf_release(&path);
	skg_buf_release(&shown);
	if (r != 0) {
		skg_reftable_free(s);
		return -1;
	}
	/* git's merged log iterator fails, and its reflog walks see no reflogs, when the log block a
	 * table starts its section with does not inflate (a later block: the walk stops there;
	 * sha1kit drops them all) */
	if (s->logs_unreadable) {
		for (size_t i = 0; i < s->nlogs; i++) {
			free(s->logs[i].mem);
		}
		s->nlogs = 0;
	}
	merge(s);
	*out = s;
	return 0;
}

int skg_reftable_opens(const char *git_dir, size_t rawsz)
{
	char *dir = skg_path_join(git_dir, "reftable");
	if (dir == NULL) {
		return -1;
	}
	struct skg_reftable_stack *st = NULL;
	struct skg_error err;
	int r = skg_reftable_open(&st, dir, dir, rawsz, &err) == 0 ? 1 : err.code == SKG_E_NOMEM ? -1 : 0;
	skg_reftable_free(st);
	free(dir);
	return r;
}

size_t skg_reftable_ref_count(const struct skg_reftable_stack *s)
{
	return s->nrefs;
}

const struct skg_reftable_ref *skg_reftable_ref_at(const struct skg_reftable_stack *s, size_t i)
{
	return &s->refs[i].r;
}

const struct skg_reftable_ref *skg_reftable_find(const struct skg_reftable_stack *s, const char *name)
{
	size_t lo = 0, hi = s->nrefs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->refs[mid].r.name, name);
		if (c == 0) {
			return &s->refs[mid].r;
		}
		if (c < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return NULL;
}

size_t skg_reftable_log_count(const struct skg_reftable_stack *s)
{
	return s->nlogs;
}

const struct skg_reftable_log *skg_reftable_log_at(const struct skg_reftable_stack *s, size_t i)
{
	return &s->logs[i].l;
}
