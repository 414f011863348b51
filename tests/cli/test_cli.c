/*
 * tests/cli/test_cli.c - olc end to end: the built binary is spawned with a
 * store in a fresh temporary directory; exit codes, stdout and stderr are
 * checked.
 */
#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_test_util.h"
#include "test_support.h"

static char *g_dir;
static char *g_store;
static cli_run g_r;

/* Every test gets a fresh directory and store. */
static void setup(void) {
  CU_ASSERT_EQUAL_FATAL(cli_test_dir_open(&g_dir, "cli", &g_store, "store.txt", NULL), 0);
}

static void teardown(void) { cli_test_dir_close(&g_r, &g_dir, &g_store, NULL); }

/* Runs olc (optionally with --store g_store first) and returns its exit
 * code; the output stays in g_r. */
static int run_va(const char *const *env, int with_store, const char *first, va_list ap) {
  const char *const prefix[] = {"--store", g_store, NULL};
  return cli_test_olcv(&g_r, g_dir, env, with_store ? prefix : NULL, first, ap);
}

static int olc(const char *first, ...) {
  va_list ap;
  int rc;
  va_start(ap, first);
  rc = run_va(NULL, 1, first, ap);
  va_end(ap);
  return rc;
}

static int olc_env(const char *const *env, const char *first, ...) {
  va_list ap;
  int rc;
  va_start(ap, first);
  rc = run_va(env, 0, first, ap);
  va_end(ap);
  return rc;
}

/* Usage errors: exit 2 and exactly one line naming the culprit. */
#define USAGE(needle)                                                                              \
  do {                                                                                             \
    CU_ASSERT_EQUAL(g_r.code, 2);                                                                  \
    HAS(g_r.err, needle);                                                                          \
    CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 1);                                                   \
    CU_ASSERT_EQUAL(strncmp(g_r.err, "olc: ", 5), 0);                                              \
  } while (0)

static void set_exact(const char *policy) {
  CU_ASSERT_EQUAL(olc("override", "set", "--level", "exact", "--backend", "gpu", "--operator",
                      "MatMul", "--implementation", "3", "--model-digest", "m1", "--processor",
                      "cpu-a", "--threads", "8", "--policy", policy, "--measurement",
                      "median_latency=2.5:us", NULL),
                  0);
}

static void set_portable(const char *policy) {
  CU_ASSERT_EQUAL(olc("override", "set", "--level", "portable", "--backend", "gpu", "--operator",
                      "MatMul", "--implementation", "3", "--structure", "dtype=float16",
                      "--structure", "shape=m,n,4096", "--policy", policy, NULL),
                  0);
}

static void test_help_and_version(void) {
  static const char *commands[] = {"path", "list", "lookup", "check", "import", "export", "repair"};
  size_t i;
  CU_ASSERT_EQUAL(olc("--help", NULL), 0);
  HAS(g_r.out, "usage: olc");
  for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
    HAS(g_r.out, commands[i]);
  CU_ASSERT_EQUAL(olc("--version", NULL), 0);
  CU_ASSERT_EQUAL(strncmp(g_r.out, "olc ", 4), 0);
  for (i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    char want[64];
    CU_ASSERT_EQUAL(olc(commands[i], "--help", NULL), 0);
    snprintf(want, sizeof want, "usage: olc %s", commands[i]);
    HAS(g_r.out, want);
  }
  CU_ASSERT_EQUAL(olc("override", "set", "--help", NULL), 0);
  HAS(g_r.out, "usage: olc override set");
  CU_ASSERT_EQUAL(olc("override", "remove", "-h", NULL), 0);
  HAS(g_r.out, "usage: olc override remove");
  CU_ASSERT_EQUAL(olc("override", "--help", NULL), 0);
  HAS(g_r.out, "remove");
  CU_ASSERT_EQUAL(olc("help", "lookup", NULL), 0);
  HAS(g_r.out, "--force-portable");
}

static void test_usage_errors(void) {
  olc(NULL);
  CU_ASSERT_EQUAL(g_r.code, 2);
  olc("frobnicate", NULL);
  USAGE("'frobnicate'");
  olc("--bogus", NULL);
  USAGE("'--bogus'");
  olc("list", "--bogus", NULL);
  USAGE("'--bogus'");
  olc("list", "extra", NULL);
  USAGE("'extra'");
  olc("list", "--json=yes", NULL);
  USAGE("'--json'");
  olc("lookup", "--backend", NULL);
  USAGE("'--backend'");
  olc("lookup", "--operator", "o", "--implementation", "1", NULL);
  USAGE("'--backend'");
  olc("lookup", "--backend", "b", "--backend", "c", "--operator", "o", "--implementation", "1",
      NULL);
  USAGE("'--backend'");
  olc("lookup", "--backend", "b", "--operator", "o", "--implementation", "1", "--threads", "8x",
      NULL);
  USAGE("'--threads'");
  olc("lookup", "--backend", "b", "--operator", "o", "--implementation", "1", "--threads", "0",
      NULL);
  USAGE("'--threads'");
  olc("lookup", "--backend", "b", "--operator", "o", "--implementation", "1", "--threads",
      "99999999999999999999", NULL);
  USAGE("'--threads'");
  olc("lookup", "--backend", "b", "--operator", "o", "--implementation", "1", "--threads", " 8",
      NULL);
  USAGE("'--threads'");
  olc("lookup", "--backend", "b", "--operator", "o", "--implementation", "1", "--structure",
      "novalue", NULL);
  USAGE("'--structure'");
  olc("override", "set", "--level", "sideways", NULL);
  USAGE("'--level'");
  olc("override", "set", "--level", "exact", "--backend", "b", "--operator", "o",
      "--implementation", "1", "--model-digest", "m", "--threads", "2", "--policy", "p", NULL);
  USAGE("'--processor'");
  olc("override", "set", "--level", "portable", "--backend", "b", "--operator", "o",
      "--implementation", "1", "--policy", "p", NULL);
  USAGE("'--structure'");
  olc("override", "set", "--level", "portable", "--backend", "b", "--operator", "o",
      "--implementation", "1", "--structure", "a=1", NULL);
  USAGE("'--policy'");
  olc("override", "set", "--level", "portable", "--backend", "b", "--operator", "o",
      "--implementation", "1", "--structure", "a=1", "--policy", "p", "--measurement",
      "lat=1.5e:us", NULL);
  USAGE("'--measurement'");
  olc("override", "set", "--level", "portable", "--backend", "b", "--operator", "o",
      "--implementation", "1", "--structure", "a=1", "--policy", "p", "--measurement", "lat=nan:us",
      NULL);
  USAGE("'--measurement'");
  olc("override", "set", "--level", "portable", "--backend", "b", "--operator", "o",
      "--implementation", "1", "--structure", "a=1", "--policy", "p", "--measurement", "lat=1",
      NULL);
  USAGE("'--measurement'");
  olc("override", "frob", NULL);
  USAGE("'frob'");
  olc("import", NULL);
  USAGE("FILE");
  olc("export", "a", "b", NULL);
  USAGE("'b'");
  /* Nothing was written by any of these. */
  {
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(g_store, &st), 0);
  }
}

static void test_override_lookup_remove(void) {
  set_exact("tile=16");
  HAS(g_r.out, "installed");
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "gpu", "--operator", "MatMul", "--implementation", "3",
                      "--model-digest", "m1", "--processor", "cpu-a", "--threads", "8", NULL),
                  0);
  HAS(g_r.out, "selected: exact override");
  HAS(g_r.out, "\"tile=16\"");
  HAS(g_r.out, "2.5");
  HAS(g_r.out, "median_latency");
  /* A different processor: not selected, and the reason says why. */
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "gpu", "--operator", "MatMul", "--implementation", "3",
                      "--model-digest", "m1", "--processor", "cpu-b", "--threads", "8", NULL),
                  3);
  HAS(g_r.out, "selected: none");
  HAS(g_r.out, "different_processor");
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "gpu", "--operator", "MatMul", "--implementation", "3",
                      "--model-digest", "m1", "--processor", "cpu-b", "--threads", "8", "--json",
                      NULL),
                  3);
  CU_ASSERT_TRUE(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"selected\":null");
  HAS(g_r.out, "\"reason\":\"different_processor\"");
  HAS(g_r.out, "\"record\":{");

  CU_ASSERT_EQUAL(olc("override", "remove", "--backend", "gpu", "--operator", "MatMul",
                      "--implementation", "3", "--model-digest", "m1", "--processor", "cpu-a",
                      "--threads", "8", NULL),
                  0);
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "gpu", "--operator", "MatMul", "--implementation", "3",
                      "--model-digest", "m1", "--processor", "cpu-a", "--threads", "8", NULL),
                  3);
  /* Removing what is not there fails with "olc: <where>: <message>". */
  CU_ASSERT_EQUAL(olc("override", "remove", "--level", "exact", "--backend", "gpu", "--operator",
                      "MatMul", "--implementation", "3", "--model-digest", "m1", "--processor",
                      "cpu-a", "--threads", "8", NULL),
                  1);
  CU_ASSERT_EQUAL(strncmp(g_r.err, "olc: ", 5), 0);
}

static void test_lookup_precedence_json(void) {
  set_portable("portable-policy");
  set_exact("exact-policy");
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "gpu", "--operator", "MatMul", "--implementation", "3",
                      "--model-digest", "m1", "--processor", "cpu-a", "--threads", "8",
                      "--structure", "shape=m,n,4096", "--structure", "dtype=float16", "--json",
                      NULL),
                  0);
  CU_ASSERT_TRUE(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"selected\":{\"level\":\"exact\",\"origin\":\"override\"");
  HAS(g_r.out, "\"reason\":\"shadowed\"");
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "gpu", "--operator", "MatMul", "--implementation", "3",
                      "--model-digest", "m1", "--processor", "cpu-a", "--threads", "8",
                      "--structure", "shape=m,n,4096", "--structure", "dtype=float16",
                      "--force-portable", "--json", NULL),
                  0);
  CU_ASSERT_TRUE(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"selected\":{\"level\":\"portable\"");
  HAS(g_r.out, "\"reason\":\"force_portable\"");
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "gpu", "--operator", "MatMul", "--implementation", "3",
                      "--structure", "dtype=float32", "--all-candidates", NULL),
                  3);
  HAS(g_r.out, "selected: none");
  HAS(g_r.out, "rejected: portable override");
  HAS(g_r.out, "rejected: exact override");
}

static void set_digest(const char *digest) {
  CU_ASSERT_EQUAL(olc("override", "set", "--level", "exact", "--backend", "gpu", "--operator",
                      "MatMul", "--implementation", "3", "--model-digest", digest, "--processor",
                      "cpu-a", "--threads", "8", "--policy", digest, NULL),
                  0);
}

/* --scope workload lists the records of the key's workload and of its
 * model before records were per workload, and counts the others. */
static void test_lookup_scope_workload(void) {
  set_digest("sha256:aa#m=1");
  set_digest("sha256:aa#m=2");
  set_digest("sha256:aa#m=3");
  set_digest("sha256:bb#m=1");
  set_digest("sha256:aa");
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "gpu", "--operator", "MatMul", "--implementation", "3",
                      "--model-digest", "sha256:aa#m=1", "--processor", "cpu-a", "--threads", "8",
                      "--scope", "workload", NULL),
                  0);
  HAS(g_r.out, "selected: exact override");
  HAS(g_r.out, "different_model: model_digest differs: record \"sha256:bb#m=1\"");
  HAS(g_r.out, "different_model: recorded for model \"sha256:aa\" before records were per "
               "workload (recalibrated)");
  HAS_NOT(g_r.out, "m=2");
  HAS(g_r.out, "unlisted: 2 records of other workloads (--all-candidates lists them)\n");
  CU_ASSERT_EQUAL(cli_test_lines(g_r.out), 1 + 4 + 2 + 1); /* selected and its record, 2, 1 */
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "gpu", "--operator", "MatMul", "--implementation", "3",
                      "--model-digest", "sha256:aa#m=1", "--processor", "cpu-a", "--threads", "8",
                      "--scope", "workload", "--json", NULL),
                  0);
  CU_ASSERT_TRUE(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"unlisted\":2}");
  /* The key scope (the default) lists every other shape. */
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "gpu", "--operator", "MatMul", "--implementation", "3",
                      "--model-digest", "sha256:aa#m=1", "--processor", "cpu-a", "--threads", "8",
                      NULL),
                  0);
  HAS(g_r.out, "sha256:aa#m=2");
  HAS_NOT(g_r.out, "unlisted");
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "gpu", "--operator", "MatMul", "--implementation", "3",
                      "--scope", "all", NULL),
                  2);
  USAGE("option '--scope' takes 'key' or 'workload', got 'all'");
}

/* olc list --json of an empty store: the schema, the store, no records. */
static void expect_empty_listing(void) {
  char want[4200];
  snprintf(want, sizeof want, "{\"schema\":1,\"store\":\"%s\",\"records\":[]}\n", g_store);
  CU_ASSERT_STRING_EQUAL(g_r.out, want);
}

/* The records of a listing, without the store it names. */
/* The records of a JSON listing without their "source" members (the
 * store's file, which differs between two stores with the same records). */
static const char *listed_records(const char *json) {
  static char buf[1 << 16];
  const char *r = strstr(json, "\"records\":"), *s;
  size_t n = 0;
  CU_ASSERT_PTR_NOT_NULL(r);
  if (r == NULL)
    return json;
  while ((s = strstr(r, "\"source\":\"")) != NULL && n + (size_t)(s - r) < sizeof buf) {
    memcpy(buf + n, r, (size_t)(s - r));
    n += (size_t)(s - r);
    r = strchr(s + 10, '"');
    r = r != NULL ? r + 1 : s + strlen(s);
  }
  snprintf(buf + n, sizeof buf - n, "%s", r);
  return buf;
}

static void test_lookup_empty_store(void) {
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "b", "--operator", "o", "--implementation", "1",
                      "--structure", "a=1", "--json", NULL),
                  3);
  CU_ASSERT_TRUE(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"selected\":null");
  HAS(g_r.out, "\"rejected\":[]");
  CU_ASSERT_EQUAL(olc("list", "--json", NULL), 0);
  CU_ASSERT_TRUE(cli_test_json_valid(g_r.out));
  expect_empty_listing();
}

static void test_list_json(void) {
  set_exact("tile=16");
  set_portable("a \"quoted\"\npolicy\\ with \x01 control");
  CU_ASSERT_EQUAL(olc("list", "--json", NULL), 0);
  CU_ASSERT_TRUE(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"level\":\"exact\",\"origin\":\"override\",\"backend\":\"gpu\","
               "\"operator\":\"MatMul\",\"implementation\":\"3\",\"model_digest\":\"m1\","
               "\"processor\":\"cpu-a\",\"thread_count\":8,\"structure\":{}");
  HAS(g_r.out, "\"measurements\":[{\"name\":\"median_latency\",\"value\":2.5,\"unit\":\"us\"}]");
  HAS(g_r.out, "\"policy\":\"tile=16\"");
  HAS(g_r.out, "\"structure\":{\"dtype\":\"float16\",\"shape\":\"m,n,4096\"}");
  HAS(g_r.out, "\"model_digest\":null");
  HAS(g_r.out, "\"policy\":\"a \\\"quoted\\\"\\npolicy\\\\ with \\u0001 control\"");
  CU_ASSERT_EQUAL(olc("list", NULL), 0);
  HAS(g_r.out, "profile exact override");
  HAS(g_r.out, "profile portable override");
  HAS(g_r.out, "2 records");
}

static void test_list_json_python(void) {
  char cmd[8192];
  char *json_path;
  FILE *f;
  set_portable("p");
  CU_ASSERT_EQUAL(olc("list", "--json", NULL), 0);
  if (system("python3 -c 'import json' >/dev/null 2>&1") != 0) {
    fprintf(stderr, "python3 missing: second JSON opinion skipped\n");
    return;
  }
  json_path = olc_test_path(g_dir, "list.json");
  f = fopen(json_path, "wb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fwrite(g_r.out, 1, g_r.out_len, f);
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
           "sys.exit(0 if d[\"schema\"]==1 and "
           "d[\"records\"][0][\"structure\"][\"dtype\"]==\"float16\" else 1)' '%s'",
           json_path);
  CU_ASSERT_EQUAL(system(cmd), 0);
  free(json_path);
}

/* Every JSON document of the store commands opens with its schema. */
static void test_json_schema(void) {
  set_portable("p");
  CU_ASSERT_EQUAL(olc("list", "--json", NULL), 0);
  CU_ASSERT_EQUAL(strncmp(g_r.out, "{\"schema\":1,", 12), 0);
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "gpu", "--operator", "MatMul", "--implementation", "3",
                      "--structure", "dtype=float16", "--structure", "shape=m,n,4096", "--json",
                      NULL),
                  0);
  CU_ASSERT_TRUE(cli_test_json_valid(g_r.out));
  CU_ASSERT_EQUAL(strncmp(g_r.out, "{\"schema\":1,", 12), 0);
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "b", "--operator", "o", "--implementation", "1",
                      "--structure", "a=1", "--json", NULL),
                  3);
  CU_ASSERT_EQUAL(strncmp(g_r.out, "{\"schema\":1,", 12), 0);
}

static void test_policy_base64(void) {
  /* 0xff 0xfe 'A' 0x80: not UTF-8, so JSON carries base64 ("//5BgA=="). */
  set_portable("\xff\xfe"
               "A\x80");
  CU_ASSERT_EQUAL(olc("list", "--json", NULL), 0);
  CU_ASSERT_TRUE(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"policy_base64\":\"//5BgA==\"");
  HAS_NOT(g_r.out, "\"policy\":");
  HAS_NOT(g_r.out, "\xff");
  /* Valid UTF-8 stays text. */
  set_portable("caf\xc3\xa9");
  CU_ASSERT_EQUAL(olc("list", "--json", NULL), 0);
  HAS(g_r.out, "\"policy\":\"caf\xc3\xa9\"");
  /* The text listing escapes the bytes a terminal must not see raw. */
  CU_ASSERT_EQUAL(olc("list", NULL), 0);
  HAS(g_r.out, "\"caf\xc3\xa9\"");
  set_portable("\xff\x1b[31m\xc2\x9b");
  CU_ASSERT_EQUAL(olc("list", NULL), 0);
  HAS(g_r.out, "\"\\xff\\x1b[31m\\xc2\\x9b\"");
}

static void test_policy_file_binary(void) {
  char *path = olc_test_path(g_dir, "policy.bin");
  static const unsigned char bytes[] = {'a', 0, 'b', 0xff};
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, bytes, sizeof bytes), 0);
  CU_ASSERT_EQUAL(olc("override", "set", "--level", "portable", "--backend", "b", "--operator", "o",
                      "--implementation", "1", "--structure", "k=v", "--policy-file", path, NULL),
                  0);
  CU_ASSERT_EQUAL(olc("list", "--json", NULL), 0);
  HAS(g_r.out, "\"policy_base64\":\"YQBi/w==\"");
  free(path);
}

static void test_measurement_numbers(void) {
  CU_ASSERT_EQUAL(olc("override", "set", "--level", "portable", "--backend", "b", "--operator", "o",
                      "--implementation", "1", "--structure", "k=v", "--policy", "p",
                      "--measurement", "a=0.1:s", "--measurement", "b=-1e-07:s", "--measurement",
                      "c=123456789.125:ns", "--measurement", "d=1E3:x", NULL),
                  0);
  CU_ASSERT_EQUAL(olc("list", "--json", NULL), 0);
  CU_ASSERT_TRUE(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"value\":0.1,");
  HAS(g_r.out, "\"value\":-1e-07,");
  HAS(g_r.out, "\"value\":123456789.125,");
  HAS(g_r.out, "\"value\":1000,");
}

static void test_check(void) {
  char *bad = olc_test_path(g_dir, "bad.txt");
  char want[4200];
  const char text[] = "onnx_light_calibration_profiles 1\n"
                      "profile exact calibrated\n"
                      "bogus \"x\"\n";
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(bad, text, sizeof text - 1), 0);
  CU_ASSERT_EQUAL(olc("check", bad, NULL), 1);
  snprintf(want, sizeof want, "%s:3:", bad);
  CU_ASSERT_EQUAL(strncmp(g_r.err, want, strlen(want)), 0);
  CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 1);
  {
    /* FILE:LINE:COLUMN: message, the column a number. */
    const char *p = g_r.err + strlen(want);
    CU_ASSERT_TRUE(*p >= '1' && *p <= '9');
    while (*p >= '0' && *p <= '9')
      p++;
    CU_ASSERT_EQUAL(strncmp(p, ": ", 2), 0);
    CU_ASSERT_TRUE(strlen(p) > 3);
  }
  /* The default is the store; a valid one is "ok". */
  set_exact("x");
  CU_ASSERT_EQUAL(olc("check", NULL), 0);
  HAS(g_r.out, "ok, 1 record");
  free(bad);
}

static void test_import_export(void) {
  char *file = olc_test_path(g_dir, "export.txt");
  char *portable = olc_test_path(g_dir, "portable.txt");
  char *other = olc_test_path(g_dir, "other.txt");
  char *listing;
  set_exact("e");
  set_portable("p");
  CU_ASSERT_EQUAL(olc("list", "--json", NULL), 0);
  listing = strdup(listed_records(g_r.out));
  CU_ASSERT_EQUAL(olc("export", file, NULL), 0);
  CU_ASSERT_EQUAL(olc("check", file, NULL), 0);
  HAS(g_r.out, "2 records");
  CU_ASSERT_EQUAL(olc("export", "--portable-only", portable, NULL), 0);
  CU_ASSERT_EQUAL(olc("check", portable, NULL), 0);
  HAS(g_r.out, "1 record");
  /* A fresh store gets the same records back. */
  CU_ASSERT_EQUAL(olc_env(NULL, "--store", other, "import", file, NULL), 0);
  HAS(g_r.out, "imported 2 records");
  CU_ASSERT_EQUAL(olc_env(NULL, "--store", other, "list", "--json", NULL), 0);
  CU_ASSERT_STRING_EQUAL(listed_records(g_r.out), listing);
  /* Importing a malformed file changes nothing. */
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(portable, "garbage\n", 8), 0);
  CU_ASSERT_EQUAL(olc_env(NULL, "--store", other, "import", portable, NULL), 1);
  CU_ASSERT_EQUAL(strncmp(g_r.err, "olc: ", 5), 0);
  {
    /* Named as check names it: FILE:LINE:COLUMN: message. */
    char want[4200];
    snprintf(want, sizeof want, "olc: import: %s:1:1: bad header", portable);
    HAS(g_r.err, want);
    CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 1);
  }
  CU_ASSERT_EQUAL(olc_env(NULL, "--store", other, "list", "--json", NULL), 0);
  CU_ASSERT_STRING_EQUAL(listed_records(g_r.out), listing);
  free(listing);
  free(file);
  free(portable);
  free(other);
}

static int count_corrupt(void) { return olc_test_count_names(g_dir, "store.txt.corrupt-", ""); }

static void test_repair(void) {
  /* A damaged store (its header, then junk): what repair moves. */
  const char junk[] = "onnx_light_calibration_profiles 1\nthis is not a record\n";
  CU_ASSERT_EQUAL(olc("repair", NULL), 0);
  HAS(g_r.out, "nothing to repair");
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(g_store, junk, sizeof junk - 1), 0);
  /* An unreadable store is an error, never an empty listing. */
  CU_ASSERT_EQUAL(olc("list", NULL), 1);
  HAS(g_r.err, "repair");
  CU_ASSERT_EQUAL(olc("lookup", "--backend", "b", "--operator", "o", "--implementation", "1",
                      "--structure", "a=1", NULL),
                  1);
  CU_ASSERT_EQUAL(olc("repair", NULL), 0);
  HAS(g_r.out, "moved");
  CU_ASSERT_EQUAL(count_corrupt(), 1);
  CU_ASSERT_EQUAL(olc("list", "--json", NULL), 0);
  expect_empty_listing();
  set_exact("after-repair");
  CU_ASSERT_EQUAL(olc("repair", NULL), 0);
  HAS(g_r.out, "nothing to repair");
  CU_ASSERT_EQUAL(count_corrupt(), 1);
  /* A file that is not a store is refused unless --force. */
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(g_store, "not a store\n", 12), 0);
  CU_ASSERT_EQUAL(olc("repair", NULL), 1);
  HAS(g_r.err, "does not look like a store file");
  HAS(g_r.err, "--force");
  CU_ASSERT_EQUAL(count_corrupt(), 1);
  CU_ASSERT_EQUAL(olc("repair", "--force", NULL), 0);
  HAS(g_r.out, "moved");
  CU_ASSERT_EQUAL(count_corrupt(), 2);
  CU_ASSERT_EQUAL(olc("repair", "--help", NULL), 0);
  HAS(g_r.out, "--force");
}

static void test_store_path_sources(void) {
  char env_store[4200], want[4200];
  const char *env[2];
  snprintf(env_store, sizeof env_store, "OLC_STORE=%s/from-env.txt", g_dir);
  env[0] = env_store;
  env[1] = NULL;
  CU_ASSERT_EQUAL(olc_env(NULL, "path", NULL), 0);
  snprintf(want, sizeof want, "%s/cache/onnx-light/calibration_profiles.txt\n", g_dir);
  CU_ASSERT_STRING_EQUAL(g_r.out, want);
  CU_ASSERT_EQUAL(olc_env(env, "path", NULL), 0);
  snprintf(want, sizeof want, "%s/from-env.txt\n", g_dir);
  CU_ASSERT_STRING_EQUAL(g_r.out, want);
  /* --store wins over OLC_STORE, before or after the command. */
  CU_ASSERT_EQUAL(olc_env(env, "--store", g_store, "path", NULL), 0);
  snprintf(want, sizeof want, "%s\n", g_store);
  CU_ASSERT_STRING_EQUAL(g_r.out, want);
  CU_ASSERT_EQUAL(olc_env(env, "path", "--store", g_store, NULL), 0);
  CU_ASSERT_STRING_EQUAL(g_r.out, want);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite_with_setup_and_teardown("cli", NULL, NULL, setup, teardown);
  CU_add_test(s, "help_and_version", test_help_and_version);
  CU_add_test(s, "usage_errors", test_usage_errors);
  CU_add_test(s, "override_lookup_remove", test_override_lookup_remove);
  CU_add_test(s, "lookup_precedence_json", test_lookup_precedence_json);
  CU_add_test(s, "lookup_scope_workload", test_lookup_scope_workload);
  CU_add_test(s, "lookup_empty_store", test_lookup_empty_store);
  CU_add_test(s, "list_json", test_list_json);
  CU_add_test(s, "list_json_python", test_list_json_python);
  CU_add_test(s, "json_schema", test_json_schema);
  CU_add_test(s, "policy_base64", test_policy_base64);
  CU_add_test(s, "policy_file_binary", test_policy_file_binary);
  CU_add_test(s, "measurement_numbers", test_measurement_numbers);
  CU_add_test(s, "check", test_check);
  CU_add_test(s, "import_export", test_import_export);
  CU_add_test(s, "repair", test_repair);
  CU_add_test(s, "store_path_sources", test_store_path_sources);
  return olc_test_run(argc, argv);
}
