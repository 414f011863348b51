/* persist/glob_posix.c - listing the directory of a layer glob (POSIX). */
#include "persist/posix_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define GLOB_DIR_MAX 4096

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
    st = olc_persist__glob_add(&v, &n, &cap, dir, de->d_name, '/');
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
