/*
 * tests/persist/test_mlock_host.c - the host's measurement lock around the
 * measurement of one key (host/key_measure_lock.c, host/ini_workload.c) against mock_det:
 * a process that waited for another's measurement selects its record and
 * measures nothing; a holder past the timeout only delays (measured
 * anyway, said each time, its pid in the result); a lock that cannot be
 * used is said once and measuring goes on; where the lock lives (option,
 * config, private XDG_RUNTIME_DIR, beside the store); the runtime's lazy
 * select waiting for it within its own timeout.
 *
 * The other process is a forked child holding the lock through the
 * persist module.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "olc/host.h"
#include "olc/store.h"
#include "mlock_holder.h"
#include "persist/persist.h"
#include "test_support.h"

#ifndef OLC_MOCK_PLUGIN_ROOT
#error "OLC_MOCK_PLUGIN_ROOT must be defined"
#endif

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("mlock-host");
  unsetenv("XDG_RUNTIME_DIR");
  return tmp == NULL;
}

static int teardown(void) { return olc_test_suite_rmtree(&tmp); }

/* A fresh directory under tmp for one test. */
static char *fresh(const char *name) {
  char *d = olc_test_path(tmp, name);
  CU_ASSERT_FATAL(d != NULL && mkdir(d, 0700) == 0);
  return d;
}

/* An ini in d with two workloads; lock_line: the [calibration] lines about
 * the lock (may be ""). */
static size_t ini_text(char *buf, size_t size, const char *d, const char *lock_lines) {
  int n = snprintf(buf, size,
                   "[host]\nplugin_dirs = %s/good\nthreads = 1\n"
                   "[store]\npath = %s/profiles.txt\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
                   "isolation = false\n%s"
                   /* spin_us=100 wins by 10 x: no busy machine flips it */
                   "[plugin.mock_det]\ncandidates = 1000,100,2000\n"
                   "[workload.a]\nbackend = mock_det\noperator = MatMul\nm = 8\nn = 4\nk = 2\n"
                   "[workload.b]\nbackend = mock_det\noperator = MatMul\nm = 16\nn = 4\nk = 2\n",
                   OLC_MOCK_PLUGIN_ROOT, d, lock_lines);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < size);
  return (size_t)n;
}

/* A session whose host takes option_lock (NULL: the config's/default). */
static void open_with(olc_test_session *s, const char *d, const char *lock_lines,
                      const char *option_lock) {
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  olc_host_options ho = OLC_HOST_OPTIONS_INIT;
  char text[2048], *path = olc_test_path(d, "olc.ini");
  size_t n = ini_text(text, sizeof text, d, lock_lines);
  olc_error err;
  memset(s, 0, sizeof *s);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, text, n), 0);
  OLC_ASSERT_OK(olc_config_load_file(&s->config, path, &err), &err);
  free(path);
  olc_config_store_options(s->config, &so);
  OLC_ASSERT_OK(olc_store_open(&s->store, &so, &err), &err);
  ho.ignore_env = 1;
  ho.measure_lock = option_lock;
  OLC_ASSERT_OK(olc_host_open(&s->host, s->config, s->store, &ho, &err), &err);
}

static olc_calibration *calibrate(olc_test_session *s, const char *only) {
  olc_calibrate_options opt = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal = NULL;
  olc_error err;
  opt.in_process = 1;
  if (only != NULL) {
    opt.workloads = &only;
    opt.workload_count = 1;
  }
  OLC_ASSERT_OK(olc_host_calibrate(&cal, s->host, &opt, &err), &err);
  return cal;
}

static const olc_workload_result *find(const olc_calibration *cal, const char *name) {
  const olc_workload_result *r = olc_test_find_result(cal, name);
  if (r == NULL)
    CU_FAIL("workload not in the result");
  return r;
}

/* The host's "measure_lock" diagnostics; the last one's message in last. */
static int lock_diagnostics(olc_host *h, char *last, size_t size) {
  olc_diagnostic d;
  int n = 0;
  while (olc_host_next_diagnostic(&d, h) == OLC_OK)
    if (strcmp(d.where, "measure_lock") == 0) {
      n++;
      snprintf(last, size, "%s", d.message);
    }
  return n;
}

static int exists(const char *p) {
  struct stat st;
  return lstat(p, &st) == 0;
}

/* ---- a holder in another process ---- */

/* 1 once process pid has a descriptor open on path (the host opens the
 * lock's file at its first try, after its lookup missed). */
static int has_open(long pid, const char *path) {
  char dir[64], link_[320], target[4096];
  DIR *dp;
  struct dirent *de;
  int found = 0;
  snprintf(dir, sizeof dir, "/proc/%ld/fd", pid);
  dp = opendir(dir);
  while (dp != NULL && !found && (de = readdir(dp)) != NULL) {
    ssize_t n;
    snprintf(link_, sizeof link_, "%s/%s", dir, de->d_name);
    n = readlink(link_, target, sizeof target - 1);
    if (n > 0) {
      target[n] = 0;
      found = strcmp(target, path) == 0;
    }
  }
  if (dp != NULL)
    closedir(dp);
  return found;
}

/* The child's part of test_waiter_reuses: once the parent waits for the
 * lock, measure workload a (its own host, without the lock) and save it,
 * then let the lock go. */
static int save_while_held(const char *d, const char *lock) {
  olc_test_session s;
  olc_calibration *cal;
  char *unusable = olc_test_path(d, "olc.ini/x.lock"); /* under a file */
  int i, ok;
  for (i = 0; i < 20000 && !has_open((long)getppid(), lock); i++)
    usleep(1000);
  /* This process holds the lock: its own host tries once and measures. */
  open_with(&s, d, "measure_lock_timeout_seconds = 0\n", unusable);
  cal = calibrate(&s, "a");
  ok = find(cal, "a")->calibrated_now == 1;
  olc_calibration_free(cal);
  olc_test_session_close(&s);
  free(unusable);
  return ok;
}

static int save_task(const char *lock, const void *d) { return save_while_held(d, lock); }

/* Forks a child that holds lock; then, with d set, saves workload a while
 * holding it, else holds it until let go. */
static int start_holder(mlock_holder *h, const char *lock, const char *d) {
  return mlock_holder_start(h, lock, d != NULL ? save_task : NULL, d);
}

/* ---- tests ---- */

/* The rule: a process that waited looks the key up again and
 * uses what the other saved instead of measuring. */
static void test_waiter_reuses(void) {
  char *d = fresh("reuse");
  char *lock = olc_test_path(d, "measure.lock");
  char lines[512], msg[512] = "";
  olc_test_session s;
  olc_calibration *cal;
  const olc_workload_result *r;
  mlock_holder h;
  if (!exists("/proc/self/fd")) {
    printf("(skipped: no /proc/self/fd) ");
    free(d);
    free(lock);
    return;
  }
  snprintf(lines, sizeof lines, "measure_lock = %s\n", lock);
  open_with(&s, d, lines, NULL);
  CU_ASSERT_EQUAL_FATAL(start_holder(&h, lock, d), 0);
  cal = calibrate(&s, "a");
  r = find(cal, "a");
  CU_ASSERT_EQUAL(r->status, OLC_OK);
  CU_ASSERT_EQUAL(r->calibrated_now, 0);
  CU_ASSERT_EQUAL(r->measured_elsewhere, 1);
  CU_ASSERT_EQUAL(r->candidate_count, 0);
  CU_ASSERT_PTR_NOT_NULL(r->selected);
  CU_ASSERT_EQUAL(r->lock_status, OLC_OK);
  CU_ASSERT(r->lock_wait_seconds > 0);
  CU_ASSERT_PTR_NOT_NULL(r->lock_holder);
  if (r->lock_holder != NULL) {
    char pid[32];
    snprintf(pid, sizeof pid, "pid %ld ", (long)h.pid);
    CU_ASSERT_PTR_NOT_NULL(strstr(r->lock_holder, pid));
  }
  if (r->selected != NULL)
    CU_ASSERT(r->selected->policy_len == 11 && memcmp(r->selected->policy, "spin_us=100", 11) == 0);
  CU_ASSERT_EQUAL(mlock_holder_stop(&h), 0);
  CU_ASSERT_EQUAL(lock_diagnostics(s.host, msg, sizeof msg), 0);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
  free(d);
  free(lock);
}

/* A holder past the timeout only delays: each workload is measured
 * anyway, said each time with the holder's pid. */
static void test_timeout_measures_anyway(void) {
  char *d = fresh("timeout");
  char *lock = olc_test_path(d, "run/measure.lock");
  char lines[512], msg[512] = "", pid[32];
  olc_test_session s;
  olc_calibration *cal;
  const char *names[2] = {"a", "b"};
  mlock_holder h;
  size_t i;
  snprintf(lines, sizeof lines, "measure_lock = %s\nmeasure_lock_timeout_seconds = 0.05\n", lock);
  open_with(&s, d, lines, NULL);
  CU_ASSERT_EQUAL_FATAL(start_holder(&h, lock, NULL), 0);
  cal = calibrate(&s, NULL);
  snprintf(pid, sizeof pid, "pid %ld ", (long)h.pid);
  for (i = 0; i < 2; i++) {
    const olc_workload_result *r = find(cal, names[i]);
    CU_ASSERT_EQUAL(r->status, OLC_OK);
    CU_ASSERT_EQUAL(r->calibrated_now, 1);
    CU_ASSERT_EQUAL(r->measured_elsewhere, 0);
    CU_ASSERT_EQUAL(r->lock_status, OLC_E_LOCK_TIMEOUT);
    CU_ASSERT(r->lock_wait_seconds >= 0.05);
    CU_ASSERT(r->lock_holder != NULL && strstr(r->lock_holder, pid) != NULL);
  }
  CU_ASSERT_EQUAL(lock_diagnostics(s.host, msg, sizeof msg), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "anyway"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, pid));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "'b'"));
  CU_ASSERT_EQUAL(mlock_holder_stop(&h), 0);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
  free(d);
  free(lock);
}

/* A lock that cannot be used: measured without it, said once per host. */
static void test_unusable_said_once(void) {
  char *d = fresh("unusable");
  char *lock = olc_test_path(d, "dir.lock");
  char lines[512], msg[512] = "";
  olc_test_session s;
  olc_calibration *cal;
  CU_ASSERT_EQUAL_FATAL(mkdir(lock, 0700), 0);
  snprintf(lines, sizeof lines, "measure_lock = %s\n", lock);
  open_with(&s, d, lines, NULL);
  cal = calibrate(&s, NULL);
  CU_ASSERT_EQUAL(find(cal, "a")->calibrated_now, 1);
  CU_ASSERT_EQUAL(find(cal, "b")->calibrated_now, 1);
  CU_ASSERT_EQUAL(find(cal, "a")->lock_status, OLC_E_LOCK);
  CU_ASSERT_EQUAL(find(cal, "b")->lock_status, OLC_E_LOCK);
  CU_ASSERT_EQUAL(lock_diagnostics(s.host, msg, sizeof msg), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, lock));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "measuring without the measurement lock"));
  olc_calibration_free(cal);
  /* Nothing to measure the second time: nothing said. */
  cal = calibrate(&s, NULL);
  CU_ASSERT_EQUAL(find(cal, "a")->calibrated_now, 0);
  CU_ASSERT_EQUAL(find(cal, "a")->lock_status, OLC_OK);
  CU_ASSERT_EQUAL(lock_diagnostics(s.host, msg, sizeof msg), 0);
  olc_calibration_free(cal);
  olc_test_session_close(&s);
  free(d);
  free(lock);
}

/* Where the lock lives: the option over the config, the config, a private
 * XDG_RUNTIME_DIR, else beside the store. */
static void test_where_it_lives(void) {
  char *d = fresh("where");
  char *opt = olc_test_path(d, "option.lock");
  char *cfg = olc_test_path(d, "config.lock");
  char *run = olc_test_path(d, "run");
  char *in_run = olc_test_path(d, "run/onnx-light/measure.lock");
  char *beside = olc_test_path(d, "profiles.txt.measure.lock");
  char *store = olc_test_path(d, "profiles.txt");
  char lines[512];
  olc_test_session s;
  snprintf(lines, sizeof lines, "measure_lock = %s\n", cfg);
  open_with(&s, d, lines, opt);
  olc_calibration_free(calibrate(&s, "a"));
  olc_test_session_close(&s);
  CU_ASSERT(exists(opt) && !exists(cfg));
  unlink(store);
  open_with(&s, d, lines, NULL);
  olc_calibration_free(calibrate(&s, "a"));
  olc_test_session_close(&s);
  CU_ASSERT(exists(cfg));
  unlink(store);
  CU_ASSERT_EQUAL_FATAL(mkdir(run, 0700), 0);
  setenv("XDG_RUNTIME_DIR", run, 1);
  open_with(&s, d, "", NULL);
  olc_calibration_free(calibrate(&s, "a"));
  olc_test_session_close(&s);
  CU_ASSERT(exists(in_run) && !exists(beside));
  unlink(store);
  unsetenv("XDG_RUNTIME_DIR");
  open_with(&s, d, "", NULL);
  olc_calibration_free(calibrate(&s, "a"));
  olc_test_session_close(&s);
  CU_ASSERT(exists(beside));
  free(d);
  free(opt);
  free(cfg);
  free(run);
  free(in_run);
  free(beside);
  free(store);
}

/* The runtime's lazy calibration (olc_host_select, on_miss) goes through
 * the same lock: while another process holds it, a select bounded by its
 * own timeout_ms gets the first candidate (OLC_E_TIMEOUT) and measures
 * nothing; once the lock is free the next select measures. */
static void test_runtime_select_waits(void) {
  char *d = fresh("runtime");
  char *lock = olc_test_path(d, "measure.lock");
  char lines[512];
  olc_property props[3] = {{"m", "64"}, {"n", "4"}, {"k", "2"}};
  olc_workload w = OLC_WORKLOAD_INIT;
  olc_select_options so = OLC_SELECT_OPTIONS_INIT;
  const olc_selection *sel = NULL;
  olc_test_session s;
  olc_error err;
  mlock_holder h;
  w.backend = "mock_det";
  w.operator_name = "MatMul";
  w.properties = props;
  w.property_count = 3;
  so.mode = OLC_SELECT_ON_MISS;
  so.in_process = 1;
  so.timeout_ms = 50;
  snprintf(lines, sizeof lines, "measure_lock = %s\n", lock);
  open_with(&s, d, lines, NULL);
  CU_ASSERT_EQUAL_FATAL(start_holder(&h, lock, NULL), 0);
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&sel, s.host, &w, &so, &err), &err);
  CU_ASSERT_EQUAL(olc_selection_why(sel), OLC_E_TIMEOUT);
  CU_ASSERT_EQUAL(olc_selection_calibrated_now(sel), 0);
  CU_ASSERT_EQUAL(mlock_holder_stop(&h), 0);
  OLC_ASSERT_OK(olc_host_select(&sel, s.host, &w, &so, &err), &err);
  CU_ASSERT_EQUAL(olc_selection_calibrated_now(sel), 1);
  CU_ASSERT_PTR_NOT_NULL(olc_selection_record(sel));
  olc_test_session_close(&s);
  free(d);
  free(lock);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  signal(SIGPIPE, SIG_IGN); /* a holder that already exited */
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("mlock-host", setup, teardown);
  if (s == NULL)
    return 1;
  CU_add_test(s, "a waiter selects what the holder saved", test_waiter_reuses);
  CU_add_test(s, "past the timeout: measured anyway, said", test_timeout_measures_anyway);
  CU_add_test(s, "unusable lock: measured without it, said once", test_unusable_said_once);
  CU_add_test(s, "where the lock lives", test_where_it_lives);
  CU_add_test(s, "the runtime's lazy select waits for it, bounded", test_runtime_select_waits);
  return olc_test_run(argc, argv);
}
