/*
 * tests/store/test_store_watch.c - change detection of the store through the
 * generation counter of P.lock (persist.h): a reader in another process
 * makes one file-system call per lookup (the pread of the counter, no
 * stat) across 1000 lookups while nothing is saved, and sees a save at its
 * next lookup; a writer killed between the
 * two bumps leaves readers comparing identities (correct, one stat per
 * lookup) until the next write; check_for_changes off maps nothing; many
 * threads of one handle see another process's save.
 */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "persist/persist.h"
#include "store/store_int.h"
#include "test_store_setup.h"
#include "test_store_util.h"

static char *dir;
static char *path;

static int setup(void) {
  olc_persist__set_hooks(NULL);
  return olc_test_store_dir("storewatch", "calibration_profiles.txt", &dir, &path);
}

static int teardown(void) {
  olc_persist__set_hooks(NULL);
  olc_test_store_dir_free(&dir, &path);
  return 0;
}

static void fresh(void) { olc_test_store_remove(path); }

/* No periodic recheck while a test counts calls (it would be one stat
 * every 100 ms; a slow sanitizer run could cross it). */
static void long_recheck(void) {
  olc_persist_hooks h;
  memset(&h, 0, sizeof h);
  h.watch_recheck_ms = 600000;
  olc_persist__set_hooks(&h);
}

/* The policy the handle selects for key, "" when none. */
static int has_policy(olc_store *s, const olc_key *k, const char *policy) {
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  olc_error e;
  int ok;
  o.key = k;
  (void)olc_store_lookup(&res, s, &o, &e);
  ok = res != NULL && strcmp(tsu_selected_policy(res), policy) == 0;
  olc_lookup_result_free(res);
  return ok;
}

static void save(const char *impl, const char *policy) {
  olc_key k = tsu_key(impl, "model-a", "cpu-x", 8);
  olc_store *w = tsu_open_file(path, 1);
  olc_error e;
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  OLC_ASSERT_OK(tsu_put(w, &k, policy, OLC_LEVELS_DEFAULT, 0, &e), &e);
  olc_store_free(w);
}

/* The reader child: exit 0 when every step held, else the failed step. */
static int reader_child(int ready_fd, int go_fd) {
  olc_key k1 = tsu_key("1", "model-a", "cpu-x", 8);
  olc_key k2 = tsu_key("2", "model-a", "cpu-x", 8);
  olc_store *r = tsu_open_file(path, 1);
  uint64_t c0;
  int i;
  char b = 0;
  if (r == NULL)
    return 10;
  if (!has_policy(r, &k1, "p1") || has_policy(r, &k2, "p2"))
    return 11;
  c0 = olc_persist__call_count();
  for (i = 0; i < 1000; i++)
    if (!has_policy(r, &k1, "p1"))
      return 12;
  if (olc_persist__call_count() != c0 + 1000)
    return 13; /* a quiet lookup made more than the counter's pread */
  if (write(ready_fd, "r", 1) != 1 || read(go_fd, &b, 1) != 1)
    return 14;
  /* The parent saved k2: the very next lookup sees it. */
  if (!has_policy(r, &k2, "p2"))
    return 15;
  if (olc_persist__call_count() == c0)
    return 16; /* seen without looking at the file? */
  c0 = olc_persist__call_count();
  for (i = 0; i < 1000; i++)
    if (!has_policy(r, &k2, "p2") || !has_policy(r, &k1, "p1"))
      return 17;
  if (olc_persist__call_count() != c0 + 2000)
    return 18; /* quiet again after the reload: one pread per lookup */
  olc_store_free(r);
  return 0;
}

static void test_other_process_no_syscall(void) {
  int ready[2], go[2], status = -1;
  char b = 0;
  pid_t pid;
  signal(SIGPIPE, SIG_IGN); /* a child that failed early closed its end */
  fresh();
  long_recheck();
  save("1", "p1");
  CU_ASSERT_EQUAL_FATAL(pipe(ready), 0);
  CU_ASSERT_EQUAL_FATAL(pipe(go), 0);
  pid = fork();
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    close(ready[0]);
    close(go[1]);
    _exit(reader_child(ready[1], go[0]));
  }
  /* Only the child holds these ends: a child that fails early closes them
   * and the read below sees end-of-file instead of blocking. */
  close(ready[1]);
  close(go[0]);
  if (read(ready[0], &b, 1) == 1)
    save("2", "p2");
  (void)!write(go[1], "g", 1); /* EPIPE when the child failed early */
  CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fprintf(stderr, "\n  reader child: status 0x%x (exit %d)\n", status, WEXITSTATUS(status));
  CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  close(ready[0]);
  close(go[1]);
  olc_persist__set_hooks(NULL);
}

static void test_killed_writer_leaves_stat_fallback(void) {
  olc_key k1 = tsu_key("1", "model-a", "cpu-x", 8);
  olc_key k2 = tsu_key("2", "model-a", "cpu-x", 8);
  olc_key k3 = tsu_key("3", "model-a", "cpu-x", 8);
  olc_store *r;
  olc_persist_hooks h;
  uint64_t c0;
  int status = -1, i, ok = 1;
  pid_t pid;
  fresh();
  long_recheck();
  save("1", "p1");
  r = tsu_open_file(path, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  CU_ASSERT(has_policy(r, &k1, "p1"));
  /* A writer killed right after its rename: P is new, the counter odd. */
  pid = fork();
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    memset(&h, 0, sizeof h);
    h.crash_step = OLC_STEP_RENAME;
    olc_persist__set_hooks(&h);
    save("2", "p2");
    _exit(3);
  }
  CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
  CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  CU_ASSERT_EQUAL(olc_persist__watch_gen(&r->watch) & 1u, 1u);
  /* The reader still sees the change, by the file's identity... */
  CU_ASSERT(has_policy(r, &k2, "p2"));
  /* ...and keeps comparing identities (one stat per lookup) meanwhile. */
  c0 = olc_persist__call_count();
  for (i = 0; i < 10; i++)
    ok &= has_policy(r, &k1, "p1");
  CU_ASSERT(ok);
  CU_ASSERT(olc_persist__call_count() >= c0 + 10);
  /* The next writer makes it even again; lookups are quiet again. */
  save("3", "p3");
  CU_ASSERT(has_policy(r, &k3, "p3"));
  CU_ASSERT_EQUAL(olc_persist__watch_gen(&r->watch) & 1u, 0u);
  c0 = olc_persist__call_count();
  for (i = 0; i < 100; i++)
    ok &= has_policy(r, &k2, "p2");
  CU_ASSERT(ok);
  CU_ASSERT_EQUAL(olc_persist__call_count(), c0 + 100); /* the counter's pread only */
  olc_store_free(r);
  olc_persist__set_hooks(NULL);
}

static void test_own_save_then_quiet(void) {
  olc_key k1 = tsu_key("1", "model-a", "cpu-x", 8);
  olc_store *s;
  olc_error e;
  uint64_t c0;
  int i, ok = 1;
  fresh();
  long_recheck();
  s = tsu_open_file(path, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  /* No file and no P.lock yet: every lookup compares identities. */
  c0 = olc_persist__call_count();
  CU_ASSERT(!has_policy(s, &k1, "p1"));
  CU_ASSERT(olc_persist__call_count() > c0);
  OLC_ASSERT_OK(tsu_put(s, &k1, "p1", OLC_LEVELS_DEFAULT, 0, &e), &e);
  /* The handle's own save: one identity check settles it... */
  CU_ASSERT(has_policy(s, &k1, "p1"));
  CU_ASSERT(has_policy(s, &k1, "p1"));
  /* ...then lookups are quiet.  (P.lock appeared after open: mapping it is
   * due at the recheck, so reopen to test the mapped path.) */
  olc_store_free(s);
  s = tsu_open_file(path, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  OLC_ASSERT_OK(tsu_put(s, &k1, "p1b", OLC_LEVELS_DEFAULT, 0, &e), &e);
  CU_ASSERT(has_policy(s, &k1, "p1b"));
  c0 = olc_persist__call_count();
  for (i = 0; i < 100; i++)
    ok &= has_policy(s, &k1, "p1b");
  CU_ASSERT(ok);
  CU_ASSERT_EQUAL(olc_persist__call_count(), c0 + 100); /* the counter's pread only */
  olc_store_free(s);
  olc_persist__set_hooks(NULL);
}

static void test_check_off_maps_nothing(void) {
  olc_key k1 = tsu_key("1", "model-a", "cpu-x", 8);
  olc_store *s;
  uint64_t c0;
  fresh();
  save("1", "p1");
  s = tsu_open_file(path, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_PTR_NULL(s->watch.lock_path);
  CU_ASSERT_PTR_NULL(s->watch.cur);
  c0 = olc_persist__call_count();
  CU_ASSERT(has_policy(s, &k1, "p1"));
  CU_ASSERT_EQUAL(olc_persist__call_count(), c0);
  olc_store_free(s);
}

typedef struct spin_arg {
  olc_store *s;
  volatile int *stop;
  int saw_p2;
} spin_arg;

static void *spin(void *p) {
  spin_arg *a = p;
  olc_key k2 = tsu_key("2", "model-a", "cpu-x", 8);
  int i;
  for (i = 0; i < 200000 && !*a->stop; i++) {
    if (has_policy(a->s, &k2, "p2")) {
      a->saw_p2 = 1;
      break;
    }
  }
  return NULL;
}

static void test_threads_see_other_process(void) {
  olc_store *r;
  pthread_t t[4];
  spin_arg a[4];
  volatile int stop = 0;
  int i, status = -1, go[2];
  char b = 0;
  pid_t pid;
  fresh();
  save("1", "p1");
  CU_ASSERT_EQUAL_FATAL(pipe(go), 0);
  /* The writer process is forked before any thread starts (a fork among
   * running threads could inherit a lock held by one of them). */
  pid = fork();
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    close(go[1]);
    if (read(go[0], &b, 1) == 1)
      save("2", "p2");
    _exit(0);
  }
  close(go[0]);
  r = tsu_open_file(path, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  for (i = 0; i < 4; i++) {
    a[i].s = r;
    a[i].stop = &stop;
    a[i].saw_p2 = 0;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, spin, &a[i]), 0);
  }
  CU_ASSERT_EQUAL(write(go[1], "g", 1), 1);
  close(go[1]);
  CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
  for (i = 0; i < 4; i++) {
    pthread_join(t[i], NULL);
    CU_ASSERT(a[i].saw_p2);
  }
  olc_store_free(r);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("store_watch", setup, teardown);
  CU_add_test(s, "another process: 1000 quiet lookups, one pread each; then sees a save",
              test_other_process_no_syscall);
  CU_add_test(s, "a writer killed between the bumps: identities until the next write",
              test_killed_writer_leaves_stat_fallback);
  CU_add_test(s, "the handle's own save, then quiet lookups", test_own_save_then_quiet);
  CU_add_test(s, "check_for_changes off maps nothing, calls nothing", test_check_off_maps_nothing);
  CU_add_test(s, "4 threads of one handle see another process's save",
              test_threads_see_other_process);
  return olc_test_run(argc, argv);
}
