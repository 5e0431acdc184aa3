# `sha1kit bench`, included from programs/sha1kit/CMakeLists.txt after add_executable(sha1kit).
#
# The benchmark is the program sha1kit-bench (bench_main.c, bench.c, bench_impl.c, bench_peers.c,
# bench_output.c and the shared util.c/quote.c), the only one linked with the peers and jansson:
# `sha1kit bench ARG...` (bench_exec.c, in sha1kit) runs it, found next to sha1kit (the build tree),
# else in LIBEXECDIR/sha1kit relative to sha1kit's directory (an installed or moved tree), else at the
# configured ${CMAKE_INSTALL_FULL_LIBEXECDIR}/sha1kit. cmake/install.cmake installs it there.
#
# Peers are linked when found, each optional: OpenSSL's libcrypto (libssl-dev), nettle (nettle-dev),
# libgcrypt (libgcrypt20-dev), and Intel's multi-buffer library (libipsec-mb-dev, x86-64) as the peer
# of the batch rows. JSON output needs jansson (libjansson-dev; without it `bench --json` fails with
# a message naming the package). -DSHA1KIT_BENCH_PEERS=OFF links no peer (the bench then has no
# ratios); -DSHA1KIT_BUILD_BENCH=OFF builds no sha1kit-bench (`sha1kit bench` then says so).
option(SHA1KIT_BUILD_BENCH "Build sha1kit-bench, the program that `sha1kit bench` runs" ON)
option(SHA1KIT_BENCH_PEERS "Link OpenSSL, nettle, libgcrypt and ipsec-mb (when found) into sha1kit-bench" ON)

# The launcher, in sha1kit: where sha1kit-bench is installed, absolute and relative to BINDIR.
target_sources(sha1kit PRIVATE bench_exec.c)
set(_sk_bench_libexec "${CMAKE_INSTALL_LIBEXECDIR}/sha1kit")
set_property(SOURCE bench_exec.c APPEND PROPERTY COMPILE_DEFINITIONS
  "SK_BENCH_LIBEXEC_DIR=\"${CMAKE_INSTALL_FULL_LIBEXECDIR}/sha1kit\"")
if(NOT IS_ABSOLUTE "${CMAKE_INSTALL_LIBEXECDIR}" AND NOT IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}")
  file(RELATIVE_PATH _sk_bench_rel "/sk/${CMAKE_INSTALL_BINDIR}" "/sk/${_sk_bench_libexec}")
  set_property(SOURCE bench_exec.c APPEND PROPERTY COMPILE_DEFINITIONS
    "SK_BENCH_LIBEXEC_REL=\"${_sk_bench_rel}\"")
endif()

macro(_sk_bench_summary line)
  set_property(GLOBAL APPEND PROPERTY SHA1KIT_SUMMARY_BENCH "${line}")
endmacro()

if(NOT SHA1KIT_BUILD_BENCH)
  _sk_bench_summary("sha1kit-bench (sha1kit bench): no (-DSHA1KIT_BUILD_BENCH=OFF)")
  return()
endif()
_sk_bench_summary("sha1kit-bench (sha1kit bench): yes")

add_executable(sha1kit-bench bench_main.c bench.c bench_impl.c bench_peers.c bench_output.c bench_git.c
  report.c)
target_compile_definitions(sha1kit-bench PRIVATE _GNU_SOURCE)
target_link_libraries(sha1kit-bench PRIVATE sha1kit_cli_common sha1kit_static)
# report.c's chart scales (log2, pow).
find_library(SK_BENCH_LIBM m)
if(SK_BENCH_LIBM)
  target_link_libraries(sha1kit-bench PRIVATE ${SK_BENCH_LIBM})
endif()
# Built into sha1kit's directory, where the launcher looks first (the same one unless a
# RUNTIME_OUTPUT_DIRECTORY was given to sha1kit).
get_target_property(_sk_bin_dir sha1kit RUNTIME_OUTPUT_DIRECTORY)
if(_sk_bin_dir)
  set_target_properties(sha1kit-bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${_sk_bin_dir}")
endif()
# bench_impl.c forces each kernel through src/internal.h (not installed), like tests/test_kernels.c.
set_property(SOURCE bench_impl.c APPEND PROPERTY INCLUDE_DIRECTORIES ${sha1kit_SOURCE_DIR}/src)

# The machine header names the build: type and C flags (per-file ISA flags are in the sources).
if(CMAKE_BUILD_TYPE)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" _sk_bench_bt)
  set(_sk_bench_flags "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${_sk_bench_bt}}")
  set(_sk_bench_type "${CMAKE_BUILD_TYPE}")
else()
  set(_sk_bench_flags "${CMAKE_C_FLAGS}")
  set(_sk_bench_type "$<CONFIG>")
endif()
string(STRIP "${_sk_bench_flags}" _sk_bench_flags)
string(REPLACE "\"" "'" _sk_bench_flags "${_sk_bench_flags}")
set_property(SOURCE bench.c APPEND PROPERTY COMPILE_DEFINITIONS
  "SK_BENCH_C_FLAGS=\"${_sk_bench_flags}\"" "SK_BENCH_BUILD_TYPE=\"${_sk_bench_type}\"")

find_package(PkgConfig QUIET)
if(SHA1KIT_BENCH_PEERS)
  find_package(OpenSSL QUIET COMPONENTS Crypto)
  if(OpenSSL_FOUND OR OPENSSL_FOUND)
    target_link_libraries(sha1kit-bench PRIVATE OpenSSL::Crypto)
    set_property(SOURCE bench_peers.c APPEND PROPERTY COMPILE_DEFINITIONS SK_BENCH_HAVE_OPENSSL)
    _sk_bench_summary("  openssl: yes (${OPENSSL_VERSION})")
  else()
    _sk_bench_summary("  openssl: no (libssl-dev not found: no ratios, no baseline)")
  endif()
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(SK_BENCH_NETTLE QUIET IMPORTED_TARGET nettle)
    pkg_check_modules(SK_BENCH_GCRYPT QUIET IMPORTED_TARGET libgcrypt)
  endif()
  if(SK_BENCH_NETTLE_FOUND)
    target_link_libraries(sha1kit-bench PRIVATE PkgConfig::SK_BENCH_NETTLE)
    set_property(SOURCE bench_peers.c APPEND PROPERTY COMPILE_DEFINITIONS SK_BENCH_HAVE_NETTLE)
    _sk_bench_summary("  nettle: yes (${SK_BENCH_NETTLE_VERSION})")
  else()
    _sk_bench_summary("  nettle: no (nettle-dev not found)")
  endif()
  if(SK_BENCH_GCRYPT_FOUND)
    target_link_libraries(sha1kit-bench PRIVATE PkgConfig::SK_BENCH_GCRYPT)
    set_property(SOURCE bench_peers.c APPEND PROPERTY COMPILE_DEFINITIONS SK_BENCH_HAVE_GCRYPT)
    _sk_bench_summary("  libgcrypt: yes (${SK_BENCH_GCRYPT_VERSION})")
  else()
    _sk_bench_summary("  libgcrypt: no (libgcrypt20-dev not found)")
  endif()
  find_path(SK_BENCH_IPSECMB_INCLUDE intel-ipsec-mb.h)
  find_library(SK_BENCH_IPSECMB_LIB IPSec_MB)
  if(SK_BENCH_IPSECMB_INCLUDE AND SK_BENCH_IPSECMB_LIB)
    target_link_libraries(sha1kit-bench PRIVATE ${SK_BENCH_IPSECMB_LIB})
    set_property(SOURCE bench_peers.c APPEND PROPERTY INCLUDE_DIRECTORIES ${SK_BENCH_IPSECMB_INCLUDE})
    set_property(SOURCE bench_peers.c APPEND PROPERTY COMPILE_DEFINITIONS SK_BENCH_HAVE_IPSECMB)
    file(STRINGS "${SK_BENCH_IPSECMB_INCLUDE}/intel-ipsec-mb.h" _sk_imb_v
      REGEX "^#define IMB_VERSION_STR \"[^\"]*\"")
    string(REGEX REPLACE ".*\"([^\"]*)\".*" "\\1" _sk_imb_v "${_sk_imb_v}")
    _sk_bench_summary("  ipsec-mb: yes (${_sk_imb_v})")
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    _sk_bench_summary("  ipsec-mb: no (libipsec-mb-dev not found)")
  else()
    _sk_bench_summary("  ipsec-mb: no (x86-64 only)")
  endif()
else()
  _sk_bench_summary("  peers (openssl, nettle, libgcrypt, ipsec-mb): no (-DSHA1KIT_BENCH_PEERS=OFF)")
endif()

if(PKG_CONFIG_FOUND)
  pkg_check_modules(SK_BENCH_JANSSON QUIET IMPORTED_TARGET jansson)
endif()
if(SK_BENCH_JANSSON_FOUND)
  target_link_libraries(sha1kit-bench PRIVATE PkgConfig::SK_BENCH_JANSSON)
  set_property(SOURCE bench_output.c bench_git.c report.c APPEND PROPERTY COMPILE_DEFINITIONS SK_BENCH_HAVE_JANSSON)
  _sk_bench_summary("  JSON output (jansson): yes (${SK_BENCH_JANSSON_VERSION})")
else()
  _sk_bench_summary("  JSON output (jansson): no (libjansson-dev not found: bench --json fails, saying so)")
endif()

# gnuplot is run, not linked: looked for here only to say whether --plot will work on this machine.
find_program(SHA1KIT_GNUPLOT gnuplot)
if(SHA1KIT_GNUPLOT)
  _sk_bench_summary("  plotting (gnuplot at run time): found ${SHA1KIT_GNUPLOT}")
else()
  _sk_bench_summary("  plotting (gnuplot at run time): not found (gnuplot-nox: bench --plot needs it)")
endif()
