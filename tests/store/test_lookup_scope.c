/*
 * tests/store/test_lookup_scope.c - lookups scoped to one workload
 * (OLC_LOOKUP_SCOPE_WORKLOAD): on a store of many shapes only the records
 * of the key's workload are listed and the others counted; every rejection
 * reason still arises in scope; legacy records of the key's model are
 * reported and never selected; portable records and the .rst's example key
 * (an exact digest without a workload) are found; the key scope is the
 * default and other scopes are refused.  test_lookup_scope_model.c holds the rule against random
 * stores.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "test_store_util.h"

#define MODEL "sha256:aa"
#define MODEL_B "sha256:bb"
#define LEGACY_MESSAGE                                                                             \
  "recorded for model \"sha256:aa\" before records were per workload (recalibrated)"

/* One cpu_gemm MatMul shape (m varies) and its key; initialized in place,
 * never copied (the key points into it). */
typedef struct shape {
  char m[16], digest[160];
  olc_property props[4];
  olc_key key;
} shape;

/* model NULL: a "workload:" digest; legacy: the bare model digest. */
static void shape_init(shape *sh, const char *model, int legacy, int m, const char *impl,
                       const char *proc, int64_t threads) {
  olc_error e;
  memset(sh, 0, sizeof *sh);
  snprintf(sh->m, sizeof sh->m, "%d", m);
  sh->props[0].name = "n";
  sh->props[0].value = "64";
  sh->props[1].name = "m";
  sh->props[1].value = sh->m;
  sh->props[2].name = "k";
  sh->props[2].value = "64";
  sh->props[3].name = "dtype";
  sh->props[3].value = "float32";
  if (legacy)
    snprintf(sh->digest, sizeof sh->digest, "%s", model);
  else
    OLC_ASSERT_OK(
        olc_store_workload_digest(sh->digest, sizeof sh->digest, NULL, model, sh->props, 4, &e),
        &e);
  sh->key.backend = "cpu_gemm";
  sh->key.operator_name = "MatMul";
  sh->key.implementation = impl;
  sh->key.model_digest = sh->digest;
  sh->key.processor = proc;
  sh->key.thread_count = threads;
  sh->key.structure = sh->props;
  sh->key.structure_count = 4;
}

static void put_shape(olc_store *s, const char *model, int legacy, int m, const char *impl,
                      const char *proc, int64_t threads, unsigned levels, const char *policy) {
  shape sh;
  olc_error e;
  shape_init(&sh, model, legacy, m, impl, proc, threads);
  OLC_ASSERT_OK(tsu_put(s, &sh.key, policy, levels, 0, &e), &e);
}

/* Shapes 1..n of MODEL (both levels), except the one at skip. */
static void put_noise(olc_store *s, int n, int skip) {
  int m;
  for (m = 1; m <= n; m++)
    if (m != skip)
      put_shape(s, MODEL, 0, m, "2", "cpu", 8, OLC_LEVELS_DEFAULT, "noise");
}

static olc_status reject_bad(const unsigned char *policy, size_t len, void *payload, char *msg,
                             size_t size) {
  (void)payload;
  if (len >= 3 && memcmp(policy, "bad", 3) == 0) {
    snprintf(msg, size, "kernel avx9 is unknown");
    return OLC_E_INVALID;
  }
  return OLC_OK;
}

static olc_lookup_result *lookup(olc_store *s, const olc_key *k, int scope, int force_portable,
                                 int all, olc_status expect) {
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  olc_error e;
  o.key = k;
  o.scope = scope;
  o.force_portable = force_portable;
  o.all_candidates = all;
  o.validate = reject_bad;
  OLC_ASSERT_STATUS(expect, olc_store_lookup(&res, s, &o, &e), &e);
  CU_ASSERT_PTR_NOT_NULL_FATAL(res);
  return res;
}

static size_t bucket_size(olc_store *s) {
  olc_record_list *l = NULL;
  olc_error e;
  size_t i, n = 0;
  OLC_ASSERT_OK(olc_store_list(&l, s, &e), &e);
  for (i = 0; i < olc_record_list_count(l); i++)
    n += strcmp(olc_record_list_get(l, i)->backend, "cpu_gemm") == 0;
  olc_record_list_free(l);
  return n;
}

static void test_many_shapes(void) {
  olc_store *s = tsu_open_memory();
  olc_lookup_result *res;
  shape t;
  size_t i, bucket;
  put_noise(s, 200, 0);
  put_shape(s, MODEL, 0, 100, "1", "cpu", 8, OLC_LEVELS_DEFAULT, "old");
  put_shape(s, MODEL, 0, 100, "2", "cpu-b", 8, OLC_LEVEL_BIT_EXACT, "other cpu");
  put_shape(s, MODEL, 0, 100, "2", "cpu", 4, OLC_LEVEL_BIT_EXACT, "4 threads");
  put_shape(s, MODEL_B, 0, 100, "2", "cpu", 8, OLC_LEVEL_BIT_EXACT, "changed model");
  put_shape(s, MODEL, 0, 7, "2", "cpu-b", 8, OLC_LEVEL_BIT_EXACT, "two fields");
  put_shape(s, MODEL, 1, 0, "2", "cpu", 4, OLC_LEVEL_BIT_EXACT, "legacy");
  /* An operator of its own is in no count. */
  shape_init(&t, MODEL, 0, 100, "2", "cpu", 8);
  t.key.operator_name = "Conv";
  OLC_ASSERT_OK(tsu_put(s, &t.key, "conv", OLC_LEVELS_DEFAULT, 0, NULL), NULL);
  bucket = bucket_size(s) - 2;
  CU_ASSERT_EQUAL(bucket, 400 + 7);
  shape_init(&t, MODEL, 0, 100, "2", "cpu", 8);

  res = lookup(s, &t.key, OLC_LOOKUP_SCOPE_WORKLOAD, 0, 0, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "noise");
  CU_ASSERT_STRING_EQUAL(olc_lookup_result_selected(res)->model_digest, t.digest);
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), 7);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_OUTDATED_IMPLEMENTATION), 2);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_DIFFERENT_PROCESSOR), 1);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_DIFFERENT_THREAD_COUNT), 1);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_DIFFERENT_MODEL), 2); /* bb, legacy */
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_SHADOWED), 1);
  for (i = 0; i < olc_lookup_result_rejected_count(res); i++) {
    const olc_record *r = olc_lookup_result_rejected(res, i)->record;
    if (r->level == OLC_LEVEL_PORTABLE) {
      CU_ASSERT_STRING_EQUAL(r->structure[2].value, "100"); /* dtype, k, m, n */
    } else if (strcmp(r->model_digest, MODEL) != 0) {
      CU_ASSERT_STRING_EQUAL(olc_store_workload_of_digest(r->model_digest),
                             olc_store_workload_of_digest(t.digest));
    }
  }
  CU_ASSERT_EQUAL(olc_lookup_result_unlisted_count(res), bucket - 8);
  olc_lookup_result_free(res);

  /* The key scope lists every other shape (it differs in the model digest
   * only) and counts the record that differs in two fields. */
  res = lookup(s, &t.key, OLC_LOOKUP_SCOPE_KEY, 0, 0, OLC_OK);
  CU_ASSERT_STRING_EQUAL(olc_lookup_result_selected(res)->model_digest, t.digest);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_DIFFERENT_MODEL), 199 + 1);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_DIFFERENT_STRUCTURE), 199);
  CU_ASSERT_EQUAL(olc_lookup_result_unlisted_count(res), 2); /* two fields; legacy, 4 threads */
  olc_lookup_result_free(res);

  /* all_candidates wins over the scope. */
  res = lookup(s, &t.key, OLC_LOOKUP_SCOPE_WORKLOAD, 0, 1, OLC_OK);
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), bucket - 1);
  CU_ASSERT_EQUAL(olc_lookup_result_unlisted_count(res), 0);
  olc_lookup_result_free(res);
  CU_ASSERT_EQUAL(olc_lookup_result_unlisted_count(NULL), 0);
  olc_store_free(s);
}

/* A result that lists nothing still counts its bucket (from copies of the
 * key's names), in both scopes; another backend counts none. */
static void test_unlisted_without_candidates(void) {
  olc_store *s = tsu_open_memory();
  olc_lookup_result *res;
  shape t;
  int scope;
  put_noise(s, 5, 0);
  shape_init(&t, "sha256:zz", 0, 99, "9", "cpu-b", 8);
  for (scope = OLC_LOOKUP_SCOPE_KEY; scope <= OLC_LOOKUP_SCOPE_WORKLOAD; scope++) {
    res = lookup(s, &t.key, scope, 0, 0, OLC_E_NOT_FOUND);
    CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), 0);
    olc_store_free(s); /* the result keeps its snapshot */
    s = NULL;
    CU_ASSERT_EQUAL(olc_lookup_result_unlisted_count(res), 10);
    olc_lookup_result_free(res);
    s = tsu_open_memory();
    put_noise(s, 5, 0);
  }
  t.key.backend = "cpu_other";
  res = lookup(s, &t.key, OLC_LOOKUP_SCOPE_WORKLOAD, 0, 0, OLC_E_NOT_FOUND);
  CU_ASSERT_EQUAL(olc_lookup_result_unlisted_count(res), 0);
  olc_lookup_result_free(res);
  olc_store_free(s);
}

/* A store of 50 other shapes plus one record of shape 25 (or two levels);
 * the scoped lookup of shape 25 must give exactly the expected rejections. */
static void expect_in_scope(int impl_rec, const char *model, const char *proc, int64_t threads,
                            unsigned levels, const char *policy, int force_portable,
                            olc_status status, size_t count, olc_reason reason,
                            const char *message) {
  static const char *impls[] = {"1", "2", "3"};
  olc_store *s = tsu_open_memory();
  olc_lookup_result *res;
  const olc_rejection *rj;
  shape t;
  put_noise(s, 50, 25);
  put_shape(s, model, 0, 25, impls[impl_rec], proc, threads, levels, policy);
  shape_init(&t, MODEL, 0, 25, "2", "cpu", 8);
  res = lookup(s, &t.key, OLC_LOOKUP_SCOPE_WORKLOAD, force_portable, 0, status);
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), count);
  CU_ASSERT_EQUAL(olc_lookup_result_unlisted_count(res), 98);
  rj = tsu_find_rejection(res, reason);
  CU_ASSERT_PTR_NOT_NULL_FATAL(rj);
  if (strncmp(rj->message, message, strlen(message)) != 0)
    fprintf(stderr, "\n  message: %s\n  expected: %s\n", rj->message, message);
  CU_ASSERT_EQUAL(strncmp(rj->message, message, strlen(message)), 0);
  olc_lookup_result_free(res);
  olc_store_free(s);
}

static void test_reasons_in_scope(void) {
  const unsigned x = OLC_LEVEL_BIT_EXACT, both = OLC_LEVELS_DEFAULT;
  expect_in_scope(0, MODEL, "cpu", 8, x, "p", 0, OLC_E_NOT_FOUND, 1,
                  OLC_REASON_OUTDATED_IMPLEMENTATION,
                  "implementation is older: record \"1\" vs lookup \"2\"");
  expect_in_scope(2, MODEL, "cpu", 8, x, "p", 0, OLC_E_NOT_FOUND, 1,
                  OLC_REASON_NEWER_IMPLEMENTATION,
                  "implementation is newer: record \"3\" vs lookup \"2\"");
  expect_in_scope(1, MODEL, "cpu-b", 8, x, "p", 0, OLC_E_NOT_FOUND, 1,
                  OLC_REASON_DIFFERENT_PROCESSOR,
                  "processor differs: record \"cpu-b\" vs lookup \"cpu\"");
  expect_in_scope(1, MODEL, "cpu", 4, x, "p", 0, OLC_E_NOT_FOUND, 1,
                  OLC_REASON_DIFFERENT_THREAD_COUNT, "thread_count differs: record 4 vs lookup 8");
  expect_in_scope(1, MODEL_B, "cpu", 8, x, "p", 0, OLC_E_NOT_FOUND, 1, OLC_REASON_DIFFERENT_MODEL,
                  "model_digest differs: record \"sha256:bb#dtype=float32;k=64;m=25;n=64\" vs "
                  "lookup \"sha256:aa#dtype=float32;k=64;m=25;n=64\"");
  expect_in_scope(1, MODEL, "cpu", 8, x, "bad", 0, OLC_E_NOT_FOUND, 1, OLC_REASON_VALIDATION_FAILED,
                  "backend validation failed: kernel avx9 is unknown");
  expect_in_scope(1, MODEL, "cpu", 8, both, "p", 1, OLC_OK, 1, OLC_REASON_FORCE_PORTABLE,
                  "exact level skipped by force_portable");
  expect_in_scope(1, MODEL, "cpu", 8, both, "p", 0, OLC_OK, 1, OLC_REASON_SHADOWED,
                  "shadowed by the selected exact calibrated record");
}

static void test_legacy_records(void) {
  olc_store *s = tsu_open_memory();
  olc_lookup_result *res;
  size_t i;
  shape t;
  put_noise(s, 20, 5);
  put_shape(s, MODEL, 1, 5, "2", "cpu", 8, OLC_LEVEL_BIT_EXACT, "legacy");
  put_shape(s, MODEL, 1, 5, "1", "cpu-b", 8, OLC_LEVEL_BIT_EXACT, "legacy elsewhere");
  put_shape(s, "sha256:cc", 1, 5, "2", "cpu", 8, OLC_LEVEL_BIT_EXACT, "another model");
  shape_init(&t, MODEL, 0, 5, "2", "cpu", 8);

  /* Both legacy records of the model are reported, whatever else differs. */
  res = lookup(s, &t.key, OLC_LOOKUP_SCOPE_WORKLOAD, 0, 0, OLC_E_NOT_FOUND);
  CU_ASSERT_EQUAL_FATAL(olc_lookup_result_rejected_count(res), 2);
  for (i = 0; i < 2; i++) {
    const olc_rejection *rj = olc_lookup_result_rejected(res, i);
    CU_ASSERT_EQUAL(rj->reason, OLC_REASON_DIFFERENT_MODEL);
    CU_ASSERT_STRING_EQUAL(rj->message, LEGACY_MESSAGE);
    CU_ASSERT_STRING_EQUAL(rj->record->model_digest, MODEL);
  }
  olc_lookup_result_free(res);
  /* The key scope lists the one that differs in the digest only, as an
   * ordinary model change, and the other model's too. */
  res = lookup(s, &t.key, OLC_LOOKUP_SCOPE_KEY, 0, 0, OLC_E_NOT_FOUND);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_DIFFERENT_MODEL), 19 + 2);
  olc_lookup_result_free(res);

  /* Never selected, also once the workload has its own record. */
  put_shape(s, MODEL, 0, 5, "2", "cpu", 8, OLC_LEVEL_BIT_EXACT, "per workload");
  res = lookup(s, &t.key, OLC_LOOKUP_SCOPE_WORKLOAD, 0, 0, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "per workload");
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), 2);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_DIFFERENT_MODEL), 2);
  olc_lookup_result_free(res);

  /* A key without a model has no model part: no legacy record is its. */
  shape_init(&t, NULL, 0, 5, "2", "cpu", 8);
  res = lookup(s, &t.key, OLC_LOOKUP_SCOPE_WORKLOAD, 0, 0, OLC_E_NOT_FOUND);
  CU_ASSERT_EQUAL_FATAL(olc_lookup_result_rejected_count(res), 1); /* the same workload */
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_DIFFERENT_MODEL), 1);
  CU_ASSERT_PTR_NULL(strstr(olc_lookup_result_rejected(res, 0)->message, "before records"));
  olc_lookup_result_free(res);
  olc_store_free(s);
}

static void test_portable_in_scope(void) {
  olc_store *s = tsu_open_memory();
  olc_lookup_result *res;
  shape t;
  put_noise(s, 30, 0);
  put_shape(s, MODEL, 0, 9, "1", "cpu", 8, OLC_LEVEL_BIT_PORTABLE, "old portable");
  /* A key without exact identity: only the portable records of its shape. */
  shape_init(&t, MODEL, 0, 9, "2", "cpu", 8);
  t.key.model_digest = NULL;
  t.key.processor = NULL;
  res = lookup(s, &t.key, OLC_LOOKUP_SCOPE_WORKLOAD, 0, 0, OLC_OK);
  CU_ASSERT_EQUAL(olc_lookup_result_selected(res)->level, OLC_LEVEL_PORTABLE);
  CU_ASSERT_STRING_EQUAL(olc_lookup_result_selected(res)->structure[2].value, "9");
  CU_ASSERT_EQUAL_FATAL(olc_lookup_result_rejected_count(res), 1);
  CU_ASSERT_EQUAL(olc_lookup_result_rejected(res, 0)->reason, OLC_REASON_OUTDATED_IMPLEMENTATION);
  CU_ASSERT_EQUAL(olc_lookup_result_unlisted_count(res), 60 - 1);
  olc_lookup_result_free(res);
  res = lookup(s, &t.key, OLC_LOOKUP_SCOPE_KEY, 0, 0, OLC_OK);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_DIFFERENT_STRUCTURE), 29);
  olc_lookup_result_free(res);
  /* An exact key of a workload with only a portable record selects it. */
  shape_init(&t, "sha256:new", 0, 9, "1", "cpu", 8);
  res = lookup(s, &t.key, OLC_LOOKUP_SCOPE_WORKLOAD, 0, 0, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "old portable");
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), 1); /* the newer portable one */
  olc_lookup_result_free(res);
  olc_store_free(s);
}

/* The .rst's key: a digest of the model alone, the structure beside it. */
static void test_rst_example_key(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("3", "sha256:model", "cpu-x", 8), other;
  olc_lookup_result *res;
  char digest[64];
  int i;
  olc_error e;
  OLC_ASSERT_OK(tsu_put(s, &k, "rst", OLC_LEVELS_DEFAULT, 0, &e), &e);
  other = k;
  other.thread_count = 4;
  OLC_ASSERT_OK(tsu_put(s, &other, "four", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  for (i = 0; i < 20; i++) {
    snprintf(digest, sizeof digest, "sha256:other-%d", i);
    other = k;
    other.model_digest = digest;
    OLC_ASSERT_OK(tsu_put(s, &other, "other", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  }
  res = lookup(s, &k, OLC_LOOKUP_SCOPE_WORKLOAD, 0, 0, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "rst");
  CU_ASSERT_EQUAL(olc_lookup_result_selected(res)->level, OLC_LEVEL_EXACT);
  /* Its own digest's records are its workload: the 4-thread one, and the
   * portable one it shadows; the other models are counted. */
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), 2);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_DIFFERENT_THREAD_COUNT), 1);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_SHADOWED), 1);
  CU_ASSERT_EQUAL(olc_lookup_result_unlisted_count(res), 20);
  olc_lookup_result_free(res);
  res = lookup(s, &k, OLC_LOOKUP_SCOPE_KEY, 0, 0, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "rst");
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), 22);
  olc_lookup_result_free(res);
  olc_store_free(s);
}

/* The key scope is the default; a scope that is neither is refused. */
static void test_scope_values(void) {
  olc_store *s = tsu_open_memory();
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  olc_error e;
  shape t;
  CU_ASSERT_EQUAL(o.scope, OLC_LOOKUP_SCOPE_KEY);
  put_noise(s, 10, 3);
  shape_init(&t, MODEL, 0, 3, "2", "cpu", 8);
  o.key = &t.key;
  OLC_ASSERT_STATUS(OLC_E_NOT_FOUND, olc_store_lookup(&res, s, &o, &e), &e);
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), 18); /* the key scope's */
  olc_lookup_result_free(res);
  res = NULL;
  o.scope = -1;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_lookup(&res, s, &o, &e), &e);
  CU_ASSERT_STRING_EQUAL(e.message, "scope -1 is neither OLC_LOOKUP_SCOPE_KEY (0) nor "
                                    "OLC_LOOKUP_SCOPE_WORKLOAD (1)");
  CU_ASSERT_PTR_NULL(res);
  o.scope = 2;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_lookup(&res, s, &o, &e), &e);
  olc_store_free(s);
}

int main(int argc, char **argv) {
  CU_pSuite suite;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  suite = CU_add_suite("lookup_scope", NULL, NULL);
  CU_add_test(suite, "many_shapes", test_many_shapes);
  CU_add_test(suite, "unlisted_without_candidates", test_unlisted_without_candidates);
  CU_add_test(suite, "reasons_in_scope", test_reasons_in_scope);
  CU_add_test(suite, "legacy_records", test_legacy_records);
  CU_add_test(suite, "portable_in_scope", test_portable_in_scope);
  CU_add_test(suite, "rst_example_key", test_rst_example_key);
  CU_add_test(suite, "scope_values", test_scope_values);
  return olc_test_run(argc, argv);
}
