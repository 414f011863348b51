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
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(NOT WIN32)
  foreach(t IN ITEMS test_runtime_bind test_runtime_select test_runtime_execute
      test_runtime_threads test_runtime_buckets test_runtime_warm test_runtime_wait)
    if(NOT EXISTS ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
      continue()
    endif()
    olc_add_test(NAME ${t} LABELS integration HOOKS TIMEOUT 300
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/${t}.c ${CMAKE_CURRENT_LIST_DIR}/runtime_util.c)
    target_include_directories(${t} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
    target_compile_definitions(${t} PRIVATE OLC_MOCK_PLUGIN_ROOT="${OLC_MOCK_PLUGIN_ROOT}")
    target_link_libraries(${t} PRIVATE Threads::Threads)
    add_dependencies(${t} olc_mock_plugins)
    if(TARGET olc_worker)
      add_dependencies(${t} olc_worker)
    endif()
  endforeach()
endif()
