# The fsck object graph (src/git/graph.c): cmocka unit test.
add_executable(test_graph ${CMAKE_CURRENT_LIST_DIR}/test_graph.c)
target_link_libraries(test_graph PRIVATE sha1kit_git PkgConfig::CMOCKA)
add_test(NAME test_graph COMMAND test_graph)
set_tests_properties(test_graph PROPERTIES LABELS git)
# git's one type per object where links disagree (src/git/typeorder.c): cmocka unit test.
add_executable(test_typeorder ${CMAKE_CURRENT_LIST_DIR}/test_typeorder.c)
target_link_libraries(test_typeorder PRIVATE sha1kit_git PkgConfig::CMOCKA)
add_test(NAME test_typeorder COMMAND test_typeorder)
set_tests_properties(test_typeorder PROPERTIES LABELS git)
# `sha1kit fsck` against `git fsck --full` on repositories git makes and corrupts.
if(TARGET sha1kit)
  sha1kit_test_program(sha1kit _sk_cli)
  add_test(NAME cli_fsck COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_fsck.sh ${_sk_cli}
    ${SHA1KIT_TESTDATA})
  set_tests_properties(cli_fsck PROPERTIES LABELS "git;cli" TIMEOUT 600)
  if(WIN32)
    set_tests_properties(cli_fsck PROPERTIES ENVIRONMENT "SK_WINDOWS=1")
  else()
    # a failure of the machine (memory, threads) under `ulimit -v`: git's one line, exit 128
    add_test(NAME cli_fsck_oom COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_fsck_oom.sh ${_sk_cli})
    set_tests_properties(cli_fsck_oom PROPERTIES LABELS "git;cli" TIMEOUT 300 SKIP_RETURN_CODE 77)
  endif()
endif()
# skg_check_repo (<sha1kit/git_fsck.h>): cmocka unit test on repositories git makes.
add_executable(test_check ${CMAKE_CURRENT_LIST_DIR}/test_check.c)
target_link_libraries(test_check PRIVATE sha1kit_git PkgConfig::CMOCKA)
add_test(NAME test_check COMMAND test_check)
set_tests_properties(test_check PROPERTIES LABELS git)
