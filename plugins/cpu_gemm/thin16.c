/*
 * thin16.c - the few-row (vm) driver for a B of 16-bit elements read in
 * place (kernels/thin16.h): general mode's vm path when B is bfloat16 or
 * float16 with contiguous rows, handed on the call or a constant kept
 * 16-bit by cg_pack_constant.  The loops are the general vm driver's
 * (thin.c): threads split the columns, blocks of nc columns, the bias
 * stored into each block first (but all of k in one call), and B goes to
 * the kernel as stored instead of converted into the workspace first,
 * which would read B's bytes, write twice as many and read those again.
 */
#include "convert.h"
#include "gemm.h"
#include "kernels/kernels.h"
#include "kernels/thin16.h"
#include "probe.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* The 16-bit kernel for a vm policy's kernel (its instruction set), and
 * its flags; NULL where none applies (float16 on an AVX2 processor
 * without F16C: the converting path serves it). */
static cg_vm16_fn vm16_kernel(const cg_kernel_info *ki, uint32_t dtype, uint32_t *flags) {
  *flags = dtype == CG_BF16 ? CG_VM16_BF16 : 0u;
  /* The prefetching variant's choice carries over: fetching the next
   * group's rows pays where B streams from memory. */
  if (ki->vm == sgemm_avx512_vm4_prefetch || ki->vm == sgemm_avx2_vm4_prefetch)
    *flags |= CG_VM16_PF;
  switch (ki->isa) {
  case CG_ISA_AVX512:
    return sgemm_avx512_vm4_h16;
  case CG_ISA_AVX2:
    return dtype == CG_BF16 || cg_cvt_has_f16c() ? sgemm_avx2_vm4_h16 : NULL;
  default:
    return sgemm_ref_vm4_h16;
  }
}

typedef struct vm16_task {
  const cg_gemm_args *g;
  const cg_policy *p;
  cg_vm16_fn fn;
  uint32_t flags;
  const float *a; /* A fp32 row-major: the caller's or converted */
  int64_t lda;
  float beta0; /* the first slice's beta: 1 over a bias */
} vm16_task;

static void vm16_range(const vm16_task *t, int64_t n0, int64_t n1) {
  const cg_gemm_args *g = t->g;
  const cg_policy *p = t->p;
  const int64_t mr = cg_kernel_table[p->kernel].mr, rs = g->bv.rs;
  const uint16_t *b = g->bv.data;
  for (int64_t i0 = 0; i0 < g->m; i0 += mr) {
    const int64_t rows = min64(mr, g->m - i0);
    for (int64_t jc = n0; jc < n1; jc += p->nc) {
      const int64_t ncur = min64(p->nc, n1 - jc);
      float *c = g->c + i0 * g->ldc + jc;
      if (g->bias.data != NULL)
        cg_bias_fill(c, g->ldc, &g->bias, i0, jc, rows, ncur, g->beta);
      /* All k rows in one call, whatever the policy's kc: the kernel
       * passes over C once per group of rows anyway, and it interleaves
       * its groups over up to 256 rows, which a KC slice would cut. */
      t->fn(rows, ncur, g->k, g->alpha, t->a + i0 * t->lda, t->lda, b + jc, rs, t->flags, t->beta0,
            c, g->ldc);
    }
  }
}

static void vm16_task_run(void *arg, uint32_t tid, uint32_t n) {
  const vm16_task *t = arg;
  int64_t lo, hi;
  cg_split_range(t->g->n, cg_kernel_table[t->p->kernel].nr, tid, n, &lo, &hi);
  if (lo < hi)
    vm16_range(t, lo, hi);
}

int cg_thin_vm16(const cg_gemm_args *g, const cg_policy *p, const float *a, int64_t lda,
                 float beta0, cg_pool *pool, uint32_t threads) {
  const cg_kernel_info *ki = &cg_kernel_table[p->kernel];
  vm16_task t = {g, p, NULL, 0, a, lda, beta0};
  if (ki->kind != CG_KIND_VM || !(g->general & CG_GENERAL_B) || g->bv.cs != 1 ||
      (g->bv.dtype != CG_BF16 && g->bv.dtype != CG_F16))
    return 0;
  t.fn = vm16_kernel(ki, g->bv.dtype, &t.flags);
  if (t.fn == NULL)
    return 0;
  if (threads <= 1)
    vm16_range(&t, 0, g->n);
  else
    cg_pool_run(pool, vm16_task_run, &t);
  return 1;
}
