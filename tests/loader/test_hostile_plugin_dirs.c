/*
 * tests/loader/test_hostile_plugin_dirs.c - the plugin directories
 * (issue 12 item 6), through the public API:
 *
 * - every directory above a plugin file, up to the root, is checked the way
 *   OpenSSH's StrictModes checks a path: a 0777 (not sticky) parent of a
 *   0755 plugin directory makes its plugins refused at stage permissions
 *   (anyone could rename the child); a parent owned by another user (root
 *   only) too; a root-owned sticky parent (/tmp-like) is fine; a link in a
 *   safe directory to a file under an unsafe one is refused;
 *   allow_insecure_plugins loads them all;
 * - entries with the plugin suffix that are not regular files (a directory
 *   named x.so, a FIFO, a dangling link, a link loop, a link to /dev/zero)
 *   are in the load report at stage open with what they are.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "olc/host.h"
#include "test_support.h"

#define MOCK_DET OLC_MOCK_PLUGIN_ROOT "/good/mock_det.so"

static char *tmp;

static int setup(void) { return olc_test_suite_tmpdir(&tmp, "plugin-dirs"); }

static int teardown(void) { return olc_test_suite_rmtree(&tmp); }

/* Opens a host on dir; the caller frees it. */
static olc_host *open_on(const char *dir, int allow_insecure) {
  char ini[4200];
  olc_host_options ho = OLC_HOST_OPTIONS_INIT;
  olc_config *c = NULL;
  olc_host *h = NULL;
  olc_error err;
  int n = snprintf(ini, sizeof ini, "[host]\nplugin_dirs = %s\n", dir);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof ini);
  OLC_ASSERT_OK(olc_config_load_string(&c, ini, (size_t)n, "dirs.ini", NULL, &err), &err);
  ho.allow_insecure_plugins = allow_insecure;
  ho.ignore_env = 1;
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, &ho, &err), &err);
  olc_config_free(c);
  return h;
}

/* The stage of dir/file with and without allow_insecure_plugins; the
 * message (when refused) must contain reason. */
static void expect(const char *dir, const char *file, olc_load_stage stage, const char *reason) {
  olc_host *h = open_on(dir, 0);
  const olc_load_entry *e = olc_test_report_entry(h, file);
  CU_ASSERT_PTR_NOT_NULL_FATAL(e);
  printf("\n  %-44s %-11s %s", dir + strlen(tmp), olc_load_stage_str(e->stage), e->message);
  CU_ASSERT_EQUAL(e->stage, stage);
  if (reason != NULL)
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, reason));
  olc_host_free(h);
  h = open_on(dir, 1);
  e = olc_test_report_entry(h, file);
  CU_ASSERT_TRUE(e != NULL && e->stage == OLC_LOAD_LOADED);
  olc_host_free(h);
}

static void test_ancestors(void) {
  char *a = olc_test_path(tmp, "a"), *b = olc_test_path(tmp, "a/b");
  char *so = olc_test_path(tmp, "a/b/mock_det.so"), *safe = olc_test_path(tmp, "safe");
  char *link = olc_test_path(tmp, "safe/mock_det.so");
  char reason[4200];
  CU_ASSERT_EQUAL_FATAL(mkdir(a, 0700), 0);
  CU_ASSERT_EQUAL_FATAL(mkdir(b, 0755), 0);
  CU_ASSERT_EQUAL_FATAL(mkdir(safe, 0755), 0);
  CU_ASSERT_EQUAL_FATAL(olc_test_copy_file(MOCK_DET, so), 0);
  CU_ASSERT_EQUAL_FATAL(chmod(so, 0644), 0);
  CU_ASSERT_EQUAL_FATAL(chmod(tmp, 0755), 0);
  CU_ASSERT_EQUAL_FATAL(symlink(so, link), 0);
  /* Control: every directory safe. */
  expect(b, "mock_det.so", OLC_LOAD_LOADED, NULL);
  /* A world-writable parent that is not sticky: refused. */
  CU_ASSERT_EQUAL_FATAL(chmod(a, 0777), 0);
  snprintf(reason, sizeof reason, "directory %s is writable by all users", a);
  expect(b, "mock_det.so", OLC_LOAD_PERMISSIONS, reason);
  /* ...also behind a link from a safe directory. */
  expect(safe, "mock_det.so", OLC_LOAD_PERMISSIONS, reason);
  /* Group-writable: refused too. */
  CU_ASSERT_EQUAL_FATAL(chmod(a, 0775), 0);
  expect(b, "mock_det.so", OLC_LOAD_PERMISSIONS, "is writable by its group");
  /* Sticky and owned by root (as /tmp): fine. */
  if (geteuid() == 0) {
    CU_ASSERT_EQUAL_FATAL(chmod(a, 01777), 0);
    expect(b, "mock_det.so", OLC_LOAD_LOADED, NULL);
    /* Owned by another user, even 0755: refused. */
    CU_ASSERT_EQUAL_FATAL(chmod(a, 0755), 0);
    CU_ASSERT_EQUAL_FATAL(chown(a, 65534, 65534), 0);
    expect(b, "mock_det.so", OLC_LOAD_PERMISSIONS, "is owned by another user (uid 65534)");
    CU_ASSERT_EQUAL(chown(a, 0, 0), 0);
  } else {
    printf("\n  not root: the sticky and foreign-owner cases are not run");
  }
  CU_ASSERT_EQUAL(chmod(a, 0700), 0);
  free(a);
  free(b);
  free(so);
  free(safe);
  free(link);
}

static void test_not_regular(void) {
  static const struct {
    const char *file, *reason;
  } cases[] = {
      {"dir.so", "not a regular file: a directory"},
      {"fifo.so", "not a regular file: a FIFO"},
      {"dangling.so", "not a regular file: a dangling symbolic link"},
      {"loop.so", "not a regular file: a symbolic link loop"},
      {"zero.so", "not a regular file: a symbolic link to a character device"},
  };
  char *dir = olc_test_path(tmp, "entries"), *p;
  olc_host *h;
  size_t i;
  CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
  CU_ASSERT_EQUAL_FATAL(chmod(tmp, 0755), 0);
  p = olc_test_path(dir, "dir.so");
  CU_ASSERT_EQUAL(mkdir(p, 0700), 0);
  free(p);
  p = olc_test_path(dir, "fifo.so");
  CU_ASSERT_EQUAL(mkfifo(p, 0600), 0);
  free(p);
  p = olc_test_path(dir, "dangling.so");
  CU_ASSERT_EQUAL(symlink("/nonexistent-olc/x.so", p), 0);
  free(p);
  p = olc_test_path(dir, "loop.so");
  CU_ASSERT_EQUAL(symlink("loop.so", p), 0);
  free(p);
  p = olc_test_path(dir, "zero.so");
  CU_ASSERT_EQUAL(symlink("/dev/zero", p), 0);
  free(p);
  p = olc_test_path(dir, "mock_det.so");
  CU_ASSERT_EQUAL(symlink(MOCK_DET, p), 0);
  free(p);
  h = open_on(dir, 0);
  CU_ASSERT_EQUAL(olc_host_report_count(h), 6);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const olc_load_entry *e = olc_test_report_entry(h, cases[i].file);
    printf("\n  %-12s %s", cases[i].file, e != NULL ? e->message : "(no entry)");
    CU_ASSERT_TRUE_FATAL(e != NULL);
    CU_ASSERT_EQUAL(e->stage, OLC_LOAD_OPEN);
    CU_ASSERT_EQUAL(e->status, OLC_E_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, cases[i].reason));
  }
  CU_ASSERT_TRUE(olc_test_report_entry(h, "mock_det.so") != NULL &&
                 olc_test_report_entry(h, "mock_det.so")->stage == OLC_LOAD_LOADED);
  olc_host_free(h);
  free(dir);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("hostile_plugin_dirs", setup, teardown);
  CU_add_test(s, "every directory up to the root is checked", test_ancestors);
  CU_add_test(s, "entries that are not regular files are reported", test_not_regular);
  return olc_test_run(argc, argv);
}
