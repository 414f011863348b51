/*
 * tests/persist/test_persist_faults.c - a fault at every named step of the
 * write path returns its documented status, leaves P byte-identical (or
 * absent) unless the step is past the commit point, leaves no temporary
 * file, no descriptor, and releases the lock (docs/durability.md, family F).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "persist/persist.h"
#include "test_support.h"
#include "util/buf.h"

static char *fdir;
static char *fpath;

typedef struct fault_case {
  olc_step step;
  int sys_errno;
  olc_status expected;
  int committed; /* 1: the new content is visible after the call */
  const char *where;
} fault_case;

static const fault_case cases[] = {
    {OLC_STEP_MKDIR, EACCES, OLC_E_IO, 0, "mkdir"},
    {OLC_STEP_MKDIR, ENOSPC, OLC_E_NOSPC, 0, "mkdir"},
    {OLC_STEP_LOCK_OPEN, EIO, OLC_E_IO, 0, "lock-open"},
    {OLC_STEP_LOCK_OPEN, EMFILE, OLC_E_IO, 0, "lock-open"},
    {OLC_STEP_LOCK, ENOLCK, OLC_E_LOCK, 0, "lock"},
    {OLC_STEP_LOCK, EAGAIN, OLC_E_LOCK_TIMEOUT, 0, "lock"},
    {OLC_STEP_RELOAD, EIO, OLC_E_IO, 0, "reload"},
    {OLC_STEP_MERGE, ENOMEM, OLC_E_NOMEM, 0, "merge"},
    {OLC_STEP_MERGE, EIO, OLC_E_IO, 0, "merge"},
    {OLC_STEP_GC, EIO, OLC_OK, 1, ""}, /* GC failures never fail the write */
    {OLC_STEP_TMP_CREATE, EIO, OLC_E_IO, 0, "tmp-create"},
    {OLC_STEP_TMP_CREATE, EEXIST, OLC_E_IO, 0, "tmp-create"}, /* 8 names tried */
    {OLC_STEP_TMP_CREATE, ENOSPC, OLC_E_NOSPC, 0, "tmp-create"},
    {OLC_STEP_WRITE, ENOSPC, OLC_E_NOSPC, 0, "write"},
    {OLC_STEP_WRITE, EDQUOT, OLC_E_NOSPC, 0, "write"},
    {OLC_STEP_WRITE, EIO, OLC_E_IO, 0, "write"},
    {OLC_STEP_WRITE, EFBIG, OLC_E_IO, 0, "write"},
    {OLC_STEP_FSYNC, EIO, OLC_E_IO, 0, "fsync"},
    {OLC_STEP_FSYNC, ENOSPC, OLC_E_NOSPC, 0, "fsync"},
    {OLC_STEP_CLOSE, EIO, OLC_E_IO, 0, "close"},
    {OLC_STEP_RENAME, EXDEV, OLC_E_IO, 0, "rename"},
    {OLC_STEP_RENAME, EACCES, OLC_E_IO, 0, "rename"},
    {OLC_STEP_RENAME, EBUSY, OLC_E_IO, 0, "rename"},
    {OLC_STEP_RENAME, ENOSPC, OLC_E_NOSPC, 0, "rename"},
    {OLC_STEP_DIR_FSYNC, EIO, OLC_COMMITTED_UNSYNCED, 1, "dir-fsync"},
    {OLC_STEP_DIR_FSYNC, EINVAL, OLC_OK, 1, ""}, /* cannot sync a directory here */
    {OLC_STEP_UNLOCK, EIO, OLC_OK, 1, ""},       /* close() releases the lock anyway */
};

/* Content: a line of 'x' repeated n times, then "\n"; the transform appends
 * one 'x'.  Large enough (64 KiB) that the write really spans calls. */
static olc_status grow_transform(olc_buf *out, int *unchanged, const unsigned char *base,
                                 size_t len, int exists, void *payload, olc_error *err) {
  (void)unchanged;
  (void)payload;
  (void)err;
  if (exists && olc_buf__append(out, base, len) != OLC_OK)
    return OLC_E_NOMEM;
  return olc_buf__putc(out, 'x');
}

static int fsetup(void) {
  fdir = olc_test_tmpdir("persist-faults");
  fpath = olc_test_path(fdir, "p.txt");
  return fdir == NULL || fpath == NULL;
}

static int fteardown(void) {
  olc_persist__set_hooks(NULL);
  olc_test_rmtree(fdir);
  free(fdir);
  free(fpath);
  return 0;
}

static olc_status grow(int64_t timeout_ms, olc_error *err) {
  olc_persist_options o;
  o.lock_timeout_ms = timeout_ms;
  o.tmp_grace_seconds = 0;
  o.file_mode = 0600;
  o.max_file_size = 0;
  o.probe = NULL;
  o.probe_payload = NULL;
  o.absorb = NULL;
  return olc_persist__update(NULL, NULL, fpath, &o, grow_transform, NULL, err);
}

static void run_case(const fault_case *c, int with_old) {
  static unsigned char old[65536];
  olc_persist_hooks h;
  olc_error err;
  olc_status st;
  unsigned char *now;
  size_t n = 0;
  int fds = olc_test_count_fds();
  char label[96];
  snprintf(label, sizeof label, "%s:%d (%s P)", olc_step__name(c->step), c->sys_errno,
           with_old ? "existing" : "absent");
  olc_test_rmtree(fdir);
  CU_ASSERT_EQUAL_FATAL(mkdir(fdir, 0700), 0);
  memset(old, 'x', sizeof old);
  if (with_old)
    CU_ASSERT_EQUAL_FATAL(olc_test_write_file(fpath, old, sizeof old), 0);
  memset(&h, 0, sizeof h);
  h.fail_step = c->step;
  h.fail_errno = c->sys_errno;
  olc_persist__set_hooks(&h);
  olc_error_clear(&err);
  st = grow(100, &err);
  olc_persist__set_hooks(NULL);
  if (st != c->expected)
    fprintf(stderr, "\n  case %s\n", label);
  OLC_ASSERT_STATUS(c->expected, st, &err);
  if (c->expected != OLC_OK) {
    CU_ASSERT_STRING_EQUAL(err.where, c->where);
    if (c->expected != OLC_E_LOCK_TIMEOUT)
      CU_ASSERT_EQUAL(err.sys_errno, c->sys_errno);
  }
  now = olc_test_read_file(fpath, &n);
  if (c->committed) {
    CU_ASSERT(now != NULL && n == (with_old ? sizeof old + 1 : 1));
  } else if (with_old) {
    CU_ASSERT(now != NULL && n == sizeof old && memcmp(now, old, n) == 0);
  } else {
    CU_ASSERT(now == NULL); /* the first write failed: still no file */
  }
  free(now);
  CU_ASSERT_EQUAL(olc_test_count_tmp(fdir), 0);
  CU_ASSERT_EQUAL(olc_test_count_fds(), fds);
  /* The lock was released: a single non-blocking try succeeds. */
  OLC_ASSERT_OK(grow(0, &err), &err);
}

static void test_fault_every_step(void) {
  size_t i;
  int covered[OLC_STEP_COUNT] = {0};
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    run_case(&cases[i], 1);
    run_case(&cases[i], 0);
    covered[cases[i].step] = 1;
  }
  for (i = 1; i < OLC_STEP_COUNT; i++) {
    if (!covered[i])
      fprintf(stderr, "\n  step %s has no fault case\n", olc_step__name((olc_step)i));
    CU_ASSERT(covered[i]);
  }
}

/* The transform's own failure is returned as is, with nothing written. */
static olc_status failing_transform(olc_buf *out, int *unchanged, const unsigned char *base,
                                    size_t len, int exists, void *payload, olc_error *err) {
  (void)out;
  (void)unchanged;
  (void)base;
  (void)len;
  (void)exists;
  (void)payload;
  (void)err;
  return OLC_E_VERSION;
}

static void test_transform_failure(void) {
  olc_error err;
  olc_persist_options o;
  memset(&o, 0, sizeof o);
  o.lock_timeout_ms = 100;
  olc_test_rmtree(fdir);
  CU_ASSERT_EQUAL_FATAL(mkdir(fdir, 0700), 0);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(fpath, "keep", 4), 0);
  OLC_ASSERT_STATUS(OLC_E_VERSION,
                    olc_persist__update(NULL, NULL, fpath, &o, failing_transform, NULL, &err),
                    &err);
  CU_ASSERT_STRING_EQUAL(err.where, "merge");
  CU_ASSERT_EQUAL(olc_test_count_tmp(fdir), 0);
  OLC_ASSERT_OK(grow(0, &err), &err);
}

static void test_step_names_round_trip(void) {
  int i;
  for (i = 1; i < (int)OLC_STEP_COUNT; i++)
    CU_ASSERT_EQUAL(olc_step__from_name(olc_step__name((olc_step)i)), (olc_step)i);
  CU_ASSERT_EQUAL(olc_step__from_name("nonsense"), OLC_STEP_NONE);
  CU_ASSERT_PTR_NULL(olc_step__name(OLC_STEP_COUNT));
}

int test_persist_faults_register(void);
int test_persist_faults_register(void) {
  CU_pSuite s = CU_add_suite("persist-faults", fsetup, fteardown);
  if (s == NULL)
    return -1;
  CU_add_test(s, "a fault at every named step", test_fault_every_step);
  CU_add_test(s, "the transform's failure aborts the write", test_transform_failure);
  CU_add_test(s, "step names round-trip", test_step_names_round_trip);
  return 0;
}
