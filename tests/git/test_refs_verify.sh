#!/usr/bin/env bash
# test_refs_verify.sh - `sha1kit refs verify` (src/git/refs_verify.c) against `git refs verify`:
# loose refs (names, contents, symbolic refs, symbolic links, file types), root refs (HEAD,
# ORIG_HEAD), linked worktrees, packed-refs, fsck.<msg-id> settings and usage; and `sha1kit fsck`
# where it gives Git 2.55.0's lines by default and 2.39.5's with --git-version=2.39 (the ref check,
# every worktree's index, the grafts hint: sections fsck and current). Each case is a copy
# of one small repository with one thing changed; stderr and the exit status are compared byte for
# byte with what Git 2.55.0 gave on the same case, recorded in tests/git/refs_verify.expected
# (CI's git 2.39.5 has no `git refs`), and live with the reference git when SHA1KIT_REF_GIT is a
# Git that has `git refs verify` (2.47 or later: make check-git-current).
# To record the expectations again from such a Git:
#   SHA1KIT_REF_GIT=$(scripts/git-current.sh) bash tests/git/test_refs_verify.sh \
#       --record=tests/git/refs_verify.expected build/dev/programs/sha1kit/sha1kit
# The cases are made so that their lines do not depend on the order in which the file system lists
# a directory (one finding per directory listing, --verbose only where a directory has one entry).
# Usage: test_refs_verify.sh [--section=NAME] [--record=FILE] PATH/TO/sha1kit
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../testlib.sh"
sk_section_arg "$@" && shift
RECORD=
if [[ ${1:-} == --record=* ]]; then
	RECORD=${1#--record=}
	: >"$RECORD" || exit 1
	shift
fi
SK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
EXPECTED=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/refs_verify.expected
export LC_ALL=C GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_INDEX_FILE GIT_COMMON_DIR
export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.com
export GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000'
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-refs-verify.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export HOME="$T/no-home"
[ -n "$RECORD" ] || sk_ref_git_line
PASS=0
FAIL=0
pass() { PASS=$((PASS + 1)); }
fail() {
	FAIL=$((FAIL + 1))
	echo "FAIL: $*"
}

# Does the reference git have `git refs verify`? (2.47 and later)
live=
v=$(refgit version 2>/dev/null | sed -n 's/^git version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
if [ -n "$v" ] && { [ "${v% *}" -gt 2 ] || [ "${v#* }" -ge 47 ]; }; then
	live=1
fi
if [ -n "$RECORD" ] && [ -z "$live" ]; then
	echo "--record needs SHA1KIT_REF_GIT to be a git with 'git refs verify' (2.47 or later)" >&2
	exit 2
fi

# The recorded outcomes: "@@ KEY exit N" (KEY: the case's name and its options, joined by '_') and
# the stderr lines that follow it.
declare -A EXP_RC EXP_ERR
if [ -z "$RECORD" ]; then
	name=
	while IFS= read -r line; do
		if [[ $line == "@@ "* ]]; then
			read -r _ name _ rc <<<"$line"
			EXP_RC[$name]=$rc
			EXP_ERR[$name]=
		elif [ -n "$name" ]; then
			EXP_ERR[$name]+="$line"$'\n'
		fi
	done <"$EXPECTED"
fi

# One repository with one commit (master), made once; every case works on a copy.
git init -q "$T/base" || exit 1
echo a >"$T/base/a"
git -C "$T/base" add a && git -C "$T/base" commit -qm a || exit 1
H=$(git -C "$T/base" rev-parse HEAD)
Z=0000000000000000000000000000000000000000

# outcome DIR CMD...: what CMD prints in DIR, standard error then standard output, as one text
# (the temporary directory written @T@) in OUT, and its exit status in RC.
outcome() {
	local dir=$1 so
	shift
	so=$(cd "$dir" && "$@" 2>"$T/o.err")
	RC=$?
	OUT=$(<"$T/o.err")${so:+$'\n'$so}
	OUT=${OUT//$T/@T@}
}

# compare KEY NAME SHA1KIT-ARGS -- GIT-ARGS: sha1kit and git with those arguments in $T/NAME (made
# by the caller): sha1kit's outcome against the one recorded as KEY and, when live, against the
# reference git's; with --record, git's is recorded.
compare() {
	local key=$1 name=$2 a
	shift 2
	local -a sk=() g=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		sk+=("$1")
		shift
	done
	shift
	g=("$@")
	if [ -n "$RECORD" ]; then
		outcome "$T/$name" refgit "${g[@]}"
		{
			printf '@@ %s exit %s\n' "$key" "$RC"
			[ -z "$OUT" ] || printf '%s\n' "$OUT"
		} >>"$RECORD"
		return 0
	fi
	outcome "$T/$name" "$SK" "${sk[@]}"
	local se=$OUT rc=$RC want=${EXP_ERR[$key]-MISSING} wrc=${EXP_RC[$key]-MISSING}
	want=${want%$'\n'}
	for a in recorded live; do
		if [ $a = live ]; then
			[ -n "$live" ] || return 0
			outcome "$T/$name" refgit "${g[@]}"
			want=$OUT wrc=$RC
		fi
		if [ "$se" = "$want" ] && [ "$rc" = "$wrc" ]; then
			pass
		else
			fail "$name: ${sk[*]}: git ($a) exited $wrc, sha1kit $rc"
			diff <(printf '%s\n' "$want") <(printf '%s\n' "$se") | sed 's/^/    /' | head -20
		fi
	done
}

# run NAME [ARG...]: `refs verify ARG...` (key NAME and the arguments, joined by '_').
run() {
	local name=$1 key
	shift
	key=$name${*:+_$*}
	compare "${key// /_}" "$name" refs verify "$@" -- refs verify "$@"
}

# run_fsck NAME: `sha1kit fsck --references --no-dangling` against Git 2.55.0's `git fsck
# --no-dangling`, which runs `git refs verify` first (by default since 2.48); key fsck_NAME.
run_fsck() {
	compare "fsck_$1" "$1" fsck --references --no-dangling -- fsck --no-dangling
}

# fresh NAME: a copy of the base repository at $T/NAME; R is its .git.
fresh() {
	cp -a "$T/base" "$T/$1"
	R=$T/$1/.git
}

section_loose() {
fresh clean
run clean
run clean --verbose
fresh garbage
printf 'garbage\n' >"$R/refs/heads/garb"
run garbage
fresh nonl
printf '%s' "$H" >"$R/refs/heads/nonl"
run nonl
run nonl --strict
fresh trailing
printf '%s   trailing\n' "$H" >"$R/refs/heads/trail"
run trailing
fresh twolines
printf '%s\n\n' "$H" >"$R/refs/heads/two"
run twolines
fresh nullref
printf '%s\n' "$Z" >"$R/refs/heads/nullref"
run nullref
fresh shorthex
printf '%s\n' "${H:0:39}" >"$R/refs/heads/short"
run shorthex
fresh badname
printf '%s\n' "$H" >"$R/refs/heads/bad..name"
run badname
fresh dotlock
printf 'garbage\n' >"$R/refs/heads/x.lock"
run dotlock
fresh symbad
printf 'ref: refs/heads/../x\n' >"$R/refs/heads/badsym"
run symbad
fresh symonelevel
printf 'ref: FOO\n' >"$R/refs/heads/onelevel"
run symonelevel
fresh symnotref
printf 'ref: foo/bar\n' >"$R/refs/heads/notref"
run symnotref
fresh symnonl
printf 'ref: refs/heads/master' >"$R/refs/heads/symnonl"
run symnonl
fresh symtrail
printf 'ref: refs/heads/master\n\n' >"$R/refs/heads/symtrail"
run symtrail
fresh symspace
printf 'ref:   refs/heads/master \n' >"$R/refs/heads/symspace"
run symspace
fresh symroot
printf 'ref: ORIG_HEAD\n' >"$R/refs/heads/toroot"
run symroot
fresh symempty
printf 'ref:\n' >"$R/refs/heads/symempty"
run symempty
fresh symemptyspace
printf 'ref: \n\n' >"$R/refs/heads/symemptyspace"
run symemptyspace
fresh nested
mkdir -p "$R/refs/tags/a/b"
printf 'garbage\n' >"$R/refs/tags/a/b/c"
run nested
}

section_root() {
fresh headtag
printf 'ref: refs/tags/v1\n' >"$R/HEAD"
run headtag
fresh headnull
printf '%s\n' "$Z" >"$R/HEAD"
run headnull
fresh headnonl
printf 'ref: refs/heads/master' >"$R/HEAD"
run headnonl
fresh origgarbage
printf 'nonsense\n' >"$R/ORIG_HEAD"
run origgarbage
fresh rootstop
printf 'nonsense\n' >"$R/ORIG_HEAD"
printf 'ref: refs/tags/v1\n' >"$R/HEAD"
# git stops at the first root ref whose check fails: one of the two lines, in the order the
# directory lists them (live: the same as git's)
if [ -z "$RECORD" ]; then
	se=$(cd "$T/rootstop" && "$SK" refs verify 2>&1)
	rc=$?
	case $rc:$se in
	"255:error: ORIG_HEAD: badRefContent: nonsense" | "255:error: HEAD: badHeadTarget: HEAD points to non-branch 'refs/tags/v1'") pass ;;
	*) fail "rootstop: exit $rc, $se" ;;
	esac
	if [ -n "$live" ]; then
		ge=$(cd "$T/rootstop" && refgit refs verify 2>&1)
		[ "$ge" = "$se" ] && pass || fail "rootstop: git said $ge"
	fi
fi
fresh fetchhead
printf 'nonsense\n' >"$R/FETCH_HEAD"
printf 'nonsense\n' >"$R/lower_HEAD"
run fetchhead
fresh worktree
git -C "$T/worktree" worktree add -q --detach "$T/worktree-wt" 2>/dev/null || fail "git worktree add"
printf 'garbage\n' >"$R/worktrees/worktree-wt/HEAD"
rm -f "$R/worktrees/worktree-wt/ORIG_HEAD" # git's check of root refs stops at HEAD's error
mkdir -p "$R/worktrees/worktree-wt/refs/bisect"
printf '%s' "$H" >"$R/worktrees/worktree-wt/refs/bisect/bad"
run worktree
run worktree --verbose
}

section_packed() {
local p
fresh packedheader
printf '#garbage header\n%s refs/heads/x\n' "$H" >"$R/packed-refs"
run packedheader
fresh packedoid
printf '# pack-refs with: peeled fully-peeled sorted \nzz refs/heads/x\n' >"$R/packed-refs"
run packedoid
fresh packednospace
printf '# pack-refs with: peeled fully-peeled sorted \n%s-refs/heads/x\n' "$H" >"$R/packed-refs"
run packednospace
fresh packedname
printf '# pack-refs with: peeled fully-peeled sorted \n%s refs/heads/packed..bad\n' "$H" >"$R/packed-refs"
run packedname
fresh packedpeeled
printf '# pack-refs with: peeled fully-peeled sorted \n%s refs/tags/a\n^zz\n%s refs/tags/b\n^%s x\n' "$H" "$H" "$H" >"$R/packed-refs"
run packedpeeled
fresh packedunsorted
printf '# pack-refs with: peeled fully-peeled sorted \n%s refs/tags/v1\n%s refs/heads/tab\n' "$H" "$H" >"$R/packed-refs"
run packedunsorted
fresh packedunsortedok
printf '# pack-refs with: peeled fully-peeled \n%s refs/tags/v1\n%s refs/heads/tab\n' "$H" "$H" >"$R/packed-refs"
run packedunsortedok
fresh packednonl
printf '# pack-refs with: peeled fully-peeled sorted \n%s refs/heads/nonl' "$H" >"$R/packed-refs"
run packednonl
fresh packednoheader
printf '%s refs/heads/nonl' "$H" >"$R/packed-refs"
run packednoheader
fresh packedempty
: >"$R/packed-refs"
run packedempty
fresh packeddir
mkdir "$R/packed-refs"
run packeddir
fresh packedgood
git -C "$T/packedgood" tag -a -m t v1 && git -C "$T/packedgood" pack-refs --all
run packedgood --verbose
}

section_config() {
fresh cfgwarn
printf 'garbage\n' >"$R/refs/heads/garb"
git -C "$T/cfgwarn" config fsck.badRefContent warn
run cfgwarn
fresh cfgerror
printf '%s' "$H" >"$R/refs/heads/nonl"
git -C "$T/cfgerror" config fsck.refMissingNewline error
run cfgerror
fresh cfgignore
printf '%s\n' "$Z" >"$R/refs/heads/nullref"
git -C "$T/cfgignore" config fsck.badRefOid ignore
run cfgignore
fresh cfgunknown
git -C "$T/cfgunknown" config fsck.noSuchThing error
run cfgunknown
fresh cfgbadvalue
git -C "$T/cfgbadvalue" config fsck.badRefName bogus
run cfgbadvalue
fresh cfgobject
git -C "$T/cfgobject" config fsck.badTimezone ignore
run cfgobject
fresh cfgnovalue
printf '[fsck]\n\tbadRefName\n' >>"$R/config"
run cfgnovalue
fresh cfgskipmissing
git -C "$T/cfgskipmissing" config fsck.skipList "$T/no-such-list"
run cfgskipmissing
fresh cfgskipbad
printf 'not an id\n' >"$T/bad-list"
git -C "$T/cfgskipbad" config fsck.skipList "$T/bad-list"
run cfgskipbad
fresh cfgskipgood
printf '# ok\n%s\n\n' "$H" >"$T/good-list"
git -C "$T/cfgskipgood" config fsck.skipList "$T/good-list"
printf 'garbage\n' >"$T/cfgskipgood/.git/refs/heads/garb"
run cfgskipgood
if [ -z "$RECORD" ]; then
	# usage errors: git's status 129 (git prints its usage text, sha1kit its own line)
	(cd "$T/cfgobject" && "$SK" refs verify extra 2>/dev/null)
	[ $? = 129 ] && pass || fail "refs verify extra: not 129"
	(cd "$T/cfgobject" && "$SK" refs 2>/dev/null)
	[ $? = 129 ] && pass || fail "refs (no subcommand): not 129"
	(cd "$T/cfgobject" && "$SK" refs verify --bogus 2>/dev/null)
	[ $? = 129 ] && pass || fail "refs verify --bogus: not 129"
	# outside a repository git dies first (RUN_SETUP), also for -h and a bad option
	mkdir -p "$T/norepo"
	for a in -h --bogus ""; do
		(cd "$T/norepo" && GIT_CEILING_DIRECTORIES=$T "$SK" refs verify $a >/dev/null 2>"$T/norepo.err")
		rc=$?
		if [ $rc = 128 ] && grep -q '^fatal: not a git repository' "$T/norepo.err"; then
			pass
		else
			fail "refs verify $a outside a repository: exit $rc, $(head -1 "$T/norepo.err")"
		fi
	done
fi
}

section_fsck() {
fresh fclean
run_fsck fclean
fresh fgarbage
printf 'garbage\n' >"$R/refs/heads/garb"
run_fsck fgarbage
fresh fnonl
printf '%s' "$H" >"$R/refs/heads/nonl"
run_fsck fnonl
fresh fpacked
printf '#garbage header\n%s refs/heads/x\n' "$H" >"$R/packed-refs"
run_fsck fpacked
fresh fheadnull
printf '%s\n' "$Z" >"$R/refs/heads/nullref"
run_fsck fheadnull
fresh fheadtag
printf 'ref: refs/tags/v1\n' >"$R/HEAD"
run_fsck fheadtag
fresh fcfgref
printf '%s' "$H" >"$R/refs/heads/nonl"
git -C "$T/fcfgref" config fsck.refMissingNewline error
run_fsck fcfgref
fresh fcfgnovalue
printf '[fsck]\n\tbadRefName\n' >>"$R/config"
run_fsck fcfgnovalue
fresh fworktree
git -C "$T/fworktree" worktree add -q --detach "$T/fworktree-wt" 2>/dev/null || fail "git worktree add"
printf 'ref:\n' >"$R/worktrees/fworktree-wt/HEAD"
run_fsck fworktree
if [ -z "$RECORD" ]; then
	# as git 2.39.5 (no ref check): none of these lines
	se=$(cd "$T/fnonl" && "$SK" fsck --no-dangling --git-version=2.39 2>&1)
	rc=$?
	[ "$rc:$se" = "0:" ] && pass || fail "fsck --git-version=2.39: exit $rc, $se"
	se=$(cd "$T/fnonl" && "$SK" fsck --no-dangling --no-references 2>&1)
	rc=$?
	[ "$rc:$se" = "0:" ] && pass || fail "fsck --no-references: exit $rc, $se"
	# by default (no SHA1KIT_GIT_VERSION), git 2.55's: the ref check runs
	se=$(cd "$T/fnonl" && env -u SHA1KIT_GIT_VERSION "$SK" fsck --no-dangling 2>&1)
	rc=$?
	want=${EXP_ERR[fsck_fnonl]-MISSING}
	[ "$rc:$se" = "${EXP_RC[fsck_fnonl]-MISSING}:${want%$'\n'}" ] && pass ||
		fail "fsck by default: exit $rc, $se"
fi
}

# run_current NAME: `sha1kit fsck --git-version=2.55` (its lines where git 2.39.5 and 2.55.0
# differ: the index files of every worktree named in the index lines, the grafts hint, no HEAD or
# reflog-name lines) against Git 2.55.0's `git fsck`; key cur_NAME.
run_current() {
	compare "cur_$1" "$1" fsck --git-version=2.55 -- fsck
}

section_current() {
# a cache tree naming a tree that is not there, in the main index and a linked worktree's
fresh cindex
git -C "$T/cindex" worktree add -q --detach "$T/cindex-wt" 2>/dev/null || fail "git worktree add"
for d in "$T/cindex" "$T/cindex-wt"; do
	echo "${d##*/}" >"$d/new"
	git -C "$d" add new && t=$(git -C "$d" write-tree) && rm -f "$R/objects/${t:0:2}/${t:2}" ||
		fail "cache tree in $d"
done
run_current cindex
run_current cindex-wt
# from inside .git: git names the file "index" (strbuf_cleanup_path drops the "./")
compare cur_cindex_in_gitdir cindex/.git fsck --git-version=2.55 -- fsck
# GIT_INDEX_FILE: read by git 2.39.5's fsck, not by 2.55.0's (worktree_git_path)
cp "$R/index" "$T/other-index"
b=$(echo other | git -C "$T/cindex" hash-object -w --stdin)
GIT_INDEX_FILE=$T/other-index git -C "$T/cindex" update-index --add --cacheinfo "100644,$b,other" ||
	fail "other index"
rm -f "$R/objects/${b:0:2}/${b:2}"
GIT_INDEX_FILE=$T/other-index compare cur_cindex_indexfile cindex fsck --git-version=2.55 -- fsck
# an index entry whose blob is missing, in a linked worktree only (git 2.39.5 reads the main index)
fresh wtentry
git -C "$T/wtentry" worktree add -q --detach "$T/wtentry-wt" 2>/dev/null || fail "git worktree add"
b=$(echo wtonly | git -C "$T/wtentry-wt" hash-object -w --stdin)
git -C "$T/wtentry-wt" update-index --add --cacheinfo "100644,$b,wtonly" || fail "worktree entry"
rm -f "$R/objects/${b:0:2}/${b:2}"
run_current wtentry
# the grafts hint (2.45: "hint:" without a blank; 2.48: git config set)
fresh grafts
printf '%s\n' "$H" >"$R/info/grafts"
run_current grafts
# HEAD at an unborn branch: no notice
fresh unborn
printf 'ref: refs/heads/nothere\n' >"$R/HEAD"
run_current unborn
# a reflog with a bad name: no "bad ref for"
fresh badlog
cp "$R/logs/HEAD" "$R/logs/refs/heads/x..y"
run_current badlog
# author dates as git 2.40+ reads them: a sign, a newline, blanks before a zero (badDate,
# zeroPaddedDate; 2.39.5: badDateOverflow for -1, the others accepted or another finding)
fresh dates
for d in '-1' '+12' ' \t12' '\n12' ' 012'; do
	printf "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a> $d +0000\ncommitter C <c> 0 +0000\n\nm\n" |
		git -C "$T/dates" hash-object --literally -t commit -w --stdin >/dev/null || fail "date $d"
done
run_current dates
# a .rev whose first two entries are swapped (checksum made right): git 2.41+ checks the entries
# against the idx (exit bit 64); git 2.39.5 does not look at .rev files
fresh revswap
git -C "$T/revswap" -c pack.writeReverseIndex=true repack -q -ad || fail "repack"
rev=$(ls "$R"/objects/pack/pack-*.rev)
chmod u+w "$rev"
sk_rev_swap_first_two "$rev" || fail "swap .rev entries"
run_current revswap
# a loose object of a type git does not know (t1450's garbage type): 2.50+ fails its read at the
# header (2.39.5: "object is of unknown type")
fresh garbagetype
echo blob | git -C "$T/garbagetype" hash-object -w --stdin -t garbage --literally >/dev/null ||
	fail "garbage type"
run_current garbagetype
# commit-graph chunks as git 2.43+ reads them: a fan-out out of order (byte 100 of the file, in
# the fan-out: the file no longer loads), and a chain whose base layer is gone (2.55's verify fails)
fresh cgfanout
git -C "$T/cgfanout" commit-graph write --reachable 2>/dev/null || fail "commit-graph write"
cg=$R/objects/info/commit-graph
chmod u+w "$cg"
printf '\377' | dd of="$cg" bs=1 seek=100 conv=notrunc 2>/dev/null
run_current cgfanout
fresh cgchain
echo b >"$T/cgchain/b"
git -C "$T/cgchain" add b && git -C "$T/cgchain" commit -qm b || fail "commit"
git -C "$T/cgchain" commit-graph write --reachable --split=no-merge 2>/dev/null || fail "layer 1"
echo c >"$T/cgchain/c"
git -C "$T/cgchain" add c && git -C "$T/cgchain" commit -qm c || fail "commit"
git -C "$T/cgchain" commit-graph write --reachable --split=no-merge 2>/dev/null || fail "layer 2"
cp -a "$T/cgchain" "$T/cgtip"
rm -f "$R/objects/info/commit-graphs/graph-$(head -n 1 "$R/objects/info/commit-graphs/commit-graph-chain").graph"
run_current cgchain
# the tip layer gone: the base loads, verify fails ("one or more commit-graph chain files")
R=$T/cgtip/.git
rm -f "$R/objects/info/commit-graphs/graph-$(tail -n 1 "$R/objects/info/commit-graphs/commit-graph-chain").graph"
run_current cgtip
# reflogs in name order (git 2.45+, e69e8ffef7): an entry naming an object that is not there in
# several logs, read HEAD first, then refs/ depth first, each directory sorted
fresh reflogorder
git -C "$T/reflogorder" branch zz && git -C "$T/reflogorder" branch aa && git -C "$T/reflogorder" branch m/x ||
	fail "branches"
for l in HEAD refs/heads/master refs/heads/zz refs/heads/aa refs/heads/m/x; do
	printf '%s 1111111111111111111111111111111111111111 C <c@example.com> 1700000000 +0000\tx\n' "$H" \
		>>"$R/logs/$l"
done
run_current reflogorder
# a multi-pack-index that does not load (its hash version byte changed; 10 bytes long) or that
# names more packs than its chunk holds (2.55 dies: "pack-name chunk is too short"), as 2.55 loads
# it: twice before the objects, once more in the commit-graph verify when there is a commit-graph,
# its path as the repository names it
local m
for c in midxhash midxhashcg midxsmall midxnames; do
	fresh $c
	git -C "$T/$c" repack -qd && git -C "$T/$c" multi-pack-index write 2>/dev/null || fail "midx $c"
	[ $c != midxhashcg ] || git -C "$T/$c" commit-graph write --reachable 2>/dev/null || fail "commit-graph $c"
	m=$R/objects/pack/multi-pack-index
	chmod u+w "$m"
	case $c in
	midxhash*) printf '\002' | dd of="$m" bs=1 seek=5 conv=notrunc 2>/dev/null ;;
	midxsmall) truncate -s 10 "$m" ;;
	midxnames) printf '\002' | dd of="$m" bs=1 seek=11 conv=notrunc 2>/dev/null ;; # 2 packs named
	esac
	run_current $c
done
# an idx that does not open (its fan-out made to decrease), the pack of every object the refs
# name: 2.55 reads those objects before the object check (its snapshot of the refs: their
# "invalid sha1 pointer" lines, each lookup's line of the idx, before the pack's "index not
# opened"), and checks the reverse indexes (the idx's line again and "unable to load rev-index",
# exit bit 64); 2.39 does neither
fresh idxmono
git -C "$T/idxmono" repack -qd || fail "repack idxmono"
local idx
idx=$(ls "$R"/objects/pack/pack-*.idx)
chmod u+w "$idx"
printf '\377' | dd of="$idx" bs=1 seek=12 conv=notrunc 2>/dev/null
run_current idxmono
# the commit of the refs an empty loose file (a crash's leftover): git 2.40+ takes it for an object
# that is not there (invalid sha1 pointer, exit 3) where 2.39.5 dies (loose object is corrupt)
fresh emptyobj
: >"$R/objects/${H:0:2}/${H:2}"
run_current emptyobj
# reachability bitmaps (git 2.41+ checks their checksums, exit bit 0200: status 128): a pack's
# with a changed byte, and an empty one
for c in bitmapflip bitmapempty; do
	fresh $c
	git -C "$T/$c" repack -adbq || fail "repack -b $c"
	b=$(ls "$R"/objects/pack/pack-*.bitmap) && chmod u+w "$b" || fail "no bitmap in $c"
	if [ $c = bitmapflip ]; then
		printf 'Z' | dd of="$b" bs=1 seek=40 conv=notrunc 2>/dev/null
	else
		: >"$b"
	fi
	run_current $c
done
# a tag at a ref naming a blob as a commit: git 2.53+'s snapshot parses the tag before the object
# check, so the blob is a commit to git and its own read fails (docs/git.md c3)
fresh wrongtype
b=$(echo blobby | git -C "$T/wrongtype" hash-object -w --stdin)
t=$(printf 'object %s\ntype commit\ntag wrong\ntagger T <t@x> 1 +0000\n\nm\n' "$b" |
	git -C "$T/wrongtype" hash-object -w --literally -t tag --stdin) &&
	git -C "$T/wrongtype" update-ref refs/tags/wrong "$t" || fail "wrongtype"
run_current wrongtype
# two packs, the newer one holding the tag and a bad commit, the older one the rest, under a
# multi-pack-index: 2.55 reads the packs in the order its snapshot's reads loaded them (c3)
fresh packorder
(
	cd "$T/packorder" || exit 1
	mk() { printf 'tree %s\nauthor A <a@x> 1 +0000\ncommitter %s\n\n%s\n' "$1" "$2" "$3" |
		git hash-object -t commit -w --literally --stdin; }
	tr=$(git rev-parse HEAD^{tree})
	x=$(echo content | git hash-object -w --stdin)
	c=$(mk "$x" 'C <c@x> 1 +0000' m)
	git update-ref refs/heads/b "$c"
	tg=$(printf 'object %s\ntype blob\ntag t\ntagger T <t@x> 1 +0000\n\nm\n' "$x" | git hash-object -t tag -w --stdin)
	git update-ref refs/tags/t "$tg"
	bad=$(mk "$tr" 'C c@x> 1 +0000' bad)
	git update-ref refs/heads/bad "$bad"
	p1=$(printf '%s\n%s\n%s\n' "$c" "$x" "$bad" | git pack-objects -q .git/objects/pack/pack)
	bad2=$(mk "$tr" 'C c@x> 2 +0000' bad2)
	git update-ref refs/heads/bad2 "$bad2"
	p2=$(printf '%s\n%s\n' "$tg" "$bad2" | git pack-objects -q .git/objects/pack/pack)
	for o in "$c" "$x" "$tg" "$bad" "$bad2"; do rm -f ".git/objects/${o:0:2}/${o:2}"; done
	touch -d 2020-01-01 ".git/objects/pack/pack-$p2.pack" ".git/objects/pack/pack-$p2.idx"
	touch -d 2021-01-01 ".git/objects/pack/pack-$p1.pack" ".git/objects/pack/pack-$p1.idx"
	git multi-pack-index write
) >/dev/null 2>&1 || fail "packorder"
run_current packorder
# alternates that do not normalize: 2.55's fsck prints them twice, and each `git commit-graph
# verify` and `git multi-pack-index verify` it runs once more (c4)
fresh altbad
printf '/nonexistent/objects\nrelative/objects\n' >"$R/objects/info/alternates"
run_current altbad
# a clone -s whose only alternate is gone: every object missing; the second reading of the
# alternates comes after the snapshot's lines (its odb_reprepare), before the object check's
git clone -q -s "$T/base" "$T/altonly" 2>/dev/null || fail "clone -s"
echo /nonexistent/objects >"$T/altonly/.git/objects/info/alternates"
run_current altonly
# git 2.55's object checks (a4, a6): a tree entry name of 4097 bytes (largePathname), a tag with a
# signature header after the tagger (skipped, where 2.39.5 has extraHeaderEntry, set to warn
# here), a .gitmodules URL that url_normalize refuses (2.44+: a second '@')
fresh newchecks
(
	cd "$T/newchecks" || exit 1
	git config fsck.extraHeaderEntry warn
	a=$(git rev-parse HEAD:a)
	long=$(printf '%04097d' 0)
	lt=$({ printf '100644 %s\0' "$long"; printf '%s' "$a" | sed 's/../\\x&/g' | xargs -0 printf '%b'; } |
		git hash-object -t tree -w --literally --stdin)
	gm=$(printf '[submodule "s"]\n\tpath = s\n\turl = https://a@b@c/\n' | git hash-object -w --stdin)
	gt=$(printf '100644 blob %s\t.gitmodules\n' "$gm" | git mktree)
	tg=$(printf 'object %s\ntype commit\ntag s\ntagger T <t@x> 1 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n x\n -----END PGP SIGNATURE-----\n\nm\n' \
		"$(git rev-parse HEAD)" | git hash-object -t tag -w --literally --stdin)
	git update-ref refs/tags/s "$tg"
	git update-ref refs/keep/long "$(printf 'tree %s\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 1 +0000\n\nl\n' "$lt" |
		git hash-object -t commit -w --stdin)"
	git update-ref refs/keep/gm "$(printf 'tree %s\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 1 +0000\n\ng\n' "$gt" |
		git hash-object -t commit -w --stdin)"
) >/dev/null 2>&1 || fail "newchecks"
run_current newchecks
if [ -z "$RECORD" ]; then
	se=$(cd "$T/idxmono" && "$SK" fsck --git-version=2.39 2>&1)
	rc=$?
	[ $((rc & 64)) = 0 ] && [[ $se != *"rev-index"* ]] && pass ||
		fail "fsck --git-version=2.39 of an idx that does not open: exit $rc: $se"
fi
if [ -z "$RECORD" ]; then
	se=$(cd "$T/revswap" && "$SK" fsck --git-version=2.39 2>&1)
	rc=$?
	[ "$rc:$se" = "0:" ] && pass || fail "fsck --git-version=2.39 of a bad .rev: exit $rc, $se"
fi
if [ -z "$RECORD" ]; then
	# the default (no SHA1KIT_GIT_VERSION) is 2.55
	se=$(cd "$T/grafts" && env -u SHA1KIT_GIT_VERSION "$SK" fsck 2>&1)
	rc=$?
	want=${EXP_ERR[cur_grafts]-MISSING}
	[ "$rc:$se" = "${EXP_RC[cur_grafts]-MISSING}:${want%$'\n'}" ] && pass ||
		fail "fsck by default: exit $rc, $se"
fi
}

# reftable repositories: the fixtures of tests/git/reftable/ (made by git 2.55.0, which CI's git
# cannot make), and one whose first table has a name git does not expect
section_reftable() {
# reftables came with git 2.45: sha1kit fsck reads them as 2.55 does whatever the reference git
# (as 2.39.5 it refuses the repository: tests/git/test_reftable.sh)
local c
local -x SHA1KIT_GIT_VERSION=2.55
mkdir "$T/rtfix" && tar -C "$T/rtfix" -xzf "$(dirname "$EXPECTED")/reftable/repos.tar.gz" || fail "untar"
for c in sound compacted detached missing record; do
	cp -a "$T/rtfix/$c" "$T/rt_$c"
	run "rt_$c"
	run "rt_$c" --verbose
done
cp -a "$T/rtfix/sound" "$T/rt_badname"
(
	cd "$T/rt_badname/.git/reftable" || exit 1
	first=$(head -n 1 tables.list)
	mv "$first" 0x1-0x1-zz.ref
	{
		echo 0x1-0x1-zz.ref
		tail -n +2 tables.list
	} >tables.new && mv tables.new tables.list
) || fail "rename a table"
run rt_badname
run rt_badname --strict
run_fsck rt_badname
# a SHA-256 reftable repository (version 2 tables, hash ID "s256"; reftable/sha256.tar.gz, made by
# git 2.55.0 as reftable/README.md says): its refs read with 32-byte IDs, a table renamed
tar -C "$T/rtfix" -xzf "$(dirname "$EXPECTED")/reftable/sha256.tar.gz" || fail "untar sha256"
cp -a "$T/rtfix/sha256" "$T/rt_sha256"
run rt_sha256
run rt_sha256 --verbose
cp -a "$T/rtfix/sha256" "$T/rt_sha256_badname"
(
	cd "$T/rt_sha256_badname/.git/reftable" || exit 1
	last=$(tail -n 1 tables.list)
	mv "$last" 0x1-0x1-zz.ref
	{
		head -n -1 tables.list
		echo 0x1-0x1-zz.ref
	} >tables.new && mv tables.new tables.list
) || fail "rename a SHA-256 table"
run rt_sha256_badname
if [ -z "$RECORD" ]; then
	# a SHA-1 table in the SHA-256 stack: git 2.55.0 crashes (SIGSEGV); sha1kit names the table
	cp -a "$T/rtfix/sha256" "$T/rt_sha256_mixed"
	cp "$T/rtfix/sound/.git/reftable/$(tail -n 1 "$T/rtfix/sound/.git/reftable/tables.list")" \
		"$T/rt_sha256_mixed/.git/reftable/0x0000000000ff-0x0000000000ff-00000000.ref"
	echo 0x0000000000ff-0x0000000000ff-00000000.ref >>"$T/rt_sha256_mixed/.git/reftable/tables.list"
	outcome "$T/rt_sha256_mixed" "$SK" refs verify
	[ "$RC" = 128 ] && [ "$OUT" = "fatal: .git/reftable/0x0000000000ff-0x0000000000ff-00000000.ref: corrupt reftable file (hash ID 'sha1' in a SHA-256 repository)" ] &&
		pass || fail "rt_sha256_mixed: $RC $OUT"
fi
}

section_special() { # nowine
fresh symlink
ln -s "$R/refs/heads/master" "$R/refs/heads/linked"
run symlink
fresh fifo
mkfifo "$R/refs/heads/fifo"
run fifo
fresh symdangling
ln -s /nonexistent "$R/refs/heads/dangling"
run symdangling
fresh symnodir
ln -s ../../nodir/x "$R/refs/heads/nodir"
run symnodir
fresh symloop
ln -s loop "$R/refs/heads/loop"
run symloop
fresh symrelative
ln -s master "$R/refs/heads/rel"
run symrelative
fresh packedlink
printf '# pack-refs with: peeled fully-peeled sorted \n' >"$T/packed"
ln -s "$T/packed" "$R/packed-refs"
run packedlink
}

# A SHA-256 repository (git init --object-format=sha256): object IDs of 64 hex digits in loose
# refs, packed-refs and fsck.skipList; a SHA-1 ID there is bad content. fresh256 NAME: a copy of it.
section_sha256() {
git init -q --object-format=sha256 "$T/base256" || {
	fail "git cannot make a SHA-256 repository"
	return
}
echo a >"$T/base256/a"
git -C "$T/base256" add a && git -C "$T/base256" commit -qm a || return
local H2 Z2
H2=$(git -C "$T/base256" rev-parse HEAD)
Z2=$(printf '%064d' 0)
[ ${#H2} = 64 ] && pass || fail "sha256: HEAD is $H2"
fresh256() {
	cp -a "$T/base256" "$T/$1"
	R=$T/$1/.git
}
fresh256 s256clean
run s256clean
run s256clean --verbose
fresh256 s256sha1
printf '%s\n' "$H" >"$R/refs/heads/sha1"
run s256sha1
fresh256 s256short
printf '%s\n' "${H2:0:63}" >"$R/refs/heads/short"
run s256short
fresh256 s256null
printf '%s\n' "$Z2" >"$R/refs/heads/nullref"
run s256null
fresh256 s256nonl
printf '%s' "$H2" >"$R/refs/heads/nonl"
run s256nonl
fresh256 s256trailing
printf '%s   trailing\n' "$H2" >"$R/refs/heads/trail"
run s256trailing
fresh256 s256packed
git -C "$T/s256packed" tag -a -m t v1 && git -C "$T/s256packed" pack-refs --all
run s256packed --verbose
fresh256 s256packedsha1
printf '# pack-refs with: peeled fully-peeled sorted \n%s refs/heads/x\n' "$H" >"$R/packed-refs"
run s256packedsha1
fresh256 s256packedpeeled
printf '# pack-refs with: peeled fully-peeled sorted \n%s refs/tags/a\n^%s\n' "$H2" "$H" >"$R/packed-refs"
run s256packedpeeled
fresh256 s256packedunsorted
printf '# pack-refs with: peeled fully-peeled sorted \n%s refs/tags/v1\n%s refs/heads/tab\n' "$H2" "$H2" >"$R/packed-refs"
run s256packedunsorted
fresh256 s256skipgood
printf '# ok\n%s\n\n' "$H2" >"$T/good-list256"
git -C "$T/s256skipgood" config fsck.skipList "$T/good-list256"
run s256skipgood
fresh256 s256skipsha1
printf '%s\n' "$H" >"$T/sha1-list"
git -C "$T/s256skipsha1" config fsck.skipList "$T/sha1-list"
run s256skipsha1
}

sk_run_sections
if [ -n "$RECORD" ]; then
	exit 0
fi
echo "refs verify: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
