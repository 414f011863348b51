# The guides against what they describe: every Debian package that
# scripts/setup.sh installs is named in docs/building.md (the list of what
# each setup command installs).
add_test(NAME test_docs_setup_packages
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -P ${CMAKE_CURRENT_LIST_DIR}/scripts/check_setup_packages.cmake)
set_tests_properties(test_docs_setup_packages PROPERTIES LABELS unit TIMEOUT 30)
