# Mock plugins: tests/plugins/mock_plugin.c built into one MODULE library
# per scenario, each into its own directory
#   ${OLC_MOCK_PLUGIN_ROOT}/<scenario>/<file>
# so a test points the loader at exactly the files it wants.  See README.md.
#
# A fragment that uses these variables includes this file first (the test
# fragments are included in sorted order):
#   include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
# and passes MOCK_PLUGINS to olc_add_test (OLC_MOCK_PLUGIN_ROOT, built
# first), or makes its test depend on the target olc_mock_plugins.
include_guard(GLOBAL)

set(OLC_MOCK_PLUGIN_SOURCE ${CMAKE_CURRENT_LIST_DIR}/mock_plugin.c)
set(OLC_MOCK_PLUGIN_ROOT ${PROJECT_BINARY_DIR}/tests/plugins)
# mock_det alone (implementation "1"): the deterministic test backend.
set(OLC_MOCK_PLUGIN_DIR_GOOD ${OLC_MOCK_PLUGIN_ROOT}/good)
# mock_det alone, implementation "2" (outdated-implementation scenarios).
set(OLC_MOCK_PLUGIN_DIR_GOOD_V2 ${OLC_MOCK_PLUGIN_ROOT}/good_v2)

add_custom_target(olc_mock_plugins)

# olc_mock_plugin(<scenario> <file stem> <plugin name> [DEFINITIONS...])
function(olc_mock_plugin scenario stem name)
  set(t olc_mock_${scenario}_${stem})
  add_library(${t} MODULE ${OLC_MOCK_PLUGIN_SOURCE})
  # $<1:...> keeps multi-config generators from adding a Debug/ level.
  set_target_properties(${t} PROPERTIES PREFIX "" OUTPUT_NAME ${stem}
    LIBRARY_OUTPUT_DIRECTORY $<1:${OLC_MOCK_PLUGIN_ROOT}/${scenario}>
    C_VISIBILITY_PRESET hidden)
  target_link_libraries(${t} PRIVATE olc::plugin_api)
  target_compile_definitions(${t} PRIVATE MOCK_NAME="${name}" ${ARGN})
  olc_target_warnings(${t})
  add_dependencies(olc_mock_plugins ${t})
endfunction()

olc_mock_plugin(good mock_det mock_det)
olc_mock_plugin(good_v2 mock_det mock_det MOCK_VERSION="2")
olc_mock_plugin(behave mock_behave mock_behave)
olc_mock_plugin(no_entry mock_no_entry mock_no_entry MOCK_NO_ENTRY)
olc_mock_plugin(entry_error mock_entry_error mock_entry_error MOCK_ENTRY_ERROR)
olc_mock_plugin(wrong_major mock_wrong_major mock_wrong_major MOCK_WRONG_MAJOR)
olc_mock_plugin(table_major mock_table_major mock_table_major MOCK_TABLE_MAJOR)
olc_mock_plugin(newer_minor mock_newer_minor mock_newer_minor MOCK_NEWER_MINOR)
olc_mock_plugin(too_small mock_too_small mock_too_small MOCK_STRUCT_TOO_SMALL)
olc_mock_plugin(null_required mock_null_required mock_null_required MOCK_NULL_REQUIRED)
olc_mock_plugin(bad_name mock_bad_name "Mock-Bad")
olc_mock_plugin(bad_utf8_name mock_bad_utf8_name mock_bad_utf8_name MOCK_BAD_UTF8_NAME)
olc_mock_plugin(no_operators mock_no_operators mock_no_operators MOCK_NO_OPERATORS)
olc_mock_plugin(create_fails mock_create_fails mock_create_fails MOCK_CREATE_FAILS)
olc_mock_plugin(create_unavailable mock_create_unavailable mock_create_unavailable
  MOCK_CREATE_UNAVAILABLE)
olc_mock_plugin(duplicate mock_dup_a mock_dup)
olc_mock_plugin(duplicate mock_dup_b mock_dup)
olc_mock_plugin(abi_1_0 mock_v10 mock_v10 MOCK_ABI_1_0)
olc_mock_plugin(no_execute mock_noexec mock_noexec MOCK_NO_EXECUTE)
olc_mock_plugin(bad_tolerance mock_bad_tol mock_bad_tol MOCK_BAD_TOLERANCE)
olc_mock_plugin(prints mock_prints mock_prints MOCK_PRINTS)
olc_mock_plugin(sorted mock_c mock_c)
olc_mock_plugin(sorted mock_a mock_a)
olc_mock_plugin(sorted mock_b mock_b)
# ABI 1.3: a mock_det that takes views (OLC_PLUGIN_FEATURE_VIEWS), and one
# built against the 1.2 header whose table ends before the feature it sets.
olc_mock_plugin(views mock_views mock_views MOCK_VIEWS)
olc_mock_plugin(abi_1_2 mock_v12 mock_v12 MOCK_ABI_1_2 MOCK_VIEWS)
# ABI 1.4: a mock_det with a distance of its own (linear in m).
olc_mock_plugin(distance mock_dist mock_dist MOCK_DISTANCE)
# ABI 1.5: a mock_det with matmul_f32 beside execute (and views).
olc_mock_plugin(matmul mock_mm mock_mm MOCK_MATMUL_F32 MOCK_VIEWS)
