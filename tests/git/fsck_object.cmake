# src/git/fsck_object.{h,c}: the per-object checks of `git fsck` against the installed git (2.39).
# Included from tests/CMakeLists.txt when the sha1kit_git target exists; needs bash and git at
# test time. One test per section of the script (git_fsck_object_trees, ..._commits, ...).
add_executable(fsck_object_driver ${CMAKE_CURRENT_SOURCE_DIR}/git/fsck_object_driver.c
  ${CMAKE_CURRENT_SOURCE_DIR}/git/driver_env.c)
target_link_libraries(fsck_object_driver PRIVATE sha1kit_git)
sha1kit_test_program(fsck_object_driver _sk_fsck_object_driver)
sk_section_tests(git_fsck_object ${CMAKE_CURRENT_SOURCE_DIR}/git/test_fsck_object.sh TIMEOUT 300 LABELS git
  ARGS ${_sk_fsck_object_driver})
