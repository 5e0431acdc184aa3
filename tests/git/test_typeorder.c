/* test_typeorder.c - git's one type per object where links disagree (src/git/typeorder.c): the
 * type of the first event in git's order of reading wins, later lookups as another type fail, a
 * commit's or tag's parse stops at its failing link, second copies do not count, git 2.53+'s ref
 * snapshot parses before the object check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "typeorder.h"

static void mkid(uint8_t id[SKG_RAWSZ], uint8_t n)
{
	memset(id, n, SKG_RAWSZ);
}

/* A fate of its own lookup (SKG_TO_PARSE) with git's type tau, and its line. */
static void assert_parse_fate(const struct skg_typeorder_fate *fate, unsigned tau, const char *line)
{
	assert_non_null(fate);
	assert_int_equal(fate->kind, SKG_TO_PARSE);
	assert_int_equal(fate->tau, tau);
	char lines[256];
	skg_typeorder_fate_lines(fate, lines, sizeof(lines));
	assert_string_equal(lines, line);
}

/* An event at (loose directory `dir`, place `nth`) or in pack `seq` at `off`. */
static struct skg_read_pos loose_at(uint32_t dir, uint32_t nth)
{
	return (struct skg_read_pos){0, 0, (uint64_t)dir << 32 | nth, 0, 0};
}
static struct skg_read_pos pack_at(uint32_t seq, uint64_t off)
{
	return (struct skg_read_pos){seq, 0, off, 0, 0};
}

static void link_to(struct skg_link *l, uint8_t n, unsigned type)
{
	mkid(l->id, n);
	l->type = (uint8_t)type;
}

/* Blob 0xbb, named a tree by tree 0x11: whichever git reads first decides. */
static void test_first_event_decides(void **state)
{
	(void)state;
	uint8_t b[SKG_RAWSZ], t1[SKG_RAWSZ];
	mkid(b, 0xbb);
	mkid(t1, 0x11);
	for (int tree_first = 0; tree_first <= 1; tree_first++) {
		struct skg_typeorder *t = skg_typeorder_new(b, 1, SKG_RAWSZ);
		assert_non_null(t);
		assert_true(skg_typeorder_disputed(t, b));
		assert_false(skg_typeorder_disputed(t, t1));
		struct skg_link l;
		link_to(&l, 0xbb, SKG_TREE);
		struct skg_read_pos ptree = loose_at(0x11, 0),
		                    pblob = tree_first ? pack_at(1, 12) : loose_at(0x01, 3);
		/* fed in the wrong order: resolve sorts them */
		assert_int_equal(skg_typeorder_event(t, &pblob, b, SKG_BLOB, NULL, 0, false), 0);
		assert_int_equal(skg_typeorder_event(t, &ptree, t1, SKG_TREE, &l, 1, false), 0);
		/* an object that neither is nor names a disputed one is not kept */
		uint8_t other[SKG_RAWSZ];
		mkid(other, 0x22);
		assert_int_equal(skg_typeorder_event(t, &ptree, other, SKG_BLOB, NULL, 0, false), 0);
		assert_int_equal(skg_typeorder_resolve(t), 0);
		unsigned tau;
		assert_memory_equal(skg_typeorder_id(t, 0, &tau), b, SKG_RAWSZ);
		assert_int_equal(skg_typeorder_type(t, b), tree_first ? SKG_TREE : SKG_BLOB);
		assert_int_equal(tau, tree_first ? SKG_TREE : SKG_BLOB);
		assert_int_equal(skg_typeorder_type(t, t1), 0);
		const struct skg_typeorder_fate *fate = skg_typeorder_fate(t, b);
		if (tree_first) {
			/* the blob's own lookup fails: no object to git */
			assert_parse_fate(
			    fate, SKG_TREE,
			    "error: object bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb is a tree, not a blob");
		} else {
			assert_null(fate); /* the tree's entry fails instead: a tree has no fate */
		}
		assert_null(skg_typeorder_fate(t, t1));
		skg_typeorder_free(t);
	}
}

/* Commit 0xcc: tree 0x77 (a blob, read before it), so its parse stops there and its parent 0x99
 * (disputed: tag 0xdd names it a blob, read after) is never looked up: the tag's link decides. */
static void test_commit_stops_at_link(void **state)
{
	(void)state;
	uint8_t ids[2 * SKG_RAWSZ], c[SKG_RAWSZ], x[SKG_RAWSZ], p[SKG_RAWSZ], tag[SKG_RAWSZ];
	mkid(ids, 0x77);
	mkid(ids + SKG_RAWSZ, 0x99);
	mkid(c, 0xcc);
	mkid(x, 0x77);
	mkid(p, 0x99);
	mkid(tag, 0xdd);
	struct skg_typeorder *t = skg_typeorder_new(ids, 2, SKG_RAWSZ);
	assert_non_null(t);
	struct skg_link cl[2], tl;
	link_to(&cl[0], 0x77, SKG_TREE);
	link_to(&cl[1], 0x99, SKG_COMMIT);
	link_to(&tl, 0x99, SKG_BLOB);
	struct skg_read_pos px = loose_at(0x77, 0), pc = loose_at(0xcc, 0), ptag = loose_at(0xdd, 0),
	                    pdup = pack_at(1, 40), pp = pack_at(1, 80);
	assert_int_equal(skg_typeorder_event(t, &pc, c, SKG_COMMIT, cl, 2, false), 0);
	assert_int_equal(skg_typeorder_event(t, &px, x, SKG_BLOB, NULL, 0, false), 0);
	assert_int_equal(skg_typeorder_event(t, &ptag, tag, SKG_TAG, &tl, 1, false), 0);
	assert_int_equal(skg_typeorder_event(t, &pp, p, SKG_COMMIT, NULL, 0, false), 0);
	/* a packed copy of the commit: its first read (loose) decides */
	assert_int_equal(skg_typeorder_event(t, &pdup, c, SKG_COMMIT, cl, 2, false), 0);
	assert_int_equal(skg_typeorder_resolve(t), 0);
	assert_int_equal(skg_typeorder_type(t, x), SKG_BLOB);
	assert_int_equal(skg_typeorder_type(t, p), SKG_BLOB);
	const struct skg_typeorder_fate *fc = skg_typeorder_fate(t, c);
	assert_non_null(fc);
	assert_int_equal(fc->kind, SKG_TO_TREE_PTR);
	assert_memory_equal(fc->target, x, SKG_RAWSZ);
	char lines[256];
	skg_typeorder_fate_lines(fc, lines, sizeof(lines));
	assert_string_equal(lines,
	                    "error: object 7777777777777777777777777777777777777777 is a blob, not a tree\n"
	                    "error: bad tree pointer 7777777777777777777777777777777777777777 in commit "
	                    "cccccccccccccccccccccccccccccccccccccccc");
	/* the commit 0x99 itself: git has it as the tag's blob */
	const struct skg_typeorder_fate *fp = skg_typeorder_fate(t, p);
	assert_non_null(fp);
	assert_int_equal(fp->kind, SKG_TO_PARSE);
	assert_null(skg_typeorder_fate(t, tag));
	assert_null(skg_typeorder_fate(t, x));
	skg_typeorder_free(t);

	/* the same with the parent read first as a commit: the tag's link fails */
	t = skg_typeorder_new(ids, 2, SKG_RAWSZ);
	assert_non_null(t);
	struct skg_read_pos pfirst = loose_at(0x00, 0);
	assert_int_equal(skg_typeorder_event(t, &pfirst, p, SKG_COMMIT, NULL, 0, false), 0);
	assert_int_equal(skg_typeorder_event(t, &ptag, tag, SKG_TAG, &tl, 1, false), 0);
	assert_int_equal(skg_typeorder_resolve(t), 0);
	const struct skg_typeorder_fate *ft = skg_typeorder_fate(t, tag);
	assert_non_null(ft);
	assert_int_equal(ft->kind, SKG_TO_TAG_PTR);
	skg_typeorder_fate_lines(ft, lines, sizeof(lines));
	assert_string_equal(lines,
	                    "error: object 9999999999999999999999999999999999999999 is a commit, not a blob\n"
	                    "error: bad tag pointer to 9999999999999999999999999999999999999999 in "
	                    "dddddddddddddddddddddddddddddddddddddddd");
	assert_int_equal(skg_typeorder_type(t, x), 0); /* no event on it */
	skg_typeorder_free(t);
}

/* Git 2.53+'s ref snapshot (skg_read_pos.tip): tag 0xdd at a ref names 0x99 a commit; 0x99 is a
 * blob, read (loose) before the tag. In the object check's order alone the blob decides and the
 * tag's parse fails; with the snapshot's parse of the tag first, the tag decides and the blob is no
 * object to git. A tree the snapshot parsed (0x11, naming 0x99 a tree) looks its entries up only
 * when the object check reads it (at 0xee/, last): its entry fails (a tree has no fate). */
static void test_snapshot_parses_first(void **state)
{
	(void)state;
	uint8_t p[SKG_RAWSZ], tag[SKG_RAWSZ], tree[SKG_RAWSZ];
	mkid(p, 0x99);
	mkid(tag, 0xdd);
	mkid(tree, 0x11);
	struct skg_link tl, el;
	link_to(&tl, 0x99, SKG_COMMIT);
	link_to(&el, 0x99, SKG_TREE);
	for (int snapshot = 0; snapshot <= 1; snapshot++) {
		struct skg_typeorder *t = skg_typeorder_new(p, 1, SKG_RAWSZ);
		assert_non_null(t);
		struct skg_read_pos pblob = loose_at(0x99, 0), ptag = loose_at(0xdd, 0),
		                    ptree = loose_at(0xee, 0);
		struct skg_read_pos tip_tree = {0, 0, 0, 1, 0}, tip_tag = {0, 0, 0, 2, 0};
		assert_int_equal(skg_typeorder_event(t, &pblob, p, SKG_BLOB, NULL, 0, false), 0);
		assert_int_equal(skg_typeorder_event(t, &ptag, tag, SKG_TAG, &tl, 1, false), 0);
		assert_int_equal(skg_typeorder_event(t, &ptree, tree, SKG_TREE, &el, 1, false), 0);
		if (snapshot) {
			assert_int_equal(skg_typeorder_event(t, &tip_tag, tag, SKG_TAG, &tl, 1, false), 0);
			assert_int_equal(skg_typeorder_event(t, &tip_tree, tree, SKG_TREE, NULL, 0, false),
			                 0);
		}
		assert_int_equal(skg_typeorder_resolve(t), 0);
		assert_int_equal(skg_typeorder_type(t, p), snapshot ? SKG_COMMIT : SKG_BLOB);
		const struct skg_typeorder_fate *fb = skg_typeorder_fate(t, p);
		const struct skg_typeorder_fate *ft = skg_typeorder_fate(t, tag);
		char lines[256];
		if (snapshot) {
			assert_non_null(fb);
			assert_int_equal(fb->kind, SKG_TO_PARSE);
			assert_int_equal(fb->tau, SKG_COMMIT);
			skg_typeorder_fate_lines(fb, lines, sizeof(lines));
			assert_string_equal(
			    lines,
			    "error: object 9999999999999999999999999999999999999999 is a commit, not a blob");
			assert_null(ft);
		} else {
			assert_null(fb);
			assert_non_null(ft);
			assert_int_equal(ft->kind, SKG_TO_TAG_PTR);
			assert_int_equal(ft->tau, SKG_BLOB);
		}
		assert_null(skg_typeorder_fate(t, tree));
		skg_typeorder_free(t);
	}
	/* the tree parsed by the snapshot and read (0x11) before the blob: its entry decides there */
	struct skg_typeorder *t = skg_typeorder_new(p, 1, SKG_RAWSZ);
	assert_non_null(t);
	struct skg_read_pos pblob = loose_at(0x99, 0), ptree = loose_at(0x11, 0), tip_tree = {0, 0, 0, 1, 0};
	assert_int_equal(skg_typeorder_event(t, &tip_tree, tree, SKG_TREE, NULL, 0, false), 0);
	assert_int_equal(skg_typeorder_event(t, &pblob, p, SKG_BLOB, NULL, 0, false), 0);
	assert_int_equal(skg_typeorder_event(t, &ptree, tree, SKG_TREE, &el, 1, false), 0);
	assert_int_equal(skg_typeorder_resolve(t), 0);
	assert_int_equal(skg_typeorder_type(t, p), SKG_TREE);
	const struct skg_typeorder_fate *fb = skg_typeorder_fate(t, p);
	assert_non_null(fb);
	assert_int_equal(fb->kind, SKG_TO_PARSE);
	skg_typeorder_free(t);
}

/* The set-up's lookup of a shallow commit (a link from no object, setup 1) happens at git's first
 * parse of a commit: a tag of that ID read after it is no object to git; read before it, the tag
 * keeps its type; with no commit parsed the lookup never happens. */
static void test_setup_at_first_commit(void **state)
{
	(void)state;
	uint8_t p[SKG_RAWSZ], none[SKG_RAWSZ] = {0};
	mkid(p, 0x55);
	struct skg_link sl;
	link_to(&sl, 0x55, SKG_COMMIT);
	for (int where = 0; where < 3; where++) { /* first commit before the tag, after it, none */
		struct skg_typeorder *t = skg_typeorder_new(p, 1, SKG_RAWSZ);
		assert_non_null(t);
		struct skg_read_pos ptag = loose_at(0x55, 0), setup = {0, 0, 0, 0, 1};
		struct skg_read_pos pcommit = where == 0 ? loose_at(0x01, 0) : loose_at(0xff, 0);
		assert_int_equal(skg_typeorder_event(t, &ptag, p, SKG_TAG, NULL, 0, false), 0);
		assert_int_equal(skg_typeorder_event(t, &setup, none, SKG_COMMIT, &sl, 1, false), 0);
		if (where < 2) {
			skg_typeorder_commit(t, &pcommit);
		}
		assert_int_equal(skg_typeorder_resolve(t), 0);
		const struct skg_typeorder_fate *f = skg_typeorder_fate(t, p);
		if (where == 0) {
			assert_int_equal(skg_typeorder_type(t, p), SKG_COMMIT);
			assert_parse_fate(
			    f, SKG_COMMIT,
			    "error: object 5555555555555555555555555555555555555555 is a commit, not a tag");
		} else {
			assert_int_equal(skg_typeorder_type(t, p), SKG_TAG);
			assert_null(f);
		}
		skg_typeorder_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_first_event_decides),
	    cmocka_unit_test(test_commit_stops_at_link),
	    cmocka_unit_test(test_snapshot_parses_first),
	    cmocka_unit_test(test_setup_at_first_commit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
