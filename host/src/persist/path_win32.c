/*
 * persist/path_win32.c - the default store path (%LOCALAPPDATA%) and path
 * resolution on Windows.
 */
#include "persist/win_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "util/error.h"

/* Environment variable as UTF-8 (malloc'ed), NULL when unset or empty. */
static char *env_utf8(const wchar_t *name) {
  DWORD n = GetEnvironmentVariableW(name, NULL, 0);
  wchar_t *w;
  char *s;
  if (n <= 1)
    return NULL;
  w = malloc((size_t)n * sizeof *w);
  if (w == NULL)
    return NULL;
  if (GetEnvironmentVariableW(name, w, n) + 1 != n) {
    free(w);
    return NULL;
  }
  s = olc_win__utf8(w);
  free(w);
  return s;
}

olc_status olc_persist__default_path(char *buf, size_t size, olc_error *err) {
  char *base = env_utf8(L"LOCALAPPDATA");
  const char *sub = "onnx-light\\calibration_profiles.txt";
  size_t bl;
  int n;
  if (buf == NULL || size == 0) {
    free(base);
    return olc_error__set(err, OLC_E_INVALID, "default-path", "no buffer");
  }
  buf[0] = 0;
  if (base == NULL) {
    /* LOCALAPPDATA unset (a service account): the profile's AppData. */
    char *profile = env_utf8(L"USERPROFILE");
    if (profile == NULL)
      return olc_error__set(err, OLC_E_NOT_FOUND, "default-path",
                            "neither LOCALAPPDATA nor USERPROFILE is set");
    sub = "AppData\\Local\\onnx-light\\calibration_profiles.txt";
    base = profile;
  }
  bl = strlen(base);
  n = snprintf(buf, size, "%s%s%s", base,
               bl > 0 && (base[bl - 1] == '\\' || base[bl - 1] == '/') ? "" : "\\", sub);
  if (n < 0 || (size_t)n >= size) {
    olc_status st = olc_error__set(err, OLC_E_LIMIT, "default-path",
                                   "the default store path under '%s' does not fit %llu bytes",
                                   base, (unsigned long long)size);
    buf[0] = 0;
    free(base);
    return st;
  }
  free(base);
  return OLC_OK;
}

/* GetFinalPathNameByHandleW of an existing path (follows links), without
 * the "\\?\" prefix when the path fits the classic form. */
static char *final_path(const wchar_t *w) {
  HANDLE h = OLC_FS(CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                                OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL));
  wchar_t out[32768];
  DWORD n;
  const wchar_t *p = out;
  char *s;
  if (h == INVALID_HANDLE_VALUE)
    return NULL;
  n = OLC_FS(GetFinalPathNameByHandleW(h, out, 32768, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS));
  OLC_FS(CloseHandle(h));
  if (n == 0 || n >= 32768)
    return NULL;
  if (wcsncmp(out, L"\\\\?\\UNC\\", 8) == 0) {
    out[6] = L'\\';
    p = out + 6;
  } else if (wcsncmp(out, L"\\\\?\\", 4) == 0 && n < MAX_PATH) {
    p = out + 4;
  }
  s = olc_win__utf8(p);
  return s;
}

olc_status olc_persist__resolve(char **out, const char *path, olc_error *err) {
  wchar_t *w, full[32768];
  DWORD n, attr;
  size_t len;
  char *s;
  if (out == NULL || path == NULL || path[0] == 0)
    return olc_error__set(err, OLC_E_INVALID, "resolve", "empty store path");
  *out = NULL;
  len = strlen(path);
  if (path[len - 1] == '\\' || path[len - 1] == '/')
    return olc_error__set(err, OLC_E_INVALID, "resolve", "store path '%s' has no file name", path);
  w = olc_win__wide(path);
  if (w == NULL)
    return olc_error__set(err, OLC_E_INVALID, "resolve", "invalid UTF-8 in path '%s'", path);
  n = OLC_FS(GetFullPathNameW(w, 32768, full, NULL));
  free(w);
  if (n == 0 || n >= 32768)
    return olc_win__error(err, OLC_E_IO, GetLastError(), "resolve", "cannot resolve", path);
  attr = OLC_FS(GetFileAttributesW(full));
  s = NULL;
  /* A symlinked P is replaced at its target, never through the link. */
  if (attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_REPARSE_POINT))
    s = final_path(full);
  if (s == NULL)
    s = olc_win__utf8(full);
  if (s == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "resolve", "out of memory resolving '%s'", path);
  *out = s;
  return OLC_OK;
}

olc_status olc_persist__absolute(char **out, const char *path, olc_error *err) {
  wchar_t *w, full[32768];
  DWORD n;
  if (out == NULL || path == NULL || path[0] == 0)
    return olc_error__set(err, OLC_E_INVALID, "absolute", "empty path");
  *out = NULL;
  w = olc_win__wide(path);
  if (w == NULL)
    return olc_error__set(err, OLC_E_INVALID, "absolute", "invalid UTF-8 in path '%s'", path);
  n = OLC_FS(GetFullPathNameW(w, 32768, full, NULL));
  free(w);
  if (n == 0 || n >= 32768) {
    DWORD e = GetLastError();
    olc_error__set(err, OLC_E_IO, "absolute", "cannot make the path absolute (win32 error %lu)",
                   (unsigned long)e);
    if (err != NULL)
      err->sys_errno = (int)e;
    return OLC_E_IO;
  }
  *out = olc_win__utf8(full);
  if (*out == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "absolute", "out of memory for path '%s'", path);
  return OLC_OK;
}

/* Windows has no runtime directory of the XDG kind: the measurement lock
 * lives beside the store, in the user's profile. */
char *olc_persist__runtime_dir(void) { return NULL; }
