/*
 * tests/host/test_runtime_bind.c - olc_host_bind and olc_host_select on
 * bad input (each its own status and a one-line message naming the
 * workload; nothing is written), the plugin's own refusals, and
 * olc_host_select's cache of bindings (one per description, whatever the
 * order of the properties or the name).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host.h"
#include "runtime_util.h"

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("runtime_bind");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

/* Binding w fails with status, a message holding needle, nothing bound. */
static void expect(rt_host *h, const olc_workload *w, olc_status status, const char *needle) {
  olc_binding *b = (olc_binding *)h;
  const olc_selection *s = (const olc_selection *)h;
  olc_error err;
  CU_ASSERT_EQUAL(olc_host_bind(&b, h->s.host, w, &err), status);
  CU_ASSERT_PTR_NULL(b);
  CU_ASSERT_EQUAL(err.code, status);
  if (strstr(err.message, needle) == NULL || strchr(err.message, '\n') != NULL) {
    fprintf(stderr, "\n  message \"%s\" lacks \"%s\"\n", err.message, needle);
    CU_FAIL("the message");
  }
  /* olc_host_select checks the same way. */
  CU_ASSERT_EQUAL(olc_host_select(&s, h->s.host, w, NULL, &err), status);
  CU_ASSERT_PTR_NULL(s);
  if (strstr(err.message, needle) == NULL) {
    fprintf(stderr, "\n  select: message \"%s\" lacks \"%s\"\n", err.message, needle);
    CU_FAIL("the message of olc_host_select");
  }
}

static void test_bad_input(void) {
  olc_property twice[2] = {{"m", "1"}, {"m", "2"}};
  olc_property noname[1] = {{"", "1"}}, nullvalue[1] = {{"m", NULL}};
  olc_property notutf8[1] = {{"m", "\xc3\x28"}};
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  olc_error err;
  rt_open(&h, tmp, NULL, "bad.txt", NULL);
  CU_ASSERT_EQUAL(olc_host_bind(NULL, h.s.host, &rw.w, &err), OLC_E_INVALID);
  CU_ASSERT_EQUAL(olc_host_bind(&b, NULL, &rw.w, &err), OLC_E_INVALID);
  CU_ASSERT_EQUAL(olc_host_bind(&b, h.s.host, NULL, &err), OLC_E_INVALID);
  rt_matmul(&rw, NULL, 1, 1, 1);
  rw.w.version = 0;
  expect(&h, &rw.w, OLC_E_INVALID, "olc_workload version 0 is invalid");
  rw.w.version = OLC_WORKLOAD_VERSION + 1;
  expect(&h, &rw.w, OLC_E_INVALID, "newer than this library's");
  rt_matmul(&rw, "nope", 1, 1, 1);
  expect(&h, &rw.w, OLC_E_NOT_FOUND, "workload 'nope/MatMul': plugin 'nope' not loaded");
  rt_matmul(&rw, NULL, 1, 1, 1);
  rw.w.operator_name = "Softmax";
  expect(&h, &rw.w, OLC_E_UNSUPPORTED, "plugin 'mock_det' does not serve operator 'Softmax'");
  rw.w.operator_name = NULL;
  expect(&h, &rw.w, OLC_E_INVALID, "no operator");
  rt_matmul(&rw, NULL, 1, 1, 1);
  rw.w.backend = "";
  expect(&h, &rw.w, OLC_E_INVALID, "no backend");
  rt_matmul(&rw, NULL, 1, 1, 1);
  rw.w.name = "mine";
  rw.w.properties = twice;
  rw.w.property_count = 2;
  expect(&h, &rw.w, OLC_E_INVALID, "workload 'mine': property 'm' given twice");
  rw.w.properties = noname;
  rw.w.property_count = 1;
  expect(&h, &rw.w, OLC_E_INVALID, "property 0 has no name");
  rw.w.properties = nullvalue;
  expect(&h, &rw.w, OLC_E_INVALID, "property 'm' has no value");
  rw.w.properties = notutf8;
  expect(&h, &rw.w, OLC_E_INVALID, "property 0 is not valid utf-8");
  rw.w.properties = NULL;
  expect(&h, &rw.w, OLC_E_INVALID, "1 properties at a null pointer");
  rt_matmul(&rw, NULL, 1, 1, 1);
  rw.w.model_len = 10;
  expect(&h, &rw.w, OLC_E_INVALID, "10 model bytes at a null pointer");
  rw.w.model_len = 0;
  rw.w.model_digest = "";
  expect(&h, &rw.w, OLC_E_INVALID, "model_digest is empty");
  /* The identity of a workload without a model is no model's digest. */
  rw.w.model_digest = "workload:aa";
  expect(&h, &rw.w, OLC_E_INVALID, "model_digest 'workload:aa' is not a model digest");
  /* Nothing was written: the store file was never created. */
  CU_ASSERT_NOT_EQUAL(access(olc_store_path(h.s.store), F_OK), 0);
  rt_close(&h);
}

/* What the plugin refuses, and a plugin that cannot run here. */
static void test_plugin_refusals(void) {
  rt_host h;
  rt_workload rw;
  rt_open(&h, tmp, NULL, "refuse.txt", "[plugin.mock_det]\nkey = invalid\n");
  rt_matmul(&rw, NULL, 1, 1, 1);
  expect(&h, &rw.w, OLC_E_INVALID, "plugin mock_det: workload rejected on purpose");
  rt_close(&h);
  rt_open(&h, tmp, NULL, "refuse.txt", "[plugin.mock_det]\nkey = unsupported\n");
  expect(&h, &rw.w, OLC_E_UNSUPPORTED, "operator not served by the mock");
  rt_close(&h);
  rt_open(&h, tmp, "create_unavailable", "refuse.txt", NULL);
  rt_matmul(&rw, "mock_create_unavailable", 1, 1, 1);
  expect(&h, &rw.w, OLC_E_UNAVAILABLE, "unavailable here: no mock device on this machine");
  CU_ASSERT_NOT_EQUAL(access(olc_store_path(h.s.store), F_OK), 0);
  rt_close(&h);
}

static size_t cached(rt_host *h) {
  olc_host_stats st;
  olc_host__stats(&st, h->s.host);
  return st.bindings;
}

/* One cached binding per description (the name is not part of it). */
static void test_select_cache(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  olc_property reordered[4] = {{"k", "3"}, {"n", "2"}, {"dtype", "float32"}, {"m", "1"}};
  olc_host_stats st;
  rt_host h;
  rt_workload rw;
  const olc_selection *s, *s2;
  olc_error err;
  rt_open(&h, tmp, NULL, "cache.txt", NULL);
  rt_matmul(&rw, NULL, 1, 2, 3);
  OLC_ASSERT_OK(olc_host_select(&s, h.s.host, &rw.w, &on_miss, &err), &err);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  rw.w.properties = reordered;
  rw.w.name = "another name";
  OLC_ASSERT_OK(olc_host_select(&s2, h.s.host, &rw.w, NULL, &err), &err);
  CU_ASSERT_PTR_EQUAL(s2, s);
  CU_ASSERT_EQUAL(cached(&h), 1);
  rw.w.model_digest = "sha256:00";
  /* Another model: its own binding and key; the portable record serves. */
  OLC_ASSERT_OK(olc_host_select(&s2, h.s.host, &rw.w, NULL, &err), &err);
  CU_ASSERT_EQUAL(olc_selection_record(s2)->level, OLC_LEVEL_PORTABLE);
  CU_ASSERT_EQUAL(cached(&h), 2);
  rw.w.model_digest = NULL;
  OLC_ASSERT_OK(olc_host_select(&s2, h.s.host, &rw.w, NULL, &err), &err);
  CU_ASSERT_PTR_EQUAL(s2, s);
  olc_host__stats(&st, h.s.host);
  CU_ASSERT_EQUAL(st.bindings, 2);
  CU_ASSERT_EQUAL(st.slots, 2);
  CU_ASSERT_EQUAL(st.measurements, 1);
  rt_close(&h);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("runtime_bind", setup, teardown);
  CU_add_test(s, "bad input", test_bad_input);
  CU_add_test(s, "the plugin's refusals", test_plugin_refusals);
  CU_add_test(s, "olc_host_select's cache", test_select_cache);
  return olc_test_run(argc, argv);
}
