/*
 * tests/persist/durability_util.h - process helpers shared by the
 * durability test files (test_durability*.c).
 */
#ifndef OLC_TEST_DURABILITY_UTIL_H
#define OLC_TEST_DURABILITY_UTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "counter_format.h"

#ifndef OLC_PERSIST_WRITER
#error "OLC_PERSIST_WRITER must name the persist_writer program"
#endif

/* Starts argv (argv[0] is looked up in PATH when it has no '/') with the
 * extra environment entries "NAME=VALUE" (NULL-terminated list, may be
 * NULL).  With out_fd != NULL, the child's stdout is a pipe read at
 * *out_fd.  Returns the pid or -1. */
pid_t dur_spawn(const char *const argv[], const char *const env[], int *out_fd);

/* Waits for pid; returns the raw wait status (or -1). */
int dur_wait(pid_t pid);

/* Runs to completion; returns the wait status. */
int dur_run(const char *const argv[], const char *const env[]);

/* Reads and parses the counter file: 1 parsed, 0 absent, -1 malformed. */
int dur_load(counter_map *m, const char *path);

/* Writes a counter file with counter = value (and a few entries). */
int dur_store(const char *path, long value);

/* Number of "*.tmp" entries in dir. */

/* 1 when OLC_TEST_DISABLE names safety (the negative-control run). */
int dur_negative(const char *safety);

/* Monotonic seconds. */
double dur_now(void);

#endif
