# cpu_gemm plugin tests: the core linked directly (residuals, policy codec,
# candidates), the probe against sysfs, the plugin through dlopen and its
# imported/exported symbols.
if(TARGET olc_cpu_gemm_core)
  olc_add_test(NAME test_cpu_gemm_core
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cpu_gemm_core.c
    LIBS olc_cpu_gemm_core LABELS unit)
  olc_add_test(NAME test_cpu_gemm_probe
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cpu_gemm_probe.c
    LIBS olc_cpu_gemm_core LABELS unit)
  olc_add_test(NAME test_cpu_gemm_plugin
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cpu_gemm_plugin.c
    LIBS olc::plugin_api ${CMAKE_DL_LIBS} LABELS integration)
  target_compile_definitions(test_cpu_gemm_plugin PRIVATE
    CG_TEST_PLUGIN="$<TARGET_FILE:cpu_gemm>")
  add_dependencies(test_cpu_gemm_plugin cpu_gemm)
  if(CMAKE_NM AND NOT WIN32 AND NOT APPLE)
    add_test(NAME test_cpu_gemm_symbols
      COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/check_symbols.sh ${CMAKE_NM} $<TARGET_FILE:cpu_gemm>)
    set_tests_properties(test_cpu_gemm_symbols PROPERTIES LABELS "unit;integration"
      SKIP_RETURN_CODE 77 TIMEOUT 60)
  endif()
endif()
