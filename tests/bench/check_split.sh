#!/usr/bin/env bash
# check_split.sh - the sha1kit program links none of the benchmark's peers, and `sha1kit bench` runs
# the separate program sha1kit-bench: in the build tree, in an installed tree, in a moved one.
#
# Usage: check_split.sh OBJDUMP SHA1KIT BENCH|- CMAKE BUILD_DIR LIBEXEC_DIR BINDIR LIBEXECDIR
#   BENCH        the build tree's sha1kit-bench, or - when it is not built (-DSHA1KIT_BUILD_BENCH=OFF)
#   LIBEXEC_DIR  the configured absolute directory of sha1kit-bench (the launcher's last resort)
#   BINDIR, LIBEXECDIR  CMAKE_INSTALL_BINDIR and CMAKE_INSTALL_LIBEXECDIR (relative to the prefix)
#
# Checks:
#  1. the NEEDED entries of sha1kit (objdump -p) name none of libcrypto, libnettle, libgcrypt,
#     libIPSec_MB, libjansson;
#  2. `sha1kit bench --list` works through the exec; `sha1kit bench --help` and `sha1kit help bench`
#     print the same help, which says "sha1kit bench"; a usage error names `sha1kit bench --help`;
#  3. a sha1kit with no sha1kit-bench beside it (nor installed) fails with one line naming the
#     places it looked in and -DSHA1KIT_BUILD_BENCH=ON, exit status 1;
#  4. `cmake --install --component sha1kit-programs --prefix P`: P/BINDIR/sha1kit bench --list works
#     (sha1kit-bench in P/LIBEXECDIR/sha1kit), and still after P is moved; without it, the message
#     names P/BINDIR, P/LIBEXECDIR/sha1kit and LIBEXEC_DIR.
set -u
if [ $# -ne 8 ]; then
	sed -n '2,/^set/p' "$0" | sed '$d'
	exit 2
fi
objdump=$1 sha1kit=$2 bench=$3 cmake=$4 build=$5 libexec_abs=$6 bindir=$7 libexecdir=$8
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-split.XXXXXX") && T=$(cd "$T" && pwd -P) || exit 1
trap 'rm -rf "$T"' EXIT

# 1. What the dynamic loader must load for sha1kit.
needed=$("$objdump" -p "$sha1kit" | awk '$1 == "NEEDED" { print $2 }')
[ -n "$needed" ] || fail "objdump -p $sha1kit: no NEEDED entries (not a dynamic executable?)"
echo "sha1kit needs: $(tr '\n' ' ' <<<"$needed")"
for lib in libcrypto libnettle libgcrypt libIPSec_MB libjansson; do
	if grep -q "^$lib\.so" <<<"$needed"; then
		fail "sha1kit links $lib (only sha1kit-bench may): NEEDED $(grep "^$lib\.so" <<<"$needed")"
	fi
done

# Runs "$@" and sets rc, out, err.
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	out=$(<"$T/out")
	err=$(<"$T/err")
}

# 3 (and 4): the one-line message of a sha1kit that finds no sha1kit-bench; $2... the places.
expect_not_found() {
	local what=$1 bin=$2
	shift 2
	run "$bin" bench --list
	local places=$1
	shift
	while [ $# -gt 1 ]; do
		places="$places, $1"
		shift
	done
	[ $# -eq 1 ] && places="$places and $1"
	local want="sha1kit: bench: sha1kit-bench not found (looked in $places): build its target (\`cmake --build DIR --target sha1kit-bench\`, or all targets; it needs -DSHA1KIT_BUILD_BENCH=ON, the default)"
	[ "$rc" = 1 ] || fail "$what: exit status $rc, expected 1"
	[ -z "$out" ] || fail "$what: wrote to stdout: $out"
	[ "$err" = "$want" ] || fail "$what: message
  got:  $err
  want: $want"
}

if [ -e "$libexec_abs/sha1kit-bench" ]; then
	echo "check_split: $libexec_abs/sha1kit-bench exists (an installed sha1kit): not-found checks skipped"
	installed=1
else
	installed=0
fi

# The launcher's second place: LIBEXECDIR/sha1kit relative to its own directory, when both install
# directories are relative (else it has only the configured absolute one, and an install into a
# temporary prefix would write outside it: part 4 is left out).
relative=1
case "$bindir" in /*) relative=0 ;; esac
case "$libexecdir" in /*) relative=0 ;; esac
rel=""
[ $relative = 1 ] && rel=$(realpath -m --relative-to="/p/$bindir" "/p/$libexecdir/sha1kit")

# 3. sha1kit alone.
mkdir -p "$T/alone/bin"
cp "$sha1kit" "$T/alone/bin/sha1kit"
if [ $installed = 1 ]; then
	:
elif [ $relative = 1 ]; then
	expect_not_found "sha1kit alone" "$T/alone/bin/sha1kit" "$T/alone/bin" "$(realpath -m "$T/alone/bin/$rel")" \
		"$libexec_abs"
else
	expect_not_found "sha1kit alone" "$T/alone/bin/sha1kit" "$T/alone/bin" "$libexec_abs"
fi

if [ "$bench" = - ]; then
	[ "$fails" = 0 ] && echo "check_split: all checks passed (no sha1kit-bench built)"
	exit $((fails != 0))
fi

# 2. Through the exec, in the build tree.
check_bench_runs() {
	local what=$1 bin=$2
	run "$bin" bench --list
	[ "$rc" = 0 ] || fail "$what: sha1kit bench --list: exit status $rc: $err"
	grep -q '^sha1kit-fast-portable ' <<<"$out" || fail "$what: sha1kit bench --list: no sha1kit-fast-portable row"
}
check_bench_runs "build tree" "$sha1kit"
run "$sha1kit" bench --help
help=$out
[ "$rc" = 0 ] || fail "sha1kit bench --help: exit status $rc: $err"
[ "$(head -n 1 <<<"$help")" = "Usage: sha1kit bench [OPTION]..." ] ||
	fail "sha1kit bench --help: first line is '$(head -n 1 <<<"$help")'"
run "$sha1kit" help bench
[ "$rc" = 0 ] || fail "sha1kit help bench: exit status $rc: $err"
[ "$out" = "$help" ] || fail "sha1kit help bench differs from sha1kit bench --help"
run "$bench" --help
[ "$out" = "$help" ] || fail "sha1kit-bench --help differs from sha1kit bench --help"
run "$sha1kit" bench --no-such-option
[ "$rc" = 1 ] || fail "sha1kit bench --no-such-option: exit status $rc, expected 1"
grep -qx "Try 'sha1kit bench --help' for more information." <<<"$err" ||
	fail "sha1kit bench --no-such-option: no \"Try 'sha1kit bench --help'\" line: $err"
grep -q "^sha1kit: bench: unrecognized option '--no-such-option'" <<<"$err" ||
	fail "sha1kit bench --no-such-option: message does not start with 'sha1kit: bench: ': $err"

# 4. Installed, then moved.
if [ $relative = 0 ]; then
	echo "check_split: absolute BINDIR or LIBEXECDIR: installed-tree checks skipped"
elif ! "$cmake" --install "$build" --component sha1kit-programs --prefix "$T/inst" >"$T/install.log" 2>&1; then
	cat "$T/install.log"
	fail "cmake --install --component sha1kit-programs failed"
else
	[ -x "$T/inst/$libexecdir/sha1kit/sha1kit-bench" ] || fail "not installed: $libexecdir/sha1kit/sha1kit-bench"
	[ ! -e "$T/inst/$bindir/sha1kit-bench" ] || fail "sha1kit-bench installed into $bindir (on PATH)"
	check_bench_runs "installed" "$T/inst/$bindir/sha1kit"
	mv "$T/inst" "$T/moved"
	check_bench_runs "installed, moved" "$T/moved/$bindir/sha1kit"
	if [ $installed = 0 ]; then
		rm -r "$T/moved/$libexecdir/sha1kit"
		expect_not_found "installed without sha1kit-bench" "$T/moved/$bindir/sha1kit" "$T/moved/$bindir" \
			"$(realpath -m "$T/moved/$libexecdir/sha1kit")" "$libexec_abs"
	fi
fi

if [ "$fails" != 0 ]; then
	echo "check_split: $fails check(s) failed"
	exit 1
fi
echo "check_split: all checks passed"
