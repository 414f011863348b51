/*
 * execute.c - ABI 1.1 execute: MatMul on caller-owned fp32 operands,
 * C = alpha * A x B + beta * C, row-major with leading dimensions, with a
 * policy of this instance, on whatever shape the operands have.
 *
 * Reentrant.  A call whose policy splits and which finds the thread pool
 * free runs on the pool (pool_mu held, the pool's workspaces); any other
 * call runs on its own thread, with a workspace from the instance's cache
 * when its policy packs an operand and none at all when it does not (the
 * direct path, the thin kernels on a contiguous column): a busy pool is
 * never waited for.  Nothing of the call is kept: the workspaces hold no
 * pointer to the operands after it returns.
 */
#include <stdint.h>
#include <string.h>

#include "instance.h"

/* Whether an operator name is "MatMul": compared here, not with strcmp,
 * since this is on every call and the inlined loop over seven bytes
 * saves a library call.  Stops at the first difference, so it never
 * reads past a shorter name's terminator. */
static int is_matmul(const char *name) {
  static const char want[] = "MatMul";
  for (size_t i = 0; i < sizeof(want); i++)
    if (name[i] != want[i])
      return 0;
  return 1;
}

/* Decodes one operand: fp32, rank 2, rows contiguous (strides[1] == 1),
 * a leading dimension covering the row, an extent that fits int64.  Says
 * what is wrong; calls see tensor_odd first, the same test in fewer
 * instructions for operands below 2^30. */
static int32_t check_tensor(const cg_instance *in, const olc_plugin_tensor *t, const char *name) {
  int64_t extent;
  if (t == NULL || !OLC_PLUGIN_HAS_FIELD(t, olc_plugin_tensor, data)) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "execute: %s missing or too old", name);
    return OLC_PLUGIN_E_INVALID;
  }
  if (t->dtype != OLC_PLUGIN_DTYPE_FLOAT32) {
    cg_report(in->host, OLC_PLUGIN_E_UNSUPPORTED,
              "execute: %s has dtype %u, only float32 (1) is served", name, t->dtype);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if (t->rank != 2) {
    cg_report(in->host, OLC_PLUGIN_E_UNSUPPORTED,
              "execute: %s has rank %u, only matrices (rank 2, not batched) are served", name,
              t->rank);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if (t->data == NULL || t->dims[0] < 1 || t->dims[1] < 1 || t->strides[0] < 1 ||
      t->strides[1] < 1) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID,
              "execute: %s has no data, a dimension or a stride below 1", name);
    return OLC_PLUGIN_E_INVALID;
  }
  if (t->strides[1] != 1) {
    cg_report(in->host, OLC_PLUGIN_E_UNSUPPORTED,
              "execute: %s has column stride %lld, only row-major (1) is served", name,
              (long long)t->strides[1]);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if (t->dims[0] > 1 && t->strides[0] < t->dims[1]) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID,
              "execute: %s has leading dimension %lld below its width %lld", name,
              (long long)t->strides[0], (long long)t->dims[1]);
    return OLC_PLUGIN_E_INVALID;
  }
  if (__builtin_mul_overflow(t->dims[0] - 1, t->strides[0], &extent) ||
      __builtin_add_overflow(extent, t->dims[1], &extent) ||
      __builtin_mul_overflow(extent, (int64_t)sizeof(float), &extent)) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "execute: %s's extent overflows", name);
    return OLC_PLUGIN_E_INVALID;
  }
  return OLC_PLUGIN_OK;
}

/* Nonzero unless the operand is one check_tensor accepts, in few
 * instructions and no branch: every call checks three, and with
 * cg_policy_usable this keeps the checks a small share of the smallest
 * products' fixed cost, where check_tensor and cg_policy_check were a
 * large one (larger products' FMAs hide either).  Dimensions and leading
 * dimension below 2^30 keep the
 * extent's arithmetic far from overflow without testing it; anything
 * else (a bad operand, a larger one, a single row's narrow leading
 * dimension) goes through check_tensor.  struct_size must have been
 * checked. */
#define CG_PLAIN_BITS 30
static inline uint64_t tensor_odd(const olc_plugin_tensor *t) {
  /* dtype and rank as one word: little-endian order (on a big-endian
   * machine no operand matches, and every call takes check_tensor). */
  const uint64_t want = (uint64_t)2 << 32 | OLC_PLUGIN_DTYPE_FLOAT32;
  const uint64_t sizes =
      ((uint64_t)t->dims[0] - 1) | ((uint64_t)t->dims[1] - 1) | ((uint64_t)t->strides[0] - 1);
  uint64_t head;
  memcpy(&head, &t->dtype, sizeof(head));
  return (head ^ want) | (uint64_t)(t->strides[1] ^ 1) | (sizes >> CG_PLAIN_BITS) |
         (((uint64_t)t->strides[0] - (uint64_t)t->dims[1]) >> 63) | (uint64_t)(t->data == NULL);
}

static inline int tensor_sized(const olc_plugin_tensor *t) {
  return OLC_PLUGIN_HAS_FIELD(t, olc_plugin_tensor, data);
}

/* The bytes [lo, hi) a row-major matrix spans. */
static void span(const olc_plugin_tensor *t, uintptr_t *lo, uintptr_t *hi) {
  *lo = (uintptr_t)t->data;
  *hi = *lo + (uintptr_t)(((t->dims[0] - 1) * t->strides[0] + t->dims[1]) * (int64_t)sizeof(float));
}

static int overlaps(const olc_plugin_tensor *x, const olc_plugin_tensor *y) {
  uintptr_t xl, xh, yl, yh;
  span(x, &xl, &xh);
  span(y, &yl, &yh);
  return xl < yh && yl < xh;
}

/* The arguments as a product: shapes that agree, C apart from A and B. */
static int32_t decode_args(const cg_instance *in, const olc_plugin_exec_args *args,
                           cg_gemm_args *g) {
  const olc_plugin_tensor *a, *b, *c;
  int32_t rc;
  if (args == NULL || !OLC_PLUGIN_HAS_FIELD(args, olc_plugin_exec_args, beta) ||
      args->input_count != 2 || args->output_count != 1 || args->inputs == NULL ||
      args->outputs == NULL) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID,
              "execute: MatMul takes 2 inputs (A, B) and 1 output (C)");
    return OLC_PLUGIN_E_INVALID;
  }
  a = &args->inputs[0], b = &args->inputs[1], c = &args->outputs[0];
  if (!(tensor_sized(a) && tensor_sized(b) && tensor_sized(c) &&
        (tensor_odd(a) | tensor_odd(b) | tensor_odd(c)) == 0) &&
      ((rc = check_tensor(in, a, "A")) != OLC_PLUGIN_OK ||
       (rc = check_tensor(in, b, "B")) != OLC_PLUGIN_OK ||
       (rc = check_tensor(in, c, "C")) != OLC_PLUGIN_OK))
    return rc;
  if (a->dims[1] != b->dims[0] || c->dims[0] != a->dims[0] || c->dims[1] != b->dims[1]) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID,
              "execute: shapes disagree: A %lldx%lld, B %lldx%lld, C %lldx%lld",
              (long long)a->dims[0], (long long)a->dims[1], (long long)b->dims[0],
              (long long)b->dims[1], (long long)c->dims[0], (long long)c->dims[1]);
    return OLC_PLUGIN_E_INVALID;
  }
  if (overlaps(a, c) || overlaps(b, c)) {
    cg_report(in->host, OLC_PLUGIN_E_UNSUPPORTED,
              "execute: C overlaps an input (in-place products are not served)");
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  g->m = a->dims[0], g->k = a->dims[1], g->n = b->dims[1];
  g->a = a->data, g->lda = a->strides[0];
  g->b = b->data, g->ldb = b->strides[0];
  g->c = c->data, g->ldc = c->strides[0];
  g->alpha = (float)args->alpha;
  g->beta = (float)args->beta;
  return OLC_PLUGIN_OK;
}

/* On the pool when the policy splits and the pool is free; else here. */
static int run_product(cg_instance *in, const cg_gemm_args *g, const cg_policy *p) {
  cg_workspace *ws = NULL;
  int rc;
  if (p->split != CG_SPLIT_NONE && in->threads > 1 && cg_mutex_trylock(&in->pool_mu)) {
    rc = cg_gemm(g, p, in->pool, in->threads, in->ws);
    cg_mutex_unlock(&in->pool_mu);
    return rc;
  }
  if (cg_gemm_needs_ws(g, p) && (ws = cg_ws_cache_take(&in->cache)) == NULL)
    return -1;
  rc = cg_gemm(g, p, NULL, 1, ws);
  cg_ws_cache_give(&in->cache, ws);
  return rc;
}

int32_t cg_plugin_execute(void *instance, const olc_plugin_workload *workload, const void *policy,
                          const olc_plugin_exec_args *args) {
  cg_instance *in = instance;
  const cg_policy *p = policy;
  cg_gemm_args g = {0};
  char why[200];
  int32_t rc;
  if (workload != NULL && OLC_PLUGIN_HAS_FIELD(workload, olc_plugin_workload, operator_name) &&
      (workload->operator_name == NULL || !is_matmul(workload->operator_name))) {
    cg_report(in->host, OLC_PLUGIN_E_UNSUPPORTED, "execute: operator %s is not MatMul",
              workload->operator_name != NULL ? workload->operator_name : "(none)");
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if (p == NULL) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "execute without a policy");
    return OLC_PLUGIN_E_INVALID;
  }
  if (!cg_policy_usable(p, in->isa) && cg_policy_check(p, in->isa, why, sizeof(why)) != 0) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "%s", why);
    return OLC_PLUGIN_E_INVALID;
  }
  if ((rc = decode_args(in, args, &g)) != OLC_PLUGIN_OK)
    return rc;
  if (cg_gemm_one_block(&g, p))
    return OLC_PLUGIN_OK;
  if (run_product(in, &g, p) != 0) {
    cg_report(in->host, OLC_PLUGIN_E_NOMEM, "execute: out of memory for workspaces");
    return OLC_PLUGIN_E_NOMEM;
  }
  return OLC_PLUGIN_OK;
}
