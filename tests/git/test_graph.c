/* test_graph.c - the fsck object graph (src/git/graph.c): reachability, broken links, missing,
 * dangling and unreachable objects, wrong link types, duplicates, a graph large enough to rehash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "graph.h"

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
	struct skg_graph_report rep = {s,           on_broken,      on_wrong,      on_missing,
	                               on_dangling, on_unreachable, on_walk_error, unreachable};
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
	assert_int_equal(skg_graph_add(g, id, type, links, nl, type == SKG_TREE && n == 7),
	                 0); /* tree 7: does not decode */
}

static void root(struct skg_graph *g, uint32_t n)
{
	uint8_t id[SKG_RAWSZ];
	mkid(id, n);
	assert_int_equal(skg_graph_root(g, id, 0), 0);
}

/* commit 1 -> tree 2 -> blob 3, blob 4 (missing); commit 1 -> parent commit 5 (exists, root of
 * nothing else); commit 6 unreachable, nothing links to it (dangling) -> tree 7 (unreachable but
 * used: not dangling); blob 8 exists, linked as a tree by tree 2 (wrong type). */
static void test_graph_findings(void **state)
{
	(void)state;
	struct skg_graph *g = skg_graph_new();
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
	g = skg_graph_new();
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

/* A tree added with walk_error is reported each time the walk follows its links, not otherwise. */
static void test_graph_walk_error(void **state)
{
	(void)state;
	struct skg_graph *g = skg_graph_new();
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
	struct skg_graph *g = skg_graph_new();
	struct seen s;
	add(g, 10, SKG_COMMIT, (uint32_t[]){11}, (unsigned[]){SKG_TREE}, 1);
	walk(g, &s, false);
	assert_true(has_line(&s, "dangling", SKG_COMMIT, 10));
	assert_int_equal(count_lines(&s), 1);
	skg_graph_free(g);
}

/* 100,000 objects in a chain (rehashing many times): all reachable from the last, nothing reported;
 * then without the root every object but the last is used, so one dangling commit. */
static void test_graph_large(void **state)
{
	(void)state;
	const uint32_t n = 100000;
	struct skg_graph *g = skg_graph_new();
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_graph_findings),
	    cmocka_unit_test(test_graph_unreachable_missing),
	    cmocka_unit_test(test_graph_walk_error),
	    cmocka_unit_test(test_graph_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
