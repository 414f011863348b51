/*
 * host/misses_format.c - the missed-workloads format (misses.h): parse,
 * write, and the set's key.
 */
#include "host/misses.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/text.h"

#define MAX_LINE OLC_MISSES_MAX_LINE
#define MAX_PROPS OLC_MISSES_MAX_PROPS
/* format/format.h's OLC_FORMAT_MAGIC (host does not reach format; a test
 * holds the two equal): a store given where a recorded file belongs. */
#define STORE_MAGIC "onnx_light_calibration_profiles"

void olc_misses__free(olc_misses_set *set) {
  if (set == NULL)
    return;
  olc_arena__free(&set->arena);
  free(set->v);
  free(set->bad);
  set->v = NULL;
  set->count = set->cap = 0;
  set->bad = NULL;
  set->bad_count = set->bad_cap = 0;
}

olc_status olc_misses__add_bad(olc_misses_set *set, const unsigned char *text, size_t len,
                               uint32_t line, const char *message) {
  olc_misses_bad *b;
  unsigned char *copy;
  if (set->bad_count == set->bad_cap) {
    size_t cap = set->bad_cap ? set->bad_cap * 2 : 4;
    olc_misses_bad *v = realloc(set->bad, cap * sizeof *v);
    if (v == NULL)
      return OLC_E_NOMEM;
    set->bad = v;
    set->bad_cap = cap;
  }
  b = &set->bad[set->bad_count];
  copy = olc_arena__alloc(&set->arena, len + 1);
  b->message = olc_arena__strdup(&set->arena, message);
  if (copy == NULL || b->message == NULL)
    return OLC_E_NOMEM;
  if (len > 0)
    memcpy(copy, text, len);
  copy[len] = 0;
  b->text = copy;
  b->len = len;
  b->line = line;
  set->bad_count++;
  return OLC_OK;
}

static int same_str(const char *a, const char *b) {
  return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

int olc_misses__same(const olc_misses_entry *a, const olc_misses_entry *b) {
  return a->threads == b->threads && same_str(a->backend, b->backend) &&
         same_str(a->operator_name, b->operator_name) && same_str(a->processor, b->processor) &&
         same_str(a->identity, b->identity);
}

size_t olc_misses__find(const olc_misses_set *set, const olc_misses_entry *e) {
  size_t i;
  for (i = 0; i < set->count; i++)
    if (olc_misses__same(&set->v[i], e))
      return i;
  return set->count;
}

static int prop_order(const void *a, const void *b) {
  return strcmp(((const olc_property *)a)->name, ((const olc_property *)b)->name);
}

static const char *dup_opt(olc_arena *a, const char *s, int *bad) {
  char *d;
  if (s == NULL)
    return NULL;
  d = olc_arena__strdup(a, s);
  *bad |= d == NULL;
  return d;
}

olc_status olc_misses__add(olc_misses_set *set, const olc_misses_entry *e, int *added) {
  olc_misses_entry *n;
  size_t i;
  int bad = 0;
  *added = 0;
  if (olc_misses__find(set, e) < set->count)
    return OLC_OK;
  if (set->count == set->cap) {
    size_t cap = set->cap ? set->cap * 2 : 8;
    olc_misses_entry *v = realloc(set->v, cap * sizeof *v);
    if (v == NULL)
      return OLC_E_NOMEM;
    set->v = v;
    set->cap = cap;
  }
  n = &set->v[set->count];
  *n = *e;
  n->backend = dup_opt(&set->arena, e->backend, &bad);
  n->operator_name = dup_opt(&set->arena, e->operator_name, &bad);
  n->processor = dup_opt(&set->arena, e->processor, &bad);
  n->identity = dup_opt(&set->arena, e->identity, &bad);
  n->model = dup_opt(&set->arena, e->model, &bad);
  n->props = NULL;
  if (e->prop_count > 0) {
    n->props = olc_arena__alloc(&set->arena, e->prop_count * sizeof *n->props);
    bad |= n->props == NULL;
    for (i = 0; !bad && i < e->prop_count; i++) {
      n->props[i].name = dup_opt(&set->arena, e->props[i].name, &bad);
      n->props[i].value = dup_opt(&set->arena, e->props[i].value, &bad);
    }
    if (!bad)
      qsort(n->props, e->prop_count, sizeof *n->props, prop_order);
  }
  if (bad)
    return OLC_E_NOMEM;
  set->count++;
  *added = 1;
  return OLC_OK;
}

/* ------------------------------------------------------------- write */

static int plain(unsigned char c, int in_name) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
    return 1;
  if (c == '=')
    return !in_name; /* a value is what follows the first '=' */
  return strchr("._:/@,;+#-", c) != NULL && c != '\0';
}

static olc_status put_encoded(olc_buf *out, const char *s, int in_name) {
  static const char hex[] = "0123456789ABCDEF";
  olc_status st = OLC_OK;
  for (; *s != '\0' && st == OLC_OK; s++) {
    unsigned char c = (unsigned char)*s;
    if (plain(c, in_name)) {
      st = olc_buf__putc(out, c);
    } else {
      char e[3] = {'%', hex[c >> 4], hex[c & 15u]};
      st = olc_buf__append(out, e, sizeof e);
    }
  }
  return st;
}

static olc_status put_field(olc_buf *out, const char *key, const char *value) {
  olc_status st = olc_buf__putc(out, ' ');
  if (st == OLC_OK)
    st = olc_buf__puts(out, key);
  if (st == OLC_OK)
    st = olc_buf__putc(out, '=');
  if (st == OLC_OK)
    st = put_encoded(out, value, 0);
  return st;
}

static olc_status write_entry(olc_buf *out, const olc_misses_entry *e) {
  char threads[24];
  olc_status st;
  size_t i;
  snprintf(threads, sizeof threads, "%" PRId64, e->threads);
  st = olc_buf__puts(out, "workload");
  if (st == OLC_OK)
    st = put_field(out, "backend", e->backend);
  if (st == OLC_OK)
    st = put_field(out, "operator", e->operator_name);
  if (st == OLC_OK)
    st = put_field(out, "processor", e->processor);
  if (st == OLC_OK)
    st = put_field(out, "threads", threads);
  if (st == OLC_OK)
    st = put_field(out, "identity", e->identity);
  if (st == OLC_OK)
    st = put_field(out, "model", e->model != NULL ? e->model : "-");
  for (i = 0; i < e->prop_count && st == OLC_OK; i++) {
    st = olc_buf__puts(out, " prop.");
    if (st == OLC_OK)
      st = put_encoded(out, e->props[i].name, 1);
    if (st == OLC_OK)
      st = olc_buf__putc(out, '=');
    if (st == OLC_OK)
      st = put_encoded(out, e->props[i].value, 0);
  }
  if (st == OLC_OK)
    st = olc_buf__putc(out, '\n');
  return st;
}

olc_status olc_misses__write(olc_buf *out, const olc_misses_set *set) {
  char header[64];
  olc_status st;
  size_t i;
  snprintf(header, sizeof header, "%s%u\n", OLC_MISSES_MAGIC, (unsigned)OLC_MISSES_VERSION);
  st = olc_buf__puts(out, header);
  for (i = 0; i < set->count && st == OLC_OK; i++)
    st = write_entry(out, &set->v[i]);
  /* Lines this build could not read stay for whoever can (or a person). */
  for (i = 0; i < set->bad_count && st == OLC_OK; i++) {
    st = olc_buf__append(out, set->bad[i].text, set->bad[i].len);
    if (st == OLC_OK)
      st = olc_buf__putc(out, '\n');
  }
  return st == OLC_OK ? OLC_OK : OLC_E_NOMEM;
}

olc_status olc_misses__check(const olc_misses_entry *e, const char *name, olc_error *err) {
  olc_buf line = OLC_BUF_INIT;
  olc_status st;
  size_t len;
  if (e->prop_count > MAX_PROPS)
    return olc_error__set(err, OLC_E_LIMIT, "recorded",
                          "%s: a workload of %lu properties cannot be recorded (at most %u)", name,
                          (unsigned long)e->prop_count, MAX_PROPS);
  st = write_entry(&line, e);
  len = line.len > 0 ? line.len - 1 : 0; /* without its newline */
  olc_buf__free(&line);
  if (st != OLC_OK)
    return olc_error__set(err, OLC_E_NOMEM, "recorded", "%s: out of memory", name);
  if (len > MAX_LINE)
    return olc_error__set(err, OLC_E_LIMIT, "recorded",
                          "%s: the workload's line would be %lu bytes, over the %u a reader "
                          "takes",
                          name, (unsigned long)len, MAX_LINE);
  return OLC_OK;
}

/* ------------------------------------------------------------- parse */

typedef struct parser {
  olc_misses_set *set;
  const char *name;
  olc_error err;             /* the line's failure: the caller's when the file fails */
  const unsigned char *line; /* the current line */
  size_t line_len;
  uint32_t lineno;
  olc_arena scratch; /* decoded strings of the current line */
} parser;

static olc_status fail(parser *p, const unsigned char *at, olc_status st, const char *fmt, ...)
    OLC_PRINTF(4, 5);

static olc_status fail(parser *p, const unsigned char *at, olc_status st, const char *fmt, ...) {
  char msg[OLC_ERROR_MESSAGE_SIZE];
  uint32_t col = (uint32_t)(at - p->line) + 1u;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  olc_error__set(&p->err, st, "recorded", "%s:%u:%u: %s", p->name, (unsigned)p->lineno,
                 (unsigned)col, msg);
  olc_error__at(&p->err, p->lineno, col, 0);
  return st;
}

static int hexval(unsigned char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

/* Decodes s[0..n) into a string of the scratch arena. */
static olc_status decode(char **out, parser *p, const unsigned char *s, size_t n, int in_name) {
  char *d = olc_arena__alloc(&p->scratch, n + 1);
  size_t i, k = 0;
  if (d == NULL)
    return OLC_E_NOMEM;
  for (i = 0; i < n; i++) {
    if (s[i] == '%') {
      int hi = i + 2 < n ? hexval(s[i + 1]) : -1;
      int lo = i + 2 < n ? hexval(s[i + 2]) : -1;
      if (hi < 0 || lo < 0)
        return fail(p, s + i, OLC_E_MALFORMED, "bad percent escape");
      d[k] = (char)(hi * 16 + lo);
      if (d[k] == '\0')
        return fail(p, s + i, OLC_E_MALFORMED, "%%00 in a value");
      k++;
      i += 2;
    } else if (!plain(s[i], in_name)) {
      return fail(p, s + i, OLC_E_MALFORMED, "character 0x%02x must be percent-encoded",
                  (unsigned)s[i]);
    } else {
      d[k++] = (char)s[i];
    }
  }
  d[k] = '\0';
  if (!olc_util__utf8_valid(d, k))
    return fail(p, s, OLC_E_MALFORMED, "not UTF-8");
  *out = d;
  return OLC_OK;
}

enum { F_BACKEND, F_OPERATOR, F_PROCESSOR, F_THREADS, F_IDENTITY, F_MODEL, F_COUNT };
static const char *const field_names[F_COUNT] = {"backend", "operator", "processor",
                                                 "threads", "identity", "model"};

/* One line's fields as they are read. */
typedef struct fields {
  char *v[F_COUNT];
  olc_property props[MAX_PROPS];
  size_t prop_count;
} fields;

static olc_status read_prop(parser *p, fields *f, const unsigned char *tok, size_t eq, size_t len) {
  const unsigned char *name = tok + 5; /* after "prop." */
  char *n, *v;
  size_t i;
  olc_status st;
  if (eq == 5)
    return fail(p, tok, OLC_E_MALFORMED, "a property without a name");
  if (f->prop_count == MAX_PROPS)
    return fail(p, tok, OLC_E_MALFORMED, "more than %u properties", MAX_PROPS);
  if ((st = decode(&n, p, name, eq - 5, 1)) != OLC_OK ||
      (st = decode(&v, p, tok + eq + 1, len - eq - 1, 0)) != OLC_OK)
    return st;
  for (i = 0; i < f->prop_count; i++)
    if (strcmp(f->props[i].name, n) == 0)
      return fail(p, tok, OLC_E_MALFORMED, "property \"%s\" twice", n);
  f->props[f->prop_count].name = n;
  f->props[f->prop_count++].value = v;
  return OLC_OK;
}

/* One "key=value" token of a record line. */
static olc_status read_token(parser *p, fields *f, const unsigned char *tok, size_t len) {
  const unsigned char *eqp = memchr(tok, '=', len);
  size_t eq, k;
  if (eqp == NULL)
    return fail(p, tok, OLC_E_MALFORMED, "expected key=value");
  eq = (size_t)(eqp - tok);
  if (eq > 5 && memcmp(tok, "prop.", 5) == 0)
    return read_prop(p, f, tok, eq, len);
  for (k = 0; k < F_COUNT; k++)
    if (strlen(field_names[k]) == eq && memcmp(tok, field_names[k], eq) == 0)
      break;
  if (k == F_COUNT)
    return fail(p, tok, OLC_E_MALFORMED, "unknown field \"%.*s\"", (int)(eq < 40 ? eq : 40),
                (const char *)tok);
  if (f->v[k] != NULL)
    return fail(p, tok, OLC_E_MALFORMED, "field \"%s\" twice", field_names[k]);
  if (eq + 1 == len)
    return fail(p, tok + eq + 1, OLC_E_MALFORMED, "field \"%s\" is empty", field_names[k]);
  return decode(&f->v[k], p, tok + eq + 1, len - eq - 1, 0);
}

static olc_status read_threads(int64_t *out, parser *p, const char *s, const unsigned char *at) {
  int64_t v = 0;
  size_t i;
  for (i = 0; s[i] != '\0'; i++) {
    if (s[i] < '0' || s[i] > '9' || v > 1000000)
      return fail(p, at, OLC_E_MALFORMED, "threads \"%s\" is not a thread count", s);
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return OLC_OK;
}

static olc_status read_record(parser *p) {
  const unsigned char *l = p->line, *end = p->line + p->line_len, *tok, *threads_at = NULL;
  olc_misses_entry e;
  fields f;
  size_t k;
  int added;
  olc_status st;
  memset(&f, 0, sizeof f);
  if (p->line_len < 9 || memcmp(l, "workload ", 9) != 0)
    return fail(p, l, OLC_E_MALFORMED, "expected \"workload\" and its fields");
  for (tok = l + 9; tok < end;) {
    const unsigned char *sp = memchr(tok, ' ', (size_t)(end - tok));
    size_t len = sp != NULL ? (size_t)(sp - tok) : (size_t)(end - tok);
    if (len == 0)
      return fail(p, tok, OLC_E_MALFORMED, "expected one space between fields");
    if (len >= 8 && memcmp(tok, "threads=", 8) == 0)
      threads_at = tok + 8;
    if ((st = read_token(p, &f, tok, len)) != OLC_OK)
      return st;
    tok += len + (sp != NULL);
    if (sp != NULL && tok == end)
      return fail(p, sp, OLC_E_MALFORMED, "a space at the end of the line");
  }
  for (k = 0; k < F_COUNT; k++)
    if (f.v[k] == NULL)
      return fail(p, end, OLC_E_MALFORMED, "missing field \"%s\"", field_names[k]);
  memset(&e, 0, sizeof e);
  if ((st = read_threads(&e.threads, p, f.v[F_THREADS], threads_at)) != OLC_OK)
    return st;
  e.backend = f.v[F_BACKEND];
  e.operator_name = f.v[F_OPERATOR];
  e.processor = f.v[F_PROCESSOR];
  e.identity = f.v[F_IDENTITY];
  e.model = strcmp(f.v[F_MODEL], "-") == 0 ? NULL : f.v[F_MODEL];
  e.props = f.props;
  e.prop_count = f.prop_count;
  e.line = p->lineno;
  /* A key twice (a hand edit) is one record: the first. */
  return olc_misses__add(p->set, &e, &added);
}

static olc_status read_header(parser *p) {
  static const char magic[] = OLC_MISSES_MAGIC;
  const size_t mlen = sizeof magic - 1;
  const unsigned char *l = p->line;
  size_t i, n = p->line_len;
  uint64_t version = 0;
  if (n >= sizeof STORE_MAGIC - 1 && memcmp(l, STORE_MAGIC, sizeof STORE_MAGIC - 1) == 0)
    return fail(p, l, OLC_E_MALFORMED,
                "a calibration profile store, not a recorded-workloads file (\"%s%u\")", magic,
                (unsigned)OLC_MISSES_VERSION);
  for (i = 0; i < mlen && i < n && l[i] == (unsigned char)magic[i]; i++) {
  }
  if (i < mlen)
    return fail(p, l + i, OLC_E_MALFORMED, "not a recorded-workloads file: expected \"%s%u\"",
                magic, (unsigned)OLC_MISSES_VERSION);
  for (i = mlen; i < n && l[i] >= '0' && l[i] <= '9'; i++)
    if (version < 1000000)
      version = version * 10 + (uint64_t)(l[i] - '0');
  if (i == mlen || i < n || l[mlen] == '0')
    return fail(p, l + (i == mlen ? mlen : i), OLC_E_MALFORMED, "bad header: expected a version");
  if (version > OLC_MISSES_VERSION)
    return fail(p, l + mlen, OLC_E_VERSION,
                "recorded-workloads version %" PRIu64 " is newer than this build's (%u)", version,
                (unsigned)OLC_MISSES_VERSION);
  return OLC_OK;
}

/* One record line: read, or kept as a bad line when it does not parse (one
 * bad line never stops the others, nor a process recording).  A last line
 * without its newline (a hand edit) is read like any other: kept as a bad
 * line, it would be written back with a newline and read as a record the
 * next time, so a rewrite would change what the file holds. */
static olc_status read_line(parser *p) {
  olc_status st;
  if (p->line_len > MAX_LINE)
    st = fail(p, p->line + MAX_LINE, OLC_E_MALFORMED, "line longer than %u bytes", MAX_LINE);
  else
    st = read_record(p);
  if (st != OLC_E_MALFORMED)
    return st;
  return olc_misses__add_bad(p->set, p->line, p->line_len, p->lineno, p->err.message);
}

olc_status olc_misses__parse(olc_misses_set *set, const unsigned char *bytes, size_t len,
                             const char *name, olc_error *err) {
  parser p;
  size_t pos = 0;
  olc_status st = OLC_OK;
  memset(&p, 0, sizeof p);
  p.set = set;
  p.name = name;
  /* An empty file (created by hand, or `: > FILE`) records nothing yet. */
  while (pos < len && st == OLC_OK) {
    const unsigned char *nl = memchr(bytes + pos, '\n', len - pos);
    p.line = bytes + pos;
    p.line_len = nl != NULL ? (size_t)(nl - p.line) : len - pos;
    p.lineno++;
    if (p.lineno == 1 && p.line_len > MAX_LINE)
      st = fail(&p, p.line + MAX_LINE, OLC_E_MALFORMED, "line longer than %u bytes", MAX_LINE);
    else if (p.lineno == 1 && nl == NULL)
      st = fail(&p, p.line + p.line_len, OLC_E_MALFORMED, "the last line has no newline");
    else if (p.lineno == 1)
      st = read_header(&p);
    else if (p.line_len > 0)
      st = read_line(&p);
    pos += p.line_len + 1;
  }
  olc_arena__free(&p.scratch);
  if (st == OLC_E_NOMEM)
    olc_error__set(err, st, "recorded", "%s: out of memory", name);
  else if (st != OLC_OK && err != NULL)
    *err = p.err;
  return st;
}
