/*
 * tests/store/test_lookup_scope_model.c - the scoped lookup held against a
 * model of its rule (store.h) on random stores: per-workload, model-less
 * and legacy digests, several implementations, processors, thread counts,
 * origins, a validator that refuses some policies, consistent and
 * inconsistent keys.  The expected answer is the all_candidates answer
 * (every record with its reason) filtered by the model: the records of the
 * key's workload keep their reason, the legacy records of the key's model
 * get the legacy message, everything else is only counted.  Once through
 * the candidate indexes, once through the bucket scan that replaces them
 * when they cannot be built.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "test_store_util.h"

#define SHAPES 3

typedef struct rng {
  unsigned s;
} rng;

static unsigned pick(rng *r, unsigned n) {
  r->s = r->s * 1103515245u + 12345u;
  return (r->s >> 16) % n;
}

static olc_property shape_props[SHAPES][2];
static char shape_m[SHAPES][8];

static void shapes_init(void) {
  int i;
  for (i = 0; i < SHAPES; i++) {
    snprintf(shape_m[i], sizeof shape_m[i], "%d", 16 << i);
    shape_props[i][0].name = "m";
    shape_props[i][0].value = shape_m[i];
    shape_props[i][1].name = "dtype";
    shape_props[i][1].value = i == 2 ? "a;b" : "float32";
  }
}

/* A random key: per-workload, model-less, legacy or no exact digest; its
 * structure usually that of its digest's shape. */
static void random_key(olc_key *k, char *digest, size_t size, rng *r) {
  static const char *impls[] = {"1", "2"}, *procs[] = {"p", "q"},
                    *models[] = {"sha256:aa", "sha256:bb"};
  unsigned shape = pick(r, SHAPES), form = pick(r, 5), model = pick(r, 2);
  olc_error e;
  memset(k, 0, sizeof *k);
  k->backend = "cpu_gemm";
  k->operator_name = "MatMul";
  k->implementation = impls[pick(r, 2)];
  k->processor = procs[pick(r, 2)];
  k->thread_count = 1 + pick(r, 2);
  k->model_digest = digest;
  if (form <= 1)
    OLC_ASSERT_OK(olc_store_workload_digest(digest, size, NULL, form == 0 ? models[model] : NULL,
                                            shape_props[shape], 2, &e),
                  &e);
  else
    snprintf(digest, size, "%s", models[model]);
  if (form == 4) {
    k->model_digest = NULL;
    k->processor = NULL;
  }
  k->structure = shape_props[pick(r, 4) == 0 ? pick(r, SHAPES) : shape];
  k->structure_count = pick(r, 8) == 0 ? 0 : 2;
}

static void fill(olc_store *s, rng *r, int saves) {
  int i;
  for (i = 0; i < saves; i++) {
    char digest[128];
    olc_key k;
    olc_error e;
    random_key(&k, digest, sizeof digest, r);
    if (k.model_digest == NULL || k.structure_count == 0)
      continue;
    OLC_ASSERT_OK(tsu_put(s, &k, pick(r, 6) == 0 ? "bad" : "good",
                          pick(r, 3) == 0 ? OLC_LEVEL_BIT_PORTABLE : OLC_LEVEL_BIT_EXACT,
                          (int)pick(r, 2), &e),
                  &e);
  }
}

enum { OUT = 0, IN = 1, LEGACY = 2 };

/* The rule of store.h, written from its text. */
static int model_scope(const olc_record *r, const olc_key *k) {
  char rtext[256], ktext[256];
  const char *rw, *kw, *hash;
  olc_error e;
  if (r->level == OLC_LEVEL_PORTABLE) {
    OLC_ASSERT_OK(olc_record_workload(rtext, sizeof rtext, NULL, r, &e), &e);
    OLC_ASSERT_OK(
        olc_store_structure_text(ktext, sizeof ktext, NULL, k->structure, k->structure_count, &e),
        &e);
    return k->structure_count > 0 && strcmp(rtext, ktext) == 0 ? IN : OUT;
  }
  if (k->model_digest == NULL)
    return OUT;
  if (strcmp(r->model_digest, k->model_digest) == 0)
    return IN;
  rw = olc_store_workload_of_digest(r->model_digest);
  kw = olc_store_workload_of_digest(k->model_digest);
  if (rw != NULL)
    return kw != NULL && strcmp(rw, kw) == 0 ? IN : OUT;
  hash = strrchr(k->model_digest, '#');
  if (hash != NULL && strlen(r->model_digest) == (size_t)(hash - k->model_digest) &&
      strncmp(r->model_digest, k->model_digest, (size_t)(hash - k->model_digest)) == 0)
    return LEGACY;
  return OUT;
}

static olc_status refuse_bad(const unsigned char *policy, size_t len, void *payload, char *msg,
                             size_t size) {
  (void)payload;
  (void)len;
  if (strcmp((const char *)policy, "bad") != 0)
    return OLC_OK;
  snprintf(msg, size, "bad policy");
  return OLC_E_INVALID;
}

static olc_lookup_result *run(olc_store *s, const olc_key *k, int scope, int all, int fp) {
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  olc_error e;
  olc_status st;
  o.key = k;
  o.scope = scope;
  o.all_candidates = all;
  o.force_portable = fp;
  o.validate = refuse_bad;
  st = olc_store_lookup(&res, s, &o, &e);
  CU_ASSERT(st == OLC_OK || st == OLC_E_NOT_FOUND);
  CU_ASSERT_PTR_NOT_NULL_FATAL(res);
  return res;
}

/* The scoped answer must be the full one filtered by the model. */
static void check_key(olc_store *s, const olc_key *k, int fp) {
  olc_lookup_result *a = run(s, k, OLC_LOOKUP_SCOPE_WORKLOAD, 0, fp);
  olc_lookup_result *b = run(s, k, OLC_LOOKUP_SCOPE_KEY, 1, fp);
  size_t ia = 0, ib, listed_b = olc_lookup_result_rejected_count(b);
  CU_ASSERT_PTR_EQUAL(olc_lookup_result_selected(a), olc_lookup_result_selected(b));
  for (ib = 0; ib < listed_b; ib++) {
    const olc_rejection *rb = olc_lookup_result_rejected(b, ib), *ra;
    int scope = model_scope(rb->record, k);
    if (scope == OUT || (scope == IN && rb->reason == OLC_REASON_DIFFERENT_IDENTITY))
      continue;
    ra = olc_lookup_result_rejected(a, ia++);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ra);
    CU_ASSERT_PTR_EQUAL(ra->record, rb->record);
    if (scope == LEGACY) {
      CU_ASSERT_EQUAL(ra->reason, OLC_REASON_DIFFERENT_MODEL);
      CU_ASSERT_PTR_NOT_NULL(strstr(ra->message, "before records were per workload"));
    } else {
      CU_ASSERT_EQUAL(ra->reason, rb->reason);
      CU_ASSERT_STRING_EQUAL(ra->message, rb->message);
    }
  }
  CU_ASSERT_EQUAL(ia, olc_lookup_result_rejected_count(a));
  CU_ASSERT_EQUAL(olc_lookup_result_unlisted_count(b), 0);
  CU_ASSERT_EQUAL(olc_lookup_result_unlisted_count(a) + ia, listed_b);
  olc_lookup_result_free(a);
  olc_lookup_result_free(b);
}

/* Makes the current snapshot's indexes unbuildable (as when out of
 * memory): lookups then scan the bucket. */
static void poison_indexes(olc_store *s) {
  olc_snapshot *snap = olc_store__acquire(s);
  int kind;
  olc_util__mutex_lock(&snap->cand_lock);
  for (kind = 0; kind < OLC_CAND_INDEXES; kind++) {
    olc_cand__free(snap->cand[kind]);
    snap->cand[kind] = NULL;
    olc_flag__set(&snap->cand_ready[kind]);
  }
  olc_util__mutex_unlock(&snap->cand_lock);
  olc_snapshot__unref(snap);
}

static void run_model(int poison) {
  int store_round, i;
  shapes_init();
  for (store_round = 0; store_round < 6; store_round++) {
    olc_store *s = tsu_open_memory();
    rng r;
    r.s = 1000u + (unsigned)store_round;
    fill(s, &r, 40 + 60 * store_round);
    if (poison)
      poison_indexes(s);
    for (i = 0; i < 150; i++) {
      char digest[128];
      olc_key k;
      random_key(&k, digest, sizeof digest, &r);
      check_key(s, &k, (int)pick(&r, 4) == 0);
    }
    olc_store_free(s);
  }
}

static void test_index_agrees_with_model(void) { run_model(0); }

static void test_scan_agrees_with_model(void) { run_model(1); }

int main(int argc, char **argv) {
  CU_pSuite suite;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  suite = CU_add_suite("lookup_scope_model", NULL, NULL);
  CU_add_test(suite, "index_agrees_with_model", test_index_agrees_with_model);
  CU_add_test(suite, "scan_agrees_with_model", test_scan_agrees_with_model);
  return olc_test_run(argc, argv);
}
