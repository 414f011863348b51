/*
 * sgemm_avx512_12x32.c - AVX-512F micro-kernel, 12 rows x 32 columns.
 *
 * 24 ZMM accumulators + 2 B vectors + 1 broadcast = 27 of 32 registers.
 * Partial tiles: the row count is a compile-time constant of each
 * specialisation and C columns past the edge are masked.  Compiled with
 * -mavx512f only; called only when the probe saw AVX-512F and the OS
 * saving ZMM state.
 */
#include <stddef.h>

#include "../kernels.h"

#if defined(__AVX512F__)
#include <immintrin.h>

#define K_MR 12
#define K_NR 32

#define ROW_FMA(r)                                                                                 \
  do {                                                                                             \
    if ((r) < rows) {                                                                              \
      __m512 av = _mm512_set1_ps(a[(r)*rs_a]);                                                     \
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);                                              \
      acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);                                              \
    }                                                                                              \
  } while (0)

static inline __attribute__((always_inline)) void
avx512_body(const int rows, int64_t cols, int64_t k, const float *a, int64_t rs_a, int64_t cs_a,
            const float *b, int64_t rs_b, float *c, int64_t ldc, int accumulate) {
  __m512 acc[K_MR][2];
  const uint32_t bits0 = cols >= 16 ? 0xffffu : (1u << cols) - 1u;
  const uint32_t bits1 = cols >= 32 ? 0xffffu : cols > 16 ? (1u << (cols - 16)) - 1u : 0u;
  const __mmask16 m0 = (__mmask16)bits0, m1 = (__mmask16)bits1;
  for (int r = 0; r < rows; r++) {
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
  for (int r = 0; r < rows; r++) {
    float *cr = c + r * ldc;
    __m512 v0 = acc[r][0], v1 = acc[r][1];
    if (accumulate) {
      v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, cr));
      v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, cr + 16));
    }
    _mm512_mask_storeu_ps(cr, m0, v0);
    _mm512_mask_storeu_ps(cr + 16, m1, v1);
  }
}

#define AVX512_CASE(R, RS_A, CS_A, RS_B)                                                           \
  case R:                                                                                          \
    avx512_body(R, n, k, a, RS_A, CS_A, b, RS_B, c, ldc, accumulate);                              \
    break;

#define AVX512_DISPATCH(RS_A, CS_A, RS_B)                                                          \
  switch (m) {                                                                                     \
    AVX512_CASE(12, RS_A, CS_A, RS_B)                                                              \
    AVX512_CASE(11, RS_A, CS_A, RS_B)                                                              \
    AVX512_CASE(10, RS_A, CS_A, RS_B)                                                              \
    AVX512_CASE(9, RS_A, CS_A, RS_B)                                                               \
    AVX512_CASE(8, RS_A, CS_A, RS_B)                                                               \
    AVX512_CASE(7, RS_A, CS_A, RS_B)                                                               \
    AVX512_CASE(6, RS_A, CS_A, RS_B)                                                               \
    AVX512_CASE(5, RS_A, CS_A, RS_B)                                                               \
    AVX512_CASE(4, RS_A, CS_A, RS_B)                                                               \
    AVX512_CASE(3, RS_A, CS_A, RS_B)                                                               \
    AVX512_CASE(2, RS_A, CS_A, RS_B)                                                               \
  default:                                                                                         \
    avx512_body(1, n, k, a, RS_A, CS_A, b, RS_B, c, ldc, accumulate);                              \
    break;                                                                                         \
  }

void sgemm_avx512_12x32(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a, int64_t cs_a,
                        const float *b, int64_t rs_b, float *c, int64_t ldc, int accumulate) {
  AVX512_DISPATCH(rs_a, cs_a, rs_b)
}

void sgemm_avx512_12x32_packed(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a,
                               int64_t cs_a, const float *b, int64_t rs_b, float *c, int64_t ldc,
                               int accumulate) {
  (void)rs_a;
  (void)cs_a;
  (void)rs_b;
  AVX512_DISPATCH(1, K_MR, K_NR)
}
#else
/* Built for another architecture: the probe never selects this kernel
 * there (its ISA level is never reported), so the bodies are empty. */
void sgemm_avx512_12x32(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a, int64_t cs_a,
                        const float *b, int64_t rs_b, float *c, int64_t ldc, int accumulate) {
  (void)m, (void)n, (void)k, (void)a, (void)rs_a, (void)cs_a, (void)b, (void)rs_b, (void)c,
      (void)ldc, (void)accumulate;
}

void sgemm_avx512_12x32_packed(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a,
                               int64_t cs_a, const float *b, int64_t rs_b, float *c, int64_t ldc,
                               int accumulate) {
  sgemm_avx512_12x32(m, n, k, a, rs_a, cs_a, b, rs_b, c, ldc, accumulate);
}
#endif
