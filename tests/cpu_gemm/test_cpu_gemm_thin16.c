/*
 * test_cpu_gemm_thin16.c - the few-row kernels with a 16-bit B
 * (kernels/thin16.h) and their driver:
 *   - every kernel this CPU runs (portable, AVX2 (float16 with F16C),
 *     AVX-512), bfloat16 and float16, with and without prefetching, m 1-4,
 *     n across the vector widths and tails, k across the row groups and
 *     the interleaved blocks of 8 * S rows (S 2 to 32, rows left over),
 *     alpha / beta 1/0, 1/1, 2/-3: against a double-precision product of
 *     B converted by the scalar conversions, within the float32 bound;
 *     small integers exactly; B allocated to its exact extent (its rows
 *     ldb apart, the last one ending the allocation: ASan sees a read
 *     past it) and every C cell outside the product keeps its sentinel;
 *   - all 65536 bit patterns of either type (infinities, NaNs,
 *     subnormals, signed zeros) through each kernel, its driver and a
 *     constant packed once: bit for bit what the scalar conversion gives
 *     after the kernels' one multiply-add by 1 onto 0;
 *   - a vm policy keeps a 16-bit constant in its type (half the bytes).
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "gemm.h"
#include "kernels/kernels.h"
#include "kernels/thin16.h"
#include "policy.h"
#include "probe.h"
#include "test_support.h"

#define SENTINEL -777.25f

static cg_cpu cpu;
static cg_workspace ws[2];

static int init_suite(void) {
  cg_probe(&cpu);
  return 0;
}

static int clean_suite(void) {
  cg_workspace_free(&ws[0]);
  cg_workspace_free(&ws[1]);
  return 0;
}

typedef struct kern {
  const char *name;
  cg_vm16_fn fn;
  uint32_t isa;
  int f16; /* runs float16 here */
} kern;

static int kernels(kern *out) {
  int n = 0;
  out[n++] = (kern){"ref", sgemm_ref_vm4_h16, CG_ISA_REF, 1};
  if (cpu.isa >= CG_ISA_AVX2)
    out[n++] = (kern){"avx2", sgemm_avx2_vm4_h16, CG_ISA_AVX2, cg_cvt_has_f16c()};
  if (cpu.isa >= CG_ISA_AVX512)
    out[n++] = (kern){"avx512", sgemm_avx512_vm4_h16, CG_ISA_AVX512, 1};
  return n;
}

static unsigned long rng = 99;

static uint32_t next_u32(void) {
  rng = rng * 6364136223846793005ul + 1442695040888963407ul;
  return (uint32_t)(rng >> 33);
}

/* A 16-bit element: a small integer (-4..4, exact in either type and in
 * every sum here) or a value in [-1, 1). */
static uint16_t make_h(int bf, int integers) {
  float f = integers ? (float)((int)(next_u32() % 9u) - 4)
                     : (float)((double)next_u32() / 4294967296.0 * 2.0 - 1.0);
  uint32_t u;
  if (bf) {
    memcpy(&u, &f, sizeof u);
    return (uint16_t)(u >> 16);
  }
  /* float16 of f: f16's 10 mantissa bits, f truncated to them (|f| < 1,
   * normal from 2^-14 up; below that, 0). */
  {
    const double a = fabs((double)f);
    uint16_t sign = f < 0 ? 0x8000u : 0u;
    int e;
    double m;
    if (a < 0x1p-14)
      return sign;
    m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    return (uint16_t)(sign | (uint16_t)((e - 1 + 15) << 10) |
                      (uint16_t)((int)((m * 2.0 - 1.0) * 1024.0) & 0x3ff));
  }
}

static float conv(int bf, uint16_t h) { return bf ? cg_bf16_to_f32(h) : cg_f16_to_f32(h); }

/* One call of kernel kn against the double product; 1 when it holds. */
static int check_call(const kern *kn, int bf, uint32_t pf, int64_t m, int64_t n, int64_t k,
                      float alpha, float beta, int integers) {
  const int64_t ldb = n + 3, lda = k + 2, ldc = n + 5;
  /* B's last row ends the allocation: n elements, not ldb. */
  const size_t bcount = (size_t)((k - 1) * ldb + n);
  uint16_t *b = malloc(bcount * sizeof(uint16_t));
  float *a = malloc((size_t)(m * lda) * sizeof(float));
  float *c = malloc((size_t)((m + 1) * ldc) * sizeof(float));
  float *c0 = malloc((size_t)((m + 1) * ldc) * sizeof(float));
  int ok = 1;
  if (b == NULL || a == NULL || c == NULL || c0 == NULL) {
    free(b), free(a), free(c), free(c0);
    return 0;
  }
  for (size_t i = 0; i < bcount; i++)
    b[i] = make_h(bf, integers);
  for (int64_t i = 0; i < m * lda; i++)
    a[i] = integers ? (float)((int)(next_u32() % 5u) - 2)
                    : (float)((double)next_u32() / 4294967296.0 * 2.0 - 1.0);
  for (int64_t i = 0; i < (m + 1) * ldc; i++) {
    const int64_t r = i / ldc, j = i % ldc;
    c0[i] = c[i] = r < m && j < n ? (float)((int)(next_u32() % 7u) - 3) : SENTINEL;
  }
  kn->fn(m, n, k, alpha, a, lda, b, ldb, (bf ? CG_VM16_BF16 : 0u) | pf, beta, c, ldc);
  for (int64_t r = 0; r <= m && ok; r++)
    for (int64_t j = 0; j < ldc && ok; j++) {
      const float got = c[r * ldc + j];
      double ref = 0, mag = 0;
      if (r == m || j >= n) {
        ok = got == SENTINEL;
        continue;
      }
      for (int64_t p = 0; p < k; p++) {
        const double x = (double)a[r * lda + p] * (double)conv(bf, b[p * ldb + j]);
        ref += x, mag += fabs(x);
      }
      ref *= alpha, mag *= fabs(alpha);
      if (beta != 0.0f)
        ref += (double)beta * c0[r * ldc + j], mag += fabs((double)beta * c0[r * ldc + j]);
      if (integers)
        ok = (double)got == ref;
      else
        ok = fabs((double)got - ref) <= (double)(k + 2) * 0x1p-23 * mag + 1e-30;
    }
  if (!ok)
    printf("\n%s %s pf=%u m=%lld n=%lld k=%lld alpha=%g beta=%g integers=%d: off\n", kn->name,
           bf ? "bf16" : "f16", (unsigned)pf, (long long)m, (long long)n, (long long)k,
           (double)alpha, (double)beta, integers);
  free(b), free(a), free(c), free(c0);
  return ok;
}

static void test_kernels_vs_reference(void) {
  static const int64_t ns[] = {1, 7, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 100, 200};
  static const int64_t ks[] = {1, 2, 3, 7, 8, 9, 16, 17, 40, 300};
  static const float ab[][2] = {{1.0f, 0.0f}, {1.0f, 1.0f}, {2.0f, -3.0f}};
  kern ks_[3];
  const int nk = kernels(ks_);
  unsigned bad = 0, runs = 0;
  for (int ki = 0; ki < nk; ki++)
    for (int bf = 0; bf < 2; bf++) {
      if (!bf && !ks_[ki].f16)
        continue;
      for (uint32_t pf = 0; pf <= CG_VM16_PF; pf += CG_VM16_PF)
        for (int64_t m = 1; m <= 4; m++)
          for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
            for (size_t kk = 0; kk < sizeof ks / sizeof ks[0]; kk++)
              for (size_t x = 0; x < 3; x++) {
                const int integers = (int)((ni + kk + x) % 2);
                runs++;
                if (!check_call(&ks_[ki], bf, pf, m, ns[ni], ks[kk], ab[x][0], ab[x][1], integers))
                  bad++;
              }
    }
  CU_ASSERT(runs > 0);
  CU_ASSERT_EQUAL(bad, 0u);
}

/* What the float32 path makes of element h: converted by the scalar
 * function, then the kernels' one multiply-add by 1 onto 0 (which turns
 * -0 into +0 and quiets a signalling NaN, the same for every path). */
static uint32_t expect_bits(int bf, uint16_t h) {
  volatile float one = 1.0f, zero = 0.0f;
  const float e = conv(bf, h) * one + zero;
  uint32_t u;
  memcpy(&u, &e, sizeof u);
  return u;
}

/* C (rows x 65536) against expect_bits; the number of cells that differ. */
static unsigned all_values_diff(int bf, const float *c, int64_t rows, int64_t ldc) {
  unsigned diff = 0;
  for (int64_t r = 0; r < rows; r++)
    for (uint32_t h = 0; h < 65536u; h++) {
      uint32_t u;
      memcpy(&u, &c[r * ldc + h], sizeof u);
      if (u != expect_bits(bf, (uint16_t)h)) {
        if (diff < 4)
          printf("\n%s 0x%04x row %lld: 0x%08x, want 0x%08x\n", bf ? "bf16" : "f16", h,
                 (long long)r, u, expect_bits(bf, (uint16_t)h));
        diff++;
      }
    }
  return diff;
}

/* Every bit pattern as one row of B (k = 1), A all ones, alpha 1, beta
 * 0: each kernel, m 1-4, bit for bit. */
static void test_all_values_kernels(void) {
  const int64_t n = 65536;
  uint16_t *b = malloc((size_t)n * sizeof(uint16_t));
  float *c = malloc((size_t)(4 * n) * sizeof(float));
  const float a[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  kern ks_[3];
  const int nk = kernels(ks_);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  for (uint32_t h = 0; h < 65536u; h++)
    b[h] = (uint16_t)h;
  for (int ki = 0; ki < nk; ki++)
    for (int bf = 0; bf < 2; bf++) {
      if (!bf && !ks_[ki].f16)
        continue;
      for (int64_t m = 1; m <= 4; m++) {
        memset(c, 0xff, (size_t)(4 * n) * sizeof(float));
        ks_[ki].fn(m, n, 1, 1.0f, a, 1, b, n, bf ? CG_VM16_BF16 : 0u, 0.0f, c, n);
        CU_ASSERT_EQUAL(all_values_diff(bf, c, m, n), 0u);
      }
    }
  free(b);
  free(c);
}

/* A vm policy of each instruction set this CPU runs, its prefetching
 * variant too. */
static int vm_policies(cg_policy *out) {
  static const char *const names[] = {"ref_vm4", "avx2_vm4", "avx2_vm4_prefetch", "avx512_vm4",
                                      "avx512_vm4_prefetch"};
  int n = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const int ki = cg_kernel_find(names[i], strlen(names[i]));
    if (ki < 0 || cg_kernel_table[ki].isa > cpu.isa)
      continue;
    memset(&out[n], 0, sizeof out[n]);
    out[n].kernel = (uint32_t)ki, out[n].mc = 4, out[n].kc = 256, out[n].nc = 65536;
    out[n].split = CG_SPLIT_NONE;
    n++;
  }
  return n;
}

/* The same through cg_gemm in general mode, B handed as a view and as a
 * constant packed once by a vm policy (kept 16-bit: 2 bytes an element). */
static void test_all_values_driver_and_pack(void) {
  const int64_t n = 65536;
  uint16_t *b = malloc((size_t)n * sizeof(uint16_t));
  float *c = malloc((size_t)(4 * n) * sizeof(float));
  const float a[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  cg_policy pols[8];
  const int np = vm_policies(pols);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  CU_ASSERT(np >= 1);
  for (uint32_t h = 0; h < 65536u; h++)
    b[h] = (uint16_t)h;
  for (int i = 0; i < np; i++)
    for (int bf = 0; bf < 2; bf++)
      for (int packed = 0; packed < 2; packed++) {
        cg_gemm_args g;
        cg_packed *pk = NULL;
        uint64_t bytes = 0;
        memset(&g, 0, sizeof g);
        g.m = 3, g.n = n, g.k = 1;
        g.a = a, g.lda = 1, g.c = c, g.ldc = n, g.alpha = 1.0f, g.beta = 0.0f;
        g.bv = (cg_view){b, n, 1, bf ? CG_BF16 : CG_F16};
        g.general = CG_GENERAL_B;
        if (packed) {
          CU_ASSERT_EQUAL_FATAL(cg_pack_constant(&pk, &pols[i], 1, &g.bv, 1, n, &bytes), 0);
          CU_ASSERT_EQUAL(bytes, (uint64_t)n * 2u);
          g.pb = pk, g.general = 0, g.bv.data = NULL;
        }
        memset(c, 0xff, (size_t)(4 * n) * sizeof(float));
        CU_ASSERT_EQUAL(cg_gemm(&g, &pols[i], NULL, 1, ws), 0);
        CU_ASSERT_EQUAL(all_values_diff(bf, c, 3, n), 0u);
        cg_packed_free(pk);
      }
  free(b);
  free(c);
}

/* A product through the driver over several KC slices, column blocks
 * and a bias, from a constant packed 16-bit and from B handed, against
 * the double product. */
static void test_driver_slices_bias(void) {
  const int64_t m = 4, n = 333, k = 70;
  uint16_t *b = malloc((size_t)(k * n) * sizeof(uint16_t));
  float a[4 * 70], c[4 * 333], bias[333];
  cg_policy pols[8];
  const int np = vm_policies(pols);
  for (int64_t i = 0; i < k * n; i++)
    b[i] = make_h(1, 1);
  for (int64_t i = 0; i < m * k; i++)
    a[i] = (float)((int)(next_u32() % 5u) - 2);
  for (int64_t j = 0; j < n; j++)
    bias[j] = (float)((int)(next_u32() % 5u) - 2);
  for (int i = 0; i < np; i++)
    for (int packed = 0; packed < 2; packed++) {
      cg_gemm_args g;
      cg_packed *pk = NULL;
      cg_policy p = pols[i];
      unsigned bad = 0;
      p.kc = 16, p.nc = 64;
      memset(&g, 0, sizeof g);
      g.m = m, g.n = n, g.k = k;
      g.a = a, g.lda = k, g.c = c, g.ldc = n, g.alpha = 2.0f, g.beta = -1.0f;
      g.bv = (cg_view){b, n, 1, CG_BF16};
      g.general = CG_GENERAL_B;
      g.bias = (cg_view){bias, 0, 1, CG_F32};
      if (packed) {
        CU_ASSERT_EQUAL_FATAL(cg_pack_constant(&pk, &p, 1, &g.bv, k, n, NULL), 0);
        g.pb = pk, g.general = 0;
      }
      for (int64_t x = 0; x < m * n; x++)
        c[x] = NAN; /* a bias: C is not read */
      CU_ASSERT_EQUAL(cg_gemm(&g, &p, NULL, 1, ws), 0);
      for (int64_t r = 0; r < m; r++)
        for (int64_t j = 0; j < n; j++) {
          double ref = 0;
          for (int64_t q = 0; q < k; q++)
            ref += (double)a[r * k + q] * (double)cg_bf16_to_f32(b[q * n + j]);
          ref = 2.0 * ref - (double)bias[j];
          bad += (double)c[r * n + j] != ref;
        }
      CU_ASSERT_EQUAL(bad, 0u);
      cg_packed_free(pk);
    }
  free(b);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("cpu_gemm_thin16", init_suite, clean_suite);
  CU_add_test(s, "kernels_vs_double_reference", test_kernels_vs_reference);
  CU_add_test(s, "all_values_kernels", test_all_values_kernels);
  CU_add_test(s, "all_values_driver_and_pack", test_all_values_driver_and_pack);
  CU_add_test(s, "driver_slices_bias", test_driver_slices_bias);
  return olc_test_run(argc, argv);
}
