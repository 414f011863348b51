/*
 * sys_win32.c - sys.h with the Win32 API: slim reader/writer locks and
 * condition variables (Windows Vista and later), threads started with
 * _beginthreadex (the C runtime's own start, so its per-thread state is
 * set up for the thread), _aligned_malloc.  Huge pages need the "lock
 * pages in memory" privilege on Windows: no advice is given.
 */
#include "sys.h"

#include <windows.h>

#include <process.h>
#include <stdlib.h>

_Static_assert(sizeof(SRWLOCK) == sizeof(void *), "cg_mutex holds an SRWLOCK");
_Static_assert(sizeof(CONDITION_VARIABLE) == sizeof(void *), "cg_cond holds a CONDITION_VARIABLE");

static PSRWLOCK srw(cg_mutex *m) { return (PSRWLOCK)(void *)&m->opaque; }

static PCONDITION_VARIABLE cv(cg_cond *c) { return (PCONDITION_VARIABLE)(void *)&c->opaque; }

void cg_mutex_init(cg_mutex *m) { InitializeSRWLock(srw(m)); }

void cg_mutex_destroy(cg_mutex *m) { (void)m; }

void cg_mutex_lock(cg_mutex *m) { AcquireSRWLockExclusive(srw(m)); }

int cg_mutex_trylock(cg_mutex *m) { return TryAcquireSRWLockExclusive(srw(m)) != 0; }

void cg_mutex_unlock(cg_mutex *m) { ReleaseSRWLockExclusive(srw(m)); }

void cg_cond_init(cg_cond *c) { InitializeConditionVariable(cv(c)); }

void cg_cond_destroy(cg_cond *c) { (void)c; }

void cg_cond_wait(cg_cond *c, cg_mutex *m) {
  /* INFINITE: it returns only when woken (or spuriously). */
  (void)SleepConditionVariableSRW(cv(c), srw(m), INFINITE, 0);
}

void cg_cond_signal(cg_cond *c) { WakeConditionVariable(cv(c)); }

void cg_cond_broadcast(cg_cond *c) { WakeAllConditionVariable(cv(c)); }

static unsigned __stdcall thread_main(void *p) {
  cg_thread *t = p;
  t->fn(t->arg);
  return 0;
}

int cg_thread_start(cg_thread *t, void (*fn)(void *arg), void *arg) {
  uintptr_t h;
  t->fn = fn;
  t->arg = arg;
  h = _beginthreadex(NULL, 0, thread_main, t, 0, NULL);
  if (h == 0)
    return -1;
  t->handle = (void *)h;
  return 0;
}

void cg_thread_join(cg_thread *t) {
  (void)WaitForSingleObject((HANDLE)t->handle, INFINITE);
  (void)CloseHandle((HANDLE)t->handle);
  t->handle = NULL;
}

void *cg_sys_alloc_aligned(size_t align, size_t bytes) { return _aligned_malloc(bytes, align); }

void cg_sys_free_aligned(void *p) { _aligned_free(p); }

void cg_sys_advise_huge(void *p, size_t bytes) {
  (void)p;
  (void)bytes;
}
