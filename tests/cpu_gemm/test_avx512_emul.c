/*
 * tests/cpu_gemm/test_avx512_emul.c - cpu_gemm's AVX-512 kernels, their
 * own sources compiled against the portable intrinsics of emul/immintrin.h:
 *   - the 12x32 tile kernel on every tile shape: rows 1-12, columns 1-32,
 *     k = 0, 1, 3, 17 (small integers: exact) and 100 (random floats:
 *     tolerance), alpha/beta = 1/0, 1/1 and 2/-3, packed panels and
 *     row-major source layouts (B read in place up to its last column);
 *   - its copying variant: the packed B slice it copies, on every tile;
 *   - its fetching variant (a constant B's stretch ahead): C on every row
 *     count, its prefetches inside the job's bounds;
 *   - its block function (the direct path): blocks of 1-37 rows and 1-70
 *     columns, ragged tiles both ways, wide leading dimensions;
 *   - the thin kernels vm4 and mv4 and their streaming and prefetching
 *     variants (vm: m 1-4, n 1-200; mv: n 1-4, m 1-17: every pass and
 *     remainder) over ragged k, the prefetching variants' prefetches all
 *     inside the operand's rows, and the vm streaming variant's late-store
 *     path (B's rows 4 KiB apart, C 64 bytes past B);
 *   - the few-row kernel with a bfloat16 / float16 B (m 1-4, ragged n and
 *     k, with and without prefetching, its prefetches inside B).
 * Every C cell outside the product must keep its sentinel, and operands
 * are allocated to their exact extent (ASan catches a read past it).
 *
 * Where the CPU has no AVX-512, the kernels' real instructions cannot run
 * (test_cpu_gemm_core runs them where it does); this proves the logic that
 * the instructions execute, on every machine.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/thin16.h"
#include "test_support.h"

#define MR 12
#define NR 32
#define LDC 40
#define SENTINEL -777.25f

unsigned long olc_emul_fmadd_calls;

/* The operand a prefetching kernel reads (rows segments of len bytes,
 * stride bytes apart, from base; base NULL: prefetches not checked), and
 * the prefetches seen, in it and outside it. */
static struct {
  const char *base;
  size_t rows, len, stride;
  unsigned long inside, outside;
  uintptr_t skip_lo, skip_hi; /* prefetches here not counted (C's lines) */
} pf;

void olc_emul_prefetch(const char *p); /* declared for the kernels in emul/immintrin.h */

void olc_emul_prefetch(const char *p) {
  uintptr_t off;
  if (pf.base == NULL)
    return;
  /* As addresses: a stray prefetch points outside the operand's object. */
  if ((uintptr_t)p >= pf.skip_lo && (uintptr_t)p < pf.skip_hi)
    return;
  off = (uintptr_t)p - (uintptr_t)pf.base;
  if ((uintptr_t)p >= (uintptr_t)pf.base && off < pf.rows * pf.stride && off % pf.stride < pf.len)
    pf.inside++;
  else
    pf.outside++;
}

static void pf_watch(const float *base, size_t rows, size_t len, size_t stride) {
  pf.base = (const char *)base;
  pf.rows = rows, pf.len = len * sizeof(float), pf.stride = stride * sizeof(float);
  pf.inside = pf.outside = 0;
  pf.skip_lo = pf.skip_hi = 0;
}

static unsigned long rng = 12345;

static float next_value(int integers) {
  rng = rng * 6364136223846793005ul + 1442695040888963407ul;
  if (integers)
    return (float)((int)((rng >> 33) % 9u) - 4);
  return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* Element counts from the tests' int dimensions (all small, >= 0). */
#define Z(x) ((size_t)(x))

static float *values(size_t count, int integers) {
  float *x = malloc((count > 0 ? count : 1) * sizeof *x);
  if (x != NULL)
    for (size_t i = 0; i < count; i++)
      x[i] = next_value(integers);
  return x;
}

/* Cells of c (rows x ldc, product rows x cols) against the reference
 * alpha * sum_p A(r, p) B(p, j) + beta * c0, sentinels outside. */
typedef struct expect {
  const float *a, *b, *c0;
  int64_t rs_a, cs_a, rs_b, k;
  float alpha, beta;
  int exact;
} expect;

static int count_bad(const float *c, int rows_all, int ldc, int rows, int cols, const expect *e) {
  int bad = 0;
  for (int r = 0; r < rows_all; r++) {
    for (int j = 0; j < ldc; j++) {
      float got = c[r * ldc + j];
      double want;
      if (r >= rows || j >= cols) {
        bad += memcmp(&got, &e->c0[r * ldc + j], sizeof got) != 0;
        continue;
      }
      want = 0.0;
      for (int64_t p = 0; p < e->k; p++)
        want += (double)e->a[r * e->rs_a + p * e->cs_a] * (double)e->b[p * e->rs_b + j];
      want *= (double)e->alpha;
      if (e->beta != 0.0f)
        want += (double)e->beta * (double)e->c0[r * ldc + j];
      if (e->exact ? (double)got != want : fabs((double)got - want) > 1e-4 * (1.0 + fabs(want)))
        bad++;
    }
  }
  return bad;
}

static const float ab[][2] = {{1.0f, 0.0f}, {1.0f, 1.0f}, {2.0f, -3.0f}};

/* One tile shape in one layout; returns the number of bad cells. */
static int check_tile(int packed, int m, int n, int k, int v) {
  const int integers = k <= 17;
  const int lda = k + 3, ldb = NR + 5;
  float *a, *b, c[(MR + 1) * LDC], c0[(MR + 1) * LDC];
  int bad;
  /* Packed: the full MR x k panel and NR-wide B; row-major: exactly m rows
   * of lda, k rows of B ending at column n. */
  size_t a_len = packed ? Z(MR) * Z(k) : Z(m) * Z(lda);
  size_t b_len = packed ? Z(k) * NR : (k > 0 ? Z(k - 1) * Z(ldb) + Z(n) : 0);
  expect e = {NULL, NULL,     c0,       packed ? 1 : lda, packed ? MR : 1, packed ? NR : ldb,
              k,    ab[v][0], ab[v][1], integers};
  a = values(a_len, integers);
  b = values(b_len, integers);
  if (a == NULL || b == NULL) {
    free(a);
    free(b);
    return -1;
  }
  for (int i = 0; i < (MR + 1) * LDC; i++)
    c[i] = SENTINEL;
  for (int r = 0; r < m; r++)
    for (int j = 0; j < n; j++)
      c[r * LDC + j] = e.beta != 0.0f ? next_value(1) : NAN;
  memcpy(c0, c, sizeof c);
  if (packed)
    sgemm_avx512_12x32_packed(m, n, k, e.alpha, a, 1, MR, b, NR, e.beta, c, LDC);
  else
    sgemm_avx512_12x32(m, n, k, e.alpha, a, lda, 1, b, ldb, e.beta, c, LDC);
  e.a = a, e.b = b;
  bad = count_bad(c, MR + 1, LDC, m, n, &e);
  if (bad > 0)
    fprintf(stderr, "\n  %s m=%d n=%d k=%d alpha=%g beta=%g: %d bad cells\n",
            packed ? "packed" : "row-major", m, n, k, (double)e.alpha, (double)e.beta, bad);
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
          for (int v = 0; v < 3; v++) {
            failures += check_tile(packed, m, n, ks[ki], v) != 0;
            tiles++;
          }
  CU_ASSERT_EQUAL(failures, 0);
  CU_ASSERT_EQUAL(tiles, 2 * MR * NR * 5 * 3);
  /* The emulated kernel ran (not the empty stubs of a build without
   * __AVX512F__). */
  CU_ASSERT(olc_emul_fmadd_calls > 0);
}

/* The direct path's block function on one block: tiles ragged in rows
 * and columns, operands at their exact extent, C's padding untouched. */
static int check_block(int m, int n, int k, int v) {
  const int integers = k <= 17;
  const int lda = k + 3, ldb = n + 5, ldc = n + 3;
  const size_t c_len = Z(m + 1) * Z(ldc);
  float *a = values(m > 0 ? Z(m - 1) * Z(lda) + Z(k) : 0, integers);
  float *b = values(k > 0 ? Z(k - 1) * Z(ldb) + Z(n) : 0, integers);
  float *c = malloc(c_len * sizeof *c), *c0 = malloc(c_len * sizeof *c0);
  expect e = {NULL, NULL, c0, lda, 1, ldb, k, ab[v][0], ab[v][1], integers};
  int bad = -1;
  if (a != NULL && b != NULL && c != NULL && c0 != NULL) {
    for (size_t i = 0; i < c_len; i++)
      c[i] = SENTINEL;
    for (int r = 0; r < m; r++)
      for (int j = 0; j < n; j++)
        c[r * ldc + j] = e.beta != 0.0f ? next_value(1) : NAN;
    memcpy(c0, c, c_len * sizeof *c);
    sgemm_avx512_12x32_block(m, n, k, e.alpha, a, lda, b, ldb, e.beta, c, ldc);
    e.a = a, e.b = b;
    bad = count_bad(c, m + 1, ldc, m, n, &e);
    if (bad > 0)
      fprintf(stderr, "\n  block m=%d n=%d k=%d alpha=%g beta=%g: %d bad cells\n", m, n, k,
              (double)e.alpha, (double)e.beta, bad);
  }
  free(a), free(b), free(c), free(c0);
  return bad;
}

static void test_block(void) {
  static const int ms[] = {1, 11, 12, 13, 25, 37}, ns[] = {1, 31, 32, 33, 70}, ks[] = {0, 5, 100};
  int failures = 0;
  for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
    for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
      for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++)
        for (int v = 0; v < 3; v++)
          failures += check_block(ms[i], ns[j], ks[q], v) != 0;
  CU_ASSERT_EQUAL(failures, 0);
}

/* The copying variant: the product of a full tile, and the job's slice of
 * B (rows x group pieces of NR floats) at its destination, for each group
 * and a number of rows below, at and above k. */
static void test_copy_job(void) {
  static const int groups[] = {1, 2, 4};
  int failures = 0;
  for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++) {
    for (int rows = 0; rows <= 40; rows += 13) {
      const int g = groups[gi], k = 24, ld_src = g * NR + 7, ld_dst = rows * NR + 5;
      float *a = values(Z(MR) * Z(k), 1), *b = values(Z(k) * NR, 1);
      float *src = values(Z(rows > 0 ? rows : 1) * Z(ld_src), 0);
      float *dst = calloc(Z(g) * Z(ld_dst) + 1, sizeof(float));
      float c[MR * LDC], c0[MR * LDC];
      expect e = {a, b, c0, 1, MR, NR, k, 1.0f, 1.0f, 1};
      cg_copy_job job = {src, ld_src, dst, ld_dst, rows, g, NULL, 0};
      CU_ASSERT_FATAL(a != NULL && b != NULL && src != NULL && dst != NULL);
      for (int i = 0; i < MR * LDC; i++)
        c[i] = (i % LDC) < NR ? next_value(1) : SENTINEL;
      memcpy(c0, c, sizeof c);
      job.pf = src, job.pf_rows = rows; /* prefetches are no-ops here */
      sgemm_avx512_12x32_packed_copy(MR, NR, k, 1.0f, a, b, 1.0f, c, LDC, &job);
      failures += count_bad(c, MR, LDC, MR, NR, &e) != 0;
      for (int p = 0; p < rows; p++)
        for (int piece = 0; piece < g; piece++)
          failures += memcmp(dst + piece * ld_dst + p * NR, src + p * ld_src + piece * NR,
                             NR * sizeof(float)) != 0;
      free(a), free(b), free(src), free(dst);
    }
  }
  CU_ASSERT_EQUAL(failures, 0);
}

/* Runs a thin kernel (vm and mv kernels share one signature: b is B's rows
 * for vm, B's contiguous columns for mv) on C (m + 1 rows of ldc, the last
 * and the cells past n sentinels; the product's cells random, or NaN when
 * beta is 0) and counts the bad cells against e, whose c0 is the c0 here
 * (C's starting values, filled here). */
static int run_thin(cg_vm_fn thin, const char *name, int m, int n, int v, const expect *e,
                    const float *b, int ldb, float *c, float *c0, int ldc) {
  int bad;
  for (int i = 0; i < (m + 1) * ldc; i++)
    c[i] = (i / ldc < m && i % ldc < n) ? (e->beta != 0.0f ? next_value(0) : NAN) : SENTINEL;
  memcpy(c0, c, Z(m + 1) * Z(ldc) * sizeof(float));
  thin(m, n, e->k, e->alpha, e->a, e->rs_a, b, ldb, e->beta, c, ldc);
  bad = count_bad(c, m + 1, ldc, m, n, e);
  if (bad > 0)
    fprintf(stderr, "\n  %s m=%d n=%d k=%d v=%d: %d bad cells\n", name, m, n, (int)e->k, v, bad);
  return bad;
}

static int run_vm(cg_vm_fn vm, const char *name, int m, int n, int k, int v, const float *a,
                  int lda, const float *b, int ldb, float *c, float *c0, int ldc) {
  const expect e = {a, b, c0, lda, 1, ldb, k, ab[v][0], ab[v][1], 0};
  return run_thin(vm, name, m, n, v, &e, b, ldb, c, c0, ldc);
}

/* After a kernel's run under pf_watch: 1 if a prefetch fell outside the
 * operand's segments or none came where `expected`.  Ends the watch. */
static int pf_check(const char *name, int m, int n, int k, int expected) {
  const int bad = pf.base != NULL && (pf.outside > 0 || (expected && pf.inside == 0));
  if (bad)
    fprintf(stderr, "\n  %s m=%d n=%d k=%d: %lu prefetches outside the operand, %lu inside\n", name,
            m, n, k, pf.outside, pf.inside);
  pf.base = NULL;
  return bad;
}

/* A vm kernel: m rows of A (lda) against k rows of B (ldb, exact
 * extent); the prefetching variant's prefetches checked to lie in B's
 * rows and columns. */
static int check_vm(cg_vm_fn vm, const char *name, int m, int n, int k, int v) {
  const int lda = k + 2, ldb = n + 3, ldc = n + 4;
  float *a = values(Z(m) * Z(lda), 0);
  float *b = values(Z(k - 1) * Z(ldb) + Z(n), 0);
  float *c = malloc(Z(m + 1) * Z(ldc) * sizeof(float));
  float *c0 = malloc(Z(m + 1) * Z(ldc) * sizeof(float));
  int bad = -1;
  if (a != NULL && b != NULL && c != NULL && c0 != NULL) {
    if (vm == sgemm_avx512_vm4_prefetch)
      pf_watch(b, Z(k), Z(n), Z(ldb));
    bad = run_vm(vm, name, m, n, k, v, a, lda, b, ldb, c, c0, ldc);
    bad += pf_check(name, m, n, k, m > 1 && k > 8 && n >= 16);
  }
  free(a), free(b), free(c), free(c0);
  return bad;
}

/* Floats in a buffer of 4 KiB pages holding at least count. */
static size_t page_floats(size_t count) { return (count * sizeof(float) + 4095u) / 4096u * 1024u; }

/* The streaming vm kernel with B's rows 4 KiB apart and C's first row 64
 * bytes after B's modulo 4 KiB: the path that stores each column of C two
 * steps late (alias_soon in the kernel). */
static int check_vm_lagged(int m, int n, int k, int v) {
  const int lda = k + 2, ldb = 1024, ldc = 1024;
  float *a = values(Z(m) * Z(lda), 0);
  float *b = aligned_alloc(4096, page_floats(Z(k) * Z(ldb)) * sizeof(float));
  float *cpage = aligned_alloc(4096, page_floats(Z(m + 1) * Z(ldc) + 16) * sizeof(float));
  float *c0 = malloc(Z(m + 1) * Z(ldc) * sizeof(float));
  int bad = -1;
  if (a != NULL && b != NULL && cpage != NULL && c0 != NULL) {
    for (size_t i = 0; i < Z(k) * Z(ldb); i++)
      b[i] = next_value(0);
    bad = run_vm(sgemm_avx512_vm4_stream, "vm4_stream (late stores)", m, n, k, v, a, lda, b, ldb,
                 cpage + 16, c0, ldc);
  }
  free(a), free(b), free(cpage), free(c0);
  return bad;
}

/* An mv kernel: m rows of A (lda, exact extent) against n contiguous
 * columns; the prefetching variant's prefetches checked to lie in A's
 * rows. */
static int check_mv(cg_mv_fn mv, const char *name, int m, int n, int k, int v) {
  const int lda = k + 5, ldbt = k + 1, ldc = n + 3;
  float *a = values(Z(m - 1) * Z(lda) + Z(k), 0);
  float *bt = values(Z(n - 1) * Z(ldbt) + Z(k), 0);
  float *b = malloc(Z(k) * Z(n) * sizeof(float)); /* B as rows, for the reference */
  float *c = malloc(Z(m + 1) * Z(ldc) * sizeof(float));
  float *c0 = malloc(Z(m + 1) * Z(ldc) * sizeof(float));
  const expect e = {a, b, c0, lda, 1, n, k, ab[v][0], ab[v][1], 0};
  int bad = -1;
  if (a != NULL && bt != NULL && b != NULL && c != NULL && c0 != NULL) {
    for (int p = 0; p < k; p++)
      for (int j = 0; j < n; j++)
        b[p * n + j] = bt[j * ldbt + p];
    if (mv == sgemm_avx512_mv4_prefetch)
      pf_watch(a, Z(m), Z(k), Z(lda));
    bad = run_thin(mv, name, m, n, v, &e, bt, ldbt, c, c0, ldc);
    bad += pf_check(name, m, n, k, n == 4 && m >= 16 && k >= 16);
  }
  free(a), free(bt), free(b), free(c), free(c0);
  return bad;
}

/*
 * The packed kernel that fetches a stretch of a constant B while it runs
 * (sgemm_avx512_12x32_packed_pf, the constant path's): every tile of rows
 * 1-12 and a full or ragged panel, C right; its prefetches all inside
 * [base, end) of the job and some there, with end far past the segments
 * or cutting them short, and none at all when base is at end.
 */
static int check_pf_tile(int m, int n, int k, int v, int cut) {
  const int64_t seg = (int64_t)k * NR * 4 / 2; /* the driver's: half the panel's bytes each */
  const size_t pack_floats = Z(k) * NR * 4;    /* this panel and the stretch ahead */
  float *pack = values(pack_floats, 1), *a = values(Z(MR) * Z(k), 1);
  float c[(MR + 1) * LDC], c0[(MR + 1) * LDC];
  expect e = {a, pack, c0, 1, MR, NR, k, ab[v][0], ab[v][1], 1};
  cg_pf_job job;
  int bad;
  if (pack == NULL || a == NULL) {
    free(pack), free(a);
    return -1;
  }
  job.base = (uintptr_t)(pack + Z(k) * NR);
  job.end = (uintptr_t)(pack + pack_floats);
  if (cut == 1)
    job.end = job.base + (uintptr_t)seg + 64u; /* the second segment's first line only */
  else if (cut == 2)
    job.end = job.base;
  job.segs = 2, job.len = seg, job.stride = seg;
  pf_watch((const float *)job.base, 1, (size_t)(job.end - job.base) / sizeof(float),
           (size_t)(job.end - job.base) / sizeof(float));
  if (cut == 2)
    pf_watch(pack, 1, 0, 1); /* nothing may be fetched: every prefetch is outside */
  for (int i = 0; i < (MR + 1) * LDC; i++)
    c[i] = SENTINEL;
  for (int r = 0; r < m; r++)
    for (int j = 0; j < n; j++)
      c[r * LDC + j] = e.beta != 0.0f ? next_value(1) : NAN;
  memcpy(c0, c, sizeof c);
  /* The kernel's own fetches of C's lines are not the job's. */
  pf.skip_lo = (uintptr_t)c, pf.skip_hi = (uintptr_t)(c + (MR + 1) * LDC);
  sgemm_avx512_12x32_packed_pf(m, n, k, e.alpha, a, pack, e.beta, c, LDC, &job);
  bad = count_bad(c, MR + 1, LDC, m, n, &e);
  bad += pf_check("packed_pf", m, n, k, cut != 2);
  if (bad > 0)
    fprintf(stderr, "\n  packed_pf m=%d n=%d k=%d v=%d cut=%d: bad\n", m, n, k, v, cut);
  free(pack), free(a);
  return bad;
}

static void test_packed_pf(void) {
  static const int ks[] = {1, 17, 100};
  int failures = 0;
  for (int m = 1; m <= MR; m++)
    for (int n = NR - 15; n <= NR; n += 15)
      for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (int v = 0; v < 3; v++)
          for (int cut = 0; cut < 3; cut++)
            failures += check_pf_tile(m, n, ks[ki], v, cut) != 0;
  CU_ASSERT_EQUAL(failures, 0);
}

/* The kernel with a 16-bit B (thin16.h): B's elements random finite
 * bfloat16 (the upper half of a float in [-1, 1)) or float16 (normal,
 * exponents -3 to 1), its float copy for the reference; the prefetching
 * flag's prefetches checked to lie in B's rows and columns. */
static int check_vm16(int bf, uint32_t pfl, int m, int n, int k, int v) {
  const int lda = k + 2, ldb = n + 3, ldc = n + 4;
  const size_t len = Z(k - 1) * Z(ldb) + Z(n);
  float *a = values(Z(m) * Z(lda), 0);
  uint16_t *b = malloc(len * sizeof(uint16_t));
  float *bf32 = malloc(len * sizeof(float));
  float *c = malloc(Z(m + 1) * Z(ldc) * sizeof(float));
  float *c0 = malloc(Z(m + 1) * Z(ldc) * sizeof(float));
  int bad = -1;
  if (a != NULL && b != NULL && bf32 != NULL && c != NULL && c0 != NULL) {
    const expect e = {a, bf32, c0, lda, 1, ldb, k, ab[v][0], ab[v][1], 0};
    for (size_t i = 0; i < len; i++) {
      rng = rng * 6364136223846793005ul + 1442695040888963407ul;
      if (bf) {
        const float x = next_value(0);
        uint32_t u;
        memcpy(&u, &x, sizeof u);
        b[i] = (uint16_t)(u >> 16);
        u &= 0xffff0000u;
        memcpy(&bf32[i], &u, sizeof u);
      } else {
        const unsigned man = (unsigned)(rng >> 40) & 0x3ffu, ex = 12u + (unsigned)(rng >> 52) % 5u;
        const int neg = (int)((rng >> 60) & 1u);
        b[i] = (uint16_t)((neg ? 0x8000u : 0u) | (ex << 10) | man);
        bf32[i] = (neg ? -1.0f : 1.0f) * ldexpf(1.0f + (float)man / 1024.0f, (int)ex - 15);
      }
    }
    for (int i = 0; i < (m + 1) * ldc; i++)
      c[i] = (i / ldc < m && i % ldc < n) ? (e.beta != 0.0f ? next_value(0) : NAN) : SENTINEL;
    memcpy(c0, c, Z(m + 1) * Z(ldc) * sizeof(float));
    if (pfl) {
      pf.base = (const char *)b, pf.rows = Z(k), pf.len = Z(n) * 2u, pf.stride = Z(ldb) * 2u;
      pf.inside = pf.outside = 0;
    }
    sgemm_avx512_vm4_h16(m, n, k, e.alpha, a, lda, b, ldb, (bf ? CG_VM16_BF16 : 0u) | pfl, e.beta,
                         c, ldc);
    bad = count_bad(c, m + 1, ldc, m, n, &e);
    if (bad > 0)
      fprintf(stderr, "\n  vm4_h16 %s pf=%u m=%d n=%d k=%d v=%d: %d bad cells\n",
              bf ? "bf16" : "f16", (unsigned)pfl, m, n, k, v, bad);
    /* Only groups of adjacent rows prefetch (k 9 here: two of them), in
     * whole steps (64 columns for up to two rows of A, 32 for more). */
    bad += pf_check("vm4_h16", m, n, k, pfl && k == 9 && n >= (m <= 2 ? 64 : 32));
  }
  free(a), free(b), free(bf32), free(c), free(c0);
  return bad;
}

static void test_thin16(void) {
  static const int ks[] = {1, 5, 8, 9, 16, 33};
  static const int ns[] = {1, 7, 16, 17, 31, 32, 33, 63, 64, 65, 200};
  int failures = 0;
  for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
    for (int v = 0; v < 3; v++)
      for (int m = 1; m <= 4; m++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
          for (int bf = 0; bf < 2; bf++)
            for (uint32_t pfl = 0; pfl <= CG_VM16_PF; pfl += CG_VM16_PF)
              failures += check_vm16(bf, pfl, m, ns[ni], ks[ki], v) != 0;
  CU_ASSERT_EQUAL(failures, 0);
}

static void test_vm_lagged(void) {
  static const int ks[] = {1, 5, 16, 70};
  static const int ns[] = {1, 16, 17, 31, 32, 33, 47, 48, 100, 200};
  int failures = 0;
  for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
    for (int v = 0; v < 3; v++)
      for (int m = 2; m <= 4; m++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
          failures += check_vm_lagged(m, ns[ni], ks[ki], v) != 0;
  CU_ASSERT_EQUAL(failures, 0);
}

static void test_thin(void) {
  static const int ks[] = {1, 5, 16, 31, 33, 70};
  static const int ns[] = {1, 7, 16, 17, 31, 32, 33, 127, 128, 129, 200};
  int failures = 0;
  for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
    for (int v = 0; v < 3; v++) {
      for (int m = 1; m <= 4; m++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
          failures += check_vm(sgemm_avx512_vm4, "vm4", m, ns[ni], ks[ki], v) != 0;
          failures += check_vm(sgemm_avx512_vm4_stream, "vm4_stream", m, ns[ni], ks[ki], v) != 0;
          failures +=
              check_vm(sgemm_avx512_vm4_prefetch, "vm4_prefetch", m, ns[ni], ks[ki], v) != 0;
        }
      for (int n = 1; n <= 4; n++)
        for (int m = 1; m <= 17; m++) {
          failures += check_mv(sgemm_avx512_mv4, "mv4", m, n, ks[ki], v) != 0;
          failures += check_mv(sgemm_avx512_mv4_stream, "mv4_stream", m, n, ks[ki], v) != 0;
          failures += check_mv(sgemm_avx512_mv4_prefetch, "mv4_prefetch", m, n, ks[ki], v) != 0;
        }
    }
  CU_ASSERT_EQUAL(failures, 0);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("avx512 kernels, emulated intrinsics", NULL, NULL);
  CU_add_test(s, "every tile shape", test_every_tile);
  CU_add_test(s, "block of tiles (the direct path)", test_block);
  CU_add_test(s, "in-kernel copy of B", test_copy_job);
  CU_add_test(s, "packed kernel fetching a constant's stretch ahead", test_packed_pf);
  CU_add_test(s, "thin kernels vm4 and mv4, their streaming and prefetching variants", test_thin);
  CU_add_test(s, "vm4_h16: bfloat16 and float16 B, with and without prefetching", test_thin16);
  CU_add_test(s, "vm4_stream storing C late (C 64 bytes past B mod 4 KiB)", test_vm_lagged);
  return olc_test_run(argc, argv);
}
