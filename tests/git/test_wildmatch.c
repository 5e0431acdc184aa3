/*
 * test_wildmatch.c - skg_wildmatch (src/git/wildmatch.c) against the expectations of git's own test
 * t/t3070-wildmatch.sh (git 2.39 to 2.55 alike: its `match` lines, the results of test-tool
 * wildmatch), with and without SKG_WM_PATHNAME and SKG_WM_CASEFOLD: `wildmatch` there is
 * WM_PATHNAME, `iwildmatch` WM_PATHNAME | WM_CASEFOLD, `pathmatch` no flag, `ipathmatch` WM_CASEFOLD.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "wildmatch.h"

static const struct {
	const char *pattern, *text;
	int glob, iglob, path, ipath; /* 1: matches */
} vectors[] = {
    {"foo", "foo", 1, 1, 1, 1},
    {"bar", "foo", 0, 0, 0, 0},
    {"", "", 1, 1, 1, 1},
    {"???", "foo", 1, 1, 1, 1},
    {"??", "foo", 0, 0, 0, 0},
    {"*", "foo", 1, 1, 1, 1},
    {"f*", "foo", 1, 1, 1, 1},
    {"*f", "foo", 0, 0, 0, 0},
    {"*foo*", "foo", 1, 1, 1, 1},
    {"*ob*a*r*", "foobar", 1, 1, 1, 1},
    {"*ab", "aaaaaaabababab", 1, 1, 1, 1},
    {"foo\\*", "foo*", 1, 1, 1, 1},
    {"foo\\*bar", "foobar", 0, 0, 0, 0},
    {"f\\\\oo", "f\\oo", 1, 1, 1, 1},
    {"*[al]?", "ball", 1, 1, 1, 1},
    {"[ten]", "ten", 0, 0, 0, 0},
    {"**[!te]", "ten", 1, 1, 1, 1},
    {"**[!ten]", "ten", 0, 0, 0, 0},
    {"t[a-g]n", "ten", 1, 1, 1, 1},
    {"t[!a-g]n", "ten", 0, 0, 0, 0},
    {"t[!a-g]n", "ton", 1, 1, 1, 1},
    {"t[^a-g]n", "ton", 1, 1, 1, 1},
    {"a[]]b", "a]b", 1, 1, 1, 1},
    {"a[]-]b", "a-b", 1, 1, 1, 1},
    {"a[]-]b", "a]b", 1, 1, 1, 1},
    {"a[]-]b", "aab", 0, 0, 0, 0},
    {"a[]a-]b", "aab", 1, 1, 1, 1},
    {"]", "]", 1, 1, 1, 1},
    {"foo*bar", "foo/baz/bar", 0, 0, 1, 1},
    {"foo**bar", "foo/baz/bar", 0, 0, 1, 1},
    {"foo**bar", "foobazbar", 1, 1, 1, 1},
    {"foo/**/bar", "foo/baz/bar", 1, 1, 1, 1},
    {"foo/**/**/bar", "foo/baz/bar", 1, 1, 0, 0},
    {"foo/**/bar", "foo/b/a/z/bar", 1, 1, 1, 1},
    {"foo/**/**/bar", "foo/b/a/z/bar", 1, 1, 1, 1},
    {"foo/**/bar", "foo/bar", 1, 1, 0, 0},
    {"foo/**/**/bar", "foo/bar", 1, 1, 0, 0},
    {"foo?bar", "foo/bar", 0, 0, 1, 1},
    {"foo[/]bar", "foo/bar", 0, 0, 1, 1},
    {"foo[^a-z]bar", "foo/bar", 0, 0, 1, 1},
    {"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo/bar", 0, 0, 1, 1},
    {"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", 1, 1, 1, 1},
    {"**/foo", "foo", 1, 1, 0, 0},
    {"**/foo", "XXX/foo", 1, 1, 1, 1},
    {"**/foo", "bar/baz/foo", 1, 1, 1, 1},
    {"*/foo", "bar/baz/foo", 0, 0, 1, 1},
    {"**/bar*", "foo/bar/baz", 0, 0, 1, 1},
    {"**/bar/*", "deep/foo/bar/baz", 1, 1, 1, 1},
    {"**/bar/*", "deep/foo/bar/baz/", 0, 0, 1, 1},
    {"**/bar/**", "deep/foo/bar/baz/", 1, 1, 1, 1},
    {"**/bar/*", "deep/foo/bar", 0, 0, 0, 0},
    {"**/bar/**", "deep/foo/bar/", 1, 1, 1, 1},
    {"**/bar**", "foo/bar/baz", 0, 0, 1, 1},
    {"*/bar/**", "foo/bar/baz/x", 1, 1, 1, 1},
    {"*/bar/**", "deep/foo/bar/baz/x", 0, 0, 1, 1},
    {"**/bar/*/*", "deep/foo/bar/baz/x", 1, 1, 1, 1},
    {"a[c-c]st", "acrt", 0, 0, 0, 0},
    {"a[c-c]rt", "acrt", 1, 1, 1, 1},
    {"[!]-]", "]", 0, 0, 0, 0},
    {"[!]-]", "a", 1, 1, 1, 1},
    {"\\", "", 0, 0, 0, 0},
    {"\\", "\\", 0, 0, 0, 0},
    {"*/\\", "XXX/\\", 0, 0, 0, 0},
    {"*/\\\\", "XXX/\\", 1, 1, 1, 1},
    {"foo", "foo", 1, 1, 1, 1},
    {"@foo", "@foo", 1, 1, 1, 1},
    {"@foo", "foo", 0, 0, 0, 0},
    {"\\[ab]", "[ab]", 1, 1, 1, 1},
    {"[[]ab]", "[ab]", 1, 1, 1, 1},
    {"[[:]ab]", "[ab]", 1, 1, 1, 1},
    {"[[::]ab]", "[ab]", 0, 0, 0, 0},
    {"[[:digit]ab]", "[ab]", 1, 1, 1, 1},
    {"[\\[:]ab]", "[ab]", 1, 1, 1, 1},
    {"\\??\\?b", "?a?b", 1, 1, 1, 1},
    {"\\a\\b\\c", "abc", 1, 1, 1, 1},
    {"", "foo", 0, 0, 0, 0},
    {"**/t[o]", "foo/bar/baz/to", 1, 1, 1, 1},
    {"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", 1, 1, 1, 1},
    {"[[:digit:][:upper:][:space:]]", "a", 0, 1, 0, 1},
    {"[[:digit:][:upper:][:space:]]", "A", 1, 1, 1, 1},
    {"[[:digit:][:upper:][:space:]]", "1", 1, 1, 1, 1},
    {"[[:digit:][:upper:][:spaci:]]", "1", 0, 0, 0, 0},
    {"[[:digit:][:upper:][:space:]]", " ", 1, 1, 1, 1},
    {"[[:digit:][:upper:][:space:]]", ".", 0, 0, 0, 0},
    {"[[:digit:][:punct:][:space:]]", ".", 1, 1, 1, 1},
    {"[[:xdigit:]]", "5", 1, 1, 1, 1},
    {"[[:xdigit:]]", "f", 1, 1, 1, 1},
    {"[[:xdigit:]]", "D", 1, 1, 1, 1},
    {"[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:upper:][:"
     "xdigit:]]",
     "_", 1, 1, 1, 1},
    {"[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]", ".", 1, 1, 1,
     1},
    {"[a-c[:digit:]x-z]", "5", 1, 1, 1, 1},
    {"[a-c[:digit:]x-z]", "b", 1, 1, 1, 1},
    {"[a-c[:digit:]x-z]", "y", 1, 1, 1, 1},
    {"[a-c[:digit:]x-z]", "q", 0, 0, 0, 0},
    {"[\\\\-^]", "]", 1, 1, 1, 1},
    {"[\\\\-^]", "[", 0, 0, 0, 0},
    {"[\\-_]", "-", 1, 1, 1, 1},
    {"[\\]]", "]", 1, 1, 1, 1},
    {"[\\]]", "\\]", 0, 0, 0, 0},
    {"[\\]]", "\\", 0, 0, 0, 0},
    {"a[]b", "ab", 0, 0, 0, 0},
    {"a[]b", "a[]b", 0, 0, 0, 0},
    {"ab[", "ab[", 0, 0, 0, 0},
    {"[!", "ab", 0, 0, 0, 0},
    {"[-", "ab", 0, 0, 0, 0},
    {"[-]", "-", 1, 1, 1, 1},
    {"[a-", "-", 0, 0, 0, 0},
    {"[!a-", "-", 0, 0, 0, 0},
    {"[--A]", "-", 1, 1, 1, 1},
    {"[--A]", "5", 1, 1, 1, 1},
    {"[ --]", " ", 1, 1, 1, 1},
    {"[ --]", "$", 1, 1, 1, 1},
    {"[ --]", "-", 1, 1, 1, 1},
    {"[ --]", "0", 0, 0, 0, 0},
    {"[---]", "-", 1, 1, 1, 1},
    {"[------]", "-", 1, 1, 1, 1},
    {"[a-e-n]", "j", 0, 0, 0, 0},
    {"[a-e-n]", "-", 1, 1, 1, 1},
    {"[!------]", "a", 1, 1, 1, 1},
    {"[]-a]", "[", 0, 0, 0, 0},
    {"[]-a]", "^", 1, 1, 1, 1},
    {"[!]-a]", "^", 0, 0, 0, 0},
    {"[!]-a]", "[", 1, 1, 1, 1},
    {"[a^bc]", "^", 1, 1, 1, 1},
    {"[a-]b]", "-b]", 1, 1, 1, 1},
    {"[\\]", "\\", 0, 0, 0, 0},
    {"[\\\\]", "\\", 1, 1, 1, 1},
    {"[!\\\\]", "\\", 0, 0, 0, 0},
    {"[A-\\\\]", "G", 1, 1, 1, 1},
    {"b*a", "aaabbb", 0, 0, 0, 0},
    {"*ba*", "aabcaa", 0, 0, 0, 0},
    {"[,]", ",", 1, 1, 1, 1},
    {"[\\\\,]", ",", 1, 1, 1, 1},
    {"[\\\\,]", "\\", 1, 1, 1, 1},
    {"[,-.]", "-", 1, 1, 1, 1},
    {"[,-.]", "+", 0, 0, 0, 0},
    {"[,-.]", "-.]", 0, 0, 0, 0},
    {"[\\1-\\3]", "2", 1, 1, 1, 1},
    {"[\\1-\\3]", "3", 1, 1, 1, 1},
    {"[\\1-\\3]", "4", 0, 0, 0, 0},
    {"[[-\\]]", "\\", 1, 1, 1, 1},
    {"[[-\\]]", "[", 1, 1, 1, 1},
    {"[[-\\]]", "]", 1, 1, 1, 1},
    {"[[-\\]]", "-", 0, 0, 0, 0},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", 1, 1, 1,
     1},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", 0, 0, 0,
     0},
    {"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1", 0, 0, 0,
     0},
    {"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", 1, 1,
     1, 1},
    {"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", 0, 0,
     0, 0},
    {"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", 1, 1, 1, 1},
    {"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", 0, 0, 0, 0},
    {"*/*/*", "foo", 0, 0, 0, 0},
    {"*/*/*", "foo/bar", 0, 0, 0, 0},
    {"*/*/*", "foo/bba/arr", 1, 1, 1, 1},
    {"*/*/*", "foo/bb/aa/rr", 0, 0, 1, 1},
    {"**/**/**", "foo/bb/aa/rr", 1, 1, 1, 1},
    {"*X*i", "abcXdefXghi", 1, 1, 1, 1},
    {"*X*i", "ab/cXd/efXg/hi", 0, 0, 1, 1},
    {"*/*X*/*/*i", "ab/cXd/efXg/hi", 1, 1, 1, 1},
    {"**/*X*/**/*i", "ab/cXd/efXg/hi", 1, 1, 1, 1},
    {"fo", "foo", 0, 0, 0, 0},
    {"foo/bar", "foo/bar", 1, 1, 1, 1},
    {"foo/*", "foo/bar", 1, 1, 1, 1},
    {"foo/*", "foo/bba/arr", 0, 0, 1, 1},
    {"foo/**", "foo/bba/arr", 1, 1, 1, 1},
    {"foo*", "foo/bba/arr", 0, 0, 1, 1},
    {"foo**", "foo/bba/arr", 0, 0, 1, 1},
    {"foo/*arr", "foo/bba/arr", 0, 0, 1, 1},
    {"foo/**arr", "foo/bba/arr", 0, 0, 1, 1},
    {"foo/*z", "foo/bba/arr", 0, 0, 0, 0},
    {"foo/**z", "foo/bba/arr", 0, 0, 0, 0},
    {"foo?bar", "foo/bar", 0, 0, 1, 1},
    {"foo[/]bar", "foo/bar", 0, 0, 1, 1},
    {"foo[^a-z]bar", "foo/bar", 0, 0, 1, 1},
    {"*Xg*i", "ab/cXd/efXg/hi", 0, 0, 1, 1},
    {"[A-Z]", "a", 0, 1, 0, 1},
    {"[A-Z]", "A", 1, 1, 1, 1},
    {"[a-z]", "A", 0, 1, 0, 1},
    {"[a-z]", "a", 1, 1, 1, 1},
    {"[[:upper:]]", "a", 0, 1, 0, 1},
    {"[[:upper:]]", "A", 1, 1, 1, 1},
    {"[[:lower:]]", "A", 0, 1, 0, 1},
    {"[[:lower:]]", "a", 1, 1, 1, 1},
    {"[B-Za]", "A", 0, 1, 0, 1},
    {"[B-Za]", "a", 1, 1, 1, 1},
    {"[B-a]", "A", 0, 1, 0, 1},
    {"[B-a]", "a", 1, 1, 1, 1},
    {"[Z-y]", "z", 0, 1, 0, 1},
    {"[Z-y]", "Z", 1, 1, 1, 1},
};

static void test_t3070(void **state)
{
	static const unsigned flags[4] = {SKG_WM_PATHNAME, SKG_WM_PATHNAME | SKG_WM_CASEFOLD, 0,
	                                  SKG_WM_CASEFOLD};
	int failed = 0;
	(void)state;
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const int want[4] = {vectors[i].glob, vectors[i].iglob, vectors[i].path, vectors[i].ipath};
		for (int f = 0; f < 4; f++) {
			int got = skg_wildmatch(vectors[i].pattern, vectors[i].text, flags[f]);
			if (got != want[f]) {
				print_error("pattern '%s' text '%s' flags %u: %s, git: %s\n",
				            vectors[i].pattern, vectors[i].text, flags[f],
				            got ? "match" : "no match", want[f] ? "match" : "no match");
				failed++;
			}
		}
	}
	assert_int_equal(failed, 0);
	assert_true(sizeof(vectors) / sizeof(vectors[0]) > 180);
}

/* The includeIf forms of the config (gitdir: patterns as git prepares them, onbranch: names). */
static void test_include_conditions(void **state)
{
	(void)state;
	assert_true(skg_wildmatch("**/work/**", "/home/u/work/repo/.git", SKG_WM_PATHNAME));
	assert_false(skg_wildmatch("**/work/**", "/home/u/homework/repo/.git", SKG_WM_PATHNAME));
	assert_true(
	    skg_wildmatch("/home/u/Work/**", "/home/u/work/x/.git", SKG_WM_PATHNAME | SKG_WM_CASEFOLD));
	assert_false(skg_wildmatch("/home/u/Work/**", "/home/u/work/x/.git", SKG_WM_PATHNAME));
	assert_true(skg_wildmatch("**/r/.git", "/r/.git", SKG_WM_PATHNAME));
	assert_true(skg_wildmatch("topic/**", "topic/a/b", SKG_WM_PATHNAME));
	assert_false(skg_wildmatch("topic/*", "topic/a/b", SKG_WM_PATHNAME));
	assert_true(skg_wildmatch("main", "main", SKG_WM_PATHNAME));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_t3070),
	    cmocka_unit_test(test_include_conditions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
