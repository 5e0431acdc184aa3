# `sha1kit bench --quick`: runs in a few seconds; its JSON must validate against bench/schema.json and
# be complete (every supported kernel, every size). The numbers are not asserted.
# Included from tests/CMakeLists.txt; needs Python 3 with jsonschema (Debian: python3-jsonschema),
# and gnuplot (gnuplot-nox) for the --plot checks that need a real chart (skipped when missing).
if(TARGET sha1kit)
  # Debian's interpreter first: scripts/install-deps.sh gives it python3-jsonschema.
  if(EXISTS /usr/bin/python3)
    set(_sk_bench_python /usr/bin/python3)
  else()
    find_package(Python3 COMPONENTS Interpreter REQUIRED)
    set(_sk_bench_python ${Python3_EXECUTABLE})
  endif()
  add_test(NAME bench_quick
    COMMAND ${_sk_bench_python} ${CMAKE_CURRENT_LIST_DIR}/check_bench.py
            $<TARGET_FILE:sha1kit> ${sha1kit_SOURCE_DIR}/bench/schema.json)
  set_tests_properties(bench_quick PROPERTIES LABELS "cli;bench" TIMEOUT 300)
endif()
