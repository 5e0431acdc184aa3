#!/usr/bin/env bash
# install-deps.sh - install the Debian 12 packages that building and testing sha1kit needs.
#
# Usage: scripts/install-deps.sh [--print]
#   As root: apt-get installs whatever is missing (nothing is run when all are present).
#   Not root (or --print): prints the apt-get command instead and exits 0.
#
# Cross test builds (s390x big-endian, i686 32-bit) use Debian's cross compilers and qemu-user from
# here; their target libraries (cmocka, libcrypto) come from scripts/cross-sysroot.sh, which needs no
# root and changes no dpkg state (see scripts/apt-fetch.sh for why not dpkg --add-architecture).
#
# Never install gcc-multilib: on Debian it conflicts with, and removes, the gcc-*-linux-gnu cross
# compilers. apt-get runs with --no-remove so that no install here can remove anything.
set -euo pipefail

packages=(
	# native build and unit tests
	build-essential cmake pkg-config libcmocka-dev libjansson-dev libssl-dev zlib1g-dev libdeflate-dev
	# tools, generators and oracles (git hash-object/index-pack, sha1cdsum = reference SHA-1DC,
	# coreutils sha1sum = CLI format)
	python3 git sha1cdsum coreutils clang-format
	# sha1kit bench: peers, JSON schema check, chart; bench/ scripts
	nettle-dev libgcrypt20-dev gnuplot-nox hyperfine python3-jsonschema openssl
	# man page lint (tests/compat)
	groff-base
	# sanitizer pass (clang + its ASan/UBSan runtimes; gcc's libasan/libubsan come with gcc)
	clang libclang-rt-14-dev
	# cross builds run under qemu-user
	qemu-user
	gcc-s390x-linux-gnu libc6-dev-s390x-cross
	gcc-i686-linux-gnu libc6-dev-i386-cross
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross
)
# sha1kit bench's multi-buffer peer (Intel's ipsec-mb): built for x86-64 only
if [ "$(dpkg --print-architecture 2>/dev/null || true)" = amd64 ]; then
	packages+=(libipsec-mb-dev)
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
if [ "${1:-}" = --print ] || [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}"
	echo "install-deps: run as root:"
	echo "  apt-get update && $cmd"
	exit 0
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
