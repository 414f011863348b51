/*
 * sys_posix.c - sys.h with pthreads, posix_memalign and madvise.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "sys.h"

#include <stdlib.h>
#include <sys/mman.h>

void cg_mutex_init(cg_mutex *m) { (void)pthread_mutex_init(&m->m, NULL); }

void cg_mutex_destroy(cg_mutex *m) { (void)pthread_mutex_destroy(&m->m); }

void cg_mutex_lock(cg_mutex *m) { (void)pthread_mutex_lock(&m->m); }

int cg_mutex_trylock(cg_mutex *m) { return pthread_mutex_trylock(&m->m) == 0; }

void cg_mutex_unlock(cg_mutex *m) { (void)pthread_mutex_unlock(&m->m); }

void cg_cond_init(cg_cond *c) { (void)pthread_cond_init(&c->c, NULL); }

void cg_cond_destroy(cg_cond *c) { (void)pthread_cond_destroy(&c->c); }

void cg_cond_wait(cg_cond *c, cg_mutex *m) { (void)pthread_cond_wait(&c->c, &m->m); }

void cg_cond_signal(cg_cond *c) { (void)pthread_cond_signal(&c->c); }

void cg_cond_broadcast(cg_cond *c) { (void)pthread_cond_broadcast(&c->c); }

static void *thread_main(void *p) {
  cg_thread *t = p;
  t->fn(t->arg);
  return NULL;
}

int cg_thread_start(cg_thread *t, void (*fn)(void *arg), void *arg) {
  t->fn = fn;
  t->arg = arg;
  return pthread_create(&t->t, NULL, thread_main, t) == 0 ? 0 : -1;
}

void cg_thread_join(cg_thread *t) { (void)pthread_join(t->t, NULL); }

void *cg_sys_alloc_aligned(size_t align, size_t bytes) {
  void *p = NULL;
  return posix_memalign(&p, align, bytes) == 0 ? p : NULL;
}

void cg_sys_free_aligned(void *p) { free(p); }

void cg_sys_advise_huge(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  /* Advice only: a kernel without transparent huge pages refuses it. */
  (void)madvise(p, bytes, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}
