/*
 * persist/fs_win32.c - the file-system probe on Windows (persist.h): the
 * volume's drive type and flags (a network share, a read-only volume),
 * and whether the directory, the file and its lock file may be written,
 * asked by opening them with the write access a save needs (nothing is
 * created or changed: no trial write).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "persist/persist_int.h"
#include "persist/win_int.h"
#include "util/error.h"

/* POSIX-like errno for what an open said, for the probe's messages. */
static int errno_of(DWORD e) {
  return e == ERROR_ACCESS_DENIED || e == ERROR_WRITE_PROTECT ? EACCES : EIO;
}

/* 1 when wpath may be opened with access (a directory with backup
 * semantics); 1 for a file that does not exist, which a save creates. */
static int may_open(const wchar_t *wpath, DWORD access, int dir, int *err_no) {
  DWORD flags = dir ? FILE_FLAG_BACKUP_SEMANTICS : FILE_ATTRIBUTE_NORMAL;
  HANDLE h = CreateFileW(wpath, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                         NULL, OPEN_EXISTING, flags, NULL);
  DWORD e;
  if (h != INVALID_HANDLE_VALUE) {
    CloseHandle(h);
    return 1;
  }
  e = GetLastError();
  if (!dir && (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND))
    return 1;
  if (e == ERROR_SHARING_VIOLATION)
    return 1; /* open elsewhere, not refused */
  *err_no = errno_of(e);
  return 0;
}

/* The volume under wdir: its type ("ntfs"; "smb" for a network share) and
 * whether it is read-only. */
static void volume_of(olc_persist_fs *out, const wchar_t *wdir) {
  wchar_t root[MAX_PATH + 1], fsname[64];
  DWORD flags = 0;
  char *name;
  size_t i;
  if (!GetVolumePathNameW(wdir, root, MAX_PATH))
    return;
  if (GetDriveTypeW(root) == DRIVE_REMOTE) {
    strcpy(out->type, "smb");
    out->network = 1;
  }
  if (!GetVolumeInformationW(root, NULL, 0, NULL, NULL, &flags, fsname,
                             sizeof fsname / sizeof fsname[0]))
    return;
  out->read_only = (flags & FILE_READ_ONLY_VOLUME) != 0;
  if (out->network)
    return;
  name = olc_win__utf8(fsname);
  if (name == NULL)
    return;
  for (i = 0; name[i] != 0 && i + 1 < sizeof out->type; i++)
    out->type[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
  out->type[i] = 0;
  free(name);
}

static olc_status probe_paths(olc_persist_fs *out, const char *path, const char *dir) {
  char *lock = malloc(strlen(path) + 6);
  wchar_t *wdir = olc_win__wide(dir), *wfile = olc_win__wide(path), *wlock = NULL;
  DWORD attr;
  olc_status st = OLC_E_NOMEM;
  if (lock != NULL) {
    strcpy(lock, path);
    strcat(lock, ".lock");
    wlock = olc_win__wide(lock);
  }
  if (wdir != NULL && wfile != NULL && wlock != NULL) {
    volume_of(out, wdir);
    out->dir_writable = may_open(wdir, FILE_ADD_FILE | DELETE, 1, &out->dir_errno);
    attr = GetFileAttributesW(wfile);
    out->file_exists = attr != INVALID_FILE_ATTRIBUTES;
    out->file_writable = out->file_exists && (attr & FILE_ATTRIBUTE_READONLY) != 0
                             ? (out->file_errno = EACCES, 0)
                             : may_open(wfile, GENERIC_WRITE, 0, &out->file_errno);
    out->lock_writable = may_open(wlock, GENERIC_WRITE, 0, &out->file_errno);
    st = OLC_OK;
  }
  free(lock);
  free(wdir);
  free(wfile);
  free(wlock);
  return st;
}

/* dir, or its nearest ancestor that exists (a save creates the rest). */
static void nearest_existing(char *dir) {
  for (;;) {
    wchar_t *w = olc_win__wide(dir);
    DWORD attr = w != NULL ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;
    size_t n = strlen(dir);
    free(w);
    if (attr != INVALID_FILE_ATTRIBUTES || w == NULL)
      return;
    while (n > 0 && dir[n - 1] != '/' && dir[n - 1] != '\\')
      n--;
    if (n <= 1 || (n == 3 && dir[1] == ':'))
      return; /* a root */
    dir[n - 1] = 0;
  }
}

olc_status olc_persist__fs_probe(olc_persist_fs *out, const char *path, olc_error *err) {
  const char *hooked = olc_persist__hook_fs_type();
  char *dir = NULL;
  const char *base = NULL;
  olc_status st;
  if (out == NULL || path == NULL)
    return olc_error__set(err, OLC_E_INVALID, "fs", "no output or no path");
  memset(out, 0, sizeof *out);
  st = olc_persist__split(&dir, &base, path, err);
  if (st != OLC_OK)
    return st;
  nearest_existing(dir);
  strncpy(out->dir, dir, sizeof out->dir - 1);
  st = probe_paths(out, path, dir);
  free(dir);
  if (st != OLC_OK)
    return olc_error__set(err, st, "fs", "out of memory probing '%s'", path);
  if (hooked != NULL) {
    memset(out->type, 0, sizeof out->type);
    strncpy(out->type, hooked, sizeof out->type - 1);
    out->network = olc_persist__fs_type_is_network(out->type);
  }
  return OLC_OK;
}

/* getenv's bytes are the ANSI code page's; a store path in OLC_STORE is
 * passed on as the CLI passes its arguments. */
const char *olc_persist__env(const char *name) {
  const char *v = getenv(name);
  return v != NULL && v[0] != 0 ? v : NULL;
}
