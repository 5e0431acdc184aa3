/* test_graph.c - the fsck object graph (src/git/graph.c): reachability, broken links, missing,
 * dangling and unreachable objects, wrong link types, links that disagree on a type and git's type
 * forced, duplicates, a graph large enough to rehash, adds from many threads at once (the queue of
 * adds that find the graph busy), a link list longer than a block of the link store, the names of
 * --name-objects. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph.h"
#include "util.h"

/* Object IDs made from a number (distinct first bytes spread the hash slots). */
static void mkid(uint8_t id[SKG_RAWSZ], uint32_t n)
{
	memset(id, 0, SKG_RAWSZ);
	for (int k = 0; k < 4; k++) {
		id[k] = (uint8_t)(n * 2654435761u >> (8 * k));
	}
	id[19] = (uint8_t)n;
	id[18] = (uint8_t)(n >> 8);
	id[17] = (uint8_t)(n >> 16);
}

struct seen {
	char log[8192];
	size_t len;
};

static void logf_(struct seen *s, const char *what, unsigned type, const uint8_t *id)
{
	char hex[SKG_HEXSZ + 1];
	skg_to_hex(id, hex);
	s->len += (size_t)snprintf(s->log + s->len, sizeof(s->log) - s->len, "%s %u %.8s\n", what, type, hex);
}

static void on_broken(void *ctx, unsigned ft, const uint8_t *from, unsigned tt, const uint8_t *to)
{
	logf_(ctx, "from", ft, from);
	logf_(ctx, "broken", tt, to);
}
static void on_wrong(void *ctx, unsigned ft, const uint8_t *from)
{
	logf_(ctx, "wrongtype", ft, from);
}
static void on_failed(void *ctx, unsigned ft, const uint8_t *from, unsigned tau, unsigned lt,
                      const uint8_t *to)
{
	logf_(ctx, "failedfrom", ft, from);
	logf_(ctx, "failedto", tau * 10 + lt, to);
}
static void on_missing(void *ctx, unsigned t, const uint8_t *id)
{
	logf_(ctx, "missing", t, id);
}
static void on_dangling(void *ctx, unsigned t, const uint8_t *id)
{
	logf_(ctx, "dangling", t, id);
}
static void on_unreachable(void *ctx, unsigned t, const uint8_t *id)
{
	logf_(ctx, "unreachable", t, id);
}

static void on_walk_error(void *ctx, unsigned t, const uint8_t *id)
{
	logf_(ctx, "walkerror", t, id);
}

static void walk(struct skg_graph *g, struct seen *s, bool unreachable)
{
	struct skg_graph_report rep = {
	    s,           on_broken, on_wrong, on_missing, on_dangling, on_unreachable, on_walk_error,
	    unreachable, NULL,      0,        on_failed,  false,       false,          false,
	    false,       NULL,      NULL,     NULL,       NULL,        NULL,           NULL};
	memset(s, 0, sizeof(*s));
	assert_int_equal(skg_graph_walk(g, &rep), 0);
}

static bool has_line(const struct seen *s, const char *what, unsigned type, uint32_t n)
{
	uint8_t id[SKG_RAWSZ];
	char hex[SKG_HEXSZ + 1], line[64];
	mkid(id, n);
	skg_to_hex(id, hex);
	snprintf(line, sizeof(line), "%s %u %.8s\n", what, type, hex);
	return strstr(s->log, line) != NULL;
}

static size_t count_lines(const struct seen *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->len; i++) {
		n += s->log[i] == '\n';
	}
	return n;
}

static void add(struct skg_graph *g, uint32_t n, unsigned type, const uint32_t *to, const unsigned *to_type,
                size_t nl)
{
	uint8_t id[SKG_RAWSZ];
	struct skg_link links[8] = {0};
	mkid(id, n);
	for (size_t k = 0; k < nl; k++) {
		mkid(links[k].id, to[k]);
		links[k].type = (uint8_t)to_type[k];
	}
	assert_int_equal(skg_graph_add(g, id, type, links, nl, type == SKG_TREE && n == 7, n),
	                 0); /* tree 7: does not decode */
}

static void root(struct skg_graph *g, uint32_t n)
{
	uint8_t id[SKG_RAWSZ];
	mkid(id, n);
	assert_int_equal(skg_graph_root(g, id, 0), 0);
}

/* The objects of test_graph_conflicts (see there). */
static void add_disputed(struct skg_graph *g)
{
	add(g, 9, SKG_TREE, (uint32_t[]){3, 13}, (unsigned[]){SKG_TREE, SKG_TREE}, 2);
	add(g, 2, SKG_TREE, (uint32_t[]){3}, (unsigned[]){SKG_BLOB}, 1);
	add(g, 3, SKG_BLOB, NULL, NULL, 0);
	add(g, 13, SKG_BLOB, NULL, NULL, 0);
	add(g, 10, SKG_TREE, (uint32_t[]){11}, (unsigned[]){SKG_BLOB}, 1);
	add(g, 12, SKG_COMMIT, (uint32_t[]){11}, (unsigned[]){SKG_TREE}, 1);
	add(g, 1, SKG_COMMIT, (uint32_t[]){2, 5}, (unsigned[]){SKG_TREE, SKG_COMMIT}, 2);
}

/* Links that disagree: tree 2 names blob 3 as a blob, tree 9 names it as a tree, tree 10 names
 * the missing 11 as a blob and commit 12 names it as a tree; blob 13 is named a tree by tree 9
 * only. Then the second build with git's types forced (3 and 13 blobs, 11 a tree): the links of
 * another type are reported by the walk and mark nothing. */
static void test_graph_conflicts(void **state)
{
	(void)state;
	struct skg_graph *g = skg_graph_new(SKG_RAWSZ);
	assert_non_null(g);
	add_disputed(g);
	uint8_t *ids = NULL;
	size_t n = 0;
	assert_int_equal(skg_graph_conflicts(g, &ids, &n), 0);
	assert_int_equal(n, 3);
	uint8_t want[3][SKG_RAWSZ];
	mkid(want[0], 3);
	mkid(want[1], 11);
	mkid(want[2], 13);
	for (int w = 0; w < 3; w++) {
		bool found = false;
		for (size_t k = 0; k < n; k++) {
			found |= memcmp(ids + k * SKG_RAWSZ, want[w], SKG_RAWSZ) == 0;
		}
		assert_true(found);
	}
	free(ids);
	skg_graph_free(g);

	g = skg_graph_new(SKG_RAWSZ);
	assert_int_equal(skg_graph_force_type(g, want[0], SKG_BLOB), 0);
	assert_int_equal(skg_graph_force_type(g, want[1], SKG_TREE), 0);
	assert_int_equal(skg_graph_force_type(g, want[2], SKG_BLOB), 0);
	add_disputed(g);
	add(g, 5, SKG_COMMIT, NULL, NULL, 0);
	unsigned t = 0;
	assert_true(skg_graph_has(g, want[0], &t));
	assert_int_equal(t, SKG_BLOB); /* the mark does not show in the type */
	assert_true(skg_graph_known(g, want[1], &t));
	assert_int_equal(t, SKG_TREE);
	root(g, 1);
	root(g, 9);
	root(g, 10);
	root(g, 12);
	struct seen s;
	walk(g, &s, false);
	assert_true(has_line(&s, "failedfrom", SKG_TREE, 9));
	assert_true(has_line(&s, "failedto", SKG_BLOB * 10 + SKG_TREE, 3));
	assert_true(has_line(&s, "failedto", SKG_BLOB * 10 + SKG_TREE, 13));
	assert_true(has_line(&s, "failedfrom", SKG_TREE, 10));
	assert_true(has_line(&s, "failedto", SKG_TREE * 10 + SKG_BLOB, 11));
	/* commit 12's link agrees with 11's type: broken (11 does not exist), and 11 is missing */
	assert_true(has_line(&s, "from", SKG_COMMIT, 12));
	assert_true(has_line(&s, "missing", SKG_TREE, 11));
	/* 13 is only named by the failing link: unreachable and unused */
	assert_true(has_line(&s, "dangling", SKG_BLOB, 13));
	assert_false(has_line(&s, "dangling", SKG_BLOB, 3)); /* tree 2 reaches it */
	assert_false(has_line(&s, "wrongtype", SKG_TREE, 9));
	assert_int_equal(count_lines(&s), 10);
	skg_graph_free(g);
}

/* commit 1 -> tree 2 -> blob 3, blob 4 (missing); commit 1 -> parent commit 5 (exists, root of
 * nothing else); commit 6 unreachable, nothing links to it (dangling) -> tree 7 (unreachable but
 * used: not dangling); blob 8 exists, linked as a tree by tree 2 (wrong type). */
static void test_graph_findings(void **state)
{
	(void)state;
	struct skg_graph *g = skg_graph_new(SKG_RAWSZ);
	struct seen s;
	assert_non_null(g);
	add(g, 1, SKG_COMMIT, (uint32_t[]){2, 5}, (unsigned[]){SKG_TREE, SKG_COMMIT}, 2);
	add(g, 2, SKG_TREE, (uint32_t[]){3, 4, 8}, (unsigned[]){SKG_BLOB, SKG_BLOB, SKG_TREE}, 3);
	add(g, 3, SKG_BLOB, NULL, NULL, 0);
	add(g, 5, SKG_COMMIT, NULL, NULL, 0);
	add(g, 6, SKG_COMMIT, (uint32_t[]){7}, (unsigned[]){SKG_TREE}, 1);
	add(g, 7, SKG_TREE, NULL, NULL, 0);
	add(g, 8, SKG_BLOB, NULL, NULL, 0);
	add(g, 3, SKG_BLOB, NULL, NULL, 0); /* a second copy changes nothing */
	root(g, 1);
	assert_int_equal(skg_graph_count(g), 8);
	unsigned t = 0;
	uint8_t id[SKG_RAWSZ];
	mkid(id, 4);
	assert_false(skg_graph_has(g, id, &t));
	mkid(id, 8);
	assert_true(skg_graph_has(g, id, &t));
	assert_int_equal(t, SKG_BLOB);

	walk(g, &s, false);
	assert_true(has_line(&s, "from", SKG_TREE, 2));
	assert_true(has_line(&s, "broken", SKG_BLOB, 4));
	assert_true(has_line(&s, "missing", SKG_BLOB, 4));
	assert_true(has_line(&s, "wrongtype", SKG_TREE, 2));
	assert_true(has_line(&s, "dangling", SKG_COMMIT, 6));
	assert_false(has_line(&s, "dangling", SKG_TREE, 7)); /* used by commit 6 */
	assert_int_equal(count_lines(&s), 5);
	skg_graph_free(g);

	/* --unreachable: both unreachable objects, no dangling lines */
	g = skg_graph_new(SKG_RAWSZ);
	add(g, 1, SKG_COMMIT, (uint32_t[]){2}, (unsigned[]){SKG_TREE}, 1);
	add(g, 2, SKG_TREE, NULL, NULL, 0);
	add(g, 6, SKG_COMMIT, (uint32_t[]){7}, (unsigned[]){SKG_TREE}, 1);
	add(g, 7, SKG_TREE, NULL, NULL, 0);
	root(g, 1);
	walk(g, &s, true);
	assert_true(has_line(&s, "unreachable", SKG_COMMIT, 6));
	assert_true(has_line(&s, "unreachable", SKG_TREE, 7));
	assert_int_equal(count_lines(&s), 2);
	skg_graph_free(g);
}

static void on_not_a(void *ctx, unsigned type, unsigned as, const uint8_t *id)
{
	logf_(ctx, "nota", type * 10 + as, id);
}
static void on_failed_parse(void *ctx, unsigned ft, const uint8_t *from, uint32_t k, unsigned tau,
                            unsigned lt, const uint8_t *to)
{
	logf_(ctx, "parsefrom", ft * 10 + k, from);
	logf_(ctx, "parseto", tau * 10 + lt, to);
}
static void on_failed_root(void *ctx, unsigned tau, unsigned type, const uint8_t *id)
{
	logf_(ctx, "failedroot", tau * 10 + type, id);
}
static bool on_typeless(void *ctx, bool quiet, unsigned type, const uint8_t *id)
{
	logf_(ctx, quiet ? "quiettypeless" : "typeless", type, id);
	return type != SKG_TAG; /* a tag "does not hash" */
}

/*
 * --connectivity-only: git's types are those of the links that look objects up, in the walk's
 * order. Commit 1 (a ref: parsed, its tree 2 typed then) -> tree 2 -> 3 as a blob (a tree: not
 * followed, so blob 6 it links to is dangling), 4 as a tree (a blob: "not a tree"), 5 as a tree
 * (-> 4 as a blob: the lookup fails), 10 as a tree. Commit 7 (a reflog's: no type, parsed for its
 * own) -> tree 8, parent 10 (its first lookup: a commit; then tree 2's lookup as a tree fails).
 * Tree 2 as an index entry's blob: the lookup fails, no root. Tag 11, a reflog's, does not hash:
 * nothing of it is followed (its tree 12 is dangling).
 */
static void test_graph_conn_types(void **state)
{
	(void)state;
	struct skg_graph *g = skg_graph_new(SKG_RAWSZ);
	struct seen s;
	assert_non_null(g);
	add(g, 1, SKG_COMMIT, (uint32_t[]){2}, (unsigned[]){SKG_TREE}, 1);
	add(g, 2, SKG_TREE, (uint32_t[]){3, 4, 5, 10}, (unsigned[]){SKG_BLOB, SKG_TREE, SKG_TREE, SKG_TREE},
	    4);
	add(g, 3, SKG_TREE, (uint32_t[]){6}, (unsigned[]){SKG_BLOB}, 1);
	add(g, 4, SKG_BLOB, NULL, NULL, 0);
	add(g, 5, SKG_TREE, (uint32_t[]){4}, (unsigned[]){SKG_BLOB}, 1);
	add(g, 6, SKG_BLOB, NULL, NULL, 0);
	add(g, 8, SKG_TREE, NULL, NULL, 0);
	add(g, 10, SKG_COMMIT, NULL, NULL, 0);
	add(g, 9, SKG_COMMIT, (uint32_t[]){8, 10}, (unsigned[]){SKG_TREE, SKG_COMMIT}, 2);
	add(g, 11, SKG_TAG, (uint32_t[]){12}, (unsigned[]){SKG_TREE}, 1);
	add(g, 12, SKG_TREE, NULL, NULL, 0);
	uint8_t id[SKG_RAWSZ];
	mkid(id, 1);
	assert_int_equal(skg_graph_root_ref(g, id, SKG_COMMIT, NULL), 0);
	mkid(id, 11);
	assert_int_equal(skg_graph_root(g, id, 0), 0);
	mkid(id, 9);
	assert_int_equal(skg_graph_root(g, id, 0), 0);
	mkid(id, 2);
	assert_int_equal(skg_graph_root(g, id, SKG_BLOB), 0);
	struct skg_graph_report rep = {
	    &s,    on_broken, on_wrong, on_missing,      on_dangling,    on_unreachable, NULL,
	    false, NULL,      0,        on_failed,       false,          true,           false,
	    false, NULL,      on_not_a, on_failed_parse, on_failed_root, on_typeless,    NULL};
	memset(&s, 0, sizeof(s));
	assert_int_equal(skg_graph_walk(g, &rep), 0);
	static const char *const want[] = {
	    "failedroot 23 ", /* 2: a tree to git (commit 1's parse), looked up as a blob */
	    "typeless 1 ",    /* the roots, last first: commit 9 parsed for its own type */
	    "typeless 4 ",    /* tag 11: its hash does not match */
	    "failedfrom 2 ",  /* tree 2's entries pushed 3, 4, 5, 10: 10 is a commit to git (9) */
	    "failedto 12 ",   "failedfrom 2 ", /* tree 5: 4 as a blob, a tree to git (tree 2's lookup) */
	    "failedto 23 ",   "nota 32 ",      /* 4: a blob git has as a tree */
	};
	const char *at = s.log;
	for (size_t k = 0; k < sizeof(want) / sizeof(*want); k++) {
		const char *line = strstr(at, want[k]);
		if (line == NULL) {
			fail_msg("no \"%s\" after offset %td in:\n%s", want[k], at - s.log, s.log);
		}
		at = line + 1;
	}
	assert_true(has_line(&s, "dangling", SKG_BLOB, 6));
	assert_true(has_line(&s, "dangling", SKG_TREE, 12));
	assert_false(has_line(&s, "wrongtype", SKG_TREE, 2)); /* never with --connectivity-only */
	assert_int_equal(count_lines(&s), 10);
	skg_graph_free(g);
}

/* A tree added with walk_error is reported each time the walk follows its links, not otherwise. */
static void test_graph_walk_error(void **state)
{
	(void)state;
	struct skg_graph *g = skg_graph_new(SKG_RAWSZ);
	struct seen s;
	add(g, 6, SKG_COMMIT, (uint32_t[]){7}, (unsigned[]){SKG_TREE}, 1);
	add(g, 7, SKG_TREE, NULL, NULL, 0);
	walk(g, &s, false);
	assert_false(has_line(&s, "walkerror", SKG_TREE, 7));
	root(g, 6);
	walk(g, &s, false);
	assert_true(has_line(&s, "walkerror", SKG_TREE, 7));
	assert_int_equal(count_lines(&s), 1);
	skg_graph_free(g);
}

/* A missing object linked from an unreachable object is not reported (git ignores it). */
static void test_graph_unreachable_missing(void **state)
{
	(void)state;
	struct skg_graph *g = skg_graph_new(SKG_RAWSZ);
	struct seen s;
	add(g, 10, SKG_COMMIT, (uint32_t[]){11}, (unsigned[]){SKG_TREE}, 1);
	walk(g, &s, false);
	assert_true(has_line(&s, "dangling", SKG_COMMIT, 10));
	assert_int_equal(count_lines(&s), 1);
	skg_graph_free(g);
}

/* 100,000 objects in a chain (rehashing many times; their links fill the link store's small first
 * allocation, 2^16 links, and go on in block 1): all reachable from the last, nothing reported;
 * then without the root every object but the last is used, so one dangling commit. */
static void test_graph_large(void **state)
{
	(void)state;
	const uint32_t n = 100000;
	struct skg_graph *g = skg_graph_new(SKG_RAWSZ);
	struct seen s;
	for (uint32_t i = 1; i <= n; i++) {
		add(g, i, SKG_COMMIT, (uint32_t[]){i - 1}, (unsigned[]){SKG_COMMIT}, i > 1 ? 1 : 0);
	}
	assert_int_equal(skg_graph_count(g), n);
	walk(g, &s, false);
	assert_true(has_line(&s, "dangling", SKG_COMMIT, n));
	assert_int_equal(count_lines(&s), 1);
	root(g, n);
	walk(g, &s, false);
	assert_int_equal(count_lines(&s), 0);
	skg_graph_free(g);
}

/* A graph reserved for its objects first (as fsck does from the idx counts), then added to beyond
 * the reservation, with trees of many links (the prefetching path): the same findings as without;
 * a reservation beyond 2^29 - 1 objects is refused and leaves the graph as it was. */
static void test_graph_reserve(void **state)
{
	(void)state;
	const uint32_t n = 3000, fan = 40;
	struct skg_graph *g = skg_graph_new(SKG_RAWSZ);
	struct seen s;
	assert_int_equal(skg_graph_reserve(g, 1000), 0);
	/* blobs 1..n; trees n+1.. each linking to 40 blobs, every blob once but blob 7 */
	for (uint32_t i = 1; i <= n; i++) {
		add(g, i, SKG_BLOB, NULL, NULL, 0);
	}
	uint32_t t = n + 1, links[40];
	unsigned types[40];
	for (uint32_t k = 0; k < fan; k++) {
		types[k] = SKG_BLOB;
	}
	for (uint32_t first = 1; first + fan - 1 <= n; first += fan, t++) {
		for (uint32_t k = 0; k < fan; k++) {
			links[k] = first + k == 7 ? n + 1000000 : first + k; /* one missing blob */
		}
		uint8_t id[SKG_RAWSZ];
		struct skg_link l[40] = {0};
		mkid(id, t);
		for (uint32_t k = 0; k < fan; k++) {
			mkid(l[k].id, links[k]);
			l[k].type = (uint8_t)types[k];
		}
		assert_int_equal(skg_graph_add(g, id, SKG_TREE, l, fan, false, 0), 0);
		root(g, t);
	}
	assert_int_equal(skg_graph_count(g), t); /* n blobs, t - n - 1 trees and the missing blob */
	walk(g, &s, false);
	assert_true(has_line(&s, "dangling", SKG_BLOB, 7));
	assert_true(has_line(&s, "missing", SKG_BLOB, n + 1000000));
	assert_true(has_line(&s, "broken", SKG_BLOB, n + 1000000));
	assert_int_equal(count_lines(&s), 4); /* from + broken, missing, dangling */
	assert_int_equal(skg_graph_reserve(g, (uint64_t)1 << 29), -1);
	assert_int_equal(skg_graph_count(g), t);
	skg_graph_free(g);
}

/* The links of the reloaded trees of test_graph_reload: tree n links to blobs 10n+1 .. 10n+4 and,
 * below tree 5, to tree n+1; tree 3 also to blob 999 (missing) when `broken`. The report's
 * context: the log first (the report callbacks take it as a struct seen), then the reload's. */
struct rctx {
	struct seen s;
	bool broken;
	unsigned calls;
	pthread_mutex_t lock;
};

static size_t tree_links(uint32_t n, bool broken, struct skg_link *l)
{
	size_t k = 0;
	for (uint32_t b = 1; b <= 4; b++) {
		mkid(l[k].id, 10 * n + b);
		l[k++].type = SKG_BLOB;
	}
	if (n < 5) {
		mkid(l[k].id, n + 1);
		l[k++].type = SKG_TREE;
	}
	if (n == 3 && broken) {
		mkid(l[k].id, 999);
		l[k++].type = SKG_BLOB;
	}
	return k;
}

static void give_links(void *ctx, unsigned thread, unsigned source, const uint8_t id[SKG_RAWSZ],
                       unsigned type,
                       void (*link)(void *link_ctx, const uint8_t id[SKG_RAWSZ], unsigned type),
                       void *link_ctx)
{
	struct rctx *r = ctx;
	struct skg_link l[6] = {0};
	uint8_t want[SKG_RAWSZ];
	mkid(want, source); /* the test passes the tree's number as its source */
	assert_memory_equal(id, want, SKG_RAWSZ);
	assert_int_equal(type, SKG_TREE);
	assert_true(thread < 4);
	pthread_mutex_lock(&r->lock);
	r->calls++;
	pthread_mutex_unlock(&r->lock);
	size_t n = tree_links(source, r->broken, l);
	for (size_t k = 0; k < n; k++) {
		link(link_ctx, l[k].id, l[k].type);
	}
}

/* commit 200 -> tree 1 -> tree 2 -> ... -> tree 5, each tree with 4 blobs; blob 100 dangling. */
static struct skg_graph *reload_graph(bool broken, bool reload)
{
	struct skg_graph *g = skg_graph_new(SKG_RAWSZ);
	uint8_t id[SKG_RAWSZ];
	struct skg_link l[6] = {0};
	for (uint32_t n = 1; n <= 5; n++) {
		for (uint32_t b = 1; b <= 4; b++) {
			add(g, 10 * n + b, SKG_BLOB, NULL, NULL, 0);
		}
		size_t k = tree_links(n, broken, l);
		mkid(id, n);
		if (reload) {
			assert_int_equal(skg_graph_add_reload(g, id, SKG_TREE, l, k, false, (uint16_t)n, n),
			                 0);
		} else {
			assert_int_equal(skg_graph_add(g, id, SKG_TREE, l, k, false, n), 0);
		}
	}
	add(g, 100, SKG_BLOB, NULL, NULL, 0);
	add(g, 200, SKG_COMMIT, (uint32_t[]){1}, (unsigned[]){SKG_TREE}, 1);
	root(g, 200);
	return g;
}

/* Trees added with skg_graph_add_reload: the walk reads their links back through reload, on one
 * thread or (a quiet pass first) on four, and reports exactly what a walk of kept links reports,
 * in the same order: only the dangling blob; with a broken link, its lines and the missing blob. */
static void test_graph_reload(void **state)
{
	(void)state;
	for (int broken = 0; broken <= 1; broken++) {
		struct seen kept;
		struct skg_graph *g = reload_graph(broken != 0, false);
		walk(g, &kept, false);
		skg_graph_free(g);
		assert_true(has_line(&kept, "dangling", SKG_BLOB, 100));
		assert_int_equal(count_lines(&kept), broken ? 4 : 1);
		for (unsigned threads = 1; threads <= 4; threads += 3) {
			struct rctx r;
			memset(&r, 0, sizeof(r));
			r.broken = broken != 0;
			pthread_mutex_init(&r.lock, NULL);
			g = reload_graph(broken != 0, true);
			struct skg_graph_report rep = {&r,          on_broken,      on_wrong,      on_missing,
			                               on_dangling, on_unreachable, on_walk_error, false,
			                               give_links,  threads,        NULL,          false,
			                               false,       false,          false,         NULL,
			                               NULL,        NULL,           NULL,          NULL,
			                               NULL};
			assert_int_equal(skg_graph_walk(g, &rep), 0);
			assert_int_equal(r.s.len, kept.len);
			assert_memory_equal(r.s.log, kept.log, kept.len);
			/* each reachable tree read once per walk (twice with a quiet pass that found a
			 * report), and once more for the order of the last lines (the object check's lookups
			 * and the walk's replayed on the links read then) */
			assert_int_equal(r.calls, (threads > 1 && broken ? 10 : 5) + 5);
			skg_graph_free(g);
			pthread_mutex_destroy(&r.lock);
		}
	}
}

/*
 * Promisor objects (git's is_promisor_object): commit 20 (in a promisor pack: marked with its
 * links) names tree 21 and parent 22, which is missing; tree 21 names the missing blob 23. Local
 * commit 30 names commit 20 and tree 31, which names blobs 23 (a promisor object: no finding) and
 * 32 (missing: broken link and missing). The walk stops at 20: 21 is not reachable (used, so not
 * dangling; "unreachable" with show_unreachable). With used_by_unreachable (--connectivity-only)
 * 21 is dangling: only the reachable promisor commit names it.
 */
static void promisor_graph(struct skg_graph *g)
{
	uint8_t id[SKG_RAWSZ];
	add(g, 20, SKG_COMMIT, (uint32_t[]){21, 22}, (unsigned[]){SKG_TREE, SKG_COMMIT}, 2);
	add(g, 21, SKG_TREE, (uint32_t[]){23}, (unsigned[]){SKG_BLOB}, 1);
	add(g, 31, SKG_TREE, (uint32_t[]){23, 32}, (unsigned[]){SKG_BLOB, SKG_BLOB}, 2);
	add(g, 30, SKG_COMMIT, (uint32_t[]){31, 20}, (unsigned[]){SKG_TREE, SKG_COMMIT}, 2);
	mkid(id, 20);
	assert_int_equal(skg_graph_set_promisor(g, id, true, NULL), 0);
	mkid(id, 21);
	assert_int_equal(skg_graph_set_promisor(g, id, true, NULL), 0);
	mkid(id, 99); /* unknown: nothing made */
	assert_int_equal(skg_graph_set_promisor(g, id, false, NULL), 0);
	assert_false(skg_graph_known(g, id, NULL));
	assert_false(skg_graph_is_promisor(g, id));
	for (uint32_t n = 20; n <= 23; n++) {
		mkid(id, n);
		assert_true(skg_graph_is_promisor(g, id));
	}
	for (uint32_t n = 30; n <= 32; n++) {
		mkid(id, n);
		assert_false(skg_graph_is_promisor(g, id));
	}
	root(g, 30);
}

static void test_graph_promisor(void **state)
{
	(void)state;
	struct seen s;
	struct skg_graph *g = skg_graph_new(SKG_RAWSZ);
	promisor_graph(g);
	walk(g, &s, false);
	assert_true(has_line(&s, "from", SKG_TREE, 31));
	assert_true(has_line(&s, "broken", SKG_BLOB, 32));
	assert_true(has_line(&s, "missing", SKG_BLOB, 32));
	assert_int_equal(count_lines(&s), 3);
	skg_graph_free(g);

	g = skg_graph_new(SKG_RAWSZ);
	promisor_graph(g);
	walk(g, &s, true);
	assert_true(has_line(&s, "unreachable", SKG_TREE, 21));
	assert_int_equal(count_lines(&s), 4);
	skg_graph_free(g);

	g = skg_graph_new(SKG_RAWSZ);
	promisor_graph(g);
	struct skg_graph_report rep = {&s,    on_broken, on_wrong, on_missing, on_dangling, on_unreachable,
	                               NULL,  false,     NULL,     0,          on_failed,   true,
	                               false, false,     false,    NULL,       NULL,        NULL,
	                               NULL,  NULL,      NULL};
	memset(&s, 0, sizeof(s));
	assert_int_equal(skg_graph_walk(g, &rep), 0);
	assert_true(has_line(&s, "dangling", SKG_TREE, 21));
	assert_int_equal(count_lines(&s), 4);
	skg_graph_free(g);
}

/*
 * The graph of test_graph_threads: blobs 1..20000, trees 20001..22000, tree t linking to blobs
 * 10(t - 20001) + 1 .. + 10 (blob 2995 replaced by the missing blob 99999) and to tree t + 1,
 * commit 30000 linking to the first tree and named as a root. Object k of 22001 is added by
 * thread k % nthreads, in order.
 */
#define TG_BLOBS 20000u
#define TG_TREES 2000u
#define TG_ALL   (TG_BLOBS + TG_TREES + 1)

static void tg_add(struct skg_graph *g, uint32_t k)
{
	uint8_t id[SKG_RAWSZ];
	struct skg_link l[11] = {0};
	size_t n = 0;
	if (k < TG_BLOBS) {
		mkid(id, k + 1);
	} else if (k < TG_BLOBS + TG_TREES) {
		uint32_t t = k - TG_BLOBS;
		mkid(id, TG_BLOBS + 1 + t);
		for (uint32_t b = 10 * t + 1; b <= 10 * t + 10; b++) {
			mkid(l[n].id, b == 2995 ? 99999 : b);
			l[n++].type = SKG_BLOB;
		}
		if (t + 1 < TG_TREES) {
			mkid(l[n].id, TG_BLOBS + 2 + t);
			l[n++].type = SKG_TREE;
		}
	} else {
		mkid(id, 30000);
		mkid(l[0].id, TG_BLOBS + 1);
		l[0].type = SKG_TREE;
		n = 1;
	}
	unsigned type = k < TG_BLOBS ? SKG_BLOB : k < TG_BLOBS + TG_TREES ? SKG_TREE : SKG_COMMIT;
	assert_int_equal(skg_graph_add(g, id, type, l, n, false, k), 0);
}

struct tg_thread {
	struct skg_graph *g;
	uint32_t first, step;
};

static void *tg_run(void *arg)
{
	struct tg_thread *t = arg;
	for (uint32_t k = t->first; k < TG_ALL; k += t->step) {
		tg_add(t->g, k);
	}
	return NULL;
}

/* Sort the lines of a walk's log, so that logs of graphs filled in other orders compare. */
static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sorted_log(const struct seen *s, char *out, size_t cap)
{
	char copy[sizeof(s->log)];
	char *lines[256];
	size_t n = 0;
	memcpy(copy, s->log, s->len + 1);
	for (char *p = strtok(copy, "\n"); p != NULL && n < 256; p = strtok(NULL, "\n")) {
		lines[n++] = p;
	}
	qsort(lines, n, sizeof(lines[0]), cmp_line);
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		len += (size_t)snprintf(out + len, cap - len, "%s\n", lines[i]);
	}
}

/*
 * Adds from 8 threads at once (more threads than this machine's CPUs, so that adds find the graph
 * busy and are queued for the thread inside): every object and link arrives, and the walk reports
 * what the same graph filled on one thread reports (as sets: the order of dangling lines follows
 * the order the graph first saw the objects in).
 */
static void test_graph_threads(void **state)
{
	(void)state;
	struct seen s;
	char want[sizeof(s.log)], got[sizeof(s.log)];
	struct skg_graph *g = skg_graph_new(SKG_RAWSZ);
	for (uint32_t k = 0; k < TG_ALL; k++) {
		tg_add(g, k);
	}
	uint8_t id[SKG_RAWSZ];
	mkid(id, 30000);
	assert_int_equal(skg_graph_root(g, id, 0), 0);
	assert_int_equal(skg_graph_count(g), TG_ALL + 1); /* and the missing blob */
	walk(g, &s, false);
	assert_true(has_line(&s, "dangling", SKG_BLOB, 2995));
	assert_true(has_line(&s, "missing", SKG_BLOB, 99999));
	assert_int_equal(count_lines(&s), 4); /* from + broken, missing, dangling */
	sorted_log(&s, want, sizeof(want));
	skg_graph_free(g);

	for (int round = 0; round < 3; round++) {
		g = skg_graph_new(SKG_RAWSZ);
		/* the root first: no call after the adds inserts what a lost wake-up would leave queued */
		assert_int_equal(skg_graph_root(g, id, 0), 0);
		pthread_t th[8];
		struct tg_thread arg[8];
		for (uint32_t t = 0; t < 8; t++) {
			arg[t] = (struct tg_thread){g, t, 8};
			assert_int_equal(pthread_create(&th[t], NULL, tg_run, &arg[t]), 0);
		}
		for (uint32_t t = 0; t < 8; t++) {
			assert_int_equal(pthread_join(th[t], NULL), 0);
		}
		assert_int_equal(skg_graph_count(g), TG_ALL + 1);
		walk(g, &s, false);
		sorted_log(&s, got, sizeof(got));
		assert_string_equal(got, want);
		skg_graph_free(g);
	}
}

/*
 * The order of the walk's last lines does not depend on the order of the adds: 300 dangling blobs,
 * each added with its place in the order of checks (k), in that order, in reverse, and from 8
 * threads at once, give the same lines in the same order. (git's table order depends on the order
 * objects are made in where their IDs collide in its hash, as these do, six to a slot.)
 */
#define TO_N 300u

static void to_add(struct skg_graph *g, uint32_t k)
{
	uint8_t id[SKG_RAWSZ];
	mkid(id, k + 1);
	id[0] = (uint8_t)(k % 50 * 5); /* git's hash is the first 4 bytes: 50 values in the low 10 bits */
	id[1] = 0;
	assert_int_equal(skg_graph_add(g, id, SKG_BLOB, NULL, 0, false, k), 0);
}

static void *to_run(void *arg)
{
	struct tg_thread *t = arg;
	for (uint32_t k = t->first; k < TO_N; k += t->step) {
		to_add(t->g, k);
	}
	return NULL;
}

static void test_graph_order(void **state)
{
	(void)state;
	struct seen s;
	char want[sizeof(s.log)];
	struct skg_graph *g = skg_graph_new(SKG_RAWSZ);
	for (uint32_t k = 0; k < TO_N; k++) {
		to_add(g, k);
	}
	walk(g, &s, false);
	assert_int_equal(count_lines(&s), TO_N);
	memcpy(want, s.log, s.len + 1);
	skg_graph_free(g);

	g = skg_graph_new(SKG_RAWSZ);
	for (uint32_t k = TO_N; k-- > 0;) {
		to_add(g, k);
	}
	walk(g, &s, false);
	assert_string_equal(s.log, want);
	skg_graph_free(g);

	for (int round = 0; round < 3; round++) {
		g = skg_graph_new(SKG_RAWSZ);
		pthread_t th[8];
		struct tg_thread arg[8];
		for (uint32_t t = 0; t < 8; t++) {
			arg[t] = (struct tg_thread){g, 7 - t, 8};
			assert_int_equal(pthread_create(&th[t], NULL, to_run, &arg[t]), 0);
		}
		for (uint32_t t = 0; t < 8; t++) {
			assert_int_equal(pthread_join(th[t], NULL), 0);
		}
		walk(g, &s, false);
		assert_string_equal(s.log, want);
		skg_graph_free(g);
	}
}

/*
 * One tree with more links than a block of the link store holds (2^22), after another object's
 * links, so that its list starts a new allocation of two blocks: every link is kept and followed
 * (its 1000 blobs reachable, the blob after them dangling), and an object added after it still
 * has its own links.
 */
/* Names (skg_graph_enable_names): the entry names of the trees, "e<tree>_<k>", entry 0 of tree 20
 * a subtree. */
static int entry_name(void *ctx, const uint8_t *tree, uint32_t k, struct skg_buf *name, bool *is_dir)
{
	(void)ctx;
	uint32_t n = (uint32_t)tree[19] | (uint32_t)tree[18] << 8;
	skg_buf_addf(name, "e%u_%u", n, k);
	*is_dir = n == 20 && k == 0;
	return 0;
}

static void root_named(struct skg_graph *g, uint32_t n, const char *name)
{
	uint8_t id[SKG_RAWSZ];
	mkid(id, n);
	assert_int_equal(skg_graph_root_named(g, id, 0, name), 0);
}

static void assert_name(const struct skg_graph *g, uint32_t n, const char *want)
{
	uint8_t id[SKG_RAWSZ];
	struct skg_buf b = {0};
	mkid(id, n);
	int r = skg_graph_name(g, id, entry_name, NULL, &b);
	if (want == NULL) {
		assert_int_equal(r, 0);
	} else {
		assert_int_equal(r, 1);
		assert_string_equal(skg_buf_str(&b), want);
	}
	skg_buf_release(&b);
}

/* git's names (fsck.c fsck_walk_commit, fsck_walk_tree, fsck_walk_tag): "~N" continued from a name
 * ending in "~N" or "^", "^" after other names (digits without a '~' before them too), "^K" for
 * the K-th parent, "NAME:" for the tree, entry names below it ("/" after a subtree), a tag's
 * name passed to its object, a root's own name kept over one a link would give, no name for an
 * object only unnamed ones reach. */
static void test_graph_names(void **state)
{
	(void)state;
	struct skg_graph *g = skg_graph_new(SKG_RAWSZ);
	struct seen s;
	const unsigned C = SKG_COMMIT, T = SKG_TREE, B = SKG_BLOB;
	assert_non_null(g);
	assert_int_equal(skg_graph_enable_names(g), 0);
	add(g, 1, C, (uint32_t[]){20, 2, 3}, (unsigned[]){T, C, C}, 3);
	add(g, 20, T, (uint32_t[]){22, 23}, (unsigned[]){T, B}, 2); /* 23 is missing */
	add(g, 22, T, (uint32_t[]){24}, (unsigned[]){B}, 1);        /* 24 is missing */
	add(g, 21, T, NULL, NULL, 0);                               /* every other commit's tree */
	add(g, 2, C, (uint32_t[]){21, 4}, (unsigned[]){T, C}, 2);
	add(g, 4, C, (uint32_t[]){21, 5}, (unsigned[]){T, C}, 2); /* 5 is missing */
	add(g, 3, C, (uint32_t[]){21, 6}, (unsigned[]){T, C}, 2);
	add(g, 6, C, (uint32_t[]){21, 25}, (unsigned[]){T, C}, 2); /* 25 is missing */
	add(g, 8, C, (uint32_t[]){21, 9}, (unsigned[]){T, C}, 2);
	add(g, 9, C, (uint32_t[]){21, 26}, (unsigned[]){T, C}, 2); /* 26 is missing */
	add(g, 10, C, (uint32_t[]){21, 11, 12}, (unsigned[]){T, C, C}, 3);
	add(g, 11, C, (uint32_t[]){21}, (unsigned[]){T}, 1);
	add(g, 12, C, (uint32_t[]){21, 27}, (unsigned[]){T, C}, 2); /* 27 is missing */
	add(g, 30, SKG_TAG, (uint32_t[]){31}, (unsigned[]){C}, 1);
	add(g, 31, C, (uint32_t[]){21, 28}, (unsigned[]){T, C}, 2); /* 28 is missing */
	add(g, 40, C, (uint32_t[]){21, 41}, (unsigned[]){T, C}, 2); /* 40: a root without a name */
	add(g, 41, C, (uint32_t[]){21, 29}, (unsigned[]){T, C}, 2); /* 29 is missing */
	root_named(g, 1, "refs/tags/v7~3");
	root_named(g, 8, "x^");
	root_named(g, 10, "topic12");
	root_named(g, 11, "refs/heads/other");
	root_named(g, 11, "not this one");
	root_named(g, 30, "refs/tags/t");
	root_named(g, 40, NULL);
	walk(g, &s, false);
	assert_name(g, 1, "refs/tags/v7~3");
	assert_name(g, 20, "refs/tags/v7~3:");
	assert_name(g, 22, "refs/tags/v7~3:e20_0/");
	assert_name(g, 23, "refs/tags/v7~3:e20_1");
	assert_name(g, 24, "refs/tags/v7~3:e20_0/e22_0");
	assert_name(g, 2, "refs/tags/v7~4");
	assert_name(g, 4, "refs/tags/v7~5");
	assert_name(g, 5, "refs/tags/v7~6");
	assert_name(g, 3, "refs/tags/v7~3^2");
	assert_name(g, 6, "refs/tags/v7~3^2^");
	assert_name(g, 25, "refs/tags/v7~3^2~2");
	assert_name(g, 9, "x~2");
	assert_name(g, 26, "x~3");
	assert_name(g, 11, "refs/heads/other");
	assert_name(g, 12, "topic12^2");
	assert_name(g, 27, "topic12^2^");
	assert_name(g, 31, "refs/tags/t");
	assert_name(g, 28, "refs/tags/t^");
	assert_name(g, 40, NULL);
	assert_name(g, 29, NULL);
	assert_name(g, 99, NULL); /* not in the graph */
	assert_true(has_line(&s, "missing", C, 5) && has_line(&s, "missing", B, 24));
	skg_graph_free(g);

	/* names off: none */
	g = skg_graph_new(SKG_RAWSZ);
	assert_non_null(g);
	add(g, 1, C, (uint32_t[]){21, 2}, (unsigned[]){T, C}, 2);
	root_named(g, 1, "refs/heads/main");
	walk(g, &s, false);
	assert_name(g, 1, NULL);
	assert_name(g, 2, NULL);
	skg_graph_free(g);
}

static void test_graph_long_list(void **state)
{
	(void)state;
	const size_t n = ((size_t)1 << 22) + 5;
	struct skg_link *l = calloc(n, sizeof(*l));
	assert_non_null(l);
	for (size_t k = 0; k < n; k++) {
		mkid(l[k].id, (uint32_t)(k % 1000) + 1);
		l[k].type = SKG_BLOB;
	}
	struct skg_graph *g = skg_graph_new(SKG_RAWSZ);
	for (uint32_t b = 1; b <= 1001; b++) {
		add(g, b, SKG_BLOB, NULL, NULL, 0);
	}
	add(g, 5000, SKG_TREE, (uint32_t[]){1, 2}, (unsigned[]){SKG_BLOB, SKG_BLOB}, 2);
	uint8_t id[SKG_RAWSZ];
	mkid(id, 5001);
	assert_int_equal(skg_graph_add(g, id, SKG_TREE, l, n, false, 0), 0);
	add(g, 5002, SKG_TREE, (uint32_t[]){5003}, (unsigned[]){SKG_BLOB}, 1);
	add(g, 6000, SKG_COMMIT, (uint32_t[]){5001}, (unsigned[]){SKG_TREE}, 1);
	root(g, 6000);
	root(g, 5002);
	struct seen s;
	walk(g, &s, false);
	assert_true(has_line(&s, "dangling", SKG_BLOB, 1001));
	assert_true(has_line(&s, "dangling", SKG_TREE, 5000));
	assert_true(has_line(&s, "missing", SKG_BLOB, 5003));
	assert_int_equal(count_lines(&s), 5); /* the two dangling, missing, from + broken */
	skg_graph_free(g);
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_graph_findings),   cmocka_unit_test(test_graph_conn_types),
	    cmocka_unit_test(test_graph_conflicts),  cmocka_unit_test(test_graph_unreachable_missing),
	    cmocka_unit_test(test_graph_walk_error), cmocka_unit_test(test_graph_large),
	    cmocka_unit_test(test_graph_reserve),    cmocka_unit_test(test_graph_reload),
	    cmocka_unit_test(test_graph_promisor),   cmocka_unit_test(test_graph_threads),
	    cmocka_unit_test(test_graph_order),      cmocka_unit_test(test_graph_long_list),
	    cmocka_unit_test(test_graph_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
