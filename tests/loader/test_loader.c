/*
 * tests/loader/test_loader.c - the plugin loader against the mock plugins:
 * every load stage, the report, sorted order, OLC_PLUGIN_PATH, permissions,
 * disabled and critical plugins, and files that are not plugins at all.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "olc/host.h"
#include "plugins/plugins_int.h"
#include "util/text.h"
#include "test_support.h"

#define MOCK_DIR(s) OLC_MOCK_PLUGIN_ROOT "/" s

/* A fake [plugin.NAME] table. */
typedef struct fake_cfg {
  olc_plugin_config plugins[4];
  size_t count;
} fake_cfg;

static const olc_plugin_config *fake_lookup(void *payload, const char *name) {
  fake_cfg *c = payload;
  size_t i;
  for (i = 0; c != NULL && i < c->count; i++)
    if (strcmp(c->plugins[i].name, name) == 0)
      return &c->plugins[i];
  return NULL;
}

static olc_plugin_config *fake_add(fake_cfg *c, const char *name, int enabled, int critical) {
  olc_plugin_config *p = &c->plugins[c->count++];
  memset(p, 0, sizeof *p);
  p->name = name;
  p->enabled = enabled;
  p->critical = critical;
  return p;
}

static olc_status open_dirs(olc_plugin_set **out, const char *const *dirs, size_t n, fake_cfg *cfg,
                            int allow_insecure, int ignore_env, olc_error *err) {
  olc_plugins_params params;
  memset(&params, 0, sizeof params);
  params.dirs = dirs;
  params.dir_count = n;
  params.threads = 3;
  params.plugin_config = fake_lookup;
  params.plugin_config_payload = cfg;
  params.allow_insecure_plugins = allow_insecure;
  params.ignore_env = ignore_env;
  return olc_plugins__open(out, &params, err);
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s);
  size_t b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Checks the mock_det plugin works through the wrappers: the host is usable. */
static void check_mock_det_works(olc_plugin_set *h) {
  olc_loaded_plugin *p = olc_plugins__find(h, "mock_det");
  olc_plugin_workload w;
  olc_plugin_key key;
  olc_error err;
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  memset(&w, 0, sizeof w);
  w.struct_size = (uint32_t)sizeof w;
  w.name = "w";
  w.operator_name = "MatMul";
  OLC_ASSERT_OK(olc_plugins__key(&key, p, &w, &err), &err);
  CU_ASSERT_STRING_EQUAL(key.processor, "mock-cpu");
  CU_ASSERT_EQUAL(key.thread_count, 3);
  olc_plugin_key__free(&key);
}

static void test_good(void) {
  const char *dirs[] = {MOCK_DIR("good")};
  olc_plugin_set *h = NULL;
  olc_error err;
  const olc_load_entry *e;
  char line[256];
  OLC_ASSERT_OK(open_dirs(&h, dirs, 1, NULL, 0, 1, &err), &err);
  CU_ASSERT_EQUAL_FATAL(olc_plugins__report_count(h), 1);
  e = olc_plugins__report(h, 0);
  CU_ASSERT_EQUAL(e->stage, OLC_LOAD_LOADED);
  CU_ASSERT_EQUAL(e->status, OLC_OK);
  CU_ASSERT_STRING_EQUAL(e->plugin_name, "mock_det");
  CU_ASSERT_STRING_EQUAL(e->plugin_version, "1");
  CU_ASSERT_TRUE(e->path[0] == '/' && ends_with(e->path, "/good/mock_det.so"));
  CU_ASSERT_PTR_NULL(olc_plugins__report(h, 1));
  CU_ASSERT_EQUAL(olc_plugins__count(h), 1);
  CU_ASSERT_STRING_EQUAL(olc_plugins__name(olc_plugins__at(h, 0)), "mock_det");
  CU_ASSERT_STRING_EQUAL(olc_plugins__version(olc_plugins__at(h, 0)), "1");
  CU_ASSERT_TRUE(olc_plugins__serves(olc_plugins__at(h, 0), "Conv"));
  CU_ASSERT_FALSE(olc_plugins__serves(olc_plugins__at(h, 0), "Softmax"));
  CU_ASSERT_PTR_NULL(olc_plugins__find(h, "nope"));
  /* create logged through the services table, tagged with the name */
  CU_ASSERT_EQUAL_FATAL(olc_plugins__log_count(h), 1);
  CU_ASSERT_EQUAL(olc_plugins__log_line(h, 0, line, sizeof line), OLC_PLUGIN_LOG_INFO);
  CU_ASSERT_STRING_EQUAL(line, "mock_det: created with 3 threads");
  check_mock_det_works(h);
  olc_plugins__free(h);
  olc_plugins__free(NULL);
}

typedef struct scenario {
  const char *dir;
  const char *file;
  olc_load_stage stage;
  olc_status status;
  const char *name; /* expected plugin name, NULL when unknown */
  int32_t plugin_status;
  int unavailable;
  const char *needle; /* expected in the message */
} scenario;

static const scenario scenarios[] = {
    {"no_entry", "mock_no_entry.so", OLC_LOAD_SYMBOL, OLC_E_PLUGIN, NULL, 0, 0, "olc_plugin_entry"},
    {"entry_error", "mock_entry_error.so", OLC_LOAD_ABI, OLC_E_PLUGIN, NULL, OLC_PLUGIN_E_FAILED, 0,
     "entry refused on purpose"},
    {"wrong_major", "mock_wrong_major.so", OLC_LOAD_ABI, OLC_E_PLUGIN, NULL, OLC_PLUGIN_E_ABI, 0,
     "abi major 1"},
    {"table_major", "mock_table_major.so", OLC_LOAD_ABI, OLC_E_PLUGIN, NULL, 0, 0, "abi major 2"},
    {"newer_minor", "mock_newer_minor.so", OLC_LOAD_LOADED, OLC_OK, "mock_newer_minor", 0, 0,
     "loaded"},
    {"too_small", "mock_too_small.so", OLC_LOAD_VALIDATE, OLC_E_PLUGIN, NULL, 0, 0, "too small"},
    {"null_required", "mock_null_required.so", OLC_LOAD_VALIDATE, OLC_E_PLUGIN,
     "mock_null_required", 0, 0, "run is NULL"},
    {"bad_name", "mock_bad_name.so", OLC_LOAD_VALIDATE, OLC_E_PLUGIN, NULL, 0, 0, "[a-z0-9_]"},
    {"bad_utf8_name", "mock_bad_utf8_name.so", OLC_LOAD_VALIDATE, OLC_E_PLUGIN, NULL, 0, 0,
     "utf-8"},
    {"no_operators", "mock_no_operators.so", OLC_LOAD_VALIDATE, OLC_E_PLUGIN, "mock_no_operators",
     0, 0, "operators"},
    {"create_fails", "mock_create_fails.so", OLC_LOAD_CREATE, OLC_E_PLUGIN, "mock_create_fails",
     OLC_PLUGIN_E_FAILED, 0, "create failed on purpose"},
    {"create_unavailable", "mock_create_unavailable.so", OLC_LOAD_CREATE, OLC_E_UNAVAILABLE,
     "mock_create_unavailable", OLC_PLUGIN_E_UNAVAILABLE, 1, "no mock device"},
};

/* Each scenario alone in its directory, followed by the good one: the right
 * report entry, and the host still loads and uses mock_det. */
static void test_scenarios(void) {
  size_t i;
  for (i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
    const scenario *s = &scenarios[i];
    char dir[1024];
    const char *dirs[2];
    olc_plugin_set *h = NULL;
    olc_error err;
    const olc_load_entry *e;
    snprintf(dir, sizeof dir, "%s/%s", OLC_MOCK_PLUGIN_ROOT, s->dir);
    dirs[0] = dir;
    dirs[1] = MOCK_DIR("good");
    OLC_ASSERT_OK(open_dirs(&h, dirs, 2, NULL, 0, 1, &err), &err);
    CU_ASSERT_EQUAL_FATAL(olc_plugins__report_count(h), 2);
    e = olc_plugins__report(h, 0);
    if (e->stage != s->stage || strstr(e->message, s->needle) == NULL)
      fprintf(stderr, "\n  scenario %s: stage %s, message \"%s\"\n", s->dir,
              olc_load_stage_str(e->stage), e->message);
    CU_ASSERT_TRUE(ends_with(e->path, s->file));
    CU_ASSERT_EQUAL(e->stage, s->stage);
    CU_ASSERT_EQUAL(e->status, s->status);
    CU_ASSERT_EQUAL(e->plugin_status, s->plugin_status);
    CU_ASSERT_EQUAL(e->unavailable, s->unavailable);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, s->needle));
    CU_ASSERT_TRUE(strchr(e->message, '\n') == NULL);
    if (s->name == NULL) {
      CU_ASSERT_PTR_NULL(e->plugin_name);
    } else {
      CU_ASSERT_TRUE(e->plugin_name != NULL && strcmp(e->plugin_name, s->name) == 0);
    }
    CU_ASSERT_EQUAL(olc_plugins__report(h, 1)->stage, OLC_LOAD_LOADED);
    CU_ASSERT_EQUAL(olc_plugins__count(h), s->stage == OLC_LOAD_LOADED ? 2 : 1);
    check_mock_det_works(h);
    olc_plugins__free(h);
  }
}

static void test_duplicate(void) {
  const char *dirs[] = {MOCK_DIR("duplicate"), MOCK_DIR("duplicate")};
  olc_plugin_set *h = NULL;
  olc_error err;
  const olc_load_entry *e;
  /* The directory listed twice is scanned once. */
  OLC_ASSERT_OK(open_dirs(&h, dirs, 2, NULL, 0, 1, &err), &err);
  CU_ASSERT_EQUAL_FATAL(olc_plugins__report_count(h), 2);
  e = olc_plugins__report(h, 0);
  CU_ASSERT_TRUE(ends_with(e->path, "/mock_dup_a.so"));
  CU_ASSERT_EQUAL(e->stage, OLC_LOAD_LOADED);
  e = olc_plugins__report(h, 1);
  CU_ASSERT_TRUE(ends_with(e->path, "/mock_dup_b.so"));
  CU_ASSERT_EQUAL(e->stage, OLC_LOAD_DUPLICATE);
  CU_ASSERT_EQUAL(e->status, OLC_E_DUPLICATE);
  CU_ASSERT_STRING_EQUAL(e->plugin_name, "mock_dup");
  CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "mock_dup_a.so"));
  CU_ASSERT_EQUAL(olc_plugins__count(h), 1);
  olc_plugins__free(h);
}

static void test_sorted(void) {
  const char *dirs[] = {MOCK_DIR("sorted")};
  static const char *const order[] = {"mock_a", "mock_b", "mock_c"};
  olc_plugin_set *h = NULL;
  olc_error err;
  size_t i;
  OLC_ASSERT_OK(open_dirs(&h, dirs, 1, NULL, 0, 1, &err), &err);
  CU_ASSERT_EQUAL_FATAL(olc_plugins__report_count(h), 3);
  for (i = 0; i < 3; i++) {
    CU_ASSERT_STRING_EQUAL(olc_plugins__report(h, i)->plugin_name, order[i]);
    CU_ASSERT_STRING_EQUAL(olc_plugins__name(olc_plugins__at(h, i)), order[i]);
  }
  for (i = 1; i < 3; i++)
    CU_ASSERT_TRUE(strcmp(olc_plugins__report(h, i - 1)->path, olc_plugins__report(h, i)->path) <
                   0);
  olc_plugins__free(h);
}

/* A directory with a text file named x.so, an empty empty.so, a directory
 * named d.so, a README and a link to mock_det: only the link loads. */
static void test_broken_files(void) {
  char *tmp = olc_test_tmpdir("loader-broken");
  char *p;
  const char *dirs[1];
  const char *dirs2[2];
  size_t before;
  olc_plugin_set *h = NULL;
  olc_error err;
  const olc_load_entry *e;
  CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
  p = olc_test_path(tmp, "x.so");
  CU_ASSERT_EQUAL(olc_test_write_file(p, "not a library\n", 14), 0);
  free(p);
  p = olc_test_path(tmp, "empty.so");
  CU_ASSERT_EQUAL(olc_test_write_file(p, "", 0), 0);
  free(p);
  p = olc_test_path(tmp, "README");
  CU_ASSERT_EQUAL(olc_test_write_file(p, "hi", 2), 0);
  free(p);
  p = olc_test_path(tmp, "d.so");
  CU_ASSERT_EQUAL(mkdir(p, 0700), 0);
  free(p);
  p = olc_test_path(tmp, "link.so");
  CU_ASSERT_EQUAL(symlink(MOCK_DIR("good") "/mock_det.so", p), 0);
  free(p);
  dirs[0] = tmp;
  OLC_ASSERT_OK(open_dirs(&h, dirs, 1, NULL, 0, 1, &err), &err);
  /* The directory d.so is reported for what it is, never opened. */
  CU_ASSERT_EQUAL_FATAL(olc_plugins__report_count(h), 4);
  e = olc_plugins__report(h, 0);
  CU_ASSERT_TRUE(ends_with(e->path, "/d.so"));
  CU_ASSERT_EQUAL(e->stage, OLC_LOAD_OPEN);
  CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "not a regular file: a directory"));
  e = olc_plugins__report(h, 1);
  CU_ASSERT_TRUE(ends_with(e->path, "/empty.so"));
  CU_ASSERT_EQUAL(e->stage, OLC_LOAD_OPEN);
  CU_ASSERT_EQUAL(e->status, OLC_E_PLUGIN);
  CU_ASSERT_TRUE(strlen(e->message) > strlen("cannot load: "));
  e = olc_plugins__report(h, 2);
  CU_ASSERT_TRUE(ends_with(e->path, "/link.so"));
  CU_ASSERT_EQUAL(e->stage, OLC_LOAD_LOADED);
  e = olc_plugins__report(h, 3);
  CU_ASSERT_TRUE(ends_with(e->path, "/x.so"));
  CU_ASSERT_EQUAL(e->stage, OLC_LOAD_OPEN);
  CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "x.so")); /* dlerror names the file */
  check_mock_det_works(h);
  olc_plugins__free(h);
  /* The link and the real file are one library: the second is a duplicate,
   * and the first keeps its services (key logs through them). */
  dirs2[0] = MOCK_DIR("good");
  dirs2[1] = tmp;
  OLC_ASSERT_OK(open_dirs(&h, dirs2, 2, NULL, 0, 1, &err), &err);
  CU_ASSERT_EQUAL(olc_plugins__report(h, 3)->stage, OLC_LOAD_DUPLICATE);
  before = olc_plugins__log_count(h);
  check_mock_det_works(h);
  CU_ASSERT_EQUAL(olc_plugins__log_count(h), before + 1);
  olc_plugins__free(h);
  olc_test_rmtree(tmp);
  free(tmp);
}

static void test_env_path(void) {
  olc_plugin_set *h = NULL;
  olc_error err;
  const char *dirs[] = {MOCK_DIR("sorted")};
  CU_ASSERT_EQUAL(setenv("OLC_PLUGIN_PATH",
                         "relative/dir::/nonexistent-olc-dir:" OLC_MOCK_PLUGIN_ROOT "/good", 1),
                  0);
  OLC_ASSERT_OK(open_dirs(&h, NULL, 0, NULL, 0, 0, &err), &err);
  CU_ASSERT_EQUAL(olc_plugins__report_count(h), 1);
  CU_ASSERT_PTR_NOT_NULL(olc_plugins__find(h, "mock_det"));
  olc_plugins__free(h);
  /* Configured directories come first, then the environment's. */
  OLC_ASSERT_OK(open_dirs(&h, dirs, 1, NULL, 0, 0, &err), &err);
  CU_ASSERT_EQUAL_FATAL(olc_plugins__report_count(h), 4);
  CU_ASSERT_STRING_EQUAL(olc_plugins__report(h, 3)->plugin_name, "mock_det");
  olc_plugins__free(h);
  OLC_ASSERT_OK(open_dirs(&h, NULL, 0, NULL, 0, 1, &err), &err);
  CU_ASSERT_EQUAL(olc_plugins__report_count(h), 0);
  CU_ASSERT_EQUAL(olc_plugins__count(h), 0);
  olc_plugins__free(h);
  CU_ASSERT_EQUAL(unsetenv("OLC_PLUGIN_PATH"), 0);
}

/* Opens tmp (holding a link to mock_det) and returns the first entry's stage. */
static olc_load_stage stage_of(const char *dir, int allow) {
  const char *dirs[1];
  olc_plugin_set *h = NULL;
  olc_error err;
  olc_load_stage stage = OLC_LOAD_OPEN;
  dirs[0] = dir;
  OLC_ASSERT_OK(open_dirs(&h, dirs, 1, NULL, allow, 1, &err), &err);
  if (olc_plugins__report_count(h) == 1) {
    stage = olc_plugins__report(h, 0)->stage;
    CU_ASSERT_TRUE(olc_plugins__report(h, 0)->message[0] != 0);
    CU_ASSERT_EQUAL(olc_plugins__count(h), stage == OLC_LOAD_LOADED ? 1 : 0);
  }
  olc_plugins__free(h);
  return stage;
}

static void test_permissions(void) {
  char *tmp = olc_test_tmpdir("loader-perm");
  char *p;
  CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
  p = olc_test_path(tmp, "mock_det_copy.so");
  CU_ASSERT_EQUAL_FATAL(olc_test_copy_file(MOCK_DIR("good") "/mock_det.so", p), 0);
  CU_ASSERT_EQUAL(chmod(p, 0644), 0);
  CU_ASSERT_EQUAL(chmod(tmp, 0755), 0);
  CU_ASSERT_EQUAL(stage_of(tmp, 0), OLC_LOAD_LOADED);
  CU_ASSERT_EQUAL(chmod(tmp, 0777), 0); /* world-writable directory */
  CU_ASSERT_EQUAL(stage_of(tmp, 0), OLC_LOAD_PERMISSIONS);
  CU_ASSERT_EQUAL(stage_of(tmp, 1), OLC_LOAD_LOADED);
  CU_ASSERT_EQUAL(chmod(tmp, 0775), 0); /* group-writable directory */
  CU_ASSERT_EQUAL(stage_of(tmp, 0), OLC_LOAD_PERMISSIONS);
  CU_ASSERT_EQUAL(chmod(tmp, 0700), 0);
  CU_ASSERT_EQUAL(chmod(p, 0666), 0); /* world-writable file */
  CU_ASSERT_EQUAL(stage_of(tmp, 0), OLC_LOAD_PERMISSIONS);
  CU_ASSERT_EQUAL(stage_of(tmp, 1), OLC_LOAD_LOADED);
  CU_ASSERT_EQUAL(chmod(p, 0600), 0);
  CU_ASSERT_EQUAL(stage_of(tmp, 0), OLC_LOAD_LOADED);
  free(p);
  olc_test_rmtree(tmp);
  free(tmp);
}

static void test_disabled(void) {
  const char *dirs[] = {MOCK_DIR("good")};
  char *tmp = olc_test_tmpdir("loader-disabled");
  char *p;
  fake_cfg cfg;
  olc_plugin_set *h = NULL;
  olc_error err;
  const olc_load_entry *e;
  memset(&cfg, 0, sizeof cfg);
  fake_add(&cfg, "mock_det", 0, 1); /* disabled wins over critical */
  /* Named after the plugin: not even opened. */
  OLC_ASSERT_OK(open_dirs(&h, dirs, 1, &cfg, 0, 1, &err), &err);
  CU_ASSERT_EQUAL_FATAL(olc_plugins__report_count(h), 1);
  e = olc_plugins__report(h, 0);
  CU_ASSERT_EQUAL(e->stage, OLC_LOAD_DISABLED);
  CU_ASSERT_STRING_EQUAL(e->plugin_name, "mock_det");
  CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "not opened"));
  CU_ASSERT_EQUAL(olc_plugins__count(h), 0);
  olc_plugins__free(h);
  /* Under another file name: found by its table's name, never created. */
  CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
  p = olc_test_path(tmp, "other_name.so");
  CU_ASSERT_EQUAL(symlink(MOCK_DIR("good") "/mock_det.so", p), 0);
  free(p);
  dirs[0] = tmp;
  OLC_ASSERT_OK(open_dirs(&h, dirs, 1, &cfg, 0, 1, &err), &err);
  CU_ASSERT_EQUAL_FATAL(olc_plugins__report_count(h), 1);
  e = olc_plugins__report(h, 0);
  CU_ASSERT_EQUAL(e->stage, OLC_LOAD_DISABLED);
  CU_ASSERT_STRING_EQUAL(e->plugin_name, "mock_det");
  CU_ASSERT_EQUAL(olc_plugins__log_count(h), 0); /* create never ran */
  CU_ASSERT_EQUAL(olc_plugins__count(h), 0);
  olc_plugins__free(h);
  olc_test_rmtree(tmp);
  free(tmp);
}

static void test_critical(void) {
  const char *dirs[] = {MOCK_DIR("good"), MOCK_DIR("create_fails")};
  const char *dirs2[] = {MOCK_DIR("create_unavailable"), MOCK_DIR("no_entry")};
  fake_cfg cfg;
  olc_plugin_set *h = NULL;
  olc_error err;
  memset(&cfg, 0, sizeof cfg);
  fake_add(&cfg, "mock_create_fails", 1, 1);
  OLC_ASSERT_STATUS(OLC_E_PLUGIN, open_dirs(&h, dirs, 2, &cfg, 0, 1, &err), &err);
  CU_ASSERT_PTR_NULL(h);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "mock_create_fails"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "create"));
  CU_ASSERT_EQUAL(err.backend_code, OLC_PLUGIN_E_FAILED);
  /* Not critical: skipped, the host opens. */
  cfg.plugins[0].critical = 0;
  OLC_ASSERT_OK(open_dirs(&h, dirs, 2, &cfg, 0, 1, &err), &err);
  CU_ASSERT_EQUAL(olc_plugins__count(h), 1);
  olc_plugins__free(h);
  /* Unavailable is not a failure, even for a critical plugin; a critical
   * file without an entry symbol (known by its file name) is fatal. */
  memset(&cfg, 0, sizeof cfg);
  fake_add(&cfg, "mock_create_unavailable", 1, 1);
  OLC_ASSERT_OK(open_dirs(&h, dirs2, 1, &cfg, 0, 1, &err), &err);
  olc_plugins__free(h);
  fake_add(&cfg, "mock_no_entry", 1, 1);
  OLC_ASSERT_STATUS(OLC_E_PLUGIN, open_dirs(&h, dirs2, 2, &cfg, 0, 1, &err), &err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "mock_no_entry"));
  CU_ASSERT_PTR_NULL(h);
}

static void test_config_entries(void) {
  const char *dirs[] = {MOCK_DIR("good")};
  fake_cfg cfg;
  olc_property entries[2] = {{"enabled", "true"}, {"processor", "from-ini"}};
  olc_plugin_config *pc;
  olc_plugin_set *h = NULL;
  olc_error err;
  olc_plugin_workload w;
  olc_plugin_key key;
  memset(&cfg, 0, sizeof cfg);
  pc = fake_add(&cfg, "mock_det", 1, 0);
  pc->entries = entries;
  pc->entry_count = 2;
  OLC_ASSERT_OK(open_dirs(&h, dirs, 1, &cfg, 0, 1, &err), &err);
  memset(&w, 0, sizeof w);
  w.struct_size = (uint32_t)sizeof w;
  w.operator_name = "MatMul";
  OLC_ASSERT_OK(olc_plugins__key(&key, olc_plugins__find(h, "mock_det"), &w, &err), &err);
  CU_ASSERT_STRING_EQUAL(key.processor, "from-ini");
  olc_plugin_key__free(&key);
  olc_plugins__free(h);
}

/* Two hosts hold the same library: each works, and freeing either first
 * leaves the other usable. */
static void test_two_hosts(void) {
  const char *dirs[] = {MOCK_DIR("good")};
  olc_plugin_set *a = NULL;
  olc_plugin_set *b = NULL;
  olc_error err;
  OLC_ASSERT_OK(open_dirs(&a, dirs, 1, NULL, 0, 1, &err), &err);
  OLC_ASSERT_OK(open_dirs(&b, dirs, 1, NULL, 0, 1, &err), &err);
  size_t before;
  check_mock_det_works(a);
  check_mock_det_works(b);
  olc_plugins__free(b);
  /* a's services work again once b let go of the library: key logs. */
  before = olc_plugins__log_count(a);
  check_mock_det_works(a);
  CU_ASSERT_EQUAL(olc_plugins__log_count(a), before + 1);
  olc_plugins__free(a);
}

static void test_stage_str(void) {
  CU_ASSERT_STRING_EQUAL(olc_load_stage_str(OLC_LOAD_LOADED), "loaded");
  CU_ASSERT_STRING_EQUAL(olc_load_stage_str(OLC_LOAD_OPEN), "open");
  CU_ASSERT_STRING_EQUAL(olc_load_stage_str(OLC_LOAD_SYMBOL), "symbol");
  CU_ASSERT_STRING_EQUAL(olc_load_stage_str(OLC_LOAD_ABI), "abi");
  CU_ASSERT_STRING_EQUAL(olc_load_stage_str(OLC_LOAD_VALIDATE), "validate");
  CU_ASSERT_STRING_EQUAL(olc_load_stage_str(OLC_LOAD_DUPLICATE), "duplicate");
  CU_ASSERT_STRING_EQUAL(olc_load_stage_str(OLC_LOAD_CREATE), "create");
  CU_ASSERT_STRING_EQUAL(olc_load_stage_str(OLC_LOAD_DISABLED), "disabled");
  CU_ASSERT_STRING_EQUAL(olc_load_stage_str(OLC_LOAD_PERMISSIONS), "permissions");
  CU_ASSERT_STRING_EQUAL(olc_load_stage_str((olc_load_stage)99), "unknown");
  CU_ASSERT_EQUAL(olc_plugins__report_count(NULL), 0);
  CU_ASSERT_PTR_NULL(olc_plugins__report(NULL, 0));
}

/* The one UTF-8 check of the library (config values, plugin names and messages). */
static void test_utf8(void) {
  CU_ASSERT_TRUE(olc_util__utf8_valid("", 0));
  CU_ASSERT_TRUE(olc_util__utf8_valid("abc", 3));
  CU_ASSERT_TRUE(olc_util__utf8_valid("a\0b", 3));
  CU_ASSERT_TRUE(olc_util__utf8_valid("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9));
  CU_ASSERT_TRUE(olc_util__utf8_valid("\xf4\x8f\xbf\xbf", 4)); /* U+10FFFF */
  CU_ASSERT_FALSE(olc_util__utf8_valid("\xff", 1));
  CU_ASSERT_FALSE(olc_util__utf8_valid("\xc3\x28", 2));
  CU_ASSERT_FALSE(olc_util__utf8_valid("\xc0\xaf", 2));         /* overlong */
  CU_ASSERT_FALSE(olc_util__utf8_valid("\xe0\x80\xaf", 3));     /* overlong, 3 bytes */
  CU_ASSERT_FALSE(olc_util__utf8_valid("\xf0\x80\x80\xaf", 4)); /* overlong, 4 bytes */
  CU_ASSERT_FALSE(olc_util__utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
  CU_ASSERT_FALSE(olc_util__utf8_valid("\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
  CU_ASSERT_FALSE(olc_util__utf8_valid("\xe2\x82", 2));         /* truncated */
  CU_ASSERT_FALSE(olc_util__utf8_valid("\xc3", 1));             /* torn */
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("loader", NULL, NULL);
  CU_add_test(s, "good", test_good);
  CU_add_test(s, "scenarios", test_scenarios);
  CU_add_test(s, "duplicate", test_duplicate);
  CU_add_test(s, "sorted", test_sorted);
  CU_add_test(s, "broken_files", test_broken_files);
  CU_add_test(s, "env_path", test_env_path);
  CU_add_test(s, "permissions", test_permissions);
  CU_add_test(s, "disabled", test_disabled);
  CU_add_test(s, "critical", test_critical);
  CU_add_test(s, "config_entries", test_config_entries);
  CU_add_test(s, "two_hosts", test_two_hosts);
  CU_add_test(s, "stage_str", test_stage_str);
  CU_add_test(s, "utf8", test_utf8);
  return olc_test_run(argc, argv);
}
