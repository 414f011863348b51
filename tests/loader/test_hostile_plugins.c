/*
 * tests/loader/test_hostile_plugins.c - every kind of bad plugin in one
 * plugin directory, next to the good mock_det: olc_host_open reports each
 * with its stage and reason, olc_host_calibrate reports each run-time
 * failure in its workload's result, nothing crashes, and the store file
 * afterwards parses and holds only the records of the plugins that
 * behaved well enough to be measured (plus one record written before).
 *
 * The directory holds symbolic links to the loader's mock plugins
 * (tests/plugins) and to the hostile plugins (hostile_plugin.c), plus a
 * text file, an empty file and a directory named *.so.  The table of kinds
 * and reasons is printed (hostile_plugins.md lists them).
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "olc/host.h"
#include "olc/store.h"
#include "host/host.h"
#include "plugins/plugins.h"
#include "test_store_setup.h"
#include "test_support.h"

#define MOCK OLC_MOCK_PLUGIN_ROOT
#define HOSTILE OLC_HOSTILE_PLUGIN_DIR

/* One file of the plugin directory and what loading it must report. */
typedef struct load_case {
  const char *file;     /* name in the directory */
  const char *target;   /* symlink target, or NULL for a file made here */
  olc_load_stage stage; /* expected stage */
  const char *reason;   /* substring of the report message */
} load_case;

static const load_case load_cases[] = {
    /* The loader's mock plugins (tests/plugins). */
    {"mock_det.so", MOCK "/good/mock_det.so", OLC_LOAD_LOADED, "loaded mock_det"},
    {"mock_no_entry.so", MOCK "/no_entry/mock_no_entry.so", OLC_LOAD_SYMBOL, "olc_plugin_entry"},
    {"mock_entry_error.so", MOCK "/entry_error/mock_entry_error.so", OLC_LOAD_ABI,
     "entry refused on purpose"},
    {"mock_wrong_major.so", MOCK "/wrong_major/mock_wrong_major.so", OLC_LOAD_ABI,
     "does not support abi major"},
    {"mock_table_major.so", MOCK "/table_major/mock_table_major.so", OLC_LOAD_ABI, "abi major 2"},
    {"mock_too_small.so", MOCK "/too_small/mock_too_small.so", OLC_LOAD_VALIDATE, "too small"},
    {"mock_null_required.so", MOCK "/null_required/mock_null_required.so", OLC_LOAD_VALIDATE,
     "required function run is NULL"},
    {"mock_bad_name.so", MOCK "/bad_name/mock_bad_name.so", OLC_LOAD_VALIDATE, "[a-z0-9_]"},
    {"mock_bad_utf8_name.so", MOCK "/bad_utf8_name/mock_bad_utf8_name.so", OLC_LOAD_VALIDATE,
     "not valid utf-8"},
    {"mock_no_operators.so", MOCK "/no_operators/mock_no_operators.so", OLC_LOAD_VALIDATE,
     "operators: 0 listed"},
    {"mock_create_fails.so", MOCK "/create_fails/mock_create_fails.so", OLC_LOAD_CREATE,
     "create failed on purpose"},
    {"mock_create_unavailable.so", MOCK "/create_unavailable/mock_create_unavailable.so",
     OLC_LOAD_CREATE, "unavailable here"},
    {"mock_dup_a.so", MOCK "/duplicate/mock_dup_a.so", OLC_LOAD_LOADED, "loaded mock_dup"},
    {"mock_dup_b.so", MOCK "/duplicate/mock_dup_b.so", OLC_LOAD_DUPLICATE, "already loaded"},
    {"text.so", NULL, OLC_LOAD_OPEN, "cannot load"},
    {"empty.so", NULL, OLC_LOAD_OPEN, "cannot load"},
    /* The hostile plugins, load time. */
    {"hostile_null_table.so", HOSTILE "/hostile_null_table.so", OLC_LOAD_ABI, "no table returned"},
    {"hostile_entry_status.so", HOSTILE "/hostile_entry_status.so", OLC_LOAD_ABI,
     "entry failed with status 12345"},
    {"hostile_long_name.so", HOSTILE "/hostile_long_name.so", OLC_LOAD_VALIDATE,
     "longer than 64 bytes"},
    {"hostile_empty_name.so", HOSTILE "/hostile_empty_name.so", OLC_LOAD_VALIDATE,
     "plugin name is empty"},
    {"hostile_null_operators.so", HOSTILE "/hostile_null_operators.so", OLC_LOAD_VALIDATE,
     "operators: 1 listed"},
    {"hostile_many_operators.so", HOSTILE "/hostile_many_operators.so", OLC_LOAD_VALIDATE,
     "operators: 1000000 listed"},
    {"hostile_bad_operator.so", HOSTILE "/hostile_bad_operator.so", OLC_LOAD_VALIDATE,
     "operator 0 is empty, too long or not valid utf-8"},
    {"hostile_no_version.so", HOSTILE "/hostile_no_version.so", OLC_LOAD_VALIDATE,
     "implementation_version"},
    {"hostile_create_no_detail.so", HOSTILE "/hostile_create_no_detail.so", OLC_LOAD_CREATE,
     "status -1: (no detail)"},
    {"hostile_log_flood.so", HOSTILE "/hostile_log_flood.so", OLC_LOAD_LOADED, "loaded"},
    {"hostile_stdout.so", HOSTILE "/hostile_stdout.so", OLC_LOAD_LOADED, "loaded"},
    /* The hostile plugins that load and misbehave later. */
    {"hostile_key_fails.so", HOSTILE "/hostile_key_fails.so", OLC_LOAD_LOADED, "loaded"},
    {"hostile_key_no_processor.so", HOSTILE "/hostile_key_no_processor.so", OLC_LOAD_LOADED,
     "loaded"},
    {"hostile_key_huge.so", HOSTILE "/hostile_key_huge.so", OLC_LOAD_LOADED, "loaded"},
    {"hostile_key_zero_threads.so", HOSTILE "/hostile_key_zero_threads.so", OLC_LOAD_LOADED,
     "loaded"},
    {"hostile_candidates_fail.so", HOSTILE "/hostile_candidates_fail.so", OLC_LOAD_LOADED,
     "loaded"},
    {"hostile_dup_candidates.so", HOSTILE "/hostile_dup_candidates.so", OLC_LOAD_LOADED, "loaded"},
    {"hostile_serialize_null.so", HOSTILE "/hostile_serialize_null.so", OLC_LOAD_LOADED, "loaded"},
    {"hostile_validate_garbage.so", HOSTILE "/hostile_validate_garbage.so", OLC_LOAD_LOADED,
     "loaded"},
    {"hostile_validate_rejects_own.so", HOSTILE "/hostile_validate_rejects_own.so", OLC_LOAD_LOADED,
     "loaded"},
    {"hostile_prepare_fails.so", HOSTILE "/hostile_prepare_fails.so", OLC_LOAD_LOADED, "loaded"},
    {"hostile_run_fails.so", HOSTILE "/hostile_run_fails.so", OLC_LOAD_LOADED, "loaded"},
    {"hostile_run_status.so", HOSTILE "/hostile_run_status.so", OLC_LOAD_LOADED, "loaded"},
    {"hostile_error_abuse.so", HOSTILE "/hostile_error_abuse.so", OLC_LOAD_LOADED, "loaded"},
    {"hostile_flops_inf.so", HOSTILE "/hostile_flops_inf.so", OLC_LOAD_LOADED, "loaded"},
};
#define LOAD_CASES (sizeof load_cases / sizeof load_cases[0])

/* One workload and what calibrating it must give. */
typedef struct run_case {
  const char *workload; /* also the suffix of the backend hostile_<workload> */
  const char *backend;
  olc_status status; /* OLC_OK: calibrated and selected */
  const char *reason;
} run_case;

static const run_case run_cases[] = {
    {"det", "mock_det", OLC_OK, NULL},
    {"log_flood", "hostile_log_flood", OLC_OK, NULL},
    {"stdout", "hostile_stdout", OLC_OK, NULL},
    {"dup_candidates", "hostile_dup_candidates", OLC_OK, NULL},
    {"validate_garbage", "hostile_validate_garbage", OLC_OK, NULL},
    {"flops_inf", "hostile_flops_inf", OLC_OK, NULL},
    {"key_fails", "hostile_key_fails", OLC_E_PLUGIN, "key: plugin hostile_key_fails: key failed"},
    {"key_no_processor", "hostile_key_no_processor", OLC_E_PLUGIN, "did not set the processor"},
    {"key_huge", "hostile_key_huge", OLC_E_LIMIT, "processor is longer than 4096 bytes"},
    {"key_zero_threads", "hostile_key_zero_threads", OLC_E_PLUGIN, "thread count 0"},
    {"candidates_fail", "hostile_candidates_fail", OLC_E_PLUGIN,
     "candidates failed after emitting two"},
    {"serialize_null", "hostile_serialize_null", OLC_E_PLUGIN, "NULL pointer"},
    {"validate_rejects_own", "hostile_validate_rejects_own", OLC_E_VALIDATION,
     "rejects even its own"},
    {"prepare_fails", "hostile_prepare_fails", OLC_E_PLUGIN,
     "prepare: plugin hostile_prepare_fails"},
    {"run_fails", "hostile_run_fails", OLC_E_PLUGIN, "run failed on purpose"},
    {"run_status", "hostile_run_status", OLC_E_PLUGIN, "12345"},
    {"error_abuse", "hostile_error_abuse", OLC_E_PLUGIN, "abcdefghij"},
    /* A user's config names them, and their files failed to load. */
    {"not_loaded", "mock_create_fails", OLC_E_PLUGIN, "failed (create)"},
    {"failed_load", "hostile_null_table", OLC_E_PLUGIN, "failed (abi)"},
};
#define RUN_CASES (sizeof run_cases / sizeof run_cases[0])

/* The garbage policy of hostile_validate_garbage (hostile_plugin.c). */
static const char garbage[] = "\0\n\"\\\r\x80\xff\t# ]=[x";

static char *tmp;
static char *plugin_dir;
static char *store_path;

static int make_dir(void) {
  size_t i;
  char *p;
  tmp = olc_test_tmpdir("hostile");
  if (tmp == NULL)
    return -1;
  plugin_dir = olc_test_path(tmp, "plugins");
  store_path = olc_test_path(tmp, "store/profiles.txt");
  if (mkdir(plugin_dir, 0700) != 0)
    return -1;
  for (i = 0; i < LOAD_CASES; i++) {
    int rc;
    p = olc_test_path(plugin_dir, load_cases[i].file);
    if (load_cases[i].target != NULL)
      rc = symlink(load_cases[i].target, p);
    else if (strcmp(load_cases[i].file, "text.so") == 0)
      rc = olc_test_write_file(p, "not a library\n", 14);
    else
      rc = olc_test_write_file(p, "", 0);
    free(p);
    if (rc != 0)
      return -1;
  }
  p = olc_test_path(plugin_dir, "dir.so"); /* a directory: reported, never opened */
  mkdir(p, 0700);
  free(p);
  return 0;
}

static olc_config *make_config(void) {
  char ini[8192];
  size_t n = 0;
  size_t i;
  olc_config *c = NULL;
  olc_error err;
  n += (size_t)snprintf(ini + n, sizeof ini - n,
                        "[host]\nplugin_dirs = %s\nthreads = 1\n"
                        "[store]\npath = %s\nlock_timeout_ms = 5000\n"
                        "[calibration]\nwarmup = 0\nmin_repetitions = 2\nmin_seconds = 0\n"
                        "max_seconds_per_workload = 1\nabandon_factor = 1000\n"
                        "[plugin.mock_det]\ncandidates = 20,10\n",
                        plugin_dir, store_path);
  for (i = 0; i < RUN_CASES; i++)
    n += (size_t)snprintf(ini + n, sizeof ini - n,
                          "[workload.%s]\nbackend = %s\noperator = MatMul\nm = 8\n",
                          run_cases[i].workload, run_cases[i].backend);
  CU_ASSERT_FATAL(n < sizeof ini);
  OLC_ASSERT_OK(olc_config_load_string(&c, ini, n, "hostile.ini", tmp, &err), &err);
  return c;
}

/* A record written before the hostile plugins run: it must survive. */
static void save_previous(olc_store *s) {
  olc_measurement m = {"median_latency", 1.0, "us"};
  olc_key key = olc_test_matmul_key("previous", "");
  olc_save_request req = olc_test_bit_exact_request(&key, "kept", 4, &m, 1);
  olc_error err;
  OLC_ASSERT_OK(olc_store_save(s, &req, &err), &err);
}

static const olc_workload_result *result_for(const olc_calibration *cal, const char *name) {
  size_t i;
  for (i = 0; i < olc_calibration_count(cal); i++)
    if (strcmp(olc_calibration_get(cal, i)->workload, name) == 0)
      return olc_calibration_get(cal, i);
  return NULL;
}

static void check_load_report(const olc_host *h) {
  size_t i;
  int ok = 1;
  printf("\n%-34s %-10s %s\n", "file", "stage", "reason");
  for (i = 0; i < LOAD_CASES; i++) {
    const load_case *lc = &load_cases[i];
    const olc_load_entry *e = olc_test_report_entry(h, lc->file);
    int good = e != NULL && e->stage == lc->stage && e->message != NULL &&
               strstr(e->message, lc->reason) != NULL && strchr(e->message, '\n') == NULL;
    printf("%-34s %-10s %s%s\n", lc->file, e ? olc_load_stage_str(e->stage) : "(missing)",
           e && e->message ? e->message : "", good ? "" : "   <-- UNEXPECTED");
    if (!good) {
      ok = 0;
      CU_FAIL("load report entry differs");
    }
    /* A failure is never OLC_OK, a success always is. */
    if (e != NULL)
      CU_ASSERT_EQUAL(e->status == OLC_OK,
                      e->stage == OLC_LOAD_LOADED || e->stage == OLC_LOAD_DISABLED);
  }
  /* Exactly these entries, and the directory named dir.so, which is
   * reported for what it is (test_hostile_plugin_dirs has the other
   * entries that are not files). */
  {
    const olc_load_entry *e = olc_test_report_entry(h, "dir.so");
    CU_ASSERT_TRUE(e != NULL && e->stage == OLC_LOAD_OPEN &&
                   strstr(e->message, "not a regular file: a directory") != NULL);
  }
  CU_ASSERT_EQUAL(olc_host_report_count(h), LOAD_CASES + 1);
  printf("load report: %lu files, %s\n", (unsigned long)LOAD_CASES, ok ? "as expected" : "FAILED");
}

static void check_results(const olc_calibration *cal) {
  size_t i;
  printf("\n%-22s %-18s %s\n", "workload", "status", "reason");
  for (i = 0; i < RUN_CASES; i++) {
    const run_case *rc = &run_cases[i];
    const olc_workload_result *r = result_for(cal, rc->workload);
    int good;
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    good = r->status == rc->status &&
           (rc->status == OLC_OK ? r->selected != NULL
                                 : r->message != NULL && strstr(r->message, rc->reason) != NULL &&
                                       strchr(r->message, '\n') == NULL && r->selected == NULL);
    printf("%-22s %-18s %s%s\n", rc->workload, olc_status_str(r->status),
           r->message ? r->message : "(selected)", good ? "" : "   <-- UNEXPECTED");
    if (!good)
      CU_FAIL("workload result differs");
  }
}

/* Records allowed after the run: the well-behaved plugins and "previous". */
static int allowed_backend(const char *b) {
  size_t i;
  if (strcmp(b, "previous") == 0)
    return 1;
  for (i = 0; i < RUN_CASES; i++)
    if (run_cases[i].status == OLC_OK && strcmp(run_cases[i].backend, b) == 0)
      return 1;
  return 0;
}

static void check_store_file(void) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_record_list *list = NULL;
  size_t records = 0;
  size_t i, k;
  int saw_previous = 0, saw_garbage = 0, saw_det = 0;
  olc_error err;
  OLC_ASSERT_OK(olc_store_check_file(store_path, &records, &err), &err);
  o.path = store_path;
  OLC_ASSERT_OK(olc_store_open(&s, &o, &err), &err);
  OLC_ASSERT_OK(olc_store_load_status(s, &err), &err);
  OLC_ASSERT_OK(olc_store_list(&list, s, &err), &err);
  CU_ASSERT_EQUAL(olc_record_list_count(list), records);
  for (i = 0; i < olc_record_list_count(list); i++) {
    const olc_record *r = olc_record_list_get(list, i);
    if (!allowed_backend(r->backend)) {
      printf("unexpected record of %s\n", r->backend);
      CU_FAIL("a record of a misbehaving plugin was stored");
    }
    for (k = 0; k < r->measurement_count; k++)
      CU_ASSERT_TRUE(isfinite(r->measurements[k].value));
    if (strcmp(r->backend, "previous") == 0)
      saw_previous = r->policy_len == 4 && memcmp(r->policy, "kept", 4) == 0;
    if (strcmp(r->backend, "mock_det") == 0)
      saw_det = 1;
    if (strcmp(r->backend, "hostile_validate_garbage") == 0) {
      /* Opaque bytes, exactly as serialized, NUL and all. */
      CU_ASSERT_EQUAL(r->policy_len, sizeof garbage);
      if (r->policy_len == sizeof garbage) {
        CU_ASSERT_EQUAL(memcmp(r->policy, garbage, sizeof garbage - 1), 0);
        CU_ASSERT_TRUE(r->policy[sizeof garbage - 1] == '1' ||
                       r->policy[sizeof garbage - 1] == '3');
        saw_garbage = 1;
      }
    }
    if (strcmp(r->backend, "hostile_flops_inf") == 0)
      for (k = 0; k < r->measurement_count; k++)
        CU_ASSERT_NOT_EQUAL(strcmp(r->measurements[k].name, "gflops"), 0);
  }
  CU_ASSERT_TRUE(saw_previous);
  CU_ASSERT_TRUE(saw_det);
  CU_ASSERT_TRUE(saw_garbage);
  printf("\nstore: %lu records, parses, only well-behaved plugins\n", (unsigned long)records);
  olc_record_list_free(list);
  olc_store_free(s);
}

/* The plugin log: bounded, one line each, valid text. */
static void check_log(const olc_host *host) {
  const olc_plugin_set *h = olc_host__plugins(host);
  size_t i, n = olc_plugins__log_count(h);
  char line[512];
  CU_ASSERT_TRUE(n <= 64);
  for (i = 0; i < n; i++) {
    CU_ASSERT_TRUE(olc_plugins__log_line(h, i, line, sizeof line) >= 0);
    CU_ASSERT_PTR_NULL(strchr(line, '\n'));
  }
}

static void test_hostile_directory(void) {
  olc_config *c;
  olc_store *s = NULL;
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  olc_host *h = NULL;
  olc_host_options ho = OLC_HOST_OPTIONS_INIT;
  olc_calibration *cal = NULL;
  olc_error err;
  CU_ASSERT_FATAL(make_dir() == 0);
  c = make_config();
  olc_config_store_options(c, &so);
  OLC_ASSERT_OK(olc_store_open(&s, &so, &err), &err);
  save_previous(s);
  ho.ignore_env = 1;
  OLC_ASSERT_OK(olc_host_open(&h, c, s, &ho, &err), &err);
  check_load_report(h);
  OLC_ASSERT_OK(olc_host_calibrate(&cal, h, NULL, &err), &err);
  check_results(cal);
  check_log(h);
  olc_calibration_free(cal);
  /* A second pass selects from the store; the bad plugins fail the same
   * way and the store is not touched by them. */
  OLC_ASSERT_OK(olc_host_calibrate(&cal, h, NULL, &err), &err);
  check_results(cal);
  CU_ASSERT_FALSE(result_for(cal, "det")->calibrated_now);
  olc_calibration_free(cal);
  olc_host_free(h);
  olc_store_free(s);
  olc_config_free(c);
  check_store_file();
  printf("kinds: %lu files in the load report, %lu run-time workloads\n", (unsigned long)LOAD_CASES,
         (unsigned long)RUN_CASES);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  int rc;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("hostile_plugins", NULL, NULL);
  CU_add_test(s, "hostile_directory", test_hostile_directory);
  rc = olc_test_run(argc, argv);
  if (tmp != NULL)
    olc_test_rmtree(tmp);
  free(tmp);
  free(plugin_dir);
  free(store_path);
  return rc;
}
