/*
 * tests/persist/counter_format.h - a tiny file format of our own for
 * the durability tests (header-only, static functions):
 *
 *   olc-test-counter\n
 *   <name> <decimal>\n      (sorted by name, at most COUNTER_MAX entries)
 *   end\n
 *
 * A file that is empty, cut short or has garbage is malformed, so a torn or
 * truncated write is always detected.
 */
#ifndef OLC_TEST_COUNTER_FORMAT_H
#define OLC_TEST_COUNTER_FORMAT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNTER_MAX 64
#define COUNTER_NAME 32

typedef struct counter_map {
  int n;
  char name[COUNTER_MAX][COUNTER_NAME];
  long value[COUNTER_MAX];
} counter_map;

/* 0 on success, -1 when malformed. */
static inline int counter_parse(counter_map *m, const unsigned char *p, size_t len) {
  static const char head[] = "olc-test-counter\n";
  size_t i = sizeof head - 1;
  m->n = 0;
  if (len < i || memcmp(p, head, i) != 0)
    return -1;
  for (;;) {
    size_t start = i, nl;
    long v = 0;
    int digits = 0;
    if (len - i == 4 && memcmp(p + i, "end\n", 4) == 0)
      return 0;
    while (i < len && p[i] != ' ' && p[i] != '\n')
      i++;
    if (i >= len || p[i] != ' ' || i == start || i - start >= COUNTER_NAME || m->n == COUNTER_MAX)
      return -1;
    nl = i - start;
    memcpy(m->name[m->n], p + start, nl);
    m->name[m->n][nl] = 0;
    if (m->n > 0 && strcmp(m->name[m->n - 1], m->name[m->n]) >= 0)
      return -1;
    for (i++; i < len && p[i] >= '0' && p[i] <= '9' && digits < 12; i++, digits++)
      v = v * 10 + (p[i] - '0');
    if (digits == 0 || i >= len || p[i] != '\n')
      return -1;
    i++;
    m->value[m->n++] = v;
  }
}

static inline long counter_get(const counter_map *m, const char *name) {
  int i;
  for (i = 0; i < m->n; i++)
    if (strcmp(m->name[i], name) == 0)
      return m->value[i];
  return 0;
}

/* Adds delta to name, keeping the names sorted; -1 when full. */
static inline int counter_add(counter_map *m, const char *name, long delta) {
  int i, j;
  for (i = 0; i < m->n; i++) {
    int c = strcmp(m->name[i], name);
    if (c == 0) {
      m->value[i] += delta;
      return 0;
    }
    if (c > 0)
      break;
  }
  if (m->n == COUNTER_MAX || strlen(name) >= COUNTER_NAME)
    return -1;
  for (j = m->n; j > i; j--) {
    memcpy(m->name[j], m->name[j - 1], COUNTER_NAME);
    m->value[j] = m->value[j - 1];
  }
  snprintf(m->name[i], COUNTER_NAME, "%s", name);
  m->value[i] = delta;
  m->n++;
  return 0;
}

/* Serializes into a malloc'ed buffer; pad adds a "pad" entry's worth of
 * text so that files can be made larger than one write. */
static inline char *counter_format(const counter_map *m, size_t *len) {
  size_t cap = 32 + (size_t)m->n * (COUNTER_NAME + 24), n;
  char *out = malloc(cap);
  int i;
  if (out == NULL)
    return NULL;
  n = (size_t)snprintf(out, cap, "olc-test-counter\n");
  for (i = 0; i < m->n; i++)
    n += (size_t)snprintf(out + n, cap - n, "%s %ld\n", m->name[i], m->value[i]);
  n += (size_t)snprintf(out + n, cap - n, "end\n");
  *len = n;
  return out;
}

#endif
