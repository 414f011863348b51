/*
 * util/nameset.h - a set of names, each mapped to an index: the config
 * parser's duplicate checks (sections, keys of one section) in constant
 * time, so a file of many sections or keys parses in linear time.
 *
 * The set keeps pointers, not copies: a name must outlive the set (the
 * parser's names live in the config's arena).
 */
#ifndef OLC_UTIL_NAMESET_H
#define OLC_UTIL_NAMESET_H

#include <stddef.h>

typedef struct olc_nameset {
  const char **names; /* cap slots, NULL = empty; cap is 0 or a power of two */
  size_t *values;
  size_t cap;
  size_t count;
} olc_nameset;

#define OLC_NAMESET_INIT                                                                           \
  { NULL, NULL, 0, 0 }

/* 1 and *value set when name is in the set, else 0 (value may be NULL). */
int olc_nameset__get(const olc_nameset *set, const char *name, size_t *value);
/* Adds name -> value; name must not be in the set yet. 1, or 0 on out of
 * memory (the set is unchanged then). */
int olc_nameset__put(olc_nameset *set, const char *name, size_t value);
/* Empties the set, keeping its memory for reuse. */
void olc_nameset__clear(olc_nameset *set);
void olc_nameset__free(olc_nameset *set);

#endif
