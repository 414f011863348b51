/*
 * sgemm_avx2_6x16.c - AVX2+FMA micro-kernel, 6 rows x 16 columns.
 *
 * 12 YMM accumulators + 2 B vectors + 1 broadcast A value = 15 of the 16
 * registers; each k step is 12 FMAs against 8 loads, so the two FMA pipes
 * stay the bottleneck.  Compiled with -mavx2 -mfma only.
 */
#include <stddef.h>

#include "../kernels.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#define K_MR 6
#define K_NR 16

#define ROW_FMA(r)                                                                                 \
  do {                                                                                             \
    __m256 av = _mm256_broadcast_ss(a + (r)*rs_a);                                                 \
    c##r##0 = _mm256_fmadd_ps(av, b0, c##r##0);                                                    \
    c##r##1 = _mm256_fmadd_ps(av, b1, c##r##1);                                                    \
  } while (0)

#define ROW_STORE(r)                                                                               \
  do {                                                                                             \
    float *cr = c + (r)*ldc;                                                                       \
    if (accumulate) {                                                                              \
      c##r##0 = _mm256_add_ps(c##r##0, _mm256_loadu_ps(cr));                                       \
      c##r##1 = _mm256_add_ps(c##r##1, _mm256_loadu_ps(cr + 8));                                   \
    }                                                                                              \
    _mm256_storeu_ps(cr, c##r##0);                                                                 \
    _mm256_storeu_ps(cr + 8, c##r##1);                                                             \
  } while (0)

static inline __attribute__((always_inline)) void avx2_body(int64_t k, const float *a, int64_t rs_a,
                                                            int64_t cs_a, const float *b,
                                                            int64_t rs_b, float *c, int64_t ldc,
                                                            int accumulate) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  for (int r = 0; r < K_MR; r++)
    _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T0);
#pragma GCC unroll 4
  for (int64_t p = 0; p < k; p++) {
    __m256 b0 = _mm256_loadu_ps(b);
    __m256 b1 = _mm256_loadu_ps(b + 8);
#ifdef CG_AVX2_PREFETCH_A
    _mm_prefetch((const char *)(a + CG_AVX2_PREFETCH_A * cs_a), _MM_HINT_T0);
#endif
    ROW_FMA(0);
    ROW_FMA(1);
    ROW_FMA(2);
    ROW_FMA(3);
    ROW_FMA(4);
    ROW_FMA(5);
    a += cs_a;
    b += rs_b;
  }
  ROW_STORE(0);
  ROW_STORE(1);
  ROW_STORE(2);
  ROW_STORE(3);
  ROW_STORE(4);
  ROW_STORE(5);
}

void sgemm_avx2_6x16(int64_t k, const float *a, int64_t rs_a, int64_t cs_a, const float *b,
                     int64_t rs_b, float *c, int64_t ldc, int accumulate) {
  avx2_body(k, a, rs_a, cs_a, b, rs_b, c, ldc, accumulate);
}

void sgemm_avx2_6x16_packed(int64_t k, const float *a, int64_t rs_a, int64_t cs_a, const float *b,
                            int64_t rs_b, float *c, int64_t ldc, int accumulate) {
  (void)rs_a;
  (void)cs_a;
  (void)rs_b;
  avx2_body(k, a, 1, K_MR, b, K_NR, c, ldc, accumulate);
}

#else
/* Built for another architecture: the probe never selects this kernel
 * there (its ISA level is never reported), so the bodies are empty. */
void sgemm_avx2_6x16(int64_t k, const float *a, int64_t rs_a, int64_t cs_a, const float *b,
                     int64_t rs_b, float *c, int64_t ldc, int accumulate) {
  (void)k, (void)a, (void)rs_a, (void)cs_a, (void)b, (void)rs_b, (void)c, (void)ldc,
      (void)accumulate;
}

void sgemm_avx2_6x16_packed(int64_t k, const float *a, int64_t rs_a, int64_t cs_a, const float *b,
                            int64_t rs_b, float *c, int64_t ldc, int accumulate) {
  sgemm_avx2_6x16(k, a, rs_a, cs_a, b, rs_b, c, ldc, accumulate);
}
#endif
