/*
 * test_example_gpu_execute.c - example_gpu's execute (ABI 1.1) on the
 * machine's OpenCL device, loaded with dlopen through a minimal host:
 * every candidate policy (the device's own and a GPU's) against a plain
 * double-precision reference on ragged shapes, leading dimensions wider
 * than the matrix, m or n = 1, alpha/beta cases (beta 0 over NaN in C);
 * the refused variants and contradictory descriptions, which leave C as it
 * was; and several threads executing at once on one instance, alongside run.
 * Exits 77 when no device exists.
 *
 * Operands live in heap buffers freed right after each call, whose padding
 * (the columns past the width) holds NaN in A and B, so a read of it
 * poisons the result, and a sentinel in C, which must survive.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "egpu.h"
#include "egpu_harness.h"
#include "test_support.h"

#define C_SENTINEL (-777.0f)
#define MAX_POLICIES 32

static void *g_handle;
static const olc_plugin *g_table;
static egpu_instance *g_inst;
static harness_workload g_workload;
/* Every distinct candidate of a few workloads, on this device and as a GPU. */
static void *g_policies[MAX_POLICIES];
static char g_texts[MAX_POLICIES][160];
static int g_policy_count;

/* ---- operands ---------------------------------------------------------- */

typedef struct mat {
  unsigned rows, cols, ld;
  float *buf; /* rows x ld */
} mat;

static uint32_t next_random(uint32_t *seed) {
  *seed = *seed * 1664525u + 1013904223u;
  return *seed >> 8;
}

/* rows x cols in [-1, 1) (or NaN when fill_nan) with ld = cols + pad. */
static void mat_init(mat *x, unsigned rows, unsigned cols, unsigned pad, uint32_t seed,
                     int fill_nan, float pad_value) {
  size_t i, j;
  x->rows = rows, x->cols = cols, x->ld = cols + pad;
  x->buf = malloc((size_t)rows * x->ld * sizeof(float));
  CU_ASSERT_PTR_NOT_NULL_FATAL(x->buf);
  for (i = 0; i < rows; i++)
    for (j = 0; j < x->ld; j++)
      x->buf[i * x->ld + j] =
          j >= cols ? pad_value : (fill_nan ? NAN : (float)next_random(&seed) / 8388608.0f - 1.0f);
}

static olc_plugin_tensor tensor_of(const mat *x) {
  return olc_stub_matrix(x->buf, x->rows, x->cols, x->ld);
}

static int32_t exec_tensors(const void *policy, const olc_plugin_tensor *in,
                            const olc_plugin_tensor *out, double alpha, double beta) {
  olc_plugin_exec_args args;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  args.inputs = in;
  args.outputs = out;
  args.input_count = 2;
  args.output_count = 1;
  args.alpha = alpha;
  args.beta = beta;
  return g_table->execute(g_inst, &g_workload.w, policy, &args);
}

static int32_t exec_mats(const void *policy, const mat *a, const mat *b, const mat *c, double alpha,
                         double beta) {
  olc_plugin_tensor in[2], out = tensor_of(c);
  in[0] = tensor_of(a);
  in[1] = tensor_of(b);
  return exec_tensors(policy, in, &out, alpha, beta);
}

/* Bad elements of C (against alpha * A * B + beta * C0 in double, C0 the C
 * before the call, not read when beta == 0) plus changed padding. */
static long check(const mat *a, const mat *b, const mat *c, const float *c0, double alpha,
                  double beta, const char *what) {
  size_t i, j, p;
  long bad = 0;
  for (i = 0; i < c->rows; i++) {
    for (j = 0; j < c->ld; j++) {
      double got = c->buf[i * c->ld + j], ref = 0.0, mag = 0.0;
      if (j >= c->cols) {
        bad += got != C_SENTINEL;
        continue;
      }
      for (p = 0; p < a->cols; p++) {
        double t = (double)a->buf[i * a->ld + p] * (double)b->buf[p * b->ld + j];
        ref += t;
        mag += fabs(t);
      }
      ref *= alpha;
      mag *= fabs(alpha);
      if (beta != 0.0) {
        ref += beta * c0[i * c->ld + j];
        mag += fabs(beta * c0[i * c->ld + j]);
      }
      if (!(fabs(got - ref) <= 1e-5 * mag + 1e-6)) {
        if (bad < 3)
          fprintf(stderr, "%s: C[%zu][%zu] = %g, expected %g\n", what, i, j, got, ref);
        bad++;
      }
    }
  }
  return bad;
}

/*
 * One execute of policy on m x n x k with the given padding and scalars:
 * the number of bad elements, -1 when execute failed.  With beta == 0, C
 * starts as NaN.  Thread-safe (no CUnit assertion on the success path).
 */
static long run_case(const void *policy, const char *text, const unsigned shape[3], unsigned pad,
                     double alpha, double beta, uint32_t seed) {
  mat a, b, c;
  float *c0;
  char what[256];
  long bad;
  mat_init(&a, shape[0], shape[2], pad, seed, 0, NAN);
  mat_init(&b, shape[2], shape[1], pad * 2 + 1, seed + 1, 0, NAN);
  mat_init(&c, shape[0], shape[1], pad == 0 ? 0 : pad + 2, seed + 2, beta == 0.0, C_SENTINEL);
  c0 = malloc((size_t)c.rows * c.ld * sizeof(float));
  CU_ASSERT_PTR_NOT_NULL_FATAL(c0);
  memcpy(c0, c.buf, (size_t)c.rows * c.ld * sizeof(float));
  snprintf(what, sizeof what, "%s on %ux%ux%u pad %u alpha %g beta %g", text, shape[0], shape[1],
           shape[2], pad, alpha, beta);
  if (exec_mats(policy, &a, &b, &c, alpha, beta) != OLC_PLUGIN_OK) {
    fprintf(stderr, "%s: execute failed: %s\n", what, harness_last_error.message);
    bad = -1;
  } else {
    bad = check(&a, &b, &c, c0, alpha, beta, what);
  }
  free(a.buf);
  free(b.buf);
  free(c.buf);
  free(c0);
  return bad;
}

/* ---- the candidates ---------------------------------------------------- */

static void policy_text(const void *policy, char *buf, size_t size) {
  harness_bytes b;
  olc_plugin_byte_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &b, hb_write};
  memset(&b, 0, sizeof b);
  CU_ASSERT_EQUAL_FATAL(g_table->serialize(g_inst, policy, &sink), OLC_PLUGIN_OK);
  CU_ASSERT_FATAL(b.len < size);
  memcpy(buf, b.data, b.len + 1);
}

/* Adds the workload's candidates not seen yet to g_policies. */
static void collect(unsigned m, unsigned n, unsigned k) {
  harness_workload hw;
  harness_policies ps;
  olc_plugin_policy_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &ps, hp_emit};
  int i, j;
  memset(&ps, 0, sizeof ps);
  harness_matmul(&hw, "float32", m, n, k);
  CU_ASSERT_EQUAL_FATAL(g_table->candidates(g_inst, &hw.w, &sink), OLC_PLUGIN_OK);
  for (i = 0; i < ps.count; i++) {
    char text[160];
    policy_text(ps.items[i], text, sizeof text);
    for (j = 0; j < g_policy_count && strcmp(g_texts[j], text) != 0; j++)
      ;
    if (j < g_policy_count || g_policy_count == MAX_POLICIES) {
      g_table->release_policy(g_inst, ps.items[i]);
      continue;
    }
    memcpy(g_texts[g_policy_count], text, sizeof text);
    g_policies[g_policy_count++] = ps.items[i];
  }
}

static void collect_all(void) {
  static const unsigned workloads[][3] = {{64, 64, 64}, {256, 256, 256}, {37, 45, 29}};
  egpu_limits saved = g_inst->limits;
  size_t i;
  for (i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
    collect(workloads[i][0], workloads[i][1], workloads[i][2]);
  /* A GPU's candidates too (the instance looks like one for the call). */
  g_inst->limits.type = CL_DEVICE_TYPE_GPU;
  g_inst->limits.local_mem_type = CL_LOCAL;
  collect(256, 256, 256);
  g_inst->limits = saved;
}

/* ---- tests ------------------------------------------------------------- */

static const unsigned g_shapes[][3] = {
    {1, 1, 1},     {1, 67, 19},  {67, 1, 19}, {67, 131, 19},
    {33, 65, 130}, {64, 64, 64}, {5, 300, 3}, {130, 9, 1},
};
static const double g_scalars[][2] = {{1.0, 0.0}, {1.0, 1.0}, {0.5, -2.0}, {-1.5, 0.0}};
static const unsigned g_pads[] = {0, 3, 17};

/* The tests below need the candidates collected first. */
#define NEED_POLICIES() CU_ASSERT_FATAL(g_policy_count > 0)

static void test_table(void) {
  CU_ASSERT_EQUAL(g_table->struct_size, sizeof(olc_plugin));
  CU_ASSERT_EQUAL(g_table->abi_minor, OLC_PLUGIN_ABI_MINOR);
  CU_ASSERT_PTR_NOT_NULL(g_table->execute);
  CU_ASSERT(g_policy_count >= 10);
  printf("\n  %d distinct candidate policies\n", g_policy_count);
}

/* Every policy on every shape, each with one padding and one scalar pair;
 * the pair and padding rotate with the shape, so each policy meets all. */
static void test_every_candidate(void) {
  size_t s;
  int i;
  for (i = 0; i < g_policy_count; i++)
    for (s = 0; s < sizeof g_shapes / sizeof g_shapes[0]; s++) {
      size_t r = s + (size_t)i;
      const double *ab = g_scalars[r % 4];
      long bad = run_case(g_policies[i], g_texts[i], g_shapes[s], g_pads[r % 3], ab[0], ab[1],
                          (uint32_t)(1000 * (size_t)i + s));
      CU_ASSERT_EQUAL(bad, 0);
    }
}

/* The first candidate on every shape with every scalar pair and padding. */
static void test_alpha_beta(void) {
  static const double more[][2] = {{0.0, 0.0}, {0.0, 2.0}, {2.0, 0.5}, {1.0, -1.0}};
  size_t s, j, p;
  NEED_POLICIES();
  for (s = 0; s < sizeof g_shapes / sizeof g_shapes[0]; s++)
    for (p = 0; p < 3; p++) {
      for (j = 0; j < 4; j++) {
        CU_ASSERT_EQUAL(run_case(g_policies[0], g_texts[0], g_shapes[s], g_pads[p], g_scalars[j][0],
                                 g_scalars[j][1], (uint32_t)(s * 7 + j)),
                        0);
        CU_ASSERT_EQUAL(run_case(g_policies[0], g_texts[0], g_shapes[s], g_pads[p], more[j][0],
                                 more[j][1], (uint32_t)(s * 11 + j)),
                        0);
      }
    }
}

/* alpha == 0 reads neither A nor B (NaN there changes nothing). */
static void test_alpha_zero(void) {
  mat a, b, c;
  size_t i;
  NEED_POLICIES();
  mat_init(&a, 3, 4, 1, 1, 1, NAN);
  mat_init(&b, 4, 5, 0, 2, 1, NAN);
  mat_init(&c, 3, 5, 2, 3, 0, C_SENTINEL);
  CU_ASSERT_EQUAL(exec_mats(g_policies[0], &a, &b, &c, 0.0, 2.0), OLC_PLUGIN_OK);
  for (i = 0; i < 3 * 7; i++)
    CU_ASSERT(i % 7 >= 5 ? c.buf[i] == C_SENTINEL : fabsf(c.buf[i]) <= 2.0f);
  CU_ASSERT_EQUAL(exec_mats(g_policies[0], &a, &b, &c, 0.0, 0.0), OLC_PLUGIN_OK);
  for (i = 0; i < 3 * 7; i++)
    CU_ASSERT(c.buf[i] == (i % 7 >= 5 ? C_SENTINEL : 0.0f));
  free(a.buf);
  free(b.buf);
  free(c.buf);
}

/* A and B may be the same memory (only C must not overlap them). */
static void test_inputs_alias(void) {
  mat a, c;
  float *c0;
  NEED_POLICIES();
  mat_init(&a, 40, 40, 3, 9, 0, NAN);
  mat_init(&c, 40, 40, 1, 10, 0, C_SENTINEL);
  c0 = malloc((size_t)c.rows * c.ld * sizeof(float));
  CU_ASSERT_PTR_NOT_NULL_FATAL(c0);
  memcpy(c0, c.buf, (size_t)c.rows * c.ld * sizeof(float));
  CU_ASSERT_EQUAL_FATAL(exec_mats(g_policies[0], &a, &a, &c, 1.0, 1.0), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(check(&a, &a, &c, c0, 1.0, 1.0, "A = B"), 0);
  free(a.buf);
  free(c.buf);
  free(c0);
}

/* ---- refusals ---------------------------------------------------------- */

/* Valid 8 x 6 x 5 operands (padded) and their description, to spoil one field of. */
typedef struct fixture {
  mat a, b, c;
  float c0[8 * 9];
  olc_plugin_tensor in[2], out;
  olc_plugin_exec_args args;
} fixture;

static void fixture_open(fixture *f) {
  memset(f, 0, sizeof *f);
  mat_init(&f->a, 8, 5, 1, 21, 0, NAN);
  mat_init(&f->b, 5, 6, 2, 22, 0, NAN);
  mat_init(&f->c, 8, 6, 3, 23, 0, C_SENTINEL);
  memcpy(f->c0, f->c.buf, sizeof f->c0);
  f->in[0] = tensor_of(&f->a);
  f->in[1] = tensor_of(&f->b);
  f->out = tensor_of(&f->c);
  f->args.struct_size = sizeof f->args;
  f->args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  f->args.inputs = f->in;
  f->args.outputs = &f->out;
  f->args.input_count = 2;
  f->args.output_count = 1;
  f->args.alpha = 1.0;
  f->args.beta = 0.5;
}

/* Expects status with a message containing needle, and C as it was. */
static void expect(fixture *f, const void *policy, const olc_plugin_exec_args *args,
                   const olc_plugin_workload *w, int32_t status, const char *needle) {
  int32_t rc;
  olc_stub_host_clear_error();
  rc = g_table->execute(g_inst, w, policy, args);
  if (rc != status || strstr(harness_last_error.message, needle) == NULL)
    fprintf(stderr, "\n  expected %d \"%s\", got %d \"%s\"\n", (int)status, needle, (int)rc,
            harness_last_error.message);
  CU_ASSERT_EQUAL(rc, status);
  CU_ASSERT_EQUAL(harness_last_error.code, status);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, needle));
  CU_ASSERT_EQUAL(memcmp(f->c.buf, f->c0, sizeof f->c0), 0);
}

static void fixture_close(fixture *f) {
  free(f->a.buf);
  free(f->b.buf);
  free(f->c.buf);
}

/* Variants execute does not implement: OLC_PLUGIN_E_UNSUPPORTED, C untouched. */
static void test_refused(void) {
  fixture f;
  harness_workload conv;
  const int32_t no = OLC_PLUGIN_E_UNSUPPORTED;
  NEED_POLICIES();
  fixture_open(&f);
  /* Y transposed: the output must be row-major. */
  f.out.strides[0] = 1, f.out.strides[1] = 8;
  expect(&f, g_policies[0], &f.args, &g_workload.w, no, "only a row-major output");
  f.out = tensor_of(&f.c);
  /* Packed operands: example_gpu has no pack, a host must not hand one. */
  {
    void *packed[2] = {NULL, f.b.buf};
    f.args.packed = packed;
    expect(&f, g_policies[0], &f.args, &g_workload.w, no, "packed input 1");
    f.args.packed = NULL;
  }
  f.out.dtype = OLC_PLUGIN_DTYPE_FLOAT16;
  expect(&f, g_policies[0], &f.args, &g_workload.w, no, "dtype 2");
  f.out = tensor_of(&f.c);
  f.in[0].dtype = OLC_PLUGIN_DTYPE_FLOAT64;
  expect(&f, g_policies[0], &f.args, &g_workload.w, no, "dtype 3");
  f.in[0] = tensor_of(&f.a);
  /* C over A (in place), and C's last row over B's first. */
  f.in[0].data = f.c.buf, f.in[0].dims[1] = 6, f.in[1].dims[0] = 6;
  expect(&f, g_policies[0], &f.args, &g_workload.w, no, "overlaps");
  f.in[0] = tensor_of(&f.a), f.in[1] = tensor_of(&f.b);
  f.in[1].data = f.c.buf + 7 * f.c.ld + 2;
  expect(&f, g_policies[0], &f.args, &g_workload.w, no, "overlaps");
  f.in[1] = tensor_of(&f.b);
  f.in[0].dims[0] = f.out.dims[0] = 40000;
  expect(&f, g_policies[0], &f.args, &g_workload.w, no, "at most 32768");
  f.in[0] = tensor_of(&f.a), f.out = tensor_of(&f.c);
  harness_matmul(&conv, "float32", 8, 6, 5);
  conv.w.operator_name = "Conv";
  expect(&f, g_policies[0], &f.args, &conv.w, no, "operator Conv");
  /* Still usable, the workload is optional, and C is then written. */
  CU_ASSERT_EQUAL(g_table->execute(g_inst, NULL, g_policies[0], &f.args), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(check(&f.a, &f.b, &f.c, f.c0, 1.0, 0.5, "after refusals"), 0);
  fixture_close(&f);
}

/* Descriptions that contradict themselves: OLC_PLUGIN_E_INVALID, C untouched. */
static void test_invalid(void) {
  static const egpu_policy bad_policy = {64, 64, 16, 4, 4, 3, 1, 16, 16};
  fixture f;
  olc_plugin_exec_args short_args;
  const int32_t no = OLC_PLUGIN_E_INVALID;
  const olc_plugin_workload *w = &g_workload.w;
  NEED_POLICIES();
  fixture_open(&f);
  f.in[1].dims[0] = 4;
  expect(&f, g_policies[0], &f.args, w, no, "do not fit");
  f.in[1] = tensor_of(&f.b);
  f.out.dims[1] = 5;
  expect(&f, g_policies[0], &f.args, w, no, "do not fit");
  f.out.dims[1] = 6, f.out.dims[0] = 9;
  expect(&f, g_policies[0], &f.args, w, no, "do not fit");
  f.out = tensor_of(&f.c);
  f.args.input_count = 1;
  expect(&f, g_policies[0], &f.args, w, no, "two inputs");
  f.args.input_count = 2, f.args.output_count = 0;
  expect(&f, g_policies[0], &f.args, w, no, "two inputs");
  f.args.output_count = 1, f.args.inputs = NULL;
  expect(&f, g_policies[0], &f.args, w, no, "two inputs");
  f.args.inputs = f.in;
  expect(&f, g_policies[0], NULL, w, no, "two inputs");
  short_args = f.args;
  short_args.struct_size = 16; /* ends before the operands */
  expect(&f, g_policies[0], &short_args, w, no, "two inputs");
  f.in[0].data = NULL;
  expect(&f, g_policies[0], &f.args, w, no, "operand A is missing");
  f.in[0] = tensor_of(&f.a);
  f.in[1].strides[0] = -6;
  expect(&f, g_policies[0], &f.args, w, no, "stride -6");
  f.in[1] = tensor_of(&f.b);
  f.out.strides[0] = INT64_MAX / 2;
  expect(&f, g_policies[0], &f.args, w, no, "overflows");
  f.out = tensor_of(&f.c);
  f.in[0].dims[0] = 0;
  expect(&f, g_policies[0], &f.args, w, no, "operand A: dimension 0 is 0");
  f.in[0] = tensor_of(&f.a);
  f.in[1].rank = 0;
  expect(&f, g_policies[0], &f.args, w, no, "rank 0");
  f.in[1] = tensor_of(&f.b);
  f.args.alpha = 1e300;
  expect(&f, g_policies[0], &f.args, w, no, "float range");
  f.args.alpha = 1.0;
  expect(&f, NULL, &f.args, w, no, "no policy");
  expect(&f, &bad_policy, &f.args, w, no, "vec=3");
  fixture_close(&f);
}

/* ---- threads ----------------------------------------------------------- */

#define EXEC_THREADS 8
#define EXEC_ITERATIONS 16
/* The first few policies only: the fresh instance compiles each again. */
#define THREAD_POLICIES (g_policy_count < 4 ? g_policy_count : 4)

typedef struct worker {
  pthread_t thread;
  int id;
  long bad, failed, calls;
} worker;

static void *exec_worker(void *arg) {
  worker *w = arg;
  int it;
  for (it = 0; it < EXEC_ITERATIONS; it++) {
    /* All threads on the same policy at about the same time: one program,
     * one set of kernels, built by whichever thread comes first. */
    int p = it % THREAD_POLICIES;
    size_t s = (size_t)(w->id + it) % (sizeof g_shapes / sizeof g_shapes[0]);
    const double *ab = g_scalars[(w->id + it) % 4];
    long bad = run_case(g_policies[p], g_texts[p], g_shapes[s], g_pads[(w->id + it) % 3], ab[0],
                        ab[1], (uint32_t)(w->id * 100 + it));
    if (bad < 0)
      w->failed++;
    else
      w->bad += bad;
    w->calls++;
  }
  return NULL;
}

/* run on a prepared state meanwhile: execute must be safe alongside it. */
typedef struct runner {
  pthread_t thread;
  void *state;
  harness_workload hw;
  long failed, calls;
} runner;

static void *run_worker(void *arg) {
  runner *r = arg;
  int it;
  for (it = 0; it < EXEC_ITERATIONS; it++) {
    if (g_table->run(g_inst, &r->hw.w, r->state, g_policies[it % THREAD_POLICIES]) != OLC_PLUGIN_OK)
      r->failed++;
    r->calls++;
  }
  return NULL;
}

/* On a fresh instance, so the threads also fill its program cache at once. */
static void test_threads(void) {
  worker w[EXEC_THREADS];
  runner r;
  egpu_instance *shared = g_inst;
  void *fresh = NULL;
  int i, started = 0;
  NEED_POLICIES();
  memset(w, 0, sizeof w);
  memset(&r, 0, sizeof r);
  CU_ASSERT_EQUAL_FATAL(g_table->create(&harness_host, NULL, 0, 1, &fresh), OLC_PLUGIN_OK);
  g_inst = fresh;
  harness_matmul(&r.hw, "float32", 96, 80, 72);
  CU_ASSERT_EQUAL_FATAL(g_table->prepare(g_inst, &r.hw.w, &r.state), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL_FATAL(pthread_create(&r.thread, NULL, run_worker, &r), 0);
  for (i = 0; i < EXEC_THREADS; i++) {
    w[i].id = i;
    if (pthread_create(&w[i].thread, NULL, exec_worker, &w[i]) == 0)
      started++;
  }
  CU_ASSERT_EQUAL(started, EXEC_THREADS);
  for (i = 0; i < started; i++)
    pthread_join(w[i].thread, NULL);
  pthread_join(r.thread, NULL);
  g_table->unprepare(g_inst, r.state);
  g_table->destroy(fresh);
  g_inst = shared;
  for (i = 0; i < started; i++) {
    CU_ASSERT_EQUAL(w[i].calls, EXEC_ITERATIONS);
    CU_ASSERT_EQUAL(w[i].failed, 0);
    CU_ASSERT_EQUAL(w[i].bad, 0);
  }
  CU_ASSERT_EQUAL(r.calls, EXEC_ITERATIONS);
  CU_ASSERT_EQUAL(r.failed, 0);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  void *inst = NULL;
  int32_t rc;
  int result, i;
  g_table = harness_load(EGPU_PLUGIN_PATH, &g_handle);
  if (g_table == NULL) {
    fprintf(stderr, "cannot load %s\n", EGPU_PLUGIN_PATH);
    return 1;
  }
  rc = g_table->create(&harness_host, NULL, 0, 1, &inst);
  if (rc == OLC_PLUGIN_E_UNAVAILABLE) {
    fprintf(stderr, "skipped: %s\n", harness_last_error.message);
    return 77;
  }
  if (rc != OLC_PLUGIN_OK) {
    fprintf(stderr, "create failed (%d): %s\n", (int)rc, harness_last_error.message);
    return 1;
  }
  g_inst = inst;
  harness_matmul(&g_workload, "float32", 64, 64, 64);
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("example_gpu_execute", NULL, NULL);
  CU_add_test(s, "collect", collect_all);
  CU_add_test(s, "table", test_table);
  CU_add_test(s, "every_candidate", test_every_candidate);
  CU_add_test(s, "alpha_beta", test_alpha_beta);
  CU_add_test(s, "alpha_zero", test_alpha_zero);
  CU_add_test(s, "inputs_alias", test_inputs_alias);
  CU_add_test(s, "refused", test_refused);
  CU_add_test(s, "invalid", test_invalid);
  CU_add_test(s, "threads", test_threads);
  CU_add_test(s, "messages_unprefixed", harness_test_messages_unprefixed);
  result = olc_test_run(argc, argv);
  for (i = 0; i < g_policy_count; i++)
    g_table->release_policy(g_inst, g_policies[i]);
  g_table->destroy(g_inst);
  return result;
}
