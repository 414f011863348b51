/*
 * kernels.h - register-blocked micro-kernels (BLIS style).
 *
 * A micro-kernel computes one MR x NR tile of C from k steps:
 *   C[r][j] (+)= sum_p A(r, p) * B(p, j)
 * with A(r, p) at a[r * rs_a + p * cs_a] (packed panels: rs_a = 1,
 * cs_a = MR; row-major source rows: rs_a = lda, cs_a = 1) and B(p, j) at
 * b[p * rs_b + j] (packed panels: rs_b = NR; source rows: rs_b = ldb).
 * C(r, j) is c[r * ldc + j]; accumulate = 0 overwrites it, 1 adds to it.
 * Only the first m rows (m <= MR) and n columns (n <= NR) of the tile are
 * read from A and written to C; B is always read for the full NR columns
 * (packed panels are zero-padded, the driver packs an edge panel of an
 * unpacked B).
 *
 * Each kernel file is compiled with its own ISA flags and only called after
 * the probe has seen that ISA (CPU and OS support).
 */
#ifndef CPU_GEMM_KERNELS_H
#define CPU_GEMM_KERNELS_H

#include <stdint.h>

typedef void (*cg_ukernel_fn)(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a,
                              int64_t cs_a, const float *b, int64_t rs_b, float *c, int64_t ldc,
                              int accumulate);

/*
 * A slice of B packing done inside a kernel call: rows source rows of
 * group * NR floats each, row p at src + p * ld_src; piece g (NR floats at
 * src + p * ld_src + g * NR) goes to dst + g * ld_dst + p * NR, i.e. into
 * group consecutive packed panels ld_dst floats apart.  Also prefetches
 * the pf_rows rows of the same geometry at pf (NULL: none), the slice of
 * a later call, one line per piece.
 */
typedef struct cg_copy_job {
  const float *src;
  int64_t ld_src;
  float *dst;
  int64_t ld_dst;
  int64_t rows, group;
  const float *pf;
  int64_t pf_rows;
} cg_copy_job;

/*
 * Packed-A/packed-B kernel that also performs a copy job, its pieces spread
 * evenly over the k steps: the next panels are packed under the arithmetic
 * of this one.  The copy is complete when the call returns, whatever k.
 */
typedef void (*cg_ukernel_copy_fn)(int64_t m, int64_t n, int64_t k, const float *a, const float *b,
                                   float *c, int64_t ldc, int accumulate, const cg_copy_job *job);

typedef struct cg_kernel_info {
  const char *name; /* as in the policy text: "avx2_6x16" */
  uint32_t isa;     /* CG_ISA_* required */
  uint32_t mr, nr;
  cg_ukernel_fn packed; /* specialised for packed A (rs_a = 1, cs_a = MR) */
  cg_ukernel_fn general;
  cg_ukernel_copy_fn packed_copy; /* NULL when the kernel has none */
} cg_kernel_info;

/* All kernels compiled in, best first within each ISA. */
extern const cg_kernel_info cg_kernel_table[];
extern const uint32_t cg_kernel_count;

/* Index of a kernel by name, or -1. */
int cg_kernel_find(const char *name, size_t len);

void sgemm_ref_4x8(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a, int64_t cs_a,
                   const float *b, int64_t rs_b, float *c, int64_t ldc, int accumulate);
void sgemm_ref_4x8_packed(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a,
                          int64_t cs_a, const float *b, int64_t rs_b, float *c, int64_t ldc,
                          int accumulate);
void sgemm_avx2_6x16(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a, int64_t cs_a,
                     const float *b, int64_t rs_b, float *c, int64_t ldc, int accumulate);
void sgemm_avx2_6x16_packed(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a,
                            int64_t cs_a, const float *b, int64_t rs_b, float *c, int64_t ldc,
                            int accumulate);
void sgemm_avx2_6x16_packed_copy(int64_t m, int64_t n, int64_t k, const float *a, const float *b,
                                 float *c, int64_t ldc, int accumulate, const cg_copy_job *job);
void sgemm_avx512_12x32(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a, int64_t cs_a,
                        const float *b, int64_t rs_b, float *c, int64_t ldc, int accumulate);
void sgemm_avx512_12x32_packed(int64_t m, int64_t n, int64_t k, const float *a, int64_t rs_a,
                               int64_t cs_a, const float *b, int64_t rs_b, float *c, int64_t ldc,
                               int accumulate);

#endif
