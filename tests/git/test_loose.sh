#!/usr/bin/env bash
# test_loose.sh - loose objects and commit-graph / multi-pack-index / .rev trailers
# (src/git/loose.c, trailer.c, through tests/git/loose_driver) against git 2.39.5.
#
# Usage: test_loose.sh LOOSE_DRIVER [PYTHON]      (SHA1KIT_TESTDATA: the attack corpus)
#
# Repositories are made with git in a temporary directory and corrupted the ways git's
# t/t1450-fsck.sh does (garbage appended, truncated, moved to another ID's path, zlib garbage,
# headers git cannot parse, empty files, foreign names in objects/xx, tmp_obj_ files, unknown
# types made with --literally), plus bad sizes, zlib checksum and dictionary streams, 64-bit
# overflows, an unopenable subdirectory and a directory with an object's name. For each case:
#   - the lines `git fsck --full` prints about loose objects (filtered by their wording) equal,
#     in order, the lines `loose_driver scan` prints, with and without core.bigFileThreshold;
#   - git's verdict (exit bit 1, or 128 for a fatal error) equals the driver's;
#   - `loose_driver read` and `mem` (one object, from the file and from memory) print the same
#     lines for each object as the batched scan.
# Then commit-graph files (single and split chain), the multi-pack-index and .rev files are
# corrupted (byte flips in the header, chunk table, body and trailer; truncations) and the
# driver's lines equal git fsck's (git fsck's own load, then the verify process's), with the
# same ok/fail; .rev: git 2.39.5 fsck says nothing and exits 0, the driver reports in git
# 2.41's wording, and its load errors equal those git prints when it loads the .rev
# (`git cat-file --batch-check='%(objectsize:disk)'`).
# Last, the attack corpus: SHA-1DC on the shattered / SHA-mbles files gives the collision line
# with the block offset, and the shattered PDF stored as a loose blob is NOT an attack in Git
# (the 12-byte blob header moves the colliding blocks off their alignment): git fsck accepts it,
# and so does the driver, with git's ID.
#
# Usage with --section=NAME first: that section alone (ctest runs each as a test of its own,
# git_loose_NAME: tests/git/loose.cmake); without it, every section (a function section_NAME) in order.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../testlib.sh"
sk_section_arg "$@" && shift

DRV=${1:?usage: test_loose.sh LOOSE_DRIVER [PYTHON]}
PY=${2:-python3}
TESTDATA=${SHA1KIT_TESTDATA:-$(cd "$(dirname "$0")/../../testdata" && pwd)}
DRV=$(cd "$(dirname "$DRV")" && pwd)/$(basename "$DRV")
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-loose.XXXXXX")
T=$(cd "$T" && pwd -P)
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$T GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000'
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
export LC_ALL=C
unset GIT_DIR GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
sk_ref_git_line

D=${SK_LOOSE_DATA:-$T/data}
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}
# same NAME EXPECTED-FILE ACTUAL-FILE
same() {
	if same_file "$2" "$3"; then ok; else
		bad "$1"
		diff "$2" "$3" | head -20
	fi
}

# Byte surgery: zraw TEXT (python escapes, e.g. 'blob 3\0hi\n') -> zlib stream on stdout.
zraw() { "$PY" -c 'import sys, zlib; sys.stdout.buffer.write(zlib.compress(sys.argv[1].encode("latin1").decode("unicode_escape").encode("latin1")))' "$1"; }
# flip FILE OFFSET: the lowest bit of the byte at OFFSET (from the end when negative) flipped.
flip() {
	local f=$1 off=$2 b
	[ "$off" -lt 0 ] && off=$(($(stat -c %s "$f") + off))
	b=$(od -An -tu1 -j "$off" -N1 "$f")
	printf -v b '\\x%02x' $((b ^ 1))
	printf "$b" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
}
# trunc FILE N: the first N bytes of FILE (N at most its size).
trunc() { truncate -s "$2" "$1"; }
opath() { echo "objects/${1:0:2}/${1:2}"; }
fsize() { stat -c %s "$1"; }

# The lines of git fsck's stderr that are about loose objects (how loose.c words them).
LOOSE_RE='^(error: (inflate: |unable to unpack header of |unable to parse header of |unable to parse type from header |corrupt loose object |garbage at end of loose object |unable to unpack contents of |hash mismatch for |object file .* is empty$|unable to mmap |unable to open |[0-9a-f]{40}([0-9a-f]{24})?: (object corrupt or missing: |hash-path mismatch, found at: |object is of unknown type ))|bad sha1 file: |fatal: (mmap failed|size_t overflow|Data too large|Out of memory))'

# SK_LOOSE_FORMAT=sha256 (exported: the driver reads it too): the repositories are SHA-256 ones
newbare() {
	rm -rf "$T/r"
	git init -q --bare ${SK_LOOSE_FORMAT:+--object-format=$SK_LOOSE_FORMAT} "$T/r"
	cd "$T/r" || exit 1
}

LOOSE_PART=
# loose_case NAME [-t N] [-- SED]: git fsck --full (with core.bigFileThreshold=N) in the current
# repository (objects dir ./objects, or .git/objects when there is a .git) against the driver's
# scan; then every object read alone (read, mem) gives the scan's lines. SED (optional) is
# applied to both sides (to mask an ID git computes over uninitialised memory). Leaves the
# driver's lines in $T/d.err.
loose_case() {
	local name=$1 thr="" sed_expr="" objdir=./objects
	shift
	[ "${1:-}" = -t ] && { thr=$2; shift 2; }
	[ "${1:-}" = -- ] && { sed_expr=$2; shift 2; }
	[ -d .git ] && objdir=.git/objects
	local gitc=() dargs=()
	[ -n "$thr" ] && { gitc=(-c "core.bigFileThreshold=$thr"); dargs=(-t "$thr"); }
	# git 2.39.5 spins (one core, until killed) on some streamed blobs, below: a short limit
	# first, and the full one only when the driver does not call the object corrupt, so that a
	# slow git on a busy machine is never taken for a hang
	timeout 3 "$SK_REF_GIT" "${gitc[@]}" fsck --full >"$T/g.out" 2>"$T/g.err"
	local grc=$?
	"$DRV" scan "${dargs[@]}" "$objdir" >"$T/d.out" 2>"$T/d.err"
	local drc=$?
	if [ $grc = 124 ] && ! grep -qE "^error: corrupt loose object '[0-9a-f]{40}([0-9a-f]{24})?'\$" "$T/d.err"; then
		timeout 60 "$SK_REF_GIT" "${gitc[@]}" fsck --full >"$T/g.out" 2>"$T/g.err"
		grc=$?
	fi
	if [ $grc = 124 ]; then
		# git 2.39.5 loops for ever on a streamed blob whose stream stops (or goes on) where
		# the header's size is reached; the driver calls it corrupt
		must "$name (git hangs)" "^error: corrupt loose object '[0-9a-f]{40}([0-9a-f]{24})?'\$" "$T/d.err"
		[ $drc = 1 ] && ok || bad "$name (git hangs): driver exit $drc"
		return
	fi
	grep -E "$LOOSE_RE" "$T/g.err" >"$T/g.lines"
	if [ -n "$sed_expr" ]; then
		cp "$T/d.err" "$T/d.lines"
		sed -i -E "$sed_expr" "$T/g.lines" "$T/d.lines"
		same "$name: lines" "$T/g.lines" "$T/d.lines"
	else
		same "$name: lines" "$T/g.lines" "$T/d.err"
	fi
	# verdicts: fatal = 128 both; else git's object bit against the driver's failure
	local gv dv
	if [ $grc = 128 ]; then gv=fatal; elif [ $((grc & 1)) = 1 ]; then gv=fail; else gv=ok; fi
	if [ $drc = 128 ]; then dv=fatal; elif [ $drc != 0 ]; then dv=fail; else dv=ok; fi
	[ "$gv" = "$dv" ] && ok || bad "$name: git $gv (exit $grc), driver $dv (exit $drc)"
	[ $grc -lt 128 ] || [ $grc = 128 ] || bad "$name: git died of a signal ($grc)"
	[ $drc -lt 128 ] || [ $drc = 128 ] || bad "$name: driver died of a signal ($drc)"
	# each object alone, from the file and from memory: the same lines as in the scan (the scan's
	# lines in an array when they hold no NUL byte: no process for each object but the driver's)
	local st hex path nl at=1 rst text nlines plain='' k=0 part=${LOOSE_PART%/*} parts=${LOOSE_PART#*/}
	local -a dl=()
	text_of "$T/d.err" text && plain=1 && mapfile -t dl <"$T/d.err"
	while read -r st hex path nl; do
		k=$((k + 1))
		# LOOSE_PART=K/N: only the objects K, K + N, ... (the other sections read the others)
		if [ "$st" != report ] && { [ -z "$LOOSE_PART" ] || [ $(((k - part) % parts)) = 0 ]; }; then
			if [ "$nl" = 0 ]; then
				: >"$T/s.one"
			elif [ -n "$plain" ]; then
				printf '%s\n' "${dl[@]:at-1:nl}" >"$T/s.one"
			else
				sed -n "${at},$((at + nl - 1))p" "$T/d.err" >"$T/s.one"
			fi
			"$DRV" read "${dargs[@]}" "$path" >"$T/r.out" 2>"$T/r.err"
			same "$name: read $path" "$T/s.one" "$T/r.err"
			rst=
			IFS=' ' read -r rst _ <"$T/r.out"
			[ "$rst" = "$st" ] || bad "$name: read status of $path differs from scan ($st)"
			if [ -f "$path" ] && [ ! -L "$path" ]; then
				"$DRV" mem "${dargs[@]}" "$path" "$path" >"$T/m.out" 2>"$T/m.err"
				same "$name: mem $path" "$T/r.err" "$T/m.err"
				same "$name: mem status $path" "$T/r.out" "$T/m.out"
			fi
		fi
		at=$((at + nl))
	done <"$T/d.out"
	if [ -n "$plain" ]; then
		nlines=${text//[^$'\n']/}
		nlines=${#nlines}
	else
		nlines=$(wc -l <"$T/d.err")
	fi
	[ $((at - 1)) = "$nlines" ] && ok || bad "$name: scan counted $((at - 1)) lines, printed $nlines"
}

# must NAME PATTERN FILE: FILE has a line matching the ERE.
must() {
	if grep_q -Eq "$2" "$3"; then ok; else
		bad "$1: no line matching '$2'"
		sed 's/^/    /' "$3" | head -10
	fi
}
# must_not NAME ERE FILE: no line of FILE matches ERE.
must_not() {
	if grep_q -Eq "$2" "$3"; then
		bad "$1: a line matches '$2'"
		sed 's/^/    /' "$3" | head -10
	else ok; fi
}
# v255: the reference is git 2.47+ and the driver reads as sha1kit fsck does then (git 2.50+: a
# loose object of an unknown type fails the read at its header, 4ae0e9423c)
v255() { [ "${SHA1KIT_GIT_VERSION:-}" = 2.55 ]; }

# ---------------------------------------------------------------------------------------------
# A sound repository: every object read, content as git's, IDs batched = IDs alone
# ---------------------------------------------------------------------------------------------
# The sound repository is made once (the section setup: ctest's fixture git_loose, in
# $SK_LOOSE_DATA, a directory of the build tree; else in the temporary directory), and only read:
# the sections sound_K compare the whole scan each, and each reads a quarter of the objects alone.
section_setup() { # fixture
rm -rf "$D"
mkdir -p "$D"
git init -q "$D/full"
cd "$D/full" || exit 1
for i in $(seq 1 60); do
	printf 'file %d\n' "$i" >"f$((i % 7)).txt"
	seq 1 $((i * 37)) >"n$((i % 3)).txt"
	head -c $((i * 997)) /dev/zero | tr '\0' x >big.txt
	git add -A
	git commit -qm "commit $i"
done
git tag -a v1 -m 'a tag'
head -c 300000 /dev/urandom >random.bin && git add random.bin && git commit -qm random
: >"$D/done"
}
# sound_part K/N: the sound repository's scan against git's, its objects K, K + N, ... read alone.
sound_part() {
if [ ! -e "$D/done" ]; then
	bad "no sound repository in $D: the section setup makes it"
	return
fi
cd "$D/full" || exit 1
LOOSE_PART=$1
loose_case "sound repository"
if [ "$1" != 1/4 ]; then
	loose_case "sound repository, all blobs streamed" -t 0
	LOOSE_PART=
	return
fi
nobj=$(wc -l <"$T/d.out")
[ "$nobj" = "$(refgit count-objects -v | sed -n 's/^count: //p')" ] && ok || bad "sound: $nobj objects, git counts $(refgit count-objects -v | sed -n 's/^count: //p')"
[ -s "$T/d.err" ] && bad "sound: driver printed $(head -1 "$T/d.err")" || ok
awk '$1 != "ok" || $4 != 0 { exit 1 }' "$T/d.out" && ok || bad "sound: an object is not ok"
loose_case "sound repository, all blobs streamed" -t 0
LOOSE_PART=
# content of one object of each type and a streamed blob = git cat-file
for obj in HEAD HEAD^{tree} v1 HEAD:random.bin HEAD:big.txt; do
	id=$(git rev-parse "$obj")
	refgit cat-file "$(refgit cat-file -t "$id")" "$id" >"$T/want"
	"$DRV" cat ".git/$(opath "$id")" >"$T/got"
	same "cat $obj" "$T/want" "$T/got"
	"$DRV" cat -t 0 ".git/$(opath "$id")" >"$T/got"
	same "cat -t 0 $obj" "$T/want" "$T/got"
done
id=$(git rev-parse HEAD:random.bin)
"$DRV" read ".git/$(opath "$id")" >"$T/r.out" 2>&1
[ "$(<"$T/r.out")" = "ok blob 300000 $id" ] && ok || bad "read random.bin: $(<"$T/r.out")"
"$DRV" read -t 1000 ".git/$(opath "$id")" >"$T/r.out" 2>&1
[ "$(<"$T/r.out")" = "ok blob 300000 $id" ] && ok || bad "read -t 1000 random.bin: $(<"$T/r.out")"
"$DRV" list .git/objects >"$T/l.out" 2>"$T/l.err"
cut -d' ' -f2,3 "$T/d.out" >"$T/a"
same "list = scan" "$T/a" "$T/l.out"
find .git/objects -type f -path '*/objects/??/*' | sed 's,.*/objects/\(..\)/,\1,' | sort >"$T/a"
cut -d' ' -f1 "$T/l.out" | sort >"$T/b"
same "list = find" "$T/a" "$T/b"
}
section_sound_1() {
sound_part 1/4
}
section_sound_2() { # long
sound_part 2/4
}
section_sound_3() { # long
sound_part 3/4
}
section_sound_4() { # long
sound_part 4/4
}

# ---------------------------------------------------------------------------------------------
# t1450's corruptions, one per repository
# ---------------------------------------------------------------------------------------------
section_t1450() { # leaks
newbare
oid=$(git hash-object -w --stdin --literally </dev/null)
chmod +w "$(opath "$oid")" && echo extra garbage >>"$(opath "$oid")"
loose_case "garbage appended (t1450 zlib corrupt loose object output)"
printf '%s\n' "error: garbage at end of loose object '$oid'" \
	"error: unable to unpack contents of ./$(opath "$oid")" \
	"error: $oid: object corrupt or missing: ./$(opath "$oid")" >"$T/want"
same "garbage appended: t1450's three lines" "$T/want" "$T/d.err"
newbare
oid=$(echo trailing | git hash-object -w --stdin)
chmod +w "$(opath "$oid")" && echo garbage >>"$(opath "$oid")"
loose_case "garbage appended, large blob" -t 5
must "garbage, large blob" "^error: garbage at end of loose object '$oid'" "$T/d.err"

newbare
head -c 4096 /dev/urandom >"$T/file"
oid=$(git hash-object -w "$T/file")
f=$(opath "$oid") && chmod +w "$f" && trunc "$f" 1024
loose_case "truncated"
must "truncated" "^error: corrupt loose object '$oid'" "$T/d.err"
loose_case "truncated, streamed" -t 128
must "truncated, streamed" "^error: corrupt loose object '$oid'" "$T/d.err"
trunc "$f" 2
loose_case "truncated to 2 bytes"
trunc "$f" 1
loose_case "truncated to 1 byte"

for thr in "" 1; do
	newbare
	oid=$(echo blob | git hash-object -w --stdin)
	other=$(echo other | git hash-object -w --stdin)
	mv -f "$(opath "$oid")" "$(opath "$other")"
	if [ -z "$thr" ]; then
		loose_case "moved to another ID's path (hash-path mismatch)"
		must "moved" "^error: $oid: hash-path mismatch, found at: ./$(opath "$other")\$" "$T/d.err"
	else
		loose_case "moved to another ID's path, streamed" -t 1
		must "moved, streamed" "^error: hash mismatch for ./$(opath "$other") \(expected $other\)\$" "$T/d.err"
	fi
done

newbare
oid=$(echo blob | git hash-object -w --stdin -t garbage --literally)
loose_case "unknown type (t1450 garbage type)"
if v255; then
	must "unknown type" "^error: $oid: object corrupt or missing: ./$(opath "$oid")\$" "$T/d.err"
	grep -q "^corrupt " "$T/d.out" && ok || bad "unknown type: status $(<"$T/d.out")"
else
	must "unknown type" "^error: $oid: object is of unknown type 'garbage': ./$(opath "$oid")\$" "$T/d.err"
	grep -q "^unknown-type $oid" "$T/d.out" && ok || bad "unknown type: status $(<"$T/d.out")"
fi
other=$(echo other | git hash-object -w --stdin)
mv -f "$(opath "$oid")" "$(opath "$other")"
loose_case "unknown type moved (t1450 hash and type mismatch)"
if v255; then
	must "unknown type moved" "^error: $other: object corrupt or missing: ./$(opath "$other")\$" "$T/d.err"
	must_not "unknown type moved" "hash-path mismatch" "$T/d.err"
else
	must "unknown type moved" "^error: $oid: hash-path mismatch, found at: ./$(opath "$other")\$" "$T/d.err"
fi
newbare
oid=$(git hash-object -w --stdin -t garbage --literally </dev/null)
chmod +w "$(opath "$oid")" && echo x >>"$(opath "$oid")"
loose_case "unknown type with garbage"
if v255; then
	must_not "unknown type with garbage" "garbage at end|unknown type" "$T/d.err"
else
	must "unknown type with garbage" "^error: 0{40}(0{24})?: object is of unknown type 'garbage'" "$T/d.err"
fi

newbare
oid=$(echo hi | git hash-object -w --stdin)
f=$(opath "$oid")
rm -f "$f" && echo broken >"$f"
loose_case "zlib garbage (t1450 duplicate loose objects)"
printf '%s\n' "error: inflate: data stream error (incorrect header check)" "error: unable to unpack header of ./$f" \
	"error: $oid: object corrupt or missing: ./$f" >"$T/want"
same "zlib garbage: t1450's three lines" "$T/want" "$T/d.err"
: >"$f"
loose_case "empty file"
must "empty file" "^error: object file ./$f is empty\$" "$T/d.err"
}

# hi_repo: a bare repository with one blob, $oid at the path $f
hi_repo() {
	newbare
	oid=$(echo hi | git hash-object -w --stdin)
	f=$(opath "$oid")
}
# headers and sizes, each written as a zlib stream to the blob's path
hdr_case() {
	local name=$1 text=$2
	shift 2
	rm -f "$f" && zraw "$text" >"$f"
	loose_case "$name" "$@"
}
section_headers() { # leaks
hi_repo
hdr_case "header: leading zero" 'blob 03\0hi\n'
hdr_case "header: no space" 'blob\0hi\n'
hdr_case "header: bad digit" 'blob 3x\0hi\n'
hdr_case "header: space after size" 'blob 3 \0hi\n'
hdr_case "header: negative size" 'blob -3\0hi\n'
hdr_case "header: no NUL" 'blob 3'
hdr_case "header: longer than 32 bytes" 'blobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb 3\0hi\n'
hdr_case "header: 31 bytes" 'commitsssssssssssssssssssss 3\0hi\n'
hdr_case "header: empty type" ' 3\0hi\n'
hdr_case "header: unknown type, bad size" 'bogus 03\0hi\n'
if v255; then
	must_not "unknown type, bad size" "unknown type" "$T/d.err"
else
	must "unknown type, bad size" "^error: 0{40}(0{24})?: object is of unknown type 'bogus'" "$T/d.err"
fi
hdr_case "header: control characters in the type" 'a\x01b\x7fc 3\0hi\n'
if v255; then
	must "control characters" "^error: $oid: object corrupt or missing: ./$f\$" "$T/d.err"
else
	must "control characters" "unknown type 'a\?b\?c'" "$T/d.err"
fi
hdr_case "size: zero" 'blob 0\0'
hdr_case "size: content longer, within the header call" 'blob 1\0hi\n'
hdr_case "size: content longer, beyond it" 'blob 1\0hihihihihihihihihihihihihihihihihihihihihi\n'
hdr_case "size: content longer, streamed" 'blob 2\0hi\n' -t 1
# git hashes an uninitialised buffer for the missing bytes: zeros for a fresh (large) allocation
hdr_case "size: content shorter (large size: zeros, git's ID)" 'blob 100000\0hi\n'
if [ -z "${SK_LOOSE_FORMAT:-}" ]; then
	must "content shorter" "^error: 4c41bfab3b727dbfd556cda8aa2e855ed03b7af2: hash-path mismatch" "$T/d.err"
else
	must "content shorter" "^error: 22dbb298610b45e916d086a32f11a8371d2d7dcd04558a7eb5331d0a5b337513: hash-path mismatch" "$T/d.err"
fi
hdr_case "size: content shorter (small size: ID masked)" 'blob 10\0hi\n' -- 's/^error: [0-9a-f]{40}([0-9a-f]{24})?: hash-path/error: X: hash-path/'
hdr_case "size: content shorter, streamed" 'blob 10\0hi\n' -t 1
hdr_case "size: 18446744073709551615 (streamed blob)" 'blob 18446744073709551615\0hi\n'
hdr_case "size: 18446744073709551616 (overflow +)" 'blob 18446744073709551616\0hi\n'
hdr_case "size: 99999999999999999999 (overflow *)" 'blob 99999999999999999999\0hi\n'
hdr_case "size: commit of 2^64-1 bytes" 'commit 18446744073709551615\0hi\n'
hdr_case "size: commit of 10^14 bytes" 'commit 100000000000000\0hi\n'
hdr_case "size: a tree of 0 bytes" 'tree 0\0'
hdr_case "good after all that" 'blob 3\0hi\n'
[ ! -s "$T/d.err" ] && ok || bad "good: $(head -1 "$T/d.err")"
}
# The same in SHA-256 repositories (git init --object-format=sha256): object files of 62-digit
# names, SHA-256 IDs, git's lines with 64-digit IDs
section_t1450_sha256() { # leaks
local -x SK_LOOSE_FORMAT=sha256
section_t1450
}
section_headers_sha256() { # leaks long
local -x SK_LOOSE_FORMAT=sha256
section_headers
}
# zlib: adler32 damaged, dictionary flag, truncations of a stream with a stored block
section_zlib() { # long
hi_repo
rm -f "$f" && zraw 'blob 3\0hi\n' >"$f" && flip "$f" -1
loose_case "zlib: adler32 damaged"
must "adler32" "incorrect data check" "$T/d.err"
rm -f "$f" && zraw 'blob 3\0hi\n' >"$f" && flip "$f" -1
loose_case "zlib: adler32 damaged, streamed" -t 0
rm -f "$f" && "$PY" -c 'import sys, zlib; d = zlib.compressobj(zdict=b"hello"); sys.stdout.buffer.write(d.compress(b"blob 3\0hi\n") + d.flush())' >"$f"
# git 2.39.5 aborts on this one ("BUG: zlib.c:57: total_in mismatch": zlib leaves total_in behind
# when it asks for the dictionary); the driver says what git's code would say otherwise.
{
	refgit fsck --full >/dev/null 2>"$T/g.err"
	rc=$?
} 2>/dev/null
"$DRV" scan ./objects >/dev/null 2>"$T/d.err"
printf '%s\n' "error: inflate: needs dictionary (no message)" "error: unable to unpack header of ./$f" \
	"error: $oid: object corrupt or missing: ./$f" >"$T/want"
same "dictionary: driver" "$T/want" "$T/d.err"
if v255; then
	# git 2.50+ (0b1493c2d4) no longer aborts: the driver's lines, exit 1
	[ $rc = 1 ] && ok || bad "dictionary: git exit $rc"
	grep -v '^notice: No default references$' "$T/g.err" >"$T/g2.err"
	same "dictionary: git" "$T/want" "$T/g2.err"
else
	[ $rc = 134 ] && ok || bad "dictionary: git exit $rc"
	must "dictionary: git" "^BUG: zlib.c:57: total_in mismatch" "$T/g.err"
fi
rm -f "$f" && "$PY" -c '
import sys, zlib
data = b"blob 5000\0" + bytes(range(256)) * 19 + b"x" * 136
c = zlib.compressobj(0)
sys.stdout.buffer.write(c.compress(data) + c.flush())' >"$f"
cp "$f" "$T/stored"
for n in 2 11 40 3000 $(($(fsize "$T/stored") - 4)); do
	cp "$T/stored" "$f" && trunc "$f" $n
	loose_case "zlib: stored blocks, truncated to $n bytes"
	cp "$T/stored" "$f" && trunc "$f" $n
	loose_case "zlib: stored blocks, truncated to $n bytes, streamed" -t 100
done
cp "$T/stored" "$f" && flip "$f" 7
loose_case "zlib: stored block length damaged"
}

# names in objects/xx, tmp files, an uppercase copy, a dangling symlink
section_names() {
newbare
oid=$(echo hi | git hash-object -w --stdin)
d=objects/${oid:0:2}
echo x >"$d/tmp_obj_abcdef"
echo x >"$d/zzzz"
echo x >"$d/${oid:2}x"
echo x >"$d/${oid:3}"
echo x >"$d/G${oid:3}"
cp "$d/${oid:2}" "$d/$(echo "${oid:2}" | tr a-f A-F)"
mkdir "$d/sub"
printf 'x' >"$d/sp ace"
printf 'x' >"$d/$(printf 'ctl\001')"
ln -s "$T/no-such-target" "$d/1111111111111111111111111111111111111a" # dangling (not /nonexistent: it may exist)
mkdir -p objects/AB objects/zz objects/info
echo x >objects/AB/1234567890123456789012345678901234567a
echo x >objects/garbage
loose_case "foreign names, tmp_obj_, uppercase copy, dangling symlink"
must "foreign names" "^bad sha1 file: ./$d/zzzz\$" "$T/d.err"
grep -q tmp_obj_ "$T/d.err" && bad "tmp_obj_ reported" || ok
grep -q "objects/AB\|objects/zz\|objects/garbage" "$T/d.err" && bad "outside xx/ reported" || ok
[ "$(grep -vc '^report' "$T/d.out")" = 3 ] && ok || bad "foreign names: $(grep -vc '^report' "$T/d.out") objects, want 3"

# objects/13 is a file: git stops the walk there (objects in later subdirectories go unread)
newbare
early=$(printf 'x\n' | git hash-object -w --stdin)
# (IDs are computed without writing: an object written under 13/ would make objects/13 a directory)
while :; do
	v=$(date +%N)
	late=$(echo "$v" | git hash-object --stdin)
	[[ ${late:0:2} > 13 ]] && break
done
echo "$v" | git hash-object -w --stdin >/dev/null
chmod +w "$(opath "$late")" && echo garbage >>"$(opath "$late")"
echo x >objects/13
loose_case "objects/13 is a file: the walk stops"
must "unopenable subdirectory" "^error: unable to open ./objects/13: Not a directory\$" "$T/d.err"
grep -q "$late" "$T/d.err" && bad "walk went on past objects/13" || ok

# a directory with an object's name: git dies mapping it
newbare
mkdir -p objects/12/34567890123456789012345678901234567890
loose_case "directory with an object's name"
must "directory" "^fatal: mmap failed: No such device\$" "$T/d.err"

# several broken objects in one repository: git's order
newbare
for i in $(seq 1 40); do echo "object $i" | git hash-object -w --stdin >/dev/null; done
n=0
for f in $(find objects -type f -path 'objects/??/*' | sort); do
	n=$((n + 1))
	case $((n % 5)) in
	0) chmod +w "$f" && echo junk >>"$f" ;;
	1) rm -f "$f" && echo junk >"$f" ;;
	2) : ;;
	3) rm -f "$f" && zraw 'blob 1\0hi\n' >"$f" ;;
	4) rm -f "$f" && : >"$f" ;;
	esac
done
echo x >"$(dirname "$f")/cruft"
loose_case "forty objects, most broken"
[ "$(grep -c . "$T/d.err")" -ge 30 ] && ok || bad "forty objects: only $(grep -c . "$T/d.err") lines"

# a non-bare repository from its top: paths start with .git/objects
rm -rf "$T/nb" && git init -q "$T/nb" && cd "$T/nb" || exit 1
echo a >a && git add a && git commit -qm a
f=.git/$(opath "$(git rev-parse HEAD:a)")
chmod +w "$f" && echo junk >>"$f"
loose_case "non-bare repository"
must "non-bare" "^error: [0-9a-f]{40}: object corrupt or missing: \.git/objects/" "$T/d.err"
}

# ---------------------------------------------------------------------------------------------
# The attack corpus
# ---------------------------------------------------------------------------------------------
section_attack() { # leaks
dc_case() {
	local file=$TESTDATA/$1 want=$2
	"$DRV" dc "$file" >"$T/dc.out"
	local rc=$?
	[ $rc = 2 ] && ok || bad "dc $1: exit $rc"
	[ "$(<"$T/dc.out")" = "$want" ] && ok || bad "dc $1: $(<"$T/dc.out")"
}
dc_case shattered-1.pdf "38762cf7f55934b34d179ae6a4c80cadccbb7f0a: SHA-1 collision attack detected (disturbance vector II(52,0), block at byte offset 256): $TESTDATA/shattered-1.pdf"
dc_case shattered-2.pdf "38762cf7f55934b34d179ae6a4c80cadccbb7f0a: SHA-1 collision attack detected (disturbance vector II(52,0), block at byte offset 256): $TESTDATA/shattered-2.pdf"
dc_case sha-mbles-1.bin "8ac60ba76f1999a1ab70223f225aefdc78d4ddc0: SHA-1 collision attack detected (disturbance vector II(52,0), block at byte offset 576): $TESTDATA/sha-mbles-1.bin"
"$DRV" dc "$TESTDATA/sha1_reducedsha_coll.bin" >"$T/dc.out"
[ "$(<"$T/dc.out")" = "no collision a56374e1cf4c3746499bc7c0acb39498ad2ee185" ] && ok || bad "dc reduced: $(<"$T/dc.out")"
# As loose blobs the attack files are ordinary objects: "blob 422435\0" shifts the blocks.
newbare
for file in shattered-1.pdf shattered-2.pdf sha-mbles-1.bin; do
	oid=$(git hash-object -w "$TESTDATA/$file")
	"$DRV" read "$(opath "$oid")" >"$T/r.out" 2>"$T/r.err"
	[ "$(<"$T/r.out")" = "ok blob $(fsize "$TESTDATA/$file") $oid" ] && ok || bad "$file as a blob: $(<"$T/r.out")"
done
[ "$(git hash-object "$TESTDATA/shattered-1.pdf")" = ba9aaa145ccd24ef760cf31c74d8f7ca1a2e47b0 ] && ok || bad "shattered blob ID"
loose_case "attack files as loose blobs"
loose_case "attack files as loose blobs, streamed" -t 0
}

# ---------------------------------------------------------------------------------------------
# commit-graph, multi-pack-index, .rev
# ---------------------------------------------------------------------------------------------
CG_RE='^(error: (commit-graph |one or more commit-graph chain files|terminating chunk id|improper chunk offset|duplicate chunk ID|final chunk has)|warning: (invalid commit-graph chain|commit-graph chain file too small|commit-graph has no base|commit-graph chain does not match|unable to find all commit-graph)|the commit-graph file has incorrect checksum)'
MIDX_RE='^((error|fatal): (multi-pack-index |terminating chunk id|improper chunk offset|duplicate chunk ID|final chunk has|failed to read)|incorrect checksum$)'

# from_template NAME FUNCTION: a fresh $T/g as FUNCTION makes it, the shell in it. FUNCTION runs the
# first time; then $T/g is a copy of what it made (the names and dates are fixed: git would make
# the same files again).
from_template() {
	if [ -d "$T/template-$1" ]; then
		rm -rf "$T/g"
		cp -a "$T/template-$1" "$T/g"
		cd "$T/g" || exit 1
	else
		"$2"
		cp -a "$T/g" "$T/template-$1"
	fi
}
mkrepo() { from_template repo mkrepo_git; }
mkrepo_git() {
	rm -rf "$T/g"
	git init -q "$T/g"
	cd "$T/g" || exit 1
	for i in 1 2 3 4 5; do
		echo "$i" >"f$i"
		git add "f$i"
		git commit -qm "c$i"
	done
}
# a commit-graph file
mkcg() { from_template cg mkcg_git; }
mkcg_git() {
	mkrepo
	git commit-graph write --reachable
}
# trailer_case NAME KIND(commit-graph|midx) BIT: git fsck's filtered lines = the driver's
# --load lines (git fsck itself) + its verify lines (unless the load was fatal); exit bit BIT
# of git = the driver's verify verdict. Git 2.55 loads a multi-pack-index twice before its verify
# (unless the first load dies), and runs that verify on the objects directory as the repository
# names it (.git/objects), where 2.39.5 gives it an absolute path.
trailer_case() {
	local name=$1 kind=$2 bit=$3 re vdir
	vdir=$(pwd -P)/.git/objects
	[ "$kind" = midx ] && re=$MIDX_RE || re=$CG_RE
	refgit fsck --full >"$T/g.out" 2>"$T/g.err"
	local grc=$?
	grep -E "$re" "$T/g.err" >"$T/g.lines"
	"$DRV" "$kind" --load .git/objects >/dev/null 2>"$T/d.lines"
	local lrc=$?
	if [ "$kind" = midx ] && v255; then
		vdir=.git/objects
		[ $lrc = 128 ] || "$DRV" "$kind" --load .git/objects >/dev/null 2>>"$T/d.lines"
	fi
	"$DRV" "$kind" "$vdir" >"$T/d.out" 2>"$T/d.verify"
	local vrc=$?
	[ $lrc = 128 ] || cat "$T/d.verify" >>"$T/d.lines"
	same "$name: lines" "$T/g.lines" "$T/d.lines"
	local gv dv
	if [ $grc = 128 ]; then gv=fatal; elif [ $((grc & bit)) != 0 ]; then gv=fail; else gv=ok; fi
	if [ $lrc = 128 ] && [ "$kind" = midx ]; then dv=fatal; elif [ $vrc != 0 ]; then dv=fail; else dv=ok; fi
	[ "$gv" = "$dv" ] && ok || bad "$name: git $gv (exit $grc), driver $dv"
}

section_commit_graph() {
CG=.git/objects/info/commit-graph
mkcg
trailer_case "commit-graph: sound" commit-graph 16
[ "$(<"$T/d.out")" = ok ] && ok || bad "commit-graph sound: $(<"$T/d.out")"
size=$(fsize $CG)
for off in 0 1 4 5 6 7 8 11 20 30 56 100 1100 $((size - 30)) -21 -1; do
	mkcg && chmod +w $CG && flip $CG $off
	trailer_case "commit-graph: byte $off flipped" commit-graph 16
	"$DRV" trailer $CG >"$T/f.out" 2>"$T/f.lines"
	same "commit-graph: byte $off flipped: trailer FILE = objects dir" "$T/d.verify" "$T/f.lines"
	"$DRV" trailer --mem $CG >"$T/m.out" 2>"$T/m.lines"
	same "commit-graph: byte $off flipped: --mem" "$T/f.lines" "$T/m.lines"
	same "commit-graph: byte $off flipped: --mem status" "$T/f.out" "$T/m.out"
done
for n in 0 10 100 1099 1100 1200 $((size - 20)) $((size - 1)); do
	mkcg && chmod +w $CG && trunc $CG $n
	trailer_case "commit-graph: truncated to $n bytes" commit-graph 16
	"$DRV" trailer $CG >"$T/f.out" 2>"$T/f.lines"
	"$DRV" trailer --mem $CG >"$T/m.out" 2>"$T/m.lines"
	same "commit-graph: truncated to $n bytes: --mem" "$T/f.lines" "$T/m.lines"
	same "commit-graph: truncated to $n bytes: --mem status" "$T/f.out" "$T/m.out"
done
}
section_chain() {
C=.git/objects/info/commit-graphs
mkchain() { from_template chain mkchain_git; }
mkchain_git() {
	mkrepo
	git commit-graph write --reachable --split=no-merge
	echo 6 >f6 && git add f6 && git commit -qm c6
	git commit-graph write --reachable --split=no-merge
	[ "$(wc -l <$C/commit-graph-chain)" = 2 ] || bad "chain has not two layers"
}
mkchain
trailer_case "commit-graph chain: sound" commit-graph 16
for layer in 1 2; do
	for off in 0 4 5 6 7 30 200 -21 -1; do
		mkchain && g=$C/graph-$(sed -n ${layer}p $C/commit-graph-chain).graph && chmod +w "$g" && flip "$g" $off
		trailer_case "commit-graph chain: layer $layer, byte $off flipped" commit-graph 16
	done
	mkchain && g=$C/graph-$(sed -n ${layer}p $C/commit-graph-chain).graph && chmod +w "$g" && trunc "$g" 100
	trailer_case "commit-graph chain: layer $layer truncated" commit-graph 16
	mkchain && rm -f "$C/graph-$(sed -n ${layer}p $C/commit-graph-chain).graph"
	trailer_case "commit-graph chain: layer $layer missing" commit-graph 16
done
mkchain && chmod +w $C/commit-graph-chain && echo zzz >>$C/commit-graph-chain
trailer_case "commit-graph chain: a line too many" commit-graph 16
mkchain && chmod +w $C/commit-graph-chain && sed -i '2s/^./Z/' $C/commit-graph-chain
trailer_case "commit-graph chain: a line not a hash" commit-graph 16
mkchain && chmod +w $C/commit-graph-chain && sed -i '1s/^\(.\)\(.\)/\2\1/' $C/commit-graph-chain
trailer_case "commit-graph chain: first line names no file" commit-graph 16
}

section_midx() {
M=.git/objects/pack/multi-pack-index
# midx_mem NAME: the in-memory check = the file check, in both modes
midx_mem() {
	local m
	for m in "" --load; do
		"$DRV" trailer $m $M >"$T/f.out" 2>"$T/f.lines"
		"$DRV" trailer $m --mem $M >"$T/m.out" 2>"$T/m.lines"
		same "$1: --mem $m" "$T/f.lines" "$T/m.lines"
		same "$1: --mem $m status" "$T/f.out" "$T/m.out"
	done
}
mkmidx() { from_template midx mkmidx_git; }
mkmidx_git() {
	mkrepo
	git repack -q -d
	echo x >g && git add g && git commit -qm g
	git repack -q
	git multi-pack-index write
}
mkmidx
trailer_case "multi-pack-index: sound" midx 32
size=$(fsize $M)
for off in 0 4 5 6 7 8 11 12 16 30 100 -1; do
	mkmidx && chmod +w $M && flip $M $off
	trailer_case "multi-pack-index: byte $off flipped" midx 32
	midx_mem "multi-pack-index: byte $off flipped"
done
for n in 0 10 31 32 50 100 $((size - 1)); do
	mkmidx && chmod +w $M && trunc $M $n
	trailer_case "multi-pack-index: truncated to $n bytes" midx 32
	midx_mem "multi-pack-index: truncated to $n bytes"
done
}

# .rev: git 2.39.5 fsck ignores them; git's loader words the header errors as the driver does
section_rev() { # leaks
mkrev() {
	from_template rev mkrev_git
	R=$(ls .git/objects/pack/*.rev)
	P=${R%.rev}.pack
}
mkrev_git() {
	mkrepo
	git -c pack.writeReverseIndex=true repack -q -ad
}
rev_case() {
	local name=$1 want=$2
	refgit fsck --full >"$T/g.out" 2>"$T/g.err"
	local grc=$?
	"$DRV" trailer "$R" >"$T/d.out" 2>"$T/d.err"
	printf '%b' "$want" >"$T/want"
	if [ "${SHA1KIT_GIT_VERSION:-}" = 2.55 ]; then
		# git 2.41+'s fsck checks the .rev (one pack here): its lines are the driver's, bit 64
		[ $grc = $([ -z "$want" ] && echo 0 || echo 64) ] && ok || bad "$name: git fsck exit $grc"
		same "$name: git fsck's lines" "$T/want" "$T/g.err"
	else
		# git 2.39.5 does not look at .rev files
		[ $grc = 0 ] && ok || bad "$name: git fsck exit $grc"
		grep -q 'rev' "$T/g.err" && bad "$name: git fsck mentions it: $(grep rev "$T/g.err")" || ok
	fi
	same "$name: driver lines" "$T/want" "$T/d.err"
	"$DRV" revs .git/objects >/dev/null 2>"$T/d2.err"
	same "$name: revs OBJDIR = trailer FILE" "$T/d.err" "$T/d2.err"
	if [ "${3:-}" != sized ]; then
		"$DRV" trailer --mem "$R" >/dev/null 2>"$T/d3.err"
		same "$name: --mem" "$T/d.err" "$T/d3.err"
	fi
	# git's own loader (cat-file needs the reverse index for objectsize:disk; it crashes on a
	# damaged position, so only for the header cases)
	[ "${3:-}" = noload ] && return
	refgit cat-file --batch-check='%(objectsize:disk)' <<<HEAD >/dev/null 2>"$T/g2.err"
	head -1 "$T/d.err" >"$T/want1"
	same "$name: git's load error" "$T/want1" "$T/g2.err"
}
mkrev
rev_case ".rev: sound" ""
[ "$(<"$T/d.out")" = ok ] && ok || bad ".rev sound: $(<"$T/d.out")"
for spec in "0:has unknown signature" "4:has unsupported version 16777217" "11:has unsupported hash id 0"; do
	mkrev && chmod +w "$R" && flip "$R" "${spec%%:*}"
	rev_case ".rev: byte ${spec%%:*} flipped" "error: reverse-index file $R ${spec#*:}\nerror: unable to load rev-index for pack '$P'\n"
done
for off in -21 -1; do
	mkrev && chmod +w "$R" && flip "$R" $off
	rev_case ".rev: byte $off flipped" "error: invalid checksum\nerror: invalid rev-index for pack '$P'\n" noload
done
# the first entry's high byte: its position no longer the one the idx gives (git 2.41+'s
# verify_pack_revindex: "invalid rev-index position at I: WANT != GOT")
mkrev && chmod +w "$R"
was=$(od -An -tu4 --endian=big -j 12 -N 4 "$R" | tr -d ' ')
flip "$R" 12
now=$(od -An -tu4 --endian=big -j 12 -N 4 "$R" | tr -d ' ')
rev_case ".rev: byte 12 flipped" "error: invalid checksum\nerror: invalid rev-index position at 0: $was != $now\nerror: invalid rev-index for pack '$P'\n" noload
# the first two entries swapped, the checksum made right again: the positions alone
mkrev && chmod +w "$R"
e0=$(od -An -tu4 --endian=big -j 12 -N 4 "$R" | tr -d ' ')
e1=$(od -An -tu4 --endian=big -j 16 -N 4 "$R" | tr -d ' ')
sk_rev_swap_first_two "$R" "$PY" || bad "swap .rev entries"
rev_case ".rev: two entries swapped" "error: invalid rev-index position at 0: $e0 != $e1\nerror: invalid rev-index position at 1: $e1 != $e0\nerror: invalid rev-index for pack '$P'\n" noload
mkrev && chmod +w "$R" && trunc "$R" 5
rev_case ".rev: truncated to 5 bytes" "error: reverse-index file $R is too small\nerror: unable to load rev-index for pack '$P'\n"
mkrev && chmod +w "$R" && trunc "$R" $(($(fsize "$R") - 1))
rev_case ".rev: one byte short" "error: reverse-index file $R is corrupt\nerror: unable to load rev-index for pack '$P'\n" sized
}

sk_run_sections
echo "test_loose: $pass passed, $fail failed"
[ $fail = 0 ]
