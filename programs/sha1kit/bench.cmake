# `sha1kit bench` (bench*.c), included from programs/sha1kit/CMakeLists.txt after add_executable(sha1kit).
#
# Peers are linked when found, each optional: OpenSSL's libcrypto (libssl-dev), nettle (nettle-dev),
# libgcrypt (libgcrypt20-dev), and Intel's multi-buffer library (libipsec-mb-dev, x86-64) as the peer
# of the batch rows. JSON output needs jansson (libjansson-dev). Turn the peers off with
# -DSHA1KIT_BENCH_PEERS=OFF (then the sha1kit binary links none of them and the bench has no ratios).
option(SHA1KIT_BENCH_PEERS "Link OpenSSL, nettle, libgcrypt and ipsec-mb (when found) for sha1kit bench" ON)

target_sources(sha1kit PRIVATE bench.c bench_impl.c bench_peers.c bench_output.c)
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

set(_sk_bench_found "")
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(SK_BENCH_JANSSON QUIET IMPORTED_TARGET jansson)
endif()
if(SK_BENCH_JANSSON_FOUND)
  target_link_libraries(sha1kit PRIVATE PkgConfig::SK_BENCH_JANSSON)
  set_property(SOURCE bench_output.c APPEND PROPERTY COMPILE_DEFINITIONS SK_BENCH_HAVE_JANSSON)
  list(APPEND _sk_bench_found "jansson (JSON)")
endif()

if(SHA1KIT_BENCH_PEERS)
  find_package(OpenSSL QUIET COMPONENTS Crypto)
  if(OpenSSL_FOUND OR OPENSSL_FOUND)
    target_link_libraries(sha1kit PRIVATE OpenSSL::Crypto)
    set_property(SOURCE bench_peers.c APPEND PROPERTY COMPILE_DEFINITIONS SK_BENCH_HAVE_OPENSSL)
    list(APPEND _sk_bench_found "openssl ${OPENSSL_VERSION}")
  endif()
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(SK_BENCH_NETTLE QUIET IMPORTED_TARGET nettle)
    pkg_check_modules(SK_BENCH_GCRYPT QUIET IMPORTED_TARGET libgcrypt)
  endif()
  if(SK_BENCH_NETTLE_FOUND)
    target_link_libraries(sha1kit PRIVATE PkgConfig::SK_BENCH_NETTLE)
    set_property(SOURCE bench_peers.c APPEND PROPERTY COMPILE_DEFINITIONS SK_BENCH_HAVE_NETTLE)
    list(APPEND _sk_bench_found "nettle ${SK_BENCH_NETTLE_VERSION}")
  endif()
  if(SK_BENCH_GCRYPT_FOUND)
    target_link_libraries(sha1kit PRIVATE PkgConfig::SK_BENCH_GCRYPT)
    set_property(SOURCE bench_peers.c APPEND PROPERTY COMPILE_DEFINITIONS SK_BENCH_HAVE_GCRYPT)
    list(APPEND _sk_bench_found "libgcrypt ${SK_BENCH_GCRYPT_VERSION}")
  endif()
  find_path(SK_BENCH_IPSECMB_INCLUDE intel-ipsec-mb.h)
  find_library(SK_BENCH_IPSECMB_LIB IPSec_MB)
  if(SK_BENCH_IPSECMB_INCLUDE AND SK_BENCH_IPSECMB_LIB)
    target_link_libraries(sha1kit PRIVATE ${SK_BENCH_IPSECMB_LIB})
    set_property(SOURCE bench_peers.c APPEND PROPERTY INCLUDE_DIRECTORIES ${SK_BENCH_IPSECMB_INCLUDE})
    set_property(SOURCE bench_peers.c APPEND PROPERTY COMPILE_DEFINITIONS SK_BENCH_HAVE_IPSECMB)
    list(APPEND _sk_bench_found "ipsec-mb")
  endif()
endif()
string(REPLACE ";" ", " _sk_bench_found "${_sk_bench_found}")
message(STATUS "sha1kit bench: linked with: ${_sk_bench_found}")
