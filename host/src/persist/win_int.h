/*
 * persist/win_int.h - Windows helpers shared by the *_win32.c files of the
 * persist module (docs/durability.md, "Platforms").
 */
#ifndef OLC_PERSIST_WIN_INT_H
#define OLC_PERSIST_WIN_INT_H

#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601 /* Windows 7 */
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include "persist/persist_int.h"
#include "util/buf.h"

/* Counts the call, then makes it. */
#define OLC_FS(call) (olc_persist__count(), (call))

/* UTF-8 -> UTF-16 (malloc'ed); absolute paths longer than MAX_PATH get
 * the "\\?\" prefix and backslashes.  NULL on invalid UTF-8 or no memory. */
wchar_t *olc_win__wide(const char *utf8);
/* UTF-16 -> UTF-8 (malloc'ed), NULL on failure. */
char *olc_win__utf8(const wchar_t *wide);

void olc_win__mutex_lock(void);
void olc_win__mutex_unlock(void);

/* Status for a Win32 error code of a step (disk full -> OLC_E_NOSPC). */
olc_status olc_win__status(DWORD code, olc_status fallback);
/* Fills err from a Win32 error code: "<what> '<name>' (win32 error N)". */
olc_status olc_win__error(olc_error *err, olc_status code, DWORD win, const char *where,
                          const char *what, const char *name);

/* Creates missing directories (step "mkdir"); OLC_E_NOT_FOUND without
 * create. */
olc_status olc_win__ensure_dir(const char *dir, int create, olc_error *err);

/* Opens "<path>.lock" and takes LockFileEx (steps "lock-open", "lock");
 * *h = INVALID_HANDLE_VALUE when the lock is disabled by a test switch. */
olc_status olc_win__lock(HANDLE *h, const char *path, int64_t timeout_ms, olc_error *err);
void olc_win__unlock(HANDLE h);

/* Opens path for reading with FILE_SHARE_READ|WRITE|DELETE, retrying
 * sharing violations briefly.  Returns INVALID_HANDLE_VALUE and *win on
 * failure. */
HANDLE olc_win__open_read(const wchar_t *wpath, DWORD *win);

/* Reads the whole open file; identity into id (may be NULL). */
olc_status olc_win__read_handle(olc_buf *out, olc_file_id *id, HANDLE h, size_t max,
                                const char *path, const char *where, olc_error *err);

void olc_win__id_from_info(olc_file_id *id, const BY_HANDLE_FILE_INFORMATION *info);

/* Deletes "<base>.<pid>.<16 hex>.tmp" files in dir older than grace. */
void olc_win__gc(const char *dir, const char *base, uint32_t grace_seconds);

/* Maps the generation counter of the locked P.lock for writing (growing
 * the file first, so no access through the view can meet a full disk) and
 * writes a fresh header when it has none; *base = NULL without a lock
 * handle (negative control).  OLC_OK, OLC_E_NOSPC, OLC_E_IO. */
olc_status olc_win__gen_open(void **base, HANDLE *mapping, HANDLE lock, const char *path,
                             olc_error *err);
void olc_win__gen_close(void *base, HANDLE mapping);
/* Odd before the step that changes P, even after it (base NULL: no-op). */
void olc_win__gen_odd(void *base);
void olc_win__gen_even(void *base);
/* Lock held: the generation and instance of a valid header (0), else -1
 * (base NULL too). */
int olc_win__gen_get(void *base, uint64_t *gen, uint64_t *instance);

/* Before P.lock is created (nothing to do when it exists): the target must
 * be absent or a regular file that opt->probe accepts (target_win32.c). */
olc_status olc_win__check_target(const char *path, const olc_persist_options *opt, olc_error *err);

#endif
