/*
 * store/save.c - every change to the store goes through one path: build the
 * pending operations, then either merge them into the file under the
 * inter-process lock (olc_persist__update with a transform that parses the
 * latest file, applies the operations and writes canonical bytes), or, with
 * persistence off, into a copy of the in-memory snapshot.  The new snapshot
 * is published only after the write succeeded.  A read-only handle keeps
 * calibrated saves in its overlay (no file-system call) and refuses every
 * other write, and a store on a network file system refuses writes unless
 * allowed (writable.c).
 */
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "util/error.h"

typedef struct store_ops {
  olc_recset puts;       /* records inserted or replacing the same identity */
  olc_record removes[2]; /* identities to remove (override removal) */
  size_t remove_count;
  olc_record_predicate_fn predicate; /* remove_if */
  void *predicate_payload;
  const olc_recset *import; /* merged, replacing equal identities */
  size_t removed;           /* out: records removed */
} store_ops;

#define STORE_OPS_INIT                                                                             \
  { OLC_RECSET_INIT, {{0}}, 0, NULL, NULL, NULL, 0 }

/* Position of the first record not below probe in a normalized set. */
static size_t lower_bound(const olc_recset *set, const olc_record *probe, int *found) {
  size_t lo = 0, hi = set->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (olc_record__identity_cmp(&set->recs[mid], probe) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  *found = lo < set->count && olc_record__identity_cmp(&set->recs[lo], probe) == 0;
  return lo;
}

static olc_status apply_removals(olc_recset *set, store_ops *ops) {
  unsigned char *dead;
  size_t i, out;
  if (ops->remove_count == 0 && ops->predicate == NULL)
    return OLC_OK;
  dead = calloc(set->count + 1, 1);
  if (dead == NULL)
    return OLC_E_NOMEM;
  for (i = 0; i < ops->remove_count; i++) {
    int found;
    size_t pos = lower_bound(set, &ops->removes[i], &found);
    if (found)
      dead[pos] = 1;
  }
  if (ops->predicate != NULL)
    for (i = 0; i < set->count; i++)
      if (!dead[i] && ops->predicate(&set->recs[i], ops->predicate_payload) != 0)
        dead[i] = 1;
  out = 0;
  for (i = 0; i < set->count; i++) {
    if (dead[i]) {
      ops->removed++;
      continue;
    }
    set->recs[out++] = set->recs[i];
  }
  set->count = out;
  free(dead);
  return OLC_OK;
}

/* Inserts copies of the pending records at their canonical positions: a
 * binary search and one memmove each, so a save into a large store does not
 * re-sort it. */
olc_status olc_store__apply_puts(olc_recset *set, const olc_recset *puts) {
  size_t i;
  for (i = 0; i < puts->count; i++) {
    int found;
    size_t pos = lower_bound(set, &puts->recs[i], &found);
    olc_record copy;
    olc_status st = olc_recset__append_copy(set, &puts->recs[i]);
    if (st != OLC_OK)
      return st;
    copy = set->recs[set->count - 1];
    if (found) {
      set->recs[pos] = copy;
      set->count--;
    } else {
      memmove(&set->recs[pos + 1], &set->recs[pos], (set->count - 1 - pos) * sizeof copy);
      set->recs[pos] = copy;
    }
  }
  return OLC_OK;
}

static olc_status apply_ops(olc_recset *set, store_ops *ops, olc_error *err) {
  olc_status st;
  size_t i;
  ops->removed = 0;
  st = apply_removals(set, ops);
  if (st == OLC_OK)
    st = olc_store__apply_puts(set, &ops->puts);
  if (st == OLC_OK && ops->import != NULL) {
    for (i = 0; i < ops->import->count && st == OLC_OK; i++)
      st = olc_recset__append_copy(set, &ops->import->recs[i]);
    if (st == OLC_OK)
      olc_recset__normalize(set);
  }
  if (st != OLC_OK)
    return olc_error__set(err, st, "merge", "out of memory merging the store");
  return OLC_OK;
}

typedef struct write_ctx {
  olc_store *store;
  store_ops *ops;
  olc_snapshot *base; /* the snapshot when the save began */
  olc_recset merged;
  /* merged's records are base's (their strings in base's shares), but for
   * the new ones in merged.arena */
  int shallow;
  size_t *offs; /* merged.count + 1: each record's offset in the bytes */
} write_ctx;

/* Saves that may share arenas before one copies the records again: each
 * share holds the records of one save, some of them replaced since. */
#define SAVE_MAX_SHARES 32

static int str_eq(const char *a, const char *b) {
  return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Equal records write equal bytes: identity, measurements (values bit for
 * bit: the file holds their shortest round-trip text) and policy. */
static int record_eq(const olc_record *a, const olc_record *b) {
  size_t i;
  if (olc_record__identity_cmp(a, b) != 0 || a->measurement_count != b->measurement_count ||
      a->policy_len != b->policy_len ||
      (a->policy_len != 0 && memcmp(a->policy, b->policy, a->policy_len) != 0))
    return 0;
  for (i = 0; i < a->measurement_count; i++) {
    const olc_measurement *x = &a->measurements[i], *y = &b->measurements[i];
    if (!str_eq(x->name, y->name) || !str_eq(x->unit, y->unit) ||
        memcmp(&x->value, &y->value, sizeof x->value) != 0)
      return 0;
  }
  return 1;
}

/* 1 when two canonical sets would be written as the same bytes. */
static int same_records(const olc_recset *a, const olc_recset *b) {
  size_t i;
  if (a->count != b->count)
    return 0;
  for (i = 0; i < a->count; i++)
    if (!record_eq(&a->recs[i], &b->recs[i]))
      return 0;
  return 1;
}

/* A deep copy of a snapshot's records (canonical already). */
static olc_status copy_records(olc_recset *out, const olc_snapshot *snap, olc_error *err) {
  size_t i;
  olc_status st = OLC_OK;
  for (i = 0; i < snap->set.count && st == OLC_OK; i++)
    st = olc_recset__append_copy(out, &snap->set.recs[i]);
  if (st != OLC_OK)
    return olc_error__set(err, st, "merge", "out of memory copying the store");
  return OLC_OK;
}

/* The base when the file is the one base was saved as (persist.h): base's
 * records, nothing parsed; their array only, when base kept its bytes. */
static olc_status known_base(write_ctx *w, olc_error *err) {
  const olc_save_keep *k = w->base->keep;
  if (k == NULL || k->nshares >= SAVE_MAX_SHARES)
    return copy_records(&w->merged, w->base, err);
  if (olc_keep__shallow_copy(&w->merged, &w->base->set) != OLC_OK)
    return olc_error__set(err, OLC_E_NOMEM, "merge", "out of memory copying the store");
  w->shallow = 1;
  return OLC_OK;
}

/* After a shallow merge: 1 when out is base's kept text, record by
 * record (the reused ones at their old place, the others equal to the
 * bytes they replaced), without comparing the whole file. */
static int same_text(const write_ctx *w, const olc_buf *out, const olc_format_span *spans) {
  const olc_save_keep *k = w->base->keep;
  size_t i;
  if (w->merged.count != w->base->set.count || out->len != k->text.len)
    return 0;
  for (i = 0; i < w->merged.count; i++) {
    const unsigned char *old = k->text.data + k->offs[i];
    size_t len = k->offs[i + 1] - k->offs[i];
    if (spans[i].bytes != NULL
            ? spans[i].bytes != old
            : w->offs[i + 1] - w->offs[i] != len || memcmp(out->data + w->offs[i], old, len) != 0)
      return 0;
  }
  return 1;
}

/* The merged set's text, with the kept bytes of base's unchanged records
 * copied as they are (a shallow merge), and each record's offset. */
static olc_status serialize(write_ctx *w, olc_buf *out, int *unchanged, olc_error *err) {
  olc_format_span *spans = NULL;
  size_t n = w->merged.count;
  olc_status st;
  free(w->offs);
  w->offs = malloc((n + 1) * sizeof *w->offs);
  if (w->shallow)
    spans = malloc((n > 0 ? n : 1) * sizeof *spans);
  if (w->offs == NULL || (w->shallow && spans == NULL)) {
    free(spans);
    return olc_error__set(err, OLC_E_NOMEM, "merge", "out of memory writing the store");
  }
  if (spans != NULL)
    olc_keep__spans(spans, &w->merged, w->base);
  st = olc_format__write_spans(out, w->offs, &w->merged, spans);
  if (st == OLC_OK && spans != NULL)
    *unchanged = same_text(w, out, spans);
  free(spans);
  if (st != OLC_OK)
    return olc_error__set(err, st, "merge", "out of memory writing the store");
  return olc_store__check_write_size(w->store, out->len, "merge", err);
}

static olc_status merge_transform(olc_buf *out, int *unchanged, const unsigned char *base,
                                  size_t base_len, int base_exists, void *payload, olc_error *err) {
  write_ctx *w = payload;
  olc_status st = OLC_OK;
  olc_recset__free(&w->merged);
  olc_recset__init(&w->merged);
  w->shallow = 0;
  if (base_exists == OLC_PERSIST_BASE_KNOWN) {
    st = known_base(w, err);
  } else if (base_exists) {
    /* A file this version cannot read is never overwritten. */
    st = olc_format__parse(&w->merged, base, base_len, &w->store->limits, err);
    if (st == OLC_OK)
      olc_recset__normalize(&w->merged);
  }
  if (st == OLC_OK)
    st = apply_ops(&w->merged, w->ops, err);
  if (st == OLC_OK)
    st = serialize(w, out, unchanged, err);
  if (st != OLC_OK || w->shallow)
    return st;
  if (base_exists == OLC_PERSIST_BASE_KNOWN)
    *unchanged = same_records(&w->merged, &w->base->set);
  else if (base_exists && out->len == base_len &&
           (base_len == 0 || memcmp(out->data, base, base_len) == 0))
    *unchanged = 1;
  return OLC_OK;
}

/* The record of r's identity in set (normalized), or NULL. */
static const olc_record *find_record(const olc_recset *set, const olc_record *r) {
  int found;
  size_t pos = lower_bound(set, r, &found);
  return found ? &set->recs[pos] : NULL;
}

/* Two versions of one identity (NULL: absent) are the same. */
static int same_version(const olc_record *a, const olc_record *b) {
  return a == NULL || b == NULL ? a == b : record_eq(a, b);
}

/* persist's absorb (persist.h): a file another writer committed while
 * this one was committing (P.lock replaced while held) descends from
 * ancestor, the file this one merged into, so what it changed from there
 * (a save, an override removal, a prune) joins the file now in place,
 * unless that file changed the same identity itself since (the later
 * change): a removal reported done stays done.  With no ancestor (persist
 * cannot tell what the other file descends from) the records the current
 * file lacks join it: a save is never lost, a removal may be undone. */
static olc_status absorb_records(olc_buf *out, const unsigned char *base, size_t base_len,
                                 int base_exists, const unsigned char *ancestor,
                                 size_t ancestor_len, int ancestor_exists,
                                 const unsigned char *displaced, size_t displaced_len,
                                 void *payload, olc_error *err) {
  write_ctx *w = payload;
  olc_recset cur = OLC_RECSET_INIT, anc = OLC_RECSET_INIT, other = OLC_RECSET_INIT;
  olc_recset res = OLC_RECSET_INIT;
  olc_status st = OLC_OK;
  size_t i;
  if (base_exists)
    st = olc_format__parse(&cur, base, base_len, &w->store->limits, err);
  if (st == OLC_OK && ancestor_exists)
    st = olc_format__parse(&anc, ancestor, ancestor_len, &w->store->limits, err);
  if (st == OLC_OK)
    st = olc_format__parse(&other, displaced, displaced_len, &w->store->limits, err);
  if (st == OLC_OK) {
    olc_recset__normalize(&cur);
    olc_recset__normalize(&anc);
    olc_recset__normalize(&other);
    /* Every identity of base: the other writer's version where it changed
     * it (none: it removed it) and base did not. */
    for (i = 0; i < cur.count && st == OLC_OK; i++) {
      const olc_record *c = &cur.recs[i], *a = find_record(&anc, c), *d = find_record(&other, c);
      const olc_record *keep = c;
      if (!same_version(a, d) && same_version(c, a))
        keep = d;
      if (keep != NULL)
        st = olc_recset__append_copy(&res, keep);
    }
    /* Identities base lacks: the other writer's additions (one the
     * ancestor had was removed here since, later). */
    for (i = 0; i < other.count && st == OLC_OK; i++)
      if (find_record(&cur, &other.recs[i]) == NULL && find_record(&anc, &other.recs[i]) == NULL)
        st = olc_recset__append_copy(&res, &other.recs[i]);
    if (st == OLC_OK) {
      olc_recset__normalize(&res);
      st = olc_format__write(out, &res);
    }
    if (st != OLC_OK)
      olc_error__set(err, st, "merge", "out of memory merging a displaced file");
  }
  olc_recset__free(&cur);
  olc_recset__free(&anc);
  olc_recset__free(&other);
  olc_recset__free(&res);
  return st;
}

olc_status olc_store__check_write_size(const olc_store *store, size_t len, const char *where,
                                       olc_error *err) {
  static const olc_format_limits defaults = OLC_FORMAT_LIMITS_DEFAULT;
  size_t max = store->limits.max_file_size;
  /* A file that this handle or a default reader refuses to read would lock
   * every later command out until a repair quarantines it: never written.
   * Values and fields per record were checked against the built-in limits
   * when the records were built or read. */
  if (max == 0 || max > defaults.max_file_size)
    max = defaults.max_file_size;
  if (len <= max)
    return OLC_OK;
  return olc_error__set(err, OLC_E_LIMIT, where,
                        "the file would be %llu bytes, more than the %llu a reader accepts; "
                        "nothing written",
                        (unsigned long long)len, (unsigned long long)max);
}

/* With persistence off: the same merge on a private copy of the snapshot. */
static olc_status commit_memory(olc_store *store, store_ops *ops, olc_error *err) {
  olc_recset merged = OLC_RECSET_INIT;
  olc_snapshot *cur = olc_store__acquire(store), *next;
  olc_status st = OLC_OK;
  size_t i;
  for (i = 0; i < cur->set.count && st == OLC_OK; i++)
    st = olc_recset__append_copy(&merged, &cur->set.recs[i]);
  olc_snapshot__unref(cur);
  if (st != OLC_OK) {
    olc_recset__free(&merged);
    return olc_error__set(err, st, "merge", "out of memory copying the store");
  }
  st = apply_ops(&merged, ops, err);
  if (st != OLC_OK) {
    olc_recset__free(&merged);
    return st;
  }
  next = olc_snapshot__new(&merged, NULL);
  if (next == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "merge", "out of memory publishing the store");
  olc_store__publish(store, next);
  return OLC_OK;
}

/* The snapshot of what the save left in the file: the merged set, with
 * the bytes written kept (text, when there are any) for the next save.
 * NULL on out of memory: the old snapshot stays, and change detection
 * replaces it at the next look. */
static olc_snapshot *saved_snapshot(write_ctx *w, const olc_persist_known *after, olc_buf *text) {
  olc_snapshot *next = olc_snapshot__new(&w->merged, &after->id);
  if (next == NULL)
    return NULL;
  next->saved = after->id.exists && after->gen != OLC_PERSIST_GEN_NONE;
  next->known = *after;
  if (text->data != NULL && next->saved) {
    next->keep = olc_keep__new(w->shallow ? w->base->keep : NULL, &next->set.arena, text, w->offs);
    if (next->keep != NULL)
      w->offs = NULL;
  }
  if (next->keep == NULL && w->shallow) {
    /* Its records' strings are in base's shares, which only a keep holds. */
    olc_snapshot__unref(next);
    return NULL;
  }
  return next;
}

static olc_status commit_file(olc_store *store, store_ops *ops, olc_error *err) {
  olc_persist_options po;
  olc_persist_known after;
  olc_buf text = OLC_BUF_INIT;
  write_ctx w;
  olc_snapshot *next;
  olc_status st;
  memset(&w, 0, sizeof w);
  w.store = store;
  w.ops = ops;
  w.base = olc_store__acquire(store);
  olc_recset__init(&w.merged);
  olc_store__persist_options(&po, store);
  po.absorb = absorb_records;
  text = store->spare; /* its memory, if any, is reused for the output */
  memset(&store->spare, 0, sizeof store->spare);
  st = olc_persist__update_known(&after, NULL, store->path, &po,
                                 w.base->saved ? &w.base->known : NULL, &text, merge_transform, &w,
                                 err);
  /* Unchanged after a shallow merge: base is still the file, as it was. */
  if ((st == OLC_OK || st == OLC_COMMITTED_UNSYNCED) && !(w.shallow && text.data == NULL)) {
    next = saved_snapshot(&w, &after, &text);
    if (next != NULL) {
      olc_store__publish(store, next);
      /* Only the current snapshot's bytes are read by a save (under this
       * mutex), so base's are free now: the next save writes into them. */
      if (w.base->keep != NULL) {
        store->spare = w.base->keep->text;
        memset(&w.base->keep->text, 0, sizeof w.base->keep->text);
      }
    }
  }
  olc_buf__free(&text);
  free(w.offs);
  olc_recset__free(&w.merged);
  olc_snapshot__unref(w.base);
  return st;
}

/* 1 when ops only save calibrated records (what a read-only handle keeps
 * in memory). */
static int only_calibrated_puts(const store_ops *ops) {
  size_t i;
  if (ops->remove_count != 0 || ops->predicate != NULL || ops->import != NULL)
    return 0;
  for (i = 0; i < ops->puts.count; i++)
    if (ops->puts.recs[i].origin != OLC_ORIGIN_CALIBRATED)
      return 0;
  return 1;
}

/* A read-only handle's save: into the overlay, which every later reload
 * lays over the file, and into the current snapshot (its file identity
 * kept, so no reload follows).  No file-system call. */
static olc_status commit_overlay(olc_store *store, store_ops *ops, olc_error *err) {
  olc_recset merged = OLC_RECSET_INIT;
  olc_snapshot *cur, *next;
  olc_status st = OLC_OK;
  size_t i;
  olc_util__mutex_lock(&store->reload);
  cur = olc_store__acquire(store);
  for (i = 0; i < cur->set.count && st == OLC_OK; i++)
    st = olc_recset__append_copy(&merged, &cur->set.recs[i]);
  if (st == OLC_OK)
    st = olc_store__apply_puts(&merged, &ops->puts);
  if (st == OLC_OK)
    st = olc_store__apply_puts(&store->overlay, &ops->puts);
  next = st == OLC_OK ? olc_snapshot__new(&merged, &cur->id) : NULL;
  olc_snapshot__unref(cur);
  if (next != NULL)
    olc_store__publish(store, next);
  olc_util__mutex_unlock(&store->reload);
  if (next == NULL) {
    olc_recset__free(&merged);
    return olc_error__set(err, OLC_E_NOMEM, "merge", "out of memory keeping a save in memory");
  }
  if (!store->said_read_only) {
    store->said_read_only = 1;
    olc_diag__emit(&store->diag, OLC_DIAG_WARNING, "read_only",
                   "%s is read-only: saves are kept in memory, nothing is written", store->path);
  }
  return OLC_OK;
}

static olc_status commit_any(olc_store *store, store_ops *ops, const char *what, olc_error *err) {
  olc_status st;
  if (!store->persist)
    return commit_memory(store, ops, err);
  if (store->read_only && only_calibrated_puts(ops))
    return commit_overlay(store, ops, err);
  st = olc_store__check_write(store, what, err);
  return st == OLC_OK ? commit_file(store, ops, err) : st;
}

static olc_status commit(olc_store *store, store_ops *ops, const char *what, olc_error *err) {
  olc_status st;
  olc_util__mutex_lock(&store->write);
  olc_store__fork_writing(store); /* a fork from a predicate must not wait for it */
  st = commit_any(store, ops, what, err);
  olc_store__fork_writing(NULL);
  olc_util__mutex_unlock(&store->write);
  return st;
}

static olc_status save_origin(olc_store *store, const olc_save_request *request, olc_origin origin,
                              olc_error *err) {
  store_ops ops = STORE_OPS_INIT;
  olc_status st;
  if (store == NULL)
    return olc_error__set(err, OLC_E_INVALID, "save", "store handle is NULL");
  /* Serializer and validator run before any lock is taken. */
  st = olc_store__build_records(&ops.puts, request, origin, err);
  if (st == OLC_OK)
    st = commit(store, &ops, origin == OLC_ORIGIN_OVERRIDE ? "override" : "save", err);
  olc_recset__free(&ops.puts);
  return st;
}

olc_status olc_store_save(olc_store *store, const olc_save_request *request, olc_error *err) {
  return save_origin(store, request, OLC_ORIGIN_CALIBRATED, err);
}

olc_status olc_store_install_override(olc_store *store, const olc_save_request *request,
                                      olc_error *err) {
  return save_origin(store, request, OLC_ORIGIN_OVERRIDE, err);
}

olc_status olc_store_remove_override(olc_store *store, const olc_key *key, unsigned levels,
                                     olc_error *err) {
  store_ops ops = STORE_OPS_INIT;
  olc_property *props = NULL;
  unsigned mask = 0;
  olc_status st;
  if (store == NULL)
    return olc_error__set(err, OLC_E_INVALID, "remove", "store handle is NULL");
  st = olc_store__check_key(&props, key, "key", err);
  if (st == OLC_OK)
    st = olc_store__levels(&mask, key, levels, "key", err);
  if (st != OLC_OK)
    goto done;
  if ((mask & OLC_LEVEL_BIT_EXACT) != 0) {
    olc_record *r = &ops.removes[ops.remove_count++];
    r->level = OLC_LEVEL_EXACT;
    r->origin = OLC_ORIGIN_OVERRIDE;
    r->backend = key->backend;
    r->operator_name = key->operator_name;
    r->implementation = key->implementation;
    r->model_digest = key->model_digest;
    r->processor = key->processor;
    r->thread_count = key->thread_count;
  }
  if ((mask & OLC_LEVEL_BIT_PORTABLE) != 0) {
    olc_record *r = &ops.removes[ops.remove_count++];
    r->level = OLC_LEVEL_PORTABLE;
    r->origin = OLC_ORIGIN_OVERRIDE;
    r->backend = key->backend;
    r->operator_name = key->operator_name;
    r->implementation = key->implementation;
    r->structure = props;
    r->structure_count = key->structure_count;
  }
  st = commit(store, &ops, "remove", err);
  if ((st == OLC_OK || st == OLC_COMMITTED_UNSYNCED) && ops.removed == 0)
    st = olc_error__set(err, OLC_E_NOT_FOUND, "remove",
                        "no override for backend \"%.60s\" operator \"%.60s\" implementation "
                        "\"%.60s\" at the given levels",
                        key->backend, key->operator_name, key->implementation);
done:
  free(props);
  return st;
}

olc_status olc_store_remove_if(olc_store *store, olc_record_predicate_fn predicate, void *payload,
                               size_t *removed, olc_error *err) {
  store_ops ops = STORE_OPS_INIT;
  olc_status st;
  if (removed != NULL)
    *removed = 0;
  if (store == NULL || predicate == NULL)
    return olc_error__set(err, OLC_E_INVALID, "remove_if", "store or predicate is NULL");
  ops.predicate = predicate;
  ops.predicate_payload = payload;
  st = commit(store, &ops, "remove", err);
  if (removed != NULL && (st == OLC_OK || st == OLC_COMMITTED_UNSYNCED))
    *removed = ops.removed;
  return st;
}

olc_status olc_store__import_set(olc_store *store, const olc_recset *set, olc_error *err) {
  store_ops ops = STORE_OPS_INIT;
  ops.import = set;
  return commit(store, &ops, "import", err);
}
