/*
 * pack.c - packing routines.  Hot enough to matter on skinny shapes, so the
 * common micro-tile sizes get loops with constant trip counts that the
 * compiler turns into plain vector code.
 */
#include "pack.h"

#include <string.h>

#include "convert.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Rows ahead that the panel-by-panel B packing prefetches. */
#ifndef CG_PACK_B_PF
#define CG_PACK_B_PF 8
#endif

static inline __attribute__((always_inline)) void
pack_a_panel(float *dst, const float *a, int64_t lda, int64_t rows, int64_t kc, uint32_t mr) {
  if (rows == (int64_t)mr) {
    for (int64_t p = 0; p < kc; p++) {
      for (uint32_t r = 0; r < mr; r++)
        dst[p * mr + r] = a[(int64_t)r * lda + p];
    }
    return;
  }
  for (int64_t p = 0; p < kc; p++) {
    for (uint32_t r = 0; r < mr; r++)
      dst[p * mr + r] = (int64_t)r < rows ? a[(int64_t)r * lda + p] : 0.0f;
  }
}

#if defined(__SSE2__)
/*
 * A full 6-row panel (the AVX2 kernel's) four k at a time: rows 0-3 as a
 * 4x4 transpose, rows 4-5 interleaved, so a 6 x 4 block costs 6 loads and
 * 8 stores instead of 24 scalar loads and stores.  SSE2 is part of x86-64.
 */
static void pack_a_panel6_sse(float *restrict dst, const float *restrict a, int64_t lda,
                              int64_t kc) {
  int64_t p = 0;
  for (; p + 4 <= kc; p += 4) {
    __m128 r0 = _mm_loadu_ps(a + p), r1 = _mm_loadu_ps(a + lda + p);
    __m128 r2 = _mm_loadu_ps(a + 2 * lda + p), r3 = _mm_loadu_ps(a + 3 * lda + p);
    __m128 r4 = _mm_loadu_ps(a + 4 * lda + p), r5 = _mm_loadu_ps(a + 5 * lda + p);
    __m128 lo45 = _mm_unpacklo_ps(r4, r5), hi45 = _mm_unpackhi_ps(r4, r5);
    float *d = dst + p * 6;
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(d, r0);
    _mm_storel_pi((__m64 *)(void *)(d + 4), lo45);
    _mm_storeu_ps(d + 6, r1);
    _mm_storeh_pi((__m64 *)(void *)(d + 10), lo45);
    _mm_storeu_ps(d + 12, r2);
    _mm_storel_pi((__m64 *)(void *)(d + 16), hi45);
    _mm_storeu_ps(d + 18, r3);
    _mm_storeh_pi((__m64 *)(void *)(d + 22), hi45);
  }
  for (; p < kc; p++) {
    for (int r = 0; r < 6; r++)
      dst[p * 6 + r] = a[r * lda + p];
  }
}
#endif

static void pack_a_mr(float *dst, const float *a, int64_t lda, int64_t mc, int64_t kc,
                      uint32_t mr) {
  for (int64_t i = 0; i < mc; i += mr) {
    int64_t rows = mc - i < (int64_t)mr ? mc - i : (int64_t)mr;
#if defined(__SSE2__)
    if (mr == 6 && rows == 6) {
      pack_a_panel6_sse(dst, a + i * lda, lda, kc);
      dst += kc * mr;
      continue;
    }
#endif
    pack_a_panel(dst, a + i * lda, lda, rows, kc, mr);
    dst += kc * mr;
  }
}

void cg_pack_a(float *dst, const float *a, int64_t lda, int64_t mc, int64_t kc, uint32_t mr) {
  switch (mr) {
  case 4:
    pack_a_mr(dst, a, lda, mc, kc, 4);
    break;
  case 6:
    pack_a_mr(dst, a, lda, mc, kc, 6);
    break;
  case 12:
    pack_a_mr(dst, a, lda, mc, kc, 12);
    break;
  default:
    pack_a_mr(dst, a, lda, mc, kc, mr);
    break;
  }
}

static inline __attribute__((always_inline)) void pack_b_nr(float *restrict dst,
                                                            const float *restrict b, int64_t ldb,
                                                            int64_t kc, int64_t nc, uint32_t nr) {
  int64_t full = nc / nr, tail = nc % nr;
  /* Panel by panel: the writes stream through one contiguous panel (no
   * read-for-ownership scattered over the whole buffer); each source line
   * holds exactly one panel row, so the strided reads never re-read a line,
   * and they are prefetched a few rows ahead. */
  for (int64_t j = 0; j < full; j++) {
    const float *src = b + j * nr;
    float *d = dst + j * kc * nr;
    for (int64_t p = 0; p < kc; p++) {
      if (p + CG_PACK_B_PF < kc) /* stay inside the block: no wild pointers */
        __builtin_prefetch(src + (p + CG_PACK_B_PF) * ldb, 0, 3);
      memcpy(d + p * nr, src + p * ldb, nr * sizeof(float));
    }
  }
  if (tail > 0) {
    const float *src = b + full * nr;
    float *d = dst + full * kc * nr;
    for (int64_t p = 0; p < kc; p++) {
      for (uint32_t x = 0; x < nr; x++)
        d[p * nr + x] = (int64_t)x < tail ? src[p * ldb + x] : 0.0f;
    }
  }
}

void cg_pack_b(float *dst, const float *b, int64_t ldb, int64_t kc, int64_t nc, uint32_t nr) {
  switch (nr) {
  case 8:
    pack_b_nr(dst, b, ldb, kc, nc, 8);
    break;
  case 16:
    pack_b_nr(dst, b, ldb, kc, nc, 16);
    break;
  case 32:
    pack_b_nr(dst, b, ldb, kc, nc, 32);
    break;
  default:
    pack_b_nr(dst, b, ldb, kc, nc, nr);
    break;
  }
}

void cg_pack_a_view(float *dst, const cg_view *a, int64_t i0, int64_t p0, int64_t mc, int64_t kc,
                    uint32_t mr) {
  /* A panel is a kc x mr block of A's transpose (dst[p * mr + r]). */
  const cg_view at = cg_view_t(a);
  for (int64_t i = 0; i < mc; i += mr, dst += kc * mr) {
    const int64_t rows = mc - i < (int64_t)mr ? mc - i : (int64_t)mr;
    cg_convert_block(dst, mr, &at, p0, i0 + i, kc, rows);
    if (rows < (int64_t)mr) {
      for (int64_t p = 0; p < kc; p++)
        memset(dst + p * mr + rows, 0, (size_t)((int64_t)mr - rows) * sizeof(float));
    }
  }
}

/* Floats of one converted piece of a row of B (pack_b_rows). */
#define CG_PACK_ROW_CHUNK 512

/*
 * cg_pack_b_view for B with contiguous float16 / bfloat16 rows: each row
 * of the block converted in long runs (the vector conversion's pace, not
 * a call per micro-panel row), its pieces then copied to their panels.
 */
static void pack_b_rows(float *dst, const cg_view *b, int64_t p0, int64_t j0, int64_t kc,
                        int64_t nc, uint32_t nr) {
  float tmp[CG_PACK_ROW_CHUNK];
  const int64_t chunk = CG_PACK_ROW_CHUNK / nr * nr;
  for (int64_t p = 0; p < kc; p++) {
    for (int64_t jb = 0; jb < nc; jb += chunk) {
      const int64_t w = nc - jb < chunk ? nc - jb : chunk;
      cg_convert_run(tmp, cg_view_at(b, p0 + p, j0 + jb), 1, w, b->dtype);
      for (int64_t x = 0; x < w; x += nr) {
        const int64_t cols = w - x < (int64_t)nr ? w - x : (int64_t)nr;
        float *d = dst + (jb + x) / nr * kc * nr + p * nr;
        memcpy(d, tmp + x, (size_t)cols * sizeof(float));
        if (cols < (int64_t)nr)
          memset(d + cols, 0, (size_t)((int64_t)nr - cols) * sizeof(float));
      }
    }
  }
}

void cg_pack_b_view(float *dst, const cg_view *b, int64_t p0, int64_t j0, int64_t kc, int64_t nc,
                    uint32_t nr) {
  if (b->cs == 1 && b->dtype != CG_F32 && nr <= CG_PACK_ROW_CHUNK) {
    pack_b_rows(dst, b, p0, j0, kc, nc, nr);
    return;
  }
  for (int64_t j = 0; j < nc; j += nr, dst += kc * nr) {
    const int64_t cols = nc - j < (int64_t)nr ? nc - j : (int64_t)nr;
    cg_convert_block(dst, nr, b, p0, j0 + j, kc, cols);
    if (cols < (int64_t)nr) {
      for (int64_t p = 0; p < kc; p++)
        memset(dst + p * nr + cols, 0, (size_t)((int64_t)nr - cols) * sizeof(float));
    }
  }
}
