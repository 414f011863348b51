# The Windows build: tests/windows/mingw_cross.sh cross-compiles every
# module but config with mingw-w64 (OLC_WITHOUT_CONFIG, -Werror), the
# plugins as .dll files and the programs of tests/windows, then runs them
# under wine when wine is installed.  Skipped (77) without the cross
# compiler or when wine cannot start.
if(NOT WIN32 AND NOT CMAKE_CROSSCOMPILING)
  add_test(NAME mingw_cross
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/mingw_cross.sh
            ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/mingw-cross)
  # About 100 CPU seconds from an empty build folder (the script prints
  # them); the timeout leaves room for a machine shared with other builds,
  # and each wine run has its own limit (120 s).
  set_tests_properties(mingw_cross PROPERTIES LABELS "integration;windows"
    SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
