# sha1detectcoll.cmake - libsha1detectcoll: the reference SHA-1DC API (include/sha1dc/sha1.h) over
# sha1kit, a drop-in for cr-marcstevens/sha1collisiondetection's library (Git's DC_SHA1_EXTERNAL).
# Included from the top-level CMakeLists.txt after sha1kit_objects is defined.
#
# Both libraries hold all of sha1kit's objects, so `-lsha1detectcoll` alone links (as Git does).
# The shared one has the reference's SONAME, libsha1detectcoll.so.1, and exports only the SHA1DC*
# functions and sha1kit's public sha1kit_* API (hidden visibility plus a version script; checked by
# the ctest compat_install with nm).

add_library(sha1detectcoll_objects OBJECT src/compat_sha1dc.c)
target_include_directories(sha1detectcoll_objects PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/include)
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  # The caller's SHA1_CTX storage is accessed through sha1kit's context type.
  target_compile_options(sha1detectcoll_objects PRIVATE -fno-strict-aliasing)
endif()

add_library(sha1detectcoll_static STATIC
  $<TARGET_OBJECTS:sha1kit_objects> $<TARGET_OBJECTS:sha1detectcoll_objects>)
set_target_properties(sha1detectcoll_static PROPERTIES OUTPUT_NAME sha1detectcoll)
target_include_directories(sha1detectcoll_static PUBLIC
  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>)
add_library(sha1kit::sha1detectcoll_static ALIAS sha1detectcoll_static)

if(SHA1KIT_BUILD_SHARED)
  add_library(sha1detectcoll_shared SHARED
    $<TARGET_OBJECTS:sha1kit_objects> $<TARGET_OBJECTS:sha1detectcoll_objects>)
  # The reference's libtool version 1:0:0 gives libsha1detectcoll.so.1.0.0; keep its SONAME.
  set_target_properties(sha1detectcoll_shared PROPERTIES OUTPUT_NAME sha1detectcoll
    VERSION 1.0.0 SOVERSION 1)
  target_include_directories(sha1detectcoll_shared PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>)
  if(NOT APPLE AND NOT WIN32)
    set(_sha1detectcoll_map ${CMAKE_CURRENT_SOURCE_DIR}/cmake/sha1detectcoll.map)
    target_link_options(sha1detectcoll_shared PRIVATE "LINKER:--version-script=${_sha1detectcoll_map}")
    set_target_properties(sha1detectcoll_shared PROPERTIES LINK_DEPENDS ${_sha1detectcoll_map})
  endif()
  add_library(sha1kit::sha1detectcoll ALIAS sha1detectcoll_shared)
else()
  add_library(sha1kit::sha1detectcoll ALIAS sha1detectcoll_static)
endif()
