# install.cmake - what `cmake --install` puts in place. Included at the end of the top-level
# CMakeLists.txt.
#
#   include/sha1kit.h, include/sha1dc/sha1.h
#   lib/libsha1kit.{a,so*}, lib/libsha1detectcoll.{a,so*}   (so.N symlinks included)
#   lib/pkgconfig/sha1kit.pc, lib/pkgconfig/libsha1detectcoll.pc   (relocatable: ${pcfiledir})
#   lib/cmake/sha1kit/   find_package(sha1kit): sha1kit::sha1kit, sha1kit::sha1detectcoll, ...
#   share/man/man1/sha1kit.1, share/man/man3/sha1kit.3
# (lib = CMAKE_INSTALL_LIBDIR; the sha1kit program is installed by programs/sha1kit.)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Exported target names: sha1kit::sha1kit and sha1kit::sha1detectcoll are the shared libraries
# when built, else the static ones.
set(_sk_targets sha1kit_static sha1detectcoll_static)
if(SHA1KIT_BUILD_SHARED)
  list(APPEND _sk_targets sha1kit_shared sha1detectcoll_shared)
  set_target_properties(sha1kit_shared PROPERTIES EXPORT_NAME sha1kit)
  set_target_properties(sha1detectcoll_shared PROPERTIES EXPORT_NAME sha1detectcoll)
  set_target_properties(sha1kit_static PROPERTIES EXPORT_NAME sha1kit_static)
  set_target_properties(sha1detectcoll_static PROPERTIES EXPORT_NAME sha1detectcoll_static)
else()
  set_target_properties(sha1kit_static PROPERTIES EXPORT_NAME sha1kit)
  set_target_properties(sha1detectcoll_static PROPERTIES EXPORT_NAME sha1detectcoll)
endif()

install(FILES include/sha1kit.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/sha1dc/sha1.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sha1dc)
install(TARGETS ${_sk_targets} EXPORT sha1kitTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# CMake package config.
set(_sk_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/sha1kit)
install(EXPORT sha1kitTargets NAMESPACE sha1kit:: DESTINATION ${_sk_cmakedir})
configure_package_config_file(cmake/sha1kitConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/sha1kitConfig.cmake INSTALL_DESTINATION ${_sk_cmakedir})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/sha1kitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/sha1kitConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/sha1kitConfigVersion.cmake DESTINATION ${_sk_cmakedir})

# pkg-config files. With relative install dirs the prefix is found from the .pc file's own place
# (${pcfiledir}), so an installed tree can be moved or installed with `cmake --install --prefix`.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(SHA1KIT_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(SHA1KIT_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(SHA1KIT_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH _sk_up "/sk/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/sk")
  string(REGEX REPLACE "/$" "" _sk_up "${_sk_up}")
  set(SHA1KIT_PC_PREFIX "\${pcfiledir}/${_sk_up}")
  set(SHA1KIT_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(SHA1KIT_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
foreach(_sk_pc sha1kit libsha1detectcoll)
  configure_file(cmake/${_sk_pc}.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${_sk_pc}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${_sk_pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# Manual pages (troff, written by hand): the command and the C API.
install(FILES man/sha1kit.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES man/sha1kit.3 DESTINATION ${CMAKE_INSTALL_MANDIR}/man3)
