/*
 * tests/avx512_emul/test_avx512_emul.c - cpu_gemm's AVX-512 12x32
 * micro-kernel, its own source compiled against the portable intrinsics
 * of emul/immintrin.h, checked on every tile shape: rows 1-12, columns
 * 1-32, k = 0, 1, 3, 17 (small integers: exact) and 100 (random floats:
 * tolerance), overwrite and accumulate, packed panels and row-major
 * source layouts.  Every C cell outside the tile must keep its sentinel,
 * and A rows past m are not even allocated (ASan catches a read).
 *
 * The machines this project runs on have no AVX-512, so the kernel's
 * real instructions cannot run here; this proves the logic that the
 * instructions execute.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "test_support.h"

#define MR 12
#define NR 32
#define LDC 40
#define SENTINEL -777.25f

unsigned long olc_emul_fmadd_calls;

static unsigned long rng = 12345;

static float next_value(int integers) {
  rng = rng * 6364136223846793005ul + 1442695040888963407ul;
  if (integers)
    return (float)((int)((rng >> 33) % 9u) - 4);
  return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* One tile shape in one layout; returns the number of bad cells. */
static int check_tile(int packed, int m, int n, int k, int accumulate) {
  const int integers = k <= 17;
  const int lda = k + 3, ldb = NR + 5;
  float *a, *b, c[(MR + 1) * LDC], c0[(MR + 1) * LDC];
  double want;
  int bad = 0;
  /* Packed: the full MR x k panel; row-major: exactly m rows of lda. */
  size_t a_len = packed ? (size_t)MR * (size_t)(k > 0 ? k : 1) : (size_t)m * (size_t)lda;
  size_t b_len = (size_t)(k > 0 ? k : 1) * (size_t)(packed ? NR : ldb);
  a = malloc(a_len * sizeof *a);
  b = malloc(b_len * sizeof *b);
  if (a == NULL || b == NULL) {
    free(a);
    free(b);
    return -1;
  }
  for (size_t i = 0; i < a_len; i++)
    a[i] = next_value(integers);
  for (size_t i = 0; i < b_len; i++)
    b[i] = next_value(integers);
  for (int i = 0; i < (MR + 1) * LDC; i++)
    c[i] = SENTINEL;
  for (int r = 0; r < m; r++)
    for (int j = 0; j < n; j++)
      c[r * LDC + j] = next_value(1);
  memcpy(c0, c, sizeof c);
  if (packed)
    sgemm_avx512_12x32_packed(m, n, k, a, 1, MR, b, NR, c, LDC, accumulate);
  else
    sgemm_avx512_12x32(m, n, k, a, lda, 1, b, ldb, c, LDC, accumulate);
  for (int r = 0; r < MR + 1; r++) {
    for (int j = 0; j < LDC; j++) {
      float got = c[r * LDC + j];
      if (r >= m || j >= n) {
        bad += memcmp(&got, &c0[r * LDC + j], sizeof got) != 0;
        continue;
      }
      want = accumulate ? (double)c0[r * LDC + j] : 0.0;
      for (int p = 0; p < k; p++) {
        double av = packed ? a[r + p * MR] : a[r * lda + p];
        double bv = packed ? b[p * NR + j] : b[p * ldb + j];
        want += av * bv;
      }
      if (integers ? (double)got != want : fabs((double)got - want) > 1e-4 * (1.0 + fabs(want)))
        bad++;
    }
  }
  if (bad > 0)
    fprintf(stderr, "\n  %s m=%d n=%d k=%d accumulate=%d: %d bad cells\n",
            packed ? "packed" : "row-major", m, n, k, accumulate, bad);
  free(a);
  free(b);
  return bad;
}

static void test_every_tile(void) {
  static const int ks[] = {0, 1, 3, 17, 100};
  int failures = 0, tiles = 0;
  for (int packed = 0; packed < 2; packed++)
    for (int m = 1; m <= MR; m++)
      for (int n = 1; n <= NR; n++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
          for (int acc = 0; acc < 2; acc++) {
            failures += check_tile(packed, m, n, ks[ki], acc) != 0;
            tiles++;
          }
  CU_ASSERT_EQUAL(failures, 0);
  CU_ASSERT_EQUAL(tiles, 2 * MR * NR * 5 * 2);
  /* The emulated kernel ran (not the empty stubs of a build without
   * __AVX512F__). */
  CU_ASSERT(olc_emul_fmadd_calls > 0);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("avx512 kernel, emulated intrinsics", NULL, NULL);
  CU_add_test(s, "every tile shape", test_every_tile);
  return olc_test_run(argc, argv);
}
