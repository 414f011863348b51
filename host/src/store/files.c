/*
 * store/files.c - listing, and the commands that work on whole files:
 * import, export, check and repair.  With persistence off, import, export
 * and repair return OLC_E_DISABLED: the store then makes no file-system
 * call at all.  A read-only handle refuses import and repair
 * (OLC_E_READ_ONLY) and exports, which write elsewhere.
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
  snap = olc_store__acquire_view(store);
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

/* Reads one file to import into set (appended after what is there). */
static olc_status import_read(olc_recset *set, olc_store *store, const char *path, olc_error *err) {
  olc_recset one = OLC_RECSET_INIT;
  char *resolved = NULL;
  olc_status st;
  size_t i;
  if (path == NULL || path[0] == 0)
    return olc_error__set(err, OLC_E_INVALID, "import", "no file given");
  st = olc_persist__resolve(&resolved, path, err);
  if (st == OLC_OK)
    st = olc_store__check_role(resolved, store->path, "import", 0, err);
  free(resolved);
  if (st == OLC_OK) {
    olc_error e;
    olc_error_clear(&e);
    st = read_and_parse(&one, path, store->limits.max_file_size, &e);
    /* Of several files, the message must say which one did not parse. */
    if (st == OLC_E_MALFORMED || st == OLC_E_VERSION)
      olc_store__prefix_path(&e, path);
    if (st != OLC_OK && err != NULL)
      *err = e;
  }
  for (i = 0; i < one.count && st == OLC_OK; i++)
    if (olc_recset__append_copy(set, &one.recs[i]) != OLC_OK)
      st = olc_error__set(err, OLC_E_NOMEM, "import", "out of memory reading '%s'", path);
  olc_recset__free(&one);
  return st;
}

olc_status olc_store_import_files(olc_store *store, const char *const *paths, size_t count,
                                  size_t *imported, olc_error *err) {
  olc_recset set = OLC_RECSET_INIT;
  olc_status st;
  size_t i;
  if (imported != NULL)
    *imported = 0;
  st = need_persistence(store, "import", err);
  if (st != OLC_OK)
    return st;
  if (paths == NULL || count == 0)
    return olc_error__set(err, OLC_E_INVALID, "import", "no file given");
  for (i = 0; i < count && st == OLC_OK; i++)
    st = import_read(&set, store, paths[i], err);
  /* The files in order, the last of one identity winning, as the merge
   * itself would have it one file after another. */
  if (st == OLC_OK)
    st = olc_store__import_set(store, &set, err);
  if (imported != NULL && (st == OLC_OK || st == OLC_COMMITTED_UNSYNCED))
    *imported = set.count;
  olc_recset__free(&set);
  return st;
}

olc_status olc_store_import_file(olc_store *store, const char *path, size_t *imported,
                                 olc_error *err) {
  return olc_store_import_files(store, &path, 1, imported, err);
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

/* Whether a record of the view is one of source's (olc_store_export_source);
 * prev: the record before it in the view, so that of one identity only the
 * record that wins is kept. */
static int from_source(const olc_record *r, const olc_record *prev, const char *source) {
  if (prev != NULL && olc_record__identity_cmp(prev, r) == 0)
    return 0;
  if (strcmp(source, "user") == 0)
    return !r->from_layer;
  if (strcmp(source, "layers") == 0)
    return r->from_layer;
  return r->source != NULL && strcmp(r->source, source) == 0;
}

olc_status olc_store_export_file(olc_store *store, const char *path, int portable_only,
                                 olc_error *err) {
  return olc_store_export_source(store, path, portable_only, NULL, err);
}

olc_status olc_store_export_source(olc_store *store, const char *path, int portable_only,
                                   const char *source, olc_error *err) {
  olc_recset view = OLC_RECSET_INIT;
  olc_persist_options po;
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
  if (st == OLC_OK)
    st = olc_store__check_role(resolved, store->path, "export", 1, err);
  if (st != OLC_OK) {
    free(resolved);
    return st;
  }
  olc_store__refresh(store);
  snap = source != NULL ? olc_store__acquire_view(store) : olc_store__acquire(store);
  /* A view: record structs copied, strings still owned by the snapshot. */
  if (snap->set.count > 0) {
    view.recs = malloc(snap->set.count * sizeof *view.recs);
    if (view.recs == NULL) {
      st = olc_error__set(err, OLC_E_NOMEM, "export", "out of memory");
      goto done;
    }
  }
  for (i = 0; i < snap->set.count; i++) {
    const olc_record *r = &snap->set.recs[i], *prev = NULL;
    if (i > 0 && source != NULL)
      prev = &snap->set.recs[i - 1]; /* of one identity the earlier wins */
    if (portable_only && r->level != OLC_LEVEL_PORTABLE)
      continue;
    if (source != NULL && !from_source(r, prev, source))
      continue;
    view.recs[view.count++] = *r;
  }
  view.cap = view.count;
  x.store = store;
  x.set = &view;
  olc_store__persist_options(&po, store);
  st = olc_persist__update(NULL, NULL, resolved, &po, export_transform, &x, err);
done:
  free(view.recs);
  olc_snapshot__unref(snap);
  free(resolved);
  return st;
}

/* ---- what a path is to the store ---- */

typedef enum store_look {
  LOOK_EMPTY,  /* 0 bytes: a crash-without-fsync signature */
  LOOK_PREFIX, /* a proper prefix of the header: a write cut short */
  LOOK_HEADER, /* begins with the header (any version) */
  LOOK_FOREIGN /* anything else: not ours */
} store_look;

static const char header_magic[] = OLC_FORMAT_MAGIC " ";
static const char lock_magic[] = "olcgen01";

static store_look look_at(const unsigned char *b, size_t n) {
  size_t m = sizeof header_magic - 1;
  if (n == 0)
    return LOOK_EMPTY;
  if (n < m)
    return memcmp(b, header_magic, n) == 0 ? LOOK_PREFIX : LOOK_FOREIGN;
  return memcmp(b, header_magic, m) == 0 ? LOOK_HEADER : LOOK_FOREIGN;
}

/* The probe the persist module runs before it creates a lock file next to
 * a store path that exists: only next to something that is a store. */
static olc_status store_probe(const unsigned char *head, size_t len, uint64_t size,
                              const char *path, void *payload, olc_error *err) {
  (void)payload;
  if (look_at(head, len < size ? len : (size_t)size) != LOOK_FOREIGN)
    return OLC_OK;
  return olc_error__set(err, OLC_E_MALFORMED, "store",
                        "'%s' is not a store file (it does not begin with \"%s\"); nothing "
                        "written",
                        path, header_magic);
}

void olc_store__persist_options(olc_persist_options *out, const olc_store *store) {
  *out = store->popts;
  out->probe = store_probe;
  out->probe_payload = NULL;
}

/* 1 when path + ".lock" would be the lock file of a store at dir/name
 * (the handle's own, or an existing regular file). */
static int is_lock_of(const char *path, size_t stem, const char *store_path, olc_error *err) {
  olc_persist_probe p;
  char *owner = malloc(stem + 1);
  int yes;
  if (owner == NULL)
    return 0;
  memcpy(owner, path, stem);
  owner[stem] = 0;
  yes = (store_path != NULL && strcmp(owner, store_path) == 0) ||
        (olc_persist__probe(&p, owner, err) == OLC_OK && p.kind == OLC_PERSIST_FILE);
  free(owner);
  return yes;
}

olc_status olc_store__check_role(const char *path, const char *store_path, const char *what,
                                 int is_export, olc_error *err) {
  const char *slash = strrchr(path, '/'), *name = slash != NULL ? slash + 1 : path;
  size_t own = olc_persist__tmp_owner_len(name);
  size_t lock_owner = olc_persist__lock_owner_len(path);
  olc_persist_probe p;
  olc_status st;
  if (own != 0)
    return olc_error__set(err, OLC_E_INVALID, what, "'%s' is a temporary file of the store '%.*s'",
                          path, (int)((size_t)(name - path) + own), path);
  if (lock_owner != 0 && is_lock_of(path, lock_owner, store_path, err))
    return olc_error__set(err, OLC_E_INVALID, what, "'%s' is the lock file of the store '%.*s'",
                          path, (int)lock_owner, path);
  if (is_export && store_path != NULL && strcmp(path, store_path) == 0)
    return olc_error__set(err, OLC_E_INVALID, what, "'%s' is the store itself", path);
  st = olc_persist__probe(&p, path, err);
  if (st != OLC_OK)
    return st;
  if (p.kind == OLC_PERSIST_FILE && p.head_len >= sizeof lock_magic - 1 &&
      memcmp(p.head, lock_magic, sizeof lock_magic - 1) == 0)
    return olc_error__set(err, OLC_E_INVALID, what,
                          "'%s' is a store's lock file (it carries the lock file's counter header)",
                          path);
  if (!is_export || p.kind == OLC_PERSIST_ABSENT)
    return OLC_OK;
  /* An export creates a file or replaces a store file, nothing else. */
  if (p.kind != OLC_PERSIST_FILE)
    return olc_error__set(err, OLC_E_INVALID, what, "'%s' is %s, not a store file", path,
                          olc_persist__kind_str(p.kind));
  if (look_at(p.head, p.head_len) == LOOK_FOREIGN)
    return olc_error__set(err, OLC_E_INVALID, what,
                          "'%s' exists and is not a store file; an export replaces only a store "
                          "file",
                          path);
  return OLC_OK;
}

/* ---- repair ---- */

typedef struct repair_ctx {
  const olc_store *store;
  int force;
} repair_ctx;

/* The version a cut-off head declares: parse its header line alone. */
static olc_status head_version(const unsigned char *bytes, size_t len, olc_error *err) {
  const unsigned char *lf = memchr(bytes, '\n', len);
  olc_recset set = OLC_RECSET_INIT;
  olc_status st;
  if (lf == NULL)
    return OLC_E_MALFORMED;
  st = olc_format__parse(&set, bytes, (size_t)(lf - bytes) + 1, NULL, err);
  olc_recset__free(&set);
  return st;
}

/* Under the lock: OLC_OK (valid), OLC_E_MALFORMED (a damaged store: moved),
 * or a refusal with its own message. */
static olc_status repair_check(const unsigned char *bytes, size_t len, int complete, void *payload,
                               olc_error *err) {
  const repair_ctx *x = payload;
  const char *path = x->store->path;
  olc_recset set = OLC_RECSET_INIT;
  olc_error e;
  olc_status st;
  store_look k = look_at(bytes, len);
  if (k == LOOK_EMPTY || k == LOOK_PREFIX)
    return OLC_E_MALFORMED;
  if (k == LOOK_FOREIGN)
    return x->force ? OLC_E_MALFORMED
                    : olc_error__set(err, OLC_E_INVALID, "repair",
                                     "'%s' does not look like a store file (it does not begin "
                                     "with \"%s\"); not moved (--force moves it)",
                                     path, header_magic);
  olc_error_clear(&e);
  if (complete) {
    st = olc_format__parse(&set, bytes, len, &x->store->limits, &e);
    olc_recset__free(&set);
  } else {
    st = head_version(bytes, len, &e); /* too large to read: its header */
    if (st == OLC_OK)
      st = OLC_E_MALFORMED;
  }
  if (st == OLC_E_VERSION && !x->force)
    return olc_error__set(err, OLC_E_VERSION, "repair",
                          "'%s' is a store file of a newer version (%s); not moved (--force "
                          "moves it)",
                          path, e.message);
  if (st == OLC_OK)
    return OLC_OK;
  return OLC_E_MALFORMED;
}

/* Before a lock file is created next to it: the same verdict on the first
 * bytes (the whole file when it is that short). */
static olc_status repair_probe(const unsigned char *head, size_t len, uint64_t size,
                               const char *path, void *payload, olc_error *err) {
  olc_status st;
  (void)path;
  st = repair_check(head, len, (uint64_t)len == size, payload, err);
  if (st == OLC_OK || st == OLC_E_MALFORMED) {
    olc_error_clear(err);
    return OLC_OK; /* decided under the lock */
  }
  return st;
}

olc_status olc_store_repair(olc_store *store, unsigned flags, char *moved_to, size_t moved_to_size,
                            olc_error *err) {
  olc_persist_options po;
  repair_ctx x;
  olc_status st;
  if (moved_to != NULL && moved_to_size > 0)
    moved_to[0] = 0;
  st = need_persistence(store, "repair", err);
  if (st != OLC_OK)
    return st;
  if ((flags & ~OLC_REPAIR_FORCE) != 0)
    return olc_error__set(err, OLC_E_INVALID, "repair", "unknown repair flags 0x%x", flags);
  x.store = store;
  x.force = (flags & OLC_REPAIR_FORCE) != 0;
  olc_store__persist_options(&po, store);
  po.probe = x.force ? NULL : repair_probe; /* forced: a regular file is enough */
  po.probe_payload = &x;
  olc_util__mutex_lock(&store->write);
  olc_store__fork_writing(store);
  st = olc_store__check_write(store, "repair", err);
  if (st == OLC_OK)
    st = olc_persist__repair(moved_to, moved_to_size, store->path, &po, repair_check, &x, err);
  olc_store__fork_writing(NULL);
  olc_util__mutex_unlock(&store->write);
  if (st == OLC_OK)
    (void)olc_store_reload(store, NULL); /* no file now: an empty store */
  return st;
}
