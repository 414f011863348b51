/* persist/glob_win32.c - listing the directory of a layer glob (Windows). */
#include "persist/win_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define GLOB_DIR_MAX 4096

olc_status olc_persist__glob(char ***out, size_t *count, const char *pattern, olc_error *err) {
  char dir[GLOB_DIR_MAX], all[GLOB_DIR_MAX + 3];
  const char *last;
  char **v = NULL;
  size_t n = 0, cap = 0;
  WIN32_FIND_DATAW fd;
  olc_status st = OLC_OK;
  wchar_t *w;
  HANDLE h;
  *out = NULL;
  *count = 0;
  if (olc_persist__glob_split(dir, sizeof dir, &last, pattern) != 0)
    return olc_error__set(err, OLC_E_INVALID, "layers",
                          "'%s': '*' is allowed in the last component only", pattern);
  snprintf(all, sizeof all, "%s\\*", dir);
  w = olc_win__wide(all);
  if (w == NULL)
    return olc_error__set(err, OLC_E_INVALID, "layers", "invalid UTF-8 in '%s'", pattern);
  h = OLC_FS(FindFirstFileW(w, &fd));
  free(w);
  if (h == INVALID_HANDLE_VALUE) {
    DWORD e = GetLastError();
    if (e == ERROR_FILE_NOT_FOUND) /* an empty directory */
      return OLC_OK;
    return olc_error__set(
        err, e == ERROR_PATH_NOT_FOUND || e == ERROR_DIRECTORY ? OLC_E_NOT_FOUND : OLC_E_IO,
        "layers", "cannot list the directory '%s'", dir);
  }
  do {
    char *name = olc_win__utf8(fd.cFileName);
    if (name == NULL) {
      st = OLC_E_NOMEM;
      break;
    }
    if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && olc_persist__glob_match(last, name))
      st = olc_persist__glob_add(&v, &n, &cap, dir, name, '\\');
    free(name);
  } while (st == OLC_OK && OLC_FS(FindNextFileW(h, &fd)));
  FindClose(h);
  if (st != OLC_OK) {
    olc_persist__glob_free(v, n);
    return olc_error__set(err, st, "layers", "out of memory listing '%s'", dir);
  }
  olc_persist__glob_sort(v, n);
  *out = v;
  *count = n;
  return OLC_OK;
}
