/*
 * sys.h - cpu_gemm's platform layer: a lock, a condition, a thread and
 * aligned memory.  sys_posix.c (pthreads, posix_memalign, madvise) and
 * sys_win32.c (SRW locks, condition variables, _beginthreadex,
 * _aligned_malloc) implement it; everything else in the plugin is the
 * same on both.
 *
 * Locks and conditions need no destruction on Windows and are destroyed
 * on POSIX; call cg_*_destroy on both.  None of these functions can fail
 * but cg_thread_start and cg_sys_alloc_aligned (cg_mutex_trylock finds a
 * lock busy; it does not fail).
 */
#ifndef CPU_GEMM_SYS_H
#define CPU_GEMM_SYS_H

#include <stddef.h>

#if defined(_WIN32)
/* An SRWLOCK and a CONDITION_VARIABLE are one pointer each (sys_win32.c
 * asserts it) and a thread is its HANDLE, so <windows.h> stays out of the
 * plugin's other files. */
typedef struct cg_mutex {
  void *opaque;
} cg_mutex;
typedef struct cg_cond {
  void *opaque;
} cg_cond;
typedef struct cg_thread {
  void *handle;
  void (*fn)(void *arg);
  void *arg;
} cg_thread;
#else
#include <pthread.h>
typedef struct cg_mutex {
  pthread_mutex_t m;
} cg_mutex;
typedef struct cg_cond {
  pthread_cond_t c;
} cg_cond;
typedef struct cg_thread {
  pthread_t t;
  void (*fn)(void *arg);
  void *arg;
} cg_thread;
#endif

void cg_mutex_init(cg_mutex *m);
void cg_mutex_destroy(cg_mutex *m);
void cg_mutex_lock(cg_mutex *m);
/* Takes m if no thread holds it: 1 when taken, 0 when held elsewhere. */
int cg_mutex_trylock(cg_mutex *m);
void cg_mutex_unlock(cg_mutex *m);

void cg_cond_init(cg_cond *c);
void cg_cond_destroy(cg_cond *c);
/* Releases m, sleeps until signalled (or spuriously), takes m again. */
void cg_cond_wait(cg_cond *c, cg_mutex *m);
void cg_cond_signal(cg_cond *c);
void cg_cond_broadcast(cg_cond *c);

/* Starts fn(arg) on a new thread: 0, or -1 when none could be had.  The
 * thread reads *t: it stays where it is until cg_thread_join. */
int cg_thread_start(cg_thread *t, void (*fn)(void *arg), void *arg);
/* Waits for a started thread to return and releases it. */
void cg_thread_join(cg_thread *t);

/* bytes (a multiple of align, a power of two >= sizeof(void *)) aligned
 * to align, or NULL; freed with cg_sys_free_aligned only. */
void *cg_sys_alloc_aligned(size_t align, size_t bytes);
void cg_sys_free_aligned(void *p);
/* Advice that [p, p + bytes) be backed by huge pages where the system
 * offers them without privileges; nothing otherwise. */
void cg_sys_advise_huge(void *p, size_t bytes);

#endif
