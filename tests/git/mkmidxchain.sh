#!/bin/bash
# tests/git/mkmidxchain.sh GIT [OUTDIR] - makes the incremental multi-pack-index fixture of
# tests/git/midxchain/ with a Git that writes them (2.47 or later; the fixture committed was made
# with 2.55.0), and records that Git's `git fsck` output on each case of midxchain/cases.sh.
#
# Run by hand, not by the tests (CI has Debian 12's git 2.39.5, which cannot write the chain):
#   bash tests/git/mkmidxchain.sh "$(scripts/git-current.sh)"          # writes tests/git/midxchain/
# OUTDIR (default tests/git/midxchain) receives:
#   chain.tar.gz            the repository `chain` (dates and names fixed): three commits of two
#                           files each time, then `git repack -d` and `git multi-pack-index write
#                           --incremental --bitmap`, three times: three packs, three layers, each
#                           with its reachability bitmap
#   CASE.ARGS.out/.err/.rc  git fsck's stdout, stderr and exit status in each case's copy (ARGS
#                           "default" is no option; MIDX_OPTION_CASES also each of MIDX_OPTIONS)
#   git-version             the Git that made them
# tests/git/test_midxchain.sh makes the same cases and compares `sha1kit fsck` with these files.
set -eu
G=$(command -v "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(realpath -m "${2:-$HERE/midxchain}")
T=$(mktemp -d /tmp/sha1kit-mkmidxchain.XXXXXX)
trap 'rm -rf "$T"' EXIT
unset GIT_DIR GIT_WORK_TREE GIT_COMMON_DIR GIT_OBJECT_DIRECTORY GIT_INDEX_FILE GIT_CONFIG_GLOBAL \
	GIT_CONFIG_SYSTEM GIT_CONFIG_COUNT GIT_CONFIG_PARAMETERS XDG_CONFIG_HOME
export HOME=$T/home GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC
export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL=committer@example.com
mkdir -p "$HOME" "$T/repos" "$OUT"
"$G" config --global init.defaultBranch main
"$G" config --global maintenance.auto false
"$G" config --global gc.auto 0
. "$HERE/midxchain/cases.sh"

R=$T/repos/chain
"$G" init -q "$R"
cd "$R"
rm -rf .git/hooks .git/description .git/info # size: nothing of them is read
n=0
for layer in 1 2 3; do
	for i in 1 2; do
		n=$((n + 1))
		export GIT_AUTHOR_DATE="$((1700000000 + n * 60)) +0000" GIT_COMMITTER_DATE="$((1700000000 + n * 60)) +0000"
		echo "$layer $i" >"f$i"
		"$G" add "f$i"
		"$G" commit -qm "$layer.$i"
	done
	"$G" repack -dq
	"$G" multi-pack-index write --incremental --bitmap
done
[ "$(wc -l <"$MIDX_D/multi-pack-index-chain")" = 3 ]
tar -C "$T/repos" --owner=0 --group=0 --numeric-owner --mtime=@1700000000 --sort=name -czf "$OUT/chain.tar.gz" chain
"$G" version >"$OUT/git-version"

# git fsck on each case, in a fresh copy of the repository
for c in $MIDX_CASES; do
	for args in default $MIDX_OPTIONS; do
		[ "$args" = default ] || case " $MIDX_OPTION_CASES " in *" $c "*) ;; *) continue ;; esac
		rm -rf "$T/case"
		cp -a "$R" "$T/case"
		(cd "$T/case" && midx_case "$c")
		a=$args
		[ "$a" = default ] && a=
		rc=0
		# shellcheck disable=SC2086 # a: no option, or one
		(cd "$T/case" && "$G" fsck $a >"$OUT/$c.$args.out" 2>"$OUT/$c.$args.err") || rc=$?
		echo "$rc" >"$OUT/$c.$args.rc"
	done
done
echo "recorded $(ls "$OUT"/*.rc | wc -l) runs in $OUT"
