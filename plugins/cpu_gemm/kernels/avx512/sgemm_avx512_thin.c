/*
 * sgemm_avx512_thin.c - AVX-512F thin kernels: vm4 (m <= 4 rows of A
 * against B streamed row by row) and mv4 (n <= 4 columns: dot products of
 * A's rows with B's columns), and their streaming and prefetching
 * variants.  Neither packs the large operand: it is read
 * once, in place, with the full vector width.  Compiled with -mavx512f only.
 */
#include <stddef.h>
#include <stdint.h>

#include "../kernels.h"

#if defined(__AVX512F__)
#include <immintrin.h>

#include "../prefetch.h"

static inline __mmask16 lanes(int64_t count) {
  return (__mmask16)(count >= 16 ? 0xffffu : (1u << count) - 1u);
}

/*
 * M (2 to 4) rows x W vectors of C whose sums stay in registers over the
 * k rows of B; the last vector masked to `last` lanes.  W is chosen so
 * that M * W independent accumulators cover the FMA latency of both
 * pipes.  With `pf`, each row's next chunk is prefetched: the FMAs per B
 * line are many enough that the out-of-order window holds too few of the
 * k concurrent row streams' misses to keep memory busy.  One row of A has
 * its own kernel (vm1).
 */
static inline __attribute__((always_inline)) void vm_chunk(const int M, const int W, const int pf,
                                                           int64_t k, float alpha, const float *a,
                                                           int64_t lda, const float *b, int64_t ldb,
                                                           float beta, float *c, int64_t ldc,
                                                           __mmask16 last) {
  __m512 acc[4][4];
  const __m512 alphav = _mm512_set1_ps(alpha), betav = _mm512_set1_ps(beta);
  for (int r = 0; r < M; r++)
    for (int w = 0; w < W; w++)
      acc[r][w] = _mm512_setzero_ps();
#pragma GCC unroll 2
  for (int64_t p = 0; p < k; p++) {
    const float *bp = b + p * ldb;
    /* An address, not a pointer into B: past B's last row it is no
     * object's, and a prefetch never faults. */
    for (int w = 0; pf && w < W; w++)
      _mm_prefetch((const char *)((uintptr_t)bp + 64u * (unsigned)(W + w)), _MM_HINT_T0);
    for (int w = 0; w < W; w++) {
      __m512 bv =
          w == W - 1 ? _mm512_maskz_loadu_ps(last, bp + 16 * w) : _mm512_loadu_ps(bp + 16 * w);
      for (int r = 0; r < M; r++)
        acc[r][w] = _mm512_fmadd_ps(_mm512_set1_ps(a[r * lda + p]), bv, acc[r][w]);
    }
  }
  for (int r = 0; r < M; r++) {
    for (int w = 0; w < W; w++) {
      float *cp = c + r * ldc + 16 * w;
      const __mmask16 mk = w == W - 1 ? last : (__mmask16)0xffffu;
      __m512 v = _mm512_mul_ps(acc[r][w], alphav);
      if (beta != 0.0f)
        v = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mk, cp), betav, v);
      _mm512_mask_storeu_ps(cp, mk, v);
    }
  }
}

static inline __attribute__((always_inline)) void vm_rows(const int M, const int W, int64_t n,
                                                          int64_t k, float alpha, const float *a,
                                                          int64_t lda, const float *b, int64_t ldb,
                                                          float beta, float *c, int64_t ldc) {
  int64_t j = 0;
  for (; j + 16 * W <= n; j += 16 * W)
    vm_chunk(M, W, 1, k, alpha, a, lda, b + j, ldb, beta, c + j, ldc, (__mmask16)0xffffu);
  for (; j < n; j += 16)
    vm_chunk(M, 1, 0, k, alpha, a, lda, b + j, ldb, beta, c + j, ldc, lanes(n - j));
}

/*
 * One row of A, F (<= 8) rows of B: the F broadcasts of A, alpha folded
 * in, stay in registers for the whole sweep of n, and each step takes two
 * vectors (two lines) of every row of B into two chains of sums (even and
 * odd rows), C read and written once per group.  It replaces an 8-vector
 * chunk over all k rows, which read each row of B in runs of 8 lines: k
 * short interleaved streams that hardware prefetchers follow poorly,
 * where here each row of B is one run over all n.
 */
static inline __attribute__((always_inline)) void vm1_group(const int F, int64_t n, float alpha,
                                                            const float *a, const float *b,
                                                            int64_t ldb, float beta, float *c) {
  __m512 av[8];
  const __m512 betav = _mm512_set1_ps(beta);
  int64_t j = 0;
  for (int p = 0; p < F; p++)
    av[p] = _mm512_set1_ps(alpha * a[p]);
  for (; j + 32 <= n; j += 32) {
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, t0 = s0, t1 = s0;
    for (int p = 0; p < F; p += 2) {
      s0 = _mm512_fmadd_ps(av[p], _mm512_loadu_ps(b + p * ldb + j), s0);
      s1 = _mm512_fmadd_ps(av[p], _mm512_loadu_ps(b + p * ldb + j + 16), s1);
      if (p + 1 < F) {
        t0 = _mm512_fmadd_ps(av[p + 1], _mm512_loadu_ps(b + (p + 1) * ldb + j), t0);
        t1 = _mm512_fmadd_ps(av[p + 1], _mm512_loadu_ps(b + (p + 1) * ldb + j + 16), t1);
      }
    }
    s0 = _mm512_add_ps(s0, t0);
    s1 = _mm512_add_ps(s1, t1);
    if (beta != 0.0f) {
      s0 = _mm512_fmadd_ps(betav, _mm512_loadu_ps(c + j), s0);
      s1 = _mm512_fmadd_ps(betav, _mm512_loadu_ps(c + j + 16), s1);
    }
    _mm512_storeu_ps(c + j, s0);
    _mm512_storeu_ps(c + j + 16, s1);
  }
  for (; j < n; j += 16) {
    const __mmask16 mk = lanes(n - j);
    __m512 s = _mm512_setzero_ps();
    for (int p = 0; p < F; p++)
      s = _mm512_fmadd_ps(av[p], _mm512_maskz_loadu_ps(mk, b + p * ldb + j), s);
    if (beta != 0.0f)
      s = _mm512_fmadd_ps(betav, _mm512_maskz_loadu_ps(mk, c + j), s);
    _mm512_mask_storeu_ps(c + j, mk, s);
  }
}

/* One row of A: the k rows of the call in groups of at most 8
 * (CG_VM1_GROUPS). */
static void vm1_rows(int64_t n, int64_t k, float alpha, const float *a, const float *b, int64_t ldb,
                     float beta, float *c) {
#define VM1_GROUP(F, p, bt) vm1_group(F, n, alpha, a + (p), b + (p)*ldb, ldb, bt, c)
  CG_VM1_GROUPS(8, k, beta, VM1_GROUP);
#undef VM1_GROUP
}

CG_VM_PROTO(sgemm_avx512_vm4) {
  switch (m) {
  case 1:
    vm1_rows(n, k, alpha, a, b, ldb, beta, c);
    break;
  case 2:
    vm_rows(2, 4, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    break;
  case 3:
    vm_rows(3, 4, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    break;
  default:
    vm_rows(4, 4, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    break;
  }
}

/*
 * M (2 to 4) rows of A against F (<= 8) rows of B streaming from memory:
 * the F rows are swept over all n columns together, one line of each a
 * step, and each vector of C is read and written once per group.  The
 * chunk kernel above keeps its sums over the call's rows instead, so each
 * of those rows is read in runs of W lines; with four rows of A (four FMAs
 * a line) the prefetchers then fall behind, while F rows swept together
 * are F long runs that they follow.  alpha is folded into the broadcasts;
 * C starts each column's sums, so the chain of F FMAs adds to it.
 */
static inline __attribute__((always_inline)) void
vm_group_sums(const int M, const int F, const int masked, __mmask16 mk, __m512 av[4][8],
              const float *b, int64_t ldb, float beta, const float *c, int64_t ldc, __m512 s[4]) {
  for (int r = 0; r < M; r++) {
    const float *cr = c + r * ldc;
    if (beta == 0.0f)
      s[r] = _mm512_setzero_ps();
    else if (beta == 1.0f)
      s[r] = masked ? _mm512_maskz_loadu_ps(mk, cr) : _mm512_loadu_ps(cr);
    else
      s[r] = _mm512_mul_ps(_mm512_set1_ps(beta),
                           masked ? _mm512_maskz_loadu_ps(mk, cr) : _mm512_loadu_ps(cr));
  }
  for (int f = 0; f < F; f++) {
    const __m512 bv =
        masked ? _mm512_maskz_loadu_ps(mk, b + f * ldb) : _mm512_loadu_ps(b + f * ldb);
    for (int r = 0; r < M; r++)
      s[r] = _mm512_fmadd_ps(av[r][f], bv, s[r]);
  }
}

static inline __attribute__((always_inline)) void vm_group_store(const int M, const int masked,
                                                                 __mmask16 mk, float *c,
                                                                 int64_t ldc, const __m512 s[4]) {
  for (int r = 0; r < M; r++) {
    if (masked)
      _mm512_mask_storeu_ps(c + r * ldc, mk, s[r]);
    else
      _mm512_storeu_ps(c + r * ldc, s[r]);
  }
}

static inline __attribute__((always_inline)) void
vm_group_col(const int M, const int F, const int masked, __mmask16 mk, __m512 av[4][8],
             const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  __m512 s[4];
  vm_group_sums(M, F, masked, mk, av, b, ldb, beta, c, ldc, s);
  vm_group_store(M, masked, mk, c, ldc, s);
}

static inline __attribute__((always_inline)) void vm_group_broadcasts(const int M, const int F,
                                                                      float alpha, const float *a,
                                                                      int64_t lda,
                                                                      __m512 av[4][8]) {
  for (int r = 0; r < M; r++)
    for (int f = 0; f < F; f++)
      av[r][f] = _mm512_set1_ps(alpha * a[r * lda + f]);
}

/* The last n % 16 columns, masked. */
static inline __attribute__((always_inline)) void vm_group_tail(const int M, const int F, int64_t n,
                                                                __m512 av[4][8], const float *b,
                                                                int64_t ldb, float beta, float *c,
                                                                int64_t ldc) {
  const int64_t full = n - n % 16;
  __m512 s[4];
  if (full < n) {
    const __mmask16 mk = lanes(n - full);
    vm_group_sums(M, F, 1, mk, av, b + full, ldb, beta, c + full, ldc, s);
    vm_group_store(M, 1, mk, c + full, ldc, s);
  }
}

/* With PF, the rows q walks (the next group's) are prefetched as this
 * group's are used. */
static inline __attribute__((always_inline)) void vm_group(const int M, const int F, int64_t n,
                                                           float alpha, const float *a, int64_t lda,
                                                           const float *b, int64_t ldb, float beta,
                                                           float *c, int64_t ldc, const int PF,
                                                           pf_cursor q) {
  __m512 av[4][8];
  int64_t j = 0;
  vm_group_broadcasts(M, F, alpha, a, lda, av);
  for (; j + 16 <= n; j += 16) {
    for (int f = 0; PF && f < F; f++)
      pf_line(&q);
    vm_group_col(M, F, 0, (__mmask16)0xffffu, av, b + j, ldb, beta, c + j, ldc);
  }
  vm_group_tail(M, F, n, av, b, ldb, beta, c, ldc);
}

/* Whether a call's stores to C share their low 12 address bits with the
 * loads of B one or two steps later, which then wait for them (4K
 * aliasing): C's rows less than two lines after B's modulo 4 KiB, for
 * every group of the call (B's row stride a multiple of 4 KiB).  Storing
 * each column two steps late (vm_group_lagged) lets those loads go first
 * and gives back most of what the waits cost.  Other strides are not
 * looked at.  Products of 32 rows of B or more in such a layout run on a
 * copy of C placed apart from B (cg_vm_relocates_c), which covers more
 * offsets; this path serves the smaller ones, where a copy of C costs
 * more than the aliasing. */
static inline int alias_soon(const float *b, int64_t ldb, const float *c) {
  const uintptr_t d = ((uintptr_t)c - (uintptr_t)b) & 4095u;
  return ((uint64_t)ldb * sizeof(float)) % 4096u == 0 && d > 0u && d < 128u;
}

/* Each column of C stored two steps late, after the loads of the next two
 * columns of B (alias_soon). */
static inline __attribute__((always_inline)) void
vm_group_lagged(const int M, const int F, int64_t n, float alpha, const float *a, int64_t lda,
                const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  const __mmask16 all = (__mmask16)0xffffu;
  const int64_t full = n - n % 16;
  __m512 av[4][8], s[4], s1[4], s2[4]; /* the sums of columns j, j - 16, j - 32 */
  vm_group_broadcasts(M, F, alpha, a, lda, av);
  for (int r = 0; r < M; r++)
    s1[r] = s2[r] = _mm512_setzero_ps();
  for (int64_t j = 0; j < full; j += 16) {
    vm_group_sums(M, F, 0, all, av, b + j, ldb, beta, c + j, ldc, s);
    if (j >= 32)
      vm_group_store(M, 0, all, c + j - 32, ldc, s2);
    for (int r = 0; r < M; r++)
      s2[r] = s1[r], s1[r] = s[r];
  }
  if (full >= 32)
    vm_group_store(M, 0, all, c + full - 32, ldc, s2);
  if (full >= 16)
    vm_group_store(M, 0, all, c + full - 16, ldc, s1);
  vm_group_tail(M, F, n, av, b, ldb, beta, c, ldc);
}

/* M rows of A: the k rows of the call in groups of at most 8
 * (CG_VM1_GROUPS), each stored as it goes (LAG 0) or two steps late; with
 * PF, each group but the call's last prefetching the next. */
static inline __attribute__((always_inline)) void
vm_stream_rows(const int M, const int LAG, const int PF, int64_t n, int64_t k, float alpha,
               const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,
               int64_t ldc) {
#define VM_GROUP(F, p, bt)                                                                         \
  do {                                                                                             \
    if (LAG)                                                                                       \
      vm_group_lagged(M, F, n, alpha, a + (p), lda, b + (p)*ldb, ldb, bt, c, ldc);                 \
    else                                                                                           \
      vm_group(M, F, n, alpha, a + (p), lda, b + (p)*ldb, ldb, bt, c, ldc, PF,                     \
               pf_after(b, ldb, n, (p), (F), k));                                                  \
  } while (0)
  CG_VM1_GROUPS(8, k, beta, VM_GROUP);
#undef VM_GROUP
}

/* Two to four rows of A in groups of rows of B (above), PF choosing the
 * prefetching variant; one row as in sgemm_avx512_vm4. */
static inline __attribute__((always_inline)) void
vm_stream_any(const int PF, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
              int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
#define VM_STREAM(M)                                                                               \
  do {                                                                                             \
    if (lag)                                                                                       \
      vm_stream_rows(M, 1, 0, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                          \
    else                                                                                           \
      vm_stream_rows(M, 0, PF, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                         \
  } while (0)
  const int lag = alias_soon(b, ldb, c);
  switch (m) {
  case 1:
    vm1_rows(n, k, alpha, a, b, ldb, beta, c);
    break;
  case 2:
    VM_STREAM(2);
    break;
  case 3:
    VM_STREAM(3);
    break;
  default:
    VM_STREAM(4);
    break;
  }
#undef VM_STREAM
}

CG_VM_PROTO(sgemm_avx512_vm4_stream) {
  vm_stream_any(0, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* The prefetching variant, for B beyond the last-level cache: fetching
 * the next group's rows in memory order keeps enough lines in flight for
 * a read from memory (pf_cursor); with B in cache the prefetches only
 * take issue slots, so it is a kernel of its own, the first guess only
 * beyond the last-level cache. */
CG_VM_PROTO(sgemm_avx512_vm4_prefetch) {
  vm_stream_any(1, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/*
 * R rows x N columns of C as dot products over k: U vectors of each row of
 * A per step (U > 1 when R * N alone is too few independent sums), the
 * k % 16 tail masked, one horizontal sum per element at the end.
 */
static inline __attribute__((always_inline)) void mv_group(const int R, const int N, const int U,
                                                           int64_t k, float alpha, const float *a,
                                                           int64_t lda, const float *bt,
                                                           int64_t ldbt, float beta, float *c,
                                                           int64_t ldc, const int PF, pf_cursor q) {
  __m512 acc[8][4][2];
  int64_t p = 0;
  for (int r = 0; r < R; r++)
    for (int j = 0; j < N; j++)
      for (int u = 0; u < U; u++)
        acc[r][j][u] = _mm512_setzero_ps();
  for (; p + 16 * U <= k; p += 16 * U) {
    for (int l = 0; PF && l < R * U; l++)
      pf_line(&q);
    for (int u = 0; u < U; u++) {
      __m512 bv[4];
      for (int j = 0; j < N; j++)
        bv[j] = _mm512_loadu_ps(bt + j * ldbt + p + 16 * u);
      for (int r = 0; r < R; r++) {
        const __m512 av = _mm512_loadu_ps(a + r * lda + p + 16 * u);
        for (int j = 0; j < N; j++)
          acc[r][j][u] = _mm512_fmadd_ps(av, bv[j], acc[r][j][u]);
      }
    }
  }
  for (; p < k; p += 16) {
    const __mmask16 mk = lanes(k - p);
    __m512 bv[4];
    for (int j = 0; j < N; j++)
      bv[j] = _mm512_maskz_loadu_ps(mk, bt + j * ldbt + p);
    for (int r = 0; r < R; r++) {
      const __m512 av = _mm512_maskz_loadu_ps(mk, a + r * lda + p);
      for (int j = 0; j < N; j++)
        acc[r][j][0] = _mm512_fmadd_ps(av, bv[j], acc[r][j][0]);
    }
  }
  for (int r = 0; r < R; r++) {
    for (int j = 0; j < N; j++) {
      __m512 v = acc[r][j][0];
      float s, *cp = c + r * ldc + j;
      for (int u = 1; u < U; u++)
        v = _mm512_add_ps(v, acc[r][j][u]);
      s = alpha * _mm512_reduce_add_ps(v);
      *cp = beta == 0.0f ? s : s + beta * *cp;
    }
  }
}

/* R4: rows a pass for four columns; with PF, each of those passes
 * prefetches the rows after it (pf_after). */
static inline __attribute__((always_inline)) void mv_cols(const int N, const int U, const int R4,
                                                          const int PF, int64_t m, int64_t k,
                                                          float alpha, const float *a, int64_t lda,
                                                          const float *bt, int64_t ldbt, float beta,
                                                          float *c, int64_t ldc) {
  int64_t i = 0;
  /* One column: 8 rows a pass, 8 streams of A in flight instead of 4
   * (more misses outstanding when A comes from memory), two vectors of
   * each row a step: 16 sums instead of 8, so the loads and FMAs never
   * wait on one sum's latency (which matters most with A in cache). */
  if (N == 1)
    for (; i + 8 <= m; i += 8)
      mv_group(8, N, 2, k, alpha, a + i * lda, lda, bt, ldbt, beta, c + i * ldc, ldc, 0, pf_none());
  /* Four columns: 6 rows a pass (24 sums, 4 B vectors, one row vector: 29
   * registers), B's four vectors loaded once for 6 rows of A instead of 4,
   * which leaves more of the loads to A's stream.  The streaming variant
   * takes 8 (32 sums: B's vectors come from L1): more of A's rows in
   * flight for A from memory, at the cost of reloading B, which in cache
   * outweighs it. */
  if (N == 4)
    for (; i + R4 <= m; i += R4)
      mv_group(R4, N, U, k, alpha, a + i * lda, lda, bt, ldbt, beta, c + i * ldc, ldc, PF,
               pf_after(a, lda, k, i, R4, m));
  for (; i + 4 <= m; i += 4)
    mv_group(4, N, U, k, alpha, a + i * lda, lda, bt, ldbt, beta, c + i * ldc, ldc, 0, pf_none());
  switch (m - i) {
  case 3:
    mv_group(3, N, U, k, alpha, a + i * lda, lda, bt, ldbt, beta, c + i * ldc, ldc, 0, pf_none());
    break;
  case 2:
    mv_group(2, N, U, k, alpha, a + i * lda, lda, bt, ldbt, beta, c + i * ldc, ldc, 0, pf_none());
    break;
  case 1:
    mv_group(1, N, U, k, alpha, a + i * lda, lda, bt, ldbt, beta, c + i * ldc, ldc, 0, pf_none());
    break;
  default:
    break;
  }
}

static inline __attribute__((always_inline)) void
mv_any(const int R4, const int PF, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
       int64_t lda, const float *bt, int64_t ldbt, float beta, float *c, int64_t ldc) {
  switch (n) {
  case 1:
    mv_cols(1, 2, R4, 0, m, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
    break;
  case 2:
    mv_cols(2, 1, R4, 0, m, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
    break;
  case 3:
    mv_cols(3, 1, R4, 0, m, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
    break;
  default:
    mv_cols(4, 1, R4, PF, m, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
    break;
  }
}

CG_MV_PROTO(sgemm_avx512_mv4) { mv_any(6, 0, m, n, k, alpha, a, lda, bt, ldbt, beta, c, ldc); }

/* The streaming variant: four columns in 8-row passes (above). */
CG_MV_PROTO(sgemm_avx512_mv4_stream) {
  mv_any(8, 0, m, n, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
}

/* The prefetching variant, for A beyond the last-level cache: four
 * columns in 8-row passes, each fetching the next pass's rows (see
 * pf_cursor); with A in cache the prefetches only take issue slots. */
CG_MV_PROTO(sgemm_avx512_mv4_prefetch) {
  mv_any(8, 1, m, n, k, alpha, a, lda, bt, ldbt, beta, c, ldc);
}
#else
/* Built for another architecture: never selected there (see the tile
 * kernel's file). */
CG_VM_PROTO(sgemm_avx512_vm4) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb, (void)beta,
      (void)c, (void)ldc;
}

CG_MV_PROTO(sgemm_avx512_mv4) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)bt, (void)ldbt, (void)beta,
      (void)c, (void)ldc;
}

CG_VM_PROTO(sgemm_avx512_vm4_stream) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb, (void)beta,
      (void)c, (void)ldc;
}

CG_MV_PROTO(sgemm_avx512_mv4_stream) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)bt, (void)ldbt, (void)beta,
      (void)c, (void)ldc;
}

CG_VM_PROTO(sgemm_avx512_vm4_prefetch) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb, (void)beta,
      (void)c, (void)ldc;
}

CG_MV_PROTO(sgemm_avx512_mv4_prefetch) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)bt, (void)ldbt, (void)beta,
      (void)c, (void)ldc;
}
#endif
