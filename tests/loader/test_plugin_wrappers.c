/*
 * tests/loader/test_plugin_wrappers.c - the wrappers of plugins.h against
 * the mock_behave plugin made to misbehave through its [plugin.NAME]
 * entries: sink caps, UTF-8 checks, candidate caps, status mapping with the
 * plugin's message; and the host services (log, clock, store lookup/save on
 * the plugin's behalf) plus olc_host_prune.
 */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "olc/host.h"
#include "olc/store.h"
#include "plugins/plugins_int.h"
#include "test_support.h"
#include "util/platform.h"

#define BEHAVE_DIR OLC_MOCK_PLUGIN_ROOT "/behave"

typedef struct one_cfg {
  olc_plugin_config pc;
  olc_property entries[2];
} one_cfg;

static const olc_plugin_config *one_lookup(void *payload, const char *name) {
  one_cfg *c = payload;
  return strcmp(name, "mock_behave") == 0 ? &c->pc : NULL;
}

/* mock_behave with up to two [plugin.mock_behave] entries (NULL: none). */
static olc_loaded_plugin *behave(olc_host **h, olc_store *store, const char *k1, const char *v1,
                                 const char *k2, const char *v2) {
  const char *dirs[] = {BEHAVE_DIR};
  one_cfg cfg;
  olc_host_params params;
  olc_error err;
  olc_loaded_plugin *p;
  memset(&cfg, 0, sizeof cfg);
  cfg.pc.name = "mock_behave";
  cfg.pc.enabled = 1;
  cfg.pc.entries = cfg.entries;
  cfg.entries[0].name = k1;
  cfg.entries[0].value = v1;
  cfg.entries[1].name = k2;
  cfg.entries[1].value = v2;
  cfg.pc.entry_count = k1 == NULL ? 0 : k2 == NULL ? 1 : 2;
  memset(&params, 0, sizeof params);
  params.load.dirs = dirs;
  params.load.dir_count = 1;
  params.load.threads = 2;
  params.load.plugin_config = one_lookup;
  params.load.plugin_config_payload = &cfg;
  params.load.ignore_env = 1;
  params.store = store;
  *h = NULL;
  if (olc_host__open_params(h, &params, &err) != OLC_OK) {
    olc_test_print_error("olc_host__open_params", err.code, OLC_OK, &err);
    return NULL;
  }
  p = olc_plugins__find(olc_host__plugins(*h), "mock_behave");
  if (p == NULL)
    fprintf(stderr, "\n  mock_behave did not load: %s\n",
            olc_host_report_count(*h) ? olc_host_report(*h, 0)->message : "(no file)");
  return p;
}

static olc_plugin_kv props[3] = {{"n", "32"}, {"m", "64"}, {"k", "16"}};

static void workload(olc_plugin_workload *w, const char *op) {
  memset(w, 0, sizeof *w);
  w->struct_size = (uint32_t)sizeof *w;
  w->abi_minor = OLC_PLUGIN_ABI_MINOR;
  w->name = "wl";
  w->operator_name = op;
  w->properties = props;
  w->property_count = 3;
}

static void test_key_ok(void) {
  olc_host *h;
  olc_loaded_plugin *p = behave(&h, NULL, NULL, NULL, NULL, NULL);
  olc_plugin_workload w;
  olc_plugin_key k;
  olc_key key;
  olc_error err;
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  workload(&w, "MatMul");
  OLC_ASSERT_OK(olc_plugins__key(&k, p, &w, &err), &err);
  CU_ASSERT_STRING_EQUAL(k.processor, "mock-cpu");
  CU_ASSERT_EQUAL(k.thread_count, 2);
  CU_ASSERT_EQUAL_FATAL(k.structure_count, 3);
  CU_ASSERT_STRING_EQUAL(k.structure[0].name, "k"); /* sorted */
  CU_ASSERT_STRING_EQUAL(k.structure[1].name, "m");
  CU_ASSERT_STRING_EQUAL(k.structure[2].value, "32");
  olc_host__make_key(&key, p, &w, &k, NULL);
  CU_ASSERT_STRING_EQUAL(key.backend, "mock_behave");
  CU_ASSERT_STRING_EQUAL(key.implementation, "1");
  CU_ASSERT_STRING_EQUAL(key.operator_name, "MatMul");
  CU_ASSERT_STRING_EQUAL(key.model_digest, "");
  CU_ASSERT_EQUAL(key.thread_count, 2);
  olc_plugin_key__free(&k);
  olc_plugin_key__free(&k); /* idempotent */
  workload(&w, "Softmax");
  OLC_ASSERT_STATUS(OLC_E_UNSUPPORTED, olc_plugins__key(&k, p, &w, &err), &err);
  CU_ASSERT_STRING_EQUAL(err.message, "plugin mock_behave: operator not served by the mock");
  CU_ASSERT_EQUAL(err.backend_code, OLC_PLUGIN_E_UNSUPPORTED);
  CU_ASSERT_PTR_NULL(k.processor);
  olc_host_free(h);
}

typedef struct key_case {
  const char *mode;
  olc_status status;
  const char *needle;
} key_case;

static void test_key_caps(void) {
  static const key_case cases[] = {
      {"huge_processor", OLC_E_LIMIT, "processor is longer than 4096 bytes"},
      {"empty_processor", OLC_E_PLUGIN, "processor is empty"},
      {"no_processor", OLC_E_PLUGIN, "did not set the processor"},
      {"bad_utf8_structure", OLC_E_PLUGIN, "not valid utf-8"},
      {"duplicate_structure", OLC_E_PLUGIN, "given twice"},
      {"unsupported", OLC_E_UNSUPPORTED, "not served"},
      {"null_use_property", OLC_E_PLUGIN, "used property name is NULL"},
      {"bad_utf8_use_property", OLC_E_PLUGIN, "used property name is not valid utf-8"},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    olc_host *h;
    olc_loaded_plugin *p = behave(&h, NULL, "key", cases[i].mode, NULL, NULL);
    olc_plugin_workload w;
    olc_plugin_key k;
    olc_error err;
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    workload(&w, "MatMul");
    OLC_ASSERT_STATUS(cases[i].status, olc_plugins__key(&k, p, &w, &err), &err);
    if (strstr(err.message, cases[i].needle) == NULL)
      fprintf(stderr, "\n  key=%s: %s\n", cases[i].mode, err.message);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, cases[i].needle));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "plugin mock_behave: "));
    CU_ASSERT_PTR_NULL(k.storage);
    olc_host_free(h);
  }
}

static void test_key_structure_cap(void) {
  olc_host *h;
  olc_loaded_plugin *p = behave(&h, NULL, NULL, NULL, NULL, NULL);
  olc_plugin_kv many[OLC_PLUGINS_MAX_STRUCTURE + 1];
  char names[OLC_PLUGINS_MAX_STRUCTURE + 1][8];
  olc_plugin_workload w;
  olc_plugin_key k;
  olc_error err;
  size_t i;
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  for (i = 0; i <= OLC_PLUGINS_MAX_STRUCTURE; i++) {
    snprintf(names[i], sizeof names[i], "p%zu", i);
    many[i].key = names[i];
    many[i].value = "1";
  }
  workload(&w, "MatMul");
  w.properties = many;
  w.property_count = OLC_PLUGINS_MAX_STRUCTURE;
  OLC_ASSERT_OK(olc_plugins__key(&k, p, &w, &err), &err);
  CU_ASSERT_EQUAL(k.structure_count, OLC_PLUGINS_MAX_STRUCTURE);
  olc_plugin_key__free(&k);
  w.property_count = OLC_PLUGINS_MAX_STRUCTURE + 1;
  OLC_ASSERT_STATUS(OLC_E_LIMIT, olc_plugins__key(&k, p, &w, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "structural properties"));
  olc_host_free(h);
}

/* Each workload property is reported or declared used, or the key fails
 * naming it (the check every caller of the key gets, prune's included). */
static void test_key_accounts_for_properties(void) {
  olc_host *h;
  olc_loaded_plugin *p = behave(&h, NULL, "keys_on", "m,k", "defaults", "n:32");
  olc_plugin_workload w;
  olc_plugin_key k;
  olc_error err;
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  workload(&w, "MatMul");
  /* n=32 is declared used and left out; m and k are the structure. */
  OLC_ASSERT_OK(olc_plugins__key(&k, p, &w, &err), &err);
  CU_ASSERT_EQUAL(k.structure_count, 2);
  CU_ASSERT_STRING_EQUAL(k.structure[0].name, "k");
  CU_ASSERT_STRING_EQUAL(k.structure[1].name, "m");
  olc_plugin_key__free(&k);
  /* n=33 is neither: dropped by the plugin, refused by the host. */
  props[0].value = "33";
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_plugins__key(&k, p, &w, &err), &err);
  props[0].value = "32";
  CU_ASSERT_STRING_EQUAL(err.message,
                         "property 'n' is not one plugin 'mock_behave' keys on (it keys on: k, m)");
  CU_ASSERT_PTR_NULL(k.storage);
  olc_host_free(h);
}

static void test_candidates(void) {
  olc_host *h;
  olc_loaded_plugin *p = behave(&h, NULL, NULL, NULL, NULL, NULL);
  olc_plugin_workload w;
  olc_policy_list list;
  olc_error err;
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  workload(&w, "MatMul");
  OLC_ASSERT_OK(olc_plugins__candidates(&list, p, &w, &err), &err);
  CU_ASSERT_EQUAL_FATAL(list.count, 4);
  CU_ASSERT_PTR_NOT_NULL(list.policies[0]);
  CU_ASSERT_EQUAL(list.serialized[1].len, strlen("spin_us=100"));
  CU_ASSERT_STRING_EQUAL((const char *)list.serialized[1].data, "spin_us=100");
  CU_ASSERT_STRING_EQUAL((const char *)list.serialized[3].data, "spin_us=800");
  olc_policy_list__free(&list, p);
  CU_ASSERT_EQUAL(list.count, 0);
  olc_host_free(h);
}

typedef struct cand_case {
  const char *key;
  const char *value;
  olc_status status;
  size_t count;
  const char *needle;
} cand_case;

static void test_candidate_caps(void) {
  static const cand_case cases[] = {
      {"candidates", "none", OLC_E_PLUGIN, 0, "no candidates for workload wl"},
      {"candidates", "null", OLC_E_PLUGIN, 0, "NULL policy"},
      {"candidates", "million", OLC_OK, OLC_PLUGINS_MAX_CANDIDATES, NULL},
      {"candidates", "million_ignore", OLC_OK, OLC_PLUGINS_MAX_CANDIDATES, NULL},
      {"serialize", "fail", OLC_E_PLUGIN, 0, "plugin mock_behave: serialize failed on purpose"},
      {"serialize", "huge", OLC_E_LIMIT, 0, "larger than"},
      {"candidates", "7,3", OLC_OK, 2, NULL},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    olc_host *h;
    olc_loaded_plugin *p = behave(&h, NULL, cases[i].key, cases[i].value, NULL, NULL);
    olc_plugin_workload w;
    olc_policy_list list;
    olc_error err;
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    workload(&w, "MatMul");
    OLC_ASSERT_STATUS(cases[i].status, olc_plugins__candidates(&list, p, &w, &err), &err);
    CU_ASSERT_EQUAL(list.count, cases[i].count);
    if (cases[i].needle != NULL) {
      if (strstr(err.message, cases[i].needle) == NULL)
        fprintf(stderr, "\n  %s=%s: %s\n", cases[i].key, cases[i].value, err.message);
      CU_ASSERT_PTR_NOT_NULL(strstr(err.message, cases[i].needle));
    }
    if (cases[i].count > 0)
      CU_ASSERT_PTR_NOT_NULL(list.serialized[cases[i].count - 1].data);
    olc_policy_list__free(&list, p);
    olc_host_free(h);
  }
}

static void test_validate_serialize(void) {
  olc_host *h;
  olc_loaded_plugin *p = behave(&h, NULL, NULL, NULL, NULL, NULL);
  void *policy = NULL;
  olc_buf buf = OLC_BUF_INIT;
  olc_error err;
  char msg[128];
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  OLC_ASSERT_OK(olc_plugins__validate(&policy, p, "spin_us=7", 9, &err), &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(policy);
  OLC_ASSERT_OK(olc_plugins__serialize(&buf, p, policy, &err), &err);
  CU_ASSERT_EQUAL(buf.len, 9);
  CU_ASSERT_EQUAL(memcmp(buf.data, "spin_us=7", 9), 0);
  olc_plugins__release(p, policy);
  olc_plugins__release(p, NULL);
  olc_buf__free(&buf);
  OLC_ASSERT_OK(olc_plugins__validate(NULL, p, "spin_us=7", 9, &err), &err);
  OLC_ASSERT_STATUS(OLC_E_VALIDATION, olc_plugins__validate(&policy, p, "bogus!!!!", 9, &err),
                    &err);
  CU_ASSERT_PTR_NULL(policy);
  CU_ASSERT_STRING_EQUAL(err.message, "plugin mock_behave: policy does not start with spin_us=");
  CU_ASSERT_EQUAL(err.backend_code, OLC_PLUGIN_E_INVALID);
  CU_ASSERT_EQUAL(
      olc_plugins__store_validator((const unsigned char *)"spin_us=0", 9, p, msg, sizeof msg),
      OLC_E_VALIDATION);
  CU_ASSERT_STRING_EQUAL(msg, "spin_us out of range");
  CU_ASSERT_EQUAL(
      olc_plugins__store_validator((const unsigned char *)"spin_us=12", 10, p, msg, sizeof msg),
      OLC_OK);
  olc_host_free(h);
  p = behave(&h, NULL, "validate", "reject", NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(
      olc_plugins__store_validator((const unsigned char *)"spin_us=12", 10, p, msg, sizeof msg),
      OLC_E_VALIDATION);
  CU_ASSERT_STRING_EQUAL(msg, "rejected on purpose");
  olc_host_free(h);
}

static void test_run(void) {
  olc_host *h;
  olc_loaded_plugin *p = behave(&h, NULL, NULL, NULL, NULL, NULL);
  olc_plugin_workload w;
  void *policy = NULL;
  void *state = NULL;
  double flops = 0;
  uint64_t t0;
  uint64_t t1;
  olc_error err;
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  workload(&w, "MatMul");
  OLC_ASSERT_OK(olc_plugins__validate(&policy, p, "spin_us=50", 10, &err), &err);
  OLC_ASSERT_OK(olc_plugins__prepare(&state, p, &w, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(state);
  t0 = olc_util__now_ns();
  OLC_ASSERT_OK(olc_plugins__run(p, &w, state, policy, &err), &err);
  t1 = olc_util__now_ns();
  /* A lower bound by construction (busy-wait on the same clock). */
  CU_ASSERT_TRUE(t1 - t0 >= 50000u);
  CU_ASSERT_EQUAL(*(uint64_t *)state, 1);
  olc_plugins__unprepare(p, state);
  olc_plugins__unprepare(p, NULL);
  OLC_ASSERT_STATUS(OLC_E_PLUGIN, olc_plugins__run(p, &w, NULL, NULL, &err), &err);
  CU_ASSERT_STRING_EQUAL(err.message, "plugin mock_behave: run without a policy");
  OLC_ASSERT_OK(olc_plugins__flops(&flops, p, &w, &err), &err);
  CU_ASSERT_DOUBLE_EQUAL(flops, 2.0 * 32 * 64 * 16, 0.5);
  w.property_count = 1;
  OLC_ASSERT_STATUS(OLC_E_UNSUPPORTED, olc_plugins__flops(&flops, p, &w, &err), &err);
  olc_plugins__release(p, policy);
  olc_host_free(h);
  p = behave(&h, NULL, "run", "fail", NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  workload(&w, "MatMul");
  OLC_ASSERT_OK(olc_plugins__validate(&policy, p, "spin_us=5", 9, &err), &err);
  OLC_ASSERT_STATUS(OLC_E_PLUGIN, olc_plugins__run(p, &w, NULL, policy, &err), &err);
  CU_ASSERT_STRING_EQUAL(err.message, "plugin mock_behave: run failed on purpose");
  CU_ASSERT_EQUAL(err.backend_code, OLC_PLUGIN_E_FAILED);
  CU_ASSERT_STRING_EQUAL(err.where, "run");
  olc_plugins__release(p, policy);
  olc_host_free(h);
}

typedef struct after_runs {
  int calls;
  uint64_t last_ns; /* when the last one was called */
} after_runs;

static void count_after_run(void *payload) {
  after_runs *a = payload;
  a->calls++;
  a->last_ns = olc_util__now_ns();
}

/* The after-run hook (how the worker reports progress): called once after
 * every run, a failed one too, once the plugin returned, and by no other
 * wrapper; the plugin's own table is not touched. */
static void test_after_run_hook(void) {
  olc_host *h;
  olc_loaded_plugin *p = behave(&h, NULL, NULL, NULL, NULL, NULL);
  const olc_plugin *table;
  olc_plugin_workload w;
  after_runs a;
  void *policy = NULL;
  uint64_t t0;
  olc_error err;
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  table = p->table;
  memset(&a, 0, sizeof a);
  workload(&w, "MatMul");
  olc_plugins__set_after_run(p, count_after_run, &a);
  CU_ASSERT_PTR_EQUAL(p->table, table);
  OLC_ASSERT_OK(olc_plugins__validate(&policy, p, "spin_us=50", 10, &err), &err);
  CU_ASSERT_EQUAL(a.calls, 0);
  t0 = olc_util__now_ns();
  OLC_ASSERT_OK(olc_plugins__run(p, &w, NULL, policy, &err), &err);
  CU_ASSERT_EQUAL(a.calls, 1);
  CU_ASSERT_TRUE(a.last_ns - t0 >= 50000u); /* after the 50 us the run spins */
  OLC_ASSERT_STATUS(OLC_E_PLUGIN, olc_plugins__run(p, &w, NULL, NULL, &err), &err);
  CU_ASSERT_EQUAL(a.calls, 2);
  /* The failed run's message survives the hook. */
  CU_ASSERT_STRING_EQUAL(err.message, "plugin mock_behave: run without a policy");
  olc_plugins__set_after_run(p, NULL, NULL);
  OLC_ASSERT_OK(olc_plugins__run(p, &w, NULL, policy, &err), &err);
  CU_ASSERT_EQUAL(a.calls, 2);
  olc_plugins__release(p, policy);
  olc_host_free(h);
}

/* Plugin messages reach errors and logs as one valid UTF-8 line. */
static void test_dirty_messages(void) {
  olc_host *h;
  olc_loaded_plugin *p = behave(&h, NULL, "run", "fail_multiline", NULL, NULL);
  olc_diagnostic d;
  olc_plugin_workload w;
  void *policy = NULL;
  olc_error err;
  char line[256];
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  workload(&w, "MatMul");
  OLC_ASSERT_OK(olc_plugins__validate(&policy, p, "spin_us=5", 9, &err), &err);
  OLC_ASSERT_STATUS(OLC_E_PLUGIN, olc_plugins__run(p, &w, NULL, policy, &err), &err);
  CU_ASSERT_STRING_EQUAL(err.message, "plugin mock_behave: first line second line");
  CU_ASSERT_EQUAL(olc_plugins__log_line(olc_host__plugins(h),
                                        olc_plugins__log_count(olc_host__plugins(h)) - 1, line,
                                        sizeof line),
                  OLC_PLUGIN_LOG_WARN);
  CU_ASSERT_STRING_EQUAL(line, "mock_behave: two lines");
  CU_ASSERT_EQUAL(olc_plugins__log_line(olc_host__plugins(h), 999, line, sizeof line), -1);
  /* A warning: also one of the host's diagnostics. */
  OLC_ASSERT_OK(olc_host_next_diagnostic(&d, h), NULL);
  CU_ASSERT_STRING_EQUAL(d.where, "plugin mock_behave");
  CU_ASSERT_STRING_EQUAL(d.message, "two lines");
  CU_ASSERT_EQUAL(olc_host_next_diagnostic(&d, h), OLC_E_NOT_FOUND);
  olc_plugins__release(p, policy);
  olc_host_free(h);
  p = behave(&h, NULL, "run", "fail_bad_utf8", NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  OLC_ASSERT_OK(olc_plugins__validate(&policy, p, "spin_us=5", 9, &err), &err);
  OLC_ASSERT_STATUS(OLC_E_PLUGIN, olc_plugins__run(p, &w, NULL, policy, &err), &err);
  CU_ASSERT_STRING_EQUAL(err.message, "plugin mock_behave: (message is not valid utf-8)");
  olc_plugins__release(p, policy);
  olc_host_free(h);
}

/* Finds a log line containing needle. */
static int log_has(const olc_host *host, const char *needle) {
  const olc_plugin_set *h = olc_host__plugins(host);
  size_t i;
  char line[256];
  for (i = 0; i < olc_plugins__log_count(h); i++)
    if (olc_plugins__log_line(h, i, line, sizeof line) >= 0 && strstr(line, needle) != NULL)
      return 1;
  return 0;
}

/* lazy = 1: run() asks the host for the stored policy, saves on a miss. */
static void test_store_services(void) {
  olc_store *s = olc_test_memory_store();
  olc_host *h;
  olc_loaded_plugin *p = behave(&h, s, "lazy", "1", NULL, NULL);
  olc_plugin_workload w;
  void *policy = NULL;
  olc_record_list *list = NULL;
  olc_error err;
  size_t i;
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  workload(&w, "MatMul");
  OLC_ASSERT_OK(olc_plugins__validate(&policy, p, "spin_us=5", 9, &err), &err);
  OLC_ASSERT_OK(olc_plugins__run(p, &w, NULL, policy, &err), &err);
  CU_ASSERT_TRUE(log_has(h, "mock_behave: lazy: saved"));
  CU_ASSERT_FALSE(log_has(h, "lazy: found"));
  OLC_ASSERT_OK(olc_plugins__run(p, &w, NULL, policy, &err), &err);
  CU_ASSERT_TRUE(log_has(h, "mock_behave: lazy: found spin_us=5"));
  OLC_ASSERT_OK(olc_store_list(&list, s, &err), &err);
  CU_ASSERT_EQUAL(olc_record_list_count(list), 2); /* exact and portable */
  for (i = 0; i < olc_record_list_count(list); i++) {
    const olc_record *r = olc_record_list_get(list, i);
    CU_ASSERT_STRING_EQUAL(r->backend, "mock_behave");
    CU_ASSERT_STRING_EQUAL(r->implementation, "1");
    CU_ASSERT_EQUAL(r->measurement_count, 1);
  }
  olc_record_list_free(list);
  olc_plugins__release(p, policy);
  olc_host_free(h);
  /* Without a store the services fail cleanly and run still works. */
  p = behave(&h, NULL, "lazy", "1", NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  OLC_ASSERT_OK(olc_plugins__validate(&policy, p, "spin_us=5", 9, &err), &err);
  OLC_ASSERT_OK(olc_plugins__run(p, &w, NULL, policy, &err), &err);
  CU_ASSERT_TRUE(log_has(h, "lazy: lookup failed"));
  olc_plugins__release(p, policy);
  olc_host_free(h);
  olc_store_free(s);
}

static void put(olc_store *s, const char *backend, const char *impl, const char *policy,
                const char *processor, int override) {
  olc_key key;
  olc_measurement m = {"median_latency", 1.0, "us"};
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  olc_error err;
  memset(&key, 0, sizeof key);
  key.backend = backend;
  key.operator_name = "MatMul";
  key.implementation = impl;
  key.model_digest = "";
  key.processor = processor;
  key.thread_count = 2;
  req.key = &key;
  req.measurements = &m;
  req.measurement_count = 1;
  req.policy = policy;
  req.policy_len = strlen(policy);
  if (override)
    OLC_ASSERT_OK(olc_store_install_override(s, &req, &err), &err);
  else
    OLC_ASSERT_OK(olc_store_save(s, &req, &err), &err);
}

typedef struct pruned {
  size_t count;
  int saw_outdated;
  int saw_invalid;
} pruned;

static void on_prune(void *payload, const olc_record *r, const char *why) {
  pruned *pr = payload;
  pr->count++;
  if (strcmp(r->implementation, "0") == 0 && strstr(why, "outdated") != NULL)
    pr->saw_outdated = 1;
  if (strcmp(r->processor, "cpu-bad") == 0 && strstr(why, "invalid: ") != NULL)
    pr->saw_invalid = 1;
}

static void test_prune(void) {
  olc_store *s = olc_test_memory_store();
  olc_host *h;
  olc_loaded_plugin *p = behave(&h, s, NULL, NULL, NULL, NULL);
  olc_record_list *list = NULL;
  pruned pr;
  size_t removed = 99;
  olc_error err;
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  put(s, "mock_behave", "1", "spin_us=5", "cpu-ok", 0);  /* kept */
  put(s, "mock_behave", "0", "spin_us=5", "cpu-old", 0); /* outdated: removed */
  put(s, "mock_behave", "1", "garbage!!", "cpu-bad", 0); /* invalid: removed */
  put(s, "mock_behave", "0", "garbage!!", "cpu-ovr", 1); /* override: kept */
  put(s, "mock_behave", "9", "spin_us=5", "cpu-new", 0); /* newer: kept */
  put(s, "other", "0", "anything", "cpu-x", 0);          /* not loaded: kept */
  memset(&pr, 0, sizeof pr);
  OLC_ASSERT_OK(olc_host_prune(h, OLC_PRUNE_DRY_RUN, on_prune, &pr, &removed, &err), &err);
  CU_ASSERT_EQUAL(removed, 2);
  CU_ASSERT_EQUAL(pr.count, 2);
  CU_ASSERT_TRUE(pr.saw_outdated && pr.saw_invalid);
  OLC_ASSERT_OK(olc_store_list(&list, s, &err), &err);
  CU_ASSERT_EQUAL(olc_record_list_count(list), 6);
  olc_record_list_free(list);
  memset(&pr, 0, sizeof pr);
  OLC_ASSERT_OK(olc_host_prune(h, 0, on_prune, &pr, &removed, &err), &err);
  CU_ASSERT_EQUAL(removed, 2);
  CU_ASSERT_TRUE(pr.saw_outdated && pr.saw_invalid);
  OLC_ASSERT_OK(olc_store_list(&list, s, &err), &err);
  CU_ASSERT_EQUAL(olc_record_list_count(list), 4);
  olc_record_list_free(list);
  OLC_ASSERT_OK(olc_host_prune(h, 0, NULL, NULL, &removed, &err), &err);
  CU_ASSERT_EQUAL(removed, 0);
  /* A flag this library does not know: refused, nothing removed. */
  OLC_ASSERT_STATUS(OLC_E_INVALID, olc_host_prune(h, 4u, NULL, NULL, &removed, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "flags"));
  olc_host_free(h);
  olc_store_free(s);
}

/* key, validate and the store validator from several threads at once on
 * one instance (plugin.h allows it): each thread sees its own results and
 * its own set_error detail, never another thread's. */
typedef struct worker {
  olc_loaded_plugin *p;
  int index;
  int failures;
} worker;

static void *work(void *arg) {
  worker *wk = arg;
  olc_plugin_workload w;
  int i;
  workload(&w, "MatMul");
  for (i = 0; i < 300; i++) {
    olc_plugin_key k;
    olc_error err;
    char msg[128];
    if (olc_plugins__key(&k, wk->p, &w, &err) != OLC_OK || k.structure_count != 3)
      wk->failures++;
    olc_plugin_key__free(&k);
    if (wk->index % 2 == 0) {
      if (olc_plugins__validate(NULL, wk->p, "spin_us=9", 9, &err) != OLC_OK)
        wk->failures++;
    } else if (olc_plugins__validate(NULL, wk->p, "spin_us=x", 9, &err) != OLC_E_VALIDATION ||
               strcmp(err.message, "plugin mock_behave: spin_us out of range") != 0) {
      wk->failures++;
    }
    if (olc_plugins__store_validator((const unsigned char *)"nope", 4, wk->p, msg, sizeof msg) !=
            OLC_E_VALIDATION ||
        strcmp(msg, "policy length out of range") != 0)
      wk->failures++;
  }
  return NULL;
}

static void test_concurrent(void) {
  olc_host *h;
  olc_loaded_plugin *p = behave(&h, NULL, NULL, NULL, NULL, NULL);
  pthread_t th[4];
  worker wk[4];
  int i;
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  for (i = 0; i < 4; i++) {
    wk[i].p = p;
    wk[i].index = i;
    wk[i].failures = 0;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, work, &wk[i]), 0);
  }
  for (i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    CU_ASSERT_EQUAL(wk[i].failures, 0);
  }
  olc_host_free(h);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("plugin_wrappers", NULL, NULL);
  CU_add_test(s, "key_ok", test_key_ok);
  CU_add_test(s, "key_caps", test_key_caps);
  CU_add_test(s, "key_structure_cap", test_key_structure_cap);
  CU_add_test(s, "key_accounts_for_properties", test_key_accounts_for_properties);
  CU_add_test(s, "candidates", test_candidates);
  CU_add_test(s, "candidate_caps", test_candidate_caps);
  CU_add_test(s, "validate_serialize", test_validate_serialize);
  CU_add_test(s, "run", test_run);
  CU_add_test(s, "after_run_hook", test_after_run_hook);
  CU_add_test(s, "dirty_messages", test_dirty_messages);
  CU_add_test(s, "store_services", test_store_services);
  CU_add_test(s, "prune", test_prune);
  CU_add_test(s, "concurrent", test_concurrent);
  return olc_test_run(argc, argv);
}
