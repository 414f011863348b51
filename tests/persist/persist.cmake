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
