/*
 * test_cpu_gemm_onnx.c - cpu_gemm's ONNX MatMul and Gemm through dlopen:
 *   - the key of every layout (trans_a, trans_b, batch_a, batch_b, bias,
 *     dtype, dtype_b, a constant B) differs from its plain twin's, whose
 *     structure is the text records were stored under before layouts
 *     existed; an explicit default is canonicalized away and declared
 *     through use_property; an unknown property is refused, named;
 *   - execute against a double reference: MatMul of ranks 1 to 4 with
 *     broadcast batch dimensions and transposed views; Gemm with transposed
 *     A' and B', every bias kind, alpha and beta; float16 and bfloat16 for
 *     every operand, float32 with a 16-bit B; a strided output; for every
 *     candidate of the workload;
 *   - pack: B packed once and read from the packed copy (B's own memory
 *     spoiled afterwards); input 0 not packed;
 *   - prepare and run of every layout (what calibration times).
 * Operands are allocated to their exact extent, so ASan catches a read or
 * write past one.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_plugin_host.h"
#include "olc/plugin.h"
#include "test_support.h"

#define pl cg_test_plugin

static int init_suite(void) { return cg_test_load(CG_TEST_PLUGIN); }

static int clean_suite(void) {
  cg_test_unload();
  return 0;
}

/* ---- workloads and keys ---- */

typedef struct wl {
  olc_plugin_workload w;
  olc_plugin_kv kv[16];
} wl;

/* props: "name=value" strings, NULL-terminated (they must outlive w). */
static void wl_make(wl *x, const char *op, const char *const *props, uint32_t constant_inputs) {
  static char store[16][64];
  memset(x, 0, sizeof *x);
  x->w.struct_size = sizeof x->w, x->w.abi_minor = OLC_PLUGIN_ABI_MINOR;
  x->w.name = "onnx", x->w.operator_name = op;
  x->w.properties = x->kv;
  x->w.constant_inputs = constant_inputs;
  for (uint32_t i = 0; props[i] != NULL && i < 16; i++) {
    char *eq;
    snprintf(store[i], sizeof store[i], "%s", props[i]);
    eq = strchr(store[i], '=');
    *eq = '\0';
    x->kv[i].key = store[i], x->kv[i].value = eq + 1;
    x->w.property_count = i + 1;
  }
}

typedef struct key {
  char structure[512];
  char used[256]; /* "name;" for each use_property */
} key;

static int32_t s_proc(void *ctx, const char *p) {
  (void)ctx, (void)p;
  return OLC_PLUGIN_OK;
}
static int32_t s_threads(void *ctx, uint32_t t) {
  (void)ctx, (void)t;
  return OLC_PLUGIN_OK;
}
static int32_t s_struct(void *ctx, const char *name, const char *value) {
  key *k = ctx;
  size_t len = strlen(k->structure);
  snprintf(k->structure + len, sizeof k->structure - len, "%s=%s;", name, value);
  return OLC_PLUGIN_OK;
}
static int32_t s_use(void *ctx, const char *name) {
  key *k = ctx;
  size_t len = strlen(k->used);
  snprintf(k->used + len, sizeof k->used - len, "%s;", name);
  return OLC_PLUGIN_OK;
}

/* The key of one workload (its properties copied by wl_make); status. */
static int32_t get_key(void *inst, const char *op, const char *const *props, uint32_t constants,
                       key *k) {
  olc_plugin_key_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, k, s_proc, s_threads, s_struct,
                              s_use};
  wl x;
  memset(k, 0, sizeof *k);
  wl_make(&x, op, props, constants);
  return pl->key(inst, &x.w, &sink);
}

#define PLAIN "dtype=float32", "m=33", "n=40", "k=24"
static const char plain_text[] = "dtype=float32;m=33-64;n=40;k=24;";

static void test_key_layouts(void) {
  void *inst = NULL;
  key k, twin;
  struct {
    const char *op;
    const char *props[8];
    uint32_t constants;
    const char *structure;
  } layouts[] = {
      {"MatMul", {PLAIN, "trans_a=1", NULL}, 0, "trans_a=1;"},
      {"MatMul", {PLAIN, "trans_b=1", NULL}, 0, "trans_b=1;"},
      {"MatMul", {PLAIN, "batch_a=2x1", NULL}, 0, "batch_a=2x1;"},
      {"MatMul", {PLAIN, "batch_b=3", NULL}, 0, "batch_b=3;"},
      {"MatMul", {PLAIN, "dtype_b=bfloat16", NULL}, 0, "dtype_b=bfloat16;"},
      {"MatMul", {PLAIN, "dtype_b=float16", NULL}, 0, "dtype_b=float16;"},
      {"MatMul", {PLAIN, NULL}, 2u, "constant=b;"},
      {"Gemm", {PLAIN, "bias=row", NULL}, 0, "bias=row;"},
      {"Gemm",
       {PLAIN, "bias=scalar", "trans_a=1", "trans_b=1", NULL},
       0,
       "trans_a=1;trans_b=1;bias=scalar;"},
  };
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 1, &inst), OLC_PLUGIN_OK);
  /* The plain twin: today's text, nothing declared. */
  {
    const char *props[] = {PLAIN, NULL};
    CU_ASSERT_EQUAL(get_key(inst, "MatMul", props, 0, &twin), OLC_PLUGIN_OK);
    CU_ASSERT_STRING_EQUAL(twin.structure, plain_text);
    CU_ASSERT_STRING_EQUAL(twin.used, "");
  }
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
    char want[512];
    snprintf(want, sizeof want, "%s%s", plain_text, layouts[i].structure);
    CU_ASSERT_EQUAL(get_key(inst, layouts[i].op, layouts[i].props, layouts[i].constants, &k),
                    OLC_PLUGIN_OK);
    if (strcmp(k.structure, want) != 0)
      fprintf(stderr, "layout %zu: '%s', want '%s'\n", i, k.structure, want);
    CU_ASSERT_STRING_EQUAL(k.structure, want);
    CU_ASSERT_STRING_NOT_EQUAL(k.structure, twin.structure);
  }
  /* The dtype itself: float16 and bfloat16 keep dtype's own entry. */
  {
    const char *props[] = {"dtype=float16", "m=33", "n=40", "k=24", NULL};
    CU_ASSERT_EQUAL(get_key(inst, "MatMul", props, 0, &k), OLC_PLUGIN_OK);
    CU_ASSERT_STRING_EQUAL(k.structure, "dtype=float16;m=33-64;n=40;k=24;");
  }
  /* Gemm without bias or transposes: Gemm's own records (the operator
   * is part of the identity outside the structure). */
  {
    const char *props[] = {PLAIN, NULL};
    CU_ASSERT_EQUAL(get_key(inst, "Gemm", props, 0, &k), OLC_PLUGIN_OK);
    CU_ASSERT_STRING_EQUAL(k.structure, plain_text);
  }
  pl->destroy(inst);
}

static void test_key_defaults(void) {
  void *inst = NULL;
  key k;
  const char *mm[] = {PLAIN, "trans_a=0", "trans_b=0", "dtype_b=float32", NULL};
  const char *gemm[] = {PLAIN, "bias=none", "constant=none", NULL};
  const char *f16[] = {"dtype=float16", "m=33", "n=40", "k=24", "dtype_b=float16", NULL};
  /* The key's own structure is accepted back (a stored record's). */
  const char *back[] = {"dtype=float32", "m=33-64",    "n=40", "k=24",
                        "trans_b=1",     "constant=b", NULL};
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 1, &inst), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(get_key(inst, "MatMul", mm, 0, &k), OLC_PLUGIN_OK);
  CU_ASSERT_STRING_EQUAL(k.structure, plain_text);
  CU_ASSERT_STRING_EQUAL(k.used, "dtype_b;trans_a;trans_b;");
  CU_ASSERT_EQUAL(get_key(inst, "Gemm", gemm, 0, &k), OLC_PLUGIN_OK);
  CU_ASSERT_STRING_EQUAL(k.structure, plain_text);
  CU_ASSERT_STRING_EQUAL(k.used, "bias;constant;");
  CU_ASSERT_EQUAL(get_key(inst, "MatMul", f16, 0, &k), OLC_PLUGIN_OK);
  CU_ASSERT_STRING_EQUAL(k.structure, "dtype=float16;m=33-64;n=40;k=24;");
  CU_ASSERT_STRING_EQUAL(k.used, "dtype_b;");
  CU_ASSERT_EQUAL(get_key(inst, "MatMul", back, 0, &k), OLC_PLUGIN_OK);
  CU_ASSERT_STRING_EQUAL(k.structure, "dtype=float32;m=33-64;n=40;k=24;trans_b=1;constant=b;");
  pl->destroy(inst);
}

static void expect_refused(void *inst, const char *op, const char *const *props, int32_t code,
                           const char *fragment) {
  key k;
  int32_t rc = get_key(inst, op, props, 0, &k);
  CU_ASSERT_EQUAL(rc, code);
  if (rc != code || strstr(cg_test_err_msg, fragment) == NULL) {
    fprintf(stderr, "status %d (want %d), message '%s' (want '%s')\n", rc, code, cg_test_err_msg,
            fragment);
    CU_FAIL("status or message");
  }
}

static void test_key_refusals(void) {
  void *inst = NULL;
  const char *unknown[] = {PLAIN, "transA=1", NULL};
  const char *trans[] = {PLAIN, "trans_a=2", NULL};
  const char *bias_mm[] = {PLAIN, "bias=row", NULL};
  const char *batch_gemm[] = {PLAIN, "batch_a=2", NULL};
  const char *bad_batch[] = {PLAIN, "batch_a=2x", NULL};
  const char *no_bcast[] = {PLAIN, "batch_a=2", "batch_b=3", NULL};
  const char *dtype_b[] = {"dtype=float16", "m=3", "n=4", "k=5", "dtype_b=bfloat16", NULL};
  const char *dtype_b32[] = {"dtype=float16", "m=3", "n=4", "k=5", "dtype_b=float32", NULL};
  const char *f64[] = {"dtype=float64", "m=3", "n=4", "k=5", NULL};
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 1, &inst), OLC_PLUGIN_OK);
  expect_refused(inst, "MatMul", unknown, OLC_PLUGIN_E_INVALID, "property transA is not");
  expect_refused(inst, "MatMul", trans, OLC_PLUGIN_E_INVALID, "trans_a=2");
  expect_refused(inst, "MatMul", bias_mm, OLC_PLUGIN_E_INVALID, "bias is Gemm's");
  expect_refused(inst, "Gemm", batch_gemm, OLC_PLUGIN_E_INVALID, "MatMul's");
  expect_refused(inst, "MatMul", bad_batch, OLC_PLUGIN_E_INVALID, "batch_a=2x");
  expect_refused(inst, "MatMul", no_bcast, OLC_PLUGIN_E_INVALID, "do not broadcast");
  expect_refused(inst, "MatMul", dtype_b, OLC_PLUGIN_E_INVALID, "dtype_b=bfloat16");
  expect_refused(inst, "MatMul", dtype_b32, OLC_PLUGIN_E_INVALID, "dtype_b=float32");
  expect_refused(inst, "MatMul", f64, OLC_PLUGIN_E_INVALID, "dtype=float64");
  expect_refused(inst, "Conv", unknown, OLC_PLUGIN_E_UNSUPPORTED, "Conv");
  pl->destroy(inst);
}

/* ---- operands ---- */

static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static double rnd(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* The test's own conversions (not the plugin's): float16 by its fields in
 * double arithmetic, bfloat16 as the top half of a float32, both rounding
 * to nearest even. */
static double f16_value(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}
static uint16_t f16_of(double x) {
  uint16_t sign = x < 0 ? 0x8000 : 0;
  double a = fabs(x), q;
  int e;
  if (isnan(x))
    return 0x7e00;
  if (a < ldexp(1, -14)) /* subnormal: units of 2^-24 (0x400 is the least normal) */
    return (uint16_t)(sign | (uint16_t)nearbyint(ldexp(a, 24)));
  frexp(a, &e);
  e -= 1;                          /* a = 1.f x 2^e */
  q = nearbyint(ldexp(a, 10 - e)); /* 1024..2048, to nearest even */
  if (q >= 2048)
    q = 1024, e++;
  if (e > 15)
    return (uint16_t)(sign | 0x7c00);
  return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | (uint16_t)(q - 1024));
}
static double bf16_value(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static uint16_t bf16_of(double x) {
  float f = (float)x;
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static size_t esize(uint32_t dtype) { return dtype == OLC_PLUGIN_DTYPE_FLOAT32 ? 4 : 2; }

typedef struct tens {
  olc_plugin_tensor t;
  void *buf;
} tens;

static double t_get(const olc_plugin_tensor *t, int64_t off) {
  if (t->dtype == OLC_PLUGIN_DTYPE_FLOAT32)
    return ((const float *)t->data)[off];
  if (t->dtype == OLC_PLUGIN_DTYPE_FLOAT16)
    return f16_value(((const uint16_t *)t->data)[off]);
  return bf16_value(((const uint16_t *)t->data)[off]);
}

static void t_set(olc_plugin_tensor *t, int64_t off, double v) {
  if (t->dtype == OLC_PLUGIN_DTYPE_FLOAT32)
    ((float *)t->data)[off] = (float)v;
  else if (t->dtype == OLC_PLUGIN_DTYPE_FLOAT16)
    ((uint16_t *)t->data)[off] = f16_of(v);
  else
    ((uint16_t *)t->data)[off] = bf16_of(v);
}

/* A tensor of rank dims, row-major except that trans swaps the storage
 * order of the last two dimensions (a transposed view); random values
 * (fill NAN: all NaN). */
static tens t_new(uint32_t dtype, uint32_t rank, const int64_t *dims, int trans, double fill) {
  tens x;
  int64_t count = 1, step = 1;
  memset(&x, 0, sizeof x);
  x.t.struct_size = sizeof x.t, x.t.abi_minor = OLC_PLUGIN_ABI_MINOR;
  x.t.dtype = dtype, x.t.rank = rank;
  for (uint32_t i = 0; i < rank; i++)
    x.t.dims[i] = dims[i], count *= dims[i];
  for (int i = (int)rank - 1; i >= 0; i--) {
    x.t.strides[i] = step;
    step *= dims[i];
  }
  if (trans && rank >= 2) {
    x.t.strides[rank - 1] = dims[rank - 2];
    x.t.strides[rank - 2] = 1;
  }
  x.buf = malloc((size_t)count * esize(dtype));
  x.t.data = x.buf;
  for (int64_t i = 0; x.buf != NULL && i < count; i++)
    t_set(&x.t, i, isnan(fill) ? rnd() : fill);
  return x;
}

/* Element at the multi-index idx (rank entries). */
static double t_at(const olc_plugin_tensor *t, const int64_t *idx) {
  int64_t off = 0;
  for (uint32_t i = 0; i < t->rank; i++)
    off += idx[i] * t->strides[i];
  return t_get(t, off);
}

/* Cells of Y wrong against numpy's matmul of A and B in double (alpha,
 * beta * Y0 as execute takes them); tolerance for Y's dtype. */
static double tol_of(uint32_t dtype, double ref, int64_t k) {
  double rel = dtype == OLC_PLUGIN_DTYPE_FLOAT32   ? 1e-6
               : dtype == OLC_PLUGIN_DTYPE_FLOAT16 ? 1.0 / 1024
                                                   : 1.0 / 128;
  return rel * fabs(ref) + 2e-6 * (double)k + 1e-6;
}

static int matmul_wrong(const olc_plugin_tensor *a, const olc_plugin_tensor *b,
                        const olc_plugin_tensor *y, const tens *y0, double alpha, double beta) {
  int ra = (int)a->rank, rb = (int)b->rank, ry = (int)y->rank;
  int nb = ry - (ra > 1) - (rb > 1);
  int64_t k = a->dims[ra - 1], total = 1, idx[8];
  int bad = 0;
  for (int i = 0; i < ry; i++)
    total *= y->dims[i];
  for (int64_t e = 0; e < total; e++) {
    int64_t r = e, ia[8] = {0}, ib[8] = {0}, i = 0, j = 0;
    double want = 0, got;
    for (int d = ry - 1; d >= 0; d--)
      idx[d] = r % y->dims[d], r /= y->dims[d];
    if (ra > 1)
      i = idx[nb];
    if (rb > 1)
      j = idx[ry - 1];
    /* Batch indices, right-aligned; a dimension of 1 broadcasts. */
    for (int d = 0; d < ra - 2; d++)
      ia[d] = a->dims[d] == 1 ? 0 : idx[nb - (ra - 2) + d];
    for (int d = 0; d < rb - 2; d++)
      ib[d] = b->dims[d] == 1 ? 0 : idx[nb - (rb - 2) + d];
    for (int64_t p = 0; p < k; p++) {
      if (ra > 1)
        ia[ra - 2] = i, ia[ra - 1] = p;
      else
        ia[0] = p;
      if (rb > 1)
        ib[rb - 2] = p, ib[rb - 1] = j;
      else
        ib[0] = p;
      want += t_at(a, ia) * t_at(b, ib);
    }
    want *= alpha;
    if (beta != 0)
      want += beta * t_at(&y0->t, idx);
    got = t_at(y, idx);
    if (!(fabs(got - want) <= tol_of(y->dtype, want, k))) {
      if (bad < 3)
        fprintf(stderr, "  element %lld: %g, want %g\n", (long long)e, got, want);
      bad++;
    }
  }
  return bad;
}

static olc_plugin_exec_args exec_args(olc_plugin_tensor *in, uint32_t n, olc_plugin_tensor *out,
                                      double alpha, double beta) {
  olc_plugin_exec_args args;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args, args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  args.inputs = in, args.input_count = n;
  args.outputs = out, args.output_count = 1;
  args.alpha = alpha, args.beta = beta;
  return args;
}

/* The candidates of a workload of this shape and layout. */
static void cands_of(void *inst, const char *op, int64_t m, int64_t n, int64_t k,
                     cg_test_cands *c) {
  char dm[24], dn[24], dk[24];
  const char *props[] = {dm, dn, dk, NULL};
  wl x;
  snprintf(dm, sizeof dm, "m=%lld", (long long)m);
  snprintf(dn, sizeof dn, "n=%lld", (long long)n);
  snprintf(dk, sizeof dk, "k=%lld", (long long)k);
  wl_make(&x, op, props, 0);
  memset(c, 0, sizeof *c);
  CU_ASSERT_EQUAL_FATAL(cg_test_candidates(inst, &x.w, c), OLC_PLUGIN_OK);
}

static const olc_plugin_workload *op_workload(const char *op) {
  static wl mm, gm;
  static const char *const props[] = {"m=8", "n=8", "k=8", NULL};
  wl *x = strcmp(op, "Gemm") == 0 ? &gm : &mm;
  wl_make(x, op, props, 0);
  return &x->w;
}

/* One MatMul case on every candidate: A (rank ra) x B (rank rb). */
typedef struct mm_case {
  uint32_t ra, rb, ry;
  int64_t da[4], db[4], dy[4];
  int ta, tb; /* transposed storage of the last two dimensions */
  uint32_t dt_a, dt_b;
} mm_case;

static int run_matmul(void *inst, const mm_case *mc, double alpha, double beta) {
  int64_t m = mc->ra > 1 ? mc->da[mc->ra - 2] : 1, k = mc->da[mc->ra - 1];
  int64_t n = mc->rb > 1 ? mc->db[mc->rb - 1] : 1;
  tens a = t_new(mc->dt_a, mc->ra, mc->da, mc->ta, NAN);
  tens b = t_new(mc->dt_b, mc->rb, mc->db, mc->tb, NAN);
  tens y0 = t_new(mc->dt_a, mc->ry, mc->dy, 0, NAN);
  tens y = t_new(mc->dt_a, mc->ry, mc->dy, 0, NAN);
  cg_test_cands c;
  int bad = 0;
  CU_ASSERT_FATAL(a.buf != NULL && b.buf != NULL && y.buf != NULL && y0.buf != NULL);
  cands_of(inst, "MatMul", m, n, k, &c);
  for (int i = 0; i < c.n; i++) {
    olc_plugin_tensor in[2] = {a.t, b.t};
    olc_plugin_exec_args args;
    int32_t rc;
    memcpy(y.buf, y0.buf,
           (size_t)(y0.t.rank == 0 ? 1 : y0.t.strides[0] * y0.t.dims[0]) * esize(mc->dt_a));
    args = exec_args(in, 2, &y.t, alpha, beta);
    rc = pl->execute(inst, op_workload("MatMul"), c.p[i], &args);
    if (rc != OLC_PLUGIN_OK) {
      fprintf(stderr, "  candidate %d: status %d: %s\n", i, rc, cg_test_err_msg);
      bad++;
      continue;
    }
    bad += matmul_wrong(&a.t, &b.t, &y.t, &y0, alpha, beta);
  }
  cg_test_release_all(inst, &c);
  free(a.buf), free(b.buf), free(y.buf), free(y0.buf);
  return bad;
}

#define F32 OLC_PLUGIN_DTYPE_FLOAT32
#define F16 OLC_PLUGIN_DTYPE_FLOAT16
#define BF16 OLC_PLUGIN_DTYPE_BFLOAT16

static const mm_case mm_cases[] = {
    /* ONNX's test_matmul_2d, _3d, _4d */
    {2, 2, 2, {3, 4}, {4, 3}, {3, 3}, 0, 0, F32, F32},
    {3, 3, 3, {2, 3, 4}, {2, 4, 3}, {2, 3, 3}, 0, 0, F32, F32},
    {4, 4, 4, {1, 2, 3, 4}, {1, 2, 4, 3}, {1, 2, 3, 3}, 0, 0, F32, F32},
    /* broadcast batch: 2x1 against 1x3, and ranks that differ */
    {4, 4, 4, {2, 1, 5, 7}, {1, 3, 7, 6}, {2, 3, 5, 6}, 0, 0, F32, F32},
    {3, 2, 3, {3, 5, 7}, {7, 6}, {3, 5, 6}, 0, 1, F32, F32},
    {2, 3, 3, {5, 7}, {2, 7, 6}, {2, 5, 6}, 1, 0, F32, F32},
    /* rank 1: a row, a column, both (a scalar Y) */
    {1, 2, 1, {7}, {7, 6}, {6}, 0, 0, F32, F32},
    {3, 1, 2, {2, 5, 7}, {7}, {2, 5}, 0, 0, F32, F32},
    {1, 1, 0, {7}, {7}, {0}, 0, 0, F32, F32},
    /* transposed views of sizes past a few tiles */
    {2, 2, 2, {37, 45}, {45, 29}, {37, 29}, 1, 1, F32, F32},
    {2, 2, 2, {3, 300}, {300, 70}, {3, 70}, 0, 1, F32, F32},
    {2, 2, 2, {70, 300}, {300, 3}, {70, 3}, 1, 0, F32, F32},
    /* 16-bit types, and float32 with a 16-bit B */
    {2, 2, 2, {37, 45}, {45, 29}, {37, 29}, 0, 0, F16, F16},
    {3, 3, 3, {2, 9, 45}, {2, 45, 29}, {2, 9, 29}, 1, 1, BF16, BF16},
    {2, 2, 2, {37, 45}, {45, 29}, {37, 29}, 0, 1, F32, F16},
    {2, 2, 2, {2, 300}, {300, 70}, {2, 70}, 0, 0, F32, BF16},
};

static void test_matmul(void) {
  void *inst = NULL;
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 2, &inst), OLC_PLUGIN_OK);
  for (size_t i = 0; i < sizeof mm_cases / sizeof mm_cases[0]; i++) {
    int bad = run_matmul(inst, &mm_cases[i], 1.0, 0.0);
    if (mm_cases[i].ry > 0)
      bad += run_matmul(inst, &mm_cases[i], 0.5, -1.5);
    if (bad != 0)
      fprintf(stderr, "MatMul case %zu: %d wrong\n", i, bad);
    CU_ASSERT_EQUAL(bad, 0);
  }
  pl->destroy(inst);
}

/* A strided output (every other column of a wider buffer) and Y's shape
 * checked. */
static void test_matmul_output(void) {
  void *inst = NULL, *p;
  cg_test_cands c;
  int64_t da[2] = {5, 6}, db[2] = {6, 4}, dwide[2] = {5, 8}, d3[3] = {2, 5, 4};
  tens a = t_new(F32, 2, da, 0, NAN), b = t_new(F32, 2, db, 0, NAN);
  tens wide = t_new(F32, 2, dwide, 0, 0.0), y3 = t_new(F32, 3, d3, 0, 0.0), y0;
  olc_plugin_tensor in[2] = {a.t, b.t}, y = wide.t;
  olc_plugin_exec_args args;
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 1, &inst), OLC_PLUGIN_OK);
  cands_of(inst, "MatMul", 5, 4, 6, &c);
  p = c.p[0];
  y.dims[1] = 4, y.strides[1] = 2;
  args = exec_args(in, 2, &y, 1, 0);
  CU_ASSERT_EQUAL(pl->execute(inst, op_workload("MatMul"), p, &args), OLC_PLUGIN_OK);
  y0 = wide, y0.t = y;
  CU_ASSERT_EQUAL(matmul_wrong(&a.t, &b.t, &y, &y0, 1, 0), 0);
  for (int r = 0; r < 5; r++)
    for (int j = 1; j < 8; j += 2)
      CU_ASSERT_EQUAL(((float *)wide.buf)[r * 8 + j], 0.0f); /* not written */
  /* Y of the wrong rank or batch: invalid. */
  args = exec_args(in, 2, &y3.t, 1, 0);
  CU_ASSERT_EQUAL(pl->execute(inst, op_workload("MatMul"), p, &args), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(cg_test_err_msg, "shapes disagree"));
  cg_test_release_all(inst, &c);
  pl->destroy(inst);
  free(a.buf), free(b.buf), free(wide.buf), free(y3.buf);
}

/* ---- Gemm ---- */

static int gemm_wrong(const olc_plugin_tensor *a, const olc_plugin_tensor *b,
                      const olc_plugin_tensor *c, const olc_plugin_tensor *y, double alpha,
                      double beta) {
  int64_t m = y->dims[0], n = y->dims[1], k = a->dims[1];
  int bad = 0;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      int64_t ia[2], ib[2], iy[2] = {i, j}, ic[2] = {0, 0};
      double want = 0, got;
      for (int64_t p = 0; p < k; p++) {
        ia[0] = i, ia[1] = p, ib[0] = p, ib[1] = j;
        want += t_at(a, ia) * t_at(b, ib);
      }
      want *= alpha;
      if (c != NULL && beta != 0) {
        if (c->rank == 1)
          ic[0] = c->dims[0] == 1 ? 0 : j;
        else if (c->rank == 2)
          ic[0] = c->dims[0] == 1 ? 0 : i, ic[1] = c->dims[1] == 1 ? 0 : j;
        want += beta * t_at(c, ic);
      }
      got = t_at(y, iy);
      if (!(fabs(got - want) <= tol_of(y->dtype, want, k))) {
        if (bad < 3)
          fprintf(stderr, "  Y[%lld][%lld]: %g, want %g\n", (long long)i, (long long)j, got, want);
        bad++;
      }
    }
  return bad;
}

/* C's shapes: none, scalar (rank 0), row (n), row (1 x n), col (m x 1),
 * matrix, and a rank-1 of one element. */
#define BIAS_KINDS 7

static int run_gemm(void *inst, int64_t m, int64_t n, int64_t k, int ta, int tb, int bias,
                    uint32_t dt, uint32_t dt_b, double alpha, double beta) {
  int64_t da[2] = {m, k}, db[2] = {k, n}, dy[2] = {m, n};
  int64_t dc[BIAS_KINDS][2] = {{0, 0}, {0, 0}, {n, 0}, {1, n}, {m, 1}, {m, n}, {1, 0}};
  const uint32_t rc_rank[BIAS_KINDS] = {0, 0, 1, 2, 2, 2, 1};
  tens a = t_new(dt, 2, da, ta, NAN), b = t_new(dt_b, 2, db, tb, NAN);
  tens c = t_new(dt, rc_rank[bias], dc[bias], 0, NAN), y = t_new(dt, 2, dy, 0, NAN);
  cg_test_cands cs;
  int bad = 0;
  CU_ASSERT_FATAL(a.buf && b.buf && c.buf && y.buf);
  cands_of(inst, "Gemm", m, n, k, &cs);
  for (int i = 0; i < cs.n; i++) {
    olc_plugin_tensor in[3] = {a.t, b.t, c.t};
    olc_plugin_exec_args args = exec_args(in, bias == 0 ? 2 : 3, &y.t, alpha, beta);
    int32_t rc;
    for (int64_t e = 0; e < m * n; e++) /* never read */
      t_set(&y.t, e, NAN);
    rc = pl->execute(inst, op_workload("Gemm"), cs.p[i], &args);
    if (rc != OLC_PLUGIN_OK) {
      fprintf(stderr, "  candidate %d: status %d: %s\n", i, rc, cg_test_err_msg);
      bad++;
      continue;
    }
    bad += gemm_wrong(&a.t, &b.t, bias == 0 ? NULL : &c.t, &y.t, alpha, beta);
  }
  cg_test_release_all(inst, &cs);
  free(a.buf), free(b.buf), free(c.buf), free(y.buf);
  return bad;
}

static void test_gemm(void) {
  void *inst = NULL;
  static const double ab[][2] = {{1, 1}, {0.25, -2}, {1, 0}};
  static const uint32_t types[][2] = {
      {F32, F32}, {F16, F16}, {BF16, BF16}, {F32, F16}, {F32, BF16}};
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 2, &inst), OLC_PLUGIN_OK);
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++)
      for (int bias = 0; bias < BIAS_KINDS; bias++)
        for (size_t v = 0; v < sizeof ab / sizeof ab[0]; v++) {
          int bad = run_gemm(inst, 19, 21, 13, ta, tb, bias, F32, F32, ab[v][0], ab[v][1]);
          if (bad != 0)
            fprintf(stderr, "Gemm trans %d %d bias %d alpha %g beta %g: %d wrong\n", ta, tb, bias,
                    ab[v][0], ab[v][1], bad);
          CU_ASSERT_EQUAL(bad, 0);
        }
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    int bad = run_gemm(inst, 3, 70, 200, 0, 1, 2, types[t][0], types[t][1], 1, 1) +
              run_gemm(inst, 40, 33, 50, 1, 0, 5, types[t][0], types[t][1], 0.5, 2);
    if (bad != 0)
      fprintf(stderr, "Gemm dtypes %u %u: %d wrong\n", types[t][0], types[t][1], bad);
    CU_ASSERT_EQUAL(bad, 0);
  }
  pl->destroy(inst);
}

/* ---- pack ---- */

/* A tile policy that packs no B (pack none or a), from its text. */
static int reads_b_in_place(void *inst, const void *policy) {
  cg_test_bytes t;
  const char *pack;
  size_t len;
  CU_ASSERT_FATAL(cg_test_serialize(inst, policy, &t) == OLC_PLUGIN_OK);
  pack = strstr(t.s, " pack=");
  CU_ASSERT_PTR_NOT_NULL_FATAL(pack);
  pack += 6;
  len = strcspn(pack, " ");
  return strstr(t.s, "_vm") == NULL && strstr(t.s, "_mv") == NULL &&
         ((len == 4 && strncmp(pack, "none", 4) == 0) || (len == 1 && pack[0] == 'a'));
}

static void test_pack(void) {
  void *inst = NULL;
  int64_t da[2] = {6, 300}, db[2] = {300, 70}, dy[2] = {6, 70};
  tens a = t_new(F32, 2, da, 0, NAN), b = t_new(F32, 2, db, 1, NAN), y = t_new(F32, 2, dy, 0, 0);
  tens bsave = t_new(F32, 2, db, 1, 0), b16 = t_new(BF16, 2, db, 0, 0);
  tens bplain = t_new(F32, 2, db, 0, 0);
  cg_test_cands c;
  int packed_some = 0, in_place_seen = 0;
  CU_ASSERT_FATAL(a.buf && b.buf && y.buf && bsave.buf);
  memcpy(bsave.buf, b.buf, 300 * 70 * sizeof(float));
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 1, &inst), OLC_PLUGIN_OK);
  cands_of(inst, "MatMul", 6, 70, 300, &c);
  for (int i = 0; i < c.n; i++) {
    void *packed = NULL, *pk[2] = {NULL, NULL};
    uint64_t bytes = 0;
    olc_plugin_tensor in[2] = {a.t, b.t};
    olc_plugin_exec_args args = exec_args(in, 2, &y.t, 1, 0);
    int32_t rc;
    /* A is never packed. */
    CU_ASSERT_EQUAL(pl->pack(inst, op_workload("MatMul"), c.p[i], 0, &a.t, &packed, &bytes),
                    OLC_PLUGIN_E_UNSUPPORTED);
    CU_ASSERT_PTR_NULL(packed);
    memcpy(b.buf, bsave.buf, 300 * 70 * sizeof(float));
    if (reads_b_in_place(inst, c.p[i])) {
      /* A plain float32 B: a copy would only send its calls down the
       * general path, so it is declined and read in place.  A B it reads
       * through a view (b is transposed) or a bfloat16 one it would
       * widen is still packed. */
      CU_ASSERT_EQUAL(pl->pack(inst, op_workload("MatMul"), c.p[i], 1, &bplain.t, &packed, &bytes),
                      OLC_PLUGIN_E_UNSUPPORTED);
      CU_ASSERT_PTR_NULL(packed);
      CU_ASSERT_EQUAL(pl->pack(inst, op_workload("MatMul"), c.p[i], 1, &b16.t, &packed, &bytes),
                      OLC_PLUGIN_OK);
      pl->release_packed(inst, packed);
      packed = NULL;
      in_place_seen++;
    }
    rc = pl->pack(inst, op_workload("MatMul"), c.p[i], 1, &b.t, &packed, &bytes);
    CU_ASSERT_EQUAL(rc, OLC_PLUGIN_OK);
    if (rc != OLC_PLUGIN_OK)
      continue;
    packed_some++;
    CU_ASSERT_PTR_NOT_NULL(packed);
    CU_ASSERT(bytes >= 300 * 70 * sizeof(float));
    /* B's memory spoiled: the result must come from the packed copy. */
    for (int64_t e = 0; e < 300 * 70; e++)
      ((float *)b.buf)[e] = NAN;
    pk[1] = packed;
    args.packed = pk;
    CU_ASSERT_EQUAL(pl->execute(inst, op_workload("MatMul"), c.p[i], &args), OLC_PLUGIN_OK);
    CU_ASSERT_EQUAL(matmul_wrong(&a.t, &bsave.t, &y.t, &y, 1, 0), 0);
    /* Twice: the copy is reused, not consumed. */
    CU_ASSERT_EQUAL(pl->execute(inst, op_workload("MatMul"), c.p[i], &args), OLC_PLUGIN_OK);
    CU_ASSERT_EQUAL(matmul_wrong(&a.t, &bsave.t, &y.t, &y, 1, 0), 0);
    pl->release_packed(inst, packed);
  }
  /* The default (a tile kernel packing B) packs a 6 x 300 x 70 product;
   * the direct path's candidates read it in place. */
  CU_ASSERT(packed_some > 0);
  CU_ASSERT(in_place_seen > 0);
  pl->release_packed(inst, NULL);
  cg_test_release_all(inst, &c);
  pl->destroy(inst);
  free(a.buf), free(b.buf), free(y.buf), free(bsave.buf), free(b16.buf), free(bplain.buf);
}

/* ---- prepare and run: what calibration times ---- */

static void test_run_layouts(void) {
  void *inst = NULL;
  struct {
    const char *op;
    const char *props[8];
    uint32_t constants;
  } layouts[] = {
      {"MatMul", {"m=9", "n=40", "k=24", NULL}, 0},
      {"MatMul", {"m=9", "n=40", "k=24", "trans_a=1", "trans_b=1", NULL}, 0},
      {"MatMul", {"m=9", "n=40", "k=24", "batch_a=2x1", "batch_b=3", NULL}, 0},
      {"MatMul", {"dtype=float16", "m=9", "n=40", "k=24", NULL}, 0},
      {"MatMul", {"dtype=bfloat16", "m=9", "n=40", "k=24", "batch_b=2", NULL}, 0},
      {"MatMul", {"m=2", "n=40", "k=24", "dtype_b=bfloat16", NULL}, 2u},
      {"MatMul", {"m=40", "n=40", "k=24", "trans_b=1", NULL}, 2u},
      {"Gemm", {"m=9", "n=40", "k=24", NULL}, 0},
      {"Gemm", {"m=9", "n=40", "k=24", "bias=scalar", "trans_a=1", NULL}, 0},
      {"Gemm", {"m=9", "n=40", "k=24", "bias=row", NULL}, 2u},
      {"Gemm", {"m=9", "n=40", "k=24", "bias=col", "dtype=float16", NULL}, 0},
      {"Gemm", {"m=9", "n=40", "k=24", "bias=matrix", "trans_b=1", NULL}, 0},
  };
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 2, &inst), OLC_PLUGIN_OK);
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
    wl x;
    cg_test_cands c;
    void *state = NULL;
    double flops = 0;
    uint64_t bytes = 0;
    memset(&c, 0, sizeof c);
    wl_make(&x, layouts[i].op, layouts[i].props, layouts[i].constants);
    CU_ASSERT_EQUAL_FATAL(cg_test_candidates(inst, &x.w, &c), OLC_PLUGIN_OK);
    CU_ASSERT_EQUAL_FATAL(pl->prepare(inst, &x.w, &state), OLC_PLUGIN_OK);
    CU_ASSERT_EQUAL(pl->flops(inst, &x.w, &flops), OLC_PLUGIN_OK);
    CU_ASSERT(flops >= 2.0 * 9 * 40 * 24 / 5);
    CU_ASSERT_EQUAL(pl->operand_bytes(inst, &x.w, &bytes), OLC_PLUGIN_OK);
    CU_ASSERT(bytes > 0);
    /* Each candidate twice (a constant B packed on the first), then the
     * first again after the others (its packed copy kept). */
    for (int j = 0; j < c.n; j++) {
      int32_t rc = pl->run(inst, &x.w, state, c.p[j]);
      if (rc != OLC_PLUGIN_OK)
        fprintf(stderr, "layout %zu candidate %d: %d %s\n", i, j, rc, cg_test_err_msg);
      CU_ASSERT_EQUAL(rc, OLC_PLUGIN_OK);
      CU_ASSERT_EQUAL(pl->run(inst, &x.w, state, c.p[j]), OLC_PLUGIN_OK);
    }
    CU_ASSERT_EQUAL(pl->run(inst, &x.w, state, c.p[0]), OLC_PLUGIN_OK);
    pl->unprepare(inst, state);
    cg_test_release_all(inst, &c);
  }
  pl->destroy(inst);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("cpu_gemm_onnx", init_suite, clean_suite);
  CU_add_test(s, "key_layout_differs_from_plain_twin", test_key_layouts);
  CU_add_test(s, "key_explicit_defaults_canonicalized", test_key_defaults);
  CU_add_test(s, "key_refuses_unknown_and_bad_properties", test_key_refusals);
  CU_add_test(s, "matmul_ranks_broadcast_views_dtypes", test_matmul);
  CU_add_test(s, "matmul_strided_output_and_shapes", test_matmul_output);
  CU_add_test(s, "gemm_transposes_bias_alpha_beta_dtypes", test_gemm);
  CU_add_test(s, "pack_once_read_packed", test_pack);
  CU_add_test(s, "prepare_run_every_layout", test_run_layouts);
  return olc_test_run(argc, argv);
}
