/* calibrate/stats.c - median, median absolute deviation, minimum. */
#include "calibrate/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double olc_stats__median_sort(double *values, size_t n) {
  if (n == 0)
    return 0.0;
  qsort(values, n, sizeof *values, cmp_double);
  if (n % 2u == 1u)
    return values[n / 2u];
  /* Halves first: the sum of two huge values must not overflow. */
  return values[n / 2u - 1u] / 2.0 + values[n / 2u] / 2.0;
}

double olc_stats__low_median_sort(double *values, size_t n) {
  if (n == 0)
    return 0.0;
  qsort(values, n, sizeof *values, cmp_double);
  return values[(n - 1u) / 2u];
}

double olc_stats__mad(const double *values, size_t n, double median, double *scratch) {
  size_t i;
  for (i = 0; i < n; i++) {
    double d = values[i] - median;
    scratch[i] = d < 0 ? -d : d;
  }
  return olc_stats__median_sort(scratch, n);
}

double olc_stats__min(const double *values, size_t n) {
  double m;
  size_t i;
  if (n == 0)
    return 0.0;
  m = values[0];
  for (i = 1; i < n; i++)
    if (values[i] < m)
      m = values[i];
  return m;
}

double olc_stats__median_se(double mad, size_t n) {
  if (n == 0)
    return 0.0;
  return 1.2533 * 1.4826 * mad / sqrt((double)n);
}

int olc_stats__paired_faster(double *ratios, size_t n, double *scratch, double margin, double z,
                             double *lead) {
  double median, gain;
  if (lead != NULL)
    *lead = 0;
  if (n == 0)
    return 0;
  median = olc_stats__median_sort(ratios, n);
  gain = 1.0 - median;
  if (lead != NULL)
    *lead = gain;
  return n >= 3u && gain > margin &&
         gain > z * olc_stats__median_se(olc_stats__mad(ratios, n, median, scratch), n);
}
