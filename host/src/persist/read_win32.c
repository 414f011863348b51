/*
 * persist/persist_win32.c - the locked reload-merge-replace of
 * DURABILITY.md 2.2 on Windows, lock-free readers and repair.
 */
#include "persist/win_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/error.h"
#include "util/text.h"

typedef struct writer {
  const char *path;
  const char *base;
  char *dir;
  wchar_t *wpath;
  char *tmp;
  wchar_t *wtmp;
  HANDLE lock;
  HANDLE th;
  int tmp_created;
  void *gen;      /* the generation counter of P.lock, NULL when unmapped */
  HANDLE gen_map; /* its file mapping */
  int gen_odd;    /* made odd, not yet even again */
  olc_persist_options opt;
  olc_buf old;
  olc_buf next;
  olc_buf displaced; /* the orphan's bytes */
  olc_buf both;      /* P now with the orphan's records (the absorb) */
  olc_buf ancestor;  /* the file merged in the round that displaced the orphan */
  int ancestor_exists;
  int linear; /* the orphan descends from the file merged (lineage_linear) */
  olc_file_id old_id;
  wchar_t *orphan; /* a displaced file not yet merged into a published one */
} writer;

static olc_status hooked_error(olc_error *err, olc_step step, int e, const char *what,
                               const char *name) {
  return olc_error__sys(err, olc_persist__errno_status(e, OLC_E_IO), e, olc_step__name(step),
                        "%s '%s'", what, name);
}

static olc_status win_fail(olc_error *err, olc_step step, DWORD e, const char *what,
                           const char *name) {
  return olc_win__error(err, olc_win__status(e, OLC_E_IO), e, olc_step__name(step), what, name);
}

static olc_status reload(writer *w, olc_error *err) {
  int hooked = olc_persist__hook_fail(OLC_STEP_RELOAD);
  DWORD e = 0;
  HANDLE h;
  olc_status st;
  if (hooked != 0)
    return hooked_error(err, OLC_STEP_RELOAD, hooked, "cannot open", w->path);
  memset(&w->old_id, 0, sizeof w->old_id);
  olc_buf__reset(&w->old);
  h = olc_win__open_read(w->wpath, &e);
  if (h == INVALID_HANDLE_VALUE) {
    if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND) {
      olc_persist__hook_crash(OLC_STEP_RELOAD);
      return OLC_OK; /* first write */
    }
    return win_fail(err, OLC_STEP_RELOAD, e, "cannot open", w->path);
  }
  st = olc_win__read_handle(&w->old, &w->old_id, h, w->opt.max_file_size, w->path, "reload", err);
  OLC_FS(CloseHandle(h));
  if (st == OLC_OK)
    olc_persist__hook_crash(OLC_STEP_RELOAD);
  return st;
}

static olc_status create_tmp(writer *w, olc_error *err) {
  size_t cap = strlen(w->path) + 40;
  int tries;
  DWORD e = 0;
  free(w->tmp);
  w->tmp = malloc(cap);
  if (w->tmp == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "tmp-create", "out of memory for '%s'", w->path);
  for (tries = 0; tries < OLC_PERSIST__TMP_TRIES; tries++) {
    unsigned char r[8];
    int hooked;
    olc_persist__random(r, sizeof r);
    snprintf(w->tmp, cap, "%s.%lu.%02x%02x%02x%02x%02x%02x%02x%02x.tmp", w->path,
             (unsigned long)GetCurrentProcessId(), r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
    free(w->wtmp);
    w->wtmp = olc_win__wide(w->tmp);
    if (w->wtmp == NULL)
      return olc_error__set(err, OLC_E_INVALID, "tmp-create", "invalid path '%s'", w->tmp);
    hooked = olc_persist__hook_fail(OLC_STEP_TMP_CREATE);
    if (hooked == EEXIST)
      continue;
    if (hooked != 0)
      return hooked_error(err, OLC_STEP_TMP_CREATE, hooked, "cannot create", w->tmp);
    /* CREATE_NEW is O_EXCL; share mode 0 until it is closed. */
    w->th = OLC_FS(
        CreateFileW(w->wtmp, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL));
    if (w->th != INVALID_HANDLE_VALUE) {
      w->tmp_created = 1;
      olc_persist__hook_crash(OLC_STEP_TMP_CREATE);
      return OLC_OK;
    }
    e = GetLastError();
    if (e != ERROR_FILE_EXISTS && e != ERROR_ALREADY_EXISTS)
      break;
  }
  if (e == 0)
    return hooked_error(err, OLC_STEP_TMP_CREATE, EEXIST, "cannot create", w->tmp);
  return win_fail(err, OLC_STEP_TMP_CREATE, e, "cannot create", w->tmp);
}

static DWORD write_all(HANDLE h, const unsigned char *p, size_t n) {
  while (n > 0) {
    DWORD chunk = n > 0x40000000u ? 0x40000000u : (DWORD)n, done = 0;
    if (!OLC_FS(WriteFile(h, p, chunk, &done, NULL)))
      return GetLastError();
    p += done;
    n -= done;
  }
  return 0;
}

static olc_status write_tmp(writer *w, olc_file_id *new_id, olc_error *err) {
  size_t half = w->next.len / 2;
  BY_HANDLE_FILE_INFORMATION info;
  DWORD e = write_all(w->th, w->next.data, half);
  int hooked;
  olc_persist__hook_crash_half();
  if (e != 0)
    return win_fail(err, OLC_STEP_WRITE, e, "cannot write", w->tmp);
  hooked = olc_persist__hook_fail(OLC_STEP_WRITE);
  if (hooked != 0)
    return hooked_error(err, OLC_STEP_WRITE, hooked, "cannot write", w->tmp);
  e = write_all(w->th, w->next.data + half, w->next.len - half);
  if (e != 0)
    return win_fail(err, OLC_STEP_WRITE, e, "cannot write", w->tmp);
  olc_persist__hook_crash(OLC_STEP_WRITE);
  if (!olc_persist__hook_disabled(OLC_SAFETY_FSYNC)) {
    hooked = olc_persist__hook_fail(OLC_STEP_FSYNC);
    if (hooked != 0)
      return hooked_error(err, OLC_STEP_FSYNC, hooked, "cannot sync", w->tmp);
    if (!OLC_FS(FlushFileBuffers(w->th))) /* never retried */
      return win_fail(err, OLC_STEP_FSYNC, GetLastError(), "cannot sync", w->tmp);
  }
  olc_persist__hook_crash(OLC_STEP_FSYNC);
  if (!OLC_FS(GetFileInformationByHandle(w->th, &info)))
    return win_fail(err, OLC_STEP_CLOSE, GetLastError(), "cannot stat", w->tmp);
  olc_win__id_from_info(new_id, &info);
  e = OLC_FS(CloseHandle(w->th)) ? 0 : GetLastError();
  w->th = INVALID_HANDLE_VALUE;
  if (e != 0)
    return win_fail(err, OLC_STEP_CLOSE, e, "cannot close", w->tmp);
  hooked = olc_persist__hook_fail(OLC_STEP_CLOSE);
  if (hooked != 0)
    return hooked_error(err, OLC_STEP_CLOSE, hooked, "cannot close", w->tmp);
  olc_persist__hook_crash(OLC_STEP_CLOSE);
  return OLC_OK;
}

/* W10: MoveFileExW with bounded retries on transient sharing errors (an
 * antivirus scanner or a reader without FILE_SHARE_DELETE); never
 * delete-then-move. */
static olc_status replace(writer *w, olc_error *err) {
  int tries;
  DWORD e = 0;
  int hooked = olc_persist__hook_fail(OLC_STEP_RENAME);
  if (hooked != 0)
    return hooked_error(err, OLC_STEP_RENAME, hooked, "cannot replace", w->path);
  for (tries = 0; tries < 10; tries++) {
    if (OLC_FS(MoveFileExW(w->wtmp, w->wpath, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)))
      return OLC_OK;
    e = GetLastError();
    if (e != ERROR_SHARING_VIOLATION && e != ERROR_ACCESS_DENIED && e != ERROR_LOCK_VIOLATION)
      break;
    Sleep(25 * (DWORD)(tries + 1));
  }
  return win_fail(err, OLC_STEP_RENAME, e, "cannot replace", w->path);
}

/* "<P>.<pid>.<16 hex>.tmp": where ReplaceFileW puts the file it replaces
 * (a temporary's name: the garbage collection takes what a crash leaves). */
static wchar_t *backup_name(const writer *w) {
  char *name = malloc(strlen(w->path) + 40);
  unsigned char r[8];
  wchar_t *wide;
  if (name == NULL)
    return NULL;
  olc_persist__random(r, sizeof r);
  sprintf(name, "%s.%lu.%02x%02x%02x%02x%02x%02x%02x%02x.tmp", w->path,
          (unsigned long)GetCurrentProcessId(), r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
  wide = olc_win__wide(name);
  free(name);
  return wide;
}

/* POSIX's lineage_linear (persist_posix.c): 1 when, right after the
 * replace, nothing beside P may hold a file displaced from P that no file
 * in P descends from yet (own, the orphan just taken out, aside). */
static int lineage_linear(const writer *w, const wchar_t *own) {
  char *ownu = olc_win__utf8(own), *name, *pattern;
  const char *ownb;
  size_t i, n = strlen(w->base) + 3;
  wchar_t *wp;
  WIN32_FIND_DATAW fd;
  HANDLE find;
  int linear = 1;
  if (ownu == NULL)
    return 0;
  ownb = ownu;
  for (i = 0; ownu[i] != 0; i++)
    if (olc_util__is_sep(ownu[i]))
      ownb = ownu + i + 1;
  name = malloc(n);
  if (name != NULL)
    snprintf(name, n, "%s.*", w->base);
  pattern = name != NULL ? olc_util__join_path(w->dir, name) : NULL;
  free(name);
  wp = pattern != NULL ? olc_win__wide(pattern) : NULL;
  free(pattern);
  if (wp == NULL) {
    free(ownu);
    return 0;
  }
  find = OLC_FS(FindFirstFileW(wp, &fd));
  free(wp);
  if (find == INVALID_HANDLE_VALUE) {
    free(ownu);
    return 0; /* at least the orphan is there: nothing proves linear */
  }
  do {
    char *entry = olc_win__utf8(fd.cFileName);
    if (entry == NULL || olc_persist__maybe_orphan(entry, w->base, ownb))
      linear = 0;
    free(entry);
  } while (linear && OLC_FS(FindNextFileW(find, &fd)));
  if (linear && GetLastError() != ERROR_NO_MORE_FILES)
    linear = 0;
  OLC_FS(FindClose(find));
  free(ownu);
  return linear;
}

/* The commit of POSIX's replace_p (persist_posix.c) on Windows: ReplaceFileW
 * moves P to a backup name as the temporary takes its place, and the
 * backup must be the file merged (its volume and file index: NTFS file
 * indexes carry a sequence number, so a reused record gets another);
 * else it is another writer's, the orphan, *again = 1.  Where P was
 * absent, MoveFileExW without MOVEFILE_REPLACE_EXISTING (a P created
 * since: *again = 1, nothing displaced).  A file system without
 * ReplaceFileW falls back to the plain replace.  0 or a Windows error. */
static DWORD replace_checked(writer *w, int *again) {
  wchar_t *bak;
  HANDLE h;
  BY_HANDLE_FILE_INFORMATION info;
  olc_file_id did;
  DWORD e = 0;
  int tries;
  *again = 0;
  if (!w->old_id.exists) {
    if (OLC_FS(MoveFileExW(w->wtmp, w->wpath, MOVEFILE_WRITE_THROUGH))) {
      w->tmp_created = 0;
      return 0;
    }
    e = GetLastError();
    if (e == ERROR_ALREADY_EXISTS || e == ERROR_FILE_EXISTS) {
      *again = 1;
      return 0;
    }
    return e;
  }
  bak = backup_name(w);
  if (bak == NULL)
    return ERROR_NOT_ENOUGH_MEMORY;
  for (tries = 0; tries < 10; tries++) {
    if (OLC_FS(ReplaceFileW(w->wpath, w->wtmp, bak, REPLACEFILE_IGNORE_MERGE_ERRORS, NULL, NULL)))
      break;
    e = GetLastError();
    if (e != ERROR_SHARING_VIOLATION && e != ERROR_ACCESS_DENIED && e != ERROR_LOCK_VIOLATION) {
      free(bak);
      return e; /* ERROR_UNABLE_TO_REMOVE_REPLACED and the like: P unchanged */
    }
    Sleep(25 * (DWORD)(tries + 1));
  }
  if (tries == 10) {
    free(bak);
    return e;
  }
  w->tmp_created = 0;
  h = olc_win__open_read(bak, &e);
  memset(&did, 0, sizeof did);
  if (h != INVALID_HANDLE_VALUE) {
    if (OLC_FS(GetFileInformationByHandle(h, &info)))
      olc_win__id_from_info(&did, &info);
    OLC_FS(CloseHandle(h));
  }
  if ((did.exists && did.dev == w->old_id.dev && did.ino == w->old_id.ino) ||
      w->opt.absorb == NULL) {
    OLC_FS(DeleteFileW(bak)); /* the old P (a file replaced whole: the last commit wins) */
    free(bak);
    return 0;
  }
  free(w->orphan);
  w->orphan = bak;
  w->linear = lineage_linear(w, bak);
  *again = 1;
  return 0;
}

/* W10 (with the retries of replace()) and the check of what it replaced. */
static olc_status commit_once(writer *w, int *again, olc_error *err) {
  DWORD e;
  int hooked = olc_persist__hook_fail(OLC_STEP_RENAME);
  *again = 0;
  if (hooked != 0)
    return hooked_error(err, OLC_STEP_RENAME, hooked, "cannot replace", w->path);
  if (olc_persist__hook_disabled(OLC_PERSIST__SAFETY_EXCHANGE))
    e = ERROR_NOT_SUPPORTED; /* negative control: the plain replace */
  else
    e = replace_checked(w, again);
  if (e == ERROR_INVALID_PARAMETER || e == ERROR_NOT_SUPPORTED || e == ERROR_INVALID_FUNCTION) {
    olc_status st = replace(w, err); /* no ReplaceFileW here: the window README names */
    if (st == OLC_OK)
      w->tmp_created = 0;
    return st;
  }
  if (e != 0)
    return win_fail(err, OLC_STEP_RENAME, e, "cannot replace", w->path);
  return OLC_OK;
}

/* The orphan's bytes and P now, absorbed and merged: the next content. */
static olc_status merge_again(writer *w, olc_persist_transform_fn transform, void *payload,
                              olc_error *err) {
  const unsigned char *base;
  size_t len;
  int unchanged = 0;
  olc_status st = OLC_OK;
  if (w->tmp_created && OLC_FS(DeleteFileW(w->wtmp)))
    w->tmp_created = 0; /* not committed (a P created meanwhile) */
  olc_buf__reset(&w->both);
  olc_buf__reset(&w->next);
  if (w->orphan != NULL) {
    DWORD e = 0;
    HANDLE h = olc_win__open_read(w->orphan, &e);
    olc_file_id oid;
    if (h == INVALID_HANDLE_VALUE)
      return win_fail(err, OLC_STEP_RELOAD, e, "cannot open the file displaced from", w->path);
    olc_buf__reset(&w->displaced);
    st = olc_win__read_handle(&w->displaced, &oid, h, w->opt.max_file_size, w->path, "reload", err);
    OLC_FS(CloseHandle(h));
  }
  if (st == OLC_OK)
    st = reload(w, err);
  if (st != OLC_OK)
    return st;
  base = w->old.data;
  len = w->old.len;
  if (w->orphan != NULL) {
    st = w->opt.absorb(&w->both, w->old.data, w->old.len, w->old_id.exists, w->ancestor.data,
                       w->ancestor.len, w->ancestor_exists, w->displaced.data, w->displaced.len,
                       payload, err);
    if (st != OLC_OK)
      return st;
    base = w->both.data;
    len = w->both.len;
  }
  st = transform(&w->next, &unchanged, base, len, base != w->old.data ? 1 : w->old_id.exists,
                 payload, err);
  if (st == OLC_OK && unchanged) { /* P must still be written: the orphan's records */
    olc_buf__reset(&w->next);
    st = olc_buf__append(&w->next, base, len);
  }
  if (st != OLC_OK && err != NULL && err->code == OLC_OK)
    olc_error__set(err, st, "merge", "merge failed for '%s'", w->path);
  return st;
}

/* Commits until one replaced exactly the file it merged (POSIX's commit). */
static olc_status commit(writer *w, olc_file_id *nid, olc_persist_transform_fn transform,
                         void *payload, olc_error *err) {
  int round, again = 0;
  olc_status st = OLC_OK;
  for (round = 0; st == OLC_OK; round++) {
    wchar_t *had = w->orphan;
    unsigned char r;
    if (had != NULL)
      w->orphan = NULL; /* replace_checked may name a new one */
    st = commit_once(w, &again, err);
    if (st == OLC_OK && w->orphan != NULL) {
      /* Another writer's file was displaced: where it descends from the
       * file merged in this round (linear), that file is the ancestor of
       * the three-way merge (persist.h, absorb); else none (a union). */
      olc_buf t = w->ancestor;
      w->ancestor = w->old;
      w->old = t;
      olc_buf__reset(&w->old);
      w->ancestor_exists = w->linear && w->old_id.exists;
    }
    if (had != NULL) {
      if (st == OLC_OK && !w->tmp_created) {
        OLC_FS(DeleteFileW(had)); /* its records are in the file just committed */
        free(had);
      } else {
        free(w->orphan); /* cannot be set: nothing was replaced */
        w->orphan = had;
      }
    }
    if (st != OLC_OK || !again)
      break;
    if (round + 1 >= 64)
      return olc_error__set(err, OLC_E_LOCK, "rename",
                            "the lock file '%s.lock' keeps being replaced during the write",
                            w->path);
    olc_persist__random(&r, 1);
    Sleep((DWORD)(r % (1u << (round < 5 ? round + 1 : 6))));
    st = merge_again(w, transform, payload, err);
    if (st == OLC_OK)
      st = create_tmp(w, err);
    if (st == OLC_OK)
      st = write_tmp(w, nid, err);
  }
  return st;
}

/* A displaced file whose records could not be merged: kept as
 * "<P>.displaced-<pid>.<hex>" (not a name the garbage collection takes)
 * and named in the error. */
static void keep_orphan(writer *w, olc_error *err) {
  char *name = olc_win__utf8(w->orphan), *kept;
  size_t n, len;
  wchar_t *wk;
  if (name == NULL)
    return;
  n = strlen(name);
  kept = malloc(n + 16);
  if (kept != NULL && n > strlen(w->path) + 5) {
    sprintf(kept, "%s.displaced-%.*s", w->path, (int)(n - strlen(w->path) - 5),
            name + strlen(w->path) + 1);
    wk = olc_win__wide(kept);
    if (wk == NULL || !OLC_FS(MoveFileExW(w->orphan, wk, MOVEFILE_WRITE_THROUGH)))
      strcpy(kept, name);
    free(wk);
    if (err != NULL) {
      len = strlen(err->message);
      snprintf(err->message + len, sizeof err->message - len,
               "; another writer's file taken out of '%s' was kept as '%s'", w->path, kept);
    }
  }
  free(kept);
  free(name);
}

static olc_status run_update(writer *w, olc_file_id *new_id, int *written,
                             olc_persist_transform_fn transform, void *payload, olc_error *err) {
  olc_status st;
  olc_file_id nid;
  int unchanged = 0, hooked;
  st = olc_win__ensure_dir(w->dir, 1, err);
  if (st == OLC_OK) /* W1a: no P.lock beside something that is not a store */
    st = olc_win__check_target(w->path, &w->opt, err);
  if (st == OLC_OK)
    st = olc_win__lock(&w->lock, w->path, w->opt.lock_timeout_ms, err);
  if (st == OLC_OK)
    st = olc_win__gen_open(&w->gen, &w->gen_map, w->lock, w->path, err); /* W2b */
  if (st == OLC_OK)
    st = reload(w, err);
  if (st != OLC_OK)
    return st;
  hooked = olc_persist__hook_fail(OLC_STEP_MERGE);
  if (hooked != 0)
    return hooked_error(err, OLC_STEP_MERGE, hooked, "merge failed for", w->path);
  st = transform(&w->next, &unchanged, w->old.data, w->old.len, w->old_id.exists, payload, err);
  if (st != OLC_OK) {
    if (err != NULL && err->code == OLC_OK)
      olc_error__set(err, st, "merge", "merge failed for '%s'", w->path);
    return st;
  }
  olc_persist__hook_crash(OLC_STEP_MERGE);
  if (unchanged) {
    if (new_id != NULL)
      *new_id = w->old_id;
    return OLC_OK;
  }
  olc_win__gc(w->dir, w->base, w->opt.tmp_grace_seconds);
  olc_persist__hook_crash(OLC_STEP_GC);
  st = create_tmp(w, err);
  if (st == OLC_OK)
    st = write_tmp(w, &nid, err);
  if (st == OLC_OK) {
    /* Odd before the new P can be seen, even after (persist.h). */
    olc_win__gen_odd(w->gen);
    w->gen_odd = 1;
    st = commit(w, &nid, transform, payload, err);
  }
  if (st != OLC_OK)
    return st;
  w->tmp_created = 0; /* committed */
  olc_persist__hook_crash(OLC_STEP_RENAME);
  olc_win__gen_even(w->gen);
  w->gen_odd = 0;
  if (written != NULL)
    *written = 1;
  if (new_id != NULL)
    *new_id = nid;
  /* W11: no directory fsync on Windows (MOVEFILE_WRITE_THROUGH instead);
   * the hook keeps the step testable like on POSIX. */
  hooked = olc_persist__hook_fail(OLC_STEP_DIR_FSYNC);
  if (hooked != 0 && hooked != EINVAL)
    st = olc_error__sys(err, OLC_COMMITTED_UNSYNCED, hooked, "dir-fsync",
                        "'%s' was replaced but its durability is unconfirmed", w->path);
  olc_persist__hook_crash(OLC_STEP_DIR_FSYNC);
  return st;
}

/* No counter is read under the lock here: P is always read. */
olc_status olc_persist__update_known(olc_persist_known *after, int *written, const char *path,
                                     const olc_persist_options *options,
                                     const olc_persist_known *known, olc_buf *kept,
                                     olc_persist_transform_fn transform, void *payload,
                                     olc_error *err) {
  olc_status st;
  (void)known;
  if (kept != NULL)
    olc_buf__free(kept);
  st = olc_persist__update(after != NULL ? &after->id : NULL, written, path, options, transform,
                           payload, err);
  if (after != NULL) {
    after->gen = OLC_PERSIST_GEN_NONE;
    after->instance = 0;
  }
  return st;
}

olc_status olc_persist__update(olc_file_id *new_id, int *written, const char *path,
                               const olc_persist_options *options,
                               olc_persist_transform_fn transform, void *payload, olc_error *err) {
  writer w;
  olc_status st;
  /* A stale error must not survive into this call's report. */
  olc_error_clear(err);
  if (written != NULL)
    *written = 0;
  if (new_id != NULL)
    memset(new_id, 0, sizeof *new_id);
  if (path == NULL || transform == NULL)
    return olc_error__set(err, OLC_E_INVALID, "update", "no path or no transform");
  memset(&w, 0, sizeof w);
  w.path = path;
  w.lock = w.th = INVALID_HANDLE_VALUE;
  olc_persist__options(&w.opt, options);
  olc_persist__hooks_init();
  st = olc_persist__split(&w.dir, &w.base, path, err);
  if (st != OLC_OK)
    return st;
  w.wpath = olc_win__wide(path);
  if (w.wpath == NULL) {
    free(w.dir);
    return olc_error__set(err, OLC_E_INVALID, "update", "invalid UTF-8 in path '%s'", path);
  }
  olc_win__mutex_lock();
  st = run_update(&w, new_id, written, transform, payload, err);
  if (w.th != INVALID_HANDLE_VALUE)
    OLC_FS(CloseHandle(w.th));
  if (w.tmp_created) {
    int tries;
    for (tries = 0; tries < 5 && !OLC_FS(DeleteFileW(w.wtmp)); tries++)
      Sleep(10); /* a scanner may hold it; GC catches what remains */
  }
  if (w.orphan != NULL)
    keep_orphan(&w, err);
  free(w.orphan);
  if (w.gen_odd)
    olc_win__gen_even(w.gen); /* failed replace: even again (a new value) */
  olc_win__gen_close(w.gen, w.gen_map);
  if (w.lock != INVALID_HANDLE_VALUE || st == OLC_OK || st == OLC_COMMITTED_UNSYNCED)
    olc_win__unlock(w.lock);
  olc_win__mutex_unlock();
  olc_buf__free(&w.old);
  olc_buf__free(&w.next);
  olc_buf__free(&w.displaced);
  olc_buf__free(&w.both);
  olc_buf__free(&w.ancestor);
  free(w.dir);
  free(w.wpath);
  free(w.tmp);
  free(w.wtmp);
  return st;
}

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
