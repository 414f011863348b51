# The module graph declared in host/CMakeLists.txt against the code's
# includes and link graph (cmake/OlcCheckModules.cmake; the rules are in
# cmake/OlcModuleGraph.cmake).  It reads the objects with nm, so it needs a
# GNU-style nm and runs where the build does not cross-compile.
#
# Negative controls: each checks one fixture (a source file and its object,
# compiled here, never linked) as a file of a unit, or adds one DEPS entry,
# and passes only when the checker reports exactly the expected violations
# on top of the known ones ('|' separates them).
if(WIN32 OR CMAKE_CROSSCOMPILING OR NOT CMAKE_NM)
  return()
endif()

set(OLC_GRAPH_CHECK ${CMAKE_COMMAND} -DGRAPH=${PROJECT_BINARY_DIR}/olc_module_graph.cmake
  -DNM=${CMAKE_NM})
set(OLC_GRAPH_SCRIPT ${PROJECT_SOURCE_DIR}/cmake/OlcCheckModules.cmake)

add_test(NAME test_module_graph COMMAND ${OLC_GRAPH_CHECK} -DVERBOSE=1 -P ${OLC_GRAPH_SCRIPT})
set_tests_properties(test_module_graph PROPERTIES LABELS unit TIMEOUT 120)

set(OLC_GRAPH_FIXTURES ${CMAKE_CURRENT_LIST_DIR}/fixtures)

# nc_graph_<name>: fixture <name>.c checked as a file of unit, expecting
# the violations in expect.
function(olc_graph_control name unit expect)
  cmake_parse_arguments(G "" "FIXTURE;DEPS" "" ${ARGN})
  set(args -DINJECT_UNIT=${unit} -DEXPECT=${expect})
  if(G_FIXTURE)
    set(t olc_graph_fixture_${G_FIXTURE})
    if(NOT TARGET ${t})
      add_library(${t} OBJECT ${OLC_GRAPH_FIXTURES}/${G_FIXTURE}.c)
      target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/host/include
        ${PROJECT_SOURCE_DIR}/host/src ${PROJECT_SOURCE_DIR}/plugin-api/include)
      # As a module's own files are compiled (host/CMakeLists.txt).
      target_compile_definitions(${t} PRIVATE OLC_BUILDING _GNU_SOURCE)
      olc_target_warnings(${t})
    endif()
    list(APPEND args -DINJECT_SOURCES=${OLC_GRAPH_FIXTURES}/${G_FIXTURE}.c
      "-DINJECT_OBJECTS=$<JOIN:$<TARGET_OBJECTS:${t}>,|>")
  endif()
  if(G_DEPS)
    list(APPEND args -DINJECT_DEPS=${G_DEPS})
  endif()
  add_test(NAME nc_graph_${name} COMMAND ${OLC_GRAPH_CHECK} ${args} -P ${OLC_GRAPH_SCRIPT})
  set_tests_properties(nc_graph_${name} PROPERTIES TIMEOUT 120)
  set_property(TEST nc_graph_${name} PROPERTY LABELS unit negative)
endfunction()

olc_graph_control(internal_header format
  "format includes store/store_int.h, an internal header of store|format uses store without declaring it"
  FIXTURE internal_header)
olc_graph_control(undeclared_include format
  "format uses persist without declaring it" FIXTURE undeclared_include)
olc_graph_control(undeclared_call record
  "record calls persist's internal olc_persist__stat without including a header of persist|record uses persist without declaring it"
  FIXTURE undeclared_call)
olc_graph_control(unused_dep format "format declares persist but uses nothing of it" DEPS persist)
olc_graph_control(cycle util
  "util declares store but uses nothing of it|the declared graph has a cycle: util -> store -> util"
  DEPS store)
olc_graph_control(public_api cli
  "cli includes util/error.h: it may use the public API (olc/*.h) only|cli calls olc_error__set, which the library does not export"
  FIXTURE public_api)
set(OLC_GRAPH_PLATFORM "threads, clocks and the program's own files go through util/platform.h")
olc_graph_control(platform_call store
  "store uses the platform primitive Sleep: ${OLC_GRAPH_PLATFORM}|store uses the platform primitive pthread_mutex_t: ${OLC_GRAPH_PLATFORM}|store uses the platform primitive pthread_mutex_lock: ${OLC_GRAPH_PLATFORM}|store uses the platform primitive nanosleep: ${OLC_GRAPH_PLATFORM}|store uses the platform primitive pthread_mutex_unlock: ${OLC_GRAPH_PLATFORM}"
  FIXTURE platform_call)
if(TARGET olc_mod_config)
  olc_graph_control(forbidden_edge calibrate
    "calibrate declares config but uses nothing of it|calibrate uses config, which the declared graph forbids"
    DEPS config)
endif()
