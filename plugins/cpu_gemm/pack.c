/*
 * pack.c - packing routines.  Hot enough to matter on skinny shapes, so the
 * common micro-tile sizes get loops with constant trip counts that the
 * compiler turns into plain vector code.
 */
#include "pack.h"

#include <string.h>

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

static void pack_a_mr(float *dst, const float *a, int64_t lda, int64_t mc, int64_t kc,
                      uint32_t mr) {
  for (int64_t i = 0; i < mc; i += mr) {
    int64_t rows = mc - i < (int64_t)mr ? mc - i : (int64_t)mr;
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
