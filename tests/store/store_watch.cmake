# Change detection of the store through the generation counter of P.lock
# (host/src/persist/persist.h; forks processes, POSIX only).
if(NOT WIN32)
  olc_add_test(NAME test_store_watch SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_watch.c
    LABELS unit HOOKS TIMEOUT 120)
endif()
