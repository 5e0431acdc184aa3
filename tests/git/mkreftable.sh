#!/bin/bash
# tests/git/mkreftable.sh GIT [OUTDIR] - makes the reftable fixture repositories of
# tests/git/reftable/ with a Git that writes reftables (2.45 or later; the fixtures committed were
# made with 2.55.0), and records that Git's `git fsck` output on each next to them.
#
# Run by hand, not by the tests (CI has Debian 12's git 2.39.5, which cannot make or read reftables):
#   bash tests/git/mkreftable.sh "$(scripts/git-current.sh)"          # writes tests/git/reftable/
# OUTDIR (default tests/git/reftable) receives:
#   repos.tar.gz     the repositories, one directory per case (names and dates fixed; the table
#                    names have a random part, so a new run gives other bytes)
#   CASE.ARGS.out/.err/.rc  git fsck's stdout, stderr and exit status in the case's top directory,
#                    for each option set (ARGS "default" is no option; sound and missing also
#                    --no-reflogs and --unreachable)
#   worktrees.tar.gz a repository with a linked worktree whose own stack is broken (brokenwt: a
#                    line naming no table in its tables.list), and its worktree beside it; its
#                    records as above, and brokenwt.verify.* those of `git refs verify`
# tests/git/test_reftable.sh compares `sha1kit fsck` on a copy of each case with these files.
set -eu
G=$(command -v "$1")
OUT=$(realpath -m "${2:-$(dirname "$0")/reftable}")
T=$(mktemp -d /tmp/sha1kit-mkreftable.XXXXXX)
trap 'rm -rf "$T"' EXIT
unset GIT_DIR GIT_WORK_TREE GIT_COMMON_DIR GIT_OBJECT_DIRECTORY GIT_INDEX_FILE GIT_CONFIG_GLOBAL \
	GIT_CONFIG_SYSTEM GIT_CONFIG_COUNT GIT_CONFIG_PARAMETERS XDG_CONFIG_HOME
export HOME=$T/home GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC
export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL=committer@example.com
mkdir -p "$HOME" "$T/repos" "$OUT"
"$G" config --global init.defaultBranch main
"$G" config --global advice.detachedHead false
# one table per ref transaction: no auto-compaction (git 2.55 has no config setting for it, only
# the environment variable of its test suite, refs/reftable-backend.c), no maintenance
export GIT_TEST_REFTABLE_AUTOCOMPACTION=false
"$G" config --global maintenance.auto false
"$G" config --global gc.auto 0
n=0
tick() { # a fixed, increasing date for each commit and ref update
	n=$((n + 1))
	export GIT_AUTHOR_DATE="$((1700000000 + n * 60)) +0100" GIT_COMMITTER_DATE="$((1700000000 + n * 60)) +0100"
}
g() { tick; "$G" "$@"; }

# sound: commits on two branches, a lightweight and an annotated tag, a deleted branch, a symbolic
# ref, a commit left dangling by a reset (its reflog entries keep it reachable), a stack of tables.
R=$T/repos/sound
g init -q --ref-format=reftable "$R"
cd "$R"
rm -rf .git/hooks .git/description .git/info # size: nothing of them is read
for i in 1 2 3; do
	echo "$i" >"f$i"
	g add "f$i"
	g commit -qm "c$i"
done
g branch b1 HEAD~1
g branch gone HEAD~2
g tag -a -m "annotated" v1 HEAD~1
g tag light HEAD
g branch -D gone >/dev/null
g checkout -q -b side HEAD~2
echo s >s
g add s
g commit -qm side
g checkout -q main
echo x >x
g add x
g commit -qm "soon dangling"
g reset -q --hard HEAD~1
g symbolic-ref refs/heads/alias refs/heads/side
echo "unreferenced" | g hash-object -w --stdin >/dev/null
printf 'tree %s\nauthor A <a> 1 +0000\ncommitter A <a> 1 +0000\n\nlost\n' "$("$G" rev-parse "HEAD^{tree}")" |
	g hash-object -t commit -w --stdin >/dev/null
# a detached HEAD in a copy, compacted into one table in another
cp -a "$R" "$T/repos/detached"
(cd "$T/repos/detached" && g checkout -q --detach b1)
cp -a "$R" "$T/repos/compacted"
(cd "$T/repos/compacted" && g pack-refs --all)
[ "$(wc -l <"$T/repos/compacted/.git/reftable/tables.list")" = 1 ]
[ "$(wc -l <"$R/.git/reftable/tables.list")" -gt 10 ]

# missing: the tip of side removed from the object store (a ref and reflog entries to nothing)
cp -a "$R" "$T/repos/missing"
id=$("$G" -C "$R" rev-parse side)
rm "$T/repos/missing/.git/objects/${id:0:2}/${id:2}"

# The cases below are read only up to their refs or config: they borrow sound's objects
# (objects/info/alternates) to keep the fixtures small.
borrow() {
	rm -rf "$1/.git/objects" "$1/.git/index"
	mkdir -p "$1/.git/objects/info" "$1/.git/objects/pack"
	echo ../../../sound/.git/objects >"$1/.git/objects/info/alternates"
}

# corrupt tables, each a copy of sound with one table damaged
last=$(tail -n 1 "$R/.git/reftable/tables.list")
first=$(head -n 1 "$R/.git/reftable/tables.list")
corrupt() { # corrupt NAME TABLE COMMAND...
	local name=$1 table=$2
	shift 2
	cp -a "$R" "$T/repos/$name"
	borrow "$T/repos/$name"
	(cd "$T/repos/$name/.git/reftable" && "$@" "$table")
}
flip() { # flip OFFSET FILE: the byte at OFFSET (negative: from the end) xor 0x55
	local off=$1 size
	size=$(stat -c %s "$2")
	[ "$off" -ge 0 ] || off=$((size + off))
	printf '%b' "$(printf '\\0%03o' $(($(od -An -tu1 -j "$off" -N1 "$2") ^ 0x55)))" |
		dd of="$2" bs=1 seek="$off" conv=notrunc status=none
}
trunc() { truncate -s "$1" "$2"; }
corrupt crc "$last" flip -2
corrupt magic "$first" flip 1
corrupt truncated "$first" trunc 40
corrupt record "$first" flip 30
corrupt empty "$last" trunc 0
cp -a "$R" "$T/repos/nolist-table"
borrow "$T/repos/nolist-table"
echo "0x000000000099-0x000000000099-00000000.ref" >>"$T/repos/nolist-table/.git/reftable/tables.list"

# extensions.refStorage values git refuses (setup.c), and refstorage in a version 0 repository
ext() { # ext NAME CONFIG-LINES
	cp -a "$R" "$T/repos/$1"
	borrow "$T/repos/$1"
	printf '%s\n' "$2" >"$T/repos/$1/.git/config"
}
ext ext-foo $'[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = foo'
ext ext-nonbool $'[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage'
ext ext-upper $'[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = REFTABLE'
ext ext-v0 $'[core]\n\trepositoryformatversion = 0\n[extensions]\n\trefStorage = reftable'

# git fsck on each case, in the repository's top directory
rm -f "$OUT"/*.out "$OUT"/*.err "$OUT"/*.rc
for r in "$T"/repos/*; do
	c=$(basename "$r")
	opts=default
	case $c in sound | missing) opts="default --no-reflogs --unreachable" ;; esac
	for args in $opts; do
		a=$args
		[ "$a" = default ] && a=
		rc=0
		# shellcheck disable=SC2086 # a: no option, or one
		(cd "$r" && "$G" fsck $a >"$OUT/$c.$args.out" 2>"$OUT/$c.$args.err") || rc=$?
		echo "$rc" >"$OUT/$c.$args.rc"
	done
done
tar -C "$T/repos" --owner=0 --group=0 --numeric-owner --mtime=@1700000000 --sort=name -czf \
	"$OUT/repos.tar.gz" .

# brokenwt: a linked worktree on a detached HEAD of its own commit, a commit of main that only its
# reflog keeps; then the worktree's tables.list names a table that is not there. Git 2.55 reads
# neither that worktree's HEAD nor, from then on, any reflog entry (refs/reftable-backend.c keeps
# the stack's error in the store): both commits dangle, exit 8 (its refs verify: "reftable stack
# for worktree 'wt' is broken"). One linked worktree only, so that the readdir order of
# .git/worktrees (which git and sha1kit follow) cannot change the outcome.
W=$T/wtrepos/brokenwt
g init -q --ref-format=reftable "$W"
cd "$W"
rm -rf .git/hooks .git/description .git/info
for i in 1 2 3; do
	echo "$i" >f
	g add f
	g commit -qm "c$i"
done
g reset -q --hard HEAD~1
g worktree add -q --detach ../brokenwt-wt HEAD~1
(cd ../brokenwt-wt && echo w >g && g add g && g commit -qm in-wt)
echo junk >>.git/worktrees/brokenwt-wt/reftable/tables.list
for args in default --unreachable; do
	a=$args
	[ "$a" = default ] && a=
	rc=0
	# shellcheck disable=SC2086 # a: no option, or one
	"$G" fsck $a >"$OUT/brokenwt.$args.out" 2>"$OUT/brokenwt.$args.err" || rc=$?
	echo "$rc" >"$OUT/brokenwt.$args.rc"
done
rc=0
"$G" refs verify >"$OUT/brokenwt.verify.out" 2>"$OUT/brokenwt.verify.err" || rc=$?
echo "$rc" >"$OUT/brokenwt.verify.rc"
tar -C "$T/wtrepos" --owner=0 --group=0 --numeric-owner --mtime=@1700000000 --sort=name -czf \
	"$OUT/worktrees.tar.gz" .
"$G" version >"$OUT/git-version"
