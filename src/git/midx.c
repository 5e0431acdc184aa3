/*
 * midx.c - a multi-pack-index's contents against its packs, as git 2.39.5's verify_midx_file()
 * (midx.h).
 *
 * git keeps one struct packed_git per pack position, added on first use (prepare_midx_pack) and
 * opened when an object is looked up in it (is_pack_valid): the result of both never changes for
 * files that stay as they are, so each is worked out once here, and the lines of a failed open are
 * given again at each try, as git prints them. The idx of the pack in use stays mapped; git closes
 * a pack when the sorted objects move on to another pack, and so does this file.
 */
#include "midx.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sha1kit/git_pack.h>

#include "pack.h"
#include "util.h"

#define OFFSET_WIDTH   8           /* MIDX_CHUNK_OFFSET_WIDTH: pack-int-id + offset */
#define LARGE_OFFSET   0x80000000u /* MIDX_LARGE_OFFSET_NEEDED */
#define MAP_PAGE       4096u       /* git maps the file whole: its last page is zero-filled */
#define ERROR_PREFIX   "error: "
#define LINES_FLUSH_AT (SKG_LINES_SIZE / 2)
#define INDEX_LINE_MAX 4096

/* git's struct packed_git of one position, as far as verify sees it */
enum pack_state { PACK_UNKNOWN = 0, PACK_ADDED, PACK_NOT_ADDED };
enum open_state { OPEN_UNKNOWN = 0, OPEN_OK, OPEN_FAILED };

struct pack {
	enum pack_state added;
	enum open_state opened;
	char *pack_path;     /* OBJDIR/pack/pack-X.pack, as git names it */
	char *idx_path;      /* OBJDIR/pack/pack-X.idx */
	char *fail_line;     /* git's line(s) of a failed open, "\n"-separated (NULL: none) */
	struct skg_file idx; /* mapped while the pack is in use */
	bool idx_mapped;
};

/* (position, pack-int-id), git's struct pair_pos_vs_id */
struct pair {
	uint32_t pos;
	uint32_t pack;
};

struct state {
	const struct skg_midx *m; /* the top layer of a chain */
	const char *objdir;
	const struct skg_midx_io *io;
	struct skg_lines *lines;
	struct pack *packs;                  /* by pack-int-id, the whole chain's */
	uint64_t *name_at;                   /* where each pack name starts */
	const struct skg_midx **name_in;     /* in which layer */
	uint32_t total_packs, total_objects; /* of the whole chain */
	size_t nlayers;
	bool bad, died, nomem, wild;
	/* the meter running (io->meter): its title, total and the last count given (-1: none) */
	const char *meter_title;
	uint64_t meter_total;
	int64_t meter_last;
};

/* ---- reading the file as git's mapping ------------------------------------------------------------ */

/* Whether git's read of n bytes at off of layer L stays inside its mapping of the file (rounded up
 * to whole pages); else the check stops (wild). */
static bool inside(struct state *s, const struct skg_midx *L, uint64_t off, uint64_t n)
{
	uint64_t map_len = ((uint64_t)L->len + MAP_PAGE - 1) / MAP_PAGE * MAP_PAGE;
	if (off > map_len || map_len - off < n) {
		s->wild = true;
		return false;
	}
	return true;
}

static uint32_t be32_in(struct state *s, const struct skg_midx *L, uint64_t off)
{
	return inside(s, L, off, 4) ? skg_be32_padded(L->data, L->len, off) : 0;
}

static uint32_t be32_at(struct state *s, uint64_t off)
{
	return be32_in(s, s->m, off);
}

static uint64_t be64_in(struct state *s, const struct skg_midx *L, uint64_t off)
{
	return (uint64_t)be32_in(s, L, off) << 32 | be32_in(s, L, off + 4);
}

/* The layer of a chain that holds object position *pos (git's midx_for_object; one file: the top),
 * *pos made its place in that layer. */
static const struct skg_midx *layer_of_object(struct state *s, uint32_t *pos)
{
	const struct skg_midx *L = s->m;
	while (L->base != NULL && *pos < L->objects_in_base) {
		L = L->base;
	}
	*pos -= L->objects_in_base;
	return L;
}

/* OIDL entry k of layer L (without a range check: git reads what the fanout says) */
static void oid_in(struct state *s, const struct skg_midx *L, uint64_t k, uint8_t *oid)
{
	unsigned rawsz = L->rawsz;
	uint64_t off = L->lookup + k * rawsz;
	if (!inside(s, L, off, rawsz)) {
		memset(oid, 0, rawsz);
		return;
	}
	for (unsigned i = 0; i < rawsz; i++) {
		oid[i] = skg_byte_padded(L->data, L->len, off + (uint64_t)i);
	}
}

/* The ID at object position k of the chain (nth_midxed_object_oid) */
static void oid_at(struct state *s, uint32_t k, uint8_t *oid)
{
	const struct skg_midx *L = layer_of_object(s, &k);
	oid_in(s, L, k, oid);
}

/* The pack-int-id of object position k (nth_midxed_pack_int_id: its layer's, after the packs of
 * the layers below) */
static uint32_t pack_of_object(struct state *s, uint32_t k)
{
	const struct skg_midx *L = layer_of_object(s, &k);
	return L->packs_in_base + be32_in(s, L, L->offsets + (uint64_t)k * OFFSET_WIDTH);
}

/* ---- lines ------------------------------------------------------------------------------------------ */

static void flush(struct state *s)
{
	if (s->io != NULL && s->io->flush != NULL && s->lines->len > LINES_FLUSH_AT && !s->lines->nomem) {
		s->io->flush(s->io->ctx, s->lines);
	}
}

/* midx_report: an unprefixed line, and verify's exit status 1 */
#define REPORT(...)                                                                                          \
	do {                                                                                                 \
		skg_lines_add(s->lines, NULL, __VA_ARGS__);                                                  \
		s->bad = true;                                                                               \
		flush(s);                                                                                    \
	} while (0)

/* die(): git's line, and verify ends */
#define DIE(...)                                                                                             \
	do {                                                                                                 \
		skg_lines_add(s->lines, "fatal: ", __VA_ARGS__);                                             \
		s->died = true;                                                                              \
	} while (0)

/* ---- git's meters (io->meter) ------------------------------------------------------------------ */

/* SPARSE_PROGRESS_INTERVAL of midx.c: the loops draw every 4096th object */
#define SPARSE_EVERY 4096

static void meter_call(struct state *s, enum skg_meter_event what, uint64_t v)
{
	if (s->io != NULL && s->io->meter != NULL && !s->lines->nomem) {
		s->io->meter(s->io->ctx, s->lines, what, s->meter_title, v);
	}
}

/* start_sparse_progress */
static void meter_start(struct state *s, const char *title, uint64_t total)
{
	s->meter_title = title;
	s->meter_total = total;
	s->meter_last = -1;
	meter_call(s, SKG_METER_START, total);
}

/* display_progress */
static void meter_show(struct state *s, uint64_t v)
{
	s->meter_last = (int64_t)v;
	meter_call(s, SKG_METER_SHOW, v);
}

/* midx_display_sparse_progress */
static void meter_sparse(struct state *s, uint64_t v)
{
	if (v % SPARSE_EVERY == 0) {
		meter_show(s, v);
	}
}

/* stop_progress of a sparse meter: the total is drawn first when it was not the last count */
static void meter_stop(struct state *s)
{
	if (s->meter_last != (int64_t)s->meter_total) {
		meter_show(s, s->meter_total);
	}
	meter_call(s, SKG_METER_STOP, 0);
}

static void nomem(struct state *s)
{
	s->nomem = true;
	skg_lines_nomem(s->lines);
}

static void hex(const struct state *s, const uint8_t *oid, char *out)
{
	skg_to_hex_len(oid, s->m->rawsz, out);
}

/* ---- the packs ---------------------------------------------------------------------------------------- */

/* The pack name at position k (its bytes up to a NUL or the end of the file, as git's strlen sees
 * the zero fill); NULL when out of memory. */
static char *name_of(struct state *s, uint32_t k)
{
	const struct skg_midx *m = s->name_in[k];
	uint64_t at = s->name_at[k], n = 0;
	while (at + n < m->len && m->data[at + n] != 0) {
		n++;
	}
	char *name = malloc((size_t)n + 1);
	if (name != NULL) {
		memcpy(name, m->data + at, (size_t)n);
		name[n] = '\0';
	}
	return name;
}

/* prepare_midx_pack() after its range check, add_packed_git(): the name must end in ".idx" and
 * OBJDIR/pack/X.pack be a regular file (nothing is printed either way). */
static bool add_pack(struct state *s, uint32_t k)
{
	struct pack *p = &s->packs[k];
	if (p->added != PACK_UNKNOWN) {
		return p->added == PACK_ADDED;
	}
	char *name = name_of(s, k);
	if (name == NULL) {
		nomem(s);
		return false;
	}
	size_t n = strlen(name);
	p->added = PACK_NOT_ADDED;
	if (skg_ends_with(name, ".idx")) {
		name[n - 4] = '\0';
		p->pack_path = skg_concat3(s->objdir, "/pack/", name);
		char *stem = p->pack_path;
		p->idx_path = stem != NULL ? skg_concat3(stem, ".idx", "") : NULL;
		p->pack_path = stem != NULL ? skg_concat3(stem, ".pack", "") : NULL;
		free(stem);
		if (p->idx_path == NULL || p->pack_path == NULL) {
			nomem(s);
		} else {
			struct stat st;
			if (stat(p->pack_path, &st) == 0 && S_ISREG(st.st_mode)) {
				p->added = PACK_ADDED;
			}
		}
	}
	free(name);
	return p->added == PACK_ADDED;
}

static void close_pack(struct pack *p)
{
	if (p->idx_mapped) {
		skg_file_unmap(&p->idx);
		p->idx_mapped = false;
	}
}

/* Map p's idx; false when it does not open (git's check_packed_git_idx: silent). */
static bool map_idx(struct state *s, struct pack *p)
{
	if (p->idx_mapped) {
		return true;
	}
	void (*on_map)(void *, const void *, uint64_t, const char *, bool) =
	    s->io != NULL ? s->io->on_map : NULL;
	void *map_ctx = s->io != NULL ? s->io->map_ctx : NULL;
	memset(&p->idx, 0, sizeof(p->idx));
	p->idx_mapped = skg_file_map(&p->idx, p->idx_path, on_map, map_ctx, NULL) == 0;
	return p->idx_mapped;
}

/* git's line of go naming path ("error: " prefixed), appended to *acc with a newline */
static bool add_open_line(char **acc, enum skg_pk_git_open go, const char *path, uint32_t a, uint32_t b)
{
	char text[INDEX_LINE_MAX];
	if (go == SKG_PK_GIT_OK) {
		snprintf(text, sizeof(text), "packfile %s index unavailable", path);
	} else {
		skg_pk_git_open_text(go, path, a, b, text, sizeof(text));
	}
	char *prev = *acc != NULL ? *acc : "";
	char *next = skg_concat3(prev, text, "\n");
	if (next == NULL) {
		return false;
	}
	free(*acc);
	*acc = next;
	return true;
}

/* What opening p gives (open_packed_git_1): OPEN_OK, or OPEN_FAILED with p->fail_line. */
static enum open_state try_open(struct state *s, struct pack *p)
{
	uint32_t a = 0, b = 0;
	if (!map_idx(s, p)) {
		/* no idx to open: open_packed_git_1's line alone */
		if (!add_open_line(&p->fail_line, SKG_PK_GIT_OK, p->pack_path, 0, 0)) {
			nomem(s);
		}
		return OPEN_FAILED;
	}
	enum skg_pk_git_open go = skg_pk_git_idx_check_as(p->idx.data, (size_t)p->idx.len, s->m->rawsz, &a);
	if (go != SKG_PK_GIT_OK) {
		/* load_idx's line, then open_packed_git_1's */
		if (!add_open_line(&p->fail_line, go, p->idx_path, a, 0) ||
		    !add_open_line(&p->fail_line, SKG_PK_GIT_OK, p->pack_path, 0, 0)) {
			nomem(s);
		}
		close_pack(p);
		return OPEN_FAILED;
	}
	struct skg_file pack = {0};
	void (*on_map)(void *, const void *, uint64_t, const char *, bool) =
	    s->io != NULL ? s->io->on_map : NULL;
	if (skg_file_map(&pack, p->pack_path, on_map, s->io != NULL ? s->io->map_ctx : NULL, NULL) != 0) {
		return OPEN_FAILED; /* git_open fails: no line */
	}
	go = skg_pk_git_open_check_as(p->idx.data, (size_t)p->idx.len, pack.data, pack.len, s->m->rawsz, &a,
	                              &b);
	skg_file_unmap(&pack);
	if (go == SKG_PK_GIT_OK) {
		return OPEN_OK;
	}
	if (!add_open_line(&p->fail_line, go, p->pack_path, a, b)) {
		nomem(s);
	}
	return OPEN_FAILED;
}

/* is_pack_valid(): true when the pack opens; else git's lines (each time it is tried) */
static bool pack_valid(struct state *s, struct pack *p)
{
	if (p->opened == OPEN_UNKNOWN) {
		p->opened = try_open(s, p);
	}
	if (p->opened == OPEN_OK) {
		return map_idx(s, p); /* closed when the objects moved on: git opens it again */
	}
	for (const char *l = p->fail_line; l != NULL && *l != '\0';) {
		const char *nl = strchr(l, '\n');
		skg_lines_add(s->lines, ERROR_PREFIX, "%.*s", (int)(nl - l), l);
		l = nl + 1;
	}
	flush(s);
	return false;
}

/* ---- the pack's idx (gitformat-pack(5), "pack-*.idx files") --------------------------------------- */

/* The ID of entry k of an idx that passed git's checks (its size fits its count). */
static const uint8_t *idx_id(const struct skg_file *idx, unsigned rawsz, uint64_t k)
{
	bool v2 = idx->len >= 8 && memcmp(idx->data, "\377tOc", 4) == 0;
	uint64_t at = v2 ? 8 + 1024 + k * rawsz : 1024 + k * (rawsz + 4) + 4;
	return at + rawsz <= idx->len ? idx->data + at : NULL;
}

/*
 * find_pack_entry_one(): the offset the idx gives id (bsearch_pack within the idx's fanout), 0
 * when it does not list it. A 64-bit offset past the idx's end: git dies (check_pack_index_ptr).
 */
static uint64_t idx_offset(struct state *s, const struct pack *p, const uint8_t *id)
{
	const struct skg_file *idx = &p->idx;
	uint64_t fan = idx->len >= 8 && memcmp(idx->data, "\377tOc", 4) == 0 ? 8 : 0;
	uint32_t hi = skg_be32_padded(idx->data, (size_t)idx->len, fan + 4 * (uint64_t)id[0]);
	uint32_t lo =
	    id[0] == 0 ? 0 : skg_be32_padded(idx->data, (size_t)idx->len, fan + 4 * (uint64_t)(id[0] - 1));
	while (lo < hi) {
		uint32_t mi = lo + (hi - lo) / 2;
		const uint8_t *at = idx_id(idx, s->m->rawsz, mi);
		if (at == NULL) {
			return 0;
		}
		int cmp = memcmp(at, id, s->m->rawsz);
		if (cmp == 0) {
			const uint8_t *same;
			uint64_t off;
			if (!skg_pk_idx_entry_as(idx->data, (size_t)idx->len, s->m->rawsz, mi, &same, &off)) {
				DIE("offset beyond end of pack index for %s (truncated index?)",
				    p->pack_path);
				return 0;
			}
			return off;
		}
		if (cmp > 0) {
			hi = mi;
		} else {
			lo = mi + 1;
		}
	}
	return 0;
}

/* ---- the check ------------------------------------------------------------------------------------------
 */

/* bsearch_midx(): bsearch_hash() within each layer's fanout, the top layer first (one file: that
 * alone); true and *pos (the chain's object position) when found. */
static bool find(struct state *s, const uint8_t *id, uint32_t *pos)
{
	for (const struct skg_midx *L = s->m; L != NULL && !s->wild; L = L->base) {
		uint32_t hi = be32_in(s, L, L->fanout + 4 * (uint64_t)id[0]);
		uint32_t lo = id[0] == 0 ? 0 : be32_in(s, L, L->fanout + 4 * (uint64_t)(id[0] - 1));
		while (lo < hi && !s->wild) {
			uint32_t mi = lo + (hi - lo) / 2;
			uint8_t at[SKG_MAX_RAWSZ];
			oid_in(s, L, mi, at);
			int cmp = memcmp(at, id, L->rawsz);
			if (cmp == 0) {
				*pos = mi + L->objects_in_base;
				return true;
			}
			if (cmp > 0) {
				hi = mi;
			} else {
				lo = mi + 1;
			}
		}
	}
	return false;
}

/* nth_midxed_offset(): 2.39.5 reads LOFF at the index given without a range check; 2.55.0 dies
 * on an index beyond the chunk (2abd56e9b2, 2.43) */
static uint64_t midx_offset(struct state *s, uint32_t pos)
{
	const struct skg_midx *L = layer_of_object(s, &pos);
	uint32_t off32 = be32_in(s, L, L->offsets + (uint64_t)pos * OFFSET_WIDTH + 4);
	if (L->has_large && (off32 & LARGE_OFFSET)) {
		uint32_t k = off32 ^ LARGE_OFFSET;
		if (L->git_version >= SKG_GIT_2_55 && k >= L->large_size / 8) {
			DIE("multi-pack-index large offset out of bounds");
			return 0;
		}
		return be64_in(s, L, L->large + 8 * (uint64_t)k);
	}
	return off32;
}

/* A pack-int-id git can use (midx_for_pack: the layer whose packs it numbers, from layer `from`
 * down, must have it: from the object's layer in fill_midx_entry, from the top in verify's
 * nth_midxed_pack); else git dies (prepare_midx_pack; also nth_midxed_pack in 2.55, where 2.39.5
 * reads outside its array of packs: wild). */
static bool pack_id_ok(struct state *s, uint32_t id, const struct skg_midx *from, bool prepare)
{
	const struct skg_midx *L = from;
	while (L->base != NULL && id < L->packs_in_base) {
		L = L->base;
	}
	if (id - L->packs_in_base < L->num_packs) {
		return true;
	}
	if (prepare || s->m->git_version >= SKG_GIT_2_55) {
		DIE("bad pack-int-id: %" PRIu32 " (%" PRIu32 " total packs)", id,
		    L->num_packs + L->packs_in_base);
	} else {
		s->wild = true;
	}
	return false;
}

/* git's comparator, b->pack - a->pack as an int: its sign */
static int pair_cmp(const struct pair *a, const struct pair *b)
{
	uint32_t d = b->pack - a->pack;
	return d == 0 ? 0 : d < 0x80000000u ? 1 : -1;
}

/* glibc's qsort of git's pairs (stdlib/msort.c msort_with_tmp: halves, then a merge that takes
 * from the first half while cmp <= 0), step for step, so that even a comparator that is not a
 * true order (pack-int-ids 2^31 apart) gives git's order. tmp holds n pairs. */
static void msort(struct pair *b, size_t n, struct pair *tmp)
{
	if (n <= 1) {
		return;
	}
	size_t n1 = n / 2, n2 = n - n1;
	struct pair *b1 = b, *b2 = b + n1, *t = tmp;
	msort(b1, n1, tmp);
	msort(b2, n2, tmp);
	while (n1 > 0 && n2 > 0) {
		if (pair_cmp(b1, b2) <= 0) {
			*t++ = *b1++;
			n1--;
		} else {
			*t++ = *b2++;
			n2--;
		}
	}
	if (n1 > 0) {
		memcpy(t, b1, n1 * sizeof(*t));
	}
	memcpy(b, tmp, (n - n2) * sizeof(*b));
}

/* The loop of verify_midx_file() over the objects grouped by pack: the pairs of all the chain's
 * objects, of which git sorts the first num_objects (the top layer's count) only. */
static void check_offsets(struct state *s, uint32_t num_objects)
{
	uint32_t total = s->total_objects;
	for (const struct skg_midx *L = s->m; L != NULL; L = L->base) {
		uint32_t n = L == s->m ? num_objects : L->num_objects;
		if (!inside(s, L, L->offsets, (uint64_t)n * OFFSET_WIDTH)) {
			return; /* git reads the pack-int-ids beyond its mapping */
		}
	}
	struct pair *pairs = malloc((size_t)(total > 0 ? total : 1) * sizeof(*pairs));
	struct pair *tmp = malloc((size_t)(total > 0 ? total : 1) * sizeof(*tmp));
	if (pairs == NULL || tmp == NULL) {
		free(pairs);
		free(tmp);
		nomem(s);
		return;
	}
	for (uint32_t i = 0; i < total; i++) {
		pairs[i].pos = i;
		pairs[i].pack = pack_of_object(s, i);
	}
	meter_start(s, "Sorting objects by packfile", num_objects);
	meter_show(s, 0);
	msort(pairs, num_objects, tmp);
	free(tmp);
	meter_stop(s);
	meter_start(s, "Verifying object offsets", num_objects);
	for (uint32_t i = 0; i < total && !s->died && !s->nomem && !s->wild; i++) {
		if (i > 0 && pairs[i - 1].pack != pairs[i].pack) {
			/* git closes the previous pack: m->packs[] read at its pack-int-id */
			if (!pack_id_ok(s, pairs[i - 1].pack, s->m, false)) {
				break;
			}
			close_pack(&s->packs[pairs[i - 1].pack]);
		}
		uint8_t oid[SKG_MAX_RAWSZ];
		char hexid[SKG_MAX_HEXSZ + 1];
		oid_at(s, pairs[i].pos, oid);
		hex(s, oid, hexid);
		/* fill_midx_entry() */
		uint32_t pos;
		bool found = find(s, oid, &pos) && pos < total;
		if (s->wild) {
			break;
		}
		struct pack *p = NULL;
		if (found) {
			uint32_t id = pack_of_object(s, pos), local = pos;
			if (!pack_id_ok(s, id, layer_of_object(s, &local), true)) {
				break;
			}
			p = &s->packs[id];
			found = add_pack(s, id) && pack_valid(s, p);
			if (s->nomem) {
				break;
			}
		}
		if (!found) {
			REPORT("failed to load pack entry for oid[%d] = %s", (int)pairs[i].pos, hexid);
			continue;
		}
		uint64_t m_offset = midx_offset(s, pos);
		if (s->wild || s->died) {
			break;
		}
		uint64_t p_offset = idx_offset(s, p, oid);
		if (s->died) {
			break;
		}
		if (m_offset != p_offset) {
			REPORT("incorrect object offset for oid[%d] = %s: %" PRIx64 " != %" PRIx64,
			       (int)pairs[i].pos, hexid, m_offset, p_offset);
		}
		meter_sparse(s, (uint64_t)i + 1);
	}
	if (!s->died && !s->nomem && !s->wild) {
		meter_stop(s);
	}
	free(pairs);
}

static void run(struct state *s)
{
	const struct skg_midx *m = s->m;
	for (uint32_t i = 0; i < s->total_packs && !s->nomem; i++) {
		if (!add_pack(s, i) && !s->nomem) {
			REPORT("failed to load pack in position %d", (int)i);
		}
	}
	for (int i = 0; i < 255 && !s->nomem; i++) {
		uint32_t f1 = be32_at(s, m->fanout + 4 * (uint64_t)i);
		uint32_t f2 = be32_at(s, m->fanout + 4 * (uint64_t)i + 4);
		if (f1 > f2) {
			REPORT("oid fanout out of order: fanout[%d] = %" PRIx32 " > %" PRIx32 " = fanout[%d]",
			       i, f1, f2, i + 1);
		}
	}
	uint32_t num_objects = be32_at(s, m->fanout + 4 * 255);
	if (s->nomem || s->wild) {
		return;
	}
	if (num_objects == 0) {
		REPORT("the midx contains no oid");
		return;
	}
	s->total_objects = m->objects_in_base + num_objects;
	meter_start(s, "Verifying OID order in multi-pack-index", (uint64_t)num_objects - 1);
	/* git 2.55 runs the loop once per layer of a chain, each time over the top layer's IDs */
	for (size_t pass = 0; pass < s->nlayers && !s->wild && !s->nomem; pass++) {
		uint8_t a[SKG_MAX_RAWSZ], b[SKG_MAX_RAWSZ];
		oid_in(s, m, 0, a);
		for (uint32_t i = 0; i + 1 < num_objects && !s->wild && !s->nomem; i++) {
			oid_in(s, m, i + 1, b);
			if (s->wild) {
				break;
			}
			if (memcmp(a, b, s->m->rawsz) >= 0) {
				char ha[SKG_MAX_HEXSZ + 1], hb[SKG_MAX_HEXSZ + 1];
				hex(s, a, ha);
				hex(s, b, hb);
				REPORT("oid lookup out of order: oid[%d] = %s >= %s = oid[%d]", (int)i, ha,
				       hb, (int)(i + 1));
			}
			memcpy(a, b, s->m->rawsz);
			meter_sparse(s, (uint64_t)i + 1);
		}
	}
	if (!s->wild && !s->nomem) {
		meter_stop(s);
		check_offsets(s, num_objects);
	}
}

int skg_midx_verify(const struct skg_midx *m, const char *objdir, const struct skg_midx_io *io,
                    struct skg_lines *lines)
{
	struct state s = {m, objdir, io,    lines, NULL,  NULL, NULL, 0, 0,
	                  0, false,  false, false, false, NULL, 0,    -1};
	s.total_packs = m->packs_in_base + m->num_packs;
	for (const struct skg_midx *L = m; L != NULL; L = L->base) {
		s.nlayers++;
	}
	size_t np = s.total_packs > 0 ? s.total_packs : 1;
	s.packs = calloc(np, sizeof(*s.packs));
	s.name_at = malloc(np * sizeof(*s.name_at));
	s.name_in = malloc(np * sizeof(*s.name_in));
	if (s.packs == NULL || s.name_at == NULL || s.name_in == NULL) {
		nomem(&s);
	} else {
		/* each layer's names follow one another (its load checked their order) */
		for (const struct skg_midx *L = m; L != NULL; L = L->base) {
			uint64_t at = L->names;
			for (uint32_t k = 0; k < L->num_packs; k++) {
				s.name_at[L->packs_in_base + k] = at;
				s.name_in[L->packs_in_base + k] = L;
				while (at < L->len && L->data[at] != 0) {
					at++;
				}
				at++;
			}
		}
		run(&s);
	}
	for (uint32_t k = 0; s.packs != NULL && k < s.total_packs; k++) {
		close_pack(&s.packs[k]);
		free(s.packs[k].pack_path);
		free(s.packs[k].idx_path);
		free(s.packs[k].fail_line);
	}
	free(s.packs);
	free(s.name_at);
	free(s.name_in);
	if (s.nomem) {
		return -1;
	}
	if (s.wild && !s.died) {
		skg_lines_add(lines, NULL,
		              "sha1kit: %s/pack/multi-pack-index: git's verify reads outside its mapping of "
		              "the file or its list of packs here (it may crash); the check stops",
		              objdir);
		s.bad = true;
	}
	return s.died ? SKG_MIDX_FATAL : s.bad ? SKG_MIDX_BAD : SKG_MIDX_OK;
}
