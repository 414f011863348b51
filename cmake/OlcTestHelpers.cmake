# Helpers of the test fragments (tests/*/*.cmake), included once from
# tests/CMakeLists.txt.
include_guard(GLOBAL)

# olc_add_test(NAME name SOURCES ... [LIBS ...] [LABELS ...] [ARGS ...]
#              [ENV ...] [TIMEOUT s] [HOOKS] [MOCK_PLUGINS] [CLI] [WORKER]
#              [INCLUDES ...] [DEFINES ...] [DEPENDS ...])
#   builds a test executable (CUnit is linked in) and registers it with
#   ctest.  Every test links the static olc_testhooks library (all modules
#   with fault hooks, internals reachable); HOOKS is accepted to mark tests
#   that use internals, while integration tests keep to the public headers.
#   The public shared library itself is exercised by tests/package and the
#   CLI tests.  Exit code 77 means "skipped".
#   MOCK_PLUGINS  the test finds the mock plugins under OLC_MOCK_PLUGIN_ROOT
#                 (the fragment includes tests/plugins/mock_plugins.cmake)
#   CLI           the test drives the built olc: tests/cli/cli_test_util.c,
#                 OLC_CLI_PATH, and olc built first
#   WORKER        olc-worker is built first where it exists
#   INCLUDES, DEFINES, DEPENDS  private include directories, compile
#                 definitions and targets built first
function(olc_add_test)
  cmake_parse_arguments(T "HOOKS;MOCK_PLUGINS;CLI;WORKER" "NAME;TIMEOUT"
    "SOURCES;LIBS;LABELS;ARGS;ENV;INCLUDES;DEFINES;DEPENDS" ${ARGN})
  if(T_CLI)
    list(APPEND T_SOURCES ${PROJECT_SOURCE_DIR}/tests/cli/cli_test_util.c)
    list(APPEND T_INCLUDES ${PROJECT_SOURCE_DIR}/tests/cli)
    list(APPEND T_DEFINES OLC_CLI_PATH="$<TARGET_FILE:olc_cli>")
    list(APPEND T_DEPENDS olc_cli)
  endif()
  if(T_MOCK_PLUGINS)
    if(NOT OLC_MOCK_PLUGIN_ROOT)
      message(FATAL_ERROR "${T_NAME}: MOCK_PLUGINS needs tests/plugins/mock_plugins.cmake included")
    endif()
    list(APPEND T_DEFINES OLC_MOCK_PLUGIN_ROOT="${OLC_MOCK_PLUGIN_ROOT}")
    list(APPEND T_DEPENDS olc_mock_plugins)
  endif()
  if(T_WORKER AND TARGET olc_worker)
    list(APPEND T_DEPENDS olc_worker)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE olc_test_support ${T_LIBS})
  if(NOT WIN32)
    target_compile_definitions(${T_NAME} PRIVATE _GNU_SOURCE)
  endif()
  if(T_INCLUDES)
    target_include_directories(${T_NAME} PRIVATE ${T_INCLUDES})
  endif()
  if(T_DEFINES)
    target_compile_definitions(${T_NAME} PRIVATE ${T_DEFINES})
  endif()
  if(T_DEPENDS)
    add_dependencies(${T_NAME} ${T_DEPENDS})
  endif()
  olc_target_warnings(${T_NAME})
  add_test(NAME ${T_NAME} COMMAND ${T_NAME} ${T_ARGS})
  set(props SKIP_RETURN_CODE 77)
  if(T_TIMEOUT)
    list(APPEND props TIMEOUT ${T_TIMEOUT})
  else()
    list(APPEND props TIMEOUT 300)
  endif()
  set_tests_properties(${T_NAME} PROPERTIES ${props})
  if(T_LABELS)
    # set_property keeps a list of labels intact (a props list would split it).
    set_property(TEST ${T_NAME} PROPERTY LABELS ${T_LABELS})
  endif()
  if(T_ENV)
    set_property(TEST ${T_NAME} APPEND PROPERTY ENVIRONMENT ${T_ENV})
  endif()
endfunction()

# olc_negative_control(name test env [ARGS...]): reruns the program of test
# with env (one safety step switched off in the test build) as the unit test
# name, which passes only when that program then FAILS.  The test's target
# may be defined by a later fragment: add_test resolves target names when
# the build system is generated.
function(olc_negative_control name test env)
  add_test(NAME ${name} COMMAND ${test} ${ARGN})
  set_tests_properties(${name} PROPERTIES WILL_FAIL TRUE ENVIRONMENT "${env}" TIMEOUT 120)
  set_property(TEST ${name} PROPERTY LABELS unit negative)
endfunction()

# olc_enable_cxx(): enables C++ where a compiler exists (the clang++ next to
# clang when C is clang, so that sanitizer runtimes match); CMAKE_CXX_COMPILER
# is false afterwards where there is none.  A macro: enable_language() must
# not run inside a function.
macro(olc_enable_cxx)
  include(CheckLanguage)
  if(NOT CMAKE_CXX_COMPILER AND CMAKE_C_COMPILER_ID MATCHES "Clang")
    get_filename_component(_olc_cdir "${CMAKE_C_COMPILER}" DIRECTORY)
    find_program(OLC_CLANGXX NAMES clang++ HINTS "${_olc_cdir}" NO_DEFAULT_PATH)
    if(OLC_CLANGXX)
      set(CMAKE_CXX_COMPILER "${OLC_CLANGXX}" CACHE FILEPATH "C++ compiler (matches clang)")
    endif()
  endif()
  check_language(CXX)
  if(CMAKE_CXX_COMPILER)
    enable_language(CXX)
  endif()
endmacro()

# olc_cxx_test_options(<target> <standard>): a C++ test built as that
# standard, without extensions, with the project's C++ warnings.
function(olc_cxx_test_options target standard)
  set_target_properties(${target} PROPERTIES CXX_STANDARD ${standard} CXX_STANDARD_REQUIRED ON
    CXX_EXTENSIONS OFF)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion>)
  endif()
endfunction()
