/*
 * tests/calibrate/test_contention.c - a calibration on a busy machine
 * ([calibration] contention, calibrate/load.h): the watch's verdict from
 * injected /proc figures, a busy machine that outlasts the budget (the
 * winner saved as provisional, "contended"), one that quiets down (waited
 * for and measured again), --refine and an on_miss select measuring a
 * contended record again once the machine is quiet.
 *
 * The load source is the test's (olc_calibrate__load_set_source), so the
 * machine this runs on does not decide what the source says; its own
 * noise can still fire the timing signals (spread, reference), which the
 * tests allow where the source says quiet.
 */
#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/load.h"
#include "olc/host.h"
#include "olc/store.h"
#include "test_support.h"

#ifndef OLC_MOCK_PLUGIN_ROOT
#error "OLC_MOCK_PLUGIN_ROOT must be defined"
#endif

static char *tmp;

static int setup(void) {
  /* The suite's default (tests/CMakeLists.txt) is ignore: this test
   * decides the mode in its ini files. */
  unsetenv("OLC_CONTENTION");
  return olc_test_suite_tmpdir(&tmp, "contention");
}

static int teardown(void) {
  olc_calibrate__load_set_source(NULL, NULL);
  return olc_test_suite_rmtree(&tmp);
}

/* ---- the injected source ---------------------------------------------- */

/* What the fake /proc says: `busy_reads` readings busy (others on every
 * CPU), then quiet; busy_reads < 0: always busy. */
typedef struct fake_load {
  uint32_t cpus;
  long busy_reads;
  long reads;
  uint64_t steal, total; /* cumulative ticks, advanced by steal_step/1000 a read */
  uint64_t steal_step;
  uint32_t own; /* the workload's own threads running in every reading (0: the reader) */
} fake_load;

static void fake_source(olc_load_figures *out, void *payload) {
  fake_load *f = payload;
  int busy = f->busy_reads < 0 || f->reads < f->busy_reads;
  f->reads++;
  out->cpus = f->cpus;
  out->have_runnable = 1;
  out->runnable = (busy ? 1.0 + 2.0 * f->cpus : 1.0) + (f->own > 0 ? f->own - 1.0 : 0.0);
  out->own_running = f->own;
  f->total += 1000;
  f->steal += f->steal_step;
  out->have_ticks = 1;
  out->steal_ticks = f->steal;
  out->total_ticks = f->total;
}

static void use_source(fake_load *f, uint32_t cpus, long busy_reads) {
  memset(f, 0, sizeof *f);
  f->cpus = cpus;
  f->busy_reads = busy_reads;
  olc_calibrate__load_set_source(fake_source, f);
}

/* ---- the verdict (unit) ------------------------------------------------ */

static void test_verdict_quiet(void) {
  fake_load f;
  olc_load_watch w;
  olc_contention c;
  int i;
  use_source(&f, 4, 0);
  olc_calibrate__watch_begin(&w, 1);
  for (i = 0; i < 5; i++)
    olc_calibrate__watch_sample(&w);
  olc_calibrate__watch_reference(&w, 100);
  olc_calibrate__watch_reference(&w, 104);
  olc_calibrate__watch_reference(&w, 98);
  olc_calibrate__watch_spread(&w, 100, 3, 20);
  olc_calibrate__watch_verdict(&c, &w);
  CU_ASSERT_PTR_NULL(c.signal);
  CU_ASSERT_EQUAL(olc_calibrate__load_quiet(1, 0), 1);
}

/* Other tasks on every CPU: the runnable signal, relative to the CPUs the
 * workload's threads leave free. */
static void test_verdict_runnable(void) {
  fake_load f;
  olc_load_watch w;
  olc_contention c;
  int i;
  use_source(&f, 2, -1);
  olc_calibrate__watch_begin(&w, 1);
  for (i = 0; i < 3; i++)
    olc_calibrate__watch_sample(&w);
  olc_calibrate__watch_verdict(&c, &w);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c.signal);
  CU_ASSERT_STRING_EQUAL(c.signal, "runnable");
  /* 4 others, 1 CPU left free: 3 beyond it. */
  CU_ASSERT_DOUBLE_EQUAL(c.figure, 3.0, 1e-9);
  CU_ASSERT_EQUAL(olc_calibrate__load_quiet(1, 0), 0);
}

/* The workload's own running threads (the reader, the measuring worker's,
 * the plugin's pool) are not other tasks: a two-thread workload on two
 * CPUs with nothing else is quiet (counting them marked every
 * multi-threaded winner on a quiet machine contended, and each on_miss
 * start measured it again); one other task still takes a CPU it needs. */
static void test_verdict_own_threads(void) {
  fake_load f;
  olc_load_watch w;
  olc_contention c;
  int i;
  use_source(&f, 2, 0);
  f.own = 3; /* the reader and the worker's two threads */
  olc_calibrate__watch_begin(&w, 2);
  for (i = 0; i < 5; i++)
    olc_calibrate__watch_sample(&w);
  olc_calibrate__watch_verdict(&c, &w);
  CU_ASSERT_PTR_NULL(c.signal);
  use_source(&f, 2, -1); /* others on every CPU besides them */
  f.own = 3;
  olc_calibrate__watch_begin(&w, 2);
  for (i = 0; i < 5; i++)
    olc_calibrate__watch_sample(&w);
  olc_calibrate__watch_verdict(&c, &w);
  CU_ASSERT_PTR_NOT_NULL(c.signal);
}

/* A workload of several threads loses one to every other task: a quarter
 * of busy readings is enough; one thread needs half. */
static void test_verdict_threads(void) {
  fake_load f;
  olc_load_watch w;
  olc_contention c;
  int i;
  use_source(&f, 4, 1); /* the first of four readings busy */
  olc_calibrate__watch_begin(&w, 4);
  for (i = 0; i < 3; i++)
    olc_calibrate__watch_sample(&w);
  olc_calibrate__watch_verdict(&c, &w);
  CU_ASSERT_PTR_NOT_NULL(c.signal);
  use_source(&f, 4, 1);
  olc_calibrate__watch_begin(&w, 1);
  for (i = 0; i < 3; i++)
    olc_calibrate__watch_sample(&w);
  olc_calibrate__watch_verdict(&c, &w);
  CU_ASSERT_PTR_NULL(c.signal);
}

static void test_verdict_steal(void) {
  fake_load f;
  olc_load_watch w;
  olc_contention c;
  use_source(&f, 8, 0);
  f.steal_step = 100; /* 10% of the time stolen */
  olc_calibrate__watch_begin(&w, 1);
  olc_calibrate__watch_sample(&w);
  olc_calibrate__watch_sample(&w);
  olc_calibrate__watch_verdict(&c, &w);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c.signal);
  CU_ASSERT_STRING_EQUAL(c.signal, "steal");
  CU_ASSERT_DOUBLE_EQUAL(c.figure, 0.1, 1e-9);
}

/* Without /proc figures the timing signals still judge: the reference
 * drifting between turns, then a candidate's spread. */
static void test_verdict_timing(void) {
  olc_load_watch w;
  olc_contention c;
  olc_calibrate__load_set_source(NULL, NULL);
  memset(&w, 0, sizeof w);
  w.threads = 1;
  olc_calibrate__watch_reference(&w, 100);
  olc_calibrate__watch_reference(&w, 180);
  olc_calibrate__watch_verdict(&c, &w);
  CU_ASSERT_PTR_NULL(c.signal); /* two turns say nothing yet */
  olc_calibrate__watch_reference(&w, 110);
  olc_calibrate__watch_verdict(&c, &w);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c.signal);
  CU_ASSERT_STRING_EQUAL(c.signal, "reference");
  CU_ASSERT_DOUBLE_EQUAL(c.figure, 1.8, 1e-9);

  memset(&w, 0, sizeof w);
  w.threads = 1;
  olc_calibrate__watch_spread(&w, 100, 40, 4); /* four runs: not judged */
  olc_calibrate__watch_verdict(&c, &w);
  CU_ASSERT_PTR_NULL(c.signal);
  olc_calibrate__watch_spread(&w, 100, 40, 5);
  olc_calibrate__watch_verdict(&c, &w);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c.signal);
  CU_ASSERT_STRING_EQUAL(c.signal, "spread");
  CU_ASSERT_DOUBLE_EQUAL(c.figure, 0.4, 1e-9);
}

static void source_nothing(olc_load_figures *out, void *payload) {
  (void)out;
  (void)payload;
}

static void test_quiet_unknown(void) {
  olc_calibrate__load_set_source(source_nothing, NULL);
  CU_ASSERT_EQUAL(olc_calibrate__load_quiet(1, 0), -1);
  olc_calibrate__load_set_source(NULL, NULL);
}

/* ---- calibrations -------------------------------------------------------- */

/* mock_det's candidates spin on the host's clock; spin_us=100 wins
 * clearly over the first (1000). */
static void open_session(olc_test_session *s, const char *mode, const char *budget,
                         const char *select_mode) {
  char text[2048];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s/good\nthreads = 1\n"
                   "[store]\npath = profiles.txt\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
                   "isolation = false\nmax_seconds_per_workload = %s\ncontention = %s\n"
                   "select_mode = %s\n"
                   "[workload.mm]\nbackend = mock_det\noperator = MatMul\n"
                   "dtype = float32\nm = 8\nn = 4\nk = 2\n"
                   "[plugin.mock_det]\ncandidates = 1000,100,2000,4000\n",
                   OLC_MOCK_PLUGIN_ROOT, budget, mode, select_mode);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  olc_test_session_open(s, tmp, text, (size_t)n);
}

static const olc_measurement *find_measurement(const olc_record *rec, const char *name) {
  size_t i;
  for (i = 0; rec != NULL && i < rec->measurement_count; i++)
    if (strcmp(rec->measurements[i].name, name) == 0)
      return &rec->measurements[i];
  return NULL;
}

/* 1 when rec carries the runnable contended mark (what the fake source
 * decides; the timing signals are the machine's). */
static int runnable_mark(const olc_record *rec) {
  const olc_measurement *m = find_measurement(rec, OLC_MEASUREMENT_CONTENDED);
  return m != NULL && strcmp(m->unit, "runnable") == 0;
}

static olc_calibration *calibrate(olc_test_session *s, int refine) {
  olc_calibration *cal = NULL;
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  olc_error err;
  opt.refine = refine;
  OLC_ASSERT_OK(olc_host_calibrate(&cal, s->host, &opt, &err), &err);
  return cal;
}

static void remove_store(void) {
  char *p = olc_test_path(tmp, "profiles.txt");
  remove(p);
  free(p);
}

/* Busy throughout: waited for within the budget, then the leader saved
 * as provisional, and said so. */
static void test_busy_past_budget(void) {
  olc_test_session s;
  olc_calibration *cal;
  const olc_workload_result *r;
  fake_load f;
  remove_store();
  use_source(&f, 2, -1);
  open_session(&s, "wait", "1", "never");
  cal = calibrate(&s, 0);
  r = olc_test_find_result(cal, "mm");
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  CU_ASSERT_EQUAL(r->status, OLC_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT_TRUE(runnable_mark(r->selected));
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->message);
  CU_ASSERT_PTR_NOT_NULL(strstr(r->message, "provisional"));
  CU_ASSERT_PTR_NOT_NULL(strstr(r->message, "waited"));
  olc_calibration_free(cal);

  /* Selected as stored while nothing asks for a refinement. */
  cal = calibrate(&s, 0);
  r = olc_test_find_result(cal, "mm");
  CU_ASSERT_FALSE(r->calibrated_now);
  CU_ASSERT_TRUE(runnable_mark(r->selected));
  olc_calibration_free(cal);

  /* Quiet now: --refine measures it again. */
  use_source(&f, 2, 0);
  cal = calibrate(&s, 1);
  r = olc_test_find_result(cal, "mm");
  CU_ASSERT_TRUE(r->calibrated_now);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT_FALSE(runnable_mark(r->selected));
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* mark: provisional at once, one measurement, no wait. */
static void test_mark(void) {
  olc_test_session s;
  olc_calibration *cal;
  const olc_workload_result *r;
  fake_load f;
  remove_store();
  use_source(&f, 2, -1);
  open_session(&s, "mark", "30", "never");
  cal = calibrate(&s, 0);
  r = olc_test_find_result(cal, "mm");
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT_TRUE(runnable_mark(r->selected));
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->message);
  CU_ASSERT_PTR_NOT_NULL(strstr(r->message, "in 1 measurement "));
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* ignore: nothing watched, nothing marked. */
static void test_ignore(void) {
  olc_test_session s;
  olc_calibration *cal;
  const olc_workload_result *r;
  fake_load f;
  remove_store();
  use_source(&f, 2, -1);
  open_session(&s, "ignore", "30", "never");
  cal = calibrate(&s, 0);
  r = olc_test_find_result(cal, "mm");
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT_PTR_NULL(find_measurement(r->selected, OLC_MEASUREMENT_CONTENDED));
  CU_ASSERT_EQUAL(f.reads, 0);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* Busy for the first measurement only: the wait sees the quiet machine
 * and the candidates are measured again; the winner is not marked
 * runnable.  The fake turns quiet after as many readings as one
 * measurement took (counted with mark, which measures once). */
static void test_busy_then_quiet(void) {
  olc_test_session s;
  olc_calibration *cal;
  const olc_workload_result *r;
  fake_load f;
  long per_measure;
  remove_store();
  use_source(&f, 2, -1);
  open_session(&s, "mark", "30", "never");
  olc_calibration_free(calibrate(&s, 0));
  olc_test_session_close(&s);
  per_measure = f.reads;
  CU_ASSERT_FATAL(per_measure > 2);

  remove_store();
  use_source(&f, 2, per_measure);
  open_session(&s, "wait", "30", "never");
  cal = calibrate(&s, 0);
  r = olc_test_find_result(cal, "mm");
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->selected);
  CU_ASSERT_FALSE(runnable_mark(r->selected));
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->message);
  CU_ASSERT_PTR_NOT_NULL(strstr(r->message, "busy"));
  CU_ASSERT_PTR_NULL(strstr(r->message, "in 1 measurement "));
  olc_calibration_free(cal);
  olc_test_session_close(&s);
}

/* An on_miss select measures a contended record again when the machine
 * is quiet, once: the record is the runtime's own, measured by an
 * on_miss select while the machine was busy. */
static void test_on_miss_refines(void) {
  olc_test_session s;
  olc_workload w = OLC_WORKLOAD_INIT;
  olc_property props[4] = {{"dtype", "float32"}, {"m", "8"}, {"n", "4"}, {"k", "2"}};
  olc_binding *b = NULL;
  const olc_selection *sel = NULL;
  olc_error err;
  fake_load f;
  w.backend = "mock_det";
  w.operator_name = "MatMul";
  w.properties = props;
  w.property_count = 4;
  remove_store();
  use_source(&f, 2, -1);
  open_session(&s, "mark", "30", "on_miss");
  OLC_ASSERT_OK(olc_host_bind(&b, s.host, &w, &err), &err);
  CU_ASSERT_EQUAL(olc_binding_select(&sel, b, NULL, &err), OLC_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sel);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(sel));
  CU_ASSERT_TRUE(runnable_mark(olc_selection_record(sel)));
  olc_binding_free(b);
  olc_test_session_close(&s);

  /* Another host, the machine quiet: the select measures it again. */
  use_source(&f, 2, 0);
  open_session(&s, "mark", "30", "on_miss");
  b = NULL;
  sel = NULL;
  OLC_ASSERT_OK(olc_host_bind(&b, s.host, &w, &err), &err);
  CU_ASSERT_EQUAL(olc_binding_select(&sel, b, NULL, &err), OLC_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sel);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(sel));
  CU_ASSERT_FALSE(runnable_mark(olc_selection_record(sel)));
  olc_binding_free(b);
  olc_test_session_close(&s);

  /* Still busy: a third host's on_miss select serves the contended
   * record as stored. */
  remove_store();
  use_source(&f, 2, -1);
  open_session(&s, "mark", "30", "on_miss");
  b = NULL;
  OLC_ASSERT_OK(olc_host_bind(&b, s.host, &w, &err), &err);
  CU_ASSERT_EQUAL(olc_binding_select(&sel, b, NULL, &err), OLC_OK);
  olc_binding_free(b);
  olc_test_session_close(&s);
  open_session(&s, "mark", "30", "on_miss");
  b = NULL;
  sel = NULL;
  OLC_ASSERT_OK(olc_host_bind(&b, s.host, &w, &err), &err);
  CU_ASSERT_EQUAL(olc_binding_select(&sel, b, NULL, &err), OLC_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sel);
  CU_ASSERT_FALSE(olc_selection_calibrated_now(sel)); /* still busy: served as stored */
  CU_ASSERT_TRUE(runnable_mark(olc_selection_record(sel)));
  olc_binding_free(b);
  olc_test_session_close(&s);
}

int main(void) {
  CU_pSuite suite;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  suite = CU_add_suite("contention", setup, teardown);
  CU_add_test(suite, "verdict: quiet", test_verdict_quiet);
  CU_add_test(suite, "verdict: runnable", test_verdict_runnable);
  CU_add_test(suite, "verdict: threads", test_verdict_threads);
  CU_add_test(suite, "verdict: the workload's own threads", test_verdict_own_threads);
  CU_add_test(suite, "verdict: steal", test_verdict_steal);
  CU_add_test(suite, "verdict: reference and spread", test_verdict_timing);
  CU_add_test(suite, "quiet: no figures", test_quiet_unknown);
  CU_add_test(suite, "busy past the budget: provisional, then --refine", test_busy_past_budget);
  CU_add_test(suite, "mark: provisional at once", test_mark);
  CU_add_test(suite, "ignore: not watched", test_ignore);
  CU_add_test(suite, "busy, then quiet: measured again", test_busy_then_quiet);
  CU_add_test(suite, "on_miss: a contended record measured again", test_on_miss_refines);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  {
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed != 0;
  }
}
