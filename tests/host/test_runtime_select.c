/*
 * tests/host/test_runtime_select.c - olc_binding_select against the
 * deterministic mock plugin (candidates spin 400, 100, 200, 800 us: the
 * first candidate is spin_us=400, the winner spin_us=100; with candidates =
 * by_m each shape's winner is spin_us=m): the modes per host, per config
 * and per call, the identity of each shape of one model (model bytes and an
 * explicit digest), a second start that measures nothing, records of the
 * old convention reported and recalibrated, scoped rejections, a failed
 * measurement, and bad options.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* F_OFD_SETLK */
#endif
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "runtime_util.h"

#include <unistd.h>

/* SHA-256 of "abc". */
#define ABC_SHA256 "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

static char *tmp;

static int setup(void) { return olc_test_suite_tmpdir(&tmp, "runtime_select"); }

static int teardown(void) { return olc_test_suite_rmtree(&tmp); }

static int policy_is(const olc_selection *s, const char *text) {
  char buf[64];
  return strcmp(rt_policy(s, buf, sizeof buf), text) == 0;
}

/* One of by_m's candidates for m (3m + 300, m, 2m + 100): which one wins is
 * the race's call (spin_us=m, unless a machine far beyond its CPUs makes it
 * a tie the first candidate keeps); no other shape's. */
static int policy_of_m(const olc_selection *s, long m) {
  char want[32];
  snprintf(want, sizeof want, "spin_us=%ld", m);
  if (policy_is(s, want))
    return 1;
  snprintf(want, sizeof want, "spin_us=%ld", 3 * m + 300);
  if (policy_is(s, want))
    return 1;
  snprintf(want, sizeof want, "spin_us=%ld", 2 * m + 100);
  return policy_is(s, want);
}

/* Never (the default): the first candidate, reported; per call on_miss
 * measures once; then every mode answers from the store. */
static void test_never_then_on_miss(void) {
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s, *s2;
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  olc_error err;
  rt_open(&h, tmp, NULL, "never.txt", NULL);
  rt_matmul(&rw, NULL, 8, 4, 2);
  b = rt_bind(&h, &rw);
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, NULL, &err), OLC_FIRST_CANDIDATE);
  CU_ASSERT_EQUAL(err.code, OLC_FIRST_CANDIDATE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "first candidate of workload 'mock_det/MatMul'"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_PTR_NULL(olc_selection_record(s));
  CU_ASSERT_EQUAL(olc_selection_why(s), OLC_E_NOT_FOUND);
  CU_ASSERT_TRUE(policy_is(s, "spin_us=400"));
  CU_ASSERT_TRUE(olc_selection_can_execute(s));
  CU_ASSERT_EQUAL(olc_binding_select(&s2, b, NULL, NULL), OLC_FIRST_CANDIDATE);
  CU_ASSERT_PTR_EQUAL(s2, s); /* one object per reason */
  CU_ASSERT_EQUAL(rt_measurements(&h), 0);
  CU_ASSERT_EQUAL(rt_records(&h), 0);

  OLC_ASSERT_OK(olc_binding_select(&s, b, &on_miss, &err), &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(olc_selection_record(s));
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  CU_ASSERT_EQUAL(olc_selection_why(s), OLC_OK);
  /* The winner (spin_us=100), or the first candidate on a tie under load. */
  CU_ASSERT_TRUE(policy_is(s, "spin_us=100") || policy_is(s, "spin_us=400"));
  CU_ASSERT_EQUAL(olc_selection_record(s)->level, OLC_LEVEL_EXACT);
  CU_ASSERT_STRING_EQUAL(olc_selection_record(s)->model_digest,
                         "workload:dtype=float32;k=2;m=8;n=4");
  CU_ASSERT_EQUAL(rt_measurements(&h), 1);
  CU_ASSERT_EQUAL(rt_records(&h), 2); /* exact and portable */
  /* Warm: the same object, in either mode, nothing measured again. */
  OLC_ASSERT_OK(olc_binding_select(&s2, b, NULL, &err), &err);
  CU_ASSERT_PTR_EQUAL(s2, s);
  OLC_ASSERT_OK(olc_binding_select(&s2, b, &on_miss, &err), &err);
  CU_ASSERT_PTR_EQUAL(s2, s);
  CU_ASSERT_EQUAL(rt_measurements(&h), 1);
  olc_binding_free(b);
  rt_close(&h);
}

/* The mode comes from the call, else the host's options, else the
 * config's [calibration] select_mode. */
static void test_mode_sources(void) {
  olc_host_options ho = OLC_HOST_OPTIONS_INIT;
  olc_select_options never = rt_mode(OLC_SELECT_NEVER);
  olc_host *host = NULL;
  rt_host h;
  rt_workload rw;
  olc_binding *b = NULL;
  const olc_selection *s;
  olc_error err;
  rt_open(&h, tmp, NULL, "modes.txt", "select_mode = on_miss\n");
  rt_matmul(&rw, NULL, 3, 3, 3);
  b = rt_bind(&h, &rw);
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, &never, &err), OLC_FIRST_CANDIDATE);
  OLC_ASSERT_OK(olc_binding_select(&s, b, NULL, &err), &err);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  olc_binding_free(b);
  /* The host's option wins over the config. */
  ho.ignore_env = 1;
  ho.select_mode = OLC_SELECT_NEVER;
  OLC_ASSERT_OK(olc_host_open(&host, h.s.config, h.s.store, &ho, &err), &err);
  rt_matmul(&rw, NULL, 3, 3, 4);
  OLC_ASSERT_OK(olc_host_bind(&b, host, &rw.w, &err), &err);
  /* Not measured: never mode serves the nearest measured workload's
   * policy (3 x 3 x 3, measured above). */
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, NULL, &err), OLC_NEAREST_RECORD);
  olc_binding_free(b);
  olc_host_free(host);
  ho.select_mode = 7;
  CU_ASSERT_EQUAL(olc_host_open(&host, h.s.config, h.s.store, &ho, &err), OLC_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "select_mode 7"));
  CU_ASSERT_PTR_NULL(host);
  rt_close(&h);
}

/* Two shapes of one model each get their own record and policy: by model
 * bytes and by the same explicit digest; a second start measures nothing. */
static void test_shapes_of_one_model(void) {
  static const char *const names[2] = {"bytes", "digest"};
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  char digest[160];
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s;
  olc_error err;
  long m;
  int start, how;
  for (start = 0; start < 2; start++) {
    rt_open(&h, tmp, NULL, "shapes.txt", "[plugin.mock_det]\ncandidates = by_m\n");
    for (how = 0; how < 2; how++)
      for (m = 64; m <= 128; m += 64) {
        rt_matmul(&rw, NULL, m, 8, 8);
        rw.w.name = names[how];
        if (how == 0) {
          rw.w.model_bytes = "abc";
          rw.w.model_len = 3;
        } else {
          rw.w.model_digest = ABC_SHA256;
        }
        b = rt_bind(&h, &rw);
        OLC_ASSERT_OK(olc_binding_select(&s, b, &on_miss, &err), &err);
        CU_ASSERT_TRUE(policy_of_m(s, m));
        snprintf(digest, sizeof digest, ABC_SHA256 "#dtype=float32;k=8;m=%ld;n=8", m);
        CU_ASSERT_STRING_EQUAL(olc_selection_record(s)->model_digest, digest);
        /* The digest names the same model as the bytes: one key, one
         * record, measured by the first start. */
        CU_ASSERT_EQUAL(olc_selection_calibrated_now(s), start == 0);
        olc_binding_free(b);
      }
    CU_ASSERT_EQUAL(rt_measurements(&h), start == 0 ? 2u : 0u);
    CU_ASSERT_EQUAL(rt_records(&h), 4);
    rt_close(&h);
  }
}

/* An exact record whose digest is the bare model digest (before records
 * were per workload): never selected, reported, recalibrated. */
static void test_legacy_record(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  olc_measurement ms = {"median_latency", 1.0, "us"};
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  olc_lookup_result *lr = NULL;
  olc_key key;
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s;
  olc_error err;
  size_t i, legacy = 0;
  rt_open(&h, tmp, NULL, "legacy.txt", NULL);
  memset(&key, 0, sizeof key);
  key.backend = "mock_det";
  key.operator_name = "MatMul";
  key.implementation = "1";
  key.model_digest = ABC_SHA256;
  key.processor = "mock-cpu";
  key.thread_count = 2;
  req.key = &key;
  req.measurements = &ms;
  req.measurement_count = 1;
  req.policy = "spin_us=777";
  req.policy_len = 11;
  OLC_ASSERT_OK(olc_store_save(h.s.store, &req, &err), &err);
  rt_matmul(&rw, NULL, 5, 5, 5);
  rw.w.model_digest = ABC_SHA256;
  b = rt_bind(&h, &rw);
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, NULL, &err), OLC_FIRST_CANDIDATE);
  CU_ASSERT_EQUAL_FATAL(olc_binding_explain(&lr, b, 0, &err), OLC_E_NOT_FOUND);
  for (i = 0; i < olc_lookup_result_rejected_count(lr); i++) {
    const olc_rejection *r = olc_lookup_result_rejected(lr, i);
    if (r->reason == OLC_REASON_DIFFERENT_MODEL &&
        strstr(r->message, "before records were per workload (recalibrated)") != NULL &&
        strcmp(r->record->model_digest, ABC_SHA256) == 0)
      legacy++;
  }
  CU_ASSERT_EQUAL(legacy, 1);
  olc_lookup_result_free(lr);
  OLC_ASSERT_OK(olc_binding_select(&s, b, &on_miss, &err), &err);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  /* Measured, not the legacy record's spin_us=777 (100 wins; 400 on a tie). */
  CU_ASSERT_TRUE(policy_is(s, "spin_us=100") || policy_is(s, "spin_us=400"));
  CU_ASSERT_STRING_EQUAL(olc_selection_record(s)->model_digest,
                         ABC_SHA256 "#dtype=float32;k=5;m=5;n=5");
  CU_ASSERT_EQUAL(rt_records(&h), 3); /* the legacy one stays, unused */
  olc_binding_free(b);
  rt_close(&h);
}

/* Only the records that could have served the workload are listed; the
 * other workloads' are counted, and all_candidates lists them. */
static void test_scoped_rejections(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  olc_lookup_result *lr = NULL;
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s;
  olc_error err;
  long m;
  rt_open(&h, tmp, NULL, "scoped.txt", "[plugin.mock_det]\ncandidates = 3,1,2\n");
  for (m = 1; m <= 5; m++) {
    rt_matmul(&rw, NULL, m, 2, 2);
    b = rt_bind(&h, &rw);
    OLC_ASSERT_OK(olc_binding_select(&s, b, &on_miss, &err), &err);
    olc_binding_free(b);
  }
  rt_matmul(&rw, NULL, 6, 2, 2);
  b = rt_bind(&h, &rw);
  CU_ASSERT_EQUAL(olc_binding_explain(&lr, b, 0, &err), OLC_E_NOT_FOUND);
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(lr), 0);
  CU_ASSERT_EQUAL(olc_lookup_result_unlisted_count(lr), 10);
  olc_lookup_result_free(lr);
  CU_ASSERT_EQUAL(olc_binding_explain(&lr, b, OLC_EXPLAIN_ALL, &err), OLC_E_NOT_FOUND);
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(lr), 10);
  CU_ASSERT_EQUAL(olc_lookup_result_unlisted_count(lr), 0);
  olc_lookup_result_free(lr);
  lr = NULL;
  CU_ASSERT_EQUAL(olc_binding_explain(&lr, b, 2u, &err), OLC_E_INVALID); /* an unknown flag */
  CU_ASSERT_PTR_NULL(lr);
  olc_binding_free(b);
  rt_close(&h);
}

/* The test's clock for the retry of failed keys (olc_host__set_retry_clock). */
static uint64_t fake_now(void *payload) { return *(const uint64_t *)payload; }

/* A measurement that fails gives the first candidate with its status, and
 * is not tried again by this host within the first retry's wait (1 s). */
static void test_failed_measurement(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s, *s2;
  olc_error err;
  uint64_t now = 1000000000u; /* frozen: no retry is due */
  rt_open(&h, tmp, NULL, "failed.txt", "[plugin.mock_det]\nrun = fail\n");
  olc_host__set_retry_clock(h.s.host, fake_now, &now);
  rt_matmul(&rw, NULL, 4, 4, 4);
  b = rt_bind(&h, &rw);
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, &on_miss, &err), OLC_FIRST_CANDIDATE);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT(olc_selection_why(s) < 0);
  CU_ASSERT_NOT_EQUAL(olc_selection_why(s), OLC_E_NOT_FOUND);
  CU_ASSERT_TRUE(policy_is(s, "spin_us=400"));
  CU_ASSERT_PTR_NOT_NULL(strstr(olc_selection_message(s), "first candidate"));
  CU_ASSERT_EQUAL(rt_measurements(&h), 1);
  CU_ASSERT_EQUAL(olc_binding_select(&s2, b, &on_miss, &err), OLC_FIRST_CANDIDATE);
  CU_ASSERT_PTR_EQUAL(s2, s);
  CU_ASSERT_EQUAL(rt_measurements(&h), 1);
  CU_ASSERT_EQUAL(rt_records(&h), 0);
  olc_binding_free(b);
  rt_close(&h);
}

/* Holds the store's lock (P.lock) as a writer of another process would:
 * an open file description lock, which the host's own conflicts with.
 * Returns the descriptor (closing it lets go). */
static int hold_store_lock(const char *store) {
  char path[1100];
  struct flock fl;
  int fd;
  snprintf(path, sizeof path, "%s/%s.lock", tmp, store);
  fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  CU_ASSERT_FATAL(fd >= 0);
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  CU_ASSERT_FATAL(fcntl(fd, F_OFD_SETLK, &fl) == 0);
  return fd;
}

/* A host whose store waits 50 ms for its lock. */
static void open_lock_host(rt_host *h, const char *store) {
  char ini[1024];
  int n = snprintf(ini, sizeof ini,
                   "[host]\nplugin_dirs = %s/good\nthreads = 2\n"
                   "[store]\npath = %s\nlock_timeout_ms = 50\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
                   "isolation = false\n",
                   OLC_MOCK_PLUGIN_ROOT, store);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof ini);
  olc_test_session_open(&h->s, tmp, ini, (size_t)n);
}

/* A measurement whose save timed out on a busy store lock is measured
 * again, no sooner than 1 s later (on the host's retry clock, here the
 * test's), and its winner then served. */
static void test_failed_measurement_retried(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s = NULL;
  uint64_t now = 1000000000u;
  olc_error err;
  int fd;
  open_lock_host(&h, "retry.txt");
  olc_host__set_retry_clock(h.s.host, fake_now, &now);
  rt_matmul(&rw, NULL, 4, 4, 4);
  b = rt_bind(&h, &rw);
  fd = hold_store_lock("retry.txt");
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, &on_miss, &err), OLC_FIRST_CANDIDATE);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL(olc_selection_why(s), OLC_E_LOCK_TIMEOUT);
  CU_ASSERT_EQUAL(rt_measurements(&h), 1);
  close(fd); /* the other writer is done */
  now += 999000000u;
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, &on_miss, &err), OLC_FIRST_CANDIDATE);
  CU_ASSERT_EQUAL(rt_measurements(&h), 1); /* not yet */
  now += 1000000u;
  OLC_ASSERT_OK(olc_binding_select(&s, b, &on_miss, &err), &err);
  CU_ASSERT_EQUAL(rt_measurements(&h), 2);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  CU_ASSERT_EQUAL(rt_records(&h), 2); /* exact and portable */
  olc_binding_free(b);
  rt_close(&h);
}

/* A key that keeps failing is tried again after 1 s, then 2, 4, ...
 * doubling up to 5 minutes between tries, never more often. */
static void test_failed_measurement_backoff(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s = NULL;
  uint64_t now = 5000000000u, wait_s = 1, tries = 1;
  olc_error err;
  int fd;
  open_lock_host(&h, "backoff.txt");
  olc_host__set_retry_clock(h.s.host, fake_now, &now);
  rt_matmul(&rw, NULL, 4, 4, 4);
  b = rt_bind(&h, &rw);
  fd = hold_store_lock("backoff.txt");
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, &on_miss, &err), OLC_FIRST_CANDIDATE);
  CU_ASSERT_EQUAL(rt_measurements(&h), 1);
  for (int i = 0; i < 12; i++) {
    now += wait_s * 1000000000u - 1u; /* a nanosecond early */
    CU_ASSERT_EQUAL(olc_binding_select(&s, b, &on_miss, &err), OLC_FIRST_CANDIDATE);
    CU_ASSERT_EQUAL(rt_measurements(&h), tries);
    now += 1u;
    CU_ASSERT_EQUAL(olc_binding_select(&s, b, &on_miss, &err), OLC_FIRST_CANDIDATE);
    CU_ASSERT_EQUAL(rt_measurements(&h), ++tries);
    CU_ASSERT_EQUAL(olc_selection_why(s), OLC_E_LOCK_TIMEOUT);
    wait_s = wait_s * 2 < 300 ? wait_s * 2 : 300;
  }
  CU_ASSERT_EQUAL(wait_s, 300); /* 1, 2, ..., 256, then 300 s apart */
  close(fd);
  olc_binding_free(b);
  rt_close(&h);
}

/* A record another process saved after this host's measurement failed is
 * served by the next select, before any retry is due. */
static void test_failed_then_saved_elsewhere(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  rt_host h, other;
  rt_workload rw;
  olc_binding *b, *ob;
  const olc_selection *s = NULL;
  uint64_t now = 1000000000u;
  olc_error err;
  int fd;
  open_lock_host(&h, "elsewhere.txt");
  olc_host__set_retry_clock(h.s.host, fake_now, &now);
  rt_matmul(&rw, NULL, 4, 4, 4);
  b = rt_bind(&h, &rw);
  fd = hold_store_lock("elsewhere.txt");
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, &on_miss, &err), OLC_FIRST_CANDIDATE);
  close(fd);
  open_lock_host(&other, "elsewhere.txt");
  ob = rt_bind(&other, &rw);
  OLC_ASSERT_OK(olc_binding_select(&s, ob, &on_miss, &err), &err);
  CU_ASSERT_EQUAL(rt_measurements(&other), 1);
  OLC_ASSERT_OK(olc_binding_select(&s, b, &on_miss, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(olc_selection_record(s));
  CU_ASSERT_FALSE(olc_selection_calibrated_now(s));
  CU_ASSERT_EQUAL(rt_measurements(&h), 1); /* served, not measured again */
  olc_binding_free(ob);
  rt_close(&other);
  olc_binding_free(b);
  rt_close(&h);
}

/* on_miss through the race whose final's leader (spin_us=100) fails after
 * the other finalist (1000) left it as clearly slower: its fourth run (the
 * numerical check stands for its warm-up; screening, then the final's
 * third turn, which every final has) fails.  The one left that works is
 * measured again, saved and selected.  It once read past the candidates:
 * a crash, or a garbage policy saved. */
static void test_leader_fails_in_final(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s = NULL;
  olc_error err;
  rt_open(&h, tmp, NULL, "leader.txt", "[plugin.mock_det]\ncandidates = 1000,100\nfail = 100:4\n");
  rt_matmul(&rw, NULL, 4, 4, 4);
  b = rt_bind(&h, &rw);
  OLC_ASSERT_OK(olc_binding_select(&s, b, &on_miss, &err), &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_TRUE(policy_is(s, "spin_us=1000"));
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  CU_ASSERT_EQUAL(rt_measurements(&h), 1);
  olc_binding_free(b);
  rt_close(&h);
}

/* A store that cannot be written (here: a network file system, through
 * the test hook) fails the key before anything is measured: the first
 * candidate with OLC_E_READ_ONLY and the reason; the same store in
 * read-only mode measures and keeps the winner in memory. */
static void test_unwritable_store(void) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s;
  olc_error err;
  CU_ASSERT_EQUAL_FATAL(setenv("OLC_TEST_FSTYPE", "nfs4", 1), 0);
  rt_open(&h, tmp, NULL, "unwritable.txt", NULL);
  rt_matmul(&rw, NULL, 4, 4, 4);
  b = rt_bind(&h, &rw);
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, &on_miss, &err), OLC_FIRST_CANDIDATE);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL(olc_selection_why(s), OLC_E_READ_ONLY);
  CU_ASSERT_PTR_NOT_NULL(strstr(olc_selection_message(s), "network file system"));
  CU_ASSERT_PTR_NOT_NULL(strstr(olc_selection_message(s), "nothing measured"));
  CU_ASSERT_EQUAL(rt_measurements(&h), 0);
  olc_binding_free(b);
  rt_close(&h);
  {
    static const char ini[] = "[host]\nplugin_dirs = " OLC_MOCK_PLUGIN_ROOT "/good\nthreads = 2\n"
                              "[store]\npath = unwritable.txt\npersistence = read_only\n"
                              "[calibration]\nwarmup = 1\nmin_repetitions = 3\n"
                              "min_seconds = 0.001\nisolation = false\n";
    olc_test_session_open(&h.s, tmp, ini, sizeof ini - 1);
  }
  b = rt_bind(&h, &rw);
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, &on_miss, &err), OLC_OK);
  CU_ASSERT_TRUE(olc_selection_calibrated_now(s));
  CU_ASSERT_EQUAL(rt_measurements(&h), 1);
  olc_binding_free(b);
  rt_close(&h);
  unsetenv("OLC_TEST_FSTYPE");
}

static void test_bad_options(void) {
  olc_select_options o = OLC_SELECT_OPTIONS_INIT;
  rt_host h;
  rt_workload rw;
  olc_binding *b;
  const olc_selection *s = (const olc_selection *)&o;
  olc_error err;
  rt_open(&h, tmp, NULL, "bad.txt", NULL);
  rt_matmul(&rw, NULL, 2, 2, 2);
  b = rt_bind(&h, &rw);
  o.version = 0;
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, &o, &err), OLC_E_INVALID);
  CU_ASSERT_PTR_NULL(s);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "olc_select_options version 0"));
  o.version = OLC_SELECT_OPTIONS_VERSION + 1;
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, &o, &err), OLC_E_INVALID);
  o.version = OLC_SELECT_OPTIONS_VERSION;
  o.mode = 5;
  CU_ASSERT_EQUAL(olc_binding_select(&s, b, &o, &err), OLC_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "select mode 5"));
  CU_ASSERT_EQUAL(olc_binding_select(NULL, b, NULL, &err), OLC_E_INVALID);
  CU_ASSERT_EQUAL(olc_binding_select(&s, NULL, NULL, &err), OLC_E_INVALID);
  CU_ASSERT_EQUAL(rt_records(&h), 0);
  olc_binding_free(b);
  rt_close(&h);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("runtime_select", setup, teardown);
  CU_add_test(s, "never, then on_miss", test_never_then_on_miss);
  CU_add_test(s, "mode: call, host, config", test_mode_sources);
  CU_add_test(s, "shapes of one model; a second start", test_shapes_of_one_model);
  CU_add_test(s, "legacy record", test_legacy_record);
  CU_add_test(s, "scoped rejections", test_scoped_rejections);
  CU_add_test(s, "failed measurement", test_failed_measurement);
  CU_add_test(s, "the final's leader fails", test_leader_fails_in_final);
  CU_add_test(s, "a failed measurement is retried", test_failed_measurement_retried);
  CU_add_test(s, "retries back off to 5 minutes", test_failed_measurement_backoff);
  CU_add_test(s, "failed, then saved by another", test_failed_then_saved_elsewhere);
  CU_add_test(s, "unwritable store", test_unwritable_store);
  CU_add_test(s, "bad options", test_bad_options);
  return olc_test_run(argc, argv);
}
