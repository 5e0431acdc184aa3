#!/usr/bin/env bash
# test_midxchain.sh - sha1kit on repositories with an incremental multi-pack-index (git 2.47+:
# `git multi-pack-index write --incremental`, objects/pack/multi-pack-index.d; src/git/trailer.c
# midx_chain_load, src/git/midx.c): `sha1kit fsck` on the cases of tests/git/midxchain/cases.sh
# against the output git 2.55.0 gave on them (recorded there by tests/git/mkmidxchain.sh: CI's git
# 2.39.5 cannot write the chain), stderr and exit status byte for byte, stdout as the same lines;
# live against the reference git when SHA1KIT_REF_GIT is a Git that reads the chain (2.47 or later:
# make check-git-current); and as git 2.39.5, which does not know the chain, against the installed
# git when it is older than 2.47 (CI's).
# Usage: test_midxchain.sh [--section=NAME] PATH/TO/sha1kit
# Each section (a function section_NAME below) runs alone with --section=NAME: ctest runs each as a
# test of its own, cli_midxchain_NAME (tests/git/graph.cmake); without it, all of them in order.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../testlib.sh"
sk_section_arg "$@" && shift
SK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
FIX=$(cd "$(dirname "${BASH_SOURCE[0]}")/midxchain" && pwd)
export LC_ALL=C GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_INDEX_FILE GIT_COMMON_DIR
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-midxchain.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export HOME="$T/no-home"
sk_ref_git_line
PASS=0
FAIL=0
pass() { PASS=$((PASS + 1)); }
fail() {
	FAIL=$((FAIL + 1))
	echo "FAIL: $*"
}
. "$FIX/cases.sh"
tar -C "$T" -xzf "$FIX/chain.tar.gz"

# git_before_2_47 GIT: true when GIT's version is older than 2.47 (it does not read the chain)
git_before_2_47() {
	local v
	v=$("$@" version 2>/dev/null | sed -n 's/^git version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
	[ -n "$v" ] && [ "${v% *}" = 2 ] && [ "${v#* }" -lt 47 ]
}

# fresh CASE: a copy of the repository with the case's change, in $T/CASE
fresh() {
	rm -rf "${T:?}/$1"
	cp -a "$T/chain" "$T/$1" && (cd "$T/$1" && midx_case "$1") || fail "could not make the case $1"
}

# 1. Every case against git 2.55.0's recorded output (sha1kit following 2.55, whatever the
# reference git), and live against the reference git when it reads the chain.
section_recorded() { # nowine
	local c args live=
	git_before_2_47 refgit || live=1
	for c in $MIDX_CASES; do
		fresh "$c"
		for args in default $MIDX_OPTIONS; do
			[ "$args" = default ] || case " $MIDX_OPTION_CASES " in *" $c "*) ;; *) continue ;; esac
			SHA1KIT_GIT_VERSION=2.55 SK_LIVE=$live sk_check_recorded "$FIX" "$T/$c" "$c" "$args"
		done
	done
}

# 2. As git 2.39.5 (--git-version=2.39): the chain is not read, so the packs are packs of their own
# and none of the recorded findings of the chain come; against the installed git when it is older
# than 2.47 (CI's 2.39.5), else against what that git would say of the same repository without the
# chain (its directory removed: the same packs, no multi-pack-index).
section_git239() { # nowine
	local c rc grc
	for c in $MIDX_CASES; do
		fresh "$c"
		(cd "$T/$c" && "$SK" fsck --git-version=2.39 >"$T/s.out" 2>"$T/s.err")
		rc=$?
		if git_before_2_47 git; then
			(cd "$T/$c" && git fsck --full >"$T/g.out" 2>"$T/g.err")
		else
			rm -rf "${T:?}/$c/$MIDX_D"
			(cd "$T/$c" && "$SK" fsck --git-version=2.39 >"$T/g.out" 2>"$T/g.err")
		fi
		grc=$?
		if [ "$rc" = "$grc" ] && same_lines "$T/g.out" "$T/s.out" && same_file "$T/g.err" "$T/s.err"; then
			pass
		else
			fail "$c: sha1kit fsck --git-version=2.39 exited $rc, git 2.39 (or the repository without the chain) $grc"
			diff -u "$T/g.err" "$T/s.err" | sed 's/^/    stderr: /' | head -10
			diff -u "$T/g.out" "$T/s.out" | sed 's/^/    stdout: /' | head -10
		fi
	done
}

sk_run_sections
echo "test_midxchain: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
