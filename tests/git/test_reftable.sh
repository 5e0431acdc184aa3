#!/usr/bin/env bash
# test_reftable.sh - sha1kit on reftable repositories (`git init --ref-format=reftable`,
# src/git/reftable.c): `sha1kit fsck` on the fixture repositories of tests/git/reftable/ against
# the output git 2.55.0 gave on them (recorded there by tests/git/mkreftable.sh: CI's git 2.39.5
# cannot read reftables), stderr and exit status byte for byte, stdout as the same lines; and live against the reference git when SHA1KIT_REF_GIT is a
# Git that reads reftables (2.45 or later: make check-git-current). Corrupt tables (git 2.55.0
# crashes on them: its recorded output is "refs died of signal 11" or a segmentation fault) give
# sha1kit's one fatal line and exit 128, never a crash, also under byte flips of every table.
# Usage: test_reftable.sh [--section=NAME] PATH/TO/sha1kit
# Each section (a function section_NAME below) runs alone with --section=NAME: ctest runs each as a
# test of its own, cli_reftable_NAME (tests/git/graph.cmake); without it, all of them in order.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../testlib.sh"
sk_section_arg "$@" && shift
SK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
FIX=$(cd "$(dirname "${BASH_SOURCE[0]}")/reftable" && pwd)
export LC_ALL=C GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_INDEX_FILE GIT_COMMON_DIR
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-reftable.XXXXXX") || exit 1
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

# Reftables came with git 2.45: sha1kit reads them as 2.55 (the recorded outputs' git) does, whatever
# the reference git of the run; as 2.39.5 (--git-version=2.39) it refuses them, below.
export SHA1KIT_GIT_VERSION=2.55
REFUSED_239=$'fatal: unknown repository extension found:\n\trefstorage'

# The repositories, a fresh copy for each section.
tar -C "$T" -xzf "$FIX/repos.tar.gz"
R=$T

# Does the reference git read reftables? (git 2.45 and later)
live=
v=$(refgit version 2>/dev/null | sed -n 's/^git version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
if [ -n "$v" ] && { [ "${v% *}" -gt 2 ] || [ "${v#* }" -ge 45 ]; }; then
	live=1
fi

# check CASE ARGS: sha1kit fsck in the case's top directory against git 2.55.0's recorded output,
# and against the reference git when it reads reftables (testlib.sh sk_check_recorded).
check() {
	SK_LIVE=$live sk_check_recorded "$FIX" "$R/$1" "$1" "$2"
}

# check_live DIR A: the reference git's fsck A in $R/DIR against sha1kit's, run just before
# (testlib.sh sk_check_live).
check_live() {
	sk_check_live "$R/$1" "$1" "$2"
}

# fatal CASE LINE: sha1kit fsck prints nothing on stdout, LINE on stderr, and exits 128 (with
# 2.55's ref check first, which dies on the table too, the line comes once); as git 2.39.5 it
# refuses the repository's format first (REFUSED_239).
fatal() {
	local v rc
	for v in 2.39 2.55; do
		(cd "$R/$1" && "$SK" fsck --git-version=$v >"$T/s.out" 2>"$T/s.err")
		rc=$?
		if [ $v = 2.39 ]; then
			printf '%s\n' "$REFUSED_239" >"$T/want.err"
		else
			printf '%s\n' "$2" >"$T/want.err"
		fi
		if [ $rc = 128 ] && [ ! -s "$T/s.out" ] && same_file "$T/want.err" "$T/s.err"; then
			pass
		else
			fail "$1: sha1kit fsck --git-version=$v exited $rc"
			diff -u "$T/want.err" "$T/s.err" | sed 's/^/    stderr: /' | head -5
		fi
	done
}

# 1. Sound repositories: a stack of 20 tables, one detached HEAD, one compacted into a single table,
# a ref and reflog entries naming an object that is gone, a table with a changed byte git reads
# alike; the refStorage values git refuses.
section_fixtures() { # leaks nowine
for c in sound missing; do
	for a in default --no-reflogs --unreachable; do
		check $c $a
	done
done
for c in detached compacted record ext-foo ext-nonbool ext-upper ext-v0; do
	check $c default
done
# As git 2.39.5: the repository's format refused (an extension it does not know), exit 128; and
# against the installed git when it is older than 2.45 (CI's 2.39.5). A version 0 repository
# (ext-v0) is not refused by either: its unknown extensions are not read.
local gv rc
gv=$(git version 2>/dev/null | sed -n 's/^git version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
for c in sound ext-v0; do
	(cd "$R/$c" && "$SK" fsck --git-version=2.39 >"$T/s.out" 2>"$T/s.err")
	echo $? >"$T/s.rc"
	if [ $c = sound ]; then
		printf '%s\n' "$REFUSED_239" >"$T/want.err"
		[ "$(<"$T/s.rc")" = 128 ] && [ ! -s "$T/s.out" ] && same_file "$T/want.err" "$T/s.err" && pass ||
			fail "$c: sha1kit fsck --git-version=2.39 exited $(<"$T/s.rc"), not git 2.39.5's refusal: $(head -c 200 "$T/s.err")"
	fi
	if [ -n "$gv" ] && [ "${gv% *}" = 2 ] && [ "${gv#* }" -lt 45 ]; then
		(cd "$R/$c" && git fsck --full >"$T/g.out" 2>"$T/g.err")
		rc=$?
		[ "$(<"$T/s.rc")" = $rc ] && same_file "$T/g.err" "$T/s.err" && same_lines "$T/g.out" "$T/s.out" && pass ||
			fail "$c: sha1kit fsck --git-version=2.39 exited $(<"$T/s.rc"), the installed $(git version) $rc"
	fi
done
}

# 2. Corrupt tables: one line naming the table, exit 128 (git 2.55.0 crashes: see the README).
section_corrupt() { # leaks nowine
local first last
first=$(head -n 1 "$R/sound/.git/reftable/tables.list")
last=$(tail -n 1 "$R/sound/.git/reftable/tables.list")
fatal crc "fatal: .git/reftable/$last: corrupt reftable file (footer CRC-32 mismatch)"
fatal empty "fatal: .git/reftable/$last: corrupt reftable file (no REFT header)"
fatal magic "fatal: .git/reftable/$first: corrupt reftable file (no REFT header)"
fatal truncated "fatal: .git/reftable/$first: corrupt reftable file (too short for its header and footer)"
fatal nolist-table \
	"fatal: .git/reftable/0x000000000099-0x000000000099-00000000.ref: file does not exist (No such file or directory)"
# tables.list without its last newline: git's parse_names fails (2.55.0 then finds no refs, and its
# refs verify crashes); sha1kit says the stack is corrupt
cp -a "$R/sound" "$R/nonewline"
truncate -s -1 "$R/nonewline/.git/reftable/tables.list"
fatal nonewline "fatal: .git/reftable/tables.list: corrupt (no newline at its end)"
# a ref store elsewhere (git 2.55's "reftable://PATH"): refused
for v in reftable://x files://x; do
	printf '[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = %s\n' "$v" >"$R/ext-foo/.git/config"
	fatal ext-foo "fatal: unsupported repository: extensions.refStorage names a ref store in another place (x) in .git/config (sha1kit reads refs from the repository itself only)"
done
}

# 2a. A linked worktree whose own stack does not open (brokenwt in worktrees.tar.gz: its
# tables.list names a table that is not there; then, in the same copy, the list restored and its
# table emptied): git 2.55's refs verify says "reftable stack for worktree 'ID' is broken" and fsck
# reads neither that worktree's HEAD nor any reflog entry (refs/reftable-backend.c keeps the stack's
# error in the store), exit 8; both damages give the output recorded for the first.
section_worktree() { # leaks nowine
local a list damage
tar -C "$T" -xzf "$FIX/worktrees.tar.gz"
list=$T/brokenwt/.git/worktrees/brokenwt-wt/reftable/tables.list
for damage in junk empty; do
	if [ $damage = empty ]; then
		sed -i '/^junk$/d' "$list"
		: >"$(dirname "$list")/$(head -n 1 "$list")"
	fi
	for a in default --unreachable; do
		SK_LIVE=$live sk_check_recorded "$FIX" "$T/brokenwt" brokenwt $a
	done
	(cd "$T/brokenwt" && "$SK" refs verify >"$T/s.out" 2>"$T/s.err")
	echo $? >"$T/s.rc"
	if same_file "$FIX/brokenwt.verify.out" "$T/s.out" && same_file "$FIX/brokenwt.verify.err" "$T/s.err" &&
		same_file "$FIX/brokenwt.verify.rc" "$T/s.rc"; then
		pass
	else
		fail "brokenwt ($damage) refs verify: git 2.55.0 exited $(<"$FIX/brokenwt.verify.rc"), sha1kit $(<"$T/s.rc")"
		diff -u "$FIX/brokenwt.verify.err" "$T/s.err" | sed 's/^/    stderr: /' | head -5
	fi
done
# run in the broken worktree (its paths made this copy's): git's store fails from its set-up, no
# ref at all is read ("notice: No default references"); live only (a reference git that reads
# reftables), as the recorded runs were made in the main worktree
[ -n "$live" ] || return 0
printf 'gitdir: %s\n' "$T/brokenwt/.git/worktrees/brokenwt-wt" >"$T/brokenwt-wt/.git"
printf '%s\n' "$T/brokenwt-wt/.git" >"$T/brokenwt/.git/worktrees/brokenwt-wt/gitdir"
for a in "" --unreachable; do
	# shellcheck disable=SC2086 # a: no option, or one
	(cd "$T/brokenwt-wt" && "$SK" fsck $a >"$T/s.out" 2>"$T/s.err")
	echo $? >"$T/s.rc"
	sk_check_live "$T/brokenwt-wt" "brokenwt-wt (run there)" "$a"
done
}

# 2b. A log block whose zlib data does not inflate (4 bytes of the last table's first log block
# overwritten): git 2.55.0 reads log blocks only when it walks reflogs, and fsck's walk stops on the
# error without a word, so fsck goes on as with --no-reflogs (its recorded output), exit 0 for the
# sound repository; `git refs verify` says nothing of it either.
section_logblock() { # leaks nowine
local c f len lp
for c in sound missing; do
	cp -a "$R/$c" "$R/$c-badlog"
	f=$R/$c-badlog/.git/reftable/$(tail -n 1 "$R/$c/.git/reftable/tables.list")
	len=$(wc -c <"$f")
	# log_position: the footer's 8 bytes 20 before the end (versions 1 and 2)
	lp=$((16#$(od -An -tx1 -j $((len - 20)) -N 8 "$f" | tr -d ' \n')))
	[ "$(od -An -c -j "$lp" -N 1 "$f" | tr -d ' ')" = g ] || fail "$c: no log block at $lp"
	printf '\377\377\377\377' | dd of="$f" bs=1 seek=$((lp + 8)) conv=notrunc 2>/dev/null
	(cd "$R/$c-badlog" && "$SK" fsck >"$T/s.out" 2>"$T/s.err")
	echo $? >"$T/s.rc"
	if same_lines "$FIX/$c.--no-reflogs.out" "$T/s.out" && same_file "$FIX/$c.--no-reflogs.err" "$T/s.err" &&
		same_file "$FIX/$c.--no-reflogs.rc" "$T/s.rc"; then
		pass
	else
		fail "$c-badlog fsck: git 2.55.0 (as --no-reflogs) exited $(<"$FIX/$c.--no-reflogs.rc"), sha1kit $(<"$T/s.rc")"
		diff -u "$FIX/$c.--no-reflogs.err" "$T/s.err" | sed 's/^/    stderr: /' | head -20
		diff -u "$FIX/$c.--no-reflogs.out" "$T/s.out" | sed 's/^/    stdout: /' | head -20
	fi
	(cd "$R/$c-badlog" && "$SK" refs verify >"$T/s.out" 2>"$T/s.err")
	echo $? >"$T/s.rc"
	if [ -n "$live" ]; then
		(cd "$R/$c-badlog" && refgit refs verify >"$T/g.out" 2>"$T/g.err")
		echo $? >"$T/g.rc"
	else
		: >"$T/g.out"
		: >"$T/g.err"
		echo 0 >"$T/g.rc"
	fi
	if same_file "$T/g.out" "$T/s.out" && same_file "$T/g.err" "$T/s.err" && same_file "$T/g.rc" "$T/s.rc"; then
		pass
	else
		fail "$c-badlog refs verify: git exited $(<"$T/g.rc"), sha1kit $(<"$T/s.rc")"
		diff -u "$T/g.err" "$T/s.err" | sed 's/^/    stderr: /' | head -20
	fi
	# live: fsck and fsck --unreachable against the reference git
	[ -n "$live" ] || continue
	for a in "" --unreachable; do
		# shellcheck disable=SC2086 # a: no option, or one
		(cd "$R/$c-badlog" && "$SK" fsck $a >"$T/s.out" 2>"$T/s.err")
		echo $? >"$T/s.rc"
		check_live "$c-badlog" "$a"
	done
done
}

# 2c. A ref block git reads otherwise than a strict reader: a record that does not decode (git reads
# the records before it, its seeks fail where they reach it, its refs verify says "could not read
# record for worktree '(null)'") and keys out of order (git's seeks stop at the first key not below
# the one sought). One byte of a table changed (TABLE: its line in tables.list; OFFSET; XOR), fsck
# and refs verify against git 2.55.0's output recorded in tests/git/reftable/records/ (cases where
# git is memory-clean under valgrind: tests/git/reftable-flips-vs-git.sh), live with a reference
# git of 2.45+. With SK_RECORD=1 and such a git, the records are written again.
section_records() { # leaks nowine
local c repo ti off x f b rec=$FIX/records
for c in compacted:1:35:0x55 compacted:1:171:0x55 compacted:1:53:0x80 compacted:1:29:0x01 compacted:1:150:0x80 \
	compacted:1:198:0x55 compacted:1:62:0x80 sound:8:29:0x01 sound:10:29:0x01 sound:9:50:0x01 sound:14:73:0x01; do
	IFS=: read -r repo ti off x <<<"$c"
	local name=$repo-$ti-$off-$x d=$T/rec-$repo-$ti-$off-$x
	rm -rf "$d" && cp -a "$R/$repo" "$d"
	f=$d/.git/reftable/$(sed -n "${ti}p" "$d/.git/reftable/tables.list")
	b=$(od -An -tu1 -j "$off" -N1 "$f" | tr -d ' ')
	# shellcheck disable=SC2059 # the escape is the format
	printf "\\$(printf %03o $((b ^ x)))" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
	if [ "${SK_RECORD:-}" = 1 ] && [ -n "$live" ]; then
		mkdir -p "$rec"
		refgit version >"$rec/git-version"
		(cd "$d" && refgit fsck >"$rec/$name.default.out" 2>"$rec/$name.default.err"
			echo $? >"$rec/$name.default.rc")
		(cd "$d" && refgit refs verify >/dev/null 2>"$rec/$name.verify.err"; echo $? >"$rec/$name.verify.rc")
	fi
	SK_LIVE=$live sk_check_recorded "$rec" "$d" "$name" default
	(cd "$d" && "$SK" refs verify >/dev/null 2>"$T/s.err")
	echo $? >"$T/s.rc"
	if same_file "$rec/$name.verify.err" "$T/s.err" && same_file "$rec/$name.verify.rc" "$T/s.rc"; then
		pass
	else
		fail "$name refs verify: git 2.55.0 exited $(<"$rec/$name.verify.rc"), sha1kit $(<"$T/s.rc")"
		diff -u "$rec/$name.verify.err" "$T/s.err" | sed 's/^/    stderr: /' | head -5
	fi
done
}

# 3. Every other byte of the first table (with HEAD) and of the last one xor 0x55, and
# the lengths they can be cut to in steps of 5: sha1kit fsck exits 0, or 128 with one "fatal: " line
# about the table or one of git's lines about what it found, never a crash (a signal, 134 or more,
# or a sanitizer's report).
# The tables are written with bash's printf (no process per case but sha1kit's).
# sanitizer FILE: true when FILE holds a report of AddressSanitizer or UBSan (the sanitizer build;
# they exit 1, which a check of the exit status alone would take for git's findings).
sanitizer() { grep_q -qF 'Sanitizer' "$1" || grep_q -qF 'runtime error:' "$1"; }

section_flips() { # long leaks nowine
local r=$R/flip t rc n=0 bad=0 step
cp -a "$R/sound" "$r"
for t in $(head -n 1 "$r/.git/reftable/tables.list") $(tail -n 1 "$r/.git/reftable/tables.list"); do
	local f=$r/.git/reftable/$t size off x
	local -a byte esc
	IFS=' ' read -r -a byte <<<"$(od -An -v -tu1 "$f" | tr '\n' ' ')"
	local IFS= # "${esc[*]}": the escapes without a separator
	size=${#byte[@]}
	for ((off = 0; off < size; off++)); do
		printf -v "esc[off]" '\\0%03o' "${byte[off]}"
	done
	step=2
	for ((off = 0; off < size; off += step)); do
		printf -v x '\\0%03o' $((byte[off] ^ 0x55))
		printf '%b' "${esc[*]:0:off}$x${esc[*]:off+1}" >"$f"
		(cd "$r" && "$SK" fsck >/dev/null 2>"$T/s.err")
		rc=$?
		n=$((n + 1))
		if [ $rc -gt 128 ] || { [ $rc = 128 ] && ! grep_q -qF 'fatal: ' "$T/s.err"; } || sanitizer "$T/s.err"; then
			bad=$((bad + 1))
			[ $bad -le 5 ] && echo "    flip of byte $off of $t: exit $rc: $(head -c 300 "$T/s.err")"
		fi
	done
	for ((off = 0; off < size; off += 5)); do
		printf '%b' "${esc[*]:0:off}" >"$f"
		(cd "$r" && "$SK" fsck >/dev/null 2>"$T/s.err")
		rc=$?
		n=$((n + 1))
		if [ $rc != 128 ] || ! grep_q -qF "fatal: .git/reftable/$t: corrupt reftable file" "$T/s.err" ||
			sanitizer "$T/s.err"; then
			bad=$((bad + 1))
			[ $bad -le 5 ] && echo "    $t cut to $off bytes: exit $rc: $(head -c 300 "$T/s.err")"
		fi
	done
	cp "$R/sound/.git/reftable/$t" "$f"
done
if [ $bad = 0 ] && [ $n -gt 200 ]; then pass; else fail "flips: $bad of $n runs crashed or lost their line"; fi
}

# 4. The commands that only find the repository (and read its config): hash-object, index-pack and
# verify-pack in it give what the reference git gives outside any repository.
section_discovery() { # nowine
local id gid
id=$(cd "$R/sound" && echo "hashed in a reftable repository" | "$SK" hash-object --stdin 2>&1)
gid=$(cd "$T" && echo "hashed in a reftable repository" | GIT_CEILING_DIRECTORIES=$T refgit hash-object --stdin)
if [ -n "$id" ] && [ "$id" = "$gid" ]; then
	pass
else
	fail "hash-object in a reftable repository: $id, git $gid"
fi
mkdir -p "$T/packs"
# the objects of the files repository made by the installed git: a pack of them
git init -q "$T/files"
(cd "$T/files" && echo one >a && git add a && git -c user.name=A -c user.email=a@b commit -qm one &&
	git rev-list --objects --all | git pack-objects -q "$T/packs/p" >/dev/null)
local pack
pack=$(ls "$T"/packs/p-*.pack)
cp "$pack" "$T/copy.pack"
(cd "$R/sound" && "$SK" index-pack -o "$T/copy.idx" "$T/copy.pack" >"$T/s.out" 2>"$T/s.err")
local rc=$?
if [ $rc = 0 ] && same_file "$T/copy.idx" "${pack%.pack}.idx"; then
	pass
else
	fail "index-pack in a reftable repository: exit $rc, $(head -c 200 "$T/s.err")"
fi
(cd "$R/sound" && "$SK" verify-pack "${pack%.pack}.idx" >"$T/s.out" 2>&1)
rc=$?
if [ $rc = 0 ]; then pass; else fail "verify-pack in a reftable repository: exit $rc: $(head -c 200 "$T/s.out")"; fi
}

sk_run_sections
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
