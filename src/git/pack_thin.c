/*
 * pack_thin.c - `git index-pack --fix-thin`: a thin pack completed with its bases from the
 * repository (pack_thin.h). Source (facts, not code): git v2.39.5 builtin/index-pack.c,
 * pack-write.c, environment.c.
 */
#include "pack_thin.h"

#include "pack_internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zlib.h>

#include "odb.h"
#include "pack.h"
#include "sha1kit.h"
#include "util.h"

/* The bytes appended to the pack. */
struct tail {
	uint8_t *p;
	size_t len, cap;
};

static bool tail_room(struct tail *t, size_t n)
{
	if (t->cap - t->len >= n) {
		return true;
	}
	size_t cap = t->cap ? t->cap : 1 << 16;
	while (cap - t->len < n) {
		if (cap > SIZE_MAX / 2) {
			return false;
		}
		cap *= 2;
	}
	uint8_t *p = realloc(t->p, cap);
	if (p == NULL) {
		return false;
	}
	t->p = p;
	t->cap = cap;
	return true;
}

/*
 * Append object (type, data[0..len)) as a whole entry: the entry header of gitformat-pack(5)
 * (type and size, 4 bits then 7 a byte), then zlib's deflate of the content at `level` in one
 * Z_FINISH stream, as write_compressed does. false: out of memory (or zlib failed).
 */
static bool append_object(struct tail *t, unsigned type, const uint8_t *data, size_t len, int level)
{
	uint8_t hdr[16];
	size_t n = 0;
	uint64_t s = len;
	uint8_t c = (uint8_t)(type << 4 | (s & 15));
	s >>= 4;
	while (s != 0) {
		hdr[n++] = c | 0x80;
		c = s & 0x7f;
		s >>= 7;
	}
	hdr[n++] = c;
	if (len > UINT32_MAX) {
		return false; /* git's write_compressed takes an unsigned int */
	}
	uLong bound = deflateBound(NULL, (uLong)len) + 64;
	if (!tail_room(t, n + bound)) {
		return false;
	}
	memcpy(t->p + t->len, hdr, n);
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit(&zs, level) != Z_OK) {
		return false;
	}
	zs.next_in = (Bytef *)(uintptr_t)data; /* zlib does not write through next_in */
	zs.avail_in = (uInt)len;
	zs.next_out = t->p + t->len + n;
	zs.avail_out = (uInt)bound;
	int st = deflate(&zs, Z_FINISH);
	size_t out = (size_t)bound - zs.avail_out;
	deflateEnd(&zs);
	if (st != Z_STREAM_END) {
		return false;
	}
	t->len += n + out;
	return true;
}

/* Index the pack data[0..len) allowing unresolved deltas: 0 with *pack, -1 (not a pack that indexes). */
static int index_lax(struct skg_pk_pack *pack, const uint8_t *data, uint64_t len, unsigned threads)
{
	struct skg_pk_options po;
	struct skg_pk_error pe;
	skg_pk_options_default(&po);
	po.threads = threads ? threads : 1;
	po.allow_unresolved = true;
	return skg_pk_index_pack(pack, data, len, &po, &pe);
}

static uint32_t count_unresolved(const struct skg_pk_pack *pack)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < pack->nr; i++) {
		n += pack->objs[i].real_type == 0;
	}
	return n;
}

static int unresolved_error(struct skg_error *err, uint32_t n)
{
	/* conclude_pack: "pack has %d unresolved delta" / "... deltas" */
	skg_fail_sys(err, SKG_E_GIT, 0, "pack has %u unresolved delta%s", n, n == 1 ? "" : "s");
	return -1;
}

/* Write p[0..n) at offset off of fd (lseek and write: Windows has no pwrite). 0 or -1 (errno). */
static int write_at(int fd, const uint8_t *p, size_t n, uint64_t off)
{
	if (lseek(fd, (off_t)off, SEEK_SET) < 0) {
		return -1;
	}
	return skg_write_full(fd, p, n);
}

static void *map_pack(int fd, uint64_t len)
{
	void *m = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0); /* unmapped before any write */
	return m == MAP_FAILED ? NULL : m;
}

/* The state of fix_unresolved_deltas: which deltas of the pack are resolved, as bases are appended. */
struct thin {
	struct skg_pk_pack *pack;
	const uint8_t *map;
	uint64_t end;                  /* where the pack's entries end */
	uint32_t *ofs_first, *ofs_kid; /* unresolved OFS_DELTA children of entry i: CSR */
	struct skg_pk_ref_entry *refs; /* unresolved REF_DELTA entries by base ID, then index */
	uint32_t n_refs;
	struct skg_pk_inflater inf;
	bool broken; /* a delta did not apply: the pack is left to the indexing to report */
};

static const uint8_t *ref_base(const struct thin *th, uint32_t i)
{
	const struct skg_pk_object *o = &th->pack->objs[i];
	return th->map + o->offset + o->hdr_len - SKG_RAWSZ;
}

/* A node of the walk: a resolved object whose delta children are still to be resolved. */
struct walk {
	uint32_t obj; /* its entry, or SKG_PK_NO_BASE for an appended base */
	unsigned type;
	uint8_t id[SKG_RAWSZ];
	uint8_t *data;
	uint64_t len;
};

/* Resolve entry c (a delta on `base`) into *out: its data, type and ID. false: it does not apply. */
static bool resolve_one(struct thin *th, uint32_t c, const struct walk *base, struct walk *out)
{
	const struct skg_pk_object *o = &th->pack->objs[c];
	uint64_t at = o->offset + o->hdr_len, consumed;
	if (o->size >= SIZE_MAX) {
		return false;
	}
	uint8_t *delta = malloc(o->size ? (size_t)o->size : 1), chunk[1];
	if (delta == NULL) {
		return false;
	}
	if (skg_pk_inflate_exact(&th->inf, th->map + at, th->end - at, delta, o->size, NULL, NULL, chunk, 0,
	                         &consumed) != SKG_PK_INF_OK) {
		free(delta);
		return false;
	}
	const uint8_t *d = delta, *dend = delta + o->size;
	uint64_t base_size, size;
	uint8_t *r = NULL;
	if (skg_pk_delta_size(&d, dend, &base_size) && skg_pk_delta_size(&d, dend, &size) &&
	    base_size == base->len && size < SIZE_MAX && (r = malloc(size ? (size_t)size : 1)) != NULL &&
	    skg_pk_apply_delta(base->data, base->len, d, dend, r, size) == NULL) {
		char hdr[SKG_PK_HEADER_MAX];
		sha1kit_dc_ctx dc;
		sha1kit_dc_init(&dc, NULL);
		sha1kit_dc_update(&dc, hdr, skg_pk_object_header(hdr, base->type, size));
		sha1kit_dc_update(&dc, r, (size_t)size);
		sha1kit_dc_final(&dc, out->id, NULL);
		out->obj = c;
		out->type = base->type;
		out->data = r;
		out->len = size;
		free(delta);
		return true;
	}
	free(r);
	free(delta);
	return false;
}

/* find_unresolved_deltas from `root` (its data handed over): every delta on it, and on those, in
 * turn, resolved (real_type and ID set in the pack's table). */
static bool resolve_from(struct thin *th, struct walk root)
{
	struct walk *stack = NULL;
	size_t n = 0, cap = 0;
	bool ok = true;
	for (struct walk cur = root;;) {
		struct skg_pk_object *objs = th->pack->objs;
		/* REF_DELTA children: refs[] entries whose base is cur.id */
		uint32_t lo = 0, hi = th->n_refs;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (memcmp(th->refs[mid].id, cur.id, SKG_RAWSZ) < 0) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		uint32_t kids_lo = cur.obj != SKG_PK_NO_BASE ? th->ofs_first[cur.obj] : 0;
		uint32_t kids_hi = cur.obj != SKG_PK_NO_BASE ? th->ofs_first[cur.obj + 1] : 0;
		for (uint32_t pass = 0; pass < 2 && ok; pass++) {
			for (uint32_t k = pass == 0 ? kids_lo : lo;; k++) {
				uint32_t c;
				if (pass == 0) {
					if (k >= kids_hi) {
						break;
					}
					c = th->ofs_kid[k];
				} else {
					if (k >= th->n_refs ||
					    memcmp(th->refs[k].id, cur.id, SKG_RAWSZ) != 0) {
						break;
					}
					c = th->refs[k].obj;
				}
				if (objs[c].real_type != 0) {
					continue;
				}
				struct walk kid;
				if (n == cap) {
					size_t ncap = cap ? cap * 2 : 64;
					struct walk *ns = realloc(stack, ncap * sizeof(*ns));
					if (ns == NULL) {
						ok = false;
						break;
					}
					stack = ns;
					cap = ncap;
				}
				if (!resolve_one(th, c, &cur, &kid)) {
					th->broken = true;
					ok = false;
					break;
				}
				objs[c].real_type = (uint8_t)kid.type;
				memcpy(objs[c].id, kid.id, SKG_RAWSZ);
				stack[n++] = kid;
			}
		}
		free(cur.data);
		if (!ok || n == 0) {
			break;
		}
		cur = stack[--n];
	}
	while (n > 0) {
		free(stack[--n].data);
	}
	free(stack);
	return ok;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct skg_pk_ref_entry *x = a, *y = b;
	int c = memcmp(x->id, y->id, SKG_RAWSZ);
	return c != 0 ? c : (x->obj > y->obj) - (x->obj < y->obj);
}

/* Set up th for the pack indexed in *pack (map: its bytes): the unresolved deltas' children
 * tables. false: out of memory. */
static bool thin_init(struct thin *th, struct skg_pk_pack *pack, const uint8_t *map, uint64_t len)
{
	uint32_t nr = pack->nr;
	memset(th, 0, sizeof(*th));
	th->pack = pack;
	th->map = map;
	th->end = len - SKG_RAWSZ;
	th->ofs_first = calloc((size_t)nr + 2, sizeof(uint32_t));
	th->ofs_kid = malloc(((size_t)nr + 1) * sizeof(uint32_t));
	th->refs = malloc(((size_t)nr + 1) * sizeof(*th->refs));
	uint32_t *fill = calloc((size_t)nr + 1, sizeof(uint32_t));
	if (th->ofs_first == NULL || th->ofs_kid == NULL || th->refs == NULL || fill == NULL ||
	    !skg_pk_inflater_init(&th->inf)) {
		free(fill);
		return false;
	}
	for (uint32_t i = 0; i < nr; i++) {
		const struct skg_pk_object *o = &pack->objs[i];
		if (o->type == SKG_PK_OFS_DELTA && o->real_type == 0) {
			th->ofs_first[o->base + 1]++;
		} else if (o->type == SKG_PK_REF_DELTA && o->real_type == 0) {
			memcpy(th->refs[th->n_refs].id, ref_base(th, i), SKG_RAWSZ);
			th->refs[th->n_refs++].obj = i;
		}
	}
	for (uint32_t i = 0; i < nr; i++) {
		th->ofs_first[i + 1] += th->ofs_first[i];
	}
	for (uint32_t i = 0; i < nr; i++) {
		const struct skg_pk_object *o = &pack->objs[i];
		if (o->type == SKG_PK_OFS_DELTA && o->real_type == 0) {
			th->ofs_kid[th->ofs_first[o->base] + fill[o->base]++] = i;
		}
	}
	free(fill);
	qsort(th->refs, th->n_refs, sizeof(*th->refs), cmp_ref);
	return true;
}

static void thin_free(struct thin *th)
{
	skg_pk_inflater_end(&th->inf);
	free(th->ofs_first);
	free(th->ofs_kid);
	free(th->refs);
}

int skg_thin_fix(int fd, uint64_t *len, const char *objects_dir, int level, unsigned threads,
                 struct skg_error *err)
{
	if (*len < 12 + SKG_RAWSZ) {
		return 0;
	}
	uint8_t *map = map_pack(fd, *len);
	if (map == NULL) {
		int e = errno;
		return skg_fail_sys(err, e == ENOMEM ? SKG_E_NOMEM : SKG_E_IO, e, "cannot map the pack: %s",
		                    strerror(e));
	}
	uint64_t map_len = *len;
	struct skg_pk_pack pack;
	if (index_lax(&pack, map, *len, threads) != 0) {
		munmap(map, (size_t)*len);
		return 0; /* the indexing that follows says why */
	}
	if (count_unresolved(&pack) == 0) {
		skg_pk_pack_free(&pack);
		munmap(map, (size_t)*len);
		return 0;
	}
	struct thin th;
	struct tail t = {NULL, 0, 0};
	uint32_t appended = 0;
	int rc = -1;
	if (!thin_init(&th, &pack, map, *len)) {
		skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		goto out;
	}
	/* fix_unresolved_deltas: the REF_DELTA entries in pack order; one still unresolved whose base
	 * the repository has gets that base appended, and the deltas on it (and on those) resolved;
	 * a base it lacks is passed over */
	for (uint32_t i = 0; i < pack.nr && !th.broken; i++) {
		const struct skg_pk_object *o = &pack.objs[i];
		if (o->type != SKG_PK_REF_DELTA || o->real_type != 0) {
			continue;
		}
		struct walk base = {SKG_PK_NO_BASE, 0, {0}, NULL, 0};
		size_t blen = 0;
		memcpy(base.id, ref_base(&th, i), SKG_RAWSZ);
		int found = skg_odb_read(objects_dir, base.id, &base.type, &base.data, &blen);
		if (found < 0) {
			skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
			goto out;
		}
		if (found == 0) {
			continue;
		}
		base.len = blen;
		if (!append_object(&t, base.type, base.data, blen, level)) {
			free(base.data);
			skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory (appending a base object)");
			goto out;
		}
		appended++;
		if (!resolve_from(&th, base) && !th.broken) {
			skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
			goto out;
		}
	}
	if (th.broken || appended == 0) {
		/* a delta that does not apply: the indexing reports it; no base found: git's message */
		rc = th.broken ? 0 : unresolved_error(err, count_unresolved(&pack));
		goto out;
	}
	uint32_t unresolved = count_unresolved(&pack);
	/* fixup_pack_header_footer: the old trailer replaced by the appended objects, the count in
	 * the header raised, and the SHA-1 of the whole as the new trailer */
	uint64_t end = *len - SKG_RAWSZ;
	uint32_t nr = pack.nr + appended;
	uint8_t count[4] = {(uint8_t)(nr >> 24), (uint8_t)(nr >> 16), (uint8_t)(nr >> 8), (uint8_t)nr};
	munmap(map, (size_t)*len);
	map = NULL;
	if (write_at(fd, t.p, t.len, end) != 0 || write_at(fd, count, 4, 8) != 0) {
		int e = errno;
		skg_fail_sys(err, SKG_E_IO, e, "cannot write the pack: %s", strerror(e));
		goto out;
	}
	uint64_t body = end + t.len;
	if (ftruncate(fd, (off_t)body) != 0 || (map = map_pack(fd, body)) == NULL) {
		int e = errno;
		skg_fail_sys(err, SKG_E_IO, e, "cannot rewrite the pack: %s", strerror(e));
		goto out;
	}
	map_len = body;
	uint8_t sum[SKG_RAWSZ];
	sha1kit_fast_ctx sha;
	sha1kit_fast_init(&sha);
	for (uint64_t at = 0; at < body;) {
		size_t step = body - at > ((size_t)1 << 30) ? ((size_t)1 << 30) : (size_t)(body - at);
		sha1kit_fast_update(&sha, map + at, step);
		at += step;
	}
	sha1kit_fast_final(&sha, sum);
	munmap(map, (size_t)map_len);
	map = NULL;
	if (write_at(fd, sum, SKG_RAWSZ, body) != 0) {
		int e = errno;
		skg_fail_sys(err, SKG_E_IO, e, "cannot write the pack: %s", strerror(e));
		goto out;
	}
	*len = body + SKG_RAWSZ;
	/* conclude_pack: the deltas still unresolved (their bases in neither) are fatal */
	rc = unresolved != 0 ? unresolved_error(err, unresolved) : 0;
out:
	if (th.pack != NULL) {
		thin_free(&th);
	}
	skg_pk_pack_free(&pack);
	if (map != NULL) {
		munmap(map, (size_t)map_len);
	}
	free(t.p);
	return rc;
}
