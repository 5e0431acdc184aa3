#!/usr/bin/env bash
# test_fsck.sh - `sha1kit fsck` against `git fsck --full` on repositories that git itself makes and
# corrupts (the corruptions of git's t/t1450-fsck.sh): the same lines on stdout and stderr (compared
# as sorted sets: git lists dangling and missing objects in the order of its object hash table,
# which sha1kit follows but does not promise) and the same exit status.
# A collision attack in an object cannot be tested end to end: every known colliding file is
# aligned for its own prefix, and the object header "TYPE SIZE\0" changes that prefix (the
# detection itself is tested in tests/test_dc.c and tests/cli).
# SK_WINDOWS=1 (the Wine build): the cases that depend on POSIX directory order and mmap are left out.
# Usage: test_fsck.sh [--section=NAME] PATH/TO/sha1kit TESTDATA_DIR
# Each section (a function section_NAME below) runs alone with --section=NAME: ctest runs each as a
# test of its own, cli_fsck_NAME (tests/git/graph.cmake); without it, all of them in order.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../testlib.sh"
sk_section_arg "$@" && shift
SK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DATA=$(cd "$2" && pwd)
export LC_ALL=C GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com \
	GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.com GIT_AUTHOR_DATE='1700000000 +0000' \
	GIT_COMMITTER_DATE='1700000000 +0000'
unset GIT_DIR GIT_WORK_TREE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_INDEX_FILE
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-fsck.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export HOME="$T/no-home" # never a real home: no user config, whatever exists elsewhere
sk_ref_git_line
PASS=0
FAIL=0
pass() { PASS=$((PASS + 1)); }
fail() {
	FAIL=$((FAIL + 1))
	echo "FAIL: $*"
}

# compare NAME DIR [FSCK OPTION]...: both tools in DIR, same sorted stdout and stderr, same status.
# Under Wine and the sanitizers (the passes that set SHA1KIT_CASE_SHARE) one call in N compares, the
# others return.
# (same_lines, same_file: tests/testlib.sh)
compare() {
	local name=$1 dir=$2
	shift 2
	run_both "" "$dir" "$@" || return 0
	if [ "$GRC" = "$SRC" ] && same_lines "$T/g.out" "$T/s.out" && same_lines "$T/g.err" "$T/s.err"; then
		pass
	else
		fail "$name: git fsck --full $* exits $GRC, sha1kit fsck $SRC"
		sort "$T/g.out" >"$T/g.out.s"
		sort "$T/s.out" >"$T/s.out.s"
		sort "$T/g.err" >"$T/g.err.s"
		sort "$T/s.err" >"$T/s.err.s"
		show_diffs .s
	fi
}

# show_diffs [SUFFIX]: the first lines of the differences of $T/g.out and s.out, g.err and s.err
# (with SUFFIX: of those files' sorted copies).
show_diffs() {
	diff -u "$T/g.out${1:-}" "$T/s.out${1:-}" | sed 's/^/    stdout: /' | head -20
	diff -u "$T/g.err${1:-}" "$T/s.err${1:-}" | sed 's/^/    stderr: /' | head -20
}

# run_both SK_OPTION DIR [FSCK OPTION]...: git fsck --full and sha1kit fsck (with SK_OPTION when
# not empty) in DIR, their output in $T/g.out, g.err, s.out, s.err, their status in GRC and SRC.
# Under Wine and ASan only one call in SHA1KIT_CASE_SHARE runs (testlib.sh sk_share_case): the
# others return 1 and leave COMPARED empty.
run_both() {
	local extra=$1 dir=$2
	shift 2
	COMPARED=
	sk_share_case || return 1
	COMPARED=1
	(cd "$dir" && refgit fsck --full "$@" >"$T/g.out" 2>"$T/g.err")
	GRC=$?
	rm -f "$T/s.trace"
	(cd "$dir" && SHA1KIT_FSCK_TRACE="$T/s.trace" "$SK" fsck ${extra:+"$extra"} "$@" >"$T/s.out" 2>"$T/s.err")
	SRC=$?
	sk_trace_bits "$T/s.trace" "$SRC" "$dir" "$@"
}


# compare_exact NAME DIR [FSCK OPTION]...: as compare, with stderr in git's order exactly, and
# --threads=4 on any machine, so that the loose directories finish out of order. One call in
# SHA1KIT_CASE_SHARE as compare.
compare_exact() {
	local name=$1 dir=$2
	shift 2
	run_both --threads=4 "$dir" "$@" || return 0
	if [ "$GRC" = "$SRC" ] && same_file "$T/g.err" "$T/s.err" && same_lines "$T/g.out" "$T/s.out"; then
		pass
	else
		fail "$name (exact order): git fsck --full $* exits $GRC, sha1kit fsck $SRC"
		diff -u "$T/g.err" "$T/s.err" | sed 's/^/    stderr: /' | head -20
	fi
}

# nocap_both DIR [OPTION]...: `git fsck --full` and `sha1kit fsck` in DIR without the power to read what the
# permissions forbid (as root: setpriv without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH), outputs in
# $T/{g,s}.{out,err}, exit statuses in grc and src; false, nothing run, where that cannot be done
# (root without setpriv, or Wine, which has no such permissions).
nocap_both() {
	local sp=()
	[ -z "${SK_WINDOWS:-}" ] || return 1
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null || return 1
		sp=(setpriv --bounding-set=-dac_override,-dac_read_search --inh-caps=-dac_override,-dac_read_search)
	fi
	local dir=$1
	shift
	(cd "$dir" && "${sp[@]}" "$SK_REF_GIT" fsck --full "$@" >"$T/g.out" 2>"$T/g.err")
	grc=$?
	(cd "$dir" && "${sp[@]}" "$SK" fsck "$@" >"$T/s.out" 2>"$T/s.err")
	src=$?
}

# nocap_compare NAME DIR [OPTION]...: nocap_both DIR OPTION..., then the same status, stderr byte
# for byte and stdout as the same lines (as compare) (nothing where nocap_both cannot run).
nocap_compare() {
	local name=$1
	shift
	nocap_both "$@" || return 0
	if [ $grc = $src ] && same_lines "$T/g.out" "$T/s.out" && same_file "$T/g.err" "$T/s.err"; then
		pass
	else
		fail "$name: git exits $grc, sha1kit $src"
		show_diffs
	fi
}

# compare_order NAME DIR [FSCK OPTION]...: as compare_exact, with stdout in git's order too (the
# dangling, unreachable and missing lines follow git's object table; packed objects only: under
# Wine as natively).
compare_order() {
	local name=$1 dir=$2
	shift 2
	run_both "" "$dir" "$@" || return 0
	if [ "$GRC" != "$SRC" ] || ! same_file "$T/g.err" "$T/s.err" || ! same_file "$T/g.out" "$T/s.out"; then
		fail "$name (stdout in git's order): git fsck --full $* exits $GRC, sha1kit fsck $SRC"
		show_diffs
		return
	fi
	pass
}

# compare_distinct NAME DIR [FSCK OPTION]...: as compare, with stderr compared as its distinct lines
# (git repeats a pack's open error at each lookup that reaches it, a count sha1kit does not follow).
compare_distinct() {
	local name=$1 dir=$2
	shift 2
	run_both "" "$dir" "$@" || return 0
	sort -u "$T/g.err" >"$T/g.err.u"
	sort -u "$T/s.err" >"$T/s.err.u"
	sort "$T/g.out" >"$T/g.out.u"
	sort "$T/s.out" >"$T/s.out.u"
	if [ "$GRC" = "$SRC" ] && same_file "$T/g.out.u" "$T/s.out.u" && same_file "$T/g.err.u" "$T/s.err.u"; then
		pass
	else
		fail "$name (distinct lines): git fsck --full $* exits $GRC, sha1kit fsck $SRC"
		show_diffs .u
	fi
}

# Under Wine, directories (loose objects, reflogs) list in another order than the host git reads
# them in: the cases below that compare git's order exactly compare the lines as sets there.
exact=compare_exact
[ -n "${SK_WINDOWS:-}" ] && exact=compare
COMPARED=1 # compare: empty when it left its case out (sk_share_case)

# The object format of the repositories git makes here: SHA-1, or SHA-256 in the sections that
# run the others with GIT_DEFAULT_HASH=sha256 (section_sha256_*): the bytes of an object ID (and of
# a file's trailing checksum), and the checksum of stdin in hex.
rawsz() { if [ "${GIT_DEFAULT_HASH:-sha1}" = sha256 ]; then echo 32; else echo 20; fi; }
hashsum() { if [ "${GIT_DEFAULT_HASH:-sha1}" = sha256 ]; then sha256sum; else sha1sum; fi | cut -d' ' -f1; }

# A repository with three commits, a subdirectory, an annotated tag and a dangling blob. The names
# and dates are fixed, so they are all the same: git makes the first one, the others are its copies.
mkrepo() {
	[ -d "$T/mkrepo.template" ] || mkrepo_git "$T/mkrepo.template"
	cp -a "$T/mkrepo.template" "$1"
}
mkrepo_git() {
	local r=$1
	git init -q "$r"
	(
		cd "$r" || exit 1
		for i in 1 2 3; do
			echo "$i" >"f$i"
			mkdir -p d
			echo "x$i" >"d/g$i"
			git add .
			git commit -qm "c$i"
		done
		git tag -a -m tag v1
		echo dangling | git hash-object -w --stdin >/dev/null
	)
}
# mk3packs DIR: 60 commits in three packs of 20 each (the newest .pack first by time), under a
# commit-graph
mk3packs() {
	git init -q "$1" && (
		cd "$1" && for i in $(seq 60); do
			echo "line $i" >>"f$((i % 5))" && git add -A && git commit -qm "c$i" || exit 1
			if [ $((i % 20)) = 0 ]; then
				h=$(git pack-objects -q --incremental --all .git/objects/pack/pack </dev/null) &&
					git prune-packed && touch -d "@$((1700000000 + i))" ".git/objects/pack/pack-$h.pack" ||
					exit 1
			fi
		done
		git commit-graph write --reachable
	)
}
obj_path() { # obj_path REPO ID
	echo "$1/.git/objects/${2:0:2}/${2:2}"
}

# 1. Clean repositories: loose, packed, bare; the output options.
# The repository $T/clean (sections clean, bad_objects and usage read it).
need_clean() {
	[ -d "$T/clean" ] || mkrepo "$T/clean"
}
section_clean() { # leaks
need_clean
compare "clean, loose" "$T/clean"
for o in --no-dangling --unreachable --root --tags --connectivity-only --no-reflogs --strict; do
	compare "clean, loose, $o" "$T/clean" "$o"
done
cp -r "$T/clean" "$T/packed"
(cd "$T/packed" && git repack -qad && echo "loose after pack" | git hash-object -w --stdin >/dev/null)
compare "clean, packed" "$T/packed"
compare "clean, packed, --root --tags" "$T/packed" --root --tags
git clone -q --bare "$T/packed" "$T/bare.git"
compare "bare" "$T/bare.git"
mkdir -p "$T/bare.git/sub"
compare "bare, from a subdirectory" "$T/bare.git/sub"
compare "from a subdirectory of the work tree" "$T/packed/d"
# --stats: the same stdout and exit status, stderr with one stats line per phase and a total
(cd "$T/packed" && "$SK" fsck >"$T/n.out" 2>"$T/n.err"; echo $? >"$T/n.rc")
(cd "$T/packed" && "$SK" fsck --stats >"$T/st.out" 2>"$T/st.err"; echo $? >"$T/st.rc")
re='^sha1kit: fsck: stats: [a-zA-Z ]+: wall [0-9]+\.[0-9]{3} s, CPU [0-9]+\.[0-9]{3} s \([0-9]+\.[0-9]{2} threads busy\)$'
grep -v ': stats: ' "$T/st.err" >"$T/st.rest"
if same_file "$T/n.rc" "$T/st.rc" && same_file "$T/n.out" "$T/st.out" && same_file "$T/n.err" "$T/st.rest" &&
	[ "$(grep -cE "$re" "$T/st.err")" = "$(grep -c ': stats: ' "$T/st.err")" ] &&
	grep -q ': stats: Checking objects: ' "$T/st.err" && grep -q ': stats: total: ' "$T/st.err"; then
	pass
else
	fail "fsck --stats: $(<"$T/st.err")"
fi
}

# 2. Missing objects: a blob, a tree, a commit's parent (loose).
section_missing() { # leaks
for what in blob tree parent; do
	r=$T/missing-$what
	mkrepo "$r"
	case $what in
	blob) id=$(cd "$r" && git rev-parse HEAD:f1) ;;
	tree) id=$(cd "$r" && git rev-parse HEAD:d) ;;
	parent) id=$(cd "$r" && git rev-parse HEAD~1) ;;
	esac
	rm -f "$(obj_path "$r" "$id")"
	compare "missing $what" "$r"
	compare "missing $what, --connectivity-only" "$r" --connectivity-only
	# a git directory given with a final '/': git appends "/objects" to it as given (".git//objects"),
	# and the index is "<dir>/index" without a second '/' (an embedder's trial)
	[ -n "${SK_WINDOWS:-}" ] || GIT_DIR=$r/.git/ compare "missing $what, GIT_DIR ending in '/'" "$r"
done
}

# 3. Corrupt loose objects: truncated, garbage appended, zlib garbage, empty, under a wrong name.
section_loose() {
for how in truncate garbage zlib empty rename; do
	r=$T/loose-$how
	mkrepo "$r"
	id=$(cd "$r" && git rev-parse HEAD:f2)
	p=$(obj_path "$r" "$id")
	chmod u+w "$p"
	case $how in
	truncate) head -c 10 "$p" >"$p.t" && mv "$p.t" "$p" ;;
	garbage) printf 'garbage' >>"$p" ;;
	zlib) printf 'this is not zlib' >"$p" ;;
	empty) : >"$p" ;;
	rename)
		other=$(cd "$r" && git rev-parse HEAD:f3)
		cp "$(obj_path "$r" "$other")" "$p.t" && mv -f "$p.t" "$p"
		;;
	esac
	compare "loose object: $how" "$r"
done
# the object's path in git's lines from a git directory given with a final '/': ".git//objects/..."
# (not under Wine, which gives sha1kit the path as Z:/...)
[ -n "${SK_WINDOWS:-}" ] ||
	GIT_DIR=$T/loose-garbage/.git/ compare "loose object: garbage, GIT_DIR ending in '/'" "$T/loose-garbage"
# a loose commit emptied that the commit-graph names (a power loss): git 2.40+'s commit-graph
# verify reads the empty file as no object ("Could not read", "failed to parse commit"), 2.39.5
# dies naming it (a new user's trial)
r=$T/loose-empty-graph
mkrepo "$r"
(cd "$r" && git commit-graph write --reachable && p=$(obj_path "$r" "$(git rev-parse HEAD~1)") && chmod u+w "$p" &&
	: >"$p") || fail "could not make the repository $r"
compare "loose commit emptied under a commit-graph" "$r"
# objects/xx a file (the first xx/ not there): git's walk stops there ("unable to open ...: Not a
# directory"), the loose objects after it go unread; a directory named in upper case, with an
# object in it, git does not read (sha1kit lists the object directory and opens the xx/ it finds,
# git all 256)
r=$T/loose-xx-file
mkrepo "$r"
for k in {0..255}; do
	printf -v xx '%02x' "$k"
	[ -e "$r/.git/objects/$xx" ] || break
done
echo x >"$r/.git/objects/$xx"
compare "loose objects: objects/$xx is a file" "$r"
r=$T/loose-xx-upper
mkrepo "$r"
id=$(cd "$r" && git rev-list --objects --all | cut -c1-2 | grep -m1 '[a-f]')
up=$(echo "$id" | tr a-f A-F)
mv "$r/.git/objects/$id" "$r/.git/objects/$up"
# (Wine's file system is case-insensitive: there sha1kit finds the object)
[ -n "${SK_WINDOWS:-}" ] || compare "loose objects: an object under an upper-case directory" "$r"
}

# 4. Bad objects made with git hash-object --literally, reachable from a branch.
section_bad_objects() { # leaks
need_clean
mkbad() { # mkbad NAME TYPE CONTENT: a repository whose branch 'bad' reaches the object
	local r=$T/bad-$1 type=$2 content=$3 id tree commit
	mkrepo "$r"
	id=$(cd "$r" && printf '%b' "$content" | git hash-object --literally -t "$type" -w --stdin)
	case $type in
	tree) tree=$id ;;
	commit)
		(cd "$r" && git update-ref refs/heads/bad "$id")
		return
		;;
	tag)
		(cd "$r" && git update-ref refs/tags/bad "$id")
		return
		;;
	*) return ;;
	esac
	commit=$(cd "$r" && git commit-tree -m bad "$tree")
	(cd "$r" && git update-ref refs/heads/bad "$commit")
}
blob=$(cd "$T/clean" && echo hello | git hash-object --stdin) # in the repositories' object format
braw=$(echo "$blob" | sed 's/../\\x&/g')
mkbad tree-zero-padded tree "0100644 a\0$braw"
mkbad tree-bad-mode tree "100000 a\0$braw"
mkbad tree-dup tree "100644 a\0${braw}100644 a\0$braw"
mkbad tree-unsorted tree "100644 b\0${braw}100644 a\0$braw"
mkbad tree-dot tree "100644 .\0$braw"
mkbad tree-dotgit tree "100644 .git\0$braw"
mkbad tree-empty-name tree "100644 \0$braw"
mkbad tree-truncated tree "100644 a\0\x01\x02"
tree=$(cd "$T/clean" && git rev-parse HEAD^{tree})
mkbad commit-no-tree commit "author A <a@b> 1 +0000\ncommitter C <c@d> 1 +0000\n\nmsg\n"
mkbad commit-bad-date commit "tree $tree\nauthor A <a@b> 99999999999999999999 +0000\ncommitter C <c@d> 1 +0000\n\nmsg\n"
mkbad commit-bad-tz commit "tree $tree\nauthor A <a@b> 1 +00\ncommitter C <c@d> 1 +0000\n\nmsg\n"
mkbad commit-bad-email commit "tree $tree\nauthor A a@b> 1 +0000\ncommitter C <c@d> 1 +0000\n\nmsg\n"
mkbad commit-no-committer commit "tree $tree\nauthor A <a@b> 1 +0000\n\nmsg\n"
mkbad commit-nul commit "tree $tree\nauthor A <a@b> 1 +0000\ncommitter C <c@d> 1 +0000\n\nmsg\0x\n"
head=$(cd "$T/clean" && git rev-parse HEAD)
mkbad tag-no-tagger tag "object $head\ntype commit\ntag t\n\nmsg\n"
mkbad tag-bad-name tag "object $head\ntype commit\ntag bad name\ntagger T <t@t> 1 +0000\n\nmsg\n"
for d in "$T"/bad-*; do
	compare "bad object: ${d##*/bad-}" "$d"
done
# the same in a pack: git's check there is verify_pack's callback, whose failure is the pack bit
for b in tree-dup:refs/heads/bad^{tree} tree-unsorted:refs/heads/bad^{tree} commit-bad-email:refs/heads/bad \
	tag-bad-name:refs/tags/bad; do
	r=$T/packed-bad-${b%%:*}
	cp -r "$T/bad-${b%%:*}" "$r"
	# the trees' blob, so that git repack can pack what they reach
	(cd "$r" && echo hello | git hash-object -w --stdin >/dev/null && git repack -qad)
	id=$(cd "$r" && git rev-parse "${b#*:}")
	if [ -e "$(obj_path "$r" "$id")" ]; then
		fail "bad object in a pack: ${b%%:*}: git repack left it loose"
		continue
	fi
	compare "bad object in a pack: ${b%%:*}" "$r"
done
(cd "$T/bad-tree-zero-padded" && git config fsck.zeroPaddedFilemode ignore)
compare "config fsck.zeroPaddedFilemode=ignore" "$T/bad-tree-zero-padded"
(cd "$T/bad-tree-zero-padded" && git config fsck.zeroPaddedFilemode error)
compare "config fsck.zeroPaddedFilemode=error" "$T/bad-tree-zero-padded"
(cd "$T/bad-tree-dup" && git rev-parse refs/heads/bad^{tree} >skip && git config fsck.skipList "$PWD/skip")
compare "fsck.skipList" "$T/bad-tree-dup"
# a tree that does not decode, on the skip list: git's decode error is printed all the same (its
# report is left out)
(cd "$T/bad-tree-truncated" && git rev-parse refs/heads/bad^{tree} >skip && git config fsck.skipList "$PWD/skip")
compare "fsck.skipList: a tree that does not decode" "$T/bad-tree-truncated"
}

# 5. Refs: a branch at a missing object, a branch at a tree, HEAD at an unborn branch, reflogs.
section_refs_index() { # leaks
r=$T/refs
mkrepo "$r"
(cd "$r" && echo 0123456789012345678901234567890123456789 >.git/refs/heads/broken)
compare "ref to a missing object" "$r"
r=$T/refs-tree
mkrepo "$r"
(cd "$r" && git rev-parse HEAD^{tree} >.git/refs/heads/tree)
compare "branch at a tree" "$r"
r=$T/unborn
mkrepo "$r"
(cd "$r" && git symbolic-ref HEAD refs/heads/nothing)
compare "HEAD at an unborn branch" "$r"
r=$T/reflog
mkrepo "$r"
(cd "$r" && printf '%s %s C <c@d> 1700000000 +0000\tbad\n' "$(git rev-parse HEAD)" \
	1111111111111111111111111111111111111111 >>.git/logs/refs/heads/master)
compare "reflog entry at a missing object" "$r"
compare "reflog entry at a missing object, --no-reflogs" "$r" --no-reflogs
# refs/heads that cannot be read (no permission; as root, without CAP_DAC_OVERRIDE): git 2.45+
# takes every reflog file without resolving its ref (its objects stay reachable), 2.39.5 says "bad
# ref for" each and leaves it out (not under Wine: no such permissions there)
r=$T/refs-unreadable
git init -q "$r" && (cd "$r" && echo a >a && git add a && git commit -qm a && echo b >b &&
	git add b && git commit -qm b) || fail "could not make the repository"
chmod 000 "$r/.git/refs/heads"
nocap_compare "refs/heads unreadable" "$r"
chmod 755 "$r/.git/refs/heads"
# Loose ref files over 64 MiB, which git reads whole: an object ID and a line break, then zero
# bytes (sparse); a symbolic ref with a newline and 65 MiB of spaces (trimmed); one whose target
# name goes on for 65 MiB.
r=$T/bigrefs
mkrepo "$r"
(
	cd "$r" || exit 1
	git rev-parse HEAD >.git/refs/heads/big-id && truncate -s 65M .git/refs/heads/big-id &&
		{ echo 'ref: refs/heads/master' && head -c 68157440 /dev/zero | tr '\0' ' '; } >.git/refs/heads/big-sym
) || fail "could not write the refs over 64 MiB"
compare "loose refs over 64 MiB" "$r"
(cd "$r" && { echo 'ref: refs/heads/master' && head -c 68157440 /dev/zero | tr '\0' 'y'; } >.git/refs/heads/big-sym)
compare "a symbolic ref whose target goes on for 65 MiB" "$r"
(cd "$r" && refgit fsck --full >/dev/null 2>&1) && fail "git accepts a symbolic ref to a name of 65 MiB" || pass

# 6. The index: an entry whose blob is missing.
r=$T/index
mkrepo "$r"
(cd "$r" && echo staged >staged && git add staged && rm -f "$(obj_path . "$(git rev-parse :staged)")")
compare "index entry at a missing blob" "$r"
# GIT_INDEX_FILE in a directory that does not exist: no index is read (sha1kit died "Out of memory")
GIT_INDEX_FILE=no/such/index compare "GIT_INDEX_FILE in a directory that does not exist" "$r"
GIT_INDEX_FILE=$T/no-such-dir/index compare "GIT_INDEX_FILE in a directory that does not exist, absolute" "$r"
}

# 6b. --name-objects: the names git gives objects in the lines of its walk (fsck.c
#     fsck_put_object_name): from a ref (REF~N, REF^2, REF:PATH/), a tag, the reflog (HEAD@{TIME}),
#     the index (:PATH; INDEX:PATH in another worktree, git 2.40+) and its cache-tree (:DIR/), through
#     loose trees and packed ones. Removed: an old version of a file, a commit of the first-parent
#     line, the side branch's blob, a staged blob under a directory the cache-tree names, a blob
#     staged in a worktree.
section_names() {
r=$T/names
git init -q "$r"
(
	cd "$r" || exit 1
	mkdir -p a/b
	for i in 1 2 3 4 5 6; do
		echo "$i" >"a/b/n$i" && echo "log $i" >a/b/log
		git add . && git commit -qm "c$i"
	done
	git checkout -qb side HEAD~3 && echo s >s && git add s && git commit -qm side
	git checkout -q master && git merge -q --no-edit side && git branch -q -D side
	echo 7 >a/b/n7 && git add . && git commit -qm c7
	git -c advice.nestedTag=false tag -a -m t1 t1 HEAD~1 && git -c advice.nestedTag=false tag -a -m t2 t2 t1
	git worktree add -q ../names-wt -b wt HEAD~2 && (cd ../names-wt && echo w >w && git add w) &&
		rm -f "$(obj_path . "$(cd ../names-wt && git rev-parse :w)")"
	echo staged >a/staged && git add a/staged && git write-tree >/dev/null
	rm -f "$(obj_path . "$(git rev-parse HEAD~1^2:s)")" "$(obj_path . "$(git rev-parse :a/staged)")" \
		"$(obj_path . "$(git rev-parse HEAD~4:a/b/log)")"
) || fail "could not make the repository of section names"
compare "names: from the other worktree" "$T/names-wt" --name-objects --no-reflogs
cp -a "$r" "$T/names-packed"
(cd "$T/names-packed" && git rev-list --objects --all --reflog --missing=allow-any |
	git pack-objects -q .git/objects/pack/pack >/dev/null && git prune-packed) ||
	fail "could not pack the repository of section names"
compare "names: packed objects, --no-reflogs" "$T/names-packed" --name-objects --no-reflogs
rm -f "$(obj_path "$r" "$(cd "$r" && git rev-parse HEAD~5)")"
compare "names: loose objects, a commit missing" "$r" --name-objects
compare "names: loose objects, a commit missing, --no-reflogs" "$r" --name-objects --no-reflogs
# A reflog's commit in a pack that does not open, --connectivity-only: fsck_walk's "Unknown object
# type for ID (HEAD@{TIME})" names it (sha1kit gave the bare ID; a new user's trial, its repro 07)
r=$T/names-unopened
git init -q "$r"
(
	cd "$r" || exit 1
	for i in 1 2 3; do
		echo "$i" >"f$i" && git add -A && git commit -qm "c$i"
	done
	git reset -q --hard HEAD~1 && git repack -adq && echo 4 >f4 && git add f4 && git commit -qm c4 &&
		chmod u+w .git/objects/pack/*.pack && for p in .git/objects/pack/*.pack; do : >"$p"; done
) || fail "could not make the repository of section names (unopened)"
compare "names: a reflog's commit in a pack that does not open, --connectivity-only" "$r" \
	--name-objects --connectivity-only
}

# 7. Packs: a flipped byte in the pack and in the idx: git's exit status (the pack bit, or 128
#    where git dies reading an object it needs) and the file named; git's lines exactly below (7b,
#    7c).
section_packs() { # leaks
for what in pack idx; do
	r=$T/flip-$what
	mkrepo "$r"
	(cd "$r" && git repack -qad)
	f=$(ls "$r"/.git/objects/pack/*."$what")
	chmod u+w "$f"
	size=$(stat -c %s "$f")
	off=$((size / 2))
	printf '\xff' | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
	(cd "$r" && refgit fsck --full >/dev/null 2>&1)
	grc=$?
	(cd "$r" && "$SK" fsck >/dev/null 2>"$T/flip.err")
	src=$?
	if [ "$grc" = "$src" ] && { [ "$src" = 128 ] || [ $((src & 4)) -ne 0 ]; } && grep -q "pack-" "$T/flip.err"; then
		pass
	else
		fail "flipped byte in the $what: git exits $grc, sha1kit $src (want bit 4)"
		head -5 "$T/flip.err"
	fi
done

# a byte of a reachable packed commit's zlib data flipped: git's --connectivity-only checks no pack
# (no checksum, CRC or unpack lines), lists the commit, and its walk dies at the commit's read
# ("error: inflate: ...", "fatal: packed object ... is corrupt", 128); without the option, the
# pack's lines and exit 6 (found by a new user's trial: sha1kit printed the pack's lines and the
# reflog's, exit 6)
r=$T/conn-commit
mkrepo "$r"
(
	cd "$r" || exit 1
	git repack -qad
	p=$(ls .git/objects/pack/*.pack)
	c=$(git rev-parse HEAD~1)
	set -- $(git verify-pack -v "${p%.pack}.idx" | awk -v c="$c" '$1 == c {print $5, $4}')
	chmod u+w "$p"
	printf '\377' | dd of="$p" bs=1 seek=$(($1 + $2 / 2)) conv=notrunc 2>/dev/null
)
$exact "a packed commit's data corrupt, --connectivity-only" "$r" --connectivity-only
$exact "a packed commit's data corrupt" "$r"
# the same in a tree another tree is a delta of: git's walk reads the base first, with its inflate
# line before the fatal one (sha1kit had left it out: the base counted as marked bad by a read
# git's --connectivity-only never made)
r=$T/conn-base
mkrepo "$r"
(
	cd "$r" || exit 1
	git repack -qad --window=50 --depth=50
	p=$(ls .git/objects/pack/*.pack)
	base=$(git verify-pack -v "${p%.pack}.idx" | awk '$2 == "tree" && NF == 7 {print $7; exit}')
	[ -n "$base" ] || exit 1
	set -- $(git verify-pack -v "${p%.pack}.idx" | awk -v b="$base" '$1 == b {print $5, $4}')
	chmod u+w "$p"
	printf '\377' | dd of="$p" bs=1 seek=$(($1 + $2 / 2)) conv=notrunc 2>/dev/null
) || fail "conn-base: no tree that is another tree's delta base"
$exact "a packed delta base tree's data corrupt, --connectivity-only" "$r" --connectivity-only
# an annotated tag's entry header retyped to a blob (its type bits xor 7): git's --connectivity-only
# parses the ref's object and hashes it ("hash mismatch", "invalid sha1 pointer", the object
# dangling as a blob, exit 2; found by a new user's trial: sha1kit said nothing, exit 0)
r=$T/conn-tag
mkrepo "$r"
(
	cd "$r" || exit 1
	git tag -a -m t1 t1 HEAD~1
	git repack -qad
	p=$(ls .git/objects/pack/*.pack)
	t=$(git rev-parse t1)
	at=$(git verify-pack -v "${p%.pack}.idx" | awk -v t="$t" '$1 == t {print $5}')
	chmod u+w "$p"
	b=$(od -An -tu1 -j "$at" -N1 "$p" | tr -d ' ')
	printf "\\$(printf '%03o' $((b ^ 0x70)))" | dd of="$p" bs=1 seek="$at" conv=notrunc 2>/dev/null
)
$exact "a packed tag retyped to a blob, --connectivity-only" "$r" --connectivity-only

# an idx whose trailing checksum is wrong: git's --connectivity-only lists the objects through it
# and checks no pack (no "hash mismatch", exit 0)
r=$T/idx-sum
mkrepo "$r"
(cd "$r" && git repack -qad)
f=$(ls "$r"/.git/objects/pack/*.idx)
chmod u+w "$f"
printf '\x01' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") - 3)) conv=notrunc 2>/dev/null
$exact "an idx's checksum wrong" "$r"
$exact "an idx's checksum wrong, --connectivity-only" "$r" --connectivity-only
# an idx whose checksum is right but which is not the pack's: git trusts it and reads every object
# through it ("index CRC mismatch" at each changed CRC-32; an entry retyped under a pack trailer and
# idx made again: its CRC-32 and "packed ... is corrupt", its deltas' too). sha1kit said "does not
# match index (first difference at byte N)" (a new user's trial, trial75 01-07)
r=$T/idx-crc
mkrepo "$r"
(
	cd "$r" || exit 1
	git repack -qad
	f=$(ls .git/objects/pack/*.idx)
	chmod u+w "$f"
	n=$(git show-index <"$f" | wc -l)
	at=$((8 + 256 * 4 + n * $(rawsz) + 4 * (n / 2) + 1))
	cg_put "$f" "$at" "$(printf '%02x' $(($(cg_u8 "$f" "$at") ^ 0x10)))"
	cg_resum "$f" >/dev/null
)
$exact "an idx's CRC-32 changed, its checksum made again" "$r"
r=$T/idx-retyped
mkrepo "$r"
(
	cd "$r" || exit 1
	git repack -qad --window=50 --depth=50
	p=$(ls .git/objects/pack/*.pack)
	f=${p%.pack}.idx
	b=$(git rev-parse HEAD~1:f1)
	at=$(git verify-pack -v "$f" | awk -v b="$b" '$1 == b {print $5}')
	chmod u+w "$p" "$f"
	cg_put "$p" "$at" "$(printf '%02x' $(($(cg_u8 "$p" "$at") ^ 0x70)))"
	sum=$(cg_resum "$p")
	cg_put "$f" $(($(stat -c %s "$f") - 2 * $(rawsz))) $(echo "$sum" | sed 's/../& /g')
	cg_resum "$f" >/dev/null
)
$exact "a blob retyped under a pack trailer and idx made again" "$r"
$exact "a blob retyped under a pack trailer and idx made again, --connectivity-only" "$r" --connectivity-only
# a sound pack with a version 1 idx and a .rev (pack.indexVersion=1): the .rev's positions against
# the idx's offsets (a v1 entry is 4 + the ID's bytes: the SHA-256 run gave a false error before)
r=$T/idx-v1-rev
mkrepo "$r"
(cd "$r" && git -c pack.indexVersion=1 -c pack.writeReverseIndex=true repack -adq 2>/dev/null)
if ls "$r"/.git/objects/pack/*.rev >/dev/null 2>&1; then
	$exact "a version 1 idx with a .rev" "$r"
fi
# a packed blob whose deflated data is damaged, under --connectivity-only: git reads no blob and
# checks no checksum or CRC (exit 0, nothing said); sha1kit read and hashed every object before.
# (A damaged commit or tree is not followed: git dies where its walk reads it, sha1kit checks the
# pack in full and reports it, docs/git.md.)
for what in blob; do
	r=$T/conn-$what
	git init -q "$r"
	(cd "$r" && mkdir d && seq 1 2000 >d/big && echo small >s && git add . && git commit -qm a && git repack -qad)
	p=$(ls "$r"/.git/objects/pack/*.pack)
	case $what in
	blob) id=$(cd "$r" && git rev-parse HEAD:d/big) ;;
	tree) id=$(cd "$r" && git rev-parse HEAD:d) ;;
	esac
	off=$(cd "$r" && git show-index <"${p%.pack}.idx" | awk -v id="$id" '$2 == id { print $1 }')
	chmod u+w "$p"
	printf 'XXXXXXXX' | dd of="$p" bs=1 seek=$((off + 6)) conv=notrunc 2>/dev/null
	$exact "a packed $what damaged, --connectivity-only" "$r" --connectivity-only
done
# an idx git cannot open (a link to itself: open fails as it does without permission, also for
# root): git's open_pack_index fails without a word, "index not opened", its objects missing
r=$T/idx-loop
mkrepo "$r"
(cd "$r" && git repack -qd && echo more >more && git add more && git commit -qm more && git repack -qd)
f=$(ls "$r"/.git/objects/pack/*.idx | head -1)
rm -f "$f" && ln -s "$(basename "$f")" "$f"
# (not under Wine: its open() of a link loop gives no ELOOP, on which git 2.39 dies when the loop
# is the idx of the pack that holds the tag; which pack's idx sorts first varies with the deltas
# git repack's threads choose, so the case failed there in one CI run of two)
[ -z "${SK_WINDOWS:-}" ] && $exact "an idx that does not open" "$r"
# an idx that is a directory: git opens it and maps it (mmap fails: "fatal: mmap failed: No such
# device", 128, in the pack check and under --connectivity-only alike), or refuses it as too small
# where the file system gives a directory fewer than 1064 bytes (not under Wine)
if [ -z "${SK_WINDOWS:-}" ]; then
	rm -f "$f" && mkdir "$f"
	$exact "an idx that is a directory" "$r"
	$exact "an idx that is a directory, --connectivity-only" "$r" --connectivity-only
fi

# 7a. A .pack that is a directory: git's add_packed_git takes no such pack, silently; its idx's
#     objects are missing.
r=$T/pack-dir
mkrepo "$r"
(cd "$r" && git repack -qad && git prune-packed && p=$(ls .git/objects/pack/*.pack) && rm -f "$p" && mkdir "$p")
compare "a .pack that is a directory" "$r"

# 7b. Packs git cannot open through their idx (the idx's fan-out or size, the pack's trailer
#     against the idx's copy, the object count): the pack is reported and its objects are missing
#     to the rest of the check, so the refs and links to them are broken: the same exit bits as git,
#     and git's lines, again wherever git looks for an object in the pack.
for c in "idx 12" "idx 200" "idx -30" "pack -1" "pack -3" "pack 9"; do
	set -- $c
	what=$1 at=$2
	r=$T/open-$what$at
	mkrepo "$r"
	(cd "$r" && git repack -qad)
	f=$(ls "$r"/.git/objects/pack/*."$what")
	chmod u+w "$f"
	size=$(stat -c %s "$f")
	off=$at
	[ "$off" -lt 0 ] && off=$((size + at))
	printf '\x5a' | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
	(cd "$r" && refgit fsck --full >/dev/null 2>&1)
	grc=$?
	(cd "$r" && "$SK" fsck >/dev/null 2>"$T/open.err")
	src=$?
	if [ "$grc" = "$src" ] && [ $((src & 4)) -ne 0 ]; then
		pass
	else
		fail "a pack git cannot open ($what byte $at): git exits $grc, sha1kit $src"
		head -5 "$T/open.err"
	fi
	$exact "a pack git cannot open ($what byte $at)" "$r"
done

# 7c. A corrupt object inside a pack git can open: as git, every object is read through the idx
#     on its own; one that cannot be read is present but unreadable, or, the base of a delta that
#     failed, no object; git dies when a ref or the cache-tree names one. The same stdout (broken
#     links, missing and dangling objects) and exit status as git, 128 included; then a byte
#     flipped every 5 bytes of a pack with deltas, tags, trees and blobs, stderr too (git's lines
#     for each object, those of its object reader included, in git's order).
for at in 12 13 40 200 300 400 500 -100 -60; do
	r=$T/corrupt-obj$at
	mkrepo "$r"
	(cd "$r" && git repack -qad)
	f=$(ls "$r"/.git/objects/pack/*.pack)
	chmod u+w "$f"
	size=$(stat -c %s "$f")
	off=$at
	[ "$off" -lt 0 ] && off=$((size + at))
	[ "$off" -lt $((size - 20)) ] || continue
	printf '\x5a' | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
	(cd "$r" && refgit fsck --full >"$T/cg.out" 2>/dev/null)
	grc=$?
	(cd "$r" && "$SK" fsck >"$T/co.out" 2>"$T/co.err")
	src=$?
	if [ "$grc" = "$src" ] && same_lines "$T/cg.out" "$T/co.out"; then
		pass
	else
		fail "a corrupt object in a pack (byte $at of $size): git exits $grc, sha1kit $src"
		head -5 "$T/co.err" "$T/co.out"
	fi
done
}
# The repository the sweeps below corrupt: four commits, a tag, one pack.
mkflips() {
	local r=$T/flips
	[ -d "$r" ] && return
	git init -q "$r"
	(
		cd "$r" || exit 1
		for i in 1 2 3 4; do
			seq 1 $((i * 50)) >"f$i"
			mkdir -p d
			echo "x$i" >>d/g
			git add .
			git commit -qm "c$i"
		done
		git tag -a -m t v1
		git repack -adq
		git prune-packed
	)
}
# flip_sweep REPO EXT HOW FIRST STEP TAIL MIN WHAT PART/PARTS: one byte of REPO's pack-*.EXT changed
# (HOW: set to 0x5a, or xor1: its lowest bit flipped), at FIRST, FIRST + STEP, ... up to TAIL bytes
# before its end, one at a time; git's exit status, stdout (as a set) and stderr (in order) for
# every one, and at least MIN of them. The sweep is cut in PARTS sections (ctest runs them side by
# side), each taking every PARTS-th offset from the PART-th (1-based), and more than MIN / PARTS
# of them. Each change is made in one copy of REPO and undone once both have read it (fsck writes
# nothing there: the copy must equal REPO after the sweep). More than half of the changes must make
# git fail (the checksums of pack and idx: all of them do), or the bytes were not written.
# The loop is tests/git/flipsweep.c (SK_FLIPSWEEP, built by ctest): git and sha1kit are its only
# processes for each change (in bash, two dd and a fork of the shell cost more than both).
# Not under Wine: 300 starts of the program there take minutes.
flip_sweep() {
	local repo=$1 ext=$2 how=$3 first=$4 step=$5 tail=$6 min=$7 what=$8 part=${9%/*} parts=${9#*/}
	local nflip badflip gitbad size f res
	local -a git
	[ -n "${SK_WINDOWS:-}" ] && return
	if [ ! -x "${SK_FLIPSWEEP:-}" ]; then
		fail "$what: SK_FLIPSWEEP (tests/git/flipsweep.c, which ctest builds) is not set"
		return
	fi
	rm -rf "$T/flip" "$T/sweep"
	cp -r "$repo" "$T/flip"
	mkdir "$T/sweep"
	f=$(ls "$T"/flip/.git/objects/pack/*."$ext")
	chmod u+w "$f"
	size=$(stat -c %s "$f")
	res=$(cd "$T/flip" && sk_refgit_argv git fsck --full &&
		"$SK_FLIPSWEEP" "$f" "$how" "$first" "$step" $((size - 1 - tail)) "$part" "$parts" "$T/sweep" \
			"${git[@]}" -- "$SK" fsck)
	read -r _ nflip _ badflip _ gitbad <<<"${res##*$'\n'}"
	[ "$res" = "${res##*$'\n'}" ] || printf '%s\n' "${res%$'\n'*}" | head -12
	if ! diff -r "$repo" "$T/flip" >/dev/null; then
		fail "$what: the repository changed in the sweep"
		diff -r "$repo" "$T/flip" | head -5
	elif [[ ! $nflip =~ ^[0-9]+$ ]]; then
		fail "$what (part $part of $parts): the sweep did not run: $res"
	elif [ "$nflip" -gt $((min / parts)) ] && [ "$badflip" = 0 ] && [ $((2 * gitbad)) -gt "$nflip" ]; then
		pass
		echo "$what (part $part of $parts): $nflip corruptions as git, $gitbad of them found by git"
	else
		fail "$what (part $part of $parts): $badflip of $nflip corruptions differ from git ($gitbad found by git)"
	fi
}
section_flip_pack_1() { # long nowine
mkflips
flip_sweep "$T/flips" pack 0x5a 12 5 20 250 "a byte flipped in a pack" 1/3
}
section_flip_pack_2() { # long nowine
mkflips
flip_sweep "$T/flips" pack 0x5a 12 5 20 250 "a byte flipped in a pack" 2/3
}
section_flip_pack_3() { # long nowine
mkflips
flip_sweep "$T/flips" pack 0x5a 12 5 20 250 "a byte flipped in a pack" 3/3
}
# ... and every 3rd byte of its idx: git's lines on stderr in git's order (an idx that does not
# open, its checksum, CRC-32s, IDs and offsets read object by object as git's verify_packfile
# does, with the lines of git's object reader).
section_flip_idx_1() { # long nowine
mkflips
flip_sweep "$T/flips" idx 0x5a 0 3 0 300 "a byte flipped in a idx" 1/4
}
section_flip_idx_2() { # long nowine
mkflips
flip_sweep "$T/flips" idx 0x5a 0 3 0 300 "a byte flipped in a idx" 2/4
}
section_flip_idx_3() { # long nowine
mkflips
flip_sweep "$T/flips" idx 0x5a 0 3 0 300 "a byte flipped in a idx" 3/4
}
section_flip_idx_4() { # long nowine
mkflips
flip_sweep "$T/flips" idx 0x5a 0 3 0 300 "a byte flipped in a idx" 4/4
}

# 7e. An objects/pack that does not open for another reason than its absence (a file, a loop of
#     symbolic links): git's "unable to open object pack directory" line at the pack scan and again
#     at each re-reading of the pack directories (a lookup of an object it does not find); git
#     2.39's read of such an object dies on the errno opendir left ("failed to read object"), as
#     at a ref to a packed commit, where 2.55 says "invalid sha1 pointer" and goes on (its lines at
#     its snapshot and after the refs); links into the pack are broken links when the refs are loose.
section_pack_dir() { # nowine leaks
for how in file loop; do
	for refs in loose packed; do
		r=$T/packdir-$how-$refs
		mkrepo "$r"
		(
			cd "$r" && git repack -qad && git prune-packed || exit 1
			if [ $refs = loose ]; then
				# no ref (nor index entry) left at a packed object: git goes on to the end
				git tag -d v1 >/dev/null && echo 4 >f4 && git add f4 && git commit -qm c4 &&
					rm .git/index || exit 1
			fi
			mv .git/objects/pack .git/objects/pack.away || exit 1
			case $how in
			file) echo x >.git/objects/pack ;;
			loop) ln -s pack .git/objects/pack ;;
			esac
		) || fail "could not make the repository $r"
		$exact "objects/pack: a $how, refs at $refs objects" "$r"
		compare "objects/pack: a $how, refs at $refs objects, --connectivity-only" "$r" --connectivity-only
	done
done
# a pack whose name is not pack-*: git loads any X.idx with its X.pack (and checks its X.rev); one
# blob is left out of it, so that the pack is what the walk reads
r=$T/packdir-names
mkrepo "$r"
(
	cd "$r" && git repack -qad && git prune-packed || exit 1
	gone=$(git rev-parse HEAD:f2) &&
		git rev-list --objects --all | cut -d' ' -f1 | grep -v "$gone" |
		git pack-objects -q .git/objects/pack/new >"$T/names.h" && rm .git/objects/pack/pack-* || exit 1
) || fail "could not make the repository $r"
compare "a pack named new-*.pack, one blob not in it" "$r"
h=$(<"$T/names.h")
(cd "$r" && git index-pack --rev-index ".git/objects/pack/new-$h.pack" >/dev/null &&
	printf '\377' | dd of=".git/objects/pack/new-$h.rev" bs=1 seek=12 conv=notrunc 2>/dev/null) ||
	fail "could not write new-$h.rev"
compare "a pack named new-*.pack, its .rev damaged" "$r"
# a .rev whose X.idx is not there belongs to no pack git loads: left with no pack at all (a trial's
# orphan), beside its X.pack, and beside its X.pack named in a multi-pack-index (whose own load says
# "index unavailable"); git checks none of them
r=$T/packdir-revs
mkrepo "$r"
(
	cd "$r" && git repack -qad && git prune-packed && git multi-pack-index write || exit 1
	printf 'RIDX' >.git/objects/pack/pack-1111111111111111111111111111111111111111.rev
) || fail "could not make the repository $r"
$exact "an orphan .rev, no pack nor idx beside it" "$r"
(cd "$r" && p=$(ls .git/objects/pack/pack-*.idx) && printf 'RIDX' >"${p%.idx}.rev" && mv "$p" "$T/revs.idx") ||
	fail "could not move the idx of $r"
compare "a damaged .rev beside its pack, its idx gone, the pack in a multi-pack-index" "$r"
rm -f "$r/.git/objects/pack/multi-pack-index"
compare "a damaged .rev beside its pack, its idx gone" "$r"
# a sound .rev whose pack was emptied or cut short (a power loss): git 2.41+ builds the pack order
# with a radix sort that stops at the pack's size, so an empty pack gives the idx order (a line for
# each entry out of place: 600 files, more lines than one buffer of sha1kit's holds) and a pack cut
# below 64 KiB sorts offsets above it on their low 16 bits
r=$T/packdir-revcut
mkrepo "$r"
(
	cd "$r" && mkdir many && for k in $(seq 600); do echo "$k" >"many/$k"; done &&
		for k in 1 2 3 4 5 6; do head -c 20000 /dev/urandom >"big$k"; done &&
		git add . && git commit -qm big && git repack -qad && git prune-packed &&
		p=$(ls .git/objects/pack/pack-*.pack) && git index-pack --rev-index "$p" >/dev/null &&
		cp "$p" "$T/revcut.pack" && head -c 1000 "$T/revcut.pack" >"$p" || exit 1
) || fail "could not make the repository $r"
compare "a pack cut to 1000 bytes, its idx and sound .rev left" "$r"
(cd "$r" && p=$(ls .git/objects/pack/pack-*.pack) && : >"$p") || fail "could not empty the pack of $r"
compare "a pack emptied, its idx and sound .rev left" "$r"
# two packs' .rev files damaged: git reports them in its list of packs, sorted newer .pack first,
# not in the directory's order (a fuzzer's case)
r=$T/packdir-revorder
mkrepo "$r"
(
	cd "$r" && git tag -d v1 >/dev/null && git -c pack.writeReverseIndex=true repack -qad || exit 1
	touch -d 2020-01-01 .git/objects/pack/*.pack && echo more >more && git add more &&
		git commit -qm more && git -c pack.writeReverseIndex=true repack -qd && rm .git/index || exit 1
	for f in .git/objects/pack/*.rev; do
		printf '\377' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") - 1)) conv=notrunc 2>/dev/null || exit 1
	done
	[ "$(ls .git/objects/pack/*.rev | wc -l)" = 2 ]
) || fail "could not make the repository $r"
$exact "two packs' .rev checksums broken" "$r"
# a pack cut to 16 bytes (its header whole, shorter than its trailer): git's pread of the trailer at
# a negative offset says EINVAL, on which git 2.39 dies at its first read; a .pack that is a link to
# itself: git leaves it out (ELOOP), and 2.39 dies on that errno too (a fuzzer's cases)
for how in cut16 selflink; do
	r=$T/packdir-$how
	mkrepo "$r"
	(
		cd "$r" && git repack -qad && git prune-packed && p=$(ls .git/objects/pack/*.pack) || exit 1
		case $how in
		cut16) head -c 16 "$p" >"$T/cut16" && cat "$T/cut16" >"$p" ;;
		selflink) rm "$p" && ln -s "${p##*/}" "$p" ;;
		esac
	) || fail "could not make the repository $r"
	$exact "objects/pack: $how" "$r"
done
# --connectivity-only over a pack that does not match its idx (a byte appended): git lists the
# idx's objects, and its second listing (dangling lines on) reads each it did not reach for its
# type and parses it ("Unknown object type"), then names it "dangling unknown" / "unreachable
# unknown" after reading its type once more (a fuzzer's most frequent case)
r=$T/packdir-appended
mkrepo "$r"
(cd "$r" && git repack -qad && git prune-packed && p=$(ls .git/objects/pack/*.pack) && printf x >>"$p") ||
	fail "could not make the repository $r"
$exact "a byte appended to the pack, --connectivity-only" "$r" --connectivity-only
compare "a byte appended to the pack, --connectivity-only --unreachable" "$r" --connectivity-only --unreachable
compare "a byte appended to the pack, --connectivity-only --no-dangling" "$r" --connectivity-only --no-dangling
# the same pack under a newer one holding the branch's commit: git's parse of that commit at the
# ref looks its parent up as a commit, so the walk says "Could not read" there, not "Unknown
# object type" (the fuzzer's next most frequent case)
r=$T/packdir-appended2
mkrepo "$r"
(cd "$r" && git repack -qad && echo 4 >f4 && git add f4 && git commit -qm c4 && git repack -qd &&
	p=$(ls -S .git/objects/pack/*.pack | head -1) && printf x >>"$p") ||
	fail "could not make the repository $r"
$exact "a byte appended to the older pack, --connectivity-only" "$r" --connectivity-only
# three packs of 20 commits each under a commit-graph, the middle one cut in half (a new user's
# trial): git's walk parses that pack's commits from the graph where it reaches them as commits
# (parent links), so it says "Could not read" for their trees only, even for the commits a
# reflog's entry reached first
r=$T/packdir-cutgraph
mk3packs "$r" && (cd "$r" && p=$(ls -t .git/objects/pack/*.pack | sed -n 2p) &&
	truncate -s $(($(stat -c %s "$p") / 2)) "$p") || fail "could not make the repository $r"
# (Wine: the lines of a pack cut short name it Z:/...)
if [ -z "${SK_WINDOWS:-}" ]; then
	$exact "a pack cut in half under a commit-graph, --connectivity-only" "$r" --connectivity-only
	compare "a pack cut in half under a commit-graph, --connectivity-only --unreachable" "$r" \
		--connectivity-only --unreachable
fi
# the state `git maintenance run --task=loose-objects` leaves (a loose-*.pack beside the loose files
# it packed, until its next run), without and with a multi-pack-index over it, one byte of a delta
# base tree changed in the pack: git's verify_pack reads the base from its loose copy when a delta
# needs it (unpack_entry), its walk reads the trees again with the same lines, and nothing dies (a
# new user's trial: sha1kit said "cannot unpack" for the delta, and died through the
# multi-pack-index); with --connectivity-only the walk's reads give those lines alone
r=$T/packdir-maint
git init -q "$r" && (cd "$r" && for i in 1 2 3 4; do
	mkdir -p d$((i % 3)) && echo "line $i" >>d$((i % 3))/f$((i % 4)).txt && echo $i >top.txt && git add -A &&
		GIT_COMMITTER_DATE="$((1700000000 + i * 60)) +0000" git commit -qm "c$i" || exit 1
done && git maintenance run --task=loose-objects >/dev/null && p=$(ls .git/objects/pack/loose-*.pack) &&
	t=$(git rev-parse HEAD~1^{tree}) && off=$(git verify-pack -v "${p%.pack}.idx" | awk -v t="$t" '$1 == t { print $5 }') &&
	chmod u+w "$p" && b=$(od -An -tu1 -j$((off + 8)) -N1 "$p") &&
	printf "$(printf '\\%03o' $((b ^ 1)))" | dd of="$p" bs=1 seek=$((off + 8)) conv=notrunc 2>/dev/null) ||
	fail "could not make the repository $r"
cp -a "$r" "$r-midx" && (cd "$r-midx" && git multi-pack-index write >/dev/null) || fail "could not make $r-midx"
for d in "$r" "$r-midx"; do
	compare_exact "a loose-*.pack with a delta base changed, its loose files kept (${d##*/})" "$d"
	compare_exact "a loose-*.pack with a delta base changed, its loose files kept (${d##*/}), --connectivity-only" \
		"$d" --connectivity-only
done
# a cruft pack (git gc --cruft) with one byte of an unreachable tree, commit or blob changed: with
# --connectivity-only, git's listing of what unreachable objects use (mark_unreachable_referents,
# with the dangling lines or --lost-found) parses every unreachable commit and tree and dies at the
# corrupt one; not with --no-dangling, nor at a blob (a new user's trial: sha1kit said sound, 0)
r=$T/packdir-cruft
git init -q "$r" && (cd "$r" && echo a >a && git add a && git commit -qm one && git checkout -qb side &&
	mkdir d && echo b >d/b && git add d && git commit -qm two && git checkout -q - && git branch -qD side &&
	git reflog expire --expire=now --all && git gc -q --cruft --prune=never) ||
	fail "could not make the repository $r"
for what in tree commit blob; do
	cp -a "$r" "$r-$what"
	(cd "$r-$what" && p=$(ls .git/objects/pack/*.mtimes) && p=${p%.mtimes} &&
		off=$(git verify-pack -v "$p.idx" | awk -v w=$what '$2 == w { print $5; exit }') && chmod u+w "$p.pack" &&
		b=$(od -An -tu1 -j$((off + 8)) -N1 "$p.pack") &&
		printf "$(printf '\\%03o' $((b ^ 1)))" | dd of="$p.pack" bs=1 seek=$((off + 8)) conv=notrunc 2>/dev/null) ||
		fail "could not damage the $what of $r"
	for o in "" --unreachable --no-dangling; do
		compare "a cruft pack's unreachable $what changed, --connectivity-only $o" "$r-$what" \
			--connectivity-only $o
	done
done
# the test must see what it is meant to: git's line more than once, and, at a ref to an object it
# no longer finds, git 2.39 dying (128) where 2.55 says "invalid sha1 pointer" and goes on (10)
n=$(cd "$T/packdir-file-loose" && refgit fsck --full 2>&1 | grep -c 'unable to open object pack directory')
[ "$n" -ge 3 ] && pass || fail "objects/pack a file, loose refs: git prints its line $n times, not at each broken link"
(cd "$T/packdir-loop-packed" && refgit fsck --full >/dev/null 2>&1)
rc=$?
case $SHA1KIT_GIT_VERSION in 2.39*) want=128 ;; *) want=10 ;; esac
[ $rc = $want ] && pass || fail "objects/pack a loop, refs at packed objects: git $SHA1KIT_GIT_VERSION exits $rc, not $want"
(cd "$T/packdir-loop-loose" && refgit fsck --full >/dev/null 2>&1)
[ $? = 2 ] && pass || fail "objects/pack a loop, refs at loose objects: git does not go on to exit 2"
}

# 8. commit-graph and multi-pack-index: a flipped byte near the end (the checksum) and in the
#    header (the multi-pack-index's signature too); an objects/xx that is a file (git says so and
#    goes on).
section_graph_midx() {
for what in graph-sum graph-head midx-sum midx-head midx-sig; do
	r=$T/$what
	mkrepo "$r"
	(cd "$r" && git repack -qad && git commit-graph write --reachable 2>/dev/null && git multi-pack-index write 2>/dev/null)
	case $what in
	graph-*) f=$r/.git/objects/info/commit-graph ;;
	midx-*) f=$r/.git/objects/pack/multi-pack-index ;;
	esac
	chmod u+w "$f"
	case $what in
	*-sum) off=$(($(stat -c %s "$f") - 3)) ;;
	*-head) off=5 ;;
	*-sig) off=0 ;; # git fsck dies at its first load of the file: its fatal line once
	esac
	printf '\x5a' | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
	compare "$what flipped" "$r"
	# core.commitGraph / core.multiPackIndex false (repo-settings.c): git neither loads the file
	# nor runs its verify, so nothing is said of it (found by a new user's trial)
	case $what in
	graph-*) key=core.commitGraph ;;
	midx-*) key=core.multiPackIndex ;;
	esac
	(cd "$r" && git config "$key" false)
	compare_exact "$what flipped, $key false" "$r"
	(cd "$r" && git config "$key" maybe)
	compare_exact "$what flipped, $key not a boolean" "$r"
done
# a split chain with a layer gone, core.commitGraph false
r=$T/graph-off-chain
mkrepo "$r"
(cd "$r" && git commit-graph write --reachable --split 2>/dev/null && echo x >x && git add x &&
	git commit -qm x && git commit-graph write --reachable --split=no-merge 2>/dev/null &&
	rm -f "$(ls .git/objects/info/commit-graphs/*.graph | head -1)" && git config core.commitGraph false)
compare_exact "a chain's layer gone, core.commitGraph false" "$r"
# a chain whose top layer has no generation data (written with commitGraph.generationVersion=1) on a
# layer that has it: git reads the generations of no layer from that chunk (commit-graph.c
# validate_mixed_generation_chain), so a sound chain is sound (found by a new user's trial)
r=$T/graph-mixed-gen
git init -q "$r"
for i in 1 2 3 4; do
	(cd "$r" && echo $i >$i && git add $i &&
		GIT_COMMITTER_DATE="$((1700000000 + i * 100)) +0000" git commit -qm $i &&
		case $i in
		2) git commit-graph write --reachable --split=no-merge 2>/dev/null ;;
		4) git -c commitGraph.generationVersion=1 commit-graph write --reachable --split=no-merge 2>/dev/null ;;
		esac)
done
compare_exact "a chain with generation data below, none on top" "$r"
# a chain whose layers' changed-path (Bloom filter) settings differ (commitGraph.changedPathsVersion
# 1, then 2, written by the reference Git: 2.39.5 writes version 1 twice): git 2.55 warns that it
# disables the filters of the lower layer, at fsck's load and at its verify's (found by a new user's
# trial); then a layer's BDAT header flipped
# a loose commit of the commit-graph whose zlib stream is damaged in its header: the verify
# process's read_object_file dies naming the file ("loose object ... is corrupt"), where sha1kit
# said "Could not read" (found by a new user's differential fuzzer)
r=$T/graph-loose-bad
mkrepo "$r"
(cd "$r" && git commit-graph write --reachable 2>/dev/null)
f=$(obj_path "$r" "$(cd "$r" && git rev-parse HEAD~1)")
chmod u+w "$f"
printf '\x63' | dd of="$f" bs=1 seek=7 conv=notrunc 2>/dev/null
compare_exact "a loose commit of the commit-graph damaged" "$r"
# an octopus merge whose extra-edges pointer in the commit-graph is out of the EDGE chunk: git 2.55
# says so and fails the commit's parse ("failed to parse commit ... from commit-graph"), where
# sha1kit died (found by a new user's differential fuzzer)
r=$T/graph-edges
mkrepo "$r"
(cd "$r" && for b in o1 o2 o3; do git checkout -q -b $b master~1 && echo $b >$b && git add $b &&
	git commit -qm $b; done && git checkout -q master && git merge -q -m octopus o1 o2 o3 >/dev/null 2>&1 &&
	git commit-graph write --reachable 2>/dev/null) || fail "graph-edges: could not make the octopus"
f=$r/.git/objects/info/commit-graph
off=$(python3 -c "
import struct, sys
d = open(sys.argv[1], 'rb').read()
rawsz = 32 if d[5] == 2 else 20
chunks = {}
for i in range(d[6] + 1):
    cid, o = struct.unpack('>IQ', d[8 + 12 * i:20 + 12 * i])
    chunks[cid] = o
cdat, n = chunks[0x43444154], struct.unpack('>I', d[chunks[0x4f494446] + 1020:chunks[0x4f494446] + 1024])[0]
ends = sorted(chunks.values())
edge = chunks[0x45444745]
words = (ends[ends.index(edge) + 1] - edge) // 4
for k in range(n):
    at = cdat + k * (rawsz + 16) + rawsz + 4
    if struct.unpack('>I', d[at:at + 4])[0] & 0x80000000:
        print(at, '%08x' % (0x80000000 | words))
        break
" "$f")
if [ -n "$off" ]; then
	# the pointer just past the chunk: 2.39.5 reads the next word of the file (no bounds check)
	set -- $off
	chmod u+w "$f"
	printf "\\x${2:0:2}\\x${2:2:2}\\x${2:4:2}\\x${2:6:2}" | dd of="$f" bs=1 seek="$1" conv=notrunc 2>/dev/null
	compare_exact "an extra-edges pointer out of bounds" "$r"
else
	fail "graph-edges: no commit with extra edges in $f"
fi
# a commit-graph (without generation data: generationVersion=1) in which one commit's generation is
# zero: git 2.55 prints one line for the layer ("has both zero and non-zero generations (e.g.,
# commits Z and N)"), 2.39.5 a line per commit after the first zero (found by a new user's fuzzer)
r=$T/graph-gen-zero
mkrepo "$r"
(cd "$r" && echo more >m && git add m && git commit -qm more &&
	git -c commitGraph.generationVersion=1 commit-graph write --reachable 2>/dev/null)
f=$r/.git/objects/info/commit-graph
off=$(python3 -c "
import struct, sys
d = open(sys.argv[1], 'rb').read()
rawsz = 32 if d[5] == 2 else 20
for i in range(d[6]):
    cid, o = struct.unpack('>IQ', d[8 + 12 * i:20 + 12 * i])
    if cid == 0x43444154:
        print(o + rawsz + 16 + rawsz + 8)
" "$f")
chmod u+w "$f"
printf '\0\0\0\0' | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
compare_exact "a commit's generation zero in the commit-graph" "$r"
r=$T/graph-mixed-bloom
git init -q "$r"
for i in 1 2 3 4; do
	(cd "$r" && echo $i >$i && git add $i && git commit -qm $i &&
		case $i in
		2) refgit -c commitGraph.changedPathsVersion=1 commit-graph write --reachable --split=no-merge --changed-paths 2>/dev/null ;;
		4) refgit -c commitGraph.changedPathsVersion=2 commit-graph write --reachable --split=no-merge --changed-paths 2>/dev/null ;;
		esac)
done
compare_exact "a chain with other Bloom filter settings below" "$r"
r=$T/graph-bloom-flip
git init -q "$r"
for i in 1 2 3 4; do
	(cd "$r" && echo $i >$i && git add $i && git commit -qm $i &&
		case $i in 2 | 4) git commit-graph write --reachable --split=no-merge --changed-paths 2>/dev/null ;; esac)
done
f=$(ls "$r"/.git/objects/info/commit-graphs/*.graph | head -1)
off=$(python3 -c "
import struct, sys
d = open(sys.argv[1], 'rb').read()
n = d[6]
for i in range(n):
    cid, o = struct.unpack('>IQ', d[8 + 12 * i:20 + 12 * i])
    if cid == 0x42444154:
        print(o + 7)
" "$f")
if [ -n "$off" ]; then
	chmod u+w "$f"
	printf '\x09' | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
	compare_exact "a layer's Bloom filter header changed" "$r"
else
	fail "graph-bloom-flip: no BDAT chunk in $f"
fi
r=$T/xx-file
mkrepo "$r"
(cd "$r" && git repack -qad && : >.git/objects/13)
compare "objects/13 is a file" "$r"
# a split commit-graph whose base layer is gone, and a branch at an object that is not there: git's
# own load of the graph warns at its first parse of a commit, before the lines of the refs (a new
# user's trial: a `clone --shared` whose origin pruned)
r=$T/graph-chain-early
mkrepo "$r"
(
	cd "$r" && git commit-graph write --reachable --split=no-merge && echo 5 >f5 && git add f5 &&
		git commit -qm c5 && git commit-graph write --reachable --split=no-merge &&
		d=.git/objects/info/commit-graphs && [ "$(wc -l <$d/commit-graph-chain)" = 2 ] &&
		rm "$d/graph-$(head -1 $d/commit-graph-chain).graph" &&
		echo 1111111111111111111111111111111111111111 >.git/refs/heads/gone
) || fail "could not make the repository $r"
$exact "a split commit-graph without its base layer, a branch at a missing object" "$r"
# a commit-graph git cannot read (no permission): fsck's commit-graph verify dies naming it as the
# repository spells its object directory, with 2.39.5 too (its graph_verify finds the object
# directory by the absolute path fsck gives it: a new user's trial); not under Wine
r=$T/graph-unreadable
mkrepo "$r"
(cd "$r" && git commit-graph write --reachable && chmod 000 .git/objects/info/commit-graph) ||
	fail "could not make the repository $r"
nocap_compare "commit-graph unreadable" "$r"
# the pack git cannot read (no permission) under a commit-graph: 2.39.5's commit-graph verify dies
# at its first commit on that errno (`failed to read object ID: Permission denied`), 2.55 reads on
# (a new user's trial); not under Wine
r=$T/graph-pack-unreadable
mk3packs "$r" && chmod 000 "$(ls -t "$r"/.git/objects/pack/*.pack | sed -n 2p)" ||
	fail "could not make the repository $r"
nocap_compare "pack unreadable under a commit-graph" "$r"
# and with --connectivity-only: git lists the idx's objects all the same, its walk cannot read them
# (2.55: "Could not read", "Unknown object type", "dangling unknown"; 2.39.5 dies on EACCES at
# the first it reads; a new user's trial)
nocap_compare "pack unreadable under a commit-graph, --connectivity-only" "$r" --connectivity-only
chmod 644 "$r"/.git/objects/pack/*.pack
# objects/pack that git cannot open, under a commit-graph: the commit-graph verify's first read
# prepares its packs and prints the directory's line once more (a new user's trial)
chmod 000 "$r/.git/objects/pack"
nocap_compare "objects/pack unreadable under a commit-graph" "$r"
chmod 755 "$r/.git/objects/pack"
}

# 8b. Two packs under one multi-pack-index with the same objects (`git repack -a` without -d, or
#     `git maintenance run --task=incremental-repack`), and the pack it names for them lost: git's
#     lookups go where the multi-pack-index sends them and no further (midx.c fill_midx_entry), so
#     the tips, the cache-tree and the trees its walk reads again do not read for git though the
#     other pack has them (a fresh user's trial: sha1kit read the other copy and said nothing).
#     The pack deleted or cut short, with and without a commit-graph (whose verify reads every
#     commit afresh).
section_midx_routed() {
local how graph r hows=(rm trunc)
# (Wine: the lines of a pack cut short name it Z:/..., and the reflogs come in another order)
[ -n "${SK_WINDOWS:-}" ] && hows=(rm)
for how in "${hows[@]}"; do
	for graph in nograph graph; do
		r=$T/routed-$how-$graph
		mkrepo "$r"
		(
			cd "$r" && git repack -qd && git checkout -q -b side && echo 4 >f4 && git add f4 &&
				git commit -qm c4 && git checkout -q master && git repack -qa && git prune-packed &&
				git multi-pack-index write || exit 1
			[ $graph = graph ] && { git commit-graph write --reachable || exit 1; }
			head=$(git rev-parse HEAD)
			for p in .git/objects/pack/*.pack; do
				git show-index <"${p%.pack}.idx" | grep -q "$head" || continue
				mv "$p" "$T/routed.pack"
				if git cat-file -e HEAD 2>/dev/null; then
					mv "$T/routed.pack" "$p" # not the pack the multi-pack-index names
					continue
				fi
				if [ $how = trunc ]; then
					head -c $(($(stat -c %s "$T/routed.pack") - 40)) "$T/routed.pack" >"$p"
				fi
				exit 0
			done
			exit 1
		) || fail "could not make the repository $r"
		$exact "multi-pack-index to a lost pack ($how, $graph)" "$r"
		compare "multi-pack-index to a lost pack ($how, $graph), --unreachable --name-objects" "$r" --unreachable --name-objects
		[ $graph = graph ] ||
			compare "multi-pack-index to a lost pack ($how), --connectivity-only --no-dangling" "$r" --connectivity-only --no-dangling
	done
done
# both packs emptied: a lookup prints the line of the pack the multi-pack-index names, not of the
# other pack that also lists the object (a new user's trial)
r=$T/routed-both
mkrepo "$r"
(
	cd "$r" && git repack -qd && git checkout -q -b side && echo 4 >f4 && git add f4 &&
		git commit -qm c4 && git checkout -q master && git repack -qa && git prune-packed &&
		git multi-pack-index write || exit 1
	for p in .git/objects/pack/*.pack; do : >"$p" || exit 1; done
) || fail "could not make the repository $r"
[ -n "${SK_WINDOWS:-}" ] || compare "multi-pack-index over two emptied packs with the same objects" "$r"
# the same in an alternate (git clone --shared): git goes through each source's multi-pack-index
r=$T/routed-alt
mkrepo "$r-a"
(
	cd "$r-a" && git repack -qd && git checkout -q -b side && echo 4 >f4 && git add f4 &&
		git commit -qm c4 && git checkout -q master && git repack -qa && git prune-packed &&
		git multi-pack-index write && git clone -q --shared "$r-a" "$r" 2>/dev/null || exit 1
	head=$(git rev-parse HEAD)
	for p in .git/objects/pack/*.pack; do
		git show-index <"${p%.pack}.idx" | grep -q "$head" || continue
		mv "$p" "$T/routed-alt.pack"
		git cat-file -e HEAD 2>/dev/null || exit 0
		mv "$T/routed-alt.pack" "$p"
	done
	exit 1
) || fail "could not make the repository $r"
compare "an alternate's multi-pack-index to a lost pack" "$r"
# HEAD's ID swapped with the first (its checksum made right): git's lookup through it misses
# them, and it does not look in its packs otherwise, so HEAD cannot be read (helpers of
# tests/git/midxchain/cases.sh)
r=$T/routed-order
mkrepo "$r"
(
	. "$(dirname "${BASH_SOURCE[0]}")/midxchain/cases.sh" &&
		cd "$r" && git repack -qad && git prune-packed && git multi-pack-index write || exit 1
	f=.git/objects/pack/multi-pack-index && a=$(midx_chunk "$f" OIDL) &&
		k=$(git show-index <.git/objects/pack/*.idx | cut -d' ' -f2 | sort | grep -n "$(git rev-parse HEAD)") &&
		k=$((${k%%:*} - 1)) && [ "$k" -gt 0 ] &&
		dd if="$f" bs=1 skip="$a" count=20 2>/dev/null >"$T/order.0" &&
		dd if="$f" bs=1 skip=$((a + 20 * k)) count=20 2>/dev/null >"$T/order.k" &&
		dd if="$T/order.k" of="$f" bs=1 seek="$a" conv=notrunc 2>/dev/null &&
		dd if="$T/order.0" of="$f" bs=1 seek=$((a + 20 * k)) conv=notrunc 2>/dev/null &&
		midx_resum "$f" && ! git cat-file -e HEAD 2>/dev/null
) || fail "could not make the repository $r"
$exact "a multi-pack-index with HEAD's ID out of order" "$r"
compare "a multi-pack-index with HEAD's ID out of order, --connectivity-only" "$r" --connectivity-only
# HEAD's entry names a pack-int-id beyond the packs (checksum made right): git dies at its first
# lookup of HEAD (bad pack-int-id), a tree's (HEAD~1^{tree}) when its walk reads the tree again
for what in HEAD HEAD~1^{tree}; do
	r=$T/routed-packid-${what//[~^\{\}]/-}
	mkrepo "$r"
	(
		. "$(dirname "${BASH_SOURCE[0]}")/midxchain/cases.sh" &&
			cd "$r" && git repack -qad && git prune-packed && git multi-pack-index write || exit 1
		f=.git/objects/pack/multi-pack-index && a=$(midx_pos "$f" "$(git rev-parse "$what")") &&
			midx_put "$f" $(($(midx_chunk "$f" OOFF) + 8 * a + 3)) '\011' && midx_resum "$f"
	) || fail "could not make the repository $r"
	$exact "a multi-pack-index whose entry for $what names pack-int-id 9 of 1" "$r"
done
# two packs of the same objects under it (`git repack -a` without -d), a tree's zlib data damaged
# in the pack it names: git's walk reads the tree again through it, only from that copy, and dies
# (the third helper's r4 of an earlier session)
r=$T/routed-badcopy
mkrepo "$r"
(
	. "$(dirname "${BASH_SOURCE[0]}")/midxchain/cases.sh" &&
		cd "$r" && git repack -qd && echo 4 >f4 && git add f4 && git commit -qm c4 && git repack -qa &&
		git prune-packed && git multi-pack-index write || exit 1
	t=$(git rev-parse HEAD~1:d) && n=$(midx_pack_name .git/objects/pack/multi-pack-index "$t") &&
		p=.git/objects/pack/${n%.idx}.pack && [ "$(ls .git/objects/pack/*.pack | wc -l)" = 2 ] &&
		at=$(git verify-pack -v ".git/objects/pack/$n" | awk -v t="$t" '$1 == t {print $5 + 4}') &&
		b=$(od -An -tu1 -j"$at" -N1 "$p") && chmod u+w "$p" &&
		midx_put "$p" "$at" "$(printf '\\%03o' $((b ^ 90)))"
) || fail "could not make the repository $r"
compare "two packs of the same objects, a tree damaged in the one the multi-pack-index names" "$r"
# the test must see what it is meant to: git cannot read HEAD, which the other pack holds
(cd "$T/routed-rm-nograph" && ! git cat-file -e HEAD 2>/dev/null &&
	[ "$(for i in .git/objects/pack/*.idx; do git show-index <"$i"; done | grep -c "$(git rev-parse HEAD)")" = 2 ]) &&
	pass || fail "midx_routed: HEAD readable by git, or not in two packs"
}

# 8a. A pack that git cannot read, under a commit-graph (which `git gc` writes): git fsck's `git
#     commit-graph verify` reads every commit of the graph afresh, in a process of its own that
#     has marked nothing bad: for a corrupt packed commit, unpack_entry's lines and `fatal: packed
#     object ... is corrupt` (the verify dies); for a pack that does not open, its line at both
#     looks of each lookup, then `Could not read`. stderr in git's order exactly (the new user's
#     trial found both).
section_graph_bad_pack() {
local v r f
for v in "flip 200 single" "flip 300 split" "trunc 100 single" "trunc 100 split"; do
	set -- $v
	# the multi-pack-index's verify names packs by absolute paths, which Wine spells its own way
	[ -n "${SK_WINDOWS:-}" ] && [ "$3" = split ] && continue
	r=$T/gbp-$1-$2-$3
	mkrepo "$r"
	(
		cd "$r" && git repack -qad || exit 1
		if [ "$3" = split ]; then
			git commit-graph write --reachable --split 2>/dev/null && git multi-pack-index write 2>/dev/null
		else
			git commit-graph write --reachable 2>/dev/null
		fi
	) || bad "could not make $r"
	f=$(ls "$r"/.git/objects/pack/*.pack)
	chmod u+w "$f"
	if [ "$1" = flip ]; then
		printf '\x5a' | dd of="$f" bs=1 seek="$2" conv=notrunc 2>/dev/null
	else
		truncate -s "$2" "$f"
	fi
	$exact "pack $1 $2 under a commit-graph ($3)" "$r"
done
}

# 8b. commit-graph contents (git's verify_commit_graph): one byte changed in a chunk and the
#    trailing checksum recomputed (the SHA-1 of all bytes before the last 20), so that only git's
#    comparison of the graph with the object database can see it; a single file and both layers of
#    a split chain; a commit of the graph missing from the object store; packs removed under the
#    graph. stderr in git's order exactly.
cg_u8() { od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '; }                    # cg_u8 FILE OFF
cg_u64() { od -An -tu8 --endian=big -j "$2" -N8 "$1" | tr -d ' '; }       # cg_u64 FILE OFF
cg_chunk() { # cg_chunk FILE ID: the offset of chunk ID
	local k n
	n=$(cg_u8 "$1" 6)
	for ((k = 0; k < n; k++)); do
		if [ "$(dd if="$1" bs=1 skip=$((8 + 12 * k)) count=4 2>/dev/null)" = "$2" ]; then
			cg_u64 "$1" $((12 + 12 * k))
			return
		fi
	done
	echo "no chunk $2 in $1" >&2
	echo 0
}
cg_put() { # cg_put FILE OFF HEX...: bytes written at OFF
	local f=$1 off=$2
	shift 2
	printf "$(printf '\\x%s' "$@")" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
}
cg_resum() { # cg_resum FILE: the trailing checksum recomputed; prints it
	local n sum
	n=$(($(stat -c %s "$1") - $(rawsz)))
	sum=$(head -c "$n" "$1" | hashsum)
	cg_put "$1" "$n" $(echo "$sum" | sed 's/../& /g')
	echo "$sum"
}
cg_poke() { # cg_poke FILE CHUNK OFF-IN-CHUNK XOR: one byte changed, checksum recomputed
	local f=$1 at
	chmod u+w "$f"
	at=$(($(cg_chunk "$f" "$2") + $3))
	cg_put "$f" "$at" "$(printf '%02x' $(($(cg_u8 "$f" "$at") ^ $4)))"
	cg_resum "$f" >/dev/null
}
mkgraph_repo() { # a repository of 5 commits, one a merge, with fixed dates
	[ -d "$T/cg.template" ] || (
		git init -q "$T/cg.template" && cd "$T/cg.template" || exit 1
		for i in 1 2 3; do
			echo "$i" >"f$i" && git add "f$i"
			GIT_COMMITTER_DATE="170000000$i +0000" git commit -qm "c$i"
		done
		git checkout -q -b side HEAD~1 && echo s >s && git add s
		GIT_COMMITTER_DATE="1700000004 +0000" git commit -qm side
		git checkout -q master && GIT_COMMITTER_DATE="1700000005 +0000" git merge -q --no-edit side
	)
	cp -a "$T/cg.template" "$1"
}
mkgraph_chain() { # mkgraph_repo, with a commit-graph chain of two layers (3 commits, then 2)
	mkgraph_repo "$1"
	(
		cd "$1" || exit 1
		git reset -q --hard HEAD~2 && git commit-graph write --reachable --split 2>/dev/null
		git reset -q --hard master@{1} && git commit-graph write --reachable --split=no-merge 2>/dev/null
	)
}
section_graph_contents() {
local r f what
# CHUNK OFFSET XOR. CDAT: 36 bytes a commit: root tree (20), parents (4 + 4), level and date
# (4 + 4); GDA2: 4 a commit; OIDL: 20 a commit; OIDF: 256 x 4. Parents changed to other commits
# and out of range, levels git does not read (it reads GDA2). Not here: an overflow offset with no
# GDO2, on which git fsck itself dies while it parses commits (docs/git.md).
for what in "CDAT 5 1" "CDAT 149 1" "CDAT 23 1" "CDAT 131 1" \
	"CDAT 99 2" "CDAT 167 1" "CDAT 166 16" \
	"CDAT 29 4" "CDAT 35 1" "CDAT 107 2" "GDA2 3 1" \
	"OIDL 0 128" "OIDL 41 1" \
	"OIDF 403 1" "OIDF 1023 1" "OIDF 0 1"; do
	set -- $what
	sk_share_skip && continue # the sanitizers: only the cases they compare (testlib.sh)
	r=$T/cg-$1-$2
	mkgraph_repo "$r"
	(cd "$r" && git commit-graph write --reachable 2>/dev/null)
	cg_poke "$r/.git/objects/info/commit-graph" "$1" "$2" "$3"
	$exact "commit-graph contents: $*" "$r"
	# git's --connectivity-only walk parses commits from the graph (but the ref tips)
	$exact "commit-graph contents, --connectivity-only: $*" "$r" --connectivity-only
done
# a pack that does not match its idx (its trailer changed): git's --connectivity-only lists the
# idx's objects all the same, parses the commits from the graph and fails to read the trees in its
# walk ("does not match index" at each look, "Could not read", "Unknown object type" for a
# reflog's commit git has no type for); the refs' tips do not parse
for what in graph nograph; do
	r=$T/cg-unopened-$what
	mkgraph_repo "$r"
	(
		cd "$r" || exit 1
		git repack -qad
		[ $what = graph ] && git commit-graph write --reachable 2>/dev/null
		p=$(ls .git/objects/pack/*.pack)
		chmod u+w "$p"
		printf '\377' | dd of="$p" bs=1 seek=$(($(stat -c %s "$p") - 1)) conv=notrunc 2>/dev/null
	)
	$exact "a pack that does not match its idx, $what, --connectivity-only --no-dangling" "$r" --connectivity-only --no-dangling
done
# a parent position beyond the graph: git's walk dies on it (fatal: invalid parent position 99),
# but not with a shallow file, even an empty one (commit_graph_compatible): then only the
# commit-graph verify dies (bit 16)
for what in plain shallow; do
	r=$T/cg-p99-$what
	mkgraph_repo "$r"
	(cd "$r" && git commit-graph write --reachable 2>/dev/null)
	f=$r/.git/objects/info/commit-graph
	chmod u+w "$f"
	cg_put "$f" $(($(cg_chunk "$f" CDAT) + $(rawsz))) 00 00 00 63
	cg_resum "$f" >/dev/null
	[ $what = shallow ] && : >"$r/.git/shallow"
	$exact "commit-graph: a parent position beyond it, $what, --connectivity-only" "$r" --connectivity-only
done
# the same, packed (the walk reads no commit the graph has), and a packed commit that does not
# inflate, which git's --connectivity-only never reads when the graph has it
for what in "CDAT 5 1" "CDAT 23 1" "CDAT 29 4" "OIDL 41 1" "none"; do
	set -- $what
	sk_share_skip && continue
	r=$T/cg-packed-$1-${2:-}
	mkgraph_repo "$r"
	(cd "$r" && git repack -qad && git commit-graph write --reachable 2>/dev/null)
	if [ "$1" = none ]; then
		(
			cd "$r" || exit 1
			p=$(ls .git/objects/pack/*.pack)
			at=$(git verify-pack -v .git/objects/pack/*.idx | awk -v h="$(git rev-parse HEAD~1)" '$1 == h {print $5 + $4 - 3}')
			[ -n "$at" ] || exit 1
			chmod u+w "$p"
			printf '\377' | dd of="$p" bs=1 seek="$at" conv=notrunc 2>/dev/null
		)
	else
		cg_poke "$r/.git/objects/info/commit-graph" "$1" "$2" "$3"
	fi
	$exact "commit-graph contents, packed, --connectivity-only: $*" "$r" --connectivity-only
	$exact "commit-graph contents, packed, --connectivity-only --no-dangling: $*" "$r" --connectivity-only --no-dangling
done
# a commit of the graph missing from the object store
r=$T/cg-missing
mkgraph_repo "$r"
(cd "$r" && git commit-graph write --reachable 2>/dev/null && rm -f "$(obj_path . "$(git rev-parse HEAD~1)")")
$exact "commit-graph: a commit not in the object store" "$r"
# packs removed under the graph
r=$T/cg-nopacks
mkgraph_repo "$r"
(cd "$r" && git repack -qad && git commit-graph write --reachable 2>/dev/null && rm -f .git/objects/pack/*)
$exact "commit-graph: packs removed" "$r"
# a split chain of two layers: a byte of the tip; a byte of the base (renamed to its new checksum,
# the tip's BASE chunk and the chain file rewritten, so that the chain still loads)
local C=.git/objects/info/commit-graphs layer base tip sum
for what in "2 CDAT 5 1" "2 CDAT 35 1" "2 OIDL 0 255" "1 CDAT 23 1" "1 CDAT 71 1" "1 GDA2 3 1"; do
	set -- $what
	sk_share_skip 2 && continue
	r=$T/cg-chain-$1-$2-$3
	mkgraph_chain "$r"
	base=$(sed -n 1p "$r/$C/commit-graph-chain")
	tip=$(sed -n 2p "$r/$C/commit-graph-chain")
	[ -n "$tip" ] || fail "commit-graph chain: not two layers"
	layer=$(sed -n "$1p" "$r/$C/commit-graph-chain")
	cg_poke "$r/$C/graph-$layer.graph" "$2" "$3" "$4"
	if [ "$1" = 1 ]; then
		sum=$(cg_resum "$r/$C/graph-$base.graph")
		mv "$r/$C/graph-$base.graph" "$r/$C/graph-$sum.graph"
		chmod u+w "$r/$C/graph-$tip.graph" "$r/$C/commit-graph-chain"
		cg_put "$r/$C/graph-$tip.graph" "$(cg_chunk "$r/$C/graph-$tip.graph" BASE)" $(echo "$sum" | sed 's/../& /g')
		cg_resum "$r/$C/graph-$tip.graph" >/dev/null
		printf '%s\n%s\n' "$sum" "$tip" >"$r/$C/commit-graph-chain"
	fi
	$exact "commit-graph chain contents: layer $*" "$r"
	$exact "commit-graph chain contents, --connectivity-only: layer $*" "$r" --connectivity-only
	# with --progress: git 2.55's fsck runs the verify with --progress, whose meter counts the
	# commits of both layers, its lines among the errors (2.39.5's shows none)
	$exact "commit-graph chain contents, --progress: layer $*" "$r" --progress
done
# the base layer rewritten (its checksum made right, so the chain no longer names it) with a
# parent position beyond it: git loads it alone (the chain's two warnings) and its
# --connectivity-only walk dies at that commit, the warnings first
r=$T/cg-chain-p3
mkgraph_chain "$r"
base=$(sed -n 1p "$r/$C/commit-graph-chain")
f=$r/$C/graph-$base.graph
chmod u+w "$f"
local cd k p1
cd=$(cg_chunk "$f" CDAT)
for k in 0 1 2; do
	p1=$(od -An -tu4 --endian=big -j $((cd + (k * ($(rawsz) + 16)) + $(rawsz))) -N4 "$f" | tr -d ' ')
	[ "$p1" = 1879048192 ] || cg_put "$f" $((cd + (k * ($(rawsz) + 16)) + $(rawsz))) 00 00 00 03
done
cg_resum "$f" >/dev/null
$exact "commit-graph chain: the base rewritten, a parent beyond it, --connectivity-only" "$r" --connectivity-only
# both layers changed (the tip's root tree, then the base's): git 2.55 verifies every layer with
# one error state (the base's first pass, not its second), 2.39.5 stops at the tip
r=$T/cg-chain-both
mkgraph_chain "$r"
base=$(sed -n 1p "$r/$C/commit-graph-chain")
tip=$(sed -n 2p "$r/$C/commit-graph-chain")
cg_poke "$r/$C/graph-$base.graph" CDAT 23 1
sum=$(cg_resum "$r/$C/graph-$base.graph")
mv "$r/$C/graph-$base.graph" "$r/$C/graph-$sum.graph"
chmod u+w "$r/$C/graph-$tip.graph" "$r/$C/commit-graph-chain"
cg_put "$r/$C/graph-$tip.graph" "$(cg_chunk "$r/$C/graph-$tip.graph" BASE)" $(echo "$sum" | sed 's/../& /g')
cg_poke "$r/$C/graph-$tip.graph" CDAT 5 1
cg_resum "$r/$C/graph-$tip.graph" >/dev/null
printf '%s\n%s\n' "$sum" "$tip" >"$r/$C/commit-graph-chain"
$exact "commit-graph chain contents: both layers" "$r"
$exact "commit-graph chain contents, --progress: both layers" "$r" --progress
# the chain file names its top layer twice: git 2.55 finds the layer's BASE chunk too small for
# the layers below it (2.39.5 finds the chain does not match); found by a new user's trial
r=$T/cg-chain-twice
mkgraph_chain "$r"
chmod u+w "$r/$C/commit-graph-chain"
tail -n 1 "$r/$C/commit-graph-chain" >>"$r/$C/commit-graph-chain"
$exact "commit-graph chain: the top layer named twice" "$r"
}

# 8c. multi-pack-index contents (git's verify_midx_file): a repository of three packs (one per
#    commit: its commit, tree and blob) under a multi-pack-index, a chunk changed and the trailing
#    checksum recomputed (cg_resum), so that only verify's checks of the contents see it. In OID
#    order the objects are: 0 blob (pack 1), 1 blob (pack 0), 2 commit, 3 tree, 4 tree, 5 commit,
#    6 commit, 7 blob (pack 2), 8 tree. Only the entries of blobs and commits are changed, and a
#    tree's offset past the end of its pack: git fsck itself reads trees again through the
#    multi-pack-index while it walks, which sha1kit follows only where that read dies at the
#    lookup (a bad pack-int-id, an offset past the end; docs/git.md). stderr in git's order.
mx_chunk() { # mx_chunk FILE ID: the offset of chunk ID (the table of contents starts at 12)
	local k n
	n=$(cg_u8 "$1" 6)
	for ((k = 0; k < n; k++)); do
		if [ "$(dd if="$1" bs=1 skip=$((12 + 12 * k)) count=4 2>/dev/null)" = "$2" ]; then
			cg_u64 "$1" $((16 + 12 * k))
			return
		fi
	done
	echo "no chunk $2 in $1" >&2
	echo 0
}
mx_poke() { # mx_poke FILE CHUNK OFF-IN-CHUNK XOR: one byte changed (checksum recomputed by the caller)
	local f=$1 at
	chmod u+w "$f"
	at=$(($(mx_chunk "$f" "$2") + $3))
	cg_put "$f" "$at" "$(printf '%02x' $(($(cg_u8 "$f" "$at") ^ $4)))"
}
mx_bytes() { printf "$(printf '\\x%s' "$@")"; }
mx_be64() { # the 8 bytes of a big-endian 64-bit VALUE, in hex
	local k
	for ((k = 56; k >= 0; k -= 8)); do printf '%02x ' $((($1 >> k) & 255)); done
}
mx_add_loff() { # mx_add_loff FILE VALUE...: a large offsets chunk (LOFF) of these offsets added last
	local f=$1 n k body end v
	shift
	n=$(cg_u8 "$f" 6)
	body=$((12 + 12 * (n + 1)))
	end=$(($(stat -c %s "$f") - $(rawsz)))
	{
		head -c 6 "$f"
		mx_bytes "$(printf '%02x' $((n + 1)))"
		dd if="$f" bs=1 skip=7 count=5 2>/dev/null
		for ((k = 0; k < n; k++)); do # the chunks move 12 bytes on
			dd if="$f" bs=1 skip=$((12 + 12 * k)) count=4 2>/dev/null
			mx_bytes $(mx_be64 $(($(cg_u64 "$f" $((16 + 12 * k))) + 12)))
		done
		printf LOFF
		mx_bytes $(mx_be64 $((end + 12)))
		mx_bytes 00 00 00 00 $(mx_be64 $((end + 12 + 8 * $#)))
		tail -c +$((body + 1)) "$f" | head -c $((end - body))
		for v in "$@"; do mx_bytes $(mx_be64 "$v"); done
		head -c "$(rawsz)" /dev/zero # the checksum, recomputed by the caller
	} >"$f.new"
	chmod u+w "$f"
	mv "$f.new" "$f"
}
mkmidx_repo() {
	[ -d "$T/mx.template" ] || (
		git init -q "$T/mx.template" && cd "$T/mx.template" || exit 1
		for i in 1 2 3; do
			echo "$i" >"f$i" && git add "f$i" && git commit -qm "c$i" && git repack -qd
		done
		git multi-pack-index write
	)
	cp -a "$T/mx.template" "$1"
}
# The pack of the template's second commit (pack-c6... with SHA-1), without its extension.
mx_pack2() {
	local c i
	c=$(git -C "$1" rev-parse HEAD~1)
	for i in "$1"/.git/objects/pack/*.idx; do
		if git -C "$1" show-index <"$i" | grep -q " $c"; then
			echo "${i%.idx}"
			return
		fi
	done
}
section_midx_contents() {
local r m what p
# CHUNK OFFSET XOR [CHUNK OFFSET XOR]. OIDF: 256 x 4; OIDL: 20 an object; OOFF: 8 an object
# (pack-int-id, offset). Fanout out of order, and too low for object 0; IDs out of order or not
# in their pack; a pack-int-id beyond the packs (git dies) or of another pack; offsets changed
# (two, in packs 1 and 2: git's lines come pack by pack, the last pack first); an offset with the
# large-offset bit and no LOFF chunk; a tree's offset past the end of its pack (git's walk reads
# the tree through the multi-pack-index and dies).
for what in "OIDF 400 1" "OIDF 3 2" "OIDF 3 1" "OIDL 0 128" "OIDL 21 1" \
	"OOFF 3 2" "OOFF 3 1" "OOFF 7 1" "OOFF 4 128" "OOFF 7 1 OOFF 63 1" "OOFF 28 1"; do
	set -- $what
	sk_share_skip 2 && continue # the sanitizers: only the cases they compare (testlib.sh)
	r=$T/mx-$1-$2-$3${4:+-$4-$5-$6}
	mkmidx_repo "$r"
	m=$r/.git/objects/pack/multi-pack-index
	mx_poke "$m" "$1" "$2" "$3"
	[ $# = 6 ] && mx_poke "$m" "$4" "$5" "$6"
	cg_resum "$m" >/dev/null
	$exact "multi-pack-index contents: $what" "$r"
	# git 2.55's verify runs with --progress under fsck's: its three meters among its lines
	$exact "multi-pack-index contents, --progress: $what" "$r" --progress
done
# a LOFF chunk, object 0's offset an index into it: its right offset, a wrong one, and an index
# beyond the chunk (git 2.39.5 reads on, here into the checksum; git 2.55 dies)
for what in "150 0" "406 0" "150 1"; do
	set -- $what
	sk_share_skip && continue
	r=$T/mx-loff-$1-$2
	mkmidx_repo "$r"
	m=$r/.git/objects/pack/multi-pack-index
	mx_add_loff "$m" "$1"
	cg_put "$m" $(($(mx_chunk "$m" OOFF) + 4)) 80 00 00 "0$2"
	cg_resum "$m" >/dev/null
	$exact "multi-pack-index contents: LOFF [$1], object 0 at index $2" "$r"
done
# a pack the multi-pack-index names removed (its .pack and .idx; its .pack alone; its .idx alone:
# still in git's list of packs, an idx that does not open, and git's lookups through the
# multi-pack-index of the objects it places there print "index unavailable"), also with
# --connectivity-only (no pack check: no "index not opened", no bit 4)
for what in "pack idx" "pack" "idx"; do
	r=$T/mx-rm-${what// /-}
	mkmidx_repo "$r"
	p=$(mx_pack2 "$r")
	for ext in $what; do
		rm "$p.$ext"
	done
	$exact "multi-pack-index contents: a pack removed ($what)" "$r"
	$exact "multi-pack-index contents: a pack removed ($what), --connectivity-only" "$r" \
		--connectivity-only
done
# a pack that does not open (its header's object count changed): git's line each time it tries.
# Not under Wine: verify's line names the pack by its absolute path, which the Windows build
# spells its own way.
if [ -z "${SK_WINDOWS:-}" ]; then
	r=$T/mx-count
	mkmidx_repo "$r"
	p=$(mx_pack2 "$r")
	chmod u+w "$p.pack"
	cg_put "$p.pack" 11 04
	$exact "multi-pack-index contents: a pack that does not open" "$r"
fi
}

# 10. Loose objects read by several threads: the stderr lines in git's order exactly (directory by
# directory), not only as a set; and where git dies on an object (a directory in an object's
# place: mmap fails), nothing after it. --threads=4 on any machine, so that directories finish
# out of order.
section_threads() {
r=$T/many
git init -q "$r"
(
	cd "$r" || exit 1
	for i in $(seq 1 120); do echo "blob $i" | git hash-object -w --stdin; done >ids
	n=0
	while read -r id; do
		n=$((n + 1))
		p=.git/objects/${id:0:2}/${id:2}
		chmod u+w "$p"
		case $((n % 3)) in
		0) head -c 9 "$p" >"$p.t" && mv "$p.t" "$p" ;;
		1) printf 'garbage' >>"$p" ;;
		esac
	done <ids
)
compare "120 loose blobs, 80 corrupt, many directories" "$r"
if [ -n "${SK_WINDOWS:-}" ]; then
	# Under Wine the directories list in another order than the host git's, and a directory is
	# not mapped (no fatal): the order and the stop are POSIX tests.
	echo "Windows: the exact order and the stop where git dies are not compared"
else
	compare_exact "120 loose blobs, 80 corrupt, many directories" "$r" --no-dangling
	# a directory where git expects the object file of the 60th ID: git dies there
	mid=$(sed -n 60p "$r/ids")
	rm -f "$r/.git/objects/${mid:0:2}/${mid:2}"
	mkdir "$r/.git/objects/${mid:0:2}/${mid:2}"
	compare_exact "a directory in an object's place" "$r" --no-dangling
fi
}

# 11. Progress: git's lines with --progress, none by default when stderr is not a terminal.
section_progress() {
r=$T/progress
mkrepo "$r"
(cd "$r" && git repack -qd)
n=$(cd "$r" && git count-objects -v | sed -n 's/^in-pack: //p')
(cd "$r" && "$SK" fsck --progress >/dev/null 2>"$T/p.err")
if tr '\r' '\n' <"$T/p.err" | grep -qx "Checking objects: 100% ($n/$n), done." &&
	tr '\r' '\n' <"$T/p.err" | grep -qx "Checking object directories: 100% (256/256), done."; then
	pass
else
	fail "--progress: no 'Checking objects: 100% ($n/$n), done.' line"
	tr '\r' '\n' <"$T/p.err" | tail -5
fi
(cd "$r" && "$SK" fsck >/dev/null 2>"$T/p.err")
if grep -q Checking "$T/p.err"; then
	fail "progress lines without --progress on a file"
else
	pass
fi
# git's lines byte for byte, on a file: git draws no object directory but the 256th (its callback
# holds no meter), a pack's objects every 1024 and at the pack's end, nothing for a meter that never
# moved (no pack at all); several packs, one over 1024 objects; loose objects only; and (graphs)
# git 2.55's meters of its commit-graph and multi-pack-index verify processes: a commit-graph chain
# of two layers (the meter counts both), and over 4096 objects under a multi-pack-index (its meters
# draw every 4096th object, and the total at the end)
local p
for p in many loose graphs; do
	r=$T/progress-$p
	mkrepo "$r"
	if [ $p = many ]; then
		# each new pack one second newer than the one before: packs of the same second are read in
		# directory order (git's sort is by mtime in seconds), which is not the same under Wine
		(
			cd "$r" && for i in $(seq 1 3); do
				for j in $(seq 1 400); do echo "$i $j" >"f$j"; done
				before=$(ls .git/objects/pack/)
				git add . && git commit -qm "round $i" && git repack -q
				for f in .git/objects/pack/*.pack; do
					case "$before" in *"${f##*/}"*) ;; *) touch -d "@$((1700000000 + i))" "$f" ;; esac
				done
			done
		)
	elif [ $p = graphs ]; then
		(
			cd "$r" || exit 1
			# 4200 blobs in one commit (fast-import), then two more commits in a second pack
			{
				echo "commit refs/heads/master"
				echo "committer C <c@example.com> 1700000000 +0000"
				echo "data 4"
				echo big
				echo "from $(git rev-parse HEAD)"
				for i in $(seq 1 4200); do
					echo "M 100644 inline many/$i"
					echo "data ${#i}"
					echo "$i"
				done
			} | git fast-import --quiet
			git reset -q && git repack -qd # the index only: no checkout of 4200 files
			git commit-graph write --reachable --split 2>/dev/null
			for i in 1 2; do echo "$i" >top && git add top && git commit -qm "top $i"; done
			git repack -qd && git commit-graph write --reachable --split=no-merge 2>/dev/null
			git multi-pack-index write 2>/dev/null
		)
	fi
	local c
	# --connectivity-only: git lists the objects without the object check's meters
	for c in "" --connectivity-only; do
		# shellcheck disable=SC2086 # no option is no word
		(cd "$r" && refgit fsck --progress $c >/dev/null 2>"$T/pg.err")
		# shellcheck disable=SC2086
		(cd "$r" && "$SK" fsck --progress $c >/dev/null 2>"$T/p.err")
		if same_file "$T/pg.err" "$T/p.err"; then
			pass
		else
			fail "--progress $c ($p): not git's lines"
			diff <(tr '\r' '\n' <"$T/pg.err") <(tr '\r' '\n' <"$T/p.err") | head -10
		fi
	done
done
}

# 12. Blobs that trees name .gitmodules and .gitattributes (git's fsck_blob and fsck_finish):
# checked once each, loose or packed (deltas in the pack), missing, or not a blob.
section_special() { # leaks
mkspecial() { # mkspecial NAME: a repository whose branch 'sp' has a tree naming blobs specially
	local r=$T/sp-$1
	mkrepo "$r"
	(
		cd "$r" || exit 1
		long=$(head -c 3000 /dev/zero | tr '\0' a)
		# two versions of each, so that a repack stores one as a delta of the other
		for v in 1 2; do
			printf '*.c diff\n%s%s\n*.h text\n' "$long" "$v" >.gitattributes
			printf '[submodule "s"]\n\tpath = s\n\turl = https://example.com/s%s\n' "$v" >.gitmodules
			git add .gitattributes .gitmodules
			git commit -qm "special $v"
		done
		git branch sp
	)
}
# special_apart (in a repository): HEAD's .gitmodules and .gitattributes blobs alone in a pack, every
# other object in another, the loose copies pruned; prints the name of the first pack
special_apart() {
	local sp name
	sp=$(git rev-parse HEAD:.gitmodules HEAD:.gitattributes) || return 1
	name=$(echo "$sp" | git pack-objects -q .git/objects/pack/pack) || return 1
	git rev-list --objects --all | cut -d' ' -f1 | grep -v -F "$sp" | git pack-objects -q .git/objects/pack/pack >/dev/null &&
		git prune-packed && echo "$name"
}
mkspecial loose
compare "special blobs, loose" "$T/sp-loose"
cp -r "$T/sp-loose" "$T/sp-packed"
(cd "$T/sp-packed" && git repack -qadf --window=10 --depth=10)
compare "special blobs, packed" "$T/sp-packed"
compare "special blobs, packed, --connectivity-only" "$T/sp-packed" --connectivity-only
(cd "$T/sp-packed" && git config fsck.gitattributesLineLength warn)
compare "special blobs, packed, fsck.gitattributesLineLength=warn" "$T/sp-packed"
# core.bigFileThreshold: git's pass over the objects streams a blob over it (loose: above it,
# packed: from it up) and checks a .gitmodules or .gitattributes blob it meets after the tree that
# names it without its content, "too large to parse"; fsck_finish reads one it met before whole.
# A value that is no number is fatal. sha1kit read no core.bigFileThreshold (512 MiB always).
r=$T/sp-bigfile
git init -q "$r"
(
	cd "$r" || exit 1
	echo 3 >pad # the tree 413773d6..., before the blobs 6604c111... and 78ded1e2...
	{
		printf '[submodule "a"]\n\tpath = a\n\turl = https://example.com/a\n'
		for i in $(seq 1 60); do printf '# comment line %03d padding padding padding\n' "$i"; done
	} >.gitmodules
	for i in $(seq 1 80); do printf '*.x%03d text eol=lf\n' "$i"; done >.gitattributes
	git add pad .gitmodules .gitattributes && git commit -qm big && git config core.bigFileThreshold 1k
) || fail "could not make the repository of core.bigFileThreshold"
# loose: the tree comes before both blobs in git's order of the directories
compare_exact "core.bigFileThreshold=1k, loose" "$r"
cp -a "$r" "$r-packs"
(
	cd "$r-packs" || exit 1
	older=$(special_apart)
	for p in .git/objects/pack/*.pack; do touch -d 2021-01-01 "$p"; done
	touch -d 2020-01-01 ".git/objects/pack/pack-$older.pack"
) || fail "could not pack the repository of core.bigFileThreshold"
compare_exact "core.bigFileThreshold=1k, the blobs in an older pack than their tree" "$r-packs"
git -C "$r-packs" repack -qad
compare_exact "core.bigFileThreshold=1k, one pack" "$r-packs"
for v in abc 1x -1 99999999999999999999; do
	git -C "$r-packs" config core.bigFileThreshold "$v"
	compare_exact "core.bigFileThreshold=$v" "$r-packs"
done
# the special blobs alone in a pack whose idx does not load (a fan-out entry out of order), the
# rest in a sound pack git looks in first (newer): git's read of each special blob at the end looks
# in the packs twice, each time with the idx's line
cp -r "$T/sp-loose" "$T/sp-badidx"
(
	cd "$T/sp-badidx" || exit 1
	bad=$(special_apart)
	touch -d 2020-01-01 ".git/objects/pack/pack-$bad.pack"
	i=.git/objects/pack/pack-$bad.idx
	chmod u+w "$i"
	printf '\377' | dd of="$i" bs=1 seek=488 conv=notrunc 2>/dev/null
)
compare "special blobs, packed, the idx does not load" "$T/sp-badidx"
# the .gitmodules blob alone in an older pack whose idx has the fan-out entry of its first byte
# zeroed (still in order: the idx loads, its checksum fails and lookups miss the blob): git's pass
# over that pack reads it through the idx in index order, after the tree: checked there, and
# fsck_finish has nothing to read
r=$T/sp-fanout
mkrepo "$r"
(
	cd "$r" || exit 1
	printf '[submodule "s"]\n\tpath = s\n\turl = https://e.com/s\n' >.gitmodules
	git add .gitmodules && git commit -qm gm
	gm=$(git rev-parse HEAD:.gitmodules)
	git rev-list --objects --all | cut -d' ' -f1 | grep -v "$gm" | git pack-objects -q .git/objects/pack/pack >/dev/null
	bp=$(echo "$gm" | git pack-objects -q .git/objects/pack/pack)
	echo "$bp" >.git/sp-bp
	git prune-packed
	i=.git/objects/pack/pack-$bp.idx
	chmod u+w "$i"
	printf '\0\0\0\0' | dd of="$i" bs=1 seek=$((8 + 4 * 16#${gm:0:2})) conv=notrunc 2>/dev/null
	for p in .git/objects/pack/*.pack; do touch -d 2021-01-01 "$p"; done
	touch -d 2020-01-01 ".git/objects/pack/pack-$bp.pack"
)
compare "special blobs, .gitmodules in an older pack whose idx misses it" "$r"
# the same pack newer than the tree's: git's pass meets the blob before its tree, and its read at
# the end misses it as the lookup does (gitmodulesMissing)
cp -a "$r" "$r-newer"
(
	cd "$r-newer" || exit 1
	for p in .git/objects/pack/*.pack; do touch -d 2020-01-01 "$p"; done
	touch -d 2021-01-01 ".git/objects/pack/pack-$(<.git/sp-bp).pack"
)
compare "special blobs, .gitmodules in a newer pack whose idx misses it" "$r-newer"
cp -r "$T/sp-loose" "$T/sp-missing"
id=$(cd "$T/sp-missing" && git rev-parse HEAD:.gitmodules)
rm -f "$(obj_path "$T/sp-missing" "$id")"
compare "special blobs, .gitmodules missing" "$T/sp-missing"
r=$T/sp-nonblob
mkrepo "$r"
(
	cd "$r" || exit 1
	sub=$(git rev-parse HEAD:d)
	sraw=$(echo "$sub" | sed 's/../\\x&/g')
	# a directory named .gitmodules: git remembers it all the same, and finds a tree at the end
	tree=$(printf '%b' "40000 .gitmodules\0$sraw" | git hash-object --literally -t tree -w --stdin)
	git update-ref refs/heads/sp "$(git commit-tree -m sp "$tree")"
)
compare "special blobs, .gitmodules is a tree" "$r"
# the content checks of .gitmodules (each message, several in one blob), loose and packed
r=$T/sp-bad-modules
mkrepo "$r"
(
	cd "$r" || exit 1
	printf '[submodule "../../x"]\n\tpath = -sub\n\turl = -oProxyCommand=evil\n\tupdate = !rm -rf /\n[submodule "ok"]\n\turl = https://example.com/ok\n' >.gitmodules
	git add .gitmodules && git commit -qm gm
)
compare "bad .gitmodules, loose" "$r"
(cd "$r" && git config fsck.gitmodulesUrl ignore)
compare "bad .gitmodules, fsck.gitmodulesUrl=ignore" "$r"
(cd "$r" && git config --unset fsck.gitmodulesUrl && git gc -q)
compare "bad .gitmodules, packed" "$r"
# a special blob that is there but corrupt: the object check reports it, and git's fsck_finish
# dies reading it (odb_read_object): "loose / packed object ... is corrupt", exit 128
for where in loose packed; do
	r=$T/sp-corrupt-$where
	cp -r "$T/sp-loose" "$r"
	(
		cd "$r" || exit 1
		[ $where = packed ] && git repack -qad
		list=$(ls .git/objects/pack/*.idx 2>/dev/null | xargs -r git verify-pack -v)
		for f in .gitmodules .gitattributes; do
			id=$(git rev-parse "HEAD:$f")
			if [ $where = loose ]; then
				o=$(obj_path . "$id")
				# .gitmodules: the end of the zlib stream (its check value); .gitattributes:
				# its first byte (the header does not inflate)
				at=$(($(stat -c %s "$o") - 3))
				[ $f = .gitattributes ] && at=2
			else
				# the last bytes of each entry (the zlib check value)
				o=$(ls .git/objects/pack/*.pack)
				at=$(echo "$list" | awk -v h="$id" '$1 == h {print $5 + $4 - 3}')
			fi
			[ -n "$at" ] || exit 1
			chmod u+w "$o"
			printf '\x00' | dd of="$o" bs=1 seek="$at" conv=notrunc 2>/dev/null
		done
	)
	compare "special blobs, both corrupt, $where" "$r"
	compare "special blobs, both corrupt, $where, --no-dangling" "$r" --no-dangling
done
# many special blobs with findings, loose, packed half way, packed: git's pass checks those it
# meets after their tree in its order, fsck_finish the others in the order of its oidset's
# buckets (khash); stderr in git's order
local c pk long
long=$(head -c 3000 /dev/zero | tr '\0' a)
for pk in none mid all; do
	r=$T/sp-many-$pk
	mkrepo "$r"
	(
		cd "$r" || exit 1
		for c in $(seq 1 12); do
			printf '[submodule "m%d"]\n\tpath = m\n\turl = -oProxyCommand=x%d\n' "$c" "$c" >.gitmodules
			printf '*.c diff=%d\n%s\n' "$c" "$long" >.gitattributes
			git add .gitmodules .gitattributes && git commit -qm "special $c"
			[ $pk = mid ] && [ "$c" = 6 ] && git repack -qad
		done
		[ $pk = all ] && git repack -qad
		# one corrupt .gitmodules among them (packed: a delta base): fsck_finish dies at the first
		# unreadable one in its order
		id=$(git rev-parse "HEAD~4:.gitmodules")
		if [ $pk = none ]; then
			o=$(obj_path . "$id")
			at=$(($(stat -c %s "$o") - 3))
		else
			o=$(ls .git/objects/pack/*.pack | head -n 1)
			at=$(ls .git/objects/pack/*.idx | xargs -n 1 git verify-pack -v |
				awk -v h="$id" '$1 == h {print $5 + int($4 / 2)}')
		fi
		cp -r . ../sp-many-$pk-ok
		[ -n "$at" ] && [ -n "$o" ] || exit 1
		o=${o#./}
		chmod u+w "../sp-many-$pk-ok/$o" "$o"
		printf '\377' | dd of="$o" bs=1 seek="$at" conv=notrunc 2>/dev/null
	)
	compare_exact "special blobs, twelve with findings, $pk" "$r-ok"
	# (git prints the pass's lines about the corrupt blob among its findings there: sorted)
	compare "special blobs, twelve with findings, one corrupt, $pk" "$r"
done
# a .gitmodules blob git's pass checks where it meets it (after its tree) prints its lines there,
# among the other objects' (found by a new user's trial: sha1kit printed them after all of them).
# Packed: after gc the newer commit's tree and its bad .gitmodules come before an older tree with
# a .GIT entry (hasDotgit). Loose: a tree whose ID sorts before its blob's, and a commit without
# an author whose ID sorts after it.
r=$T/sp-order-packed
git init -q "$r"
(
	cd "$r" || exit 1
	b=$(echo hello | git hash-object -w --stdin)
	t1=$(printf '%b' "100644 .GIT\0$(echo "$b" | sed 's/../\\x&/g')" | git hash-object --literally -t tree -w --stdin)
	c1=$(echo one | git commit-tree "$t1")
	gm=$(printf '[submodule "x"]\n\tpath = x\n\turl = -oProxyCommand=evil\n' | git hash-object -w --stdin)
	t2=$(printf '%b' "100644 .gitmodules\0$(echo "$gm" | sed 's/../\\x&/g')" | git hash-object --literally -t tree -w --stdin)
	git update-ref refs/heads/main "$(echo two | git commit-tree "$t2" -p "$c1")"
	git -c transfer.fsckObjects=false -c fsck.hasDotgit=ignore gc -q 2>/dev/null
)
compare_exact "special blobs, the pass's lines in place, packed" "$r"
r=$T/sp-order-loose
git init -q "$r"
(
	cd "$r" || exit 1
	for i in $(seq 1 300); do
		gm=$(printf '[submodule "x"]\n\tpath = x\n\turl = -oProxy%d\n' "$i" | git hash-object -w --stdin)
		t=$(printf '%b' "100644 .gitmodules\0$(echo "$gm" | sed 's/../\\x&/g')" |
			git hash-object --literally -t tree -w --stdin)
		if [[ ${t:0:1} < ${gm:0:1} && ${gm:0:1} != f ]]; then break; fi
		rm -f "$(obj_path . "$gm")" "$(obj_path . "$t")"
	done
	for i in $(seq 1 300); do
		c=$(printf 'tree %s\ncommitter C <c@x> 1700000000 +0000\n\n%d\n' "$t" "$i" |
			git hash-object --literally -t commit -w --stdin)
		[[ ${c:0:1} > ${gm:0:1} ]] && break
		rm -f "$(obj_path . "$c")"
	done
	git update-ref refs/heads/main "$c"
)
compare_exact "special blobs, the pass's lines in place, loose" "$r"
# both copies of each special blob, loose and packed (`git repack -a` without -d): git's pass
# checks each copy it meets after the tree, its lines at each (exit bits 1 and 4; found by a new
# user's trial: sha1kit checked one copy)
r=$T/sp-two-copies
git init -q "$r"
(
	cd "$r" || exit 1
	printf '[submodule "x"]\n\tpath = x\n\turl = -oProxyCommand=x\n' >.gitmodules
	{
		head -c 3000 /dev/zero | tr '\0' a
		echo " text"
	} >.gitattributes
	echo 1 >f
	git add -A 2>/dev/null
	git commit -qm c1 2>/dev/null
	git repack -qa 2>/dev/null
)
compare_exact "special blobs, a loose and a packed copy of each" "$r"
}

# 13. Usage errors: git's status 129 (in a repository: git parses its options after finding it),
# one line saying what is wrong, nothing on stdout.
section_usage() {
need_clean
(cd "$T/clean" && refgit fsck --bogus-option >/dev/null 2>&1)
grc=$?
for args in --bogus-option --threads=x "--threads= 3" "a b" "--git-dir=$T/clean/.git $T/clean" \
	--git-version=2.47 --git-version=3.0 --git-version=2.55.x --git-version= --no-full "--full --no-full"; do
	# shellcheck disable=SC2086 # the cases are word lists
	(cd "$T/clean" && "$SK" fsck $args >"$T/u.out" 2>"$T/u.err")
	src=$?
	if [ "$src" = 129 ] && [ "$grc" = 129 ] && [ ! -s "$T/u.out" ] && grep -q -- "--help" "$T/u.err"; then
		pass
	else
		fail "usage error '$args': sha1kit fsck exits $src (git $grc for an unknown option)"
		cat "$T/u.err"
	fi
done
# a Git's maintenance release names it (2.55.1 is 2.55); SHA1KIT_GIT_VERSION as --git-version;
# --no-full then --full is --full (the last one counts)
local v
for v in --git-version=2.55.1 --git-version=2.39.10 "--no-full --full"; do
	# shellcheck disable=SC2086 # the cases are word lists
	(cd "$T/clean" && "$SK" fsck $v >"$T/u.out" 2>"$T/u.err")
	src=$?
	[ "$src" = 0 ] && [ ! -s "$T/u.err" ] && pass || fail "sha1kit fsck $v: exit $src: $(head -c 200 "$T/u.err")"
done
# SHA1KIT_FSCK_TRACE: a file that does not open stops fsck before the check, as a fatal error;
# one that does holds the records and the status (sk_trace_bits runs on every compare)
(cd "$T/clean" && SHA1KIT_FSCK_TRACE="$T/no-dir/trace" "$SK" fsck >"$T/u.out" 2>"$T/u.err")
src=$?
[ "$src" = 128 ] && [ ! -s "$T/u.out" ] &&
	[ "$(cat "$T/u.err")" = "fatal: SHA1KIT_FSCK_TRACE: cannot open '$T/no-dir/trace': No such file or directory" ] &&
	pass || fail "SHA1KIT_FSCK_TRACE in a missing directory: exit $src: $(head -c 200 "$T/u.err")"
rm -f "$T/u.trace"
(cd "$T/clean" && SHA1KIT_FSCK_TRACE="$T/u.trace" "$SK" fsck --root >"$T/u.out" 2>"$T/u.err")
src=$?
[ "$src" = 0 ] && [ "$(tail -n 1 "$T/u.trace")" = "exit 0" ] &&
	grep -q "^0	[0-9]*	-	root $(git -C "$T/clean" rev-list --max-parents=0 HEAD)\$" "$T/u.trace" && pass ||
	fail "SHA1KIT_FSCK_TRACE: exit $src, trace: $(head -c 300 "$T/u.trace")"
(cd "$T/clean" && SHA1KIT_GIT_VERSION=2.47 "$SK" fsck >"$T/u.out" 2>"$T/u.err")
src=$?
[ "$src" = 129 ] && grep -q '^sha1kit: fsck: SHA1KIT_GIT_VERSION=2.47: the Git to follow is 2.39 or 2.55' "$T/u.err" && pass ||
	fail "SHA1KIT_GIT_VERSION=2.47: exit $src: $(head -c 200 "$T/u.err")"
# --help of each command: on standard output, status 0, and no line wider than 80 columns
local c w l
for c in fsck index-pack verify-pack hash-object sum refs; do
	"$SK" "$c" --help >"$T/h.out" 2>"$T/h.err"
	src=$?
	w=0
	while IFS= read -r l; do
		l=${l%$'\r'} # Windows' line ends
		[ ${#l} -le $w ] || w=${#l}
	done <"$T/h.out"
	if [ "$src" = 0 ] && [ -s "$T/h.out" ] && [ ! -s "$T/h.err" ] && [ "$w" -le 80 ]; then
		pass
	else
		fail "$c --help: exit $src, widest line $w columns (at most 80)"
	fi
done
# -h as git's: the usage on standard output, status 129 (sum is sha1sum's: no -h); sha1kit -h is
# its --help
local gh
for c in fsck index-pack verify-pack hash-object "refs verify" refs; do
	# shellcheck disable=SC2086 # "refs verify" is two words
	(cd "$T/clean" && "$SK" $c -h >"$T/h.out" 2>"$T/h.err")
	src=$?
	# shellcheck disable=SC2086
	(cd "$T/clean" && refgit $c -h >/dev/null 2>&1)
	gh=$?
	# (git refs: 2.47 and later)
	if [ "$src" = 129 ] && { [ "$gh" = 129 ] || [ "${c%% *}" = refs ]; } && [ -s "$T/h.out" ] && [ ! -s "$T/h.err" ]; then
		pass
	else
		fail "$c -h: exit $src (git $gh), $(head -c 200 "$T/h.err")"
	fi
done
"$SK" -h >"$T/h.out" 2>"$T/h.err"
src=$?
[ "$src" = 0 ] && [ -s "$T/h.out" ] && [ ! -s "$T/h.err" ] && pass || fail "sha1kit -h: exit $src, $(head -c 200 "$T/h.err")"
# getopt's messages name the program, also after 'refs verify'
"$SK" refs verify --bogus >/dev/null 2>"$T/h.err"
src=$?
[ "$src" = 129 ] && head -n 1 "$T/h.err" | grep -q "^sha1kit: " && pass || fail "refs verify --bogus: exit $src, $(head -c 200 "$T/h.err")"
}

# 14. A ref at a corrupt loose object: git reads it again for the ref (parse_object) and dies
# (status 128: "loose object ... is corrupt") or, for a loose object with another ID inside, says
# "hash mismatch" and goes on. The branch head, an annotated tag, a blob under a tag ref.
section_ref_corrupt() {
for how in truncate garbage zlib empty rename trunc-body; do
	for target in HEAD v1 blob; do
		r=$T/ref-$how-$target
		mkrepo "$r"
		(cd "$r" && git tag blob "$(git rev-parse HEAD:f1)")
		case $target in
		HEAD) id=$(cd "$r" && git rev-parse HEAD) ;;
		v1) id=$(cd "$r" && git rev-parse refs/tags/v1) ;;
		blob) id=$(cd "$r" && git rev-parse HEAD:f1) ;;
		esac
		p=$(obj_path "$r" "$id")
		chmod u+w "$p"
		case $how in
		truncate) head -c 10 "$p" >"$p.t" && mv "$p.t" "$p" ;;
		garbage) printf 'garbage' >>"$p" ;;
		zlib) printf 'this is not zlib' >"$p" ;;
		empty) : >"$p" ;;
		rename) cp "$(obj_path "$r" "$(cd "$r" && git rev-parse HEAD:f3)")" "$p.t" && mv -f "$p.t" "$p" ;;
		trunc-body) head -c $(($(wc -c <"$p") - 8)) "$p" >"$p.t" && mv "$p.t" "$p" ;;
		esac
		compare "ref at a corrupt loose object: $how, $target" "$r"
	done
done
}

# 15. --lost-found: the same lines as git, and the same files in .git/lost-found (a dangling
# commit, blob, tree and tag; loose and packed; a branch deleted, so its commit is kept by the
# reflog alone: --lost-found leaves reflogs out, as git).
section_lost_found() {
r=$T/lost
mkrepo "$r"
(
	cd "$r" || exit 1
	git checkout -qb side && echo side >s && git add s && git commit -qm side && git checkout -q master
	git branch -qD side
	t=$(printf '100644 blob %s\tx\n' "$(echo lost-tree | git hash-object -w --stdin)" | git mktree)
	git tag -a -m lost lost-tag HEAD~1 && git update-ref -d refs/tags/lost-tag
	: "$t"
)
cp -r "$r" "$T/lost-g"
cp -r "$r" "$T/lost-s"
compare "--lost-found, loose" "$T/lost-g" --lost-found
rm -rf "$T/lost-g/.git/lost-found"
(cd "$T/lost-g" && refgit fsck --full --lost-found >/dev/null 2>&1)
(cd "$T/lost-s" && "$SK" fsck --lost-found >/dev/null 2>&1)
if [ -d "$T/lost-g/.git/lost-found/other" ] && diff -r "$T/lost-g/.git/lost-found" "$T/lost-s/.git/lost-found" >/dev/null; then
	pass
else
	fail "--lost-found: the files differ from git's"
	diff -r "$T/lost-g/.git/lost-found" "$T/lost-s/.git/lost-found" | head -5
fi
for d in lost-g lost-s; do
	(cd "$T/$d" && rm -rf .git/lost-found && git repack -qad && echo packed-dangling | git hash-object -w --stdin >/dev/null)
done
(cd "$T/lost-g" && refgit fsck --full --lost-found --no-dangling >/dev/null 2>&1)
(cd "$T/lost-s" && "$SK" fsck --lost-found --no-dangling >/dev/null 2>&1)
if [ -d "$T/lost-g/.git/lost-found/commit" ] && diff -r "$T/lost-g/.git/lost-found" "$T/lost-s/.git/lost-found" >/dev/null; then
	pass
else
	fail "--lost-found --no-dangling, packed: the files differ from git's"
	diff -r "$T/lost-g/.git/lost-found" "$T/lost-s/.git/lost-found" | head -5
fi
if ls -a "$T/lost-s/.git/lost-found/other" | grep -q '^\.tmp'; then
	fail "--lost-found left a temporary file"
else
	pass
fi
# from a linked worktree: lost-found is a path of the common directory (path.c common_list)
for d in lost-g lost-s; do
	rm -rf "$T/$d/.git/lost-found"
	git -C "$T/$d" worktree add -q "$T/$d-wt" 2>/dev/null
done
(cd "$T/lost-g-wt" && refgit fsck --full --lost-found --no-dangling >/dev/null 2>&1)
(cd "$T/lost-s-wt" && "$SK" fsck --lost-found --no-dangling >/dev/null 2>&1)
if [ -d "$T/lost-g/.git/lost-found/commit" ] && diff -r "$T/lost-g/.git/lost-found" "$T/lost-s/.git/lost-found" >/dev/null &&
	[ ! -e "$T/lost-s/.git/worktrees/lost-s-wt/lost-found" ]; then
	pass
else
	fail "--lost-found from a linked worktree: not in the main repository's lost-found, as git"
fi
}

# 6c. Index files git writes with its other features: a split index (core.splitIndex: the
#     entries merged from .git/index and the shared index it names, replaced, deleted and added), a
#     skipped checksum (index.skipHash, feature.manyFiles: a null trailer, not checked by git
#     2.40+), and an index git cannot read (a directory: git dies).
section_index_kinds() {
local r b
r=$T/split
mkrepo "$r"
(
	cd "$r" || exit 1
	for i in 1 2 3 4 5 6; do echo "$i" >"s$i"; done
	git add . && git commit -qm s && git config core.splitIndex true &&
		git config splitIndex.maxPercentChange 100 && git update-index --split-index &&
		echo x >s2 && git add s2 && git rm -q --cached s4 && echo new >t && git add t
) || fail "could not make a split index"
[ -n "$(ls "$r"/.git/sharedindex.* 2>/dev/null)" ] || fail "git wrote no shared index"
compare_exact "a split index" "$r"
(
	cd "$r" || exit 1
	for b in "$(git rev-parse :s2)" "$(git rev-parse :t)" "$(git rev-parse :s5)"; do
		rm -f "$(obj_path . "$b")"
	done
)
compare_order "a split index: a replaced, an added and a shared entry's blobs missing" "$r" --name-objects
b=$(ls "$r"/.git/sharedindex.*)
chmod u+w "$b"
printf 'X' | dd of="$b" bs=1 seek=40 conv=notrunc 2>/dev/null
compare_exact "a split index: its shared index corrupt" "$r"
cp "$r/.git/index" "$T/split.index"
(cd "$r" && git update-index --split-index && echo y >s3 && git add s3) # a new shared index
mv "$(ls -t "$r"/.git/sharedindex.* | head -1)" "$b"
cp "$T/split.index" "$r/.git/index"
compare_exact "a split index: its shared index another" "$r"
rm -f "$r"/.git/sharedindex.*
compare_exact "a split index: its shared index missing" "$r"

# a sparse index (sparse-checkout --cone --sparse-index: the directory b/ one entry, its tree):
# git expands it (the files of b/ named in --name-objects, git 2.46+'s advice unless turned off);
# an entry's blob missing: cache_tree_update's "invalid object" line before the expansion (top) or
# after it (a file under b/)
r=$T/sparse
git init -q "$r"
(
	cd "$r" || exit 1
	mkdir a b && echo a >a/f && echo b >b/f && echo c >b/g && echo top >top && git add . &&
		git commit -qm s && git sparse-checkout init --cone --sparse-index && git sparse-checkout set a
) || fail "could not make a sparse index"
if git -C "$r" ls-files --sparse | grep -qx 'b/'; then
	compare_exact "a sparse index" "$r"
	cp -a "$r" "$T/sparse2"
	rm -f "$(obj_path "$r" "$(git -C "$r" rev-parse HEAD:b/g)")" "$(obj_path "$r" "$(git -C "$r" rev-parse :top)")"
	compare_order "a sparse index: a blob under its sparse directory and one outside missing" "$r" --name-objects
	git -C "$T/sparse2" config advice.sparseIndexExpanded false
	rm -f "$(obj_path "$T/sparse2" "$(git -C "$r" rev-parse HEAD:b/g)")"
	compare_exact "a sparse index, advice.sparseIndexExpanded false: a blob under its sparse directory missing" "$T/sparse2"
	# the tree of the sparse directory corrupt: git dies reading it as it expands the index
	cp -a "$T/sparse2" "$T/sparse3"
	t=$(obj_path "$T/sparse3" "$(git -C "$T/sparse3" rev-parse HEAD:b)")
	chmod u+w "$t" && printf garbage >"$t"
	compare_exact "a sparse index: the tree of its sparse directory corrupt" "$T/sparse3"
else
	echo "this git writes no sparse directory entries: the sparse index cases are not compared"
fi

# a resolved conflict's stages kept in the resolve-undo extension, one blob corrupt (loose, then
# packed): git's parse_object of it dies
r=$T/reuc
mkrepo "$r"
(
	cd "$r" || exit 1
	b1=$(echo base | git hash-object -w --stdin) b2=$(echo ours | git hash-object -w --stdin)
	b3=$(echo theirs | git hash-object -w --stdin)
	printf '100644 %s 1\tcf\n100644 %s 2\tcf\n100644 %s 3\tcf\n' "$b1" "$b2" "$b3" | git update-index --index-info
	echo res >cf && git add cf && echo "$b2" >.git/b2
) || fail "could not make the resolve-undo records"
cp -a "$r" "$T/reuc-packed"
b=$(cat "$r/.git/b2")
chmod u+w "$(obj_path "$r" "$b")" && printf garbage >"$(obj_path "$r" "$b")"
compare_exact "a resolve-undo blob corrupt" "$r"
(
	cd "$T/reuc-packed" && git repack -qad && p=$(ls .git/objects/pack/*.pack) &&
		off=$(git show-index <"${p%.pack}.idx" | awk -v id="$b" '$2 == id { print $1 }') &&
		chmod u+w "$p" && printf '\377' | dd of="$p" bs=1 seek=$((off + 3)) conv=notrunc 2>/dev/null
) || fail "could not corrupt the packed resolve-undo blob"
compare_exact "a resolve-undo blob corrupt, packed" "$T/reuc-packed"

r=$T/skiphash
mkrepo "$r"
(cd "$r" && git config index.skipHash true && echo z >z && git add z && rm -f "$(obj_path . "$(git rev-parse :z)")")
compare_exact "an index without its checksum (index.skipHash)" "$r"

r=$T/index-dir
mkrepo "$r"
rm -f "$r/.git/index"
mkdir "$r/.git/index"
compare_exact "an index that is a directory" "$r"
}

# 16. Shallow clones and grafts: git gives those commits the parents of .git/shallow (none) and
# info/grafts (the listed ones), with its deprecation hint for the graft file, its errors for bad
# graft lines, and advice.graftFileDeprecated.
section_shallow() {
mkrepo "$T/up"
git clone -q --depth 1 "file://$T/up" "$T/shallow"
compare "shallow clone" "$T/shallow"
compare "shallow clone, --root" "$T/shallow" --root
git clone -q --bare --depth 2 "file://$T/up" "$T/shallow.git"
compare "shallow bare clone, depth 2" "$T/shallow.git"
r=$T/grafts
mkrepo "$r"
first=$(cd "$r" && git rev-parse HEAD~2)
(
	cd "$r" || exit 1
	p=$(git rev-parse HEAD~1)
	git rev-parse HEAD >.git/info/grafts
	rm -f "$(obj_path "$r" "$p")"
	git reflog expire --expire=now --all
)
compare "grafts: a commit cut from its parent" "$r"
(cd "$r" && { echo "bad line"; git rev-parse HEAD; echo "# comment"; echo "$first $(git rev-parse HEAD)"; } >>.git/info/grafts)
compare "grafts: bad and duplicate lines, a second graft" "$r"
# the dangling lines in git's order: git reads the graft file at its first parse of a commit and
# looks up each commit it registers there (register_commit_graft's unparse_commit), which puts
# them in its object table early (the SHA-256 run had a dangling commit in another place; the
# loose objects' order is Linux's directory order: not under Wine; in the SHA-256 section too,
# which compares one case in two otherwise)
[ -n "${SK_WINDOWS:-}" ] ||
	SHA1KIT_CASE_SHARE=1 compare_order "grafts: bad and duplicate lines, a second graft" "$r"
(cd "$r" && git config advice.graftFileDeprecated false)
compare "grafts: advice.graftFileDeprecated=false" "$r"
# with a commit-graph: the `git commit-graph verify` git runs reads the graft file again at its
# first commit (the hint and the bad lines twice), and finds the grafted parents not the graph's
r=$T/grafts-graph
mkrepo "$r"
(cd "$r" && git commit-graph write --reachable && g="$(git rev-parse HEAD) $(git rev-parse HEAD~2)" &&
	printf 'bad line\n%s\n' "$g" >.git/info/grafts)
compare "grafts after the commit-graph was written" "$r"
r=$T/shallow-graph
mkrepo "$r"
(cd "$r" && git commit-graph write --reachable && a=$(git rev-parse HEAD) && b=$(git rev-parse HEAD~1) &&
	printf '%s\n%s\n' "$a" "$b" >.git/shallow)
compare "a shallow file after the commit-graph was written" "$r"
# the shallow file naming an object that is no commit (found by a new user's trial): git has each
# ID there in memory as a commit (shallow.c register_shallow's lookup_commit) from its first
# parse of a commit (commit.c prepare_commit_graft), so that object does not parse ("object X is
# a commit, not a tag"), nor do the links to it. Where git read it before that, git 2.39.5 crashes
# (exit 139: register_shallow's lookup_commit gave NULL), which is not compared.
r=$T/shallow-tag
mkrepo "$r"
(cd "$r" && git tag -a -m t shallow-tag HEAD~1 && git rev-parse shallow-tag >.git/shallow)
for what in tag blob; do
	[ $what = blob ] && (cd "$r" && git rev-parse HEAD:f1 >.git/shallow)
	run_both "" "$r" || continue
	[ "$GRC" = 139 ] && continue
	compare "a $what in .git/shallow" "$r"
done
}

# 14b. What git parses again after its object pass (found by the new-user trial): a ref at a loose
# commit or tag its parser refuses (the parser's error, then "invalid sha1 pointer"); the index's
# cache-tree naming a corrupt loose tree (git dies) or a loose file with another object inside
# ("hash mismatch"); a cache-tree tree that the object pass did not reach because it stopped at
# objects/xx being a file (git parses it from its file: no error).
section_reparse() {
r=$T/bogus-commit-ref
mkrepo "$r"
(cd "$r" && printf 'tree \nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nm\n' |
	git hash-object -w --literally -t commit --stdin >.git/refs/heads/other)
compare "a branch at a commit git cannot parse" "$r"
(cd "$r" && cp .git/refs/heads/other .git/refs/heads/master)
compare "HEAD's branch at a commit git cannot parse" "$r"
r=$T/bogus-tag-ref
mkrepo "$r"
(cd "$r" && printf 'object %s\ntype bogus\ntag x\ntagger A <a@b> 1 +0000\n\nm\n' "$(git rev-parse HEAD)" |
	git hash-object -w --literally -t tag --stdin >.git/refs/heads/other)
compare "a branch at a tag git cannot parse" "$r"
for how in garbage empty truncate rename; do
	r=$T/cache-tree-$how
	mkrepo "$r"
	id=$(cd "$r" && git rev-parse HEAD^{tree})
	p=$(obj_path "$r" "$id")
	chmod u+w "$p"
	case $how in
	garbage) echo garbage >"$p" ;;
	empty) : >"$p" ;;
	truncate) head -c 5 "$p" >"$p.t" && mv "$p.t" "$p" ;;
	rename) cp "$(obj_path "$r" "$(cd "$r" && git rev-parse HEAD:f1)")" "$p.t" && mv -f "$p.t" "$p" ;;
	esac
	compare "the cache-tree's root tree corrupt: $how" "$r"
done
r=$T/scan-stop
mkrepo "$r"
(cd "$r" && git update-index --refresh -q >/dev/null; echo x >.git/objects/ab)
if [ -z "${SK_WINDOWS:-}" ] && [ ! -d "$T/scan-stop/.git/objects/ab" ]; then
	compare "objects/ab is a file: the scan stops there" "$r"
fi
}

# 17. Alternates: objects of the alternate are there; a missing or relative alternate is git's
# error, printed again by each `git commit-graph verify` git runs (stderr compared in order).
section_alternates() {
mkrepo "$T/alt-base"
git clone -q -s "$T/alt-base" "$T/alt"
(cd "$T/alt" && echo "more" >m && git add m && git commit -qm more)
compare "an alternate" "$T/alt"
# (not under Wine: the program spells absolute paths Z:/...)
if [ -z "${SK_WINDOWS:-}" ]; then
	(cd "$T/alt" && { echo /nonexistent/objects; echo relative/objects; } >>.git/objects/info/alternates)
	compare "missing and relative alternates" "$T/alt"
	(cd "$T/alt" && refgit fsck --full >/dev/null 2>"$T/g.err"; "$SK" fsck >/dev/null 2>"$T/s.err")
	if same_file "$T/g.err" "$T/s.err"; then
		pass
	else
		fail "alternates: stderr not in git's order"
		diff "$T/g.err" "$T/s.err" | head -5
	fi
fi
# an objects/info/alternates that cannot be read: git's warning names it by the object directory
# as git spells it (.git/objects; in a bare repository ./objects)
mkrepo "$T/alt-dir"
mkdir "$T/alt-dir/.git/objects/info/alternates"
compare_exact "an alternates file that is a directory" "$T/alt-dir"
git init -q --bare "$T/alt-bare.git"
mkdir "$T/alt-bare.git/objects/info/alternates"
compare_exact "an alternates file that is a directory, bare" "$T/alt-bare.git"
# a split commit-graph whose base layer is in the alternate (clone --shared, then a layer on top):
# git looks for each layer in every object directory, the repository's first (found by a new
# user's trial); then the alternate's layer damaged (git's lines for both chains that name it), then
# gone. Not under Wine (the alternate's absolute path).
if [ -z "${SK_WINDOWS:-}" ]; then
	local b=$T/cg-alt-base c=$T/cg-alt layer
	mkrepo "$b"
	(cd "$b" && git commit-graph write --reachable --split 2>/dev/null)
	git clone -q -s "$b" "$c"
	(cd "$c" && echo more >m && git add m && git commit -qm more &&
		git commit-graph write --reachable --split=no-merge 2>/dev/null)
	compare_exact "a commit-graph chain based in the alternate" "$c"
	layer=$(ls "$b"/.git/objects/info/commit-graphs/*.graph)
	chmod u+w "$layer"
	printf '\x5a' | dd of="$layer" bs=1 seek=$(($(stat -c %s "$layer") - 3)) conv=notrunc 2>/dev/null
	compare_exact "a commit-graph chain based in the alternate, the base damaged" "$c"
	rm -f "$layer"
	compare_exact "a commit-graph chain based in the alternate, the base gone" "$c"
	# the commit-graph and multi-pack-index of both damaged: git verifies the commit-graphs of
	# every object directory, then their multi-pack-indexes (two loops)
	local d=$T/cg-alt-both x
	git clone -q -s "$b" "$d"
	rm -f "$b"/.git/objects/info/commit-graphs/* && rmdir "$b"/.git/objects/info/commit-graphs
	for x in "$b" "$d"; do
		(cd "$x" && echo "$x" >n && git add n && git commit -qm n && git repack -q &&
			git multi-pack-index write 2>/dev/null && git commit-graph write --reachable 2>/dev/null)
		for f in "$x"/.git/objects/info/commit-graph "$x"/.git/objects/pack/multi-pack-index; do
			chmod u+w "$f"
			printf '\x5a' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") - 3)) conv=notrunc 2>/dev/null
		done
	done
	compare_exact "commit-graphs and multi-pack-indexes of the repository and its alternate damaged" "$d"
fi
}

# 18. Found by a second new-user trial: config files (a bad global file is git's fatal line; one
# git may not read is passed over), "~/" in fsck.skipList, --lost-found where lost-found/other is a
# file, where a file or a symbolic link is already there, --connectivity-only with --root --tags
# (git prints those lines only from its object check), a bad .git/shallow line, an unreadable
# loose commit at a ref (git dies), and a chain of deltas with a byte flipped in its base.
section_trial2() {
r=$T/trial2
mkrepo "$r"
printf '[fsck\n' >"$T/bad.gitconfig"
(cd "$r" && GIT_CONFIG_GLOBAL=$T/bad.gitconfig refgit fsck --full >"$T/g.out" 2>"$T/g.err"; echo $? >"$T/g.rc")
(cd "$r" && GIT_CONFIG_GLOBAL=$T/bad.gitconfig "$SK" fsck >"$T/s.out" 2>"$T/s.err"; echo $? >"$T/s.rc")
if same_file "$T/g.rc" "$T/s.rc" && same_file "$T/g.err" "$T/s.err" && grep -q 'bad config line 1' "$T/s.err"; then
	pass
else
	fail "a bad global config file: git $(<"$T/g.rc"), sha1kit $(<"$T/s.rc"): $(<"$T/s.err")"
fi
# (not under Wine: a POSIX $HOME means nothing to the Windows program)
if [ -z "${SK_WINDOWS:-}" ]; then
	mkdir -p "$T/home2"
	(cd "$r" && git rev-parse HEAD >"$T/home2/skip" && git config fsck.skipList '~/skip')
	(cd "$r" && HOME=$T/home2 refgit fsck --full >"$T/g.out" 2>&1; echo $? >"$T/g.rc")
	(cd "$r" && HOME=$T/home2 "$SK" fsck >"$T/s.out" 2>&1; echo $? >"$T/s.rc")
	if same_file "$T/g.rc" "$T/s.rc" && same_lines "$T/g.out" "$T/s.out"; then
		pass
	else
		fail "fsck.skipList = ~/skip: git $(<"$T/g.rc"), sha1kit $(<"$T/s.rc")"
		head -3 "$T/s.out"
	fi
	(cd "$r" && git config --unset fsck.skipList)
fi
(cd "$r" && git tag -a -m t v2 HEAD~1)
compare "--connectivity-only --root --tags" "$r" --connectivity-only --root --tags
for how in other-file commit-file existing symlink; do
	rm -rf "$T/lf-g" "$T/lf-s"
	cp -r "$r" "$T/lf-g"
	for d in lf-g; do
		g=$T/$d/.git
		case $how in
		other-file) mkdir -p "$g/lost-found" && echo x >"$g/lost-found/other" ;;
		commit-file) mkdir -p "$g/lost-found" && echo x >"$g/lost-found/commit" ;;
		existing) mkdir -p "$g/lost-found/other" && echo old >"$g/lost-found/other/$(echo dangling | git hash-object --stdin)" ;;
		symlink) mkdir -p "$g/lost-found/other" && echo old >"$T/lf-target" &&
			ln -s "$T/lf-target" "$g/lost-found/other/$(echo dangling | git hash-object --stdin)" ;;
		esac
	done
	cp -a "$T/lf-g" "$T/lf-s"
	(cd "$T/lf-g" && refgit fsck --full --lost-found >"$T/g.out" 2>"$T/g.err"; echo $? >"$T/g.rc")
	gt=$([ -e "$T/lf-target" ] && cat "$T/lf-target")
	[ -e "$T/lf-target" ] && echo old >"$T/lf-target"
	(cd "$T/lf-s" && "$SK" fsck --lost-found >"$T/s.out" 2>"$T/s.err"; echo $? >"$T/s.rc")
	st=$([ -e "$T/lf-target" ] && cat "$T/lf-target")
	if same_file "$T/g.rc" "$T/s.rc" && same_lines "$T/g.out" "$T/s.out" &&
		same_lines "$T/g.err" "$T/s.err" && [ "$gt" = "$st" ] &&
		diff -r "$T/lf-g/.git/lost-found" "$T/lf-s/.git/lost-found" >/dev/null; then
		pass
	else
		fail "--lost-found, $how: git $(<"$T/g.rc"), sha1kit $(<"$T/s.rc")"
		diff <(sort "$T/g.err") <(sort "$T/s.err") | head -4
	fi
	rm -f "$T/lf-target"
done
r=$T/bad-shallow
mkrepo "$r"
(cd "$r" && echo garbage >.git/shallow)
(cd "$r" && refgit fsck --full >/dev/null 2>"$T/g.err"; echo $? >"$T/g.rc")
(cd "$r" && "$SK" fsck >/dev/null 2>"$T/s.err"; echo $? >"$T/s.rc")
if same_file "$T/g.rc" "$T/s.rc" && same_file "$T/g.err" "$T/s.err"; then
	pass
else
	fail "a bad .git/shallow line: git $(<"$T/g.rc"), sha1kit $(<"$T/s.rc")"
fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && [ -z "${SK_WINDOWS:-}" ]; then
	r=$T/perm
	mkrepo "$r"
	h=$(cd "$r" && git rev-parse HEAD)
	chmod 000 "$(obj_path "$r" "$h")"
	chown -R nobody "$r"
	chmod o+rx "$T"
	nob="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	(cd "$r" && $nob "$SK_REF_GIT" fsck --full >"$T/g.out" 2>"$T/g.err"; echo $? >"$T/g.rc")
	(cd "$r" && $nob "$SK" fsck >"$T/s.out" 2>"$T/s.err"; echo $? >"$T/s.rc")
	if ! $nob "$SK_REF_GIT" version >/dev/null 2>&1; then
		# a reference git under a home only root may enter (scripts/git-current.sh's default cache
		# in /root/.cache) cannot run as nobody
		fail "an unreadable loose commit at a ref: the reference git $SK_REF_GIT cannot run as" \
			"nobody (a directory above it is closed to others; SHA1KIT_CACHE=DIR puts it elsewhere)"
	elif same_file "$T/g.rc" "$T/s.rc" && same_file "$T/g.err" "$T/s.err"; then
		pass
	else
		fail "an unreadable loose commit at a ref: git $(<"$T/g.rc"), sha1kit $(<"$T/s.rc")"
		diff "$T/g.err" "$T/s.err" | head -4
	fi
	chown -R root "$r"
fi
}
# mkchain: $r, the repository $T/chain of delta chains (twelve commits, one pack)
mkchain() {
	r=$T/chain
	[ -d "$r" ] && return
	git init -q "$r"
	(
		cd "$r" || exit 1
		for i in $(seq 1 12); do
			seq 1 $((i * 50)) >a
			printf "%$((i * 30))s\n" "" | tr ' ' x >b
			mkdir -p "d$((i % 3))"
			echo "$i" >"d$((i % 3))/c"
			git add -A
			git commit -qm "c$i"
		done
		git repack -qad
	)
}
# xor 1: the smallest change, which keeps most headers parsing
section_flip_chain_1() { # long nowine
mkchain
flip_sweep "$r" pack xor1 12 11 20 300 "a bit flipped in a pack of delta chains" 1/4
}
section_flip_chain_2() { # long nowine
mkchain
flip_sweep "$r" pack xor1 12 11 20 300 "a bit flipped in a pack of delta chains" 2/4
}
section_flip_chain_3() { # long nowine
mkchain
flip_sweep "$r" pack xor1 12 11 20 300 "a bit flipped in a pack of delta chains" 3/4
}
section_flip_chain_4() { # long nowine
mkchain
flip_sweep "$r" pack xor1 12 11 20 300 "a bit flipped in a pack of delta chains" 4/4
}

# 13. Links that disagree on an object's type (t1450's "tag pointing to something else than its
# type", trees and commits naming an object as another type): git keeps the type of the first event
# on the object in its order of reading, and every later lookup as another type fails, so its
# lines depend on where each object is. Every case loose, packed, half of each, and loose with a
# packed copy of everything, with three sets of object IDs (the salt changes them); stderr in
# git's order exactly.
# mkwrong DIR CASE LAYOUT SALT: the repository of CASE, its objects made with SALT, loose, then laid
# out as LAYOUT says; the loose one is made once for each CASE and SALT and copied for its layouts.
mkwrong() {
	local r=$1 c=$2 layout=$3 salt=$4 base=$T/wrong-base-$2-$4
	[ -d "$base" ] || mkwrong_loose "$base" "$c" "$salt"
	cp -a "$base" "$r"
	(
		cd "$r" || exit 1
		local objs o
		objs=$(cd .git/objects && find ?? -type f | tr -d / | sort)
		case $layout in
		dup) echo "$objs" | git pack-objects -q .git/objects/pack/pack >/dev/null ;;
		pack | mixed)
			[ "$layout" = mixed ] && objs=$(echo "$objs" | awk 'NR % 2 == 0')
			echo "$objs" | git pack-objects -q .git/objects/pack/pack >/dev/null
			for o in $objs; do rm -f ".git/objects/${o:0:2}/${o:2}"; done
			;;
		esac
	)
}
mkwrong_loose() { # mkwrong_loose DIR CASE SALT
	local r=$1 c=$2 salt=$3
	git init -q "$r"
	(
		cd "$r" || exit 1
		echo hello >f
		git add f
		git commit -qm base
		local blob tree fblob head
		blob=$(echo "blob$salt" | git hash-object -w --stdin)
		tree=$(git rev-parse HEAD^{tree})
		fblob=$(git rev-parse HEAD:f)
		head=$(git rev-parse HEAD)
		mktree_() { # "MODE NAME ID" lines on stdin: a tree as given, checked by nobody
			local out="" m n h
			while read -r m n h; do
				printf '%s %s\0' "$m" "$n"
				printf '%s' "$h" | sed 's/../\\x&/g' | xargs -0 printf '%b'
			done | git hash-object -t tree -w --literally --stdin
		}
		mkcommit_() { # TREE PARENT-LINES MESSAGE
			printf 'tree %s\n%bauthor A <a@x> 1 +0000\ncommitter C <c@x> 1 +0000\n\n%s\n' "$1" "$2" "$3$salt" |
				git hash-object -t commit -w --literally --stdin
		}
		mktag_() { # OBJECT TYPE
			printf 'object %s\ntype %s\ntag wrong\ntagger T <t@x> 1234567890 -0000\n\nbad%s\n' "$1" "$2" "$salt" |
				git hash-object -t tag -w --stdin
		}
		local t1 t2 nt cm c1 c2
		case $c in
		tag-blob-as-commit) mktag_ "$blob" commit >.git/refs/tags/wrong ;;
		tag-tree-as-commit) mktag_ "$tree" commit >.git/refs/tags/wrong ;;
		tag-commit-as-blob) mktag_ "$head" blob >.git/refs/tags/wrong ;;
		tree-entry-blob-as-tree)
			nt=$(printf '100644 f %s\n40000 g %s\n' "$fblob" "$blob" | mktree_)
			mkcommit_ "$nt" "parent $head\n" two >.git/refs/heads/main
			;;
		tree-entry-tree-as-blob)
			nt=$(printf '100644 f %s\n100644 g %s\n' "$fblob" "$tree" | mktree_)
			mkcommit_ "$nt" "parent $head\n" two >.git/refs/heads/main
			;;
		missing-as-two-types)
			nt=$(printf '100644 f %s\n100644 g %s\n40000 h %s\n' "$fblob" 1234567890123456789012345678901234567890 \
				1234567890123456789012345678901234567890 | mktree_)
			mkcommit_ "$nt" "parent $head\n" two >.git/refs/heads/main
			;;
		commit-tree-is-blob) mkcommit_ "$blob" "parent $head\n" two >.git/refs/heads/main ;;
		commit-parent-is-tree) mkcommit_ "$tree" "parent $tree\n" two >.git/refs/heads/main ;;
		commit-parent-is-blob) mkcommit_ "$tree" "parent $head\nparent $blob\n" two >.git/refs/heads/main ;;
		chain-through-bad-commit)
			c1=$(mkcommit_ "$tree" "parent $head\n" one)
			c2=$(mkcommit_ "$blob" "parent $c1\n" two)
			mkcommit_ "$tree" "parent $c2\n" three >.git/refs/heads/main
			;;
		two-trees-disagree)
			t1=$(printf '100644 a %s\n' "$blob" | mktree_)
			t2=$(printf '40000 b %s\n' "$blob" | mktree_)
			nt=$(printf '40000 x %s\n40000 y %s\n' "$t1" "$t2" | mktree_)
			mkcommit_ "$nt" "parent $head\n" two >.git/refs/heads/main
			;;
		index-names-a-tree)
			nt=$(printf '100644 f %s\n100644 g %s\n' "$fblob" "$tree" | mktree_)
			git read-tree "$nt"
			;;
		esac
		git reflog expire --expire=now --all
	)
}
# wrong_types SALT: every case and layout with one set of IDs.
wrong_types() {
	local salt=$1 c layout r n
	for c in tag-blob-as-commit tag-tree-as-commit tag-commit-as-blob tree-entry-blob-as-tree \
		tree-entry-tree-as-blob missing-as-two-types commit-tree-is-blob commit-parent-is-tree \
		commit-parent-is-blob chain-through-bad-commit two-trees-disagree index-names-a-tree; do
		for layout in loose pack mixed dup; do
			if [ "$salt" = 1 ] && [ "$layout" = loose ]; then n=2; else n=1; fi
			sk_share_skip $n && continue # Wine and the sanitizers: only the cases they compare
			r=$T/wrong-$c-$layout-$salt
			mkwrong "$r" "$c" "$layout" "$salt" >/dev/null 2>&1
			if [ $n = 2 ]; then
				$exact "link of another type: $c, $layout, salt $salt" "$r" --tags --root
				$exact "link of another type: $c, $layout, salt $salt" "$r" --unreachable
			else
				$exact "link of another type: $c, $layout, salt $salt" "$r"
			fi
		done
	done
}
# Not under Wine: which type a link names is the object graph's logic, the same code on every system,
# and the 48 repositories of a set took 76 s of the Windows stage.
section_wrong_types_1() { # nowine
wrong_types 1
# --connectivity-only: git types an object only where a link or a ref looks it up, reads a tree,
# commit or tag there and finds another type ("Object X not a tree"), and a later lookup as
# another type fails; sha1kit had said "wrong object type in link" with bit 1. A ref's own commit
# or tag whose link names an object a ref parsed before as another type: git's parse of it at the
# ref fails ("bad tag pointer", "bad parent", then "invalid sha1 pointer"), the object is dangling
# and parsed again before its dangling line (sha1kit said nothing, exit 0, until a new user's
# trial of 2026-12-07)
local c layout r
for c in tag-blob-as-commit tag-tree-as-commit tag-commit-as-blob tree-entry-blob-as-tree \
	tree-entry-tree-as-blob missing-as-two-types commit-tree-is-blob commit-parent-is-tree \
	commit-parent-is-blob chain-through-bad-commit two-trees-disagree index-names-a-tree; do
	for layout in loose pack; do
		r=$T/wrong-$c-$layout-1
		[ -d "$r" ] || mkwrong "$r" "$c" "$layout" 1 >/dev/null 2>&1
		$exact "link of another type: $c, $layout, --connectivity-only" "$r" --connectivity-only
	done
done
# the ref's tag unreachable, not dangling: its parse's lines come again all the same
$exact "link of another type: tag-tree-as-commit, --connectivity-only --unreachable" \
	"$T/wrong-tag-tree-as-commit-pack-1" --connectivity-only --unreachable
}
section_wrong_types_2() { # long nowine
[ -n "${SK_WINDOWS:-}" ] || wrong_types 2
}
section_wrong_types_3() { # long nowine
[ -n "${SK_WINDOWS:-}" ] || wrong_types 3
}

# An entry header's type bits changed (xor MASK << 4) in a pack of five commits (HEAD the base of
# the others' deltas, unless nodelta) under a commit-graph (unless nograph); found by a new user's
# trial and the sweep that followed it: sha1kit kept an object the idx does not have (the pass's
# own ID of the retyped entry: "dangling blob" of nothing), left out the lines of git 2.55's read of
# a ref's object before its pack check, and under --connectivity-only took the entry's type for
# git's: git parses a commit from the commit-graph unread, hashes a reflog's or the cache-tree's
# object, and reads an object where a link names it as that type.
# mkretyped DIR REV MASK [nograph] [nodelta]
mkretyped() {
	local r=$1 rev=$2 mask=$3 i
	shift 3
	git init -q "$r" && (
		cd "$r" || exit 1
		for i in 1 2 3 4 5; do
			mkdir -p "d$i" && echo "file $i" >"d$i/f" && echo "x$i" >top && git add -A &&
				GIT_COMMITTER_DATE="@$((1700000000 + i)) +0000" git commit -qm "c$i" || exit 1
		done
		case " $* " in *" nodelta "*) git repack -qadF --depth=0 --window=0 ;; *) git repack -qad ;; esac
		case " $* " in *" nograph "*) ;; *) git commit-graph write --reachable 2>/dev/null ;; esac
		local p at b
		p=$(ls .git/objects/pack/*.pack)
		at=$(git verify-pack -v "${p%.pack}.idx" | awk -v c="$(git rev-parse "$rev")" '$1 == c {print $5}')
		[ -n "$at" ] || exit 1
		chmod u+w "$p"
		b=$(od -An -tu1 -j "$at" -N1 "$p" | tr -d ' ')
		printf "\\$(printf '%03o' $((b ^ (mask << 4))))" | dd of="$p" bs=1 seek="$at" conv=notrunc 2>/dev/null
	)
}
section_retyped() {
	local c r n=0
	while read -r c; do
		n=$((n + 1))
		r=$T/retyped-$n
		mkretyped "$r" $c || {
			fail "retyped $c: no repository"
			continue
		}
		$exact "an entry header retyped ($c)" "$r"
		$exact "an entry header retyped ($c), --connectivity-only" "$r" --connectivity-only
		# (the name of a reflog's entry is that of the reflog git reads first: not under Wine,
		# whose directories list in another order)
		[ -n "${SK_WINDOWS:-}" ] ||
			$exact "an entry header retyped ($c), --connectivity-only --name-objects" "$r" \
				--connectivity-only --name-objects
	done <<'CASES'
HEAD 2
HEAD 3
HEAD 6
HEAD 1
HEAD 5
HEAD~1 1
HEAD~1 5 nograph
HEAD~1^{tree} 5 nograph
HEAD:d1 3
HEAD:top 2 nograph nodelta
HEAD 5 nodelta
HEAD~1 3 nodelta nograph
CASES
}

# Two copies of every object, one tree's entry header retyped in one of them (a tree -> a commit:
# type bits xor 3): git's check reads both copies (the retyped one "is corrupt", the other is
# checked and marks its entries used), and its walk reads the tree again from the first copy in its
# order (packs before loose files, a newer pack first): "error: Object X not a tree" where that copy
# is the retyped one, and nothing of the tree followed (its entries unreachable, not dangling).
# sha1kit printed neither line and, where the retyped copy came first, the tree's entries as
# dangling (a new user's trial). A copy that does not read at all (its header xor 5 << 4: a delta
# whose base does not resolve): git's first read after its check (here the cache tree's) prints its
# unpack lines again, marks it bad and reads the next copy; sha1kit died there ("fatal: packed
# object ... is corrupt", exit 128 where git exits 4; the second trial of 2026-12-07). A commit
# whose copy in the newer pack is retyped (to a blob: "packed X is corrupt"), the older copy sound:
# git's check of the older copy gives it HAS_OBJ, and the reflog entries naming it are valid
# (sha1kit printed "invalid reflog entry" for HEAD's and the branch's, twice each; same trial).
# mkretyped_copy DIR WHERE [MASK [head|commit]]: two-packs-new (the retyped copy in the newer
# pack), two-packs-old (in the older one: git reads the good copy), loose (packed and loose, the
# packed copy retyped); MASK the xor of the type bits (3: a tree to a commit); head: HEAD's root
# tree (in the index's cache tree) instead of HEAD~2's; commit: the commit HEAD~1.
mkretyped_copy() {
	local r=$1 where=$2 mask=${3:-3} which=${4:-} i
	git init -q "$r" && (
		cd "$r" || exit 1
		for i in 1 2 3; do
			mkdir -p "d$i/e" && echo "file $i" >"d$i/e/f" && echo "x$i" >top && git add -A &&
				GIT_COMMITTER_DATE="@$((1700000000 + i)) +0000" git commit -qm "c$i" || exit 1
		done
		local o p old new at b
		case $where in
		loose)
			git repack -qa || exit 1 # (without -d: the loose files stay)
			o=$(git rev-parse HEAD~1:d1/e)
			[ "$which" != head ] || o=$(git rev-parse HEAD^{tree})
			p=$(ls .git/objects/pack/*.pack)
			;;
		*)
			git repack -qad || exit 1
			old=$(ls .git/objects/pack/*.pack)
			new=.git/objects/pack/pack-$(git rev-list --objects --all |
				git pack-objects -q --depth=0 --window=0 .git/objects/pack/pack).pack
			touch -d '2024-01-01 00:00:00' "$old" && touch -d '2024-01-01 00:00:01' "$new" || exit 1
			o=$(git rev-parse HEAD~2^{tree})
			[ "$which" != head ] || o=$(git rev-parse HEAD^{tree})
			[ "$which" != commit ] || o=$(git rev-parse HEAD~1)
			if [ "$where" = two-packs-new ]; then p=$new; else p=$old; fi
			;;
		esac
		at=$(git verify-pack -v "${p%.pack}.idx" | awk -v o="$o" '$1 == o {print $5}')
		[ -n "$at" ] || exit 1
		chmod u+w "$p"
		b=$(od -An -tu1 -j "$at" -N1 "$p" | tr -d ' ')
		printf "\\$(printf '%03o' $((b ^ (mask << 4))))" | dd of="$p" bs=1 seek="$at" conv=notrunc 2>/dev/null
	)
}
section_retyped_copy() {
	local w r
	for w in two-packs-new two-packs-old loose "two-packs-new 5 head" "two-packs-new 5" "loose 2 head" \
		"two-packs-new 2 commit"; do
		r=$T/retyped-copy-${w// /-}
		mkretyped_copy "$r" $w || {
			fail "retyped copy $w: no repository"
			continue
		}
		$exact "a copy retyped ($w)" "$r"
		$exact "a copy retyped ($w), --unreachable" "$r" --unreachable
		# (--connectivity-only where the first copy does not read: sha1kit's walk does not
		# follow the copy git reads next, and a packed copy after a loose one is not read, so its
		# unpack lines at git's read are missing; not yet)
		case $w in "two-packs-new 5" | "loose 2 head") ;; *)
			$exact "a copy retyped ($w), --connectivity-only" "$r" --connectivity-only ;;
		esac
	done
}

# Objects that hash right and do not parse (a tree "100644 f" with a short ID, a commit "tree zz",
# a tag "object 123"), all packed, each reached as git reaches them: dangling, a tree's entry, a
# commit's parent, a ref, a tag ref. git's check_object and mark_object take a packed object it
# could not parse as there (has_object_pack): no broken link and no "missing" line for it (sha1kit
# printed both where a commit's parent did not parse; found while the retyped sweep ran).
# mkmalformed DIR CASE
mkmalformed() {
	local r=$1 c=$2 i bt bc bg nt objs
	git init -q "$r" && (
		cd "$r" || exit 1
		for i in 1 2 3; do echo "$i" >"f$i" && git add -A && git commit -qm "c$i" || exit 1; done
		bt=$(printf '100644 f\0abc' | git hash-object -t tree -w --literally --stdin)
		bc=$(printf 'tree zz\n' | git hash-object -t commit -w --literally --stdin)
		bg=$(printf 'object 123\n' | git hash-object -t tag -w --literally --stdin)
		case $c in
		entry)
			nt=$( (git ls-tree HEAD && printf '040000 tree %s\tsub\n' "$bt") | git mktree --missing)
			nt=$(git commit-tree "$nt" -p HEAD -m x) && echo "$nt" >.git/refs/heads/master
			;;
		parent)
			nt=$(printf 'tree %s\nparent %s\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 1 +0000\n\nm\n' \
				"$(git rev-parse HEAD^{tree})" "$bc" | git hash-object -t commit -w --stdin --literally)
			echo "$nt" >.git/refs/heads/master
			;;
		ref) echo "$bc" >.git/refs/heads/bad ;;
		tagref) echo "$bg" >.git/refs/tags/bad ;;
		esac
		git reflog expire --expire=now --all
		objs=$(cd .git/objects && find ?? -type f | tr -d /)
		echo "$objs" | git pack-objects -q .git/objects/pack/pack >/dev/null && git prune-packed
	)
}
section_malformed_packed() {
	local c o
	for c in dangling entry parent ref tagref; do
		mkmalformed "$T/malformed-$c" "$c" || {
			fail "malformed $c: no repository"
			continue
		}
		$exact "packed objects that do not parse: $c" "$T/malformed-$c"
	done
	if mkbigheader "$T/malformed-bigheader"; then
		for o in "" --connectivity-only; do
			# shellcheck disable=SC2086 # the option is a word or none
			run_both "" "$T/malformed-bigheader" $o || continue
			if [ "$GRC" = 139 ]; then
				continue # git 2.55.0 crashes (SIGSEGV) without --connectivity-only here
			fi
			# shellcheck disable=SC2086
			$exact "an idx offset at a blob header over core.bigFileThreshold ($o)" "$T/malformed-bigheader" $o
		done
	else
		fail "malformed bigheader: no repository"
	fi
}

# mkbigheader DIR: a pack whose idx sends a commit (HEAD~1) to seven bytes written inside a blob's
# data: the header of a blob of 2^32 bytes, over core.bigFileThreshold, then no zlib stream. git's
# check streams such a blob (stream_object_signature): "inflate: data stream error" and "packed ID
# from PACK is corrupt"; its --connectivity-only walk reads it as a commit and dies. sha1kit passed
# over a blob to stream in a pack read through its idx (exit 4 where git exits 6; with
# --connectivity-only "Object ID not a commit", exit 0, where git dies). A new user's trial found it
# in a partial clone, an offset of its idx flipped (its repro 11).
mkbigheader() {
	local r=$1 p i y x
	rm -rf "$r" && git init -q "$r" || return 1
	(
		cd "$r" && fixed_ids || exit 1
		python3 -c 'import random,sys; r=random.Random(7); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(4096)))' >rnd.bin
		echo a >a.txt && git add -A && fixed_commit 1 && echo b >>a.txt && git add -A && fixed_commit 2 &&
			git repack -adq
	) >/dev/null 2>&1 || return 1
	p=$(ls "$r"/.git/objects/pack/*.pack) && i=${p%.pack}.idx
	y=$(git -C "$r" rev-parse HEAD:rnd.bin) && x=$(git -C "$r" rev-parse HEAD~1) || return 1
	chmod u+w "$p" "$i"
	python3 - "$p" "$i" "$y" "$x" "$(git verify-pack -v "$i" | awk -v y="$y" '$1 == y { print $5 }')" <<'PY'
import struct, sys
pack, idx, y, x, at = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]) + 103
p = bytearray(open(pack, "rb").read())
p[at:at + 7] = bytes([0xB0, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF])
open(pack, "wb").write(p)
d = bytearray(open(idx, "rb").read())
n = struct.unpack(">I", d[8 + 255 * 4:8 + 256 * 4])[0]
names = [bytes(d[1032 + 20 * k:1052 + 20 * k]).hex() for k in range(n)]
o = 1032 + 24 * n + 4 * names.index(x)
d[o:o + 4] = struct.pack(">I", at)
open(idx, "wb").write(d)
PY
}

# 14. Found by a new-user trial: the order git reads packs in (its own first, the newest first, the
# multi-pack-index's before the others), an index entry naming a commit whose parse failed, an idx
# entry git dies on (a 64-bit offset past the end) or cannot find (offset 0), a standard output
# that cannot be written.
# The order cases' fixed identities and dates: the same object IDs, so the same slots in git's
# object table, on every run. fixed_commit N: a commit of what is staged, dated 1700000000 + N
# seconds, "cN". fixed_mk N TAG: N commits of files in d0..d2 and a growing file, a minute apart
# (FIXED_N counts them over the calls).
fixed_ids() { export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@x; }
fixed_commit() {
	GIT_AUTHOR_DATE="@$((1700000000 + $1)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + $1)) +0000" \
		git commit -qm "c$1"
}
FIXED_N=0
fixed_mk() {
	local i
	for i in $(seq 1 "$1"); do
		FIXED_N=$((FIXED_N + 1))
		mkdir -p "d$((i % 3))" && echo "$2 $i" >"d$((i % 3))/f$i" && echo "x$2$i" >>top && git add -A &&
			GIT_AUTHOR_DATE="$((1700000000 + FIXED_N * 60)) +0000" \
				GIT_COMMITTER_DATE="$((1700000000 + FIXED_N * 60)) +0000" git commit -qm "$2 $i" || return 1
	done
}

section_pack_order() {
mkcommit14() { printf 'tree %s\nauthor A <a@x> 1 +0000\ncommitter %s\n\n%s\n' "$1" "$2" "$3" |
	git hash-object -t commit -w --literally --stdin; }
for midx in no yes; do
	for older in first second; do
		r=$T/packorder-$midx-$older
		git init -q "$r"
		(
			cd "$r" || exit 1
			echo hi >f && git add f && git commit -qm base
			t=$(git rev-parse HEAD^{tree})
			x=$(echo content | git hash-object -w --stdin)
			c=$(mkcommit14 "$x" 'C <c@x> 1 +0000' m)
			echo "$c" >.git/refs/heads/b
			tg=$(printf 'object %s\ntype blob\ntag t\ntagger T <t@x> 1 +0000\n\nm\n' "$x" | git hash-object -t tag -w --stdin)
			echo "$tg" >.git/refs/tags/t
			bad=$(mkcommit14 "$t" 'C c@x> 1 +0000' bad)
			echo "$bad" >.git/refs/heads/bad
			p1=$(printf '%s\n%s\n%s\n' "$c" "$x" "$bad" | git pack-objects -q .git/objects/pack/pack)
			bad2=$(mkcommit14 "$t" 'C c@x> 2 +0000' bad2)
			echo "$bad2" >.git/refs/heads/bad2
			p2=$(printf '%s\n%s\n' "$tg" "$bad2" | git pack-objects -q .git/objects/pack/pack)
			for o in "$c" "$x" "$tg" "$bad" "$bad2"; do rm -f ".git/objects/${o:0:2}/${o:2}"; done
			old=$p1
			[ "$older" = second ] && old=$p2
			touch -d 2020-01-01 ".git/objects/pack/pack-$old.pack" ".git/objects/pack/pack-$old.idx"
			[ "$midx" = yes ] && git multi-pack-index write
		) >/dev/null 2>&1
		$exact "two packs by age ($older older), multi-pack-index: $midx" "$r"
	done
done
# four packs of the same second (as one repack makes them), each with a commit whose committer
# line is bad, a branch at each: git 2.55 checks them in the order its reads of the ref tips left
# its list in (each moves the pack it is found in to the front); git 2.39.5 in the reverse of the
# listing
for head in 1 4; do
	r=$T/packorder-second-$head
	git init -q "$r"
	(
		cd "$r" || exit 1
		echo hi >f && git add f && git commit -qm base
		t=$(git rev-parse HEAD^{tree})
		for i in 1 2 3 4; do
			b=$(mkcommit14 "$t" "C c@x> $i +0000" "bad$i")
			echo "$b" >".git/refs/heads/b$i"
			echo "$b" | git pack-objects -q .git/objects/pack/pack >/dev/null
			rm -f ".git/objects/${b:0:2}/${b:2}"
		done
		git symbolic-ref HEAD "refs/heads/b$head"
		touch -d '2020-01-01 00:00:00' .git/objects/pack/*
	) >/dev/null 2>&1
	$exact "four packs of the same second, HEAD at the branch of pack $head" "$r"
done
for layout in loose packed; do
	r=$T/index-unparsed-$layout
	git init -q "$r"
	(
		cd "$r" || exit 1
		echo hello >f && git add f && git commit -qm base
		x=$(mkcommit14 "$(git rev-parse HEAD:f)" 'C <c@x> 1 +0000' bad)
		git update-index --add --cacheinfo "100644,$x,x"
		if [ "$layout" = packed ]; then
			echo "$x" | git pack-objects -q .git/objects/pack/pack >/dev/null
			rm ".git/objects/${x:0:2}/${x:2}"
		fi
	) >/dev/null 2>&1
	compare "the index names a commit whose parse failed ($layout)" "$r"
done
for how in 64bit zero; do
	r=$T/idx-offset-$how
	mkrepo "$r"
	(cd "$r" && git repack -qad)
	f=$(ls "$r"/.git/objects/pack/*.idx)
	chmod u+w "$f"
	n=$(cd "$r" && git show-index <"$f" | wc -l)
	at=$((8 + 1024 + 24 * n + 4 * (n / 2)))
	if [ "$how" = 64bit ]; then
		printf '\x80' | dd of="$f" bs=1 seek="$at" conv=notrunc 2>/dev/null
	else
		printf '\0\0\0\0' | dd of="$f" bs=1 seek="$at" conv=notrunc 2>/dev/null
	fi
	$exact "an idx offset git cannot use ($how)" "$r"
done
if [ -w /dev/full ] && [ -z "${SK_WINDOWS:-}" ]; then
	r=$T/stdout-full
	mkrepo "$r"
	(cd "$r" && refgit fsck --full >/dev/full 2>"$T/g.err")
	grc=$?
	(cd "$r" && "$SK" fsck >/dev/full 2>"$T/s.err")
	src=$?
	if [ "$grc" = "$src" ] && same_file "$T/g.err" "$T/s.err"; then
		pass
	else
		fail "standard output that cannot be written: git exits $grc, sha1kit $src"
		diff "$T/g.err" "$T/s.err" | head -5
	fi
fi
# The order of the walk's last lines (git's object table, graph.c git_hash_order): 85 commits in
# one pack with one missing. The lookups of git's walk, and --connectivity-only's listing order and
# second listing, move lines that the object check's events alone put elsewhere.
r=$T/order-missing
git init -q "$r"
(
	cd "$r" || exit 1
	for i in $(seq 1 85); do
		printf 'commit refs/heads/master\ncommitter C <c@x> %d +0000\ndata 3\nc%d\n' $((1700000000 + i)) $((i % 10))
		printf 'M 644 inline f%d\ndata %d\n%d\n\n' $((i % 13)) $((${#i} + 1)) "$i"
	done | git fast-import --quiet || exit 1
	x=$(git rev-parse --verify -q master~42) || exit 1
	git cat-file --batch-all-objects --batch-check='%(objectname)' | grep -v "$x" |
		git pack-objects -q "$T/order-pack" >/dev/null || exit 1
	rm -f .git/objects/pack/pack-*
	for f in "$T"/order-pack-*; do mv "$f" ".git/objects/pack/pack-${f#"$T"/order-pack-}" || exit 1; done
	[ "$(git cat-file --batch-all-objects --batch-check='%(objectname)' | wc -l)" = 254 ]
) || fail "could not make the repository of the order cases"
compare_order "85 commits in one pack, one missing, --unreachable" "$r" --unreachable
[ -z "$COMPARED" ] || [ "$(grep -c '^unreachable ' "$T/g.out")" -gt 100 ] ||
	fail "85 commits in one pack, one missing: git printed no unreachable lines"
compare_order "85 commits in one pack, one missing, --connectivity-only --unreachable" "$r" \
	--connectivity-only --unreachable
# A loose tree's lookups (not only the objects it makes), and the second copy of an object (loose
# and packed): git looks the objects up again, and each lookup moves the object it finds to its
# first slot (two reproductions of a new user's run; one loose object per xx/ directory, so the
# order is the same under Wine)
r=$T/order-loose
git init -q --bare "$r"
(
	cd "$r" || exit 1
	echo 'extra 22 1' | git hash-object -w --stdin >/dev/null &&
		printf '100644 blob %s\tlocal2.txt\n100644 blob %s\tlocal3.txt\n040000 tree %s\tsrc\n' \
			7f79877d1bd69e1972825db77556126e64b0c737 6b96250f70962cee009721005083e468356fa864 \
			61e313ebc4bb6292964b9d70b9300d08d75ba73d | git mktree --missing >/dev/null &&
		t=$(printf '100644 blob %s\tlocal2.txt\n100644 blob %s\tlocal3.txt\n040000 tree %s\tsrc\n' \
			ebe42204b10076a7130086bdcefa12ffc8c538c0 6b96250f70962cee009721005083e468356fa864 \
			61e313ebc4bb6292964b9d70b9300d08d75ba73d | git mktree --missing) &&
		git update-ref refs/odd/tree "$t"
) || fail "could not make the repository of the loose tree's lookups"
compare_order "a loose tree's lookups" "$r"
r=$T/order-copies
git init -q --bare "$r"
git init -q --bare "$T/order-stage"
(
	cd "$T/order-stage" || exit 1
	mk() { printf "$1" | git mktree --missing; }
	a=$(mk '040000 tree d970f82b2ae93929979b8d3224d661b7c6cd4677\tx\n') &&
		b=$(mk '100644 blob bd5250f8bf2185b711389d312f729ba066d96092\tf1.txt\n100644 blob 0b110845c3d9d6ab054f5dcb2c9e50ceb9ad4143\tf3.txt\n') &&
		c=$(mk '100644 blob bd5250f8bf2185b711389d312f729ba066d96092\tf1.txt\n100644 blob d58f512a5eb9df0a9a6e27b1005d99b0476a8724\tf3.txt\n') &&
		d=$(mk '100644 blob 92dbd7f6e5e7775562317abfaaa207d0970e7856\tf1.txt\n100644 blob be4f1b42d242f78c312fc6385c44afb65cf2c04a\tf2.txt\n040000 tree 03d7724a65548a1bcd08982c0fe05bc89ee751a0\tlib\n040000 tree 1b66d8e863959ebebb4e5ccf34a27d5d2f4ac122\tsrc\n') &&
		mkdir -p "$r/objects/${a:0:2}" && cp "objects/${a:0:2}/${a:2}" "$r/objects/${a:0:2}/" &&
		printf '%s\n' "$b" "$c" "$a" "$d" | git pack-objects -q "$r/objects/pack/pack" >/dev/null &&
		echo 49cbb98e1827d9aa976e18584fe118892c0c07f5 >"$r/HEAD" &&
		printf '100644 %s 0\tf0.txt\n100644 %s 0\tf2.txt\n' 481b11392bceea53f7c48924ea45acc469f8a68b \
			be4f1b42d242f78c312fc6385c44afb65cf2c04a |
		git --git-dir="$r" --work-tree=/nonexistent update-index --index-info
) || fail "could not make the repository of the loose and packed copies"
compare_order "a tree loose and packed, the index, HEAD at a missing commit" "$r"
# git 2.55 lists the objects (--connectivity-only) one object directory at a time: the
# repository's loose objects and packs, then its alternate's; 2.39 lists every directory's loose
# objects first. A clone --shared whose own commits are packed, one branch deleted.
sk_share_skip || {
	r=$T/order-shared
	(
		fixed_ids
		c() { fixed_commit "$@"; }
		git init -q "$r.src" && cd "$r.src" || exit 1
		for i in 1 2 3 4 5 6; do
			echo "$i" >"f$((i % 3))" && git add -A && c "$i" || exit 1
		done
		git clone -q --shared "$r.src" "$r" && cd "$r" && git checkout -q -b side || exit 1
		for i in 1 2; do
			echo "x$i" >"g$((i % 3))" && git add -A && c $((100 + i)) || exit 1
		done
		git checkout -q - && git repack -q -d -l && git branch -q -D side &&
			git reflog expire --expire=now --all
	) >/dev/null 2>&1 || fail "could not make the clone --shared of the order case"
	compare_order "clone --shared, --connectivity-only --unreachable" "$r" --connectivity-only --unreachable
}
# git 2.55's list of packs is most recently used first: the walk's reads move the older pack (the
# branch's commits) to the front, and the second listing (mark_unreachable_referents) goes through
# it first, where the first went through the newer pack (a deleted branch's) first.
sk_share_skip || {
	r=$T/order-mru
	(
		fixed_ids
		c() { fixed_commit "$@"; }
		git init -q "$r" && cd "$r" || exit 1
		for i in $(seq 1 10); do
			echo "$i" >"f$((i % 3))" && git add -A && c "$i" || exit 1
		done
		git repack -q -d && old=$(echo .git/objects/pack/*.pack) && git checkout -q -b side || exit 1
		for i in $(seq 1 20); do
			echo "x$i" >"g$((i % 3))" && git add -A && c $((1000 + i)) || exit 1
		done
		git checkout -q - && git repack -q -d && git branch -q -D side && git reflog expire --expire=now --all &&
			touch -d @1700000000 "$old" || exit 1
		for p in .git/objects/pack/*.pack; do
			[ "$p" = "$old" ] || touch -d @1700001000 "$p" || exit 1
		done
	) >/dev/null 2>&1 || fail "could not make the two packs of the order case"
	compare_order "two packs, the older read by the walk, --connectivity-only --unreachable" "$r" \
		--connectivity-only --unreachable
}
# ... and so do the reads of the second listing while it lists the loose objects (git's
# skip_mru_updates covers only the packs' part): objects loose and packed (repack without -d),
# four packs whose times give the first listing the other order (a new user's run).
sk_share_skip || {
	r=$T/order-mru-loose
	(
		fixed_ids
		FIXED_N=0
		mk() { fixed_mk "$@"; }
		git init -q "$r" && cd "$r" || exit 1
		mk 5 a && git repack -qd && git checkout -qb b && mk 4 b && git repack -q &&
			git checkout -q - && mk 3 c && git repack -q && git checkout -qb z && mk 3 z && git repack -q &&
			git checkout -q - && git branch -qD b && git branch -qD z && git reflog expire --expire=now --all ||
			exit 1
		k=4
		for p in .git/objects/pack/*.pack; do # newest first in the order of their names
			touch -d @$((1700000000 + k * 100)) "$p" && k=$((k - 1)) || exit 1
		done
	) >/dev/null 2>&1 || fail "could not make the loose and packed copies of the order case"
	compare_order "loose and packed copies, four packs, --connectivity-only --unreachable" "$r" \
		--connectivity-only --unreachable
}
# A reflog entry at a commit that is gone but that a commit names as its parent:
# fsck_handle_reflog_oid's lookup_object finds it in git's table and moves it (a sweep's case,
# there with a multi-pack-index).
sk_share_skip || {
	r=$T/order-reflog-missing
	(
		fixed_ids
		c() { fixed_commit "$@"; }
		git init -q "$r" && cd "$r" || exit 1
		for i in $(seq 1 60); do
			echo "$i" >"f$((i % 5))" && git add -A && c "$i" || exit 1
		done
		git checkout -q -b side HEAD~30 || exit 1
		for i in $(seq 1 20); do
			echo "s$i" >"g$((i % 4))" && git add -A && c $((500 + i)) || exit 1
		done
		git checkout -q - && x=$(git rev-parse HEAD~5) && git repack -q -a -d || exit 1
		git cat-file --batch-all-objects --batch-check='%(objectname)' | grep -v "$x" |
			git pack-objects -q .git/objects/pack/p >/dev/null || exit 1
		rm -f .git/objects/pack/pack-*
		for f in .git/objects/pack/p-*; do mv "$f" ".git/objects/pack/pack-${f#.git/objects/pack/p-}" || exit 1; done
		b=$(git symbolic-ref --short HEAD) && git branch -q -D side && git reflog expire --expire=now --all &&
			printf '%s %s C <c@x> 1700000000 +0000\tx\n' "$(printf "%0$(($(rawsz) * 2))d" 0)" "$x" \
				>>".git/logs/refs/heads/$b"
	) >/dev/null 2>&1 || fail "could not make the reflog entry at a missing commit of the order case"
	compare_order "a reflog entry at a missing parent, --unreachable" "$r" --unreachable
}
# A tree both loose and packed: fsck_loose and fsck_obj_buffer clear SEEN, so git walks each copy
# and looks the tree's entries up again at the second (a new user's case, 2026-12-06). Every third
# tree keeps a loose copy beside the pack.
sk_share_skip || {
	r=$T/order-tree-copies
	(
		fixed_ids
		git init -q "$r" && cd "$r" || exit 1
		for i in $(seq 1 41); do
			echo "$i 21" >"f$(((i * 7 + 21) % 5))" && mkdir -p "d$((i % 3))" && echo "$i" >"d$((i % 3))/g$((i % 4))" &&
				git add -A && fixed_commit "$i" || exit 1
		done
		git checkout -q -b side HEAD~5 || exit 1
		for i in $(seq 1 8); do
			echo "s$i 21" >"f$((i % 5))" && git add -A && fixed_commit $((1000 + i)) || exit 1
		done
		git checkout -q - && git repack -q -a || exit 1
		j=0
		for o in $(git cat-file --batch-all-objects --batch-check='%(objectname)/%(objecttype)'); do
			id=${o%/*}
			if [ "${o#*/}" = tree ]; then
				j=$((j + 1))
				[ $((j % 3)) = 0 ] && continue
			fi
			rm -f ".git/objects/${id:0:2}/${id:2}"
		done
		git branch -q -D side && git reflog expire --expire=now --all
	) >/dev/null 2>&1 || fail "could not make the trees loose and packed of the order case"
	compare_order "trees loose and packed, --unreachable" "$r" --unreachable
}
}

# 19. Partial clones (issue #25): `git clone --filter=...` from a file:// remote leaves promisor
# packs (a .promisor file beside each) whose objects and what they link to are promisor objects:
# git's walk stops at them and never calls them missing; a ref or reflog entry at a missing one is
# no error. Then: a promisor pack that lost its .promisor file, a local commit naming a missing blob
# that no promisor object names (and one that a promisor tree names, that tree also loose), a blob
# fetched later (a second promisor pack), a missing promisor commit with a ref and a reflog entry
# at it, and promisor objects also present loose.
# partial_src: the served repository: 4 commits, a/ and a/b/, blobs over 1 KiB, an annotated tag.
partial_src() {
	[ -d "$T/partial-src" ] && return
	git init -q "$T/partial-src"
	(
		cd "$T/partial-src" || exit 1
		git config uploadpack.allowFilter true
		mkdir -p a/b
		for i in 1 2 3 4; do
			echo "v$i" >"f$i"
			seq 1 300 | sed "s/^/big $i /" >a/big
			echo "s$i" >"a/b/s$i"
			git add -A
			git commit -qm "c$i"
		done
		git tag -a -m tag v1 HEAD~1
	)
}
# partial_expect NAME FILE LINES: FILE (git's output just compared) holds LINES lines.
partial_expect() { # after a comparison: how many lines git printed (nothing when it did not run)
	local n
	[ -n "$COMPARED" ] || return 0
	n=$(wc -l <"$2")
	if [ "$n" -eq "$3" ]; then pass; else fail "$1: git printed $n lines, expected $3"; fi
}
# commits_pack REPO: the idx of the pack that holds HEAD (the clone's commits and trees).
commits_pack() {
	local f head
	head=$(git -C "$1" rev-parse HEAD)
	for f in "$1"/.git/objects/pack/*.idx; do
		git show-index <"$f" | grep -q "$head" && echo "$f"
	done
}
# loose_copy REPO ID: write object ID of REPO as a loose object too (git will not: it is packed).
loose_copy() {
	local type
	type=$(git -C "$1" cat-file -t "$2") || return 1
	rm -rf "$T/lc" && git init -q "$T/lc"
	git -C "$1" cat-file "$type" "$2" | git -C "$T/lc" hash-object -w -t "$type" --stdin >/dev/null
	mkdir -p "$1/.git/objects/${2:0:2}"
	cp "$T/lc/.git/objects/${2:0:2}/${2:2}" "$1/.git/objects/${2:0:2}/${2:2}"
}
# A partial clone whose promisor pack is damaged. git collects the promisor objects by parsing every
# object of the promisor packs, newest pack first, each in pack order (packfile.c
# is_promisor_object, add_promisor_object), and its collection ends at the first object it cannot
# parse: where that read fails, git dies ("packed object ... is corrupt", 128); where the pack does
# not open, the objects from there on are no promisor objects and what they promised is reported
# missing (broken links, "missing blob"). git 2.39 hashes each object there (a blob too); git 2.53
# and later read no blob and hash nothing (3f5d1749e7), so a blob git has not marked bad is
# fine. sha1kit took every object of a promisor pack as promised: exit 4 where git died, and with
# --connectivity-only exit 0 and no line at all (a new user's trial, 2026-12-07, its repros 01-08).
# mkpartial_damaged DIR CASE: a blob:none clone (its checkout fetched HEAD's three blobs, one
# base and two deltas, into a second, newer promisor pack), then CASE: commit (a byte of the
# third commit's data in the clone's pack), commit-graph (the same with a commit-graph: git 2.53+
# takes the commit from it there, and dies only in `git commit-graph verify`), blob (a byte of the
# blob pack's first entry's data), trunc (the blob pack 30 bytes short), empty (the blob pack of 0
# bytes), idxname (a byte of the second object name of the blob pack's idx), tagheader (the first
# byte of the annotated tag's entry header xor 0xff: it reads as a blob's; git 2.55's snapshot of
# the refs reads it and dies, with --connectivity-only too, where sha1kit took it for an unread
# blob), treeheader (the same for HEAD's tree). Both found by a new user's trial; in its layout a
# tree's flipped header read as a blob's, which git has in memory as a tree: its collection reads
# it and dies, where sha1kit took it for a blob that 2.53+ does not read (not this layout's case).
# idxfanout (a byte of the blob pack's idx fan-out: "non-monotonic index"): git's collection passes
# over a pack whose idx it cannot open, and the trees of the clone's pack still promise its blobs;
# sha1kit read that idx and stopped there, reporting each blob as a broken link (a second trial's
# repro 02). idxcommit (a byte of the first object name in the clone pack's idx, a commit's): git
# 2.39's collection hashes that entry and stops at its "hash mismatch"; the entry stays a commit
# git's check of the unreachable objects parses (without a hash) and whose parent is then used, not
# dangling, where sha1kit's --connectivity-only parsed it as empty ("bogus commit object", exit 7
# where git exits 2; the same trial's repro 23).
mkpartial_damaged() {
	local r=$1 o=$T/partial-damaged-src p c at b
	[ -d "$o" ] || (
		fixed_ids
		git init -q "$o" && cd "$o" && git config uploadpack.allowFilter true || exit 1
		for i in 1 2 3; do
			seq 1 $((i * 500)) >"f$i.txt" && git add -A && fixed_commit "$i" || exit 1
		done
		GIT_COMMITTER_DATE="@1700000100 +0000" git tag -a -m v1 v1 HEAD~1
	) >/dev/null 2>&1 || return 1
	git clone -q --no-local --filter=blob:none "file://$o" "$r" 2>/dev/null || return 1
	[ "$2" != commit-graph ] || git -C "$r" commit-graph write --reachable 2>/dev/null || return 1
	(
		cd "$r/.git/objects/pack" || exit 1
		c=$(basename "$(commits_pack "$r")" .idx)
		p=
		for f in *.idx; do [ "${f%.idx}" = "$c" ] || p=${f%.idx}; done
		[ -n "$p" ] || exit 1
		touch -d '2020-01-01 00:00:00' "$c.pack" && touch -d '2024-01-01 00:00:00' "$p.pack" || exit 1
		chmod u+w ./*
		case $2 in
		commit | commit-graph)
			at=$(git verify-pack -v "$c.idx" | awk '$2 == "commit" { if (++n == 3) { print $5; exit } }')
			at=$((at + 4)) f=$c.pack
			;;
		blob) at=16 f=$p.pack ;;
		tagheader | treeheader)
			o=$(git rev-parse "$([ "$2" = tagheader ] && echo v1 || echo 'HEAD^{tree}')")
			at=$(git verify-pack -v "$c.idx" | awk -v o="$o" '$1 == o { print $5 }') f=$c.pack x=255
			;;
		idxname) at=$((8 + 1024 + 20 + 16)) f=$p.idx ;;
		idxfanout) at=$((8 + 4 * 128 + 3)) f=$p.idx x=255 ;;
		idxcommit) at=$((8 + 1024 + 7)) f=$c.idx x=255 ;;
		trunc) truncate -s $(($(stat -c %s "$p.pack") - 30)) "$p.pack" ;;
		empty) : >"$p.pack" ;;
		esac
		if [ -n "${at:-}" ]; then
			b=$(od -An -tu1 -j "$at" -N1 "$f" | tr -d ' ')
			printf "\\$(printf '%03o' $((b ^ ${x:-0x55})))" | dd of="$f" bs=1 seek="$at" conv=notrunc 2>/dev/null
		fi
		touch -d '2024-01-01 00:00:00' "$p.pack"
	)
}
section_partial_damaged() {
	local c r
	for c in commit commit-graph blob trunc empty idxname idxcommit tagheader treeheader; do
		r=$T/partial-damaged-$c
		mkpartial_damaged "$r" $c || {
			fail "partial clone with a damaged promisor pack ($c): no repository"
			continue
		}
		$exact "partial clone, its promisor pack damaged ($c)" "$r"
		$exact "partial clone, its promisor pack damaged ($c), --connectivity-only" "$r" --connectivity-only
	done
	r=$T/partial-damaged-idxfanout
	if mkpartial_damaged "$r" idxfanout; then
		compare_distinct "partial clone, its promisor pack's idx damaged (idxfanout)" "$r"
		compare_distinct "partial clone, its promisor pack's idx damaged (idxfanout), --connectivity-only" "$r" --connectivity-only
	else
		fail "partial clone with a damaged promisor idx: no repository"
	fi
}
section_partial() { # leaks
partial_src
src=file://$T/partial-src
for filter in blob:none tree:0 blob:limit=1k; do
	r=$T/partial-${filter%%[:=]*}-${filter##*[:=]}
	git clone -q --filter="$filter" "$src" "$r" 2>/dev/null
	$exact "partial clone --filter=$filter" "$r"
	partial_expect "partial clone --filter=$filter: git fsck" "$T/g.out" 0
	for o in --connectivity-only --unreachable --no-dangling "--connectivity-only --unreachable" --no-reflogs; do
		# shellcheck disable=SC2086 # the options are words
		compare "partial clone --filter=$filter, $o" "$r" $o
	done
done
# git prints unreachable lines in the order of its object table, where lookup_object moves an
# object it finds away from its first slot into that slot: in a partial clone the first
# is_promisor_object looks up every object of the promisor packs. 20 commits of fixed dates (the
# same IDs, so the same slots, every time); every commit but the tip is unreachable to git's walk
# (it stops at promisor objects), and with blob:none each commit's tree. Before sha1kit replayed the lookups, 2 (tree:0) and 4 (blob:none)
# of the lines came out elsewhere.
# With --connectivity-only --unreachable git lists the objects a second time
# (mark_unreachable_referents) and walks the unreachable promisor trees, making their absent
# blobs; its is_promisor_object first parses each promisor object (a commit's tree and parents
# looked up). Before sha1kit replayed those, a blob:none clone of 5 commits gave a line elsewhere. And a tag at a blob that is gone, in a clone whose working tree fetched its
# blobs into a second promisor pack: git 2.55's snapshot of the refs asks is_promisor_object for
# the tag, before its object check (and parse_object of a blob looks it up twice).
o=$T/partial-order-src
sk_share_skip 4 || {
	git init -q "$o"
	(
		cd "$o" || exit 1
		git config uploadpack.allowFilter true
		for i in $(seq 1 20); do
			echo "line $i" >"f$((i % 7)).txt"
			git add -A
			GIT_AUTHOR_DATE="@$((1700000000 + i)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + i)) +0000" \
				git commit -qm "c$i"
		done
	) >/dev/null 2>&1
	for filter in tree:0 blob:none; do
		sk_share_skip && continue # the sanitizers' pass: not the clone either
		r=$T/partial-order-${filter%%:*}
		git clone -q --bare --no-local --filter="$filter" "file://$o" "$r" 2>/dev/null
		compare_order "partial clone --filter=$filter, --unreachable" "$r" --unreachable
		n=39 # the 19 commits and their trees
		[ "$filter" = tree:0 ] && n=19
		partial_expect "partial clone --filter=$filter, --unreachable: git's lines" "$T/g.out" "$n"
	done
	sk_share_skip || {
		o5=$T/partial-order-src5
		git init -q "$o5"
		(
			cd "$o5" || exit 1
			git config uploadpack.allowFilter true
			export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@x
			for i in 1 2 3 4 5; do
				echo "$i" >"f$((i % 3))"
				git add -A
				GIT_AUTHOR_DATE="@$((1700000000 + i)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + i)) +0000" \
					git commit -qm "c$i"
			done
		) >/dev/null 2>&1
		r=$T/partial-order-five
		git clone -q --bare --no-local --filter=blob:none "file://$o5" "$r" 2>/dev/null
		compare_order "partial clone of 5 commits --filter=blob:none, --connectivity-only --unreachable" "$r" \
			--connectivity-only --unreachable
	}
	sk_share_skip || {
		r=$T/partial-order-tag
		git clone -q --no-local --filter=blob:none "file://$o" "$r" 2>/dev/null
		(
			cd "$r" || exit 1
			x=$(echo lost | git hash-object -w --stdin) && git tag t "$x" &&
				rm ".git/objects/${x:0:2}/${x:2}"
		) || fail "could not make the partial clone with a tag at a missing blob"
		compare_order "partial clone --filter=blob:none, a tag at a blob that is gone, --unreachable" \
			"$r" --unreachable
	}
}
# The same list: a read of the empty tree touches no pack (git keeps it in memory,
# odb/source-inmemory.c). A blob:none clone whose checkout could not fetch (so its first local
# commit has the empty tree), local commits packed by repack without -d, a deleted branch.
sk_share_skip || {
	o=$T/partial-empty-src
	r=$T/partial-empty
	(
		fixed_ids
		git init -q "$o" && cd "$o" && git config uploadpack.allowFilter true || exit 1
		for i in $(seq 1 15); do
			mkdir -p "d$((i % 3))" && echo "$i 34" >"d$((i % 3))/f$((i % 4))" && echo "t$i" >"top$((i % 2))" &&
				git add -A && fixed_commit "$i" || exit 1
		done
		GIT_NO_LAZY_FETCH=1 git clone -q --no-local --filter=blob:none "file://$o" "$r"
		cd "$r" || exit 1
		# the checkout left no files: the first commit records the empty tree; the others as
		# their files' directories allow (a write into a missing one fails, and is meant to)
		for i in 1 2 3 4 5; do
			echo "l$i 34" >"d$((i % 3))/f$((i % 4))"
			git add -A && fixed_commit $((100 + i))
		done
		git repack -q && git checkout -q -b side HEAD~2 || exit 1
		for i in 1 2 3; do
			echo "s$i" >top0 && git add -A && fixed_commit $((200 + i))
		done
		git repack -q && git checkout -q - || exit 1
		for i in 1 2; do
			echo "m$i 34" >d1/f1
			git add -A && fixed_commit $((300 + i))
		done
		git repack -q && git branch -q -D side && git reflog expire --expire=now --all &&
			git log --format=%T | grep -qx "$(git hash-object -t tree /dev/null)"
	) >/dev/null 2>&1 || fail "could not make the blob:none clone with the empty tree of the order case"
	compare_order "partial clone, a commit of the empty tree, --connectivity-only --unreachable" "$r" \
		--connectivity-only --unreachable
}
# git 2.55's list of packs, most recently used first: fsck_cache_tree's parse_object of the index's
# trees reads them and moves their pack to the front before the second listing (a new user's run:
# a tree:0 clone, whose checkout fetched the trees into promisor packs of their own, then local
# commits and a remote branch deleted). The packs' times in the order of their names, oldest first.
sk_share_skip || {
	o=$T/partial-mru-src
	r=$T/partial-mru
	(
		fixed_ids
		FIXED_N=0
		mk() { fixed_mk "$@"; }
		git init -q "$o" && cd "$o" && git config uploadpack.allowFilter true || exit 1
		mk 6 s && git checkout -qb feat && mk 3 f && git checkout -q - && mk 2 s2 || exit 1
		git clone -q --no-local --filter=tree:0 "file://$o" "$r" && cd "$r" && mk 2 local &&
			git update-ref -d refs/remotes/origin/feat || exit 1
		k=1
		for p in .git/objects/pack/*.pack; do
			touch -d @$((1700000000 + k * 100)) "$p" && k=$((k + 1)) || exit 1
		done
	) >/dev/null 2>&1 || fail "could not make the tree:0 clone of the order case"
	compare_order "partial clone --filter=tree:0, the index's trees read, --connectivity-only --unreachable" \
		"$r" --connectivity-only --unreachable
}
b=$T/partial-blob-none
old=$(cd "$b" && git rev-parse HEAD~3:a/big) # a promisor tree names it; not fetched
# a local commit whose tree names a blob nobody has (broken link, missing) and one only promisor
# trees name (no error); then the index names both too: only "missing" for the first (git marks
# index entries reachable before it walks the refs' objects)
r=$T/partial-local
cp -a "$b" "$r"
(
	cd "$r" || exit 1
	new=$(echo "never written" | git hash-object --stdin)
	t=$({ git ls-tree HEAD; printf '100644 blob %s\tnew\n100644 blob %s\told\n' "$new" "$old"; } | git mktree --missing)
	git update-ref refs/heads/master "$(git commit-tree "$t" -p HEAD -m local)"
) >/dev/null 2>&1
$exact "partial: a local commit naming a missing blob" "$r"
partial_expect "partial: a local commit naming a missing blob: git's lines" "$T/g.out" 3
(cd "$r" && git update-index --add --cacheinfo "100644,$old,old" --cacheinfo "100644,$(git rev-parse HEAD:new),new")
$exact "partial: the index names missing blobs" "$r"
partial_expect "partial: the index names missing blobs: git's lines" "$T/g.out" 1
compare "partial: a local commit naming a missing blob, --connectivity-only" "$r" --connectivity-only
# the promisor tree naming $old also loose (read first: its links are read again)
loose_copy "$r" "$(cd "$r" && git rev-parse HEAD~4:a)"
loose_copy "$r" "$(cd "$r" && git rev-parse HEAD~1)"
$exact "partial: promisor objects also loose" "$r"
compare "partial: promisor objects also loose, --connectivity-only" "$r" --connectivity-only
# the big pack loses its .promisor file: the fetched blobs' pack is the only promisor pack left
r=$T/partial-unmarked
cp -a "$b" "$r"
big=$(commits_pack "$r")
rm "${big%.idx}.promisor"
$exact "partial: a promisor pack without its .promisor file" "$r"
partial_expect "partial: a promisor pack without its .promisor file: git's lines" "$T/g.out" 9
compare "partial: a promisor pack without its .promisor file, --connectivity-only" "$r" --connectivity-only
# no promisor remote configured (remote.origin.promisor false): every pack is an ordinary one;
# then each of the other ways git knows one
r=$T/partial-no-remote
cp -a "$b" "$r"
(cd "$r" && git config remote.origin.promisor false && git config --unset remote.origin.partialclonefilter)
compare "partial: .promisor files, no promisor remote" "$r"
partial_expect "partial: .promisor files, no promisor remote: git's lines" "$T/g.out" 9
(cd "$r" && git config extensions.partialClone origin)
compare "partial: extensions.partialClone only" "$r"
partial_expect "partial: extensions.partialClone only: git's lines" "$T/g.out" 0
(cd "$r" && git config --unset extensions.partialClone && git config remote.other.partialCloneFilter blob:none)
compare "partial: remote.other.partialCloneFilter only" "$r"
partial_expect "partial: remote.other.partialCloneFilter only: git's lines" "$T/g.out" 0
# a blob fetched later (git cat-file fetches it from the remote into a new promisor pack)
r=$T/partial-fetched
cp -a "$b" "$r"
(cd "$r" && git cat-file -p "$old" >/dev/null 2>&1)
if [ -n "$(cd "$r" && git cat-file --batch-check='%(objectname)' <<<"$old" 2>/dev/null | grep -v missing)" ]; then
	$exact "partial: a blob fetched later" "$r"
	compare "partial: a blob fetched later, --unreachable" "$r" --unreachable
else
	fail "partial: git cat-file did not fetch $old"
fi
# a promisor commit missing: the commits and trees pack made again without HEAD~2, a ref and a
# reflog entry at it (no error), and a ref and a reflog entry at an object nobody names (errors)
r=$T/partial-no-commit
cp -a "$b" "$r"
(
	cd "$r" || exit 1
	gone=$(git rev-parse HEAD~2)
	big=$(commits_pack .)
	p=$(git show-index <"$big" | cut -d' ' -f2 | grep -v "$gone" | git pack-objects -q .git/objects/pack/pack)
	rm "${big%.idx}".*
	: >".git/objects/pack/pack-$p.promisor"
	echo "$gone" >.git/refs/heads/gone
	printf '%s %s C <c@example.com> 1700000000 +0000\tx\n' "$(git rev-parse HEAD)" "$gone" >>.git/logs/HEAD
	nobody=$(echo nobody | git hash-object --stdin)
	echo "$nobody" >.git/refs/heads/nobody
	printf '%s %s C <c@example.com> 1700000000 +0000\tx\n' "$gone" "$nobody" >>.git/logs/refs/heads/master
) >/dev/null 2>&1
$exact "partial: a missing promisor commit, refs and reflog entries" "$r"
partial_expect "partial: a missing promisor commit: git's errors" "$T/g.err" 2
compare "partial: a missing promisor commit, --connectivity-only" "$r" --connectivity-only
compare "partial: a missing promisor commit, --unreachable" "$r" --unreachable
# .gitattributes and .gitmodules blobs that a blob:none clone did not fetch: promisor objects,
# which fsck_finish leaves alone (fsck.c fsck_blobs, is_promisor_object; the user's trial of
# 2026-12-05 found gitattributesMissing lines on a clone of git.git); then a local commit naming
# new ones that nobody has: git's gitmodulesMissing / gitattributesMissing besides the broken links
local sm=$T/partial-special-src
git init -q "$sm" && (
	cd "$sm" || exit 1
	git config uploadpack.allowFilter true
	mkdir d
	for v in 1 2; do
		printf '*.c diff=cpp%s\n' "$v" >.gitattributes
		printf '[submodule "m"]\n\tpath = m\n\turl = https://example.com/m%s.git\n' "$v" >.gitmodules
		printf '*.txt text%s\n' "$v" >d/.gitattributes
		git add -A && git commit -qm "c$v"
	done
) >/dev/null 2>&1
# the checkout fetched the blobs of the second commit: the first one's stay in the promisor remote
r=$T/partial-special
git clone -q --filter=blob:none "file://$sm" "$r" 2>/dev/null
$exact "partial: .gitattributes and .gitmodules blobs not fetched" "$r"
partial_expect "partial: .gitattributes and .gitmodules blobs not fetched: git's lines" "$T/g.out" 0
(
	cd "$r" || exit 1
	ga=$(printf '*.h diff=cpp\n' | git hash-object --stdin)
	gm=$(printf '[submodule "n"]\n\tpath = n\n\turl = https://example.com/n.git\n' | git hash-object --stdin)
	t=$({ git ls-tree HEAD | grep -v '	\.git'; printf '100644 blob %s\t.gitattributes\n100644 blob %s\t.gitmodules\n' "$ga" "$gm"; } |
		git mktree --missing)
	git update-ref refs/heads/master "$(git commit-tree "$t" -p HEAD -m local)"
) >/dev/null 2>&1
$exact "partial: a local commit naming .gitattributes and .gitmodules blobs nobody has" "$r"
partial_expect "partial: .gitattributes and .gitmodules blobs nobody has: git's errors" "$T/g.err" 2
}

# 15. A repository owned by another user (git's test switch GIT_TEST_ASSUME_DIFFERENT_OWNER says
# so to both): git refuses to discover it unless safe.directory in the global config names it (or
# is "*"; an empty value forgets the entries before it); a repository named by GIT_DIR is checked.
section_owned() { # nowine
if [ -z "${SK_WINDOWS:-}" ]; then
	r=$T/owned
	mkrepo "$r"
	mkdir -p "$r/sub" "$T/own-home"
	for cfg in none path star reset; do
		rm -f "$T/own-home/.gitconfig"
		# (--file, never --global: the global file of these tests is /dev/null, which git's
		# lock-and-rename would replace)
		case $cfg in
		path) git config --file "$T/own-home/.gitconfig" --add safe.directory "$r" ;;
		star) git config --file "$T/own-home/.gitconfig" --add safe.directory '*' ;;
		reset)
			git config --file "$T/own-home/.gitconfig" --add safe.directory '*'
			git config --file "$T/own-home/.gitconfig" --add safe.directory ''
			;;
		esac
		for where in "$r" "$r/sub"; do
			HOME=$T/own-home GIT_CONFIG_GLOBAL=$T/own-home/.gitconfig GIT_TEST_ASSUME_DIFFERENT_OWNER=1 \
				compare "another user's repository, safe.directory $cfg, in ${where#"$T"/}" "$where"
		done
	done
	(cd "$T" && GIT_DIR=$r/.git GIT_TEST_ASSUME_DIFFERENT_OWNER=1 compare "another user's repository in GIT_DIR" .)
fi
}

# 9. Not a repository: git's fatal line and status 128.
# includeIf.<condition>.path in the config (git-config(1) "Conditional includes"; git 2.39.5 and
# 2.55.0 alike): a condition that holds includes a file setting fsck.zeroPaddedFilemode=ignore, and
# the warning about a tree with mode 0100644 goes away. Conditions in the global file
# (GIT_CONFIG_GLOBAL) and in the repository's config: gitdir: absolute, with a trailing '/', without
# a leading '/' ("**/" put before it), with "~/", relative to the config file ("./"), not matching;
# gitdir/i: against gitdir: with another case; the git dir reached through a symbolic link (git
# matches its real path, then its absolute path); a linked worktree's git dir; onbranch: a branch, a
# pattern with '/' at the end, a branch that is not HEAD's, detached HEAD; hasconfig:remote.*.url:
# without remotes, with a remote whose URL matches or not, and with a URL in a file an includeIf
# brings in (git dies); an unknown condition (never holds).
section_include_if() { # nowine
local D=$T/incl R id braw blob cfg
R=$D/Repo
mkdir -p "$D"
mkrepo "$R"
blob=$(cd "$R" && echo hello | git hash-object --stdin)
braw=$(echo "$blob" | sed 's/../\\x&/g')
id=$(cd "$R" && printf '%b' "0100644 a\0$braw" | git hash-object --literally -t tree -w --stdin)
(cd "$R" && git update-ref refs/heads/padded "$(git commit-tree -m padded "$id")")
printf '[fsck]\n\tzeroPaddedFilemode = ignore\n' >"$D/ignore.cfg"
ln -s "$R" "$D/link"
(cd "$R" && git worktree add -q -b side "$D/wt" 2>/dev/null)
# global NAME CONDITION [DIR]: the global file holds only the conditional include
global() {
	printf '[includeIf "%s"]\n\tpath = %s\n' "$2" "$D/ignore.cfg" >"$D/global.cfg"
	GIT_CONFIG_GLOBAL=$D/global.cfg HOME=$D compare "includeIf $1 ($2)" "${3:-$R}"
}
global "gitdir absolute" "gitdir:$R/.git"
global "gitdir directory" "gitdir:$R/"
global "gitdir no leading slash" "gitdir:Repo/.git"
global "gitdir ~/" "gitdir:~/Repo/"
global "gitdir ./ (beside the global file)" "gitdir:./Repo/"
global "gitdir not this one" "gitdir:$D/other/"
global "gitdir other case" "gitdir:$D/REPO/"
global "gitdir/i other case" "gitdir/i:$D/REPO/"
global "gitdir through a link (real path)" "gitdir:$R/" "$D/link"
global "gitdir of the link" "gitdir:$D/link/" "$D/link"
global "gitdir of a worktree" "gitdir:$R/.git/" "$D/wt"
global "gitdir exact, from a worktree" "gitdir:$R/.git" "$D/wt"
global "onbranch" "onbranch:master"
global "onbranch pattern" "onbranch:mas*"
global "onbranch another branch" "onbranch:side"
global "onbranch in the worktree" "onbranch:side" "$D/wt"
(cd "$R" && git branch -q topic/one && git symbolic-ref HEAD refs/heads/topic/one)
global "onbranch directory" "onbranch:topic/"
(cd "$R" && git checkout -q --detach master 2>/dev/null)
global "onbranch, detached HEAD" "onbranch:master"
(cd "$R" && git checkout -q master 2>/dev/null)
global "hasconfig without remotes" "hasconfig:remote.*.url:**"
global "unknown condition" "nosuch:thing"
(cd "$R" && git remote add origin https://example.com/team/repo.git)
global "hasconfig" "hasconfig:remote.*.url:https://example.com/**"
global "hasconfig, another host" "hasconfig:remote.*.url:https://example.org/**"
global "hasconfig, * stops at /" "hasconfig:remote.*.url:https://example.com/*"
# a file an includeIf brings in may not set a remote URL once a hasconfig: condition is asked: git dies
printf '[remote "x"]\n\turl = https://example.net/x.git\n' >"$D/url.cfg"
printf '[includeIf "gitdir:%s/"]\n\tpath = %s\n[includeIf "hasconfig:remote.*.url:**"]\n\tpath = %s\n' \
	"$R" "$D/url.cfg" "$D/ignore.cfg" >"$D/global.cfg"
GIT_CONFIG_GLOBAL=$D/global.cfg compare "includeIf hasconfig with a remote URL included" "$R"
(cd "$R" && git remote remove origin)
# in the repository's own config, "./" is relative to .git
(cd "$R" && git config "includeIf.gitdir:./.path" "$D/ignore.cfg")
compare "includeIf gitdir:./ in .git/config" "$R"
}

section_not_repo() {
mkdir -p "$T/none"
(cd "$T/none" && GIT_CEILING_DIRECTORIES=$T refgit fsck >/dev/null 2>"$T/g.err")
grc=$?
(cd "$T/none" && GIT_CEILING_DIRECTORIES=$T "$SK" fsck >/dev/null 2>"$T/s.err")
src=$?
if [ "$grc" = "$src" ] && same_file "$T/g.err" "$T/s.err"; then
	pass
else
	fail "not a repository: git $grc, sha1kit $src"
	diff "$T/g.err" "$T/s.err" | head
fi
# an object named as git fsck takes it: sha1kit's operand is the repository, and a name that is no
# path gets git's line for the repository (as `git --git-dir=HEAD fsck`) and a hint; a directory
# that is no repository, git's line alone
(cd "$T/none" && "$SK" fsck HEAD >/dev/null 2>"$T/s.err")
src=$?
printf '%s\n' "fatal: not a git repository: 'HEAD'" \
	"hint: the operand of sha1kit fsck is a repository, and 'HEAD' is no path: objects cannot be named for it to check (see sha1kit fsck --help)" >"$T/want.err"
if [ $src = 128 ] && same_file "$T/want.err" "$T/s.err"; then pass; else fail "fsck HEAD: exit $src: $(head -c 300 "$T/s.err")"; fi
(cd "$T" && "$SK" fsck none >/dev/null 2>"$T/s.err")
src=$?
(cd "$T" && refgit --git-dir=none fsck >/dev/null 2>"$T/g.err")
grc=$?
if [ $src = $grc ] && same_file "$T/g.err" "$T/s.err"; then pass; else fail "fsck none: exit $src, git $grc: $(head -c 300 "$T/s.err")"; fi
}

# packed-refs damaged where git 2.55 reads it otherwise than 2.39.5 (found by a new user's
# differential fuzzer): a NUL byte in a refname (2.55 dies: "packed refname contains embedded
# NULL"), the header's space after "with:" changed (2.55 dies: "unexpected line"), and a DEL byte
# in a refname (both Gits print it as '?' in their error lines).
section_packed_refs() {
local r=$T/pr what
for what in nul header del; do
	r=$T/pr-$what
	mkrepo "$r"
	(cd "$r" && git tag v15-on && git pack-refs --all) || fail "packed-refs: could not make $r"
	python3 - "$r/.git/packed-refs" "$what" <<'PY' || fail "packed-refs: could not change $r"
import sys
path, what = sys.argv[1], sys.argv[2]
d = bytearray(open(path, 'rb').read())
if what == 'nul':
    d[d.index(b'v15-on') + 4] = 0
elif what == 'header':
    d[len(b'# pack-refs with:')] = 0xa0
else:
    d[d.index(b'v15-on') + 1] = 0x7f
open(path, 'wb').write(d)
PY
	compare_exact "packed-refs: $what" "$r"
done
}

# Found by a new user's trial of refs (2026-12-06): a FIFO below refs/ (git 2.55 lists only
# directories and regular files there: the ref check's badRefFiletype, no ref; git 2.39.5 and
# sha1kit with --git-version=2.39 wait on it, so only against a current reference, under a time
# limit), and a bad severity for a ref check's message ID in the config (git's fsck dies reading its
# config, before the ref check, also with --no-references).
section_refs_odd() { # nowine
local r=$T/refs-fifo
mkrepo "$r"
if [ "$SHA1KIT_GIT_VERSION" = 2.55 ]; then
	mkfifo "$r/.git/refs/heads/fifo"
	(cd "$r" && timeout 60 "$SK_REF_GIT" fsck --full >"$T/g.out" 2>"$T/g.err")
	grc=$?
	(cd "$r" && timeout 60 "$SK" fsck >"$T/s.out" 2>"$T/s.err")
	src=$?
	if [ $grc = 8 ] && [ $src = 8 ] && same_file "$T/g.err" "$T/s.err" && same_lines "$T/g.out" "$T/s.out"; then
		pass
	else
		fail "a FIFO below refs/: git $grc, sha1kit $src (124: killed after 60 s)"
		diff "$T/g.err" "$T/s.err" | head -5
	fi
	(cd "$r" && timeout 60 "$SK" fsck --no-references >"$T/s.out" 2>"$T/s.err")
	src=$?
	[ $src = 0 ] && [ ! -s "$T/s.err" ] && pass || fail "a FIFO below refs/, --no-references: sha1kit $src"
	rm -f "$r/.git/refs/heads/fifo"
fi
r=$T/refs-sev
mkrepo "$r"
(cd "$r" && git config fsck.badRefContent info)
compare_exact "fsck.badRefContent=info" "$r"
[ "$SHA1KIT_GIT_VERSION" = 2.55 ] && compare_exact "fsck.badRefContent=info, --no-references" "$r" --no-references
(cd "$r" && git config fsck.badRefContent Warn && echo junk >.git/refs/heads/bad)
compare_exact "fsck.badRefContent=Warn and a bad ref" "$r"
}

# The repository's config file that git cannot read (git 2.39.5 and 2.55.0 alike): a directory
# (git warns at each of its three reads, then dies with "unknown error"), in a repository and a bare
# one; a file without read permission (as root, without CAP_DAC_OVERRIDE: one warning, then the
# fatal line). Warnings and fatal line in git's order.
section_config_file() { # nowine
local r=$T/cfg-dir b=$T/cfg-bare.git
mkrepo "$r"
git clone -q --bare "$r" "$b" 2>/dev/null || fail "could not clone"
mv "$r/.git/config" "$r/.git/config.saved" && mkdir "$r/.git/config"
mv "$b/config" "$b/config.saved" && mkdir "$b/config"
compare_exact "config is a directory" "$r"
compare_exact "config is a directory, bare" "$b"
rmdir "$r/.git/config" && mv "$r/.git/config.saved" "$r/.git/config"
chmod 000 "$r/.git/config"
if nocap_both "$r"; then
	if [ $grc = 128 ] && [ $src = 128 ] && same_file "$T/g.out" "$T/s.out" && same_file "$T/g.err" "$T/s.err"; then
		pass
	else
		fail "config without read permission: git $grc, sha1kit $src"
		diff "$T/g.err" "$T/s.err" | head
	fi
fi
chmod 644 "$r/.git/config"
}

# SHA-256 repositories (issue #27): sections above again, every repository git makes here in
# SHA-256 (GIT_DEFAULT_HASH: git init, and clone of such a repository), compared with the same Gits.
# Left out: the byte-flip sweeps (long), and the sections whose set-up does not carry over (the
# partial clones' promisor remote, the pack order's fixed names). Every other case of each loop
# (twice SHA1KIT_CASE_SHARE, sk_share_case): the SHA-1 sections compare every case, and what the
# object format changes (the length of IDs in objects, trees, idx, commit-graph and midx, refs and
# logs) every case exercises alike; the processes of these sections were a sixth of the native
# pass (112 of 692 s of CPU on 2026-12-06).
sha256() {
	export GIT_DEFAULT_HASH=sha256
	SHA1KIT_CASE_SHARE=$((${SHA1KIT_CASE_SHARE:-1} * 2))
	mkrepo "$T/format-probe"
	[ "$(git -C "$T/format-probe" rev-parse --show-object-format)" = sha256 ] ||
		fail "GIT_DEFAULT_HASH=sha256: git made a $(git -C "$T/format-probe" rev-parse --show-object-format) repository"
}
section_sha256_clean() { # leaks
sha256 && section_clean
}
section_sha256_missing() {
sha256 && section_missing
}
section_sha256_loose() {
sha256 && section_loose
}
section_sha256_bad_objects() { # leaks
sha256 && section_bad_objects
}
section_sha256_refs_index() {
sha256 && section_refs_index
}
section_sha256_packs() {
sha256 && section_packs
}
section_sha256_pack_dir() { # nowine
sha256 && section_pack_dir
}
section_sha256_graph_midx() {
sha256 && section_graph_midx
}
section_sha256_graph_bad_pack() {
sha256 && section_graph_bad_pack
}
section_sha256_graph_contents() {
sha256 && section_graph_contents
}
section_sha256_midx_contents() {
sha256 && section_midx_contents
}
section_sha256_special() {
sha256 && section_special
}
section_sha256_ref_corrupt() {
sha256 && section_ref_corrupt
}
section_sha256_lost_found() {
sha256 && section_lost_found
}
section_sha256_index_kinds() {
sha256 && section_index_kinds
}
section_sha256_shallow() {
sha256 && section_shallow
}
section_sha256_reparse() {
sha256 && section_reparse
}
section_sha256_alternates() {
sha256 && section_alternates
}
section_sha256_trial2() {
sha256 && section_trial2
}
section_sha256_threads() {
sha256 && section_threads
}
section_sha256_wrong_types_1() { # long nowine
sha256 && section_wrong_types_1
}

sk_run_sections
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
