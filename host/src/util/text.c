#include "util/text.h"

#include <stdlib.h>
#include <string.h>

/* The length of the sequence a lead byte starts (0: not a lead byte), and
 * the bits it contributes to the code point. */
static size_t utf8_lead(unsigned c, unsigned *cp) {
  if (c >= 0xC2u && c <= 0xDFu) {
    *cp = c & 0x1Fu;
    return 2;
  }
  if (c >= 0xE0u && c <= 0xEFu) {
    *cp = c & 0x0Fu;
    return 3;
  }
  if (c >= 0xF0u && c <= 0xF4u) {
    *cp = c & 0x07u;
    return 4;
  }
  return 0;
}

int olc_util__utf8_valid(const char *text, size_t len) {
  const unsigned char *s = (const unsigned char *)text;
  size_t i = 0, n, k;
  unsigned cp;
  while (i < len) {
    if (s[i] < 0x80u) {
      i++;
      continue;
    }
    n = utf8_lead(s[i], &cp);
    if (n == 0 || len - i < n)
      return 0;
    for (k = 1; k < n; k++) {
      if ((s[i + k] & 0xC0u) != 0x80u)
        return 0;
      cp = (cp << 6) | (s[i + k] & 0x3Fu);
    }
    /* Overlong forms, surrogates and values past U+10FFFF. */
    if ((n == 3 && cp < 0x800u) || (n == 4 && cp < 0x10000u) || cp > 0x10FFFFu ||
        (cp >= 0xD800u && cp <= 0xDFFFu))
      return 0;
    i += n;
  }
  return 1;
}

int olc_util__is_absolute(const char *path) {
#ifdef _WIN32
  return path[0] == '\\' || path[0] == '/' || (path[0] != 0 && path[1] == ':');
#else
  return path[0] == '/';
#endif
}

int olc_util__is_sep(char c) {
#ifdef _WIN32
  return c == '/' || c == '\\';
#else
  return c == '/';
#endif
}

void olc_util__free_names(char **names, size_t count) {
  size_t i;
  if (names == NULL)
    return;
  for (i = 0; i < count; i++)
    free(names[i]);
  free(names);
}

char *olc_util__join_path(const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  char *p = malloc(a + b + 2);
  if (p == NULL)
    return NULL;
#ifdef _WIN32
  const char sep = '\\';
#else
  const char sep = '/';
#endif
  memcpy(p, dir, a);
  if (a == 0 || !olc_util__is_sep(dir[a - 1]))
    p[a++] = sep;
  memcpy(p + a, name, b + 1);
  return p;
}

const char *olc_util__trim(const char *s, size_t *len) {
  size_t n = *len;
  while (n > 0 && (*s == ' ' || *s == '\t')) {
    s++;
    n--;
  }
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
    n--;
  *len = n;
  return s;
}
