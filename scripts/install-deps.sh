#!/usr/bin/env bash
# install-deps.sh - install the Debian 12 packages that building and testing sha1kit needs.
#
# Usage: scripts/install-deps.sh [--demo] [--print]
#   As root: apt-get installs whatever is missing (nothing is run when all are present).
#   Not root (or --print): prints the apt-get command instead; exits 1 when something is missing
#   (0 with --print), so that `make` stops before a configure step that would fail.
#   --demo: only what building the tool and `make demo` need (compiler, CMake, zlib, libdeflate,
#   and the reference sha1cdsum it compares with), not the test, cross and benchmark packages.
#
# Cross test builds (s390x big-endian, i686 32-bit) use Debian's cross compilers and qemu-user from
# here; their target libraries (cmocka, libcrypto) come from scripts/cross-sysroot.sh, which needs no
# root and changes no dpkg state (see scripts/apt-fetch.sh for why not dpkg --add-architecture). The
# Windows build's cmocka and jansson are Debian's source packages, cross-built by scripts/mingw-deps.sh.
#
# Never install gcc-multilib: on Debian it conflicts with, and removes, the gcc-*-linux-gnu cross
# compilers. apt-get runs with --no-remove so that no install here can remove anything.
set -euo pipefail

demo=0 print=0
for a in "$@"; do
	case "$a" in
	--demo) demo=1 ;;
	--print) print=1 ;;
	*)
		echo "usage: $0 [--demo] [--print]" >&2
		exit 2
		;;
	esac
done

if [ "$demo" = 1 ]; then
	packages=(build-essential cmake pkg-config zlib1g-dev libdeflate-dev sha1cdsum)
else
	packages=(
		# native build and unit tests
		build-essential cmake pkg-config libcmocka-dev libjansson-dev libssl-dev zlib1g-dev libdeflate-dev
		# tools, generators and oracles (git hash-object/index-pack, sha1cdsum = reference SHA-1DC,
		# coreutils sha1sum = CLI format)
		python3 git sha1cdsum coreutils clang-format
		# the test scripts run seq, rm, mkdir, ln, dirname, basename and rmdir inside bash when these
		# loadable builtins are there (tests/testlib.sh, sk_enable_loadables): fewer process starts
		bash-builtins
		# sha1kit bench: peers, JSON schema check, chart; bench/ scripts
		nettle-dev libgcrypt20-dev gnuplot-nox hyperfine python3-jsonschema openssl
		# sha1kit report: its site is opened in headless Chromium (tests/bench/check_report.py)
		chromium
		# man page lint (tests/compat)
		groff-base
		# sanitizer pass (clang + its ASan/UBSan runtimes; gcc's libasan/libubsan come with gcc)
		clang libclang-rt-14-dev
		# cross builds run under qemu-user
		qemu-user
		gcc-s390x-linux-gnu libc6-dev-s390x-cross
		gcc-i686-linux-gnu libc6-dev-i386-cross
		gcc-aarch64-linux-gnu libc6-dev-arm64-cross
		# Windows x64 build (MinGW-w64, with its zlib) and its tests under Wine (wine: the launchers);
		# dpkg-dev: dpkg-source (and patch) for scripts/mingw-deps.sh, which cross-builds Debian's
		# cmocka and jansson source packages for the Windows tests, and for scripts/git-current.sh,
		# which builds a current Git from sid's source package (with build-essential and zlib1g-dev)
		gcc-mingw-w64-x86-64 libz-mingw-w64-dev wine wine64 dpkg-dev
	)
	# sha1kit bench's multi-buffer peer (Intel's ipsec-mb): built for x86-64 only
	if [ "$(dpkg --print-architecture 2>/dev/null || true)" = amd64 ]; then
		packages+=(libipsec-mb-dev)
	fi
fi

missing=()
for p in "${packages[@]}"; do
	case "$p" in \#*) continue ;; esac
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#packages[@]} packages are installed"
	exit 0
fi

cmd="apt-get install -y --no-install-recommends --no-remove ${missing[*]}"
if [ "$print" = 1 ] || [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}"
	echo "install-deps: run as root:"
	echo "  apt-get update && $cmd"
	[ "$print" = 1 ] && exit 0
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing: ${missing[*]}"
if ! apt-get update -q; then
	# One index failing (a mirror mid-sync) need not stop the install; apt-get install decides.
	echo "install-deps: warning: apt-get update reported errors; trying the install anyway" >&2
fi
apt-get install -q -y --no-install-recommends --no-remove "${missing[@]}"

still=()
for p in "${missing[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || still+=("$p")
done
if [ ${#still[@]} -ne 0 ]; then
	echo "install-deps: error: still missing: ${still[*]}" >&2
	exit 1
fi
echo "install-deps: done"
