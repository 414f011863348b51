/*
 * convert.h - reading operands through a cg_view (any strides, float32,
 * float16 or bfloat16) into float32: the element conversions, runs of
 * elements and whole blocks, the building blocks of the packing routines
 * for general operands (pack.c), of a bias written into C and of a
 * constant operand packed once.
 */
#ifndef CPU_GEMM_CONVERT_H
#define CPU_GEMM_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "gemm.h"

/* Bytes of one element of dtype (CG_F32: 4, CG_F16 / CG_BF16: 2; 0 for
 * any other code). */
static inline size_t cg_dtype_size(uint32_t dtype) {
  return dtype == CG_F32 ? 4u : dtype == CG_F16 || dtype == CG_BF16 ? 2u : 0u;
}

/* Element (i, j) of a view. */
static inline const void *cg_view_at(const cg_view *v, int64_t i, int64_t j) {
  return (const char *)v->data + (i * v->rs + j * v->cs) * (int64_t)cg_dtype_size(v->dtype);
}

/* The view of the transpose: element (i, j) is v's (j, i). */
static inline cg_view cg_view_t(const cg_view *v) {
  cg_view t = *v;
  t.rs = v->cs, t.cs = v->rs;
  return t;
}

/* IEEE binary16 and bfloat16 to float32, exactly (every value of either
 * is a float32; a float16 NaN comes out quiet, its payload kept, as the
 * conversion instructions give it; a bfloat16 NaN keeps its bits). */
float cg_f16_to_f32(uint16_t h);
float cg_bf16_to_f32(uint16_t h);

/* n float32 values stored as dtype (CG_F32, CG_F16, CG_BF16; rounding to
 * nearest even, NaN kept a NaN), and n values of dtype loaded as float32;
 * dst and src do not overlap. */
void cg_store_f32(void *dst, uint32_t dtype, const float *src, int64_t n);
void cg_load_f32(float *dst, const void *src, uint32_t dtype, int64_t n);

/* Whether the processor and OS have F16C (vcvtph2ps on YMM): the AVX2
 * kernels read float16 only then. */
int cg_cvt_has_f16c(void);

/* dst[i] = element i * stride of src (in elements of dtype, any sign or
 * 0), for i < count.  A stride of 1 takes the vector path of the best
 * instruction set the processor has (F16C / AVX-512F for float16). */
void cg_convert_run(float *dst, const void *src, int64_t stride, int64_t count, uint32_t dtype);

/* dst[i * ldd + j] = v(i0 + i, j0 + j) for i < rows, j < cols: row runs
 * where v's rows are contiguous (cs 1), transposed through a small tile
 * where its columns are (rs 1), element by element otherwise. */
void cg_convert_block(float *dst, int64_t ldd, const cg_view *v, int64_t i0, int64_t j0,
                      int64_t rows, int64_t cols);

#endif
