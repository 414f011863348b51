# cmake -DPREFIX=<installed olc> -DSOURCE_DIR=<olc source tree> -DWORK=<dir>
#       -DC_COMPILER=<cc> [-DCFLAGS=...] [-DPROTOC_C=... -DONNX_PROTO_DIR=...
#       -DPROTOBUF_C_INCLUDE=... -DPROTOBUF_C_LIBRARY=...] -P examples_installed.cmake
#
# test_examples_installed_headers (tests/examples/installed.cmake): every
# example and the plugin template compiled against the installed headers
# only: -I<prefix>/include and nothing of the source tree (each file's own
# directory aside, for its quoted includes), as C11 with -Werror; the
# programs linked with the installed libolc, the plugin with nothing of
# olc and every symbol resolved.  Each file's dependency list (-MMD) must
# name no header of the source tree's host/include or plugin-api/include:
# a relative include that reached them would hide a header the install
# lacks.  onnx_runner's reader is generated with protoc-c here, as its own
# build does; without protoc-c that example is left out (said so).
cmake_minimum_required(VERSION 3.25)
include(${SOURCE_DIR}/cmake/OlcScriptRun.cmake)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
separate_arguments(extra UNIX_COMMAND "${CFLAGS}")
set(warn -std=c11 -Wall -Wextra -Wpedantic -Werror)
file(GLOB_RECURSE libolc ${PREFIX}/*/libolc.so)
if(NOT libolc)
  message(FATAL_ERROR "no libolc.so under ${PREFIX}")
endif()
list(GET libolc 0 libolc)
get_filename_component(libdir ${libolc} DIRECTORY)

# compile(<name> <out var> <include dirs...> -- <sources...>): objects of
# the sources, each checked for source-tree headers.
function(compile name out_var)
  cmake_parse_arguments(C "" "" "INCLUDES;SOURCES" ${ARGN})
  set(objects)
  set(used_installed FALSE)
  file(MAKE_DIRECTORY ${WORK}/${name})
  foreach(src IN LISTS C_SOURCES)
    get_filename_component(base ${src} NAME_WE)
    set(obj ${WORK}/${name}/${base}.o)
    set(incs -I${PREFIX}/include)
    foreach(d IN LISTS C_INCLUDES)
      list(APPEND incs -I${d})
    endforeach()
    run("${name}: compile ${base}.c" ${C_COMPILER} ${warn} ${extra} -fPIC ${incs} -MMD
        -MF ${obj}.d -c ${src} -o ${obj})
    file(READ ${obj}.d deps)
    foreach(tree IN ITEMS ${SOURCE_DIR}/host/include ${SOURCE_DIR}/plugin-api/include)
      string(FIND "${deps}" "${tree}" at)
      if(NOT at EQUAL -1)
        message(FATAL_ERROR "${name}: ${src} reached a header of the source tree (${tree}):\n"
                            "${deps}")
      endif()
    endforeach()
    if(deps MATCHES "${PREFIX}/include/olc/")
      set(used_installed TRUE)
    endif()
    list(APPEND objects ${obj})
  endforeach()
  if(NOT used_installed)
    message(FATAL_ERROR "${name}: no file included an installed olc header")
  endif()
  set(${out_var} ${objects} PARENT_SCOPE)
endfunction()

function(link_program name)
  run("${name}: link with the installed libolc" ${C_COMPILER} ${extra} ${ARGN}
      -L${libdir} -lolc -lm -o ${WORK}/${name}/${name})
endfunction()

set(ex ${SOURCE_DIR}/examples)

compile(calibration_profile_backend objs SOURCES ${ex}/calibration_profile_backend/main.c)
link_program(calibration_profile_backend ${objs})

compile(runtime_integration objs
  SOURCES ${ex}/runtime_integration/runtime_integration.c ${ex}/runtime_integration/mlp.c)
link_program(runtime_integration ${objs})

# The plugin template as the install ships it (share/onnx-light/plugin_template).
set(tpl ${PREFIX}/share/onnx-light/plugin_template)
file(GLOB tpl_sources ${tpl}/*.c)
if(NOT tpl_sources)
  message(FATAL_ERROR "the install has no plugin template sources in ${tpl}")
endif()
compile(plugin_template objs SOURCES ${tpl_sources})
run("plugin_template: link the plugin, nothing of olc" ${C_COMPILER} ${extra} -shared ${objs}
    -Wl,--no-undefined -lm -o ${WORK}/plugin_template/template_matmul.so)

if(PROTOC_C AND ONNX_PROTO_DIR AND PROTOBUF_C_INCLUDE AND PROTOBUF_C_LIBRARY)
  set(gen ${WORK}/onnx_runner/gen)
  file(MAKE_DIRECTORY ${gen})
  run("onnx_runner: protoc-c" ${PROTOC_C} --c_out=${gen} --proto_path=${ONNX_PROTO_DIR}
      ${ONNX_PROTO_DIR}/onnx.proto)
  # The generated reader keeps protobuf-c's own flags (as the example's build does).
  run("onnx_runner: compile the reader" ${C_COMPILER} ${extra} -fPIC -I${gen}
      -I${PROTOBUF_C_INCLUDE} -c ${gen}/onnx.pb-c.c -o ${gen}/onnx.pb-c.o)
  compile(onnx_runner objs INCLUDES ${gen} ${PROTOBUF_C_INCLUDE}
    SOURCES ${ex}/onnx_runner/onnx_runner.c ${ex}/onnx_runner/graph.c ${ex}/onnx_runner/tensor.c)
  link_program(onnx_runner ${objs} ${gen}/onnx.pb-c.o ${PROTOBUF_C_LIBRARY})
else()
  message(STATUS "onnx_runner: left out (no protoc-c, onnx.proto or protobuf-c here)")
endif()

# Every example folder with sources is covered above (a new one must be added).
file(GLOB example_dirs LIST_DIRECTORIES true ${ex}/*)
foreach(d IN LISTS example_dirs)
  get_filename_component(n ${d} NAME)
  if(IS_DIRECTORY ${d} AND NOT n MATCHES
     "^(calibration_profile_backend|runtime_integration|plugin_template|onnx_runner)$")
    file(GLOB srcs ${d}/*.c)
    if(srcs)
      message(FATAL_ERROR "examples/${n} is not compiled against the installed headers here")
    endif()
  endif()
endforeach()
message(STATUS "every example and the plugin template built against ${PREFIX}/include only")
