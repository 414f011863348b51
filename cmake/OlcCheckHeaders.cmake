# cmake -DSOURCE_DIR=... -DCOMPILER=... -DLANG=c|c++ -DWORK=dir -P OlcCheckHeaders.cmake
#
# Compiles one translation unit per public header that includes only that
# header (twice, to check its include guard) and fails on any diagnostic.
file(GLOB headers ${SOURCE_DIR}/host/include/olc/*.h)
list(APPEND headers ${SOURCE_DIR}/plugin-api/include/olc/plugin.h)
list(SORT headers)
if(NOT headers)
  message(FATAL_ERROR "no public headers found under ${SOURCE_DIR}")
endif()

if(LANG STREQUAL "c")
  set(ext c)
  set(flags -std=c99 -pedantic-errors -Wall -Wextra -Werror -Wstrict-prototypes
            -Wmissing-prototypes -Wshadow -Wconversion -Wsign-conversion -Wundef
            -Wcast-qual -Wwrite-strings)
else()
  set(ext cpp)
  set(flags -std=c++11 -pedantic-errors -Wall -Wextra -Werror -Wshadow -Wconversion
            -Wsign-conversion -Wundef -Wcast-qual -Wold-style-cast)
endif()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(failed)
set(count 0)
foreach(h IN LISTS headers)
  get_filename_component(name ${h} NAME_WE)
  set(src ${WORK}/${name}.${ext})
  file(WRITE ${src} "#include \"olc/${name}.h\"\n#include \"olc/${name}.h\"\n"
    "int olc_header_test_${name}(void);\n"
    "int olc_header_test_${name}(void) { return 0; }\n")
  execute_process(
    COMMAND ${COMPILER} ${flags} -I${SOURCE_DIR}/host/include -I${SOURCE_DIR}/plugin-api/include
            -c ${src} -o ${WORK}/${name}.o
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0)
    message(STATUS "ok   ${LANG} olc/${name}.h")
  else()
    message(STATUS "FAIL ${LANG} olc/${name}.h\n${out}")
    list(APPEND failed olc/${name}.h)
  endif()
  math(EXPR count "${count} + 1")
endforeach()
if(failed)
  message(FATAL_ERROR "headers that do not compile alone as ${LANG}: ${failed}")
endif()
message(STATUS "${count} public headers compile alone as ${LANG}")
