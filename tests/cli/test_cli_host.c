/*
 * tests/cli/test_cli_host.c - the host commands of olc end to end:
 * calibrate, select, explain, plugins and prune run as the built binary
 * against the mock plugins (mock_det, tests/plugins/README.md) with a
 * config file and a store in a fresh temporary directory.  The mock
 * plugins are copied into that directory so that every path the output
 * shows starts with it (normalized to @DIR@ in the golden files).
 *
 * Golden files (tests/golden/cli/NAME.txt) hold the text output of plugins,
 * select and explain with the directory replaced by @DIR@ and measured
 * values by @NUM@.  OLC_UPDATE_GOLDEN=1 rewrites them from this run.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_test_util.h"
#include "test_support.h"

static char *g_dir;
static char *g_ini;
static char *g_store; /* g_dir/store.txt, the [store] path of the config */
static cli_run g_r;

/* Copies the mock plugin file src into g_dir/sub/. */
static void copy_plugin(const char *src, const char *sub) {
  cli_test_copy_file(g_dir, src, sub, 0755);
}

static void setup(void) {
  CU_ASSERT_EQUAL_FATAL(
      cli_test_dir_open(&g_dir, "cli_host", &g_ini, "olc.ini", &g_store, "store.txt", NULL), 0);
  copy_plugin(OLC_MOCK_PLUGIN_DIR_GOOD "/mock_det.so", "good");
  copy_plugin(OLC_MOCK_PLUGIN_DIR_GOOD_V2 "/mock_det.so", "good_v2");
  copy_plugin(OLC_MOCK_PLUGIN_ROOT "/create_unavailable/mock_create_unavailable.so", "unavailable");
}

static void teardown(void) { cli_test_dir_close(&g_r, &g_dir, &g_ini, &g_store, NULL); }

/* Writes g_ini: plugin directories (relative to g_dir; "unavailable" is
 * added when missing), threads, and [store] force_portable; two workloads:
 * mm (mock_det) and elsewhere (a plugin that is not available here, so
 * skipped). */
static void write_config_extra(const char *dirs, unsigned threads, int force_portable,
                               const char *extra) {
  char text[2048];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s%s\nthreads = %u\n"
                   "[store]\npath = store.txt\nforce_portable = %s\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
                   "max_seconds_per_workload = 30\nabandon_factor = 1.5\n"
                   "[workload.mm]\nbackend = mock_det\noperator = MatMul\n"
                   "dtype = float32\nm = 8\nn = 4\nk = 2\n"
                   "[workload.elsewhere]\nbackend = mock_create_unavailable\noperator = MatMul\n"
                   "m = 1\n%s",
                   dirs, strstr(dirs, "unavailable") != NULL ? "" : ", unavailable", threads,
                   force_portable ? "true" : "false", extra);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(g_ini, text, (size_t)n), 0);
}

/* The same with mock_det's candidates 1000, 100, 2000 and 4000 us: the
 * winner, spin_us=100, leads by 10 x, which no busy machine flips. */
static void write_config(const char *dirs, unsigned threads, int force_portable) {
  write_config_extra(dirs, threads, force_portable,
                     "[plugin.mock_det]\ncandidates = 1000,100,2000,4000\n");
}

/* Runs olc with the given arguments (NULL-terminated); the output stays in
 * g_r.  The environment is clean: no OLC_CONFIG, OLC_STORE or
 * OLC_PLUGIN_PATH unless env names them. */
#define run_env(env, ...) cli_test_olc(&g_r, g_dir, env, __VA_ARGS__)

#define OLC(...) run_env(NULL, __VA_ARGS__, NULL)
#define CFG "--config", g_ini

static char *store_text(void) { return (char *)olc_test_read_file(g_store, NULL); }

/* ---- golden files --------------------------------------------------------- */

/* Appends s to buf (size cap) with every occurrence of from as to. */
static void replace_all(char *dst, size_t cap, const char *src, const char *from, const char *to) {
  size_t fl = strlen(from), tl = strlen(to), n = 0;
  while (*src != 0 && n + 1 < cap) {
    if (fl > 0 && strncmp(src, from, fl) == 0 && n + tl + 1 < cap) {
      memcpy(dst + n, to, tl);
      n += tl;
      src += fl;
    } else {
      dst[n++] = *src++;
    }
  }
  dst[n] = 0;
}

/* 1 when s starts with a unit the table and the time lines give timings
 * in (" us", " ms", " s", "x"), followed by a blank or the end. */
static size_t timing_unit(const char *s) {
  static const char *const units[] = {" us", " ms", " s", "x"};
  size_t i;
  for (i = 0; i < sizeof units / sizeof units[0]; i++) {
    size_t n = strlen(units[i]);
    if (strncmp(s, units[i], n) == 0 && (s[n] == ' ' || s[n] == '\n' || s[n] == 0))
      return n;
  }
  return 0;
}

/* Every timing of a table row or a "time:" line as @NUM@, and the runs of
 * blanks that align the table (their length follows the numbers) as one;
 * indentation stays. */
static void normalize_timings(char *dst, const char *src) {
  size_t n = 0;
  int line_start = 1;
  while (*src != 0) {
    size_t k = 0;
    if (line_start && *src == ' ') {
      dst[n++] = *src++;
      continue;
    }
    line_start = *src == '\n';
    while ((src[k] >= '0' && src[k] <= '9') || (k > 0 && src[k] == '.'))
      k++;
    if (k > 0 && (n == 0 || dst[n - 1] == ' ') && timing_unit(src + k) > 0) {
      memcpy(dst + n, "@NUM@", 5);
      n += 5;
      src += k;
    } else if (*src == ' ' && src[1] == ' ') {
      while (src[1] == ' ')
        src++;
    } else {
      dst[n++] = *src++;
    }
  }
  dst[n] = 0;
}

/* The output as the golden files hold it: the directory as @DIR@, the
 * value of every measurement line and every timing as @NUM@. */
static char *normalize(const char *out) {
  size_t cap = strlen(out) * 2 + 64;
  char *a = malloc(cap), *b = malloc(cap), *real, *line, *p;
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  real = realpath(g_dir, NULL);
  replace_all(a, cap, out, g_dir, "@DIR@");
  if (real != NULL && strcmp(real, g_dir) != 0) {
    replace_all(b, cap, a, real, "@DIR@");
    strcpy(a, b);
  }
  free(real);
  /* measurement "NAME" VALUE "UNIT" -> measurement "NAME" @NUM@ "UNIT" */
  b[0] = 0;
  for (line = a; *line != 0; line = p) {
    char *end = strchr(line, '\n');
    char *m = strstr(line, "measurement \"");
    size_t len = end != NULL ? (size_t)(end - line + 1) : strlen(line);
    p = line + len;
    if (m != NULL && m < line + len) {
      char *q = strchr(m + 13, '"'); /* end of the name */
      char *v = q != NULL ? q + 2 : NULL;
      char *u = v != NULL ? strchr(v, ' ') : NULL;
      if (u != NULL && u < line + len) {
        strncat(b, line, (size_t)(v - line));
        strcat(b, "@NUM@");
        strncat(b, u, (size_t)(line + len - u));
        continue;
      }
    }
    strncat(b, line, len);
  }
  normalize_timings(a, b);
  free(b);
  return a;
}

/* Compares the normalized output with tests/golden/cli/NAME, or rewrites
 * the file when OLC_UPDATE_GOLDEN=1. */
static void golden(const char *name, const char *out) {
  char path[4096];
  char *got = normalize(out), *want;
  const char *update = getenv("OLC_UPDATE_GOLDEN");
  snprintf(path, sizeof path, "%s/%s", OLC_GOLDEN_DIR, name);
  if (update != NULL && strcmp(update, "1") == 0) {
    CU_ASSERT_EQUAL(olc_test_write_file(path, got, strlen(got)), 0);
    fprintf(stderr, "updated %s\n", path);
  } else {
    want = (char *)olc_test_read_file(path, NULL);
    CU_ASSERT_PTR_NOT_NULL(want);
    if (want != NULL && strcmp(want, got) != 0) {
      fprintf(stderr, "golden %s differs; got:\n%s\n(OLC_UPDATE_GOLDEN=1 rewrites it)\n", path,
              got);
      CU_FAIL("output differs from the golden file");
    }
    free(want);
  }
  free(got);
}

/* ---- tests ---------------------------------------------------------------- */

static void test_help(void) {
  static const char *commands[] = {"calibrate", "select", "explain", "plugins", "prune"};
  size_t i;
  CU_ASSERT_EQUAL(OLC("--help"), 0);
  for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
    HAS(g_r.out, commands[i]);
  for (i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    char want[64];
    CU_ASSERT_EQUAL(OLC(commands[i], "--help"), 0);
    snprintf(want, sizeof want, "usage: olc %s", commands[i]);
    HAS(g_r.out, want);
    HAS(g_r.out, "--config FILE");
  }
  CU_ASSERT_EQUAL(OLC("help", "calibrate"), 0);
  HAS(g_r.out, "--recalibrate");
  HAS(g_r.out, "Exit status");
}

static void test_usage_errors(void) {
  write_config("good", 2, 0);
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "--bogus"), 2);
  HAS(g_r.err, "'--bogus'");
  CU_ASSERT_EQUAL(OLC("select", CFG, "--recalibrate"), 2);
  CU_ASSERT_EQUAL(OLC("explain", CFG, "--workload", "mm", "--backend", "mock_det"), 2);
  HAS(g_r.err, "--workload");
  CU_ASSERT_EQUAL(OLC("explain", CFG, "--backend", "mock_det"), 2);
  HAS(g_r.err, "--operator");
  CU_ASSERT_EQUAL(OLC("explain", CFG, "--workload", "nosuch"), 2);
  HAS(g_r.err, "'nosuch'");
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "--workload", "nosuch"), 2);
  HAS(g_r.err, "'nosuch'");
  CU_ASSERT_EQUAL(OLC("plugins", CFG, "extra"), 2);
  /* A workload whose plugin is not loaded cannot be explained. */
  CU_ASSERT_EQUAL(OLC("explain", CFG, "--workload", "elsewhere"), 1);
  HAS(g_r.err, "mock_create_unavailable");
  CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 1);
  CU_ASSERT_EQUAL(OLC("prune", CFG, "--dry-run=1"), 2);
  /* A config that does not parse names file and line: a failure. */
  CU_ASSERT_EQUAL(olc_test_write_file(g_ini, "[host]\nbogus = 1\n", 18), 0);
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 1);
  HAS(g_r.err, "olc.ini:2: unknown key 'bogus' in [host]\n");
  HAS_NOT(g_r.err, "column"); /* the position is said once, without a column 0 */
  CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 1);
  CU_ASSERT_EQUAL(OLC("select", "--config", "/nonexistent/olc.ini"), 1);
}

/* First run measures and writes the store, the second selects without
 * measuring and without writing. */
static void test_first_then_second(void) {
  char *before, *after;
  write_config("good", 2, 0);
  CU_ASSERT_EQUAL(OLC("select", CFG), 3); /* empty store: nothing selected */
  HAS(g_r.out, "not selected");
  HAS(g_r.out, "\nelsewhere  skipped       plugin 'mock_create_unavailable' unavailable here: ");

  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "-v"), 0);
  HAS(g_r.out, "workload \"mm\"");
  HAS(g_r.out, "  calibrated now\n");
  HAS(g_r.out, "candidates measured: 4");
  HAS(g_r.out, "\"spin_us=100\": median");
  HAS(g_r.out, "(best)");
  HAS(g_r.out, "policy \"spin_us=100\"");
  HAS(g_r.out, "skipped");
  HAS(g_r.out, "summary: 1 calibrated now, 0 selected from the store, 1 skipped, 0 failed");
  HAS(g_r.out, "time: ");
  /* Not a terminal: no progress line. */
  HAS_NOT(g_r.err, "candidate 1/");
  before = store_text();
  CU_ASSERT_PTR_NOT_NULL_FATAL(before);
  HAS(before, "spin_us=100");
  CU_ASSERT_EQUAL(cli_test_count(before, "spin_us="), 2); /* exact + portable */

  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 0);
  HAS(g_r.out, "\nmm         selected  exact  spin_us=100");
  HAS_NOT(g_r.out, "candidates measured");
  HAS(g_r.out, "summary: 0 calibrated now, 1 selected from the store, 1 skipped, 0 failed");
  after = store_text();
  CU_ASSERT_PTR_NOT_NULL(after);
  if (after != NULL)
    CU_ASSERT_STRING_EQUAL(before, after);

  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "--json"), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"outcome\":\"selected\"");
  HAS(g_r.out, "\"calibrated_now\":false");
  HAS(g_r.out, "\"candidates\":[]");
  HAS(g_r.out, "\"outcome\":\"skipped\"");

  CU_ASSERT_EQUAL(OLC("select", CFG, "--workload", "mm", "--verbose"), 0);
  HAS(g_r.out, "selected: exact calibrated");
  CU_ASSERT_EQUAL(OLC("select", CFG, "--workload", "mm"), 0);
  HAS_NOT(g_r.out, "elsewhere");
  HAS_NOT(g_r.out, "time:");
  CU_ASSERT_EQUAL(OLC("select", CFG, "-v"), 0);
  HAS(g_r.out, "time:");

  /* --recalibrate measures again; --json shows the candidates. */
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "--recalibrate", "--workload", "mm", "--json"), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"outcome\":\"calibrated\"");
  HAS(g_r.out, "\"policy\":\"spin_us=4000\"");
  HAS(g_r.out, "\"best\":true");
  HAS(g_r.out, "\"calibrated\":1");
  free(before);
  free(after);
}

/* A workload that fails: calibrate exits 1 and says why; select exits 3
 * (nothing stored), or 1 when the plugin fails before the lookup. */
static void test_failures(void) {
  write_config_extra("good", 2, 0, "[plugin.mock_det]\nrun = fail\n");
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 1);
  HAS(g_r.out, "\nmm         failed   no candidate could be measured: ");
  HAS(g_r.out, "run failed on purpose");
  HAS(g_r.out, "1 skipped, 1 failed");
  CU_ASSERT_STRING_EQUAL(g_r.err, "olc: calibrate: 1 workload failed\n");
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "--json"), 1);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"outcome\":\"failed\"");
  CU_ASSERT_EQUAL(OLC("select", CFG, "--json"), 3);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"outcome\":\"not_selected\"");
  write_config_extra("good", 2, 0, "[plugin.mock_det]\nkey = unsupported\n");
  CU_ASSERT_EQUAL(OLC("select", CFG, "-v"), 1);
  HAS(g_r.out, "failed (");
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 1);
  /* Only the workload that could not run: calibrate succeeds. */
  write_config("good", 2, 0);
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "--workload", "elsewhere"), 0);
  HAS(g_r.out, "0 calibrated now, 0 selected from the store, 1 skipped, 0 failed");
}

/* In-process measuring gives the same outcome. */
static void test_in_process(void) {
  write_config("good", 2, 0);
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "--in-process", "--workload", "mm"), 0);
  HAS(g_r.out, "\nmm        calibrated  exact  spin_us=100");
}

/* A changed thread count: the exact record is rejected, the portable one
 * selected. */
static void test_thread_count_changed(void) {
  write_config("good", 2, 0);
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 0);
  write_config("good", 3, 0);
  CU_ASSERT_EQUAL(OLC("select", CFG, "-v"), 0);
  HAS(g_r.out, "selected: portable calibrated");
  HAS(g_r.out, "rejected: exact calibrated: different_thread_count");
  CU_ASSERT_EQUAL(OLC("explain", CFG, "--workload", "mm", "--json"), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"reason\":\"different_thread_count\"");
  HAS(g_r.out, "\"workload\":\"mm\"");
}

/* A newer implementation (good_v2): both records outdated; prune removes
 * them; calibrate then measures again. */
static void test_implementation_changed_and_prune(void) {
  char *text;
  write_config("good", 2, 0);
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 0);
  /* An override is never pruned. */
  CU_ASSERT_EQUAL(OLC("--store", g_store, "override", "set", "--level", "portable", "--backend",
                      "mock_det", "--operator", "Conv", "--implementation", "1", "--structure",
                      "m=1", "--policy", "spin_us=5"),
                  0);
  write_config("good_v2", 2, 0);
  CU_ASSERT_EQUAL(OLC("select", CFG, "-v"), 3);
  HAS(g_r.out, "not selected");
  HAS(g_r.out, "rejected: exact calibrated: outdated_implementation");
  HAS(g_r.out, "rejected: portable calibrated: outdated_implementation");
  CU_ASSERT_EQUAL(OLC("explain", CFG, "--workload", "mm"), 3);
  HAS(g_r.out, "selected: none");
  CU_ASSERT_EQUAL(cli_test_count(g_r.out, "outdated_implementation"), 2);

  CU_ASSERT_EQUAL(OLC("prune", CFG, "--dry-run"), 0);
  CU_ASSERT_EQUAL(cli_test_count(g_r.out, "prune: \"outdated implementation"), 2);
  HAS(g_r.out, "would remove 2 records");
  text = store_text();
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_EQUAL(cli_test_count(text, "spin_us=100"), 2); /* dry run: nothing removed */
  free(text);

  CU_ASSERT_EQUAL(OLC("prune", CFG, "--json"), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"removed\":2");
  HAS(g_r.out, "\"dry_run\":false");
  text = store_text();
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_EQUAL(cli_test_count(text, "spin_us=100"), 0);
  HAS(text, "spin_us=5"); /* the override stays */
  free(text);
  CU_ASSERT_EQUAL(OLC("prune", CFG), 0);
  HAS(g_r.out, "removed 0 records");

  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "-v"), 0);
  HAS(g_r.out, "calibrated now");
  HAS(g_r.out, "implementation \"2\"");
}

/* An override wins over the calibrated record, even right after measuring. */
static void test_override_wins(void) {
  write_config("good", 2, 0);
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 0);
  CU_ASSERT_EQUAL(OLC("--store", g_store, "override", "set", "--level", "exact", "--backend",
                      "mock_det", "--operator", "MatMul", "--implementation", "1", "--model-digest",
                      "workload:dtype=float32;k=2;m=8;n=4", "--processor", "mock-cpu", "--threads",
                      "2", "--policy", "spin_us=200"),
                  0);
  CU_ASSERT_EQUAL(OLC("select", CFG, "-v"), 0);
  HAS(g_r.out, "selected: exact override");
  HAS(g_r.out, "policy \"spin_us=200\"");
  HAS(g_r.out, "rejected: exact calibrated: shadowed");
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "--recalibrate", "--workload", "mm", "-v"), 0);
  HAS(g_r.out, "calibrated now");
  HAS(g_r.out, "selected: exact override");
}

/* The mock's exact and portable properties of workload mm as a runtime
 * gives them (the ini's). */
#define MM_PROPS                                                                                   \
  "--backend", "mock_det", "--operator", "MatMul", "--property", "dtype=float32", "--property",    \
      "m=8", "--property", "n=4", "--property", "k=2"

/* Overrides and explain by workload: by its ini name, or described as a
 * runtime binds it; the key is composed as select composes it, so select
 * takes the override.  A policy the plugin rejects is refused. */
static void test_override_by_workload(void) {
  char *text;
  write_config("good", 2, 0);
  CU_ASSERT_EQUAL(OLC("override", "set", CFG, "--workload", "mm", "--level", "exact", "--policy",
                      "spin_us=300"),
                  0);
  HAS(g_r.out, "installed an exact override");
  CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 0);
  CU_ASSERT_EQUAL(OLC("select", CFG, "-v"), 0);
  HAS(g_r.out, "selected: exact override");
  HAS(g_r.out, "policy \"spin_us=300\"");
  /* The composed key, as the plugin reports it. */
  HAS(g_r.out, "model_digest \"workload:dtype=float32;k=2;m=8;n=4\"");
  CU_ASSERT_EQUAL(OLC("explain", CFG, MM_PROPS), 0);
  HAS(g_r.out, "workload \"mock_det/MatMul\"");
  HAS(g_r.out, "selected: exact override");
  /* Portable, by description: selected when exact records are skipped. */
  CU_ASSERT_EQUAL(
      OLC("override", "set", CFG, MM_PROPS, "--level", "portable", "--policy", "spin_us=400"), 0);
  CU_ASSERT_EQUAL(OLC("select", CFG, "--force-portable", "-v"), 0);
  HAS(g_r.out, "selected: portable override");
  HAS(g_r.out, "policy \"spin_us=400\"");
  /* Removed by name: both levels. */
  CU_ASSERT_EQUAL(OLC("override", "remove", CFG, "--workload", "mm"), 0);
  CU_ASSERT_EQUAL(OLC("select", CFG), 3);
  /* Rejected by the plugin: refused, nothing written, by workload or raw key. */
  CU_ASSERT_EQUAL(OLC("override", "set", CFG, "--workload", "mm", "--level", "exact", "--policy",
                      "v1 kernel=bogus"),
                  1);
  HAS(g_r.err, "policy does not start with spin_us=");
  CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 1);
  CU_ASSERT_EQUAL(OLC("override", "set", CFG, "--level", "portable", "--backend", "mock_det",
                      "--operator", "MatMul", "--implementation", "1", "--structure", "m=8",
                      "--policy", "v1 kernel=bogus"),
                  1);
  HAS(g_r.err, "rejects the policy");
  text = store_text();
  CU_ASSERT(text == NULL || strstr(text, "bogus") == NULL);
  free(text);
  /* A workload whose plugin is not loaded has no key to compose. */
  CU_ASSERT_EQUAL(OLC("override", "set", CFG, "--workload", "elsewhere", "--level", "exact",
                      "--policy", "spin_us=1"),
                  1);
  HAS(g_r.err, "mock_create_unavailable");
  /* The raw key's options do not mix with a workload. */
  CU_ASSERT_EQUAL(OLC("override", "set", CFG, "--workload", "mm", "--level", "exact", "--processor",
                      "p", "--policy", "spin_us=1"),
                  2);
  HAS(g_r.err, "raw key");
}

/* An override the plugin rejects (installed with --no-validate) is not
 * selected, and select and calibrate say so on stderr, once. */
static void test_override_rejected_warns(void) {
  write_config("good", 2, 0);
  CU_ASSERT_EQUAL(OLC("--store", g_store, "override", "set", "--level", "exact", "--backend",
                      "mock_det", "--operator", "MatMul", "--implementation", "1", "--model-digest",
                      "workload:dtype=float32;k=2;m=8;n=4", "--processor", "mock-cpu", "--threads",
                      "2", "--policy", "v1 kernel=bogus", "--no-validate"),
                  0);
  CU_ASSERT_EQUAL(OLC("select", CFG), 3);
  HAS(g_r.err, "warning: override: workload 'mm': the exact user override is not used");
  HAS(g_r.err, "policy does not start with spin_us=");
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 0);
  HAS(g_r.err, "warning: override: workload 'mm'");
  HAS(g_r.out, "calibrated");
}

/* explain without --workload explains every configured workload; one
 * whose plugin is not loaded is listed as skipped. */
static void test_explain_every(void) {
  write_config("good", 2, 0);
  CU_ASSERT_EQUAL(OLC("explain", CFG), 3);
  HAS(g_r.out, "workload \"mm\": backend \"mock_det\" operator \"MatMul\": 0 records\n"
               "selected: none\n");
  HAS(g_r.out, "\nworkload \"elsewhere\": backend \"mock_create_unavailable\" operator "
               "\"MatMul\": skipped: ");
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 0);
  CU_ASSERT_EQUAL(OLC("explain", CFG), 0);
  HAS(g_r.out, "selected: exact calibrated");
  CU_ASSERT_EQUAL(OLC("explain", CFG, "--json"), 0);
  HAS(g_r.out, "\"workloads\":[{\"workload\":\"mm\"");
  HAS(g_r.out, "\"skipped\":");
}

/* force_portable (option or config) picks the portable record. */
static void test_force_portable(void) {
  write_config("good", 2, 0);
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 0);
  CU_ASSERT_EQUAL(OLC("select", CFG, "--force-portable", "-v"), 0);
  HAS(g_r.out, "selected: portable calibrated");
  HAS(g_r.out, "rejected: exact calibrated: force_portable");
  write_config("good", 2, 1);
  CU_ASSERT_EQUAL(OLC("select", CFG, "--json"), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"level\":\"portable\"");
  HAS(g_r.out, "\"reason\":\"force_portable\"");
  CU_ASSERT_EQUAL(OLC("explain", CFG, "--workload", "mm"), 0);
  HAS(g_r.out, "selected: portable calibrated");
}

/* The configuration comes from $OLC_CONFIG when --config is not given,
 * and --store replaces the [store] path. */
static void test_env_config_and_store(void) {
  char cfg[4200], *other = olc_test_path(g_dir, "other.txt");
  const char *env[] = {cfg, NULL};
  write_config("good", 2, 0);
  snprintf(cfg, sizeof cfg, "OLC_CONFIG=%s", g_ini);
  CU_ASSERT_EQUAL(run_env(env, "--store", other, "calibrate", "--workload", "mm", NULL), 0);
  HAS(g_r.out, "calibrated  exact");
  CU_ASSERT_EQUAL(run_env(env, "calibrate", "--store", other, "--json", NULL), 0);
  HAS(g_r.out, "\"outcome\":\"selected\"");
  HAS(g_r.out, "other.txt");
  CU_ASSERT_EQUAL(OLC("select", CFG), 3); /* store.txt is still empty */
  free(other);
}

static void test_plugins(void) {
  copy_plugin(OLC_MOCK_PLUGIN_ROOT "/no_entry/mock_no_entry.so", "no_entry");
  copy_plugin(OLC_MOCK_PLUGIN_ROOT "/wrong_major/mock_wrong_major.so", "wrong_major");
  copy_plugin(OLC_MOCK_PLUGIN_ROOT "/create_unavailable/mock_create_unavailable.so", "unavailable");
  write_config("good, no_entry, wrong_major, unavailable, missing", 2, 0);
  CU_ASSERT_EQUAL(OLC("plugins", CFG), 0);
  HAS(g_r.out, "stage: loaded (OLC_OK)");
  HAS(g_r.out, "stage: symbol");
  HAS(g_r.out, "stage: abi");
  HAS(g_r.out, "unavailable here");
  HAS(g_r.out, "4 plugin files, 1 loaded");
  golden("plugins.txt", g_r.out);
  CU_ASSERT_EQUAL(OLC("plugins", CFG, "--json"), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  HAS(g_r.out, "\"stage\":\"symbol\"");
  HAS(g_r.out, "\"unavailable\":true");
  HAS(g_r.out, "\"name\":\"mock_det\"");
  /* calibrate warns about the broken files, not the unavailable one. */
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 0);
  HAS(g_r.err, "mock_no_entry.so skipped (symbol)");
  HAS(g_r.err, "mock_wrong_major.so skipped (abi)");
  HAS_NOT(g_r.err, "mock_create_unavailable");
}

/* Every line of text starts with prefix. */
static int all_lines_start(const char *text, const char *prefix) {
  const char *line = text;
  while (*line != 0) {
    const char *end = strchr(line, '\n');
    if (strncmp(line, prefix, strlen(prefix)) != 0)
      return 0;
    if (end == NULL)
      break;
    line = end + 1;
  }
  return 1;
}

/* The library's warnings reach stderr as "olc: warning: WHERE: MESSAGE",
 * each once, as they arise (a directory that does not exist, a file that
 * is not a plugin, a plugin's own warning logged in the measuring worker);
 * --json output on stdout stays clean. */
static void test_warnings(void) {
  char want[8192], *real;
  copy_plugin(OLC_MOCK_PLUGIN_ROOT "/no_entry/mock_no_entry.so", "no_entry");
  write_config_extra("good, no_entry, missing", 2, 0, "[plugin.mock_det]\nrun = fail_multiline\n");
  real = realpath(g_dir, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(real);
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "--workload", "mm", "--json"), 1);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  HAS_NOT(g_r.out, "warning");
  snprintf(want, sizeof want,
           "olc: warning: plugin_dirs: plugin directory %s/missing does not exist: skipped\n",
           g_dir);
  CU_ASSERT_EQUAL(cli_test_count(g_r.err, want), 1);
  snprintf(want, sizeof want,
           "olc: warning: load: plugin %s/no_entry/mock_no_entry.so skipped (symbol): ", real);
  CU_ASSERT_EQUAL(cli_test_count(g_r.err, want), 1);
  /* run = fail_multiline logs "two\nlines" at warning level in the worker:
   * replayed here, one line. */
  HAS(g_r.err, "olc: warning: plugin mock_det: two lines\n");
  /* Nothing but warnings, and the command's own failure line. */
  snprintf(want, sizeof want, "%s", g_r.err);
  HAS(want, "olc: calibrate: 1 workload failed\n");
  *strstr(want, "olc: calibrate: 1 workload failed\n") = 0;
  CU_ASSERT(all_lines_start(want, "olc: warning: "));
  /* Text output: the same warnings, still once. */
  write_config("good, missing", 2, 0);
  CU_ASSERT_EQUAL(OLC("select", CFG, "--workload", "mm"), 3);
  snprintf(want, sizeof want,
           "olc: warning: plugin_dirs: plugin directory %s/missing does not exist: skipped\n",
           g_dir);
  CU_ASSERT_EQUAL(cli_test_count(g_r.err, want), 1);
  CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 1);
  free(real);
}

/* Runs olc calibrate with stderr on a pseudo-terminal; returns what the
 * terminal received (NUL-terminated) and the exit status in *code. */
static char *calibrate_on_tty(int *code) {
  const char *const argv[] = {OLC_CLI_PATH, "calibrate", "--config", g_ini, NULL};
  return cli_test_run_pty(argv, NULL, 2, 0, code);
}

/* The best median a progress line shows after prefix (-1 when the line is
 * missing or shows no number). */
static double best_shown(const char *tty, const char *prefix) {
  const char *at = strstr(tty, prefix);
  char *end;
  double v;
  if (at == NULL)
    return -1;
  v = strtod(at + strlen(prefix), &end);
  return end != at + strlen(prefix) ? v : -1;
}

/* The progress line: only on a terminal, rewritten with \r, cleared.  The
 * best so far is at least the spin of a candidate measured by then (how
 * much more depends on the machine's load). */
static void test_progress_on_terminal(void) {
  const char *tty;
  char *end;
  int code;
  write_config("good", 2, 0);
  tty = calibrate_on_tty(&code);
  if (tty == NULL) {
    fprintf(stderr, "no pseudo-terminal here: progress test skipped\n");
    return;
  }
  CU_ASSERT_EQUAL(code, 0);
  HAS(tty, "\rworkload 1/2 mm: candidate 1/4, best -");
  CU_ASSERT(best_shown(tty, "\rworkload 1/2 mm: candidate 2/4, best ") >= 1000.0);
  CU_ASSERT(best_shown(tty, "\rworkload 1/2 mm: candidate 4/4, best ") >= 100.0);
  HAS_NOT(tty, "elsewhere"); /* skipped: nothing measured */
  /* Cleared at the end: the last bytes are blanks between \r's. */
  end = strrchr(tty, '\r');
  CU_ASSERT_PTR_NOT_NULL(end);
  if (end != NULL)
    CU_ASSERT_EQUAL(end[1], 0);
  /* The same run with stderr in a file shows no progress (test above). */
}

static void test_golden_select_explain(void) {
  write_config("good", 2, 0);
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 0);
  CU_ASSERT_EQUAL(OLC("select", CFG, "-v"), 0);
  golden("select.txt", g_r.out);
  write_config("good", 3, 0);
  CU_ASSERT_EQUAL(OLC("select", CFG, "-v"), 0);
  golden("select_threads.txt", g_r.out);
  CU_ASSERT_EQUAL(OLC("explain", CFG, "--workload", "mm"), 0);
  golden("explain.txt", g_r.out);
  write_config("good_v2", 2, 0);
  CU_ASSERT_EQUAL(OLC("explain", CFG, "--workload", "mm"), 3);
  golden("explain_outdated.txt", g_r.out);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite_with_setup_and_teardown("cli_host", NULL, NULL, setup, teardown);
  CU_add_test(s, "help", test_help);
  CU_add_test(s, "usage_errors", test_usage_errors);
  CU_add_test(s, "first_then_second", test_first_then_second);
  CU_add_test(s, "failures", test_failures);
  CU_add_test(s, "in_process", test_in_process);
  CU_add_test(s, "thread_count_changed", test_thread_count_changed);
  CU_add_test(s, "implementation_changed_and_prune", test_implementation_changed_and_prune);
  CU_add_test(s, "override_wins", test_override_wins);
  CU_add_test(s, "override_by_workload", test_override_by_workload);
  CU_add_test(s, "override_rejected_warns", test_override_rejected_warns);
  CU_add_test(s, "explain_every", test_explain_every);
  CU_add_test(s, "force_portable", test_force_portable);
  CU_add_test(s, "env_config_and_store", test_env_config_and_store);
  CU_add_test(s, "plugins", test_plugins);
  CU_add_test(s, "warnings", test_warnings);
  CU_add_test(s, "progress_on_terminal", test_progress_on_terminal);
  CU_add_test(s, "golden_select_explain", test_golden_select_explain);
  return olc_test_run(argc, argv);
}
