# Install into a temporary prefix, then build a separate project against it
# with find_package(olc) (shared and static) and with pkg-config, and run
# the results.  Needs the whole tree built (ctest after a full build).
if(NOT WIN32 AND NOT CMAKE_CROSSCOMPILING)
  add_test(NAME test_package COMMAND ${CMAKE_COMMAND}
    -DBUILD_DIR=${PROJECT_BINARY_DIR} -DPROJECT_DIR=${CMAKE_CURRENT_LIST_DIR}/project
    -DWORK=${CMAKE_CURRENT_BINARY_DIR}/package -DC_COMPILER=${CMAKE_C_COMPILER}
    -DGENERATOR=${CMAKE_GENERATOR} -DCONFIG=$<CONFIG> -DSANITIZE=${OLC_SANITIZE}
    -DTSAN=${OLC_TSAN} -P ${PROJECT_SOURCE_DIR}/cmake/OlcPackageTest.cmake)
  set_tests_properties(test_package PROPERTIES LABELS integration TIMEOUT 600
    RUN_SERIAL TRUE)
endif()
