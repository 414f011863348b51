# Shared by the test scripts run with `cmake -P` (cmake/OlcPackageTest.cmake,
# tests/package/scripts/plugin_only.cmake, tests/package/scripts/rst_example.cmake).
include_guard(GLOBAL)

# run(<what> <command> [args...]): runs the command, fails the script with its
# output unless it exits 0, and leaves stdout and stderr in run_output.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}")
  endif()
  message(STATUS "${what}: ok")
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# run_configure_build(<what> <source dir> <build dir> [configure args...]):
# configures the project (with -G GENERATOR where the script was given one)
# and builds it, each step a run().
function(run_configure_build what source_dir build_dir)
  set(gen_args)
  if(GENERATOR)
    set(gen_args -G ${GENERATOR})
  endif()
  run("configure ${what}" ${CMAKE_COMMAND} -S ${source_dir} -B ${build_dir} ${gen_args} ${ARGN})
  run("build ${what}" ${CMAKE_COMMAND} --build ${build_dir})
endfunction()
