/*
 * tests/windows/win_persist_smoke.c - the Windows persistence layer
 * (write_sequence.c over write_win32.c, io_win32.c, path_win32.c) run under wine by
 * mingw_cross.sh: first write with missing directories, read back, no-op
 * merge, LockFileEx timeout, a fault at each step leaving the file intact,
 * GC, non-ASCII names, repair, the generation counter of P.lock (mapped
 * by a watch, moved by 2 per write, quiet checks without a call), the
 * measurement lock (LockFileEx, its holder line, timeout), the file-system
 * probe and the default path; the change detection under the lock and the
 * lost-lock retry, as on POSIX.  Plain C, no CUnit:
 * prints "ok"/"FAIL" per check and exits 1 on any failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "persist/persist.h"
#include "util/buf.h"

static int failures;

#define CHECK(cond, what)                                                                          \
  do {                                                                                             \
    if (cond) {                                                                                    \
      printf("ok   %s\n", what);                                                                   \
    } else {                                                                                       \
      printf("FAIL %s (line %d)\n", what, __LINE__);                                               \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

/* Appends one 'x' to the file; unchanged when payload says so. */
static olc_status grow(olc_buf *out, int *unchanged, const unsigned char *base, size_t len,
                       int exists, void *payload, olc_error *err) {
  (void)err;
  if (payload != NULL) {
    *unchanged = 1;
    return OLC_OK;
  }
  if (exists && olc_buf__append(out, base, len) != OLC_OK)
    return OLC_E_NOMEM;
  return olc_buf__putc(out, 'x');
}

static olc_status check_x(const unsigned char *bytes, size_t len, int complete, void *payload,
                          olc_error *err) {
  (void)complete;
  (void)err;
  size_t i;
  (void)payload;
  for (i = 0; i < len; i++)
    if (bytes[i] != 'x')
      return OLC_E_MALFORMED;
  return len ? OLC_OK : OLC_E_MALFORMED;
}

static olc_persist_options opts(int64_t timeout) {
  olc_persist_options o;
  o.lock_timeout_ms = timeout;
  o.tmp_grace_seconds = 0;
  o.file_mode = 0600;
  o.max_file_size = 1 << 20;
  o.probe = NULL;
  o.probe_payload = NULL;
  o.absorb = NULL;
  return o;
}

static long file_size(const char *path) {
  olc_buf b = OLC_BUF_INIT;
  long n = -1;
  if (olc_persist__read(&b, NULL, path, 0, NULL) == OLC_OK)
    n = (long)b.len;
  olc_buf__free(&b);
  return n;
}

/* UTF-8 -> UTF-16 into a static buffer (the test's own file calls). */
static const wchar_t *W(const char *utf8) {
  static wchar_t w[2][MAX_PATH];
  static int k;
  k ^= 1;
  if (MultiByteToWideChar(CP_UTF8, 0, utf8, -1, w[k], MAX_PATH) <= 0)
    w[k][0] = 0;
  return w[k];
}

static void write_raw(const char *path, const char *text) {
  FILE *f = _wfopen(W(path), L"wb");
  if (f != NULL) {
    fputs(text, f);
    fclose(f);
  }
}

static int tmp_count(const char *dir) {
  char pattern[MAX_PATH];
  WIN32_FIND_DATAW fd;
  HANDLE h;
  int n = 0;
  snprintf(pattern, sizeof pattern, "%s\\*.tmp", dir);
  h = FindFirstFileW(W(pattern), &fd);
  if (h == INVALID_HANDLE_VALUE)
    return 0;
  do
    n++;
  while (FindNextFileW(h, &fd));
  FindClose(h);
  return n;
}

static void fault(const char *path, const char *dir, olc_step step, int e, olc_status want) {
  olc_persist_hooks h;
  olc_persist_options o = opts(200);
  olc_error err;
  long before = file_size(path);
  char what[96];
  olc_status st;
  memset(&h, 0, sizeof h);
  h.fail_step = step;
  h.fail_errno = e;
  olc_persist__set_hooks(&h);
  st = olc_persist__update(NULL, NULL, path, &o, grow, NULL, &err);
  olc_persist__set_hooks(NULL);
  snprintf(what, sizeof what, "fault at %s -> %s", olc_step__name(step), olc_status_name(want));
  CHECK(st == want, what);
  if (want == OLC_COMMITTED_UNSYNCED || want == OLC_OK)
    CHECK(file_size(path) == before + 1, "  committed content visible");
  else
    CHECK(file_size(path) == before && strcmp(err.where, olc_step__name(step)) == 0,
          "  file unchanged, where = step");
  CHECK(tmp_count(dir) == 0, "  no temporary left");
  o.lock_timeout_ms = 0;
  CHECK(olc_persist__update(NULL, NULL, path, &o, grow, NULL, &err) == OLC_OK, "  lock released");
}

/* A writer that knows the file: its transform rebuilds the content from
 * the length it remembers when the writer proves P unchanged. */
typedef struct known_writer {
  size_t len;     /* bytes of P the caller last wrote or read */
  int known_seen; /* transforms called with OLC_PERSIST_BASE_KNOWN */
  int calls;      /* transforms called */
} known_writer;

static olc_status grow_known(olc_buf *out, int *unchanged, const unsigned char *base, size_t len,
                             int exists, void *payload, olc_error *err) {
  known_writer *k = payload;
  size_t i;
  (void)unchanged;
  (void)err;
  k->calls++;
  if (exists == OLC_PERSIST_BASE_KNOWN) {
    k->known_seen++;
    for (i = 0; i < k->len; i++)
      if (olc_buf__putc(out, 'x') != OLC_OK)
        return OLC_E_NOMEM;
  } else if (exists && olc_buf__append(out, base, len) != OLC_OK) {
    return OLC_E_NOMEM;
  }
  k->len = out->len + 1;
  return olc_buf__putc(out, 'x');
}

/* The same write sequence as on POSIX (write_sequence.c): the change detection
 * under the lock, and an attempt redone when P.lock is replaced while held. */
static void known_checks(const char *path, olc_persist_options *o) {
  known_writer k = {0, 0, 0};
  olc_persist_known after, again;
  olc_error err;
  long before = file_size(path);
  olc_status st;
  k.len = before > 0 ? (size_t)before : 0;
  st = olc_persist__update_known(&after, NULL, path, o, NULL, NULL, grow_known, &k, &err);
  CHECK(st == OLC_OK && after.gen != OLC_PERSIST_GEN_NONE && after.gen % 2 == 0,
        "known: the generation read under the lock");
  st = olc_persist__update_known(&again, NULL, path, o, &after, NULL, grow_known, &k, &err);
  CHECK(st == OLC_OK && k.known_seen == 1 && file_size(path) == before + 2,
        "known: an unchanged P is not read again");
  st = olc_persist__update_known(&again, NULL, path, o, &after, NULL, grow_known, &k, &err);
  CHECK(st == OLC_OK && k.known_seen == 1 && file_size(path) == before + 3,
        "known: a changed P is read");
}

typedef struct relock {
  int merges;
  char lock[MAX_PATH];
} relock;

/* At the merge of the first attempt, P.lock is moved away as another
 * process might: a writer that opens P.lock now locks another file. */
static void replace_lock(olc_step step, void *payload) {
  relock *r = payload;
  char aside[MAX_PATH + 8];
  if (step != OLC_STEP_MERGE || r->merges++ != 0)
    return;
  snprintf(aside, sizeof aside, "%s.old", r->lock);
  MoveFileExW(W(r->lock), W(aside), MOVEFILE_REPLACE_EXISTING);
}

static void relock_checks(const char *path, olc_persist_options *o) {
  relock at;
  olc_persist_hooks h;
  olc_error err;
  long before = file_size(path);
  olc_status st;
  memset(&at, 0, sizeof at);
  snprintf(at.lock, sizeof at.lock, "%s.lock", path);
  memset(&h, 0, sizeof h);
  h.at_step = replace_lock;
  h.at_step_payload = &at;
  olc_persist__set_hooks(&h);
  st = olc_persist__update(NULL, NULL, path, o, grow, NULL, &err);
  olc_persist__set_hooks(NULL);
  CHECK(st == OLC_OK && at.merges == 2 && file_size(path) == before + 1,
        "lost lock: the attempt is redone under the new P.lock");
}

/* The generation counter of P.lock through a reader's watch (persist.h). */
static void watch_checks(const char *path, olc_persist_options *o) {
  olc_persist_watch w;
  olc_persist_watch_token t;
  olc_persist_hooks h;
  olc_file_id id;
  olc_error err;
  uint64_t g0 = OLC_PERSIST_GEN_NONE, before;
  int i, quiet = 0, opened;
  memset(&h, 0, sizeof h);
  h.watch_recheck_ms = 600000; /* no periodic recheck in this test */
  olc_persist__set_hooks(&h);
  CHECK(olc_persist__update(NULL, NULL, path, o, grow, NULL, &err) == OLC_OK, "watch: a write");
  opened = olc_persist__watch_open(&w, path, &err) == OLC_OK;
  CHECK(opened, "watch: open");
  if (!opened) {
    olc_persist__set_hooks(NULL);
    return;
  }
  t = olc_persist__watch_begin(&w);
  g0 = olc_persist__watch_gen(&w);
  CHECK(g0 != OLC_PERSIST_GEN_NONE && g0 % 2 == 0 && t.gen == g0,
        "watch: P.lock mapped, generation even");
  CHECK(olc_persist__stat(&id, path, &err) == OLC_OK && id.exists, "watch: identity");
  olc_persist__watch_settle(&w, t);
  before = olc_persist__call_count();
  for (i = 0; i < 1000; i++)
    quiet += olc_persist__watch_quiet(&w);
  CHECK(quiet == 1000 && olc_persist__call_count() == before,
        "watch: 1000 quiet checks, no file-system call");
  CHECK(olc_persist__update(NULL, NULL, path, o, grow, NULL, &err) == OLC_OK &&
            olc_persist__watch_gen(&w) == g0 + 2 && !olc_persist__watch_quiet(&w),
        "watch: a write moves it by 2; not quiet");
  h.fail_step = OLC_STEP_RENAME;
  h.fail_errno = EACCES;
  olc_persist__set_hooks(&h);
  CHECK(olc_persist__update(NULL, NULL, path, o, grow, NULL, &err) == OLC_E_IO &&
            olc_persist__watch_gen(&w) == g0 + 4,
        "watch: a failed replace ends even");
  olc_persist__watch_close(&w);
  olc_persist__set_hooks(NULL);
}

/* The measurement lock (mlock_win32.c): LockFileEx of one byte at offset
 * 2^62, so the holder line stays readable; a wait that times out; a
 * directory in its place refused; the default beside the store. */
static void mlock_checks(const char *base) {
  char path[MAX_PATH], sub[MAX_PATH], text[256];
  olc_persist_mlock *m = NULL;
  olc_persist_mlock_wait w = {0, NULL, NULL};
  olc_persist_mlock_outcome o;
  olc_persist_mlock_holder h;
  olc_error err;
  char *def = NULL;
  HANDLE other;
  OVERLAPPED ov;
  DWORD n = 0;
  snprintf(path, sizeof path, "%s\\run\\measure.lock", base);
  CHECK(olc_persist__mlock_acquire(&m, &o, path, &w, &err) == OLC_OK && !o.contended,
        "mlock: acquired, its directory created");
  other = CreateFileW(W(path), GENERIC_READ | GENERIC_WRITE,
                      FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                      FILE_ATTRIBUTE_NORMAL, NULL);
  memset(&ov, 0, sizeof ov);
  ov.OffsetHigh = 0x40000000u;
  CHECK(other != INVALID_HANDLE_VALUE &&
            !LockFileEx(other, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ov),
        "mlock: another handle cannot take it while held");
  memset(&ov, 0, sizeof ov);
  CHECK(ReadFile(other, text, sizeof text - 1, &n, &ov) && n > 0,
        "mlock: line readable while held");
  olc_persist__mlock_parse(&h, text, n);
  CHECK(h.known && h.pid == (int64_t)GetCurrentProcessId() && h.started_s > 0,
        "mlock: the holder line names this process");
  olc_persist__mlock_release(m);
  memset(&ov, 0, sizeof ov);
  ov.OffsetHigh = 0x40000000u;
  CHECK(LockFileEx(other, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ov),
        "mlock: released");
  w.timeout_ms = 100;
  CHECK(olc_persist__mlock_acquire(&m, &o, path, &w, &err) == OLC_E_LOCK_TIMEOUT && o.contended &&
            o.waited_ms >= 100 && m == NULL,
        "mlock: held by another handle: timeout");
  UnlockFileEx(other, 0, 1, 0, &ov);
  CloseHandle(other);
  CHECK(olc_persist__mlock_acquire(&m, &o, path, &w, &err) == OLC_OK, "mlock: acquired again");
  olc_persist__mlock_release(m);
  snprintf(sub, sizeof sub, "%s\\run", base);
  CHECK(olc_persist__mlock_acquire(&m, NULL, sub, &w, &err) == OLC_E_LOCK && m == NULL,
        "mlock: a directory in its place is refused");
  CHECK(olc_persist__mlock_default_path(&def, "C:\\s\\p.txt", &err) == OLC_OK && def != NULL &&
            strcmp(def, "C:\\s\\p.txt.measure.lock") == 0,
        "mlock: default beside the store");
  free(def);
}

/* The file-system probe: a local volume with its type, the directory
 * and file writable; a read-only file is not; a store in a directory that
 * does not exist yet is probed at its nearest existing ancestor. */
static void fs_checks(const char *dir, const char *path) {
  olc_persist_fs fs;
  olc_error err;
  char deeper[MAX_PATH];
  write_raw(path, "x");
  CHECK(olc_persist__fs_probe(&fs, path, &err) == OLC_OK && !fs.network && !fs.read_only &&
            fs.dir_writable && fs.file_exists && fs.file_writable && fs.lock_writable,
        "fs probe: local, writable");
  printf("     type \"%s\", dir %s\n", fs.type, fs.dir);
  SetFileAttributesW(W(path), FILE_ATTRIBUTE_READONLY);
  CHECK(olc_persist__fs_probe(&fs, path, &err) == OLC_OK && fs.file_exists && !fs.file_writable,
        "fs probe: a read-only file is not writable");
  SetFileAttributesW(W(path), FILE_ATTRIBUTE_NORMAL);
  snprintf(deeper, sizeof deeper, "%s\\not\\yet\\store.txt", dir);
  CHECK(olc_persist__fs_probe(&fs, deeper, &err) == OLC_OK && fs.dir_writable &&
            strcmp(fs.dir, dir) == 0 && !fs.file_exists && fs.file_writable,
        "fs probe: the nearest existing directory");
}

int main(int argc, char **argv) {
  char base[MAX_PATH], dir[MAX_PATH], path[MAX_PATH], leftover[MAX_PATH], buf[1024];
  char moved[1024], *resolved = NULL;
  olc_persist_options o = opts(2000);
  olc_error err;
  olc_file_id a, b;
  int written = 0;
  HANDLE lh;
  OVERLAPPED ov;
  DWORD t0;
  olc_status st;
  if (argc != 2) {
    fprintf(stderr, "usage: win_persist_smoke DIR\n");
    return 2;
  }
  snprintf(base, sizeof base, "%s", argv[1]);
  /* A non-ASCII directory name (UTF-8 "\xc3\xa9" = e-acute). */
  snprintf(dir, sizeof dir, "%s\\sub\\caf\xc3\xa9", base);
  snprintf(path, sizeof path, "%s\\store.txt", dir);

  st = olc_persist__update(&a, &written, path, &o, grow, NULL, &err);
  CHECK(st == OLC_OK && written == 1 && a.exists, "first write creates the directories");
  if (st != OLC_OK)
    printf("     %s: %s\n", err.where, err.message);
  CHECK(file_size(path) == 1, "read back");
  CHECK(olc_persist__stat(&b, path, &err) == OLC_OK && olc_file_id__equal(&a, &b),
        "identity after the write");
  st = olc_persist__update(&b, &written, path, &o, grow, (void *)1, &err);
  CHECK(st == OLC_OK && written == 0 && olc_file_id__equal(&a, &b), "no-op merge writes nothing");

  /* LockFileEx held through another handle: the writer times out. */
  snprintf(buf, sizeof buf, "%s.lock", path);
  lh = CreateFileW(W(buf), GENERIC_READ | GENERIC_WRITE,
                   FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                   FILE_ATTRIBUTE_NORMAL, NULL);
  memset(&ov, 0, sizeof ov);
  CHECK(lh != INVALID_HANDLE_VALUE &&
            LockFileEx(lh, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, MAXDWORD,
                       MAXDWORD, &ov),
        "second handle locks P.lock");
  o.lock_timeout_ms = 300;
  t0 = GetTickCount();
  st = olc_persist__update(NULL, NULL, path, &o, grow, NULL, &err);
  CHECK(st == OLC_E_LOCK_TIMEOUT && GetTickCount() - t0 >= 250, "lock timeout");
  memset(&ov, 0, sizeof ov);
  UnlockFileEx(lh, 0, MAXDWORD, MAXDWORD, &ov);
  CloseHandle(lh);
  CHECK(olc_persist__update(NULL, NULL, path, &o, grow, NULL, &err) == OLC_OK &&
            file_size(path) == 2,
        "write after the lock is released");

  /* Each step of the write sequence (write_sequence.c) fails once. */
  fault(path, dir, OLC_STEP_MKDIR, EACCES, OLC_E_IO);
  fault(path, dir, OLC_STEP_LOCK_OPEN, EIO, OLC_E_IO);
  fault(path, dir, OLC_STEP_LOCK, ENOLCK, OLC_E_LOCK);
  fault(path, dir, OLC_STEP_RELOAD, EIO, OLC_E_IO);
  fault(path, dir, OLC_STEP_MERGE, EIO, OLC_E_IO);
  fault(path, dir, OLC_STEP_TMP_CREATE, EIO, OLC_E_IO);
  fault(path, dir, OLC_STEP_WRITE, ENOSPC, OLC_E_NOSPC);
  fault(path, dir, OLC_STEP_FSYNC, EIO, OLC_E_IO);
  fault(path, dir, OLC_STEP_CLOSE, EIO, OLC_E_IO);
  fault(path, dir, OLC_STEP_RENAME, EACCES, OLC_E_IO);
  fault(path, dir, OLC_STEP_DIR_FSYNC, EIO, OLC_COMMITTED_UNSYNCED);
  fault(path, dir, OLC_STEP_GC, EIO, OLC_OK);

  /* GC: a leftover of a crashed writer is removed (grace 0). */
  snprintf(leftover, sizeof leftover, "%s.1234.0123456789abcdef.tmp", path);
  write_raw(leftover, "");
  CHECK(tmp_count(dir) == 1, "leftover planted");
  CHECK(olc_persist__update(NULL, NULL, path, &o, grow, NULL, &err) == OLC_OK &&
            tmp_count(dir) == 0,
        "gc removes the leftover");

  CHECK(olc_persist__repair(moved, sizeof moved, path, &o, check_x, NULL, &err) == OLC_E_BUSY,
        "repair leaves a valid file");
  write_raw(path, "junk");
  CHECK(olc_persist__repair(moved, sizeof moved, path, &o, check_x, NULL, &err) == OLC_OK &&
            strstr(moved, ".corrupt-") != NULL && file_size(path) == -1,
        "repair moves a bad file aside");

  watch_checks(path, &o);
  known_checks(path, &o);
  relock_checks(path, &o);
  mlock_checks(base);
  fs_checks(dir, path);

  CHECK(olc_persist__resolve(&resolved, path, &err) == OLC_OK && resolved != NULL &&
            strstr(resolved, "store.txt") != NULL,
        "resolve");
  free(resolved);

  SetEnvironmentVariableW(L"LOCALAPPDATA", L"C:\\Users\\u\\AppData\\Local");
  CHECK(olc_persist__default_path(buf, sizeof buf, &err) == OLC_OK &&
            strcmp(buf, "C:\\Users\\u\\AppData\\Local\\onnx-light\\calibration_profiles.txt") == 0,
        "default path under LOCALAPPDATA");
  CHECK(olc_persist__call_count() > 0, "file-system calls are counted");
  printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
