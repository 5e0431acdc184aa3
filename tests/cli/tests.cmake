# CLI tests: `sha1kit sum` compared with GNU sha1sum, plus the collision corpus.
# Included from tests/CMakeLists.txt; needs bash and GNU coreutils (sha1sum 9.1) at test time.
if(TARGET sha1kit AND WIN32)
  # Windows: sum against GNU sha1sum as it behaves there (binary mode by default), on the names and
  # files Windows has (tests/win/test_sum_win.sh).
  sha1kit_test_program(sha1kit _sk_cli)
  add_test(NAME cli_sum_win COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/win/test_sum_win.sh ${_sk_cli} ${SHA1KIT_TESTDATA})
  set_tests_properties(cli_sum_win PROPERTIES LABELS "cli" TIMEOUT 300)
elseif(TARGET sha1kit)
  sha1kit_test_program(sha1kit _sk_cli)
  # one test per section of the script: cli_sum_same, cli_sum_collisions, ...
  sk_section_tests(cli_sum ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_sum.sh TIMEOUT 300 LABELS cli
    ARGS ${_sk_cli} ${SHA1KIT_TESTDATA})
endif()
