/*
 * tests/util/test_diag.c - the diagnostics sink (olc/diag.h, util/diag.h):
 * a callback gets each diagnostic and nothing is kept; without one the
 * last OLC_DIAG_KEEP are kept, taken oldest first and once, the rest
 * counted as dropped, from many threads at once; messages become one line.
 * The store's use of it: P.lock replaced again and again degrades the
 * change check with one warning, delivered to olc_store_options' diag
 * callback or kept for olc_store_next_diagnostic; options versions 0 and
 * newer are refused.
 */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "olc/store.h"
#include "persist/persist.h"
#include "test_support.h"
#include "util/diag.h"

typedef struct seen {
  int calls;
  olc_diag_level level;
  char where[OLC_DIAG_WHERE_SIZE];
  char message[OLC_DIAG_MESSAGE_SIZE];
} seen;

static void record(void *payload, olc_diag_level level, const char *where, const char *message) {
  seen *s = payload;
  s->calls++;
  s->level = level;
  snprintf(s->where, sizeof s->where, "%s", where);
  snprintf(s->message, sizeof s->message, "%s", message);
}

static void test_callback_gets_it(void) {
  olc_diag_sink sink;
  olc_diagnostic d;
  seen s;
  memset(&s, 0, sizeof s);
  olc_diag__init(&sink, record, &s);
  olc_diag__emit(&sink, OLC_DIAG_WARNING, "watch", "file %s: %d", "x.lock", 5);
  CU_ASSERT_EQUAL(s.calls, 1);
  CU_ASSERT_EQUAL(s.level, OLC_DIAG_WARNING);
  CU_ASSERT_STRING_EQUAL(s.where, "watch");
  CU_ASSERT_STRING_EQUAL(s.message, "file x.lock: 5");
  /* Handed over, not kept. */
  CU_ASSERT_EQUAL(olc_diag__take(&d, &sink), OLC_E_NOT_FOUND);
  CU_ASSERT_EQUAL(olc_diag__dropped(&sink), 0);
  olc_diag__destroy(&sink);
}

static void test_kept_and_dropped(void) {
  olc_diag_sink sink;
  olc_diagnostic d;
  unsigned i;
  olc_diag__init(&sink, NULL, NULL);
  CU_ASSERT_EQUAL(olc_diag__take(&d, &sink), OLC_E_NOT_FOUND);
  for (i = 0; i < OLC_DIAG_KEEP + 3; i++)
    olc_diag__emit(&sink, OLC_DIAG_WARNING, "test", "number %u", i);
  CU_ASSERT_EQUAL(olc_diag__dropped(&sink), 3);
  /* The last OLC_DIAG_KEEP, oldest first, each once. */
  for (i = 3; i < OLC_DIAG_KEEP + 3; i++) {
    char want[32];
    snprintf(want, sizeof want, "number %u", i);
    CU_ASSERT_EQUAL_FATAL(olc_diag__take(&d, &sink), OLC_OK);
    CU_ASSERT_STRING_EQUAL(d.message, want);
    CU_ASSERT_STRING_EQUAL(d.where, "test");
    CU_ASSERT_EQUAL(d.level, OLC_DIAG_WARNING);
  }
  CU_ASSERT_EQUAL(olc_diag__take(&d, &sink), OLC_E_NOT_FOUND);
  /* Room again after taking. */
  olc_diag__emit(&sink, OLC_DIAG_WARNING, "test", "again");
  CU_ASSERT_EQUAL(olc_diag__take(&d, &sink), OLC_OK);
  CU_ASSERT_STRING_EQUAL(d.message, "again");
  CU_ASSERT_EQUAL(olc_diag__dropped(&sink), 3);
  olc_diag__destroy(&sink);
  olc_diag__destroy(&sink); /* twice is fine */
}

static void test_zeroed_sink(void) {
  olc_diag_sink sink;
  olc_diagnostic d;
  memset(&sink, 0, sizeof sink);
  olc_diag__emit(&sink, OLC_DIAG_WARNING, "test", "lost");
  olc_diag__emit(NULL, OLC_DIAG_WARNING, "test", "lost");
  CU_ASSERT_EQUAL(olc_diag__take(&d, &sink), OLC_E_NOT_FOUND);
  CU_ASSERT_EQUAL(olc_diag__dropped(&sink), 0);
  olc_diag__destroy(&sink);
}

static void test_one_line(void) {
  char buf[8];
  char big[OLC_DIAG_MESSAGE_SIZE + 8];
  olc_diag_sink sink;
  olc_diagnostic d;
  olc_diag__one_line(buf, sizeof buf, "a\nb\tc\x7f");
  CU_ASSERT_STRING_EQUAL(buf, "a b c ");
  /* "abcde" + a 3-byte sequence cut after its first byte: dropped whole. */
  olc_diag__one_line(buf, sizeof buf, "abcdef\xe2\x82\xac");
  CU_ASSERT_STRING_EQUAL(buf, "abcdef");
  olc_diag__one_line(buf, sizeof buf, "abcd\xe2\x82\xac");
  CU_ASSERT_STRING_EQUAL(buf, "abcd\xe2\x82\xac");
  olc_diag__one_line(buf, sizeof buf, NULL);
  CU_ASSERT_STRING_EQUAL(buf, "");
  /* Long messages are cut to the record's size. */
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = 0;
  olc_diag__init(&sink, NULL, NULL);
  olc_diag__emit(&sink, OLC_DIAG_WARNING, big, "%s", big);
  CU_ASSERT_EQUAL_FATAL(olc_diag__take(&d, &sink), OLC_OK);
  CU_ASSERT_EQUAL(strlen(d.message), OLC_DIAG_MESSAGE_SIZE - 1);
  CU_ASSERT_EQUAL(strlen(d.where), OLC_DIAG_WHERE_SIZE - 1);
  olc_diag__destroy(&sink);
  CU_ASSERT_STRING_EQUAL(olc_diag_level_str(OLC_DIAG_WARNING), "warning");
  CU_ASSERT_STRING_EQUAL(olc_diag_level_str((olc_diag_level)99), "diagnostic");
}

#define THREADS 4
#define PER_THREAD 2000

typedef struct taker {
  olc_diag_sink *sink;
  int stop; /* atomic */
  unsigned long taken;
} taker;

static void *emit_many(void *arg) {
  olc_diag_sink *sink = arg;
  int i;
  for (i = 0; i < PER_THREAD; i++)
    olc_diag__emit(sink, OLC_DIAG_WARNING, "thread", "line %d", i);
  return NULL;
}

static void *take_many(void *arg) {
  taker *t = arg;
  olc_diagnostic d;
  for (;;) {
    int stop = __atomic_load_n(&t->stop, __ATOMIC_ACQUIRE);
    while (olc_diag__take(&d, t->sink) == OLC_OK) {
      CU_ASSERT_STRING_EQUAL(d.where, "thread");
      t->taken++;
    }
    if (stop)
      break;
  }
  return NULL;
}

/* Emitters and a taker at once: every diagnostic is taken once or counted
 * as dropped, none lost or duplicated (and TSan sees the locking). */
static void test_threads(void) {
  olc_diag_sink sink;
  pthread_t emitters[THREADS], consumer;
  taker t;
  int i;
  olc_diag__init(&sink, NULL, NULL);
  memset(&t, 0, sizeof t);
  t.sink = &sink;
  CU_ASSERT_EQUAL_FATAL(pthread_create(&consumer, NULL, take_many, &t), 0);
  for (i = 0; i < THREADS; i++)
    CU_ASSERT_EQUAL_FATAL(pthread_create(&emitters[i], NULL, emit_many, &sink), 0);
  for (i = 0; i < THREADS; i++)
    pthread_join(emitters[i], NULL);
  __atomic_store_n(&t.stop, 1, __ATOMIC_RELEASE);
  pthread_join(consumer, NULL);
  CU_ASSERT_EQUAL(t.taken + olc_diag__dropped(&sink), (unsigned long)THREADS * PER_THREAD);
  olc_diag__destroy(&sink);
}

/* ------------------------------------------------------------- store */

static char *g_dir;

static int store_setup(void) {
  g_dir = olc_test_tmpdir("diag");
  return g_dir == NULL;
}

static int store_teardown(void) {
  olc_persist__set_hooks(NULL);
  olc_test_rmtree(g_dir);
  free(g_dir);
  return 0;
}

static olc_status put(olc_store *s, const char *policy) {
  static const olc_property structure[] = {{"m", "64"}};
  olc_measurement m = {"median_latency", 2.5, "us"};
  olc_save_request r = OLC_SAVE_REQUEST_INIT;
  olc_key k;
  olc_error e;
  olc_status st;
  memset(&k, 0, sizeof k);
  k.backend = "mock";
  k.operator_name = "MatMul";
  k.implementation = "1";
  k.model_digest = "sha256:00";
  k.processor = "cpu";
  k.thread_count = 1;
  k.structure = structure;
  k.structure_count = 1;
  r.key = &k;
  r.measurements = &m;
  r.measurement_count = 1;
  r.policy = policy;
  r.policy_len = strlen(policy);
  st = olc_store_save(s, &r, &e);
  if (st != OLC_OK)
    olc_test_print_error("olc_store_save", st, OLC_OK, &e);
  return st;
}

/* Replaces P.lock (a writer makes a new one) and lets the reader's
 * recheck fall due, OLC_PERSIST_WATCH_MAPS + 1 times: the reader's watch
 * gives up mapping. */
static void replace_lock_often(olc_store *reader, olc_store *writer, const char *lock) {
  olc_record_list *list = NULL;
  int i;
  for (i = 0; i < OLC_PERSIST_WATCH_MAPS + 2; i++) {
    unlink(lock);
    CU_ASSERT_EQUAL_FATAL(put(writer, i % 2 ? "a" : "b"), OLC_OK);
    usleep(50000);
    CU_ASSERT_EQUAL_FATAL(olc_store_list(&list, reader, NULL), OLC_OK);
    olc_record_list_free(list);
    list = NULL;
  }
}

static olc_store *open_store(const char *path, olc_diag_fn fn, void *payload) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_error e;
  o.path = path;
  o.diag = fn;
  o.diag_payload = payload;
  OLC_ASSERT_OK(olc_store_open(&s, &o, &e), &e);
  return s;
}

static void store_case(const char *name, int with_callback) {
  char *path = olc_test_path(g_dir, name), *lock;
  olc_persist_hooks h;
  olc_store *reader, *writer;
  olc_diagnostic d;
  seen s;
  memset(&s, 0, sizeof s);
  memset(&h, 0, sizeof h);
  h.watch_recheck_ms = 20;
  olc_persist__set_hooks(&h);
  CU_ASSERT_FATAL(path != NULL);
  lock = malloc(strlen(path) + 6);
  CU_ASSERT_FATAL(lock != NULL);
  sprintf(lock, "%s.lock", path);
  writer = open_store(path, NULL, NULL);
  CU_ASSERT_EQUAL_FATAL(put(writer, "first"), OLC_OK);
  reader = open_store(path, with_callback ? record : NULL, &s);
  replace_lock_often(reader, writer, lock);
  if (with_callback) {
    CU_ASSERT_EQUAL(s.calls, 1); /* once, not at every lookup */
    CU_ASSERT_STRING_EQUAL(s.where, "watch");
    CU_ASSERT_PTR_NOT_NULL(strstr(s.message, lock));
    CU_ASSERT_EQUAL(olc_store_next_diagnostic(&d, reader), OLC_E_NOT_FOUND);
  } else {
    CU_ASSERT_EQUAL_FATAL(olc_store_next_diagnostic(&d, reader), OLC_OK);
    CU_ASSERT_EQUAL(d.level, OLC_DIAG_WARNING);
    CU_ASSERT_STRING_EQUAL(d.where, "watch");
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, lock));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "one stat per lookup"));
    CU_ASSERT_EQUAL(olc_store_next_diagnostic(&d, reader), OLC_E_NOT_FOUND);
    CU_ASSERT_EQUAL(olc_store_diagnostics_dropped(reader), 0);
  }
  /* The writer's own watch was never degraded. */
  CU_ASSERT_EQUAL(olc_store_next_diagnostic(&d, writer), OLC_E_NOT_FOUND);
  olc_store_free(reader);
  olc_store_free(writer);
  olc_persist__set_hooks(NULL);
  free(lock);
  free(path);
}

static void test_store_warning_to_callback(void) { store_case("cb.txt", 1); }
static void test_store_warning_kept(void) { store_case("kept.txt", 0); }

static void test_store_options_versions(void) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_diagnostic d;
  olc_error e;
  o.persistence_enabled = 0;
  o.version = 0;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_open(&s, &o, &e), &e);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "olc_store_options version 0"));
  o.version = OLC_STORE_OPTIONS_VERSION + 1;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_store_open(&s, &o, &e), &e);
  CU_ASSERT_EQUAL(olc_store_next_diagnostic(&d, NULL), OLC_E_INVALID);
  CU_ASSERT_EQUAL(olc_store_diagnostics_dropped(NULL), 0);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("diag_sink", NULL, NULL);
  CU_add_test(s, "a callback gets each diagnostic", test_callback_gets_it);
  CU_add_test(s, "without one the last are kept", test_kept_and_dropped);
  CU_add_test(s, "a zeroed sink drops quietly", test_zeroed_sink);
  CU_add_test(s, "messages are one line", test_one_line);
  CU_add_test(s, "threads emit and take at once", test_threads);
  s = CU_add_suite("diag_store", store_setup, store_teardown);
  CU_add_test(s, "degraded watch: the callback warns once", test_store_warning_to_callback);
  CU_add_test(s, "degraded watch: kept without a callback", test_store_warning_kept);
  CU_add_test(s, "options versions 0 and newer refused", test_store_options_versions);
  return olc_test_run(argc, argv);
}
