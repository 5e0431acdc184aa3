/*
 * pack_thin.c - `git index-pack --fix-thin`: a thin pack completed with its bases from the
 * repository (pack_thin.h). Source (facts, not code): git v2.39.5 builtin/index-pack.c,
 * pack-write.c, environment.c.
 */
#include "pack_thin.h"

#include "pack_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zlib.h>

#include "pack.h"
#include "pack_collide.h"
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
	uint32_t nr0;                  /* entries of the received pack (the appended ones follow) */
	uint32_t *ofs_first, *ofs_kid; /* unresolved OFS_DELTA children of entry i: CSR */
	struct skg_pk_ref_entry *refs; /* unresolved REF_DELTA entries by base ID, then index */
	uint32_t n_refs;
	struct skg_pk_inflater inf;
	int (*object)(void *ctx, uint32_t i, unsigned type, const uint8_t *data, uint64_t len);
	void *object_ctx;
	bool stopped;           /* the object callback stopped it */
	struct skg_pk_error pe; /* a delta that does not apply, or out of memory */
	bool failed;            /* pe is set */
	uint64_t resolved;      /* deltas resolved by resolve_from */
};

static const uint8_t *ref_base(const struct thin *th, uint32_t i)
{
	const struct skg_pk_object *o = &th->pack->objs[i];
	return th->map + o->offset + o->hdr_len - th->pack->rawsz;
}

/* A node of the walk: a resolved object whose delta children are still to be resolved. */
struct walk {
	uint32_t obj; /* its entry (an appended base's follow the received ones) */
	unsigned type;
	uint8_t id[SKG_MAX_RAWSZ];
	uint8_t *data;
	uint64_t len;
};

/* Resolve entry c (a delta on `base`) into *out: its data, type and ID. false: th->pe set (the
 * delta does not apply, as the engine words it, or out of memory). The entry inflated in the
 * engine's first pass, to its size. */
static bool resolve_one(struct thin *th, uint32_t c, const struct walk *base, struct walk *out)
{
	const struct skg_pk_object *o = &th->pack->objs[c];
	uint64_t at = o->offset + o->hdr_len, consumed;
	struct skg_pk_error *pe = &th->pe;
	th->failed = true;
	if (o->size >= SIZE_MAX) {
		skg_pk_set_failure(pe, SKG_E_NOMEM, true, o->offset, "out of memory");
		return false;
	}
	uint8_t *delta = malloc(o->size ? (size_t)o->size : 1), chunk[1];
	if (delta == NULL) {
		skg_pk_set_failure(pe, SKG_E_NOMEM, true, o->offset, "out of memory");
		return false;
	}
	enum skg_pk_inf_status st = skg_pk_inflate_exact(&th->inf, th->map + at, th->end - at, delta, o->size,
	                                                 NULL, NULL, chunk, 0, &consumed);
	if (st != SKG_PK_INF_OK) {
		skg_pk_inflate_error(pe, &th->inf, st, o->offset, o->size, "delta");
		free(delta);
		return false;
	}
	const uint8_t *d = delta, *dend = delta + o->size;
	uint64_t base_size, size, total;
	uint8_t *r = NULL;
	const char *why = NULL;
	if (o->size < 4) {
		skg_pk_set_error(pe, true, o->offset, "delta data of %" PRIu64 " bytes is too short",
		                 o->size);
	} else if (!skg_pk_delta_size(&d, dend, &base_size) || !skg_pk_delta_size(&d, dend, &size)) {
		skg_pk_set_error(pe, true, o->offset, "delta header is truncated or malformed");
	} else if (base_size != base->len) {
		skg_pk_set_error(pe, true, o->offset,
		                 "delta is for a base of %" PRIu64 " bytes, but its base has %" PRIu64,
		                 base_size, base->len);
	} else if ((why = skg_pk_scan_delta(base->len, d, dend, &total)) != NULL) {
		skg_pk_set_error(pe, true, o->offset, "%s", why);
	} else if (total != size) {
		skg_pk_set_error(pe, true, o->offset,
		                 "delta result is %" PRIu64 " bytes, its header says %" PRIu64, total, size);
	} else if (size >= SIZE_MAX || (r = malloc(size ? (size_t)size : 1)) == NULL) {
		skg_pk_set_failure(pe, SKG_E_NOMEM, true, o->offset,
		                   "out of memory (object of %" PRIu64 " bytes)", size);
	} else if ((why = skg_pk_apply_delta(base->data, base->len, d, dend, r, size)) != NULL) {
		skg_pk_set_error(pe, true, o->offset, "%s", why);
	} else {
		char hdr[SKG_PK_HEADER_MAX];
		struct skg_pk_hash h;
		skg_pk_hash_init(&h, skg_pk_id_kind(th->pack->rawsz));
		skg_pk_hash_update(&h, hdr, skg_pk_object_header(hdr, base->type, size));
		skg_pk_hash_update(&h, r, (size_t)size);
		if (skg_pk_finish_id(&h, out->id, o->offset, pe)) {
			out->obj = c;
			out->type = base->type;
			out->data = r;
			out->len = size;
			free(delta);
			th->failed = false;
			return true;
		}
	}
	if (pe->code == SKG_E_CORRUPT) {
		/* git's words, where its patch_delta fails on the delta too */
		struct skg_pk_error git;
		if (skg_pk_git_patch_check(base->len, delta, o->size, o->offset, &git) != 0) {
			pe->git_error = git.git_error;
			memcpy(pe->git_fatal, git.git_fatal, sizeof(git.git_fatal));
		}
	}
	free(r);
	free(delta);
	return false;
}

/* find_unresolved_deltas from `root` (its data handed over): every delta on it, and on those, in
 * turn, resolved (real_type, ID, base and depth set in the pack's table) and handed to the object
 * callback, as git's resolve_delta calls sha1_object. false: th->failed (pe) or th->stopped. */
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
			if (memcmp(th->refs[mid].id, cur.id, th->pack->rawsz) < 0) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		uint32_t kids_lo = cur.obj < th->nr0 ? th->ofs_first[cur.obj] : 0;
		uint32_t kids_hi = cur.obj < th->nr0 ? th->ofs_first[cur.obj + 1] : 0;
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
					    memcmp(th->refs[k].id, cur.id, th->pack->rawsz) != 0) {
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
						skg_pk_set_failure(&th->pe, SKG_E_NOMEM, false, 0,
						                   "out of memory");
						th->failed = true;
						ok = false;
						break;
					}
					stack = ns;
					cap = ncap;
				}
				if (!resolve_one(th, c, &cur, &kid)) {
					ok = false;
					break;
				}
				objs[c].real_type = (uint8_t)kid.type;
				th->resolved++;
				memcpy(objs[c].id, kid.id, th->pack->rawsz);
				objs[c].base = cur.obj;
				objs[c].depth = objs[cur.obj].depth + 1;
				if (objs[c].depth > th->pack->max_depth) {
					th->pack->max_depth = objs[c].depth;
				}
				stack[n++] = kid;
				if (th->object != NULL &&
				    th->object(th->object_ctx, c, kid.type, kid.data, kid.len) != 0) {
					th->stopped = true;
					ok = false;
					break;
				}
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
	int c = memcmp(x->id, y->id, SKG_MAX_RAWSZ); /* zero after a SHA-1 ID */
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
	th->end = len - pack->rawsz;
	th->nr0 = nr;
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
		if (o->type == SKG_PK_OFS_DELTA && o->real_type == 0 && o->base != SKG_PK_NO_BASE) {
			th->ofs_first[o->base + 1]++;
		} else if (o->type == SKG_PK_REF_DELTA && o->real_type == 0) {
			memset(th->refs[th->n_refs].id, 0, SKG_MAX_RAWSZ);
			memcpy(th->refs[th->n_refs].id, ref_base(th, i), pack->rawsz);
			th->refs[th->n_refs++].obj = i;
		}
	}
	for (uint32_t i = 0; i < nr; i++) {
		th->ofs_first[i + 1] += th->ofs_first[i];
	}
	for (uint32_t i = 0; i < nr; i++) {
		const struct skg_pk_object *o = &pack->objs[i];
		if (o->type == SKG_PK_OFS_DELTA && o->real_type == 0 && o->base != SKG_PK_NO_BASE) {
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

/* The engine's error as the layer's. */
/* A delta's failure pe as the caller gets it: where git's resolve_delta dies on it too, git's
 * "error:" line to sink and SKG_E_GIT with git's message; else the engine's words. */
static int pk_error(const struct skg_sink *sink, struct skg_error *err, const struct skg_pk_error *pe)
{
	if (pe->code == SKG_E_CORRUPT && pe->git_fatal[0] != '\0') {
		if (pe->git_error != NULL) {
			skg_report(sink, SKG_LEVEL_ERROR, 0, "%s", pe->git_error);
		}
		return skg_fail(err, "%s", pe->git_fatal);
	}
	skg_fail_sys(err, pe->code, pe->code == SKG_E_NOMEM ? ENOMEM : 0, "%s", pe->msg);
	if (err != NULL) {
		err->has_offset = pe->has_offset;
		err->offset = pe->offset;
	}
	return -1;
}

/* fixup_pack_header_footer: the old trailer replaced by the appended bytes t, the count in the
 * header raised to nr, and the SHA-1 of the whole as the new trailer (into sum). *len: the pack's
 * length before, then after. 0, or -1 with err. */
static int rewrite(int fd, uint64_t *len, const struct tail *t, uint32_t nr, unsigned rawsz, uint8_t *sum,
                   struct skg_error *err)
{
	uint64_t end = *len - rawsz;
	uint8_t count[4] = {(uint8_t)(nr >> 24), (uint8_t)(nr >> 16), (uint8_t)(nr >> 8), (uint8_t)nr};
	if (write_at(fd, t->p, t->len, end) != 0 || write_at(fd, count, 4, 8) != 0) {
		int e = errno;
		return skg_fail_sys(err, SKG_E_IO, e, "cannot write the pack: %s", strerror(e));
	}
	uint64_t body = end + t->len;
	uint8_t *map;
	if (ftruncate(fd, (off_t)body) != 0 || (map = map_pack(fd, body)) == NULL) {
		int e = errno;
		return skg_fail_sys(err, SKG_E_IO, e, "cannot rewrite the pack: %s", strerror(e));
	}
	struct skg_pk_hash h;
	skg_pk_hash_init(&h, skg_pk_sum_kind(rawsz));
	for (uint64_t at = 0; at < body;) {
		size_t step = body - at > ((size_t)1 << 30) ? ((size_t)1 << 30) : (size_t)(body - at);
		skg_pk_hash_update(&h, map + at, step);
		at += step;
	}
	(void)skg_pk_hash_final(&h, sum);
	munmap(map, (size_t)body);
	if (write_at(fd, sum, rawsz, body) != 0) {
		int e = errno;
		return skg_fail_sys(err, SKG_E_IO, e, "cannot write the pack: %s", strerror(e));
	}
	*len = body + rawsz;
	return 0;
}

int skg_thin_fix(struct skg_pk_pack *pack, int fd, struct skg_collide *store, int level,
                 int (*object)(void *ctx, uint32_t i, unsigned type, const uint8_t *data, uint64_t len),
                 void *object_ctx, const struct skg_sink *sink, const struct skg_progress *progress,
                 struct skg_thin_counts *counts, struct skg_error *err)
{
	uint32_t left = count_unresolved(pack);
	*counts = (struct skg_thin_counts){false, 0, pack->n_deltas - left, pack->n_deltas};
	if (left == 0) {
		return 0; /* conclude_pack: nothing to do */
	}
	counts->ran = true;
	struct thin th;
	struct tail t = {NULL, 0, 0};
	uint32_t appended = 0;
	int rc = -1;
	if (!thin_init(&th, pack, pack->data, pack->len)) {
		skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		goto out;
	}
	th.object = object;
	th.object_ctx = object_ctx;
	th.resolved = 0;
	/* room for a base for each REF_DELTA entry left, the most that can be appended */
	struct skg_pk_object *objs = realloc(pack->objs, ((size_t)pack->nr + th.n_refs + 1) * sizeof(*objs));
	if (objs == NULL) {
		skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory");
		goto out;
	}
	pack->objs = objs;
	uint64_t end = pack->len - pack->rawsz;
	/* fix_unresolved_deltas: the REF_DELTA entries in pack order; one still unresolved whose base
	 * the repository has gets that base appended (append_obj_to_pack), and the deltas on it (and
	 * on those) resolved; a base it lacks is passed over */
	for (uint32_t i = 0; i < th.nr0; i++) {
		const struct skg_pk_object *o = &pack->objs[i];
		if (o->type != SKG_PK_REF_DELTA || o->real_type != 0) {
			continue;
		}
		struct walk base = {pack->nr, 0, {0}, NULL, 0};
		size_t blen = 0;
		memcpy(base.id, ref_base(&th, i), pack->rawsz);
		int found = skg_collide_read_base(store, base.id, &base.type, &base.data, &blen);
		if (found < 0) {
			rc = 1; /* git dies there: the store keeps why */
			goto out;
		}
		if (found == 0) {
			continue;
		}
		base.len = blen;
		size_t at = t.len;
		if (!append_object(&t, base.type, base.data, blen, level)) {
			free(base.data);
			skg_fail_sys(err, SKG_E_NOMEM, ENOMEM, "out of memory (appending a base object)");
			goto out;
		}
		struct skg_pk_object *a = &pack->objs[pack->nr];
		memset(a, 0, sizeof(*a));
		a->offset = end + at;
		a->size = blen;
		a->crc32 = (uint32_t)crc32(crc32(0L, Z_NULL, 0), t.p + at, (uInt)(t.len - at));
		a->base = SKG_PK_NO_BASE;
		uint8_t hdr_len = 1; /* the entry header: its bytes with the high bit set, and one */
		for (size_t k = at; t.p[k] & 0x80; k++) {
			hdr_len++;
		}
		a->hdr_len = hdr_len;
		a->type = a->real_type = (uint8_t)base.type;
		memcpy(a->id, base.id, pack->rawsz);
		pack->nr++;
		appended++;
		counts->appended = appended;
		if (!resolve_from(&th, base)) {
			rc = th.stopped ? 1 : pk_error(sink, err, &th.pe);
			goto out;
		}
		/* fix_unresolved_deltas' display_progress after each base */
		counts->resolved = pack->n_deltas - left + th.resolved;
		if (progress != NULL && progress->fn != NULL) {
			progress->fn(progress->ctx, "Resolving deltas",
			             counts->resolved < counts->total ? counts->resolved : counts->total - 1,
			             counts->total);
		}
	}
	uint32_t unresolved = count_unresolved(pack);
	if (appended == 0) {
		rc = unresolved_error(err, unresolved); /* no base found: git's message */
		goto out;
	}
	uint64_t len = pack->len;
	if (rewrite(fd, &len, &t, pack->nr, pack->rawsz, pack->checksum, err) != 0) {
		goto out;
	}
	pack->len = len;
	/* conclude_pack: the deltas still unresolved (their bases in neither) are fatal */
	rc = unresolved != 0 ? unresolved_error(err, unresolved) : 0;
out:
	if (th.pack != NULL) {
		thin_free(&th);
	}
	free(t.p);
	return rc;
}
