/*
 * record/record.c - the in-memory record set: ownership, deep copies, the
 * identity order and duplicate detection.
 */
#include "record/record.h"
#include "util/bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void olc_recset__init(olc_recset *set) {
  olc_recset init = OLC_RECSET_INIT;
  *set = init;
}

void olc_recset__free(olc_recset *set) {
  if (set == NULL)
    return;
  olc_arena__free(&set->arena);
  free(set->recs);
  set->recs = NULL;
  set->count = 0;
  set->cap = 0;
}

olc_record *olc_recset__append(olc_recset *set) {
  olc_record *r;
  if (set->count == set->cap) {
    size_t ncap = set->cap ? set->cap * 2 : 16;
    olc_record *n;
    if (ncap < set->cap || ncap > SIZE_MAX / sizeof(olc_record))
      return NULL;
    n = realloc(set->recs, ncap * sizeof(olc_record));
    if (n == NULL)
      return NULL;
    set->recs = n;
    set->cap = ncap;
    olc_bigmem__advise(n, ncap * sizeof(olc_record));
  }
  r = &set->recs[set->count++];
  memset(r, 0, sizeof(*r));
  return r;
}

/* NULL stays NULL, so a portable record keeps NULL exact fields. */
static int record_dup_str(olc_arena *a, const char **dst, const char *src) {
  if (src == NULL) {
    *dst = NULL;
    return 1;
  }
  *dst = olc_arena__strdup(a, src);
  return *dst != NULL;
}

olc_status olc_recset__append_copy(olc_recset *set, const olc_record *src) {
  olc_record copy = *src;
  olc_arena *a = &set->arena;
  olc_record *dst;
  size_t i;

  if (!record_dup_str(a, &copy.backend, src->backend) ||
      !record_dup_str(a, &copy.operator_name, src->operator_name) ||
      !record_dup_str(a, &copy.implementation, src->implementation) ||
      !record_dup_str(a, &copy.model_digest, src->model_digest) ||
      !record_dup_str(a, &copy.processor, src->processor))
    return OLC_E_NOMEM;
  copy.structure = NULL;
  if (src->structure_count > 0) {
    olc_property *p;
    if (src->structure_count > SIZE_MAX / sizeof(olc_property))
      return OLC_E_NOMEM;
    p = olc_arena__alloc(a, src->structure_count * sizeof(olc_property));
    if (p == NULL)
      return OLC_E_NOMEM;
    for (i = 0; i < src->structure_count; i++) {
      if (!record_dup_str(a, &p[i].name, src->structure[i].name) ||
          !record_dup_str(a, &p[i].value, src->structure[i].value))
        return OLC_E_NOMEM;
    }
    copy.structure = p;
  }
  /* The source is stamped by the snapshot that publishes the copy. */
  copy.source = NULL;
  copy.from_layer = 0;
  copy.measurements = NULL;
  if (src->measurement_count > 0) {
    olc_measurement *m;
    if (src->measurement_count > SIZE_MAX / sizeof(olc_measurement))
      return OLC_E_NOMEM;
    m = olc_arena__alloc(a, src->measurement_count * sizeof(olc_measurement));
    if (m == NULL)
      return OLC_E_NOMEM;
    for (i = 0; i < src->measurement_count; i++) {
      m[i].value = src->measurements[i].value;
      if (!record_dup_str(a, &m[i].name, src->measurements[i].name) ||
          !record_dup_str(a, &m[i].unit, src->measurements[i].unit))
        return OLC_E_NOMEM;
    }
    copy.measurements = m;
  }
  /* The policy always gets a terminating NUL, even when empty. */
  copy.policy =
      olc_arena__memdup(a, src->policy_len ? src->policy : (const void *)"", src->policy_len);
  if (copy.policy == NULL)
    return OLC_E_NOMEM;
  dst = olc_recset__append(set);
  if (dst == NULL)
    return OLC_E_NOMEM;
  *dst = copy;
  return OLC_OK;
}

/* strcmp with NULL ordered before every string. */
static int record_scmp(const char *a, const char *b) {
  if (a == b)
    return 0;
  if (a == NULL)
    return -1;
  if (b == NULL)
    return 1;
  return strcmp(a, b);
}

static int record_structure_cmp(const olc_record *a, const olc_record *b) {
  size_t n = a->structure_count < b->structure_count ? a->structure_count : b->structure_count;
  size_t i;
  for (i = 0; i < n; i++) {
    int c = record_scmp(a->structure[i].name, b->structure[i].name);
    if (c == 0)
      c = record_scmp(a->structure[i].value, b->structure[i].value);
    if (c != 0)
      return c;
  }
  if (a->structure_count != b->structure_count)
    return a->structure_count < b->structure_count ? -1 : 1;
  return 0;
}

int olc_record__identity_cmp(const olc_record *a, const olc_record *b) {
  int c = record_scmp(a->backend, b->backend);
  if (c != 0)
    return c;
  c = record_scmp(a->operator_name, b->operator_name);
  if (c != 0)
    return c;
  if (a->level != b->level)
    return a->level < b->level ? -1 : 1;
  if (a->origin != b->origin)
    return a->origin < b->origin ? -1 : 1;
  c = record_scmp(a->implementation, b->implementation);
  if (c != 0)
    return c;
  if (a->level == OLC_LEVEL_PORTABLE)
    return record_structure_cmp(a, b);
  c = record_scmp(a->model_digest, b->model_digest);
  if (c != 0)
    return c;
  c = record_scmp(a->processor, b->processor);
  if (c != 0)
    return c;
  if (a->thread_count != b->thread_count)
    return a->thread_count < b->thread_count ? -1 : 1;
  return 0;
}

/* Stable merge sort of record pointers; tmp holds n pointers. */
static void record_msort(const olc_record **v, const olc_record **tmp, size_t n) {
  size_t width, i;
  for (i = 0; i < n; i += 8) {
    /* insertion sort of small runs first: fewer passes */
    size_t hi = i + 8 < n ? i + 8 : n, j;
    for (j = i + 1; j < hi; j++) {
      const olc_record *x = v[j];
      size_t k = j;
      while (k > i && olc_record__identity_cmp(v[k - 1], x) > 0) {
        v[k] = v[k - 1];
        k--;
      }
      v[k] = x;
    }
  }
  for (width = 8; width < n; width *= 2) {
    for (i = 0; i < n; i += 2 * width) {
      size_t mid = i + width < n ? i + width : n;
      size_t hi = i + 2 * width < n ? i + 2 * width : n;
      size_t a = i, b = mid, o = i;
      if (mid >= hi || olc_record__identity_cmp(v[mid - 1], v[mid]) <= 0)
        continue; /* already in order */
      while (a < mid && b < hi)
        tmp[o++] = olc_record__identity_cmp(v[b], v[a]) < 0 ? v[b++] : v[a++];
      while (a < mid)
        tmp[o++] = v[a++];
      while (b < hi)
        tmp[o++] = v[b++];
      memcpy(v + i, tmp + i, (hi - i) * sizeof(*v));
    }
  }
}

int olc_recset__sort_ptrs(const olc_record **v, size_t n) {
  const olc_record **tmp;
  size_t i;
  int dup = 0;
  for (i = 1; i < n; i++) {
    int c = olc_record__identity_cmp(v[i - 1], v[i]);
    if (c > 0)
      break;
    dup |= c == 0;
  }
  if (i >= n)
    return dup ? 2 : 1;
  if (n > SIZE_MAX / sizeof(*tmp))
    return 0;
  tmp = malloc(n * sizeof(*tmp));
  if (tmp == NULL)
    return 0;
  record_msort(v, tmp, n);
  free(tmp);
  for (i = 1; i < n; i++)
    if (olc_record__identity_cmp(v[i - 1], v[i]) == 0)
      return 2;
  return 1;
}

/* Stable in-place insertion sort: the fallback when memory is short. */
static void record_isort(olc_record *v, size_t n) {
  size_t j;
  for (j = 1; j < n; j++) {
    olc_record x = v[j];
    size_t k = j;
    while (k > 0 && olc_record__identity_cmp(&v[k - 1], &x) > 0) {
      v[k] = v[k - 1];
      k--;
    }
    v[k] = x;
  }
}

void olc_recset__sort(olc_recset *set) {
  size_t n = set->count, i;
  const olc_record **ptrs = NULL;
  olc_record *sorted = NULL;

  for (i = 1; i < n; i++)
    if (olc_record__identity_cmp(&set->recs[i - 1], &set->recs[i]) > 0)
      break;
  if (i >= n)
    return;
  if (n <= SIZE_MAX / (2 * sizeof(*ptrs)))
    ptrs = malloc(2 * n * sizeof(*ptrs));
  if (ptrs != NULL)
    sorted = malloc(n * sizeof(olc_record));
  if (sorted == NULL) {
    free(ptrs);
    record_isort(set->recs, n);
    return;
  }
  for (i = 0; i < n; i++)
    ptrs[i] = &set->recs[i];
  record_msort(ptrs, ptrs + n, n);
  for (i = 0; i < n; i++)
    sorted[i] = *ptrs[i];
  free(ptrs);
  free(set->recs);
  set->recs = sorted;
  set->cap = n;
}

void olc_recset__normalize(olc_recset *set) {
  size_t i, out;
  int sorted = 1;
  for (i = 1; i < set->count && sorted; i++)
    if (olc_record__identity_cmp(&set->recs[i - 1], &set->recs[i]) >= 0)
      sorted = 0;
  if (sorted)
    return;
  olc_recset__sort(set);
  /* The sort is stable, so of equal identities the last one given wins. */
  out = 0;
  for (i = 0; i < set->count; i++) {
    if (i + 1 < set->count && olc_record__identity_cmp(&set->recs[i], &set->recs[i + 1]) == 0)
      continue;
    set->recs[out++] = set->recs[i];
  }
  set->count = out;
}

size_t olc_recset__find_duplicate(const olc_recset *set) {
  size_t i;
  for (i = 1; i < set->count; i++)
    if (olc_record__identity_cmp(&set->recs[i - 1], &set->recs[i]) == 0)
      return i;
  return (size_t)-1;
}

static int record_prop_cmp(const olc_property *a, const olc_property *b) {
  return record_scmp(a->name, b->name);
}

size_t olc_properties__sort(olc_property *props, size_t count) {
  size_t i;
  olc_property *tmp = NULL;

  if (count > 32 && count <= SIZE_MAX / sizeof(*tmp))
    tmp = malloc(count * sizeof(*tmp));
  if (tmp == NULL) {
    /* small arrays (the usual case), or no memory: insertion sort */
    for (i = 1; i < count; i++) {
      olc_property x = props[i];
      size_t k = i;
      while (k > 0 && record_prop_cmp(&props[k - 1], &x) > 0) {
        props[k] = props[k - 1];
        k--;
      }
      props[k] = x;
    }
  } else {
    size_t width;
    for (width = 1; width < count; width *= 2) {
      for (i = 0; i < count; i += 2 * width) {
        size_t mid = i + width < count ? i + width : count;
        size_t hi = i + 2 * width < count ? i + 2 * width : count;
        size_t a = i, b = mid, o = i;
        while (a < mid && b < hi)
          tmp[o++] = record_prop_cmp(&props[b], &props[a]) < 0 ? props[b++] : props[a++];
        while (a < mid)
          tmp[o++] = props[a++];
        while (b < hi)
          tmp[o++] = props[b++];
      }
      memcpy(props, tmp, count * sizeof(*tmp));
    }
    free(tmp);
  }
  for (i = 1; i < count; i++)
    if (record_prop_cmp(&props[i - 1], &props[i]) == 0)
      return i;
  return (size_t)-1;
}
