# The Windows (MinGW-w64) test build, under Wine. Included from tests/CMakeLists.txt on WIN32.
#
# cmocka and jansson: Debian's source packages cross-built by scripts/mingw-deps.sh (make
# cross-mingw runs it first) into build/mingw-deps/x86_64-w64-mingw32, static libraries that
# cmake/toolchain-mingw64.cmake points pkg-config at. OpenSSL, the oracle of test_sha1 and
# test_kernels, is not built for MinGW: openssl/sha.h here gives its SHA1() on Windows' own SHA-1
# (CNG, bcrypt.dll; Wine's own code under Wine), an implementation independent of sha1kit.
find_package(PkgConfig REQUIRED)
pkg_check_modules(CMOCKA IMPORTED_TARGET cmocka)
pkg_check_modules(JANSSON IMPORTED_TARGET jansson)
if(NOT CMOCKA_FOUND OR NOT JANSSON_FOUND)
  message(FATAL_ERROR "sha1kit MinGW-w64 tests: no cmocka or jansson built for MinGW in ${SHA1KIT_MINGW_DEPS}.\n"
    "Run: scripts/mingw-deps.sh   (make cross-mingw does; or pass -DSHA1KIT_MINGW_DEPS=DIR)")
endif()
add_library(sk_win_openssl_sha1 STATIC win/openssl_sha1.c)
target_include_directories(sk_win_openssl_sha1 PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/win)
target_link_libraries(sk_win_openssl_sha1 PUBLIC bcrypt)
add_library(OpenSSL::Crypto ALIAS sk_win_openssl_sha1)

# The Wine prefix, made once before every other test (they all require this fixture, set at the end
# of tests/CMakeLists.txt); its first start takes a few seconds with Mono and Gecko off. Then one
# wineserver for the whole run (-p: it stays when its last client exits): a server that exits as a
# new client connects fails that client ("wine client error:0: recvmsg: Connection reset by peer",
# seen once in about 20 runs of 12 programs in a row); it also saves a server start per program
# (the Wine tests: 67 s instead of 195 s). wine_stop ends it after the last test. The first program
# run under the new server starts Wine's services (winedevice.exe and others), which keep that
# program's standard streams open as long as the server lives: a cmd.exe with /dev/null for them
# goes first, or ctest would wait for the end of a test's output until wine_stop, after the test.
add_test(NAME wine_prefix
  COMMAND env ${SHA1KIT_WINE_ENV} bash -c "${CMAKE_SOURCE_DIR}/cmake/wine-run.sh wineboot.exe -i && wineserver -w && wineserver -p </dev/null >/dev/null 2>&1 && ${CMAKE_SOURCE_DIR}/cmake/wine-run.sh cmd.exe /c exit </dev/null >/dev/null 2>&1")
set_tests_properties(wine_prefix PROPERTIES FIXTURES_SETUP wine TIMEOUT 300)
add_test(NAME wine_stop COMMAND env ${SHA1KIT_WINE_ENV} wineserver -k)
set_tests_properties(wine_stop PROPERTIES FIXTURES_CLEANUP wine)

# test_win64_abi: every x86-64 kernel called with the Win64 nonvolatile registers set to patterns
# (the harness tests/win/abi_call.S), checked after the call.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  enable_language(ASM)
  add_executable(test_win64_abi win/test_win64_abi.c win/abi_call.S test_util.c)
  target_link_libraries(test_win64_abi PRIVATE sha1kit_static PkgConfig::CMOCKA)
  target_include_directories(test_win64_abi PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(test_win64_abi PRIVATE SHA1KIT_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  add_test(NAME test_win64_abi COMMAND ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:test_win64_abi>)
  set_tests_properties(test_win64_abi PROPERTIES ENVIRONMENT "SHA1KIT_TESTDATA=${SHA1KIT_TESTDATA}")
endif()

# The test scripts (tests/cli, tests/pack, tests/compat, tests/git) run a program by its path: under
# Wine, a wrapper script in the build tree that runs the .exe through cmake/wine-run.sh. The
# oracles they compare with (sha1sum, git, Python) run natively. The wrapper names bash by its path
# and sets the variables itself: `#!/usr/bin/env bash` and `exec env ...` would add three process
# starts to each of the thousands of runs (up to 12 ms of CPU each on some VMs).
function(sk_wine_wrapper target out_var)
  set(_w ${CMAKE_BINARY_DIR}/wine-wrappers/${target})
  set(${out_var} ${_w} PARENT_SCOPE)
  get_property(_done GLOBAL PROPERTY SK_WINE_WRAPPER_${target})
  if(_done)
    return()
  endif()
  set_property(GLOBAL PROPERTY SK_WINE_WRAPPER_${target} 1)
  string(REPLACE ";" " " _env "${SHA1KIT_WINE_ENV}")
  file(GENERATE OUTPUT ${_w}
    CONTENT "#!/bin/bash\nexport ${_env}\nexec /bin/bash ${CMAKE_SOURCE_DIR}/cmake/wine-run.sh $<TARGET_FILE:${target}> \"$@\"\n"
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endfunction()
