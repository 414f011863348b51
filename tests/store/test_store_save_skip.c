/*
 * tests/store/test_store_save_skip.c - the save's shortcut under the lock
 * (persist.h, olc_persist__update_known): a handle whose snapshot is the
 * file it last saved does not read the file again when, under the lock,
 * the P.lock counter and the file's identity (dev, ino, size, mtime) are
 * both unchanged.
 *
 * The lost-update cases change the file behind the handle's back while
 * keeping what the shortcut must not trust alone: a change that keeps
 * dev, ino, size and mtime (written in place, the mtime put back) but
 * moves the counter as every locked writer does must not be lost; nor a
 * change by a writer that bypasses the lock (a rename: new identity, same
 * counter).  Negative control: OLC_TEST_DISABLE=gencheck (trust the
 * identity alone) must make the first case FAIL (ctest nc_store_save_gencheck).
 *
 * The merged file must also be byte-identical to what the full path (a
 * fresh handle that reads and parses the file) writes for the same
 * operations, while the long-lived handle reuses the kept bytes of the
 * unchanged records and shares their strings (keep.c), also past the
 * point where a save copies the records again.  POSIX only (utimensat,
 * the counter's layout).
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store_int.h"
#include "test_store_setup.h"
#include "test_store_util.h"

static char *dir;
static char *path;

/* No olc_persist__set_hooks here: the negative control comes from the
 * environment (OLC_TEST_DISABLE=gencheck). */
static int setup(void) {
  return olc_test_store_dir("saveskip", "calibration_profiles.txt", &dir, &path);
}

static int teardown(void) {
  olc_test_store_dir_free(&dir, &path);
  return 0;
}

/* The policy a fresh handle (which reads the file) selects for key. */
static int file_has(const char *p, const olc_key *k, const char *policy) {
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  olc_store *s = tsu_open_file(p, 1);
  olc_error e;
  int ok = 0;
  if (s == NULL)
    return 0;
  o.key = k;
  if (olc_store_lookup(&res, s, &o, &e) == OLC_OK)
    ok = strcmp(tsu_selected_policy(res), policy) == 0;
  olc_lookup_result_free(res);
  olc_store_free(s);
  return ok;
}

/* Replaces every "from" in P by "to" (same length) in place: same inode,
 * same size, and the mtime put back. */
static void rewrite_in_place(const char *from, const char *to, int keep_mtime) {
  struct stat before, after;
  struct timespec times[2];
  size_t len = 0, n = strlen(from), i;
  unsigned char *bytes = olc_test_read_file(path, &len);
  int fd;
  CU_ASSERT_PTR_NOT_NULL_FATAL(bytes);
  CU_ASSERT_EQUAL_FATAL(strlen(to), n);
  CU_ASSERT_EQUAL_FATAL(stat(path, &before), 0);
  for (i = 0; i + n <= len; i++)
    if (memcmp(bytes + i, from, n) == 0)
      memcpy(bytes + i, to, n);
  fd = open(path, O_WRONLY);
  CU_ASSERT_FATAL(fd >= 0);
  CU_ASSERT_EQUAL(pwrite(fd, bytes, len, 0), (ssize_t)len);
  CU_ASSERT_EQUAL(close(fd), 0);
  free(bytes);
  if (keep_mtime) {
    times[0] = before.st_atim;
    times[1] = before.st_mtim;
    CU_ASSERT_EQUAL(utimensat(AT_FDCWD, path, times, 0), 0);
  }
  CU_ASSERT_EQUAL_FATAL(stat(path, &after), 0);
  CU_ASSERT_EQUAL(after.st_ino, before.st_ino);
  CU_ASSERT_EQUAL(after.st_size, before.st_size);
  if (keep_mtime) {
    CU_ASSERT_EQUAL(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
    CU_ASSERT_EQUAL(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  }
}

/* What a locked writer does around its change of P: the generation moves
 * (by 2: odd, then even).  Layout: persist.h, "change detection". */
static void bump_counter(void) {
  char lock[4200];
  uint64_t g = 0;
  int fd;
  snprintf(lock, sizeof lock, "%s.lock", path);
  fd = open(lock, O_RDWR);
  CU_ASSERT_FATAL(fd >= 0);
  CU_ASSERT_EQUAL(pread(fd, &g, sizeof g, 8), (ssize_t)sizeof g);
  CU_ASSERT_EQUAL(g & 1u, 0);
  g += 2;
  CU_ASSERT_EQUAL(pwrite(fd, &g, sizeof g, 8), (ssize_t)sizeof g);
  close(fd);
}

/* Same identity, the counter moved: the save must read the file again. */
static void test_counter_catches_same_identity(void) {
  olc_key k1 = tsu_key("1", "model-a", "cpu-x", 8), k2 = tsu_key("2", "model-a", "cpu-x", 8);
  olc_store *a;
  olc_error e;
  olc_test_store_remove(path);
  a = tsu_open_file(path, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  OLC_ASSERT_OK(tsu_put(a, &k1, "policy-one", OLC_LEVELS_DEFAULT, 0, &e), &e);
  /* Another writer's change that keeps dev, ino, size and mtime. */
  rewrite_in_place("policy-one", "policy-new", 1);
  bump_counter();
  OLC_ASSERT_OK(tsu_put(a, &k2, "policy-two", OLC_LEVELS_DEFAULT, 0, &e), &e);
  olc_store_free(a);
  CU_ASSERT(file_has(path, &k1, "policy-new")); /* the other writer's change kept */
  CU_ASSERT(file_has(path, &k2, "policy-two"));
}

/* A writer that bypasses the lock and renames a new file into place: the
 * counter did not move, the identity did. */
static void test_identity_catches_unlocked_rename(void) {
  olc_key k1 = tsu_key("1", "model-a", "cpu-x", 8), k2 = tsu_key("2", "model-a", "cpu-x", 8);
  char *other = olc_test_path(dir, "other.txt");
  olc_store *a;
  olc_error e;
  CU_ASSERT_PTR_NOT_NULL_FATAL(other);
  olc_test_store_remove(path);
  olc_test_store_remove(other);
  a = tsu_open_file(path, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  OLC_ASSERT_OK(tsu_put(a, &k1, "policy-one", OLC_LEVELS_DEFAULT, 0, &e), &e);
  {
    /* The same content but for the policy, in a file that exists while P
     * does (another inode), renamed over P. */
    olc_store *b = tsu_open_file(other, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    OLC_ASSERT_OK(tsu_put(b, &k1, "policy-new", OLC_LEVELS_DEFAULT, 0, &e), &e);
    olc_store_free(b);
  }
  CU_ASSERT_EQUAL_FATAL(rename(other, path), 0);
  OLC_ASSERT_OK(tsu_put(a, &k2, "policy-two", OLC_LEVELS_DEFAULT, 0, &e), &e);
  olc_store_free(a);
  CU_ASSERT(file_has(path, &k1, "policy-new"));
  CU_ASSERT(file_has(path, &k2, "policy-two"));
  olc_test_store_remove(other);
  free(other);
}

/* The shortcut is taken: bytes changed in place by someone who bypassed
 * the lock and kept every identity field are not read (a read would
 * refuse them), and the save writes the handle's records.  The same bytes
 * after a load (not a save) are read and refused. */
static void test_shortcut_taken_only_after_a_save(void) {
  olc_key k1 = tsu_key("1", "model-a", "cpu-x", 8), k2 = tsu_key("2", "model-a", "cpu-x", 8);
  olc_store *a;
  olc_error e;
  olc_test_store_remove(path);
  a = tsu_open_file(path, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  OLC_ASSERT_OK(tsu_put(a, &k1, "policy-one", OLC_LEVELS_DEFAULT, 0, &e), &e);
  rewrite_in_place("profile ", "pr0file ", 1); /* no longer a store */
  OLC_ASSERT_OK(tsu_put(a, &k2, "policy-two", OLC_LEVELS_DEFAULT, 0, &e), &e);
  olc_store_free(a);
  CU_ASSERT(file_has(path, &k1, "policy-one"));
  CU_ASSERT(file_has(path, &k2, "policy-two"));
  /* A handle whose snapshot came from a load reads the file under the lock. */
  a = tsu_open_file(path, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  rewrite_in_place("profile ", "pr0file ", 1);
  CU_ASSERT_EQUAL(tsu_put(a, &k1, "policy-3rd", OLC_LEVELS_DEFAULT, 0, &e), OLC_E_MALFORMED);
  olc_store_free(a);
}

/* One step of the byte-identity comparison. */
typedef struct step {
  const char *impl, *policy;
  int override_, remove_;
} step;

static olc_status apply(olc_store *s, const step *st, olc_error *e) {
  olc_key k = tsu_key(st->impl, "model-b", "cpu-y", 4);
  if (st->remove_)
    return olc_store_remove_override(s, &k, OLC_LEVELS_DEFAULT, e);
  return tsu_put(s, &k, st->policy, OLC_LEVELS_DEFAULT, st->override_, e);
}

/* 1 when x and y hold the same bytes, and they are the full
 * serialization (olc_format__write) of what they parse to. */
static int same_file(const char *x, const char *y) {
  size_t nx = 0, ny = 0;
  unsigned char *bx = olc_test_read_file(x, &nx), *by = olc_test_read_file(y, &ny);
  int same = bx != NULL && by != NULL && nx == ny && memcmp(bx, by, nx) == 0;
  olc_recset set = OLC_RECSET_INIT;
  olc_buf full = OLC_BUF_INIT;
  if (same && olc_format__parse(&set, bx, nx, NULL, NULL) == OLC_OK) {
    olc_recset__normalize(&set);
    same = olc_format__write(&full, &set) == OLC_OK && full.len == nx &&
           memcmp(full.data, bx, nx) == 0;
  } else {
    same = 0;
  }
  olc_buf__free(&full);
  olc_recset__free(&set);
  free(bx);
  free(by);
  return same;
}

/* One long-lived handle (the shortcut at every save after the first)
 * against a fresh handle per step (the file read and parsed each time):
 * the two files are byte-identical after every step. */
static void test_bytes_identical_to_full_path(void) {
  static const step steps[] = {
      {"1", "p1", 0, 0},    {"2", "p2", 0, 0},    {"1", "p1-again", 0, 0},
      {"0", "first", 0, 0}, {"9", "last", 0, 0},  {"5", "ov \"q\" \\ 5", 1, 0},
      {"5", NULL, 0, 1},    {"5", "cal-5", 0, 0}, {"3", "nul\nlf\r", 0, 0},
      {"2", "p2", 0, 0}, /* no change: nothing written */
  };
  char *full = olc_test_path(dir, "full.txt");
  olc_store *a;
  olc_error e;
  size_t i;
  CU_ASSERT_PTR_NOT_NULL_FATAL(full);
  olc_test_store_remove(path);
  olc_test_store_remove(full);
  a = tsu_open_file(path, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    olc_store *f = tsu_open_file(full, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    OLC_ASSERT_OK(apply(a, &steps[i], &e), &e);
    OLC_ASSERT_OK(apply(f, &steps[i], &e), &e);
    olc_store_free(f);
    if (!same_file(path, full)) {
      CU_FAIL("the shortcut's file differs from the full path's");
      fprintf(stderr, "step %zu differs\n", i);
    }
  }
  /* The long-lived handle merged without copying the records: its
   * snapshot keeps the bytes and shares the arenas of earlier saves. */
  {
    olc_snapshot *snap = olc_store__acquire(a);
    CU_ASSERT_PTR_NOT_NULL(snap->keep);
    if (snap->keep != NULL)
      CU_ASSERT(snap->keep->nshares > 1);
    olc_snapshot__unref(snap);
  }
  /* Past the point where a save copies the records again (32 shares). */
  for (i = 0; i < 80; i++) {
    char impl[16], policy[32];
    step st = {impl, policy, (int)(i % 5 == 0), 0};
    olc_store *f = tsu_open_file(full, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    snprintf(impl, sizeof impl, "%zu", i % 23);
    snprintf(policy, sizeof policy, "round %zu", i);
    OLC_ASSERT_OK(apply(a, &st, &e), &e);
    OLC_ASSERT_OK(apply(f, &st, &e), &e);
    olc_store_free(f);
    if (!same_file(path, full)) {
      CU_FAIL("the shortcut's file differs from the full path's");
      fprintf(stderr, "round %zu differs\n", i);
    }
  }
  olc_store_free(a);
  olc_test_store_remove(full);
  free(full);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("store_save_skip", setup, teardown);
  CU_add_test(s, "same dev/ino/size/mtime, counter moved: the change is not lost",
              test_counter_catches_same_identity);
  CU_add_test(s, "a writer bypassing the lock renames: the change is not lost",
              test_identity_catches_unlocked_rename);
  CU_add_test(s, "the shortcut is taken after a save, not after a load",
              test_shortcut_taken_only_after_a_save);
  CU_add_test(s, "the shortcut's file is byte-identical to the full path's",
              test_bytes_identical_to_full_path);
  return olc_test_run(argc, argv);
}
