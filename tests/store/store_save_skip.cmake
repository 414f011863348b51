# The save's shortcut under the lock (persist.h, olc_persist__update_known):
# lost updates behind a kept identity or a moved counter, the shortcut taken
# only after a save, byte-identity with the full path.  POSIX only.
if(NOT WIN32)
  olc_add_test(NAME test_store_save_skip SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_save_skip.c
    LABELS unit HOOKS TIMEOUT 120)
  # Negative control: trusting the identity alone loses the change that
  # kept dev, ino, size and mtime (the first case must FAIL).
  add_test(NAME nc_store_save_gencheck COMMAND test_store_save_skip)
  set_tests_properties(nc_store_save_gencheck PROPERTIES WILL_FAIL TRUE
    ENVIRONMENT OLC_TEST_DISABLE=gencheck TIMEOUT 120)
  set_property(TEST nc_store_save_gencheck PROPERTY LABELS unit negative)
endif()
