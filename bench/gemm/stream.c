/*
 * stream.c - the single-core streaming read rate (a buffer far larger than
 * any last-level cache, summed with vector loads, best of a few passes, in
 * thread CPU time) and the size up to which reads are served faster than
 * that (the effective last-level cache: the probe's CPUID reading of a
 * guest's L3 can be anything; this guest reports 508 MiB).
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "bench_gemm.h"
#include "bench_util.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/*
 * The buffer read as `streams` equal segments side by side, two vectors of
 * each per step: one core pulls more from memory with a few concurrent
 * streams than with one (here 26.6 GB/s with 1, 37.5 with 4 or 8), and a
 * thin kernel reads several rows at once, so the streaming rate is the
 * best over 1 to 16 streams.  The stream count is a constant in each
 * instance, so the sums stay in registers: with a run-time count they
 * lived on the stack, and the loop itself ran at about 31 GB/s, no faster
 * from L2 than from memory (on a Zen 4 guest the bench then found no
 * cache faster than memory).
 */
#if defined(__x86_64__)
__attribute__((target("avx2"), always_inline)) static inline float
sum_ymm_s(const int streams, const float *x, size_t n) {
  const size_t seg = n / (size_t)streams;
  __m256 acc[16];
  float out[8], total = 0.0f;
  for (int i = 0; i < streams; i++)
    acc[i] = _mm256_setzero_ps();
  for (size_t i = 0; i + 16 <= seg; i += 16)
    for (int s = 0; s < streams; s++) {
      const float *p = x + (size_t)s * seg + i;
      acc[s] = _mm256_add_ps(acc[s], _mm256_add_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)));
    }
  for (int i = 1; i < streams; i++)
    acc[0] = _mm256_add_ps(acc[0], acc[i]);
  _mm256_storeu_ps(out, acc[0]);
  for (int j = 0; j < 8; j++)
    total += out[j];
  return total;
}

__attribute__((target("avx512f"), always_inline)) static inline float
sum_zmm_s(const int streams, const float *x, size_t n) {
  const size_t seg = n / (size_t)streams;
  __m512 acc[16];
  for (int i = 0; i < streams; i++)
    acc[i] = _mm512_setzero_ps();
  for (size_t i = 0; i + 32 <= seg; i += 32)
    for (int s = 0; s < streams; s++) {
      const float *p = x + (size_t)s * seg + i;
      acc[s] = _mm512_add_ps(acc[s], _mm512_add_ps(_mm512_loadu_ps(p), _mm512_loadu_ps(p + 16)));
    }
  for (int i = 1; i < streams; i++)
    acc[0] = _mm512_add_ps(acc[0], acc[i]);
  return _mm512_reduce_add_ps(acc[0]);
}

/* SUM(streams, x, n) with streams 1, 2, 4, 8 or 16 as a constant. */
#define SUM_BY_STREAMS(SUM, streams, x, n)                                                         \
  switch (streams) {                                                                               \
  case 1:                                                                                          \
    return SUM(1, x, n);                                                                           \
  case 2:                                                                                          \
    return SUM(2, x, n);                                                                           \
  case 4:                                                                                          \
    return SUM(4, x, n);                                                                           \
  case 8:                                                                                          \
    return SUM(8, x, n);                                                                           \
  default:                                                                                         \
    return SUM(16, x, n);                                                                          \
  }

__attribute__((target("avx2"))) static float sum_ymm(const float *x, size_t n, int streams) {
  SUM_BY_STREAMS(sum_ymm_s, streams, x, n)
}

__attribute__((target("avx512f"))) static float sum_zmm(const float *x, size_t n, int streams) {
  SUM_BY_STREAMS(sum_zmm_s, streams, x, n)
}

static float sum_floats(const float *x, size_t n, int streams) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return sum_zmm(x, n, streams);
  return sum_ymm(x, n, streams);
}
#else
static float sum_floats(const float *x, size_t n, int streams) {
  float total = 0.0f;
  (void)streams;
  for (size_t i = 0; i < n; i++)
    total += x[i];
  return total;
}
#endif

/* Read rate (GB/s) over bytes with `streams` streams, best of passes
 * after one warm-up pass. */
static double read_rate(const float *x, size_t bytes, int streams, int passes) {
  double best = 0.0;
  volatile float sink = 0.0f;
  sink += sum_floats(x, bytes / sizeof(float), streams);
  for (int p = 0; p < passes; p++) {
    double t0 = bench_cpu_s(), dt;
    sink += sum_floats(x, bytes / sizeof(float), streams);
    dt = bench_cpu_s() - t0;
    if (dt > 0 && (double)bytes / dt * 1e-9 > best)
      best = (double)bytes / dt * 1e-9;
  }
  (void)sink;
  return best;
}

/* The best rate over 1 to 16 streams of the whole buffer. */
static void best_stream(const float *x, size_t big, bench_stream_info *out) {
  for (int streams = 1; streams <= 16; streams *= 2) {
    double r = read_rate(x, big, streams, 3);
    if (r > out->stream_gbs)
      out->stream_gbs = r, out->streams = streams;
  }
}

int bench_stream(bench_stream_info *out) {
  const size_t big = (size_t)1 << 30; /* 1 GiB: beyond any L3 */
  enum { SIZES = 10 };                /* 1 MiB to 512 MiB */
  double rate[SIZES];
  int n = 0;
  float *x = NULL;
  memset(out, 0, sizeof(*out));
  if (posix_memalign((void **)&x, 2u << 20, big) != 0)
    return -1;
  (void)madvise(x, big, MADV_HUGEPAGE);
  for (size_t i = 0; i < big / sizeof(float); i++)
    x[i] = (float)(i & 1023u);
  best_stream(x, big, out);
  /* The largest power-of-two size still read at 1.3x the streaming rate
   * or more, from 1 MiB up; the streaming rate measured again after the
   * sizes, since a rate taken while another tenant was busy counted a
   * 64 MiB buffer as cached on the Zen 4 guest. */
  for (size_t bytes = (size_t)1 << 20; n < SIZES; bytes *= 2, n++) {
    rate[n] = read_rate(x, bytes, out->streams, bytes <= ((size_t)64 << 20) ? 10 : 3);
    if (rate[n] < 1.3 * out->stream_gbs) {
      n++;
      break;
    }
  }
  best_stream(x, big, out);
  for (int i = 0; i < n && rate[i] >= 1.3 * out->stream_gbs; i++) {
    out->cache_bytes = (size_t)1 << (20 + i);
    out->cache_gbs = rate[i];
  }
  free(x);
  return 0;
}
