/*
 * pack.h - packing of A and B into the contiguous, aligned micro-panels the
 * micro-kernels stream through.
 */
#ifndef CPU_GEMM_PACK_H
#define CPU_GEMM_PACK_H

#include <stdint.h>

#include "gemm.h"

/*
 * Packs the mc x kc block at a (row-major, row stride lda) into ceil(mc/mr)
 * micro-panels of mr x kc, each stored k-major (dst[p * mr + r]); rows past
 * mc are zero.
 */
void cg_pack_a(float *dst, const float *a, int64_t lda, int64_t mc, int64_t kc, uint32_t mr);

/*
 * Packs the kc x nc block at b (row-major, row stride ldb) into ceil(nc/nr)
 * micro-panels of kc x nr (dst[p * nr + j]); columns past nc are zero.
 */
void cg_pack_b(float *dst, const float *b, int64_t ldb, int64_t kc, int64_t nc, uint32_t nr);

/*
 * The same layouts read through a view (any strides, float16 or bfloat16
 * converted to float32 on the way): the mc x kc block of A at (i0, p0)
 * and the kc x nc block of B at (p0, j0).  A general operand is read
 * here, once per block, and never copied whole.
 */
void cg_pack_a_view(float *dst, const cg_view *a, int64_t i0, int64_t p0, int64_t mc, int64_t kc,
                    uint32_t mr);
void cg_pack_b_view(float *dst, const cg_view *b, int64_t p0, int64_t j0, int64_t kc, int64_t nc,
                    uint32_t nr);

#endif
