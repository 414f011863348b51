/*
 * store/store.c - opening a store, loading its file into snapshots, and
 * noticing when another process replaced the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "util/error.h"
#include "util/options.h"

#define STORE_DEFAULT_MAX_FILE ((size_t)64 << 20)
#define STORE_PATH_MAX 4096

olc_snapshot *olc_store__acquire(olc_store *store) {
  olc_snapshot *snap;
  olc_util__mutex_lock(&store->state);
  snap = store->snap;
  olc_snapshot__ref(snap);
  olc_util__mutex_unlock(&store->state);
  return snap;
}

void olc_store__publish(olc_store *store, olc_snapshot *snap) {
  olc_snapshot *old;
  /* Out of memory leaves the records without a source, nothing worse. */
  (void)olc_store__stamp(snap, store->path, 0, store->read_only ? &store->overlay : NULL);
  olc_util__mutex_lock(&store->state);
  old = store->snap;
  store->snap = snap;
  store->gen++;
  store->seen_id = snap->id;
  /* A write parsed the file under the lock: that counts as a good load. */
  store->load_status = OLC_OK;
  olc_error_clear(&store->load_err);
  olc_util__mutex_unlock(&store->state);
  olc_snapshot__unref(old);
}

/* Parse errors name a line and column but not the file; a load error names
 * the store file too. */
void olc_store__prefix_path(olc_error *e, const char *path) {
  char msg[OLC_ERROR_MESSAGE_SIZE];
  size_t pl = strlen(path), ml, cap = sizeof e->message - 1;
  memcpy(msg, e->message, sizeof msg);
  msg[sizeof msg - 1] = 0;
  ml = strlen(msg);
  if (pl > cap)
    pl = cap;
  memcpy(e->message, path, pl);
  if (pl + 2 <= cap) {
    memcpy(e->message + pl, ": ", 2);
    pl += 2;
  }
  if (ml > cap - pl)
    ml = cap - pl;
  memcpy(e->message + pl, msg, ml);
  e->message[pl + ml] = 0;
}

static olc_status load_failed(olc_store *store, olc_status st, const olc_error *e,
                              const olc_file_id *seen, olc_error *err) {
  olc_util__mutex_lock(&store->state);
  store->load_status = st;
  if (e != NULL)
    store->load_err = *e;
  else
    olc_error__set(&store->load_err, st, "load", "%s: %s", store->path, olc_status_str(st));
  store->failed_loads++;
  if (seen != NULL)
    store->seen_id = *seen;
  if (err != NULL)
    *err = store->load_err;
  olc_util__mutex_unlock(&store->state);
  return st;
}

/* Reads and parses the file into set, with a read-only handle's own saves
 * above it; id is the file's identity (exists 0 when there is none). */
static olc_status read_records(olc_store *store, olc_recset *set, olc_file_id *id, olc_error *e) {
  olc_buf bytes = OLC_BUF_INIT;
  olc_status st = olc_persist__read(&bytes, id, store->path, store->limits.max_file_size, e);
  if (st == OLC_E_NOT_FOUND) {
    id->exists = 0;
    st = OLC_OK;
  } else if (st == OLC_OK) {
    st = olc_format__parse(set, bytes.data, bytes.len, &store->limits, e);
  }
  olc_buf__free(&bytes);
#ifdef OLC_TEST_HOOKS
  /* Negative control (docs/durability.md M11): OLC_TEST_DISABLE=snapshot
   * publishes what the parse produced even when it failed; the snapshot
   * protection tests must then FAIL. */
  if (st == OLC_E_MALFORMED && getenv("OLC_TEST_DISABLE") != NULL &&
      strstr(getenv("OLC_TEST_DISABLE"), "snapshot") != NULL)
    st = OLC_OK;
#endif
  if (st == OLC_OK && store->overlay.count > 0) {
    /* A read-only handle's own saves stay above whatever the file holds. */
    olc_recset__normalize(set);
    if (olc_store__apply_puts(set, &store->overlay) != OLC_OK)
      st = olc_error__set(e, OLC_E_NOMEM, "load", "out of memory loading '%s'", store->path);
  }
  return st;
}

/* Publishes snap unless a writer published a newer snapshot since gen0;
 * either way the load counts as good. */
static void swap_in(olc_store *store, olc_snapshot *snap, uint64_t gen0, const olc_file_id *id) {
  olc_snapshot *old;
  olc_util__mutex_lock(&store->state);
  if (store->gen == gen0) {
    old = store->snap;
    store->snap = snap;
    store->gen++;
    store->seen_id = *id;
  } else {
    old = snap; /* a writer published something at least as new */
  }
  store->load_status = OLC_OK;
  olc_error_clear(&store->load_err);
  olc_util__mutex_unlock(&store->state);
  olc_snapshot__unref(old);
}

/* Reads and parses the file; swaps the snapshot only when the whole file
 * parsed and no writer published a newer one meanwhile.  Caller holds the
 * reload mutex. */
static olc_status reload_locked(olc_store *store, olc_error *err) {
  olc_recset set = OLC_RECSET_INIT;
  olc_file_id id;
  olc_error e;
  olc_snapshot *snap;
  olc_status st;
  uint64_t gen0;

  olc_error_clear(&e);
  memset(&id, 0, sizeof id);
  olc_util__mutex_lock(&store->state);
  gen0 = store->gen;
  olc_util__mutex_unlock(&store->state);

  st = read_records(store, &set, &id, &e);
  if (st != OLC_OK) {
    olc_recset__free(&set);
    if (st == OLC_E_MALFORMED || st == OLC_E_VERSION)
      olc_store__prefix_path(&e, store->path);
    /* A file that could not be read at all gives no identity to remember:
     * the next look tries again. */
    return load_failed(store, st, &e, id.exists ? &id : NULL, err);
  }
  olc_recset__normalize(&set);
  snap = olc_snapshot__new(&set, &id);
  if (snap == NULL ||
      olc_store__stamp(snap, store->path, 0, store->read_only ? &store->overlay : NULL) != OLC_OK) {
    olc_snapshot__unref(snap);
    return load_failed(store, OLC_E_NOMEM, NULL, NULL, err);
  }
  swap_in(store, snap, gen0, &id);
  return OLC_OK;
}

/* 1 when the snapshot (or the remembered failed load) is the file whose
 * identity is id. */
static int seen_is(olc_store *store, const olc_file_id *id) {
  int same;
  olc_util__mutex_lock(&store->state);
  same = olc_file_id__equal(id, &store->seen_id);
  olc_util__mutex_unlock(&store->state);
  return same;
}

/* Change detection before a read.  Fast path: the generation counter of
 * P.lock says nothing was saved since the last check (no system call).
 * Otherwise compare the file's identity (one stat) and reload when it
 * differs; then the generation read before the stat is settled, so the
 * following lookups take the fast path until the next save. */
static void refresh_own(olc_store *store) {
  olc_persist_watch_token token;
  olc_file_id now;
  if (!store->persist || !store->check_for_changes)
    return;
  if (olc_persist__watch_quiet(&store->watch))
    return;
  token = olc_persist__watch_begin(&store->watch);
  {
    char why[OLC_ERROR_MESSAGE_SIZE];
    if (olc_persist__watch_warning(&store->watch, why, sizeof why))
      olc_diag__emit(&store->diag, OLC_DIAG_WARNING, "watch", "%s, one stat per lookup", why);
  }
  if (olc_persist__stat(&now, store->path, NULL) != OLC_OK)
    return; /* cannot tell: keep the snapshot, look again next time */
  if (!seen_is(store, &now)) {
    olc_util__mutex_lock(&store->reload);
    /* Another thread may have reloaded while this one waited. */
    if (!seen_is(store, &now))
      (void)reload_locked(store, NULL);
    olc_util__mutex_unlock(&store->reload);
    /* A read that failed before it knew the file is retried next time; a
     * reload that met an even newer file settles at the next look. */
    if (!seen_is(store, &now))
      return;
  }
  olc_persist__watch_settle(&store->watch, token);
}

void olc_store__refresh(olc_store *store) {
  refresh_own(store);
  if (store->persist)
    olc_store__layers_refresh(store, 0);
}

olc_status olc_store_reload(olc_store *store, olc_error *err) {
  olc_status st;
  if (store == NULL)
    return olc_error__set(err, OLC_E_INVALID, "reload", "store handle is NULL");
  if (!store->persist)
    return OLC_OK; /* nothing on disk to read; the memory store stays */
  olc_util__mutex_lock(&store->reload);
  st = reload_locked(store, err);
  olc_util__mutex_unlock(&store->reload);
  olc_store__layers_refresh(store, 1);
  return st;
}

olc_status olc_store_load_status(olc_store *store, olc_error *err) {
  olc_status st;
  if (store == NULL)
    return olc_error__set(err, OLC_E_INVALID, "load", "store handle is NULL");
  olc_util__mutex_lock(&store->state);
  st = store->load_status;
  if (st != OLC_OK && err != NULL)
    *err = store->load_err;
  olc_util__mutex_unlock(&store->state);
  return st;
}

uint64_t olc_store__failed_loads(olc_store *store) {
  uint64_t n;
  olc_util__mutex_lock(&store->state);
  n = store->failed_loads;
  olc_util__mutex_unlock(&store->state);
  return n;
}

olc_status olc_store_default_path(char *buf, size_t buf_size, olc_error *err) {
  if (buf == NULL || buf_size == 0)
    return olc_error__set(err, OLC_E_INVALID, "default_path", "output buffer is empty");
  return olc_persist__default_path(buf, buf_size, err);
}

const char *olc_store_path(const olc_store *store) { return store != NULL ? store->path : NULL; }

static olc_status check_options(const olc_store_options *o, olc_error *err) {
  if (o->path != NULL && o->path[0] == 0)
    return olc_error__set(err, OLC_E_INVALID, "open", "store path is empty");
  if (o->file_mode > 0777u)
    return olc_error__set(err, OLC_E_INVALID, "open", "file mode %o is not a permission mode",
                          (unsigned)o->file_mode);
  return OLC_OK;
}

static olc_status resolve_path(olc_store *s, const olc_store_options *o, olc_error *err) {
  char def[STORE_PATH_MAX];
  const char *p = o->path;
  olc_status st;
  if (p == NULL) {
    st = olc_persist__default_path(def, sizeof def, err);
    if (st != OLC_OK)
      return st;
    p = def;
  }
  return olc_persist__resolve(&s->path, p, err);
}

/* The handle's settings from the (checked) options; no file is touched. */
static void init_handle(olc_store *s, const olc_store_options *options) {
  static const olc_format_limits limits = OLC_FORMAT_LIMITS_DEFAULT;
  olc_diag__init(&s->diag, options->diag, options->diag_payload);
  olc_util__mutex_init(&s->state);
  olc_util__mutex_init(&s->write);
  olc_util__mutex_init(&s->reload);
  s->persist = options->persistence_enabled != 0;
  s->check_for_changes = options->check_for_changes != 0;
  s->read_only = s->persist && options->read_only != 0;
  s->allow_network_fs = options->allow_network_fs != 0;
  olc_recset__init(&s->overlay);
  s->limits = limits;
  if (options->max_file_size != 0)
    s->limits.max_file_size = options->max_file_size;
  if (s->limits.max_file_size == 0)
    s->limits.max_file_size = STORE_DEFAULT_MAX_FILE;
  s->popts.lock_timeout_ms = options->lock_timeout_ms;
  s->popts.tmp_grace_seconds = options->tmp_grace_seconds;
  s->popts.file_mode = options->file_mode != 0 ? options->file_mode : 0600u;
  s->popts.max_file_size = s->limits.max_file_size;
}

/* A persistent store's file: its path, the watch, the first load and the
 * layers.  The caller frees the handle on failure. */
static olc_status open_file(olc_store *s, const olc_store_options *options, olc_error *err) {
  olc_status st = resolve_path(s, options, err);
  if (st == OLC_OK) /* never a lock file or a temporary of another store */
    st = olc_store__check_role(s->path, NULL, "open", 0, err);
  if (st == OLC_OK && s->check_for_changes)
    st = olc_persist__watch_open(&s->watch, s->path, err);
  if (st != OLC_OK)
    return st;
  /* An unreadable file is remembered, not returned, so that repair and
   * override commands keep working on a broken store. */
  (void)olc_store_reload(s, NULL);
  st = olc_store__layers_open(s, options, err);
  if (st != OLC_OK)
    return st;
  if (s->load_status == OLC_E_NOMEM)
    return olc_error__set(err, OLC_E_NOMEM, "open", "out of memory loading the store");
  return OLC_OK;
}

olc_status olc_store_open(olc_store **out, const olc_store_options *caller_options,
                          olc_error *err) {
  olc_store_options opts;
  const olc_store_options *options = &opts;
  olc_store *s;
  olc_recset empty = OLC_RECSET_INIT;
  olc_status st;
  if (out == NULL)
    return olc_error__set(err, OLC_E_INVALID, "open", "output pointer is NULL");
  *out = NULL;
  st = olc_options__load(&opts, &olc_options__store, caller_options, "open", err);
  if (st == OLC_OK)
    st = check_options(options, err);
  if (st != OLC_OK)
    return st;
  s = calloc(1, sizeof *s);
  if (s == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "open", "out of memory opening the store");
  init_handle(s, options);
  s->snap = olc_snapshot__new(&empty, NULL);
  if (s->snap == NULL) {
    olc_store_free(s);
    return olc_error__set(err, OLC_E_NOMEM, "open", "out of memory opening the store");
  }
  if (s->persist) {
    st = open_file(s, options, err);
    if (st != OLC_OK) {
      olc_store_free(s);
      return st;
    }
  }
  if (olc_store__fork_register(s) != OLC_OK) {
    olc_store_free(s);
    return olc_error__set(err, OLC_E_NOMEM, "open", "out of memory opening the store");
  }
  *out = s;
  return OLC_OK;
}

void olc_store_free(olc_store *store) {
  if (store == NULL)
    return;
  olc_store__fork_unregister(store); /* never registered: no-op */
  olc_snapshot__unref(store->snap);
  olc_store__layers_free(store);
  olc_recset__free(&store->overlay);
  olc_buf__free(&store->spare);
  olc_persist__watch_close(&store->watch);
  free(store->path);
  olc_util__mutex_destroy(&store->state);
  olc_util__mutex_destroy(&store->write);
  olc_util__mutex_destroy(&store->reload);
  olc_diag__destroy(&store->diag);
  free(store);
}

olc_status olc_store_next_diagnostic(olc_diagnostic *out, olc_store *store) {
  if (out == NULL || store == NULL)
    return OLC_E_INVALID;
  return olc_diag__take(out, &store->diag);
}

uint64_t olc_store_diagnostics_dropped(olc_store *store) {
  return store != NULL ? olc_diag__dropped(&store->diag) : 0;
}
