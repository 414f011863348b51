/*
 * tests/config/test_config.c - the ini configuration (olc_config_*): every
 * key of every host section, every error naming file and line, relative
 * paths, threads = 0, the model digest, the embedded default.
 */
#include <CUnit/CUnit.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "olc/host.h"
#include "test_support.h"
#include "util/platform.h"

static olc_config *load_ok(const char *text, const char *base_dir) {
  olc_config *c = NULL;
  olc_error err;
  olc_error_clear(&err);
  OLC_ASSERT_OK(olc_config_load_string(&c, text, strlen(text), "t.ini", base_dir, &err), &err);
  return c;
}

/* Loads text as "t.ini"; expects OLC_E_CONFIG at line with `what` in the
 * message, which must start with "t.ini:LINE: ". */
static void expect_error(const char *text, unsigned line, const char *what) {
  olc_config *c = (olc_config *)1;
  olc_error err;
  char prefix[64];
  olc_status st;
  olc_error_clear(&err);
  st = olc_config_load_string(&c, text, strlen(text), "t.ini", "/base", &err);
  if (st != OLC_E_CONFIG || err.line != line || strstr(err.message, what) == NULL)
    fprintf(stderr, "\n  text:\n%s\n  got %s line %u: %s (want line %u, '%s')\n", text,
            olc_status_name(st), (unsigned)err.line, err.message, line, what);
  CU_ASSERT_EQUAL(st, OLC_E_CONFIG);
  CU_ASSERT_PTR_NULL(c);
  CU_ASSERT_EQUAL(err.code, OLC_E_CONFIG);
  CU_ASSERT_EQUAL(err.line, line);
  snprintf(prefix, sizeof prefix, "t.ini:%u: ", line);
  CU_ASSERT_EQUAL(strncmp(err.message, prefix, strlen(prefix)), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, what));
}

static void test_defaults(void) {
  olc_config *c = load_ok("", "/base");
  const olc_calibration_settings *s;
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  CU_ASSERT_STRING_EQUAL(olc_config_source(c), "t.ini");
  s = olc_config_calibration(c);
  CU_ASSERT_EQUAL(s->warmup, 1u);
  CU_ASSERT_EQUAL(s->min_repetitions, 5u);
  CU_ASSERT_DOUBLE_EQUAL(s->min_seconds, 0.05, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s->max_seconds_per_workload, 30.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s->abandon_factor, 1.5, 1e-12);
  CU_ASSERT_EQUAL(s->isolation, 1);
  CU_ASSERT_DOUBLE_EQUAL(s->run_timeout_seconds, 0.0, 1e-12);
  CU_ASSERT_EQUAL(s->strategy, OLC_STRATEGY_RACE);
  olc_config_store_options(c, &so);
  CU_ASSERT_EQUAL(so.version, OLC_STORE_OPTIONS_VERSION);
  CU_ASSERT_PTR_NULL(so.path);
  CU_ASSERT_EQUAL(so.persistence_enabled, 1);
  CU_ASSERT_EQUAL(so.lock_timeout_ms, 10000);
  CU_ASSERT_EQUAL(olc_config_force_portable(c), 0);
  CU_ASSERT_EQUAL(olc_config__allow_insecure_plugins(c), 0);
  CU_ASSERT_EQUAL(olc_config__threads_configured(c), 0u);
  CU_ASSERT(olc_config_threads(c) >= 1u);
  CU_ASSERT_EQUAL(olc_config_workload_count(c), 0u);
  /* No plugin_dirs: the build-tree and install directories. */
  CU_ASSERT_EQUAL(olc_config_plugin_dir_count(c), 2u);
  CU_ASSERT_PTR_NULL(olc_config_plugin(c, "x"));
  CU_ASSERT_PTR_NULL(olc_config_find_workload(c, "x"));
  olc_config_free(c);
}

static const char full_ini[] = "; every key\n"
                               "[host]\n"
                               "plugin_dirs = /p/one : rel/two, /p/three\n"
                               "threads = 3\n"
                               "allow_insecure_plugins = yes\n"
                               "\n"
                               "[store]\n"
                               "path = profiles.txt\n"
                               "persistence = off\n"
                               "force_portable = ON\n"
                               "lock_timeout_ms = -1\n"
                               "[calibration]\n"
                               "warmup = 0\n"
                               "min_repetitions = 7\n"
                               "min_seconds = 0.25\n"
                               "max_seconds_per_workload = 1e1\n"
                               "abandon_factor = 2\n"
                               "isolation = no\n"
                               "run_timeout_seconds = 2.5\n"
                               "strategy = full\n"
                               "[workload.w1]\n"
                               "backend = cpu_gemm\n"
                               "operator = MatMul\n"
                               "dtype = float32\n"
                               "m = 64\n"
                               "k = 32\n"
                               "n = 16\n"
                               "model_digest = sha256:"
                               "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"
                               "[plugin.cpu_gemm]\n"
                               "enabled = false\n"
                               "critical = 1\n"
                               "kernel = avx2\n";

static void test_every_key(void) {
  olc_config *c = load_ok(full_ini, "/base");
  const olc_calibration_settings *s = olc_config_calibration(c);
  const olc_workload_config *w;
  const olc_plugin_config *p;
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  CU_ASSERT_EQUAL(olc_config_plugin_dir_count(c), 3u);
  CU_ASSERT_STRING_EQUAL(olc_config_plugin_dir(c, 0), "/p/one");
  CU_ASSERT_STRING_EQUAL(olc_config_plugin_dir(c, 1), "/base/rel/two");
  CU_ASSERT_STRING_EQUAL(olc_config_plugin_dir(c, 2), "/p/three");
  CU_ASSERT_PTR_NULL(olc_config_plugin_dir(c, 3));
  CU_ASSERT_EQUAL(olc_config_threads(c), 3u);
  CU_ASSERT_EQUAL(olc_config__threads_configured(c), 3u);
  CU_ASSERT_EQUAL(olc_config__allow_insecure_plugins(c), 1);
  olc_config_store_options(c, &so);
  CU_ASSERT_STRING_EQUAL(so.path, "/base/profiles.txt");
  CU_ASSERT_EQUAL(so.persistence_enabled, 0);
  CU_ASSERT_EQUAL(so.lock_timeout_ms, -1);
  CU_ASSERT_EQUAL(olc_config_force_portable(c), 1);
  CU_ASSERT_EQUAL(s->warmup, 0u);
  CU_ASSERT_EQUAL(s->min_repetitions, 7u);
  CU_ASSERT_DOUBLE_EQUAL(s->min_seconds, 0.25, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s->max_seconds_per_workload, 10.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s->abandon_factor, 2.0, 1e-12);
  CU_ASSERT_EQUAL(s->isolation, 0);
  CU_ASSERT_DOUBLE_EQUAL(s->run_timeout_seconds, 2.5, 1e-12);
  CU_ASSERT_EQUAL(s->strategy, OLC_STRATEGY_FULL);
  CU_ASSERT_EQUAL_FATAL(olc_config_workload_count(c), 1u);
  w = olc_config_workload(c, 0);
  CU_ASSERT_PTR_EQUAL(w, olc_config_find_workload(c, "w1"));
  CU_ASSERT_STRING_EQUAL(w->name, "w1");
  CU_ASSERT_STRING_EQUAL(w->backend, "cpu_gemm");
  CU_ASSERT_STRING_EQUAL(w->operator_name, "MatMul");
  CU_ASSERT_STRING_EQUAL(w->model_digest,
                         "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CU_ASSERT_EQUAL(w->line, 21u);
  /* Structural properties in file order. */
  CU_ASSERT_EQUAL_FATAL(w->property_count, 4u);
  CU_ASSERT_STRING_EQUAL(w->properties[0].name, "dtype");
  CU_ASSERT_STRING_EQUAL(w->properties[0].value, "float32");
  CU_ASSERT_STRING_EQUAL(w->properties[1].name, "m");
  CU_ASSERT_STRING_EQUAL(w->properties[2].name, "k");
  CU_ASSERT_STRING_EQUAL(w->properties[3].name, "n");
  CU_ASSERT_STRING_EQUAL(w->properties[3].value, "16");
  p = olc_config_plugin(c, "cpu_gemm");
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->enabled, 0);
  CU_ASSERT_EQUAL(p->critical, 1);
  CU_ASSERT_EQUAL_FATAL(p->entry_count, 3u);
  CU_ASSERT_STRING_EQUAL(p->entries[0].name, "enabled");
  CU_ASSERT_STRING_EQUAL(p->entries[2].name, "kernel");
  CU_ASSERT_STRING_EQUAL(p->entries[2].value, "avx2");
  olc_config_free(c);
}

/* Workloads without a model get an identity from their sorted properties:
 * different shapes, different exact records. */
static void test_structural_identity(void) {
  olc_config *c = load_ok("[workload.a]\nbackend = b\noperator = o\nn = 2\nm = 1\n"
                          "[workload.b]\nbackend = b\noperator = o\nm = 1\nn = 3\n"
                          "[workload.c]\nbackend = b\noperator = o\n",
                          NULL);
  CU_ASSERT_STRING_EQUAL(olc_config_find_workload(c, "a")->model_digest, "workload:m=1;n=2");
  CU_ASSERT_STRING_EQUAL(olc_config_find_workload(c, "b")->model_digest, "workload:m=1;n=3");
  CU_ASSERT_STRING_EQUAL(olc_config_find_workload(c, "c")->model_digest, "workload:");
  /* File order of the properties is kept for the plugin. */
  CU_ASSERT_STRING_EQUAL(olc_config_find_workload(c, "a")->properties[0].name, "n");
  olc_config_free(c);
}

static void test_booleans(void) {
  static const char *const yes[] = {"true", "TRUE", "yes", "On", "1"};
  static const char *const no[] = {"false", "No", "off", "0"};
  char text[128];
  size_t i;
  for (i = 0; i < 5; i++) {
    olc_config *c;
    snprintf(text, sizeof text, "[store]\nforce_portable = %s\n", yes[i]);
    c = load_ok(text, NULL);
    CU_ASSERT_EQUAL(olc_config_force_portable(c), 1);
    olc_config_free(c);
  }
  for (i = 0; i < 4; i++) {
    olc_config *c;
    snprintf(text, sizeof text, "[store]\npersistence = %s\n", no[i]);
    c = load_ok(text, NULL);
    {
      olc_store_options so = OLC_STORE_OPTIONS_INIT;
      olc_config_store_options(c, &so);
      CU_ASSERT_EQUAL(so.persistence_enabled, 0);
    }
    olc_config_free(c);
  }
}

static void test_unknown_keys(void) {
  expect_error("[host]\nthreads = 1\nthread = 2\n", 3, "unknown key 'thread' in [host]");
  expect_error("[store]\n\npaht = x\n", 3, "unknown key 'paht' in [store]");
  expect_error("; c\n[calibration]\nwarmups = 1\n", 3, "unknown key 'warmups' in [calibration]");
  expect_error("[hots]\nthreads = 1\n", 1, "unknown section [hots]");
  expect_error("[store]\n[bogus]\n", 2, "unknown section [bogus]");
  expect_error("threads = 1\n", 1, "outside of a section");
  expect_error("[workload.]\nbackend = x\n", 1, "unknown section [workload.]");
}

static void test_bad_values(void) {
  expect_error("[host]\nthreads = -1\n", 2, "threads: bad value '-1'");
  expect_error("[host]\nthreads = two\n", 2, "threads: bad value 'two'");
  expect_error("[host]\nthreads = 99999999999999999999\n", 2, "threads: bad value");
  expect_error("[host]\nallow_insecure_plugins = maybe\n", 2, "allow_insecure_plugins: bad value");
  expect_error("[store]\npersistence = 2\n", 2, "persistence: bad value '2'");
  expect_error("[store]\nforce_portable = yess\n", 2, "force_portable: bad value");
  expect_error("[store]\nlock_timeout_ms = 1.5\n", 2, "lock_timeout_ms: bad value");
  expect_error("[store]\nlock_timeout_ms = -2\n", 2, "lock_timeout_ms: bad value");
  expect_error("[store]\npath =\n", 2, "[store] path: empty value");
  expect_error("[calibration]\nwarmup = x\n", 2, "warmup: bad value");
  expect_error("[calibration]\nmin_repetitions = 0\n", 2, "min_repetitions: bad value '0'");
  expect_error("[calibration]\nmin_seconds = -0.1\n", 2, "min_seconds: bad value");
  expect_error("[calibration]\nmin_seconds = 0,5\n", 2, "min_seconds: bad value '0,5'");
  expect_error("[calibration]\nmax_seconds_per_workload = 0\n", 2,
               "max_seconds_per_workload: bad value '0'");
  expect_error("[calibration]\nabandon_factor = 0.9\n", 2, "abandon_factor: bad value '0.9'");
  expect_error("[calibration]\n\nstrategy = fastest\n", 3, "strategy: bad value 'fastest'");
  expect_error("[calibration]\nstrategy = Race\n", 2, "strategy: bad value 'Race'");
  expect_error("[calibration]\nisolation = maybe\n", 2, "isolation: bad value 'maybe'");
  expect_error("[calibration]\nrun_timeout_seconds = -1\n", 2, "run_timeout_seconds: bad value");
  expect_error("[plugin.x]\nenabled = perhaps\n", 2,
               "[plugin.x] enabled: bad value 'perhaps' (expected true/false, yes/no, on/off or "
               "1/0)");
  expect_error("[store]\nlock_timeout_ms = -2\n", 2,
               "[store] lock_timeout_ms: bad value '-2' (expected an integer from -1 to 86400000)");
  expect_error("[plugin.x]\ncritical = 7\n", 2, "[plugin.x] critical: bad value");
  expect_error("[workload.w]\nbackend = b\noperator = o\nmodel_digest = sha256:abc\n", 4,
               "model_digest: bad value");
  /* "workload:" is the identity of a workload without a model: as a model
   * digest it would be dropped, and such workloads would share the record
   * of the one without a model. */
  expect_error("[workload.w]\nbackend = b\noperator = o\nmodel_digest = workload:aa\n", 4,
               "[workload.w] model_digest: 'workload:aa' is not a model digest");
  expect_error("[workload.w]\nbackend = b\noperator = o\nm =\n", 4, "[workload.w] m: empty value");
  expect_error("[workload.w]\nbackend = CPU-Gemm\noperator = o\n", 2,
               "backend: bad value 'CPU-Gemm' (expected a plugin name, [a-z0-9_]+)");
}

static void test_duplicates(void) {
  expect_error("[host]\nthreads = 1\nthreads = 2\n", 3, "duplicate key 'threads' in [host]");
  expect_error("[store]\npath = a\npersistence = no\npath = b\n", 4,
               "duplicate key 'path' in [store]");
  expect_error("[calibration]\nwarmup = 1\nwarmup = 1\n", 3, "duplicate key 'warmup'");
  expect_error("[workload.w]\nbackend = b\nbackend = c\n", 3,
               "duplicate key 'backend' in [workload.w]");
  expect_error("[workload.w]\nbackend = b\noperator = o\nm = 1\nm = 2\n", 5,
               "duplicate key 'm' in [workload.w]");
  /* A plugin's keys are passed on to it: a key said twice would leave the
   * plugin to guess which one counts. */
  expect_error("[plugin.p]\nenabled = false\nenabled = true\n", 3,
               "duplicate key 'enabled' in [plugin.p]");
  expect_error("[plugin.p]\nkernel = a\ncritical = true\nkernel = b\n", 4,
               "duplicate key 'kernel' in [plugin.p]");
  /* Keys are per section: the same key in two sections is fine. */
  {
    olc_config *c = load_ok("[plugin.p]\nkernel = a\n[plugin.q]\nkernel = b\n"
                            "[workload.a]\nbackend = b\noperator = o\nm = 1\n"
                            "[workload.b]\nbackend = b\noperator = o\nm = 1\n",
                            "/base");
    olc_config_free(c);
  }
  expect_error("[host]\n[store]\n[host]\n", 3, "duplicate section [host]");
  expect_error("[workload.a]\nbackend = b\noperator = o\n[workload.a]\n", 4,
               "duplicate section [workload.a] (first at line 1)");
  expect_error("[workload.w]\nbackend = b\noperator = o\n"
               "model_digest = sha256:"
               "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"
               "model = x.onnx\n",
               5, "exclude each other");
}

/* Thousands of sections or keys: every name is checked against all the
 * others (the sets grow many times), and a duplicate at the very end is
 * still found, naming where its first use was. */
static void test_many_names(void) {
  enum { N = 30000 };
  size_t cap = (size_t)N * 64 + 256, len = 0;
  char *text = malloc(cap);
  unsigned line = 1;
  olc_config *c;
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  for (unsigned i = 0; i < N; i++, line += 3)
    len +=
        (size_t)snprintf(text + len, cap - len, "[workload.w%u]\nbackend = b\noperator = o\n", i);
  c = load_ok(text, "/base");
  CU_ASSERT_EQUAL(olc_config_workload_count(c), (size_t)N);
  CU_ASSERT_STRING_EQUAL(olc_config_workload(c, N - 1)->name, "w29999");
  olc_config_free(c);
  snprintf(text + len, cap - len, "[workload.w12345]\n");
  expect_error(text, line, "duplicate section [workload.w12345] (first at line 37036)");

  len = (size_t)snprintf(text, cap, "[plugin.p]\n");
  for (unsigned i = 0; i < N; i++)
    len += (size_t)snprintf(text + len, cap - len, "k%u = %u\n", i, i);
  c = load_ok(text, "/base");
  CU_ASSERT_EQUAL(olc_config_plugin(c, "p")->entry_count, (size_t)N);
  olc_config_free(c);
  snprintf(text + len, cap - len, "k29998 = again\n");
  expect_error(text, N + 2, "duplicate key 'k29998' in [plugin.p]");
  free(text);
}

static void test_missing_backend(void) {
  expect_error("[host]\nthreads = 1\n\n[workload.gemm]\noperator = MatMul\nm = 4\n", 4,
               "[workload.gemm] has no backend");
  expect_error("[workload.a]\nbackend = b\noperator = o\n[workload.gemm]\nbackend = cpu\n", 4,
               "[workload.gemm] has no operator");
  /* An empty section is noticed too (inih reports no keys for it). */
  expect_error("[workload.empty]\n[store]\n", 1, "[workload.empty] has no backend");
}

static void test_syntax(void) {
  char text[512];
  expect_error("[host]\nthis is not a key\n", 2, "syntax error");
  /* The first error wins, whether inih or the host found it. */
  expect_error("[host]\nnot a key\nthreads = x\n", 2, "syntax error");
  expect_error("[host]\nthreads = x\nnot a key\n", 2, "threads: bad value");
  expect_error("[store\npath = a\n", 1, "no ']'");
  expect_error("[host]\n[workload.w]\nbackend = b\noperator = o\nm = \xff\n", 5, "invalid utf-8");
  expect_error("[store]\npath = a\n  continued\n", 3, "continuation");
  memset(text, 'x', sizeof text);
  memcpy(text, "[store]\npath = ", 15);
  text[sizeof text - 2] = '\n';
  text[sizeof text - 1] = 0;
  {
    /* A long value (past inih's 200-byte line) is taken whole. */
    olc_config *c = NULL;
    olc_error err;
    olc_store_options so = OLC_STORE_OPTIONS_INIT;
    OLC_ASSERT_OK(olc_config_load_string(&c, text, strlen(text), "t.ini", "/base", &err), &err);
    olc_config_store_options(c, &so);
    CU_ASSERT_PTR_NOT_NULL_FATAL(so.path);
    CU_ASSERT_EQUAL(strlen(so.path), strlen("/base/") + sizeof text - 2 - 15);
    olc_config_free(c);
  }
  {
    /* Past OLC_CONFIG_MAX_LINE (64 KiB): an error naming the line. */
    size_t big = 70 * 1024;
    char *huge = malloc(big + 32);
    CU_ASSERT_PTR_NOT_NULL_FATAL(huge);
    memcpy(huge, "[store]\npath = ", 15);
    memset(huge + 15, 'y', big);
    memcpy(huge + 15 + big, "\n", 2);
    expect_error(huge, 2, "line longer than");
    free(huge);
  }
  {
    static const char nul_text[] = "[store]\npath = a\0b\n";
    olc_config *c = NULL;
    olc_error err;
    CU_ASSERT_EQUAL(olc_config_load_string(&c, nul_text, sizeof nul_text - 1, "t.ini", NULL, &err),
                    OLC_E_CONFIG);
    CU_ASSERT_EQUAL(err.line, 2u);
  }
}

static void test_relative_paths_from_file(void) {
  char *dir = olc_test_tmpdir("config");
  char *sub, *ini, *model, real[PATH_MAX], expect[PATH_MAX + 64];
  static const char text[] = "[host]\nplugin_dirs = plugins, /abs\n"
                             "[store]\npath = store/profiles.txt\n"
                             "[workload.w]\nbackend = b\noperator = o\nmodel = models/abc.bin\n";
  olc_config *c = NULL;
  olc_error err;
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
  CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(dir, real));
  sub = olc_test_path(dir, "models");
  CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
  model = olc_test_path(sub, "abc.bin");
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(model, "abc", 3), 0);
  ini = olc_test_path(dir, "olc.ini");
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(ini, text, sizeof text - 1), 0);
  OLC_ASSERT_OK(olc_config_load_file(&c, ini, &err), &err);
  CU_ASSERT_STRING_EQUAL(olc_config_source(c), ini);
  snprintf(expect, sizeof expect, "%s/plugins", real);
  CU_ASSERT_STRING_EQUAL(olc_config_plugin_dir(c, 0), expect);
  CU_ASSERT_STRING_EQUAL(olc_config_plugin_dir(c, 1), "/abs");
  olc_config_store_options(c, &so);
  snprintf(expect, sizeof expect, "%s/store/profiles.txt", real);
  CU_ASSERT_STRING_EQUAL(so.path, expect);
  /* SHA-256("abc"), FIPS 180-2 appendix B.1. */
  CU_ASSERT_STRING_EQUAL(olc_config_workload(c, 0)->model_digest,
                         "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  olc_config_free(c);

  /* A missing model names the file, the line and the path. */
  unlink(model);
  c = NULL;
  CU_ASSERT_EQUAL(olc_config_load_file(&c, ini, &err), OLC_E_CONFIG);
  CU_ASSERT_PTR_NULL(c);
  CU_ASSERT_EQUAL(err.line, 8u);
  CU_ASSERT_EQUAL(strncmp(err.message, ini, strlen(ini)), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, ":8: [workload.w] model:"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "abc.bin"));
  CU_ASSERT(err.sys_errno != 0);

  /* A missing config is an I/O error. */
  unlink(ini);
  CU_ASSERT_EQUAL(olc_config_load_file(&c, ini, &err), OLC_E_IO);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, ini));
  olc_test_rmtree(dir);
  free(sub);
  free(model);
  free(ini);
  free(dir);
}

static void test_sha256(void) {
  char *dir = olc_test_tmpdir("sha");
  char *path = olc_test_path(dir, "m");
  char out[OLC_DIGEST_SIZE];
  unsigned char *big;
  size_t i;
  olc_error err;
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, "", 0), 0);
  OLC_ASSERT_OK(olc_config__sha256_file(out, path, &err), &err);
  CU_ASSERT_STRING_EQUAL(out,
                         "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  /* More than one read chunk: 1,000,000 x 'a' (FIPS 180-2 appendix B.3). */
  big = malloc(1000000);
  CU_ASSERT_PTR_NOT_NULL_FATAL(big);
  for (i = 0; i < 1000000; i++)
    big[i] = 'a';
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, big, 1000000), 0);
  OLC_ASSERT_OK(olc_config__sha256_file(out, path, &err), &err);
  CU_ASSERT_STRING_EQUAL(out,
                         "sha256:cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  free(big);
  unlink(path);
  CU_ASSERT_EQUAL(olc_config__sha256_file(out, path, &err), OLC_E_IO);
  olc_test_rmtree(dir);
  free(path);
  free(dir);
}

static uint32_t affinity_count(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return 0;
  return (uint32_t)CPU_COUNT(&set);
}

static void test_threads_auto(void) {
  olc_config *c = load_ok("[host]\nthreads = 0\n", NULL);
  uint32_t aff = affinity_count();
  CU_ASSERT_EQUAL(olc_config__affinity_cpus(), aff);
  CU_ASSERT_EQUAL(olc_config_threads(c), olc_config__available_cpus());
  CU_ASSERT(olc_config_threads(c) >= 1u && olc_config_threads(c) <= aff);
  olc_config_free(c);
}

static void write_at(const char *root, const char *rel, const char *text) {
  char path[PATH_MAX], *slash;
  snprintf(path, sizeof path, "%s/%s", root, rel);
  for (slash = strchr(path + strlen(root) + 1, '/'); slash != NULL;
       slash = strchr(slash + 1, '/')) {
    *slash = 0;
    mkdir(path, 0700);
    *slash = '/';
  }
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, text, strlen(text)), 0);
}

static void test_cgroup_quota(void) {
  char *root = olc_test_tmpdir("cgroup");
  CU_ASSERT_PTR_NOT_NULL_FATAL(root);
  /* v2: the smallest limit on the way up wins; "max" is no limit. */
  write_at(root, "sys/fs/cgroup/cpu.max", "max 100000\n");
  CU_ASSERT_EQUAL(olc_config__cgroup_cpu_limit("0::/\n", root), 0u);
  write_at(root, "sys/fs/cgroup/a/cpu.max", "150000 100000\n");
  write_at(root, "sys/fs/cgroup/a/b/cpu.max", "max 100000\n");
  CU_ASSERT_EQUAL(olc_config__cgroup_cpu_limit("0::/a/b\n", root), 2u);
  write_at(root, "sys/fs/cgroup/a/b/cpu.max", "50000 100000\n");
  CU_ASSERT_EQUAL(olc_config__cgroup_cpu_limit("0::/a/b\n", root), 1u);
  /* A path that does not exist under the mount (a container's view). */
  write_at(root, "sys/fs/cgroup/cpu.max", "400000 100000\n");
  CU_ASSERT_EQUAL(olc_config__cgroup_cpu_limit("0::/x/y\n", root), 4u);
  /* v1: cpu.cfs_quota_us / cpu.cfs_period_us under the controller mount. */
  write_at(root, "sys/fs/cgroup/cpu,cpuacct/d/cpu.cfs_quota_us", "250000\n");
  write_at(root, "sys/fs/cgroup/cpu,cpuacct/d/cpu.cfs_period_us", "100000\n");
  CU_ASSERT_EQUAL(olc_config__cgroup_cpu_limit("4:memory:/d\n3:cpu,cpuacct:/d\n", root), 3u);
  write_at(root, "sys/fs/cgroup/cpu,cpuacct/d/cpu.cfs_quota_us", "-1\n");
  CU_ASSERT_EQUAL(olc_config__cgroup_cpu_limit("3:cpu,cpuacct:/d\n", root), 0u);
  /* Only the memory controller: no CPU limit. */
  CU_ASSERT_EQUAL(olc_config__cgroup_cpu_limit("4:memory:/d\n", root), 0u);
  CU_ASSERT_EQUAL(olc_config__cgroup_cpu_limit("", root), 0u);
  olc_test_rmtree(root);
  free(root);
}

static void test_values(void) {
  double d;
  int64_t i;
  int b;
  CU_ASSERT(olc_config__parse_decimal(&d, "0.05") && d == 0.05);
  CU_ASSERT(olc_config__parse_decimal(&d, "1e-3") && d > 0.00099 && d < 0.00101);
  CU_ASSERT(olc_config__parse_decimal(&d, "30") && d == 30.0);
  CU_ASSERT(olc_config__parse_decimal(&d, "-2.5") && d == -2.5);
  CU_ASSERT(!olc_config__parse_decimal(&d, ""));
  CU_ASSERT(!olc_config__parse_decimal(&d, "."));
  CU_ASSERT(!olc_config__parse_decimal(&d, "1.5s"));
  CU_ASSERT(!olc_config__parse_decimal(&d, "nan"));
  CU_ASSERT(!olc_config__parse_decimal(&d, "1e999"));
  CU_ASSERT(olc_config__parse_int(&i, "42", 0, 100) && i == 42);
  CU_ASSERT(!olc_config__parse_int(&i, "101", 0, 100));
  CU_ASSERT(!olc_config__parse_int(&i, "4 2", 0, 100));
  CU_ASSERT(!olc_config__parse_int(&i, "", 0, 100));
  CU_ASSERT(olc_config__parse_bool(&b, "Yes") && b == 1);
  CU_ASSERT(!olc_config__parse_bool(&b, "y"));
}

static void test_embedded_default(void) {
  olc_config *c = NULL;
  olc_error err;
  char exe[PATH_MAX], expect[PATH_MAX + 32], *slash;
  ssize_t n;
  size_t i;
  OLC_ASSERT_OK(olc_config_load_default(&c, 0, &err), &err);
  CU_ASSERT_STRING_EQUAL(olc_config_source(c), "<embedded default>");
  n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  CU_ASSERT_FATAL(n > 0);
  exe[n] = 0;
  slash = strrchr(exe, '/');
  *slash = 0;
  CU_ASSERT_EQUAL_FATAL(olc_config_plugin_dir_count(c), 2u);
  snprintf(expect, sizeof expect, "%s/../plugins", exe);
  CU_ASSERT_STRING_EQUAL(olc_config_plugin_dir(c, 0), expect);
  CU_ASSERT_EQUAL(strncmp(olc_config_plugin_dir(c, 1), exe, strlen(exe)), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(olc_config_plugin_dir(c, 1), "olc/plugins"));
  CU_ASSERT(olc_config_workload_count(c) >= 4u);
  for (i = 0; i < olc_config_workload_count(c); i++) {
    const olc_workload_config *w = olc_config_workload(c, i);
    CU_ASSERT_PTR_NOT_NULL(w->backend);
    CU_ASSERT_PTR_NOT_NULL(w->operator_name);
    CU_ASSERT(w->property_count >= 4u);
  }
  CU_ASSERT_PTR_NOT_NULL(olc_config_find_workload(c, "gemm_256"));
  CU_ASSERT_PTR_NOT_NULL(olc_config_find_workload(c, "gpu_gemm_256"));
  /* A small budget: the default calibration stays well under a minute. */
  CU_ASSERT(olc_config_calibration(c)->max_seconds_per_workload *
                (double)olc_config_workload_count(c) <=
            40.0);
  olc_config_free(c);
}

/* [store] layers: the default's system layer is dropped without a word
 * when its directory does not exist (none in a build tree); a path a user
 * names stays, for the store to report; relative paths are resolved. */
static void test_store_layers(void) {
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  olc_config *c = NULL;
  olc_error err;
  char *exe = olc_util__exe_dir(), probe[PATH_MAX + 64];
  struct stat st;
  CU_ASSERT_PTR_NOT_NULL_FATAL(exe);
  snprintf(probe, sizeof probe, "%s/../share/onnx-light/profiles.d", exe);
  OLC_ASSERT_OK(olc_config_load_default(&c, 0, &err), &err);
  olc_config_store_options(c, &so);
  if (stat(probe, &st) != 0)
    CU_ASSERT_EQUAL(so.layer_count, 0u);
  olc_config_free(c);
  c = load_ok("[store]\nlayers = /nonexistent-olc/profiles.d/*.txt, a.txt, d/*.txt\n", "/base");
  olc_config_store_options(c, &so);
  CU_ASSERT_EQUAL_FATAL(so.layer_count, 3u);
  CU_ASSERT_STRING_EQUAL(so.layers[0], "/nonexistent-olc/profiles.d/*.txt");
  CU_ASSERT_STRING_EQUAL(so.layers[1], "/base/a.txt");
  CU_ASSERT_STRING_EQUAL(so.layers[2], "/base/d/*.txt");
  olc_config_free(c);
  /* The token in a user's file is the install's place, dropped here too. */
  c = load_ok("[store]\nlayers = @install_profile_dir@/*.txt, /x.txt\n", "/base");
  olc_config_store_options(c, &so);
  CU_ASSERT_EQUAL_FATAL(so.layer_count, stat(probe, &st) != 0 ? 1u : 2u);
  CU_ASSERT_STRING_EQUAL(so.layers[so.layer_count - 1], "/x.txt");
  olc_config_free(c);
  c = load_ok("[store]\nlayers =\n", NULL);
  olc_config_store_options(c, &so);
  CU_ASSERT_EQUAL(so.layer_count, 0u);
  olc_config_free(c);
  free(exe);
}

/* OLC_CONFIG names the file olc_config_load_default reads instead of the
 * built-in text (a bad one's error names the variable);
 * OLC_CONFIG_LOAD_IGNORE_ENV keeps the built-in text and marks the
 * config; an unknown flag is refused. */
static void test_env_config(void) {
  static const char text[] = "[calibration]\nselect_mode = on_miss\n";
  char *dir = olc_test_tmpdir("config-env"), *ini, *bad;
  olc_config *c = NULL;
  olc_error err;
  CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
  ini = olc_test_path(dir, "runtime.ini");
  bad = olc_test_path(dir, "bad.ini");
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(ini, text, sizeof text - 1), 0);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(bad, "[host]\nbogus = 1\n", 17), 0);
  CU_ASSERT_EQUAL(setenv("OLC_CONFIG", ini, 1), 0);
  OLC_ASSERT_OK(olc_config_load_default(&c, 0, &err), &err);
  CU_ASSERT_STRING_EQUAL(olc_config_source(c), ini);
  CU_ASSERT_EQUAL(olc_config_calibration(c)->select_mode, OLC_SELECT_ON_MISS);
  CU_ASSERT_FALSE(olc_config_ignore_env(c));
  olc_config_free(c);
  c = NULL;
  OLC_ASSERT_OK(olc_config_load_default(&c, OLC_CONFIG_LOAD_IGNORE_ENV, &err), &err);
  CU_ASSERT_STRING_EQUAL(olc_config_source(c), "<embedded default>");
  CU_ASSERT_TRUE(olc_config_ignore_env(c));
  olc_config_free(c);
  c = NULL;
  CU_ASSERT_EQUAL(olc_config_load_default(&c, 2u, &err), OLC_E_INVALID);
  CU_ASSERT_EQUAL(setenv("OLC_CONFIG", bad, 1), 0);
  CU_ASSERT_EQUAL(olc_config_load_default(&c, 0, &err), OLC_E_CONFIG);
  CU_ASSERT_PTR_NULL(c);
  CU_ASSERT_EQUAL(strncmp(err.message, "OLC_CONFIG: ", 12), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "bad.ini:2:"));
  CU_ASSERT_EQUAL(err.line, 2u);
  CU_ASSERT_EQUAL(setenv("OLC_CONFIG", "/nonexistent-olc/x.ini", 1), 0);
  CU_ASSERT_EQUAL(olc_config_load_default(&c, 0, &err), OLC_E_IO);
  CU_ASSERT_EQUAL(strncmp(err.message, "OLC_CONFIG", 10), 0);
  CU_ASSERT_EQUAL(setenv("OLC_CONFIG", "", 1), 0); /* empty: unset */
  OLC_ASSERT_OK(olc_config_load_default(&c, 0, &err), &err);
  CU_ASSERT_STRING_EQUAL(olc_config_source(c), "<embedded default>");
  olc_config_free(c);
  CU_ASSERT_EQUAL(unsetenv("OLC_CONFIG"), 0);
  free(ini);
  free(bad);
  olc_test_rmtree(dir);
  free(dir);
}

/* OLC_STORE and OLC_STORE_LAYERS beat the ini's [store] path and layers
 * in olc_config_store_options; a field set afterwards beats both; a
 * config marked to ignore the environment reads neither. */
static void test_env_store(void) {
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  olc_config *c = load_ok("[store]\npath = /ini/p.txt\nlayers = /ini/l.txt\n", NULL);
  CU_ASSERT_EQUAL(unsetenv("OLC_STORE"), 0);
  CU_ASSERT_EQUAL(unsetenv("OLC_STORE_LAYERS"), 0);
  olc_config_store_options(c, &so);
  CU_ASSERT_STRING_EQUAL(so.path, "/ini/p.txt");
  CU_ASSERT_PTR_NULL(so.layers_list);
  CU_ASSERT_EQUAL(setenv("OLC_STORE", "/env/p.txt", 1), 0);
  CU_ASSERT_EQUAL(setenv("OLC_STORE_LAYERS", "/env/a.txt,/env/b/*.txt", 1), 0);
  olc_config_store_options(c, &so);
  CU_ASSERT_STRING_EQUAL(so.path, "/env/p.txt");
  CU_ASSERT_STRING_EQUAL(so.layers_list, "/env/a.txt,/env/b/*.txt");
  CU_ASSERT_EQUAL(so.layer_count, 1u); /* replaced by layers_list at the open */
  so.path = "/field/p.txt";            /* the caller's own field, afterwards */
  CU_ASSERT_STRING_EQUAL(so.path, "/field/p.txt");
  olc_config_set_ignore_env(c, 1);
  olc_config_store_options(c, &so);
  CU_ASSERT_STRING_EQUAL(so.path, "/ini/p.txt");
  CU_ASSERT_PTR_NULL(so.layers_list);
  olc_config_set_ignore_env(c, 0);
  /* A struct never initialized (version 0) gets version 1's fields. */
  memset(&so, 0, sizeof so);
  olc_config_store_options(c, &so);
  CU_ASSERT_EQUAL(so.version, 1u);
  CU_ASSERT_STRING_EQUAL(so.path, "/env/p.txt");
  CU_ASSERT_STRING_EQUAL(so.layers_list, "/env/a.txt,/env/b/*.txt");
  CU_ASSERT_EQUAL(unsetenv("OLC_STORE"), 0);
  CU_ASSERT_EQUAL(unsetenv("OLC_STORE_LAYERS"), 0);
  olc_config_free(c);
  olc_config_set_ignore_env(NULL, 1);
  CU_ASSERT_FALSE(olc_config_ignore_env(NULL));
}

/* Statically linked (as this test is), the library's directory is the
 * executable's: no second, library-relative install location. */
static void test_library_dir_static(void) {
  CU_ASSERT_PTR_NULL(olc_util__library_dir());
  CU_ASSERT_PTR_NULL(olc_config__resolve_library_path("@install_plugin_dir@"));
  CU_ASSERT_PTR_NULL(olc_config__resolve_library_path("/x"));
}

static void test_exe_dir_token(void) {
  olc_config *c = load_ok("[host]\nplugin_dirs = @exe_dir@/x\n", "/base");
  char *exe = olc_util__exe_dir();
  char expect[PATH_MAX + 8];
  CU_ASSERT_PTR_NOT_NULL_FATAL(exe);
  snprintf(expect, sizeof expect, "%s/x", exe);
  CU_ASSERT_STRING_EQUAL(olc_config_plugin_dir(c, 0), expect);
  olc_config_free(c);
  free(exe);
  /* An empty plugin_dirs means none (only OLC_PLUGIN_PATH). */
  c = load_ok("[host]\nplugin_dirs =\n", NULL);
  CU_ASSERT_EQUAL(olc_config_plugin_dir_count(c), 0u);
  olc_config_free(c);
}

static olc_config *load_example(const char *name) {
  char path[PATH_MAX];
  olc_config *c = NULL;
  olc_error err;
  snprintf(path, sizeof path, "%s/%s", OLC_CONFIG_EXAMPLES, name);
  OLC_ASSERT_OK(olc_config_load_file(&c, path, &err), &err);
  return c;
}

/* The documented examples load and mean what they say. */
static void test_examples(void) {
  olc_config *c = load_example("full.ini");
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  CU_ASSERT_EQUAL(olc_config_plugin_dir_count(c), 2u);
  CU_ASSERT_EQUAL(olc_config__threads_configured(c), 0u);
  CU_ASSERT_EQUAL(olc_config_workload_count(c), 1u);
  CU_ASSERT_STRING_EQUAL(olc_config_workload(c, 0)->backend, "cpu_gemm");
  CU_ASSERT_EQUAL(olc_config_workload(c, 0)->property_count, 4u);
  CU_ASSERT_PTR_NOT_NULL(olc_config_workload(c, 0)->model_digest);
  CU_ASSERT_PTR_NOT_NULL(olc_config_plugin(c, "cpu_gemm"));
  CU_ASSERT_EQUAL(olc_config_plugin(c, "cpu_gemm")->enabled, 1);
  olc_config_free(c);
  c = load_example("minimal.ini");
  CU_ASSERT_EQUAL(olc_config_workload_count(c), 1u);
  CU_ASSERT_STRING_EQUAL(olc_config_workload(c, 0)->model_digest,
                         "workload:dtype=float32;k=1024;m=1024;n=1024");
  olc_config_free(c);
  c = load_example("in_memory.ini");
  olc_config_store_options(c, &so);
  CU_ASSERT_EQUAL(so.persistence_enabled, 0);
  CU_ASSERT_DOUBLE_EQUAL(olc_config_calibration(c)->max_seconds_per_workload, 2.0, 0);
  olc_config_free(c);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("config", NULL, NULL);
  CU_add_test(s, "defaults", test_defaults);
  CU_add_test(s, "[store] layers", test_store_layers);
  CU_add_test(s, "every key", test_every_key);
  CU_add_test(s, "booleans", test_booleans);
  CU_add_test(s, "identity of workloads without a model", test_structural_identity);
  CU_add_test(s, "unknown keys and sections", test_unknown_keys);
  CU_add_test(s, "bad values", test_bad_values);
  CU_add_test(s, "duplicates", test_duplicates);
  CU_add_test(s, "many sections and keys", test_many_names);
  CU_add_test(s, "missing backend or operator", test_missing_backend);
  CU_add_test(s, "syntax", test_syntax);
  CU_add_test(s, "relative paths and model digest", test_relative_paths_from_file);
  CU_add_test(s, "sha256", test_sha256);
  CU_add_test(s, "threads = 0", test_threads_auto);
  CU_add_test(s, "cgroup quota", test_cgroup_quota);
  CU_add_test(s, "value parsers", test_values);
  CU_add_test(s, "embedded default", test_embedded_default);
  CU_add_test(s, "exe_dir token", test_exe_dir_token);
  CU_add_test(s, "OLC_CONFIG", test_env_config);
  CU_add_test(s, "OLC_STORE and OLC_STORE_LAYERS", test_env_store);
  CU_add_test(s, "library dir of a static link", test_library_dir_static);
  CU_add_test(s, "config/examples", test_examples);
  return olc_test_run(argc, argv);
}
