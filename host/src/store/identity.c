/*
 * store/identity.c - the workload identity grammar (olc/store.h): the
 * canonical structure text, the digest of one workload's exact key, and
 * the workload identity of a digest or record.
 *
 * The texts are written in one pass that counts every byte and stores only
 * what fits, so the caller learns the length it needs from a short buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "util/error.h"

static const char workload_prefix[] = "workload:";
#define WORKLOAD_PREFIX_LEN (sizeof workload_prefix - 1)

typedef struct text_out {
  char *buf;
  size_t size;
  size_t pos; /* bytes of the whole text so far, stored or not */
} text_out;

static void out_byte(text_out *o, char ch) {
  if (o->pos + 1 < o->size)
    o->buf[o->pos] = ch;
  o->pos++;
}

static void out_raw(text_out *o, const char *s) {
  for (; *s != 0; s++)
    out_byte(o, *s);
}

/* The bytes that would split the text ambiguously, and control bytes. */
static int needs_escape(unsigned char ch) {
  return ch == '%' || ch == ';' || ch == '=' || ch == '#' || ch < 0x20;
}

static void out_escaped(text_out *o, const char *s) {
  static const char hex[] = "0123456789ABCDEF";
  for (; *s != 0; s++) {
    unsigned char ch = (unsigned char)*s;
    if (!needs_escape(ch)) {
      out_byte(o, (char)ch);
      continue;
    }
    out_byte(o, '%');
    out_byte(o, hex[ch >> 4]);
    out_byte(o, hex[ch & 15]);
  }
}

static olc_status out_finish(text_out *o, size_t *len, const char *where, olc_error *err) {
  if (len != NULL)
    *len = o->pos;
  if (o->pos < o->size) {
    o->buf[o->pos] = 0;
    return OLC_OK;
  }
  if (o->size > 0)
    o->buf[0] = 0;
  return olc_error__set(err, OLC_E_LIMIT, where, "%llu bytes do not hold the %llu-byte text",
                        (unsigned long long)o->size, (unsigned long long)o->pos + 1);
}

/* Checks the properties and writes them, sorted and escaped. */
static olc_status out_structure(text_out *o, const olc_property *structure, size_t count,
                                const char *where, olc_error *err) {
  olc_property *sorted;
  size_t i, dup;
  if (count == 0)
    return OLC_OK;
  if (structure == NULL)
    return olc_error__set(err, OLC_E_INVALID, where, "structure is NULL with %llu entries",
                          (unsigned long long)count);
  for (i = 0; i < count; i++) {
    if (structure[i].name == NULL || structure[i].name[0] == 0)
      return olc_error__set(err, OLC_E_INVALID, where, "structural property %llu has no name",
                            (unsigned long long)i);
    if (structure[i].value == NULL)
      return olc_error__set(err, OLC_E_INVALID, where,
                            "structural property \"%.64s\" has a NULL value", structure[i].name);
  }
  sorted = malloc(count * sizeof *sorted);
  if (sorted == NULL)
    return olc_error__set(err, OLC_E_NOMEM, where, "out of memory");
  memcpy(sorted, structure, count * sizeof *sorted);
  dup = olc_properties__sort(sorted, count);
  if (dup != (size_t)-1) {
    olc_status st =
        olc_error__set(err, OLC_E_INVALID, where, "structural property \"%.64s\" is given twice",
                       sorted[dup].name);
    free(sorted);
    return st;
  }
  for (i = 0; i < count; i++) {
    if (i > 0)
      out_byte(o, ';');
    out_escaped(o, sorted[i].name);
    out_byte(o, '=');
    out_escaped(o, sorted[i].value);
  }
  free(sorted);
  return OLC_OK;
}

static olc_status compose(char *buf, size_t buf_size, size_t *len, const char *head,
                          const char *sep, const olc_property *structure, size_t count,
                          const char *where, olc_error *err) {
  text_out o;
  olc_status st;
  if (len != NULL)
    *len = 0;
  if (buf == NULL && buf_size > 0)
    return olc_error__set(err, OLC_E_INVALID, where, "buffer is NULL with %llu bytes",
                          (unsigned long long)buf_size);
  o.buf = buf;
  o.size = buf_size;
  o.pos = 0;
  if (buf_size > 0)
    buf[0] = 0;
  out_raw(&o, head);
  out_raw(&o, sep);
  st = out_structure(&o, structure, count, where, err);
  if (st != OLC_OK) {
    if (buf_size > 0)
      buf[0] = 0;
    return st;
  }
  return out_finish(&o, len, where, err);
}

olc_status olc_store_structure_text(char *buf, size_t buf_size, size_t *len,
                                    const olc_property *structure, size_t count, olc_error *err) {
  return compose(buf, buf_size, len, "", "", structure, count, "structure text", err);
}

olc_status olc_store_workload_digest(char *buf, size_t buf_size, size_t *len,
                                     const char *model_digest, const olc_property *structure,
                                     size_t count, olc_error *err) {
  if (model_digest == NULL)
    return compose(buf, buf_size, len, workload_prefix, "", structure, count, "workload digest",
                   err);
  return compose(buf, buf_size, len, model_digest, "#", structure, count, "workload digest", err);
}

const char *olc_store_workload_of_digest(const char *model_digest) {
  const char *hash;
  if (model_digest == NULL)
    return NULL;
  hash = strrchr(model_digest, '#');
  if (hash != NULL)
    return hash + 1;
  if (strncmp(model_digest, workload_prefix, WORKLOAD_PREFIX_LEN) == 0)
    return model_digest + WORKLOAD_PREFIX_LEN;
  return NULL;
}

size_t olc_store__digest_model_part(const char *model_digest) {
  const char *hash = model_digest != NULL ? strrchr(model_digest, '#') : NULL;
  return hash != NULL ? (size_t)(hash - model_digest) : (size_t)-1;
}

olc_status olc_record_workload(char *buf, size_t buf_size, size_t *len, const olc_record *record,
                               olc_error *err) {
  const char *wid;
  olc_status st;
  if (record == NULL)
    return olc_error__set(err, OLC_E_INVALID, "record workload", "record is NULL");
  if (record->level == OLC_LEVEL_PORTABLE)
    return compose(buf, buf_size, len, "", "", record->structure, record->structure_count,
                   "record workload", err);
  wid = olc_store_workload_of_digest(record->model_digest);
  st = compose(buf, buf_size, len, wid != NULL ? wid : "", "", NULL, 0, "record workload", err);
  if (st != OLC_OK || wid != NULL)
    return st;
  return olc_error__set(err, OLC_E_NOT_FOUND, "record workload",
                        "the exact record for model \"%.80s\" has no workload identity",
                        record->model_digest != NULL ? record->model_digest : "");
}
