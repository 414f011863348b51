# cmake -DSTEP=install|consumer -DBUILD_DIR=... -DPREFIX=... -DWORK=...
#       -DC_COMPILER=... -DGENERATOR=... [-DCONFIG=...] [-DSANITIZE=ON]
#       [-DTSAN=ON] [-DPROJECT_DIR=...] -P OlcPackageTest.cmake
#
# The install/package test (tests/package/package.cmake).
#   STEP=install   `cmake --install` into WORK, then the prefix moved to
#                  PREFIX (the package, the .pc files and the tool's RPATH
#                  must all be relocatable); checks what the install holds.
#   STEP=consumer  the C consumer project in PROJECT_DIR built against
#                  PREFIX with find_package(olc) (shared and static) and its
#                  main.c with `pkg-config --cflags --libs olc`; every binary
#                  must run.
cmake_minimum_required(VERSION 3.25) # policies of 3.25 (CMP0054: quoted strings stay strings)
include(${CMAKE_CURRENT_LIST_DIR}/OlcScriptRun.cmake)

# Sanitized libraries need the sanitizer runtime in the consumer too.
set(cflags "")
if(SANITIZE)
  set(cflags "-fsanitize=address,undefined")
elseif(TSAN)
  set(cflags "-fsanitize=thread")
endif()

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE ${WORK} ${PREFIX})
  file(MAKE_DIRECTORY ${WORK})
  set(config_args)
  if(CONFIG)
    set(config_args --config ${CONFIG})
  endif()
  run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/installed ${config_args})
  file(RENAME ${WORK}/installed ${PREFIX})
  foreach(f include/olc/olc.h include/olc/version.h include/olc/store.h include/olc/error.h include/olc/plugin.h
            include/olc/host.h include/olc/config.h include/olc/loader.h include/olc/calibrate.h
            include/olc/runtime.h include/olc/store.hpp include/olc/host.hpp
            include/olc/runtime.hpp include/olc/error.hpp
            share/onnx-light/plugin_template/CMakeLists.txt
            share/onnx-light/plugin_template/template_matmul.c
            share/onnx-light/plugin_template/PLUGIN-API.md bin/olc share/man/man1/olc.1
            share/doc/onnx-light/README.md share/doc/onnx-light/CHANGELOG.md
            share/doc/onnx-light/docs/store.md
            share/doc/onnx-light/docs/file-format.md share/doc/onnx-light/docs/durability.md
            share/onnx-light/runtime_integration/CMakeLists.txt
            share/onnx-light/runtime_integration/runtime_integration.c
            share/onnx-light/default.ini share/doc/onnx-light/examples/full.ini)
    if(NOT EXISTS ${PREFIX}/${f})
      message(FATAL_ERROR "the install lacks ${f}")
    endif()
  endforeach()
  # Data in share/onnx-light, documents in share/doc/onnx-light: nowhere else.
  foreach(d share/olc share/doc/olc)
    if(EXISTS ${PREFIX}/${d})
      message(FATAL_ERROR "the install has ${d}: data belongs in share/onnx-light, documents "
                          "in share/doc/onnx-light")
    endif()
  endforeach()
  file(GLOB_RECURSE pc_files ${PREFIX}/*/olc.pc ${PREFIX}/*/olc-plugin-api.pc)
  file(GLOB_RECURSE config_files ${PREFIX}/*/olcConfig.cmake)
  list(LENGTH pc_files pc_count)
  if(NOT pc_count EQUAL 2 OR NOT config_files)
    message(FATAL_ERROR "the install lacks olc.pc, olc-plugin-api.pc or olcConfig.cmake")
  endif()
  # The release version everywhere a consumer reads it: olc/version.h, the
  # .pc file, the CMake package version file and its compatibility (the
  # same major: 1.x asks are served, 2.0 and 0.x refused), olc --version.
  file(STRINGS ${PREFIX}/include/olc/version.h vline REGEX "^#define OLC_VERSION_STRING \"")
  string(REGEX REPLACE "^#define OLC_VERSION_STRING \"([^\"]+)\".*" "\\1" version "${vline}")
  if(NOT version MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
    message(FATAL_ERROR "the installed olc/version.h has no OLC_VERSION_STRING: '${vline}'")
  endif()
  string(REGEX MATCH "^[0-9]+" major "${version}")
  foreach(pc IN LISTS pc_files)
    file(STRINGS ${pc} pc_version REGEX "^Version: ")
    if(NOT pc_version STREQUAL "Version: ${version}")
      message(FATAL_ERROR "${pc}: '${pc_version}', expected 'Version: ${version}'")
    endif()
  endforeach()
  get_filename_component(config_dir ${config_files} DIRECTORY)
  if(NOT EXISTS ${config_dir}/olcConfigVersion.cmake)
    message(FATAL_ERROR "the install lacks olcConfigVersion.cmake beside olcConfig.cmake")
  endif()
  # What find_package(olc <asked>) does with the version file (CMake sets
  # PACKAGE_FIND_VERSION* and includes it): compatible or not.
  math(EXPR next_major "${major} + 1")
  math(EXPR prev_major "${major} - 1")
  foreach(ask_ok IN ITEMS "${major}.0:TRUE" "${major}:TRUE" "${version}:TRUE"
                          "${next_major}.0:FALSE" "${prev_major}.9:FALSE" "${prev_major}.1:FALSE")
    string(REPLACE ":" ";" ask_ok "${ask_ok}")
    list(GET ask_ok 0 ask)
    list(GET ask_ok 1 want)
    set(PACKAGE_FIND_VERSION ${ask})
    string(REPLACE "." ";" parts "${ask}.0.0")
    list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)
    list(GET parts 1 PACKAGE_FIND_VERSION_MINOR)
    list(GET parts 2 PACKAGE_FIND_VERSION_PATCH)
    set(PACKAGE_FIND_VERSION_RANGE FALSE)
    unset(PACKAGE_VERSION_COMPATIBLE)
    include(${config_dir}/olcConfigVersion.cmake)
    if(NOT PACKAGE_VERSION STREQUAL version)
      message(FATAL_ERROR "olcConfigVersion.cmake: version '${PACKAGE_VERSION}', the headers' ${version}")
    endif()
    if(want AND NOT PACKAGE_VERSION_COMPATIBLE)
      message(FATAL_ERROR "find_package(olc ${ask}) would refuse olc ${version}")
    elseif(NOT want AND PACKAGE_VERSION_COMPATIBLE)
      message(FATAL_ERROR "find_package(olc ${ask}) would accept olc ${version} "
                          "(SameMajorVersion refuses another major)")
    endif()
  endforeach()
  # The man page, the README and the changelog name the release.
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" major_minor "${version}")
  file(STRINGS ${PREFIX}/share/man/man1/olc.1 th REGEX "^\\.TH ")
  if(NOT th MATCHES "\"olc ${major_minor}\"")
    message(FATAL_ERROR "olc.1: '${th}' does not name olc ${major_minor}")
  endif()
  file(READ ${PREFIX}/share/doc/onnx-light/README.md readme)
  if(NOT readme MATCHES "Release ${major_minor} \\(olc ${version}")
    message(FATAL_ERROR "README.md does not name release ${major_minor} (olc ${version})")
  endif()
  file(READ ${PREFIX}/share/doc/onnx-light/CHANGELOG.md changelog)
  if(NOT changelog MATCHES "\n## ${version}\n")
    message(FATAL_ERROR "CHANGELOG.md has no section '## ${version}'")
  endif()
  # The installed tool runs from the moved prefix (its RPATH finds libolc).
  run("installed olc --version" ${PREFIX}/bin/olc --version)
  if(NOT run_output MATCHES "olc ${version}")
    message(FATAL_ERROR "olc --version says '${run_output}', not olc ${version}")
  endif()
  message(STATUS "package installed in ${PREFIX}")
  return()
endif()

if(NOT STEP STREQUAL "consumer")
  message(FATAL_ERROR "STEP must be install or consumer, not '${STEP}'")
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(GLOB_RECURSE pc_files ${PREFIX}/*/olc.pc)
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir ${pc_file} DIRECTORY)
get_filename_component(libdir ${pc_dir} DIRECTORY)

# 1. find_package(olc), shared and static.
run_configure_build("consumer" ${PROJECT_DIR} ${WORK}/build
    -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_C_COMPILER=${C_COMPILER}
    -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS=${cflags}"
    "-DCMAKE_EXE_LINKER_FLAGS=${cflags}")
run("run consumer (find_package, shared)" ${WORK}/build/consumer)
if(NOT run_output MATCHES "consumer: olc [0-9]+\\.[0-9]+\\.[0-9]+ ok")
  message(FATAL_ERROR "unexpected consumer output: ${run_output}")
endif()
run("run consumer (find_package, static)" ${WORK}/build/consumer_static)

# 1a. A project that asks for the next major is refused by the real
# find_package (the consumer above asked for 1.0 and got it).
file(STRINGS ${PREFIX}/include/olc/version.h mline REGEX "^#define OLC_VERSION_MAJOR ")
string(REGEX REPLACE "^#define OLC_VERSION_MAJOR ([0-9]+).*" "\\1" major "${mline}")
math(EXPR next_major "${major} + 1")
file(MAKE_DIRECTORY ${WORK}/next_major)
file(WRITE ${WORK}/next_major/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)\n"
  "project(next_major LANGUAGES NONE)\nfind_package(olc ${next_major}.0 REQUIRED)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/next_major -B ${WORK}/next_major/build
  -DCMAKE_PREFIX_PATH=${PREFIX} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0 OR NOT out MATCHES "not compatible|version: ${major}\\.")
  message(FATAL_ERROR "find_package(olc ${next_major}.0) against olc ${major}.x: rc ${rc}\n${out}")
endif()
message(STATUS "find_package(olc ${next_major}.0) refused: ok")

# 1b. An embedding program installed elsewhere than the prefix's bin finds
# the installed plugins and the system profile layer through
# olc_config_load_default alone (relative to libolc), none of the
# variables set.  The profile layer's directory is not installed empty:
# made here as a package shipping profiles would.
file(MAKE_DIRECTORY ${PREFIX}/share/onnx-light/profiles.d)
file(MAKE_DIRECTORY ${WORK}/elsewhere/bin)
file(COPY ${WORK}/build/embedder DESTINATION ${WORK}/elsewhere/bin)
run("run embedder (outside the prefix)" ${CMAKE_COMMAND} -E env --unset=OLC_PLUGIN_PATH
    --unset=OLC_CONFIG --unset=OLC_STORE --unset=OLC_STORE_LAYERS --unset=OLC_SELECT_MODE
    ${WORK}/elsewhere/bin/embedder)
if(NOT run_output MATCHES "embedder: [1-9][0-9]* plugins, 1 layers")
  message(FATAL_ERROR "the embedder did not find the installed plugins and layer: ${run_output}")
endif()

# 2. pkg-config, with the .pc found through PKG_CONFIG_PATH only.
find_program(PKG_CONFIG NAMES pkg-config pkgconf)
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "pkg-config is missing")
endif()
run("pkg-config --cflags --libs olc" ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir}
    ${PKG_CONFIG} --cflags --libs olc)
string(STRIP "${run_output}" pc_flags)
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
if(NOT pc_flags MATCHES "-I[^;]*/include" OR NOT pc_flags MATCHES "-lolc")
  message(FATAL_ERROR "pkg-config gave unexpected flags: ${pc_flags}")
endif()
# A path a user copies from the flags is a clean one: no empty component.
if(pc_flags MATCHES "//")
  message(FATAL_ERROR "pkg-config gave a path with '//': ${pc_flags}")
endif()
# The install's plugin and profile directories, relocatable like the rest.
foreach(var IN ITEMS plugindir profiledir)
  run("pkg-config --variable=${var} olc" ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir}
      ${PKG_CONFIG} --variable=${var} olc)
  string(STRIP "${run_output}" dir)
  if(dir MATCHES "//")
    message(FATAL_ERROR "pkg-config's ${var} '${dir}' has an empty component ('//')")
  endif()
  if(NOT IS_DIRECTORY "${dir}")
    message(FATAL_ERROR "pkg-config's ${var} '${dir}' is not a directory")
  endif()
endforeach()
run("pkg-config --modversion olc" ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir}
    ${PKG_CONFIG} --modversion olc)
string(STRIP "${run_output}" pc_version)
if(NOT pc_version MATCHES "^${major}\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "pkg-config --modversion olc: '${pc_version}', not ${major}.x")
endif()
run("pkg-config --static --libs olc" ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir}
    ${PKG_CONFIG} --static --libs olc)
separate_arguments(san UNIX_COMMAND "${cflags}")
run("compile consumer (pkg-config)" ${C_COMPILER} ${san} ${PROJECT_DIR}/main.c
    -o ${WORK}/consumer_pc ${pc_flags})
run("run consumer (pkg-config)" ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${libdir}
    ${WORK}/consumer_pc)
message(STATUS "package test passed")
