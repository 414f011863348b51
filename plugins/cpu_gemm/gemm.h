/*
 * gemm.h - the blocked SGEMM driver: C = A x B, row-major, over the NC, KC
 * and MC loops (Goto/BLIS order) with the policy's kernel, blocking,
 * packing and thread split.
 */
#ifndef CPU_GEMM_GEMM_H
#define CPU_GEMM_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "threads.h"

/* One thread's packing buffers, grown on demand and kept between runs. */
typedef struct cg_workspace {
  float *a_buf, *b_buf, *edge_b;   /* edge_b: two kc x (group * nr) panel groups */
  size_t a_cap, b_cap, edge_b_cap; /* in floats */
  /* Grouped pack_bj: which half of edge_b holds the group the kernels
   * packed ahead, and what it holds (source, rows, columns); bj_ready is
   * cleared at the start of every run. */
  const float *bj_src;
  int64_t bj_rows, bj_width;
  int bj_cur, bj_ready;
} cg_workspace;

typedef struct cg_gemm_args {
  int64_t m, n, k;
  const float *a;
  int64_t lda;
  const float *b;
  int64_t ldb;
  float *c;
  int64_t ldc;
} cg_gemm_args;

/*
 * Runs the GEMM on all the threads of pool (the caller alone when pool is
 * NULL or the policy's split is none), using one workspace per thread:
 * ws must have threads >= pool size entries.  The policy must have passed
 * cg_policy_check.  Returns 0, or -1 when a buffer could not be allocated.
 */
int cg_gemm(const cg_gemm_args *args, const cg_policy *policy, cg_pool *pool, uint32_t threads,
            cg_workspace *ws);

/* Grows ws[0..threads-1] for a shape and policy ahead of time (so the first
 * timed run does not pay for allocation and page faults).  0 or -1. */
int cg_gemm_reserve(const cg_shape *shape, const cg_policy *policy, uint32_t threads,
                    cg_workspace *ws);

void cg_workspace_free(cg_workspace *ws);

/* Aligned allocation helpers shared with the plugin's prepared buffers:
 * 64-byte aligned, and transparent huge pages asked for when large. */
float *cg_alloc_floats(size_t count);
void cg_free_floats(float *p);

#endif
