/*
 * tests/cli/test_cli_args.c - the CLI's parser, strict numbers, double
 * formatting, JSON writer and text fitting, compiled in directly (no
 * process).
 */
#include <CUnit/CUnit.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "test_support.h"

static void test_int64(void) {
  char msg[160];
  int64_t v = 0;
  CU_ASSERT_EQUAL(cli_parse_int64(&v, "8", 1, 100, msg, sizeof msg), 0);
  CU_ASSERT_EQUAL(v, 8);
  CU_ASSERT_EQUAL(cli_parse_int64(&v, "-5", -10, 10, msg, sizeof msg), 0);
  CU_ASSERT_EQUAL(v, -5);
  CU_ASSERT_EQUAL(cli_parse_int64(&v, "9223372036854775807", 0, INT64_MAX, msg, sizeof msg), 0);
  CU_ASSERT_EQUAL(v, INT64_MAX);
  CU_ASSERT_EQUAL(cli_parse_int64(&v, "-9223372036854775808", INT64_MIN, 0, msg, sizeof msg), 0);
  CU_ASSERT_EQUAL(v, INT64_MIN);
  CU_ASSERT_EQUAL(cli_parse_int64(&v, "9223372036854775808", 0, INT64_MAX, msg, sizeof msg), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "out of range"));
  CU_ASSERT_EQUAL(cli_parse_int64(&v, "8x", 1, 100, msg, sizeof msg), -1);
  CU_ASSERT_EQUAL(cli_parse_int64(&v, "", 1, 100, msg, sizeof msg), -1);
  CU_ASSERT_EQUAL(cli_parse_int64(&v, " 8", 1, 100, msg, sizeof msg), -1);
  CU_ASSERT_EQUAL(cli_parse_int64(&v, "+8", 1, 100, msg, sizeof msg), -1);
  CU_ASSERT_EQUAL(cli_parse_int64(&v, "-", 1, 100, msg, sizeof msg), -1);
  CU_ASSERT_EQUAL(cli_parse_int64(&v, "0", 1, 100, msg, sizeof msg), -1);
  CU_ASSERT_EQUAL(cli_parse_int64(&v, "101", 1, 100, msg, sizeof msg), -1);
  CU_ASSERT_EQUAL(v, INT64_MIN); /* untouched on failure */
}

static void test_double(void) {
  /* Subnormals (the store writes them) and zero written any way are
   * numbers; a non-zero literal that rounds to zero is not. */
  static const char *good[] = {"2.5", "-1e-07",   ".5",      "5.",     "1E3",
                               "+0",  "4.9e-324", "-5e-324", "0e-400", "0.000e999"};
  static const char *bad[] = {"",  "1e", "0x10",  "inf", "nan", " 1",     "1 ",      "1e999",
                              ".", "-",  "1.2.3", "1,5", "e5",  "1e-400", "-2e-330", "0.0001e-320"};
  char msg[160];
  double v;
  size_t i;
  for (i = 0; i < sizeof good / sizeof good[0]; i++)
    CU_ASSERT_EQUAL(cli_parse_double(&v, good[i], msg, sizeof msg), 0);
  CU_ASSERT_EQUAL(cli_parse_double(&v, "2.5", msg, sizeof msg), 0);
  CU_ASSERT_EQUAL(v, 2.5);
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CU_ASSERT_EQUAL(cli_parse_double(&v, bad[i], msg, sizeof msg), -1);
    if (cli_parse_double(&v, bad[i], msg, sizeof msg) == 0)
      fprintf(stderr, "accepted bad number '%s'\n", bad[i]);
  }
}

static void check_format(double value, const char *want) {
  char buf[40];
  cli_format_double(buf, sizeof buf, value);
  if (want != NULL && strcmp(buf, want) != 0)
    fprintf(stderr, "formatted '%s', expected '%s'\n", buf, want);
  if (want != NULL) {
    CU_ASSERT_STRING_EQUAL(buf, want);
  }
  {
    double back = strtod(buf, NULL);
    CU_ASSERT_EQUAL(memcmp(&back, &value, sizeof back), 0);
  }
}

static void test_format_double(void) {
  check_format(0.1, "0.1");
  check_format(2.5, "2.5");
  check_format(1e-7, "1e-07");
  check_format(-0.0, "-0");
  check_format(1000.0, "1000");
  check_format(123456789.125, "123456789.125");
  check_format(1.0 / 3.0, "0.3333333333333333");
  check_format(DBL_MAX, "1.7976931348623157e+308");
  check_format(5e-324, "5e-324");
  check_format(0.30000000000000004, "0.30000000000000004");
}

/* Under a locale with a decimal comma, numbers still read and print with
 * '.'.  Needs de_DE.UTF-8 (or another comma locale); skipped without. */
static void test_numbers_comma_locale(void) {
  static const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
  char buf[40], msg[160];
  double v = 0;
  size_t i;
  const char *got = NULL;
  char *dir = NULL;
  for (i = 0; i < sizeof names / sizeof names[0] && got == NULL; i++)
    got = setlocale(LC_NUMERIC, names[i]);
  if (got == NULL && (dir = olc_test_tmpdir("locale")) != NULL) {
    /* Not installed: build it into a private LOCPATH when localedef can. */
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1", dir);
    if (system(cmd) == 0 && setenv("LOCPATH", dir, 1) == 0)
      got = setlocale(LC_NUMERIC, "de_DE.UTF-8");
  }
  if (got == NULL || strcmp(localeconv()->decimal_point, ",") != 0) {
    fprintf(stderr, "no decimal-comma locale available: comma check skipped\n");
    setlocale(LC_NUMERIC, "C");
    olc_test_rmtree(dir);
    free(dir);
    return;
  }
  CU_ASSERT_EQUAL(cli_parse_double(&v, "2.5", msg, sizeof msg), 0);
  CU_ASSERT_EQUAL(v, 2.5);
  CU_ASSERT_EQUAL(cli_parse_double(&v, "2,5", msg, sizeof msg), -1);
  cli_format_double(buf, sizeof buf, 0.1);
  CU_ASSERT_STRING_EQUAL(buf, "0.1");
  cli_format_double(buf, sizeof buf, 1e-7);
  CU_ASSERT_STRING_EQUAL(buf, "1e-07");
  setlocale(LC_NUMERIC, "C");
  olc_test_rmtree(dir);
  free(dir);
}

enum { ID_A = 1, ID_FLAG, ID_MANY };

static void test_parser(void) {
  static const cli_option opts[] = {
      {"alpha", "X", ID_A, 0}, {"flag", NULL, ID_FLAG, 0}, {"many", "M", ID_MANY, CLI_OPT_REPEAT}};
  char a[][16] = {"--alpha", "1",       "pos", "--flag", "--many=a", "--many",
                  "b",       "--store", "/s",  "--",     "--x"};
  char *argv[11];
  cli_ctx ctx;
  cli_parser p;
  int id;
  const char *v;
  size_t i;
  for (i = 0; i < 11; i++)
    argv[i] = a[i];
  memset(&ctx, 0, sizeof ctx);
  cli_parser_init(&p, &ctx, opts, 3, 11, argv);
  CU_ASSERT_EQUAL(cli_parser_next(&p, &id, &v), 1);
  CU_ASSERT_EQUAL(id, ID_A);
  CU_ASSERT_STRING_EQUAL(v, "1");
  CU_ASSERT_EQUAL(cli_parser_next(&p, &id, &v), 1);
  CU_ASSERT_EQUAL(id, CLI_ID_POSITIONAL);
  CU_ASSERT_STRING_EQUAL(v, "pos");
  CU_ASSERT_EQUAL(cli_parser_next(&p, &id, &v), 1);
  CU_ASSERT_EQUAL(id, ID_FLAG);
  CU_ASSERT_PTR_NULL(v);
  CU_ASSERT_EQUAL(cli_parser_next(&p, &id, &v), 1);
  CU_ASSERT_EQUAL(id, ID_MANY);
  CU_ASSERT_STRING_EQUAL(v, "a");
  CU_ASSERT_EQUAL(cli_parser_next(&p, &id, &v), 1);
  CU_ASSERT_STRING_EQUAL(v, "b");
  /* --store is taken into the context; "--" ends the options. */
  CU_ASSERT_EQUAL(cli_parser_next(&p, &id, &v), 1);
  CU_ASSERT_EQUAL(id, CLI_ID_POSITIONAL);
  CU_ASSERT_STRING_EQUAL(v, "--x");
  CU_ASSERT_STRING_EQUAL(ctx.store_path, "/s");
  CU_ASSERT_EQUAL(cli_parser_next(&p, &id, &v), 0);
}

static int parse_error(int argc, const char *const *args, const char *want) {
  static const cli_option opts[] = {{"alpha", "X", ID_A, 0}, {"flag", NULL, ID_FLAG, 0}};
  char copies[4][16], *argv[4];
  cli_parser p;
  int id, r;
  const char *v;
  for (id = 0; id < argc; id++) {
    snprintf(copies[id], sizeof copies[id], "%s", args[id]);
    argv[id] = copies[id];
  }
  cli_parser_init(&p, NULL, opts, 2, argc, argv);
  while ((r = cli_parser_next(&p, &id, &v)) > 0)
    ;
  if (r == -1 && strstr(p.message, want) == NULL)
    fprintf(stderr, "message '%s' lacks '%s'\n", p.message, want);
  return r == -1 && strstr(p.message, want) != NULL;
}

static void test_parser_errors(void) {
  static const char *const a1[] = {"--beta"};
  static const char *const a2[] = {"--alpha"};
  static const char *const a3[] = {"--flag=1"};
  static const char *const a4[] = {"--alpha", "1", "--alpha=2"};
  static const char *const a5[] = {"-x"};
  static const char *const a6[] = {"--help=x"};
  static const char *const a7[] = {"--store", "x"}; /* no context: not a known option */
  CU_ASSERT_TRUE(parse_error(1, a1, "unknown option '--beta'"));
  CU_ASSERT_TRUE(parse_error(1, a2, "'--alpha' needs a value"));
  CU_ASSERT_TRUE(parse_error(1, a3, "'--flag' takes no value"));
  CU_ASSERT_TRUE(parse_error(3, a4, "'--alpha' given more than once"));
  CU_ASSERT_TRUE(parse_error(1, a5, "unknown option '-x'"));
  CU_ASSERT_TRUE(parse_error(1, a6, "'--help' takes no value"));
  CU_ASSERT_TRUE(parse_error(2, a7, "unknown option '--store'"));
}

/* A mistyped option gets the nearest known one suggested; a name far from
 * all of them gets none. */
static void test_parser_suggests(void) {
  static const char *const a1[] = {"--alpah"};
  static const char *const a2[] = {"--flg"};
  static const char *const a3[] = {"--alph=1"};
  static const char *const a4[] = {"--zzzzzz"};
  CU_ASSERT_TRUE(parse_error(1, a1, "unknown option '--alpah' (did you mean '--alpha'?)"));
  CU_ASSERT_TRUE(parse_error(1, a2, "unknown option '--flg' (did you mean '--flag'?)"));
  CU_ASSERT_TRUE(parse_error(1, a3, "unknown option '--alph' (did you mean '--alpha'?)"));
  CU_ASSERT_TRUE(parse_error(1, a4, "unknown option '--zzzzzz'"));
  CU_ASSERT_FALSE(parse_error(1, a4, "did you mean"));
}

/* "-v" is the short form of a flag: alone, never bundled, never with a
 * value, and counted with its long form. */
static void test_parser_short(void) {
  static const cli_option opts[] = {{"verbose", NULL, ID_FLAG, CLI_OPT_SHORT('v')},
                                    {"alpha", "X", ID_A, 0},
                                    {"many", NULL, ID_MANY, CLI_OPT_REPEAT | CLI_OPT_SHORT('m')}};
  char a[][16] = {"-v", "-m", "--many", "-m", "pos"};
  char *argv[5];
  cli_parser p;
  int id, i;
  const char *v = "x";
  for (i = 0; i < 5; i++)
    argv[i] = a[i];
  cli_parser_init(&p, NULL, opts, 3, 5, argv);
  CU_ASSERT_EQUAL(cli_parser_next(&p, &id, &v), 1);
  CU_ASSERT_EQUAL(id, ID_FLAG);
  CU_ASSERT_PTR_NULL(v);
  for (i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(cli_parser_next(&p, &id, &v), 1);
    CU_ASSERT_EQUAL(id, ID_MANY);
  }
  CU_ASSERT_EQUAL(cli_parser_next(&p, &id, &v), 1);
  CU_ASSERT_EQUAL(id, CLI_ID_POSITIONAL);
  CU_ASSERT_EQUAL(cli_parser_next(&p, &id, &v), 0);
  {
    static const char *const bundled[] = {"-vm"}, *const twice[] = {"-v", "--verbose"};
    static const char *const unknown[] = {"-a"}, *const dash_x[] = {"-x"};
    char copies[2][16], *args[2];
    const char *const *cases[] = {bundled, twice, unknown, dash_x};
    const int counts[] = {1, 2, 1, 1};
    const char *wants[] = {"unknown option '-vm'", "option '--verbose' given more than once",
                           "unknown option '-a'", "unknown option '-x'"};
    size_t c;
    for (c = 0; c < 4; c++) {
      int r, k;
      for (k = 0; k < counts[c]; k++) {
        snprintf(copies[k], sizeof copies[k], "%s", cases[c][k]);
        args[k] = copies[k];
      }
      cli_parser_init(&p, NULL, opts, 3, counts[c], args);
      while ((r = cli_parser_next(&p, &id, &v)) > 0)
        ;
      CU_ASSERT_EQUAL(r, -1);
      if (strstr(p.message, wants[c]) == NULL)
        fprintf(stderr, "message '%s' lacks '%s'\n", p.message, wants[c]);
      CU_ASSERT_PTR_NOT_NULL(strstr(p.message, wants[c]));
    }
  }
}

/* What cli_put_fitted prints for s in cols columns. */
static char *fitted(const char *s, size_t cols, int pad) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f == NULL)
    return NULL;
  cli_put_fitted(f, s, cols, pad);
  fclose(f);
  return buf;
}

#define FITS(s, cols, pad, want)                                                                   \
  do {                                                                                             \
    char *got_ = fitted((s), (cols), (pad));                                                       \
    CU_ASSERT_PTR_NOT_NULL_FATAL(got_);                                                            \
    if (strcmp(got_, (want)) != 0)                                                                 \
      fprintf(stderr, "fitted '%s' to %d: '%s', want '%s'\n", (s), (int)(cols), got_, (want));     \
    CU_ASSERT_STRING_EQUAL(got_, (want));                                                          \
    free(got_);                                                                                    \
  } while (0)

/* Shortening keeps the start and the end around "...", counts characters
 * (not bytes), pads on request; safe text escapes what a terminal acts on. */
static void test_fit(void) {
  char *safe;
  FITS("short", 10, 0, "short");
  FITS("short", 8, 1, "short   ");
  FITS("abcdefghijkl", 12, 0, "abcdefghijkl");
  FITS("abcdefghijkl", 11, 0, "abcd...ijkl");
  FITS("abcdefghijkl", 10, 1, "abcd...jkl");
  FITS("abcdefghijkl", 3, 0, "abc");
  FITS("caf\xc3\xa9-caf\xc3\xa9-caf\xc3\xa9", 9, 0, "caf...af\xc3\xa9");
  CU_ASSERT_EQUAL(cli_text_width("caf\xc3\xa9"), 4u);
  safe = cli_safe_text("a\x1b[31m\\\xff\xc2\x9b\xc3\xa9");
  CU_ASSERT_PTR_NOT_NULL_FATAL(safe);
  CU_ASSERT_STRING_EQUAL(safe, "a\\x1b[31m\\x5c\\xff\\xc2\\x9b\xc3\xa9");
  free(safe);
  safe = cli_safe_bytes((const unsigned char *)"a\0b", 3);
  CU_ASSERT_PTR_NOT_NULL_FATAL(safe);
  CU_ASSERT_STRING_EQUAL(safe, "a\\x00b");
  free(safe);
}

/* $COLUMNS wins when it is a number from 1 to 10000; else a file has no
 * width (0): nothing is cut to fit (a policy is shown whole). */
static void test_output_width(void) {
  FILE *f = tmpfile();
  const char *old = getenv("COLUMNS");
  char *saved = old != NULL ? strdup(old) : NULL;
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  unsetenv("COLUMNS");
  CU_ASSERT_EQUAL(cli_output_width(f), 0);
  setenv("COLUMNS", "72", 1);
  CU_ASSERT_EQUAL(cli_output_width(f), 72);
  setenv("COLUMNS", "10000", 1);
  CU_ASSERT_EQUAL(cli_output_width(f), 10000);
  setenv("COLUMNS", "10001", 1);
  CU_ASSERT_EQUAL(cli_output_width(f), 0);
  setenv("COLUMNS", "0", 1);
  CU_ASSERT_EQUAL(cli_output_width(f), 0);
  setenv("COLUMNS", "80x", 1);
  CU_ASSERT_EQUAL(cli_output_width(f), 0);
  setenv("COLUMNS", "", 1);
  CU_ASSERT_EQUAL(cli_output_width(f), 0);
  if (saved != NULL)
    setenv("COLUMNS", saved, 1);
  else
    unsetenv("COLUMNS");
  free(saved);
  fclose(f);
}

static char *json_text(void (*write)(cli_json *)) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cli_json j;
  if (f == NULL)
    return NULL;
  cli_json_init(&j, f);
  write(&j);
  fclose(f);
  return buf;
}

static void write_nested(cli_json *j) {
  cli_json_begin_object(j);
  cli_json_key(j, "a");
  cli_json_begin_array(j);
  cli_json_int(j, 1);
  cli_json_double(j, 2.5);
  cli_json_null(j);
  cli_json_bool(j, 1);
  cli_json_begin_object(j);
  cli_json_end_object(j);
  cli_json_end_array(j);
  cli_json_key(j, "b\"\\");
  cli_json_string(j, "x\n\t\x01\x7f"
                     "caf\xc3\xa9 \xff \xed\xa0\x80");
  cli_json_key(j, "c");
  cli_json_string(j, NULL);
  cli_json_end_object(j);
}

static void write_base64(cli_json *j) {
  cli_json_begin_array(j);
  cli_json_base64(j, (const unsigned char *)"", 0);
  cli_json_base64(j, (const unsigned char *)"f", 1);
  cli_json_base64(j, (const unsigned char *)"fo", 2);
  cli_json_base64(j, (const unsigned char *)"foo", 3);
  cli_json_base64(j, (const unsigned char *)"foob", 4);
  cli_json_base64(j, (const unsigned char *)"\xff\xfe\xfd\x00", 4);
  cli_json_end_array(j);
}

static void write_breaks(cli_json *j) {
  cli_json_begin_array(j);
  cli_json_break(j);
  cli_json_int(j, 1);
  cli_json_break(j);
  cli_json_begin_object(j);
  cli_json_key(j, "k");
  cli_json_int(j, 2);
  cli_json_end_object(j);
  cli_json_end_array(j);
}

static void test_json(void) {
  char *s = json_text(write_nested);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_STRING_EQUAL(s, "{\"a\":[1,2.5,null,true,{}],\"b\\\"\\\\\":"
                            "\"x\\n\\t\\u0001\\u007fcaf\xc3\xa9 \\ufffd \\ufffd\\ufffd\\ufffd\","
                            "\"c\":null}");
  free(s);
  s = json_text(write_breaks);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_STRING_EQUAL(s, "[\n1,\n{\"k\":2}]");
  free(s);
  s = json_text(write_base64);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_STRING_EQUAL(s, "[\"\",\"Zg==\",\"Zm8=\",\"Zm9v\",\"Zm9vYg==\",\"//79AA==\"]");
  free(s);
}

static void test_utf8(void) {
  CU_ASSERT_TRUE(cli_utf8_valid((const unsigned char *)"", 0));
  CU_ASSERT_TRUE(cli_utf8_valid((const unsigned char *)"a\0b", 3));
  CU_ASSERT_TRUE(cli_utf8_valid((const unsigned char *)"\xf0\x9f\x98\x80", 4));
  CU_ASSERT_TRUE(cli_utf8_valid((const unsigned char *)"\xf4\x8f\xbf\xbf", 4));
  CU_ASSERT_FALSE(cli_utf8_valid((const unsigned char *)"\xc0\x80", 2));         /* overlong */
  CU_ASSERT_FALSE(cli_utf8_valid((const unsigned char *)"\xe0\x80\x80", 3));     /* overlong */
  CU_ASSERT_FALSE(cli_utf8_valid((const unsigned char *)"\xed\xa0\x80", 3));     /* surrogate */
  CU_ASSERT_FALSE(cli_utf8_valid((const unsigned char *)"\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
  CU_ASSERT_FALSE(cli_utf8_valid((const unsigned char *)"\xe2\x82", 2));         /* cut short */
  CU_ASSERT_FALSE(cli_utf8_valid((const unsigned char *)"\x80", 1));
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("cli_args", NULL, NULL);
  CU_add_test(s, "int64", test_int64);
  CU_add_test(s, "double", test_double);
  CU_add_test(s, "format_double", test_format_double);
  CU_add_test(s, "numbers_comma_locale", test_numbers_comma_locale);
  CU_add_test(s, "parser", test_parser);
  CU_add_test(s, "parser_errors", test_parser_errors);
  CU_add_test(s, "parser_suggests", test_parser_suggests);
  CU_add_test(s, "parser_short", test_parser_short);
  CU_add_test(s, "fit", test_fit);
  CU_add_test(s, "output_width", test_output_width);
  CU_add_test(s, "json", test_json);
  CU_add_test(s, "utf8", test_utf8);
  return olc_test_run(argc, argv);
}
