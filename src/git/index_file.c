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

/* skg_index_parse() where buf[len..readable) may be read too (zeros, as past the end of git's mmap). */
static int index_parse(const uint8_t *buf, size_t len, size_t readable, const char *name, size_t rawsz,
                       const struct skg_index_callbacks *cb, struct skg_index_info *info,
                       const struct skg_sink *rep, struct skg_error *err)
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
	skg_checksum((unsigned)rawsz, buf, len - rawsz, digest);
	if (memcmp(digest, buf + len - rawsz, rawsz) != 0) {
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

int skg_index_parse(const uint8_t *buf, size_t len, const char *name, size_t rawsz,
                    const struct skg_index_callbacks *cb, struct skg_index_info *info,
                    const struct skg_sink *rep, struct skg_error *err)
{
	return index_parse(buf, len, len, name, rawsz, cb, info, rep, err);
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
			return skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		}
		data = grown;
		memset(data + len, 0, readable - len + 1);
	}
	int ret = index_parse((const uint8_t *)data, len, readable, repo->index_file_display,
	                      skg_format_rawsz(repo->object_format), cb, info, rep, err);
	free(data);
	return ret;
}
