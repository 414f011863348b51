# The release version (olc/version.h, olc_version(), the CMake project
# version) and the shared library's SONAME, which follows its major.
olc_add_test(NAME test_version SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_version.c LABELS unit
  DEFINES OLC_TEST_PROJECT_VERSION="${PROJECT_VERSION}")
if(TARGET olc AND NOT WIN32 AND NOT APPLE)
  find_program(OLC_READELF NAMES readelf ${CMAKE_READELF})
  if(OLC_READELF)
    add_test(NAME test_soname COMMAND ${CMAKE_COMMAND} -DLIBRARY=$<TARGET_FILE:olc>
      -DHEADER=${PROJECT_SOURCE_DIR}/host/include/olc/version.h -DREADELF=${OLC_READELF}
      -P ${CMAKE_CURRENT_LIST_DIR}/scripts/soname.cmake)
    set_tests_properties(test_soname PROPERTIES LABELS unit TIMEOUT 60)
  endif()
endif()
