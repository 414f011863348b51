/*
 * plan.h - the general decoding of an execute's operands (plan.c): each
 * tensor as a matrix with its batch dimensions (cg_opnd), and the call as
 * 2-D products of one shape over a broadcast batch (cg_plan), checked
 * against ONNX's MatMul and Gemm.
 */
#ifndef CG_PLAN_H
#define CG_PLAN_H

#include <stdint.h>

#include "instance.h"

/* One operand as a matrix (rows x cols, element (i, j) at data + i * rs +
 * j * cs elements) with its leading batch dimensions. */
typedef struct cg_opnd {
  const char *data;
  uint32_t dtype;
  int64_t rows, cols, rs, cs;
  int brank;
  int64_t bdims[OLC_PLUGIN_MAX_RANK], bstrides[OLC_PLUGIN_MAX_RANK];
  uintptr_t lo, hi; /* the bytes it spans */
} cg_opnd;

/* The output's rows and columns per product, with the batch offsets. */
typedef struct cg_plan {
  cg_opnd a, b, y, c; /* c: Gemm's bias (c.data NULL: none) */
  int brank;          /* the broadcast batch */
  int64_t bdims[OLC_PLUGIN_MAX_RANK];
  int64_t sa[OLC_PLUGIN_MAX_RANK], sb[OLC_PLUGIN_MAX_RANK], sy[OLC_PLUGIN_MAX_RANK];
  int64_t m, n, k;
  float alpha, beta;
  const cg_packed *pb;
  int wait_pool; /* run: waits for the pool as the plain run does */
} cg_plan;

/* The plan of a MatMul (operands of rank >= 1, numpy's promotion and
 * broadcast batch) or a Gemm (matrices, C broadcast to m x n) call: each
 * tensor checked (rank, dtype, dimensions, extent), the shapes agreeing;
 * else the status, reported. */
int32_t cg_plan_matmul(const cg_instance *in, const olc_plugin_exec_args *args, cg_plan *pl);
int32_t cg_plan_gemm(const cg_instance *in, const olc_plugin_exec_args *args, cg_plan *pl);
/* The operands' types: one T, or float32 with a 16-bit B (reported). */
int32_t cg_plan_check_dtypes(const cg_instance *in, const cg_plan *pl);
/* Whether the bytes x and y span overlap. */
int cg_opnd_overlap(const cg_opnd *x, const cg_opnd *y);
/* The engine's arguments of one 2-D product, A and B at a and b. */
void cg_plan_product_args(const cg_plan *pl, const char *a, const char *b, cg_gemm_args *g);
/* Whether the engine writes y itself: float32, rows contiguous. */
int cg_opnd_direct(const cg_opnd *y);

#endif
