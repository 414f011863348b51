/*
 * format/parse_finish.c - the end of each record (structure order, arena
 * copies) and the duplicate-identity check over the whole file.
 */
#include "format/parse_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int finish_prop_cmp(const void *pa, const void *pb) {
  const olc_format_prop *a = pa, *b = pb;
  int c = strcmp(a->p.name, b->p.name);
  if (c != 0)
    return c;
  /* file order among equal names, so the report names the repeat */
  return a->at < b->at ? -1 : (a->at > b->at ? 1 : 0);
}

olc_status olc_format__finish_record(olc_format_parser *ps, olc_record *r,
                                     const unsigned char *kw) {
  olc_arena *arena = &ps->set->arena;
  olc_record *dst;
  size_t i;

  if (ps->props_count > 0) {
    olc_property *props;
    if (ps->props_count > 1)
      qsort(ps->props, ps->props_count, sizeof(*ps->props), finish_prop_cmp);
    for (i = 1; i < ps->props_count; i++) {
      if (strcmp(ps->props[i - 1].p.name, ps->props[i].p.name) == 0) {
        char shown[160];
        const char *name = ps->props[i].p.name;
        olc_format__show(shown, sizeof(shown), (const unsigned char *)name, strlen(name));
        return olc_format__fail(ps, ps->props[i].at, OLC_E_MALFORMED,
                                "repeated structure name \"%s\"", shown);
      }
    }
    props = olc_arena__alloc(arena, ps->props_count * sizeof(*props));
    if (props == NULL)
      return OLC_E_NOMEM;
    for (i = 0; i < ps->props_count; i++)
      props[i] = ps->props[i].p;
    r->structure = props;
    r->structure_count = ps->props_count;
  }
  if (ps->ms_count > 0) {
    olc_measurement *m = olc_arena__alloc(arena, ps->ms_count * sizeof(*m));
    if (m == NULL)
      return OLC_E_NOMEM;
    memcpy(m, ps->ms, ps->ms_count * sizeof(*m));
    r->measurements = m;
    r->measurement_count = ps->ms_count;
  }
  if (ps->set->count == ps->rec_off_cap) {
    size_t ncap = ps->rec_off_cap ? ps->rec_off_cap * 2 : 64;
    size_t *n = realloc(ps->rec_off, ncap * sizeof(*n));
    if (n == NULL)
      return OLC_E_NOMEM;
    ps->rec_off = n;
    ps->rec_off_cap = ncap;
  }
  dst = olc_recset__append(ps->set);
  if (dst == NULL)
    return OLC_E_NOMEM;
  *dst = *r;
  ps->rec_off[ps->set->count - 1] = (size_t)(kw - ps->base);
  return OLC_OK;
}

/* A 64-bit hash of a C string, eight bytes at a time. */
static uint64_t finish_hash_str(uint64_t h, const char *s) {
  size_t n = s != NULL ? strlen(s) : 0, i = 0;
  const uint64_t k = 0x9e3779b97f4a7c15u;
  while (n - i >= 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    h = (h ^ w) * k;
    h ^= h >> 29;
    i += 8;
  }
  if (i < n) {
    uint64_t w = 0;
    memcpy(&w, s + i, n - i);
    h = (h ^ w) * k;
    h ^= h >> 29;
  }
  h = (h ^ (uint64_t)n ^ (s == NULL ? 0x5555u : 0u)) * k;
  return h ^ (h >> 31);
}

static uint64_t finish_hash_record(const olc_record *r) {
  uint64_t h = ((uint64_t)r->level << 1 | (uint64_t)r->origin) * 0x100000001b3u;
  size_t i;
  h = finish_hash_str(h, r->backend);
  h = finish_hash_str(h, r->operator_name);
  h = finish_hash_str(h, r->implementation);
  if (r->level == OLC_LEVEL_EXACT) {
    h = finish_hash_str(h, r->model_digest);
    h = finish_hash_str(h, r->processor);
    h = (h ^ (uint64_t)r->thread_count) * 0x9e3779b97f4a7c15u;
  } else {
    for (i = 0; i < r->structure_count; i++) {
      h = finish_hash_str(h, r->structure[i].name);
      h = finish_hash_str(h, r->structure[i].value);
    }
  }
  return h ^ (h >> 32);
}

int olc_format__strictly_ordered(const olc_recset *set) {
  size_t i;
  for (i = 1; i < set->count; i++)
    if (olc_record__identity_cmp(&set->recs[i - 1], &set->recs[i]) >= 0)
      return 0;
  return 1;
}

olc_status olc_format__check_duplicates(olc_format_parser *ps) {
  const olc_recset *set = ps->set;
  size_t cap = 16, i;
  uint32_t *slots;
  uint64_t *hashes;
  olc_status st = OLC_OK;

  if (set->count < 2)
    return OLC_OK;
  while (cap < set->count * 2)
    cap *= 2;
  slots = calloc(cap, sizeof(*slots));
  hashes = malloc(set->count * sizeof(*hashes));
  if (slots == NULL || hashes == NULL) {
    free(slots);
    free(hashes);
    return OLC_E_NOMEM;
  }
  /* Records go in in file order, so the first hit is the earliest record
   * that repeats an earlier identity. */
  for (i = 0; i < set->count && st == OLC_OK; i++) {
    uint64_t h = finish_hash_record(&set->recs[i]);
    size_t s = (size_t)h & (cap - 1);
    hashes[i] = h;
    while (slots[s] != 0) {
      size_t j = slots[s] - 1;
      /* full hashes first: the probe chain passes unrelated records */
      if (hashes[j] == h && olc_record__identity_cmp(&set->recs[j], &set->recs[i]) == 0) {
        uint32_t line, column;
        olc_format__position(ps->base, ps->base + ps->rec_off[j], &line, &column);
        st = olc_format__fail(ps, ps->base + ps->rec_off[i], OLC_E_MALFORMED,
                              "duplicate record (same identity as the record on line %u)",
                              (unsigned)line);
        break;
      }
      s = (s + 1) & (cap - 1);
    }
    slots[s] = (uint32_t)(i + 1);
  }
  free(slots);
  free(hashes);
  return st;
}
