# Every public header (host/include/olc/*.h and plugin-api's olc/plugin.h)
# compiled alone, twice included, as C99 -pedantic-errors -Werror and as
# C++11; the C++ headers (olc/*.hpp) alone as C++17 with the same warnings
# (test_headers_cxx).  The compilers are driven from a script at test time, so that the
# project itself needs no C++ language; a machine without a C++ compiler
# reports the C++ half as skipped.
set(OLC_HEADER_SCRIPT ${PROJECT_SOURCE_DIR}/cmake/OlcCheckHeaders.cmake)

if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  add_test(NAME test_headers_c COMMAND ${CMAKE_COMMAND}
    -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DCOMPILER=${CMAKE_C_COMPILER} -DLANG=c
    -DWORK=${CMAKE_CURRENT_BINARY_DIR}/headers_c -P ${OLC_HEADER_SCRIPT})
  set_tests_properties(test_headers_c PROPERTIES LABELS unit TIMEOUT 120)

  if(CMAKE_CXX_COMPILER)
    set(OLC_HEADER_CXX ${CMAKE_CXX_COMPILER})
  elseif(CMAKE_C_COMPILER_ID STREQUAL "Clang")
    find_program(OLC_HEADER_CXX NAMES clang++ c++ g++)
  else()
    find_program(OLC_HEADER_CXX NAMES c++ g++ clang++)
  endif()
  if(OLC_HEADER_CXX)
    add_test(NAME test_headers_cxx COMMAND ${CMAKE_COMMAND}
      -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DCOMPILER=${OLC_HEADER_CXX} -DLANG=c++
      -DWORK=${CMAKE_CURRENT_BINARY_DIR}/headers_cxx -P ${OLC_HEADER_SCRIPT})
  else()
    add_test(NAME test_headers_cxx COMMAND ${CMAKE_COMMAND} -E echo "SKIPPED: no C++ compiler")
  endif()
  set_tests_properties(test_headers_cxx PROPERTIES LABELS unit TIMEOUT 120
    SKIP_REGULAR_EXPRESSION "SKIPPED:")
endif()
