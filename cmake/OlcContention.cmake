# The machine that runs the suite is often busy (parallel tests, other
# builds): a calibration would wait for a quiet machine and mark its winner
# contended ([calibration] contention), which no test but those about it
# expects.  olc_contention_ignore_tests(), called at the end of every
# directory that adds tests (tests/, examples/*, bench/*), makes each of
# that directory's tests measure with contention = ignore unless it sets
# OLC_CONTENTION itself (empty: the ini file's mode; the test-hook build
# reads it even for hosts that ignore the environment).
function(olc_contention_ignore_tests)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS tests)
    get_test_property(${t} ENVIRONMENT env)
    if(NOT "${env}" MATCHES "OLC_CONTENTION=")
      set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT OLC_CONTENTION=ignore)
    endif()
  endforeach()
endfunction()
