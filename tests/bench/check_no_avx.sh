#!/usr/bin/env bash
# check_no_avx.sh - sha1kit-bench on an x86-64 CPU with AVX and AVX2 whose OS does not enable them
# (qemu-x86_64 -cpu Haswell,-xsave: no XSAVE, so no OSXSAVE and no saved YMM state): no peer may run
# AVX code. ipsec-mb's init_mb_mgr_auto did (SIGILL); bench_peers.c now takes the manager sha1kit's
# own CPU probe allows, here its SSE one, or lists the row as unavailable with the reason.
#
# Usage: check_no_avx.sh QEMU_X86_64 SHA1KIT_BENCH
#
# Checks: `--list` exits 0; it lists no sha1kit AVX2 or AVX-512 kernel (the probe sees no OS-enabled
# AVX: the emulation is what it claims); an ipsec-mb row says "SSE manager" or "unavailable: ";
# a one-size run of the peers (ipsec-mb's rows at batch 4, and OpenSSL's baseline) exits 0, which
# includes the check of every digest.
set -u
if [ $# -ne 2 ]; then
	sed -n '2,/^set/p' "$0" | sed '$d'
	exit 2
fi
qemu=$1 bench=$2
cpu=Haswell,-xsave
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-noavx.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# A missing qemu is a failure (the test is registered only when configure found it).
out=$("$qemu" -cpu "$cpu" "$bench" --list 2>"$T/err")
rc=$?
echo "$out"
[ "$rc" = 0 ] || fail "qemu-x86_64 -cpu $cpu sha1kit-bench --list: exit status $rc: $(<"$T/err")"
if grep -Eq '^sha1kit-[^ ]*avx(2|512)' <<<"$out"; then
	fail "--list under -cpu $cpu lists an AVX2/AVX-512 kernel: the probe sees AVX the OS did not enable"
fi
imb=$(grep '^ipsec-mb ' <<<"$out")
if [ -n "$imb" ]; then
	grep -Eq 'SSE manager|unavailable: ' <<<"$imb" || fail "ipsec-mb row neither SSE manager nor unavailable: $imb"
	"$qemu" -cpu "$cpu" "$bench" --sizes=64 --only=ipsec-mb --batch=4 --reps=1 --sample-ms=1 --warmup=0 \
		>"$T/run" 2>&1 || fail "qemu-x86_64 -cpu $cpu sha1kit-bench --only=ipsec-mb: exit status $?: $(<"$T/run")"
fi

if [ "$fails" != 0 ]; then
	echo "check_no_avx: $fails check(s) failed"
	exit 1
fi
echo "check_no_avx: all checks passed"
