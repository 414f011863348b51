# The numerical check of candidates (plugin ABI 1.2 tolerances,
# host/src/calibrate/check.c): a mock whose fastest candidate is wrong on
# one element, through the library and through olc calibrate; cpu_gemm's
# and example_gpu's candidates on ragged shapes.
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(NOT WIN32 AND TARGET olc_cli)
  olc_add_test(NAME test_numcheck SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_numcheck.c
    LABELS integration HOOKS MOCK_PLUGINS CLI TIMEOUT 120)
endif()
# cpu_gemm also on ONNX MatMul/Gemm layouts and 16-bit dtypes ("layouts").
foreach(plugin IN ITEMS cpu_gemm example_gpu)
  if(plugin STREQUAL "cpu_gemm")
    set(_layouts layouts)
  else()
    set(_layouts "")
  endif()
  if(NOT WIN32 AND TARGET ${plugin})
    olc_add_test(NAME test_numcheck_${plugin}
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_numcheck_ragged.c
      ARGS ${plugin} ${_layouts}
      LABELS integration TIMEOUT 300
      DEFINES OLC_PLUGIN_DIR="$<TARGET_FILE_DIR:${plugin}>"
      DEPENDS ${plugin})
  endif()
endforeach()

# mock_onnx (tests/plugins/mock_onnx.c): MatMul and Gemm as plugin.h 1.3
# describes them, every dtype, pack; mock_onnx_plain without views.
foreach(variant IN ITEMS onnx onnx_plain)
  set(t olc_mock_${variant})
  add_library(${t} MODULE ${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_onnx.c)
  set_target_properties(${t} PROPERTIES PREFIX "" OUTPUT_NAME mock_${variant}
    LIBRARY_OUTPUT_DIRECTORY $<1:${OLC_MOCK_PLUGIN_ROOT}/${variant}>
    C_VISIBILITY_PRESET hidden)
  target_link_libraries(${t} PRIVATE olc::plugin_api)
  if(NOT WIN32)
    target_link_libraries(${t} PRIVATE m)
  endif()
  target_compile_definitions(${t} PRIVATE MOCK_NAME="mock_${variant}")
  olc_target_warnings(${t})
  add_dependencies(olc_mock_plugins ${t})
endforeach()
target_compile_definitions(olc_mock_onnx_plain PRIVATE MOCK_ONNX_NO_VIEWS)
if(NOT WIN32 AND TARGET olc_cli)
  olc_add_test(NAME test_numcheck_onnx SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_numcheck_onnx.c
    LABELS integration HOOKS MOCK_PLUGINS WORKER TIMEOUT 180)
endif()
