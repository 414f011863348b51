/*
 * tests/cli/test_cli_fleet.c - the fleet workflow end to end through the
 * built olc, with three machine identities (mock_det's processor setting,
 * [plugin.mock_det] processor):
 *
 * - machine A (processor "hw-alpha") calibrates and exports its records;
 *   the export is shipped as a read-only layer (fleet/alpha.txt);
 * - machine B, with A's identity, selects A's exact record from the layer
 *   without measuring (calibrate says selected from the store, its own
 *   store file is never created), and JSON names the layer as the source;
 * - machine C (processor "hw-beta") gets the portable record from the
 *   layer, reported as portable, with A's exact record rejected for its
 *   processor; after --recalibrate it keeps its own exact record in its own
 *   file, which then wins, and the layer is unchanged byte for byte;
 * - list and export filter by source (user, layers, a file).
 */
#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_test_util.h"
#include "test_support.h"

static char *g_dir;
static cli_run g_r;

#define HAS(s, needle) CU_ASSERT_PTR_NOT_NULL(strstr((s), (needle)))
#define HAS_NOT(s, needle) CU_ASSERT_PTR_NULL(strstr((s), (needle)))

static int run(const char *first, ...) {
  const char *argv[64];
  size_t n = 0;
  const char *a;
  va_list ap;
  va_start(ap, first);
  for (a = first; a != NULL && n < 63; a = va_arg(ap, const char *))
    argv[n++] = a;
  va_end(ap);
  argv[n] = NULL;
  cli_run_free(&g_r);
  CU_ASSERT_EQUAL_FATAL(cli_test_run(&g_r, g_dir, NULL, argv), 0);
  if (g_r.code != 0)
    fprintf(stderr, "olc %s ... -> %d\n%s%s", argv[0], g_r.code, g_r.out, g_r.err);
  return g_r.code;
}

/* machine.ini for one machine: its own store, its processor, and the
 * fleet's layer (none for A, which calibrates from scratch). */
static char *machine(const char *name, const char *processor, int with_layer) {
  char text[2048], file[64];
  char *ini;
  int n;
  snprintf(file, sizeof file, "%s.ini", name);
  ini = olc_test_path(g_dir, file);
  n = snprintf(text, sizeof text,
               "[host]\nplugin_dirs = %s\nthreads = 2\n"
               "[store]\npath = %s/store.txt\nlayers = %s\n"
               "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.002\n"
               "max_seconds_per_workload = 30\n"
               "[plugin.mock_det]\ncandidates = 300,130,100\nprocessor = %s\n"
               "[workload.mm]\nbackend = mock_det\noperator = MatMul\nm = 8\nn = 4\nk = 2\n",
               OLC_MOCK_PLUGIN_DIR_GOOD, name, with_layer ? "fleet/*.txt" : "", processor);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(ini, text, (size_t)n), 0);
  return ini;
}

static int exists(const char *rel) {
  struct stat st;
  char *p = olc_test_path(g_dir, rel);
  int e = stat(p, &st) == 0;
  free(p);
  return e;
}

static void test_fleet(void) {
  char *a, *b, *c, *layer = olc_test_path(g_dir, "fleet/alpha.txt"), *fleet;
  char *again = olc_test_path(g_dir, "again.txt");
  unsigned char *before, *after;
  size_t blen, alen;
  char want[4200];
  fleet = olc_test_path(g_dir, "fleet");
  CU_ASSERT_EQUAL_FATAL(mkdir(fleet, 0700), 0);
  a = machine("A", "hw-alpha", 0);
  b = machine("B", "hw-alpha", 1);
  c = machine("C", "hw-beta", 1);

  /* A: calibrate once for the hardware type, export, ship the file. */
  CU_ASSERT_EQUAL(run("--config", a, "calibrate", "--json", NULL), 0);
  HAS(g_r.out, "\"calibrated_now\":true");
  CU_ASSERT_EQUAL(run("--config", a, "export", layer, NULL), 0);
  CU_ASSERT_EQUAL(run("check", layer, NULL), 0);
  HAS(g_r.out, "2 records");
  before = olc_test_read_file(layer, &blen);
  CU_ASSERT_PTR_NOT_NULL_FATAL(before);

  /* B: A's identity selects A's exact record from the layer, measuring
   * nothing and writing nothing. */
  CU_ASSERT_EQUAL(run("--config", b, "calibrate", "--json", NULL), 0);
  HAS(g_r.out, "\"calibrated_now\":false");
  HAS(g_r.out, "\"selected\":{\"level\":\"exact\",\"origin\":\"calibrated\"");
  HAS(g_r.out, "\"processor\":\"hw-alpha\"");
  snprintf(want, sizeof want, "\"policy\":\"spin_us=100\",\"source\":\"%s\",\"layer\":true", layer);
  HAS(g_r.out, want);
  CU_ASSERT_FALSE(exists("B/store.txt"));
  CU_ASSERT_EQUAL(run("--config", b, "select", "-v", NULL), 0);
  snprintf(want, sizeof want, "source layer \"%s\"", layer);
  HAS(g_r.out, want);

  /* C: another identity gets the portable record, reported as portable. */
  CU_ASSERT_EQUAL(run("--config", c, "select", "--json", NULL), 0);
  HAS(g_r.out, "\"selected\":{\"level\":\"portable\",\"origin\":\"calibrated\"");
  HAS(g_r.out, "\"reason\":\"different_processor\"");
  CU_ASSERT_EQUAL(run("--config", c, "select", NULL), 0);
  HAS(g_r.out, "selected  portable");
  CU_ASSERT_FALSE(exists("C/store.txt"));
  CU_ASSERT_EQUAL(run("--config", c, "explain", "--workload", "mm", "--source", "user", NULL), 0);
  snprintf(want, sizeof want, "selected: portable calibrated of another source, \"%s\"", layer);
  HAS(g_r.out, want);
  HAS(g_r.out, "1 rejected record of other sources not listed");
  CU_ASSERT_EQUAL(run("--config", c, "explain", "--workload", "mm", "--source", "layers", NULL), 0);
  HAS(g_r.out, "rejected: exact calibrated: different_processor");
  /* ... or calibrates and keeps its own records in its own file. */
  CU_ASSERT_EQUAL(run("--config", c, "calibrate", "--recalibrate", "--json", NULL), 0);
  HAS(g_r.out, "\"calibrated_now\":true");
  CU_ASSERT_TRUE(exists("C/store.txt"));
  CU_ASSERT_EQUAL(run("--config", c, "select", "--json", NULL), 0);
  HAS(g_r.out, "\"selected\":{\"level\":\"exact\",\"origin\":\"calibrated\"");
  HAS(g_r.out, "\"processor\":\"hw-beta\"");
  HAS(g_r.out, "/C/store.txt\",\"layer\":false");
  /* Its file holds its own records only, the layer is untouched. */
  CU_ASSERT_EQUAL(run("--config", c, "list", "--source", "user", NULL), 0);
  HAS(g_r.out, "2 records");
  HAS(g_r.out, "hw-beta");
  HAS_NOT(g_r.out, "hw-alpha");
  HAS_NOT(g_r.out, "source layer");
  CU_ASSERT_EQUAL(run("--config", c, "list", "--source", "layers", "--json", NULL), 0);
  HAS(g_r.out, "hw-alpha");
  HAS_NOT(g_r.out, "hw-beta");
  CU_ASSERT_EQUAL(run("--config", c, "list", "--source", layer, NULL), 0);
  HAS(g_r.out, "2 records");
  CU_ASSERT_EQUAL(run("--config", c, "list", NULL), 0);
  HAS(g_r.out, "4 records");
  after = olc_test_read_file(layer, &alen);
  CU_ASSERT_TRUE_FATAL(after != NULL);
  CU_ASSERT_TRUE(alen == blen && memcmp(before, after, blen) == 0);
  /* export --source layers writes the layers' records that lookups see:
   * A's exact one; its portable one is shadowed by C's own. */
  CU_ASSERT_EQUAL(run("--config", c, "export", "--source", "layers", again, NULL), 0);
  CU_ASSERT_EQUAL(run("check", again, NULL), 0);
  HAS(g_r.out, "ok, 1 record");
  CU_ASSERT_EQUAL(run("--config", b, "export", "--source", "layers", again, NULL), 0);
  CU_ASSERT_EQUAL(run("check", again, NULL), 0);
  HAS(g_r.out, "ok, 2 records");
  /* D: A's identity with no layer in its ini, the fleet's file given by
   * OLC_STORE_LAYERS (the CLI opts in to the embedders' variables). */
  {
    char *d = machine("D", "hw-alpha", 0);
    char env_layers[4200];
    const char *env[2], *argv[] = {"--config", NULL, "calibrate", "--json", NULL};
    snprintf(env_layers, sizeof env_layers, "OLC_STORE_LAYERS=%s", layer);
    env[0] = env_layers;
    env[1] = NULL;
    argv[1] = d;
    cli_run_free(&g_r);
    CU_ASSERT_EQUAL_FATAL(cli_test_run(&g_r, g_dir, env, argv), 0);
    CU_ASSERT_EQUAL(g_r.code, 0);
    HAS(g_r.out, "\"calibrated_now\":false");
    snprintf(want, sizeof want, "\"source\":\"%s\",\"layer\":true", layer);
    HAS(g_r.out, want);
    CU_ASSERT_FALSE(exists("D/store.txt"));
    /* Without the variable D measures for itself. */
    CU_ASSERT_EQUAL(run("--config", d, "list", NULL), 0);
    HAS(g_r.out, "0 records");
    free(d);
  }
  free(before);
  free(after);
  free(a);
  free(b);
  free(c);
  free(layer);
  free(fleet);
  free(again);
}

static int setup(void) {
  g_dir = olc_test_tmpdir("cli-fleet");
  return g_dir == NULL;
}

static int teardown(void) {
  cli_run_free(&g_r);
  olc_test_rmtree(g_dir);
  free(g_dir);
  return 0;
}

int main(int argc, char **argv) {
  CU_pSuite suite;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  suite = CU_add_suite("cli_fleet", setup, teardown);
  CU_add_test(suite, "fleet: calibrate on A, ship, select on B, portable or own on C", test_fleet);
  return olc_test_run(argc, argv);
}
