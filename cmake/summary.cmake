# summary.cmake - the last lines of the configure step: which optional parts are built and, for each
# one left out, why and which Debian package brings it. Included at the end of the top-level
# CMakeLists.txt. The lines are collected where each part is looked for, in global properties:
#   SHA1KIT_SUMMARY_PROGRAM  the sha1kit program (programs/sha1kit/CMakeLists.txt)
#   SHA1KIT_SUMMARY_BENCH    sha1kit-bench and its peers (programs/bench/CMakeLists.txt)
#   SHA1KIT_SUMMARY_TESTS    tests that depend on an optional tool (tests/*/tests.cmake)
get_property(_sk_sum_program GLOBAL PROPERTY SHA1KIT_SUMMARY_PROGRAM)
get_property(_sk_sum_bench GLOBAL PROPERTY SHA1KIT_SUMMARY_BENCH)
get_property(_sk_sum_tests GLOBAL PROPERTY SHA1KIT_SUMMARY_TESTS)

message(STATUS "sha1kit optional parts:")
if(NOT SHA1KIT_BUILD_PROGRAMS)
  message(STATUS "  sha1kit program and sha1kit-bench: no (-DSHA1KIT_BUILD_PROGRAMS=OFF)")
endif()
foreach(_sk_line IN LISTS _sk_sum_program _sk_sum_bench)
  message(STATUS "  ${_sk_line}")
endforeach()
if(NOT SHA1KIT_BUILD_TESTS)
  message(STATUS "  tests: no (-DSHA1KIT_BUILD_TESTS=OFF)")
endif()
foreach(_sk_line IN LISTS _sk_sum_tests)
  message(STATUS "  ${_sk_line}")
endforeach()
