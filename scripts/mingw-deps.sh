#!/usr/bin/env bash
# mingw-deps.sh - the test libraries of the Windows (MinGW-w64) build, cross-built from Debian's own
# sources: cmocka and jansson of Debian 12 (bookworm), as static libraries for x86_64-w64-mingw32.
#
# Usage: scripts/mingw-deps.sh [DIR]
#   DIR defaults to build/mingw-deps/x86_64-w64-mingw32 in the repository, where
#   cmake/toolchain-mingw64.cmake looks (or in -DSHA1KIT_MINGW_DEPS=DIR). Needs no root. Idempotent:
#   a tree made by the same script, patches and toolchain file (the stamp holds their hash) is reused.
#
# Debian has no MinGW packages of cmocka or jansson, but it has their source packages. This script
# downloads them with apt into a private apt state (as scripts/apt-fetch.sh does for binary packages:
# the system's sources.list and dpkg state are not touched): the Debian archive of the system's
# sources (`apt-get indextargets`), as `deb-src` entries, so that `apt-get source --download-only`
# fetches the .dsc, the upstream tarball and the Debian changes, their hashes checked against the
# archive's signed Release file. dpkg-source (dpkg-dev) unpacks them with Debian's patches applied,
# then ours for MinGW (scripts/mingw-deps/PACKAGE-*.patch, each saying why); each is built with
# CMake and the project's toolchain file (cmake/toolchain-mingw64.cmake: the flags the tests are
# built with) and installed into DIR: DIR/include, DIR/lib/lib*.a and DIR/lib/pkgconfig/*.pc. The
# sources and build trees go afterwards; DIR/SOURCES names the source packages and their versions.
#
# OpenSSL is not built here: the one thing the Windows tests take from it, SHA1(), is Windows' own
# CNG SHA-1 there (tests/win/openssl_sha1.c), an oracle independent of sha1kit.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
triple=x86_64-w64-mingw32
dir=${1:-$repo/build/mingw-deps/$triple}
srcpkgs=(cmocka jansson)
stamp="$dir/.sha1kit-mingw-deps"
inputs=("$0" "$repo"/scripts/mingw-deps/*.patch "$repo/cmake/toolchain-mingw64.cmake")
want="$triple ${srcpkgs[*]} $(cat "${inputs[@]}" | sha256sum | cut -d' ' -f1)"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	echo "mingw-deps: $dir is ready ($(paste -sd" " "$dir/SOURCES"))"
	exit 0
fi
for tool in apt-get dpkg-source patch cmake "$triple-gcc"; do
	if ! command -v "$tool" >/dev/null; then
		echo "mingw-deps: error: $tool not found (scripts/install-deps.sh installs it)" >&2
		exit 1
	fi
done

t0=$(date +%s)
mkdir -p "$(dirname "$dir")"
work=$(mktemp -d "$(dirname "$dir")/.mingw-deps.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/sources.list.d" "$work/dl" \
	"$work/src" "$work/build"
: >"$work/status"

# The Debian suites the system installs from (bookworm, -updates, -security on their mirrors), as
# deb-src entries; the plain deb.debian.org ones when the system has none configured.
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
entries=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 'Created-By: Packages' 2>/dev/null |
	awk '$2 ~ /^bookworm(-updates|-security)?$/ && $3 == "main"' | sort -u || true)
if [ -z "$entries" ]; then
	entries=$(printf '%s\n' "http://deb.debian.org/debian/ bookworm main" \
		"http://deb.debian.org/debian/ bookworm-updates main" \
		"http://deb.debian.org/debian-security/ bookworm-security main")
fi
while read -r uri suite comp; do
	printf 'deb-src %s %s %s %s\n' "$([ -r "$keyring" ] && echo "[signed-by=$keyring]")" "$uri" "$suite" "$comp"
done <<<"$entries" >"$work/sources.list"

# shellcheck source=apt-private.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-private.sh"
apt_private_opts "$work" -o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work/sources.list.d"

echo "mingw-deps: updating a private source package index:"
sed 's/^/  /' "$work/sources.list"
if ! apt-get "${apt_opts[@]}" update >"$work/update.log" 2>&1; then
	echo "mingw-deps: note: apt-get update reported errors; trying the download anyway"
fi
echo "mingw-deps: downloading the source packages ${srcpkgs[*]}"
if ! (cd "$work/dl" && apt-get "${apt_opts[@]}" source --download-only "${srcpkgs[@]}" >"$work/source.log" 2>&1); then
	cat "$work/update.log" "$work/source.log" >&2
	echo "mingw-deps: error: could not download the source packages ${srcpkgs[*]}" >&2
	exit 1
fi

rm -rf "$dir.new"
mkdir -p "$dir.new"
: >"$dir.new/SOURCES"
for p in "${srcpkgs[@]}"; do
	dsc=$(ls "$work/dl/${p}_"*.dsc)
	version=$(sed -n 's/^Version: //p' "$dsc")
	echo "mingw-deps: $p $version: unpacking (dpkg-source -x) and building"
	dpkg-source -x "$dsc" "$work/src/$p" >"$work/$p-unpack.log" 2>&1 || {
		cat "$work/$p-unpack.log" >&2
		exit 1
	}
	# Our own changes for MinGW, on top of Debian's patches (each file says why).
	for patch in "$repo/scripts/mingw-deps/$p"-*.patch; do
		[ -e "$patch" ] || continue
		echo "mingw-deps: $p: applying scripts/mingw-deps/$(basename "$patch")"
		patch -s -p1 -d "$work/src/$p" <"$patch"
	done
	case "$p" in
	cmocka) opts=(-DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF
		-DPICKY_DEVELOPER=OFF) ;;
	jansson) opts=(-DJANSSON_BUILD_SHARED_LIBS=OFF -DJANSSON_BUILD_DOCS=OFF -DJANSSON_WITHOUT_TESTS=ON
		-DJANSSON_EXAMPLES=OFF) ;;
	esac
	if ! {
		cmake -S "$work/src/$p" -B "$work/build/$p" -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/toolchain-mingw64.cmake" \
			-DSHA1KIT_MINGW_DEPS="$dir.new" \
			-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$dir.new" \
			-DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_INSTALL_INCLUDEDIR=include "${opts[@]}" &&
			cmake --build "$work/build/$p" -j "$(nproc 2>/dev/null || echo 2)" &&
			cmake --install "$work/build/$p"
	} >"$work/$p-build.log" 2>&1; then
		tail -n 60 "$work/$p-build.log" >&2
		echo "mingw-deps: error: building $p failed (the log's end above)" >&2
		exit 1
	fi
	echo "$p $version" >>"$dir.new/SOURCES"
done

# Static libraries only, found through pkg-config: cmocka 1.1.5 always builds a DLL as well, and its
# static library is libcmocka-static.a, while cmocka.pc says -lcmocka (and the test programs link with
# -static, where ld looks for libcmocka.a alone). The CMake package files (absolute paths, the DLL's
# targets) go; the .pc files name their directory as ${pcfiledir}, so that the tree may move.
mv "$dir.new/lib/libcmocka-static.a" "$dir.new/lib/libcmocka.a"
rm -rf "$dir.new/bin" "$dir.new/lib/libcmocka.dll.a" "$dir.new/lib/cmake" "$dir.new/cmake"
sed -i "s|$dir.new|\${pcfiledir}/../..|g" "$dir.new"/lib/pkgconfig/*.pc

# What the test build needs, as static libraries.
for f in include/cmocka.h include/jansson.h lib/libcmocka.a lib/libjansson.a lib/pkgconfig/cmocka.pc \
	lib/pkgconfig/jansson.pc; do
	if [ ! -e "$dir.new/$f" ]; then
		echo "mingw-deps: error: $dir.new/$f missing after the install; installed:" \
			"$(cd "$dir.new" && find . -type f | tr '\n' ' ')" >&2
		exit 1
	fi
done
echo "$want" >"$dir.new/.sha1kit-mingw-deps"
rm -rf "$dir"
mv "$dir.new" "$dir"
echo "mingw-deps: $dir is ready ($(paste -sd" " "$dir/SOURCES")), in $(($(date +%s) - t0)) s"
