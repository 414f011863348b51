# cmake -DNM=<nm> -DPLUGIN=<example_gpu.so> [-DEXPECT_FORBIDDEN=ON] -P check_symbols.cmake
# With EXPECT_FORBIDDEN the check is run on a library known to read files (the
# ICD loader itself) and passes only when it finds them: the detector works.
# Fails when the plugin imports a file-system function or exports anything
# but olc_plugin_entry.  The OpenCL ICD loader reads its vendor files itself;
# that code lives in libOpenCL, not in the plugin.
if(NOT NM OR NOT EXISTS "${PLUGIN}")
  message(FATAL_ERROR "usage: -DNM=<nm> -DPLUGIN=<plugin>")
endif()

set(forbidden open open64 openat fopen fopen64 freopen creat unlink rename mkdir rmdir
    opendir readdir stat stat64 lstat fstatat __xstat statx truncate ftruncate fsync
    fdatasync flock link symlink chmod fchmod remove tmpfile mkstemp access faccessat
    realpath dlopen)

execute_process(COMMAND ${NM} -D --undefined-only ${PLUGIN}
  OUTPUT_VARIABLE undefined RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${PLUGIN}")
endif()
string(REPLACE "\n" ";" lines "${undefined}")
set(imported)
foreach(line IN LISTS lines)
  if(line MATCHES "[UwWv] +([A-Za-z0-9_.]+)(@.*)?$")
    list(APPEND imported ${CMAKE_MATCH_1})
  endif()
endforeach()
list(LENGTH imported n)
if(n EQUAL 0)
  message(FATAL_ERROR "no imported symbol parsed from ${NM} output: ${undefined}")
endif()
set(bad)
foreach(sym IN LISTS imported)
  list(FIND forbidden ${sym} at)
  if(NOT at EQUAL -1)
    list(APPEND bad ${sym})
  endif()
endforeach()
if(EXPECT_FORBIDDEN)
  if(NOT bad)
    message(FATAL_ERROR "no file-system import detected in ${PLUGIN}: the check is blind")
  endif()
  message(STATUS "${PLUGIN}: detected ${bad}")
  return()
endif()
if(bad)
  message(FATAL_ERROR "${PLUGIN} imports file-system functions: ${bad}")
endif()

execute_process(COMMAND ${NM} -D --defined-only ${PLUGIN}
  OUTPUT_VARIABLE defined RESULT_VARIABLE rc)
string(REPLACE "\n" ";" lines "${defined}")
set(exported)
foreach(line IN LISTS lines)
  if(line MATCHES " [A-Za-z] +([A-Za-z0-9_.]+)(@.*)?$")
    set(sym ${CMAKE_MATCH_1})
    # Linker-made markers, not functions of ours.
    if(NOT sym MATCHES "^(_init|_fini|_edata|_end|__bss_start)$")
      list(APPEND exported ${sym})
    endif()
  endif()
endforeach()
if(NOT exported STREQUAL "olc_plugin_entry")
  message(FATAL_ERROR "${PLUGIN} must export only olc_plugin_entry, exports: ${exported}")
endif()
message(STATUS "${PLUGIN}: ${n} imports, none touches the file system; exports olc_plugin_entry")
