# Durability tests of the persistence layer with real processes
# (docs/durability.md, families C and K).  persist_writer is the writer
# process; each suite of test_durability is its own ctest, and the negative
# controls run the same suite with one safety step switched off
# (OLC_TEST_DISABLE) - the suite then asserts that the failure is detected.
if(WIN32)
  return()
endif()

add_executable(persist_writer ${CMAKE_CURRENT_LIST_DIR}/persist_writer.c)
target_link_libraries(persist_writer PRIVATE olc_testhooks)
target_compile_definitions(persist_writer PRIVATE _GNU_SOURCE)
olc_target_warnings(persist_writer)

set(_dur_sources
  ${CMAKE_CURRENT_LIST_DIR}/test_durability.c
  ${CMAKE_CURRENT_LIST_DIR}/test_durability_audit.c
  ${CMAKE_CURRENT_LIST_DIR}/test_durability_faults.c
  ${CMAKE_CURRENT_LIST_DIR}/test_durability_torn_reads_kills.c
  ${CMAKE_CURRENT_LIST_DIR}/durability_util.c)

# One executable; the ctests below select its suites.
olc_add_test(NAME test_durability SOURCES ${_dur_sources} LABELS torture HOOKS
  ARGS c1 TIMEOUT 120)
target_compile_definitions(test_durability PRIVATE
  OLC_PERSIST_WRITER="$<TARGET_FILE:persist_writer>")
add_dependencies(test_durability persist_writer)

function(_olc_durability_case name suite)
  cmake_parse_arguments(D "" "DISABLE" "" ${ARGN})
  add_test(NAME ${name} COMMAND test_durability ${suite})
  set_tests_properties(${name} PROPERTIES LABELS torture SKIP_RETURN_CODE 77
    TIMEOUT 120)
  if(D_DISABLE)
    set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT OLC_TEST_DISABLE=${D_DISABLE})
  endif()
  if(name MATCHES "_neg_")
    set_property(TEST ${name} APPEND PROPERTY LABELS negative)
  endif()
endfunction()

_olc_durability_case(test_durability_crash crash)
_olc_durability_case(test_durability_lock lock)
_olc_durability_case(test_durability_audit audit)
_olc_durability_case(test_durability_k1 k1)
_olc_durability_case(test_durability_faults faults)
_olc_durability_case(test_durability_c2 c2)
_olc_durability_case(test_durability_c4 c4)
_olc_durability_case(test_durability_k3 k3)
_olc_durability_case(test_durability_secure secure)
# P4: the classic fcntl fallback (forced) still loses nothing.
_olc_durability_case(test_durability_classic_lock c1 DISABLE ofd)
set_property(TEST test_durability_classic_lock APPEND PROPERTY ENVIRONMENT OLC_C1_PER_PROC=50)
# Negative controls: each must detect the broken write path.
_olc_durability_case(test_durability_neg_nolock c1 DISABLE lock)
_olc_durability_case(test_durability_neg_inplace_crash crash DISABLE rename)
_olc_durability_case(test_durability_neg_nofsync_audit audit DISABLE fsync)
_olc_durability_case(test_durability_neg_inplace_audit audit DISABLE rename)
_olc_durability_case(test_durability_neg_nodirsync_audit audit DISABLE dirsync)
_olc_durability_case(test_durability_neg_order_audit audit DISABLE order)
# Without the exchange the commit cannot check what it replaced.
_olc_durability_case(test_durability_neg_exchange_audit audit DISABLE exchange)
_olc_durability_case(test_durability_neg_inplace_k1 k1 DISABLE rename)
_olc_durability_case(test_durability_neg_inplace_c2 c2 DISABLE rename)
_olc_durability_case(test_durability_neg_classic_c4 c4 DISABLE ofd)

# F2: real ENOSPC on a 64 KiB tmpfs in a user+mount namespace; skipped
# where unshare or mounting is not allowed.
add_test(NAME test_durability_enospc COMMAND sh -c
  "command -v unshare >/dev/null || exit 77; unshare -rm true 2>/dev/null || exit 77; exec unshare -rm \"$0\" enospc"
  $<TARGET_FILE:persist_writer>)
set_tests_properties(test_durability_enospc PROPERTIES LABELS torture
  SKIP_RETURN_CODE 77
  TIMEOUT 60)
