/*
 * persist/glob.c - the portable part of layer globs: matching one name
 * against a pattern with '*', splitting a pattern, sorting the matches.
 */
#include <stdlib.h>
#include <string.h>

#include "persist/persist.h"
#include "util/text.h"

int olc_persist__glob_match(const char *pat, const char *name) {
  const char *star = NULL, *resume = NULL;
  if (name[0] == '.' && pat[0] != '.')
    return 0;
  while (*name != 0) {
    if (*pat == '*') {
      star = ++pat;
      resume = name;
    } else if (*pat == *name) {
      pat++;
      name++;
    } else if (star != NULL) {
      /* Backtrack: the last '*' swallows one more byte. */
      pat = star;
      name = ++resume;
    } else {
      return 0;
    }
  }
  while (*pat == '*')
    pat++;
  return *pat == 0;
}

int olc_persist__glob_split(char *dir, size_t dir_size, const char **last, const char *pattern) {
  size_t n = strlen(pattern), cut = n;
  while (cut > 0 && !olc_util__is_sep(pattern[cut - 1]))
    cut--;
  *last = pattern + cut;
  if (memchr(pattern, '*', cut) != NULL)
    return -1;
  if (cut == 0) {
    if (dir_size < 2)
      return -1;
    memcpy(dir, ".", 2);
    return 0;
  }
  /* Keep a lone root separator ("/x*" lists "/"). */
  if (cut > 1)
    cut--;
  if (cut + 1 > dir_size)
    return -1;
  memcpy(dir, pattern, cut);
  dir[cut] = 0;
  return 0;
}

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

olc_status olc_persist__glob_add(char ***v, size_t *n, size_t *cap, const char *dir,
                                 const char *name, char sep) {
  size_t dl = strlen(dir), nl = strlen(name);
  char *s;
  if (*n == *cap) {
    size_t ncap = *cap ? *cap * 2 : 8;
    char **nv = realloc(*v, ncap * sizeof *nv);
    if (nv == NULL)
      return OLC_E_NOMEM;
    *v = nv;
    *cap = ncap;
  }
  s = malloc(dl + nl + 2);
  if (s == NULL)
    return OLC_E_NOMEM;
  memcpy(s, dir, dl);
  if (dl == 0 || (dir[dl - 1] != '/' && dir[dl - 1] != sep))
    s[dl++] = sep;
  memcpy(s + dl, name, nl + 1);
  (*v)[(*n)++] = s;
  return OLC_OK;
}

void olc_persist__glob_sort(char **names, size_t count) {
  if (count > 1)
    qsort(names, count, sizeof *names, name_cmp);
}

void olc_persist__glob_free(char **names, size_t count) { olc_util__free_names(names, count); }
