# A caller built against the public headers of release 1.0 (olc_1_0.h, a
# frozen copy of 1.0's C headers, compiled into caller_1_0.c alone)
# linked with this library: the versioned structs and olc_error.  POSIX
# only (it guards the caller's structs with mmap).
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(NOT WIN32)
  olc_add_test(NAME test_compat_1_0
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compat_1_0.c ${CMAKE_CURRENT_LIST_DIR}/caller_1_0.c
    LABELS integration TIMEOUT 120
    DEFINES OLC_MOCK_PLUGIN_DIR_GOOD="${OLC_MOCK_PLUGIN_DIR_GOOD}" DEPENDS olc_mock_plugins)
endif()
