/*
 * tests/cli/test_cli_strict.c - strict command-line input (issue 12 item
 * 8), end to end through the built olc:
 *
 * - an option-combination error is a usage error (exit 2) whose message
 *   does not repeat its prefix ("key: key: ...");
 * - --store given twice (before and/or after the command) and --config
 *   given twice are refused like every other single-valued option;
 *   --version with an argument exits 2;
 * - a non-zero literal that rounds to zero (1e-400) is refused, a
 *   subnormal kept; a 131,000-digit integer is "too large", not "not a
 *   decimal number";
 * - a repeated --measurement name is refused, and so are --structure with
 *   --level exact and the exact options with --level portable (never
 *   silently dropped);
 * - --policy-file on a FIFO fails at once (regular files only);
 * - list --json writes a key field that is not UTF-8 as <field>_base64, so
 *   two keys never print the same;
 * - a relative HOME is ignored like a relative XDG_CACHE_HOME;
 * - --config is accepted before and after the command (and only for the
 *   host commands), --store on both sides;
 * - plugins --help and calibrate --help list --json once.
 */
#include <CUnit/CUnit.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_test_util.h"
#include "test_support.h"

static char *g_dir;
static char *g_store;
static cli_run g_r;

static void setup(void) {
  CU_ASSERT_EQUAL_FATAL(cli_test_dir_open(&g_dir, "cli-strict", &g_store, "store.txt", NULL), 0);
}

static void teardown(void) { cli_test_dir_close(&g_r, &g_dir, &g_store, NULL); }

/* Runs olc with env (may be NULL) and the arguments; returns its code. */
#define run(env, ...) cli_test_olc(&g_r, g_dir, env, __VA_ARGS__)

/* Exit 2 and one line naming the culprit. */
#define USAGE(needle)                                                                              \
  do {                                                                                             \
    CU_ASSERT_EQUAL(g_r.code, 2);                                                                  \
    HAS(g_r.err, needle);                                                                          \
    CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 1);                                                   \
    if (g_r.code != 2 || strstr(g_r.err, needle) == NULL)                                          \
      fprintf(stderr, "\n  got %d: %s", g_r.code, g_r.err);                                        \
  } while (0)

#define KEY "--backend", "b", "--operator", "MatMul", "--implementation", "1"

static void test_combinations(void) {
  run(NULL, "--store", g_store, "lookup", KEY, "--model-digest", "d", NULL);
  USAGE("'--model-digest' and '--processor' go together");
  HAS_NOT(g_r.err, "key: key:");
  run(NULL, "--store", g_store, "lookup", KEY, "--threads", "4", NULL);
  USAGE("'--threads' needs");
  run(NULL, "--store", g_store, "override", "remove", KEY, "--processor", "p", NULL);
  USAGE("go together");
}

static void test_repeats_and_version(void) {
  char other[4200];
  snprintf(other, sizeof other, "%s/other.txt", g_dir);
  run(NULL, "--store", g_store, "--store", other, "path", NULL);
  USAGE("option '--store' given more than once");
  run(NULL, "--store", g_store, "path", "--store", other, NULL);
  USAGE("option '--store' given more than once");
  run(NULL, "path", "--store", g_store, "--store=x", NULL);
  USAGE("option '--store' given more than once");
  run(NULL, "--config", "a.ini", "plugins", "--config", "b.ini", NULL);
  USAGE("option '--config' given more than once");
  run(NULL, "--version", "extra", NULL);
  USAGE("unexpected argument 'extra'");
  CU_ASSERT_EQUAL(run(NULL, "--version", NULL), 0);
}

static void test_numbers(void) {
  char *huge = malloc(131003);
  CU_ASSERT_PTR_NOT_NULL_FATAL(huge);
  run(NULL, "--store", g_store, "override", "set", "--level", "portable", KEY, "--structure", "m=1",
      "--policy", "p", "--measurement", "x=1e-400:us", NULL);
  USAGE("'1e-400' is too small: it rounds to zero");
  CU_ASSERT_EQUAL(run(NULL, "--store", g_store, "override", "set", "--level", "portable", KEY,
                      "--structure", "m=1", "--policy", "p", "--measurement", "x=4.9e-324:us",
                      NULL),
                  0);
  CU_ASSERT_EQUAL(run(NULL, "--store", g_store, "list", NULL), 0);
  HAS(g_r.out, "5e-324"); /* the subnormal was stored, not zero */
  memset(huge, '9', 131000);
  memcpy(huge, "x=", 2);
  memcpy(huge + 131000, ":s", 3);
  run(NULL, "--store", g_store, "override", "set", "--level", "portable", KEY, "--structure", "m=1",
      "--policy", "p", "--measurement", huge, NULL);
  USAGE("is too large");
  HAS_NOT(g_r.err, "not a decimal number");
  memset(huge, '9', 131000);
  huge[131000] = 0;
  run(NULL, "--store", g_store, "lookup", KEY, "--model-digest", "d", "--processor", "p",
      "--threads", huge, NULL);
  USAGE("is too large");
  free(huge);
}

static void test_dropped_options(void) {
  run(NULL, "--store", g_store, "override", "set", "--level", "portable", KEY, "--structure", "m=1",
      "--policy", "p", "--measurement", "t=1:us", "--measurement", "t=2:us", NULL);
  USAGE("option '--measurement' repeats the name 't'");
  run(NULL, "--store", g_store, "override", "set", "--level", "exact", KEY, "--model-digest", "d",
      "--processor", "p", "--threads", "1", "--structure", "m=1", "--policy", "p", NULL);
  USAGE("'--structure' does not apply to --level exact");
  run(NULL, "--store", g_store, "override", "set", "--level", "portable", KEY, "--structure", "m=1",
      "--model-digest", "d", "--processor", "p", "--policy", "p", NULL);
  USAGE("do not apply to --level portable");
  CU_ASSERT_EQUAL(access(g_store, F_OK), -1); /* nothing was written */
}

static void test_policy_fifo(void) {
  char fifo[4200];
  snprintf(fifo, sizeof fifo, "%s/policy.fifo", g_dir);
  CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
  /* Before the fix this blocked forever (the ctest timeout ends it). */
  CU_ASSERT_EQUAL(run(NULL, "--store", g_store, "override", "set", "--level", "portable", KEY,
                      "--structure", "m=1", "--policy-file", fifo, NULL),
                  1);
  HAS(g_r.err, "is not a regular file");
}

/* Two keys that differ only in bytes that are not UTF-8 (0xff, 0xfe): the
 * file holds them raw, as the store writes every byte but '"' and '\'. */
static void test_json_base64(void) {
  static const char text[] = "onnx_light_calibration_profiles 1\n"
                             "profile portable override\nbackend \"b\377\"\noperator \"MatMul\"\n"
                             "implementation \"1\"\nstructure \"m\376\" \"1\"\npolicy \"p\"\nend\n"
                             "profile portable override\nbackend \"b\376\"\noperator \"MatMul\"\n"
                             "implementation \"1\"\nstructure \"m\376\" \"1\"\npolicy \"p\"\nend\n";
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(g_store, text, sizeof text - 1), 0);
  CU_ASSERT_EQUAL(run(NULL, "--store", g_store, "list", "--json", NULL), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  HAS_NOT(g_r.out, "\\ufffd");
  HAS(g_r.out, "\"backend_base64\":\"Yv8=\"");
  HAS(g_r.out, "\"backend_base64\":\"Yv4=\"");
  HAS(g_r.out, "\"structure_base64\":{\"bf4=\":\"MQ==\"}");
  HAS(g_r.out, "\"operator\":\"MatMul\"");
}

static void test_relative_home(void) {
  const char *env[] = {"HOME=rel", "XDG_CACHE_HOME=", NULL};
  CU_ASSERT_EQUAL(run(env, "path", NULL), 0);
  /* Not <cwd>/rel/.cache/...: the passwd entry's home instead. */
  HAS_NOT(g_r.out, "rel/.cache");
  CU_ASSERT_EQUAL(g_r.out[0], '/');
}

static void test_config_both_sides(void) {
  char ini[4200], text[8400];
  int n;
  snprintf(ini, sizeof ini, "%s/olc.ini", g_dir);
  n = snprintf(text, sizeof text, "[host]\nplugin_dirs = %s/none\n[store]\npath = %s\n", g_dir,
               g_store);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(ini, text, (size_t)n), 0);
  CU_ASSERT_EQUAL(run(NULL, "plugins", "--config", ini, "--json", NULL), 0);
  HAS(g_r.out, "olc.ini");
  CU_ASSERT_EQUAL(run(NULL, "--config", ini, "plugins", "--json", NULL), 0);
  HAS(g_r.out, "olc.ini");
  CU_ASSERT_EQUAL(run(NULL, "--config=", NULL), 2);
  run(NULL, "--config", ini, "check", NULL);
  USAGE("option '--config' is for the host commands");
  /* list, lookup and export read the configuration's [store] layers. */
  CU_ASSERT_EQUAL(run(NULL, "--store", g_store, "--config", ini, "list", NULL), 0);
  CU_ASSERT_EQUAL(run(NULL, "select", "--store", g_store, "--config", ini, NULL), 0);
  CU_ASSERT_EQUAL(run(NULL, "--store", g_store, "--config", ini, "select", NULL), 0);
}

static void test_help_json_once(void) {
  static const char *const cmds[] = {"plugins", "calibrate", "select", "explain", "prune"};
  size_t i;
  for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    CU_ASSERT_EQUAL(run(NULL, cmds[i], "--help", NULL), 0);
    if (cli_test_count(g_r.out, "\n  --json") != 1)
      fprintf(stderr, "\n  %s --help lists --json %zu times", cmds[i],
              cli_test_count(g_r.out, "\n  --json"));
    CU_ASSERT_EQUAL(cli_test_count(g_r.out, "\n  --json"), 1);
  }
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite_with_setup_and_teardown("cli_strict", NULL, NULL, setup, teardown);
  CU_add_test(s, "combination errors exit 2, one prefix", test_combinations);
  CU_add_test(s, "--store/--config once; --version alone", test_repeats_and_version);
  CU_add_test(s, "underflow, subnormals, huge numbers", test_numbers);
  CU_add_test(s, "no option silently dropped", test_dropped_options);
  CU_add_test(s, "--policy-file on a FIFO", test_policy_fifo);
  CU_add_test(s, "list --json <field>_base64", test_json_base64);
  CU_add_test(s, "a relative HOME is ignored", test_relative_home);
  CU_add_test(s, "--config before and after the command", test_config_both_sides);
  CU_add_test(s, "--json listed once in help", test_help_json_once);
  return olc_test_run(argc, argv);
}
