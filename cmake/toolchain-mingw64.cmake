# Cross toolchain: 64-bit Windows (x86_64-w64-mingw32, the target Git for Windows builds for), with
# Debian's MinGW-w64 GCC; tests run under Wine (wine64). Use:
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-mingw64.cmake
# Needs: gcc-mingw-w64-x86-64 libz-mingw-w64-dev wine64 (scripts/install-deps.sh). No sysroot tree:
# the MinGW C runtime, winpthreads and zlib live under /usr/x86_64-w64-mingw32. cmocka and jansson,
# which Debian has no MinGW packages of, are Debian's source packages cross-built by
# scripts/mingw-deps.sh into build/mingw-deps/x86_64-w64-mingw32 (static libraries, .pc files;
# another tree: -DSHA1KIT_MINGW_DEPS=DIR); tests/win/tests.cmake finds them with pkg-config.
#
# Wine: every test runs as `env WINEPREFIX=<build>/wineprefix cmake/wine-run.sh PROGRAM` (wine64,
# WINEDEBUG=-all, no Mono, Gecko or winemenubuilder, the expected kernels from the host's
# /proc/cpuinfo); the prefix is made once by the ctest fixture wine_prefix (tests/win/tests.cmake),
# inside the build tree.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(SHA1KIT_CROSS_TRIPLE x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${SHA1KIT_CROSS_TRIPLE}-gcc)
set(CMAKE_RC_COMPILER ${SHA1KIT_CROSS_TRIPLE}-windres)

# C99 printf/scanf (%zu, %llu, %j) from the MinGW runtime rather than msvcrt.dll's, which has none;
# 64-bit off_t, and stat/fstat as _stat64/_fstat64 (64-bit st_size), as on Linux.
# GCC on Win64 does not realign the stack for 32- and 64-byte vector spills (GCC bug 54412): the
# assembler turns aligned vector moves into unaligned ones, so such a spill to a 16-byte aligned slot
# cannot fault (same speed on aligned data). GCC 12 emits none in today's kernels (objdump shows no
# aligned YMM/ZMM move to the stack, and the tests pass without the flag): it guards later code.
set(CMAKE_C_FLAGS_INIT "-D__USE_MINGW_ANSI_STDIO=1 -D_FILE_OFFSET_BITS=64 -Wa,-muse-unaligned-vector-move")
# Programs and tests are self-contained .exe files (libgcc, winpthreads and zlib linked in); the
# DLLs link libgcc statically too, so that they need only Windows' own DLLs.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc")

# zlib (libz-mingw-w64-dev) linked in: libz.a rather than the import library of zlib1.dll.
set(ZLIB_USE_STATIC_LIBS ON)
if(NOT SHA1KIT_MINGW_DEPS)
  get_filename_component(SHA1KIT_MINGW_DEPS
    "${CMAKE_CURRENT_LIST_DIR}/../build/mingw-deps/${SHA1KIT_CROSS_TRIPLE}" ABSOLUTE)
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SHA1KIT_MINGW_DEPS)
set(CMAKE_FIND_ROOT_PATH /usr/${SHA1KIT_CROSS_TRIPLE} ${SHA1KIT_MINGW_DEPS})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# The host's pkg-config must not hand the host's libraries (libdeflate, cmocka) to the target: it
# reads the MinGW packages' .pc files and those of scripts/mingw-deps.sh.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/${SHA1KIT_CROSS_TRIPLE}/lib/pkgconfig:${SHA1KIT_MINGW_DEPS}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

if(NOT SHA1KIT_WINEPREFIX)
  set(SHA1KIT_WINEPREFIX "${CMAKE_BINARY_DIR}/wineprefix")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SHA1KIT_WINEPREFIX)
find_program(SHA1KIT_WINE_EXECUTABLE NAMES wine64 wine PATHS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
if(NOT SHA1KIT_WINE_EXECUTABLE)
  message(WARNING "wine64 not found (apt-get install wine64): the tests cannot run")
  set(SHA1KIT_WINE_EXECUTABLE wine64)
endif()
# (wine-run.sh sets WINEDEBUG and WINEDLLOVERRIDES.)
set(SHA1KIT_WINE_ENV WINEPREFIX=${SHA1KIT_WINEPREFIX} SHA1KIT_WINE=${SHA1KIT_WINE_EXECUTABLE})
set(CMAKE_CROSSCOMPILING_EMULATOR env ${SHA1KIT_WINE_ENV} ${CMAKE_CURRENT_LIST_DIR}/wine-run.sh)
