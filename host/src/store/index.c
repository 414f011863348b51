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
 * A scoped lookup (OLC_LOOKUP_SCOPE_WORKLOAD) must not see the records of
 * other workloads, and with per-workload digests every other shape of the
 * bucket differs from the key in the model digest alone: the leave-model-out
 * chain holds the whole bucket.  A second index serves it: each exact
 * record once, under its identity with the model left out but its
 * workload identity kept, or, for a legacy record (no workload identity),
 * under its model digest alone, which the key's model part probes.
 *
 * Each index is built on the first lookup that needs it (not at load, so a
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
  TAG_PORTABLE_NO_STRUCTURE,
  /* the workload index */
  TAG_EXACT_NO_MODEL_IN_WORKLOAD,
  TAG_EXACT_LEGACY_MODEL,
  TAG_COUNT,
  /* the key index: one entry per bucket (backend, operator) */
  TAG_BUCKET = TAG_COUNT
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
  /* Key index: bucket b holds the records [starts[b], starts[b + 1]); its
   * TAG_BUCKET entry's rec is b, so a lookup learns the bucket's size
   * without a binary search over the records. */
  uint32_t *starts;
  size_t buckets;
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
  f->has_workload = f->has_model_part = 0;
  f->workload = f->model_part = 0;
}

void olc_cand__workload_fields(olc_cand_fields *f, const char *model) {
  const char *workload = olc_store_workload_of_digest(model);
  size_t part = olc_store__digest_model_part(model);
  f->has_workload = workload != NULL;
  f->workload = olc_hash__str(4, workload);
  /* Hashed like a whole digest, so it meets a legacy record's model. */
  f->has_model_part = part != (size_t)-1;
  f->model_part = f->has_model_part ? olc_hash__mem(2, model, part) : 0;
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
  case TAG_PORTABLE_NO_STRUCTURE:
    return combine(h, f->impl);
  case TAG_EXACT_NO_MODEL_IN_WORKLOAD:
    return combine(combine(combine(combine(h, f->impl), f->processor), f->threads), f->workload);
  case TAG_EXACT_LEGACY_MODEL: /* a record's whole digest */
    return combine(h, f->model);
  default: /* TAG_BUCKET */
    return h;
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
  free(ix->starts);
  free(ix);
}

static void insert(olc_cand_index *ix, uint64_t h, size_t rec) {
  size_t slot = (size_t)(h & ix->mask), e = ix->count++;
  ix->entries[e].hash = h;
  ix->entries[e].rec = (uint32_t)rec;
  ix->entries[e].next = ix->heads[slot];
  ix->heads[slot] = (uint32_t)e;
}

/* The entries one record has in an index of that kind. */
static size_t entries_of(const olc_record *r, int kind) {
  if (kind == OLC_CAND_WORKLOAD_INDEX)
    return r->level == OLC_LEVEL_EXACT ? 1 : 0;
  return r->level == OLC_LEVEL_EXACT ? 4 : 2;
}

static void insert_record(olc_cand_index *ix, const olc_record *r, size_t i, int kind) {
  olc_cand_fields f;
  int tag;
  if (entries_of(r, kind) == 0)
    return;
  record_fields(&f, r);
  if (kind == OLC_CAND_WORKLOAD_INDEX) {
    olc_cand__workload_fields(&f, r->model_digest);
    tag = f.has_workload ? TAG_EXACT_NO_MODEL_IN_WORKLOAD : TAG_EXACT_LEGACY_MODEL;
    insert(ix, leave_out(&f, tag), i);
  } else if (r->level == OLC_LEVEL_EXACT) {
    for (tag = TAG_EXACT_NO_IMPL; tag <= TAG_EXACT_NO_THREADS; tag++)
      insert(ix, leave_out(&f, tag), i);
  } else {
    insert(ix, leave_out(&f, TAG_PORTABLE_NO_IMPL), i);
    insert(ix, leave_out(&f, TAG_PORTABLE_NO_STRUCTURE), i);
  }
}

static int same_bucket(const olc_record *a, const olc_record *b) {
  return strcmp(a->backend, b->backend) == 0 && strcmp(a->operator_name, b->operator_name) == 0;
}

/* The bucket starts of the key index and their entries (the set is in
 * canonical order, which keeps each bucket's records together). */
static int index_buckets(olc_cand_index *ix, const olc_recset *set, size_t buckets) {
  size_t i, b = 0;
  ix->starts = malloc((buckets + 1) * sizeof *ix->starts);
  if (ix->starts == NULL)
    return -1;
  for (i = 0; i < set->count; i++) {
    const olc_record *r = &set->recs[i];
    olc_cand_fields f;
    if (i > 0 && same_bucket(r, &set->recs[i - 1]))
      continue;
    memset(&f, 0, sizeof f);
    f.bucket = olc_hash__str(olc_hash__str(0, r->backend), r->operator_name);
    ix->starts[b] = (uint32_t)i;
    insert(ix, leave_out(&f, TAG_BUCKET), b++);
  }
  ix->starts[b] = (uint32_t)set->count;
  ix->buckets = b;
  return 0;
}

static size_t count_buckets(const olc_recset *set) {
  size_t i, n = 0;
  for (i = 0; i < set->count; i++)
    n += i == 0 || !same_bucket(&set->recs[i], &set->recs[i - 1]);
  return n;
}

static olc_cand_index *index_build(const olc_recset *set, int kind) {
  olc_cand_index *ix;
  size_t entries = 0, slots = 16, i, buckets = 0;
  if (set->count >= UINT32_MAX / 4)
    return NULL;
  for (i = 0; i < set->count; i++)
    entries += entries_of(&set->recs[i], kind);
  if (kind == OLC_CAND_KEY_INDEX)
    entries += buckets = count_buckets(set);
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
  if (kind == OLC_CAND_KEY_INDEX && index_buckets(ix, set, buckets) != 0) {
    index_free(ix);
    return NULL;
  }
  for (i = 0; i < set->count; i++)
    insert_record(ix, &set->recs[i], i, kind);
  return ix;
}

/* The index of that kind, built once; NULL when out of memory. */
static olc_cand_index *index_get(olc_snapshot *snap, int kind) {
  olc_cand_index *ix;
  if (olc_flag__get(&snap->cand_ready[kind]))
    return snap->cand[kind];
  olc_util__mutex_lock(&snap->cand_lock);
  if (!olc_flag__get(&snap->cand_ready[kind])) {
    snap->cand[kind] = index_build(&snap->set, kind);
    if (snap->cand[kind] != NULL)
      olc_flag__set(&snap->cand_ready[kind]);
  }
  ix = snap->cand[kind];
  olc_util__mutex_unlock(&snap->cand_lock);
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

/* One chain to walk: the index, the key's hash, the chain's first entry. */
typedef struct cand_probe {
  const olc_cand_index *ix;
  uint64_t hash;
  uint32_t first;
} cand_probe;

#define TAG_BIT(tag) (1u << (tag))
#define WORKLOAD_TAGS (TAG_BIT(TAG_EXACT_NO_MODEL_IN_WORKLOAD) | TAG_BIT(TAG_EXACT_LEGACY_MODEL))

/* The chains a lookup walks, one bit per tag.  In scope the model and the
 * structure may not differ freely: the workload index stands in for the
 * leave-model-out chain, and no leave-structure-out chain is walked. */
static unsigned wanted_tags(const olc_cand_fields *key, unsigned probes) {
  int scoped = (probes & OLC_CAND_SCOPED) != 0;
  unsigned m = 0;
  if (probes & OLC_CAND_EXACT) {
    m |= TAG_BIT(TAG_EXACT_NO_IMPL) | TAG_BIT(TAG_EXACT_NO_PROCESSOR) |
         TAG_BIT(TAG_EXACT_NO_THREADS);
    if (!scoped)
      m |= TAG_BIT(TAG_EXACT_NO_MODEL);
    if (scoped && key->has_workload)
      m |= TAG_BIT(TAG_EXACT_NO_MODEL_IN_WORKLOAD);
    if (scoped && key->has_model_part)
      m |= TAG_BIT(TAG_EXACT_LEGACY_MODEL);
  }
  if (probes & OLC_CAND_PORTABLE) {
    m |= TAG_BIT(TAG_PORTABLE_NO_IMPL);
    if (!scoped)
      m |= TAG_BIT(TAG_PORTABLE_NO_STRUCTURE);
  }
  return m;
}

/* The chains a lookup walks, with their memory loads issued together so
 * that the cache misses of a large store overlap instead of adding up. */
static olc_status plan_probes(cand_probe *p, size_t *np, olc_snapshot *snap,
                              const olc_cand_fields *key, unsigned probes) {
  unsigned m = wanted_tags(key, probes);
  const olc_cand_index *kx = NULL, *wx = NULL;
  size_t n = 0, i;
  int tag;
  if ((m & ~WORKLOAD_TAGS) != 0 && (kx = index_get(snap, OLC_CAND_KEY_INDEX)) == NULL)
    return OLC_E_NOMEM;
  if ((m & WORKLOAD_TAGS) != 0 && (wx = index_get(snap, OLC_CAND_WORKLOAD_INDEX)) == NULL)
    return OLC_E_NOMEM;
  for (tag = TAG_EXACT_NO_IMPL; tag < TAG_COUNT; tag++) {
    if ((m & TAG_BIT(tag)) == 0)
      continue;
    p[n].ix = (TAG_BIT(tag) & WORKLOAD_TAGS) != 0 ? wx : kx;
    /* A legacy record is entered under its whole digest: the key's model
     * part stands for it. */
    p[n].hash = tag == TAG_EXACT_LEGACY_MODEL
                    ? combine(combine(key->bucket, (uint64_t)tag), key->model_part)
                    : leave_out(key, tag);
    OLC_PREFETCH(&p[n].ix->heads[p[n].hash & p[n].ix->mask]);
    n++;
  }
  for (i = 0; i < n; i++) {
    p[i].first = p[i].ix->heads[p[i].hash & p[i].ix->mask];
    if (p[i].first != UINT32_MAX)
      OLC_PREFETCH(&p[i].ix->entries[p[i].first]);
  }
  *np = n;
  return OLC_OK;
}

static olc_status grow(size_t **found, size_t *cap, size_t n, const size_t *buf) {
  size_t ncap = *cap ? *cap * 2 : 16;
  size_t *p = malloc(ncap * sizeof *p);
  if (p == NULL)
    return OLC_E_NOMEM;
  if (n > 0)
    memcpy(p, *found, n * sizeof *p);
  if (*found != buf)
    free(*found);
  *found = p;
  *cap = ncap;
  return OLC_OK;
}

olc_status olc_cand__find(size_t **out, size_t *count, olc_snapshot *snap,
                          const olc_cand_fields *key, unsigned probes, size_t *buf,
                          size_t buf_cap) {
  cand_probe p[TAG_COUNT];
  size_t *found = buf, n = 0, cap = buf_cap, np, i, u;
  *out = NULL;
  *count = 0;
  if (plan_probes(p, &np, snap, key, probes) != OLC_OK)
    return OLC_E_NOMEM;
  for (i = 0; i < np; i++) {
    uint32_t e;
    for (e = p[i].first; e != UINT32_MAX; e = p[i].ix->entries[e].next) {
      if (p[i].ix->entries[e].hash != p[i].hash)
        continue;
      if (n == cap && grow(&found, &cap, n, buf) != OLC_OK) {
        if (found != buf)
          free(found);
        return OLC_E_NOMEM;
      }
      found[n++] = p[i].ix->entries[e].rec;
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

size_t olc_cand__bucket_size(olc_snapshot *snap, uint64_t bucket, const char *backend,
                             const char *operator_name) {
  const olc_cand_index *ix = index_get(snap, OLC_CAND_KEY_INDEX);
  olc_cand_fields f;
  uint64_t h;
  uint32_t e;
  if (ix == NULL)
    return (size_t)-1;
  memset(&f, 0, sizeof f);
  f.bucket = bucket;
  h = leave_out(&f, TAG_BUCKET);
  for (e = ix->heads[h & ix->mask]; e != UINT32_MAX; e = ix->entries[e].next) {
    const olc_record *r;
    uint32_t b = ix->entries[e].rec;
    if (ix->entries[e].hash != h)
      continue;
    r = &snap->set.recs[ix->starts[b]];
    if (strcmp(r->backend, backend) == 0 && strcmp(r->operator_name, operator_name) == 0)
      return ix->starts[b + 1] - ix->starts[b];
  }
  return 0;
}
