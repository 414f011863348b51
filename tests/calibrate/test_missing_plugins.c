/*
 * tests/calibrate/test_missing_plugins.c - workloads whose plugin is not
 * loaded, through olc_host_calibrate (select only: nothing is measured).
 *
 * In a configuration a user wrote: a plugin that cannot run here or that
 * the config disabled skips its workloads (OLC_E_UNAVAILABLE); a plugin
 * file that failed to load, or a backend that no file provides, fails
 * them (OLC_E_PLUGIN, the report's failure or the directories searched);
 * no plugin loaded at all fails the call.  The embedded default keeps
 * skipping (tests/cli covers it through olc, whose plugin
 * directories it locates).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "olc/host.h"
#include "olc/store.h"
#include "test_support.h"

#ifndef OLC_MOCK_PLUGIN_ROOT
#error "OLC_MOCK_PLUGIN_ROOT must be defined"
#endif

#define ROOT OLC_MOCK_PLUGIN_ROOT

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("missing_plugins");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

#define HAS(s, needle) CU_ASSERT_PTR_NOT_NULL((s) != NULL ? strstr((s), (needle)) : NULL)

static const char workloads[] = "[workload.mm]\nbackend = mock_det\noperator = MatMul\nm = 1\n"
                                "[workload.here_not]\nbackend = mock_create_unavailable\n"
                                "operator = MatMul\nm = 1\n"
                                "[workload.broken]\nbackend = mock_no_entry\noperator = MatMul\n"
                                "m = 1\n"
                                "[workload.off]\nbackend = mock_c\noperator = MatMul\nm = 1\n"
                                "[workload.nowhere]\nbackend = not_installed\noperator = MatMul\n"
                                "m = 1\n";

/* Opens a session over dirs (plugin_dirs) with the workloads above and
 * runs a select-only loop; returns its status, the calibration in *out. */
static olc_status select_all(olc_test_session *s, const char *dirs, olc_calibration **out,
                             olc_error *err) {
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  char text[4096];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s\nthreads = 1\n[store]\npath = store.txt\n"
                   "[plugin.mock_c]\nenabled = false\n%s",
                   dirs, workloads);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  olc_test_session_open(s, tmp, text, (size_t)n);
  opt.select_only = 1;
  olc_error_clear(err);
  return olc_host_calibrate(out, s->host, &opt, err);
}

static const olc_workload_result *find(const olc_calibration *cal, const char *name) {
  const olc_workload_result *r = olc_test_find_result(cal, name);
  if (r == NULL)
    CU_FAIL("workload missing from the results");
  return r;
}

/* Each way of missing gets its own status and says why. */
static void test_each_reason(void) {
  olc_test_session s;
  olc_calibration *cal = NULL;
  const olc_workload_result *r;
  olc_error err;
  olc_status st =
      select_all(&s, ROOT "/good, " ROOT "/create_unavailable, " ROOT "/no_entry, " ROOT "/sorted",
                 &cal, &err);
  CU_ASSERT_EQUAL_FATAL(st, OLC_OK);
  CU_ASSERT_EQUAL(find(cal, "mm")->status, OLC_E_NOT_FOUND); /* loaded; empty store */
  r = find(cal, "here_not");
  CU_ASSERT_EQUAL(r->status, OLC_E_UNAVAILABLE);
  HAS(r->message, "plugin 'mock_create_unavailable' unavailable here: ");
  r = find(cal, "off");
  CU_ASSERT_EQUAL(r->status, OLC_E_UNAVAILABLE);
  HAS(r->message, "plugin 'mock_c' is disabled");
  /* The file never said its name: it is known by the file's. */
  r = find(cal, "broken");
  CU_ASSERT_EQUAL(r->status, OLC_E_PLUGIN);
  HAS(r->message, "plugin 'mock_no_entry' not loaded: ");
  HAS(r->message, "/no_entry/mock_no_entry.so failed (symbol)");
  r = find(cal, "nowhere");
  CU_ASSERT_EQUAL(r->status, OLC_E_PLUGIN);
  HAS(r->message, "plugin 'not_installed' not loaded: no plugin file provides it (searched: " ROOT
                  "/good, " ROOT "/create_unavailable, ");
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* No plugin loaded at all: the call fails and names where it looked. */
static void test_none_loaded(void) {
  olc_test_session s;
  olc_calibration *cal = NULL;
  olc_error err;
  char want[4200];
  snprintf(want, sizeof want, "searched: %s/missing, %s/good_v2_not_here)", tmp, ROOT);
  {
    char dirs[4200];
    snprintf(dirs, sizeof dirs, "%s/missing, %s/good_v2_not_here", tmp, ROOT);
    CU_ASSERT_EQUAL(select_all(&s, dirs, &cal, &err), OLC_E_PLUGIN);
  }
  CU_ASSERT_PTR_NULL(cal);
  CU_ASSERT_STRING_EQUAL(err.where, "plugin_dirs");
  HAS(err.message, "no plugin loaded for 5 workloads of ");
  HAS(err.message, "(0 plugin files found; ");
  HAS(err.message, want);
  olc_test_session_close(&s);
  /* A plugin that cannot run here is not a misconfiguration: the loop runs
   * and only the workloads without any plugin fail. */
  CU_ASSERT_EQUAL(select_all(&s, ROOT "/create_unavailable", &cal, &err), OLC_OK);
  CU_ASSERT_EQUAL(find(cal, "here_not")->status, OLC_E_UNAVAILABLE);
  CU_ASSERT_EQUAL(find(cal, "mm")->status, OLC_E_PLUGIN);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* No workloads to run: nothing to complain about. */
static void test_no_workloads(void) {
  olc_test_session s;
  olc_calibration *cal = NULL;
  olc_error err;
  static const char ini[] = "[host]\nplugin_dirs = \n[store]\npath = store.txt\n";
  olc_test_session_open(&s, tmp, ini, sizeof ini - 1);
  OLC_ASSERT_OK(olc_host_calibrate(&cal, s.host, NULL, &err), &err);
  CU_ASSERT_EQUAL(olc_calibration_count(cal), 0u);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("missing_plugins", setup, teardown);
  CU_add_test(s, "each reason", test_each_reason);
  CU_add_test(s, "none loaded", test_none_loaded);
  CU_add_test(s, "no workloads", test_no_workloads);
  return olc_test_run(argc, argv);
}
