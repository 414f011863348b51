# Crash isolation of the calibrate loop (host/src/calibrate/isolate.h,
# host/worker/): the wire protocol (unit), and measure sessions against
# tests/calibrate/mock_crash.c, whose run() segfaults, aborts, hangs, spins
# or exits for chosen candidates (integration).  POSIX only: Windows
# measures in-process.
olc_add_test(NAME test_isolation_wire
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_isolation_wire.c
  LABELS unit HOOKS TIMEOUT 30)

if(NOT WIN32 AND TARGET olc_worker)
  set(OLC_CRASH_PLUGIN_ROOT ${PROJECT_BINARY_DIR}/tests/calibrate/crash_plugins)
  add_custom_target(olc_crash_plugins)
  # olc_crash_plugin(<scenario> [DEFINITIONS...]): mock_crash.so in its own
  # directory ${OLC_CRASH_PLUGIN_ROOT}/<scenario>.
  function(olc_crash_plugin scenario)
    set(t olc_crash_${scenario})
    add_library(${t} MODULE ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/mock_crash.c)
    set_target_properties(${t} PROPERTIES PREFIX "" OUTPUT_NAME mock_crash
      LIBRARY_OUTPUT_DIRECTORY $<1:${OLC_CRASH_PLUGIN_ROOT}/${scenario}>
      C_VISIBILITY_PRESET hidden)
    target_link_libraries(${t} PRIVATE olc::plugin_api)
    # mock_scaffold.h, the test plugins' shared scaffold.
    target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/tests/plugins)
    target_compile_definitions(${t} PRIVATE ${ARGN})
    olc_target_warnings(${t})
    add_dependencies(olc_crash_plugins ${t})
  endfunction()
  # Configured by [plugin.mock_crash] entries.
  olc_crash_plugin(crash)
  # Segfaults on candidate 101 of 400,101,200 with no config at all.
  olc_crash_plugin(segv MOCK_CRASH_DEFAULT="segv=101")

  olc_add_test(NAME test_isolation
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_isolation.c
    LABELS integration HOOKS TIMEOUT 60)
  target_compile_definitions(test_isolation PRIVATE
    OLC_CRASH_PLUGIN_ROOT="${OLC_CRASH_PLUGIN_ROOT}"
    OLC_TEST_WORKER="$<TARGET_FILE:olc_worker>")
  add_dependencies(test_isolation olc_crash_plugins olc_worker)

  # The same through olc_host_calibrate (the public loop).
  olc_add_test(NAME test_isolation_loop
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_isolation_loop.c
    LABELS integration HOOKS TIMEOUT 60)
  target_compile_definitions(test_isolation_loop PRIVATE
    OLC_CRASH_PLUGIN_ROOT="${OLC_CRASH_PLUGIN_ROOT}")
  add_dependencies(test_isolation_loop olc_crash_plugins olc_worker)
endif()
