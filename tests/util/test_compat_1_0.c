/*
 * tests/util/test_compat_1_0.c - a caller built against the public
 * headers of release 1.0 (caller_1_0.c, compiled with the frozen
 * olc_1_0.h) runs with this library: every struct it
 * fills is accepted, the fields its structs lack take their defaults, the
 * library reads nothing past their ends, and the olc_error it declares has
 * the layout the library writes.  Also version 0 and a version newer than
 * the library's, for every versioned struct, with their messages.
 */
#include <CUnit/CUnit.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "olc/host.h"
#include "olc/store.h"
#include "test_support.h"
#include "caller_1_0.h"

#ifndef OLC_MOCK_PLUGIN_DIR_GOOD
#error "OLC_MOCK_PLUGIN_DIR_GOOD must be defined"
#endif

#define MISSING_WORKER "/nonexistent/olc-worker"

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("compat");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

static void test_error_layout(void) {
  CU_ASSERT_EQUAL(v1_error_size(), sizeof(olc_error));
  CU_ASSERT_EQUAL(v1_error_offset(0), offsetof(olc_error, code));
  CU_ASSERT_EQUAL(v1_error_offset(1), offsetof(olc_error, offset));
  CU_ASSERT_EQUAL(v1_error_offset(2), offsetof(olc_error, where));
  CU_ASSERT_EQUAL(v1_error_offset(3), offsetof(olc_error, message));
}

static olc_store *open_v1_store(const char *name, int placement) {
  olc_store *s = NULL;
  char msg[512];
  char *path = olc_test_path(tmp, name);
  int st = v1_store_open(&s, path, 1, placement, msg, sizeof msg);
  if (st != OLC_OK)
    fprintf(stderr, "v1 olc_store_open: %s\n", msg);
  CU_ASSERT_EQUAL(st, OLC_OK);
  free(path);
  return s;
}

static void store_v1(const char *name, int placement) {
  olc_store *s = open_v1_store(name, placement);
  olc_lookup_result *res = NULL;
  const olc_record *r;
  char msg[512];
  int st;
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  st = v1_store_save(s, "tile=8", placement, msg, sizeof msg);
  if (st != OLC_OK)
    fprintf(stderr, "v1 olc_store_save: %s\n", msg);
  CU_ASSERT_EQUAL(st, OLC_OK);
  st = v1_store_lookup(&res, s, placement, msg, sizeof msg);
  if (st != OLC_OK)
    fprintf(stderr, "v1 olc_store_lookup: %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(st, OLC_OK);
  r = olc_lookup_result_selected(res);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  CU_ASSERT_EQUAL(r->level, OLC_LEVEL_EXACT);
  CU_ASSERT_EQUAL(r->origin, OLC_ORIGIN_CALIBRATED);
  CU_ASSERT_STRING_EQUAL((const char *)r->policy, "tile=8");
  olc_lookup_result_free(res);
  /* persistence_enabled and check_for_changes took the caller's 1s: the
   * record is in the file a second handle reads */
  olc_store_free(s);
  s = open_v1_store(name, V1_GUARDED);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  st = v1_store_lookup(&res, s, V1_GUARDED, msg, sizeof msg);
  CU_ASSERT_EQUAL(st, OLC_OK);
  olc_lookup_result_free(res);
  olc_store_free(s);
}

static void test_store_guarded(void) { store_v1("guarded.txt", V1_GUARDED); }
static void test_store_garbage(void) { store_v1("garbage.txt", V1_GARBAGE); }

static olc_config *mock_config(const char *store_name) {
  char text[1024];
  olc_config *c = NULL;
  olc_error err;
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s\nthreads = 1\n[store]\npath = %s/%s\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
                   "[workload.mm]\nbackend = mock_det\noperator = MatMul\n"
                   "dtype = float32\nm = 8\nn = 4\nk = 2\n",
                   OLC_MOCK_PLUGIN_DIR_GOOD, tmp, store_name);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  OLC_ASSERT_OK(olc_config_load_string(&c, text, (size_t)n, "compat.ini", tmp, &err), &err);
  return c;
}

/* 1 when r's policy is one of the measured candidates'. */
static int is_candidate(const olc_workload_result *w, const olc_record *r) {
  size_t i;
  for (i = 0; i < w->candidate_count; i++)
    if (w->candidates[i].status == OLC_OK && w->candidates[i].policy_len == r->policy_len &&
        memcmp(w->candidates[i].policy, r->policy, r->policy_len) == 0)
      return 1;
  return 0;
}

/* A 1.0 caller that leaves in_process alone gets a worker process (the
 * default), here one that is missing, so the loop measures in-process and
 * says why.  Then the runtime path's structs (olc_workload,
 * olc_select_options) and olc_verify_options of the same caller. */
static void host_v1(const char *store_name, int placement) {
  olc_config *c = mock_config(store_name);
  olc_store *s = open_v1_store(store_name, V1_GUARDED);
  olc_host *h = NULL;
  olc_calibration *cal = NULL;
  const olc_workload_result *w;
  size_t progress = 0;
  char msg[512];
  int st;
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  st = v1_host_open(&h, c, s, placement, msg, sizeof msg);
  if (st != OLC_OK)
    fprintf(stderr, "v1 olc_host_open: %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(st, OLC_OK);
  CU_ASSERT_EQUAL_FATAL(setenv("OLC_WORKER", MISSING_WORKER, 1), 0);
  st = v1_host_calibrate(&cal, h, placement, &progress, msg, sizeof msg);
  unsetenv("OLC_WORKER");
  if (st != OLC_OK)
    fprintf(stderr, "v1 olc_host_calibrate: %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(st, OLC_OK);
  CU_ASSERT_EQUAL_FATAL(olc_calibration_count(cal), 1);
  w = olc_calibration_get(cal, 0);
  CU_ASSERT_EQUAL(w->status, OLC_OK);
  CU_ASSERT(w->calibrated_now);
  CU_ASSERT(progress > 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w->selected);
  CU_ASSERT(is_candidate(w, w->selected)); /* which one wins is the race's */
  CU_ASSERT_PTR_NOT_NULL_FATAL(w->message);
  CU_ASSERT_PTR_NOT_NULL(strstr(w->message, "OLC_WORKER=" MISSING_WORKER));
  olc_calibration_free(cal);
  {
    olc_binding *b = NULL;
    const olc_selection *sel = NULL;
    size_t considered = 99;
    st = v1_host_bind(&b, h, placement, msg, sizeof msg);
    if (st != OLC_OK)
      fprintf(stderr, "1.0 olc_host_bind: %s\n", msg);
    CU_ASSERT_EQUAL_FATAL(st, OLC_OK);
    st = v1_binding_select(&sel, b, placement, msg, sizeof msg);
    if (st < 0)
      fprintf(stderr, "1.0 olc_binding_select: %s\n", msg);
    CU_ASSERT(st >= 0); /* never mode: a record, the nearest, or the first candidate */
    CU_ASSERT_PTR_NOT_NULL(sel);
    olc_binding_free(b);
    st = v1_host_verify(h, placement, &considered, msg, sizeof msg);
    if (st != OLC_OK)
      fprintf(stderr, "1.0 olc_host_verify: %s\n", msg);
    CU_ASSERT_EQUAL(st, OLC_OK);
    CU_ASSERT_EQUAL(considered, 0u); /* no layers */
  }
  olc_host_free(h);
  olc_store_free(s);
  olc_config_free(c);
}

static void test_host_guarded(void) { host_v1("host_guarded.txt", V1_GUARDED); }
static void test_host_garbage(void) { host_v1("host_garbage.txt", V1_GARBAGE); }

static void expect_message(olc_status st, const olc_error *e, const char *name, uint32_t version,
                           uint32_t current) {
  char want[OLC_ERROR_MESSAGE_SIZE];
  if (version == 0)
    snprintf(want, sizeof want, "%s version 0 is invalid (this library accepts 1 to %u)", name,
             (unsigned)current);
  else
    snprintf(want, sizeof want, "%s version %u is newer than this library's %u", name,
             (unsigned)version, (unsigned)current);
  CU_ASSERT_EQUAL(st, OLC_E_INVALID);
  CU_ASSERT_EQUAL(e->code, OLC_E_INVALID);
  CU_ASSERT_STRING_EQUAL(e->message, want);
}

/* Version 0 and the library's version + 1 of every versioned struct. */
static void test_versions_rejected(void) {
  olc_key key = {"compat", "MatMul", "1", "model", "cpu", 1, NULL, 0};
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  olc_save_request sr = OLC_SAVE_REQUEST_INIT;
  olc_lookup_options lo = OLC_LOOKUP_OPTIONS_INIT;
  olc_host_options ho = OLC_HOST_OPTIONS_INIT;
  olc_calibrate_options co = OLC_CALIBRATE_OPTIONS_INIT;
  olc_verify_options vo = OLC_VERIFY_OPTIONS_INIT;
  olc_config *c = mock_config("versions.txt");
  olc_store *s = NULL;
  olc_host *h = NULL;
  olc_lookup_result *res = NULL;
  olc_calibration *cal = NULL;
  olc_error e;
  size_t i;
  so.persistence_enabled = 0;
  OLC_ASSERT_OK(olc_store_open(&s, &so, &e), &e);
  ho.ignore_env = 1;
  OLC_ASSERT_OK(olc_host_open(&h, c, s, &ho, &e), &e);
  sr.key = &key;
  sr.policy = "p";
  sr.policy_len = 1;
  lo.key = &key;
  for (i = 0; i < 2; i++) {
    olc_store *s2 = NULL;
    olc_host *h2 = NULL;
    so.version = i == 0 ? 0 : OLC_STORE_OPTIONS_VERSION + 1;
    expect_message(olc_store_open(&s2, &so, &e), &e, "olc_store_options", so.version,
                   OLC_STORE_OPTIONS_VERSION);
    CU_ASSERT_PTR_NULL(s2);
    sr.version = i == 0 ? 0 : OLC_SAVE_REQUEST_VERSION + 1;
    expect_message(olc_store_save(s, &sr, &e), &e, "olc_save_request", sr.version,
                   OLC_SAVE_REQUEST_VERSION);
    lo.version = i == 0 ? 0 : OLC_LOOKUP_OPTIONS_VERSION + 1;
    expect_message(olc_store_lookup(&res, s, &lo, &e), &e, "olc_lookup_options", lo.version,
                   OLC_LOOKUP_OPTIONS_VERSION);
    CU_ASSERT_PTR_NULL(res);
    ho.version = i == 0 ? 0 : OLC_HOST_OPTIONS_VERSION + 1;
    expect_message(olc_host_open(&h2, c, s, &ho, &e), &e, "olc_host_options", ho.version,
                   OLC_HOST_OPTIONS_VERSION);
    CU_ASSERT_PTR_NULL(h2);
    co.version = i == 0 ? 0 : OLC_CALIBRATE_OPTIONS_VERSION + 1;
    expect_message(olc_host_calibrate(&cal, h, &co, &e), &e, "olc_calibrate_options", co.version,
                   OLC_CALIBRATE_OPTIONS_VERSION);
    CU_ASSERT_PTR_NULL(cal);
    vo.version = i == 0 ? 0 : OLC_VERIFY_OPTIONS_VERSION + 1;
    expect_message(olc_host_verify(h, &vo, NULL, NULL, NULL, &e), &e, "olc_verify_options",
                   vo.version, OLC_VERIFY_OPTIONS_VERSION);
  }
  olc_host_free(h);
  olc_store_free(s);
  olc_config_free(c);
}

/* The message reaches a 1.0 caller's olc_error. */
static void test_v1_newer_rejected(void) {
  olc_store *s = NULL;
  char msg[512], want[256];
  char *path = olc_test_path(tmp, "newer.txt");
  int st = v1_store_open(&s, path, OLC_STORE_OPTIONS_VERSION + 1, V1_GUARDED, msg, sizeof msg);
  snprintf(want, sizeof want, "olc_store_options version %u is newer than this library's %u",
           (unsigned)OLC_STORE_OPTIONS_VERSION + 1, (unsigned)OLC_STORE_OPTIONS_VERSION);
  CU_ASSERT_EQUAL(st, OLC_E_INVALID);
  CU_ASSERT_STRING_EQUAL(msg, want);
  CU_ASSERT_PTR_NULL(s);
  free(path);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("compat_1_0", setup, teardown);
  CU_add_test(s, "olc_error keeps its 1.0 layout", test_error_layout);
  CU_add_test(s, "1.0 store structs, nothing read past their ends", test_store_guarded);
  CU_add_test(s, "1.0 store structs followed by garbage", test_store_garbage);
  CU_add_test(s, "1.0 host, calibrate, workload, select, verify options, nothing read past",
              test_host_guarded);
  CU_add_test(s, "the same followed by garbage", test_host_garbage);
  CU_add_test(s, "version 0 and newer rejected, with the message", test_versions_rejected);
  CU_add_test(s, "a newer version's message reaches a 1.0 olc_error", test_v1_newer_rejected);
  return olc_test_run(argc, argv);
}
