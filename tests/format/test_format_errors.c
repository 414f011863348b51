/*
 * tests/format/test_format_errors.c - every parser error: status, line,
 * column, offset and message.
 */
#include <stdio.h>
#include <string.h>

#include "format/format.h"
#include "test_format.h"

#define H "onnx_light_calibration_profiles 1\n"
#define P_EXACT "profile exact calibrated\n"
#define BACKEND "backend \"b\"\n"
#define OPERATOR "operator \"o\"\n"
#define IMPL "implementation \"1\"\n"
#define DIGEST "model_digest \"d\"\n"
#define PROC "processor \"p\"\n"
#define THREADS "thread_count 8\n"
#define MEAS "measurement \"t\" 2.5 \"us\"\n"
#define POLICY "policy \"x\"\n"
#define END "end\n"
/* lines: 1 header, 2 profile, 3 backend, 4 operator, 5 implementation,
 * 6 model_digest, 7 processor, 8 thread_count, 9 measurement, 10 policy,
 * 11 end */
#define REC P_EXACT BACKEND OPERATOR IMPL DIGEST PROC THREADS MEAS POLICY END
#define PORT "profile portable calibrated\n" BACKEND OPERATOR IMPL

/* Byte offset of (line, column) in s, recomputed independently. */
static size_t offset_of(const char *s, size_t len, unsigned line, unsigned column) {
  size_t i = 0;
  unsigned l = 1;
  while (i < len && l < line) {
    if (s[i] == '\n')
      l++;
    i++;
  }
  return i + column - 1;
}

void fmt_check_error(const char *in, size_t len, const olc_format_limits *lim, olc_status code,
                     unsigned line, unsigned column, const char *msg) {
  olc_recset set = OLC_RECSET_INIT;
  olc_error err;
  olc_status st;
  memset(&err, 0, sizeof(err));
  st = olc_format__parse(&set, (const unsigned char *)in, len, lim, &err);
  if (st != code || err.line != line || err.column != column || strstr(err.message, msg) == NULL ||
      (code != OLC_E_LIMIT && err.offset != offset_of(in, len, line, column)))
    fprintf(stderr, "\nparse error mismatch: got %d %u:%u @%llu \"%s\"; want %d %u:%u \"%s\"\n",
            (int)st, err.line, err.column, (unsigned long long)err.offset, err.message, (int)code,
            line, column, msg);
  CU_ASSERT_EQUAL(st, code);
  CU_ASSERT_EQUAL(err.code, code);
  CU_ASSERT_EQUAL(err.line, line);
  CU_ASSERT_EQUAL(err.column, column);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.message, msg));
  CU_ASSERT_PTR_NULL(strchr(err.message, '\n'));
  if (code != OLC_E_LIMIT)
    CU_ASSERT_EQUAL(err.offset, offset_of(in, len, line, column));
  /* a failed parse leaves the set empty */
  CU_ASSERT_EQUAL(set.count, 0);
  CU_ASSERT_PTR_NULL(set.arena.head);
  olc_recset__free(&set);
}

#define ERR(in, line, col, msg)                                                                    \
  fmt_check_error((in), sizeof(in) - 1, NULL, OLC_E_MALFORMED, (line), (col), (msg))

static void test_header_errors(void) {
  ERR("", 1, 1, "empty file");
  fmt_check_error(NULL, 0, NULL, OLC_E_MALFORMED, 1, 1, "empty file");
  ERR("onnx_light_calibration_profile 1\n", 1, 31, "bad header");
  ERR("ONNX_light_calibration_profiles 1\n", 1, 1, "bad header");
  ERR("onnx_light_calib", 1, 17, "header cut short");
  ERR("onnx_light_calibration_profiles", 1, 32, "header cut short");
  ERR("onnx_light_calibration_profiles\n1\n", 1, 32, "bad header");
  ERR("onnx_light_calibration_profiles 0\n", 1, 33, "invalid version \"0\"");
  ERR("onnx_light_calibration_profiles x\n", 1, 33, "invalid version \"x\"");
  ERR("onnx_light_calibration_profiles 01\n", 1, 33, "invalid version");
  ERR("onnx_light_calibration_profiles -1\n", 1, 33, "invalid version");
  ERR("onnx_light_calibration_profiles 1x\n", 1, 33, "invalid version");
  ERR("onnx_light_calibration_profiles \n", 1, 33, "missing version");
  ERR("onnx_light_calibration_profiles 1", 1, 34, "header cut short");
  ERR("onnx_light_calibration_profiles 1\r\n", 1, 33, "invalid version");
  ERR("onnx_light_calibration_profiles 1 extra\n", 1, 34, "expected newline");
}

static void test_version_errors(void) {
  /* M9: a newer version names found and supported */
  static const char v2[] = "onnx_light_calibration_profiles 2\n" REC;
  fmt_check_error(v2, sizeof(v2) - 1, NULL, OLC_E_VERSION, 1, 33,
                  "unsupported file version 2 (this build supports version 1)");
  fmt_check_error("onnx_light_calibration_profiles 2", 33, NULL, OLC_E_VERSION, 1, 33, "version 2");
  fmt_check_error("onnx_light_calibration_profiles 99999999999999999999999\n", 56, NULL,
                  OLC_E_VERSION, 1, 33, "version 99999999999999999999999");
}

static void test_structure_errors(void) {
  ERR(H "garbage\n", 2, 1, "expected \"profile\", found \"garbage\"");
  ERR(H "\n", 2, 1, "expected \"profile\"");
  ERR(H REC "x", 12, 1, "expected \"profile\", found \"x\"");
  ERR(H REC "\n", 12, 1, "expected \"profile\"");
  ERR(H REC " ", 12, 1, "expected \"profile\"");
  ERR(H "profile exakt calibrated\n", 2, 9, "expected \"exact\" or \"portable\"");
  ERR(H "profile exact calibrate\n", 2, 15, "expected \"calibrated\" or \"override\"");
  ERR(H "profile exact\n", 2, 14, "expected space");
  ERR(H "profile  exact calibrated\n", 2, 9, "expected \"exact\"");
  ERR(H "profile exact calibrated x\n", 2, 25, "expected newline");
  ERR(H "profile exact calibrated\r\n", 2, 15, "expected \"calibrated\"");
  ERR(H P_EXACT "procesor \"p\"\n", 3, 1, "unknown keyword \"procesor\"");
  ERR(H P_EXACT "Backend \"b\"\n", 3, 1, "unknown keyword \"Backend\"");
  ERR(H P_EXACT "\n", 3, 1, "unknown keyword \"\"");
  ERR(H P_EXACT "end\r\n", 3, 1, "unknown keyword \"end\\x0d\"");
  ERR(H P_EXACT BACKEND "profile exact calibrated\n", 4, 1, "missing \"end\"");
  ERR(H P_EXACT BACKEND OPERATOR IMPL DIGEST PROC THREADS MEAS POLICY "end x\n", 11, 4,
      "expected newline");
  ERR(H P_EXACT "backend\"b\"\n", 3, 1, "unknown keyword");
}

static void test_cut_short(void) {
  ERR(H P_EXACT BACKEND OPERATOR IMPL DIGEST PROC THREADS MEAS POLICY, 11, 1, "record cut short");
  ERR(H P_EXACT BACKEND OPERATOR IMPL DIGEST PROC THREADS MEAS POLICY "end", 11, 4,
      "record cut short");
  ERR(H P_EXACT BACKEND "oper", 4, 5, "record cut short");
  ERR(H P_EXACT "backend \"b\"", 3, 12, "record cut short");
  ERR(H P_EXACT "backend ", 3, 9, "record cut short");
  ERR(H "profile", 2, 8, "record cut short");
  ERR(H "profile exact", 2, 14, "record cut short");
  ERR(H "profile exa", 2, 12, "record cut short");
}

static void test_quote_errors(void) {
  /* M3: at the opening quote */
  ERR(H P_EXACT "backend \"abc", 3, 9, "unterminated quote");
  ERR(H P_EXACT "backend \"abc\\", 3, 9, "unterminated quote (file ends after a backslash)");
  ERR(H P_EXACT "backend \"abc\\\"\n", 3, 9, "unterminated quote");
  ERR(H P_EXACT "backend \"abc\\\\", 3, 9, "unterminated quote");
  /* M4: bare words where a quoted value is required */
  ERR(H P_EXACT "backend b\n", 3, 9, "expected quoted value in field \"backend\"");
  ERR(H P_EXACT "backend  \"b\"\n", 3, 9, "expected quoted value in field \"backend\"");
  ERR(H P_EXACT BACKEND OPERATOR IMPL DIGEST PROC THREADS "measurement t 2.5 \"us\"\n", 9, 13,
      "expected quoted value in field \"measurement\"");
  ERR(H P_EXACT BACKEND OPERATOR IMPL DIGEST PROC THREADS "measurement \"t\" 2.5 us\n", 9, 21,
      "expected quoted value in field \"measurement\"");
  ERR(H P_EXACT BACKEND OPERATOR IMPL DIGEST PROC THREADS MEAS "policy x\n", 10, 8,
      "expected quoted value in field \"policy\"");
  ERR(H "profile portable calibrated\n" BACKEND "structure dtype \"f\"\n", 4, 11,
      "expected quoted value in field \"structure\"");
  /* M5: any byte after a closing quote other than the one separator */
  ERR(H P_EXACT "backend \"abc\"def\n", 3, 14, "unexpected byte after closing quote");
  ERR(H P_EXACT "backend \"b\"\r\n", 3, 12, "unexpected byte after closing quote");
  ERR(H P_EXACT "backend \"b\" \n", 3, 12, "unexpected byte after closing quote");
  ERR(H P_EXACT "backend \"b\" \"c\"\n", 3, 12, "unexpected byte after closing quote");
  ERR(H P_EXACT BACKEND OPERATOR IMPL DIGEST PROC THREADS "measurement \"t\"2.5 \"us\"\n", 9, 16,
      "unexpected byte after closing quote");
  ERR(H P_EXACT BACKEND OPERATOR IMPL DIGEST PROC THREADS "measurement \"t\" 2.5 \"us\"\r\n", 9, 25,
      "unexpected byte after closing quote");
  ERR(H "profile portable calibrated\n" BACKEND "structure \"a\"\"b\"\n", 4, 14,
      "unexpected byte after closing quote");
  /* the column counts from the last raw LF, also one inside a value */
  ERR(H P_EXACT "backend \"a\nb\"x\n", 4, 3, "unexpected byte after closing quote");
  /* NUL only in the policy */
  {
    static const char in[] = H P_EXACT "backend \"a\0b\"\n";
    fmt_check_error(in, sizeof(in) - 1, NULL, OLC_E_MALFORMED, 3, 11, "nul byte in backend");
  }
  {
    static const char in[] = H P_EXACT BACKEND OPERATOR IMPL "model_digest \"\\\0\"\n";
    fmt_check_error(in, sizeof(in) - 1, NULL, OLC_E_MALFORMED, 6, 16, "nul byte in model_digest");
  }
  {
    static const char in[] = H PORT "structure \"a\" \"\0\"\n";
    fmt_check_error(in, sizeof(in) - 1, NULL, OLC_E_MALFORMED, 6, 16, "nul byte in structure");
  }
}

static void test_field_errors(void) {
  static const char *const names[] = {"backend",   "operator",     "implementation", "model_digest",
                                      "processor", "thread_count", "policy"};
  static const char *const lines[] = {BACKEND, OPERATOR, IMPL, DIGEST, PROC, THREADS, POLICY};
  char in[1024];
  char msg[64];
  size_t i, k;

  /* every repeated field, at the repeat */
  for (i = 0; i < 7; i++) {
    int n = snprintf(in, sizeof(in), H P_EXACT "%s%s%s%s%s%s%s%s" END, lines[0], lines[1], lines[2],
                     lines[3], lines[4], lines[5], lines[6], lines[i]);
    snprintf(msg, sizeof(msg), "repeated field \"%s\"", names[i]);
    fmt_check_error(in, (size_t)n, NULL, OLC_E_MALFORMED, 10, 1, msg);
  }
  /* every missing field, reported at `end` */
  for (i = 0; i < 7; i++) {
    size_t o = 0;
    o += (size_t)snprintf(in + o, sizeof(in) - o, "%s", H P_EXACT);
    for (k = 0; k < 7; k++)
      if (k != i)
        o += (size_t)snprintf(in + o, sizeof(in) - o, "%s", lines[k]);
    o += (size_t)snprintf(in + o, sizeof(in) - o, "%s", END);
    snprintf(msg, sizeof(msg), "missing field \"%s\"", names[i]);
    fmt_check_error(in, o, NULL, OLC_E_MALFORMED, 9, 1, msg);
  }
  ERR(H PORT END, 6, 1, "missing field \"policy\"");
  ERR(H "profile portable calibrated\n" BACKEND OPERATOR POLICY END, 6, 1,
      "missing field \"implementation\"");
  /* fields of the other level */
  ERR(H P_EXACT BACKEND "structure \"a\" \"b\"\n", 4, 1,
      "field \"structure\" not allowed in an exact record");
  ERR(H PORT PROC, 6, 1, "field \"processor\" not allowed in a portable record");
  ERR(H PORT DIGEST, 6, 1, "field \"model_digest\" not allowed in a portable record");
  ERR(H PORT THREADS, 6, 1, "field \"thread_count\" not allowed in a portable record");
  /* a repeated structure name, at its second occurrence */
  ERR(H PORT
      "structure \"z\" \"1\"\nstructure \"dtype\" \"f16\"\nstructure \"dtype\" \"f32\"\n" POLICY
          END,
      8, 1, "repeated structure name \"dtype\"");
  /* thread counts */
  ERR(H P_EXACT "thread_count 8x\n", 3, 14, "invalid thread count \"8x\"");
  ERR(H P_EXACT "thread_count -1\n", 3, 14, "invalid thread count \"-1\"");
  ERR(H P_EXACT "thread_count +1\n", 3, 14, "invalid thread count \"+1\"");
  ERR(H P_EXACT "thread_count 08\n", 3, 14, "invalid thread count \"08\"");
  ERR(H P_EXACT "thread_count \n", 3, 14, "invalid thread count \"\"");
  ERR(H P_EXACT "thread_count \"8\"\n", 3, 14, "invalid thread count");
  ERR(H P_EXACT "thread_count 8 9\n", 3, 15, "expected newline");
  ERR(H P_EXACT "thread_count 9223372036854775808\n", 3, 14, "thread count out of range");
  ERR(H P_EXACT "thread_count 99999999999999999999999\n", 3, 14, "thread count out of range");
  /* measurement values */
  ERR(H P_EXACT "measurement \"t\" 2,5 \"us\"\n", 3, 17,
      "invalid or non-finite measurement value \"2,5\"");
  ERR(H P_EXACT "measurement \"t\" inf \"us\"\n", 3, 17, "measurement value \"inf\"");
  ERR(H P_EXACT "measurement \"t\" nan \"us\"\n", 3, 17, "measurement value \"nan\"");
  ERR(H P_EXACT "measurement \"t\" 1e999 \"us\"\n", 3, 17, "measurement value \"1e999\"");
  ERR(H P_EXACT "measurement \"t\" 0x10 \"us\"\n", 3, 17, "measurement value \"0x10\"");
  ERR(H P_EXACT "measurement \"t\"  \"us\"\n", 3, 17, "measurement value \"\"");
  ERR(H P_EXACT "measurement \"t\" 2.5\n", 3, 20, "expected space");
}

static void test_duplicates(void) {
  ERR(H REC REC, 12, 1, "duplicate record (same identity as the record on line 2)");
  ERR(H PORT "structure \"a\" \"1\"\nstructure \"b\" \"2\"\n" POLICY END PORT
             "structure \"b\" \"2\"\nstructure \"a\" \"1\"\n" POLICY END,
      10, 1, "duplicate record (same identity as the record on line 2)");
  {
    /* different origin or level: not duplicates */
    static const char ok[] = H REC "profile exact override\n" BACKEND OPERATOR IMPL DIGEST PROC
        THREADS POLICY END PORT POLICY END;
    olc_recset set = OLC_RECSET_INIT;
    olc_error err;
    OLC_ASSERT_OK(olc_format__parse(&set, (const unsigned char *)ok, sizeof(ok) - 1, NULL, &err),
                  &err);
    CU_ASSERT_EQUAL(set.count, 3);
    olc_recset__free(&set);
  }
}

static void test_limits(void) {
  olc_format_limits lim = OLC_FORMAT_LIMITS_DEFAULT;
  static const char two[] = H REC "profile exact calibrated\n" BACKEND OPERATOR IMPL DIGEST PROC
                                  "thread_count 9\n" POLICY END;
  static const char big[] = H P_EXACT "backend \"abc\"\noperator \"a\\bcd\"\n";
  olc_recset set = OLC_RECSET_INIT;
  olc_error err;

  /* M13: the file size limit comes first, before the header is looked at */
  lim.max_file_size = 10;
  fmt_check_error("garbage garbage", 15, &lim, OLC_E_LIMIT, 0, 0,
                  "file too large (15 bytes, limit 10)");
  lim.max_file_size = sizeof(two) - 1;
  OLC_ASSERT_OK(olc_format__parse(&set, (const unsigned char *)two, sizeof(two) - 1, &lim, &err),
                &err);
  CU_ASSERT_EQUAL(set.count, 2);
  olc_recset__free(&set);

  /* value size: unescaped bytes count */
  lim = (olc_format_limits)OLC_FORMAT_LIMITS_DEFAULT;
  lim.max_value_size = 3;
  fmt_check_error(big, sizeof(big) - 1, &lim, OLC_E_MALFORMED, 4, 10,
                  "value too large in field \"operator\"");

  /* fields per record (8 in REC; `end` does not count) */
  lim = (olc_format_limits)OLC_FORMAT_LIMITS_DEFAULT;
  lim.max_fields_per_record = 8;
  olc_recset__init(&set);
  OLC_ASSERT_OK(olc_format__parse(&set, (const unsigned char *)two, sizeof(two) - 1, &lim, &err),
                &err);
  olc_recset__free(&set);
  lim.max_fields_per_record = 7;
  fmt_check_error(two, sizeof(two) - 1, &lim, OLC_E_MALFORMED, 10, 1, "too many fields (limit 7)");

  /* zero fields mean the defaults */
  memset(&lim, 0, sizeof(lim));
  olc_recset__init(&set);
  OLC_ASSERT_OK(olc_format__parse(&set, (const unsigned char *)two, sizeof(two) - 1, &lim, &err),
                &err);
  CU_ASSERT_EQUAL(set.count, 2);
  olc_recset__free(&set);

  /* records */
  lim = (olc_format_limits)OLC_FORMAT_LIMITS_DEFAULT;
  lim.max_records = 1;
  fmt_check_error(two, sizeof(two) - 1, &lim, OLC_E_MALFORMED, 12, 1, "too many records (limit 1)");
}

void fmt_register_error_tests(CU_pSuite s) {
  CU_add_test(s, "header errors", test_header_errors);
  CU_add_test(s, "version errors (M9)", test_version_errors);
  CU_add_test(s, "record structure errors", test_structure_errors);
  CU_add_test(s, "record cut short", test_cut_short);
  CU_add_test(s, "quote errors (M3 M4 M5)", test_quote_errors);
  CU_add_test(s, "field errors", test_field_errors);
  CU_add_test(s, "duplicate records (M6)", test_duplicates);
  CU_add_test(s, "limits (M13)", test_limits);
}
