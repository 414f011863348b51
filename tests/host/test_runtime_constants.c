/*
 * tests/host/test_runtime_constants.c - constant inputs of a bound
 * workload (olc_workload version 2) and olc_binding_execute, against
 * mock_det, which packs B (a dense copy tagged with its policy) and counts
 * its pack and release_packed calls (mock_pack_counters, found with
 * dlsym):
 *
 * - bind checks the constants (input below 8, distinct, described as an
 *   execute operand, a view only for a plugin that takes views) and
 *   olc_host_select refuses a workload with constants;
 * - B is packed once over many executes, reused by each, reported by
 *   olc_binding_packed_bytes and released once with the binding; B given
 *   with other data, missing, or a selection of another key is refused;
 * - a plugin that does not pack B (pack = unsupported) is asked once and B
 *   is read in place; a failing pack fails the execute;
 * - the measurement of the binding's key sees constant_inputs, in this
 *   process and in olc-worker;
 * - 8 threads execute while olc_host_calibrate measures the key: the new
 *   selection packs again, the threads go on with the old copy until they
 *   move, and the old copy is released exactly once.  ThreadSanitizer runs
 *   it (tests/sanitize/tsan.sh);
 * - a new selection of the same policy (the calibrated record of the first
 *   candidate) executes with the copy packed before.
 */
#include <CUnit/CUnit.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime_util.h"

#define N 4 /* every product is N x N x N */

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("runtime_constants");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

/* mock_det's counters (mock_plugin.c), once a host has loaded it. */
enum { PACKS, RELEASES, BAD_RELEASES, PACKED_READS, PACK_CALLS, COUNTERS };

static void counters(uint64_t out[COUNTERS]) {
  char path[PATH_MAX];
  void *lib;
  void (*fn)(uint64_t *);
  CU_ASSERT_FATAL(realpath(OLC_MOCK_PLUGIN_ROOT "/good/mock_det.so", path) != NULL);
  lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  CU_ASSERT_PTR_NOT_NULL_FATAL(lib);
  *(void **)&fn = dlsym(lib, "mock_pack_counters");
  CU_ASSERT_PTR_NOT_NULL_FATAL(fn);
  fn(out);
  dlclose(lib);
}

/* What changed since before. */
static void since(uint64_t d[COUNTERS], const uint64_t before[COUNTERS]) {
  int i;
  counters(d);
  for (i = 0; i < COUNTERS; i++)
    d[i] -= before[i];
}

/* The size of mock_det's packed copy of an N x N float32 B. */
#define PACKED_BYTES (24u + N * N * sizeof(float))

static olc_tensor matrix(float *data, int64_t ld) {
  olc_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = OLC_DTYPE_FLOAT32;
  t.rank = 2;
  t.dims[0] = N;
  t.dims[1] = N;
  t.strides[0] = ld;
  t.strides[1] = 1;
  t.data = data;
  return t;
}

/* A MatMul N x N x N of mock_det with B (input 1) constant. */
typedef struct bound {
  rt_workload rw;
  olc_constant k;
  float b[N * N];
} bound;

static void describe(bound *x) {
  rt_matmul(&x->rw, NULL, N, N, N);
  rt_fill(x->b, N * N, 3);
  memset(&x->k, 0, sizeof x->k);
  x->k.input = 1;
  x->k.tensor = matrix(x->b, N);
  x->rw.w.constants = &x->k;
  x->rw.w.constant_count = 1;
}

/* C = A * B through the binding, B given as b_arg; checked against the
 * reference when it succeeds. */
static olc_status run(olc_binding *bd, const olc_selection *s, const bound *x,
                      const olc_tensor *b_arg, unsigned seed, olc_error *err) {
  float a[N * N], c[N * N], want[N * N];
  olc_tensor in[2], out[1];
  olc_execute_args args = OLC_EXECUTE_ARGS_INIT;
  olc_status st;
  rt_fill(a, N * N, seed);
  memset(want, 0, sizeof want);
  rt_reference(N, N, N, 1, a, N, x->b, N, 0, want, N);
  in[0] = matrix(a, N);
  in[1] = *b_arg;
  out[0] = matrix(c, N);
  args.inputs = in;
  args.input_count = 2;
  args.outputs = out;
  args.output_count = 1;
  st = olc_binding_execute(bd, s, &args, err);
  if (st == OLC_OK && memcmp(c, want, sizeof c) != 0)
    return OLC_E_INTERNAL; /* a wrong product */
  return st;
}

static void expect_bind(rt_host *h, const olc_workload *w, olc_status status, const char *needle) {
  olc_binding *b = NULL;
  olc_error err;
  CU_ASSERT_EQUAL(olc_host_bind(&b, h->s.host, w, &err), status);
  CU_ASSERT_PTR_NULL(b);
  if (strstr(err.message, needle) == NULL) {
    fprintf(stderr, "\n  \"%s\" lacks \"%s\"\n", err.message, needle);
    CU_FAIL("the message");
  }
}

static void test_bind_checks(void) {
  bound x;
  olc_constant two[2];
  const olc_selection *s = NULL;
  olc_binding *b;
  rt_host h;
  olc_error err;
  rt_open(&h, tmp, NULL, "bind.txt", NULL);
  describe(&x);
  x.k.input = OLC_EXECUTE_MAX_OPERANDS;
  expect_bind(&h, &x.rw.w, OLC_E_INVALID, "constant 0: input 8 is not below 8");
  x.k.input = 1;
  two[0] = two[1] = x.k;
  x.rw.w.constants = two;
  x.rw.w.constant_count = 2;
  expect_bind(&h, &x.rw.w, OLC_E_INVALID, "constant 1: input 1 given twice");
  x.rw.w.constant_count = OLC_EXECUTE_MAX_OPERANDS + 1;
  expect_bind(&h, &x.rw.w, OLC_E_INVALID, "9 constants (at most 8)");
  x.rw.w.constants = NULL;
  x.rw.w.constant_count = 1;
  expect_bind(&h, &x.rw.w, OLC_E_INVALID, "1 constants at a null pointer");
  x.rw.w.constants = &x.k;
  x.k.tensor.rank = 9;
  expect_bind(&h, &x.rw.w, OLC_E_INVALID, "input 1: rank 9 is not 0 to 8");
  x.k.tensor = matrix(x.b, N);
  x.k.tensor.data = NULL;
  expect_bind(&h, &x.rw.w, OLC_E_INVALID, "input 1: data is a null pointer");
  /* A transposed B is a view: mock_det does not take views. */
  x.k.tensor = matrix(x.b, 1);
  x.k.tensor.strides[1] = N;
  expect_bind(&h, &x.rw.w, OLC_E_UNSUPPORTED,
              "input 1 is a view (strides not row-major): plugin mock_det does not take views");
  /* olc_host_select shares its bindings: never one with constants. */
  x.k.tensor = matrix(x.b, N);
  CU_ASSERT_EQUAL(olc_host_select(&s, h.s.host, &x.rw.w, NULL, &err), OLC_E_INVALID);
  CU_ASSERT_PTR_NULL(s);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "a workload with constants is bound with "
                                             "olc_host_bind"));
  /* The workload is fine for olc_host_bind, and without a constant its
   * binding has no packed bytes. */
  b = rt_bind(&h, &x.rw);
  CU_ASSERT_EQUAL(olc_binding_packed_bytes(b), 0);
  olc_binding_free(b);
  rt_close(&h);
}

static void test_pack_once(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  uint64_t before[COUNTERS], d[COUNTERS];
  olc_tensor zero, other;
  float b2[N * N];
  bound x;
  rt_workload rw_other;
  olc_binding *b, *b_other;
  const olc_selection *s, *s_other;
  rt_host h;
  olc_error err;
  int i;
  rt_open(&h, tmp, NULL, "once.txt", NULL);
  describe(&x);
  b = rt_bind(&h, &x.rw);
  OLC_ASSERT_OK(olc_binding_select(&s, b, &on_miss, &err), &err);
  /* Counted from here: the calibration's numerical check packs B for each
   * candidate it executes (and releases it), which is not the binding's. */
  counters(before);
  CU_ASSERT_EQUAL(olc_binding_packed_bytes(b), 0); /* packed on the first execute */
  memset(&zero, 0, sizeof zero);
  for (i = 0; i < 100; i++) {
    /* B given as a zeroed tensor or as bound; the selection given or not. */
    olc_status st = run(b, i % 2 ? s : NULL, &x, i % 3 ? &zero : &x.k.tensor, (unsigned)i, &err);
    if (st != OLC_OK) {
      fprintf(stderr, "\n  execute %d: %s: %s\n", i, olc_status_name(st), err.message);
      CU_FAIL("execute");
      break;
    }
  }
  since(d, before);
  CU_ASSERT_EQUAL(d[PACKS], 1);
  CU_ASSERT_EQUAL(d[PACK_CALLS], 1);
  CU_ASSERT_EQUAL(d[PACKED_READS], 100);
  CU_ASSERT_EQUAL(d[RELEASES], 0);
  CU_ASSERT_EQUAL(olc_binding_packed_bytes(b), PACKED_BYTES);
  /* B with other data (another pointer, or the bound one described
   * otherwise), or missing: refused before anything runs. */
  memcpy(b2, x.b, sizeof b2);
  other = matrix(b2, N);
  CU_ASSERT_EQUAL(run(b, s, &x, &other, 1, &err), OLC_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "input 1 is a constant of the binding: give it with "
                                             "data NULL or as bound, not with other data"));
  other = matrix(x.b, N);
  other.dims[0] = N - 1;
  CU_ASSERT_EQUAL(run(b, s, &x, &other, 1, &err), OLC_E_INVALID);
  {
    olc_execute_args args = OLC_EXECUTE_ARGS_INIT;
    float a[N * N], c[N * N];
    olc_tensor in[1], out[1];
    in[0] = matrix(a, N);
    out[0] = matrix(c, N);
    args.inputs = in;
    args.input_count = 1;
    args.outputs = out;
    args.output_count = 1;
    CU_ASSERT_EQUAL(olc_binding_execute(b, s, &args, &err), OLC_E_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "input 1 is a constant of the binding, but only 1"));
  }
  /* A selection of another key. */
  rt_matmul(&rw_other, NULL, N + 1, N, N);
  b_other = rt_bind(&h, &rw_other);
  /* Never mode: the policy of the nearest measured workload (b's). */
  CU_ASSERT_EQUAL(olc_binding_select(&s_other, b_other, NULL, &err), OLC_NEAREST_RECORD);
  CU_ASSERT_EQUAL(run(b, s_other, &x, &zero, 1, &err), OLC_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "the selection is not one of this binding's key"));
  CU_ASSERT_EQUAL(olc_binding_execute(NULL, s, NULL, &err), OLC_E_INVALID);
  since(d, before);
  CU_ASSERT_EQUAL(d[PACK_CALLS], 1);
  /* The copy goes with the binding. */
  olc_binding_free(b);
  olc_binding_free(b_other);
  since(d, before);
  CU_ASSERT_EQUAL(d[RELEASES], 1);
  CU_ASSERT_EQUAL(d[BAD_RELEASES], 0);
  rt_close(&h);
}

/* pack = unsupported: asked once, B read in place on every call;
 * pack = fail: the execute fails with the plugin's message. */
static void test_pack_refused(void) {
  uint64_t before[COUNTERS], d[COUNTERS];
  olc_tensor zero;
  bound x;
  olc_binding *b;
  rt_host h;
  olc_error err;
  int i;
  memset(&zero, 0, sizeof zero);
  rt_open(&h, tmp, NULL, "unsupported.txt", "[plugin.mock_det]\npack = unsupported\n");
  describe(&x);
  b = rt_bind(&h, &x.rw);
  counters(before);
  for (i = 0; i < 20; i++)
    OLC_ASSERT_OK(run(b, NULL, &x, &zero, (unsigned)i, &err), &err);
  since(d, before);
  CU_ASSERT_EQUAL(d[PACK_CALLS], 1);
  CU_ASSERT_EQUAL(d[PACKS], 0);
  CU_ASSERT_EQUAL(d[PACKED_READS], 0);
  CU_ASSERT_EQUAL(olc_binding_packed_bytes(b), 0);
  olc_binding_free(b);
  rt_close(&h);

  rt_open(&h, tmp, NULL, "fail.txt", "[plugin.mock_det]\npack = fail\n");
  b = rt_bind(&h, &x.rw);
  CU_ASSERT_EQUAL(run(b, NULL, &x, &zero, 1, &err), OLC_E_PLUGIN);
  CU_ASSERT_STRING_EQUAL(err.message, "plugin mock_det: pack failed on purpose");
  CU_ASSERT_EQUAL(olc_binding_packed_bytes(b), 0);
  olc_binding_free(b);
  rt_close(&h);
}

/* The measurement of a binding with constants sees which inputs are (the
 * plugin packs them outside the timed run): in this process and in
 * olc-worker.  mock_det's prepare fails unless constant_inputs is 2. */
static void test_measured_as_constant(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  static const char *const extra[2] = {"[plugin.mock_det]\nconstants = 2\n",
                                       "isolation = true\n[plugin.mock_det]\nconstants = 2\n"};
  int i;
  for (i = 0; i < 2; i++) {
    const olc_selection *s = NULL;
    olc_binding *b;
    bound x;
    rt_host h;
    olc_error err;
    rt_open(&h, tmp, NULL, i == 0 ? "measured.txt" : "measured_worker.txt", extra[i]);
    describe(&x);
    b = rt_bind(&h, &x.rw);
    OLC_ASSERT_OK(olc_binding_select(&s, b, &on_miss, &err), &err);
    CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
    olc_binding_free(b);
    rt_close(&h);
  }
}

/* ------------------------------------------------ a new selection, 8 threads */

#define THREADS 8

typedef struct shared {
  olc_binding *b;
  const bound *x;
  atomic_int stop;
  atomic_int failures;
  atomic_long calls;
} shared;

static void *executor(void *arg) {
  shared *sh = arg;
  olc_tensor zero;
  unsigned seed = 0;
  memset(&zero, 0, sizeof zero);
  while (!atomic_load(&sh->stop)) {
    olc_error err;
    olc_status st = run(sh->b, NULL, sh->x, &zero, seed++, &err);
    if (st != OLC_OK) {
      fprintf(stderr, "\n  execute: %s: %s\n", olc_status_name(st), err.message);
      atomic_fetch_add(&sh->failures, 1);
      break;
    }
    atomic_fetch_add(&sh->calls, 1);
  }
  return NULL;
}

/* Waits (at most 120 s) until mock_det has packed `want` copies since
 * before; 1 when it has. */
static int wait_packs(const uint64_t before[COUNTERS], uint64_t want) {
  int i;
  for (i = 0; i < 120000; i++) {
    uint64_t d[COUNTERS];
    struct timespec ms = {0, 1000000};
    since(d, before);
    if (d[PACKS] >= want)
      return 1;
    nanosleep(&ms, NULL);
  }
  return 0;
}

static void test_repack_while_executing(void) {
  olc_calibrate_options co = OLC_CALIBRATE_OPTIONS_INIT;
  uint64_t before[COUNTERS], d[COUNTERS];
  olc_calibration *cal = NULL;
  pthread_t t[THREADS];
  shared sh;
  bound x;
  rt_host h;
  olc_error err;
  int i;
  /* Never mode: the threads start on the first candidate; calibrating the
   * configured twin of the binding's workload stores a record, which the
   * threads' selects find (a new selection). */
  rt_open(&h, tmp, NULL, "threads.txt",
          "[plugin.mock_det]\ncandidates = 40,10,20\n"
          "[workload.w]\nbackend = mock_det\noperator = MatMul\ndtype = float32\n"
          "m = 4\nn = 4\nk = 4\n");
  describe(&x);
  memset(&sh, 0, sizeof sh);
  sh.b = rt_bind(&h, &x.rw);
  sh.x = &x;
  counters(before);
  for (i = 0; i < THREADS; i++)
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, executor, &sh), 0);
  CU_ASSERT(wait_packs(before, 1));
  co.recalibrate = 1;
  co.in_process = 1;
  OLC_ASSERT_OK(olc_host_calibrate(&cal, h.s.host, &co, &err), &err);
  CU_ASSERT_EQUAL(olc_calibration_count(cal), 1);
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 0)->status, OLC_OK);
  olc_calibration_free(cal);
  CU_ASSERT(wait_packs(before, 2));
  atomic_store(&sh.stop, 1);
  for (i = 0; i < THREADS; i++)
    CU_ASSERT_EQUAL(pthread_join(t[i], NULL), 0);
  CU_ASSERT_EQUAL(atomic_load(&sh.failures), 0);
  since(d, before);
  CU_ASSERT_EQUAL(d[PACKS], 2);    /* the first candidate's copy, then the record's */
  CU_ASSERT_EQUAL(d[RELEASES], 1); /* the old copy, once its last call ended */
  CU_ASSERT_EQUAL(d[BAD_RELEASES], 0);
  CU_ASSERT_EQUAL(d[PACKED_READS], (uint64_t)atomic_load(&sh.calls));
  CU_ASSERT_EQUAL(olc_binding_packed_bytes(sh.b), PACKED_BYTES);
  olc_binding_free(sh.b);
  since(d, before);
  CU_ASSERT_EQUAL(d[RELEASES], 2);
  CU_ASSERT_EQUAL(d[BAD_RELEASES], 0);
  rt_close(&h);
}

/* A calibration that keeps the policy gives a new selection (a record
 * instead of the first candidate), but the same policy: the copy packed
 * for the first one serves it, nothing is packed again or released. */
static void test_same_policy_keeps_copy(void) {
  olc_calibrate_options co = OLC_CALIBRATE_OPTIONS_INIT;
  uint64_t before[COUNTERS], d[COUNTERS];
  olc_calibration *cal = NULL;
  const olc_selection *first, *stored;
  olc_tensor zero;
  bound x;
  rt_host h;
  olc_binding *b;
  olc_error err;
  rt_open(&h, tmp, NULL, "same.txt",
          "[plugin.mock_det]\ncandidates = 40\n"
          "[workload.w]\nbackend = mock_det\noperator = MatMul\ndtype = float32\n"
          "m = 4\nn = 4\nk = 4\n");
  describe(&x);
  b = rt_bind(&h, &x.rw);
  memset(&zero, 0, sizeof zero);
  counters(before);
  CU_ASSERT_EQUAL(olc_binding_select(&first, b, NULL, &err), OLC_FIRST_CANDIDATE);
  OLC_ASSERT_OK(run(b, NULL, &x, &zero, 1, &err), &err);
  co.recalibrate = 1;
  co.in_process = 1;
  OLC_ASSERT_OK(olc_host_calibrate(&cal, h.s.host, &co, &err), &err);
  CU_ASSERT_EQUAL(olc_calibration_count(cal), 1);
  olc_calibration_free(cal);
  counters(before); /* the calibration's check packs its own copies */
  OLC_ASSERT_OK(olc_binding_select(&stored, b, NULL, &err), &err);
  CU_ASSERT_PTR_NOT_EQUAL(stored, first);
  OLC_ASSERT_OK(run(b, NULL, &x, &zero, 2, &err), &err);
  OLC_ASSERT_OK(run(b, stored, &x, &zero, 3, &err), &err);
  OLC_ASSERT_OK(run(b, first, &x, &zero, 4, &err), &err);
  since(d, before);
  CU_ASSERT_EQUAL(d[PACK_CALLS], 0);
  CU_ASSERT_EQUAL(d[RELEASES], 0);
  CU_ASSERT_EQUAL(d[PACKED_READS], 3);
  CU_ASSERT_EQUAL(olc_binding_packed_bytes(b), PACKED_BYTES);
  olc_binding_free(b);
  since(d, before);
  CU_ASSERT_EQUAL(d[RELEASES], 1);
  CU_ASSERT_EQUAL(d[BAD_RELEASES], 0);
  rt_close(&h);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("runtime_constants", setup, teardown);
  CU_add_test(s, "bind checks the constants; olc_host_select refuses them", test_bind_checks);
  CU_add_test(s, "packed once, reused, released with the binding", test_pack_once);
  CU_add_test(s, "a plugin that does not pack, or fails to", test_pack_refused);
  CU_add_test(s, "measured with constant_inputs, in process and in olc-worker",
              test_measured_as_constant);
  CU_add_test(s, "a new selection packs again while 8 threads execute",
              test_repack_while_executing);
  CU_add_test(s, "a new selection of the same policy keeps the copy", test_same_policy_keeps_copy);
  return olc_test_run(argc, argv);
}
