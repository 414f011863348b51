/*
 * host/sync.h - the locks of the host module's runtime path (sync_posix.c,
 * sync_win32.c): a reader/writer lock per host for its tables, and one
 * process-wide lock with a condition variable for what a measurement
 * changes (a key being measured, the one measurer of the process).  Only
 * the slow path of a select takes them; a warm select reads atomics.
 */
#ifndef OLC_HOST_SYNC_H
#define OLC_HOST_SYNC_H

#include <stdint.h>

#if defined(_WIN32)
#include <windows.h>
typedef SRWLOCK olc_host_rwlock;
#else
#include <pthread.h>
typedef pthread_rwlock_t olc_host_rwlock;
#endif

void olc_host__rwlock_init(olc_host_rwlock *l);
void olc_host__rwlock_destroy(olc_host_rwlock *l);
void olc_host__rdlock(olc_host_rwlock *l);
void olc_host__rdunlock(olc_host_rwlock *l);
void olc_host__wrlock(olc_host_rwlock *l);
void olc_host__wrunlock(olc_host_rwlock *l);

/* The process-wide runtime lock. */
void olc_host__global_lock(void);
void olc_host__global_unlock(void);
/* Waits (holding the lock) until a broadcast or ms milliseconds passed
 * (ms < 0: no limit); the lock is held again on return.  Spurious wakeups
 * happen: callers loop on their condition. */
void olc_host__global_wait(int64_t ms);
/* Wakes every waiter (call with the lock held). */
void olc_host__global_broadcast(void);

#endif
