# Loader and wrapper tests against the mock plugins of tests/plugins.
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)

foreach(t IN ITEMS test_loader test_plugin_wrappers test_host_open)
  if(NOT EXISTS ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
    continue()
  endif()
  olc_add_test(NAME ${t} SOURCES ${CMAKE_CURRENT_LIST_DIR}/${t}.c LABELS integration HOOKS
    MOCK_PLUGINS TIMEOUT 120)
endforeach()
