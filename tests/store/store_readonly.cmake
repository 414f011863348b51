# Read-only mode, olc_store_writable, network file systems (the
# OLC_TEST_FSTYPE hook) and the embedders' environment (POSIX).
if(NOT WIN32)
  olc_add_test(NAME test_store_readonly SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_readonly.c
    LABELS unit HOOKS TIMEOUT 120)
endif()
# The same on a tmpfs remounted read-only (a private mount namespace) and
# on an immutable directory; 77 when neither can be made (Linux).
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  olc_add_test(NAME test_store_readonly_fs
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_readonly_fs.c LABELS unit TIMEOUT 120)
endif()
