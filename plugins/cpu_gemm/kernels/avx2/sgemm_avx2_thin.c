/*
 * sgemm_avx2_thin.c - AVX2+FMA thin kernels: vm4 (m <= 4 rows of A against
 * B streamed row by row) and mv4 (n <= 4 columns: dot products of A's rows
 * with B's columns), reading the large operand once, in place.  Compiled
 * with -mavx2 -mfma only.
 */
#include <stddef.h>

#include "../kernels.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include "../prefetch.h"

static inline __m256i lanes(int64_t count) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(count >= 8 ? 8 : count)), idx);
}

/* M rows x W vectors of C, sums in registers over the k rows of B; the
 * last vector masked (masked != 0) to the lanes of `last`.  16 registers:
 * M * W accumulators, M broadcasts and one B vector. */
static inline __attribute__((always_inline)) void vm_chunk(const int M, const int W,
                                                           const int masked, int64_t k, float alpha,
                                                           const float *a, int64_t lda,
                                                           const float *b, int64_t ldb, float beta,
                                                           float *c, int64_t ldc, __m256i last) {
  __m256 acc[4][8];
  const __m256 alphav = _mm256_set1_ps(alpha), betav = _mm256_set1_ps(beta);
  for (int r = 0; r < M; r++)
    for (int w = 0; w < W; w++)
      acc[r][w] = _mm256_setzero_ps();
  for (int64_t p = 0; p < k; p++) {
    const float *bp = b + p * ldb;
    __m256 av[4];
    for (int r = 0; r < M; r++)
      av[r] = _mm256_broadcast_ss(a + r * lda + p);
    for (int w = 0; w < W; w++) {
      const __m256 bv =
          masked && w == W - 1 ? _mm256_maskload_ps(bp + 8 * w, last) : _mm256_loadu_ps(bp + 8 * w);
      for (int r = 0; r < M; r++)
        acc[r][w] = _mm256_fmadd_ps(av[r], bv, acc[r][w]);
    }
  }
  for (int r = 0; r < M; r++) {
    for (int w = 0; w < W; w++) {
      float *cp = c + r * ldc + 8 * w;
      __m256 v = _mm256_mul_ps(acc[r][w], alphav);
      if (masked && w == W - 1) {
        if (beta != 0.0f)
          v = _mm256_fmadd_ps(_mm256_maskload_ps(cp, last), betav, v);
        _mm256_maskstore_ps(cp, last, v);
      } else {
        if (beta != 0.0f)
          v = _mm256_fmadd_ps(_mm256_loadu_ps(cp), betav, v);
        _mm256_storeu_ps(cp, v);
      }
    }
  }
}

static inline __attribute__((always_inline)) void vm_rows(const int M, const int W, int64_t n,
                                                          int64_t k, float alpha, const float *a,
                                                          int64_t lda, const float *b, int64_t ldb,
                                                          float beta, float *c, int64_t ldc) {
  const __m256i all = _mm256_set1_epi32(-1);
  int64_t j = 0;
  for (; j + 8 * W <= n; j += 8 * W)
    vm_chunk(M, W, 0, k, alpha, a, lda, b + j, ldb, beta, c + j, ldc, all);
  for (; j + 8 <= n; j += 8)
    vm_chunk(M, 1, 0, k, alpha, a, lda, b + j, ldb, beta, c + j, ldc, all);
  if (j < n)
    vm_chunk(M, 1, 1, k, alpha, a, lda, b + j, ldb, beta, c + j, ldc, lanes(n - j));
}

/* One row of A, F (<= 8) rows of B: the F broadcasts of A, alpha folded
 * in, stay in registers for the whole sweep of n, so a step of W vectors
 * of C loads only B, into two chains of sums (even and odd rows of B), and
 * C is read and written once per group.  Registers: F broadcasts, 2 W
 * sums, one B vector. */
static inline __attribute__((always_inline)) void vm1_group(const int F, const int W, int64_t n,
                                                            float alpha, const float *a,
                                                            const float *b, int64_t ldb, float beta,
                                                            float *c) {
  __m256 av[8], s[4], t[4];
  const __m256 betav = _mm256_set1_ps(beta);
  int64_t j = 0;
  for (int p = 0; p < F; p++)
    av[p] = _mm256_set1_ps(alpha * a[p]);
  for (; j + 8 * W <= n; j += 8 * W) {
    for (int w = 0; w < W; w++)
      s[w] = t[w] = _mm256_setzero_ps();
    for (int p = 0; p < F; p++)
      for (int w = 0; w < W; w++) {
        const __m256 bv = _mm256_loadu_ps(b + p * ldb + j + 8 * w);
        if (p % 2 == 0)
          s[w] = _mm256_fmadd_ps(av[p], bv, s[w]);
        else
          t[w] = _mm256_fmadd_ps(av[p], bv, t[w]);
      }
    for (int w = 0; w < W; w++) {
      __m256 v = _mm256_add_ps(s[w], t[w]);
      if (beta != 0.0f)
        v = _mm256_fmadd_ps(betav, _mm256_loadu_ps(c + j + 8 * w), v);
      _mm256_storeu_ps(c + j + 8 * w, v);
    }
  }
  for (; j < n; j += 8) {
    const __m256i mk = lanes(n - j);
    s[0] = _mm256_setzero_ps();
    for (int p = 0; p < F; p++)
      s[0] = _mm256_fmadd_ps(av[p], _mm256_maskload_ps(b + p * ldb + j, mk), s[0]);
    if (beta != 0.0f)
      s[0] = _mm256_fmadd_ps(betav, _mm256_maskload_ps(c + j, mk), s[0]);
    _mm256_maskstore_ps(c + j, mk, s[0]);
  }
}

/* One row of A: the k rows of the call in groups of at most FMAX
 * (CG_VM1_GROUPS), W vectors of C a step. */
static inline __attribute__((always_inline)) void vm1_rows(const int FMAX, const int W, int64_t n,
                                                           int64_t k, float alpha, const float *a,
                                                           const float *b, int64_t ldb, float beta,
                                                           float *c) {
#define VM1_GROUP(F, p, bt) vm1_group(F, W, n, alpha, a + (p), b + (p)*ldb, ldb, bt, c)
  CG_VM1_GROUPS(FMAX, k, beta, VM1_GROUP);
#undef VM1_GROUP
}

/* Two to four rows of A: the sums of a chunk of columns in registers over
 * the k rows of B. */
static void vm_more_rows(int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,
                         const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  switch (m) {
  case 2:
    vm_rows(2, 4, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    break;
  case 3:
    vm_rows(3, 3, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    break;
  default:
    vm_rows(4, 2, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    break;
  }
}

/* One row of A in groups of up to 6 rows of B, 4 vectors (two lines of
 * each row) a step: each row of B read in one run over n and C once per
 * group, where the 8-vector chunk over all k rows read B in short runs of
 * every row at once. */
CG_VM_PROTO(sgemm_avx2_vm4) {
  if (m == 1)
    vm1_rows(6, 4, n, k, alpha, a, b, ldb, beta, c);
  else
    vm_more_rows(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/*
 * M (2 to 4) rows of A against F (<= 8) rows of B streaming from memory:
 * the F rows swept over all n columns together, one line (two vectors) of
 * each a step, each line of C read and written once per group (as in the
 * AVX-512 streaming variant; the chunk kernel reads each row of B in runs
 * of W vectors).  The broadcasts of A, alpha folded in, are loaded at each
 * step: M * F of them would not fit the 16 registers.
 */
static inline __attribute__((always_inline)) void
vm_group_line(const int M, const int F, const int masked, __m256i mk0, __m256i mk1, const float *a,
              int64_t lda, float alpha, const float *b, int64_t ldb, float beta, float *c,
              int64_t ldc) {
  __m256 s[4][2];
  for (int r = 0; r < M; r++) {
    const float *cr = c + r * ldc;
    for (int h = 0; h < 2; h++) {
      if (beta == 0.0f) {
        s[r][h] = _mm256_setzero_ps();
      } else {
        s[r][h] =
            masked ? _mm256_maskload_ps(cr + 8 * h, h ? mk1 : mk0) : _mm256_loadu_ps(cr + 8 * h);
        if (beta != 1.0f)
          s[r][h] = _mm256_mul_ps(_mm256_set1_ps(beta), s[r][h]);
      }
    }
  }
  for (int f = 0; f < F; f++) {
    const float *bf = b + f * ldb;
    const __m256 b0 = masked ? _mm256_maskload_ps(bf, mk0) : _mm256_loadu_ps(bf);
    const __m256 b1 = masked ? _mm256_maskload_ps(bf + 8, mk1) : _mm256_loadu_ps(bf + 8);
    for (int r = 0; r < M; r++) {
      const __m256 av = _mm256_set1_ps(alpha * a[r * lda + f]);
      s[r][0] = _mm256_fmadd_ps(av, b0, s[r][0]);
      s[r][1] = _mm256_fmadd_ps(av, b1, s[r][1]);
    }
  }
  for (int r = 0; r < M; r++) {
    float *cr = c + r * ldc;
    if (masked) {
      _mm256_maskstore_ps(cr, mk0, s[r][0]);
      _mm256_maskstore_ps(cr + 8, mk1, s[r][1]);
    } else {
      _mm256_storeu_ps(cr, s[r][0]);
      _mm256_storeu_ps(cr + 8, s[r][1]);
    }
  }
}

/* With PF, the rows q walks (the next group's) are prefetched as this
 * group's are used. */
static inline __attribute__((always_inline)) void vm_group(const int M, const int F, int64_t n,
                                                           float alpha, const float *a, int64_t lda,
                                                           const float *b, int64_t ldb, float beta,
                                                           float *c, int64_t ldc, const int PF,
                                                           pf_cursor q) {
  const __m256i all = _mm256_set1_epi32(-1);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    for (int f = 0; PF && f < F; f++)
      pf_line(&q);
    vm_group_line(M, F, 0, all, all, a, lda, alpha, b + j, ldb, beta, c + j, ldc);
  }
  if (j < n)
    vm_group_line(M, F, 1, lanes(n - j), lanes(n - j - 8), a, lda, alpha, b + j, ldb, beta, c + j,
                  ldc);
}

/* M rows of A: the k rows of the call in groups of at most 8
 * (CG_VM1_GROUPS); with PF, each group but the call's last prefetching
 * the next. */
static inline __attribute__((always_inline)) void
vm_stream_rows(const int M, const int PF, int64_t n, int64_t k, float alpha, const float *a,
               int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
#define VM_GROUP(F, p, bt)                                                                         \
  vm_group(M, F, n, alpha, a + (p), lda, b + (p)*ldb, ldb, bt, c, ldc, PF,                         \
           pf_after(b, ldb, n, (p), (F), k))
  CG_VM1_GROUPS(8, k, beta, VM_GROUP);
#undef VM_GROUP
}

/* One row of A as below; two to four in groups of rows of B (above), PF
 * choosing the prefetching variant. */
static inline __attribute__((always_inline)) void
vm_stream_any(const int PF, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
              int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  switch (m) {
  case 1:
    vm1_rows(8, 2, n, k, alpha, a, b, ldb, beta, c);
    break;
  case 2:
    vm_stream_rows(2, PF, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    break;
  case 3:
    vm_stream_rows(3, PF, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    break;
  default:
    vm_stream_rows(4, PF, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    break;
  }
}

/* The streaming variant: one row of A in groups of up to 8 rows of B, one
 * line (2 vectors) of each a step, the shape of OpenBLAS's own sgemv for
 * a matrix read from memory, which needs more rows in flight; with B in
 * cache the 6-row kernel above is the faster, so this is a kernel of its
 * own, and the first guess only where B exceeds the last-level cache. */
CG_VM_PROTO(sgemm_avx2_vm4_stream) {
  vm_stream_any(0, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* The prefetching variant (see prefetch.h), for B beyond the last-level
 * cache. */
CG_VM_PROTO(sgemm_avx2_vm4_prefetch) {
  vm_stream_any(1, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

/* R rows x N columns as dot products, U vectors of each row per step; the
 * k % 8 tail masked.  With PF (U 1 only), the rows q walks (the next
 * pass's) are prefetched as these are used, R lines every other step. */
static inline __attribute__((always_inline)) void mv_group(const int R, const int N, const int U,
                                                           int64_t k, float alpha, const float *a,
                                                           int64_t lda, const float *bt,
                                                           int64_t ldbt, float beta, float *c,
                                                           int64_t ldc, const int PF, pf_cursor q) {
  __m256 acc[8][4][2];
  int64_t p = 0;
  for (int r = 0; r < R; r++)
    for (int j = 0; j < N; j++)
      for (int u = 0; u < U; u++)
        acc[r][j][u] = _mm256_setzero_ps();
  for (; p + 8 * U <= k; p += 8 * U) {
    for (int l = 0; PF && p % 16 == 0 && l < R; l++)
      pf_line(&q);
    for (int u = 0; u < U; u++) {
      __m256 bv[4];
      for (int j = 0; j < N; j++)
        bv[j] = _mm256_loadu_ps(bt + j * ldbt + p + 8 * u);
      for (int r = 0; r < R; r++) {
        const __m256 av = _mm256_loadu_ps(a + r * lda + p + 8 * u);
        for (int j = 0; j < N; j++)
          acc[r][j][u] = _mm256_fmadd_ps(av, bv[j], acc[r][j][u]);
      }
    }
  }
  for (; p < k; p += 8) {
    const __m256i mk = lanes(k - p);
    __m256 bv[4];
    for (int j = 0; j < N; j++)
      bv[j] = _mm256_maskload_ps(bt + j * ldbt + p, mk);
    for (int r = 0; r < R; r++) {
      const __m256 av = _mm256_maskload_ps(a + r * lda + p, mk);
      for (int j = 0; j < N; j++)
        acc[r][j][0] = _mm256_fmadd_ps(av, bv[j], acc[r][j][0]);
    }
  }
  for (int r = 0; r < R; r++) {
    for (int j = 0; j < N; j++) {
      __m256 v = acc[r][j][0];
      float s, *cp = c + r * ldc + j;
      for (int u = 1; u < U; u++)
        v = _mm256_add_ps(v, acc[r][j][u]);
      s = alpha * hsum(v);
      *cp = beta == 0.0f ? s : s + beta * *cp;
    }
  }
}

/* Groups of R rows (chosen per N so that the sums, B's N vectors and one
 * row vector about fit the 16 registers), then the remaining rows one by
 * one. */
static inline __attribute__((always_inline)) void mv_cols(const int R, const int N, const int U,
                                                          const int PF, int64_t m, int64_t k,
                                                          float alpha, const float *a, int64_t lda,
                                                          const float *bt, int64_t ldbt, float beta,
                                                          float *c, int64_t ldc) {
  int64_t i = 0;
  for (; i + R <= m; i += R)
    mv_group(R, N, U, k, alpha, a + i * lda, lda, bt, ldbt, beta, c + i * ldc, ldc, PF,
             pf_after(a, lda, k, i, R, m));
  for (; i < m; i++)
    mv_group(1, N, U, k, alpha, a + i * lda, lda, bt, ldbt, beta, c + i * ldc, ldc, 0, pf_none());
}

/* Two to four columns of B.  Four: 3 rows a pass (12 sums; one of B's
 * vectors reloaded from L1 each step) rather than 2 that fit the
 * registers: B's vectors then serve three rows of A, and 12 independent
 * sums hide the FMA latency better than 8; the reload from L1 costs less
 * than both gain, in cache and beyond. */
static void mv_more_cols(int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,
                         const float *bt, int64_t ldbt, float beta, float *c, int64_t ldc) {
  switch (n) {
  case 2:
    mv_cols(4, 2, 1, 0, m, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
    break;
  case 3:
    mv_cols(3, 3, 1, 0, m, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
    break;
  default:
    mv_cols(3, 4, 1, 0, m, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
    break;
  }
}

/* One column: 4 rows of A a pass, two vectors (one line) of each a step. */
CG_MV_PROTO(sgemm_avx2_mv4) {
  if (n == 1)
    mv_cols(4, 1, 2, 0, m, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
  else
    mv_more_cols(m, n, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
}

/* The streaming variant.  One column: 8 rows of A a pass (8 streams in
 * flight), one vector of each a step: for A read from memory; with A in
 * cache the 4-row pass above is faster.  Four columns: 4 rows a pass (16
 * sums, B's vectors from L1), likewise for A from memory. */
static inline __attribute__((always_inline)) void
mv_stream_any(const int PF, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
              int64_t lda, const float *bt, int64_t ldbt, float beta, float *c, int64_t ldc) {
  if (n == 1)
    mv_cols(8, 1, 1, 0, m, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
  else if (n == 4)
    mv_cols(4, 4, 1, PF, m, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
  else
    mv_more_cols(m, n, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
}

CG_MV_PROTO(sgemm_avx2_mv4_stream) {
  mv_stream_any(0, m, n, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
}

/* The prefetching variant (see prefetch.h): four columns in 4-row passes,
 * each fetching the next pass's rows. */
CG_MV_PROTO(sgemm_avx2_mv4_prefetch) {
  mv_stream_any(1, m, n, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
}
#else
CG_VM_PROTO(sgemm_avx2_vm4) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb, (void)beta,
      (void)c, (void)ldc;
}

CG_MV_PROTO(sgemm_avx2_mv4) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)bt, (void)ldbt, (void)beta,
      (void)c, (void)ldc;
}

CG_VM_PROTO(sgemm_avx2_vm4_stream) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb, (void)beta,
      (void)c, (void)ldc;
}

CG_MV_PROTO(sgemm_avx2_mv4_stream) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)bt, (void)ldbt, (void)beta,
      (void)c, (void)ldc;
}

CG_VM_PROTO(sgemm_avx2_vm4_prefetch) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb, (void)beta,
      (void)c, (void)ldc;
}

CG_MV_PROTO(sgemm_avx2_mv4_prefetch) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)bt, (void)ldbt, (void)beta,
      (void)c, (void)ldc;
}
#endif
