/*
 * sgemm_avx512_12x32.c - AVX-512F micro-kernel, 12 rows x 32 columns.
 *
 * 24 ZMM accumulators + 2 B vectors + 1 broadcast = 27 of 32 registers.
 * Partial tiles: the row count is a compile-time constant of each
 * specialisation and C columns past the edge are masked (and B's too when
 * B is read in place).  The copying variant also packs B panels for the
 * driver, spread over its k steps (cg_copy_job).  Compiled with -mavx512f
 * only; called only when the probe saw AVX-512F and the OS saving ZMM
 * state.
 */
#include <stddef.h>

#include "../kernels.h"

#if defined(__AVX512F__)
#include <immintrin.h>

#define K_MR 12
#define K_NR 32
#define K_C_LATE 48 /* k steps before the end at which C goes to L1 */

#define ROW_FMA(r)                                                                                 \
  do {                                                                                             \
    if ((r) < rows) {                                                                              \
      __m512 av = _mm512_set1_ps(a[(r)*rs_a]);                                                     \
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);                                              \
      if (!half)                                                                                   \
        acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);                                            \
    }                                                                                              \
  } while (0)

/* One k step: two B vectors (masked past the last column when B is read
 * in place: mask_b; the second neither loaded nor used in a tile of at
 * most 16 columns: half) against the tile's rows. */
#define K_STEP()                                                                                   \
  do {                                                                                             \
    __m512 b0 = mask_b ? _mm512_maskz_loadu_ps(m0, b) : _mm512_loadu_ps(b);                        \
    __m512 b1 = half     ? _mm512_setzero_ps()                                                     \
                : mask_b ? _mm512_maskz_loadu_ps(m1, b + 16)                                       \
                         : _mm512_loadu_ps(b + 16);                                                \
    ROW_FMA(0);                                                                                    \
    ROW_FMA(1);                                                                                    \
    ROW_FMA(2);                                                                                    \
    ROW_FMA(3);                                                                                    \
    ROW_FMA(4);                                                                                    \
    ROW_FMA(5);                                                                                    \
    ROW_FMA(6);                                                                                    \
    ROW_FMA(7);                                                                                    \
    ROW_FMA(8);                                                                                    \
    ROW_FMA(9);                                                                                    \
    ROW_FMA(10);                                                                                   \
    ROW_FMA(11);                                                                                   \
    a += cs_a;                                                                                     \
    b += rs_b;                                                                                     \
  } while (0)

static inline __attribute__((always_inline)) void copy_piece(const float *src, float *dst) {
  __m512 s0 = _mm512_loadu_ps(src), s1 = _mm512_loadu_ps(src + 16);
  _mm512_storeu_ps(dst, s0);
  _mm512_storeu_ps(dst + 16, s1);
}

/*
 * The in-kernel packing stream, as in the AVX2 kernel: one source row per
 * round of G slots, a slot being `pace` plain k steps, one piece copied and
 * one line of a later slice prefetched; the G slots unrolled so that each
 * piece has its own load instruction walking the source with one stride.
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

/* C = alpha * acc + beta * C (C not read when beta is 0); the full
 * tile without masks.  alpha and beta are broadcast only here: live over
 * the k loop, their registers made GCC spill a B vector there. */
static inline __attribute__((always_inline)) void
c_update(const int rows, const int half, int64_t cols, __m512 acc[K_MR][2], float alpha, float beta,
         float *c, int64_t ldc, const __mmask16 m0, const __mmask16 m1) {
  const __m512 alphav = _mm512_set1_ps(alpha), betav = _mm512_set1_ps(beta);
  if (alpha != 1.0f) {
    for (int r = 0; r < rows; r++) {
      acc[r][0] = _mm512_mul_ps(acc[r][0], alphav);
      acc[r][1] = _mm512_mul_ps(acc[r][1], alphav);
    }
  }
  if (half) {
    for (int r = 0; r < rows; r++) {
      float *cr = c + r * ldc;
      __m512 v0 = acc[r][0];
      if (beta != 0.0f)
        v0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m0, cr), betav, v0);
      _mm512_mask_storeu_ps(cr, m0, v0);
    }
    return;
  }
  if (cols == K_NR) {
    for (int r = 0; r < rows; r++) {
      float *cr = c + r * ldc;
      __m512 v0 = acc[r][0], v1 = acc[r][1];
      if (beta != 0.0f) {
        v0 = _mm512_fmadd_ps(_mm512_loadu_ps(cr), betav, v0);
        v1 = _mm512_fmadd_ps(_mm512_loadu_ps(cr + 16), betav, v1);
      }
      _mm512_storeu_ps(cr, v0);
      _mm512_storeu_ps(cr + 16, v1);
    }
    return;
  }
  for (int r = 0; r < rows; r++) {
    float *cr = c + r * ldc;
    __m512 v0 = acc[r][0], v1 = acc[r][1];
    if (beta != 0.0f) {
      v0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m0, cr), betav, v0);
      v1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m1, cr + 16), betav, v1);
    }
    _mm512_mask_storeu_ps(cr, m0, v0);
    _mm512_mask_storeu_ps(cr + 16, m1, v1);
  }
}

/* The next line of a cg_pf_job (hint T2: a stretch ahead of the panel in
 * use is too much for L1), segment s at off. */
static inline __attribute__((always_inline)) void pf_next(const cg_pf_job *pj, int64_t *s,
                                                          int64_t *off) {
  const uintptr_t at = pj->base + (uintptr_t)(*s * pj->stride + *off);
  if (*off < pj->len && at < pj->end)
    _mm_prefetch((const char *)at, _MM_HINT_T2);
  if (++*s == pj->segs)
    *s = 0, *off += 64;
}

/* prefetch_c: fetch C's lines to L1 at the start (packed operands: C of a
 * large product, far away); the in-place variant serves the direct path,
 * whose C is already close, and skips it: there the prefetches would
 * only take issue slots.  half: a tile of at most 16 columns (B in place),
 * one vector a row: with both, half of its FMAs would be on zeros, which
 * doubles the arithmetic's time where a core issues one 512-bit FMA a
 * cycle, and the direct path's small products are mostly such tiles. */
static inline __attribute__((always_inline)) void
avx512_body(const int rows, int64_t cols, int64_t k, float alpha, const float *a, int64_t rs_a,
            int64_t cs_a, const float *b, int64_t rs_b, float beta, float *c, int64_t ldc,
            const int mask_b, const int half, const int prefetch_c, const int copy,
            const cg_copy_job *job, const int pf_on, const cg_pf_job *pj) {
  __m512 acc[K_MR][2];
  const uint32_t bits0 = cols >= 16 ? 0xffffu : (1u << cols) - 1u;
  const uint32_t bits1 = cols >= 32 ? 0xffffu : cols > 16 ? (1u << (cols - 16)) - 1u : 0u;
  const __mmask16 m0 = (__mmask16)bits0, m1 = (__mmask16)bits1;
  /* The copying variant keeps C's early fetch: its last steps would then
   * carry no copy, and the copy crowded into the earlier steps stalls them
   * more than the late fetch saves. */
  const int late_c = prefetch_c && !copy && k > K_C_LATE;
  const int64_t k_main = late_c ? k - K_C_LATE : k;
  int64_t p = 0;
  for (int r = 0; r < rows; r++) {
    acc[r][0] = _mm512_setzero_ps();
    acc[r][1] = _mm512_setzero_ps();
    /* To L2 now and into L1 K_C_LATE steps before the end: the C lines of
     * a tile share one L1 set at power-of-two leading dimensions (on huge
     * pages), and fetched at the start the streaming A and B evict them
     * before the update. */
    if (late_c) {
      _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T1);
      _mm_prefetch((const char *)(c + r * ldc + 16), _MM_HINT_T1);
    } else if (prefetch_c) {
      _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T0);
      _mm_prefetch((const char *)(c + r * ldc + 16), _MM_HINT_T0);
    }
  }
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
    for (; left > 0; left--, src += ld_src, dst += K_NR) {
      for (int64_t g = 0; g < group; g++)
        copy_piece(src + g * K_NR, dst + g * ld_dst);
    }
  }
  if (pf_on) {
    int64_t s = 0, off = 0;
    for (; p < k_main && off < pj->len; p++) {
      K_STEP();
      pf_next(pj, &s, &off);
      pf_next(pj, &s, &off);
    }
  }
#pragma GCC unroll 2
  for (; p < k_main; p++)
    K_STEP();
  if (late_c) {
    for (int r = 0; r < rows; r++) {
      _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T0);
      _mm_prefetch((const char *)(c + r * ldc + 16), _MM_HINT_T0);
    }
  }
#pragma GCC unroll 2
  for (; p < k; p++)
    K_STEP();
  c_update(rows, half, cols, acc, alpha, beta, c, ldc, m0, m1);
}

#define AVX512_CASE(R, RS_A, CS_A, RS_B, MASK_B, HALF, COPY)                                       \
  case R:                                                                                          \
    avx512_body(R, n, k, alpha, a, RS_A, CS_A, b, RS_B, beta, c, ldc, MASK_B, HALF, PREFETCH_C,    \
                COPY, job, PF_ON, pfj);                                                            \
    break;

#define AVX512_SWITCH(RS_A, CS_A, RS_B, MASK_B, HALF, COPY)                                        \
  switch (m) {                                                                                     \
    AVX512_CASE(12, RS_A, CS_A, RS_B, MASK_B, HALF, COPY)                                          \
    AVX512_CASE(11, RS_A, CS_A, RS_B, MASK_B, HALF, COPY)                                          \
    AVX512_CASE(10, RS_A, CS_A, RS_B, MASK_B, HALF, COPY)                                          \
    AVX512_CASE(9, RS_A, CS_A, RS_B, MASK_B, HALF, COPY)                                           \
    AVX512_CASE(8, RS_A, CS_A, RS_B, MASK_B, HALF, COPY)                                           \
    AVX512_CASE(7, RS_A, CS_A, RS_B, MASK_B, HALF, COPY)                                           \
    AVX512_CASE(6, RS_A, CS_A, RS_B, MASK_B, HALF, COPY)                                           \
    AVX512_CASE(5, RS_A, CS_A, RS_B, MASK_B, HALF, COPY)                                           \
    AVX512_CASE(4, RS_A, CS_A, RS_B, MASK_B, HALF, COPY)                                           \
    AVX512_CASE(3, RS_A, CS_A, RS_B, MASK_B, HALF, COPY)                                           \
    AVX512_CASE(2, RS_A, CS_A, RS_B, MASK_B, HALF, COPY)                                           \
  default:                                                                                         \
    avx512_body(1, n, k, alpha, a, RS_A, CS_A, b, RS_B, beta, c, ldc, MASK_B, HALF, PREFETCH_C,    \
                COPY, job, PF_ON, pfj);                                                            \
    break;                                                                                         \
  }

/* MASK_B is a literal 0 or 1: B read in place past the tile's last column
 * is masked, and a tile of at most 16 columns takes the half body. */
#define AVX512_DISPATCH(RS_A, CS_A, RS_B, MASK_B, COPY)                                            \
  AVX512_DISPATCH_M##MASK_B(RS_A, CS_A, RS_B, COPY)
#define AVX512_DISPATCH_M0(RS_A, CS_A, RS_B, COPY) AVX512_SWITCH(RS_A, CS_A, RS_B, 0, 0, COPY)
#define AVX512_DISPATCH_M1(RS_A, CS_A, RS_B, COPY)                                                 \
  {                                                                                                \
    if (n <= K_NR / 2)                                                                             \
      AVX512_SWITCH(RS_A, CS_A, RS_B, 1, 1, COPY)                                                  \
    else                                                                                           \
      AVX512_SWITCH(RS_A, CS_A, RS_B, 1, 0, COPY)                                                  \
  }

CG_TILE_PROTO(sgemm_avx512_12x32) {
  const cg_copy_job *job = NULL;
  const cg_pf_job *pfj = NULL;
  enum { PREFETCH_C = 0, PF_ON = 0 };
  if (n < K_NR)
    AVX512_DISPATCH(rs_a, cs_a, rs_b, 1, 0)
  else
    AVX512_DISPATCH(rs_a, cs_a, rs_b, 0, 0)
}

/* The direct path's block: the in-place tile body inlined in the tile
 * loops, so no tile pays a call, a prologue and its row pointers. */
CG_BLOCK_PROTO(sgemm_avx512_12x32_block) {
  const cg_copy_job *job = NULL;
  const cg_pf_job *pfj = NULL;
  enum { PREFETCH_C = 0, PF_ON = 0 };
  CG_BLOCK_TILES(K_MR, K_NR, AVX512_DISPATCH)
}

CG_TILE_PROTO(sgemm_avx512_12x32_packed) {
  const cg_copy_job *job = NULL;
  const cg_pf_job *pfj = NULL;
  enum { PREFETCH_C = 1, PF_ON = 0 };
  (void)rs_a;
  (void)cs_a;
  (void)rs_b;
  AVX512_DISPATCH(1, K_MR, K_NR, 0, 0)
}

void sgemm_avx512_12x32_packed_copy(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                    const float *b, float beta, float *c, int64_t ldc,
                                    const cg_copy_job *job) {
  const cg_pf_job *pfj = NULL;
  enum { PREFETCH_C = 1, PF_ON = 0 };
  AVX512_DISPATCH(1, K_MR, K_NR, 0, 1)
}

void sgemm_avx512_12x32_packed_pf(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                  const float *b, float beta, float *c, int64_t ldc,
                                  const cg_pf_job *pfj) {
  const cg_copy_job *job = NULL;
  enum { PREFETCH_C = 1, PF_ON = 1 };
  AVX512_DISPATCH(1, K_MR, K_NR, 0, 0)
}
#else
/* Built for another architecture: the probe never selects this kernel
 * there (its ISA level is never reported), so the bodies are empty. */
CG_TILE_PROTO(sgemm_avx512_12x32) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)rs_a, (void)cs_a, (void)b, (void)rs_b,
      (void)beta, (void)c, (void)ldc;
}

CG_TILE_PROTO(sgemm_avx512_12x32_packed) {
  sgemm_avx512_12x32(m, n, k, alpha, a, rs_a, cs_a, b, rs_b, beta, c, ldc);
}

CG_BLOCK_PROTO(sgemm_avx512_12x32_block) {
  (void)m_all, (void)n_all, (void)k, (void)alpha, (void)a_all, (void)lda, (void)b_all, (void)ldb,
      (void)beta, (void)c_all, (void)ldc;
}

void sgemm_avx512_12x32_packed_pf(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                  const float *b, float beta, float *c, int64_t ldc,
                                  const cg_pf_job *pf) {
  (void)pf;
  sgemm_avx512_12x32(m, n, k, alpha, a, 1, 12, b, 32, beta, c, ldc);
}

void sgemm_avx512_12x32_packed_copy(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                    const float *b, float beta, float *c, int64_t ldc,
                                    const cg_copy_job *job) {
  (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)b, (void)beta, (void)c, (void)ldc,
      (void)job;
}
#endif
