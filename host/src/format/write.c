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

static olc_status write_record(olc_buf *out, const olc_record *r) {
  size_t lens[5], need = 64, i;
  const char *strs[5];
  const olc_property *props = r->structure;
  olc_property *sorted = NULL;
  olc_status st = OLC_OK;
  write_cur c;

  strs[0] = r->backend;
  strs[1] = r->operator_name;
  strs[2] = r->implementation;
  strs[3] = r->model_digest;
  strs[4] = r->processor;
  for (i = 0; i < 5; i++) {
    lens[i] = write_slen(strs[i]);
    if (!write_add(&need, lens[i]))
      return OLC_E_NOMEM;
  }
  if (!write_add(&need, r->policy_len))
    return OLC_E_NOMEM;
  for (i = 0; i < r->measurement_count; i++) {
    if (!write_add(&need, write_slen(r->measurements[i].name)) ||
        !write_add(&need, write_slen(r->measurements[i].unit) + OLC_FORMAT_DOUBLE_MAX))
      return OLC_E_NOMEM;
  }
  if (r->level == OLC_LEVEL_PORTABLE) {
    for (i = 0; i < r->structure_count; i++) {
      if (!write_add(&need, write_slen(props[i].name)) ||
          !write_add(&need, write_slen(props[i].value)))
        return OLC_E_NOMEM;
    }
    /* The set should hold sorted structures; sort a copy if it does not, so
     * the output stays canonical either way. */
    for (i = 1; i < r->structure_count; i++) {
      if (write_scmp(props[i - 1].name, props[i].name) >= 0)
        break;
    }
    if (i < r->structure_count) {
      sorted = malloc(r->structure_count * sizeof(*sorted));
      if (sorted == NULL)
        return OLC_E_NOMEM;
      memcpy(sorted, props, r->structure_count * sizeof(*sorted));
      props = sorted;
      /* a repeated name would make the file unreadable */
      if (olc_properties__sort(sorted, r->structure_count) != (size_t)-1) {
        st = OLC_E_INVALID;
        goto done;
      }
    }
  }
  st = olc_buf__reserve(out, need);
  if (st != OLC_OK)
    goto done;
  c.p = out->data + out->len;
  if (r->level == OLC_LEVEL_EXACT)
    WRITE_LIT(&c, "profile exact ");
  else
    WRITE_LIT(&c, "profile portable ");
  if (r->origin == OLC_ORIGIN_OVERRIDE)
    WRITE_LIT(&c, "override\nbackend ");
  else
    WRITE_LIT(&c, "calibrated\nbackend ");
  write_quoted(&c, (const unsigned char *)strs[0], lens[0]);
  WRITE_LIT(&c, "\noperator ");
  write_quoted(&c, (const unsigned char *)strs[1], lens[1]);
  WRITE_LIT(&c, "\nimplementation ");
  write_quoted(&c, (const unsigned char *)strs[2], lens[2]);
  if (r->level == OLC_LEVEL_EXACT) {
    WRITE_LIT(&c, "\nmodel_digest ");
    write_quoted(&c, (const unsigned char *)strs[3], lens[3]);
    WRITE_LIT(&c, "\nprocessor ");
    write_quoted(&c, (const unsigned char *)strs[4], lens[4]);
    WRITE_LIT(&c, "\nthread_count ");
    if (r->thread_count < 0) {
      st = OLC_E_INVALID; /* the reader would reject it */
      goto done;
    }
    c.p += write_u64((char *)c.p, (uint64_t)r->thread_count);
  } else {
    for (i = 0; i < r->structure_count; i++) {
      WRITE_LIT(&c, "\nstructure ");
      write_quoted(&c, (const unsigned char *)props[i].name, write_slen(props[i].name));
      *c.p++ = ' ';
      write_quoted(&c, (const unsigned char *)props[i].value, write_slen(props[i].value));
    }
  }
  for (i = 0; i < r->measurement_count; i++) {
    const olc_measurement *m = &r->measurements[i];
    size_t n;
    WRITE_LIT(&c, "\nmeasurement ");
    write_quoted(&c, (const unsigned char *)m->name, write_slen(m->name));
    *c.p++ = ' ';
    n = olc_format__double_text((char *)c.p, m->value);
    if (n == 0) {
      /* a non-finite value would make the file unreadable */
      st = OLC_E_INVALID;
      goto done;
    }
    c.p += n;
    *c.p++ = ' ';
    write_quoted(&c, (const unsigned char *)m->unit, write_slen(m->unit));
  }
  WRITE_LIT(&c, "\npolicy ");
  write_quoted(&c, r->policy != NULL ? r->policy : (const unsigned char *)"", r->policy_len);
  WRITE_LIT(&c, "\nend\n");
  out->len = (size_t)(c.p - out->data);
done:
  free(sorted);
  return st;
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
  for (i = 0; i < set->count && st == OLC_OK; i++)
    st = write_record(out, v[i]);
done:
  free(v);
  return st;
}
