/*
 * host/table.c - the chained hash tables of the runtime path (slots by key,
 * bindings by description).  An entry begins with its chain pointer and
 * its hash (olc_host_slot and olc_binding both do), so one table serves
 * both.  Growing rehashes under the caller's write lock; a find under its
 * read lock allocates nothing.
 */
#include <stdlib.h>

#include "host/host_int.h"

typedef struct entry {
  struct entry *next;
  uint64_t hash;
} entry;

_Static_assert(offsetof(olc_host_slot, next) == offsetof(entry, next) &&
                   offsetof(olc_host_slot, hash) == offsetof(entry, hash),
               "a slot begins like a table entry");
_Static_assert(offsetof(olc_binding, next) == offsetof(entry, next) &&
                   offsetof(olc_binding, hash) == offsetof(entry, hash),
               "a binding begins like a table entry");

void *olc_host__table_find(const olc_host_table *t, uint64_t hash,
                           int (*eq)(const void *entry, const void *ctx), const void *ctx) {
  entry *e;
  if (t->cap == 0)
    return NULL;
  for (e = t->buckets[hash & (t->cap - 1)]; e != NULL; e = e->next)
    if (e->hash == hash && eq(e, ctx))
      return e;
  return NULL;
}

static olc_status grow(olc_host_table *t) {
  size_t cap = t->cap ? t->cap * 2 : 64, i;
  void **nb = calloc(cap, sizeof *nb);
  if (nb == NULL)
    return OLC_E_NOMEM;
  for (i = 0; i < t->cap; i++) {
    entry *e = t->buckets[i];
    while (e != NULL) {
      entry *next = e->next;
      e->next = nb[e->hash & (cap - 1)];
      nb[e->hash & (cap - 1)] = e;
      e = next;
    }
  }
  free(t->buckets);
  t->buckets = nb;
  t->cap = cap;
  return OLC_OK;
}

olc_status olc_host__table_put(olc_host_table *t, void *item, uint64_t hash) {
  entry *e = item;
  if ((t->count + 1 > t->cap) && grow(t) != OLC_OK)
    return OLC_E_NOMEM;
  e->hash = hash;
  e->next = t->buckets[hash & (t->cap - 1)];
  t->buckets[hash & (t->cap - 1)] = e;
  t->count++;
  return OLC_OK;
}

void olc_host__table_free(olc_host_table *t, void (*fn)(void *entry)) {
  size_t i;
  for (i = 0; i < t->cap; i++) {
    entry *e = t->buckets[i];
    while (e != NULL) {
      entry *next = e->next;
      fn(e);
      e = next;
    }
  }
  free(t->buckets);
  t->buckets = NULL;
  t->cap = t->count = 0;
}
