# cmake -DSOURCE_DIR=... -DCOMPILER=... -DLANG=c|c++ -DWORK=dir -P OlcCheckHeaders.cmake
#
# Compiles one translation unit per public header that includes only that
# header (twice, to check its include guard) and fails on any diagnostic.
# LANG=c++ also compiles the C++ headers (olc/*.hpp) alone as C++17.
file(GLOB headers ${SOURCE_DIR}/host/include/olc/*.h)
list(APPEND headers ${SOURCE_DIR}/plugin-api/include/olc/plugin.h)
list(SORT headers)
if(NOT headers)
  message(FATAL_ERROR "no public headers found under ${SOURCE_DIR}")
endif()

set(cxx_headers)
if(LANG STREQUAL "c++")
  file(GLOB cxx_headers ${SOURCE_DIR}/host/include/olc/*.hpp)
  list(SORT cxx_headers)
  if(NOT cxx_headers)
    message(FATAL_ERROR "no C++ headers (olc/*.hpp) found under ${SOURCE_DIR}")
  endif()
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
foreach(h IN LISTS headers cxx_headers)
  get_filename_component(file ${h} NAME)
  get_filename_component(name ${h} NAME_WE)
  get_filename_component(hext ${h} LAST_EXT)
  set(std)
  set(stem ${name})
  if(hext STREQUAL ".hpp")
    set(std -std=c++17) # after flags' -std=c++11: the last one wins
    set(stem ${name}_hpp)
  endif()
  set(src ${WORK}/${stem}.${ext})
  file(WRITE ${src} "#include \"olc/${file}\"\n#include \"olc/${file}\"\n"
    "int olc_header_test_${stem}(void);\n"
    "int olc_header_test_${stem}(void) { return 0; }\n")
  execute_process(
    COMMAND ${COMPILER} ${flags} ${std} -I${SOURCE_DIR}/host/include
            -I${SOURCE_DIR}/plugin-api/include -c ${src} -o ${WORK}/${stem}.o
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0)
    message(STATUS "ok   ${LANG} olc/${file}")
  else()
    message(STATUS "FAIL ${LANG} olc/${file}\n${out}")
    list(APPEND failed olc/${file})
  endif()
  math(EXPR count "${count} + 1")
endforeach()
if(failed)
  message(FATAL_ERROR "headers that do not compile alone as ${LANG}: ${failed}")
endif()
message(STATUS "${count} public headers compile alone as ${LANG}")
