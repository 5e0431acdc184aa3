# git's object hash table (src/git/objtab.c): cmocka unit test, with the failing allocator of
# faults.h where api.cmake builds it (the linker's --wrap: not in the Windows build).
add_executable(test_objtab ${CMAKE_CURRENT_LIST_DIR}/test_objtab.c)
target_link_libraries(test_objtab PRIVATE sha1kit_git PkgConfig::CMOCKA)
if(TARGET sk_test_faults)
  target_link_libraries(test_objtab PRIVATE ${SK_FAULT_LIBS})
  target_compile_definitions(test_objtab PRIVATE SK_FAULTS=1)
endif()
add_test(NAME test_objtab COMMAND test_objtab)
set_tests_properties(test_objtab PROPERTIES LABELS git)
