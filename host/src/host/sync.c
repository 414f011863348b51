/*
 * host/sync.c - the process-wide runtime lock of sync.h.  Its condition
 * variable waits on the monotonic clock (util/platform.h), so a wall-clock
 * change neither shortens nor stretches a select's timeout.
 */
#include "host/sync.h"

static olc_util_mutex global_mutex = OLC_UTIL_MUTEX_INIT;
static olc_util_cond global_cond;
static olc_util_once global_once = OLC_UTIL_ONCE_INIT;

static void global_init(void) { olc_util__cond_init(&global_cond); }

void olc_host__global_lock(void) {
  olc_util__once(&global_once, global_init);
  olc_util__mutex_lock(&global_mutex);
}

void olc_host__global_unlock(void) { olc_util__mutex_unlock(&global_mutex); }

void olc_host__global_wait(int64_t ms) {
  (void)olc_util__cond_wait_ms(&global_cond, &global_mutex, ms);
}

void olc_host__global_broadcast(void) { olc_util__cond_broadcast(&global_cond); }
