# cpu_gemm plugin tests: the core linked directly (residuals; general
# operands, bias and packed constants; policy codec and candidates), the
# probe against sysfs, the plugin through dlopen (its table, keys and
# buckets; execute, with 8 threads at once; ONNX MatMul and Gemm: layouts in
# the key, views, 16-bit types, bias, pack), a layout and its plain twin
# through the host library, and its imported/exported symbols.
if(TARGET olc_cpu_gemm_core)
  find_package(Threads REQUIRED)
  olc_add_test(NAME test_cpu_gemm_core
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cpu_gemm_core.c
    LIBS olc_cpu_gemm_core LABELS unit)
  olc_add_test(NAME test_cpu_gemm_general
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cpu_gemm_general.c
    LIBS olc_cpu_gemm_core LABELS unit)
  olc_add_test(NAME test_cpu_gemm_thin16
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cpu_gemm_thin16.c
    LIBS olc_cpu_gemm_core m LABELS unit)
  olc_add_test(NAME test_cpu_gemm_policy
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cpu_gemm_policy.c
    LIBS olc_cpu_gemm_core LABELS unit)
  olc_add_test(NAME test_cpu_gemm_probe
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cpu_gemm_probe.c
    LIBS olc_cpu_gemm_core LABELS unit)
  foreach(_t test_cpu_gemm_plugin test_cpu_gemm_execute test_cpu_gemm_onnx)
    olc_add_test(NAME ${_t}
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/${_t}.c ${CMAKE_CURRENT_LIST_DIR}/cg_plugin_host.c
      LIBS olc_stub_host Threads::Threads ${CMAKE_DL_LIBS} LABELS integration)
    target_compile_definitions(${_t} PRIVATE CG_TEST_PLUGIN="$<TARGET_FILE:cpu_gemm>")
    add_dependencies(${_t} cpu_gemm)
  endforeach()
  if(NOT WIN32)
    olc_add_test(NAME test_cpu_gemm_records
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cpu_gemm_records.c
      LABELS integration TIMEOUT 300
      DEFINES OLC_PLUGIN_DIR="$<TARGET_FILE_DIR:cpu_gemm>"
      DEPENDS cpu_gemm)
  endif()
  if(CMAKE_NM AND NOT WIN32 AND NOT APPLE)
    add_test(NAME test_cpu_gemm_symbols
      COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/check_symbols.sh ${CMAKE_NM} $<TARGET_FILE:cpu_gemm>)
    set_tests_properties(test_cpu_gemm_symbols PROPERTIES LABELS unit
      SKIP_RETURN_CODE 77 TIMEOUT 60)
  endif()
endif()
