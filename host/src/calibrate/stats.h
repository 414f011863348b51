/*
 * calibrate/stats.h - robust statistics of latency samples: the median and
 * the median absolute deviation (MAD), which a few preempted runs cannot
 * drag the way they drag a mean and a standard deviation.
 */
#ifndef OLC_CALIBRATE_STATS_H
#define OLC_CALIBRATE_STATS_H

#include <stddef.h>

/* Sorts values[0..n) ascending and returns their median (the mean of the
 * two middle values when n is even); 0 when n is 0. */
double olc_stats__median_sort(double *values, size_t n);

/* Sorts values[0..n) ascending and returns the lower median, the value
 * at (n - 1) / 2: with two samples the faster one, which a run slowed by
 * another process cannot move; 0 when n is 0. */
double olc_stats__low_median_sort(double *values, size_t n);

/* Median of |values[i] - median| for values[0..n), using scratch (n
 * doubles, overwritten); 0 when n is 0.  values is not modified. */
double olc_stats__mad(const double *values, size_t n, double median, double *scratch);

/* Smallest value of values[0..n); 0 when n is 0. */
double olc_stats__min(const double *values, size_t n);

/* The standard error of the median of n samples whose MAD is mad, for
 * roughly normal noise: 1.2533 x (1.4826 x mad) / sqrt(n); 0 when n is 0. */
double olc_stats__median_se(double mad, size_t n);

/*
 * Whether a sample whose median is b_median (MAD b_mad, b_n runs) is
 * faster than one whose median is a_median (a_mad, a_n) by more than both
 * `margin` x a_median and z standard errors of the difference of the two
 * medians: a lead the samples' own spread cannot explain.
 */
int olc_stats__clearly_faster(double b_median, double b_mad, size_t b_n, double a_median,
                              double a_mad, size_t a_n, double margin, double z);

#endif
