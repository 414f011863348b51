/*
 * tests/format/test_format.c - the version-1 codec: golden files, round trips,
 * prefixes (M2), bit flips (M7), special bytes (M8), canonical output and
 * doubles.  Parser error cases are in test_format_errors.c.
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

#ifndef OLC_FORMAT_TESTDIR
#define OLC_FORMAT_TESTDIR "tests"
#endif

/* xorshift64*: deterministic, seed printed by the tests that use it */
static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rng_next(void) {
  uint64_t x = rng_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng_state = x;
  return x * 0x2545F4914F6CDD1Dull;
}

static unsigned char *read_test_file(const char *rel, size_t *len) {
  char path[1024];
  unsigned char *data;
  snprintf(path, sizeof(path), "%s/%s", OLC_FORMAT_TESTDIR, rel);
  data = olc_test_read_file(path, len);
  if (data == NULL)
    fprintf(stderr, "\ncannot read %s\n", path);
  return data;
}

static int str_eq(const char *a, const char *b) {
  if (a == NULL || b == NULL)
    return a == b;
  return strcmp(a, b) == 0;
}

/* Deep equality of two records, measurement values bit for bit. */
static int record_equal(const olc_record *a, const olc_record *b) {
  size_t i;
  if (a->level != b->level || a->origin != b->origin || !str_eq(a->backend, b->backend) ||
      !str_eq(a->operator_name, b->operator_name) ||
      !str_eq(a->implementation, b->implementation) || a->structure_count != b->structure_count ||
      a->measurement_count != b->measurement_count || a->policy_len != b->policy_len ||
      memcmp(a->policy, b->policy, a->policy_len) != 0)
    return 0;
  if (a->level == OLC_LEVEL_EXACT &&
      (!str_eq(a->model_digest, b->model_digest) || !str_eq(a->processor, b->processor) ||
       a->thread_count != b->thread_count))
    return 0;
  for (i = 0; i < a->structure_count; i++)
    if (!str_eq(a->structure[i].name, b->structure[i].name) ||
        !str_eq(a->structure[i].value, b->structure[i].value))
      return 0;
  for (i = 0; i < a->measurement_count; i++)
    if (!str_eq(a->measurements[i].name, b->measurements[i].name) ||
        !str_eq(a->measurements[i].unit, b->measurements[i].unit) ||
        memcmp(&a->measurements[i].value, &b->measurements[i].value, sizeof(double)) != 0)
      return 0;
  return 1;
}

/* The invariants every parsed set keeps. */
static int set_valid(const olc_recset *set) {
  size_t i, k;
  for (i = 0; i < set->count; i++) {
    const olc_record *r = &set->recs[i];
    if (r->backend == NULL || r->operator_name == NULL || r->implementation == NULL ||
        r->policy == NULL || r->policy[r->policy_len] != 0)
      return 0;
    if (r->level == OLC_LEVEL_EXACT && (r->model_digest == NULL || r->processor == NULL ||
                                        r->thread_count < 0 || r->structure_count != 0))
      return 0;
    if (r->level == OLC_LEVEL_PORTABLE && (r->model_digest != NULL || r->processor != NULL))
      return 0;
    for (k = 1; k < r->structure_count; k++)
      if (strcmp(r->structure[k - 1].name, r->structure[k].name) >= 0)
        return 0;
    for (k = 0; k < r->measurement_count; k++)
      if (!isfinite(r->measurements[k].value))
        return 0;
  }
  return 1;
}

static void test_golden_rst_example(void) {
  size_t len = 0;
  unsigned char *in = read_test_file("golden/format/rst_example.txt", &len);
  olc_recset set = OLC_RECSET_INIT;
  olc_buf out = OLC_BUF_INIT;
  olc_error err;
  const olc_record *r;

  CU_ASSERT_PTR_NOT_NULL_FATAL(in);
  OLC_ASSERT_OK(olc_format__parse(&set, in, len, NULL, &err), &err);
  CU_ASSERT_EQUAL_FATAL(set.count, 1);
  r = &set.recs[0];
  CU_ASSERT_EQUAL(r->level, OLC_LEVEL_EXACT);
  CU_ASSERT_EQUAL(r->origin, OLC_ORIGIN_CALIBRATED);
  CU_ASSERT_STRING_EQUAL(r->backend, "example_gpu");
  CU_ASSERT_STRING_EQUAL(r->operator_name, "MatMul");
  CU_ASSERT_STRING_EQUAL(r->implementation, "3");
  CU_ASSERT_EQUAL(r->thread_count, 8);
  CU_ASSERT_EQUAL_FATAL(r->measurement_count, 1);
  CU_ASSERT_STRING_EQUAL(r->measurements[0].name, "median_latency");
  CU_ASSERT_EQUAL(r->measurements[0].value, 2.5);
  CU_ASSERT_STRING_EQUAL(r->measurements[0].unit, "us");
  CU_ASSERT_EQUAL(r->policy_len, 19);
  CU_ASSERT_EQUAL(memcmp(r->policy, "opaque backend data", 19), 0);
  OLC_ASSERT_OK(olc_format__write(&out, &set), NULL);
  CU_ASSERT_EQUAL(out.len, len);
  CU_ASSERT(out.len == len && memcmp(out.data, in, len) == 0);
  olc_buf__free(&out);
  olc_recset__free(&set);
  free(in);
}

static void test_multi_roundtrip(void) {
  size_t len = 0;
  unsigned char *in = read_test_file("data/format/multi.txt", &len);
  olc_recset set = OLC_RECSET_INIT;
  olc_buf out = OLC_BUF_INIT;
  olc_error err;
  const olc_record *r;

  CU_ASSERT_PTR_NOT_NULL_FATAL(in);
  OLC_ASSERT_OK(olc_format__parse(&set, in, len, NULL, &err), &err);
  CU_ASSERT_EQUAL_FATAL(set.count, 6);
  CU_ASSERT(set_valid(&set));
  r = &set.recs[0];
  CU_ASSERT_EQUAL(r->policy_len, 17);
  CU_ASSERT_EQUAL(memcmp(r->policy, "tile=64\nsplit=\"k\"", 18), 0);
  CU_ASSERT_EQUAL(r->measurement_count, 2);
  CU_ASSERT_EQUAL(r->measurements[1].value, 13.0);
  CU_ASSERT_EQUAL(set.recs[1].policy_len, 3);
  CU_ASSERT_EQUAL(memcmp(set.recs[1].policy, "a\\b", 3), 0);
  r = &set.recs[3];
  CU_ASSERT_EQUAL(r->level, OLC_LEVEL_PORTABLE);
  CU_ASSERT_EQUAL_FATAL(r->structure_count, 2);
  CU_ASSERT_STRING_EQUAL(r->structure[1].value, "m,n,4096");
  CU_ASSERT_PTR_NULL(r->model_digest);
  CU_ASSERT_EQUAL(set.recs[4].policy_len, 0);
  CU_ASSERT_EQUAL(set.recs[4].origin, OLC_ORIGIN_OVERRIDE);
  r = &set.recs[5];
  CU_ASSERT_EQUAL(r->measurements[0].value, 1e6);
  CU_ASSERT_EQUAL(r->policy_len, 20);
  CU_ASSERT_EQUAL(memcmp(r->policy, "cr\r\ntab\tnul\0sub\x1a ff\xff", 21), 0);
  OLC_ASSERT_OK(olc_format__write(&out, &set), NULL);
  CU_ASSERT(out.len == len && memcmp(out.data, in, len) == 0);
  olc_buf__free(&out);
  olc_recset__free(&set);
  free(in);
}

/* M2: every proper prefix is rejected, except the ones that end exactly at
 * a record boundary (docs/durability.md, "Reading": those are shorter valid files), which
 * must then hold exactly the records before the cut. */
static void test_prefixes(void) {
  size_t len = 0, k, rejected = 0, boundaries = 0;
  unsigned char *in = read_test_file("data/format/multi.txt", &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(in);
  for (k = 0; k < len; k++) {
    unsigned char *cut = malloc(k ? k : 1); /* exact size: ASan sees over-reads */
    olc_recset set = OLC_RECSET_INIT;
    olc_error err;
    olc_status st;
    size_t expect = (size_t)-1, i, ends = 0;
    memcpy(cut, in, k);
    if (k == 34)
      expect = 0; /* just the header */
    for (i = 0; i + 5 <= k; i++)
      if (memcmp(in + i, "\nend\n", 5) == 0) {
        ends++;
        if (i + 5 == k)
          expect = ends;
      }
    memset(&err, 0, sizeof(err));
    st = olc_format__parse(&set, cut, k, NULL, &err);
    if (expect != (size_t)-1) {
      boundaries++;
      CU_ASSERT_EQUAL(st, OLC_OK);
      CU_ASSERT_EQUAL(set.count, expect);
    } else {
      if (st != OLC_E_MALFORMED)
        fprintf(stderr, "\nprefix of %zu bytes: status %d\n", k, (int)st);
      CU_ASSERT_EQUAL(st, OLC_E_MALFORMED);
      CU_ASSERT(err.line >= 1 && err.column >= 1 && err.offset <= k);
      CU_ASSERT(err.message[0] != 0);
      rejected += st == OLC_E_MALFORMED;
    }
    olc_recset__free(&set);
    free(cut);
  }
  /* the header and the first five records; the sixth ends at len */
  CU_ASSERT_EQUAL(boundaries, 6);
  CU_ASSERT_EQUAL(rejected, len - 6);
  free(in);
}

/* M7: every single-bit flip: no crash, and either an error with a position
 * or a valid set that writes and re-reads to the same bytes. */
static void test_bit_flips(void) {
  size_t len = 0, i, accepted = 0;
  unsigned char *in = read_test_file("data/format/multi.txt", &len);
  unsigned char *buf;
  CU_ASSERT_PTR_NOT_NULL_FATAL(in);
  buf = malloc(len);
  for (i = 0; i < len * 8; i++) {
    olc_recset set = OLC_RECSET_INIT;
    olc_error err;
    olc_status st;
    memcpy(buf, in, len);
    buf[i / 8] ^= (unsigned char)(1u << (i % 8));
    memset(&err, 0, sizeof(err));
    st = olc_format__parse(&set, buf, len, NULL, &err);
    if (st == OLC_OK) {
      olc_buf a = OLC_BUF_INIT, b = OLC_BUF_INIT;
      olc_recset again = OLC_RECSET_INIT;
      accepted++;
      CU_ASSERT(set_valid(&set));
      OLC_ASSERT_OK(olc_format__write(&a, &set), NULL);
      OLC_ASSERT_OK(olc_format__parse(&again, a.data, a.len, NULL, &err), &err);
      OLC_ASSERT_OK(olc_format__write(&b, &again), NULL);
      CU_ASSERT(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
      CU_ASSERT_EQUAL(again.count, set.count);
      olc_buf__free(&a);
      olc_buf__free(&b);
      olc_recset__free(&again);
    } else {
      CU_ASSERT(st == OLC_E_MALFORMED || st == OLC_E_VERSION);
      CU_ASSERT(err.line >= 1 && err.column >= 1 && err.offset <= len);
      CU_ASSERT_EQUAL(set.count, 0);
    }
    olc_recset__free(&set);
  }
  /* flips inside values (letters, digits) stay valid: some must be accepted */
  CU_ASSERT(accepted > 0 && accepted < len * 8);
  free(buf);
  free(in);
}

/* M8: bytes that a line-based or C-string codec would break. */
static void test_special_bytes(void) {
  static const char specials[] = "a\nb\rc\td\x1a"
                                 "e\xff"
                                 "f\"g\\h\\\"\"\\";
  unsigned char policy[300];
  olc_property props[2] = {{"dt\nype", specials}, {"\"q\"", "\\"}};
  olc_measurement ms[2] = {{specials, 0.1, specials}, {"\r\n", -1e-300, "\xff"}};
  olc_record src;
  olc_recset set = OLC_RECSET_INIT, back = OLC_RECSET_INIT;
  olc_buf out = OLC_BUF_INIT, out2 = OLC_BUF_INIT;
  olc_error err;
  size_t i;

  for (i = 0; i < 256; i++)
    policy[i] = (unsigned char)i; /* NUL included: the policy is length-based */
  memcpy(policy + 256, "\"\\\0\"", 4);
  memset(&src, 0, sizeof(src));
  src.level = OLC_LEVEL_EXACT;
  src.backend = specials;
  src.operator_name = "\"";
  src.implementation = "\\";
  src.model_digest = specials;
  src.processor = "\r\n\r\n";
  src.thread_count = INT64_MAX;
  src.measurements = ms;
  src.measurement_count = 2;
  src.policy = policy;
  src.policy_len = 260;
  OLC_ASSERT_OK(olc_recset__append_copy(&set, &src), NULL);
  src.level = OLC_LEVEL_PORTABLE;
  src.origin = OLC_ORIGIN_OVERRIDE;
  src.model_digest = NULL;
  src.processor = NULL;
  src.thread_count = 0;
  src.structure = props;
  src.structure_count = 2;
  src.policy_len = 0;
  CU_ASSERT_EQUAL(olc_properties__sort(props, 2), (size_t)-1);
  OLC_ASSERT_OK(olc_recset__append_copy(&set, &src), NULL);

  OLC_ASSERT_OK(olc_format__write(&out, &set), NULL);
  OLC_ASSERT_OK(olc_format__parse(&back, out.data, out.len, NULL, &err), &err);
  CU_ASSERT_EQUAL_FATAL(back.count, 2);
  CU_ASSERT(record_equal(&set.recs[0], &back.recs[0]));
  CU_ASSERT(record_equal(&set.recs[1], &back.recs[1]));
  OLC_ASSERT_OK(olc_format__write(&out2, &back), NULL);
  CU_ASSERT(out.len == out2.len && memcmp(out.data, out2.data, out.len) == 0);
  olc_buf__free(&out);
  olc_buf__free(&out2);
  olc_recset__free(&set);
  olc_recset__free(&back);
}

static void test_quote(void) {
  olc_buf out = OLC_BUF_INIT;
  static const unsigned char in[] = "a\"b\\c\n\r\0\xff";
  static const unsigned char want[] = "\"a\\\"b\\\\c\n\r\0\xff\"";
  OLC_ASSERT_OK(olc_format__quote(&out, in, sizeof(in) - 1), NULL);
  CU_ASSERT_EQUAL(out.len, sizeof(want) - 1);
  CU_ASSERT(out.len == sizeof(want) - 1 && memcmp(out.data, want, out.len) == 0);
  olc_buf__reset(&out);
  OLC_ASSERT_OK(olc_format__quote(&out, (const unsigned char *)"", 0), NULL);
  CU_ASSERT(out.len == 2 && memcmp(out.data, "\"\"", 2) == 0);
  olc_buf__free(&out);
}

/* Non-canonical but valid input: fields in any order, escapes of ordinary
 * bytes; the output is canonical. */
static void test_any_order(void) {
  static const char in[] = "onnx_light_calibration_profiles 1\n"
                           "profile portable override\n"
                           "policy \"p\\x\"\n"
                           "structure \"shape\" \"4\"\n"
                           "measurement \"m2\" 0.50 \"s\"\n"
                           "implementation \"1\"\n"
                           "structure \"dtype\" \"f\"\n"
                           "measurement \"m1\" +1E2 \"s\"\n"
                           "operator \"o\"\n"
                           "backend \"b\"\n"
                           "end\n"
                           "profile exact calibrated\n"
                           "thread_count 0\n"
                           "processor \"p\"\n"
                           "policy \"\"\n"
                           "model_digest \"d\"\n"
                           "implementation \"1\"\n"
                           "operator \"o\"\n"
                           "backend \"b\"\n"
                           "end\n";
  static const char want[] = "onnx_light_calibration_profiles 1\n"
                             "profile exact calibrated\n"
                             "backend \"b\"\n"
                             "operator \"o\"\n"
                             "implementation \"1\"\n"
                             "model_digest \"d\"\n"
                             "processor \"p\"\n"
                             "thread_count 0\n"
                             "policy \"\"\n"
                             "end\n"
                             "profile portable override\n"
                             "backend \"b\"\n"
                             "operator \"o\"\n"
                             "implementation \"1\"\n"
                             "structure \"dtype\" \"f\"\n"
                             "structure \"shape\" \"4\"\n"
                             "measurement \"m2\" 0.5 \"s\"\n"
                             "measurement \"m1\" 100 \"s\"\n"
                             "policy \"px\"\n"
                             "end\n";
  olc_recset set = OLC_RECSET_INIT;
  olc_buf out = OLC_BUF_INIT;
  olc_error err;
  OLC_ASSERT_OK(olc_format__parse(&set, (const unsigned char *)in, sizeof(in) - 1, NULL, &err),
                &err);
  CU_ASSERT_EQUAL_FATAL(set.count, 2);
  CU_ASSERT_EQUAL(set.recs[0].level, OLC_LEVEL_PORTABLE); /* file order kept */
  CU_ASSERT_STRING_EQUAL(set.recs[0].structure[0].name, "dtype");
  OLC_ASSERT_OK(olc_format__write(&out, &set), NULL);
  if (out.len != sizeof(want) - 1 || memcmp(out.data, want, out.len) != 0)
    fprintf(stderr, "\ngot:\n%.*s\n", (int)out.len, (const char *)out.data);
  CU_ASSERT(out.len == sizeof(want) - 1 && memcmp(out.data, want, out.len) == 0);
  olc_buf__free(&out);
  olc_recset__free(&set);
}

static void test_empty_store(void) {
  static const char hdr[] = "onnx_light_calibration_profiles 1\n";
  olc_recset set = OLC_RECSET_INIT;
  olc_buf out = OLC_BUF_INIT;
  olc_error err;
  OLC_ASSERT_OK(olc_format__parse(&set, (const unsigned char *)hdr, sizeof(hdr) - 1, NULL, &err),
                &err);
  CU_ASSERT_EQUAL(set.count, 0);
  OLC_ASSERT_OK(olc_format__write(&out, &set), NULL);
  CU_ASSERT(out.len == sizeof(hdr) - 1 && memcmp(out.data, hdr, out.len) == 0);
  olc_buf__free(&out);
  olc_recset__free(&set);
}

/* A random record with a unique identity (the index goes into it). */
static void random_record(olc_recset *set, size_t idx) {
  static const char *const backends[] = {"cpu", "example_gpu", "npu"};
  static const char *const ops[] = {"Conv", "MatMul", "Gemm", "Add"};
  char s[6][32];
  olc_property props[3];
  olc_measurement ms[3];
  unsigned char pol[16];
  olc_record r;
  size_t i, nprops = 1 + (size_t)(rng_next() % 3);
  memset(&r, 0, sizeof(r));
  r.level = (olc_level)(rng_next() % 2);
  r.origin = (olc_origin)(rng_next() % 2);
  r.backend = backends[rng_next() % 3];
  r.operator_name = ops[rng_next() % 4];
  snprintf(s[0], sizeof(s[0]), "%u", (unsigned)(rng_next() % 4));
  r.implementation = s[0];
  if (r.level == OLC_LEVEL_EXACT) {
    snprintf(s[1], sizeof(s[1]), "digest-%zu", idx);
    r.model_digest = s[1];
    r.processor = "x86_64; L2 2 MiB";
    r.thread_count = (int64_t)(rng_next() % 64);
  } else {
    for (i = 0; i < nprops; i++) {
      snprintf(s[2 + i], sizeof(s[2 + i]), "%zu", i == 0 ? idx : (size_t)(rng_next() % 9));
      props[i].name = i == 0 ? "shape" : (i == 1 ? "dtype" : "layout");
      props[i].value = s[2 + i];
    }
    (void)olc_properties__sort(props, nprops);
    r.structure = props;
    r.structure_count = nprops;
  }
  for (i = 0; i < 3; i++) {
    uint64_t bits = rng_next();
    double v;
    memcpy(&v, &bits, sizeof(v));
    ms[i].name = i == 0 ? "median" : (i == 1 ? "p90" : "bits");
    ms[i].unit = "us";
    ms[i].value = i == 0 ? (double)(rng_next() % 100000) / 100.0 : (isfinite(v) ? v : 1.5);
  }
  r.measurements = ms;
  r.measurement_count = (size_t)(rng_next() % 4);
  for (i = 0; i < sizeof(pol); i++)
    pol[i] = (unsigned char)rng_next();
  r.policy = pol;
  r.policy_len = (size_t)(rng_next() % sizeof(pol));
  CU_ASSERT_EQUAL_FATAL(olc_recset__append_copy(set, &r), OLC_OK);
}

/* Canonical output: the same set in any order gives the same bytes, and
 * the bytes read back to the same set. */
static void test_canonical_determinism(void) {
  olc_recset set = OLC_RECSET_INIT, back = OLC_RECSET_INIT;
  olc_buf a = OLC_BUF_INIT, b = OLC_BUF_INIT, c = OLC_BUF_INIT;
  olc_error err;
  size_t i, n = 500;
  printf("(seed %llx) ", (unsigned long long)rng_state);
  for (i = 0; i < n; i++)
    random_record(&set, i);
  OLC_ASSERT_OK(olc_format__write(&a, &set), NULL);
  for (i = n - 1; i > 0; i--) { /* shuffle */
    size_t j = (size_t)(rng_next() % (i + 1));
    olc_record t = set.recs[i];
    set.recs[i] = set.recs[j];
    set.recs[j] = t;
  }
  OLC_ASSERT_OK(olc_format__write(&b, &set), NULL);
  CU_ASSERT(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
  OLC_ASSERT_OK(olc_format__parse(&back, a.data, a.len, NULL, &err), &err);
  CU_ASSERT_EQUAL_FATAL(back.count, n);
  OLC_ASSERT_OK(olc_format__write(&c, &back), NULL);
  CU_ASSERT(a.len == c.len && memcmp(a.data, c.data, a.len) == 0);
  /* the parsed file is in canonical order already, record by record equal */
  olc_recset__sort(&set);
  for (i = 0; i < n; i++)
    CU_ASSERT(record_equal(&set.recs[i], &back.recs[i]));
  olc_buf__free(&a);
  olc_buf__free(&b);
  olc_buf__free(&c);
  olc_recset__free(&set);
  olc_recset__free(&back);
}

static void test_write_refuses(void) {
  olc_recset set = OLC_RECSET_INIT;
  olc_buf out = OLC_BUF_INIT;
  olc_measurement m = {"m", INFINITY, "us"};
  olc_record r;
  memset(&r, 0, sizeof(r));
  r.backend = r.operator_name = r.implementation = r.model_digest = r.processor = "x";
  r.measurements = &m;
  r.measurement_count = 1;
  OLC_ASSERT_OK(olc_recset__append_copy(&set, &r), NULL);
  /* text that the reader would reject is never written */
  CU_ASSERT_EQUAL(olc_format__write(&out, &set), OLC_E_INVALID);
  set.recs[0].measurement_count = 0;
  set.recs[0].thread_count = -1;
  olc_buf__reset(&out);
  CU_ASSERT_EQUAL(olc_format__write(&out, &set), OLC_E_INVALID);
  CU_ASSERT_EQUAL(olc_format__double(&out, NAN), OLC_E_INVALID);
  /* two records with one identity */
  set.recs[0].thread_count = 1;
  OLC_ASSERT_OK(olc_recset__append_copy(&set, &set.recs[0]), NULL);
  olc_buf__reset(&out);
  CU_ASSERT_EQUAL(olc_format__write(&out, &set), OLC_E_INVALID);
  set.recs[1].thread_count = 2;
  olc_buf__reset(&out);
  OLC_ASSERT_OK(olc_format__write(&out, &set), NULL);
  olc_recset__free(&set);
  /* a repeated structure name, sorted or not; unsorted unique is fine */
  {
    static const olc_property props[3][3] = {{{"b", "1"}, {"a", "2"}, {"b", "3"}},
                                             {{"a", "1"}, {"b", "2"}, {"b", "3"}},
                                             {{"a", "1"}, {"c", "2"}, {"b", "3"}}};
    size_t k;
    for (k = 0; k < 3; k++) {
      olc_recset one = OLC_RECSET_INIT;
      memset(&r, 0, sizeof(r));
      r.level = OLC_LEVEL_PORTABLE;
      r.backend = r.operator_name = r.implementation = "x";
      r.structure = props[k];
      r.structure_count = 3;
      OLC_ASSERT_OK(olc_recset__append_copy(&one, &r), NULL);
      olc_buf__reset(&out);
      CU_ASSERT_EQUAL(olc_format__write(&out, &one), k < 2 ? OLC_E_INVALID : OLC_OK);
      olc_recset__free(&one);
    }
    OLC_ASSERT_OK(olc_buf__terminate(&out), NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr((const char *)out.data, "structure \"a\" \"1\"\nstructure "
                                                          "\"b\" \"3\"\nstructure \"c\" \"2\"\n"));
  }
  olc_buf__free(&out);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("format", NULL, NULL);
  CU_add_test(s, "golden: the .rst example round-trips byte-exact", test_golden_rst_example);
  CU_add_test(s, "multi-record file round-trips byte-exact", test_multi_roundtrip);
  CU_add_test(s, "every proper prefix rejected (M2)", test_prefixes);
  CU_add_test(s, "every single-bit flip (M7)", test_bit_flips);
  CU_add_test(s, "special bytes round-trip (M8)", test_special_bytes);
  CU_add_test(s, "quote", test_quote);
  CU_add_test(s, "fields in any order, canonical output", test_any_order);
  CU_add_test(s, "header-only file", test_empty_store);
  CU_add_test(s, "canonical output is deterministic", test_canonical_determinism);
  CU_add_test(s, "writer refuses unreadable values", test_write_refuses);
  s = CU_add_suite("format_errors", NULL, NULL);
  fmt_register_error_tests(s);
  s = CU_add_suite("format_doubles", NULL, NULL);
  fmt_register_double_tests(s);
  return olc_test_run(argc, argv);
}
