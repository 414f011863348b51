# The measurement lock (issue 11 item 6; persist/mlock*, host/measure_lock.c):
# the lock itself (unit), the host around the measurement of one key
# (integration, mock_det), and four processes calibrating the same
# workloads on one store (integration, mlock_driver).
if(NOT WIN32)
  olc_add_test(NAME test_mlock
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_mlock.c ${CMAKE_CURRENT_LIST_DIR}/test_mlock_path.c
    LABELS unit HOOKS TIMEOUT 60)
endif()
