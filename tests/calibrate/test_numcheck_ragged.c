/*
 * tests/calibrate/test_numcheck_ragged.c - every candidate of a shipped
 * plugin (argv[1]: cpu_gemm or example_gpu, whose build directory is
 * OLC_PLUGIN_DIR) passes the numerical check on ragged shapes: the host
 * calibrates 37x53x29, 1x4097x131 and 129x1x65 and no candidate may be
 * rejected as numerical_mismatch, each one timed must say checked.  With
 * argv[2] "layouts" also on the layouts of ONNX MatMul and Gemm
 * (transposed operands, each bias, batch dimensions, float16, bfloat16 and
 * dtype_b), whose operands the check makes as the workload says.  Exits
 * 77 when the plugin is unavailable here (example_gpu without an OpenCL
 * device).
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
static const char *plugin = "cpu_gemm";
static char skipped[512]; /* why the plugin is unavailable here; "" */

/* The ONNX layouts, each a workload section of odd sizes. */
static const char layouts[] =
    "[workload.gemm_tt_row]\nbackend = %s\noperator = Gemm\ndtype = float32\n"
    "trans_a = 1\ntrans_b = 1\nbias = row\nm = 37\nn = 53\nk = 29\n"
    "[workload.gemm_f16_col]\nbackend = %s\noperator = Gemm\ndtype = float16\n"
    "bias = col\nm = 33\nn = 47\nk = 31\n"
    "[workload.gemm_bf16_scalar]\nbackend = %s\noperator = Gemm\ndtype = bfloat16\n"
    "trans_a = 1\nbias = scalar\nm = 5\nn = 67\nk = 19\n"
    "[workload.mm_f16]\nbackend = %s\noperator = MatMul\ndtype = float16\n"
    "m = 37\nn = 53\nk = 29\n"
    "[workload.mm_bf16_tb]\nbackend = %s\noperator = MatMul\ndtype = bfloat16\n"
    "trans_b = 1\nm = 17\nn = 131\nk = 65\n"
    "[workload.mm_f32_bf16]\nbackend = %s\noperator = MatMul\ndtype = float32\n"
    "dtype_b = bfloat16\nm = 4\nn = 257\nk = 129\n"
    "[workload.mm_f32_f16]\nbackend = %s\noperator = MatMul\ndtype = float32\n"
    "dtype_b = float16\nm = 9\nn = 33\nk = 70\n"
    "[workload.mm_batched]\nbackend = %s\noperator = MatMul\ndtype = float32\n"
    "batch_a = 2x1\nbatch_b = 3\nm = 9\nn = 21\nk = 13\n";
#define LAYOUT_COUNT 8u

static int with_layouts;

static void open_session(olc_test_session *s) {
  char text[6144];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s\nthreads = 2\n"
                   "[store]\npath = profiles.txt\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 2\nmin_seconds = 0.001\n"
                   "max_seconds_per_workload = 120\n"
                   "[workload.r37x53x29]\nbackend = %s\noperator = MatMul\ndtype = float32\n"
                   "m = 37\nn = 53\nk = 29\n"
                   "[workload.r1x4097x131]\nbackend = %s\noperator = MatMul\ndtype = float32\n"
                   "m = 1\nn = 4097\nk = 131\n"
                   "[workload.r129x1x65]\nbackend = %s\noperator = MatMul\ndtype = float32\n"
                   "m = 129\nn = 1\nk = 65\n",
                   OLC_PLUGIN_DIR, plugin, plugin, plugin);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  if (with_layouts) {
    int more = snprintf(text + n, sizeof text - (size_t)n, layouts, plugin, plugin, plugin, plugin,
                        plugin, plugin, plugin, plugin);
    CU_ASSERT_FATAL(more > 0 && (size_t)more < sizeof text - (size_t)n);
    n += more;
  }
  olc_test_session_open(s, tmp, text, (size_t)n);
}

/* 1 when the plugin loaded; 0 (with why) when it is unavailable here. */
static int available(const olc_test_session *s, char *why, size_t size) {
  size_t i;
  for (i = 0; i < olc_host_report_count(s->host); i++) {
    const olc_load_entry *e = olc_host_report(s->host, i);
    if (e->plugin_name == NULL || strcmp(e->plugin_name, plugin) != 0)
      continue;
    if (e->status == OLC_OK)
      return 1;
    snprintf(why, size, "%s", e->message != NULL ? e->message : olc_status_name(e->status));
    return 0;
  }
  snprintf(why, size, "plugin %s not found in %s", plugin, OLC_PLUGIN_DIR);
  return 0;
}

static void test_ragged(void) {
  olc_test_session s;
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal = NULL;
  olc_error err;
  size_t w, i;
  open_session(&s);
  if (!available(&s, skipped, sizeof skipped)) {
    olc_test_session_close(&s);
    return;
  }
  OLC_ASSERT_OK(olc_host_calibrate(&cal, s.host, &opt, &err), &err);
  CU_ASSERT_EQUAL_FATAL(olc_calibration_count(cal), 3u + (with_layouts ? LAYOUT_COUNT : 0u));
  for (w = 0; w < olc_calibration_count(cal); w++) {
    const olc_workload_result *r = olc_calibration_get(cal, w);
    size_t checked = 0;
    if (r->status != OLC_OK)
      printf("\n  %s: %s: %s", r->workload, olc_status_name(r->status),
             r->message != NULL ? r->message : "");
    CU_ASSERT_EQUAL(r->status, OLC_OK);
    CU_ASSERT(r->candidate_count > 0);
    for (i = 0; i < r->candidate_count; i++) {
      const olc_candidate_result *c = &r->candidates[i];
      if (c->status == OLC_E_MISMATCH || (c->status != OLC_OK && c->samples == 0))
        printf("\n  %s candidate %zu: %s: %s", r->workload, i, olc_status_name(c->status),
               c->message != NULL ? c->message : "");
      CU_ASSERT_NOT_EQUAL(c->status, OLC_E_MISMATCH);
      if (c->status == OLC_OK && c->samples > 0) {
        CU_ASSERT(c->checked);
        checked += c->checked != 0;
      }
    }
    printf("\n  %s: %zu of %zu candidates checked", r->workload, checked, r->candidate_count);
    CU_ASSERT(checked > 0);
  }
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* A Gemm whose B is a constant of the binding (olc_workload.constants),
 * calibrated on a miss in olc-worker: the check packs B for each candidate
 * (the plugin's pack) and executes it packed; the record says checked. */
static void test_constant(void) {
  static float b[61 * 43];
  static const olc_property props[] = {{"dtype", "float32"}, {"m", "7"},       {"n", "43"},
                                       {"k", "61"},          {"trans_b", "0"}, {"bias", "row"}};
  olc_test_session s;
  olc_workload w = OLC_WORKLOAD_INIT;
  olc_select_options on_miss = OLC_SELECT_OPTIONS_INIT;
  olc_constant constant;
  olc_binding *binding = NULL;
  const olc_selection *sel = NULL;
  const olc_record *rec;
  olc_error err;
  size_t i;
  if (!with_layouts)
    return;
  open_session(&s);
  if (!available(&s, skipped, sizeof skipped)) {
    olc_test_session_close(&s);
    return;
  }
  for (i = 0; i < sizeof b / sizeof b[0]; i++)
    b[i] = (float)(i % 13) / 6.0f - 1.0f;
  memset(&constant, 0, sizeof constant);
  constant.input = 1;
  constant.tensor.dtype = OLC_DTYPE_FLOAT32;
  constant.tensor.rank = 2;
  constant.tensor.dims[0] = 61;
  constant.tensor.dims[1] = 43;
  constant.tensor.strides[0] = 43;
  constant.tensor.strides[1] = 1;
  constant.tensor.data = b;
  w.backend = plugin;
  w.operator_name = "Gemm";
  w.properties = props;
  w.property_count = sizeof props / sizeof props[0];
  w.constants = &constant;
  w.constant_count = 1;
  on_miss.mode = OLC_SELECT_ON_MISS;
  OLC_ASSERT_OK(olc_host_bind(&binding, s.host, &w, &err), &err);
  OLC_ASSERT_OK(olc_binding_select(&sel, binding, &on_miss, &err), &err);
  rec = olc_selection_record(sel);
  CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
  for (i = 0; i < rec->measurement_count; i++)
    if (strcmp(rec->measurements[i].name, OLC_MEASUREMENT_NUMERICAL_CHECK) == 0)
      break;
  CU_ASSERT_FATAL(i < rec->measurement_count);
  CU_ASSERT_DOUBLE_EQUAL(rec->measurements[i].value, 1.0, 0);
  printf("\n  constant B: %s, checked", olc_selection_message(sel));
  olc_binding_free(binding);
  olc_test_session_close(&s);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  int rc;
  if (argc > 1)
    plugin = argv[1];
  with_layouts = argc > 2 && strcmp(argv[2], "layouts") == 0;
  tmp = olc_test_tmpdir("numcheck_ragged");
  if (tmp == NULL || CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("ragged", NULL, NULL);
  CU_add_test(s, "every candidate passes on ragged shapes (and layouts)", test_ragged);
  CU_add_test(s, "a constant B packed for each candidate", test_constant);
  rc = olc_test_run(1, argv);
  olc_test_rmtree(tmp);
  free(tmp);
  if (rc == 0 && skipped[0] != 0) {
    fprintf(stderr, "skipped: %s\n", skipped);
    return 77;
  }
  return rc;
}
