/*
 * host/cli/report_escape.c - text from plugins, the configuration and the
 * store as HTML (report_int.h).  Every such string reaches the report
 * through these two functions.
 */
#include "report_int.h"

#include <string.h>

void cli_html_text(FILE *f, const unsigned char *s, size_t len) {
  size_t i = 0;
  while (i < len) {
    unsigned char c = s[i];
    size_t n;
    switch (c) {
    case '&':
      fputs("&amp;", f);
      i++;
      continue;
    case '<':
      fputs("&lt;", f);
      i++;
      continue;
    case '>':
      fputs("&gt;", f);
      i++;
      continue;
    case '"':
      fputs("&quot;", f);
      i++;
      continue;
    case '\'':
      fputs("&#39;", f);
      i++;
      continue;
    default:
      break;
    }
    if (c < 0x20 || c == 0x7f) {
      fprintf(f, "\\x%02X", (unsigned)c);
      i++;
      continue;
    }
    n = c < 0x80 ? 1 : cli_utf8_sequence(s + i, len - i);
    if (n == 0) {
      fprintf(f, "\\x%02X", (unsigned)c);
      i++;
      continue;
    }
    fwrite(s + i, 1, n, f);
    i += n;
  }
}

void cli_html_str(FILE *f, const char *s) {
  if (s != NULL)
    cli_html_text(f, (const unsigned char *)s, strlen(s));
}
