# The installed package.  test_package_install installs the build into a
# temporary prefix and moves it (everything must be relocatable); the tests
# that need the install require its fixture (olc_package) and build
# separate projects against OLC_PACKAGE_PREFIX:
#   test_package              C consumers: find_package(olc) with the shared
#                             and the static library, and pkg-config
#   test_package_plugin_only  a plugin-only consumer and the installed
#                             plugin template, with the host's dependencies
#                             hidden; no absolute library path exported
#   test_cpp_rst_example      cpp.cmake: the .rst's C++ example
#   test_examples_installed_headers
#                             tests/examples/installed.cmake: every example
#                             and the plugin template against the installed
#                             headers only
# Needs the whole tree built (ctest after a full build).  Fragments that use
# the fixture include this file first (it has an include guard), so that the
# tests here may be registered by another folder's fragment: they name their
# module (package) themselves.
include_guard(GLOBAL)

if(NOT WIN32 AND NOT CMAKE_CROSSCOMPILING)
  set(OLC_PACKAGE_WORK ${PROJECT_BINARY_DIR}/tests/package)
  set(OLC_PACKAGE_PREFIX ${OLC_PACKAGE_WORK}/prefix)
  set(OLC_PACKAGE_SCRIPT ${PROJECT_SOURCE_DIR}/cmake/OlcPackageTest.cmake)
  set(OLC_PACKAGE_ARGS -DBUILD_DIR=${PROJECT_BINARY_DIR} -DPREFIX=${OLC_PACKAGE_PREFIX}
    -DC_COMPILER=${CMAKE_C_COMPILER} -DGENERATOR=${CMAKE_GENERATOR} -DCONFIG=$<CONFIG>
    -DSANITIZE=${OLC_SANITIZE} -DTSAN=${OLC_TSAN})

  # cmake --install writes install_manifest.txt into the build tree: alone.
  add_test(NAME test_package_install COMMAND ${CMAKE_COMMAND} -DSTEP=install
    ${OLC_PACKAGE_ARGS} -DWORK=${OLC_PACKAGE_WORK}/install -P ${OLC_PACKAGE_SCRIPT})
  set_tests_properties(test_package_install PROPERTIES LABELS "integration;package" TIMEOUT 300
    RUN_SERIAL TRUE FIXTURES_SETUP olc_package)

  add_test(NAME test_package COMMAND ${CMAKE_COMMAND} -DSTEP=consumer ${OLC_PACKAGE_ARGS}
    -DPROJECT_DIR=${CMAKE_CURRENT_LIST_DIR}/project -DWORK=${OLC_PACKAGE_WORK}/consumer
    -P ${OLC_PACKAGE_SCRIPT})
  set_tests_properties(test_package PROPERTIES LABELS "integration;package" TIMEOUT 600
    FIXTURES_REQUIRED olc_package)

  add_test(NAME test_package_plugin_only COMMAND ${CMAKE_COMMAND} ${OLC_PACKAGE_ARGS}
    -DPROJECT_DIR=${CMAKE_CURRENT_LIST_DIR}/project -DWORK=${OLC_PACKAGE_WORK}/plugin_only
    -DCALIBRATE_SCRIPT=${PROJECT_SOURCE_DIR}/tests/examples/scripts/calibrate_template.cmake
    -P ${CMAKE_CURRENT_LIST_DIR}/scripts/plugin_only.cmake)
  set_tests_properties(test_package_plugin_only PROPERTIES LABELS "integration;package"
    TIMEOUT 600 FIXTURES_REQUIRED olc_package)
endif()
