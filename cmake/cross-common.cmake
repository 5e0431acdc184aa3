# Shared part of the cross toolchain files (toolchain-s390x.cmake, toolchain-i686.cmake).
#
# Compiler: Debian's cross gcc (gcc-<triple>) with its own C library from libc6-dev-<arch>-cross under
# /usr/<triple>. Extra target libraries (cmocka, OpenSSL's libcrypto, zlib) and the target's libc for
# qemu come from a small sysroot-like tree made by scripts/cross-sysroot.sh (default
# build/sysroot/<triple>; override with -DSHA1KIT_CROSS_SYSROOT=DIR). It is NOT passed to gcc as
# --sysroot (it has no libc headers); CMake's find_*() and pkg-config are pointed at it instead.
# Tests run as `qemu-<arch> -L <sysroot>` (CMAKE_CROSSCOMPILING_EMULATOR, used by tests/CMakeLists.txt).
#
# Fallback: with Debian multiarch (dpkg --add-architecture + libcmocka-dev:<arch> libssl-dev:<arch>)
# and no sysroot tree, the libraries are taken from /usr/lib/<multiarch> and qemu gets -L /usr/<triple>.
#
# Expects SHA1KIT_CROSS_TRIPLE (gcc prefix), SHA1KIT_CROSS_MULTIARCH (Debian lib dir name),
# SHA1KIT_CROSS_QEMU (qemu-user binary) and CMAKE_SYSTEM_PROCESSOR to be set by the includer;
# SHA1KIT_CROSS_QEMU_ARGS (extra qemu options) and SHA1KIT_CROSS_TEST_ENV (VAR=value ...) are optional.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${SHA1KIT_CROSS_TRIPLE}-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE ${SHA1KIT_CROSS_MULTIARCH})

if(NOT SHA1KIT_CROSS_SYSROOT)
  get_filename_component(SHA1KIT_CROSS_SYSROOT
    "${CMAKE_CURRENT_LIST_DIR}/../build/sysroot/${SHA1KIT_CROSS_TRIPLE}" ABSOLUTE)
endif()
# try_compile() projects re-read this file: hand them the same sysroot.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SHA1KIT_CROSS_SYSROOT)

set(_sha1kit_libdir "${SHA1KIT_CROSS_SYSROOT}/usr/lib/${SHA1KIT_CROSS_MULTIARCH}")
if(EXISTS "${_sha1kit_libdir}/libcmocka.so" OR EXISTS "${_sha1kit_libdir}/libcrypto.so")
  set(_sha1kit_root "${SHA1KIT_CROSS_SYSROOT}")
  set(_sha1kit_qemu_prefix "${SHA1KIT_CROSS_SYSROOT}")
elseif(EXISTS "/usr/lib/${SHA1KIT_CROSS_MULTIARCH}/libcmocka.so")
  # Debian multiarch packages installed system-wide.
  set(_sha1kit_root "")
  set(_sha1kit_qemu_prefix "/usr/${SHA1KIT_CROSS_TRIPLE}")
else()
  message(FATAL_ERROR "sha1kit cross build: no target libraries in ${SHA1KIT_CROSS_SYSROOT}.\n"
    "Run: scripts/cross-sysroot.sh ${CMAKE_SYSTEM_PROCESSOR}   (or pass -DSHA1KIT_CROSS_SYSROOT=DIR)")
endif()

# Search the target trees only, never the host's /usr/lib or /usr/include, for libraries,
# headers and packages; host programs (pkg-config, python3, qemu) are found normally.
set(CMAKE_FIND_ROOT_PATH ${_sha1kit_root} "/usr/${SHA1KIT_CROSS_TRIPLE}")
if(_sha1kit_root STREQUAL "")
  set(CMAKE_FIND_ROOT_PATH "/usr/${SHA1KIT_CROSS_TRIPLE}" "/")
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# OpenSSL keeps opensslconf.h/configuration.h in the multiarch include dir, which the cross gcc does
# not search by itself. (Debian's cross gcc does search the HOST's /usr/include last; the target
# directories given here come first.)
set(CMAKE_C_STANDARD_INCLUDE_DIRECTORIES
  "${_sha1kit_root}/usr/include/${SHA1KIT_CROSS_MULTIARCH}" "${_sha1kit_root}/usr/include")

# pkg-config (host binary) must read the target's .pc files and prefix their paths with the tree.
set(ENV{PKG_CONFIG_LIBDIR}
  "${_sha1kit_root}/usr/lib/${SHA1KIT_CROSS_MULTIARCH}/pkgconfig:${_sha1kit_root}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
if(NOT _sha1kit_root STREQUAL "")
  set(ENV{PKG_CONFIG_SYSROOT_DIR} "${_sha1kit_root}")
endif()

find_program(SHA1KIT_QEMU_EXECUTABLE ${SHA1KIT_CROSS_QEMU})
if(NOT SHA1KIT_QEMU_EXECUTABLE)
  message(WARNING "${SHA1KIT_CROSS_QEMU} not found (apt-get install qemu-user): tests cannot run")
  set(SHA1KIT_QEMU_EXECUTABLE ${SHA1KIT_CROSS_QEMU})
endif()
# SHA1KIT_CROSS_TEST_ENV (optional list of VAR=value) goes to the tests through env(1): qemu's own
# -E option splits values at commas.
set(CMAKE_CROSSCOMPILING_EMULATOR
  "${SHA1KIT_QEMU_EXECUTABLE};${SHA1KIT_CROSS_QEMU_ARGS};-L;${_sha1kit_qemu_prefix}")
if(SHA1KIT_CROSS_TEST_ENV)
  set(CMAKE_CROSSCOMPILING_EMULATOR "env;${SHA1KIT_CROSS_TEST_ENV};${CMAKE_CROSSCOMPILING_EMULATOR}")
endif()
