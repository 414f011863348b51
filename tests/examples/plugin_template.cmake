# examples/plugin_template (template_matmul.so): driven through the ABI by a
# local host (test_plugin_template), checked for file-system imports, and
# loaded and calibrated by the olc tool with a configuration that points at
# its directory (test_plugin_template_cli).  The installed copy of the
# template is built and calibrated by test_package_plugin_only.
if(TARGET template_matmul AND NOT WIN32)
  find_package(Threads REQUIRED)
  olc_add_test(NAME test_plugin_template LABELS integration TIMEOUT 120
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_plugin_template.c
    LIBS olc_stub_host Threads::Threads ${CMAKE_DL_LIBS})
  target_compile_definitions(test_plugin_template PRIVATE
    TEMPLATE_PLUGIN="$<TARGET_FILE:template_matmul>")
  add_dependencies(test_plugin_template template_matmul)

  if(CMAKE_NM AND NOT APPLE)
    add_test(NAME test_plugin_template_symbols
      COMMAND sh ${PROJECT_SOURCE_DIR}/tests/cpu_gemm/check_symbols.sh ${CMAKE_NM}
              $<TARGET_FILE:template_matmul>)
    set_tests_properties(test_plugin_template_symbols PROPERTIES LABELS unit
      SKIP_RETURN_CODE 77 TIMEOUT 60)
  endif()

  if(TARGET olc_cli)
    add_test(NAME test_plugin_template_cli COMMAND ${CMAKE_COMMAND}
      -DOLC=$<TARGET_FILE:olc_cli> -DPLUGIN_DIR=$<TARGET_FILE_DIR:template_matmul>
      -DWORK=${CMAKE_CURRENT_BINARY_DIR}/plugin_template_cli
      -P ${CMAKE_CURRENT_LIST_DIR}/scripts/calibrate_template.cmake)
    set_tests_properties(test_plugin_template_cli PROPERTIES LABELS integration TIMEOUT 300)
  endif()
endif()
