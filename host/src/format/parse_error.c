/*
 * format/parse_error.c - how the reader reports a malformed file: field
 * names, file text shown in a message, and the line, column and offset of
 * the byte at fault.  Line and column are computed from the offset only
 * here, when an error is reported, so the happy path counts nothing.
 */
#include "format/parse_int.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"

static const char *const parse_field_names[] = {
    "backend",      "operator",  "implementation", "model_digest", "processor",
    "thread_count", "structure", "measurement",    "policy",       "end"};

const char *olc_format__field_name(int field) {
  if (field < 0 || field > PF_END)
    return "?";
  return parse_field_names[field];
}

/* Shows up to 32 bytes of file text in a message, escaping what is not
 * printable ASCII so that the message stays one line. */
void olc_format__show(char *out, size_t size, const unsigned char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t o = 0, i;
  for (i = 0; i < n && i < 32 && o + 5 < size; i++) {
    unsigned char c = s[i];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out[o++] = (char)c;
    } else {
      out[o++] = '\\';
      out[o++] = 'x';
      out[o++] = hex[c >> 4];
      out[o++] = hex[c & 15];
    }
  }
  if (i < n && o + 4 < size) {
    memcpy(out + o, "...", 3);
    o += 3;
  }
  out[o] = 0;
}

void olc_format__position(const unsigned char *base, const unsigned char *at, uint32_t *line,
                          uint32_t *column) {
  const unsigned char *q = base, *line_start = base;
  uint64_t l = 1, c;
  while (q < at) {
    const unsigned char *nl = memchr(q, '\n', (size_t)(at - q));
    if (nl == NULL)
      break;
    l++;
    line_start = nl + 1;
    q = nl + 1;
  }
  c = (uint64_t)(at - line_start) + 1;
  *line = l > UINT32_MAX ? UINT32_MAX : (uint32_t)l;
  *column = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

olc_status olc_format__fail(olc_format_parser *ps, const unsigned char *at, olc_status code,
                            const char *fmt, ...) {
  char msg[OLC_ERROR_MESSAGE_SIZE];
  uint32_t line, column;
  va_list ap;
  if (ps->err == NULL)
    return code;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  olc_format__position(ps->base, at, &line, &column);
  olc_error__set(ps->err, code, "parse", "%s", msg);
  olc_error__at(ps->err, line, column, (uint64_t)(at - ps->base));
  return code;
}
