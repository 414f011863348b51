/*
 * peak.c - measured single-thread FMA peak with the widest FMA the machine
 * runs: independent FMA chains (enough of them to cover the FMA latency
 * times the number of pipes), ZMM where the CPU has AVX-512F, else YMM.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif
#include <stdint.h>
#include <time.h>

#include "bench_gemm.h"
#include "bench_util.h"

#if defined(__x86_64__)
#include <immintrin.h>

/* 12 chains: the asm barriers keep the compiler from merging chains that
 * compute the same thing; distinct starting values too. */
#define PEAK_BODY(V, SET1, FMA, ADD, CVT, LANES)                                                   \
  double best = 0.0;                                                                               \
  for (int trial = 0; trial < 10; trial++) {                                                       \
    V a = SET1(0.999999f), b = SET1(1e-7f);                                                        \
    V c0 = SET1(1.0f), c1 = SET1(1.1f), c2 = SET1(1.2f), c3 = SET1(1.3f), c4 = SET1(1.4f);         \
    V c5 = SET1(1.5f), c6 = SET1(1.6f), c7 = SET1(1.7f), c8 = SET1(1.8f), c9 = SET1(1.9f);         \
    V c10 = SET1(2.0f), c11 = SET1(2.1f);                                                          \
    const int64_t iters = 5000000;                                                                 \
    double t0 = bench_cpu_s(), dt, g;                                                              \
    for (int64_t i = 0; i < iters; i++) {                                                          \
      c0 = FMA(c0, a, b), c1 = FMA(c1, a, b), c2 = FMA(c2, a, b), c3 = FMA(c3, a, b);              \
      c4 = FMA(c4, a, b), c5 = FMA(c5, a, b), c6 = FMA(c6, a, b), c7 = FMA(c7, a, b);              \
      c8 = FMA(c8, a, b), c9 = FMA(c9, a, b), c10 = FMA(c10, a, b), c11 = FMA(c11, a, b);          \
      __asm__ volatile("" : "+v"(c0), "+v"(c1), "+v"(c2), "+v"(c3), "+v"(c4), "+v"(c5));           \
      __asm__ volatile("" : "+v"(c6), "+v"(c7), "+v"(c8), "+v"(c9), "+v"(c10), "+v"(c11));         \
    }                                                                                              \
    dt = bench_cpu_s() - t0;                                                                       \
    {                                                                                              \
      V s = ADD(ADD(ADD(c0, c1), ADD(c2, c3)), ADD(ADD(c4, c5), ADD(c6, c7)));                     \
      s = ADD(s, ADD(ADD(c8, c9), ADD(c10, c11)));                                                 \
      volatile float sink = CVT(s);                                                                \
      (void)sink;                                                                                  \
    }                                                                                              \
    g = (double)iters * 12.0 * 2.0 * (LANES) / dt * 1e-9;                                          \
    if (g > best)                                                                                  \
      best = g;                                                                                    \
  }                                                                                                \
  return best;

__attribute__((target("avx2,fma"))) static double peak_ymm(void) {
  PEAK_BODY(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, _mm256_cvtss_f32, 8)
}

__attribute__((target("avx512f"))) static float zmm_first(__m512 v) {
  return _mm_cvtss_f32(_mm512_castps512_ps128(v));
}

__attribute__((target("avx512f"))) static double peak_zmm(void) {
  PEAK_BODY(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, zmm_first, 16)
}

double bench_fma_peak_gflops(const char **width) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    *width = "zmm";
    return peak_zmm();
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    *width = "ymm";
    return peak_ymm();
  }
  *width = "none";
  return 0.0;
}
#else
double bench_fma_peak_gflops(const char **width) {
  *width = "none";
  return 0.0;
}
#endif
