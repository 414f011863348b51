# The host commands of olc (calibrate, select, explain, plugins, prune)
# driven end to end against the mock plugins, with golden files for the
# text output of plugins, select and explain (tests/golden/cli/;
# OLC_UPDATE_GOLDEN=1 rewrites them).
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(TARGET olc_cli AND NOT WIN32)
  olc_add_test(NAME test_cli_host LABELS integration TIMEOUT 300
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_host.c ${PROJECT_SOURCE_DIR}/tests/cli/cli_test_util.c)
  target_include_directories(test_cli_host PRIVATE ${PROJECT_SOURCE_DIR}/tests/cli)
  target_compile_definitions(test_cli_host PRIVATE
    OLC_CLI_PATH="$<TARGET_FILE:olc_cli>"
    OLC_MOCK_PLUGIN_ROOT="${OLC_MOCK_PLUGIN_ROOT}"
    OLC_MOCK_PLUGIN_DIR_GOOD="${OLC_MOCK_PLUGIN_DIR_GOOD}"
    OLC_MOCK_PLUGIN_DIR_GOOD_V2="${OLC_MOCK_PLUGIN_DIR_GOOD_V2}"
    OLC_GOLDEN_DIR="${PROJECT_SOURCE_DIR}/tests/golden/cli")
  add_dependencies(test_cli_host olc_cli olc_mock_plugins)
  olc_add_test(NAME test_cli_summary LABELS integration TIMEOUT 300
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_summary.c ${PROJECT_SOURCE_DIR}/tests/cli/cli_test_util.c)
  target_include_directories(test_cli_summary PRIVATE ${PROJECT_SOURCE_DIR}/tests/cli)
  target_compile_definitions(test_cli_summary PRIVATE
    OLC_CLI_PATH="$<TARGET_FILE:olc_cli>"
    OLC_MOCK_PLUGIN_ROOT="${OLC_MOCK_PLUGIN_ROOT}")
  add_dependencies(test_cli_summary olc_cli olc_mock_plugins)
  if(TARGET cpu_gemm) # the embedded default finds it in the build tree
    add_dependencies(test_cli_summary cpu_gemm)
  endif()
  if(TARGET olc_worker)
    add_dependencies(test_cli_host olc_worker)
    add_dependencies(test_cli_summary olc_worker)
  endif()
endif()
# What calibrate, select and explain list since lookups are scoped.
if(TARGET olc_cli AND NOT WIN32)
  olc_add_test(NAME test_cli_host_scope LABELS integration TIMEOUT 120
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_host_scope.c
    ${PROJECT_SOURCE_DIR}/tests/cli/cli_test_util.c)
  target_include_directories(test_cli_host_scope PRIVATE ${PROJECT_SOURCE_DIR}/tests/cli)
  target_compile_definitions(test_cli_host_scope PRIVATE OLC_CLI_PATH="$<TARGET_FILE:olc_cli>"
    OLC_MOCK_PLUGIN_DIR_GOOD="${OLC_MOCK_PLUGIN_DIR_GOOD}")
  add_dependencies(test_cli_host_scope olc_cli olc_mock_plugins)
endif()
# Read-only stores and prune --foreign through the CLI (Linux: the
# immutable directory).
if(TARGET olc_cli AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  olc_add_test(NAME test_cli_readonly LABELS integration TIMEOUT 120
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_readonly.c
    ${PROJECT_SOURCE_DIR}/tests/cli/cli_test_util.c)
  target_include_directories(test_cli_readonly PRIVATE ${PROJECT_SOURCE_DIR}/tests/cli)
  target_compile_definitions(test_cli_readonly PRIVATE OLC_CLI_PATH="$<TARGET_FILE:olc_cli>"
    OLC_MOCK_PLUGIN_DIR_GOOD="${OLC_MOCK_PLUGIN_DIR_GOOD}")
  add_dependencies(test_cli_readonly olc_cli olc_mock_plugins)
  if(TARGET olc_worker)
    add_dependencies(test_cli_readonly olc_worker)
  endif()
endif()
