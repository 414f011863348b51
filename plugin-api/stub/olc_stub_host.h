/*
 * olc_stub_host.h - a plugin host for driving one plugin without the
 * library: the plugin's own unit tests, benchmarks and fuzzers.
 *
 * olc_stub_host is an olc_plugin_host table: log lines go to stderr (up to
 * a level, see olc_stub_host_set_log_level), set_error keeps the message
 * per thread (as the real host does), the clock is CLOCK_MONOTONIC, and
 * there is no store (lookup says OLC_PLUGIN_E_NOT_FOUND, save
 * OLC_PLUGIN_E_UNSUPPORTED).  Pass &olc_stub_host to the plugin's entry and
 * to create.  The settings below are process-wide: set them before the
 * plugin runs on other threads.  Everything else is thread-safe.
 */
#ifndef OLC_STUB_HOST_H
#define OLC_STUB_HOST_H

#include <stdint.h>

#include "olc/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const olc_plugin_host olc_stub_host;

typedef struct olc_stub_host_error {
  int32_t code; /* 0 until the plugin calls set_error */
  char message[512];
} olc_stub_host_error;

/* The calling thread's last set_error, and its reset. */
const olc_stub_host_error *olc_stub_host_last_error(void);
void olc_stub_host_clear_error(void);

/* Log lines with a level above max_level are dropped (default
 * OLC_PLUGIN_LOG_DEBUG: all are printed; -1: none). */
void olc_stub_host_set_log_level(int32_t max_level);

/* Called for every log line (is_error 0, value = level) and every
 * set_error (is_error 1, value = code) before the stub's own handling;
 * NULL removes it. */
typedef void (*olc_stub_host_observer)(void *payload, int is_error, int32_t value,
                                       const char *message);
void olc_stub_host_set_observer(olc_stub_host_observer fn, void *payload);

/* The stub's clock, for callers that time the plugin as the host would. */
uint64_t olc_stub_host_now_ns(void);

/* An operand of an execute call: a rank-2 float32 row-major tensor over
 * data (rows x cols, ld floats from one row to the next, strides[1] 1),
 * struct_size and abi_minor filled, every other field zero.  The tensor
 * only points at data, which stays the caller's and must outlive the call.
 * data is const so that inputs can be passed as they are; an output's data
 * must be writable. */
olc_plugin_tensor olc_stub_matrix(const void *data, int64_t rows, int64_t cols, int64_t ld);

#ifdef __cplusplus
}
#endif

#endif /* OLC_STUB_HOST_H */
