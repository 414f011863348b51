# The store's files under attack, through the public API (issue 6 section 4,
# issue 12): modes, symlinks and a setuid copy (test_hostile_perms), what
# repair moves and where lock files appear (test_hostile_targets), P.lock
# truncated, garbled or replaced (test_hostile_lockfile), temporaries left
# behind (test_hostile_leftovers).  POSIX only.
include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
if(WIN32)
  return()
endif()

olc_add_test(NAME test_hostile_perms SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hostile_perms.c
  LABELS integration HOOKS MOCK_PLUGINS TIMEOUT 120)
if(TARGET olc_cli)
  target_compile_definitions(test_hostile_perms PRIVATE OLC_CLI_PATH="$<TARGET_FILE:olc_cli>")
  add_dependencies(test_hostile_perms olc_cli)
endif()
olc_add_test(NAME test_hostile_targets SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hostile_targets.c
  LABELS integration HOOKS MOCK_PLUGINS TIMEOUT 120)

# The generation counter of P.lock under attack (issue 12 items 3, 4): one
# executable, one ctest per suite (the full file system one needs a mount
# namespace and exits 77 without it).
olc_add_test(NAME test_hostile_lockfile SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hostile_lockfile.c
  LABELS integration ARGS sabotage TIMEOUT 180)
foreach(suite IN ITEMS full replace replace_tmpfs)
  add_test(NAME test_hostile_lockfile_${suite} COMMAND test_hostile_lockfile ${suite})
  set_tests_properties(test_hostile_lockfile_${suite} PROPERTIES LABELS integration
    SKIP_RETURN_CODE 77 TIMEOUT 180)
endforeach()
# Without the check that the locked P.lock still has its name, writers on a
# replaced P.lock overlap often: the commit's exchange alone must keep every
# save (issue 37 item 13).
# Negative control: a plain rename that does not check what it replaced, and
# no relock check either: the replace suite must see saves lost.  Both on
# the build's disk (TMPDIR) and on a tmpfs.
foreach(suite IN ITEMS replace replace_tmpfs)
  add_test(NAME test_hostile_lockfile_${suite}_norelock COMMAND test_hostile_lockfile ${suite})
  set_tests_properties(test_hostile_lockfile_${suite}_norelock PROPERTIES LABELS integration
    ENVIRONMENT OLC_TEST_DISABLE=relock SKIP_RETURN_CODE 77 TIMEOUT 180)
  add_test(NAME test_hostile_lockfile_${suite}_neg_exchange COMMAND test_hostile_lockfile ${suite})
  set_tests_properties(test_hostile_lockfile_${suite}_neg_exchange PROPERTIES
    LABELS "integration;negative" ENVIRONMENT OLC_TEST_DISABLE=exchange,relock
    SKIP_RETURN_CODE 77 TIMEOUT 180)
endforeach()

# Leftover temporaries (issue 12 item 7): a dead writer's goes at once; an
# append-only directory names it (needs root and chattr +a: exit 77).
olc_add_test(NAME test_hostile_leftovers SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hostile_leftovers.c
  LABELS integration HOOKS ARGS gone TIMEOUT 120)
add_test(NAME test_hostile_leftovers_append COMMAND test_hostile_leftovers append)
set_tests_properties(test_hostile_leftovers_append PROPERTIES LABELS integration
  SKIP_RETURN_CODE 77 TIMEOUT 120)
