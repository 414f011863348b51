/*
 * sgemm_avx2_6x16.c - AVX2+FMA micro-kernel, 6 rows x 16 columns.
 *
 * 12 YMM accumulators + 2 B vectors + 1 broadcast A value = 15 of the 16
 * registers; each k step is 12 FMAs against 8 loads, so the two FMA pipes
 * stay the bottleneck.  Partial tiles (fewer rows or columns) are handled
 * here: the row count is a compile-time constant of each specialisation,
 * and C columns past the edge are masked, so the driver never needs a
 * temporary tile.  Compiled with -mavx2 -mfma only.
 */
#include <stddef.h>

#include "../kernels.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#define K_MR 6
#define K_NR 16
#define K_C_LATE 48 /* k steps before the end at which C goes to L1 */

#define ROW_FMA(r)                                                                                 \
  do {                                                                                             \
    if ((r) < rows) {                                                                              \
      __m256 av = _mm256_broadcast_ss(a + (r)*rs_a);                                               \
      c##r##0 = _mm256_fmadd_ps(av, b0, c##r##0);                                                  \
      c##r##1 = _mm256_fmadd_ps(av, b1, c##r##1);                                                  \
    }                                                                                              \
  } while (0)

#define ROW_STORE(r)                                                                               \
  do {                                                                                             \
    if ((r) < rows) {                                                                              \
      float *cr = c + (r)*ldc;                                                                     \
      if (full) {                                                                                  \
        if (accumulate) {                                                                          \
          c##r##0 = _mm256_add_ps(c##r##0, _mm256_loadu_ps(cr));                                   \
          c##r##1 = _mm256_add_ps(c##r##1, _mm256_loadu_ps(cr + 8));                               \
        }                                                                                          \
        _mm256_storeu_ps(cr, c##r##0);                                                             \
        _mm256_storeu_ps(cr + 8, c##r##1);                                                         \
      } else {                                                                                     \
        if (accumulate) {                                                                          \
          c##r##0 = _mm256_add_ps(c##r##0, _mm256_maskload_ps(cr, m0));                            \
          c##r##1 = _mm256_add_ps(c##r##1, _mm256_maskload_ps(cr + 8, m1));                        \
        }                                                                                          \
        _mm256_maskstore_ps(cr, m0, c##r##0);                                                      \
        _mm256_maskstore_ps(cr + 8, m1, c##r##1);                                                  \
      }                                                                                            \
    }                                                                                              \
  } while (0)

/*
 * The in-kernel packing stream: pieces (NR floats of one source row) are
 * copied in row order, one piece every `pace` k steps, and the source
 * lines of a later slice are prefetched at the same pace.  Spreading both
 * over the call keeps the few L1 miss buffers free for the A panel that
 * streams from L2: a burst of a few dozen misses at the start of the call
 * would stall it.
 */
typedef struct copy_state {
  const float *src, *src_row;
  float *dst, *dst_row;
  const char *pf, *pf_row;
  int64_t ld_src, ld_dst, group, gi, left, pf_gi, pf_left, pace, countdown;
} copy_state;

static inline __attribute__((always_inline)) void copy_piece(copy_state *s) {
  __m256 s0 = _mm256_loadu_ps(s->src), s1 = _mm256_loadu_ps(s->src + 8);
  _mm256_storeu_ps(s->dst, s0);
  _mm256_storeu_ps(s->dst + 8, s1);
  s->left--;
  if (++s->gi == s->group) {
    s->gi = 0;
    s->src_row += s->ld_src;
    s->dst_row += K_NR;
    s->src = s->src_row;
    s->dst = s->dst_row;
  } else {
    s->src += K_NR;
    s->dst += s->ld_dst;
  }
}

static inline __attribute__((always_inline)) void copy_step(copy_state *s) {
  if (--s->countdown != 0)
    return;
  s->countdown = s->pace;
  if (s->left > 0)
    copy_piece(s);
  if (s->pf_left > 0) {
    _mm_prefetch(s->pf, _MM_HINT_T0);
    s->pf_left--;
    if (++s->pf_gi == s->group) {
      s->pf_gi = 0;
      s->pf_row += s->ld_src * (int64_t)sizeof(float);
      s->pf = s->pf_row;
    } else {
      s->pf += K_NR * sizeof(float);
    }
  }
}

static inline __attribute__((always_inline)) void
avx2_body(const int rows, int64_t cols, int64_t k, const float *a, int64_t rs_a, int64_t cs_a,
          const float *b, int64_t rs_b, float *c, int64_t ldc, int accumulate, const int copy,
          const cg_copy_job *job) {
  copy_state cs;
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  const int full = cols == K_NR;
  __m256i m0 = _mm256_setzero_si256(), m1 = _mm256_setzero_si256();
  if (!full) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)cols), idx);
    m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)cols - 8), idx);
  }
  /* C's lines share one L1 set per panel; fetched at the start they would
   * be evicted by the streaming A and B before the update.  Fetch them to
   * L2 now and into L1 a few dozen steps before the end. */
  for (int r = 0; r < rows; r++)
    _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T1);
  int64_t k_main = k > K_C_LATE ? k - K_C_LATE : 0;
  if (copy) {
    int64_t most;
    cs.src = cs.src_row = job->src;
    cs.dst = cs.dst_row = job->dst;
    cs.pf = cs.pf_row = (const char *)job->pf;
    cs.ld_src = job->ld_src, cs.ld_dst = job->ld_dst, cs.group = job->group;
    cs.gi = cs.pf_gi = 0;
    cs.left = job->rows * job->group;
    cs.pf_left = job->pf != NULL ? job->pf_rows * job->group : 0;
    most = cs.left > cs.pf_left ? cs.left : cs.pf_left;
    cs.pace = most > 0 && k_main / most > 1 ? k_main / most : 1;
    /* The k loop is unrolled 4 times, so the copy's load instruction at
     * step p is that of copy p mod 4: with an odd pace each of the four
     * sees every 4th piece, one constant stride through the source (group
     * 1, 2 or 4), the pattern the per-instruction stride prefetcher
     * follows.  With pace 8 and groups of 2, one load saw strides NR and
     * ld_src - NR in turn and the call ran 3x slower (measured). */
    if (cs.group > 1 && cs.pace % 2 == 0)
      cs.pace--;
    cs.countdown = 1;
  }
#pragma GCC unroll 4
  for (int64_t p = 0; p < k_main; p++) {
    __m256 b0 = _mm256_loadu_ps(b);
    __m256 b1 = _mm256_loadu_ps(b + 8);
    ROW_FMA(0);
    ROW_FMA(1);
    ROW_FMA(2);
    ROW_FMA(3);
    ROW_FMA(4);
    ROW_FMA(5);
    if (copy)
      copy_step(&cs);
    a += cs_a;
    b += rs_b;
  }
  for (int r = 0; r < rows; r++)
    _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T0);
#pragma GCC unroll 4
  for (int64_t p = k_main; p < k; p++) {
    __m256 b0 = _mm256_loadu_ps(b);
    __m256 b1 = _mm256_loadu_ps(b + 8);
    ROW_FMA(0);
    ROW_FMA(1);
    ROW_FMA(2);
    ROW_FMA(3);
    ROW_FMA(4);
    ROW_FMA(5);
    a += cs_a;
    b += rs_b;
  }
  /* Whatever the pace left over (short k): the copy must be complete. */
  if (copy) {
    while (cs.left > 0)
      copy_piece(&cs);
  }
  ROW_STORE(0);
  ROW_STORE(1);
  ROW_STORE(2);
  ROW_STORE(3);
  ROW_STORE(4);
  ROW_STORE(5);
}

/* One specialisation per row count; the full tile is the hot one. */
#define AVX2_CASE(R, RS_A, CS_A, RS_B, COPY)                                                       \
  case R:                                                                                          \
    avx2_body(R, n, k, a, RS_A, CS_A, b, RS_B, c, ldc, accumulate, COPY, job);                     \
    break;

#define AVX2_DISPATCH(RS_A, CS_A, RS_B, COPY)                                                      \
  switch (m) {                                                                                     \
    AVX2_CASE(6, RS_A, CS_A, RS_B, COPY)                                                           \
    AVX2_CASE(5, RS_A, CS_A, RS_B, COPY)                                                           \
    AVX2_CASE(4, RS_A, CS_A, RS_B, COPY)                                                           \
    AVX2_CASE(3, RS_A, CS_A, RS_B, COPY)                                                           \
    AVX2_CASE(2, RS_A, CS_A, RS_B, COPY)                                                           \
  default:                                                                                         \
    avx2_body(1, n, k, a, RS_A, CS_A, b, RS_B, c, ldc, accumulate, COPY, job);                     \
    break;                                                                                         \
  }

void sgemm_avx2_6x16(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a, int64_t cs_a,
                     const float *b, int64_t rs_b, float *c, int64_t ldc, int accumulate) {
  const cg_copy_job *job = NULL;
  AVX2_DISPATCH(rs_a, cs_a, rs_b, 0)
}

void sgemm_avx2_6x16_packed(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a,
                            int64_t cs_a, const float *b, int64_t rs_b, float *c, int64_t ldc,
                            int accumulate) {
  const cg_copy_job *job = NULL;
  (void)rs_a;
  (void)cs_a;
  (void)rs_b;
  AVX2_DISPATCH(1, K_MR, K_NR, 0)
}

void sgemm_avx2_6x16_packed_copy(int64_t m, int64_t n, int64_t k, const float *a, const float *b,
                                 float *c, int64_t ldc, int accumulate, const cg_copy_job *job) {
  AVX2_DISPATCH(1, K_MR, K_NR, 1)
}
#else
/* Built for another architecture: the probe never selects this kernel
 * there (its ISA level is never reported), so the bodies are empty. */
void sgemm_avx2_6x16(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a, int64_t cs_a,
                     const float *b, int64_t rs_b, float *c, int64_t ldc, int accumulate) {
  (void)m, (void)n, (void)k, (void)a, (void)rs_a, (void)cs_a, (void)b, (void)rs_b, (void)c,
      (void)ldc, (void)accumulate;
}

void sgemm_avx2_6x16_packed(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a,
                            int64_t cs_a, const float *b, int64_t rs_b, float *c, int64_t ldc,
                            int accumulate) {
  sgemm_avx2_6x16(m, n, k, a, rs_a, cs_a, b, rs_b, c, ldc, accumulate);
}

void sgemm_avx2_6x16_packed_copy(int64_t m, int64_t n, int64_t k, const float *a, const float *b,
                                 float *c, int64_t ldc, int accumulate, const cg_copy_job *job) {
  (void)m, (void)n, (void)k, (void)a, (void)b, (void)c, (void)ldc, (void)accumulate, (void)job;
}
#endif
