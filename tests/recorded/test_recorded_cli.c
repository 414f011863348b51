/*
 * tests/recorded/test_recorded_cli.c - olc calibrate --recorded and
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
  CU_ASSERT_NOT_EQUAL(olc("calibrate", "--config", "olc.ini", "--recorded", "bad.txt", NULL), 0);
  HAS(r.err, "bad.txt:2:");
  HAS(r.err, "missing field \"operator\"");
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
  CU_add_test(s, "calibrate --recorded with a malformed file", test_recorded_malformed);
  CU_add_test(s, "calibrate --recorded: a model that is a workload identity",
              test_recorded_workload_model);
  CU_add_test(s, "calibrate --refine", test_refine);
  return olc_test_run(argc, argv);
}
