#!/usr/bin/env bash
# cross-sysroot.sh - prepare the target libraries that the cross test builds link against and that
# qemu-user loads at run time: the target's libc (for qemu -L), cmocka, jansson and OpenSSL's libcrypto (+zlib).
#
# Usage: scripts/cross-sysroot.sh s390x|i686|aarch64 [DIR]
#   DIR defaults to build/sysroot/<triple> in the repository; cmake/toolchain-<arch>.cmake looks there
#   (or in $SHA1KIT_CROSS_SYSROOT). Needs no root: see scripts/apt-fetch.sh. Idempotent (stamp file).
#
# The cross compiler keeps its own C library (libc6-dev-<arch>-cross under /usr/<triple>); this tree
# only adds the extra libraries. The toolchain file points CMake's find_*() and pkg-config at it, and
# runs the tests as `qemu-<arch> -L DIR`, so the target's dynamic loader, libc, libcmocka.so.0 and
# libcrypto.so.3 all come from DIR (qemu -L prefixes every absolute path the guest opens with DIR).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
s390x) debarch=s390x triple=s390x-linux-gnu ;;
i686 | i386) debarch=i386 triple=i686-linux-gnu ;;
aarch64 | arm64) debarch=arm64 triple=aarch64-linux-gnu ;;
*)
	echo "usage: $0 s390x|i686|aarch64 [DIR]" >&2
	exit 2
	;;
esac
dir=${2:-$repo/build/sysroot/$triple}
pkgs=(libc6 libgcc-s1 libcmocka0 libcmocka-dev libjansson4 libjansson-dev libssl3 libssl-dev zlib1g zlib1g-dev)
stamp="$dir/.sha1kit-sysroot"
want="$debarch ${pkgs[*]}"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	echo "cross-sysroot: $dir is ready"
	exit 0
fi
rm -rf "$dir"
"$repo/scripts/apt-fetch.sh" "$debarch" "$dir" "${pkgs[@]}"

# Debian's i386 libraries live in usr/lib/i386-linux-gnu while the cross compiler's triple is
# i686-linux-gnu; the toolchain file searches the Debian multiarch name, nothing to do here.
# Sanity checks: the files the build and qemu need.
multiarch=$([ "$debarch" = i386 ] && echo i386-linux-gnu || echo "$triple")
for f in "usr/include/cmocka.h" "usr/include/jansson.h" "usr/include/openssl/sha.h" "usr/lib/$multiarch/libcmocka.so" \
	"usr/lib/$multiarch/libcrypto.so" "usr/lib/$multiarch/pkgconfig/cmocka.pc" \
	"usr/lib/$multiarch/pkgconfig/libcrypto.pc"; do
	if [ ! -e "$dir/$f" ]; then
		echo "cross-sysroot: error: $dir/$f missing after unpacking" >&2
		exit 1
	fi
done
echo "$want" >"$stamp"
echo "cross-sysroot: $dir is ready"
