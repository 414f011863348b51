/*
 * format/write.c - the canonical serialization.
 *
 * Records go out in identity order, fields in a fixed order, so the same set
 * always gives the same bytes.  The output buffer is reserved per record and
 * filled with plain stores: no per-byte function calls.
 */
#include "format/format.h"
#include "format/format_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A cursor into reserved buffer space. */
typedef struct write_cur {
  unsigned char *p;
} write_cur;

static void write_lit(write_cur *c, const char *s, size_t n) {
  memcpy(c->p, s, n);
  c->p += n;
}

#define WRITE_LIT(c, s) write_lit((c), (s), sizeof(s) - 1)

/* Quoted form of s[0..n): '"' and '\\' get a backslash, all else is raw.
 * The caller reserved 2 * n + 2 bytes. */
static void write_quoted(write_cur *c, const unsigned char *s, size_t n) {
  unsigned char *p = c->p;
  size_t i = 0;
  *p++ = '"';
  while (i < n) {
    /* copy the run up to the next byte that needs escaping */
    size_t j = i;
    while (j < n && s[j] != '"' && s[j] != '\\')
      j++;
    memcpy(p, s + i, j - i);
    p += j - i;
    if (j < n) {
      *p++ = '\\';
      *p++ = s[j];
      j++;
    }
    i = j;
  }
  *p++ = '"';
  c->p = p;
}

static size_t write_u64(char *out, uint64_t v) {
  char tmp[24];
  size_t n = 0, i;
  do {
    tmp[n++] = (char)('0' + (int)(v % 10));
    v /= 10;
  } while (v != 0);
  for (i = 0; i < n; i++)
    out[i] = tmp[n - 1 - i];
  return n;
}

olc_status olc_format__quote(olc_buf *out, const unsigned char *s, size_t len) {
  write_cur c;
  olc_status st;
  if (len > (SIZE_MAX - 2) / 2)
    return OLC_E_NOMEM;
  st = olc_buf__reserve(out, 2 * len + 2);
  if (st != OLC_OK)
    return st;
  c.p = out->data + out->len;
  write_quoted(&c, s, len);
  out->len = (size_t)(c.p - out->data);
  return OLC_OK;
}

static size_t write_slen(const char *s) { return s != NULL ? strlen(s) : 0; }

/* strcmp with NULL first, as the record order has it */
static int write_scmp(const char *a, const char *b) {
  if (a == NULL || b == NULL)
    return a == b ? 0 : (a == NULL ? -1 : 1);
  return strcmp(a, b);
}

/* Adds the worst-case size of a quoted string; 0 on overflow. */
static int write_add(size_t *total, size_t n) {
  if (n > (SIZE_MAX - 64) / 2 || *total > SIZE_MAX - (2 * n + 64))
    return 0;
  *total += 2 * n + 64;
  return 1;
}

/* The bytes record r takes at most, escapes included; 0 when it overflows. */
static size_t write_record_size(const olc_record *r) {
  size_t need = 64, i;
  const char *strs[5] = {r->backend, r->operator_name, r->implementation, r->model_digest,
                         r->processor};
  for (i = 0; i < 5; i++) {
    if (!write_add(&need, write_slen(strs[i])))
      return 0;
  }
  if (!write_add(&need, r->policy_len))
    return 0;
  for (i = 0; i < r->measurement_count; i++) {
    if (!write_add(&need, write_slen(r->measurements[i].name)) ||
        !write_add(&need, write_slen(r->measurements[i].unit) + OLC_FORMAT_DOUBLE_MAX))
      return 0;
  }
  if (r->level == OLC_LEVEL_PORTABLE) {
    for (i = 0; i < r->structure_count; i++) {
      if (!write_add(&need, write_slen(r->structure[i].name)) ||
          !write_add(&need, write_slen(r->structure[i].value)))
        return 0;
    }
  }
  return need;
}

/*
 * The structure of r in name order.  The set should hold sorted structures;
 * when it does not, *copy receives a sorted copy (the caller frees it), so
 * the output stays canonical either way.  A repeated name is OLC_E_INVALID:
 * it would make the file unreadable.
 */
static olc_status write_sorted_structure(const olc_property **out, olc_property **copy,
                                         const olc_record *r) {
  size_t i;
  *out = r->structure;
  *copy = NULL;
  for (i = 1; i < r->structure_count; i++) {
    if (write_scmp(r->structure[i - 1].name, r->structure[i].name) >= 0)
      break;
  }
  if (r->structure_count < 2 || i == r->structure_count)
    return OLC_OK;
  *copy = malloc(r->structure_count * sizeof(**copy));
  if (*copy == NULL)
    return OLC_E_NOMEM;
  memcpy(*copy, r->structure, r->structure_count * sizeof(**copy));
  *out = *copy;
  if (olc_properties__sort(*copy, r->structure_count) != (size_t)-1)
    return OLC_E_INVALID;
  return OLC_OK;
}

static void write_field(write_cur *c, const char *label, size_t label_len, const char *value) {
  memcpy(c->p, label, label_len);
  c->p += label_len;
  write_quoted(c, (const unsigned char *)value, write_slen(value));
}

#define WRITE_FIELD(c, label, value) write_field((c), label, sizeof(label) - 1, (value))

/* The header and identity lines, up to the structure or thread count. */
static olc_status write_identity(write_cur *c, const olc_record *r, const olc_property *props) {
  size_t i;
  if (r->level == OLC_LEVEL_EXACT)
    WRITE_LIT(c, "profile exact ");
  else
    WRITE_LIT(c, "profile portable ");
  if (r->origin == OLC_ORIGIN_OVERRIDE)
    WRITE_LIT(c, "override");
  else
    WRITE_LIT(c, "calibrated");
  WRITE_FIELD(c, "\nbackend ", r->backend);
  WRITE_FIELD(c, "\noperator ", r->operator_name);
  WRITE_FIELD(c, "\nimplementation ", r->implementation);
  if (r->level == OLC_LEVEL_EXACT) {
    if (r->thread_count < 0)
      return OLC_E_INVALID; /* the reader would reject it */
    WRITE_FIELD(c, "\nmodel_digest ", r->model_digest);
    WRITE_FIELD(c, "\nprocessor ", r->processor);
    WRITE_LIT(c, "\nthread_count ");
    c->p += write_u64((char *)c->p, (uint64_t)r->thread_count);
    return OLC_OK;
  }
  for (i = 0; i < r->structure_count; i++) {
    WRITE_FIELD(c, "\nstructure ", props[i].name);
    *c->p++ = ' ';
    write_quoted(c, (const unsigned char *)props[i].value, write_slen(props[i].value));
  }
  return OLC_OK;
}

/* The measurement lines; a non-finite value is OLC_E_INVALID (unreadable). */
static olc_status write_measurements(write_cur *c, const olc_record *r) {
  size_t i, n;
  for (i = 0; i < r->measurement_count; i++) {
    const olc_measurement *m = &r->measurements[i];
    WRITE_FIELD(c, "\nmeasurement ", m->name);
    *c->p++ = ' ';
    n = olc_format__double_text((char *)c->p, m->value);
    if (n == 0)
      return OLC_E_INVALID;
    c->p += n;
    *c->p++ = ' ';
    write_quoted(c, (const unsigned char *)m->unit, write_slen(m->unit));
  }
  return OLC_OK;
}

static olc_status write_record(olc_buf *out, const olc_record *r) {
  size_t need = write_record_size(r);
  const olc_property *props = r->structure;
  olc_property *sorted = NULL;
  olc_status st;
  write_cur c;

  if (need == 0)
    return OLC_E_NOMEM;
  if (r->level == OLC_LEVEL_PORTABLE) {
    st = write_sorted_structure(&props, &sorted, r);
    if (st != OLC_OK)
      goto done;
  }
  st = olc_buf__reserve(out, need);
  if (st != OLC_OK)
    goto done;
  c.p = out->data + out->len;
  st = write_identity(&c, r, props);
  if (st == OLC_OK)
    st = write_measurements(&c, r);
  if (st != OLC_OK)
    goto done;
  WRITE_LIT(&c, "\npolicy ");
  write_quoted(&c, r->policy != NULL ? r->policy : (const unsigned char *)"", r->policy_len);
  WRITE_LIT(&c, "\nend\n");
  out->len = (size_t)(c.p - out->data);
done:
  free(sorted);
  return st;
}

/* Reserves the worst case of every record at once, so that a large store
 * is written without the buffer moving (each move copies everything
 * written so far).  Only a reservation: where it cannot be made (too
 * large for the buffer's limit, out of memory) each record reserves its
 * own room as before. */
static void reserve_all(olc_buf *out, const olc_record *const *v, size_t n) {
  size_t total = 0, i;
  for (i = 0; i < n; i++) {
    size_t need = write_record_size(v[i]);
    if (need == 0 || total > SIZE_MAX / 2 - need)
      return;
    total += need;
  }
  if (out->limit != 0 && out->len + total > out->limit)
    return;
  (void)olc_buf__reserve(out, total);
}

olc_status olc_format__write(olc_buf *out, const olc_recset *set) {
  const olc_record **v = NULL;
  olc_status st;
  size_t i;

  st = olc_buf__append(out, OLC_FORMAT_MAGIC " 1\n", sizeof(OLC_FORMAT_MAGIC " 1\n") - 1);
  if (st != OLC_OK || set->count == 0)
    return st;
  if (set->count > SIZE_MAX / sizeof(*v))
    return OLC_E_NOMEM;
  v = malloc(set->count * sizeof(*v));
  if (v == NULL)
    return OLC_E_NOMEM;
  for (i = 0; i < set->count; i++)
    v[i] = &set->recs[i];
  switch (olc_recset__sort_ptrs(v, set->count)) {
  case 0:
    st = OLC_E_NOMEM;
    goto done;
  case 2:
    st = OLC_E_INVALID; /* duplicate identities: the reader would reject */
    goto done;
  default:
    break;
  }
  reserve_all(out, v, set->count);
  for (i = 0; i < set->count && st == OLC_OK; i++)
    st = write_record(out, v[i]);
done:
  free(v);
  return st;
}

/* Room for the text of set: the spans as they are, the rest at worst. */
static int spans_size(size_t *total, const olc_recset *set, const olc_format_span *reuse) {
  size_t i;
  *total = sizeof(OLC_FORMAT_MAGIC " 1\n");
  for (i = 0; i < set->count; i++) {
    size_t need =
        reuse != NULL && reuse[i].bytes != NULL ? reuse[i].len : write_record_size(&set->recs[i]);
    if (need == 0 || *total > SIZE_MAX / 2 - need)
      return 0;
    *total += need;
  }
  return 1;
}

olc_status olc_format__write_spans(olc_buf *out, size_t *offs, const olc_recset *set,
                                   const olc_format_span *reuse) {
  const unsigned char *run = NULL; /* reused bytes not copied yet */
  size_t run_len = 0, total, i;
  olc_status st;
  if (!spans_size(&total, set, reuse))
    return OLC_E_NOMEM;
  st = olc_buf__reserve(out, total);
  if (st == OLC_OK)
    st = olc_buf__append(out, OLC_FORMAT_MAGIC " 1\n", sizeof(OLC_FORMAT_MAGIC " 1\n") - 1);
  for (i = 0; i < set->count && st == OLC_OK; i++) {
    const olc_format_span *sp = reuse != NULL && reuse[i].bytes != NULL ? &reuse[i] : NULL;
    if (offs != NULL)
      offs[i] = out->len + run_len;
    if (sp != NULL) {
      if (run != NULL && run + run_len != sp->bytes) {
        st = olc_buf__append(out, run, run_len);
        run = NULL;
        run_len = 0;
      }
      if (run == NULL)
        run = sp->bytes;
      run_len += sp->len;
      continue;
    }
    /* A serialized record orders between its neighbours (reused ones were
     * in order when they were written). */
    if ((i > 0 && olc_record__identity_cmp(&set->recs[i - 1], &set->recs[i]) >= 0) ||
        (i + 1 < set->count && reuse != NULL && reuse[i + 1].bytes != NULL &&
         olc_record__identity_cmp(&set->recs[i], &set->recs[i + 1]) >= 0))
      return OLC_E_INVALID;
    if (run != NULL)
      st = olc_buf__append(out, run, run_len);
    run = NULL;
    run_len = 0;
    if (st == OLC_OK)
      st = write_record(out, &set->recs[i]);
  }
  if (st == OLC_OK && run != NULL)
    st = olc_buf__append(out, run, run_len);
  if (st == OLC_OK && offs != NULL)
    offs[set->count] = out->len;
  return st;
}
