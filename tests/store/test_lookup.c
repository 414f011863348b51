/*
 * tests/store/test_lookup.c - lookup precedence, force_portable, the
 * validator, and every rejection reason (in-memory store).
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "test_store_util.h"

static char validator_payload[] = "payload";

static olc_lookup_result *do_lookup(olc_store *s, const olc_key *key, int force_portable, int all,
                                    olc_validate_fn v, olc_status expect) {
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  olc_error e;
  olc_error_clear(&e);
  o.key = key;
  o.force_portable = force_portable;
  o.all_candidates = all;
  o.validate = v;
  o.validate_payload = validator_payload;
  OLC_ASSERT_STATUS(expect, olc_store_lookup(&res, s, &o, &e), &e);
  CU_ASSERT_PTR_NOT_NULL_FATAL(res);
  return res;
}

static void test_precedence_all_levels(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_lookup_result *res;
  const olc_record *sel;
  olc_error e;
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  OLC_ASSERT_OK(tsu_put(s, &k, "exact-cal", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  OLC_ASSERT_OK(tsu_put(s, &k, "portable-cal", OLC_LEVEL_BIT_PORTABLE, 0, &e), &e);
  OLC_ASSERT_OK(tsu_put(s, &k, "exact-ovr", OLC_LEVEL_BIT_EXACT, 1, &e), &e);
  OLC_ASSERT_OK(tsu_put(s, &k, "portable-ovr", OLC_LEVEL_BIT_PORTABLE, 1, &e), &e);

  res = do_lookup(s, &k, 0, 0, NULL, OLC_OK);
  sel = olc_lookup_result_selected(res);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "exact-ovr");
  CU_ASSERT_EQUAL(sel->level, OLC_LEVEL_EXACT);
  CU_ASSERT_EQUAL(sel->origin, OLC_ORIGIN_OVERRIDE);
  CU_ASSERT_EQUAL(olc_record_precedence(sel), OLC_PRECEDENCE_EXACT_OVERRIDE);
  CU_ASSERT_EQUAL(sel->measurement_count, 2);
  CU_ASSERT_STRING_EQUAL(sel->measurements[0].name, "median_latency");
  CU_ASSERT_EQUAL(sel->measurements[0].value, 2.5);
  CU_ASSERT_STRING_EQUAL(sel->measurements[0].unit, "us");
  CU_ASSERT_EQUAL(sel->policy_len, strlen("exact-ovr"));
  /* The three lower levels are shadowed, in precedence order. */
  CU_ASSERT_EQUAL_FATAL(olc_lookup_result_rejected_count(res), 3);
  CU_ASSERT_EQUAL(olc_lookup_result_rejected(res, 0)->reason, OLC_REASON_SHADOWED);
  CU_ASSERT_STRING_EQUAL(olc_lookup_result_rejected(res, 0)->record->policy, "portable-ovr");
  CU_ASSERT_STRING_EQUAL(olc_lookup_result_rejected(res, 1)->record->policy, "exact-cal");
  CU_ASSERT_STRING_EQUAL(olc_lookup_result_rejected(res, 2)->record->policy, "portable-cal");
  CU_ASSERT_PTR_NOT_NULL(strstr(olc_lookup_result_rejected(res, 0)->message, "exact override"));
  olc_lookup_result_free(res);

  OLC_ASSERT_OK(olc_store_remove_override(s, &k, OLC_LEVEL_BIT_EXACT, &e), &e);
  res = do_lookup(s, &k, 0, 0, NULL, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "portable-ovr");
  CU_ASSERT_EQUAL(olc_record_precedence(olc_lookup_result_selected(res)),
                  OLC_PRECEDENCE_PORTABLE_OVERRIDE);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_SHADOWED), 2);
  olc_lookup_result_free(res);

  OLC_ASSERT_OK(olc_store_remove_override(s, &k, OLC_LEVEL_BIT_PORTABLE, &e), &e);
  res = do_lookup(s, &k, 0, 0, NULL, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "exact-cal");
  CU_ASSERT_EQUAL(olc_record_precedence(olc_lookup_result_selected(res)),
                  OLC_PRECEDENCE_EXACT_CALIBRATED);
  olc_lookup_result_free(res);

  /* A key without exact identity reaches only the portable level. */
  k.model_digest = NULL;
  k.processor = NULL;
  res = do_lookup(s, &k, 0, 0, NULL, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "portable-cal");
  CU_ASSERT_EQUAL(olc_record_precedence(olc_lookup_result_selected(res)),
                  OLC_PRECEDENCE_PORTABLE_CALIBRATED);
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), 0);
  olc_lookup_result_free(res);
  olc_store_free(s);
}

static void test_force_portable(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_lookup_result *res;
  const olc_rejection *rj;
  olc_error e;
  OLC_ASSERT_OK(tsu_put(s, &k, "both", OLC_LEVELS_DEFAULT, 0, &e), &e);
  OLC_ASSERT_OK(tsu_put(s, &k, "exact-ovr", OLC_LEVEL_BIT_EXACT, 1, &e), &e);
  res = do_lookup(s, &k, 1, 0, NULL, OLC_OK);
  CU_ASSERT_EQUAL(olc_lookup_result_selected(res)->level, OLC_LEVEL_PORTABLE);
  CU_ASSERT_EQUAL(olc_lookup_result_selected(res)->origin, OLC_ORIGIN_CALIBRATED);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_FORCE_PORTABLE), 2);
  rj = tsu_find_rejection(res, OLC_REASON_FORCE_PORTABLE);
  CU_ASSERT_EQUAL_FATAL(rj != NULL, 1);
  CU_ASSERT_EQUAL(rj->record->level, OLC_LEVEL_EXACT);
  CU_ASSERT_PTR_NOT_NULL(strstr(rj->message, "force_portable"));
  olc_lookup_result_free(res);
  olc_store_free(s);
}

static olc_status reject_bad(const unsigned char *policy, size_t len, void *payload, char *msg,
                             size_t size) {
  CU_ASSERT_STRING_EQUAL(payload, "payload");
  CU_ASSERT_EQUAL(policy[len], 0);
  if (len >= 3 && memcmp(policy, "bad", 3) == 0) {
    snprintf(msg, size, "tile size 7 is not a multiple of 4");
    return OLC_E_INVALID;
  }
  return OLC_OK;
}

static void test_validator_falls_through(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_lookup_result *res;
  const olc_rejection *rj;
  olc_error e;
  OLC_ASSERT_OK(tsu_put(s, &k, "bad-ovr", OLC_LEVEL_BIT_EXACT, 1, &e), &e);
  OLC_ASSERT_OK(tsu_put(s, &k, "bad-portable-ovr", OLC_LEVEL_BIT_PORTABLE, 1, &e), &e);
  OLC_ASSERT_OK(tsu_put(s, &k, "good", OLC_LEVELS_DEFAULT, 0, &e), &e);
  res = do_lookup(s, &k, 0, 0, reject_bad, OLC_OK);
  CU_ASSERT_STRING_EQUAL(tsu_selected_policy(res), "good");
  CU_ASSERT_EQUAL(olc_lookup_result_selected(res)->level, OLC_LEVEL_EXACT);
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_VALIDATION_FAILED), 2);
  rj = tsu_find_rejection(res, OLC_REASON_VALIDATION_FAILED);
  CU_ASSERT_PTR_NOT_NULL(strstr(rj->message, "tile size 7 is not a multiple of 4"));
  CU_ASSERT_STRING_EQUAL(rj->record->policy, "bad-ovr");
  /* The portable calibrated record below the winner is shadowed. */
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_SHADOWED), 1);
  olc_lookup_result_free(res);

  /* Every level fails: nothing selected, the rejections still reported. */
  OLC_ASSERT_OK(tsu_put(s, &k, "bad-cal", OLC_LEVELS_DEFAULT, 0, &e), &e);
  res = do_lookup(s, &k, 0, 0, reject_bad, OLC_E_NOT_FOUND);
  CU_ASSERT_PTR_NULL(olc_lookup_result_selected(res));
  CU_ASSERT_EQUAL(tsu_count_rejections(res, OLC_REASON_VALIDATION_FAILED), 4);
  olc_lookup_result_free(res);
  olc_store_free(s);
}

static void expect_single(olc_store *s, const olc_key *lookup, olc_reason reason,
                          const char *message) {
  olc_lookup_result *res = do_lookup(s, lookup, 0, 0, NULL, OLC_E_NOT_FOUND);
  const olc_rejection *rj = tsu_find_rejection(res, reason);
  CU_ASSERT_PTR_NOT_NULL(rj);
  if (rj != NULL && message != NULL) {
    if (strcmp(rj->message, message) != 0)
      fprintf(stderr, "\n  message: %s\n  expected: %s\n", rj->message, message);
    CU_ASSERT_STRING_EQUAL(rj->message, message);
  }
  olc_lookup_result_free(res);
}

static void test_rejection_reasons(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("10", "model-a", "cpu-x", 8), q;
  olc_property other[2] = {{"dtype", "float32"}, {"shape", "m,n,4096"}};
  olc_error e;
  OLC_ASSERT_OK(tsu_put(s, &k, "p", OLC_LEVELS_DEFAULT, 0, &e), &e);

  q = tsu_key("9", "model-a", "cpu-x", 8); /* the record's "10" is newer than "9" */
  expect_single(s, &q, OLC_REASON_NEWER_IMPLEMENTATION,
                "implementation is newer: record \"10\" vs lookup \"9\"");
  q = tsu_key("11", "model-a", "cpu-x", 8);
  expect_single(s, &q, OLC_REASON_OUTDATED_IMPLEMENTATION,
                "implementation is older: record \"10\" vs lookup \"11\"");
  q = tsu_key("10", "model-b", "cpu-x", 8);
  q.structure = other;
  expect_single(s, &q, OLC_REASON_DIFFERENT_MODEL,
                "model_digest differs: record \"model-a\" vs lookup \"model-b\"");
  q = tsu_key("10", "model-a", "cpu-y", 8);
  q.structure = other;
  expect_single(s, &q, OLC_REASON_DIFFERENT_PROCESSOR,
                "processor differs: record \"cpu-x\" vs lookup \"cpu-y\"");
  q = tsu_key("10", "model-a", "cpu-x", 4);
  q.structure = other;
  expect_single(s, &q, OLC_REASON_DIFFERENT_THREAD_COUNT,
                "thread_count differs: record 8 vs lookup 4");
  q = tsu_key("10", "model-b", "cpu-x", 8);
  q.structure = other;
  expect_single(s, &q, OLC_REASON_DIFFERENT_STRUCTURE,
                "structure differs: record {dtype=\"float16\", shape=\"m,n,4096\"} vs lookup "
                "{dtype=\"float32\", shape=\"m,n,4096\"}");
  olc_store_free(s);
}

static void test_messages_stay_one_line(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("1", "model-a", "cpu\nx\"y", 8), q;
  olc_lookup_result *res;
  const olc_rejection *rj;
  olc_error e;
  OLC_ASSERT_OK(tsu_put(s, &k, "p", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  q = tsu_key("1", "model-a", "cpu-y", 8);
  res = do_lookup(s, &q, 0, 0, NULL, OLC_E_NOT_FOUND);
  rj = tsu_find_rejection(res, OLC_REASON_DIFFERENT_PROCESSOR);
  CU_ASSERT_PTR_NOT_NULL_FATAL(rj);
  CU_ASSERT_PTR_NULL(strchr(rj->message, '\n'));
  CU_ASSERT_STRING_EQUAL(rj->message,
                         "processor differs: record \"cpu\\x0ax\\\"y\" vs lookup \"cpu-y\"");
  olc_lookup_result_free(res);
  olc_store_free(s);
}

static void test_all_candidates(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8), q, other_op;
  olc_lookup_result *res;
  const olc_rejection *rj;
  olc_error e;
  OLC_ASSERT_OK(tsu_put(s, &k, "p", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
  other_op = k;
  other_op.operator_name = "Conv";
  OLC_ASSERT_OK(tsu_put(s, &other_op, "conv", OLC_LEVELS_DEFAULT, 0, &e), &e);
  /* Differs in processor and thread count: not a candidate by default. */
  q = tsu_key("3", "model-a", "cpu-y", 4);
  q.structure_count = 0;
  res = do_lookup(s, &q, 0, 0, NULL, OLC_E_NOT_FOUND);
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(res), 0);
  olc_lookup_result_free(res);
  res = do_lookup(s, &q, 0, 1, NULL, OLC_E_NOT_FOUND);
  /* Only the MatMul record: other operators are never reported. */
  CU_ASSERT_EQUAL_FATAL(olc_lookup_result_rejected_count(res), 1);
  rj = olc_lookup_result_rejected(res, 0);
  CU_ASSERT_EQUAL(rj->reason, OLC_REASON_DIFFERENT_IDENTITY);
  CU_ASSERT_STRING_EQUAL(rj->message, "identity differs in processor, thread_count");
  CU_ASSERT_STRING_EQUAL(rj->record->operator_name, "MatMul");
  olc_lookup_result_free(res);
  olc_store_free(s);
}

static void test_lookup_rejects_bad_keys(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_property dup[2] = {{"dtype", "a"}, {"dtype", "b"}};
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  olc_error e;
  o.key = &k;
  k.backend = "";
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_lookup(&res, s, &o, &e), &e);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "backend"));
  CU_ASSERT_PTR_NULL(res);
  k = tsu_key("3", "model-a", "cpu-x", 8);
  k.structure = dup;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_lookup(&res, s, &o, &e), &e);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "\"dtype\""));
  o.key = NULL;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_lookup(&res, s, &o, &e), &e);
  o.key = &k;
  o.version = 99;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_lookup(&res, s, &o, &e), &e);
  olc_store_free(s);
}

static void test_version_order(void) {
  CU_ASSERT(olc_store__version_cmp("10", "9") > 0);
  CU_ASSERT(olc_store__version_cmp("9", "10") < 0);
  CU_ASSERT(olc_store__version_cmp("1.10", "1.9") > 0);
  CU_ASSERT(olc_store__version_cmp("1.2.3", "1.2.3") == 0);
  CU_ASSERT(olc_store__version_cmp("03", "3") == 0);
  CU_ASSERT(olc_store__version_cmp("2a", "2b") < 0);
  CU_ASSERT(olc_store__version_cmp("2", "2.1") < 0);
  CU_ASSERT(olc_store__version_cmp("v100", "v20") > 0);
}

static void test_unsorted_structure_matches(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("3", "model-a", "cpu-x", 8);
  olc_property sorted[2] = {{"dtype", "float16"}, {"shape", "m,n,4096"}};
  olc_lookup_result *res;
  olc_error e;
  OLC_ASSERT_OK(tsu_put(s, &k, "p", OLC_LEVEL_BIT_PORTABLE, 0, &e), &e);
  k.structure = sorted; /* same set, other order */
  k.model_digest = NULL;
  k.processor = NULL;
  res = do_lookup(s, &k, 0, 0, NULL, OLC_OK);
  CU_ASSERT_STRING_EQUAL(olc_lookup_result_selected(res)->structure[0].name, "dtype");
  CU_ASSERT_PTR_NULL(olc_lookup_result_selected(res)->model_digest);
  olc_lookup_result_free(res);
  olc_store_free(s);
}

/* The candidate index (default lookups) must report exactly what a scan of
 * the whole bucket (all_candidates) reports, less DIFFERENT_IDENTITY. */
static void test_index_agrees_with_scan(void) {
  static const char *impls[] = {"1", "2", "10"};
  static const char *models[] = {"ma", "mb", "mc"};
  static const char *procs[] = {"px", "py"};
  static const olc_property s1[1] = {{"dtype", "f16"}};
  static const olc_property s2[2] = {{"dtype", "f32"}, {"n", "4"}};
  olc_store *s = tsu_open_memory();
  unsigned seed = 12345u;
  int i, round;
  olc_error e;
  for (i = 0; i < 200; i++) {
    olc_key k = tsu_key(impls[i % 3], models[(i / 3) % 3], procs[(i / 9) % 2], 1 + (i / 18) % 2);
    k.structure = (i / 36) % 2 ? s2 : s1;
    k.structure_count = (i / 36) % 2 ? 2 : 1;
    OLC_ASSERT_OK(tsu_put(s, &k, "p", OLC_LEVELS_DEFAULT, (i / 72) % 2, &e), &e);
  }
  for (round = 0; round < 300; round++) {
    olc_lookup_result *a, *b;
    olc_key k;
    size_t ia, ib;
    seed = seed * 1103515245u + 12345u;
    k = tsu_key(impls[(seed >> 8) % 3], models[(seed >> 12) % 3], procs[(seed >> 16) % 2],
                1 + (int64_t)((seed >> 20) % 3));
    k.structure = (seed >> 24) % 2 ? s2 : s1;
    k.structure_count = (seed >> 24) % 2 ? 2 : (seed >> 25) % 2;
    if ((seed >> 27) % 4 == 0) {
      k.model_digest = NULL;
      k.processor = NULL;
    }
    {
      olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
      o.key = &k;
      o.force_portable = (int)((seed >> 29) % 2);
      a = NULL;
      b = NULL;
      (void)olc_store_lookup(&a, s, &o, &e);
      o.all_candidates = 1;
      (void)olc_store_lookup(&b, s, &o, &e);
    }
    CU_ASSERT_FATAL(a != NULL && b != NULL);
    CU_ASSERT_PTR_EQUAL(olc_lookup_result_selected(a), olc_lookup_result_selected(b));
    for (ia = 0, ib = 0; ib < olc_lookup_result_rejected_count(b); ib++) {
      const olc_rejection *rb = olc_lookup_result_rejected(b, ib), *ra;
      if (rb->reason == OLC_REASON_DIFFERENT_IDENTITY)
        continue;
      ra = olc_lookup_result_rejected(a, ia++);
      CU_ASSERT_PTR_NOT_NULL_FATAL(ra);
      CU_ASSERT_PTR_EQUAL(ra->record, rb->record);
      CU_ASSERT_EQUAL(ra->reason, rb->reason);
      CU_ASSERT_STRING_EQUAL(ra->message, rb->message);
    }
    CU_ASSERT_EQUAL(ia, olc_lookup_result_rejected_count(a));
    olc_lookup_result_free(a);
    olc_lookup_result_free(b);
  }
  olc_store_free(s);
}

/* olc_snapshot__bucket against a count over the whole set, for buckets of
 * 0 to 40 records between others of every size. */
static void test_bucket_bounds(void) {
  olc_store *s = tsu_open_memory();
  olc_snapshot *snap;
  char op[16], proc[16];
  int i, j;
  olc_error e;
  for (i = 1; i <= 40; i += 1 + i / 8) {
    for (j = 0; j < i; j++) {
      olc_key k = tsu_key("1", "m", proc, 1);
      snprintf(op, sizeof op, "Op%02d", i);
      snprintf(proc, sizeof proc, "p%d", j);
      k.operator_name = op;
      OLC_ASSERT_OK(tsu_put(s, &k, "p", OLC_LEVEL_BIT_EXACT, 0, &e), &e);
    }
  }
  snap = olc_store__acquire(s);
  for (i = 0; i <= 41; i++) {
    size_t first = 0, count = 0, want_first = snap->set.count, want = 0, r;
    snprintf(op, sizeof op, "Op%02d", i);
    for (r = 0; r < snap->set.count; r++)
      if (strcmp(snap->set.recs[r].operator_name, op) == 0 && want++ == 0)
        want_first = r;
    olc_snapshot__bucket(snap, "example_gpu", op, &first, &count);
    CU_ASSERT_EQUAL(count, want);
    if (want > 0)
      CU_ASSERT_EQUAL(first, want_first);
  }
  {
    size_t first, count = 1;
    olc_snapshot__bucket(snap, "zzz", "Op01", &first, &count); /* after every record */
    CU_ASSERT_EQUAL(count, 0);
    olc_snapshot__bucket(snap, "a", "Op01", &first, &count); /* before every record */
    CU_ASSERT_EQUAL(count, 0);
  }
  olc_snapshot__unref(snap);
  olc_store_free(s);
}

int main(int argc, char **argv) {
  CU_pSuite suite;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  suite = CU_add_suite("lookup", NULL, NULL);
  CU_add_test(suite, "precedence_all_levels", test_precedence_all_levels);
  CU_add_test(suite, "force_portable", test_force_portable);
  CU_add_test(suite, "validator_falls_through", test_validator_falls_through);
  CU_add_test(suite, "rejection_reasons", test_rejection_reasons);
  CU_add_test(suite, "messages_stay_one_line", test_messages_stay_one_line);
  CU_add_test(suite, "all_candidates", test_all_candidates);
  CU_add_test(suite, "lookup_rejects_bad_keys", test_lookup_rejects_bad_keys);
  CU_add_test(suite, "version_order", test_version_order);
  CU_add_test(suite, "unsorted_structure_matches", test_unsorted_structure_matches);
  CU_add_test(suite, "index_agrees_with_scan", test_index_agrees_with_scan);
  CU_add_test(suite, "bucket_bounds", test_bucket_bounds);
  return olc_test_run(argc, argv);
}
