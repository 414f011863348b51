/*
 * tests/format/test_format_doubles.c - locale-independent doubles.
 *
 * The documented form: the fewest significant digits that read back
 * bit-identically, in fixed or scientific notation, whichever is shorter
 * (fixed on a tie), as C++17 std::to_chars writes it.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "test_format.h"
#include "util/buf.h"

static uint64_t drng = 0x9E3779B97F4A7C15ull;
static uint64_t drng_next(void) {
  drng ^= drng >> 12;
  drng ^= drng << 25;
  drng ^= drng >> 27;
  return drng * 0x2545F4914F6CDD1Dull;
}

static void check_text(double v, const char *want) {
  olc_buf out = OLC_BUF_INIT;
  double back = 0;
  OLC_ASSERT_OK(olc_format__double(&out, v), NULL);
  if (out.len != strlen(want) || memcmp(out.data, want, out.len) != 0)
    fprintf(stderr, "\n%.17g: got \"%.*s\", want \"%s\"\n", v, (int)out.len, (const char *)out.data,
            want);
  CU_ASSERT(out.len == strlen(want) && memcmp(out.data, want, out.len) == 0);
  OLC_ASSERT_OK(olc_format__parse_double(&back, (const char *)out.data, out.len), NULL);
  CU_ASSERT(memcmp(&back, &v, sizeof(v)) == 0);
  olc_buf__free(&out);
}

static void test_simple_values(void) {
  check_text(2.5, "2.5");
  check_text(0.1, "0.1");
  check_text(1e100, "1e+100");
  check_text(100.0, "100");
  check_text(1e6, "1e+06");
  check_text(123456.0, "123456");
  check_text(1e-7, "1e-07");
  check_text(0.001, "0.001");
  check_text(0.0001, "1e-04");
  check_text(0.0, "0");
  check_text(-0.0, "-0");
  check_text(-2.5, "-2.5");
  check_text(12.75, "12.75");
  check_text(1.0 / 3.0, "0.3333333333333333");
  check_text(0.1 + 0.2, "0.30000000000000004");
  check_text(5e-324, "5e-324");
  check_text(DBL_MAX, "1.7976931348623157e+308");
  check_text(DBL_MIN, "2.2250738585072014e-308");
  check_text(9007199254740993.0, "9007199254740992");
  check_text(1e22, "1e+22");
  check_text(1e23, "1e+23");
  check_text(123456789012345680.0, "123456789012345680");
}

/* Bit-identical round trip of random doubles (all exponents). */
static void test_random_roundtrip(void) {
  size_t i, bad = 0;
  olc_buf out = OLC_BUF_INIT;
  printf("(seed %llx) ", (unsigned long long)drng);
  for (i = 0; i < 200000; i++) {
    uint64_t bits = drng_next();
    double v, back = 0;
    memcpy(&v, &bits, sizeof(v));
    if (i % 2 == 1)
      v = (double)(bits % 1000000) / 1000.0; /* measurement-like values too */
    if (!isfinite(v))
      continue;
    olc_buf__reset(&out);
    if (olc_format__double(&out, v) != OLC_OK ||
        olc_format__parse_double(&back, (const char *)out.data, out.len) != OLC_OK ||
        memcmp(&back, &v, sizeof(v)) != 0 || memchr(out.data, ',', out.len) != NULL) {
      if (bad++ < 5)
        fprintf(stderr, "\nround trip failed for %.17g: \"%.*s\"\n", v, (int)out.len,
                (const char *)out.data);
    }
  }
  CU_ASSERT_EQUAL(bad, 0);
  olc_buf__free(&out);
}

/* Shortest: one significant digit fewer never reads back, and the digits
 * are the correctly rounded ones (so the text is unique). */
static void test_shortest(void) {
  size_t i, bad = 0;
  olc_buf out = OLC_BUF_INIT;
  for (i = 0; i < 50000; i++) {
    uint64_t bits = drng_next();
    double v;
    char fewer[64];
    size_t k, digits = 0;
    int in_exp = 0;
    memcpy(&v, &bits, sizeof(v));
    if (i % 2 == 1)
      v = (double)(bits % 100000000) / 10000.0;
    if (!isfinite(v) || v == 0)
      continue;
    olc_buf__reset(&out);
    CU_ASSERT_EQUAL_FATAL(olc_format__double(&out, v), OLC_OK);
    /* count significant digits (no leading zeros, no exponent digits) */
    for (k = 0; k < out.len; k++) {
      char c = (char)out.data[k];
      if (c == 'e')
        in_exp = 1;
      if (!in_exp && c >= '0' && c <= '9' && (digits > 0 || c != '0'))
        digits++;
    }
    /* trailing zeros of an integer written in fixed form are not significant */
    if (!in_exp && memchr(out.data, '.', out.len) == NULL)
      for (k = out.len; k > 0 && out.data[k - 1] == '0'; k--)
        digits--;
    {
      /* the digits are the correctly rounded ones: printf's, at that count */
      char exact[64], got[40], want[40];
      size_t ng = 0, nw = 0;
      snprintf(exact, sizeof(exact), "%.*e", (int)digits - 1, v);
      for (k = 0; k < out.len && out.data[k] != 'e'; k++)
        if (out.data[k] >= '0' && out.data[k] <= '9' && (ng > 0 || out.data[k] != '0') &&
            ng < digits)
          got[ng++] = (char)out.data[k];
      for (k = 0; exact[k] != 0 && exact[k] != 'e'; k++)
        if (exact[k] >= '0' && exact[k] <= '9')
          want[nw++] = exact[k];
      if (ng != digits || nw != digits || memcmp(got, want, digits) != 0) {
        if (bad++ < 5)
          fprintf(stderr, "\nnot the rounded digits: %.17g written \"%.*s\", printf \"%s\"\n", v,
                  (int)out.len, (const char *)out.data, exact);
      }
    }
    if (digits > 1) {
      snprintf(fewer, sizeof(fewer), "%.*e", (int)digits - 2, v);
      if (strtod(fewer, NULL) == v) {
        if (bad++ < 5)
          fprintf(stderr, "\nnot shortest: %.17g written \"%.*s\", \"%s\" reads back\n", v,
                  (int)out.len, (const char *)out.data, fewer);
      }
    }
  }
  CU_ASSERT_EQUAL(bad, 0);
  olc_buf__free(&out);
}

static void check_parse(const char *s, int ok, double want) {
  double v = -12345;
  olc_status st = olc_format__parse_double(&v, s, strlen(s));
  if ((st == OLC_OK) != ok)
    fprintf(stderr, "\nparse_double(\"%s\"): status %d\n", s, (int)st);
  CU_ASSERT_EQUAL(st == OLC_OK, ok);
  if (ok)
    CU_ASSERT(memcmp(&v, &want, sizeof(v)) == 0);
}

static void test_parse_double(void) {
  char longest[80];
  check_parse("2.5", 1, 2.5);
  check_parse("-2.5", 1, -2.5);
  check_parse("+2.5", 1, 2.5);
  check_parse("2.50000", 1, 2.5);
  check_parse("1e+06", 1, 1e6);
  check_parse("1E6", 1, 1e6);
  check_parse(".5", 1, 0.5);
  check_parse("5.", 1, 5.0);
  check_parse("-0", 1, -0.0);
  check_parse("0.30000000000000004", 1, 0.1 + 0.2);
  check_parse("123456789012345678", 1, 123456789012345678.0);
  check_parse("4.9406564584124654e-324", 1, 5e-324);
  check_parse("1e-400", 1, 0.0);
  check_parse("", 0, 0);
  check_parse("-", 0, 0);
  check_parse(".", 0, 0);
  check_parse("1e", 0, 0);
  check_parse("1e+", 0, 0);
  check_parse("--1", 0, 0);
  check_parse("1-", 0, 0);
  check_parse("1.2.3", 0, 0);
  check_parse("2,5", 0, 0);
  check_parse(" 1", 0, 0);
  check_parse("1 ", 0, 0);
  check_parse("inf", 0, 0);
  check_parse("-inf", 0, 0);
  check_parse("nan", 0, 0);
  check_parse("1e999", 0, 0);
  check_parse("-1e999", 0, 0);
  check_parse("0x10", 0, 0);
  memset(longest, '1', 64);
  longest[64] = 0;
  check_parse(longest, 1, 1.1111111111111111e63);
  longest[64] = '1';
  longest[65] = 0;
  check_parse(longest, 0, 0);
  /* not NUL-terminated: only len bytes are read */
  {
    double v = 0;
    OLC_ASSERT_OK(olc_format__parse_double(&v, "2.5999", 3), NULL);
    CU_ASSERT_EQUAL(v, 2.5);
  }
}

void fmt_register_double_tests(CU_pSuite s) {
  CU_add_test(s, "simple values, documented form", test_simple_values);
  CU_add_test(s, "random doubles round-trip bit-identical", test_random_roundtrip);
  CU_add_test(s, "shortest form", test_shortest);
  CU_add_test(s, "parse_double accepts and rejects", test_parse_double);
}
