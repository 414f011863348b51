# cmake -DPROGRAM=<onnx_runner> -DCASES=<examples/onnx_runner/cases>
#       -DSTORE=<store file> -P run_errors.cmake
# Each case: the exit status and a line of the output onnx_runner must give.

# expect(RC TEXT ARGS...): runs the runner with ARGS.
function(expect want_rc want_text)
  execute_process(COMMAND "${PROGRAM}" --store "${STORE}" ${ARGN}
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  message(STATUS "onnx_runner ${ARGN}: ${rc}\n${out}${err}")
  if(NOT rc STREQUAL want_rc)
    message(FATAL_ERROR "onnx_runner ${ARGN}: exit status ${rc}, expected ${want_rc}")
  endif()
  string(FIND "${out}${err}" "${want_text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "onnx_runner ${ARGN}: the output does not say: ${want_text}")
  endif()
endfunction()

expect(2 "graph.node[1] 'squash' (Sigmoid): operator Sigmoid is not supported"
  "${CASES}/unsupported_op/model.onnx")
expect(2 "input_1.pb: tensor 'b': raw_data holds 76 bytes, dims need 80"
  "${CASES}/bad_tensor/model.onnx")
expect(2 "graph input 'x' is float32, the test data float16"
  "${CASES}/../mlp/model.onnx" "${CASES}/../mlp_float16/test_data_set_0")
expect(2 "1 input_*.pb files, the model has 2 graph inputs"
  "${CASES}/wrong_output/model.onnx" "${CASES}/../mlp/test_data_set_0")
expect(2 "not an ONNX model" "${CASES}/wrong_output/test_data_set_0/input_0.pb")
expect(2 "cannot open it" "${CASES}/no_such_model.onnx")
expect(77 "skipped" --skip-absent "${CASES}/no_such_model.onnx")
expect(2 "unknown option" --no-such-option "${CASES}/wrong_output/model.onnx")
# Runs through olc (a plain MatMul) and finds the element that differs.
expect(1 "MISMATCH: 1 of 15 elements outside rtol 0.001, atol 1e-07"
  "${CASES}/wrong_output/model.onnx")
