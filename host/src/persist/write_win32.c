/*
 * persist/write_win32.c - the primitives of the write sequence (write_sequence.c)
 * on Windows (docs/durability.md, "Platforms"): UTF-16 names beside P, CREATE_NEW for
 * the temporary, FlushFileBuffers, ReplaceFileW (which names the file it
 * displaced) and MoveFileExW with MOVEFILE_WRITE_THROUGH.
 */
#include "persist/win_int.h"
#include "persist/write_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/text.h"

#define H(h) ((HANDLE)(h))
#define CLOSED ((intptr_t)-1)

/* name, beside P, in UTF-16 (malloc'ed; NULL on invalid UTF-8 or no
 * memory). */
static wchar_t *wide_beside(const olc_persist__writer *w, const char *name) {
  size_t dl = (size_t)(w->base - w->path), n = strlen(name);
  char *full = malloc(dl + n + 1);
  wchar_t *wide;
  if (full == NULL)
    return NULL;
  memcpy(full, w->path, dl);
  memcpy(full + dl, name, n + 1);
  wide = olc_win__wide(full);
  free(full);
  return wide;
}

void olc_persist__os_mutex(int lock) {
  if (lock)
    olc_win__mutex_lock();
  else
    olc_win__mutex_unlock();
}

olc_status olc_persist__os_init(olc_persist__writer *w, olc_error *err) {
  wchar_t *probe = olc_win__wide(w->path);
  if (probe == NULL)
    return olc_error__set(err, OLC_E_INVALID, "update", "invalid UTF-8 in path '%s'", w->path);
  free(probe);
  return OLC_OK;
}

void olc_persist__os_free(olc_persist__writer *w) { (void)w; }

olc_status olc_persist__os_open_dir(olc_persist__writer *w, olc_error *err) {
  return olc_win__ensure_dir(w->dir, 1, err);
}

olc_status olc_persist__os_check_target(olc_persist__writer *w, olc_error *err) {
  return olc_win__check_target(w->path, &w->opt, err);
}

olc_status olc_persist__os_lock(olc_persist__writer *w, olc_error *err) {
  HANDLE h = INVALID_HANDLE_VALUE, map = NULL;
  olc_status st = olc_win__lock(&h, w->path, w->opt.lock_timeout_ms, err);
  w->os.lock = (intptr_t)h;
  if (st == OLC_OK) /* W2b */
    st = olc_win__gen_open(&w->os.gen, &map, h, w->path, err);
  w->os.gen_map = map;
  return st;
}

/* The locked handle and the file named P.lock now: the same volume and
 * file index (a deleted or replaced P.lock has another, or none). */
int olc_persist__os_lock_current(olc_persist__writer *w) {
  BY_HANDLE_FILE_INFORMATION held, named;
  wchar_t *wl;
  HANDLE h;
  char *lock;
  int same;
  if (w->os.lock == CLOSED || !OLC_FS(GetFileInformationByHandle(H(w->os.lock), &held)))
    return 1;
  lock = malloc(strlen(w->base) + sizeof OLC_PERSIST__LOCK_SUFFIX);
  if (lock == NULL)
    return 1;
  sprintf(lock, "%s%s", w->base, OLC_PERSIST__LOCK_SUFFIX);
  wl = wide_beside(w, lock);
  free(lock);
  if (wl == NULL)
    return 1;
  h = OLC_FS(CreateFileW(wl, FILE_READ_ATTRIBUTES,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                         OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL));
  free(wl);
  if (h == INVALID_HANDLE_VALUE)
    return 0;
  same = OLC_FS(GetFileInformationByHandle(h, &named)) &&
         named.dwVolumeSerialNumber == held.dwVolumeSerialNumber &&
         named.nFileIndexHigh == held.nFileIndexHigh && named.nFileIndexLow == held.nFileIndexLow;
  OLC_FS(CloseHandle(h));
  return same;
}

int olc_persist__os_gen_get(olc_persist__writer *w, uint64_t *gen, uint64_t *instance) {
  return olc_win__gen_get(w->os.gen, gen, instance);
}

/* A store into the mapped page: nothing can fail once it is mapped. */
long olc_persist__os_gen_bump(olc_persist__writer *w, int to_odd) {
  if (to_odd)
    olc_win__gen_odd(w->os.gen);
  else
    olc_win__gen_even(w->os.gen);
  return 0;
}

void olc_persist__os_unlock(olc_persist__writer *w) {
  olc_win__gen_close(w->os.gen, w->os.gen_map);
  w->os.gen = NULL;
  w->os.gen_map = NULL;
  olc_win__unlock(H(w->os.lock));
  w->os.lock = CLOSED;
}

void olc_persist__os_close_dir(olc_persist__writer *w) { (void)w; }

long olc_persist__os_base_open(olc_persist__writer *w, olc_file_id *id) {
  BY_HANDLE_FILE_INFORMATION info;
  DWORD e = 0;
  wchar_t *wp = olc_win__wide(w->path);
  HANDLE h = wp != NULL ? olc_win__open_read(wp, &e) : INVALID_HANDLE_VALUE;
  free(wp);
  if (wp == NULL)
    return ERROR_INVALID_NAME;
  if (h == INVALID_HANDLE_VALUE)
    return (long)e;
  if (!OLC_FS(GetFileInformationByHandle(h, &info))) {
    e = GetLastError();
    OLC_FS(CloseHandle(h));
    return (long)e;
  }
  olc_win__id_from_info(id, &info);
  w->os.base = (intptr_t)h;
  return 0;
}

olc_status olc_persist__os_base_read(olc_persist__writer *w, olc_buf *out, olc_error *err) {
  LARGE_INTEGER zero;
  zero.QuadPart = 0;
  if (!OLC_FS(SetFilePointerEx(H(w->os.base), zero, NULL, FILE_BEGIN)))
    return olc_persist__os_error(err, OLC_STEP_RELOAD, (long)GetLastError(), "cannot read again",
                                 w->path);
  return olc_win__read_handle(out, NULL, H(w->os.base), w->opt.max_file_size, w->path, "reload",
                              err);
}

void olc_persist__os_base_close(olc_persist__writer *w) {
  if (w->os.base != CLOSED)
    OLC_FS(CloseHandle(H(w->os.base)));
  w->os.base = CLOSED;
}

olc_status olc_persist__os_read_name(olc_persist__writer *w, const char *name, olc_buf *out,
                                     olc_error *err) {
  DWORD e = ERROR_INVALID_NAME;
  wchar_t *wn = wide_beside(w, name);
  HANDLE h = wn != NULL ? olc_win__open_read(wn, &e) : INVALID_HANDLE_VALUE;
  olc_status s;
  free(wn);
  if (h == INVALID_HANDLE_VALUE)
    return olc_persist__os_error(err, OLC_STEP_RELOAD, (long)e,
                                 "cannot open the file displaced from", w->path);
  s = olc_win__read_handle(out, NULL, h, w->opt.max_file_size, w->path, "reload", err);
  OLC_FS(CloseHandle(h));
  return s;
}

void olc_persist__os_gc(olc_persist__writer *w) {
  olc_win__gc(w->dir, w->base, w->opt.tmp_grace_seconds);
}

const char *olc_persist__os_tmp_tag(void) { return ""; }

/* CREATE_NEW is O_EXCL; share mode 0 until it is closed.  Handles are not
 * inherited (no SECURITY_ATTRIBUTES): the O_CLOEXEC of Windows. */
long olc_persist__os_tmp_create(olc_persist__writer *w, int in_place) {
  wchar_t *wn = in_place ? olc_win__wide(w->path) : wide_beside(w, w->tmp);
  HANDLE h;
  if (wn == NULL)
    return ERROR_INVALID_NAME;
  if (in_place)
    h = OLC_FS(CreateFileW(wn, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL,
                           CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL));
  else
    h = OLC_FS(CreateFileW(wn, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL));
  free(wn);
  if (h == INVALID_HANDLE_VALUE)
    return (long)GetLastError();
  w->os.tmp = (intptr_t)h;
  return 0;
}

long olc_persist__os_tmp_write(olc_persist__writer *w, const unsigned char *p, size_t n) {
  while (n > 0) {
    DWORD chunk = n > 0x40000000u ? 0x40000000u : (DWORD)n, done = 0;
    if (!OLC_FS(WriteFile(H(w->os.tmp), p, chunk, &done, NULL)))
      return (long)GetLastError();
    p += done;
    n -= done;
  }
  return 0;
}

long olc_persist__os_tmp_sync(olc_persist__writer *w) {
  return OLC_FS(FlushFileBuffers(H(w->os.tmp))) ? 0 : (long)GetLastError();
}

long olc_persist__os_tmp_close(olc_persist__writer *w, olc_file_id *id) {
  BY_HANDLE_FILE_INFORMATION info;
  HANDLE h = H(w->os.tmp);
  long e = 0;
  w->os.tmp = CLOSED;
  if (id != NULL) {
    if (OLC_FS(GetFileInformationByHandle(h, &info)))
      olc_win__id_from_info(id, &info);
    else
      e = (long)GetLastError();
  }
  if (!OLC_FS(CloseHandle(h)) && e == 0)
    e = (long)GetLastError();
  return e;
}

/* ReplaceFileW moves P to aside (a temporary's name: the garbage
 * collection takes what a crash leaves) as the temporary takes its place;
 * never delete-then-move. */
long olc_persist__os_exchange(olc_persist__writer *w, char *aside, size_t size) {
  wchar_t *wp, *wt, *wb;
  long e = 0;
  if (olc_persist__tmp_name(aside, size, w->base, "") != 0)
    return ERROR_FILENAME_EXCED_RANGE;
  wp = olc_win__wide(w->path);
  wt = wide_beside(w, w->tmp);
  wb = wide_beside(w, aside);
  if (wp == NULL || wt == NULL || wb == NULL)
    e = ERROR_NOT_ENOUGH_MEMORY;
  else if (!OLC_FS(ReplaceFileW(wp, wt, wb, REPLACEFILE_IGNORE_MERGE_ERRORS, NULL, NULL)))
    e = (long)GetLastError();
  free(wp);
  free(wt);
  free(wb);
  return e;
}

static long move(olc_persist__writer *w, const char *from, const char *to, DWORD flags) {
  wchar_t *wf = wide_beside(w, from), *wt = wide_beside(w, to);
  long e = 0;
  if (wf == NULL || wt == NULL)
    e = ERROR_NOT_ENOUGH_MEMORY;
  else if (!OLC_FS(MoveFileExW(wf, wt, flags)))
    e = (long)GetLastError();
  free(wf);
  free(wt);
  return e;
}

long olc_persist__os_move_new(olc_persist__writer *w) {
  return move(w, w->tmp, w->base, MOVEFILE_WRITE_THROUGH);
}

long olc_persist__os_rename(olc_persist__writer *w, const char *from, const char *to) {
  return move(w, from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH);
}

long olc_persist__os_unlink(olc_persist__writer *w, const char *name) {
  wchar_t *wn = wide_beside(w, name);
  long e = 0;
  if (wn == NULL)
    e = ERROR_NOT_ENOUGH_MEMORY;
  else if (!OLC_FS(DeleteFileW(wn)))
    e = (long)GetLastError();
  free(wn);
  return e;
}

/* NTFS file indexes carry a sequence number: a reused record gets
 * another. */
long olc_persist__os_identify(olc_persist__writer *w, const char *name, olc_file_id *id) {
  BY_HANDLE_FILE_INFORMATION info;
  DWORD e = ERROR_INVALID_NAME;
  wchar_t *wn = wide_beside(w, name);
  HANDLE h = wn != NULL ? olc_win__open_read(wn, &e) : INVALID_HANDLE_VALUE;
  free(wn);
  if (h == INVALID_HANDLE_VALUE)
    return (long)e;
  e = OLC_FS(GetFileInformationByHandle(h, &info)) ? 0 : GetLastError();
  if (e == 0)
    olc_win__id_from_info(id, &info);
  OLC_FS(CloseHandle(h));
  return (long)e;
}

int olc_persist__os_list(olc_persist__writer *w, int (*each)(const char *name, void *ctx),
                         void *ctx) {
  WIN32_FIND_DATAW fd;
  wchar_t *wp = wide_beside(w, "*");
  HANDLE find;
  int stop = 0;
  if (wp == NULL)
    return -1;
  find = OLC_FS(FindFirstFileW(wp, &fd));
  free(wp);
  if (find == INVALID_HANDLE_VALUE)
    return -1;
  do {
    char *entry = olc_win__utf8(fd.cFileName);
    if (entry == NULL)
      stop = -1;
    else
      stop = each(entry, ctx) != 0;
    free(entry);
  } while (stop == 0 && OLC_FS(FindNextFileW(find, &fd)));
  if (stop == 0 && GetLastError() != ERROR_NO_MORE_FILES)
    stop = -1;
  OLC_FS(FindClose(find));
  return stop < 0 ? -1 : 0;
}

/* No directory sync exists: MOVEFILE_WRITE_THROUGH is the durability
 * knob. */
long olc_persist__os_sync_dir(olc_persist__writer *w) {
  (void)w;
  return 0;
}

int olc_persist__os_is_absent(long e) {
  return e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND;
}
int olc_persist__os_is_exists(long e) {
  return e == ERROR_FILE_EXISTS || e == ERROR_ALREADY_EXISTS;
}
int olc_persist__os_is_transient(long e) {
  return e == ERROR_SHARING_VIOLATION || e == ERROR_ACCESS_DENIED || e == ERROR_LOCK_VIOLATION;
}
int olc_persist__os_is_unsupported(long e) {
  return e == ERROR_INVALID_PARAMETER || e == ERROR_NOT_SUPPORTED || e == ERROR_INVALID_FUNCTION;
}

const char *olc_persist__os_strerror(long e, char *buf, size_t size) {
  snprintf(buf, size, "win32 error %ld", e);
  return buf;
}

olc_status olc_persist__os_error(olc_error *err, olc_step step, long e, const char *what,
                                 const char *name) {
  return olc_win__error(err, olc_win__status((DWORD)e, OLC_E_IO), (DWORD)e, olc_step__name(step),
                        what, name);
}
