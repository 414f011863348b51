/*
 * tests/host/fuzz_recorded.c - the recorded-workloads parser
 * (host/misses.h) on arbitrary bytes.
 *
 * Properties checked on every input (abort() marks a finding):
 *  - parse never crashes, leaks or trips UBSan;
 *  - a rejection is OLC_E_MALFORMED with a one-line message and a line and
 *    column inside the input, or OLC_E_VERSION, or OLC_E_NOMEM;
 *  - an accepted input writes back, the written text parses again to as
 *    many records, and writing that again gives the same bytes.
 * Built as a libFuzzer target (OLC_FUZZ=ON, clang) and as a replay program
 * with any compiler (tests/fuzz/fuzz_replay.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/misses.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(const olc_error *err, olc_status st) {
  size_t n = strnlen(err->message, sizeof err->message);
  if (st == OLC_E_NOMEM)
    exit(0); /* not a finding */
  if ((st != OLC_E_MALFORMED && st != OLC_E_VERSION) || err->code != st || n == 0 ||
      n >= sizeof err->message || memchr(err->message, '\n', n) != NULL)
    abort();
  if (err->line < 1 || err->column < 1)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  olc_misses_set a = OLC_MISSES_SET_INIT, b = OLC_MISSES_SET_INIT;
  olc_buf w1 = OLC_BUF_INIT, w2 = OLC_BUF_INIT;
  olc_error err;
  olc_status st;
  olc_error_clear(&err);
  st = olc_misses__parse(&a, data, size, "fuzz", &err);
  if (st != OLC_OK) {
    check_error(&err, st);
    olc_misses__free(&a);
    return 0;
  }
  if (olc_misses__write(&w1, &a) != OLC_OK)
    exit(0);
  st = olc_misses__parse(&b, w1.data, w1.len, "fuzz", &err);
  if (st != OLC_OK || b.count != a.count)
    abort();
  if (olc_misses__write(&w2, &b) != OLC_OK)
    exit(0);
  if (w1.len != w2.len || memcmp(w1.data, w2.data, w1.len) != 0)
    abort();
  olc_buf__free(&w1);
  olc_buf__free(&w2);
  olc_misses__free(&a);
  olc_misses__free(&b);
  return 0;
}
