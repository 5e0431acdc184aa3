#!/usr/bin/env bash
# test_sum_win.sh SHA1KIT TESTDATA - `sha1kit.exe sum` under Wine against GNU sha1sum on Linux, as
# GNU sha1sum behaves on Windows: there (O_BINARY systems) it reads in binary mode unless told
# --text or reading a terminal on standard input, and marks binary lines with '*', so the oracle
# for a run without --text is the native `sha1sum --binary` (tests/cli/test_sum.sh, the POSIX
# test, needs names and file kinds Windows does not have: '*', '\', control characters, trailing
# spaces, FIFOs, /dev/full).
#
# SHA1KIT is the Wine wrapper of sha1kit.exe (tests/win/tests.cmake). Checked: stdout byte for byte,
# stderr (sha1sum: -> sha1kit:) and exit status, for files whose bytes a text-mode read would change
# (CR LF, a lone CR, ^Z, NUL), standard input from a file and a pipe, names with spaces, dots, '-',
# UTF-8 and directories given with '/', --tag, -z, -c on lines of both marks, missing files and a
# directory; the attack corpus (the plain SHA-1 lines, one warning each, exit 2); every kernel of
# this CPU through SHA1KIT_CPU masks (tests/cli/cpu_masks.sh).
# Option errors are worded by MinGW's getopt_long (BSD: "unknown option -- x"): only their status,
# prefix and second line are compared. sha1kit.exe runs with LC_ALL=C.UTF-8 for Wine, which then
# hands it UTF-8 names (its manifest makes its code page UTF-8); the C runtime has no UTF-8 locale,
# so it quotes names in messages as sha1sum does in the C locale, where sha1sum runs.
# Prints one line per failure and "N passed, M failed".
set -u
SK=${1:?usage: test_sum_win.sh SHA1KIT TESTDATA}
DATA=${2:?usage: test_sum_win.sh SHA1KIT TESTDATA}
# shellcheck source=../cli/cpu_masks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../cli/cpu_masks.sh"
export LC_ALL=C
SKW=(env LC_ALL=C.UTF-8 "$SK")
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-sumwin.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
W=$T/work
mkdir -p "$W/dir/nested"
cd "$W" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}

# Files whose digest a text-mode read would change, and plain ones.
printf 'line one\r\nline two\r\n' >crlf.txt
printf 'a\rb\n\032after ctrl-z\n' >cr-ctrlz.bin
head -c 100000 /dev/urandom >random.bin
printf 'abc\000def\r\n\032' >'with space (1).bin'
printf 'plain\n' >plain.txt
: >empty
printf 'nested\r\n' >dir/nested/file.txt
printf '\xc3\xa9t\xc3\xa9\n' >"$(printf 'utf8-\303\251')"
printf 'dash\n' >./-dash

# compare DESC STDIN :: SHA1SUM-ARGS :: SHA1KIT-ARGS
compare() {
	local desc=$1 in=$2
	shift 3
	local -a exp=() got=()
	while [ "$1" != :: ]; do
		exp+=("$1")
		shift
	done
	shift
	got=("$@")
	sha1sum "${exp[@]}" <"$in" >"$T/e.out" 2>"$T/e.err"
	local erc=$?
	"${SKW[@]}" sum "${got[@]}" <"$in" >"$T/g.out" 2>"$T/g.err"
	local grc=$?
	sed -e 's/^sha1sum:/sha1kit:/' -e "s/Try 'sha1sum --help'/Try 'sha1kit sum --help'/" "$T/e.err" >"$T/e.err2"
	if ! cmp -s "$T/e.out" "$T/g.out"; then
		bad "$desc: stdout differs (- sha1sum, + sha1kit)"
		diff -u <(od -An -c "$T/e.out") <(od -An -c "$T/g.out") | sed 's/^/    /' | head -n 20
	elif ! cmp -s "$T/e.err2" "$T/g.err"; then
		bad "$desc: stderr differs (- sha1sum, + sha1kit)"
		diff -u "$T/e.err2" "$T/g.err" | sed 's/^/    /' | head -n 20
	elif [ $erc != $grc ]; then
		bad "$desc: exit $grc, sha1sum $erc"
	else
		ok
	fi
}

FILES=(crlf.txt cr-ctrlz.bin random.bin 'with space (1).bin' plain.txt empty dir/nested/file.txt
	"$(printf 'utf8-\303\251')" ./-dash)
# the default on Windows is binary mode: sha1sum -b
compare "sum FILES" /dev/null :: -b "${FILES[@]}" :: "${FILES[@]}"
compare "sum -b FILES" /dev/null :: -b "${FILES[@]}" :: -b "${FILES[@]}"
compare "sum -t FILES" /dev/null :: -t "${FILES[@]}" :: -t "${FILES[@]}"
compare "sum --tag FILES" /dev/null :: --tag "${FILES[@]}" :: --tag "${FILES[@]}"
compare "sum -z FILES" /dev/null :: -b -z "${FILES[@]}" :: -z "${FILES[@]}"
compare "sum -z --tag FILES" /dev/null :: -z --tag "${FILES[@]}" :: -z --tag "${FILES[@]}"
compare "sum -- -dash" /dev/null :: -b -- -dash :: -- -dash
# standard input (a file: binary, as it is not a terminal), also between files and twice
compare "sum < cr-ctrlz.bin" cr-ctrlz.bin :: -b :: -b
compare "sum - < crlf.txt" crlf.txt :: -b - :: -
compare "sum - plain.txt - < random.bin" random.bin :: -b - plain.txt - :: - plain.txt -
compare "sum -t - < crlf.txt" crlf.txt :: -t - :: -t -
printf 'x\r\ny\032z' | sha1sum -b >"$T/e.out"
printf 'x\r\ny\032z' | "${SKW[@]}" sum >"$T/g.out" 2>"$T/g.err"
cmp -s "$T/e.out" "$T/g.out" && [ ! -s "$T/g.err" ] && ok || bad "sum from a pipe: $(cat "$T/g.out" "$T/g.err")"
# errors: a missing file, a directory (after the good ones), with the exit status
compare "sum plain.txt missing empty" /dev/null :: -b plain.txt missing empty :: plain.txt missing empty
compare "sum dir plain.txt" /dev/null :: -b dir plain.txt :: dir plain.txt
for opt in --bogus -x --check=x; do
	"${SKW[@]}" sum $opt plain.txt >"$T/g.out" 2>"$T/g.err"
	rc=$?
	mapfile -t l <"$T/g.err"
	[ $rc = 1 ] && [ ! -s "$T/g.out" ] && [ "${#l[@]}" = 2 ] && [[ "${l[0]}" == "sha1kit: "*"${opt:2:1}"* ]] &&
		[ "${l[1]}" = "Try 'sha1kit sum --help' for more information." ] && ok || bad "sum $opt: exit $rc: ${l[*]}"
done
# -c on lines with '*' and ' ', a CRLF-free check file, a bad line, a missing file, -w --strict
sha1sum -b "${FILES[@]}" >"$T/binary.sums"
sha1sum -t crlf.txt plain.txt >"$T/text.sums"
sha1sum --tag random.bin >"$T/tag.sums"
{
	cat "$T/binary.sums"
	echo "not a line"
	printf '%s  missing\n' "$(printf '' | sha1sum | cut -c1-40)"
} >"$T/mixed.sums"
for f in binary text tag mixed; do
	compare "sum -c $f.sums" /dev/null :: -c "$T/$f.sums" :: -c "$T/$f.sums"
done
compare "sum -c --quiet mixed.sums" /dev/null :: -c --quiet "$T/mixed.sums" :: -c --quiet "$T/mixed.sums"
compare "sum -c -w --strict mixed.sums" /dev/null :: -c -w --strict "$T/mixed.sums" :: -c -w --strict "$T/mixed.sums"
cp random.bin changed.bin
sha1sum -b changed.bin >"$T/changed.sums"
printf 'x' >>changed.bin
compare "sum -c changed.sums (content changed)" /dev/null :: -c "$T/changed.sums" :: -c "$T/changed.sums"

# The attack corpus: the plain SHA-1 as sha1sum prints it, one warning per attack, exit 2.
CORPUS=(shattered-1.pdf shattered-2.pdf sha-mbles-1.bin sha-mbles-2.bin)
for f in "${CORPUS[@]}"; do
	if [ -f "$DATA/$f" ]; then
		cp "$DATA/$f" "$W/$f"
	else
		bad "test data $DATA/$f is missing"
	fi
done
sha1sum -b "${CORPUS[@]}" plain.txt >"$T/e.out" 2>/dev/null
"${SKW[@]}" sum "${CORPUS[@]}" plain.txt >"$T/g.out" 2>"$T/g.err"
rc=$?
[ $rc = 2 ] && ok || bad "corpus: exit $rc, want 2"
cmp -s "$T/e.out" "$T/g.out" && ok || bad "corpus: stdout differs: $(diff "$T/e.out" "$T/g.out" | head -n 6)"
n=0
for f in "${CORPUS[@]}"; do
	grep -q "^sha1kit: $f: SHA-1 collision attack detected (disturbance vector " "$T/g.err" && n=$((n + 1))
done
[ "$n" = 4 ] && [ "$(wc -l <"$T/g.err")" = 4 ] && ok || bad "corpus: want one warning per attack file: $(<"$T/g.err")"

# Every kernel of this CPU: the same output under each mask, and --version names the kernels.
"${SKW[@]}" sum "${FILES[@]}" "${CORPUS[@]}" >"$T/ref.out" 2>"$T/ref.err"
for mask in "${SK_CPU_MASKS[@]}"; do
	if sk_cpu_check "$SK" "$mask"; then ok; else bad "SHA1KIT_CPU=$mask: --version"; fi
	sk_cpu_run "$mask" "${SKW[@]}" sum "${FILES[@]}" "${CORPUS[@]}" >"$T/m.out" 2>"$T/m.err"
	rc=$?
	cmp -s "$T/ref.out" "$T/m.out" && cmp -s "$T/ref.err" "$T/m.err" && [ $rc = 2 ] && ok ||
		bad "SHA1KIT_CPU=$mask ($SK_CPU_KERNELS): output differs from the unmasked run (exit $rc)"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
