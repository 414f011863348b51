/*
 * store/fork.c - fork() and open stores (store.h, "fork()").
 *
 * A child of fork() has only the thread that forked.  A mutex another
 * thread held at that moment stays locked in the child forever, and a
 * P.lock lock held by a writer thread lives on in the child's copy of its
 * descriptor.  So fork() waits, through pthread_atfork, until no other
 * thread is inside a call on any open store: the handlers take every
 * handle's mutexes (all write mutexes first, then the reload ones, then the
 * state ones and the current snapshot's index lock, the order the store's
 * own code takes them in) and the persist module's writer mutex, and release them again in the
 * parent and in the child.  The handle a thread is writing through (a fork from a remove_if
 * predicate) is left to that thread.
 */
#include "store/store_int.h"

#if !defined(_WIN32)

#include <stdlib.h>

static olc_util_mutex registry_lock = OLC_UTIL_MUTEX_INIT;
static olc_util_once handlers_once = OLC_UTIL_ONCE_INIT;
static olc_store **open_stores;
static size_t open_count, open_cap;
/* The handle whose write mutex this thread holds, if any. */
static _Thread_local const olc_store *writing;
static const olc_store *fork_skip; /* the forking thread's, during a fork */

void olc_store__fork_writing(const olc_store *store) { writing = store; }

static void each(void (*fn)(olc_util_mutex *), size_t which) {
  size_t i;
  for (i = 0; i < open_count; i++) {
    olc_store *s = open_stores[i];
    if (which == 0 && s != fork_skip)
      fn(&s->write);
    else if (which == 1)
      fn(&s->reload);
    else if (which == 2)
      fn(&s->state);
    else if (which == 3) /* the current snapshot's index, built on demand */
      fn(&s->snap->cand_lock);
  }
}

static void prepare(void) {
  olc_util__mutex_lock(&registry_lock);
  fork_skip = writing;
  each(olc_util__mutex_lock, 0);
  each(olc_util__mutex_lock, 1);
  each(olc_util__mutex_lock, 2);
  each(olc_util__mutex_lock, 3); /* under state: the snapshot cannot change */
  olc_persist__fork_prepare();
}

static void done(void) {
  olc_persist__fork_done();
  each(olc_util__mutex_unlock, 3);
  each(olc_util__mutex_unlock, 2);
  each(olc_util__mutex_unlock, 1);
  each(olc_util__mutex_unlock, 0);
  fork_skip = NULL;
  olc_util__mutex_unlock(&registry_lock);
}

static void install(void) { (void)olc_util__atfork(prepare, done, done); }

olc_status olc_store__fork_register(olc_store *store) {
  olc_status st = OLC_OK;
  olc_util__once(&handlers_once, install);
  olc_util__mutex_lock(&registry_lock);
  if (open_count == open_cap) {
    size_t cap = open_cap != 0 ? open_cap * 2 : 8;
    olc_store **n = realloc(open_stores, cap * sizeof *n);
    if (n == NULL)
      st = OLC_E_NOMEM;
    else {
      open_stores = n;
      open_cap = cap;
    }
  }
  if (st == OLC_OK)
    open_stores[open_count++] = store;
  olc_util__mutex_unlock(&registry_lock);
  return st;
}

void olc_store__fork_unregister(olc_store *store) {
  size_t i;
  olc_util__mutex_lock(&registry_lock);
  for (i = 0; i < open_count; i++)
    if (open_stores[i] == store) {
      open_stores[i] = open_stores[--open_count];
      break;
    }
  if (open_count == 0) {
    free(open_stores);
    open_stores = NULL;
    open_cap = 0;
  }
  olc_util__mutex_unlock(&registry_lock);
}

#else
/* No fork() on Windows. */
void olc_store__fork_writing(const olc_store *store) { (void)store; }
olc_status olc_store__fork_register(olc_store *store) {
  (void)store;
  return OLC_OK;
}
void olc_store__fork_unregister(olc_store *store) { (void)store; }
#endif
