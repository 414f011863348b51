/*
 * tests/store/test_store_faults.c - a fault at each named step of the write
 * path, seen through the store: the save fails with its status, the file
 * stays byte-identical and the handle's snapshot unchanged; a failing
 * directory fsync is "committed, unsynced" and the snapshot shows the new
 * record.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "persist/persist.h"
#include "test_store_setup.h"
#include "test_store_util.h"

static char *dir;
static char *path;

static int setup(void) { return olc_test_store_dir("store-faults", "profiles.txt", &dir, &path); }

static int teardown(void) {
  olc_persist__set_hooks(NULL);
  olc_test_store_dir_free(&dir, &path);
  return 0;
}

static void set_fault(olc_step step, int errnum) {
  olc_persist_hooks h;
  memset(&h, 0, sizeof h);
  h.fail_step = step;
  h.fail_errno = errnum;
  olc_persist__set_hooks(&h);
}

static const char *selected(olc_store *s, const olc_key *k) {
  static char policy[64];
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  olc_error e;
  o.key = k;
  policy[0] = 0;
  if (olc_store_lookup(&res, s, &o, &e) == OLC_OK)
    snprintf(policy, sizeof policy, "%s", tsu_selected_policy(res));
  olc_lookup_result_free(res);
  return policy;
}

static void test_fault_at_each_step(void) {
  static const olc_step steps[] = {
      OLC_STEP_MKDIR,      OLC_STEP_LOCK_OPEN, OLC_STEP_LOCK,  OLC_STEP_RELOAD, OLC_STEP_MERGE,
      OLC_STEP_TMP_CREATE, OLC_STEP_WRITE,     OLC_STEP_FSYNC, OLC_STEP_CLOSE,  OLC_STEP_RENAME};
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  size_t i;
  for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    olc_store *s = tsu_open_file(path, 1);
    unsigned char *before, *after;
    size_t before_len = 0, after_len = 0;
    olc_status st;
    olc_error e;
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    OLC_ASSERT_OK(tsu_put(s, &k, "old", OLC_LEVELS_DEFAULT, 0, &e), &e);
    before = olc_test_read_file(path, &before_len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(before);
    set_fault(steps[i], steps[i] == OLC_STEP_WRITE ? ENOSPC : EIO);
    st = tsu_put(s, &k, "new", OLC_LEVELS_DEFAULT, 0, &e);
    olc_persist__set_hooks(NULL);
    if (st >= 0)
      fprintf(stderr, "\n  step %s: save returned %s\n", olc_step__name(steps[i]),
              olc_status_name(st));
    CU_ASSERT(st < 0);
    if (steps[i] == OLC_STEP_WRITE)
      CU_ASSERT_EQUAL(st, OLC_E_NOSPC);
    after = olc_test_read_file(path, &after_len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(after);
    CU_ASSERT_EQUAL(after_len, before_len);
    CU_ASSERT_EQUAL(memcmp(after, before, before_len), 0);
    CU_ASSERT_STRING_EQUAL(selected(s, &k), "old");
    /* The lock was released: the next write succeeds at once. */
    OLC_ASSERT_OK(tsu_put(s, &k, "later", OLC_LEVELS_DEFAULT, 0, &e), &e);
    CU_ASSERT_STRING_EQUAL(selected(s, &k), "later");
    free(before);
    free(after);
    olc_store_free(s);
  }
}

static void test_dir_fsync_failure_is_committed(void) {
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_store *s = tsu_open_file(path, 0); /* no change detection: the write itself publishes */
  olc_error e;
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  OLC_ASSERT_OK(tsu_put(s, &k, "old", OLC_LEVELS_DEFAULT, 0, &e), &e);
  set_fault(OLC_STEP_DIR_FSYNC, EIO);
  OLC_ASSERT_STATUS(OLC_COMMITTED_UNSYNCED, tsu_put(s, &k, "new", OLC_LEVELS_DEFAULT, 0, &e), &e);
  olc_persist__set_hooks(NULL);
  CU_ASSERT_EQUAL(e.code, OLC_COMMITTED_UNSYNCED);
  CU_ASSERT_STRING_EQUAL(selected(s, &k), "new");
  olc_store_free(s);
}

/* Writer B of the replace scenario, as another process would act while
 * writer A commits: P.lock replaced (a new lock B holds), then B's file
 * (prepared beside P) renamed over P, right before A's commit. */
typedef struct other_writer {
  const char *lock;   /* P.lock */
  const char *fresh;  /* the lock file B created */
  const char *file;   /* B's committed file */
  const char *path;   /* P */
  const char *orphan; /* NULL, or where B's exchange put the P it took out */
  int fired;
} other_writer;

static void other_commits(olc_step step, void *payload) {
  other_writer *b = payload;
  if (step != OLC_STEP_RENAME || b->fired)
    return;
  b->fired = 1;
  CU_ASSERT_EQUAL(olc_test_write_file(b->fresh, "", 0), 0);
  CU_ASSERT_EQUAL(rename(b->fresh, b->lock), 0);
  if (b->orphan != NULL) /* B's exchange: P kept under its temporary's name */
    CU_ASSERT_EQUAL(rename(b->path, b->orphan), 0);
  CU_ASSERT_EQUAL(rename(b->file, b->path), 0);
}

static int holds(const unsigned char *text, size_t len, const char *what) {
  size_t n = strlen(what), i;
  for (i = 0; i + n <= len; i++)
    if (memcmp(text + i, what, n) == 0)
      return 1;
  return 0;
}

/* Issue 37 item 13: A's commit takes B's file out of P (P.lock replaced
 * while A held it), and A merges it back in.  B removed r1 (an override
 * removal reported done) and saved r3; A saved r4.  The file must hold
 * r2, r3 and r4, and not r1: a union would bring the removed r1 back. */
static void test_displaced_removal_stays_removed(void) {
  olc_key r1 = tsu_key("3", "model-r1", "cpu-x", 8), r2 = tsu_key("3", "model-r2", "cpu-x", 8);
  olc_key r3 = tsu_key("3", "model-r3", "cpu-x", 8), r4 = tsu_key("3", "model-r4", "cpu-x", 8);
  char *lock = malloc(strlen(path) + 6), *fresh = olc_test_path(dir, "fresh.lock");
  char *bfile = olc_test_path(dir, "b.txt");
  olc_persist_hooks h;
  other_writer b;
  unsigned char *text;
  size_t len = 0;
  olc_store *a, *sb;
  olc_error e;
  CU_ASSERT_PTR_NOT_NULL_FATAL(lock);
  sprintf(lock, "%s.lock", path);
  remove(path);
  a = tsu_open_file(path, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  OLC_ASSERT_OK(tsu_put(a, &r1, "one", OLC_LEVEL_BIT_EXACT, 1, &e), &e);
  OLC_ASSERT_OK(tsu_put(a, &r2, "two", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  /* B's file: P as A loaded it, r1 removed, r3 saved. */
  text = olc_test_read_file(path, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(bfile, text, len), 0);
  free(text);
  sb = tsu_open_file(bfile, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sb);
  OLC_ASSERT_OK(olc_store_remove_override(sb, &r1, OLC_LEVEL_BIT_EXACT, &e), &e);
  OLC_ASSERT_OK(tsu_put(sb, &r3, "three", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  olc_store_free(sb);
  memset(&b, 0, sizeof b);
  b.lock = lock;
  b.fresh = fresh;
  b.file = bfile;
  b.path = path;
  memset(&h, 0, sizeof h);
  h.at_step = other_commits;
  h.at_step_payload = &b;
  olc_persist__set_hooks(&h);
  OLC_ASSERT_OK(tsu_put(a, &r4, "four", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  olc_persist__set_hooks(NULL);
  CU_ASSERT(b.fired);
  text = olc_test_read_file(path, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT(holds(text, len, "model-r2"));
  CU_ASSERT(holds(text, len, "model-r3"));
  CU_ASSERT(holds(text, len, "model-r4"));
  if (holds(text, len, "model-r1"))
    fprintf(stderr, "\n  the removed record came back:\n%.*s\n", (int)len, (const char *)text);
  CU_ASSERT(!holds(text, len, "model-r1"));
  free(text);
  olc_store_free(a);
  remove(bfile);
  free(bfile);
  free(fresh);
  free(lock);
}

/* Writers overlapping on a replaced P.lock: B merged an older P (r1,
 * r2) and its commit took out P as A loaded it (r1, r2, r3 saved by a
 * third writer), keeping that file to merge back later, as an orphan
 * beside P.  A's commit (r4) then takes out B's file, which lacks r3 only
 * because B never saw it: r3 must stay.  A three-way merge against the
 * file A merged would take r3 for a removal. */
static void test_displaced_older_keeps_saves(void) {
  olc_key r1 = tsu_key("3", "model-r1", "cpu-x", 8), r2 = tsu_key("3", "model-r2", "cpu-x", 8);
  olc_key r3 = tsu_key("3", "model-r3", "cpu-x", 8), r4 = tsu_key("3", "model-r4", "cpu-x", 8);
  olc_key rb = tsu_key("3", "model-rb", "cpu-x", 8);
  char *lock = malloc(strlen(path) + 6), *fresh = olc_test_path(dir, "fresh.lock");
  char *bfile = olc_test_path(dir, "b.txt");
  char *orphan = malloc(strlen(path) + 40);
  olc_persist_hooks h;
  other_writer b;
  unsigned char *text;
  size_t len = 0;
  olc_store *a, *sb;
  olc_error e;
  CU_ASSERT_PTR_NOT_NULL_FATAL(lock);
  CU_ASSERT_PTR_NOT_NULL_FATAL(orphan);
  sprintf(lock, "%s.lock", path);
  sprintf(orphan, "%s.1.0123456789abcdef.tmp", path);
  remove(path);
  a = tsu_open_file(path, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  OLC_ASSERT_OK(tsu_put(a, &r1, "one", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  OLC_ASSERT_OK(tsu_put(a, &r2, "two", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  /* B's file: P before r3, with B's own save. */
  text = olc_test_read_file(path, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(bfile, text, len), 0);
  free(text);
  sb = tsu_open_file(bfile, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sb);
  OLC_ASSERT_OK(tsu_put(sb, &rb, "bee", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  olc_store_free(sb);
  OLC_ASSERT_OK(tsu_put(a, &r3, "three", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  memset(&b, 0, sizeof b);
  b.lock = lock;
  b.fresh = fresh;
  b.file = bfile;
  b.path = path;
  b.orphan = orphan;
  memset(&h, 0, sizeof h);
  h.at_step = other_commits;
  h.at_step_payload = &b;
  olc_persist__set_hooks(&h);
  OLC_ASSERT_OK(tsu_put(a, &r4, "four", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  olc_persist__set_hooks(NULL);
  CU_ASSERT(b.fired);
  text = olc_test_read_file(path, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  if (!holds(text, len, "model-r3"))
    fprintf(stderr, "\n  a save reported done was lost:\n%.*s\n", (int)len, (const char *)text);
  CU_ASSERT(holds(text, len, "model-r1"));
  CU_ASSERT(holds(text, len, "model-r2"));
  CU_ASSERT(holds(text, len, "model-r3"));
  CU_ASSERT(holds(text, len, "model-r4"));
  CU_ASSERT(holds(text, len, "model-rb"));
  free(text);
  olc_store_free(a);
  remove(bfile);
  remove(orphan);
  free(orphan);
  free(bfile);
  free(fresh);
  free(lock);
}

int main(int argc, char **argv) {
  CU_pSuite suite;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  suite = CU_add_suite("store_faults", setup, teardown);
  CU_add_test(suite, "fault_at_each_step", test_fault_at_each_step);
  CU_add_test(suite, "dir_fsync_failure_is_committed", test_dir_fsync_failure_is_committed);
  CU_add_test(suite, "displaced_removal_stays_removed", test_displaced_removal_stays_removed);
  CU_add_test(suite, "displaced_older_keeps_saves", test_displaced_older_keeps_saves);
  return olc_test_run(argc, argv);
}
