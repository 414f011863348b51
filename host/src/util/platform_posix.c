/*
 * util/platform_posix.c - util/platform.h on POSIX threads and clocks.
 *
 * The lock calls' results are dropped: on an object used as documented
 * they cannot fail, and a caller has no way to go on without the lock.
 */
#include "util/platform.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- mutex ---- */

void olc_util__mutex_init(olc_util_mutex *m) { (void)pthread_mutex_init(&m->m, NULL); }
void olc_util__mutex_destroy(olc_util_mutex *m) { (void)pthread_mutex_destroy(&m->m); }
void olc_util__mutex_lock(olc_util_mutex *m) { (void)pthread_mutex_lock(&m->m); }
int olc_util__mutex_trylock(olc_util_mutex *m) { return pthread_mutex_trylock(&m->m) == 0; }
void olc_util__mutex_unlock(olc_util_mutex *m) { (void)pthread_mutex_unlock(&m->m); }

/* ---- reader/writer lock ---- */

void olc_util__rwlock_init(olc_util_rwlock *l) { (void)pthread_rwlock_init(&l->l, NULL); }
void olc_util__rwlock_destroy(olc_util_rwlock *l) { (void)pthread_rwlock_destroy(&l->l); }
void olc_util__rwlock_rdlock(olc_util_rwlock *l) { (void)pthread_rwlock_rdlock(&l->l); }
void olc_util__rwlock_rdunlock(olc_util_rwlock *l) { (void)pthread_rwlock_unlock(&l->l); }
void olc_util__rwlock_wrlock(olc_util_rwlock *l) { (void)pthread_rwlock_wrlock(&l->l); }
void olc_util__rwlock_wrunlock(olc_util_rwlock *l) { (void)pthread_rwlock_unlock(&l->l); }

/* ---- condition variable ---- */

void olc_util__cond_init(olc_util_cond *c) {
  pthread_condattr_t attr;
  if (pthread_condattr_init(&attr) == 0) {
    (void)pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    (void)pthread_cond_init(&c->c, &attr);
    (void)pthread_condattr_destroy(&attr);
  } else {
    (void)pthread_cond_init(&c->c, NULL);
  }
}

void olc_util__cond_destroy(olc_util_cond *c) { (void)pthread_cond_destroy(&c->c); }

int olc_util__cond_wait_ms(olc_util_cond *c, olc_util_mutex *m, int64_t ms) {
  struct timespec ts;
  if (ms < 0) {
    (void)pthread_cond_wait(&c->c, &m->m);
    return 0;
  }
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 1;
  ts.tv_sec += (time_t)(ms / 1000);
  ts.tv_nsec += (long)(ms % 1000) * 1000000L;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  return pthread_cond_timedwait(&c->c, &m->m, &ts) == ETIMEDOUT;
}

void olc_util__cond_signal(olc_util_cond *c) { (void)pthread_cond_signal(&c->c); }
void olc_util__cond_broadcast(olc_util_cond *c) { (void)pthread_cond_broadcast(&c->c); }

/* ---- once and fork ---- */

void olc_util__once(olc_util_once *once, void (*fn)(void)) { (void)pthread_once(&once->o, fn); }

int olc_util__atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void)) {
  return pthread_atfork(prepare, parent, child);
}

/* ---- clocks and sleep ---- */

static int64_t ms_of(const struct timespec *ts) {
  return (int64_t)ts->tv_sec * 1000 + ts->tv_nsec / 1000000;
}

uint64_t olc_util__now_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int64_t olc_util__now_ms(void) { return (int64_t)(olc_util__now_ns() / 1000000u); }

int64_t olc_util__coarse_ms(void) {
  struct timespec ts;
#if defined(CLOCK_MONOTONIC_COARSE)
  /* Read from the vDSO page without entering the kernel; its resolution is
   * the scheduler tick. */
  if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0)
    return ms_of(&ts);
#endif
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0;
  return ms_of(&ts);
}

int64_t olc_util__wall_ms(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
    return 0;
  return ms_of(&ts);
}

int64_t olc_util__since_boot_ms(void) {
  struct timespec ts;
#if defined(CLOCK_BOOTTIME)
  if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
    return -1;
  return ms_of(&ts);
#else
  (void)ts;
  return -1;
#endif
}

void olc_util__sleep_ms(int64_t ms) {
  struct timespec ts;
  if (ms < 0)
    ms = 0;
  ts.tv_sec = (time_t)(ms / 1000);
  ts.tv_nsec = (long)(ms % 1000) * 1000000L;
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* ---- the program's own files ---- */

/* A copy of path's directory ("/" for a file at the root), or NULL. */
static char *dir_of(char *path) {
  char *slash = strrchr(path, '/');
  if (slash == NULL)
    return NULL;
  if (slash == path)
    slash[1] = 0;
  else
    *slash = 0;
  return strdup(path);
}

/* The executable's path into buf (size > 1): 0, or -1 when unknown. */
static int exe_path(char *buf, size_t size) {
  ssize_t n = readlink("/proc/self/exe", buf, size - 1);
  if (n <= 0 || (size_t)n >= size - 1)
    return -1;
  buf[n] = 0;
  return 0;
}

char *olc_util__exe_dir(void) {
  char buf[PATH_MAX];
  if (exe_path(buf, sizeof buf) != 0)
    return NULL;
  return dir_of(buf);
}

/* Any address inside the library: dladdr names the file that holds it. */
static const char library_anchor = 0;

char *olc_util__library_dir(void) {
  Dl_info info;
  char real[PATH_MAX], exe[PATH_MAX];
  if (dladdr(&library_anchor, &info) == 0 || info.dli_fname == NULL ||
      realpath(info.dli_fname, real) == NULL)
    return NULL;
  /* Linked statically, the "library" is the program itself: its directory
   * is the executable's, which the executable-relative search covers. */
  if (exe_path(exe, sizeof exe) == 0 && strcmp(exe, real) == 0)
    return NULL;
  return dir_of(real);
}
