#!/usr/bin/env bash
# test_hash_object.sh - `sha1kit hash-object` against `git hash-object`.
#
# Usage: test_hash_object.sh PATH/TO/sha1kit
#
#  1. every regular file under /usr/include, as blobs, in batches of many files per invocation;
#  2. empty input (empty file, /dev/null, empty --stdin), standard input from a pipe and from a
#     file, --stdin before the FILEs, a pipe larger than the in-memory limit (spilled to a file);
#  3. all four types: every object of a small repository made here (blobs, trees, commits with and
#     without parents, annotated tags of a commit, a tree, a blob and a tag), dumped with
#     `git cat-file` and hashed back with -t TYPE: the ID must be the object's own;
#  4. --literally with any type and with content that fails the format check;
#  5. the format check of tree, commit and tag content on hand-made edge cases: each has the outcome
#     of Git 2.39 written down (compared with git too when the installed git is 2.39.x; newer Git
#     checks with fsck and is stricter);
#  6. errors: a missing file, a directory, an invalid type, --stdin twice; "-" as a file name.
#  7. every kernel of this CPU, chosen with SHA1KIT_CPU masks (cli/cpu_masks.sh): under each,
#     `sha1kit --version` reports the kernels the mask leaves and the IDs of 1., 3. and of standard
#     input are git's.
# Git runs outside any repository, with no configuration, and with --no-filters (sha1kit gets the
# same arguments). A collision attack cannot be tested here: every known colliding file is aligned
# for its own prefix, and the object header "TYPE SIZE\0" changes that prefix.
#
# SK_ARG_MAX (optional): the longest command line sha1kit may be given, for the batches of 1. and 7.
# (Windows: 32767 characters; the Wine build sets it, tests/compat/tests.cmake).
# SK_FILES_EVERY=N (optional): 1. and 7. hash every Nth file of /usr/include (in sorted order, so
# files of every size and directory), not all of them. The Wine and sanitizer builds set 8
# (tests/compat/tests.cmake): under Wine each file opened costs wineserver work (a pass over all
# 8,000 files took 22 s of CPU, six passes most of the test's 150 s); the native pass hashes all.
# Prints one line per failure and "N passed, M failed"; exits 1 on any failure.
set -u

if [ $# -ne 1 ]; then
	echo "usage: $0 PATH/TO/sha1kit" >&2
	exit 2
fi
SK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
export LC_ALL=C
# shellcheck source=../cli/cpu_masks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../cli/cpu_masks.sh"

PASS=0
FAIL=0
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-hash-object.XXXXXX") || exit 1
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$T"' EXIT

# The reference git: SHA1KIT_REF_GIT (tests/testlib.sh), the installed git by default; the
# repository of 3. is made by the installed git.
SK_REF_GIT=${SHA1KIT_REF_GIT:-git}
if ! command -v git >/dev/null || ! command -v "$SK_REF_GIT" >/dev/null; then
	echo "FAIL: git not found (apt-get install git)"
	echo "0 passed, 1 failed"
	exit 1
fi
# No configuration, no repository above the work directory.
export HOME=$T GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_CEILING_DIRECTORIES=$T
W=$T/work
mkdir "$W"
cd "$W" || exit 1
GIT_VERSION=$("$SK_REF_GIT" version | awk '{print $3}')
case "$GIT_VERSION" in
2.39.*) SAME_GIT=1 ;;
*) SAME_GIT=0 ;;
esac
echo "git $GIT_VERSION ($SK_REF_GIT)$([ $SAME_GIT = 1 ] || echo ' (format-check edge cases compared with the recorded Git 2.39 outcomes only)')"

pass() { PASS=$((PASS + 1)); }
fail() {
	FAIL=$((FAIL + 1))
	echo "FAIL: $*"
}

# compare NAME STDIN_FILE ARGS...: git hash-object --no-filters ARGS and sha1kit hash-object
# --no-filters ARGS give the same stdout and both succeed, or both fail (sha1kit with a message).
compare() {
	local name=$1 in=$2
	shift 2
	"$SK_REF_GIT" hash-object --no-filters "$@" <"$in" >"$T/g.out" 2>"$T/g.err"
	local gs=$?
	"$SK" hash-object --no-filters "$@" <"$in" >"$T/s.out" 2>"$T/s.err"
	local ss=$?
	COMPARE_SS=$ss
	if [ $gs = 0 ] && [ $ss = 0 ] && cmp -s "$T/g.out" "$T/s.out" && [ ! -s "$T/s.err" ]; then
		pass
	elif [ $gs != 0 ] && [ $ss != 0 ] && cmp -s "$T/g.out" "$T/s.out" && [ -s "$T/s.err" ]; then
		pass
	else
		fail "$name: git status $gs, sha1kit status $ss"
		diff -u "$T/g.out" "$T/s.out" | head -20 | sed 's/^/    /'
		sed 's/^/    git: /' "$T/g.err" | head -5
		sed 's/^/    sha1kit: /' "$T/s.err" | head -5
	fi
}

# expect NAME OUTCOME TYPE FILE: sha1kit hash-object -t TYPE FILE succeeds (ok) or fails (bad) as
# Git 2.39 does; with git 2.39 installed, git is asked too (compare, whose run of sha1kit is the one
# checked here: one process start less per case, which counts under Wine).
expect() {
	local name=$1 want=$2 type=$3 file=$4 ss
	if [ $SAME_GIT = 1 ]; then
		compare "$name (-t $type, against git)" /dev/null -t "$type" "$file"
		ss=$COMPARE_SS
	else
		"$SK" hash-object -t "$type" "$file" >"$T/s.out" 2>"$T/s.err"
		ss=$?
	fi
	local got=bad
	[ $ss = 0 ] && got=ok
	if [ "$got" = "$want" ] && { [ $ss != 0 ] || [ ! -s "$T/s.err" ]; }; then
		pass
	else
		fail "$name: -t $type: expected $want, sha1kit status $ss"
		sed 's/^/    sha1kit: /' "$T/s.err" | head -5
	fi
}

# ---- 1. /usr/include -----------------------------------------------------------------------------
find /usr/include -type f -readable -print0 2>/dev/null | sort -z >"$T/files0"
nall=$(tr -cd '\0' <"$T/files0" | wc -c)
every=${SK_FILES_EVERY:-1}
if [ "$every" -gt 1 ]; then
	awk -v n="$every" 'BEGIN { RS = "\0"; ORS = "\0" } NR % n == 1' "$T/files0" >"$T/files0.every"
	mv "$T/files0.every" "$T/files0"
fi
nfiles=$(tr -cd '\0' <"$T/files0" | wc -c)
share="$nfiles files"
[ "$every" -gt 1 ] && share="$nfiles of $nall files (every ${every}th, SK_FILES_EVERY; the native pass hashes all)"
xargs -0 -n 2000 "$SK_REF_GIT" hash-object --no-filters <"$T/files0" >"$T/g.ids" 2>"$T/g.err"
gs=$?
xargs -0 -n 2000 ${SK_ARG_MAX:+-s "$SK_ARG_MAX"} "$SK" hash-object <"$T/files0" >"$T/s.ids" 2>"$T/s.err"
ss=$?
if [ "$nfiles" -gt 100 ] && [ $gs = 0 ] && [ $ss = 0 ] && cmp -s "$T/g.ids" "$T/s.ids" &&
	[ "$(wc -l <"$T/s.ids")" -eq "$nfiles" ]; then
	pass
	echo "/usr/include: $share, identical IDs"
else
	fail "/usr/include ($nfiles files): git status $gs, sha1kit status $ss"
	diff "$T/g.ids" "$T/s.ids" | head -10 | sed 's/^/    /'
	head -5 "$T/s.err"
fi

# ---- 2. empty input, standard input --------------------------------------------------------------
: >empty
printf 'hello\n' >hello
head -c 100000 /dev/urandom >random.bin
compare "empty file" /dev/null empty
compare "/dev/null" /dev/null /dev/null
compare "empty --stdin" /dev/null --stdin
compare "empty file -t tree" /dev/null -t tree empty
compare "--stdin from a file" random.bin --stdin
compare "--stdin from a file, then files" hello --stdin random.bin empty hello
compare "files then --stdin (stdin is still first)" hello random.bin --stdin
compare "no arguments" hello
compare "-- before a file" /dev/null -- hello
for t in blob tree commit tag; do
	[ $t = blob ] && continue
	compare "empty --stdin -t $t --literally" /dev/null -t $t --literally --stdin
done
g=$(printf 'pipe data\n' | "$SK_REF_GIT" hash-object --stdin)
s=$(printf 'pipe data\n' | "$SK" hash-object --stdin)
if [ -n "$g" ] && [ "$g" = "$s" ]; then pass; else fail "--stdin from a pipe: git '$g', sha1kit '$s'"; fi
g=$(: | "$SK_REF_GIT" hash-object --stdin)
s=$(: | "$SK" hash-object --stdin)
if [ -n "$g" ] && [ "$g" = "$s" ]; then pass; else fail "empty pipe: git '$g', sha1kit '$s'"; fi
g=$(head -c 70000000 /dev/zero | "$SK_REF_GIT" hash-object --stdin)
s=$(head -c 70000000 /dev/zero | "$SK" hash-object --stdin)
if [ -n "$g" ] && [ "$g" = "$s" ]; then pass; else fail "70 MB pipe (spilled): git '$g', sha1kit '$s'"; fi
g=$(cat random.bin | "$SK_REF_GIT" hash-object -t blob --stdin --literally)
s=$(cat random.bin | "$SK" hash-object -t blob --stdin --literally)
if [ -n "$g" ] && [ "$g" = "$s" ]; then pass; else fail "pipe --literally: git '$g', sha1kit '$s'"; fi

# ---- 3. all four types: the objects of a repository ----------------------------------------------
R=$T/repo
git init -q "$R"
(
	cd "$R" || exit 1
	export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.org GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.org
	export GIT_AUTHOR_DATE='2020-01-01T00:00:00Z' GIT_COMMITTER_DATE='2020-01-01T00:00:00Z'
	mkdir -p dir/sub
	printf 'one\n' >a
	printf 'two\n' >dir/b
	cp "$W/random.bin" dir/sub/r.bin
	ln -s a link
	chmod +x dir/b
	git add -A && git commit -q -m first
	printf 'three\n' >>a
	git commit -q -am second
	git checkout -q -b side HEAD~1
	printf 'side\n' >c
	git add c && git commit -q -m side
	git checkout -q -
	git merge -q --no-edit side
	git tag -a -m 'a tag of a commit' v1
	git tag -a -m 'a tag of a tree' t-tree 'HEAD^{tree}'
	git tag -a -m 'a tag of a blob' t-blob HEAD:a
	git tag -a -m 'a tag of a tag' t-tag v1
) >/dev/null 2>&1
mkdir "$T/objects"
n=0
while read -r id type; do
	git -C "$R" cat-file "$type" "$id" >"$T/objects/$id"
	g=$("$SK_REF_GIT" hash-object --no-filters -t "$type" "$T/objects/$id" 2>&1)
	if [ "$g" = "$id" ]; then
		pass
	else
		fail "$type $id: git '$g'"
	fi
	n=$((n + 1))
	echo "$type" >>"$T/types"
	echo "$id" >>"$T/ids-$type"
done < <(git -C "$R" cat-file --batch-all-objects --batch-check='%(objectname) %(objecttype)')
echo "repository objects: $n ($(sort "$T/types" | uniq -c | awk '{printf "%s %s ", $1, $2}'))"
# sha1kit: the objects of each type in one invocation (a process start less per object under Wine)
for t in blob tree commit tag; do
	if ! grep -qx "$t" "$T/types"; then
		fail "no $t object in the test repository"
		continue
	fi
	mapfile -t objs < <(sed "s|^|$T/objects/|" "$T/ids-$t")
	"$SK" hash-object -t "$t" "${objs[@]}" >"$T/s.ids" 2>"$T/s.err"
	ss=$?
	if [ $ss = 0 ] && cmp -s "$T/ids-$t" "$T/s.ids" && [ ! -s "$T/s.err" ]; then
		pass
	else
		fail "the ${t}s of the repository: sha1kit status $ss, not their IDs"
		diff "$T/ids-$t" "$T/s.ids" | head -5 | sed 's/^/    /'
		head -3 "$T/s.err"
	fi
done
# One invocation, many objects of one type, and a type given to the wrong content.
mapfile -t trees < <(git -C "$R" cat-file --batch-all-objects --batch-check='%(objectname) %(objecttype)' |
	awk '$2 == "tree" {print "'"$T"'/objects/" $1}')
compare "all trees in one invocation" /dev/null -t tree "${trees[@]}"
compare "a blob's content as a tree" /dev/null -t tree hello
compare "a tree as a commit" /dev/null -t commit "${trees[0]}"

# ---- 4. --literally ------------------------------------------------------------------------------
compare "--literally -t foo" /dev/null --literally -t foo hello
compare "--literally -t tree on garbage" /dev/null --literally -t tree hello random.bin
compare "--literally -t commit on garbage" /dev/null --literally -t commit random.bin
compare "--literally -t tag --stdin" hello --literally -t tag --stdin
compare "--literally -t blob" /dev/null --literally random.bin

# ---- 5. format check edge cases (outcomes of Git 2.39) ------------------------------------------
H=0123456789abcdef0123456789abcdef01234567 # the tree of the commits below
P=89abcdef0123456789abcdef0123456789abcdef # their parents
RAW=$(printf '\\x%02x' $(seq 1 20))
mk() { printf "$2" >"$T/$1"; }
# trees: "MODE NAME\0" + 20 bytes
mk tree-ok "100644 a\\0$RAW"
mk tree-two "100644 a\\0${RAW}40000 dir\\0$RAW"
mk tree-oddmode "7 x\\0$RAW"
mk tree-emptyname "100644 \\0$RAW"
mk tree-leadspace " 100644 a\\0$RAW"
mk tree-badmode "100648 a\\0$RAW"
mk tree-nomode "a\\0$RAW"
mk tree-short "100644 a\\0$(printf '\\x%02x' $(seq 1 19))"
mk tree-extra "100644 a\\0${RAW}x"
mk tree-trailing-entry "100644 a\\0${RAW}100644 b\\0"
mk tree-nonul "100644 abcdefghijklmnopqrstuvwxyz"
mk tree-23 "1 a\\0$RAW"
expect "tree: one entry" ok tree "$T/tree-ok"
expect "tree: two entries" ok tree "$T/tree-two"
expect "tree: mode 7" ok tree "$T/tree-oddmode"
expect "tree: empty name" bad tree "$T/tree-emptyname"
expect "tree: leading space" bad tree "$T/tree-leadspace"
expect "tree: non-octal mode" bad tree "$T/tree-badmode"
expect "tree: no mode" bad tree "$T/tree-nomode"
expect "tree: 19-byte ID" bad tree "$T/tree-short"
expect "tree: a byte after the entry" bad tree "$T/tree-extra"
expect "tree: an entry without its ID" bad tree "$T/tree-trailing-entry"
expect "tree: no NUL" bad tree "$T/tree-nonul"
expect "tree: shortest entry" ok tree "$T/tree-23"
# commits: "tree ID\n" + more, "parent ID\n" lines
mk commit-ok "tree $H\nauthor A <a> 0 +0000\ncommitter C <c> 0 +0000\n\nmsg\n"
mk commit-treeonly "tree $H\n"
mk commit-tree1 "tree $H\nx"
mk commit-upper "tree ${H^^}\nx"
mk commit-badhex "tree ${H:0:39}g\nx"
mk commit-notree "tre  $H\nx"
mk commit-nonl "tree $H x"
mk commit-parent "tree $H\nparent $P\nauthor A <a> 0 +0000\n"
mk commit-parent-end "tree $H\nparent $P\n"
mk commit-parent-end1 "tree $H\nparent $P\nx"
mk commit-parent-is-tree "tree $H\nparent ${H^^}\nx"
mk commit-parent-bad "tree $H\nparent ${H:0:39}z\nauthor A <a> 0 +0000\n"
mk commit-parent-short "tree $H\nparent 0123\n"
mk commit-parent-nonl "tree $H\nparent $P author A <a> 0 +0000\n"
mk commit-2parents "tree $H\nparent $P\nparent $P\n\n"
expect "commit: ordinary" ok commit "$T/commit-ok"
expect "commit: tree line only" bad commit "$T/commit-treeonly"
expect "commit: tree line and one byte" ok commit "$T/commit-tree1"
expect "commit: upper-case ID" ok commit "$T/commit-upper"
expect "commit: bad hex" bad commit "$T/commit-badhex"
expect "commit: no tree line" bad commit "$T/commit-notree"
expect "commit: no newline after the tree" bad commit "$T/commit-nonl"
expect "commit: a parent" ok commit "$T/commit-parent"
expect "commit: ends after the parent line" bad commit "$T/commit-parent-end"
expect "commit: one byte after the parent line" ok commit "$T/commit-parent-end1"
expect "commit: the parent is the tree" bad commit "$T/commit-parent-is-tree"
expect "commit: bad parent hex" bad commit "$T/commit-parent-bad"
expect "commit: short parent line at the end" ok commit "$T/commit-parent-short"
expect "commit: parent line without newline" bad commit "$T/commit-parent-nonl"
expect "commit: two parents" ok commit "$T/commit-2parents"
# tags: "object ID\ntype T\ntag NAME\n", at least 64 bytes
mk tag-ok "object $H\ntype commit\ntag v1\ntagger T <t> 0 +0000\n\nmsg\n"
mk tag-min "object $H\ntype commit\ntag v1\n"
mk tag-short "object $H\ntype tag\ntag v\n"
mk tag-blob "object $H\ntype blob\ntag vvvvvv\n"
mk tag-unknown "object $H\ntype bleb\ntag vvvvvv\n"
mk tag-nul "object $H\ntype blob\\0xyz\ntag vvvvvv\n"
mk tag-long "object $H\ntype commit______________\ntag v1\n"
mk tag-nul19 "object $H\ntype blob\\0xxxxxxxxxxxxxx\ntag v1\n"
mk tag-nul20 "object $H\ntype blob\\0xxxxxxxxxxxxxxx\ntag v1\n"
mk tag-notag "object $H\ntype commit\ntog v1\n____"
mk tag-tagnonl "object $H\ntype commit\ntag v1_______"
mk tag-tagend "object $H\ntype commit\n____\ntag "
mk tag-badhex "object ${H:0:39}x\ntype commit\ntag v1\n"
mk tag-notype "object $H\ntipe commit\ntag v1\n"
expect "tag: ordinary" ok tag "$T/tag-ok"
expect "tag: minimal" ok tag "$T/tag-min"
expect "tag: under 64 bytes" bad tag "$T/tag-short"
expect "tag: of a blob" ok tag "$T/tag-blob"
expect "tag: unknown type" bad tag "$T/tag-unknown"
expect "tag: type up to a NUL" ok tag "$T/tag-nul"
expect "tag: unknown type of 20 bytes" bad tag "$T/tag-long"
expect "tag: type of 19 bytes, a NUL after blob" ok tag "$T/tag-nul19"
expect "tag: type of 20 bytes, a NUL after blob" bad tag "$T/tag-nul20"
expect "tag: no tag line" bad tag "$T/tag-notag"
expect "tag: no newline after the name" bad tag "$T/tag-tagnonl"
expect "tag: bad hex" bad tag "$T/tag-badhex"
expect "tag: no type line" bad tag "$T/tag-notype"

# ---- 6. errors and odd names ---------------------------------------------------------------------
compare "missing file" /dev/null hello missing-file empty
if grep -q "missing-file" "$T/s.err"; then pass; else fail "the error names the missing file"; fi
mkdir adir
compare "a directory" /dev/null adir
compare "invalid type" /dev/null -t blub hello
"$SK" hash-object --stdin --stdin </dev/null >/dev/null 2>&1
if [ $? = 1 ]; then pass; else fail "--stdin twice is a usage error"; fi
printf 'dash\n' >-
compare "a file named -" /dev/null -- -
"$SK" hash-object --help >"$T/h.out" 2>&1
if [ $? = 0 ] && grep -q -- '--literally' "$T/h.out"; then pass; else fail "hash-object --help"; fi
"$SK" help hash-object >"$T/h2.out" 2>&1
if cmp -s "$T/h.out" "$T/h2.out"; then pass; else fail "sha1kit help hash-object = hash-object --help"; fi

# ---- 7. every kernel: SHA1KIT_CPU masks ----------------------------------------------------------
git -C "$R" cat-file --batch-all-objects --batch-check='%(objectname) %(objecttype)' >"$T/all-objects"
for mask in "${SK_CPU_MASKS[@]}"; do
	m="SHA1KIT_CPU=${mask:-(unset)}"
	if sk_cpu_check "$SK" "$mask" >"$T/mask.check"; then
		pass
		echo "$m: kernels $SK_CPU_KERNELS"
	else
		fail "$m sha1kit --version: not the kernels the mask must give"
		cat "$T/mask.check"
	fi
	sk_cpu_run "$mask" xargs -0 -n 2000 ${SK_ARG_MAX:+-s "$SK_ARG_MAX"} "$SK" hash-object <"$T/files0" >"$T/m.ids" 2>"$T/m.err"
	ss=$?
	if [ $ss = 0 ] && cmp -s "$T/g.ids" "$T/m.ids" && [ ! -s "$T/m.err" ]; then
		pass
	else
		fail "$m: /usr/include ($share): status $ss, IDs differ from git's"
		diff "$T/g.ids" "$T/m.ids" | head -5 | sed 's/^/    /'
		head -3 "$T/m.err"
	fi
	for t in blob tree commit tag; do
		awk -v t=$t '$2 == t {print $1}' "$T/all-objects" >"$T/want.ids"
		mapfile -t objs < <(sed "s|^|$T/objects/|" "$T/want.ids")
		sk_cpu_run "$mask" "$SK" hash-object -t $t "${objs[@]}" >"$T/m.ids" 2>"$T/m.err"
		ss=$?
		if [ $ss = 0 ] && [ -s "$T/want.ids" ] && cmp -s "$T/want.ids" "$T/m.ids"; then
			pass
		else
			fail "$m: the ${t}s of the repository (status $ss) do not hash to their IDs"
			head -3 "$T/m.err"
		fi
	done
	g=$("$SK_REF_GIT" hash-object --stdin <random.bin)
	# shellcheck disable=SC2002 # a pipe, on purpose
	s=$(cat random.bin | sk_cpu_run "$mask" "$SK" hash-object --stdin)
	if [ -n "$g" ] && [ "$g" = "$s" ]; then pass; else fail "$m: --stdin from a pipe: git '$g', sha1kit '$s'"; fi
done
sk_cpu_run -bogus "$SK" hash-object hello >"$T/s.out" 2>"$T/s.err"
if [ $? = 1 ] && [ ! -s "$T/s.out" ] && [ "$(wc -l <"$T/s.err")" = 1 ] && grep -q "unknown feature 'bogus'" "$T/s.err"; then
	pass
else
	fail "SHA1KIT_CPU=-bogus hash-object: not exit 1 with one line on stderr: $(cat "$T/s.err")"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
