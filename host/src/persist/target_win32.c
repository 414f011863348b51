/*
 * persist/target_win32.c - what is at a path before anything is created
 * next to it (see target_posix.c): the probe, and the writers' check that
 * no P.lock appears beside something that is not a store.
 */
#include "persist/win_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* The kind of path without following a reparse point; for a regular file
 * its size and head.  0, or a Win32 error (ERROR_FILE_NOT_FOUND: absent). */
static DWORD look(olc_persist_probe *out, const char *path) {
  WIN32_FILE_ATTRIBUTE_DATA a;
  wchar_t *w = olc_win__wide(path);
  HANDLE h;
  DWORD e = 0, got = 0;
  memset(out, 0, sizeof *out);
  if (w == NULL)
    return ERROR_INVALID_NAME;
  if (!OLC_FS(GetFileAttributesExW(w, GetFileExInfoStandard, &a))) {
    e = GetLastError();
    free(w);
    return e == ERROR_PATH_NOT_FOUND ? ERROR_FILE_NOT_FOUND : e;
  }
  if (a.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
    out->kind = OLC_PERSIST_SYMLINK;
  else if (a.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
    out->kind = OLC_PERSIST_DIRECTORY;
  else if (a.dwFileAttributes & FILE_ATTRIBUTE_DEVICE)
    out->kind = OLC_PERSIST_SPECIAL;
  else
    out->kind = OLC_PERSIST_FILE;
  if (out->kind == OLC_PERSIST_FILE) {
    out->size = ((uint64_t)a.nFileSizeHigh << 32) | a.nFileSizeLow;
    h = olc_win__open_read(w, &e);
    if (h != INVALID_HANDLE_VALUE) {
      if (OLC_FS(ReadFile(h, out->head, (DWORD)sizeof out->head, &got, NULL)))
        out->head_len = got;
      OLC_FS(CloseHandle(h));
      e = 0;
    }
  }
  free(w);
  return e;
}

olc_status olc_persist__probe(olc_persist_probe *out, const char *path, olc_error *err) {
  DWORD e;
  if (out == NULL || path == NULL)
    return olc_error__set(err, OLC_E_INVALID, "probe", "no output or no path");
  e = look(out, path);
  if (e == ERROR_FILE_NOT_FOUND) {
    memset(out, 0, sizeof *out);
    return OLC_OK;
  }
  if (e != 0)
    return olc_win__error(err, OLC_E_IO, e, "probe", "cannot look at", path);
  return OLC_OK;
}

olc_status olc_win__check_target(const char *path, const olc_persist_options *opt, olc_error *err) {
  olc_persist_probe p;
  char *lock = malloc(strlen(path) + 6);
  DWORD e;
  if (lock == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "lock-open", "out of memory for '%s'", path);
  snprintf(lock, strlen(path) + 6, "%s.lock", path);
  e = look(&p, lock);
  free(lock);
  if (e == 0)
    return OLC_OK; /* P.lock exists: opening it creates nothing */
  e = look(&p, path);
  if (e == ERROR_FILE_NOT_FOUND)
    return OLC_OK;
  if (e != 0)
    return olc_win__error(err, OLC_E_IO, e, "lock-open", "cannot look at", path);
  if (p.kind != OLC_PERSIST_FILE)
    return olc_error__set(err, OLC_E_INVALID, "lock-open",
                          "'%s' is %s, not a store file; nothing written", path,
                          olc_persist__kind_str(p.kind));
  if (opt->probe != NULL)
    return opt->probe(p.head, p.head_len, p.size, path, opt->probe_payload, err);
  return OLC_OK;
}
