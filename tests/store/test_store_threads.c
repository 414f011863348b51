/*
 * tests/store/test_store_threads.c - one store handle used by 8 threads at
 * once, each saving its own keys and looking them (and the others') up;
 * in memory and file-backed.  Counts must be exact: no lost update, no torn
 * snapshot.  Lookups alternate between the key and the workload scope.
 * Also run under TSan (preset tsan).
 */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "test_store_util.h"

#define THREADS 8

typedef struct worker {
  olc_store *store;
  int id;
  int saves;
  int failures;
  int hits;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  char proc[32], policy[64];
  int i;
  for (i = 0; i < w->saves; i++) {
    olc_key k;
    olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
    olc_lookup_result *res = NULL;
    olc_error e;
    snprintf(proc, sizeof proc, "cpu-%d-%d", w->id, i);
    snprintf(policy, sizeof policy, "policy-%d-%d", w->id, i);
    /* A per-workload digest, so the scoped lookups (every other one) build
     * the workload index of each new snapshot while others probe it. */
    k = tsu_key("1", "model#w", proc, w->id + 1);
    k.structure_count = 0;
    if (tsu_put(w->store, &k, policy, OLC_LEVELS_DEFAULT, 0, &e) != OLC_OK) {
      w->failures++;
      continue;
    }
    o.key = &k;
    o.scope = i % 2 ? OLC_LOOKUP_SCOPE_WORKLOAD : OLC_LOOKUP_SCOPE_KEY;
    if (olc_store_lookup(&res, w->store, &o, &e) == OLC_OK &&
        strcmp(tsu_selected_policy(res), policy) == 0)
      w->hits++;
    olc_lookup_result_free(res);
  }
  return NULL;
}

static void run_threads(olc_store *s, int saves) {
  pthread_t t[THREADS];
  worker w[THREADS];
  olc_record_list *l = NULL;
  olc_error e;
  int i;
  for (i = 0; i < THREADS; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].store = s;
    w[i].id = i;
    w[i].saves = saves;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, work, &w[i]), 0);
  }
  for (i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  for (i = 0; i < THREADS; i++) {
    CU_ASSERT_EQUAL(w[i].failures, 0);
    CU_ASSERT_EQUAL(w[i].hits, saves);
  }
  OLC_ASSERT_OK(olc_store_list(&l, s, &e), &e);
  CU_ASSERT_EQUAL(olc_record_list_count(l), (size_t)(THREADS * saves));
  olc_record_list_free(l);
}

static void test_threads_memory(void) {
  olc_store *s = tsu_open_memory();
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  run_threads(s, 100);
  olc_store_free(s);
}

static void test_threads_file(void) {
  char *dir = olc_test_tmpdir("store-threads");
  char *path = olc_test_path(dir, "profiles.txt");
  olc_store *s = tsu_open_file(path, 1), *fresh;
  olc_record_list *l = NULL;
  olc_error e;
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  run_threads(s, 20);
  olc_store_free(s);
  /* Everything reached the file. */
  fresh = tsu_open_file(path, 1);
  OLC_ASSERT_OK(olc_store_list(&l, fresh, &e), &e);
  CU_ASSERT_EQUAL(olc_record_list_count(l), (size_t)(THREADS * 20));
  olc_record_list_free(l);
  olc_store_free(fresh);
  olc_test_rmtree(dir);
  free(dir);
  free(path);
}

/* Many threads reach a fresh snapshot at once: its candidate index is
 * built by one of them and used by all (a race here shows under TSan). */
typedef struct reader {
  olc_store *store;
  int hits;
} reader;

static void *read_work(void *arg) {
  reader *r = arg;
  int i;
  for (i = 0; i < 200; i++) {
    olc_key k = tsu_key("1", "model", "cpu-0-0", 1);
    olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
    olc_lookup_result *res = NULL;
    k.structure_count = 0;
    k.processor = i % 2 ? "cpu-0-0" : "cpu-other";
    o.key = &k;
    o.scope = i % 2 ? OLC_LOOKUP_SCOPE_WORKLOAD : OLC_LOOKUP_SCOPE_KEY;
    if (olc_store_lookup(&res, r->store, &o, NULL) == OLC_OK)
      r->hits++;
    else if (olc_lookup_result_rejected_count(res) == 1)
      r->hits++; /* the other processor: one DIFFERENT_PROCESSOR rejection */
    olc_lookup_result_free(res);
  }
  return NULL;
}

static void test_concurrent_readers_of_one_snapshot(void) {
  olc_store *s = tsu_open_memory();
  olc_key k = tsu_key("1", "model", "cpu-0-0", 1);
  pthread_t t[THREADS];
  reader r[THREADS];
  olc_error e;
  int i;
  k.structure_count = 0;
  OLC_ASSERT_OK(tsu_put(s, &k, "p", OLC_LEVELS_DEFAULT, 0, &e), &e);
  for (i = 0; i < THREADS; i++) {
    r[i].store = s;
    r[i].hits = 0;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, read_work, &r[i]), 0);
  }
  for (i = 0; i < THREADS; i++) {
    pthread_join(t[i], NULL);
    CU_ASSERT_EQUAL(r[i].hits, 200);
  }
  olc_store_free(s);
}

int main(int argc, char **argv) {
  CU_pSuite suite;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  suite = CU_add_suite("store_threads", NULL, NULL);
  CU_add_test(suite, "threads_memory", test_threads_memory);
  CU_add_test(suite, "threads_file", test_threads_file);
  CU_add_test(suite, "concurrent_readers_of_one_snapshot", test_concurrent_readers_of_one_snapshot);
  return olc_test_run(argc, argv);
}
