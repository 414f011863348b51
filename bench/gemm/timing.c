/*
 * timing.c - bench_gemm's clock, medians and paired ratios.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gemm.h"
#include "bench_util.h"
#include "olc_stub_host.h"

/* --cputime: the calling thread's CPU time instead of wall time, so that
 * preemption by other processes on a shared machine does not count (only
 * meaningful with one thread). */
int bench_use_cputime;
int bench_use_min; /* --min: best sample instead of the median (loaded machines) */

double bench_now_s(void) {
  struct timespec ts;
  if (!bench_use_cputime)
    return (double)olc_stub_host_now_ns() * 1e-9;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void bench_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "bench_gemm: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "%s%s\n", olc_stub_host_last_error()->message[0] ? ": " : "",
          olc_stub_host_last_error()->message);
  va_end(ap);
  exit(1);
}

double bench_med(const double *v, int n) {
  double *s = malloc((size_t)n * sizeof(double)), m;
  if (s == NULL)
    bench_die("out of memory");
  memcpy(s, v, (size_t)n * sizeof(double));
  m = bench_median(s, (size_t)n); /* sorts s: s[0] is the best */
  if (bench_use_min)
    m = s[0];
  free(s);
  return m;
}

double bench_paired(const double *a, const double *b, int n) {
  double *q = calloc((size_t)n, sizeof(double)), ma = a[0], mb = b[0], m;
  if (q == NULL)
    bench_die("out of memory");
  for (int r = 0; r < n; r++) {
    q[r] = a[r] / b[r];
    ma = a[r] < ma ? a[r] : ma;
    mb = b[r] < mb ? b[r] : mb;
  }
  m = bench_use_min ? ma / mb : bench_med(q, n);
  free(q);
  return m;
}

double bench_time_calls(void (*fn)(void *), void *arg, int samples) {
  double t[64], one;
  long calls = 1;
  samples = samples < 1 ? 1 : samples > 64 ? 64 : samples;
  fn(arg);
  for (;;) { /* calls per sample: ~10 ms */
    double t0 = bench_now_s();
    for (long i = 0; i < calls; i++)
      fn(arg);
    one = bench_now_s() - t0;
    if (one >= 0.01 || calls >= (1l << 26))
      break;
    calls *= 2;
  }
  for (int s = 0; s < samples; s++) {
    double t0 = bench_now_s();
    for (long i = 0; i < calls; i++)
      fn(arg);
    t[s] = (bench_now_s() - t0) / (double)calls;
  }
  return bench_med(t, samples);
}
