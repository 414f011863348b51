# The C++ API (olc/store.hpp, olc/host.hpp):
#   test_store_hpp, test_host_hpp    the wrappers over the C library, built
#                                    here as C++17 (when a C++ compiler
#                                    exists); test_store_hpp_unsynced runs
#                                    the durability suite with every
#                                    directory sync failing
#   test_cpp_rst_example             the .rst's C++ code block as it stands,
#                                    built against the installed package
#                                    (tests/package) and run; skipped (77)
#                                    when the spec or a C++ compiler is
#                                    missing
include(${CMAKE_CURRENT_LIST_DIR}/../package/package.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)

# The project is C; C++ is enabled for these tests when a compiler exists.
olc_enable_cxx()

set(OLC_SPEC_DIR ${PROJECT_SOURCE_DIR}/../shared/spec CACHE PATH
  "Where calibration-profile-store.rst is read at test time (test_cpp_rst_example)")

if(CMAKE_CXX_COMPILER)
  foreach(t IN ITEMS store_hpp host_hpp)
    olc_add_test(NAME test_${t} LABELS unit TIMEOUT 120
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_${t}.cpp)
    olc_cxx_test_options(test_${t} 17)
  endforeach()
  target_compile_definitions(test_host_hpp PRIVATE
    OLC_MOCK_PLUGIN_DIR_GOOD="${OLC_MOCK_PLUGIN_DIR_GOOD}")
  add_dependencies(test_host_hpp olc_mock_plugins)
  add_test(NAME test_store_hpp_unsynced COMMAND test_store_hpp durability)
  set_tests_properties(test_store_hpp_unsynced PROPERTIES LABELS unit TIMEOUT 60
    ENVIRONMENT OLC_TEST_FAIL_AT=dir-fsync)
else()
  message(STATUS "olc: no C++ compiler: test_store_hpp and test_host_hpp not built")
endif()

if(OLC_PACKAGE_PREFIX)
  add_test(NAME test_cpp_rst_example COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/scripts/rst_example.sh
    ${OLC_SPEC_DIR}/calibration-profile-store.rst "${CMAKE_CXX_COMPILER}" ${CMAKE_COMMAND}
    -DPREFIX=${OLC_PACKAGE_PREFIX} -DWORK=${PROJECT_BINARY_DIR}/tests/package/rst_example
    -DPROJECT_DIR=${CMAKE_CURRENT_LIST_DIR}/rst_example -DGENERATOR=${CMAKE_GENERATOR}
    "-DCXXFLAGS=$<$<BOOL:${OLC_SANITIZE}>:-fsanitize=address,undefined>$<$<BOOL:${OLC_TSAN}>:-fsanitize=thread>"
    -P ${CMAKE_CURRENT_LIST_DIR}/scripts/rst_example.cmake)
  set_tests_properties(test_cpp_rst_example PROPERTIES LABELS integration TIMEOUT 300
    SKIP_RETURN_CODE 77 FIXTURES_REQUIRED olc_package)
endif()
