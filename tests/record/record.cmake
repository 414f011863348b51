# Unit tests of the record set (host/src/record).
olc_add_test(NAME test_record SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_record.c LABELS unit HOOKS)
