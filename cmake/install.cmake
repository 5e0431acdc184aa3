# install.cmake - what `cmake --install` puts in place. Included at the end of the top-level
# CMakeLists.txt.
#
#   include/sha1kit.h, include/sha1dc/sha1.h, include/sha1kit/git*.h (the Git layer)
#   lib/libsha1kit.{a,so*}, lib/libsha1detectcoll.{a,so*}   (so.N symlinks included)
#   lib/libsha1kit-git.a   the Git layer (when built: static, over libsha1kit, zlib, pthreads)
#   lib/pkgconfig/sha1kit.pc, libsha1detectcoll.pc, sha1kit-git.pc   (absolute paths of the prefix)
#   lib/cmake/sha1kit/   find_package(sha1kit): sha1kit::sha1kit, sha1kit::sha1detectcoll, ...
#   share/man/man1/sha1kit.1, share/man/man3/sha1kit.3
#   libexec/sha1kit/sha1kit-bench   the program `sha1kit bench` runs (when built)
# (lib = CMAKE_INSTALL_LIBDIR, libexec = CMAKE_INSTALL_LIBEXECDIR; the sha1kit program is installed by
# programs/sha1kit.)
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

if(TARGET sha1kit_git AND NOT WIN32) # the Windows build keeps it in the build tree
  list(APPEND _sk_targets sha1kit_git)
  install(FILES include/sha1kit/git.h include/sha1kit/git_pack.h include/sha1kit/git_object.h
    include/sha1kit/git_refs.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sha1kit)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/include/sha1kit/git_fsck.h)
    install(FILES include/sha1kit/git_fsck.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sha1kit)
  endif()
endif()
install(FILES include/sha1kit.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/sha1dc/sha1.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sha1dc)
install(TARGETS ${_sk_targets} EXPORT sha1kitTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# sha1kit-bench: not on PATH; bin/sha1kit finds it here, relative to itself or at the configured
# absolute path (programs/sha1kit/CMakeLists.txt, bench_exec.c).
if(TARGET sha1kit-bench)
  install(TARGETS sha1kit-bench RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/sha1kit
    COMPONENT sha1kit-programs)
endif()

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

# pkg-config files, written at install time with the prefix actually installed to (`cmake --install
# --prefix P` included), so every path in them is absolute and clean: prefix=P, libdir=P/lib. A
# program that takes its rpath from `pkg-config --variable=libdir` (docs/git.md) keeps working when
# lib/pkgconfig is moved or removed. (The CMake package stays relocatable: it finds its prefix from
# its own place.)
foreach(_sk_d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_sk_d}}")
    set(_sk_pc_${_sk_d} "${CMAKE_INSTALL_${_sk_d}}")
  else()
    set(_sk_pc_${_sk_d} "\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_${_sk_d}}")
  endif()
endforeach()
set(_sk_pcs sha1kit libsha1detectcoll)
if(TARGET sha1kit_git AND NOT WIN32) # the Windows build keeps it in the build tree
  list(APPEND _sk_pcs sha1kit-git)
endif()
foreach(_sk_pc ${_sk_pcs})
  install(CODE "
    set(SHA1KIT_GIT_PC_DEFLATE \"${SHA1KIT_GIT_PC_DEFLATE}\")
    set(PROJECT_VERSION \"${PROJECT_VERSION}\")
    set(SHA1KIT_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    set(SHA1KIT_PC_LIBDIR \"${_sk_pc_LIBDIR}\")
    set(SHA1KIT_PC_INCLUDEDIR \"${_sk_pc_INCLUDEDIR}\")
    configure_file(\"${CMAKE_CURRENT_SOURCE_DIR}/cmake/${_sk_pc}.pc.in\"
      \"${CMAKE_CURRENT_BINARY_DIR}/pkgconfig-install/${_sk_pc}.pc\" @ONLY)
    file(INSTALL \"${CMAKE_CURRENT_BINARY_DIR}/pkgconfig-install/${_sk_pc}.pc\"
      DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")
  ")
endforeach()

# Manual pages (troff, written by hand): the command and the C API.
install(FILES man/sha1kit.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES man/sha1kit.3 DESTINATION ${CMAKE_INSTALL_MANDIR}/man3)
