/* calibrate/wire.c - encoding and decoding of worker frames (wire.h). */
#include "calibrate/wire.h"

#include <stddef.h>
#include <string.h>

#include "calibrate/timing.h"

static void put_raw(olc_wire_writer *w, const void *p, size_t len) {
  if (w->st == OLC_OK)
    w->st = olc_buf__append(&w->buf, p, len);
}

static void le32(unsigned char b[4], uint32_t v) {
  b[0] = (unsigned char)v;
  b[1] = (unsigned char)(v >> 8);
  b[2] = (unsigned char)(v >> 16);
  b[3] = (unsigned char)(v >> 24);
}

static uint32_t rd32(const unsigned char *b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

void olc_wire__begin(olc_wire_writer *w, uint32_t type) {
  unsigned char h[OLC_WIRE_HEADER_SIZE];
  memset(w, 0, sizeof *w);
  le32(h, type);
  le32(h + 4, 0);
  put_raw(w, h, sizeof h);
}

void olc_wire__put_u32(olc_wire_writer *w, uint32_t v) {
  unsigned char b[4];
  le32(b, v);
  put_raw(w, b, sizeof b);
}

void olc_wire__put_u64(olc_wire_writer *w, uint64_t v) {
  olc_wire__put_u32(w, (uint32_t)v);
  olc_wire__put_u32(w, (uint32_t)(v >> 32));
}

void olc_wire__put_f64(olc_wire_writer *w, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  olc_wire__put_u64(w, bits);
}

void olc_wire__put_str(olc_wire_writer *w, const char *s) {
  size_t n;
  if (s == NULL) {
    olc_wire__put_u32(w, 0);
    return;
  }
  n = strlen(s) + 1;
  if (n > OLC_WIRE_MAX_FRAME) {
    if (w->st == OLC_OK)
      w->st = OLC_E_LIMIT;
    return;
  }
  olc_wire__put_u32(w, (uint32_t)n);
  put_raw(w, s, n);
}

void olc_wire__put_bytes(olc_wire_writer *w, const void *p, size_t len) {
  if (len > OLC_WIRE_MAX_FRAME) {
    if (w->st == OLC_OK)
      w->st = OLC_E_LIMIT;
    return;
  }
  olc_wire__put_u32(w, (uint32_t)len);
  put_raw(w, p, len);
}

olc_status olc_wire__finish(olc_wire_writer *w) {
  size_t n;
  if (w->st != OLC_OK)
    return w->st;
  n = w->buf.len - OLC_WIRE_HEADER_SIZE;
  if (n > OLC_WIRE_MAX_FRAME)
    return w->st = OLC_E_LIMIT;
  le32(w->buf.data + 4, (uint32_t)n);
  return OLC_OK;
}

void olc_wire__writer_free(olc_wire_writer *w) { olc_buf__free(&w->buf); }

void olc_wire__reader(olc_wire_reader *r, const void *payload, size_t len) {
  r->p = payload;
  r->len = payload != NULL ? len : 0;
  r->pos = 0;
  r->bad = 0;
}

/* The next n bytes, or NULL (and bad) when fewer are left. */
static const unsigned char *take(olc_wire_reader *r, size_t n) {
  const unsigned char *p;
  if (r->bad || n > r->len - r->pos) {
    r->bad = 1;
    return NULL;
  }
  p = r->p + r->pos;
  r->pos += n;
  return p;
}

uint32_t olc_wire__get_u32(olc_wire_reader *r) {
  const unsigned char *p = take(r, 4);
  return p != NULL ? rd32(p) : 0;
}

uint64_t olc_wire__get_u64(olc_wire_reader *r) {
  uint64_t lo = olc_wire__get_u32(r);
  uint64_t hi = olc_wire__get_u32(r);
  return lo | hi << 32;
}

double olc_wire__get_f64(olc_wire_reader *r) {
  uint64_t bits = olc_wire__get_u64(r);
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

const char *olc_wire__get_str(olc_wire_reader *r) {
  uint32_t n = olc_wire__get_u32(r);
  const unsigned char *p;
  if (n == 0)
    return NULL;
  p = take(r, n);
  /* Exactly one NUL, at the end: a C string of n - 1 bytes. */
  if (p == NULL || p[n - 1] != 0 || memchr(p, 0, n - 1) != NULL) {
    r->bad = 1;
    return NULL;
  }
  return (const char *)p;
}

const void *olc_wire__get_bytes(olc_wire_reader *r, size_t *len) {
  uint32_t n = olc_wire__get_u32(r);
  const unsigned char *p = take(r, n);
  *len = p != NULL ? n : 0;
  return p;
}

int olc_wire__done(const olc_wire_reader *r) { return !r->bad && r->pos == r->len; }

olc_status olc_wire__header(const unsigned char h[OLC_WIRE_HEADER_SIZE], uint32_t *type,
                            uint32_t *len) {
  *type = rd32(h);
  *len = rd32(h + 4);
  return *len <= OLC_WIRE_MAX_FRAME ? OLC_OK : OLC_E_MALFORMED;
}

/* The fields of olc_timing_params that a MEASURE frame carries, in
 * order, so that the host (isolate.c) and the worker encode and decode
 * them from one list.  deadline_ns is not one: it travels as the time
 * left, next to them. */
typedef enum wire_kind { WIRE_U32, WIRE_F64 } wire_kind;

#define PARAM(member, kind)                                                                        \
  { offsetof(olc_timing_params, member), sizeof(((olc_timing_params *)0)->member), kind }

static const struct wire_param {
  size_t offset;
  size_t size;
  wire_kind kind;
} wire_params[] = {
    PARAM(warmup, WIRE_U32),          /* untimed runs */
    PARAM(min_repetitions, WIRE_U32), /* timed runs at least */
    PARAM(min_seconds, WIRE_F64),     /* and at least this long */
    PARAM(abandon_factor, WIRE_F64),  /* abandon past factor x best_us */
    PARAM(best_us, WIRE_F64),         /* best median so far; < 0: none */
    PARAM(check, WIRE_U32),           /* check numerically before timing */
    PARAM(max_runs, WIRE_U32),        /* timed runs at most; 0: no cap */
};

#undef PARAM

void olc_wire__put_params(olc_wire_writer *w, const olc_timing_params *params) {
  const char *base = (const char *)params;
  size_t i;
  for (i = 0; i < sizeof wire_params / sizeof wire_params[0]; i++) {
    const struct wire_param *f = &wire_params[i];
    uint32_t u;
    double d;
    if (f->kind == WIRE_U32 && f->size == sizeof u) {
      memcpy(&u, base + f->offset, sizeof u);
      olc_wire__put_u32(w, u);
    } else if (f->kind == WIRE_F64 && f->size == sizeof d) {
      memcpy(&d, base + f->offset, sizeof d);
      olc_wire__put_f64(w, d);
    } else if (w->st == OLC_OK) {
      w->st = OLC_E_INTERNAL; /* a row whose kind is not its field's type */
    }
  }
}

void olc_wire__get_params(olc_wire_reader *r, olc_timing_params *params) {
  char *base = (char *)params;
  size_t i;
  for (i = 0; i < sizeof wire_params / sizeof wire_params[0]; i++) {
    const struct wire_param *f = &wire_params[i];
    if (f->kind == WIRE_U32 && f->size == sizeof(uint32_t)) {
      uint32_t u = olc_wire__get_u32(r);
      memcpy(base + f->offset, &u, sizeof u);
    } else if (f->kind == WIRE_F64 && f->size == sizeof(double)) {
      double d = olc_wire__get_f64(r);
      memcpy(base + f->offset, &d, sizeof d);
    } else {
      r->bad = 1;
    }
  }
}
