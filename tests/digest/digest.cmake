# The digest module (host/src/digest): SHA-256 on OpenSSL here, on BCrypt
# in the Windows run (tests/windows/win_host_smoke.c checks the same
# vectors, tests/support/sha256_vectors.h).
olc_add_test(NAME test_digest SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_digest.c LABELS unit HOOKS)
