# Sanitizer and memory checks that need their own build or tool (issue 6,
# section 3), label `sanitize`:
#   sanitize_valgrind  tests/sanitize/valgrind_calibrate.sh on this build
#                      tree (skipped, 77, on a sanitizer build or without
#                      valgrind); off by default (1 to 5 minutes on 2 busy
#                      cores, most of it test_calibrate's measuring workers
#                      under valgrind).
#   sanitize_tsan      tests/sanitize/tsan.sh: configures and builds a
#                      ThreadSanitizer tree in <build>/sanitize-tsan and runs
#                      the threaded store, persist and loader tests there;
#                      off by default (a second build: several minutes).
# The ASan+UBSan pass is the `asan` preset over the whole suite.
if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
  return()
endif()
option(OLC_TEST_VALGRIND "Register the valgrind memcheck ctest (label sanitize)" OFF)
option(OLC_TEST_TSAN "Register the ThreadSanitizer ctest (label sanitize; builds a second tree)"
  OFF)

if(OLC_TEST_VALGRIND AND NOT OLC_SANITIZE AND NOT OLC_TSAN)
  add_test(NAME sanitize_valgrind
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/valgrind_calibrate.sh ${PROJECT_BINARY_DIR})
  set_tests_properties(sanitize_valgrind PROPERTIES LABELS "integration;sanitize" SKIP_RETURN_CODE 77
    TIMEOUT 900)
endif()
if(OLC_TEST_TSAN AND NOT OLC_SANITIZE AND NOT OLC_TSAN)
  add_test(NAME sanitize_tsan
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/tsan.sh ${PROJECT_SOURCE_DIR}
      ${PROJECT_BINARY_DIR}/sanitize-tsan)
  set_tests_properties(sanitize_tsan PROPERTIES LABELS "integration;sanitize" SKIP_RETURN_CODE 77
    TIMEOUT 1800)
endif()
