/*
 * tests/host/test_runtime_wait.c - selects that must wait for a
 * measurement: while the main thread measures a key (the host's measure
 * hook runs in it, after the key was claimed and before anything is
 * measured), other threads select the same key with a timeout of 0 and of
 * 30 ms, with a cancel callback, in never mode, and another key (the
 * process's one measurer is busy); each gets the first candidate with its
 * reason.  A thread that waits without a limit gets the measured record.
 * Then a measurement in the worker process (isolation), as a runtime finds
 * it, and one without a worker to find (measured here, with a warning).
 */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "runtime_util.h"

static char *tmp;

static int setup(void) { return olc_test_suite_tmpdir(&tmp, "runtime_wait"); }

static int teardown(void) { return olc_test_suite_rmtree(&tmp); }

typedef struct waiter {
  olc_binding *b;
  olc_select_options o;
  int polls;
  olc_status st;
  const olc_selection *s;
  pthread_t t;
} waiter;

static void *run_waiter(void *p) {
  waiter *w = p;
  w->st = olc_binding_select(&w->s, w->b, &w->o, NULL);
  return NULL;
}

/* Stops the wait on the third poll. */
static int cancel_third(void *p) {
  waiter *w = p;
  return ++w->polls >= 3;
}

enum { QUICK = 5 };

typedef struct hook_ctx {
  olc_binding *same, *other;
  waiter quick[QUICK];
  waiter patient;
  int calls;
} hook_ctx;

static void start(waiter *w, olc_binding *b, int mode, int64_t timeout_ms) {
  w->b = b;
  w->o = rt_mode(mode);
  w->o.timeout_ms = timeout_ms;
  CU_ASSERT_EQUAL_FATAL(pthread_create(&w->t, NULL, run_waiter, w), 0);
}

/* In the measuring thread, with the key and the measurer claimed. */
static void on_measure(void *payload, const char *workload) {
  hook_ctx *c = payload;
  int i;
  if (strcmp(workload, "slow") != 0 || c->calls++ > 0)
    return;
  start(&c->quick[0], c->same, OLC_SELECT_ON_MISS, 0);
  start(&c->quick[1], c->same, OLC_SELECT_ON_MISS, 30);
  c->quick[2].b = c->same;
  c->quick[2].o = rt_mode(OLC_SELECT_ON_MISS);
  c->quick[2].o.cancel = cancel_third;
  c->quick[2].o.cancel_payload = &c->quick[2];
  CU_ASSERT_EQUAL_FATAL(pthread_create(&c->quick[2].t, NULL, run_waiter, &c->quick[2]), 0);
  start(&c->quick[3], c->other, OLC_SELECT_ON_MISS, 20);
  start(&c->quick[4], c->same, OLC_SELECT_NEVER, -1);
  for (i = 0; i < QUICK; i++)
    pthread_join(c->quick[i].t, NULL);
  start(&c->patient, c->same, OLC_SELECT_ON_MISS, -1);
}

static void expect_first(const waiter *w, olc_status why) {
  CU_ASSERT_EQUAL(w->st, OLC_FIRST_CANDIDATE);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w->s);
  CU_ASSERT_PTR_NULL(olc_selection_record(w->s));
  CU_ASSERT_EQUAL(olc_selection_why(w->s), why);
}

static void test_waits(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  hook_ctx c;
  rt_host h;
  rt_workload rw;
  const olc_selection *s;
  olc_error err;
  memset(&c, 0, sizeof c);
  rt_open(&h, tmp, NULL, "waits.txt", NULL);
  rt_matmul(&rw, NULL, 8, 8, 8);
  rw.w.name = "slow";
  c.same = rt_bind(&h, &rw);
  rt_matmul(&rw, NULL, 9, 9, 9);
  rw.w.name = "other";
  c.other = rt_bind(&h, &rw);
  olc_host__set_measure_hook(h.s.host, on_measure, &c);
  OLC_ASSERT_OK(olc_binding_select(&s, c.same, &on_miss, &err), &err);
  CU_ASSERT_EQUAL(c.calls, 1);
  pthread_join(c.patient.t, NULL);
  expect_first(&c.quick[0], OLC_E_TIMEOUT);
  expect_first(&c.quick[1], OLC_E_TIMEOUT);
  expect_first(&c.quick[2], OLC_E_CANCELLED);
  CU_ASSERT_EQUAL(c.quick[2].polls, 3);
  expect_first(&c.quick[3], OLC_E_TIMEOUT); /* another key: the measurer was busy */
  expect_first(&c.quick[4], OLC_E_NOT_FOUND);
  CU_ASSERT_PTR_NOT_NULL(strstr(olc_selection_message(c.quick[1].s), "timed out"));
  CU_ASSERT_EQUAL(c.patient.st, OLC_OK);
  CU_ASSERT_PTR_EQUAL(c.patient.s, s);
  CU_ASSERT_EQUAL(rt_measurements(&h), 1);
  /* The key that timed out is measured by the next select that may. */
  OLC_ASSERT_OK(olc_binding_select(&s, c.other, &on_miss, &err), &err);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  CU_ASSERT_EQUAL(rt_measurements(&h), 2);
  olc_binding_free(c.same);
  olc_binding_free(c.other);
  rt_close(&h);
}

/* on_miss with isolation: the worker is found as for the CLI. */
static void test_worker(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s;
  olc_error err;
  char policy[32];
  rt_open(&h, tmp, NULL, "worker.txt", "isolation = true\n");
  rt_matmul(&rw, NULL, 2, 3, 4);
  b = rt_bind(&h, &rw);
  OLC_ASSERT_OK(olc_binding_select(&s, b, &on_miss, &err), &err);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  /* The winner, or the first candidate on a tie under load. */
  rt_policy(s, policy, sizeof policy);
  CU_ASSERT_TRUE(strcmp(policy, "spin_us=100") == 0 || strcmp(policy, "spin_us=400") == 0);
  olc_binding_free(b);
  rt_close(&h);
}

/* The worker cannot be found (OLC_WORKER names none): the host measures in
 * this process, as the CLI does, and a runtime learns it from a warning
 * diagnostic naming the workload (the CLI prints the calibration's note). */
static void test_no_worker(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s;
  olc_diagnostic d;
  olc_error err;
  int warned = 0;
  CU_ASSERT_EQUAL_FATAL(setenv("OLC_WORKER", "/nonexistent/olc-worker", 1), 0);
  rt_open_env(&h, tmp, NULL, "no_worker.txt", "isolation = true\n");
  rt_matmul(&rw, NULL, 2, 3, 5);
  rw.w.name = "layer7";
  b = rt_bind(&h, &rw);
  OLC_ASSERT_OK(olc_binding_select(&s, b, &on_miss, &err), &err);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  while (olc_host_next_diagnostic(&d, h.s.host) == OLC_OK)
    if (d.level == OLC_DIAG_WARNING && strcmp(d.where, "layer7") == 0 &&
        strstr(d.message, "measured in-process") != NULL &&
        strstr(d.message, "/nonexistent/olc-worker") != NULL)
      warned++;
  CU_ASSERT_EQUAL(warned, 1);
  /* A warm select measures nothing and says nothing again. */
  OLC_ASSERT_OK(olc_binding_select(&s, b, &on_miss, &err), &err);
  CU_ASSERT_EQUAL(olc_host_next_diagnostic(&d, h.s.host), OLC_E_NOT_FOUND);
  olc_binding_free(b);
  /* Another key, measured in-process too: the cause is the host's, said
   * once per host, not once per key. */
  rt_matmul(&rw, NULL, 2, 3, 6);
  rw.w.name = "layer8";
  b = rt_bind(&h, &rw);
  OLC_ASSERT_OK(olc_binding_select(&s, b, &on_miss, &err), &err);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  warned = 0;
  while (olc_host_next_diagnostic(&d, h.s.host) == OLC_OK)
    if (strstr(d.message, "measured in-process") != NULL)
      warned++;
  CU_ASSERT_EQUAL(warned, 0);
  olc_binding_free(b);
  rt_close(&h);
  unsetenv("OLC_WORKER");
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("runtime_wait", setup, teardown);
  CU_add_test(s, "timeout, cancel, never, the measurer, a patient waiter", test_waits);
  CU_add_test(s, "measured in the worker", test_worker);
  CU_add_test(s, "no worker: measured here, with a warning", test_no_worker);
  return olc_test_run(argc, argv);
}
