# Pack tests: `sha1kit index-pack` / `verify-pack` against the installed git (idx byte for byte,
# verify-pack output), hand-made and broken packs. Included from tests/CMakeLists.txt; needs bash,
# git and python3 at test time.
if(TARGET sha1kit)
  sha1kit_test_program(sha1kit _sk_cli)
  # One test per section of the script; cli_pack_setup makes the packs (the fixture cli_pack) in
  # the build tree, the others read them.
  set(_sk_env "SK_PACK_DATA=${CMAKE_CURRENT_BINARY_DIR}/cli_pack_data")
  if(WIN32)
    list(APPEND _sk_env "SK_WINDOWS=1")
  elseif(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    # the full file system of the section enospc (LD_PRELOAD)
    add_library(sk_enospc MODULE ${CMAKE_CURRENT_SOURCE_DIR}/pack/enospc.c)
    target_link_libraries(sk_enospc PRIVATE ${CMAKE_DL_LIBS})
    list(APPEND _sk_env "SK_ENOSPC_LIB=$<TARGET_FILE:sk_enospc>")
  endif()
  sk_section_tests(cli_pack ${CMAKE_CURRENT_SOURCE_DIR}/pack/test_pack.sh TIMEOUT 300 LABELS cli
    ENVIRONMENT ${_sk_env} ARGS ${_sk_cli} ${SK_PYTHON})
endif()
