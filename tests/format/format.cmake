# Unit tests of the version-1 codec (host/src/format).
olc_add_test(NAME test_format SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_format.c
  ${CMAKE_CURRENT_LIST_DIR}/test_format_errors.c ${CMAKE_CURRENT_LIST_DIR}/test_format_doubles.c
  LABELS unit HOOKS)
target_compile_definitions(test_format PRIVATE OLC_FORMAT_TESTDIR="${PROJECT_SOURCE_DIR}/tests")
olc_add_test(NAME test_format_locale SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_format_locale.c
  LABELS unit HOOKS)

# Hostile ini files and store files (issue 6 section 4): huge lines, NUL
# bytes, deep quotes, huge values, 100k sections or records, invalid UTF-8,
# a file that never ends: accepted or a one-line error, never a crash.
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(NOT WIN32)
  olc_add_test(NAME test_hostile_files SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hostile_files.c
    LABELS integration HOOKS MOCK_PLUGINS TIMEOUT 120)
endif()
