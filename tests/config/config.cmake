# Unit tests of the ini configuration (host/src/config).
if(NOT WIN32)
  olc_add_test(NAME test_config
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_config.c
    LABELS unit HOOKS TIMEOUT 60
    DEFINES OLC_CONFIG_EXAMPLES="${PROJECT_SOURCE_DIR}/config/examples")
  # The key table, row by row (host/src/config/key_table.h).
  olc_add_test(NAME test_config_keys
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_config_keys.c
    LABELS unit HOOKS TIMEOUT 60)
  # full.ini, olc.1 and docs/configuration.md against the key table, both ways.
  olc_add_test(NAME test_config_docs
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_config_docs.c
    LABELS unit HOOKS TIMEOUT 60 DEFINES OLC_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()

# The config fuzz target, replayed on generated inputs in every build, and
# a libFuzzer binary with -DOLC_FUZZ=ON (clang).
if(NOT WIN32)
  olc_add_test(NAME test_config_fuzz
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_config_fuzz.c ${CMAKE_CURRENT_LIST_DIR}/fuzz_config.c
    LABELS unit fuzz HOOKS TIMEOUT 120)
  if(OLC_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
    add_executable(fuzz_config ${CMAKE_CURRENT_LIST_DIR}/fuzz_config.c)
    target_compile_options(fuzz_config PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz_config PRIVATE -fsanitize=fuzzer)
    target_link_libraries(fuzz_config PRIVATE olc_testhooks)
    olc_target_warnings(fuzz_config)
  endif()
endif()

# Every [host], [calibration] and [store] key as a typed field of the
# host's (or the store's) options; a host without a config.
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(NOT WIN32)
  olc_add_test(NAME test_host_options
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_host_options.c
    LABELS unit HOOKS MOCK_PLUGINS TIMEOUT 60)
endif()
