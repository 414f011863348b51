/*
 * tests/format/test_hostile_files.c - hostile ini files and store files
 * (issue 6, section 4): huge lines, NUL bytes, deep nesting of quotes,
 * 10 MB values, 100k sections / records, invalid UTF-8, a file that never
 * ends.  Each is either accepted (where the text is legitimate) or a clear
 * error naming the file and the line; nothing crashes, and memory stays
 * bounded (the sanitizer builds run this test too).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "olc/host.h"
#include "olc/store.h"
#include "test_store_setup.h"
#include "test_support.h"

#define MB (1024u * 1024u)

/* A growing text buffer (test only: aborts the test on out of memory). */
typedef struct text {
  char *p;
  size_t len;
  size_t cap;
} text;

static void put(text *t, const void *s, size_t n) {
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 4096;
    while (cap < t->len + n + 1)
      cap *= 2;
    t->p = realloc(t->p, cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t->p);
    t->cap = cap;
  }
  memcpy(t->p + t->len, s, n);
  t->len += n;
  t->p[t->len] = 0;
}

static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

static void putc_n(text *t, char c, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    put(t, &c, 1);
}

/* ------------------------------------------------------------------ ini */

/* Loads t as "hostile.ini"; prints the outcome; returns the status. */
static olc_status load_ini(const char *what, const text *t, olc_error *err, olc_config **out) {
  olc_config *c = NULL;
  olc_status st = olc_config_load_string(&c, t->p, t->len, "hostile.ini", NULL, err);
  printf("\n  ini %-28s %-14s %.150s", what, olc_status_str(st), st == OLC_OK ? "" : err->message);
  if (out != NULL)
    *out = c;
  else
    olc_config_free(c);
  return st;
}

/* A failure must be a config error naming the file and the line. */
static void expect_error_at(olc_status st, const olc_error *err, unsigned line) {
  char where[64];
  snprintf(where, sizeof where, "hostile.ini:%u:", line);
  CU_ASSERT_EQUAL(st, OLC_E_CONFIG);
  CU_ASSERT_PTR_NOT_NULL(strstr(err->message, where));
  CU_ASSERT_EQUAL(err->line, line);
  CU_ASSERT_PTR_NULL(strchr(err->message, '\n'));
}

static void test_ini_huge_line(void) {
  text t = {0};
  olc_config *c = NULL;
  olc_error err;
  olc_status st;
  /* A 1 MiB comment line, then a 1 MiB plugin value. */
  puts_(&t, "[host]\nthreads = 1\n; ");
  putc_n(&t, 'c', MB);
  puts_(&t, "\n[plugin.p]\nkey = ");
  putc_n(&t, 'v', MB);
  puts_(&t, "\n");
  st = load_ini("1 MiB lines", &t, &err, &c);
  if (st == OLC_OK) {
    const olc_plugin_config *p = olc_config_plugin(c, "p");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(p->entry_count, 1);
    CU_ASSERT_EQUAL(strlen(p->entries[0].value), MB); /* not truncated silently */
  } else {
    expect_error_at(st, &err, st == OLC_E_CONFIG && err.line == 3 ? 3 : 5);
  }
  olc_config_free(c);
  free(t.p);
}

static void test_ini_10mb_value(void) {
  text t = {0};
  olc_error err;
  olc_status st;
  puts_(&t, "[plugin.p]\nkey = ");
  putc_n(&t, 'v', 10 * MB);
  puts_(&t, "\n");
  /* Past the loader's 4 MiB file cap: refused before parsing, so the
   * message names the file and no line. */
  st = load_ini("10 MiB value", &t, &err, NULL);
  CU_ASSERT_EQUAL(st, OLC_E_CONFIG);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "hostile.ini: larger than"));
  free(t.p);
}

static void test_ini_nul_bytes(void) {
  static const char a[] = "[host]\nthreads = 1\n[plugin.p]\nkey = a\0b\n";
  static const char b[] = "[host]\nthr\0eads = 1\n";
  static const char c[] = "[ho\0st]\n";
  text t = {0};
  olc_error err;
  olc_status st;
  put(&t, a, sizeof a - 1);
  st = load_ini("NUL in a value", &t, &err, NULL);
  expect_error_at(st, &err, 4);
  t.len = 0;
  put(&t, b, sizeof b - 1);
  st = load_ini("NUL in a key", &t, &err, NULL);
  expect_error_at(st, &err, 2);
  t.len = 0;
  put(&t, c, sizeof c - 1);
  st = load_ini("NUL in a section", &t, &err, NULL);
  expect_error_at(st, &err, 1);
  free(t.p);
}

static void test_ini_quotes(void) {
  text t = {0};
  olc_config *c = NULL;
  olc_error err;
  olc_status st;
  size_t i;
  /* 100 000 quote characters and escapes: plain bytes for an ini value. */
  puts_(&t, "[plugin.p]\nkey = ");
  for (i = 0; i < 25000; i++)
    puts_(&t, "\"\\\"\\");
  puts_(&t, "\n");
  st = load_ini("100k quotes and escapes", &t, &err, &c);
  if (st == OLC_OK) {
    const olc_plugin_config *p = olc_config_plugin(c, "p");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(p->entry_count, 1);
  } else {
    expect_error_at(st, &err, 2);
  }
  olc_config_free(c);
  /* Quotes around a host value that must be a number: an error, line 2. */
  t.len = 0;
  puts_(&t, "[host]\nthreads = \"\"\"\"\"\"1\"\"\"\"\"\"\n");
  st = load_ini("quoted number", &t, &err, NULL);
  expect_error_at(st, &err, 2);
  free(t.p);
}

static void test_ini_100k_sections(void) {
  text t = {0};
  olc_config *c = NULL;
  olc_error err;
  olc_status st;
  char line[160];
  size_t i;
  /* The config loader finds duplicate sections by a linear scan (O(n^2):
   * 40k sections take about 9 s on a busy 2-core machine, 150k about 75 s),
   * so the suite loads 20k sections; OLC_HOSTILE_BIG=1 loads 100k plugin
   * sections and 50k workloads (3.3 MB, under the 4 MiB cap). */
  size_t plugins = 10000, workloads = 10000;
  if (getenv("OLC_HOSTILE_BIG") != NULL) {
    plugins = 100000;
    workloads = 50000;
  }
  for (i = 0; i < plugins; i++) {
    snprintf(line, sizeof line, "[plugin.p%lu]\nk=v\n", (unsigned long)i);
    puts_(&t, line);
  }
  for (i = 0; i < workloads; i++) {
    snprintf(line, sizeof line, "[workload.w%lu]\nbackend=b\noperator=M\n", (unsigned long)i);
    puts_(&t, line);
  }
  st = load_ini("many sections", &t, &err, &c);
  CU_ASSERT_EQUAL(st, OLC_OK);
  if (st == OLC_OK) {
    snprintf(line, sizeof line, "w%lu", (unsigned long)workloads - 1);
    CU_ASSERT_EQUAL(olc_config_workload_count(c), workloads);
    CU_ASSERT_PTR_NOT_NULL(olc_config_find_workload(c, line));
    snprintf(line, sizeof line, "p%lu", (unsigned long)plugins - 1);
    CU_ASSERT_PTR_NOT_NULL(olc_config_plugin(c, line));
  }
  olc_config_free(c);
  /* The same section 10k times: a duplicate, at line 5 (parsing stops at
   * the first error). */
  t.len = 0;
  for (i = 0; i < 10000; i++)
    puts_(&t, "[workload.same]\nbackend = b\noperator = MatMul\nm = 1\n");
  st = load_ini("one section 10k times", &t, &err, NULL);
  expect_error_at(st, &err, 5);
  free(t.p);
}

static void test_ini_utf8(void) {
  static const char *const bad[] = {
      "[host]\nthreads = 1\n[plugin.p]\nkey = \xff\n",
      "[host]\nthreads = 1\n[plugin.p]\nkey = \xc3\x28\n",
      "[host]\nthreads = 1\n[plugin.p]\nkey = \xed\xa0\x80\n",
      "[host]\nthreads = 1\n[plugin.p]\nkey = \xf8\x88\x80\x80\x80\n"};
  text t = {0};
  olc_error err;
  olc_status st;
  size_t i;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    t.len = 0;
    puts_(&t, bad[i]);
    st = load_ini("invalid utf-8", &t, &err, NULL);
    expect_error_at(st, &err, 4);
  }
  t.len = 0;
  puts_(&t, "[plugin.p]\nkey = caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n"); /* legitimate */
  st = load_ini("valid utf-8", &t, &err, NULL);
  CU_ASSERT_EQUAL(st, OLC_OK);
  free(t.p);
}

/* A config "file" that never ends (/dev/zero) and one that is a
 * directory: refused, bounded memory. */
static void test_ini_endless_file(void) {
  olc_config *c = NULL;
  olc_error err;
  olc_status st;
  struct rlimit old, lim;
  /* An address-space cap makes unbounded reading fail fast instead of
   * eating the machine (skipped under sanitizers, which reserve a lot). */
  int capped = 0;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  if (getrlimit(RLIMIT_AS, &old) == 0) {
    lim = old;
    lim.rlim_cur = (rlim_t)4096 * MB;
    capped = setrlimit(RLIMIT_AS, &lim) == 0;
  }
#else
  (void)lim;
  (void)old;
#endif
  st = olc_config_load_file(&c, "/dev/zero", &err);
  printf("\n  ini %-28s %-14s %.150s", "/dev/zero", olc_status_str(st), err.message);
  CU_ASSERT_NOT_EQUAL(st, OLC_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "/dev/zero"));
  olc_config_free(c);
  c = NULL;
  st = olc_config_load_file(&c, "/", &err);
  printf("\n  ini %-28s %-14s %.150s", "a directory", olc_status_str(st), err.message);
  CU_ASSERT_NOT_EQUAL(st, OLC_OK);
  olc_config_free(c);
  c = NULL;
  {
    /* A FIFO with no writer: refused at once, never waited on. */
    char fifo[] = "/tmp/olc-hostile-fifo-XXXXXX";
    int fd = mkstemp(fifo);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    unlink(fifo);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    st = olc_config_load_file(&c, fifo, &err);
    printf("\n  ini %-28s %-14s %.150s", "a fifo", olc_status_str(st), err.message);
    CU_ASSERT_EQUAL(st, OLC_E_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "not a regular file"));
    olc_config_free(c);
    unlink(fifo);
  }
  if (capped)
    setrlimit(RLIMIT_AS, &old);
}

/* ---------------------------------------------------------------- store */

static char *tmp;

static char *write_tmp(const char *name, const text *t) {
  char *p = olc_test_path(tmp, name);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(p, t->p, t->len), 0);
  return p;
}

static void record(text *t, const char *processor, size_t plen, const char *policy, size_t len) {
  puts_(t, "profile exact calibrated\nbackend \"b\"\noperator \"MatMul\"\nimplementation \"1\"\n"
           "model_digest \"\"\nprocessor \"");
  put(t, processor, plen);
  puts_(t, "\"\nthread_count 1\nmeasurement \"median_latency\" 1 \"us\"\npolicy \"");
  put(t, policy, len);
  puts_(t, "\"\nend\n");
}

static void check_file(const char *what, const char *path, olc_status want, size_t *n,
                       olc_error *err) {
  olc_status st = olc_store_check_file(path, n, err);
  printf("\n  store %-26s %-14s %.150s", what, olc_status_str(st),
         st == OLC_OK ? "" : err->message);
  CU_ASSERT_EQUAL(st, want);
}

static void test_store_100k_records(void) {
  text t = {0};
  char proc[32];
  char *path;
  size_t i, n = 0;
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_lookup_options lo = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *r = NULL;
  olc_key key;
  olc_error err;
  puts_(&t, "onnx_light_calibration_profiles 1\n");
  for (i = 0; i < 100000; i++) {
    int k = snprintf(proc, sizeof proc, "cpu%06lu", (unsigned long)i);
    record(&t, proc, (size_t)k, "p", 1);
  }
  path = write_tmp("100k.txt", &t);
  check_file("100k records", path, OLC_OK, &n, &err);
  CU_ASSERT_EQUAL(n, 100000);
  o.path = path;
  OLC_ASSERT_OK(olc_store_open(&s, &o, &err), &err);
  OLC_ASSERT_OK(olc_store_load_status(s, &err), &err);
  key = olc_test_matmul_key("b", "");
  key.processor = "cpu077777";
  lo.key = &key;
  OLC_ASSERT_OK(olc_store_lookup(&r, s, &lo, &err), &err);
  CU_ASSERT_STRING_EQUAL(olc_lookup_result_selected(r)->processor, "cpu077777");
  olc_lookup_result_free(r);
  olc_store_free(s);
  free(path);
  free(t.p);
}

/* Saves a policy of len bytes (quotes, escapes, NUL, LF) and reads it back
 * from the file. */
static void test_store_big_values(void) {
  size_t len = 10 * MB;
  unsigned char *policy = malloc(len);
  char *path = olc_test_path(tmp, "big.txt");
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_record_list *list = NULL;
  olc_key key = olc_test_matmul_key("b", "");
  olc_measurement m = {"median_latency", 1.0, "us"};
  olc_save_request req = olc_test_bit_exact_request(&key, policy, len, &m, 1);
  text t = {0};
  size_t i, n = 0;
  char *p2;
  olc_error err;
  CU_ASSERT_PTR_NOT_NULL_FATAL(policy);
  for (i = 0; i < len; i++)
    policy[i] = (unsigned char)"\"\\\"\\\0\n\xff x"[i % 9];
  o.path = path;
  OLC_ASSERT_OK(olc_store_open(&s, &o, &err), &err);
  OLC_ASSERT_OK(olc_store_save(s, &req, &err), &err);
  olc_store_free(s);
  s = NULL;
  check_file("10 MiB escaped policy", path, OLC_OK, &n, &err);
  OLC_ASSERT_OK(olc_store_open(&s, &o, &err), &err);
  OLC_ASSERT_OK(olc_store_list(&list, s, &err), &err);
  CU_ASSERT_EQUAL_FATAL(olc_record_list_count(list), 1);
  CU_ASSERT_EQUAL(olc_record_list_get(list, 0)->policy_len, len);
  CU_ASSERT_EQUAL(memcmp(olc_record_list_get(list, 0)->policy, policy, len), 0);
  olc_record_list_free(list);
  olc_store_free(s);
  /* Over the format's 16 MiB value limit: refused when saving ... */
  free(policy);
  len = 17 * MB;
  policy = calloc(1, len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(policy);
  OLC_ASSERT_OK(olc_store_open(&s, &o, &err), &err);
  req.policy = policy;
  req.policy_len = len;
  OLC_ASSERT_STATUS(OLC_E_LIMIT, olc_store_save(s, &req, &err), &err);
  printf("\n  store %-26s %-14s %.150s", "save 17 MiB policy", "limit", err.message);
  olc_store_free(s);
  /* ... and when reading, with the position of the value. */
  puts_(&t, "onnx_light_calibration_profiles 1\n");
  record(&t, "cpu", 3, (const char *)policy, len);
  p2 = write_tmp("over.txt", &t);
  check_file("17 MiB value", p2, OLC_E_MALFORMED, NULL, &err);
  CU_ASSERT_EQUAL(err.line, 10);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "value too large"));
  free(p2);
  free(t.p);
  free(policy);
  free(path);
}

/* NUL bytes: legitimate inside a policy, refused in identity fields and
 * outside quotes. */
static void test_store_nul(void) {
  text t = {0};
  char *path;
  size_t n = 0;
  olc_error err;
  puts_(&t, "onnx_light_calibration_profiles 1\n");
  record(&t, "cpu", 3, "a\0b", 3);
  path = write_tmp("nul-policy.txt", &t);
  check_file("NUL in a policy", path, OLC_OK, &n, &err);
  free(path);
  t.len = 0;
  puts_(&t, "onnx_light_calibration_profiles 1\n");
  record(&t, "c\0pu", 4, "p", 1);
  path = write_tmp("nul-processor.txt", &t);
  check_file("NUL in the processor", path, OLC_E_MALFORMED, NULL, &err);
  CU_ASSERT_EQUAL(err.line, 7);
  free(path);
  t.len = 0;
  puts_(&t, "onnx_light_calibration_profiles 1\n");
  put(&t, "profile exact\0 calibrated\n", 26);
  path = write_tmp("nul-keyword.txt", &t);
  check_file("NUL between keywords", path, OLC_E_MALFORMED, NULL, &err);
  CU_ASSERT_EQUAL(err.line, 2);
  free(path);
  free(t.p);
}

/* Quotes nested as deep as one likes are just escaped bytes; a stray one
 * is an error with its position. */
static void test_store_quotes(void) {
  text t = {0};
  text v = {0};
  char *path;
  size_t i, n = 0;
  olc_error err;
  for (i = 0; i < 100000; i++)
    puts_(&v, "\\\"\\\\");
  puts_(&t, "onnx_light_calibration_profiles 1\n");
  record(&t, "cpu", 3, v.p, v.len);
  path = write_tmp("quotes.txt", &t);
  check_file("200k escapes", path, OLC_OK, &n, &err);
  free(path);
  t.len = 0;
  puts_(&t, "onnx_light_calibration_profiles 1\n");
  record(&t, "cpu", 3, "a\"b", 3); /* unescaped quote inside */
  path = write_tmp("stray-quote.txt", &t);
  check_file("unescaped quote", path, OLC_E_MALFORMED, NULL, &err);
  CU_ASSERT_EQUAL(err.line, 10);
  CU_ASSERT_TRUE(err.column > 0);
  free(path);
  t.len = 0;
  puts_(&t, "onnx_light_calibration_profiles 1\n");
  record(&t, "cpu", 3, "\\", 1); /* escape of the closing quote: never closed */
  path = write_tmp("open-quote.txt", &t);
  check_file("escaped closing quote", path, OLC_E_MALFORMED, NULL, &err);
  CU_ASSERT_TRUE(err.line >= 10);
  free(path);
  free(v.p);
  free(t.p);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  int rc;
  tmp = olc_test_tmpdir("hostile-files");
  if (tmp == NULL || CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("ini", NULL, NULL);
  CU_add_test(s, "1 MiB lines", test_ini_huge_line);
  CU_add_test(s, "10 MiB value", test_ini_10mb_value);
  CU_add_test(s, "NUL bytes", test_ini_nul_bytes);
  CU_add_test(s, "deep quotes", test_ini_quotes);
  CU_add_test(s, "many sections (100k with OLC_HOSTILE_BIG)", test_ini_100k_sections);
  CU_add_test(s, "invalid utf-8", test_ini_utf8);
  CU_add_test(s, "endless file, directory", test_ini_endless_file);
  s = CU_add_suite("store", NULL, NULL);
  CU_add_test(s, "100k records", test_store_100k_records);
  CU_add_test(s, "10 MiB values, 17 MiB refused", test_store_big_values);
  CU_add_test(s, "NUL bytes", test_store_nul);
  CU_add_test(s, "deep quotes", test_store_quotes);
  rc = olc_test_run(argc, argv);
  olc_test_rmtree(tmp);
  free(tmp);
  return rc;
}
