# Hostile plugins, configs and files (issue 6, section 4): the plugins are
# tests/hostile/hostile_plugin.c built once per kind into
#   ${OLC_HOSTILE_PLUGIN_DIR}/hostile_<kind>.so
# (one directory; the test links them next to the loader's mock plugins).
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(WIN32)
  return()
endif()

set(OLC_HOSTILE_PLUGIN_DIR ${PROJECT_BINARY_DIR}/tests/hostile/plugins)
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

foreach(t IN ITEMS test_hostile_files test_hostile_perms test_hostile_limits
    test_hostile_targets test_hostile_plugin_dirs)
  if(NOT EXISTS ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
    continue()
  endif()
  olc_add_test(NAME ${t} SOURCES ${CMAKE_CURRENT_LIST_DIR}/${t}.c LABELS integration HOOKS
    MOCK_PLUGINS TIMEOUT 120)
  if(TARGET olc_cli)
    target_compile_definitions(${t} PRIVATE OLC_CLI_PATH="$<TARGET_FILE:olc_cli>")
    add_dependencies(${t} olc_cli)
  endif()
endforeach()

# Static side of "no environment override in a privileged process".
add_test(NAME test_hostile_getenv
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/check_getenv.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(test_hostile_getenv PROPERTIES LABELS unit TIMEOUT 60)

# The generation counter of P.lock under attack (issue 12 items 3, 4): one
# executable, one ctest per suite (the full file system one needs a mount
# namespace and exits 77 without it).
olc_add_test(NAME test_hostile_lockfile SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hostile_lockfile.c
  LABELS integration ARGS sabotage TIMEOUT 180)
foreach(suite IN ITEMS full replace replace_tmpfs)
  add_test(NAME test_hostile_lockfile_${suite} COMMAND test_hostile_lockfile ${suite})
  set_tests_properties(test_hostile_lockfile_${suite} PROPERTIES LABELS integration
    SKIP_RETURN_CODE 77 TIMEOUT 180)
endforeach()
# Without the check that the locked P.lock still has its name, writers on a
# replaced P.lock overlap often: the commit's exchange alone must keep every
# save (issue 37 item 13).
# Negative control: a plain rename that does not check what it replaced, and
# no relock check either: the replace suite must see saves lost.  Both on
# the build's disk (TMPDIR) and on a tmpfs.
foreach(suite IN ITEMS replace replace_tmpfs)
  add_test(NAME test_hostile_lockfile_${suite}_norelock COMMAND test_hostile_lockfile ${suite})
  set_tests_properties(test_hostile_lockfile_${suite}_norelock PROPERTIES LABELS integration
    ENVIRONMENT OLC_TEST_DISABLE=relock SKIP_RETURN_CODE 77 TIMEOUT 180)
  add_test(NAME test_hostile_lockfile_${suite}_neg_exchange COMMAND test_hostile_lockfile ${suite})
  set_tests_properties(test_hostile_lockfile_${suite}_neg_exchange PROPERTIES
    LABELS "integration;negative" ENVIRONMENT OLC_TEST_DISABLE=exchange,relock
    SKIP_RETURN_CODE 77 TIMEOUT 180)
endforeach()

# Leftover temporaries (issue 12 item 7): a dead writer's goes at once; an
# append-only directory names it (needs root and chattr +a: exit 77).
olc_add_test(NAME test_hostile_leftovers SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hostile_leftovers.c
  LABELS integration HOOKS ARGS gone TIMEOUT 120)
add_test(NAME test_hostile_leftovers_append COMMAND test_hostile_leftovers append)
set_tests_properties(test_hostile_leftovers_append PROPERTIES LABELS integration
  SKIP_RETURN_CODE 77 TIMEOUT 120)
