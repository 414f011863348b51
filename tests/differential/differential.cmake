# Z2 (DURABILITY.md 4.5): the quoted-value codec against C++ std::quoted.
# Needs a C++ compiler; the project itself is C only, so C++ is enabled here
# when one exists (the clang++ next to clang when C is clang, so that the
# sanitizer runtimes match), and the test is simply absent otherwise.
include(CheckLanguage)
if(NOT CMAKE_CXX_COMPILER AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  get_filename_component(_olc_cdir "${CMAKE_C_COMPILER}" DIRECTORY)
  find_program(OLC_CLANGXX NAMES clang++ HINTS "${_olc_cdir}" NO_DEFAULT_PATH)
  if(OLC_CLANGXX)
    set(CMAKE_CXX_COMPILER "${OLC_CLANGXX}" CACHE FILEPATH "C++ compiler (matches clang)")
  endif()
endif()
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  enable_language(CXX)
  olc_add_test(NAME test_quoted_differential LABELS unit HOOKS TIMEOUT 120
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_quoted_differential.cpp)
  set_target_properties(test_quoted_differential PROPERTIES CXX_STANDARD 14
    CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(test_quoted_differential PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion>)
  endif()
else()
  message(STATUS "olc: no C++ compiler, Z2 differential test (std::quoted) not built")
endif()
