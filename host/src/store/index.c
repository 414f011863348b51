/*
 * store/index.c - the candidate index of a snapshot.
 *
 * A lookup reports the records that match the key or differ from it in
 * exactly one identity field.  Scanning the key's (backend, operator)
 * bucket finds them, but costs the bucket size, which grows with the number
 * of models and machines in the store.  This index makes the cost follow
 * the size of the answer instead: every record is entered once per identity
 * field under a hash of its identity with that field left out ("leave one
 * out").  A record that differs from the key only in field F has the same
 * leave-F-out hash as the key, so probing the key's hashes finds every
 * candidate; hash collisions are filtered by the caller's exact comparison.
 *
 * The index is built on the first lookup that needs it (not at load, so a
 * reload stays a plain parse) and never changes afterwards.
 */
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "util/hash.h"

#if defined(__GNUC__) || defined(__clang__)
#define OLC_PREFETCH(p) __builtin_prefetch(p)
#else
#define OLC_PREFETCH(p) ((void)(p))
#endif

enum {
  TAG_EXACT_NO_IMPL = 1,
  TAG_EXACT_NO_MODEL,
  TAG_EXACT_NO_PROCESSOR,
  TAG_EXACT_NO_THREADS,
  TAG_PORTABLE_NO_IMPL,
  TAG_PORTABLE_NO_STRUCTURE
};

/* One entry per (record, left-out field); hash, record and chain link
 * share a cache line. */
typedef struct cand_entry {
  uint64_t hash;
  uint32_t rec;
  uint32_t next; /* UINT32_MAX ends the chain */
} cand_entry;

struct olc_cand_index {
  uint32_t *heads; /* mask + 1 chain heads; UINT32_MAX = empty */
  cand_entry *entries;
  uint64_t mask;
  size_t count;
};

static uint64_t combine(uint64_t a, uint64_t b) {
  return olc_hash__mix(a + 0x9e3779b97f4a7c15ULL * b + 1);
}

void olc_cand__fields(olc_cand_fields *f, const char *backend, const char *operator_name,
                      const char *implementation, const char *model, const char *processor,
                      int64_t threads, const olc_property *structure, size_t count) {
  size_t i;
  f->bucket = olc_hash__str(olc_hash__str(0, backend), operator_name);
  f->impl = olc_hash__str(1, implementation);
  f->model = olc_hash__str(2, model);
  f->processor = olc_hash__str(3, processor);
  f->threads = olc_hash__mix((uint64_t)threads ^ 0x5555);
  f->structure = olc_hash__mix((uint64_t)count + 7);
  for (i = 0; i < count; i++)
    f->structure =
        olc_hash__str(olc_hash__str(f->structure, structure[i].name), structure[i].value);
}

static uint64_t leave_out(const olc_cand_fields *f, int tag) {
  uint64_t h = combine(f->bucket, (uint64_t)tag);
  switch (tag) {
  case TAG_EXACT_NO_IMPL:
    return combine(combine(combine(h, f->model), f->processor), f->threads);
  case TAG_EXACT_NO_MODEL:
    return combine(combine(combine(h, f->impl), f->processor), f->threads);
  case TAG_EXACT_NO_PROCESSOR:
    return combine(combine(combine(h, f->impl), f->model), f->threads);
  case TAG_EXACT_NO_THREADS:
    return combine(combine(combine(h, f->impl), f->model), f->processor);
  case TAG_PORTABLE_NO_IMPL:
    return combine(h, f->structure);
  default:
    return combine(h, f->impl);
  }
}

static void record_fields(olc_cand_fields *f, const olc_record *r) {
  olc_cand__fields(f, r->backend, r->operator_name, r->implementation, r->model_digest,
                   r->processor, r->thread_count, r->structure, r->structure_count);
}

static void index_free(olc_cand_index *ix) {
  if (ix == NULL)
    return;
  free(ix->heads);
  free(ix->entries);
  free(ix);
}

static void insert(olc_cand_index *ix, uint64_t h, size_t rec) {
  size_t slot = (size_t)(h & ix->mask), e = ix->count++;
  ix->entries[e].hash = h;
  ix->entries[e].rec = (uint32_t)rec;
  ix->entries[e].next = ix->heads[slot];
  ix->heads[slot] = (uint32_t)e;
}

static olc_cand_index *index_build(const olc_recset *set) {
  olc_cand_index *ix;
  size_t entries = 0, slots = 16, i;
  for (i = 0; i < set->count; i++)
    entries += set->recs[i].level == OLC_LEVEL_EXACT ? 4 : 2;
  if (set->count >= UINT32_MAX / 4)
    return NULL;
  while (slots < entries)
    slots *= 2;
  ix = calloc(1, sizeof *ix);
  if (ix == NULL)
    return NULL;
  ix->heads = malloc(slots * sizeof *ix->heads);
  ix->entries = malloc((entries + 1) * sizeof *ix->entries);
  if (ix->heads == NULL || ix->entries == NULL) {
    index_free(ix);
    return NULL;
  }
  memset(ix->heads, 0xff, slots * sizeof *ix->heads);
  ix->mask = slots - 1;
  for (i = 0; i < set->count; i++) {
    olc_cand_fields f;
    int tag;
    record_fields(&f, &set->recs[i]);
    if (set->recs[i].level == OLC_LEVEL_EXACT) {
      for (tag = TAG_EXACT_NO_IMPL; tag <= TAG_EXACT_NO_THREADS; tag++)
        insert(ix, leave_out(&f, tag), i);
    } else {
      insert(ix, leave_out(&f, TAG_PORTABLE_NO_IMPL), i);
      insert(ix, leave_out(&f, TAG_PORTABLE_NO_STRUCTURE), i);
    }
  }
  return ix;
}

/* The index, built once; NULL when out of memory (the caller scans). */
static olc_cand_index *index_get(olc_snapshot *snap) {
  olc_cand_index *ix;
  if (olc_flag__get(&snap->cand_ready))
    return snap->cand;
  olc_mutex__lock(&snap->cand_lock);
  if (!olc_flag__get(&snap->cand_ready)) {
    snap->cand = index_build(&snap->set);
    if (snap->cand != NULL)
      olc_flag__set(&snap->cand_ready);
  }
  ix = snap->cand;
  olc_mutex__unlock(&snap->cand_lock);
  return ix;
}

void olc_cand__free(olc_cand_index *ix) { index_free(ix); }

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

static void sort_indices(size_t *v, size_t n) {
  size_t i, j;
  if (n > 16) {
    qsort(v, n, sizeof *v, cmp_size);
    return;
  }
  for (i = 1; i < n; i++) {
    size_t x = v[i];
    for (j = i; j > 0 && v[j - 1] > x; j--)
      v[j] = v[j - 1];
    v[j] = x;
  }
}

olc_status olc_cand__find(size_t **out, size_t *count, olc_snapshot *snap,
                          const olc_cand_fields *key, int exact, int portable, size_t *buf,
                          size_t buf_cap) {
  olc_cand_index *ix = index_get(snap);
  size_t *found = buf, n = 0, cap = buf_cap, i, u;
  uint64_t hs[TAG_PORTABLE_NO_STRUCTURE + 1];
  uint32_t first[TAG_PORTABLE_NO_STRUCTURE + 1];
  int tag;
  *out = NULL;
  *count = 0;
  if (ix == NULL)
    return OLC_E_NOMEM;
  /* The probes are independent: issue their memory loads together so that
   * the cache misses of a large store overlap instead of adding up. */
  for (tag = TAG_EXACT_NO_IMPL; tag <= TAG_PORTABLE_NO_STRUCTURE; tag++) {
    hs[tag] = leave_out(key, tag);
    OLC_PREFETCH(&ix->heads[hs[tag] & ix->mask]);
  }
  for (tag = TAG_EXACT_NO_IMPL; tag <= TAG_PORTABLE_NO_STRUCTURE; tag++) {
    first[tag] = ix->heads[hs[tag] & ix->mask];
    if (first[tag] != UINT32_MAX)
      OLC_PREFETCH(&ix->entries[first[tag]]);
  }
  for (tag = TAG_EXACT_NO_IMPL; tag <= TAG_PORTABLE_NO_STRUCTURE; tag++) {
    uint64_t h = hs[tag];
    uint32_t e;
    if (tag <= TAG_EXACT_NO_THREADS ? !exact : !portable)
      continue;
    for (e = first[tag]; e != UINT32_MAX; e = ix->entries[e].next) {
      if (ix->entries[e].hash != h)
        continue;
      if (n == cap) {
        size_t ncap = cap ? cap * 2 : 16;
        size_t *p = malloc(ncap * sizeof *p);
        if (p == NULL) {
          if (found != buf)
            free(found);
          return OLC_E_NOMEM;
        }
        if (n > 0)
          memcpy(p, found, n * sizeof *p);
        if (found != buf)
          free(found);
        found = p;
        cap = ncap;
      }
      found[n++] = ix->entries[e].rec;
    }
  }
  /* A matching record is found under every tag: keep each record once, in
   * canonical order. */
  sort_indices(found, n);
  for (i = 0, u = 0; i < n; i++)
    if (u == 0 || found[u - 1] != found[i])
      found[u++] = found[i];
  *out = found;
  *count = u;
  return OLC_OK;
}
