/*
 * util/nameset.c - open addressing with linear probing, at most half full.
 */
#include "util/nameset.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

static size_t slot_of(const olc_nameset *set, const char *name) {
  size_t mask = set->cap - 1;
  size_t i = (size_t)olc_hash__str(0, name) & mask;
  while (set->names[i] != NULL && strcmp(set->names[i], name) != 0)
    i = (i + 1) & mask;
  return i;
}

int olc_nameset__get(const olc_nameset *set, const char *name, size_t *value) {
  size_t i;
  if (set->count == 0)
    return 0;
  i = slot_of(set, name);
  if (set->names[i] == NULL)
    return 0;
  if (value != NULL)
    *value = set->values[i];
  return 1;
}

static int grow(olc_nameset *set) {
  olc_nameset bigger;
  size_t i;
  bigger.cap = set->cap != 0 ? set->cap * 2 : 16;
  if (bigger.cap > SIZE_MAX / sizeof(size_t) / 2)
    return 0;
  bigger.names = calloc(bigger.cap, sizeof *bigger.names);
  bigger.values = malloc(bigger.cap * sizeof *bigger.values);
  bigger.count = set->count;
  if (bigger.names == NULL || bigger.values == NULL) {
    free(bigger.names);
    free(bigger.values);
    return 0;
  }
  for (i = 0; i < set->cap; i++) {
    if (set->names[i] != NULL) {
      size_t j = slot_of(&bigger, set->names[i]);
      bigger.names[j] = set->names[i];
      bigger.values[j] = set->values[i];
    }
  }
  olc_nameset__free(set);
  *set = bigger;
  return 1;
}

int olc_nameset__put(olc_nameset *set, const char *name, size_t value) {
  size_t i;
  if ((set->count + 1) * 2 > set->cap && !grow(set))
    return 0;
  i = slot_of(set, name);
  set->names[i] = name;
  set->values[i] = value;
  set->count++;
  return 1;
}

void olc_nameset__clear(olc_nameset *set) {
  if (set->count != 0)
    memset(set->names, 0, set->cap * sizeof *set->names);
  set->count = 0;
}

void olc_nameset__free(olc_nameset *set) {
  free(set->names);
  free(set->values);
  set->names = NULL;
  set->values = NULL;
  set->cap = 0;
  set->count = 0;
}
