/*
 * convert.c - float16 / bfloat16 / strided float32 operands read as
 * float32 (convert.h).
 *
 * Contiguous float16 runs use the processor's conversion instruction
 * (vcvtph2ps: AVX-512F sixteen at a time, F16C eight), picked once at run
 * time from CPUID as the probe picks kernels; those functions carry their
 * instruction set as a target attribute, so this file builds without ISA
 * flags and runs anywhere.  bfloat16 is the upper half of a float32: a
 * shift, which the compiler vectorizes for any target.
 */
#include "convert.h"

#include <stdatomic.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define CG_CVT_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define CG_CVT_X86 0
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

float cg_f16_to_f32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  uint32_t u;
  float f;
  if (exp == 0x1fu) {
    /* A NaN comes out quiet, as vcvtph2ps makes it: the scalar and the
     * vector paths give the same bits. */
    u = sign | 0x7f800000u | (man << 13) | (man != 0 ? 0x00400000u : 0u);
  } else if (exp != 0) {
    u = sign | ((exp + 112u) << 23) | (man << 13);
  } else {
    /* Zero or subnormal: man * 2^-24 is exact in float32. */
    f = (float)man * 0x1p-24f;
    memcpy(&u, &f, sizeof(u));
    u |= sign;
  }
  memcpy(&f, &u, sizeof(f));
  return f;
}

float cg_bf16_to_f32(uint16_t h) {
  const uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof(f));
  return f;
}

static void f16_run_c(float *restrict dst, const uint16_t *restrict src, int64_t count) {
  for (int64_t i = 0; i < count; i++)
    dst[i] = cg_f16_to_f32(src[i]);
}

static void bf16_run(float *restrict dst, const uint16_t *restrict src, int64_t count) {
  for (int64_t i = 0; i < count; i++) {
    const uint32_t u = (uint32_t)src[i] << 16;
    memcpy(&dst[i], &u, sizeof(u));
  }
}

#if CG_CVT_X86
__attribute__((target("avx,f16c"))) static void
f16_run_f16c(float *restrict dst, const uint16_t *restrict src, int64_t count) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
  f16_run_c(dst + i, src + i, count - i);
}

__attribute__((target("avx512f"))) static void
f16_run_avx512(float *restrict dst, const uint16_t *restrict src, int64_t count) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16)
    _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(src + i))));
  f16_run_c(dst + i, src + i, count - i);
}

static uint64_t cvt_xgetbv0(void) {
  uint32_t lo, hi;
  __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0u));
  return ((uint64_t)hi << 32) | lo;
}

/* 1: portable, 2: F16C, 3: AVX-512F (CPU and OS support, as the probe). */
static int cvt_detect(void) {
  uint32_t a, b, c, d, max_leaf;
  uint64_t xcr0;
  int level = 1;
  __cpuid(0, max_leaf, b, c, d);
  if (max_leaf < 1)
    return level;
  __cpuid(1, a, b, c, d);
  if (!((c >> 27) & 1u) || !((c >> 28) & 1u)) /* OSXSAVE, AVX */
    return level;
  xcr0 = cvt_xgetbv0();
  if ((xcr0 & 0x6u) != 0x6u)
    return level;
  if ((c >> 29) & 1u) /* F16C */
    level = 2;
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    if (((b >> 16) & 1u) && (xcr0 & 0xe6u) == 0xe6u)
      level = 3;
  }
  return level;
}

static atomic_int cvt_level;

static int cvt_get_level(void) {
  int level = atomic_load_explicit(&cvt_level, memory_order_relaxed);
  if (level == 0) {
    level = cvt_detect();
    atomic_store_explicit(&cvt_level, level, memory_order_relaxed);
  }
  return level;
}

int cg_cvt_has_f16c(void) { return cvt_get_level() >= 2; }

static void f16_run(float *dst, const uint16_t *src, int64_t count) {
  const int level = cvt_get_level();
  if (level == 3)
    f16_run_avx512(dst, src, count);
  else if (level == 2)
    f16_run_f16c(dst, src, count);
  else
    f16_run_c(dst, src, count);
}
#else
int cg_cvt_has_f16c(void) { return 0; }

static void f16_run(float *dst, const uint16_t *src, int64_t count) { f16_run_c(dst, src, count); }
#endif

void cg_convert_run(float *dst, const void *src, int64_t stride, int64_t count, uint32_t dtype) {
  if (count <= 0)
    return;
  if (dtype == CG_F32) {
    const float *s = src;
    if (stride == 1) {
      memcpy(dst, s, (size_t)count * sizeof(float));
      return;
    }
    for (int64_t i = 0; i < count; i++)
      dst[i] = s[i * stride];
    return;
  }
  const uint16_t *h = src;
  if (stride == 1) {
    if (dtype == CG_F16)
      f16_run(dst, h, count);
    else
      bf16_run(dst, h, count);
    return;
  }
  if (dtype == CG_F16) {
    for (int64_t i = 0; i < count; i++)
      dst[i] = cg_f16_to_f32(h[i * stride]);
  } else {
    for (int64_t i = 0; i < count; i++)
      dst[i] = cg_bf16_to_f32(h[i * stride]);
  }
}

/* The transposing tile of cg_convert_block (rs 1): CVT_T columns of
 * CVT_T contiguous elements each, converted as runs, then written across. */
#define CVT_T 32

#if defined(__SSE2__)
/* Rows of the float32 transposing case, a band at a time: the band's
 * lines of dst stay in cache while its columns are written across. */
#define CVT_BAND 64

/*
 * dst[i * ldd + j] = src[i + j * cs] (a float32 matrix with contiguous
 * columns, e.g. a transposed operand, read as row-major): 4 x 4 blocks
 * transposed in registers, four column streams read at a time.
 */
static void transpose_f32(float *restrict dst, int64_t ldd, const float *restrict src, int64_t cs,
                          int64_t rows, int64_t cols) {
  for (int64_t ib = 0; ib < rows; ib += CVT_BAND) {
    const int64_t ie = rows - ib < CVT_BAND ? rows : ib + CVT_BAND;
    int64_t j = 0;
    for (; j + 4 <= cols; j += 4) {
      const float *s0 = src + j * cs, *s1 = s0 + cs, *s2 = s1 + cs, *s3 = s2 + cs;
      int64_t i = ib;
      for (; i + 4 <= ie; i += 4) {
        __m128 r0 = _mm_loadu_ps(s0 + i), r1 = _mm_loadu_ps(s1 + i);
        __m128 r2 = _mm_loadu_ps(s2 + i), r3 = _mm_loadu_ps(s3 + i);
        float *d = dst + i * ldd + j;
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        _mm_storeu_ps(d, r0);
        _mm_storeu_ps(d + ldd, r1);
        _mm_storeu_ps(d + 2 * ldd, r2);
        _mm_storeu_ps(d + 3 * ldd, r3);
      }
      for (; i < ie; i++) {
        float *d = dst + i * ldd + j;
        d[0] = s0[i], d[1] = s1[i], d[2] = s2[i], d[3] = s3[i];
      }
    }
    for (; j < cols; j++)
      for (int64_t i = ib; i < ie; i++)
        dst[i * ldd + j] = src[i + j * cs];
  }
}
#endif

void cg_convert_block(float *dst, int64_t ldd, const cg_view *v, int64_t i0, int64_t j0,
                      int64_t rows, int64_t cols) {
  if (v->cs == 1 || v->rs != 1) {
    /* Row runs: contiguous when cs is 1, strided (or repeated) else. */
    for (int64_t i = 0; i < rows; i++)
      cg_convert_run(dst + i * ldd, cg_view_at(v, i0 + i, j0), v->cs, cols, v->dtype);
    return;
  }
#if defined(__SSE2__)
  if (v->dtype == CG_F32) {
    transpose_f32(dst, ldd, cg_view_at(v, i0, j0), v->cs, rows, cols);
    return;
  }
#endif
  float tile[CVT_T][CVT_T];
  for (int64_t ib = 0; ib < rows; ib += CVT_T) {
    const int64_t ni = rows - ib < CVT_T ? rows - ib : CVT_T;
    for (int64_t jb = 0; jb < cols; jb += CVT_T) {
      const int64_t nj = cols - jb < CVT_T ? cols - jb : CVT_T;
      for (int64_t j = 0; j < nj; j++)
        cg_convert_run(tile[j], cg_view_at(v, i0 + ib, j0 + jb + j), 1, ni, v->dtype);
      for (int64_t i = 0; i < ni; i++) {
        float *d = dst + (ib + i) * ldd + jb;
        for (int64_t j = 0; j < nj; j++)
          d[j] = tile[j][i];
      }
    }
  }
}

/* ---- float32 to float16 / bfloat16 (results stored), and runs back ---- */

static uint16_t f32_to_f16(float f) {
  uint32_t x, sign, ax;
  memcpy(&x, &f, sizeof x);
  sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) /* NaN: stays a (quiet) NaN */
    return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
  if (ax >= 0x477ff000u) /* 65520 and above round to infinity */
    return (uint16_t)(sign | 0x7c00u);
  if (ax < 0x38800000u) { /* below 2^-14: a half subnormal (or zero) */
    /* 0.5's ulp is 2^-24, a half subnormal's: the float addition rounds
     * to nearest even at exactly that position. */
    float v, half = 0.5f;
    uint32_t r;
    memcpy(&v, &ax, sizeof v);
    v += half;
    memcpy(&r, &v, sizeof r);
    return (uint16_t)(sign | (r - 0x3f000000u));
  }
  /* Rebias the exponent (127 - 15) and round the 13 dropped bits to
   * nearest even; a carry into the exponent is the right result. */
  ax += 0xc8000fffu + ((ax >> 13) & 1u);
  return (uint16_t)(sign | (ax >> 13));
}

static uint16_t f32_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((x >> 16) | 0x40u);
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

void cg_store_f32(void *dst, uint32_t dtype, const float *src, int64_t n) {
  uint16_t *d = dst;
  if (dtype == CG_F32)
    memcpy(dst, src, (size_t)n * sizeof(float));
  else if (dtype == CG_F16)
    for (int64_t i = 0; i < n; i++)
      d[i] = f32_to_f16(src[i]);
  else
    for (int64_t i = 0; i < n; i++)
      d[i] = f32_to_bf16(src[i]);
}

void cg_load_f32(float *dst, const void *src, uint32_t dtype, int64_t n) {
  const uint16_t *s = src;
  if (dtype == CG_F32)
    memcpy(dst, src, (size_t)n * sizeof(float));
  else if (dtype == CG_F16)
    for (int64_t i = 0; i < n; i++)
      dst[i] = cg_f16_to_f32(s[i]);
  else
    for (int64_t i = 0; i < n; i++)
      dst[i] = cg_bf16_to_f32(s[i]);
}
