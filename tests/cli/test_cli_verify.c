/*
 * tests/cli_host/test_cli_verify.c - olc verify on a layer made by another
 * run: one run calibrates two shapes of mock_det (candidates = by_m, each
 * shape's winner spin_us=m) into a file that a second configuration reads
 * as a read-only layer beneath its own store; there the plugin's timings
 * are steered (fail = 64: the policy spin_us=64 fails on "this machine"),
 * so the m = 64 record no longer wins and the m = 128 one still does.
 * With --read-only (and --dry-run) the loser is reported stale and nothing
 * is written; then verify recalibrates it into the user's store, which
 * select serves from then on while the layer file stays as it was, and a
 * second verify finds it shadowed.  --sample 1 verifies one record; --json
 * carries the outcomes and counts.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_test_util.h"
#include "test_support.h"

static char *g_dir, *g_run1, *g_run2, *g_layer, *g_user;
static cli_run g_r;

static int run(const char *const *argv) {
  cli_run_free(&g_r);
  CU_ASSERT_EQUAL_FATAL(cli_test_run(&g_r, g_dir, NULL, argv), 0);
  return g_r.code;
}

static void write_ini(const char *path, const char *store, const char *layers, const char *plugin) {
  char text[2048];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s\nthreads = 2\n[store]\npath = %s\nlayers = %s\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.002\n"
                   "isolation = false\n[plugin.mock_det]\ncandidates = by_m\n%s"
                   "[workload.a]\nbackend = mock_det\noperator = MatMul\nm = 64\nn = 64\n"
                   "k = 64\n"
                   "[workload.b]\nbackend = mock_det\noperator = MatMul\nm = 128\nn = 64\n"
                   "k = 64\n",
                   OLC_MOCK_PLUGIN_DIR_GOOD, store, layers, plugin);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, text, (size_t)n), 0);
}

static int exists(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f != NULL)
    fclose(f);
  return f != NULL;
}

static char *slurp(const char *path) {
  size_t len = 0;
  unsigned char *d = olc_test_read_file(path, &len);
  return (char *)d;
}

static void test_verify(void) {
  const char *calibrate[] = {"calibrate", "--config", g_run1, NULL};
  const char *ro[] = {"--read-only", "verify", "--config", g_run2, NULL};
  const char *dry[] = {"verify", "--config", g_run2, "--dry-run", NULL};
  const char *verify[] = {"verify", "--config", g_run2, NULL};
  const char *sample[] = {"verify", "--config", g_run2, "--sample", "1", "--json", NULL};
  const char *select[] = {"select", "--config", g_run2, NULL};
  const char *bad[] = {"verify", "--config", g_run2, "--sample", "0", NULL};
  char *layer_before, *layer_after;
  write_ini(g_run1, g_layer, "", "");
  write_ini(g_run2, g_user, g_layer, "fail = 64\n");
  CU_ASSERT_EQUAL_FATAL(run(calibrate), 0);
  layer_before = slurp(g_layer);
  CU_ASSERT_PTR_NOT_NULL_FATAL(layer_before);
  HAS(layer_before, "spin_us=64");
  HAS(layer_before, "spin_us=128");

  /* A read-only store: measured and reported, nothing written. */
  CU_ASSERT_EQUAL(run(ro), 0);
  HAS(g_r.out, "kept         mock_det/MatMul exact k=64;m=128;n=64 in ");
  HAS(g_r.out, "stale        mock_det/MatMul exact k=64;m=64;n=64 in ");
  HAS(g_r.out, "the stored policy failed here");
  HAS(g_r.out, "not saved (the store is read-only)");
  HAS(g_r.out, "new policy \"spin_us=");
  HAS(g_r.out, "verified 4 layer records: 1 kept, 0 recalibrated, 1 stale, 2 skipped, 0 failed");
  CU_ASSERT_FALSE(exists(g_user));
  CU_ASSERT_EQUAL(run(dry), 0);
  HAS(g_r.out, "not saved (dry run)");
  CU_ASSERT_FALSE(exists(g_user));

  /* Recalibrated into the user's store; the layer is never written. */
  CU_ASSERT_EQUAL(run(verify), 0);
  HAS(g_r.out, "recalibrated mock_det/MatMul exact k=64;m=64;n=64 in ");
  HAS(g_r.out, "saved to ");
  HAS(g_r.out, "verified 4 layer records: 1 kept, 1 recalibrated, 0 stale, 2 skipped, 0 failed");
  layer_after = slurp(g_layer);
  CU_ASSERT_PTR_NOT_NULL_FATAL(layer_after);
  CU_ASSERT_STRING_EQUAL(layer_after, layer_before);
  CU_ASSERT_EQUAL(run(select), 0);
  HAS_NOT(g_r.out, "spin_us=64 ");
  /* Verified again: the user's record shadows the layer's now. */
  CU_ASSERT_EQUAL(run(verify), 0);
  HAS(g_r.out, "skipped      mock_det/MatMul exact k=64;m=64;n=64 in ");
  HAS(g_r.out, "shadowed here by the exact calibrated record of ");
  HAS(g_r.out, "1 kept, 0 recalibrated, 0 stale, 3 skipped");

  CU_ASSERT_EQUAL(run(sample), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"verified\":1");
  CU_ASSERT_EQUAL(cli_test_count(g_r.out, "\"outcome\":"), 1);
  CU_ASSERT_EQUAL(run(bad), 2);
  HAS(g_r.err, "--sample");
  free(layer_before);
  free(layer_after);
}

static int setup(void) {
  return cli_test_dir_open(&g_dir, "cli_verify", &g_run1, "run1.ini", &g_run2, "run2.ini", &g_layer,
                           "shipped.txt", &g_user, "user.txt", NULL) != 0;
}

static int teardown(void) {
  cli_test_dir_close(&g_r, &g_dir, &g_run1, &g_run2, &g_layer, &g_user, NULL);
  return 0;
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("cli_verify", setup, teardown);
  CU_add_test(s, "verify a layer made by another run", test_verify);
  return olc_test_run(argc, argv);
}
