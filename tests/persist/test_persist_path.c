/*
 * tests/persist/test_persist_path.c - readers, change detection, repair,
 * path resolution and the default store path over an environment matrix.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "persist/persist.h"
#include "test_support.h"
#include "util/buf.h"

static char *dir;

static int setup(void) {
  dir = olc_test_tmpdir("persist-path");
  return dir == NULL;
}

static int teardown(void) {
  olc_test_rmtree(dir);
  free(dir);
  return 0;
}

static void test_read_and_stat(void) {
  char *p = olc_test_path(dir, "r.txt");
  olc_buf b = OLC_BUF_INIT;
  olc_file_id id, id2;
  olc_error err;
  struct stat st;
  OLC_ASSERT_STATUS(OLC_E_NOT_FOUND, olc_persist__read(&b, &id, p, 0, &err), &err);
  CU_ASSERT_EQUAL(id.exists, 0);
  OLC_ASSERT_OK(olc_persist__stat(&id2, p, &err), &err);
  CU_ASSERT_EQUAL(id2.exists, 0);
  CU_ASSERT(olc_file_id__equal(&id, &id2));
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(p, "a\0b\n", 4), 0);
  OLC_ASSERT_OK(olc_persist__read(&b, &id, p, 4, &err), &err);
  CU_ASSERT(b.len == 4 && memcmp(b.data, "a\0b\n", 4) == 0);
  CU_ASSERT_EQUAL_FATAL(stat(p, &st), 0);
  CU_ASSERT(id.exists && id.ino == (uint64_t)st.st_ino && id.size == 4);
  OLC_ASSERT_OK(olc_persist__stat(&id2, p, &err), &err);
  CU_ASSERT(olc_file_id__equal(&id, &id2));
  /* Limit: refused before reading, and out is left empty. */
  OLC_ASSERT_STATUS(OLC_E_LIMIT, olc_persist__read(&b, &id, p, 3, &err), &err);
  CU_ASSERT_EQUAL(b.len, 0);
  /* A replaced file is a new identity. */
  CU_ASSERT_EQUAL_FATAL(unlink(p), 0);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(p, "a\0b\n", 4), 0);
  OLC_ASSERT_OK(olc_persist__stat(&id2, p, &err), &err);
  OLC_ASSERT_OK(olc_persist__read(&b, &id, p, 0, &err), &err);
  CU_ASSERT(olc_file_id__equal(&id, &id2));
  /* A directory is not a store file. */
  OLC_ASSERT_STATUS(OLC_E_IO, olc_persist__read(&b, &id, dir, 0, &err), &err);
  olc_buf__free(&b);
  free(p);
}

static olc_status check_digit(const unsigned char *bytes, size_t len, int complete, void *payload,
                              olc_error *err) {
  (void)complete;
  (void)err;
  (void)payload;
  return len == 2 && bytes[0] >= '0' && bytes[0] <= '9' && bytes[1] == '\n' ? OLC_OK
                                                                            : OLC_E_MALFORMED;
}

static void test_repair(void) {
  char *p = olc_test_path(dir, "s.txt");
  char moved[4096];
  olc_error err;
  size_t n = 0, pl = strlen(p);
  unsigned char *got;
  struct stat st;
  OLC_ASSERT_STATUS(OLC_E_NOT_FOUND,
                    olc_persist__repair(moved, sizeof moved, p, NULL, check_digit, NULL, &err),
                    &err);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(p, "5\n", 2), 0);
  OLC_ASSERT_STATUS(
      OLC_E_BUSY, olc_persist__repair(moved, sizeof moved, p, NULL, check_digit, NULL, &err), &err);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(p, "junk", 4), 0);
  OLC_ASSERT_OK(olc_persist__repair(moved, sizeof moved, p, NULL, check_digit, NULL, &err), &err);
  /* P.corrupt-YYYYmmddTHHMMSSZ.<8 hex> */
  CU_ASSERT_EQUAL(strlen(moved), pl + 9 + 16 + 1 + 8);
  CU_ASSERT(strncmp(moved, p, pl) == 0 && strncmp(moved + pl, ".corrupt-", 9) == 0);
  CU_ASSERT_EQUAL(moved[pl + 9 + 8], 'T');
  CU_ASSERT_EQUAL(moved[pl + 9 + 15], 'Z');
  got = olc_test_read_file(moved, &n);
  CU_ASSERT(got != NULL && n == 4 && memcmp(got, "junk", 4) == 0);
  free(got);
  CU_ASSERT(stat(p, &st) != 0 && errno == ENOENT);
  free(p);
}

static void test_resolve(void) {
  char *real = NULL, *out = NULL, *sub = olc_test_path(dir, "sub");
  char *target = olc_test_path(dir, "sub/target.txt");
  char *link = olc_test_path(dir, "link.txt");
  char *dangling = olc_test_path(dir, "dangling.txt");
  char cwd[4096], expect[4096];
  olc_error err;
  CU_ASSERT_FATAL(mkdir(sub, 0700) == 0);
  real = realpath(dir, NULL);
  CU_ASSERT_FATAL(real != NULL);
  /* A symlinked P resolves to its target (existing or not). */
  CU_ASSERT_EQUAL_FATAL(symlink("sub/target.txt", link), 0);
  OLC_ASSERT_OK(olc_persist__resolve(&out, link, &err), &err);
  snprintf(expect, sizeof expect, "%s/sub/target.txt", real);
  CU_ASSERT_STRING_EQUAL(out, expect);
  free(out);
  CU_ASSERT_EQUAL_FATAL(symlink(target, dangling), 0);
  OLC_ASSERT_OK(olc_persist__resolve(&out, dangling, &err), &err);
  CU_ASSERT_STRING_EQUAL(out, expect);
  free(out);
  /* A missing directory is kept as written; a relative path gets cwd. */
  CU_ASSERT_FATAL(getcwd(cwd, sizeof cwd) != NULL);
  CU_ASSERT_EQUAL_FATAL(chdir(dir), 0);
  OLC_ASSERT_OK(olc_persist__resolve(&out, "sub/../sub/x.txt", &err), &err);
  snprintf(expect, sizeof expect, "%s/sub/x.txt", real);
  CU_ASSERT_STRING_EQUAL(out, expect);
  free(out);
  OLC_ASSERT_OK(olc_persist__resolve(&out, "nodir/x.txt", &err), &err);
  snprintf(expect, sizeof expect, "%s/nodir/x.txt", real);
  CU_ASSERT_STRING_EQUAL(out, expect);
  free(out);
  OLC_ASSERT_OK(olc_persist__resolve(&out, "plain.txt", &err), &err);
  snprintf(expect, sizeof expect, "%s/plain.txt", real);
  CU_ASSERT_STRING_EQUAL(out, expect);
  free(out);
  CU_ASSERT_EQUAL(chdir(cwd), 0);
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_persist__resolve(&out, "", &err), &err);
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_persist__resolve(&out, "/tmp/", &err), &err);
  free(real);
  free(sub);
  free(target);
  free(link);
  free(dangling);
}

typedef struct env_case {
  const char *xdg;      /* NULL: unset */
  const char *home;     /* NULL: unset */
  const char *expected; /* NULL: the passwd entry's home + .cache/... */
} env_case;

static const env_case env_cases[] = {
    {"/x/cache", "/h", "/x/cache/onnx-light/calibration_profiles.txt"},
    {"/x/cache/", "/h", "/x/cache/onnx-light/calibration_profiles.txt"},
    {"relative/cache", "/h", "/h/.cache/onnx-light/calibration_profiles.txt"},
    {"", "/h", "/h/.cache/onnx-light/calibration_profiles.txt"},
    {NULL, "/h", "/h/.cache/onnx-light/calibration_profiles.txt"},
    {NULL, "/h/", "/h/.cache/onnx-light/calibration_profiles.txt"},
    {"/x", NULL, "/x/onnx-light/calibration_profiles.txt"},
    {NULL, NULL, NULL},
    {NULL, "", NULL},
    {"rel", "", NULL},
};

static void set_or_unset(const char *name, const char *value) {
  if (value == NULL)
    unsetenv(name);
  else
    setenv(name, value, 1);
}

static void test_default_path_matrix(void) {
  char *old_xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
  char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
  struct passwd *pw = getpwuid(getuid());
  char buf[4096], pw_expect[4096];
  olc_error err;
  size_t i;
  CU_ASSERT_FATAL(pw != NULL && pw->pw_dir != NULL);
  snprintf(pw_expect, sizeof pw_expect, "%s%s.cache/onnx-light/calibration_profiles.txt",
           pw->pw_dir, pw->pw_dir[strlen(pw->pw_dir) - 1] == '/' ? "" : "/");
  for (i = 0; i < sizeof env_cases / sizeof env_cases[0]; i++) {
    const env_case *c = &env_cases[i];
    set_or_unset("XDG_CACHE_HOME", c->xdg);
    set_or_unset("HOME", c->home);
    OLC_ASSERT_OK(olc_persist__default_path(buf, sizeof buf, &err), &err);
    if (strcmp(buf, c->expected ? c->expected : pw_expect) != 0)
      fprintf(stderr, "\n  case %zu: got %s\n", i, buf);
    CU_ASSERT_STRING_EQUAL(buf, c->expected ? c->expected : pw_expect);
  }
  setenv("XDG_CACHE_HOME", "/x", 1);
  OLC_ASSERT_STATUS(OLC_E_LIMIT, olc_persist__default_path(buf, 10, &err), &err);
  set_or_unset("XDG_CACHE_HOME", old_xdg);
  set_or_unset("HOME", old_home);
  free(old_xdg);
  free(old_home);
}

int test_persist_path_register(void);
int test_persist_path_register(void) {
  CU_pSuite s = CU_add_suite("persist-path", setup, teardown);
  if (s == NULL)
    return -1;
  CU_add_test(s, "read and stat", test_read_and_stat);
  CU_add_test(s, "repair moves an unreadable file aside", test_repair);
  CU_add_test(s, "resolve: symlinks, relative, missing dirs", test_resolve);
  CU_add_test(s, "default path over an environment matrix", test_default_path_matrix);
  return 0;
}
