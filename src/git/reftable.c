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
	uint64_t ref_index_position; /* the footer's: 0 when the refs have no index */
	/* for a stack (NULL: none is taken): a ref section of one block without an index whose
	 * record does not decode or whose keys are out of order, read as git reads it (struct gblock) */
	struct gblock **anomaly;
};

/*
 * A table's one ref block as git 2.55.0's reader takes it (reftable/block.c, table.c), kept where
 * the strict reading above stops or git's reads differ from it: a record that does not decode (git
 * reads the records before it, then fails: "could not read record"), keys out of order (git's
 * seeks stop at the first key not below the one sought). Offsets are in buf, the block's bytes
 * from its start (the file's start for the first block, whose header they count).
 */
struct gblock {
	uint8_t *buf; /* the file from the block on (git's buffer holds what follows the block) */
	size_t buf_len;
	size_t len;         /* the block's length (block_len) */
	size_t first;       /* the first record: the header's end, + 4 */
	size_t restart_off; /* where the restart offsets begin */
	uint32_t restarts;  /* their count */
	uint64_t min_update_index;
	size_t rawsz;
	bool next_fails; /* git's look at the block after it fails (an unknown block type) */
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
	t->ref_index_position = be64(p);
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
	size_t full;     /* bytes to the next block */
	size_t len;      /* block_len */
	size_t restarts; /* restart_count */
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
		if (block_len < skip) {
			/* (git's inflate would write before its buffer's start) */
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
	/* none at all is read on by git (scan_section keeps a ref block so for git's reader) */
	if ((restarts == 0 && b->type != BLOCK_REF) || 3 * restarts + 2 > block_len - hdr - 4) {
		return corrupt(t, "bad restart table");
	}
	b->rec = hdr + 4;
	b->rec_end = block_len - 2 - 3 * restarts;
	b->len = block_len;
	b->restarts = restarts;
	return 1;
}

/* A record's key (reftable.adoc "ref record": prefix_length, suffix_length << 3 | type, suffix):
 * key (the previous record's) becomes its prefix plus the suffix; the strict reader's t->key, git's
 * reader's last_key (block_next). */
static bool decode_key_into(struct cur *c, struct skg_buf *key, unsigned *type)
{
	uint64_t prefix, suffix;
	const uint8_t *s;
	if (!get_varint(c, &prefix) || !get_varint(c, &suffix)) {
		return false;
	}
	*type = (unsigned)(suffix & 7);
	suffix >>= 3;
	if (prefix > key->len || !get_bytes(c, (size_t)suffix, &s)) {
		return false;
	}
	skg_buf_setlen(key, (size_t)prefix);
	skg_buf_add(key, s, (size_t)suffix);
	return true;
}

static bool decode_key(struct table *t, struct cur *c, unsigned *type)
{
	return decode_key_into(c, &t->key, type);
}

/* A ref record's value (reftable.adoc "ref record") into *r (its name left to the caller): the
 * update index delta, then by type nothing, one ID, an ID and its peeled target, or a symbolic
 * ref's target (into strs, r->target its text). false when it does not decode or the type is
 * reserved (0x4..0x7). */
static bool ref_value(struct cur *c, unsigned type, size_t rawsz, uint64_t min_update_index,
                      struct skg_reftable_ref *r, struct skg_buf *strs)
{
	uint64_t delta, n;
	const uint8_t *v;
	*r = (struct skg_reftable_ref){.type = (enum skg_reftable_ref_type)type, .rawsz = rawsz};
	if (!get_varint(c, &delta)) {
		return false;
	}
	r->update_index = min_update_index + delta;
	switch (type) {
	case SKG_REFTABLE_DELETION:
		return true;
	case SKG_REFTABLE_VAL1:
	case SKG_REFTABLE_VAL2:
		if (!get_bytes(c, type * rawsz, &v)) {
			return false;
		}
		memcpy(r->id, v, rawsz);
		if (type == SKG_REFTABLE_VAL2) {
			memcpy(r->peeled, v + rawsz, rawsz);
		}
		return true;
	case SKG_REFTABLE_SYMREF:
		if (!get_varint(c, &n) || !get_bytes(c, (size_t)n, &v)) {
			return false;
		}
		skg_buf_setlen(strs, 0);
		skg_buf_add(strs, v, (size_t)n);
		r->target = strs->p;
		return true;
	default:
		return false; /* 0x4..0x7: reserved */
	}
}

static int nomem(struct table *t)
{
	return skg_fail_sys(t->err, SKG_E_NOMEM, ENOMEM, "out of memory");
}

/* A ref record (its key in t->key, its value ref_value's) to on_ref. 1 ok, 0 malformed, -1 failed
 * (err set). */
static int ref_record(struct table *t, struct cur *c, unsigned type)
{
	struct skg_reftable_ref r;
	if (!ref_value(c, type, t->rawsz, t->min_update_index, &r, &t->strs)) {
		return 0;
	}
	if (t->strs.failed || t->key.failed) {
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

/* Whether the ref section is one block without an index: its block at 0, the next one (at next)
 * not a ref block. *next_fails: git's look at that next block fails (an unknown type). */
static bool one_ref_block(const struct table *t, size_t next, bool *next_fails)
{
	*next_fails = false;
	if (t->ref_index_position != 0) {
		return false;
	}
	if (next >= t->size) {
		return true;
	}
	uint8_t type = t->data[next];
	*next_fails = type != BLOCK_REF && type != BLOCK_LOG && type != BLOCK_OBJ && type != BLOCK_IDX;
	return type != BLOCK_REF;
}

/* Keep the ref block b (at offset 0) for git's reader (struct gblock). 0, or -1 out of memory. */
static int keep_block(struct table *t, const struct block *b, bool next_fails)
{
	if (t->anomaly == NULL || *t->anomaly != NULL) {
		return 0;
	}
	/* the block and what follows it in the file, as git's buffer holds it (reftable_block_init
	 * reads the table's block size or more, up to the file's end): git's restart points may send
	 * it past the block (the footer follows the last block) */
	size_t file_len = t->size + (t->header_len == HEADER_V1 ? FOOTER_V1 : FOOTER_V2);
	size_t guess = t->block_size != 0 ? t->block_size : 4096; /* git's DEFAULT_BLOCK_SIZE */
	size_t n = guess > b->len ? guess : b->len;
	if (n > file_len) {
		n = file_len;
	}
	struct gblock *g = calloc(1, sizeof(*g));
	uint8_t *buf = g != NULL ? malloc(n) : NULL;
	if (buf == NULL) {
		free(g);
		return nomem(t);
	}
	memcpy(buf, b->buf, n);
	*g = (struct gblock){
	    buf,      n,         b->len, b->rec, b->rec_end, (uint32_t)b->restarts, t->min_update_index,
	    t->rawsz, next_fails};
	*t->anomaly = g;
	return 0;
}

/* Every record of the section of type want that begins at off, block after block until a block of
 * another type or the end of the blocks (git's table_iter_next_block). In a stack, a ref section of
 * one block (without an index) whose record does not decode, or whose keys are out of order, is
 * kept for git's reader (keep_block): the records before such a record are passed on, and the
 * section ends there; a reserved value type (0x4..0x7, on which git aborts) stays corrupt. */
static int scan_section(struct table *t, size_t off, uint8_t want)
{
	struct skg_buf prev = {0};
	int ret = 0;
	for (size_t nblock = 0;; nblock++) {
		struct block b = {0};
		int r = read_block(t, off, &b);
		if (r <= 0) {
			ret = r;
			break;
		}
		if (b.type != want) {
			break;
		}
		bool next_fails = false;
		bool single = want == BLOCK_REF && nblock == 0 && t->anomaly != NULL && off == 0 &&
		              one_ref_block(t, b.full, &next_fails);
		if (b.restarts == 0) {
			/* git's seeks read a restart point that is not there (the count's bytes) */
			if (!single) {
				ret = corrupt(t, "bad restart table");
				break;
			}
			if ((ret = keep_block(t, &b, next_fails)) != 0) {
				break;
			}
		}
		struct cur c = {b.buf + b.rec, b.buf + b.rec_end};
		skg_buf_setlen(&t->key, 0);
		skg_buf_setlen(&prev, 0);
		bool stop = false;
		while (c.p < c.end) {
			unsigned type;
			bool key_ok = decode_key(t, &c, &type) && t->key.len > 0;
			if (t->key.failed) {
				ret = nomem(t);
				break;
			}
			if (key_ok && single && prev.len > 0 && strcmp(prev.p, t->key.p) >= 0) {
				/* out of order (as C strings, git's names) */
				if ((ret = keep_block(t, &b, next_fails)) != 0) {
					break;
				}
			}
			if (key_ok) {
				r = want == BLOCK_REF ? ref_record(t, &c, type) : log_record(t, &c, type);
				if (r < 0) {
					ret = -1;
					break;
				}
				if (r > 0) {
					skg_buf_setlen(&prev, 0);
					skg_buf_adds(&prev, t->key.p);
					if (prev.failed) {
						ret = nomem(t);
						break;
					}
					continue;
				}
			}
			if (single && (!key_ok || type < 4)) {
				/* git reads the records before it, then fails */
				ret = keep_block(t, &b, next_fails);
				stop = true;
				break;
			}
			ret = corrupt(t, !key_ok             ? "malformed record key"
			                 : want == BLOCK_REF ? "malformed ref record"
			                                     : "malformed log record");
			break;
		}
		if (ret != 0 || stop) {
			break;
		}
		off += b.full;
	}
	skg_buf_release(&prev);
	return ret;
}

static int parse_table(const uint8_t *data, size_t len, const char *name,
                       int (*on_ref)(void *ctx, const struct skg_reftable_ref *r),
                       int (*on_log)(void *ctx, const struct skg_reftable_log *l), void *ctx,
                       bool *logs_unreadable, struct gblock **anomaly, struct skg_error *err)
{
	struct table t = {.data = data,
	                  .name = name,
	                  .err = err,
	                  .on_ref = on_ref,
	                  .on_log = on_log,
	                  .ctx = ctx,
	                  .logs_unreadable = logs_unreadable,
	                  .anomaly = anomaly};
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
	return parse_table(data, len, name, on_ref, on_log, ctx, NULL, NULL, err);
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
	/* git's view (git_view: a table has a gblock): per table its gblock or NULL and its first
	 * record in all (every ref record as read, table after table); refs is then what git's
	 * iteration yields, iter_failed whether it ended in an error; lookups keeps what
	 * skg_reftable_read found */
	struct gblock **blocks; /* nblocks of them: the tables read */
	size_t nblocks;
	size_t *tstart;
	struct ref_rec *all;
	size_t nall;
	bool git_view, iter_failed;
	struct lookup *lookups;
};

/* A ref git's read found (git view), kept until the stack is freed. */
struct lookup {
	struct ref_rec rec;
	struct lookup *next;
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
static void merge_refs(struct skg_reftable_stack *s)
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
}

static void merge_logs(struct skg_reftable_stack *s)
{
	if (s->nlogs > 1) {
		qsort(s->logs, s->nlogs, sizeof(*s->logs), log_cmp);
	}
	for (size_t i = 0; i < s->nlogs; i++) {
		const struct log_rec *a = &s->logs[i], *b = i ? &s->logs[i - 1] : NULL;
		bool newest = b == NULL || strcmp(a->l.refname, b->l.refname) != 0 ||
		              a->l.update_index != b->l.update_index;
		s->logs[i].keep = newest && !a->deletion;
	}
	size_t n = 0;
	for (size_t i = 0; i < s->nlogs; i++) {
		if (s->logs[i].keep) {
			s->logs[n++] = s->logs[i];
		} else {
			free(s->logs[i].mem);
		}
	}
	s->nlogs = n;
}

/* ---- git's reader, where a table's ref block is kept (struct gblock) -------------------------- */

/*
 * git 2.55.0's merged ref iterator over the stack (reftable/merged.c), one sub-iterator a table,
 * oldest first: a table read strictly gives its records in file order (sorted, so a seek is the
 * first record not below the key sought); a kept block is read as git's block and table iterators
 * read it (reftable/block.c block_iter_next, block_iter_seek_key; table.c table_iter_next,
 * table_iter_seek_linear), its errors where git meets them.
 */
struct sub {
	const struct ref_rec *recs; /* a table read strictly: its records, n of them */
	size_t n, pos;
	const struct gblock *g; /* else its block */
	size_t next_off;
	struct skg_buf last_key;
	struct skg_reftable_ref cur; /* the current record (queued: in git's priority queue) */
	struct skg_buf name, target;
	bool queued;
};

/* git's block_iter_next on g: 0 a record (sb->cur), 1 the block's end, -1 an error (a key or record
 * that does not decode; a reserved value type, on which git aborts). */
static int block_next(struct sub *sb)
{
	const struct gblock *g = sb->g;
	if (sb->next_off >= g->restart_off) {
		return 1;
	}
	struct cur c = {g->buf + sb->next_off, g->buf + g->restart_off};
	unsigned type;
	if (!decode_key_into(&c, &sb->last_key, &type) || sb->last_key.len == 0 ||
	    !ref_value(&c, type, g->rawsz, g->min_update_index, &sb->cur, &sb->target)) {
		return sb->last_key.failed || sb->target.failed ? -2 : -1;
	}
	struct skg_reftable_ref *r = &sb->cur;
	/* the name is the key as a C string (git's refname) */
	skg_buf_setlen(&sb->name, 0);
	skg_buf_adds(&sb->name, sb->last_key.p);
	r->name = sb->name.p;
	sb->next_off = (size_t)(c.p - g->buf);
	return sb->name.failed || sb->target.failed || sb->last_key.failed ? -2 : 0;
}

/* git's restart_needle_less (block.c): whether want sorts before the key of restart point idx;
 * -1 when that point's key does not decode or has a prefix (git's args.error). */
static int restart_less(const struct gblock *g, size_t idx, const char *want)
{
	size_t off = be24(g->buf + g->restart_off + 3 * idx);
	if (off >= g->buf_len) {
		return -1; /* (git reads outside its buffer there) */
	}
	/* git's length is restart_off - off, which wraps past the block: its buffer's end then */
	struct cur c = {g->buf + off, g->buf + (off < g->restart_off ? g->restart_off : g->buf_len)};
	uint64_t prefix, suffix;
	if (!get_varint(&c, &prefix) || !get_varint(&c, &suffix)) {
		return -1;
	}
	suffix >>= 3;
	if (prefix != 0 || suffix > (uint64_t)(c.end - c.p)) {
		return -1;
	}
	size_t wl = strlen(want), m = wl < suffix ? wl : (size_t)suffix;
	int d = memcmp(want, c.p, m);
	if (d != 0) {
		return d < 0;
	}
	return wl < suffix;
}

/* git's binsearch (basics.c) over the restart points: the first for which restart_less holds. */
static int restart_search(const struct gblock *g, const char *want, size_t *out)
{
	size_t lo = 0, hi = g->restarts;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		int r = restart_less(g, mid, want);
		if (r < 0) {
			return -1;
		}
		if (r > 0) {
			hi = mid;
		} else {
			lo = mid;
		}
	}
	if (lo != 0) {
		*out = hi;
		return 0;
	}
	int r = restart_less(g, 0, want);
	if (r < 0) {
		return -1;
	}
	*out = r ? 0 : 1;
	return 0;
}

/* git's table_iter_seek for the sub (0, -1 an error, -2 out of memory): positioned before the
 * first record whose name is not below want. */
static int sub_seek(struct sub *sb, const char *want)
{
	sb->queued = false;
	if (sb->g == NULL) {
		size_t lo = 0, hi = sb->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (strcmp(sb->recs[mid].r.name, want) < 0) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		sb->pos = lo;
		return 0;
	}
	const struct gblock *g = sb->g;
	/* table_iter_seek_linear looks at the block after the one that must hold the key */
	if (g->next_fails) {
		return -1;
	}
	size_t i;
	if (restart_search(g, want, &i) != 0) {
		return -1;
	}
	skg_buf_setlen(&sb->last_key, 0);
	sb->next_off = i > 0 ? be24(g->buf + g->restart_off + 3 * (i - 1)) : g->first;
	for (;;) {
		size_t prev = sb->next_off;
		int r = block_next(sb);
		if (r < -1) {
			return -2;
		}
		if (r < 0) {
			return -1;
		}
		if (r > 0 || strcmp(sb->cur.name, want) >= 0) {
			/* back to it; its key stays the last one (reftable_record_key: the name) */
			sb->next_off = prev;
			if (r == 0) {
				skg_buf_setlen(&sb->last_key, 0);
				skg_buf_adds(&sb->last_key, sb->cur.name);
			}
			return sb->last_key.failed ? -2 : 0;
		}
		skg_buf_setlen(&sb->last_key, 0);
		skg_buf_adds(&sb->last_key, sb->cur.name);
	}
}

/* git's table_iter_next: 0 a record in sb->cur, 1 the end, -1 an error, -2 out of memory. At the
 * end of a kept block, git looks at the next block: an unknown type is an error. */
static int sub_next(struct sub *sb)
{
	if (sb->g == NULL) {
		if (sb->pos >= sb->n) {
			return 1;
		}
		sb->cur = sb->recs[sb->pos++].r;
		return 0;
	}
	int r = block_next(sb);
	if (r == 1 && sb->g->next_fails) {
		return -1;
	}
	return r;
}

/* git's pq_less: by name, then the newer table first. */
static bool sub_before(const struct sub *subs, size_t a, size_t b)
{
	int c = strcmp(subs[a].cur.name, subs[b].cur.name);
	return c != 0 ? c < 0 : a > b;
}

static bool queue_min(const struct sub *subs, size_t n, size_t *out)
{
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		if (subs[i].queued && (!any || sub_before(subs, i, *out))) {
			*out = i;
			any = true;
		}
	}
	return any;
}

struct merged {
	struct sub *subs;
	size_t n;
	ptrdiff_t advance; /* git's advance_index */
};

/* merged_iter_advance_subiter: 0 (queued or at its end), -1 an error, -2 out of memory. */
static int advance_sub(struct merged *m, size_t i)
{
	int r = sub_next(&m->subs[i]);
	m->subs[i].queued = r == 0;
	return r < 0 ? r : 0;
}

/* merged_iter_seek */
static int merged_seek(struct merged *m, const char *want)
{
	m->advance = -1;
	for (size_t i = 0; i < m->n; i++) {
		int r = sub_seek(&m->subs[i], want);
		if (r == 0) {
			r = advance_sub(m, i);
		}
		if (r != 0) {
			return r;
		}
	}
	return 0;
}

/* merged_iter_next_entry, deletions suppressed (a stack's): 0 with *out (valid until the next
 * call), 1 the end, -1 an error, -2 out of memory. */
static int merged_next(struct merged *m, const struct skg_reftable_ref **out)
{
	for (;;) {
		size_t e = 0, t = 0;
		bool empty = !queue_min(m->subs, m->n, &e);
		if (m->advance >= 0) {
			size_t a = (size_t)m->advance;
			if (empty) {
				/* one sub-iterator left: its records as they come */
				int r = sub_next(&m->subs[a]);
				if (r != 0) {
					return r;
				}
				*out = &m->subs[a].cur;
				if ((*out)->type == SKG_REFTABLE_DELETION) {
					continue;
				}
				return 0;
			}
			int r = advance_sub(m, a);
			if (r != 0) {
				return r;
			}
			m->advance = -1;
			empty = !queue_min(m->subs, m->n, &e);
		}
		if (empty) {
			return 1;
		}
		m->subs[e].queued = false;
		while (queue_min(m->subs, m->n, &t) &&
		       strcmp(m->subs[t].cur.name, m->subs[e].cur.name) <= 0) {
			m->subs[t].queued = false;
			int r = advance_sub(m, t);
			if (r != 0) {
				return r;
			}
		}
		m->advance = (ptrdiff_t)e;
		*out = &m->subs[e].cur;
		if ((*out)->type != SKG_REFTABLE_DELETION) {
			return 0;
		}
	}
}

static int merged_open(const struct skg_reftable_stack *s, struct merged *m)
{
	m->n = s->nnames;
	m->subs = calloc(m->n ? m->n : 1, sizeof(*m->subs));
	if (m->subs == NULL) {
		return -1;
	}
	for (size_t i = 0; i < m->n; i++) {
		m->subs[i].g = s->blocks[i];
		m->subs[i].recs = s->all != NULL ? s->all + s->tstart[i] : NULL;
		m->subs[i].n = s->tstart[i + 1] - s->tstart[i];
	}
	return 0;
}

static void merged_close(struct merged *m)
{
	for (size_t i = 0; i < m->n; i++) {
		skg_buf_release(&m->subs[i].last_key);
		skg_buf_release(&m->subs[i].name);
		skg_buf_release(&m->subs[i].target);
	}
	free(m->subs);
}

/* A copy of r into e (its strings in e->mem). false: out of memory. */
static bool copy_ref(struct ref_rec *e, const struct skg_reftable_ref *r, size_t table)
{
	e->r = *r;
	e->table = table;
	e->keep = true;
	const char *in[2] = {r->name, r->target}, *out[2];
	e->mem = dup_strings(in, 2, out);
	e->r.name = out[0];
	e->r.target = out[1];
	return e->mem != NULL;
}

/* The refs as git's iteration of the whole stack yields them (seek "", then next until the end or
 * an error: iter_failed), into s->refs; the records as read go to s->all. */
static int git_iterate(struct skg_reftable_stack *s)
{
	s->all = s->refs;
	s->nall = s->nrefs;
	s->refs = NULL;
	s->nrefs = s->refs_cap = 0;
	struct merged m;
	if (merged_open(s, &m) != 0) {
		return skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	int r = merged_seek(&m, "");
	const struct skg_reftable_ref *ref;
	while (r == 0 && (r = merged_next(&m, &ref)) == 0) {
		if (!grow((void **)&s->refs, &s->refs_cap, s->nrefs, sizeof(*s->refs)) ||
		    !copy_ref(&s->refs[s->nrefs], ref, (size_t)m.advance)) {
			r = -2;
			break;
		}
		s->nrefs++;
	}
	merged_close(&m);
	if (r == -2) {
		return skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	s->iter_failed = r < 0;
	return 0;
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
	for (size_t i = 0; i < s->nblocks; i++) {
		if (s->blocks[i] != NULL) {
			free(s->blocks[i]->buf);
			free(s->blocks[i]);
		}
	}
	for (size_t i = 0; i < s->nall; i++) {
		free(s->all[i].mem);
	}
	while (s->lookups != NULL) {
		struct lookup *n = s->lookups->next;
		free(s->lookups->rec.mem);
		free(s->lookups);
		s->lookups = n;
	}
	free(s->blocks);
	free(s->tstart);
	free(s->all);
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

static int table_data(struct skg_reftable_stack *s, const uint8_t *d, size_t len, const char *shown);

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
	int r = table_data(s, (const uint8_t *)data, len, shown->p);
	free(data);
	return r;
}

/* A table in memory (data[0..len), shown its name in messages) read into the stack. */
static int table_data(struct skg_reftable_stack *s, const uint8_t *d, size_t len, const char *shown)
{
	/* a table of the other hash ID than the repository's (git's reader: a format error) */
	size_t table_rawsz =
	    len >= 28 && d[4] == 2 && be32(d + 24) == S256_FORMAT_ID ? SKG_MAX_RAWSZ : SKG_RAWSZ;
	if (s->rawsz != 0 && len >= 28 && memcmp(d, "REFT", 4) == 0 && table_rawsz != s->rawsz) {
		return skg_fail(s->err, "%s: corrupt reftable file (hash ID '%s' in a %s repository)", shown,
		                table_rawsz == SKG_MAX_RAWSZ ? "s256" : "sha1",
		                s->rawsz == SKG_MAX_RAWSZ ? "SHA-256" : "SHA-1");
	}
	size_t t = s->table;
	struct gblock **b = realloc(s->blocks, (t + 1) * sizeof(*b));
	size_t *ts = b != NULL ? realloc(s->tstart, (t + 2) * sizeof(*ts)) : NULL;
	if (b != NULL) {
		s->blocks = b;
	}
	if (ts == NULL) {
		return skg_fail_sys(s->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	s->tstart = ts;
	s->blocks[t] = NULL;
	s->nblocks = t + 1;
	s->tstart[t] = s->nrefs;
	int r = parse_table(d, len, shown, collect_ref, collect_log, s, &s->logs_unreadable, &s->blocks[t],
	                    s->err);
	s->tstart[t + 1] = s->nrefs;
	s->git_view |= s->blocks[t] != NULL;
	return r;
}

/* The stack's tables read: its merged views. 0, or -1 (err set). */
static int finish(struct skg_reftable_stack *s)
{
	/* git's merged log iterator fails, and its reflog walks see no reflogs, when the log block a
	 * table starts its section with does not inflate (a later block: the walk stops there;
	 * sha1kit drops them all) */
	if (s->logs_unreadable) {
		for (size_t i = 0; i < s->nlogs; i++) {
			free(s->logs[i].mem);
		}
		s->nlogs = 0;
	}
	if (s->git_view) {
		if (git_iterate(s) != 0) {
			return -1;
		}
	} else {
		merge_refs(s);
	}
	merge_logs(s);
	return 0;
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
	if (finish(s) != 0) {
		skg_reftable_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

int skg_reftable_open_mem(struct skg_reftable_stack **out, const uint8_t *data, size_t len, size_t rawsz,
                          struct skg_error *err)
{
	*out = NULL;
	struct skg_reftable_stack *s = calloc(1, sizeof(*s));
	if (s == NULL || (s->names = malloc(sizeof(*s->names))) == NULL ||
	    (s->names[0] = strdup("t.ref")) == NULL) {
		skg_reftable_free(s);
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	s->nnames = 1;
	s->err = err;
	s->rawsz = rawsz;
	if (table_data(s, data, len, "t.ref") != 0 || finish(s) != 0) {
		skg_reftable_free(s);
		return -1;
	}
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

const struct skg_reftable_ref *skg_reftable_read(const struct skg_reftable_stack *s, const char *name,
                                                 bool *failed)
{
	bool ignored;
	if (failed == NULL) {
		failed = &ignored;
	}
	*failed = false;
	if (!s->git_view) {
		return skg_reftable_find(s, name);
	}
	/* reftable_stack_read_ref: seek, one next, then the name must be the one sought */
	struct merged m;
	if (merged_open(s, &m) != 0) {
		*failed = true;
		return NULL;
	}
	const struct skg_reftable_ref *ref = NULL;
	int r = merged_seek(&m, name);
	if (r == 0) {
		r = merged_next(&m, &ref);
	}
	const struct skg_reftable_ref *found = NULL;
	if (r < 0) {
		*failed = true;
	} else if (r == 0 && strcmp(ref->name, name) == 0) {
		struct lookup *l = malloc(sizeof(*l));
		if (l == NULL || !copy_ref(&l->rec, ref, (size_t)m.advance)) {
			free(l);
			*failed = true;
		} else {
			l->next = s->lookups;
			((struct skg_reftable_stack *)s)->lookups = l;
			found = &l->rec.r;
		}
	}
	merged_close(&m);
	return found;
}

bool skg_reftable_iter_failed(const struct skg_reftable_stack *s)
{
	return s->iter_failed;
}

const struct skg_reftable_ref *skg_reftable_find(const struct skg_reftable_stack *s, const char *name)
{
	if (s->git_view) {
		return skg_reftable_read(s, name, NULL);
	}
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
