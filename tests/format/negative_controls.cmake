# Negative controls of the reader (olc_negative_control,
# cmake/OlcTestHelpers.cmake; the store's snapshot control is in
# tests/store/store.cmake, the write path's with the durability tests in
# tests/persist): each reruns a test with one safety step switched off in
# the test build, and passes only when that test then FAILS.
#   nc_format_bare_words     OLC_TEST_FORMAT_RELAX=bare     -> M4 must fail
#   nc_format_partial_values OLC_TEST_FORMAT_RELAX=partial  -> M3 must fail

olc_negative_control(nc_format_bare_words test_format OLC_TEST_FORMAT_RELAX=bare)
olc_negative_control(nc_format_partial_values test_format OLC_TEST_FORMAT_RELAX=partial)

# Z1's control, "parse with strtol": with OLC_TEST_FORMAT_RELAX=strtol the
# thread count is read by strtoll straight from the file bytes; replaying
# tests/fuzz/regressions/format/thread_count_at_end_of_input (a file that
# ends in the digits) must then fail under ASan, which only the sanitizer
# build can see.
if(OLC_SANITIZE)
  olc_negative_control(nc_format_strtol fuzz_format_replay OLC_TEST_FORMAT_RELAX=strtol
    ${PROJECT_SOURCE_DIR}/tests/fuzz/regressions/format)
endif()
