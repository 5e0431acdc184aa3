#!/usr/bin/env bash
# test_pack.sh - `sha1kit index-pack` and `verify-pack` against the installed git (2.39).
#
# Usage: test_pack.sh SHA1KIT [PYTHON]
#
# Builds repositories with git in a temporary directory (many revisions of the same files, so that
# deltas and long chains occur; an annotated tag; a subdirectory), makes packs of every kind
# (`git repack -adf --window=50` with OFS_DELTA; `git pack-objects` without --delta-base-offset
# for REF_DELTA; a thin pack, completed by `git index-pack --fix-thin` so that REF_DELTA bases come
# after their deltas), and checks:
#   - our idx is byte-identical to git index-pack's, with 1 and 4 threads, for index versions 2
#     (default), 2,0 (every offset in the 64-bit table), 2,OFFSET and 1; --verify accepts it;
#   - `sha1kit verify-pack -v` and `-s` print exactly what `git verify-pack -v` / `-s` print;
#   - hand-made valid packs (tests/pack/mkpacks.py) are indexed as git indexes them;
#   - broken packs (truncations, byte flips, one defect each) give git's lines and exit status 128
#     where git's index-pack dies on them (its first pass, a delta that does not apply, unresolved
#     deltas), else an error exit (1..127, never a signal) with the expected message, and never
#     leave an idx or a temporary file behind;
#   - byte flips with a recomputed trailer: no crash, and when both we and git accept the pack,
#     the idx files are identical (and the .rev files, sha1kit's default against git --rev-index);
#   - the reverse index (.rev, sections rev and rev_packs): written by default as git 2.41+,
#     --rev-index / --no-rev-index / pack.writeReverseIndex as git's, byte for byte, checked by
#     --verify, written by --stdin; nothing left on errors;
#   - every kernel of this CPU, chosen with SHA1KIT_CPU masks (cli/cpu_masks.sh): `sha1kit --version`
#     reports the kernels the mask leaves, and index-pack (1 and 3 threads) and verify-pack -v give
#     git's idx and output for every valid pack.
#   - a pack (or idx) that another process truncates while sha1kit reads it: never a SIGBUS; either
#     the right idx (it was read before) or exactly one line "...: NAME: the file shrank while it
#     was read", exit 1, no idx left; invalid --threads values name the range; index-pack names
#     the file that is not a pack.
#   - index-pack --stdin --fix-thin completes a thin pack as git does: the pack, idx, stdout, stderr
#     and exit status of git's (section fix_thin).
# SK_WINDOWS=1 (the Wine build, tests/win/tests.cmake): FIFOs, symbolic links and /proc files are
# not tried as packs or idx files (Windows has none; under Wine they would be the Linux host's), and
# that is said on the output.
#
# Usage with --section=NAME first: that section alone (ctest runs each as a test of its own,
# cli_pack_NAME: tests/pack/tests.cmake); without it, every section (a function section_NAME) in
# order. The section setup makes the repositories and packs the others read (only read) in
# $SK_PACK_DATA (ctest: a directory of the build tree, the fixture cli_pack_setup), or in the
# temporary directory without it.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../testlib.sh"
sk_section_arg "$@" && shift

SK=${1:?usage: test_pack.sh SHA1KIT [PYTHON]}
PY=${2:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
SK=$(cd "$(dirname "$SK")" && pwd)/$(basename "$SK")
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-pack.XXXXXX")
trap 'rm -rf "$T"' EXIT
# shellcheck source=../cli/cpu_masks.sh
. "$HERE/../cli/cpu_masks.sh"
export GIT_CONFIG_NOSYSTEM=1 HOME=$T GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000'
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
sk_ref_git_line

D=${SK_PACK_DATA:-$T/data}
P=$D/packs
O=$T/out
# need_data: the packs of the section setup are there
need_data() {
	[ -e "$D/done" ] && return
	echo "FAIL: no packs in $D: the section setup makes them"
	exit 1
}
# need_git_outputs: for each pack git indexes, git's idx and checksum line ($O/NAME.git.idx, .out)
# and the pack and idx as verify-pack reads them with git's -v output ($O/vp-NAME.*), as the
# section valid makes them (the sections masks and misc compare with them)
need_git_outputs() {
	local pack name
	mkdir -p "$O"
	for pack in "$P"/*.pack; do
		name=$(basename "$pack" .pack)
		[ -e "$O/$name.git.idx" ] && continue
		refgit index-pack -o "$O/$name.git.idx" "$pack" >"$O/$name.git.out" 2>"$O/$name.git.err" || continue
		cp "$pack" "$O/vp-$name.pack"
		cp "$O/$name.git.idx" "$O/vp-$name.idx"
		(cd "$O" && refgit verify-pack -v "vp-$name.pack" >"vp-$name.git.v" 2>/dev/null)
	done
}

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}

# ---------------------------------------------------------------------------------------------
# Repositories and packs
# ---------------------------------------------------------------------------------------------
section_setup() { # fixture
rm -rf "$D"
mkdir -p "$D"
R=$D/repo
git init -q "$R"
(
	cd "$R" || exit 1
	mkdir -p src/sub doc
	for i in $(seq 1 40); do
		awk -v i="$i" 'BEGIN { for (k = 1; k <= 1500; k++) { if (k % 53 == i % 53 || k % 211 == i) print "changed", i, k; else print "line", k, "of a file that changes a little in every revision" } }' >src/main.c
		seq 1 $((i * 150)) >src/sub/numbers.txt
		awk -v i="$i" 'BEGIN { srand(i); for (k = 1; k <= 200; k++) printf "%d %d\n", rand() * 1000000, k }' >"doc/rand$((i % 4)).txt"
		printf 'entry %d\n' "$i" >>doc/log.txt
		[ $((i % 7)) = 0 ] && printf 'tiny %d\n' "$i" >"src/t$i.txt"
		git add -A
		git commit -qm "revision $i"
		[ $((i % 13)) = 0 ] && git tag -a "v$i" -m "release $i"
	done
	# One object larger than 1 MiB, stored whole (random data does not delta).
	head -c 1500000 /dev/urandom >big.bin
	git add big.bin
	git commit -qm big
	git repack -adf --window=50 --depth=50 -q
) || {
	echo "FAIL: could not build the test repository"
	exit 1
}

mkdir -p "$P"
cp "$R"/.git/objects/pack/pack-*.pack "$P/ofs.pack"
cp "$R"/.git/objects/pack/pack-*.idx "$P/ofs.idx"
(cd "$R" && git rev-list --objects --all | git pack-objects -q --window=50 --depth=50 "$P/refp" >/dev/null)
mv "$P"/refp-*.pack "$P/ref.pack"
mv "$P"/refp-*.idx "$P/ref.idx"
# Without the large blob, for the corpus of broken packs (flips then hit deltas and headers).
(cd "$R" && git rev-list --objects HEAD~1 | git pack-objects -q --delta-base-offset --window=50 "$P/smallp" >/dev/null)
mv "$P"/smallp-*.pack "$P/small.pack"
mv "$P"/smallp-*.idx "$P/small.idx"
(cd "$R" && printf 'HEAD\n^HEAD~12\n' | git pack-objects -q --thin --revs --stdout >"$P/thin.pack")
# --fix-thin appends the missing bases as whole objects after the deltas that use them.
fixed=$(cd "$R" && git index-pack --fix-thin --stdin <"$P/thin.pack" | sed 's/^pack\t//')
cp "$R/.git/objects/pack/pack-$fixed.pack" "$P/fixthin.pack"
cp "$R/.git/objects/pack/pack-$fixed.idx" "$P/fixthin.idx"

"$PY" "$HERE/mkpacks.py" "$P/small.pack" "$D/made" || {
	echo "FAIL: mkpacks.py"
	exit 1
}
for f in "$D"/made/good-*.pack; do
	cp "$f" "$P/"
done
: >"$D/done"
}

# ---------------------------------------------------------------------------------------------
# Valid packs: idx byte for byte, verify-pack output
# ---------------------------------------------------------------------------------------------
section_valid() {
need_data
mkdir -p "$O"
for pack in "$P"/*.pack; do
	name=$(basename "$pack" .pack)
	# under Wine and ASan one pack in SHA1KIT_CASE_SHARE (testlib.sh), and ofs.pack, which the end reads
	[ "$name" = ofs ] || sk_share_case || continue
	refgit index-pack -o "$O/$name.git.idx" "$pack" >"$O/$name.git.out" 2>"$O/$name.git.err"
	grc=$?
	"$SK" index-pack --threads=1 -o "$O/$name.sk.idx" "$pack" >"$O/$name.sk.out" 2>"$O/$name.sk.err"
	rc=$?
	if [ "$grc" != 0 ]; then
		# git rejects it (e.g. a pack without objects on some versions): we must agree.
		if [ "$rc" = 0 ]; then bad "$name: git rejects the pack, sha1kit accepts it"; else ok; fi
		continue
	fi
	if [ "$rc" != 0 ]; then
		bad "$name: index-pack failed: $(<"$O/$name.sk.err")"
		continue
	fi
	same_file "$O/$name.git.idx" "$O/$name.sk.idx" && ok || bad "$name: idx differs from git's"
	same_file "$O/$name.git.out" "$O/$name.sk.out" && ok || bad "$name: stdout differs from git's (pack checksum line)"
	"$SK" index-pack --threads=4 -o "$O/$name.sk4.idx" "$pack" >/dev/null 2>&1 &&
		same_file "$O/$name.git.idx" "$O/$name.sk4.idx" && ok || bad "$name: idx with 4 threads differs"
	[ "$(stat -c %a "$O/$name.sk.idx")" = 444 ] && ok || bad "$name: idx mode is not 0444"
	for iv in 2,0 2,100 1 "" ,5 2, 2,0x7fffffff 4294967298 4294967297,0x100000010; do
		if refgit index-pack --index-version=$iv -o "$O/$name.git.$iv.idx" "$pack" >/dev/null 2>&1; then
			"$SK" index-pack --index-version=$iv -o "$O/$name.sk.$iv.idx" "$pack" >/dev/null 2>&1 &&
				same_file "$O/$name.git.$iv.idx" "$O/$name.sk.$iv.idx" && ok || bad "$name: --index-version=$iv idx differs"
			# --verify finds the layout in the existing idx, and accepts it when git does: git
			# opens it only with NAME.pack beside it, and never when every offset is in the
			# 64-bit table (2,0: load_idx allows count - 1 entries there, "wrong index v2 file
			# size"); then both refuse it.
			ln -f "$pack" "$O/$name.git.$iv.pack"
			refgit index-pack --verify -o "$O/$name.git.$iv.idx" "$pack" >/dev/null 2>"$O/$name.verify.git.err"
			grc=$?
			"$SK" index-pack --verify -o "$O/$name.git.$iv.idx" "$pack" >/dev/null 2>"$O/$name.verify.err"
			rc=$?
			rm -f "$O/$name.git.$iv.pack"
			{ [ $grc = 0 ] && [ $rc = 0 ]; } ||
				{ [ $grc = 128 ] && [ $rc = 128 ] && same_file "$O/$name.verify.git.err" "$O/$name.verify.err"; } && ok ||
				bad "$name: --verify of git's --index-version=$iv idx: exit $rc, git $grc: $(<"$O/$name.verify.err")"
		fi
	done
	# verify-pack: the pack needs its idx beside it.
	cp "$pack" "$O/vp-$name.pack"
	cp "$O/$name.git.idx" "$O/vp-$name.idx"
	# Standard output and exit status as git's (the error messages differ).
	(cd "$O" && refgit verify-pack -v "vp-$name.pack" >"vp-$name.git.v" 2>/dev/null)
	grc=$?
	(cd "$O" && "$SK" verify-pack -v "vp-$name.pack" >"vp-$name.sk.v" 2>/dev/null)
	rc=$?
	[ "$rc" = "$grc" ] && same_file "$O/vp-$name.git.v" "$O/vp-$name.sk.v" && ok || {
		bad "$name: verify-pack -v output or status ($rc, git $grc) differs from git's"
		diff "$O/vp-$name.git.v" "$O/vp-$name.sk.v" | head -5
	}
	(cd "$O" && refgit verify-pack -s "vp-$name.idx" >"vp-$name.git.s" 2>/dev/null)
	grc=$?
	(cd "$O" && "$SK" verify-pack -s "vp-$name.idx" >"vp-$name.sk.s" 2>/dev/null)
	rc=$?
	[ "$rc" = "$grc" ] && same_file "$O/vp-$name.git.s" "$O/vp-$name.sk.s" && ok ||
		bad "$name: verify-pack -s output or status differs from git's"
	# -s wins over -v in git, in either order; --no-stat-only undoes -s
	local vs
	for vs in "-v -s" "-s --no-stat-only -v --no-verbose"; do
		# shellcheck disable=SC2086 # the options are words
		(cd "$O" && refgit verify-pack $vs "vp-$name.idx" >"vp-$name.git.vs" 2>/dev/null)
		grc=$?
		# shellcheck disable=SC2086
		(cd "$O" && "$SK" verify-pack $vs "vp-$name.idx" >"vp-$name.sk.vs" 2>/dev/null)
		rc=$?
		[ "$rc" = "$grc" ] && same_file "$O/vp-$name.git.vs" "$O/vp-$name.sk.vs" && ok ||
			bad "$name: verify-pack $vs output or status differs from git's"
	done
	# --verify as git's (which also refuses an object that is twice in the pack: good-dup)
	refgit index-pack --verify "$O/vp-$name.pack" >/dev/null 2>"$O/vp-$name.git.err"
	grc=$?
	"$SK" index-pack --verify "$O/vp-$name.pack" >/dev/null 2>"$O/vp-$name.sk.err"
	rc=$?
	[ $grc = $rc ] && { [ $rc = 0 ] || { [ $rc = 128 ] && same_file "$O/vp-$name.git.err" "$O/vp-$name.sk.err"; }; } && ok ||
		bad "$name: index-pack --verify: exit $rc, git $grc: $(<"$O/vp-$name.sk.err") (git: $(<"$O/vp-$name.git.err"))"
done

# The test packs must contain what they are meant to: REF_DELTA, OFS_DELTA, chains, 64-bit table.
grep -q ' 2 [0-9a-f]\{40\}$' "$O/vp-ofs.sk.v" && ok || bad "ofs.pack has no delta chains of length 2"
[ "$(stat -c %s "$O/ofs.sk.2,0.idx")" -gt "$(stat -c %s "$O/ofs.sk.idx")" ] && ok || bad "2,0 idx has no 64-bit table"
"$PY" - "$P/ref.pack" "$P/ofs.pack" "$P/fixthin.pack" <<'EOF' && ok || bad "packs lack the delta kinds they should have"
import sys, zlib
def kinds(path):
    d = open(path, "rb").read()
    n, p, seen = int.from_bytes(d[8:12], "big"), 12, set()
    for _ in range(n):
        c = d[p]; p += 1; t = (c >> 4) & 7
        while c & 0x80:
            c = d[p]; p += 1
        if t == 6:
            c = d[p]; p += 1
            while c & 0x80:
                c = d[p]; p += 1
        elif t == 7:
            p += 20
        z = zlib.decompressobj(); z.decompress(d[p:]); p = len(d) - len(z.unused_data)
        seen.add(t)
    return seen
ref, ofs, fix = (kinds(p) for p in sys.argv[1:4])
sys.exit(0 if 7 in ref and 6 not in ref and 6 in ofs and 7 in fix else 1)
EOF
}

# Every kernel: the valid packs again under each SHA1KIT_CPU mask.
section_masks() { # long
need_data
need_git_outputs
declare -A vp_rc
for pack in "$P"/*.pack; do
	name=$(basename "$pack" .pack)
	[ -e "$O/vp-$name.git.v" ] || continue # git rejects it
	(cd "$O" && refgit verify-pack -v "vp-$name.pack" >/dev/null 2>&1)
	vp_rc[$name]=$?
done
for mask in "${SK_CPU_MASKS[@]}"; do
	m="SHA1KIT_CPU=${mask:-(unset)}"
	if sk_cpu_check "$SK" "$mask" >"$O/mask.check"; then
		ok
		echo "$m: kernels $SK_CPU_KERNELS"
	else
		bad "$m sha1kit --version: not the kernels the mask must give"
		cat "$O/mask.check"
	fi
	n=0
	for pack in "$P"/*.pack; do
		name=$(basename "$pack" .pack)
		[ -n "${vp_rc[$name]:-}" ] || continue
		n=$((n + 1))
		for th in 1 3; do
			rm -f "$O/mask.idx"
			sk_cpu_run "$mask" "$SK" index-pack --threads=$th -o "$O/mask.idx" "$pack" >"$O/mask.out" 2>"$O/mask.err"
			rc=$?
			[ $rc = 0 ] && same_file "$O/$name.git.idx" "$O/mask.idx" && same_file "$O/$name.git.out" "$O/mask.out" && ok ||
				bad "$m: $name: index-pack --threads=$th (exit $rc): idx or stdout differs from git's: $(head -c 300 "$O/mask.err")"
		done
		(cd "$O" && sk_cpu_run "$mask" "$SK" verify-pack -v "vp-$name.pack" >mask.v 2>/dev/null)
		rc=$?
		[ $rc = "${vp_rc[$name]}" ] && same_file "$O/vp-$name.git.v" "$O/mask.v" && ok ||
			bad "$m: $name: verify-pack -v (exit $rc, git ${vp_rc[$name]}) differs from git's"
	done
	[ $n -ge 4 ] && ok || bad "$m: only $n valid packs"
done
sk_cpu_run -bogus "$SK" index-pack -o "$O/bogus.idx" "$P/ofs.pack" >"$O/bogus.out" 2>"$O/bogus.err"
rc=$?
mapfile -t l <"$O/bogus.err"
[ $rc = 1 ] && [ "${#l[@]}" = 1 ] && [[ ${l[0]} == "sha1kit: SHA1KIT_CPU: unknown feature 'bogus'"* ]] &&
	[ ! -e "$O/bogus.idx" ] && [ ! -s "$O/bogus.out" ] && ok ||
	bad "SHA1KIT_CPU=-bogus index-pack: exit $rc (want 1), stderr: ${l[*]}"
}

# Thin pack: its bases are outside the pack.
section_misc() { # leaks
need_data
need_git_outputs
# Where git's index-pack and verify-pack stop before any work: git's fatal line and 128 (wrapper.c
# xopen, the first read of a directory, derive_filename, "bad --index-version=", --stdin --verify
# without a pack name), or its usage (129: sha1kit's own usage text, the status compared). Outside
# a repository, then (--stdin --verify) inside one.
local args grc rc t
mkdir -p "$O/early/d.pack" "$O/early/repo"
git init -q "$O/early/repo"
while IFS= read -r args; do
	# shellcheck disable=SC2086 # the cases are word lists
	(cd "$O/early" && refgit $args </dev/null >g.out 2>g.err)
	grc=$?
	# shellcheck disable=SC2086
	(cd "$O/early" && "$SK" $args </dev/null >s.out 2>s.err)
	rc=$?
	if [ "$rc" = "$grc" ] && same_file "$O/early/g.out" "$O/early/s.out" &&
		{ [ "$rc" = 129 ] || same_file "$O/early/g.err" "$O/early/s.err"; } && [ "$rc" -ge 128 ]; then
		ok
	else
		bad "$args: git $grc $(<"$O/early/g.err"), sha1kit $rc $(<"$O/early/s.err")"
	fi
done <<'EOF_CASES'
index-pack missing.pack
index-pack -o x.idx missing.pack
index-pack d.pack
index-pack d
index-pack --index-version=3 x.pack
index-pack --index-version=2,x x.pack
index-pack --index-version=2,0x80000000 x.pack
index-pack --stdin x.notpack
index-pack --stdin --verify
index-pack --bogus-option x.pack
index-pack
index-pack a.pack b.pack
index-pack --threads=x a.pack
verify-pack --bogus-option x.idx
verify-pack
EOF_CASES
# standard output a full device: git's line and status (verify-pack: its check process died, 1)
if [ -w /dev/full ] && [ -z "${SK_WINDOWS:-}" ]; then
	mkdir -p "$O/full"
	cp "$P/ofs.pack" "$O/full/p.pack"
	(cd "$O/full" && refgit index-pack -o p.idx p.pack >/dev/null 2>&1)
	# (a failed command's output is not checked: git's run_builtin checks it after a success)
	for args in "index-pack -o x.idx p.pack" "verify-pack -v p.pack" "index-pack --verify p.pack" \
		"verify-pack -v missing.idx" "verify-pack -s missing.idx"; do
		rm -f "$O/full/x.idx" "$O/full/x.rev"
		# shellcheck disable=SC2086 # the cases are word lists
		(cd "$O/full" && refgit $args >/dev/full 2>../g.err)
		grc=$?
		rm -f "$O/full/x.idx" "$O/full/x.rev"
		# shellcheck disable=SC2086
		(cd "$O/full" && "$SK" $args >/dev/full 2>../s.err)
		rc=$?
		if [ "$rc" = "$grc" ] && same_file "$O/g.err" "$O/s.err"; then
			ok
		else
			bad "$args >/dev/full: git $grc $(<"$O/g.err"), sha1kit $rc $(<"$O/s.err")"
		fi
	done
	# --stdin writes its line at once (write_or_die): "fatal: write error: REASON"
	for t in g s; do
		rm -rf "$O/full-$t.git" && git init -q --bare "$O/full-$t.git"
	done
	(cd "$O/full-g.git" && refgit index-pack --stdin <../full/p.pack >/dev/full 2>../g.err)
	grc=$?
	(cd "$O/full-s.git" && "$SK" index-pack --stdin <../full/p.pack >/dev/full 2>../s.err)
	rc=$?
	[ "$rc" = "$grc" ] && same_file "$O/g.err" "$O/s.err" && ok ||
		bad "index-pack --stdin >/dev/full: git $grc $(<"$O/g.err"), sha1kit $rc $(<"$O/s.err")"
fi
# -v --verify on threads (the parallel first pass): the "Indexing objects" meter ends once, as
# git's (the last task's report drew it complete before the pass's own end, in some runs)
mkdir -p "$O/meter" && cp "$P/ofs.pack" "$O/meter/p.pack" && (cd "$O/meter" && refgit index-pack -o p.idx p.pack >/dev/null 2>&1)
local twice=0 k
for k in 1 2 3 4 5 6; do
	(cd "$O/meter" && "$SK" index-pack -v --threads=4 --verify p.pack >/dev/null 2>err)
	[ "$(tr '\r' '\n' <"$O/meter/err" | grep -c '^Indexing objects: 100%.*done')" = 1 ] || twice=$((twice + 1))
done
[ "$twice" = 0 ] && ok || bad "index-pack -v --verify: the meter ended other than once in $twice of 6 runs"
# an idx that is a directory: git opens it, takes fstat's size and maps it: "mmap failed" (ENODEV)
# (not under Wine, where a directory has no size)
mkdir -p "$O/early/dir/p.idx" && cp "$P/ofs.pack" "$O/early/dir/p.pack"
for args in ${SK_WINDOWS:+none} "verify-pack p.pack" "index-pack --verify p.pack"; do
	[ "$args" = none ] && break
	# shellcheck disable=SC2086 # the cases are word lists
	(cd "$O/early/dir" && refgit $args </dev/null >../g.out 2>../g.err)
	grc=$?
	# shellcheck disable=SC2086
	(cd "$O/early/dir" && "$SK" $args </dev/null >../s.out 2>../s.err)
	rc=$?
	if [ "$rc" = "$grc" ] && same_file "$O/early/g.out" "$O/early/s.out" && same_file "$O/early/g.err" "$O/early/s.err"; then
		ok
	else
		bad "$args with p.idx a directory: git $grc $(<"$O/early/g.err"), sha1kit $rc $(<"$O/early/s.err")"
	fi
done
# --keep[=MSG] (builtin/index-pack.c write_special_file): NAME.keep beside a pack given by name,
# objects/pack/pack-HASH.keep with --stdin (reported "keep\tHASH"; one already there is left and
# the report is "pack"), holding MSG and a newline; the files, their modes and contents as git's
local k d
for k in --keep --keep=msg "--keep=two words"; do
	for d in g s; do
		rm -rf "$O/keep-$d" && mkdir -p "$O/keep-$d/file" && git init -q --bare "$O/keep-$d/repo" &&
			cp "$P/ofs.pack" "$O/keep-$d/file/p.pack"
	done
	(cd "$O/keep-g/file" && refgit index-pack "$k" p.pack >../out 2>../err; echo $? >../rc)
	(cd "$O/keep-s/file" && "$SK" index-pack "$k" p.pack >../out 2>../err; echo $? >../rc)
	local m
	for d in g s; do
		(cd "$O/keep-$d/repo" && "$([ $d = g ] && echo "$SK_REF_GIT" || echo "$SK")" index-pack --stdin "$k" \
			<"$P/ofs.pack" >>../out 2>>../err
		echo $? >>../rc
		"$([ $d = g ] && echo "$SK_REF_GIT" || echo "$SK")" index-pack --stdin "$k" <"$P/ofs.pack" >>../out 2>>../err
		echo $? >>../rc)
		# (.rev files left out: git 2.39 writes none by default, sha1kit does, as 2.41+)
		(cd "$O/keep-$d" && find file repo/objects/pack -type f ! -name '*.rev' | sort | while read -r f; do
			# (Windows has no mode 0600: the Wine build's .keep is 0644, its mode left out there)
			m=$(stat -c %a "$f")
			[ -n "${SK_WINDOWS:-}" ] && [ "${f%.keep}" != "$f" ] && m=-
			printf '%s %s %s\n' "$f" "$m" "$(cksum <"$f")"
		done >list)
	done
	if same_file "$O/keep-g/out" "$O/keep-s/out" && same_file "$O/keep-g/err" "$O/keep-s/err" &&
		same_file "$O/keep-g/rc" "$O/keep-s/rc" && same_file "$O/keep-g/list" "$O/keep-s/list" &&
		grep -q '^keep	' "$O/keep-s/out" && grep -q '\.keep ' "$O/keep-s/list"; then
		ok
	else
		bad "index-pack $k: git $(cat "$O/keep-g/rc" "$O/keep-g/out" "$O/keep-g/list"), sha1kit $(cat "$O/keep-s/rc" "$O/keep-s/out" "$O/keep-s/list")"
	fi
done
(cd "$O/early/repo" && refgit index-pack --stdin --verify </dev/null >../g.out 2>../g.err)
grc=$?
(cd "$O/early/repo" && "$SK" index-pack --stdin --verify </dev/null >../s.out 2>../s.err)
rc=$?
[ "$rc" = 128 ] && [ "$grc" = 128 ] && same_file "$O/early/g.err" "$O/early/s.err" && ok ||
	bad "index-pack --stdin --verify in a repository: git $grc $(<"$O/early/g.err"), sha1kit $rc $(<"$O/early/s.err")"
# A thin pack (REF_DELTA bases it lacks) without --fix-thin: git's "fatal: pack has N unresolved
# deltas" (builtin/index-pack.c conclude_pack), exit 128, no idx; index-pack --stdin alike (in a
# repository), and verify-pack (exit 1)
"$SK" index-pack -o "$O/thin.idx" "$P/thin.pack" >/dev/null 2>"$O/thin.err"
rc=$?
refgit index-pack -o "$O/thin.git.idx" "$P/thin.pack" >/dev/null 2>"$O/thin.git.err"
grc=$?
[ "$rc" = 128 ] && [ "$grc" = 128 ] && same_file "$O/thin.err" "$O/thin.git.err" && grep -q "^fatal: pack has [0-9]* unresolved deltas$" "$O/thin.err" &&
	[ ! -e "$O/thin.idx" ] && [ ! -e "$O/thin.rev" ] && ok ||
	bad "thin pack: exit $rc (git $grc): $(<"$O/thin.err") / git: $(<"$O/thin.git.err")"
rm -rf "$O/thin-s" "$O/thin-g"
git init -q --bare "$O/thin-s" && git init -q --bare "$O/thin-g" || bad "thin pack: cannot make repositories"
(cd "$O/thin-s" && "$SK" index-pack --stdin <"$P/thin.pack" >/dev/null 2>"$O/thin.err")
rc=$?
(cd "$O/thin-g" && refgit index-pack --stdin <"$P/thin.pack" >/dev/null 2>"$O/thin.git.err")
grc=$?
[ "$rc" = 128 ] && [ "$grc" = 128 ] && same_file "$O/thin.err" "$O/thin.git.err" && [ -z "$(ls "$O/thin-s/objects/pack")" ] && ok ||
	bad "thin pack --stdin: exit $rc (git $grc): $(<"$O/thin.err") / git: $(<"$O/thin.git.err")"

# --verify against an idx of another pack, and a missing one.
"$SK" index-pack --verify -o "$O/ref.git.idx" "$P/ofs.pack" >/dev/null 2>&1 && bad "--verify accepts a wrong idx" || ok
"$SK" index-pack --verify -o "$O/nonexistent.idx" "$P/ofs.pack" >/dev/null 2>&1 && bad "--verify accepts a missing idx" || ok
# verify-pack with an idx of another pack: the same stdout as git (statistics, then "bad"), the same
# stderr (git's index-pack --verify: "fatal: sha1 file 'vbad.idx' validation error"), exit 1.
cp "$P/ofs.pack" "$O/vbad.pack"
cp "$O/ref.git.idx" "$O/vbad.idx"
for v in -v -s ""; do
	(cd "$O" && refgit verify-pack $v vbad.pack >vbad.git 2>vbad.git.err)
	(cd "$O" && "$SK" verify-pack $v vbad.pack >vbad.sk 2>vbad.err)
	rc=$?
	[ "$rc" = 1 ] && same_file "$O/vbad.git" "$O/vbad.sk" && same_file "$O/vbad.git.err" "$O/vbad.err" &&
		{ [ -z "$v" ] || grep -q '^vbad.pack: bad$' "$O/vbad.sk"; } &&
		[ "$(<"$O/vbad.err")" = "fatal: sha1 file 'vbad.idx' validation error" ] && ok ||
		bad "verify-pack $v of a mismatched idx: rc $rc, output differs from git's: $(<"$O/vbad.err") / git: $(<"$O/vbad.git.err")"
done

# Default output name, and refusal of a name without .pack.
cp "$P/ofs.pack" "$O/default.pack"
"$SK" index-pack "$O/default.pack" >/dev/null 2>&1 && same_file "$O/default.idx" "$O/ofs.git.idx" && ok ||
	bad "default idx name"
cp "$P/ofs.pack" "$O/noext"
"$SK" index-pack "$O/noext" >/dev/null 2>&1 && bad "accepted a pack name without .pack and no -o" || ok

# --strict (more in the sections strict_*): git's fsck error and a duplicate (git's "fatal: The
# same object ID appears twice in the pack"), exit 128 as git
for s in strict-tree strict-dup; do
	msg=$(grep "^$s	" "$D/made/expect.txt" | cut -f2)
	want=128
	"$SK" index-pack -o "$O/$s.idx" "$D/made/$s.pack" >/dev/null 2>&1 && ok || bad "$s: rejected without --strict"
	"$SK" index-pack --strict -o "$O/$s.strict.idx" "$D/made/$s.pack" >/dev/null 2>"$O/$s.err"
	rc=$?
	[ "$rc" = "$want" ] && grep -q "$msg" "$O/$s.err" && [ ! -e "$O/$s.strict.idx" ] && ok ||
		bad "$s: --strict gave $rc: $(<"$O/$s.err")"
done
"$SK" index-pack --strict -o "$O/strict-ofs.idx" "$P/ofs.pack" >/dev/null 2>&1 && ok || bad "--strict rejects a valid pack"

# -o where the index cannot be made: a directory of that name, a directory that does not exist
# (git's xopen after the pack is indexed: "fatal: unable to create 'NAME': REASON", 128; sha1kit
# leaves no temporary file where git leaves its tmp_pack_*), from a file and with --stdin; and with
# --stdin, -o on another file system than the repository (the idx and .rev there, the pack in the
# repository, as git: once a rename across file systems that failed)
# oc_same WHAT: git's run (oc-g.*) and sha1kit's (oc-s.*) gave the same stdout, stderr, status and
# files left (.ls)
oc_same() {
	local k
	for k in out err rc ls; do
		same_file "$O/oc-g.$k" "$O/oc-s.$k" || {
			bad "$1: git $(cat "$O/oc-g.rc" "$O/oc-g.err" "$O/oc-g.ls"), sha1kit $(cat "$O/oc-s.rc" "$O/oc-s.err" "$O/oc-s.ls")"
			return
		}
	done
	ok
}
local o other=
if [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$(stat -c %d /dev/shm)" != "$(stat -c %d "$O")" ] &&
	[ -z "${SK_WINDOWS:-}" ]; then
	other=$(mktemp -d /dev/shm/sha1kit-pack.XXXXXX)
fi
for o in "$O/oc/dir.idx" "$O/oc/none/x.idx" ${other:+"$other/x.idx"}; do
	for args in "FILE" "--stdin"; do
		for d in g s; do
			rm -rf "$O/oc-$d" "$O/oc" ${other:+"$other"/*} && mkdir -p "$O/oc/dir.idx" &&
				git init -q --bare "$O/oc-$d"
			if [ "$args" = FILE ]; then
				cp "$P/ofs.pack" "$O/oc-$d/p.pack"
				set -- "$O/oc-$d/p.pack"
			else
				set -- --stdin
			fi
			(cd "$O/oc-$d" && "$([ $d = g ] && echo "$SK_REF_GIT" || echo "$SK")" index-pack -o "$o" "$@" \
				<"$P/ofs.pack" >../oc-$d.out 2>../oc-$d.err
			echo $? >../oc-$d.rc)
			# what is left: the outputs (.rev left out: 2.39 writes none), the repository's packs
			{ ls "$(dirname "$o")" 2>/dev/null | grep -v '\.rev$'; ls "$O/oc-$d/objects/pack" | grep -v '^tmp_pack_'; } >"$O/oc-$d.ls"
			[ $d = s ] && ls "$O/oc-$d/objects/pack" | grep -q '^tmp_' && echo "tmp file left" >>"$O/oc-s.ls"
			for f in "$o" "$O/oc-$d"/objects/pack/*.pack; do
				[ -f "$f" ] && cksum <"$f" >>"$O/oc-$d.ls"
			done
		done
		oc_same "index-pack -o $o ($args)"
	done
done
[ -n "$other" ] && rm -rf "$other"
# --stdin PACK where PACK cannot be created: a file already there (another pack: it stays as it
# is, nothing is indexed in its name) or no such directory; git's open_pack_file (O_EXCL) before
# it reads a byte, so also with nothing on standard input
local p in
for p in "$O/oc/there.pack" "$O/oc/none/p.pack"; do
	for in in "$P/ofs.pack" /dev/null; do
		for d in g s; do
			rm -rf "$O/oc-$d" "$O/oc" && mkdir -p "$O/oc" && printf 'precious\n' >"$O/oc/there.pack" &&
				git init -q --bare "$O/oc-$d"
			(cd "$O/oc-$d" && "$([ $d = g ] && echo "$SK_REF_GIT" || echo "$SK")" index-pack --stdin "$p" \
				<"$in" >../oc-$d.out 2>../oc-$d.err
			echo $? >../oc-$d.rc)
			{ ls "$O/oc"; ls "$O/oc-$d/objects/pack"; cat "$O/oc/there.pack"; } >"$O/oc-$d.ls"
		done
		oc_same "index-pack --stdin $p <$in"
	done
done
}

# ---------------------------------------------------------------------------------------------
# An idx that git cannot open (packfile.c load_idx, index-pack's read_v2_anomalous_offsets): git's
# verify-pack prints no statistics, only "NAME.pack: bad"; sha1kit gives the same standard output,
# standard error ("error: REASON" then "fatal: Cannot open existing pack idx file for 'NAME.idx'",
# or "fatal: offset beyond end of pack index ...") and exit status; index-pack --verify too (128).
# So do a missing idx, a missing pack and an idx name that does not end in .idx.
# ---------------------------------------------------------------------------------------------
section_idx_unopenable() { # leaks
need_data
U=$T/unopenable
mkdir -p "$U"
git index-pack --index-version=1 -o "$U/v1.idx" "$P/small.pack" >/dev/null 2>&1 || bad "git index-pack --index-version=1"
"$PY" - "$P/small.idx" "$U/v1.idx" "$U" <<'EOF_PY' || bad "could not write the broken idx files"
import sys
v2 = open(sys.argv[1], "rb").read()
v1 = open(sys.argv[2], "rb").read()
out = sys.argv[3]
nr = int.from_bytes(v2[8 + 255 * 4:8 + 256 * 4], "big")
offs = 8 + 1024 + nr * 24
def put(name, data):
    open(out + "/" + name + ".idx", "wb").write(bytes(data))
put("empty", b"")
put("small", v2[:1000])
d = bytearray(v2); d[4:8] = (3).to_bytes(4, "big"); put("version3", d)
d = bytearray(v2); d[8:12] = (nr + 1).to_bytes(4, "big"); put("fanout", d)
d = bytearray(v1); d[4:8] = (0).to_bytes(4, "big"); d[0:4] = (nr + 1).to_bytes(4, "big"); put("fanout1", d)
put("v2short", v2[:-4])
put("v1long", v1 + b"\0")
d = bytearray(v2); d[offs:offs + 4] = (0x80000000 | 100000).to_bytes(4, "big"); put("offset", d)
EOF_PY
n=0
for idx in "$U"/*.idx; do
	name=$(basename "$idx" .idx)
	[ "$name" = v1 ] && continue
	n=$((n + 1))
	cp "$P/small.pack" "$U/$name.pack"
	for v in "" -v -s; do
		(cd "$U" && refgit verify-pack $v "$name.idx" >"$name.git.out" 2>"$name.git.err")
		grc=$?
		(cd "$U" && "$SK" verify-pack $v "$name.idx" >"$name.sk.out" 2>"$name.sk.err")
		rc=$?
		[ "$grc" = 1 ] && [ "$rc" = "$grc" ] && same_file "$U/$name.git.out" "$U/$name.sk.out" &&
			same_file "$U/$name.git.err" "$U/$name.sk.err" && grep -q '^fatal: ' "$U/$name.sk.err" &&
			! grep -q '^[0-9a-f]\{40\} ' "$U/$name.sk.out" && ok || {
			bad "$name.idx: verify-pack $v: exit $rc (git $grc), stderr '$(tr '\n' '|' <"$U/$name.sk.err")' (git: $(tr '\n' '|' <"$U/$name.git.err"))"
			diff "$U/$name.git.out" "$U/$name.sk.out" | head -5
		}
	done
	(cd "$U" && refgit index-pack --verify "$name.pack" >/dev/null 2>"$name.git.err")
	grc=$?
	(cd "$U" && "$SK" index-pack --verify "$name.pack" >"$name.sk.out" 2>"$name.sk.err")
	rc=$?
	[ "$grc" = 128 ] && [ "$rc" = 128 ] && [ ! -s "$U/$name.sk.out" ] && same_file "$U/$name.git.err" "$U/$name.sk.err" && ok ||
		bad "$name.idx: index-pack --verify: exit $rc (git $grc), stderr '$(tr '\n' '|' <"$U/$name.sk.err")' (git: $(tr '\n' '|' <"$U/$name.git.err"))"
done
[ $n = 8 ] && ok || bad "only $n broken idx files"
# a missing idx, a missing pack, neither, an idx name that does not end in .idx
cp "$P/small.pack" "$U/nolidx.pack"
cp "$P/small.idx" "$U/nopack.idx"
local c
for c in "verify-pack nolidx.pack" "verify-pack -v nopack.idx" "verify-pack -s none" "index-pack --verify nolidx.pack" \
	"index-pack --verify nopack.pack" "index-pack --verify --no-rev-index -o small.x nolidx.pack"; do
	# shellcheck disable=SC2086
	(cd "$U" && refgit $c >g.out 2>g.err; echo $? >g.rc)
	# shellcheck disable=SC2086
	(cd "$U" && "$SK" $c >s.out 2>s.err; echo $? >s.rc)
	same_file "$U/g.rc" "$U/s.rc" && same_file "$U/g.err" "$U/s.err" && same_file "$U/g.out" "$U/s.out" && ok ||
		bad "$c: git $(<"$U/g.rc") $(tr '\n' '|' <"$U/g.err"), sha1kit $(<"$U/s.rc") $(tr '\n' '|' <"$U/s.err")"
done
}

# ---------------------------------------------------------------------------------------------
# --strict: git's fsck checks of every object and its link checks (git 2.39.5's index-pack
# --strict), on the packs of tests/pack/mkstrict.py (one defect each), outside and inside a
# repository: sha1kit's stdout, stderr, exit status and idx (there or not) must be git's.
# ---------------------------------------------------------------------------------------------
# The cases are shared out between two sections (ctest runs them side by side): strict_trees the
# trees and special blobs, strict_other commits, tags, links, option lists, --stdin.
section_strict_trees() { # leaks
strict_cases '^(tree|gitmodules|gitattributes|delta|good)'
}
section_strict_other() { # leaks
strict_cases '^(commit|tag|missing|repo|opt)'
}
# Every case again as SHA-256 packs (mkstrict.py --sha256): outside a repository with
# --object-format=sha256, inside one made with --object-format=sha256.
section_strict_sha256() { # leaks
strict_cases '.' sha256
}
# strict_cases REGEX [sha256]: the cases whose names match, in the object format given (SHA-1
# without it)
strict_cases() {
local fmt=${2:-}
S=$T/strict$fmt
mkdir -p "$S/w"
"$PY" "$HERE/mkstrict.py" ${fmt:+--sha256} "$S/packs" || {
	bad "mkstrict.py failed"
	return
}
# The repository of the "repo" cases: one blob loose, one packed (repo.txt).
R=$S/repo.git
git init -q --bare ${fmt:+--object-format=$fmt} "$R"
while read -r how type data; do
	[ "$how" = packed ] && printf '%s' "$data" | xxd -r -p | git --git-dir="$R" hash-object -w -t "$type" --stdin >/dev/null
done <"$S/packs/repo.txt"
git --git-dir="$R" repack -adq
while read -r how type data; do
	[ "$how" = loose ] && printf '%s' "$data" | xxd -r -p | git --git-dir="$R" hash-object -w -t "$type" --stdin >/dev/null
done <"$S/packs/repo.txt"
# strict_run WHO WHERE NAME OPTS [stdin]: index-pack of $S/packs/NAME.pack by WHO (git or sk),
# run in $S/w (not a repository) or with GIT_DIR=$R (WHERE=repo), writing into $S/w/WHO; its
# stdout, stderr and status (with "idx" when the idx is there afterwards) in $S/w/WHO.{out,err,rc}.
# Few processes per run: the machine may be busy.
strict_run() {
	local who=$1 where=$2 name=$3 opts=$4 mode=${5:-} d=$S/w/$1 rc
	local -a left
	local -a cmd=("$SK_REF_GIT" index-pack)
	[ "$who" = sk ] && cmd=("$SK" index-pack)
	local out=$d/$name.$where$mode
	rm -f "$out.idx" "$out.rev" "$out.pack" # an earlier run's (the same case, other options)
	# a SHA-256 pack outside a repository: git's option says so (inside, the repository does),
	# before --strict: git reads a skip list in the format known when it meets --strict=skiplist=
	# (2.39.5: SHA-1, "invalid object name: <64 hex>"; 2.55.0 crashes), sha1kit in the pack's
	[ -n "$fmt" ] && [ "$where" = out ] && opts="--object-format=$fmt $opts"
	# shellcheck disable=SC2086 # OPTS is a word list
	# (git 2.39.5 crashes in some cases, see below: bash's note of it is not wanted)
	{ (
		[ "$where" = repo ] && export GIT_DIR=$R
		if [ "$mode" = stdin ]; then
			exec "${cmd[@]}" $opts --stdin "$out.pack" <"$S/packs/$name.pack"
		else
			exec "${cmd[@]}" $opts -o "$out.idx" "$S/packs/$name.pack"
		fi
	) >"$d.out" 2>"$d.err"; } 2>/dev/null
	rc=$?
	# (git --stdin leaves the pack it wrote when it dies; sha1kit leaves nothing: not compared)
	shopt -s nullglob
	left=("$d"/tmp* "$d"/*.tmp-*)
	shopt -u nullglob
	{
		echo "$rc"
		[ -e "$out.idx" ] && echo idx
		[ "${#left[@]}" -gt 0 ] && echo "files left: ${left[*]}"
	} >"$d.rc"
}
strict_same() { # NAME LABEL: sk's results are git's
	if same_file "$S/w/git.out" "$S/w/sk.out" && same_file "$S/w/git.err" "$S/w/sk.err" &&
		same_file "$S/w/git.rc" "$S/w/sk.rc"; then
		ok
	else
		bad "--strict $1 ($2): sha1kit differs from git"
		for who in git sk; do
			echo "  [$who] status: $(tr '\n' ' ' <"$S/w/$who.rc") stdout: $(<"$S/w/$who.out")"
			sed 's/^/    /' "$S/w/$who.err"
		done
	fi
}
mkdir -p "$S/w/git" "$S/w/sk"
cd "$S/w" || return
export GIT_CEILING_DIRECTORIES=$S
local name opts where rc n=0
while IFS=$'\t' read -r name opts where; do
	[[ $name =~ $1 ]] || continue
	[ "$opts" = - ] && opts=--strict
	n=$((n + 1))
	strict_run git "$where" "$name" "$opts"
	read -r rc <"$S/w/git.rc"
	if [ "$where" = out ] && [ "$rc" -gt 128 ]; then
		# git 2.39.5 dies of a signal (SIGSEGV) outside a repository where it looks up an
		# object that is not in the pack (check_object's oid_object_info without an object
		# store): sha1kit says what git says inside a repository that lacks it, the reference.
		strict_run git repo "$name" "$opts"
	fi
	strict_run sk "$where" "$name" "$opts"
	strict_same "$name" "$where"
	# the two halves of --strict: the object checks alone, the links alone (exit status 1 when
	# a link is found outside the pack); the SHA-1 cases with the plain --strict, in git's place
	if [ -z "$fmt" ] && [ "$opts" = --strict ]; then
		local half
		for half in --fsck-objects --check-self-contained-and-connected; do
			strict_run git "$where" "$name" "$half"
			read -r rc <"$S/w/git.rc"
			[ "$where" = out ] && [ "$rc" -gt 128 ] && strict_run git repo "$name" "$half"
			strict_run sk "$where" "$name" "$half"
			strict_same "$name" "$where, $half"
		done
	fi
done <"$S/packs/cases.txt"
[ "$n" -gt 20 ] && ok || bad "--strict: only $n cases in cases.txt match $1"
if [ -n "$fmt" ]; then
	# --stdin inside the SHA-256 repository (its format, no option)
	for name in good commit-nul tree-dotgit repo-links repo-missing; do
		strict_run git repo "$name" --strict stdin
		strict_run sk repo "$name" --strict stdin
		strict_same "$name" "SHA-256 repo, --stdin"
	done
	# inside a SHA-1 repository: git has a repository there, so its queued .gitmodules check runs
	# (the blob read from the pack beside the idx) instead of 2.55's die outside one
	git init -q "$S/sha1repo"
	for who in git sk; do
		mkdir -p "$S/sha1repo/$who" && cp "$S/packs/gitmodules-before.pack" "$S/sha1repo/$who/x.pack"
	done
	(cd "$S/sha1repo/git" && refgit index-pack --strict --object-format=sha256 x.pack) >"$S/w/git.out" 2>"$S/w/git.err"
	echo $? >"$S/w/git.rc"
	(cd "$S/sha1repo/sk" && "$SK" index-pack --strict --object-format=sha256 x.pack) >"$S/w/sk.out" 2>"$S/w/sk.err"
	echo $? >"$S/w/sk.rc"
	strict_same gitmodules-before "in a SHA-1 repository"
	grep -q "gitmodulesUrl" "$S/w/sk.err" && ok || bad "--strict gitmodules-before in a SHA-1 repository: the blob was not checked"
elif [ "$1" = "^(tree|gitmodules|gitattributes|delta|good)" ]; then
	# Several --strict=... options add up, as in git.
	strict_run git out tree-several "--strict=hasDotgit=warn --strict=hasDotdot=warn,zeroPaddedFilemode=warn"
	strict_run sk out tree-several "--strict=hasDotgit=warn --strict=hasDotdot=warn,zeroPaddedFilemode=warn"
	strict_same tree-several "two options"
	# Not strict-clean, still indexed without --strict, as git indexes it.
	strict_run git out tree-dotgit ""
	strict_run sk out tree-dotgit ""
	strict_same tree-dotgit "without --strict"
	# Inside the repository: a .gitmodules blob before its tree is read from the pack git
	# installs next to the idx (default idx name; with -o elsewhere, git finds no pack there and
	# prints the blob's ID as one it cannot read).
	for who in git sk; do
		mkdir -p "$S/w/$who/beside" && cp "$S/packs/gitmodules-before.pack" "$S/w/$who/beside/x.pack"
	done
	(cd "$S/w/git/beside" && GIT_DIR=$R git index-pack --strict x.pack) >"$S/w/git.out" 2>"$S/w/git.err"
	echo $? >"$S/w/git.rc"
	(cd "$S/w/sk/beside" && GIT_DIR=$R "$SK" index-pack --strict x.pack) >"$S/w/sk.out" 2>"$S/w/sk.err"
	echo $? >"$S/w/sk.rc"
	strict_same gitmodules-before "idx beside the pack"
	[ -e "$S/w/sk/beside/x.idx" ] && ok || bad "--strict gitmodules-before: the idx is not left, as git leaves it"
else
	# --stdin with a pack name: the idx is written, or not, as git writes it.
	for name in good commit-nul tag-bad-name repo-links repo-missing; do
		strict_run git repo "$name" --strict stdin
		strict_run sk repo "$name" --strict stdin
		strict_same "$name" "repo, --stdin"
	done
	# a .gitmodules blob before its tree, --stdin: git's "pack" line, then the ID fsck_finish
	# could not check (stdout in that order)
	for opts in --strict --fsck-objects; do
		strict_run git repo gitmodules-before "$opts" stdin
		strict_run sk repo gitmodules-before "$opts" stdin
		strict_same gitmodules-before "repo, --stdin $opts"
	done
fi
}

# ---------------------------------------------------------------------------------------------
# Output and input files that must be refused (all in a temporary directory: never /dev nodes)
# ---------------------------------------------------------------------------------------------
section_safety() {
need_data
S=$T/safety
mkdir -p "$S"
# A fresh copy of the pack before each case, so that a failed case does not hide the next ones.
fresh() {
	rm -f "$S/self.pack" "$S/hard.pack"
	cp "$P/small.pack" "$S/self.pack"
}
# One error line "sha1kit: CMD: ..." containing $2, exit status 1; $1 names the case.
refused() {
	local what=$1 want=$2 rc=$3 errf=$4
	local -a l
	mapfile -t l <"$errf"
	[ "$rc" = 1 ] && [ "${#l[@]}" = 1 ] && [[ ${l[0]} == "sha1kit: "*"$want"* ]] && ok ||
		bad "$what: want exit 1 and one line with '$want', got $rc: ${l[*]}"
}
# The pack itself as the output: by the same name, another name, a hard link (--no-rev-index: with
# the reverse index on, a name not ending in .idx is refused first, as git 2.41+ does; section rev).
for o in "$S/self.pack" "$S/./self.pack" "$S/hard.pack"; do
	fresh
	ln "$S/self.pack" "$S/hard.pack"
	"$SK" index-pack --no-rev-index -o "$o" "$S/self.pack" >"$S/out" 2>"$S/err"
	refused "-o ${o#"$S"/} (the pack)" "would replace the pack itself" $? "$S/err"
	same_file "$S/self.pack" "$P/small.pack" && [ ! -s "$S/out" ] && ok || bad "-o ${o#"$S"/}: pack changed or output printed"
done
fresh
(cd "$S" && "$SK" index-pack --no-rev-index -o self.pack self.pack >/dev/null 2>&1)
[ $? = 1 ] && same_file "$S/self.pack" "$P/small.pack" && ok || bad "-o self.pack self.pack (relative) destroyed the pack"
# Existing non-regular files and symbolic links are left as they are.
kinds="fifo dir link dangling"
if [ -n "${SK_WINDOWS:-}" ]; then
	kinds=dir
	echo "Windows: no FIFO or symbolic link as the idx (a directory only)"
else
	mkfifo "$S/fifo.idx"
	ln -s target.idx "$S/link.idx"
	ln -s missing.idx "$S/dangling.idx"
fi
mkdir "$S/dir.idx"
printf 'keep\n' >"$S/target.idx"
for o in $kinds; do
	fresh
	"$SK" index-pack -o "$S/$o.idx" "$S/self.pack" >/dev/null 2>"$S/err"
	rc=$?
	case $o in
	link | dangling) refused "-o $o.idx" "is a symbolic link: not replaced" $rc "$S/err" ;;
	# a directory: git's line once the pack is indexed (section misc compares it with git's)
	dir) [ "$rc" = 128 ] && [ "$(<"$S/err")" = "fatal: unable to create '$S/dir.idx': File exists" ] && ok ||
		bad "-o dir.idx: want git's 'unable to create' line and 128, got $rc: $(<"$S/err")" ;;
	*) refused "-o $o.idx" "is not a regular file: not replaced" $rc "$S/err" ;;
	esac
done
if [ -n "${SK_WINDOWS:-}" ]; then
	[ -d "$S/dir.idx" ] && [ "$(<"$S/target.idx")" = keep ] && ok || bad "an existing directory was replaced"
else
	[ -p "$S/fifo.idx" ] && [ -d "$S/dir.idx" ] && [ -L "$S/link.idx" ] && [ -L "$S/dangling.idx" ] &&
		[ "$(<"$S/target.idx")" = keep ] && ok || bad "an existing FIFO, directory or symbolic link was replaced"
fi
# Standard output closed, or a pipe without a reader: the checksum line fails, so no index.
fresh
"$SK" index-pack -o "$S/c.idx" "$S/self.pack" >&- 2>"$S/err"
rc=$?
# (git makes a closed standard output /dev/null and succeeds; sha1kit leaves no index whose
# checksum line went nowhere, with git's line for a failed write)
[ "$rc" = 128 ] && [ "$(<"$S/err")" = "fatal: write failure on standard output: Bad file descriptor" ] && ok ||
	bad "standard output closed: want 128 and git's write failure line, got $rc: $(<"$S/err")"
[ "$(ls -A "$S" | grep -c '^c\.\(idx\|rev\)')" = 0 ] && ok || bad "standard output closed: an index was left: $(ls -A "$S" | tr "\n" " ")"
fresh
rm -f "$S"/c.idx* "$S/c.rev"
rc=$("$PY" -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
print(subprocess.call(sys.argv[1:], stdout=w, stderr=subprocess.DEVNULL))' "$SK" index-pack -o "$S/c.idx" "$S/self.pack")
[ "$rc" != 0 ] && [ "$(ls -A "$S" | grep -c '^c\.\(idx\|rev\)')" = 0 ] && ok || bad "broken pipe: status $rc, files: $(ls -A "$S" | tr "\n" " ")"
# The output is still written when all is well (and the line printed).
fresh
rm -f "$S"/c.idx*
"$SK" index-pack -o "$S/c.idx" "$S/self.pack" >"$S/out" 2>"$S/err" && same_file "$S/c.idx" "$P/small.idx" &&
	[ "$(<"$S/out")" = "$(refgit index-pack -o "$S/git.idx" "$S/self.pack")" ] && ok || bad "index-pack after the refusals: $(<"$S/err")"
if [ -n "${SK_WINDOWS:-}" ]; then
	echo "Windows: no FIFO or /proc file as the pack or idx"
else
	# A FIFO or /proc/self/mem as the pack: refused at once, never read (timeout: a FIFO must not block).
	mkfifo "$S/fifo.pack"
	ln -s /proc/self/mem "$S/mem.pack"
	for kind in fifo mem; do
		timeout 20 "$SK" index-pack -o "$S/$kind.out.idx" "$S/$kind.pack" >/dev/null 2>"$S/err"
		refused "index-pack of a $kind" "not a regular file" $? "$S/err"
		[ ! -e "$S/$kind.out.idx" ] && ok || bad "index-pack of a $kind left an index"
		rm -rf "$S/$kind.idx"
		cp "$P/small.idx" "$S/$kind.idx"
		timeout 20 "$SK" verify-pack "$S/$kind.pack" >/dev/null 2>"$S/err"
		rc=$?
		if [ $kind = fifo ]; then
			# git's add_packed_git: the .pack must be a regular file, else it is not opened
			[ $rc = 1 ] && [ "$(<"$S/err")" = "fatal: Cannot open existing pack file '$S/fifo.idx'" ] && ok ||
				bad "verify-pack of a fifo: rc $rc, $(<"$S/err")"
		else
			refused "verify-pack of a $kind" "not a regular file" $rc "$S/err"
		fi
	done
	timeout 20 "$SK" index-pack -o "$S/mem.out.idx" /proc/self/mem >/dev/null 2>"$S/err"
	refused "index-pack of /proc/self/mem" "not a regular file" $? "$S/err"
	# (--no-rev-index: else the name, not ending in .idx, is refused first, as git 2.41+ does; git
	# then takes no idx whose name does not end in .idx)
	timeout 20 "$SK" index-pack --verify --no-rev-index -o "$S/fifo.pack" "$S/self.pack" >/dev/null 2>"$S/err"
	rc=$?
	[ $rc = 128 ] && [ "$(<"$S/err")" = "fatal: Cannot open existing pack file '$S/fifo.pack'" ] && ok ||
		bad "index-pack --verify with a FIFO as the idx: rc $rc, $(<"$S/err")"
	mkfifo "$S/fifo2.idx"
	cp "$S/self.pack" "$S/fifo2.pack"
	timeout 20 "$SK" index-pack --verify -o "$S/fifo2.idx" "$S/self.pack" >/dev/null 2>"$S/err"
	refused "index-pack --verify with a FIFO as the idx" "not a regular file" $? "$S/err"
fi

# -o with an empty name: a usage error before any work (nothing on stdout, no file), git's status
# for one (129).
"$SK" index-pack -o '' "$S/self.pack" >"$S/out" 2>"$S/err"
rc=$?
mapfile -t l <"$S/err"
[ $rc = 129 ] && [ ! -s "$S/out" ] && [ "${l[0]}" = "sha1kit: index-pack: -o: the idx file name is empty" ] && ok ||
	bad "index-pack -o '': exit $rc, stdout $(wc -c <"$S/out") bytes, stderr: ${l[*]}"

# --threads: verify-pack's range in the error and in --help; index-pack's read as git reads it
# (strtoul with base 0, no upper bound: more than 1024 run as 1024; negative as an int, no digits or
# a character after them: a usage error)
for n in 1025 -1 x 99999999999999999999 ' 3' +3 ''; do
	"$SK" verify-pack "--threads=$n" "$S/self.pack" >"$S/out" 2>"$S/err"
	rc=$?
	mapfile -t l <"$S/err"
	[ $rc = 129 ] && [ "${#l[@]}" = 2 ] && [ ! -s "$S/out" ] &&
		[ "${l[0]}" = "sha1kit: verify-pack: invalid thread count '$n' (0..1024; 0: one per CPU)" ] &&
		[ "${l[1]}" = "Try 'sha1kit verify-pack --help' for more information." ] && ok ||
		bad "verify-pack --threads=$n: exit $rc, stderr: ${l[*]}"
done
"$SK" verify-pack --help >"$S/out" && grep -q -- '--threads=N  *resolve deltas with N threads, N in 0\.\.1024$' "$S/out" &&
	grep -q '(default: one per online CPU; 0 means the same)' "$S/out" && ok || bad "verify-pack --help: no thread range"
for n in 1025 -1 x 99999999999999999999 ' 3' +3 '' 0x2 4294967295 3x; do
	rm -f "$S/tn.idx"
	"$SK" index-pack "--threads=$n" -o "$S/tn.idx" "$S/self.pack" >"$S/out" 2>"$S/err"
	rc=$?
	mapfile -t l <"$S/err"
	case $n in
	1025 | ' 3' | +3 | 0x2)
		[ $rc = 0 ] && same_file "$S/tn.idx" "$P/small.idx" && ok || bad "index-pack --threads=$n: exit $rc, stderr: ${l[*]}"
		;;
	*)
		[ $rc = 129 ] && [ "${#l[@]}" = 2 ] && [ ! -s "$S/out" ] && [ ! -e "$S/tn.idx" ] &&
			[ "${l[0]}" = "sha1kit: index-pack: invalid thread count '$n'" ] && ok ||
			bad "index-pack --threads=$n: exit $rc, stderr: ${l[*]}"
		;;
	esac
done
"$SK" index-pack --help >"$S/out" && grep -q -- 'it, 0x10 is 16; more than 1024 run as 1024' "$S/out" && ok ||
	bad "index-pack --help: no word on --threads above 1024"
fresh
cp "$P/small.idx" "$S/self.idx"
"$SK" index-pack --threads=1024 -o "$S/t1024.idx" "$S/self.pack" >/dev/null 2>"$S/err" && same_file "$S/t1024.idx" "$P/small.idx" &&
	"$SK" verify-pack --threads=1024 "$S/self.pack" 2>>"$S/err" && ok || bad "--threads=1024 (the maximum): $(<"$S/err")"
# A file that is not a pack: git's index-pack dies on it as it reads it, and so do both commands,
# with git's line (git's verify-pack runs index-pack; its exit status is 1).
: >"$S/empty.pack"
printf 'hello\n' >"$S/text.pack"
printf 'PACK\0\0\0\011\0\0\0\0' >"$S/version.pack"
for f in empty:'early EOF' text:'early EOF' version:'pack version 9 unsupported'; do
	want=${f#*:}
	f=${f%%:*}
	cp "$P/small.idx" "$S/$f.idx"
	(cd "$S" && "$SK" index-pack -o "$f.out.idx" "$f.pack" >/dev/null 2>err)
	rc=$?
	mapfile -t l <"$S/err"
	[ $rc = 128 ] && [ "${#l[@]}" = 1 ] && [ "${l[0]}" = "fatal: $want" ] &&
		[ ! -e "$S/$f.out.idx" ] && ok || bad "index-pack of the $f file: exit $rc, stderr: ${l[*]}"
	(cd "$S" && "$SK" verify-pack "$f.pack" >/dev/null 2>err)
	rc=$?
	mapfile -t l <"$S/err"
	[ $rc = 1 ] && [ "${#l[@]}" = 1 ] && [ "${l[0]}" = "fatal: $want" ] && ok ||
		bad "verify-pack of the $f file: exit $rc, stderr: ${l[*]}"
done

# --version, as the other commands.
for cmd in index-pack verify-pack; do
	"$SK" $cmd --version >"$S/out" 2>"$S/err" && [ "$(head -n1 "$S/out")" = "$(head -n1 <("$SK" hash-object --version))" ] &&
		[ ! -s "$S/err" ] && ok || bad "$cmd --version: $(<"$S/err")"
	# read whole (grep -q would stop reading at the match: a help text over one stdio buffer then
	# meets a closed pipe)
	help=$("$SK" $cmd --help) && [[ $help == *--version* ]] && ok || bad "$cmd --help does not list --version"
done
}

# ---------------------------------------------------------------------------------------------
# The reverse index (.rev): git's index-pack writes PACK.rev beside the idx with --rev-index (git
# 2.31+) or pack.writeReverseIndex, on by default since git 2.41 (a8dd7e05b1); sha1kit follows the
# current git. Each run is compared with the reference git run the same way (options and config):
# whether a .rev is written, its bytes, the idx, the checksum line; and with `git index-pack
# --rev-index` (which 2.39 understands too): sha1kit's .rev must be that file byte for byte. With
# git 2.39 as the reference the runs that rely on the default (no option, no config) differ on
# purpose (2.39 writes no .rev): there the .rev is compared with --rev-index's only.
# ---------------------------------------------------------------------------------------------
# rev_run DIR WHO ARGS...: index-pack (sha1kit or the reference git) with ARGS into DIR/x.idx, with
# the global config file DIR/../cfg (GIT_CONFIG_GLOBAL); stdout to DIR/out, stderr DIR/err, DIR/rc.
rev_run() {
	local dir=$1 who=$2
	shift 2
	rm -rf "$dir" && mkdir -p "$dir"
	if [ "$who" = git ]; then
		GIT_CONFIG_GLOBAL=$V/cfg refgit index-pack "$@" >"$dir/out" 2>"$dir/err"
	else
		GIT_CONFIG_GLOBAL=$V/cfg "$SK" index-pack "$@" >"$dir/out" 2>"$dir/err"
	fi
	echo $? >"$dir/rc"
}
# The files in DIR besides out, err, rc, as "NAME:MODE " (bash and stat only).
rev_files() {
	local f l= m=()
	mapfile -t m < <(cd "$1" && stat -c '%n:%a' -- * 2>/dev/null)
	for f in "${m[@]}"; do
		case ${f%:*} in out | err | rc) ;; *) l+="$f " ;; esac
	done
	echo "$l"
}
# rev_setup: $V, an empty config, $ref_default (does the reference write a .rev by default, as git
# 2.41+?), git's .rev of small.pack and ofs.pack ($V/small-want.rev, $V/ofs-want.rev)
rev_setup() {
need_data
# sha1kit as the current git (a .rev by default) whatever the reference; --git-version=2.39's own
# rule is checked in section rev
export SHA1KIT_GIT_VERSION=2.55
V=$T/rev
mkdir -p "$V"
: >"$V/cfg"
# Does the reference write a .rev by default (git 2.41+)?
rev_run "$V/probe" git -o "$V/probe/x.idx" "$P/small.pack"
ref_default=false
[ -e "$V/probe/x.rev" ] && ref_default=true
echo "reference writes a .rev by default: $ref_default"
# git's .rev of small.pack and ofs.pack ($V/small-want.rev, $V/ofs-want.rev)
refgit index-pack --rev-index -o "$V/small-want.idx" "$P/small.pack" >/dev/null 2>&1 &&
	refgit index-pack --rev-index -o "$V/ofs-want.idx" "$P/ofs.pack" >/dev/null 2>&1 || bad "rev: git --rev-index failed"
}
# rev_packs PACK...: each pack indexed with the options and config of each mode, by sha1kit and the
# reference; --verify with and without a .rev. $npacks: how many git indexes.
rev_packs() {
local pack name mode cfg args want n
npacks=0
for pack in "$@"; do
	name=${pack##*/}
	rev_run "$V/want" git --rev-index -o "$V/want/x.idx" "$pack"
	[ "$(<"$V/want/rc")" = 0 ] || continue # a pack git refuses (none of the valid ones)
	npacks=$((npacks + 1))
	n=$(stat -c %s "$V/want/x.rev")
	[ "$n" = $((12 + 4 * $(refgit show-index <"$V/want/x.idx" | wc -l) + 40)) ] && ok || bad "$name: git's .rev has $n bytes"
	# MODE: the option(s) and the config; want: whether a .rev is written (the current git's rules).
	# Every mode for a few packs, the default and --no-rev-index for the others (fast).
	local modes=(default:on no-rev-index:off)
	case $name in
	ofs.pack | small.pack | good-dup.pack | good-zero-objects.pack)
		modes+=(rev-index:on cfg-true:on cfg-false:off cfg-false+rev-index:on cfg-true+no-rev-index:off
			rev-index+no-rev-index:off v1:on)
		;;
	esac
	for mode in "${modes[@]}"; do
		want=${mode#*:}
		mode=${mode%:*}
		args=()
		cfg=
		case $mode in
		rev-index) args=(--rev-index) ;;
		no-rev-index) args=(--no-rev-index) ;;
		cfg-true) cfg=true ;;
		cfg-false) cfg=false ;;
		cfg-false+rev-index) cfg=false args=(--rev-index) ;;
		cfg-true+no-rev-index) cfg=true args=(--no-rev-index) ;;
		rev-index+no-rev-index) args=(--rev-index --no-rev-index) ;;
		v1) args=(--index-version=1) ;;
		esac
		if [ -n "$cfg" ]; then printf '[pack]\n\twriteReverseIndex = %s\n' "$cfg" >"$V/cfg"; else : >"$V/cfg"; fi
		rev_run "$V/sk" sk "${args[@]}" --threads=2 -o "$V/sk/x.idx" "$pack"
		rev_run "$V/git" git "${args[@]}" -o "$V/git/x.idx" "$pack"
		: >"$V/cfg"
		[ "$(<"$V/sk/rc")" = 0 ] && same_file "$V/sk/out" "$V/git/out" && same_file "$V/sk/x.idx" "$V/git/x.idx" && ok ||
			bad "$name $mode: exit $(<"$V/sk/rc"), or the idx or checksum line not git's: $(<"$V/sk/err")"
		if [ "$want" = on ]; then
			[ "$(rev_files "$V/sk")" = "x.idx:444 x.rev:444 " ] && same_file "$V/sk/x.rev" "$V/want/x.rev" && ok ||
				bad "$name $mode: not git --rev-index's .rev (files: $(rev_files "$V/sk"))"
		else
			[ "$(rev_files "$V/sk")" = "x.idx:444 " ] && ok || bad "$name $mode: files $(rev_files "$V/sk"), want no .rev"
		fi
		# as the reference run the same way (2.39: not where the default decides)
		if $ref_default || { [ "$mode" != default ] && [ "$mode" != v1 ]; }; then
			[ "$(rev_files "$V/sk")" = "$(rev_files "$V/git")" ] && { [ ! -e "$V/git/x.rev" ] || same_file "$V/sk/x.rev" "$V/git/x.rev"; } && ok ||
				bad "$name $mode: files $(rev_files "$V/sk"), the reference's $(rev_files "$V/git"), or the .rev differs"
		fi
	done
	# --verify checks the .rev beside the idx (on by default); a missing one is fine (not for a pack
	# --verify refuses anyway: an object twice)
	refgit index-pack --verify -o "$V/want/x.idx" "$pack" >/dev/null 2>&1 || continue
	cp "$pack" "$V/sk/p.pack"
	cp "$V/want/x.idx" "$V/sk/p.idx"
	"$SK" index-pack --verify "$V/sk/p.pack" 2>"$V/err" && ok || bad "$name: --verify without a .rev: $(<"$V/err")"
	cp "$V/want/x.rev" "$V/sk/p.rev"
	"$SK" index-pack --verify "$V/sk/p.pack" 2>"$V/err" && [ ! -s "$V/err" ] && ok || bad "$name: --verify with git's .rev: $(<"$V/err")"
done
}
# Every pack the section setup made (the fast section rev takes two of them).
section_rev_packs() { # long
rev_setup
rev_packs "$P"/*.pack
[ "$npacks" -ge 10 ] && ok || bad "rev: only $npacks packs indexed"
}
section_rev() {
rev_setup
rev_packs "$P/small.pack" "$P/good-dup.pack"
[ "$npacks" = 2 ] && ok || bad "rev: $npacks packs indexed, not 2"

# --git-version=2.39: as git 2.39, a .rev only when asked for (--rev-index, pack.writeReverseIndex);
# the same files as the reference run the same way where the reference is 2.39 (or the default
# is not what decides)
local m want args
for m in default:off rev-index:on cfg-true:on cfg-true+no-rev-index:off; do
	want=${m#*:} m=${m%:*}
	: >"$V/cfg"
	case $m in cfg-true*) printf '[pack]\n\twriteReverseIndex = true\n' >"$V/cfg" ;; esac
	case $m in *no-rev-index) args=(--no-rev-index) ;; rev-index) args=(--rev-index) ;; *) args=() ;; esac
	rev_run "$V/sk" sk --git-version=2.39 "${args[@]}" -o "$V/sk/x.idx" "$P/small.pack"
	rev_run "$V/git" git "${args[@]}" -o "$V/git/x.idx" "$P/small.pack"
	: >"$V/cfg"
	if [ "$want" = on ]; then
		[ "$(rev_files "$V/sk")" = "x.idx:444 x.rev:444 " ] && same_file "$V/sk/x.rev" "$V/small-want.rev" && ok ||
			bad "--git-version=2.39 $m: files $(rev_files "$V/sk"), want git's .rev"
	else
		[ "$(rev_files "$V/sk")" = "x.idx:444 " ] && ok || bad "--git-version=2.39 $m: files $(rev_files "$V/sk"), want no .rev"
	fi
	if ! $ref_default || [ "$m" != default ]; then
		[ "$(rev_files "$V/sk")" = "$(rev_files "$V/git")" ] && ok ||
			bad "--git-version=2.39 $m: files $(rev_files "$V/sk"), the reference's $(rev_files "$V/git")"
	fi
done

# --verify with a damaged .rev (a changed byte: a position, the pack checksum, the file checksum;
# one byte less, 21 less: into the positions; one more; a byte changed and the last one cut):
# git's line and exit status 128 (csum-file.c: "sha1 file '...' validation error", "...: sha1 file
# truncated", "...: sha1 file has trailing garbage", as git's pieces decide); --no-rev-index looks
# at it no more (git neither). Both with --rev-index (git 2.39 checks a .rev only then).
local size off rc ln grc
cp "$P/ofs.pack" "$V/v.pack"
cp "$P/ofs.idx" "$V/v.idx"
cp "$V/ofs-want.rev" "$V/good.rev"
size=$(stat -c %s "$V/good.rev")
for off in 8 $((size / 2)) $((size - 41)) $((size - 1)) short short21 long flipcut; do
	cp "$V/good.rev" "$V/v.rev.new" && chmod u+w "$V/v.rev.new"
	case $off in
	short) truncate -s $((size - 1)) "$V/v.rev.new" ;;
	short21) truncate -s $((size - 21)) "$V/v.rev.new" ;;
	long) printf 'x' >>"$V/v.rev.new" ;;
	flipcut) printf '\377' | dd of="$V/v.rev.new" bs=1 seek=12 conv=notrunc status=none && truncate -s $((size - 1)) "$V/v.rev.new" ;;
	*) printf '\377' | dd of="$V/v.rev.new" bs=1 seek="$off" conv=notrunc status=none ;;
	esac
	mv -f "$V/v.rev.new" "$V/v.rev"
	"$SK" index-pack --verify --rev-index "$V/v.pack" >"$V/out" 2>"$V/err"
	rc=$?
	refgit index-pack --verify --rev-index "$V/v.pack" >"$V/gout" 2>"$V/gerr"
	grc=$?
	[ $rc = 128 ] && [ "$grc" = 128 ] && same_file "$V/err" "$V/gerr" && same_file "$V/out" "$V/gout" && ok ||
		bad "rev: --verify with the .rev changed at $off: exit $rc (git $grc): $(<"$V/err") / git: $(<"$V/gerr")"
	"$SK" index-pack --verify --no-rev-index "$V/v.pack" 2>"$V/err" && refgit index-pack --verify --no-rev-index "$V/v.pack" 2>/dev/null &&
		ok || bad "rev: --verify --no-rev-index with the .rev changed at $off: $(<"$V/err")"
done
# a dangling symbolic link is no .rev (git stats it: ENOENT); a link to itself fails git's stat,
# a directory git's first read: git's lines
rm -f "$V/v.rev"
if [ -z "${SK_WINDOWS:-}" ]; then
	ln -s nowhere.rev "$V/v.rev"
	"$SK" index-pack --verify "$V/v.pack" 2>"$V/err" && ok || bad "rev: --verify with a dangling link as the .rev: $(<"$V/err")"
	rm -f "$V/v.rev"
	ln -s v.rev "$V/v.rev"
	"$SK" index-pack --verify --rev-index "$V/v.pack" 2>"$V/err"
	rc=$?
	refgit index-pack --verify --rev-index "$V/v.pack" 2>"$V/gerr"
	grc=$?
	[ $rc = 128 ] && [ $grc = 128 ] && same_file "$V/err" "$V/gerr" && ok ||
		bad "rev: --verify with a symbolic link loop as the .rev: exit $rc (git $grc): $(<"$V/err") / git: $(<"$V/gerr")"
	rm -f "$V/v.rev"
fi
mkdir "$V/v.rev"
"$SK" index-pack --verify --rev-index "$V/v.pack" 2>"$V/err"
rc=$?
refgit index-pack --verify --rev-index "$V/v.pack" 2>"$V/gerr"
grc=$?
[ $rc = 128 ] && [ $grc = 128 ] && same_file "$V/err" "$V/gerr" && ok ||
	bad "rev: --verify with a directory as the .rev: exit $rc (git $grc): $(<"$V/err") / git: $(<"$V/gerr")"
rmdir "$V/v.rev"

# An idx name that does not end in .idx: git derives the .rev's name from it and dies before it
# reads the pack (2.39 with --rev-index, 2.41+ by default); with --no-rev-index it is fine.
for args in "--rev-index" "--verify --rev-index" "" "--verify"; do
	[[ $args != *--rev-index ]] && ! $ref_default && continue
	rev_run "$V/sk" sk $args -o "$V/sk/x.foo" "$P/small.pack"
	rev_run "$V/git" git $args -o "$V/git/x.foo" "$P/small.pack"
	[ "$(<"$V/sk/rc")" = 128 ] && [ "$(<"$V/git/rc")" = 128 ] && [ -z "$(rev_files "$V/sk")" ] && [ ! -s "$V/sk/out" ] &&
		[ "$(sed "s|$V/git|$V/sk|" "$V/git/err")" = "$(<"$V/sk/err")" ] && ok ||
		bad "rev: -o x.foo $args: exit $(<"$V/sk/rc") (git $(<"$V/git/rc")): $(<"$V/sk/err") / git: $(<"$V/git/err")"
done
rev_run "$V/sk" sk --no-rev-index -o "$V/sk/x.foo" "$P/small.pack"
[ "$(<"$V/sk/rc")" = 0 ] && [ "$(rev_files "$V/sk")" = "x.foo:444 " ] && ok || bad "rev: --no-rev-index -o x.foo: $(<"$V/sk/err")"
# -o PACK itself, relative, with the reverse index on: refused as git refuses it, the pack intact
cp "$P/small.pack" "$V/self.pack"
(cd "$V" && "$SK" index-pack -o self.pack self.pack >/dev/null 2>"$V/err")
[ $? = 128 ] && same_file "$V/self.pack" "$P/small.pack" && [ "$(<"$V/err")" = "fatal: packfile name 'self.pack' does not end with '.idx'" ] &&
	ok || bad "rev: -o self.pack self.pack: $(<"$V/err")"
# A bad pack.writeReverseIndex: git's fatal line (2.39 and 2.55 alike), exit 128, nothing written.
printf '[pack]\n\twriteReverseIndex = maybe\n' >"$V/cfg"
rev_run "$V/sk" sk -o "$V/sk/x.idx" "$P/small.pack"
rev_run "$V/git" git -o "$V/git/x.idx" "$P/small.pack"
: >"$V/cfg"
[ "$(<"$V/sk/rc")" = 128 ] && [ "$(<"$V/git/rc")" = 128 ] && same_file "$V/sk/err" "$V/git/err" && [ -z "$(rev_files "$V/sk")" ] &&
	[ "$(<"$V/sk/err")" = "fatal: bad boolean config value 'maybe' for 'pack.writereverseindex'" ] && ok ||
	bad "rev: bad pack.writeReverseIndex: exit $(<"$V/sk/rc"): $(<"$V/sk/err") / git: $(<"$V/git/err")"

# The .rev's name taken by a symbolic link, a directory: refused as for the idx (git would replace
# the link), nothing written, the link kept.
if [ -z "${SK_WINDOWS:-}" ]; then
	rm -rf "$V/l" && mkdir "$V/l" && printf 'keep\n' >"$V/l/target" && ln -s target "$V/l/x.rev"
	"$SK" index-pack -o "$V/l/x.idx" "$P/small.pack" >"$V/out" 2>"$V/err"
	[ $? = 1 ] && [ -L "$V/l/x.rev" ] && [ "$(<"$V/l/target")" = keep ] && [ ! -e "$V/l/x.idx" ] && [ ! -s "$V/out" ] &&
		grep -q "x.rev is a symbolic link: not replaced" "$V/err" && [ "$(ls -A "$V/l" | wc -l)" = 2 ] && ok ||
		bad "rev: a symbolic link as the .rev: $(<"$V/err"); files: $(ls -A "$V/l" | tr '\n' ' ')"
fi
rm -rf "$V/l" && mkdir -p "$V/l/x.rev"
"$SK" index-pack -o "$V/l/x.idx" "$P/small.pack" >"$V/out" 2>"$V/err"
rc=$?
rm -rf "$V/lg" && mkdir -p "$V/lg/x.rev"
refgit index-pack -o "$V/lg/x.idx" "$P/small.pack" >/dev/null 2>"$V/gerr"
grc=$?
# git 2.41+ writes the .rev after the idx: "unable to create" it, 128, the idx left (sha1kit leaves
# nothing). 2.39 writes no .rev and succeeds: against it, the line 2.41+ prints is what is expected
if ! $ref_default; then
	grc=128
	printf "fatal: unable to create '%s': File exists\n" "$V/lg/x.rev" >"$V/gerr"
fi
[ $rc = 128 ] && [ $grc = 128 ] && [ -d "$V/l/x.rev" ] && [ ! -e "$V/l/x.idx" ] &&
	[ "$(sed "s|$V/lg/|$V/l/|" "$V/gerr")" = "$(<"$V/err")" ] &&
	[ "$(ls -A "$V/l" | wc -l)" = 1 ] && ok || bad "rev: a directory as the .rev: $rc $(<"$V/err") / git $grc $(<"$V/gerr")"
# An existing .rev (read-only, as git leaves it) is replaced
rm -rf "$V/l" && mkdir "$V/l" && printf 'old\n' >"$V/l/x.rev" && chmod 444 "$V/l/x.rev"
"$SK" index-pack -o "$V/l/x.idx" "$P/small.pack" >/dev/null 2>"$V/err" && same_file "$V/l/x.rev" "$V/small-want.rev" && ok ||
	bad "rev: an existing .rev was not replaced: $(<"$V/err")"

# --stdin in a repository (objects/pack/pack-CHECKSUM.rev, renamed after the pack, before the idx)
# and to a named pack: as git's --stdin with the reverse index; --no-rev-index and the repository's
# config turn it off.
local G S
for mode in default rev-index no-rev-index cfg-false named; do
	G=$V/g-$mode S=$V/s-$mode
	rm -rf "$G" "$S"
	git init -q --bare "$G" && git init -q --bare "$S" || { bad "rev: cannot make repositories"; continue; }
	args=()
	case $mode in
	rev-index) args=(--rev-index) ;;
	no-rev-index) args=(--no-rev-index) ;;
	cfg-false) git -C "$G" config pack.writeReverseIndex false && git -C "$S" config pack.writeReverseIndex false ;;
	esac
	if [ $mode = named ]; then
		(cd "$S" && "$SK" index-pack --stdin "$S/n.pack" <"$P/ofs.pack" >"$V/s.out" 2>"$V/err")
		(cd "$G" && refgit index-pack --rev-index --stdin "$G/n.pack" <"$P/ofs.pack" >"$V/g.out" 2>/dev/null)
		[ -e "$S/n.rev" ] && same_file "$S/n.rev" "$G/n.rev" && same_file "$S/n.idx" "$G/n.idx" && same_file "$V/s.out" "$V/g.out" && ok ||
			bad "rev: --stdin n.pack: no .rev or not git's: $(<"$V/err")"
		continue
	fi
	(cd "$S" && "$SK" index-pack "${args[@]}" --stdin <"$P/ofs.pack" >"$V/s.out" 2>"$V/err")
	(cd "$G" && refgit index-pack "${args[@]}" --stdin <"$P/ofs.pack" >"$V/g.out" 2>/dev/null)
	local sl gl
	sl=$(rev_files "$S/objects/pack")
	gl=$(rev_files "$G/objects/pack")
	same_file "$V/s.out" "$V/g.out" && ok || bad "rev: --stdin $mode: output $(<"$V/s.out") / git $(<"$V/g.out"): $(<"$V/err")"
	if [ $mode = default ] || [ $mode = rev-index ]; then
		[[ $sl == *.idx:444\ *.pack:444\ *.rev:444\  ]] && same_file "$S"/objects/pack/*.rev "$V/ofs-want.rev" && ok ||
			bad "rev: --stdin $mode: files $sl, or the .rev is not git's"
	else
		[[ $sl != *.rev* ]] && ok || bad "rev: --stdin $mode: a .rev was written: $sl"
	fi
	if $ref_default || [ $mode != default ]; then
		[ "$sl" = "$gl" ] && { [[ $gl != *.rev* ]] || same_file "$S"/objects/pack/*.rev "$G"/objects/pack/*.rev; } && ok ||
			bad "rev: --stdin $mode: files $sl, the reference's $gl"
	fi
done
# --stdin NAME not ending in .pack with -o not ending in .idx: git's fatal line before reading
(cd "$S" && "$SK" index-pack --stdin -o "$V/y.foo" "$V/y.pack" <"$P/ofs.pack" >/dev/null 2>"$V/err")
[ $? = 128 ] && [ "$(<"$V/err")" = "fatal: packfile name '$V/y.foo' does not end with '.idx'" ] && [ ! -e "$V/y.pack" ] && ok ||
	bad "rev: --stdin -o y.foo: $(<"$V/err")"
}

# ---------------------------------------------------------------------------------------------
# --verify (index-pack, and verify-pack which runs it in git) on an idx that git opens but that
# differs from the one the pack gives: git's "fatal: sha1 file 'NAME.idx' validation error",
# "fatal: NAME.idx: sha1 file truncated" or "... has trailing garbage", exit status 128 (verify-pack:
# 1, and "NAME.pack: bad" after -v's lines). Git compares its writes with the file 128 KiB at a time
# and then the checksum alone (csum-file.c); the first piece that differs, or that the file ends in,
# decides: a pack of 6000 objects has an idx over 128 KiB (216600 bytes with 2,1000: all but the first
# objects in the 64-bit table, so that a cut of up to 40 bytes still opens), whose pieces end at
# 131072, 216580 and 216600. verify-pack then checks NAME.rev as git's does (with the reverse index
# on: git 2.41+ by default, or pack.writeReverseIndex).
# ---------------------------------------------------------------------------------------------
section_verify_idx() {
local W=$T/vi w rc grc args case fl cut
mkdir -p "$W"
"$PY" - "$W/m.pack" <<'PYEOF' || { bad "verify_idx: cannot make the pack"; return; }
import hashlib, struct, sys, zlib
n = 6000
out = bytearray(b'PACK' + struct.pack('>II', 2, n))
for i in range(n):
    d = b'blob %d\n' % i
    size = len(d)
    h = [3 << 4 | size & 15]
    size >>= 4
    while size:
        h[-1] |= 0x80
        h.append(size & 0x7f)
        size >>= 7
    out += bytes(h) + zlib.compress(d)
out += hashlib.sha1(out).digest()
open(sys.argv[1], 'wb').write(out)
PYEOF
git index-pack --no-rev-index --index-version=2,1000 -o "$W/want.idx" "$W/m.pack" >/dev/null &&
	git index-pack --no-rev-index -o "$W/plain.idx" "$W/m.pack" >/dev/null || { bad "verify_idx: git index-pack"; return; }
w=$(stat -c %s "$W/want.idx")
[ "$w" = 216600 ] && ok || bad "verify_idx: the idx has $w bytes, not 216600"
# CASE: idx:bytes to flip (one each, a name or a CRC-32, comma-separated):cut to this many bytes (or +N
# bytes added)
for case in want:1100: want:1100:$((w - 25)) want:140000:$((w - 25)) want:140000: want:131071:$((w - 25)) \
	want:131072:$((w - 25)) want::$((w - 25)) want::$((w - 1)) want::$((w - 20)) want:$((w - 1)): want:1100:+2 \
	plain::+1 plain:169060: plain:150000:; do
	sk_share_case || continue # under Wine and ASan, one in SHA1KIT_CASE_SHARE (testlib.sh)
	IFS=: read -r idx fl cut <<<"$case"
	cp "$W/$idx.idx" "$W/m.idx" && chmod u+w "$W/m.idx"
	for off in ${fl//,/ }; do
		printf '\377' | dd of="$W/m.idx" bs=1 seek="$off" conv=notrunc status=none
	done
	case $cut in
	+*) head -c "${cut#+}" /dev/zero >>"$W/m.idx" ;;
	?*) truncate -s "$cut" "$W/m.idx" ;;
	esac
	for args in "index-pack --verify" "verify-pack" "verify-pack -v"; do
		(cd "$W" && "$SK" $args m.pack >sk.out 2>sk.err)
		rc=$?
		(cd "$W" && refgit $args m.pack >git.out 2>git.err)
		grc=$?
		[ $rc = $grc ] && same_file "$W/sk.err" "$W/git.err" && same_file "$W/sk.out" "$W/git.out" && ok ||
			bad "verify_idx $case, $args: exit $rc (git $grc): $(<"$W/sk.err") / git: $(<"$W/git.err")"
	done
	# not vacuous: git died in the compare
	grep -q "sha1 file\|offset beyond end" "$W/git.err" && ok || bad "verify_idx $case: git says $(<"$W/git.err")"
done
# verify-pack checks m.rev too, as git's (its index-pack --verify with the reverse index on:
# pack.writeReverseIndex, given here as GIT_CONFIG_COUNT's, both Gits reading it; false: not
# looked at; none: the Git's default, on since 2.41, off with 2.39 and --git-version=2.39): a
# changed byte, a cut, a byte more, a directory; and a bad value of the key
git index-pack --rev-index -o "$W/r.idx" "$W/m.pack" >/dev/null || { bad "verify_idx: git --rev-index"; return; }
cp "$W/r.idx" "$W/m.idx"
local what off cfg want count
for case in flip:100: cut:100: more:: dir:: same:: same::maybe flip:100:false flip:100:none; do
	sk_share_case || continue
	IFS=: read -r what off cfg <<<"$case"
	rm -rf "$W/m.rev"
	cp "$W/r.rev" "$W/m.rev" && chmod u+w "$W/m.rev"
	case $what in
	flip) printf '\377' | dd of="$W/m.rev" bs=1 seek="$off" conv=notrunc status=none ;;
	cut) truncate -s "$off" "$W/m.rev" ;;
	more) printf 'x' >>"$W/m.rev" ;;
	dir) rm -f "$W/m.rev" && mkdir "$W/m.rev" ;;
	esac
	count=1
	[ "$cfg" = none ] && count=0
	for args in "verify-pack" "verify-pack -v"; do
		(cd "$W" && GIT_CONFIG_COUNT=$count GIT_CONFIG_KEY_0=pack.writeReverseIndex GIT_CONFIG_VALUE_0=${cfg:-true} \
			"$SK" $args m.pack >sk.out 2>sk.err)
		rc=$?
		(cd "$W" && GIT_CONFIG_COUNT=$count GIT_CONFIG_KEY_0=pack.writeReverseIndex GIT_CONFIG_VALUE_0=${cfg:-true} \
			refgit $args m.pack >git.out 2>git.err)
		grc=$?
		[ $rc = $grc ] && same_file "$W/sk.err" "$W/git.err" && same_file "$W/sk.out" "$W/git.out" && ok ||
			bad "verify_idx .rev $case, $args: exit $rc (git $grc): $(<"$W/sk.err") / git: $(<"$W/git.err")"
	done
	# not vacuous: git found the .rev (or the config) bad, but where it was not to look
	want=1
	if [ "$cfg" = false ] || { [ "$what" = same ] && [ -z "$cfg" ]; }; then want=0; fi
	if [ "$cfg" = none ] && [ "$SHA1KIT_GIT_VERSION" = 2.39 ]; then want=0; fi
	[ "$grc" = $want ] && ok || bad "verify_idx .rev $case: git's exit status $grc, not $want"
done
rm -rf "$W/m.rev"
}

# ---------------------------------------------------------------------------------------------
# Where git's index-pack dies after its first pass (builtin/index-pack.c: resolve_delta and
# get_base_data, "pack has bad object at offset N: failed to apply delta" after patch_delta's
# "error: delta replay has gone wild" or "error: unexpected delta opcode 0"; get_delta_hdr_size's
# "size_t overflow"; conclude_pack, "pack has N unresolved deltas"): the hand-made packs of
# mkpacks.py with a delta that does not apply or deltas left unresolved (index-pack -o is compared
# with git on them in the sections broken_*), here through verify-pack (git's runs index-pack
# --verify: its lines, exit 1, "NAME.pack: bad" after -v; the idx of another pack beside it, which
# git opens and never gets to compare) and index-pack --stdin in a repository (git's lines, 128;
# git leaves its tmp_pack_*, sha1kit nothing).
# ---------------------------------------------------------------------------------------------
# stdin_both SREPO GREPO PACK: fresh bare repositories SREPO and GREPO, and `index-pack --stdin <PACK`
# in each, sha1kit's in SREPO (exit status in the caller's rc, output in $W/sk.out, $W/sk.err) and
# the reference git's in GREPO (grc, $W/git.out, $W/git.err); false when a repository cannot be made.
stdin_both() {
	rm -rf "$1" "$2"
	git init -q --bare "$1" && git init -q --bare "$2" || return 1
	(cd "$1" && "$SK" index-pack --stdin <"$3" >"$W/sk.out" 2>"$W/sk.err")
	rc=$?
	(cd "$2" && refgit index-pack --stdin <"$3" >"$W/git.out" 2>"$W/git.err")
	grc=$?
	return 0
}
section_deltas() {
need_data
local W=$T/deltas pack name args rc grc
mkdir -p "$W"
for pack in "$D"/made/bad-delta-*.pack "$D"/made/bad-ofs-not-object*.pack "$D"/made/bad-ref-*.pack \
	"$D"/made/bad-ofs-chain-missing.pack "$P/thin.pack"; do
	name=${pack##*/}
	name=${name%.pack}
	sk_share_case || continue
	cp "$pack" "$W/v.pack"
	cp "$P/small.idx" "$W/v.idx"
	for args in "verify-pack" "verify-pack -v"; do
		(cd "$W" && "$SK" $args v.pack >sk.out 2>sk.err)
		rc=$?
		(cd "$W" && refgit $args v.pack >git.out 2>git.err)
		grc=$?
		[ $rc = 1 ] && [ $grc = 1 ] && same_file "$W/sk.err" "$W/git.err" && same_file "$W/sk.out" "$W/git.out" &&
			grep -q "failed to apply delta\|unresolved delta\|size_t overflow" "$W/git.err" && ok ||
			bad "deltas $name: $args: exit $rc (git $grc): $(<"$W/sk.err") / git: $(<"$W/git.err")"
	done
	stdin_both "$W/s" "$W/g" "$pack" || { bad "deltas: cannot make repositories"; return; }
	[ $rc = 128 ] && [ $grc = 128 ] && same_file "$W/sk.err" "$W/git.err" && [ ! -s "$W/sk.out" ] &&
		[ -z "$(ls -A "$W/s/objects/pack")" ] && ok ||
		bad "deltas $name: --stdin: exit $rc (git $grc): $(<"$W/sk.err") / git: $(<"$W/git.err"); left: $(ls -A "$W/s/objects/pack")"
done
# --stdin --fix-thin (pack_thin.c): a REF_DELTA on a blob of the repository that does not apply
# (a copy past the result, then opcode 0: git's replay goes wild first), one on it that does and an
# OFS_DELTA whose base offset is no entry (1 unresolved delta)
"$PY" - "$HERE" "$W" <<'PYEOF' || { bad "deltas: cannot make the thin packs"; return; }
import sys
sys.path.insert(0, sys.argv[1])
import mkpacks as m
w = sys.argv[2]
base = b"hello, world\n" * 5
bid = m.oid(m.OBJ_BLOB, base)
open(w + "/blob", "wb").write(base)
other = {"type": m.OBJ_BLOB, "data": b"other\n"}
ok = m.delta(len(base), 5, m.copy_op(0, 5))
packs = {
    "wild": [other, {"type": m.OBJ_REF, "ref": bid, "data": m.delta(len(base), 5, m.copy_op(0, 10) + b"\0")}],
    "unresolved": [other, {"type": m.OBJ_REF, "ref": bid, "data": ok}, {"type": m.OBJ_OFS, "rel": 3, "data": ok}],
}
for name, entries in packs.items():
    open("%s/thin-%s.pack" % (w, name), "wb").write(m.build(entries))
PYEOF
for name in wild unresolved; do
	rm -rf "$W/s" "$W/g"
	git init -q --bare "$W/s" && git init -q --bare "$W/g" && git -C "$W/s" hash-object -w "$W/blob" >/dev/null &&
		git -C "$W/g" hash-object -w "$W/blob" >/dev/null || { bad "deltas: cannot make repositories"; return; }
	(cd "$W/s" && "$SK" index-pack --stdin --fix-thin <"$W/thin-$name.pack" >"$W/sk.out" 2>"$W/sk.err")
	rc=$?
	(cd "$W/g" && refgit index-pack --stdin --fix-thin <"$W/thin-$name.pack" >"$W/git.out" 2>"$W/git.err")
	grc=$?
	[ $rc = 128 ] && [ $grc = 128 ] && same_file "$W/sk.err" "$W/git.err" && [ ! -s "$W/sk.out" ] &&
		[ -z "$(ls -A "$W/s/objects/pack")" ] && ok ||
		bad "deltas --fix-thin $name: exit $rc (git $grc): $(<"$W/sk.err") / git: $(<"$W/git.err")"
done
}

# A delta size field (the base and result sizes at the start of the delta data) of more than 10
# bytes: git reads every byte with bit 7 set, and past a shift of 64 (not checked by its
# st_left_shift) x86-64 shifts by the count modulo 64, so zero bytes there change nothing and git
# takes the pack; an 11th byte of 1 makes the result 64 bytes larger (git's replay goes wild). The
# packs (a blob and an OFS_DELTA on it) through index-pack -o, --stdin, verify-pack -v and fsck.
section_longsize() {
local W=$T/longsize name rc grc a
mkdir -p "$W"
"$PY" - "$HERE" "$W" <<'PYEOF' || { bad "longsize: cannot make the packs"; return; }
import sys
sys.path.insert(0, sys.argv[1])
import mkpacks as m
w = sys.argv[2]
base = b"hello, world\n" * 5
def long(n, extra):
    v = bytearray(m.varint(n))
    v[-1] |= 0x80
    return bytes(v) + b"\x80" * extra + b"\x00"
packs = {
    "base11": long(len(base), 9) + m.varint(5) + m.copy_op(0, 5),
    "base21": long(len(base), 19) + m.varint(5) + m.copy_op(0, 5),
    "result11": m.varint(len(base)) + long(5, 9) + m.copy_op(0, 5),
    "result13": m.varint(len(base)) + long(5, 11) + m.copy_op(0, 5),
    "both30": long(len(base), 28) + long(5, 28) + m.copy_op(0, 5),
    "result-bit70": m.varint(len(base)) + bytes([0x85] + [0x80] * 9 + [0x01]) + m.copy_op(0, 5),
}
for name, d in packs.items():
    e = [{"type": m.OBJ_BLOB, "data": base}, {"type": m.OBJ_OFS, "ofs": 0, "data": d}]
    open("%s/%s.pack" % (w, name), "wb").write(m.build(e))
PYEOF
for name in base11 base21 result11 result13 both30 result-bit70; do
	# index-pack -o: the idx byte for byte, stdout, stderr, exit status
	rm -rf "$W/s" "$W/g"
	mkdir -p "$W/s" "$W/g"
	cp "$W/$name.pack" "$W/s/v.pack"
	cp "$W/$name.pack" "$W/g/v.pack"
	(cd "$W/s" && "$SK" index-pack -o v.idx v.pack >sk.out 2>sk.err)
	rc=$?
	(cd "$W/g" && refgit index-pack -o v.idx v.pack >git.out 2>git.err)
	grc=$?
	if [ $rc = $grc ] && same_file "$W/s/sk.out" "$W/g/git.out" && same_file "$W/s/sk.err" "$W/g/git.err" &&
		{ [ $grc != 0 ] || same_file "$W/s/v.idx" "$W/g/v.idx"; }; then
		ok
	else
		bad "longsize $name: index-pack -o: exit $rc (git $grc): $(head -c 300 "$W/s/sk.err") / git: $(head -c 300 "$W/g/git.err")"
	fi
	# verify-pack -v with git's idx (or none when git refused the pack)
	for a in "verify-pack -v" verify-pack; do
		[ -e "$W/g/v.idx" ] && cp "$W/g/v.idx" "$W/s/v.idx"
		# shellcheck disable=SC2086 # a: the command and its option
		(cd "$W/s" && "$SK" $a v.pack >sk.out 2>sk.err)
		rc=$?
		# shellcheck disable=SC2086
		(cd "$W/g" && refgit $a v.pack >git.out 2>git.err)
		grc=$?
		[ $rc = $grc ] && same_file "$W/s/sk.out" "$W/g/git.out" && same_file "$W/s/sk.err" "$W/g/git.err" && ok ||
			bad "longsize $name: $a: exit $rc (git $grc): $(head -c 300 "$W/s/sk.err") / git: $(head -c 300 "$W/g/git.err")"
	done
	# index-pack --stdin into a repository, then fsck there
	stdin_both "$W/rs" "$W/rg" "$W/$name.pack" || { bad "longsize: cannot make repositories"; return; }
	[ $rc = $grc ] && same_file "$W/sk.out" "$W/git.out" && same_file "$W/sk.err" "$W/git.err" && ok ||
		bad "longsize $name: index-pack --stdin: exit $rc (git $grc): $(head -c 300 "$W/sk.err") / git: $(head -c 300 "$W/git.err")"
	[ $grc = 0 ] || continue
	# fsck on git's pack in both repositories (no refs: the objects dangle)
	rm -rf "$W/rs/objects/pack"
	cp -r "$W/rg/objects/pack" "$W/rs/objects/pack"
	(cd "$W/rs" && "$SK" fsck >"$W/sk.out" 2>"$W/sk.err")
	rc=$?
	(cd "$W/rg" && refgit fsck >"$W/git.out" 2>"$W/git.err")
	grc=$?
	[ $rc = $grc ] && same_file "$W/sk.out" "$W/git.out" && same_file "$W/sk.err" "$W/git.err" && ok ||
		bad "longsize $name: fsck: exit $rc (git $grc): $(head -c 300 "$W/sk.err") / git: $(head -c 300 "$W/git.err")"
done
}

# ---------------------------------------------------------------------------------------------
# Broken packs
# ---------------------------------------------------------------------------------------------
# broken PART/PARTS: the packs of mkpacks.py that are broken, every PARTS-th from the PART-th
# (1-based), in the sections broken_1 ... (ctest runs them side by side).
broken() {
local part=${1%/*} parts=${1#*/} k=0
need_data
B=$T/broken
mkdir -p "$B"
shopt -s nullglob
# Files in $B besides err: an idx or a temporary file left behind (bash only: no fork per case).
leftovers() {
	local f out=()
	for f in "$B"/* "$B"/.[!.]*; do
		[ "$f" = "$B/err" ] || out+=("$(basename "$f")")
	done
	echo "${out[*]}"
}
declare -A expect
while IFS=$'\t' read -r k v; do
	[ -n "$k" ] && expect[$k]=$v
done <"$D/made/expect.txt"
nbad=0
for pack in "$D"/made/bad-*.pack; do
	k=$((k + 1))
	[ $(((k - part) % parts)) = 0 ] || continue
	sk_share_case || continue # under Wine and ASan, one in SHA1KIT_CASE_SHARE (testlib.sh)
	name=${pack##*/}
	name=${name%.pack}
	nbad=$((nbad + 1))
	# By its relative name, which the message must give.
	(cd "$D/made" && exec "$SK" index-pack --rev-index -o "$B/out.idx" "$name.pack" >/dev/null 2>"$B/err")
	rc=$?
	mapfile -t errl <"$B/err"
	left=$(leftovers)
	msg=${expect[$name]:-}
	# git's index-pack on the same pack: where it dies (its first pass: git's bad_object, fill,
	# parse_pack_header, the trailer; then a delta that does not apply, deltas left unresolved),
	# sha1kit gives its lines and status
	(cd "$D/made" && refgit index-pack -o "$T/git-broken.idx" "$name.pack" >/dev/null 2>"$T/git-broken.err")
	grc=$?
	rm -f "$T/git-broken.idx" "$T/git-broken.rev"
	mapfile -t gerrl <"$T/git-broken.err"
	if [ "$grc" = 128 ] || [ "$rc" = 128 ]; then
		if [ "$rc" = "$grc" ] && [ -z "$left" ] && same_file "$T/git-broken.err" "$B/err"; then
			ok
		else
			bad "$name: git index-pack exits $grc (${gerrl[*]}), sha1kit $rc (${errl[*]})${left:+, left $left}"
		fi
	elif [ "$rc" -lt 1 ] || [ "$rc" -ge 128 ]; then
		bad "$name: exit status $rc (want 1..127): ${errl[*]}"
	elif [ -n "$left" ]; then
		bad "$name: left files behind: $left"
	elif [ "${#errl[@]}" != 1 ] || [[ ${errl[0]} != "sha1kit: index-pack: $name.pack: "* ]]; then
		bad "$name: not one 'sha1kit: index-pack: $name.pack: ' line: ${errl[*]}"
	elif [ -n "$msg" ] && [[ ${errl[0]} != *"$msg"* ]]; then
		bad "$name: message '${errl[0]}' lacks '$msg'"
	else
		ok
	fi
	rm -f "$B"/out.idx* "$B/out.rev"
done
# Byte flips with a valid trailer: no crash; agreement with git when both accept.
nfix=0
nacc=0
for pack in "$D"/made/fix-*.pack; do
	k=$((k + 1))
	[ $(((k - part) % parts)) = 0 ] || continue
	sk_share_case || continue
	name=${pack##*/}
	nfix=$((nfix + 1))
	"$SK" index-pack --rev-index --threads=2 -o "$B/out.idx" "$pack" >/dev/null 2>"$B/err"
	rc=$?
	if [ "$rc" -gt 128 ]; then
		bad "$name: exit status $rc: $(<"$B/err")"
	elif [ "$rc" = 128 ]; then
		# git dies on this pack (its first pass, or a delta that does not apply, deltas left
		# unresolved): git's lines, nothing left. Where git's allocation of the result a flipped
		# delta header announces fails ("Out of memory, malloc failed", as the machine's memory
		# allows), git's words cannot be told: sha1kit says what git says where it gets the memory,
		# its delta that does not apply (patch_delta's line, if any, then index-pack's fatal one).
		refgit index-pack -o "$T/git-broken.idx" "$pack" >/dev/null 2>"$T/git-broken.err"
		grc=$?
		rm -f "$T/git-broken.idx" "$T/git-broken.rev"
		if [ "$grc" = 128 ] && [[ $(<"$T/git-broken.err") == 'fatal: Out of memory, malloc failed'* ]]; then
			mapfile -t errl <"$B/err"
			[ "${#errl[@]}" -le 2 ] && [[ ${errl[-1]} =~ ^fatal:\ pack\ has\ bad\ object\ at\ offset\ [0-9]+:\ failed\ to\ apply\ delta$ ]] &&
				{ [ "${#errl[@]}" = 1 ] || [[ ${errl[0]} =~ ^error:\ (delta\ replay\ has\ gone\ wild|unexpected\ delta\ opcode\ 0)$ ]]; } &&
				[ -z "$(leftovers)" ] && ok ||
				bad "$name: git runs out of memory, sha1kit 128 without a delta that does not apply: $(<"$B/err")"
		else
			[ "$grc" = 128 ] && same_file "$T/git-broken.err" "$B/err" && [ -z "$(leftovers)" ] && ok ||
				bad "$name: git index-pack exits $grc ($(<"$T/git-broken.err")), sha1kit 128 ($(<"$B/err"))"
		fi
	elif [ "$rc" != 0 ]; then
		# sha1kit's own line: where git does not die (a pack sha1kit refuses and git takes or
		# refuses without its fatal lines)
		refgit index-pack -o "$T/git-broken.idx" "$pack" >/dev/null 2>"$T/git-broken.err"
		grc=$?
		rm -f "$T/git-broken.idx" "$T/git-broken.rev"
		left=$(leftovers)
		[ "$grc" != 128 ] && [ -z "$left" ] && ok ||
			bad "$name: sha1kit exits $rc ($(<"$B/err")), git $grc ($(<"$T/git-broken.err"))${left:+, left $left}"
	else
		nacc=$((nacc + 1))
		# sha1kit writes out.rev (--rev-index: as git 2.41+ by default); git's with --rev-index (2.39 too)
		if refgit index-pack --rev-index -o "$B/git.idx" "$pack" >/dev/null 2>&1; then
			same_file "$B/git.idx" "$B/out.idx" && same_file "$B/git.rev" "$B/out.rev" && ok ||
				bad "$name: accepted by both, idx or .rev differs"
		else
			ok # git is stricter here (e.g. it checks more object syntax): not a crash
		fi
	fi
	rm -f "$B"/out.idx* "$B/out.rev" "$B/git.idx" "$B/git.rev"
done
echo "broken packs (part $1): $nbad rejected as required; $nfix flipped packs with a valid trailer ($nacc of them still valid)"
}
section_broken_1() {
broken 1/3
}
section_broken_2() { # long
broken 2/3
}
section_broken_3() { # long
broken 3/3
}

# ---------------------------------------------------------------------------------------------
# A file truncated by another process while it is read (git: "fatal: early EOF"). Reading a page of
# the mapping past the new end raises SIGBUS: sha1kit must not die of it. Each try starts the
# command, waits until the file is mapped (/proc/PID/maps), then truncates it: to 0 bytes (a shell
# redirection, no fork: the earliest), to half its size, or to half plus 100 bytes (not a page
# boundary: the last page then reads as zeros, found by the trailer check or a short pread). Every
# run must either succeed with the right idx (it had read everything) or fail with exactly
# "sha1kit: CMD: NAME: the file shrank while it was read", exit 1, and no idx or temporary file;
# the failure must come at least once per case within the tries.
# ---------------------------------------------------------------------------------------------
section_shrink() {
Z=$T/shrink
mkdir -p "$Z/repo"
(
	cd "$Z/repo" && git init -q . &&
		for i in $(seq 1 64); do head -c 131072 /dev/urandom >"r$i.bin"; done &&
		git add . && git commit -qm random && git repack -adq
) || bad "could not make the pack of random blobs"
cp "$Z"/repo/.git/objects/pack/pack-*.pack "$Z/big.pack"
cp "$Z"/repo/.git/objects/pack/pack-*.idx "$Z/big.idx"
big=$(stat -c %s "$Z/big.pack")
idxsize=$(stat -c %s "$Z/big.idx")
# git.rev: the reverse index, which sha1kit writes by default as git 2.41+ (--rev-index for 2.39)
sum=$(refgit index-pack --rev-index -o "$Z/git.idx" "$Z/big.pack") && same_file "$Z/git.idx" "$Z/big.idx" || bad "git index-pack of big.pack"
Zp=$(cd "$Z" && pwd -P) # as /proc/PID/maps names it
# Wait until process $1 has $Z/$2 mapped; false if it ended first.
wait_mapped() {
	local line k st
	for ((k = 0; k < 200000; k++)); do
		[ -r "/proc/$1/maps" ] || return 1
		while IFS= read -r line; do
			[[ $line == *" $Zp/$2" ]] && return 0
		done <"/proc/$1/maps"
		# A zombie (it has exited) has an empty map: stop there.
		read -r _ _ st _ <"/proc/$1/stat" 2>/dev/null || return 1
		[ "$st" = Z ] && return 1
	done
	return 1
}
# shrink_case LABEL FILE CMD ARG...: run `sha1kit CMD ARG...` in $Z and truncate FILE (p2.pack or
# p2.idx) once it is mapped; CMD index-pack without --verify writes p2.idx, the others read it.
shrink_case() {
	local label=$1 victim=$2 try hits=0 done_ok=0 rc pid want full left f writes=false
	shift 2
	want="sha1kit: $1: $victim: the file shrank while it was read"
	[ "$1" = index-pack ] && [[ " $* " != *" --verify "* ]] && writes=true
	full=$big
	[ "$victim" = p2.idx ] && full=$idxsize
	for ((try = 0; try < 60 && hits < 3; try++)); do
		rm -f "$Z"/p2.*
		cp "$Z/big.pack" "$Z/p2.pack"
		$writes || cp "$Z/big.idx" "$Z/p2.idx"
		(cd "$Z" && exec "$SK" "$@" >"$Z/out" 2>"$Z/err") &
		pid=$!
		if wait_mapped $pid "$victim"; then
			case $((try % 3)) in
			0) : >"$Z/$victim" ;;
			1) truncate -s $((full / 2 / 4096 * 4096)) "$Z/$victim" ;;
			2) truncate -s $((full / 2 / 4096 * 4096 + 100)) "$Z/$victim" ;;
			esac
		fi
		wait $pid
		rc=$?
		mapfile -t l <"$Z/err"
		# What is in $Z besides the inputs: an idx or a temporary file left behind.
		left=
		for f in "$Z"/* "$Z"/.[!.]*; do
			[ -e "$f" ] || continue
			case ${f##*/} in
			repo | big.pack | big.idx | git.idx | git.rev | out | err | p2.pack) ;;
			p2.idx | p2.rev) ! $writes || left+="${f##*/} " ;;
			*) left+="${f##*/} " ;;
			esac
		done
		if [ $rc = 1 ] && [ "${#l[@]}" = 1 ] && [ "${l[0]}" = "$want" ] && [ ! -s "$Z/out" ]; then
			hits=$((hits + 1))
			[ -z "$left" ] && ok || bad "$label: the file shrank, but files were left: $left"
		elif [ $rc = 0 ] && [ ! -s "$Z/err" ]; then
			done_ok=$((done_ok + 1))
			if $writes; then
				same_file "$Z/p2.idx" "$Z/big.idx" && same_file "$Z/p2.rev" "$Z/git.rev" && [ "$(<"$Z/out")" = "$sum" ] &&
					[ "$left" = "p2.idx p2.rev " ] && ok ||
					bad "$label: success, but not git's idx, .rev and checksum line, or other files: $left"
			else
				[ ! -s "$Z/out" ] && [ -z "$left" ] && ok || bad "$label: success, but output or files: $(head -c 200 "$Z/out") $left"
			fi
		else
			bad "$label (truncation $((try % 3))): exit $rc, want 1 and '$want' (or 0): ${l[*]}"
		fi
	done
	[ $hits -ge 1 ] && ok || bad "$label: the shrinking $victim was never caught in $try tries"
	echo "shrinking $victim under 'sha1kit $*': $hits failures as required, $done_ok runs done first, $try tries"
}
shrink_case index p2.pack index-pack --threads=1 -o p2.idx p2.pack
shrink_case index2 p2.pack index-pack --threads=2 -o p2.idx p2.pack
shrink_case verifypack p2.pack verify-pack p2.pack
shrink_case verify-idx p2.idx index-pack --verify p2.pack
shrink_case verifypack-idx p2.idx verify-pack p2.idx
}

# ---------------------------------------------------------------------------------------------
# Inside a repository, every object of the pack that the repository already has is compared with
# the stored copy (git's sha1_object, with or without --strict): a stored copy of the same ID with
# another content, type or size (loose, packed, in an alternate; a whole object or a delta), one
# that does not read, one that is the same; -o, --stdin, --stdin PACK, --strict; and outside a
# repository. sha1kit's stdout, stderr, exit status and files must be git's, but for the part of
# the pack git leaves when it dies with --stdin (sha1kit leaves nothing: checked as such).
# ---------------------------------------------------------------------------------------------
# index-pack --strict (and --check-self-contained-and-connected) of a shallow clone's pack in
# that clone: git's commit parsing gives a shallow commit no parents (and a grafted commit its
# graft's), so the parents the pack lacks are not expected (found by a new user's trial). Also with
# info/grafts (git's deprecation hint first), and a commit whose parent is missing and that is not
# shallow (still "did not receive expected object"). Stdout, stderr and exit status as git's.
section_shallow() {
local W=$T/shallow pack c args
mkdir -p "$W"
git init -q "$W/src"
for c in 1 2 3 4; do
	(cd "$W/src" && echo $c >$c && git add $c && git commit -qm $c) || bad "shallow: commit"
done
git clone -q --depth=2 "file://$W/src" "$W/sh" 2>/dev/null || bad "shallow: clone"
pack=$(ls "$W"/sh/.git/objects/pack/*.pack)
cp "$pack" "$W/sh.pack"
# shallow_same NAME STATUS PACK ARG...: `index-pack ARG...` of both in the clone, standard input
# from PACK (none: "-"), the status both must give, stdout and stderr as git's
shallow_same() {
	local name=$1 want=$2 in=$3 rc grc
	shift 3
	[ "$in" = - ] && in=/dev/null
	(cd "$W/sh" && "$SK" index-pack "$@" <"$in" >"$W/sk.out" 2>"$W/sk.err")
	rc=$?
	(cd "$W/sh" && refgit index-pack "$@" <"$in" >"$W/git.out" 2>"$W/git.err")
	grc=$?
	if [ $rc = "$want" ] && [ $grc = "$want" ] && cmp -s "$W/sk.out" "$W/git.out" && cmp -s "$W/sk.err" "$W/git.err"; then
		ok
	else
		bad "$name, index-pack $*: git $grc, sha1kit $rc (both should give $want)"
		diff "$W/git.err" "$W/sk.err" | head -5
	fi
}
for args in "--strict" "--check-self-contained-and-connected"; do
	shallow_same "shallow clone" 0 "$W/sh.pack" $args --stdin
done
shallow_same "shallow clone" 0 - --verify --strict "$pack"
# the shallow file gone: the cut parents are expected again (git's fatal line, 128)
mv "$W/sh/.git/shallow" "$W/shallow.saved"
shallow_same "clone without its shallow file" 128 "$W/sh.pack" --strict --stdin
# the boundary cut by info/grafts instead (a graft with no parents): git's deprecation hint first
cut -c1-40 "$W/shallow.saved" >"$W/sh/.git/info/grafts"
shallow_same "info/grafts" 0 "$W/sh.pack" --strict --stdin
# a pack without a commit: git parses none, so it reads no grafts and gives no hint
printf '%s\n' "$(cd "$W/sh" && git rev-parse HEAD:1)" | (cd "$W/sh" && git pack-objects -q --stdout) >"$W/blob.pack"
shallow_same "info/grafts, a pack without a commit" 0 "$W/blob.pack" --strict --stdin
# the graft file's error lines come with its hint, once, at the first commit parsed; a bad shallow
# line is git's death there
echo "not a graft" >>"$W/sh/.git/info/grafts"
shallow_same "a bad line in info/grafts" 0 "$W/sh.pack" --strict --stdin
echo "not an ID" >"$W/sh/.git/shallow"
shallow_same "a bad line in shallow" 128 "$W/sh.pack" --strict --stdin
}

section_collision() { # leaks
local C=$T/coll
local W=$C/w X Y B1 B2 D
mkdir -p "$W"
export GIT_CEILING_DIRECTORIES=$C
git init -q --bare "$C/src.git"
printf 'xxxx\n' >"$C/x"
printf 'aaaa\n' >"$C/y"
printf 'xxxxx\n' >"$C/x6"
X=$(git --git-dir="$C/src.git" hash-object -w "$C/x")
Y=$(git --git-dir="$C/src.git" hash-object -w "$C/y")
awk 'BEGIN { for (i = 0; i < 200; i++) printf "line %d of a blob that the next one changes a little\n", i }' >"$C/b1"
sed 's/^line 77 /LINE 77 /' "$C/b1" >"$C/b2"
B1=$(git --git-dir="$C/src.git" hash-object -w "$C/b1")
B2=$(git --git-dir="$C/src.git" hash-object -w "$C/b2")
printf '%s\n' "$X" | git --git-dir="$C/src.git" pack-objects -q --stdout >"$C/x.pack"
printf '%s\n%s\n' "$B1" "$B2" | git --git-dir="$C/src.git" pack-objects -q --stdout --window=10 >"$C/d.pack"
# D: the object d.pack stores as a delta (verify-pack -v: "ID blob SIZE SIZE OFFSET DEPTH BASE")
git index-pack -o "$C/d.idx" "$C/d.pack" >/dev/null
D=$(git verify-pack -v "$C/d.idx" | awk 'NF == 7 && $2 == "blob" { print $1 }')
[ "$D" = "$B1" ] || [ "$D" = "$B2" ] && ok || bad "collision: d.pack has no delta ($D)"
local dfile=$C/b1
[ "$D" = "$B2" ] && dfile=$C/b2
sed 's/^line 3 /LINE 3 /' "$dfile" >"$C/dother" # D's size, other content
# forge REPO ID TYPE FILE MODE: the loose file of ID in REPO's objects (a directory), holding
# FILE's content as TYPE: a good zlib stream (good), bytes that are no zlib stream (garbage), or
# a stream whose end is overwritten (badcheck). Written by one Python run below (a start of
# Python costs most of a second on a busy machine).
forge() {
	echo "$1/${2:0:2}/${2:2} $3 $4 $5" >>"$C/forge.txt"
}
local r
for r in other type size same packsame packother dother dsame garbage badcheck alt altsrc two altbad; do
	git init -q --bare "$C/$r.git"
done
forge "$C/other.git/objects" "$X" blob "$C/y" good
forge "$C/type.git/objects" "$X" tree "$C/x" good
forge "$C/size.git/objects" "$X" blob "$C/x6" good
forge "$C/same.git/objects" "$X" blob "$C/x" good
forge "$C/dother.git/objects" "$D" blob "$C/dother" good
forge "$C/dsame.git/objects" "$B1" blob "$C/b1" good
forge "$C/dsame.git/objects" "$B2" blob "$C/b2" good
forge "$C/garbage.git/objects" "$X" blob "$C/x" garbage
forge "$C/badcheck.git/objects" "$D" blob "$dfile" badcheck
forge "$C/altsrc.git/objects" "$X" blob "$C/y" good
echo "$C/altsrc.git/objects" >"$C/alt.git/objects/info/alternates"
echo "$C/nowhere/objects" >"$C/altbad.git/objects/info/alternates"
printf '%s\n' "$X" | git --git-dir="$C/src.git" pack-objects -q "$C/packsame.git/objects/pack/pack" >/dev/null
# packother: a pack of Y whose idx names it X (one object: the fan-out and the checksum redone)
printf '%s\n' "$Y" | git --git-dir="$C/src.git" pack-objects -q "$C/packother.git/objects/pack/pack" >/dev/null
forge "$C/two.git/objects" "$X" blob "$C/y" good
# Also: xz.pack, X then a blob Z of 300000 bytes (more than sha1kit hashes in a batch), both stored
# with another content in two.git; xbad.pack, X then an entry that does not inflate.
"$PY" - "$C/forge.txt" "$C"/packother.git/objects/pack/pack-*.idx "$X" "$C" <<'EOF_PY' || bad "collision: could not forge the objects"
import hashlib, os, struct, sys, zlib
def entry(typ, data, z=None):
    n, h = len(data), []
    c = typ << 4 | (n & 15)
    n >>= 4
    while n:
        h.append(c | 0x80)
        c, n = n & 0x7f, n >> 7
    h.append(c)
    return bytes(h) + (zlib.compress(data) if z is None else z)
def pack(path, entries):
    p = b"PACK" + struct.pack(">II", 2, len(entries)) + b"".join(entries)
    open(path, "wb").write(p + hashlib.sha1(p).digest())
c = sys.argv[4]
x, zdata, h = open(c + "/x", "rb").read(), b"", b"seed"
while len(zdata) < 300000:
    h = hashlib.sha1(h).digest()
    zdata += h
zdata = zdata[:300000]
zid = hashlib.sha1(b"blob 300000\0" + zdata).hexdigest()
pack(c + "/xz.pack", [entry(3, x), entry(3, zdata)])
pack(c + "/xbad.pack", [entry(3, x), entry(3, b"yyyy\n", b"not zlib")])
os.makedirs(c + "/two.git/objects/" + zid[:2])
open(c + "/two.git/objects/%s/%s" % (zid[:2], zid[2:]), "wb").write(
    zlib.compress(b"blob 300000\0" + b"Z" + zdata[1:]))
for line in open(sys.argv[1]):
    path, typ, src, mode = line.split()
    data = open(src, "rb").read()
    raw = typ.encode() + b" %d\0" % len(data) + data
    z = {"good": lambda: zlib.compress(raw), "garbage": lambda: b"garbage garbage",
         "badcheck": lambda: zlib.compress(raw, 0)[:-300] + b"\xff" * 300}[mode]()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "wb").write(z)
path, new = sys.argv[2], bytes.fromhex(sys.argv[3])
idx = bytearray(open(path, "rb").read())
assert idx[:8] == b"\377tOc\0\0\0\2" and struct.unpack(">I", idx[8 + 4 * 255:8 + 1024])[0] == 1
for k in range(256):
    idx[8 + 4 * k:12 + 4 * k] = struct.pack(">I", 1 if k >= new[0] else 0)
idx[8 + 1024:8 + 1044] = new
idx[-20:] = hashlib.sha1(bytes(idx[:-20])).digest()
open(path, "wb").write(bytes(idx))
EOF_PY
# coll_run WHO REPO MODE PACK [OPTION...]: index-pack of PACK by WHO (git or sk) in $W/WHO, with
# GIT_DIR=$C/REPO.git (REPO "-": outside a repository); MODE o (-o out.idx), stdin (--stdin into
# the repository) or named (--stdin out.pack). Its stdout, stderr and status in $W/WHO.{out,err,rc};
# the names of the files then in $W/WHO (WHO.files) and of those --stdin added to the repository's
# pack directory (WHO.added, tmp_pack_XXXXXX written tmp_pack_*; removed again). Few processes
# per run: the machine may be busy.
coll_run() {
	local who=$1 repo=$2 mode=$3 pack=$4 d=$W/$1 pd=$C/$2.git/objects/pack f
	shift 4
	local -a cmd=(refgit index-pack) before=() files=() added=()
	[ "$who" = sk ] && cmd=("$SK" index-pack)
	rm -rf "$d"
	mkdir -p "$d"
	shopt -s nullglob
	[ "$repo" != - ] && before=("$pd"/*)
	(
		cd "$d" || exit 1
		[ "$repo" != - ] && export GIT_DIR=$C/$repo.git
		case $mode in
		o) "${cmd[@]}" "$@" -o out.idx "$pack" ;;
		stdin) "${cmd[@]}" "$@" --stdin <"$pack" ;;
		named) "${cmd[@]}" "$@" --stdin out.pack <"$pack" ;;
		esac
	) >"$W/$who.out" 2>"$W/$who.err"
	echo $? >"$W/$who.rc"
	# git 2.41 and later write a .rev beside the idx (pack.writeReverseIndex on by default)
	rm -f "$d/out.rev"
	files=("$d"/*)
	if [ "$repo" != - ]; then
		for f in "$pd"/*; do
			[[ " ${before[*]} " = *" $f "* ]] && continue
			[[ $f = *.rev ]] && rm -f "$f" && continue
			f=${f##*/}
			added+=("${f/#tmp_pack_*/tmp_pack_*}")
			rm -f "$pd/$f"
		done
	fi
	shopt -u nullglob
	echo "${files[*]##*/}" >"$W/$who.files"
	echo "${added[*]}" >"$W/$who.added"
}
# coll_case LABEL REPO MODE PACK [OPTION...]: git's and sha1kit's runs, compared; with --stdin
# after a failure, git leaves the part of the pack it wrote, sha1kit nothing
coll_case() {
	local label=$1 mode=$3 rc a b
	shift
	coll_run git "$@"
	coll_run sk "$@"
	read -r rc <"$W/git.rc"
	if [ "$rc" != 0 ] && [ "$mode" != o ]; then
		if [ "$mode" = stdin ]; then
			read -r a <"$W/git.added"
			read -r b <"$W/sk.added"
			cp "$W/git.added" "$W/sk.added"
		else
			read -r a <"$W/git.files"
			read -r b <"$W/sk.files"
			cp "$W/git.files" "$W/sk.files"
		fi
		[ "$a" = "$([ "$mode" = stdin ] && echo "tmp_pack_*" || echo out.pack)" ] && [ -z "$b" ] && ok ||
			bad "collision $label: files left: git '$a', sha1kit '$b'"
	fi
	if same_file "$W/git.out" "$W/sk.out" && same_file "$W/git.err" "$W/sk.err" &&
		same_file "$W/git.rc" "$W/sk.rc" && same_file "$W/git.files" "$W/sk.files" &&
		same_file "$W/git.added" "$W/sk.added" &&
		{ [ ! -e "$W/git/out.idx" ] || same_file "$W/git/out.idx" "$W/sk/out.idx"; }; then
		ok
	else
		bad "collision $label: sha1kit differs from git"
		for who in git sk; do
			echo "  [$who] status $(<"$W/$who.rc"), files: $(<"$W/$who.files") added: $(<"$W/$who.added") stdout: $(<"$W/$who.out")"
			sed 's/^/    /' "$W/$who.err"
		done
	fi
}
local m
for m in o stdin named; do
	coll_case "other content, loose ($m)" other "$m" "$C/x.pack"
	coll_case "the same, loose ($m)" same "$m" "$C/x.pack"
done
coll_case "other content, loose, --strict" other o "$C/x.pack" --strict
coll_case "other type, loose" type o "$C/x.pack"
coll_case "other size, loose" size o "$C/x.pack"
coll_case "the same, packed" packsame o "$C/x.pack"
coll_case "the same, packed (--stdin)" packsame stdin "$C/x.pack"
coll_case "other content, packed" packother o "$C/x.pack"
coll_case "other content, in an alternate" alt o "$C/x.pack"
coll_case "an alternate that is not there" altbad o "$C/x.pack"
coll_case "other content of a delta" dother o "$C/d.pack" --threads=1
coll_case "other content of a delta, 3 threads" dother o "$C/d.pack" --threads=3
coll_case "the same, deltas" dsame o "$C/d.pack"
coll_case "no zlib stream" garbage o "$C/x.pack"
coll_case "a stream that fails its check" badcheck o "$C/d.pack"
coll_case "outside a repository" - o "$C/x.pack"
# git's first pass stops at the first object in pack order that collides, before it reads on
coll_case "two objects of other content" two o "$C/xz.pack"
coll_case "other content, then an entry that does not inflate" other o "$C/xbad.pack"
# the failures do compare: git and sha1kit both stop on every forged copy
coll_run sk other o "$C/x.pack"
[ "$(<"$W/sk.rc")" = 128 ] && [ "$(<"$W/sk.err")" = "fatal: SHA1 COLLISION FOUND WITH $X !" ] && ok ||
	bad "collision: sha1kit did not stop on the forged copy: $(<"$W/sk.err")"
# verify-pack in the repository: git's runs index-pack --verify there, which makes the same
# comparison (the pack bad, exit 1, after index-pack's lines)
git index-pack -o "$C/x.idx" "$C/x.pack" >/dev/null && git index-pack -o "$C/xz.idx" "$C/xz.pack" >/dev/null ||
	bad "collision: git index-pack of x.pack / xz.pack failed"
local c repo p who
for c in "other x" "same x" "type x" "dother d" "dsame d" "two xz" "garbage x" "badcheck d" "packsame x" "alt x" "- x"; do
	repo=${c% *} p=${c#* }
	for who in git sk; do
		(
			cd "$W" || exit 1
			[ "$repo" != - ] && export GIT_DIR=$C/$repo.git
			if [ "$who" = git ]; then refgit verify-pack -v "$C/$p.idx"; else "$SK" verify-pack -v "$C/$p.idx"; fi
		) >"$W/$who.out" 2>"$W/$who.err"
		echo $? >"$W/$who.rc"
	done
	if same_file "$W/git.out" "$W/sk.out" && same_file "$W/git.err" "$W/sk.err" && same_file "$W/git.rc" "$W/sk.rc"; then
		ok
	else
		bad "collision: verify-pack -v $p.idx in $repo: sha1kit differs from git"
		for who in git sk; do
			echo "  [$who] status $(<"$W/$who.rc"), stdout: $(tail -n 1 "$W/$who.out")"
			sed 's/^/    /' "$W/$who.err"
		done
	fi
done
[ "$(<"$W/sk.rc")" = 0 ] && (cd "$W" && GIT_DIR=$C/other.git "$SK" verify-pack "$C/x.idx" 2>/dev/null; [ $? = 1 ]) && ok ||
	bad "collision: verify-pack does not fail on the forged copy"
}

# ---------------------------------------------------------------------------------------------
# The config index-pack reads (git_index_pack_config): pack.indexVersion, pack.threads and
# core.bigFileThreshold from the repository's config, the global file (GIT_CONFIG_GLOBAL) and
# GIT_CONFIG_COUNT; the command line's --index-version and --threads win. Exit status, stdout,
# stderr and the idx against the reference git, except the "bad numeric config value" lines:
# git 2.39 names no file there, git 2.42 and later do (config.c die_bad_number with the key's
# origin; checked by hand with git 2.55.0), and sha1kit follows the current git: those lines are
# written here as 2.55 prints them, with only the exit status and the absence of an idx compared.
# ---------------------------------------------------------------------------------------------
section_config() {
local R=$T/cfg W=$T/cfgw pack grc rc
mkdir -p "$W"
git init -q "$R" && (cd "$R" && for i in 1 2 3; do echo "v$i" >f && git add f && git commit -qm "c$i"; done &&
	git repack -adq) || { bad "config: cannot make the repository"; return; }
pack=$(ls "$R"/.git/objects/pack/*.pack)
# cfg_case NAME EXPECT KEY=VALUE... [-- ARGS...]: set the keys in the repository's config, run
# both index-packs in the repository; EXPECT "git": as the reference git, else that stderr line
cfg_case() {
	local name=$1 expect=$2 kv args=() t
	shift 2
	(cd "$R" && git config --remove-section pack 2>/dev/null; git config --remove-section core.x 2>/dev/null)
	git -C "$R" config --unset core.bigFileThreshold 2>/dev/null
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		kv=$1
		git -C "$R" config "${kv%%=*}" "${kv#*=}"
		shift
	done
	[ "${1:-}" = -- ] && shift && args=("$@")
	for t in git sk; do
		rm -f "$W/$t.idx"
		if [ $t = git ]; then
			(cd "$R" && refgit index-pack "${args[@]}" -o "$W/$t.idx" "$pack" >"$W/$t.out" 2>"$W/$t.err")
		else
			(cd "$R" && "$SK" index-pack "${args[@]}" -o "$W/$t.idx" "$pack" >"$W/$t.out" 2>"$W/$t.err")
		fi
		echo $? >"$W/$t.rc"
	done
	if [ "$expect" = git ]; then
		if same_file "$W/git.rc" "$W/sk.rc" && same_file "$W/git.out" "$W/sk.out" && same_file "$W/git.err" "$W/sk.err" &&
			{ [ ! -e "$W/git.idx" ] && [ ! -e "$W/sk.idx" ] || same_file "$W/git.idx" "$W/sk.idx"; }; then
			ok
		else
			bad "config: $name: git rc $(<"$W/git.rc") $(<"$W/git.err"), sha1kit rc $(<"$W/sk.rc") $(<"$W/sk.err")"
		fi
	elif [ "$(<"$W/sk.rc")" = 128 ] && [ "$(<"$W/git.rc")" = 128 ] && [ "$(<"$W/sk.err")" = "$expect" ] &&
		[ ! -s "$W/sk.out" ] && [ ! -e "$W/sk.idx" ] && [ ! -e "$W/git.idx" ]; then
		ok
	else
		bad "config: $name: sha1kit rc $(<"$W/sk.rc") '$(<"$W/sk.err")', expected 128 '$expect' (git: $(<"$W/git.rc"))"
	fi
}
cfg_case "no config" git
cfg_case "pack.indexVersion=1" git pack.indexVersion=1
cfg_case "pack.indexVersion=2" git pack.indexVersion=2
cfg_case "pack.indexVersion=0" git pack.indexVersion=0
cfg_case "pack.indexVersion=3" git pack.indexVersion=3
cfg_case "pack.indexVersion=-1" git pack.indexVersion=-1
cfg_case "pack.indexVersion=1k" git pack.indexVersion=1k
cfg_case "pack.indexVersion=1, --index-version=2" git pack.indexVersion=1 -- --index-version=2
cfg_case "pack.indexVersion=3, --index-version=1" git pack.indexVersion=3 -- --index-version=1
cfg_case "pack.threads=-1" git pack.threads=-1
cfg_case "pack.threads=0" git pack.threads=0
cfg_case "pack.threads=3" git pack.threads=3
cfg_case "pack.threads=-1, --threads=2" git pack.threads=-1 -- --threads=2
cfg_case "core.bigFileThreshold=1m" git core.bigFileThreshold=1m
cfg_case "pack.indexVersion=abc" "fatal: bad numeric config value 'abc' for 'pack.indexversion' in file .git/config: invalid unit" pack.indexVersion=abc
cfg_case "pack.indexVersion out of range" "fatal: bad numeric config value '99999999999' for 'pack.indexversion' in file .git/config: out of range" pack.indexVersion=99999999999
cfg_case "pack.threads=zz" "fatal: bad numeric config value 'zz' for 'pack.threads' in file .git/config: invalid unit" pack.threads=zz
cfg_case "core.bigFileThreshold=-5" "fatal: bad numeric config value '-5' for 'core.bigfilethreshold' in file .git/config: invalid unit" core.bigFileThreshold=-5
cfg_case "core.bigFileThreshold=1x" "fatal: bad numeric config value '1x' for 'core.bigfilethreshold' in file .git/config: invalid unit" core.bigFileThreshold=1x
# the global file, and GIT_CONFIG_COUNT (no file to name: the same text in every git)
printf '[pack]\n\tindexVersion = 7k\n' >"$W/global"
GIT_CONFIG_GLOBAL=$W/global cfg_case "global pack.indexVersion=7k" git
GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=pack.threads GIT_CONFIG_VALUE_0=zz cfg_case "GIT_CONFIG_COUNT pack.threads=zz" git
# outside a repository git reads GIT_CONFIG_COUNT's settings too: the idx version, the .rev
local O2=$T/cfg-out kv t
mkdir -p "$O2"
for kv in pack.indexVersion=1 pack.writeReverseIndex=false pack.writeReverseIndex=true; do
	for t in git sk; do
		rm -f "$O2/$t.idx" "$O2/$t.rev"
		(
			cd "$O2" && export GIT_CEILING_DIRECTORIES=$T GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=${kv%%=*} GIT_CONFIG_VALUE_0=${kv#*=}
			if [ $t = git ]; then refgit index-pack -o "$O2/$t.idx" "$pack"; else "$SK" index-pack -o "$O2/$t.idx" "$pack"; fi
		) >"$O2/$t.out" 2>"$O2/$t.err"
		echo $? >"$O2/$t.rc"
	done
	same_file "$O2/git.rc" "$O2/sk.rc" && same_file "$O2/git.out" "$O2/sk.out" && same_file "$O2/git.idx" "$O2/sk.idx" &&
		# (without the setting, git 2.39.5 writes no .rev and sha1kit does: docs/git.md)
		case $kv in
		*=false) [ ! -e "$O2/git.rev" ] && [ ! -e "$O2/sk.rev" ] ;;
		*=true) [ -e "$O2/git.rev" ] && same_file "$O2/git.rev" "$O2/sk.rev" ;;
		esac && ok ||
		bad "config: outside a repository, GIT_CONFIG_COUNT $kv: git rc $(<"$O2/git.rc"), sha1kit rc $(<"$O2/sk.rc") $(<"$O2/sk.err"); rev: $(ls "$O2"/*.rev 2>/dev/null)"
done
# run in a bare repository's own directory: git names its config "config" (git_path drops "./";
# the line as git 2.55.0 prints it, see above)
git init -q --bare "$T/cfg-bare.git" && git -C "$T/cfg-bare.git" config pack.threads abc
(cd "$T/cfg-bare.git" && refgit index-pack -o "$W/bare-g.idx" "$pack" >/dev/null 2>"$W/bare-g.err")
grc=$?
(cd "$T/cfg-bare.git" && "$SK" index-pack -o "$W/bare-s.idx" "$pack" >/dev/null 2>"$W/bare-s.err")
rc=$?
[ "$rc" = "$grc" ] && [ "$(<"$W/bare-s.err")" = "fatal: bad numeric config value 'abc' for 'pack.threads' in file config: invalid unit" ] && ok ||
	bad "config: in a bare repository's directory: git $grc $(<"$W/bare-g.err"), sha1kit $rc $(<"$W/bare-s.err")"
# the config of git's command line: `git -c KEY=VALUE` passes GIT_CONFIG_PARAMETERS on ('KEY'='VALUE',
# or the older 'KEY=VALUE'); its settings are read (pack.indexVersion=1 gives a version 1 idx), and
# one that does not parse is git's two lines and 128 for every command, in git's words (found by a
# new user's trial: sha1kit ignored it)
local params cmd
for params in "'pack.indexversion'='1'" "'pack.indexversion=1'" "'x.y'='1' 'pack.indexVersion'='1'" "'pack.threads'='2'" \
	"bogus" "'a'b" "'=1'" "'x'" "'.x'" "'x.'" "'a.1b'" "'a.b'='1'x" "'pack.ind'\\''exversion'='1'" "'pack.threads'=" \
	"'pack.indexversion'='7'"; do
	for cmd in index-pack fsck verify-pack hash-object refs; do
		for t in git sk; do
			rm -f "$W/cp-$t.idx"
			case $cmd in
			index-pack) set -- index-pack -o "$W/cp-$t.idx" "$pack" ;;
			verify-pack) set -- verify-pack "${pack%.pack}.idx" ;;
			hash-object) set -- hash-object "$pack" ;;
			refs) set -- refs verify ;;
			fsck) set -- fsck ;;
			esac
			if [ $t = git ]; then
				(cd "$R" && GIT_CONFIG_PARAMETERS=$params refgit "$@" >"$W/cp-$t.out" 2>"$W/cp-$t.err")
			else
				(cd "$R" && GIT_CONFIG_PARAMETERS=$params "$SK" "$@" >"$W/cp-$t.out" 2>"$W/cp-$t.err")
			fi
			echo $? >"$W/cp-$t.rc"
		done
		# `refs verify` came with git 2.47: with an older reference git only a parse error is compared
		if [ $cmd = refs ] && ! grep_q -q 'unable to parse command-line config' "$W/cp-git.err"; then
			continue
		fi
		same_file "$W/cp-git.rc" "$W/cp-sk.rc" && same_file "$W/cp-git.err" "$W/cp-sk.err" &&
			same_file "$W/cp-git.out" "$W/cp-sk.out" &&
			{ [ ! -e "$W/cp-git.idx" ] && [ ! -e "$W/cp-sk.idx" ] || same_file "$W/cp-git.idx" "$W/cp-sk.idx"; } && ok ||
			bad "config: GIT_CONFIG_PARAMETERS=$params $cmd: git $(<"$W/cp-git.rc") $(head -c 200 "$W/cp-git.err"), sha1kit $(<"$W/cp-sk.rc") $(head -c 200 "$W/cp-sk.err")"
	done
done
}

# --stats: after a success, one line per phase and a total on stderr, the idx unchanged; nothing
# after a failure.
section_stats() {
local R=$T/st pack
git init -q "$R" && (cd "$R" && for i in 1 2 3 4; do seq "$i" 300 >f && git add f && git commit -qm "c$i"; done &&
	git repack -adq) || { bad "stats: cannot make the repository"; return; }
pack=$(ls "$R"/.git/objects/pack/*.pack)
"$SK" index-pack --stats -o "$T/st.idx" "$pack" >"$T/st.out" 2>"$T/st.err"
rc=$?
"$SK" index-pack -o "$T/st0.idx" "$pack" >/dev/null 2>&1
re='^sha1kit: index-pack: stats: [a-zA-Z ]+: wall [0-9]+\.[0-9]{3} s, CPU [0-9]+\.[0-9]{3} s \([0-9]+\.[0-9]{2} threads busy\)$'
if [ "$rc" = 0 ] && same_file "$T/st.idx" "$T/st0.idx" && [ "$(grep -cE "$re" "$T/st.err")" = "$(wc -l <"$T/st.err")" ] &&
	grep -q ': stats: setup: ' "$T/st.err" && grep -q ': stats: Indexing objects: ' "$T/st.err" &&
	grep -q ': stats: Resolving deltas: ' "$T/st.err" && grep -q ': stats: after Resolving deltas: ' "$T/st.err" &&
	[ "$(tail -n 1 "$T/st.err" | cut -d: -f4)" = " total" ]; then
	ok
else
	bad "stats: rc $rc, stderr: $(<"$T/st.err")"
fi
# --stdin: the same phases
(cd "$R" && "$SK" index-pack --stats --stdin <"$pack" >/dev/null 2>"$T/st2.err")
grep -q ': stats: Resolving deltas: ' "$T/st2.err" && grep -q ': stats: total: ' "$T/st2.err" && ok ||
	bad "stats --stdin: $(<"$T/st2.err")"
# a failure prints no stats
head -c 100 "$pack" >"$T/short.pack"
"$SK" index-pack --stats -o "$T/short.idx" "$T/short.pack" >/dev/null 2>"$T/st3.err"
[ $? != 0 ] && ! grep -q ': stats: ' "$T/st3.err" && ok || bad "stats after a failure: $(<"$T/st3.err")"
# verify-pack --stats: the same phases after each good pack, stdout as without it; none for a bad one
cp "$pack" "$T/vst.pack" && cp "${pack%.pack}.idx" "$T/vst.idx" && cp "$T/vst.pack" "$T/vbad.pack" &&
	cp "$T/st0.idx" "$T/vbad.idx" && printf 'x' | dd of="$T/vbad.idx" bs=1 seek=1100 conv=notrunc 2>/dev/null
"$SK" verify-pack -v --stats --threads=2 "$T/vst.pack" "$T/vbad.pack" >"$T/vst.out" 2>"$T/vst.err"
rc=$?
"$SK" verify-pack -v --threads=2 "$T/vst.pack" "$T/vbad.pack" >"$T/vst0.out" 2>"$T/vst0.err"
rc0=$?
re='^sha1kit: verify-pack: stats: [a-zA-Z ]+: wall [0-9]+\.[0-9]{3} s, CPU [0-9]+\.[0-9]{3} s \([0-9]+\.[0-9]{2} threads busy\)$'
grep -v ': stats: ' "$T/vst.err" >"$T/vst.err1"
if [ "$rc" = 1 ] && [ "$rc0" = 1 ] && same_file "$T/vst.out" "$T/vst0.out" && same_file "$T/vst.err1" "$T/vst0.err" &&
	[ "$(grep -cE "$re" "$T/vst.err")" = 6 ] && [ "$(grep -c ': stats: total: ' "$T/vst.err")" = 1 ] &&
	grep -q ': stats: Indexing objects: ' "$T/vst.err" && grep -q ': stats: after Resolving deltas: ' "$T/vst.err"; then
	ok
else
	bad "verify-pack --stats: rc $rc (without: $rc0), stderr: $(<"$T/vst.err")"
fi
}

# The first pass on all the threads when the idx is known (verify-pack, index-pack --verify, fsck;
# src/git/pack_pass1.c): with --threads=1, 2, 3, 8 and 64 (in the passes that run a share of the
# native work, SHA1KIT_TEST_SHARE > 1: the sanitizers and Wine, 1, 3 and 64), the same stdout,
# stderr and exit status as with --threads=1, on sound packs and on packs or idx files that disagree (a flipped byte in an
# entry, with the trailer stale or made to match; two entries flipped; bytes between two entries;
# an entry cut short; idx offsets that are wrong, swapped, twice the same, past the objects), and the exit status of git's (verify-pack -v's stdout
# too on the sound packs; fsck's stdout as a set).
section_idx_threads() {
need_data
need_git_outputs
local W=$T/it name v t rc1 grc more="2 3 8 64"
[ "${SHA1KIT_TEST_SHARE:-1}" -le 1 ] || more="3 64"
mkdir -p "$W"
for name in ofs ref fixthin small; do
	cp "$O/vp-$name.pack" "$W/$name.pack" && cp "$O/vp-$name.idx" "$W/$name.idx" || { bad "idx_threads: no $name"; return; }
done
# The broken copies of ofs.pack / ofs.idx: NAME.pack and NAME.idx in $W, one change each.
"$PY" - "$W" <<'PYEOF' || { bad "idx_threads: cannot make the broken packs"; return; }
import hashlib, os, sys
w = sys.argv[1]
pack = open(os.path.join(w, "ofs.pack"), "rb").read()
idx = bytearray(open(os.path.join(w, "ofs.idx"), "rb").read())
n = int.from_bytes(idx[8 + 255 * 4:8 + 256 * 4], "big")
o32 = 8 + 1024 + n * 24  # the 32-bit offsets (v2; no 64-bit table in a small pack)
offs = [int.from_bytes(idx[o32 + 4 * k:o32 + 4 * k + 4], "big") for k in range(n)]
srt = sorted(offs)
ends = srt[1:] + [len(pack) - 20]
# an entry in the middle of the pack with a long stored form
k = max(range(n // 3, 2 * n // 3), key=lambda j: ends[j] - srt[j])
at, end = srt[k], ends[k]
def fix(b):
    b = bytes(b[:-20]); return b + hashlib.sha1(b).digest()
def write(name, p, i):
    open(os.path.join(w, name + ".pack"), "wb").write(p)
    open(os.path.join(w, name + ".idx"), "wb").write(i)
def set_off(i, kk, v):
    i[o32 + 4 * kk:o32 + 4 * kk + 4] = v.to_bytes(4, "big")
flip = bytearray(pack); flip[(at + end) // 2] ^= 0xff
write("flip", bytes(flip), bytes(idx))
fp = fix(flip)
i2 = bytearray(idx); i2[-40:-20] = fp[-20:]
write("flipfix", fp, fix(i2))
# two entries flipped, one near the start and one near the end: the first one is reported
k0 = max(range(1, n // 4), key=lambda j: ends[j] - srt[j])
flip[(srt[k0] + ends[k0]) // 2] ^= 0xff
fp = fix(flip)
i2 = bytearray(idx); i2[-40:-20] = fp[-20:]
write("flip2", fp, fix(i2))
# three bytes after entry k that no entry holds: the idx's offsets moved past them, every entry
# sound (each ends where the idx says the next starts, but for entry k)
pad = fix(pack[:end] + b"\0\0\0" + pack[end:])
i2 = bytearray(idx); i2[-40:-20] = pad[-20:]
for j in range(n):
    if offs[j] >= end:
        set_off(i2, j, offs[j] + 3)
write("pad", pad, fix(i2))
cut = fix(pack[:(at + end) // 2] + pack[(at + end) // 2 + 5:])
i2 = bytearray(idx); i2[-40:-20] = cut[-20:]
write("cut", cut, fix(i2))
kk = offs.index(at)
for name, v in (("idxoff", at + 1), ("idxdup", srt[k - 1]), ("idxlast", len(pack) - 21)):
    i2 = bytearray(idx); set_off(i2, kk, v); write(name, pack, fix(i2))
i2 = bytearray(idx); k2 = offs.index(srt[k + 1]); set_off(i2, kk, srt[k + 1]); set_off(i2, k2, at)
write("idxswap", pack, fix(i2))
PYEOF
for v in ofs ref fixthin small flip flipfix flip2 pad cut idxoff idxdup idxlast idxswap; do
	sk_share_case || continue # under Wine and ASan, one in SHA1KIT_CASE_SHARE (testlib.sh)
	# verify-pack -v
	for t in 1 $more; do
		(cd "$W" && "$SK" verify-pack -v --threads=$t "$v.idx" >"$W/vp$t.out" 2>"$W/vp$t.err")
		echo $? >"$W/vp$t.rc"
	done
	(cd "$W" && refgit verify-pack -v "$v.idx" >"$W/vpg.out" 2>/dev/null)
	grc=$?
	rc1=$(<"$W/vp1.rc")
	case $v in
	ofs | ref | fixthin | small) [ "$rc1" = 0 ] && [ "$grc" = 0 ] && same_file "$W/vp1.out" "$W/vpg.out" && ok ||
		bad "idx_threads: $v: verify-pack -v --threads=1 (exit $rc1) is not git's (exit $grc)" ;;
	*) [ "$rc1" != 0 ] && [ "$grc" != 0 ] && ok || bad "idx_threads: $v: verify-pack -v exits $rc1, git $grc (want both non-zero)" ;;
	esac
	for t in $more; do
		same_file "$W/vp1.out" "$W/vp$t.out" && same_file "$W/vp1.err" "$W/vp$t.err" && same_file "$W/vp1.rc" "$W/vp$t.rc" && ok ||
			bad "idx_threads: $v: verify-pack -v --threads=$t differs from --threads=1: $(head -c 300 "$W/vp$t.err")"
	done
	# index-pack --verify (outside a repository)
	for t in 1 $more; do
		(cd "$W" && "$SK" index-pack --verify --threads=$t "$v.pack" >"$W/ip$t.out" 2>"$W/ip$t.err")
		echo $? >"$W/ip$t.rc"
	done
	(cd "$W" && refgit index-pack --verify "$v.pack" >/dev/null 2>"$W/ipg.err")
	grc=$?
	rc1=$(<"$W/ip1.rc")
	# where git dies (128: its first pass, a delta), with git's lines
	{ [ "$grc" = 0 ] && [ "$rc1" = 0 ]; } ||
		{ [ "$grc" = 128 ] && [ "$rc1" = 128 ] && same_file "$W/ipg.err" "$W/ip1.err"; } && ok ||
		bad "idx_threads: $v: index-pack --verify exits $rc1 ($(head -c 300 "$W/ip1.err")), git $grc ($(head -c 300 "$W/ipg.err"))"
	for t in $more; do
		same_file "$W/ip1.out" "$W/ip$t.out" && same_file "$W/ip1.err" "$W/ip$t.err" && same_file "$W/ip1.rc" "$W/ip$t.rc" && ok ||
			bad "idx_threads: $v: index-pack --verify --threads=$t differs from --threads=1: $(head -c 300 "$W/ip$t.err")"
	done
	# fsck of a repository with only this pack (no refs: every object dangling)
	rm -rf "$W/repo"
	git init -q --bare "$W/repo" && cp "$W/$v.pack" "$W/repo/objects/pack/pack-$v.pack" &&
		cp "$W/$v.idx" "$W/repo/objects/pack/pack-$v.idx" || { bad "idx_threads: $v: no repository"; continue; }
	for t in 1 $more; do
		(cd "$W/repo" && "$SK" fsck --threads=$t >"$W/fs$t.out" 2>"$W/fs$t.err")
		echo $? >"$W/fs$t.rc"
		# under ASan a refused allocation (a size read from the cut object, which a thread may
		# try before another stops the check) adds a WARNING line of its own: not sha1kit's output
		sed -i '/^==[0-9]*==WARNING: AddressSanitizer failed to allocate /d' "$W/fs$t.err"
	done
	(cd "$W/repo" && refgit fsck --full >"$W/fsg.out" 2>/dev/null)
	grc=$?
	[ "$(<"$W/fs1.rc")" = "$grc" ] && same_lines "$W/fsg.out" "$W/fs1.out" && ok ||
		bad "idx_threads: $v: fsck --threads=1 exits $(<"$W/fs1.rc"), git $grc, or its stdout is not git's"
	for t in $more; do
		same_file "$W/fs1.out" "$W/fs$t.out" && same_file "$W/fs1.err" "$W/fs$t.err" && same_file "$W/fs1.rc" "$W/fs$t.rc" && ok ||
			bad "idx_threads: $v: fsck --threads=$t differs from --threads=1: $(head -c 300 "$W/fs$t.err")"
	done
done
# Many delta families (240 files, each with two versions): with more threads than CPUs, delta
# resolution takes turns (pack_resolve.c, take_turn), and a thread gives its turn up between two
# families; the idx of index-pack and verify-pack's output the same with every --threads.
local M=$W/many
git init -q "$M" && (cd "$M" && for v in 1 2; do
	awk -v v="$v" 'BEGIN { for (f = 1; f <= 240; f++) { srand(f); fn = sprintf("f%03d", f);
		for (k = 1; k <= 60; k++) print int(rand() * 1e9), (k == f % 60 + 1 ? v : 0) > fn; close(fn) } }'
	git add -A && git commit -qm "v$v"; done && git repack -adq) || { bad "idx_threads: cannot make the many-family pack"; return; }
cp "$M"/.git/objects/pack/*.pack "$W/many.pack"
"$SK" index-pack --threads=1 -o "$W/many1.idx" "$W/many.pack" >/dev/null 2>&1 || bad "idx_threads: many: index-pack failed"
cp "$W/many1.idx" "$W/many.idx"
"$SK" verify-pack -v --threads=1 "$W/many.idx" >"$W/mv1.out" 2>&1
[ "$(grep -c ' 1 [0-9a-f]\{40\}$' "$W/mv1.out")" -ge 200 ] && ok || bad "idx_threads: many: under 200 deltas: $(tail -n 3 "$W/mv1.out")"
for t in $more; do
	"$SK" index-pack --threads=$t -o "$W/many$t.idx" "$W/many.pack" >/dev/null 2>&1 && same_file "$W/many1.idx" "$W/many$t.idx" && ok ||
		bad "idx_threads: many: index-pack --threads=$t gives another idx"
	"$SK" verify-pack -v --threads=$t "$W/many.idx" >"$W/mv$t.out" 2>&1 && same_file "$W/mv1.out" "$W/mv$t.out" && ok ||
		bad "idx_threads: many: verify-pack -v --threads=$t differs: $(head -c 300 "$W/mv$t.out")"
done
}

# A full file system (tests/pack/enospc.c through LD_PRELOAD: writes to regular files fail with
# ENOSPC after SK_ENOSPC_AFTER bytes): index-pack -o and index-pack --stdin in a repository each
# fail with one line naming the cause and a non-zero status, and leave no output file and no
# temporary file behind. (ctest sets SK_ENOSPC_LIB; Linux only: not registered for Windows.)
section_enospc() { # nowine
[ -n "${SK_ENOSPC_LIB:-}" ] && [ -e "$SK_ENOSPC_LIB" ] || { bad "enospc: SK_ENOSPC_LIB (the shim ctest builds) not set"; return; }
local R=$T/nospc pack after left
git init -q "$R" && (cd "$R" && for i in 1 2 3; do seq "$i" 2000 >f && git add f && git commit -qm "c$i"; done &&
	git repack -adq) || { bad "enospc: cannot make the repository"; return; }
pack=$(ls "$R"/.git/objects/pack/*.pack)
cp "$pack" "$T/nospc.pack"
# sk_nospc AFTER CMD...: run sha1kit with the shim (ASan's link order check off: the shim comes first)
sk_nospc() {
	local after=$1
	shift
	LD_PRELOAD=$SK_ENOSPC_LIB SK_ENOSPC_AFTER=$after ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 "$@"
}
# the idx's size + 10: the disk fills up while the reverse index (.rev) is written
"$SK" index-pack --rev-index -o "$T/nospc.idx" "$T/nospc.pack" >/dev/null && [ -e "$T/nospc.rev" ] || bad "enospc: no idx and .rev"
idxsize=$(stat -c %s "$T/nospc.idx")
rm -f "$T/nospc.idx" "$T/nospc.rev"
for after in 0 100 1000 $((idxsize + 10)); do
	rm -f "$T/nospc.idx"
	sk_nospc "$after" "$SK" index-pack --rev-index -o "$T/nospc.idx" "$T/nospc.pack" >"$T/ns.out" 2>"$T/ns.err"
	rc=$?
	left=$(find "$T" -maxdepth 1 \( -name '*.idx' -o -name '*.rev' -o -name '*tmp*' \) | wc -l)
	[ "$rc" -ge 1 ] && [ "$rc" -lt 128 ] && [ "$(wc -l <"$T/ns.err")" = 1 ] && grep -q "No space left on device" "$T/ns.err" &&
		[ "$left" = 0 ] && [ ! -s "$T/ns.out" ] && ok ||
		bad "enospc: index-pack -o after $after bytes: rc $rc, $left files left, stderr: $(<"$T/ns.err")"
done
# --stdin into the repository: the pack is written first
before=$(ls "$R/.git/objects/pack" | sort | tr '\n' ' ')
for n in 100 $(($(stat -c %s "$T/nospc.pack") + idxsize + 10)); do
	(cd "$R" && sk_nospc "$n" "$SK" index-pack --rev-index --stdin <"$T/nospc.pack" >"$T/ns.out" 2>"$T/ns.err")
	rc=$?
	after=$(ls "$R/.git/objects/pack" | sort | tr '\n' ' ')
	[ "$rc" -ge 1 ] && [ "$rc" -lt 128 ] && grep -q "No space left on device" "$T/ns.err" && [ "$before" = "$after" ] && ok ||
		bad "enospc: index-pack --stdin after $n bytes: rc $rc, pack directory '$after' (was '$before'), stderr: $(<"$T/ns.err")"
done
}

# Repositories git works in and sha1kit cannot: in a SHA-256 repository (git init
# --object-format=sha256, Git 2.29+) git indexes with SHA-256, so sha1kit's index-pack stops with
# one line and exit 128 instead of writing SHA-1 IDs (hash-object gives git's SHA-256 IDs there:
# tests/compat/test_hash_object.sh); and index-pack --stdin outside a repository gives git's line.
section_unsupported() {
local R=$T/s256
refgit init -q --object-format=sha256 "$R" || { bad "unsupported: cannot make a SHA-256 repository"; return; }
echo a >"$R/a"
(cd "$R" && "$SK" hash-object a >"$T/u.out" 2>"$T/u.err")
rc=$?
[ "$rc" = 0 ] && [ "$(<"$T/u.out")" = "$(cd "$R" && refgit hash-object a)" ] && [ ! -s "$T/u.err" ] && ok ||
	bad "unsupported: hash-object in a SHA-256 repository: rc $rc, $(cat "$T/u.out" "$T/u.err")"
mkdir -p "$T/nowhere"
git init -q "$T/u1" && (cd "$T/u1" && echo x >x && git add x && git commit -qm x && git repack -adq)
cp "$T"/u1/.git/objects/pack/*.pack "$T/u1.pack"
(cd "$T/nowhere" && GIT_CEILING_DIRECTORIES=$T refgit index-pack --stdin <"$T/u1.pack" >"$T/ug.out" 2>"$T/ug.err"; echo $? >"$T/ug.rc")
(cd "$T/nowhere" && GIT_CEILING_DIRECTORIES=$T "$SK" index-pack --stdin <"$T/u1.pack" >"$T/us.out" 2>"$T/us.err"; echo $? >"$T/us.rc")
same_file "$T/ug.rc" "$T/us.rc" && same_file "$T/ug.err" "$T/us.err" && same_file "$T/ug.out" "$T/us.out" && ok ||
	bad "unsupported: index-pack --stdin outside a repository: git $(<"$T/ug.rc") $(<"$T/ug.err"), sha1kit $(<"$T/us.rc") $(<"$T/us.err")"
# git refuses --stdin outside a repository with a PACK name too; -v and --max-input-size (file
# and standard input) as git's: stdout, stderr (-v: the last line), status, and the files left
one_way() { # one_way WHO LABEL DIR ARGS...: out, err, rc and the files of DIR into $T/ow-WHO-LABEL.*
	local who=$1 label=$2 dir=$3 tool
	shift 3
	tool=refgit
	[ "$who" = sk ] && tool=$SK
	(cd "$dir" && GIT_CEILING_DIRECTORIES=$T "$tool" "$@" <"${PACK_IN:-$T/u1.pack}" >"$T/ow-$who-$label.out" 2>"$T/ow-$who-$label.err"
		echo $? >"$T/ow-$who-$label.rc"
		ls -A | grep -v '[.]rev$' >"$T/ow-$who-$label.ls" # sha1kit writes a .rev whatever the version
		[ ! -d .git/objects/pack ] || ls -A .git/objects/pack | grep -v '^tmp_pack_' >>"$T/ow-$who-$label.ls")
	tr '\r' '\n' <"$T/ow-$who-$label.err" | tail -n 1 >"$T/ow-$who-$label.last"
}
size=$(stat -c %s "$T/u1.pack")
# --stdin --verify -o IDX: the pack from standard input checked against IDX (u2.idx: another pack's)
git index-pack -o "$T/u1.idx" "$T/u1.pack" >/dev/null || bad "unsupported: u1.idx"
git init -q "$T/u2" && (cd "$T/u2" && echo y >y && git add y && git commit -qm y && git repack -adq) &&
	cp "$T"/u2/.git/objects/pack/*.idx "$T/u2.idx" && cp "$T"/u2/.git/objects/pack/*.pack "$T/u2.pack" ||
	bad "unsupported: u2.idx"
for c in "stdin-named:nowhere:index-pack --stdin p.pack" "max-small:file:index-pack --max-input-size=100 u.pack" \
	"max-big:file:index-pack --max-input-size=$size u.pack" "max-kib:file:index-pack --max-input-size=1k u.pack" \
	"max-stdin:repo:index-pack --stdin --max-input-size=$((size - 1))" "max-stdin-ok:repo:index-pack --stdin --max-input-size=$size" \
	"verbose:file:index-pack -v u.pack" "max-neg:file:index-pack --max-input-size=-5 u.pack" \
	"max-plus:file:index-pack --max-input-size=+5 u.pack" "max-wrap:file:index-pack --max-input-size=18446744073709551615 u.pack" \
	"max-2p63:file:index-pack --max-input-size=9223372036854775808 u.pack" \
	"thr-hex:file:index-pack --threads=0x2 u.pack" "thr-big:file:index-pack --threads=2000 u.pack" \
	"thr-sign:file:index-pack --threads=+3 u.pack" "vstdin:repo:index-pack --stdin --verify -o $T/u1.idx" \
	"vstdin-none:repo:index-pack --stdin --verify -o $T/none.idx" \
	"vstdin-other:repo:index-pack --stdin --verify -o $T/u2.idx" \
	"vstdin-named:repo:index-pack --stdin --verify -o $T/u1.idx v.pack"; do
	label=${c%%:*} rest=${c#*:}
	where=${rest%%:*} args=${rest#*:}
	for who in git sk; do
		d=$T/ow-$label-$who
		rm -rf "$d"
		case $where in
		nowhere) mkdir -p "$d" ;;
		file) mkdir -p "$d" && cp "$T/u1.pack" "$d/u.pack" ;;
		repo) git init -q "$d" ;;
		esac
		# shellcheck disable=SC2086 # the arguments are words
		one_way $who "$label" "$d" $args
	done
	same=1
	for f in out rc ls last; do
		same_file "$T/ow-git-$label.$f" "$T/ow-sk-$label.$f" || same=0
	done
	[ $same = 1 ] && ok || bad "unsupported: $label ($args): git $(<"$T/ow-git-$label.rc") $(<"$T/ow-git-$label.last"), sha1kit $(<"$T/ow-sk-$label.rc") $(<"$T/ow-sk-$label.last")"
done
# a bad header under --max-input-size: git's parse_pack_header dies before it counts a byte, so the
# header's line comes, not the size's (found by a new user's trial)
cp "$T/u1.pack" "$T/u1-sig.pack" && printf 'QACK' | dd of="$T/u1-sig.pack" conv=notrunc 2>/dev/null
cp "$T/u1.pack" "$T/u1-v4.pack" && printf '\0\0\0\4' | dd of="$T/u1-v4.pack" bs=1 seek=4 conv=notrunc 2>/dev/null
# both_ways NAME PACK ARGS...: index-pack ARGS on PACK as a file (then named u.pack) and from
# standard input in a repository (--stdin), git's and sha1kit's: stdout, stderr, status, files
both_ways() {
	local name=$1 pack=$2 where who d
	shift 2
	for where in file stdin; do
		for who in git sk; do
			d=$T/$name-$where-$who
			rm -rf "$d"
			if [ $where = file ]; then
				mkdir -p "$d" && cp "$pack" "$d/u.pack"
				one_way $who "$name-$where" "$d" index-pack "$@" u.pack
			else
				git init -q "$d"
				PACK_IN=$pack one_way $who "$name-$where" "$d" index-pack --stdin "$@"
			fi
		done
		same=1
		for f in out err rc ls; do
			same_file "$T/ow-git-$name-$where.$f" "$T/ow-sk-$name-$where.$f" || same=0
		done
		[ $same = 1 ] && ok || bad "unsupported: index-pack $* ($name, $where): git $(<"$T/ow-git-$name-$where.rc") $(tail -c 150 "$T/ow-git-$name-$where.err"), sha1kit $(<"$T/ow-sk-$name-$where.rc") $(tail -c 150 "$T/ow-sk-$name-$where.err")"
	done
}
for label in sig v4; do
	both_ways "max-$label" "$T/u1-$label.pack" --max-input-size=20
done
# index-pack -v on a pack git refuses: git's meter ("Indexing objects", or "Receiving objects" for
# --stdin) up to the objects it read whole, over which its error lines are written; all of them
# and ", done." when the trailer is what is wrong (found by a new user's trial: no meter)
"$PY" - "$T/vbad" <<'PYEOF' || bad "unsupported: cannot make the refused packs"
import hashlib, struct, sys, zlib
def pack(n, bad):
    out = bytearray(b'PACK' + struct.pack('>II', 2, n))
    for i in range(n):
        d = b'blob %d\n' % i
        c = zlib.compress(d)
        if i == bad:
            c = c[:3] + b'\xff\xff' + c[5:]
        out += bytes([3 << 4 | len(d)]) + c
    return out + hashlib.sha1(out).digest()
open(sys.argv[1] + '-mid.pack', 'wb').write(pack(200, 120))
open(sys.argv[1] + '-cut.pack', 'wb').write(pack(150, -1)[:-1])
open(sys.argv[1] + '-first.pack', 'wb').write(pack(150, 0))
open(sys.argv[1] + '-late.pack', 'wb').write(pack(30000, 29000))  # sha1kit's own meter runs first
PYEOF
for label in mid cut first late; do
	both_ways "vbad-$label" "$T/vbad-$label.pack" -v
done
# --fsck-objects=MSG-ID=SEVERITY: a usage error for git 2.39.5 (only the bare option), accepted by
# 2.55: the same status and files as the reference git (found by a new user's trial)
for who in git sk; do
	rm -rf "$T/fo-$who" && mkdir -p "$T/fo-$who" && cp "$T/u1.pack" "$T/fo-$who/u.pack"
	tool=refgit
	[ $who = sk ] && tool=$SK
	(cd "$T/fo-$who" && GIT_CEILING_DIRECTORIES=$T "$tool" index-pack --fsck-objects=badTagName=ignore u.pack \
		>"$T/fo-$who.out" 2>/dev/null
		echo $? >"$T/fo-$who.rc"
		ls -A | grep -v '[.]rev$' >"$T/fo-$who.ls")
done
same_file "$T/fo-git.rc" "$T/fo-sk.rc" && same_file "$T/fo-git.ls" "$T/fo-sk.ls" && same_file "$T/fo-git.out" "$T/fo-sk.out" && ok ||
	bad "unsupported: index-pack --fsck-objects=badTagName=ignore: git $(<"$T/fo-git.rc"), sha1kit $(<"$T/fo-sk.rc")"
# verify-pack of a name that starts with '-': git's index-pack child takes it for an option (its
# usage line), then the pack is bad, exit 1 (found by a new user's trial)
mkdir -p "$T/dash" && cp "$T/u1.pack" "$T/dash/-p.pack" && (cd "$T/dash" && git index-pack ./-p.pack >/dev/null)
for args in "-- -p.idx" "-v -- -p.idx" "-s -- -p.pack"; do
	# shellcheck disable=SC2086 # the arguments are words
	(cd "$T/dash" && refgit verify-pack $args >"$T/dg.out" 2>"$T/dg.err"; echo $? >"$T/dg.rc")
	# shellcheck disable=SC2086
	(cd "$T/dash" && "$SK" verify-pack $args >"$T/ds.out" 2>"$T/ds.err"; echo $? >"$T/ds.rc")
	same_file "$T/dg.rc" "$T/ds.rc" && same_file "$T/dg.err" "$T/ds.err" && same_file "$T/dg.out" "$T/ds.out" && ok ||
		bad "unsupported: verify-pack $args: git $(<"$T/dg.rc") $(head -c 100 "$T/dg.err"), sha1kit $(<"$T/ds.rc") $(head -c 100 "$T/ds.err")"
done
# A repository whose format git refuses (version 1 with an unknown extension, version 2, and, as
# git 2.39.5, extensions.refStorage) is none to a command that works outside one: git's gentle
# set-up warns ("warning: MSG"), and index-pack's early config ("warning: ignoring git dir '.git':
# MSG", "." for a bare one; each pack of verify-pack, whose index-pack prints them), from the top
# and from a subdirectory (found by a new user's trial)
local how where cmd
for how in ext v2 refstorage bare; do
	d=$T/refused-$how
	rm -rf "$d"
	if [ $how = bare ]; then git init -q --bare "$d"; else git init -q "$d"; fi
	mkdir -p "$d/sub"
	case $how in
	ext | bare) git -C "$d" config core.repositoryformatversion 1 && git -C "$d" config extensions.fooBar true ;;
	v2) git -C "$d" config core.repositoryformatversion 2 ;;
	refstorage) git -C "$d" config core.repositoryformatversion 1 && git -C "$d" config extensions.refStorage files ;;
	esac
	for where in . sub; do
		for cmd in "index-pack --stdin" "verify-pack $T/u1.pack $T/u1.pack" "hash-object $T/u1.pack"; do
			(cd "$d/$where" && GIT_CEILING_DIRECTORIES=$T refgit $cmd <"$T/u1.pack" >"$T/rg.out" 2>"$T/rg.err"; echo $? >"$T/rg.rc")
			(cd "$d/$where" && GIT_CEILING_DIRECTORIES=$T "$SK" $cmd <"$T/u1.pack" >"$T/rs.out" 2>"$T/rs.err"; echo $? >"$T/rs.rc")
			same_file "$T/rg.rc" "$T/rs.rc" && same_file "$T/rg.err" "$T/rs.err" && same_file "$T/rg.out" "$T/rs.out" && ok ||
				bad "unsupported: $how, $cmd in $where: git $(<"$T/rg.rc") $(<"$T/rg.err"), sha1kit $(<"$T/rs.rc") $(<"$T/rs.err")"
		done
	done
	ls "$d/objects/pack" "$d/.git/objects/pack" 2>/dev/null | grep -q '[.]pack$' && bad "unsupported: $how: a pack was written" || ok
done
# a Git version sha1kit does not follow is a usage error (129), from the option or the environment
# (index-pack and verify-pack gave 1 for the environment's: a new user's trial)
for cmd in "index-pack -o $T/gv.idx $T/u1.pack" "index-pack --verify $T/u1.pack" "verify-pack $T/u1.pack"; do
	for how in opt env; do
		if [ $how = opt ]; then
			# shellcheck disable=SC2086 # the command is words
			"$SK" ${cmd%% *} --git-version=2.47 ${cmd#* } >/dev/null 2>"$T/gv.err"
		else
			# shellcheck disable=SC2086
			SHA1KIT_GIT_VERSION=2.47 "$SK" $cmd >/dev/null 2>"$T/gv.err"
		fi
		rc=$?
		[ $rc = 129 ] && grep -q 'the Git to follow is 2.39 or 2.55' "$T/gv.err" && [ ! -e "$T/gv.idx" ] && ok ||
			bad "unsupported: $cmd, version 2.47 by $how: exit $rc, $(head -c 200 "$T/gv.err")"
	done
done
# -v's meters line for line (git's progress.c: a line at each new percentage, the first count
# included, "Resolving deltas" from 0, the last line again with ", done."; "Receiving objects" for
# --stdin; none for a pack without objects): a pack of 120 objects, 77 of them deltas, with 1 and
# 2 threads, from a file and from standard input, and an empty pack
git init -q "$T/vd" && (cd "$T/vd" && for i in $(seq 1 40); do seq 1 $((i * 50)) >f && git add f &&
	git commit -qm "c$i"; done && git repack -adqf --depth=50) || bad "unsupported: cannot make the delta pack"
cp "$T"/vd/.git/objects/pack/*.pack "$T/vd.pack"
printf 'PACK\0\0\0\2\0\0\0\0' >"$T/ve.pack"
"$SK" sum "$T/ve.pack" | cut -c1-40 | xxd -r -p >>"$T/ve.pack"
for c in "vd.pack:--threads=1" "vd.pack:--threads=2" "ve.pack:" "vd.pack:--stdin" "ve.pack:--stdin"; do
	pk=${c%%:*} args=${c#*:}
	for who in git sk; do
		tool=refgit one=
		# git's meter with threads skips a percentage now and then (two deltas resolved between
		# two draws): git's lines are those of one thread, which sha1kit draws with any number
		[ "$who" = git ] && one=--threads=1
		[ "$who" = sk ] && tool=$SK
		rm -rf "$T/vm-$who" && git init -q "$T/vm-$who" && cp "$T/$pk" "$T/vm-$who/x.pack"
		# shellcheck disable=SC2086 # the arguments are words
		if [ "$args" = --stdin ]; then
			(cd "$T/vm-$who" && "$tool" index-pack -v $one --stdin <"$T/$pk" >/dev/null 2>"$T/vm-$who.err")
		else
			(cd "$T/vm-$who" && "$tool" index-pack -v $args $one x.pack >/dev/null 2>"$T/vm-$who.err")
		fi
	done
	# the rate of --stdin's throughput is the machine's: masked
	for who in git sk; do
		tr '\r' '\n' <"$T/vm-$who.err" | sed 's/ | [0-9.]* [KMG]*i*B*y*t*e*s*\/s, done[.]$/ | RATE, done./' >"$T/vm-$who.lines"
	done
	same_file "$T/vm-git.lines" "$T/vm-sk.lines" && ok || {
		diff "$T/vm-git.lines" "$T/vm-sk.lines" | head -5
		bad "unsupported: index-pack -v $args ($pk): the meters differ"
	}
done
# verify-pack of a pack that cannot be read (no permission; as root, without CAP_DAC_OVERRIDE):
# git's child index-pack dies with its line, verify-pack exits 1
if [ -z "${SK_WINDOWS:-}" ] && [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	rm -rf "$T/vu" && mkdir "$T/vu" && cp "$T/vd.pack" "$T/vu/u.pack" && (cd "$T/vu" && "$SK" index-pack u.pack >/dev/null)
	chmod 000 "$T/vu/u.pack"
	sp=(setpriv --bounding-set=-dac_override,-dac_read_search --inh-caps=-dac_override,-dac_read_search)
	(cd "$T/vu" && "${sp[@]}" "$SK_REF_GIT" verify-pack u.idx >"$T/vu-g.out" 2>"$T/vu-g.err")
	grc=$?
	(cd "$T/vu" && "${sp[@]}" "$SK" verify-pack u.idx >"$T/vu-s.out" 2>"$T/vu-s.err")
	src=$?
	chmod 644 "$T/vu/u.pack"
	[ $grc = $src ] && same_file "$T/vu-g.err" "$T/vu-s.err" && same_file "$T/vu-g.out" "$T/vu-s.out" && ok ||
		bad "unsupported: verify-pack of an unreadable pack: git $grc $(<"$T/vu-g.err"), sha1kit $src $(<"$T/vu-s.err")"
fi
# --verify --check-self-contained-and-connected in a repository that has the parent's objects: a
# pack of the last commit only links outside itself, exit status 1 (as without --verify)
local sc=$T/selfc who
git init -q "$sc" && (cd "$sc" && echo a >a && git add a && git commit -qm a && echo b >b && git add b &&
	git commit -qm b && echo HEAD | git rev-list --objects --stdin --not HEAD~1 |
	git pack-objects --quiet "$T/sc" >"$T/sc.name" && git repack -qad) # (the parent's objects packed)
for who in git sk; do
	cp "$T/sc-$(<"$T/sc.name").pack" "$T/sc-$who.pack"
	cp "$T/sc-$(<"$T/sc.name").idx" "$T/sc-$who.idx"
	tool=refgit
	[ $who = sk ] && tool=$SK
	(cd "$sc" && "$tool" index-pack --verify --check-self-contained-and-connected "$T/sc-$who.pack" >"$T/sc-$who.out" 2>&1
		echo $? >"$T/sc-$who.rc")
done
same_file "$T/sc-git.rc" "$T/sc-sk.rc" && same_file "$T/sc-git.out" "$T/sc-sk.out" && [ "$(<"$T/sc-sk.rc")" = 1 ] && ok ||
	bad "unsupported: --verify --check-self-contained-and-connected: git $(<"$T/sc-git.rc"), sha1kit $(<"$T/sc-sk.rc") $(<"$T/sc-sk.out")"
}

# SHA-256 packs (Git's hash-function-transition.txt; `git init --object-format=sha256`): a history
# with deltas, a tag and a subdirectory, packed with OFS_DELTA (git repack) and REF_DELTA (git
# pack-objects --no-delta-base-offset). index-pack --object-format=sha256 outside a repository
# writes git's idx (versions 2, 2,OFFSET, 1 and 1,OFFSET: git writes version 2 when the last
# object is above OFFSET) and .rev byte for byte with 1 and 3 threads, and git's
# checksum line; --verify and verify-pack (-v: git's lines, 64 hex digits) take them, verify-pack
# in the repository without the option too (its extensions.objectFormat); git's lines and exit
# status for a flipped trailer, a cut pack, a SHA-256 pack read as SHA-1, an unknown
# --object-format and --object-format with --stdin. Inside a SHA-256 repository, index-pack
# --stdin writes git's files, and its collision check is git's: a loose copy of another content
# (same size, another size) and one that does not inflate, with the repository's objects loose,
# then packed.
section_sha256() {
local R=$T/h256 V=$T/nowhere/h256 name iv ivn th f rc want
local -x GIT_CEILING_DIRECTORIES=$T # $V and its parents are in no repository (the test may run in one)
refgit init -q --object-format=sha256 "$R" || { bad "sha256: cannot make a SHA-256 repository"; return; }
(
	cd "$R" || exit 1
	mkdir -p sub
	for i in $(seq 1 24); do
		seq 1 $((i * 40)) >f.txt
		echo "v$i" >"sub/g$((i % 4)).txt"
		git add -A && git commit -qm "c$i"
	done
	git tag -a -m "tag v1" v1
	git repack -adq
) || { bad "sha256: cannot make the history"; return; }
mkdir -p "$V"
cp "$R"/.git/objects/pack/*.pack "$V/ofs.pack"
(cd "$R" && git rev-list --objects --all | git pack-objects -q --no-delta-base-offset --stdout) >"$V/ref.pack"
for name in ofs ref; do
	for iv in 2 2,2000 1 1,2000; do
		ivn=${iv//,/_}
		# under Wine and ASan one in SHA1KIT_CASE_SHARE, and version 2, which the end reads
		[ "$iv" = 2 ] || sk_share_case || continue
		(cd "$V" && refgit index-pack --object-format=sha256 --rev-index --index-version=$iv -o "$name-$ivn.git.idx" "$name.pack" >"$name.git.out" 2>&1) ||
			{ bad "sha256: git index-pack $name $iv failed: $(<"$V/$name.git.out")"; continue; }
		for th in 1 3; do
			rm -f "$V/$name.s.idx" "$V/$name.s.rev"
			(cd "$V" && "$SK" index-pack --rev-index --object-format=sha256 --threads=$th --index-version=$iv -o "$name.s.idx" "$name.pack" >"$name.s.out" 2>&1)
			rc=$?
			[ "$rc" = 0 ] && same_file "$V/$name-$ivn.git.idx" "$V/$name.s.idx" && same_file "$V/$name-$ivn.git.rev" "$V/$name.s.rev" &&
				same_file "$V/$name.git.out" "$V/$name.s.out" && ok ||
				bad "sha256: index-pack $name --index-version=$iv --threads=$th: rc $rc, idx/rev/stdout not git's: $(cmp "$V/$name-$ivn.git.idx" "$V/$name.s.idx"; cmp "$V/$name-$ivn.git.rev" "$V/$name.s.rev"; diff "$V/$name.git.out" "$V/$name.s.out" | head -3)"
			# (git opens an idx only with NAME.pack beside it)
			ln -f "$V/$name.pack" "$V/$name-$ivn.git.pack"
			# (--index-version=1: git takes the version of the existing idx)
			(cd "$V" && "$SK" index-pack --verify --index-version=1 --object-format=sha256 --threads=$th -o "$name-$ivn.git.idx" "$name.pack" >v.out 2>&1) && ok ||
				bad "sha256: index-pack --verify $name $iv --threads=$th: $(<"$V/v.out")"
		done
	done
	cp "$V/$name.pack" "$V/vp-$name.pack"
	cp "$V/$name-2.git.idx" "$V/vp-$name.idx"
	(cd "$V" && refgit verify-pack -v --object-format=sha256 "vp-$name.pack" >"vp-$name.git.v" 2>&1)
	(cd "$V" && "$SK" verify-pack -v --object-format=sha256 "vp-$name.pack" >"vp-$name.s.v" 2>&1)
	rc=$?
	[ "$rc" = 0 ] && same_file "$V/vp-$name.git.v" "$V/vp-$name.s.v" && grep -qE '^[0-9a-f]{64} commit ' "$V/vp-$name.s.v" && ok ||
		bad "sha256: verify-pack -v $name: rc $rc, $(diff "$V/vp-$name.git.v" "$V/vp-$name.s.v" | head -5)"
done
# in the repository: verify-pack takes its object format; index-pack stops
f=$(ls "$R"/.git/objects/pack/*.idx)
(cd "$R" && "$SK" verify-pack -v "$f" >"$V/in.s" 2>&1)
rc=$?
(cd "$R" && refgit verify-pack -v "$f" >"$V/in.g" 2>&1)
[ "$rc" = 0 ] && same_file "$V/in.g" "$V/in.s" && ok || bad "sha256: verify-pack in the repository: rc $rc, $(head -3 "$V/in.s")"
(cd "$R" && "$SK" index-pack -o "$V/in.idx" "$V/ref.pack" >"$V/in.out" 2>"$V/in.err")
rc=$?
[ "$rc" = 0 ] && same_file "$V/in.idx" "$V/ref-2.git.idx" && [ ! -s "$V/in.err" ] && ok ||
	bad "sha256: index-pack in a SHA-256 repository: rc $rc, $(<"$V/in.err")"
local blob kind who loosef
blob=$(cd "$R" && git rev-parse HEAD:sub/g0.txt)
for kind in ok same-size other-size garbage packed; do
	for who in g s; do
		rm -rf "$V/c-$who" "$V/old-$who"
		cp -r "$R" "$V/c-$who"
		if [ $kind = packed ]; then
			(cd "$V/c-$who" && git repack -adq)
		else
			(cd "$V/c-$who" && mkdir ../old-$who && mv .git/objects/pack/* ../old-$who/ && git unpack-objects -q <"$V/ofs.pack")
		fi
		loosef=$V/c-$who/.git/objects/${blob:0:2}/${blob:2}
		case $kind in
		same-size) printf 'blob 3\0zz\n' | "$PY" -c 'import sys, zlib; sys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read()))' >"$loosef" ;;
		other-size) printf 'blob 4\0zzz\n' | "$PY" -c 'import sys, zlib; sys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read()))' >"$loosef" ;;
		garbage) echo garbage >"$loosef" ;;
		esac
		if [ $who = g ]; then
			(cd "$V/c-$who" && refgit index-pack --stdin <"$V/ref.pack" >"$V/$who.out" 2>"$V/$who.err"; echo $? >"$V/$who.rc")
		else
			(cd "$V/c-$who" && "$SK" index-pack --stdin <"$V/ref.pack" >"$V/$who.out" 2>"$V/$who.err"; echo $? >"$V/$who.rc")
		fi
	done
	same_file "$V/g.rc" "$V/s.rc" && same_file "$V/g.err" "$V/s.err" && same_file "$V/g.out" "$V/s.out" &&
		if [ $kind = ok ] || [ $kind = packed ]; then
			diff -r -x '*.rev' "$V/c-g/.git/objects/pack" "$V/c-s/.git/objects/pack" >/dev/null
		else
			# git leaves its tmp_pack_*, sha1kit nothing
			grep -q '^fatal: ' "$V/s.err" && [ -z "$(ls "$V/c-s/.git/objects/pack")" ]
		fi && ok ||
		bad "sha256: index-pack --stdin in the repository, $kind: git $(<"$V/g.rc") $(<"$V/g.err"), sha1kit $(<"$V/s.rc") $(<"$V/s.err")"
done
# git's lines and exit status: a flipped trailer byte, a cut pack, a SHA-256 pack read as SHA-1,
# an unknown format, --object-format with --stdin (in a repository and outside one)
"$PY" - "$V/ref.pack" "$V/flip.pack" "$V/cut.pack" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
e = bytearray(d)
e[-5] ^= 0x40
open(sys.argv[2], "wb").write(e)
open(sys.argv[3], "wb").write(d[: len(d) - 40])
PY
cp "$V/vp-ref.idx" "$V/flip.idx"
local -a cases=("index-pack --object-format=sha256 -o x.idx flip.pack" "index-pack --object-format=sha256 -o x.idx cut.pack"
	"index-pack -o x.idx ref.pack" "index-pack --object-format=md5 -o x.idx ref.pack" "verify-pack -v --object-format=sha256 flip.pack"
	"verify-pack -v --object-format=sha1x vp-ref.pack")
local c
for c in "${cases[@]}"; do
	# shellcheck disable=SC2086
	(cd "$V" && GIT_CEILING_DIRECTORIES=$T refgit $c >g.out 2>g.err; echo $? >g.rc; rm -f x.idx x.rev)
	# shellcheck disable=SC2086
	(cd "$V" && GIT_CEILING_DIRECTORIES=$T "$SK" $c >s.out 2>s.err; echo $? >s.rc; ls x.idx x.rev 2>/dev/null >s.left)
	same_file "$V/g.rc" "$V/s.rc" && same_file "$V/g.err" "$V/s.err" && same_file "$V/g.out" "$V/s.out" && [ ! -s "$V/s.left" ] && ok ||
		bad "sha256: $c: git $(<"$V/g.rc") $(head -2 "$V/g.err"), sha1kit $(<"$V/s.rc") $(head -2 "$V/s.err")"
done
for c in "$R" "$T/nowhere"; do
	mkdir -p "$c"
	(cd "$c" && GIT_CEILING_DIRECTORIES=$T refgit index-pack --stdin --object-format=sha256 <"$V/ref.pack" >"$V/g.out" 2>"$V/g.err"; echo $? >"$V/g.rc")
	(cd "$c" && GIT_CEILING_DIRECTORIES=$T "$SK" index-pack --stdin --object-format=sha256 <"$V/ref.pack" >"$V/s.out" 2>"$V/s.err"; echo $? >"$V/s.rc")
	same_file "$V/g.rc" "$V/s.rc" && same_file "$V/g.err" "$V/s.err" && same_file "$V/g.out" "$V/s.out" && ok ||
		bad "sha256: index-pack --stdin --object-format in $c: git $(<"$V/g.rc") $(<"$V/g.err"), sha1kit $(<"$V/s.rc") $(<"$V/s.err")"
done
# "--object-format sha256" (two words): git's index-pack knows only the '=' form and prints its
# usage (129); sha1kit's usage error (129 too), nothing written. git's verify-pack takes both forms.
(cd "$V" && "$SK" index-pack --object-format sha256 -o x.idx ref.pack >s.out 2>s.err; echo $? >s.rc)
[ "$(<"$V/s.rc")" = 129 ] && grep -q "takes its value after '='" "$V/s.err" && [ ! -e "$V/x.idx" ] && ok ||
	bad "sha256: index-pack --object-format sha256: $(<"$V/s.rc") $(<"$V/s.err")"
(cd "$V" && GIT_CEILING_DIRECTORIES=$T refgit verify-pack --object-format sha256 vp-ref.idx >g.out 2>g.err; echo $? >g.rc)
(cd "$V" && GIT_CEILING_DIRECTORIES=$T "$SK" verify-pack --object-format sha256 vp-ref.idx >s.out 2>s.err; echo $? >s.rc)
same_file "$V/g.rc" "$V/s.rc" && same_file "$V/g.err" "$V/s.err" && [ "$(<"$V/s.rc")" = 0 ] && ok ||
	bad "sha256: verify-pack --object-format sha256: git $(<"$V/g.rc") $(<"$V/g.err"), sha1kit $(<"$V/s.rc") $(<"$V/s.err")"
}

# index-pack --stdin --fix-thin (what receive-pack runs on a push; git 2.39.5
# builtin/index-pack.c fix_unresolved_deltas, pack-write.c fixup_pack_header_footer): a thin pack
# B ^A, as REF_DELTA only and with OFS_DELTA, indexed into a repository that has A (its objects
# loose, then packed; core.compression 9; core.loosecompression 0 over core.compression 9): git's
# stdout, stderr and exit status, and the completed pack and idx byte for byte (git appends the
# missing bases as whole objects, zlib at its zlib_compression_level). B reverts a file to a
# version of A's history, so that the pack holds an object the repository has too. Errors: a base
# the repository lacks ("fatal: pack has N unresolved deltas"; git leaves its tmp_pack_*, sha1kit
# nothing) and --fix-thin without --stdin. With --rev-index, the .rev too. Also: --strict; the
# bases only in an alternate object directory; a stored base that does not read (git dies); a delta
# that does not apply on its appended base.
# thin_pair PREFIX: in the current repository, the thin packs of HEAD ^a, REF_DELTA only
# (PREFIX-ref.pack) and with OFS_DELTA (PREFIX-ofs.pack)
thin_pair() {
	printf 'HEAD\n^a\n' | git pack-objects -q --thin --revs --stdout >"$1-ref.pack" &&
		printf 'HEAD\n^a\n' | git pack-objects -q --thin --revs --stdout --delta-base-offset >"$1-ofs.pack"
}
section_fix_thin() { # leaks
local S=$T/ft-src B=$T/ft-base i name fixture pack want got n_thin n_fixed other kind repo blob idx off f grc rc
git init -q "$S"
(
	cd "$S" || exit 1
	for i in $(seq 1 14); do
		v=$i
		[ "$i" = 12 ] && v=3 # a revert to a version of A's history
		awk -v v="$v" 'BEGIN { for (k = 1; k <= 800; k++) { if (k % 37 == v) print "version", v, "line", k; else print "line", k, "of a file with revisions" } }' >f.txt
		awk -v i="$i" 'BEGIN { for (k = 1; k <= 300; k++) print (k == i * 7 ? "edit " i : "text " k) }' >g.txt
		git add -A && git commit -qm "r$i"
	done
	git branch a HEAD~6
	thin_pair "$T/ft"
) || { bad "fix_thin: cannot build the repository"; return; }
git init -q --bare "$B" && git -C "$B" fetch -q "$S" a:refs/heads/a || { bad "fix_thin: cannot fetch A"; return; }
cp -a "$B" "$T/ft-packed" && git -C "$T/ft-packed" repack -adq
cp -a "$B" "$T/ft-l9" && git -C "$T/ft-l9" config core.compression 9
cp -a "$B" "$T/ft-lc" && git -C "$T/ft-lc" config core.loosecompression 0 && git -C "$T/ft-lc" config core.compression 9
git init -q --bare "$T/ft-empty"
# fixthin_case NAME REPO PACK [OPTION...]: both indexers in a copy of REPO; prints nothing, counts
# (The calls whose files nothing reads after them run under Wine and ASan one in SHA1KIT_CASE_SHARE,
# testlib.sh: they differ in the repository's objects and options, the same C on every platform.)
fixthin_case() {
	local name=$1 repo=$2 pack=$3 f
	shift 3
	rm -rf "$T/ftg" "$T/fts"
	cp -a "$repo" "$T/ftg" && cp -a "$repo" "$T/fts"
	# --rev-index on both sides (git 2.39 writes no .rev by default, sha1kit and git 2.41+ do)
	(cd "$T/ftg" && refgit index-pack --rev-index "$@" <"$pack" >"$T/ftg.out" 2>"$T/ftg.err"; echo $? >"$T/ftg.rc")
	(cd "$T/fts" && "$SK" index-pack --rev-index "$@" <"$pack" >"$T/fts.out" 2>"$T/fts.err"; echo $? >"$T/fts.rc")
	# Wine spells an alternate's absolute path with its drive (Z:/tmp/...)
	[ -z "${SK_WINDOWS:-}" ] || sed -i -e 's|(stored in Z:/|(stored in /|' -e 's|^error: object file Z:/|error: object file /|' "$T/fts.err"
	same_file "$T/ftg.rc" "$T/fts.rc" && same_file "$T/ftg.out" "$T/fts.out" && same_file "$T/ftg.err" "$T/fts.err" && ok ||
		bad "fix_thin $name: git rc $(<"$T/ftg.rc") $(cat "$T/ftg.out" "$T/ftg.err"), sha1kit rc $(<"$T/fts.rc") $(cat "$T/fts.out" "$T/fts.err")"
	# the same files, git's temporary pack aside (sha1kit leaves none)
	(cd "$T/ftg/objects/pack" && ls | grep -v '^tmp_pack_') >"$T/ftg.ls"
	(cd "$T/fts/objects/pack" && ls) >"$T/fts.ls"
	same_file "$T/ftg.ls" "$T/fts.ls" && ok || bad "fix_thin $name: files: git $(<"$T/ftg.ls"), sha1kit $(<"$T/fts.ls")"
	for f in $(<"$T/ftg.ls"); do
		same_file "$T/ftg/objects/pack/$f" "$T/fts/objects/pack/$f" && ok || bad "fix_thin $name: $f differs from git's"
	done
}
for pack in ref ofs; do
	for fixture in ft-base ft-packed ft-l9 ft-lc; do
		! sk_share_case || fixthin_case "$pack $fixture" "$T/$fixture" "$T/ft-$pack.pack" --stdin --fix-thin
	done
	! sk_share_case || fixthin_case "$pack threads=1" "$T/ft-base" "$T/ft-$pack.pack" --stdin --fix-thin --threads=1
	# --strict: the deltas resolved on the appended bases are checked as git's second pass does
	! sk_share_case || fixthin_case "$pack strict" "$T/ft-base" "$T/ft-$pack.pack" --stdin --fix-thin --strict
	# not vacuous: git completed the pack with objects of the repository
	n_thin=$(od -An -tu1 -j8 -N4 "$T/ft-$pack.pack" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	fixthin_case "$pack count" "$T/ft-base" "$T/ft-$pack.pack" --stdin --fix-thin
	name=$(sed -n 's/^pack\t//p' "$T/ftg.out")
	n_fixed=$(od -An -tu1 -j8 -N4 "$T/ftg/objects/pack/pack-$name.pack" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	[ -n "$name" ] && [ "$n_fixed" -gt "$n_thin" ] && ok || bad "fix_thin $pack: git appended nothing ($n_thin -> $n_fixed objects)"
	# a base the repository lacks
	fixthin_case "$pack missing base" "$T/ft-empty" "$T/ft-$pack.pack" --stdin --fix-thin
	want="fatal: pack has"
	got=$(<"$T/fts.err")
	[ "$(<"$T/fts.rc")" = 128 ] && [ "${got#"$want"}" != "$got" ] && [ ! -s "$T/fts.ls" ] && ok ||
		bad "fix_thin $pack missing base: rc $(<"$T/fts.rc"), $got, files $(<"$T/fts.ls")"
done
# bases only in an alternate object directory (objects/info/alternates, loose or packed there):
# git reads them there too (read_object_file goes through the alternates)
for fixture in ft-base ft-packed; do
	git init -q --bare "$T/ft-alt-$fixture" && echo "$T/$fixture/objects" >"$T/ft-alt-$fixture/objects/info/alternates"
	for pack in ref ofs; do
		fixthin_case "$pack alternate $fixture" "$T/ft-alt-$fixture" "$T/ft-$pack.pack" --stdin --fix-thin
		[ "$(<"$T/fts.rc")" = 0 ] && [ -s "$T/fts.ls" ] && ok || bad "fix_thin $pack alternate $fixture: rc $(<"$T/fts.rc"), $(<"$T/fts.err")"
		# --strict's links outside the pack found there too (check_objects reads every source):
		# a push with receive.fsckObjects into a repository with alternates
		fixthin_case "$pack alternate $fixture strict" "$T/ft-alt-$fixture" "$T/ft-$pack.pack" --stdin --fix-thin --strict
		[ "$(<"$T/fts.rc")" = 0 ] && ok || bad "fix_thin $pack alternate $fixture --strict: rc $(<"$T/fts.rc"), $(<"$T/fts.err")"
	done
done
# a stored base that does not read: git dies (fix_unresolved_deltas, read_object_file_extended):
# a loose file that does not inflate ("loose object ID (stored in PATH) is corrupt"), one whose
# content is another object's ("local object ID is corrupt"); in the repository and in an alternate
fixthin_case "ref count" "$T/ft-base" "$T/ft-ref.pack" --stdin --fix-thin
# the thin pack without --fix-thin, with -v: git resolves what it can, its meter stands there and
# its fatal line is written over it (no newline between)
for pack in ref ofs; do
	rm -f "$T/ftv.idx"
	refgit index-pack -v --threads=1 -o "$T/ftv.idx" "$T/ft-$pack.pack" >/dev/null 2>"$T/ftv-g.err"
	grc=$?
	"$SK" index-pack -v -o "$T/ftv.idx" "$T/ft-$pack.pack" >/dev/null 2>"$T/ftv-s.err"
	rc=$?
	# (the first meter's lines and its throughput depend on timing: from "Resolving deltas" on)
	sed -n 's/.*\(Resolving deltas\)/\1/p' "$T/ftv-g.err" | tr '\r' '\n' >"$T/ftv-g.res"
	sed -n 's/.*\(Resolving deltas\)/\1/p' "$T/ftv-s.err" | tr '\r' '\n' >"$T/ftv-s.res"
	[ "$rc" = "$grc" ] && [ -s "$T/ftv-g.res" ] && same_file "$T/ftv-g.res" "$T/ftv-s.res" && ok ||
		bad "thin $pack pack, -v without --fix-thin: git $grc, sha1kit $rc: $(diff "$T/ftv-g.res" "$T/ftv-s.res" | head -5)"
	# with --fix-thin, into a repository with the bases and into an empty one: git's meter ends
	# "completed with N local objects" at the deltas resolved (then dies when some are left)
	for repo in ft-base ft-empty; do
		rm -rf "$T/ftv-g" "$T/ftv-s"
		cp -a "$T/$repo" "$T/ftv-g" && cp -a "$T/$repo" "$T/ftv-s"
		(cd "$T/ftv-g" && refgit index-pack -v --threads=1 --stdin --fix-thin <"$T/ft-$pack.pack" >/dev/null 2>"$T/ftv-g.err")
		grc=$?
		(cd "$T/ftv-s" && "$SK" index-pack -v --stdin --fix-thin <"$T/ft-$pack.pack" >/dev/null 2>"$T/ftv-s.err")
		rc=$?
		sed -n 's/.*\(Resolving deltas\)/\1/p' "$T/ftv-g.err" | tr '\r' '\n' >"$T/ftv-g.res"
		sed -n 's/.*\(Resolving deltas\)/\1/p' "$T/ftv-s.err" | tr '\r' '\n' >"$T/ftv-s.res"
		[ "$rc" = "$grc" ] && grep -q 'completed with' "$T/ftv-g.res" && same_file "$T/ftv-g.res" "$T/ftv-s.res" && ok ||
			bad "thin $pack pack into $repo, -v --fix-thin: git $grc, sha1kit $rc: $(diff "$T/ftv-g.res" "$T/ftv-s.res" | head -5)"
	done
done
name=$(sed -n 's/^pack	//p' "$T/ftg.out")
n_thin=$(($(wc -c <"$T/ft-ref.pack") - 20))
# the bases git appended: the entries after the received ones; the first in pack order
want=$(git show-index <"$T/ftg/objects/pack/pack-$name.idx" | sort -n | awk -v n="$n_thin" '$1 >= n { print $2; exit }')
other=$(git -C "$T/ft-base" rev-parse a)
for kind in garbage other empty; do
	rm -rf "$T/ft-bad-$kind" && cp -a "$T/ft-base" "$T/ft-bad-$kind"
	f=$T/ft-bad-$kind/objects/${want%"${want#??}"}/${want#??}
	if [ -z "$want" ] || [ ! -f "$f" ]; then
		bad "fix_thin bad base: no loose base ($want)"
		continue
	fi
	rm -f "$f"
	if [ "$kind" = garbage ]; then
		printf 'not zlib data' >"$f"
	elif [ "$kind" = empty ]; then
		: >"$f" # git 2.39.5 dies as for a corrupt file; 2.40+ says it is empty and goes on without it
	else
		cp "$T/ft-base/objects/${other%"${other#??}"}/${other#??}" "$f"
	fi
	git init -q --bare "$T/ft-bad-alt-$kind" && echo "$T/ft-bad-$kind/objects" >"$T/ft-bad-alt-$kind/objects/info/alternates"
	for repo in ft-bad-$kind ft-bad-alt-$kind; do
		fixthin_case "ref $repo" "$T/$repo" "$T/ft-ref.pack" --stdin --fix-thin
		got=$(tail -n 1 "$T/fts.err")
		case $kind in
		garbage) case $got in "fatal: loose object $want (stored in "*") is corrupt") ok ;; *) bad "fix_thin $repo: $got" ;; esac ;;
		other) [ "$got" = "fatal: local object $want is corrupt" ] && ok || bad "fix_thin $repo: $got" ;;
		empty) grep -q "^error: object file .* is empty\$" "$T/fts.err" && ok || bad "fix_thin $repo: $(<"$T/fts.err")" ;;
		esac
	done
done
# a packed base whose entry does not inflate: git dies "packed object ID (stored in PATH) is
# corrupt" (has_packed_and_bad); its zlib lines before differ (sha1kit's pack reader gives none):
# the exit status and that last line are compared
rm -rf "$T/ft-bad-packed" && cp -a "$T/ft-packed" "$T/ft-bad-packed"
idx=$(ls "$T/ft-bad-packed/objects/pack/"*.idx)
off=$(git show-index <"$idx" | awk -v w="$want" '$2 == w { print $1 }')
if [ -n "$off" ]; then
	chmod u+w "${idx%.idx}.pack"
	printf 'XXXXXXXX' | dd of="${idx%.idx}.pack" bs=1 seek=$((off + 8)) conv=notrunc 2>/dev/null
	rm -rf "$T/ftg" "$T/fts"
	cp -a "$T/ft-bad-packed" "$T/ftg" && cp -a "$T/ft-bad-packed" "$T/fts"
	(cd "$T/ftg" && refgit index-pack --stdin --fix-thin <"$T/ft-ref.pack" >"$T/ftg.out" 2>"$T/ftg.err"; echo $? >"$T/ftg.rc")
	(cd "$T/fts" && "$SK" index-pack --stdin --fix-thin <"$T/ft-ref.pack" >"$T/fts.out" 2>"$T/fts.err"; echo $? >"$T/fts.rc")
	got=$(tail -n 1 "$T/fts.err")
	[ "$(<"$T/ftg.rc")" = 128 ] && [ "$(<"$T/fts.rc")" = 128 ] && [ "$got" = "$(tail -n 1 "$T/ftg.err")" ] &&
		[ "$got" = "fatal: packed object $want (stored in ./objects/pack/$(basename "${idx%.idx}").pack) is corrupt" ] && ok ||
		bad "fix_thin ref ft-bad-packed: git rc $(<"$T/ftg.rc") $(<"$T/ftg.err"), sha1kit rc $(<"$T/fts.rc") $got"
else
	bad "fix_thin bad packed base: $want is not in the pack"
fi
# a delta that does not apply on its appended base (it names a base of another size): git dies
# (resolve_delta: "pack has bad object at offset 12: failed to apply delta"), sha1kit gives its
# own message for the entry; neither leaves an idx
blob=$(git -C "$T/ft-base" rev-parse a:g.txt)
"$PY" - "$blob" "$T/ft-badapply.pack" <<'PYEOF' || bad "fix_thin: cannot make ft-badapply.pack"
import hashlib, sys, zlib
base, out = bytes.fromhex(sys.argv[1]), sys.argv[2]
def varint(n):
    b = bytearray()
    while True:
        c, n = n & 0x7F, n >> 7
        b.append(c | 0x80 if n else c)
        if not n:
            return bytes(b)
data = varint(7) + varint(3) + bytes([3]) + b"abc"  # a base of 7 bytes, then insert "abc"
pack = bytearray(b"PACK" + (2).to_bytes(4, "big") + (1).to_bytes(4, "big"))
pack += bytes([0x70 | len(data)]) + base + zlib.compress(data)  # REF_DELTA, size < 16
pack += hashlib.sha1(pack).digest()
open(out, "wb").write(pack)
PYEOF
rm -rf "$T/ftg" "$T/fts"
cp -a "$T/ft-base" "$T/ftg" && cp -a "$T/ft-base" "$T/fts"
(cd "$T/ftg" && refgit index-pack --stdin --fix-thin <"$T/ft-badapply.pack" >"$T/ftg.out" 2>"$T/ftg.err"; echo $? >"$T/ftg.rc")
(cd "$T/fts" && "$SK" index-pack --stdin --fix-thin <"$T/ft-badapply.pack" >"$T/fts.out" 2>"$T/fts.err"; echo $? >"$T/fts.rc")
[ "$(<"$T/ftg.rc")" = 128 ] && grep -q 'failed to apply delta' "$T/ftg.err" && [ "$(<"$T/fts.rc")" = 128 ] &&
	same_file "$T/ftg.err" "$T/fts.err" && [ -z "$(ls "$T/fts/objects/pack")" ] && ok ||
	bad "fix_thin bad apply: git rc $(<"$T/ftg.rc") $(<"$T/ftg.err"), sha1kit rc $(<"$T/fts.rc") $(<"$T/fts.err") $(ls "$T/fts/objects/pack")"
# without --fix-thin the thin pack stays refused (git's 'pack has N unresolved deltas'), nothing left
rm -rf "$T/fts" "$T/ftg" && cp -a "$B" "$T/fts" && cp -a "$B" "$T/ftg"
(cd "$T/fts" && "$SK" index-pack --stdin <"$T/ft-ref.pack" >"$T/fts.out" 2>"$T/fts.err")
rc=$?
(cd "$T/ftg" && refgit index-pack --stdin <"$T/ft-ref.pack" >"$T/ftg.out" 2>"$T/ftg.err")
grc=$?
[ "$rc" = 128 ] && [ "$grc" = 128 ] && same_file "$T/ftg.err" "$T/fts.err" && grep -q 'unresolved delta' "$T/fts.err" &&
	[ -z "$(ls "$T/fts/objects/pack")" ] && ok ||
	bad "fix_thin: a thin pack without --fix-thin: rc $rc (git $grc), $(<"$T/fts.err") / git: $(<"$T/ftg.err")"
# SHA-256: the same history in a SHA-256 repository; the thin packs completed in a SHA-256
# repository with A, its objects loose or packed, with --strict too
local S2=$T/ft256-src
git init -q --object-format=sha256 "$S2" && (
	cd "$S2" || exit 1
	for i in $(seq 1 8); do
		awk -v v="$i" 'BEGIN { for (k = 1; k <= 500; k++) { if (k % 37 == v) print "version", v, "line", k; else print "line", k, "of a file" } }' >f.txt
		git add -A && git commit -qm "r$i"
	done
	git branch a HEAD~4
	thin_pair "$T/ft256"
) && git init -q --bare --object-format=sha256 "$T/ft256-base" && git -C "$T/ft256-base" fetch -q "$S2" a:refs/heads/a &&
	cp -a "$T/ft256-base" "$T/ft256-packed" && git -C "$T/ft256-packed" repack -adq ||
	{ bad "fix_thin: cannot build the SHA-256 repositories"; return; }
for pack in ref ofs; do
	for fixture in ft256-base ft256-packed; do
		fixthin_case "SHA-256 $pack $fixture" "$T/$fixture" "$T/ft256-$pack.pack" --stdin --fix-thin
		# not vacuous: bases were appended (a SHA-256 trailer and a pack line of 64 hex digits)
		name=$(sed -n 's/^pack\t//p' "$T/ftg.out")
		[ "${#name}" = 64 ] && [ "$(<"$T/fts.rc")" = 0 ] &&
			[ "$(wc -c <"$T/fts/objects/pack/pack-$name.pack")" -gt "$(wc -c <"$T/ft256-$pack.pack")" ] && ok ||
			bad "fix_thin SHA-256 $pack $fixture: pack '$name', rc $(<"$T/fts.rc")"
	done
	! sk_share_case || fixthin_case "SHA-256 $pack strict" "$T/ft256-base" "$T/ft256-$pack.pack" --stdin --fix-thin --strict
done
# --fix-thin without --stdin: git's line, exit 128, no idx
cp "$T/ft-ref.pack" "$T/ft-nostdin.pack"
fixthin_case "no --stdin" "$T/ft-base" /dev/null --fix-thin "$T/ft-nostdin.pack"
[ "$(<"$T/fts.err")" = "fatal: the option '--fix-thin' requires '--stdin'" ] && [ ! -e "$T/ft-nostdin.idx" ] && ok ||
	bad "fix_thin no --stdin: $(<"$T/fts.err")"
}

sk_run_sections
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
