# The declared module graph, written for the test that holds it against the
# code (tests/graph, cmake/OlcCheckModules.cmake).
#
# A unit is a module (host/src/<name>, declared by olc_module) or a program
# built on the library (olc_program).  Its DEPS name every module its code
# uses directly, and no other: a module it includes a header of, or calls a
# function of.  Using a module only through another one does not count, so a
# unit that calls olc_recset__* itself declares record even when store
# brings record along.  The public headers (olc/*.h) are the contract shared
# by all and belong to no module; calls into a module through them count
# through the link graph.
#
# olc_program(name DIR dir TARGET target (DEPS module... | PUBLIC_API))
#   declares a program: PUBLIC_API for one that may use the public API
#   only (olc/*.h, and the functions the shared library exports).
# olc_graph_forbid(unit module)
#   an edge the graph must not have, declared or not: a unit that reaches
#   the module for what another module gives it (calibrate finds the
#   program's directories through util, not config).
# olc_graph_known(text...)
#   violations the tree has today, each the exact text the checker prints;
#   the test fails on any other violation and on a listed one that is gone,
#   so each entry is removed by the change that fixes it.

function(olc_graph_add name kind dir target deps)
  set_property(GLOBAL APPEND PROPERTY OLC_GRAPH_UNITS ${name})
  set_property(GLOBAL PROPERTY OLC_GRAPH_${name}_KIND ${kind})
  set_property(GLOBAL PROPERTY OLC_GRAPH_${name}_DIR ${dir})
  set_property(GLOBAL PROPERTY OLC_GRAPH_${name}_TARGET ${target})
  set_property(GLOBAL PROPERTY OLC_GRAPH_${name}_DEPS "${deps}")
endfunction()

function(olc_program name)
  cmake_parse_arguments(P "PUBLIC_API" "DIR;TARGET" "DEPS" ${ARGN})
  if(P_PUBLIC_API)
    if(P_DEPS)
      message(FATAL_ERROR "olc_program(${name}): PUBLIC_API takes no DEPS")
    endif()
    olc_graph_add(${name} public ${P_DIR} ${P_TARGET} "")
  else()
    olc_graph_add(${name} program ${P_DIR} ${P_TARGET} "${P_DEPS}")
  endif()
endfunction()

function(olc_graph_forbid unit module)
  set_property(GLOBAL APPEND PROPERTY OLC_GRAPH_FORBID "${unit}:${module}")
endfunction()

function(olc_graph_known)
  set_property(GLOBAL APPEND PROPERTY OLC_GRAPH_KNOWN ${ARGN})
endfunction()

# Writes ${PROJECT_BINARY_DIR}/olc_module_graph.cmake at generate time (the
# object lists are generator expressions).  Called deferred, at the end of
# the top-level directory, when every target exists.
function(olc_write_module_graph)
  get_property(units GLOBAL PROPERTY OLC_GRAPH_UNITS)
  get_property(known GLOBAL PROPERTY OLC_GRAPH_KNOWN)
  get_property(forbid GLOBAL PROPERTY OLC_GRAPH_FORBID)
  set(text "# The module graph declared in host/CMakeLists.txt, written by CMake\n")
  string(APPEND text "# (cmake/OlcModuleGraph.cmake) for cmake/OlcCheckModules.cmake.\n")
  set(written)
  foreach(u IN LISTS units)
    get_property(kind GLOBAL PROPERTY OLC_GRAPH_${u}_KIND)
    get_property(dir GLOBAL PROPERTY OLC_GRAPH_${u}_DIR)
    get_property(target GLOBAL PROPERTY OLC_GRAPH_${u}_TARGET)
    get_property(deps GLOBAL PROPERTY OLC_GRAPH_${u}_DEPS)
    if(NOT TARGET ${target})
      continue() # a program this configuration does not build
    endif()
    list(APPEND written ${u})
    string(APPEND text "set(OLC_GRAPH_${u}_KIND ${kind})\n"
      "set(OLC_GRAPH_${u}_DIR \"${dir}\")\n"
      "set(OLC_GRAPH_${u}_DEPS \"${deps}\")\n"
      "set(OLC_GRAPH_${u}_OBJECTS \"$<TARGET_OBJECTS:${target}>\")\n")
    if(TARGET ${target}_th)
      string(APPEND text "list(APPEND OLC_GRAPH_${u}_OBJECTS \"$<TARGET_OBJECTS:${target}_th>\")\n")
    endif()
  endforeach()
  string(APPEND text "set(OLC_GRAPH_UNITS \"${written}\")\n")
  string(APPEND text "set(OLC_GRAPH_KNOWN \"${known}\")\n")
  string(APPEND text "set(OLC_GRAPH_FORBID \"${forbid}\")\n")
  if(TARGET olc)
    string(APPEND text "set(OLC_GRAPH_LIBRARY \"$<TARGET_FILE:olc>\")\n")
  endif()
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/olc_module_graph.cmake CONTENT "${text}")
endfunction()

cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL olc_write_module_graph)
