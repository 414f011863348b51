/*
 * threads.c - the instance's worker pool.
 *
 * Hand-off and completion both spin briefly before sleeping: a GEMM of a
 * few hundred microseconds cannot afford a condition-variable wake-up
 * (tens of microseconds) on each side, yet idle workers must not burn a
 * core between runs.  Runs are serialized by the ABI (run is never
 * concurrent on an instance) and every task uses all the pool's threads,
 * so one task slot is enough.
 */
#include "threads.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "sys.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CG_PAUSE() _mm_pause()
#else
#define CG_PAUSE() ((void)0)
#endif

/* About 100-200 microseconds of polling before going to sleep. */
#define CG_SPIN_ITERS 20000

struct cg_pool {
  cg_mutex mu;
  cg_cond wake, done;
  uint32_t size;    /* threads including the caller */
  uint32_t started; /* workers actually created */
  _Atomic uint64_t generation;
  _Atomic uint32_t pending;
  _Atomic int stop;
  cg_task_fn fn; /* written before generation is bumped (release) */
  void *arg;
  cg_thread *workers;
};

typedef struct worker_arg {
  cg_pool *pool;
  uint32_t tid;
} worker_arg;

static uint64_t wait_generation(cg_pool *pool, uint64_t seen) {
  uint64_t g;
  for (int i = 0; i < CG_SPIN_ITERS; i++) {
    g = atomic_load_explicit(&pool->generation, memory_order_acquire);
    if (g != seen || atomic_load_explicit(&pool->stop, memory_order_acquire))
      return g;
    CG_PAUSE();
  }
  cg_mutex_lock(&pool->mu);
  while ((g = atomic_load_explicit(&pool->generation, memory_order_acquire)) == seen &&
         !atomic_load_explicit(&pool->stop, memory_order_acquire))
    cg_cond_wait(&pool->wake, &pool->mu);
  cg_mutex_unlock(&pool->mu);
  return g;
}

static void pool_worker(void *p) {
  worker_arg *wa = p;
  cg_pool *pool = wa->pool;
  uint32_t tid = wa->tid;
  uint64_t seen = 0;
  free(wa);
  for (;;) {
    seen = wait_generation(pool, seen);
    if (atomic_load_explicit(&pool->stop, memory_order_acquire))
      break;
    pool->fn(pool->arg, tid, pool->size);
    if (atomic_fetch_sub_explicit(&pool->pending, 1u, memory_order_acq_rel) == 1u) {
      /* Under the lock, so a caller about to sleep cannot miss it. */
      cg_mutex_lock(&pool->mu);
      cg_cond_signal(&pool->done);
      cg_mutex_unlock(&pool->mu);
    }
  }
}

int cg_pool_create(cg_pool **out, uint32_t threads) {
  cg_pool *pool = calloc(1, sizeof(*pool));
  *out = NULL;
  if (pool == NULL)
    return -1;
  pool->size = threads < 1 ? 1 : threads;
  atomic_init(&pool->generation, 0);
  atomic_init(&pool->pending, 0);
  atomic_init(&pool->stop, 0);
  cg_mutex_init(&pool->mu);
  cg_cond_init(&pool->wake);
  cg_cond_init(&pool->done);
  if (pool->size > 1) {
    pool->workers = calloc(pool->size - 1, sizeof(cg_thread));
    if (pool->workers == NULL)
      goto fail;
    for (uint32_t i = 1; i < pool->size; i++) {
      worker_arg *wa = malloc(sizeof(*wa));
      if (wa == NULL)
        goto fail;
      wa->pool = pool;
      wa->tid = i;
      if (cg_thread_start(&pool->workers[i - 1], pool_worker, wa) != 0) {
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
  cg_mutex_lock(&pool->mu);
  atomic_store_explicit(&pool->stop, 1, memory_order_release);
  cg_cond_broadcast(&pool->wake);
  cg_mutex_unlock(&pool->mu);
  for (uint32_t i = 0; i < pool->started; i++)
    cg_thread_join(&pool->workers[i]);
  free(pool->workers);
  cg_cond_destroy(&pool->done);
  cg_cond_destroy(&pool->wake);
  cg_mutex_destroy(&pool->mu);
  free(pool);
}

uint32_t cg_pool_size(const cg_pool *pool) { return pool->size; }

void cg_pool_run(cg_pool *pool, cg_task_fn fn, void *arg) {
  if (pool->size <= 1 || pool->started + 1 < pool->size) {
    fn(arg, 0, 1);
    return;
  }
  pool->fn = fn;
  pool->arg = arg;
  atomic_store_explicit(&pool->pending, pool->size - 1, memory_order_relaxed);
  cg_mutex_lock(&pool->mu);
  atomic_fetch_add_explicit(&pool->generation, 1u, memory_order_release);
  cg_cond_broadcast(&pool->wake);
  cg_mutex_unlock(&pool->mu);
  fn(arg, 0, pool->size);
  for (int i = 0; i < CG_SPIN_ITERS; i++) {
    if (atomic_load_explicit(&pool->pending, memory_order_acquire) == 0)
      return;
    CG_PAUSE();
  }
  cg_mutex_lock(&pool->mu);
  while (atomic_load_explicit(&pool->pending, memory_order_acquire) != 0)
    cg_cond_wait(&pool->done, &pool->mu);
  cg_mutex_unlock(&pool->mu);
}
