# cmake -DPROGRAM=... -DPLUGIN_DIR=... -DWORK=... -P run_twice.cmake
# cmake -DSOURCE_DIR=... -DPREFIX=... -DC_COMPILER=... [-DGENERATOR=...]
#       [-DCFLAGS=...] -DWORK=... -P run_twice.cmake
#
# Starts the example twice on one fresh store: the first start calibrates
# every layer, the second measures nothing (the store served it) and both
# check the output against the reference.  With SOURCE_DIR and PREFIX the
# example is first built as a separate project against the olc installed
# in PREFIX and run with that install's plugins, from outside the prefix
# and without OLC_WORKER: its measurements need olc-worker, found next to
# the installed library.  Prints "skipped:" when cpu_gemm cannot run here
# (not found, or without execute: then after checking both starts' counts).
cmake_minimum_required(VERSION 3.25)

function(run_example what)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=OLC_WORKER --unset=OLC_PLUGIN_PATH
    ${PROGRAM} --model ${WORK}/mlp.bin --store ${WORK}/profiles.txt --plugin-dir ${PLUGIN_DIR}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${what} start:\n${out}${err}")
  set(skipped FALSE PARENT_SCOPE)
  if(err MATCHES "measured in-process")
    message(FATAL_ERROR "${what} start: olc measured without olc-worker (not found)")
  endif()
  if(NOT rc EQUAL 0 AND NOT rc EQUAL 77)
    message(FATAL_ERROR "${what} start failed (${rc})")
  endif()
  if(NOT out MATCHES "measured ([0-9]+) of ([0-9]+) layers; model load with selection ([0-9.]+) ms")
    if(rc EQUAL 77)
      message(STATUS "skipped: ${err}") # cpu_gemm not found or unavailable here
      set(skipped TRUE PARENT_SCOPE)
      return()
    endif()
    message(FATAL_ERROR "${what} start: no summary line")
  endif()
  set(measured ${CMAKE_MATCH_1} PARENT_SCOPE)
  set(layers ${CMAKE_MATCH_2} PARENT_SCOPE)
  set(load_ms ${CMAKE_MATCH_3} PARENT_SCOPE)
  if(rc EQUAL 77)
    # It selected (and measured) but cannot execute: the counts below are
    # still checked, and the test is reported skipped at the end.
    set(cannot_execute TRUE PARENT_SCOPE)
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
if(SOURCE_DIR)
  set(gen_args)
  if(GENERATOR)
    set(gen_args -G ${GENERATOR})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK}/build ${gen_args}
    -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_BUILD_TYPE=Debug
    "-DCMAKE_C_FLAGS=${CFLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CFLAGS}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0)
    execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  endif()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "building the example against ${PREFIX} failed:\n${out}")
  endif()
  set(PROGRAM ${WORK}/build/runtime_integration)
  file(GLOB PLUGIN_DIR ${PREFIX}/lib*/olc/plugins)
  if(EXISTS ${PREFIX}/bin/olc-worker OR EXISTS ${WORK}/build/olc-worker)
    message(FATAL_ERROR "olc-worker next to the program: the test would not show the library's lookup")
  endif()
endif()

run_example("first")
if(skipped)
  return()
endif()
if(NOT measured EQUAL layers)
  message(FATAL_ERROR "the first start measured ${measured} of ${layers} layers, not all")
endif()
set(first_ms ${load_ms})
run_example("second")
if(NOT measured EQUAL 0)
  message(FATAL_ERROR "the second start measured ${measured} layers: the store did not serve them")
endif()
if(cannot_execute)
  message(STATUS "skipped: the store checks passed, but this cpu_gemm cannot execute")
  return()
endif()
message(STATUS "first start: ${layers} layers measured, model load with selection ${first_ms} ms; "
  "second start: none measured, ${load_ms} ms")
