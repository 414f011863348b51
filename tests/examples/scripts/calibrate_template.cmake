# cmake -DOLC=<olc> -DPLUGIN_DIR=<dir of template_matmul.so> -DWORK=<scratch>
#       -P calibrate_template.cmake
#
# The template plugin as a user meets it: a configuration whose plugin_dirs
# is the plugin's directory, `olc plugins` (loaded), `olc calibrate` (each
# workload measured, saved and selected, the plugin's policy text in the
# store file), a second `olc calibrate` (selected from the store, nothing
# measured) and `olc select`.  Used for the build tree and for the template
# built from an installed package (tests/package/plugin_only.cmake).
cmake_minimum_required(VERSION 3.25) # policies of 3.25 (CMP0054: quoted strings stay strings)
function(olc_run what expect_rc)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=OLC_STORE --unset=OLC_CONFIG
                          --unset=OLC_PLUGIN_PATH --unset=OLC_WORKER ${OLC} ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "olc ${what}: exit ${rc}, expected ${expect_rc}:\n${out}\n${err}")
  endif()
  message(STATUS "olc ${what}: exit ${rc}")
  set(olc_out "${out}" PARENT_SCOPE)
  set(olc_err "${err}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ini ${WORK}/template.ini)
set(store ${WORK}/store.txt)
file(WRITE ${ini} "[host]\nplugin_dirs = ${PLUGIN_DIR}\nthreads = 1\n\n"
  "[store]\npath = ${store}\n\n"
  "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.02\n"
  "max_seconds_per_workload = 10\n\n"
  "[workload.t_96]\nbackend = template_matmul\noperator = MatMul\n"
  "dtype = float32\nm = 96\nn = 96\nk = 96\n\n"
  "[workload.t_skinny]\nbackend = template_matmul\noperator = MatMul\n"
  "dtype = float32\nm = 4\nn = 300\nk = 200\n")

olc_run("plugins" 0 plugins --config ${ini} --json)
string(JSON n LENGTH "${olc_out}" plugins)
set(found FALSE)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON name ERROR_VARIABLE e GET "${olc_out}" plugins ${i} name)
  string(JSON stage ERROR_VARIABLE e GET "${olc_out}" plugins ${i} stage)
  if(name STREQUAL "template_matmul" AND stage STREQUAL "loaded")
    set(found TRUE)
  endif()
endforeach()
if(NOT found)
  message(FATAL_ERROR "template_matmul is not loaded:\n${olc_out}")
endif()

# First run: both workloads measured and selected; second: from the store.
foreach(round calibrated selected)
  olc_run("calibrate (${round})" 0 calibrate --config ${ini} --json)
  foreach(i 0 1)
    string(JSON name GET "${olc_out}" workloads ${i} workload)
    string(JSON outcome GET "${olc_out}" workloads ${i} outcome)
    string(JSON policy GET "${olc_out}" workloads ${i} selected policy)
    string(JSON level GET "${olc_out}" workloads ${i} selected level)
    string(JSON measured LENGTH "${olc_out}" workloads ${i} candidates)
    message(STATUS "${name}: ${outcome} ${level} \"${policy}\", ${measured} candidates measured")
    if(NOT outcome STREQUAL round OR NOT level STREQUAL "exact"
       OR NOT policy MATCHES "^v1 mb=[1-9][0-9]* nb=[1-9][0-9]* kb=[1-9][0-9]*$")
      message(FATAL_ERROR "unexpected ${name}: ${outcome} ${level} \"${policy}\"\n${olc_out}")
    endif()
    if(round STREQUAL "calibrated" AND measured LESS 2)
      message(FATAL_ERROR "${name}: fewer than two candidates measured\n${olc_out}")
    endif()
    if(round STREQUAL "selected" AND NOT measured EQUAL 0)
      message(FATAL_ERROR "${name}: measured again although the store had it\n${olc_out}")
    endif()
  endforeach()
endforeach()

olc_run("select" 0 select --config ${ini})
file(READ ${store} text)
string(REGEX MATCHALL "backend \"template_matmul\"" records "${text}")
list(LENGTH records count)
# Two workloads, an exact and a portable record each.
if(NOT count EQUAL 4 OR NOT text MATCHES "policy \"v1 mb=")
  message(FATAL_ERROR "the store does not hold the template's 4 records:\n${text}")
endif()
message(STATUS "template_matmul: loaded, calibrated and selected")
