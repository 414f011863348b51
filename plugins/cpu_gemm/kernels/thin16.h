/*
 * thin16.h - few-row thin kernels (vm, m <= 4) whose B holds 16-bit
 * elements, bfloat16 or IEEE float16, with A and C float32: the decode
 * products of a model whose weights are stored in half the bytes.
 *
 * B is read in place as stored, each element converted to float32 in
 * registers as it is loaded (bfloat16: the upper half of a float32, a
 * shift; float16: vcvtph2ps), never widened into a float32 copy first:
 * such a product is a stream of B's bytes, and a copy would read them,
 * write twice as many and read those again.  Every element of either
 * type is exactly a float32, so the product is the float32 kernels'
 * product of B converted by cg_bf16_to_f32 / cg_f16_to_f32, up to the
 * order of the sums.
 */
#ifndef CPU_GEMM_KERNELS_THIN16_H
#define CPU_GEMM_KERNELS_THIN16_H

#include <stdint.h>

/* flags of a cg_vm16_fn call */
#define CG_VM16_BF16 1u /* B is bfloat16 (without it: float16) */
#define CG_VM16_PF 2u   /* prefetch the next group of B's rows (prefetch.h) */

/*
 * C[0..m)[0..n) = alpha * A * B + beta * C for m <= 4 (cg_vm_fn's
 * contract: beta 0 does not read C), B (k x n) at b with row stride ldb
 * in elements, each row a contiguous stream: groups of up to 8 rows of B
 * swept over all n columns together, C read and written once per group.
 */
typedef void (*cg_vm16_fn)(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                           int64_t lda, const uint16_t *b, int64_t ldb, uint32_t flags, float beta,
                           float *c, int64_t ldc);

#define CG_VM16_PROTO(name)                                                                        \
  void name(int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,             \
            const uint16_t *b, int64_t ldb, uint32_t flags, float beta, float *c, int64_t ldc)

/* The entry of a vectorized 16-bit vm kernel file: m (1 to 4) and the
 * four flag combinations made compile-time arguments of the file's
 * vm16_rows(BF, M, PF, n, k, alpha, a, lda, b, ldb, beta, c, ldc), so that
 * each combination is its own unrolled loop. */
#define CG_VM16_ENTRY(name)                                                                        \
  static inline __attribute__((always_inline)) void vm16_any(                                      \
      const int BF, const int PF, int64_t m, int64_t n, int64_t k, float alpha, const float *a,    \
      int64_t lda, const uint16_t *b, int64_t ldb, float beta, float *c, int64_t ldc) {            \
    switch (m) {                                                                                   \
    case 1:                                                                                        \
      vm16_rows(BF, 1, PF, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                             \
      break;                                                                                       \
    case 2:                                                                                        \
      vm16_rows(BF, 2, PF, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                             \
      break;                                                                                       \
    case 3:                                                                                        \
      vm16_rows(BF, 3, PF, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                             \
      break;                                                                                       \
    default:                                                                                       \
      vm16_rows(BF, 4, PF, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                             \
      break;                                                                                       \
    }                                                                                              \
  }                                                                                                \
  CG_VM16_PROTO(name) {                                                                            \
    if (m <= 0 || n <= 0)                                                                          \
      return;                                                                                      \
    switch (flags & (CG_VM16_BF16 | CG_VM16_PF)) {                                                 \
    case CG_VM16_BF16:                                                                             \
      vm16_any(1, 0, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                                \
      break;                                                                                       \
    case CG_VM16_BF16 | CG_VM16_PF:                                                                \
      vm16_any(1, 1, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                                \
      break;                                                                                       \
    case CG_VM16_PF:                                                                               \
      vm16_any(0, 1, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                                \
      break;                                                                                       \
    default:                                                                                       \
      vm16_any(0, 0, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                                \
      break;                                                                                       \
    }                                                                                              \
  }

CG_VM16_PROTO(sgemm_ref_vm4_h16);
CG_VM16_PROTO(sgemm_avx2_vm4_h16); /* float16 needs F16C as well */
CG_VM16_PROTO(sgemm_avx512_vm4_h16);

#endif
