/*
 * test_cpu_gemm_general.c - cg_gemm in general mode, the core linked
 * directly: operands as views (transposed, strided, a stride of 0),
 * float16 and bfloat16 operands, a bias broadcast as scalar, row, column
 * or matrix, and B packed once by cg_pack_constant, for every candidate
 * policy of each shape and hand-made ones of every kernel, pack variant
 * and split, against a double-precision reference.
 *
 * Operand values are multiples of 1/16 in [-2, 2]: float16 and bfloat16
 * hold them exactly, and every partial sum of these shapes is exact in
 * float32, so any misread element shows far above the per-dtype bound.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "gemm.h"
#include "kernels/kernels.h"
#include "policy.h"
#include "probe.h"
#include "test_support.h"

#define POOL_THREADS 3u

static cg_cpu cpu;
static cg_pool *pool;
static cg_workspace ws[POOL_THREADS];
static unsigned products;

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

/* Layouts of a stored matrix. */
enum { L_ROW, L_T, L_STRIDED, L_BROWS, L_BCOLS, L_SCALAR };

/* A logical rows x cols matrix (v, row-major doubles) and its storage. */
typedef struct mat {
  int64_t rows, cols;
  double *v;
  void *store;
  cg_view view;
} mat;

/* float32 to float16 for the exact values used here (normal or zero). */
static uint16_t to_f16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof(u));
  if ((u & 0x7fffffffu) == 0)
    return (uint16_t)(u >> 16);
  return (uint16_t)(((u >> 16) & 0x8000u) | ((((u >> 23) & 0xffu) - 112u) << 10) |
                    ((u >> 13) & 0x3ffu));
}

static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof(u));
  return (uint16_t)(u >> 16);
}

static double value(unsigned seed, int64_t i, int64_t j) {
  uint32_t h = seed * 2654435761u ^ (uint32_t)i * 40503u ^ (uint32_t)j * 2246822519u;
  h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
  return (double)((int)(h % 65u) - 32) / 16.0;
}

static void mat_make(mat *x, int64_t rows, int64_t cols, int layout, uint32_t dtype,
                     unsigned seed) {
  int64_t rs = 0, cs = 0, span;
  const size_t es = cg_dtype_size(dtype);
  x->rows = rows, x->cols = cols;
  switch (layout) {
  case L_ROW:
    rs = cols + 3, cs = 1;
    break;
  case L_T:
    rs = 1, cs = rows + 2;
    break;
  case L_STRIDED:
    rs = 2 * cols + 1, cs = 2;
    break;
  case L_BROWS:
    rs = 0, cs = 1;
    break;
  case L_BCOLS:
    rs = 1, cs = 0;
    break;
  default:
    break;
  }
  span = (rows - 1) * rs + (cols - 1) * cs + 1;
  x->v = malloc((size_t)(rows * cols) * sizeof(double));
  x->store = malloc((size_t)span * es);
  CU_ASSERT_FATAL(x->v != NULL && x->store != NULL);
  memset(x->store, 0xff, (size_t)span * es); /* NaN everywhere no element lies */
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      const int64_t off = i * rs + j * cs;
      const double d = value(seed, rs == 0 ? 0 : i, cs == 0 ? 0 : j);
      x->v[i * cols + j] = d;
      if (dtype == CG_F32)
        ((float *)x->store)[off] = (float)d;
      else if (dtype == CG_F16)
        ((uint16_t *)x->store)[off] = to_f16((float)d);
      else
        ((uint16_t *)x->store)[off] = to_bf16((float)d);
    }
  x->view = (cg_view){x->store, rs, cs, dtype};
}

static void mat_free(mat *x) {
  free(x->v), free(x->store);
  x->v = NULL, x->store = NULL;
}

/* One layout of a product. */
typedef struct combo {
  const char *name;
  int la;
  uint32_t da;
  int lb;
  uint32_t db;
  int bias; /* -1: none, else the bias's layout */
  uint32_t dbias;
  int pb;
  int general_a, general_b; /* 0: A / B passed plain (layout must be a row one) */
  float alpha, beta;
} combo;

static const combo combos[] = {
    {"A^T", L_T, CG_F32, L_ROW, CG_F32, -1, 0, 0, 1, 0, 1.0f, 0.0f},
    {"B^T beta", L_ROW, CG_F32, L_T, CG_F32, -1, 0, 0, 0, 1, 1.0f, 0.5f},
    {"B f16", L_ROW, CG_F32, L_ROW, CG_F16, -1, 0, 0, 0, 1, 1.0f, 0.0f},
    {"B bf16", L_ROW, CG_F32, L_ROW, CG_BF16, -1, 0, 0, 0, 1, 1.5f, 0.0f},
    {"A+B f16 bias f16", L_ROW, CG_F16, L_ROW, CG_F16, L_ROW, CG_F16, 0, 1, 1, 1.0f, 1.0f},
    {"A^T+B^T bf16 row bias", L_T, CG_BF16, L_T, CG_BF16, L_BROWS, CG_F32, 0, 1, 1, 1.0f, -0.5f},
    {"B^T f16 col bias", L_ROW, CG_F32, L_T, CG_F16, L_BCOLS, CG_F32, 0, 0, 1, 1.0f, 2.0f},
    {"scalar bias", L_ROW, CG_F32, L_ROW, CG_F32, L_SCALAR, CG_F32, 0, 0, 0, 1.0f, 1.0f},
    {"strided", L_STRIDED, CG_F32, L_STRIDED, CG_F16, L_T, CG_BF16, 0, 1, 1, 1.0f, 1.0f},
    {"pb", L_ROW, CG_F32, L_ROW, CG_F32, -1, 0, 1, 0, 1, 1.0f, 0.0f},
    {"pb B^T f16 row bias", L_ROW, CG_F32, L_T, CG_F16, L_BROWS, CG_F32, 1, 0, 1, 1.0f, 1.0f},
    {"pb A^T B bf16 bias", L_T, CG_F32, L_ROW, CG_BF16, L_ROW, CG_F32, 1, 1, 1, -1.0f, 0.5f},
    {"B rows broadcast", L_ROW, CG_F32, L_BROWS, CG_F32, -1, 0, 0, 0, 1, 1.0f, 0.0f},
    {"plain as views", L_ROW, CG_F32, L_ROW, CG_F32, -1, 0, 0, 1, 1, 1.5f, 0.0f},
    {"alpha 0 bias", L_ROW, CG_F32, L_T, CG_F16, L_ROW, CG_F32, 0, 0, 1, 0.0f, 0.5f},
};
#define COMBOS (sizeof(combos) / sizeof(combos[0]))

/* The operands of one shape in one combo, and the expected C. */
typedef struct prob {
  int64_t m, n, k, ldc;
  mat a, b, bias;
  float *c, *c0;
  double *want, *bound;
} prob;

static double dtype_eps(uint32_t d) {
  return d == CG_BF16 ? 0x1p-8 : d == CG_F16 ? 0x1p-11 : 0x1p-24;
}

static void prob_make(prob *p, int64_t m, int64_t n, int64_t k, const combo *cb) {
  double eps = dtype_eps(cb->da) > dtype_eps(cb->db) ? dtype_eps(cb->da) : dtype_eps(cb->db);
  p->m = m, p->n = n, p->k = k, p->ldc = n + 2;
  mat_make(&p->a, m, k, cb->la, cb->da, 11);
  mat_make(&p->b, k, n, cb->lb, cb->db, 22);
  if (cb->bias >= 0)
    mat_make(&p->bias, m, n, cb->bias, cb->dbias, 33);
  p->c = malloc((size_t)(m * p->ldc) * sizeof(float));
  p->c0 = malloc((size_t)(m * p->ldc) * sizeof(float));
  p->want = malloc((size_t)(m * n) * sizeof(double));
  p->bound = malloc((size_t)(m * n) * sizeof(double));
  CU_ASSERT_FATAL(p->c != NULL && p->c0 != NULL && p->want != NULL && p->bound != NULL);
  for (int64_t i = 0; i < m * p->ldc; i++)
    p->c0[i] = (float)value(44, i, 0);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double s = 0.0, sa = 0.0, add = 0.0;
      for (int64_t x = 0; x < k; x++) {
        s += p->a.v[i * k + x] * p->b.v[x * n + j];
        sa += fabs(p->a.v[i * k + x] * p->b.v[x * n + j]);
      }
      if (cb->bias >= 0)
        add = (double)cb->beta * p->bias.v[i * n + j];
      else if (cb->beta != 0.0f)
        add = (double)cb->beta * (double)p->c0[i * p->ldc + j];
      p->want[i * n + j] = (double)cb->alpha * s + add;
      p->bound[i * n + j] =
          4.0 * eps * ((double)k * fabs((double)cb->alpha) * sa + fabs(add) + 1.0);
    }
}

static void prob_free(prob *p) {
  mat_free(&p->a), mat_free(&p->b);
  if (p->bias.v != NULL)
    mat_free(&p->bias);
  free(p->c), free(p->c0), free(p->want), free(p->bound);
  memset(p, 0, sizeof(*p));
}

/* One product under one policy; 1 when C is as expected. */
static int run_one(prob *p, const combo *cb, const cg_policy *pol, uint32_t threads) {
  cg_gemm_args g;
  cg_packed *pk = NULL;
  uint64_t bytes = 0;
  char text[CG_POLICY_TEXT_MAX];
  int ok = 1, rc;
  memset(&g, 0, sizeof(g));
  g.m = p->m, g.n = p->n, g.k = p->k;
  g.c = p->c, g.ldc = p->ldc;
  g.alpha = cb->alpha, g.beta = cb->beta;
  if (cb->general_a) {
    g.general |= CG_GENERAL_A, g.av = p->a.view;
  } else {
    g.a = p->a.store, g.lda = p->a.view.rs;
  }
  if (cb->pb) {
    CU_ASSERT_EQUAL_FATAL(cg_pack_constant(&pk, pol, 1, &p->b.view, p->k, p->n, &bytes), 0);
    /* A vm policy keeps a 16-bit B in its type; every other pack is
     * float32. */
    CU_ASSERT(bytes >= (uint64_t)(p->k * p->n) * (cg_kernel_table[pol->kernel].kind == CG_KIND_VM &&
                                                          p->b.view.dtype != CG_F32
                                                      ? 2u
                                                      : sizeof(float)));
    g.pb = pk; /* B itself is not passed: only the packed copy is read */
  } else if (cb->general_b) {
    g.general |= CG_GENERAL_B, g.bv = p->b.view;
  } else {
    g.b = p->b.store, g.ldb = p->b.view.rs;
  }
  if (cb->bias >= 0)
    g.bias = p->bias.view;
  for (int64_t i = 0; i < p->m; i++)
    for (int64_t j = 0; j < p->ldc; j++)
      p->c[i * p->ldc + j] =
          cb->bias < 0 && cb->beta != 0.0f && j < p->n ? p->c0[i * p->ldc + j] : NAN;
  rc = cg_gemm(&g, pol, pool, threads, ws);
  cg_packed_free(pk);
  products++;
  if (rc != 0)
    ok = 0;
  for (int64_t i = 0; i < p->m && ok; i++)
    for (int64_t j = 0; j < p->ldc && ok; j++) {
      const float c = p->c[i * p->ldc + j];
      if (j >= p->n) {
        ok = isnan(c); /* padding untouched */
      } else if (!(fabs((double)c - p->want[i * p->n + j]) <= p->bound[i * p->n + j])) {
        fprintf(stderr, "  C(%lld,%lld) = %g, want %g\n", (long long)i, (long long)j, (double)c,
                p->want[i * p->n + j]);
        ok = 0;
      }
    }
  if (!ok) {
    cg_policy_format(text, sizeof(text), pol);
    fprintf(stderr, "FAIL %lldx%lldx%lld t=%u [%s] %s rc=%d\n", (long long)p->m, (long long)p->n,
            (long long)p->k, threads, text, cb->name, rc);
  }
  return ok;
}

/* Edges: 1x1x1, m below every mr, n no multiple of nr, k above the tiny
 * policies' kc (and above 256), thin shapes of 1 to 4 rows and columns. */
static const int64_t shapes[][3] = {{1, 1, 1},    {2, 3, 5},     {7, 13, 17},  {13, 37, 300},
                                    {1, 100, 40}, {2, 70, 9},    {3, 150, 41}, {4, 300, 33},
                                    {150, 3, 70}, {37, 61, 1},   {35, 35, 35}, {20, 30, 300},
                                    {97, 1, 53},  {29, 140, 20}, {5, 2, 260}};
#define SHAPES (sizeof(shapes) / sizeof(shapes[0]))

/* Hand-made policies: every kernel the CPU runs, tile ones with every
 * pack variant and split at normal and tiny blocking, thin ones with
 * small and large slices and both splits. */
static uint32_t hand_policies(cg_policy *out, uint32_t cap) {
  const uint32_t splits[3] = {CG_SPLIT_NONE, CG_SPLIT_IC, CG_SPLIT_JC};
  uint32_t n = 0;
  for (uint32_t ki = 0; ki < cg_kernel_count; ki++) {
    const cg_kernel_info *kinfo = &cg_kernel_table[ki];
    if (kinfo->isa > cpu.isa)
      continue;
    for (int b = 0; b < 2; b++) {
      if (kinfo->kind != CG_KIND_TILE) {
        for (int sp = 0; sp < 2 && n < cap; sp++) {
          cg_policy pol;
          memset(&pol, 0, sizeof(pol));
          pol.kernel = ki, pol.mc = kinfo->mr, pol.kc = b == 0 ? 7 : 256;
          pol.nc = kinfo->kind == CG_KIND_MV ? kinfo->nr : kinfo->nr * (b == 0 ? 1u : 64u);
          pol.split =
              sp == 0 ? CG_SPLIT_NONE : (kinfo->kind == CG_KIND_VM ? CG_SPLIT_JC : CG_SPLIT_IC);
          out[n++] = pol;
        }
        continue;
      }
      for (uint32_t pk = 0; pk <= CG_PACK_MAX + CG_BJ_GROUP_MAX; pk++) {
        for (int sp = 0; sp < 3 && n < cap; sp++) {
          cg_policy pol;
          memset(&pol, 0, sizeof(pol));
          pol.kernel = ki;
          pol.mc = kinfo->mr * (b == 0 ? 16u : 2u), pol.kc = b == 0 ? 256 : 7;
          pol.nc = kinfo->nr * (b == 0 ? 64u : 2u);
          pol.pack = pk <= CG_PACK_MAX ? pk : (CG_PACK_A | CG_PACK_BJ);
          pol.bj_group = pk <= CG_PACK_MAX ? 0 : pk - CG_PACK_MAX;
          pol.split = splits[sp];
          out[n++] = pol;
        }
      }
    }
  }
  return n;
}

/* threaded: split policies run on the pool (else on the caller alone,
 * the pool's hand-offs being most of this test's time). */
static void run_policies(prob *p, const combo *cb, const cg_policy *pols, uint32_t count,
                         int threaded, unsigned *fails) {
  for (uint32_t i = 0; i < count; i++) {
    CU_ASSERT_EQUAL_FATAL(cg_policy_check(&pols[i], cpu.isa, NULL, 0), 0);
    if (!run_one(p, cb, &pols[i], threaded && pols[i].split != CG_SPLIT_NONE ? POOL_THREADS : 1u))
      (*fails)++;
  }
}

static void test_every_policy_every_layout(void) {
  static cg_policy hand[512];
  const uint32_t n_hand = hand_policies(hand, 512);
  unsigned fails = 0;
  CU_ASSERT(n_hand > 0 && n_hand < 512);
  for (size_t s = 0; s < SHAPES && fails < 20; s++) {
    const cg_shape sh = {shapes[s][0], shapes[s][1], shapes[s][2]};
    cg_policy cands[CG_CANDIDATES_MAX];
    const uint32_t n_cand =
        cg_policy_candidates(cands, CG_CANDIDATES_MAX, &cpu, cpu.isa, POOL_THREADS, &sh);
    CU_ASSERT(n_cand >= 1);
    for (size_t c = 0; c < COMBOS; c++) {
      prob p;
      memset(&p, 0, sizeof(p));
      prob_make(&p, sh.m, sh.n, sh.k, &combos[c]);
      run_policies(&p, &combos[c], cands, n_cand, c % 3 == 1, &fails);
      run_policies(&p, &combos[c], hand, n_hand, c % 3 == 1, &fails);
      prob_free(&p);
    }
  }
  fprintf(stderr, "general: %u products, %u failed\n", products, fails);
  CU_ASSERT_EQUAL(fails, 0);
}

/* Every float16 and bfloat16 value: the vector paths (whichever this CPU
 * takes) agree bit for bit with the scalar conversions, which agree with
 * the definition of the formats. */
static void test_convert_all_values(void) {
  static uint16_t h[65536 + 3];
  static float out[65536 + 3];
  unsigned bad = 0;
  for (uint32_t i = 0; i < 65536u; i++)
    h[i] = (uint16_t)i;
  cg_convert_run(out, h, 1, 65536, CG_F16);
  for (uint32_t i = 0; i < 65536u; i++) {
    const uint32_t e = (i >> 10) & 0x1fu, man = i & 0x3ffu;
    const double sign = (i & 0x8000u) ? -1.0 : 1.0;
    const float s = cg_f16_to_f32((uint16_t)i);
    uint32_t ub, us;
    double want;
    memcpy(&ub, &out[i], 4), memcpy(&us, &s, 4);
    if (e == 0x1fu) {
      if (man != 0 ? !(isnan(s) && isnan(out[i]))
                   : !(isinf(s) && s == out[i] && ((double)s * sign) > 0))
        bad++;
      continue;
    }
    want = sign * (e == 0 ? ldexp((double)man, -24) : ldexp(1024.0 + man, (int)e - 25));
    if ((double)s != want || ub != us || !signbit(s) != !signbit(want))
      bad++;
  }
  CU_ASSERT_EQUAL(bad, 0);
  cg_convert_run(out, h, 1, 65536, CG_BF16);
  for (uint32_t i = 0; i < 65536u; i++) {
    const uint32_t want = i << 16;
    uint32_t got;
    memcpy(&got, &out[i], 4);
    if (got != want)
      bad++;
  }
  CU_ASSERT_EQUAL(bad, 0);
  /* Strided and odd-length runs take the scalar path. */
  cg_convert_run(out, h + 1, 3, 1000, CG_F16);
  for (uint32_t i = 0; i < 1000u; i++) {
    const float s = cg_f16_to_f32(h[1 + 3 * i]);
    if (memcmp(&s, &out[i], 4) != 0)
      bad++;
  }
  CU_ASSERT_EQUAL(bad, 0);
}

/* A constant packed once: its size (a vm policy's float16 kept 16-bit), A refused, and one pack
 * read by products of every thread split. */
static void test_pack_constant(void) {
  static cg_policy hand[512];
  const uint32_t n_hand = hand_policies(hand, 512);
  mat b;
  mat_make(&b, 300, 37, L_T, CG_F16, 5);
  for (uint32_t i = 0; i < n_hand; i++) {
    const cg_kernel_info *ki = &cg_kernel_table[hand[i].kernel];
    cg_packed *pk = (cg_packed *)&pk;
    uint64_t bytes = 1;
    /* Panels of float32; a vm kernel's row-major copy kept float16 (it
     * converts as it reads); an mv kernel's row-major float32. */
    uint64_t want = ki->kind == CG_KIND_TILE
                        ? (uint64_t)((37 + ki->nr - 1) / ki->nr * ki->nr) * 300u * 4u
                        : 300u * 37u * (ki->kind == CG_KIND_VM ? 2u : 4u);
    CU_ASSERT_EQUAL(cg_pack_constant(&pk, &hand[i], 1, &b.view, 300, 37, &bytes), 0);
    CU_ASSERT_EQUAL(bytes, want);
    cg_packed_free(pk);
    CU_ASSERT_EQUAL(cg_pack_constant(&pk, &hand[i], 0, &b.view, 300, 37, &bytes), -1);
    CU_ASSERT_PTR_NULL(pk);
  }
  cg_packed_free(NULL);
  mat_free(&b);
}

/*
 * A constant B larger than CG_CONST_PF_MIN: the blocked driver's kernels
 * fetch the pack ahead while they run (with AVX-512; elsewhere the plain
 * packed kernel).  Every candidate of a constant-B workload of that size
 * (the deep slices), one thread and three, on row counts below, at and
 * over one tile, each product against a double-precision reference.
 */
static void test_large_constant(void) {
  enum { N = 2100, K = 1100, M_MAX = 16 };
  static const int64_t ms[] = {4, 13, 16};
  const uint64_t want_min = (uint64_t)CG_CONST_PF_MIN / 4u + 1u;
  float *a = malloc(sizeof(float) * M_MAX * K), *b = malloc(sizeof(float) * K * N);
  float *c = malloc(sizeof(float) * M_MAX * N);
  double *ref = malloc(sizeof(double) * M_MAX * N);
  cg_policy cands[CG_CANDIDATES_MAX];
  int bad = 0, runs = 0;
  CU_ASSERT_FATAL(a != NULL && b != NULL && c != NULL && ref != NULL);
  CU_ASSERT_FATAL((uint64_t)K * N > want_min);
  for (int64_t i = 0; i < M_MAX * K; i++)
    a[i] = (float)value(3, i / K, i % K);
  for (int64_t i = 0; i < (int64_t)K * N; i++)
    b[i] = (float)value(4, i / N, i % N);
  for (int64_t i = 0; i < M_MAX; i++)
    for (int64_t j = 0; j < N; j++) {
      double acc = 0.0;
      for (int64_t p = 0; p < K; p++)
        acc += (double)a[i * K + p] * (double)b[p * N + j];
      ref[i * N + j] = acc;
    }
  /* The best ISA's candidates, and AVX2's where the CPU has more (the
   * AVX2 tile kernel reads the pack without fetching ahead). */
  for (size_t mi = 0; mi < 2 * sizeof ms / sizeof ms[0]; mi++) {
    const cg_shape sh = {ms[mi % 3], N, K};
    const uint32_t isa = mi < 3 ? cpu.isa : CG_ISA_AVX2;
    const uint32_t count = mi >= 3 && cpu.isa <= CG_ISA_AVX2
                               ? 0
                               : cg_policy_candidates_constant_b(cands, CG_CANDIDATES_MAX, &cpu,
                                                                 isa, POOL_THREADS, &sh, 4u);
    CU_ASSERT(count > 0 || mi >= 3);
    for (uint32_t i = 0; i < count; i++) {
      const cg_view bv = {b, N, 1, CG_F32};
      cg_packed *pk = NULL;
      cg_gemm_args g;
      CU_ASSERT_FATAL(cg_pack_constant(&pk, &cands[i], 1, &bv, K, N, NULL) == 0);
      for (uint32_t threads = 1; threads <= POOL_THREADS; threads += POOL_THREADS - 1) {
        memset(&g, 0, sizeof g);
        g.m = sh.m, g.n = N, g.k = K, g.a = a, g.lda = K, g.c = c, g.ldc = N;
        g.alpha = 1.0f, g.beta = 0.0f, g.pb = pk;
        for (int64_t x = 0; x < sh.m * N; x++)
          c[x] = NAN;
        CU_ASSERT_FATAL(cg_gemm(&g, &cands[i], pool, threads, ws) == 0);
        runs++;
        for (int64_t x = 0; x < sh.m * N; x++)
          bad += !(fabs((double)c[x] - ref[x]) <= 1e-3 * (1.0 + fabs(ref[x])));
      }
      cg_packed_free(pk);
    }
  }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT(runs >= 6);
  CU_ASSERT(cpu.isa <= CG_ISA_AVX2 || runs >= 12);
  free(a), free(b), free(c), free(ref);
}

/* Policies that pack a constant alike share one pack; others do not. */
static void test_pack_shared(void) {
  const int tile = cg_kernel_best(CG_KIND_TILE, cpu.isa), vm = cg_kernel_best(CG_KIND_VM, cpu.isa);
  const int mv = cg_kernel_best(CG_KIND_MV, cpu.isa);
  cg_policy x, y;
  CU_ASSERT_FATAL(tile >= 0 && vm >= 0 && mv >= 0);
  memset(&x, 0, sizeof x);
  x.kernel = (uint32_t)tile, x.mc = cg_kernel_table[tile].mr, x.kc = 256;
  x.nc = cg_kernel_table[tile].nr * 8, x.pack = CG_PACK_A | CG_PACK_B;
  y = x, y.mc *= 2, y.nc /= 2, y.pack = CG_PACK_B, y.split = CG_SPLIT_JC;
  CU_ASSERT_EQUAL(cg_pack_shared(&x, &y), 1);
  y.kc = 128;
  CU_ASSERT_EQUAL(cg_pack_shared(&x, &y), 0);
  y = x, y.kernel = (uint32_t)vm;
  CU_ASSERT_EQUAL(cg_pack_shared(&x, &y), 0);
  x.kernel = (uint32_t)mv, x.kc = 16;
  CU_ASSERT_EQUAL(cg_pack_shared(&x, &y), 1);
  if (cpu.isa >= CG_ISA_AVX512) {
    /* Another NR (the AVX2 tile kernel's 16 against 32): not alike. */
    const int narrow = cg_kernel_best(CG_KIND_TILE, CG_ISA_AVX2);
    x.kernel = (uint32_t)tile, x.kc = 256, y = x, y.kernel = (uint32_t)narrow;
    CU_ASSERT_EQUAL(cg_pack_shared(&x, &y), 0);
  }
}

/* Args in general mode never take the direct paths, always get a
 * workspace; k = 0 stores beta * bias (or scales C), reading no operand;
 * a pack that does not fit the policy is refused. */
static void test_general_dispatch(void) {
  static const float bias_row[5] = {1.0f, -2.0f, 0.5f, 4.0f, 8.0f};
  static const uint16_t halves[40 * 5];
  float c[3 * 6];
  cg_policy direct;
  cg_gemm_args g;
  cg_packed *pk = NULL;
  uint64_t bytes = 0;
  const int ki = cg_kernel_best(CG_KIND_TILE, cpu.isa);
  CU_ASSERT_FATAL(ki >= 0);
  memset(&direct, 0, sizeof(direct));
  direct.kernel = (uint32_t)ki, direct.mc = cg_kernel_table[ki].mr * 4, direct.kc = 64;
  direct.nc = cg_kernel_table[ki].nr * 4;
  memset(&g, 0, sizeof(g));
  g.m = 3, g.n = 5, g.k = 0, g.c = c, g.ldc = 6, g.alpha = 1.0f, g.beta = 2.0f;
  g.bias = (cg_view){bias_row, 0, 1, CG_F32};
  CU_ASSERT_EQUAL(cg_gemm_one_block(&g, &direct), 0);
  CU_ASSERT_EQUAL(cg_gemm_needs_ws(&g, &direct), 1);
  for (int i = 0; i < 18; i++)
    c[i] = NAN;
  CU_ASSERT_EQUAL(cg_gemm(&g, &direct, NULL, 1, ws), 0);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 6; j++)
      CU_ASSERT(j < 5 ? c[i * 6 + j] == 2.0f * bias_row[j] : isnan(c[i * 6 + j]));
  g.bias.data = NULL, g.general = CG_GENERAL_A;
  g.av = (cg_view){bias_row, 1, 1, CG_F16};
  for (int i = 0; i < 18; i++)
    c[i] = 1.5f;
  CU_ASSERT_EQUAL(cg_gemm(&g, &direct, NULL, 1, ws), 0);
  CU_ASSERT(c[0] == 3.0f && c[14] == 3.0f);
  /* A pack for kc 64 read by a policy of kc 32: refused, not misread. */
  g.k = 40, g.general = 0;
  g.bv = (cg_view){halves, 5, 1, CG_BF16};
  CU_ASSERT_EQUAL_FATAL(cg_pack_constant(&pk, &direct, 1, &g.bv, 40, 5, &bytes), 0);
  g.pb = pk;
  g.a = c, g.lda = 1; /* never read */
  direct.kc = 32;
  CU_ASSERT_EQUAL(cg_gemm(&g, &direct, NULL, 1, ws), -1);
  cg_packed_free(pk);
}

/* A large constant B of few rows races the deep tile slices alone when it
 * is float32; a 16-bit one also races the thin kernels, whose pack keeps
 * it 16-bit (half the bytes a call reads) where the tile pack widens it. */
static void test_constant_16bit_keeps_thin(void) {
  cg_policy cands[CG_CANDIDATES_MAX];
  const cg_shape sh = {1, 4096, 4096};
  uint32_t count, i, vm[2] = {0, 0};
  for (uint32_t b = 0; b < 2; b++) {
    count = cg_policy_candidates_constant_b(cands, CG_CANDIDATES_MAX, &cpu, cpu.isa, 1, &sh,
                                            b == 0 ? 4u : 2u);
    CU_ASSERT(count > 0);
    for (i = 0; i < count; i++)
      vm[b] += cg_kernel_table[cands[i].kernel].kind == CG_KIND_VM;
  }
  CU_ASSERT_EQUAL(vm[0], 0u);
  CU_ASSERT(vm[1] > 0u);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("cpu_gemm_general", init_suite, clean_suite);
  CU_add_test(s, "convert_all_values", test_convert_all_values);
  CU_add_test(s, "pack_constant", test_pack_constant);
  CU_add_test(s, "general_dispatch", test_general_dispatch);
  CU_add_test(s, "large_constant", test_large_constant);
  CU_add_test(s, "pack_shared", test_pack_shared);
  CU_add_test(s, "constant_16bit_keeps_thin", test_constant_16bit_keeps_thin);
  CU_add_test(s, "every_policy_every_layout", test_every_policy_every_layout);
  return olc_test_run(argc, argv);
}
