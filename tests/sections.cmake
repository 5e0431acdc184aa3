# sk_section_tests(PREFIX SCRIPT [TIMEOUT S] [LABELS L...] [ENVIRONMENT E...] [FIXTURES F...]
#                  ARGS A...): one ctest test PREFIX_NAME per section of the test script SCRIPT
# (a function section_NAME, tests/sections.sh), each running `bash SCRIPT --section=NAME A...`.
# The sections are read from the script at configure time (a change to it configures again), so a
# new section is a new test without a change here. Tags on a section's line (tests/sections.sh):
# long adds the label "long" (left out by `make quick`), nosan leaves the section out of sanitizer
# builds, nowine out of the Windows build. TIMEOUT applies to each section (default 300 s).
# FIXTURES: fixtures every section requires.
# In a sanitizer build the sections run without LeakSanitizer (LSAN_OPTIONS=detect_leaks=0: its scan
# at the exit of each of the thousands of processes they start is about 60% of a sanitized start's
# CPU time), except the sections tagged leaks, which run with it: the unit tests (the failing
# allocator and callbacks of every public function), the fuzzers and those sections check the error
# paths for leaks; AddressSanitizer and UBSan stay on everywhere. The same sections run without
# detect_stack_use_after_return (appended to ASAN_OPTIONS), for the same reason; every section
# runs with allocator_may_return_null=1 (below).
function(sk_section_tests prefix script)
  cmake_parse_arguments(A "" "TIMEOUT" "ARGS;LABELS;ENVIRONMENT;FIXTURES" ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${script})
  file(STRINGS ${script} _lines REGEX "^section_[a-z0-9_]+\\(\\) {")
  if(NOT _lines)
    message(FATAL_ERROR "${script}: no section_NAME() functions")
  endif()
  set(_fixture "")
  foreach(_l IN LISTS _lines)
    if(_l MATCHES "#.*fixture")
      set(_fixture ${prefix})
    endif()
  endforeach()
  set(_san OFF)
  if(CMAKE_C_FLAGS MATCHES "-fsanitize=")
    set(_san ON)
  endif()
  foreach(_l IN LISTS _lines)
    string(REGEX REPLACE "^section_([a-z0-9_]+)\\(\\).*" "\\1" _s "${_l}")
    set(_tags "")
    if(_l MATCHES "#(.*)$")
      string(REGEX MATCHALL "[a-z]+" _tags "${CMAKE_MATCH_1}")
    endif()
    if(("nosan" IN_LIST _tags AND _san) OR ("nowine" IN_LIST _tags AND WIN32))
      continue()
    endif()
    set(_name ${prefix}_${_s})
    add_test(NAME ${_name} COMMAND bash ${script} --section=${_s} ${A_ARGS})
    set(_labels ${A_LABELS})
    if("long" IN_LIST _tags)
      list(APPEND _labels long)
    endif()
    set_tests_properties(${_name} PROPERTIES TIMEOUT ${A_TIMEOUT})
    if(_labels)
      set_tests_properties(${_name} PROPERTIES LABELS "${_labels}")
    endif()
    set(_env ${A_ENVIRONMENT})
    if(_san AND NOT "leaks" IN_LIST _tags)
      list(APPEND _env LSAN_OPTIONS=detect_leaks=0)
    endif()
    if(_env)
      set_tests_properties(${_name} PROPERTIES ENVIRONMENT "${_env}")
    endif()
    if(_san)
      # allocator_may_return_null: a malloc that fails returns NULL, as it does without the
      # sanitizer. fsck reproduces git's gentle allocations of the sizes a corrupt pack declares
      # (xmallocz_gently: 'Out of memory, malloc failed', and on); whether such an allocation fails
      # is the machine's answer, which AddressSanitizer would otherwise replace by an abort.
      set(_asan ":allocator_may_return_null=1")
      if(NOT "leaks" IN_LIST _tags)
        # the fake stacks of detect_stack_use_after_return: a third more CPU for each of the
        # thousands of sanitized starts of a section (110 against 140 ms for `sha1kit fsck` of a
        # small repository); the unit tests, the fuzzers and the sections tagged leaks keep them
        string(APPEND _asan ":detect_stack_use_after_return=0")
      endif()
      set_tests_properties(${_name} PROPERTIES ENVIRONMENT_MODIFICATION
        "ASAN_OPTIONS=string_append:${_asan}")
    endif()
    set(_req ${A_FIXTURES})
    if("fixture" IN_LIST _tags)
      set_tests_properties(${_name} PROPERTIES FIXTURES_SETUP ${_fixture})
    elseif(_fixture)
      list(APPEND _req ${_fixture})
    endif()
    if(_req)
      set_tests_properties(${_name} PROPERTIES FIXTURES_REQUIRED "${_req}")
    endif()
  endforeach()
endfunction()
