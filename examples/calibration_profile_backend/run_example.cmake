# cmake -DEXAMPLE=<program> -DWORK=<scratch dir> -P run_example.cmake
# Runs the example twice on a fresh store file (the second run finds the
# file the first wrote) and checks that it reports the selection, its
# measurement and the rejected candidates with their reasons.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(store "${WORK}/calibration_profiles.txt")

foreach(run 1 2)
  execute_process(COMMAND "${EXAMPLE}" "${store}" OUTPUT_VARIABLE out ERROR_VARIABLE err
    RESULT_VARIABLE rc)
  message(STATUS "run ${run}:\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the example failed (${rc})")
  endif()
endforeach()

foreach(expected
    "selected: exact calibrated profile"
    "policy: \"example_policy v1 tile=64x32 unroll=4\" (tile 64x32, unroll 4)"
    "median_latency = 812.5 us"
    "- validation_failed:"
    "- outdated_implementation:")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the output does not mention: ${expected}")
  endif()
endforeach()
if(NOT EXISTS "${store}")
  message(FATAL_ERROR "no store file at ${store}")
endif()
file(READ "${store}" text)
if(NOT text MATCHES "^onnx_light_calibration_profiles 1\n")
  message(FATAL_ERROR "the store file does not start with the version-1 header")
endif()

# Persistence off: the same integration, in memory only.
execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=OLC_STORE "${EXAMPLE}"
  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
string(FIND "${out}" "store: (in memory)" at)
if(NOT rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "the in-memory run failed (${rc}):\n${out}")
endif()
