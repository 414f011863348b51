# Tests of the example_gpu plugin (plugins/example_gpu).  Only when the
# plugin is built (OpenCL found).  Device-dependent tests exit 77 (skipped)
# when no OpenCL device exists.
if(TARGET example_gpu)
  find_package(OpenCL QUIET) # imported targets are per directory
  set(EGPU_DIR ${PROJECT_SOURCE_DIR}/plugins/example_gpu)
  set(EGPU_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})

  # Through dlopen, on the machine's device.
  olc_add_test(NAME test_example_gpu
    SOURCES ${EGPU_TEST_DIR}/test_example_gpu.c
    LIBS olc_stub_host OpenCL::OpenCL ${CMAKE_DL_LIBS} m
    LABELS unit TIMEOUT 120)
  target_include_directories(test_example_gpu PRIVATE ${EGPU_DIR} ${EGPU_TEST_DIR})
  target_compile_definitions(test_example_gpu PRIVATE CL_TARGET_OPENCL_VERSION=120
    EGPU_PLUGIN_PATH="$<TARGET_FILE:example_gpu>")
  add_dependencies(test_example_gpu example_gpu)

  # execute (ABI 1.1): every candidate against a reference, refusals, threads.
  find_package(Threads REQUIRED)
  olc_add_test(NAME test_example_gpu_execute
    SOURCES ${EGPU_TEST_DIR}/test_example_gpu_execute.c
    LIBS olc_stub_host OpenCL::OpenCL Threads::Threads ${CMAKE_DL_LIBS} m
    LABELS unit TIMEOUT 300)
  target_include_directories(test_example_gpu_execute PRIVATE ${EGPU_DIR} ${EGPU_TEST_DIR})
  target_compile_definitions(test_example_gpu_execute PRIVATE CL_TARGET_OPENCL_VERSION=120
    EGPU_PLUGIN_PATH="$<TARGET_FILE:example_gpu>")
  add_dependencies(test_example_gpu_execute example_gpu)

  # ONNX MatMul and Gemm as runtimes describe them (ABI 1.3 views): Gemm's
  # transposes and bias, batched MatMul, the key of each layout, prepare/run.
  olc_add_test(NAME test_example_gpu_onnx
    SOURCES ${EGPU_TEST_DIR}/test_example_gpu_onnx.c
    LIBS olc_stub_host OpenCL::OpenCL ${CMAKE_DL_LIBS} m
    LABELS unit TIMEOUT 300)
  target_include_directories(test_example_gpu_onnx PRIVATE ${EGPU_DIR} ${EGPU_TEST_DIR})
  target_compile_definitions(test_example_gpu_onnx PRIVATE CL_TARGET_OPENCL_VERSION=120
    EGPU_PLUGIN_PATH="$<TARGET_FILE:example_gpu>")
  add_dependencies(test_example_gpu_onnx example_gpu)

  # The policy codec, its rules and device limits, with made-up limits: no device needed.
  olc_add_test(NAME test_example_gpu_policy
    SOURCES ${EGPU_TEST_DIR}/test_example_gpu_policy.c ${EGPU_DIR}/egpu_policy.c
            ${EGPU_DIR}/egpu_plugin.c ${EGPU_DIR}/egpu_workload.c ${EGPU_DIR}/egpu_source.c
            ${EGPU_DIR}/egpu_kernel.c ${EGPU_DIR}/egpu_execute.c
    LIBS olc_stub_host OpenCL::OpenCL Threads::Threads
    LABELS unit)
  target_include_directories(test_example_gpu_policy PRIVATE ${EGPU_DIR} ${EGPU_TEST_DIR})
  target_compile_definitions(test_example_gpu_policy PRIVATE CL_TARGET_OPENCL_VERSION=120)

  # No OpenCL platform (an empty vendors directory): create says unavailable.
  olc_add_test(NAME test_example_gpu_unavailable
    SOURCES ${EGPU_TEST_DIR}/test_example_gpu_unavailable.c
    LIBS olc_stub_host ${CMAKE_DL_LIBS}
    LABELS unit)
  target_include_directories(test_example_gpu_unavailable PRIVATE ${EGPU_TEST_DIR})
  target_compile_definitions(test_example_gpu_unavailable PRIVATE
    EGPU_PLUGIN_PATH="$<TARGET_FILE:example_gpu>")
  add_dependencies(test_example_gpu_unavailable example_gpu)

  # Imported symbols: no file-system call; exported: olc_plugin_entry only.
  find_program(OLC_NM NAMES nm llvm-nm)
  add_test(NAME test_example_gpu_symbols
    COMMAND ${CMAKE_COMMAND} -DNM=${OLC_NM} -DPLUGIN=$<TARGET_FILE:example_gpu>
            -P ${EGPU_TEST_DIR}/scripts/check_symbols.cmake)
  set_tests_properties(test_example_gpu_symbols PROPERTIES LABELS unit TIMEOUT 60)
  # The same check on the ICD loader, which does read files: it must notice.
  if(OpenCL_LIBRARY AND EXISTS "${OpenCL_LIBRARY}")
    add_test(NAME test_example_gpu_symbols_selfcheck
      COMMAND ${CMAKE_COMMAND} -DNM=${OLC_NM} -DPLUGIN=${OpenCL_LIBRARY} -DEXPECT_FORBIDDEN=ON
              -P ${EGPU_TEST_DIR}/scripts/check_symbols.cmake)
    set_tests_properties(test_example_gpu_symbols_selfcheck PROPERTIES LABELS unit TIMEOUT 60)
  endif()
endif()

# Under the real host: loaded, calibrated, saved, selected again; and with no
# OpenCL platform (an empty vendors directory), reported unavailable.
if(TARGET example_gpu AND TARGET olc)
  set(EGPU_EMPTY_VENDORS ${CMAKE_CURRENT_BINARY_DIR}/egpu_empty_vendors)
  file(MAKE_DIRECTORY ${EGPU_EMPTY_VENDORS})
  olc_add_test(NAME test_example_gpu_host
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_example_gpu_host.c
    LIBS OpenCL::OpenCL
    ARGS host
    LABELS integration TIMEOUT 120)
  target_compile_definitions(test_example_gpu_host PRIVATE CL_TARGET_OPENCL_VERSION=120
    EGPU_PLUGIN_DIR="$<TARGET_FILE_DIR:example_gpu>")
  add_dependencies(test_example_gpu_host example_gpu)
  add_test(NAME test_example_gpu_host_unavailable COMMAND test_example_gpu_host unavailable)
  set_tests_properties(test_example_gpu_host_unavailable PROPERTIES LABELS integration
    TIMEOUT 60 ENVIRONMENT "OCL_ICD_VENDORS=${EGPU_EMPTY_VENDORS};OPENCL_VENDOR_PATH=${EGPU_EMPTY_VENDORS}")
endif()
