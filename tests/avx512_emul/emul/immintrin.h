/*
 * tests/avx512_emul/emul/immintrin.h - a portable stand-in for the few
 * AVX-512F intrinsics that cpu_gemm's 12x32 kernel uses, so that the
 * kernel's own source (indexing, edge rows, column masks, accumulate)
 * runs and is checked on a CPU without AVX-512 (like this project's CI
 * machines).  Each function follows Intel's documented semantics for its
 * intrinsic: fmadd rounds once (fmaf), masked loads and stores touch only
 * the lanes whose mask bit is set (so ASan sees any access the real
 * instruction would make), prefetch does nothing.
 *
 * It stands in for <immintrin.h> only in the test_avx512_emul target,
 * whose include path lists this directory first; it proves the kernel's
 * logic, not the instruction encoding, which the compiler owns.
 */
#ifndef OLC_TEST_AVX512_EMUL_IMMINTRIN_H
#define OLC_TEST_AVX512_EMUL_IMMINTRIN_H

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  float f[16];
} __m512;
typedef uint16_t __mmask16;

#define _MM_HINT_T0 3

/* Counts calls, so that the test can tell the emulated kernel ran. */
extern unsigned long olc_emul_fmadd_calls;

static inline void _mm_prefetch(const char *p, int hint) {
  (void)p;
  (void)hint;
}

static inline __m512 _mm512_setzero_ps(void) {
  __m512 r;
  memset(&r, 0, sizeof r);
  return r;
}

static inline __m512 _mm512_set1_ps(float v) {
  __m512 r;
  for (int i = 0; i < 16; i++)
    r.f[i] = v;
  return r;
}

static inline __m512 _mm512_loadu_ps(const void *p) {
  __m512 r;
  memcpy(r.f, p, sizeof r.f);
  return r;
}

static inline __m512 _mm512_fmadd_ps(__m512 a, __m512 b, __m512 c) {
  __m512 r;
  olc_emul_fmadd_calls++;
  for (int i = 0; i < 16; i++)
    r.f[i] = fmaf(a.f[i], b.f[i], c.f[i]);
  return r;
}

static inline __m512 _mm512_add_ps(__m512 a, __m512 b) {
  __m512 r;
  for (int i = 0; i < 16; i++)
    r.f[i] = a.f[i] + b.f[i];
  return r;
}

static inline __m512 _mm512_maskz_loadu_ps(__mmask16 k, const void *p) {
  const float *s = p;
  __m512 r = _mm512_setzero_ps();
  for (int i = 0; i < 16; i++)
    if (((unsigned)k >> (unsigned)i) & 1u)
      r.f[i] = s[i];
  return r;
}

static inline void _mm512_mask_storeu_ps(void *p, __mmask16 k, __m512 a) {
  float *d = p;
  for (int i = 0; i < 16; i++)
    if (((unsigned)k >> (unsigned)i) & 1u)
      d[i] = a.f[i];
}

#endif
