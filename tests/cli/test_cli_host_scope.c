/*
 * tests/cli/test_cli_host_scope.c - what olc calibrate, select and
 * explain list since lookups are scoped to the workload (issue 11 item 2):
 * with three shapes of one mock_det MatMul calibrated, each lists only its
 * own records and prints "4 records of other workloads not listed";
 * explain --all lists the other workloads' records; --json carries
 * "unlisted".
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_test_util.h"
#include "test_support.h"

static char *g_dir, *g_ini;
static cli_run g_r;

static int run(const char *const *argv) {
  cli_run_free(&g_r);
  CU_ASSERT_EQUAL_FATAL(cli_test_run(&g_r, g_dir, NULL, argv), 0);
  return g_r.code;
}

static void test_scope(void) {
  /* -v: the detail (candidates, rejections) after the one-line table. */
  const char *calibrate[] = {"calibrate", "--config", g_ini, "-v", NULL};
  const char *select[] = {"select", "--config", g_ini, "-v", NULL};
  const char *select_json[] = {"select", "--config", g_ini, "--json", NULL};
  const char *explain[] = {"explain", "--config", g_ini, "--workload", "a", NULL};
  const char *explain_all[] = {"explain", "--config", g_ini, "--workload", "a", "--all", NULL};
  const char *explain_json[] = {"explain", "--config", g_ini, "--workload", "a", "--json", NULL};
  char text[2048];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s\nthreads = 2\n[store]\npath = store.txt\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
                   "isolation = false\n[plugin.mock_det]\ncandidates = 3,1,2\n"
                   "[workload.a]\nbackend = mock_det\noperator = MatMul\nm = 1\n"
                   "[workload.b]\nbackend = mock_det\noperator = MatMul\nm = 2\n"
                   "[workload.c]\nbackend = mock_det\noperator = MatMul\nm = 3\n",
                   OLC_MOCK_PLUGIN_DIR_GOOD);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(g_ini, text, (size_t)n), 0);
  CU_ASSERT_EQUAL(run(calibrate), 0);
  /* a met none, b a's two records, c four. */
  HAS(g_r.out, "  2 records of other workloads not listed\n");
  HAS(g_r.out, "  4 records of other workloads not listed\n");
  CU_ASSERT_EQUAL(run(select), 0);
  CU_ASSERT_EQUAL(cli_test_count(g_r.out, "  4 records of other workloads not listed\n"), 3);
  HAS_NOT(g_r.out, "different_structure");
  CU_ASSERT_EQUAL(cli_test_count(g_r.out, "rejected: "), 3); /* each its portable, shadowed */
  CU_ASSERT_EQUAL(run(select_json), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  CU_ASSERT_EQUAL(cli_test_count(g_r.out, "\"unlisted\":4"), 3);
  CU_ASSERT_EQUAL(run(explain), 0);
  HAS(g_r.out, ": 2 records\n");
  HAS(g_r.out, "4 records of other workloads not listed\n");
  CU_ASSERT_EQUAL(run(explain_all), 0);
  HAS(g_r.out, ": 6 records\n");
  HAS_NOT(g_r.out, "not listed");
  CU_ASSERT_EQUAL(cli_test_count(g_r.out, "rejected: "), 5);
  CU_ASSERT_EQUAL(run(explain_json), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"unlisted\":4");
}

static int setup(void) {
  return cli_test_dir_open(&g_dir, "cli_host_scope", &g_ini, "olc.ini", NULL) != 0;
}

static int teardown(void) {
  cli_test_dir_close(&g_r, &g_dir, &g_ini, NULL);
  return 0;
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("cli_host_scope", setup, teardown);
  CU_add_test(s, "calibrate, select, explain list one workload's records", test_scope);
  return olc_test_run(argc, argv);
}
