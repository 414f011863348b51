/*
 * instance.h - what the plugin's table functions (plugin.c, workload.c,
 * execute.c) share: the instance and the helpers that speak to the host.
 *
 * An instance holds the probed processor, the ISA level it uses, its
 * thread pool with one packing workspace per pool thread, and a cache of
 * workspaces for execute calls that run on their caller's thread.
 *
 * Concurrency: the pool and its workspaces serve one product at a time,
 * under pool_mu.  run (never concurrent with itself, but concurrent with
 * execute) waits for pool_mu.  execute takes it only when its policy
 * splits and pool_mu is free; an execute that finds the pool busy, or
 * whose policy does not split, runs on its calling thread alone with a
 * cached workspace (see README.md for the measurement behind this).
 */
#ifndef CPU_GEMM_INSTANCE_H
#define CPU_GEMM_INSTANCE_H

#include <stdint.h>

#include "olc/plugin.h"

#include "gemm.h"
#include "policy.h"
#include "probe.h"
#include "sys.h"
#include "threads.h"
#include "wscache.h"

#define CG_DIM_MAX (1 << 20)
#define CG_MATRIX_MAX (1ll << 30) /* elements per matrix */

typedef struct cg_instance {
  const olc_plugin_host *host;
  cg_cpu cpu;
  uint32_t isa;
  uint32_t threads;
  cg_pool *pool;
  cg_workspace *ws; /* threads entries, for the pool's products */
  cg_mutex pool_mu;
  cg_ws_cache cache;
  char identity[512];
} cg_instance;

/* A one-line message for the failure about to be returned. */
void cg_report(const olc_plugin_host *host, int32_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cg_note(const olc_plugin_host *host, int32_t level, const char *msg);

/* m, n and k (and dtype) of a workload's structural properties, raw. */
int32_t cg_workload_shape(const olc_plugin_host *host, const olc_plugin_workload *w, cg_shape *s);
/* The shape candidates are generated for: m and n at their buckets' upper
 * ends (bucket.h), k as it is. */
void cg_bucket_shape(cg_shape *out, const cg_shape *raw);

int32_t cg_plugin_key(void *instance, const olc_plugin_workload *workload,
                      const olc_plugin_key_sink *sink);
int32_t cg_plugin_candidates(void *instance, const olc_plugin_workload *workload,
                             const olc_plugin_policy_sink *sink);
int32_t cg_plugin_execute(void *instance, const olc_plugin_workload *workload, const void *policy,
                          const olc_plugin_exec_args *args);

#endif
