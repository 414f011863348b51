/*
 * tests/support/test_support.h - shared helpers for the CUnit tests.
 */
#ifndef OLC_TEST_SUPPORT_H
#define OLC_TEST_SUPPORT_H

#include <CUnit/CUnit.h>
#include <stddef.h>

#include "olc/error.h"

/* Asserts that an olc call returned the expected status; on failure prints
 * the olc_error (where, message, line/column) so the cause is visible. */
#define OLC_ASSERT_STATUS(expected, call, errp)                                                    \
  do {                                                                                             \
    olc_status olc__st = (call);                                                                   \
    if (olc__st != (expected))                                                                     \
      olc_test_print_error(#call, olc__st, (expected), (errp));                                    \
    CU_ASSERT_EQUAL_FATAL(olc__st, (expected));                                                    \
  } while (0)

#define OLC_ASSERT_OK(call, errp) OLC_ASSERT_STATUS(OLC_OK, call, errp)

void olc_test_print_error(const char *call, olc_status got, olc_status expected,
                          const olc_error *err);

/* A fresh empty temporary directory (mkdtemp) under $TMPDIR or /tmp;
 * returns a malloc'ed path. Removed recursively by olc_test_rmtree. */
char *olc_test_tmpdir(const char *tag);
void olc_test_rmtree(const char *path);

/* Entries of dir whose name ends in ".tmp" (-1 when dir cannot be read). */
int olc_test_count_tmp(const char *dir);
/* Open descriptors of this process (-1 when /proc/self/fd is missing). */
int olc_test_count_fds(void);

/* Joins dir and name into a malloc'ed path. */
char *olc_test_path(const char *dir, const char *name);

/* Reads a whole file (malloc'ed, NUL-terminated); NULL when missing. */
unsigned char *olc_test_read_file(const char *path, size_t *len);
/* Writes a whole file; returns 0 on success. */
int olc_test_write_file(const char *path, const void *data, size_t len);

/* Runs the registered CUnit suites (argv[1], when given, selects one suite
 * by name) and returns the process exit code: 0 when all passed. */
int olc_test_run(int argc, char **argv);

#endif
