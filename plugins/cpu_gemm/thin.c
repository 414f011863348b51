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

#include "convert.h"
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

/*
 * General mode (general.c): operands through views, a bias.  The thin
 * kernels read fp32 row-major operands, so a general operand is converted
 * in pieces into the calling thread's workspace right before the kernel
 * that reads it: vm, B's block of the KC slice, CG_GEN_FLOATS at most
 * (columns chunked), and A whole (its few rows); mv, B's few columns as
 * the plain driver gathers them, and A's row chunk of the KC slice.  The
 * bias is stored into each block of C right before its first KC slice,
 * whose kernel then accumulates onto it.  C is never relocated here.
 */
#define CG_GEN_FLOATS 65536

typedef struct gen_task {
  const cg_gemm_args *g;
  const cg_policy *p;
  cg_workspace *ws;
  const float *a; /* A fp32 row-major: the caller's or converted */
  int64_t lda;
  const float *bt; /* mv: B's columns gathered, column j at bt + j * k */
  int64_t w;       /* vm: B chunk width; mv: A row chunk */
  float beta0;
} gen_task;

static void vm_general_range(const gen_task *t, cg_workspace *ws, int64_t n0, int64_t n1) {
  const cg_gemm_args *g = t->g;
  const cg_policy *p = t->p;
  const cg_kernel_info *ki = &cg_kernel_table[p->kernel];
  for (int64_t i0 = 0; i0 < g->m; i0 += ki->mr) {
    const int64_t rows = min64(ki->mr, g->m - i0);
    for (int64_t jc = n0; jc < n1; jc += p->nc) {
      const int64_t ncur = min64(p->nc, n1 - jc);
      float *c = g->c + i0 * g->ldc + jc;
      if (g->bias.data != NULL)
        cg_bias_fill(c, g->ldc, &g->bias, i0, jc, rows, ncur, g->beta);
      for (int64_t jw = 0; jw < ncur; jw += t->w) {
        const int64_t wcur = min64(t->w, ncur - jw);
        for (int64_t pc = 0; pc < g->k; pc += p->kc) {
          const int64_t kcur = min64(p->kc, g->k - pc);
          const float *b = g->b + pc * g->ldb + jc + jw;
          int64_t ldb = g->ldb;
          if (g->general & CG_GENERAL_B) {
            cg_convert_block(ws->b_buf, wcur, &g->bv, pc, jc + jw, kcur, wcur);
            b = ws->b_buf, ldb = wcur;
          }
          ki->vm(rows, wcur, kcur, g->alpha, t->a + i0 * t->lda + pc, t->lda, b, ldb,
                 pc == 0 ? t->beta0 : 1.0f, c + jw, g->ldc);
        }
      }
    }
  }
}

static void vm_general_task(void *arg, uint32_t tid, uint32_t n) {
  const gen_task *t = arg;
  int64_t lo, hi;
  cg_split_range(t->g->n, cg_kernel_table[t->p->kernel].nr, tid, n, &lo, &hi);
  if (lo < hi)
    vm_general_range(t, &t->ws[tid], lo, hi);
}

/* Rows [m0, m1) of C, a chunk of rows at a time, all column groups of a
 * chunk over each KC slice of it (A's chunk converted once per slice). */
static void mv_general_range(const gen_task *t, cg_workspace *ws, int64_t m0, int64_t m1) {
  const cg_gemm_args *g = t->g;
  const cg_policy *p = t->p;
  const cg_kernel_info *ki = &cg_kernel_table[p->kernel];
  for (int64_t r0 = m0; r0 < m1; r0 += t->w) {
    const int64_t rows = min64(t->w, m1 - r0);
    float *c = g->c + r0 * g->ldc;
    if (g->bias.data != NULL)
      cg_bias_fill(c, g->ldc, &g->bias, r0, 0, rows, g->n, g->beta);
    for (int64_t pc = 0; pc < g->k; pc += p->kc) {
      const int64_t kcur = min64(p->kc, g->k - pc);
      const float *a = g->a + r0 * g->lda + pc;
      int64_t lda = g->lda;
      if (g->general & CG_GENERAL_A) {
        cg_convert_block(ws->a_buf, kcur, &g->av, r0, pc, rows, kcur);
        a = ws->a_buf, lda = kcur;
      }
      for (int64_t j0 = 0; j0 < g->n; j0 += ki->nr)
        ki->mv(rows, min64(ki->nr, g->n - j0), kcur, g->alpha, a, lda, t->bt + j0 * g->k + pc, g->k,
               pc == 0 ? t->beta0 : 1.0f, c + j0, g->ldc);
    }
  }
}

static void mv_general_task(void *arg, uint32_t tid, uint32_t n) {
  const gen_task *t = arg;
  int64_t lo, hi;
  cg_split_range(t->g->m, cg_kernel_table[t->p->kernel].mr, tid, n, &lo, &hi);
  if (lo < hi)
    mv_general_range(t, &t->ws[tid], lo, hi);
}

/* The largest multiple of q (at least q) whose product with kc fits
 * CG_GEN_FLOATS. */
static int64_t gen_chunk(int64_t kc, int64_t q) {
  const int64_t w = CG_GEN_FLOATS / kc / q * q;
  return w > q ? w : q;
}

int cg_thin_general(const cg_gemm_args *g, const cg_policy *p, cg_pool *pool, uint32_t threads,
                    cg_workspace *ws) {
  const cg_kernel_info *ki = &cg_kernel_table[p->kernel];
  const int64_t kc = min64(p->kc, g->k);
  gen_task t = {g, p, ws, g->a, g->lda, NULL, 0, g->bias.data != NULL ? 1.0f : g->beta};
  const cg_view plain = {g->b, g->ldb, 1, CG_F32};
  cg_view bt;
  if (ki->kind == CG_KIND_VM) {
    t.w = gen_chunk(kc, ki->nr);
    if (g->general & CG_GENERAL_A) {
      /* A's few rows, converted once for every thread. */
      if (cg_ws_reserve(&ws[0].a_buf, &ws[0].a_cap, (size_t)(g->m * g->k)) != 0)
        return -1;
      cg_convert_block(ws[0].a_buf, g->k, &g->av, 0, 0, g->m, g->k);
      t.a = ws[0].a_buf, t.lda = g->k;
    }
    /* A 16-bit B with contiguous rows: read as stored (thin16.c). */
    if (cg_thin_vm16(g, p, t.a, t.lda, t.beta0, pool, threads))
      return 0;
    if (g->general & CG_GENERAL_B) {
      for (uint32_t i = 0; i < threads; i++) {
        if (cg_ws_reserve(&ws[i].b_buf, &ws[i].b_cap, (size_t)(t.w * kc)) != 0)
          return -1;
      }
    }
    if (threads <= 1)
      vm_general_range(&t, &ws[0], 0, g->n);
    else
      cg_pool_run(pool, vm_general_task, &t);
    return 0;
  }
  t.w = gen_chunk(kc, ki->mr);
  /* B's columns, each k contiguous floats (row j of B's transpose): the
   * small operand of an mv product, gathered once for every thread. */
  if (cg_ws_reserve(&ws[0].edge_b, &ws[0].edge_b_cap, (size_t)g->n * (size_t)g->k) != 0)
    return -1;
  bt = cg_view_t((g->general & CG_GENERAL_B) ? &g->bv : &plain);
  cg_convert_block(ws[0].edge_b, g->k, &bt, 0, 0, g->n, g->k);
  t.bt = ws[0].edge_b;
  if (g->general & CG_GENERAL_A) {
    for (uint32_t i = 0; i < threads; i++) {
      if (cg_ws_reserve(&ws[i].a_buf, &ws[i].a_cap, (size_t)(t.w * kc)) != 0)
        return -1;
    }
  }
  if (threads <= 1)
    mv_general_range(&t, &ws[0], 0, g->m);
  else
    cg_pool_run(pool, mv_general_task, &t);
  return 0;
}
