/*
 * test_example_gpu_host.c - example_gpu under the real host (public API):
 * loaded from the build's plugin directory, calibrated by the host's loop,
 * saved to a store file, selected from it on the second pass; layouts
 * (transposed B, Gemm with transposed A and a bias, a batched MatMul) each
 * calibrated into a record of their own; and, with no OpenCL platform,
 * reported unavailable and skipped cleanly.
 *
 * Suites: "host" (exits 77 when no OpenCL platform exists) and
 * "unavailable" (run with OCL_ICD_VENDORS pointing at an empty directory).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>
#include <CUnit/CUnit.h>

#include "olc/host.h"
#include "olc/store.h"
#include "test_support.h"

static char *g_dir;

typedef struct fixture {
  olc_config *config;
  olc_store *store;
  olc_host *host;
  const olc_load_entry *egpu; /* example_gpu's line of the load report */
} fixture;

static void open_fixture(fixture *f) {
  char text[1024], *store_path = olc_test_path(g_dir, "profiles.txt");
  olc_store_options opts = OLC_STORE_OPTIONS_INIT;
  olc_error err;
  size_t i;
  memset(f, 0, sizeof *f);
  snprintf(text, sizeof text,
           "[host]\nplugin_dirs = %s\nthreads = 1\n"
           "[store]\npath = %s\n"
           "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
           "max_seconds_per_workload = 30\n"
           "[plugin.example_gpu]\ndevice = 0\n"
           "[workload.egpu_small]\nbackend = example_gpu\noperator = MatMul\ndtype = float32\n"
           "m = 96\nn = 80\nk = 72\n"
           /* Layouts: B transposed, a Gemm with transposed A and a row
            * bias, a batched MatMul. */
           "[workload.egpu_small_tb]\nbackend = example_gpu\noperator = MatMul\n"
           "dtype = float32\nm = 96\nn = 80\nk = 72\ntrans_b = 1\n"
           "[workload.egpu_gemm]\nbackend = example_gpu\noperator = Gemm\n"
           "dtype = float32\nm = 96\nn = 80\nk = 72\ntrans_a = 1\nbias = row\n"
           "[workload.egpu_batched]\nbackend = example_gpu\noperator = MatMul\n"
           "dtype = float32\nm = 24\nn = 16\nk = 8\nbatch_a = 2x1\nbatch_b = 3\n",
           EGPU_PLUGIN_DIR, store_path);
  free(store_path);
  OLC_ASSERT_OK(olc_config_load_string(&f->config, text, strlen(text), "egpu.ini", g_dir, &err),
                &err);
  olc_config_store_options(f->config, &opts);
  OLC_ASSERT_OK(olc_store_open(&f->store, &opts, &err), &err);
  OLC_ASSERT_OK(olc_host_open(&f->host, f->config, f->store, NULL, &err), &err);
  for (i = 0; i < olc_host_report_count(f->host); i++) {
    const olc_load_entry *e = olc_host_report(f->host, i);
    if (e->plugin_name != NULL && strcmp(e->plugin_name, "example_gpu") == 0)
      f->egpu = e;
  }
  CU_ASSERT_PTR_NOT_NULL_FATAL(f->egpu);
}

static void close_fixture(fixture *f) {
  olc_host_free(f->host);
  olc_store_free(f->store);
  olc_config_free(f->config);
}

static const olc_workload_result *calibrate(fixture *f, olc_calibration **cal) {
  olc_calibrate_options opts = OLC_CALIBRATE_OPTIONS_INIT;
  const char *names[1] = {"egpu_small"};
  olc_error err;
  opts.workloads = names;
  opts.workload_count = 1;
  OLC_ASSERT_OK(olc_host_calibrate(cal, f->host, &opts, &err), &err);
  CU_ASSERT_EQUAL_FATAL(olc_calibration_count(*cal), 1);
  return olc_calibration_get(*cal, 0);
}

static void test_calibrate_then_select(void) {
  fixture f;
  olc_calibration *cal = NULL;
  const olc_workload_result *r;
  char first[160];
  size_t i;
  open_fixture(&f);
  CU_ASSERT_EQUAL(f.egpu->stage, OLC_LOAD_LOADED);
  CU_ASSERT_STRING_EQUAL(f.egpu->plugin_version, "3");
  r = calibrate(&f, &cal);
  if (r->status != OLC_OK)
    fprintf(stderr, "\n  calibrate: %s\n", r->message != NULL ? r->message : "");
  CU_ASSERT_EQUAL_FATAL(r->status, OLC_OK);
  CU_ASSERT_TRUE(r->calibrated_now);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT_STRING_EQUAL(r->selected->backend, "example_gpu");
  CU_ASSERT_STRING_EQUAL(r->selected->implementation, "3");
  CU_ASSERT(r->candidate_count >= 2);
  CU_ASSERT_FATAL(r->selected->policy_len < sizeof first);
  memcpy(first, r->selected->policy, r->selected->policy_len);
  first[r->selected->policy_len] = '\0';
  CU_ASSERT_EQUAL(strncmp(first, "v1 tm=", 6), 0);
  for (i = 0; i < r->selected->measurement_count; i++)
    CU_ASSERT(r->selected->measurements[i].value > 0.0);
  printf("\n  selected %s after %zu candidates\n", first, r->candidate_count);
  olc_calibration_free(cal);
  close_fixture(&f);

  /* A new host over the same file selects without measuring. */
  open_fixture(&f);
  r = calibrate(&f, &cal);
  CU_ASSERT_EQUAL_FATAL(r->status, OLC_OK);
  CU_ASSERT_FALSE(r->calibrated_now);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT_EQUAL(r->selected->policy_len, strlen(first));
  CU_ASSERT_EQUAL(memcmp(r->selected->policy, first, strlen(first)), 0);
  olc_calibration_free(cal);
  close_fixture(&f);
}

/* A layout and its plain twin: two records, two measurements.  (An
 * explicit default keying like its absence is test_example_gpu_onnx's: it
 * needs a host whose key sink implements use_property.) */
static void test_layouts_own_records(void) {
  static const char *const names[4] = {"egpu_small", "egpu_small_tb", "egpu_gemm", "egpu_batched"};
  /* The identity the host composes from the key's structure (sorted). */
  static const char *const want[4] = {"workload:dtype=float32;k=72;m=96;n=80",
                                      "workload:dtype=float32;k=72;m=96;n=80;trans_b=1",
                                      "workload:bias=row;dtype=float32;k=72;m=96;n=80;trans_a=1",
                                      "workload:batch_a=2x1;batch_b=3;dtype=float32;k=8;m=24;n=16"};
  olc_calibrate_options opts = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal = NULL;
  olc_error err;
  fixture f;
  size_t i;
  open_fixture(&f);
  opts.workloads = names;
  opts.workload_count = 4;
  OLC_ASSERT_OK(olc_host_calibrate(&cal, f.host, &opts, &err), &err);
  CU_ASSERT_EQUAL_FATAL(olc_calibration_count(cal), 4);
  for (i = 0; i < 4; i++) {
    const olc_workload_result *r = olc_calibration_get(cal, i);
    if (r->status != OLC_OK)
      fprintf(stderr, "\n  %s: %s\n", names[i], r->message != NULL ? r->message : "");
    CU_ASSERT_EQUAL(r->status, OLC_OK);
    if (r->selected == NULL)
      continue;
    if (strcmp(r->selected->model_digest, want[i]) != 0)
      fprintf(stderr, "\n  %s: %s, want %s\n", names[i], r->selected->model_digest, want[i]);
    CU_ASSERT_STRING_EQUAL(r->selected->model_digest, want[i]);
    /* The plain one may come from the store already; each layout is its own
     * record, so it is measured (on_miss never measured it with a shared key). */
    if (i > 0)
      CU_ASSERT_TRUE(r->calibrated_now);
  }
  olc_calibration_free(cal);
  close_fixture(&f);
}

static void test_unavailable(void) {
  fixture f;
  olc_calibration *cal = NULL;
  const olc_workload_result *r;
  open_fixture(&f);
  CU_ASSERT_EQUAL(f.egpu->stage, OLC_LOAD_CREATE);
  CU_ASSERT_TRUE(f.egpu->unavailable);
  CU_ASSERT_EQUAL(f.egpu->plugin_status, -5); /* OLC_PLUGIN_E_UNAVAILABLE */
  CU_ASSERT_PTR_NOT_NULL(f.egpu->message);
  if (f.egpu->message != NULL) {
    CU_ASSERT_PTR_NOT_NULL(strstr(f.egpu->message, "no opencl platform"));
    printf("\n  report: %s\n", f.egpu->message);
  }
  r = calibrate(&f, &cal);
  CU_ASSERT_NOT_EQUAL(r->status, OLC_OK);
  CU_ASSERT_PTR_NULL(r->selected);
  if (r->message != NULL)
    printf("  calibrate: %s\n", r->message);
  olc_calibration_free(cal);
  close_fixture(&f);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  cl_uint platforms = 0;
  int unavailable = argc > 1 && strcmp(argv[1], "unavailable") == 0, result;
  if (!unavailable && (clGetPlatformIDs(0, NULL, &platforms) != CL_SUCCESS || platforms == 0)) {
    fprintf(stderr, "skipped: no OpenCL platform\n");
    return 77;
  }
  g_dir = olc_test_tmpdir("egpu_host");
  if (g_dir == NULL || CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("host", NULL, NULL);
  CU_add_test(s, "calibrate_then_select", test_calibrate_then_select);
  CU_add_test(s, "layouts_own_records", test_layouts_own_records);
  s = CU_add_suite("unavailable", NULL, NULL);
  CU_add_test(s, "unavailable", test_unavailable);
  if (argc < 2) {
    /* Without a suite name: the device suite only (the other needs its environment). */
    char *args[2];
    args[0] = argv[0];
    args[1] = (char *)(uintptr_t) "host";
    result = olc_test_run(2, args);
  } else {
    result = olc_test_run(argc, argv);
  }
  olc_test_rmtree(g_dir);
  free(g_dir);
  return result;
}
