/*
 * refs.c - the ref database: ref stores, packed-refs, loose refs and their resolution, the walk
 * over refs/ (refs.h).
 *
 * The rules follow git 2.39.5 (refs.c, refs/files-backend.c, refs/packed-backend.c), checked by
 * running git; the code is this project's own.
 */
#include "refs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sha1kit.h>

#include "refname.h"
#include "reftable.h"
#include "repo.h"

/* ---- Ref stores ----------------------------------------------------------------------------- */

void skg_ref_store_main(const struct skg_repo *repo, struct skg_ref_store *st)
{
	st->git_dir = repo->git_dir;
	st->common_dir = repo->common_dir;
	st->git_dir_display = repo->git_dir_display;
	st->common_dir_display = repo->common_dir_display;
}

/* The file of refname in st (files-backend files_ref_path / files_reflog_path). */
void skg_ref_path(const struct skg_ref_store *st, const char *refname, bool logs, struct skg_buf *out)
{
	const char *wt, *bare;
	size_t wt_len;
	out->len = 0;
	skg_buf_add(out, "", 0);
	switch (skg_parse_worktree_ref(refname, &wt, &wt_len, &bare)) {
	case SKG_WT_CURRENT:
		skg_buf_addf(out, "%s/%s%s", st->git_dir, logs ? "logs/" : "", refname);
		break;
	case SKG_WT_OTHER:
		skg_buf_addf(out, "%s/worktrees/%.*s/%s%s", st->common_dir, (int)wt_len, wt,
		             logs ? "logs/" : "", bare);
		break;
	case SKG_WT_SHARED:
	case SKG_WT_MAIN:
		skg_buf_addf(out, "%s/%s%s", st->common_dir, logs ? "logs/" : "", bare);
		break;
	}
}

/* ---- packed-refs (refs/packed-backend.c) ---------------------------------------------------- */

struct skg_packed_refs {
	char *buf; /* the file, or its records sorted into a new buffer */
	const char *start, *eof;
	char *name; /* as git spells the file in messages */
	bool loaded;
	size_t hexsz; /* hex digits of an ID: 40 (SHA-1) or 64 (SHA-256) */
	bool current; /* skg_refdb.files_current */
};

static void packed_refs_free(struct skg_packed_refs *packed)
{
	if (packed != NULL) {
		free(packed->buf);
		free(packed->name);
		free(packed);
	}
}

/* ---- Reftable stacks (refs/reftable-backend.c of git 2.55.0) ------------------------------- */

struct reftable_slot {
	char *dir; /* the git directory whose reftable/ it is */
	struct skg_reftable_stack *stack;
};

struct skg_reftables {
	struct reftable_slot *v;
	size_t n;
};

static void reftables_free(struct skg_reftables *t)
{
	if (t == NULL) {
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].dir);
		skg_reftable_free(t->v[i].stack);
	}
	free(t->v);
	free(t);
}

int skg_refdb_reftable_at(struct skg_refdb *db, const char *dir, const char *display,
                          const struct skg_reftable_stack **stack, struct skg_error *err)
{
	if (db->reftables == NULL && (db->reftables = calloc(1, sizeof(*db->reftables))) == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	struct skg_reftables *t = db->reftables;
	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->v[i].dir, dir) == 0) {
			*stack = t->v[i].stack;
			return 0;
		}
	}
	struct reftable_slot *v = realloc(t->v, (t->n + 1) * sizeof(*v));
	if (v == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	t->v = v;
	struct skg_buf path = {0}, shown = {0};
	skg_buf_addf(&path, "%s/reftable", dir);
	skg_buf_addf(&shown, "%s/reftable", display);
	char *key = strdup(dir);
	struct skg_reftable_stack *s = NULL;
	int r;
	if (path.failed || shown.failed || key == NULL) {
		r = skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	} else {
		r = skg_reftable_open(&s, path.p, shown.p, db->rawsz, err);
	}
	skg_buf_release(&path);
	skg_buf_release(&shown);
	if (r != 0) {
		free(key);
		return -1;
	}
	v[t->n].dir = key;
	v[t->n].stack = s;
	t->n++;
	*stack = s;
	return 0;
}

int skg_refdb_reftable(struct skg_refdb *db, const struct skg_ref_store *st, const char *refname,
                       const struct skg_reftable_stack **stack, const char **name, struct skg_error *err)
{
	const char *wt, *bare;
	size_t wt_len;
	struct skg_buf dir = {0}, shown = {0};
	int r;
	switch (skg_parse_worktree_ref(refname, &wt, &wt_len, &bare)) {
	case SKG_WT_CURRENT:
		*name = refname;
		return skg_refdb_reftable_at(db, st->git_dir, st->git_dir_display, stack, err);
	case SKG_WT_OTHER:
		*name = bare;
		skg_buf_addf(&dir, "%s/worktrees/%.*s", st->common_dir, (int)wt_len, wt);
		skg_buf_addf(&shown, "%s/worktrees/%.*s", st->common_dir_display, (int)wt_len, wt);
		r = dir.failed || shown.failed ? skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory")
		                               : skg_refdb_reftable_at(db, dir.p, shown.p, stack, err);
		skg_buf_release(&dir);
		skg_buf_release(&shown);
		return r;
	case SKG_WT_SHARED:
	case SKG_WT_MAIN:
		break;
	}
	*name = bare;
	return skg_refdb_reftable_at(db, st->common_dir, st->common_dir_display, stack, err);
}

void skg_refdb_init(struct skg_refdb *db, const struct skg_repo *repo)
{
	db->repo = repo;
	db->rawsz = skg_format_rawsz(repo->object_format);
	db->packed = NULL;
	db->reftables = NULL;
	db->sorted_reflogs = false;
	db->files_current = false;
}

void skg_refdb_release(struct skg_refdb *db)
{
	packed_refs_free(db->packed);
	db->packed = NULL;
	reftables_free(db->reftables);
	db->reftables = NULL;
}

static int unterminated_line(struct skg_error *err, const char *name, const char *p, size_t len)
{
	if (len < 80) {
		return skg_fail(err, "unterminated line in %s: %.*s", name, (int)len, p);
	}
	return skg_fail(err, "unterminated line in %s: %.75s...", name, p);
}

static int invalid_line(struct skg_error *err, const char *name, const char *p, size_t len)
{
	const char *eol = memchr(p, '\n', len);
	if (eol == NULL) {
		return unterminated_line(err, name, p, len);
	}
	if (eol - p < 80) {
		return skg_fail(err, "unexpected line in %s: %.*s", name, (int)(eol - p), p);
	}
	return skg_fail(err, "unexpected line in %s: %.75s...", name, p);
}

/* The start of the record (a ref line and its "^" lines) holding *p. */
static const char *record_start(const char *buf, const char *p)
{
	while (p > buf && (p[-1] != '\n' || p[0] == '^')) {
		p--;
	}
	return p;
}

static const char *record_end(const char *p, const char *end)
{
	while (++p < end && (p[-1] != '\n' || p[0] == '^')) {
	}
	return p;
}

/* The last record must end with LF and be long enough to hold an ID, a separator and a name. */
static int verify_safe(const struct skg_packed_refs *s, struct skg_error *err)
{
	if (s->start == s->eof) {
		return 0;
	}
	const char *last = record_start(s->start, s->eof - 1);
	if (s->eof[-1] != '\n' || (size_t)(s->eof - last) < s->hexsz + 2) {
		return invalid_line(err, s->name, last, (size_t)(s->eof - last));
	}
	return 0;
}

struct prec {
	const char *start, *name; /* the record, its name (after the ID and the separator) */
	size_t len;
};

/* Records by the name that starts after the ID and its separator. */
static int prec_cmp(const void *va, const void *vb)
{
	const struct prec *a = va, *b = vb;
	const unsigned char *p = (const unsigned char *)a->name;
	const unsigned char *q = (const unsigned char *)b->name;
	for (;; p++, q++) {
		if (*p == '\n') {
			return *q == '\n' ? 0 : -1;
		}
		if (*p != *q) {
			return *q == '\n' ? 1 : *p < *q ? -1 : 1;
		}
	}
}

static int sort_snapshot(struct skg_packed_refs *s, struct skg_error *err)
{
	struct prec *recs = NULL;
	size_t n = 0, cap = 0;
	bool sorted = true;
	const char *pos = s->start;
	while (pos < s->eof) {
		const char *eol = memchr(pos, '\n', (size_t)(s->eof - pos)); /* found: verify_safe */
		if ((size_t)(eol - pos) < s->hexsz + 2) {
			free(recs);
			return invalid_line(err, s->name, pos, (size_t)(s->eof - pos));
		}
		eol++;
		if (eol < s->eof && *eol == '^') {
			eol = (const char *)memchr(eol, '\n', (size_t)(s->eof - eol)) + 1;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct prec *r = realloc(recs, ncap * sizeof(*r));
			if (r == NULL) {
				free(recs);
				return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
			}
			recs = r;
			cap = ncap;
		}
		recs[n].start = pos;
		recs[n].name = pos + s->hexsz + 1;
		recs[n].len = (size_t)(eol - pos);
		n++;
		if (sorted && n > 1 && prec_cmp(&recs[n - 2], &recs[n - 1]) >= 0) {
			sorted = false;
		}
		pos = eol;
	}
	if (!sorted) {
		if (n > 1) {
			qsort(recs, n, sizeof(*recs), prec_cmp);
		}
		size_t len = (size_t)(s->eof - s->start);
		char *nb = malloc(len ? len : 1);
		if (nb == NULL) {
			free(recs);
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		char *d = nb;
		for (size_t i = 0; i < n; i++) {
			memcpy(d, recs[i].start, recs[i].len);
			d += recs[i].len;
		}
		free(s->buf);
		s->buf = nb;
		s->start = nb;
		s->eof = nb + len;
	}
	free(recs);
	return verify_safe(s, err);
}

/* Take buf (heap, len bytes; ownership passes) as the contents of the packed-refs file. */
static int snapshot_init(struct skg_packed_refs *s, char *buf, size_t len, struct skg_error *err)
{
	s->buf = buf;
	s->start = buf;
	s->eof = buf + len;
	if (len == 0) {
		return 0;
	}
	bool sorted = false;
	if (buf[0] == '#') {
		const char *eol = memchr(buf, '\n', len);
		if (eol == NULL) {
			return unterminated_line(err, s->name, buf, len);
		}
		/* git 2.55 (packed-backend.c create_snapshot) asks for the space after the colon */
		const char *header = s->current ? "# pack-refs with: " : "# pack-refs with:";
		size_t header_len = strlen(header);
		size_t hlen = strnlen(buf, (size_t)(eol - buf)); /* git reads the line as a C string */
		if (hlen < header_len || memcmp(buf, header, header_len) != 0) {
			return invalid_line(err, s->name, buf, len);
		}
		/* the traits, separated by single spaces */
		const char *p = buf + header_len, *end = buf + hlen;
		while (p <= end) {
			const char *sp = memchr(p, ' ', (size_t)(end - p));
			size_t n = sp ? (size_t)(sp - p) : (size_t)(end - p);
			if (n == 6 && memcmp(p, "sorted", 6) == 0) {
				sorted = true;
			}
			if (sp == NULL) {
				break;
			}
			p = sp + 1;
		}
		s->start = eol + 1;
	}
	if (verify_safe(s, err) != 0) {
		return -1;
	}
	return sorted ? 0 : sort_snapshot(s, err);
}

static int packed_load(struct skg_refdb *db, struct skg_error *err)
{
	if (db->packed != NULL && db->packed->loaded) {
		return 0;
	}
	if (db->packed == NULL) {
		db->packed = calloc(1, sizeof(*db->packed));
		if (db->packed == NULL) {
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		struct skg_buf name = {0};
		skg_buf_addf(&name, "%s/packed-refs", db->repo->common_dir_display);
		db->packed->name = name.p;
		if (name.failed || name.p == NULL) {
			skg_buf_release(&name);
			db->packed->name = NULL;
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
	}
	struct skg_packed_refs *s = db->packed;
	s->hexsz = 2 * db->rawsz;
	s->current = db->files_current;
	free(s->buf);
	s->buf = NULL;
	s->start = s->eof = NULL;
	struct skg_buf path = {0};
	skg_buf_addf(&path, "%s/packed-refs", db->repo->common_dir);
	if (path.failed) {
		skg_buf_release(&path);
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	char *data;
	size_t len;
	int r = skg_read_file(skg_buf_str(&path), SIZE_MAX / 2, &data, &len);
	int e = errno;
	skg_buf_release(&path);
	if (r != 0) {
		if (e == ENOMEM) {
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		if (e == ENOENT) {
			s->loaded = true;
			return 0;
		}
		return skg_fail(err, "couldn't read %s: %s", s->name, strerror(e));
	}
	if (snapshot_init(s, data, len, err) != 0) {
		return -1;
	}
	s->loaded = true;
	return 0;
}

struct packed_iter {
	const struct skg_packed_refs *s;
	const char *pos;
	struct skg_buf refname;
	uint8_t id[SKG_MAX_RAWSZ], peeled[SKG_MAX_RAWSZ];
	bool has_peeled;
	unsigned flags;
	bool valid; /* a record is loaded */
};

/* The next record (git's next_record): 1, 0 at the end, -1 on what git dies on. */
static int packed_next(struct packed_iter *it, struct skg_error *err)
{
	const struct skg_packed_refs *s = it->s;
	const char *p = it->pos, *eof = s->eof;
	it->valid = false;
	if (p == NULL || p == eof) {
		return 0;
	}
	it->flags = SKG_REF_ISPACKED;
	size_t hexsz = s->hexsz;
	if ((size_t)(eof - p) < hexsz + 2 || !skg_from_hex_len(p, hexsz / 2, it->id) ||
	    !skg_isspace((unsigned char)p[hexsz])) {
		return invalid_line(err, s->name, it->pos, (size_t)(eof - it->pos));
	}
	p += hexsz + 1;
	const char *eol = memchr(p, '\n', (size_t)(eof - p));
	if (eol == NULL) {
		return unterminated_line(err, s->name, it->pos, (size_t)(eof - it->pos));
	}
	it->refname.len = 0;
	size_t name_len = strnlen(p, (size_t)(eol - p));
	skg_buf_add(&it->refname, p, name_len);
	if (it->refname.failed) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	const char *name = skg_buf_str(&it->refname);
	if (s->current && name_len < (size_t)(eol - p)) {
		/* git 2.55's packed-refs iterator (refname_contains_nul) */
		return skg_fail(err, "packed refname contains embedded NULL: %s", name);
	}
	if (!skg_refname_ok(name, SKG_REFNAME_ALLOW_ONELEVEL)) {
		if (!skg_refname_is_safe(name)) {
			return skg_fail(err, "packed refname is dangerous: %s", name);
		}
		memset(it->id, 0, sizeof(it->id));
		it->flags |= SKG_REF_BAD_NAME | SKG_REF_ISBROKEN;
	}
	it->pos = eol + 1;
	it->has_peeled = false;
	if (it->pos < eof && *it->pos == '^') {
		p = it->pos + 1;
		if ((size_t)(eof - p) < hexsz + 1 || !skg_from_hex_len(p, hexsz / 2, it->peeled) ||
		    p[hexsz] != '\n') {
			return invalid_line(err, s->name, it->pos, (size_t)(eof - it->pos));
		}
		it->pos = p + hexsz + 1;
		it->has_peeled = !(it->flags & SKG_REF_ISBROKEN);
	}
	it->valid = true;
	return 1;
}

static int record_cmp_name(const char *rec, const char *eof, const char *name, size_t hexsz)
{
	const unsigned char *p = (const unsigned char *)rec + hexsz + 1;
	const unsigned char *q = (const unsigned char *)name;
	for (;; p++, q++) {
		if ((const char *)p >= eof || *p == '\n') {
			return *q ? -1 : 0;
		}
		if (*q == '\0') {
			return 1;
		}
		if (*p != *q) {
			return *p < *q ? -1 : 1;
		}
	}
}

/* Look refname up (git's binary search over records): 1 found (id), 0 not, -1 fatal. */
static int packed_lookup(struct skg_refdb *db, const char *refname, uint8_t *id, struct skg_error *err)
{
	if (packed_load(db, err) != 0) {
		return -1;
	}
	const struct skg_packed_refs *s = db->packed;
	const char *lo = s->start, *hi = s->eof;
	if (lo == NULL) {
		return 0;
	}
	while (lo != hi) {
		const char *mid = lo + (hi - lo) / 2;
		const char *rec = record_start(lo, mid);
		int cmp = (size_t)(s->eof - rec) < s->hexsz + 2
		              ? -1
		              : record_cmp_name(rec, s->eof, refname, s->hexsz);
		if (cmp < 0) {
			lo = record_end(mid, hi);
		} else if (cmp > 0) {
			hi = rec;
		} else {
			if (!skg_from_hex_len(rec, s->hexsz / 2, id)) {
				return invalid_line(err, s->name, rec, (size_t)(s->eof - rec));
			}
			return 1;
		}
	}
	return 0;
}

int skg_packed_refs_parse(const char *buf, size_t len, const char *name, size_t rawsz,
                          int (*fn)(void *ctx, const char *refname, const uint8_t *id, const uint8_t *peeled,
                                    unsigned flags),
                          void *ctx, struct skg_error *err)
{
	struct skg_packed_refs s = {.name = (char *)name, .hexsz = 2 * rawsz};
	char *copy = malloc(len ? len : 1);
	if (copy == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	if (len) {
		memcpy(copy, buf, len);
	}
	int ret = snapshot_init(&s, copy, len, err);
	struct packed_iter it = {.s = &s, .pos = s.start};
	while (ret == 0) {
		int r = packed_next(&it, err);
		if (r <= 0) {
			ret = r;
			break;
		}
		ret = fn(ctx, skg_buf_str(&it.refname), it.id, it.has_peeled ? it.peeled : NULL, it.flags);
	}
	skg_buf_release(&it.refname);
	free(s.buf);
	return ret;
}

/* ---- Loose refs and resolution (refs/files-backend.c, refs.c) ---------------------------------- */

#define SYMREF_MAXDEPTH 5

/* Reusable buffers of one walk. */
struct rctx {
	struct skg_refdb *db;
	struct skg_buf path, contents, names[2];
};

static void rctx_release(struct rctx *rc)
{
	skg_buf_release(&rc->path);
	skg_buf_release(&rc->contents);
	skg_buf_release(&rc->names[0]);
	skg_buf_release(&rc->names[1]);
}

/* Read the loose ref file at path into b, NUL-terminated: all of a symbolic ref ("ref:", of any
 * size, as git's strbuf_read), else its first SKG_MAX_HEXSZ + 1 bytes at least, all that git's parse
 * of an object ID looks at (read_ref_internal, parse_loose_ref_contents). 0 or -1 (errno). */
static int read_into(struct skg_buf *b, const char *path)
{
	b->len = 0;
	skg_buf_add(b, "", 0);
	if (b->failed) {
		errno = ENOMEM;
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return -1;
	}
	for (;;) {
		char chunk[4096];
		ssize_t r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (r == 0) {
			break;
		}
		skg_buf_add(b, chunk, (size_t)r);
		if (b->failed) {
			close(fd);
			errno = ENOMEM;
			return -1;
		}
		if (b->len > SKG_MAX_HEXSZ && strncmp(b->p, "ref:", 4) != 0) {
			break;
		}
	}
	close(fd);
	return 0;
}

/* Parse loose ref contents (NUL-terminated, already right-trimmed). 0, or -1 (broken). */
static int parse_loose_contents(const char *buf, size_t rawsz, uint8_t *id, struct skg_buf *referent,
                                unsigned *type)
{
	if (strncmp(buf, "ref:", 4) == 0) {
		buf += 4;
		while (skg_isspace((unsigned char)*buf)) {
			buf++;
		}
		referent->len = 0;
		skg_buf_adds(referent, buf);
		*type |= SKG_REF_ISSYMREF;
		return 0;
	}
	size_t hexsz = 2 * rawsz;
	if (strlen(buf) < hexsz || !skg_from_hex_len(buf, rawsz, id) ||
	    (buf[hexsz] != '\0' && !skg_isspace((unsigned char)buf[hexsz]))) {
		*type |= SKG_REF_ISBROKEN;
		return -1;
	}
	return 0;
}

/* No loose ref file at the path (absent, or a directory): the packed ref, else *failure =
 * `absent` (read_raw_ref's returns). */
static int packed_fallback(struct rctx *rc, const char *refname, uint8_t *id, unsigned *type, int absent,
                           int *failure, struct skg_error *err)
{
	int r = packed_lookup(rc->db, refname, id, err);
	if (r < 0) {
		return -2;
	}
	if (r == 0) {
		*failure = absent;
		return -1;
	}
	*type |= SKG_REF_ISPACKED;
	return 0;
}

/*
 * One step of a ref's resolution (files-backend read_ref_internal): 0 with id or a symbolic
 * target in referent, -1 with *failure (an errno value), -2 fatal.
 */
/* One step in a reftable stack (git 2.55.0 reftable_be_read_raw_ref): the newest record of the
 * name; none, or a deletion, is ENOENT. */
static int reftable_read_raw_ref(struct rctx *rc, const struct skg_ref_store *st, const char *refname,
                                 uint8_t *id, struct skg_buf *referent, unsigned *type, int *failure,
                                 struct skg_error *err)
{
	const struct skg_reftable_stack *stack;
	const char *name;
	if (skg_refdb_reftable(rc->db, st, refname, &stack, &name, err) != 0) {
		return -2;
	}
	bool failed;
	const struct skg_reftable_ref *r = skg_reftable_read(stack, name, &failed);
	if (r == NULL) {
		/* git's read fails on a table: an error without errno (not "missing") */
		*failure = failed ? 0 : ENOENT;
		return -1;
	}
	if (r->type == SKG_REFTABLE_SYMREF) {
		referent->len = 0;
		skg_buf_adds(referent, r->target);
		if (referent->failed) {
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory") - 1;
		}
		*type |= SKG_REF_ISSYMREF;
		return 0;
	}
	memcpy(id, r->id, rc->db->rawsz);
	return 0;
}

static int read_raw_ref(struct rctx *rc, const struct skg_ref_store *st, const char *refname, uint8_t *id,
                        struct skg_buf *referent, unsigned *type, int *failure, struct skg_error *err)
{
	*type = 0;
	if (rc->db->repo->reftable) {
		return reftable_read_raw_ref(rc, st, refname, id, referent, type, failure, err);
	}
	skg_ref_path(st, refname, false, &rc->path);
	if (rc->path.failed) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory") - 1;
	}
	const char *path = skg_buf_str(&rc->path);
	for (int tries = 0; tries < 3; tries++) {
		struct stat sb;
		if (lstat(path, &sb) != 0) {
			if (errno != ENOENT) {
				*failure = errno;
				return -1;
			}
			return packed_fallback(rc, refname, id, type, ENOENT, failure, err);
		}
		if (S_ISLNK(sb.st_mode)) {
			char target[PATH_MAX + 1];
			ssize_t n = readlink(path, target, sizeof(target) - 1);
			if (n < 0) {
				if (errno == ENOENT || errno == EINVAL) {
					continue; /* changed under us: again */
				}
				*failure = errno;
				return -1;
			}
			target[n] = '\0';
			if (skg_starts_with(target, "refs/") && skg_refname_ok(target, 0)) {
				referent->len = 0;
				skg_buf_adds(referent, target);
				if (referent->failed) {
					return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory") - 1;
				}
				*type |= SKG_REF_ISSYMREF;
				return 0;
			}
			/* not a ref name: read what it points to */
		}
		if (S_ISDIR(sb.st_mode)) {
			return packed_fallback(rc, refname, id, type, EISDIR, failure, err);
		}
		if (read_into(&rc->contents, path) != 0) {
			if (errno == ENOMEM) {
				return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory") - 1;
			}
			if (errno == ENOENT && !S_ISLNK(sb.st_mode)) {
				continue;
			}
			*failure = errno;
			return -1;
		}
		char *buf = rc->contents.p;
		size_t n = strlen(buf);
		while (n > 0 && skg_isspace((unsigned char)buf[n - 1])) {
			buf[--n] = '\0';
		}
		if (parse_loose_contents(buf, rc->db->rawsz, id, referent, type) != 0) {
			*failure = EINVAL;
			return -1;
		}
		return 0;
	}
	*failure = ELOOP;
	return -1;
}

/*
 * refs_resolve_ref_unsafe(): 1 resolved (the final name in *resolved, which points into one of
 * rc's name buffers), 0 failed (git returns NULL), -1 fatal.
 */
static int resolve(struct rctx *rc, const struct skg_ref_store *st, const char *refname, unsigned rflags,
                   uint8_t *id, unsigned *flags, const char **resolved, struct skg_error *err)
{
	*flags = 0;
	memset(id, 0, rc->db->rawsz);
	if (!skg_refname_ok(refname, SKG_REFNAME_ALLOW_ONELEVEL)) {
		if (!(rflags & SKG_RESOLVE_ALLOW_BAD_NAME) || !skg_refname_is_safe(refname)) {
			return 0;
		}
		*flags |= SKG_REF_BAD_NAME;
	}
	int which = 0;
	rc->names[0].len = 0;
	skg_buf_adds(&rc->names[0], refname);
	if (rc->names[0].failed) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	const char *name = skg_buf_str(&rc->names[0]);
	for (int depth = 0; depth < SYMREF_MAXDEPTH; depth++) {
		unsigned type;
		int failure = 0;
		struct skg_buf *next = &rc->names[!which];
		int r = read_raw_ref(rc, st, name, id, next, &type, &failure, err);
		if (r == -2) {
			return -1;
		}
		if (r < 0) {
			*flags |= type;
			if (rflags & SKG_RESOLVE_READING) {
				return 0;
			}
			if (failure != ENOENT && failure != EISDIR && failure != ENOTDIR) {
				return 0;
			}
			memset(id, 0, rc->db->rawsz);
			if (*flags & SKG_REF_BAD_NAME) {
				*flags |= SKG_REF_ISBROKEN;
			}
			*resolved = name;
			return 1;
		}
		*flags |= type;
		if (!(type & SKG_REF_ISSYMREF)) {
			if (*flags & SKG_REF_BAD_NAME) {
				memset(id, 0, rc->db->rawsz);
				*flags |= SKG_REF_ISBROKEN;
			}
			*resolved = name;
			return 1;
		}
		if (next->failed) {
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		which = !which;
		name = skg_buf_str(next);
		if (rflags & SKG_RESOLVE_NO_RECURSE) {
			memset(id, 0, rc->db->rawsz);
			*resolved = name;
			return 1;
		}
		if (!skg_refname_ok(name, SKG_REFNAME_ALLOW_ONELEVEL)) {
			if (!(rflags & SKG_RESOLVE_ALLOW_BAD_NAME) || !skg_refname_is_safe(name)) {
				return 0;
			}
			*flags |= SKG_REF_ISBROKEN | SKG_REF_BAD_NAME;
		}
	}
	return 0;
}

int skg_resolve_ref(struct skg_refdb *db, const char *refname, unsigned resolve_flags, uint8_t *id,
                    struct skg_buf *target, unsigned *flags, struct skg_error *err)
{
	struct rctx rc = {.db = db};
	struct skg_ref_store st;
	skg_ref_store_main(db->repo, &st);
	const char *resolved = NULL;
	unsigned fl = 0;
	int r = resolve(&rc, &st, refname, resolve_flags, id, &fl, &resolved, err);
	if (flags != NULL) {
		*flags = fl;
	}
	if (r == 1 && target != NULL) {
		target->len = 0;
		skg_buf_adds(target, resolved);
		if (target->failed) {
			r = skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
	}
	rctx_release(&rc);
	return r;
}

/* ---- The walk over refs/ ----------------------------------------------------------------------- */

struct ref_walk {
	struct rctx rc;
	struct skg_ref_store st;
	struct packed_iter pi;
	skg_ref_fn fn;
	void *ctx;
	struct skg_buf refname;
	struct skg_error *err;
};

/* Pass packed records sorted before name (all if NULL) to fn; drop one equal to name. */
static int emit_packed_until(struct ref_walk *w, const char *name)
{
	while (w->pi.valid) {
		int cmp = name ? strcmp(skg_buf_str(&w->pi.refname), name) : -1;
		if (cmp > 0) {
			break;
		}
		if (cmp < 0) {
			int r = w->fn(w->ctx, skg_buf_str(&w->pi.refname), w->pi.id, w->pi.flags);
			if (r != 0) {
				return r;
			}
		}
		if (packed_next(&w->pi, w->err) < 0) {
			return -1;
		}
		if (cmp == 0) {
			break;
		}
	}
	return 0;
}

static int emit_loose(struct ref_walk *w)
{
	const char *name = skg_buf_str(&w->refname);
	uint8_t id[SKG_MAX_RAWSZ];
	unsigned flags;
	const char *resolved;
	int r = resolve(&w->rc, &w->st, name, SKG_RESOLVE_READING, id, &flags, &resolved, w->err);
	if (r < 0) {
		return -1;
	}
	if (r == 0) {
		memset(id, 0, SKG_MAX_RAWSZ);
		flags |= SKG_REF_ISBROKEN;
	} else if (skg_is_null_id_len(id, w->rc.db->rawsz)) {
		flags |= SKG_REF_ISBROKEN; /* the null ID in a loose ref is corruption */
	}
	if (!skg_refname_ok(name, SKG_REFNAME_ALLOW_ONELEVEL)) {
		if (!skg_refname_is_safe(name)) {
			return skg_fail(w->err, "loose refname is dangerous: %s", name);
		}
		memset(id, 0, SKG_MAX_RAWSZ);
		flags |= SKG_REF_BAD_NAME | SKG_REF_ISBROKEN;
	}
	r = emit_packed_until(w, name);
	if (r != 0) {
		return r;
	}
	return w->fn(w->ctx, name, id, flags);
}

struct dent {
	const char *name;
	bool dir;
};

/* Byte i of a ref-cache entry's name: a directory's name ends with '/'; 0 past the end. */
static int dent_char(const struct dent *e, size_t len, size_t i)
{
	if (i < len) {
		return (unsigned char)e->name[i];
	}
	return i == len && e->dir ? '/' : 0;
}

/* The order of ref-cache entries (strcmp of the names, a directory's with its '/'). */
static int dent_cmp(const void *va, const void *vb)
{
	const struct dent *a = va, *b = vb;
	size_t la = strlen(a->name), lb = strlen(b->name);
	for (size_t i = 0;; i++) {
		int c = dent_char(a, la, i), d = dent_char(b, lb, i);
		if (c != d) {
			return c - d;
		}
		if (c == 0) {
			return 0;
		}
	}
}

static int walk_dir(struct ref_walk *w, int depth)
{
	if (depth > 256) {
		return 0; /* deeper than any file system path allows */
	}
	size_t dirlen = w->refname.len;
	skg_ref_path(&w->st, skg_buf_str(&w->refname), false, &w->rc.path);
	if (w->rc.path.failed) {
		return skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	DIR *d = opendir(skg_buf_str(&w->rc.path));
	if (d == NULL) {
		return 0;
	}
	struct skg_buf names = {0}, full = {0};
	size_t base = w->rc.path.len;
	struct {
		size_t off;
		bool dir;
	} *ents = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;
	struct dirent *de;
	skg_buf_add(&full, w->rc.path.p, base);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || skg_ends_with(de->d_name, ".lock")) {
			continue;
		}
		skg_buf_setlen(&full, base);
		skg_buf_adds(&full, de->d_name);
		if (full.failed) {
			ret = skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
			break;
		}
		struct stat sb;
		if (stat(skg_buf_str(&full), &sb) != 0) {
			continue; /* git ignores what it cannot stat */
		}
		if (w->rc.db->files_current && !S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode)) {
			continue; /* git 2.55: only DT_DIR and DT_REG entries */
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			void *p = realloc(ents, ncap * sizeof(*ents));
			if (p == NULL) {
				ret = skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
				break;
			}
			ents = p;
			cap = ncap;
		}
		ents[n].off = names.len;
		ents[n].dir = S_ISDIR(sb.st_mode);
		n++;
		skg_buf_add(&names, de->d_name, strlen(de->d_name) + 1);
	}
	closedir(d);
	skg_buf_release(&full);
	if (ret == 0 && names.failed) {
		ret = skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	static const char *const per_worktree[] = {"bisect", "worktree", "rewritten"};
	size_t extra = strcmp(skg_buf_str(&w->refname), "refs/") == 0 ? 3 : 0;
	struct dent *list = ret == 0 ? malloc((n + extra + 1) * sizeof(*list)) : NULL;
	if (ret == 0 && list == NULL) {
		ret = skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	size_t m = 0;
	if (ret == 0) {
		for (size_t i = 0; i < n; i++) {
			list[m].name = names.p + ents[i].off;
			list[m].dir = ents[i].dir;
			m++;
		}
		/* refs/bisect/, refs/worktree/, refs/rewritten/ are per worktree: always looked at */
		for (size_t k = 0; k < extra; k++) {
			bool have = false;
			for (size_t i = 0; i < n; i++) {
				have |= list[i].dir && strcmp(list[i].name, per_worktree[k]) == 0;
			}
			if (!have) {
				list[m].name = per_worktree[k];
				list[m].dir = true;
				m++;
			}
		}
		if (m > 1) {
			qsort(list, m, sizeof(*list), dent_cmp);
		}
	}
	for (size_t i = 0; ret == 0 && i < m; i++) {
		skg_buf_setlen(&w->refname, dirlen);
		skg_buf_adds(&w->refname, list[i].name);
		if (list[i].dir) {
			skg_buf_addc(&w->refname, '/');
		}
		if (w->refname.failed) {
			ret = skg_fail_sys(w->err, SKG_E_NOMEM, ENOMEM, "out of memory");
			break;
		}
		ret = list[i].dir ? walk_dir(w, depth + 1) : emit_loose(w);
	}
	skg_buf_setlen(&w->refname, dirlen);
	free(list);
	free(ents);
	skg_buf_release(&names);
	return ret;
}

/* One ref of a reftable stack as git 2.55.0's reftable_ref_iterator_advance passes it on. */
static int reftable_emit(struct rctx *rc, const struct skg_ref_store *st, const struct skg_reftable_ref *r,
                         skg_ref_fn fn, void *ctx, struct skg_error *err)
{
	uint8_t id[SKG_MAX_RAWSZ] = {0};
	unsigned flags = 0;
	if (r->type == SKG_REFTABLE_SYMREF) {
		const char *resolved;
		int res = resolve(rc, st, r->name, SKG_RESOLVE_READING, id, &flags, &resolved, err);
		if (res < 0) {
			return -1;
		}
		if (res == 0) {
			memset(id, 0, SKG_MAX_RAWSZ);
		}
	} else {
		memcpy(id, r->id, rc->db->rawsz);
	}
	if (skg_is_null_id_len(id, rc->db->rawsz)) {
		flags |= SKG_REF_ISBROKEN;
	}
	if (!skg_refname_ok(r->name, SKG_REFNAME_ALLOW_ONELEVEL)) {
		if (!skg_refname_is_safe(r->name)) {
			return skg_fail(err, "refname is dangerous: %s", r->name);
		}
		memset(id, 0, SKG_MAX_RAWSZ);
		flags |= SKG_REF_BAD_NAME | SKG_REF_ISBROKEN;
	}
	return fn(ctx, r->name, id, flags);
}

static enum skg_wt_type wt_type(const char *name)
{
	const char *wt, *bare;
	size_t len;
	return skg_parse_worktree_ref(name, &wt, &len, &bare);
}

/*
 * The refs under refs/ of a reftable repository's current worktree, in name order: in a linked
 * worktree its own refs (per-worktree names) from its stack merged with the others from the common
 * stack (git's reftable_be_iterator_select).
 */
static int reftable_for_each_ref(struct skg_refdb *db, skg_ref_fn fn, void *ctx, struct skg_error *err)
{
	struct rctx rc = {.db = db};
	struct skg_ref_store st;
	skg_ref_store_main(db->repo, &st);
	const struct skg_reftable_stack *common, *own = NULL;
	if (skg_refdb_reftable_at(db, st.common_dir, st.common_dir_display, &common, err) != 0) {
		return -1;
	}
	bool linked = strcmp(st.git_dir, st.common_dir) != 0;
	if (linked && skg_refdb_reftable_at(db, st.git_dir, st.git_dir_display, &own, err) != 0) {
		return -1;
	}
	size_t i = 0, j = 0, ni = skg_reftable_ref_count(common), nj = own ? skg_reftable_ref_count(own) : 0;
	int ret = 0;
	while (ret == 0 && (i < ni || j < nj)) {
		/* git's iteration ends where a stack's iterator fails: when it is advanced past the
		 * last record it gave (skg_reftable_iter_failed) */
		if ((i == ni && skg_reftable_iter_failed(common)) ||
		    (own != NULL && j == nj && skg_reftable_iter_failed(own))) {
			break;
		}
		const struct skg_reftable_ref *a = i < ni ? skg_reftable_ref_at(common, i) : NULL;
		const struct skg_reftable_ref *b = j < nj ? skg_reftable_ref_at(own, j) : NULL;
		const struct skg_reftable_ref *r;
		if (b == NULL || (a != NULL && strcmp(a->name, b->name) <= 0)) {
			r = a;
			i++;
			if (linked && wt_type(r->name) == SKG_WT_CURRENT) {
				continue; /* the main worktree's own ref */
			}
		} else {
			r = b;
			j++;
			if (wt_type(r->name) != SKG_WT_CURRENT) {
				continue;
			}
		}
		if (strncmp(r->name, "refs/", 5) != 0) {
			continue; /* git's iterator: only refs/ (HEAD and pseudo refs are not listed) */
		}
		ret = reftable_emit(&rc, &st, r, fn, ctx, err);
	}
	rctx_release(&rc);
	return ret;
}

int skg_for_each_ref(struct skg_refdb *db, skg_ref_fn fn, void *ctx, struct skg_error *err)
{
	if (db->repo->reftable) {
		return reftable_for_each_ref(db, fn, ctx, err);
	}
	if (packed_load(db, err) != 0) {
		return -1;
	}
	struct ref_walk w = {.rc = {.db = db}, .fn = fn, .ctx = ctx, .err = err};
	skg_ref_store_main(db->repo, &w.st);
	w.pi.s = db->packed;
	w.pi.pos = db->packed->start;
	int ret = packed_next(&w.pi, err) < 0 ? -1 : 0;
	if (ret == 0) {
		skg_buf_adds(&w.refname, "refs/");
		ret = w.refname.failed ? skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory")
		                       : walk_dir(&w, 0);
	}
	if (ret == 0) {
		ret = emit_packed_until(&w, NULL);
	}
	skg_buf_release(&w.refname);
	skg_buf_release(&w.pi.refname);
	rctx_release(&w.rc);
	return ret;
}

/* refs_resolve_ref_unsafe() in the ref store st (reflog.c: a worktree's logs). */
int skg_resolve_ref_in(struct skg_refdb *db, const struct skg_ref_store *st, const char *refname,
                       unsigned rflags, uint8_t *id, unsigned *flags, struct skg_error *err)
{
	struct rctx rc = {.db = db};
	const char *resolved;
	int r = resolve(&rc, st, refname, rflags, id, flags, &resolved, err);
	rctx_release(&rc);
	return r;
}
