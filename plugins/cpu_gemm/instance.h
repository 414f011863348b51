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

/* The operators served. */
#define CG_OP_MATMUL 0u
#define CG_OP_GEMM 1u

/* Gemm's bias C, as the workload's bias property names it. */
#define CG_BIAS_NONE 0u
#define CG_BIAS_SCALAR 1u /* rank 0 (or one element): broadcast to m x n */
#define CG_BIAS_ROW 2u    /* n values, one per column */
#define CG_BIAS_COL 3u    /* m x 1, one per row */
#define CG_BIAS_MATRIX 4u /* m x n */

/* Leading (batch) dimensions a MatMul operand may have. */
#define CG_BATCH_MAX ((int)OLC_PLUGIN_MAX_RANK - 2)

/* A workload as the plugin reads it: the product's shape and the layout of
 * its operands (README.md, Key).  Defaults: dtype_b == dtype, no
 * transposes, no batch, no bias, no constant. */
typedef struct cg_work {
  cg_shape shape;
  uint32_t op;      /* CG_OP_* */
  uint32_t dtype;   /* CG_F32, CG_F16, CG_BF16: A, C and Y */
  uint32_t dtype_b; /* B's: dtype, or F16/BF16 with an F32 dtype */
  uint32_t trans_a, trans_b;
  uint32_t bias;       /* CG_BIAS_* (Gemm) */
  uint32_t constant_b; /* B is a constant of the binding: packed once */
  int batch_a_rank, batch_b_rank;
  int64_t batch_a[CG_BATCH_MAX], batch_b[CG_BATCH_MAX];
  /* Which properties were given at their default value (bit per
   * CG_PROP_*): the key declares them with use_property. */
  uint32_t explicit_defaults;
} cg_work;

/* Products a batched MatMul workload runs (the broadcast batch), and the
 * matrices A and B hold (their own batch); 1 without batch. */
int64_t cg_work_batches(const cg_work *w);
int64_t cg_work_count(const int64_t *dims, int rank);

/* The workload as the plugin reads it (sizes raw); refuses an unknown
 * property, a bad value, a layout the operator does not have. */
int32_t cg_workload_parse(const olc_plugin_host *host, const olc_plugin_workload *w, cg_work *out);
/* m, n and k of a workload's structural properties, raw. */
int32_t cg_workload_shape(const olc_plugin_host *host, const olc_plugin_workload *w, cg_shape *s);
/* The dtype's name in properties ("float32"), or NULL. */
const char *cg_dtype_name(uint32_t dtype);
/* The shape candidates are generated for: m and n at their buckets' upper
 * ends (bucket.h), k as it is. */
void cg_bucket_shape(cg_shape *out, const cg_shape *raw);

/* What pack hands the host for a constant B (exec_args.packed[1]): the
 * engine's packed copy with what it was packed for, so that execute uses it
 * only for that policy and shape (and reads B in place otherwise). */
typedef struct cg_const_b {
  cg_packed *pk;
  cg_policy policy;
  int64_t k, n;
} cg_const_b;

/* B of an execute or pack call as a k x n view (MatMul: the last two
 * dimensions, a rank-1 B a column; Gemm: B'); 0, or -1 when it is not one
 * matrix (a batch of several, rank 0, another dtype). */
int cg_b_view(const olc_plugin_tensor *t, cg_view *v, int64_t *k, int64_t *n);
/* 1 when policy p reads the constant b in place (execute.c): a tile
 * policy that packs no B (pack none or a), b a float32 matrix with
 * contiguous rows.  pack declines such a B, so that execute runs the
 * plain product on it. */
int cg_reads_b_in_place(const cg_policy *p, const olc_plugin_tensor *b);

int32_t cg_plugin_key(void *instance, const olc_plugin_workload *workload,
                      const olc_plugin_key_sink *sink);
/* ABI 1.4 distance: how far apart two keys' structures are (workload.c). */
int32_t cg_plugin_distance(void *instance, const char *operator_name, const olc_plugin_kv *a,
                           uint32_t a_count, const olc_plugin_kv *b, uint32_t b_count,
                           double *distance);
int32_t cg_plugin_candidates(void *instance, const olc_plugin_workload *workload,
                             const olc_plugin_policy_sink *sink);
int32_t cg_plugin_execute(void *instance, const olc_plugin_workload *workload, const void *policy,
                          const olc_plugin_exec_args *args);
/* ABI 1.5 matmul_f32: the plain product on operands the host checked. */
int32_t cg_plugin_matmul_f32(void *instance, const olc_plugin_workload *workload,
                             const void *policy, const olc_plugin_matmul_args *args);
/* execute past its quick test (views, 16-bit types, batch, Gemm, a packed
 * B); run calls it with wait_pool set, to time what execute runs the way
 * the plain run does (on the pool, waiting for it). */
int32_t cg_general_execute(cg_instance *in, int gemm, const olc_plugin_exec_args *args,
                           const cg_policy *p, int wait_pool);
int32_t cg_plugin_pack(void *instance, const olc_plugin_workload *workload, const void *policy,
                       uint32_t input, const olc_plugin_tensor *operand, void **packed,
                       uint64_t *bytes);
void cg_plugin_release_packed(void *instance, void *packed);

#endif
