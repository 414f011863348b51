# Fuzz targets (issue 6 section 2, docs/durability.md Z1).  Each target is one
# LLVMFuzzerTestOneInput in tests/fuzz/fuzz_<name>.c (or elsewhere), built:
#  - always (any compiler): fuzz_<name>_replay, which feeds every file of
#    corpus/<name>/ and regressions/<name>/ to the target; ctest labels unit
#    and the module fuzzed (MODULE);
#  - with -DOLC_FUZZ=ON and clang (the `fuzz` preset): the libFuzzer
#    executable fuzz_<name>, and the ctest fuzz_<name>_bounded (labels
#    torture, fuzz and the module)
#    running it for a fixed time with a fixed seed (run_target.sh).
#    The custom target `fuzz-long` runs each for OLC_FUZZ_LONG_SECONDS.
# tests/fuzz/run_ci.sh configures, builds and runs the bounded runs.
if(NOT WIN32)
  set(OLC_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
  set(OLC_FUZZ_WORK ${PROJECT_BINARY_DIR}/fuzz-work)
  set(OLC_FUZZ_LONG_SECONDS 600 CACHE STRING "Seconds per target of the fuzz-long target")
  set(OLC_FUZZ_ENABLED OFF)
  if(OLC_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
    set(OLC_FUZZ_ENABLED ON)
  endif()
  set(OLC_FUZZ_LONG_COMMANDS)
  set(OLC_FUZZ_EXES)

  # olc_fuzz_target(NAME n MODULE m SECONDS s SOURCES ... [LIBS ...] [DEFS ...]
  #                 [INCLUDES ...] [DEPENDS ...] [INIT])
  # MODULE: the module whose code the target fuzzes (its ctest label).
  # INIT: the target defines olc_fuzz_init() (one-time setup, may skip).
  macro(olc_fuzz_target)
    cmake_parse_arguments(F "INIT" "NAME;MODULE;SECONDS" "SOURCES;LIBS;DEFS;INCLUDES;DEPENDS"
      ${ARGN})
    set(_dirs)
    foreach(_d ${OLC_FUZZ_DIR}/corpus/${F_NAME} ${OLC_FUZZ_DIR}/regressions/${F_NAME})
      if(EXISTS ${_d})
        list(APPEND _dirs ${_d})
      endif()
    endforeach()
    set(_defs ${F_DEFS})
    if(F_INIT)
      list(APPEND _defs OLC_FUZZ_INIT)
    endif()
    olc_add_test(NAME fuzz_${F_NAME}_replay LABELS unit ${F_MODULE} HOOKS TIMEOUT 120
      SOURCES ${F_SOURCES} ${OLC_FUZZ_DIR}/fuzz_replay.c LIBS ${F_LIBS} ARGS ${_dirs})
    target_include_directories(fuzz_${F_NAME}_replay PRIVATE ${OLC_FUZZ_DIR} ${F_INCLUDES})
    target_compile_definitions(fuzz_${F_NAME}_replay PRIVATE ${_defs})
    if(F_DEPENDS)
      add_dependencies(fuzz_${F_NAME}_replay ${F_DEPENDS})
    endif()
    if(OLC_FUZZ_ENABLED)
      if(NOT TARGET fuzz_${F_NAME})
        set(_srcs ${F_SOURCES})
        if(F_INIT)
          list(APPEND _srcs ${OLC_FUZZ_DIR}/fuzz_init.c)
        endif()
        add_executable(fuzz_${F_NAME} ${_srcs})
        target_link_options(fuzz_${F_NAME} PRIVATE -fsanitize=fuzzer)
        target_link_libraries(fuzz_${F_NAME} PRIVATE olc_testhooks ${F_LIBS})
        target_include_directories(fuzz_${F_NAME} PRIVATE ${OLC_FUZZ_DIR} ${F_INCLUDES})
        target_compile_definitions(fuzz_${F_NAME} PRIVATE _GNU_SOURCE ${_defs})
        olc_target_warnings(fuzz_${F_NAME})
        if(F_DEPENDS)
          add_dependencies(fuzz_${F_NAME} ${F_DEPENDS})
        endif()
      endif()
      list(APPEND OLC_FUZZ_EXES fuzz_${F_NAME} fuzz_${F_NAME}_replay)
      add_test(NAME fuzz_${F_NAME}_bounded
        COMMAND sh ${OLC_FUZZ_DIR}/run_target.sh $<TARGET_FILE:fuzz_${F_NAME}> ${F_SECONDS}
                ${OLC_FUZZ_WORK}/${F_NAME} ${_dirs})
      math(EXPR _timeout "${F_SECONDS} + 120")
      set_tests_properties(fuzz_${F_NAME}_bounded PROPERTIES LABELS "torture;fuzz;${F_MODULE}"
        SKIP_RETURN_CODE 77 TIMEOUT ${_timeout} RUN_SERIAL TRUE)
      set(_long_cmd
        COMMAND ${CMAKE_COMMAND} -E env OLC_FUZZ_KEEP=1 sh ${OLC_FUZZ_DIR}/run_target.sh
                $<TARGET_FILE:fuzz_${F_NAME}> ${OLC_FUZZ_LONG_SECONDS}
                ${OLC_FUZZ_WORK}/long-${F_NAME} ${_dirs})
      if(TARGET fuzz-all)
        # A target declared after fuzz-all and fuzz-long exist (a test folder
        # that sorts after tests/fuzz): joined to them here.
        add_dependencies(fuzz-all fuzz_${F_NAME} fuzz_${F_NAME}_replay)
        add_custom_target(fuzz-long-${F_NAME} ${_long_cmd} USES_TERMINAL VERBATIM)
        add_dependencies(fuzz-long-${F_NAME} fuzz_${F_NAME})
        add_dependencies(fuzz-long fuzz-long-${F_NAME})
      else()
        list(APPEND OLC_FUZZ_LONG_COMMANDS ${_long_cmd})
      endif()
    endif()
  endmacro()

  # (1) the version-1 codec: no crash/UB/leak, round trip, canonical fixed point.
  olc_fuzz_target(NAME format MODULE format SECONDS 40 SOURCES ${OLC_FUZZ_DIR}/fuzz_format.c)

  # (2) the ini loader; the target itself is the config engineer's
  # tests/config/fuzz_config.c (their tests/config/config.cmake also builds
  # the libFuzzer executable fuzz_config, which is reused here).
  olc_fuzz_target(NAME config MODULE config SECONDS 30
    SOURCES ${PROJECT_SOURCE_DIR}/tests/config/fuzz_config.c)

  # (3) each shipped plugin's policy validate, through dlopen of the module.
  foreach(_plugin cpu_gemm example_gpu)
    if(TARGET ${_plugin})
      olc_fuzz_target(NAME policy_${_plugin} MODULE ${_plugin} SECONDS 30 INIT
        SOURCES ${OLC_FUZZ_DIR}/fuzz_policy.c LIBS olc_stub_host ${CMAKE_DL_LIBS}
        DEFS OLC_FUZZ_PLUGIN_PATH="$<TARGET_FILE:${_plugin}>" OLC_FUZZ_STRICT_TEXT
        DEPENDS ${_plugin})
    endif()
  endforeach()

  # (4) the CLI's argument parser and strict numbers (host/cli/cli_args.c,
  # cli_key.c), compiled in.
  if(TARGET olc_cli)
    set(_cli ${PROJECT_SOURCE_DIR}/host/cli)
    find_library(OLC_FUZZ_LIBM m)
    set(_libm)
    if(OLC_FUZZ_LIBM)
      set(_libm ${OLC_FUZZ_LIBM})
    endif()
    olc_fuzz_target(NAME cli MODULE cli SECONDS 30
      SOURCES ${OLC_FUZZ_DIR}/fuzz_cli.c ${_cli}/cli_args.c ${_cli}/cli_key.c ${_cli}/cli_util.c
      INCLUDES ${_cli} LIBS ${_libm})
  endif()

  if(OLC_FUZZ_ENABLED)
    # Everything run_ci.sh needs (the fuzz executables, their replays, the
    # config engineer's test of label fuzz), without the rest of the tree.
    add_custom_target(fuzz-all)
    add_dependencies(fuzz-all ${OLC_FUZZ_EXES})
    if(TARGET test_config_fuzz)
      add_dependencies(fuzz-all test_config_fuzz)
    endif()
    add_custom_target(fuzz-long ${OLC_FUZZ_LONG_COMMANDS}
      COMMENT "libFuzzer: ${OLC_FUZZ_LONG_SECONDS} s per target (work: ${OLC_FUZZ_WORK}/long-*)"
      USES_TERMINAL VERBATIM)
    add_dependencies(fuzz-long fuzz-all)
  endif()
endif()
