/*
 * util/buf.h - a growable byte buffer, and the olc_bytes writer that
 * serializer callbacks append to.
 */
#ifndef OLC_UTIL_BUF_H
#define OLC_UTIL_BUF_H

#include <stddef.h>

#include "olc/store.h"

/* Also the public olc_bytes: a serializer's output is an olc_buf. */
struct olc_bytes {
  unsigned char *data;
  size_t len;
  size_t cap;
  size_t limit; /* 0: no limit; else appends past it fail with OLC_E_LIMIT */
};
typedef struct olc_bytes olc_buf;

#define OLC_BUF_INIT                                                                               \
  { NULL, 0, 0, 0 }

/* Ensures room for extra more bytes. OLC_OK, OLC_E_NOMEM or OLC_E_LIMIT. */
olc_status olc_buf__reserve(olc_buf *buf, size_t extra);
olc_status olc_buf__append(olc_buf *buf, const void *data, size_t len);
olc_status olc_buf__putc(olc_buf *buf, unsigned char c);
olc_status olc_buf__puts(olc_buf *buf, const char *s);
/* Keeps a NUL after the last byte (not counted in len). */
olc_status olc_buf__terminate(olc_buf *buf);
void olc_buf__reset(olc_buf *buf);
void olc_buf__free(olc_buf *buf);
/* Hands the bytes to the caller (free()) and empties the buffer. */
unsigned char *olc_buf__detach(olc_buf *buf, size_t *len);

#endif
