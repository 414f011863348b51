/*
 * persist/watch.c - the generation counter of P.lock: its header, and the
 * reader's stat-free change check (persist.h; docs/durability.md, "The change counter").  Reading
 * and writing the file itself is in gen_posix.c / gen_win32.c.
 *
 * The watch's own fields are accessed with the GCC/Clang __atomic builtins
 * (GCC and mingw-w64 GCC are the supported compilers): many threads of one
 * handle call quiet/begin/settle at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "persist/persist_int.h"
#include "util/error.h"
#include "util/platform.h"

static uint64_t magic_value(void) {
  uint64_t m;
  memcpy(&m, OLC_PERSIST__GEN_MAGIC, sizeof m);
  return m;
}

/* ---- the header ---- */

int olc_persist__gen_header_valid(const unsigned char *h) {
  uint64_t m;
  memcpy(&m, h, sizeof m);
  return m == magic_value();
}

void olc_persist__gen_header_init(unsigned char *h) {
  uint64_t zero = 0, inst;
  olc_persist__random((unsigned char *)&inst, sizeof inst);
  memcpy(h, OLC_PERSIST__GEN_MAGIC, 8);
  memcpy(h + OLC_PERSIST__GEN_OFFSET, &zero, sizeof zero);
  memcpy(h + OLC_PERSIST__GEN_INSTANCE, &inst, sizeof inst);
}

uint64_t olc_persist__gen_next_odd(uint64_t g) { return g + 1u + (g & 1u); }

uint64_t olc_persist__gen_next_even(uint64_t g) { return g + ((g & 1u) ? 1u : 2u); }

/* ---- reader side ---- */

/* The generation and the opening it was read from, in one word: a value
 * settled through an older opening never matches a newer one.  A header
 * starts at generation 0 and moves by 2 per write, so gen << 3 stays exact
 * for far longer than any store lives. */
static uint64_t pack(uint64_t gen, uint64_t epoch) { return gen << 3 | epoch; }

/* Records why the watch stopped trusting its opening, once per watch. */
static void degrade(olc_persist_watch *w, const char *why) {
  int expected = 0;
  size_t n, k;
  if (!__atomic_compare_exchange_n(&w->warn_state, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE))
    return;
  n = strlen(w->lock_path);
  k = strlen(why);
  /* "<P>.lock <why>; lookups compare file identities instead", cut to fit. */
  if (n > sizeof w->warning / 2)
    n = sizeof w->warning / 2;
  memcpy(w->warning, w->lock_path, n);
  w->warning[n++] = ' ';
  if (k > sizeof w->warning - n - 1)
    k = sizeof w->warning - n - 1;
  memcpy(w->warning + n, why, k);
  w->warning[n + k] = 0;
  __atomic_store_n(&w->warn_state, 2, __ATOMIC_RELEASE);
}

/* The current opening is no longer to be read from: the next begin that
 * rechecks opens P.lock again. */
static void drop_current(olc_persist_watch *w, const olc_persist_watch_map *m, const char *why) {
  olc_persist_watch_map *expected = (olc_persist_watch_map *)(uintptr_t)m;
  if (__atomic_compare_exchange_n(&w->cur, &expected, (olc_persist_watch_map *)NULL, 0,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    degrade(w, why);
    __atomic_store_n(&w->recheck_at, (int64_t)0, __ATOMIC_RELAXED);
  }
}

/* The generation through m, or OLC_PERSIST_GEN_NONE after dropping a
 * damaged one. */
static uint64_t read_gen(olc_persist_watch *w, const olc_persist_watch_map *m) {
  uint64_t g;
  if (olc_persist__gen_read(&m->src, &g) != 0) {
    drop_current(w, m, "was cut short, garbled or re-initialized; lookups compare file identities");
    return OLC_PERSIST_GEN_NONE;
  }
  return g;
}

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
  /* recheck_at = 0: the first begin opens P.lock. */
  return OLC_OK;
}

void olc_persist__watch_close(olc_persist_watch *w) {
  int i;
  if (w == NULL)
    return;
  for (i = 0; i < w->nmaps; i++)
    olc_persist__gen_close_read(&w->maps[i].src);
  free(w->lock_path);
  memset(w, 0, sizeof *w);
  w->seen = OLC_PERSIST_GEN_NONE;
}

int olc_persist__watch_quiet(olc_persist_watch *w) {
  const olc_persist_watch_map *m = __atomic_load_n(&w->cur, __ATOMIC_ACQUIRE);
  uint64_t g;
  if (m == NULL)
    return 0;
  g = read_gen(w, m);
  if (g == OLC_PERSIST_GEN_NONE || (g & 1u) != 0 ||
      pack(g, m->epoch) != __atomic_load_n(&w->seen, __ATOMIC_ACQUIRE))
    return 0;
  return olc_util__coarse_ms() < __atomic_load_n(&w->recheck_at, __ATOMIC_RELAXED);
}

/* Is the opening still the file named P.lock?  Opens it when it is not (or
 * when nothing is open yet).  Caller holds w->busy. */
static void recheck(olc_persist_watch *w) {
  olc_persist_watch_map *old = __atomic_load_n(&w->cur, __ATOMIC_ACQUIRE), *m;
  if (old != NULL) {
    olc_file_id now;
    uint64_t g;
    if (olc_persist__stat(&now, w->lock_path, NULL) == OLC_OK && now.exists &&
        now.dev == old->id.dev && now.ino == old->id.ino &&
        olc_persist__gen_read(&old->src, &g) == 0)
      return; /* still ours */
    drop_current(w, old, "was replaced, cut short or garbled; lookups compare file identities");
  }
  if (w->nmaps == OLC_PERSIST_WATCH_MAPS)
    return; /* P.lock keeps being damaged: compare identities from now on */
  m = &w->maps[w->nmaps];
  if (olc_persist__gen_open_read(&m->src, &m->id, w->lock_path) != 0)
    return; /* none yet, or not readable: identities only, retried later */
  m->epoch = (uint64_t)w->nmaps + 1u;
  w->nmaps++;
  __atomic_store_n(&w->cur, m, __ATOMIC_RELEASE);
}

olc_persist_watch_token olc_persist__watch_begin(olc_persist_watch *w) {
  olc_persist_watch_token t;
  const olc_persist_watch_map *m;
  int64_t now = olc_util__coarse_ms();
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
  t.gen = read_gen(w, m);
  t.epoch = m->epoch;
  if (t.gen != OLC_PERSIST_GEN_NONE && (t.gen & 1u) != 0)
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

uint64_t olc_persist__watch_gen(olc_persist_watch *w) {
  const olc_persist_watch_map *m = w != NULL ? __atomic_load_n(&w->cur, __ATOMIC_ACQUIRE) : NULL;
  uint64_t g;
  return m != NULL && olc_persist__gen_read(&m->src, &g) == 0 ? g : OLC_PERSIST_GEN_NONE;
}

int olc_persist__watch_warning(olc_persist_watch *w, char *msg, size_t size) {
  int ready = 2;
  if (w == NULL || w->lock_path == NULL ||
      !__atomic_compare_exchange_n(&w->warn_state, &ready, 3, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE))
    return 0;
  if (msg != NULL && size > 0)
    snprintf(msg, size, "%s", w->warning);
  return 1;
}
