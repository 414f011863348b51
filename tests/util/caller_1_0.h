/*
 * tests/util/caller_1_0.h - the calls of a caller built against the
 * public headers of release 1.0 (caller_1_0.c, compiled with the frozen
 * olc_1_0.h only; every versioned struct is at its version 1).  Plain
 * C types and struct tags only, so that the test, compiled with the current
 * headers, can include it too.
 *
 * Each function fills its version-1 struct with the *_INIT macro of that
 * time and places it either at the very end of a readable page, with an
 * unreadable page after it (V1_GUARDED: reading past its end faults), or
 * followed by 0xFF bytes (V1_GARBAGE: a field read from past its end is
 * not the default).  It returns the library's status and, on failure, the
 * message the library wrote into the caller's version-1 olc_error.
 */
#ifndef OLC_TEST_COMPAT_CALLER_1_0_H
#define OLC_TEST_COMPAT_CALLER_1_0_H

#include <stddef.h>
#include <stdint.h>

struct olc_store;
struct olc_lookup_result;
struct olc_config;
struct olc_host;
struct olc_calibration;
struct olc_binding;
struct olc_selection;

enum { V1_GUARDED = 0, V1_GARBAGE = 1 };

/* The version-1 olc_error: its size and the offsets of code, offset,
 * where and message. */
size_t v1_error_size(void);
size_t v1_error_offset(int field);

/* olc_store_open of path, persistence on; version overrides the struct's
 * version when it is not 1. */
int v1_store_open(struct olc_store **out, const char *path, uint32_t version, int placement,
                  char *msg, size_t msg_size);
/* olc_store_save of the key "compat" / "MatMul" / "1" (exact and portable
 * identity) with policy. */
int v1_store_save(struct olc_store *store, const char *policy, int placement, char *msg,
                  size_t msg_size);
/* olc_store_lookup of that key. */
int v1_store_lookup(struct olc_lookup_result **out, struct olc_store *store, int placement,
                    char *msg, size_t msg_size);
/* olc_host_open ignoring the environment. */
int v1_host_open(struct olc_host **out, const struct olc_config *config, struct olc_store *store,
                 int placement, char *msg, size_t msg_size);
/* olc_host_calibrate of every workload with recalibrate set and a progress
 * callback counting its calls into *progress_calls. */
int v1_host_calibrate(struct olc_calibration **out, struct olc_host *host, int placement,
                      size_t *progress_calls, char *msg, size_t msg_size);
/* olc_host_bind of the workload mock_det / MatMul (dtype float32, m 8,
 * n 4, k 2), its olc_workload placed. */
int v1_host_bind(struct olc_binding **out, struct olc_host *host, int placement, char *msg,
                 size_t msg_size);
/* olc_binding_select in never mode, its olc_select_options placed. */
int v1_binding_select(const struct olc_selection **out, struct olc_binding *b, int placement,
                      char *msg, size_t msg_size);
/* olc_host_verify with dry_run and in_process, its olc_verify_options
 * placed; counts[0] into *considered. */
int v1_host_verify(struct olc_host *host, int placement, size_t *considered, char *msg,
                   size_t msg_size);

#endif
