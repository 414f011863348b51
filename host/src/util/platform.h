/*
 * util/platform.h - the one platform layer of the library for threads,
 * clocks and the program's own files (platform_posix.c, platform_win32.c):
 * mutex, reader/writer lock, condition variable, once, fork handlers, the
 * monotonic and wall clocks, sleep, and the directories of the running
 * executable and of the file that holds the library.
 *
 * No other module calls a thread, clock or sleep primitive of the system
 * (tests/graph holds them to it); persist keeps its file locks, which are
 * file-system calls.  Every function is thread-safe and none fails loudly:
 * the lock calls cannot fail on a correctly used object (POSIX errors such
 * as EDEADLK come only from misuse), the clocks answer 0 when the system
 * has none.
 *
 * On Windows the objects are the system's slim reader/writer lock,
 * condition variable and one-time initialization, each one pointer wide;
 * this header keeps <windows.h> out of the modules that include it.
 */
#ifndef OLC_UTIL_PLATFORM_H
#define OLC_UTIL_PLATFORM_H

#include <stdint.h>

#if defined(_WIN32)
typedef struct olc_util_mutex {
  void *opaque; /* SRWLOCK */
} olc_util_mutex;
typedef struct olc_util_rwlock {
  void *opaque; /* SRWLOCK */
} olc_util_rwlock;
typedef struct olc_util_cond {
  void *opaque; /* CONDITION_VARIABLE */
} olc_util_cond;
typedef struct olc_util_once {
  void *opaque; /* INIT_ONCE */
} olc_util_once;
#define OLC_UTIL_MUTEX_INIT                                                                        \
  { 0 }
#define OLC_UTIL_RWLOCK_INIT                                                                       \
  { 0 }
#define OLC_UTIL_ONCE_INIT                                                                         \
  { 0 }
#else
#include <pthread.h>
typedef struct olc_util_mutex {
  pthread_mutex_t m;
} olc_util_mutex;
typedef struct olc_util_rwlock {
  pthread_rwlock_t l;
} olc_util_rwlock;
typedef struct olc_util_cond {
  pthread_cond_t c;
} olc_util_cond;
typedef struct olc_util_once {
  pthread_once_t o;
} olc_util_once;
#define OLC_UTIL_MUTEX_INIT                                                                        \
  { PTHREAD_MUTEX_INITIALIZER }
#define OLC_UTIL_RWLOCK_INIT                                                                       \
  { PTHREAD_RWLOCK_INITIALIZER }
#define OLC_UTIL_ONCE_INIT                                                                         \
  { PTHREAD_ONCE_INIT }
#endif

/* ---- mutex (not recursive) ---- */

/* A mutex is set up by init or by OLC_UTIL_MUTEX_INIT (a static one). */
void olc_util__mutex_init(olc_util_mutex *m);
/* Releases what init took; the mutex must be unlocked.  Not needed for a
 * static one. */
void olc_util__mutex_destroy(olc_util_mutex *m);
void olc_util__mutex_lock(olc_util_mutex *m);
/* 1 when the mutex was free and is now this thread's, else 0. */
int olc_util__mutex_trylock(olc_util_mutex *m);
void olc_util__mutex_unlock(olc_util_mutex *m);

/* ---- reader/writer lock (not recursive; no upgrade) ---- */

void olc_util__rwlock_init(olc_util_rwlock *l);
void olc_util__rwlock_destroy(olc_util_rwlock *l);
void olc_util__rwlock_rdlock(olc_util_rwlock *l);
void olc_util__rwlock_rdunlock(olc_util_rwlock *l);
void olc_util__rwlock_wrlock(olc_util_rwlock *l);
void olc_util__rwlock_wrunlock(olc_util_rwlock *l);

/* ---- condition variable ---- */

/* Sets up a condition variable whose timed waits run on the monotonic
 * clock (a wall-clock change neither shortens nor stretches them).  There
 * is no static initializer: POSIX picks the clock at init. */
void olc_util__cond_init(olc_util_cond *c);
void olc_util__cond_destroy(olc_util_cond *c);
/* Waits, m held, until a signal or broadcast, or until ms milliseconds
 * passed (ms < 0: no limit); m is held again on return.  Spurious wakeups
 * happen: callers loop on their condition.  Returns 1 when the time ran
 * out, else 0. */
int olc_util__cond_wait_ms(olc_util_cond *c, olc_util_mutex *m, int64_t ms);
/* Wakes one waiter, or every waiter. */
void olc_util__cond_signal(olc_util_cond *c);
void olc_util__cond_broadcast(olc_util_cond *c);

/* ---- once ---- */

/* Calls fn exactly once per once object (OLC_UTIL_ONCE_INIT), however
 * many threads arrive at once; every caller returns after fn did. */
void olc_util__once(olc_util_once *once, void (*fn)(void));

/* ---- fork ---- */

/* Registers handlers called around fork() (pthread_atfork): prepare in the
 * parent before it, parent and child after it.  0 on success.  Windows has
 * no fork(): nothing is registered and the answer is 0. */
int olc_util__atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void));

/* ---- clocks and sleep ---- */

/* The monotonic clock in nanoseconds (an arbitrary origin, unaffected by
 * changes of the wall clock); 0 when there is none.  The host's timing
 * clock, also given to plugins (their services' now_ns). */
uint64_t olc_util__now_ns(void);
/* The same clock in milliseconds. */
int64_t olc_util__now_ms(void);
/* A monotonic clock in milliseconds that is cheaper to read than
 * olc_util__now_ms and may lag it by a few milliseconds (a scheduler
 * tick): for rechecks every so often, never for timing. */
int64_t olc_util__coarse_ms(void);
/* The wall clock: milliseconds since 1970-01-01 UTC. */
int64_t olc_util__wall_ms(void);
/* Milliseconds since the machine booted, time spent suspended included;
 * -1 when unknown. */
int64_t olc_util__since_boot_ms(void);
/* Sleeps for at least ms milliseconds (a signal does not cut it short);
 * 0 gives the processor to another thread for a moment. */
void olc_util__sleep_ms(int64_t ms);

/* ---- the program's own files ---- */

/* The directory of the running executable, malloc'ed; NULL when it cannot
 * be found.  Windows gives it in the ANSI code page. */
char *olc_util__exe_dir(void);
/* The directory of the file that holds the olc library (dladdr;
 * GetModuleHandleExW on Windows), malloc'ed; NULL when unknown, and when
 * the library is linked into the executable itself (then the executable's
 * directory, olc_util__exe_dir, is the install's). */
char *olc_util__library_dir(void);

#endif
