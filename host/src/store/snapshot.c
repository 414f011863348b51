/* store/snapshot.c - immutable, reference-counted record snapshots. */
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"

#if defined(_WIN32)
int olc_flag__get(olc_flag *f) { return InterlockedCompareExchange(f, 0, 0) != 0; }
void olc_flag__set(olc_flag *f) { InterlockedExchange(f, 1); }
static void refs_init(olc_refcount *r) { *r = 1; }
static void refs_inc(olc_refcount *r) { InterlockedIncrement(r); }
static int refs_dec_is_last(olc_refcount *r) { return InterlockedDecrement(r) == 0; }
#else
int olc_flag__get(olc_flag *f) { return atomic_load_explicit(f, memory_order_acquire) != 0; }
void olc_flag__set(olc_flag *f) { atomic_store_explicit(f, 1, memory_order_release); }
static void refs_init(olc_refcount *r) { atomic_init(r, 1); }
static void refs_inc(olc_refcount *r) { atomic_fetch_add_explicit(r, 1, memory_order_relaxed); }
static int refs_dec_is_last(olc_refcount *r) {
  return atomic_fetch_sub_explicit(r, 1, memory_order_acq_rel) == 1;
}
#endif

static int bucket_cmp(const olc_record *r, const char *backend, const char *operator_name) {
  int c = strcmp(r->backend, backend);
  return c != 0 ? c : strcmp(r->operator_name, operator_name);
}

olc_snapshot *olc_snapshot__new(olc_recset *set, const olc_file_id *id) {
  olc_snapshot *snap = calloc(1, sizeof *snap);
  if (snap == NULL) {
    olc_recset__free(set);
    return NULL;
  }
  refs_init(&snap->refs);
  olc_util__mutex_init(&snap->cand_lock);
  snap->set = *set;
  olc_recset__init(set);
  if (id != NULL)
    snap->id = *id;
  return snap;
}

void olc_snapshot__ref(olc_snapshot *snap) {
  if (snap != NULL)
    refs_inc(&snap->refs);
}

void olc_snapshot__unref(olc_snapshot *snap) {
  if (snap == NULL || !refs_dec_is_last(&snap->refs))
    return;
  olc_recset__free(&snap->set);
  olc_keep__free(snap->keep);
  olc_cand__free(snap->cand[OLC_CAND_KEY_INDEX]);
  olc_cand__free(snap->cand[OLC_CAND_WORKLOAD_INDEX]);
  olc_util__mutex_destroy(&snap->cand_lock);
  if (snap->parts != NULL) {
    size_t i;
    for (i = 0; i < snap->part_count; i++)
      olc_snapshot__unref(snap->parts[i]);
    free(snap->parts);
  }
  free(snap);
}

const olc_record *olc_snapshot__at(const olc_snapshot *snap, size_t pos) {
  return &snap->set.recs[pos];
}

/* The first position whose record does not order before (backend,
 * operator). */
static size_t bucket_lower(const olc_snapshot *snap, const char *backend,
                           const char *operator_name) {
  size_t lo = 0, hi = snap->set.count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (bucket_cmp(olc_snapshot__at(snap, mid), backend, operator_name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The end of the bucket that begins at first: galloping (steps 1, 2, 4...)
 * then a binary search, so that it costs O(log size) of the bucket, small
 * buckets included. */
static size_t bucket_end(const olc_snapshot *snap, size_t first, const char *backend,
                         const char *operator_name) {
  size_t lo = first, step = 1, hi;
  while (lo + step < snap->set.count &&
         bucket_cmp(olc_snapshot__at(snap, lo + step), backend, operator_name) == 0) {
    lo += step;
    step *= 2;
  }
  /* lo is in the bucket (or first, when it is empty); lo + step is not. */
  if (lo == first && (first == snap->set.count ||
                      bucket_cmp(olc_snapshot__at(snap, first), backend, operator_name) != 0))
    return first;
  hi = lo + step < snap->set.count ? lo + step : snap->set.count;
  lo++;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (bucket_cmp(olc_snapshot__at(snap, mid), backend, operator_name) == 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void olc_snapshot__bucket(const olc_snapshot *snap, const char *backend, const char *operator_name,
                          size_t *first, size_t *count) {
  size_t lo = bucket_lower(snap, backend, operator_name);
  *first = lo;
  *count = bucket_end(snap, lo, backend, operator_name) - lo;
}
