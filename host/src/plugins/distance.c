/*
 * plugins/distance.c - how far apart two workloads' structures are (ABI
 * 1.4 distance), for the nearest measured answer on a miss: the plugin's
 * own notion when it has one, else the host's default (plugin.h).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/plugins_int.h"

/* A positive number, or a "lo-hi" bucket of two (its geometric middle,
 * so that a bucket lies as far from its ends on a log scale); 0 when the
 * text is neither. */
static double default_value(const char *s) {
  char *end;
  double lo = strtod(s, &end), hi;
  if (end == s || !(lo > 0) || !(lo <= DBL_MAX))
    return 0;
  if (*end == 0)
    return lo;
  if (*end != '-')
    return 0;
  s = end + 1;
  hi = strtod(s, &end);
  if (end == s || *end != 0 || !(hi >= lo) || !(hi <= DBL_MAX))
    return 0;
  return sqrt(lo * hi);
}

/* The default: |log2(a / b)| summed over numeric properties, 0 for equal
 * text; a property only one side has, or differing text that is not a
 * number, makes the two not comparable (-1). */
static double default_distance(const olc_plugin_kv *a, uint32_t a_count, const olc_plugin_kv *b,
                               uint32_t b_count) {
  double d = 0;
  uint32_t i, j;
  if (a_count != b_count)
    return -1;
  for (i = 0; i < a_count; i++) {
    double x, y;
    for (j = 0; j < b_count && strcmp(a[i].key, b[j].key) != 0; j++)
      ;
    if (j == b_count)
      return -1;
    if (strcmp(a[i].value, b[j].value) == 0)
      continue;
    x = default_value(a[i].value);
    y = default_value(b[j].value);
    if (x == 0 || y == 0)
      return -1;
    d += fabs(log2(x / y));
  }
  return d;
}

int olc_plugins__has_distance(const olc_loaded_plugin *p) {
  return OLC_PLUGIN_HAS_FIELD(p->table, olc_plugin, distance) && p->table->distance != NULL;
}

double olc_plugins__distance(olc_loaded_plugin *p, const char *operator_name,
                             const olc_plugin_kv *a, uint32_t a_count, const olc_plugin_kv *b,
                             uint32_t b_count) {
  double d = -1;
  int32_t rc;
  if (!olc_plugins__has_distance(p))
    return default_distance(a, a_count, b, b_count);
  olc_plugins__error_clear();
  rc = p->table->distance(p->instance, operator_name, a, a_count, b, b_count, &d);
  /* Anything but a finite distance >= 0 (a refusal, a failure, NaN) keeps
   * the neighbour out: a miss then falls back to the first candidate. */
  if (rc != OLC_PLUGIN_OK || !(d >= 0) ||
      !(d <= DBL_MAX)) /* also NaN; isfinite warns on some libcs */
    return -1;
  return d;
}
