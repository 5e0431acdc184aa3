#!/usr/bin/env bash
# test_fsck_object.sh - src/git/fsck_object against the installed git (2.39): for each case, a
# corrupt (or odd but valid) object is written with `git hash-object --literally` into a fresh copy of
# a clean repository, `git fsck --full --no-dangling` runs there, and fsck_object_driver on the
# same content must print exactly git's stderr (without git's "notice:" lines; the repository has
# no refs and no other defect, so every other line is about the object) and exit with git's status.
# Each case also names a pattern git's output must match, so that it tests what it says.
# The corruptions are those of git's t/t1450-fsck.sh and more (every check of fsck_tree,
# fsck_commit, fsck_ident and fsck_tag, the parse failures that come before them, the boundary
# values), plus fsck.<msg-id> configuration and --strict, and the list of message IDs.
# .gitattributes and .gitmodules blobs are named so by a clean tree: the driver checks the tree,
# then the blob (--special), and git's lines are all about the blob. The .gitmodules cases cover
# each finding of fsck_gitmodules_fn, names and URLs from git's t7415/t7416/t7450 (rejected and
# accepted, by git 2.39's rules), parse errors after findings, severities, and the config grammar
# on odd bytes (CRLF, NUL, 0xFF, a BOM, continuation lines, long lines).
#
# Usage: test_fsck_object.sh [--section=NAME] FSCK_OBJECT_DRIVER
# Each section (a function section_NAME below) runs alone with --section=NAME: ctest runs each as a
# test of its own, git_fsck_object_NAME (tests/git/fsck_object.cmake); without it, all in order.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../testlib.sh"
sk_section_arg "$@" && shift

DRV=${1:?usage: test_fsck_object.sh FSCK_OBJECT_DRIVER}
DRV=$(cd "$(dirname "$DRV")" && pwd)/$(basename "$DRV")
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-fsck.XXXXXX")
trap 'rm -rf "$T"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME=$T LC_ALL=C LANGUAGE=C
export GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000'
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
sk_ref_git_line

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}

# ---------------------------------------------------------------------------------------------
# The clean base repository: an empty tree E, a blob B, a commit C0 on E. No refs. Made by the
# first section that runs (need_base), copied for each case.
BASE=$T/base
need_base() {
	[ -d "$BASE" ] && return
	git init -q "$BASE" || exit 1
	E=$(git -C "$BASE" mktree </dev/null)
	B=$(echo blob | git -C "$BASE" hash-object -w --stdin)
	C0=$(git -C "$BASE" commit-tree -m base "$E")
	refgit -C "$BASE" fsck --full --no-dangling >"$T/base.out" 2>"$T/base.err"
	if [ $? -ne 0 ] || grep -qv '^notice: ' "$T/base.err" || [ -s "$T/base.out" ]; then
		echo "FAIL: the base repository is not clean"
		cat "$T/base.out" "$T/base.err"
		exit 1
	fi
}
ZERO=0000000000000000000000000000000000000000

# Raw bytes of a hex object ID.
bin() { printf "$(printf %s "$1" | sed 's/../\\x&/g')"; }
# One tree entry: MODE NAME (printf %b escapes) HEX
ent() {
	printf '%s %b\0' "$1" "$2"
	bin "$3"
}

OBJ=$T/obj
n=0
# check NAME TYPE FILE EXPECT [OPT...]
#   EXPECT: extended regex that git's stderr must match ("" = git must print nothing);
#   OPT: fsck.<id>=<value> (git -c / driver -c) or --strict (both), same for git and the driver;
#   drv:ARG passes ARG to the driver only (--finish, --have=HEX:TYPE: what git's fsck_finish sees).
check() {
	local name=$1 type=$2 file=$3 expect=$4
	shift 4
	local gitc=() drv=() strict=()
	local o
	for o in "$@"; do
		case $o in
		drv:*)
			drv+=("${o#drv:}")
			;;
		--strict)
			strict=(--strict)
			drv+=(--strict)
			;;
		*)
			gitc+=(-c "$o")
			drv+=(-c "$o")
			;;
		esac
	done
	sk_share_case || return 0 # under the sanitizers one case in SHA1KIT_CASE_SHARE (testlib.sh)
	n=$((n + 1))
	local r=$T/case$n
	cp -a "$BASE" "$r"
	local id
	id=$(git -C "$r" hash-object --literally -t "$type" -w "$file") || {
		bad "$name: hash-object"
		return
	}
	(cd "$r" && refgit ${gitc[@]+"${gitc[@]}"} fsck --full --no-dangling ${strict[@]+"${strict[@]}"}) \
		>"$r.gout" 2>"$r.gerr"
	local grc=$?
	grep_v_prefix - 'notice: ' "$r.gerr" "$r.gexp"
	(cd "$r" && "$DRV" ${drv[@]+"${drv[@]}"} "$type" "$file") >"$r.dout" 2>"$r.derr"
	local drc=$?
	if [ -s "$r.gout" ]; then
		bad "$name: git printed on stdout (the case is not self-contained): $(head -3 "$r.gout")"
		return
	fi
	if [ -z "$expect" ]; then
		if [ -s "$r.gexp" ]; then
			bad "$name: git was expected to print nothing, printed: $(<"$r.gexp")"
			return
		fi
	elif ! grep_q -Eq "$expect" "$r.gexp" || { [ "${drv[*]}" = "${drv[*]#--finish}" ] && ! grep_q -qF "$id" "$r.gexp"; }; then
		bad "$name: git's output does not match /$expect/ for $id: $(<"$r.gexp")"
		return
	fi
	if ! same_file "$r.gexp" "$r.derr"; then
		bad "$name ($type $id): output differs from git's"
		diff "$r.gexp" "$r.derr" | sed 's/^/    /' | head -20
		return
	fi
	if [ "$grc" -ne "$drc" ]; then
		bad "$name: exit status $drc, git's $grc"
		return
	fi
	ok
}

# ---------------------------------------------------------------------------------------------
# Trees
section_trees() {
need_base
{ ent 040000 sub "$E"; } >"$OBJ"
check 'tree: zero-padded mode' tree "$OBJ" '^warning in tree .*: zeroPaddedFilemode: contains zero-padded file modes$'
check 'tree: zero-padded mode, fsck.zeroPaddedFilemode=ignore' tree "$OBJ" '' fsck.zeroPaddedFilemode=ignore
check 'tree: zero-padded mode, fsck.zeroPaddedFilemode=error' tree "$OBJ" '^error in tree .*: zeroPaddedFilemode' \
	fsck.zeroPaddedFilemode=error
check 'tree: zero-padded mode, fsck.ZEROPADDEDFILEMODE=error (key case)' tree "$OBJ" '^error in tree .*: zeroPaddedFilemode' \
	fsck.ZEROPADDEDFILEMODE=error
check 'tree: zero-padded mode, --strict' tree "$OBJ" '^error in tree .*: zeroPaddedFilemode' --strict
check 'tree: zero-padded mode, --strict and fsck.zeroPaddedFilemode=warn' tree "$OBJ" '^warning in tree .*: zeroPaddedFilemode' \
	--strict fsck.zeroPaddedFilemode=warn
{ ent 100000 foo "$B"; } >"$OBJ"
check 'tree: bogus mode 100000 (t1450)' tree "$OBJ" '^warning in tree .*: badFilemode: contains bad file modes$'
check 'tree: bogus mode, fsck.badFilemode=error' tree "$OBJ" '^error in tree .*: badFilemode' fsck.badFilemode=error
{ ent 100664 foo "$B"; } >"$OBJ"
check 'tree: mode 100664 is accepted' tree "$OBJ" ''
check 'tree: mode 100664 with --strict' tree "$OBJ" '^warning in tree .*: badFilemode' --strict
# git 2.43+'s largePathname: an entry name longer than 4096 bytes, or than fsck.largePathname's N
long=$(printf '%04097d' 0)
{ ent 100644 "$long" "$B"; } >"$OBJ"
if [ "${SHA1KIT_GIT_VERSION:-}" = 2.55 ]; then
	check 'tree: a name of 4097 bytes (2.43+)' tree "$OBJ" \
		'^warning in tree .*: largePathname: contains excessively large pathname$'
	{ ent 100644 "${long:0:4096}" "$B"; } >"$OBJ"
	check 'tree: a name of 4096 bytes' tree "$OBJ" ''
	{ ent 100644 abcdefghijk "$B"; } >"$OBJ"
	check 'tree: fsck.largePathname=error:10' tree "$OBJ" '^error in tree .*: largePathname' fsck.largePathname=error:10
	check 'tree: fsck.largePathname=warn:1k' tree "$OBJ" '' fsck.largePathname=warn:1k
else
	check 'tree: a name of 4097 bytes' tree "$OBJ" ''
fi
{ ent 1100644 foo "$B"; } >"$OBJ"
check 'tree: mode 1100644 (git keeps 16 bits: a plain file)' tree "$OBJ" ''
{ ent 160000 sub "$C0"; ent 120000 link "$B"; ent 40000 dir "$E"; ent 100755 x "$B"; } >"$OBJ"
check 'tree: standard modes, unsorted (dir < link < sub < x)' tree "$OBJ" 'treeNotSorted: not properly sorted$'
{ ent 40000 dir "$E"; ent 120000 link "$B"; ent 160000 sub "$C0"; ent 100755 x "$B"; } >"$OBJ"
check 'tree: standard modes, sorted' tree "$OBJ" ''
{ ent 100644 x "$B"; ent 100644 x "$B"; } >"$OBJ"
check 'tree: duplicate entries (t1450)' tree "$OBJ" '^error in tree .*: duplicateEntries: contains duplicate file entries$'
{ ent 100644 x "$B"; ent 40000 x "$E"; } >"$OBJ"
check 'tree: file and directory of the same name' tree "$OBJ" 'duplicateEntries'
{ ent 100644 x "$B"; ent 100644 x.1 "$B"; ent 40000 x "$E"; } >"$OBJ"
check 'tree: duplicate names x x.1 x/ (t1450)' tree "$OBJ" 'duplicateEntries'
{ ent 100644 x "$B"; ent 100644 x.1.2 "$B"; ent 40000 x.1 "$E"; ent 40000 x "$E"; } >"$OBJ"
check 'tree: duplicate names x x.1.2 x.1/ x/ (t1450)' tree "$OBJ" 'duplicateEntries'
{ ent 100644 x "$B"; ent 100644 x.1 "$B"; ent 100644 x.1.2 "$B"; ent 40000 x "$E"; } >"$OBJ"
check 'tree: duplicate names x x.1 x.1.2 x/ (t1450)' tree "$OBJ" 'duplicateEntries'
{ ent 100644 x "$B"; ent 100644 'x!' "$B"; ent 100644 'x!!' "$B"; ent 100644 'x!!!' "$B"; ent 40000 'x!' "$E"; } >"$OBJ"
check 'tree: duplicate x!/ behind a chain of candidates' tree "$OBJ" 'duplicateEntries'
{ ent 100644 b "$B"; ent 100644 a "$B"; } >"$OBJ"
check 'tree: not sorted' tree "$OBJ" '^error in tree .*: treeNotSorted: not properly sorted$'
{ ent 40000 a "$E"; ent 100644 a.c "$B"; } >"$OBJ"
check 'tree: directory a sorts as a/, after a.c' tree "$OBJ" 'treeNotSorted'
{ ent 100644 a.c "$B"; ent 40000 a "$E"; } >"$OBJ"
check 'tree: a.c before directory a' tree "$OBJ" ''
{ ent 100644 b "$B"; ent 100644 a "$B"; ent 100644 a "$B"; } >"$OBJ"
check 'tree: unsorted and duplicates (report order)' tree "$OBJ" 'duplicateEntries.*|treeNotSorted'
{ ent 100644 file "$ZERO"; } >"$OBJ"
check 'tree: blob entry pointing to null sha1 (t1450)' tree "$OBJ" '^warning in tree .*: nullSha1: contains entries pointing to null sha1$'
{ ent 160000 submodule "$ZERO"; } >"$OBJ"
check 'tree: submodule entry pointing to null sha1 (t1450)' tree "$OBJ" 'nullSha1'
{ ent 100644 a/b "$B"; } >"$OBJ"
check 'tree: full pathname' tree "$OBJ" '^warning in tree .*: fullPathname: contains full pathnames$'
for spec in 'dot:.' 'dotdot:..' 'dotgit:.git' 'dotgit-case:.GIT' 'dotgit-case2:.Git' \
	'dotgit-unicode:.gI\xe2\x80\x8cT' 'dotgit-bom:\xef\xbb\xbf.git' 'git-tilde1:git~1' 'dotgitdot:.git.' \
	'dotgit-spaces:.git. .' 'dotgit-ads:.git::$INDEX_ALLOCATION' 'dot-backslash-case:.\\.GIT\\foobar' \
	'dotgit-case-backslash:.git\\foobar' 'dotgit-hfs-bad-utf8:.git\xff'; do
	label=${spec%%:*}
	name=${spec#*:}
	for mt in "100644 $B blob" "040000 $E tree"; do
		set -- $mt
		{ ent "$1" "$name" "$2"; } >"$OBJ"
		check "tree: $label as $3 (t1450)" tree "$OBJ" 'warning in tree .*: (hasDot|hasDotdot|hasDotgit): contains'
	done
done
{ ent 100644 '.\xc5\x87it' "$B"; } >"$OBJ"
check 'tree: .Ňit is allowed (t1450)' tree "$OBJ" ''
{ ent 100644 '.gitx' "$B"; ent 100644 '.git\xe2\x80\x8cx' "$B"; ent 100644 'git~2' "$B"; } >"$OBJ"
check 'tree: near misses of .git' tree "$OBJ" ''
for spec in 'gitmodules:.gitmodules:gitmodulesSymlink' 'gitmodules-case:.GITMODULES:gitmodulesSymlink' \
	'gitmodules-ntfs-short:GITMOD~1:gitmodulesSymlink' 'gitmodules-ntfs-fallback:gi7eba~9:gitmodulesSymlink' \
	'gitmodules-hfs:.gitmodules\xe2\x80\x8d:gitmodulesSymlink' 'gitmodules-trailer:.gitmodules .:gitmodulesSymlink' \
	'gitmodules-backslash:foo\\.gitmodules:gitmodulesSymlink' 'gitattributes:.gitattributes:gitattributesSymlink' \
	'gitattributes-ntfs:gi7d29~1:gitattributesSymlink' 'gitignore:.gitignore:gitignoreSymlink' \
	'gitignore-ntfs:GITIGN~4:gitignoreSymlink' 'mailmap:.mailmap:mailmapSymlink' 'mailmap-ntfs:maba30~2:mailmapSymlink'; do
	IFS=: read -r label name msg <<<"$spec"
	{ ent 120000 "$name" "$B"; } >"$OBJ"
	check "tree: $label as a symlink" tree "$OBJ" " in tree .*: $msg: "
done
{ ent 100644 .gitignore "$B"; ent 100644 .mailmap "$B"; } >"$OBJ"
check 'tree: .gitignore and .mailmap as files' tree "$OBJ" ''
{ ent 120000 .gitignore "$B"; ent 120000 .gitmodules "$B"; } >"$OBJ"
check 'tree: gitmodulesSymlink=warn, gitignoreSymlink=ignore' tree "$OBJ" '^warning in tree .*: gitmodulesSymlink' \
	fsck.gitmodulesSymlink=warn fsck.gitignoreSymlink=ignore
{ ent 040000 '.' "$ZERO"; ent 100644 '..' "$B"; ent 100644 '.git' "$B"; ent 100000 'a/b' "$B"; ent 100644 'a' "$B"; } >"$OBJ"
check 'tree: many findings, in git order' tree "$OBJ" 'nullSha1.*|fullPathname|hasDot|zeroPadded|badFilemode|treeNotSorted'
junk=$(printf twenty-bytes-of-junk | od -An -tx1 | tr -d ' \n')
printf '100644 \0' >"$OBJ"
bin "$junk" >>"$OBJ"
check 'tree: empty filename (t1450 unparseable tree)' tree "$OBJ" '^error: empty filename in tree entry$'
{ printf '10064x foo\0'; bin "$B"; } >"$OBJ"
check 'tree: malformed mode' tree "$OBJ" '^error: malformed mode in tree entry$'
{ printf ' 100644 foo\0'; bin "$B"; } >"$OBJ"
check 'tree: mode starting with a space' tree "$OBJ" 'malformed mode'
{ printf '100644 foo\0'; bin "$B" | head -c 10; } >"$OBJ"
check 'tree: truncated ID' tree "$OBJ" '^error: too-short tree object$'
{ ent 040000 .git "$E"; printf '9 x\0'; bin "$B"; } >"$OBJ"
check 'tree: bad second entry (the first counts, unsorted checks skip it)' tree "$OBJ" 'badTree: cannot be parsed as a tree'
{ ent 100644 a "$B"; ent 100644 b "$B"; printf '100644 c\0'; bin "$B" | head -c 19; } >"$OBJ"
check 'tree: truncated third entry' tree "$OBJ" 'too-short tree object'
{ ent 100644 a "$B"; ent 100644 b "$B"; } >"$OBJ"
printf 'x' >>"$OBJ"
check 'tree: trailing garbage byte' tree "$OBJ" 'too-short tree object'
{ printf '100644 foo\0'; bin "$B" | head -c 10; } >"$OBJ"
check 'tree: truncated, fsck.badTree=ignore (the decoder still complains)' tree "$OBJ" 'broken links' fsck.badTree=ignore
{ ent 100644 a "$B"; printf '100644 \0'; bin "$B"; } >"$OBJ"
check 'tree: empty second name, fsck.badTree=warn' tree "$OBJ" '^warning in tree .*: badTree' fsck.badTree=warn
}

# Blobs a tree names .gitmodules / .gitattributes, as git's fsck_finish finds them
section_finish_attr() { # leaks
need_base
M=1234567890123456789012345678901234567890
{ ent 100644 .gitmodules "$M"; } >"$OBJ"
check 'tree: .gitmodules blob missing' tree "$OBJ" '^error in blob 1234.*: gitmodulesMissing: unable to read .gitmodules blob$' \
	drv:--finish
check 'tree: .gitmodules blob missing, fsck.gitmodulesMissing=warn' tree "$OBJ" '^warning in blob .*: gitmodulesMissing' \
	drv:--finish fsck.gitmodulesMissing=warn
{ ent 040000 GITMOD~1 "$E"; } >"$OBJ"
check 'tree: GITMOD~1 directory: non-blob at .gitmodules' tree "$OBJ" \
	'^error in tree 4b825d.*: gitmodulesBlob: non-blob found at .gitmodules$' drv:--finish "drv:--have=$E:tree"
{ ent 100644 .gitattributes "$M"; } >"$OBJ"
check 'tree: .gitattributes blob missing' tree "$OBJ" 'gitattributesMissing: unable to read .gitattributes blob$' \
	drv:--finish
{ ent 160000 .gitattributes "$C0"; } >"$OBJ"
check 'tree: .gitattributes is a gitlink to a commit' tree "$OBJ" '^error in commit .*: gitattributesBlob: non-blob found at .gitattributes$' \
	drv:--finish "drv:--have=$C0:commit"

# .gitattributes blobs: the tree names the blob, git checks its lines (t1450)
check_attr() {
	local name=$1 content=$2 expect=$3
	sk_share_case || return 0 # under the sanitizers one case in SHA1KIT_CASE_SHARE (testlib.sh)
	n=$((n + 1))
	local r=$T/case$n
	cp -a "$BASE" "$r"
	printf '%s' "$content" >"$r.blob"
	local blob tree
	blob=$(git -C "$r" hash-object -w "$r.blob")
	tree=$(printf '100644 blob %s\t.gitattributes\n' "$blob" | git -C "$r" mktree)
	git -C "$r" cat-file tree "$tree" >"$r.tree"
	(cd "$r" && refgit fsck --full --no-dangling) >"$r.gout" 2>"$r.gerr"
	local grc=$?
	grep_v_prefix - 'notice: ' "$r.gerr" "$r.gexp"
	"$DRV" tree "$r.tree" 2>"$r.derr"
	local drc=$?
	"$DRV" --special gitattributes blob "$r.blob" 2>>"$r.derr"
	drc=$((drc | $?))
	if [ -n "$expect" ] && ! grep_q -Eq "$expect" "$r.gexp"; then
		bad "$name: git's output does not match /$expect/: $(<"$r.gexp")"
	elif [ -z "$expect" ] && [ -s "$r.gexp" ]; then
		bad "$name: git was expected to print nothing: $(<"$r.gexp")"
	elif ! same_file "$r.gexp" "$r.derr"; then
		bad "$name: output differs from git's"
		diff "$r.gexp" "$r.derr" | sed 's/^/    /' | head -20
	elif [ "$grc" -ne "$drc" ]; then
		bad "$name: exit status $drc, git's $grc"
	else
		ok
	fi
}
check_attr 'blob: .gitattributes with a 2056-byte line (t1450)' "pattern $(printf %02048d 1)" \
	'^error in blob .*: gitattributesLineLength: .gitattributes has too long lines to parse$'
check_attr 'blob: .gitattributes with a 2047-byte line' "$(printf %02047d 1)" ''
check_attr 'blob: .gitattributes, long second line' "a b
$(printf %02050d 7)
c" 'gitattributesLineLength'
}

# .gitmodules blobs: a tree names the blob .gitmodules (or an alias, or also .gitattributes) and git
# parses it as a config file (fsck_gitmodules_fn). The tree itself is clean, so every line git
# prints is about the blob: the driver's lines for the tree (none) and for the blob (--special)
# must be exactly git's. The content is in $GM.
GM=$T/gitmodules
# check_gm NAME EXPECT [OPT...]: OPT fsck.<id>=<value> (git -c and driver -c), name:NAME (the tree
# entry's name instead of .gitmodules), attr (the tree also names the blob .gitattributes).
check_gm() {
	local name=$1 expect=$2
	shift 2
	local gitc=() drv=() names=(.gitmodules) special=(--special gitmodules) o
	for o in "$@"; do
		case $o in
		name:*) names=("${o#name:}") ;;
		attr)
			names+=(.gitattributes)
			special+=(--special gitattributes)
			;;
		*)
			gitc+=(-c "$o")
			drv+=(-c "$o")
			;;
		esac
	done
	sk_share_case || return 0 # under the sanitizers one case in SHA1KIT_CASE_SHARE (testlib.sh)
	n=$((n + 1))
	local r=$T/case$n
	cp -a "$BASE" "$r"
	local blob tree e
	blob=$(git -C "$r" hash-object -w "$GM")
	tree=$(for e in "${names[@]}"; do printf '100644 blob %s\t%s\n' "$blob" "$e"; done | git -C "$r" mktree)
	git -C "$r" cat-file tree "$tree" >"$r.tree"
	(cd "$r" && refgit ${gitc[@]+"${gitc[@]}"} fsck --full --no-dangling) >"$r.gout" 2>"$r.gerr"
	local grc=$?
	grep_v_prefix -a 'notice: ' "$r.gerr" "$r.gexp"
	"$DRV" ${drv[@]+"${drv[@]}"} tree "$r.tree" 2>"$r.derr"
	local drc=$?
	"$DRV" ${drv[@]+"${drv[@]}"} "${special[@]}" blob "$GM" 2>>"$r.derr"
	drc=$((drc | $?))
	if [ -s "$r.gout" ]; then
		bad "$name: git printed on stdout: $(head -3 "$r.gout")"
	elif [ -n "$expect" ] && ! grep_q -aEq "$expect" "$r.gexp"; then
		bad "$name: git's output does not match /$expect/: $(<"$r.gexp")"
	elif [ -n "$expect" ] && ! grep_q -aqF "in blob $blob: " "$r.gexp"; then
		bad "$name: git's output is not about the blob $blob: $(<"$r.gexp")"
	elif [ -z "$expect" ] && [ -s "$r.gexp" ]; then
		bad "$name: git was expected to print nothing: $(<"$r.gexp")"
	elif ! same_file "$r.gexp" "$r.derr"; then
		bad "$name: output differs from git's"
		diff -a "$r.gexp" "$r.derr" | sed 's/^/    /' | head -20
	elif [ "$grc" -ne "$drc" ]; then
		bad "$name: exit status $drc, git's $grc"
	else
		ok
	fi
}
# gm LINE...: $GM is those lines (each with a newline)
gm() { printf '%s\n' "$@" >"$GM"; }
GMN='^error in blob [0-9a-f]{40}: gitmodulesName: disallowed submodule name: '
GMU='^error in blob [0-9a-f]{40}: gitmodulesUrl: disallowed submodule url: '
GMP='^warning in blob [0-9a-f]{40}: gitmodulesParse: could not parse gitmodules blob$'
# Git reads a blob's bytes as char: where char is signed (x86), a BOM is a syntax error and 0xFF
# reads as the end of input (skg_config_parse_blob); where it is unsigned (arm64, s390x, ...), both
# are ordinary bytes. The patterns below follow the ABI; the driver must print git's lines on both.
case $(uname -m) in
x86_64 | i?86) BOM_PAT=$GMP FF_PAT="${GMU}-x\$" ;;
*) BOM_PAT="${GMU}-x\$" FF_PAT="${GMU}-x" ;;
esac

# one finding of each kind, and none
section_gitmodules() {
need_base
gm '[submodule "a"]' '	path = a' '	url = https://example.com/a.git' '	update = checkout' '	branch = main'
check_gm 'gitmodules: valid' ''
gm '[submodule "../a"]' '	path = a'
check_gm 'gitmodules: name ../a' "${GMN}\\.\\./a\$"
gm '[submodule "a"]' '	url = -x'
check_gm 'gitmodules: url -x' "${GMU}-x\$"
gm '[submodule "a"]' '	path = --x'
check_gm 'gitmodules: path --x' '^error in blob [0-9a-f]{40}: gitmodulesPath: disallowed submodule path: --x$'
gm '[submodule "a"]' '	update = !rm -rf x'
check_gm 'gitmodules: update !command' '^error in blob [0-9a-f]{40}: gitmodulesUpdate: disallowed submodule update setting: !rm -rf x$'
# several per blob, in git's order: per entry name, url, path, update; the name once per entry
gm '[submodule "../a"]' '	url = -u' '	path = -p' '	update = !u' '	other' '[submodule "b"]' '	url = ./%0a' \
	'[submodule "c"]' '	path = -q' '[submodule ".."]' '	update = !v'
check_gm 'gitmodules: many findings, in order' \
	"${GMN}\\.\\./a\$|gitmodulesUrl: disallowed submodule url: -u\$|gitmodulesPath: .* -q\$|gitmodulesUpdate: .* !v\$"
# the same, two entries per line kind, the first with the ID names' case changed
gm '[SubModule "x/.."]' '	URL = -u' '	Path = -p'
check_gm 'gitmodules: section and keys in any case' "${GMN}x/\\.\\.\$"

# submodule names (check_submodule_name): ".." as a component, '/' and '\' both separators
for spec in '..' '../a' 'a/..' 'a/../b' 'x/y/..' '../../modules/evil' '..\\\\a' 'a\\\\..' 'a\\\\..\\\\b' \
	'a/..\\\\b' 'a\\\\../b' '/..' '\\\\..' ''; do
	gm "[submodule \"$spec\"]" '	path = p'
	check_gm "gitmodules: bad name \"$spec\"" "$GMN"
done
for spec in 'a..b' '..a' 'a..' 'a/..b' 'b../c' '...' 'a/...' '.' './a' 'a\\\\..b' 'a\..\b' '..x/y' \
	'a/.' 'a.b' $'\xc3\xa9'; do
	gm "[submodule \"$spec\"]" '	path = p'
	check_gm "gitmodules: good name \"$spec\"" ''
done
gm '[submodule.x]' '	url = -x' '[submodule.A]' '	path = -p'
check_gm 'gitmodules: old-style [submodule.x] sections' "${GMU}-x\$"
gm '[submodule...]' '	path = p' '[submodule..]' '	path = p'
check_gm 'gitmodules: old-style [submodule...] is the name ..' "${GMN}\\.\\.\$"
gm '[submodule "a.b"]' '	url = -x' '[submodule "../x.y"]' '	path = p'
check_gm 'gitmodules: names with dots' "${GMN}\\.\\./x\\.y\$"
gm '[submodule]' '	url = -x' '	path = -p' '[submodules "x"]' '	url = -x' '[sub "module"]' '	url = -x'
check_gm 'gitmodules: not submodule.<name>.<key>' ''
gm '[submodule "a\"b"]' '	url = -x' '[submodule "c\\\\..\\\\d"]' '	path = p'
check_gm 'gitmodules: escapes in the subsection (\" \\)' "${GMU}-x\$|${GMN}c\\\\\\.\\.\\\\d\$"
}

# URLs (check_submodule_url): git's t7416 and t7450 cases and more; git 2.39's rules (git 2.44 and
# later refuse two of the good ones: http://example.com:test/foo.git, https://ex%0aample.com:80/)
section_gitmodules_urls() { # long
need_base
for url in '-a./foo' '--upload-pack=x' '../../..//test/foo.git' '../../../../../:localhost:8080/foo.git' \
	'"..\\../.\\../:example.com/foo.git"' '..\\:x' './%0ahost=example.com/foo.git' './%0Ahost' \
	'"./a\nb"' '../../../:://one.example.com/foo.git' 'git://example.com:1234/repo%0a.git' 'git://a/../:x%0a' \
	'https://one.example.com/evil?%0ahost=two.example.com' '"https://one.example.com?%0ahost=two.example.com/foo.git"' \
	'https:///example.com/foo.git' 'https://' 'https://@/x' 'https::example.com/foo.git' 'http:::example.com/foo.git' \
	'http::one.example.com/foo.git' 'http::://one.example.com/foo.git' 'http:///one.example.com/foo.git' \
	'https://u%0a@example.com/' 'https://u:p%0a@example.com/' 'https://ex%0aample.com/' 'ftp://example.com/a%0Ab' \
	'ftps::https://example.com/%0a' '"https://example.com/a\nb"' '"https://a\nb@example.com/"' \
	'"http::a\nb://example.com/"' '"./a\nb:c"' '"https://h/a\nb:c"' '"https://u:p\nq:r@h/"'; do
	gm '[submodule "a"]' "	url = $url"
	check_gm "gitmodules: bad url $url" "$GMU"
done
# Git 2.44+ (8430b438f6) tests a git-remote-curl URL with url_normalize (urlmatch.c): these five
# pass 2.39.5's credential parser and fail 2.44's normal form (a bad port, a '%' in the host, a
# %-escaped line feed in the user part or the path, a second '@' in the host)
urls_244='http://example.com:test/foo.git https://ex%0aample.com:80/ https://u:p%0a:x@example.com/ https://example.com/a%0a:b https://a@b@c/'
for url in $urls_244; do
	gm '[submodule "a"]' "	url = $url"
	if [ "${SHA1KIT_GIT_VERSION:-}" = 2.55 ]; then
		check_gm "gitmodules: url $url (bad from 2.44 on)" "$GMU"
	else
		check_gm "gitmodules: url $url (good before 2.44)" ''
	fi
done
# and what url_normalize accepts or refuses beyond those: ports (leading zeros, the scheme's
# default, 0, 65536, nine digits), dot segments, escapes that stay or go, IPv6 hosts, file: URLs
if [ "${SHA1KIT_GIT_VERSION:-}" = 2.55 ]; then
	for url in 'https://example.com:0/x' 'https://example.com:65536/x' 'https://example.com:000065536/x' \
		'https://example.com:1x/' 'https://example.com/../x' 'https://example.com/a/../../x' \
		'https://example.com/%0' 'https://example.com/%g0' 'https://ex ample.com/' 'https://example.com/a/%2e%2e/%2E%2E/b' \
		'https://example.com:0/' 'https://example.com/a?b=%0' \
		'https://user@/x' 'https://example.com/a%0Ab/../c?q=%0a' 'https://example.com/x/..%2F..%0A'; do
		gm '[submodule "a"]' "	url = $url"
		check_gm "gitmodules: url $url (bad from 2.44 on)" "$GMU"
	done
	for url in 'https://example.com:00443/x' 'https://example.com:/x' \
		'https://example.com:65535/x' 'http://[::1]:8080/x' 'https://example.com/a%0a/../b' 'https://example.com/./a/./b/..' \
		'https://EXAMPLE.com/%7e%41' 'https://u%3a@example.com/' \
		'https://example.com#x' 'ftp://h/%00'; do
		gm '[submodule "a"]' "	url = $url"
		check_gm "gitmodules: url $url (good from 2.44 on)" ''
	done
fi
for url in './bar/baz/foo.git' 'https://example.com/foo.git' 'http://example.com:80/deeper/foo.git' \
	'data://acjbkd%0akajfdickajkd' 'ssh://host/a%0ab' \
	'./%00a' './%0' './%zz' './%0g' '../foo' \
	'../../foo.git' './:x' '.:x' 'git://example.com/repo.git' 'HTTPS://example.com/%0a' 'file:///tmp/x%0a' \
	'https://example.com' 'https://a:b:c@host/p' '"ssh://host\n"' '"http\n://example.com/"' \
	'' '"  "' 'x'; do
	gm '[submodule "a"]' "	url = $url"
	check_gm "gitmodules: good url $url" ''
done
gm '[submodule "a"]' '	url'
check_gm 'gitmodules: url without a value' ''
}

# paths and update settings
section_gitmodules_values() {
need_base
for v in '-' '-p' '  -p  ' '-p # comment'; do
	gm '[submodule "a"]' "	path = $v"
	check_gm "gitmodules: bad path $v" 'gitmodulesPath: disallowed submodule path: -'
done
for v in 'a-b' 'p-' '" -p"' '"\t-p"' 'x'; do
	gm '[submodule "a"]' "	path = $v" '	path'
	check_gm "gitmodules: good path $v" ''
done
for v in '!' '!true' '"!x"' '  !x  y'; do
	gm '[submodule "a"]' "	update = $v"
	check_gm "gitmodules: bad update $v" 'gitmodulesUpdate: disallowed submodule update setting: !'
done
for v in none checkout rebase merge '' 'x!' '" !x"' 'Checkout'; do
	gm '[submodule "a"]' "	update = $v" '	update'
	check_gm "gitmodules: good update '$v'" ''
done

# parse errors: the entries before the bad line are checked
gm '[submodule "../a"]' '	url = -x' 'garbage here' '[submodule "../b"]' '	url = -y'
check_gm 'gitmodules: parse error after findings' "${GMN}\\.\\./a\$|${GMP}"
gm '[submodule "a"'
check_gm 'gitmodules: unterminated section' "$GMP"
gm '[submodule "a"]' '	url = "-x'
check_gm 'gitmodules: unterminated quote' "$GMP"
gm '[submodule "a"]' '	url = -\q'
check_gm 'gitmodules: unknown escape' "$GMP"
gm '[submodule "a"]' '	url -x'
check_gm 'gitmodules: no = after the key' "$GMP"
gm '[submodule "a"]' '	1url = -x'
check_gm 'gitmodules: key starting with a digit' "$GMP"
printf '\357\273\277[submodule "a"]\n\turl = -x\n' >"$GM"
check_gm 'gitmodules: a UTF-8 BOM (a parse error where char is signed)' "$BOM_PAT"
gm '[submodule "../a"]' '	path = p' 'garbage'
check_gm 'gitmodules: a key alone is an entry (a boolean)' "${GMN}\\.\\./a\$"
gm '[submodule "../a"]' '	path = p' 'garbage!'
check_gm 'gitmodules: fsck.gitmodulesParse=error' '^error in blob .*: gitmodulesParse: ' fsck.gitmodulesParse=error
check_gm 'gitmodules: fsck.gitmodulesParse=ignore' "$GMN" fsck.gitmodulesParse=ignore

# severities
gm '[submodule "../a"]' '	url = -x' '	path = -p' '	update = !x' '[submodule "b"]' '	url = -y' 'oops!'
check_gm 'gitmodules: fsck.gitmodulesUrl=ignore' "$GMN" fsck.gitmodulesUrl=ignore
check_gm 'gitmodules: gitmodulesName=warn, gitmodulesPath=ignore, gitmodulesUpdate=warn' \
	'^warning in blob .*: gitmodulesName: ' fsck.gitmodulesName=warn fsck.gitmodulesPath=ignore fsck.gitmodulesUpdate=warn
check_gm 'gitmodules: all ignored but gitmodulesParse' "$GMP" fsck.gitmodulesName=ignore fsck.gitmodulesUrl=ignore \
	fsck.gitmodulesPath=ignore fsck.gitmodulesUpdate=ignore

# names of the blob, and a blob that is also .gitattributes (its checks come second)
gm '[submodule "../a"]' '	url = -x'
check_gm 'gitmodules: named .GITMODULES' "$GMN" name:.GITMODULES
check_gm 'gitmodules: named GITMOD~1' "$GMN" name:GITMOD~1
gm '[submodule "../a"]' "# $(printf %02100d 0)" '	url = -x'
check_gm 'gitmodules: also .gitattributes with a long line' "${GMN}|gitattributesLineLength" attr
gm '[submodule "../a"]' "# $(printf %02100d 0)" '	url = -x' 'oops!'
check_gm 'gitmodules: also .gitattributes, parse error' "${GMP}|gitattributesLineLength" attr

# the config grammar on odd input
printf '[submodule "../a"]\r\n\turl = -x\r\n\tpath = -p\r\n' >"$GM"
check_gm 'gitmodules: CRLF' "${GMU}-x\$"
printf '[submodule "../a"]\n\turl = -x\r\r\n\tpath = -p\r' >"$GM"
check_gm 'gitmodules: lone CRs, no final newline' "${GMU}-x\$"
printf '[submodule "../a"]\n\turl = -x' >"$GM"
check_gm 'gitmodules: no final newline' "${GMU}-x\$"
printf '[submodule "a"]\n\turl = -x\\\n  y\n\tpath = a\\\nb\n' >"$GM"
check_gm 'gitmodules: continuation lines' "${GMU}-x  y\$"
printf '[submodule "a"]\n\turl = -x\0y\n[submodule "..\0x"]\n\turl = -z\n[submodule "b"]\n\tpath = -p\n' >"$GM"
check_gm 'gitmodules: NUL bytes in a value and a subsection' "${GMU}-x\$"
printf '[submodule "a"]\n\0\turl = -x\n' >"$GM"
check_gm 'gitmodules: NUL byte at the start of a line' "$GMP"
printf '[submodule "../a"]\n\turl = -x\377[submodule "../b"]\n\turl = -y\n' >"$GM"
check_gm 'gitmodules: 0xFF ends the value, then the section fails' "$FF_PAT"
printf '[submodule "../a"]\n\turl = -x\377\n[submodule "../b"]\n\turl = -y\n' >"$GM"
check_gm 'gitmodules: 0xFF then a newline ends the parse' "$FF_PAT"
printf '[submodule "../a"]\n\tpath = p\n\377\turl = -x\n' >"$GM"
check_gm 'gitmodules: 0xFF at the start of a line ends the parse' "$GMN"
printf '[submodule "../a"]\n\turl = -x\377\tpath = -p\n' >"$GM"
check_gm 'gitmodules: 0xFF, then a key ends at once' "$FF_PAT"
printf '[submodule "../a"]\n\turl = -x\r\377\n[submodule "../b"]\n\turl = -y\n' >"$GM"
check_gm 'gitmodules: 0xFF after a CR is dropped' "${GMU}-y\$"
printf '[submodule "\303\251/.."]\n\turl = -\351\n\tur\303l = x\n' >"$GM"
check_gm 'gitmodules: non-ASCII bytes in a name, a value, a key' "${GMN}.*/\\.\\.\$|$GMP"
printf '[submodule "a"]\n\turl = -%s\n' "$(printf %070000d 0)" >"$GM"
check_gm 'gitmodules: a 70000-byte url' "${GMU}-0+\$"
printf '[submodule "%s/.."]\n\turl = https://%s/\n' "$(printf %05000d 0)" "$(printf %080000d 0)" >"$GM"
check_gm 'gitmodules: a long name and a long good url' "${GMN}0+/\\.\\.\$"
: >"$GM"
check_gm 'gitmodules: empty blob' ''
printf '; comment\n# comment\n\n[core]\n\tbare = false\n' >"$GM"
check_gm 'gitmodules: comments and another section' ''
}

# ---------------------------------------------------------------------------------------------
# Commits
section_commits() { # leaks
need_base
AUTHOR='author A U Thor <author@example.com> 1234567890 +0000'
COMMITTER='committer C O Mitter <committer@example.com> 1234567890 +0000'
# commit [AUTHOR-LINE [COMMITTER-LINE [BODY]]]: the basis commit with those lines replaced
commit() {
	printf 'tree %s\nparent %s\n%s\n%s\n\n%s\n' "$E" "$C0" "${1-$AUTHOR}" "${2-$COMMITTER}" "${3-message}"
}
commit >"$OBJ"
check 'commit: valid' commit "$OBJ" ''
{ printf 'tree %s\nparent %s\n%s\n%s\ngpgsig -----BEGIN PGP SIGNATURE-----\n line\n -----END PGP SIGNATURE-----\n\nm\n' \
	"$E" "$C0" "$AUTHOR" "$COMMITTER"; } >"$OBJ"
check 'commit: with a signature header is okay (t1450)' commit "$OBJ" ''
commit 'author A U Thor <authorATexample.com> 1234567890 +0000' >"$OBJ"
check 'commit: email without @ is okay (t1450)' commit "$OBJ" ''
commit 'author A U Thor <author@e>xample.com> 1234567890 +0000' >"$OBJ"
check 'commit: email with embedded > (t1450)' commit "$OBJ" '^error in commit .*: missingSpaceBeforeDate: '
commit 'author A U Thor author@example.com> 1234567890 +0000' >"$OBJ"
check 'commit: missing < email delimiter (t1450)' commit "$OBJ" ' - bad name$'
commit 'author A U 1234567890 +0000' >"$OBJ"
check 'commit: missing email (t1450)' commit "$OBJ" 'missingEmail: invalid author/committer line - missing email$'
commit 'author A U Thor> <author@example.com> 1234567890 +0000' >"$OBJ"
check 'commit: > in name (t1450)' commit "$OBJ" 'badName'
commit 'author <author@example.com> 1234567890 +0000' >"$OBJ"
check 'commit: no name before the email' commit "$OBJ" 'missingNameBeforeEmail: invalid author/committer line - missing space before email$'
commit 'author A U Thor<author@example.com> 1234567890 +0000' >"$OBJ"
check 'commit: no space before the email' commit "$OBJ" 'missingSpaceBeforeEmail'
commit 'author A U Thor <author@example.com 1234567890 +0000' >"$OBJ"
check 'commit: email not closed' commit "$OBJ" 'badEmail: invalid author/committer line - bad email$'
commit 'author A U Thor <author@example.com>1234567890 +0000' >"$OBJ"
check 'commit: no space before the date' commit "$OBJ" 'missingSpaceBeforeDate: invalid author/committer line - missing space before date$'
commit 'author A U Thor <author@example.com> 18446744073709551617 +0000' >"$OBJ"
check 'commit: integer overflow in timestamp (t1450)' commit "$OBJ" 'badDateOverflow: invalid author/committer line - date causes integer overflow$'
commit 'author A U Thor <author@example.com> 9223372036854775808 +0000' >"$OBJ"
check 'commit: timestamp 2^63 overflows time_t' commit "$OBJ" 'badDateOverflow'
commit 'author A U Thor <author@example.com> 9223372036854775807 +0000' >"$OBJ"
check 'commit: timestamp 2^63-1 is fine' commit "$OBJ" ''
# a sign: git 2.39.5 reads the date with strtoumax (-1 wraps, +12 is 12); 2.40+ wants a digit
# (8e4309038f), which `sha1kit fsck` follows with SHA1KIT_GIT_VERSION=2.55 (tests/testlib.sh)
commit 'author A U Thor <author@example.com> -1 +0000' >"$OBJ"
if [ "${SHA1KIT_GIT_VERSION:-}" = 2.55 ]; then
	check 'commit: timestamp -1 is a bad date (2.40+)' commit "$OBJ" 'badDate: invalid author/committer line - bad date$'
else
	check 'commit: timestamp -1 wraps and overflows' commit "$OBJ" 'badDateOverflow'
fi
commit 'author A U Thor <author@example.com> +12 +0000' >"$OBJ"
if [ "${SHA1KIT_GIT_VERSION:-}" = 2.55 ]; then
	check 'commit: timestamp +12 is a bad date (2.40+)' commit "$OBJ" 'badDate: invalid author/committer line - bad date$'
else
	check 'commit: timestamp +12 is accepted (strtoumax)' commit "$OBJ" ''
fi
commit 'author A U Thor <author@example.com>  12 +0000' >"$OBJ"
check 'commit: two spaces before the timestamp are accepted' commit "$OBJ" ''
commit 'author A U Thor <author@example.com> 0123 +0000' >"$OBJ"
check 'commit: zero-padded date' commit "$OBJ" 'zeroPaddedDate: invalid author/committer line - zero-padded date$'
commit 'author A U Thor <author@example.com> 0 +0000' >"$OBJ"
check 'commit: date 0 is fine' commit "$OBJ" ''
commit 'author A U Thor <author@example.com> now +0000' >"$OBJ"
check 'commit: bad date' commit "$OBJ" 'badDate: invalid author/committer line - bad date$'
commit 'author A U Thor <author@example.com> 12x +0000' >"$OBJ"
check 'commit: garbage after the date' commit "$OBJ" 'badDate'
for tz in '+00000' '+000' '0000' '+00a0' '*0000' '+0000 '; do
	commit "author A U Thor <author@example.com> 1234567890 $tz" >"$OBJ"
	check "commit: bad time zone '$tz'" commit "$OBJ" 'badTimezone: invalid author/committer line - bad time zone$'
done
commit "$AUTHOR" 'committer C O Mitter <committer@example.com> 1234567890 +0000x' >"$OBJ"
check 'commit: committer with a bad time zone' commit "$OBJ" 'error in commit .*: badTimezone'
commit 'author A U Thor <author@example.com> 1234567890 +00' 'committer C O Mitter <committer@example.com> 12x +0000' >"$OBJ"
check 'commit: badTimezone=warn goes on to the committer' commit "$OBJ" '^warning in commit .*: badTimezone.*' \
	fsck.badTimezone=warn
check 'commit: badTimezone=warn, badDate=ignore' commit "$OBJ" '^warning in commit .*: badTimezone' \
	fsck.badTimezone=warn fsck.badDate=ignore
sed 's/author ./author Q/' <(commit) | tr Q '\0' >"$OBJ"
check 'commit: NUL in header (t1450)' commit "$OBJ" 'nulInHeader: unterminated header: NUL at offset [0-9]+$'
check 'commit: NUL in header, fsck.nulInHeader=error' commit "$OBJ" 'error in commit .*: nulInHeader' fsck.nulInHeader=error
printf 'tree %s\n%s\n%s' "$E" "$AUTHOR" "$COMMITTER" >"$OBJ"
check 'commit: unterminated header' commit "$OBJ" 'unterminatedHeader: unterminated header$'
printf 'tree %s\n%s\n%s\n' "$E" "$AUTHOR" "$COMMITTER" >"$OBJ"
check 'commit: no body, header ends with a newline' commit "$OBJ" ''
commit "$AUTHOR" "$COMMITTER" 'initial commitQNUL after message' | tr Q '\0' >"$OBJ"
check 'commit: NUL in commit body (t1450)' commit "$OBJ" '^warning in commit .*: nulInCommit: NUL byte in the commit object body$'
check 'commit: NUL in body, fsck.nulInCommit=error (t1450)' commit "$OBJ" '^error in commit .*: nulInCommit' fsck.nulInCommit=error
printf 'tree %s\n%s\n%s\n%s\n\nm\n' "$E" "$AUTHOR" "$AUTHOR" "$COMMITTER" >"$OBJ"
check 'commit: multiple authors (t1450)' commit "$OBJ" "multipleAuthors: invalid format - multiple 'author' lines$"
check 'commit: multiple authors, fsck.multipleAuthors=ignore (t1450)' commit "$OBJ" '' fsck.multipleAuthors=ignore
printf 'tree %s\n%s\n\nm\n' "$E" "$COMMITTER" >"$OBJ"
check 'commit: missing author' commit "$OBJ" "missingAuthor: invalid format - expected 'author' line$"
check 'commit: missing author, fsck.missingAuthor=warn' commit "$OBJ" '^warning in commit .*: missingAuthor' fsck.missingAuthor=warn
printf 'tree %s\n%s\n\nm\n' "$E" "$AUTHOR" >"$OBJ"
check 'commit: missing committer' commit "$OBJ" "missingCommitter: invalid format - expected 'committer' line$"
printf 'tree %s\n%s\nencoding ISO-8859-1\n%s\n\nm\n' "$E" "$AUTHOR" "$COMMITTER" >"$OBJ"
check 'commit: header between author and committer' commit "$OBJ" 'missingCommitter'
printf 'tree %s\nparent %s\n%s\n%s\nencoding ISO-8859-1\nmergetag object x\n\nm\n' "$E" "$C0" "$AUTHOR" \
	"$COMMITTER" >"$OBJ"
check 'commit: extra headers after committer' commit "$OBJ" ''
printf 'tree %s\nparent %s\nparent %s\n%s\n%s\n\nm\n' "$E" "$C0" "$C0" "$AUTHOR" "$COMMITTER" >"$OBJ"
check 'commit: two parents' commit "$OBJ" ''
printf 'tree %s\n%s\n%s\n\nm\n' "$(printf %s "$E" | tr a-f A-F)" "$AUTHOR" "$COMMITTER" >"$OBJ"
check 'commit: upper-case tree ID' commit "$OBJ" ''
printf '%s\n%s\n\nm\n' "$AUTHOR" "$COMMITTER" >"$OBJ"
check 'commit: missing tree line (parse fails)' commit "$OBJ" '^error: bogus commit object [0-9a-f]{40}$'
printf 'tree %s\n%s\n%s\n\nm\n' "zzzz${E:4}" "$AUTHOR" "$COMMITTER" >"$OBJ"
check 'commit: bad tree ID' commit "$OBJ" '^error: bad tree pointer in commit '
printf 'tree %s\nparent %s\n%s\n%s\n\nm\n' "$E" "${C0%?}g" "$AUTHOR" "$COMMITTER" >"$OBJ"
check 'commit: bad parent ID' commit "$OBJ" '^error: bad parents in commit '
printf 'tree %s\nparent %s\n%s\n%s\n\nm\n' "$E" "${C0%?}" "$AUTHOR" "$COMMITTER" >"$OBJ"
check 'commit: short parent ID' commit "$OBJ" 'could not be parsed'
printf 'tree %s\n' "$E" >"$OBJ"
check 'commit: tree line only' commit "$OBJ" 'could not be parsed'
printf 'tree %s\nparent d9288\n' "$E" >"$OBJ"
check 'commit: short last parent line (the parser skips it, the check does not)' commit "$OBJ" \
	"^error in commit .*: badParentSha1: invalid 'parent' line format - bad sha1$"
printf 'tree %s\n\n' "$E" >"$OBJ"
check 'commit: tree line and a blank line' commit "$OBJ" 'missingAuthor'
}

# ---------------------------------------------------------------------------------------------
# Tags
section_tags() { # leaks
need_base
TAGGER='tagger T A Gger <tagger@example.com> 1234567890 -0000'
# tag [TAG-NAME [TAGGER-LINE-AND-MORE]]
tag() {
	printf 'object %s\ntype commit\ntag %s\n%s\n\nThis is a tag.\n' "$C0" "${1-v1}" "${2-$TAGGER}"
}
tag >"$OBJ"
check 'tag: valid' tag "$OBJ" ''
printf 'object %s\ntype blob\ntag b\n%s\n\nm\n' "$B" "$TAGGER" >"$OBJ"
check 'tag: of a blob' tag "$OBJ" ''
printf 'object %s\ntype commit\ntag wrong name format\n\nThis is an invalid tag.\n' "$C0" >"$OBJ"
check 'tag: incorrect tag name and missing tagger (t1450)' tag "$OBJ" \
	"^warning in tag .*: badTagName: invalid 'tag' name: wrong name format$"
check 'tag: badTagName=error, missingTaggerEntry=ignore' tag "$OBJ" '^error in tag .*: badTagName' \
	fsck.badTagName=error fsck.missingTaggerEntry=ignore
for name in 'a..b' 'a.lock' 'x/' '/x' 'a//b' '.hidden' 'end.' 'a@{b' 'a*' 'a:b' 'a?b' 'a[b' 'a\b' 'a^b' 'a~b' \
	$'a\tb' $'a\x7fb' ''; do
	tag "$name" >"$OBJ"
	check "tag: bad tag name '$name'" tag "$OBJ" "badTagName: invalid 'tag' name: "
done
for name in 'v1.0' 'a/b' '@' 'a@b' 'x.lockx' $'caf\xc3\xa9' 'a{b}'; do
	tag "$name" >"$OBJ"
	check "tag: good tag name '$name'" tag "$OBJ" ''
done
tag v1 'tagger Bad Tagger Name' >"$OBJ"
check 'tag: bad tagger (t1450)' tag "$OBJ" '^error in tag .*: invalid author/committer'
tag v1 "$TAGGER +0100" >"$OBJ"
check 'tag: tagger with a bad time zone' tag "$OBJ" 'badTimezone'
sed 's/tagger ./tagger Q/' <(tag) | tr Q '\0' >"$OBJ"
check 'tag: NUL in header (t1450)' tag "$OBJ" 'nulInHeader: unterminated header: NUL at offset'
printf 'object %s\ntype commit\ntag v1\n%s' "$C0" "$TAGGER" >"$OBJ"
check 'tag: unterminated header' tag "$OBJ" 'unterminatedHeader'
tag v1 "$TAGGER
extra header" >"$OBJ"
check 'tag: extra header after tagger (ignored by default)' tag "$OBJ" ''
check 'tag: extra header, fsck.extraHeaderEntry=warn' tag "$OBJ" \
	"^warning in tag .*: extraHeaderEntry: invalid format - extra header\\(s\\) after 'tagger'$" fsck.extraHeaderEntry=warn
check 'tag: extra header, fsck.extraHeaderEntry=error' tag "$OBJ" '^error in tag .*: extraHeaderEntry' fsck.extraHeaderEntry=error
tag v1 'tagger Bad Tagger
extra header' >"$OBJ"
check 'tag: bad tagger then extra header (git counts no error)' tag "$OBJ" 'missingEmail'
# a signature header after the tagger: 2.39.5's extraHeaderEntry, skipped by 2.52+ (badGpgsig and
# badHeaderContinuation are for a header without its newline, which the header check stops first)
for h in gpgsig gpgsig-sha256; do
	tag v1 "$TAGGER
$h -----BEGIN PGP SIGNATURE-----
 line
 -----END PGP SIGNATURE-----" >"$OBJ"
	if [ "${SHA1KIT_GIT_VERSION:-}" = 2.55 ]; then
		check "tag: $h header after the tagger, extraHeaderEntry=warn (2.52+ skips it)" tag "$OBJ" '' \
			fsck.extraHeaderEntry=warn
	else
		check "tag: $h header after the tagger, extraHeaderEntry=warn" tag "$OBJ" 'extraHeaderEntry' \
			fsck.extraHeaderEntry=warn
	fi
done
tag v1 "$TAGGER
gpgsig x
 cont
extra" >"$OBJ"
check 'tag: gpgsig header, then another header' tag "$OBJ" 'extraHeaderEntry' fsck.extraHeaderEntry=warn
printf 'object %s\ntype commit\ntag v1\n\nold tag without tagger\n' "$C0" >"$OBJ"
check 'tag: missing tagger' tag "$OBJ" "^warning in tag .*: missingTaggerEntry: invalid format - expected 'tagger' line$"
check 'tag: missing tagger, fsck.missingTaggerEntry=error' tag "$OBJ" '^error in tag .*: missingTaggerEntry' \
	fsck.missingTaggerEntry=error
printf 'object %s\ntype commit\ntag v1\nfoo bar\n\nm\n' "$C0" >"$OBJ"
check 'tag: missing tagger, extra header, extraHeaderEntry=warn' tag "$OBJ" 'missingTaggerEntry.*|extraHeaderEntry' \
	fsck.extraHeaderEntry=warn
printf 'object %s\ntype commit\ntag v1\n' "$C0" >"$OBJ"
check 'tag: ends after the tag line' tag "$OBJ" 'missingTaggerEntry'
printf 'type commit\nobject %s\ntag v1\n%s\n\nm\n' "$C0" "$TAGGER" >"$OBJ"
check 'tag: missing object line (parse fails)' tag "$OBJ" '^error: [0-9a-f]{40}: object could not be parsed: '
printf 'object %s\ntype blah\ntag v1\n%s\n\nm\n' "$C0" "$TAGGER" >"$OBJ"
check 'tag: unknown type (parse fails)' tag "$OBJ" "^error: unknown tag type 'blah' in "
printf 'object %s\ntype tr\013e\ntag v1\n%s\n\nm\n' "$C0" "$TAGGER" >"$OBJ"
check 'tag: unknown type with a control character (git prints ?)' tag "$OBJ" "^error: unknown tag type 'tr\\?e' in "
printf 'object %s\ntype blob\0x\ntag v1\n%s\n\nm\n' "$B" "$TAGGER" >"$OBJ"
check 'tag: type blob NUL x (the parser stops at NUL, the checker does not)' tag "$OBJ" 'nulInHeader'
printf 'object %s\ntype commitcommitcommitcommit\ntag v1\n%s\n\nm\n' "$C0" "$TAGGER" >"$OBJ"
check 'tag: type of 20 characters (parse fails)' tag "$OBJ" 'could not be parsed'
printf 'object %s\ntype commit\n%s\n\nmmmmmmmmmmmmmmmmmmmmmm\n' "$C0" "$TAGGER" >"$OBJ"
check 'tag: missing tag line (parse fails)' tag "$OBJ" 'could not be parsed'
printf 'object %s\ntype commit\ntag v1' "$C0" >"$OBJ"
check 'tag: short object (parse fails)' tag "$OBJ" 'could not be parsed'
printf 'object %s\ntype commit\ntag v1\n%s\n\nm\n' "$(printf %s "$C0" | tr a-f A-F)" "$TAGGER" >"$OBJ"
check 'tag: upper-case object ID' tag "$OBJ" ''
}

# ---------------------------------------------------------------------------------------------
# Blobs: nothing to check on their own
section_blobs_config() {
need_base
printf 'anything \0 at all' >"$OBJ"
check 'blob: arbitrary bytes' blob "$OBJ" ''

# ---------------------------------------------------------------------------------------------
# Configuration: every message ID, set to "warn" (only the fatal ones refuse), and bad settings.
echo blob >"$T/blob"
cfg() {
	local label=$1
	shift
	(cd "$BASE" && refgit "$@" fsck --full --no-dangling) >/dev/null 2>"$T/cfg.gerr"
	local grc=$?
	grep_v_prefix - 'notice: ' "$T/cfg.gerr" "$T/cfg.gexp"
	"$DRV" "$@" blob "$T/blob" 2>"$T/cfg.derr"
	local drc=$?
	if ! same_file "$T/cfg.gexp" "$T/cfg.derr" || [ "$grc" -ne "$drc" ]; then
		bad "config $label: driver ($drc) $(<"$T/cfg.derr") / git ($grc) $(<"$T/cfg.gexp")"
	else
		ok
	fi
}
"$DRV" --list >"$T/list" || bad "--list"
for id in $(cut -d' ' -f1 "$T/list"); do
	cfg "fsck.$id=warn" -c "fsck.$id=warn"
done
cfg 'unknown id' -c fsck.bogus=warn
cfg 'value in upper case' -c fsck.zeroPaddedFilemode=WARN
cfg 'unknown value' -c fsck.badDate=fatal
cfg 'fatal to error' -c fsck.unterminatedHeader=error
cfg 'fatal to ignore' -c fsck.unterminatedHeader=ignore
if [ "${SHA1KIT_GIT_VERSION:-}" = 2.55 ]; then # git 2.43+: largePathname=TYPE:N
	cfg 'largePathname with a length' -c fsck.largePathname=warn:100
	cfg 'largePathname with a bad length' -c fsck.largePathname=warn:x
	cfg 'largePathname with a bad type and a length' -c fsck.largePathname=fatal:100
fi
# The IDs and the fatal ones, as git knows them
refgit help --config | sed -n 's/^fsck\.//p' | grep -v '^skipList$' | sort >"$T/git-ids"
cut -d' ' -f1 "$T/list" | sort >"$T/our-ids"
# (git 2.39.5: 57; 2.55.0: 76, with largePathname, badGpgsig, badHeaderContinuation and the ref
# check's 16)
want_ids=57
[ "${SHA1KIT_GIT_VERSION:-}" = 2.55 ] && want_ids=76
if same_file "$T/git-ids" "$T/our-ids" && [ "$(wc -l <"$T/our-ids")" -eq $want_ids ]; then
	ok
else
	bad "message IDs differ from git help --config: $(diff "$T/git-ids" "$T/our-ids" | tr '\n' ' ')"
fi
if [ "$(grep -c ' fatal$' "$T/list")" -eq 2 ] && grep -qx 'nulInHeader fatal' "$T/list" &&
	grep -qx 'unterminatedHeader fatal' "$T/list"; then
	ok
else
	bad "fatal IDs: $(grep fatal "$T/list" | tr '\n' ' ')"
fi
}

sk_run_sections
echo "fsck_object: $pass passed, $fail failed ($n object cases)"
[ "$fail" -eq 0 ]
