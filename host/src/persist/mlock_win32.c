/*
 * persist/mlock_win32.c - the file and lock calls of the measurement lock
 * (persist.h) on Windows: LockFileEx of one byte at offset 2^62
 * (OLC_MLOCK_BYTE_HIGH), far beyond the holder line, because a range
 * locked with LockFileEx cannot be read by another handle.  The file is
 * opened without following a reparse point; a directory, a reparse point
 * or a device is OLC_E_LOCK.  Its owner is not checked here: the profile
 * directory's ACL keeps other users out.
 */
#include "persist/win_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define OLC_MLOCK_BYTE_HIGH 0x40000000u /* offset 2^62 */

static volatile LONG local_held;

int olc_persist__mlock_local_take(void) {
  return InterlockedCompareExchange(&local_held, 1, 0) == 0;
}

void olc_persist__mlock_local_give(void) { InterlockedExchange(&local_held, 0); }

int64_t olc_persist__pid(void) { return (int64_t)GetCurrentProcessId(); }

/* 100 ns ticks since 1601 -> ms since 1970. */
static int64_t filetime_ms(const FILETIME *ft) {
  uint64_t t = ((uint64_t)ft->dwHighDateTime << 32) | ft->dwLowDateTime;
  return ((int64_t)t - INT64_C(116444736000000000)) / 10000;
}

int64_t olc_persist__process_start_s(void) {
  FILETIME created, exited, kernel, user;
  if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user))
    return 0;
  return filetime_ms(&created) / 1000;
}

static HANDLE open_file(const wchar_t *w, DWORD *e) {
  /* Handles are not inherited (no SECURITY_ATTRIBUTES): O_CLOEXEC. */
  HANDLE h = OLC_FS(CreateFileW(
      w, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
      OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL));
  *e = h == INVALID_HANDLE_VALUE ? GetLastError() : 0;
  return h;
}

/* Creates the directory of path. */
static olc_status make_parent(const char *path, olc_error *err) {
  char *dir = NULL;
  const char *base;
  olc_status st = olc_persist__split(&dir, &base, path, err);
  if (st == OLC_OK)
    st = olc_win__ensure_dir(dir, 1, err);
  free(dir);
  return st;
}

static olc_status check_file(HANDLE h, const char *path, olc_error *err) {
  BY_HANDLE_FILE_INFORMATION info;
  if (OLC_FS(GetFileType(h)) != FILE_TYPE_DISK)
    return olc_error__set(err, OLC_E_LOCK, "measure-lock",
                          "the measurement lock '%s' is not a regular file", path);
  if (!OLC_FS(GetFileInformationByHandle(h, &info)))
    return olc_win__error(err, OLC_E_IO, GetLastError(), "measure-lock", "cannot stat", path);
  if (info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT))
    return olc_error__set(err, OLC_E_LOCK, "measure-lock",
                          "the measurement lock '%s' is a directory or a link", path);
  return OLC_OK;
}

/* Why the open failed: a directory or a link in its place is OLC_E_LOCK
 * (CreateFileW refuses a directory with an access error). */
static olc_status open_failed(const wchar_t *w, DWORD e, const char *path, olc_error *err) {
  DWORD attr = OLC_FS(GetFileAttributesW(w));
  if (attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_REPARSE_POINT))
    return olc_error__set(err, OLC_E_LOCK, "measure-lock",
                          "the measurement lock '%s' is a symbolic link", path);
  if (attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY))
    return olc_error__set(err, OLC_E_LOCK, "measure-lock",
                          "the measurement lock '%s' is a directory", path);
  return olc_win__error(err, olc_win__status(e, OLC_E_IO), e, "measure-lock",
                        "cannot open or create the measurement lock", path);
}

olc_status olc_persist__mlock_open(olc_persist_mlock *m, const char *path, olc_error *err) {
  wchar_t *w = olc_win__wide(path);
  DWORD e = 0;
  HANDLE h;
  olc_status st = OLC_OK;
  if (w == NULL)
    return olc_error__set(err, OLC_E_INVALID, "measure-lock", "invalid path '%s'", path);
  h = open_file(w, &e);
  if (h == INVALID_HANDLE_VALUE && e == ERROR_PATH_NOT_FOUND) {
    st = make_parent(path, err);
    if (st == OLC_OK)
      h = open_file(w, &e);
  }
  if (st == OLC_OK && h == INVALID_HANDLE_VALUE)
    st = open_failed(w, e, path, err);
  free(w);
  if (st != OLC_OK)
    return st;
  st = check_file(h, path, err);
  if (st != OLC_OK) {
    OLC_FS(CloseHandle(h));
    return st;
  }
  m->fd = (intptr_t)h;
  return OLC_OK;
}

static OVERLAPPED lock_range(void) {
  OVERLAPPED ov;
  memset(&ov, 0, sizeof ov);
  ov.OffsetHigh = OLC_MLOCK_BYTE_HIGH;
  return ov;
}

olc_status olc_persist__mlock_try(olc_persist_mlock *m, const char *path, olc_error *err) {
  OVERLAPPED ov = lock_range();
  DWORD e;
  if (OLC_FS(LockFileEx((HANDLE)m->fd, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0,
                        &ov)))
    return OLC_OK;
  e = GetLastError();
  if (e == ERROR_LOCK_VIOLATION || e == ERROR_IO_PENDING)
    return OLC_E_BUSY;
  return olc_win__error(err, OLC_E_LOCK, e, "measure-lock", "cannot lock", path);
}

void olc_persist__mlock_put(olc_persist_mlock *m, const char *line, size_t len) {
  OVERLAPPED ov;
  DWORD done = 0;
  LARGE_INTEGER end;
  memset(&ov, 0, sizeof ov);
  /* Best effort: the line is a hint for waiters. */
  if (!OLC_FS(WriteFile((HANDLE)m->fd, line, (DWORD)len, &done, &ov)) || done != len)
    return;
  end.QuadPart = (LONGLONG)len;
  if (OLC_FS(SetFilePointerEx((HANDLE)m->fd, end, NULL, FILE_BEGIN)))
    (void)OLC_FS(SetEndOfFile((HANDLE)m->fd));
}

size_t olc_persist__mlock_get(olc_persist_mlock *m, char *buf, size_t size) {
  OVERLAPPED ov;
  DWORD n = 0;
  memset(&ov, 0, sizeof ov);
  if (!OLC_FS(ReadFile((HANDLE)m->fd, buf, (DWORD)(size - 1), &n, &ov)))
    n = 0;
  buf[n] = 0;
  return (size_t)n;
}

void olc_persist__mlock_close(olc_persist_mlock *m) {
  OVERLAPPED ov = lock_range();
  if (m->fd == -1)
    return;
  OLC_FS(UnlockFileEx((HANDLE)m->fd, 0, 1, 0, &ov)); /* fails harmlessly when not held */
  OLC_FS(CloseHandle((HANDLE)m->fd));
  m->fd = -1;
}
