/*
 * host/cli/report_escape.c - text from plugins, the configuration and the
 * store as HTML (report_int.h).  Every such string reaches the report
 * through these functions: escaped, its invisible characters made visible,
 * and, as a value in the page, isolated in <bdi>.
 */
#include "report_int.h"

#include <string.h>

/* The code point of the well-formed n-byte sequence at s. */
static unsigned long code_point(const unsigned char *s, size_t n) {
  unsigned long cp = n == 1 ? s[0] : (unsigned long)(s[0] & (0x7fu >> n));
  size_t k;
  for (k = 1; k < n; k++)
    cp = cp << 6 | (unsigned long)(s[k] & 0x3fu);
  return cp;
}

/* 1 for the characters that change how text around them is shown while
 * showing nothing themselves: C1 controls, the bidi marks, embeddings,
 * overrides and isolates (a U+202E reverses what follows it), the line and
 * paragraph separators, and the zero-width space and no-break space (BOM).
 * Zero-width joiners stay: scripts and emoji need them. */
static int invisible(unsigned long cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || cp == 0x200b || cp == 0x200e ||
         cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
         cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb);
}

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
    if (n > 1 && invisible(code_point(s + i, n)))
      fprintf(f, "&lt;U+%04lX&gt;", code_point(s + i, n));
    else
      fwrite(s + i, 1, n, f);
    i += n;
  }
}

void cli_html_str(FILE *f, const char *s) {
  if (s != NULL)
    cli_html_text(f, (const unsigned char *)s, strlen(s));
}

void cli_html_value_text(FILE *f, const unsigned char *s, size_t len) {
  fputs("<bdi>", f);
  cli_html_text(f, s, len);
  fputs("</bdi>", f);
}

void cli_html_value(FILE *f, const char *s) {
  if (s != NULL)
    cli_html_value_text(f, (const unsigned char *)s, strlen(s));
}
