# A save past the file-size limit (EFBIG, docs/durability.md F12) and a
# leftover temporary that cannot be removed (F13): the fault rows that
# durability.cmake does not cover.  Linux only (rlimits,
# FS_IOC_SETFLAGS, mount namespaces).
if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
  return()
endif()
olc_add_test(NAME test_durability_efbig_gc
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_durability_efbig_gc.c
  LABELS torture HOOKS TIMEOUT 60)
