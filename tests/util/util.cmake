# util/platform.h: the platform layer (threads, clocks, the program's own
# files).  The same source runs under wine as win_platform_smoke.exe
# (tests/windows, mingw_cross.sh).
olc_add_test(NAME test_platform SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_platform.c HOOKS
  LABELS unit)
