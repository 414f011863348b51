/*
 * peak.c - measured single-thread FMA peak: independent AVX2 FMA chains,
 * enough of them to cover the FMA latency times the number of pipes.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif
#include <stdint.h>
#include <time.h>

double bench_fma_peak_gflops(void);

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

/* Thread CPU time: on a shared machine, time spent preempted is not the
 * core's speed. */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_fma_peak_gflops(void) {
  double best = 0.0;
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    return 0.0;
  for (int trial = 0; trial < 5; trial++) {
    __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    /* Distinct starting values and the asm barriers below keep the compiler
     * from merging chains that would otherwise compute the same thing. */
    __m256 c0 = _mm256_set1_ps(1.0f), c1 = _mm256_set1_ps(1.1f), c2 = _mm256_set1_ps(1.2f);
    __m256 c3 = _mm256_set1_ps(1.3f), c4 = _mm256_set1_ps(1.4f), c5 = _mm256_set1_ps(1.5f);
    __m256 c6 = _mm256_set1_ps(1.6f), c7 = _mm256_set1_ps(1.7f), c8 = _mm256_set1_ps(1.8f);
    __m256 c9 = _mm256_set1_ps(1.9f), c10 = _mm256_set1_ps(2.0f), c11 = _mm256_set1_ps(2.1f);
    const int64_t iters = 5000000;
    double t0 = now_s(), dt;
    for (int64_t i = 0; i < iters; i++) {
      c0 = _mm256_fmadd_ps(c0, a, b);
      c1 = _mm256_fmadd_ps(c1, a, b);
      c2 = _mm256_fmadd_ps(c2, a, b);
      c3 = _mm256_fmadd_ps(c3, a, b);
      c4 = _mm256_fmadd_ps(c4, a, b);
      c5 = _mm256_fmadd_ps(c5, a, b);
      c6 = _mm256_fmadd_ps(c6, a, b);
      c7 = _mm256_fmadd_ps(c7, a, b);
      c8 = _mm256_fmadd_ps(c8, a, b);
      c9 = _mm256_fmadd_ps(c9, a, b);
      c10 = _mm256_fmadd_ps(c10, a, b);
      c11 = _mm256_fmadd_ps(c11, a, b);
      __asm__ volatile("" : "+x"(c0), "+x"(c1), "+x"(c2), "+x"(c3), "+x"(c4), "+x"(c5));
      __asm__ volatile("" : "+x"(c6), "+x"(c7), "+x"(c8), "+x"(c9), "+x"(c10), "+x"(c11));
    }
    dt = now_s() - t0;
    {
      __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                               _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7)));
      s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(c8, c9), _mm256_add_ps(c10, c11)));
      volatile float sink = _mm256_cvtss_f32(s);
      (void)sink;
    }
    if ((double)iters * 12.0 * 16.0 / dt * 1e-9 > best)
      best = (double)iters * 12.0 * 16.0 / dt * 1e-9;
  }
  return best;
}
#else
double bench_fma_peak_gflops(void) { return 0.0; }
#endif
