# The Git layer's public API (include/sha1kit/git*.h): cmocka unit tests (tests/git/test_api.c),
# and the example program built against the installed tree (tests/git/test_example.sh).
add_executable(test_api ${CMAKE_CURRENT_LIST_DIR}/test_api.c)
target_link_libraries(test_api PRIVATE sha1kit_git PkgConfig::CMOCKA)
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
