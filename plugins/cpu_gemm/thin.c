/*
 * thin.c - the drivers of the thin kernels, for products with few rows
 * (vm: m <= 4) or few columns (mv: n <= 4), the shapes of inference at
 * batch 1 to 4.  The large operand (B for vm, A for mv) is streamed once,
 * in place, never packed; threads split the long dimension (vm: columns,
 * split = jc; mv: rows, split = ic), so no two threads write one element
 * and no reduction is needed.
 *
 * vm, per thread: for every 4 rows of A, for each NC block of its columns,
 * for each KC slice of k: one kernel call sweeping the block, its sums in
 * registers over the slice's rows of B (kc concurrent row streams), C read
 * and written once per slice.  Shapes with more rows run in groups of 4,
 * each streaming B again: correct for any shape, fast for m <= 4.
 *
 * mv: B's (up to 4) columns are gathered once into contiguous vectors
 * (skipped when B is a contiguous single column), then each thread streams
 * its rows of A, KC floats of each row per kernel call.  Shapes with more
 * columns run in groups of 4.
 */
#include <string.h>

#include "gemm.h"
#include "kernels/kernels.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

typedef struct thin_task {
  const cg_gemm_args *g;
  const cg_policy *p;
  const float *bt; /* mv: gathered columns (or B itself) */
  int64_t ldbt, j0, cols;
} thin_task;

static void vm_range(const cg_gemm_args *g, const cg_policy *p, int64_t n0, int64_t n1) {
  const cg_kernel_info *ki = &cg_kernel_table[p->kernel];
  for (int64_t i0 = 0; i0 < g->m; i0 += ki->mr) {
    const int64_t rows = min64(ki->mr, g->m - i0);
    for (int64_t jc = n0; jc < n1; jc += p->nc) {
      const int64_t ncur = min64(p->nc, n1 - jc);
      for (int64_t pc = 0; pc < g->k; pc += p->kc) {
        const int64_t kcur = min64(p->kc, g->k - pc);
        ki->vm(rows, ncur, kcur, g->alpha, g->a + i0 * g->lda + pc, g->lda, g->b + pc * g->ldb + jc,
               g->ldb, pc == 0 ? g->beta : 1.0f, g->c + i0 * g->ldc + jc, g->ldc);
      }
    }
  }
}

static void vm_task(void *arg, uint32_t tid, uint32_t n) {
  const thin_task *t = arg;
  int64_t lo, hi;
  cg_split_range(t->g->n, cg_kernel_table[t->p->kernel].nr, tid, n, &lo, &hi);
  if (lo < hi)
    vm_range(t->g, t->p, lo, hi);
}

int cg_thin_vm(const cg_gemm_args *g, const cg_policy *p, cg_pool *pool, uint32_t threads) {
  thin_task t = {g, p, NULL, 0, 0, 0};
  if (threads <= 1)
    vm_range(g, p, 0, g->n);
  else
    cg_pool_run(pool, vm_task, &t);
  return 0;
}

static void mv_range(const thin_task *t, int64_t m0, int64_t m1) {
  const cg_gemm_args *g = t->g;
  const cg_kernel_info *ki = &cg_kernel_table[t->p->kernel];
  for (int64_t pc = 0; pc < g->k; pc += t->p->kc) {
    const int64_t kcur = min64(t->p->kc, g->k - pc);
    ki->mv(m1 - m0, t->cols, kcur, g->alpha, g->a + m0 * g->lda + pc, g->lda, t->bt + pc, t->ldbt,
           pc == 0 ? g->beta : 1.0f, g->c + m0 * g->ldc + t->j0, g->ldc);
  }
}

static void mv_task(void *arg, uint32_t tid, uint32_t n) {
  const thin_task *t = arg;
  int64_t lo, hi;
  cg_split_range(t->g->m, cg_kernel_table[t->p->kernel].mr, tid, n, &lo, &hi);
  if (lo < hi)
    mv_range(t, lo, hi);
}

/* Columns j0 .. j0 + cols - 1 of B as contiguous vectors of k floats. */
static void gather_columns(float *bt, const cg_gemm_args *g, int64_t j0, int64_t cols) {
  for (int64_t p = 0; p < g->k; p++) {
    const float *row = g->b + p * g->ldb + j0;
    for (int64_t j = 0; j < cols; j++)
      bt[j * g->k + p] = row[j];
  }
}

int cg_thin_mv(const cg_gemm_args *g, const cg_policy *p, cg_pool *pool, uint32_t threads,
               cg_workspace *ws) {
  const int64_t nr = cg_kernel_table[p->kernel].nr;
  for (int64_t j0 = 0; j0 < g->n; j0 += nr) {
    thin_task t = {g, p, NULL, g->k, j0, min64(nr, g->n - j0)};
    if (t.cols == 1 && g->ldb == 1) {
      t.bt = g->b + j0;
    } else {
      if (ws == NULL || ws->edge_b == NULL || ws->edge_b_cap < (size_t)(nr * g->k))
        return -1;
      gather_columns(ws->edge_b, g, j0, t.cols);
      t.bt = ws->edge_b;
    }
    if (threads <= 1)
      mv_range(&t, 0, g->m);
    else
      cg_pool_run(pool, mv_task, &t);
  }
  return 0;
}
