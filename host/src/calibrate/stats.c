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

int olc_stats__clearly_faster(double b_median, double b_mad, size_t b_n, double a_median,
                              double a_mad, size_t a_n, double margin, double z) {
  double se_a = olc_stats__median_se(a_mad, a_n), se_b = olc_stats__median_se(b_mad, b_n);
  double lead = a_median - b_median;
  return lead > margin * a_median && lead > z * sqrt(se_a * se_a + se_b * se_b);
}
