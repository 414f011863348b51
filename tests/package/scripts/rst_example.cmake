# cmake -DSPEC=<calibration-profile-store.rst> -DPREFIX=<installed olc>
#       -DWORK=<scratch> -DCXX_COMPILER=... [-DGENERATOR=...] [-DCXXFLAGS=...]
#       -DPROJECT_DIR=<tests/package/rst_example> -P rst_example.cmake
#
# Takes the .rst's `code-block:: cpp` as it stands, builds it inside
# rst_example/main.cpp (which declares only what the block assumes) against
# the installed package, runs it with XDG_CACHE_HOME in WORK, and checks
# that its lookup selected the record it stored, in the default store file.
cmake_minimum_required(VERSION 3.25) # policies of 3.25 (CMP0054: quoted strings stay strings)
include(${CMAKE_CURRENT_LIST_DIR}/../../../cmake/OlcScriptRun.cmake)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/block ${WORK}/cache)

# The first C++ block: the directive, then lines that are blank or indented.
file(READ ${SPEC} rst)
string(REGEX MATCH "\n\\.\\. code-block:: cpp\n(\n|   [^\n]*\n)+" block "${rst}")
if(NOT block)
  message(FATAL_ERROR "${SPEC} has no `.. code-block:: cpp` block")
endif()
string(REGEX REPLACE "^\n\\.\\. code-block:: cpp\n" "" block "${block}")
# Indented by the directive's own indentation (4 spaces in the .rst).
string(REGEX REPLACE "^\n*( +).*" "\\1" indent "${block}")
string(REPLACE "\n${indent}" "\n" block "\n${block}")
string(STRIP "${block}" block)
if(NOT block MATCHES "CalibrationProfileStore" OR NOT block MATCHES "Lookup")
  message(FATAL_ERROR "the extracted block is not the store example:\n${block}")
endif()
file(WRITE ${WORK}/block/rst_block.inc "${block}\n")
message(STATUS "the .rst's block (${SPEC}):\n${block}")

run_configure_build("rst_example" ${PROJECT_DIR} ${WORK}/build
    -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_BUILD_TYPE=Debug -DRST_BLOCK_DIR=${WORK}/block "-DCMAKE_CXX_FLAGS=${CXXFLAGS}"
    "-DCMAKE_EXE_LINKER_FLAGS=${CXXFLAGS}")

# Twice: the second run finds the file the first one wrote.
set(store ${WORK}/cache/onnx-light/calibration_profiles.txt)
foreach(round 1 2)
  run("run ${round}" ${CMAKE_COMMAND} -E env --unset=OLC_STORE XDG_CACHE_HOME=${WORK}/cache
      ${WORK}/build/rst_example)
  message(STATUS "${run_output}")
  if(NOT run_output MATCHES "rst example: selected exact policy \"example_policy v1 tile=64x32\"")
    message(FATAL_ERROR "unexpected output: ${run_output}")
  endif()
  string(FIND "${run_output}" "${store}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the example's store is not ${store}: ${run_output}")
  endif()
endforeach()
if(NOT EXISTS ${store})
  message(FATAL_ERROR "no store file at ${store}")
endif()
file(READ ${store} text)
foreach(expected "onnx_light_calibration_profiles 1\nprofile exact calibrated\nbackend \"example_gpu\""
    "measurement \"median_latency\" 2.5 \"us\"" "policy \"example_policy v1 tile=64x32\"")
  string(FIND "${text}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the store file lacks ${expected}:\n${text}")
  endif()
endforeach()
message(STATUS "the .rst's C++ example passed")
