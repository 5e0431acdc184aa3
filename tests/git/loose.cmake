# Loose objects and the commit-graph / multi-pack-index / .rev trailers (src/git/loose.c,
# trailer.c): the driver against git 2.39.5 `git fsck --full` on repositories corrupted the ways
# git's t/t1450-fsck.sh does. Included from tests/CMakeLists.txt when sha1kit_git exists; needs
# bash, git and python3 at test time. One test per section of the script (git_loose_sound, ...).
add_executable(loose_driver git/loose_driver.c git/driver_env.c)
target_link_libraries(loose_driver PRIVATE sha1kit_git)
sha1kit_test_program(loose_driver _sk_loose_driver)
sk_section_tests(git_loose ${CMAKE_CURRENT_SOURCE_DIR}/git/test_loose.sh TIMEOUT 300 LABELS git
  ENVIRONMENT "SHA1KIT_TESTDATA=${SHA1KIT_TESTDATA}" "SK_LOOSE_DATA=${CMAKE_CURRENT_BINARY_DIR}/git_loose_data"
  ARGS ${_sk_loose_driver} ${SK_PYTHON})
