# src/git/repo.{h,c} and refs.{h,c}: repository discovery, alternates, config, refs, reflogs and the
# index, compared with git 2.39.5 by tests/git/test_repo.sh through the repo_driver program
# (including the stderr of `git fsck` on repositories with broken refs, reflogs and indexes).
# Included from tests/CMakeLists.txt when the sha1kit_git target exists; needs bash, git and
# python3 (index surgery) at test time. One test per section of the script (git_repo_discovery, ...).
add_executable(repo_driver git/repo_driver.c git/driver_env.c)
target_link_libraries(repo_driver PRIVATE sha1kit_git)
sha1kit_test_program(repo_driver _sk_repo_driver)
sk_section_tests(git_repo ${CMAKE_CURRENT_SOURCE_DIR}/git/test_repo.sh TIMEOUT 300 LABELS git
  ARGS ${_sk_repo_driver} ${SK_PYTHON})
