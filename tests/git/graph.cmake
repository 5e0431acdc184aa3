# The fsck object graph (src/git/graph.c): cmocka unit test.
add_executable(test_graph ${CMAKE_CURRENT_LIST_DIR}/test_graph.c)
target_link_libraries(test_graph PRIVATE sha1kit_git PkgConfig::CMOCKA)
add_test(NAME test_graph COMMAND test_graph)
set_tests_properties(test_graph PROPERTIES LABELS git)
# The read ahead of fsck's pass over a damaged pack (src/git/fsck_ahead.c): cmocka unit test on a
# pack git makes (it runs git, so not on Windows).
if(NOT WIN32)
  add_executable(test_ahead ${CMAKE_CURRENT_LIST_DIR}/test_ahead.c)
  target_link_libraries(test_ahead PRIVATE sha1kit_git PkgConfig::CMOCKA)
  add_test(NAME test_ahead COMMAND test_ahead)
  set_tests_properties(test_ahead PROPERTIES LABELS git)
endif()
# git's one type per object where links disagree (src/git/typeorder.c): cmocka unit test.
add_executable(test_typeorder ${CMAKE_CURRENT_LIST_DIR}/test_typeorder.c)
target_link_libraries(test_typeorder PRIVATE sha1kit_git PkgConfig::CMOCKA)
add_test(NAME test_typeorder COMMAND test_typeorder)
set_tests_properties(test_typeorder PROPERTIES LABELS git)
# git's glob matching (src/git/wildmatch.c, the config's includeIf conditions): cmocka unit test on
# the expectations of git's t3070-wildmatch.sh.
add_executable(test_wildmatch ${CMAKE_CURRENT_LIST_DIR}/test_wildmatch.c)
target_link_libraries(test_wildmatch PRIVATE sha1kit_git PkgConfig::CMOCKA)
add_test(NAME test_wildmatch COMMAND test_wildmatch)
set_tests_properties(test_wildmatch PROPERTIES LABELS git)
# `sha1kit fsck` against `git fsck --full` on repositories git makes and corrupts: one test per
# section of test_fsck.sh, cli_fsck_NAME (the longest, the byte-flip sweeps, in parts of a few
# hundred fsck runs each; each section well under a minute on a quiet machine).
if(TARGET sha1kit)
  sha1kit_test_program(sha1kit _sk_cli)
  set(_sk_env "")
  if(WIN32)
    set(_sk_env "SK_WINDOWS=1")
  else()
    # the loop of the byte-flip sweeps (flip_sweep in test_fsck.sh)
    add_executable(sk_flipsweep ${CMAKE_CURRENT_LIST_DIR}/flipsweep.c)
    list(APPEND _sk_env "SK_FLIPSWEEP=$<TARGET_FILE:sk_flipsweep>")
  endif()
  if(NOT WIN32 AND NOT CMAKE_C_FLAGS MATCHES "sanitize")
    # a failure of the machine (memory, threads) under `ulimit -v`: git's one line, exit 128 (not
    # in the sanitizer build: ASan reserves terabytes of address space and cannot start under it)
    add_test(NAME cli_fsck_oom COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_fsck_oom.sh ${_sk_cli})
    set_tests_properties(cli_fsck_oom PROPERTIES LABELS "git;cli" TIMEOUT 300)
  endif()
  sk_section_tests(cli_fsck ${CMAKE_CURRENT_LIST_DIR}/test_fsck.sh TIMEOUT 300 LABELS git cli
    ENVIRONMENT ${_sk_env} ARGS ${_sk_cli} ${SHA1KIT_TESTDATA})
  # reftable repositories: `sha1kit fsck` against git 2.55.0's output recorded with the fixtures
  # (tests/git/reftable/, made by tests/git/mkreftable.sh), live when SHA1KIT_REF_GIT reads
  # reftables; corrupt and byte-flipped tables (cli_reftable_NAME; not under Wine).
  sk_section_tests(cli_reftable ${CMAKE_CURRENT_LIST_DIR}/test_reftable.sh TIMEOUT 300 LABELS git cli
    ARGS ${_sk_cli})
  # incremental multi-pack-indexes: `sha1kit fsck` against git 2.55.0's output recorded with the
  # fixture (tests/git/midxchain/, made by tests/git/mkmidxchain.sh), live when SHA1KIT_REF_GIT
  # reads the chain, and as git 2.39.5 against the installed git (cli_midxchain_NAME).
  sk_section_tests(cli_midxchain ${CMAKE_CURRENT_LIST_DIR}/test_midxchain.sh TIMEOUT 300 LABELS git cli
    ARGS ${_sk_cli})
  # `sha1kit refs verify` against git 2.55.0's output recorded in tests/git/refs_verify.expected,
  # live when SHA1KIT_REF_GIT has `git refs verify` (cli_refs_NAME).
  sk_section_tests(cli_refs ${CMAKE_CURRENT_LIST_DIR}/test_refs_verify.sh TIMEOUT 300 LABELS git cli
    ARGS ${_sk_cli})
endif()
