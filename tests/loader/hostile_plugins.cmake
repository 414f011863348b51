# Hostile plugins (issue 6, section 4; hostile_plugins.md): the plugins are
# tests/loader/hostile_plugin.c built once per kind into
#   ${OLC_HOSTILE_PLUGIN_DIR}/hostile_<kind>.so
# (one directory; the test links them next to the loader's mock plugins).
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(WIN32)
  return()
endif()

set(OLC_HOSTILE_PLUGIN_DIR ${PROJECT_BINARY_DIR}/tests/loader/hostile_plugins)
add_custom_target(olc_hostile_plugins)

# olc_hostile_plugin(<kind> [DEFINITIONS...]): hostile_<kind>.so, plugin name
# hostile_<kind>.
function(olc_hostile_plugin kind)
  set(t olc_hostile_${kind})
  add_library(${t} MODULE ${CMAKE_CURRENT_LIST_DIR}/hostile_plugin.c)
  set_target_properties(${t} PROPERTIES PREFIX "" OUTPUT_NAME hostile_${kind}
    LIBRARY_OUTPUT_DIRECTORY $<1:${OLC_HOSTILE_PLUGIN_DIR}>
    C_VISIBILITY_PRESET hidden)
  target_link_libraries(${t} PRIVATE olc::plugin_api)
  # mock_scaffold.h, the test plugins' shared scaffold.
  target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/tests/plugins)
  target_compile_definitions(${t} PRIVATE HOSTILE_NAME="hostile_${kind}" ${ARGN})
  olc_target_warnings(${t})
  add_dependencies(olc_hostile_plugins ${t})
endfunction()

# Load time.
olc_hostile_plugin(null_table HOSTILE_NULL_TABLE)
olc_hostile_plugin(entry_status HOSTILE_ENTRY_STATUS)
olc_hostile_plugin(long_name HOSTILE_LONG_NAME)
olc_hostile_plugin(empty_name HOSTILE_EMPTY_NAME)
olc_hostile_plugin(null_operators HOSTILE_NULL_OPERATORS)
olc_hostile_plugin(many_operators HOSTILE_MANY_OPERATORS)
olc_hostile_plugin(bad_operator HOSTILE_BAD_OPERATOR)
olc_hostile_plugin(no_version HOSTILE_NO_VERSION)
olc_hostile_plugin(create_no_detail HOSTILE_CREATE_NO_DETAIL)
olc_hostile_plugin(log_flood HOSTILE_LOG_FLOOD)
olc_hostile_plugin(stdout HOSTILE_STDOUT)
# Run time (one workload each).
olc_hostile_plugin(key_fails HOSTILE_KEY_FAILS)
olc_hostile_plugin(key_no_processor HOSTILE_KEY_NO_PROCESSOR)
olc_hostile_plugin(key_huge HOSTILE_KEY_HUGE)
olc_hostile_plugin(key_zero_threads HOSTILE_KEY_ZERO_THREADS)
olc_hostile_plugin(candidates_fail HOSTILE_CANDIDATES_FAIL)
olc_hostile_plugin(dup_candidates HOSTILE_DUP_CANDIDATES)
olc_hostile_plugin(serialize_null HOSTILE_SERIALIZE_NULL)
olc_hostile_plugin(validate_garbage HOSTILE_VALIDATE_GARBAGE)
olc_hostile_plugin(validate_rejects_own HOSTILE_VALIDATE_REJECTS_OWN)
olc_hostile_plugin(prepare_fails HOSTILE_PREPARE_FAILS)
olc_hostile_plugin(run_fails HOSTILE_RUN_FAILS)
olc_hostile_plugin(run_status HOSTILE_RUN_STATUS)
olc_hostile_plugin(error_abuse HOSTILE_ERROR_ABUSE)
olc_hostile_plugin(flops_inf HOSTILE_FLOPS_INF)

olc_add_test(NAME test_hostile_plugins SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hostile_plugins.c
  LABELS integration HOOKS MOCK_PLUGINS TIMEOUT 120
  DEFINES OLC_HOSTILE_PLUGIN_DIR="${OLC_HOSTILE_PLUGIN_DIR}" DEPENDS olc_hostile_plugins)

# Plugin directories a user other than the owner could change (issue 12
# item 6), through the public API.
olc_add_test(NAME test_hostile_plugin_dirs
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hostile_plugin_dirs.c
  LABELS integration HOOKS MOCK_PLUGINS TIMEOUT 120)
if(TARGET olc_cli)
  target_compile_definitions(test_hostile_plugin_dirs PRIVATE OLC_CLI_PATH="$<TARGET_FILE:olc_cli>")
  add_dependencies(test_hostile_plugin_dirs olc_cli)
endif()
