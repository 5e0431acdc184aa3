#!/usr/bin/env bash
# test_install_win.sh CMAKE BUILD_DIR SOURCE_DIR TESTDATA CC OBJDUMP - the Windows install as Git for
# Windows links it (docs/git.md, "Git for Windows"): `cmake --install` into a temporary prefix, then
# tests/compat/compat_git.c built as Git's Makefile builds with DC_SHA1_EXTERNAL (CPPFLAGS=-I...,
# LDFLAGS=-L..., -lsha1detectcoll):
#   - by default the linker takes the import library, and the program imports libsha1detectcoll.dll,
#     found under Wine through WINEPATH=PREFIX/bin;
#   - with -static it takes libsha1detectcoll.a, and the program imports no sha1kit DLL;
#   - the flags pkg-config gives from the installed libsha1detectcoll.pc link the same way.
# Both programs run the Git-style API checks under Wine (WINE_RUN: the wrapper command).
# Prints one line per check and "N passed, M failed".
set -u
cmake=$1 build=$2 src=$3 data=$4 cc=$5 objdump=$6
run=(${WINE_RUN:?WINE_RUN is set by tests/win/tests.cmake})
T=$(mktemp -d "${TMPDIR:-/tmp}/sha1kit-wininst.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

P=$T/prefix
"$cmake" --install "$build" --prefix "$P" >"$T/install.log" 2>&1 || { cat "$T/install.log"; bad "cmake --install"; }
for f in include/sha1dc/sha1.h include/sha1kit.h lib/libsha1detectcoll.a lib/libsha1detectcoll.dll.a \
	bin/libsha1detectcoll.dll lib/libsha1kit.a lib/libsha1kit.dll.a bin/libsha1kit.dll \
	lib/pkgconfig/libsha1detectcoll.pc; do
	[ -f "$P/$f" ] && ok "installed $f" || bad "not installed: $f"
done

imports() { "$objdump" -p "$1" | sed -n 's/^\s*DLL Name: //p' | tr '\n' ' '; }
build_run() { # NAME EXPECT-DLL(yes|no) CC-ARGS...
	local name=$1 want=$2
	shift 2
	if ! "$cc" -O2 -D__USE_MINGW_ANSI_STDIO=1 -o "$T/$name.exe" "$src/tests/compat/compat_git.c" "$@" 2>"$T/$name.err"; then
		bad "$name: does not build: $(head -c 400 "$T/$name.err")"
		return
	fi
	local imp
	imp=$(imports "$T/$name.exe")
	if [ "$want" = yes ]; then
		[[ "$imp" == *libsha1detectcoll.dll* ]] && ok "$name imports libsha1detectcoll.dll" || bad "$name imports: $imp"
	else
		[[ "$imp" != *sha1detectcoll* && "$imp" != *sha1kit* ]] && ok "$name imports no sha1kit DLL ($imp)" ||
			bad "$name imports: $imp"
	fi
	if WINEPATH="$(cd "$P/bin" && pwd)" "${run[@]}" "$T/$name.exe" "$data" >"$T/$name.out" 2>&1; then
		ok "$name: the Git-style API checks pass ($(tail -n 1 "$T/$name.out"))"
	else
		bad "$name: $(tail -n 5 "$T/$name.out")"
	fi
}
# Git's Makefile: CPPFLAGS and LDFLAGS as docs/git.md gives them, then -lsha1detectcoll.
build_run dll yes -I"$P/include" -L"$P/lib" -lsha1detectcoll
build_run static no -static -I"$P/include" -L"$P/lib" -lsha1detectcoll
pc=$(PKG_CONFIG_LIBDIR="$P/lib/pkgconfig" PKG_CONFIG_PATH= pkg-config --cflags --libs libsha1detectcoll 2>&1)
[ -n "$pc" ] && ok "pkg-config: $pc" || bad "pkg-config gives nothing"
# shellcheck disable=SC2086
build_run pkgconfig yes $pc

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
