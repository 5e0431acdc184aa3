/*
 * index_file.c - the index file: entries, cache tree, resolve-undo, as git fsck reads it (index_file.h).
 *
 * The rules follow git 2.39.5 (read-cache.c, cache-tree.c, resolve-undo.c), checked by running git;
 * the code is this project's own.
 */
#include "index_file.h"

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
#include <sha1kit/git_fsck.h>

#include "repo.h"
#include "util.h"

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
	size_t rawsz; /* bytes of an object ID */
};

static void ct_release(struct cache_tree *t)
{
	size_t rawsz = t->rawsz;
	free(t->nodes);
	free(t->kids);
	memset(t, 0, sizeof(*t));
	t->rawsz = rawsz;
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
	if (s >= end || !skg_isdigit(*s)) {
		*stop = p;
		return false;
	}
	unsigned long v = 0;
	bool over = false;
	for (; s < end && skg_isdigit(*s); s++) {
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
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		t->nodes = nn;
		t->cap = ncap;
	}
	size_t me = t->n++;
	struct ct_node node = {.entry_count = (int)entries, .subtrees = (int)subtrees};
	if (node.entry_count >= 0) {
		if ((size_t)(end - p) < t->rawsz) {
			return 0;
		}
		node.id = p;
		p += t->rawsz;
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
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
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
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
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
static int reuc_parse(const uint8_t *data, size_t size, size_t rawsz, struct reuc **out, size_t *count,
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
				return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
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
			if (size < rawsz) {
				goto bad;
			}
			r->id[i] = data;
			size -= rawsz;
			data += rawsz;
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
	size_t rawsz; /* bytes of an object ID: 20 (SHA-1) or 32 (SHA-256) */
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
	/* 40 bytes of stat data, the ID, 2 of flags (gitformat-index(5)) */
	size_t flags_at = 40 + x->rawsz;
	if (o > x->readable || x->readable - o < flags_at + 2) {
		return skg_fail(err, "index file corrupt"); /* git reads on past its mapping (and crashes) */
	}
	uint32_t flags = be16(b + o + flags_at);
	size_t namelen = flags & CE_NAMEMASK;
	size_t name_off = o + flags_at + 2;
	if (flags & SKG_CE_EXTENDED) {
		if (x->readable - o < flags_at + 4) {
			return skg_fail(err, "index file corrupt");
		}
		uint32_t ext = (uint32_t)be16(b + o + flags_at + 2) << 16;
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
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	nlen[cur] = len;
	e->path = nb->p;
	e->path_len = strlen(nb->p); /* the name is used as a C string: a NUL byte ends it */
	e->mode = be32(b + o + 24);
	e->size = be32(b + o + 36);
	memcpy(e->id, b + o + 40, x->rawsz);
	e->flags = flags;
	e->stage = (flags & SKG_CE_STAGEMASK) >> 12;
	e->sparse_directory = x->sparse && (e->mode & 0170000) == 0040000;
	*off = o + consumed;
	return 0;
}

/* What a parse is for: git's version, the file (for a split index's shared index), and the
 * entries kept instead of passed on (a shared index, read as the base of a split one). */
struct parse_mode {
	unsigned git_version;
	const char *path;       /* the file's path; NULL: parsed from memory (no split index) */
	struct sent_list *keep; /* not NULL: a shared index: entries kept here, order not checked */
};

static int index_parse(const uint8_t *buf, size_t len, size_t readable, const char *name, size_t rawsz,
                       const struct skg_index_callbacks *cb, struct skg_index_info *info,
                       const struct skg_sink *rep, const struct parse_mode *mode, struct skg_error *err);

/* ---- Split index: the link extension and the shared index (split-index.c) ------------------ */

/* An entry kept in memory (read-cache.c struct cache_entry, what fsck uses of it). */
struct sent {
	char *path;
	size_t nlen; /* git's ce_namelen: the name's length as stored (0 in a replacement) */
	uint32_t mode, flags, size;
	unsigned stage;
	uint8_t id[SKG_MAX_RAWSZ];
	bool removed;
};

struct sent_list {
	struct sent *v;
	size_t n, cap;
};

static void sent_release(struct sent_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int sent_add(struct sent_list *l, const struct skg_index_entry *e, size_t nlen, struct skg_error *err)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct sent *w = realloc(l->v, cap * sizeof(*w));
		if (w == NULL) {
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		l->v = w;
		l->cap = cap;
	}
	struct sent *t = &l->v[l->n];
	t->path = strdup(e->path);
	if (t->path == NULL) {
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	t->nlen = nlen;
	t->mode = e->mode;
	t->flags = e->flags;
	t->size = e->size;
	t->stage = e->stage;
	memcpy(t->id, e->id, sizeof(t->id));
	t->removed = false;
	l->n++;
	return 0;
}

/* A bitmap of the link extension (ewah/ewah_io.c ewah_read_mmap): its words at *words (n of
 * them, big-endian) and the bytes it takes, or -1 with git's error reported. */
static int64_t ewah_at(const uint8_t *p, size_t len, const uint8_t **words, uint32_t *n,
                       const struct skg_sink *rep)
{
	if (len < 4) {
		skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_LINK,
		           "corrupt ewah bitmap: eof before bit size");
		return -1;
	}
	if (len < 8) {
		skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_LINK,
		           "corrupt ewah bitmap: eof before length");
		return -1;
	}
	*n = be32(p + 4);
	uint64_t data = (uint64_t)*n * 8;
	if (len - 8 < data) {
		skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_LINK,
		           "corrupt ewah bitmap: eof in data (%" PRIu64 " bytes short)", data - (len - 8));
		return -1;
	}
	if (len - 8 - data < 4) {
		skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_LINK, "corrupt ewah bitmap: eof before rlw");
		return -1;
	}
	*words = p + 8;
	return (int64_t)(8 + data + 4);
}

static uint64_t be64_at(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* Each set bit of an EWAH bitmap in order (ewah/ewah_bitmap.c ewah_each_bit: a marker word holds
 * the running bit (bit 0), the run's length in words (bits 1..32) and the literal words that
 * follow (bits 33..63); bits count from the least significant of each word). fn returns 0 to go
 * on; its first other value is returned. */
static int ewah_each(const uint8_t *words, uint32_t n, int (*fn)(void *, uint64_t), void *ctx)
{
	uint64_t pos = 0;
	uint32_t at = 0;
	while (at < n) {
		uint64_t w = be64_at(words + 8 * (size_t)at);
		uint64_t run = ((w >> 1) & 0xffffffffu) * 64;
		if (w & 1) {
			for (uint64_t k = 0; k < run; k++, pos++) {
				int r = fn(ctx, pos);
				if (r != 0) {
					return r;
				}
			}
		} else {
			pos += run;
		}
		at++;
		for (uint64_t k = 0; k < (w >> 33) && at < n; k++, at++) {
			uint64_t lit = be64_at(words + 8 * (size_t)at);
			for (unsigned c = 0; c < 64; c++, pos++) {
				if ((lit >> c) & 1) {
					int r = fn(ctx, pos);
					if (r != 0) {
						return r;
					}
				}
			}
		}
	}
	return 0;
}

struct merge {
	struct sent_list *base, *split;
	size_t replaced;
	struct skg_error *err;
};

/* split-index.c replace_entry: the base entry at pos takes all but its name from the next
 * replacement (which has an empty name). */
static int replace_at(void *ctx, uint64_t pos)
{
	struct merge *m = ctx;
	if (pos >= m->base->n) {
		return skg_fail(m->err, "position for replacement %d exceeds base index size %d", (int)pos,
		                (int)m->base->n);
	}
	if (m->replaced >= m->split->n) {
		return skg_fail(m->err, "too many replacements (%d vs %d)", (int)m->replaced,
		                (int)m->split->n);
	}
	struct sent *dst = &m->base->v[pos], *src = &m->split->v[m->replaced];
	if (src->nlen != 0) {
		return skg_fail(m->err, "corrupt link extension, entry %d should have zero length name",
		                (int)pos);
	}
	dst->mode = src->mode;
	dst->flags = src->flags;
	dst->size = src->size;
	dst->stage = src->stage;
	memcpy(dst->id, src->id, sizeof(dst->id));
	m->replaced++;
	return 0;
}

/* split-index.c mark_entry_for_delete */
static int delete_at(void *ctx, uint64_t pos)
{
	struct merge *m = ctx;
	if (pos >= m->base->n) {
		return skg_fail(m->err, "position for delete %d exceeds base index size %d", (int)pos,
		                (int)m->base->n);
	}
	m->base->v[pos].removed = true;
	return 0;
}

/* read-cache.c cache_name_stage_compare */
static int name_stage_cmp(const struct sent *a, const char *name, unsigned stage)
{
	int c = strcmp(a->path, name);
	return c != 0 ? c : (a->stage < stage ? -1 : a->stage > stage);
}

/* read-cache.c add_index_entry (ADD_CACHE_OK_TO_ADD): an entry of the same name and stage is
 * replaced, else it is inserted in order; a stage-0 entry removes the other stages of its name.
 * Takes e's path. 0, or -1 when out of memory. */
static int add_entry(struct sent_list *l, struct sent *e, struct skg_error *err)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = name_stage_cmp(&l->v[mid], e->path, e->stage);
		if (c == 0) {
			free(l->v[mid].path);
			l->v[mid] = *e;
			return 0;
		}
		if (c < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (e->stage == 0) {
		size_t k = lo;
		while (k < l->n && strcmp(l->v[k].path, e->path) == 0) {
			k++;
		}
		for (size_t j = lo; j < k; j++) {
			free(l->v[j].path);
		}
		memmove(l->v + lo, l->v + k, (l->n - k) * sizeof(*l->v));
		l->n -= k - lo;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct sent *w = realloc(l->v, cap * sizeof(*w));
		if (w == NULL) {
			free(e->path);
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		l->v = w;
		l->cap = cap;
	}
	memmove(l->v + lo + 1, l->v + lo, (l->n - lo) * sizeof(*l->v));
	l->v[lo] = *e;
	l->n++;
	return 0;
}

/*
 * An index file as read-cache.c do_read_index maps it: 0 and *data (len bytes, then zeros up to
 * *readable, the end of the last page: a corrupt entry reads on into them as git does), 1 when the
 * file is missing and !must_exist, -1 where git dies (its message, naming `display`).
 */
static int index_load(const char *path, const char *display, size_t rawsz, bool must_exist, uint8_t **data,
                      size_t *len, size_t *readable, struct skg_error *err)
{
	*data = NULL;
	*len = *readable = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (!must_exist && errno == ENOENT) {
			return 1;
		}
		return skg_fail_sys(err, SKG_E_GIT, errno, "%s: index file open failed: %s", display,
		                    strerror(errno));
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return skg_fail_sys(err, SKG_E_GIT, e, "%s: cannot stat the open index: %s", display,
		                    strerror(e));
	}
	if (st.st_size < 0 || (uint64_t)st.st_size < 12 + rawsz) {
		close(fd);
		return skg_fail(err, "%s: index file smaller than expected", display);
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > SIZE_MAX / 2) {
		/* mmap of a directory (or another file that cannot be mapped) fails with ENODEV */
		int e = S_ISREG(st.st_mode) ? ENOMEM : ENODEV;
		close(fd);
		return skg_fail_sys(err, SKG_E_GIT, e, "%s: unable to map index file: %s", display,
		                    strerror(e));
	}
	long page = sysconf(_SC_PAGESIZE);
	size_t pg = page > 0 ? (size_t)page : 4096;
	size_t n = (size_t)st.st_size;
	size_t cap = n + (pg - n % pg) % pg;
	uint8_t *p = calloc(cap + 1, 1);
	if (p == NULL) {
		close(fd);
		return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
	}
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, p + got, n - got, (off_t)got);
		if (r <= 0) {
			int e = r < 0 ? errno : EIO;
			if (r < 0 && e == EINTR) {
				continue;
			}
			free(p);
			close(fd);
			return skg_fail_sys(err, SKG_E_GIT, e, "%s: unable to map index file: %s", display,
			                    strerror(e));
		}
		got += (size_t)r;
	}
	close(fd);
	*data = p;
	*len = n;
	*readable = cap;
	return 0;
}

/* path with its last component replaced by "sharedindex.HEX" (dirname(path)/...); NULL when out
 * of memory. */
static char *shared_path(const char *path, const char *hex)
{
	const char *slash = strrchr(path, '/');
	struct skg_buf b = {0};
	if (slash == NULL) {
		skg_buf_addf(&b, "./sharedindex.%s", hex);
	} else {
		skg_buf_addf(&b, "%.*s/sharedindex.%s", (int)(slash - path), path, hex);
	}
	return b.failed ? (skg_buf_release(&b), NULL) : b.p;
}

/* read-cache.c check_ce_order, for an entry and the one before it */
enum ce_order { ORDER_OK, ORDER_UNSORTED, ORDER_MERGED_TWICE, ORDER_STAGES };

static enum ce_order ce_order(const char *prev, unsigned prev_stage, const char *path, unsigned stage)
{
	int c = strcmp(prev, path);
	return c > 0                          ? ORDER_UNSORTED
	       : c == 0 && prev_stage == 0    ? ORDER_MERGED_TWICE
	       : c == 0 && prev_stage > stage ? ORDER_STAGES
	                                      : ORDER_OK;
}

/* git's die for an order that is not ORDER_OK (prev: the entry before the one out of order). */
static int ce_order_fail(enum ce_order o, const char *prev, struct skg_error *err)
{
	if (o == ORDER_UNSORTED) {
		return skg_fail(err, "unordered stage entries in index");
	}
	if (o == ORDER_MERGED_TWICE) {
		return skg_fail(err, "multiple stage entries for merged file '%s'", prev);
	}
	return skg_fail(err, "unordered stage entries for '%s'", prev);
}

/*
 * A split index (read-cache.c read_index_from, split-index.c merge_base_index): its entries (x),
 * the shared index DIR/sharedindex.<base> beside it read and checked as git reads it (its checksum
 * must be base: "broken index, expect ..."), the base's entries replaced and deleted as the
 * bitmaps say, this file's other entries added, the order of the result checked (git's
 * check_ce_order) and each entry passed to cb->entry. 0, or -1 where git dies.
 */
static int split_merge(const struct ix *x, const uint8_t *base, const uint8_t *del_words, uint32_t del_n,
                       const uint8_t *rep_words, uint32_t rep_n, const struct skg_index_callbacks *cb,
                       const struct skg_sink *rep, const struct parse_mode *mode, struct skg_error *err)
{
	struct sent_list split = {0}, shared = {0};
	struct skg_buf names[2] = {{0}, {0}};
	size_t nlen[2] = {0, 0};
	int ret = 0, cur = 0;
	size_t off = 12;
	char hex[SKG_MAX_HEXSZ + 1];
	skg_to_hex_len(base, x->rawsz, hex);
	char *path = shared_path(mode->path, hex), *display = shared_path(x->name, hex);
	uint8_t *data = NULL;
	if (path == NULL || display == NULL) {
		ret = skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; ret == 0 && i < x->nr; i++) {
		struct skg_index_entry e;
		ret = ix_entry(x, &off, names, nlen, cur, i == 0, &e, err);
		if (ret == 0) {
			ret = sent_add(&split, &e, nlen[cur], err);
		}
		cur = !cur;
	}
	size_t len, readable;
	if (ret == 0) {
		ret = index_load(path, display, x->rawsz, true, &data, &len, &readable, err) != 0 ? -1 : 0;
	}
	struct skg_index_info info;
	const struct parse_mode shared_mode = {mode->git_version, path, &shared};
	if (ret == 0) {
		ret =
		    index_parse(data, len, readable, display, x->rawsz, NULL, &info, rep, &shared_mode, err);
	}
	if (ret == 0 && memcmp(info.checksum, base, x->rawsz) != 0) {
		char got[SKG_MAX_HEXSZ + 1];
		skg_to_hex_len(info.checksum, x->rawsz, got);
		ret = skg_fail(err, "broken index, expect %s in %s, got %s", hex, display, got);
	}
	struct merge m = {&shared, &split, 0, err};
	if (ret == 0) {
		ret = ewah_each(rep_words, rep_n, replace_at, &m);
	}
	if (ret == 0) {
		ret = ewah_each(del_words, del_n, delete_at, &m);
	}
	if (ret == 0) {
		size_t k = 0;
		for (size_t i = 0; i < shared.n; i++) {
			if (shared.v[i].removed) {
				free(shared.v[i].path);
			} else {
				shared.v[k++] = shared.v[i];
			}
		}
		shared.n = k;
	}
	for (size_t i = m.replaced; ret == 0 && i < split.n; i++) {
		if (split.v[i].nlen == 0) {
			ret = skg_fail(
			    err, "corrupt link extension, entry %d should have non-zero length name", (int)i);
			break;
		}
		ret = add_entry(&shared, &split.v[i], err);
		split.v[i].path = NULL; /* shared's now (or freed) */
	}
	/* read-cache.c check_ce_order */
	for (size_t i = 1; ret == 0 && i < shared.n; i++) {
		const struct sent *a = &shared.v[i - 1], *b = &shared.v[i];
		enum ce_order o = ce_order(a->path, a->stage, b->path, b->stage);
		ret = o == ORDER_OK ? 0 : ce_order_fail(o, a->path, err);
	}
	for (size_t i = 0; ret == 0 && cb != NULL && cb->entry != NULL && i < shared.n; i++) {
		const struct sent *t = &shared.v[i];
		struct skg_index_entry e = {t->path,  strlen(t->path), t->mode, {0},
		                            t->stage, t->flags,        t->size, false};
		memcpy(e.id, t->id, sizeof(e.id));
		ret = cb->entry(cb->ctx, &e);
	}
out:
	free(data);
	free(path);
	free(display);
	sent_release(&split);
	sent_release(&shared);
	skg_buf_release(&names[0]);
	skg_buf_release(&names[1]);
	return ret;
}

/* skg_index_parse() where buf[len..readable) may be read too (zeros, as past the end of git's mmap). */
static int index_parse(const uint8_t *buf, size_t len, size_t readable, const char *name, size_t rawsz,
                       const struct skg_index_callbacks *cb, struct skg_index_info *info,
                       const struct skg_sink *rep, const struct parse_mode *mode, struct skg_error *err)
{
	struct skg_index_info dummy;
	if (info == NULL) {
		info = &dummy;
	}
	memset(info, 0, sizeof(*info));
	if (len < 12 + rawsz) {
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
	uint8_t digest[SKG_MAX_RAWSZ];
	static const uint8_t zeros[SKG_MAX_RAWSZ];
	/* git 2.40+ (index.skipHash, feature.manyFiles): a null trailer is not checked (verify_hdr) */
	bool skip_hash = mode->git_version >= SKG_GIT_2_55 && memcmp(buf + len - rawsz, zeros, rawsz) == 0;
	if (!skip_hash) {
		skg_checksum((unsigned)rawsz, buf, len - rawsz, digest);
	}
	if (!skip_hash && memcmp(digest, buf + len - rawsz, rawsz) != 0) {
		skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_CHECKSUM, "bad index file sha1 signature");
		return skg_fail(err, "index file corrupt");
	}
	struct ix x = {
	    .buf = buf, .len = len, .limit = len - rawsz, .readable = readable, .name = name, .rawsz = rawsz};
	x.version = version;
	x.nr = be32(buf + 8);
	info->version = version;
	info->entries = x.nr;
	memcpy(info->checksum, buf + len - rawsz, rawsz);

	/* pass 1: entries, extensions, then the order check (git's order of failures) */
	struct skg_buf names[2] = {{0}, {0}};
	size_t nlen[2] = {0, 0};
	struct cache_tree ct = {.rawsz = rawsz};
	struct reuc *ru = NULL;
	size_t nru = 0;
	bool have_tree = false, have_reuc = false;
	const uint8_t *link_base = NULL, *del_words = NULL, *rep_words = NULL;
	uint32_t del_n = 0, rep_n = 0;
	int ret = 0;
	int cur = 0;
	size_t off = 12;
	enum ce_order order = ORDER_OK;
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
			order = ce_order(prev, prev_stage, e.path, e.stage);
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
			int r = reuc_parse(data, use, rawsz, &ru, &nru, err);
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
			/* split-index.c read_link_extension: the shared index's checksum, then the delete
			 * and replace bitmaps */
			int64_t a = 0, b = 0;
			if (use < rawsz) {
				skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_LINK,
				           "corrupt link extension (too short)");
				ret = skg_fail(err, "index file corrupt");
				goto out;
			}
			link_base = data;
			del_n = rep_n = 0;
			if (use > rawsz) {
				a = ewah_at(data + rawsz, use - rawsz, &del_words, &del_n, rep);
				if (a < 0) {
					skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_LINK,
					           "corrupt delete bitmap in link extension");
				} else {
					b = ewah_at(data + rawsz + a, use - rawsz - (size_t)a, &rep_words,
					            &rep_n, rep);
					if (b < 0) {
						skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_LINK,
						           "corrupt replace bitmap in link extension");
					} else if ((size_t)(a + b) != use - rawsz) {
						skg_report(rep, SKG_LEVEL_ERROR, SKG_R_INDEX_BAD_LINK,
						           "garbage at the end of link extension");
						b = -1;
					}
				}
				if (a < 0 || b < 0) {
					ret = skg_fail(err, "index file corrupt");
					goto out;
				}
			}
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
	static const uint8_t null_id[SKG_MAX_RAWSZ];
	bool split = link_base != NULL && memcmp(link_base, null_id, rawsz) != 0 && mode->keep == NULL;
	if (split && mode->path == NULL) {
		ret = skg_fail(err, "%s: split index (\"link\" extension) is not supported", name);
		goto out;
	}
	if (mode->keep != NULL) {
		order = ORDER_OK; /* a shared index: git checks the order of the merged index only */
	}
	if (split) {
		/* read-cache.c read_index_from: the entries merged with the shared index's, checked in
		 * their order and passed on; the cache tree and resolve-undo are this file's */
		info->sparse = x.sparse;
		ret = cb != NULL && cb->begin != NULL ? cb->begin(cb->ctx, info) : 0;
		ret = ret != 0 ? ret
		               : split_merge(&x, link_base, del_words, del_n, rep_words, rep_n, cb, rep, mode,
		                             err);
		if (ret != 0) {
			goto out;
		}
	} else if (order != ORDER_OK) {
		ret = ce_order_fail(order, skg_buf_str(&order_path), err);
		goto out;
	}
	info->has_cache_tree = have_tree;
	info->has_resolve_undo = have_reuc;
	info->sparse = x.sparse;

	if (ret == 0 && mode->keep == NULL && !split && cb != NULL && cb->begin != NULL) {
		ret = cb->begin(cb->ctx, info);
	}
	/* pass 2: the callbacks (the entries of a split index went in split_merge) */
	off = 12;
	cur = 0;
	for (uint32_t i = 0; ret == 0 && !split && i < x.nr; i++) {
		struct skg_index_entry e;
		if (ix_entry(&x, &off, names, nlen, cur, i == 0, &e, err) != 0) {
			ret = -1;
			goto out;
		}
		cur = !cur;
		if (mode->keep != NULL) {
			ret = sent_add(mode->keep, &e, nlen[!cur], err);
		} else if (cb != NULL && cb->entry != NULL) {
			ret = cb->entry(cb->ctx, &e);
		}
	}
	if (mode->keep != NULL) {
		goto out; /* a shared index: its extensions are not the merged index's */
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

int skg_index_parse(const uint8_t *buf, size_t len, const char *name, size_t rawsz,
                    const struct skg_index_callbacks *cb, struct skg_index_info *info,
                    const struct skg_sink *rep, struct skg_error *err)
{
	const struct parse_mode mode = {SKG_GIT_2_55, NULL, NULL};
	return index_parse(buf, len, len, name, rawsz, cb, info, rep, &mode, err);
}

int skg_index_parse_file(const char *path, const char *display, size_t rawsz, unsigned git_version,
                         const struct skg_index_callbacks *cb, struct skg_index_info *info,
                         const struct skg_sink *rep, struct skg_error *err)
{
	if (info != NULL) {
		memset(info, 0, sizeof(*info));
	}
	uint8_t *data;
	size_t len, readable;
	int r = index_load(path, display, rawsz, false, &data, &len, &readable, err);
	if (r != 0) {
		return r > 0 ? 0 : -1;
	}
	const struct parse_mode mode = {git_version, path, NULL};
	int ret = index_parse(data, len, readable, display, rawsz, cb, info, rep, &mode, err);
	free(data);
	return ret;
}

int skg_read_index(const struct skg_repo *repo, const struct skg_index_callbacks *cb,
                   struct skg_index_info *info, const struct skg_sink *rep, struct skg_error *err)
{
	return skg_index_parse_file(repo->index_file, repo->index_file_display,
	                            skg_format_rawsz(repo->object_format), SKG_GIT_2_55, cb, info, rep, err);
}
