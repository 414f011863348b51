/*
 * record/record.h - the record model shared by the store and the file codec:
 * records, record sets, structural properties, their order and comparison.
 * The bottom of the module graph above util: no files, no store.
 *
 * A record set owns its records and everything they point to in one arena.
 * Records use the public olc_record layout, so a lookup result can hand out
 * pointers into a snapshot without copying.  Portable records keep their
 * structure sorted by name (strcmp order) with unique names.
 */
#ifndef OLC_RECORD_RECORD_H
#define OLC_RECORD_RECORD_H

#include <stddef.h>

#include "olc/store.h"
#include "util/arena.h"

typedef struct olc_recset {
  olc_arena arena;
  olc_record *recs;
  size_t count;
  size_t cap;
} olc_recset;

#define OLC_RECSET_INIT                                                                            \
  { OLC_ARENA_INIT, NULL, 0, 0 }

void olc_recset__init(olc_recset *set);
void olc_recset__free(olc_recset *set);

/* Appends a zeroed record; NULL on out of memory. The pointer is valid until
 * the next append. */
olc_record *olc_recset__append(olc_recset *set);

/* Deep-copies src (strings, arrays, policy) into set's arena and appends it. */
olc_status olc_recset__append_copy(olc_recset *set, const olc_record *src);

/* Total order on identities: backend, operator, level, origin,
 * implementation, then model digest, processor, thread count (exact) or the
 * structure (portable).  Records comparing equal are duplicates. */
int olc_record__identity_cmp(const olc_record *a, const olc_record *b);

/* Sorts into canonical (file) order. Stable for equal identities. */
void olc_recset__sort(olc_recset *set);

/* Sorts an array of record pointers into canonical order (stable) without
 * touching the records; the writer uses it, as it must not reorder the set.
 * Returns 0 on out of memory, 2 when two records share an identity, else 1.
 * An already sorted array costs one comparison per record. */
int olc_recset__sort_ptrs(const olc_record **v, size_t n);

/* Brings a set into canonical order with unique identities: of records
 * with equal identities the last one wins (e.g. a freshly parsed file, or
 * a merge that appends the new records after the old). */
void olc_recset__normalize(olc_recset *set);

/* After sorting: index of the first duplicate pair's second element, or
 * (size_t)-1 when identities are unique. */
size_t olc_recset__find_duplicate(const olc_recset *set);

/* Sorts a property array by name; returns the index of a repeated name or
 * (size_t)-1. */
size_t olc_properties__sort(olc_property *props, size_t count);

#endif
