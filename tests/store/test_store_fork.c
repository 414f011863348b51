/*
 * tests/store/test_store_fork.c - fork() after olc_store_open (issue
 * 12 item 9; store.h "fork()"), public API only:
 *
 * - after: a process forks after opening a store; parent and child write
 *   through their copies of the handle at the same time; both records and
 *   the one before the fork are in the file.
 * - busy: another thread is inside a write (holding the store's lock, in a
 *   remove_if predicate) when the main thread forks.  fork() waits for that
 *   write, so the child inherits neither the held lock nor a locked mutex:
 *   the child's write and the parent's next write both succeed at once.
 *   Before, the child hung on the handle's mutex and the parent's write
 *   timed out on the lock the child's copy of the descriptor kept.
 * - inside: the writing thread itself forks from the predicate (and the
 *   child execs nothing, just exits): no deadlock, the write completes.
 * - host: in the child of a process that opened a host, a calibration
 *   reaches no plugin (OLC_E_UNSUPPORTED, "fork()" in the message) and
 *   olc_host_free returns; the parent calibrates as before.
 * - entries (issue 37 item 5): in such a child every other entry that
 *   would reach a plugin says the same, a warm select and execute included
 *   (before, they answered from the parent's cache and called the parent's
 *   instance, whose threads are not in the child), a cold on_miss select
 *   measures nothing, and prune removes nothing (before, the child's
 *   validator rejected every record and prune removed them all).
 */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "olc/host.h"
#include "olc/store.h"
#include "test_store_setup.h"
#include "test_support.h"

static char *tmp;
static char *path;

static int setup(void) { return olc_test_store_dir("store-fork", "p.txt", &tmp, &path); }

static int teardown(void) {
  olc_test_store_dir_free(&tmp, &path);
  return 0;
}

static olc_store *open_store(void) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_error err;
  o.path = path;
  o.lock_timeout_ms = 3000;
  OLC_ASSERT_OK(olc_store_open(&s, &o, &err), &err);
  return s;
}

static olc_status save(olc_store *s, const char *backend) {
  olc_key key = olc_test_matmul_key(backend, "d");
  olc_save_request req = olc_test_bit_exact_request(&key, "p", 1, NULL, 0);
  olc_error err;
  olc_status st = olc_store_save(s, &req, &err);
  if (st != OLC_OK)
    fprintf(stderr, "\n  save %s in %ld: %s: %s", backend, (long)getpid(), olc_status_str(st),
            err.message);
  return st;
}

/* 1 when the file holds a record of each backend. */
static int file_has(const char *const *backends, size_t n) {
  olc_store *s = open_store();
  olc_record_list *list = NULL;
  olc_error err;
  size_t i, j, found = 0;
  OLC_ASSERT_OK(olc_store_list(&list, s, &err), &err);
  for (i = 0; i < n; i++)
    for (j = 0; j < olc_record_list_count(list); j++)
      if (strcmp(olc_record_list_get(list, j)->backend, backends[i]) == 0) {
        found++;
        break;
      }
  olc_record_list_free(list);
  olc_store_free(s);
  return found == n;
}

/* Waits for pid; 0 when it exited 0, else prints how it ended. */
static int child_ok(pid_t pid, const char *what) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid)
    return 0;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return 1;
  if (WIFSIGNALED(status))
    printf("\n  %s child killed by signal %d%s", what, WTERMSIG(status),
           WTERMSIG(status) == SIGALRM ? " (hung)" : "");
  else
    printf("\n  %s child exit %d", what, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}

static void test_fork_after_open(void) {
  static const char *const all[] = {"before", "parent", "child"};
  olc_store *s;
  pid_t pid;
  unlink(path);
  s = open_store();
  CU_ASSERT_EQUAL_FATAL(save(s, "before"), OLC_OK);
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    alarm(20);
    _exit(save(s, "child") == OLC_OK ? 0 : 1);
  }
  CU_ASSERT_EQUAL(save(s, "parent"), OLC_OK);
  CU_ASSERT(child_ok(pid, "after-open"));
  olc_store_free(s);
  CU_ASSERT(file_has(all, 3));
}

/* ------------------------------------------------------------- busy */

typedef struct busy {
  olc_store *s;
  int in[2]; /* the predicate says it is running, lock held */
  olc_status st;
  int fork_inside; /* the predicate forks itself */
  pid_t inner;
} busy;

static int slow_predicate(const olc_record *r, void *payload) {
  busy *b = payload;
  struct timespec ts = {0, 300000000};
  (void)r;
  if (b->in[1] >= 0) {
    (void)!write(b->in[1], "i", 1);
    close(b->in[1]);
    b->in[1] = -1;
    if (b->fork_inside) {
      fflush(NULL);
      b->inner = fork();
      if (b->inner == 0)
        _exit(0);
    }
    nanosleep(&ts, NULL); /* the main thread forks meanwhile */
  }
  return 0;
}

static void *writer_thread(void *arg) {
  busy *b = arg;
  olc_error err;
  size_t removed = 0;
  b->st = olc_store_remove_if(b->s, slow_predicate, b, &removed, &err);
  return NULL;
}

static void test_fork_while_writing(void) {
  static const char *const all[] = {"before", "parent", "child"};
  busy b;
  pthread_t t;
  char c;
  pid_t pid;
  unlink(path);
  memset(&b, 0, sizeof b);
  b.s = open_store();
  CU_ASSERT_EQUAL_FATAL(save(b.s, "before"), OLC_OK);
  CU_ASSERT_EQUAL_FATAL(pipe(b.in), 0);
  CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, writer_thread, &b), 0);
  CU_ASSERT_EQUAL(read(b.in[0], &c, 1), 1); /* the thread holds the lock now */
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    alarm(10); /* a hang is a failure, not a stuck test */
    _exit(save(b.s, "child") == OLC_OK ? 0 : 1);
  }
  CU_ASSERT_EQUAL(pthread_join(t, NULL), 0);
  CU_ASSERT_EQUAL(b.st, OLC_OK);
  CU_ASSERT_EQUAL(save(b.s, "parent"), OLC_OK);
  CU_ASSERT(child_ok(pid, "busy"));
  close(b.in[0]);
  olc_store_free(b.s);
  CU_ASSERT(file_has(all, 3));
}

static void test_fork_from_the_writer(void) {
  static const char *const all[] = {"before", "after"};
  busy b;
  pthread_t t;
  char c;
  unlink(path);
  memset(&b, 0, sizeof b);
  b.s = open_store();
  b.fork_inside = 1;
  CU_ASSERT_EQUAL_FATAL(save(b.s, "before"), OLC_OK);
  CU_ASSERT_EQUAL_FATAL(pipe(b.in), 0);
  alarm(20); /* a deadlock in the fork handlers fails the test */
  CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, writer_thread, &b), 0);
  CU_ASSERT_EQUAL(read(b.in[0], &c, 1), 1);
  CU_ASSERT_EQUAL(pthread_join(t, NULL), 0);
  alarm(0);
  CU_ASSERT_EQUAL(b.st, OLC_OK);
  CU_ASSERT(b.inner > 0 && child_ok(b.inner, "inside"));
  CU_ASSERT_EQUAL(save(b.s, "after"), OLC_OK);
  close(b.in[0]);
  olc_store_free(b.s);
  CU_ASSERT(file_has(all, 2));
}

/* ------------------------------------------------------------- host */

/* The child of a process that opened a host: a call that reaches a plugin
 * fails with OLC_E_UNSUPPORTED and says why; freeing it does not hang; the
 * parent calibrates as before. */
static void test_host_after_fork(void) {
  char ini[8192];
  olc_test_session sess;
  olc_calibrate_options co = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal = NULL;
  olc_error err;
  pid_t pid;
  int n = snprintf(ini, sizeof ini,
                   "[host]\nplugin_dirs = %s/good\nthreads = 1\n[store]\npath = %s\n"
                   "[calibration]\nwarmup = 0\nmin_repetitions = 2\nmin_seconds = 0\n"
                   "max_seconds_per_workload = 1\n[plugin.mock_det]\ncandidates = 20,10\n"
                   "[workload.w]\nbackend = mock_det\noperator = MatMul\nm = 8\n",
                   OLC_MOCK_PLUGIN_ROOT, path);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof ini);
  unlink(path);
  co.in_process = 1;
  olc_test_session_open(&sess, tmp, ini, (size_t)n);
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    const olc_workload_result *r;
    int ok;
    alarm(20);
    ok =
        olc_host_calibrate(&cal, sess.host, &co, &err) == OLC_OK && olc_calibration_count(cal) == 1;
    r = ok ? olc_calibration_get(cal, 0) : NULL;
    ok = ok && r->status == OLC_E_UNSUPPORTED && r->message != NULL &&
         strstr(r->message, "fork()") != NULL;
    printf("\n  child: %s", r != NULL && r->message != NULL ? r->message : "(no message)");
    fflush(stdout);
    olc_calibration_free(cal);
    olc_test_session_close(&sess); /* must not hang on the plugin's threads */
    _exit(ok ? 0 : 1);
  }
  CU_ASSERT(child_ok(pid, "host"));
  OLC_ASSERT_OK(olc_host_calibrate(&cal, sess.host, &co, &err), &err);
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 0)->status, OLC_OK);
  olc_calibration_free(cal);
  olc_test_session_close(&sess);
}

/* 1 when st is OLC_E_UNSUPPORTED and err says fork(); else prints what. */
static int refused(const char *what, olc_status st, const olc_error *err) {
  if (st == OLC_E_UNSUPPORTED && strstr(err->message, "fork()") != NULL)
    return 1;
  printf("\n  child: %s gave %s: %s", what, olc_status_str(st),
         st != OLC_OK ? err->message : "(no message)");
  fflush(stdout);
  return 0;
}

static olc_workload matmul(olc_property *props, const char *m) {
  olc_workload w = OLC_WORKLOAD_INIT;
  props[0].name = "dtype";
  props[0].value = "float32";
  props[1].name = "m";
  props[1].value = m;
  props[2].name = "n";
  props[2].value = "2";
  props[3].name = "k";
  props[3].value = "2";
  w.backend = "mock_det";
  w.operator_name = "MatMul";
  w.properties = props;
  w.property_count = 4;
  return w;
}

/* The child of a process whose host selected a workload: select (warm and
 * cold), execute, explain, bind and prune all refuse. */
static void test_host_entries_after_fork(void) {
  static const char *const det[] = {"mock_det"};
  char ini[8192];
  olc_property p1[4], p2[4], p3[4];
  olc_workload warm_w = matmul(p1, "2"), cold_w = matmul(p2, "3"), new_w = matmul(p3, "4");
  olc_select_options on_miss = OLC_SELECT_OPTIONS_INIT;
  olc_test_session sess;
  olc_binding *warm_b = NULL, *cold_b = NULL;
  const olc_selection *sel = NULL;
  olc_error err;
  size_t removed = 0;
  pid_t pid;
  int n = snprintf(ini, sizeof ini,
                   "[host]\nplugin_dirs = %s/good\nthreads = 1\n[store]\npath = %s\n"
                   "[calibration]\nwarmup = 0\nmin_repetitions = 2\nmin_seconds = 0\n"
                   "max_seconds_per_workload = 1\n[plugin.mock_det]\ncandidates = 20,10\n",
                   OLC_MOCK_PLUGIN_ROOT, path);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof ini);
  unlink(path);
  on_miss.mode = OLC_SELECT_ON_MISS;
  on_miss.in_process = 1;
  olc_test_session_open(&sess, tmp, ini, (size_t)n);
  OLC_ASSERT_OK(olc_host_bind(&warm_b, sess.host, &warm_w, &err), &err);
  OLC_ASSERT_OK(olc_host_bind(&cold_b, sess.host, &cold_w, &err), &err);
  OLC_ASSERT_OK(olc_binding_select(&sel, warm_b, &on_miss, &err), &err);
  OLC_ASSERT_OK(olc_host_select(&sel, sess.host, &warm_w, &on_miss, &err), &err);
  CU_ASSERT_FATAL(sel != NULL && file_has(det, 1));
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4];
    olc_lookup_result *lr = NULL;
    const olc_selection *got = NULL;
    olc_binding *nb = NULL;
    int ok = 1;
    alarm(20);
    on_miss.in_process = 0; /* a worker would be a fresh process: still refused */
    ok &= refused("warm select", olc_binding_select(&got, warm_b, &on_miss, &err), &err);
    ok &= got == NULL;
    ok &= refused("warm described select", olc_host_select(&got, sess.host, &warm_w, NULL, &err),
                  &err);
    ok &= refused("execute", olc_selection_matmul_f32(sel, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2, &err),
                  &err);
    ok &= refused("cold select", olc_binding_select(&got, cold_b, &on_miss, &err), &err);
    ok &= refused("explain", olc_binding_explain(&lr, warm_b, 0, &err), &err);
    olc_lookup_result_free(lr);
    ok &= refused("bind", olc_host_bind(&nb, sess.host, &new_w, &err), &err);
    olc_binding_free(nb);
    ok &= refused("prune", olc_host_prune(sess.host, 0, NULL, NULL, &removed, &err), &err);
    ok &= removed == 0;
    _exit(ok ? 0 : 1); /* no atexit, no free: the parent owns the host */
  }
  CU_ASSERT(child_ok(pid, "entries"));
  CU_ASSERT(file_has(det, 1)); /* the child's prune removed nothing */
  OLC_ASSERT_OK(olc_binding_select(&sel, warm_b, NULL, &err), &err);
  {
    olc_lookup_result *lr = NULL;
    OLC_ASSERT_OK(olc_binding_explain(&lr, warm_b, 0, &err), &err);
    olc_lookup_result_free(lr);
  }
  olc_binding_free(warm_b);
  olc_binding_free(cold_b);
  olc_test_session_close(&sess);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("store_fork", setup, teardown);
  CU_add_test(s, "parent and child write after fork", test_fork_after_open);
  CU_add_test(s, "fork while another thread writes", test_fork_while_writing);
  CU_add_test(s, "fork from inside a write", test_fork_from_the_writer);
  CU_add_test(s, "a host used in a child fails clearly", test_host_after_fork);
  CU_add_test(s, "every host entry refuses in a child", test_host_entries_after_fork);
  return olc_test_run(argc, argv);
}
