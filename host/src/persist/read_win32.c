/*
 * persist/read_win32.c - lock-free readers and repair on Windows (the
 * writer is write_sequence.c over write_win32.c).
 */
#include "persist/win_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/error.h"
#include "util/text.h"

olc_status olc_persist__read(olc_buf *out, olc_file_id *id, const char *path, size_t max_file_size,
                             olc_error *err) {
  wchar_t *w;
  HANDLE h;
  DWORD e = 0;
  olc_status st;
  if (id != NULL)
    memset(id, 0, sizeof *id);
  if (out == NULL || path == NULL)
    return olc_error__set(err, OLC_E_INVALID, "read", "no buffer or no path");
  olc_buf__reset(out);
  w = olc_win__wide(path);
  if (w == NULL)
    return olc_error__set(err, OLC_E_INVALID, "read", "invalid UTF-8 in path '%s'", path);
  h = olc_win__open_read(w, &e);
  free(w);
  if (h == INVALID_HANDLE_VALUE) {
    if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
      return olc_win__error(err, OLC_E_NOT_FOUND, e, "read", "no file", path);
    return olc_win__error(err, OLC_E_IO, e, "read", "cannot open", path);
  }
  st = olc_win__read_handle(out, id, h, max_file_size, path, "read", err);
  OLC_FS(CloseHandle(h));
  if (st != OLC_OK) {
    olc_buf__reset(out);
    if (id != NULL)
      memset(id, 0, sizeof *id);
  }
  return st;
}

olc_status olc_persist__stat(olc_file_id *id, const char *path, olc_error *err) {
  wchar_t *w;
  HANDLE h;
  BY_HANDLE_FILE_INFORMATION info;
  if (id == NULL || path == NULL)
    return olc_error__set(err, OLC_E_INVALID, "stat", "no identity or no path");
  memset(id, 0, sizeof *id);
  w = olc_win__wide(path);
  if (w == NULL)
    return olc_error__set(err, OLC_E_INVALID, "stat", "invalid UTF-8 in path '%s'", path);
  h = OLC_FS(CreateFileW(w, FILE_READ_ATTRIBUTES,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                         OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL));
  free(w);
  if (h == INVALID_HANDLE_VALUE) {
    DWORD e = GetLastError();
    if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
      return OLC_OK;
    return olc_win__error(err, OLC_E_IO, e, "stat", "cannot stat", path);
  }
  if (!OLC_FS(GetFileInformationByHandle(h, &info))) {
    DWORD e = GetLastError();
    OLC_FS(CloseHandle(h));
    return olc_win__error(err, OLC_E_IO, e, "stat", "cannot stat", path);
  }
  OLC_FS(CloseHandle(h));
  olc_win__id_from_info(id, &info);
  return OLC_OK;
}

static olc_status repair_locked(char *moved_to, size_t moved_to_size, const char *path, void *gen,
                                const olc_persist_options *opt, olc_persist_check_fn check,
                                void *payload, olc_error *err) {
  olc_buf bytes = OLC_BUF_INIT;
  olc_status s;
  DWORD e = 0;
  wchar_t *w = olc_win__wide(path), *wto = NULL;
  HANDLE h = w ? olc_win__open_read(w, &e) : INVALID_HANDLE_VALUE;
  char to[1024];
  unsigned char r[4];
  time_t now = time(NULL);
  struct tm tm;
  if (h == INVALID_HANDLE_VALUE) {
    free(w);
    if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
      return olc_win__error(err, OLC_E_NOT_FOUND, e, "reload", "no file", path);
    return olc_win__error(err, OLC_E_IO, e, "reload", "cannot open", path);
  }
  s = olc_win__read_handle(&bytes, NULL, h, opt->max_file_size, path, "reload", err);
  OLC_FS(CloseHandle(h));
  if (s == OLC_E_LIMIT) {
    olc_persist_probe p;
    olc_error_clear(err);
    s = olc_persist__probe(&p, path, err);
    if (s == OLC_OK)
      s = check(p.head, p.head_len, 0, payload, err);
  } else if (s == OLC_OK) {
    s = check(bytes.data, bytes.len, 1, payload, err);
  }
  if (s == OLC_OK)
    s = olc_error__set(err, OLC_E_BUSY, "repair", "'%s' is valid; nothing to repair", path);
  olc_buf__free(&bytes);
  if (s != OLC_E_MALFORMED)
    goto done;
  olc_error_clear(err);
  olc_persist__random(r, sizeof r);
  if (gmtime_s(&tm, &now) != 0)
    memset(&tm, 0, sizeof tm);
  snprintf(to, sizeof to, "%s.corrupt-%04d%02d%02dT%02d%02d%02dZ.%02x%02x%02x%02x", path,
           tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, r[0],
           r[1], r[2], r[3]);
  wto = olc_win__wide(to);
  olc_win__gen_odd(gen); /* P disappears: readers must look */
  if (wto == NULL || !OLC_FS(MoveFileExW(w, wto, MOVEFILE_WRITE_THROUGH))) {
    DWORD e2 = wto ? GetLastError() : ERROR_INVALID_NAME;
    olc_win__gen_even(gen);
    s = olc_win__error(err, OLC_E_IO, e2, "rename", "cannot move aside", path);
    goto done;
  }
  olc_win__gen_even(gen);
  if (moved_to != NULL && moved_to_size > 0)
    snprintf(moved_to, moved_to_size, "%s", to);
  s = OLC_OK;
done:
  free(w);
  free(wto);
  return s;
}

olc_status olc_persist__repair(char *moved_to, size_t moved_to_size, const char *path,
                               const olc_persist_options *options, olc_persist_check_fn check,
                               void *payload, olc_error *err) {
  olc_persist_options opt;
  char *dir = NULL;
  const char *base = NULL;
  HANDLE lock = INVALID_HANDLE_VALUE;
  olc_status s;
  s = olc_persist__repair_begin(&opt, &dir, &base, moved_to, moved_to_size, path, options,
                                check != NULL, err);
  if (s != OLC_OK)
    return s;
  olc_win__mutex_lock();
  s = olc_win__ensure_dir(dir, 0, err);
  if (s == OLC_OK) {
    olc_persist_probe p;
    s = olc_persist__probe(&p, path, err);
    if (s == OLC_OK && p.kind == OLC_PERSIST_ABSENT)
      s = olc_error__set(err, OLC_E_NOT_FOUND, "reload", "no file '%s'", path);
    else if (s == OLC_OK && p.kind != OLC_PERSIST_FILE)
      s = olc_error__set(err, OLC_E_INVALID, "repair",
                         "'%s' is %s, not a store file; nothing moved", path,
                         olc_persist__kind_str(p.kind));
  }
  if (s == OLC_OK)
    s = olc_win__check_target(path, &opt, err);
  if (s == OLC_OK)
    s = olc_win__lock(&lock, path, opt.lock_timeout_ms, err);
  if (s == OLC_OK) {
    HANDLE gen_map = NULL;
    void *gen = NULL;
    s = olc_win__gen_open(&gen, &gen_map, lock, path, err);
    if (s == OLC_OK)
      s = repair_locked(moved_to, moved_to_size, path, gen, &opt, check, payload, err);
    olc_win__gen_close(gen, gen_map);
    olc_win__unlock(lock);
  }
  olc_win__mutex_unlock();
  free(dir);
  return s;
}
