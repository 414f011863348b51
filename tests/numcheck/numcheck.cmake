# The numerical check of candidates (plugin ABI 1.2 tolerances,
# host/src/calibrate/check.c): a mock whose fastest candidate is wrong on
# one element, through the library and through olc calibrate; cpu_gemm's
# and example_gpu's candidates on ragged shapes.
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(NOT WIN32 AND TARGET olc_cli)
  olc_add_test(NAME test_numcheck
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_numcheck.c
            ${CMAKE_CURRENT_LIST_DIR}/../cli/cli_test_util.c
    LABELS integration HOOKS TIMEOUT 120)
  target_include_directories(test_numcheck PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../cli)
  target_compile_definitions(test_numcheck PRIVATE OLC_MOCK_PLUGIN_ROOT="${OLC_MOCK_PLUGIN_ROOT}"
    OLC_CLI_PATH="$<TARGET_FILE:olc_cli>")
  add_dependencies(test_numcheck olc_mock_plugins olc_cli)
endif()
if(NOT WIN32 AND TARGET cpu_gemm)
  olc_add_test(NAME test_numcheck_cpu_gemm
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_numcheck_ragged.c
    ARGS cpu_gemm
    LABELS integration TIMEOUT 300)
  target_compile_definitions(test_numcheck_cpu_gemm PRIVATE
    OLC_PLUGIN_DIR="$<TARGET_FILE_DIR:cpu_gemm>")
  add_dependencies(test_numcheck_cpu_gemm cpu_gemm)
endif()
if(NOT WIN32 AND TARGET example_gpu)
  olc_add_test(NAME test_numcheck_example_gpu
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_numcheck_ragged.c
    ARGS example_gpu
    LABELS integration TIMEOUT 300)
  target_compile_definitions(test_numcheck_example_gpu PRIVATE
    OLC_PLUGIN_DIR="$<TARGET_FILE_DIR:example_gpu>")
  add_dependencies(test_numcheck_example_gpu example_gpu)
endif()
