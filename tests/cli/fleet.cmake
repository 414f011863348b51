# Tuning beyond one machine (issue 43):
#   test_fleet_slurm  olc calibrate --recorded FILE --shard I/N as a Slurm
#                     array job on a single-node Slurm the test starts
#                     (munged, slurmctld, slurmd on loopback, all in a
#                     temporary directory), then one olc import --recorded
#                     of the shards' stores; skipped (77) where slurmctld
#                     cannot start (scripts/setup.sh --test installs
#                     slurm-wlm and munge) (integration)
if(TARGET olc_cli AND NOT WIN32 AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  include(${CMAKE_CURRENT_LIST_DIR}/../plugins/mock_plugins.cmake)
  add_test(NAME test_fleet_slurm
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_fleet_slurm.sh $<TARGET_FILE:olc_cli>
      ${OLC_MOCK_PLUGIN_ROOT} 4)
  set_tests_properties(test_fleet_slurm PROPERTIES LABELS integration TIMEOUT 240
    SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
endif()
