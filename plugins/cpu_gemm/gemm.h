/*
 * gemm.h - the SGEMM drivers: C = alpha * A x B + beta * C, row-major with
 * leading dimensions.  Tile kernels run under the blocked driver (NC, KC
 * and MC loops in Goto/BLIS order, with the policy's blocking, packing and
 * thread split); thin kernels under their own loops (thin.c).
 */
#ifndef CPU_GEMM_GEMM_H
#define CPU_GEMM_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernels.h"
#include "policy.h"
#include "threads.h"

/* One thread's packing buffers, grown on demand and kept between runs. */
typedef struct cg_workspace {
  float *a_buf, *b_buf, *edge_b;   /* edge_b: two kc x (group * nr) panel groups */
  size_t a_cap, b_cap, edge_b_cap; /* in floats */
  /* Grouped pack_bj: which half of edge_b holds the group the kernels
   * packed ahead, and what it holds (source, rows, columns); bj_ready is
   * cleared at the start of every run and bj_src at its end (no pointer to
   * a caller's matrix outlives the call). */
  const float *bj_src;
  int64_t bj_rows, bj_width;
  int bj_cur, bj_ready;
} cg_workspace;

/* C = alpha * A x B + beta * C; with beta == 0 C is not read, with
 * alpha == 0 (or k == 0) A and B are not read. */
typedef struct cg_gemm_args {
  int64_t m, n, k;
  const float *a;
  int64_t lda;
  const float *b;
  int64_t ldb;
  float *c;
  int64_t ldc;
  float alpha, beta;
} cg_gemm_args;

/*
 * Runs the GEMM on all the threads of pool (the caller alone when pool is
 * NULL, threads is below the pool's size, or the policy's split is none),
 * using one workspace per thread: ws must have as many entries as threads
 * are used, and may be NULL when cg_gemm_needs_ws says none is needed.  The
 * policy must have passed cg_policy_check; it runs correctly on any shape.
 * Returns 0, or -1 when a buffer could not be allocated.
 */
int cg_gemm(const cg_gemm_args *args, const cg_policy *policy, cg_pool *pool, uint32_t threads,
            cg_workspace *ws);

/* Whether cg_gemm needs workspaces for this product and policy (packed
 * operands, B's columns gathered for a thin kernel); 0 or 1.  Inline: it
 * is on every execute call, whose fixed cost decides the smallest
 * products. */
static inline int cg_gemm_needs_ws(const cg_gemm_args *g, const cg_policy *p) {
  const cg_kernel_info *ki = &cg_kernel_table[p->kernel];
  if (ki->kind == CG_KIND_TILE)
    return p->pack != 0;
  if (ki->kind == CG_KIND_MV)
    return !(g->n == 1 && g->ldb == 1);
  return 0;
}

/* Grows ws[0..threads-1] for a shape and policy ahead of time (so the first
 * timed run does not pay for allocation and page faults).  0 or -1. */
int cg_gemm_reserve(const cg_shape *shape, const cg_policy *policy, uint32_t threads,
                    cg_workspace *ws);

void cg_workspace_free(cg_workspace *ws);

/* Grows *buf to at least need floats (64-byte aligned, touched); 0 or -1. */
int cg_ws_reserve(float **buf, size_t *cap, size_t need);

/* C = beta * C over m x n (beta 0: zeros, C not read); the whole product
 * when alpha or k is 0. */
void cg_scale_c(float *c, int64_t ldc, int64_t m, int64_t n, float beta);

/* A call's balanced share [lo, hi) of an extent, in whole units of q. */
void cg_split_range(int64_t extent, uint32_t q, uint32_t tid, uint32_t n, int64_t *lo, int64_t *hi);

/* The thin drivers (thin.c), called by cg_gemm for CG_KIND_VM / CG_KIND_MV
 * kernels with the thread count it settled on. */
int cg_thin_vm(const cg_gemm_args *g, const cg_policy *p, cg_pool *pool, uint32_t threads);
int cg_thin_mv(const cg_gemm_args *g, const cg_policy *p, cg_pool *pool, uint32_t threads,
               cg_workspace *ws);

/* Aligned allocation helpers shared with the plugin's prepared buffers:
 * 64-byte aligned, and transparent huge pages asked for when large. */
float *cg_alloc_floats(size_t count);
void cg_free_floats(float *p);

#endif
