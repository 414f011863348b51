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

/* C = alpha * acc + beta * C; C is not read when beta is 0. */
#define ROW_STORE(r)                                                                               \
  do {                                                                                             \
    if ((r) < rows) {                                                                              \
      float *cr = c + (r)*ldc;                                                                     \
      if (alpha != 1.0f) {                                                                         \
        c##r##0 = _mm256_mul_ps(c##r##0, alphav);                                                  \
        c##r##1 = _mm256_mul_ps(c##r##1, alphav);                                                  \
      }                                                                                            \
      if (full) {                                                                                  \
        if (beta != 0.0f) {                                                                        \
          c##r##0 = _mm256_fmadd_ps(_mm256_loadu_ps(cr), betav, c##r##0);                          \
          c##r##1 = _mm256_fmadd_ps(_mm256_loadu_ps(cr + 8), betav, c##r##1);                      \
        }                                                                                          \
        _mm256_storeu_ps(cr, c##r##0);                                                             \
        _mm256_storeu_ps(cr + 8, c##r##1);                                                         \
      } else {                                                                                     \
        if (beta != 0.0f) {                                                                        \
          c##r##0 = _mm256_fmadd_ps(_mm256_maskload_ps(cr, m0), betav, c##r##0);                   \
          c##r##1 = _mm256_fmadd_ps(_mm256_maskload_ps(cr + 8, m1), betav, c##r##1);               \
        }                                                                                          \
        _mm256_maskstore_ps(cr, m0, c##r##0);                                                      \
        _mm256_maskstore_ps(cr + 8, m1, c##r##1);                                                  \
      }                                                                                            \
    }                                                                                              \
  } while (0)

/* One k step: two B vectors against the tile's rows (masked past the
 * last column when B is read in place: mask_b). */
#define K_STEP()                                                                                   \
  do {                                                                                             \
    __m256 b0 = mask_b ? _mm256_maskload_ps(b, m0) : _mm256_loadu_ps(b);                           \
    __m256 b1 = mask_b ? _mm256_maskload_ps(b + 8, m1) : _mm256_loadu_ps(b + 8);                   \
    ROW_FMA(0);                                                                                    \
    ROW_FMA(1);                                                                                    \
    ROW_FMA(2);                                                                                    \
    ROW_FMA(3);                                                                                    \
    ROW_FMA(4);                                                                                    \
    ROW_FMA(5);                                                                                    \
    a += cs_a;                                                                                     \
    b += rs_b;                                                                                     \
  } while (0)

static inline __attribute__((always_inline)) void copy_piece(const float *src, float *dst) {
  __m256 s0 = _mm256_loadu_ps(src), s1 = _mm256_loadu_ps(src + 8);
  _mm256_storeu_ps(dst, s0);
  _mm256_storeu_ps(dst + 8, s1);
}

/*
 * The in-kernel packing stream (copy jobs): one source row per round of G
 * slots; a slot is `pace` plain k steps followed by one piece copied (NR
 * floats) and one line of a later slice prefetched.  Spreading them over
 * the call keeps the few L1 miss buffers free for the A panel that streams
 * from L2 (a burst of a few dozen misses at the start stalls it), and the
 * plain steps keep the copy's state out of the FMA loop (a per-step
 * countdown made GCC spill it there).  The G slots are unrolled: each
 * piece has its own load instruction, which walks the source with the one
 * constant stride ld_src that the per-instruction stride prefetcher
 * follows (one load alternating between strides NR and ld_src - NR has
 * no one stride to follow, and its pieces then arrive as cache misses).
 */
#define COPY_ROUNDS(G)                                                                             \
  do {                                                                                             \
    const int64_t pace_ = (most > 0 && k_main / (most * (G)) > 1) ? k_main / (most * (G)) : 1;     \
    while ((left > 0 || pf_left > 0) && p + pace_ * (G) <= k_main) {                               \
      _Pragma("GCC unroll 4") for (int g = 0; g < (G); g++) {                                      \
        for (int64_t i = 0; i < pace_; i++)                                                        \
          K_STEP();                                                                                \
        if (left > 0)                                                                              \
          copy_piece(src + g * K_NR, dst + g * ld_dst);                                            \
        if (pf_left > 0)                                                                           \
          _mm_prefetch(pf + g * K_NR * (int64_t)sizeof(float), _MM_HINT_T0);                       \
      }                                                                                            \
      p += pace_ * (G);                                                                            \
      if (left > 0)                                                                                \
        left--, src += ld_src, dst += K_NR;                                                        \
      if (pf_left > 0)                                                                             \
        pf_left--, pf += ld_src * (int64_t)sizeof(float);                                          \
    }                                                                                              \
  } while (0)

static inline __attribute__((always_inline)) void
avx2_body(const int rows, int64_t cols, int64_t k, float alpha, const float *a, int64_t rs_a,
          int64_t cs_a, const float *b, int64_t rs_b, float beta, float *c, int64_t ldc,
          const int mask_b, const int copy, const cg_copy_job *job) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  const int full = cols == K_NR;
  __m256 alphav, betav;
  __m256i m0 = _mm256_setzero_si256(), m1 = _mm256_setzero_si256();
  int64_t p = 0;
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
  const int64_t k_main = k > K_C_LATE ? k - K_C_LATE : 0;
  if (copy) {
    const float *src = job->src;
    float *dst = job->dst;
    const char *pf = (const char *)job->pf;
    const int64_t ld_src = job->ld_src, ld_dst = job->ld_dst, group = job->group;
    int64_t left = job->rows, pf_left = job->pf != NULL ? job->pf_rows : 0;
    const int64_t most = left > pf_left ? left : pf_left;
    if (group == 1)
      COPY_ROUNDS(1);
    else if (group == 2)
      COPY_ROUNDS(2);
    else if (group == 4)
      COPY_ROUNDS(4);
    /* Whatever the pace left over (short k, other groups): the copy must
     * be complete when the call returns. */
    for (; left > 0; left--, src += ld_src, dst += K_NR) {
      for (int64_t g = 0; g < group; g++)
        copy_piece(src + g * K_NR, dst + g * ld_dst);
    }
  }
#pragma GCC unroll 4
  for (; p < k_main; p++)
    K_STEP();
  for (int r = 0; r < rows; r++)
    _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T0);
#pragma GCC unroll 4
  for (; p < k; p++)
    K_STEP();
  /* Broadcast only now: live over the loop they would cost registers. */
  alphav = _mm256_set1_ps(alpha), betav = _mm256_set1_ps(beta);
  ROW_STORE(0);
  ROW_STORE(1);
  ROW_STORE(2);
  ROW_STORE(3);
  ROW_STORE(4);
  ROW_STORE(5);
}

/* One specialisation per row count; the full tile is the hot one. */
#define AVX2_CASE(R, RS_A, CS_A, RS_B, MASK_B, COPY)                                               \
  case R:                                                                                          \
    avx2_body(R, n, k, alpha, a, RS_A, CS_A, b, RS_B, beta, c, ldc, MASK_B, COPY, job);            \
    break;

#define AVX2_DISPATCH(RS_A, CS_A, RS_B, MASK_B, COPY)                                              \
  switch (m) {                                                                                     \
    AVX2_CASE(6, RS_A, CS_A, RS_B, MASK_B, COPY)                                                   \
    AVX2_CASE(5, RS_A, CS_A, RS_B, MASK_B, COPY)                                                   \
    AVX2_CASE(4, RS_A, CS_A, RS_B, MASK_B, COPY)                                                   \
    AVX2_CASE(3, RS_A, CS_A, RS_B, MASK_B, COPY)                                                   \
    AVX2_CASE(2, RS_A, CS_A, RS_B, MASK_B, COPY)                                                   \
  default:                                                                                         \
    avx2_body(1, n, k, alpha, a, RS_A, CS_A, b, RS_B, beta, c, ldc, MASK_B, COPY, job);            \
    break;                                                                                         \
  }

CG_TILE_PROTO(sgemm_avx2_6x16) {
  const cg_copy_job *job = NULL;
  if (n < K_NR)
    AVX2_DISPATCH(rs_a, cs_a, rs_b, 1, 0)
  else
    AVX2_DISPATCH(rs_a, cs_a, rs_b, 0, 0)
}

/* The direct path's block: the in-place tile body inlined in the tile
 * loops, so no tile pays a call, a prologue and its row pointers. */
CG_BLOCK_PROTO(sgemm_avx2_6x16_block) {
  const cg_copy_job *job = NULL;
  CG_BLOCK_TILES(K_MR, K_NR, AVX2_DISPATCH)
}

CG_TILE_PROTO(sgemm_avx2_6x16_packed) {
  const cg_copy_job *job = NULL;
  (void)rs_a;
  (void)cs_a;
  (void)rs_b;
  AVX2_DISPATCH(1, K_MR, K_NR, 0, 0)
}

void sgemm_avx2_6x16_packed_copy(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                 const float *b, float beta, float *c, int64_t ldc,
                                 const cg_copy_job *job) {
  AVX2_DISPATCH(1, K_MR, K_NR, 0, 1)
}
#else
/* Built for another architecture: the probe never selects this kernel
 * there (its ISA level is never reported), so the bodies are empty. */
CG_TILE_PROTO(sgemm_avx2_6x16) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)rs_a, (void)cs_a, (void)b, (void)rs_b,
      (void)beta, (void)c, (void)ldc;
}

CG_TILE_PROTO(sgemm_avx2_6x16_packed) {
  sgemm_avx2_6x16(m, n, k, alpha, a, rs_a, cs_a, b, rs_b, beta, c, ldc);
}

CG_BLOCK_PROTO(sgemm_avx2_6x16_block) {
  (void)m_all, (void)n_all, (void)k, (void)alpha, (void)a_all, (void)lda, (void)b_all, (void)ldb,
      (void)beta, (void)c_all, (void)ldc;
}

void sgemm_avx2_6x16_packed_copy(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                 const float *b, float beta, float *c, int64_t ldc,
                                 const cg_copy_job *job) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)b, (void)beta, (void)c, (void)ldc,
      (void)job;
}
#endif
