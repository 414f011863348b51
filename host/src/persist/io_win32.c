/*
 * persist/io_win32.c - Windows helpers of the write path: UTF-16 paths,
 * the process mutex, directories, LockFileEx, shared reads and GC
 * (docs/durability.md, "Platforms").
 */
#include "persist/win_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/platform.h"
#include "util/text.h"

static olc_util_mutex writer_mutex = OLC_UTIL_MUTEX_INIT;

void olc_win__mutex_lock(void) { olc_util__mutex_lock(&writer_mutex); }
void olc_win__mutex_unlock(void) { olc_util__mutex_unlock(&writer_mutex); }

wchar_t *olc_win__wide(const char *utf8) {
  int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
  int prefix, i;
  wchar_t *w;
  if (n <= 0)
    return NULL;
  /* Absolute drive paths beyond MAX_PATH need the "\\?\" form, which
   * takes no '/' separators and no relative parts. */
  prefix =
      n >= MAX_PATH - 12 && utf8[0] != 0 && utf8[1] == ':' && (utf8[2] == '\\' || utf8[2] == '/');
  w = malloc(((size_t)n + (prefix ? 4 : 0)) * sizeof *w);
  if (w == NULL)
    return NULL;
  if (prefix)
    memcpy(w, L"\\\\?\\", 4 * sizeof *w);
  if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, w + (prefix ? 4 : 0), n) <= 0) {
    free(w);
    return NULL;
  }
  if (prefix)
    for (i = 4; w[i] != 0; i++)
      if (w[i] == L'/')
        w[i] = L'\\';
  return w;
}

char *olc_win__utf8(const wchar_t *wide) {
  int n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, NULL, 0, NULL, NULL);
  char *s;
  if (n <= 0)
    return NULL;
  s = malloc((size_t)n);
  if (s == NULL)
    return NULL;
  if (WideCharToMultiByte(CP_UTF8, 0, wide, -1, s, n, NULL, NULL) <= 0) {
    free(s);
    return NULL;
  }
  return s;
}

olc_status olc_win__status(DWORD code, olc_status fallback) {
  if (code == ERROR_DISK_FULL || code == ERROR_HANDLE_DISK_FULL)
    return OLC_E_NOSPC;
  if (code == ERROR_NOT_ENOUGH_MEMORY || code == ERROR_OUTOFMEMORY)
    return OLC_E_NOMEM;
  return fallback;
}

olc_status olc_win__error(olc_error *err, olc_status code, DWORD win, const char *where,
                          const char *what, const char *name) {
  olc_error__set(err, code, where, "%s '%s' (win32 error %lu)", what, name, (unsigned long)win);
  if (err != NULL)
    err->sys_errno = (int)win;
  return code;
}

static DWORD mkdir_p(const char *dir) {
  wchar_t *w = olc_win__wide(dir);
  DWORD attr, e = 0;
  if (w == NULL)
    return ERROR_INVALID_NAME;
  attr = OLC_FS(GetFileAttributesW(w));
  if (attr != INVALID_FILE_ATTRIBUTES) {
    free(w);
    return (attr & FILE_ATTRIBUTE_DIRECTORY) ? 0 : ERROR_DIRECTORY;
  }
  if (!OLC_FS(CreateDirectoryW(w, NULL))) {
    e = GetLastError();
    if (e == ERROR_PATH_NOT_FOUND) {
      char *copy = _strdup(dir);
      char *cut = copy ? copy + strlen(copy) : NULL;
      e = ERROR_PATH_NOT_FOUND;
      while (cut != NULL && cut > copy && *cut != '\\' && *cut != '/')
        cut--;
      if (cut != NULL && cut > copy && cut[-1] != ':') {
        *cut = 0;
        e = mkdir_p(copy);
        if (e == 0 && !OLC_FS(CreateDirectoryW(w, NULL)))
          e = GetLastError();
      }
      free(copy);
    }
    if (e == ERROR_ALREADY_EXISTS)
      e = 0;
  }
  free(w);
  return e;
}

olc_status olc_win__ensure_dir(const char *dir, int create, olc_error *err) {
  int hooked = olc_persist__hook_fail(OLC_STEP_MKDIR);
  DWORD e;
  if (hooked != 0)
    return olc_error__sys(err, olc_persist__errno_status(hooked, OLC_E_IO), hooked, "mkdir",
                          "cannot open or create directory '%s'", dir);
  if (create) {
    e = mkdir_p(dir);
  } else {
    wchar_t *w = olc_win__wide(dir);
    DWORD attr = w ? OLC_FS(GetFileAttributesW(w)) : INVALID_FILE_ATTRIBUTES;
    e = attr == INVALID_FILE_ATTRIBUTES ? ERROR_PATH_NOT_FOUND : 0;
    free(w);
    if (e != 0)
      return olc_win__error(err, OLC_E_NOT_FOUND, e, "mkdir", "no directory", dir);
  }
  if (e != 0)
    return olc_win__error(err, olc_win__status(e, OLC_E_IO), e, "mkdir", "cannot create directory",
                          dir);
  olc_persist__hook_crash(OLC_STEP_MKDIR);
  return OLC_OK;
}

static olc_status acquire(HANDLE h, const char *path, int64_t timeout_ms, olc_error *err) {
  int64_t start = olc_util__now_ms();
  int64_t delay = 1;
  for (;;) {
    OVERLAPPED ov;
    DWORD flags = LOCKFILE_EXCLUSIVE_LOCK;
    DWORD e = 0;
    int hooked = olc_persist__hook_fail(OLC_STEP_LOCK);
    memset(&ov, 0, sizeof ov);
    if (timeout_ms >= 0)
      flags |= LOCKFILE_FAIL_IMMEDIATELY;
    if (hooked == EAGAIN || hooked == EACCES)
      e = ERROR_LOCK_VIOLATION;
    else if (hooked != 0)
      return olc_error__sys(err, OLC_E_LOCK, hooked, "lock", "cannot lock '%s.lock'", path);
    else if (!OLC_FS(LockFileEx(h, flags, 0, MAXDWORD, MAXDWORD, &ov)))
      e = GetLastError();
    if (e == 0)
      return OLC_OK;
    if (e == ERROR_LOCK_VIOLATION || e == ERROR_IO_PENDING) {
      olc_status busy = olc_persist__lock_busy(timeout_ms, start, &delay, path, err);
      if (busy != OLC_OK)
        return busy;
      continue;
    }
    return olc_win__error(err, OLC_E_LOCK, e, "lock", "cannot lock", path);
  }
}

olc_status olc_win__lock(HANDLE *h, const char *path, int64_t timeout_ms, olc_error *err) {
  char *lock_path;
  wchar_t *w;
  int hooked;
  DWORD e = 0;
  olc_status st;
  *h = INVALID_HANDLE_VALUE;
  if (olc_persist__hook_disabled(OLC_SAFETY_LOCK))
    return OLC_OK;
  hooked = olc_persist__hook_fail(OLC_STEP_LOCK_OPEN);
  if (hooked != 0)
    return olc_error__sys(err, olc_persist__errno_status(hooked, OLC_E_IO), hooked, "lock-open",
                          "cannot open the lock file '%s.lock'", path);
  lock_path = malloc(strlen(path) + 6);
  if (lock_path == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "lock-open", "out of memory for '%s'", path);
  snprintf(lock_path, strlen(path) + 6, "%s.lock", path);
  w = olc_win__wide(lock_path);
  free(lock_path);
  if (w == NULL)
    return olc_error__set(err, OLC_E_INVALID, "lock-open", "invalid path '%s'", path);
  /* Handles are not inherited by child processes (no SECURITY_ATTRIBUTES
   * with bInheritHandle): the O_CLOEXEC of Windows. */
  *h = OLC_FS(CreateFileW(w, GENERIC_READ | GENERIC_WRITE,
                          FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_ALWAYS,
                          FILE_ATTRIBUTE_NORMAL, NULL));
  if (*h == INVALID_HANDLE_VALUE)
    e = GetLastError();
  free(w);
  if (e != 0)
    return olc_win__error(err, olc_win__status(e, OLC_E_IO), e, "lock-open",
                          "cannot open the lock file of", path);
  olc_persist__hook_crash(OLC_STEP_LOCK_OPEN);
  st = acquire(*h, path, timeout_ms, err);
  if (st != OLC_OK) {
    OLC_FS(CloseHandle(*h));
    *h = INVALID_HANDLE_VALUE;
    return st;
  }
  olc_persist__hook_crash(OLC_STEP_LOCK);
  return OLC_OK;
}

void olc_win__unlock(HANDLE h) {
  if (h != INVALID_HANDLE_VALUE) {
    OVERLAPPED ov;
    memset(&ov, 0, sizeof ov);
    OLC_FS(UnlockFileEx(h, 0, MAXDWORD, MAXDWORD, &ov));
    OLC_FS(CloseHandle(h));
  }
  olc_persist__hook_crash(OLC_STEP_UNLOCK);
}

HANDLE olc_win__open_read(const wchar_t *wpath, DWORD *win) {
  int tries;
  HANDLE h = INVALID_HANDLE_VALUE;
  *win = 0;
  for (tries = 0; tries < 10; tries++) {
    h = OLC_FS(CreateFileW(wpath, GENERIC_READ,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_SEQUENTIAL_SCAN, NULL));
    if (h != INVALID_HANDLE_VALUE)
      return h;
    *win = GetLastError();
    /* A scanner or a writer's MoveFileEx may hold the file a moment. */
    if (*win != ERROR_SHARING_VIOLATION && *win != ERROR_LOCK_VIOLATION &&
        *win != ERROR_ACCESS_DENIED)
      break;
    olc_util__sleep_ms(10 * (tries + 1));
  }
  return INVALID_HANDLE_VALUE;
}

void olc_win__id_from_info(olc_file_id *id, const BY_HANDLE_FILE_INFORMATION *info) {
  uint64_t t =
      ((uint64_t)info->ftLastWriteTime.dwHighDateTime << 32) | info->ftLastWriteTime.dwLowDateTime;
  id->exists = 1;
  id->dev = info->dwVolumeSerialNumber;
  id->ino = ((uint64_t)info->nFileIndexHigh << 32) | info->nFileIndexLow;
  id->size = ((uint64_t)info->nFileSizeHigh << 32) | info->nFileSizeLow;
  /* 100 ns ticks since 1601 -> ns since 1970 */
  id->mtime_ns = ((int64_t)t - INT64_C(116444736000000000)) * 100;
}

olc_status olc_win__read_handle(olc_buf *out, olc_file_id *id, HANDLE h, size_t max,
                                const char *path, const char *where, olc_error *err) {
  BY_HANDLE_FILE_INFORMATION info;
  olc_file_id fid;
  olc_status s;
  if (!OLC_FS(GetFileInformationByHandle(h, &info)))
    return olc_win__error(err, OLC_E_IO, GetLastError(), where, "cannot stat", path);
  if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
    return olc_error__set(err, OLC_E_IO, where, "'%s' is not a regular file", path);
  olc_win__id_from_info(&fid, &info);
  if (max != 0 && fid.size > (uint64_t)max)
    return olc_error__set(err, OLC_E_LIMIT, where, "'%s' is larger than %llu bytes", path,
                          (unsigned long long)max);
  if (fid.size > (uint64_t)SIZE_MAX - 2)
    return olc_error__set(err, OLC_E_NOMEM, where, "cannot hold '%s' in memory", path);
  s = olc_buf__reserve(out, (size_t)fid.size + 1);
  for (;;) {
    DWORD got = 0, want;
    if (s == OLC_OK && out->cap - out->len < 2)
      s = olc_buf__reserve(out, 4096);
    if (s != OLC_OK)
      return olc_error__set(err, s, where, "cannot hold '%s' in memory", path);
    want = out->cap - out->len - 1 > 0x40000000u ? 0x40000000u : (DWORD)(out->cap - out->len - 1);
    if (!OLC_FS(ReadFile(h, out->data + out->len, want, &got, NULL)))
      return olc_win__error(err, OLC_E_IO, GetLastError(), where, "cannot read", path);
    if (got == 0)
      break;
    out->len += got;
    if (max != 0 && out->len > max)
      return olc_error__set(err, OLC_E_LIMIT, where, "'%s' is larger than %llu bytes", path,
                            (unsigned long long)max);
  }
  if (id != NULL)
    *id = fid;
  return OLC_OK;
}

void olc_win__gc(const char *dir, const char *base, uint32_t grace_seconds) {
  char *pattern, *name;
  wchar_t *w;
  WIN32_FIND_DATAW fd;
  HANDLE find;
  FILETIME now_ft;
  uint64_t now;
  if (olc_persist__hook_fail(OLC_STEP_GC) != 0)
    return;
  name = malloc(strlen(base) + 7);
  if (name == NULL)
    return;
  snprintf(name, strlen(base) + 7, "%s.*.tmp", base);
  pattern = olc_util__join_path(dir, name);
  free(name);
  w = pattern ? olc_win__wide(pattern) : NULL;
  free(pattern);
  if (w == NULL)
    return;
  GetSystemTimeAsFileTime(&now_ft);
  now = ((uint64_t)now_ft.dwHighDateTime << 32) | now_ft.dwLowDateTime;
  find = OLC_FS(FindFirstFileW(w, &fd));
  free(w);
  if (find == INVALID_HANDLE_VALUE)
    return;
  do {
    char *entry = olc_win__utf8(fd.cFileName);
    uint64_t t =
        ((uint64_t)fd.ftLastWriteTime.dwHighDateTime << 32) | fd.ftLastWriteTime.dwLowDateTime;
    if (entry != NULL && olc_persist__is_tmp_name(entry, base) &&
        !(fd.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT)) &&
        (now > t ? (now - t) / 10000000u : 0u) >= grace_seconds) { /* future: age 0 */
      char *full = olc_util__join_path(dir, entry);
      wchar_t *wf = full ? olc_win__wide(full) : NULL;
      if (wf != NULL)
        OLC_FS(DeleteFileW(wf)); /* sharing errors: skipped, retried next time */
      free(wf);
      free(full);
    }
    free(entry);
  } while (OLC_FS(FindNextFileW(find, &fd)));
  OLC_FS(FindClose(find));
}
