/*
 * format/parse.c - the strict version-1 reader (docs/durability.md, "Reading"; file-format.md).
 *
 * One pass over the bytes.  Quoted values are found with memchr and copied
 * once into a string pool taken from the set's arena: a quoted value of n
 * bytes occupies at least n + 2 file bytes and needs n + 1 pool bytes, so a
 * pool as large as the file always suffices and no value allocates.  Line
 * and column are computed from the byte offset only when an error is
 * reported (parse_error.c), so the happy path counts nothing.
 */
#include "format/format.h"
#include "format/format_int.h"
#include "format/parse_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

static olc_status parse_cut(olc_format_parser *ps) {
  return olc_format__fail(ps, ps->end, OLC_E_MALFORMED, "record cut short");
}

#ifdef OLC_TEST_HOOKS
/*
 * Negative controls (docs/durability.md, negative controls), test builds only:
 * OLC_TEST_FORMAT_RELAX=bare accepts a bare word where a quoted value is
 * required, =partial keeps an unterminated value up to the end of the input,
 * as std::quoted's permissive input would.  ctest runs the format tests with
 * each and requires them to FAIL.  Read per value (no cached state to race).
 */
static int relaxed(const char *what) {
  const char *v = getenv("OLC_TEST_FORMAT_RELAX");
  return v != NULL && strstr(v, what) != NULL;
}
#else
#define relaxed(what) 0
#endif

/* Length of the bare word at ps->p (up to a space, LF or the end). */
static size_t parse_word(const olc_format_parser *ps) {
  const unsigned char *q = ps->p;
  while (q < ps->end && *q != ' ' && *q != '\n')
    q++;
  return (size_t)(q - ps->p);
}

/* After a bare word: the separator or LF must follow. */
static olc_status parse_sep(olc_format_parser *ps, unsigned char want) {
  if (ps->p >= ps->end)
    return parse_cut(ps);
  if (*ps->p != want)
    return olc_format__fail(ps, ps->p, OLC_E_MALFORMED,
                            want == '\n' ? "expected newline" : "expected space");
  ps->p++;
  return OLC_OK;
}

/* After a closing quote: exactly the separator or LF, nothing else. */
static olc_status parse_after_quote(olc_format_parser *ps, unsigned char want) {
  if (ps->p >= ps->end)
    return parse_cut(ps);
  if (*ps->p != want)
    return olc_format__fail(ps, ps->p, OLC_E_MALFORMED, "unexpected byte after closing quote");
  ps->p++;
  return OLC_OK;
}

/* The value's text lands in the pool; the caller's outputs point at it. */
static olc_status quoted_done(olc_format_parser *ps, char *dst, size_t n, const unsigned char *next,
                              const char **out, size_t *out_len) {
  dst[n] = 0;
  ps->pool = dst + n + 1;
  ps->p = next;
  *out = dst;
  if (out_len != NULL)
    *out_len = n;
  return OLC_OK;
}

/*
 * Copies the quoted text after the opening quote q into d, undoing the
 * escapes; *close receives the closing quote (the input's last byte when a
 * relaxed parse lets the value run to the end) and *len the copied length.
 */
static olc_status quoted_unescape(olc_format_parser *ps, const unsigned char *q, char *d,
                                  const unsigned char **close, size_t *len) {
  const unsigned char *end = ps->end, *s = q + 1;
  const unsigned char *quote = memchr(s, '"', (size_t)(end - s));
  char *start = d;
  for (;;) {
    const unsigned char *lim = quote != NULL ? quote : end;
    const unsigned char *bs = memchr(s, '\\', (size_t)(lim - s));
    if (bs == NULL) {
      if (quote == NULL && !relaxed("partial"))
        return olc_format__fail(ps, q, OLC_E_MALFORMED, "unterminated quote");
      memcpy(d, s, (size_t)(lim - s));
      d += lim - s;
      *close = quote != NULL ? quote : end - 1; /* partial: the value runs to the end */
      *len = (size_t)(d - start);
      return OLC_OK;
    }
    memcpy(d, s, (size_t)(bs - s));
    d += bs - s;
    if (bs + 1 >= end)
      return olc_format__fail(ps, q, OLC_E_MALFORMED,
                              "unterminated quote (file ends after a backslash)");
    *d++ = (char)bs[1]; /* std::quoted: a backslash escapes any byte */
    s = bs + 2;
    if (bs + 1 == quote)
      quote = memchr(s, '"', (size_t)(end - s));
  }
}

olc_status olc_format__quoted(olc_format_parser *ps, int field, int allow_nul, const char **out,
                              size_t *out_len) {
  const unsigned char *q = ps->p, *close = NULL;
  char *dst = ps->pool;
  size_t n = 0;
  olc_status st;

  if (q >= ps->end)
    return parse_cut(ps);
  if (*q != '"' && relaxed("bare")) {
    n = parse_word(ps);
    memcpy(dst, q, n);
    return quoted_done(ps, dst, n, q + n, out, out_len);
  }
  if (*q != '"')
    return olc_format__fail(ps, q, OLC_E_MALFORMED, "expected quoted value in field \"%s\"",
                            olc_format__field_name(field));
  st = quoted_unescape(ps, q, dst, &close, &n);
  if (st != OLC_OK)
    return st;
  if (n > ps->lim.max_value_size)
    return olc_format__fail(ps, q, OLC_E_MALFORMED, "value too large in field \"%s\"",
                            olc_format__field_name(field));
  if (!allow_nul) {
    const unsigned char *nul = memchr(q + 1, 0, (size_t)(close - q - 1));
    if (nul != NULL)
      return olc_format__fail(ps, nul, OLC_E_MALFORMED, "nul byte in %s",
                              olc_format__field_name(field));
  }
  return quoted_done(ps, dst, n, close + 1, out, out_len);
}

/* A quoted value followed by want. */
static olc_status parse_qfield(olc_format_parser *ps, int field, const char **out,
                               unsigned char want) {
  olc_status st = olc_format__quoted(ps, field, 0, out, NULL);
  if (st == OLC_OK)
    st = parse_after_quote(ps, want);
  return st;
}

static olc_status parse_thread_count(olc_format_parser *ps, int64_t *out) {
  const unsigned char *w = ps->p;
  size_t n = parse_word(ps), i;
  char shown[160];
  int64_t v = 0;
#ifdef OLC_TEST_HOOKS
  if (relaxed("strtol")) {
    /* Negative control for Z1: the prototype's bug, strtoll on file bytes
     * that are not NUL-terminated (ASan must catch it in the replay). */
    char *e = NULL;
    long long r = strtoll((const char *)w, &e, 10);
    ps->p = (const unsigned char *)e;
    *out = r;
    return parse_sep(ps, '\n');
  }
#endif
  if (n == 0 || (n > 1 && w[0] == '0'))
    goto bad;
  for (i = 0; i < n; i++) {
    int dgt;
    if (w[i] < '0' || w[i] > '9')
      goto bad;
    dgt = w[i] - '0';
    if (v > (INT64_MAX - dgt) / 10) {
      olc_format__show(shown, sizeof(shown), w, n);
      return olc_format__fail(ps, w, OLC_E_MALFORMED, "thread count out of range \"%s\"", shown);
    }
    v = v * 10 + dgt;
  }
  ps->p += n;
  *out = v;
  return parse_sep(ps, '\n');
bad:
  olc_format__show(shown, sizeof(shown), w, n);
  return olc_format__fail(ps, w, OLC_E_MALFORMED, "invalid thread count \"%s\"", shown);
}

static olc_status parse_measurement(olc_format_parser *ps) {
  olc_measurement m;
  const unsigned char *w;
  size_t n;
  olc_status st = parse_qfield(ps, PF_MEASUREMENT, &m.name, ' ');
  if (st != OLC_OK)
    return st;
  w = ps->p;
  n = parse_word(ps);
  if (olc_format__parse_double(&m.value, (const char *)w, n) != OLC_OK) {
    char shown[160];
    olc_format__show(shown, sizeof(shown), w, n);
    return olc_format__fail(ps, w, OLC_E_MALFORMED,
                            "invalid or non-finite measurement value \"%s\"", shown);
  }
  ps->p += n;
  st = parse_sep(ps, ' ');
  if (st == OLC_OK)
    st = parse_qfield(ps, PF_MEASUREMENT, &m.unit, '\n');
  if (st != OLC_OK)
    return st;
  if (ps->ms_count == ps->ms_cap) {
    size_t ncap = ps->ms_cap ? ps->ms_cap * 2 : 8;
    olc_measurement *nm = realloc(ps->ms, ncap * sizeof(*nm));
    if (nm == NULL)
      return OLC_E_NOMEM;
    ps->ms = nm;
    ps->ms_cap = ncap;
  }
  ps->ms[ps->ms_count++] = m;
  return OLC_OK;
}

static olc_status parse_structure(olc_format_parser *ps, const unsigned char *kw) {
  olc_format_prop pp;
  olc_status st = parse_qfield(ps, PF_STRUCTURE, &pp.p.name, ' ');
  if (st == OLC_OK)
    st = parse_qfield(ps, PF_STRUCTURE, &pp.p.value, '\n');
  if (st != OLC_OK)
    return st;
  pp.at = kw;
  if (ps->props_count == ps->props_cap) {
    size_t ncap = ps->props_cap ? ps->props_cap * 2 : 8;
    olc_format_prop *np = realloc(ps->props, ncap * sizeof(*np));
    if (np == NULL)
      return OLC_E_NOMEM;
    ps->props = np;
    ps->props_cap = ncap;
  }
  ps->props[ps->props_count++] = pp;
  return OLC_OK;
}

/* Which keyword: a switch on the length, then one memcmp. */
static int parse_keyword(const unsigned char *w, size_t n) {
#define PARSE_KW(s, id)                                                                            \
  if (memcmp(w, s, sizeof(s) - 1) == 0)                                                            \
  return id
  switch (n) {
  case 3:
    PARSE_KW("end", PF_END);
    break;
  case 6:
    PARSE_KW("policy", PF_POLICY);
    break;
  case 7:
    PARSE_KW("backend", PF_BACKEND);
    PARSE_KW("profile", PF_PROFILE);
    break;
  case 8:
    PARSE_KW("operator", PF_OPERATOR);
    break;
  case 9:
    PARSE_KW("processor", PF_PROCESSOR);
    PARSE_KW("structure", PF_STRUCTURE);
    break;
  case 11:
    PARSE_KW("measurement", PF_MEASUREMENT);
    break;
  case 12:
    PARSE_KW("model_digest", PF_MODEL_DIGEST);
    PARSE_KW("thread_count", PF_THREAD_COUNT);
    break;
  case 14:
    PARSE_KW("implementation", PF_IMPLEMENTATION);
    break;
  default:
    break;
  }
#undef PARSE_KW
  return PF_UNKNOWN;
}

/* One field line of a record; *done is set at `end`. */
/* The value of field f, after its keyword kw and the separating space. */
static olc_status parse_value(olc_format_parser *ps, olc_record *r, int f,
                              const unsigned char *kw) {
  olc_status st;
  switch (f) {
  case PF_BACKEND:
    return parse_qfield(ps, f, &r->backend, '\n');
  case PF_OPERATOR:
    return parse_qfield(ps, f, &r->operator_name, '\n');
  case PF_IMPLEMENTATION:
    return parse_qfield(ps, f, &r->implementation, '\n');
  case PF_MODEL_DIGEST:
    return parse_qfield(ps, f, &r->model_digest, '\n');
  case PF_PROCESSOR:
    return parse_qfield(ps, f, &r->processor, '\n');
  case PF_THREAD_COUNT:
    return parse_thread_count(ps, &r->thread_count);
  case PF_STRUCTURE:
    return parse_structure(ps, kw);
  case PF_MEASUREMENT:
    return parse_measurement(ps);
  default: { /* PF_POLICY: any byte, NUL included */
    const char *pol = NULL;
    st = olc_format__quoted(ps, f, 1, &pol, &r->policy_len);
    r->policy = (const unsigned char *)pol;
    return st == OLC_OK ? parse_after_quote(ps, '\n') : st;
  }
  }
}

static olc_status parse_field(olc_format_parser *ps, olc_record *r, unsigned *seen, size_t *fields,
                              const unsigned char **end_kw, int *done) {
  const unsigned char *kw = ps->p;
  size_t n = parse_word(ps);
  int f = parse_keyword(kw, n);
  unsigned bit;
  olc_status st;

  if (f == PF_UNKNOWN) {
    char shown[160];
    if (kw + n >= ps->end)
      return parse_cut(ps);
    olc_format__show(shown, sizeof(shown), kw, n);
    return olc_format__fail(ps, kw, OLC_E_MALFORMED, "unknown keyword \"%s\"", shown);
  }
  if (f == PF_PROFILE)
    return olc_format__fail(ps, kw, OLC_E_MALFORMED,
                            "\"profile\" inside a record (missing \"end\")");
  ps->p += n;
  if (f == PF_END) {
    *end_kw = kw;
    *done = 1;
    return parse_sep(ps, '\n');
  }
  if (++*fields > ps->lim.max_fields_per_record)
    return olc_format__fail(ps, kw, OLC_E_MALFORMED, "too many fields (limit %llu)",
                            (unsigned long long)ps->lim.max_fields_per_record);
  if ((r->level == OLC_LEVEL_EXACT && f == PF_STRUCTURE) ||
      (r->level == OLC_LEVEL_PORTABLE &&
       (f == PF_MODEL_DIGEST || f == PF_PROCESSOR || f == PF_THREAD_COUNT)))
    return olc_format__fail(ps, kw, OLC_E_MALFORMED, "field \"%s\" not allowed in %s record",
                            olc_format__field_name(f),
                            r->level == OLC_LEVEL_EXACT ? "an exact" : "a portable");
  bit = 1u << f;
  if ((*seen & bit) != 0 && f != PF_STRUCTURE && f != PF_MEASUREMENT)
    return olc_format__fail(ps, kw, OLC_E_MALFORMED, "repeated field \"%s\"",
                            olc_format__field_name(f));
  *seen |= bit;
  st = parse_sep(ps, ' ');
  if (st != OLC_OK)
    return st;
  return parse_value(ps, r, f, kw);
}

/* The `profile <level> <origin>` line; ps->p is just after "profile". */
static olc_status parse_profile_line(olc_format_parser *ps, olc_record *r) {
  const unsigned char *w;
  size_t n;
  olc_status st = parse_sep(ps, ' ');
  if (st != OLC_OK)
    return st;
  w = ps->p;
  n = parse_word(ps);
  if (n == 5 && memcmp(w, "exact", 5) == 0) {
    r->level = OLC_LEVEL_EXACT;
  } else if (n == 8 && memcmp(w, "portable", 8) == 0) {
    r->level = OLC_LEVEL_PORTABLE;
  } else {
    if (w + n >= ps->end)
      return parse_cut(ps);
    return olc_format__fail(ps, w, OLC_E_MALFORMED, "expected \"exact\" or \"portable\"");
  }
  ps->p += n;
  st = parse_sep(ps, ' ');
  if (st != OLC_OK)
    return st;
  w = ps->p;
  n = parse_word(ps);
  if (n == 10 && memcmp(w, "calibrated", 10) == 0) {
    r->origin = OLC_ORIGIN_CALIBRATED;
  } else if (n == 8 && memcmp(w, "override", 8) == 0) {
    r->origin = OLC_ORIGIN_OVERRIDE;
  } else {
    if (w + n >= ps->end)
      return parse_cut(ps);
    return olc_format__fail(ps, w, OLC_E_MALFORMED, "expected \"calibrated\" or \"override\"");
  }
  ps->p += n;
  return parse_sep(ps, '\n');
}

static olc_status parse_record(olc_format_parser *ps, const unsigned char *kw) {
  static const unsigned exact_need =
      (1u << PF_BACKEND) | (1u << PF_OPERATOR) | (1u << PF_IMPLEMENTATION) |
      (1u << PF_MODEL_DIGEST) | (1u << PF_PROCESSOR) | (1u << PF_THREAD_COUNT) | (1u << PF_POLICY);
  static const unsigned portable_need =
      (1u << PF_BACKEND) | (1u << PF_OPERATOR) | (1u << PF_IMPLEMENTATION) | (1u << PF_POLICY);
  olc_record r;
  unsigned seen = 0, need;
  size_t fields = 0;
  int done = 0, f;
  const unsigned char *end_kw = NULL;
  olc_status st;

  memset(&r, 0, sizeof(r));
  ps->ms_count = 0;
  ps->props_count = 0;
  if (ps->set->count >= ps->lim.max_records)
    return olc_format__fail(ps, kw, OLC_E_MALFORMED, "too many records (limit %llu)",
                            (unsigned long long)ps->lim.max_records);
  ps->p = kw + 7;
  st = parse_profile_line(ps, &r);
  while (st == OLC_OK && !done) {
    if (ps->p >= ps->end)
      return parse_cut(ps);
    st = parse_field(ps, &r, &seen, &fields, &end_kw, &done);
  }
  if (st != OLC_OK)
    return st;
  need = r.level == OLC_LEVEL_EXACT ? exact_need : portable_need;
  for (f = 0; f < PF_END; f++)
    if ((need & (1u << f)) != 0 && (seen & (1u << f)) == 0)
      return olc_format__fail(ps, end_kw, OLC_E_MALFORMED, "missing field \"%s\"",
                              olc_format__field_name(f));
  return olc_format__finish_record(ps, &r, kw);
}

static olc_status parse_header(olc_format_parser *ps) {
  static const char magic[] = OLC_FORMAT_MAGIC;
  static const char recorded[] = "# onnx-light recorded workloads v";
  const size_t mlen = sizeof(magic) - 1;
  const unsigned char *b = ps->base, *w;
  size_t len = (size_t)(ps->end - ps->base), i, n;
  uint64_t version = 0;
  char shown[160];

  for (i = 0; i < mlen && i < len && b[i] == (unsigned char)magic[i]; i++) {
  }
  /* The host's missed-workloads file (host/misses.h) is text too. */
  if (len >= sizeof recorded - 1 && memcmp(b, recorded, sizeof recorded - 1) == 0)
    return olc_format__fail(
        ps, b, OLC_E_MALFORMED,
        "a recorded-workloads file (for olc calibrate --recorded), not a store");
  if (i < mlen) {
    if (i == len)
      return olc_format__fail(ps, ps->end, OLC_E_MALFORMED, "header cut short");
    return olc_format__fail(ps, b + i, OLC_E_MALFORMED, "bad header: expected \"%s\"", magic);
  }
  ps->p = b + mlen;
  if (ps->p >= ps->end)
    return olc_format__fail(ps, ps->end, OLC_E_MALFORMED, "header cut short");
  if (*ps->p != ' ')
    return olc_format__fail(ps, ps->p, OLC_E_MALFORMED, "bad header: expected \"%s\"", magic);
  ps->p++;
  w = ps->p;
  n = parse_word(ps);
  olc_format__show(shown, sizeof(shown), w, n);
  for (i = 0; i < n; i++) {
    if (w[i] < '0' || w[i] > '9' || (i == 0 && w[i] == '0'))
      return olc_format__fail(ps, w, OLC_E_MALFORMED, "bad header: invalid version \"%s\"", shown);
    if (version < 1000000)
      version = version * 10 + (uint64_t)(w[i] - '0');
  }
  if (n == 0) {
    if (w >= ps->end)
      return olc_format__fail(ps, ps->end, OLC_E_MALFORMED, "header cut short");
    return olc_format__fail(ps, w, OLC_E_MALFORMED, "bad header: missing version");
  }
  if (version > OLC_FORMAT_VERSION)
    return olc_format__fail(ps, w, OLC_E_VERSION,
                            "unsupported file version %s (this build supports version %u)", shown,
                            (unsigned)OLC_FORMAT_VERSION);
  ps->p += n;
  if (ps->p >= ps->end)
    return olc_format__fail(ps, ps->end, OLC_E_MALFORMED, "header cut short");
  if (*ps->p != '\n')
    return olc_format__fail(ps, ps->p, OLC_E_MALFORMED, "bad header: expected newline");
  ps->p++;
  return OLC_OK;
}

static olc_status parse_all(olc_format_parser *ps, size_t len) {
  olc_status st;
  if (len == 0)
    return olc_format__fail(ps, ps->base, OLC_E_MALFORMED, "empty file");
  st = parse_header(ps);
  if (st != OLC_OK)
    return st;
  ps->pool = olc_arena__alloc(&ps->set->arena, len);
  if (ps->pool == NULL)
    return OLC_E_NOMEM;
  while (ps->p < ps->end) {
    const unsigned char *kw = ps->p;
    size_t n = parse_word(ps);
    if (n != 7 || memcmp(kw, "profile", 7) != 0) {
      char shown[160];
      olc_format__show(shown, sizeof(shown), kw, n);
      return olc_format__fail(ps, kw, OLC_E_MALFORMED, "expected \"profile\", found \"%s\"", shown);
    }
    st = parse_record(ps, kw);
    if (st != OLC_OK)
      return st;
  }
  if (olc_format__strictly_ordered(ps->set))
    return OLC_OK; /* every identity above the one before: none repeats */
  return olc_format__check_duplicates(ps);
}

olc_status olc_format__parse(olc_recset *out, const unsigned char *bytes, size_t len,
                             const olc_format_limits *limits, olc_error *err) {
  static const olc_format_limits defaults = OLC_FORMAT_LIMITS_DEFAULT;
  olc_format_parser ps;
  olc_status st;

  memset(&ps, 0, sizeof(ps));
  ps.lim = limits != NULL ? *limits : defaults;
  /* a zero limit means the default, as in olc_store_options */
  if (ps.lim.max_file_size == 0)
    ps.lim.max_file_size = defaults.max_file_size;
  if (ps.lim.max_value_size == 0)
    ps.lim.max_value_size = defaults.max_value_size;
  if (ps.lim.max_fields_per_record == 0)
    ps.lim.max_fields_per_record = defaults.max_fields_per_record;
  if (ps.lim.max_records == 0)
    ps.lim.max_records = defaults.max_records;
  if (len > ps.lim.max_file_size) {
    /* checked before reading a byte: nothing is allocated or scanned */
    st = olc_error__set(err, OLC_E_LIMIT, "parse", "file too large (%llu bytes, limit %llu)",
                        (unsigned long long)len, (unsigned long long)ps.lim.max_file_size);
    olc_error__at(err, 0, 0, (uint64_t)ps.lim.max_file_size);
    return st;
  }
  if (bytes == NULL)
    bytes = (const unsigned char *)""; /* an empty file given as NULL */
  ps.base = bytes;
  ps.p = bytes;
  ps.end = bytes + len;
  ps.set = out;
  ps.err = err;
  st = parse_all(&ps, len);
  if (st == OLC_E_NOMEM) {
    olc_error__set(err, OLC_E_NOMEM, "parse", "out of memory");
    olc_error__at(err, 0, 0, 0);
  }
  free(ps.ms);
  free(ps.props);
  free(ps.rec_off);
  if (st != OLC_OK) {
    olc_recset__free(out);
    olc_recset__init(out);
  }
  return st;
}
