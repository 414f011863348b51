/*
 * tests/calibrate/test_numcheck.c - the numerical check (check.h) against
 * the mock plugin mock_det: its candidates spin 400, 100, 200 and 800 us
 * (2000, 100, 200 or 1000, 4000 where a test asserts the winner), and with
 * [plugin.mock_det] wrong = 100 the fastest one (spin_us=100) computes
 * C[3,17] off by 1e-2.  It must never be selected, whether
 * measured in the worker or in-process, through the library or through
 * olc calibrate, and the result must say why; with the check off it wins
 * (so the test can tell).  Also: a plugin without execute is "not checked",
 * a negative tolerance in a plugin or in the ini is refused clearly.
 *
 * And cold-cache measurement ([calibration] rotating_buffer_mb): with
 * [plugin.mock_det] cold = 1 a run on the same prepared state as the run
 * before fails, so only rotating instances can be measured; the record
 * says how many of how many bytes; a buffer larger than memory fails the
 * workload clearly.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_test_util.h"
#include "host/host.h"
#include "olc/host.h"
#include "olc/store.h"
#include "plugins/plugins.h"
#include "test_support.h"

#ifndef OLC_MOCK_PLUGIN_ROOT
#error "OLC_MOCK_PLUGIN_ROOT must be defined"
#endif

static char *tmp;

/* mock_det's candidates where the winner is clear on any machine (a busy
 * one cannot flip a lead of 10 x): with wrong = 100 rejected, spin_us=200
 * is the fastest right one; with none rejected, spin_us=100 is fastest. */
#define NEXT_CLEAR "\ncandidates = 2000,100,200,4000"
#define FIRST_CLEAR "\ncandidates = 2000,100,1000,4000"

/* The ini: mock_det from scenario, its wrong policy, [calibration] extra. */
static int ini(char *text, size_t size, const char *scenario, const char *backend,
               const char *wrong, const char *calibration) {
  return snprintf(text, size,
                  "[host]\nplugin_dirs = %s/%s\nthreads = 1\n"
                  "[store]\npath = profiles.txt\n"
                  "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.002\n%s"
                  "[plugin.%s]\nwrong = %s\n"
                  "[workload.mm]\nbackend = %s\noperator = MatMul\n"
                  "dtype = float32\nm = 8\nn = 24\nk = 5\n",
                  OLC_MOCK_PLUGIN_ROOT, scenario, calibration, backend, wrong, backend);
}

/* Calibrates workload mm in a fresh directory; *cal is the caller's. */
static const olc_workload_result *calibrate(olc_test_session *s, olc_calibration **cal,
                                            const char *scenario, const char *backend,
                                            const char *wrong, const char *calibration) {
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  char text[2048];
  olc_error err;
  int n = ini(text, sizeof text, scenario, backend, wrong, calibration);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  olc_test_rmtree(tmp);
  free(tmp);
  tmp = olc_test_tmpdir("numcheck");
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

static double measurement(const olc_record *r, const char *name) {
  size_t i;
  for (i = 0; r != NULL && i < r->measurement_count; i++)
    if (strcmp(r->measurements[i].name, name) == 0)
      return r->measurements[i].value;
  return -1;
}

/* The wrong fastest candidate is rejected and the next fastest selected. */
static void expect_rejected(const char *calibration) {
  olc_test_session s;
  olc_calibration *cal = NULL;
  const olc_workload_result *r =
      calibrate(&s, &cal, "good", "mock_det", "100" NEXT_CLEAR, calibration);
  const olc_candidate_result *bad = candidate(r, "spin_us=100");
  size_t i;
  CU_ASSERT_EQUAL(r->status, OLC_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT(policy_is(r->selected->policy, r->selected->policy_len, "spin_us=200"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
  CU_ASSERT_EQUAL(bad->status, OLC_E_MISMATCH);
  CU_ASSERT_FALSE(bad->checked);
  CU_ASSERT_PTR_NOT_NULL_FATAL(bad->message);
  printf("\n  rejected: %s\n", bad->message);
  CU_ASSERT_PTR_NOT_NULL(strstr(bad->message, "numerical_mismatch: |err| 1.0e-02 at C[3,17]"));
  CU_ASSERT_PTR_NOT_NULL(strstr(bad->message, "> atol 0.0001 + rtol 0.0001*|ref|"));
  for (i = 0; i < r->candidate_count; i++)
    if (&r->candidates[i] != bad && r->candidates[i].samples > 0)
      CU_ASSERT(r->candidates[i].checked);
  CU_ASSERT_DOUBLE_EQUAL(measurement(r->selected, OLC_MEASUREMENT_NUMERICAL_CHECK), 1.0, 0);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

static void test_worker(void) { expect_rejected(""); }
static void test_in_process(void) { expect_rejected("isolation = false\n"); }
static void test_full_strategy(void) { expect_rejected("strategy = full\n"); }

/* check_atol / check_rtol tighten the plugin's tolerances only. */
static void test_tightened(void) {
  olc_test_session s;
  olc_calibration *cal = NULL;
  const olc_workload_result *r =
      calibrate(&s, &cal, "good", "mock_det", "100", "check_atol = 1e-6\ncheck_rtol = 0.5\n");
  const olc_candidate_result *bad = candidate(r, "spin_us=100");
  CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
  CU_ASSERT_PTR_NOT_NULL_FATAL(bad->message);
  CU_ASSERT_PTR_NOT_NULL(strstr(bad->message, "> atol 1e-06 + rtol 0.0001*|ref|"));
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* With the check off the wrong one wins: what the check prevents. */
static void test_off(void) {
  olc_test_session s;
  olc_calibration *cal = NULL;
  const olc_workload_result *r =
      calibrate(&s, &cal, "good", "mock_det", "100" FIRST_CLEAR, "numerical_check = false\n");
  size_t i;
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT(policy_is(r->selected->policy, r->selected->policy_len, "spin_us=100"));
  for (i = 0; i < r->candidate_count; i++)
    CU_ASSERT_FALSE(r->candidates[i].checked);
  CU_ASSERT_DOUBLE_EQUAL(measurement(r->selected, OLC_MEASUREMENT_NUMERICAL_CHECK), 0.0, 0);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* How many of the host's plugin log lines are "mock_det: WHAT SPIN". */
static unsigned traced(const olc_host *host, const char *what, unsigned spin) {
  const olc_plugin_set *set = olc_host__plugins(host);
  char want[64], line[OLC_PLUGINS_LOG_LINE_SIZE];
  unsigned n = 0;
  size_t i;
  snprintf(want, sizeof want, "mock_det: %s %u", what, spin);
  for (i = 0; i < olc_plugins__log_count(set); i++)
    n += olc_plugins__log_line(set, i, line, sizeof line) >= 0 && strcmp(line, want) == 0;
  return n;
}

/* The check's run of a candidate stands for its first warm-up run, and
 * the reference candidate is not run a second time: with warmup = 1 and
 * the check on, each candidate runs as often as it was timed and executes
 * once; with the check off, one warm-up run more and no execute. */
static void expect_runs(const char *calibration, int check) {
  static const unsigned spins[] = {400, 100, 200, 800};
  olc_test_session s;
  olc_calibration *cal = NULL;
  /* [plugin.mock_det] wrong = 0 (none) and trace = 1. */
  const olc_workload_result *r =
      calibrate(&s, &cal, "good", "mock_det", "0\ntrace = 1", calibration);
  size_t i;
  CU_ASSERT_EQUAL_FATAL(r->status, OLC_OK);
  /* Every line is still in the log's ring, so the counts are complete. */
  CU_ASSERT_FATAL(olc_plugins__log_total(olc_host__plugins(s.host)) <= OLC_PLUGINS_LOG_LINES);
  for (i = 0; i < sizeof spins / sizeof spins[0]; i++) {
    char policy[32];
    const olc_candidate_result *c;
    snprintf(policy, sizeof policy, "spin_us=%u", spins[i]);
    c = candidate(r, policy);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT(c->samples > 0);
    CU_ASSERT_EQUAL(c->checked, check);
    CU_ASSERT_EQUAL(traced(s.host, "run", spins[i]), c->samples + (check ? 0u : 1u));
    CU_ASSERT_EQUAL(traced(s.host, "execute", spins[i]), check ? 1u : 0u);
  }
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

static void test_runs_worker(void) { expect_runs("", 1); }
static void test_runs_in_process(void) { expect_runs("isolation = false\n", 1); }
static void test_runs_unchecked(void) { expect_runs("numerical_check = false\n", 0); }

/* A plugin without execute is calibrated as before, not checked. */
static void test_no_execute(void) {
  olc_test_session s;
  olc_calibration *cal = NULL;
  const olc_workload_result *r =
      calibrate(&s, &cal, "no_execute", "mock_noexec", "100" FIRST_CLEAR, "");
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT(policy_is(r->selected->policy, r->selected->policy_len, "spin_us=100"));
  CU_ASSERT_FALSE(r->candidates[0].checked);
  CU_ASSERT_DOUBLE_EQUAL(measurement(r->selected, OLC_MEASUREMENT_NUMERICAL_CHECK), 0.0, 0);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* A negative tolerance in the table: not loaded, the plugin named. */
static void test_bad_plugin_tolerance(void) {
  olc_test_session s;
  char text[1024];
  size_t i, found = 0;
  int n =
      snprintf(text, sizeof text, "[host]\nplugin_dirs = %s/bad_tolerance\n", OLC_MOCK_PLUGIN_ROOT);
  olc_test_rmtree(tmp);
  free(tmp);
  tmp = olc_test_tmpdir("numcheck");
  olc_test_session_open(&s, tmp, text, (size_t)n);
  for (i = 0; i < olc_host_report_count(s.host); i++) {
    const olc_load_entry *e = olc_host_report(s.host, i);
    if (e->plugin_name == NULL || strcmp(e->plugin_name, "mock_bad_tol") != 0)
      continue;
    found = 1;
    CU_ASSERT_EQUAL(e->stage, OLC_LOAD_VALIDATE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e->message);
    printf("\n  report: %s\n", e->message);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "atol -0.0001"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "must be finite and >= 0"));
  }
  CU_ASSERT(found != 0);
  olc_test_session_close(&s);
}

/* A negative or non-finite tolerance in the ini: file and line. */
static void test_bad_ini_tolerance(void) {
  static const char *const bad[] = {"check_atol = -1\n", "check_rtol = nan\n",
                                    "check_atol = inf\n"};
  size_t i;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[256];
    olc_config *cfg = NULL;
    olc_error err;
    int n = snprintf(text, sizeof text, "[calibration]\nwarmup = 1\n%s", bad[i]);
    CU_ASSERT_EQUAL(olc_config_load_string(&cfg, text, (size_t)n, "t.ini", NULL, &err),
                    OLC_E_CONFIG);
    printf("\n  %s", err.message);
    CU_ASSERT_EQUAL(err.line, 3u);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "t.ini:3"));
    olc_config_free(cfg);
  }
}

/* olc calibrate --json and -v say why the wrong one lost. */
static void test_cli(void) {
  char text[2048], *path;
  const char *json[] = {"calibrate", "--config", NULL, "--json", NULL};
  const char *verbose[] = {"calibrate", "--config", NULL, "--recalibrate", "-v", NULL};
  cli_run r;
  int n = ini(text, sizeof text, "good", "mock_det", "100" NEXT_CLEAR, "");
  olc_test_rmtree(tmp);
  free(tmp);
  tmp = olc_test_tmpdir("numcheck");
  path = olc_test_path(tmp, "olc.ini");
  CU_ASSERT_FATAL(olc_test_write_file(path, text, (size_t)n) == 0);
  json[2] = path;
  CU_ASSERT_FATAL(cli_test_run(&r, tmp, NULL, json) == 0);
  CU_ASSERT_EQUAL(r.code, 0);
  CU_ASSERT(cli_test_json_valid(r.out));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"status\":\"OLC_E_MISMATCH\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "numerical_mismatch: |err| 1.0e-02 at C[3,17]"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"numerical_check\":\"checked\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"checked\":true"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"policy\":\"spin_us=200\""));
  if (r.code != 0 || strstr(r.out, "OLC_E_MISMATCH") == NULL)
    printf("\n%s\n%s\n", r.out, r.err);
  cli_run_free(&r);
  verbose[2] = path;
  CU_ASSERT_FATAL(cli_test_run(&r, tmp, NULL, verbose) == 0);
  CU_ASSERT_EQUAL(r.code, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "failed (OLC_E_MISMATCH): \"numerical_mismatch"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ", checked"));
  printf("\n%s", r.out);
  cli_run_free(&r);
  free(path);
}

/* mm is 8 x 24 x 5 float32: 4 (40 + 120 + 192) = 1408 bytes an instance
 * (mock_det does not say: the host computes it from the shape); 1 MiB
 * takes ceil(1048576 / 1408) + 1 = 746 instances. */
static void test_cold(void) {
  olc_test_session s;
  olc_calibration *cal = NULL;
  const olc_workload_result *r;
  char text[2048], *path;
  const char *json[] = {"select", "--config", NULL, "--json", NULL};
  cli_run run;
  int n;
  r = calibrate(&s, &cal, "good", "mock_det", "0\ncold = 1" FIRST_CLEAR,
                "rotating_buffer_mb = 1\n");
  if (r->status != OLC_OK)
    printf("\n  %s: %s\n", olc_status_name(r->status), r->message ? r->message : "");
  CU_ASSERT_EQUAL(r->status, OLC_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT(policy_is(r->selected->policy, r->selected->policy_len, "spin_us=100"));
  CU_ASSERT_DOUBLE_EQUAL(measurement(r->selected, OLC_MEASUREMENT_ROTATING_COUNT), 746.0, 0);
  CU_ASSERT_DOUBLE_EQUAL(measurement(r->selected, OLC_MEASUREMENT_ROTATING_BYTES), 1408.0, 0);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
  /* What olc select --json says of that record. */
  n = ini(text, sizeof text, "good", "mock_det", "0", "");
  path = olc_test_path(tmp, "olc.ini");
  CU_ASSERT_FATAL(olc_test_write_file(path, text, (size_t)n) == 0);
  json[2] = path;
  CU_ASSERT_FATAL(cli_test_run(&run, tmp, NULL, json) == 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "\"cache_mode\":\"cold (rotating 746 x 1408 bytes)\""));
  cli_run_free(&run);
  free(path);
}

/* The same measured in this process. */
static void test_cold_in_process(void) {
  olc_test_session s;
  olc_calibration *cal = NULL;
  const olc_workload_result *r = calibrate(&s, &cal, "good", "mock_det", "0\ncold = 1",
                                           "rotating_buffer_mb = 1\nisolation = false\n");
  CU_ASSERT_EQUAL(r->status, OLC_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT_DOUBLE_EQUAL(measurement(r->selected, OLC_MEASUREMENT_ROTATING_COUNT), 746.0, 0);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* Warm (the default): one instance, which cold = 1 refuses to run twice in
 * a row, so every candidate fails: the test above can tell. */
static void test_warm(void) {
  olc_test_session s;
  olc_calibration *cal = NULL;
  const olc_workload_result *r = calibrate(&s, &cal, "good", "mock_det", "0\ncold = 1", "");
  CU_ASSERT_NOT_EQUAL(r->status, OLC_OK);
  CU_ASSERT_PTR_NULL(r->selected);
  olc_calibration_free(cal);
  r = calibrate(&s, &cal, "good", "mock_det", "0", "");
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT_DOUBLE_EQUAL(measurement(r->selected, OLC_MEASUREMENT_ROTATING_COUNT), 1.0, 0);
  CU_ASSERT_DOUBLE_EQUAL(measurement(r->selected, OLC_MEASUREMENT_ROTATING_BYTES), -1.0, 0);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* More than the machine has: the workload fails, nothing is prepared. */
static void test_too_large(void) {
  olc_test_session s;
  olc_calibration *cal = NULL;
  const olc_workload_result *r =
      calibrate(&s, &cal, "good", "mock_det", "0", "rotating_buffer_mb = 1048576\n");
  CU_ASSERT_NOT_EQUAL(r->status, OLC_OK);
  CU_ASSERT_PTR_NULL(r->selected);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->message);
  printf("\n  %s\n", r->message);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(r->message, "rotating_buffer_mb 1048576 exceeds the memory available"));
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

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
  s = CU_add_suite("numcheck", NULL, teardown);
  CU_add_test(s, "wrong fastest candidate, in the worker", test_worker);
  CU_add_test(s, "wrong fastest candidate, in-process", test_in_process);
  CU_add_test(s, "wrong fastest candidate, strategy full", test_full_strategy);
  CU_add_test(s, "check_atol tightens", test_tightened);
  CU_add_test(s, "numerical_check = false", test_off);
  CU_add_test(s, "the check is the first warm-up, in the worker", test_runs_worker);
  CU_add_test(s, "the check is the first warm-up, in-process", test_runs_in_process);
  CU_add_test(s, "no check: every warm-up run", test_runs_unchecked);
  CU_add_test(s, "plugin without execute: not checked", test_no_execute);
  CU_add_test(s, "negative tolerance in a plugin", test_bad_plugin_tolerance);
  CU_add_test(s, "bad tolerance in the ini", test_bad_ini_tolerance);
  CU_add_test(s, "olc calibrate --json and -v", test_cli);
  CU_add_test(s, "rotating_buffer_mb: cold", test_cold);
  CU_add_test(s, "rotating_buffer_mb: cold, in-process", test_cold_in_process);
  CU_add_test(s, "rotating_buffer_mb = 0: warm", test_warm);
  CU_add_test(s, "rotating_buffer_mb larger than memory", test_too_large);
  return olc_test_run(argc, argv);
}
