/*
 * sgemm_avx512_thin16.c - the AVX-512F few-row kernel with a 16-bit B
 * (thin16.h): bfloat16 widened by vpmovzxwd and a shift, float16 by
 * vcvtph2ps, both AVX-512F (no AVX512-BF16 or AVX512-FP16 needed: A is
 * float32, so the products are float32 FMAs either way).  Compiled with
 * -mavx512f only.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../kernels.h"
#include "../thin16.h"

#if defined(__AVX512F__)
#include <immintrin.h>

#include "../prefetch.h"

/* The most groups of rows of B interleaved (vm16_rows). */
#define VM16_S 32

/* 16 elements of B at p as float32. */
static inline __attribute__((always_inline)) __m512 load16(const int BF, const uint16_t *p) {
  const __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)p);
  if (BF)
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  return _mm512_cvtph_ps(h);
}

/* The first count (< 16) elements at p, zeros after: AVX-512F has no
 * masked load of 16-bit elements, and reading past the count could
 * cross the end of B, so the last columns go through a copy. */
static inline __attribute__((always_inline)) __m512 load16_part(const int BF, const uint16_t *p,
                                                                int64_t count) {
  uint16_t tmp[16] = {0};
  memcpy(tmp, p, (size_t)count * sizeof(uint16_t));
  return load16(BF, tmp);
}

static inline __mmask16 lanes(int64_t count) {
  return (__mmask16)(count >= 16 ? 0xffffu : (1u << count) - 1u);
}

/* Sums of M rows of C over `cols` (<= 16) columns start from beta * C
 * (beta 0: C not read). */
static inline __attribute__((always_inline)) __m512 c_start(const int masked, __mmask16 mk,
                                                            const float *c, float beta) {
  if (beta == 0.0f)
    return _mm512_setzero_ps();
  const __m512 v = masked ? _mm512_maskz_loadu_ps(mk, c) : _mm512_loadu_ps(c);
  return beta == 1.0f ? v : _mm512_mul_ps(_mm512_set1_ps(beta), v);
}

/* The last n % 32 columns of a group, 16 at a time, masked. */
static inline __attribute__((always_inline)) void group_tail(const int BF, const int M, const int F,
                                                             int64_t j, int64_t n, __m512 av[4][8],
                                                             const uint16_t *b, int64_t ldb,
                                                             float beta, float *c, int64_t ldc) {
  for (; j < n; j += 16) {
    const int64_t cols = n - j < 16 ? n - j : 16;
    const __mmask16 mk = lanes(cols);
    __m512 s[4];
    for (int r = 0; r < M; r++)
      s[r] = c_start(1, mk, c + r * ldc + j, beta);
    for (int f = 0; f < F; f++) {
      const uint16_t *bf = b + f * ldb + j;
      const __m512 bv = cols == 16 ? load16(BF, bf) : load16_part(BF, bf, cols);
      for (int r = 0; r < M; r++)
        s[r] = _mm512_fmadd_ps(av[r][f], bv, s[r]);
    }
    for (int r = 0; r < M; r++)
      _mm512_mask_storeu_ps(c + r * ldc + j, mk, s[r]);
  }
}

/*
 * M rows of A against F (<= 8) rows of B (A's columns as apart, B's
 * rows ldb): the F rows swept over the n columns together, L lines (32
 * elements, two vectors, each) of each a step (two for up to two rows of
 * A, whose sums leave the registers for it),
 * each pair of vectors of C read and written once per group; alpha folded
 * into the broadcasts.  One row of A takes the even and odd rows of B into
 * two chains of sums, so that a step's F FMAs per vector are not one
 * chain.  With PF the next group's rows are prefetched, a line of one of
 * them per line of this group's consumed (prefetch.h).
 */
static inline __attribute__((always_inline)) void
vm16_group(const int BF, const int M, const int F, const int L, const int PF, int64_t n,
           float alpha, const float *a, int64_t lda, int64_t as, const uint16_t *b, int64_t ldb,
           float beta, float *c, int64_t ldc, pf_cursor q) {
  __m512 av[4][8];
  int64_t j = 0;
  for (int r = 0; r < M; r++)
    for (int f = 0; f < F; f++)
      av[r][f] = _mm512_set1_ps(alpha * a[r * lda + f * as]);
  for (; j + 32 * L <= n; j += 32 * L) {
    __m512 s[4][4], t[4];
    for (int v = 0; v < 2 * L; v++)
      t[v] = _mm512_setzero_ps();
    for (int r = 0; r < M; r++)
      for (int v = 0; v < 2 * L; v++)
        s[r][v] = c_start(0, 0, c + r * ldc + j + 16 * v, beta);
    for (int f = 0; f < F; f++) {
      const uint16_t *bf = b + f * ldb + j;
      __m512 bv[4];
      for (int v = 0; v < 2 * L; v++)
        bv[v] = load16(BF, bf + 16 * v);
      for (int l = 0; PF && l < L; l++)
        pf_line(&q);
      if (M == 1 && f % 2 == 1) {
        for (int v = 0; v < 2 * L; v++)
          t[v] = _mm512_fmadd_ps(av[0][f], bv[v], t[v]);
      } else {
        for (int r = 0; r < M; r++)
          for (int v = 0; v < 2 * L; v++)
            s[r][v] = _mm512_fmadd_ps(av[r][f], bv[v], s[r][v]);
      }
    }
    if (M == 1 && F > 1)
      for (int v = 0; v < 2 * L; v++)
        s[0][v] = _mm512_add_ps(s[0][v], t[v]);
    for (int r = 0; r < M; r++)
      for (int v = 0; v < 2 * L; v++)
        _mm512_storeu_ps(c + r * ldc + j + 16 * v, s[r][v]);
  }
  group_tail(BF, M, F, j, n, av, b, ldb, beta, c, ldc);
}

/* The rows after [first, first + rows) of B, as prefetch.h's pf_after
 * but in 16-bit elements. */
static inline pf_cursor pf_after16(const uint16_t *b, int64_t ldb, int64_t n, int64_t first,
                                   int64_t rows, int64_t total) {
  const int64_t next = first + rows, left = total - next;
  pf_cursor q = {(uintptr_t)b + (uintptr_t)(next * ldb) * sizeof(uint16_t), 0,
                 n * (int64_t)sizeof(uint16_t), ldb * (int64_t)sizeof(uint16_t),
                 left < rows ? left : rows};
  return q;
}

/*
 * M rows of A: the k rows of B in blocks of 8 * S rows (S at most
 * VM16_S), each swept as S groups of 8 rows S apart (rows p + s,
 * p + s + S, ...), so that where B's rows are contiguous each of a
 * group's 8 streams runs on over S rows of B across the S passes.  Groups
 * of 8 adjacent rows start 8 new streams every n * 2 bytes, half as long
 * as the float32 kernel's, and the hardware prefetchers then fall behind;
 * from memory, with S 32, the rate of B's bytes matches the float32
 * kernel's (bench/gemm/README.md).  The rows left over go in groups of at
 * most 8 (CG_VM1_GROUPS), with PF the next group prefetched.
 */
static inline __attribute__((always_inline)) void vm16_rows(const int BF, const int M, const int PF,
                                                            int64_t n, int64_t k, float alpha,
                                                            const float *a, int64_t lda,
                                                            const uint16_t *b, int64_t ldb,
                                                            float beta, float *c, int64_t ldc) {
  const int L = M <= 2 ? 2 : 1;
  const int64_t S = k / 8 < VM16_S ? k / 8 : VM16_S;
  const int64_t full = S >= 2 ? k / (8 * S) * (8 * S) : 0;
  for (int64_t p = 0; p < full; p += 8 * S)
    for (int64_t s = 0; s < S; s++)
      vm16_group(BF, M, 8, L, 0, n, alpha, a + p + s, lda, S, b + (p + s) * ldb, S * ldb,
                 p + s == 0 ? beta : 1.0f, c, ldc, pf_none());
  b += full * ldb, a += full, k -= full;
  if (full > 0)
    beta = 1.0f;
#define VM16_GROUP(F, p, bt)                                                                       \
  vm16_group(BF, M, F, L, PF, n, alpha, a + (p), lda, 1, b + (p)*ldb, ldb, bt, c, ldc,             \
             PF ? pf_after16(b, ldb, n, (p), (F), k) : pf_none())
  CG_VM1_GROUPS(8, k, beta, VM16_GROUP);
#undef VM16_GROUP
}

CG_VM16_ENTRY(sgemm_avx512_vm4_h16)
#else
/* Built for another architecture: never selected there. */
CG_VM16_PROTO(sgemm_avx512_vm4_h16) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb, (void)flags,
      (void)beta, (void)c, (void)ldc;
}
#endif
