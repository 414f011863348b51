# The numerical check of candidates (plugin ABI 1.2 tolerances,
# host/src/calibrate/check.c): a mock whose fastest candidate is wrong on
# one element, through the library and through olc calibrate; cpu_gemm's
# and example_gpu's candidates on ragged shapes.
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(NOT WIN32 AND TARGET olc_cli)
  olc_add_test(NAME test_numcheck SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_numcheck.c
    LABELS integration HOOKS MOCK_PLUGINS CLI TIMEOUT 120)
endif()
foreach(plugin IN ITEMS cpu_gemm example_gpu)
  if(NOT WIN32 AND TARGET ${plugin})
    olc_add_test(NAME test_numcheck_${plugin}
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_numcheck_ragged.c
      ARGS ${plugin}
      LABELS integration TIMEOUT 300
      DEFINES OLC_PLUGIN_DIR="$<TARGET_FILE_DIR:${plugin}>"
      DEPENDS ${plugin})
  endif()
endforeach()
