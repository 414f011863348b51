/*
 * cg_plugin_host.h - what the tests that drive cpu_gemm.so through the
 * plugin ABI share: the loaded plugin, workload descriptions and the sinks for keys, policies
 * and bytes.
 */
#ifndef CG_PLUGIN_HOST_H
#define CG_PLUGIN_HOST_H

#include <stdint.h>

#include "olc/plugin.h"
#include "olc_stub_host.h"

/* The plugins run against the stub host (plugin-api/stub); the last
 * set_error of the calling thread: */
#define cg_test_err_msg (olc_stub_host_last_error()->message)
#define cg_test_err_code (olc_stub_host_last_error()->code)
extern const olc_plugin *cg_test_plugin;

/* dlopens the plugin at path and calls its entry (also checks that a
 * wrong ABI major is refused); 0 or 1, with a message on stderr. */
int cg_test_load(const char *path);
void cg_test_unload(void);

/* A MatMul workload with its own property storage. */
typedef struct cg_test_workload {
  olc_plugin_workload wl;
  olc_plugin_kv props[4];
  char dims[3][24];
} cg_test_workload;

void cg_test_workload_set(cg_test_workload *w, const char *op, const char *m, const char *n,
                          const char *k);
void cg_test_workload_shape(cg_test_workload *w, int64_t m, int64_t n, int64_t k);

/* A key as reported. */
typedef struct cg_test_key {
  char processor[512];
  uint32_t threads;
  char structure[256]; /* "name=value;" for each add_structure */
} cg_test_key;

/* Calls key; returns its status. */
int32_t cg_test_get_key(void *inst, const olc_plugin_workload *wl, cg_test_key *k);

/* Policies emitted by candidates (stop_after > 0: the sink refuses then). */
typedef struct cg_test_cands {
  void *p[64];
  int n, stop_after;
} cg_test_cands;

int32_t cg_test_candidates(void *inst, const olc_plugin_workload *wl, cg_test_cands *c);
void cg_test_release_all(void *inst, cg_test_cands *c);

/* Serialized bytes (NUL-terminated). */
typedef struct cg_test_bytes {
  char s[256];
  size_t len;
} cg_test_bytes;

int32_t cg_test_serialize(void *inst, const void *policy, cg_test_bytes *b);

#endif
