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
#  4. --literally with content that fails the format check, and an unknown type (refused, 2.50+);
#  5. the check of tree, commit and tag content on hand-made edge cases: git >= 2.40's fsck checks
#     (see there), each outcome written down from git's source, exact lines and status;
#  6. errors: a missing file, a directory, an invalid type, --stdin twice, unknown options (git's
#     fatal lines and exit status 128, usage errors 129); "-" as a file name; --stdin-paths.
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
# shellcheck source=../testlib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../testlib.sh" # same_file, the loadable builtins

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
echo "git $GIT_VERSION ($SK_REF_GIT)"

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
	if [ $gs = 0 ] && [ $ss = 0 ] && same_file "$T/g.out" "$T/s.out" && [ ! -s "$T/s.err" ]; then
		pass
	elif [ $gs != 0 ] && [ $ss != 0 ] && same_file "$T/g.out" "$T/s.out" && [ -s "$T/s.err" ]; then
		pass
	else
		fail "$name: git status $gs, sha1kit status $ss"
		diff -u "$T/g.out" "$T/s.out" | head -20 | sed 's/^/    /'
		sed 's/^/    git: /' "$T/g.err" | head -5
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
if [ "$nfiles" -gt 100 ] && [ $gs = 0 ] && [ $ss = 0 ] && same_file "$T/g.ids" "$T/s.ids" &&
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
	if [ $ss = 0 ] && same_file "$T/ids-$t" "$T/s.ids" && [ ! -s "$T/s.err" ]; then
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
# An unknown type is refused at the first object, --literally or not, as git 2.50+ refuses it
# (65a6a79b42 "hash-object: stop allowing unknown types"; builtin/hash-object.c hash_fd: 'fatal:
# invalid object type "TYPE"', 128, once the file is open): sha1kit's exact lines, and git's
# beside them when the reference is 2.50 or later (2.39 hashed any type with --literally).
unknown_type() {
	local name=$1 in=$2 want=$3
	shift 3
	"$SK" hash-object --no-filters "$@" <"$in" >"$T/s.out" 2>"$T/s.err"
	local ss=$? gs=128
	printf '%b' "$want" >"$T/want.err"
	if [ "$(printf '%s\n' 2.50 "$GIT_VERSION" | sort -V | head -1)" = 2.50 ]; then
		"$SK_REF_GIT" hash-object --no-filters "$@" <"$in" >"$T/g.out" 2>"$T/g.err"
		gs=$?
		same_file "$T/g.err" "$T/want.err" || gs="$gs (stderr: $(head -1 "$T/g.err"))"
	fi
	if [ $ss = 128 ] && [ "$gs" = 128 ] && [ ! -s "$T/s.out" ] && same_file "$T/s.err" "$T/want.err"; then
		pass
	else
		fail "$name: sha1kit status $ss, git $gs, want 128 and: $want"
		sed 's/^/    sha1kit: /' "$T/s.err" | head -3
	fi
}
unknown_type "--literally -t foo" /dev/null 'fatal: invalid object type "foo"\n' --literally -t foo hello
unknown_type "--literally -t foo --stdin" hello 'fatal: invalid object type "foo"\n' --literally -t foo --stdin
unknown_type "-t blub" /dev/null 'fatal: invalid object type "blub"\n' -t blub hello empty
compare "--literally -t tree on garbage" /dev/null --literally -t tree hello random.bin
compare "--literally -t commit on garbage" /dev/null --literally -t commit random.bin
compare "--literally -t tag --stdin" hello --literally -t tag --stdin
compare "--literally -t blob" /dev/null --literally random.bin

# ---- 5. the check of tree, commit and tag content: git >= 2.40 ---------------------------------
# Since git 2.40 (commit 69bbbe484b, "hash-object: use fsck for object checks"), hash-object runs
# fsck's checks with strict severities (object-file.c index_mem): every finding, warnings too, is
# "error: object fails fsck: <msgId>: <text>" (hash_format_check_report), then "fatal: refusing
# to create malformed object", exit 128. Git 2.39 (the installed reference) made weaker checks of
# its own; sha1kit follows 2.40+, so these outcomes are written down from git's source (fsck.c
# fsck_tree / fsck_commit / fsck_tag, the tree decoder's own "error:" line before a badTree) and
# were checked by hand against git 2.55.0: they are not compared with the installed git. An
# object that passes gets the ID `git hash-object --literally` gives it (the same in every
# version).
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
# mk'd here for 2.40+: fsck findings git 2.39's hash-object did not look for
mk tree-dotgit "100644 .git\\0$RAW"
mk tree-664 "100664 a\\0$RAW"
mk tree-zeropad "0100644 a\\0$RAW"
mk tree-null "100644 a\\0$(printf '\\x00%.0s' $(seq 1 20))"
mk tree-unsorted "100644 b\\0${RAW}100644 a\\0$RAW"
mk commit-badtz "tree $H\\nauthor A <a> 0 +01x0\\ncommitter C <c> 0 +0000\\n\\nmsg\\n"
# dates as git 2.40+ reads them (8e4309038f): blanks and tabs skipped, then a digit (checked by
# hand against Git 2.55.0; 2.39.5 took -1 as badDateOverflow and +12 as a date)
mk commit-date-minus "tree $H\\nauthor A <a> -1 +0000\\ncommitter C <c> 0 +0000\\n\\nmsg\\n"
mk commit-date-plus "tree $H\\nauthor A <a> +12 +0000\\ncommitter C <c> 0 +0000\\n\\nmsg\\n"
mk commit-date-blanks "tree $H\\nauthor A <a>  \\t12 +0000\\ncommitter C <c> 0 +0000\\n\\nmsg\\n"
mk commit-date-newline "tree $H\\nauthor A <a> \\n12 +0000\\ncommitter C <c> 0 +0000\\n\\nmsg\\n"
mk commit-date-blank-zero "tree $H\\nauthor A <a>  012 +0000\\ncommitter C <c> 0 +0000\\n\\nmsg\\n"
mk commit-nul "tree $H\\nauthor A <a> 0 +0000\\ncommitter C <c> 0 +0000\\n\\nm\\0sg\\n"
mk tag-badname "object $H\\ntype commit\\ntag a..b\\ntagger T <t> 0 +0000\\n\\nmsg\\n"
# expect40 NAME TYPE FILE LINES: sha1kit hash-object -t TYPE FILE prints the ID git gives it with
# --literally (LINES empty), or the error lines LINES ('|' between them), git's fatal line and
# exits 128 with nothing on standard output. Under Wine and the sanitizers one case in
# SHA1KIT_CASE_SHARE (tests/testlib.sh): the object checks are the same C on every platform, every
# case runs natively, and fsck_object_fuzz reads objects under ASan/UBSan.
expect40() {
	sk_share_case || return 0
	local name=$1 type=$2 file=$3 lines=$4 ss want
	"$SK" hash-object -t "$type" "$file" >"$T/s.out" 2>"$T/s.err"
	ss=$?
	if [ -z "$lines" ]; then
		want=$(git hash-object --literally -t "$type" "$file")
		if [ $ss = 0 ] && [ "$(<"$T/s.out")" = "$want" ] && [ ! -s "$T/s.err" ]; then
			pass
		else
			fail "$name: -t $type: expected ID $want, sha1kit status $ss"
			sed 's/^/    sha1kit: /' "$T/s.err" | head -5
		fi
		return
	fi
	printf '%s\nfatal: refusing to create malformed object\n' "$lines" | tr '|' '\n' >"$T/want.err"
	if [ $ss = 128 ] && [ ! -s "$T/s.out" ] && same_file "$T/want.err" "$T/s.err"; then
		pass
	else
		fail "$name: -t $type: expected status 128 and git's lines, sha1kit status $ss"
		diff "$T/want.err" "$T/s.err" | sed 's/^/    /' | head -8
	fi
}
F='error: object fails fsck:'
BT="$F badTree: cannot be parsed as a tree"
expect40 tree-ok tree "$T/tree-ok" ""
expect40 tree-two tree "$T/tree-two" ""
expect40 tree-oddmode tree "$T/tree-oddmode" "$F badFilemode: contains bad file modes"
expect40 tree-emptyname tree "$T/tree-emptyname" "error: empty filename in tree entry|$BT"
expect40 tree-leadspace tree "$T/tree-leadspace" "error: malformed mode in tree entry|$BT"
expect40 tree-badmode tree "$T/tree-badmode" "error: malformed mode in tree entry|$BT"
expect40 tree-nomode tree "$T/tree-nomode" "error: too-short tree object|$BT"
expect40 tree-short tree "$T/tree-short" "error: too-short tree object|$BT"
expect40 tree-extra tree "$T/tree-extra" "error: too-short tree object|$BT"
expect40 tree-trailing-entry tree "$T/tree-trailing-entry" "error: too-short tree object|$BT"
expect40 tree-nonul tree "$T/tree-nonul" "error: too-short tree object|$BT"
expect40 tree-23 tree "$T/tree-23" "$F badFilemode: contains bad file modes"
expect40 commit-ok commit "$T/commit-ok" ""
expect40 commit-treeonly commit "$T/commit-treeonly" "$F missingAuthor: invalid format - expected 'author' line"
expect40 commit-tree1 commit "$T/commit-tree1" "$F unterminatedHeader: unterminated header"
expect40 commit-upper commit "$T/commit-upper" "$F unterminatedHeader: unterminated header"
expect40 commit-badhex commit "$T/commit-badhex" "$F unterminatedHeader: unterminated header"
expect40 commit-notree commit "$T/commit-notree" "$F unterminatedHeader: unterminated header"
expect40 commit-nonl commit "$T/commit-nonl" "$F unterminatedHeader: unterminated header"
expect40 commit-parent commit "$T/commit-parent" "$F missingCommitter: invalid format - expected 'committer' line"
expect40 commit-parent-end commit "$T/commit-parent-end" "$F missingAuthor: invalid format - expected 'author' line"
expect40 commit-parent-end1 commit "$T/commit-parent-end1" "$F unterminatedHeader: unterminated header"
expect40 commit-parent-is-tree commit "$T/commit-parent-is-tree" "$F unterminatedHeader: unterminated header"
expect40 commit-parent-bad commit "$T/commit-parent-bad" "$F badParentSha1: invalid 'parent' line format - bad sha1"
expect40 commit-parent-short commit "$T/commit-parent-short" "$F badParentSha1: invalid 'parent' line format - bad sha1"
expect40 commit-parent-nonl commit "$T/commit-parent-nonl" "$F badParentSha1: invalid 'parent' line format - bad sha1"
expect40 commit-2parents commit "$T/commit-2parents" "$F missingAuthor: invalid format - expected 'author' line"
expect40 tag-ok tag "$T/tag-ok" ""
expect40 tag-min tag "$T/tag-min" "$F missingTaggerEntry: invalid format - expected 'tagger' line"
expect40 tag-short tag "$T/tag-short" "$F missingTaggerEntry: invalid format - expected 'tagger' line"
expect40 tag-blob tag "$T/tag-blob" "$F missingTaggerEntry: invalid format - expected 'tagger' line"
expect40 tag-unknown tag "$T/tag-unknown" "$F badType: invalid 'type' value"
expect40 tag-nul tag "$T/tag-nul" "$F nulInHeader: unterminated header: NUL at offset 57"
expect40 tag-long tag "$T/tag-long" "$F badType: invalid 'type' value"
expect40 tag-nul19 tag "$T/tag-nul19" "$F nulInHeader: unterminated header: NUL at offset 57"
expect40 tag-nul20 tag "$T/tag-nul20" "$F nulInHeader: unterminated header: NUL at offset 57"
expect40 tag-notag tag "$T/tag-notag" "$F unterminatedHeader: unterminated header"
expect40 tag-tagnonl tag "$T/tag-tagnonl" "$F unterminatedHeader: unterminated header"
expect40 tag-tagend tag "$T/tag-tagend" "$F unterminatedHeader: unterminated header"
expect40 tag-badhex tag "$T/tag-badhex" "$F badObjectSha1: invalid 'object' line format - bad sha1"
expect40 tag-notype tag "$T/tag-notype" "$F missingTypeEntry: invalid format - expected 'type' line"
expect40 tree-dotgit tree "$T/tree-dotgit" "$F hasDotgit: contains '.git'"
expect40 tree-664 tree "$T/tree-664" "$F badFilemode: contains bad file modes"
expect40 tree-zeropad tree "$T/tree-zeropad" "$F zeroPaddedFilemode: contains zero-padded file modes"
expect40 tree-null tree "$T/tree-null" "$F nullSha1: contains entries pointing to null sha1"
expect40 tree-unsorted tree "$T/tree-unsorted" "$F treeNotSorted: not properly sorted"
expect40 commit-badtz commit "$T/commit-badtz" "$F badTimezone: invalid author/committer line - bad time zone"
BD="$F badDate: invalid author/committer line - bad date"
expect40 commit-date-minus commit "$T/commit-date-minus" "$BD"
expect40 commit-date-plus commit "$T/commit-date-plus" "$BD"
expect40 commit-date-blanks commit "$T/commit-date-blanks" ""
expect40 commit-date-newline commit "$T/commit-date-newline" "$BD"
expect40 commit-date-blank-zero commit "$T/commit-date-blank-zero" "$F zeroPaddedDate: invalid author/committer line - zero-padded date"
expect40 commit-nul commit "$T/commit-nul" "$F nulInCommit: NUL byte in the commit object body"
expect40 tag-badname tag "$T/tag-badname" "$F badTagName: invalid 'tag' name: a..b"
# Inside a repository, a tree's .gitmodules blob is read from it and checked (fsck_finish): its
# findings are printed, the tree is still hashed (index_mem does not look at fsck_finish's result).
GM=$T/gm-repo
git init -q "$GM"
printf '[submodule "x"]\n\turl = -evil\n' >"$T/gm"
gmid=$(git -C "$GM" hash-object -w "$T/gm")
gmraw=$(printf '%s' "$gmid" | sed 's/../\\x&/g')
mk tree-gitmodules "100644 .gitmodules\\0$gmraw"
mk tree-gitmodules-missing "100644 .gitmodules\\0$RAW"
for c in "tree-gitmodules|$F gitmodulesUrl: disallowed submodule url: -evil" \
	"tree-gitmodules-missing|$F gitmodulesMissing: unable to read .gitmodules blob"; do
	n=${c%%|*}
	(cd "$GM" && "$SK" hash-object -t tree "$T/$n") >"$T/s.out" 2>"$T/s.err"
	ss=$?
	want=$(git hash-object --literally -t tree "$T/$n")
	if [ $ss = 0 ] && [ "$(<"$T/s.out")" = "$want" ] && [ "$(<"$T/s.err")" = "${c#*|}" ]; then
		pass
	else
		fail "$n in a repository: status $ss, stdout $(<"$T/s.out"), stderr $(<"$T/s.err")"
	fi
done

# ---- 6. errors and odd names ---------------------------------------------------------------------
compare "missing file" /dev/null hello missing-file empty
if grep -q "missing-file" "$T/s.err"; then pass; else fail "the error names the missing file"; fi
mkdir adir
compare "a directory" /dev/null adir
compare "invalid type" /dev/null -t blub hello
compare "invalid type, no object" /dev/null -t blub
# exact NAME STDIN_FILE ARGS...: stdout, stderr and exit status all git's (the lines git prints
# where it dies: xopen's, hash_fd's, hash_stdin_paths'); for a usage error (git: 129) the status
# alone, as the usage text is sha1kit's own
exact() {
	local name=$1 in=$2
	shift 2
	"$SK_REF_GIT" hash-object --no-filters "$@" <"$in" >"$T/g.out" 2>"$T/g.err"
	local gs=$?
	"$SK" hash-object --no-filters "$@" <"$in" >"$T/s.out" 2>"$T/s.err"
	local ss=$?
	if [ $gs = $ss ] && same_file "$T/g.out" "$T/s.out" && { [ $gs = 129 ] || same_file "$T/g.err" "$T/s.err"; }; then
		pass
	else
		fail "$name: git status $gs, sha1kit status $ss"
		diff -u "$T/g.out" "$T/s.out" | head -10 | sed 's/^/    /'
		sed 's/^/    git: /' "$T/g.err" | head -5
		sed 's/^/    sha1kit: /' "$T/s.err" | head -5
	fi
}
# exact_filters NAME STDIN_FILE ARGS...: the same without --no-filters (no attributes, no config:
# no filter runs in git either)
exact_filters() {
	local name=$1 in=$2
	shift 2
	"$SK_REF_GIT" hash-object "$@" <"$in" >"$T/g.out" 2>"$T/g.err"
	local gs=$?
	"$SK" hash-object "$@" <"$in" >"$T/s.out" 2>"$T/s.err"
	local ss=$?
	if [ $gs = $ss ] && same_file "$T/g.out" "$T/s.out" && { [ $gs = 129 ] || same_file "$T/g.err" "$T/s.err"; }; then
		pass
	else
		fail "$name: git status $gs, sha1kit status $ss"
		sed 's/^/    git: /' "$T/g.err" | head -5
		sed 's/^/    sha1kit: /' "$T/s.err" | head -5
	fi
}
exact "missing file: git's fatal line, 128" /dev/null hello missing-file empty
exact "a directory: git's fatal line, 128 (with --no-filters git names it '(null)')" /dev/null hello adir
exact "--stdin twice: usage error, 129" /dev/null --stdin --stdin
# standard output a full device: git's flush after each ID dies ('hash to stdout', 128); a closed
# standard input is /dev/null to git (sanitize_stdfds): the empty blob
if [ -w /dev/full ] && [ -z "${SK_WINDOWS:-}" ]; then
	"$SK_REF_GIT" hash-object hello empty >/dev/full 2>"$T/g.err"
	gs=$?
	"$SK" hash-object hello empty >/dev/full 2>"$T/s.err"
	ss=$?
	[ $gs = $ss ] && same_file "$T/g.err" "$T/s.err" && pass || fail "hash-object >/dev/full: git $gs $(<"$T/g.err"), sha1kit $ss $(<"$T/s.err")"
	# a closed standard output: /dev/null to git (sanitize_stdfds), the IDs go nowhere, success
	"$SK_REF_GIT" hash-object hello empty >&- 2>"$T/g.err"
	gs=$?
	"$SK" hash-object hello empty >&- 2>"$T/s.err"
	ss=$?
	[ $gs = $ss ] && same_file "$T/g.err" "$T/s.err" && pass || fail "hash-object >&-: git $gs $(<"$T/g.err"), sha1kit $ss $(<"$T/s.err")"
	"$SK_REF_GIT" hash-object --stdin <&- >"$T/g.out" 2>"$T/g.err"
	gs=$?
	"$SK" hash-object --stdin <&- >"$T/s.out" 2>"$T/s.err"
	ss=$?
	[ $gs = $ss ] && same_file "$T/g.out" "$T/s.out" && same_file "$T/g.err" "$T/s.err" && pass ||
		fail "hash-object --stdin <&-: git $gs $(<"$T/g.out"), sha1kit $ss $(<"$T/s.out") $(<"$T/s.err")"
fi
# git's vreportf: control characters of a name as '?' (an ESC cannot reach the terminal); not
# under Wine, where such a name is no file name at all (EINVAL)
if [ -z "${SK_WINDOWS:-}" ]; then
	exact "missing file with ESC and CR in its name" /dev/null hello "$(printf 'no\033ne\r')"
	printf 'a\r\r\n' >crpaths
	exact "--stdin-paths: a line ending in CR CR" crpaths --stdin-paths
fi
exact "invalid type with a control character" /dev/null -t "$(printf 'b\001')" hello
exact "unknown option: 129" /dev/null --bogus hello
exact "-t without its value: 129" /dev/null -t
# git's parse-options negations undo an option
compare "--no-literally after --literally: checked again (git 2.39 with its own words)" /dev/null --literally --no-literally -t tree hello
exact "--no-stdin after --stdin" hello --stdin --no-stdin empty
exact "--no-stdin-paths after --stdin-paths" /dev/null --stdin-paths --no-stdin-paths hello
exact "--filters after --no-filters" /dev/null --filters hello
# standard input a regular file read from byte 3 on: git takes fstat's size and reads short
# ("short read while indexing <unknown>", "Unable to hash (null)": no path for standard input)
for opts in "--stdin" "--stdin -t tree"; do
	{ dd bs=1 count=3 of=/dev/null 2>/dev/null && "$SK_REF_GIT" hash-object $opts; } <hello >"$T/g.out" 2>"$T/g.err"
	gs=$?
	{ dd bs=1 count=3 of=/dev/null 2>/dev/null && "$SK" hash-object $opts; } <hello >"$T/s.out" 2>"$T/s.err"
	ss=$?
	if [ $gs = $ss ] && same_file "$T/g.out" "$T/s.out" && same_file "$T/g.err" "$T/s.err"; then
		pass
	else
		fail "$opts from a file not at its start: git status $gs, sha1kit status $ss"
		sed 's/^/    sha1kit: /' "$T/s.err" | head -3
	fi
done
# (not under Wine: a directory on standard input reads as empty there)
[ -z "${SK_WINDOWS:-}" ] && exact "--stdin from a directory: 128" adir --stdin

# ---- 6c. --stdin-paths (builtin/hash-object.c hash_stdin_paths) ---------------------------------
printf 'hello\nrandom.bin\nempty\n' >paths1
printf 'hello\r\n"rand\\157m.bin"\n"empty"trailing\nhello' >paths2
printf 'hello\nmissing-file\nrandom.bin\n' >paths3
printf 'hello\n"hel\\x"\nrandom.bin\n' >paths4
printf 'hello\n"unterminated\n' >paths5
printf 'hello\n\nrandom.bin\n' >paths6
printf 'hello\nadir\n' >paths7
exact "--stdin-paths" paths1 --stdin-paths
exact "--stdin-paths: CR LF, C-quoted names, text after the quote, no last newline" paths2 --stdin-paths
exact "--stdin-paths: a missing file stops it" paths3 --stdin-paths
exact "--stdin-paths: a bad escape (line is badly quoted)" paths4 --stdin-paths
exact "--stdin-paths: no closing quote" paths5 --stdin-paths
exact "--stdin-paths: an empty line" paths6 --stdin-paths
exact "--stdin-paths: a directory" paths7 --stdin-paths
"$SK" hash-object adir >"$T/s.out" 2>"$T/s.err"
ss=$?
if [ $ss = 128 ] && [ "$(<"$T/s.err")" = "fatal: Unable to hash adir" ] && [ ! -s "$T/s.out" ]; then
	pass # git names the directory without --no-filters (its path for the filters)
else
	fail "a directory without --no-filters: status $ss, $(<"$T/s.err")"
fi
exact "--stdin-paths --literally -t commit" paths1 --stdin-paths --literally -t commit
exact "--stdin-paths: empty input" /dev/null --stdin-paths
exact "--stdin-paths with --stdin: 129" paths1 --stdin-paths --stdin
exact "--stdin-paths with a FILE: 129" paths1 --stdin-paths hello
# in a subdirectory of a work tree: git's set-up moved to the top, and only operands get the prefix
# back, so the names on standard input are read from the top (found by a new user's trial; not
# under Wine, whose working directory is spelt with backslashes: sha1kit stays where it is there)
[ -z "${SK_WINDOWS:-}" ] && git init -q "$T/stp" && mkdir "$T/stp/sub" && echo top >"$T/stp/x" && echo inner >"$T/stp/sub/x" &&
	echo only >"$T/stp/sub/y" && printf 'x\nsub/y\n' >"$T/stp-in" && printf 'y\n' >"$T/stp-y"
[ -z "${SK_WINDOWS:-}" ] && (
	cd "$T/stp/sub" || exit 1
	exact "--stdin-paths in a subdirectory: the names from the top" "$T/stp-in" --stdin-paths
	exact "--stdin-paths in a subdirectory: a name only there does not open" "$T/stp-y" --stdin-paths
	exact "an operand in a subdirectory: from there" /dev/null x
	# its name in git's lines is the path from the top (prefix_filename): 'sub/missing' (a new
	# user's trial)
	exact "a missing operand in a subdirectory: named from the top" /dev/null missing
	# --path (git chooses the filters by it, none here): names the object in git's lines; not with
	# --no-filters or --stdin-paths (129)
	exact_filters "--path with a missing operand in a subdirectory" /dev/null --path=p missing
	exact_filters "--path with --stdin" "$T/stp-y" --path=p --stdin
	exact_filters "--path with an operand" /dev/null --path=../q x
	exact "--path with --no-filters: 129" /dev/null --path=p x
	exact_filters "--path with --stdin-paths: 129" "$T/stp-y" --path=p --stdin-paths
	exact_filters "--no-path after --path" /dev/null --path=p --no-path x
	echo "$PASS $FAIL" >"$T/stp-counts"
)
[ -z "${SK_WINDOWS:-}" ] && read -r PASS FAIL <"$T/stp-counts"
printf 'dash\n' >-
compare "a file named -" /dev/null -- -
"$SK" hash-object --help >"$T/h.out" 2>&1
if [ $? = 0 ] && grep -q -- '--literally' "$T/h.out"; then pass; else fail "hash-object --help"; fi
"$SK" help hash-object >"$T/h2.out" 2>&1
if same_file "$T/h.out" "$T/h2.out"; then pass; else fail "sha1kit help hash-object = hash-object --help"; fi

# ---- 6b. a SHA-256 repository: SHA-256 IDs, as git gives them there ------------------------------
# (git init --object-format=sha256, Git 2.29+): blobs, standard input, --literally objects of
# every type, from the top and a subdirectory and through GIT_DIR; trees, commits and tags checked
# with SHA-256 IDs (64 hex digits, tree entries ending in 32 bytes): valid ones get git's ID, bad
# ones git 2.40+'s lines (checked by hand against git 2.55.0, as the SHA-1 ones above)
R256=$T/sha256
if git init -q --object-format=sha256 "$R256" 2>"$T/init.err"; then
	cp hello empty random.bin "$R256/"
	mkdir "$R256/sub"
	(cd "$R256" && compare "SHA-256 repository: files" /dev/null hello empty random.bin)
	(cd "$R256" && compare "SHA-256 repository: --stdin from a file, then a file" random.bin --stdin hello)
	(cd "$R256" && compare "SHA-256 repository: --literally commit and tag" /dev/null --literally -t commit hello)
	(cd "$R256" && compare "SHA-256 repository: --literally tree" /dev/null --literally -t tree random.bin)
	(cd "$R256/sub" && compare "SHA-256 repository: from a subdirectory" /dev/null ../hello)
	(cd "$W" && GIT_DIR=$R256/.git compare "SHA-256 repository: GIT_DIR" /dev/null hello)
	g=$(cd "$R256" && "$SK_REF_GIT" hash-object --stdin <random.bin)
	# shellcheck disable=SC2002 # a pipe, on purpose
	s=$(cat random.bin | (cd "$R256" && "$SK" hash-object --stdin))
	if [ ${#g} = 64 ] && [ "$g" = "$s" ]; then pass; else fail "SHA-256 repository: --stdin from a pipe: git '$g', sha1kit '$s'"; fi
	b=$(cd "$R256" && git hash-object -w hello)
	braw=$(printf '%s' "$b" | sed 's/../\\x&/g')
	mk t256-good "100644 a\\0$braw"
	mk t256-dotgit "100644 .git\\0$braw"
	mk t256-sha1 "100644 a\\0$(printf '%s' "${b:0:40}" | sed 's/../\\x&/g')"
	mk t256-null "100644 a\\0$(printf '%064d' 0 | sed 's/../\\x&/g')"
	t=$(cd "$R256" && git hash-object -t tree "$T/t256-good")
	A='author A <a@example.org> 1700000000 +0000\ncommitter A <a@example.org> 1700000000 +0000\n\nm\n'
	mk c256-good "tree $t\\n$A"
	mk c256-sha1 "tree ${t:0:40}\\n$A"
	mk c256-parent "tree $t\\nparent ${b:0:40}\\n$A"
	mk tag256-good "object $t\\ntype tree\\ntag v1\\ntagger A <a@example.org> 1700000000 +0000\\n\\nm\\n"
	mk tag256-sha1 "object ${t:0:40}\\ntype tree\\ntag v1\\ntagger A <a@example.org> 1700000000 +0000\\n\\nm\\n"
	(cd "$R256" && compare "SHA-256 repository: a tree checked" /dev/null -t tree "$T/t256-good")
	(cd "$R256" && compare "SHA-256 repository: a commit checked" /dev/null -t commit "$T/c256-good")
	(cd "$R256" && compare "SHA-256 repository: a tag checked" /dev/null -t tag "$T/tag256-good")
	[ ${#t} = 64 ] && pass || fail "SHA-256 repository: the tree's ID is $t"
	(cd "$R256" && expect40 t256-dotgit tree "$T/t256-dotgit" "$F hasDotgit: contains '.git'")
	(cd "$R256" && expect40 t256-sha1 tree "$T/t256-sha1" "error: too-short tree object|$F badTree: cannot be parsed as a tree")
	(cd "$R256" && expect40 t256-null tree "$T/t256-null" "$F nullSha1: contains entries pointing to null sha1")
	(cd "$R256" && expect40 c256-sha1 commit "$T/c256-sha1" "$F badTreeSha1: invalid 'tree' line format - bad sha1")
	(cd "$R256" && expect40 c256-parent commit "$T/c256-parent" "$F badParentSha1: invalid 'parent' line format - bad sha1")
	(cd "$R256" && expect40 tag256-sha1 tag "$T/tag256-sha1" "$F badObjectSha1: invalid 'object' line format - bad sha1")
	# a SHA-1 repository's tree is not valid there, nor a SHA-256 one in a SHA-1 repository
	expect40 t256-in-sha1 tree "$T/t256-good" "error: too-short tree object|$F badTree: cannot be parsed as a tree"
	# the .gitmodules blob a tree names is read from the SHA-256 repository and checked
	printf '[submodule "x"]\n\turl = -evil\n' >"$T/gm256"
	gm=$(cd "$R256" && git hash-object -w "$T/gm256")
	mk t256-gm "100644 .gitmodules\\0$(printf '%s' "$gm" | sed 's/../\\x&/g')"
	(cd "$R256" && "$SK" hash-object -t tree "$T/t256-gm") >"$T/s.out" 2>"$T/s.err"
	ss=$?
	want=$(cd "$R256" && git hash-object --literally -t tree "$T/t256-gm")
	if [ $ss = 0 ] && [ ${#want} = 64 ] && [ "$(<"$T/s.out")" = "$want" ] &&
		[ "$(<"$T/s.err")" = "$F gitmodulesUrl: disallowed submodule url: -evil" ]; then
		pass
	else
		fail "SHA-256 repository: .gitmodules: status $ss, stdout $(<"$T/s.out"), stderr $(<"$T/s.err")"
	fi
else
	fail "git cannot make a SHA-256 repository: $(<"$T/init.err")"
fi

# ---- 7. every kernel: SHA1KIT_CPU masks ----------------------------------------------------------
git -C "$R" cat-file --batch-all-objects --batch-check='%(objectname) %(objecttype)' >"$T/all-objects"
# Under Wine and the sanitizers (SK_FILES_EVERY > 1) the first and the last mask (every kernel of
# the CPU, and none): test_kernels, test_dc and test_win64_abi run each kernel there; what is left
# to this test is sha1kit's dispatch, which those two ends take. Natively every mask.
masks=("${SK_CPU_MASKS[@]}")
[ "${SK_FILES_EVERY:-1}" -le 1 ] || masks=("${SK_CPU_MASKS[0]}" "${SK_CPU_MASKS[-1]}")
for mask in "${masks[@]}"; do
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
	if [ $ss = 0 ] && same_file "$T/g.ids" "$T/m.ids" && [ ! -s "$T/m.err" ]; then
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
		if [ $ss = 0 ] && [ -s "$T/want.ids" ] && same_file "$T/want.ids" "$T/m.ids"; then
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
	fail "SHA1KIT_CPU=-bogus hash-object: not exit 1 with one line on stderr: $(<"$T/s.err")"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
