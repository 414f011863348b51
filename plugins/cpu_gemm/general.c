/*
 * general.c - cg_gemm in general mode: operands through views (transposed,
 * float16, bfloat16: read while packing), a constant B packed once
 * (constant.c), a bias stored into C where each block of it is first
 * written.  Operands that turn out plain are read as such; the rest runs
 * the blocked driver (gemm.c) with every general operand packed, or the
 * thin kernels' general drivers (thin.c).
 */
#include <stdint.h>

#include "convert.h"
#include "gemm.h"
#include "kernels/kernels.h"

void cg_bias_fill(float *c, int64_t ldc, const cg_view *bias, int64_t i0, int64_t j0, int64_t rows,
                  int64_t cols, float beta) {
  cg_convert_block(c, ldc, bias, i0, j0, rows, cols);
  if (beta == 1.0f)
    return;
  for (int64_t i = 0; i < rows; i++) {
    float *row = c + i * ldc;
    for (int64_t j = 0; j < cols; j++)
      row[j] *= beta;
  }
}

/* A view that is plain fp32 row-major (rows x cols): its a / ld. */
static int view_plain(const cg_view *v, int64_t rows, int64_t cols, const float **out,
                      int64_t *ld) {
  if (v->dtype != CG_F32 || v->cs != 1 || (v->rs < cols && rows > 1))
    return 0;
  *out = v->data;
  *ld = v->rs >= cols ? v->rs : cols;
  return 1;
}

/*
 * The product in general mode.  Operands that turn out plain fp32
 * row-major are read as such, a constant in row-major form is plain B;
 * a tile policy packs every general operand (an unpacked one is packed
 * anyway: the kernels read fp32 only) and reads a constant's panels; the
 * thin kernels have their own general drivers (thin.c).
 */
int cg_gemm_general(const cg_gemm_args *g0, const cg_policy *p0, cg_pool *pool, uint32_t threads,
                    cg_workspace *ws) {
  cg_gemm_args g = *g0;
  cg_policy p = *p0, pr;
  const cg_kernel_info *ki0 = &cg_kernel_table[p0->kernel];
  cg_kernel_info ki;
  if ((g.general & CG_GENERAL_A) && view_plain(&g.av, g.m, g.k, &g.a, &g.lda))
    g.general &= ~CG_GENERAL_A;
  if ((g.general & CG_GENERAL_B) && view_plain(&g.bv, g.k, g.n, &g.b, &g.ldb))
    g.general &= ~CG_GENERAL_B;
  if (g.pb != NULL && cg_packed_apply(&g, &p) != 0)
    return -1;
  if (g.general == 0 && g.pb == NULL && g.bias.data == NULL)
    return cg_gemm(&g, p0, pool, threads, ws);
  if (g.m <= 0 || g.n <= 0)
    return 0;
  if (g.k <= 0 || g.alpha == 0.0f) {
    if (g.bias.data != NULL)
      cg_bias_fill(g.c, g.ldc, &g.bias, 0, 0, g.m, g.n, g.beta);
    else
      cg_scale_c(g.c, g.ldc, g.m, g.n, g.beta);
    return 0;
  }
  if (p.split == CG_SPLIT_NONE || pool == NULL || threads < cg_pool_size(pool))
    threads = 1;
  else
    threads = cg_pool_size(pool);
  if (ws == NULL)
    return -1;
  if (ki0->kind != CG_KIND_TILE)
    return cg_thin_general(&g, &p, pool, threads, ws);
  if (g.general & CG_GENERAL_A)
    p.pack |= CG_PACK_A;
  if ((g.general & CG_GENERAL_B) && !(p.pack & (CG_PACK_B | CG_PACK_BJ)))
    p.pack |= CG_PACK_B;
  if (g.pb != NULL)
    p.pack = (p.pack & CG_PACK_A) | CG_PACK_B, p.bj_group = 0;
  pr = p;
  if (g.pb != NULL)
    pr.pack &= ~CG_PACK_B; /* the constant's panels: nothing to pack */
  for (uint32_t i = 0; i < threads; i++) {
    if (cg_ws_prepare(&ws[i], &g, &pr) != 0)
      return -1;
  }
  ki = *ki0;
  ki.packed_copy = NULL;
  cg_gemm_blocked(&g, &p, ws, &ki, 1, pool, threads);
  return 0;
}
