/*
 * persist/write_sequence.c - the locked reload-merge-replace of docs/durability.md
 * (steps W0-W13), once for every platform: the order of the steps,
 * their fault and crash hooks, the retries (a temporary's name taken, a
 * lost P.lock, a replace that displaced another writer's file, transient
 * sharing errors) and the abort path.  The platform's primitives
 * (write_posix.c, write_win32.c) only open, lock, create, write, sync and
 * rename.
 */
#include "persist/write_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/platform.h"

typedef olc_persist__writer writer;

/* An error injected by a hook: an errno on every platform. */
olc_status olc_persist__write_hooked(olc_error *err, olc_step step, int e, const char *what,
                                     const char *name) {
  return olc_error__sys(err, olc_persist__errno_status(e, OLC_E_IO), e, olc_step__name(step),
                        "%s '%s'", what, name);
}

/* W3 shortcut (olc_persist__update_known): under the lock, the P.lock
 * counter that every locked writer moves around its change of P still has
 * the caller's generation and instance, and P still has the caller's
 * identity.  Either alone is not proof: a writer may reuse the inode
 * number, keep the size and land within the mtime's granularity, and a
 * writer that bypasses the lock never moves the counter.  P is held open:
 * the commit compares what it replaces with this file, whose identity no
 * other file can take while it is open. */
static int still_known(writer *w) {
  const olc_persist_known *k = w->known;
  uint64_t gen, instance;
  olc_file_id now;
  if (k == NULL || !k->id.exists || k->gen == OLC_PERSIST_GEN_NONE || (k->gen & 1u) != 0)
    return 0;
  if (!olc_persist__hook_disabled(OLC_PERSIST__SAFETY_GENCHECK) &&
      (olc_persist__os_gen_get(w, &gen, &instance) != 0 || gen != k->gen ||
       instance != k->instance))
    return 0;
  if (olc_persist__os_base_open(w, &now) != 0)
    return 0;
  if (!olc_file_id__equal(&now, &k->id)) {
    olc_persist__os_base_close(w);
    return 0;
  }
  w->old_id = now;
  return 1;
}

/* W3: the file as it is now, read under the lock, held open until the
 * commit. */
olc_status olc_persist__write_reload(writer *w, olc_error *err) {
  long e = olc_persist__hook_fail(OLC_STEP_RELOAD);
  olc_status st;
  memset(&w->old_id, 0, sizeof w->old_id);
  olc_buf__reset(&w->old);
  if (e == 0 && still_known(w)) {
    w->old_exists = 1;
    w->base_known = 1;
    olc_persist__hook_crash(OLC_STEP_RELOAD);
    return OLC_OK;
  }
  if (e == ENOENT) {
    w->old_exists = 0;
    olc_persist__hook_crash(OLC_STEP_RELOAD);
    return OLC_OK;
  }
  if (e != 0)
    return olc_persist__write_hooked(err, OLC_STEP_RELOAD, (int)e, "cannot open", w->path);
  e = olc_persist__os_base_open(w, &w->old_id);
  if (olc_persist__os_is_absent(e)) {
    memset(&w->old_id, 0, sizeof w->old_id);
    w->old_exists = 0;
    olc_persist__hook_crash(OLC_STEP_RELOAD);
    return OLC_OK;
  }
  if (e != 0)
    return olc_persist__os_error(err, OLC_STEP_RELOAD, e, "cannot open", w->path);
  st = olc_persist__os_base_read(w, &w->old, err);
  if (st != OLC_OK) {
    olc_persist__os_base_close(w);
    return st;
  }
  w->old_exists = 1;
  olc_persist__hook_crash(OLC_STEP_RELOAD);
  return OLC_OK;
}

/* W6: a fresh, unique sibling (or, as a negative control, P itself). */
olc_status olc_persist__write_create_tmp(writer *w, olc_error *err) {
  int tries;
  long e = 0;
  if (olc_persist__hook_disabled(OLC_SAFETY_RENAME)) {
    /* Negative control: in-place rewrite, the unsafe way. */
    e = olc_persist__os_tmp_create(w, 1);
    if (e != 0)
      return olc_persist__os_error(err, OLC_STEP_TMP_CREATE, e, "cannot open", w->path);
    olc_persist__hook_crash(OLC_STEP_TMP_CREATE);
    return OLC_OK;
  }
  for (tries = 0; tries < OLC_PERSIST__TMP_TRIES; tries++) {
    int hooked;
    if (olc_persist__tmp_name(w->tmp, sizeof w->tmp, w->base, olc_persist__os_tmp_tag()) != 0)
      return olc_error__set(err, OLC_E_INVALID, "tmp-create", "file name too long: '%s'", w->path);
    hooked = olc_persist__hook_fail(OLC_STEP_TMP_CREATE);
    if (hooked == EEXIST)
      continue;
    if (hooked != 0)
      return olc_persist__write_hooked(err, OLC_STEP_TMP_CREATE, hooked,
                                       "cannot create a temporary file next to", w->path);
    e = olc_persist__os_tmp_create(w, 0);
    if (!olc_persist__os_is_exists(e))
      break;
  }
  if (tries == OLC_PERSIST__TMP_TRIES)
    return olc_persist__write_hooked(err, OLC_STEP_TMP_CREATE, EEXIST,
                                     "cannot create a temporary file next to", w->path);
  if (e != 0)
    return olc_persist__os_error(err, OLC_STEP_TMP_CREATE, e,
                                 "cannot create a temporary file next to", w->path);
  w->tmp_created = 1;
  olc_persist__hook_crash(OLC_STEP_TMP_CREATE);
  return OLC_OK;
}

/* W7-W9: write everything, sync once (never retried), close and check. */
olc_status olc_persist__write_tmp(writer *w, olc_file_id *new_id, olc_error *err) {
  size_t half = w->next.len / 2;
  long e = olc_persist__os_tmp_write(w, w->next.data, half);
  int hooked = 0;
  olc_persist__hook_crash_half();
  if (e == 0 && (hooked = olc_persist__hook_fail(OLC_STEP_WRITE)) == 0)
    e = olc_persist__os_tmp_write(w, w->next.data + half, w->next.len - half);
  if (hooked != 0)
    return olc_persist__write_hooked(err, OLC_STEP_WRITE, hooked, "cannot write", w->path);
  if (e != 0)
    return olc_persist__os_error(err, OLC_STEP_WRITE, e, "cannot write", w->path);
  olc_persist__hook_crash(OLC_STEP_WRITE);
  if (olc_persist__hook_disabled(OLC_PERSIST__SAFETY_ORDER) &&
      olc_persist__os_rename(w, w->tmp, w->base) == 0)
    w->tmp_created = 0; /* negative control: the rename comes before the sync */
  if (!olc_persist__hook_disabled(OLC_SAFETY_FSYNC)) {
    hooked = olc_persist__hook_fail(OLC_STEP_FSYNC);
    if (hooked != 0)
      return olc_persist__write_hooked(err, OLC_STEP_FSYNC, hooked, "cannot sync", w->path);
    e = olc_persist__os_tmp_sync(w);
    if (e != 0)
      return olc_persist__os_error(err, OLC_STEP_FSYNC, e, "cannot sync", w->path);
  }
  olc_persist__hook_crash(OLC_STEP_FSYNC);
  e = olc_persist__os_tmp_close(w, new_id);
  if (e != 0)
    return olc_persist__os_error(err, OLC_STEP_CLOSE, e, "cannot close", w->path);
  hooked = olc_persist__hook_fail(OLC_STEP_CLOSE);
  if (hooked != 0)
    return olc_persist__write_hooked(err, OLC_STEP_CLOSE, hooked, "cannot close", w->path);
  olc_persist__hook_crash(OLC_STEP_CLOSE);
  return OLC_OK;
}

/* W11: after the commit point a failure is "committed, unsynced"; a file
 * system that cannot sync a directory is no failure (SQLite). */
static olc_status sync_dir(writer *w, olc_error *err) {
  int hooked;
  long e;
  if (olc_persist__hook_disabled(OLC_SAFETY_DIRSYNC))
    return OLC_OK;
  hooked = olc_persist__hook_fail(OLC_STEP_DIR_FSYNC);
  if (hooked == EINVAL || hooked == ENOTSUP || hooked == EOPNOTSUPP)
    return OLC_OK;
  if (hooked != 0)
    return olc_error__sys(err, OLC_COMMITTED_UNSYNCED, hooked, "dir-fsync",
                          "'%s' was replaced but syncing its directory failed", w->path);
  e = olc_persist__os_sync_dir(w); /* an errno: Windows has nothing to sync */
  if (e == 0 || olc_persist__os_is_unsupported(e))
    return OLC_OK;
  return olc_error__sys(err, OLC_COMMITTED_UNSYNCED, (int)e, "dir-fsync",
                        "'%s' was replaced but syncing its directory failed", w->path);
}

/* The identity of P after the call, and the counter read under the lock. */
static void note_after(writer *w, olc_persist_known *after, const olc_file_id *id) {
  if (after == NULL)
    return;
  after->id = *id;
  if (olc_persist__os_gen_get(w, &after->gen, &after->instance) != 0 || (after->gen & 1u) != 0)
    after->gen = OLC_PERSIST_GEN_NONE;
}

/* W1-W3: the directory, the target check, the lock, the counter and the
 * file as it is under the lock. */
static olc_status lock_and_reload(writer *w, olc_error *err) {
  olc_status st = olc_persist__os_open_dir(w, err);
  if (st == OLC_OK)
    st = olc_persist__os_check_target(w, err);
  if (st == OLC_OK)
    st = olc_persist__os_lock(w, err);
  if (st == OLC_OK)
    st = olc_persist__write_reload(w, err);
  return st;
}

/* W4: the caller merges into what is on disk now. */
static olc_status merge(writer *w, int *unchanged, olc_persist_transform_fn transform,
                        void *payload, olc_error *err) {
  olc_status st;
  int e = olc_persist__hook_fail(OLC_STEP_MERGE);
  if (e != 0)
    return olc_persist__write_hooked(err, OLC_STEP_MERGE, e, "merge failed for", w->path);
  st = transform(&w->next, unchanged, w->old.data, w->old.len,
                 w->base_known ? OLC_PERSIST_BASE_KNOWN : w->old_exists, payload, err);
  if (st != OLC_OK) {
    if (err != NULL && err->code == OLC_OK)
      olc_error__set(err, st, "merge", "merge failed for '%s'", w->path);
    return st;
  }
  olc_persist__hook_crash(OLC_STEP_MERGE);
  return OLC_OK;
}

/* W5: the clean-up removes other writers' temporaries, so only under a
 * lock that still excludes them. */
static olc_status clean_up(writer *w, olc_error *err) {
  long e;
  if (!olc_persist__os_lock_current(w)) {
    w->lost_lock = 1;
    return olc_error__set(err, OLC_E_LOCK, "gc",
                          "the lock file '%s.lock' was replaced during the write", w->path);
  }
  olc_persist__os_gc(w);
  olc_persist__hook_crash(OLC_STEP_GC);
  if (olc_persist__hook_disabled(OLC_SAFETY_RENAME)) {
    e = olc_persist__os_gen_bump(w, 1); /* the in-place control changes P from here on */
    if (e != 0)
      return olc_persist__os_error(err, OLC_STEP_LOCK, e, "cannot update the lock file of",
                                   w->path);
    w->gen_odd = 1;
  }
  return OLC_OK;
}

static olc_status run_update(writer *w, olc_persist_known *after, int *written,
                             olc_persist_transform_fn transform, void *payload, olc_error *err) {
  olc_status st;
  int unchanged = 0;
  olc_file_id new_id;
  st = lock_and_reload(w, err);
  if (st == OLC_OK)
    st = merge(w, &unchanged, transform, payload, err);
  if (st != OLC_OK)
    return st;
  if (unchanged) {
    if (w->old_exists)
      note_after(w, after, &w->old_id);
    return OLC_OK;
  }
  st = clean_up(w, err);
  if (st == OLC_OK)
    st = olc_persist__write_create_tmp(w, err);
  if (st == OLC_OK)
    st = olc_persist__write_tmp(w, &new_id, err);
  if (st == OLC_OK && w->tmp_created)
    st = olc_persist__write_commit(w, &new_id, transform, payload, err);
  if (st != OLC_OK)
    return st;
  olc_persist__hook_crash(OLC_STEP_RENAME);
  /* Even after the rename (the crash hook may stop before).  A failure
   * leaves it odd: readers then compare identities, which is safe. */
  (void)olc_persist__os_gen_bump(w, 0);
  w->gen_odd = 0;
  if (written != NULL)
    *written = 1;
  note_after(w, after, &new_id); /* a counter left odd: gen unknown */
  st = sync_dir(w, err);
  olc_persist__hook_crash(OLC_STEP_DIR_FSYNC);
  return st;
}

/* A temporary that could not be removed (an append-only or immutable
 * directory) is named in the error, so it can be found and removed.  The
 * name must survive the message's size: after the error when both fit,
 * else first (the error cut short), else its file name alone first (it
 * lies beside the store). */
static void name_leftover(const writer *w, long e, olc_error *err) {
  char was[sizeof err->message], *m;
  const char *why;
  char buf[96];
  size_t cap, dl;
  int n;
  if (err == NULL)
    return;
  m = err->message;
  cap = sizeof err->message;
  memcpy(was, m, cap);
  dl = (size_t)(w->base - w->path);
  why = olc_persist__os_strerror(e, buf, sizeof buf);
  n = snprintf(m, cap, "%s; the temporary '%.*s%s' could not be removed (%s)", was, (int)dl,
               w->path, w->tmp, why);
  if (n >= 0 && (size_t)n < cap)
    return;
  n = snprintf(m, cap, "the temporary '%.*s%s' not removed (%s): %s", (int)dl, w->path, w->tmp, why,
               was);
  if (n >= 0 && (size_t)(n - (int)strlen(was)) < cap)
    return;
  n = snprintf(m, cap, "the temporary '%s' beside the store could not be removed (%s) after: %s",
               w->tmp, why, was);
  if (n < 0) /* (cut short, at worst, after the name) */
    memcpy(m, was, cap);
}

/* Removes the temporary, retrying a transient sharing error briefly (the
 * garbage collection takes what remains). */
static long remove_tmp(writer *w) {
  long e = 0;
  int tries;
  for (tries = 0; tries < OLC_PERSIST__TRANSIENT_TRIES / 2; tries++) {
    e = olc_persist__os_unlink(w, w->tmp);
    if (!olc_persist__os_is_transient(e))
      break;
    olc_util__sleep_ms(10);
  }
  return olc_persist__os_is_absent(e) ? 0 : e;
}

/* Undoes what an attempt left: the temporary (before the commit point),
 * a displaced file not merged, the counter's odd value, the lock, the
 * directory. */
static void finish_attempt(writer *w, olc_status st, olc_error *err) {
  long e;
  if (w->os.tmp != -1)
    (void)olc_persist__os_tmp_close(w, NULL);
  olc_persist__os_base_close(w);
  if (w->have_orphan)
    olc_persist__write_keep_orphan(w, err);
  w->have_orphan = 0;
  /* Abort before the commit point: the temporary goes. */
  if (w->tmp_created && (e = remove_tmp(w)) != 0)
    name_leftover(w, e, err);
  w->tmp_created = 0;
  if (w->gen_odd)
    (void)olc_persist__os_gen_bump(w, 0); /* failed rename: even again (a new value) */
  w->gen_odd = 0;
  if (w->os.lock != -1 || st == OLC_OK || st == OLC_COMMITTED_UNSYNCED)
    olc_persist__os_unlock(w); /* W13 */
  olc_persist__os_close_dir(w);
  olc_buf__reset(&w->old);
}

olc_status olc_persist__update(olc_file_id *new_id, int *written, const char *path,
                               const olc_persist_options *options,
                               olc_persist_transform_fn transform, void *payload, olc_error *err) {
  olc_persist_known after;
  olc_status st = olc_persist__update_known(&after, written, path, options, NULL, NULL, transform,
                                            payload, err);
  if (new_id != NULL)
    *new_id = after.id;
  return st;
}

/* The writer for path, or a failure (the caller's block freed). */
static olc_status writer_init(writer *w, olc_buf *spare, const char *path,
                              const olc_persist_options *options, const olc_persist_known *known,
                              olc_error *err) {
  olc_status st;
  memset(w, 0, sizeof *w);
  w->os.dir = w->os.lock = w->os.tmp = w->os.base = -1;
  w->next = *spare;
  w->path = path;
  w->known = known;
  olc_persist__options(&w->opt, options);
  olc_persist__hooks_init();
  st = olc_persist__split(&w->dir, &w->base, path, err);
  if (st == OLC_OK)
    st = olc_persist__os_init(w, err);
  if (st != OLC_OK) {
    olc_buf__free(&w->next);
    free(w->dir);
  }
  return st;
}

static void writer_free(writer *w) {
  olc_persist__os_free(w);
  olc_buf__free(&w->old);
  olc_buf__free(&w->next);
  olc_buf__free(&w->displaced);
  olc_buf__free(&w->both);
  olc_buf__free(&w->ancestor);
  free(w->dir);
}

olc_status olc_persist__update_known(olc_persist_known *after, int *written, const char *path,
                                     const olc_persist_options *options,
                                     const olc_persist_known *known, olc_buf *kept,
                                     olc_persist_transform_fn transform, void *payload,
                                     olc_error *err) {
  writer w;
  olc_buf spare = OLC_BUF_INIT;
  olc_status st;
  int tries, wrote = 0;
  /* A stale error must not survive into this call's report. */
  olc_error_clear(err);
  if (written != NULL)
    *written = 0;
  if (kept != NULL) { /* its storage becomes the output's */
    spare = *kept;
    memset(kept, 0, sizeof *kept);
  }
  if (after != NULL) {
    memset(after, 0, sizeof *after);
    after->gen = OLC_PERSIST_GEN_NONE;
  }
  if (path == NULL || transform == NULL) {
    olc_buf__free(&spare);
    return olc_error__set(err, OLC_E_INVALID, "update", "no path or no transform");
  }
  st = writer_init(&w, &spare, path, options, known, err);
  if (st != OLC_OK)
    return st;
  olc_persist__os_mutex(1); /* W0 */
  for (tries = 0; tries < OLC_PERSIST__LOCK_TRIES; tries++) {
    w.lost_lock = 0;
    w.base_known = 0;
    olc_buf__reset(&w.next); /* each attempt's transform starts empty */
    st = run_update(&w, after, &wrote, transform, payload, err);
    finish_attempt(&w, st, err);
    if (!w.lost_lock)
      break;
  }
  olc_persist__os_mutex(0);
  if (written != NULL)
    *written = wrote;
  if (kept != NULL && wrote && (st == OLC_OK || st == OLC_COMMITTED_UNSYNCED)) {
    *kept = w.next; /* the caller's from now on */
    memset(&w.next, 0, sizeof w.next);
  }
  writer_free(&w);
  return st;
}
