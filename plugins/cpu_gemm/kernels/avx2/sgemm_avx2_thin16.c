/*
 * sgemm_avx2_thin16.c - the AVX2 few-row kernel with a 16-bit B
 * (thin16.h): bfloat16 widened by vpmovzxwd and a shift, float16 by
 * vcvtph2ps (F16C: the caller passes float16 here only where the
 * processor has it).  Compiled with -mavx2 -mfma -mf16c.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../kernels.h"
#include "../thin16.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>

#include "../prefetch.h"

/* 8 elements of B at p as float32. */
static inline __attribute__((always_inline)) __m256 load8(const int BF, const uint16_t *p) {
  const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)p);
  if (BF)
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  return _mm256_cvtph_ps(h);
}

static inline __m256i lanes(int64_t count) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(count >= 8 ? 8 : count)), idx);
}

/*
 * M rows of A against F (<= 8) rows of B over 16 columns of C (two
 * vectors per row), the sums starting from beta * C; B's rows at b (ldb
 * apart) hold at least 16 elements each.  The broadcasts of A (alpha
 * folded in) come from aa, loaded at each use: M * F of them would not
 * fit the 16 registers.  One row of A takes the even and odd rows of B
 * into two chains of sums.
 */
static inline __attribute__((always_inline)) void
step16(const int BF, const int M, const int F, const int masked, __m256i mk0, __m256i mk1,
       float aa[4][8], const uint16_t *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  __m256 s[4][2], t0 = _mm256_setzero_ps(), t1 = t0;
  for (int r = 0; r < M; r++)
    for (int h = 0; h < 2; h++) {
      const float *cr = c + r * ldc + 8 * h;
      if (beta == 0.0f) {
        s[r][h] = _mm256_setzero_ps();
      } else {
        s[r][h] = masked ? _mm256_maskload_ps(cr, h ? mk1 : mk0) : _mm256_loadu_ps(cr);
        if (beta != 1.0f)
          s[r][h] = _mm256_mul_ps(_mm256_set1_ps(beta), s[r][h]);
      }
    }
  for (int f = 0; f < F; f++) {
    const __m256 b0 = load8(BF, b + f * ldb), b1 = load8(BF, b + f * ldb + 8);
    if (M == 1 && f % 2 == 1) {
      const __m256 av = _mm256_broadcast_ss(&aa[0][f]);
      t0 = _mm256_fmadd_ps(av, b0, t0);
      t1 = _mm256_fmadd_ps(av, b1, t1);
    } else {
      for (int r = 0; r < M; r++) {
        const __m256 av = _mm256_broadcast_ss(&aa[r][f]);
        s[r][0] = _mm256_fmadd_ps(av, b0, s[r][0]);
        s[r][1] = _mm256_fmadd_ps(av, b1, s[r][1]);
      }
    }
  }
  if (M == 1 && F > 1) {
    s[0][0] = _mm256_add_ps(s[0][0], t0);
    s[0][1] = _mm256_add_ps(s[0][1], t1);
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

/* A group's rows over the n columns, 16 a step; the last n % 16 columns
 * of B through a zero-padded copy (no load past B's end).  With PF, a
 * line of the next group's rows prefetched per line of this group's
 * consumed (every other step: a line holds 32 elements). */
static inline __attribute__((always_inline)) void
vm16_group(const int BF, const int M, const int F, const int PF, int64_t n, float alpha,
           const float *a, int64_t lda, int64_t as, const uint16_t *b, int64_t ldb, float beta,
           float *c, int64_t ldc, pf_cursor q) {
  const __m256i all = _mm256_set1_epi32(-1);
  float aa[4][8];
  int64_t j = 0;
  for (int r = 0; r < M; r++)
    for (int f = 0; f < F; f++)
      aa[r][f] = alpha * a[r * lda + f * as];
  for (; j + 16 <= n; j += 16) {
    if (PF && (j & 16) == 0)
      for (int f = 0; f < F; f++)
        pf_line(&q);
    step16(BF, M, F, 0, all, all, aa, b + j, ldb, beta, c + j, ldc);
  }
  if (j < n) {
    uint16_t tmp[8][16];
    memset(tmp, 0, sizeof tmp);
    for (int f = 0; f < F; f++)
      memcpy(tmp[f], b + f * ldb + j, (size_t)(n - j) * sizeof(uint16_t));
    step16(BF, M, F, 1, lanes(n - j), lanes(n - j - 8), aa, tmp[0], 16, beta, c + j, ldc);
  }
}

static inline pf_cursor pf_after16(const uint16_t *b, int64_t ldb, int64_t n, int64_t first,
                                   int64_t rows, int64_t total) {
  const int64_t next = first + rows, left = total - next;
  pf_cursor q = {(uintptr_t)b + (uintptr_t)(next * ldb) * sizeof(uint16_t), 0,
                 n * (int64_t)sizeof(uint16_t), ldb * (int64_t)sizeof(uint16_t),
                 left < rows ? left : rows};
  return q;
}

/* The k rows of B in blocks of 8 * S rows, each swept as S groups of 8
 * rows S apart, then the rest in groups of at most 8: as the AVX-512
 * kernel's vm16_rows (sgemm_avx512_thin16.c). */
#define VM16_S 32
static inline __attribute__((always_inline)) void vm16_rows(const int BF, const int M, const int PF,
                                                            int64_t n, int64_t k, float alpha,
                                                            const float *a, int64_t lda,
                                                            const uint16_t *b, int64_t ldb,
                                                            float beta, float *c, int64_t ldc) {
  const int64_t S = k / 8 < VM16_S ? k / 8 : VM16_S;
  const int64_t full = S >= 2 ? k / (8 * S) * (8 * S) : 0;
  for (int64_t p = 0; p < full; p += 8 * S)
    for (int64_t s = 0; s < S; s++)
      vm16_group(BF, M, 8, 0, n, alpha, a + p + s, lda, S, b + (p + s) * ldb, S * ldb,
                 p + s == 0 ? beta : 1.0f, c, ldc, pf_none());
  b += full * ldb, a += full, k -= full;
  if (full > 0)
    beta = 1.0f;
#define VM16_GROUP(F, p, bt)                                                                       \
  vm16_group(BF, M, F, PF, n, alpha, a + (p), lda, 1, b + (p)*ldb, ldb, bt, c, ldc,                \
             PF ? pf_after16(b, ldb, n, (p), (F), k) : pf_none())
  CG_VM1_GROUPS(8, k, beta, VM16_GROUP);
#undef VM16_GROUP
}

CG_VM16_ENTRY(sgemm_avx2_vm4_h16)
#else
/* Built for another architecture: never selected there. */
CG_VM16_PROTO(sgemm_avx2_vm4_h16) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb, (void)flags,
      (void)beta, (void)c, (void)ldc;
}
#endif
