/*
 * sgemm_ref_4x8.c - the portable micro-kernel: plain C, no ISA flags, runs
 * everywhere and is the reference the optimised kernels are tested against.
 */
#include <stddef.h>

#include "../kernels.h"

#define REF_MR 4
#define REF_NR 8

static inline void ref_body(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a,
                            int64_t cs_a, const float *b, int64_t rs_b, float *c, int64_t ldc,
                            int accumulate) {
  float acc[REF_MR][REF_NR] = {{0}};
  for (int64_t p = 0; p < k; p++) {
    const float *bp = b + p * rs_b;
    for (int64_t r = 0; r < m; r++) {
      float av = a[r * rs_a + p * cs_a];
      for (int j = 0; j < REF_NR; j++)
        acc[r][j] += av * bp[j];
    }
  }
  for (int64_t r = 0; r < m; r++) {
    float *cr = c + r * ldc;
    for (int64_t j = 0; j < n; j++)
      cr[j] = accumulate ? cr[j] + acc[r][j] : acc[r][j];
  }
}

void sgemm_ref_4x8(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a, int64_t cs_a,
                   const float *b, int64_t rs_b, float *c, int64_t ldc, int accumulate) {
  ref_body(m, n, k, a, rs_a, cs_a, b, rs_b, c, ldc, accumulate);
}

void sgemm_ref_4x8_packed(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a,
                          int64_t cs_a, const float *b, int64_t rs_b, float *c, int64_t ldc,
                          int accumulate) {
  (void)rs_a;
  (void)cs_a;
  (void)rs_b;
  ref_body(m, n, k, a, 1, REF_MR, b, REF_NR, c, ldc, accumulate);
}
