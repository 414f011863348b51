/*
 * tests/store/test_hostile_limits.c - a writer never writes a file its
 * readers refuse (issue 12 item 2): a save, an import or an export whose
 * result would exceed a reader limit fails with OLC_E_LIMIT and writes
 * nothing.  The limits are the handle's own (max_file_size), never above
 * the built-in ones a default reader applies (64 MiB file, 16 MiB value,
 * 4096 fields per record).
 *
 * Before the fix, three 16 MiB policies and a fourth made a file of more
 * than 64 MiB that every default reader refused ("larger than 67108864
 * bytes"), and a handle opened with max_file_size = 64 KiB wrote files it
 * could not read back itself.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "olc/store.h"
#include "test_store_setup.h"
#include "test_support.h"

#define MB ((size_t)1 << 20)

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("limits");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

static olc_store *open_with(const char *path, size_t max_file_size) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_error err;
  o.path = path;
  o.max_file_size = max_file_size;
  OLC_ASSERT_OK(olc_store_open(&s, &o, &err), &err);
  return s;
}

/* An override of backend "b<i>" with len policy bytes. */
static olc_status put(olc_store *s, int i, const unsigned char *policy, size_t len,
                      size_t measurements, olc_error *err) {
  olc_measurement *m = calloc(measurements + 1, sizeof *m);
  olc_save_request req;
  olc_key key;
  char backend[16];
  olc_status st;
  size_t k;
  char(*names)[16] = calloc(measurements + 1, sizeof *names);
  CU_ASSERT_FATAL(m != NULL && names != NULL);
  for (k = 0; k < measurements; k++) {
    snprintf(names[k], sizeof names[k], "m%.10zu", k % 10000000000u);
    m[k].name = names[k];
    m[k].value = 1.0;
    m[k].unit = "us";
  }
  snprintf(backend, sizeof backend, "b%d", i);
  key = olc_test_matmul_key(backend, "d");
  req = olc_test_bit_exact_request(&key, policy, len, m, measurements);
  st = olc_store_install_override(s, &req, err);
  free(m);
  free(names);
  return st;
}

static long long size_of(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* Saves until one is refused; checks that it was refused for the limit,
 * that nothing changed and that a reader with `reader_max` reads the file. */
static void fill_until_refused(const char *path, olc_store *s, size_t policy_len, size_t reader_max,
                               int expect_ok) {
  unsigned char *policy = malloc(policy_len);
  unsigned char *before, *after;
  size_t n0 = 0, n1 = 0, records = 0;
  olc_store *r;
  olc_record_list *list = NULL;
  olc_error err;
  olc_status st = OLC_OK;
  int i;
  CU_ASSERT_PTR_NOT_NULL_FATAL(policy);
  memset(policy, 'x', policy_len);
  for (i = 0; i < expect_ok; i++)
    OLC_ASSERT_OK(put(s, i, policy, policy_len, 1, &err), &err);
  before = olc_test_read_file(path, &n0);
  st = put(s, expect_ok, policy, policy_len, 1, &err);
  printf("\n  save %d of %zu bytes next to %zu: %s (%s)", expect_ok + 1, policy_len, n0,
         olc_status_str(st), err.message);
  CU_ASSERT_EQUAL(st, OLC_E_LIMIT);
  after = olc_test_read_file(path, &n1);
  CU_ASSERT(before != NULL && after != NULL && n0 == n1 && memcmp(before, after, n0) == 0);
  CU_ASSERT_EQUAL(olc_test_count_tmp(tmp), 0);
  /* The file is readable: by this handle, by a reader with reader_max. */
  OLC_ASSERT_OK(olc_store_reload(s, &err), &err);
  r = open_with(path, reader_max);
  OLC_ASSERT_OK(olc_store_load_status(r, &err), &err);
  OLC_ASSERT_OK(olc_store_list(&list, r, &err), &err);
  records = olc_record_list_count(list);
  CU_ASSERT_EQUAL(records, (size_t)expect_ok);
  olc_record_list_free(list);
  olc_store_free(r);
  free(before);
  free(after);
  free(policy);
}

/* The built-in limit: three 16 MiB policies fit in 64 MiB, a fourth does
 * not, whatever the handle allows (here 256 MiB). */
static void test_default_file_limit(void) {
  char *path = olc_test_path(tmp, "big.txt");
  olc_store *s = open_with(path, 256 * MB);
  fill_until_refused(path, s, 16 * MB, 0, 3);
  CU_ASSERT(size_of(path) <= (long long)(64 * MB));
  olc_store_free(s);
  free(path);
}

/* The handle's own, smaller limit: 10 KiB policies into 64 KiB. */
static void test_handle_file_limit(void) {
  char *path = olc_test_path(tmp, "small.txt");
  olc_store *s = open_with(path, 64 * 1024);
  fill_until_refused(path, s, 10 * 1024, 64 * 1024, 6);
  CU_ASSERT(size_of(path) <= 64 * 1024);
  olc_store_free(s);
  free(path);
}

/* An import whose merge would exceed the handle's limit (each file alone
 * fits). */
static void test_import_limit(void) {
  char *src = olc_test_path(tmp, "src.txt");
  char *dst = olc_test_path(tmp, "dst.txt");
  unsigned char policy[20 * 1024];
  unsigned char *before, *after;
  olc_store *a = open_with(src, 0), *b;
  size_t n = 0, n0 = 0, n1 = 0;
  olc_error err;
  int i;
  memset(policy, 'y', sizeof policy);
  for (i = 0; i < 2; i++)
    OLC_ASSERT_OK(put(a, i, policy, sizeof policy, 1, &err), &err);
  olc_store_free(a);
  b = open_with(dst, 64 * 1024);
  for (i = 10; i < 12; i++)
    OLC_ASSERT_OK(put(b, i, policy, sizeof policy, 1, &err), &err);
  before = olc_test_read_file(dst, &n0);
  OLC_ASSERT_STATUS(OLC_E_LIMIT, olc_store_import_file(b, src, &n, &err), &err);
  printf("\n  import of 2 x 20 KiB next to 2 x 20 KiB, 64 KiB handle: %s", err.message);
  CU_ASSERT_EQUAL(n, 0);
  after = olc_test_read_file(dst, &n1);
  CU_ASSERT(before != NULL && after != NULL && n0 == n1 && memcmp(before, after, n0) == 0);
  olc_store_free(b);
  free(before);
  free(after);
  free(src);
  free(dst);
}

/* Value size and fields per record: refused before anything is merged. */
static void test_value_and_field_limits(void) {
  char *path = olc_test_path(tmp, "fields.txt");
  olc_store *s = open_with(path, 0);
  unsigned char *policy = calloc(1, 16 * MB + 1);
  olc_error err;
  CU_ASSERT_PTR_NOT_NULL_FATAL(policy);
  OLC_ASSERT_STATUS(OLC_E_LIMIT, put(s, 0, policy, 16 * MB + 1, 1, &err), &err);
  printf("\n  16 MiB + 1 policy: %s", err.message);
  OLC_ASSERT_STATUS(OLC_E_LIMIT, put(s, 0, policy, 1, 4090, &err), &err);
  printf("\n  4090 measurements: %s", err.message);
  OLC_ASSERT_OK(put(s, 0, policy, 1, 4000, &err), &err);
  CU_ASSERT_EQUAL(olc_store_check_file(path, NULL, &err), OLC_OK);
  olc_store_free(s);
  free(policy);
  free(path);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("hostile_limits", setup, teardown);
  CU_add_test(s, "the default 64 MiB file limit caps every handle", test_default_file_limit);
  CU_add_test(s, "a handle's smaller file limit", test_handle_file_limit);
  CU_add_test(s, "an import over the handle's limit", test_import_limit);
  CU_add_test(s, "value size and fields per record", test_value_and_field_limits);
  return olc_test_run(argc, argv);
}
