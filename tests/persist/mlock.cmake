# The measurement lock (issue 11 item 6; persist/mlock*, host/key_measure_lock.c):
# the lock itself (unit), the host around the measurement of one key
# (integration, mock_det), and four processes calibrating the same
# workloads on one store (integration, mlock_driver).
if(NOT WIN32)
  olc_add_test(NAME test_mlock
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_mlock.c ${CMAKE_CURRENT_LIST_DIR}/test_mlock_path.c
            ${CMAKE_CURRENT_LIST_DIR}/mlock_holder.c
    LABELS unit HOOKS TIMEOUT 60)
endif()

include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(NOT WIN32)
  olc_add_test(NAME test_mlock_host
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_mlock_host.c ${CMAKE_CURRENT_LIST_DIR}/mlock_holder.c
    LABELS integration HOOKS MOCK_PLUGINS TIMEOUT 120)
endif()

# The driver links the hooks library, so that OLC_TEST_DISABLE=mlock (the
# negative control) reaches its persist module.
if(NOT WIN32)
  add_executable(mlock_driver ${CMAKE_CURRENT_LIST_DIR}/mlock_driver.c)
  target_link_libraries(mlock_driver PRIVATE olc_testhooks)
  target_compile_definitions(mlock_driver PRIVATE _GNU_SOURCE)
  olc_target_warnings(mlock_driver)
  olc_add_test(NAME test_mlock_procs
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_mlock_procs.c
    LABELS integration MOCK_PLUGINS TIMEOUT 180
    DEFINES OLC_MLOCK_DRIVER="$<TARGET_FILE:mlock_driver>" DEPENDS mlock_driver)
endif()
