# The runtime path of the host (olc_host_bind, olc_binding_select,
# olc_host_select, olc_selection_execute) against the mock plugins of
# tests/plugins; runtime_util.c opens the hosts they share.
#   test_runtime_bind      bad input, the identity of each workload
#   test_runtime_select    never/on_miss, legacy records, a second start,
#                          scoped rejections, failures, bad options
#   test_runtime_warm      a warm select allocates nothing and makes no
#                          system call
#   test_runtime_execute   the tensor checks, MatMul against a reference,
#                          ABI 1.0 and plugins without execute
#   test_runtime_wait      waits that time out or are cancelled, a waiter
#                          that gets the measurement; measuring in olc-worker
#   test_runtime_threads   8 threads selecting and executing over many
#                          workloads and keys (tests/sanitize/tsan.sh)
#   test_runtime_buckets   200 sizes of m through a bucketing plugin
#   test_runtime_identity  no property dropped from the identity: refusals,
#                          a layout and its plain twin, stored records kept
#   test_runtime_nearest   the nearest measured workload's policy on a miss
#                          (default and plugin distance, on_miss waiters)
#   test_runtime_layers    [store] verify_layers = on_first_use
#   test_runtime_matmul    plain MatMuls reach the plugin's matmul_f32
#                          (ABI 1.5), everything else execute
#   test_runtime_constants constant inputs packed once per selection,
#                          olc_binding_execute, a new selection while 8
#                          threads execute (tests/sanitize/tsan.sh)
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(NOT WIN32)
  foreach(t IN ITEMS test_runtime_bind test_runtime_select test_runtime_execute
      test_runtime_threads test_runtime_buckets test_runtime_warm test_runtime_wait
      test_runtime_identity test_runtime_constants test_runtime_nearest
      test_runtime_layers test_runtime_matmul)
    if(NOT EXISTS ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
      continue()
    endif()
    olc_add_test(NAME ${t} LABELS integration HOOKS TIMEOUT 300 MOCK_PLUGINS WORKER
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/${t}.c ${CMAKE_CURRENT_LIST_DIR}/runtime_util.c
      INCLUDES ${CMAKE_CURRENT_LIST_DIR} LIBS Threads::Threads ${CMAKE_DL_LIBS})
  endforeach()
endif()

# examples/runtime_integration, as the package installs it
# (share/onnx-light/runtime_integration), built as a separate project against the
# installed package (the olc_package fixture's prefix, moved after the
# install) and started twice from outside the prefix without OLC_WORKER:
# calibrating needs olc-worker, which only the lookup next to the installed
# library (<libdir>/../libexec/olc) finds.
include(${CMAKE_CURRENT_LIST_DIR}/../package/package.cmake)
if(TARGET runtime_integration AND OLC_PACKAGE_PREFIX AND NOT OLC_TSAN)
  set(rt_cflags "")
  if(OLC_SANITIZE)
    set(rt_cflags "-fsanitize=address,undefined")
  endif()
  add_test(NAME example_runtime_integration_installed COMMAND ${CMAKE_COMMAND}
    -DSOURCE_DIR=${OLC_PACKAGE_PREFIX}/share/onnx-light/runtime_integration
    -DPREFIX=${OLC_PACKAGE_PREFIX} -DC_COMPILER=${CMAKE_C_COMPILER} -DGENERATOR=${CMAKE_GENERATOR}
    -DCFLAGS=${rt_cflags} -DWORK=${PROJECT_BINARY_DIR}/tests/host/installed
    -P ${PROJECT_SOURCE_DIR}/examples/runtime_integration/run_twice.cmake)
  set_tests_properties(example_runtime_integration_installed PROPERTIES
    LABELS "integration;examples" TIMEOUT 600 FIXTURES_REQUIRED olc_package SKIP_REGULAR_EXPRESSION "skipped:")
endif()
