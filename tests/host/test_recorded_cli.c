/*
 * tests/host/test_recorded_cli.c - olc calibrate --recorded and
 * --refine run as the built binary against mock_det: a recorded file with
 * a record of this machine and one of another processor is tuned (one line
 * each: calibrated, skipped with the reason), the tuned one removed and the
 * other kept; a malformed file fails naming FILE:LINE:COLUMN and stays; a
 * record a budget cut short is served as stored until --refine.
 */
#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_test_util.h"
#include "test_support.h"

#define HAS(s, needle) CU_ASSERT_PTR_NOT_NULL(strstr((s), (needle)))

static char *dir;
static cli_run r;

static int setup(void) {
  dir = olc_test_tmpdir("recorded_cli");
  /* The commands name their files relative to it. */
  return dir == NULL || chdir(dir) != 0;
}

static int teardown(void) {
  cli_run_free(&r);
  olc_test_rmtree(dir);
  free(dir);
  return 0;
}

static void write_in(const char *name, const char *text) {
  char *p = olc_test_path(dir, name);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(p, text, strlen(text)), 0);
  free(p);
}

static void write_config(const char *name, const char *calibration) {
  char text[2048];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s/good\nthreads = 2\n[store]\npath = store.txt\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n%s"
                   "[workload.mm]\nbackend = mock_det\noperator = MatMul\ndtype = float32\nm = "
                   "8\nn = 4\nk = 2\n",
                   OLC_MOCK_PLUGIN_ROOT, calibration);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  write_in(name, text);
}

/* Runs olc with the arguments up to a NULL; the output stays in r. */
static int olc(const char *first, ...) {
  va_list ap;
  int rc;
  va_start(ap, first);
  rc = cli_test_runv(&r, dir, NULL, NULL, first, ap);
  va_end(ap);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  return r.code;
}

#define REC(processor, m)                                                                          \
  "workload backend=mock_det operator=MatMul processor=" processor " threads=2 "                   \
  "identity=workload:x model=- prop.dtype=float32 prop.k=2 prop.m=" m " prop.n=4\n"

static void test_recorded(void) {
  char *rec = olc_test_path(dir, "rec.txt"), *after;
  write_config("olc.ini", "");
  write_in("rec.txt",
           "# onnx-light recorded workloads v1\n" REC("mock-cpu", "8") REC("far-cpu", "16"));
  CU_ASSERT_EQUAL(olc("calibrate", "--config", "olc.ini", "--recorded", "rec.txt", NULL), 0);
  HAS(r.out, "mock_det/MatMul{"); /* the name, fitted to 100 columns */
  HAS(r.out, "calibrated  exact");
  HAS(r.out, "recorded on processor 'far-cpu', this machine is 'mock-cpu'");
  HAS(r.out, "rec.txt: 1 tuned workload removed");
  after = (char *)olc_test_read_file(rec, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(after);
  CU_ASSERT_PTR_NULL(strstr(after, "prop.m=8 "));
  HAS(after, "processor=far-cpu");
  free(after);
  /* Served from the store now. */
  CU_ASSERT_EQUAL(olc("select", "--config", "olc.ini", NULL), 0);
  CU_ASSERT_EQUAL(olc("calibrate", "--config", "olc.ini", "--recorded", "rec.txt", NULL), 0);
  HAS(r.out, "rec.txt: 0 tuned workloads removed");
  /* Usage: not with --workload. */
  CU_ASSERT_EQUAL(
      olc("calibrate", "--config", "olc.ini", "--recorded", "rec.txt", "--workload", "mm", NULL),
      2);
  HAS(r.err, "--recorded and --workload exclude each other");
  free(rec);
}

/* Issue 37 item 2: a winner kept in memory only (--read-only, persistence
 * off) is no reason to forget the workload: it stays in the file. */
static void test_recorded_not_durable(void) {
  /* A shape no other test stores. */
  static const char text[] = "# onnx-light recorded workloads v1\n" REC("mock-cpu", "24");
  static const char *const off[] = {"OLC_PERSISTENCE=off", NULL};
  char *rec = olc_test_path(dir, "keep.txt"), *after;
  write_config("olc.ini", "");
  write_in("keep.txt", text);
  CU_ASSERT_EQUAL(
      olc("calibrate", "--read-only", "--config", "olc.ini", "--recorded", "keep.txt", NULL), 0);
  HAS(r.out, "calibrated  exact");
  HAS(r.out, "keep.txt: 0 tuned workloads removed");
  after = (char *)olc_test_read_file(rec, NULL);
  CU_ASSERT_TRUE(after != NULL && strcmp(after, text) == 0);
  free(after);
  write_in("keep.txt", text);
  CU_ASSERT_EQUAL(cli_test_olc(&r, dir, off, "calibrate", "--config", "olc.ini", "--recorded",
                               "keep.txt", NULL),
                  0);
  HAS(r.out, "calibrated  exact");
  HAS(r.out, "keep.txt: 0 tuned workloads removed");
  after = (char *)olc_test_read_file(rec, NULL);
  CU_ASSERT_TRUE(after != NULL && strcmp(after, text) == 0);
  free(after);
  /* Once the store's file holds it, even a read-only run may let it go. */
  CU_ASSERT_EQUAL(olc("calibrate", "--config", "olc.ini", "--recorded", "keep.txt", NULL), 0);
  HAS(r.out, "keep.txt: 1 tuned workload removed");
  write_in("keep.txt", text);
  CU_ASSERT_EQUAL(
      olc("calibrate", "--read-only", "--config", "olc.ini", "--recorded", "keep.txt", NULL), 0);
  HAS(r.out, "selected");
  HAS(r.out, "keep.txt: 1 tuned workload removed");
  free(rec);
}

/* A recorded file of workloads m = 8, 16, ... (count of them, from first). */
static void write_shapes(const char *name, int first, int count) {
  char text[8192];
  size_t n = (size_t)snprintf(text, sizeof text, "# onnx-light recorded workloads v1\n");
  int i;
  for (i = first; i < first + count; i++)
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "workload backend=mock_det operator=MatMul processor=mock-cpu threads=2 "
                          "identity=workload:dtype=float32;k=2;m=%d;n=4 model=- prop.dtype=float32 "
                          "prop.k=2 prop.m=%d prop.n=4\n",
                          8 * i, 8 * i);
  CU_ASSERT_FATAL(n < sizeof text);
  write_in(name, text);
}

/* Whether the last run's output names workload m = 8 * i. */
static int names_shape(const char *out, int i) {
  char needle[48];
  snprintf(needle, sizeof needle, ",m=%d,n=4}\"", 8 * i);
  return strstr(out, needle) != NULL;
}

static void test_shard_usage(void) {
  static const char *const bad[][2] = {{"4/4", "I must be below N (I counts from 0: 0..3)"},
                                       {"0/0", "N must be at least 1"},
                                       {"1", "expected I/N, two whole numbers"},
                                       {"-1/2", "expected I/N, two whole numbers"},
                                       {"1/2/3", "expected I/N, two whole numbers"},
                                       {"0/2000000", "at most 1000000 shards"}};
  size_t i;
  write_config("olc.ini", "");
  write_shapes("usage.txt", 1, 1);
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CU_ASSERT_EQUAL(olc("calibrate", "--config", "olc.ini", "--recorded", "usage.txt", "--shard",
                        bad[i][0], NULL),
                    2);
    HAS(r.err, bad[i][1]);
  }
  CU_ASSERT_EQUAL(olc("calibrate", "--config", "olc.ini", "--shard", "0/2", NULL), 2);
  HAS(r.err, "--shard needs --recorded");
  CU_ASSERT_EQUAL(olc("calibrate", "--config", "olc.ini", "--recorded", "usage.txt", "--shard",
                      "0/1", "--store", "usage-store.txt", NULL),
                  0);
  HAS(r.out, "calibrated  exact");
  HAS(r.out, "usage.txt: shard 0/1, 1 workload; the file is left as it is");
}

/* Issue 43: N shards tune every workload exactly once, leave the file as
 * it is, and keep each workload in its shard when others are appended;
 * one import merges them and empties the file of exactly what it holds. */
static void test_shard_merge(void) {
  enum { SHARDS = 3, FIRST = 20, COUNT = 10, MORE = 5 };
  static const char *const stores[SHARDS] = {"shard-0.txt", "shard-1.txt", "shard-2.txt"};
  static const char *const ids[SHARDS] = {"0/3", "1/3", "2/3"};
  char *outs[SHARDS];
  char *rec = olc_test_path(dir, "fleet.txt"), *before, *after;
  int i, k, owner[FIRST + COUNT + MORE];
  write_config("olc.ini", "");
  write_shapes("fleet.txt", FIRST, COUNT);
  before = (char *)olc_test_read_file(rec, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(before);
  for (k = 0; k < SHARDS; k++) {
    CU_ASSERT_EQUAL(olc("calibrate", "--config", "olc.ini", "--recorded", "fleet.txt", "--shard",
                        ids[k], "--store", stores[k], "--json", NULL),
                    0);
    outs[k] = strdup(r.out);
  }
  after = (char *)olc_test_read_file(rec, NULL);
  CU_ASSERT_TRUE(after != NULL && strcmp(after, before) == 0);
  free(after);
  for (i = FIRST; i < FIRST + COUNT; i++) {
    int n = 0;
    owner[i] = -1;
    for (k = 0; k < SHARDS; k++)
      if (names_shape(outs[k], i)) {
        n++;
        owner[i] = k;
      }
    CU_ASSERT_EQUAL(n, 1); /* exactly one shard tuned it */
  }
  for (k = 0; k < SHARDS; k++) {
    int mine = 0;
    for (i = FIRST; i < FIRST + COUNT; i++)
      mine += owner[i] == k;
    CU_ASSERT(mine > 0); /* the hash is fixed: these ten spread 1, 4, 5 */
    free(outs[k]);
  }
  /* Appended workloads move no earlier one to another shard: each shard
   * sees its old workloads again (selected from its store now). */
  write_shapes("fleet.txt", FIRST, COUNT + MORE);
  for (k = 0; k < SHARDS; k++) {
    CU_ASSERT_EQUAL(olc("calibrate", "--config", "olc.ini", "--recorded", "fleet.txt", "--shard",
                        ids[k], "--store", stores[k], "--json", NULL),
                    0);
    for (i = FIRST; i < FIRST + COUNT; i++)
      CU_ASSERT_EQUAL(names_shape(r.out, i), owner[i] == k);
  }
  /* One more workload that no shard tuned stays in the file. */
  write_shapes("fleet.txt", FIRST, COUNT + MORE + 1);
  /* A malformed input changes nothing: not the store, not the file. */
  write_in("broken.txt", "onnx_light_calibration_profiles 1\nprofile\n");
  CU_ASSERT_EQUAL(olc("import", "--store", "merged.txt", "--recorded", "fleet.txt", stores[0],
                      "broken.txt", NULL),
                  1);
  HAS(r.err, "broken.txt");
  CU_ASSERT_EQUAL(access("merged.txt", F_OK), -1);
  CU_ASSERT_EQUAL(olc("import", "--store", "merged.txt", "--recorded", "fleet.txt", stores[0],
                      stores[1], stores[2], NULL),
                  0);
  HAS(r.out, "from 3 files into");
  HAS(r.out, "fleet.txt: 15 recorded workloads removed");
  after = (char *)olc_test_read_file(rec, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(after);
  CU_ASSERT_PTR_NOT_NULL(strstr(after, "prop.m=280 "));
  CU_ASSERT_PTR_NULL(strstr(after, "prop.m=272 "));
  CU_ASSERT_PTR_NULL(strstr(after, "prop.m=160 "));
  free(after);
  /* Nothing of the shards is measured again from the merged store. */
  write_shapes("fleet.txt", FIRST, COUNT + MORE);
  CU_ASSERT_EQUAL(olc("calibrate", "--config", "olc.ini", "--recorded", "fleet.txt", "--store",
                      "merged.txt", "--json", NULL),
                  0);
  CU_ASSERT_PTR_NULL(strstr(r.out, "\"outcome\":\"calibrated\""));
  free(before);
  free(rec);
}

/* A recorded model "workload:..." (a hand edit: bind refuses it) is no
 * model: tuned, it would be measured as the workload without a model and
 * take that one's record.  Skipped, with the reason, and kept. */
static void test_recorded_workload_model(void) {
  char *after;
  write_config("olc.ini", "");
  write_in("wm.txt", "# onnx-light recorded workloads v1\n"
                     "workload backend=mock_det operator=MatMul processor=mock-cpu threads=2 "
                     "identity=workload:aa#dtype=float32;k=2;m=5;n=4 model=workload:aa "
                     "prop.dtype=float32 prop.k=2 prop.m=5 prop.n=4\n");
  CU_ASSERT_EQUAL(olc("calibrate", "--config", "olc.ini", "--recorded", "wm.txt", NULL), 0);
  HAS(r.out, "skipped: model 'workload:aa' is not a model digest");
  CU_ASSERT_PTR_NULL(strstr(r.out, "calibrated  exact"));
  HAS(r.out, "wm.txt: 0 tuned workloads removed");
  after = (char *)olc_test_read_file("wm.txt", NULL);
  CU_ASSERT_TRUE(after != NULL && strstr(after, "model=workload:aa") != NULL);
  free(after);
}

static void test_recorded_malformed(void) {
  static const char text[] = "# onnx-light recorded workloads v1\nworkload backend=mock_det\n";
  char *rec = olc_test_path(dir, "bad.txt"), *after;
  write_config("olc.ini", "");
  write_in("bad.txt", text);
  /* The bad line is skipped with a warning (nothing else to tune). */
  CU_ASSERT_EQUAL(olc("calibrate", "--config", "olc.ini", "--recorded", "bad.txt", NULL), 0);
  HAS(r.err, "bad.txt:2:");
  HAS(r.err, "missing field \"operator\"");
  HAS(r.err, "line skipped");
  after = (char *)olc_test_read_file(rec, NULL);
  CU_ASSERT_TRUE(after != NULL && strcmp(after, text) == 0);
  free(after);
  free(rec);
}

static void test_refine(void) {
  write_config("tight.ini", "max_seconds_per_workload = 0.0001\n");
  write_config("olc.ini", "");
  CU_ASSERT_EQUAL(olc("calibrate", "--config", "tight.ini", "--recalibrate", "--json", NULL), 0);
  HAS(r.out, "\"budget\"");
  CU_ASSERT_EQUAL(olc("calibrate", "--config", "olc.ini", "--json", NULL), 0);
  HAS(r.out, "\"outcome\":\"selected\"");
  CU_ASSERT_EQUAL(olc("calibrate", "--config", "olc.ini", "--refine", "--json", NULL), 0);
  HAS(r.out, "\"outcome\":\"calibrated\"");
  CU_ASSERT_EQUAL(olc("calibrate", "--config", "olc.ini", "--refine", "--json", NULL), 0);
  HAS(r.out, "\"outcome\":\"selected\"");
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("recorded-cli", setup, teardown);
  if (s == NULL)
    return 1;
  CU_add_test(s, "calibrate --recorded", test_recorded);
  CU_add_test(s, "calibrate --recorded keeps what no store holds", test_recorded_not_durable);
  CU_add_test(s, "calibrate --shard usage", test_shard_usage);
  CU_add_test(s, "calibrate --shard, import --recorded", test_shard_merge);
  CU_add_test(s, "calibrate --recorded with a malformed file", test_recorded_malformed);
  CU_add_test(s, "calibrate --recorded: a model that is a workload identity",
              test_recorded_workload_model);
  CU_add_test(s, "calibrate --refine", test_refine);
  return olc_test_run(argc, argv);
}
