/*
 * tests/cpu_gemm/emul/immintrin.h - a portable stand-in for the few
 * AVX-512F intrinsics that cpu_gemm's AVX-512 kernels use, so that the
 * kernels' own sources (indexing, edge rows, column masks, alpha and beta,
 * the in-kernel copy, the thin kernels' tails) run and are checked on a
 * CPU without AVX-512 (like some of this project's CI machines).  Each
 * function follows Intel's documented semantics for its intrinsic: fmadd
 * rounds once (fmaf), masked loads and stores touch only the lanes whose
 * mask bit is set (so ASan sees any access the real instruction would
 * make), prefetch does nothing.
 *
 * It stands in for <immintrin.h> only in the test_avx512_emul target,
 * whose include path lists this directory first; it proves the kernels'
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
#define _MM_HINT_T1 2
#define _MM_HINT_T2 1

/* Counts calls, so that the test can tell the emulated kernel ran. */
extern unsigned long olc_emul_fmadd_calls;

/* The test's record of a prefetch (a no-op otherwise): where the kernel
 * claims its prefetches land, the test checks that they do. */
void olc_emul_prefetch(const char *p);

static inline void _mm_prefetch(const char *p, int hint) {
  (void)hint;
  olc_emul_prefetch(p);
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

static inline __m512 _mm512_mul_ps(__m512 a, __m512 b) {
  __m512 r;
  for (int i = 0; i < 16; i++)
    r.f[i] = a.f[i] * b.f[i];
  return r;
}

static inline void _mm512_storeu_ps(void *p, __m512 a) { memcpy(p, a.f, sizeof a.f); }

/* The order of the additions is unspecified for the real instruction
 * sequence; a tree like GCC's keeps the rounding close to it. */
static inline float _mm512_reduce_add_ps(__m512 a) {
  float h[8], q[4];
  for (int i = 0; i < 8; i++)
    h[i] = a.f[i] + a.f[i + 8];
  for (int i = 0; i < 4; i++)
    q[i] = h[i] + h[i + 4];
  return (q[0] + q[2]) + (q[1] + q[3]);
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

/* The 16-bit loads of the kernel with a 16-bit B (sgemm_avx512_thin16.c):
 * sixteen 16-bit lanes, widened to sixteen 32-bit lanes. */
typedef struct {
  uint16_t h[16];
} __m256i;
typedef struct {
  uint32_t u[16];
} __m512i;

static inline __m256i _mm256_loadu_si256(const __m256i *p) {
  __m256i r;
  memcpy(r.h, p, sizeof r.h);
  return r;
}

static inline __m512i _mm512_cvtepu16_epi32(__m256i a) {
  __m512i r;
  for (int i = 0; i < 16; i++)
    r.u[i] = a.h[i];
  return r;
}

static inline __m512i _mm512_slli_epi32(__m512i a, unsigned int n) {
  __m512i r;
  for (int i = 0; i < 16; i++)
    r.u[i] = n > 31u ? 0u : a.u[i] << n;
  return r;
}

static inline __m512 _mm512_castsi512_ps(__m512i a) {
  __m512 r;
  memcpy(r.f, a.u, sizeof r.f);
  return r;
}

/* vcvtph2ps: exact; a NaN comes out quiet with its payload kept;
 * subnormals are converted (no DAZ: MXCSR does not apply to it). */
static inline __m512 _mm512_cvtph_ps(__m256i a) {
  __m512 r;
  for (int i = 0; i < 16; i++) {
    const uint32_t h = a.h[i], sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    uint32_t u;
    if (e == 0x1fu) {
      u = sign | 0x7f800000u | (m << 13) | (m ? 0x00400000u : 0u);
    } else if (e != 0) {
      u = sign | ((e + 112u) << 23) | (m << 13);
    } else {
      const float f = ldexpf((float)m, -24);
      memcpy(&u, &f, sizeof u);
      u |= sign;
    }
    memcpy(&r.f[i], &u, sizeof u);
  }
  return r;
}

#endif
