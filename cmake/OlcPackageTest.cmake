# cmake -DBUILD_DIR=... -DPROJECT_DIR=... -DWORK=... -DC_COMPILER=...
#       -DGENERATOR=... [-DCONFIG=...] [-DSANITIZE=ON] -P OlcPackageTest.cmake
#
# The install/package test: `cmake --install`, the prefix moved to
# WORK/prefix, then the
# consumer project in PROJECT_DIR is built with find_package(olc) and its
# main.c with `pkg-config --cflags --libs olc`; every binary must run.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}")
  endif()
  message(STATUS "${what}: ok")
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK}/prefix)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/installed ${config_args})
# Everything below uses the prefix after a move: the package, the .pc file
# and the tool's RPATH must all be relocatable.
file(RENAME ${WORK}/installed ${prefix})

# What the install must contain.
file(GLOB_RECURSE pc_files ${prefix}/*/olc.pc)
file(GLOB_RECURSE config_files ${prefix}/*/olcConfig.cmake)
foreach(f include/olc/olc.h include/olc/store.h include/olc/error.h include/olc/plugin.h
          bin/olc share/man/man1/olc.1)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "the install lacks ${f}")
  endif()
endforeach()
if(NOT pc_files OR NOT config_files)
  message(FATAL_ERROR "the install lacks olc.pc or olcConfig.cmake")
endif()
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir ${pc_file} DIRECTORY)
get_filename_component(libdir ${pc_dir} DIRECTORY)

# Sanitized libraries need the sanitizer runtime in the consumer too.
set(cflags "")
if(SANITIZE)
  set(cflags "-fsanitize=address,undefined")
elseif(TSAN)
  set(cflags "-fsanitize=thread")
endif()

# The installed tool runs from the prefix (its RPATH finds libolc).
run("installed olc --version" ${prefix}/bin/olc --version)

# 1. find_package(olc), shared and static.
set(gen_args)
if(GENERATOR)
  set(gen_args -G ${GENERATOR})
endif()
run("configure consumer" ${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${WORK}/build ${gen_args}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER}
    -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS=${cflags}"
    "-DCMAKE_EXE_LINKER_FLAGS=${cflags}")
run("build consumer" ${CMAKE_COMMAND} --build ${WORK}/build)
run("run consumer (find_package, shared)" ${WORK}/build/consumer)
if(NOT run_output MATCHES "consumer: olc [0-9]+\\.[0-9]+\\.[0-9]+ ok")
  message(FATAL_ERROR "unexpected consumer output: ${run_output}")
endif()
run("run consumer (find_package, static)" ${WORK}/build/consumer_static)

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
run("pkg-config --static --libs olc" ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir}
    ${PKG_CONFIG} --static --libs olc)
separate_arguments(san UNIX_COMMAND "${cflags}")
run("compile consumer (pkg-config)" ${C_COMPILER} ${san} ${PROJECT_DIR}/main.c
    -o ${WORK}/consumer_pc ${pc_flags})
run("run consumer (pkg-config)" ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${libdir}
    ${WORK}/consumer_pc)
message(STATUS "package test passed")
