# The host commands of olc (calibrate, select, explain, plugins, prune)
# driven end to end against the mock plugins, with golden files for the
# text output of plugins, select and explain (tests/golden/cli/;
# OLC_UPDATE_GOLDEN=1 rewrites them).
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(TARGET olc_cli AND NOT WIN32)
  olc_add_test(NAME test_cli_host LABELS integration TIMEOUT 300
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_host.c MOCK_PLUGINS CLI WORKER
    DEFINES OLC_MOCK_PLUGIN_DIR_GOOD="${OLC_MOCK_PLUGIN_DIR_GOOD}"
      OLC_MOCK_PLUGIN_DIR_GOOD_V2="${OLC_MOCK_PLUGIN_DIR_GOOD_V2}"
      OLC_GOLDEN_DIR="${PROJECT_SOURCE_DIR}/tests/golden/cli")
  # A plugin printing to stdout stays out of every --json document.
  olc_add_test(NAME test_cli_stdout LABELS integration TIMEOUT 120
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_stdout.c MOCK_PLUGINS CLI WORKER)
  olc_add_test(NAME test_cli_summary LABELS integration TIMEOUT 300
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_summary.c MOCK_PLUGINS CLI WORKER)
  if(TARGET cpu_gemm) # the embedded default finds it in the build tree
    add_dependencies(test_cli_summary cpu_gemm)
  endif()
endif()
# What calibrate, select and explain list since lookups are scoped.
if(TARGET olc_cli AND NOT WIN32)
  olc_add_test(NAME test_cli_host_scope LABELS integration TIMEOUT 120
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_host_scope.c CLI
    DEFINES OLC_MOCK_PLUGIN_DIR_GOOD="${OLC_MOCK_PLUGIN_DIR_GOOD}" DEPENDS olc_mock_plugins)
endif()
# Read-only stores and prune --foreign through the CLI (Linux: the
# immutable directory), with cpu_gemm for its bucketed keys.
if(TARGET olc_cli AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  olc_add_test(NAME test_cli_readonly LABELS integration TIMEOUT 120
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_readonly.c CLI WORKER
    DEFINES OLC_MOCK_PLUGIN_DIR_GOOD="${OLC_MOCK_PLUGIN_DIR_GOOD}" DEPENDS olc_mock_plugins)
  if(TARGET cpu_gemm) # prune --foreign on its bucketed records
    add_dependencies(test_cli_readonly cpu_gemm)
    target_compile_definitions(test_cli_readonly PRIVATE CPU_GEMM_PLUGIN="$<TARGET_FILE:cpu_gemm>")
  endif()
endif()
# olc verify on a layer that another run made.
if(TARGET olc_cli AND NOT WIN32)
  olc_add_test(NAME test_cli_verify LABELS integration TIMEOUT 120
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_verify.c CLI
    DEFINES OLC_MOCK_PLUGIN_DIR_GOOD="${OLC_MOCK_PLUGIN_DIR_GOOD}" DEPENDS olc_mock_plugins)
endif()
