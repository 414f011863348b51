/*
 * tests/store/store_model.c - the in-memory model (store_model.h).
 */
#include "store_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The identity part of a line: everything before the value. */
static void identity(char *out, size_t size, const olc_record *r) {
  char structure[64] = "";
  size_t i, used = 0;
  for (i = 0; i < r->structure_count && used < sizeof structure; i++)
    used += (size_t)snprintf(structure + used, sizeof structure - used, "%s=%s;",
                             r->structure[i].name, r->structure[i].value);
  if (r->level == OLC_LEVEL_EXACT)
    snprintf(out, size, "exact %s %s|%s|%s|%s|%s|%lld", olc_origin_str(r->origin), r->backend,
             r->operator_name, r->implementation, r->model_digest ? r->model_digest : "-",
             r->processor ? r->processor : "-", (long long)r->thread_count);
  else
    snprintf(out, size, "portable %s %s|%s|%s|%s", olc_origin_str(r->origin), r->backend,
             r->operator_name, r->implementation, structure);
}

void model_line(char *out, size_t size, const olc_record *r) {
  char id[MODEL_LINE];
  identity(id, sizeof id, r);
  int n = snprintf(out, size, "%s %.17g %.*s", id,
                   r->measurement_count > 0 ? r->measurements[0].value : -1.0, (int)r->policy_len,
                   (const char *)r->policy);
  /* Lines are compared whole: a truncated one would hide a difference. */
  if (n < 0 || (size_t)n >= size)
    abort();
}

static size_t find(const model *m, const olc_record *r) {
  char id[MODEL_LINE];
  size_t i, n;
  identity(id, sizeof id, r);
  n = strlen(id);
  for (i = 0; i < m->count; i++)
    if (strncmp(m->lines[i], id, n) == 0 && m->lines[i][n] == ' ')
      return i;
  return (size_t)-1;
}

void model_put(model *m, const olc_record *r) {
  size_t i = find(m, r);
  if (i == (size_t)-1) {
    if (m->count == MODEL_MAX)
      abort();
    i = m->count++;
  }
  model_line(m->lines[i], MODEL_LINE, r);
  model_sort(m);
}

int model_remove(model *m, const olc_record *r) {
  size_t i = find(m, r);
  if (i == (size_t)-1)
    return 0;
  memmove(m->lines[i], m->lines[i + 1], (m->count - i - 1) * MODEL_LINE);
  m->count--;
  return 1;
}

static int cmp_lines(const void *a, const void *b) { return strcmp(a, b); }

void model_sort(model *m) { qsort(m->lines, m->count, MODEL_LINE, cmp_lines); }

int model_equal(const model *a, const model *b) {
  size_t i;
  if (a->count != b->count)
    return 0;
  for (i = 0; i < a->count; i++)
    if (strcmp(a->lines[i], b->lines[i]) != 0)
      return 0;
  return 1;
}

void model_from_list(model *m, const olc_record_list *list) {
  size_t i, n = olc_record_list_count(list);
  m->count = 0;
  if (n > MODEL_MAX)
    abort(); /* far more than the test's key universe allows */
  for (i = 0; i < n; i++)
    model_line(m->lines[m->count++], MODEL_LINE, olc_record_list_get(list, i));
  model_sort(m);
}

void model_print(const char *title, const model *m) {
  size_t i;
  fprintf(stderr, "%s (%zu records):\n", title, m->count);
  for (i = 0; i < m->count; i++)
    fprintf(stderr, "  %s\n", m->lines[i]);
}
