# Pack tests: `sha1kit index-pack` / `verify-pack` against the installed git (idx byte for byte,
# verify-pack output), hand-made and broken packs. Included from tests/CMakeLists.txt; needs bash,
# git and python3 at test time. About 25 s natively.
if(TARGET sha1kit)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  sha1kit_test_program(sha1kit _sk_cli)
  add_test(NAME cli_pack
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pack/test_pack.sh ${_sk_cli} ${Python3_EXECUTABLE})
  set_tests_properties(cli_pack PROPERTIES LABELS "cli" TIMEOUT 900)
  if(WIN32)
    set_tests_properties(cli_pack PROPERTIES ENVIRONMENT "SK_WINDOWS=1")
  endif()
endif()
