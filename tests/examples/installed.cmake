# Every example (examples/*) and the installed plugin template compiled
# against the installed headers only (-I<prefix>/include, nothing of the
# source tree), the programs linked with the installed libolc
# (scripts/examples_installed.cmake); the install is the olc_package
# fixture's (tests/package).
include(${CMAKE_CURRENT_LIST_DIR}/../package/package.cmake)
if(OLC_PACKAGE_PREFIX AND NOT OLC_TSAN)
  set(ex_cflags "")
  if(OLC_SANITIZE)
    set(ex_cflags "-fsanitize=address,undefined")
  endif()
  add_test(NAME test_examples_installed_headers COMMAND ${CMAKE_COMMAND}
    -DPREFIX=${OLC_PACKAGE_PREFIX} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
    -DWORK=${PROJECT_BINARY_DIR}/tests/examples/installed_headers
    -DC_COMPILER=${CMAKE_C_COMPILER} -DCFLAGS=${ex_cflags}
    -DPROTOC_C=${OLC_PROTOC_C} -DONNX_PROTO_DIR=${OLC_ONNX_PROTO_DIR}
    -DPROTOBUF_C_INCLUDE=${OLC_PROTOBUF_C_INCLUDE} -DPROTOBUF_C_LIBRARY=${OLC_PROTOBUF_C_LIBRARY}
    -P ${CMAKE_CURRENT_LIST_DIR}/scripts/examples_installed.cmake)
  set_tests_properties(test_examples_installed_headers PROPERTIES
    LABELS "integration;examples" TIMEOUT 600 FIXTURES_REQUIRED olc_package)
endif()
