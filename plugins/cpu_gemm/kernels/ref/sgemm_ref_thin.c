/*
 * sgemm_ref_thin.c - the portable thin kernels (few rows: vm4, few
 * columns: mv4), plain C without ISA flags; the reference the vector
 * versions are tested against.
 */
#include <stddef.h>

#include "../kernels.h"

#define REF_VM_CHUNK 64 /* columns whose sums stay in a local array over k */

static void ref_store(float *c, float v, float alpha, float beta) {
  *c = beta == 0.0f ? alpha * v : alpha * v + beta * *c;
}

CG_VM_PROTO(sgemm_ref_vm4) {
  for (int64_t j0 = 0; j0 < n; j0 += REF_VM_CHUNK) {
    const int64_t w = n - j0 < REF_VM_CHUNK ? n - j0 : REF_VM_CHUNK;
    float acc[4][REF_VM_CHUNK];
    for (int64_t r = 0; r < m && r < 4; r++)
      for (int64_t j = 0; j < w; j++)
        acc[r][j] = 0.0f;
    for (int64_t p = 0; p < k; p++) {
      const float *bp = b + p * ldb + j0;
      for (int64_t r = 0; r < m && r < 4; r++) {
        const float av = a[r * lda + p];
        for (int64_t j = 0; j < w; j++)
          acc[r][j] += av * bp[j];
      }
    }
    for (int64_t r = 0; r < m && r < 4; r++)
      for (int64_t j = 0; j < w; j++)
        ref_store(c + r * ldc + j0 + j, acc[r][j], alpha, beta);
  }
}

CG_MV_PROTO(sgemm_ref_mv4) {
  for (int64_t i = 0; i < m; i++) {
    const float *ar = a + i * lda;
    for (int64_t j = 0; j < n && j < 4; j++) {
      const float *bj = bt + j * ldbt;
      /* Eight partial sums: a dot product the compiler can vectorise
       * without reassociating (no -ffast-math here). */
      float part[8] = {0, 0, 0, 0, 0, 0, 0, 0}, s = 0.0f;
      int64_t p = 0;
      for (; p + 8 <= k; p += 8)
        for (int q = 0; q < 8; q++)
          part[q] += ar[p + q] * bj[p + q];
      for (; p < k; p++)
        s += ar[p] * bj[p];
      for (int q = 0; q < 8; q++)
        s += part[q];
      ref_store(c + i * ldc + j, s, alpha, beta);
    }
  }
}
