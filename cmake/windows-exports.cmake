# windows-exports.cmake - the export lists of the Windows DLLs (libsha1kit.dll, libsha1detectcoll.dll).
# Included from the top-level CMakeLists.txt on WIN32 after the shared targets are defined.
#
# A PE linker has no version scripts and ignores ELF visibility: with no dllexport in the objects it
# exports every global symbol, the kernels included. The export lists are written at configure time
# from the public headers, so that the DLLs export what the ELF libraries export: sha1kit's API
# (the SHA1KIT_API declarations of sha1kit.h) and, in libsha1detectcoll.dll, the SHA1DC* functions
# of <sha1dc/sha1.h>. Each DLL gets its import library (lib*.dll.a) from the linker.
file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/include/sha1kit.h _sk_api_lines REGEX "^SHA1KIT_API ")
set(_sk_api "")
foreach(_sk_line IN LISTS _sk_api_lines)
  if(_sk_line MATCHES "[ *](sha1kit_[a-z0-9_]+)\\(")
    list(APPEND _sk_api ${CMAKE_MATCH_1})
  endif()
endforeach()
file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/include/sha1dc/sha1.h _sk_dc_lines REGEX "^[a-z].* SHA1DC[A-Za-z]+\\(")
set(_sk_dc_api "")
foreach(_sk_line IN LISTS _sk_dc_lines)
  if(_sk_line MATCHES " (SHA1DC[A-Za-z]+)\\(")
    list(APPEND _sk_dc_api ${CMAKE_MATCH_1})
  endif()
endforeach()
list(LENGTH _sk_api _sk_n)
list(LENGTH _sk_dc_api _sk_dc_n)
if(_sk_n LESS 20 OR NOT _sk_dc_n EQUAL 8)
  message(FATAL_ERROR "windows-exports.cmake: found ${_sk_n} sha1kit and ${_sk_dc_n} SHA1DC functions in the headers")
endif()

string(REPLACE ";" "\n  " _sk_def "EXPORTS;${_sk_api}")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/sha1kit.def "LIBRARY libsha1kit.dll\n${_sk_def}\n")
string(REPLACE ";" "\n  " _sk_def "EXPORTS;${_sk_dc_api};${_sk_api}")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/sha1detectcoll.def "LIBRARY libsha1detectcoll.dll\n${_sk_def}\n")
target_sources(sha1kit_shared PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/sha1kit.def)
target_sources(sha1detectcoll_shared PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/sha1detectcoll.def)
