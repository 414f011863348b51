/*
 * test_host_options.c - every [host], [calibration] and [store] key of the
 * config's key table can be given to a host as a typed field, without ini
 * text (olc_host_options version 6): a key added to the table without its
 * field fails here.  A host opened without a config runs on the built-in
 * defaults and the options alone.
 */
#include <CUnit/Basic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/key_table.h"
#include "host/host_int.h"
#include "olc/host.h"
#include "plugins/plugins.h"
#include "test_support.h"

/* Where each [host] and [store] key goes, by name: a field of
 * olc_host_options, or of olc_store_options (the [store] keys are given
 * where the store is opened). */
static const struct {
  const char *key;
  const char *field;
} routes[] = {
    {"plugin_dirs", "olc_host_options.plugin_dirs"},
    {"threads", "olc_host_options.threads"},
    {"allow_insecure_plugins", "olc_host_options.allow_insecure_plugins"},
    {"path", "olc_store_options.path"},
    {"persistence", "olc_store_options.persistence_enabled, read_only"},
    {"allow_network_fs", "olc_store_options.allow_network_fs"},
    {"layers", "olc_store_options.layers"},
    {"force_portable", "olc_host_options.force_portable"},
    {"lock_timeout_ms", "olc_store_options.lock_timeout_ms"},
    {"verify_layers", "olc_host_options.verify_layers"},
};

static const char *route_of(const char *key) {
  for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
    if (strcmp(routes[i].key, key) == 0)
      return routes[i].field;
  return NULL;
}

static olc_config *defaults(void) {
  olc_config *c = NULL;
  olc_error err;
  OLC_ASSERT_OK(olc_config_load_string(&c, "", 0, "<test>", NULL, &err), &err);
  return c;
}

/* A value for row k's field other than the one in *field: within the
 * key's range, one of its choices, or a path. */
static void change(void *field, const olc_config_key *k) {
  switch (k->type) {
  case OLC_CONFIG_BOOL: {
    int *v = field;
    *v = !*v;
    return;
  }
  case OLC_CONFIG_INT:
    CU_ASSERT_FATAL(k->size == sizeof(uint32_t));
    {
      uint32_t *v = field;
      *v = *v > (uint32_t)k->min ? (uint32_t)k->min : (uint32_t)k->min + 1u;
    }
    return;
  case OLC_CONFIG_NUMBER: {
    double *v = field, want = k->min + 1.0;
    *v = *v == want ? want + 1.0 : want;
    CU_ASSERT_FATAL(*v <= k->max);
    return;
  }
  case OLC_CONFIG_ENUM: {
    int *v = field;
    for (const olc_config_choice *c = k->choices; c->name != NULL; c++)
      if (c->value != *v) {
        *v = c->value;
        return;
      }
    CU_FAIL_FATAL("an enum with one choice");
    return;
  }
  case OLC_CONFIG_PATH:
  case OLC_CONFIG_STRING:
    *(const char **)field = "/nonexistent/olc-test-typed-option";
    return;
  case OLC_CONFIG_PATH_LIST:
    break;
  }
  CU_FAIL_FATAL("a [calibration] key of a type the test does not know");
}

static int same_field(const void *a, const void *b, const olc_config_key *k) {
  if (k->type == OLC_CONFIG_PATH || k->type == OLC_CONFIG_STRING) {
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    return (x == NULL && y == NULL) || (x != NULL && y != NULL && strcmp(x, y) == 0);
  }
  return memcmp(a, b, k->size) == 0;
}

/* Each [calibration] key: set through options.calibration alone, it is
 * what the host measures with, and not the config's value. */
static void test_every_calibration_key(void) {
  size_t count = 0, checked = 0;
  const olc_config_key *keys = olc_config__keys(&count);
  olc_config *cfg = defaults();
  for (size_t i = 0; i < count; i++) {
    const olc_config_key *k = &keys[i];
    olc_calibration_settings s = *olc_config_calibration(cfg);
    olc_host_options o = OLC_HOST_OPTIONS_INIT;
    olc_host *h = NULL;
    olc_error err;
    const char *none[1] = {NULL};
    if (k->section != OLC_CONFIG_CALIBRATION)
      continue;
    change((char *)&s + k->offset, k);
    CU_ASSERT_FALSE(same_field((char *)&s + k->offset,
                               (const char *)olc_config_calibration(cfg) + k->offset, k));
    o.calibration = &s;
    o.ignore_env = 1;
    o.plugin_dirs = none;
    o.plugin_dir_count = 0;
    OLC_ASSERT_OK(olc_host_open(&h, cfg, NULL, &o, &err), &err);
    if (h == NULL)
      continue;
    if (!same_field((char *)&h->settings + k->offset, (char *)&s + k->offset, k))
      fprintf(stderr, "[calibration] %s: the typed field did not reach the host\n", k->name);
    CU_ASSERT(same_field((char *)&h->settings + k->offset, (char *)&s + k->offset, k));
    /* olc_host_calibrate measures with them too. */
    CU_ASSERT_FATAL(h->loop_settings != NULL);
    CU_ASSERT(same_field((const char *)h->loop_settings + k->offset, (char *)&s + k->offset, k));
    olc_host_free(h);
    checked++;
  }
  CU_ASSERT(checked >= 15);
  olc_config_free(cfg);
}

/* Each [host] and [store] key has its field. */
static void test_every_host_and_store_key(void) {
  size_t count = 0;
  const olc_config_key *keys = olc_config__keys(&count);
  for (size_t i = 0; i < count; i++) {
    if (keys[i].section != OLC_CONFIG_HOST && keys[i].section != OLC_CONFIG_STORE)
      continue;
    if (route_of(keys[i].name) == NULL)
      fprintf(stderr, "[%s] %s has no typed field\n",
              keys[i].section == OLC_CONFIG_HOST ? "host" : "store", keys[i].name);
    CU_ASSERT_PTR_NOT_NULL(route_of(keys[i].name));
  }
}

/* No config at all: the defaults, with the options' directories, threads
 * and force_portable; the plugins load. */
static void test_no_config(void) {
  const char *dirs[1] = {OLC_MOCK_PLUGIN_ROOT "/good"};
  olc_host_options o = OLC_HOST_OPTIONS_INIT;
  olc_host *h = NULL;
  olc_error err;
  o.ignore_env = 1;
  o.plugin_dirs = dirs;
  o.plugin_dir_count = 1;
  o.threads = 3;
  o.force_portable = 1;
  o.verify_layers = OLC_VERIFY_LAYERS_ON_FIRST_USE;
  OLC_ASSERT_OK(olc_host_open(&h, NULL, NULL, &o, &err), &err);
  CU_ASSERT_FATAL(h != NULL);
  CU_ASSERT_EQUAL(h->rt.verify_layers, OLC_VERIFY_LAYERS_ON_FIRST_USE);
  CU_ASSERT_EQUAL(h->threads, 3u);
  CU_ASSERT_EQUAL(h->force_portable, 1);
  CU_ASSERT(olc_plugins__count(h->plugins) >= 1);
  CU_ASSERT_EQUAL(olc_plugins__searched_count(h->plugins), 1u);
  CU_ASSERT_STRING_EQUAL(olc_plugins__searched(h->plugins, 0), dirs[0]);
  CU_ASSERT_PTR_NOT_NULL(h->config);
  olc_host_free(h);
}

/* Typed fields that contradict themselves are refused by name. */
static void test_bad_fields(void) {
  const char *empty[1] = {""};
  olc_host_options o = OLC_HOST_OPTIONS_INIT;
  olc_host *h = NULL;
  olc_error err;
  o.plugin_dir_count = 2;
  CU_ASSERT_EQUAL(olc_host_open(&h, NULL, NULL, &o, &err), OLC_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "plugin_dir_count 2"));
  CU_ASSERT_PTR_NULL(h);
  o.plugin_dirs = empty;
  o.plugin_dir_count = 1;
  CU_ASSERT_EQUAL(olc_host_open(&h, NULL, NULL, &o, &err), OLC_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "plugin_dirs[0] is empty"));
  o.plugin_dirs = NULL;
  o.plugin_dir_count = 0;
  o.force_portable = 7;
  CU_ASSERT_EQUAL(olc_host_open(&h, NULL, NULL, &o, &err), OLC_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "force_portable 7"));
  CU_ASSERT_PTR_NULL(h);
  o.force_portable = 0;
  o.verify_layers = 3;
  CU_ASSERT_EQUAL(olc_host_open(&h, NULL, NULL, &o, &err), OLC_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "verify_layers 3"));
  CU_ASSERT_PTR_NULL(h);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("host_options", NULL, NULL);
  CU_add_test(s, "every [calibration] key as a typed field", test_every_calibration_key);
  CU_add_test(s, "every [host] and [store] key has its field", test_every_host_and_store_key);
  CU_add_test(s, "a host without a config", test_no_config);
  CU_add_test(s, "bad typed fields", test_bad_fields);
  return olc_test_run(argc, argv);
}
