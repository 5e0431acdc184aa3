# CLI tests: `sha1kit sum` compared with GNU sha1sum, plus the collision corpus.
# Included from tests/CMakeLists.txt; needs bash and GNU coreutils (sha1sum 9.1) at test time.
if(TARGET sha1kit)
  sha1kit_test_program(sha1kit _sk_cli)
  add_test(NAME cli_sum
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_sum.sh ${_sk_cli} ${SHA1KIT_TESTDATA})
  set_tests_properties(cli_sum PROPERTIES LABELS "cli" TIMEOUT 900)
endif()
