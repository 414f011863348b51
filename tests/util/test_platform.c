/*
 * tests/util/test_platform.c - util/platform.h does what it promises, on
 * POSIX (ctest: test_platform) and on Windows (win_platform_smoke.exe,
 * run under wine by mingw_cross.sh): a mutex excludes, a reader/writer
 * lock shares reads and excludes writes, a condition variable wakes a
 * waiter and times out, once runs once, fork handlers run around fork(),
 * the clocks move forward, sleep sleeps, and the executable's directory
 * holds the executable while a statically linked program has no library
 * directory of its own.
 *
 * Plain C without CUnit, so that one source runs on both: prints "ok" or
 * "FAIL" per check and exits 1 on any failure.  No timing assertion but
 * lower bounds the system promises (a clock read after a sleep of ms is
 * at least ms/2 later: slack for a coarse timer, never an upper bound).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/platform.h"
#include "util/text.h"

#if defined(_WIN32)
#include <windows.h>
typedef HANDLE test_thread;
typedef DWORD(WINAPI *test_thread_fn)(void *);
#define TEST_THREAD_FN(name) static DWORD WINAPI name(void *arg)
#define TEST_THREAD_RETURN return 0
static int thread_start(test_thread *t, test_thread_fn fn, void *arg) {
  *t = CreateThread(NULL, 0, fn, arg, 0, NULL);
  return *t != NULL ? 0 : -1;
}
static void thread_join(test_thread t) {
  WaitForSingleObject(t, INFINITE);
  CloseHandle(t);
}
#else
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
typedef pthread_t test_thread;
typedef void *(*test_thread_fn)(void *);
#define TEST_THREAD_FN(name) static void *name(void *arg)
#define TEST_THREAD_RETURN return NULL
static int thread_start(test_thread *t, test_thread_fn fn, void *arg) {
  return pthread_create(t, NULL, fn, arg);
}
static void thread_join(test_thread t) { (void)pthread_join(t, NULL); }
#endif

static int failures;

#define CHECK(cond, what)                                                                          \
  do {                                                                                             \
    if (cond) {                                                                                    \
      printf("ok   %s\n", what);                                                                   \
    } else {                                                                                       \
      printf("FAIL %s (line %d)\n", what, __LINE__);                                               \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

#define THREADS 4
#define ROUNDS 20000

/* ---- mutex ---- */

static olc_util_mutex counter_mutex = OLC_UTIL_MUTEX_INIT;
static long counter;

TEST_THREAD_FN(count_under_mutex) {
  int i;
  (void)arg;
  for (i = 0; i < ROUNDS; i++) {
    olc_util__mutex_lock(&counter_mutex);
    counter++;
    olc_util__mutex_unlock(&counter_mutex);
  }
  TEST_THREAD_RETURN;
}

TEST_THREAD_FN(try_mutex) {
  *(int *)arg = olc_util__mutex_trylock(&counter_mutex);
  if (*(int *)arg)
    olc_util__mutex_unlock(&counter_mutex);
  TEST_THREAD_RETURN;
}

static void test_mutex(void) {
  test_thread t[THREADS];
  int i, started = 0, got = -1;
  olc_util_mutex m;
  counter = 0;
  for (i = 0; i < THREADS; i++)
    started += thread_start(&t[i], count_under_mutex, NULL) == 0;
  for (i = 0; i < started; i++)
    thread_join(t[i]);
  CHECK(started == THREADS && counter == (long)THREADS * ROUNDS,
        "mutex: no increment lost among threads");
  olc_util__mutex_lock(&counter_mutex);
  if (thread_start(&t[0], try_mutex, &got) == 0)
    thread_join(t[0]);
  olc_util__mutex_unlock(&counter_mutex);
  CHECK(got == 0, "mutex: trylock fails while another thread holds it");
  got = -1;
  if (thread_start(&t[0], try_mutex, &got) == 0)
    thread_join(t[0]);
  CHECK(got == 1, "mutex: trylock takes a free mutex");
  olc_util__mutex_init(&m);
  olc_util__mutex_lock(&m);
  olc_util__mutex_unlock(&m);
  olc_util__mutex_destroy(&m);
  CHECK(1, "mutex: init, lock, unlock, destroy");
}

/* ---- reader/writer lock ---- */

static olc_util_rwlock rw = OLC_UTIL_RWLOCK_INIT;
static long rw_counter;

TEST_THREAD_FN(read_while_held) {
  /* The main thread holds a read lock: a second reader gets in. */
  olc_util__rwlock_rdlock(&rw);
  *(int *)arg = 1;
  olc_util__rwlock_rdunlock(&rw);
  TEST_THREAD_RETURN;
}

TEST_THREAD_FN(count_under_wrlock) {
  int i;
  (void)arg;
  for (i = 0; i < ROUNDS; i++) {
    olc_util__rwlock_wrlock(&rw);
    rw_counter++;
    olc_util__rwlock_wrunlock(&rw);
  }
  TEST_THREAD_RETURN;
}

static void test_rwlock(void) {
  test_thread t[THREADS];
  int i, started = 0, read = 0;
  olc_util_rwlock l;
  olc_util__rwlock_rdlock(&rw);
  if (thread_start(&t[0], read_while_held, &read) == 0)
    thread_join(t[0]); /* would wait forever if reads excluded each other */
  olc_util__rwlock_rdunlock(&rw);
  CHECK(read == 1, "rwlock: two readers at once");
  rw_counter = 0;
  for (i = 0; i < THREADS; i++)
    started += thread_start(&t[i], count_under_wrlock, NULL) == 0;
  for (i = 0; i < started; i++)
    thread_join(t[i]);
  CHECK(started == THREADS && rw_counter == (long)THREADS * ROUNDS,
        "rwlock: no increment lost among writers");
  olc_util__rwlock_init(&l);
  olc_util__rwlock_wrlock(&l);
  olc_util__rwlock_wrunlock(&l);
  olc_util__rwlock_destroy(&l);
  CHECK(1, "rwlock: init, wrlock, wrunlock, destroy");
}

/* ---- condition variable ---- */

static olc_util_mutex cond_mutex = OLC_UTIL_MUTEX_INIT;
static olc_util_cond cond;
static int cond_flag;

TEST_THREAD_FN(set_flag) {
  (void)arg;
  olc_util__mutex_lock(&cond_mutex);
  cond_flag = 1;
  olc_util__cond_broadcast(&cond);
  olc_util__mutex_unlock(&cond_mutex);
  TEST_THREAD_RETURN;
}

static void test_cond(void) {
  test_thread t;
  int timed_out, started, spins = 0;
  uint64_t t0;
  olc_util__cond_init(&cond);
  olc_util__mutex_lock(&cond_mutex);
  t0 = olc_util__now_ns();
  timed_out = olc_util__cond_wait_ms(&cond, &cond_mutex, 20);
  /* A spurious wakeup may come first: loop until the time ran out. */
  while (!timed_out && spins++ < 100)
    timed_out = olc_util__cond_wait_ms(&cond, &cond_mutex, 20);
  CHECK(timed_out == 1, "cond: a wait nobody signals times out");
  CHECK(olc_util__now_ns() - t0 >= 10000000u, "cond: the timed wait lasted (at least half)");
  cond_flag = 0;
  started = thread_start(&t, set_flag, NULL) == 0;
  while (started && !cond_flag)
    (void)olc_util__cond_wait_ms(&cond, &cond_mutex, -1);
  olc_util__mutex_unlock(&cond_mutex);
  if (started)
    thread_join(t);
  CHECK(started && cond_flag == 1, "cond: a broadcast wakes the waiter, the mutex held again");
  olc_util__mutex_lock(&cond_mutex);
  olc_util__cond_signal(&cond); /* nobody waits: nothing happens */
  olc_util__mutex_unlock(&cond_mutex);
  olc_util__cond_destroy(&cond);
}

/* ---- once ---- */

static olc_util_once once = OLC_UTIL_ONCE_INIT;
static volatile int once_calls;

static void once_fn(void) { once_calls++; }

TEST_THREAD_FN(call_once) {
  (void)arg;
  olc_util__once(&once, once_fn);
  TEST_THREAD_RETURN;
}

static void test_once(void) {
  test_thread t[THREADS];
  int i, started = 0;
  for (i = 0; i < THREADS; i++)
    started += thread_start(&t[i], call_once, NULL) == 0;
  for (i = 0; i < started; i++)
    thread_join(t[i]);
  olc_util__once(&once, once_fn);
  CHECK(once_calls == 1, "once: the function ran once for many callers");
}

/* ---- fork handlers ---- */

static int prepared, in_parent, in_child;
static void on_prepare(void) { prepared++; }
static void on_parent(void) { in_parent++; }
static void on_child(void) { in_child++; }

static void test_atfork(void) {
  CHECK(olc_util__atfork(on_prepare, on_parent, on_child) == 0, "atfork: handlers registered");
#if !defined(_WIN32)
  {
    int status = -1;
    pid_t pid;
    fflush(NULL);
    pid = fork();
    if (pid == 0)
      _exit(in_child == 1 && in_parent == 0 ? 0 : 1);
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0,
          "atfork: the child handler ran in the child");
    CHECK(prepared == 1 && in_parent == 1 && in_child == 0,
          "atfork: prepare and parent ran in the parent");
  }
#endif
}

/* ---- clocks and sleep ---- */

static void test_clocks(void) {
  uint64_t prev = olc_util__now_ns(), now;
  int64_t ms0, coarse0, wall, boot;
  int i, monotonic = 1;
  for (i = 0; i < 100000; i++) {
    now = olc_util__now_ns();
    if (now < prev)
      monotonic = 0;
    prev = now;
  }
  CHECK(prev != 0 && monotonic, "clock: now_ns never goes back");
  ms0 = olc_util__now_ms();
  coarse0 = olc_util__coarse_ms();
  olc_util__sleep_ms(40);
  CHECK(olc_util__now_ms() - ms0 >= 20, "sleep: 40 ms later, now_ms moved (at least half)");
  CHECK(olc_util__coarse_ms() >= coarse0, "clock: coarse_ms never goes back");
  olc_util__sleep_ms(0);
  olc_util__sleep_ms(-5);
  CHECK(1, "sleep: 0 and a negative time return");
  wall = olc_util__wall_ms();
  /* 2020-01-01 and 2200-01-01, in ms since 1970. */
  CHECK(wall > INT64_C(1577836800000) && wall < INT64_C(7258118400000),
        "clock: wall_ms is ms since 1970");
  boot = olc_util__since_boot_ms();
  CHECK(boot > 0, "clock: since_boot_ms is known here");
}

/* ---- the program's own files ---- */

static int exists(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f != NULL)
    fclose(f);
  return f != NULL;
}

static void test_dirs(const char *argv0) {
  char *exe = olc_util__exe_dir(), *lib = olc_util__library_dir(), path[4096];
  const char *base = argv0, *p;
  int found = 0;
  for (p = argv0; *p != 0; p++)
    if (olc_util__is_sep(*p))
      base = p + 1;
  CHECK(exe != NULL && olc_util__is_absolute(exe), "exe_dir: an absolute directory");
  if (exe != NULL) {
    snprintf(path, sizeof path, "%s/%s", exe, base);
    found = exists(path);
    snprintf(path, sizeof path, "%s/%s.exe", exe, base);
    found = found || exists(path);
  }
  CHECK(found, "exe_dir: holds the running program");
  CHECK(lib == NULL, "library_dir: none for a statically linked program");
  free(exe);
  free(lib);
}

int main(int argc, char **argv) {
  (void)argc;
  setvbuf(stdout, NULL, _IONBF, 0);
  test_mutex();
  test_rwlock();
  test_cond();
  test_once();
  test_atfork();
  test_clocks();
  test_dirs(argv[0]);
  printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
