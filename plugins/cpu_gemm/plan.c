/*
 * plan.c - the general decoding of an execute (plan.h): views (transposed,
 * strided, broadcast by stride 0), float16 and bfloat16, MatMul's rank-1
 * operands and broadcast batch, Gemm's bias C.
 */
#include "plan.h"

#include <string.h>

#include "convert.h"

/* A tensor's own description: sizes, strides, dtype, extent. */
static int32_t check_view(const cg_instance *in, const olc_plugin_tensor *t, const char *name,
                          uint32_t min_rank, uint32_t max_rank) {
  int64_t extent = 0;
  if (t == NULL || !OLC_PLUGIN_HAS_FIELD(t, olc_plugin_tensor, data)) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "execute: %s missing or too old", name);
    return OLC_PLUGIN_E_INVALID;
  }
  if (t->dtype != CG_F32 && t->dtype != CG_F16 && t->dtype != CG_BF16) {
    cg_report(in->host, OLC_PLUGIN_E_UNSUPPORTED,
              "execute: %s has dtype %u, float32 (1), float16 (2) and bfloat16 (5) are served",
              name, t->dtype);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if (t->rank < min_rank || t->rank > max_rank) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "execute: %s has rank %u, want %u..%u", name, t->rank,
              min_rank, max_rank);
    return OLC_PLUGIN_E_INVALID;
  }
  if (t->data == NULL) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "execute: %s has no data", name);
    return OLC_PLUGIN_E_INVALID;
  }
  for (uint32_t i = 0; i < t->rank; i++) {
    int64_t step;
    if (t->dims[i] < 1 || t->strides[i] < 0) {
      cg_report(in->host, OLC_PLUGIN_E_INVALID,
                "execute: %s has a dimension below 1 or a negative stride", name);
      return OLC_PLUGIN_E_INVALID;
    }
    if (__builtin_mul_overflow(t->dims[i] - 1, t->strides[i], &step) ||
        __builtin_add_overflow(extent, step, &extent)) {
      cg_report(in->host, OLC_PLUGIN_E_INVALID, "execute: %s's extent overflows", name);
      return OLC_PLUGIN_E_INVALID;
    }
  }
  if (__builtin_add_overflow(extent, 1, &extent) ||
      __builtin_mul_overflow(extent, (int64_t)cg_dtype_size(t->dtype), &extent)) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "execute: %s's extent overflows", name);
    return OLC_PLUGIN_E_INVALID;
  }
  return OLC_PLUGIN_OK;
}

static void opnd_span(cg_opnd *o, const olc_plugin_tensor *t) {
  int64_t extent = 0;
  for (uint32_t i = 0; i < t->rank; i++)
    extent += (t->dims[i] - 1) * t->strides[i];
  o->lo = (uintptr_t)t->data;
  o->hi = o->lo + (uintptr_t)((extent + 1) * (int64_t)cg_dtype_size(t->dtype));
}

/* A MatMul operand (rank >= 1): its last two dimensions, a rank-1 A a row
 * and a rank-1 B a column (numpy's promotion). */
static void opnd_matmul(cg_opnd *o, const olc_plugin_tensor *t, int is_b) {
  uint32_t r = t->rank;
  memset(o, 0, sizeof *o);
  o->data = t->data, o->dtype = t->dtype;
  if (r == 1) {
    o->rows = is_b ? t->dims[0] : 1, o->cols = is_b ? 1 : t->dims[0];
    o->rs = is_b ? t->strides[0] : 0, o->cs = is_b ? 0 : t->strides[0];
  } else {
    o->rows = t->dims[r - 2], o->cols = t->dims[r - 1];
    o->rs = t->strides[r - 2], o->cs = t->strides[r - 1];
    o->brank = (int)r - 2;
    for (int i = 0; i < o->brank; i++)
      o->bdims[i] = t->dims[i], o->bstrides[i] = t->strides[i];
  }
  opnd_span(o, t);
}

int cg_b_view(const olc_plugin_tensor *t, cg_view *v, int64_t *k, int64_t *n) {
  cg_opnd o;
  if (t == NULL || !OLC_PLUGIN_HAS_FIELD(t, olc_plugin_tensor, data) || t->data == NULL ||
      t->rank < 1 || t->rank > OLC_PLUGIN_MAX_RANK ||
      (t->dtype != CG_F32 && t->dtype != CG_F16 && t->dtype != CG_BF16))
    return -1;
  for (uint32_t i = 0; i < t->rank; i++)
    if (t->dims[i] < 1 || t->strides[i] < 0 || (i + 2 < t->rank && t->dims[i] != 1))
      return -1;
  opnd_matmul(&o, t, 1);
  v->data = o.data, v->rs = o.rs, v->cs = o.cs, v->dtype = o.dtype;
  *k = o.rows, *n = o.cols;
  return 0;
}

/* Whether a matrix is plain fp32 row-major (the engine's a / lda). */
static int opnd_plain(const cg_opnd *o) {
  return o->dtype == CG_F32 && (o->cs == 1 || o->cols == 1) && (o->rows == 1 || o->rs >= o->cols);
}

static void opnd_set(const cg_opnd *o, const char *at, int is_b, cg_gemm_args *g) {
  const float **ptr = is_b ? &g->b : &g->a;
  int64_t *ld = is_b ? &g->ldb : &g->lda;
  cg_view *v = is_b ? &g->bv : &g->av;
  if (opnd_plain(o)) {
    *ptr = (const float *)(const void *)at;
    *ld = o->rows == 1 ? o->cols : o->rs;
    return;
  }
  g->general |= is_b ? CG_GENERAL_B : CG_GENERAL_A;
  v->data = at, v->rs = o->rs, v->cs = o->cs, v->dtype = o->dtype;
}

static int32_t disagree(const cg_instance *in, const char *what) {
  cg_report(in->host, OLC_PLUGIN_E_INVALID, "execute: shapes disagree: %s", what);
  return OLC_PLUGIN_E_INVALID;
}

int32_t cg_plan_matmul(const cg_instance *in, const olc_plugin_exec_args *args, cg_plan *pl) {
  const olc_plugin_tensor *ta = &args->inputs[0], *tb = &args->inputs[1], *ty = &args->outputs[0];
  int32_t rc;
  uint32_t want_rank;
  int yi;
  if ((rc = check_view(in, ta, "A", 1, OLC_PLUGIN_MAX_RANK)) != OLC_PLUGIN_OK ||
      (rc = check_view(in, tb, "B", 1, OLC_PLUGIN_MAX_RANK)) != OLC_PLUGIN_OK ||
      (rc = check_view(in, ty, "Y", 0, OLC_PLUGIN_MAX_RANK)) != OLC_PLUGIN_OK)
    return rc;
  opnd_matmul(&pl->a, ta, 0);
  opnd_matmul(&pl->b, tb, 1);
  if (pl->a.cols != pl->b.rows)
    return disagree(in, "A's last dimension is not B's rows");
  pl->m = pl->a.rows, pl->k = pl->a.cols, pl->n = pl->b.cols;
  pl->brank = pl->a.brank > pl->b.brank ? pl->a.brank : pl->b.brank;
  for (int i = 0; i < pl->brank; i++) {
    int ia = i - (pl->brank - pl->a.brank), ib = i - (pl->brank - pl->b.brank);
    int64_t da = ia >= 0 ? pl->a.bdims[ia] : 1, db = ib >= 0 ? pl->b.bdims[ib] : 1;
    if (da != db && da != 1 && db != 1)
      return disagree(in, "the batch dimensions of A and B do not broadcast");
    pl->bdims[i] = da > db ? da : db;
    /* A broadcast dimension is read with stride 0: the same matrix. */
    pl->sa[i] = da == 1 ? 0 : pl->a.bstrides[ia];
    pl->sb[i] = db == 1 ? 0 : pl->b.bstrides[ib];
  }
  want_rank = (uint32_t)pl->brank + (ta->rank > 1) + (tb->rank > 1);
  if (ty->rank != want_rank)
    return disagree(in, "Y's rank is not the product's");
  for (int i = 0; i < pl->brank; i++) {
    if (ty->dims[i] != pl->bdims[i])
      return disagree(in, "Y's batch dimensions are not the broadcast of A's and B's");
    pl->sy[i] = ty->strides[i];
  }
  memset(&pl->y, 0, sizeof pl->y);
  pl->y.data = ty->data, pl->y.dtype = ty->dtype;
  pl->y.rows = pl->m, pl->y.cols = pl->n;
  pl->y.rs = pl->n, pl->y.cs = 1; /* a promoted dimension: never stepped */
  yi = pl->brank;
  if (ta->rank > 1) {
    if (ty->dims[yi] != pl->m)
      return disagree(in, "Y's rows are not A's");
    pl->y.rs = ty->strides[yi++];
  }
  if (tb->rank > 1) {
    if (ty->dims[yi] != pl->n)
      return disagree(in, "Y's columns are not B's");
    pl->y.cs = ty->strides[yi];
  }
  opnd_span(&pl->y, ty);
  pl->c.data = NULL;
  pl->alpha = (float)args->alpha, pl->beta = (float)args->beta;
  return OLC_PLUGIN_OK;
}

int32_t cg_plan_gemm(const cg_instance *in, const olc_plugin_exec_args *args, cg_plan *pl) {
  const olc_plugin_tensor *ta = &args->inputs[0], *tb = &args->inputs[1], *ty = &args->outputs[0];
  const olc_plugin_tensor *tc = args->input_count > 2 ? &args->inputs[2] : NULL;
  int32_t rc;
  if ((rc = check_view(in, ta, "A", 2, 2)) != OLC_PLUGIN_OK ||
      (rc = check_view(in, tb, "B", 2, 2)) != OLC_PLUGIN_OK ||
      (rc = check_view(in, ty, "Y", 2, 2)) != OLC_PLUGIN_OK ||
      (tc != NULL && (rc = check_view(in, tc, "C", 0, 2)) != OLC_PLUGIN_OK))
    return rc;
  opnd_matmul(&pl->a, ta, 0);
  opnd_matmul(&pl->b, tb, 1);
  opnd_matmul(&pl->y, ty, 0);
  pl->m = pl->a.rows, pl->k = pl->a.cols, pl->n = pl->b.cols;
  if (pl->b.rows != pl->k || pl->y.rows != pl->m || pl->y.cols != pl->n)
    return disagree(in, "A' is not m x k, B' k x n and Y m x n");
  pl->brank = 0;
  pl->alpha = (float)args->alpha;
  pl->beta = 0.0f; /* no C: Y = alpha * A' x B', Y not read */
  memset(&pl->c, 0, sizeof pl->c);
  if (tc != NULL && args->beta != 0.0) {
    /* ONNX's unidirectional broadcast of C to m x n: a dimension of 1
     * repeats (stride 0). */
    int64_t rows = tc->rank == 2 ? tc->dims[0] : 1,
            cols = tc->rank >= 1 ? tc->dims[tc->rank - 1] : 1;
    int64_t rs = tc->rank == 2 ? tc->strides[0] : 0,
            cs = tc->rank >= 1 ? tc->strides[tc->rank - 1] : 0;
    if ((rows != 1 && rows != pl->m) || (cols != 1 && cols != pl->n))
      return disagree(in, "C does not broadcast to m x n");
    pl->c.data = tc->data, pl->c.dtype = tc->dtype;
    pl->c.rows = pl->m, pl->c.cols = pl->n;
    pl->c.rs = rows == 1 ? 0 : rs, pl->c.cs = cols == 1 ? 0 : cs;
    opnd_span(&pl->c, tc);
    pl->beta = (float)args->beta;
  }
  return OLC_PLUGIN_OK;
}

int cg_opnd_overlap(const cg_opnd *x, const cg_opnd *y) { return x->lo < y->hi && y->lo < x->hi; }

/* The operands' types: one T, or the extension's fp32 with a 16-bit B. */
int32_t cg_plan_check_dtypes(const cg_instance *in, const cg_plan *pl) {
  uint32_t t = pl->a.dtype;
  if (pl->y.dtype != t || (pl->c.data != NULL && pl->c.dtype != t) ||
      (pl->b.dtype != t && !(t == CG_F32 && pl->b.dtype != CG_F32))) {
    cg_report(in->host, OLC_PLUGIN_E_UNSUPPORTED,
              "execute: dtypes A %u, B %u, Y %u: one type for all, or float32 with a float16 or "
              "bfloat16 B, is served",
              pl->a.dtype, pl->b.dtype, pl->y.dtype);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  return OLC_PLUGIN_OK;
}

/* The engine's arguments of one 2-D product of the plan. */
void cg_plan_product_args(const cg_plan *pl, const char *a, const char *b, cg_gemm_args *g) {
  memset(g, 0, sizeof *g);
  g->m = pl->m, g->n = pl->n, g->k = pl->k;
  g->alpha = pl->alpha, g->beta = pl->beta;
  opnd_set(&pl->a, a, 0, g);
  opnd_set(&pl->b, b, 1, g);
  g->pb = pl->pb;
  if (pl->c.data != NULL) {
    g->bias.data = pl->c.data, g->bias.rs = pl->c.rs, g->bias.cs = pl->c.cs;
    g->bias.dtype = pl->c.dtype;
  }
}

/* Whether the engine writes Y itself: fp32, rows contiguous. */
int cg_opnd_direct(const cg_opnd *y) {
  return y->dtype == CG_F32 && (y->cs == 1 || y->cols == 1) && (y->rows == 1 || y->rs >= y->cols);
}
