/*
 * tests/persist/test_persist_watch.c - the generation counter of P.lock
 * (persist.h, "change detection"): a write moves it by 2 and leaves it even,
 * a writer killed between the bumps leaves it odd (readers then compare
 * identities), a failed rename leaves it even, readers without a P.lock
 * fall back, a quiet check makes one pread and no stat, and a replaced
 * P.lock is noticed at the recheck.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "persist/persist.h"
#include "test_support.h"
#include "util/buf.h"

static char *wdir;
static char *wpath;
static char *wlock;

static int wsetup(void) {
  wdir = olc_test_tmpdir("watch");
  wpath = olc_test_path(wdir, "store.txt");
  wlock = olc_test_path(wdir, "store.txt.lock");
  olc_persist__set_hooks(NULL);
  return wdir == NULL || wpath == NULL || wlock == NULL;
}

static int wteardown(void) {
  olc_persist__set_hooks(NULL);
  olc_test_rmtree(wdir);
  free(wdir);
  free(wpath);
  free(wlock);
  return 0;
}

static void fresh(void) {
  unlink(wpath);
  unlink(wlock);
}

/* Appends one byte per call; unchanged when payload is NULL. */
static olc_status grow(olc_buf *out, int *unchanged, const unsigned char *base, size_t len,
                       int exists, void *payload, olc_error *err) {
  olc_status st;
  (void)exists;
  (void)err;
  if (payload == NULL) {
    *unchanged = 1;
    return OLC_OK;
  }
  st = olc_buf__append(out, base, len);
  return st == OLC_OK ? olc_buf__append(out, "x", 1) : st;
}

static olc_status write_once(int change) {
  olc_persist_options o;
  olc_error e;
  memset(&o, 0, sizeof o);
  o.lock_timeout_ms = 2000;
  return olc_persist__update(NULL, NULL, wpath, &o, grow, change ? (void *)1 : NULL, &e);
}

/* The generation stored in P.lock, read as a file (not through a map). */
static uint64_t file_gen(void) {
  unsigned char b[16];
  uint64_t g = OLC_PERSIST_GEN_NONE;
  size_t n = 0;
  unsigned char *all = olc_test_read_file(wlock, &n);
  if (all != NULL && n >= sizeof b) {
    memcpy(b, all, sizeof b);
    if (memcmp(b, "olcgen01", 8) == 0)
      memcpy(&g, b + 8, sizeof g);
  }
  free(all);
  return g;
}

static off_t file_size(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 ? st.st_size : -1;
}

/* Runs one write in a child with the given hooks; its wait status. */
static int child_write(const olc_persist_hooks *h) {
  pid_t pid = fork();
  int status = -1;
  if (pid == 0) {
    olc_persist__set_hooks(h);
    _exit(write_once(1) == OLC_OK ? 0 : 3);
  }
  if (pid < 0 || waitpid(pid, &status, 0) != pid)
    return -1;
  return status;
}

/* One full identity check, as the store does it: begin, stat, settle. */
static void settle_now(olc_persist_watch *w) {
  olc_file_id id;
  olc_persist_watch_token t = olc_persist__watch_begin(w);
  CU_ASSERT_EQUAL(olc_persist__stat(&id, wpath, NULL), OLC_OK);
  olc_persist__watch_settle(w, t);
}

static void test_write_moves_by_two(void) {
  olc_persist_watch w;
  olc_error e;
  fresh();
  CU_ASSERT_EQUAL(file_gen(), OLC_PERSIST_GEN_NONE);
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
  CU_ASSERT_EQUAL(file_size(wlock), 4096);
  CU_ASSERT_EQUAL(file_gen(), 2);
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
  CU_ASSERT_EQUAL(file_gen(), 4);
  /* A merge that changes nothing writes nothing and bumps nothing. */
  CU_ASSERT_EQUAL_FATAL(write_once(0), OLC_OK);
  CU_ASSERT_EQUAL(file_gen(), 4);
  /* A reader's mapping sees the same value. */
  OLC_ASSERT_OK(olc_persist__watch_open(&w, wpath, &e), &e);
  settle_now(&w);
  CU_ASSERT_EQUAL(olc_persist__watch_gen(&w), 4);
  olc_persist__watch_close(&w);
}

static void test_small_lock_is_grown(void) {
  int fd;
  fresh();
  /* A P.lock left by an older version: empty, no magic. */
  fd = open(wlock, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CU_ASSERT_FATAL(fd >= 0);
  close(fd);
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
  CU_ASSERT_EQUAL(file_size(wlock), 4096);
  CU_ASSERT_EQUAL(file_gen(), 2);
}

static void test_quiet_makes_one_pread(void) {
  olc_persist_watch w;
  olc_persist_hooks h;
  olc_error e;
  uint64_t before;
  int i, quiet = 0, status;
  fresh();
  memset(&h, 0, sizeof h);
  h.watch_recheck_ms = 600000; /* no periodic recheck during the test */
  olc_persist__set_hooks(&h);
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
  OLC_ASSERT_OK(olc_persist__watch_open(&w, wpath, &e), &e);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 0); /* never settled */
  settle_now(&w);
  before = olc_persist__call_count();
  for (i = 0; i < 1000; i++)
    quiet += olc_persist__watch_quiet(&w);
  CU_ASSERT_EQUAL(quiet, 1000);
  /* One call each: the pread of the header, no stat. */
  CU_ASSERT_EQUAL(olc_persist__call_count(), before + 1000);
  /* Another process saves: the next check is not quiet. */
  status = child_write(&h);
  CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 0);
  CU_ASSERT_EQUAL(olc_persist__watch_gen(&w), 4);
  settle_now(&w);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 1);
  /* This process saves: not quiet either. */
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 0);
  olc_persist__watch_close(&w);
  olc_persist__set_hooks(NULL);
}

static void test_crash_between_bumps_leaves_odd(void) {
  olc_persist_watch w;
  olc_persist_hooks h;
  olc_file_id before_id, after_id;
  olc_persist_watch_token t;
  olc_error e;
  int status;
  fresh();
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
  OLC_ASSERT_OK(olc_persist__watch_open(&w, wpath, &e), &e);
  settle_now(&w);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 1);
  CU_ASSERT_EQUAL_FATAL(olc_persist__stat(&before_id, wpath, NULL), OLC_OK);
  /* Killed right after the rename, before the counter is even again. */
  memset(&h, 0, sizeof h);
  h.crash_step = OLC_STEP_RENAME;
  status = child_write(&h);
  CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  CU_ASSERT_EQUAL(file_gen(), 3);
  /* The reader is told to look, sees the new file by its identity, and
   * keeps looking while the counter stays odd (settling does nothing). */
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 0);
  t = olc_persist__watch_begin(&w);
  CU_ASSERT_EQUAL(t.gen, OLC_PERSIST_GEN_NONE);
  CU_ASSERT_EQUAL_FATAL(olc_persist__stat(&after_id, wpath, NULL), OLC_OK);
  CU_ASSERT_FALSE(olc_file_id__equal(&before_id, &after_id));
  olc_persist__watch_settle(&w, t);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 0);
  /* The next writer makes it even again, at a value never seen before. */
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
  CU_ASSERT_EQUAL(file_gen(), 6);
  settle_now(&w);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 1);
  olc_persist__watch_close(&w);
}

static void test_failed_rename_ends_even(void) {
  olc_persist_hooks h;
  olc_error e;
  size_t n0 = 0, n1 = 0;
  unsigned char *b0, *b1;
  olc_persist_options o;
  fresh();
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
  b0 = olc_test_read_file(wpath, &n0);
  memset(&h, 0, sizeof h);
  h.fail_step = OLC_STEP_RENAME;
  h.fail_errno = 5;
  olc_persist__set_hooks(&h);
  memset(&o, 0, sizeof o);
  CU_ASSERT_EQUAL(olc_persist__update(NULL, NULL, wpath, &o, grow, (void *)1, &e), OLC_E_IO);
  olc_persist__set_hooks(NULL);
  b1 = olc_test_read_file(wpath, &n1);
  CU_ASSERT(b0 != NULL && b1 != NULL && n0 == n1 && memcmp(b0, b1, n0) == 0);
  /* Odd before the attempt, even after it: a new even value (readers look
   * once more and find the same file). */
  CU_ASSERT_EQUAL(file_gen(), 4);
  free(b0);
  free(b1);
}

static void test_no_lock_file_falls_back(void) {
  olc_persist_watch w;
  olc_persist_watch_token t;
  olc_persist_hooks h;
  olc_error e;
  uint64_t before;
  fresh();
  memset(&h, 0, sizeof h);
  h.watch_recheck_ms = 1;
  olc_persist__set_hooks(&h);
  OLC_ASSERT_OK(olc_persist__watch_open(&w, wpath, &e), &e);
  /* Nothing written yet: never quiet, nothing to settle. */
  t = olc_persist__watch_begin(&w);
  CU_ASSERT_EQUAL(t.gen, OLC_PERSIST_GEN_NONE);
  olc_persist__watch_settle(&w, t);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 0);
  CU_ASSERT_EQUAL(olc_persist__watch_gen(&w), OLC_PERSIST_GEN_NONE);
  /* A quiet check with nothing open makes no system call at all. */
  before = olc_persist__call_count();
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 0);
  CU_ASSERT_EQUAL(olc_persist__call_count(), before);
  /* The first writer creates P.lock; the watch maps it at its recheck. */
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
  usleep(20000);
  settle_now(&w);
  CU_ASSERT_EQUAL(olc_persist__watch_gen(&w), 2);
  olc_persist__watch_close(&w);
  olc_persist__set_hooks(NULL);
}

static void test_replaced_lock_is_remapped(void) {
  olc_persist_watch w;
  olc_persist_hooks h;
  olc_error e;
  int i;
  fresh();
  memset(&h, 0, sizeof h);
  /* Long enough that a check right after a settle always falls before
   * the next recheck, even on a loaded machine (1 ms made the quiet check
   * below flaky under ASan); the sleeps let it fall due. */
  h.watch_recheck_ms = 100;
  olc_persist__set_hooks(&h);
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
  OLC_ASSERT_OK(olc_persist__watch_open(&w, wpath, &e), &e);
  settle_now(&w);
  CU_ASSERT_EQUAL(olc_persist__watch_gen(&w), 4);
  /* A user deletes P.lock; the next writer makes a new one (generation 2)
   * that the old mapping does not see. */
  CU_ASSERT_EQUAL_FATAL(unlink(wlock), 0);
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
  CU_ASSERT_EQUAL(olc_persist__watch_gen(&w), 4); /* the orphan is frozen */
  /* Once the recheck is due the watch is not quiet and remaps. */
  usleep(150000);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 0);
  settle_now(&w);
  CU_ASSERT_EQUAL(olc_persist__watch_gen(&w), 2);
  /* A settled value of the old mapping never passes for the new one. */
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 1);
  /* Replaced again and again: after OLC_PERSIST_WATCH_MAPS mappings the
   * watch stops mapping and is never quiet (identities only). */
  for (i = 0; i < OLC_PERSIST_WATCH_MAPS + 1; i++) {
    CU_ASSERT_EQUAL_FATAL(unlink(wlock), 0);
    CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
    usleep(150000);
    settle_now(&w);
  }
  CU_ASSERT_EQUAL(olc_persist__watch_gen(&w), OLC_PERSIST_GEN_NONE);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 0);
  olc_persist__watch_close(&w);
  olc_persist__set_hooks(NULL);
}

static void test_planted_link_not_mapped(void) {
  olc_persist_watch w;
  olc_error e;
  char *victim = olc_test_path(wdir, "victim");
  static const char text[4096] = "olcgen01";
  fresh();
  CU_ASSERT_FATAL(victim != NULL);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(victim, text, sizeof text), 0);
  CU_ASSERT_EQUAL_FATAL(symlink(victim, wlock), 0);
  OLC_ASSERT_OK(olc_persist__watch_open(&w, wpath, &e), &e);
  settle_now(&w);
  CU_ASSERT_EQUAL(olc_persist__watch_gen(&w), OLC_PERSIST_GEN_NONE);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 0);
  olc_persist__watch_close(&w);
  unlink(wlock);
  unlink(victim);
  free(victim);
}

/* P.lock cut short or garbled under a reader: no fault, the watch compares
 * identities and says so once; the next writer repairs the header (a new
 * instance), which the watch opens again at its recheck. */
static void test_damaged_lock_degrades_once(void) {
  olc_persist_watch w;
  olc_persist_hooks h;
  olc_error e;
  char msg[256];
  int fd;
  fresh();
  memset(&h, 0, sizeof h);
  h.watch_recheck_ms = 600000;
  olc_persist__set_hooks(&h);
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
  OLC_ASSERT_OK(olc_persist__watch_open(&w, wpath, &e), &e);
  settle_now(&w);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 1);
  CU_ASSERT_EQUAL(olc_persist__watch_warning(&w, msg, sizeof msg), 0);
  fd = open(wlock, O_WRONLY | O_TRUNC); /* ": > P.lock" */
  CU_ASSERT_FATAL(fd >= 0);
  close(fd);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 0);
  CU_ASSERT_EQUAL(olc_persist__watch_gen(&w), OLC_PERSIST_GEN_NONE);
  CU_ASSERT_EQUAL_FATAL(olc_persist__watch_warning(&w, msg, sizeof msg), 1);
  printf("\n  warning: %s", msg);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "store.txt.lock"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "cut short"));
  CU_ASSERT_EQUAL(olc_persist__watch_warning(&w, msg, sizeof msg), 0); /* once */
  /* The next writer writes a fresh header; the watch reopens it. */
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK);
  CU_ASSERT_EQUAL(file_size(wlock), 4096);
  CU_ASSERT_EQUAL(file_gen(), 2);
  settle_now(&w);
  CU_ASSERT_EQUAL(olc_persist__watch_gen(&w), 2);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 1);
  /* Garbage over the header: the same, and no second warning. */
  fd = open(wlock, O_WRONLY);
  CU_ASSERT_FATAL(fd >= 0);
  CU_ASSERT_EQUAL(pwrite(fd, "garbage!", 8, 0), 8);
  close(fd);
  CU_ASSERT_EQUAL(olc_persist__watch_quiet(&w), 0);
  CU_ASSERT_EQUAL(olc_persist__watch_warning(&w, msg, sizeof msg), 0);
  olc_persist__watch_close(&w);
  olc_persist__set_hooks(NULL);
}

/* 1 when another process can take a classic lock on P.lock right now. */
static int lock_is_free(void) {
  pid_t pid = fork();
  int status = -1;
  if (pid == 0) {
    struct flock fl;
    int fd = open(wlock, O_RDWR);
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    _exit(fd >= 0 && fcntl(fd, F_SETLK, &fl) == 0 ? 0 : 1);
  }
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
    return -1;
  return WEXITSTATUS(status) == 0;
}

typedef struct probe {
  olc_persist_watch *w;
  uint64_t gen;
  int free_before, free_after;
} probe;

/* Runs inside a write, lock held: a watch that wants to map P.lock now. */
static olc_status probe_transform(olc_buf *out, int *unchanged, const unsigned char *base,
                                  size_t len, int exists, void *payload, olc_error *err) {
  probe *p = payload;
  (void)out;
  (void)base;
  (void)len;
  (void)exists;
  (void)err;
  p->free_before = lock_is_free();
  p->gen = olc_persist__watch_begin(p->w).gen;
  p->free_after = lock_is_free();
  *unchanged = 1;
  return OLC_OK;
}

static void test_map_never_drops_classic_lock(void) {
  olc_persist_watch w;
  olc_persist_hooks h;
  olc_persist_options o;
  olc_error e;
  probe p;
  fresh();
  CU_ASSERT_EQUAL_FATAL(write_once(1), OLC_OK); /* P.lock with its counter */
  memset(&h, 0, sizeof h);
  h.disabled_safety = 16u; /* classic fcntl locks (OLC_PERSIST__SAFETY_CLASSIC) */
  olc_persist__set_hooks(&h);
  OLC_ASSERT_OK(olc_persist__watch_open(&w, wpath, &e), &e);
  memset(&p, 0, sizeof p);
  p.w = &w;
  memset(&o, 0, sizeof o);
  o.lock_timeout_ms = 2000;
  OLC_ASSERT_OK(olc_persist__update(NULL, NULL, wpath, &o, probe_transform, &p, &e), &e);
  /* Opening and closing P.lock to map it would have released this
   * process's classic lock: the watch waits for the next recheck. */
  CU_ASSERT_EQUAL(p.free_before, 0);
  CU_ASSERT_EQUAL(p.free_after, 0);
  CU_ASSERT_EQUAL(p.gen, OLC_PERSIST_GEN_NONE);
  olc_persist__watch_close(&w);
  olc_persist__set_hooks(NULL);
}

int test_persist_watch_register(void);
int test_persist_watch_register(void) {
  CU_pSuite s = CU_add_suite("watch", wsetup, wteardown);
  if (s == NULL)
    return -1;
  CU_add_test(s, "a write moves the generation by 2 and leaves it even", test_write_moves_by_two);
  CU_add_test(s, "an old empty P.lock is grown and initialized", test_small_lock_is_grown);
  CU_add_test(s, "quiet checks make one pread, no stat; saves are seen",
              test_quiet_makes_one_pread);
  CU_add_test(s, "a writer killed between the bumps leaves it odd",
              test_crash_between_bumps_leaves_odd);
  CU_add_test(s, "a failed rename ends even, P unchanged", test_failed_rename_ends_even);
  CU_add_test(s, "no P.lock yet: identities, then mapped", test_no_lock_file_falls_back);
  CU_add_test(s, "a replaced P.lock is remapped at the recheck", test_replaced_lock_is_remapped);
  CU_add_test(s, "a symlink planted at P.lock is never mapped", test_planted_link_not_mapped);
  CU_add_test(s, "a cut-short or garbled P.lock degrades with one warning",
              test_damaged_lock_degrades_once);
  CU_add_test(s, "mapping never drops this process's classic lock",
              test_map_never_drops_classic_lock);
  return 0;
}
