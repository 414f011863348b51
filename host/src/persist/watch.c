/*
 * persist/watch.c - the generation counter of P.lock: the writer's bumps
 * and the reader's system-call-free change check (persist.h, DURABILITY.md
 * 2.4).  The mapping itself is in gen_posix.c / gen_win32.c.
 *
 * Every shared field is accessed with the GCC/Clang __atomic builtins (GCC
 * and mingw-w64 GCC are the supported compilers): the counter because other
 * processes write it, the watch's own fields because many threads of one
 * handle call quiet/begin/settle at once.
 */
#include <stdlib.h>
#include <string.h>

#include "persist/persist_int.h"
#include "util/error.h"

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <time.h>
#endif

static uint64_t *gen_ptr(void *base) {
  return (uint64_t *)(void *)((unsigned char *)base + OLC_PERSIST__GEN_OFFSET);
}

static const uint64_t *gen_cptr(const void *base) {
  return (const uint64_t *)(const void *)((const unsigned char *)base + OLC_PERSIST__GEN_OFFSET);
}

static uint64_t magic_value(void) {
  uint64_t m;
  memcpy(&m, OLC_PERSIST__GEN_MAGIC, sizeof m);
  return m;
}

int64_t olc_persist__coarse_ms(void) {
#if defined(_WIN32)
  return (int64_t)GetTickCount64();
#else
  struct timespec ts;
#if defined(CLOCK_MONOTONIC_COARSE)
  /* Read from the vDSO page without entering the kernel; its few ms of
   * resolution are plenty for a 100 ms recheck. */
  if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) != 0)
#endif
    clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
#endif
}

/* ---- writer side (lock held) ---- */

void olc_persist__gen_init(void *base) {
  uint64_t *magic = (uint64_t *)base;
  if (base == NULL || __atomic_load_n(magic, __ATOMIC_ACQUIRE) == magic_value())
    return;
  /* A new (zero-filled) or foreign P.lock: the counter first, then the
   * magic that makes readers trust it. */
  __atomic_store_n(gen_ptr(base), (uint64_t)0, __ATOMIC_SEQ_CST);
  __atomic_store_n(magic, magic_value(), __ATOMIC_SEQ_CST);
}

/* A full fence around the counter stores.  ThreadSanitizer does not model
 * stand-alone fences (gcc rejects them under -Werror=tsan); the seq_cst
 * stores alone already order the counter against the rename system call. */
#if defined(__SANITIZE_THREAD__)
#define OLC_NO_FENCE 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define OLC_NO_FENCE 1
#endif
#endif
static void gen_fence(void) {
#ifndef OLC_NO_FENCE
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

void olc_persist__gen_odd(void *base) {
  uint64_t g;
  if (base == NULL)
    return;
  /* Odd and different from any value a reader may have settled on: +1
   * from even, +2 from the odd value a killed writer left. */
  g = __atomic_load_n(gen_ptr(base), __ATOMIC_SEQ_CST);
  __atomic_store_n(gen_ptr(base), g + 1u + (g & 1u), __ATOMIC_SEQ_CST);
  /* The odd value must be visible to every process before the rename is:
   * a full fence before the system call. */
  gen_fence();
}

void olc_persist__gen_even(void *base) {
  uint64_t g;
  if (base == NULL)
    return;
  gen_fence();
  g = __atomic_load_n(gen_ptr(base), __ATOMIC_SEQ_CST);
  __atomic_store_n(gen_ptr(base), g + (g & 1u ? 1u : 2u), __ATOMIC_SEQ_CST);
}

int olc_persist__gen_valid(const void *base) {
  return __atomic_load_n((const uint64_t *)base, __ATOMIC_ACQUIRE) == magic_value();
}

uint64_t olc_persist__gen_load(const void *base) {
  return __atomic_load_n(gen_cptr(base), __ATOMIC_ACQUIRE);
}

/* ---- reader side ---- */

/* The generation and the mapping it was read from, in one word: a value
 * settled through an older mapping never matches a newer one. */
static uint64_t pack(uint64_t gen, uint64_t epoch) { return gen << 3 | epoch; }

olc_status olc_persist__watch_open(olc_persist_watch *w, const char *path, olc_error *err) {
  size_t n;
  int64_t hooked;
  if (w == NULL || path == NULL)
    return olc_error__set(err, OLC_E_INVALID, "watch", "no watch or no path");
  memset(w, 0, sizeof *w);
  w->seen = OLC_PERSIST_GEN_NONE;
  hooked = olc_persist__hook_watch_recheck_ms();
  w->interval_ms = hooked > 0 ? hooked : OLC_PERSIST_WATCH_RECHECK_MS;
  n = strlen(path);
  w->lock_path = malloc(n + 6);
  if (w->lock_path == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "watch", "out of memory watching '%s'", path);
  memcpy(w->lock_path, path, n);
  memcpy(w->lock_path + n, ".lock", 6);
  /* recheck_at = 0: the first begin maps P.lock. */
  return OLC_OK;
}

void olc_persist__watch_close(olc_persist_watch *w) {
  int i;
  if (w == NULL)
    return;
  for (i = 0; i < w->nmaps; i++)
    olc_persist__gen_unmap(w->maps[i].base, w->maps[i].handle);
  free(w->lock_path);
  memset(w, 0, sizeof *w);
  w->seen = OLC_PERSIST_GEN_NONE;
}

int olc_persist__watch_quiet(olc_persist_watch *w) {
  const olc_persist_watch_map *m = __atomic_load_n(&w->cur, __ATOMIC_ACQUIRE);
  uint64_t g;
  if (m == NULL)
    return 0;
  g = olc_persist__gen_load(m->base);
  if ((g & 1u) != 0 || pack(g, m->epoch) != __atomic_load_n(&w->seen, __ATOMIC_ACQUIRE))
    return 0;
  return olc_persist__coarse_ms() < __atomic_load_n(&w->recheck_at, __ATOMIC_RELAXED);
}

/* Is the mapping still the file named P.lock?  Maps it when it is not (or
 * when nothing is mapped yet).  Caller holds w->busy. */
static void recheck(olc_persist_watch *w) {
  olc_persist_watch_map *old = w->cur, *m;
  if (old != NULL) {
    olc_file_id now;
    if (olc_persist__stat(&now, w->lock_path, NULL) == OLC_OK && now.exists &&
        now.dev == old->id.dev && now.ino == old->id.ino && olc_persist__gen_valid(old->base))
      return; /* still ours */
  }
  if (w->nmaps == OLC_PERSIST_WATCH_MAPS) {
    /* P.lock keeps being replaced: compare identities from now on. */
    __atomic_store_n(&w->cur, (olc_persist_watch_map *)NULL, __ATOMIC_RELEASE);
    if (__atomic_load_n(&w->degraded, __ATOMIC_RELAXED) == 0)
      __atomic_store_n(&w->degraded, 1, __ATOMIC_RELEASE);
    return;
  }
  m = &w->maps[w->nmaps];
  if (olc_persist__gen_map_read(&m->base, &m->handle, &m->id, w->lock_path) != 0)
    return; /* none yet, or not mappable: identities only, retried later */
  m->epoch = (uint64_t)w->nmaps + 1u;
  w->nmaps++;
  __atomic_store_n(&w->cur, m, __ATOMIC_RELEASE);
}

olc_persist_watch_token olc_persist__watch_begin(olc_persist_watch *w) {
  olc_persist_watch_token t;
  const olc_persist_watch_map *m;
  int64_t now = olc_persist__coarse_ms();
  t.gen = OLC_PERSIST_GEN_NONE;
  t.epoch = 0;
  if (w->lock_path == NULL)
    return t;
  if (now >= __atomic_load_n(&w->recheck_at, __ATOMIC_RELAXED) &&
      __atomic_exchange_n(&w->busy, 1, __ATOMIC_ACQUIRE) == 0) {
    recheck(w);
    __atomic_store_n(&w->recheck_at, now + w->interval_ms, __ATOMIC_RELAXED);
    __atomic_store_n(&w->busy, 0, __ATOMIC_RELEASE);
  }
  m = __atomic_load_n(&w->cur, __ATOMIC_ACQUIRE);
  if (m == NULL)
    return t;
  t.gen = olc_persist__gen_load(m->base);
  t.epoch = m->epoch;
  if ((t.gen & 1u) != 0)
    t.gen = OLC_PERSIST_GEN_NONE; /* a writer is at work (or was killed at work) */
  return t;
}

void olc_persist__watch_settle(olc_persist_watch *w, olc_persist_watch_token token) {
  if (token.gen == OLC_PERSIST_GEN_NONE)
    return;
  /* A thread settling an older token only costs a later quiet answer: the
   * value it stores no longer matches, so that lookup compares identities. */
  __atomic_store_n(&w->seen, pack(token.gen, token.epoch), __ATOMIC_RELEASE);
}

int olc_persist__watch_degraded(olc_persist_watch *w) {
  int one = 1;
  return w != NULL &&
         __atomic_compare_exchange_n(&w->degraded, &one, 2, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

uint64_t olc_persist__watch_gen(olc_persist_watch *w) {
  const olc_persist_watch_map *m = w != NULL ? __atomic_load_n(&w->cur, __ATOMIC_ACQUIRE) : NULL;
  return m != NULL ? olc_persist__gen_load(m->base) : OLC_PERSIST_GEN_NONE;
}
