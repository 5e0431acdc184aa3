# Tests of `sha1kit bench` (the program sha1kit-bench, run by sha1kit). Included from
# tests/CMakeLists.txt.
#
# bench_quick: `sha1kit bench --quick` runs in a few seconds; its JSON must validate against
#   bench/schema.json and be complete (every supported kernel, every size). The numbers are not
#   asserted. Needs Python 3 with jsonschema (Debian: python3-jsonschema), and gnuplot (gnuplot-nox)
#   for the --plot checks that need a real chart (skipped when missing).
# bench_split: sha1kit links none of the peers (objdump -p); `sha1kit bench` runs sha1kit-bench in
#   the build tree, an installed tree and a moved one, and says where it looked when it is missing.
# bench_no_avx: sha1kit-bench --list under qemu-x86_64 -cpu Haswell,-xsave (AVX2 in CPUID, not
#   enabled by the OS): no peer runs AVX code. Registered when configure finds qemu-x86_64 (Debian:
#   qemu-user) on an x86-64 host building for it, without sanitizers; once registered, a qemu gone
#   missing fails it.
# bench_git, report_site, report_browser (check_report.py): `bench --git/--git-repo` on a repository
#   made with git, against git and a fake git; `sha1kit report` on a measured machine, a hostile
#   twin and bench/results/*.json (tables, numbers, escaping, refusals); the site in headless
#   Chromium over the DevTools protocol (no console error, the DOM, a screenshot kept as
#   report_browser/screenshot.png in the build tree). Without chromium report_browser fails under
#   CI and is reported as skipped (exit status 77) elsewhere.
if(NOT TARGET sha1kit)
  return()
endif()

include(GNUInstallDirs) # the install directories the launcher in sha1kit was built with
set(_sk_objdump "${CMAKE_OBJDUMP}")
if(NOT _sk_objdump)
  set(_sk_objdump objdump)
endif()
if(TARGET sha1kit-bench)
  set(_sk_bench_file $<TARGET_FILE:sha1kit-bench>)
else()
  set(_sk_bench_file -)
endif()
add_test(NAME bench_split
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_split.sh ${_sk_objdump} $<TARGET_FILE:sha1kit>
          ${_sk_bench_file} ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR} ${CMAKE_INSTALL_FULL_LIBEXECDIR}/sha1kit
          ${CMAKE_INSTALL_BINDIR} ${CMAKE_INSTALL_LIBEXECDIR})
set_tests_properties(bench_split PROPERTIES LABELS "cli;bench" TIMEOUT 300)

if(NOT TARGET sha1kit-bench)
  return()
endif()

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

# report_browser checks the site's HTML and script in Chromium, not C code: the plain build runs it;
# in a sanitizer build report_site runs `sha1kit report` (report.c) under the sanitizers.
set(_sk_report_modes git site browser)
if(CMAKE_C_FLAGS MATCHES "-fsanitize=")
  set(_sk_report_modes git site)
  set_property(GLOBAL APPEND PROPERTY SHA1KIT_SUMMARY_TESTS
    "test report_browser (headless Chromium): no (sanitizer build; the plain build runs it)")
endif()
foreach(_sk_mode IN LISTS _sk_report_modes)
  if(_sk_mode STREQUAL "git")
    set(_sk_name bench_git)
  else()
    set(_sk_name report_${_sk_mode})
  endif()
  add_test(NAME ${_sk_name}
    COMMAND ${_sk_bench_python} ${CMAKE_CURRENT_LIST_DIR}/check_report.py ${_sk_mode}
            $<TARGET_FILE:sha1kit> ${sha1kit_SOURCE_DIR}/bench/schema.json ${sha1kit_SOURCE_DIR}
            ${CMAKE_BINARY_DIR}/${_sk_name})
  set_tests_properties(${_sk_name} PROPERTIES LABELS "cli;bench" TIMEOUT 300)
endforeach()
# Chromium missing outside CI: ctest reports the test as skipped, with check_report.py's message.
if(TEST report_browser)
  set_tests_properties(report_browser PROPERTIES SKIP_RETURN_CODE 77)
endif()

# Not in sanitizer builds: ASan's shadow memory does not fit qemu-user's address space (the native
# build of every make check runs it).
if(CMAKE_C_FLAGS MATCHES "-fsanitize=")
  set_property(GLOBAL APPEND PROPERTY SHA1KIT_SUMMARY_TESTS
    "test bench_no_avx (qemu-x86_64 -cpu Haswell,-xsave): no (sanitizer build; the plain build runs it)")
elseif(NOT CMAKE_CROSSCOMPILING AND CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$"
   AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  find_program(SHA1KIT_QEMU_X86_64 qemu-x86_64)
  if(SHA1KIT_QEMU_X86_64)
    add_test(NAME bench_no_avx
      COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_no_avx.sh ${SHA1KIT_QEMU_X86_64}
              $<TARGET_FILE:sha1kit-bench>)
    set_tests_properties(bench_no_avx PROPERTIES LABELS "bench;emulate" TIMEOUT 300)
    set_property(GLOBAL APPEND PROPERTY SHA1KIT_SUMMARY_TESTS
      "test bench_no_avx (qemu-x86_64 -cpu Haswell,-xsave): yes (${SHA1KIT_QEMU_X86_64})")
  else()
    set_property(GLOBAL APPEND PROPERTY SHA1KIT_SUMMARY_TESTS
      "test bench_no_avx (qemu-x86_64 -cpu Haswell,-xsave): no (qemu-x86_64 not found: qemu-user)")
  endif()
endif()
