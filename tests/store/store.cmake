# Store module tests (host/src/store).
olc_add_test(NAME test_store SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store.c LABELS unit HOOKS)
target_compile_definitions(test_store PRIVATE OLC_EXPECTED_VERSION="${PROJECT_VERSION}")
olc_add_test(NAME test_lookup SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_lookup.c LABELS unit HOOKS)
olc_add_test(NAME test_store_file SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_file.c
  LABELS unit HOOKS)
olc_add_test(NAME test_store_threads SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_threads.c
  LABELS unit HOOKS TIMEOUT 120)
olc_add_test(NAME test_store_faults SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_faults.c
  LABELS unit HOOKS)
olc_add_test(NAME test_workload_identity
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_workload_identity.c LABELS unit)
olc_add_test(NAME test_lookup_scope SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_lookup_scope.c
  LABELS unit)
olc_add_test(NAME test_lookup_scope_model
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_lookup_scope_model.c LABELS unit HOOKS)
olc_add_test(NAME test_store_layers SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_layers.c
  LABELS unit HOOKS)
# Negative control (docs/durability.md, negative controls): without the snapshot swap, M11 of
# test_store_file must fail.
olc_negative_control(nc_store_snapshot_swap test_store_file OLC_TEST_DISABLE=snapshot)

# A writer never writes a file its readers refuse (issue 12 item 2):
# OLC_E_LIMIT, nothing written.
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(NOT WIN32)
  olc_add_test(NAME test_hostile_limits SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hostile_limits.c
    LABELS integration HOOKS MOCK_PLUGINS TIMEOUT 120)
endif()
