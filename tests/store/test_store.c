/*
 * tests/store/test_store.c - the store API in memory: key and request
 * validation, serializer and validator failures, overrides, remove_if,
 * lists, strings, and the proof that persistence_enabled = 0 makes no
 * file-system call.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "persist/persist.h"
#include "store/store_int.h"
#include "test_store_util.h"

static size_t record_count(olc_store *s) {
  olc_record_list *l = NULL;
  olc_error e;
  size_t n;
  OLC_ASSERT_OK(olc_store_list(&l, s, &e), &e);
  n = olc_record_list_count(l);
  olc_record_list_free(l);
  return n;
}

static void expect_invalid(olc_store *s, const olc_save_request *r, olc_status code,
                           const char *needle) {
  olc_error e;
  olc_error_clear(&e);
  OLC_ASSERT_STATUS(code, olc_store_save(s, r, &e), &e);
  CU_ASSERT_EQUAL(e.code, code);
  if (strstr(e.message, needle) == NULL)
    fprintf(stderr, "\n  message \"%s\" lacks \"%s\"\n", e.message, needle);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, needle));
}

static void test_key_validation(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_property dup[3] = {{"b", "1"}, {"a", "2"}, {"b", "3"}};
  olc_measurement m[1] = {{"median_latency", 2.5, "us"}};
  olc_save_request r = OLC_SAVE_REQUEST_INIT;
  r.key = &k;
  r.measurements = m;
  r.measurement_count = 1;
  r.policy = "p";
  r.policy_len = 1;

  k.backend = "";
  expect_invalid(s, &r, OLC_E_INVALID, "backend is empty");
  k.backend = NULL;
  expect_invalid(s, &r, OLC_E_INVALID, "backend is NULL");
  k = tsu_key("3", "model-a", "cpu-x", 8);
  k.operator_name = "";
  expect_invalid(s, &r, OLC_E_INVALID, "operator is empty");
  k = tsu_key("", "model-a", "cpu-x", 8);
  expect_invalid(s, &r, OLC_E_INVALID, "implementation is empty");
  k = tsu_key("3", "model-a", "cpu-x", -1);
  expect_invalid(s, &r, OLC_E_INVALID, "thread_count -1");
  k = tsu_key("3", "model-a", NULL, 8);
  expect_invalid(s, &r, OLC_E_INVALID, "together");
  k = tsu_key("3", "model-a", "cpu-x", 8);
  k.structure = dup;
  k.structure_count = 3;
  expect_invalid(s, &r, OLC_E_INVALID, "duplicate structural property \"b\"");
  k = tsu_key("3", NULL, NULL, 8);
  k.structure_count = 0;
  expect_invalid(s, &r, OLC_E_INVALID, "neither");
  k = tsu_key("3", NULL, NULL, 8);
  r.levels = OLC_LEVEL_BIT_EXACT;
  expect_invalid(s, &r, OLC_E_INVALID, "exact level needs");
  r.levels = 0x10;
  expect_invalid(s, &r, OLC_E_INVALID, "unknown level bits");
  r.levels = OLC_LEVELS_DEFAULT;
  k = tsu_key("3", "model-a", "cpu-x", 8);

  m[0].value = NAN;
  expect_invalid(s, &r, OLC_E_INVALID, "measurement \"median_latency\" is not a finite number");
  m[0].value = INFINITY;
  expect_invalid(s, &r, OLC_E_INVALID, "median_latency");
  m[0].value = -INFINITY;
  expect_invalid(s, &r, OLC_E_INVALID, "median_latency");
  m[0].value = 1.0;
  m[0].unit = NULL;
  expect_invalid(s, &r, OLC_E_INVALID, "NULL unit");
  m[0].unit = "us";
  m[0].name = "";
  expect_invalid(s, &r, OLC_E_INVALID, "no name");
  m[0].name = "median_latency";
  r.policy = NULL;
  expect_invalid(s, &r, OLC_E_INVALID, "policy is NULL");
  r.policy = "p";
  r.version = 7;
  expect_invalid(s, &r, OLC_E_INVALID, "version");
  r.version = OLC_SAVE_REQUEST_VERSION;
  /* Nothing was saved by any of the failures; the good request works. */
  CU_ASSERT_EQUAL(record_count(s), 0);
  {
    olc_error e;
    OLC_ASSERT_OK(olc_store_save(s, &r, &e), &e);
  }
  CU_ASSERT_EQUAL(record_count(s), 2);
  olc_store_free(s);
}

static olc_status failing_serializer(olc_bytes *out, void *payload, char *msg, size_t size) {
  (void)payload;
  olc_bytes_append(out, "partial", 7);
  snprintf(msg, size, "tile table is empty");
  return OLC_E_INVALID;
}

static olc_status nul_serializer(olc_bytes *out, void *payload, char *msg, size_t size) {
  static const unsigned char bytes[] = {'a', 0, 'b', 0xff, '"', '\\', '\n'};
  (void)payload;
  (void)msg;
  (void)size;
  return olc_bytes_append(out, bytes, sizeof bytes);
}

static int validator_calls;

static olc_status strict_validator(const unsigned char *policy, size_t len, void *payload,
                                   char *msg, size_t size) {
  (void)payload;
  validator_calls++;
  if (len != 7 || policy[1] != 0) {
    snprintf(msg, size, "policy must be 7 bytes with a NUL");
    return OLC_E_INVALID;
  }
  return OLC_OK;
}

static void test_serializer_and_validator(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_save_request r = OLC_SAVE_REQUEST_INIT;
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  const olc_record *sel;
  olc_error e;
  r.key = &k;
  r.serialize = failing_serializer;
  expect_invalid(s, &r, OLC_E_SERIALIZE, "tile table is empty");
  CU_ASSERT_EQUAL(record_count(s), 0);

  /* The validator sees the serialized bytes before anything is written. */
  r.serialize = NULL;
  r.policy = "short";
  r.policy_len = 5;
  r.validate = strict_validator;
  validator_calls = 0;
  expect_invalid(s, &r, OLC_E_VALIDATION, "policy must be 7 bytes with a NUL");
  CU_ASSERT_EQUAL(validator_calls, 1);
  CU_ASSERT_EQUAL(record_count(s), 0);

  r.serialize = nul_serializer;
  OLC_ASSERT_OK(olc_store_save(s, &r, &e), &e);
  o.key = &k;
  OLC_ASSERT_OK(olc_store_lookup(&res, s, &o, &e), &e);
  sel = olc_lookup_result_selected(res);
  CU_ASSERT_EQUAL_FATAL(sel->policy_len, 7);
  CU_ASSERT_EQUAL(memcmp(sel->policy, "a\0b\xff\"\\\n", 7), 0);
  CU_ASSERT_EQUAL(sel->policy[7], 0);
  CU_ASSERT_EQUAL(sel->measurement_count, 0);
  olc_lookup_result_free(res);
  olc_store_free(s);
}

static void test_override_and_remove(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_error e;
  OLC_ASSERT_STATUS(OLC_E_NOT_FOUND, olc_store_remove_override(s, &k, OLC_LEVELS_DEFAULT, &e), &e);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "example_gpu"));
  OLC_ASSERT_OK(tsu_put(s, &k, "cal", OLC_LEVELS_DEFAULT, 0, &e), &e);
  /* Calibrated records are not overrides. */
  OLC_ASSERT_STATUS(OLC_E_NOT_FOUND, olc_store_remove_override(s, &k, OLC_LEVELS_DEFAULT, &e), &e);
  OLC_ASSERT_OK(tsu_put(s, &k, "ovr", OLC_LEVELS_DEFAULT, 1, &e), &e);
  CU_ASSERT_EQUAL(record_count(s), 4);
  /* Saving the same identity again replaces it. */
  OLC_ASSERT_OK(tsu_put(s, &k, "ovr2", OLC_LEVELS_DEFAULT, 1, &e), &e);
  CU_ASSERT_EQUAL(record_count(s), 4);
  OLC_ASSERT_OK(olc_store_remove_override(s, &k, OLC_LEVEL_BIT_PORTABLE, &e), &e);
  CU_ASSERT_EQUAL(record_count(s), 3);
  OLC_ASSERT_OK(olc_store_remove_override(s, &k, OLC_LEVELS_DEFAULT, &e), &e);
  CU_ASSERT_EQUAL(record_count(s), 2);
  OLC_ASSERT_STATUS(OLC_E_NOT_FOUND, olc_store_remove_override(s, &k, OLC_LEVELS_DEFAULT, &e), &e);
  olc_store_free(s);
}

static int is_portable(const olc_record *r, void *payload) {
  (*(int *)payload)++;
  return r->level == OLC_LEVEL_PORTABLE;
}

static void test_remove_if_and_list(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_record_list *before = NULL;
  size_t removed = 99, i;
  int calls = 0;
  olc_error e;
  OLC_ASSERT_OK(tsu_put(s, &k, "a", OLC_LEVELS_DEFAULT, 0, &e), &e);
  k.operator_name = "Conv";
  OLC_ASSERT_OK(tsu_put(s, &k, "b", OLC_LEVELS_DEFAULT, 1, &e), &e);
  k.backend = "cpu_gemm";
  OLC_ASSERT_OK(tsu_put(s, &k, "c", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  OLC_ASSERT_OK(olc_store_list(&before, s, &e), &e);
  CU_ASSERT_EQUAL_FATAL(olc_record_list_count(before), 5);
  /* Canonical order: backend, operator, level, origin, ... */
  CU_ASSERT_STRING_EQUAL(olc_record_list_get(before, 0)->backend, "cpu_gemm");
  CU_ASSERT_STRING_EQUAL(olc_record_list_get(before, 1)->operator_name, "Conv");
  for (i = 1; i < 5; i++)
    CU_ASSERT(olc_record__identity_cmp(olc_record_list_get(before, i - 1),
                                       olc_record_list_get(before, i)) < 0);
  CU_ASSERT_PTR_NULL(olc_record_list_get(before, 5));

  OLC_ASSERT_OK(olc_store_remove_if(s, is_portable, &calls, &removed, &e), &e);
  CU_ASSERT_EQUAL(removed, 2);
  CU_ASSERT_EQUAL(calls, 5);
  CU_ASSERT_EQUAL(record_count(s), 3);
  /* A list is an independent object: still the five records. */
  CU_ASSERT_EQUAL(olc_record_list_count(before), 5);
  CU_ASSERT_STRING_EQUAL(olc_record_list_get(before, 4)->policy, "a");
  olc_record_list_free(before);
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_remove_if(s, NULL, NULL, &removed, &e), &e);
  olc_store_free(s);
}

static void test_results_outlive_store(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  olc_error e;
  OLC_ASSERT_OK(tsu_put(s, &k, "kept", OLC_LEVELS_DEFAULT, 0, &e), &e);
  o.key = &k;
  OLC_ASSERT_OK(olc_store_lookup(&res, s, &o, &e), &e);
  OLC_ASSERT_OK(tsu_put(s, &k, "replaced", OLC_LEVELS_DEFAULT, 0, &e), &e);
  olc_store_free(s);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "kept");
  olc_lookup_result_free(res);
  olc_lookup_result_free(NULL);
  olc_record_list_free(NULL);
  olc_store_free(NULL);
}

static void test_persistence_off_makes_no_fs_call(void) {
  const char *path = "/nonexistent-olc-dir-for-tests/sub/calibration_profiles.txt";
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_lookup_options lo = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  olc_record_list *l = NULL;
  olc_store *s = NULL;
  struct stat st;
  uint64_t before;
  size_t n;
  olc_error e;
  o.path = path;
  o.persistence_enabled = 0;
  before = olc_persist__call_count();
  OLC_ASSERT_OK(olc_store_open(&s, &o, &e), &e);
  CU_ASSERT_PTR_NULL(olc_store_path(s));
  OLC_ASSERT_OK(tsu_put(s, &k, "cal", OLC_LEVELS_DEFAULT, 0, &e), &e);
  OLC_ASSERT_OK(tsu_put(s, &k, "ovr", OLC_LEVELS_DEFAULT, 1, &e), &e);
  lo.key = &k;
  OLC_ASSERT_OK(olc_store_lookup(&res, s, &lo, &e), &e);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "ovr");
  olc_lookup_result_free(res);
  OLC_ASSERT_OK(olc_store_list(&l, s, &e), &e);
  CU_ASSERT_EQUAL(olc_record_list_count(l), 4);
  olc_record_list_free(l);
  OLC_ASSERT_OK(olc_store_remove_override(s, &k, OLC_LEVELS_DEFAULT, &e), &e);
  OLC_ASSERT_OK(olc_store_remove_if(s, is_portable, &(int){0}, &n, &e), &e);
  OLC_ASSERT_OK(olc_store_reload(s, &e), &e);
  OLC_ASSERT_OK(olc_store_load_status(s, &e), &e);
  OLC_ASSERT_STATUS(OLC_E_DISABLED, olc_store_import_file(s, path, NULL, &e), &e);
  OLC_ASSERT_STATUS(OLC_E_DISABLED, olc_store_export_file(s, path, 0, &e), &e);
  OLC_ASSERT_STATUS(OLC_E_DISABLED, olc_store_repair(s, 0, NULL, 0, &e), &e);
  olc_store_free(s);
  CU_ASSERT_EQUAL(olc_persist__call_count(), before);
  CU_ASSERT_NOT_EQUAL(stat(path, &st), 0);
  CU_ASSERT_NOT_EQUAL(stat("/nonexistent-olc-dir-for-tests", &st), 0);
}

static void test_strings_and_version(void) {
  olc_record r;
  char expected[32];
  memset(&r, 0, sizeof r);
  CU_ASSERT_STRING_EQUAL(olc_level_str(OLC_LEVEL_EXACT), "exact");
  CU_ASSERT_STRING_EQUAL(olc_level_str(OLC_LEVEL_PORTABLE), "portable");
  CU_ASSERT_STRING_EQUAL(olc_origin_str(OLC_ORIGIN_CALIBRATED), "calibrated");
  CU_ASSERT_STRING_EQUAL(olc_origin_str(OLC_ORIGIN_OVERRIDE), "override");
  CU_ASSERT_STRING_EQUAL(olc_reason_str(OLC_REASON_OUTDATED_IMPLEMENTATION),
                         "outdated_implementation");
  CU_ASSERT_STRING_EQUAL(olc_reason_str(OLC_REASON_DIFFERENT_IDENTITY), "different_identity");
  CU_ASSERT_STRING_EQUAL(olc_reason_str((olc_reason)99), "unknown");
  r.level = OLC_LEVEL_EXACT;
  r.origin = OLC_ORIGIN_OVERRIDE;
  CU_ASSERT_EQUAL(olc_record_precedence(&r), OLC_PRECEDENCE_EXACT_OVERRIDE);
  r.level = OLC_LEVEL_PORTABLE;
  CU_ASSERT_EQUAL(olc_record_precedence(&r), OLC_PRECEDENCE_PORTABLE_OVERRIDE);
  r.origin = OLC_ORIGIN_CALIBRATED;
  CU_ASSERT_EQUAL(olc_record_precedence(&r), OLC_PRECEDENCE_PORTABLE_CALIBRATED);
  r.level = OLC_LEVEL_EXACT;
  CU_ASSERT_EQUAL(olc_record_precedence(&r), OLC_PRECEDENCE_EXACT_CALIBRATED);
#ifdef OLC_EXPECTED_VERSION
  snprintf(expected, sizeof expected, "%s", OLC_EXPECTED_VERSION);
#else
  snprintf(expected, sizeof expected, "%s", olc_version());
#endif
  CU_ASSERT_STRING_EQUAL(olc_version(), expected);
}

static void test_open_options(void) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_error e;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_open(NULL, &o, &e), &e);
  o.version = OLC_STORE_OPTIONS_VERSION + 1;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_open(&s, &o, &e), &e);
  CU_ASSERT_PTR_NULL(s);
  o.version = OLC_STORE_OPTIONS_VERSION;
  o.path = "";
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_open(&s, &o, &e), &e);
}

int main(int argc, char **argv) {
  CU_pSuite suite;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  suite = CU_add_suite("store", NULL, NULL);
  CU_add_test(suite, "key_validation", test_key_validation);
  CU_add_test(suite, "serializer_and_validator", test_serializer_and_validator);
  CU_add_test(suite, "override_and_remove", test_override_and_remove);
  CU_add_test(suite, "remove_if_and_list", test_remove_if_and_list);
  CU_add_test(suite, "results_outlive_store", test_results_outlive_store);
  CU_add_test(suite, "persistence_off_makes_no_fs_call", test_persistence_off_makes_no_fs_call);
  CU_add_test(suite, "strings_and_version", test_strings_and_version);
  CU_add_test(suite, "open_options", test_open_options);
  return olc_test_run(argc, argv);
}
