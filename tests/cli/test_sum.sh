#!/usr/bin/env bash
# test_sum.sh - tests of `sha1kit sum` against GNU sha1sum, and of its collision detection.
#
# Usage: test_sum.sh PATH/TO/sha1kit TESTDATA_DIR
#
# 1. For many argument lists, `sha1sum ARGS` and `sha1kit sum ARGS` run in the same directory with
#    the same standard input; their stdout must be identical byte for byte, their stderr identical
#    once "sha1sum:" is replaced by "sha1kit:" (and "Try 'sha1sum --help'" by
#    "Try 'sha1kit sum --help'"), and their exit status the same. Written against GNU coreutils
#    9.1 (older versions do not escape '\r' in names).
# 2. The collision corpus in TESTDATA_DIR (see SOURCES.md there) must give the documented digests,
#    warnings and exit statuses. A missing corpus is a failure, not a skip.
# 3. `sha1kit sum` and `sha1sum` must agree on every regular readable file in /usr/bin.
# 4. Every kernel of this CPU, chosen with SHA1KIT_CPU masks (cli/cpu_masks.sh): `sha1kit --version`
#    must report the kernels the mask leaves, and `sha1kit sum` give what the unmasked run gives.
#    Invalid masks stop sha1kit with one line on stderr.
# 5. `sha1kit sum --sha256 ARGS` against GNU sha256sum ARGS: the cases of 1 on the same files, with
#    checksum files made by sha256sum (stderr compared once "sha256sum:" is "sha1kit:"), and every
#    SHA-256 kernel of this CPU (SHA1KIT_CPU masks) on the same files.
#
# Prints one line per failure with a diff, then "N passed, M failed"; exits 1 on any failure.

# Usage with --section=NAME first: that section alone (ctest runs each as a test of its own,
# cli_sum_NAME: tests/cli/tests.cmake); without it, every section (a function section_NAME) in order.

set -u
. "$(dirname "${BASH_SOURCE[0]}")/../testlib.sh"
sk_section_arg "$@" && shift

if [ $# -ne 2 ]; then
	echo "usage: $0 PATH/TO/sha1kit TESTDATA_DIR" >&2
	exit 2
fi
SK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DATA=$2
case $DATA in /*) ;; *) DATA=$PWD/$DATA ;; esac # the cases run in another directory
# shellcheck source=cpu_masks.sh
. "$(dirname "${BASH_SOURCE[0]}")/cpu_masks.sh"

export LC_ALL=C
unset POSIXLY_CORRECT

PASS=0
FAIL=0
# The algorithm the comparisons run (use_algo): the oracle, the digest length, the tag of --tag lines,
# and the option that makes sha1kit sum that oracle.
ORACLE=sha1sum HLEN=40 TAGN=SHA1 OTHER_TAGN=SHA256
SK_SUM=(sum)
use_algo() {
	case $1 in
	sha1) ORACLE=sha1sum HLEN=40 TAGN=SHA1 OTHER_TAGN=SHA256 SK_SUM=(sum) ;;
	sha256) ORACLE=sha256sum HLEN=64 TAGN=SHA256 OTHER_TAGN=SHA1 SK_SUM=(sum --sha256) ;;
	esac
	C=$T/cf-$1
}
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-cli.XXXXXX") || exit 1
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$T"' EXIT
W=$T/work # the directory the commands run in
mkdir "$W"
use_algo sha1

pass() {
	PASS=$((PASS + 1))
}

fail() {
	FAIL=$((FAIL + 1))
	echo "FAIL: $*"
}

# show_diff EXPECTED GOT: a unified diff, through `od -c` when the files are not plain text.
show_diff() {
	if LC_ALL=C grep -qa $'[^\t -~]' "$1" "$2"; then
		diff -u <(od -An -c "$1") <(od -An -c "$2") | sed 's/^/    /'
	else
		diff -u --text "$1" "$2" | sed 's/^/    /'
	fi
}

# compare [-i STDIN_FILE | -I] [-o full|closed] [-l LOCALE] [--] ARGS...
# Runs sha1sum ARGS and sha1kit sum ARGS in $W and compares stdout, stderr and exit status.
# -I: standard input closed; -o: standard output to /dev/full or closed (stdout not compared).
# One call in SHA1KIT_CASE_SHARE compares (testlib.sh sk_share_case; section sha256 sets it).
compare() {
	sk_share_case || return 0
	local in=/dev/null in_closed=0 out=file locale=C
	while [ $# -gt 0 ]; do
		case $1 in
		-i) in=$2; shift 2 ;;
		-I) in_closed=1; shift ;;
		-o) out=$2; shift 2 ;;
		-l) locale=$2; shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	local desc closed=
	[ $in_closed = 1 ] && closed=" closed"
	desc="${SK_SUM[*]} $(printf '%q ' "$@")[stdin=${in##*/}$closed stdout=$out LC_ALL=$locale]"
	local erc grc side rc
	for side in exp got; do
		local -a cmd
		if [ $side = exp ]; then cmd=("$ORACLE" "$@"); else cmd=("$SK" "${SK_SUM[@]}" "$@"); fi
		(
			cd "$W" || exit 99
			export LC_ALL=$locale
			if [ $in_closed = 1 ]; then exec <&-; else exec <"$in"; fi
			case $out in
			full) exec >/dev/full ;;
			closed) exec >&- ;;
			*) exec >"$T/$side.out" ;;
			esac
			exec "${cmd[@]}"
		) 2>"$T/$side.err"
		rc=$?
		if [ $side = exp ]; then erc=$rc; else grc=$rc; fi
	done
	if [ "$out" != file ]; then
		: >"$T/exp.out"
		: >"$T/got.out"
	fi
	# shellcheck disable=SC2034 # text: only whether the file is text
	local ok=1 text line
	if text_of "$T/exp.err" text; then # as the sed below, without a process
		while IFS= read -r line || [ -n "$line" ]; do
			case $line in
			"$ORACLE: "*) line="sha1kit: ${line#"$ORACLE: "}" ;;
			"Try '$ORACLE --help'"*) line="Try 'sha1kit sum --help'${line#"Try '$ORACLE --help'"}" ;;
			esac
			printf '%s\n' "$line"
		done <"$T/exp.err" >"$T/exp.err.n"
	else
		sed -e "s/^$ORACLE: /sha1kit: /" -e "s/^Try '$ORACLE --help'/Try 'sha1kit sum --help'/" \
			"$T/exp.err" >"$T/exp.err.n"
	fi
	if ! same_file "$T/exp.out" "$T/got.out"; then
		ok=0
		fail "$desc: stdout differs (- $ORACLE, + sha1kit)"
		show_diff "$T/exp.out" "$T/got.out"
	fi
	if ! same_file "$T/exp.err.n" "$T/got.err"; then
		[ $ok = 1 ] && fail "$desc: stderr differs (- $ORACLE, + sha1kit)"
		[ $ok = 0 ] && echo "  and stderr differs:"
		ok=0
		show_diff "$T/exp.err.n" "$T/got.err"
	fi
	if [ "$erc" != "$grc" ]; then
		[ $ok = 1 ] && fail "$desc: exit status differs"
		echo "    exit status: $ORACLE $erc, sha1kit $grc"
		ok=0
	fi
	[ $ok = 1 ] && pass
}

# expect DESC RC STDOUT_FILE STDERR_FILE [-i STDIN] -- ARGS...: sha1kit sum ARGS in $W must exit
# with RC and print exactly the given stdout and stderr.
expect() {
	local desc=$1 rc=$2 eout=$3 eerr=$4 in=/dev/null
	shift 4
	if [ "$1" = -i ]; then in=$2; shift 2; fi
	[ $# -gt 0 ] && [ "$1" = -- ] && shift
	(cd "$W" && exec "$SK" sum "$@" <"$in" >"$T/got.out" 2>"$T/got.err")
	local grc=$? ok=1
	if ! same_file "$eout" "$T/got.out"; then
		ok=0
		fail "$desc: stdout differs (- expected, + sha1kit)"
		show_diff "$eout" "$T/got.out"
	fi
	if ! same_file "$eerr" "$T/got.err"; then
		[ $ok = 1 ] && fail "$desc: stderr differs (- expected, + sha1kit)"
		[ $ok = 0 ] && echo "  and stderr differs:"
		ok=0
		show_diff "$eerr" "$T/got.err"
	fi
	if [ "$grc" != "$rc" ]; then
		[ $ok = 1 ] && fail "$desc: exit status"
		echo "    exit status: expected $rc, sha1kit $grc"
		ok=0
	fi
	[ $ok = 1 ] && pass
}

# contains_all STRING SUBSTRING...: true when STRING contains every SUBSTRING.
contains_all() {
	local s=$1
	shift
	for sub in "$@"; do
		[[ $s == *"$sub"* ]] || return 1
	done
}

# at_most_80_columns FILE
at_most_80_columns() {
	[ "$(awk 'length > 80' "$1" | wc -l)" = 0 ]
}

# check DESC COMMAND...: a plain assertion.
check() {
	local desc=$1
	shift
	if "$@"; then pass; else fail "$desc"; fi
}

if ! command -v sha1sum >/dev/null; then
	fail "sha1sum (GNU coreutils) not found: nothing to compare with"
fi
if [ ! -x "$SK" ]; then
	fail "$SK is not an executable"
	echo "$PASS passed, $FAIL failed"
	exit 1
fi
echo "comparing $SK with $(sha1sum --version | head -n 1) and $(sha256sum --version 2>/dev/null | head -n 1)"

# --------------------------------------------------------------------------------------------------
# Test files
# --------------------------------------------------------------------------------------------------
# need_files: the test files in $W and the checksum files of the current algorithm (use_algo) in
# $T/cf-ALGO (each section makes them first)
need_files() {
cd "$W" || exit 1
[ -e plain.txt ] || make_files
H_EMPTY=$("$ORACLE" </dev/null | cut -c1-$HLEN)
H_PLAIN=$("$ORACLE" <plain.txt | cut -c1-$HLEN)
ZERO=$(printf "%0${HLEN}d" 0)
[ -d "$C" ] && return
ALL=(*)
make_checksum_files
}

make_files() {
printf 'hello\n' >plain.txt
printf 'spaces in content\n' >'with space.txt'
printf 'x' >'back\slash'
printf 'y' >$'new\nline'
printf 'z' >$'cr\rname'
printf 'w' >$'all\\three\n\r'
printf 't' >$'tab\tname'
printf 'q' >"it's"
printf 'u' >'utf8-é'
printf 'c' >'colon:name'
printf 'd' >'-dash'
printf 's' >' lead space'
printf 'e' >'trail space '
printf 'p' >'(paren)'
printf 'o' >'*star'
: >empty
head -c 300007 /dev/urandom >binary.bin
head -c 1048593 /dev/zero | tr '\0' 'a' >big.txt # > 4 read buffers, not a multiple of 64
mkdir dir
printf 'n' >dir/nested
}

# The checksum files of the current algorithm, made by its oracle. They live in $C; every case
# refers to them by absolute path.
make_checksum_files() {
mkdir "$C"
"$ORACLE" -- "${ALL[@]}" >"$C/good" 2>/dev/null
"$ORACLE" --tag -- "${ALL[@]}" >"$C/tag" 2>/dev/null
"$ORACLE" -b -- "${ALL[@]}" >"$C/binary" 2>/dev/null
sed 's/$/\r/' "$C/good" >"$C/crlf"
sed 's/$/\r/' "$C/tag" >"$C/tag-crlf"
sed -E "s/^(\\\\?)([0-9a-f]{$HLEN})/\\1\\U\\2/" "$C/good" >"$C/upper"
sed -E 's/^(\\?)[0-9a-f]/\10/' "$C/good" >"$C/bad"
printf '%s  plain.txt\n%s  missing\n%s  with space.txt\n%s  also missing\n' \
	"$H_PLAIN" "$H_EMPTY" "$ZERO" "$H_EMPTY" >"$C/missing"
printf '%s  missing\n%s  missing2\n' "$H_EMPTY" "$H_EMPTY" >"$C/only-missing"
printf '%s  empty\n' "$ZERO" >"$C/only-mismatch"
printf '%s  dir\n%s  empty\n' "$H_EMPTY" "$H_EMPTY" >"$C/dir"
printf "garbage\n%s  empty\n$TAGN (plain.txt) = %s\n\n# comment\n%s\n%s \n%s empty-one-space\n  \n" \
	"$H_EMPTY" "$H_PLAIN" "$H_EMPTY" "$H_EMPTY" "$H_EMPTY" >"$C/improper"
printf 'garbage\nmore garbage\n' >"$C/all-improper"
: >"$C/empty"
printf '# only a comment\n\n\r\n' >"$C/comments"
printf '%s empty\n%s plain.txt\n' "$H_EMPTY" "$H_PLAIN" >"$C/one-space"
printf '%s  empty\n' "$H_EMPTY" >"$C/two-space"
printf '%s  -\n' "$H_EMPTY" >"$C/dash"
printf '%s  empty\n%s  -\n' "$H_EMPTY" "$H_PLAIN" >"$C/dash-and-empty"
printf '%s  empty' "$H_EMPTY" >"$C/no-newline"
printf '%s  empty\r\r\n' "$H_EMPTY" >"$C/double-cr"
printf '%s *empty\n%s **empty\n%s \tempty\n%s\tempty\n \t%s  empty\n' \
	"$H_EMPTY" "$H_EMPTY" "$H_EMPTY" "$H_EMPTY" "$H_EMPTY" >"$C/separators"
{
	printf "$TAGN (empty) = %s\n" "$H_EMPTY"
	printf "$TAGN(empty)= %s\n" "$H_EMPTY"
	printf "$TAGN (empty)\t=\t%s\n" "$H_EMPTY"
	printf "$TAGN  (empty) = %s\n" "$H_EMPTY"
	printf "$TAGN (empty) = %s \n" "$H_EMPTY"
	printf "$TAGN (empty) = %s0\n" "$H_EMPTY"
	printf "$TAGN (empty) = \n"
	printf "${TAGN,,} (empty) = %s\n" "$H_EMPTY"
	printf "$OTHER_TAGN (empty) = %s\n" "$H_EMPTY"
	printf "$TAGN (a) b) = %s\n" "$H_EMPTY"
	printf "$TAGN () = %s\n" "$H_EMPTY"
	printf " $TAGN (plain.txt) = %s\n" "$(echo "$H_PLAIN" | tr a-f A-F)"
	printf "SHA2-256 (empty) = %s\n" "$H_EMPTY"
} >"$C/bsd-variants"
{
	printf '\\%s  back\\\\slash\n' "$("$ORACLE" <'back\slash' | cut -c1-$HLEN)"
	printf '\\%s  cr\\rname\n' "$("$ORACLE" <$'cr\rname' | cut -c1-$HLEN)"
	printf '\\%s  new\\nline\n' "$("$ORACLE" <$'new\nline' | cut -c1-$HLEN)"
	printf '\\%s  bad\\tescape\n' "$H_EMPTY"
	printf '\\%s  trailing\\\n' "$H_EMPTY"
	printf '%s  back\\\\slash\n' "$H_EMPTY"
	printf '\\%s (new\\nline) = %s\n' "$TAGN" "$("$ORACLE" <$'new\nline' | cut -c1-$HLEN)"
	printf '\\%s (e\\mpty) = %s\n' "$TAGN" "$H_EMPTY"
	printf '%s (back\\slash) = %s\n' "$TAGN" "$("$ORACLE" <'back\slash' | cut -c1-$HLEN)"
} >"$C/escapes"
printf '%s  em\0pty\n%s  empty\0\n\0%s  empty\n' "$H_EMPTY" "$H_EMPTY" "$H_EMPTY" >"$C/nul"
printf '%s  empty\n' "$H_EMPTY" >"$C/name with space"
printf '%s  empty\n' "$ZERO" >"$C/it's bad"
}

# --------------------------------------------------------------------------------------------------
# 1. Same behaviour as sha1sum
# --------------------------------------------------------------------------------------------------
section_same() {
need_files
same_cases
}

# The cases of section 1, for the current algorithm (use_algo); the checksum files are its own.
same_cases() {
# Printing checksums.
compare -- "${ALL[@]}"
compare --tag -- "${ALL[@]}"
compare -z -- "${ALL[@]}"
compare -z --tag -- "${ALL[@]}"
compare -b -- "${ALL[@]}"
compare -t -- "${ALL[@]}"
compare -b -t plain.txt
compare -t -b plain.txt
compare -t --tag plain.txt
compare --binary --zero -- 'back\slash' $'new\nline'
compare -l C.UTF-8 -- "${ALL[@]}"
compare -i plain.txt
compare -i plain.txt -
compare -i plain.txt --tag
compare -i plain.txt -b -z
compare -i plain.txt - plain.txt -
compare -i binary.bin -- - -
compare -i /dev/null -- -- -
compare -I
compare -I -- - plain.txt
compare -i dir
compare missing
compare plain.txt missing empty 'no such file' $'new\nmissing' "it's missing" missing:colon
compare dir plain.txt
compare dir/nested ./plain.txt "$W/empty"
compare ''
compare -- -dash
compare -l C.UTF-8 -- 'é missing' $'\xff' $'a\tb' "a'b"$'\t' '{' '#x' 'x#' '~' 'a=b'
compare -o full plain.txt
compare -o closed plain.txt
compare -o full -c "$C/good"
compare -o full --help
compare -o full --version # (stdout not compared)

# Usage errors (the order of the checks matters for which one is reported).
compare --bogus
compare -x plain.txt
compare --check=x
compare --tag=1 plain.txt
compare --t plain.txt
compare --st plain.txt
compare -c --tag "$C/good"
compare --tag -t plain.txt
compare --tag -t -c "$C/good"
compare -c -b "$C/good"
compare -c -t "$C/good"
compare -c -z "$C/good"
compare -z --tag -c "$C/good"
compare -c -t --tag "$C/good"
for o in --ignore-missing --quiet --status --strict -w; do
	compare "$o" plain.txt
	compare "$o" -b --quiet plain.txt
done
compare --quiet --status plain.txt
compare --status --quiet plain.txt
compare -w --strict plain.txt
compare --tag --ignore-missing -t plain.txt
compare --help-me

# Checking.
for f in good tag binary crlf tag-crlf upper bad missing only-missing only-mismatch dir improper \
	all-improper empty comments one-space two-space dash dash-and-empty no-newline double-cr \
	separators bsd-variants escapes nul "name with space" "it's bad"; do
	compare -c "$C/$f"
	compare -c -w "$C/$f"
	compare -c --quiet "$C/$f"
	compare -c --status "$C/$f"
	compare -c --strict "$C/$f"
	compare -c --ignore-missing "$C/$f"
done
compare -c --strict -w "$C/improper"
compare -c --quiet --ignore-missing "$C/missing"
compare -c --ignore-missing --status "$C/only-missing"
compare -c -w --quiet "$C/improper"
compare -c --quiet -w "$C/improper"
compare -c --status -w "$C/improper"
compare -c -w --status "$C/improper"
compare -c "$C/one-space" "$C/two-space" # the layout of the first file decides (sha1sum)
compare -c "$C/two-space" "$C/one-space"
compare -c "$C/good" "$C/bad" "$C/empty"
compare -i "$C/good" -c
compare -i "$C/good" -c -
compare -i "$C/dash" -c -
compare -i "$C/dash" -c -w -
compare -i "$C/dash-and-empty" -c -
compare -i empty -c "$C/dash"
compare -i "$C/empty" -c -
compare -i "$C/good" -c "$C/good" -
compare -I -c
compare -I -c "$C/good" -
compare -c "$C/no such file"
compare -c dir
compare -c "$C/name with space" "$C/it's bad" "$C/nothere"
compare -c -w "$C/name with space" "$C/all-improper"
}

# --------------------------------------------------------------------------------------------------
# 5. sha1kit sum --sha256 against GNU sha256sum
# --------------------------------------------------------------------------------------------------
section_sha256() { # long
if ! command -v sha256sum >/dev/null; then
	fail "sha256sum (GNU coreutils) not found: nothing to compare with"
	return
fi
use_algo sha256
need_files
# every other case of section same (each is two processes): its options and checksum files are
# parsed by the code that section same compares in full, what --sha256 changes (the digest, its
# length and tag, sha256sum's messages) every case exercises alike
SHA1KIT_CASE_SHARE=2 same_cases
# The FIPS 180-4 example and a file of several read buffers, against fixed digests.
check "sum --sha256 of 'abc' (FIPS 180-4)" test "$(printf abc | "$SK" sum --sha256)" = \
	"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  -"
check "sum --sha256 --tag of 'abc'" test "$(printf abc | "$SK" sum --sha256 --tag)" = \
	"SHA256 (-) = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
# No collision detection: the SHA-1 attack files are ordinary inputs, their lines are sha256sum's.
local f
for f in shattered-1.pdf shattered-2.pdf sha-mbles-1.bin; do
	if [ -e "$DATA/$f" ]; then
		cp "$DATA/$f" "$T/$f"
		compare -- "$T/$f"
		compare --tag -- "$T/$f"
	else
		fail "test data $DATA/$f is missing"
	fi
done
"$ORACLE" -- "$T/shattered-1.pdf" "$T/shattered-2.pdf" >"$C/attack" 2>/dev/null
compare -c "$C/attack"
# The options of SHA-1DC do not apply.
local o
for o in --safe-hash --reduced-round --fast; do
	"$SK" sum --sha256 "$o" plain.txt >"$T/o.out" 2>"$T/o.err"
	local rc=$?
	if [ $rc = 1 ] && [ ! -s "$T/o.out" ] && grep -q -- "--sha256.*cannot be combined with\|cannot be combined with $o" "$T/o.err" &&
		grep -q "^Try 'sha1kit sum --help'" "$T/o.err"; then
		pass
	else
		fail "sum --sha256 $o: exit $rc (expected 1 and a usage error)"
		sed 's/^/    stderr: /' "$T/o.err"
	fi
done
# Every SHA-256 kernel of this CPU (SHA1KIT_CPU masks): the same output as the unmasked run.
local mask
"$SK" sum --sha256 -- "${ALL[@]}" >"$T/base.out" 2>"$T/base.err"
for mask in "${SK_CPU_MASKS[@]}" -armv8-sha2; do
	sk_cpu_run "$mask" "$SK" --version | sed -n 's/^sha256-kernel: //p' >"$T/k"
	sk_cpu_run "$mask" "$SK" --version | sed -n 's/^sha256-batch-kernel: //p' >"$T/kb"
	sk_cpu_run "$mask" "$SK" sum --sha256 -- "${ALL[@]}" >"$T/m.out" 2>"$T/m.err"
	if same_file "$T/base.out" "$T/m.out" && same_file "$T/base.err" "$T/m.err" && [ -s "$T/k" ]; then
		pass
	else
		fail "SHA1KIT_CPU='$mask' sum --sha256 (kernel $(<"$T/k")): differs from the unmasked run"
		show_diff "$T/base.out" "$T/m.out" | head -n 10
	fi
	# --version names the batch kernel, one of sha1kit_sha256_batch's, using no feature masked off
	local kb
	kb=$(<"$T/kb")
	local ok=1
	case $kb in
	avx512x16) [[ ,$mask, == *,-avx512,* || ,$mask, == *,-all,* ]] && ok= ;;
	shani) [[ ,$mask, == *,-shani,* || ,$mask, == *,-all,* ]] && ok= ;;
	avx2x8) [[ ,$mask, == *,-avx2,* || ,$mask, == *,-all,* ]] && ok= ;;
	single) ;;
	*) ok= ;;
	esac
	[ -n "$ok" ] && pass || fail "SHA1KIT_CPU='$mask': sha256-batch-kernel '$kb'"
	echo "SHA1KIT_CPU=${mask:-(unset)}: sha256 kernel $(<"$T/k"), batch $kb"
done
use_algo sha1
}

# --------------------------------------------------------------------------------------------------
# 2. Collision detection (expected values: TESTDATA_DIR/SOURCES.md)
# --------------------------------------------------------------------------------------------------
# (the sections 2, sha1kit-only, 3 and 4 are one: 4 uses the files and results of 2)
section_corpus_kernels() { # long
need_files
CORPUS=(shattered-1.pdf shattered-2.pdf sha-mbles-1.bin sha-mbles-2.bin sha1_reducedsha_coll.bin)
PLAIN=(38762cf7f55934b34d179ae6a4c80cadccbb7f0a 38762cf7f55934b34d179ae6a4c80cadccbb7f0a
	8ac60ba76f1999a1ab70223f225aefdc78d4ddc0 8ac60ba76f1999a1ab70223f225aefdc78d4ddc0
	a56374e1cf4c3746499bc7c0acb39498ad2ee185)
SAFE=(16e96b70000dd1e7c85b8368ee197754400e58ec e1761773e6a35916d99f891b77663e6405313587
	4f3d9be4a472c4dae83c6314aa6c36a064c1fd14 9ed5d77a4f48be1dbf3e9e15650733eb850897f2
	a56374e1cf4c3746499bc7c0acb39498ad2ee185)
PARTIAL=(d3a1d09969c3b57113fd17b23e01dd3de74a99bb 92246b0b718f4c704d37bb025717cbc66babf102
	4f3d9be4a472c4dae83c6314aa6c36a064c1fd14 9ed5d77a4f48be1dbf3e9e15650733eb850897f2
	dd39885a2a5d8f59030b451e00cb45da9f9d3828)
# First flagged block: default settings, and with reduced-round detection.
OFFSET=(256 256 576 576 -)
OFFSET_RR=(192 192 576 576 64)

corpus_ok=1
if [ ! -d "$DATA" ]; then
	fail "test corpus directory '$DATA' does not exist (set SHA1KIT_TESTDATA)"
	corpus_ok=0
else
	for i in "${!CORPUS[@]}"; do
		if [ ! -r "$DATA/${CORPUS[$i]}" ]; then
			fail "corpus file $DATA/${CORPUS[$i]} is missing"
			corpus_ok=0
		elif [ -r "$DATA/SOURCES.md" ]; then
			# the table row of the file must list the values used here
			row=$(grep -F "| \`${CORPUS[$i]}\` |" "$DATA/SOURCES.md" | head -n 1)
			check "SOURCES.md row of ${CORPUS[$i]} lists ${PLAIN[$i]} ${SAFE[$i]} ${PARTIAL[$i]}" \
				contains_all "$row" "${PLAIN[$i]}" "${SAFE[$i]}" "${PARTIAL[$i]}"
		fi
	done
fi

if [ $corpus_ok = 1 ]; then
	for f in "${CORPUS[@]}"; do
		ln -s "$DATA/$f" "$W/$f"
	done
	warning() { # NAME OFFSET [reduced]
		printf 'sha1kit: %s: SHA-1 collision attack detected (%sdisturbance vector II(52,0), block at byte offset %s)\n' \
			"$1" "${3:+reduced-round test, }" "$2"
	}
	# lines DIGESTS...: "DIGEST  NAME" for the corpus
	lines() {
		local -a d=("$@")
		for i in "${!CORPUS[@]}"; do printf '%s  %s\n' "${d[$i]}" "${CORPUS[$i]}"; done
	}
	warnings() { # the warnings of the corpus with default settings
		for i in "${!CORPUS[@]}"; do
			if [ "${OFFSET[$i]}" != - ]; then
				warning "${CORPUS[$i]}" "${OFFSET[$i]}"
			fi
		done
	}
	E=$T/expect
	mkdir "$E"
	: >"$E/none"

	# one file: plain SHA-1 on stdout, the warning on stderr, exit status 2
	printf '%s  shattered-1.pdf\n' "${PLAIN[0]}" >"$E/s1.out"
	warning shattered-1.pdf 256 >"$E/s1.err"
	expect "shattered-1.pdf" 2 "$E/s1.out" "$E/s1.err" -- shattered-1.pdf

	lines "${PLAIN[@]}" >"$E/plain.out"
	warnings >"$E/plain.err"
	expect "corpus, default (flag only)" 2 "$E/plain.out" "$E/plain.err" -- "${CORPUS[@]}"

	lines "${SAFE[@]}" >"$E/safe.out"
	expect "corpus, --safe-hash" 2 "$E/safe.out" "$E/plain.err" -- --safe-hash "${CORPUS[@]}"

	lines "${PARTIAL[@]}" >"$E/partial.out"
	# with reduced-round detection on, shattered is flagged at its first near-collision block
	for i in "${!CORPUS[@]}"; do
		case ${CORPUS[$i]} in
		sha-mbles*) warning "${CORPUS[$i]}" "${OFFSET_RR[$i]}" ;;
		*) warning "${CORPUS[$i]}" "${OFFSET_RR[$i]}" reduced ;;
		esac
	done >"$E/partial.err"
	expect "corpus, --safe-hash --reduced-round" 2 "$E/partial.out" "$E/partial.err" \
		-- --safe-hash --reduced-round "${CORPUS[@]}"
	expect "corpus, --reduced-round (true SHA-1)" 2 "$E/plain.out" "$E/partial.err" \
		-- --reduced-round "${CORPUS[@]}"

	expect "corpus, --fast" 0 "$E/plain.out" "$E/none" -- --fast "${CORPUS[@]}"
	(cd "$W" && sha1sum -- "${CORPUS[@]}") >"$E/sha1sum.out"
	check "sha1sum prints the plain SHA-1 of SOURCES.md for the corpus" same_file "$E/plain.out" "$E/sha1sum.out"

	printf 'SHA1 (shattered-2.pdf) = %s\n' "${PLAIN[1]}" >"$E/tag.out"
	warning shattered-2.pdf 256 >"$E/tag.err"
	expect "--tag shattered-2.pdf" 2 "$E/tag.out" "$E/tag.err" -- --tag shattered-2.pdf

	printf '%s  -\n' "${PLAIN[0]}" >"$E/stdin.out"
	warning - 256 >"$E/stdin.err"
	expect "shattered-1.pdf on stdin" 2 "$E/stdin.out" "$E/stdin.err" -i "$W/shattered-1.pdf"

	printf '%s  sha1_reducedsha_coll.bin\n' "${PLAIN[4]}" >"$E/rr.out"
	expect "sha1_reducedsha_coll.bin: no attack by default" 0 "$E/rr.out" "$E/none" \
		-- sha1_reducedsha_coll.bin

	# collision + unreadable file: both bits
	printf 'sha1kit: missing: No such file or directory\n' >"$E/both.err"
	warning sha-mbles-1.bin 576 >>"$E/both.err"
	printf '%s  sha-mbles-1.bin\n' "${PLAIN[2]}" >"$E/both.out"
	expect "missing file and an attack" 3 "$E/both.out" "$E/both.err" -- missing sha-mbles-1.bin

	# Regular files of 8 MiB and more are hashed by two threads (a reader computes the blocks'
	# UBC masks): each corpus file followed by 9 MiB of random bytes (a common suffix keeps a
	# collision) must give what the one-thread path gives on the same bytes through a pipe, in every
	# mode, with the attack at the same offset as without the suffix.
	SUFFIX=$((9 * 1024 * 1024))
	head -c $SUFFIX /dev/urandom >"$T/suffix"
	for i in "${!CORPUS[@]}"; do
		big=big-${CORPUS[$i]}
		cat "$W/${CORPUS[$i]}" "$T/suffix" >"$W/$big"
		for opts in "" --safe-hash --reduced-round "--safe-hash --reduced-round"; do
			# shellcheck disable=SC2086 # $opts is a list of options
			(cd "$W" && cat "$big" | "$SK" sum $opts - >"$E/pipe.out" 2>"$E/pipe.err")
			prc=$?
			sed "s/ -\$/ $big/" "$E/pipe.out" >"$E/big.out"
			sed "s/^sha1kit: -: /sha1kit: $big: /" "$E/pipe.err" >"$E/big.err"
			# shellcheck disable=SC2086
			expect "$big ${opts:-(default)}: two threads = one thread" $prc "$E/big.out" "$E/big.err" \
				-- $opts "$big"
		done
		if [ "${OFFSET[$i]}" != - ]; then
			warning "$big" "${OFFSET[$i]}" >"$E/big.err"
		else
			: >"$E/big.err"
		fi
		(cd "$W" && sha1sum "$big") >"$E/big.out"
		expect "$big: the SHA-1 and the attack of ${CORPUS[$i]}" "$([ "${OFFSET[$i]}" != - ] && echo 2 || echo 0)" \
			"$E/big.out" "$E/big.err" -- "$big"
	done
	check "big-shattered-1.pdf and big-shattered-2.pdf collide" \
		cmp -s <(cd "$W" && "$SK" sum --fast big-shattered-1.pdf | cut -d' ' -f1) \
		<(cd "$W" && "$SK" sum --fast big-shattered-2.pdf | cut -d' ' -f1)
	head -c $((SUFFIX + 4097)) /dev/urandom >"$W/big-random"
	compare -- big-random
	rm -f "$W"/big-*

	# checking: a file with an attack fails even though its digest matches
	printf '%s  shattered-1.pdf\n%s  empty\n' "${PLAIN[0]}" "$H_EMPTY" >"$C/attack"
	printf 'shattered-1.pdf: FAILED (SHA-1 collision attack detected)\nempty: OK\n' >"$E/c.out"
	{
		warning shattered-1.pdf 256
		echo "sha1kit: WARNING: 1 listed file contains a SHA-1 collision attack"
	} >"$E/c.err"
	expect "-c, attack with the right digest" 3 "$E/c.out" "$E/c.err" -- -c "$C/attack"
	printf 'shattered-1.pdf: FAILED (SHA-1 collision attack detected)\n' >"$E/cq.out"
	expect "-c --quiet, attack" 3 "$E/cq.out" "$E/c.err" -- -c --quiet "$C/attack"
	warning shattered-1.pdf 256 >"$E/cs.err"
	expect "-c --status, attack" 3 "$E/none" "$E/cs.err" -- -c --status "$C/attack"
	printf 'shattered-1.pdf: OK\nempty: OK\n' >"$E/cf.out"
	expect "-c --fast, attack not detected" 0 "$E/cf.out" "$E/none" -- -c --fast "$C/attack"
	printf 'SHA1 (sha-mbles-2.bin) = %s\n' "${ZERO}" >"$C/attack-bad"
	printf 'sha-mbles-2.bin: FAILED\n' >"$E/cb.out" # sha1sum's line: the digest differs
	{
		warning sha-mbles-2.bin 576
		echo "sha1kit: WARNING: 1 computed checksum did NOT match"
		echo "sha1kit: WARNING: 1 listed file contains a SHA-1 collision attack"
	} >"$E/cb.err"
	expect "-c, attack with a wrong digest" 3 "$E/cb.out" "$E/cb.err" -- -c "$C/attack-bad"
	lines "${SAFE[@]}" >"$C/safe"
	{
		for f in "${CORPUS[@]:0:4}"; do echo "$f: FAILED (SHA-1 collision attack detected)"; done
		echo "sha1_reducedsha_coll.bin: OK"
	} >"$E/csafe.out"
	{
		warnings
		echo "sha1kit: WARNING: 4 listed files contain a SHA-1 collision attack"
	} >"$E/csafe.err"
	expect "-c --safe-hash" 3 "$E/csafe.out" "$E/csafe.err" -- -c --safe-hash "$C/safe"
	lines "${PLAIN[@]}" >"$C/plain"
	printf '%s\n' "${CORPUS[@]}" | sed 's/$/: OK/' >"$E/cfast.out"
	expect "-c --fast, corpus" 0 "$E/cfast.out" "$E/none" -- -c --fast "$C/plain"
fi

# --------------------------------------------------------------------------------------------------
# sha1kit-only options, help and the top level
# --------------------------------------------------------------------------------------------------
printf 'sha1kit: --fast (no collision detection) cannot be combined with --safe-hash\n' >"$T/e1"
printf "Try 'sha1kit sum --help' for more information.\n" >>"$T/e1"
: >"$T/none"
expect "--fast --safe-hash" 1 "$T/none" "$T/e1" -- --fast --safe-hash plain.txt
printf '%s  plain.txt\n' "$H_PLAIN" >"$T/p.out"
expect "--safe-hash, no attack: true SHA-1" 0 "$T/p.out" "$T/none" -- --safe-hash plain.txt
expect "--reduced-round, no attack" 0 "$T/p.out" "$T/none" -- --reduced-round plain.txt

"$SK" sum --help >"$T/h.out" 2>"$T/h.err"
check "sum --help: exit 0, no stderr" [ $? = 0 -a ! -s "$T/h.err" ]
for s in 'Usage: sha1kit sum' '--check' '--tag' '--zero' '--ignore-missing' '--quiet' '--status' \
	'--strict' '--warn' '--fast' '--safe-hash' '--reduced-round' '--sha256' 'Exit status:' 'Examples:'; do
	check "sum --help mentions $s" grep -qF -- "$s" "$T/h.out"
done
check "sum --help fits 80 columns" at_most_80_columns "$T/h.out"
"$SK" help sum >"$T/h2.out" 2>&1
check "help sum = sum --help" same_file "$T/h.out" "$T/h2.out"
"$SK" --version >"$T/v.out" 2>&1
check "--version: exit 0" [ $? = 0 ]
check "--version first line" [ "$(head -n 1 "$T/v.out")" = "sha1kit 0.1.0" ]
check "--version names the kernel" grep -q '^kernel: ' "$T/v.out"
check "--version names the compiler" grep -qE '^compiler: (gcc|clang) ' "$T/v.out"
"$SK" sum --version >"$T/v2.out" 2>&1
check "sum --version = --version" same_file "$T/v.out" "$T/v2.out"
"$SK" --help >"$T/top.out" 2>&1
check "--help: exit 0" [ $? = 0 ]
check "--help lists sum" grep -qE '^  sum ' "$T/top.out"
check "--help fits 80 columns" at_most_80_columns "$T/top.out"
"$SK" help >"$T/top2.out" 2>&1
check "help = --help" same_file "$T/top.out" "$T/top2.out"
"$SK" frobnicate >"$T/u.out" 2>"$T/u.err"
check "unknown command: exit 1" [ $? = 1 ]
one_line_error() { [ "$(wc -l <"$T/u.err")" = 1 ] && [ ! -s "$T/u.out" ] && grep -q frobnicate "$T/u.err"; }
check "unknown command: one line on stderr, nothing on stdout" one_line_error
"$SK" help frobnicate >/dev/null 2>&1
check "help on an unknown command: exit 1" [ $? = 1 ]
"$SK" >/dev/null 2>&1
check "no command: exit 1" [ $? = 1 ]
"$SK" --bogus >/dev/null 2>&1
check "unknown top-level option: exit 1" [ $? = 1 ]

# --------------------------------------------------------------------------------------------------
# 3. Every regular readable file of /usr/bin, one invocation each
# --------------------------------------------------------------------------------------------------
mapfile -d '' BIN < <(find /usr/bin -maxdepth 1 -type f -readable -print0 | sort -z)
if [ ${#BIN[@]} -eq 0 ]; then
	fail "no files found in /usr/bin"
else
	sha1sum -- "${BIN[@]}" >"$T/bin.exp" 2>"$T/bin.exp.err"
	erc=$?
	"$SK" sum -- "${BIN[@]}" >"$T/bin.got" 2>"$T/bin.got.err"
	grc=$?
	sed -i 's/^sha1sum: /sha1kit: /' "$T/bin.exp.err"
	if same_file "$T/bin.exp" "$T/bin.got" && same_file "$T/bin.exp.err" "$T/bin.got.err" && [ $erc = $grc ]; then
		pass
		echo "/usr/bin: ${#BIN[@]} files agree"
	else
		fail "/usr/bin (${#BIN[@]} files): sha1kit sum differs from sha1sum (exit $erc vs $grc)"
		diff -u --text "$T/bin.exp" "$T/bin.got" | head -n 40 | sed 's/^/    /'
		diff -u --text "$T/bin.exp.err" "$T/bin.got.err" | head -n 20 | sed 's/^/    /'
	fi
fi

# --------------------------------------------------------------------------------------------------
# 4. Every kernel: SHA1KIT_CPU masks
# --------------------------------------------------------------------------------------------------
# -avx512 and -avx2 add the SHA-1DC kernels shani+avx2 and shani+sse2 on a CPU with all features.
MASKS=("${SK_CPU_MASKS[@]}" -avx512 -avx2)
mkdir "$W/lengths"
# the first n bytes of binary.bin in len-N, made by one process (a head each was 211 starts)
python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
for n in list(range(201)) + [447, 448, 511, 512, 4095, 4096, 4097, 65535, 65536, 65537]:
    open("%s/len-%d" % (sys.argv[2], n), "wb").write(d[:n])' "$W/binary.bin" "$W/lengths" ||
	fail "could not write the files of the lengths"
LENS=(lengths/*)
M=$T/mask
mkdir "$M"
compare -- "${LENS[@]}"
(cd "$W" && sha1sum -- "${LENS[@]}") >"$M/lens.out"
expect "--fast, lengths 0..65537" 0 "$M/lens.out" "$T/none" -- --fast -- "${LENS[@]}"
if [ $corpus_ok = 1 ]; then
	# a collision followed by 9 MiB: hashed by two threads as a file, by one through a pipe
	cat "$W/shattered-1.pdf" "$T/suffix" >"$W/big-mask"
	(cd "$W" && sha1sum big-mask) >"$E/bigmask.out"
	warning big-mask 256 >"$E/bigmask.err"
	expect "big-mask: SHA-1 and the attack of shattered-1.pdf" 2 "$E/bigmask.out" "$E/bigmask.err" -- big-mask
fi
# mask_args N: the arguments (ARGS) and standard input (IN) of case N; false past the last.
mask_args() {
	IN=/dev/null
	case $1 in
	0) ARGS=(-- "${ALL[@]}") ;;
	1) ARGS=(--fast --tag -- "${ALL[@]}") ;;
	2) ARGS=(-- "${LENS[@]}") ;;
	3) ARGS=(--fast -- "${LENS[@]}") ;;
	4) ARGS=(-c "$C/good") ;;
	*) [ $corpus_ok = 1 ] || return 1 ;;&
	5) ARGS=(-- "${CORPUS[@]}" big-mask) ;;
	6) ARGS=(--safe-hash --reduced-round -- "${CORPUS[@]}") ;;
	7) ARGS=(--reduced-round -- "${CORPUS[@]}" big-mask) ;;
	8) ARGS=(-) IN=$W/big-mask ;;
	9) ARGS=(-c "$C/attack") ;;
	10) ARGS=(-c --safe-hash "$C/safe") ;;
	[0-9]*) return 1 ;;
	esac
}
# run_masked MASK OUT: sha1kit sum ARGS <IN in $W with SHA1KIT_CPU=MASK, into OUT.out, .err, .rc.
run_masked() {
	(
		cd "$W" || exit 99
		sk_cpu_run "$1" "$SK" sum "${ARGS[@]}" <"$IN" >"$2.out" 2>"$2.err"
		echo $? >"$2.rc"
	)
}
ncases=0
while mask_args $ncases; do
	run_masked "" "$M/base.$ncases"
	ncases=$((ncases + 1))
done
for mask in "${MASKS[@]}"; do
	if sk_cpu_check "$SK" "$mask" >"$M/check"; then
		pass
		echo "SHA1KIT_CPU=${mask:-(unset)}: kernels $SK_CPU_KERNELS"
	else
		fail "SHA1KIT_CPU='$mask' sha1kit --version: not the kernels the mask must give"
		cat "$M/check"
	fi
	[ -z "$mask" ] && continue
	for ((k = 0; k < ncases; k++)); do
		mask_args $k
		run_masked "$mask" "$M/got"
		if same_file "$M/base.$k.out" "$M/got.out" && same_file "$M/base.$k.err" "$M/got.err" &&
			same_file "$M/base.$k.rc" "$M/got.rc"; then
			pass
		else
			fail "SHA1KIT_CPU='$mask' sum ${ARGS[*]:0:4}... <${IN##*/}: differs from the unmasked run (- unmasked, + masked)"
			show_diff "$M/base.$k.out" "$M/got.out" | head -n 20
			show_diff "$M/base.$k.err" "$M/got.err" | head -n 10
			echo "    exit status: unmasked $(<"$M/base.$k.rc"), masked $(<"$M/got.rc")"
		fi
	done
done
rm -f "$W/big-mask"
# -all is every name; blanks around entries and a blank value are allowed
every=$(printf -- '-%s,' "${SK_CPU_NAMES[@]}")
sk_cpu_run "${every%,}" "$SK" --version | sed -n '/^kernel/p' >"$M/names.v"
sk_cpu_run -all "$SK" --version | sed -n '/^kernel/p' >"$M/all.v"
check "SHA1KIT_CPU=-all = every name turned off" same_file "$M/names.v" "$M/all.v"
check "SHA1KIT_CPU=' -shani , -avx512 ': as -shani,-avx512" \
	test "$(sk_cpu_run ' -shani , -avx512 ' "$SK" --version | grep '^kernel')" = \
	"$(sk_cpu_run -shani,-avx512 "$SK" --version | grep '^kernel')"
check "SHA1KIT_CPU=' ': nothing off" \
	test "$(sk_cpu_run ' ' "$SK" --version | grep '^cpu mask: ')" = "cpu mask: SHA1KIT_CPU=  (off: none)"

# Invalid values: exit 1 before any command, one line on stderr naming the entry and the names.
KNOWN="(known: sse2, ssse3, sse4.1, avx2, bmi2, avx512, shani, armv8-sha1, armv8-sha2, all)"
bad_mask() { # bad_mask VALUE MESSAGE [ARGS...]: SHA1KIT_CPU=VALUE sha1kit ARGS fails with MESSAGE
	local value=$1 msg=$2
	shift 2
	[ $# -gt 0 ] || set -- sum /dev/null
	sk_cpu_run "$value" "$SK" "$@" >"$M/bad.out" 2>"$M/bad.err"
	local rc=$?
	if [ $rc = 1 ] && [ ! -s "$M/bad.out" ] && [ "$(<"$M/bad.err")" = "sha1kit: SHA1KIT_CPU: $msg $KNOWN" ]; then
		pass
	else
		fail "SHA1KIT_CPU='$value' sha1kit $*: exit $rc, expected 1 and the line 'sha1kit: SHA1KIT_CPU: $msg $KNOWN'"
		sed 's/^/    stderr: /' "$M/bad.err"
		sed 's/^/    stdout: /' "$M/bad.out" | head -n 3
	fi
}
bad_mask -bogus "unknown feature 'bogus'"
bad_mask -shani,-bogus "unknown feature 'bogus'"
bad_mask -SHANI "unknown feature 'SHANI'"
bad_mask +shani "'+shani': features can only be turned off, as in '-shani'"
bad_mask shani "'shani': features can only be turned off, as in '-shani'"
bad_mask -shani, "empty entry in '-shani,'"
bad_mask -shani,- "'-' names no feature in '-shani,-'"
bad_mask $'-bo\ngus' "unknown feature 'bo?gus'"
bad_mask -bogus "unknown feature 'bogus'" --version
check "SHA1KIT_CPU=-bogus sha1kit --help: the help is still shown (it explains the variable)" \
	bash -c "SHA1KIT_CPU=-bogus '$SK' --help | grep -q SHA1KIT_CPU"
check "SHA1KIT_CPU=-bogus sha1kit help sum: shown" bash -c "SHA1KIT_CPU=-bogus '$SK' help sum >/dev/null"
bad_mask -bogus "unknown feature 'bogus'" hash-object /dev/null
"$SK" --help >"$M/help.out" 2>&1
check "--help mentions SHA1KIT_CPU" grep -q SHA1KIT_CPU "$M/help.out"
}

# 6. Run through links named sha1sum and sha256sum (found on PATH, as scripts run them): GNU's
#    options only, and every byte of stdout and stderr GNU's, its program name included.
section_link() { # nowine
need_files
local L=$T/links algo a rc grc src
mkdir -p "$L"
ln -sf "$SK" "$L/sha1sum"
ln -sf "$SK" "$L/sha256sum"
# write errors as GNU's close_stdout words them: the errno only when the final fclose failed
# (its output is line-buffered: -z to a full device, or a closed stdout with output pending)
if [ -w /dev/full ]; then
	mkdir -p "$T/many" && for a in $(seq 1 300); do echo "$a" >"$T/many/f$a"; done
	for a in "-z plain.txt" "plain.txt missing-file" "--tag plain.txt"; do
		# shellcheck disable=SC2086 # the arguments are words
		(cd "$W" && sha1sum $a >/dev/full 2>"$T/lg.err")
		grc=$?
		# shellcheck disable=SC2086
		(cd "$W" && PATH=$L:$PATH sha1sum $a >/dev/full 2>"$T/ls.err")
		src=$?
		[ $grc = $src ] && same_file "$T/lg.err" "$T/ls.err" && pass || fail "sha1sum $a >/dev/full: GNU $grc $(<"$T/lg.err"), link $src $(<"$T/ls.err")"
	done
	for a in "plain.txt missing-file" "$T/many/*"; do
		# shellcheck disable=SC2086
		(cd "$W" && sha1sum $a >&- 2>"$T/lg.err")
		grc=$?
		# shellcheck disable=SC2086
		(cd "$W" && PATH=$L:$PATH sha1sum $a >&- 2>"$T/ls.err")
		src=$?
		[ $grc = $src ] && same_file "$T/lg.err" "$T/ls.err" && pass || fail "sha1sum $a >&-: GNU $grc $(<"$T/lg.err"), link $src $(<"$T/ls.err")"
	done
fi
# an invalid SHA1KIT_CPU through a link: its line starts with the link's name too
(cd "$W" && SHA1KIT_CPU=-bogus PATH=$L:$PATH sha1sum plain.txt >"$T/lb.out" 2>"$T/lb.err")
rc=$?
if [ $rc = 1 ] && [ ! -s "$T/lb.out" ] && grep -q "^sha1sum: SHA1KIT_CPU: unknown feature 'bogus'" "$T/lb.err"; then
	pass
else
	fail "SHA1KIT_CPU=-bogus sha1sum: exit $rc, $(head -c 200 "$T/lb.err")"
fi
for algo in sha1sum sha256sum; do
	"/usr/bin/$algo" -- * >"$T/$algo.sums" 2>/dev/null
	for a in "plain.txt" "--tag plain.txt" "-c $T/$algo.sums" "--bogus" "--s plain.txt" "--sta -c $T/$algo.sums" \
		"--fast plain.txt" "--sha256 plain.txt" "missing-file" "-c missing-file" "--tag -c plain.txt" \
		"--ignore-missing --quiet -c $T/$algo.sums" "--help" "-z --check $T/$algo.sums"; do
		# shellcheck disable=SC2086 # the arguments are words
		(cd "$W" && "$algo" $a >"$T/lg.out" 2>"$T/lg.err")
		local grc=$?
		# shellcheck disable=SC2086
		(cd "$W" && PATH=$L:$PATH "$algo" $a >"$T/ls.out" 2>"$T/ls.err")
		local src=$?
		if [ "$a" = --help ]; then # sha1kit's own text under the link's name; GNU's options only
			if [ $src = 0 ] && grep -q "^Usage: $algo \[OPTION\]" "$T/ls.out" && ! grep -q 'sha1kit only' "$T/ls.out" &&
				grep -q "^Print or check $([ $algo = sha1sum ] && echo 'SHA1 (160' || echo 'SHA256 (256')-bit) checksums" "$T/ls.out"; then
				pass
			else
				fail "$algo link --help: status $src, $(head -1 "$T/ls.out")"
			fi
			continue
		fi
		if [ $grc = $src ] && same_file "$T/lg.out" "$T/ls.out" && same_file "$T/lg.err" "$T/ls.err"; then
			pass
		else
			fail "$algo (a link to sha1kit) $a: status $src, GNU's $grc"
			diff "$T/lg.err" "$T/ls.err" | head -4
		fi
	done
done
}

sk_run_sections
echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
