/*
 * host/cli/cli_fit.c - text fitted to a width: the width of the output,
 * text made safe for a terminal, its width in columns, and shortening with
 * a middle ellipsis.  No library calls, so that the unit test compiles it
 * in directly.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#if defined(_WIN32)
#include <io.h>
#include <windows.h>
#else
#include <sys/ioctl.h>
#include <unistd.h>
#endif

size_t cli_safe_unit(char out[5], const unsigned char *s, size_t len, size_t *consumed) {
  static const char hex[] = "0123456789abcdef";
  unsigned c = s[0];
  size_t n = c >= 0x80 ? cli_utf8_sequence(s, len) : 0;
  if (c >= 0x20 && c < 0x7F && c != '\\') {
    out[0] = (char)c;
    out[1] = 0;
    *consumed = 1;
    return 1;
  }
  /* Whole characters as they are, but never the C1 controls (U+0080 to
   * U+009F): some terminals act on them. */
  if (n != 0 && !(c == 0xC2 && s[1] < 0xA0)) {
    memcpy(out, s, n);
    out[n] = 0;
    *consumed = n;
    return n;
  }
  out[0] = '\\';
  out[1] = 'x';
  out[2] = hex[(c >> 4) & 0xfu];
  out[3] = hex[c & 0xfu];
  out[4] = 0;
  *consumed = 1;
  return 4;
}

char *cli_safe_text(const char *text) {
  return cli_safe_bytes((const unsigned char *)(text != NULL ? text : ""),
                        text != NULL ? strlen(text) : 0);
}

char *cli_safe_bytes(const unsigned char *s, size_t len) {
  size_t i = 0, n = 0, used;
  char *buf = malloc(len * 4 + 1), unit[5];
  if (buf == NULL)
    return NULL;
  while (i < len) {
    size_t k = cli_safe_unit(unit, s + i, len - i, &used);
    memcpy(buf + n, unit, k);
    n += k;
    i += used;
  }
  buf[n] = 0;
  return buf;
}

size_t cli_text_width(const char *s) {
  size_t n = 0;
  for (; *s != 0; s++)
    if (((unsigned char)*s & 0xC0u) != 0x80u)
      n++;
  return n;
}

/* Byte offset of character k of s (or its end). */
static size_t char_offset(const char *s, size_t k) {
  size_t i = 0;
  while (s[i] != 0) {
    if (((unsigned char)s[i] & 0xC0u) != 0x80u) {
      if (k == 0)
        return i;
      k--;
    }
    i++;
  }
  return i;
}

void cli_put_fitted(FILE *out, const char *s, size_t cols, int pad) {
  size_t w = cli_text_width(s);
  if (w > cols && cols > 3) {
    /* The start and the end say the most about an identity: keep both. */
    size_t head = (cols - 3 + 1) / 2, tail = cols - 3 - head;
    size_t tail_at = char_offset(s, w - tail);
    fwrite(s, 1, char_offset(s, head), out);
    fputs("...", out);
    fputs(s + tail_at, out);
    w = cols;
  } else if (w > cols) {
    fwrite(s, 1, char_offset(s, cols), out);
    w = cols;
  } else {
    fputs(s, out);
  }
  for (; pad && w < cols; w++)
    fputc(' ', out);
}

/* $COLUMNS when it is a width: a decimal number from 1 to 10000. */
static int env_columns(void) {
#if defined(_WIN32)
  const char *v = getenv("COLUMNS");
#else
  /* Not honoured in a privileged process, like every other variable. */
  const char *v = secure_getenv("COLUMNS");
#endif
  long n = 0;
  if (v == NULL || *v == 0)
    return 0;
  for (; *v != 0; v++) {
    if (*v < '0' || *v > '9' || n > 10000)
      return 0;
    n = n * 10 + (*v - '0');
  }
  return n >= 1 && n <= 10000 ? (int)n : 0;
}

int cli_output_width(FILE *out) {
  int w = env_columns(), tty;
  if (w > 0)
    return w;
#if defined(_WIN32)
  {
    CONSOLE_SCREEN_BUFFER_INFO info;
    HANDLE h = (HANDLE)_get_osfhandle(_fileno(out));
    tty = _isatty(_fileno(out));
    if (tty && GetConsoleScreenBufferInfo(h, &info))
      w = info.srWindow.Right - info.srWindow.Left + 1;
  }
#else
  {
    struct winsize ws;
    tty = isatty(fileno(out));
    if (tty && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0)
      w = ws.ws_col;
  }
#endif
  /* A file or a pipe is read by tools and people who scroll: cut nothing
   * (a policy cut in the middle is of no use to either). */
  if (!tty)
    return 0;
  return w > 0 ? w : CLI_DEFAULT_WIDTH;
}
