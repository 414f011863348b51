# The olc command-line tool: its parser, JSON writer and text fitting compiled into a unit
# test, and the built binary driven end to end (integration).
if(TARGET olc_cli)
  set(OLC_CLI_DIR ${PROJECT_SOURCE_DIR}/host/cli)
  olc_add_test(NAME test_cli_args LABELS unit
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_args.c ${OLC_CLI_DIR}/cli_args.c
            ${OLC_CLI_DIR}/cli_json.c ${OLC_CLI_DIR}/cli_fit.c)
  target_include_directories(test_cli_args PRIVATE ${OLC_CLI_DIR})
  if(NOT WIN32)
    target_compile_definitions(test_cli_args PRIVATE _GNU_SOURCE) # secure_getenv, as olc
  endif()
  if(OLC_LIBM)
    target_link_libraries(test_cli_args PRIVATE ${OLC_LIBM})
  endif()

  if(NOT WIN32)
    foreach(t IN ITEMS test_cli test_cli_strict)
      olc_add_test(NAME ${t} LABELS integration TIMEOUT 120
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/${t}.c CLI)
    endforeach()
    olc_add_test(NAME test_cli_fleet LABELS integration TIMEOUT 120
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_fleet.c CLI
      DEFINES OLC_MOCK_PLUGIN_DIR_GOOD="${OLC_MOCK_PLUGIN_DIR_GOOD}"
      DEPENDS olc_mock_good_mock_det)
    # A real calibration under busy threads on every CPU, with the
    # product's contention mode (the suite's default is ignore); serial.
    olc_add_test(NAME test_cli_contention LABELS integration TIMEOUT 120
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_contention.c CLI WORKER
      DEFINES OLC_MOCK_PLUGIN_DIR_GOOD="${OLC_MOCK_PLUGIN_DIR_GOOD}"
      DEPENDS olc_mock_good_mock_det
      ENV OLC_CONTENTION=)
    set_tests_properties(test_cli_contention PROPERTIES RUN_SERIAL TRUE)
  endif()
endif()
