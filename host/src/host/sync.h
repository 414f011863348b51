/*
 * host/sync.h - the process-wide lock of the host module's runtime path
 * (sync.c), with a condition variable, for what a measurement changes (a
 * key being measured, the one measurer of the process).  Each host's
 * tables have their own reader/writer lock (util/platform.h).  Only the
 * slow path of a select takes them; a warm select reads atomics.
 */
#ifndef OLC_HOST_SYNC_H
#define OLC_HOST_SYNC_H

#include <stdint.h>

#include "util/platform.h"

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
