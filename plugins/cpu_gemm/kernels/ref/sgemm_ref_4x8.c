/*
 * sgemm_ref_4x8.c - the portable micro-kernel: plain C, no ISA flags, runs
 * everywhere and is the reference the optimised kernels are tested against.
 */
#include <stddef.h>

#include "../kernels.h"

#define REF_MR 4
#define REF_NR 8

/* cols_b: the columns of B read (REF_NR from a zero-padded packed panel,
 * n from a source row, which may end at the matrix's last column). */
static inline void ref_body(int64_t m, int64_t n, int64_t cols_b, int64_t k, float alpha,
                            const float *a, int64_t rs_a, int64_t cs_a, const float *b,
                            int64_t rs_b, float beta, float *c, int64_t ldc) {
  float acc[REF_MR][REF_NR] = {{0}};
  for (int64_t p = 0; p < k; p++) {
    const float *bp = b + p * rs_b;
    for (int64_t r = 0; r < m; r++) {
      float av = a[r * rs_a + p * cs_a];
      for (int64_t j = 0; j < cols_b; j++)
        acc[r][j] += av * bp[j];
    }
  }
  for (int64_t r = 0; r < m; r++) {
    float *cr = c + r * ldc;
    for (int64_t j = 0; j < n; j++)
      cr[j] = beta == 0.0f ? alpha * acc[r][j] : alpha * acc[r][j] + beta * cr[j];
  }
}

CG_TILE_PROTO(sgemm_ref_4x8) { ref_body(m, n, n, k, alpha, a, rs_a, cs_a, b, rs_b, beta, c, ldc); }

CG_TILE_PROTO(sgemm_ref_4x8_packed) {
  (void)rs_a;
  (void)cs_a;
  (void)rs_b;
  ref_body(m, n, REF_NR, k, alpha, a, 1, REF_MR, b, REF_NR, beta, c, ldc);
}

/* The portable tile for CG_BLOCK_TILES: ref_body takes any width. */
#define REF_DISPATCH(RS_A, CS_A, RS_B, MASK_B, COPY)                                               \
  ref_body(m, n, n, k, alpha, a, RS_A, CS_A, b, RS_B, beta, c, ldc);

CG_BLOCK_PROTO(sgemm_ref_4x8_block) { CG_BLOCK_TILES(REF_MR, REF_NR, REF_DISPATCH) }
