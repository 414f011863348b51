/*
 * tests/record/test_record.c - the in-memory record set: deep copies, the
 * identity order, stable sorting, duplicates, normalizing, property
 * sorting.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"
#include "test_support.h"

static olc_record exact(const char *backend, const char *op, const char *impl, const char *digest,
                        const char *proc, int64_t threads) {
  olc_record r;
  memset(&r, 0, sizeof(r));
  r.level = OLC_LEVEL_EXACT;
  r.backend = backend;
  r.operator_name = op;
  r.implementation = impl;
  r.model_digest = digest;
  r.processor = proc;
  r.thread_count = threads;
  r.policy = (const unsigned char *)"p";
  r.policy_len = 1;
  return r;
}

static olc_record portable(const char *backend, const char *op, const char *impl,
                           const olc_property *props, size_t n) {
  olc_record r;
  memset(&r, 0, sizeof(r));
  r.level = OLC_LEVEL_PORTABLE;
  r.backend = backend;
  r.operator_name = op;
  r.implementation = impl;
  r.structure = props;
  r.structure_count = n;
  return r;
}

static void test_append_copy(void) {
  olc_recset set;
  char backend[] = "gpu", policy[] = {'a', 0, 'b'};
  olc_property props[1] = {{"dtype", "f16"}};
  olc_measurement ms[1] = {{"lat", 2.5, "us"}};
  olc_record r = exact(backend, "MatMul", "3", "d", "p", 8);
  const olc_record *c;
  size_t i;

  olc_recset__init(&set);
  r.measurements = ms;
  r.measurement_count = 1;
  r.policy = (const unsigned char *)policy;
  r.policy_len = 3;
  OLC_ASSERT_OK(olc_recset__append_copy(&set, &r), NULL);
  backend[0] = 'X'; /* the copy owns its bytes */
  c = &set.recs[0];
  CU_ASSERT_STRING_EQUAL(c->backend, "gpu");
  CU_ASSERT_PTR_NOT_EQUAL(c->backend, backend);
  CU_ASSERT_PTR_NOT_EQUAL(c->measurements, ms);
  CU_ASSERT_STRING_EQUAL(c->measurements[0].unit, "us");
  CU_ASSERT_EQUAL(c->measurements[0].value, 2.5);
  CU_ASSERT_EQUAL(c->policy_len, 3);
  CU_ASSERT(memcmp(c->policy, "a\0b", 4) == 0); /* plus a terminating NUL */
  /* a portable copy keeps NULL exact fields and copies the structure */
  r = portable("gpu", "MatMul", "3", props, 1);
  OLC_ASSERT_OK(olc_recset__append_copy(&set, &r), NULL);
  c = &set.recs[1];
  CU_ASSERT_PTR_NULL(c->model_digest);
  CU_ASSERT_PTR_NULL(c->processor);
  CU_ASSERT_PTR_NOT_EQUAL(c->structure, props);
  CU_ASSERT_STRING_EQUAL(c->structure[0].value, "f16");
  CU_ASSERT_PTR_NOT_NULL(c->policy);
  CU_ASSERT_EQUAL(c->policy_len, 0);
  /* growth past the initial capacity keeps the contents */
  for (i = 0; i < 100; i++) {
    r = exact("gpu", "Add", "1", "d", "p", (int64_t)i);
    OLC_ASSERT_OK(olc_recset__append_copy(&set, &r), NULL);
  }
  CU_ASSERT_EQUAL(set.count, 102);
  CU_ASSERT_EQUAL(set.recs[101].thread_count, 99);
  CU_ASSERT_STRING_EQUAL(set.recs[0].backend, "gpu");
  {
    olc_record *z = olc_recset__append(&set);
    CU_ASSERT_PTR_NOT_NULL_FATAL(z);
    CU_ASSERT_PTR_NULL(z->backend);
    CU_ASSERT_EQUAL(z->policy_len, 0);
  }
  olc_recset__free(&set);
  CU_ASSERT_EQUAL(set.count, 0);
  olc_recset__free(&set); /* twice is fine */
  olc_recset__free(NULL);
}

static void test_identity_cmp(void) {
  olc_property s1[2] = {{"dtype", "f16"}, {"shape", "4"}};
  olc_property s2[2] = {{"dtype", "f16"}, {"shape", "5"}};
  olc_property s3[1] = {{"dtype", "f16"}};
  olc_record a = exact("gpu", "MatMul", "3", "d", "p", 8), b;

  b = a;
  CU_ASSERT_EQUAL(olc_record__identity_cmp(&a, &b), 0);
  b.measurement_count = 0; /* measurements and policy are not identity */
  b.policy_len = 0;
  CU_ASSERT_EQUAL(olc_record__identity_cmp(&a, &b), 0);
  /* the order of the keys: backend, operator, level, origin, implementation */
  b = a;
  b.backend = "cpu";
  CU_ASSERT(olc_record__identity_cmp(&a, &b) > 0);
  CU_ASSERT(olc_record__identity_cmp(&b, &a) < 0);
  b = a;
  b.operator_name = "Add";
  b.level = OLC_LEVEL_PORTABLE;
  CU_ASSERT(olc_record__identity_cmp(&a, &b) > 0); /* operator before level */
  b = a;
  b.origin = OLC_ORIGIN_OVERRIDE;
  b.implementation = "1";
  CU_ASSERT(olc_record__identity_cmp(&a, &b) < 0); /* origin before implementation */
  b = a;
  b.thread_count = 16;
  CU_ASSERT(olc_record__identity_cmp(&a, &b) < 0);
  b = a;
  b.processor = "q";
  b.thread_count = 1;
  CU_ASSERT(olc_record__identity_cmp(&a, &b) < 0); /* processor before threads */
  b = a;
  b.model_digest = "e";
  b.processor = "a";
  CU_ASSERT(olc_record__identity_cmp(&a, &b) < 0);
  /* exact before portable */
  b = portable("gpu", "MatMul", "3", s1, 2);
  CU_ASSERT(olc_record__identity_cmp(&a, &b) < 0);
  /* structures: pairwise, then length */
  a = portable("gpu", "MatMul", "3", s1, 2);
  b = portable("gpu", "MatMul", "3", s2, 2);
  CU_ASSERT(olc_record__identity_cmp(&a, &b) < 0);
  b = portable("gpu", "MatMul", "3", s3, 1);
  CU_ASSERT(olc_record__identity_cmp(&a, &b) > 0);
  b = portable("gpu", "MatMul", "3", s1, 2);
  b.model_digest = "ignored for portable";
  CU_ASSERT_EQUAL(olc_record__identity_cmp(&a, &b), 0);
  /* bytes compare unsigned */
  a = exact("\xff", "o", "1", "d", "p", 1);
  b = exact("a", "o", "1", "d", "p", 1);
  CU_ASSERT(olc_record__identity_cmp(&a, &b) > 0);
}

static void test_sort_and_duplicates(void) {
  olc_recset set = OLC_RECSET_INIT;
  olc_record r;
  size_t i, n = 300;
  uint64_t x = 88172645463325252ull;

  /* many records with a few repeated identities, told apart by policy
   * (insertion order) to check stability */
  for (i = 0; i < n; i++) {
    char threads_policy[32];
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    r = exact((x & 1) ? "gpu" : "cpu", (x & 2) ? "MatMul" : "Conv", "1", "d", "p",
              (int64_t)(x % 40));
    snprintf(threads_policy, sizeof(threads_policy), "%05zu", i);
    r.policy = (const unsigned char *)threads_policy;
    r.policy_len = 5;
    if (x & 4)
      r.origin = OLC_ORIGIN_OVERRIDE;
    OLC_ASSERT_OK(olc_recset__append_copy(&set, &r), NULL);
  }
  olc_recset__sort(&set);
  CU_ASSERT_EQUAL(set.count, n);
  for (i = 1; i < n; i++) {
    int c = olc_record__identity_cmp(&set.recs[i - 1], &set.recs[i]);
    CU_ASSERT(c <= 0);
    if (c == 0) /* stable: equal identities keep insertion order */
      CU_ASSERT(memcmp(set.recs[i - 1].policy, set.recs[i].policy, 5) < 0);
  }
  i = olc_recset__find_duplicate(&set);
  CU_ASSERT_NOT_EQUAL_FATAL(i, (size_t)-1);
  CU_ASSERT(i > 0 && olc_record__identity_cmp(&set.recs[i - 1], &set.recs[i]) == 0);
  /* the first duplicate pair is reported */
  {
    size_t k;
    for (k = 1; k < i; k++)
      CU_ASSERT(olc_record__identity_cmp(&set.recs[k - 1], &set.recs[k]) != 0);
  }
  olc_recset__free(&set);

  /* unique identities: no duplicate; sorting a sorted set changes nothing */
  olc_recset__init(&set);
  for (i = 0; i < 50; i++) {
    r = exact("gpu", "MatMul", "1", "d", "p", (int64_t)(49 - i));
    OLC_ASSERT_OK(olc_recset__append_copy(&set, &r), NULL);
  }
  olc_recset__sort(&set);
  CU_ASSERT_EQUAL(olc_recset__find_duplicate(&set), (size_t)-1);
  for (i = 0; i < 50; i++)
    CU_ASSERT_EQUAL(set.recs[i].thread_count, (int64_t)i);
  olc_recset__sort(&set);
  CU_ASSERT_EQUAL(set.recs[49].thread_count, 49);
  olc_recset__free(&set);
  /* empty and single sets */
  olc_recset__init(&set);
  olc_recset__sort(&set);
  CU_ASSERT_EQUAL(olc_recset__find_duplicate(&set), (size_t)-1);
  olc_recset__free(&set);
}

/* Normalizing keeps, of equal identities, the record appended last. */
static void test_normalize(void) {
  olc_recset set = OLC_RECSET_INIT;
  static const char *const policies[] = {"a", "b", "c", "d", "e"};
  static const int64_t threads[] = {4, 2, 4, 1, 2};
  olc_record r;
  size_t i;

  for (i = 0; i < 5; i++) {
    r = exact("cpu", "MatMul", "1", "d", "p", threads[i]);
    r.policy = (const unsigned char *)policies[i];
    OLC_ASSERT_OK(olc_recset__append_copy(&set, &r), NULL);
  }
  olc_recset__normalize(&set);
  CU_ASSERT_EQUAL_FATAL(set.count, 3);
  CU_ASSERT_EQUAL(set.recs[0].thread_count, 1);
  CU_ASSERT_STRING_EQUAL((const char *)set.recs[0].policy, "d");
  CU_ASSERT_EQUAL(set.recs[1].thread_count, 2);
  CU_ASSERT_STRING_EQUAL((const char *)set.recs[1].policy, "e");
  CU_ASSERT_EQUAL(set.recs[2].thread_count, 4);
  CU_ASSERT_STRING_EQUAL((const char *)set.recs[2].policy, "c");
  CU_ASSERT_EQUAL(olc_recset__find_duplicate(&set), (size_t)-1);
  /* a normalized set stays as it is */
  olc_recset__normalize(&set);
  CU_ASSERT_EQUAL(set.count, 3);
  CU_ASSERT_STRING_EQUAL((const char *)set.recs[1].policy, "e");
  olc_recset__free(&set);
}

static void test_properties_sort(void) {
  olc_property p[4] = {{"shape", "1"}, {"dtype", "f"}, {"layout", "nchw"}, {"b", "x"}};
  olc_property q[3] = {{"shape", "1"}, {"dtype", "f"}, {"shape", "2"}};
  olc_property big[100];
  char names[100][8];
  size_t i, dup;

  CU_ASSERT_EQUAL(olc_properties__sort(p, 4), (size_t)-1);
  CU_ASSERT_STRING_EQUAL(p[0].name, "b");
  CU_ASSERT_STRING_EQUAL(p[1].name, "dtype");
  CU_ASSERT_STRING_EQUAL(p[2].name, "layout");
  CU_ASSERT_STRING_EQUAL(p[3].name, "shape");
  CU_ASSERT_STRING_EQUAL(p[3].value, "1");
  dup = olc_properties__sort(q, 3);
  CU_ASSERT_EQUAL(dup, 2);
  CU_ASSERT_STRING_EQUAL(q[dup].name, "shape");
  CU_ASSERT_EQUAL(olc_properties__sort(q, 0), (size_t)-1);
  CU_ASSERT_EQUAL(olc_properties__sort(q, 1), (size_t)-1);
  /* the large-array path */
  for (i = 0; i < 100; i++) {
    snprintf(names[i], sizeof(names[i]), "n%03zu", (i * 37) % 100);
    big[i].name = names[i];
    big[i].value = "v";
  }
  CU_ASSERT_EQUAL(olc_properties__sort(big, 100), (size_t)-1);
  for (i = 1; i < 100; i++)
    CU_ASSERT(strcmp(big[i - 1].name, big[i].name) < 0);
  memcpy(names[10], names[11], sizeof(names[10])); /* one name twice */
  for (i = 0; i < 100; i++)
    big[i].name = names[(i * 7) % 100];
  dup = olc_properties__sort(big, 100);
  CU_ASSERT_NOT_EQUAL_FATAL(dup, (size_t)-1);
  CU_ASSERT_STRING_EQUAL(big[dup].name, names[11]);
  CU_ASSERT_STRING_EQUAL(big[dup - 1].name, names[11]);
  for (i = 1; i < 100; i++)
    CU_ASSERT(strcmp(big[i - 1].name, big[i].name) <= 0);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("record", NULL, NULL);
  CU_add_test(s, "append and deep copy", test_append_copy);
  CU_add_test(s, "identity order", test_identity_cmp);
  CU_add_test(s, "stable sort and duplicates", test_sort_and_duplicates);
  CU_add_test(s, "normalize keeps the last of equal identities", test_normalize);
  CU_add_test(s, "properties sort with repeated name", test_properties_sort);
  return olc_test_run(argc, argv);
}
