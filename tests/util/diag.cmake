# The diagnostics sink (olc/diag.h, host/src/util/diag.h) and its users:
# the store (a degraded change check) here; the host and the CLI in
# tests/loader and tests/cli.
if(NOT WIN32)
  olc_add_test(NAME test_diag SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_diag.c
    LABELS unit HOOKS TIMEOUT 60)
endif()
