/*
 * tests/loader/test_host_open.c - olc_host_open driven by an ini config
 * (directories, [plugin.NAME] entries, critical, options, the config's
 * allow_insecure_plugins), its diagnostics (kept, or handed to the
 * callback of olc_host_options version 2) and olc_host_explain against
 * mock_det.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "olc/host.h"
#include "olc/store.h"
#include "host/host.h"
#include "plugins/plugins.h"
#include "test_support.h"

#define ROOT OLC_MOCK_PLUGIN_ROOT

static olc_config *load(const char *text) {
  olc_config *c = NULL;
  olc_error err;
  OLC_ASSERT_OK(olc_config_load_string(&c, text, strlen(text), "test.ini", NULL, &err), &err);
  return c;
}

static const char *const base_ini = "[host]\n"
                                    "plugin_dirs = " ROOT "/good, " ROOT "/create_fails\n"
                                    "threads = 2\n"
                                    "[store]\n"
                                    "persistence = false\n"
                                    "[workload.w1]\n"
                                    "backend = mock_det\n"
                                    "operator = MatMul\n"
                                    "m = 64\n"
                                    "[workload.w2]\n"
                                    "backend = missing\n"
                                    "operator = MatMul\n"
                                    "[workload.w3]\n"
                                    "backend = mock_det\n"
                                    "operator = Softmax\n"
                                    "[plugin.mock_det]\n"
                                    "processor = ini-cpu\n";

static void test_open(void) {
  olc_config *c = load(base_ini);
  olc_store *s = olc_test_memory_store();
  olc_host *h = NULL;
  olc_host_options o = OLC_HOST_OPTIONS_INIT;
  olc_error err;
  o.ignore_env = 1;
  OLC_ASSERT_OK(olc_host_open(&h, c, s, &o, &err), &err);
  CU_ASSERT_EQUAL_FATAL(olc_host_report_count(h), 2);
  CU_ASSERT_EQUAL(olc_host_report(h, 0)->stage, OLC_LOAD_LOADED);
  CU_ASSERT_EQUAL(olc_host_report(h, 1)->stage, OLC_LOAD_CREATE);
  CU_ASSERT_PTR_EQUAL(olc_host__config(h), c);
  CU_ASSERT_PTR_EQUAL(olc_host__store(h), s);
  CU_ASSERT_PTR_NOT_NULL(olc_plugins__find(olc_host__plugins(h), "mock_det"));
  olc_host_free(h);
  OLC_ASSERT_OK(olc_host_open(&h, c, s, NULL, &err), &err); /* NULL options */
  olc_host_free(h);
  o.version = 99;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_host_open(&h, c, s, &o, &err), &err);
  CU_ASSERT_PTR_NULL(h);
  /* No config: the built-in defaults (olc_host_options version 6). */
  OLC_ASSERT_OK(olc_host_open(&h, NULL, s, NULL, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(h);
  olc_host_free(h);
  h = NULL;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_host_open(NULL, c, s, NULL, &err), &err);
  olc_config_free(c);
  olc_store_free(s);
}

static void test_critical_from_config(void) {
  char ini[2048];
  olc_config *c;
  olc_host *h = NULL;
  olc_error err;
  snprintf(ini, sizeof ini, "%s[plugin.mock_create_fails]\ncritical = true\n", base_ini);
  c = load(ini);
  OLC_ASSERT_STATUS(OLC_E_PLUGIN, olc_host_open(&h, c, NULL, NULL, &err), &err);
  CU_ASSERT_PTR_NULL(h);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "plugin mock_create_fails: critical"));
  olc_config_free(c);
  /* enabled = false: not even opened, so not failing either. */
  snprintf(ini, sizeof ini, "%s[plugin.mock_create_fails]\ncritical = true\nenabled = false\n",
           base_ini);
  c = load(ini);
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, NULL, &err), &err);
  CU_ASSERT_EQUAL(olc_host_report(h, 1)->stage, OLC_LOAD_DISABLED);
  olc_host_free(h);
  olc_config_free(c);
}

/* [host] allow_insecure_plugins and the env path, through a config. */
static void test_insecure_and_env(void) {
  char *tmp = olc_test_tmpdir("host-open");
  char *link;
  char ini[1024];
  olc_config *c;
  olc_host *h = NULL;
  olc_host_options o = OLC_HOST_OPTIONS_INIT;
  olc_error err;
  CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
  link = olc_test_path(tmp, "det.so");
  CU_ASSERT_EQUAL(symlink(ROOT "/good/mock_det.so", link), 0);
  CU_ASSERT_EQUAL(chmod(tmp, 0777), 0);
  snprintf(ini, sizeof ini, "[host]\nplugin_dirs = %s\n", tmp);
  c = load(ini);
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, NULL, &err), &err);
  CU_ASSERT_EQUAL(olc_host_report(h, 0)->stage, OLC_LOAD_PERMISSIONS);
  olc_host_free(h);
  o.allow_insecure_plugins = 1;
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, &o, &err), &err);
  CU_ASSERT_EQUAL(olc_host_report(h, 0)->stage, OLC_LOAD_LOADED);
  olc_host_free(h);
  olc_config_free(c);
  snprintf(ini, sizeof ini, "[host]\nplugin_dirs = %s\nallow_insecure_plugins = true\n", tmp);
  c = load(ini);
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, NULL, &err), &err);
  CU_ASSERT_EQUAL(olc_host_report(h, 0)->stage, OLC_LOAD_LOADED);
  olc_host_free(h);
  olc_config_free(c);
  /* OLC_PLUGIN_PATH adds a directory, unless ignore_env. */
  c = load("[host]\nplugin_dirs = /nonexistent-olc\n");
  CU_ASSERT_EQUAL(setenv("OLC_PLUGIN_PATH", ROOT "/sorted", 1), 0);
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, NULL, &err), &err);
  CU_ASSERT_EQUAL(olc_plugins__count(olc_host__plugins(h)), 3);
  olc_host_free(h);
  o.allow_insecure_plugins = 0;
  o.ignore_env = 1;
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, &o, &err), &err);
  CU_ASSERT_EQUAL(olc_host_report_count(h), 0);
  olc_host_free(h);
  CU_ASSERT_EQUAL(unsetenv("OLC_PLUGIN_PATH"), 0);
  olc_config_free(c);
  CU_ASSERT_EQUAL(chmod(tmp, 0700), 0);
  free(link);
  olc_test_rmtree(tmp);
  free(tmp);
}

typedef struct diag_seen {
  int calls;
  char where[OLC_DIAG_WHERE_SIZE];
  char message[OLC_DIAG_MESSAGE_SIZE];
} diag_seen;

static void on_diag(void *payload, olc_diag_level level, const char *where, const char *message) {
  diag_seen *d = payload;
  CU_ASSERT_EQUAL(level, OLC_DIAG_WARNING);
  d->calls++;
  snprintf(d->where, sizeof d->where, "%s", where);
  snprintf(d->message, sizeof d->message, "%s", message);
}

/* A host opened over a directory that does not exist, one that holds a
 * file that is not a plugin, and a @exe_dir@ location that does not exist
 * either (quiet: a default location). */
static const char *const warn_ini =
    "[host]\nplugin_dirs = @exe_dir@/olc-no-such-dir, /nonexistent-olc, " ROOT "/no_entry\n";

/* Without a callback the warnings are kept, taken oldest first, once. */
static void test_diagnostics_kept(void) {
  olc_config *c = load(warn_ini);
  olc_host *h = NULL;
  olc_host_options o = OLC_HOST_OPTIONS_INIT;
  olc_diagnostic d;
  olc_error err;
  o.ignore_env = 1;
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, &o, &err), &err);
  OLC_ASSERT_OK(olc_host_next_diagnostic(&d, h), NULL);
  CU_ASSERT_EQUAL(d.level, OLC_DIAG_WARNING);
  CU_ASSERT_STRING_EQUAL(d.where, "plugin_dirs");
  CU_ASSERT_STRING_EQUAL(d.message, "plugin directory /nonexistent-olc does not exist: skipped");
  OLC_ASSERT_OK(olc_host_next_diagnostic(&d, h), NULL);
  CU_ASSERT_STRING_EQUAL(d.where, "load");
  CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "mock_no_entry.so skipped (symbol): "));
  OLC_ASSERT_OK(olc_host_next_diagnostic(&d, h), NULL); /* none loaded: said last */
  CU_ASSERT_STRING_EQUAL(d.where, "plugins");
  CU_ASSERT_EQUAL(olc_host_next_diagnostic(&d, h), OLC_E_NOT_FOUND);
  CU_ASSERT_EQUAL(olc_host_diagnostics_dropped(h), 0);
  CU_ASSERT_EQUAL(olc_host_next_diagnostic(NULL, h), OLC_E_INVALID);
  CU_ASSERT_EQUAL(olc_host_next_diagnostic(&d, NULL), OLC_E_INVALID);
  CU_ASSERT_EQUAL(olc_host_diagnostics_dropped(NULL), 0);
  olc_host_free(h);
  olc_config_free(c);
}

/* With a callback each warning goes to it, as it arises, and none is
 * kept; a version-1 caller's options (without the callback) still work;
 * versions 0 and 3 are refused naming the struct. */
static void test_diagnostics_callback(void) {
  olc_config *c = load(warn_ini);
  olc_host *h = NULL;
  olc_host_options o = OLC_HOST_OPTIONS_INIT;
  olc_diagnostic d;
  diag_seen seen;
  olc_error err;
  memset(&seen, 0, sizeof seen);
  o.ignore_env = 1;
  o.diag = on_diag;
  o.diag_payload = &seen;
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, &o, &err), &err);
  CU_ASSERT_EQUAL(seen.calls, 3);
  CU_ASSERT_STRING_EQUAL(seen.where, "plugins");
  CU_ASSERT_EQUAL(olc_host_next_diagnostic(&d, h), OLC_E_NOT_FOUND);
  olc_host_free(h);
  h = NULL;
  o.version = 0;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_host_open(&h, c, NULL, &o, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "olc_host_options version 0"));
  o.version = OLC_HOST_OPTIONS_VERSION + 1;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_host_open(&h, c, NULL, &o, &err), &err);
  CU_ASSERT_PTR_NULL(h);
  olc_config_free(c);
}

/* OLC_PLUGIN_PATH entries: a relative one is ignored, a missing one
 * skipped, each with a warning. */
static void test_diagnostics_env(void) {
  olc_config *c = load("[host]\nplugin_dirs =\n");
  olc_host *h = NULL;
  olc_diagnostic d;
  olc_error err;
  CU_ASSERT_EQUAL(setenv("OLC_PLUGIN_PATH", "relative/dir:/nonexistent-olc-env", 1), 0);
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, NULL, &err), &err);
  CU_ASSERT_EQUAL(unsetenv("OLC_PLUGIN_PATH"), 0);
  OLC_ASSERT_OK(olc_host_next_diagnostic(&d, h), NULL);
  CU_ASSERT_STRING_EQUAL(d.where, "OLC_PLUGIN_PATH");
  CU_ASSERT_STRING_EQUAL(d.message, "entry relative/dir is not an absolute path: ignored");
  OLC_ASSERT_OK(olc_host_next_diagnostic(&d, h), NULL);
  CU_ASSERT_STRING_EQUAL(d.message,
                         "plugin directory /nonexistent-olc-env does not exist: skipped");
  OLC_ASSERT_OK(olc_host_next_diagnostic(&d, h), NULL);
  CU_ASSERT_STRING_EQUAL(d.where, "plugins");
  CU_ASSERT_EQUAL(olc_host_next_diagnostic(&d, h), OLC_E_NOT_FOUND);
  olc_host_free(h);
  olc_config_free(c);
}

/* A host that loads no plugin at all says so once ("plugins", naming the
 * places searched); one that loads a plugin says nothing of the kind. */
static void test_no_plugin_warning(void) {
  olc_config *c = load("[host]\nplugin_dirs = @exe_dir@/olc-no-such-dir\n");
  olc_host *h = NULL;
  olc_host_options o = OLC_HOST_OPTIONS_INIT;
  olc_diagnostic d;
  olc_error err;
  o.ignore_env = 1;
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, &o, &err), &err);
  OLC_ASSERT_OK(olc_host_next_diagnostic(&d, h), NULL);
  CU_ASSERT_EQUAL(d.level, OLC_DIAG_WARNING);
  CU_ASSERT_STRING_EQUAL(d.where, "plugins");
  CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "no plugin loaded (searched: "));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.message, "/olc-no-such-dir"));
  CU_ASSERT_EQUAL(olc_host_next_diagnostic(&d, h), OLC_E_NOT_FOUND);
  olc_host_free(h);
  olc_config_free(c);
  c = load("[host]\nplugin_dirs =\n");
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, &o, &err), &err);
  OLC_ASSERT_OK(olc_host_next_diagnostic(&d, h), NULL);
  CU_ASSERT_STRING_EQUAL(d.message, "no plugin loaded (searched: no directory); every select "
                                    "gives no tuned policy");
  olc_host_free(h);
  olc_config_free(c);
  c = load("[host]\nplugin_dirs = " ROOT "/good\n");
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, &o, &err), &err);
  CU_ASSERT_EQUAL(olc_host_next_diagnostic(&d, h), OLC_E_NOT_FOUND);
  olc_host_free(h);
  olc_config_free(c);
}

/* The mode a select gets: options field > OLC_SELECT_MODE > the ini's
 * [calibration] select_mode > never; ignore_env (the options' or the
 * config's mark) skips the variable; a bad value is a one-line error
 * naming the variable and the value. */
static int mode_of(olc_config *c, int field, int ignore_env) {
  olc_host *h = NULL;
  olc_host_options o = OLC_HOST_OPTIONS_INIT;
  olc_error err;
  int mode;
  o.select_mode = field;
  o.ignore_env = ignore_env;
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, &o, &err), &err);
  mode = olc_host__select_mode(h);
  olc_host_free(h);
  return mode;
}

static void test_select_mode_env(void) {
  olc_config *plain = load("[host]\nplugin_dirs = " ROOT "/good\n");
  olc_config *ini = load("[host]\nplugin_dirs = " ROOT "/good\n"
                         "[calibration]\nselect_mode = on_miss\n");
  olc_host *h = NULL;
  olc_error err;
  CU_ASSERT_EQUAL(unsetenv("OLC_SELECT_MODE"), 0);
  CU_ASSERT_EQUAL(mode_of(plain, OLC_SELECT_HOST_DEFAULT, 0), OLC_SELECT_NEVER); /* built in */
  CU_ASSERT_EQUAL(mode_of(ini, OLC_SELECT_HOST_DEFAULT, 0), OLC_SELECT_ON_MISS); /* ini */
  CU_ASSERT_EQUAL(setenv("OLC_SELECT_MODE", "on_miss", 1), 0);
  CU_ASSERT_EQUAL(mode_of(plain, OLC_SELECT_HOST_DEFAULT, 0), OLC_SELECT_ON_MISS); /* env */
  CU_ASSERT_EQUAL(mode_of(plain, OLC_SELECT_NEVER, 0), OLC_SELECT_NEVER);          /* field */
  CU_ASSERT_EQUAL(mode_of(plain, OLC_SELECT_HOST_DEFAULT, 1), OLC_SELECT_NEVER);   /* ignored */
  CU_ASSERT_EQUAL(setenv("OLC_SELECT_MODE", "never", 1), 0);
  CU_ASSERT_EQUAL(mode_of(ini, OLC_SELECT_HOST_DEFAULT, 0), OLC_SELECT_NEVER); /* env > ini */
  CU_ASSERT_EQUAL(mode_of(ini, OLC_SELECT_ON_MISS, 0), OLC_SELECT_ON_MISS);    /* field > env */
  CU_ASSERT_EQUAL(mode_of(ini, OLC_SELECT_HOST_DEFAULT, 1), OLC_SELECT_ON_MISS);
  olc_config_set_ignore_env(ini, 1); /* the config's mark turns it off too */
  CU_ASSERT_EQUAL(mode_of(ini, OLC_SELECT_HOST_DEFAULT, 0), OLC_SELECT_ON_MISS);
  olc_config_set_ignore_env(ini, 0);
  CU_ASSERT_EQUAL(setenv("OLC_SELECT_MODE", "sometimes", 1), 0);
  OLC_ASSERT_STATUS(OLC_E_CONFIG, olc_host_open(&h, ini, NULL, NULL, &err), &err);
  CU_ASSERT_PTR_NULL(h);
  CU_ASSERT_STRING_EQUAL(err.message, "OLC_SELECT_MODE=\"sometimes\": expected never or on_miss");
  /* An explicit mode never reads it, so a bad value does not matter. */
  CU_ASSERT_EQUAL(mode_of(ini, OLC_SELECT_NEVER, 0), OLC_SELECT_NEVER);
  CU_ASSERT_EQUAL(setenv("OLC_SELECT_MODE", "", 1), 0); /* empty: unset */
  CU_ASSERT_EQUAL(mode_of(ini, OLC_SELECT_HOST_DEFAULT, 0), OLC_SELECT_ON_MISS);
  CU_ASSERT_EQUAL(unsetenv("OLC_SELECT_MODE"), 0);
  olc_config_free(plain);
  olc_config_free(ini);
}

static const char *w1_digest = "";

static void put(olc_store *s, const char *processor, const char *policy, int override) {
  olc_key key;
  olc_property st = {"m", "64"};
  olc_measurement m = {"median_latency", 1.0, "us"};
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  olc_error err;
  memset(&key, 0, sizeof key);
  key.backend = "mock_det";
  key.operator_name = "MatMul";
  key.implementation = "1";
  key.model_digest = w1_digest;
  key.processor = processor;
  key.thread_count = 2;
  key.structure = &st;
  key.structure_count = 1;
  req.key = &key;
  req.measurements = &m;
  req.measurement_count = 1;
  req.policy = policy;
  req.policy_len = strlen(policy);
  req.levels = OLC_LEVEL_BIT_EXACT;
  if (override)
    OLC_ASSERT_OK(olc_store_install_override(s, &req, &err), &err);
  else
    OLC_ASSERT_OK(olc_store_save(s, &req, &err), &err);
}

static void test_explain(void) {
  olc_config *c = load(base_ini);
  olc_store *s = olc_test_memory_store();
  olc_host *h = NULL;
  olc_lookup_result *r = NULL;
  const olc_record *sel;
  size_t i;
  int saw_processor = 0;
  int saw_validation = 0;
  olc_error err;
  OLC_ASSERT_OK(olc_host_open(&h, c, s, NULL, &err), &err);
  /* The exact key carries the workload's digest as the config gives it. */
  CU_ASSERT_PTR_NOT_NULL_FATAL(olc_config_find_workload(c, "w1"));
  if (olc_config_find_workload(c, "w1")->model_digest != NULL)
    w1_digest = olc_config_find_workload(c, "w1")->model_digest;
  /* Nothing stored: explained, nothing selected. */
  OLC_ASSERT_STATUS(OLC_E_NOT_FOUND, olc_host_explain(&r, h, "w1", 0, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(r);
  olc_lookup_result_free(r);
  r = NULL;
  put(s, "ini-cpu", "spin_us=100", 0);
  put(s, "other-cpu", "spin_us=200", 0);
  put(s, "ini-cpu-2", "spin_us=300", 0);
  put(s, "ini-cpu", "not a policy", 1); /* the plugin's validate says no */
  OLC_ASSERT_OK(olc_host_explain(&r, h, "w1", 0, &err), &err);
  sel = olc_lookup_result_selected(r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sel);
  CU_ASSERT_STRING_EQUAL(sel->processor, "ini-cpu");
  CU_ASSERT_EQUAL(sel->thread_count, 2);
  for (i = 0; i < olc_lookup_result_rejected_count(r); i++) {
    const olc_rejection *rj = olc_lookup_result_rejected(r, i);
    if (strcmp(rj->record->processor, "other-cpu") == 0)
      saw_processor = 1;
    if (rj->reason == OLC_REASON_VALIDATION_FAILED)
      saw_validation = 1;
  }
  CU_ASSERT_TRUE(saw_processor);
  CU_ASSERT_TRUE(saw_validation);
  CU_ASSERT_EQUAL(olc_lookup_result_rejected_count(r), 3);
  olc_lookup_result_free(r);
  r = NULL;
  /* OLC_EXPLAIN_ALL (olc explain --all): the same selection, every record
   * of the backend and operator a candidate (at least the scoped ones). */
  OLC_ASSERT_OK(olc_host_explain(&r, h, "w1", OLC_EXPLAIN_ALL, &err), &err);
  sel = olc_lookup_result_selected(r);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sel);
  CU_ASSERT_STRING_EQUAL(sel->processor, "ini-cpu");
  CU_ASSERT(olc_lookup_result_rejected_count(r) >= 3);
  olc_lookup_result_free(r);
  r = NULL;
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_host_explain(&r, h, "w1", 2u, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "flags"));
  CU_ASSERT_PTR_NULL(r);
  OLC_ASSERT_STATUS(OLC_E_NOT_FOUND, olc_host_explain(&r, h, "nope", 0, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "nope"));
  OLC_ASSERT_STATUS(OLC_E_UNAVAILABLE, olc_host_explain(&r, h, "w2", 0, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "missing"));
  OLC_ASSERT_STATUS(OLC_E_UNSUPPORTED, olc_host_explain(&r, h, "w3", 0, &err), &err);
  CU_ASSERT_PTR_NULL(r);
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_host_explain(NULL, h, "w1", 0, &err), &err);
  olc_host_free(h);
  /* Without a store there is nothing to explain. */
  OLC_ASSERT_OK(olc_host_open(&h, c, NULL, NULL, &err), &err);
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_host_explain(&r, h, "w1", 0, &err), &err);
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_host_prune(h, OLC_PRUNE_DRY_RUN, NULL, NULL, NULL, &err),
                    &err);
  olc_host_free(h);
  olc_config_free(c);
  olc_store_free(s);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("host_open", NULL, NULL);
  CU_add_test(s, "open", test_open);
  CU_add_test(s, "critical_from_config", test_critical_from_config);
  CU_add_test(s, "insecure_and_env", test_insecure_and_env);
  CU_add_test(s, "explain", test_explain);
  CU_add_test(s, "diagnostics kept", test_diagnostics_kept);
  CU_add_test(s, "diagnostics to a callback", test_diagnostics_callback);
  CU_add_test(s, "diagnostics of OLC_PLUGIN_PATH", test_diagnostics_env);
  CU_add_test(s, "no plugin loaded: a warning", test_no_plugin_warning);
  CU_add_test(s, "OLC_SELECT_MODE and its precedence", test_select_mode_env);
  return olc_test_run(argc, argv);
}
