/*
 * store/files.c - listing, and the commands that work on whole files:
 * import, export, check and repair.  With persistence off, import, export
 * and repair return OLC_E_DISABLED: the store then makes no file-system
 * call at all.
 */
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "util/error.h"

olc_status olc_store_list(olc_record_list **out, olc_store *store, olc_error *err) {
  olc_record_list *list;
  olc_snapshot *snap;
  if (out == NULL)
    return olc_error__set(err, OLC_E_INVALID, "list", "output pointer is NULL");
  *out = NULL;
  if (store == NULL)
    return olc_error__set(err, OLC_E_INVALID, "list", "store handle is NULL");
  olc_store__refresh(store);
  snap = olc_store__acquire(store);
  list = olc_store__list_new(snap);
  if (list == NULL) {
    olc_snapshot__unref(snap);
    return olc_error__set(err, OLC_E_NOMEM, "list", "out of memory");
  }
  *out = list;
  return OLC_OK;
}

static olc_status read_and_parse(olc_recset *set, const char *path, size_t max_file_size,
                                 olc_error *err) {
  olc_format_limits limits = OLC_FORMAT_LIMITS_DEFAULT;
  olc_buf bytes = OLC_BUF_INIT;
  olc_status st;
  if (max_file_size != 0)
    limits.max_file_size = max_file_size;
  st = olc_persist__read(&bytes, NULL, path, limits.max_file_size, err);
  if (st == OLC_E_NOT_FOUND)
    olc_error__set(err, st, "read", "%s: no such file", path);
  if (st == OLC_OK)
    st = olc_format__parse(set, bytes.data, bytes.len, &limits, err);
  olc_buf__free(&bytes);
  return st;
}

olc_status olc_store_check_file(const char *path, size_t *records, olc_error *err) {
  olc_recset set = OLC_RECSET_INIT;
  olc_status st;
  if (records != NULL)
    *records = 0;
  if (path == NULL || path[0] == 0)
    return olc_error__set(err, OLC_E_INVALID, "check", "no file given");
  st = read_and_parse(&set, path, 0, err);
  if (st == OLC_OK && records != NULL)
    *records = set.count;
  olc_recset__free(&set);
  return st;
}

static olc_status need_persistence(const olc_store *store, const char *what, olc_error *err) {
  if (store == NULL)
    return olc_error__set(err, OLC_E_INVALID, what, "store handle is NULL");
  if (!store->persist)
    return olc_error__set(err, OLC_E_DISABLED, what, "%s needs persistence, which is off", what);
  return OLC_OK;
}

olc_status olc_store_import_file(olc_store *store, const char *path, size_t *imported,
                                 olc_error *err) {
  olc_recset set = OLC_RECSET_INIT;
  olc_status st;
  if (imported != NULL)
    *imported = 0;
  st = need_persistence(store, "import", err);
  if (st != OLC_OK)
    return st;
  if (path == NULL || path[0] == 0)
    return olc_error__set(err, OLC_E_INVALID, "import", "no file given");
  st = read_and_parse(&set, path, store->limits.max_file_size, err);
  if (st == OLC_OK)
    st = olc_store__import_set(store, &set, err);
  if (imported != NULL && (st == OLC_OK || st == OLC_COMMITTED_UNSYNCED))
    *imported = set.count;
  olc_recset__free(&set);
  return st;
}

typedef struct export_ctx {
  const olc_store *store;
  const olc_recset *set;
} export_ctx;

static olc_status export_transform(olc_buf *out, int *unchanged, const unsigned char *base,
                                   size_t base_len, int base_exists, void *payload,
                                   olc_error *err) {
  const export_ctx *x = payload;
  olc_status st = olc_format__write(out, x->set);
  if (st != OLC_OK)
    return olc_error__set(err, st, "export", "out of memory writing the export");
  st = olc_store__check_write_size(x->store, out->len, "export", err);
  if (st != OLC_OK)
    return st;
  if (base_exists && out->len == base_len &&
      (base_len == 0 || memcmp(out->data, base, base_len) == 0))
    *unchanged = 1;
  return OLC_OK;
}

olc_status olc_store_export_file(olc_store *store, const char *path, int portable_only,
                                 olc_error *err) {
  olc_recset view = OLC_RECSET_INIT;
  olc_snapshot *snap;
  export_ctx x;
  char *resolved = NULL;
  olc_status st;
  size_t i;
  st = need_persistence(store, "export", err);
  if (st != OLC_OK)
    return st;
  if (path == NULL || path[0] == 0)
    return olc_error__set(err, OLC_E_INVALID, "export", "no file given");
  st = olc_persist__resolve(&resolved, path, err);
  if (st != OLC_OK)
    return st;
  olc_store__refresh(store);
  snap = olc_store__acquire(store);
  /* A view: record structs copied, strings still owned by the snapshot. */
  if (snap->set.count > 0) {
    view.recs = malloc(snap->set.count * sizeof *view.recs);
    if (view.recs == NULL) {
      st = olc_error__set(err, OLC_E_NOMEM, "export", "out of memory");
      goto done;
    }
  }
  for (i = 0; i < snap->set.count; i++)
    if (!portable_only || snap->set.recs[i].level == OLC_LEVEL_PORTABLE)
      view.recs[view.count++] = snap->set.recs[i];
  view.cap = view.count;
  x.store = store;
  x.set = &view;
  st = olc_persist__update(NULL, NULL, resolved, &store->popts, export_transform, &x, err);
done:
  free(view.recs);
  olc_snapshot__unref(snap);
  free(resolved);
  return st;
}

static olc_status repair_check(const unsigned char *bytes, size_t len, void *payload) {
  const olc_store *store = payload;
  olc_recset set = OLC_RECSET_INIT;
  olc_status st = olc_format__parse(&set, bytes, len, &store->limits, NULL);
  olc_recset__free(&set);
  return st;
}

olc_status olc_store_repair(olc_store *store, char *moved_to, size_t moved_to_size,
                            olc_error *err) {
  olc_status st;
  if (moved_to != NULL && moved_to_size > 0)
    moved_to[0] = 0;
  st = need_persistence(store, "repair", err);
  if (st != OLC_OK)
    return st;
  olc_mutex__lock(&store->write);
  st = olc_persist__repair(moved_to, moved_to_size, store->path, &store->popts, repair_check, store,
                           err);
  olc_mutex__unlock(&store->write);
  if (st == OLC_OK)
    (void)olc_store_reload(store, NULL); /* no file now: an empty store */
  return st;
}
