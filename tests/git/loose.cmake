# Loose objects and the commit-graph / multi-pack-index / .rev trailers (src/git/loose.c,
# trailer.c): the driver against git 2.39.5 `git fsck --full` on repositories corrupted the ways
# git's t/t1450-fsck.sh does. Included from tests/CMakeLists.txt when sha1kit_git exists; needs
# bash, git and python3 at test time.
add_executable(loose_driver git/loose_driver.c)
target_link_libraries(loose_driver PRIVATE sha1kit_git)
find_package(Python3 COMPONENTS Interpreter REQUIRED)
sha1kit_test_program(loose_driver _sk_loose_driver)
add_test(NAME git_loose
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/git/test_loose.sh ${_sk_loose_driver} ${Python3_EXECUTABLE})
set_tests_properties(git_loose PROPERTIES LABELS "git" TIMEOUT 900
  ENVIRONMENT "SHA1KIT_TESTDATA=${SHA1KIT_TESTDATA}")
