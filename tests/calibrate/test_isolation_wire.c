/*
 * tests/calibrate/test_isolation_wire.c - the frames between the host and
 * olc-worker (host/src/calibrate/wire.h): round trips, and readers that
 * refuse truncated or malformed payloads instead of reading past them.
 */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <string.h>

#include "calibrate/isolate.h"
#include "calibrate/timing.h"
#include "calibrate/wire.h"
#include "test_support.h"

static void test_round_trip(void) {
  olc_wire_writer w;
  olc_wire_reader r;
  uint32_t type = 0, len = 0;
  size_t blen = 0;
  const void *b;
  const char *s;
  olc_wire__begin(&w, OLC_WIRE_MEASURE);
  olc_wire__put_u32(&w, 0xdeadbeefu);
  olc_wire__put_u64(&w, UINT64_C(0x0123456789abcdef));
  olc_wire__put_f64(&w, -2.5e-7);
  olc_wire__put_str(&w, "spin_us=100");
  olc_wire__put_str(&w, NULL);
  olc_wire__put_str(&w, "");
  olc_wire__put_bytes(&w, "a\0b", 3);
  OLC_ASSERT_OK(olc_wire__finish(&w), NULL);
  CU_ASSERT_EQUAL_FATAL(olc_wire__header(w.buf.data, &type, &len), OLC_OK);
  CU_ASSERT_EQUAL(type, OLC_WIRE_MEASURE);
  CU_ASSERT_EQUAL(len, w.buf.len - OLC_WIRE_HEADER_SIZE);
  olc_wire__reader(&r, w.buf.data + OLC_WIRE_HEADER_SIZE, len);
  CU_ASSERT_EQUAL(olc_wire__get_u32(&r), 0xdeadbeefu);
  CU_ASSERT(olc_wire__get_u64(&r) == UINT64_C(0x0123456789abcdef));
  CU_ASSERT(olc_wire__get_f64(&r) == -2.5e-7);
  s = olc_wire__get_str(&r);
  CU_ASSERT_STRING_EQUAL(s != NULL ? s : "(null)", "spin_us=100");
  CU_ASSERT_PTR_NULL(olc_wire__get_str(&r));
  s = olc_wire__get_str(&r);
  CU_ASSERT(s != NULL && s[0] == 0);
  b = olc_wire__get_bytes(&r, &blen);
  CU_ASSERT(blen == 3 && b != NULL && memcmp(b, "a\0b", 3) == 0);
  CU_ASSERT(olc_wire__done(&r));
  olc_wire__writer_free(&w);
}

static void test_truncated(void) {
  olc_wire_writer w;
  size_t cut;
  olc_wire__begin(&w, OLC_WIRE_RESULT);
  olc_wire__put_u64(&w, 7);
  olc_wire__put_str(&w, "message");
  olc_wire__put_f64(&w, 1.0);
  OLC_ASSERT_OK(olc_wire__finish(&w), NULL);
  /* Every proper prefix of the payload fails somewhere, never overreads
   * (the sanitizer build checks the latter). */
  for (cut = 0; cut < w.buf.len - OLC_WIRE_HEADER_SIZE; cut++) {
    olc_wire_reader r;
    olc_wire__reader(&r, w.buf.data + OLC_WIRE_HEADER_SIZE, cut);
    (void)olc_wire__get_u64(&r);
    (void)olc_wire__get_str(&r);
    (void)olc_wire__get_f64(&r);
    CU_ASSERT(!olc_wire__done(&r));
  }
  olc_wire__writer_free(&w);
}

static void test_bad_strings(void) {
  /* Length 3 "ab\0" is fine; "a\0b" (NUL inside) and "abc" (no NUL) are not. */
  static const unsigned char good[] = {3, 0, 0, 0, 'a', 'b', 0};
  static const unsigned char inner[] = {3, 0, 0, 0, 'a', 0, 'b'};
  static const unsigned char unterminated[] = {3, 0, 0, 0, 'a', 'b', 'c'};
  static const unsigned char too_long[] = {0xff, 0xff, 0xff, 0x7f, 'a'};
  olc_wire_reader r;
  olc_wire__reader(&r, good, sizeof good);
  CU_ASSERT_PTR_NOT_NULL(olc_wire__get_str(&r));
  CU_ASSERT(olc_wire__done(&r));
  olc_wire__reader(&r, inner, sizeof inner);
  CU_ASSERT_PTR_NULL(olc_wire__get_str(&r));
  CU_ASSERT(r.bad);
  olc_wire__reader(&r, unterminated, sizeof unterminated);
  CU_ASSERT_PTR_NULL(olc_wire__get_str(&r));
  CU_ASSERT(r.bad);
  olc_wire__reader(&r, too_long, sizeof too_long);
  CU_ASSERT_PTR_NULL(olc_wire__get_str(&r));
  CU_ASSERT(r.bad);
  /* After a failure every field reads as zero. */
  CU_ASSERT_EQUAL(olc_wire__get_u32(&r), 0);
}

static void test_trailing_bytes(void) {
  static const unsigned char two[] = {1, 0, 0, 0, 2, 0, 0, 0};
  olc_wire_reader r;
  olc_wire__reader(&r, two, sizeof two);
  CU_ASSERT_EQUAL(olc_wire__get_u32(&r), 1);
  CU_ASSERT(!olc_wire__done(&r)); /* a field left over */
}

static void test_header_limit(void) {
  unsigned char h[OLC_WIRE_HEADER_SIZE] = {1, 0, 0, 0, 0, 0, 0, 0};
  uint32_t type, len;
  uint32_t big = OLC_WIRE_MAX_FRAME + 1u;
  h[4] = (unsigned char)big;
  h[5] = (unsigned char)(big >> 8);
  h[6] = (unsigned char)(big >> 16);
  h[7] = (unsigned char)(big >> 24);
  CU_ASSERT_EQUAL(olc_wire__header(h, &type, &len), OLC_E_MALFORMED);
  big = OLC_WIRE_MAX_FRAME;
  h[4] = (unsigned char)big;
  h[5] = (unsigned char)(big >> 8);
  h[6] = (unsigned char)(big >> 16);
  h[7] = (unsigned char)(big >> 24);
  CU_ASSERT_EQUAL(olc_wire__header(h, &type, &len), OLC_OK);
  CU_ASSERT_EQUAL(len, OLC_WIRE_MAX_FRAME);
}

static void test_oversized_field(void) {
  olc_wire_writer w;
  static unsigned char byte;
  olc_wire__begin(&w, OLC_WIRE_MEASURE);
  olc_wire__put_bytes(&w, &byte, (size_t)OLC_WIRE_MAX_FRAME + 1u);
  CU_ASSERT_EQUAL(olc_wire__finish(&w), OLC_E_LIMIT);
  olc_wire__writer_free(&w);
}

/* The measure parameters go out and come back through one field list
 * (wire.c), in the order the fields were always sent; a short payload is
 * refused. */
static void test_params(void) {
  olc_timing_params p = {7, 11, 0.125, 2.5, 42.75, 99, 1, 13}, q;
  olc_wire_writer w, by_hand;
  olc_wire_reader r;
  olc_wire__begin(&w, OLC_WIRE_MEASURE);
  olc_wire__put_params(&w, &p);
  OLC_ASSERT_OK(olc_wire__finish(&w), NULL);
  olc_wire__begin(&by_hand, OLC_WIRE_MEASURE);
  olc_wire__put_u32(&by_hand, 7);
  olc_wire__put_u32(&by_hand, 11);
  olc_wire__put_f64(&by_hand, 0.125);
  olc_wire__put_f64(&by_hand, 2.5);
  olc_wire__put_f64(&by_hand, 42.75);
  olc_wire__put_u32(&by_hand, 1);  /* check (wire version 6) */
  olc_wire__put_u32(&by_hand, 13); /* max_runs */
  OLC_ASSERT_OK(olc_wire__finish(&by_hand), NULL);
  CU_ASSERT_EQUAL_FATAL(w.buf.len, by_hand.buf.len);
  CU_ASSERT_EQUAL(memcmp(w.buf.data, by_hand.buf.data, w.buf.len), 0);
  memset(&q, 0, sizeof q);
  olc_wire__reader(&r, w.buf.data + OLC_WIRE_HEADER_SIZE, w.buf.len - OLC_WIRE_HEADER_SIZE);
  olc_wire__get_params(&r, &q);
  CU_ASSERT(olc_wire__done(&r));
  CU_ASSERT_EQUAL(q.warmup, 7u);
  CU_ASSERT_EQUAL(q.min_repetitions, 11u);
  CU_ASSERT(q.min_seconds == 0.125 && q.abandon_factor == 2.5 && q.best_us == 42.75);
  CU_ASSERT_EQUAL(q.check, 1u);
  CU_ASSERT(q.deadline_ns == 0u); /* sent apart, as the time left */
  CU_ASSERT_EQUAL(q.max_runs, 13u);
  olc_wire__reader(&r, w.buf.data + OLC_WIRE_HEADER_SIZE, w.buf.len - OLC_WIRE_HEADER_SIZE - 1);
  olc_wire__get_params(&r, &q);
  CU_ASSERT(r.bad);
  olc_wire__writer_free(&w);
  olc_wire__writer_free(&by_hand);
}

static void test_timeout_rule(void) {
  olc_calibration_settings s = {
      1, 5,   0.05, 30.0, 1.5, 1, 0.0,  OLC_STRATEGY_RACE,  OLC_SELECT_NEVER, NULL, 300.0,
      1, 0.0, 0.0,  0.0,  0.0, 0, NULL, OLC_CONTENTION_WAIT};
  olc_timing_params p = {1, 5, 0.05, 1.5, -1.0, 0, 0, 0};
  /* Per run: explicit wins; before any result the default; then 10 s or
   * 20 x the best median, whichever is longer. */
  CU_ASSERT_DOUBLE_EQUAL(olc_calibrate__timeout(1.5, &s, &p), 1.5, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(olc_calibrate__timeout(0, &s, &p), OLC_ISOLATE_DEFAULT_TIMEOUT, 1e-12);
  p.best_us = 100;
  CU_ASSERT_DOUBLE_EQUAL(olc_calibrate__timeout(0, &s, &p), OLC_ISOLATE_MIN_TIMEOUT, 1e-12);
  p.best_us = 2e6; /* 2 s runs */
  CU_ASSERT_DOUBLE_EQUAL(olc_calibrate__timeout(0, &s, &p), 40.0, 1e-9);
  /* A measurement is not a run: a long min_seconds changes nothing. */
  p.best_us = 100;
  p.min_seconds = 100;
  CU_ASSERT_DOUBLE_EQUAL(olc_calibrate__timeout(0, &s, &p), OLC_ISOLATE_MIN_TIMEOUT, 1e-12);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("isolation_wire", NULL, NULL);
  CU_add_test(s, "round trip", test_round_trip);
  CU_add_test(s, "truncated payloads", test_truncated);
  CU_add_test(s, "malformed strings", test_bad_strings);
  CU_add_test(s, "trailing bytes", test_trailing_bytes);
  CU_add_test(s, "frame length limit", test_header_limit);
  CU_add_test(s, "oversized field", test_oversized_field);
  CU_add_test(s, "measure parameters", test_params);
  CU_add_test(s, "timeout rule", test_timeout_rule);
  return olc_test_run(argc, argv);
}
