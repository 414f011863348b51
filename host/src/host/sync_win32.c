/* host/sync_win32.c - sync.h with slim reader/writer locks and a
 * condition variable. */
#include "host/sync.h"

static SRWLOCK global_lock = SRWLOCK_INIT;
static CONDITION_VARIABLE global_cond = CONDITION_VARIABLE_INIT;

void olc_host__rwlock_init(olc_host_rwlock *l) { InitializeSRWLock(l); }
void olc_host__rwlock_destroy(olc_host_rwlock *l) { (void)l; }
void olc_host__rdlock(olc_host_rwlock *l) { AcquireSRWLockShared(l); }
void olc_host__rdunlock(olc_host_rwlock *l) { ReleaseSRWLockShared(l); }
void olc_host__wrlock(olc_host_rwlock *l) { AcquireSRWLockExclusive(l); }
void olc_host__wrunlock(olc_host_rwlock *l) { ReleaseSRWLockExclusive(l); }

void olc_host__global_lock(void) { AcquireSRWLockExclusive(&global_lock); }
void olc_host__global_unlock(void) { ReleaseSRWLockExclusive(&global_lock); }

void olc_host__global_wait(int64_t ms) {
  DWORD wait = ms < 0 ? INFINITE : ms > 0x7ffffffe ? 0x7ffffffe : (DWORD)ms;
  (void)SleepConditionVariableSRW(&global_cond, &global_lock, wait, 0);
}

void olc_host__global_broadcast(void) { WakeAllConditionVariable(&global_cond); }
