/*
 * sgemm_avx512_12x32.c - AVX-512F micro-kernel, 12 rows x 32 columns.
 *
 * 24 ZMM accumulators + 2 B vectors + 1 broadcast = 27 of 32 registers.
 * Compiled with -mavx512f only; called only when the probe saw AVX-512F
 * and the OS saving ZMM state.
 */
#include <stddef.h>

#include "../kernels.h"

#if defined(__AVX512F__)
#include <immintrin.h>

#define K_MR 12
#define K_NR 32

#define ROW_FMA(r)                                                                                 \
  do {                                                                                             \
    __m512 av = _mm512_set1_ps(a[(r)*rs_a]);                                                       \
    acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);                                                \
    acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);                                                \
  } while (0)

static inline __attribute__((always_inline)) void
avx512_body(int64_t k, const float *a, int64_t rs_a, int64_t cs_a, const float *b, int64_t rs_b,
            float *c, int64_t ldc, int accumulate) {
  __m512 acc[K_MR][2];
  for (int r = 0; r < K_MR; r++) {
    acc[r][0] = _mm512_setzero_ps();
    acc[r][1] = _mm512_setzero_ps();
    _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T0);
    _mm_prefetch((const char *)(c + r * ldc + 16), _MM_HINT_T0);
  }
#pragma GCC unroll 2
  for (int64_t p = 0; p < k; p++) {
    __m512 b0 = _mm512_loadu_ps(b);
    __m512 b1 = _mm512_loadu_ps(b + 16);
    ROW_FMA(0);
    ROW_FMA(1);
    ROW_FMA(2);
    ROW_FMA(3);
    ROW_FMA(4);
    ROW_FMA(5);
    ROW_FMA(6);
    ROW_FMA(7);
    ROW_FMA(8);
    ROW_FMA(9);
    ROW_FMA(10);
    ROW_FMA(11);
    a += cs_a;
    b += rs_b;
  }
  for (int r = 0; r < K_MR; r++) {
    float *cr = c + r * ldc;
    __m512 v0 = acc[r][0], v1 = acc[r][1];
    if (accumulate) {
      v0 = _mm512_add_ps(v0, _mm512_loadu_ps(cr));
      v1 = _mm512_add_ps(v1, _mm512_loadu_ps(cr + 16));
    }
    _mm512_storeu_ps(cr, v0);
    _mm512_storeu_ps(cr + 16, v1);
  }
}

void sgemm_avx512_12x32(int64_t k, const float *a, int64_t rs_a, int64_t cs_a, const float *b,
                        int64_t rs_b, float *c, int64_t ldc, int accumulate) {
  avx512_body(k, a, rs_a, cs_a, b, rs_b, c, ldc, accumulate);
}

void sgemm_avx512_12x32_packed(int64_t k, const float *a, int64_t rs_a, int64_t cs_a,
                               const float *b, int64_t rs_b, float *c, int64_t ldc,
                               int accumulate) {
  (void)rs_a;
  (void)cs_a;
  (void)rs_b;
  avx512_body(k, a, 1, K_MR, b, K_NR, c, ldc, accumulate);
}

#else
/* Built for another architecture: the probe never selects this kernel
 * there (its ISA level is never reported), so the bodies are empty. */
void sgemm_avx512_12x32(int64_t k, const float *a, int64_t rs_a, int64_t cs_a, const float *b,
                        int64_t rs_b, float *c, int64_t ldc, int accumulate) {
  (void)k, (void)a, (void)rs_a, (void)cs_a, (void)b, (void)rs_b, (void)c, (void)ldc,
      (void)accumulate;
}

void sgemm_avx512_12x32_packed(int64_t k, const float *a, int64_t rs_a, int64_t cs_a,
                               const float *b, int64_t rs_b, float *c, int64_t ldc,
                               int accumulate) {
  sgemm_avx512_12x32(k, a, rs_a, cs_a, b, rs_b, c, ldc, accumulate);
}
#endif
