# A caller built against version 1 of the public headers (olc_v1.h, a
# frozen copy of that time's declarations, compiled into v1_caller.c alone)
# linked with this library: the versioned structs and olc_error.  POSIX
# only (it guards the caller's structs with mmap).
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(NOT WIN32)
  olc_add_test(NAME test_compat_v1
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compat_v1.c ${CMAKE_CURRENT_LIST_DIR}/v1_caller.c
    LABELS integration TIMEOUT 120
    DEFINES OLC_MOCK_PLUGIN_DIR_GOOD="${OLC_MOCK_PLUGIN_DIR_GOOD}" DEPENDS olc_mock_plugins)
endif()
