# examples/onnx_runner on real ONNX models: ONNX's own backend test cases
# of MatMul and Gemm (Debian's libonnx-testdata, ONNX 1.12), the
# pytorch-converted Linear models, and the MLP the repository commits
# (examples/onnx_runner/make_mlp.py), each run through olc with cpu_gemm
# and compared with its test data.  A case whose model is not installed is
# skipped (77), never passed.  The store is each test's own file; the
# select mode is never (the runner's default): nothing is measured.
if(NOT TARGET onnx_runner OR NOT TARGET cpu_gemm OR WIN32)
  return()
endif()

set(onnx_testdata /usr/share/libonnx-testdata/data)
set(onnx_cases
  node/test_matmul_2d node/test_matmul_3d node/test_matmul_4d
  node/test_gemm_all_attributes node/test_gemm_alpha node/test_gemm_beta
  node/test_gemm_default_matrix_bias node/test_gemm_default_no_bias
  node/test_gemm_default_scalar_bias node/test_gemm_default_single_elem_vector_bias
  node/test_gemm_default_vector_bias node/test_gemm_default_zero_bias
  node/test_gemm_transposeA node/test_gemm_transposeB
  pytorch-converted/test_Linear pytorch-converted/test_Linear_no_bias)
set(onnx_work ${CMAKE_CURRENT_BINARY_DIR}/onnx)
file(MAKE_DIRECTORY ${onnx_work})

# olc_onnx_test(NAME MODEL): the runner on MODEL and its test_data_set_N.
function(olc_onnx_test name model)
  add_test(NAME ${name} COMMAND onnx_runner --skip-absent --store ${onnx_work}/${name}.txt
    ${model})
  set_tests_properties(${name} PROPERTIES LABELS integration TIMEOUT 120 SKIP_RETURN_CODE 77
    ENVIRONMENT "OLC_CONFIG=;OLC_PLUGIN_PATH=;OLC_SELECT_MODE=")
endfunction()

foreach(case IN LISTS onnx_cases)
  get_filename_component(leaf ${case} NAME)
  string(REGEX REPLACE "^test_" "" leaf ${leaf})
  olc_onnx_test(onnx_${leaf} ${onnx_testdata}/${case}/model.onnx)
endforeach()

set(onnx_example ${PROJECT_SOURCE_DIR}/examples/onnx_runner)
foreach(mlp mlp mlp_float16 mlp_bfloat16)
  olc_onnx_test(onnx_${mlp} ${onnx_example}/${mlp}/model.onnx)
endforeach()

# The runner's own errors: exit status and message of an operator it does
# not run, an output that differs, a tensor file that does not fit its dims.
add_test(NAME onnx_runner_errors COMMAND ${CMAKE_COMMAND}
  -DPROGRAM=$<TARGET_FILE:onnx_runner> -DCASES=${onnx_example}/cases
  -DSTORE=${onnx_work}/onnx_runner_errors.txt -P ${onnx_example}/run_errors.cmake)
set_tests_properties(onnx_runner_errors PROPERTIES LABELS integration TIMEOUT 120
  ENVIRONMENT "OLC_CONFIG=;OLC_PLUGIN_PATH=;OLC_SELECT_MODE=")

# The runner's tensors: float16/bfloat16 conversions, decoding, comparison.
olc_add_test(NAME test_onnx_runner_tensor LABELS unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_onnx_runner_tensor.c ${onnx_example}/tensor.c
  INCLUDES ${onnx_example} LIBS onnx_runner_proto m)
