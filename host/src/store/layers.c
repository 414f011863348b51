/*
 * store/layers.c - read-only layers beneath the store's own file
 * (olc_store_options.layers), and the view that lookups and lists read.
 *
 * Each layer file keeps its own snapshot: the last one that parsed, so a
 * layer that turns unreadable keeps its records.  The store's snapshot
 * (store->snap) stays the records of its own file only, which is what
 * every write merges into; the view is the merge of that snapshot and the
 * layers' (records in canonical order, the store's own file first among
 * equal identities, then the layers in the order given), built when one of
 * them changed and only when a layer holds a record.  A view copies no
 * record: it holds references to the snapshots its records point into.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "util/error.h"
#include "util/text.h"

/* Diagnostics of one refresh, emitted once no lock is held. */
typedef struct layer_notes {
  char (*msg)[OLC_DIAG_MESSAGE_SIZE];
  size_t count, cap;
} layer_notes;

static void note(layer_notes *n, const char *text) {
  if (n->count == n->cap) {
    size_t ncap = n->cap ? n->cap * 2 : 4;
    char(*m)[OLC_DIAG_MESSAGE_SIZE] = realloc(n->msg, ncap * sizeof *m);
    if (m == NULL)
      return; /* dropped; the layer is still skipped */
    n->msg = m;
    n->cap = ncap;
  }
  olc_diag__one_line(n->msg[n->count++], OLC_DIAG_MESSAGE_SIZE, text);
}

static void notes_emit(olc_store *s, layer_notes *n) {
  size_t i;
  for (i = 0; i < n->count; i++)
    olc_diag__emit(&s->diag, OLC_DIAG_WARNING, "layers", "%s", n->msg[i]);
  free(n->msg);
  n->msg = NULL;
  n->count = n->cap = 0;
}

/* 1 when a record with r's identity is in set (sorted, unique). */
static int layers_holds(const olc_recset *set, const olc_record *r) {
  size_t lo = 0, hi = set != NULL ? set->count : 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = olc_record__identity_cmp(&set->recs[mid], r);
    if (c == 0)
      return 1;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}

olc_status olc_store__stamp(olc_snapshot *snap, const char *source, int from_layer,
                            const olc_recset *memory_only) {
  const char *src;
  size_t i;
  if (snap == NULL || source == NULL || snap->set.count == 0)
    return OLC_OK;
  src = olc_arena__strdup(&snap->set.arena, source);
  if (src == NULL)
    return OLC_E_NOMEM;
  for (i = 0; i < snap->set.count; i++) {
    /* A read-only handle's saves are in no file: saying they were would
     * let a caller take them for durable (olc calibrate --recorded). */
    snap->set.recs[i].source = layers_holds(memory_only, &snap->set.recs[i]) ? NULL : src;
    snap->set.recs[i].from_layer = from_layer;
  }
  return OLC_OK;
}

/* Reads and parses one layer file; keeps the last good snapshot on any
 * failure.  now: its identity before the read.  Caller holds layers.lock. */
static void layer_load(olc_store *s, olc_layer_file *f, const olc_file_id *now, layer_notes *n) {
  char msg[OLC_DIAG_MESSAGE_SIZE + OLC_ERROR_MESSAGE_SIZE];
  olc_buf bytes = OLC_BUF_INIT;
  olc_recset set = OLC_RECSET_INIT;
  olc_snapshot *snap;
  olc_file_id id;
  olc_error e;
  olc_status st;
  olc_error_clear(&e);
  f->seen = *now;
  st = olc_persist__read(&bytes, &id, f->path, s->limits.max_file_size, &e);
  if (st == OLC_OK)
    st = olc_format__parse(&set, bytes.data, bytes.len, &s->limits, &e);
  olc_buf__free(&bytes);
  if (st != OLC_OK) {
    olc_recset__free(&set);
    if (st == OLC_E_MALFORMED || st == OLC_E_VERSION)
      snprintf(msg, sizeof msg, "%s:%u:%u: %s; layer skipped%s", f->path, (unsigned)e.line,
               (unsigned)e.column, e.message,
               f->snap != NULL ? ", its last good records kept" : "");
    else
      snprintf(msg, sizeof msg, "layer '%s': %s; skipped%s", f->path, e.message,
               f->snap != NULL ? ", its last good records kept" : "");
    note(n, msg);
    return;
  }
  f->seen = id;
  olc_recset__normalize(&set);
  snap = olc_snapshot__new(&set, &id);
  if (snap == NULL || olc_store__stamp(snap, f->path, 1, NULL) != OLC_OK) {
    olc_snapshot__unref(snap);
    f->seen.exists = 0; /* try again at the next look */
    note(n, "out of memory reading a layer; skipped");
    return;
  }
  olc_snapshot__unref(f->snap);
  f->snap = snap;
  s->layers.gen++;
  /* Lock order: layers.lock, then state. */
  olc_util__mutex_lock(&s->state);
  s->layers_gen_pub = s->layers.gen;
  olc_util__mutex_unlock(&s->state);
}

static olc_status layer_add(olc_store *s, const char *path) {
  olc_layers *l = &s->layers;
  olc_layer_file *v;
  char *p;
  v = realloc(l->files, (l->count + 1) * sizeof *v);
  if (v == NULL)
    return OLC_E_NOMEM;
  l->files = v;
  p = malloc(strlen(path) + 1);
  if (p == NULL)
    return OLC_E_NOMEM;
  strcpy(p, path);
  memset(&v[l->count], 0, sizeof v[l->count]);
  v[l->count++].path = p;
  return OLC_OK;
}

/* One path (not a glob): a regular file or a symlink to one is added,
 * made absolute here, once: every later look at it reads the same file
 * whatever the working directory has become (a relative path would be
 * read again against each new one). */
static olc_status layer_probe_add(olc_store *s, const char *given, layer_notes *n, olc_error *err) {
  char msg[OLC_DIAG_MESSAGE_SIZE];
  olc_persist_probe pr;
  olc_error e;
  olc_file_id id;
  char *path = NULL;
  olc_status st = olc_persist__absolute(&path, given, &e);
  if (st != OLC_OK) {
    olc_error__set(err, st, "layers", "layer '%s': %s", given, e.message);
    if (err != NULL)
      err->sys_errno = e.sys_errno;
    return st;
  }
  olc_error_clear(&e);
  if (olc_persist__stat(&id, path, &e) != OLC_OK) {
    snprintf(msg, sizeof msg, "layer '%s': %s; skipped", path, e.message);
  } else if (!id.exists) {
    snprintf(msg, sizeof msg, "layer '%s' does not exist; skipped", path);
  } else if (olc_persist__probe(&pr, path, &e) == OLC_OK && pr.kind != OLC_PERSIST_FILE &&
             pr.kind != OLC_PERSIST_SYMLINK) {
    snprintf(msg, sizeof msg, "layer '%s' is %s, not a profile file; skipped", path,
             olc_persist__kind_str(pr.kind));
  } else {
    st = layer_add(s, path);
    free(path);
    return st;
  }
  free(path);
  note(n, msg);
  return OLC_OK;
}

/* Expanded against the working directory of now, each match then made
 * absolute (only the last component may hold '*', the working directory's
 * own path may too). */
static olc_status layer_glob_add(olc_store *s, const char *pattern, layer_notes *n,
                                 olc_error *err) {
  char msg[OLC_DIAG_MESSAGE_SIZE];
  char **names = NULL;
  size_t count = 0, i;
  olc_error e;
  olc_status st;
  olc_error_clear(&e);
  st = olc_persist__glob(&names, &count, pattern, &e);
  if (st == OLC_E_NOMEM)
    return st;
  if (st == OLC_E_NOT_FOUND)
    snprintf(msg, sizeof msg, "layer '%s': its directory does not exist; skipped", pattern);
  else if (st != OLC_OK)
    snprintf(msg, sizeof msg, "layer '%s': %s; skipped", pattern, e.message);
  else if (count == 0)
    snprintf(msg, sizeof msg, "layer '%s' matches no file; skipped", pattern);
  if (st != OLC_OK || count == 0) {
    note(n, msg);
    return OLC_OK;
  }
  for (i = 0; i < count && st == OLC_OK; i++)
    st = layer_probe_add(s, names[i], n, err);
  olc_persist__glob_free(names, count);
  return st;
}

static olc_status layer_add_any(olc_store *s, const char *p, layer_notes *n, olc_error *err) {
  if (p == NULL || p[0] == 0)
    return OLC_OK;
  return strchr(p, '*') != NULL ? layer_glob_add(s, p, n, err) : layer_probe_add(s, p, n, err);
}

#if defined(_WIN32)
#define LIST_SEPARATORS ",;"
#else
#define LIST_SEPARATORS ",:"
#endif

/* layers_list: its items, blank space trimmed, empty ones skipped. */
static olc_status layers_from_list(olc_store *s, const char *list, layer_notes *n, olc_error *err) {
  olc_status st = OLC_OK;
  while (*list != 0 && st == OLC_OK) {
    size_t len = strcspn(list, LIST_SEPARATORS), skip = len;
    const char *item = olc_util__trim(list, &len);
    char *copy;
    list += list[skip] != 0 ? skip + 1 : skip;
    if (len == 0)
      continue;
    if ((copy = malloc(len + 1)) == NULL)
      return OLC_E_NOMEM;
    memcpy(copy, item, len);
    copy[len] = 0;
    st = layer_add_any(s, copy, n, err);
    free(copy);
  }
  return st;
}

olc_status olc_store__layers_open(olc_store *s, const olc_store_options *o, olc_error *err) {
  layer_notes n = {NULL, 0, 0};
  olc_status st = OLC_OK;
  size_t i;
  olc_util__mutex_init(&s->layers.lock);
  s->layers.live = 1;
  if (!s->persist)
    return OLC_OK; /* persistence off: no disk reads, no layers */
  if (o->layers_list != NULL && o->layers_list[0] != 0)
    st = layers_from_list(s, o->layers_list, &n, err);
  else
    for (i = 0; o->layers != NULL && i < o->layer_count && st == OLC_OK; i++)
      st = layer_add_any(s, o->layers[i], &n, err);
  for (i = 0; i < s->layers.count && st == OLC_OK; i++) {
    olc_file_id now;
    olc_error e;
    if (olc_persist__stat(&now, s->layers.files[i].path, &e) != OLC_OK)
      memset(&now, 0, sizeof now);
    layer_load(s, &s->layers.files[i], &now, &n);
  }
  notes_emit(s, &n);
  if (st == OLC_E_NOMEM)
    return olc_error__set(err, st, "open", "out of memory reading the store's layers");
  return st; /* a layer path that cannot be made absolute: err says which */
}

void olc_store__layers_refresh(olc_store *s, int force) {
  layer_notes n = {NULL, 0, 0};
  size_t i;
  if (s->layers.count == 0 || (!force && !s->check_for_changes))
    return;
  olc_util__mutex_lock(&s->layers.lock);
  for (i = 0; i < s->layers.count; i++) {
    olc_layer_file *f = &s->layers.files[i];
    olc_file_id now;
    if (olc_persist__stat(&now, f->path, NULL) != OLC_OK)
      continue; /* cannot tell: keep it, look again next time */
    if (!olc_file_id__equal(&now, &f->seen))
      layer_load(s, f, &now, &n);
  }
  olc_util__mutex_unlock(&s->layers.lock);
  notes_emit(s, &n);
}

void olc_store__layers_free(olc_store *s) {
  size_t i;
  for (i = 0; i < s->layers.count; i++) {
    olc_snapshot__unref(s->layers.files[i].snap);
    free(s->layers.files[i].path);
  }
  free(s->layers.files);
  olc_snapshot__unref(s->view);
  if (s->layers.live)
    olc_util__mutex_destroy(&s->layers.lock);
}

/* Merges the sorted parts into one sorted array of record copies (each a
 * view of its part's record); among equal identities the lower part wins
 * the earlier place, so lookups see the store's own file first. */
static olc_snapshot *view_build(olc_snapshot **parts, size_t nparts, size_t total) {
  olc_recset set = OLC_RECSET_INIT;
  size_t *pos = calloc(nparts, sizeof *pos), k;
  olc_snapshot *view;
  if (pos == NULL)
    return NULL;
  set.recs = malloc(total * sizeof *set.recs);
  if (set.recs == NULL) {
    free(pos);
    return NULL;
  }
  set.cap = total;
  while (set.count < total) {
    size_t best = nparts;
    for (k = 0; k < nparts; k++) {
      if (pos[k] == parts[k]->set.count)
        continue;
      if (best == nparts || olc_record__identity_cmp(&parts[k]->set.recs[pos[k]],
                                                     &parts[best]->set.recs[pos[best]]) < 0)
        best = k;
    }
    set.recs[set.count++] = parts[best]->set.recs[pos[best]++];
  }
  free(pos);
  view = olc_snapshot__new(&set, &parts[0]->id);
  if (view == NULL)
    return NULL;
  view->parts = parts;
  view->part_count = nparts;
  return view;
}

/* The parts of a new view: the store's snapshot, then each layer's that
 * holds records, with references; *total counts their records. */
static olc_snapshot **view_parts(olc_store *s, size_t *nparts, size_t *total, uint64_t *gen,
                                 uint64_t *lgen) {
  olc_snapshot **parts = malloc((s->layers.count + 1) * sizeof *parts);
  size_t i, n = 1;
  if (parts == NULL)
    return NULL;
  olc_util__mutex_lock(&s->layers.lock);
  *lgen = s->layers.gen;
  for (i = 0; i < s->layers.count; i++) {
    olc_snapshot *ls = s->layers.files[i].snap;
    if (ls == NULL || ls->set.count == 0)
      continue;
    olc_snapshot__ref(ls);
    parts[n++] = ls;
  }
  olc_util__mutex_unlock(&s->layers.lock);
  olc_util__mutex_lock(&s->state);
  *gen = s->gen;
  parts[0] = s->snap;
  olc_snapshot__ref(parts[0]);
  olc_util__mutex_unlock(&s->state);
  *total = 0;
  for (i = 0; i < n; i++)
    *total += parts[i]->set.count;
  *nparts = n;
  return parts;
}

static void parts_unref(olc_snapshot **parts, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    olc_snapshot__unref(parts[i]);
  free(parts);
}

olc_snapshot *olc_store__acquire_view(olc_store *s) {
  olc_snapshot **parts, *view;
  size_t nparts, total;
  uint64_t gen, lgen;
  if (s->layers.count == 0)
    return olc_store__acquire(s);
  olc_util__mutex_lock(&s->state);
  view = s->view;
  if (view != NULL && s->view_gen == s->gen && s->view_lgen == s->layers_gen_pub) {
    olc_snapshot__ref(view);
    olc_util__mutex_unlock(&s->state);
    return view;
  }
  olc_util__mutex_unlock(&s->state);
  parts = view_parts(s, &nparts, &total, &gen, &lgen);
  if (parts == NULL)
    return olc_store__acquire(s); /* out of memory: the store's own records */
  if (nparts == 1) {              /* no layer holds a record: the store's own snapshot */
    view = parts[0];
    free(parts);
  } else {
    view = view_build(parts, nparts, total);
    if (view == NULL) {
      parts_unref(parts, nparts);
      return olc_store__acquire(s);
    }
  }
  olc_util__mutex_lock(&s->state);
  if (s->gen == gen) {
    olc_snapshot *old = s->view;
    olc_snapshot__ref(view);
    s->view = view;
    s->view_gen = gen;
    s->view_lgen = lgen;
    olc_util__mutex_unlock(&s->state);
    olc_snapshot__unref(old);
    return view;
  }
  olc_util__mutex_unlock(&s->state);
  return view;
}
