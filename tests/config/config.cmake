# Unit tests of the ini configuration (host/src/config).
if(NOT WIN32)
  olc_add_test(NAME test_config
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_config.c
    LABELS unit HOOKS TIMEOUT 60)
  target_compile_definitions(test_config PRIVATE
    OLC_CONFIG_EXAMPLES="${PROJECT_SOURCE_DIR}/config/examples")
endif()
