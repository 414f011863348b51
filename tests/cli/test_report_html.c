/*
 * tests/cli/test_report_html.c - olc calibrate/select --report FILE.html
 * end to end: the built binary against the mock plugins (mock_det, and
 * mock_behave for failing candidates) in a fresh directory.  Checks the
 * document's structure (a section per workload, a plot with the runs, the
 * winner, the first guess, the speedup, why the others lost), that text
 * from the configuration and the plugins is escaped, that the file is
 * replaced atomically with nothing left beside it, and that a bad path
 * fails at once, before anything is measured.  Rendering is
 * test_report_chromium's.
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_test_util.h"
#include "test_support.h"

static char *g_dir, *g_ini, *g_html;
static cli_run g_r;

static void setup(void) {
  CU_ASSERT_EQUAL_FATAL(
      cli_test_dir_open(&g_dir, "report_html", &g_ini, "olc.ini", &g_html, "report.html", NULL), 0);
}

static void teardown(void) { cli_test_dir_close(&g_r, &g_dir, &g_ini, &g_html, NULL); }

/* mm: mock_det with a known winner (#3) that is not its first guess (#1);
 * elsewhere: a plugin that is unavailable on this machine (skipped); dirs:
 * the plugin directories (create_unavailable is added);
 * det_extra: more entries of [plugin.mock_det]; extra: more ini text. */
static void write_config_dirs(const char *dirs, const char *det_extra, const char *extra) {
  char text[4096];
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s, %s/create_unavailable\nthreads = 2\n"
                   "[store]\npath = store.txt\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.002\n"
                   "max_seconds_per_workload = 30\nabandon_factor = 1.5\n"
                   "[plugin.mock_det]\ncandidates = 300,130,100,110,600\n%s"
                   "[workload.mm]\nbackend = mock_det\noperator = MatMul\nm = 8\nn = 4\nk = 2\n"
                   "[workload.elsewhere]\nbackend = mock_create_unavailable\noperator = MatMul\n"
                   "m = 1\n%s",
                   dirs, OLC_MOCK_PLUGIN_ROOT, det_extra, extra);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(g_ini, text, (size_t)n), 0);
}

static void write_config(const char *extra) {
  write_config_dirs(OLC_MOCK_PLUGIN_ROOT "/good", "", extra);
}

/* 1 when s[0..len) is well-formed UTF-8 (no overlong forms, surrogates or
 * code points past U+10FFFF). */
static int utf8_valid(const unsigned char *s, size_t len) {
  size_t i = 0, k, n;
  while (i < len) {
    unsigned c = s[i], cp;
    n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 0 || i + n > len)
      return 0;
    cp = n == 1 ? c : c & (0x7fu >> n);
    for (k = 1; k < n; k++) {
      if ((s[i + k] & 0xc0) != 0x80)
        return 0;
      cp = cp << 6 | (s[i + k] & 0x3fu);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return 0;
    i += n;
  }
  return 1;
}

#define olc(...) cli_test_olc(&g_r, g_dir, NULL, __VA_ARGS__)

/* Files in g_dir whose name starts with prefix. */
static size_t files_named(const char *prefix) {
  DIR *d = opendir(g_dir);
  struct dirent *e;
  size_t n = 0;
  CU_ASSERT_PTR_NOT_NULL_FATAL(d);
  while ((e = readdir(d)) != NULL)
    n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
  closedir(d);
  return n;
}

static char *read_html(void) {
  char *html = (char *)olc_test_read_file(g_html, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(html);
  return html;
}

/* The row of the candidate table for candidate #k. */
static const char *row(const char *html, int k) {
  char needle[64];
  snprintf(needle, sizeof needle, "<td class=\"num\">#%d</td>", k);
  return strstr(html, needle);
}

/* The number of the candidate the table marks as the winner, or 0. */
static int winner_of(const char *html) {
  static const char mark[] = "<tr class=\"winner\"><td class=\"num\">#";
  const char *p = strstr(html, mark);
  return p != NULL ? atoi(p + sizeof mark - 1) : 0;
}

static void test_calibrate_report(void) {
  char *html, want[512];
  int w, k;
  struct stat sb;
  mode_t mask = umask(0);
  umask(mask);
  write_config("");
  CU_ASSERT_EQUAL(olc("calibrate", "--config", g_ini, "--report", g_html, NULL), 0);
  html = read_html();
  CU_ASSERT_EQUAL(strncmp(html, "<!DOCTYPE html>", 15), 0);
  HAS(html, "</html>\n");
  /* Self-contained: no script, nothing fetched. */
  HAS_NOT(html, "<script");
  HAS_NOT(html, "src=");
  HAS_NOT(html, "href=");
  HAS_NOT(html, "@import");
  HAS(html, "default-src 'none'");
  CU_ASSERT_EQUAL(cli_test_count(html, "<section class=\"workload\""), 2u);
  CU_ASSERT_EQUAL(cli_test_count(html, "<svg "), 1u); /* elsewhere measured nothing */
  CU_ASSERT(cli_test_count(html, "<circle ") >= 5u);
  /* A challenger (130, 100 or 110 us) wins over the first guess #1 (300
   * us), whichever the noise of a busy machine lets win. */
  w = winner_of(html);
  CU_ASSERT_FATAL(w >= 2 && w <= 4);
  snprintf(want, sizeof want, "Winner <b>#%d</b> is <b>", w);
  HAS(html, want);
  HAS(html, "x</b> faster than the plugin's first guess #1");
  HAS(html, "#1 first guess</text>");
  snprintf(want, sizeof want, "#%d \xe2\x98\x85 winner</text>", w);
  HAS(html, want);
  /* Every other candidate says why it lost. */
  for (k = 1; k <= 5; k++) {
    const char *r = row(html, k), *end;
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    end = strstr(r, "</tr>");
    CU_ASSERT_PTR_NOT_NULL_FATAL(end);
    snprintf(want, sizeof want, "%.*s", (int)(end - r), r);
    if (k == w) {
      HAS(want, "<b>winner</b>");
    } else {
      CU_ASSERT(strstr(want, "abandoned") != NULL || strstr(want, "screened") != NULL ||
                strstr(want, "slower than the winner") != NULL ||
                strstr(want, "within the noise") != NULL);
    }
  }
  HAS(html, "the plugin's first guess; ");
  HAS(html, "outcome-skipped");
  HAS(html, "<code><bdi>mock_create_unavailable</bdi></code>");
  HAS(html, "<h3>Selected record</h3>");
  free(html);
  /* Readable as the umask allows, and nothing left beside it. */
  CU_ASSERT_EQUAL(stat(g_html, &sb), 0);
  CU_ASSERT_EQUAL(sb.st_mode & 0777, 0666 & ~mask);
  CU_ASSERT_EQUAL(files_named("report.html"), 1u);
}

/* A second run replaces the report; select writes one too (nothing
 * measured: the selected record and the rejections). */
static void test_replaced_and_select(void) {
  char *html;
  /* An earlier report (its marker within the first 256 bytes): replaced. */
  static const char old[] = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                            "<meta name=\"generator\" content=\"olc calibration report\">\n"
                            "<title>old</title>\n";
  write_config("");
  CU_ASSERT_EQUAL(olc_test_write_file(g_html, old, sizeof old - 1), 0);
  CU_ASSERT_EQUAL(olc("calibrate", "--config", g_ini, "--report", g_html, NULL), 0);
  CU_ASSERT_EQUAL(olc("select", "--config", g_ini, "--report", g_html, NULL), 0);
  html = read_html();
  HAS(html, "olc selection report");
  HAS_NOT(html, "<title>old</title>");
  HAS(html, "outcome-selected");
  HAS(html, "<h3>Selected record</h3>");
  /* The record calibrate saved: a challenger, whichever the noise of a
   * busy machine let win (never the first guess or the slowest). */
  CU_ASSERT(strstr(html, "spin_us=130") != NULL || strstr(html, "spin_us=100") != NULL ||
            strstr(html, "spin_us=110") != NULL);
  HAS_NOT(html, "spin_us=300");
  HAS_NOT(html, "spin_us=600");
  CU_ASSERT_EQUAL(cli_test_count(html, "<svg "), 0u);
  free(html);
  CU_ASSERT_EQUAL(files_named("report.html"), 1u);
}

/* select shows the speedup a record kept from its calibration: here an
 * override (it wins over the calibrated record) that carries both
 * medians. */
static void test_select_stored_speedup(void) {
  char *html, *store = olc_test_path(g_dir, "store.txt");
  write_config("");
  CU_ASSERT_EQUAL(olc("calibrate", "--config", g_ini, NULL), 0);
  CU_ASSERT_EQUAL(olc("--store", store, "override", "set", "--level", "portable", "--backend",
                      "mock_det", "--operator", "MatMul", "--implementation", "1", "--structure",
                      "m=8", "--structure", "n=4", "--structure", "k=2", "--policy", "spin_us=110",
                      "--measurement", "median_latency=100:us", "--measurement",
                      "first_candidate_median_latency=300:us", NULL),
                  0);
  free(store);
  CU_ASSERT_EQUAL(olc("select", "--config", g_ini, "--report", g_html, NULL), 0);
  html = read_html();
  HAS(html, "the selected policy was <b>3.00x</b> faster than the plugin's first guess");
  HAS(html, "(median 100 <bdi>us</bdi> against 300 <bdi>us</bdi>)"); /* with their units */
  HAS(html, "portable override");
  HAS(html, "spin_us=110");
  free(html);
}

/* Text from the configuration and the plugins cannot add markup. */
static void test_hostile_text(void) {
  char *html;
  size_t len = 0;
  unsigned char *bytes;
  /* mock_behave's failing runs fail workload bad (exit 1); the report is
   * written all the same. */
  write_config_dirs(OLC_MOCK_PLUGIN_ROOT "/good, " OLC_MOCK_PLUGIN_ROOT "/behave",
                    "processor = <script>alert(1)</script>\n",
                    "[workload.<b>bold</b>]\nbackend = mock_det\n"
                    "operator = <img src=x onerror=alert(1)>\"'&\n"
                    "[workload.bad]\nbackend = mock_behave\noperator = MatMul\nm = 2\n"
                    "[plugin.mock_behave]\nrun = fail_markup\n");
  CU_ASSERT_EQUAL(olc("calibrate", "--config", g_ini, "--report", g_html, NULL), 1);
  bytes = olc_test_read_file(g_html, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(bytes);
  html = (char *)bytes;
  HAS_NOT(html, "<b>bold");
  HAS_NOT(html, "<img");
  HAS(html, "&lt;b&gt;bold&lt;/b&gt;");
  HAS_NOT(html, "<script>alert");
  HAS(html, "&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;");
  HAS(html, "&lt;script&gt;alert(1)&lt;/script&gt;");
  /* The plugin's message, in the candidates' table and the workload's
   * failure. */
  HAS_NOT(html, "<b onclick");
  CU_ASSERT(cli_test_count(
                html, "&lt;script&gt;alert(1)&lt;/script&gt;&lt;b onclick=&quot;x&quot;&gt;&#39;"
                      "&amp;amp;") >= 2u);
  CU_ASSERT(utf8_valid(bytes, len));
  free(html);
}

/* A bidi control from the configuration or a plugin (here the processor
 * the plugin's key reports, kept in the record) is visible text and every
 * value is isolated: it cannot reverse the report's own text (issue 37
 * item 11). */
static void test_bidi_text(void) {
  char *html;
  write_config_dirs(OLC_MOCK_PLUGIN_ROOT "/good", "processor = cpu\xe2\x80\xae(evil)\n", "");
  CU_ASSERT_EQUAL(olc("calibrate", "--config", g_ini, "--report", g_html, NULL), 0);
  CU_ASSERT_EQUAL(olc("select", "--config", g_ini, "--report", g_html, NULL), 0);
  html = read_html();
  HAS_NOT(html, "\xe2\x80\xae");
  HAS(html, "<code><bdi>cpu&lt;U+202E&gt;(evil)</bdi></code>");
  HAS(html, "<h2><bdi>mm</bdi>");
  HAS(html, "<code><bdi>mock_det</bdi></code>");
  free(html);
}

/* A bad path is one line naming it, before anything is measured. */
static void test_bad_path(void) {
  char bad[4096];
  char *store;
  write_config("");
  snprintf(bad, sizeof bad, "%s/no/such/dir/r.html", g_dir);
  CU_ASSERT_EQUAL(olc("calibrate", "--config", g_ini, "--report", bad, NULL), 1);
  CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 1u);
  HAS(g_r.err, bad);
  HAS(g_r.err, "report ");
  CU_ASSERT_EQUAL(g_r.out_len, 0u);
  store = olc_test_path(g_dir, "store.txt");
  CU_ASSERT_PTR_NULL(olc_test_read_file(store, NULL)); /* nothing measured, nothing saved */
  free(store);
  CU_ASSERT_EQUAL(olc("select", "--config", g_ini, "--report", g_dir, NULL), 1);
  CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 1u);
  HAS(g_r.err, "is a directory");
  CU_ASSERT_EQUAL(olc("calibrate", "--config", g_ini, "--report", "", NULL), 1);
  CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 1u);
  CU_ASSERT_EQUAL(olc("calibrate", "--config", g_ini, "--report", NULL), 2); /* no value */
}

/* --report never replaces what is not an olc report (issue 37 item 3):
 * the store, its lock file, a store's temporary, the config, any other
 * file; nor a name that is the store's (not yet made) or its lock's.  One
 * line naming the path, exit 1, before anything is measured, and the file
 * as it was. */
static void expect_refused(const char *command, const char *target, const char *why) {
  unsigned char *before = olc_test_read_file(target, NULL), *after;
  CU_ASSERT_EQUAL(olc(command, "--config", g_ini, "--report", target, NULL), 1);
  if (g_r.code != 1 || strstr(g_r.err, why) == NULL)
    fprintf(stderr, "\n  %s --report %s: exit %d: %s", command, target, g_r.code, g_r.err);
  CU_ASSERT_EQUAL(cli_test_lines(g_r.err), 1u);
  HAS(g_r.err, target);
  HAS(g_r.err, why);
  after = olc_test_read_file(target, NULL);
  CU_ASSERT_TRUE((before == NULL && after == NULL) ||
                 (before != NULL && after != NULL && strcmp((char *)before, (char *)after) == 0));
  free(before);
  free(after);
}

static void test_forbidden_targets(void) {
  char *store = olc_test_path(g_dir, "store.txt"), *lock = olc_test_path(g_dir, "store.txt.lock");
  char *notes = olc_test_path(g_dir, "notes.txt");
  char *notes_lock = olc_test_path(g_dir, "notes.txt.lock");
  char *tmp = olc_test_path(g_dir, "store.txt.4242.0123456789abcdef.tmp");
  write_config("");
  /* The store's name before the store exists: calibrate would write both. */
  expect_refused("calibrate", store, "is the store");
  CU_ASSERT_PTR_NULL(olc_test_read_file(store, NULL)); /* nothing measured */
  CU_ASSERT_EQUAL(olc("calibrate", "--config", g_ini, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(notes, "my notes\n", 9), 0);
  expect_refused("select", store, "is the store");
  expect_refused("calibrate", store, "is the store");
  expect_refused("select", lock, "lock file");
  expect_refused("select", g_ini, "not an olc report");
  expect_refused("select", notes, "not an olc report");
  expect_refused("select", notes_lock, "lock file");
  expect_refused("select", tmp, "temporary");
  /* A report is replaced (and what replaced it is one again). */
  CU_ASSERT_EQUAL(olc("select", "--config", g_ini, "--report", g_html, NULL), 0);
  CU_ASSERT_EQUAL(olc("select", "--config", g_ini, "--report", g_html, NULL), 0);
  free(store);
  free(lock);
  free(notes);
  free(notes_lock);
  free(tmp);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite_with_setup_and_teardown("report_html", NULL, NULL, setup, teardown);
  CU_add_test(s, "calibrate --report", test_calibrate_report);
  CU_add_test(s, "replaced, and select --report", test_replaced_and_select);
  CU_add_test(s, "select: the speedup a record kept", test_select_stored_speedup);
  CU_add_test(s, "hostile text is escaped", test_hostile_text);
  CU_add_test(s, "bidi controls are visible, values isolated", test_bidi_text);
  CU_add_test(s, "a bad path fails before measuring", test_bad_path);
  CU_add_test(s, "what is not a report is never replaced", test_forbidden_targets);
  return olc_test_run(argc, argv);
}
