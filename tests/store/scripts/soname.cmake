# cmake -DLIBRARY=<libolc.so> -DHEADER=<olc/version.h> -DREADELF=<readelf> -P soname.cmake
#
# test_soname (tests/store/version.cmake): the shared library's SONAME is
# libolc.so.<OLC_VERSION_MAJOR of olc/version.h>.
cmake_minimum_required(VERSION 3.25)
file(STRINGS ${HEADER} major_line REGEX "^#define OLC_VERSION_MAJOR [0-9]+$")
if(NOT major_line)
  message(FATAL_ERROR "${HEADER}: no '#define OLC_VERSION_MAJOR N'")
endif()
string(REGEX REPLACE "^#define OLC_VERSION_MAJOR " "" major "${major_line}")
execute_process(COMMAND ${READELF} -d ${LIBRARY} OUTPUT_VARIABLE dyn RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${READELF} -d ${LIBRARY} failed (${rc})")
endif()
if(NOT dyn MATCHES "\\(SONAME\\)[^\n]*\\[([^]\n]+)\\]")
  message(FATAL_ERROR "${LIBRARY} has no SONAME:\n${dyn}")
endif()
set(soname ${CMAKE_MATCH_1})
if(NOT soname STREQUAL "libolc.so.${major}")
  message(FATAL_ERROR "SONAME ${soname}, expected libolc.so.${major} (OLC_VERSION_MAJOR)")
endif()
message(STATUS "SONAME ${soname}")
