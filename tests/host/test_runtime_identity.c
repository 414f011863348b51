/*
 * tests/host/test_runtime_identity.c - no workload property is dropped
 * from the identity: a property the plugin's key neither reports nor
 * declares used is refused (bind, olc_host_select, calibrate of an ini
 * section; a plugin of ABI < 1.3 has add_structure only); a layout
 * property and its plain twin get two records and two measurements; an
 * explicit default shares the identity of an absent one, so a record
 * stored with today's digest text is still selected.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_util.h"

/* mock_det keying on a layout property: trans_a and trans_b at 0 are
 * left out of the key and declared used (plugin.h use_property). */
#define LAYOUT "[plugin.mock_det]\ndefaults = trans_a:0,trans_b:0\n"
/* mock_det keying only on what cpu_gemm keyed on before layouts. */
#define SHAPE_ONLY "[plugin.mock_det]\nkeys_on = dtype,m,n,k\n"

static char *tmp;

static int setup(void) { return olc_test_suite_tmpdir(&tmp, "runtime_identity"); }

static int teardown(void) { return olc_test_suite_rmtree(&tmp); }

/* rw with one more property after dtype, m, n, k. */
typedef struct layout_workload {
  rt_workload rw;
  olc_property props[5];
} layout_workload;

static void with_property(layout_workload *lw, const char *name, const char *value, long size) {
  rt_matmul(&lw->rw, NULL, size, size, size);
  memcpy(lw->props, lw->rw.props, sizeof lw->rw.props);
  lw->props[4].name = name;
  lw->props[4].value = value;
  lw->rw.w.properties = lw->props;
  lw->rw.w.property_count = 5;
}

static int has(const char *message, const char *needle) {
  if (strstr(message, needle) != NULL && strchr(message, '\n') == NULL)
    return 1;
  fprintf(stderr, "\n  message \"%s\" lacks \"%s\"\n", message, needle);
  return 0;
}

/* A property the key ignores: OLC_E_INVALID at bind and at
 * olc_host_select, one line naming the workload, the property and the
 * plugin with what it keys on; nothing bound, measured or stored. */
static void test_dropped_property_refused(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  layout_workload lw;
  rt_host h;
  olc_binding *b = NULL;
  const olc_selection *s = NULL;
  olc_error err;
  rt_open(&h, tmp, NULL, "dropped.txt", SHAPE_ONLY);
  with_property(&lw, "trans_a", "1", 8);
  lw.rw.w.name = "w";
  CU_ASSERT_EQUAL(olc_host_bind(&b, h.s.host, &lw.rw.w, &err), OLC_E_INVALID);
  CU_ASSERT_PTR_NULL(b);
  CU_ASSERT_EQUAL(err.code, OLC_E_INVALID);
  CU_ASSERT_STRING_EQUAL(err.message, "workload 'w': property 'trans_a' is not one plugin "
                                      "'mock_det' keys on (it keys on: dtype, k, m, n)");
  CU_ASSERT_EQUAL(olc_host_select(&s, h.s.host, &lw.rw.w, &on_miss, &err), OLC_E_INVALID);
  CU_ASSERT_PTR_NULL(s);
  CU_ASSERT_TRUE(has(err.message, "workload 'w': property 'trans_a' is not one plugin"));
  /* Without a name the workload is named by backend and operator. */
  lw.rw.w.name = NULL;
  CU_ASSERT_EQUAL(olc_host_bind(&b, h.s.host, &lw.rw.w, &err), OLC_E_INVALID);
  CU_ASSERT_TRUE(has(err.message, "workload 'mock_det/MatMul': property 'trans_a'"));
  CU_ASSERT_EQUAL(rt_measurements(&h), 0);
  CU_ASSERT_EQUAL(rt_records(&h), 0);
  /* What it keys on binds. */
  rt_matmul(&lw.rw, NULL, 8, 8, 8);
  b = rt_bind(&h, &lw.rw);
  olc_binding_free(b);
  rt_close(&h);
}

/* A plugin of ABI 1.0 gets a sink without use_property: a property it
 * leaves out of the structure is refused, whatever its value. */
static void test_old_abi_structure_only(void) {
  layout_workload lw;
  rt_host h;
  olc_binding *b = NULL;
  olc_error err;
  rt_open(&h, tmp, "abi_1_0", "old.txt", "[plugin.mock_v10]\ndefaults = trans_b:0\n");
  with_property(&lw, "trans_b", "0", 8);
  lw.rw.w.backend = "mock_v10";
  lw.rw.w.name = "old";
  CU_ASSERT_EQUAL(olc_host_bind(&b, h.s.host, &lw.rw.w, &err), OLC_E_INVALID);
  CU_ASSERT_PTR_NULL(b);
  CU_ASSERT_TRUE(has(err.message, "workload 'old': property 'trans_b' is not one plugin "
                                  "'mock_v10' keys on (it keys on: dtype, k, m, n)"));
  /* Reported in the structure, it binds. */
  lw.props[4].value = "1";
  OLC_ASSERT_OK(olc_host_bind(&b, h.s.host, &lw.rw.w, &err), &err);
  olc_binding_free(b);
  rt_close(&h);
}

/* The record a binding's selection came from. */
static const char *digest_of(const olc_selection *s) {
  const olc_record *r = olc_selection_record(s);
  return r != NULL && r->model_digest != NULL ? r->model_digest : "";
}

/* trans_b=1 and its plain twin: two identities, two measurements, two
 * sets of records; trans_b=0 given explicitly is the plain twin. */
static void test_layout_and_plain_twin(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  layout_workload layout, zero;
  rt_workload plain;
  rt_host h;
  olc_binding *bp, *bl, *bz;
  const olc_selection *s = NULL;
  olc_error err;
  size_t plain_records;
  rt_open(&h, tmp, NULL, "twins.txt", LAYOUT);
  rt_matmul(&plain, NULL, 8, 8, 8);
  with_property(&layout, "trans_b", "1", 8);
  with_property(&zero, "trans_b", "0", 8);
  bp = rt_bind(&h, &plain);
  bl = rt_bind(&h, &layout.rw);
  bz = rt_bind(&h, &zero.rw);

  OLC_ASSERT_OK(olc_binding_select(&s, bp, &on_miss, &err), &err);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  CU_ASSERT_STRING_EQUAL(digest_of(s), "workload:dtype=float32;k=8;m=8;n=8");
  CU_ASSERT_EQUAL(rt_measurements(&h), 1);
  plain_records = rt_records(&h);
  CU_ASSERT_TRUE(plain_records > 0);

  /* The layout is not served by the plain twin's record: measured. */
  OLC_ASSERT_OK(olc_binding_select(&s, bl, &on_miss, &err), &err);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  CU_ASSERT_STRING_EQUAL(digest_of(s), "workload:dtype=float32;k=8;m=8;n=8;trans_b=1");
  CU_ASSERT_EQUAL(rt_measurements(&h), 2);
  CU_ASSERT_EQUAL(rt_records(&h), 2 * plain_records);

  /* An explicit default is the plain twin: its record, nothing measured
   * (on_miss would have measured a key of its own). */
  OLC_ASSERT_OK(olc_binding_select(&s, bz, &on_miss, &err), &err);
  CU_ASSERT_STRING_EQUAL(digest_of(s), "workload:dtype=float32;k=8;m=8;n=8");
  CU_ASSERT_EQUAL(rt_measurements(&h), 2);
  CU_ASSERT_EQUAL(rt_records(&h), 2 * plain_records);

  olc_binding_free(bp);
  olc_binding_free(bl);
  olc_binding_free(bz);
  rt_close(&h);
}

/* A record saved as the host saved dtype/m/n/k workloads before layouts
 * were keyed, with its digest text as it is in stores today: selected,
 * not measured, for the plain workload and for explicit defaults. */
static void test_stored_record_keeps_identity(void) {
  static const olc_property structure[4] = {
      {"dtype", "float32"}, {"k", "64"}, {"m", "64"}, {"n", "64"}};
  olc_measurement ms = {"median_latency", 1.0, "us"};
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  olc_property defaults[6];
  olc_key key;
  rt_host h;
  rt_workload plain, explicit_defaults;
  olc_binding *b;
  const olc_selection *s = NULL;
  olc_error err;
  int i;
  rt_open(&h, tmp, NULL, "stored.txt", LAYOUT);
  memset(&key, 0, sizeof key);
  key.backend = "mock_det";
  key.operator_name = "MatMul";
  key.implementation = "1";
  key.model_digest = "workload:dtype=float32;k=64;m=64;n=64";
  key.processor = "mock-cpu";
  key.thread_count = 2;
  key.structure = structure;
  key.structure_count = 4;
  req.key = &key;
  req.measurements = &ms;
  req.measurement_count = 1;
  req.policy = "spin_us=777"; /* no candidate of mock_det: only the store has it */
  req.policy_len = 11;
  OLC_ASSERT_OK(olc_store_save(h.s.store, &req, &err), &err);

  rt_matmul(&plain, NULL, 64, 64, 64);
  rt_matmul(&explicit_defaults, NULL, 64, 64, 64);
  memcpy(defaults, explicit_defaults.props, sizeof explicit_defaults.props);
  defaults[4].name = "trans_b";
  defaults[4].value = "0";
  defaults[5].name = "trans_a";
  defaults[5].value = "0";
  explicit_defaults.w.properties = defaults;
  explicit_defaults.w.property_count = 6;
  for (i = 0; i < 2; i++) {
    char policy[32];
    b = rt_bind(&h, i == 0 ? &plain : &explicit_defaults);
    OLC_ASSERT_OK(olc_binding_select(&s, b, NULL, &err), &err);
    CU_ASSERT_FALSE(olc_selection_calibrated_now(s));
    CU_ASSERT_STRING_EQUAL(rt_policy(s, policy, sizeof policy), "spin_us=777");
    CU_ASSERT_STRING_EQUAL(digest_of(s), "workload:dtype=float32;k=64;m=64;n=64");
    olc_binding_free(b);
  }
  CU_ASSERT_EQUAL(rt_measurements(&h), 0);
  rt_close(&h);
}

/* An ini section with a property the plugin ignores: calibrate fails that
 * workload, naming the file, the section and the property; the others
 * are calibrated; explain refuses it. */
static void test_ini_section_refused(void) {
  const olc_workload_config *wc;
  const olc_workload_result *r;
  olc_calibration *cal = NULL;
  olc_lookup_result *lr = NULL;
  rt_host h;
  olc_error err;
  char where[64];
  rt_open(&h, tmp, NULL, "ini.txt",
          SHAPE_ONLY "[workload.tb]\nbackend = mock_det\noperator = MatMul\n"
                     "dtype = float32\nm = 8\nn = 8\nk = 8\ntrans_b = 1\n"
                     "[workload.plain]\nbackend = mock_det\noperator = MatMul\n"
                     "dtype = float32\nm = 8\nn = 8\nk = 8\n");
  OLC_ASSERT_OK(olc_host_calibrate(&cal, h.s.host, NULL, &err), &err);
  wc = olc_config_find_workload(h.s.config, "tb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(wc);
  r = olc_test_find_result(cal, "tb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  CU_ASSERT_EQUAL(r->status, OLC_E_INVALID);
  snprintf(where, sizeof where, "olc.ini:%u: [workload.tb]: ", (unsigned)wc->line);
  CU_ASSERT_TRUE(has(r->message, where));
  CU_ASSERT_TRUE(has(r->message, "property 'trans_b' is not one plugin 'mock_det' keys on"));
  r = olc_test_find_result(cal, "plain");
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  CU_ASSERT_EQUAL(r->status, OLC_OK);
  olc_calibration_free(cal);
  /* olc explain refuses it the same way. */
  CU_ASSERT_EQUAL(olc_host_explain(&lr, h.s.host, "tb", 0, &err), OLC_E_INVALID);
  CU_ASSERT_PTR_NULL(lr);
  CU_ASSERT_TRUE(has(err.message, "workload tb: property 'trans_b' is not one plugin 'mock_det'"));
  rt_close(&h);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("runtime_identity", setup, teardown);
  CU_add_test(s, "a property the key drops is refused", test_dropped_property_refused);
  CU_add_test(s, "ABI < 1.3: add_structure only", test_old_abi_structure_only);
  CU_add_test(s, "a layout and its plain twin", test_layout_and_plain_twin);
  CU_add_test(s, "a stored record keeps its identity", test_stored_record_keeps_identity);
  CU_add_test(s, "an ini section with a dropped property", test_ini_section_refused);
  return olc_test_run(argc, argv);
}
