# Unit tests of the version-1 codec and the record set.
olc_add_test(NAME test_format SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_format.c
  ${CMAKE_CURRENT_LIST_DIR}/test_format_errors.c ${CMAKE_CURRENT_LIST_DIR}/test_format_doubles.c
  LABELS unit HOOKS)
target_compile_definitions(test_format PRIVATE OLC_FORMAT_TESTDIR="${PROJECT_SOURCE_DIR}/tests")
olc_add_test(NAME test_record SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_record.c LABELS unit HOOKS)
olc_add_test(NAME test_format_locale SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_format_locale.c
  LABELS unit HOOKS)
