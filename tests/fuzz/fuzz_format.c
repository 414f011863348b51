/*
 * tests/fuzz/fuzz_format.c - the version-1 codec on arbitrary bytes (Z1).
 *
 * Properties checked on every input (abort() marks a finding):
 *  - parse never crashes, leaks or trips UBSan;
 *  - a rejection leaves the set empty and fills err consistently (the code
 *    returned, a one-line message, a position inside the input);
 *  - an accepted input writes back (the writer never refuses what the
 *    reader accepted), the written text parses again to as many records,
 *    and writing that again gives the same bytes:
 *    write(parse(write(parse(x)))) == write(parse(x));
 *  - canonical input (write(parse(x)) == x) therefore re-writes
 *    byte-identically, and the canonical text is a fixed point.
 * Built as a libFuzzer target (OLC_FUZZ=ON, clang) and as a replay program
 * with any compiler (fuzz_replay.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "record/record.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(const olc_error *err, olc_status st, size_t size) {
  size_t n = strnlen(err->message, sizeof err->message);
  if (err->code != st || n == 0 || n >= sizeof err->message ||
      memchr(err->message, '\n', n) != NULL)
    abort();
  if (st == OLC_E_MALFORMED && (err->line < 1 || err->column < 1 || err->offset > size))
    abort();
}

/* write(set) into out; the writer must accept any set the reader made. */
static void write_set(olc_buf *out, const olc_recset *set) {
  olc_status st = olc_format__write(out, set);
  if (st == OLC_E_NOMEM)
    exit(0); /* not a finding; libFuzzer's -rss_limit_mb reports it */
  if (st != OLC_OK)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  olc_recset a = OLC_RECSET_INIT, b = OLC_RECSET_INIT;
  olc_buf w1 = OLC_BUF_INIT, w2 = OLC_BUF_INIT;
  olc_error err;
  olc_status st;
  /* Small in-file limits so that the limit paths are reachable too. */
  olc_format_limits lim = {(size_t)1 << 20, 4096, 64, 4096};

  olc_recset__init(&a);
  olc_recset__init(&b);
  olc_error_clear(&err);
  st = olc_format__parse(&a, data, size, &lim, &err);
  if (st != OLC_OK) {
    if (a.count != 0)
      abort();
    if (st != OLC_E_MALFORMED && st != OLC_E_VERSION && st != OLC_E_LIMIT && st != OLC_E_NOMEM)
      abort();
    check_error(&err, st, size);
    goto out;
  }
  write_set(&w1, &a);
  olc_error_clear(&err);
  /* The default limits: a written value may be longer than its escaped
   * input form only by the header, never past 1 MiB + header. */
  st = olc_format__parse(&b, w1.data, w1.len, NULL, &err);
  if (st != OLC_OK || b.count != a.count)
    abort();
  write_set(&w2, &b);
  if (w2.len != w1.len || memcmp(w1.data, w2.data, w1.len) != 0)
    abort();
  /* A canonical input is its own serialization (checked by the two lines
   * above when x == w1; spelled out for the corpus of canonical files). */
  if (size == w1.len && memcmp(data, w1.data, size) == 0 &&
      (w2.len != size || memcmp(w2.data, data, size) != 0))
    abort();
out:
  olc_buf__free(&w1);
  olc_buf__free(&w2);
  olc_recset__free(&a);
  olc_recset__free(&b);
  return 0;
}
