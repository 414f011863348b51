# Z2 (docs/durability.md, family Z): the quoted-value codec against C++ std::quoted.
# Needs a C++ compiler; the project itself is C only, so C++ is enabled here
# when one exists, and the test is simply absent otherwise.
olc_enable_cxx()
if(CMAKE_CXX_COMPILER)
  olc_add_test(NAME test_quoted_differential LABELS unit HOOKS TIMEOUT 120
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_quoted_differential.cpp)
  olc_cxx_test_options(test_quoted_differential 14)
else()
  message(STATUS "olc: no C++ compiler, Z2 differential test (std::quoted) not built")
endif()
