/*
 * test_cpu_gemm_core.c - the cpu_gemm core linked directly: residuals of
 * every kernel, split and packing choice against a double-precision
 * reference (BLIS-style PASS / MARGINAL / FAIL), the vm kernels in the
 * layouts that alias B's loads with C's stores (and the driver's copy of C
 * there), the probe's cache
 * decoding and identity, the thread pool's hand-off.  The policy codec and
 * the candidate generator: test_cpu_gemm_policy.c.
 */
#include <CUnit/CUnit.h>
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gemm.h"
#include "kernels/kernels.h"
#include "policy.h"
#include "probe.h"
#include "test_support.h"

#define POOL_THREADS 3u

static cg_cpu cpu;
static cg_pool *pool;
static cg_workspace ws[POOL_THREADS];
static unsigned marginal_count, pass_count;

static int init_suite(void) {
  cg_probe(&cpu);
  return cg_pool_create(&pool, POOL_THREADS);
}

static int clean_suite(void) {
  for (unsigned i = 0; i < POOL_THREADS; i++)
    cg_workspace_free(&ws[i]);
  cg_pool_destroy(pool);
  pool = NULL;
  return 0;
}

static void fill(float *x, size_t count, unsigned seed) {
  unsigned s = seed * 2654435761u + 1u;
  for (size_t i = 0; i < count; i++) {
    s = s * 1103515245u + 12345u;
    x[i] = (float)((int)((s >> 8) % 2001u) - 1000) / 1000.0f;
  }
}

typedef struct problem {
  int64_t m, n, k, lda, ldb, ldc;
  float *a, *b, *c, *c0;
  float *c_alloc; /* c, or the allocation c lies in */
  double *ref;
} problem;

/* Bytes for count floats, rounded up to whole 4 KiB pages. */
static size_t page_bytes(int64_t count) {
  return ((size_t)count * sizeof(float) + 4095u) / 4096u * 4096u;
}

/* ldc 0: padded leading dimensions, which catch any stride confusion in
 * the driver.  Else paged: B's rows 1024 floats (4 KiB) apart on pages,
 * C's rows ldc apart from c_shift floats past a page (the vm kernels'
 * 4K-aliasing layouts, n <= 1024). */
static void problem_init_at(problem *p, int64_t m, int64_t n, int64_t k, int64_t ldc,
                            int64_t c_shift) {
  const int paged = ldc != 0;
  p->m = m, p->n = n, p->k = k;
  p->lda = k + 3, p->ldb = paged ? 1024 : n + 5, p->ldc = paged ? ldc : n + 2;
  p->a = malloc((size_t)(m * p->lda) * sizeof(float));
  p->b = paged ? aligned_alloc(4096, page_bytes(k * p->ldb))
               : malloc((size_t)(k * p->ldb) * sizeof(float));
  p->c_alloc = paged ? aligned_alloc(4096, page_bytes(m * p->ldc + c_shift))
                     : malloc((size_t)(m * p->ldc) * sizeof(float));
  p->c = p->c_alloc != NULL && paged ? p->c_alloc + c_shift : p->c_alloc;
  p->c0 = malloc((size_t)(m * p->ldc) * sizeof(float));
  p->ref = calloc((size_t)(m * n), sizeof(double));
  CU_ASSERT_FATAL(p->a != NULL && p->b != NULL && p->c != NULL && p->c0 != NULL && p->ref != NULL);
  fill(p->a, (size_t)(m * p->lda), 1);
  fill(p->b, (size_t)(k * p->ldb), 2);
  fill(p->c0, (size_t)(m * p->ldc), 3);
  for (int64_t i = 0; i < m; i++)
    for (int64_t x = 0; x < k; x++)
      for (int64_t j = 0; j < n; j++)
        p->ref[i * n + j] += (double)p->a[i * p->lda + x] * (double)p->b[x * p->ldb + j];
}

static void problem_init(problem *p, int64_t m, int64_t n, int64_t k) {
  problem_init_at(p, m, n, k, 0, 0);
}

static void problem_free(problem *p) {
  free(p->a), free(p->b), free(p->c_alloc), free(p->c0), free(p->ref);
}

/* Residual of C = alpha * A x B + beta * C0 (beta 0: C0 ignored),
 * normalised by (|alpha| k + |beta|) * eps * max|a| * max|b| (all <= 1). */
static double residual(const problem *p, float alpha, float beta) {
  double worst = 0.0, scale;
  for (int64_t i = 0; i < p->m; i++)
    for (int64_t j = 0; j < p->n; j++) {
      double want = (double)alpha * p->ref[i * p->n + j];
      double d;
      if (beta != 0.0f)
        want += (double)beta * (double)p->c0[i * p->ldc + j];
      d = fabs((double)p->c[i * p->ldc + j] - want);
      if (!(d <= worst)) /* NaN counts as worst */
        worst = isnan(d) ? INFINITY : d;
    }
  scale = (fabs((double)alpha) * (double)(p->k > 0 ? p->k : 1) + fabs((double)beta)) * FLT_EPSILON;
  return worst / (scale > 0 ? scale : FLT_EPSILON);
}

/* One product with alpha and beta: C starts as C0 (beta != 0) or NaN
 * (beta == 0: C must not be read), the padding between rows as NaN. */
static void check_ab(problem *p, const cg_policy *pol, uint32_t threads, float alpha, float beta) {
  cg_gemm_args g = {.m = p->m,
                    .n = p->n,
                    .k = p->k,
                    .a = p->a,
                    .lda = p->lda,
                    .b = p->b,
                    .ldb = p->ldb,
                    .c = p->c,
                    .ldc = p->ldc,
                    .alpha = alpha,
                    .beta = beta};
  char text[CG_POLICY_TEXT_MAX];
  double r;
  for (int64_t i = 0; i < p->m; i++)
    for (int64_t j = 0; j < p->ldc; j++)
      p->c[i * p->ldc + j] = (beta != 0.0f && j < p->n) ? p->c0[i * p->ldc + j] : NAN;
  CU_ASSERT_EQUAL_FATAL(cg_gemm(&g, pol, pool, threads, ws), 0);
  r = residual(p, alpha, beta);
  cg_policy_format(text, sizeof(text), pol);
  if (r < 1.0) {
    pass_count++;
  } else if (r < 10.0) {
    marginal_count++;
    fprintf(stderr, "MARGINAL %lldx%lldx%lld t=%u a=%g b=%g [%s] residual %.2f\n", (long long)p->m,
            (long long)p->n, (long long)p->k, threads, (double)alpha, (double)beta, text, r);
  } else {
    fprintf(stderr, "FAIL %lldx%lldx%lld t=%u a=%g b=%g [%s] residual %g\n", (long long)p->m,
            (long long)p->n, (long long)p->k, threads, (double)alpha, (double)beta, text, r);
    CU_FAIL("residual too large");
  }
  /* The padding between rows of C must be untouched. */
  for (int64_t i = 0; i < p->m; i++)
    for (int64_t j = p->n; j < p->ldc; j++)
      CU_ASSERT(isnan(p->c[i * p->ldc + j]));
}

static void check(problem *p, const cg_policy *pol, uint32_t threads) {
  check_ab(p, pol, threads, 1.0f, 0.0f);
}

/* 64 x 1100 x 520 and 20 x 2100 x 300: skinny shapes whose B spans several
 * NC blocks, KC slices and panel groups, ragged at every level (the
 * kernels pack B ahead across block boundaries there).  3 x 150 x 40 and
 * 150 x 4 x 70: thin ones with several groups of rows (vm) and passes
 * (mv), where the prefetching variants fetch ahead. */
static const int64_t shapes[][3] = {{1, 1, 1},       {2, 3, 5},       {7, 13, 17},  {31, 37, 41},
                                    {6, 16, 1},      {12, 32, 1},     {97, 1, 53},  {1, 97, 53},
                                    {13, 130, 257},  {200, 7, 300},   {5, 300, 65}, {67, 67, 67},
                                    {128, 128, 128}, {101, 203, 307}, {1, 1, 600},  {37, 61, 1},
                                    {64, 1100, 520}, {20, 2100, 300}, {3, 150, 40}, {150, 4, 70}};

/* A thin kernel's policies: tiny and normal slices and blocks, both of
 * its splits. */
static void check_thin(problem *p, uint32_t ki) {
  const cg_kernel_info *kinfo = &cg_kernel_table[ki];
  const uint32_t split = kinfo->kind == CG_KIND_VM ? CG_SPLIT_JC : CG_SPLIT_IC;
  for (int b = 0; b < 3; b++) {
    for (int sp = 0; sp < 2; sp++) {
      cg_policy pol;
      memset(&pol, 0, sizeof(pol));
      pol.kernel = ki, pol.mc = kinfo->mr;
      pol.kc = b == 0 ? 7 : b == 1 ? 16 : 256;
      pol.nc = kinfo->kind == CG_KIND_MV ? kinfo->nr : kinfo->nr * (b == 0 ? 1u : 64u);
      pol.split = sp == 0 ? CG_SPLIT_NONE : split;
      CU_ASSERT_EQUAL_FATAL(cg_policy_check(&pol, cpu.isa, NULL, 0), 0);
      check(p, &pol, sp == 0 ? 1u : POOL_THREADS);
    }
  }
}

static void test_residuals_all(void) {
  const uint32_t splits[3] = {CG_SPLIT_NONE, CG_SPLIT_IC, CG_SPLIT_JC};
  /* Kernels the CPU cannot run are skipped, and the run says so:
   * test_avx512_emul covers the AVX-512 kernels' logic everywhere. */
  for (uint32_t isa = cpu.isa + 1; isa <= CG_ISA_AVX512; isa++)
    fprintf(stderr, "residuals: %s kernels skipped (this CPU runs up to %s)\n", cg_isa_name(isa),
            cg_isa_name(cpu.isa));
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
    problem p;
    cg_shape sh = {shapes[s][0], shapes[s][1], shapes[s][2]};
    problem_init(&p, sh.m, sh.n, sh.k);
    for (uint32_t ki = 0; ki < cg_kernel_count; ki++) {
      const cg_kernel_info *kinfo = &cg_kernel_table[ki];
      cg_policy base, tiny;
      if (kinfo->isa > cpu.isa)
        continue;
      if (kinfo->kind != CG_KIND_TILE) {
        check_thin(&p, ki);
        continue;
      }
      memset(&base, 0, sizeof(base));
      base.kernel = ki, base.mc = kinfo->mr * 16, base.kc = 256, base.nc = kinfo->nr * 64;
      /* Tiny blocks: every loop runs many times and ends on an edge. */
      tiny = base;
      tiny.mc = kinfo->mr * 2, tiny.kc = 7, tiny.nc = kinfo->nr * 2;
      for (int b = 0; b < 2; b++) {
        /* pk past CG_PACK_MAX: abj with panel groups of 2 and 4. */
        for (uint32_t pk = 0; pk <= CG_PACK_MAX + CG_BJ_GROUP_MAX; pk++) {
          for (int sp = 0; sp < 3; sp++) {
            cg_policy pol = b == 0 ? base : tiny;
            pol.pack = pk <= CG_PACK_MAX ? pk : (CG_PACK_A | CG_PACK_BJ);
            pol.bj_group = pk <= CG_PACK_MAX ? 0 : pk - CG_PACK_MAX;
            pol.split = splits[sp];
            CU_ASSERT_EQUAL_FATAL(cg_policy_check(&pol, cpu.isa, NULL, 0), 0);
            check(&p, &pol, sp == 0 ? 1u : POOL_THREADS);
          }
        }
      }
    }
    /* And every candidate the plugin would offer for this shape. */
    {
      cg_policy cands[CG_CANDIDATES_MAX];
      uint32_t n = cg_policy_candidates(cands, CG_CANDIDATES_MAX, &cpu, cpu.isa, 2, &sh);
      CU_ASSERT(n >= 1);
      for (uint32_t i = 0; i < n; i++)
        check(&p, &cands[i], POOL_THREADS);
    }
    problem_free(&p);
  }
  fprintf(stderr, "residuals: %u PASS, %u MARGINAL\n", pass_count, marginal_count);
}

/* Every vm kernel on two to four rows with B's and C's rows 4 KiB apart
 * and C 64 bytes past B (avx512_vm4_stream then stores C two steps late),
 * natively where the CPU runs it (test_avx512_emul covers that path
 * everywhere). */
static void test_thin_paged(void) {
  static const int64_t dims[][2] = {{33, 9}, {100, 70}, {300, 17}};
  for (int64_t m = 2; m <= 4; m++)
    for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++) {
      problem p;
      problem_init_at(&p, m, dims[d][0], dims[d][1], 1024, 16);
      for (uint32_t ki = 0; ki < cg_kernel_count; ki++)
        if (cg_kernel_table[ki].kind == CG_KIND_VM && cg_kernel_table[ki].isa <= cpu.isa)
          check_thin(&p, ki);
      problem_free(&p);
    }
}

/* Products in layouts where the vm driver runs the kernels on a copy of C
 * (cg_vm_relocates_c): B's rows 4 KiB apart, C's 64 bytes past B's, its
 * rows 4 KiB or n + 2 floats apart; at least 32 rows of B.  The decision
 * for each kernel, and the results with every beta (the copy is read in
 * only when beta is not 0) and both splits; and C 2 KiB past B, kept. */
static void test_thin_relocated(void) {
  static const int64_t dims[][2] = {{1000, 40}, {1024, 64}, {333, 100}};
  static const float betas[] = {0.0f, 1.0f, -2.0f};
  for (int64_t m = 1; m <= 4; m++)
    for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++)
      for (int layout = 0; layout < 3; layout++) {
        const int64_t n = dims[d][0], k = dims[d][1];
        problem p;
        problem_init_at(&p, m, n, k, layout == 1 ? n + 2 : 1024, layout == 2 ? 512 : 16);
        for (uint32_t ki = 0; ki < cg_kernel_count; ki++) {
          const cg_kernel_info *kinfo = &cg_kernel_table[ki];
          cg_policy pol;
          cg_gemm_args g = {.m = m,
                            .n = n,
                            .k = k,
                            .a = p.a,
                            .lda = p.lda,
                            .b = p.b,
                            .ldb = p.ldb,
                            .c = p.c,
                            .ldc = p.ldc,
                            .alpha = 1.0f,
                            .beta = 0.0f};
          if (kinfo->kind != CG_KIND_VM || kinfo->isa > cpu.isa)
            continue;
          memset(&pol, 0, sizeof(pol));
          pol.kernel = ki, pol.mc = kinfo->mr, pol.kc = 48, pol.nc = kinfo->nr * 8;
          CU_ASSERT_EQUAL(cg_vm_relocates_c(&g, &pol),
                          layout != 2 && (kinfo->sweeps & CG_AT(m)) != 0);
          for (int sp = 0; sp < 2; sp++) {
            pol.split = sp == 0 ? CG_SPLIT_NONE : CG_SPLIT_JC;
            CU_ASSERT_EQUAL_FATAL(cg_policy_check(&pol, cpu.isa, NULL, 0), 0);
            for (size_t b = 0; b < sizeof(betas) / sizeof(betas[0]); b++)
              check_ab(&p, &pol, sp == 0 ? 1u : POOL_THREADS, 1.5f, betas[b]);
          }
        }
        problem_free(&p);
      }
}

static void test_k_zero(void) {
  float c[6] = {1, 2, 3, 4, 5, 6};
  cg_policy pol;
  cg_shape sh = {2, 3, 1};
  cg_gemm_args g = {.m = 2,
                    .n = 3,
                    .k = 0,
                    .a = NULL,
                    .lda = 1,
                    .b = NULL,
                    .ldb = 3,
                    .c = c,
                    .ldc = 3,
                    .alpha = 1.0f,
                    .beta = 0.0f};
  cg_policy_default(&pol, &cpu, cpu.isa, 1, &sh);
  CU_ASSERT_EQUAL(cg_gemm(&g, &pol, pool, 1, ws), 0);
  for (int i = 0; i < 6; i++)
    CU_ASSERT_EQUAL(c[i], 0.0f);
  /* k = 0 or alpha = 0: C = beta * C, A and B not read (NULL here). */
  for (int i = 0; i < 6; i++)
    c[i] = (float)(i + 1);
  g.beta = -2.0f;
  CU_ASSERT_EQUAL(cg_gemm(&g, &pol, pool, 1, ws), 0);
  for (int i = 0; i < 6; i++)
    CU_ASSERT_EQUAL(c[i], -2.0f * (float)(i + 1));
  g.k = 5, g.alpha = 0.0f, g.beta = 1.0f;
  CU_ASSERT_EQUAL(cg_gemm(&g, &pol, pool, 1, ws), 0);
  for (int i = 0; i < 6; i++)
    CU_ASSERT_EQUAL(c[i], -2.0f * (float)(i + 1));
}

/* alpha and beta through every kernel family, split and packing: beta 0
 * over a NaN-filled C (never read), beta 1, other values, with ragged
 * shapes, m or n = 1 and padded leading dimensions. */
static void test_alpha_beta(void) {
  static const int64_t ab_shapes[][3] = {{1, 1, 1},    {1, 77, 40},   {77, 1, 40}, {3, 130, 33},
                                         {130, 3, 33}, {29, 45, 300}, {4, 4, 9}};
  static const float ab[][2] = {{1.0f, 0.0f}, {1.0f, 1.0f}, {2.5f, -0.5f}, {-1.0f, 3.0f}};
  for (size_t s = 0; s < sizeof(ab_shapes) / sizeof(ab_shapes[0]); s++) {
    problem p;
    cg_shape sh = {ab_shapes[s][0], ab_shapes[s][1], ab_shapes[s][2]};
    cg_policy cands[CG_CANDIDATES_MAX];
    uint32_t n;
    problem_init(&p, sh.m, sh.n, sh.k);
    n = cg_policy_candidates(cands, CG_CANDIDATES_MAX, &cpu, cpu.isa, POOL_THREADS, &sh);
    for (uint32_t i = 0; i < n; i++)
      for (size_t v = 0; v < sizeof(ab) / sizeof(ab[0]); v++)
        check_ab(&p, &cands[i], POOL_THREADS, ab[v][0], ab[v][1]);
    for (uint32_t ki = 0; ki < cg_kernel_count; ki++) {
      cg_policy pol;
      const cg_kernel_info *kinfo = &cg_kernel_table[ki];
      if (kinfo->isa > cpu.isa)
        continue;
      memset(&pol, 0, sizeof(pol));
      pol.kernel = ki, pol.mc = kinfo->kind == CG_KIND_TILE ? kinfo->mr * 2 : kinfo->mr;
      pol.kc = 7, pol.nc = kinfo->kind == CG_KIND_MV ? kinfo->nr : kinfo->nr * 2;
      pol.pack = kinfo->kind == CG_KIND_TILE ? (CG_PACK_A | CG_PACK_B) : 0;
      for (size_t v = 0; v < sizeof(ab) / sizeof(ab[0]); v++)
        check_ab(&p, &pol, 1, ab[v][0], ab[v][1]);
    }
    problem_free(&p);
  }
}

static void test_decode_cache(void) {
  /* AMD 0x8000001D sub-leaf 3 of an EPYC guest: L3 32 MiB 16-way, 64 B. */
  cg_cache c;
  CU_ASSERT_EQUAL(cg_probe__decode_cache(0x00004163u, 0x03c0003fu, 0x00007fffu, &c), 1);
  CU_ASSERT_EQUAL(c.level, 3u);
  CU_ASSERT_EQUAL(c.type, (uint32_t)CG_CACHE_UNIFIED);
  CU_ASSERT_EQUAL(c.size, 32ull << 20);
  CU_ASSERT_EQUAL(c.ways, 16u);
  CU_ASSERT_EQUAL(c.line, 64u);
  CU_ASSERT_EQUAL(c.sharing, 2u);
  CU_ASSERT_EQUAL(cg_probe__decode_cache(0, 0, 0, &c), 0);
}

static void test_identity_stable(void) {
  cg_cpu again;
  char a[512], b[512];
  cg_probe(&again);
  cg_probe_identity(a, sizeof(a), &cpu, cpu.isa);
  cg_probe_identity(b, sizeof(b), &again, again.isa);
  CU_ASSERT_STRING_EQUAL(a, b);
  CU_ASSERT_PTR_NOT_NULL(strstr(a, "isa="));
  CU_ASSERT_PTR_NOT_NULL(strstr(a, " L1d="));
  CU_ASSERT_PTR_NOT_NULL(strstr(a, " L2="));
  cg_probe_identity(b, sizeof(b), &cpu, CG_ISA_REF);
  CU_ASSERT_PTR_NOT_NULL(strstr(b, "isa=ref"));
  CU_ASSERT_EQUAL(cg_probe_identity(b, 8, &cpu, cpu.isa), 7u);
}

typedef struct pool_probe {
  _Atomic unsigned hits[POOL_THREADS];
  _Atomic unsigned bad_n;
} pool_probe;

static void pool_task(void *arg, uint32_t tid, uint32_t n) {
  pool_probe *pp = arg;
  if (n != POOL_THREADS || tid >= POOL_THREADS)
    atomic_fetch_add(&pp->bad_n, 1u);
  else
    atomic_fetch_add(&pp->hits[tid], 1u);
}

/* Every run reaches every thread exactly once, whether the workers are
 * still spinning (back-to-back runs) or asleep (runs after a pause). */
static void test_pool_handoff(void) {
  static pool_probe pp;
  const unsigned runs = 600;
  struct timespec pause_ts = {0, 2000000}; /* 2 ms: past the spin window */
  for (unsigned t = 0; t < POOL_THREADS; t++)
    atomic_init(&pp.hits[t], 0u);
  atomic_init(&pp.bad_n, 0u);
  CU_ASSERT_EQUAL(cg_pool_size(pool), POOL_THREADS);
  for (unsigned r = 0; r < runs; r++) {
    cg_pool_run(pool, pool_task, &pp);
    if (r % 100 == 99)
      nanosleep(&pause_ts, NULL);
  }
  CU_ASSERT_EQUAL(atomic_load(&pp.bad_n), 0u);
  for (unsigned t = 0; t < POOL_THREADS; t++)
    CU_ASSERT_EQUAL(atomic_load(&pp.hits[t]), runs);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("cpu_gemm_core", init_suite, clean_suite);
  CU_add_test(s, "residuals_all_kernels_splits_packs", test_residuals_all);
  CU_add_test(s, "k_zero_clears_c", test_k_zero);
  CU_add_test(s, "alpha_beta_all_families", test_alpha_beta);
  CU_add_test(s, "thin_vm_paged_layout", test_thin_paged);
  CU_add_test(s, "thin_vm_c_relocated", test_thin_relocated);
  CU_add_test(s, "decode_cache", test_decode_cache);
  CU_add_test(s, "identity_stable", test_identity_stable);
  CU_add_test(s, "pool_handoff", test_pool_handoff);
  return olc_test_run(argc, argv);
}
