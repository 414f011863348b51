/*
 * format/number.c - locale-independent doubles: the shortest text that reads
 * back bit-identically, and a strict reader.
 *
 * Output form (documented in tests): the shortest digit string that round
 * trips, rendered in fixed or scientific notation, whichever is shorter
 * (fixed on a tie), like C++17 std::to_chars: 2.5 -> "2.5", 0.1 -> "0.1",
 * 100 -> "100", 1e6 -> "1e+06", 1e-7 -> "1e-07", 1e100 -> "1e+100",
 * -0.0 -> "-0".  The exponent has at least two digits, as printf writes it.
 */
#include "format/format.h"
#include "format/format_int.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/platform.h"

static olc_util_once number_once = OLC_UTIL_ONCE_INIT;

#ifdef _WIN32
#include <locale.h>
typedef _locale_t number_locale;
static number_locale number_c_locale_obj;
static void number_init(void) { number_c_locale_obj = _create_locale(LC_ALL, "C"); }
static double number_strtod(const char *s, char **end, number_locale loc) {
  return _strtod_l(s, end, loc);
}
static int number_snprintf_e(char *buf, size_t size, int prec, double v, number_locale loc) {
  return _snprintf_l(buf, size, "%.*e", loc, prec, v);
}
#else
#include <locale.h>
typedef locale_t number_locale;
static number_locale number_c_locale_obj;
static void number_init(void) { number_c_locale_obj = newlocale(LC_ALL_MASK, "C", (locale_t)0); }
static double number_strtod(const char *s, char **end, number_locale loc) {
  return strtod_l(s, end, loc);
}
/* uselocale is per thread, so this is safe while other threads run under
 * whatever locale the host application chose. */
static int number_snprintf_e(char *buf, size_t size, int prec, double v, number_locale loc) {
  locale_t old = uselocale(loc);
  int n = snprintf(buf, size, "%.*e", prec, v);
  uselocale(old);
  return n;
}
#endif

static number_locale number_c_locale(void) {
  olc_util__once(&number_once, number_init);
  return number_c_locale_obj;
}

/* Bit tests instead of isfinite/signbit: some C libraries' macros convert
 * through float and warn under -Wconversion. */
static int number_finite(double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof(bits));
  return ((bits >> 52) & 0x7ff) != 0x7ff;
}

static int number_negative(double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof(bits));
  return (int)(bits >> 63);
}

static const double number_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Decimal digits of m (no sign); returns the count. */
static size_t number_utoa(char *out, uint64_t m) {
  char tmp[24];
  size_t n = 0, i;
  do {
    tmp[n++] = (char)('0' + (int)(m % 10));
    m /= 10;
  } while (m != 0);
  for (i = 0; i < n; i++)
    out[i] = tmp[n - 1 - i];
  return n;
}

/*
 * Renders digits d[0..nd) (no leading zero unless the value is 0, no
 * trailing zeros) times 10^exp10, where exp10 is the exponent of d[0]
 * (scientific form d0.d1d2...e<exp10>).
 */
static size_t number_render(char *out, int neg, const char *d, size_t nd, int exp10) {
  char fix[64], sci[40];
  size_t nf = 0, ns = 0, i;
  int e = exp10;

  /* scientific */
  sci[ns++] = d[0];
  if (nd > 1) {
    sci[ns++] = '.';
    memcpy(sci + ns, d + 1, nd - 1);
    ns += nd - 1;
  }
  sci[ns++] = 'e';
  sci[ns++] = e < 0 ? '-' : '+';
  if (e < 0)
    e = -e;
  if (e < 10)
    sci[ns++] = '0';
  ns += number_utoa(sci + ns, (uint64_t)e);

  /* fixed, only when it can be the shorter one */
  if (exp10 >= 0 && (size_t)exp10 < 40) {
    if (nd <= (size_t)exp10 + 1) {
      memcpy(fix, d, nd);
      nf = nd;
      for (i = nd; i < (size_t)exp10 + 1; i++)
        fix[nf++] = '0';
    } else {
      memcpy(fix, d, (size_t)exp10 + 1);
      nf = (size_t)exp10 + 1;
      fix[nf++] = '.';
      memcpy(fix + nf, d + exp10 + 1, nd - (size_t)exp10 - 1);
      nf += nd - (size_t)exp10 - 1;
    }
  } else if (exp10 < 0 && exp10 > -20) {
    fix[nf++] = '0';
    fix[nf++] = '.';
    for (i = 0; i < (size_t)(-exp10 - 1); i++)
      fix[nf++] = '0';
    memcpy(fix + nf, d, nd);
    nf += nd;
  }
  i = 0;
  if (neg)
    out[i++] = '-';
  if (nf != 0 && nf <= ns) {
    memcpy(out + i, fix, nf);
    return i + nf;
  }
  memcpy(out + i, sci, ns);
  return i + ns;
}

/* Fast path: |v| = m / 10^k exactly-rounded with m < 2^50 and k <= 17, the
 * smallest such k.  Then m's digits are the shortest that round trip (a
 * shorter string would have fewer fractional digits and be found at a
 * smaller k).  m < 2^50 keeps round(v * 10^k) exact enough to find m. */
static int number_fast(char *d, size_t *nd, int *exp10, double a) {
  int k;
  for (k = 0; k <= 17; k++) {
    double scaled = a * number_pow10[k];
    double m;
    uint64_t mi;
    size_t n;
    if (scaled >= 1125899906842624.0) /* 2^50 */
      return 0;
    m = floor(scaled + 0.5);
    if (m / number_pow10[k] != a)
      continue;
    mi = (uint64_t)m;
    if (mi == 0)
      return 0;
    n = number_utoa(d, mi);
    *exp10 = (int)n - 1 - k;
    while (n > 1 && d[n - 1] == '0')
      n--;
    *nd = n;
    return 1;
  }
  return 0;
}

/* Splits printf's "d[.ddd]e[+-]xx" into its digits and exponent. */
static int number_split(const char *buf, char *d, size_t *nd, int *exp10) {
  const char *p = buf;
  size_t n = 0;
  int e = 0, eneg = 0;
  for (; *p != 0 && *p != 'e'; p++)
    if (*p >= '0' && *p <= '9' && n < 40)
      d[n++] = *p;
  if (*p != 'e' || n == 0 || d[0] == '0')
    return 0;
  p++;
  if (*p == '-' || *p == '+')
    eneg = *p++ == '-';
  for (; *p >= '0' && *p <= '9' && e < 10000; p++)
    e = e * 10 + (*p - '0');
  *nd = n;
  *exp10 = eneg ? -e : e;
  return 1;
}

/* p significant digits of a as printf rounds them (exactly). */
static int number_digits(char *d, size_t *nd, int *exp10, int p, double a, number_locale loc) {
  char buf[48];
  int len = number_snprintf_e(buf, sizeof(buf), p - 1, a, loc);
  if (len <= 0 || (size_t)len >= sizeof(buf))
    return 0;
  return number_split(buf, d, nd, exp10);
}

/* Whether digits d[0..n) times 10^exp10 (scientific) read back as a. */
static int number_reads_back(const char *d, size_t n, int exp10, double a, number_locale loc) {
  char buf[64], *end = NULL;
  int len = 0;
  buf[len++] = d[0];
  buf[len++] = '.';
  memcpy(buf + len, d + 1, n - 1);
  len += (int)n - 1;
  len += snprintf(buf + len, sizeof(buf) - (size_t)len, "e%d", exp10);
  return number_strtod(buf, &end, loc) == a;
}

/* Rounds the 17 digits d17 to p digits half-up, into out.  This equals
 * rounding the exact value unless the dropped digits are exactly 5, 50,
 * ... (then the 17-digit text itself may have been rounded across the
 * midpoint): returns 0 for that case, and the caller asks printf. */
static int number_round17(char *out, int *exp10, const char *d17, int e17, int p) {
  int i, up;
  if (d17[p] == '5') {
    for (i = p + 1; i < 17 && d17[i] == '0'; i++) {
    }
    if (i == 17)
      return 0;
  }
  up = d17[p] >= '5';
  memcpy(out, d17, (size_t)p);
  *exp10 = e17;
  for (i = p - 1; up && i >= 0; i--) {
    if (out[i] == '9') {
      out[i] = '0';
    } else {
      out[i]++;
      up = 0;
    }
  }
  if (up) { /* 99..9 rounded up to 100..0 */
    out[0] = '1';
    *exp10 = e17 + 1;
  }
  return 1;
}

/*
 * General path.  The fewest of 1..17 significant digits that read back
 * bit-identically (more correctly rounded digits never read back worse, so
 * the predicate is monotone).  Values that reach this path mostly need 16
 * or 17 digits: one printf gives the 17, the 16- and 15-digit candidates
 * are rounded from them, and strtod checks each; only ties and the rare
 * shorter values cost more printf calls.
 */
static int number_slow(char *d, size_t *nd, int *exp10, double a, number_locale loc) {
  char d17[40], c[40];
  size_t n17 = 0, n;
  int e17 = 0, ec = 0, p, lo, hi;

  if (!number_digits(d17, &n17, &e17, 17, a, loc) || n17 != 17)
    return 0;
  memcpy(d, d17, 17);
  *nd = 17;
  *exp10 = e17;
  for (p = 16; p >= 15; p--) {
    if (!number_round17(c, &ec, d17, e17, p)) {
      if (!number_digits(c, &n, &ec, p, a, loc) || n != (size_t)p)
        return 0;
    }
    if (!number_reads_back(c, (size_t)p, ec, a, loc))
      break;
    memcpy(d, c, (size_t)p);
    *nd = (size_t)p;
    *exp10 = ec;
  }
  if (*nd == 15) { /* shorter still: binary search 1..14 with printf */
    lo = 1;
    hi = 14;
    while (lo <= hi) {
      int mid = (lo + hi) / 2;
      if (!number_digits(c, &n, &ec, mid, a, loc) || n != (size_t)mid)
        return 0;
      if (number_reads_back(c, n, ec, a, loc)) {
        memcpy(d, c, n);
        *nd = n;
        *exp10 = ec;
        hi = mid - 1;
      } else {
        lo = mid + 1;
      }
    }
  }
  n = *nd;
  while (n > 1 && d[n - 1] == '0')
    n--;
  *nd = n;
  return 1;
}

size_t olc_format__double_text(char *buf, double value) {
  char d[40];
  size_t nd = 0;
  int exp10 = 0;
  int neg = number_negative(value);
  double a = fabs(value);

  if (!number_finite(value))
    return 0;
  if (a == 0.0) {
    d[0] = '0';
    return number_render(buf, neg, d, 1, 0);
  }
#if FLT_EVAL_METHOD == 0
  if (number_fast(d, &nd, &exp10, a))
    return number_render(buf, neg, d, nd, exp10);
#endif
  {
    number_locale loc = number_c_locale();
    if (!loc || !number_slow(d, &nd, &exp10, a, loc))
      return 0;
  }
  return number_render(buf, neg, d, nd, exp10);
}

olc_status olc_format__double(olc_buf *out, double value) {
  char buf[OLC_FORMAT_DOUBLE_MAX];
  size_t n;
  if (!number_finite(value))
    return OLC_E_INVALID;
  n = olc_format__double_text(buf, value);
  if (n == 0)
    return OLC_E_NOMEM; /* the C locale object could not be created */
  return olc_buf__append(out, buf, n);
}

olc_status olc_format__parse_double(double *out, const char *s, size_t len) {
  char buf[OLC_FORMAT_NUMBER_MAX + 1];
  size_t i, digits = 0, frac = 0;
  int seen_dot = 0, simple = 1;
  uint64_t m = 0;
  char *end = NULL;
  double v;
  number_locale loc;

  if (len == 0 || len > OLC_FORMAT_NUMBER_MAX)
    return OLC_E_MALFORMED;
  for (i = 0; i < len; i++) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      if (digits < 15)
        m = m * 10 + (uint64_t)(c - '0');
      digits++;
      if (seen_dot)
        frac++;
    } else if (c == '.') {
      if (seen_dot || digits == 0)
        simple = 0;
      seen_dot = 1;
    } else if (c == '-' && i == 0) {
    } else if (c == '-' || c == '+' || c == 'e' || c == 'E') {
      simple = 0;
    } else {
      return OLC_E_MALFORMED;
    }
  }
#if FLT_EVAL_METHOD == 0
  /* -?digits[.digits] with at most 15 digits: m and 10^frac are exact, so
   * one correctly rounded division gives the correctly rounded value. */
  if (simple && digits > 0 && digits <= 15 && !(seen_dot && frac == 0)) {
    v = (double)m / number_pow10[frac];
    *out = s[0] == '-' ? -v : v;
    return OLC_OK;
  }
#endif
  loc = number_c_locale();
  if (!loc)
    return OLC_E_NOMEM;
  memcpy(buf, s, len);
  buf[len] = 0;
  v = number_strtod(buf, &end, loc);
  if (end != buf + len || !number_finite(v))
    return OLC_E_MALFORMED;
  *out = v;
  return OLC_OK;
}
