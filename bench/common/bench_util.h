/*
 * bench_util.h - the clocks and the median every benchmark reports with
 * (library bench_util, bench/CMakeLists.txt; built with or without the
 * tests).
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>

/* This thread's CPU time in seconds: CPU-bound work timed on a shared
 * machine, where wall time mostly measures the other tenants. */
double bench_cpu_s(void);

/* CLOCK_MONOTONIC in seconds, for work that waits (fsync, processes). */
double bench_wall_s(void);

/* qsort's comparison for doubles, ascending. */
int bench_cmp_double(const void *a, const void *b);

/* The median of v[0..n) (the mean of the middle two when n is even);
 * sorts v.  n >= 1. */
double bench_median(double *v, size_t n);

#endif /* BENCH_UTIL_H */
