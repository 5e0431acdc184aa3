# The Git layer's public API (include/sha1kit/git*.h): cmocka unit tests (tests/git/test_api.c),
# and the example programs built against the installed tree (tests/git/test_example.sh).
# faults.c: the allocator and thread start the unit tests make fail (faults.h), and the chdir calls
# they count, through the linker's --wrap (GNU ld and lld; this file is only read on POSIX systems).
add_library(sk_test_faults STATIC ${CMAKE_CURRENT_LIST_DIR}/faults.c)
target_link_options(sk_test_faults INTERFACE
  "LINKER:--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=strndup,--wrap=pthread_create,--wrap=chdir,--wrap=fchdir")
# zlib linked statically into the tests that inject faults, where its static library is there
# (zlib1g-dev has it): --wrap reaches only the calls linked into the program, so with the shared
# libz the allocations of inflateInit and inflate never failed, and a zlib that cannot allocate was
# never tested (it was reported as corrupt input; the cross builds, whose sysroots link zlib
# statically, found it). SK_FAULT_LIBS: the Git layer, then the archive (before the shared libz
# that comes with the Git layer's own dependencies), then the faults.
set(SK_FAULT_LIBS sha1kit_git)
find_library(SK_ZLIB_STATIC NAMES libz.a)
if(SK_ZLIB_STATIC)
  list(APPEND SK_FAULT_LIBS ${SK_ZLIB_STATIC})
endif()
list(APPEND SK_FAULT_LIBS sk_test_faults)
add_executable(test_api ${CMAKE_CURRENT_LIST_DIR}/test_api.c)
target_link_libraries(test_api PRIVATE ${SK_FAULT_LIBS} PkgConfig::CMOCKA)
target_compile_definitions(test_api PRIVATE _GNU_SOURCE SHA1KIT_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
add_test(NAME test_api COMMAND test_api)
set_tests_properties(test_api PROPERTIES LABELS git ENVIRONMENT "SHA1KIT_TESTDATA=${SHA1KIT_TESTDATA}")
if(TARGET sha1kit AND SHA1KIT_BUILD_SHARED)
  add_test(NAME git_api_example
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_example.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR}
            $<TARGET_FILE:sha1kit> ${CMAKE_C_COMPILER})
  set_tests_properties(git_api_example PROPERTIES LABELS "git" TIMEOUT 300
    ENVIRONMENT "SK_CFLAGS=${CMAKE_C_FLAGS};SK_LDFLAGS=${CMAKE_EXE_LINKER_FLAGS}")
endif()
# skg_check_repo (<sha1kit/git_fsck.h>): cmocka unit test on repositories git makes in a temporary
# directory (the Windows build runs cli_fsck_* instead), with failures injected as in test_api.
add_executable(test_check ${CMAKE_CURRENT_LIST_DIR}/test_check.c)
target_link_libraries(test_check PRIVATE ${SK_FAULT_LIBS} PkgConfig::CMOCKA)
add_test(NAME test_check COMMAND test_check)
set_tests_properties(test_check PROPERTIES LABELS git)
if(CMAKE_CROSSCOMPILING_EMULATOR)
  # qemu-user's getcwd fails (ENOENT) in a directory whose path is longer than PATH_MAX, where the
  # kernel's works: test_working_directory_long is left out under the emulator
  set_tests_properties(test_check PROPERTIES ENVIRONMENT "SHA1KIT_TEST_EMULATED=1")
endif()
