/*
 * tests/calibrate/test_isolation.c - measure sessions (calibrate/isolate.h)
 * against the crash mock (mock_crash.c): candidates whose run() segfaults,
 * aborts, hangs, spins forever, exits or fails are rejected with that
 * reason, a new worker takes the next candidate, the well-behaved ones are
 * measured; in-process mode and the worker-not-found fallback; the worker
 * has no store path in its arguments or environment and no store file
 * open.
 *
 * Each test opens config + store + host from an ini file in a fresh
 * directory, gets the plugin's candidates, prepares, and measures every
 * candidate through a session the way the calibrate loop does.
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate/isolate.h"
#include "host/host.h"
#include "olc/host.h"
#include "olc/store.h"
#include "plugins/plugins.h"
#include "test_support.h"

#ifndef OLC_CRASH_PLUGIN_ROOT
#error "OLC_CRASH_PLUGIN_ROOT must be defined"
#endif

#define MAX_CANDIDATES 16

static char *tmp;

typedef struct fixture {
  olc_test_session s; /* config, store, host */
  olc_loaded_plugin *plugin;
  olc_isolate_plugin target; /* the plugin as the host made it */
  olc_plugin_kv kv[8];
  olc_plugin_workload w;
  olc_policy_list list;
  char store_path[1024];
} fixture;

/* What the session said for each candidate. */
typedef struct outcome {
  olc_status st[MAX_CANDIDATES];
  char msg[MAX_CANDIDATES][OLC_ERROR_MESSAGE_SIZE];
  olc_timing_result m[MAX_CANDIDATES];
  long pid_after[MAX_CANDIDATES]; /* worker pid after each candidate */
  size_t count;
  char note[OLC_ERROR_MESSAGE_SIZE];
} outcome;

static int suite_setup(void) { return olc_test_suite_tmpdir(&tmp, "isolation"); }

static int suite_teardown(void) { return olc_test_suite_rmtree(&tmp); }

/* The plugin's view of configured workload wc: pointers into wc and kv. */
static void plugin_workload(olc_plugin_workload *w, olc_plugin_kv *kv, size_t kv_cap,
                            const olc_workload_config *wc) {
  size_t i;
  size_t n = wc->property_count < kv_cap ? wc->property_count : kv_cap;
  memset(w, 0, sizeof *w);
  w->struct_size = (uint32_t)sizeof *w;
  w->abi_minor = OLC_PLUGIN_ABI_MINOR;
  w->name = wc->name;
  w->operator_name = wc->operator_name;
  for (i = 0; i < n; i++) {
    kv[i].key = wc->properties[i].name;
    kv[i].value = wc->properties[i].value;
  }
  w->properties = n > 0 ? kv : NULL;
  w->property_count = (uint32_t)n;
  w->model_digest = olc_host__config_model(wc);
}

static void open_fixture_dir(fixture *f, const char *dir, const char *tag,
                             const char *plugin_entries) {
  char text[2048];
  const olc_workload_config *wc;
  olc_error err;
  int n;
  memset(f, 0, sizeof *f);
  snprintf(f->store_path, sizeof f->store_path, "%s/profiles-%s.txt", tmp, tag);
  n = snprintf(text, sizeof text,
               "[host]\nplugin_dirs = %s\nthreads = 1\n"
               "[store]\npath = %s\n"
               "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
               "[workload.mm]\nbackend = mock_crash\noperator = MatMul\nm = 8\nn = 4\nk = 2\n"
               "[plugin.mock_crash]\n%s\n",
               dir, f->store_path, plugin_entries ? plugin_entries : "");
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  olc_test_session_open_env(&f->s, tmp, text, (size_t)n); /* OLC_WORKER is read */
  f->plugin = olc_plugins__find(olc_host__plugins(f->s.host), "mock_crash");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f->plugin);
  wc = olc_config_find_workload(f->s.config, "mm");
  CU_ASSERT_PTR_NOT_NULL_FATAL(wc);
  olc_host__isolate_plugin(&f->target, f->s.host, f->plugin);
  plugin_workload(&f->w, f->kv, 8, wc);
  OLC_ASSERT_OK(olc_plugins__candidates(&f->list, f->plugin, &f->w, &err), &err);
  CU_ASSERT_FATAL(f->list.count <= MAX_CANDIDATES);
}

static void open_fixture(fixture *f, const char *scenario, const char *plugin_entries) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/%s", OLC_CRASH_PLUGIN_ROOT, scenario);
  open_fixture_dir(f, dir, scenario, plugin_entries);
}

static void close_fixture(fixture *f) {
  olc_policy_list__free(&f->list, f->plugin);
  olc_test_session_close(&f->s);
}

/* Optional look at the live worker while the session runs. */
typedef void (*inspect_fn)(fixture *f, long pid);

/* Measures every candidate as the calibrate loop does (best so far,
 * abandon factor), recording what each one got. */
static void run_session(fixture *f, int in_process, double timeout_s, outcome *o,
                        inspect_fn inspect) {
  olc_measure_session s;
  const olc_calibration_settings *cs = olc_config_calibration(f->s.config);
  double best = -1;
  size_t i;
  memset(o, 0, sizeof *o);
  olc_calibrate__session_init(&s, &f->target, &f->w, &f->list, cs, in_process, timeout_s);
  for (i = 0; i < f->list.count; i++) {
    olc_timing_params mp;
    olc_error e;
    mp.warmup = cs->warmup;
    mp.min_repetitions = cs->min_repetitions;
    mp.min_seconds = cs->min_seconds;
    mp.abandon_factor = 1e6; /* keep every candidate to its end */
    mp.best_us = best;
    mp.deadline_ns = 0;
    mp.max_runs = 0;
    olc_error_clear(&e);
    o->st[i] = olc_calibrate__session_measure(&s, i, &mp, &o->m[i], &e);
    snprintf(o->msg[i], sizeof o->msg[i], "%s", o->st[i] != OLC_OK ? e.message : "");
    o->pid_after[i] = olc_isolate__pid(s.worker);
    if (inspect != NULL && o->pid_after[i] != 0)
      inspect(f, o->pid_after[i]);
    if (o->st[i] == OLC_OK && (best < 0 || o->m[i].median_us < best))
      best = o->m[i].median_us;
    if (o->st[i] == OLC_OK) {
      /* Every run time came back (from the worker: over the wire), in
       * order, and they give the median that came with them. */
      const double *v = o->m[i].values;
      size_t n = o->m[i].samples, k, lower = 0, upper = 0;
      CU_ASSERT_FATAL(n > 0 && v != NULL);
      for (k = 0; k < n; k++) {
        CU_ASSERT(v[k] > 0);
        lower += v[k] <= o->m[i].median_us;
        upper += v[k] >= o->m[i].median_us;
      }
      CU_ASSERT(2 * lower >= n && 2 * upper >= n);
    }
    free(o->m[i].values);
    o->m[i].values = NULL;
  }
  o->count = f->list.count;
  snprintf(o->note, sizeof o->note, "%s",
           olc_calibrate__session_note(&s) ? olc_calibrate__session_note(&s) : "");
  olc_calibrate__session_end(&s);
  CU_ASSERT_PTR_NULL(s.worker);
}

static void expect(const outcome *o, size_t i, olc_status st, const char *needle) {
  if (o->st[i] != st || (needle != NULL && strstr(o->msg[i], needle) == NULL))
    fprintf(stderr, "\n  candidate %lu: %s \"%s\" (expected %s \"%s\")\n", (unsigned long)i,
            olc_status_name(o->st[i]), o->msg[i], olc_status_name(st), needle ? needle : "");
  CU_ASSERT_EQUAL(o->st[i], st);
  if (needle != NULL)
    CU_ASSERT_PTR_NOT_NULL(strstr(o->msg[i], needle));
}

/* Every way run() can take the worker down, one candidate each, between
 * two good ones; the loop goes on and the good ones are measured. */
static void test_crash_kinds(void) {
  fixture f;
  outcome o;
  size_t i;
  open_fixture(&f, "crash",
               "candidates = 300,101,102,103,104,105,106,200\n"
               "segv = 101\nabort = 102\nhang = 103\nbusy = 104\nexit = 105\nfail = 106\n");
  CU_ASSERT_EQUAL_FATAL(f.list.count, 8);
  run_session(&f, 0, 1.0, &o, NULL);
  CU_ASSERT_STRING_EQUAL(o.note, "");
  expect(&o, 0, OLC_OK, NULL);
  expect(&o, 1, OLC_E_CRASHED, "crashed (SIGSEGV)");
  expect(&o, 2, OLC_E_CRASHED, "aborted (SIGABRT)");
  expect(&o, 3, OLC_E_TIMEOUT, "a run took longer than 1 s");
  expect(&o, 4, OLC_E_TIMEOUT, "a run took longer than 1 s");
  expect(&o, 5, OLC_E_CRASHED, "exited with status 3");
  expect(&o, 6, OLC_E_PLUGIN, "run failed on purpose");
  expect(&o, 7, OLC_OK, NULL);
  /* Good candidates are measured in full, at their cost. */
  CU_ASSERT(o.m[0].samples >= 3 && o.m[0].median_us >= 300.0);
  CU_ASSERT(o.m[7].samples >= 3 && o.m[7].median_us >= 200.0);
  for (i = 1; i <= 5; i++) {
    CU_ASSERT_EQUAL(o.m[i].samples, 0);
    CU_ASSERT_EQUAL(o.pid_after[i], 0); /* that worker is gone */
  }
  /* A plugin error is not a crash: the same worker measures the next one. */
  CU_ASSERT(o.pid_after[6] != 0 && o.pid_after[6] == o.pid_after[7]);
  CU_ASSERT(o.pid_after[0] != 0 && o.pid_after[0] != o.pid_after[6]);
  for (i = 0; i < o.count; i++)
    printf("\n  candidate %lu: %s %s", (unsigned long)i, olc_status_name(o.st[i]), o.msg[i]);
  close_fixture(&f);
}

/* The timeout limits one run, not a measurement: 4 runs of 0.2 s pass a
 * 0.5 s timeout (the worker reports each finished run), one run of 0.7 s
 * does not. */
static void test_timeout_per_run(void) {
  fixture f;
  outcome o;
  open_fixture(&f, "crash", "candidates = 200000,700000\n");
  run_session(&f, 0, 0.5, &o, NULL);
  expect(&o, 0, OLC_OK, NULL);
  CU_ASSERT_EQUAL(o.m[0].samples, 3);
  CU_ASSERT(o.m[0].median_us >= 200000.0);
  expect(&o, 1, OLC_E_TIMEOUT, "a run took longer than 0.5 s");
  close_fixture(&f);
}

/* The same plugin, no misbehaviour, in this process: nothing started. */
static void test_in_process(void) {
  fixture f;
  outcome o;
  size_t i;
  open_fixture(&f, "crash", "candidates = 300,100,200\n");
  run_session(&f, 1, 1.0, &o, NULL);
  CU_ASSERT_STRING_EQUAL(o.note, "");
  for (i = 0; i < 3; i++) {
    expect(&o, i, OLC_OK, NULL);
    CU_ASSERT_EQUAL(o.pid_after[i], 0);
  }
  CU_ASSERT(o.m[1].median_us >= 100.0 && o.m[1].median_us < o.m[0].median_us);
  close_fixture(&f);
}

static int inspected;

/* The worker knows nothing of the store: not in argv, not in the
 * environment, no descriptor on it or its directory. */
static void inspect_worker(fixture *f, long pid) {
  static char buf[1 << 16];
  char path[64], target[1024];
  size_t n;
  DIR *d;
  struct dirent *de;
  n = olc_test_proc_read(pid, "cmdline", buf, sizeof buf);
  CU_ASSERT(n > 0);
  CU_ASSERT(olc_test_contains(buf, n, "olc-worker"));
  CU_ASSERT(!olc_test_contains(buf, n, f->store_path));
  CU_ASSERT(!olc_test_contains(buf, n, tmp));
  n = olc_test_proc_read(pid, "environ", buf, sizeof buf);
  CU_ASSERT(!olc_test_contains(buf, n, f->store_path));
  CU_ASSERT(!olc_test_contains(buf, n, "OLC_"));
  snprintf(path, sizeof path, "/proc/%ld/fd", pid);
  d = opendir(path);
  CU_ASSERT_PTR_NOT_NULL_FATAL(d);
  while ((de = readdir(d)) != NULL) {
    char link[512];
    ssize_t len;
    if (de->d_name[0] == '.')
      continue;
    snprintf(link, sizeof link, "%s/%.255s", path, de->d_name);
    len = readlink(link, target, sizeof target - 1);
    if (len < 0)
      continue;
    target[len] = 0;
    if (strstr(target, tmp) != NULL)
      fprintf(stderr, "\n  worker fd %s -> %s\n", de->d_name, target);
    CU_ASSERT_PTR_NULL(strstr(target, tmp));
    /* 0-2 inherited, 3 the socket; nothing else of the host's. */
    CU_ASSERT(atoi(de->d_name) <= 3 || strstr(target, "mock_crash") != NULL);
  }
  closedir(d);
  inspected++;
}

static size_t count_log_lines(const olc_host *host, const char *text) {
  const olc_plugin_set *set = olc_host__plugins(host);
  size_t i, n = 0;
  for (i = 0; i < olc_plugins__log_count(set); i++) {
    char line[256];
    if (olc_plugins__log_line(set, i, line, sizeof line) >= 0 && strcmp(line, text) == 0)
      n++;
  }
  return n;
}

static void test_isolated_good(void) {
  fixture f;
  outcome o;
  size_t i;
  long pid;
  setenv("OLC_TEST_MARKER", "visible to the worker? no", 1);
  open_fixture(&f, "crash", "candidates = 300,100,200\nlog = 100\n");
  inspected = 0;
  run_session(&f, 0, 5.0, &o, inspect_worker);
  unsetenv("OLC_TEST_MARKER");
  CU_ASSERT_STRING_EQUAL(o.note, "");
  CU_ASSERT(inspected >= 1);
  for (i = 0; i < 3; i++)
    expect(&o, i, OLC_OK, NULL);
  CU_ASSERT(o.m[1].median_us >= 100.0 && o.m[1].median_us < o.m[0].median_us);
  /* One worker for all three, and it is gone after the session. */
  pid = o.pid_after[0];
  CU_ASSERT(pid != 0 && o.pid_after[1] == pid && o.pid_after[2] == pid);
  CU_ASSERT(pid != 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH);
  /* What the plugin logged in the worker reached this host's log. */
  CU_ASSERT(count_log_lines(f.s.host, "mock_crash: run spin_us=100") > 0);
  CU_ASSERT_EQUAL(count_log_lines(f.s.host, "mock_crash: run spin_us=300"), 0);
  close_fixture(&f);
}

/* A candidate's first measurement in a worker process gets the warm-up
 * runs of [calibration] warmup even when the caller asked for none (the
 * race's turns), and so does its first one in a new worker after a crash;
 * measurements in between do not. */
static void test_warm_up_per_worker(void) {
  fixture f;
  olc_measure_session s;
  const olc_calibration_settings *cs;
  static const char line[] = "mock_crash: run spin_us=100";
  static const size_t order[] = {1, 1, 0, 1};
  static const size_t runs_after[] = {3, 5, 5, 8}; /* warm-up 1 + 2 timed, 2, crash, 1 + 2 */
  size_t step;
  open_fixture(&f, "crash", "candidates = 300,100\nsegv = 300\nlog = 100\n");
  cs = olc_config_calibration(f.s.config);
  CU_ASSERT_EQUAL_FATAL(cs->warmup, 1u);
  olc_calibrate__session_init(&s, &f.target, &f.w, &f.list, cs, 0, 5.0);
  for (step = 0; step < 4; step++) {
    olc_timing_params mp = {0, 2, 0.0, 1e6, -1.0, 0, 0, 0};
    olc_timing_result m;
    olc_error e;
    olc_status st;
    olc_error_clear(&e);
    st = olc_calibrate__session_measure(&s, order[step], &mp, &m, &e);
    CU_ASSERT_EQUAL(st, order[step] == 0 ? OLC_E_CRASHED : OLC_OK);
    if (st == OLC_OK)
      CU_ASSERT_EQUAL(m.samples, 2u);
    olc_timing_result__free(&m);
    CU_ASSERT_EQUAL(count_log_lines(f.s.host, line), runs_after[step]);
  }
  olc_calibrate__session_end(&s);
  close_fixture(&f);
}

/* No worker executable: measured here after all, and the note says why. */
static void test_worker_not_found(void) {
  fixture f;
  outcome o;
  size_t i;
  char missing[1100];
  snprintf(missing, sizeof missing, "%s/no-such-olc-worker", tmp);
  setenv("OLC_WORKER", missing, 1);
  open_fixture(&f, "crash", "candidates = 300,100,200\n");
  run_session(&f, 0, 1.0, &o, NULL);
  unsetenv("OLC_WORKER");
  for (i = 0; i < 3; i++) {
    expect(&o, i, OLC_OK, NULL);
    CU_ASSERT_EQUAL(o.pid_after[i], 0);
  }
  CU_ASSERT_PTR_NOT_NULL(strstr(o.note, "in-process"));
  CU_ASSERT_PTR_NOT_NULL(strstr(o.note, "OLC_WORKER"));
  close_fixture(&f);
}

/* OLC_WORKER names the worker explicitly (an install elsewhere). */
static void test_worker_from_env(void) {
  fixture f;
  outcome o;
  setenv("OLC_WORKER", OLC_TEST_WORKER, 1);
  open_fixture(&f, "segv", NULL); /* 400, 101 (segfaults), 200 built in */
  run_session(&f, 0, 5.0, &o, NULL);
  unsetenv("OLC_WORKER");
  CU_ASSERT_STRING_EQUAL(o.note, "");
  expect(&o, 0, OLC_OK, NULL);
  expect(&o, 1, OLC_E_CRASHED, "SIGSEGV");
  expect(&o, 2, OLC_OK, NULL);
  close_fixture(&f);
}

/* A worker that cannot load the plugin (its file was removed after the
 * host loaded it) is not used: measured in-process, with a note. */
static void test_worker_cannot_load(void) {
  fixture f;
  outcome o;
  char *dir = olc_test_path(tmp, "copy");
  char *src = olc_test_path(OLC_CRASH_PLUGIN_ROOT "/crash", "mock_crash.so");
  char *dst = olc_test_path(dir, "mock_crash.so");
  unsigned char *bytes;
  size_t len = 0;
  size_t i;
  CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0700), 0);
  bytes = olc_test_read_file(src, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(bytes);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(dst, bytes, len), 0);
  free(bytes);
  open_fixture_dir(&f, dir, "copy", "candidates = 300,100,200\n");
  CU_ASSERT_EQUAL(unlink(dst), 0);
  run_session(&f, 0, 5.0, &o, NULL);
  for (i = 0; i < 3; i++) {
    expect(&o, i, OLC_OK, NULL);
    CU_ASSERT_EQUAL(o.pid_after[i], 0);
  }
  if (strstr(o.note, "worker setup") == NULL)
    fprintf(stderr, "\n  note: %s\n", o.note);
  CU_ASSERT_PTR_NOT_NULL(strstr(o.note, "in-process"));
  CU_ASSERT_PTR_NOT_NULL(strstr(o.note, "worker setup"));
  printf("\n  note: %s\n", o.note);
  close_fixture(&f);
  free(dir);
  free(src);
  free(dst);
}

/* The worker refuses another protocol version (the host then measures
 * in-process) and ends on a frame it does not expect. */
static void test_protocol(void) {
  olc_isolate_worker *w = NULL;
  olc_wire_writer req;
  olc_wire_reader r;
  olc_buf answer = OLC_BUF_INIT;
  uint32_t type = 0;
  olc_error e;
  const char *msg;
  const olc_timing_params params = {0, 1, 0.0, 1.5, -1.0, 0, 0, 0};
  OLC_ASSERT_OK(olc_isolate__spawn(&w, OLC_TEST_WORKER, &e), &e);
  olc_wire__begin(&req, OLC_WIRE_SETUP);
  olc_wire__put_u32(&req, OLC_WIRE_VERSION + 1u);
  OLC_ASSERT_OK(olc_wire__finish(&req), NULL);
  OLC_ASSERT_OK(olc_isolate__call(w, &req, 5.0, &type, &answer, &e), &e);
  olc_wire__writer_free(&req);
  CU_ASSERT_EQUAL(type, OLC_WIRE_READY);
  olc_wire__reader(&r, answer.data, answer.len);
  CU_ASSERT_EQUAL((int32_t)olc_wire__get_u32(&r), OLC_E_VERSION);
  msg = olc_wire__get_str(&r);
  CU_ASSERT(msg != NULL && strstr(msg, "protocol version") != NULL);
  CU_ASSERT(olc_wire__done(&r));
  CU_ASSERT(olc_isolate__alive(w));
  /* A MEASURE after a failed setup gets that failure back. */
  olc_wire__begin(&req, OLC_WIRE_MEASURE);
  olc_wire__put_u64(&req, 5);
  olc_wire__put_bytes(&req, "spin_us=1", 9);
  olc_wire__put_params(&req, &params);
  olc_wire__put_u64(&req, 0);
  OLC_ASSERT_OK(olc_wire__finish(&req), NULL);
  OLC_ASSERT_OK(olc_isolate__call(w, &req, 5.0, &type, &answer, &e), &e);
  olc_wire__writer_free(&req);
  CU_ASSERT_EQUAL(type, OLC_WIRE_RESULT);
  olc_wire__reader(&r, answer.data, answer.len);
  CU_ASSERT(olc_wire__get_u64(&r) == 5u);
  CU_ASSERT_EQUAL((int32_t)olc_wire__get_u32(&r), OLC_E_VERSION);
  msg = olc_wire__get_str(&r);
  CU_ASSERT(msg != NULL && strstr(msg, "protocol version") != NULL);
  (void)olc_wire__get_f64(&r);
  (void)olc_wire__get_f64(&r);
  CU_ASSERT_EQUAL(olc_wire__get_u32(&r), 0); /* samples */
  (void)olc_wire__get_u32(&r);
  CU_ASSERT_EQUAL(olc_wire__get_f64(&r), 0.0); /* timed */
  CU_ASSERT_EQUAL(olc_wire__get_u32(&r), 0);   /* log lines */
  CU_ASSERT_EQUAL(olc_wire__get_u32(&r), 0);   /* not checked numerically */
  CU_ASSERT(olc_wire__done(&r));
  olc_wire__begin(&req, 77u); /* no such frame */
  OLC_ASSERT_OK(olc_wire__finish(&req), NULL);
  CU_ASSERT_EQUAL(olc_isolate__call(w, &req, 5.0, &type, &answer, &e), OLC_E_CRASHED);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "exited with status 2"));
  CU_ASSERT(!olc_isolate__alive(w));
  CU_ASSERT_EQUAL(olc_isolate__pid(w), 0);
  /* Calls on a gone worker fail at once. */
  CU_ASSERT_EQUAL(olc_isolate__call(w, &req, 5.0, &type, &answer, &e), OLC_E_CRASHED);
  olc_wire__writer_free(&req);
  olc_isolate__stop(w);
  olc_buf__free(&answer);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  olc_test_keep_segv_a_signal();
  unsetenv("OLC_WORKER");
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("isolation", suite_setup, suite_teardown);
  CU_add_test(s, "segv, abort, hang, busy, exit, fail", test_crash_kinds);
  CU_add_test(s, "timeout per run, not per measurement", test_timeout_per_run);
  CU_add_test(s, "in-process mode", test_in_process);
  CU_add_test(s, "isolated: worker has no store", test_isolated_good);
  CU_add_test(s, "warm-up again in a new worker", test_warm_up_per_worker);
  CU_add_test(s, "worker not found: in-process fallback", test_worker_not_found);
  CU_add_test(s, "worker from OLC_WORKER", test_worker_from_env);
  CU_add_test(s, "worker cannot load the plugin: fallback", test_worker_cannot_load);
  CU_add_test(s, "protocol version and stray frames", test_protocol);
  return olc_test_run(argc, argv);
}
