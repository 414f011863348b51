# olc calibrate/select --report FILE.html (host/cli/report_*.c): the
# escaping of every string a plugin or the configuration gives (unit), the
# document end to end against the mock plugins (integration), and the page
# rendered by headless Chromium: not blank, no console errors (integration;
# skipped, 77, without chromium or python3).
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(TARGET olc_cli)
  set(OLC_CLI_DIR ${PROJECT_SOURCE_DIR}/host/cli)
  olc_add_test(NAME test_report_escape LABELS unit TIMEOUT 30
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_report_escape.c ${OLC_CLI_DIR}/report_escape.c
            ${OLC_CLI_DIR}/cli_json.c ${OLC_CLI_DIR}/cli_args.c)
  target_include_directories(test_report_escape PRIVATE ${OLC_CLI_DIR})
  if(OLC_LIBM)
    target_link_libraries(test_report_escape PRIVATE ${OLC_LIBM})
  endif()

  if(NOT WIN32)
    olc_add_test(NAME test_report_html LABELS integration TIMEOUT 120
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_report_html.c MOCK_PLUGINS CLI WORKER)

    add_test(NAME test_report_chromium
      COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/report_chromium.sh $<TARGET_FILE:olc_cli>
        ${OLC_MOCK_PLUGIN_ROOT}/good ${CMAKE_CURRENT_LIST_DIR}/png_check.py)
    set_tests_properties(test_report_chromium PROPERTIES LABELS integration
      SKIP_RETURN_CODE 77 TIMEOUT 120)
  endif()
endif()
