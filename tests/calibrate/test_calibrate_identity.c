/*
 * tests/calibrate/test_calibrate_identity.c - the identity of ini
 * workloads (issue 11 item 1) through olc_host_calibrate:
 *
 * - the case: [workload.a] m=n=k=64 and [workload.b] m=n=k=512,
 *   both `model = same.onnx`: each is measured and selects its own record
 *   ("sha256:<file>#dtype=...;k=..;m=..;n=.."), with its own policy
 *   (mock_det candidates = by_m: one of m's candidates); before, b was
 *   "selected from the store" with a's policy.  The same with one explicit
 *   model_digest.  A second run selects both, measuring nothing.
 * - a record written under the old `model =` convention (the bare digest)
 *   is reported as different_model "... (recalibrated)" and recalibrated.
 * - the records of other workloads are counted, not listed.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "olc/host.h"
#include "olc/store.h"
#include "test_support.h"

#ifndef OLC_MOCK_PLUGIN_ROOT
#error "OLC_MOCK_PLUGIN_ROOT must be defined"
#endif

/* SHA-256 of the three bytes "abc" (the model file's content). */
#define ABC "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

static char *tmp;

static int setup(void) {
  char *model;
  tmp = olc_test_tmpdir("calibrate_identity");
  if (tmp == NULL)
    return 1;
  model = olc_test_path(tmp, "same.onnx");
  if (model == NULL || olc_test_write_file(model, "abc", 3) != 0)
    return 1;
  free(model);
  return 0;
}

static int teardown(void) { return olc_test_suite_rmtree(&tmp); }

/* Workloads a (64) and b (512) of one model; model is the ini line. */
static void open_two(olc_test_session *s, const char *store, const char *model) {
  char text[2048];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s/good\nthreads = 2\n[store]\npath = %s\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
                   "isolation = false\n"
                   "[plugin.mock_det]\ncandidates = by_m\n"
                   "[workload.a]\nbackend = mock_det\noperator = MatMul\n%s\n"
                   "dtype = float32\nm = 64\nn = 64\nk = 64\n"
                   "[workload.b]\nbackend = mock_det\noperator = MatMul\n%s\n"
                   "dtype = float32\nm = 512\nn = 512\nk = 512\n",
                   OLC_MOCK_PLUGIN_ROOT, store, model, model);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  olc_test_session_open(s, tmp, text, (size_t)n);
}

static const olc_workload_result *run(olc_calibration **cal, olc_test_session *s,
                                      const char *name) {
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  olc_error err;
  size_t i;
  if (*cal == NULL)
    OLC_ASSERT_OK(olc_host_calibrate(cal, s->host, &opt, &err), &err);
  for (i = 0; i < olc_calibration_count(*cal); i++)
    if (strcmp(olc_calibration_get(*cal, i)->workload, name) == 0)
      return olc_calibration_get(*cal, i);
  CU_FAIL_FATAL("workload missing");
  return NULL;
}

static int policy_is(const olc_record *r, const char *text) {
  return r != NULL && r->policy_len == strlen(text) && memcmp(r->policy, text, r->policy_len) == 0;
}

/* One of by_m's candidates for m (3m + 300, m, 2m + 100; the race picks
 * spin_us=m unless a loaded machine makes it a tie): never another
 * shape's. */
static int policy_of_m(const olc_record *r, long m) {
  const long v[3] = {m, 3 * m + 300, 2 * m + 100};
  char want[32];
  int i;
  for (i = 0; i < 3; i++) {
    snprintf(want, sizeof want, "spin_us=%ld", v[i]);
    if (policy_is(r, want))
      return 1;
  }
  return 0;
}

static void test_two_shapes(void) {
  static const char *const models[2] = {"model = same.onnx", "model_digest = " ABC};
  olc_test_session s;
  olc_calibration *cal = NULL;
  const olc_workload_result *a, *b;
  int i, pass;
  for (i = 0; i < 2; i++)
    for (pass = 0; pass < 2; pass++) {
      open_two(&s, i == 0 ? "file.txt" : "digest.txt", models[i]);
      a = run(&cal, &s, "a");
      b = run(&cal, &s, "b");
      CU_ASSERT_EQUAL(a->status, OLC_OK);
      CU_ASSERT_EQUAL(b->status, OLC_OK);
      CU_ASSERT_EQUAL(a->calibrated_now, pass == 0);
      CU_ASSERT_EQUAL(b->calibrated_now, pass == 0);
      CU_ASSERT_PTR_NOT_NULL_FATAL(a->selected);
      CU_ASSERT_PTR_NOT_NULL_FATAL(b->selected);
      CU_ASSERT_EQUAL(a->selected->level, OLC_LEVEL_EXACT);
      CU_ASSERT_EQUAL(b->selected->level, OLC_LEVEL_EXACT);
      CU_ASSERT_STRING_EQUAL(a->selected->model_digest, ABC "#dtype=float32;k=64;m=64;n=64");
      CU_ASSERT_STRING_EQUAL(b->selected->model_digest, ABC "#dtype=float32;k=512;m=512;n=512");
      CU_ASSERT_TRUE(policy_of_m(a->selected, 64));
      CU_ASSERT_TRUE(policy_of_m(b->selected, 512));
      /* a's records are b's other workload: counted, not listed. */
      CU_ASSERT_EQUAL(b->unlisted_count, 2);
      CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(b->lookup), 1); /* its portable, shadowed */
      olc_calibration_free(cal);
      cal = NULL;
      olc_test_session_close(&s);
    }
}

/* A record of the old convention: exact, digest = the bare model digest. */
static void test_legacy(void) {
  olc_measurement m = {"median_latency", 1.0, "us"};
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  olc_test_session s;
  olc_calibration *cal = NULL;
  const olc_workload_result *a;
  olc_key key;
  olc_error err;
  size_t i, found = 0;
  open_two(&s, "legacy.txt", "model = same.onnx");
  memset(&key, 0, sizeof key);
  key.backend = "mock_det";
  key.operator_name = "MatMul";
  key.implementation = "1";
  key.model_digest = ABC;
  key.processor = "mock-cpu";
  key.thread_count = 2;
  req.key = &key;
  req.measurements = &m;
  req.measurement_count = 1;
  req.policy = "spin_us=48";
  req.policy_len = 10;
  OLC_ASSERT_OK(olc_store_save(s.store, &req, &err), &err);
  a = run(&cal, &s, "a");
  CU_ASSERT_EQUAL(a->status, OLC_OK);
  CU_ASSERT_TRUE(a->calibrated_now);
  CU_ASSERT_TRUE(policy_of_m(a->selected, 64));
  for (i = 0; i < olc_lookup_result_rejected_count(a->lookup); i++) {
    const olc_rejection *r = olc_lookup_result_rejected(a->lookup, i);
    if (r->reason == OLC_REASON_DIFFERENT_MODEL && policy_is(r->record, "spin_us=48") &&
        strcmp(r->message, "recorded for model \"" ABC
                           "\" before records were per workload (recalibrated)") == 0)
      found++;
  }
  CU_ASSERT_EQUAL(found, 1);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("calibrate_identity", setup, teardown);
  CU_add_test(s, "two shapes of one model", test_two_shapes);
  CU_add_test(s, "a record of the old convention", test_legacy);
  return olc_test_run(argc, argv);
}
