/*
 * threads.h - a small thread pool (sys.h) owned by one plugin instance: created
 * with the instance (thread_count - 1 workers; the caller is thread 0),
 * joined when the instance is destroyed.
 */
#ifndef CPU_GEMM_THREADS_H
#define CPU_GEMM_THREADS_H

#include <stdint.h>

typedef struct cg_pool cg_pool;
typedef void (*cg_task_fn)(void *arg, uint32_t tid, uint32_t nthreads);

/* 0, or -1 when a thread or the memory could not be had. */
int cg_pool_create(cg_pool **out, uint32_t threads);
void cg_pool_destroy(cg_pool *pool);
uint32_t cg_pool_size(const cg_pool *pool);

/* Runs fn(arg, tid, n) for tid 0..n-1 with n the pool size (tid 0 on the
 * caller) and returns when all have finished.  Not reentrant. */
void cg_pool_run(cg_pool *pool, cg_task_fn fn, void *arg);

#endif
