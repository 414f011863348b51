/*
 * tests/calibrate/test_numcheck_onnx.c - the numerical check makes the
 * operands ONNX MatMul and Gemm take (calibrate/check.h) for every dtype
 * and layout, against mock_onnx (tests/plugins/mock_onnx.c), which
 * computes them plainly and declares no tolerance row (the host's
 * defaults apply).  Its candidates are spin_us = 2000, 100, 200, 4000;
 * with [plugin.mock_onnx] wrong = 100 the fastest one is wrong in the way
 * wrong_kind says, and must be rejected as numerical_mismatch within the
 * dtype's default tolerance while the right ones pass the check (the
 * next fastest, spin_us=200, is selected, checked).  Without the check's
 * operands for a dtype or for Gemm the workload would be "not checked"
 * and the wrong one would win.
 *
 * Also: a plugin without OLC_PLUGIN_FEATURE_VIEWS is never handed a
 * transposed view (not checked) and gets a scalar C as one element of
 * rank 1; a constant input (constant_inputs) is packed for each candidate
 * and executed packed, so a wrong packed copy is caught, and every packed
 * copy is released.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/calibrate.h"
#include "calibrate/check.h"
#include "host/host.h"
#include "olc/host.h"
#include "olc/store.h"
#include "plugins/plugins.h"
#include "test_support.h"
#include "util/arena.h"

#ifndef OLC_MOCK_PLUGIN_ROOT
#error "OLC_MOCK_PLUGIN_ROOT must be defined"
#endif

static char *tmp;

/* Calibrates one workload of backend (in scenario directory backend minus
 * "mock_") with [plugin] wrong = 100 of wrong_kind (or none with wrong
 * NULL), the workload's operator and property lines. */
static const olc_workload_result *calibrate(olc_test_session *s, olc_calibration **cal,
                                            const char *backend, const char *wrong_kind,
                                            const char *operator_name, const char *props,
                                            const char *calibration) {
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  char text[2048];
  olc_error err;
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s/%s\nthreads = 1\n"
                   "[store]\npath = profiles.txt\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.002\n%s"
                   "[plugin.%s]\ncandidates = 2000,100,200,4000\nwrong = %s\nwrong_kind = %s\n"
                   "[workload.w]\nbackend = %s\noperator = %s\nm = 8\nn = 24\nk = 37\n%s",
                   OLC_MOCK_PLUGIN_ROOT, backend + 5, calibration, backend,
                   wrong_kind != NULL ? "100" : "0", wrong_kind != NULL ? wrong_kind : "tail",
                   backend, operator_name, props);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  olc_test_rmtree(tmp);
  free(tmp);
  tmp = olc_test_tmpdir("numcheck_onnx");
  CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
  olc_test_session_open(s, tmp, text, (size_t)n);
  opt.recalibrate = 1;
  OLC_ASSERT_OK(olc_host_calibrate(cal, s->host, &opt, &err), &err);
  CU_ASSERT_EQUAL_FATAL(olc_calibration_count(*cal), 1u);
  return olc_calibration_get(*cal, 0);
}

static int policy_is(const unsigned char *p, size_t len, const char *text) {
  return p != NULL && len == strlen(text) && memcmp(p, text, len) == 0;
}

static const olc_candidate_result *candidate(const olc_workload_result *r, const char *policy) {
  size_t i;
  for (i = 0; i < r->candidate_count; i++)
    if (policy_is(r->candidates[i].policy, r->candidates[i].policy_len, policy))
      return &r->candidates[i];
  return NULL;
}

/* The wrong candidate rejected within tolerance (a message part such as
 * "> atol 0.01 + rtol 0.01*|ref|"), every right one timed checked, the
 * next fastest selected; or, with tolerance NULL (nothing wrong), every
 * candidate checked and the fastest selected. */
static void expect(const char *wrong_kind, const char *operator_name, const char *props,
                   const char *tolerance, const char *calibration) {
  olc_test_session s;
  olc_calibration *cal = NULL;
  const olc_workload_result *r =
      calibrate(&s, &cal, "mock_onnx", wrong_kind, operator_name, props, calibration);
  const olc_candidate_result *bad = candidate(r, "spin_us=100");
  size_t i;
  CU_ASSERT_EQUAL(r->status, OLC_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
  if (tolerance != NULL) {
    CU_ASSERT(policy_is(r->selected->policy, r->selected->policy_len, "spin_us=200"));
    CU_ASSERT_EQUAL(bad->status, OLC_E_MISMATCH);
    CU_ASSERT_FALSE(bad->checked);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bad->message);
    printf("\n  %s %s: %s", operator_name, wrong_kind, bad->message);
    CU_ASSERT_PTR_NOT_NULL(strstr(bad->message, "numerical_mismatch: |err| "));
    CU_ASSERT_PTR_NOT_NULL(strstr(bad->message, tolerance));
  } else {
    CU_ASSERT(policy_is(r->selected->policy, r->selected->policy_len, "spin_us=100"));
    CU_ASSERT_EQUAL(bad->status, OLC_OK);
  }
  for (i = 0; i < r->candidate_count; i++)
    if (&r->candidates[i] != bad || tolerance == NULL) {
      if (!r->candidates[i].checked)
        printf("\n  not checked: %s", r->candidates[i].message ? r->candidates[i].message : "");
      CU_ASSERT(r->candidates[i].samples == 0 || r->candidates[i].checked);
    }
  CU_ASSERT(candidate(r, "spin_us=200") != NULL && candidate(r, "spin_us=200")->checked);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

#define F32 "> atol 0.001 + rtol 0.001*|ref|"
#define F16 "> atol 0.01 + rtol 0.01*|ref|"
#define BF16 "> atol 0.05 + rtol 0.05*|ref|"
#define F64 "> atol 1e-09 + rtol 1e-09*|ref|"

/* MatMul of each dtype: a kernel that drops the last product of each sum. */
static void test_matmul_dtypes(void) {
  expect("tail", "MatMul", "dtype = float32\n", F32, "");
  expect("tail", "MatMul", "dtype = float16\n", F16, "");
  expect("tail", "MatMul", "dtype = bfloat16\n", BF16, "");
  expect("tail", "MatMul", "dtype = float64\n", F64, "");
  expect("tail", "MatMul", "dtype = float32\ndtype_b = float16\n", F32, "");
  expect("tail", "MatMul", "dtype = float32\ndtype_b = bfloat16\n", F32, "");
}

/* The same measured in this process. */
static void test_matmul_dtypes_in_process(void) {
  expect("tail", "MatMul", "dtype = float16\n", F16, "isolation = false\n");
  expect("tail", "MatMul", "dtype = bfloat16\n", BF16, "isolation = false\n");
}

/* Right candidates of every dtype pass (nothing rejected). */
static void test_right_accepted(void) {
  expect(NULL, "MatMul", "dtype = float16\n", NULL, "");
  expect(NULL, "MatMul", "dtype = bfloat16\n", NULL, "");
  expect(NULL, "MatMul", "dtype = float32\ndtype_b = bfloat16\n", NULL, "");
  expect(NULL, "Gemm", "dtype = float16\ntrans_a = 1\ntrans_b = 1\nbias = matrix\n", NULL, "");
  expect(NULL, "MatMul", "dtype = float32\nbatch_a = 2x1\nbatch_b = 3\n", NULL, "");
}

/* Gemm: each part of Y = alpha A'B' + beta C that a wrong kernel drops. */
static void test_gemm(void) {
  expect("tail", "Gemm", "dtype = float32\n", F32, "");
  expect("alpha", "Gemm", "dtype = float32\n", F32, "");
  expect("trans", "Gemm", "dtype = float32\ntrans_a = 1\n", F32, "");
  expect("tail", "Gemm", "dtype = float32\ntrans_b = 1\n", F32, "");
  expect("bias", "Gemm", "dtype = float32\nbias = scalar\n", F32, "");
  expect("bias", "Gemm", "dtype = float32\nbias = row\n", F32, "");
  expect("bias", "Gemm", "dtype = float32\nbias = col\n", F32, "");
  expect("bias", "Gemm", "dtype = float16\nbias = matrix\ntrans_a = 1\n", F16, "");
  expect("bias", "Gemm", "dtype = bfloat16\nbias = row\ntrans_b = 1\n", BF16, "");
}

/* Batched MatMul: the index names the batch. */
static void test_batched(void) {
  olc_test_session s;
  olc_calibration *cal = NULL;
  const olc_workload_result *r = calibrate(&s, &cal, "mock_onnx", "tail", "MatMul",
                                           "dtype = float32\nbatch_a = 2x1\nbatch_b = 3\n", "");
  const olc_candidate_result *bad = candidate(r, "spin_us=100");
  long long b = -1, i = -1, j = -1;
  const char *at;
  CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
  CU_ASSERT_EQUAL(bad->status, OLC_E_MISMATCH);
  CU_ASSERT_PTR_NOT_NULL_FATAL(bad->message);
  printf("\n  %s", bad->message);
  at = strstr(bad->message, " at C[");
  CU_ASSERT_PTR_NOT_NULL_FATAL(at);
  CU_ASSERT_EQUAL(sscanf(at, " at C[%lld,%lld,%lld]", &b, &i, &j), 3);
  CU_ASSERT(b >= 0 && b < 6 && i >= 0 && i < 8 && j >= 0 && j < 24);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* A plugin without views: a transposed operand is not handed to it (the
 * workload is not checked); a scalar C is handed as rank 1 (checked). */
static void test_no_views(void) {
  olc_test_session s;
  olc_calibration *cal = NULL;
  const olc_workload_result *r =
      calibrate(&s, &cal, "mock_onnx_plain", "tail", "Gemm", "trans_a = 1\n", "");
  size_t i;
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT(policy_is(r->selected->policy, r->selected->policy_len, "spin_us=100"));
  for (i = 0; i < r->candidate_count; i++) {
    CU_ASSERT_FALSE(r->candidates[i].checked);
    CU_ASSERT_NOT_EQUAL(r->candidates[i].status, OLC_E_UNSUPPORTED);
  }
  olc_calibration_free(cal);
  olc_test_session_close(&s);
  r = calibrate(&s, &cal, "mock_onnx_plain", "bias", "Gemm", "bias = scalar\n", "");
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT(policy_is(r->selected->policy, r->selected->policy_len, "spin_us=200"));
  CU_ASSERT_EQUAL(candidate(r, "spin_us=100")->status, OLC_E_MISMATCH);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* How many of the host's plugin log lines are "mock_onnx: WHAT SPIN". */
static unsigned traced(const olc_host *host, const char *what, unsigned spin) {
  const olc_plugin_set *set = olc_host__plugins(host);
  char want[64], line[OLC_PLUGINS_LOG_LINE_SIZE];
  unsigned n = 0;
  size_t i;
  snprintf(want, sizeof want, "mock_onnx: %s %u", what, spin);
  for (i = 0; i < olc_plugins__log_count(set); i++)
    n += olc_plugins__log_line(set, i, line, sizeof line) >= 0 && strcmp(line, want) == 0;
  return n;
}

/* Checks every candidate of a Gemm float16 workload whose B (input 1) is
 * constant or not (constants: the bits of constant_inputs); the status of
 * each of the 4 candidates into st[], checked into checked[]. */
static void check_direct(olc_test_session *s, uint32_t constants, olc_status st[4],
                         int checked[4]) {
  static const olc_plugin_kv props[] = {{"dtype", "float16"}, {"m", "8"},       {"n", "24"},
                                        {"k", "37"},          {"trans_b", "1"}, {"bias", "row"}};
  olc_plugin_workload w;
  olc_loaded_plugin *p;
  olc_policy_list list;
  olc_check_spec spec;
  olc_check c;
  olc_error err;
  size_t i;
  char text[1024];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s/onnx\nthreads = 1\n[store]\npath = profiles.txt\n"
                   "[plugin.mock_onnx]\ncandidates = 2000,100,200,4000\nwrong = 100\n"
                   "wrong_kind = packed\ntrace = 1\n",
                   OLC_MOCK_PLUGIN_ROOT);
  olc_test_rmtree(tmp);
  free(tmp);
  tmp = olc_test_tmpdir("numcheck_onnx");
  olc_test_session_open(s, tmp, text, (size_t)n);
  p = olc_plugins__find(olc_host__plugins(s->host), "mock_onnx");
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  memset(&w, 0, sizeof w);
  w.struct_size = (uint32_t)sizeof w;
  w.abi_minor = OLC_PLUGIN_ABI_MINOR;
  w.name = "w";
  w.operator_name = "Gemm";
  w.properties = props;
  w.property_count = (uint32_t)(sizeof props / sizeof props[0]);
  w.constant_inputs = constants;
  OLC_ASSERT_OK(olc_plugins__candidates(&list, p, &w, &err), &err);
  CU_ASSERT_EQUAL_FATAL(list.count, 4u);
  memset(&spec, 0, sizeof spec);
  spec.enabled = 1;
  spec.atol = spec.rtol = 1e-2;
  spec.seed = OLC_CHECK_SEED;
  spec.reference = list.serialized[0].data;
  spec.reference_len = list.serialized[0].len;
  olc_check__init(&c, p, &w, &spec);
  for (i = 0; i < 4; i++) {
    olc_error_clear(&err);
    st[i] = olc_check__policy(&c, list.policies[i], list.serialized[i].data, list.serialized[i].len,
                              &checked[i], &err);
    if (st[i] != OLC_OK)
      printf("\n  candidate %zu: %s", i, err.message);
  }
  CU_ASSERT_STRING_EQUAL(olc_check__why(&c), "");
  olc_check__free(&c);
  olc_policy_list__free(&list, p);
}

/* A constant B is packed for each candidate (the reference once) and
 * executed packed: the candidate whose packed copy is wrong is caught. */
static void test_constant_packed(void) {
  static const unsigned spins[4] = {2000, 100, 200, 4000};
  olc_test_session s;
  olc_status st[4];
  int checked[4], i;
  check_direct(&s, 2u, st, checked);
  for (i = 0; i < 4; i++) {
    CU_ASSERT_EQUAL(st[i], i == 1 ? OLC_E_MISMATCH : OLC_OK);
    CU_ASSERT_EQUAL(checked[i], i != 1);
    CU_ASSERT_EQUAL(traced(s.host, "pack", spins[i]), 1u);
    CU_ASSERT_EQUAL(traced(s.host, "release", spins[i]), 1u);
  }
  olc_test_session_close(&s);
}

/* Without constant_inputs nothing is packed, and the same candidate,
 * right in place, passes: the test above can tell. */
static void test_constant_not_marked(void) {
  olc_test_session s;
  olc_status st[4];
  int checked[4], i;
  check_direct(&s, 0u, st, checked);
  for (i = 0; i < 4; i++) {
    CU_ASSERT_EQUAL(st[i], OLC_OK);
    CU_ASSERT(checked[i]);
    CU_ASSERT_EQUAL(traced(s.host, "pack", i == 0 ? 2000u : 100u), 0u);
  }
  olc_test_session_close(&s);
}

/* Measured by the calibrate module (in the worker, or in-process) with
 * constant_inputs = 2: the check packs B for each candidate there too, and
 * the candidate whose packed copy is wrong is rejected. */
static void expect_constant_measured(int in_process) {
  static const olc_property entries[] = {
      {"candidates", "2000,100,200,4000"}, {"wrong", "100"}, {"wrong_kind", "packed"}};
  static const olc_plugin_kv props[] = {
      {"dtype", "bfloat16"}, {"m", "8"}, {"n", "24"}, {"k", "37"}, {"bias", "col"}};
  olc_test_session s;
  olc_calibrate_request req;
  olc_calibrate_outcome out;
  olc_plugin_workload w;
  olc_arena arena = OLC_ARENA_INIT;
  char text[1024];
  size_t i;
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s/onnx\nthreads = 1\n[store]\npath = profiles.txt\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.002\n"
                   "[plugin.mock_onnx]\ncandidates = 2000,100,200,4000\nwrong = 100\n"
                   "wrong_kind = packed\n",
                   OLC_MOCK_PLUGIN_ROOT);
  olc_test_rmtree(tmp);
  free(tmp);
  tmp = olc_test_tmpdir("numcheck_onnx");
  olc_test_session_open(&s, tmp, text, (size_t)n);
  memset(&w, 0, sizeof w);
  w.struct_size = (uint32_t)sizeof w;
  w.abi_minor = OLC_PLUGIN_ABI_MINOR;
  w.name = "w";
  w.operator_name = "Gemm";
  w.properties = props;
  w.property_count = (uint32_t)(sizeof props / sizeof props[0]);
  w.constant_inputs = 2u;
  memset(&req, 0, sizeof req);
  req.target.plugin = olc_plugins__find(olc_host__plugins(s.host), "mock_onnx");
  CU_ASSERT_PTR_NOT_NULL_FATAL(req.target.plugin);
  req.target.threads = 1;
  req.target.ignore_env = 1;
  req.target.entries = entries;
  req.target.entry_count = sizeof entries / sizeof entries[0];
  req.workload = &w;
  req.settings = olc_config_calibration(s.config);
  req.in_process = in_process;
  req.arena = &arena;
  CU_ASSERT_EQUAL_FATAL(olc_calibrate__workload(&out, &req), OLC_OK);
  if (out.note != NULL)
    printf("\n  note: %s", out.note);
  CU_ASSERT_PTR_NULL(out.note); /* measured where it was asked to be */
  CU_ASSERT_EQUAL(out.status, OLC_OK);
  for (i = 0; i < out.reached; i++) {
    const olc_candidate_result *c = &out.candidates[i];
    int wrong = policy_is(c->policy, c->policy_len, "spin_us=100");
    if (c->message != NULL)
      printf("\n  %s: %s", wrong ? "wrong" : "right", c->message);
    CU_ASSERT_EQUAL(c->status, wrong ? OLC_E_MISMATCH : OLC_OK);
    CU_ASSERT(wrong || c->samples == 0 || c->checked);
  }
  CU_ASSERT(out.status == OLC_OK &&
            policy_is(out.candidates[out.winner].policy, out.candidates[out.winner].policy_len,
                      "spin_us=200"));
  olc_arena__free(&arena);
  olc_test_session_close(&s);
}

static void test_constant_worker(void) { expect_constant_measured(0); }
static void test_constant_in_process(void) { expect_constant_measured(1); }

static int teardown(void) {
  if (tmp != NULL)
    olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("numcheck_onnx", NULL, teardown);
  CU_add_test(s, "MatMul of every dtype: the wrong one rejected", test_matmul_dtypes);
  CU_add_test(s, "float16 and bfloat16 in-process", test_matmul_dtypes_in_process);
  CU_add_test(s, "right candidates of every dtype and layout accepted", test_right_accepted);
  CU_add_test(s, "Gemm: alpha, transposes, each bias", test_gemm);
  CU_add_test(s, "batched MatMul", test_batched);
  CU_add_test(s, "a plugin without views", test_no_views);
  CU_add_test(s, "a constant input packed for each candidate", test_constant_packed);
  CU_add_test(s, "no constant input: nothing packed", test_constant_not_marked);
  CU_add_test(s, "a constant input packed in the worker", test_constant_worker);
  CU_add_test(s, "a constant input packed in-process", test_constant_in_process);
  return olc_test_run(argc, argv);
}
