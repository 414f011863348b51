/*
 * host/sync_posix.c - sync.h with POSIX threads.  The condition variable
 * waits on CLOCK_MONOTONIC, so a wall-clock change neither shortens nor
 * stretches a select's timeout.
 */
#include "host/sync.h"

#include <time.h>

static pthread_mutex_t global_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t global_cond;
static pthread_once_t global_once = PTHREAD_ONCE_INIT;

static void global_init(void) {
  pthread_condattr_t attr;
  if (pthread_condattr_init(&attr) == 0) {
    (void)pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    (void)pthread_cond_init(&global_cond, &attr);
    (void)pthread_condattr_destroy(&attr);
  } else {
    (void)pthread_cond_init(&global_cond, NULL);
  }
}

void olc_host__rwlock_init(olc_host_rwlock *l) { (void)pthread_rwlock_init(l, NULL); }
void olc_host__rwlock_destroy(olc_host_rwlock *l) { (void)pthread_rwlock_destroy(l); }
void olc_host__rdlock(olc_host_rwlock *l) { (void)pthread_rwlock_rdlock(l); }
void olc_host__rdunlock(olc_host_rwlock *l) { (void)pthread_rwlock_unlock(l); }
void olc_host__wrlock(olc_host_rwlock *l) { (void)pthread_rwlock_wrlock(l); }
void olc_host__wrunlock(olc_host_rwlock *l) { (void)pthread_rwlock_unlock(l); }

void olc_host__global_lock(void) {
  (void)pthread_once(&global_once, global_init);
  (void)pthread_mutex_lock(&global_mutex);
}

void olc_host__global_unlock(void) { (void)pthread_mutex_unlock(&global_mutex); }

void olc_host__global_wait(int64_t ms) {
  struct timespec ts;
  if (ms < 0) {
    (void)pthread_cond_wait(&global_cond, &global_mutex);
    return;
  }
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return;
  ts.tv_sec += (time_t)(ms / 1000);
  ts.tv_nsec += (long)(ms % 1000) * 1000000L;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  (void)pthread_cond_timedwait(&global_cond, &global_mutex, &ts);
}

void olc_host__global_broadcast(void) { (void)pthread_cond_broadcast(&global_cond); }
