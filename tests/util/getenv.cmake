# Static side of "no environment override in a privileged process" (issue 6
# section 4): check_getenv.sh over host/ and plugins/.  The run-time side is
# tests/persist's test_hostile_perms.
if(NOT WIN32)
  add_test(NAME test_hostile_getenv
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/check_getenv.sh ${PROJECT_SOURCE_DIR})
  set_tests_properties(test_hostile_getenv PROPERTIES LABELS unit TIMEOUT 60)
endif()
