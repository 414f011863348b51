/*
 * test_cpu_gemm_records.c - through the host library: each layout of a
 * cpu_gemm workload (a transposed B, Gemm's bias, float16, a batch, a
 * float32 A with a bfloat16 B) and its plain twin calibrate into records of
 * their own (each measured, under a model digest of its own),
 * while a workload that names the defaults explicitly (trans_a = 0,
 * trans_b = 0) shares the plain twin's record and is measured no more.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "olc/host.h"
#include "olc/store.h"
#include "test_support.h"

#ifndef OLC_PLUGIN_DIR
#error "OLC_PLUGIN_DIR must be defined"
#endif

static char *tmp;

#define WL(name, op, extra)                                                                        \
  "[workload." name "]\nbackend = cpu_gemm\noperator = " op "\nm = 8\nn = 24\nk = 16\n" extra

static const char ini[] =
    "[host]\nplugin_dirs = " OLC_PLUGIN_DIR "\nthreads = 1\n"
    "[store]\npath = profiles.txt\n"
    "[calibration]\nwarmup = 1\nmin_repetitions = 2\nmin_seconds = 0.001\n"
    "max_runs_per_candidate = 3\nmax_seconds_per_workload = 60\n" WL("plain", "MatMul",
                                                                     "dtype = float32\n")
        WL("trans_b", "MatMul", "dtype = float32\ntrans_b = 1\n")
            WL("batch", "MatMul", "dtype = float32\nbatch_a = 2\n")
                WL("half", "MatMul", "dtype = float16\n")
                    WL("dtype_b", "MatMul", "dtype = float32\ndtype_b = bfloat16\n")
                        WL("gemm", "Gemm", "dtype = float32\n")
                            WL("gemm_row", "Gemm", "dtype = float32\nbias = row\n")
                                WL("defaults", "MatMul", "trans_a = 0\ntrans_b = 0\n");

static void test_two_records(void) {
  static const struct {
    const char *workload, *property, *value;
  } layouts[] = {
      {"trans_b", "trans_b", "1"},        {"batch", "batch_a", "2"},   {"half", "dtype", "float16"},
      {"dtype_b", "dtype_b", "bfloat16"}, {"gemm_row", "bias", "row"},
  };
  olc_test_session s;
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal = NULL;
  const olc_workload_result *plain, *gemm, *dflt;
  olc_error err;
  olc_test_session_open(&s, tmp, ini, sizeof ini - 1);
  OLC_ASSERT_OK(olc_host_calibrate(&cal, s.host, &opt, &err), &err);
  for (size_t i = 0; i < olc_calibration_count(cal); i++) {
    const olc_workload_result *r = olc_calibration_get(cal, i);
    if (r->status != OLC_OK)
      printf("\n  %s: %s: %s", r->workload, olc_status_name(r->status),
             r->message != NULL ? r->message : "");
    CU_ASSERT_EQUAL(r->status, OLC_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  }
  plain = olc_test_find_result(cal, "plain");
  gemm = olc_test_find_result(cal, "gemm");
  dflt = olc_test_find_result(cal, "defaults");
  CU_ASSERT_FATAL(plain != NULL && gemm != NULL && dflt != NULL);
  CU_ASSERT(plain->calibrated_now && plain->candidate_count > 0);
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
    const olc_workload_result *r = olc_test_find_result(cal, layouts[i].workload);
    const olc_workload_result *twin = strcmp(layouts[i].workload, "gemm_row") == 0 ? gemm : plain;
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    if (!r->calibrated_now || r->candidate_count == 0)
      printf("\n  %s was not measured", r->workload);
    CU_ASSERT(r->calibrated_now && r->candidate_count > 0);
    CU_ASSERT_STRING_NOT_EQUAL(r->selected->model_digest, twin->selected->model_digest);
  }
  /* Explicit defaults: the plain record, not measured again. */
  CU_ASSERT_STRING_EQUAL(dflt->selected->model_digest, plain->selected->model_digest);
  CU_ASSERT_EQUAL(dflt->candidate_count, 0u);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  int rc;
  tmp = olc_test_tmpdir("cpu_gemm_records");
  if (tmp == NULL || CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("cpu_gemm_records", NULL, NULL);
  CU_add_test(s, "each layout and its plain twin: two records", test_two_records);
  rc = olc_test_run(argc, argv);
  olc_test_rmtree(tmp);
  free(tmp);
  return rc;
}
