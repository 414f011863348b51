# Unit tests of the persistence layer (host/src/persist): the write path,
# a fault at every named step, readers, repair, paths.
if(NOT WIN32)
  olc_add_test(NAME test_persist
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_persist.c
            ${CMAKE_CURRENT_LIST_DIR}/test_persist_faults.c
            ${CMAKE_CURRENT_LIST_DIR}/test_persist_path.c
            ${CMAKE_CURRENT_LIST_DIR}/test_persist_watch.c
    LABELS unit HOOKS TIMEOUT 120)
endif()

# The Windows persistence layer: cross-compiled with mingw-w64 (the store
# with OLC_STORE_ONLY, and a hooks build of util+persist linked into
# win_persist_smoke.exe), which then runs under wine when wine is installed.
# Skipped (77) without the cross compiler or when wine cannot start.
if(NOT WIN32 AND NOT CMAKE_CROSSCOMPILING)
  add_test(NAME persist_mingw_cross
    COMMAND sh ${PROJECT_SOURCE_DIR}/tests/integration/mingw_cross.sh
            ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/mingw-cross)
  set_tests_properties(persist_mingw_cross PROPERTIES LABELS unit SKIP_RETURN_CODE 77
    TIMEOUT 300)
endif()
