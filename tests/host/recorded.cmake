# Record misses, tune offline; budgets (issue 16 items 3 and 4):
#   test_recorded_format  the recorded-workloads format and its file (unit)
#   test_recorded_host    never-mode misses recorded once, olc_host_calibrate
#                         with recorded (skips, removal), budgets and refine,
#                         against mock_det (integration)
#   test_recorded_procs   processes recording at once: no record lost or
#                         duplicated (integration)
if(NOT WIN32)
  olc_add_test(NAME test_recorded_format
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_recorded_format.c LABELS unit HOOKS TIMEOUT 60)
endif()
# The shard of a recorded workload (--shard I/N, issue 43): fixed values,
# the key's fields, the spread (unit).
olc_add_test(NAME test_recorded_shard
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_recorded_shard.c LABELS unit HOOKS TIMEOUT 60)

include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(NOT WIN32)
  foreach(t IN ITEMS test_recorded_host test_recorded_procs)
    if(NOT EXISTS ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
      continue()
    endif()
    olc_add_test(NAME ${t} LABELS integration HOOKS TIMEOUT 300 MOCK_PLUGINS
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/${t}.c ${CMAKE_CURRENT_LIST_DIR}/runtime_util.c
      INCLUDES ${CMAKE_CURRENT_LIST_DIR})
  endforeach()
endif()

# olc calibrate --recorded and --refine, the built binary.
if(TARGET olc_cli AND NOT WIN32)
  olc_add_test(NAME test_recorded_cli LABELS integration TIMEOUT 300
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_recorded_cli.c MOCK_PLUGINS CLI WORKER)
endif()

# The recorded-workloads parser on arbitrary bytes (tests/fuzz/fuzz.cmake's
# olc_fuzz_target: a replay of corpus/recorded always, libFuzzer with the
# fuzz preset).
if(COMMAND olc_fuzz_target)
  olc_fuzz_target(NAME recorded MODULE host SECONDS 30
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/fuzz_recorded.c)
endif()
