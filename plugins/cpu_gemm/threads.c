/*
 * threads.c - the instance's worker pool.  A generation counter under one
 * mutex hands out each task; workers check in on a second condition
 * variable.  Runs are serialized by the ABI (run is never concurrent on an
 * instance), so one task slot is enough.
 */
#include "threads.h"

#include <pthread.h>
#include <stdlib.h>

struct cg_pool {
  pthread_mutex_t mu;
  pthread_cond_t wake, done;
  uint32_t size;    /* threads including the caller */
  uint32_t started; /* workers actually created */
  uint64_t generation;
  uint32_t active; /* threads taking part in the current task */
  uint32_t pending;
  int stop;
  cg_task_fn fn;
  void *arg;
  pthread_t *workers;
};

typedef struct worker_arg {
  cg_pool *pool;
  uint32_t tid;
} worker_arg;

static void *pool_worker(void *p) {
  worker_arg *wa = p;
  cg_pool *pool = wa->pool;
  uint32_t tid = wa->tid;
  uint64_t seen = 0;
  free(wa);
  pthread_mutex_lock(&pool->mu);
  for (;;) {
    while (!pool->stop && pool->generation == seen)
      pthread_cond_wait(&pool->wake, &pool->mu);
    if (pool->stop)
      break;
    seen = pool->generation;
    if (tid < pool->active) {
      cg_task_fn fn = pool->fn;
      void *arg = pool->arg;
      uint32_t n = pool->active;
      pthread_mutex_unlock(&pool->mu);
      fn(arg, tid, n);
      pthread_mutex_lock(&pool->mu);
      if (--pool->pending == 0)
        pthread_cond_signal(&pool->done);
    }
  }
  pthread_mutex_unlock(&pool->mu);
  return NULL;
}

int cg_pool_create(cg_pool **out, uint32_t threads) {
  cg_pool *pool = calloc(1, sizeof(*pool));
  *out = NULL;
  if (pool == NULL)
    return -1;
  pool->size = threads < 1 ? 1 : threads;
  pthread_mutex_init(&pool->mu, NULL);
  pthread_cond_init(&pool->wake, NULL);
  pthread_cond_init(&pool->done, NULL);
  if (pool->size > 1) {
    pool->workers = calloc(pool->size - 1, sizeof(pthread_t));
    if (pool->workers == NULL)
      goto fail;
    for (uint32_t i = 1; i < pool->size; i++) {
      worker_arg *wa = malloc(sizeof(*wa));
      if (wa == NULL)
        goto fail;
      wa->pool = pool;
      wa->tid = i;
      if (pthread_create(&pool->workers[i - 1], NULL, pool_worker, wa) != 0) {
        free(wa);
        goto fail;
      }
      pool->started++;
    }
  }
  *out = pool;
  return 0;
fail:
  cg_pool_destroy(pool);
  return -1;
}

void cg_pool_destroy(cg_pool *pool) {
  if (pool == NULL)
    return;
  pthread_mutex_lock(&pool->mu);
  pool->stop = 1;
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mu);
  for (uint32_t i = 0; i < pool->started; i++)
    pthread_join(pool->workers[i], NULL);
  free(pool->workers);
  pthread_cond_destroy(&pool->done);
  pthread_cond_destroy(&pool->wake);
  pthread_mutex_destroy(&pool->mu);
  free(pool);
}

uint32_t cg_pool_size(const cg_pool *pool) { return pool->size; }

void cg_pool_run(cg_pool *pool, cg_task_fn fn, void *arg, uint32_t n) {
  if (n > pool->size)
    n = pool->size;
  if (n <= 1) {
    fn(arg, 0, 1);
    return;
  }
  pthread_mutex_lock(&pool->mu);
  pool->fn = fn;
  pool->arg = arg;
  pool->active = n;
  pool->pending = n - 1;
  pool->generation++;
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mu);
  fn(arg, 0, n);
  pthread_mutex_lock(&pool->mu);
  while (pool->pending > 0)
    pthread_cond_wait(&pool->done, &pool->mu);
  pthread_mutex_unlock(&pool->mu);
}
