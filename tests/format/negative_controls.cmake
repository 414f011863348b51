# Negative controls of DURABILITY.md 4.8 for the reader and the snapshot
# (the write-path controls live with the durability tests): each reruns a
# test with one safety step switched off in the test build, and passes only
# when that test then FAILS.
#   nc_format_bare_words     OLC_TEST_FORMAT_RELAX=bare     -> M4 must fail
#   nc_format_partial_values OLC_TEST_FORMAT_RELAX=partial  -> M3 must fail
#   nc_store_snapshot_swap   OLC_TEST_DISABLE=snapshot      -> M11 must fail
# The test targets may be defined by a later fragment: add_test resolves
# target names when the build system is generated.
function(olc_negative_control name test env)
  add_test(NAME ${name} COMMAND ${test} ${ARGN})
  set_tests_properties(${name} PROPERTIES WILL_FAIL TRUE ENVIRONMENT "${env}" TIMEOUT 120)
  set_property(TEST ${name} PROPERTY LABELS unit negative)
endfunction()

olc_negative_control(nc_format_bare_words test_format OLC_TEST_FORMAT_RELAX=bare)
olc_negative_control(nc_format_partial_values test_format OLC_TEST_FORMAT_RELAX=partial)
olc_negative_control(nc_store_snapshot_swap test_store_file OLC_TEST_DISABLE=snapshot)

# Z1's control, "parse with strtol": with OLC_TEST_FORMAT_RELAX=strtol the
# thread count is read by strtoll straight from the file bytes; replaying
# tests/fuzz/regressions/format/thread_count_at_end_of_input (a file that
# ends in the digits) must then fail under ASan, which only the sanitizer
# build can see.
if(OLC_SANITIZE)
  olc_negative_control(nc_format_strtol fuzz_format_replay OLC_TEST_FORMAT_RELAX=strtol
    ${PROJECT_SOURCE_DIR}/tests/fuzz/regressions/format)
endif()
