# Tests of the reference-compatible API (libsha1detectcoll, <sha1dc/sha1.h>), the installation, and
# `sha1kit hash-object` against `git hash-object`. Included from tests/CMakeLists.txt.

# compat_api: the Git-style use of the API, in the build tree (static library; runs under qemu in
# the cross builds, where it also checks sizeof/alignof(SHA1_CTX) against the reference's layout).
add_executable(compat_git compat/compat_git.c)
target_link_libraries(compat_git PRIVATE sha1detectcoll_static)
add_test(NAME compat_api COMMAND ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:compat_git> ${SHA1KIT_TESTDATA})
set_tests_properties(compat_api PROPERTIES LABELS "compat")

# compat_dll (Windows): the same program on libsha1detectcoll.dll through its import library, the DLL
# beside the .exe (where Windows looks first), and the DLLs' export tables: exactly the public API.
if(WIN32 AND SHA1KIT_BUILD_SHARED)
  add_executable(compat_git_dll compat/compat_git.c)
  target_link_libraries(compat_git_dll PRIVATE sha1detectcoll_shared)
  add_custom_command(TARGET compat_git_dll POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E copy_if_different $<TARGET_FILE:sha1detectcoll_shared> $<TARGET_FILE_DIR:compat_git_dll>)
  add_test(NAME compat_dll COMMAND ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:compat_git_dll> ${SHA1KIT_TESTDATA})
  set_tests_properties(compat_dll PROPERTIES LABELS "compat")
  add_test(NAME compat_dll_exports
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/win/check_exports.sh ${CMAKE_OBJDUMP} ${CMAKE_SOURCE_DIR}
            $<TARGET_FILE:sha1kit_shared> $<TARGET_LINKER_FILE:sha1kit_shared>
            $<TARGET_FILE:sha1detectcoll_shared> $<TARGET_LINKER_FILE:sha1detectcoll_shared>)
  set_tests_properties(compat_dll_exports PROPERTIES LABELS "compat")
  # compat_install_win: the install tree linked as Git for Windows links it (docs/git.md).
  string(REPLACE ";" " " _sk_wine_run "${CMAKE_CROSSCOMPILING_EMULATOR}")
  add_test(NAME compat_install_win
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/win/test_install_win.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}
            ${CMAKE_SOURCE_DIR} ${SHA1KIT_TESTDATA} ${CMAKE_C_COMPILER} ${CMAKE_OBJDUMP})
  set_tests_properties(compat_install_win PROPERTIES LABELS "compat" TIMEOUT 300
    ENVIRONMENT "WINE_RUN=${_sk_wine_run}")
endif()

# compat_install: `cmake --install` into a temporary prefix, then the same program built against the
# installed header and libraries through pkg-config (and find_package), the nm symbol check, the
# relocatable .pc files, the man pages. Needs the shared library; ELF only (Windows: compat_dll).
if(SHA1KIT_BUILD_SHARED AND NOT WIN32)
  find_program(SHA1KIT_PKG_CONFIG NAMES pkg-config pkgconf)
  set(_sk_objdump "${CMAKE_OBJDUMP}")
  if(NOT _sk_objdump)
    set(_sk_objdump objdump)
  endif()
  set(_sk_nm "${CMAKE_NM}")
  if(NOT _sk_nm)
    set(_sk_nm nm)
  endif()
  string(REPLACE ";" " " _sk_emulator "${CMAKE_CROSSCOMPILING_EMULATOR}")
  set(_sk_with_cli 0)
  if(TARGET sha1kit)
    set(_sk_with_cli 1)
  endif()
  add_test(NAME compat_install
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/compat/test_install.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}
            ${CMAKE_SOURCE_DIR} ${SHA1KIT_TESTDATA} ${CMAKE_C_COMPILER} ${_sk_nm} ${_sk_objdump})
  set_tests_properties(compat_install PROPERTIES LABELS "compat" TIMEOUT 300
    ENVIRONMENT "SK_CFLAGS=${CMAKE_C_FLAGS};SK_LDFLAGS=${CMAKE_EXE_LINKER_FLAGS};SK_EMULATOR=${_sk_emulator};SK_WITH_CLI=${_sk_with_cli}")
endif()

# cli_hash_object: `sha1kit hash-object` against `git hash-object` (needs git).
if(TARGET sha1kit)
  sha1kit_test_program(sha1kit _sk_cli)
  add_test(NAME cli_hash_object
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/compat/test_hash_object.sh ${_sk_cli})
  set_tests_properties(cli_hash_object PROPERTIES LABELS "cli;compat" TIMEOUT 300)
  # Windows' command line limit is 32767 characters (the wrapper's path counts too). Under Wine
  # (wineserver work for each file opened) the passes over /usr/include hash every 32nd file (8th
  # until 2026-12-04: 68 s of the Windows stage), under the sanitizers every 8th; the native pass
  # hashes all of them (test_hash_object.sh, SK_FILES_EVERY).
  if(WIN32)
    set_tests_properties(cli_hash_object PROPERTIES ENVIRONMENT "SK_ARG_MAX=30000;SK_FILES_EVERY=32;SK_WINDOWS=1")
  elseif(CMAKE_C_FLAGS MATCHES "-fsanitize=")
    # without LeakSanitizer, as most comparison sections (tests/sections.cmake): test_api checks
    # skg_hash_object's paths for leaks, with a failing allocator
    set_tests_properties(cli_hash_object PROPERTIES ENVIRONMENT "SK_FILES_EVERY=8;LSAN_OPTIONS=detect_leaks=0")
  endif()
endif()
