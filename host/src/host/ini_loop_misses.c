/*
 * host/ini_loop_misses.c - olc_host_calibrate with the recorded option:
 * the workloads of a missed-workloads file (misses.h) as configured
 * workloads, those recorded on another processor or thread count skipped,
 * and, after the loop, each one whose selection a file holds removed from
 * the file under its lock (none for a shard: olc_recorded_remove_stored
 * after the merge does that).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"

/* "backend/operator{k=v,...}": the workload's name in results. */
static const char *entry_name(olc_arena *a, const olc_misses_entry *e) {
  olc_buf b = OLC_BUF_INIT;
  const char *name = NULL;
  olc_status st = olc_buf__puts(&b, e->backend);
  size_t i;
  if (st == OLC_OK)
    st = olc_buf__putc(&b, '/');
  if (st == OLC_OK)
    st = olc_buf__puts(&b, e->operator_name);
  for (i = 0; i < e->prop_count && st == OLC_OK; i++) {
    st = olc_buf__putc(&b, i == 0 ? '{' : ',');
    if (st == OLC_OK)
      st = olc_buf__puts(&b, e->props[i].name);
    if (st == OLC_OK)
      st = olc_buf__putc(&b, '=');
    if (st == OLC_OK)
      st = olc_buf__puts(&b, e->props[i].value);
  }
  if (st == OLC_OK && e->prop_count > 0)
    st = olc_buf__putc(&b, '}');
  if (st == OLC_OK)
    name = olc_arena__strndup(a, (const char *)b.data, b.len);
  olc_buf__free(&b);
  return name;
}

/* Why entry e is not tuned here (NULL: it is): its key on this machine
 * must have the processor and thread count it was recorded with.  A
 * workload that does not bind is left to the loop, which reports why. */
static const char *skip_reason(olc_arena *a, olc_host *host, const olc_workload_config *wc,
                               const olc_misses_entry *e) {
  char msg[OLC_ERROR_MESSAGE_SIZE];
  olc_workload w = OLC_WORKLOAD_INIT;
  olc_binding *b = NULL;
  const olc_key *k;
  olc_error err;
  w.backend = wc->backend;
  w.operator_name = wc->operator_name;
  w.properties = wc->properties;
  w.property_count = wc->property_count;
  w.model_digest = wc->model_digest;
  w.name = wc->name;
  /* The loop would take it for no model (olc_host__config_model) and
   * measure the workload without one under its identity. */
  if (olc_host__workload_identity(wc->model_digest)) {
    snprintf(msg, sizeof msg, "skipped: model '%.80s' is not a model digest (a hand edit?)",
             wc->model_digest);
    return olc_arena__strdup(a, msg);
  }
  if (olc_host__check_workload(&w, wc->name, &err) != OLC_OK ||
      olc_host__bind_with_digest(&b, host, &w, w.model_digest, &err) != OLC_OK)
    return NULL;
  k = &b->slot->key.key;
  msg[0] = '\0';
  if (k->processor == NULL || strcmp(k->processor, e->processor) != 0)
    snprintf(msg, sizeof msg, "skipped: recorded on processor '%s', this machine is '%s'",
             e->processor, k->processor != NULL ? k->processor : "");
  else if (k->thread_count != e->threads)
    snprintf(msg, sizeof msg,
             "skipped: recorded with %" PRId64 " threads, this host runs %" PRId64
             " ([host] threads)",
             e->threads, k->thread_count);
  olc_binding_free(b);
  return msg[0] != '\0' ? olc_arena__strdup(a, msg) : NULL;
}

/* FNV-1a, 64 bits, over s and its terminating zero byte. */
static uint64_t shard_hash(uint64_t h, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  do {
    h ^= *p;
    h *= 0x100000001b3u;
  } while (*p++ != '\0');
  return h;
}

uint32_t olc_host__misses_shard(const olc_misses_entry *e, uint32_t shard_count) {
  char threads[24];
  uint64_t h = 0xcbf29ce484222325u;
  if (shard_count == 0)
    return 0;
  snprintf(threads, sizeof threads, "%" PRId64, e->threads);
  h = shard_hash(h, e->backend != NULL ? e->backend : "");
  h = shard_hash(h, e->operator_name != NULL ? e->operator_name : "");
  h = shard_hash(h, e->processor != NULL ? e->processor : "");
  h = shard_hash(h, threads);
  h = shard_hash(h, e->identity != NULL ? e->identity : "");
  /* FNV's low bits follow the last bytes closely: keys that differ in one
   * digit of a shape would fill the shards unevenly.  A finalizer
   * (MurmurHash3's fmix64) spreads every bit over the result. */
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdu;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53u;
  h ^= h >> 33;
  return (uint32_t)(h % shard_count);
}

/* Reads path into r->set: every record, or only those of the shard. */
static olc_status recorded_load(olc_host_misses *r, const char *path, uint32_t shard_index,
                                uint32_t shard_count, olc_error *err) {
  olc_misses_set all = OLC_MISSES_SET_INIT;
  olc_status st;
  size_t i;
  int added;
  if (shard_count == 0)
    return olc_misses__load(&r->set, path, err);
  st = olc_misses__load(&all, path, err);
  for (i = 0; i < all.count && st == OLC_OK; i++)
    if (olc_host__misses_shard(&all.v[i], shard_count) == shard_index &&
        olc_misses__add(&r->set, &all.v[i], &added) != OLC_OK)
      st = olc_error__set(err, OLC_E_NOMEM, "calibrate", "out of memory");
  olc_misses__free(&all);
  return st;
}

olc_status olc_host__misses_open(olc_host_misses *r, olc_host *host, const char *path,
                                 uint32_t shard_index, uint32_t shard_count, olc_error *err) {
  size_t i;
  olc_status st;
  memset(r, 0, sizeof *r);
  st = recorded_load(r, path, shard_index, shard_count, err);
  if (st != OLC_OK)
    return st;
  for (i = 0; i < r->set.bad_count; i++)
    olc_diag__emit(&host->diag, OLC_DIAG_WARNING, "recorded", "%s (line skipped, kept in the file)",
                   r->set.bad[i].message);
  r->count = r->set.count;
  if (r->count == 0)
    return OLC_OK;
  r->wcs = olc_arena__alloc(&r->arena, r->count * sizeof *r->wcs);
  r->skip = olc_arena__alloc(&r->arena, r->count * sizeof *r->skip);
  if (r->wcs == NULL || r->skip == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "calibrate", "out of memory");
  for (i = 0; i < r->count; i++) {
    const olc_misses_entry *e = &r->set.v[i];
    olc_workload_config *wc = &r->wcs[i];
    memset(wc, 0, sizeof *wc);
    wc->name = entry_name(&r->arena, e);
    if (wc->name == NULL)
      return olc_error__set(err, OLC_E_NOMEM, "calibrate", "out of memory");
    wc->backend = e->backend;
    wc->operator_name = e->operator_name;
    wc->model_digest = e->model;
    wc->properties = e->props;
    wc->property_count = e->prop_count;
    wc->line = e->line;
    r->skip[i] = skip_reason(&r->arena, host, wc, e);
  }
  return OLC_OK;
}

/* 1 when res's selection is a record a file holds (the store's own or a
 * layer's), so that the workload may leave the recorded file: with
 * persistence off or on a read-only handle a fresh winner lives in this
 * process only (its source is NULL), and forgetting the workload would
 * lose it. */
static int recorded_durable(const olc_workload_result *res) {
  return res->status == OLC_OK && res->selected != NULL && res->selected->source != NULL;
}

olc_status olc_host__misses_finish(olc_calibration *cal, const olc_host_misses *r, const char *path,
                                   olc_error *err) {
  olc_misses_set done = OLC_MISSES_SET_INIT;
  olc_status st = OLC_OK;
  size_t i;
  int added;
  for (i = 0; i < r->count && st == OLC_OK; i++)
    if (r->skip[i] == NULL && recorded_durable(&cal->results[i]))
      st = olc_misses__add(&done, &r->set.v[i], &added);
  if (st != OLC_OK)
    st = olc_error__set(err, st, "calibrate", "out of memory");
  else if (done.count > 0)
    st = olc_misses__remove(&cal->recorded_removed, path, &done, OLC_MISSES_LOCK_TIMEOUT_MS, err);
  olc_misses__free(&done);
  return st;
}

/* The exact records of the store's own file, sorted by their key as a
 * recorded workload has it, for olc_recorded_remove_stored. */
typedef struct stored_keys {
  const olc_record **v;
  size_t count;
} stored_keys;

static int stored_cmp_parts(const char *backend, const char *op, const char *processor,
                            int64_t threads, const char *identity, const olc_record *r) {
  int c = strcmp(backend, r->backend);
  if (c == 0)
    c = strcmp(op, r->operator_name);
  if (c == 0)
    c = strcmp(processor, r->processor);
  if (c == 0)
    c = threads < r->thread_count ? -1 : threads > r->thread_count;
  if (c == 0)
    c = strcmp(identity, r->model_digest);
  return c;
}

static int stored_order(const void *a, const void *b) {
  const olc_record *x = *(const olc_record *const *)a, *y = *(const olc_record *const *)b;
  return stored_cmp_parts(x->backend, x->operator_name, x->processor, x->thread_count,
                          x->model_digest, y);
}

static int stored_holds(void *payload, const olc_misses_entry *e) {
  const stored_keys *k = payload;
  size_t lo = 0, hi = k->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = stored_cmp_parts(e->backend, e->operator_name, e->processor, e->threads, e->identity,
                             k->v[mid]);
    if (c == 0)
      return 1;
    if (c < 0)
      hi = mid;
    else
      lo = mid + 1;
  }
  return 0;
}

/* A record that proves its workload durably stored: exact, in the store's
 * own file (a layer is shipped by someone else; memory is lost). */
static int stored_counts(const olc_record *r) {
  return r->level == OLC_LEVEL_EXACT && r->source != NULL && !r->from_layer && r->backend != NULL &&
         r->operator_name != NULL && r->processor != NULL && r->model_digest != NULL;
}

olc_status olc_recorded_remove_stored(size_t *removed, const char *path, olc_store *store,
                                      olc_error *err) {
  olc_record_list *list = NULL;
  stored_keys k = {NULL, 0};
  olc_status st;
  size_t i, n;
  if (removed != NULL)
    *removed = 0;
  if (path == NULL || store == NULL)
    return olc_error__set(err, OLC_E_INVALID, "recorded", "no recorded-workloads file or store");
  st = olc_store_list(&list, store, err);
  if (st != OLC_OK)
    return st;
  n = olc_record_list_count(list);
  k.v = n > 0 ? malloc(n * sizeof *k.v) : NULL;
  if (n > 0 && k.v == NULL) {
    olc_record_list_free(list);
    return olc_error__set(err, OLC_E_NOMEM, "recorded", "out of memory");
  }
  for (i = 0; i < n; i++)
    if (stored_counts(olc_record_list_get(list, i)))
      k.v[k.count++] = olc_record_list_get(list, i);
  if (k.count > 1)
    qsort(k.v, k.count, sizeof *k.v, stored_order);
  st = olc_misses__remove_if(removed, path, stored_holds, &k, OLC_MISSES_LOCK_TIMEOUT_MS, err);
  free(k.v);
  olc_record_list_free(list);
  return st;
}

void olc_host__misses_free(olc_host_misses *r) {
  olc_misses__free(&r->set);
  olc_arena__free(&r->arena);
}
