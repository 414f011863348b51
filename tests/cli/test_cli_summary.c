/*
 * tests/cli/test_cli_summary.c - what olc calibrate and olc select
 * print (one line per workload fitted to the width, -v, -q, the speedup
 * over the plugin's first candidate, the JSON schema of every host
 * command) and how they treat a misconfigured plugin setup, run as the
 * built binary against the mock plugins (tests/plugins/README.md) in a
 * fresh temporary directory.
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
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_test_util.h"
#include "test_support.h"

static char *g_dir;
static char *g_ini;
static cli_run g_r;

/* A workload name longer than any line, to be shortened. */
#define LONG_NAME                                                                                  \
  "a_workload_whose_name_goes_on_and_on_well_past_the_width_of_any_terminal_line_at_all_end"

/* Copies file src into g_dir/sub/ (mode). */
#define copy_file(src, sub, mode) cli_test_copy_file(g_dir, src, sub, mode)

static void setup(void) {
  CU_ASSERT_EQUAL_FATAL(cli_test_dir_open(&g_dir, "cli_summary", &g_ini, "olc.ini", NULL), 0);
  copy_file(OLC_MOCK_PLUGIN_ROOT "/good/mock_det.so", "good", 0755);
  copy_file(OLC_MOCK_PLUGIN_ROOT "/no_entry/mock_no_entry.so", "no_entry", 0755);
}

static void teardown(void) { cli_test_dir_close(&g_r, &g_dir, &g_ini, NULL); }

/* g_ini: plugin_dirs (relative to g_dir), the store in g_dir, small
 * budgets, workload mm and the one with the long name (both mock_det),
 * then extra. */
static void write_config(const char *dirs, const char *extra) {
  char text[4096];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s\nthreads = 2\n[store]\npath = store.txt\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
                   "max_seconds_per_workload = 30\n"
                   "[workload.mm]\nbackend = mock_det\noperator = MatMul\nm = 8\nn = 4\nk = 2\n"
                   "[workload." LONG_NAME "]\nbackend = mock_det\noperator = MatMul\nm = 1\n%s",
                   dirs, extra);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(g_ini, text, (size_t)n), 0);
}

#define run_env(env, ...) cli_test_olc(&g_r, g_dir, env, __VA_ARGS__)

#define OLC(...) run_env(NULL, __VA_ARGS__, NULL)
#define CFG "--config", g_ini

/* The longest line of text, in characters. */
static size_t widest_line(const char *text) {
  size_t widest = 0, w = 0;
  for (; *text != 0; text++) {
    if (*text == '\n') {
      widest = w > widest ? w : widest;
      w = 0;
    } else if (((unsigned char)*text & 0xC0u) != 0x80u) {
      w++;
    }
  }
  return w > widest ? w : widest;
}

/* The table row of workload name (its first cell as printed). */
static const char *row_of(const char *out, const char *cell) {
  char want[256];
  snprintf(want, sizeof want, "\n%s ", cell);
  return strstr(out, want);
}

/* The speedup the row shows ("4.00x" -> 4.00), or -1 for "-". */
static double row_speedup(const char *row) {
  const char *end = strchr(row + 1, '\n'), *x;
  for (x = row + 1; x < end; x++)
    if (*x == 'x' && x[-1] >= '0' && x[-1] <= '9' && x[1] == ' ') {
      const char *start = x;
      while (start > row && start[-1] != ' ')
        start--;
      return strtod(start, NULL);
    }
  return -1;
}

/* "speedup":N of the JSON object of workload name, or -1 for null. */
static double json_speedup(const char *json, const char *name) {
  char want[256];
  const char *w, *s;
  snprintf(want, sizeof want, "{\"workload\":\"%s\"", name);
  w = strstr(json, want);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  s = strstr(w, "\"speedup\":");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  return strncmp(s + 10, "null", 4) == 0 ? -1 : strtod(s + 10, NULL);
}

/* ---- the table ------------------------------------------------------------ */

/* A fresh calibration shows the speedup over the first candidate
 * (spin_us=400: at least 400 us, the record says so), a later select from
 * the store the same one, and a record without the first candidate's
 * median a "-". */
static void test_speedup(void) {
  const char *row;
  double fresh, later;
  char store[4200];
  write_config("good", "");
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "--workload", "mm"), 0);
  row = row_of(g_r.out, "mm");
  CU_ASSERT_PTR_NOT_NULL_FATAL(row);
  HAS(row, "calibrated  exact  spin_us=100  ");
  fresh = row_speedup(row);
  CU_ASSERT(fresh > 0);
  CU_ASSERT_EQUAL(OLC("select", CFG, "--workload", "mm", "--json"), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  later = json_speedup(g_r.out, "mm");
  /* The table rounds to two decimals. */
  CU_ASSERT(later > 0 && fresh > later - 0.006 && fresh < later + 0.006);
  HAS(g_r.out, "{\"name\":\"first_candidate_median_latency\",\"value\":4");
  CU_ASSERT_EQUAL(OLC("select", CFG, "--workload", "mm"), 0);
  row = row_of(g_r.out, "mm");
  CU_ASSERT_PTR_NOT_NULL_FATAL(row);
  CU_ASSERT(row_speedup(row) > later - 0.006 && row_speedup(row) < later + 0.006);
  /* An override with a median only: no speedup to show. */
  snprintf(store, sizeof store, "%s/store.txt", g_dir);
  CU_ASSERT_EQUAL(OLC("--store", store, "override", "set", "--level", "exact", "--backend",
                      "mock_det", "--operator", "MatMul", "--implementation", "1", "--model-digest",
                      "workload:k=2;m=8;n=4", "--processor", "mock-cpu", "--threads", "2",
                      "--policy", "spin_us=200", "--measurement", "median_latency=200:us"),
                  0);
  CU_ASSERT_EQUAL(OLC("select", CFG, "--workload", "mm"), 0);
  HAS(g_r.out, "\nmm        selected  exact override  spin_us=200  200.0 us        -  ");
  CU_ASSERT_EQUAL(OLC("select", CFG, "--workload", "mm", "--json"), 0);
  CU_ASSERT(json_speedup(g_r.out, "mm") < 0);
}

/* A speedup whose intervals overlap the first candidate's (speedup_low
 * at or below 1) is not headlined: "1.08x?" and a note; a record saved on
 * a busy machine is shown as provisional. */
static void test_speedup_unsure(void) {
  char store[4200];
  write_config("good", "");
  snprintf(store, sizeof store, "%s/store.txt", g_dir);
  CU_ASSERT_EQUAL(OLC("--store", store, "override", "set", "--level", "exact", "--backend",
                      "mock_det", "--operator", "MatMul", "--implementation", "1", "--model-digest",
                      "workload:k=2;m=8;n=4", "--processor", "mock-cpu", "--threads", "2",
                      "--policy", "spin_us=200", "--measurement", "median_latency=100:us",
                      "--measurement", "first_candidate_median_latency=108:us", "--measurement",
                      "speedup_low=0.97:x", "--measurement", "contended=2.5:runnable"),
                  0);
  CU_ASSERT_EQUAL(OLC("select", CFG, "--workload", "mm"), 0);
  HAS(g_r.out, "exact override provisional  spin_us=200  100.0 us   1.08x?  ");
  HAS(g_r.out, "note: mm: not sure of the pick: its lead over the plugin's first guess (1.08x) "
               "is within the noise (the intervals overlap; at least 0.97x)\n");
  CU_ASSERT_EQUAL(OLC("select", CFG, "--workload", "mm", "--json"), 0);
  HAS(g_r.out, "\"speedup_sure\":false,\"provisional\":true");
}

/* Lines fit $COLUMNS, the long name shortened with a middle ellipsis;
 * in a file (no $COLUMNS, or an invalid one) nothing is cut; --json has
 * the name whole. */
static void test_width_columns(void) {
  const char *cols72[] = {"COLUMNS=72", NULL}, *cols_bad[] = {"COLUMNS=wide", NULL};
  write_config("good", "");
  /* In a file nothing is cut: the name (and any policy) whole. */
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 0);
  CU_ASSERT(widest_line(g_r.out) > 100);
  HAS(g_r.out, "\n" LONG_NAME "  calibrated");
  HAS_NOT(g_r.out, "...");
  CU_ASSERT_EQUAL(run_env(cols72, "select", CFG, NULL), 0);
  HAS(g_r.out, "\na_work");
  HAS(g_r.out, "...");
  CU_ASSERT(widest_line(g_r.out) <= 72);
  HAS(g_r.out, "_end  selected");
  CU_ASSERT_EQUAL(run_env(cols_bad, "select", CFG, NULL), 0);
  CU_ASSERT(widest_line(g_r.out) > 100);
  CU_ASSERT_EQUAL(OLC("select", CFG, "--json"), 0);
  HAS(g_r.out, "\"workload\":\"" LONG_NAME "\"");
}

/* Runs olc with stdout on a pseudo-terminal cols columns wide (no
 * COLUMNS); returns what it printed, NULL when there is no pty here. */
static char *select_on_tty(unsigned short cols, int *code) {
  static char lc_all[] = "LC_ALL=C";
  const char *const argv[] = {OLC_CLI_PATH, "select", "--config", g_ini, NULL};
  char *const envp[] = {lc_all, NULL};
  return cli_test_run_pty(argv, envp, 1, cols, code);
}

/* On a terminal the table fits the terminal's width (TIOCGWINSZ). */
static void test_width_terminal(void) {
  char *tty, *p;
  int code;
  write_config("good", "");
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 0);
  tty = select_on_tty(70, &code);
  if (tty == NULL) {
    fprintf(stderr, "no pseudo-terminal here: terminal width test skipped\n");
    return;
  }
  CU_ASSERT_EQUAL(code, 0);
  /* The terminal turns \n into \r\n. */
  for (p = tty; *p != 0; p++)
    if (*p == '\r')
      *p = ' ';
  HAS(tty, "_end  selected");
  CU_ASSERT(widest_line(tty) <= 70 + 1);
  CU_ASSERT(widest_line(tty) > 40);
}

/* -v adds the detail after the table; -q prints only the problems. */
static void test_verbose_quiet(void) {
  const char *table;
  write_config("good", "");
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "-v"), 0);
  table = strstr(g_r.out, "\nmm  ");
  CU_ASSERT_PTR_NOT_NULL_FATAL(table);
  HAS(table, "\n\nworkload \"mm\": backend \"mock_det\" operator \"MatMul\"\n  calibrated now\n");
  HAS(g_r.out, "candidates measured: 4");
  HAS(g_r.out, "\"spin_us=400\": median");
  HAS(g_r.out, "(best)");
  HAS(g_r.out, "summary: 2 calibrated now");
  CU_ASSERT_EQUAL(OLC("select", CFG, "--verbose"), 0);
  HAS(g_r.out, "rejected: ");
  HAS(g_r.out, "time: ");
  CU_ASSERT_EQUAL(OLC("select", CFG), 0);
  HAS_NOT(g_r.out, "rejected: ");
  CU_ASSERT_EQUAL(cli_test_lines(g_r.out), 4); /* header, 2 rows, summary */
  /* Quiet and all well: nothing at all. */
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "-q"), 0);
  CU_ASSERT_STRING_EQUAL(g_r.out, "");
  CU_ASSERT_STRING_EQUAL(g_r.err, "");
  CU_ASSERT_EQUAL(OLC("select", CFG, "--quiet"), 0);
  CU_ASSERT_STRING_EQUAL(g_r.out, "");
  /* Quiet with a problem: the header and that row only. */
  write_config("good", "[workload.nothing_stored]\nbackend = mock_det\noperator = Conv\nm = 3\n");
  CU_ASSERT_EQUAL(OLC("select", CFG, "-q"), 3);
  CU_ASSERT_EQUAL(cli_test_lines(g_r.out), 2);
  HAS(g_r.out,
      "\nnothing_stored  not selected  no stored selection for workload 'nothing_stored'\n");
  HAS_NOT(g_r.out, "\nmm ");
  CU_ASSERT_EQUAL(OLC("select", CFG, "-q", "-v"), 2);
  HAS(g_r.err, "--verbose and --quiet exclude each other");
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "-x"), 2);
  HAS(g_r.err, "unknown option '-x'");
}

/* Every --json document of the host commands opens with its schema. */
static void test_json_schema(void) {
  static const char schema[] = "{\"schema\":1,";
  write_config("good", "");
  CU_ASSERT_EQUAL(OLC("calibrate", CFG, "--json"), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  CU_ASSERT_EQUAL(strncmp(g_r.out, schema, strlen(schema)), 0);
  CU_ASSERT_EQUAL(OLC("select", CFG, "--json"), 0);
  CU_ASSERT_EQUAL(strncmp(g_r.out, schema, strlen(schema)), 0);
  CU_ASSERT_EQUAL(OLC("explain", CFG, "--workload", "mm", "--json"), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  CU_ASSERT_EQUAL(strncmp(g_r.out, schema, strlen(schema)), 0);
  CU_ASSERT_EQUAL(OLC("plugins", CFG, "--json"), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  CU_ASSERT_EQUAL(strncmp(g_r.out, schema, strlen(schema)), 0);
  CU_ASSERT_EQUAL(OLC("prune", CFG, "--dry-run", "--json"), 0);
  CU_ASSERT(cli_test_json_valid(g_r.out));
  CU_ASSERT_EQUAL(strncmp(g_r.out, schema, strlen(schema)), 0);
}

/* ---- misconfiguration ----------------------------------------------------- */

/* A backend no file provides and a file that failed to load fail their
 * workloads, exit 1, each row naming workload, backend and why; the
 * others still run. */
static void test_missing_backend_fails(void) {
  write_config("good, no_entry",
               "[workload.nowhere]\nbackend = not_installed\noperator = MatMul\nm = 1\n"
               "[workload.broken]\nbackend = mock_no_entry\noperator = MatMul\nm = 1\n");
  CU_ASSERT_EQUAL(
      OLC("calibrate", CFG, "--workload", "mm", "--workload", "nowhere", "--workload", "broken"),
      1);
  HAS(g_r.out, "\nnowhere   failed      plugin 'not_installed' not loaded: no plugin file "
               "provides it (searched: ");
  HAS(g_r.out, "\nbroken    failed      plugin 'mock_no_entry' not loaded: ");
  HAS(g_r.out, "/no_entry/mock_no_entry.so failed (symbol): ");
  HAS(g_r.out, "\nmm        calibrated  ");
  HAS(g_r.err, "olc: calibrate: 2 workloads failed\n");
  HAS(g_r.err, "olc: warning: load: plugin ");
  /* select and -q say the same. */
  CU_ASSERT_EQUAL(OLC("select", CFG, "-q"), 1);
  HAS(g_r.out, "plugin 'not_installed' not loaded");
  HAS(g_r.out, "plugin 'mock_no_entry' not loaded");
  HAS_NOT(g_r.out, "\nmm ");
  CU_ASSERT_EQUAL(OLC("select", CFG, "--workload", "mm"), 0);
}

/* No plugin loaded at all: one error naming the directories searched,
 * after the warning for the one that does not exist; exit 1. */
static void test_no_plugin_loaded(void) {
  char want[8192], *empty = olc_test_path(g_dir, "empty");
  CU_ASSERT_PTR_NOT_NULL_FATAL(empty);
  CU_ASSERT_EQUAL(mkdir(empty, 0755), 0);
  free(empty);
  write_config("missing, empty", "");
  CU_ASSERT_EQUAL(OLC("calibrate", CFG), 1);
  snprintf(want, sizeof want,
           "olc: warning: plugin_dirs: plugin directory %s/missing does not exist: skipped\n",
           g_dir);
  HAS(g_r.err, want);
  snprintf(want, sizeof want,
           "olc: plugin_dirs: no plugin loaded for 2 workloads of %s (0 plugin files found; "
           "searched: %s/missing, %s/empty)\n",
           g_ini, g_dir, g_dir);
  HAS(g_r.err, want);
  CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 2);
  CU_ASSERT_STRING_EQUAL(g_r.out, "");
  CU_ASSERT_EQUAL(OLC("select", CFG, "--json"), 1);
  HAS(g_r.err, "no plugin loaded for 2 workloads");
  /* A directory that exists gives no warning. */
  write_config("good, empty", "");
  CU_ASSERT_EQUAL(OLC("select", CFG), 3);
  CU_ASSERT_STRING_EQUAL(g_r.err, "");
}

/* The embedded default stays quiet about its install directory, and a
 * copy of olc without plugins next to it skips its workloads. */
static void test_embedded_default(void) {
  char copy[4096];
  const char *argv[] = {"select", NULL};
  CU_ASSERT_EQUAL(OLC("select"), 3); /* the build tree's plugins; empty store */
  HAS(g_r.out, "gemm_256");
  HAS_NOT(g_r.err, "plugin_dirs");
  HAS_NOT(g_r.err, "no plugin loaded");
  copy_file(OLC_CLI_PATH, "bin", 0755);
  snprintf(copy, sizeof copy, "%s/bin/olc", g_dir);
  cli_run_free(&g_r);
  CU_ASSERT_EQUAL_FATAL(cli_test_run_program(&g_r, copy, g_dir, NULL, argv), 0);
  CU_ASSERT_EQUAL(g_r.code, 0);
  CU_ASSERT_STRING_EQUAL(g_r.err, "");
  HAS(g_r.out, "\ngemm_256      skipped  plugin 'cpu_gemm' not loaded: no plugin file provides it");
  HAS(g_r.out, "summary: 0 selected, 0 not selected, 4 skipped, 0 failed");
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite_with_setup_and_teardown("cli_summary", NULL, NULL, setup, teardown);
  CU_add_test(s, "speedup", test_speedup);
  CU_add_test(s, "speedup_unsure", test_speedup_unsure);
  CU_add_test(s, "width_columns", test_width_columns);
  CU_add_test(s, "width_terminal", test_width_terminal);
  CU_add_test(s, "verbose_quiet", test_verbose_quiet);
  CU_add_test(s, "json_schema", test_json_schema);
  CU_add_test(s, "missing_backend_fails", test_missing_backend_fails);
  CU_add_test(s, "no_plugin_loaded", test_no_plugin_loaded);
  CU_add_test(s, "embedded_default", test_embedded_default);
  return olc_test_run(argc, argv);
}
