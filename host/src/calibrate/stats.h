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
 * Whether candidate B is faster than candidate A by paired ratios: ratios
 * holds n values of B's time / A's time, each from runs of the two close
 * in time (one turn of the race), so that a change of the machine's load
 * or clock between turns moves both sides of a ratio alike.  True when
 * their median is below 1 - margin by more than z standard errors of that
 * median; never with fewer than three ratios.  Sorts ratios; scratch holds
 * n doubles.  *lead (unless NULL) receives 1 - the median (0 when n is 0).
 */
int olc_stats__paired_faster(double *ratios, size_t n, double *scratch, double margin, double z,
                             double *lead);

#endif
