/*
 * tests/runtime/test_runtime_nearest.c - the measured answer on a miss:
 * in never mode a select serves the stored policy of the nearest measured
 * workload of the same plugin, operator, processor and thread count
 * (OLC_NEAREST_RECORD, a message naming that workload), by the host's
 * default distance for a plugin without one (mock_det: log2 of m, n, k)
 * and by the plugin's own (mock_dist, ABI 1.4: linear in m); the miss is
 * still recorded; no comparable neighbour (another dtype, another thread
 * count, a plugin that refuses) gives the first candidate as before.  In
 * on_miss mode a thread that selects a key another thread is measuring gets
 * the nearest answer at once, unless it asks to wait.
 */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "runtime_util.h"

static char *tmp;

static int setup(void) { return olc_test_suite_tmpdir(&tmp, "runtime_nearest"); }

static int teardown(void) { return olc_test_suite_rmtree(&tmp); }

static int policy_is(const olc_selection *s, const char *text) {
  char buf[64];
  return strcmp(rt_policy(s, buf, sizeof buf), text) == 0;
}

/* Saves an exact calibrated record of backend's MatMul float32 m x 8 x 8
 * (the key mock_det reports: processor mock-cpu, threads) whose policy is
 * spin_us=spin, as a calibration elsewhere would have. */
static void save_measured(rt_host *h, const char *backend, long m, int64_t threads, long spin) {
  char digest[96], policy[32];
  olc_key key;
  olc_measurement ms = {OLC_MEASUREMENT_MEDIAN, 10.0, "us"};
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  olc_error err;
  memset(&key, 0, sizeof key);
  snprintf(digest, sizeof digest, "workload:dtype=float32;k=8;m=%ld;n=8", m);
  snprintf(policy, sizeof policy, "spin_us=%ld", spin);
  key.backend = backend;
  key.operator_name = "MatMul";
  key.implementation = "1";
  key.model_digest = digest;
  key.processor = "mock-cpu";
  key.thread_count = threads;
  req.key = &key;
  req.measurements = &ms;
  req.measurement_count = 1;
  req.policy = policy;
  req.policy_len = strlen(policy);
  req.levels = OLC_LEVEL_BIT_EXACT;
  OLC_ASSERT_OK(olc_store_save(h->s.store, &req, &err), &err);
}

static int file_has(const char *path, const char *text) {
  char buf[8192];
  size_t n;
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return 0;
  n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return strstr(buf, text) != NULL;
}

/* Never mode, the host's default distance: m = 24 lies nearer to 40 than
 * to 12 on a log scale (0.74 against 1); the answer names its record, the
 * miss is recorded, and a later select answers the same way. */
static void test_never_default_distance(void) {
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s, *s2;
  const olc_record *r;
  char rec[1024];
  olc_error err;
  snprintf(rec, sizeof rec, "%s/misses.txt", tmp);
  rt_open(&h, tmp, NULL, "default.txt", "record_misses = misses.txt\n");
  save_measured(&h, "mock_det", 12, 2, 12);
  save_measured(&h, "mock_det", 40, 2, 40);
  save_measured(&h, "mock_det", 24, 3, 99); /* another thread count: never served */
  rt_matmul(&rw, NULL, 24, 8, 8);
  b = rt_bind(&h, &rw);
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, NULL, &err), OLC_NEAREST_RECORD);
  CU_ASSERT_EQUAL(err.code, OLC_NEAREST_RECORD);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(err.message, "nearest measured workload 'dtype=float32;k=8;m=40;n=8'"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_PTR_NULL(olc_selection_record(s));
  r = olc_selection_nearest(s);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  CU_ASSERT_STRING_EQUAL(r->model_digest, "workload:dtype=float32;k=8;m=40;n=8");
  CU_ASSERT_TRUE(policy_is(s, "spin_us=40"));
  CU_ASSERT_EQUAL(olc_selection_why(s), OLC_E_NOT_FOUND);
  CU_ASSERT_PTR_NOT_NULL(strstr(olc_selection_message(s), "nothing stored (select mode never)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(olc_selection_message(s), "default.txt"));
  CU_ASSERT_TRUE(olc_selection_can_execute(s));
  CU_ASSERT_EQUAL(rt_measurements(&h), 0);
  /* The miss is still recorded, for olc calibrate --recorded. */
  CU_ASSERT_TRUE(file_has(rec, "m"));
  CU_ASSERT_TRUE(file_has(rec, "24"));
  /* Warm: the same answer object. */
  CU_ASSERT_EQUAL(olc_binding_select(&s2, b, NULL, NULL), OLC_NEAREST_RECORD);
  CU_ASSERT_PTR_EQUAL(s2, s);
  olc_binding_free(b);
  rt_close(&h);
}

/* Nothing comparable: another dtype (the default distance refuses text
 * that differs), or only another thread count's record: the first
 * candidate, as before. */
static void test_no_neighbour(void) {
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s;
  olc_error err;
  rt_open(&h, tmp, NULL, "none.txt", NULL);
  /* Records saved beside the host: every select looks again. */
  olc_host__set_recheck_ms(h.s.host, 0);
  save_measured(&h, "mock_det", 40, 3, 40);
  rt_matmul(&rw, NULL, 24, 8, 8);
  b = rt_bind(&h, &rw);
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, NULL, &err), OLC_FIRST_CANDIDATE);
  CU_ASSERT_PTR_NULL(olc_selection_nearest(s));
  olc_binding_free(b);
  save_measured(&h, "mock_det", 40, 2, 40);
  rt_matmul(&rw, NULL, 24, 8, 8);
  rw.props[0].value = "float16";
  b = rt_bind(&h, &rw);
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, NULL, &err), OLC_FIRST_CANDIDATE);
  CU_ASSERT_TRUE(policy_is(s, "spin_us=400"));
  CU_ASSERT_EQUAL(olc_selection_why(s), OLC_E_NOT_FOUND);
  olc_binding_free(b);
  /* force_portable: exact records are skipped, so is their neighbourhood. */
  {
    olc_select_options fp = rt_mode(OLC_SELECT_NEVER);
    fp.force_portable = 1;
    rt_matmul(&rw, NULL, 24, 8, 8);
    b = rt_bind(&h, &rw);
    CU_ASSERT_EQUAL(olc_binding_select(&s, b, &fp, &err), OLC_FIRST_CANDIDATE);
    CU_ASSERT_EQUAL(olc_binding_select(&s, b, NULL, &err), OLC_NEAREST_RECORD);
    olc_binding_free(b);
  }
  rt_close(&h);
}

/* A plugin with its own distance (ABI 1.4): linear in m, so m = 24 is
 * nearer to 12 (12 against 16); refusing every pair, the first candidate. */
static void test_plugin_distance(void) {
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s;
  olc_error err;
  rt_open(&h, tmp, "distance", "plugin.txt", NULL);
  save_measured(&h, "mock_dist", 12, 2, 12);
  save_measured(&h, "mock_dist", 40, 2, 40);
  rt_matmul(&rw, "mock_dist", 24, 8, 8);
  b = rt_bind(&h, &rw);
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, NULL, &err), OLC_NEAREST_RECORD);
  CU_ASSERT_TRUE(policy_is(s, "spin_us=12"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'dtype=float32;k=8;m=12;n=8' (distance 12.00"));
  olc_binding_free(b);
  rt_close(&h);
  rt_open(&h, tmp, "distance", "plugin.txt", "[plugin.mock_dist]\ndistance = refuse\n");
  rt_matmul(&rw, "mock_dist", 24, 8, 8);
  b = rt_bind(&h, &rw);
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, NULL, &err), OLC_FIRST_CANDIDATE);
  olc_binding_free(b);
  rt_close(&h);
}

/* A neighbour whose policy the plugin rejects is passed over for the next
 * nearest. */
static void test_invalid_neighbour(void) {
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s;
  olc_error err;
  rt_open(&h, tmp, NULL, "invalid.txt", NULL);
  save_measured(&h, "mock_det", 12, 2, 12);
  save_measured(&h, "mock_det", 40, 2, 40);
  rt_close(&h);
  /* spin_us=0 is out of mock_det's range: edit the file as a hand would. */
  {
    char path[1024], buf[8192], *at;
    size_t n;
    FILE *f;
    snprintf(path, sizeof path, "%s/invalid.txt", tmp);
    f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    at = strstr(buf, "spin_us=40");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    memcpy(at, "spin_us=0 ", 10);
    f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(buf, 1, n, f);
    fclose(f);
  }
  rt_open(&h, tmp, NULL, "invalid.txt", NULL);
  rt_matmul(&rw, NULL, 24, 8, 8);
  b = rt_bind(&h, &rw);
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, NULL, &err), OLC_NEAREST_RECORD);
  CU_ASSERT_TRUE(policy_is(s, "spin_us=12"));
  olc_binding_free(b);
  rt_close(&h);
}

typedef struct other_select {
  olc_binding *b;
  olc_select_options o;
  olc_status st;
  const olc_selection *s;
} other_select;

typedef struct hook_ctx {
  olc_binding *b;
  other_select now, patient;
  int calls;
} hook_ctx;

static void *run_other(void *p) {
  other_select *o = p;
  o->st = olc_binding_select(&o->s, o->b, &o->o, NULL);
  return NULL;
}

/* In the measuring thread, the key claimed: a second thread selecting the
 * key gets the nearest answer without waiting (joined here, before the
 * measurement could end); one that asks to wait waits (20 ms, then the
 * first candidate, why OLC_E_TIMEOUT). */
static void on_measure(void *payload, const char *workload) {
  hook_ctx *c = payload;
  pthread_t t;
  (void)workload;
  if (c->calls++ > 0)
    return;
  c->now.b = c->b;
  c->now.o = rt_mode(OLC_SELECT_ON_MISS);
  c->now.o.timeout_ms = 60000; /* a wait would show as a test that hangs a minute, then fails */
  CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, run_other, &c->now), 0);
  pthread_join(t, NULL);
  c->patient.b = c->b;
  c->patient.o = rt_mode(OLC_SELECT_ON_MISS);
  c->patient.o.timeout_ms = 20;
  c->patient.o.wait = 1;
  CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, run_other, &c->patient), 0);
  pthread_join(t, NULL);
}

static void test_on_miss_other_thread(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  hook_ctx c;
  rt_host h;
  rt_workload rw;
  const olc_selection *s;
  olc_error err;
  memset(&c, 0, sizeof c);
  rt_open(&h, tmp, NULL, "on_miss.txt", NULL);
  save_measured(&h, "mock_det", 12, 2, 12);
  rt_matmul(&rw, NULL, 24, 8, 8);
  c.b = rt_bind(&h, &rw);
  olc_host__set_measure_hook(h.s.host, on_measure, &c);
  OLC_ASSERT_OK(olc_binding_select(&s, c.b, &on_miss, &err), &err);
  CU_ASSERT_EQUAL(c.calls, 1);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  CU_ASSERT_EQUAL(c.now.st, OLC_NEAREST_RECORD);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c.now.s);
  CU_ASSERT_EQUAL(olc_selection_why(c.now.s), OLC_E_BUSY);
  CU_ASSERT_TRUE(policy_is(c.now.s, "spin_us=12"));
  CU_ASSERT_PTR_NOT_NULL(strstr(olc_selection_message(c.now.s), "another thread is measuring it"));
  CU_ASSERT_EQUAL(c.patient.st, OLC_FIRST_CANDIDATE);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c.patient.s);
  CU_ASSERT_EQUAL(olc_selection_why(c.patient.s), OLC_E_TIMEOUT);
  CU_ASSERT_EQUAL(rt_measurements(&h), 1);
  olc_binding_free(c.b);
  rt_close(&h);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("runtime_nearest", setup, teardown);
  CU_add_test(s, "never mode: the nearest measured workload (default distance)",
              test_never_default_distance);
  CU_add_test(s, "no comparable neighbour: the first candidate", test_no_neighbour);
  CU_add_test(s, "the plugin's own distance (ABI 1.4)", test_plugin_distance);
  CU_add_test(s, "a neighbour the plugin rejects is passed over", test_invalid_neighbour);
  CU_add_test(s, "on_miss: another thread gets the nearest answer at once",
              test_on_miss_other_thread);
  return olc_test_run(argc, argv);
}
