/*
 * test_cpu_gemm_execute.c - cpu_gemm's ABI 1.1 execute through dlopen:
 *   - every candidate policy of several workloads (blocked, direct, thin
 *     vm and mv, split and not) against a plain double reference, on the
 *     workload's shape and on other shapes (a policy runs on any shape),
 *     with leading dimensions wider than the matrices, m or n = 1, and
 *     alpha/beta = 1/0 over a NaN-filled C (never read), 1/1, other values,
 *     and alpha = 0 over NaN operands (never read);
 *   - the variants it does not implement (float64, mixed dtypes, C
 *     overlapping an input, another operator): unsupported, with a
 *     message; descriptions that contradict themselves: invalid; operands
 *     outside execute's quick check (leading dimensions of a single row
 *     below the width or beyond 2^30) still served;
 *   - a policy of an instance that may use AVX2/AVX-512 refused by one
 *     limited to the portable kernels (config isa=ref);
 *   - 8 threads executing at once on one 2-thread instance while another
 *     thread prepares and runs (run is concurrent with execute), every
 *     result checked; and 4 threads at once on products the vm driver
 *     runs on a copy of C (in spare and pool workspaces);
 *     tests/sanitize/tsan.sh runs this under TSan.
 *   - matmul_f32 (ABI 1.5) on every policy and shape above: execute's
 *     result bit for bit;
 * Operands are allocated to their exact extent, so ASan catches a read or
 * write past a matrix.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
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

/* A row-major matrix of exactly its extent: (rows - 1) * ld + cols. */
typedef struct mat {
  int64_t rows, cols, ld;
  float *data;
} mat;

/* Per thread: the concurrency test's workers draw their operands at once. */
static _Thread_local unsigned long long rng_state = 0x9e3779b97f4a7c15ull;

static float rnd(void) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return (float)((double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* data is NULL when out of memory (no CUnit assertion here: the
 * concurrency test's workers call it, and CUnit is not thread-safe). */
static mat mat_new(int64_t rows, int64_t cols, int64_t pad, float fill_value, int random) {
  mat x = {rows, cols, cols + pad, NULL};
  size_t count = (size_t)((rows - 1) * x.ld + cols);
  x.data = malloc(count * sizeof(float));
  for (size_t i = 0; x.data != NULL && i < count; i++)
    x.data[i] = random ? rnd() : fill_value;
  return x;
}

static olc_plugin_tensor tensor(const mat *x) {
  return olc_stub_matrix(x->data, x->rows, x->cols, x->ld);
}

static int32_t execute_t(void *inst, const void *policy, olc_plugin_tensor in[2],
                         olc_plugin_tensor *out, double alpha, double beta) {
  olc_plugin_exec_args args;
  cg_test_workload w;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  args.inputs = in, args.input_count = 2;
  args.outputs = out, args.output_count = 1;
  args.alpha = alpha, args.beta = beta;
  cg_test_workload_set(&w, "MatMul", "1", "1", "1");
  return pl->execute(inst, &w.wl, policy, &args);
}

static int32_t execute_m(void *inst, const void *policy, const mat *a, const mat *b, mat *c,
                         double alpha, double beta) {
  olc_plugin_tensor in[2] = {tensor(a), tensor(b)}, out = tensor(c);
  return execute_t(inst, policy, in, &out, alpha, beta);
}

/* The same product through matmul_f32 (ABI 1.5), which the host calls
 * for plain MatMul operands instead of execute. */
static int32_t matmul_m(void *inst, const void *policy, const mat *a, const mat *b, mat *c,
                        double alpha, double beta) {
  olc_plugin_matmul_args args = {.m = a->rows,
                                 .n = b->cols,
                                 .k = a->cols,
                                 .lda = a->ld,
                                 .ldb = b->ld,
                                 .ldc = c->ld,
                                 .a = a->data,
                                 .b = b->data,
                                 .c = c->data,
                                 .alpha = (float)alpha,
                                 .beta = (float)beta};
  cg_test_workload w;
  cg_test_workload_set(&w, "MatMul", "1", "1", "1");
  return pl->matmul_f32(inst, &w.wl, policy, &args);
}

/* Cells of C wrong against alpha * A x B + beta * C0 (beta 0: C0 unused). */
static int wrong_cells(const mat *a, const mat *b, const mat *c, const mat *c0, double alpha,
                       double beta) {
  int bad = 0;
  for (int64_t i = 0; i < c->rows; i++) {
    for (int64_t j = 0; j < c->cols; j++) {
      double want = 0.0, got = c->data[i * c->ld + j], tol;
      if (alpha != 0.0)
        for (int64_t p = 0; p < a->cols; p++)
          want += (double)a->data[i * a->ld + p] * (double)b->data[p * b->ld + j];
      want *= alpha;
      if (beta != 0.0)
        want += beta * (double)c0->data[i * c0->ld + j];
      tol = 4.0 * 1.2e-7 * ((double)a->cols * fabs(alpha) + fabs(beta) + 1.0);
      bad += !(fabs(got - want) <= tol);
    }
  }
  return bad;
}

static const double ab[][2] = {{1, 0}, {1, 1}, {0.5, -2}, {-1.5, 0.25}};

/* C as a product starts: NaN with beta 0 (never read), else C0. */
static void reset_c(mat *c, const mat *c0, double beta) {
  size_t count = (size_t)((c->rows - 1) * c->ld + c->cols);
  if (beta == 0.0)
    for (size_t i = 0; i < count; i++)
      c->data[i] = NAN;
  else
    memcpy(c->data, c0->data, count * sizeof(float));
}

/* One policy on one shape with every alpha/beta case, through execute and
 * through matmul_f32, whose result must be execute's bit for bit; returns
 * bad cells. */
static int check_policy(void *inst, const void *policy, int64_t m, int64_t n, int64_t k,
                        int64_t pad) {
  mat a = mat_new(m, k, pad, 0, 1), b = mat_new(k, n, pad + 1, 0, 1);
  mat c0 = mat_new(m, n, pad + 2, 0, 1), c = mat_new(m, n, pad + 2, 0, 0);
  mat ce = mat_new(m, n, pad + 2, 0, 0);
  size_t bytes = (size_t)((m - 1) * c.ld + n) * sizeof(float);
  int bad = 0;
  if (a.data == NULL || b.data == NULL || c0.data == NULL || c.data == NULL || ce.data == NULL)
    bad = 1;
  for (size_t v = 0; v < sizeof ab / sizeof ab[0] && bad == 0; v++) {
    int32_t rc;
    reset_c(&ce, &c0, ab[v][1]);
    rc = execute_m(inst, policy, &a, &b, &ce, ab[v][0], ab[v][1]);
    if (rc != OLC_PLUGIN_OK) {
      fprintf(stderr, "execute: %d %s\n", rc, cg_test_err_msg);
      bad++;
      break;
    }
    bad += wrong_cells(&a, &b, &ce, &c0, ab[v][0], ab[v][1]);
    reset_c(&c, &c0, ab[v][1]);
    rc = matmul_m(inst, policy, &a, &b, &c, ab[v][0], ab[v][1]);
    if (rc != OLC_PLUGIN_OK) {
      fprintf(stderr, "matmul_f32: %d %s\n", rc, cg_test_err_msg);
      bad++;
      break;
    }
    if (memcmp(c.data, ce.data, bytes) != 0) {
      fprintf(stderr, "matmul_f32: not execute's result (alpha %g beta %g)\n", ab[v][0], ab[v][1]);
      bad++;
    }
  }
  free(a.data), free(b.data), free(c0.data), free(c.data), free(ce.data);
  return bad;
}

/* Every candidate of a workload, on its shape and on ragged others. */
static void every_candidate(void *inst, int64_t m, int64_t n, int64_t k) {
  const int64_t others[][3] = {{m, n, k}, {m + 13, n + 7, k + 5}, {1, n, k}, {m, 1, k}, {5, 3, 2}};
  cg_test_workload w;
  cg_test_cands c;
  memset(&c, 0, sizeof c);
  cg_test_workload_shape(&w, m, n, k);
  CU_ASSERT_EQUAL_FATAL(cg_test_candidates(inst, &w.wl, &c), OLC_PLUGIN_OK);
  for (int i = 0; i < c.n; i++) {
    for (size_t s = 0; s < sizeof others / sizeof others[0]; s++) {
      int bad =
          check_policy(inst, c.p[i], others[s][0], others[s][1], others[s][2], (int64_t)(s % 3));
      if (bad != 0) {
        cg_test_bytes b;
        cg_test_serialize(inst, c.p[i], &b);
        fprintf(stderr, "workload %lldx%lldx%lld, policy [%s] on %lldx%lldx%lld: %d bad\n",
                (long long)m, (long long)n, (long long)k, b.s, (long long)others[s][0],
                (long long)others[s][1], (long long)others[s][2], bad);
        CU_FAIL("wrong result");
      }
    }
  }
  cg_test_release_all(inst, &c);
}

static void test_every_candidate(void) {
  static const int64_t workloads[][3] = {{67, 131, 259}, {1, 300, 259}, {300, 1, 259},
                                         {32, 32, 32},   {3, 77, 50},   {77, 3, 50},
                                         {1, 1, 600},    {4, 4, 9},     {64, 1, 1216}};
  CU_ASSERT_PTR_NOT_NULL_FATAL(pl->matmul_f32);
  for (uint32_t threads = 1; threads <= 2; threads++) {
    void *inst = NULL;
    CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, threads, &inst), OLC_PLUGIN_OK);
    for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
      every_candidate(inst, workloads[i][0], workloads[i][1], workloads[i][2]);
    pl->destroy(inst);
  }
}

/* alpha = 0: C = beta * C exactly, A and B (NaN here) not read. */
static void test_alpha_zero(void) {
  void *inst = NULL;
  cg_test_workload w;
  cg_test_cands c;
  memset(&c, 0, sizeof c);
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 2, &inst), OLC_PLUGIN_OK);
  cg_test_workload_shape(&w, 9, 10, 11);
  CU_ASSERT_EQUAL_FATAL(cg_test_candidates(inst, &w.wl, &c), OLC_PLUGIN_OK);
  for (int i = 0; i < c.n; i++) {
    mat a = mat_new(9, 11, 1, NAN, 0), b = mat_new(11, 10, 2, NAN, 0), cm = mat_new(9, 10, 3, 2, 0);
    CU_ASSERT_FATAL(a.data != NULL && b.data != NULL && cm.data != NULL);
    CU_ASSERT_EQUAL(execute_m(inst, c.p[i], &a, &b, &cm, 0.0, -0.5), OLC_PLUGIN_OK);
    for (int64_t r = 0; r < 9; r++)
      for (int64_t j = 0; j < 10; j++)
        CU_ASSERT_EQUAL(cm.data[r * cm.ld + j], -1.0f);
    CU_ASSERT_EQUAL(execute_m(inst, c.p[i], &a, &b, &cm, 0.0, 0.0), OLC_PLUGIN_OK);
    for (int64_t r = 0; r < 9; r++)
      for (int64_t j = 0; j < 10; j++)
        CU_ASSERT_EQUAL(cm.data[r * cm.ld + j], 0.0f);
    free(a.data), free(b.data), free(cm.data);
  }
  cg_test_release_all(inst, &c);
  pl->destroy(inst);
}

/* The first candidate of a small workload, for the argument tests. */
static void *first_policy(void *inst, cg_test_cands *c) {
  cg_test_workload w;
  memset(c, 0, sizeof *c);
  cg_test_workload_shape(&w, 8, 8, 8);
  CU_ASSERT_EQUAL_FATAL(cg_test_candidates(inst, &w.wl, c), OLC_PLUGIN_OK);
  return c->p[0];
}

static void expect_status(int32_t got, int32_t want, const char *fragment) {
  CU_ASSERT_EQUAL(got, want);
  if (got != want || strstr(cg_test_err_msg, fragment) == NULL) {
    fprintf(stderr, "status %d (want %d), message '%s' (want '%s')\n", got, want, cg_test_err_msg,
            fragment);
    CU_FAIL("status or message");
  }
}

static void test_unsupported(void) {
  void *inst = NULL, *p;
  cg_test_cands c;
  mat a = mat_new(8, 8, 0, 1, 0), b = mat_new(8, 8, 0, 1, 0), cm = mat_new(8, 8, 0, 0, 0);
  olc_plugin_tensor in[2], out;
  olc_plugin_exec_args args;
  cg_test_workload w;
  CU_ASSERT_FATAL(a.data != NULL && b.data != NULL && cm.data != NULL);
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 1, &inst), OLC_PLUGIN_OK);
  p = first_policy(inst, &c);
  in[0] = tensor(&a), in[1] = tensor(&b), out = tensor(&cm);
  /* Batches, views and 16-bit types are served (test_cpu_gemm_onnx);
   * another dtype, or one T mixed with another, is not. */
  in[1].dtype = OLC_PLUGIN_DTYPE_FLOAT64;
  expect_status(execute_t(inst, p, in, &out, 1, 0), OLC_PLUGIN_E_UNSUPPORTED, "dtype 3");
  in[1] = tensor(&b), out.dtype = OLC_PLUGIN_DTYPE_FLOAT16;
  expect_status(execute_t(inst, p, in, &out, 1, 0), OLC_PLUGIN_E_UNSUPPORTED, "Y 2");
  out = tensor(&a); /* C is A */
  expect_status(execute_t(inst, p, in, &out, 1, 0), OLC_PLUGIN_E_UNSUPPORTED, "overlaps");
  out = tensor(&cm);
  cg_test_workload_set(&w, "Conv", "8", "8", "8");
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args, args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  args.inputs = in, args.input_count = 2, args.outputs = &out, args.output_count = 1;
  args.alpha = 1;
  expect_status(pl->execute(inst, &w.wl, p, &args), OLC_PLUGIN_E_UNSUPPORTED, "Conv");
  cg_test_release_all(inst, &c);
  pl->destroy(inst);
  free(a.data), free(b.data), free(cm.data);
}

static void test_invalid(void) {
  void *inst = NULL, *p;
  cg_test_cands c;
  mat a = mat_new(8, 6, 0, 1, 0), b = mat_new(6, 8, 0, 1, 0), cm = mat_new(8, 8, 0, 0, 0);
  mat b7 = mat_new(7, 8, 0, 1, 0), c9 = mat_new(9, 8, 0, 0, 0);
  olc_plugin_tensor in[2], out;
  olc_plugin_exec_args args;
  CU_ASSERT_FATAL(a.data && b.data && cm.data && b7.data && c9.data);
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 1, &inst), OLC_PLUGIN_OK);
  p = first_policy(inst, &c);
  in[0] = tensor(&a), in[1] = tensor(&b7), out = tensor(&cm);
  expect_status(execute_t(inst, p, in, &out, 1, 0), OLC_PLUGIN_E_INVALID, "shapes disagree");
  in[1] = tensor(&b), out = tensor(&c9);
  expect_status(execute_t(inst, p, in, &out, 1, 0), OLC_PLUGIN_E_INVALID, "shapes disagree");
  out = tensor(&cm), in[0].data = NULL;
  expect_status(execute_t(inst, p, in, &out, 1, 0), OLC_PLUGIN_E_INVALID, "no data");
  in[0] = tensor(&a), in[0].rank = 0; /* a scalar is no MatMul operand */
  expect_status(execute_t(inst, p, in, &out, 1, 0), OLC_PLUGIN_E_INVALID, "A has rank 0");
  in[0] = tensor(&a), in[0].struct_size = 8;
  expect_status(execute_t(inst, p, in, &out, 1, 0), OLC_PLUGIN_E_INVALID, "A missing or too old");
  in[0] = tensor(&a), out.struct_size = 8;
  expect_status(execute_t(inst, p, in, &out, 1, 0), OLC_PLUGIN_E_INVALID, "Y missing or too old");
  out = tensor(&cm);
  in[0] = tensor(&a), in[0].dims[0] = INT64_MAX / 2;
  expect_status(execute_t(inst, p, in, &out, 1, 0), OLC_PLUGIN_E_INVALID, "");
  out.dims[0] = INT64_MAX / 2; /* the shapes agree; the extents overflow */
  expect_status(execute_t(inst, p, in, &out, 1, 0), OLC_PLUGIN_E_INVALID, "A's extent overflows");
  out = tensor(&cm);
  in[0] = tensor(&a);
  expect_status(execute_t(inst, NULL, in, &out, 1, 0), OLC_PLUGIN_E_INVALID, "policy");
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args, args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  args.inputs = in, args.input_count = 1, args.outputs = &out, args.output_count = 1;
  expect_status(pl->execute(inst, NULL, p, &args), OLC_PLUGIN_E_INVALID, "2 inputs");
  args.input_count = 2, args.struct_size = 16;
  expect_status(pl->execute(inst, NULL, p, &args), OLC_PLUGIN_E_INVALID, "2 inputs");
  expect_status(pl->execute(inst, NULL, p, NULL), OLC_PLUGIN_E_INVALID, "2 inputs");
  /* A row of one: its leading dimension is never used, whether below the
   * width or far beyond 2^30 (both outside execute's quick check). */
  {
    mat a1 = mat_new(1, 6, 0, 1, 0), c1 = mat_new(1, 8, 0, 0, 0);
    const int64_t lds[][2] = {{1, 8}, {(int64_t)1 << 40, 8}, {6, (int64_t)1 << 31}};
    CU_ASSERT_FATAL(a1.data != NULL && c1.data != NULL);
    for (size_t i = 0; i < sizeof lds / sizeof lds[0]; i++) {
      c1.data[7] = 0.0f;
      in[0] = tensor(&a1), in[0].strides[0] = lds[i][0], in[1] = tensor(&b);
      out = tensor(&c1), out.strides[0] = lds[i][1];
      CU_ASSERT_EQUAL(execute_t(inst, p, in, &out, 1, 0), OLC_PLUGIN_OK);
      CU_ASSERT_EQUAL(c1.data[7], 6.0f);
    }
    free(a1.data), free(c1.data);
  }
  cg_test_release_all(inst, &c);
  pl->destroy(inst);
  free(a.data), free(b.data), free(cm.data), free(b7.data), free(c9.data);
}

/* A policy is checked against the instance that executes it: one made by
 * an instance that may use the CPU's best kernels is refused by an
 * instance limited to the portable ones (config isa=ref). */
static void test_other_instance(void) {
  void *full = NULL, *ref = NULL, *p;
  const olc_plugin_kv cap = {"isa", "ref"};
  cg_test_bytes text;
  cg_test_cands c;
  mat a = mat_new(8, 8, 0, 1, 0), b = mat_new(8, 8, 0, 1, 0), cm = mat_new(8, 8, 0, 0, 0);
  CU_ASSERT_FATAL(a.data != NULL && b.data != NULL && cm.data != NULL);
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 1, &full), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, &cap, 1, 1, &ref), OLC_PLUGIN_OK);
  p = first_policy(full, &c);
  cg_test_serialize(full, p, &text);
  if (strstr(text.s, "kernel=ref") != NULL) {
    printf("\n  (this CPU's first kernel is the portable one: nothing to refuse) ");
  } else {
    expect_status(execute_m(ref, p, &a, &b, &cm, 1, 0), OLC_PLUGIN_E_INVALID, "needs");
    expect_status(matmul_m(ref, p, &a, &b, &cm, 1, 0), OLC_PLUGIN_E_INVALID, "needs");
    CU_ASSERT_EQUAL(execute_m(full, p, &a, &b, &cm, 1, 0), OLC_PLUGIN_OK);
    CU_ASSERT_EQUAL(cm.data[0], 8.0f);
  }
  cg_test_release_all(full, &c);
  pl->destroy(full);
  pl->destroy(ref);
  free(a.data), free(b.data), free(cm.data);
}

/* ---- concurrency ---- */

#define CONC_THREADS 8
#define CONC_ROUNDS 12

typedef struct conc {
  void *inst;
  cg_test_cands cands[3];
  pthread_barrier_t start;
  _Atomic int failures, executed, runs;
  _Atomic int stop;
} conc;

static const int64_t conc_shapes[3][3] = {{70, 90, 130}, {1, 700, 300}, {500, 2, 300}};

static void *conc_worker(void *arg) {
  conc *x = arg;
  static _Atomic unsigned seq;
  unsigned me = atomic_fetch_add(&seq, 1u);
  pthread_barrier_wait(&x->start);
  for (int r = 0; r < CONC_ROUNDS; r++) {
    const int wi = (int)((me + (unsigned)r) % 3u);
    const cg_test_cands *c = &x->cands[wi];
    const void *policy = c->p[((unsigned)r * 7u + me) % (unsigned)c->n];
    const int64_t *s = conc_shapes[wi];
    int bad = check_policy(x->inst, policy, s[0] + (int64_t)(me % 3u), s[1], s[2], me % 2u);
    atomic_fetch_add(&x->failures, bad != 0);
    atomic_fetch_add(&x->executed, 1);
  }
  return NULL;
}

/* prepare + run in a loop while the others execute (run is concurrent
 * with execute, never with itself). */
static void *conc_runner(void *arg) {
  conc *x = arg;
  cg_test_workload w;
  void *state = NULL;
  cg_test_workload_shape(&w, 70, 90, 130);
  pthread_barrier_wait(&x->start);
  if (pl->prepare(x->inst, &w.wl, &state) != OLC_PLUGIN_OK) {
    atomic_fetch_add(&x->failures, 1);
    return NULL;
  }
  while (!atomic_load(&x->stop)) {
    for (int i = 0; i < x->cands[0].n; i++)
      atomic_fetch_add(&x->failures, pl->run(x->inst, &w.wl, state, x->cands[0].p[i]) != 0);
    atomic_fetch_add(&x->runs, 1);
  }
  pl->unprepare(x->inst, state);
  return NULL;
}

static void test_concurrent(void) {
  static conc x;
  pthread_t t[CONC_THREADS + 1];
  memset(&x, 0, sizeof x);
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 2, &x.inst), OLC_PLUGIN_OK);
  for (int i = 0; i < 3; i++) {
    cg_test_workload w;
    cg_test_workload_shape(&w, conc_shapes[i][0], conc_shapes[i][1], conc_shapes[i][2]);
    CU_ASSERT_EQUAL_FATAL(cg_test_candidates(x.inst, &w.wl, &x.cands[i]), OLC_PLUGIN_OK);
    CU_ASSERT_FATAL(x.cands[i].n > 0);
  }
  pthread_barrier_init(&x.start, NULL, CONC_THREADS + 1);
  for (int i = 0; i < CONC_THREADS; i++)
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, conc_worker, &x), 0);
  CU_ASSERT_EQUAL_FATAL(pthread_create(&t[CONC_THREADS], NULL, conc_runner, &x), 0);
  for (int i = 0; i < CONC_THREADS; i++)
    pthread_join(t[i], NULL);
  atomic_store(&x.stop, 1);
  pthread_join(t[CONC_THREADS], NULL);
  pthread_barrier_destroy(&x.start);
  fprintf(stderr, "concurrent: %d executes, %d run passes, %d failures\n", atomic_load(&x.executed),
          atomic_load(&x.runs), atomic_load(&x.failures));
  CU_ASSERT_EQUAL(atomic_load(&x.executed), CONC_THREADS * CONC_ROUNDS);
  CU_ASSERT_EQUAL(atomic_load(&x.failures), 0);
  for (int i = 0; i < 3; i++)
    cg_test_release_all(x.inst, &x.cands[i]);
  pl->destroy(x.inst);
}

/* ---- C relocated, concurrently ---- */

#define RELOC_THREADS 4
#define RELOC_ROUNDS 6

/* Two rows of A against B 1024 floats wide with its rows 4 KiB apart, each
 * thread's C 64 bytes past a page: the layout in which the vm driver runs
 * the streaming kernels on a copy of C (test_cpu_gemm_core checks that it
 * does), from the instance's spare workspaces or, split over its pool,
 * from the pool's. */
typedef struct reloc {
  void *inst, *pol[2]; /* split none, split jc */
  mat a, b;
  _Atomic int failures, executed;
} reloc;

static void *reloc_worker(void *arg) {
  reloc *x = arg;
  static _Atomic unsigned seq;
  const unsigned me = atomic_fetch_add(&seq, 1u);
  float *page = aligned_alloc(4096, (2 * 1024 + 1024) * sizeof(float));
  mat c = {2, 1024, 1024, page != NULL ? page + 16 : NULL};
  for (int r = 0; r < RELOC_ROUNDS && page != NULL; r++) {
    int32_t rc;
    for (int64_t i = 0; i < c.ld + c.cols; i++)
      c.data[i] = NAN;
    rc = execute_m(x->inst, x->pol[(me + (unsigned)r) % 2u], &x->a, &x->b, &c, 1, 0);
    atomic_fetch_add(&x->failures, rc != OLC_PLUGIN_OK || wrong_cells(&x->a, &x->b, &c, &c, 1, 0));
    atomic_fetch_add(&x->executed, 1);
  }
  atomic_fetch_add(&x->failures, page == NULL);
  free(page);
  return NULL;
}

static void test_relocated_concurrent(void) {
  static const char *const texts[][2] = {
      {"v1 kernel=avx512_vm4_stream mc=4 kc=48 nc=256 split=none pack=none",
       "v1 kernel=avx512_vm4_stream mc=4 kc=48 nc=256 split=jc pack=none"},
      {"v1 kernel=avx2_vm4_stream mc=4 kc=48 nc=256 split=none pack=none",
       "v1 kernel=avx2_vm4_stream mc=4 kc=48 nc=256 split=jc pack=none"}};
  static reloc x;
  pthread_t t[RELOC_THREADS];
  size_t v = 0;
  memset(&x, 0, sizeof x);
  CU_ASSERT_EQUAL_FATAL(pl->create(&olc_stub_host, NULL, 0, 2, &x.inst), OLC_PLUGIN_OK);
  while (v < 2 && pl->validate(x.inst, texts[v][0], strlen(texts[v][0]), &x.pol[0]) != 0)
    v++;
  if (v == 2) {
    printf("\n  (no streaming vm kernel on this CPU: nothing to relocate for) ");
    pl->destroy(x.inst);
    return;
  }
  CU_ASSERT_EQUAL_FATAL(pl->validate(x.inst, texts[v][1], strlen(texts[v][1]), &x.pol[1]), 0);
  x.a = mat_new(2, 64, 3, 0, 1);
  x.b = (mat){64, 1024, 1024, aligned_alloc(4096, 64 * 1024 * sizeof(float))};
  CU_ASSERT_FATAL(x.a.data != NULL && x.b.data != NULL);
  for (int i = 0; i < 64 * 1024; i++)
    x.b.data[i] = rnd();
  for (int i = 0; i < RELOC_THREADS; i++)
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, reloc_worker, &x), 0);
  for (int i = 0; i < RELOC_THREADS; i++)
    pthread_join(t[i], NULL);
  CU_ASSERT_EQUAL(atomic_load(&x.executed), RELOC_THREADS * RELOC_ROUNDS);
  CU_ASSERT_EQUAL(atomic_load(&x.failures), 0);
  pl->release_policy(x.inst, x.pol[0]);
  pl->release_policy(x.inst, x.pol[1]);
  pl->destroy(x.inst);
  free(x.a.data), free(x.b.data);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("cpu_gemm_execute", init_suite, clean_suite);
  CU_add_test(s, "every_candidate_any_shape_alpha_beta", test_every_candidate);
  CU_add_test(s, "alpha_zero_reads_no_operand", test_alpha_zero);
  CU_add_test(s, "unsupported_variants", test_unsupported);
  CU_add_test(s, "invalid_descriptions", test_invalid);
  CU_add_test(s, "policy_of_a_more_capable_instance", test_other_instance);
  CU_add_test(s, "eight_threads_at_once", test_concurrent);
  CU_add_test(s, "c_relocated_four_threads_at_once", test_relocated_concurrent);
  return olc_test_run(argc, argv);
}
