/*
 * tests/support/test_support.h - shared helpers for the CUnit tests.
 */
#ifndef OLC_TEST_SUPPORT_H
#define OLC_TEST_SUPPORT_H

#include <CUnit/CUnit.h>
#include <stddef.h>

#include "olc/error.h"
#include "olc/host.h"
#include "olc/store.h"

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
/* A CUnit suite's init and cleanup around one temporary directory: *dir =
 * a fresh one (tag); 0, or 1 when it could not be made. */
int olc_test_suite_tmpdir(char **dir, const char *tag);
/* Removes *dir, frees it and sets it to NULL; 0. */
int olc_test_suite_rmtree(char **dir);

/* Entries of dir other than . and .. whose name starts with prefix and
 * ends with suffix ("" matches any; -1 when dir cannot be read). */
int olc_test_count_names(const char *dir, const char *prefix, const char *suffix);
/* Entries of dir whose name ends in ".tmp" (-1 when dir cannot be read). */
int olc_test_count_tmp(const char *dir);
/* Open descriptors of this process (-1 when /proc/self/fd is missing). */
int olc_test_count_fds(void);

/* Entries of dir other than . and .. (-1 when dir cannot be read). */
int olc_test_count_entries(const char *dir);
/* Sets (on 1) or clears the immutable or the append-only attribute of a
 * file or directory (Linux, root); 0 on success, -1 where it cannot be. */
int olc_test_set_immutable(const char *path, int on);
int olc_test_set_append_only(const char *path, int on);
/* The first line of what the shell command cmd prints, without its
 * newline, into out; "" when it prints nothing or cannot run. */
void olc_test_capture_line(const char *cmd, char *out, size_t size);

/* Joins dir and name into a malloc'ed path. */
char *olc_test_path(const char *dir, const char *name);

/* Reads a whole file (malloc'ed, NUL-terminated); NULL when missing. */
unsigned char *olc_test_read_file(const char *path, size_t *len);
/* Writes a whole file; returns 0 on success. */
int olc_test_write_file(const char *path, const void *data, size_t len);
/* Copies the file from to to (made or replaced); 0 on success. */
int olc_test_copy_file(const char *from, const char *to);

/* A store without persistence; a failure fails the test. */
olc_store *olc_test_memory_store(void);
/* The result of workload name in cal; NULL when cal has none. */
const olc_workload_result *olc_test_find_result(const olc_calibration *cal, const char *name);

/* A configuration, the store it names and a host over both: what the
 * calibrate-loop tests open. */
typedef struct olc_test_session {
  olc_config *config;
  olc_store *store;
  olc_host *host;
} olc_test_session;

/* Writes ini (len bytes) to DIR/olc.ini, loads it, opens its store and a
 * host that ignores the OLC_* environment.  A failure fails the test. */
void olc_test_session_open(olc_test_session *s, const char *dir, const char *ini, size_t len);
/* The same with a host that reads the environment (OLC_PLUGIN_PATH,
 * OLC_WORKER): ignore_env 0. */
void olc_test_session_open_env(olc_test_session *s, const char *dir, const char *ini, size_t len);
void olc_test_session_close(olc_test_session *s);

/* The host's load report entry of the plugin file named file (the last
 * component of its path), or NULL. */
const olc_load_entry *olc_test_report_entry(const olc_host *h, const char *file);

/* Under a sanitizer a measuring worker would turn a SIGSEGV into a report
 * and exit(1); tests that expect the signal itself call this first. */
void olc_test_keep_segv_a_signal(void);

/* Reads /proc/PID/NAME (NUL-separated fields) into buf, NUL-terminated;
 * returns its length, 0 when it cannot be read. */
size_t olc_test_proc_read(long pid, const char *name, char *buf, size_t size);
/* 1 when needle occurs in the n bytes of buf (NULs included). */
int olc_test_contains(const char *buf, size_t n, const char *needle);

/* Runs the registered CUnit suites (argv[1], when given, selects one suite
 * by name) and returns the process exit code: 0 when all passed. */
int olc_test_run(int argc, char **argv);

#endif
