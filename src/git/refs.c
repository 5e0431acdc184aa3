/*
 * refs.c - refs, worktree HEADs, reflogs and the index as git fsck reads them (refs.h).
 *
 * The rules follow git 2.39.5 (refs.c, refs/files-backend.c, refs/packed-backend.c, worktree.c,
 * read-cache.c, cache-tree.c, resolve-undo.c, builtin/fsck.c), checked by running git; the code is
 * this project's own.
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

static const uint8_t null_id[SKG_RAWSZ];

static bool is_null_id(const uint8_t id[SKG_RAWSZ])
{
	return memcmp(id, null_id, SKG_RAWSZ) == 0;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_upper(int c)
{
	return c >= 'A' && c <= 'Z';
}

/* ---- Ref names ------------------------------------------------------------------------------ */

enum name_class { NC_OK, NC_END, NC_DOT, NC_BRACE, NC_STAR, NC_BAD };

static enum name_class name_class(unsigned char c)
{
	if (c == '\0' || c == '/') {
		return NC_END;
	}
	if (c == '.') {
		return NC_DOT;
	}
	if (c == '{') {
		return NC_BRACE;
	}
	if (c == '*') {
		return NC_STAR;
	}
	if (c < 0x20 || c == 0x7f || strchr(" ~^:?[\\", c) != NULL) {
		return NC_BAD;
	}
	return NC_OK;
}

/* Length of the component at name, 0 if empty, -1 if not allowed. */
static int check_component(const char *name, unsigned *flags)
{
	const char *p = name;
	unsigned char last = 0;
	for (;; p++) {
		unsigned char c = (unsigned char)*p;
		enum name_class k = name_class(c);
		if (k == NC_END) {
			break;
		}
		if ((k == NC_DOT && last == '.') || (k == NC_BRACE && last == '@') || k == NC_BAD) {
			return -1;
		}
		if (k == NC_STAR) {
			if (!(*flags & SKG_REFNAME_REFSPEC_PATTERN)) {
				return -1;
			}
			*flags &= ~SKG_REFNAME_REFSPEC_PATTERN; /* one '*' only */
		}
		last = c;
	}
	size_t n = (size_t)(p - name);
	if (n == 0) {
		return 0;
	}
	if (name[0] == '.' || (n >= 5 && memcmp(p - 5, ".lock", 5) == 0) || n > INT_MAX) {
		return -1;
	}
	return (int)n;
}

bool skg_refname_ok(const char *name, unsigned flags)
{
	if (strcmp(name, "@") == 0) {
		return false;
	}
	int count = 0, n;
	for (;;) {
		n = check_component(name, &flags);
		if (n <= 0) {
			return false;
		}
		count++;
		if (name[n] == '\0') {
			break;
		}
		name += n + 1;
	}
	if (name[n - 1] == '.') {
		return false;
	}
	return (flags & SKG_REFNAME_ALLOW_ONELEVEL) || count >= 2;
}

bool skg_refname_is_safe(const char *name)
{
	if (starts_with(name, "refs/")) {
		/* a path under refs/ that normalising would not change: no empty, "." or ".." part */
		const char *p = name + 5;
		if (*p == '\0') {
			return false;
		}
		for (;;) {
			const char *slash = strchr(p, '/');
			size_t n = slash ? (size_t)(slash - p) : strlen(p);
			if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
				return false;
			}
			if (slash == NULL) {
				return true;
			}
			p = slash + 1;
		}
	}
	if (*name == '\0') {
		return false;
	}
	for (; *name; name++) {
		if (!is_upper((unsigned char)*name) && *name != '_') {
			return false;
		}
	}
	return true;
}

/* ---- Worktree ref names (refs.c parse_worktree_ref) ----------------------------------------- */

enum wt_type { WT_CURRENT, WT_SHARED, WT_MAIN, WT_OTHER };

static bool is_pseudoref_syntax(const char *s)
{
	for (; *s; s++) {
		if (!is_upper((unsigned char)*s) && *s != '-' && *s != '_') {
			return false;
		}
	}
	return true;
}

static bool is_per_worktree_ref(const char *s)
{
	return starts_with(s, "refs/worktree/") || starts_with(s, "refs/bisect/") ||
	       starts_with(s, "refs/rewritten/");
}

static bool is_current_worktree_ref(const char *s)
{
	return is_pseudoref_syntax(s) || is_per_worktree_ref(s);
}

static enum wt_type parse_worktree_ref(const char *ref, const char **wt, size_t *wt_len, const char **bare)
{
	*wt = NULL;
	*wt_len = 0;
	if (starts_with(ref, "worktrees/")) {
		const char *b = ref + 10;
		const char *slash = strchr(b, '/');
		if (slash == NULL) {
			*wt = b;
			*wt_len = strlen(b);
			*bare = b + *wt_len;
			return WT_OTHER;
		}
		if (is_current_worktree_ref(slash + 1)) {
			*wt = b;
			*wt_len = (size_t)(slash - b);
			*bare = slash + 1;
			return WT_OTHER;
		}
	}
	if (starts_with(ref, "main-worktree/") && is_current_worktree_ref(ref + 14)) {
		*bare = ref + 14;
		return WT_MAIN;
	}
	*bare = ref;
	return is_current_worktree_ref(ref) ? WT_CURRENT : WT_SHARED;
}

/* ---- Ref stores ----------------------------------------------------------------------------- */

/* Where one worktree's refs are: absolute paths for I/O, and git's spelling for messages. */
struct store {
	const char *git_dir, *common_dir;
	const char *git_dir_display, *common_dir_display;
};

static void main_store(const struct skg_repo *repo, struct store *st)
{
	st->git_dir = repo->git_dir;
	st->common_dir = repo->common_dir;
	st->git_dir_display = repo->git_dir_display;
	st->common_dir_display = repo->common_dir_display;
}

/* The file of refname in st (files-backend files_ref_path / files_reflog_path). */
static void ref_path(const struct store *st, const char *refname, bool logs, struct skg_buf *out)
{
	const char *wt, *bare;
	size_t wt_len;
	out->len = 0;
	skg_buf_add(out, "", 0);
	switch (parse_worktree_ref(refname, &wt, &wt_len, &bare)) {
	case WT_CURRENT:
		skg_buf_addf(out, "%s/%s%s", st->git_dir, logs ? "logs/" : "", refname);
		break;
	case WT_OTHER:
		skg_buf_addf(out, "%s/worktrees/%.*s/%s%s", st->common_dir, (int)wt_len, wt,
		             logs ? "logs/" : "", bare);
		break;
	case WT_SHARED:
	case WT_MAIN:
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
};

static void packed_refs_free(struct skg_packed_refs *packed)
{
	if (packed != NULL) {
		free(packed->buf);
		free(packed->name);
		free(packed);
	}
}

void skg_refdb_init(struct skg_refdb *db, const struct skg_repo *repo)
{
	db->repo = repo;
	db->packed = NULL;
}

void skg_refdb_release(struct skg_refdb *db)
{
	packed_refs_free(db->packed);
	db->packed = NULL;
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
	if (s->eof[-1] != '\n' || s->eof - last < SKG_HEXSZ + 2) {
		return invalid_line(err, s->name, last, (size_t)(s->eof - last));
	}
	return 0;
}

struct prec {
	const char *start;
	size_t len;
};

/* Records by the name that starts after the ID and its separator. */
static int prec_cmp(const void *va, const void *vb)
{
	const struct prec *a = va, *b = vb;
	const unsigned char *p = (const unsigned char *)a->start + SKG_HEXSZ + 1;
	const unsigned char *q = (const unsigned char *)b->start + SKG_HEXSZ + 1;
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
		if (eol - pos < SKG_HEXSZ + 2) {
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
				return skg_fail(err, "out of memory");
			}
			recs = r;
			cap = ncap;
		}
		recs[n].start = pos;
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
			return skg_fail(err, "out of memory");
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
		static const char header[] = "# pack-refs with:";
		size_t hlen = strnlen(buf, (size_t)(eol - buf)); /* git reads the line as a C string */
		if (hlen < sizeof(header) - 1 || memcmp(buf, header, sizeof(header) - 1) != 0) {
			return invalid_line(err, s->name, buf, len);
		}
		/* the traits, separated by single spaces */
		const char *p = buf + sizeof(header) - 1, *end = buf + hlen;
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
			return skg_fail(err, "out of memory");
		}
		struct skg_buf name = {0};
		skg_buf_addf(&name, "%s/packed-refs", db->repo->common_dir_display);
		db->packed->name = name.p;
		if (name.failed || name.p == NULL) {
			skg_buf_release(&name);
			db->packed->name = NULL;
			return skg_fail(err, "out of memory");
		}
	}
	struct skg_packed_refs *s = db->packed;
	free(s->buf);
	s->buf = NULL;
	s->start = s->eof = NULL;
	struct skg_buf path = {0};
	skg_buf_addf(&path, "%s/packed-refs", db->repo->common_dir);
	char *data;
	size_t len;
	int r = skg_read_file(skg_buf_str(&path), SIZE_MAX / 2, &data, &len);
	int e = errno;
	skg_buf_release(&path);
	if (r != 0) {
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
	uint8_t id[SKG_RAWSZ], peeled[SKG_RAWSZ];
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
	if (eof - p < SKG_HEXSZ + 2 || !skg_from_hex(p, it->id) ||
	    !skg_isspace((unsigned char)p[SKG_HEXSZ])) {
		return invalid_line(err, s->name, it->pos, (size_t)(eof - it->pos));
	}
	p += SKG_HEXSZ + 1;
	const char *eol = memchr(p, '\n', (size_t)(eof - p));
	if (eol == NULL) {
		return unterminated_line(err, s->name, it->pos, (size_t)(eof - it->pos));
	}
	it->refname.len = 0;
	skg_buf_add(&it->refname, p, strnlen(p, (size_t)(eol - p)));
	if (it->refname.failed) {
		return skg_fail(err, "out of memory");
	}
	const char *name = skg_buf_str(&it->refname);
	if (!skg_refname_ok(name, SKG_REFNAME_ALLOW_ONELEVEL)) {
		if (!skg_refname_is_safe(name)) {
			return skg_fail(err, "packed refname is dangerous: %s", name);
		}
		memset(it->id, 0, SKG_RAWSZ);
		it->flags |= SKG_REF_BAD_NAME | SKG_REF_ISBROKEN;
	}
	it->pos = eol + 1;
	it->has_peeled = false;
	if (it->pos < eof && *it->pos == '^') {
		p = it->pos + 1;
		if (eof - p < SKG_HEXSZ + 1 || !skg_from_hex(p, it->peeled) || p[SKG_HEXSZ] != '\n') {
			return invalid_line(err, s->name, it->pos, (size_t)(eof - it->pos));
		}
		it->pos = p + SKG_HEXSZ + 1;
		it->has_peeled = !(it->flags & SKG_REF_ISBROKEN);
	}
	it->valid = true;
	return 1;
}

static int record_cmp_name(const char *rec, const char *eof, const char *name)
{
	const unsigned char *p = (const unsigned char *)rec + SKG_HEXSZ + 1;
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
static int packed_lookup(struct skg_refdb *db, const char *refname, uint8_t id[SKG_RAWSZ],
                         struct skg_error *err)
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
		int cmp = s->eof - rec < SKG_HEXSZ + 2 ? -1 : record_cmp_name(rec, s->eof, refname);
		if (cmp < 0) {
			lo = record_end(mid, hi);
		} else if (cmp > 0) {
			hi = rec;
		} else {
			if (!skg_from_hex(rec, id)) {
				return invalid_line(err, s->name, rec, (size_t)(s->eof - rec));
			}
			return 1;
		}
	}
	return 0;
}

int skg_packed_refs_parse(const char *buf, size_t len, const char *name,
                          int (*fn)(void *ctx, const char *refname, const uint8_t id[SKG_RAWSZ],
                                    const uint8_t *peeled, unsigned flags),
                          void *ctx, struct skg_error *err)
{
	struct skg_packed_refs s = {.name = (char *)name};
	char *copy = malloc(len ? len : 1);
	if (copy == NULL) {
		return skg_fail(err, "out of memory");
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
#define LOOSE_REF_MAX   (64u << 20) /* a bigger loose ref file is treated as unreadable */

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

/* Read the whole file at path into rc->contents. 0 or -1 (errno). */
static int read_into(struct skg_buf *b, const char *path)
{
	b->len = 0;
	skg_buf_add(b, "", 0);
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
		if (b->failed || b->len > LOOSE_REF_MAX) {
			close(fd);
			errno = EFBIG;
			return -1;
		}
	}
	close(fd);
	return 0;
}

/* Parse loose ref contents (NUL-terminated, already right-trimmed). 0, or -1 (broken). */
static int parse_loose_contents(const char *buf, uint8_t id[SKG_RAWSZ], struct skg_buf *referent,
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
	if (strlen(buf) < SKG_HEXSZ || !skg_from_hex(buf, id) ||
	    (buf[SKG_HEXSZ] != '\0' && !skg_isspace((unsigned char)buf[SKG_HEXSZ]))) {
		*type |= SKG_REF_ISBROKEN;
		return -1;
	}
	return 0;
}

/* No loose ref file at the path (absent, or a directory): the packed ref, else *failure =
 * `absent` (read_raw_ref's returns). */
static int packed_fallback(struct rctx *rc, const char *refname, uint8_t id[SKG_RAWSZ], unsigned *type,
                           int absent, int *failure, struct skg_error *err)
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
static int read_raw_ref(struct rctx *rc, const struct store *st, const char *refname, uint8_t id[SKG_RAWSZ],
                        struct skg_buf *referent, unsigned *type, int *failure, struct skg_error *err)
{
	*type = 0;
	ref_path(st, refname, false, &rc->path);
	if (rc->path.failed) {
		return skg_fail(err, "out of memory") - 1;
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
			if (starts_with(target, "refs/") && skg_refname_ok(target, 0)) {
				referent->len = 0;
				skg_buf_adds(referent, target);
				*type |= SKG_REF_ISSYMREF;
				return 0;
			}
			/* not a ref name: read what it points to */
		}
		if (S_ISDIR(sb.st_mode)) {
			return packed_fallback(rc, refname, id, type, EISDIR, failure, err);
		}
		if (read_into(&rc->contents, path) != 0) {
			if (errno == ENOENT && !S_ISLNK(sb.st_mode)) {
				continue;
			}
			if (errno == EFBIG) {
				*type |= SKG_REF_ISBROKEN;
				*failure = EINVAL;
				return -1;
			}
			*failure = errno;
			return -1;
		}
		char *buf = rc->contents.p;
		size_t n = strlen(buf);
		while (n > 0 && skg_isspace((unsigned char)buf[n - 1])) {
			buf[--n] = '\0';
		}
		if (parse_loose_contents(buf, id, referent, type) != 0) {
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
static int resolve(struct rctx *rc, const struct store *st, const char *refname, unsigned rflags,
                   uint8_t id[SKG_RAWSZ], unsigned *flags, const char **resolved, struct skg_error *err)
{
	*flags = 0;
	memset(id, 0, SKG_RAWSZ);
	if (!skg_refname_ok(refname, SKG_REFNAME_ALLOW_ONELEVEL)) {
		if (!(rflags & SKG_RESOLVE_ALLOW_BAD_NAME) || !skg_refname_is_safe(refname)) {
			return 0;
		}
		*flags |= SKG_REF_BAD_NAME;
	}
	int which = 0;
	rc->names[0].len = 0;
	skg_buf_adds(&rc->names[0], refname);
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
			memset(id, 0, SKG_RAWSZ);
			if (*flags & SKG_REF_BAD_NAME) {
				*flags |= SKG_REF_ISBROKEN;
			}
			*resolved = name;
			return 1;
		}
		*flags |= type;
		if (!(type & SKG_REF_ISSYMREF)) {
			if (*flags & SKG_REF_BAD_NAME) {
				memset(id, 0, SKG_RAWSZ);
				*flags |= SKG_REF_ISBROKEN;
			}
			*resolved = name;
			return 1;
		}
		if (next->failed) {
			return skg_fail(err, "out of memory");
		}
		which = !which;
		name = skg_buf_str(next);
		if (rflags & SKG_RESOLVE_NO_RECURSE) {
			memset(id, 0, SKG_RAWSZ);
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

int skg_resolve_ref(struct skg_refdb *db, const char *refname, unsigned resolve_flags, uint8_t id[SKG_RAWSZ],
                    struct skg_buf *target, unsigned *flags, struct skg_error *err)
{
	struct rctx rc = {.db = db};
	struct store st;
	main_store(db->repo, &st);
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
			r = skg_fail(err, "out of memory");
		}
	}
	rctx_release(&rc);
	return r;
}

/* ---- The walk over refs/ ----------------------------------------------------------------------- */

struct ref_walk {
	struct rctx rc;
	struct store st;
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
	uint8_t id[SKG_RAWSZ];
	unsigned flags;
	const char *resolved;
	int r = resolve(&w->rc, &w->st, name, SKG_RESOLVE_READING, id, &flags, &resolved, w->err);
	if (r < 0) {
		return -1;
	}
	if (r == 0) {
		memset(id, 0, SKG_RAWSZ);
		flags |= SKG_REF_ISBROKEN;
	} else if (is_null_id(id)) {
		flags |= SKG_REF_ISBROKEN; /* the null ID in a loose ref is corruption */
	}
	if (!skg_refname_ok(name, SKG_REFNAME_ALLOW_ONELEVEL)) {
		if (!skg_refname_is_safe(name)) {
			return skg_fail(w->err, "loose refname is dangerous: %s", name);
		}
		memset(id, 0, SKG_RAWSZ);
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
	ref_path(&w->st, skg_buf_str(&w->refname), false, &w->rc.path);
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
		if (de->d_name[0] == '.' || ends_with(de->d_name, ".lock")) {
			continue;
		}
		skg_buf_setlen(&full, base);
		skg_buf_adds(&full, de->d_name);
		struct stat sb;
		if (full.failed || stat(skg_buf_str(&full), &sb) != 0) {
			continue; /* git ignores what it cannot stat */
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			void *p = realloc(ents, ncap * sizeof(*ents));
			if (p == NULL) {
				ret = skg_fail(w->err, "out of memory");
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
		ret = skg_fail(w->err, "out of memory");
	}
	static const char *const per_worktree[] = {"bisect", "worktree", "rewritten"};
	size_t extra = strcmp(skg_buf_str(&w->refname), "refs/") == 0 ? 3 : 0;
	struct dent *list = ret == 0 ? malloc((n + extra + 1) * sizeof(*list)) : NULL;
	if (ret == 0 && list == NULL) {
		ret = skg_fail(w->err, "out of memory");
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
			ret = skg_fail(w->err, "out of memory");
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

int skg_for_each_ref(struct skg_refdb *db, skg_ref_fn fn, void *ctx, struct skg_error *err)
{
	if (packed_load(db, err) != 0) {
		return -1;
	}
	struct ref_walk w = {.rc = {.db = db}, .fn = fn, .ctx = ctx, .err = err};
	main_store(db->repo, &w.st);
	w.pi.s = db->packed;
	w.pi.pos = db->packed->start;
	int ret = packed_next(&w.pi, err) < 0 ? -1 : 0;
	if (ret == 0) {
		skg_buf_adds(&w.refname, "refs/");
		ret = w.refname.failed ? skg_fail(err, "out of memory") : walk_dir(&w, 0);
	}
	if (ret == 0) {
		ret = emit_packed_until(&w, NULL);
	}
	skg_buf_release(&w.refname);
	skg_buf_release(&w.pi.refname);
	rctx_release(&w.rc);
	return ret;
}

/* ---- Worktrees (worktree.c get_worktrees) ------------------------------------------------------ */

static bool same_dir(const char *a, const char *b)
{
	char *ra = skg_realpath(a), *rb = skg_realpath(b);
	bool same = ra != NULL && rb != NULL && strcmp(ra, rb) == 0;
	free(ra);
	free(rb);
	return same;
}

/* The common dir a worktree's ref store has: the real path its "commondir" file names, else itself. */
static char *worktree_common(const char *gitdir)
{
	struct skg_buf p = {0};
	skg_buf_addf(&p, "%s/commondir", gitdir);
	char *data;
	size_t len;
	char *out = NULL;
	if (!p.failed && skg_read_file(p.p, 1 << 20, &data, &len) == 0) {
		while (len && (data[len - 1] == '\n' || data[len - 1] == '\r')) {
			data[--len] = '\0';
		}
		if (len) {
			struct skg_buf j = {0};
			if (data[0] != '/') {
				skg_buf_addf(&j, "%s/", gitdir);
			}
			skg_buf_adds(&j, data);
			if (!j.failed) {
				out = skg_realpath(j.p);
			}
			skg_buf_release(&j);
		}
		free(data);
	}
	skg_buf_release(&p);
	return out ? out : strdup(gitdir);
}

int skg_for_each_worktree(struct skg_repo *repo, int (*fn)(void *ctx, const struct skg_worktree *wt),
                          void *ctx, const struct skg_sink *rep, struct skg_error *err)
{
	struct skg_worktree wt = {0};
	wt.git_dir = repo->common_dir;
	wt.is_current = same_dir(repo->git_dir, repo->common_dir);
	wt.head_ref = wt.is_current ? "HEAD" : "main-worktree/HEAD";
	if (wt.is_current) {
		wt.git_dir_display = repo->git_dir_display;
		wt.common_dir_display = repo->common_dir_display;
		wt.common_dir = repo->common_dir;
		wt.git_dir = repo->git_dir;
	} else {
		wt.git_dir_display = repo->common_dir_display;
		wt.common_dir_display = repo->common_dir_display;
		wt.common_dir = repo->common_dir;
	}
	int ret = fn(ctx, &wt);
	if (ret != 0) {
		return ret;
	}
	struct skg_buf dir = {0};
	skg_buf_addf(&dir, "%s/worktrees", repo->common_dir);
	DIR *d = dir.failed ? NULL : opendir(dir.p);
	if (d == NULL) {
		skg_buf_release(&dir);
		return dir.failed ? skg_fail(err, "out of memory") : 0;
	}
	size_t base = dir.len;
	struct skg_buf head = {0}, gd_display = {0};
	struct dirent *de;
	while (ret == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) {
			continue;
		}
		skg_buf_setlen(&dir, base);
		skg_buf_addf(&dir, "/%s/gitdir", de->d_name);
		char *data;
		size_t len;
		if (dir.failed) {
			ret = skg_fail(err, "out of memory");
			break;
		}
		if (skg_read_file(dir.p, 1 << 20, &data, &len) != 0 || len == 0) {
			free(data); /* NULL when the read failed */
			skg_report(rep, SKG_LEVEL_SILENT, SKG_R_WORKTREE_SKIPPED,
			           "skipping worktree %s: no gitdir file", de->d_name);
			continue;
		}
		free(data);
		skg_buf_setlen(&dir, base);
		skg_buf_addf(&dir, "/%s", de->d_name);
		char *common = worktree_common(dir.p);
		struct skg_worktree lw = {0};
		lw.id = de->d_name;
		lw.git_dir = dir.p;
		lw.is_current = same_dir(repo->git_dir, dir.p);
		head.len = 0;
		skg_buf_addf(&head, "worktrees/%s/HEAD", de->d_name);
		gd_display.len = 0;
		skg_buf_addf(&gd_display, "%s/worktrees/%s", repo->common_dir_display, de->d_name);
		if (common == NULL || head.failed || gd_display.failed) {
			free(common);
			ret = skg_fail(err, "out of memory");
			break;
		}
		if (lw.is_current) {
			lw.head_ref = "HEAD";
			lw.git_dir = repo->git_dir;
			lw.git_dir_display = repo->git_dir_display;
			lw.common_dir_display = repo->common_dir_display;
			lw.common_dir = repo->common_dir;
		} else {
			lw.head_ref = head.p;
			lw.git_dir_display = gd_display.p;
			lw.common_dir_display = common;
			lw.common_dir = common;
		}
		ret = fn(ctx, &lw);
		free(common);
	}
	closedir(d);
	skg_buf_release(&dir);
	skg_buf_release(&head);
	skg_buf_release(&gd_display);
	return ret;
}

int skg_check_head(struct skg_refdb *db, const char *head_ref, struct skg_head *out,
                   const struct skg_sink *rep, struct skg_error *err)
{
	struct skg_buf keep = out->target; /* zeroed by the caller, or from an earlier call */
	memset(out, 0, sizeof(*out));
	out->target = keep;
	out->target.len = 0;
	skg_buf_add(&out->target, "", 0);
	int r = skg_resolve_ref(db, head_ref, 0, out->id, &out->target, &out->flags, err);
	if (r < 0) {
		return -1;
	}
	if (r == 0) {
		out->state = SKG_HEAD_INVALID;
		memset(out->id, 0, SKG_RAWSZ);
		skg_report(rep, SKG_LEVEL_ERROR, SKG_R_HEAD_INVALID, "invalid %s", head_ref);
		return 0;
	}
	const char *target = skg_buf_str(&out->target);
	bool detached = strcmp(target, head_ref) == 0;
	out->is_root = !is_null_id(out->id);
	if (!detached && !starts_with(target, "refs/heads/")) {
		out->state = SKG_HEAD_STRANGE;
		skg_report(rep, SKG_LEVEL_ERROR, SKG_R_HEAD_STRANGE, "%s points to something strange (%s)",
		           head_ref, target);
		return 0;
	}
	out->state = detached ? SKG_HEAD_DETACHED : SKG_HEAD_BRANCH;
	if (is_null_id(out->id)) {
		if (detached) {
			out->state = SKG_HEAD_DETACHED_NULL;
			skg_report(rep, SKG_LEVEL_ERROR, SKG_R_HEAD_DETACHED_NULL,
			           "%s: detached HEAD points at nothing", head_ref);
		} else {
			out->state = SKG_HEAD_UNBORN;
			skg_report(rep, SKG_LEVEL_NOTICE, SKG_R_HEAD_UNBORN,
			           "%s points to an unborn branch (%s)", head_ref, target + 11);
		}
	}
	return 0;
}

/* ---- Reflogs -------------------------------------------------------------------------------- */

struct log_walk {
	struct skg_refdb *db;
	const struct skg_worktree *wt;
	struct store st;   /* the worktree's ref store */
	struct store main; /* the current worktree's (where fsck reads the entries from) */
	struct rctx rc;
	int (*fn)(void *ctx, const char *refname, const char *path);
	void *ctx;
	const struct skg_sink *rep;
	struct skg_error *err;
	bool shared_only;
	const char *display; /* <dir>/logs as git spells it */
	struct skg_buf path, rel, qualified, display_path, file;
};

static int log_file(struct log_walk *w, const char *basename)
{
	if (basename[0] == '.' || ends_with(basename, ".lock")) {
		return 0;
	}
	const char *rel = skg_buf_str(&w->rel);
	uint8_t id[SKG_RAWSZ];
	unsigned flags;
	const char *resolved;
	int r = resolve(&w->rc, &w->st, rel, 0, id, &flags, &resolved, w->err);
	if (r < 0) {
		return -1;
	}
	if (r == 0) {
		skg_report(w->rep, SKG_LEVEL_ERROR, SKG_R_REFLOG_BAD_REF, "bad ref for %s/%s", w->display,
		           rel);
		return 0;
	}
	const char *wtname, *bare;
	size_t wtlen;
	enum wt_type type = parse_worktree_ref(rel, &wtname, &wtlen, &bare);
	if (w->shared_only && type != WT_SHARED) {
		return 0;
	}
	w->qualified.len = 0;
	skg_buf_add(&w->qualified, "", 0);
	if (type == WT_CURRENT && !w->wt->is_current) {
		if (w->wt->id == NULL) {
			skg_buf_adds(&w->qualified, "main-worktree/");
		} else {
			skg_buf_addf(&w->qualified, "worktrees/%s/", w->wt->id);
		}
	}
	skg_buf_adds(&w->qualified, rel);
	ref_path(&w->main, skg_buf_str(&w->qualified), true, &w->file);
	if (w->qualified.failed || w->file.failed) {
		return skg_fail(w->err, "out of memory");
	}
	return w->fn(w->ctx, skg_buf_str(&w->qualified), skg_buf_str(&w->file));
}

/* Depth first in readdir order, as git's dir_iterator (symbolic links are not followed). */
static int log_dir(struct log_walk *w, int depth)
{
	if (depth > 256) {
		return 0;
	}
	DIR *d = opendir(skg_buf_str(&w->path));
	if (d == NULL) {
		return 0;
	}
	size_t plen = w->path.len, rlen = w->rel.len;
	int ret = 0;
	struct dirent *de;
	while (ret == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) {
			continue;
		}
		skg_buf_setlen(&w->path, plen);
		skg_buf_addc(&w->path, '/');
		skg_buf_adds(&w->path, de->d_name);
		skg_buf_setlen(&w->rel, rlen);
		if (rlen) {
			skg_buf_addc(&w->rel, '/');
		}
		skg_buf_adds(&w->rel, de->d_name);
		if (w->path.failed || w->rel.failed) {
			ret = skg_fail(w->err, "out of memory");
			break;
		}
		struct stat sb;
		if (lstat(skg_buf_str(&w->path), &sb) != 0) {
			continue;
		}
		if (S_ISDIR(sb.st_mode)) {
			ret = log_dir(w, depth + 1);
		} else if (S_ISREG(sb.st_mode)) {
			ret = log_file(w, de->d_name);
		}
	}
	closedir(d);
	skg_buf_setlen(&w->path, plen);
	skg_buf_setlen(&w->rel, rlen);
	return ret;
}

static int log_walk_dir(struct log_walk *w, const char *dir, const char *display, bool shared_only)
{
	w->path.len = 0;
	skg_buf_addf(&w->path, "%s/logs", dir);
	w->rel.len = 0;
	skg_buf_add(&w->rel, "", 0);
	w->display_path.len = 0;
	skg_buf_addf(&w->display_path, "%s/logs", display);
	if (w->path.failed || w->rel.failed || w->display_path.failed) {
		return skg_fail(w->err, "out of memory");
	}
	w->display = w->display_path.p;
	w->shared_only = shared_only;
	return log_dir(w, 0);
}

int skg_for_each_reflog(struct skg_refdb *db, const struct skg_worktree *wt,
                        int (*fn)(void *ctx, const char *refname, const char *path), void *ctx,
                        const struct skg_sink *rep, struct skg_error *err)
{
	struct log_walk w = {
	    .db = db, .wt = wt, .rc = {.db = db}, .fn = fn, .ctx = ctx, .rep = rep, .err = err};
	w.st.git_dir = wt->git_dir;
	w.st.common_dir = wt->common_dir;
	w.st.git_dir_display = wt->git_dir_display;
	w.st.common_dir_display = wt->common_dir_display;
	main_store(db->repo, &w.main);
	int ret;
	if (strcmp(wt->git_dir_display, wt->common_dir_display) == 0) {
		ret = log_walk_dir(&w, wt->common_dir, wt->common_dir_display, false);
	} else {
		ret = log_walk_dir(&w, wt->git_dir, wt->git_dir_display, false);
		if (ret == 0) {
			ret = log_walk_dir(&w, wt->common_dir, wt->common_dir_display, true);
		}
	}
	skg_buf_release(&w.path);
	skg_buf_release(&w.rel);
	skg_buf_release(&w.qualified);
	skg_buf_release(&w.display_path);
	skg_buf_release(&w.file);
	rctx_release(&w.rc);
	return ret;
}

/* One reflog line (NUL-terminated copy, n bytes including its LF if any). 1 parsed, 0 skipped. */
static int reflog_line(char *line, size_t n, size_t lineno, skg_reflog_entry_fn fn, void *ctx, int *ret,
                       const struct skg_sink *rep)
{
	struct skg_reflog_entry e = {.line = lineno};
	char *p = line;
	char *email_end, *msg;
	if (n == 0 || line[n - 1] != '\n' || n < 2 * SKG_HEXSZ + 2 || !skg_from_hex(p, e.old_id) ||
	    p[SKG_HEXSZ] != ' ' || !skg_from_hex(p + SKG_HEXSZ + 1, e.new_id) ||
	    p[2 * SKG_HEXSZ + 1] != ' ') {
		goto corrupt;
	}
	p += 2 * SKG_HEXSZ + 2;
	email_end = strchr(p, '>');
	if (email_end == NULL || email_end[1] != ' ') {
		goto corrupt;
	}
	uintmax_t ts = strtoumax(email_end + 2, &msg, 10);
	if (ts == 0 || msg[0] != ' ' || (msg[1] != '+' && msg[1] != '-') ||
	    !is_digit((unsigned char)msg[2]) || !is_digit((unsigned char)msg[3]) ||
	    !is_digit((unsigned char)msg[4]) || !is_digit((unsigned char)msg[5])) {
		goto corrupt;
	}
	e.timestamp = (uint64_t)ts;
	long tz = strtol(msg + 1, NULL, 10);
	e.tz = tz > INT_MAX ? INT_MAX : tz < INT_MIN ? INT_MIN : (int)tz;
	email_end[1] = '\0';
	e.ident = p;
	msg += msg[6] == '\t' ? 7 : 6;
	line[n - 1] = '\0'; /* the LF */
	e.message = msg;    /* at most at line[n], the NUL after the LF */
	*ret = fn(ctx, &e);
	return 1;
corrupt:
	skg_report(rep, SKG_LEVEL_SILENT, SKG_R_REFLOG_CORRUPT_LINE,
	           "reflog line %zu does not parse (git skips it)", lineno);
	return 0;
}

int skg_reflog_parse(const char *buf, size_t len, skg_reflog_entry_fn fn, void *ctx,
                     const struct skg_sink *rep, struct skg_error *err)
{
	struct skg_buf line = {0};
	size_t lineno = 0;
	int ret = 0;
	const char *p = buf, *end = buf + len;
	while (ret == 0 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		line.len = 0;
		skg_buf_add(&line, p, n);
		if (line.failed) {
			ret = skg_fail(err, "out of memory");
			break;
		}
		reflog_line(line.p, n, ++lineno, fn, ctx, &ret, rep);
		p += n;
	}
	skg_buf_release(&line);
	return ret;
}

int skg_for_each_reflog_entry(const char *path, skg_reflog_entry_fn fn, void *ctx, const struct skg_sink *rep,
                              struct skg_error *err)
{
	FILE *f = fopen(path, "re");
	if (f == NULL) {
		return 0; /* git: no reflog, nothing to check */
	}
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;
	int ret = 0;
	errno = 0;
	while (ret == 0 && (n = getline(&line, &cap, f)) > 0) {
		reflog_line(line, (size_t)n, ++lineno, fn, ctx, &ret, rep);
	}
	if (ret == 0 && ferror(f)) {
		ret = skg_fail(err, "could not read %s: %s", path, strerror(errno));
	}
	free(line);
	fclose(f);
	return ret;
}

/* ---- The index (read-cache.c, cache-tree.c, resolve-undo.c) ---------------------------------- */

#define CE_NAMEMASK    0x0fffu
#define CE_EXTENDED_OK (SKG_CE_INTENT_TO_ADD | SKG_CE_SKIP_WORKTREE)
#define CT_MAX_DEPTH   2048

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

struct ct_kid {
	const uint8_t *name;
	size_t len;
	size_t node;
};

struct ct_node {
	int entry_count, subtrees;
	const uint8_t *id; /* NULL when entry_count < 0 */
	size_t kids, nkids;
};

struct cache_tree {
	struct ct_node *nodes;
	size_t n, cap;
	struct ct_kid *kids;
	size_t nk, capk;
};

static void ct_release(struct cache_tree *t)
{
	free(t->nodes);
	free(t->kids);
	memset(t, 0, sizeof(*t));
}

/* strtol() on [p, end) (the buffer is not NUL-terminated): false if no digits. */
static bool bounded_strtol(const uint8_t *p, const uint8_t *end, const uint8_t **stop, long *out)
{
	const uint8_t *s = p;
	while (s < end && (*s == ' ' || (*s >= '\t' && *s <= '\r'))) {
		s++;
	}
	bool neg = false;
	if (s < end && (*s == '+' || *s == '-')) {
		neg = *s == '-';
		s++;
	}
	if (s >= end || !is_digit(*s)) {
		*stop = p;
		return false;
	}
	unsigned long v = 0;
	bool over = false;
	for (; s < end && is_digit(*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (ULONG_MAX - d) / 10) {
			over = true;
		} else {
			v = v * 10 + d;
		}
	}
	*stop = s;
	if (neg) {
		*out = over || v > (unsigned long)LONG_MAX ? LONG_MIN : -(long)v;
	} else {
		*out = over || v > (unsigned long)LONG_MAX ? LONG_MAX : (long)v;
	}
	return true;
}

static int kid_cmp(const void *va, const void *vb)
{
	const struct ct_kid *a = va, *b = vb;
	if (a->len != b->len) {
		return a->len < b->len ? -1 : 1;
	}
	return memcmp(a->name, b->name, a->len);
}

/* One node and its subtrees (cache-tree.c read_one): 1, 0 (does not parse: dropped), -1 fatal. */
static int ct_read(struct cache_tree *t, const uint8_t **pp, const uint8_t *end, size_t *index, int depth,
                   struct skg_error *err)
{
	const uint8_t *p = *pp;
	if (depth > CT_MAX_DEPTH) {
		return 0;
	}
	while (p < end && *p) {
		p++; /* the name (the parent keeps it) */
	}
	if (p >= end) {
		return 0;
	}
	p++;
	long entries, subtrees;
	const uint8_t *stop;
	if (!bounded_strtol(p, end, &stop, &entries) || !bounded_strtol(stop, end, &stop, &subtrees)) {
		return 0;
	}
	while (p < end && *p && *p != '\n') {
		p++;
	}
	if (p >= end) {
		return 0;
	}
	p++;
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 16;
		struct ct_node *nn = realloc(t->nodes, ncap * sizeof(*nn));
		if (nn == NULL) {
			return skg_fail(err, "out of memory");
		}
		t->nodes = nn;
		t->cap = ncap;
	}
	size_t me = t->n++;
	struct ct_node node = {.entry_count = (int)entries, .subtrees = (int)subtrees};
	if (node.entry_count >= 0) {
		if ((size_t)(end - p) < SKG_RAWSZ) {
			return 0;
		}
		node.id = p;
		p += SKG_RAWSZ;
	}
	if (node.subtrees > 0 && (size_t)node.subtrees > (size_t)(end - p)) {
		return 0; /* cannot all be there: each takes bytes */
	}
	size_t want = node.subtrees > 0 ? (size_t)node.subtrees : 0;
	if (t->nk + want > t->capk) {
		size_t ncap = t->capk ? t->capk : 16;
		while (ncap < t->nk + want) {
			ncap *= 2;
		}
		struct ct_kid *nk = realloc(t->kids, ncap * sizeof(*nk));
		if (nk == NULL) {
			return skg_fail(err, "out of memory");
		}
		t->kids = nk;
		t->capk = ncap;
	}
	node.kids = t->nk;
	node.nkids = want;
	t->nk += want;
	for (size_t i = 0; i < want; i++) {
		const uint8_t *kname = p;
		size_t kidx;
		int r = ct_read(t, &p, end, &kidx, depth + 1, err);
		if (r <= 0) {
			return r;
		}
		t->kids[node.kids + i].name = kname;
		t->kids[node.kids + i].len = strnlen((const char *)kname, (size_t)(end - kname));
		t->kids[node.kids + i].node = kidx;
	}
	/* git keeps subtrees sorted by name and counts distinct names: a mismatch is fatal */
	if (want > 1) {
		qsort(t->kids + node.kids, want, sizeof(*t->kids), kid_cmp);
	}
	bool dup = false;
	for (size_t i = 1; i < want; i++) {
		dup |= kid_cmp(&t->kids[node.kids + i - 1], &t->kids[node.kids + i]) == 0;
	}
	if (node.subtrees < 0 || dup) {
		return skg_fail(err, "cache-tree: internal error");
	}
	t->nodes[me] = node;
	*index = me;
	*pp = p;
	return 1;
}

/* Parse a TREE extension: 1 (t filled), 0 (git drops it), -1 fatal. */
static int ct_parse(struct cache_tree *t, const uint8_t *data, size_t size, struct skg_error *err)
{
	const uint8_t *p = data;
	size_t root;
	if (size == 0 || data[0] != '\0') {
		return 0; /* empty, or the root has a name: not the whole tree */
	}
	int r = ct_read(t, &p, data + size, &root, 0, err);
	if (r <= 0) {
		ct_release(t);
	}
	return r;
}

static int ct_walk(const struct cache_tree *t, size_t node, struct skg_buf *path,
                   const struct skg_index_callbacks *cb, struct skg_error *err)
{
	const struct ct_node *n = &t->nodes[node];
	if (path->failed) {
		return skg_fail(err, "out of memory");
	}
	bool descend = true;
	int r = cb->cache_tree
	            ? cb->cache_tree(cb->ctx, skg_buf_str(path), n->entry_count, n->subtrees, n->id, &descend)
	            : 0;
	size_t len = path->len;
	for (size_t i = 0; r == 0 && descend && i < n->nkids; i++) {
		const struct ct_kid *k = &t->kids[n->kids + i];
		if (len) {
			skg_buf_addc(path, '/');
		}
		skg_buf_add(path, k->name, k->len);
		r = ct_walk(t, k->node, path, cb, err);
		skg_buf_setlen(path, len);
	}
	return r;
}

struct reuc {
	const char *path;
	uint32_t mode[3];
	const uint8_t *id[3];
	size_t seq;
};

static int reuc_cmp(const void *va, const void *vb)
{
	const struct reuc *a = va, *b = vb;
	int c = strcmp(a->path, b->path);
	if (c != 0) {
		return c;
	}
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Parse a REUC extension (resolve-undo.c): 1 with the records, 0 if it does not parse, -1 fatal. */
static int reuc_parse(const uint8_t *data, size_t size, struct reuc **out, size_t *count,
                      struct skg_error *err)
{
	struct reuc *v = NULL;
	size_t n = 0, cap = 0;
	*out = NULL;
	*count = 0;
	while (size) {
		const uint8_t *nul = memchr(data, 0, size);
		if (nul == NULL || size <= (size_t)(nul - data) + 1) {
			goto bad;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct reuc *nv = realloc(v, ncap * sizeof(*nv));
			if (nv == NULL) {
				free(v);
				return skg_fail(err, "out of memory");
			}
			v = nv;
			cap = ncap;
		}
		struct reuc *r = &v[n];
		memset(r, 0, sizeof(*r));
		r->path = (const char *)data;
		r->seq = n;
		size_t len = (size_t)(nul - data) + 1;
		size -= len;
		data += len;
		for (int i = 0; i < 3; i++) {
			/* an octal number ending at a NUL byte (strtoul base 8, the whole string) */
			nul = memchr(data, 0, size);
			if (nul == NULL) {
				goto bad;
			}
			char *endp;
			unsigned long m = strtoul((const char *)data, &endp, 8);
			if ((const uint8_t *)endp == data || *endp != '\0') {
				goto bad;
			}
			r->mode[i] = (uint32_t)m;
			len = (size_t)((const uint8_t *)endp + 1 - data);
			if (size <= len) {
				goto bad;
			}
			size -= len;
			data += len;
		}
		for (int i = 0; i < 3; i++) {
			if (!r->mode[i]) {
				continue;
			}
			if (size < SKG_RAWSZ) {
				goto bad;
			}
			r->id[i] = data;
			size -= SKG_RAWSZ;
			data += SKG_RAWSZ;
		}
		n++;
	}
	if (n > 1) {
		qsort(v, n, sizeof(*v), reuc_cmp);
	}
	*out = v;
	*count = n;
	return 1;
bad:
	free(v);
	return 0;
}

struct ix {
	const uint8_t *buf;
	size_t len, limit; /* limit: where the checksum starts */
	size_t readable;   /* entries may be read up to here (>= len: git's mmap of the last page) */
	const char *name;
	unsigned version;
	uint32_t nr;
	bool sparse;
};

/*
 * Decode the entry at *off (read-cache.c create_from_disk). names[cur] gets the bytes git copies
 * into the entry's name: its length from the flags (nlen[cur]) plus one more byte, normally the
 * NUL; the path is that as a C string. names[!cur] and nlen[!cur] hold the previous entry's, from
 * which index v4 takes a prefix. 0, or -1 fatal.
 */
static int ix_entry(const struct ix *x, size_t *off, struct skg_buf names[2], size_t nlen[2], int cur,
                    bool first, struct skg_index_entry *e, struct skg_error *err)
{
	const uint8_t *b = x->buf;
	size_t o = *off;
	if (o > x->readable || x->readable - o < 62) {
		return skg_fail(err, "index file corrupt"); /* git reads on past its mapping (and crashes) */
	}
	uint32_t flags = be16(b + o + 60);
	size_t namelen = flags & CE_NAMEMASK;
	size_t name_off = o + 62;
	if (flags & SKG_CE_EXTENDED) {
		if (x->readable - o < 64) {
			return skg_fail(err, "index file corrupt");
		}
		uint32_t ext = (uint32_t)be16(b + o + 62) << 16;
		if (ext & ~CE_EXTENDED_OK) {
			return skg_fail(err, "unknown index entry format 0x%08x", ext);
		}
		flags |= ext;
		name_off += 2;
	}
	struct skg_buf *nb = &names[cur];
	const struct skg_buf *prev = &names[!cur];
	nb->len = 0;
	skg_buf_add(nb, "", 0);
	const uint8_t *lim = b + x->readable;
	size_t len, consumed;
	if (x->version == 4) {
		/* varint of the bytes to strip from the previous name (git's varint: +1 per continuation) */
		const uint8_t *cp = b + name_off;
		if (cp >= lim) {
			return skg_fail(err, "index file corrupt");
		}
		uint64_t strip = *cp & 127;
		const uint8_t *q = cp;
		bool overflow = false;
		while (*q & 128) {
			strip += 1;
			if (strip == 0 || (strip >> 57) != 0) {
				overflow = true; /* git returns 0 and leaves the pointer where it was */
				break;
			}
			if (++q >= lim) {
				return skg_fail(err, "index file corrupt");
			}
			strip = (strip << 7) + (*q & 127);
		}
		if (overflow) {
			strip = 0;
		} else {
			cp = q + 1;
		}
		size_t copy_len = 0;
		if (!first) {
			if (nlen[!cur] < strip) {
				return skg_fail(err, "malformed name field in the index, near path '%s'",
				                skg_buf_str(prev));
			}
			copy_len = nlen[!cur] - (size_t)strip;
		}
		if (namelen == CE_NAMEMASK) {
			const uint8_t *nul = cp < lim ? memchr(cp, 0, (size_t)(lim - cp)) : NULL;
			if (nul == NULL) {
				return skg_fail(err, "index file corrupt");
			}
			len = (size_t)(nul - cp) + copy_len;
		} else {
			len = namelen;
		}
		/* git copies copy_len bytes of the previous name, then len + 1 - copy_len of this one */
		if (len + 1 < copy_len || (size_t)(lim - cp) < len + 1 - copy_len) {
			return skg_fail(err, "index file corrupt");
		}
		skg_buf_add(nb, prev->p, copy_len);
		skg_buf_add(nb, cp, len + 1 - copy_len);
		consumed = (size_t)(cp - (b + o)) + len + 1 - copy_len;
	} else {
		if (name_off > x->readable) {
			return skg_fail(err, "index file corrupt");
		}
		size_t avail = x->readable - name_off;
		len = namelen;
		if (namelen == CE_NAMEMASK) {
			const uint8_t *nul = memchr(b + name_off, 0, avail);
			if (nul == NULL) {
				return skg_fail(err, "index file corrupt");
			}
			len = (size_t)(nul - (b + name_off));
		}
		if (avail < len + 1) {
			return skg_fail(err, "index file corrupt");
		}
		skg_buf_add(nb, b + name_off, len + 1);
		consumed = ((name_off - o) + len + 8) & ~(size_t)7;
	}
	if (nb->failed) {
		return skg_fail(err, "out of memory");
	}
	nlen[cur] = len;
	e->path = nb->p;
	e->path_len = strlen(nb->p); /* the name is used as a C string: a NUL byte ends it */
	e->mode = be32(b + o + 24);
	e->size = be32(b + o + 36);
	memcpy(e->id, b + o + 40, SKG_RAWSZ);
	e->flags = flags;
	e->stage = (flags & SKG_CE_STAGEMASK) >> 12;
	e->sparse_directory = x->sparse && (e->mode & 0170000) == 0040000;
	*off = o + consumed;
	return 0;
}

/* skg_index_parse() where buf[len..readable) may be read too (zeros, as past the end of git's mmap). */
static int index_parse(const uint8_t *buf, size_t len, size_t readable, const char *name,
                       const struct skg_index_callbacks *cb, struct skg_index_info *info,
                       const struct skg_sink *rep, struct skg_error *err)
{
	struct skg_index_info dummy;
	if (info == NULL) {
		info = &dummy;
	}
	memset(info, 0, sizeof(*info));
	if (len < 12 + SKG_RAWSZ) {
		return skg_fail(err, "%s: index file smaller than expected", name);
	}
	if (memcmp(buf, "DIRC", 4) != 0) {
		uint32_t raw;
		memcpy(&raw, buf, 4); /* git prints the bytes as a native integer */
		skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_SIGNATURE, "bad signature 0x%08x", raw);
		return skg_fail(err, "index file corrupt");
	}
	uint32_t version = be32(buf + 4);
	if (version < 2 || version > 4) {
		skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_VERSION, "bad index version %d",
		           (int)version);
		return skg_fail(err, "index file corrupt");
	}
	uint8_t digest[SHA1KIT_DIGEST_SIZE];
	sha1kit_fast(buf, len - SKG_RAWSZ, digest);
	if (memcmp(digest, buf + len - SKG_RAWSZ, SKG_RAWSZ) != 0) {
		skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_CHECKSUM, "bad index file sha1 signature");
		return skg_fail(err, "index file corrupt");
	}
	struct ix x = {.buf = buf, .len = len, .limit = len - SKG_RAWSZ, .readable = readable, .name = name};
	x.version = version;
	x.nr = be32(buf + 8);
	info->version = version;
	info->entries = x.nr;
	memcpy(info->checksum, buf + len - SKG_RAWSZ, SKG_RAWSZ);

	/* pass 1: entries, extensions, then the order check (git's order of failures) */
	struct skg_buf names[2] = {{0}, {0}};
	size_t nlen[2] = {0, 0};
	struct cache_tree ct = {0};
	struct reuc *ru = NULL;
	size_t nru = 0;
	bool have_tree = false, have_reuc = false;
	int ret = 0;
	int cur = 0;
	size_t off = 12;
	enum { ORDER_OK, ORDER_UNSORTED, ORDER_MERGED_TWICE, ORDER_STAGES } order = ORDER_OK;
	struct skg_buf order_path = {0};
	unsigned prev_stage = 0;
	for (uint32_t i = 0; i < x.nr; i++) {
		struct skg_index_entry e;
		if (ix_entry(&x, &off, names, nlen, cur, i == 0, &e, err) != 0) {
			ret = -1;
			goto out;
		}
		if (i > 0 && order == ORDER_OK) {
			const char *prev = skg_buf_str(&names[!cur]);
			int c = strcmp(prev, e.path);
			if (c > 0) {
				order = ORDER_UNSORTED;
			} else if (c == 0 && prev_stage == 0) {
				order = ORDER_MERGED_TWICE;
			} else if (c == 0 && prev_stage > e.stage) {
				order = ORDER_STAGES;
			}
			if (order != ORDER_OK) {
				skg_buf_adds(&order_path, prev);
			}
		}
		prev_stage = e.stage;
		cur = !cur;
	}
	while (off + 8 <= x.limit) {
		const uint8_t *sig = buf + off;
		uint32_t size = be32(buf + off + 4);
		const uint8_t *data = buf + off + 8;
		/* git reads an extension that claims more than the file has up to the end of the file */
		size_t use = size < readable - off - 8 ? size : readable - off - 8;
		if (memcmp(sig, "TREE", 4) == 0) {
			ct_release(&ct);
			int r = ct_parse(&ct, data, use, err);
			if (r < 0) {
				ret = -1;
				goto out;
			}
			have_tree = r > 0;
			if (!have_tree) {
				skg_report(rep, SKG_LEVEL_SILENT, SKG_R_INDEX_BAD_TREE,
				           "cache-tree extension does not parse (git ignores it)");
			}
		} else if (memcmp(sig, "REUC", 4) == 0) {
			free(ru);
			ru = NULL;
			int r = reuc_parse(data, use, &ru, &nru, err);
			if (r < 0) {
				ret = -1;
				goto out;
			}
			have_reuc = r > 0;
			if (!have_reuc) {
				skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_REUC,
				           "Index records invalid resolve-undo information");
			}
		} else if (memcmp(sig, "link", 4) == 0) {
			ret = skg_fail(err, "%s: split index (\"link\" extension) is not supported", name);
			goto out;
		} else if (memcmp(sig, "sdir", 4) == 0) {
			x.sparse = true;
		} else if (memcmp(sig, "FSMN", 4) == 0) {
			/* the file system monitor's state: git checks its header (its bitmap: left out) */
			uint32_t v = use >= 4 ? be32(data) : 0;
			if (size < 4 + 1 + 4) {
				skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_FSMN,
				           "corrupt fsmonitor extension (too short)");
			} else if (v != 1 && v != 2) {
				skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_FSMN,
				           "bad fsmonitor version %d", (int)v);
			}
		} else if (memcmp(sig, "UNTR", 4) == 0 || memcmp(sig, "EOIE", 4) == 0 ||
		           memcmp(sig, "IEOT", 4) == 0) {
			/* caches of the work tree and offsets: nothing fsck uses */
		} else if (sig[0] < 'A' || sig[0] > 'Z') {
			skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_UNKNOWN_EXT,
			           "index uses %.4s extension, which we do not understand",
			           (const char *)sig);
			ret = skg_fail(err, "index file corrupt");
			goto out;
		} else {
			skg_report(rep, SKG_LEVEL_PLAIN, SKG_R_INDEX_EXT_IGNORED, "ignoring %.4s extension",
			           (const char *)sig);
		}
		off += 8 + (size_t)size;
	}
	if (order != ORDER_OK) {
		if (order == ORDER_UNSORTED) {
			ret = skg_fail(err, "unordered stage entries in index");
		} else if (order == ORDER_MERGED_TWICE) {
			ret = skg_fail(err, "multiple stage entries for merged file '%s'",
			               skg_buf_str(&order_path));
		} else {
			ret = skg_fail(err, "unordered stage entries for '%s'", skg_buf_str(&order_path));
		}
		goto out;
	}
	info->has_cache_tree = have_tree;
	info->has_resolve_undo = have_reuc;
	info->sparse = x.sparse;

	/* pass 2: the callbacks */
	off = 12;
	cur = 0;
	for (uint32_t i = 0; ret == 0 && i < x.nr; i++) {
		struct skg_index_entry e;
		if (ix_entry(&x, &off, names, nlen, cur, i == 0, &e, err) != 0) {
			ret = -1;
			goto out;
		}
		cur = !cur;
		if (cb != NULL && cb->entry != NULL) {
			ret = cb->entry(cb->ctx, &e);
		}
	}
	if (ret == 0 && have_tree && cb != NULL) {
		struct skg_buf path = {0};
		skg_buf_add(&path, "", 0);
		ret = ct_walk(&ct, 0, &path, cb, err);
		skg_buf_release(&path);
	}
	for (size_t i = 0; ret == 0 && have_reuc && cb != NULL && cb->resolve_undo != NULL && i < nru; i++) {
		if (i + 1 < nru && strcmp(ru[i].path, ru[i + 1].path) == 0) {
			continue; /* the last record of a path wins */
		}
		const uint8_t *const ids[3] = {ru[i].id[0], ru[i].id[1], ru[i].id[2]};
		ret = cb->resolve_undo(cb->ctx, ru[i].path, ru[i].mode, ids);
	}
out:
	skg_buf_release(&names[0]);
	skg_buf_release(&names[1]);
	skg_buf_release(&order_path);
	ct_release(&ct);
	free(ru);
	return ret;
}

int skg_index_parse(const uint8_t *buf, size_t len, const char *name, const struct skg_index_callbacks *cb,
                    struct skg_index_info *info, const struct skg_sink *rep, struct skg_error *err)
{
	return index_parse(buf, len, len, name, cb, info, rep, err);
}

int skg_read_index(const struct skg_repo *repo, const struct skg_index_callbacks *cb,
                   struct skg_index_info *info, const struct skg_sink *rep, struct skg_error *err)
{
	if (info != NULL) {
		memset(info, 0, sizeof(*info));
	}
	char *data;
	size_t len;
	if (skg_read_file(repo->index_file, SIZE_MAX / 2, &data, &len) != 0) {
		if (errno == ENOENT) {
			return 0;
		}
		return skg_fail(err, "%s: index file open failed: %s", repo->index_file_display,
		                strerror(errno));
	}
	/*
	 * git maps the file: a corrupt entry may read on into the zeros that fill the last page (and
	 * crash beyond). Give the parser the same zeros, so that it says what git says.
	 */
	long page = sysconf(_SC_PAGESIZE);
	size_t pg = page > 0 ? (size_t)page : 4096;
	size_t readable = len + (pg - len % pg) % pg;
	if (readable > len) {
		char *grown = realloc(data, readable + 1);
		if (grown == NULL) {
			free(data);
			return skg_fail(err, "out of memory");
		}
		data = grown;
		memset(data + len, 0, readable - len + 1);
	}
	int ret =
	    index_parse((const uint8_t *)data, len, readable, repo->index_file_display, cb, info, rep, err);
	free(data);
	return ret;
}
