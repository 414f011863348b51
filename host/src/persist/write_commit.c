/*
 * persist/write_commit.c - W10 of the write sequence (write_sequence.c): the commit
 * point, which must replace exactly the file the writer merged.  When it
 * displaced another writer's file instead (P.lock deleted or replaced
 * while held), that file is merged in and committed again.  Platform
 * neutral, over the primitives of write_int.h.
 */
#include "persist/write_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/platform.h"

/* Commits of one update that each displaced another writer's file. */
#define WRITE_MERGE_ROUNDS 64

typedef olc_persist__writer writer;

static void transient_pause(int tries) { olc_util__sleep_ms(25 * (int64_t)(tries + 1)); }

static long retry_rename(writer *w, const char *from, const char *to) {
  long e = 0;
  int tries;
  for (tries = 0; tries < OLC_PERSIST__TRANSIENT_TRIES; tries++) {
    e = olc_persist__os_rename(w, from, to);
    if (!olc_persist__os_is_transient(e))
      break;
    transient_pause(tries);
  }
  return e;
}

/* An entry that may hold a file displaced from P that no file in P
 * descends from yet. */
typedef struct lineage_scan {
  const char *base;
  const char *own;
  int found;
} lineage_scan;

static int lineage_entry(const char *name, void *ctx) {
  lineage_scan *s = ctx;
  s->found = olc_persist__maybe_orphan(name, s->base, s->own);
  return s->found;
}

/* 1 when, right after the exchange, nothing beside P may hold a file
 * displaced from P that no file in P descends from yet (another writer's
 * orphan or temporary, a kept displaced file; the orphan just taken out,
 * under the name own, aside).  Writers on a replaced P.lock may each have
 * merged an older P: one whose commit took out a file it did not merge
 * keeps that file under its temporary's name until a commit of its own
 * merged it in.  Only with none such does the displaced file descend from
 * the one this writer merged (P's history is then linear), so that a
 * record the ancestor has and it lacks was removed, not never seen.  A
 * directory that cannot be read proves nothing. */
static int lineage_linear(writer *w, const char *own) {
  lineage_scan s;
  s.base = w->base;
  s.own = own;
  s.found = 0;
  return olc_persist__os_list(w, lineage_entry, &s) == 0 && !s.found;
}

/* The rename of W10 where the file system cannot exchange: the window of
 * docs/durability.md that remains there (README, "Durability"). */
static long plain_rename(writer *w) {
  long e = retry_rename(w, w->tmp, w->base);
  if (e == 0)
    w->tmp_created = 0;
  return e;
}

/* After the exchange: the file now named aside is the old P (removed), or
 * another writer's, which is merged again (absorbing the merged file
 * itself changes nothing) unless there is no absorb: a file replaced
 * whole keeps the last commit, as a rename would. */
static long after_exchange(writer *w, const char *aside, int *again) {
  olc_file_id d;
  long e = olc_persist__os_identify(w, aside, &d);
  if (olc_persist__os_is_absent(e))
    return 0; /* removed already: nothing left to merge */
  if ((e == 0 && d.dev == w->old_id.dev && d.ino == w->old_id.ino) || w->opt.absorb == NULL) {
    /* A leftover (a failed removal) is a dead writer's temporary to the
     * next writer's garbage collection. */
    (void)olc_persist__os_unlink(w, aside);
    return 0;
  }
  snprintf(w->orphan, sizeof w->orphan, "%s", aside);
  w->linear = lineage_linear(w, w->orphan);
  *again = 1;
  return 0;
}

/* The temporary becomes P.  A P.lock deleted or replaced while held lets
 * another writer commit between this one's reload and here; a rename would
 * then silently drop that writer's saves.  So the temporary is exchanged
 * with P, and what comes out must be the file merged (held open since the
 * reload so that its identity cannot be reused); anything else is another
 * writer's file, kept as the orphan, *again = 1.  Where P was absent,
 * nothing is replaced: a P created since also asks for another merge.
 * 0 or an error code. */
static long replace_p(writer *w, int *again) {
  char aside[OLC_PERSIST__NAME_MAX];
  long e = 0;
  int tries;
  *again = 0;
  if (w->os.no_exchange || olc_persist__hook_disabled(OLC_PERSIST__SAFETY_EXCHANGE))
    return plain_rename(w);
  if (w->old_exists && w->os.base != -1) {
    for (tries = 0; tries < OLC_PERSIST__TRANSIENT_TRIES; tries++) {
      e = olc_persist__os_exchange(w, aside, sizeof aside);
      if (!olc_persist__os_is_transient(e))
        break;
      transient_pause(tries);
    }
    if (e == 0) {
      w->tmp_created = 0;
      return after_exchange(w, aside, again);
    }
    if (olc_persist__os_is_unsupported(e)) {
      w->os.no_exchange = 1;
      return plain_rename(w);
    }
    if (!olc_persist__os_is_absent(e))
      return e;
    /* P was removed since the reload: put ours there, replacing nothing. */
  }
  e = olc_persist__os_move_new(w);
  if (e == 0) {
    w->tmp_created = 0;
    return 0;
  }
  if (olc_persist__os_is_unsupported(e)) {
    w->os.no_exchange = 1;
    return plain_rename(w);
  }
  if (olc_persist__os_is_exists(e)) {
    *again = 1;
    return 0;
  }
  return e;
}

/* W10, the commit point: the temporary replaces P.  *again: merge again
 * (replace_p). */
static olc_status commit_rename(writer *w, int first, int *again, olc_error *err) {
  /* Odd first: a reader that saw the old even value must not trust it
   * once the new P can be seen.  A counter that cannot be moved would
   * hide this write from readers: nothing is renamed then. */
  long e = w->gen_odd ? 0 : olc_persist__os_gen_bump(w, 1);
  int hooked;
  *again = 0;
  if (e != 0)
    return olc_persist__os_error(err, OLC_STEP_RENAME, e, "cannot update the lock file of",
                                 w->path);
  w->gen_odd = 1;
  /* Someone replaced P.lock since it was locked: a writer that opened the
   * new one may be past its reload now.  Start again under that lock
   * rather than race it (checked last, right before the rename, to leave
   * the least time in between).  Not once a displaced file was taken out
   * of P: its records are in this writer's hands only. */
  if (first && !olc_persist__os_lock_current(w)) {
    w->lost_lock = 1;
    return olc_error__set(err, OLC_E_LOCK, "rename",
                          "the lock file '%s.lock' was replaced during the write", w->path);
  }
  hooked = olc_persist__hook_fail(OLC_STEP_RENAME);
  if (hooked != 0)
    return olc_persist__write_hooked(err, OLC_STEP_RENAME, hooked, "cannot replace", w->path);
  e = replace_p(w, again);
  if (e != 0)
    return olc_persist__os_error(err, OLC_STEP_RENAME, e, "cannot replace", w->path);
  return OLC_OK;
}

/* The orphan's bytes and P as it is now (held open again). */
static olc_status reread(writer *w, int orphan, olc_error *err) {
  olc_status st = OLC_OK;
  olc_persist__os_base_close(w);
  if (w->tmp_created && olc_persist__os_unlink(w, w->tmp) == 0)
    w->tmp_created = 0; /* not committed (a P created since) */
  olc_buf__reset(&w->both);
  olc_buf__reset(&w->next);
  if (orphan) {
    olc_buf__reset(&w->displaced);
    st = olc_persist__os_read_name(w, w->orphan, &w->displaced, err);
  }
  w->known = NULL; /* P is read */
  w->base_known = 0;
  if (st == OLC_OK)
    st = olc_persist__write_reload(w, err);
  return st;
}

/* P now with the orphan's records absorbed: the next temporary's content. */
static olc_status merge_again(writer *w, int orphan, olc_persist_transform_fn transform,
                              void *payload, olc_error *err) {
  const unsigned char *base;
  size_t len;
  int unchanged = 0;
  olc_status st = reread(w, orphan, err);
  if (st != OLC_OK)
    return st;
  base = w->old.data;
  len = w->old.len;
  if (orphan && w->opt.absorb != NULL) {
    st = w->opt.absorb(&w->both, w->old.data, w->old.len, w->old_exists, w->ancestor.data,
                       w->ancestor.len, w->ancestor_exists, w->displaced.data, w->displaced.len,
                       payload, err);
    if (st != OLC_OK) {
      if (err != NULL && err->code == OLC_OK)
        olc_error__set(err, st, "merge", "cannot merge the file displaced from '%s'", w->path);
      return st;
    }
    base = w->both.data;
    len = w->both.len;
  }
  st = transform(&w->next, &unchanged, base, len, base != w->old.data ? 1 : w->old_exists, payload,
                 err);
  if (st == OLC_OK && unchanged) { /* P must still be written: the orphan's records */
    olc_buf__reset(&w->next);
    st = olc_buf__append(&w->next, base, len);
  }
  if (st != OLC_OK && err != NULL && err->code == OLC_OK)
    olc_error__set(err, st, "merge", "merge failed for '%s'", w->path);
  return st;
}

/* The file merged in the round whose commit just displaced another
 * writer's: the ancestor of the three-way merge (persist.h, absorb), when
 * that writer's file descends from it (linear); else none, and absorb's
 * union keeps every record.  Not read under the W3 shortcut: read then
 * through the file held since the reload. */
static olc_status keep_ancestor(writer *w, int linear, olc_error *err) {
  olc_buf t;
  olc_buf__reset(&w->ancestor);
  w->ancestor_exists = linear && w->old_exists;
  if (!w->ancestor_exists)
    return OLC_OK;
  if (!w->base_known) {
    t = w->ancestor;
    w->ancestor = w->old;
    w->old = t;
    return OLC_OK;
  }
  return olc_persist__os_base_read(w, &w->ancestor, err);
}

/* W10 and, when the commit displaced another writer's file or found a P
 * created since, the merge of what is there now and another commit, until
 * a commit replaced exactly the file it merged (WRITE_MERGE_ROUNDS rounds
 * at most: then the displaced file is kept beside P). */
olc_status olc_persist__write_commit(writer *w, olc_file_id *new_id,
                                     olc_persist_transform_fn transform, void *payload,
                                     olc_error *err) {
  int round, again = 0;
  olc_status st = OLC_OK;
  unsigned char r;
  char merged[OLC_PERSIST__NAME_MAX];
  for (round = 0; st == OLC_OK; round++) {
    int had = w->have_orphan, orphan;
    if (had)
      memcpy(merged, w->orphan, sizeof merged);
    st = commit_rename(w, round == 0, &again, err);
    if (st != OLC_OK)
      break;
    orphan = again && !w->tmp_created; /* something was displaced */
    if (had && !w->tmp_created) {
      /* The earlier orphan's records are in the file just committed. */
      (void)olc_persist__os_unlink(w, merged);
      w->have_orphan = orphan;
    } else if (orphan) {
      w->have_orphan = 1;
    }
    if (orphan && (st = keep_ancestor(w, w->linear, err)) != OLC_OK)
      break;
    if (!again)
      break;
    if (round + 1 >= WRITE_MERGE_ROUNDS)
      return olc_error__set(err, OLC_E_LOCK, "rename",
                            "the lock file '%s.lock' keeps being replaced during the write",
                            w->path);
    /* Writers merging each other's files again at once would keep
     * displacing each other: a random pause, growing, breaks the tie. */
    olc_persist__random(&r, 1);
    olc_util__sleep_ms((int64_t)(r % (1u << (round < 5 ? round + 1 : 6))));
    st = merge_again(w, w->have_orphan, transform, payload, err);
    if (st == OLC_OK)
      st = olc_persist__write_create_tmp(w, err);
    if (st == OLC_OK)
      st = olc_persist__write_tmp(w, new_id, err);
  }
  return st;
}

/* A displaced file whose records could not be merged into P leaves the
 * temporaries' names (which the garbage collection removes) for
 * "<base>.displaced-<pid>.<hex>", named in the error, so that its saves can
 * still be recovered (olc import). */
void olc_persist__write_keep_orphan(writer *w, olc_error *err) {
  char kept[OLC_PERSIST__NAME_MAX + 16];
  size_t bl = strlen(w->base), n = strlen(w->orphan);
  size_t len;
  int k;
  if (n < bl + 5)
    return;
  k = snprintf(kept, sizeof kept, "%s.displaced-%.*s", w->base, (int)(n - bl - 5),
               w->orphan + bl + 1);
  if (k < 0 || (size_t)k >= sizeof kept || /* (never: orphan is base plus a suffix) */
      olc_persist__os_rename(w, w->orphan, kept) != 0)
    memcpy(kept, w->orphan, sizeof w->orphan); /* still under its first name */
  if (err == NULL)
    return;
  len = strlen(err->message);
  snprintf(err->message + len, sizeof err->message - len,
           "; another writer's file taken out of '%s' was kept as '%s'", w->base, kept);
}
