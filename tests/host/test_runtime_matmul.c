/*
 * tests/host/test_runtime_matmul.c - plugin ABI 1.5 matmul_f32: the host
 * hands a plain MatMul (float32 row-major matrices that fit together, C
 * apart, nothing packed) to the plugin's matmul_f32 instead of describing
 * the operands to execute.  Against mock_mm (mock_det with matmul_f32 and
 * views), whose calls of each entry mock_call_counters counts:
 * - olc_selection_matmul_f32, olc_selection_execute and
 *   olc_binding_execute with plain operands reach matmul_f32 alone, with
 *   the reference's result;
 * - everything else reaches execute: a transposed view, operands that do
 *   not fit together (the plugin's message), a constant B;
 * - what the host refuses (an output overlapping an input) reaches
 *   neither, and C is untouched;
 * - a failing matmul_f32's message reaches the caller;
 * - a plugin without matmul_f32 (mock_det) keeps execute.
 */
#include <CUnit/CUnit.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_util.h"

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("runtime_matmul");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

#define N 6

/* Calls of execute ([0]) and matmul_f32 ([1]) in plugin stem of scenario
 * since before (before NULL: the totals). */
static void calls(uint64_t out[2], const char *scenario, const char *stem) {
  char path[PATH_MAX], rel[PATH_MAX];
  void *lib;
  void (*fn)(uint64_t *);
  snprintf(rel, sizeof rel, "%s/%s/%s.so", OLC_MOCK_PLUGIN_ROOT, scenario, stem);
  CU_ASSERT_FATAL(realpath(rel, path) != NULL);
  lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  CU_ASSERT_PTR_NOT_NULL_FATAL(lib);
  *(void **)&fn = dlsym(lib, "mock_call_counters");
  CU_ASSERT_PTR_NOT_NULL_FATAL(fn);
  fn(out);
  dlclose(lib);
}

/* Which entries were called since before: execute, matmul_f32. */
static void expect_calls(const uint64_t before[2], const char *scenario, const char *stem,
                         uint64_t executes, uint64_t matmuls, const char *what) {
  uint64_t now[2];
  calls(now, scenario, stem);
  if (now[0] - before[0] != executes || now[1] - before[1] != matmuls) {
    fprintf(stderr, "\n  %s: %llu execute, %llu matmul_f32 calls; want %llu and %llu\n", what,
            (unsigned long long)(now[0] - before[0]), (unsigned long long)(now[1] - before[1]),
            (unsigned long long)executes, (unsigned long long)matmuls);
    CU_FAIL("the entry the host called");
  }
}

static olc_tensor matrix(float *data, int64_t rows, int64_t cols, int64_t ld) {
  olc_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = OLC_DTYPE_FLOAT32;
  t.rank = 2;
  t.dims[0] = rows, t.dims[1] = cols;
  t.strides[0] = ld, t.strides[1] = 1;
  t.data = data;
  return t;
}

/* Operands of an N x N x N product, C's leading dimension ldc, and the
 * reference's result for alpha 1.5, beta 0.5. */
typedef struct operands {
  float a[N * N], b[N * N], c[N * (N + 2)], want[N * (N + 2)];
  olc_tensor in[2], out[1];
  olc_execute_args args;
} operands;

static void operands_init(operands *o) {
  olc_execute_args init = OLC_EXECUTE_ARGS_INIT;
  rt_fill(o->a, N * N, 1);
  rt_fill(o->b, N * N, 2);
  rt_fill(o->c, N * (N + 2), 3);
  memcpy(o->want, o->c, sizeof o->c);
  rt_reference(N, N, N, 1.5f, o->a, N, o->b, N, 0.5f, o->want, N + 2);
  o->in[0] = matrix(o->a, N, N, N);
  o->in[1] = matrix(o->b, N, N, N);
  o->out[0] = matrix(o->c, N, N, N + 2);
  o->args = init;
  o->args.inputs = o->in;
  o->args.input_count = 2;
  o->args.outputs = o->out;
  o->args.output_count = 1;
  o->args.alpha = 1.5;
  o->args.beta = 0.5;
}

static void expect_product(const operands *o, const char *what) {
  if (memcmp(o->c, o->want, sizeof o->c) != 0) {
    fprintf(stderr, "\n  %s: C differs from the reference\n", what);
    CU_FAIL("the product");
  }
}

static void expect_message(const olc_error *err, const char *needle) {
  if (strstr(err->message, needle) == NULL) {
    fprintf(stderr, "\n  \"%s\" lacks \"%s\"\n", err->message, needle);
    CU_FAIL("the message");
  }
}

/* The on_miss selection of the N^3 MatMul of backend, and its binding. */
static const olc_selection *selection(rt_host *h, olc_binding **bd, const char *scenario,
                                      const char *backend, const char *extra) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  rt_workload rw;
  const olc_selection *s = NULL;
  olc_error err;
  char file[64];
  snprintf(file, sizeof file, "%s.txt", scenario);
  rt_open(h, tmp, scenario, file, extra);
  rt_matmul(&rw, backend, N, N, N);
  *bd = rt_bind(h, &rw);
  OLC_ASSERT_OK(olc_binding_select(&s, *bd, &on_miss, &err), &err);
  return s;
}

static void test_plain_reaches_matmul(void) {
  rt_host h;
  olc_binding *bd;
  const olc_selection *s = selection(&h, &bd, "matmul", "mock_mm", NULL);
  uint64_t before[2];
  operands o;
  olc_error err;
  calls(before, "matmul", "mock_mm");
  operands_init(&o);
  OLC_ASSERT_OK(olc_selection_matmul_f32(s, N, N, N, 1.5f, o.a, N, o.b, N, 0.5f, o.c, N + 2, &err),
                &err);
  expect_product(&o, "olc_selection_matmul_f32");
  expect_calls(before, "matmul", "mock_mm", 0, 1, "olc_selection_matmul_f32");
  operands_init(&o);
  OLC_ASSERT_OK(olc_selection_execute(s, &o.args, &err), &err);
  expect_product(&o, "olc_selection_execute");
  expect_calls(before, "matmul", "mock_mm", 0, 2, "olc_selection_execute");
  operands_init(&o);
  OLC_ASSERT_OK(olc_binding_execute(bd, s, &o.args, &err), &err);
  expect_product(&o, "olc_binding_execute");
  expect_calls(before, "matmul", "mock_mm", 0, 3, "olc_binding_execute");
  olc_binding_free(bd);
  rt_close(&h);
}

static void test_others_reach_execute(void) {
  rt_host h;
  olc_binding *bd;
  const olc_selection *s = selection(&h, &bd, "matmul", "mock_mm", NULL);
  uint64_t before[2];
  float at[N * N], c0[N * (N + 2)];
  operands o;
  olc_error err;
  int i, j;
  calls(before, "matmul", "mock_mm");
  /* A as the transposed view of its transpose: the same product. */
  operands_init(&o);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      at[j * N + i] = o.a[i * N + j];
  o.in[0].data = at;
  o.in[0].strides[0] = 1, o.in[0].strides[1] = N;
  OLC_ASSERT_OK(olc_selection_execute(s, &o.args, &err), &err);
  expect_product(&o, "a transposed view");
  expect_calls(before, "matmul", "mock_mm", 1, 0, "a transposed view");
  /* B of N - 1 rows: the plugin's execute says they do not fit. */
  operands_init(&o);
  o.in[1].dims[0] = N - 1;
  CU_ASSERT_EQUAL(olc_selection_execute(s, &o.args, &err), OLC_E_INVALID);
  expect_message(&err, "do not fit together");
  expect_calls(before, "matmul", "mock_mm", 2, 0, "shapes that do not fit");
  /* C over B's head: refused by the host, neither entry called. */
  operands_init(&o);
  memcpy(c0, o.c, sizeof c0);
  o.out[0] = matrix(o.b, N, N, N);
  CU_ASSERT_EQUAL(olc_selection_execute(s, &o.args, &err), OLC_E_UNSUPPORTED);
  expect_message(&err, "output 0 overlaps input 1");
  CU_ASSERT_EQUAL(olc_selection_matmul_f32(s, N, N, N, 1, o.a, N, o.b, N, 0, o.b, N, &err),
                  OLC_E_UNSUPPORTED);
  CU_ASSERT(memcmp(o.c, c0, sizeof c0) == 0);
  expect_calls(before, "matmul", "mock_mm", 2, 0, "an overlapping output");
  olc_binding_free(bd);
  rt_close(&h);
}

/* B constant: the binding packs it and execute reads the packed copy. */
static void test_constant_reaches_execute(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  rt_host h;
  rt_workload rw;
  olc_constant k;
  olc_binding *bd = NULL;
  const olc_selection *s = NULL;
  uint64_t before[2];
  operands o;
  olc_error err;
  rt_open(&h, tmp, "matmul", "constant.txt", NULL);
  operands_init(&o);
  rt_matmul(&rw, "mock_mm", N, N, N);
  memset(&k, 0, sizeof k);
  k.input = 1;
  k.tensor = o.in[1];
  rw.w.constants = &k;
  rw.w.constant_count = 1;
  OLC_ASSERT_OK(olc_host_bind(&bd, h.s.host, &rw.w, &err), &err);
  OLC_ASSERT_OK(olc_binding_select(&s, bd, &on_miss, &err), &err);
  calls(before, "matmul", "mock_mm");
  OLC_ASSERT_OK(olc_binding_execute(bd, s, &o.args, &err), &err);
  expect_product(&o, "a constant B");
  expect_calls(before, "matmul", "mock_mm", 1, 0, "a constant B");
  olc_binding_free(bd);
  rt_close(&h);
}

static void test_failure_and_older_plugins(void) {
  rt_host h;
  olc_binding *bd;
  const olc_selection *s;
  uint64_t before[2];
  operands o;
  olc_error err;
  /* [plugin.mock_mm] execute = fail fails matmul_f32 too: its message. */
  rt_open(&h, tmp, "matmul", "fail.txt", "[plugin.mock_mm]\nexecute = fail\n");
  {
    rt_workload rw;
    rt_matmul(&rw, "mock_mm", N, N, N);
    CU_ASSERT_EQUAL(olc_host_select(&s, h.s.host, &rw.w, NULL, &err), OLC_FIRST_CANDIDATE);
    calls(before, "matmul", "mock_mm");
    operands_init(&o);
    CU_ASSERT_EQUAL(olc_selection_execute(s, &o.args, &err), OLC_E_PLUGIN);
    CU_ASSERT_STRING_EQUAL(err.message, "plugin mock_mm: matmul_f32 failed on purpose");
    CU_ASSERT_EQUAL(olc_selection_matmul_f32(s, N, N, N, 1, o.a, N, o.b, N, 0, o.c, N + 2, &err),
                    OLC_E_PLUGIN);
    CU_ASSERT_STRING_EQUAL(err.message, "plugin mock_mm: matmul_f32 failed on purpose");
    expect_calls(before, "matmul", "mock_mm", 0, 2, "a failing matmul_f32");
  }
  rt_close(&h);
  /* mock_det has no matmul_f32: execute serves the plain product. */
  s = selection(&h, &bd, "good", NULL, NULL);
  calls(before, "good", "mock_det");
  operands_init(&o);
  OLC_ASSERT_OK(olc_selection_matmul_f32(s, N, N, N, 1.5f, o.a, N, o.b, N, 0.5f, o.c, N + 2, &err),
                &err);
  expect_product(&o, "mock_det");
  operands_init(&o);
  OLC_ASSERT_OK(olc_selection_execute(s, &o.args, &err), &err);
  expect_product(&o, "mock_det execute");
  expect_calls(before, "good", "mock_det", 2, 0, "mock_det");
  olc_binding_free(bd);
  rt_close(&h);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("runtime_matmul", setup, teardown);
  CU_add_test(s, "plain operands reach matmul_f32", test_plain_reaches_matmul);
  CU_add_test(s, "views, misfits and overlaps reach execute or nothing", test_others_reach_execute);
  CU_add_test(s, "a constant B reaches execute", test_constant_reaches_execute);
  CU_add_test(s, "a failing matmul_f32, a plugin without it", test_failure_and_older_plugins);
  return olc_test_run(argc, argv);
}
