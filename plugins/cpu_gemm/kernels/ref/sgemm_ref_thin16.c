/*
 * sgemm_ref_thin16.c - the portable few-row kernel with a 16-bit B
 * (thin16.h), plain C without ISA flags: each element converted by the
 * scalar conversions (convert.h) as it is read.
 */
#include <stddef.h>
#include <stdint.h>

#include "../../convert.h"
#include "../thin16.h"

#define REF_VM16_CHUNK 64 /* columns whose sums stay in a local array over k */

CG_VM16_PROTO(sgemm_ref_vm4_h16) {
  const int bf = (flags & CG_VM16_BF16) != 0;
  for (int64_t j0 = 0; j0 < n; j0 += REF_VM16_CHUNK) {
    const int64_t w = n - j0 < REF_VM16_CHUNK ? n - j0 : REF_VM16_CHUNK;
    float acc[4][REF_VM16_CHUNK], row[REF_VM16_CHUNK];
    for (int64_t r = 0; r < m && r < 4; r++)
      for (int64_t j = 0; j < w; j++)
        acc[r][j] = 0.0f;
    for (int64_t p = 0; p < k; p++) {
      const uint16_t *bp = b + p * ldb + j0;
      for (int64_t j = 0; j < w; j++)
        row[j] = bf ? cg_bf16_to_f32(bp[j]) : cg_f16_to_f32(bp[j]);
      for (int64_t r = 0; r < m && r < 4; r++) {
        const float av = a[r * lda + p];
        for (int64_t j = 0; j < w; j++)
          acc[r][j] += av * row[j];
      }
    }
    for (int64_t r = 0; r < m && r < 4; r++)
      for (int64_t j = 0; j < w; j++) {
        float *cp = c + r * ldc + j0 + j;
        *cp = beta == 0.0f ? alpha * acc[r][j] : alpha * acc[r][j] + beta * *cp;
      }
  }
}
