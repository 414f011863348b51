/*
 * tests/persist/test_mlock_path.c - the measurement lock's default path
 * (olc_persist__mlock_default_path: a private $XDG_RUNTIME_DIR, else
 * beside the store) and the holder line's parser.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "persist/persist_int.h"
#include "test_support.h"

static char *dir;
static char *old_xdg;

static int setup(void) {
  const char *x = getenv("XDG_RUNTIME_DIR");
  dir = olc_test_tmpdir("mlock-path");
  old_xdg = x != NULL ? strdup(x) : NULL;
  return dir == NULL;
}

static int teardown(void) {
  if (old_xdg != NULL)
    setenv("XDG_RUNTIME_DIR", old_xdg, 1);
  else
    unsetenv("XDG_RUNTIME_DIR");
  free(old_xdg);
  olc_test_rmtree(dir);
  free(dir);
  return 0;
}

/* The default with XDG_RUNTIME_DIR = xdg (NULL: unset); NULL on failure. */
static char *default_with(const char *xdg, const char *store, olc_status expected) {
  char *out = NULL;
  olc_error err;
  if (xdg != NULL)
    setenv("XDG_RUNTIME_DIR", xdg, 1);
  else
    unsetenv("XDG_RUNTIME_DIR");
  olc_error_clear(&err);
  OLC_ASSERT_STATUS(expected, olc_persist__mlock_default_path(&out, store, &err), &err);
  if (expected != OLC_OK)
    CU_ASSERT_PTR_NULL(out);
  return out;
}

static void expect_default(const char *xdg, const char *store, const char *expected) {
  char *got = default_with(xdg, store, OLC_OK);
  if (got == NULL || strcmp(got, expected) != 0)
    fprintf(stderr, "\n  XDG_RUNTIME_DIR=%s store=%s: got %s, expected %s\n", xdg ? xdg : "-",
            store ? store : "-", got ? got : "-", expected);
  CU_ASSERT(got != NULL && strcmp(got, expected) == 0);
  free(got);
}

static void test_default_path(void) {
  char *priv = olc_test_path(dir, "run");
  char *slash = olc_test_path(dir, "run/");
  char *shared = olc_test_path(dir, "shared");
  char *theirs = olc_test_path(dir, "theirs");
  char *file = olc_test_path(dir, "plain");
  char *gone = olc_test_path(dir, "gone");
  char *link_ = olc_test_path(dir, "run-link");
  char expect[4096], beside[4096];
  const char *store = "/s/calibration_profiles.txt";
  snprintf(beside, sizeof beside, "%s.measure.lock", store);
  CU_ASSERT_EQUAL_FATAL(mkdir(priv, 0700), 0);
  CU_ASSERT_EQUAL_FATAL(mkdir(shared, 0700), 0);
  CU_ASSERT_EQUAL_FATAL(chmod(shared, 0770), 0); /* group-writable */
  CU_ASSERT_EQUAL_FATAL(mkdir(theirs, 0700), 0);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(file, "", 0), 0);
  CU_ASSERT_EQUAL_FATAL(symlink(priv, link_), 0);
  snprintf(expect, sizeof expect, "%s/onnx-light/measure.lock", priv);
  expect_default(priv, store, expect);
  expect_default(slash, NULL, expect); /* a trailing slash; no store needed */
  snprintf(expect, sizeof expect, "%s/onnx-light/measure.lock", link_);
  expect_default(link_, store, expect); /* the directory it names is private */
  expect_default("relative/run", store, beside);
  expect_default("", store, beside);
  expect_default(shared, store, beside);
  expect_default(file, store, beside);
  expect_default(gone, store, beside);
  expect_default(NULL, store, beside);
  CU_ASSERT_EQUAL_FATAL(chmod(shared, 0702), 0); /* others may write */
  expect_default(shared, store, beside);
  if (geteuid() == 0) {
    CU_ASSERT_EQUAL_FATAL(chown(theirs, 65534, 65534), 0);
    expect_default(theirs, store, beside);
  }
  /* Neither: no private runtime directory and no store file. */
  default_with(NULL, NULL, OLC_E_NOT_FOUND);
  default_with(shared, "", OLC_E_NOT_FOUND);
  free(priv);
  free(slash);
  free(shared);
  free(theirs);
  free(file);
  free(gone);
  free(link_);
}

/* The default in a private runtime directory is usable: its onnx-light
 * directory is created 0700 by the first acquire. */
static void test_default_is_created(void) {
  char *run = olc_test_path(dir, "run2");
  char *sub = olc_test_path(dir, "run2/onnx-light");
  char *path;
  olc_persist_mlock *m = NULL;
  olc_persist_mlock_wait w;
  olc_error err;
  struct stat st;
  memset(&w, 0, sizeof w);
  CU_ASSERT_EQUAL_FATAL(mkdir(run, 0700), 0);
  path = default_with(run, NULL, OLC_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(path);
  OLC_ASSERT_OK(olc_persist__mlock_acquire(&m, NULL, path, &w, &err), &err);
  CU_ASSERT_EQUAL_FATAL(stat(sub, &st), 0);
  CU_ASSERT(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
  CU_ASSERT_EQUAL_FATAL(lstat(path, &st), 0);
  CU_ASSERT(S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
  olc_persist__mlock_release(m);
  free(path);
  free(run);
  free(sub);
}

typedef struct line_case {
  const char *text;
  int known;
  long long pid, started, acquired;
} line_case;

static const line_case lines[] = {
    {"olc-measure-lock pid=42 started=1700000000 acquired=1700000000123\n", 1, 42, 1700000000,
     1700000000123},
    {"olc-measure-lock pid=7 started=0 acquired=5\nrest", 1, 7, 0, 5},
    {"olc-measure-lock pid=42 started=1 acquired=2", 0, 0, 0, 0}, /* being written */
    {"olc-measure-lock pid=0 started=1 acquired=2\n", 0, 0, 0, 0},
    {"olc-measure-lock pid=-4 started=1 acquired=2\n", 0, 0, 0, 0},
    {"olc-measure-lock pid=4x started=1 acquired=2\n", 0, 0, 0, 0},
    {"olc-measure-lock pid=4 started=1\n", 0, 0, 0, 0},
    {"olc-measure-lock pid=4 started=1 acquired=2 more=3\n", 0, 0, 0, 0},
    {"olc-measure-lock started=1 pid=4 acquired=2\n", 0, 0, 0, 0},
    {"olc-measure-lockpid=4 started=1 acquired=2\n", 0, 0, 0, 0},
    {"other pid=4 started=1 acquired=2\n", 0, 0, 0, 0},
    {"olc-measure-lock pid=99999999999999999999 started=1 acquired=2\n", 0, 0, 0, 0},
    {"\n", 0, 0, 0, 0},
    {"", 0, 0, 0, 0},
};

static void test_parse(void) {
  size_t i;
  for (i = 0; i < sizeof lines / sizeof lines[0]; i++) {
    olc_persist_mlock_holder h;
    memset(&h, 0x5a, sizeof h);
    olc_persist__mlock_parse(&h, lines[i].text, strlen(lines[i].text));
    if (h.known != lines[i].known)
      fprintf(stderr, "\n  line %zu: known %d\n", i, h.known);
    CU_ASSERT_EQUAL(h.known, lines[i].known);
    if (lines[i].known) {
      CU_ASSERT_EQUAL(h.pid, lines[i].pid);
      CU_ASSERT_EQUAL(h.started_s, lines[i].started);
      CU_ASSERT_EQUAL(h.acquired_ms, lines[i].acquired);
    }
  }
  {
    olc_persist_mlock_holder h;
    olc_persist__mlock_parse(&h, NULL, 0);
    CU_ASSERT_EQUAL(h.known, 0);
  }
}

int test_mlock_path_register(void);
int test_mlock_path_register(void) {
  CU_pSuite s = CU_add_suite("mlock-path", setup, teardown);
  if (s == NULL)
    return -1;
  CU_add_test(s, "default path: private runtime dir, else beside the store", test_default_path);
  CU_add_test(s, "default path: created 0700 at the first acquire", test_default_is_created);
  CU_add_test(s, "holder line parser", test_parse);
  return 0;
}
