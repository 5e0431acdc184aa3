#!/usr/bin/env bash
# test_install.sh - install sha1kit into a temporary prefix with `cmake --install` and use it the
# way a program written against the reference SHA-1DC library (Git with DC_SHA1_EXTERNAL) does.
#
# Usage: test_install.sh CMAKE BUILD_DIR SOURCE_DIR TESTDATA_DIR CC NM OBJDUMP
# Environment (optional): SK_CFLAGS, SK_LDFLAGS (flags the build used, e.g. sanitizers),
#   SK_EMULATOR (command prefix to run target programs, e.g. "qemu-s390x -L /sysroot"; when set,
#   the find_package check is skipped), SK_WITH_CLI=1 (the sha1kit program is built and installed).
#
# Checks:
#  1. the installed files: headers, libsha1kit and libsha1detectcoll (.a, .so, .so.1, .so.1.0.0),
#     the SONAME libsha1detectcoll.so.1, pkg-config files, CMake package files, man pages;
#  2. `nm -D --defined-only`: libsha1detectcoll.so exports exactly the eight SHA1DC* functions and
#     the sha1kit_* functions declared SHA1KIT_API in the installed sha1kit.h; libsha1kit.so
#     exports exactly the latter;
#  3. tests/compat/compat_git.c built with `cc $(pkg-config --cflags --libs libsha1detectcoll)`
#     from the installed tree only (shared: NEEDED libsha1detectcoll.so.1), and against the static
#     library, and run on TESTDATA_DIR;
#     the .pc files give clean absolute paths of the prefix (no ${pcfiledir}, no ..);
#  4. the prefix moved elsewhere: a CMake project with find_package(sha1kit) links sha1kit::sha1detectcoll and sha1kit::sha1kit_static;
#  5. the man pages format without warnings (groff -ww), the installed sha1kit runs.
# Prints one line per failure and "N passed, M failed"; exits 1 on any failure.
set -u

if [ $# -ne 7 ]; then
	echo "usage: $0 CMAKE BUILD_DIR SOURCE_DIR TESTDATA_DIR CC NM OBJDUMP" >&2
	exit 2
fi
CMAKE=$1 BUILD=$2 SRC=$3 DATA=$4 CC=$5 NM=$6 OBJDUMP=$7
CFLAGS=${SK_CFLAGS:-}
LDFLAGS=${SK_LDFLAGS:-}
read -r -a EMU <<<"${SK_EMULATOR:-}"
export LC_ALL=C

PASS=0
FAIL=0
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-install.XXXXXX") && T=$(cd "$T" && pwd -P) || exit 1
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$T"' EXIT

pass() { PASS=$((PASS + 1)); }
fail() {
	FAIL=$((FAIL + 1))
	echo "FAIL: $*"
}
check() { # check DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@" >"$T/check.out" 2>&1; then
		pass
	else
		fail "$what"
		sed 's/^/    /' "$T/check.out" | head -40
	fi
}
run_target() { "${EMU[@]}" "$@"; }

# ---- 1. install ---------------------------------------------------------------------------------
P=$T/prefix
if ! "$CMAKE" --install "$BUILD" --prefix "$P" >"$T/install.log" 2>&1; then
	fail "cmake --install"
	cat "$T/install.log"
	echo "$PASS passed, $FAIL failed"
	exit 1
fi
pass
pcfile=$(find "$P" -name libsha1detectcoll.pc | head -1)
if [ -z "$pcfile" ]; then
	fail "libsha1detectcoll.pc installed"
	echo "$PASS passed, $FAIL failed"
	exit 1
fi
LIBDIR=$(dirname "$(dirname "$pcfile")")
LIBREL=${LIBDIR#"$P"/}
echo "installed into $P (libdir $LIBREL)"

for f in include/sha1kit.h include/sha1dc/sha1.h \
	"$LIBREL/libsha1kit.a" "$LIBREL/libsha1detectcoll.a" \
	"$LIBREL/libsha1detectcoll.so.1.0.0" \
	"$LIBREL/pkgconfig/sha1kit.pc" "$LIBREL/pkgconfig/libsha1detectcoll.pc" \
	"$LIBREL/cmake/sha1kit/sha1kitConfig.cmake" "$LIBREL/cmake/sha1kit/sha1kitConfigVersion.cmake" \
	"$LIBREL/cmake/sha1kit/sha1kitTargets.cmake" \
	share/man/man1/sha1kit.1 share/man/man3/sha1kit.3; do
	check "installed: $f" test -f "$P/$f"
done
check "libsha1detectcoll.so -> libsha1detectcoll.so.1" test "$(readlink "$LIBDIR/libsha1detectcoll.so")" = libsha1detectcoll.so.1
check "libsha1detectcoll.so.1 -> libsha1detectcoll.so.1.0.0" \
	test "$(readlink "$LIBDIR/libsha1detectcoll.so.1")" = libsha1detectcoll.so.1.0.0
check "libsha1kit.so symlink" test -L "$LIBDIR/libsha1kit.so"
soname=$("$OBJDUMP" -p "$LIBDIR/libsha1detectcoll.so.1.0.0" | awk '$1 == "SONAME" {print $2}')
check "SONAME is libsha1detectcoll.so.1 (got '$soname')" test "$soname" = libsha1detectcoll.so.1
cmp -s "$SRC/include/sha1dc/sha1.h" "$P/include/sha1dc/sha1.h"
check "installed sha1dc/sha1.h is the source's" test $? = 0

# ---- 2. exported symbols ------------------------------------------------------------------------
# The public sha1kit API: every function declared SHA1KIT_API in the installed header.
grep -o '^SHA1KIT_API[^(]*(' "$P/include/sha1kit.h" | sed -E 's/.*[ *]([A-Za-z0-9_]+)\($/\1/' | sort -u >"$T/api.txt"
check "sha1kit.h declares sha1kit_* functions" grep -q '^sha1kit_dc_init$' "$T/api.txt"
printf '%s\n' SHA1DCFinal SHA1DCInit SHA1DCSetCallback SHA1DCSetDetectReducedRoundCollision \
	SHA1DCSetSafeHash SHA1DCSetUseDetectColl SHA1DCSetUseUBC SHA1DCUpdate >"$T/dc.txt"
sort -u "$T/api.txt" "$T/dc.txt" >"$T/want-dc.txt"
exported() { # the defined dynamic symbols of a library, names only
	"$NM" -D --defined-only "$1" | awk 'NF >= 3 && $2 != "A" {print $3}' | sed 's/@.*//' | sort -u
}
exported "$LIBDIR/libsha1detectcoll.so.1.0.0" >"$T/got-dc.txt"
check "libsha1detectcoll.so exports exactly SHA1DC* + the SHA1KIT_API functions" \
	diff -u "$T/want-dc.txt" "$T/got-dc.txt"
echo "libsha1detectcoll.so exports $(wc -l <"$T/got-dc.txt") symbols: $(tr '\n' ' ' <"$T/got-dc.txt")"
so=$(readlink -f "$LIBDIR/libsha1kit.so")
exported "$so" >"$T/got-kit.txt"
check "libsha1kit.so exports exactly the SHA1KIT_API functions" diff -u "$T/api.txt" "$T/got-kit.txt"

# ---- 3. a program built against the installed tree ----------------------------------------------
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
export PKG_CONFIG_LIBDIR="$LIBDIR/pkgconfig" # only our .pc files, never the host's
unset PKG_CONFIG_SYSROOT_DIR
words() { echo $("$@"); } # pkg-config's output, blanks normalised (it ends lines with a space)
cflags=$(words pkg-config --cflags libsha1detectcoll)
libs=$(words pkg-config --libs libsha1detectcoll)
# The .pc files name the prefix in clean absolute paths (no ${pcfiledir}, no ..), so an rpath taken
# from them does not depend on lib/pkgconfig staying where it is.
check "pkg-config --cflags is the prefix's include dir ($cflags)" test "$cflags" = "-I$P/include"
check "pkg-config --libs is the prefix's lib dir ($libs)" test "$libs" = "-L$LIBDIR -lsha1detectcoll"
check "pkg-config sha1kit" test "$(words pkg-config --cflags --libs sha1kit)" = "-I$P/include -L$LIBDIR -lsha1kit"
check "pkg-config --variable=libdir is absolute and clean" test "$(pkg-config --variable=libdir sha1kit)" = "$LIBDIR"
check "no .pc file refers to pcfiledir or .." bash -c "! grep -nE 'pcfiledir|/\\.\\./' '$LIBDIR'/pkgconfig/*.pc"
check "pkg-config version" test "$(pkg-config --modversion libsha1detectcoll)" = \
	"$(sed -n 's/^#define SHA1KIT_VERSION_STRING "\(.*\)"/\1/p' "$P/include/sha1kit.h")"

cp "$SRC/tests/compat/compat_git.c" "$T/compat_git.c" # no source-tree include path can leak in
# shellcheck disable=SC2086
if "$CC" -std=c11 $CFLAGS -o "$T/compat_shared" "$T/compat_git.c" $cflags $libs -Wl,-rpath,"$LIBDIR" \
	$LDFLAGS >"$T/cc.log" 2>&1; then
	pass
	check "the program needs libsha1detectcoll.so.1" \
		bash -c "'$OBJDUMP' -p '$T/compat_shared' | grep -q 'NEEDED *libsha1detectcoll.so.1\$'"
	if run_target "$T/compat_shared" "$DATA" >"$T/run.log" 2>&1; then
		pass
		grep '^sizeof' "$T/run.log"
		tail -1 "$T/run.log" | sed 's/^/compat_git (shared): /'
	else
		fail "compat_git against the installed shared library"
		tail -40 "$T/run.log"
	fi
else
	fail "build compat_git against the installed shared library"
	cat "$T/cc.log"
fi

# shellcheck disable=SC2086
if "$CC" -std=c11 $CFLAGS -o "$T/compat_static" "$T/compat_git.c" $cflags "$LIBDIR/libsha1detectcoll.a" \
	$LDFLAGS >"$T/cc.log" 2>&1; then
	pass
	if run_target "$T/compat_static" "$DATA" >"$T/run.log" 2>&1; then
		pass
		tail -1 "$T/run.log" | sed 's/^/compat_git (static): /'
	else
		fail "compat_git against the installed static library"
		tail -40 "$T/run.log"
	fi
else
	fail "build compat_git against the installed static library"
	cat "$T/cc.log"
fi

# ---- 4. relocation (CMake package) and find_package -------------------------------------------------------------
Q=$T/moved/elsewhere
mkdir -p "$Q"
mv "$P" "$Q/prefix"
Q=$Q/prefix

if [ ${#EMU[@]} -eq 0 ]; then
	mkdir -p "$T/consumer"
	cp "$T/compat_git.c" "$T/consumer/"
	cat >"$T/consumer/use_sha1kit.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <sha1kit.h>
int main(void)
{
	uint8_t d[SHA1KIT_DIGEST_SIZE];
	sha1kit_dc("abc", 3, NULL, d, NULL);
	printf("%s %02x%02x\n", sha1kit_version(), d[0], d[1]);
	return d[0] == 0xa9 && d[1] == 0x99 ? 0 : 1;
}
EOF
	cat >"$T/consumer/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(consumer C)
set(CMAKE_C_STANDARD 11)
find_package(sha1kit 0.1 REQUIRED)
add_executable(compat_git compat_git.c)
target_link_libraries(compat_git PRIVATE sha1kit::sha1detectcoll)
add_executable(use_sha1kit use_sha1kit.c)
target_link_libraries(use_sha1kit PRIVATE sha1kit::sha1kit_static)
add_executable(use_sha1kit_shared use_sha1kit.c)
target_link_libraries(use_sha1kit_shared PRIVATE sha1kit::sha1kit)
EOF
	if "$CMAKE" -S "$T/consumer" -B "$T/consumer/build" -DCMAKE_PREFIX_PATH="$Q" -DCMAKE_C_COMPILER="$CC" \
		-DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_EXE_LINKER_FLAGS="$LDFLAGS" >"$T/consumer.log" 2>&1 &&
		"$CMAKE" --build "$T/consumer/build" >>"$T/consumer.log" 2>&1; then
		pass
		check "find_package: compat_git (sha1kit::sha1detectcoll)" "$T/consumer/build/compat_git" "$DATA"
		check "find_package: sha1kit::sha1kit_static" "$T/consumer/build/use_sha1kit"
		check "find_package: sha1kit::sha1kit" "$T/consumer/build/use_sha1kit_shared"
	else
		fail "CMake project with find_package(sha1kit) against the moved prefix"
		tail -40 "$T/consumer.log"
	fi
fi

# ---- 5. man pages and the program ---------------------------------------------------------------
if command -v groff >/dev/null; then
	for m in share/man/man1/sha1kit.1 share/man/man3/sha1kit.3; do
		groff -man -ww -z -Tutf8 "$Q/$m" >"$T/groff.log" 2>&1
		check "groff -man -ww: $m has no warnings" test ! -s "$T/groff.log"
		[ -s "$T/groff.log" ] && sed 's/^/    /' "$T/groff.log" | head -20
	done
else
	echo "(groff not found: man pages not linted)"
fi
if [ "${SK_WITH_CLI:-0}" = 1 ]; then
	check "installed bin/sha1kit runs" run_target "$Q/bin/sha1kit" --version
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
