/*
 * wscache.c - see wscache.h.  A mutex-guarded stack: a take or give costs
 * one uncontended lock, against a packing buffer's allocation and page
 * faults on every call.
 */
#include "wscache.h"

#include <stdlib.h>

void cg_ws_cache_init(cg_ws_cache *cache) {
  cg_mutex_init(&cache->mu);
  cache->count = 0;
}

void cg_ws_cache_destroy(cg_ws_cache *cache) {
  for (uint32_t i = 0; i < cache->count; i++) {
    cg_workspace_free(cache->spare[i]);
    free(cache->spare[i]);
  }
  cache->count = 0;
  cg_mutex_destroy(&cache->mu);
}

cg_workspace *cg_ws_cache_take(cg_ws_cache *cache) {
  cg_workspace *ws = NULL;
  cg_mutex_lock(&cache->mu);
  if (cache->count > 0)
    ws = cache->spare[--cache->count];
  cg_mutex_unlock(&cache->mu);
  return ws != NULL ? ws : calloc(1, sizeof(*ws));
}

void cg_ws_cache_give(cg_ws_cache *cache, cg_workspace *ws) {
  if (ws == NULL)
    return;
  cg_mutex_lock(&cache->mu);
  if (cache->count < CG_WS_CACHE_MAX) {
    cache->spare[cache->count++] = ws;
    ws = NULL;
  }
  cg_mutex_unlock(&cache->mu);
  if (ws != NULL) {
    cg_workspace_free(ws);
    free(ws);
  }
}
