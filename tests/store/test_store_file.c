/*
 * tests/store/test_store_file.c - the store with persistence on: round trips
 * through a real file, change detection between handles, snapshot
 * protection against malformed and newer files, import, export, check and
 * repair.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store_int.h"
#include "test_store_setup.h"
#include "test_store_util.h"

static char *dir;
static char *path;

static int setup(void) {
  return olc_test_store_dir("store", "calibration_profiles.txt", &dir, &path);
}

static int teardown(void) {
  olc_test_store_dir_free(&dir, &path);
  return 0;
}

/* A fresh store file per test. */
static void fresh(void) { olc_test_store_remove(path); }

static olc_lookup_result *lookup(olc_store *s, const olc_key *k, olc_status expect) {
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  olc_error e;
  o.key = k;
  OLC_ASSERT_STATUS(expect, olc_store_lookup(&res, s, &o, &e), &e);
  return res;
}

static void test_nul_policy_round_trip(void) {
  static const unsigned char policy[] = {'t', 0, 'i', 'l', 'e', '"', '\\', '\n', '\r', 0xff, 0};
  olc_key k = tsu_key("3", "model-a", "cpu \"x\"\n", 8);
  olc_save_request r = OLC_SAVE_REQUEST_INIT;
  olc_measurement m[1] = {{"median_latency", 0.1, "us"}};
  olc_store *a, *b;
  olc_lookup_result *res;
  const olc_record *sel;
  olc_error e;
  fresh();
  a = tsu_open_file(path, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  CU_ASSERT_STRING_EQUAL(olc_store_path(a), path);
  r.key = &k;
  r.measurements = m;
  r.measurement_count = 1;
  r.policy = policy;
  r.policy_len = sizeof policy;
  OLC_ASSERT_OK(olc_store_save(a, &r, &e), &e);
  olc_store_free(a);
  /* A new handle reads it back from the file. */
  b = tsu_open_file(path, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  OLC_ASSERT_OK(olc_store_load_status(b, &e), &e);
  res = lookup(b, &k, OLC_OK);
  sel = olc_lookup_result_selected(res);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sel);
  CU_ASSERT_EQUAL_FATAL(sel->policy_len, sizeof policy);
  CU_ASSERT_EQUAL(memcmp(sel->policy, policy, sizeof policy), 0);
  CU_ASSERT_STRING_EQUAL(sel->processor, "cpu \"x\"\n");
  CU_ASSERT_EQUAL(sel->measurements[0].value, 0.1);
  olc_lookup_result_free(res);
  olc_store_free(b);
}

static void test_other_handle_is_seen(void) {
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_store *a, *b, *c;
  olc_lookup_result *res;
  olc_error e;
  fresh();
  a = tsu_open_file(path, 1);
  c = tsu_open_file(path, 0); /* change detection off */
  b = tsu_open_file(path, 1); /* stands for another process */
  CU_ASSERT_FATAL(a != NULL && b != NULL && c != NULL);
  res = lookup(a, &k, OLC_E_NOT_FOUND);
  olc_lookup_result_free(res);
  res = lookup(c, &k, OLC_E_NOT_FOUND);
  olc_lookup_result_free(res);
  OLC_ASSERT_OK(tsu_put(b, &k, "from-b", OLC_LEVELS_DEFAULT, 0, &e), &e);
  res = lookup(a, &k, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "from-b");
  olc_lookup_result_free(res);
  {
    /* A list notices the change like a lookup does. */
    olc_record_list *l = NULL;
    OLC_ASSERT_OK(tsu_put(b, &k, "again", OLC_LEVEL_BIT_EXACT, 1, &e), &e);
    OLC_ASSERT_OK(olc_store_list(&l, a, &e), &e);
    CU_ASSERT_EQUAL(olc_record_list_count(l), 3);
    olc_record_list_free(l);
    OLC_ASSERT_OK(olc_store_remove_override(b, &k, OLC_LEVEL_BIT_EXACT, &e), &e);
    OLC_ASSERT_OK(olc_store_list(&l, a, &e), &e);
    CU_ASSERT_EQUAL(olc_record_list_count(l), 2);
    olc_record_list_free(l);
  }
  /* With check_for_changes off the handle keeps its snapshot... */
  res = lookup(c, &k, OLC_E_NOT_FOUND);
  olc_lookup_result_free(res);
  /* ...until it reloads explicitly. */
  OLC_ASSERT_OK(olc_store_reload(c, &e), &e);
  res = lookup(c, &k, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "from-b");
  olc_lookup_result_free(res);
  /* A write merges: c's override keeps b's calibrated records. */
  OLC_ASSERT_OK(tsu_put(c, &k, "ovr-c", OLC_LEVEL_BIT_EXACT, 1, &e), &e);
  res = lookup(b, &k, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "ovr-c");
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), 2);
  olc_lookup_result_free(res);
  olc_store_free(a);
  olc_store_free(b);
  olc_store_free(c);
}

static void expect_protected(const char *bad, size_t bad_len, olc_status code) {
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_store *a;
  olc_lookup_result *res;
  unsigned char *after;
  size_t after_len = 0;
  uint64_t failed;
  olc_error e;
  fresh();
  a = tsu_open_file(path, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  OLC_ASSERT_OK(tsu_put(a, &k, "good", OLC_LEVELS_DEFAULT, 0, &e), &e);
  failed = olc_store__failed_loads(a);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, bad, bad_len), 0);
  /* The lookup notices the change, fails to load, keeps the snapshot. */
  res = lookup(a, &k, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "good");
  olc_lookup_result_free(res);
  OLC_ASSERT_STATUS(code, olc_store_load_status(a, &e), &e);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, path));
  CU_ASSERT_EQUAL(olc_store__failed_loads(a), failed + 1);
  /* Not re-parsed at every lookup while the file stays the same. */
  res = lookup(a, &k, OLC_OK);
  olc_lookup_result_free(res);
  CU_ASSERT_EQUAL(olc_store__failed_loads(a), failed + 1);
  OLC_ASSERT_STATUS(code, olc_store_reload(a, &e), &e);
  CU_ASSERT_EQUAL(olc_store__failed_loads(a), failed + 2);
  /* A writer never overwrites what it cannot read. */
  OLC_ASSERT_STATUS(code, tsu_put(a, &k, "newer", OLC_LEVELS_DEFAULT, 0, &e), &e);
  after = olc_test_read_file(path, &after_len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(after);
  CU_ASSERT_EQUAL(after_len, bad_len);
  CU_ASSERT_EQUAL(memcmp(after, bad, bad_len), 0);
  free(after);
  res = lookup(a, &k, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "good");
  olc_lookup_result_free(res);
  olc_store_free(a);
}

static void test_malformed_file_never_replaces_snapshot(void) {
  static const char garbage[] = "onnx_light_calibration_profiles 1\nprofile exact calibrated\n"
                                "backend \"x\"\nbackend \"y\"\n";
  expect_protected(garbage, sizeof garbage - 1, OLC_E_MALFORMED);
  expect_protected("", 0, OLC_E_MALFORMED);
}

static void test_newer_file_never_replaces_snapshot(void) {
  static const char newer[] = "onnx_light_calibration_profiles 2\n";
  expect_protected(newer, sizeof newer - 1, OLC_E_VERSION);
}

static void test_open_broken_file_then_repair(void) {
  /* A damaged store: the header, then no record. */
  static const char garbage[] = "onnx_light_calibration_profiles 1\nnot a record\n";
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  char moved[4096];
  olc_store *a;
  unsigned char *kept;
  size_t kept_len = 0, n = 0;
  olc_error e;
  fresh();
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, garbage, sizeof garbage - 1), 0);
  OLC_ASSERT_STATUS(OLC_E_MALFORMED, olc_store_check_file(path, &n, &e), &e);
  CU_ASSERT(e.line >= 1);
  a = tsu_open_file(path, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  OLC_ASSERT_STATUS(OLC_E_MALFORMED, olc_store_load_status(a, &e), &e);
  OLC_ASSERT_OK(olc_store_repair(a, 0, moved, sizeof moved, &e), &e);
  CU_ASSERT_PTR_NOT_NULL(strstr(moved, ".corrupt-"));
  kept = olc_test_read_file(moved, &kept_len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(kept);
  CU_ASSERT_EQUAL(kept_len, sizeof garbage - 1);
  free(kept);
  OLC_ASSERT_OK(olc_store_load_status(a, &e), &e);
  OLC_ASSERT_OK(tsu_put(a, &k, "fresh", OLC_LEVELS_DEFAULT, 0, &e), &e);
  OLC_ASSERT_OK(olc_store_check_file(path, &n, &e), &e);
  CU_ASSERT_EQUAL(n, 2);
  /* A valid file is not repaired. */
  OLC_ASSERT_STATUS(OLC_E_BUSY, olc_store_repair(a, 0, moved, sizeof moved, &e), &e);
  remove(moved);
  olc_store_free(a);
}

static void test_import_export(void) {
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8), k2 = tsu_key("4", "model-b", "cpu-y", 2);
  char *exp = olc_test_path(dir, "export.txt"), *other = olc_test_path(dir, "other.txt");
  char *bad = olc_test_path(dir, "bad.txt");
  olc_store *a, *b;
  olc_lookup_result *res;
  size_t n = 0;
  olc_error e;
  fresh();
  remove(other);
  a = tsu_open_file(path, 1);
  OLC_ASSERT_OK(tsu_put(a, &k, "one", OLC_LEVELS_DEFAULT, 0, &e), &e);
  OLC_ASSERT_OK(tsu_put(a, &k2, "two", OLC_LEVEL_BIT_EXACT, 1, &e), &e);
  OLC_ASSERT_OK(olc_store_export_file(a, exp, 1, &e), &e);
  OLC_ASSERT_OK(olc_store_check_file(exp, &n, &e), &e);
  CU_ASSERT_EQUAL(n, 1);
  OLC_ASSERT_OK(olc_store_export_file(a, exp, 0, &e), &e);
  OLC_ASSERT_OK(olc_store_check_file(exp, &n, &e), &e);
  CU_ASSERT_EQUAL(n, 3);

  b = tsu_open_file(other, 1);
  OLC_ASSERT_OK(tsu_put(b, &k, "replaced-by-import", OLC_LEVELS_DEFAULT, 0, &e), &e);
  OLC_ASSERT_OK(olc_store_import_file(b, exp, &n, &e), &e);
  CU_ASSERT_EQUAL(n, 3);
  res = lookup(b, &k2, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "two");
  olc_lookup_result_free(res);
  res = lookup(b, &k, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "one");
  olc_lookup_result_free(res);
  OLC_ASSERT_OK(olc_store_check_file(other, &n, &e), &e);
  CU_ASSERT_EQUAL(n, 3);

  /* A malformed import changes nothing. */
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(bad, "junk", 4), 0);
  OLC_ASSERT_STATUS(OLC_E_MALFORMED, olc_store_import_file(b, bad, &n, &e), &e);
  CU_ASSERT_EQUAL(n, 0);
  OLC_ASSERT_STATUS(OLC_E_NOT_FOUND, olc_store_import_file(b, "/nonexistent/x", &n, &e), &e);
  OLC_ASSERT_OK(olc_store_check_file(other, &n, &e), &e);
  CU_ASSERT_EQUAL(n, 3);
  olc_store_free(a);
  olc_store_free(b);
  free(exp);
  free(other);
  free(bad);
}

static void test_unchanged_save_does_not_write(void) {
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  struct stat s1, s2;
  olc_store *a;
  olc_error e;
  fresh();
  a = tsu_open_file(path, 1);
  OLC_ASSERT_OK(tsu_put(a, &k, "same", OLC_LEVELS_DEFAULT, 0, &e), &e);
  CU_ASSERT_EQUAL_FATAL(stat(path, &s1), 0);
  OLC_ASSERT_OK(tsu_put(a, &k, "same", OLC_LEVELS_DEFAULT, 0, &e), &e);
  CU_ASSERT_EQUAL_FATAL(stat(path, &s2), 0);
  /* A rename would have given the file a new inode. */
  CU_ASSERT_EQUAL(s1.st_ino, s2.st_ino);
  OLC_ASSERT_OK(tsu_put(a, &k, "different", OLC_LEVELS_DEFAULT, 0, &e), &e);
  CU_ASSERT_EQUAL_FATAL(stat(path, &s2), 0);
  CU_ASSERT_NOT_EQUAL(s1.st_ino, s2.st_ino);
  /* Removing an override that is not there: not found, no write. */
  s1 = s2;
  OLC_ASSERT_STATUS(OLC_E_NOT_FOUND, olc_store_remove_override(a, &k, OLC_LEVELS_DEFAULT, &e), &e);
  CU_ASSERT_EQUAL_FATAL(stat(path, &s2), 0);
  CU_ASSERT_EQUAL(s1.st_ino, s2.st_ino);
  olc_store_free(a);
}

static void test_missing_directory_is_created_on_first_write(void) {
  char *sub = olc_test_path(dir, "deeper/nested/profiles.txt");
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  struct stat st;
  olc_store *a = tsu_open_file(sub, 1);
  olc_error e;
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  OLC_ASSERT_OK(olc_store_load_status(a, &e), &e);
  /* Nothing is created before the first write. */
  CU_ASSERT_NOT_EQUAL(stat(sub, &st), 0);
  OLC_ASSERT_OK(tsu_put(a, &k, "p", OLC_LEVELS_DEFAULT, 0, &e), &e);
  CU_ASSERT_EQUAL(stat(sub, &st), 0);
  olc_store_free(a);
  free(sub);
}

/* A real second process saves; the first handle's next lookup sees it. */
static void test_other_process_is_seen(void) {
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_lookup_result *res;
  olc_record_list *l = NULL;
  olc_store *a;
  olc_error e;
  int status = -1;
  pid_t pid;
  fresh();
  a = tsu_open_file(path, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  OLC_ASSERT_OK(tsu_put(a, &k, "mine", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  pid = fork();
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    olc_store *child = tsu_open_file(path, 1);
    olc_status st =
        child != NULL ? tsu_put(child, &k, "child", OLC_LEVEL_BIT_PORTABLE, 1, NULL) : OLC_E_IO;
    olc_store_free(child);
    _exit(st == OLC_OK ? 0 : 1);
  }
  CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
  CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  res = lookup(a, &k, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "child");
  CU_ASSERT_EQUAL(olc_lookup_result_selected(res)->origin, OLC_ORIGIN_OVERRIDE);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_SHADOWED), 1);
  olc_lookup_result_free(res);
  OLC_ASSERT_OK(olc_store_list(&l, a, &e), &e);
  CU_ASSERT_EQUAL(olc_record_list_count(l), 2);
  olc_record_list_free(l);
  olc_store_free(a);
}

/* The names persist gives its writers' files (the temporary's pattern,
 * P.lock) are refused as store paths, and only those. */
static void open_at(olc_status want, const char *at, const char *says) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_error e;
  o.path = at;
  OLC_ASSERT_STATUS(want, olc_store_open(&s, &o, &e), &e);
  if (says != NULL)
    CU_ASSERT_PTR_NOT_NULL(strstr(e.message, says));
  olc_store_free(s);
}

static void test_writer_files_are_not_stores(void) {
  char *tmp = olc_test_path(dir, "calibration_profiles.txt.4242.0123456789abcdef.tmp");
  char *not_hex = olc_test_path(dir, "calibration_profiles.txt.4242.0123456789abcdeg.tmp");
  char *lock = olc_test_path(dir, "calibration_profiles.txt.lock");
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_store *a;
  olc_error e;
  fresh();
  a = tsu_open_file(path, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  OLC_ASSERT_OK(tsu_put(a, &k, "p", OLC_LEVELS_DEFAULT, 0, &e), &e);
  olc_store_free(a);
  open_at(OLC_E_INVALID, tmp, "is a temporary file of the store");
  open_at(OLC_E_INVALID, lock, "is the lock file of the store");
  open_at(OLC_OK, not_hex, NULL);
  free(tmp);
  free(not_hex);
  free(lock);
}

static void test_default_path(void) {
  char buf[4096], small[8];
  char *cache = olc_test_path(dir, "cache");
  const char *old = getenv("XDG_CACHE_HOME");
  char *saved = old != NULL ? strdup(old) : NULL;
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_error e;
  setenv("XDG_CACHE_HOME", cache, 1);
  OLC_ASSERT_OK(olc_store_default_path(buf, sizeof buf, &e), &e);
  CU_ASSERT_EQUAL(strncmp(buf, cache, strlen(cache)), 0);
  CU_ASSERT_STRING_EQUAL(buf + strlen(cache), "/onnx-light/calibration_profiles.txt");
  OLC_ASSERT_STATUS(OLC_E_LIMIT, olc_store_default_path(small, sizeof small, &e), &e);
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_default_path(NULL, 0, &e), &e);
  /* path = NULL opens the default path; nothing is created by opening. */
  OLC_ASSERT_OK(olc_store_open(&s, &o, &e), &e);
  CU_ASSERT_STRING_EQUAL(olc_store_path(s), buf);
  {
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(cache, &st), 0);
  }
  olc_store_free(s);
  if (saved != NULL)
    setenv("XDG_CACHE_HOME", saved, 1);
  else
    unsetenv("XDG_CACHE_HOME");
  free(saved);
  free(cache);
}

int main(int argc, char **argv) {
  CU_pSuite suite;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  suite = CU_add_suite("store_file", setup, teardown);
  CU_add_test(suite, "nul_policy_round_trip", test_nul_policy_round_trip);
  CU_add_test(suite, "other_handle_is_seen", test_other_handle_is_seen);
  CU_add_test(suite, "other_process_is_seen", test_other_process_is_seen);
  CU_add_test(suite, "default_path", test_default_path);
  CU_add_test(suite, "writer_files_are_not_stores", test_writer_files_are_not_stores);
  CU_add_test(suite, "malformed_file_never_replaces_snapshot",
              test_malformed_file_never_replaces_snapshot);
  CU_add_test(suite, "newer_file_never_replaces_snapshot", test_newer_file_never_replaces_snapshot);
  CU_add_test(suite, "open_broken_file_then_repair", test_open_broken_file_then_repair);
  CU_add_test(suite, "import_export", test_import_export);
  CU_add_test(suite, "unchanged_save_does_not_write", test_unchanged_save_does_not_write);
  CU_add_test(suite, "missing_directory_is_created_on_first_write",
              test_missing_directory_is_created_on_first_write);
  return olc_test_run(argc, argv);
}
