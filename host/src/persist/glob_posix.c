/* persist/glob_posix.c - listing the directory of a layer glob (POSIX). */
#include "persist/posix_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define GLOB_DIR_MAX 4096

/* Appends "dir/name" to the growing list. */
static olc_status glob_add(char ***v, size_t *n, size_t *cap, const char *dir, const char *name) {
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
  s[dl] = '/';
  memcpy(s + dl + (dl > 0 && dir[dl - 1] == '/' ? 0 : 1), name, nl + 1);
  (*v)[(*n)++] = s;
  return OLC_OK;
}

olc_status olc_persist__glob(char ***out, size_t *count, const char *pattern, olc_error *err) {
  char dir[GLOB_DIR_MAX];
  const char *last;
  char **v = NULL;
  size_t n = 0, cap = 0;
  struct dirent *de;
  olc_status st = OLC_OK;
  DIR *d;
  *out = NULL;
  *count = 0;
  if (olc_persist__glob_split(dir, sizeof dir, &last, pattern) != 0)
    return olc_error__set(err, OLC_E_INVALID, "layers",
                          "'%s': '*' is allowed in the last component only", pattern);
  d = OLC_FS(opendir(dir));
  if (d == NULL) {
    int e = errno;
    return olc_error__sys(err, e == ENOENT || e == ENOTDIR ? OLC_E_NOT_FOUND : OLC_E_IO, e,
                          "layers", "cannot list the directory '%s'", dir);
  }
  errno = 0;
  while (st == OLC_OK && (de = OLC_FS(readdir(d))) != NULL) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
        !olc_persist__glob_match(last, de->d_name))
      continue;
    st = glob_add(&v, &n, &cap, dir, de->d_name);
  }
  OLC_FS(closedir(d));
  if (st != OLC_OK) {
    olc_persist__glob_free(v, n);
    return olc_error__set(err, st, "layers", "out of memory listing '%s'", dir);
  }
  olc_persist__glob_sort(v, n);
  *out = v;
  *count = n;
  return OLC_OK;
}
