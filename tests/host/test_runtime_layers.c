/*
 * tests/runtime/test_runtime_layers.c - [store] verify_layers =
 * on_first_use: a layer (a profile shipped from another machine) holds
 * mock_det's records of two shapes, spin_us=64 for m = 64 and spin_us=128
 * for m = 128; on "this machine" spin_us=64 fails (fail = 64).  The first
 * on_miss select of each key races the layer's policy against the
 * candidates: m = 64 is recalibrated into the user's store and the new
 * record served, m = 128 keeps the layer's.  Never mode, and verify_layers
 * = never, measure nothing and serve the layer's records.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "runtime_util.h"

static char *tmp;

static int setup(void) { return olc_test_suite_tmpdir(&tmp, "runtime_layers"); }

static int teardown(void) { return olc_test_suite_rmtree(&tmp); }

/* A host whose store user.txt lies over the layer layer.txt. */
static void open_layered(olc_test_session *s, const char *verify, const char *plugin) {
  char text[2048];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s/good\nthreads = 2\n"
                   "[store]\npath = user.txt\nlayers = %s/layer.txt\nverify_layers = %s\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
                   "isolation = false\n[plugin.mock_det]\ncandidates = by_m\n%s",
                   OLC_MOCK_PLUGIN_ROOT, tmp, verify, plugin);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  olc_test_session_open(s, tmp, text, (size_t)n);
}

static void save_layer(long m) {
  char text[2048];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s/good\nthreads = 2\n[store]\npath = layer.txt\n",
                   OLC_MOCK_PLUGIN_ROOT);
  olc_test_session s;
  char digest[96], policy[32];
  olc_key key;
  olc_measurement ms = {OLC_MEASUREMENT_MEDIAN, 10.0, "us"};
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  olc_error err;
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  olc_test_session_open(&s, tmp, text, (size_t)n);
  memset(&key, 0, sizeof key);
  snprintf(digest, sizeof digest, "workload:dtype=float32;k=8;m=%ld;n=8", m);
  snprintf(policy, sizeof policy, "spin_us=%ld", m);
  key.backend = "mock_det";
  key.operator_name = "MatMul";
  key.implementation = "1";
  key.model_digest = digest;
  key.processor = "mock-cpu";
  key.thread_count = 2;
  req.key = &key;
  req.measurements = &ms;
  req.measurement_count = 1;
  req.policy = policy;
  req.policy_len = strlen(policy);
  req.levels = OLC_LEVEL_BIT_EXACT;
  OLC_ASSERT_OK(olc_store_save(s.store, &req, &err), &err);
  olc_test_session_close(&s);
}

static const olc_selection *select_m(olc_test_session *s, long m, int mode, olc_status want) {
  rt_workload rw;
  const olc_selection *sel = NULL;
  olc_select_options o = rt_mode(mode);
  olc_error err;
  rt_matmul(&rw, NULL, m, 8, 8);
  OLC_ASSERT_STATUS(want, olc_host_select(&sel, s->host, &rw.w, &o, &err), &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sel);
  return sel;
}

static uint64_t measured(olc_test_session *s) {
  olc_host_stats st;
  olc_host__stats(&st, s->host);
  return st.measurements;
}

static void test_on_first_use(void) {
  olc_test_session s;
  const olc_selection *sel;
  char buf[64];
  save_layer(64);
  save_layer(128);
  /* never mode measures nothing: the layer's records as they are. */
  open_layered(&s, "on_first_use", "fail = 64\n");
  sel = select_m(&s, 64, OLC_SELECT_NEVER, OLC_OK);
  CU_ASSERT_TRUE(olc_selection_record(sel)->from_layer);
  CU_ASSERT_EQUAL(measured(&s), 0);
  olc_test_session_close(&s);
  /* verify_layers = never: on_miss serves the layer's records too. */
  open_layered(&s, "never", "fail = 64\n");
  sel = select_m(&s, 64, OLC_SELECT_ON_MISS, OLC_OK);
  CU_ASSERT_TRUE(olc_selection_record(sel)->from_layer);
  CU_ASSERT_EQUAL(measured(&s), 0);
  olc_test_session_close(&s);
  /* on_first_use, on_miss: verified once per key. */
  open_layered(&s, "on_first_use", "fail = 64\n");
  sel = select_m(&s, 64, OLC_SELECT_ON_MISS, OLC_OK);
  CU_ASSERT_FALSE(olc_selection_record(sel)->from_layer);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(sel));
  CU_ASSERT_STRING_NOT_EQUAL(rt_policy(sel, buf, sizeof buf), "spin_us=64");
  CU_ASSERT_EQUAL(measured(&s), 1);
  sel = select_m(&s, 128, OLC_SELECT_ON_MISS, OLC_OK);
  CU_ASSERT_TRUE(olc_selection_record(sel)->from_layer);
  CU_ASSERT_STRING_EQUAL(rt_policy(sel, buf, sizeof buf), "spin_us=128");
  CU_ASSERT_EQUAL(measured(&s), 2);
  sel = select_m(&s, 128, OLC_SELECT_ON_MISS, OLC_OK);
  CU_ASSERT_EQUAL(measured(&s), 2);
  olc_test_session_close(&s);
  /* Another start: the user's record is served, nothing measured. */
  open_layered(&s, "on_first_use", "fail = 64\n");
  sel = select_m(&s, 64, OLC_SELECT_ON_MISS, OLC_OK);
  CU_ASSERT_FALSE(olc_selection_record(sel)->from_layer);
  CU_ASSERT_EQUAL(measured(&s), 0);
  olc_test_session_close(&s);
}

/* A never-mode select caches the layer's record first; the first on_miss
 * select of the key still verifies it (the warm answer is not served to
 * it before that). */
static void test_never_then_on_miss(void) {
  olc_test_session s;
  const olc_selection *sel;
  char buf[64], path[4096];
  /* The user's store of the test before holds m = 64 recalibrated. */
  snprintf(path, sizeof path, "%s/user.txt", tmp);
  remove(path);
  save_layer(64);
  open_layered(&s, "on_first_use", "fail = 64\n");
  sel = select_m(&s, 64, OLC_SELECT_NEVER, OLC_OK);
  CU_ASSERT_TRUE(olc_selection_record(sel)->from_layer);
  sel = select_m(&s, 64, OLC_SELECT_NEVER, OLC_OK);
  CU_ASSERT_EQUAL(measured(&s), 0);
  sel = select_m(&s, 64, OLC_SELECT_ON_MISS, OLC_OK);
  CU_ASSERT_FALSE(olc_selection_record(sel)->from_layer);
  CU_ASSERT_STRING_NOT_EQUAL(rt_policy(sel, buf, sizeof buf), "spin_us=64");
  CU_ASSERT_EQUAL(measured(&s), 1);
  /* Verified once: later selects of either mode serve the new record. */
  sel = select_m(&s, 64, OLC_SELECT_ON_MISS, OLC_OK);
  CU_ASSERT_FALSE(olc_selection_record(sel)->from_layer);
  sel = select_m(&s, 64, OLC_SELECT_NEVER, OLC_OK);
  CU_ASSERT_FALSE(olc_selection_record(sel)->from_layer);
  CU_ASSERT_EQUAL(measured(&s), 1);
  olc_test_session_close(&s);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("runtime_layers", setup, teardown);
  CU_add_test(s, "verify_layers = on_first_use", test_on_first_use);
  CU_add_test(s, "a never-mode select first, then on_miss", test_never_then_on_miss);
  return olc_test_run(argc, argv);
}
