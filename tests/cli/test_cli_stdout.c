/*
 * tests/cli/test_cli_stdout.c - a plugin that prints to stdout does
 * not reach olc's own output (issue 37 item 9).  mock_prints (the mock
 * built with MOCK_PRINTS) writes "mock stdout: entry", "... create" and
 * "... run" to its process's stdout and flushes it.  Each --json document
 * of plugins, calibrate (measured in-process, so run prints in olc
 * itself), select, explain and prune is one valid JSON value on stdout,
 * and the plugin's lines are on stderr.  Before, they were in the middle
 * of the document.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_test_util.h"
#include "test_support.h"

static char *g_dir;
static char *g_ini;
static char *g_store;
static cli_run g_r;

static void setup(void) {
  static const char ini[] = "[host]\nplugin_dirs = prints\nthreads = 1\n"
                            "[store]\npath = store.txt\n"
                            "[calibration]\nwarmup = 0\nmin_repetitions = 2\nmin_seconds = 0\n"
                            "max_seconds_per_workload = 5\n"
                            "[plugin.mock_prints]\ncandidates = 20,10\n"
                            "[workload.mm]\nbackend = mock_prints\noperator = MatMul\n"
                            "dtype = float32\nm = 8\nn = 4\nk = 2\n";
  CU_ASSERT_EQUAL_FATAL(
      cli_test_dir_open(&g_dir, "cli_stdout", &g_ini, "olc.ini", &g_store, "store.txt", NULL), 0);
  cli_test_copy_file(g_dir, OLC_MOCK_PLUGIN_ROOT "/prints/mock_prints.so", "prints", 0755);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(g_ini, ini, sizeof ini - 1), 0);
}

static void teardown(void) { cli_test_dir_close(&g_r, &g_dir, &g_ini, &g_store, NULL); }

#define OLC(...) cli_test_olc(&g_r, g_dir, NULL, "--config", g_ini, __VA_ARGS__, NULL)

/* The last run: exit code want, stdout one JSON document without the
 * plugin's lines, and the plugin's line what on stderr. */
static void expect_clean(const char *command, int want, const char *what) {
  char line[64];
  snprintf(line, sizeof line, "mock stdout: %s", what);
  if (g_r.code != want || !cli_test_json_valid(g_r.out) || strstr(g_r.out, "mock stdout") != NULL)
    fprintf(stderr, "\n  olc %s: exit %d\n--- stdout\n%s--- stderr\n%s", command, g_r.code, g_r.out,
            g_r.err);
  CU_ASSERT_EQUAL(g_r.code, want);
  CU_ASSERT_TRUE(cli_test_json_valid(g_r.out));
  HAS_NOT(g_r.out, "mock stdout");
  HAS(g_r.err, line);
}

static void test_json_documents(void) {
  setup();
  OLC("plugins", "--json");
  expect_clean("plugins", 0, "create");
  OLC("calibrate", "--json", "--in-process");
  expect_clean("calibrate", 0, "run");
  HAS(g_r.err, "mock stdout: entry");
  OLC("select", "--json");
  expect_clean("select", 0, "create");
  OLC("explain", "--json", "--workload", "mm");
  expect_clean("explain", 0, "create");
  OLC("prune", "--json", "--dry-run");
  expect_clean("prune", 0, "create");
  /* The text output keeps to stdout too. */
  OLC("select");
  CU_ASSERT_EQUAL(g_r.code, 0);
  HAS(g_r.out, "mm");
  HAS_NOT(g_r.out, "mock stdout");
  teardown();
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("cli_stdout", NULL, NULL);
  CU_add_test(s, "a plugin's stdout stays out of --json", test_json_documents);
  return olc_test_run(argc, argv);
}
