# fork() after olc_store_open (issue 12 item 9): parent and child write
# through their copies of one handle, also while another thread writes.
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(NOT WIN32)
  olc_add_test(NAME test_store_fork SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_fork.c
    LABELS integration MOCK_PLUGINS TIMEOUT 120)
endif()
