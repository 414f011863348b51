/*
 * tests/host/test_recorded_host.c - recording misses and tuning them
 * offline, and the budgets, against the deterministic mock plugin
 * (candidates spin 400, 100, 200, 800 us; processor "mock-cpu" unless
 * [plugin.mock_det] processor says otherwise):
 *   - a never-mode miss is recorded once per key (the in-process set: the
 *     file is not touched again), once per key in the file across hosts,
 *     with the full description; on_miss and hits record nothing;
 *   - a file that is not a recorded-workloads file: the select still
 *     answers, a "record_misses" warning, the file unchanged;
 *   - olc_host_calibrate with recorded: this machine's records tuned and
 *     removed, another processor's or thread count's skipped and kept; a
 *     later never-mode select is served from the store; a malformed line
 *     is skipped with a warning naming FILE:LINE:COLUMN and stays as it
 *     was; a newer file is an error;
 *   - budgets: runs, workload and total each cut a measurement short and
 *     mark the saved winner; the total budget stops later workloads and a
 *     host's lazy calibrations; refine measures only marked records again.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/host.h"
#include "host/misses.h"
#include "runtime_util.h"

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("recorded_host");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

/* A fresh directory under tmp (the caller frees it). */
static char *subdir(const char *name) {
  char *d = malloc(strlen(tmp) + strlen(name) + 2);
  sprintf(d, "%s/%s", tmp, name);
  CU_ASSERT_FATAL(mkdir(d, 0700) == 0);
  return d;
}

static char *in_dir(const char *dir, const char *name) {
  char *p = malloc(strlen(dir) + strlen(name) + 2);
  sprintf(p, "%s/%s", dir, name);
  return p;
}

static olc_misses_set load(const char *path) {
  olc_misses_set set = OLC_MISSES_SET_INIT;
  olc_error err;
  OLC_ASSERT_OK(olc_misses__load(&set, path, &err), &err);
  return set;
}

static const char *prop(const olc_misses_entry *e, const char *name) {
  size_t i;
  for (i = 0; i < e->prop_count; i++)
    if (strcmp(e->props[i].name, name) == 0)
      return e->props[i].value;
  return NULL;
}

static int policy_first(const olc_selection *s) {
  char buf[64];
  return strcmp(rt_policy(s, buf, sizeof buf), "spin_us=400") == 0;
}

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* How many diagnostics the host kept whose where is `where`. */
static size_t diagnostics(rt_host *h, const char *where) {
  olc_diagnostic d;
  size_t n = 0;
  while (olc_host_next_diagnostic(&d, h->s.host) == OLC_OK)
    n += strcmp(d.where, where) == 0;
  return n;
}

static void test_never_records_once(void) {
  char *d = subdir("once"), *rec = in_dir(d, "rec.txt");
  rt_host h;
  rt_workload a, b;
  const olc_selection *s;
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  olc_misses_set set;
  olc_error err;
  rt_open(&h, d, NULL, "store.txt", "record_misses = rec.txt\n");
  olc_host__set_recheck_ms(h.s.host, 0); /* every select takes the slow path */
  rt_matmul(&a, NULL, 8, 4, 2);
  rt_matmul(&b, NULL, 16, 4, 2);
  a.w.model_digest = "sha256:00ff";
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, h.s.host, &a.w, NULL, &err), &err);
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, h.s.host, &b.w, NULL, &err), &err);
  set = load(rec);
  CU_ASSERT_EQUAL_FATAL(set.count, 2);
  CU_ASSERT_STRING_EQUAL(set.v[0].backend, "mock_det");
  CU_ASSERT_STRING_EQUAL(set.v[0].operator_name, "MatMul");
  CU_ASSERT_STRING_EQUAL(set.v[0].processor, "mock-cpu");
  CU_ASSERT_EQUAL(set.v[0].threads, 2);
  CU_ASSERT_STRING_EQUAL(set.v[0].model, "sha256:00ff");
  CU_ASSERT_EQUAL(strncmp(set.v[0].identity, "sha256:00ff#", 12), 0);
  CU_ASSERT_STRING_EQUAL(prop(&set.v[0], "m"), "8");
  CU_ASSERT_STRING_EQUAL(prop(&set.v[0], "dtype"), "float32");
  CU_ASSERT_PTR_NULL(set.v[1].model);
  CU_ASSERT_EQUAL(strncmp(set.v[1].identity, "workload:", 9), 0);
  olc_misses__free(&set);
  /* The in-process set: misses of a recorded key never touch the file. */
  CU_ASSERT_EQUAL_FATAL(remove(rec), 0);
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, h.s.host, &a.w, NULL, &err), &err);
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, h.s.host, &a.w, NULL, &err), &err);
  CU_ASSERT_FALSE(file_exists(rec));
  /* on_miss measures and records nothing; a hit records nothing. */
  OLC_ASSERT_OK(olc_host_select(&s, h.s.host, &b.w, &on_miss, &err), &err);
  OLC_ASSERT_OK(olc_host_select(&s, h.s.host, &b.w, NULL, &err), &err);
  CU_ASSERT_FALSE(file_exists(rec));
  rt_close(&h);
  /* Another host (a second start): one record per key in the file.  b
   * is measured now, so a's miss gets b's policy (the nearest measured
   * workload) and is recorded all the same. */
  rt_open(&h, d, NULL, "store.txt", "record_misses = rec.txt\n");
  OLC_ASSERT_STATUS(OLC_NEAREST_RECORD, olc_host_select(&s, h.s.host, &a.w, NULL, &err), &err);
  rt_close(&h);
  rt_open(&h, d, NULL, "store.txt", "record_misses = rec.txt\n");
  OLC_ASSERT_STATUS(OLC_NEAREST_RECORD, olc_host_select(&s, h.s.host, &a.w, NULL, &err), &err);
  OLC_ASSERT_OK(olc_host_select(&s, h.s.host, &b.w, NULL, &err), &err); /* stored: a hit */
  rt_close(&h);
  set = load(rec);
  CU_ASSERT_EQUAL(set.count, 1);
  olc_misses__free(&set);
  free(rec);
  free(d);
}

/* A miss the file cannot hold (its line would pass the reader's limit:
 * 40 properties of 1000 bytes, each also in the identity) is not recorded,
 * with a warning; the next miss is (issue 37 item 4: before, the long line
 * was written and every later append and --recorded read failed on it). */
static void test_unrecordable_miss(void) {
  char *d = subdir("unrecordable"), *rec = in_dir(d, "rec.txt");
  static char values[40][1001];
  char names[40][8];
  olc_property props[40];
  olc_workload wide = OLC_WORKLOAD_INIT;
  olc_misses_set set;
  rt_host h;
  rt_workload b;
  const olc_selection *s;
  olc_error err;
  olc_diagnostic diag;
  size_t i, warnings = 0;
  for (i = 0; i < 40; i++) {
    snprintf(names[i], sizeof names[i], "p%02u", (unsigned)i);
    memset(values[i], 'x', 1000);
    props[i].name = names[i];
    props[i].value = values[i];
  }
  wide.backend = "mock_det";
  wide.operator_name = "MatMul";
  wide.properties = props;
  wide.property_count = 40;
  rt_open(&h, d, NULL, "store.txt", "record_misses = rec.txt\n");
  rt_matmul(&b, NULL, 16, 4, 2);
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, h.s.host, &wide, NULL, &err), &err);
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, h.s.host, &b.w, NULL, &err), &err);
  while (olc_host_next_diagnostic(&diag, h.s.host) == OLC_OK)
    if (strcmp(diag.where, "record_misses") == 0) {
      warnings++;
      CU_ASSERT_PTR_NOT_NULL(strstr(diag.message, "line"));
    }
  CU_ASSERT_EQUAL(warnings, 1);
  set = load(rec);
  CU_ASSERT_EQUAL(set.count, 1);
  CU_ASSERT_EQUAL(set.bad_count, 0);
  CU_ASSERT_STRING_EQUAL(set.count == 1 ? prop(&set.v[0], "m") : "", "16");
  olc_misses__free(&set);
  rt_close(&h);
  free(rec);
  free(d);
}

static void test_foreign_file_untouched(void) {
  static const char store_text[] = "onnx_light_calibration_profiles 1\n";
  char *d = subdir("foreign"), *rec = in_dir(d, "rec.txt");
  unsigned char *after;
  size_t len = 0;
  rt_host h;
  rt_workload a, b;
  const olc_selection *s;
  olc_error err;
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(rec, store_text, sizeof store_text - 1), 0);
  rt_open(&h, d, NULL, "store.txt", "record_misses = rec.txt\n");
  rt_matmul(&a, NULL, 8, 4, 2);
  rt_matmul(&b, NULL, 16, 4, 2);
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, h.s.host, &a.w, NULL, &err), &err);
  CU_ASSERT_TRUE(policy_first(s));
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, h.s.host, &a.w, NULL, &err), &err);
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, h.s.host, &b.w, NULL, &err), &err);
  CU_ASSERT_EQUAL(diagnostics(&h, "record_misses"), 2); /* once per key */
  after = olc_test_read_file(rec, &len);
  CU_ASSERT_FATAL(after != NULL);
  CU_ASSERT_TRUE(len == sizeof store_text - 1 && memcmp(after, store_text, len) == 0);
  free(after);
  rt_close(&h);
  free(rec);
  free(d);
}

/* Records two misses here, adds one of another processor and one of
 * another thread count, then tunes the file offline. */
static void test_calibrate_recorded(void) {
  char *d = subdir("offline"), *rec = in_dir(d, "rec.txt");
  olc_calibrate_options o = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal = NULL;
  olc_misses_set set;
  olc_misses_entry other;
  rt_host h;
  rt_workload a, b;
  const olc_selection *s;
  olc_error err;
  size_t i;
  int added;
  char tuned[64], buf[64];
  rt_open(&h, d, NULL, "store.txt", "record_misses = rec.txt\n");
  rt_matmul(&a, NULL, 8, 4, 2);
  rt_matmul(&b, NULL, 16, 4, 2);
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, h.s.host, &a.w, NULL, &err), &err);
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, h.s.host, &b.w, NULL, &err), &err);
  rt_close(&h);
  set = load(rec);
  CU_ASSERT_EQUAL_FATAL(set.count, 2);
  other = set.v[0];
  other.processor = "other-cpu";
  OLC_ASSERT_OK(olc_misses__append(&added, rec, &other, 1000, &err), &err);
  other = set.v[1];
  other.threads = 8;
  OLC_ASSERT_OK(olc_misses__append(&added, rec, &other, 1000, &err), &err);
  olc_misses__free(&set);

  /* Offline: a host without record_misses tunes the file. */
  rt_open(&h, d, NULL, "store.txt", NULL);
  o.recorded = rec;
  o.in_process = 1;
  OLC_ASSERT_OK(olc_host_calibrate(&cal, h.s.host, &o, &err), &err);
  CU_ASSERT_EQUAL_FATAL(olc_calibration_count(cal), 4);
  for (i = 0; i < 2; i++) {
    const olc_workload_result *r = olc_calibration_get(cal, i);
    CU_ASSERT_EQUAL(r->status, OLC_OK);
    CU_ASSERT_EQUAL(r->calibrated_now, 1);
    CU_ASSERT_PTR_NOT_NULL(r->selected);
  }
  CU_ASSERT_STRING_EQUAL(olc_calibration_get(cal, 0)->workload,
                         "mock_det/MatMul{dtype=float32,k=2,m=8,n=4}");
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 2)->status, OLC_E_UNAVAILABLE);
  CU_ASSERT_PTR_NOT_NULL(strstr(olc_calibration_get(cal, 2)->message,
                                "recorded on processor 'other-cpu', this machine is 'mock-cpu'"));
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 3)->status, OLC_E_UNAVAILABLE);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(olc_calibration_get(cal, 3)->message, "recorded with 8 threads, this host runs 2"));
  CU_ASSERT_EQUAL(olc_calibration_recorded_removed(cal), 2);
  {
    const olc_record *r = olc_calibration_get(cal, 0)->selected;
    CU_ASSERT_FATAL(r != NULL && r->policy_len < sizeof tuned);
    memcpy(tuned, r->policy, r->policy_len);
    tuned[r->policy_len] = 0;
  }
  olc_calibration_free(cal);
  set = load(rec);
  CU_ASSERT_EQUAL(set.count, 2); /* the skipped ones stay */
  CU_ASSERT_STRING_EQUAL(set.v[0].processor, "other-cpu");
  olc_misses__free(&set);
  rt_close(&h);

  /* Production again: the store serves both, nothing is recorded. */
  rt_open(&h, d, NULL, "store.txt", "record_misses = rec.txt\n");
  OLC_ASSERT_OK(olc_host_select(&s, h.s.host, &a.w, NULL, &err), &err);
  CU_ASSERT_STRING_EQUAL(rt_policy(s, buf, sizeof buf), tuned); /* what was tuned */
  OLC_ASSERT_OK(olc_host_select(&s, h.s.host, &b.w, NULL, &err), &err);
  CU_ASSERT_EQUAL(rt_measurements(&h), 0);
  rt_close(&h);
  set = load(rec);
  CU_ASSERT_EQUAL(set.count, 2);
  olc_misses__free(&set);
  free(rec);
  free(d);
}

static void test_calibrate_recorded_bad_file(void) {
  static const char text[] = "# onnx-light recorded workloads v1\nworkload backend=mock_det\n";
  static const char newer[] = "# onnx-light recorded workloads v2\n";
  char *d = subdir("offline_bad"), *rec = in_dir(d, "rec.txt");
  olc_calibrate_options o = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal = NULL;
  unsigned char *after;
  size_t len = 0;
  char want[512];
  rt_host h;
  olc_error err;
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(rec, text, sizeof text - 1), 0);
  rt_open(&h, d, NULL, "store.txt", NULL);
  o.recorded = rec;
  /* A bad line is skipped with a warning naming it; the others are read. */
  OLC_ASSERT_OK(olc_host_calibrate(&cal, h.s.host, &o, &err), &err);
  CU_ASSERT_EQUAL(olc_calibration_count(cal), 0);
  olc_calibration_free(cal);
  cal = NULL;
  snprintf(want, sizeof want, "%s:2:", rec);
  {
    olc_diagnostic diag;
    int seen = 0;
    while (olc_host_next_diagnostic(&diag, h.s.host) == OLC_OK)
      seen |= strcmp(diag.where, "recorded") == 0 &&
              strncmp(diag.message, want, strlen(want)) == 0 &&
              strstr(diag.message, "missing field \"operator\"") != NULL &&
              strstr(diag.message, "skipped") != NULL;
    CU_ASSERT_TRUE(seen);
  }
  after = olc_test_read_file(rec, &len);
  CU_ASSERT_TRUE(after != NULL && len == sizeof text - 1 && memcmp(after, text, len) == 0);
  free(after);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(rec, newer, sizeof newer - 1), 0);
  OLC_ASSERT_STATUS(OLC_E_VERSION, olc_host_calibrate(&cal, h.s.host, &o, &err), &err);
  CU_ASSERT_EQUAL(rt_records(&h), 0);
  rt_close(&h);
  free(rec);
  free(d);
}

/* Issue 43: misses a runtime recorded, tuned in two shards (each key in
 * one, the file untouched), merged by one import, then removed from the
 * file because the merged store holds them: the identities the runtime
 * records are the model digests the store keeps. */
static void test_calibrate_recorded_shards(void) {
  char *d = subdir("shards"), *rec = in_dir(d, "rec.txt"), *paths[2], *before, *after;
  olc_calibrate_options o = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal = NULL;
  const olc_selection *s;
  rt_host h;
  rt_workload w[5];
  olc_error err;
  size_t i, tuned = 0, removed = 0, imported = 0;
  uint32_t k;
  rt_open(&h, d, NULL, "store.txt", "record_misses = rec.txt\n");
  for (i = 0; i < 5; i++) {
    rt_matmul(&w[i], NULL, 8 * (long)(i + 1), 4, 2);
    OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, h.s.host, &w[i].w, NULL, &err),
                      &err);
  }
  rt_close(&h);
  before = (char *)olc_test_read_file(rec, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(before);

  /* What a shard may not be. */
  rt_open(&h, d, NULL, "shard-x.txt", NULL);
  o.in_process = 1;
  o.shard_count = 2;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_host_calibrate(&cal, h.s.host, &o, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "a shard needs a recorded file"));
  o.recorded = rec;
  o.shard_index = 2;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_host_calibrate(&cal, h.s.host, &o, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "the index must be below the count"));
  rt_close(&h);

  for (k = 0; k < 2; k++) {
    char name[32];
    snprintf(name, sizeof name, "shard-%u.txt", (unsigned)k);
    paths[k] = in_dir(d, name);
    rt_open(&h, d, NULL, name, NULL);
    o.shard_index = k;
    OLC_ASSERT_OK(olc_host_calibrate(&cal, h.s.host, &o, &err), &err);
    for (i = 0; i < olc_calibration_count(cal); i++)
      tuned += olc_calibration_get(cal, i)->calibrated_now == 1;
    CU_ASSERT_EQUAL(olc_calibration_recorded_removed(cal), 0);
    olc_calibration_free(cal);
    rt_close(&h);
  }
  CU_ASSERT_EQUAL(tuned, 5); /* every miss, once */
  after = (char *)olc_test_read_file(rec, NULL);
  CU_ASSERT_TRUE(after != NULL && strcmp(after, before) == 0);
  free(after);

  rt_open(&h, d, NULL, "merged.txt", NULL);
  OLC_ASSERT_OK(olc_store_import_files(h.s.store, (const char *const *)paths, 2, &imported, &err),
                &err);
  CU_ASSERT_EQUAL(imported, 10); /* an exact and a portable record each */
  OLC_ASSERT_OK(olc_recorded_remove_stored(&removed, rec, h.s.store, &err), &err);
  CU_ASSERT_EQUAL(removed, 5);
  after = (char *)olc_test_read_file(rec, NULL);
  CU_ASSERT_TRUE(after != NULL && strstr(after, "workload ") == NULL);
  free(after);
  OLC_ASSERT_OK(olc_recorded_remove_stored(&removed, rec, h.s.store, &err), &err);
  CU_ASSERT_EQUAL(removed, 0);
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_recorded_remove_stored(&removed, NULL, h.s.store, &err),
                    &err);
  rt_close(&h);
  free(paths[0]);
  free(paths[1]);
  free(before);
  free(rec);
  free(d);
}

/* ---------------------------------------------------------------- budgets */

#define WORKLOAD(name, m)                                                                          \
  "[workload." name "]\nbackend = mock_det\noperator = MatMul\nm = " m "\nn = 4\nk = 2\n"
#define WL_A WORKLOAD("a", "8")
#define WL_ABC WORKLOAD("a", "8") WORKLOAD("b", "16") WORKLOAD("c", "32")

static olc_calibration *calibrate(rt_host *h, int refine) {
  olc_calibrate_options o = OLC_CALIBRATE_OPTIONS_INIT;
  olc_calibration *cal = NULL;
  olc_error err;
  o.in_process = 1;
  o.refine = refine;
  OLC_ASSERT_OK(olc_host_calibrate(&cal, h->s.host, &o, &err), &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(cal);
  return cal;
}

/* The unit of rec's budget measurement (its limit in *limit), or NULL. */
static const char *budget_of(const olc_record *rec, double *limit) {
  size_t i;
  for (i = 0; rec != NULL && i < rec->measurement_count; i++)
    if (strcmp(rec->measurements[i].name, OLC_MEASUREMENT_BUDGET) == 0) {
      *limit = rec->measurements[i].value;
      return rec->measurements[i].unit;
    }
  return NULL;
}

static int unit_is(const olc_record *rec, const char *unit, double limit) {
  double got = -1;
  const char *u = budget_of(rec, &got);
  return u != NULL && strcmp(u, unit) == 0 && got == limit;
}

static uint32_t most_samples(const olc_workload_result *r) {
  uint32_t most = 0;
  size_t i;
  for (i = 0; i < r->candidate_count; i++)
    if (r->candidates[i].samples > most)
      most = r->candidates[i].samples;
  return most;
}

static void test_budget_runs(void) {
  char *d = subdir("runs"), *d0 = subdir("runs_control");
  olc_calibration *cal;
  const olc_workload_result *r;
  double limit;
  rt_host h;
  rt_open(&h, d, NULL, "store.txt", "max_runs_per_candidate = 1\n" WL_A);
  cal = calibrate(&h, 0);
  r = olc_calibration_get(cal, 0);
  CU_ASSERT_EQUAL(r->status, OLC_OK);
  CU_ASSERT_EQUAL(r->calibrated_now, 1);
  CU_ASSERT_EQUAL(most_samples(r), 1);
  CU_ASSERT_TRUE(unit_is(r->selected, "runs", 1));
  olc_calibration_free(cal);
  rt_close(&h);
  /* The control: no cap, min_repetitions = 3 runs, no mark. */
  rt_open(&h, d0, NULL, "store.txt", WL_A);
  cal = calibrate(&h, 0);
  r = olc_calibration_get(cal, 0);
  CU_ASSERT_EQUAL(r->status, OLC_OK);
  CU_ASSERT_TRUE(most_samples(r) >= 3);
  CU_ASSERT_PTR_NULL(budget_of(r->selected, &limit));
  olc_calibration_free(cal);
  rt_close(&h);
  free(d);
  free(d0);
}

static void test_budget_workload(void) {
  char *d = subdir("workload");
  olc_calibration *cal;
  const olc_workload_result *r;
  rt_host h;
  rt_open(&h, d, NULL, "store.txt", "max_seconds_per_workload = 0.0001\n" WL_A);
  cal = calibrate(&h, 0);
  r = olc_calibration_get(cal, 0);
  CU_ASSERT_EQUAL(r->status, OLC_OK);
  CU_ASSERT_EQUAL(r->candidate_count, 1); /* the first candidate only: 400 us > the budget */
  CU_ASSERT_TRUE(unit_is(r->selected, "workload", 0.0001));
  olc_calibration_free(cal);
  rt_close(&h);
  free(d);
}

static void test_budget_total(void) {
  char *d = subdir("total");
  olc_calibration *cal;
  const olc_workload_result *r;
  size_t i;
  rt_host h;
  rt_open(&h, d, NULL, "store.txt", "max_seconds_total = 0.0001\n" WL_ABC);
  cal = calibrate(&h, 0);
  r = olc_calibration_get(cal, 0);
  CU_ASSERT_EQUAL(r->status, OLC_OK);
  CU_ASSERT_TRUE(unit_is(r->selected, "total", 0.0001));
  for (i = 1; i < 3; i++) {
    r = olc_calibration_get(cal, i);
    CU_ASSERT_EQUAL(r->status, OLC_E_LIMIT);
    CU_ASSERT_EQUAL(r->calibrated_now, 0);
    CU_ASSERT_PTR_NOT_NULL(r->message != NULL ? strstr(r->message, "total budget of 0.0001 s")
                                              : NULL);
  }
  CU_ASSERT_EQUAL(rt_measurements(&h), 1);
  olc_calibration_free(cal);
  /* The budget is per call: the next one measures b (a is stored). */
  cal = calibrate(&h, 0);
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 0)->calibrated_now, 0);
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 1)->calibrated_now, 1);
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 2)->status, OLC_E_LIMIT);
  olc_calibration_free(cal);
  rt_close(&h);
  free(d);
}

/* A host's lazy calibrations share one total budget: from the config, or
 * from the host option (over a config without one). */
static void test_budget_lazy_total(void) {
  char *d = subdir("lazy"), *d2 = subdir("lazy_option");
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  olc_host_options ho = OLC_HOST_OPTIONS_INIT;
  olc_host *host = NULL;
  const olc_selection *s;
  rt_workload a, b;
  rt_host h;
  olc_error err;
  on_miss.in_process = 1;
  rt_matmul(&a, NULL, 8, 4, 2);
  rt_matmul(&b, NULL, 16, 4, 2);
  rt_open(&h, d, NULL, "store.txt", "max_seconds_total = 0.0001\n");
  OLC_ASSERT_OK(olc_host_select(&s, h.s.host, &a.w, &on_miss, &err), &err);
  CU_ASSERT_EQUAL(olc_selection_calibrated_now(s), 1);
  CU_ASSERT_TRUE(unit_is(olc_selection_record(s), "total", 0.0001));
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, h.s.host, &b.w, &on_miss, &err), &err);
  CU_ASSERT_EQUAL(olc_selection_why(s), OLC_E_LIMIT);
  CU_ASSERT_PTR_NOT_NULL(strstr(olc_selection_message(s), "total budget"));
  rt_close(&h);
  rt_open(&h, d2, NULL, "store.txt", NULL);
  ho.ignore_env = 1;
  ho.max_seconds_total = 0.0001;
  OLC_ASSERT_OK(olc_host_open(&host, h.s.config, h.s.store, &ho, &err), &err);
  OLC_ASSERT_OK(olc_host_select(&s, host, &a.w, &on_miss, &err), &err);
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, host, &b.w, &on_miss, &err), &err);
  CU_ASSERT_EQUAL(olc_selection_why(s), OLC_E_LIMIT);
  olc_host_free(host);
  /* max_runs_per_candidate as a host option. */
  ho.max_seconds_total = 0;
  ho.max_runs_per_candidate = 1;
  rt_matmul(&a, NULL, 64, 4, 2);
  OLC_ASSERT_OK(olc_host_open(&host, h.s.config, h.s.store, &ho, &err), &err);
  OLC_ASSERT_OK(olc_host_select(&s, host, &a.w, &on_miss, &err), &err);
  CU_ASSERT_TRUE(unit_is(olc_selection_record(s), "runs", 1));
  olc_host_free(host);
  /* The session's own host has no budget: it measures b. */
  OLC_ASSERT_OK(olc_host_select(&s, h.s.host, &b.w, &on_miss, &err), &err);
  rt_close(&h);
  free(d);
  free(d2);
}

/* The record_misses host option, over a config without the key. */
static void test_record_option(void) {
  char *d = subdir("record_option"), *rec = in_dir(d, "opt.txt");
  olc_host_options ho = OLC_HOST_OPTIONS_INIT;
  olc_host *host = NULL;
  const olc_selection *s;
  olc_misses_set set;
  rt_workload a;
  rt_host h;
  olc_error err;
  rt_matmul(&a, NULL, 8, 4, 2);
  rt_open(&h, d, NULL, "store.txt", NULL);
  ho.ignore_env = 1;
  ho.record_misses = rec;
  OLC_ASSERT_OK(olc_host_open(&host, h.s.config, h.s.store, &ho, &err), &err);
  OLC_ASSERT_STATUS(OLC_FIRST_CANDIDATE, olc_host_select(&s, host, &a.w, NULL, &err), &err);
  olc_host_free(host);
  set = load(rec);
  CU_ASSERT_EQUAL(set.count, 1);
  olc_misses__free(&set);
  rt_close(&h);
  free(rec);
  free(d);
}

static void test_refine(void) {
  char *d = subdir("refine");
  olc_calibration *cal;
  double limit;
  size_t records;
  rt_host h;
  rt_open(&h, d, NULL, "store.txt", "max_seconds_per_workload = 0.0001\n" WL_A);
  cal = calibrate(&h, 0);
  CU_ASSERT_TRUE(unit_is(olc_calibration_get(cal, 0)->selected, "workload", 0.0001));
  olc_calibration_free(cal);
  rt_close(&h);
  /* Without the budget: a is served as stored, b measured (no mark). */
  rt_open(&h, d, NULL, "store.txt", WORKLOAD("a", "8") WORKLOAD("b", "16"));
  cal = calibrate(&h, 0);
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 0)->status, OLC_OK);
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 0)->calibrated_now, 0);
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 1)->calibrated_now, 1);
  CU_ASSERT_PTR_NULL(budget_of(olc_calibration_get(cal, 1)->selected, &limit));
  olc_calibration_free(cal);
  records = rt_records(&h);
  /* refine measures exactly the marked one; its new record is unmarked. */
  cal = calibrate(&h, 1);
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 0)->calibrated_now, 1);
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 0)->status, OLC_OK);
  CU_ASSERT_PTR_NULL(budget_of(olc_calibration_get(cal, 0)->selected, &limit));
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 1)->calibrated_now, 0);
  olc_calibration_free(cal);
  cal = calibrate(&h, 1);
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 0)->calibrated_now, 0);
  CU_ASSERT_EQUAL(olc_calibration_get(cal, 1)->calibrated_now, 0);
  olc_calibration_free(cal);
  CU_ASSERT_EQUAL(rt_records(&h), records); /* replaced, not added */
  rt_close(&h);
  free(d);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("recorded-host", setup, teardown);
  if (s == NULL)
    return 1;
  CU_add_test(s, "a never-mode miss is recorded once", test_never_records_once);
  CU_add_test(s, "a foreign record file is never rewritten", test_foreign_file_untouched);
  CU_add_test(s, "a miss the file cannot hold is not recorded", test_unrecordable_miss);
  CU_add_test(s, "the record_misses host option", test_record_option);
  CU_add_test(s, "calibrate recorded: tuned, skipped, removed", test_calibrate_recorded);
  CU_add_test(s, "calibrate recorded: a bad file", test_calibrate_recorded_bad_file);
  CU_add_test(s, "calibrate recorded: shards, one import", test_calibrate_recorded_shards);
  CU_add_test(s, "budget: runs per candidate", test_budget_runs);
  CU_add_test(s, "budget: per workload", test_budget_workload);
  CU_add_test(s, "budget: total of one calibrate", test_budget_total);
  CU_add_test(s, "budget: total of a host's lazy calibrations", test_budget_lazy_total);
  CU_add_test(s, "refine measures only what a budget cut short", test_refine);
  return olc_test_run(argc, argv);
}
