# The Windows (MinGW-w64) test build, under Wine. Included from tests/CMakeLists.txt on WIN32.
#
# Debian has no cmocka, jansson or OpenSSL for MinGW. The unit tests build unchanged against the
# shims of this directory instead: cmocka.h (plain checks that print file:line and exit non-zero),
# openssl/sha.h (SHA1() on Windows' own CNG, an oracle independent of sha1kit) and jansson.h (the
# JSON oracle files as Python's json parses them on the host, json_to_c.py).
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(_sk_json ${SHA1KIT_TESTDATA}/dc-dvs.json ${SHA1KIT_TESTDATA}/ubc-conditions.json)
add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/win_json_data.c
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/win/json_to_c.py
          ${CMAKE_CURRENT_BINARY_DIR}/win_json_data.c ${_sk_json}
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/win/json_to_c.py ${_sk_json}
  COMMENT "JSON oracle files as C data for tests/win/jansson.h")
add_library(sk_win_test_shims STATIC win/cmocka_shim.c win/openssl_sha1.c win/jansson_shim.c
  ${CMAKE_CURRENT_BINARY_DIR}/win_json_data.c)
target_include_directories(sk_win_test_shims PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/win)
target_link_libraries(sk_win_test_shims PUBLIC bcrypt)
add_library(PkgConfig::CMOCKA ALIAS sk_win_test_shims)
add_library(PkgConfig::JANSSON ALIAS sk_win_test_shims)
add_library(OpenSSL::Crypto ALIAS sk_win_test_shims)

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
  target_link_libraries(test_win64_abi PRIVATE sha1kit_static sk_win_test_shims)
  target_include_directories(test_win64_abi PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(test_win64_abi PRIVATE SHA1KIT_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  add_test(NAME test_win64_abi COMMAND ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:test_win64_abi>)
  set_tests_properties(test_win64_abi PROPERTIES ENVIRONMENT "SHA1KIT_TESTDATA=${SHA1KIT_TESTDATA}")
endif()

# The test scripts (tests/cli, tests/pack, tests/compat, tests/git) run a program by its path: under
# Wine, a wrapper script in the build tree that runs the .exe through cmake/wine-run.sh. The
# oracles they compare with (sha1sum, git, Python) run natively.
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
    CONTENT "#!/usr/bin/env bash\nexec env ${_env} ${CMAKE_SOURCE_DIR}/cmake/wine-run.sh $<TARGET_FILE:${target}> \"$@\"\n"
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endfunction()
