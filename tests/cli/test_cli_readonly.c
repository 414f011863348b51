/*
 * tests/cli/test_cli_readonly.c - olc against stores it must not or
 * cannot write, end to end with mock_det: calibrate fails at the start
 * (exit 1, one line naming the path and why, nothing measured) on a store
 * in an immutable directory (root) or a directory without write permission
 * (other users), and calibrates in memory with --read-only, [store]
 * persistence = read_only or OLC_PERSISTENCE=read_only, saying once that
 * nothing was saved and leaving the file as it was; an unknown persistence
 * value is an ini error with file and line; olc prune --foreign removes the
 * records of another processor or thread count, and only with --foreign,
 * also cpu_gemm's records of bucketed shapes (m > 16, n > 64).
 */
#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_test_util.h"
#include "test_support.h"

static char *g_dir, *g_ini, *g_sub, *g_store;
static cli_run g_r;
static int g_immutable;

#define HAS(s, needle) CU_ASSERT_PTR_NOT_NULL(strstr((s), (needle)))

static size_t count(const char *s, const char *needle) {
  size_t n = 0;
  for (s = strstr(s, needle); s != NULL; s = strstr(s + 1, needle))
    n++;
  return n;
}

static void setup(void) {
  char path[4096];
  unsigned char *data;
  size_t len = 0;
  g_dir = olc_test_tmpdir("cli_ro");
  CU_ASSERT_PTR_NOT_NULL_FATAL(g_dir);
  g_ini = olc_test_path(g_dir, "olc.ini");
  g_sub = olc_test_path(g_dir, "ro");
  g_store = olc_test_path(g_sub, "store.txt");
  CU_ASSERT_EQUAL_FATAL(mkdir(g_sub, 0700), 0);
  snprintf(path, sizeof path, "%s/good", g_dir);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/good/mock_det.so", g_dir);
  data = olc_test_read_file(OLC_MOCK_PLUGIN_DIR_GOOD "/mock_det.so", &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(data);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, data, len), 0);
  CU_ASSERT_EQUAL(chmod(path, 0755), 0);
  free(data);
}

static void teardown(void) {
  if (g_immutable)
    olc_test_set_immutable(g_sub, 0);
  g_immutable = 0;
  chmod(g_sub, 0700);
  cli_run_free(&g_r);
  olc_test_rmtree(g_dir);
  free(g_dir);
  free(g_ini);
  free(g_sub);
  free(g_store);
}

static void write_config(const char *store_extra, const char *plugin_extra, unsigned threads) {
  char text[2048];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = good\nthreads = %u\n"
                   "[store]\npath = ro/store.txt\n%s"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
                   "[workload.mm]\nbackend = mock_det\noperator = MatMul\n"
                   "dtype = float32\nm = 8\nn = 4\nk = 2\n"
                   "[plugin.mock_det]\ncandidates = 40,10,20\n%s",
                   threads, store_extra, plugin_extra);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(g_ini, text, (size_t)n), 0);
}

static int run_env(const char *const *env, const char *first, ...) {
  const char *argv[32];
  size_t n = 0;
  const char *a;
  va_list ap;
  va_start(ap, first);
  for (a = first; a != NULL && n < 31; a = va_arg(ap, const char *))
    argv[n++] = a;
  va_end(ap);
  argv[n] = NULL;
  cli_run_free(&g_r);
  CU_ASSERT_EQUAL_FATAL(cli_test_run(&g_r, g_dir, env, argv), 0);
  return g_r.code;
}

#define OLC(...) run_env(NULL, __VA_ARGS__, NULL)
#define CFG "--config", g_ini

/* Makes g_sub refuse writes: immutable (root), else no write permission.
 * The reason olc_store_writable gives is the same for both. */
static void refuse_writes(void) {
  if (olc_test_set_immutable(g_sub, 1) == 0)
    g_immutable = 1;
  else
    CU_ASSERT_EQUAL_FATAL(chmod(g_sub, 0500), 0);
}

static void test_calibrate_refused_then_read_only(void) {
  static const char *const env_ro[] = {"OLC_PERSISTENCE=read_only", NULL};
  unsigned char *before, *after;
  size_t blen = 0, alen = 0;
  write_config("", "", 1);
  /* A store with the record of another workload shape. */
  CU_ASSERT_EQUAL_FATAL(OLC("calibrate", CFG), 0);
  before = olc_test_read_file(g_store, &blen);
  CU_ASSERT_PTR_NOT_NULL_FATAL(before);
  write_config("", "", 2); /* another thread count: a new key to measure */
  refuse_writes();
  if (geteuid() == 0 && !g_immutable) {
    free(before);
    CU_PASS("root without FS_IMMUTABLE_FL: permissions cannot refuse root");
    return;
  }
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 1);
  CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 1);
  HAS(g_r.err, g_store);
  HAS(g_r.err, "cannot write the directory");
  HAS(g_r.err, "--read-only");
  CU_ASSERT_EQUAL(count(g_r.out, "calibrated"), 0);
  /* Asked for: measured in memory, said once, the file untouched. */
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "--recalibrate", "--read-only"), 0);
  HAS(g_r.out, "calibrated");
  CU_ASSERT_EQUAL(count(g_r.err, "nothing is written"), 1);
  CU_ASSERT_EQUAL(OLC("--read-only", "calibrate", CFG, "--recalibrate"), 0);
  CU_ASSERT_EQUAL(count(g_r.err, "nothing is written"), 1);
  CU_ASSERT_EQUAL(run_env(env_ro, "calibrate", CFG, "--recalibrate", NULL), 0);
  CU_ASSERT_EQUAL(count(g_r.err, "nothing is written"), 1);
  write_config("persistence = read_only\n", "", 2);
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "--recalibrate"), 0);
  CU_ASSERT_EQUAL(count(g_r.err, "nothing is written"), 1);
  /* select reads a store it cannot write (the portable record). */
  CU_ASSERT_EQUAL(OLC("select", CFG), 0);
  after = olc_test_read_file(g_store, &alen);
  CU_ASSERT_PTR_NOT_NULL_FATAL(after);
  CU_ASSERT(alen == blen && memcmp(before, after, blen) == 0);
  free(before);
  free(after);
}

/* On a directory it could write, read-only mode creates nothing there:
 * neither PATH.lock nor the measurement lock's fallback beside the store
 * (no private XDG_RUNTIME_DIR in the test's environment). */
static void test_read_only_creates_nothing(void) {
  char *lock = olc_test_path(g_sub, "store.txt.lock");
  char *mlock = olc_test_path(g_sub, "store.txt.measure.lock");
  write_config("", "", 1);
  CU_ASSERT_EQUAL_FATAL(OLC("calibrate", CFG), 0);
  remove(lock);
  remove(mlock);
  CU_ASSERT_EQUAL(olc_test_count_entries(g_sub), 1);
  write_config("persistence = read_only\n", "", 2);
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "--recalibrate"), 0);
  HAS(g_r.out, "calibrated");
  CU_ASSERT_EQUAL(olc_test_count_entries(g_sub), 1);
  free(lock);
  free(mlock);
}

static void test_persistence_values(void) {
  static const char *const env_bad[] = {"OLC_PERSISTENCE=sometimes", NULL};
  write_config("persistence = sometimes\n", "", 1);
  CU_ASSERT_EQUAL(OLC("select", CFG), 1);
  HAS(g_r.err, "olc.ini:6");
  HAS(g_r.err, "read_only");
  write_config("persistence = off\n", "", 1);
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 0);
  CU_ASSERT_EQUAL(access(g_store, F_OK), -1); /* in memory only */
  write_config("", "", 1);
  CU_ASSERT_EQUAL(run_env(env_bad, "select", CFG, NULL), 1);
  HAS(g_r.err, "OLC_PERSISTENCE");
}

static void test_prune_foreign(void) {
  write_config("", "processor = cpu-a\n", 1);
  CU_ASSERT_EQUAL_FATAL(OLC("calibrate", CFG), 0);
  /* --recalibrate: the portable record would be selected otherwise. */
  write_config("", "processor = cpu-a\n", 2);
  CU_ASSERT_EQUAL_FATAL(OLC("calibrate", CFG, "--recalibrate"), 0);
  write_config("", "processor = cpu-b\n", 2);
  CU_ASSERT_EQUAL_FATAL(OLC("calibrate", CFG, "--recalibrate"), 0);
  /* Here: cpu-b with 2 threads.  cpu-a/1 and cpu-a/2 are foreign. */
  CU_ASSERT_EQUAL(OLC("prune", CFG), 0);
  HAS(g_r.out, "removed 0 records");
  CU_ASSERT_EQUAL(OLC("prune", CFG, "--foreign", "--dry-run"), 0);
  CU_ASSERT_EQUAL(count(g_r.out, "prune: \"foreign processor \\\"cpu-a\\\""), 2);
  HAS(g_r.out, "would remove 2 records");
  write_config("", "processor = cpu-a\n", 2);
  CU_ASSERT_EQUAL(OLC("prune", CFG, "--foreign", "--dry-run"), 0);
  CU_ASSERT_EQUAL(count(g_r.out, "foreign thread count 1"), 1);
  CU_ASSERT_EQUAL(count(g_r.out, "foreign processor \\\"cpu-b\\\""), 1);
  CU_ASSERT_EQUAL(OLC("prune", CFG, "--foreign"), 0);
  HAS(g_r.out, "removed 2 records");
  /* This machine's record stays and is selected. */
  CU_ASSERT_EQUAL(OLC("select", CFG), 0);
  CU_ASSERT_EQUAL(OLC("prune", CFG, "--foreign", "--json"), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"foreign\":true");
  HAS(g_r.out, "\"removed\":0");
}

#ifdef CPU_GEMM_PLUGIN
/* cpu_gemm buckets m above 16 and n above 64 in its key ("m=17-32"): the
 * foreign check asks the key of a record's workload as its structure gives
 * it, buckets included, so those records are as prunable as the others. */
static void test_prune_foreign_buckets(void) {
  static const char *const shapes[] = {"m = 8\nn = 8\nk = 8\n", "m = 17\nn = 8\nk = 8\n",
                                       "m = 8\nn = 65\nk = 8\n", "m = 200\nn = 300\nk = 8\n"};
  char text[2048];
  size_t i, used = 0;
  cli_test_copy_file(g_dir, CPU_GEMM_PLUGIN, "gemm", 0755);
  for (unsigned threads = 1; threads <= 2; threads++) {
    int n = snprintf(text, sizeof text,
                     "[host]\nplugin_dirs = gemm\nthreads = %u\n[store]\npath = ro/gemm.txt\n"
                     "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n",
                     threads);
    CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
    used = (size_t)n;
    for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
      n = snprintf(text + used, sizeof text - used,
                   "[workload.g%zu]\nbackend = cpu_gemm\noperator = MatMul\ndtype = float32\n%s", i,
                   shapes[i]);
      CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text - used);
      used += (size_t)n;
    }
    CU_ASSERT_EQUAL_FATAL(olc_test_write_file(g_ini, text, used), 0);
    if (threads == 1)
      CU_ASSERT_EQUAL_FATAL(OLC("calibrate", CFG), 0);
  }
  /* Here: 2 threads; the four exact records of 1 thread are foreign. */
  CU_ASSERT_EQUAL(OLC("prune", CFG, "--foreign", "--dry-run"), 0);
  CU_ASSERT_EQUAL(count(g_r.out, "foreign thread count 1"), 4);
  HAS(g_r.out, "would remove 4 records");
  CU_ASSERT_EQUAL(OLC("prune", CFG, "--foreign"), 0);
  HAS(g_r.out, "removed 4 records");
  CU_ASSERT_EQUAL(OLC("prune", CFG, "--foreign", "--dry-run"), 0);
  HAS(g_r.out, "would remove 0 records");
}
#endif

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite_with_setup_and_teardown("cli_readonly", NULL, NULL, setup, teardown);
  CU_add_test(s, "calibrate: refused at the start, then in memory when read-only is asked for",
              test_calibrate_refused_then_read_only);
  CU_add_test(s, "read-only mode creates nothing beside the store", test_read_only_creates_nothing);
  CU_add_test(s, "[store] persistence values and OLC_PERSISTENCE", test_persistence_values);
  CU_add_test(s, "prune --foreign: another processor or thread count", test_prune_foreign);
#ifdef CPU_GEMM_PLUGIN
  CU_add_test(s, "prune --foreign: cpu_gemm's bucketed records", test_prune_foreign_buckets);
#endif
  return olc_test_run(argc, argv);
}
