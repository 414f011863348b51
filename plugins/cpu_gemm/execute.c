/*
 * execute.c - execute: ONNX MatMul and Gemm on caller-owned operands, with
 * a policy of this instance, on whatever shape the operands have.
 *
 * The plain case, a runtime's hot path, is MatMul on fp32 row-major
 * matrices, C = alpha * A x B + beta * C: one quick test of the three
 * descriptions (tensor_odd) and the product.  Everything else goes through
 * the general decoding (plan.c) and cg_general_execute: views (transposed, strided,
 * broadcast by stride 0), float16 and bfloat16, MatMul's rank-1 operands
 * and broadcast batch (one engine call per 2-D product), Gemm's bias C,
 * and B packed once by pack.
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
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "instance.h"
#include "plan.h"

#if defined(__GNUC__)
#define CG_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define CG_NOINLINE __declspec(noinline)
#else
#define CG_NOINLINE
#endif
#if defined(__GNUC__)
#define CG_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define CG_ALWAYS_INLINE inline
#endif

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

/* Nonzero unless the operand is a plain fp32 row-major matrix, in few
 * instructions and no branch: every call checks three, and with
 * cg_policy_usable this keeps the checks a small share of the smallest
 * products' fixed cost, where check_tensor and cg_policy_check were a
 * large one (larger products' FMAs hide either).  Dimensions and leading
 * dimension below 2^30 keep the extent's arithmetic far from overflow
 * without testing it; anything else (a view, another dtype or rank, a bad
 * operand, a larger one, a single row's narrow leading dimension) goes
 * through the general decoding.  struct_size must have been checked. */
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

/* decode_plain's answer when the operands are not the plain case. */
#define CG_NOT_PLAIN 1

/* The plain case as a product: shapes that agree, C apart from A and B;
 * CG_NOT_PLAIN for anything else (general_execute decodes it). */
static CG_ALWAYS_INLINE int32_t decode_plain(const cg_instance *in,
                                             const olc_plugin_exec_args *args, cg_gemm_args *g) {
  const olc_plugin_tensor *a, *b, *c;
  if (args == NULL || !OLC_PLUGIN_HAS_FIELD(args, olc_plugin_exec_args, beta) ||
      args->input_count != 2 || args->output_count != 1 || args->inputs == NULL ||
      args->outputs == NULL)
    return CG_NOT_PLAIN;
  a = &args->inputs[0], b = &args->inputs[1], c = &args->outputs[0];
  if (!(tensor_sized(a) && tensor_sized(b) && tensor_sized(c) &&
        (tensor_odd(a) | tensor_odd(b) | tensor_odd(c)) == 0))
    return CG_NOT_PLAIN;
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
  /* Plain mode: the views are not read (zeroing the whole struct on every
   * call cost a rep stos, a visible share of the smallest products). */
  g->general = 0;
  g->pb = NULL;
  g->bias.data = NULL;
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

/* Rows of fp32 results a call stages for an output the engine cannot
 * write itself (a 16-bit or strided Y): a block of rows, so the staging
 * buffer stays bounded (a product with more rows runs block by block). */
#define CG_STAGE_FLOATS ((int64_t)1 << 20)

static int run_general(cg_instance *in, const cg_gemm_args *g, const cg_policy *p, int wait) {
  cg_workspace *ws;
  int rc;
  if (wait) {
    cg_mutex_lock(&in->pool_mu);
    rc = cg_gemm(g, p, in->pool, in->threads, in->ws);
    cg_mutex_unlock(&in->pool_mu);
    return rc;
  }
  if (p->split != CG_SPLIT_NONE && in->threads > 1 && cg_mutex_trylock(&in->pool_mu)) {
    rc = cg_gemm(g, p, in->pool, in->threads, in->ws);
    cg_mutex_unlock(&in->pool_mu);
    return rc;
  }
  /* Converted or transposed operands may need a workspace whatever the
   * policy packs: always one here (this is not the hot path). */
  if ((ws = cg_ws_cache_take(&in->cache)) == NULL)
    return -1;
  rc = cg_gemm(g, p, NULL, 1, ws);
  cg_ws_cache_give(&in->cache, ws);
  return rc;
}

/* One 2-D product into Y at y; staged through fp32 rows when Y is not a
 * plain fp32 matrix. */
static int product(cg_instance *in, const cg_policy *p, const cg_plan *pl, const char *a,
                   const char *b, char *y, cg_workspace *stage) {
  cg_gemm_args g;
  const cg_opnd *yo = &pl->y;
  size_t ysz = cg_dtype_size(yo->dtype), asz = cg_dtype_size(pl->a.dtype);
  int64_t block;
  cg_plan_product_args(pl, a, b, &g);
  if (cg_opnd_direct(yo)) {
    g.c = (float *)(void *)y;
    g.ldc = yo->rows == 1 ? yo->cols : yo->rs;
    return run_general(in, &g, p, pl->wait_pool);
  }
  block = CG_STAGE_FLOATS / pl->n;
  block = block < 1 ? 1 : block > pl->m ? pl->m : block;
  if (cg_ws_reserve(&stage->c_buf, &stage->c_cap, (size_t)(block * pl->n)) != 0)
    return -1;
  for (int64_t r0 = 0; r0 < pl->m; r0 += block) {
    int64_t rows = pl->m - r0 < block ? pl->m - r0 : block;
    cg_gemm_args gb = g;
    gb.m = rows;
    if (gb.general & CG_GENERAL_A)
      gb.av.data = (const char *)g.av.data + r0 * pl->a.rs * (int64_t)asz;
    else
      gb.a = g.a + r0 * g.lda;
    if (gb.bias.data != NULL)
      gb.bias.data = (const char *)g.bias.data + r0 * g.bias.rs * (int64_t)ysz;
    gb.c = stage->c_buf, gb.ldc = pl->n;
    /* MatMul's beta reads Y: staged in fp32 too. */
    if (gb.bias.data == NULL && gb.beta != 0.0f)
      for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < pl->n; j++)
          cg_load_f32(stage->c_buf + i * pl->n + j,
                      y + ((r0 + i) * yo->rs + j * yo->cs) * (int64_t)ysz, yo->dtype, 1);
    if (run_general(in, &gb, p, pl->wait_pool) != 0)
      return -1;
    for (int64_t i = 0; i < rows; i++) {
      char *row = y + (r0 + i) * yo->rs * (int64_t)ysz;
      if (yo->cs == 1 || pl->n == 1)
        cg_store_f32(row, yo->dtype, stage->c_buf + i * pl->n, pl->n);
      else
        for (int64_t j = 0; j < pl->n; j++)
          cg_store_f32(row + j * yo->cs * (int64_t)ysz, yo->dtype, stage->c_buf + i * pl->n + j, 1);
    }
  }
  return 0;
}

/* B packed by pack for this policy (or one that packs alike) and B's
 * shape, or NULL (read in place): only for one B matrix shared by every
 * product. */
static const cg_packed *packed_b(const olc_plugin_exec_args *args, const cg_policy *p,
                                 const cg_plan *pl) {
  const cg_const_b *cb;
  if (!OLC_PLUGIN_HAS_FIELD(args, olc_plugin_exec_args, packed) || args->packed == NULL ||
      (cb = args->packed[1]) == NULL)
    return NULL;
  for (int i = 0; i < pl->b.brank; i++)
    if (pl->b.bdims[i] != 1)
      return NULL;
  if (cb->k != pl->k || cb->n != pl->n || !cg_pack_shared(&cb->policy, p))
    return NULL;
  return cb->pk;
}

/* Why a policy cannot run here (none, or a kernel above this CPU's ISA),
 * reported; OLC_PLUGIN_OK when it can. */
static CG_NOINLINE int32_t policy_refused(cg_instance *in, const cg_policy *p) {
  char why[200];
  if (p == NULL) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "execute without a policy");
    return OLC_PLUGIN_E_INVALID;
  }
  if (!cg_policy_usable(p, in->isa) && cg_policy_check(p, in->isa, why, sizeof(why)) != 0) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "%s", why);
    return OLC_PLUGIN_E_INVALID;
  }
  return OLC_PLUGIN_OK;
}

int cg_reads_b_in_place(const cg_policy *p, const olc_plugin_tensor *b) {
  cg_view v;
  int64_t k, n;
  return cg_kernel_table[p->kernel].kind == CG_KIND_TILE &&
         (p->pack & (CG_PACK_B | CG_PACK_BJ)) == 0 && cg_b_view(b, &v, &k, &n) == 0 &&
         v.dtype == CG_F32 && (v.cs == 1 || n == 1) && (v.rs >= n || k == 1);
}

int32_t cg_plugin_pack(void *instance, const olc_plugin_workload *workload, const void *policy,
                       uint32_t input, const olc_plugin_tensor *operand, void **packed,
                       uint64_t *bytes) {
  cg_instance *in = instance;
  const cg_policy *p = policy;
  cg_const_b *cb;
  cg_view v;
  uint64_t size = 0;
  int32_t rc;
  (void)workload;
  if (packed == NULL || bytes == NULL || p == NULL) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "pack without a policy or an answer");
    return OLC_PLUGIN_E_INVALID;
  }
  *packed = NULL, *bytes = 0;
  if ((rc = policy_refused(in, p)) != OLC_PLUGIN_OK)
    return rc;
  if (input == 1 && operand != NULL && cg_reads_b_in_place(p, operand)) {
    /* A copy would make every call take the general path to read it
     * (twice the time of a 32^3 product), for a B read as it is anyway. */
    cg_report(in->host, OLC_PLUGIN_E_UNSUPPORTED, "pack: this policy reads B in place");
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  /* B alone is packed (the weights of MatMul and Gemm); one matrix. */
  if (input != 1 || (cb = calloc(1, sizeof *cb)) == NULL) {
    if (input != 1) {
      cg_report(in->host, OLC_PLUGIN_E_UNSUPPORTED, "pack: input %u is read in place", input);
      return OLC_PLUGIN_E_UNSUPPORTED;
    }
    cg_report(in->host, OLC_PLUGIN_E_NOMEM, "pack: out of memory");
    return OLC_PLUGIN_E_NOMEM;
  }
  if (cg_b_view(operand, &v, &cb->k, &cb->n) != 0) {
    free(cb);
    cg_report(in->host, OLC_PLUGIN_E_UNSUPPORTED,
              "pack: B is not one matrix of float32, float16 or bfloat16: read in place");
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if (cg_pack_constant(&cb->pk, p, 1, &v, cb->k, cb->n, &size) != 0 || cb->pk == NULL) {
    free(cb);
    cg_report(in->host, OLC_PLUGIN_E_UNSUPPORTED,
              "pack: this policy reads B in place (or packing ran out of memory)");
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  cb->policy = *p;
  *packed = cb;
  *bytes = size + sizeof *cb;
  return OLC_PLUGIN_OK;
}

void cg_plugin_release_packed(void *instance, void *packed) {
  cg_const_b *cb = packed;
  (void)instance;
  if (cb == NULL)
    return;
  cg_packed_free(cb->pk);
  free(cb);
}

int32_t cg_general_execute(cg_instance *in, int gemm, const olc_plugin_exec_args *args,
                           const cg_policy *p, int wait_pool) {
  cg_plan pl;
  cg_workspace *stage = NULL;
  int64_t idx[OLC_PLUGIN_MAX_RANK] = {0}, esa, esb, esy;
  int32_t rc;
  int bad = 0;
  if (args == NULL || !OLC_PLUGIN_HAS_FIELD(args, olc_plugin_exec_args, beta) ||
      args->inputs == NULL || args->outputs == NULL || args->output_count != 1 ||
      args->input_count < 2 || args->input_count > (gemm ? 3u : 2u)) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID,
              gemm ? "execute: Gemm takes 2 or 3 inputs (A, B, C) and 1 output (Y)"
                   : "execute: MatMul takes 2 inputs (A, B) and 1 output (C)");
    return OLC_PLUGIN_E_INVALID;
  }
  rc = gemm ? cg_plan_gemm(in, args, &pl) : cg_plan_matmul(in, args, &pl);
  if (rc != OLC_PLUGIN_OK || (rc = cg_plan_check_dtypes(in, &pl)) != OLC_PLUGIN_OK)
    return rc;
  if (cg_opnd_overlap(&pl.a, &pl.y) || cg_opnd_overlap(&pl.b, &pl.y) ||
      (pl.c.data != NULL && cg_opnd_overlap(&pl.c, &pl.y))) {
    cg_report(in->host, OLC_PLUGIN_E_UNSUPPORTED,
              "execute: C overlaps an input (in-place products are not served)");
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  for (int i = 0; i < pl.brank; i++)
    if (pl.bdims[i] > 1 && pl.sy[i] == 0) {
      cg_report(in->host, OLC_PLUGIN_E_INVALID, "execute: Y has stride 0 on a batch dimension");
      return OLC_PLUGIN_E_INVALID;
    }
  if ((pl.m > 1 && pl.y.rs == 0) || (pl.n > 1 && pl.y.cs == 0)) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "execute: Y has stride 0 on a row or column");
    return OLC_PLUGIN_E_INVALID;
  }
  pl.pb = packed_b(args, p, &pl);
  pl.wait_pool = wait_pool;
  if (!cg_opnd_direct(&pl.y) && (stage = cg_ws_cache_take(&in->cache)) == NULL)
    bad = 1;
  esa = (int64_t)cg_dtype_size(pl.a.dtype), esb = (int64_t)cg_dtype_size(pl.b.dtype);
  esy = (int64_t)cg_dtype_size(pl.y.dtype);
  /* Every index of the broadcast batch, the last dimension fastest. */
  while (!bad) {
    int64_t oa = 0, ob = 0, oy = 0;
    int d;
    for (int i = 0; i < pl.brank; i++)
      oa += idx[i] * pl.sa[i], ob += idx[i] * pl.sb[i], oy += idx[i] * pl.sy[i];
    bad = product(in, p, &pl, pl.a.data + oa * esa, pl.b.data + ob * esb,
                  (char *)(uintptr_t)pl.y.data + oy * esy, stage) != 0;
    for (d = pl.brank - 1; d >= 0; d--) {
      if (++idx[d] < pl.bdims[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      break;
  }
  if (stage != NULL)
    cg_ws_cache_give(&in->cache, stage);
  if (bad) {
    cg_report(in->host, OLC_PLUGIN_E_NOMEM, "execute: out of memory for workspaces");
    return OLC_PLUGIN_E_NOMEM;
  }
  return OLC_PLUGIN_OK;
}

/* MatMul: no workload or operator field (ABI 1.0 hosts), or the name. */
static inline int names_matmul(const olc_plugin_workload *w) {
  return w == NULL || !OLC_PLUGIN_HAS_FIELD(w, olc_plugin_workload, operator_name) ||
         (w->operator_name != NULL && is_matmul(w->operator_name));
}

/* Whether the host hands B packed (a constant of the binding). */
static inline int hands_packed_b(const olc_plugin_exec_args *args) {
  return args != NULL && OLC_PLUGIN_HAS_FIELD(args, olc_plugin_exec_args, packed) &&
         args->packed != NULL && args->packed[1] != NULL;
}

/* A plain product larger than one block: the driver, with workspaces. */
static CG_NOINLINE int32_t run_plain(cg_instance *in, const cg_gemm_args *g, const cg_policy *p) {
  if (run_product(in, g, p) != 0) {
    cg_report(in->host, OLC_PLUGIN_E_NOMEM, "execute: out of memory for workspaces");
    return OLC_PLUGIN_E_NOMEM;
  }
  return OLC_PLUGIN_OK;
}

/* Every case but the plain MatMul's: the operator, the policy and the
 * operands decoded in full.  Out of line, so that the plain call's frame
 * stays small. */
static CG_NOINLINE int32_t execute_decoded(cg_instance *in, const olc_plugin_workload *workload,
                                           const cg_policy *p, const olc_plugin_exec_args *args) {
  cg_gemm_args g; /* decode_plain sets what plain mode reads */
  int gemm = 0;
  int32_t rc;
  if (workload != NULL && OLC_PLUGIN_HAS_FIELD(workload, olc_plugin_workload, operator_name) &&
      (workload->operator_name == NULL || !is_matmul(workload->operator_name))) {
    if (workload->operator_name == NULL || strcmp(workload->operator_name, "Gemm") != 0) {
      cg_report(in->host, OLC_PLUGIN_E_UNSUPPORTED, "execute: operator %s is not MatMul or Gemm",
                workload->operator_name != NULL ? workload->operator_name : "(none)");
      return OLC_PLUGIN_E_UNSUPPORTED;
    }
    gemm = 1;
  }
  if ((rc = policy_refused(in, p)) != OLC_PLUGIN_OK)
    return rc;
  /* A constant B handed packed takes the general path, which reads it. */
  if (gemm || (rc = decode_plain(in, args, &g)) == CG_NOT_PLAIN ||
      (rc == OLC_PLUGIN_OK && hands_packed_b(args)))
    return cg_general_execute(in, gemm, args, p, 0);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  return run_plain(in, &g, p);
}

int32_t cg_plugin_execute(void *instance, const olc_plugin_workload *workload, const void *policy,
                          const olc_plugin_exec_args *args) {
  cg_instance *in = instance;
  const cg_policy *p = policy;
  cg_gemm_args g;
  /* The plain MatMul, a usable policy, no packed B: the quick test of its
   * three operands, then the product; anything else (and every failure)
   * goes through execute_decoded. */
  if (p != NULL && cg_policy_usable(p, in->isa) && names_matmul(workload) &&
      !hands_packed_b(args) && decode_plain(in, args, &g) == OLC_PLUGIN_OK) {
    if (cg_gemm_tiny(&g) || cg_gemm_one_block(&g, p))
      return OLC_PLUGIN_OK;
    return run_plain(in, &g, p);
  }
  return execute_decoded(in, workload, p, args);
}

/* ABI 1.5: the host checked what olc_plugin_matmul_args promises (shapes,
 * bounds, C apart), so the plain product starts at once. */
int32_t cg_plugin_matmul_f32(void *instance, const olc_plugin_workload *workload,
                             const void *policy, const olc_plugin_matmul_args *args) {
  cg_instance *in = instance;
  const cg_policy *p = policy;
  cg_gemm_args g;
  (void)workload; /* a MatMul: the host calls this for no other operator */
  if (p == NULL || !cg_policy_usable(p, in->isa)) {
    int32_t rc = policy_refused(in, p);
    return rc != OLC_PLUGIN_OK ? rc : OLC_PLUGIN_E_INVALID;
  }
  g.m = args->m, g.n = args->n, g.k = args->k;
  g.a = args->a, g.lda = args->lda;
  g.b = args->b, g.ldb = args->ldb;
  g.c = args->c, g.ldc = args->ldc;
  g.alpha = args->alpha, g.beta = args->beta;
  g.general = 0;
  g.pb = NULL;
  g.bias.data = NULL;
  if (cg_gemm_tiny(&g) || cg_gemm_one_block(&g, p))
    return OLC_PLUGIN_OK;
  return run_plain(in, &g, p);
}
