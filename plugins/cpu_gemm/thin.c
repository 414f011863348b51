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
 * each streaming B again: correct for any shape, fast for m <= 4.  Where
 * the layout would make the kernel's loads of B wait on its stores to C
 * (cg_vm_relocates_c), the kernels run on a copy of C in the workspace,
 * 2 KiB past B modulo 4 KiB: each thread copies its columns in (unless
 * beta is 0: C is not read) and back out.
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
  const cg_gemm_args *home; /* vm: the caller's product when g runs on a copy of C */
} thin_task;

/* Columns [n0, n1) of the m rows of C from src to dst. */
static void copy_c(float *dst, int64_t ldd, const float *src, int64_t lds, int64_t m, int64_t n0,
                   int64_t n1) {
  for (int64_t r = 0; r < m; r++)
    memcpy(dst + r * ldd + n0, src + r * lds + n0, (size_t)(n1 - n0) * sizeof(float));
}

static void vm_kernels(const cg_gemm_args *g, const cg_policy *p, int64_t n0, int64_t n1) {
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

/* Columns [n0, n1) of C, on the copy when there is one. */
static void vm_range(const thin_task *t, int64_t n0, int64_t n1) {
  const cg_gemm_args *g = t->g, *home = t->home;
  if (home != NULL && home->beta != 0.0f)
    copy_c(g->c, g->ldc, home->c, home->ldc, g->m, n0, n1);
  vm_kernels(g, t->p, n0, n1);
  if (home != NULL)
    copy_c(home->c, home->ldc, g->c, g->ldc, g->m, n0, n1);
}

static void vm_task(void *arg, uint32_t tid, uint32_t n) {
  const thin_task *t = arg;
  int64_t lo, hi;
  cg_split_range(t->g->n, cg_kernel_table[t->p->kernel].nr, tid, n, &lo, &hi);
  if (lo < hi)
    vm_range(t, lo, hi);
}

/* The copy of C in ws: rows CG_VM_C_LD(n) floats apart (a multiple of
 * 4 KiB, as B's), the first 2 KiB past B's rows modulo 4 KiB. */
static float *relocated_c(const cg_workspace *ws, const cg_gemm_args *g, int64_t *ldc) {
  const uintptr_t want = ((uintptr_t)g->b + 2048u) & 4095u;
  const uintptr_t have = (uintptr_t)ws->c_buf & 4095u;
  *ldc = CG_VM_C_LD(g->n);
  return ws->c_buf + ((want - have) & 4095u) / sizeof(float);
}

int cg_thin_vm(const cg_gemm_args *g, const cg_policy *p, cg_pool *pool, uint32_t threads,
               cg_workspace *ws) {
  thin_task t = {g, p, NULL, 0, 0, 0, NULL};
  cg_gemm_args copy;
  if (ws != NULL) {
    if (ws->c_buf == NULL || ws->c_cap < CG_VM_C_FLOATS(g->n))
      return -1;
    copy = *g;
    copy.c = relocated_c(ws, g, &copy.ldc);
    t.g = &copy, t.home = g;
  }
  if (threads <= 1)
    vm_range(&t, 0, g->n);
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
    thin_task t = {g, p, NULL, g->k, j0, min64(nr, g->n - j0), NULL};
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
