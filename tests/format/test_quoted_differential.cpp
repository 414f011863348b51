/*
 * tests/format/test_quoted_differential.cpp - Z2: the version-1
 * codec's quoted values against std::quoted ('"' delimiter, '\\' escape),
 * which the format follows by definition (format.h).
 *
 * Encoding: for N random byte strings, olc_format__quote must write exactly
 * what `os << std::quoted(s)` writes, and our reader must give s back.
 * Decoding: for N random inputs starting with '"', olc_format__quoted (the
 * parser's value reader) against `is >> std::quoted(v)`.  Our reader is
 * strict where std::quoted is permissive: an input without its closing
 * quote is read partially by std::quoted (the stream fails at end of file)
 * but rejected by us.  So: when std::quoted's read ended on a closing quote
 * (the stream is still good), we must accept with the same value and the
 * same consumed length (tellg); otherwise we must reject.
 *
 * Seed: $OLC_DIFF_SEED (printed) or a fixed one; count: $OLC_DIFF_COUNT.
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "format/format.h"
#include "format/parse_int.h"
#include "util/buf.h"
}

namespace {

std::mt19937_64 rng;

/* Bytes that matter to the codec, often; any byte sometimes. */
unsigned char random_byte() {
  static const unsigned char special[] = {'"',  '\\', 'a', 'z',  ' ', '\n',
                                          '\r', '\t', 0,   0xff, 0x80};
  if (rng() % 3 == 0)
    return static_cast<unsigned char>(rng() & 0xff);
  return special[rng() % sizeof special];
}

std::string random_string(size_t max_len) {
  size_t n = static_cast<size_t>(rng() % (max_len + 1));
  std::string s;
  for (size_t i = 0; i < n; i++)
    s.push_back(static_cast<char>(random_byte()));
  return s;
}

std::string show(const std::string &s) {
  std::string o;
  char hex[8];
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      o.push_back(static_cast<char>(c));
    } else {
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      o += hex;
    }
  }
  return o;
}

/* Our reader on input; returns the status, the value and the consumed
 * length. */
olc_status our_unquote(const std::string &input, std::string *value, size_t *consumed) {
  std::vector<char> pool(input.size() + 1);
  olc_format_parser ps;
  olc_error err;
  const char *out = nullptr;
  size_t out_len = 0;
  std::memset(&ps, 0, sizeof ps);
  olc_error_clear(&err);
  /* An exact-size copy, so that ASan sees a read past the end. */
  std::vector<unsigned char> bytes(input.begin(), input.end());
  const unsigned char *base = bytes.empty() ? nullptr : bytes.data();
  ps.base = base;
  ps.p = base;
  ps.end = base + bytes.size();
  ps.lim.max_file_size = SIZE_MAX;
  ps.lim.max_value_size = SIZE_MAX;
  ps.lim.max_fields_per_record = SIZE_MAX;
  ps.lim.max_records = SIZE_MAX;
  ps.err = &err;
  ps.pool = pool.data();
  olc_status st = olc_format__quoted(&ps, PF_POLICY, 1, &out, &out_len);
  if (st == OLC_OK) {
    value->assign(out, out_len);
    *consumed = static_cast<size_t>(ps.p - base);
  }
  return st;
}

int check_encoding(size_t count) {
  int bad = 0;
  for (size_t i = 0; i < count; i++) {
    std::string s = random_string(24);
    std::ostringstream os;
    os << std::quoted(s);
    olc_buf buf = OLC_BUF_INIT;
    if (olc_format__quote(&buf, reinterpret_cast<const unsigned char *>(s.data()), s.size()) !=
        OLC_OK) {
      std::fprintf(stderr, "quote failed on \"%s\"\n", show(s).c_str());
      return 1;
    }
    std::string ours(reinterpret_cast<const char *>(buf.data), buf.len);
    olc_buf__free(&buf);
    std::string back;
    size_t consumed = 0;
    if (ours != os.str() || our_unquote(ours, &back, &consumed) != OLC_OK || back != s ||
        consumed != ours.size()) {
      if (bad++ < 10)
        std::fprintf(stderr, "encoding mismatch on \"%s\": ours \"%s\", std \"%s\"\n",
                     show(s).c_str(), show(ours).c_str(), show(os.str()).c_str());
    }
  }
  return bad;
}

int check_decoding(size_t count, size_t *closed_count) {
  int bad = 0;
  for (size_t i = 0; i < count; i++) {
    std::string input = "\"" + random_string(24);
    std::istringstream is(input);
    std::string theirs;
    is >> std::quoted(theirs);
    bool closed = is.good();
    size_t their_consumed = closed ? static_cast<size_t>(is.tellg()) : 0;
    std::string ours;
    size_t our_consumed = 0;
    olc_status st = our_unquote(input, &ours, &our_consumed);
    bool ok;
    if (closed) {
      ++*closed_count;
      ok = st == OLC_OK && ours == theirs && our_consumed == their_consumed;
    } else {
      ok = st == OLC_E_MALFORMED;
    }
    if (!ok && bad++ < 10)
      std::fprintf(stderr,
                   "decoding mismatch on \"%s\": std %s \"%s\" (%zu bytes), ours %d \"%s\" (%zu "
                   "bytes)\n",
                   show(input).c_str(), closed ? "closed" : "unterminated", show(theirs).c_str(),
                   their_consumed, static_cast<int>(st), show(ours).c_str(), our_consumed);
  }
  return bad;
}

} // namespace

int main() {
  unsigned long long seed = 20261201ull;
  size_t count = 200000, closed = 0;
  if (const char *s = std::getenv("OLC_DIFF_SEED"))
    seed = std::strtoull(s, nullptr, 10);
  if (const char *c = std::getenv("OLC_DIFF_COUNT"))
    count = static_cast<size_t>(std::strtoull(c, nullptr, 10));
  std::printf("seed %llu (OLC_DIFF_SEED), %zu strings each way\n", seed, count);
  rng.seed(seed);
  int enc = check_encoding(count);
  int dec = check_decoding(count, &closed);
  std::printf("encoding: %zu strings, %d mismatches\n", count, enc);
  std::printf("decoding: %zu inputs (%zu closed, %zu unterminated), %d mismatches\n", count, closed,
              count - closed, dec);
  /* The generator must reach both sides of the decoding comparison. */
  if (closed < count / 10 || count - closed < count / 10) {
    std::printf("decoding inputs too one-sided\n");
    return 1;
  }
  return enc == 0 && dec == 0 ? 0 : 1;
}
