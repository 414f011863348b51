#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif
#include "olc_stub_host.h"

#include <stdio.h>
#include <time.h>

static _Thread_local olc_stub_host_error last_error;
static int32_t log_level = OLC_PLUGIN_LOG_DEBUG;
static olc_stub_host_observer observer;
static void *observer_payload;

const olc_stub_host_error *olc_stub_host_last_error(void) { return &last_error; }

void olc_stub_host_clear_error(void) {
  last_error.code = 0;
  last_error.message[0] = 0;
}

void olc_stub_host_set_log_level(int32_t max_level) { log_level = max_level; }

void olc_stub_host_set_observer(olc_stub_host_observer fn, void *payload) {
  observer = fn;
  observer_payload = payload;
}

uint64_t olc_stub_host_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

olc_plugin_tensor olc_stub_matrix(const void *data, int64_t rows, int64_t cols, int64_t ld) {
  olc_plugin_tensor t = {.struct_size = sizeof t,
                         .abi_minor = OLC_PLUGIN_ABI_MINOR,
                         .dtype = OLC_PLUGIN_DTYPE_FLOAT32,
                         .rank = 2,
                         .dims = {rows, cols},
                         .strides = {ld, 1}};
  /* The ABI's data pointer is not const; the plugin writes outputs only. */
  t.data = (void *)(uintptr_t)data;
  return t;
}

static void stub_log(void *ctx, int32_t level, const char *message) {
  (void)ctx;
  if (observer != NULL)
    observer(observer_payload, 0, level, message);
  if (level <= log_level)
    fprintf(stderr, "[plugin log %d] %s\n", (int)level, message != NULL ? message : "");
}

static void stub_set_error(void *ctx, int32_t code, const char *message) {
  (void)ctx;
  if (observer != NULL)
    observer(observer_payload, 1, code, message);
  last_error.code = code;
  snprintf(last_error.message, sizeof last_error.message, "%s", message != NULL ? message : "");
}

static uint64_t stub_now_ns(void *ctx) {
  (void)ctx;
  return olc_stub_host_now_ns();
}

static int32_t stub_lookup(void *ctx, void *instance, const olc_plugin_workload *w,
                           const olc_plugin_byte_sink *out) {
  (void)ctx, (void)instance, (void)w, (void)out;
  return OLC_PLUGIN_E_NOT_FOUND;
}

static int32_t stub_save(void *ctx, void *instance, const olc_plugin_workload *w,
                         const void *policy, uint64_t len, const olc_plugin_measurement *m,
                         uint32_t count) {
  (void)ctx, (void)instance, (void)w, (void)policy, (void)len, (void)m, (void)count;
  return OLC_PLUGIN_E_UNSUPPORTED;
}

const olc_plugin_host olc_stub_host = {
    sizeof(olc_plugin_host), OLC_PLUGIN_ABI_MINOR, NULL,        stub_log,
    stub_set_error,          stub_now_ns,          stub_lookup, stub_save};
