/*
 * cgraph.c - a commit-graph's contents against the object database, as git 2.39.5's
 * verify_commit_graph() (cgraph.h).
 *
 * git keeps one in-memory commit per ID, parsed at most once: from the graph (its position, date,
 * generation and parents; the root tree read from the graph when first asked for), the position
 * remembered as soon as some commit names it as a parent (then no binary search is done for it).
 * This file keeps the same per-ID state, so that a damaged lookup table or fanout gives git's
 * lines. Reads past the end of the file give zeros (git reads its mapping's zero fill there).
 */
#include "cgraph.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objtab.h"
#include "util.h"

#define POS_NONE        0xFFFFFFFFu /* COMMIT_NOT_FROM_GRAPH */
#define PARENT_NONE     0x70000000u /* GRAPH_PARENT_NONE */
#define EXTRA_EDGES     0x80000000u /* GRAPH_EXTRA_EDGES_NEEDED, GRAPH_LAST_EDGE */
#define EDGE_MASK       0x7FFFFFFFu
#define OFFSET_OVERFLOW 0x80000000u /* CORRECTED_COMMIT_DATE_OFFSET_OVERFLOW */
#define V1_MAX          0x3FFFFFFFu /* GENERATION_NUMBER_V1_MAX */
#define ERROR_HASH      2           /* VERIFY_COMMIT_GRAPH_ERROR_HASH */
#define METER_TITLE     "Verifying commits in commit graph"

/* git's in-memory commit (struct commit + its commit_graph_data) */
struct obj {
	uint8_t id[SKG_MAX_RAWSZ]; /* rawsz bytes (as every ID here) */
	uint32_t pos;              /* graph position, POS_NONE before any */
	bool parsed, has_tree;
	uint8_t tree[SKG_MAX_RAWSZ];
	uint64_t date, generation;
	size_t par_at, npar; /* its parents: par[par_at .. par_at + npar) */
};

struct state {
	const struct skg_cgraph_layer *layers;
	size_t n;
	unsigned rawsz; /* bytes of an ID (the layers'): 20 or 32 */
	const struct skg_cgraph_odb *odb;
	struct skg_lines *lines;
	struct obj *objs;
	size_t nobjs, cap;
	struct skg_objtab tab;
	uint32_t *par; /* object indices */
	size_t npar, cap_par;
	uint8_t (*odb_par)[SKG_MAX_RAWSZ]; /* the parents of the commit read from the object database */
	size_t cap_odb_par;
	uint64_t seen;    /* commits of the second passes so far: the meter's count */
	bool grafts_read; /* the process's first parse of a commit read the grafts (unparse_grafts) */
	bool nomem, died;
	bool v255; /* git 2.55's verify (else 2.39.5's) */
};

/* ---- reading a layer --------------------------------------------------------------------------- */

static uint8_t byte_at(const struct skg_cgraph_layer *l, uint64_t off)
{
	return skg_byte_padded(l->data, l->len, off);
}

static uint32_t be32_at(const struct skg_cgraph_layer *l, uint64_t off)
{
	return skg_be32_padded(l->data, l->len, off);
}

static void oid_at(const struct skg_cgraph_layer *l, uint64_t off, uint8_t *oid)
{
	if (off <= l->len && l->len - off >= l->rawsz) {
		memcpy(oid, l->data + off, l->rawsz);
		return;
	}
	for (unsigned i = 0; i < l->rawsz; i++) {
		oid[i] = byte_at(l, off + (uint64_t)i);
	}
}

/* The layer (index) holding position pos, going down from layer k (fill_commit_in_graph). */
static size_t layer_of(const struct state *s, size_t k, uint32_t pos)
{
	while (k + 1 < s->n && pos < s->layers[k].num_in_base) {
		k++;
	}
	return k;
}

/* git dies: its line */
#define DIE(...)                                                                                             \
	do {                                                                                                 \
		skg_lines_add(s->lines, "fatal: ", __VA_ARGS__);                                             \
		s->died = true;                                                                              \
	} while (0)

#define SAY(prefix, ...) skg_lines_add(s->lines, prefix, __VA_ARGS__)

/* ---- git's commits ------------------------------------------------------------------------------- */

/* lookup_commit: the object of id, created when new; its index, or -1 when memory ran out. */
static int64_t lookup(struct state *s, const uint8_t *id)
{
	if (s->nobjs > 0) {
		int64_t k = skg_objtab_lookup(&s->tab, s->objs[0].id, sizeof(struct obj), id);
		if (k >= 0) {
			return k;
		}
	}
	if (s->nobjs == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct obj *v = realloc(s->objs, cap * sizeof(*v));
		if (v == NULL) {
			s->nomem = true;
			return -1;
		}
		s->objs = v;
		s->cap = cap;
	}
	struct obj *o = &s->objs[s->nobjs];
	memset(o, 0, sizeof(*o));
	memcpy(o->id, id, s->rawsz);
	o->pos = POS_NONE;
	if (skg_objtab_add(&s->tab, s->objs[0].id, sizeof(struct obj), (uint32_t)s->nobjs) != 0) {
		s->nomem = true;
		return -1;
	}
	return (int64_t)s->nobjs++;
}

/* git's bsearch_hash() in layer l: true and *lex when found. */
static bool bsearch_layer(const struct skg_cgraph_layer *l, const uint8_t *id, uint32_t *lex)
{
	uint32_t hi = be32_at(l, l->fanout + 4 * (uint64_t)id[0]);
	uint32_t lo = id[0] == 0 ? 0 : be32_at(l, l->fanout + 4 * (uint64_t)(id[0] - 1));
	while (lo < hi) {
		uint32_t mi = lo + (hi - lo) / 2;
		uint8_t at[SKG_MAX_RAWSZ];
		oid_at(l, l->lookup + (uint64_t)mi * l->rawsz, at);
		int cmp = memcmp(at, id, l->rawsz);
		if (cmp == 0) {
			*lex = mi;
			return true;
		}
		if (cmp > 0) {
			hi = mi;
		} else {
			lo = mi + 1;
		}
	}
	return false;
}

/* insert_parent_or_die of commit_parents: the parent at pos of a commit of layer k. */
static int one_parent(const struct skg_cgraph_layer *layers, size_t n, size_t k, uint32_t pos,
                      int (*parent)(void *ctx, uint32_t pos, const uint8_t *id), void *ctx, char *why,
                      size_t why_size)
{
	const struct skg_cgraph_layer *l = &layers[k];
	if ((uint64_t)pos >= (uint64_t)l->num_commits + l->num_in_base) {
		snprintf(why, why_size, "invalid parent position %" PRIu32, pos);
		return 2;
	}
	while (k + 1 < n && pos < layers[k].num_in_base) {
		k++;
	}
	const struct skg_cgraph_layer *d = &layers[k];
	uint8_t id[SKG_MAX_RAWSZ];
	oid_at(d, d->lookup + (uint64_t)(pos - d->num_in_base) * d->rawsz, id);
	return parent(ctx, pos, id) != 0 ? -1 : 0;
}

/*
 * The parents of the commit at CDAT offset `at` of layer k, in order (fill_commit_in_graph,
 * insert_parent_or_die): each position checked against the layers from k down and its ID read,
 * then parent(ctx, pos, id), which returns 0 or -1 (stop: out of memory). Returns 0; 1 where git
 * 2.55's parse fails (an extra-edges pointer out of bounds, with v255); 2 where git dies; -1 when
 * parent failed. For 1 and 2, why gets git's message (without "error: " or "fatal: ").
 */
static int commit_parents(const struct skg_cgraph_layer *layers, size_t n, size_t k, uint64_t at, bool v255,
                          int (*parent)(void *ctx, uint32_t pos, const uint8_t *id), void *ctx, char *why,
                          size_t why_size)
{
	const struct skg_cgraph_layer *l = &layers[k];
	uint32_t e = be32_at(l, at + l->rawsz);
	if (e == PARENT_NONE) {
		return 0;
	}
	int r = one_parent(layers, n, k, e, parent, ctx, why, why_size);
	if (r != 0) {
		return r;
	}
	e = be32_at(l, at + l->rawsz + 4);
	if (e == PARENT_NONE) {
		return 0;
	}
	if (!(e & EXTRA_EDGES)) {
		return one_parent(layers, n, k, e, parent, ctx, why, why_size);
	}
	uint64_t p = l->edges + 4 * (uint64_t)(e & EDGE_MASK);
	do {
		if (v255 && (!l->has_edges || p - l->edges >= (l->edges_size & ~(uint64_t)3))) {
			snprintf(why, why_size, "commit-graph extra-edges pointer out of bounds");
			return 1;
		}
		if (!l->has_edges || p >= l->len) {
			/* git reads outside its mapping here and crashes; stop */
			snprintf(why, why_size, "invalid parent position %" PRIu32, e & EDGE_MASK);
			return 2;
		}
		e = be32_at(l, p);
		r = one_parent(layers, n, k, e & EDGE_MASK, parent, ctx, why, why_size);
		if (r != 0) {
			return r;
		}
		p += 4;
	} while (!(e & EXTRA_EDGES));
	return 0;
}

/* commit_parents' parent for fill: git's lookup_commit of it, its graph position, a parent of c */
static int fill_parent(void *ctx, uint32_t pos, const uint8_t *id)
{
	struct state *s = ctx;
	int64_t c = lookup(s, id);
	if (c < 0) {
		return -1;
	}
	s->objs[c].pos = pos;
	if (s->npar == s->cap_par) {
		size_t cap = s->cap_par ? s->cap_par * 2 : 256;
		uint32_t *v = realloc(s->par, cap * sizeof(*v));
		if (v == NULL) {
			s->nomem = true;
			return -1;
		}
		s->par = v;
		s->cap_par = cap;
	}
	s->par[s->npar++] = (uint32_t)c;
	return 0;
}

/* fill_commit_in_graph: object c from position pos, searched from layer k. 0, 1 when the parse
 * fails (git 2.55: an extra-edges pointer out of bounds), or -1 (died, no memory). */
static int fill(struct state *s, size_t k, int64_t c, uint32_t pos)
{
	k = layer_of(s, k, pos);
	const struct skg_cgraph_layer *l = &s->layers[k];
	if ((uint64_t)pos >= (uint64_t)l->num_commits + l->num_in_base) {
		DIE("invalid commit position. commit-graph is likely corrupt");
		return -1;
	}
	uint32_t lex = pos - l->num_in_base;
	uint64_t at = l->cdat + (uint64_t)(l->rawsz + 16) * lex; /* CDAT: tree ID, 16 bytes */
	struct obj *o = &s->objs[c];
	o->pos = pos;
	uint32_t word = be32_at(l, at + l->rawsz + 8);
	o->date = (uint64_t)(word & 3) << 32 | be32_at(l, at + l->rawsz + 12);
	if (l->has_gdat) {
		uint32_t off = be32_at(l, l->gdat + 4 * (uint64_t)lex);
		if (off & OFFSET_OVERFLOW) {
			if (!l->has_gdo2) {
				DIE("commit-graph requires overflow generation data but has none");
				return -1;
			}
			uint64_t p = l->gdo2 + 8 * (uint64_t)(off ^ OFFSET_OVERFLOW);
			o->generation = o->date + ((uint64_t)be32_at(l, p) << 32 | be32_at(l, p + 4));
		} else {
			o->generation = o->date + off;
		}
	} else {
		o->generation = word >> 2;
	}
	o->parsed = true;
	o->has_tree = false;
	o->par_at = s->npar;
	o->npar = 0;
	size_t before = s->npar;
	char why[96];
	int r = commit_parents(s->layers, s->n, k, at, s->v255, fill_parent, s, why, sizeof(why));
	if (r == 1) {
		/* git 2.55's fill_commit_in_graph: the parse fails (its parents dropped) */
		SAY("error: ", "%s", why);
		s->npar = before;
		s->objs[c].parsed = false; /* objs may have moved (fill_parent) */
		return 1;
	}
	if (r == 2) {
		DIE("%s", why);
		return -1;
	}
	if (r < 0) {
		return -1;
	}
	s->objs[c].npar = s->npar - before;
	return 0;
}

/* parse_commit_in_graph_one from layer k: 1 parsed, 0 not found, -1 died or out of memory. */
static int parse_in_graph(struct state *s, size_t k, int64_t c)
{
	if (s->objs[c].parsed) {
		return 1;
	}
	uint32_t pos = s->objs[c].pos;
	if (pos == POS_NONE) {
		uint8_t id[SKG_MAX_RAWSZ];
		memcpy(id, s->objs[c].id, SKG_MAX_RAWSZ);
		size_t j = k;
		uint32_t lex = 0;
		while (j < s->n && !bsearch_layer(&s->layers[j], id, &lex)) {
			j++;
		}
		if (j == s->n) {
			return 0;
		}
		pos = lex + s->layers[j].num_in_base;
	}
	int r = fill(s, k, c, pos);
	return r == 0 ? 1 : r == 1 ? 0 : -1;
}

/* commit_parents' parent for skg_cgraph_parse: the caller's */
struct parse_parents {
	skg_cgraph_parent_fn fn;
	void *ctx;
};

static int parse_parent(void *ctx, uint32_t pos, const uint8_t *id)
{
	const struct parse_parents *pp = ctx;
	(void)pos;
	pp->fn(pp->ctx, id);
	return 0;
}

int skg_cgraph_parse(const struct skg_cgraph_layer *layers, size_t n, const uint8_t *id, bool v255,
                     uint8_t *tree, skg_cgraph_parent_fn parent, void *ctx, char *why, size_t why_size)
{
	size_t k = 0;
	uint32_t lex = 0;
	while (k < n && !bsearch_layer(&layers[k], id, &lex)) {
		k++;
	}
	if (k == n) {
		return 0;
	}
	const struct skg_cgraph_layer *l = &layers[k];
	uint64_t at = l->cdat + (uint64_t)(l->rawsz + 16) * lex; /* CDAT: tree ID, 16 bytes */
	/* fill_commit_graph_info, before the parents */
	if (l->has_gdat && (be32_at(l, l->gdat + 4 * (uint64_t)lex) & OFFSET_OVERFLOW) && !l->has_gdo2) {
		snprintf(why, why_size, "commit-graph requires overflow generation data but has none");
		return -1;
	}
	struct parse_parents pp = {parent, ctx};
	int r = commit_parents(layers, n, k, at, v255, parse_parent, &pp, why, why_size);
	if (r != 0) {
		return r == 1 ? 2 : -1;
	}
	oid_at(l, at, tree); /* load_tree_for_commit */
	return 1;
}

/* commit_graph_generation */
static uint64_t generation(const struct obj *o)
{
	return o->pos == POS_NONE ? UINT64_MAX : o->generation;
}

/* ---- the commit in the object database ----------------------------------------------------------- */

/* git's parse_timestamp (strtoumax, base 10) of the bytes [p, end). */
static uint64_t parse_timestamp(const uint8_t *p, const uint8_t *end)
{
	while (p < end && (*p == ' ' || (*p >= '\t' && *p <= '\r'))) {
		p++;
	}
	bool neg = false;
	if (p < end && (*p == '+' || *p == '-')) {
		neg = *p == '-';
		p++;
	}
	uint64_t v = 0;
	bool over = false;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10) {
			over = true;
		}
		v = v * 10 + d;
	}
	if (over) {
		return UINT64_MAX;
	}
	return neg ? (uint64_t)0 - v : v;
}

/* parse_commit_date: the committer's date, 0 where the lines are not as expected. */
static uint64_t commit_date(const uint8_t *buf, const uint8_t *tail)
{
	if (buf + 6 >= tail || memcmp(buf, "author", 6) != 0) {
		return 0;
	}
	while (buf < tail && *buf++ != '\n') {
	}
	if (buf + 9 >= tail || memcmp(buf, "committer", 9) != 0) {
		return 0;
	}
	while (buf < tail && *buf++ != '>') {
	}
	if (buf >= tail) {
		return 0;
	}
	const uint8_t *date = buf;
	while (buf < tail && *buf++ != '\n') {
	}
	if (buf >= tail) {
		return 0;
	}
	/* the last byte before buf is '\n': the number ends there at the latest (git's strtoumax
	 * skips leading blanks, newlines included, so it may start in a later line) */
	return parse_timestamp(date, tail);
}

/*
 * The process's first parse of a commit from the object database reads the graft and shallow
 * files (commit.c prepare_commit_graft): registering each graft unparses its commit
 * (register_commit_graft, unparse_commit: the parents the graph gave it are dropped) where the
 * process has it parsed from the graph, every commit of a layer's first pass, the one being parsed
 * too (lookup_commit finds the object the graph filled: create_object's object for the parse from
 * the object database comes after it in the hash table). A later parse from the graph (as a
 * parent) fills it again.
 */
static void unparse_grafts(struct state *s)
{
	const struct skg_grafts *g = s->odb->grafts;
	if (s->grafts_read || g == NULL || s->nobjs == 0) {
		s->grafts_read = true;
		return;
	}
	s->grafts_read = true;
	for (size_t i = 0; i < g->n; i++) {
		int64_t c = skg_objtab_lookup(&s->tab, s->objs[0].id, sizeof(struct obj), g->v[i].id);
		if (c >= 0 && s->objs[c].parsed) {
			s->objs[c].parsed = false;
			s->objs[c].npar = 0;
		}
	}
}

/* parse_commit_internal without the graph: 1 with *tree, the parents in s->odb_par[0 .. *npar)
 * and *date; 0 when git's error line was added; -1 out of memory. */
static int read_odb(struct state *s, const uint8_t *id, const char *hex, uint8_t *tree, size_t *npar,
                    uint64_t *date)
{
	unsigned type = 0;
	uint8_t *data = NULL;
	size_t len = 0;
	int rc = s->odb->read(s->odb->ctx, id, &type, &data, &len, s->lines);
	if (rc < 0) {
		s->nomem = true;
		return -1;
	}
	if (rc == 2) {
		s->died = true;
		return -1;
	}
	if (rc == 0) {
		SAY("error: ", "Could not read %s", hex);
		return 0;
	}
	int ret = 0;
	const size_t tree_len = 5 + 2 * (size_t)s->rawsz, parent_len = 7 + 2 * (size_t)s->rawsz;
	if (type != SKG_COMMIT) {
		SAY("error: ", "Object %s not a commit", hex);
	} else if (len <= tree_len + 1 || memcmp(data, "tree ", 5) != 0 || data[tree_len] != '\n') {
		SAY("error: ", "bogus commit object %s", hex);
	} else if (!skg_from_hex_len((const char *)data + 5, s->rawsz, tree)) {
		SAY("error: ", "bad tree pointer in commit %s", hex);
	} else {
		unparse_grafts(s);
		const struct skg_graft *graft =
		    s->odb->grafts != NULL ? skg_graft_find(s->odb->grafts, id) : NULL;
		size_t at = tree_len + 1;
		*npar = 0;
		ret = 1;
		while (at + parent_len < len && memcmp(data + at, "parent ", 7) == 0) {
			uint8_t p[SKG_MAX_RAWSZ];
			if (len <= at + parent_len + 1 ||
			    !skg_from_hex_len((const char *)data + at + 7, s->rawsz, p) ||
			    data[at + parent_len] != '\n') {
				SAY("error: ", "bad parents in commit %s", hex);
				ret = 0;
				break;
			}
			at += parent_len + 1;
			if (graft != NULL) {
				continue;
			}
			if (*npar == s->cap_odb_par) {
				size_t cap = s->cap_odb_par ? s->cap_odb_par * 2 : 16;
				void *v = realloc(s->odb_par, cap * SKG_MAX_RAWSZ);
				if (v == NULL) {
					s->nomem = true;
					free(data);
					return -1;
				}
				s->odb_par = v;
				s->cap_odb_par = cap;
			}
			memcpy(s->odb_par[(*npar)++], p, s->rawsz);
		}
		if (ret == 1 && graft != NULL) {
			if (graft->nparents > s->cap_odb_par) {
				void *v = realloc(s->odb_par, graft->nparents * SKG_MAX_RAWSZ);
				if (v == NULL) {
					s->nomem = true;
					free(data);
					return -1;
				}
				s->odb_par = v;
				s->cap_odb_par = graft->nparents;
			}
			for (size_t j = 0; j < graft->nparents; j++) {
				memcpy(s->odb_par[j], graft->parents + j * s->rawsz, s->rawsz);
			}
			*npar = graft->nparents;
		}
		if (ret == 1) {
			*date = commit_date(data + at, data + len);
		}
	}
	free(data);
	return ret;
}

/* ---- verify_commit_graph ------------------------------------------------------------------------- */

static void flush(struct state *s)
{
	if (s->odb->flush != NULL && s->lines->len > SKG_LINES_SIZE / 2 && !s->lines->nomem) {
		s->odb->flush(s->odb->ctx, s->lines);
	}
}

#define HEX(name, id)                                                                                        \
	char name[SKG_MAX_HEXSZ + 1];                                                                        \
	skg_to_hex_len(id, s->rawsz, name)

/* The first pass over layer k: OID order, fanout, parse from the graph. */
static int pass_graph(struct state *s, size_t k, int *err)
{
	const struct skg_cgraph_layer *l = &s->layers[k];
	uint8_t prev[SKG_MAX_RAWSZ], cur[SKG_MAX_RAWSZ];
	uint32_t fan = 0, i;
	for (i = 0; i < l->num_commits; i++) {
		oid_at(l, l->lookup + (uint64_t)i * l->rawsz, cur);
		if (i > 0 && memcmp(prev, cur, l->rawsz) >= 0) {
			HEX(a, prev);
			HEX(b, cur);
			SAY(NULL, "commit-graph has incorrect OID order: %s then %s", a, b);
			*err = 1;
		}
		memcpy(prev, cur, l->rawsz);
		while (cur[0] > fan) {
			uint32_t v = be32_at(l, l->fanout + 4 * (uint64_t)fan);
			if (v != i) {
				skg_lines_add(s->lines, NULL,
				              "commit-graph has incorrect fanout value: fanout[%u] = %" PRIu32
				              " != %" PRIu32,
				              fan, v, i);
				*err = 1;
			}
			fan++;
		}
		int64_t c = lookup(s, cur);
		if (c < 0) {
			return -1;
		}
		int r = parse_in_graph(s, k, c);
		if (r < 0) {
			return -1;
		}
		if (r == 0) {
			HEX(a, cur);
			SAY(NULL, "failed to parse commit %s from commit-graph", a);
			*err = 1;
		}
		flush(s);
	}
	for (; fan < 256; fan++) {
		uint32_t v = be32_at(l, l->fanout + 4 * (uint64_t)fan);
		if (v != l->num_commits) {
			skg_lines_add(s->lines, NULL,
			              "commit-graph has incorrect fanout value: fanout[%u] = %" PRIu32
			              " != %" PRIu32,
			              fan, v, i);
			*err = 1;
		}
	}
	return 0;
}

/* The second pass over layer k: each commit against the object database. */
static int pass_odb(struct state *s, size_t k, int *err)
{
	const struct skg_cgraph_layer *l = &s->layers[k];
	int gen_zero = 0; /* 1: GENERATION_ZERO_EXISTS, 2: GENERATION_NUMBER_EXISTS */
	/* git 2.55 (not 2.39.5): the last commits seen with a zero and a non-zero generation, one line */
	uint8_t seen_zero[SKG_MAX_RAWSZ], seen_non_zero[SKG_MAX_RAWSZ];
	bool has_zero = false, has_non_zero = false;
	for (uint32_t i = 0; i < l->num_commits; i++) {
		if (s->odb->meter != NULL) {
			s->odb->meter(s->odb->ctx, s->lines, SKG_METER_SHOW, METER_TITLE, ++s->seen);
		}
		uint8_t cur[SKG_MAX_RAWSZ], tree[SKG_MAX_RAWSZ];
		oid_at(l, l->lookup + (uint64_t)i * l->rawsz, cur);
		HEX(hex, cur);
		int64_t c = lookup(s, cur);
		if (c < 0) {
			return -1;
		}
		size_t nodb = 0;
		uint64_t date = 0;
		int r = read_odb(s, cur, hex, tree, &nodb, &date);
		if (r < 0) {
			return -1;
		}
		if (r == 0) {
			SAY(NULL, "failed to parse commit %s from object database for commit-graph", hex);
			*err = 1;
			flush(s);
			continue;
		}
		struct obj *o = &s->objs[c];
		if (!o->has_tree) { /* load_tree_for_commit from this layer down */
			const struct skg_cgraph_layer *d = &s->layers[layer_of(s, k, o->pos)];
			oid_at(d, d->cdat + (uint64_t)(d->rawsz + 16) * (uint32_t)(o->pos - d->num_in_base),
			       o->tree);
			o->has_tree = true;
		}
		if (memcmp(o->tree, tree, s->rawsz) != 0) {
			HEX(a, o->tree);
			HEX(b, tree);
			SAY(NULL, "root tree OID for commit %s in commit-graph is %s != %s", hex, a, b);
			*err = 1;
		}
		uint64_t max_gen = 0;
		size_t j = 0, np = s->objs[c].npar, at = s->objs[c].par_at;
		for (; j < np; j++) {
			if (j >= nodb) {
				SAY(NULL, "commit-graph parent list for commit %s is too long", hex);
				*err = 1;
				break;
			}
			int64_t p = s->par[at + j];
			if (parse_in_graph(s, k, p) < 0) {
				return -1;
			}
			if (memcmp(s->objs[p].id, s->odb_par[j], s->rawsz) != 0) {
				HEX(a, s->objs[p].id);
				HEX(b, s->odb_par[j]);
				SAY(NULL, "commit-graph parent for %s is %s != %s", hex, a, b);
				*err = 1;
			}
			uint64_t g = generation(&s->objs[p]);
			if (g > max_gen) {
				max_gen = g;
			}
		}
		if (j == np && j < nodb) {
			SAY(NULL, "commit-graph parent list for commit %s terminates early", hex);
			*err = 1;
		}
		o = &s->objs[c];
		if (s->v255) {
			/* 2.55's verify_one_commit_graph (seen_gen_zero, seen_gen_non_zero) */
			bool zero = generation(o) == 0;
			memcpy(zero ? seen_zero : seen_non_zero, cur, s->rawsz);
			has_zero = has_zero || zero;
			has_non_zero = has_non_zero || !zero;
			gen_zero = has_zero ? 1 : 0;
		} else if (generation(o) == 0) {
			if (gen_zero == 2) {
				SAY(NULL,
				    "commit-graph has generation number zero for commit %s, but non-zero "
				    "elsewhere",
				    hex);
				*err = 1;
			}
			gen_zero = 1;
		} else if (gen_zero == 1) {
			SAY(NULL,
			    "commit-graph has non-zero generation number for commit %s, but zero elsewhere",
			    hex);
			*err = 1;
		}
		if (gen_zero == 1) {
			flush(s);
			continue;
		}
		if (!l->has_gdat && max_gen == V1_MAX) {
			max_gen--;
		}
		uint64_t gen = generation(o);
		if (gen < max_gen + 1) {
			skg_lines_add(s->lines, NULL,
			              "commit-graph generation for commit %s is %" PRIu64 " < %" PRIu64, hex,
			              gen, max_gen + 1);
			*err = 1;
		}
		if (o->date != date) {
			skg_lines_add(s->lines, NULL,
			              "commit date for commit %s in commit-graph is %" PRIu64 " != %" PRIu64,
			              hex, o->date, date);
			*err = 1;
		}
		flush(s);
	}
	if (has_zero && has_non_zero) {
		HEX(z, seen_zero);
		HEX(nz, seen_non_zero);
		SAY(NULL, "commit-graph has both zero and non-zero generations (e.g., commits '%s' and '%s')",
		    z, nz);
		*err = 1;
		flush(s);
	}
	return 0;
}

/* The start of layer k's verify: the checksum (a bad one sets *err to the hash error alone, as
 * git's assignment does) and the first pass. 0, or -1 (died, out of memory). */
static int first_pass(struct state *s, size_t k, int *err)
{
	if (!s->layers[k].checksum_ok) {
		skg_lines_add(s->lines, NULL,
		              "the commit-graph file has incorrect checksum and is likely corrupt");
		*err = ERROR_HASH;
	}
	return pass_graph(s, k, err);
}

/* git 2.39.5's verify_commit_graph of layer k, and of the layers below it: git's error bits, or -1
 * (died, out of memory). */
static int verify_layer(struct state *s, size_t k)
{
	int err = 0;
	if (first_pass(s, k, &err) != 0) {
		return -1;
	}
	if (err & ~ERROR_HASH) {
		return err;
	}
	if (pass_odb(s, k, &err) != 0) {
		return -1;
	}
	if (k + 1 < s->n) {
		int base = verify_layer(s, k + 1);
		if (base < 0) {
			return -1;
		}
		err |= base;
	}
	return err;
}

/* git 2.55.0's verify_commit_graph: each layer's verify_one_commit_graph in turn, with one error
 * state across them (see skg_cgraph_verify). Git's error bits, or -1 (died, out of memory). */
static int verify_layers(struct state *s)
{
	int err = 0, all = 0;
	for (size_t k = 0; k < s->n; k++) {
		if (first_pass(s, k, &err) != 0) {
			return -1;
		}
		if (!(err & ~ERROR_HASH) && pass_odb(s, k, &err) != 0) {
			return -1;
		}
		all |= err;
	}
	return all;
}

int skg_cgraph_verify(const struct skg_cgraph_layer *layers, size_t n, const struct skg_cgraph_odb *odb,
                      unsigned git_version, struct skg_lines *lines)
{
	if (n == 0) {
		return SKG_CGRAPH_OK;
	}
	struct state s;
	memset(&s, 0, sizeof(s));
	s.layers = layers;
	s.n = n;
	s.rawsz = layers[0].rawsz;
	s.tab.rawsz = layers[0].rawsz;
	s.odb = odb;
	s.lines = lines;
	s.v255 = git_version >= SKG_GIT_2_55;
	if (odb->meter != NULL) {
		/* start_progress: the commits of the tip and of the layers below it */
		odb->meter(odb->ctx, lines, SKG_METER_START, METER_TITLE,
		           (uint64_t)layers[0].num_commits + layers[0].num_in_base);
	}
	int err = git_version >= SKG_GIT_2_55 ? verify_layers(&s) : verify_layer(&s, 0);
	if (odb->meter != NULL && err >= 0 && !s.died) {
		odb->meter(odb->ctx, lines, SKG_METER_STOP, METER_TITLE, 0);
	}
	free(s.objs);
	free(s.par);
	free(s.odb_par);
	skg_objtab_free(&s.tab);
	if (s.nomem) {
		skg_lines_nomem(lines);
		return -1;
	}
	if (s.died) {
		return SKG_CGRAPH_FATAL;
	}
	return err != 0 ? SKG_CGRAPH_BAD : SKG_CGRAPH_OK;
}
