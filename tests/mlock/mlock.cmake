# The measurement lock (issue 11 item 6; persist/mlock*, host/measure_lock.c):
# the lock itself (unit), the host around the measurement of one key
# (integration, mock_det), and four processes calibrating the same
# workloads on one store (integration, mlock_driver).
if(NOT WIN32)
  olc_add_test(NAME test_mlock
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_mlock.c ${CMAKE_CURRENT_LIST_DIR}/test_mlock_path.c
    LABELS unit HOOKS TIMEOUT 60)
endif()

include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(NOT WIN32)
  olc_add_test(NAME test_mlock_host
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_mlock_host.c
    LABELS integration HOOKS TIMEOUT 120)
  target_compile_definitions(test_mlock_host PRIVATE OLC_MOCK_PLUGIN_ROOT="${OLC_MOCK_PLUGIN_ROOT}")
  add_dependencies(test_mlock_host olc_mock_plugins)
endif()
