/*
 * tests/calibrate/test_calibrate_samples.c - what a calibration keeps for a
 * report: every candidate's run times (olc_calibrate_options.keep_samples,
 * olc_calibration_samples) and the candidate measuring chose
 * (olc_calibration_winner), against the deterministic mock plugin
 * "mock_det" (tests/plugins), under both strategies.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calibrate/stats.h"
#include "olc/host.h"
#include "olc/store.h"
#include "test_support.h"

#ifndef OLC_MOCK_PLUGIN_ROOT
#error "OLC_MOCK_PLUGIN_ROOT must be defined"
#endif

static char *tmp;

static int setup(void) { return olc_test_suite_tmpdir(&tmp, "calibrate_samples"); }

static int teardown(void) { return olc_test_suite_rmtree(&tmp); }

/* A session on a fresh store: workload mm (mock_det with the given spins)
 * and elsewhere (no plugin). */
static void open_session(olc_test_session *s, const char *store, const char *strategy,
                         const char *candidates) {
  char text[2048];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s/good\nthreads = 2\n"
                   "[store]\npath = %s\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
                   "max_seconds_per_workload = 30\nabandon_factor = 100\nstrategy = %s\n"
                   "[plugin.mock_det]\ncandidates = %s\n"
                   "[workload.mm]\nbackend = mock_det\noperator = MatMul\n"
                   "dtype = float32\nm = 8\nn = 4\nk = 2\n"
                   "[workload.elsewhere]\nbackend = not_installed\noperator = MatMul\nm = 1\n",
                   OLC_MOCK_PLUGIN_ROOT, store, strategy, candidates);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  olc_test_session_open(s, tmp, text, (size_t)n);
}

static olc_calibration *calibrate(olc_test_session *s, const olc_calibrate_options *opt) {
  olc_calibration *cal = NULL;
  olc_error err;
  OLC_ASSERT_OK(olc_host_calibrate(&cal, s->host, opt, &err), &err);
  CU_ASSERT_FATAL(cal != NULL && olc_calibration_count(cal) == 2u);
  CU_ASSERT_STRING_EQUAL_FATAL(olc_calibration_get(cal, 0)->workload, "mm");
  return cal;
}

static int same_policy(const olc_record *r, const olc_candidate_result *c) {
  return r != NULL && r->policy_len == c->policy_len &&
         (c->policy_len == 0 || memcmp(r->policy, c->policy, c->policy_len) == 0);
}

/* Every timed candidate's runs are kept, as many as its sample count, and
 * their median and MAD are its figures; the winner is what was selected. */
static void check_kept(const olc_calibration *cal) {
  const olc_workload_result *r = olc_calibration_get(cal, 0);
  size_t i, w = olc_calibration_winner(cal, 0);
  CU_ASSERT_EQUAL_FATAL(r->status, OLC_OK);
  CU_ASSERT_FATAL(r->candidate_count >= 2u);
  for (i = 0; i < r->candidate_count; i++) {
    const olc_candidate_result *c = &r->candidates[i];
    const double *v = NULL;
    double *copy, *scratch, median;
    size_t k, n = olc_calibration_samples(&v, cal, 0, i);
    CU_ASSERT_EQUAL(n, c->samples);
    CU_ASSERT_EQUAL(olc_calibration_samples(NULL, cal, 0, i), n);
    if (n == 0) {
      CU_ASSERT_PTR_NULL(v);
      continue;
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    copy = malloc(n * sizeof *copy);
    scratch = malloc(n * sizeof *scratch);
    CU_ASSERT_FATAL(copy != NULL && scratch != NULL);
    for (k = 0; k < n; k++) {
      CU_ASSERT(v[k] > 0);
      copy[k] = v[k];
    }
    median = olc_stats__median_sort(copy, n);
    CU_ASSERT_DOUBLE_EQUAL(median, c->median_us, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(olc_stats__mad(v, n, median, scratch), c->spread_us, 1e-9);
    free(copy);
    free(scratch);
  }
  CU_ASSERT_FATAL(w < r->candidate_count);
  CU_ASSERT(same_policy(r->selected, &r->candidates[w]));
  CU_ASSERT_EQUAL(r->candidates[w].abandoned, 0);
}

static void test_race_keeps_runs(void) {
  olc_test_session s;
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal;
  open_session(&s, "race.txt", "race", "300,100,200,110,800");
  opt.keep_samples = 1;
  cal = calibrate(&s, &opt);
  check_kept(cal);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

static void test_full_keeps_runs(void) {
  olc_test_session s;
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal;
  open_session(&s, "full.txt", "full", "400,100,200");
  opt.keep_samples = 1;
  cal = calibrate(&s, &opt);
  check_kept(cal);
  CU_ASSERT_EQUAL(olc_calibration_winner(cal, 0), 1u);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* The race keeps the first candidate on a tie: the winner is the selected
 * one even where another's median is lower. */
static void test_winner_is_selected_on_tie(void) {
  olc_test_session s;
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal;
  open_session(&s, "tie.txt", "race", "200,200,200");
  cal = calibrate(&s, &opt);
  {
    const olc_workload_result *r = olc_calibration_get(cal, 0);
    size_t w = olc_calibration_winner(cal, 0);
    CU_ASSERT_FATAL(w < r->candidate_count);
    CU_ASSERT(same_policy(r->selected, &r->candidates[w]));
  }
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* Without keep_samples nothing is kept; the winner is known all the same. */
static void test_not_kept(void) {
  olc_test_session s;
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal;
  const double *v = (const double *)&opt;
  const olc_workload_result *r;
  open_session(&s, "off.txt", "race", "300,100,200");
  opt.recalibrate = 1;
  cal = calibrate(&s, &opt);
  r = olc_calibration_get(cal, 0);
  CU_ASSERT_FATAL(r->candidate_count == 3u && r->candidates[0].samples > 0);
  CU_ASSERT_EQUAL(olc_calibration_samples(&v, cal, 0, 0), 0u);
  CU_ASSERT_PTR_NULL(v);
  CU_ASSERT_EQUAL(olc_calibration_winner(cal, 0), 1u);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* Nothing measured (selected from the store, a skipped workload) and
 * indexes out of range. */
static void test_nothing_measured(void) {
  olc_test_session s;
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal;
  const double *v = (const double *)&opt;
  open_session(&s, "none.txt", "race", "300,100");
  opt.keep_samples = 1;
  olc_calibration_free(calibrate(&s, &opt));
  cal = calibrate(&s, &opt); /* the store has the selection now */
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 0)->candidate_count, 0u);
  CU_ASSERT_PTR_NOT_NULL(olc_calibration_get(cal, 0)->selected);
  CU_ASSERT_EQUAL(olc_calibration_winner(cal, 0), 0u);
  CU_ASSERT_EQUAL(olc_calibration_samples(&v, cal, 0, 0), 0u);
  CU_ASSERT_PTR_NULL(v);
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 1)->candidate_count, 0u); /* no plugin */
  CU_ASSERT_EQUAL(olc_calibration_winner(cal, 1), 0u);
  CU_ASSERT_EQUAL(olc_calibration_samples(NULL, cal, 1, 0), 0u);
  CU_ASSERT_EQUAL(olc_calibration_samples(NULL, cal, 2, 0), 0u);
  CU_ASSERT_EQUAL(olc_calibration_winner(cal, 2), 0u);
  CU_ASSERT_EQUAL(olc_calibration_samples(NULL, NULL, 0, 0), 0u);
  CU_ASSERT_EQUAL(olc_calibration_winner(NULL, 0), 0u);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

static double wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Runs of a few microseconds are timed in batches that last at least
 * 10 us each (calibrate/timing.c): timed one by one on a clock of 10 ns
 * steps their medians moved by whole steps and their MADs read 0.  So a
 * calibration of 1 and 2 us candidates that takes D us holds at most
 * D / 10 samples, plus the first sample of each measurement (a single
 * run where no warm-up run sized the batch): timed one by one they were
 * D / 1.5 or so. */
static void test_short_runs_batched(void) {
  olc_test_session s;
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal;
  const olc_workload_result *r;
  static const char text_fmt[] =
      "[host]\nplugin_dirs = %s/good\nthreads = 1\n[store]\npath = %s\n"
      "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.05\n"
      "abandon_factor = 100\n[plugin.mock_det]\ncandidates = 2,1\n"
      "[workload.mm]\nbackend = mock_det\noperator = MatMul\ndtype = float32\n"
      "m = 8\nn = 4\nk = 2\n[workload.elsewhere]\nbackend = not_installed\n"
      "operator = MatMul\nm = 1\n";
  char text[1024];
  double t0, took_us;
  size_t i, samples = 0;
  int n = snprintf(text, sizeof text, text_fmt, OLC_MOCK_PLUGIN_ROOT, "batch.txt");
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  olc_test_session_open(&s, tmp, text, (size_t)n);
  opt.in_process = 1; /* D is then the measuring, not a worker's start */
  t0 = wall_us();
  cal = calibrate(&s, &opt);
  took_us = wall_us() - t0;
  r = olc_calibration_get(cal, 0);
  CU_ASSERT_EQUAL_FATAL(r->status, OLC_OK);
  CU_ASSERT_EQUAL_FATAL(r->candidate_count, 2u);
  for (i = 0; i < r->candidate_count; i++) {
    CU_ASSERT(r->candidates[i].samples >= 3u);
    CU_ASSERT(r->candidates[i].median_us >= 1.0);
    samples += r->candidates[i].samples;
  }
  CU_ASSERT(samples <= took_us / 10.0 + 200.0);
  if (samples > took_us / 10.0 + 200.0)
    fprintf(stderr, "\n  %zu samples in %.0f us\n", samples, took_us);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("calibrate_samples", setup, teardown);
  CU_add_test(s, "race keeps every run", test_race_keeps_runs);
  CU_add_test(s, "full keeps every run", test_full_keeps_runs);
  CU_add_test(s, "the winner is the selected one on a tie", test_winner_is_selected_on_tie);
  CU_add_test(s, "not kept by default or for a version-2 caller", test_not_kept);
  CU_add_test(s, "nothing measured, indexes out of range", test_nothing_measured);
  CU_add_test(s, "short runs are timed in batches", test_short_runs_batched);
  return olc_test_run(argc, argv);
}
