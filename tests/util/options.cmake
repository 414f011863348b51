# The versioned-struct copy and the version history of every caller-filled
# struct (host/src/util/options.c).  compat.cmake runs a version-1 caller.
olc_add_test(NAME test_options SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_options.c LABELS unit HOOKS)
