/*
 * util/diag.h - a diagnostics sink (olc/diag.h): hands each diagnostic to
 * the caller's callback, or keeps the last OLC_DIAG_KEEP of them for the
 * caller to take, with a count of those dropped.
 *
 * Thread-safe: any thread may emit, take or count at once.  The callback is
 * called outside the sink's lock; the ring is allocated at the first
 * diagnostic kept (when that fails, the diagnostic counts as dropped).
 */
#ifndef OLC_UTIL_DIAG_H
#define OLC_UTIL_DIAG_H

#include <stddef.h>
#include <stdint.h>

#include "olc/diag.h"
#include "olc/error.h"
#include "util/error.h"
#include "util/platform.h"

typedef struct olc_diag_sink {
  olc_diag_fn fn; /* NULL: keep */
  void *payload;
  olc_util_mutex lock;
  olc_diagnostic *ring; /* OLC_DIAG_KEEP slots, NULL until the first kept */
  size_t first;         /* oldest kept */
  size_t count;         /* kept */
  uint64_t dropped;
  int live; /* initialized (a zeroed sink is not) */
} olc_diag_sink;

/* Sets up a sink for fn and payload (fn NULL: keep). */
void olc_diag__init(olc_diag_sink *sink, olc_diag_fn fn, void *payload);
/* Frees what the sink keeps; a zeroed or destroyed sink is fine. */
void olc_diag__destroy(olc_diag_sink *sink);

/* Emits a diagnostic (message formatted like printf and made one line).
 * A NULL or zeroed sink drops it silently; take and dropped find nothing
 * in one either. */
void olc_diag__emit(olc_diag_sink *sink, olc_diag_level level, const char *where, const char *fmt,
                    ...) OLC_PRINTF(4, 5);

/* Copies the oldest kept diagnostic into *out and forgets it: OLC_OK, or
 * OLC_E_NOT_FOUND when none is kept. */
olc_status olc_diag__take(olc_diagnostic *out, olc_diag_sink *sink);
/* Diagnostics dropped to make room (or for want of memory) so far. */
uint64_t olc_diag__dropped(olc_diag_sink *sink);

/* Copies src into dst (size > 0) as one line: control characters become
 * spaces and a multi-byte sequence cut by the size is dropped whole. */
void olc_diag__one_line(char *dst, size_t size, const char *src);

#endif
