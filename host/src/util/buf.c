/* util/buf.c - growable byte buffer. */
#include "util/buf.h"
#include "util/bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

olc_status olc_buf__reserve(olc_buf *buf, size_t extra) {
  size_t need;
  size_t cap;
  unsigned char *p;
  if (extra > SIZE_MAX - buf->len - 1)
    return OLC_E_NOMEM;
  need = buf->len + extra + 1; /* room for a terminating NUL */
  if (buf->limit != 0 && buf->len + extra > buf->limit)
    return OLC_E_LIMIT;
  if (need <= buf->cap)
    return OLC_OK;
  cap = buf->cap ? buf->cap : 64;
  while (cap < need)
    cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  p = realloc(buf->data, cap);
  if (p == NULL)
    return OLC_E_NOMEM;
  buf->data = p;
  buf->cap = cap;
  olc_bigmem__advise(p, cap);
  return OLC_OK;
}

olc_status olc_buf__append(olc_buf *buf, const void *data, size_t len) {
  olc_status st;
  if (len == 0)
    return OLC_OK;
  st = olc_buf__reserve(buf, len);
  if (st != OLC_OK)
    return st;
  memcpy(buf->data + buf->len, data, len);
  buf->len += len;
  return OLC_OK;
}

olc_status olc_buf__putc(olc_buf *buf, unsigned char c) {
  olc_status st = olc_buf__reserve(buf, 1);
  if (st != OLC_OK)
    return st;
  buf->data[buf->len++] = c;
  return OLC_OK;
}

olc_status olc_buf__puts(olc_buf *buf, const char *s) { return olc_buf__append(buf, s, strlen(s)); }

olc_status olc_buf__terminate(olc_buf *buf) {
  olc_status st = olc_buf__reserve(buf, 0);
  if (st != OLC_OK)
    return st;
  buf->data[buf->len] = 0;
  return OLC_OK;
}

void olc_buf__reset(olc_buf *buf) { buf->len = 0; }

void olc_buf__free(olc_buf *buf) {
  free(buf->data);
  buf->data = NULL;
  buf->len = buf->cap = 0;
}

unsigned char *olc_buf__detach(olc_buf *buf, size_t *len) {
  unsigned char *p = buf->data;
  if (len != NULL)
    *len = buf->len;
  buf->data = NULL;
  buf->len = buf->cap = 0;
  return p;
}

olc_status olc_bytes_append(olc_bytes *out, const void *data, size_t len) {
  if (out == NULL || (data == NULL && len != 0))
    return OLC_E_INVALID;
  return olc_buf__append(out, data, len);
}
