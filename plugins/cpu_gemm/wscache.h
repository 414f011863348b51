/*
 * wscache.h - a small cache of packing workspaces for concurrent callers.
 *
 * execute is reentrant: calls that do not run on the instance's thread pool
 * run on their own thread, each with a workspace taken from here and given
 * back afterwards, so that in the steady state no call allocates (buffers
 * keep the size the largest product so far needed).  Thread-safe.
 */
#ifndef CPU_GEMM_WSCACHE_H
#define CPU_GEMM_WSCACHE_H

#include <stdint.h>

#include "gemm.h"
#include "sys.h"

/* Workspaces kept for reuse; more concurrent calls than this allocate. */
#define CG_WS_CACHE_MAX 16u

typedef struct cg_ws_cache {
  cg_mutex mu;
  cg_workspace *spare[CG_WS_CACHE_MAX];
  uint32_t count;
} cg_ws_cache;

void cg_ws_cache_init(cg_ws_cache *cache);
/* Frees every cached workspace (none may be taken). */
void cg_ws_cache_destroy(cg_ws_cache *cache);

/* A workspace for the caller's exclusive use, reused or new (zeroed);
 * NULL when out of memory. */
cg_workspace *cg_ws_cache_take(cg_ws_cache *cache);
/* Returns a workspace taken from this cache (kept, or freed when full). */
void cg_ws_cache_give(cg_ws_cache *cache, cg_workspace *ws);

#endif
