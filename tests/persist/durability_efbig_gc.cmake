# DURABILITY.md 4.3 F12 (EFBIG) and F13 (GC failure): the fault rows that
# tests/integration/durability.cmake does not cover.  Linux only (rlimits,
# FS_IOC_SETFLAGS, mount namespaces).
if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
  return()
endif()
olc_add_test(NAME test_durability_f12_f13
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_durability_f12_f13.c
  LABELS integration HOOKS TIMEOUT 60)
set_tests_properties(test_durability_f12_f13 PROPERTIES LABELS "integration;torture")
