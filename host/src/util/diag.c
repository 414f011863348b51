/*
 * util/diag.c - the diagnostics sink (util/diag.h).
 */
#include "util/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *olc_diag_level_str(olc_diag_level level) {
  switch (level) {
  case OLC_DIAG_WARNING:
    return "warning";
  }
  return "diagnostic";
}

void olc_diag__init(olc_diag_sink *sink, olc_diag_fn fn, void *payload) {
  memset(sink, 0, sizeof *sink);
  sink->fn = fn;
  sink->payload = payload;
  olc_util__mutex_init(&sink->lock);
  sink->live = 1;
}

void olc_diag__destroy(olc_diag_sink *sink) {
  if (sink == NULL)
    return;
  free(sink->ring);
  if (sink->live)
    olc_util__mutex_destroy(&sink->lock);
  memset(sink, 0, sizeof *sink);
}

/* Start of the UTF-8 sequence that ends at or covers dst[n - 1]. */
static size_t last_sequence(const char *dst, size_t n) {
  size_t i = n;
  while (i > 0 && ((unsigned char)dst[i - 1] & 0xc0u) == 0x80u)
    i--;
  return i > 0 ? i - 1 : 0;
}

/* Length of the sequence a lead byte announces (1 for anything else). */
static size_t sequence_length(unsigned char c) {
  if (c >= 0xf0u && c <= 0xf4u)
    return 4;
  if (c >= 0xe0u)
    return 3;
  if (c >= 0xc2u && c < 0xe0u)
    return 2;
  return 1;
}

void olc_diag__one_line(char *dst, size_t size, const char *src) {
  size_t n, i;
  snprintf(dst, size, "%s", src != NULL ? src : "");
  n = strlen(dst);
  /* snprintf may have cut the last multi-byte sequence: drop it whole. */
  if (n > 0 && n == size - 1 && ((unsigned char)dst[n - 1] & 0x80u) != 0) {
    size_t start = last_sequence(dst, n);
    if (start + sequence_length((unsigned char)dst[start]) > n)
      dst[start] = 0;
  }
  for (i = 0; dst[i] != 0; i++)
    if ((unsigned char)dst[i] < 0x20u || dst[i] == 0x7f)
      dst[i] = ' ';
}

/* Keeps d, dropping the oldest when the ring is full. */
static void keep(olc_diag_sink *sink, const olc_diagnostic *d) {
  olc_util__mutex_lock(&sink->lock);
  if (sink->ring == NULL)
    sink->ring = malloc(OLC_DIAG_KEEP * sizeof *sink->ring);
  if (sink->ring == NULL) {
    sink->dropped++;
  } else {
    if (sink->count == OLC_DIAG_KEEP) {
      sink->first = (sink->first + 1) % OLC_DIAG_KEEP;
      sink->count--;
      sink->dropped++;
    }
    sink->ring[(sink->first + sink->count) % OLC_DIAG_KEEP] = *d;
    sink->count++;
  }
  olc_util__mutex_unlock(&sink->lock);
}

void olc_diag__emit(olc_diag_sink *sink, olc_diag_level level, const char *where, const char *fmt,
                    ...) {
  olc_diagnostic d;
  char text[OLC_DIAG_MESSAGE_SIZE];
  va_list ap;
  if (sink == NULL || !sink->live)
    return;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  d.level = level;
  olc_diag__one_line(d.where, sizeof d.where, where);
  olc_diag__one_line(d.message, sizeof d.message, text);
  if (sink->fn != NULL)
    sink->fn(sink->payload, d.level, d.where, d.message);
  else
    keep(sink, &d);
}

olc_status olc_diag__take(olc_diagnostic *out, olc_diag_sink *sink) {
  olc_status st = OLC_E_NOT_FOUND;
  if (sink == NULL || !sink->live)
    return st;
  olc_util__mutex_lock(&sink->lock);
  if (sink->count > 0) {
    *out = sink->ring[sink->first];
    sink->first = (sink->first + 1) % OLC_DIAG_KEEP;
    sink->count--;
    st = OLC_OK;
  }
  olc_util__mutex_unlock(&sink->lock);
  return st;
}

uint64_t olc_diag__dropped(olc_diag_sink *sink) {
  uint64_t n;
  if (sink == NULL || !sink->live)
    return 0;
  olc_util__mutex_lock(&sink->lock);
  n = sink->dropped;
  olc_util__mutex_unlock(&sink->lock);
  return n;
}
