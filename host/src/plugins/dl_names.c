/*
 * dl_names.c - the platform-neutral half of listing plugin files: the
 * name list a directory scan fills (dl_posix.c, dl_win32.c) and the
 * suffix test over the platform's olc_plugins__suffix_len.
 */
#include <stdlib.h>
#include <string.h>

#include "plugins_int.h"
#include "util/text.h"

int olc_plugins__has_suffix(const char *name) { return olc_plugins__suffix_len(name) != 0; }

char *olc_plugins__join(const char *dir, const char *name) {
  return olc_util__join_path(dir, name);
}

void olc_plugins__free_names(char **names, size_t count) { olc_util__free_names(names, count); }

olc_status olc_plugins__names_push(olc_plugins_names *list, const char *name) {
  size_t n = strlen(name);
  char *copy;
  if (list->count == list->cap) {
    size_t ncap = list->cap ? list->cap * 2 : 16;
    char **grown = realloc(list->names, ncap * sizeof *grown);
    if (grown == NULL)
      return OLC_E_NOMEM;
    list->names = grown;
    list->cap = ncap;
  }
  copy = malloc(n + 1);
  if (copy == NULL)
    return OLC_E_NOMEM;
  memcpy(copy, name, n + 1);
  list->names[list->count++] = copy;
  return OLC_OK;
}

olc_status olc_plugins__names_finish(olc_plugins_names *list, olc_status st, char ***names,
                                     size_t *count) {
  if (st != OLC_OK) {
    olc_plugins__free_names(list->names, list->count);
    *names = NULL;
    *count = 0;
    return st;
  }
  *names = list->names;
  *count = list->count;
  return OLC_OK;
}
