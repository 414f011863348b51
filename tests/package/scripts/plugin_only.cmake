# cmake -DPREFIX=<installed olc> -DWORK=... -DC_COMPILER=... -DGENERATOR=...
#       -DPROJECT_DIR=<tests/package/project> -DCALIBRATE_SCRIPT=...
#       -P scripts/plugin_only.cmake
#
# The plugin author's side of the installed package:
# 1. no exported target names an absolute library path (the check itself
#    is shown to catch /usr/lib/<triplet>/libm.so first);
# 2. with pkg-config's search path emptied and find_package(PkgConfig),
#    find_package(OpenSSL) and find_package(Threads) disabled, the full
#    package cannot be configured (the negative control: the hiding works),
#    while a plugin-only consumer (find_package(olc COMPONENTS plugin_api))
#    and the installed plugin template build; olc-plugin-api.pc gives the
#    include flags with no other .pc file;
# 3. the installed olc loads and calibrates the template built from the
#    install (tests/examples/scripts/calibrate_template.cmake).
cmake_minimum_required(VERSION 3.25) # policies of 3.25 (CMP0054: quoted strings stay strings)
include(${CMAKE_CURRENT_LIST_DIR}/../../../cmake/OlcScriptRun.cmake)

# Absolute paths of libraries in exported link interfaces: an element that
# starts with '/' after a quote, ';' or blank (the package's own files are
# "${_IMPORT_PREFIX}/...").
function(absolute_libraries out text)
  string(REGEX MATCHALL "[\"; ]/[^\"; ]*\\.(so|a|dylib)[^\"; ]*" hits "${text}")
  set(${out} "${hits}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/empty)

# 1. Absolute library paths.
absolute_libraries(control "INTERFACE_LINK_LIBRARIES \"Threads::Threads;dl;/usr/lib/x86_64-linux-gnu/libm.so;m\"")
if(NOT control)
  message(FATAL_ERROR "the absolute-path check misses /usr/lib/x86_64-linux-gnu/libm.so")
endif()
file(GLOB_RECURSE target_files ${PREFIX}/*/cmake/olc/*Targets*.cmake)
list(LENGTH target_files n)
if(n LESS 3)
  message(FATAL_ERROR "expected the three export sets' files, found: ${target_files}")
endif()
foreach(f IN LISTS target_files)
  file(READ ${f} text)
  absolute_libraries(hits "${text}")
  if(hits)
    message(FATAL_ERROR "${f} names absolute library paths: ${hits}")
  endif()
endforeach()
message(STATUS "no absolute library path in ${n} exported target files")

# 2. The host's dependencies hidden.
set(hidden ${CMAKE_COMMAND} -E env PKG_CONFIG_LIBDIR=${WORK}/empty --unset=PKG_CONFIG_PATH
  --unset=OPENSSL_ROOT_DIR --unset=CMAKE_PREFIX_PATH)
set(hide_args -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON -DCMAKE_DISABLE_FIND_PACKAGE_OpenSSL=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_Threads=ON -DCMAKE_PREFIX_PATH=${PREFIX}
  -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_BUILD_TYPE=Debug)
if(GENERATOR)
  list(APPEND hide_args -G ${GENERATOR})
endif()

execute_process(COMMAND ${hidden} ${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${WORK}/full ${hide_args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0 OR NOT out MATCHES "PkgConfig|OpenSSL|Threads|inih")
  message(FATAL_ERROR "the full package configured with its dependencies hidden (${rc}): "
    "the hiding does not work\n${out}")
endif()
message(STATUS "negative control: the full package needs what is hidden")

get_filename_component(here ${CMAKE_CURRENT_LIST_FILE} DIRECTORY)
get_filename_component(here ${here} DIRECTORY)
run("configure plugin-only consumer" ${hidden} ${CMAKE_COMMAND} -S ${here}/plugin_only
    -B ${WORK}/plugin_only ${hide_args})
run("build plugin-only consumer" ${CMAKE_COMMAND} --build ${WORK}/plugin_only)

set(template ${PREFIX}/share/onnx-light/plugin_template)
run("configure the installed template" ${hidden} ${CMAKE_COMMAND} -S ${template}
    -B ${WORK}/template ${hide_args})
run("build the installed template" ${CMAKE_COMMAND} --build ${WORK}/template)
if(NOT EXISTS ${WORK}/template/template_matmul.so)
  message(FATAL_ERROR "the template build made no template_matmul.so")
endif()

file(GLOB_RECURSE pc_files ${PREFIX}/*/olc-plugin-api.pc)
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir ${pc_file} DIRECTORY)
find_program(PKG_CONFIG NAMES pkg-config pkgconf)
if(PKG_CONFIG)
  run("pkg-config --cflags olc-plugin-api" ${CMAKE_COMMAND} -E env
      PKG_CONFIG_LIBDIR=${WORK}/empty PKG_CONFIG_PATH=${pc_dir} ${PKG_CONFIG} --cflags
      olc-plugin-api)
  string(STRIP "${run_output}" pc_flags)
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  run("compile a plugin (pkg-config)" ${C_COMPILER} ${pc_flags} -fPIC -shared
      ${here}/plugin_only/plugin.c -o ${WORK}/plugin_pc.so)
endif()

# 3. The installed olc loads and calibrates the template built above.
run("calibrate the installed template" ${CMAKE_COMMAND} -DOLC=${PREFIX}/bin/olc
    -DPLUGIN_DIR=${WORK}/template -DWORK=${WORK}/calibrate -P ${CALIBRATE_SCRIPT})
message(STATUS "${run_output}")
message(STATUS "plugin-only package test passed")
