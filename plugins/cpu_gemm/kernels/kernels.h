/*
 * kernels.h - register-blocked micro-kernels (BLIS style) and the thin
 * kernels for matrix-vector and few-row / few-column products.
 *
 * Every kernel writes C = alpha * (its product) + beta * C; with beta == 0
 * C is not read (NaN or garbage there is overwritten), so the first KC
 * slice of a product passes the caller's beta and the later ones 1.
 *
 * Tile kernels compute one MR x NR tile of C from k steps:
 *   C[r][j] = alpha * sum_p A(r, p) * B(p, j) + beta * C[r][j]
 * with A(r, p) at a[r * rs_a + p * cs_a] (packed panels: rs_a = 1,
 * cs_a = MR; row-major source rows: rs_a = lda, cs_a = 1) and B(p, j) at
 * b[p * rs_b + j] (packed panels: rs_b = NR; source rows: rs_b = ldb).
 * C(r, j) is c[r * ldc + j].  Only the first m rows (m <= MR) and n columns
 * (n <= NR) of the tile are read from A and B and written to C: the packed
 * variant reads B's zero-padded panel in full, the general one masks the
 * columns past n, so B is read in place up to its last column.
 *
 * Each kernel file is compiled with its own ISA flags and only called after
 * the probe has seen that ISA (CPU and OS support).
 */
#ifndef CPU_GEMM_KERNELS_H
#define CPU_GEMM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

typedef void (*cg_ukernel_fn)(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                              int64_t rs_a, int64_t cs_a, const float *b, int64_t rs_b, float beta,
                              float *c, int64_t ldc);

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
typedef void (*cg_ukernel_copy_fn)(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                   const float *b, float beta, float *c, int64_t ldc,
                                   const cg_copy_job *job);

/*
 * The lines a packed-A / packed-B kernel fetches into L2 while it runs: a
 * stretch of a constant B packed once, ahead of the panel in use, as segs
 * segments of len bytes, stride bytes apart, visited side by side (a line
 * of each in turn), two lines a k step (what a step of a 32-column panel
 * consumes); no line at or past end.  Several streams at once keep more
 * of memory's lines in flight than the one sequential stream of the
 * panels, which the hardware prefetchers alone follow.
 */
typedef struct cg_pf_job {
  uintptr_t base, end;
  int64_t segs, stride, len;
} cg_pf_job;

typedef void (*cg_ukernel_pf_fn)(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                 const float *b, float beta, float *c, int64_t ldc,
                                 const cg_pf_job *pf);

/*
 * Tile kernel over a whole block with A and B in place (row-major, row
 * strides lda and ldb): C[0..m)[0..n) = alpha * A * B + beta * C for any m
 * and n, NR-column panels outer and MR-row tiles inner, the tile body the
 * in-place kernel's.  One call per block: a call per tile would repeat
 * the prologue, the dispatch and the row pointers for every tile, a large
 * share of the work of the direct path's small blocks.
 */
typedef void (*cg_block_fn)(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                            int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                            int64_t ldc);

/*
 * Thin kernel, few rows (m <= 4): C[0..m)[0..n) = alpha * A * B + beta * C
 * with A (m x k, row stride lda) read in place and B (k x n, row stride
 * ldb) streamed in place, each of its k rows a contiguous stream: the
 * columns are swept in chunks whose accumulators stay in registers over
 * the k rows, so C is read and written once per call.
 */
typedef void (*cg_vm_fn)(int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,
                         const float *b, int64_t ldb, float beta, float *c, int64_t ldc);

/*
 * Thin kernel, few columns (n <= 4): C[0..m)[0..n) = alpha * A * B + beta *
 * C for any m, where column j of B is contiguous at bt + j * ldbt (k
 * floats): each row of A (row stride lda) is streamed once, as a dot
 * product with the n columns, four rows at a time.
 */
typedef void (*cg_mv_fn)(int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,
                         const float *bt, int64_t ldbt, float beta, float *c, int64_t ldc);

/* What a kernel table entry is. */
#define CG_KIND_TILE 0 /* MR x NR micro-kernel under the blocked driver */
#define CG_KIND_VM 1   /* thin, m <= MR rows per pass (cg_vm_fn) */
#define CG_KIND_MV 2   /* thin, n <= NR columns per pass (cg_mv_fn) */

/* A set of row or column counts 1 to 4: bit d for count d. */
#define CG_AT(d) (1u << (d))

typedef struct cg_kernel_info {
  const char *name; /* as in the policy text: "avx2_6x16" */
  uint32_t isa;     /* CG_ISA_* required */
  uint32_t kind;    /* CG_KIND_* */
  /* Tile: the tile.  VM: rows per pass, and the column granularity of
   * blocks and thread shares.  MV: rows per group, columns per pass. */
  uint32_t mr, nr;
  cg_ukernel_fn packed; /* tile: specialised for packed A (rs_a = 1, cs_a = MR) */
  cg_ukernel_fn general;
  cg_ukernel_copy_fn packed_copy; /* NULL when the kernel has none */
  cg_block_fn block;              /* tile: the direct path's whole block */
  cg_ukernel_pf_fn packed_pf;     /* tile: packed, fetching a cg_pf_job; NULL: none */
  cg_vm_fn vm;
  cg_mv_fn mv;
  /* Thin: 0 for a kind's regular kernel; for a variant shaped for a large
   * operand streaming from memory, bit d set (CG_AT(d)) for each
   * row count (vm) or column count (mv) d, 1 to 4, where its path differs
   * from its kind's kernel of the same ISA; elsewhere it is that kernel. */
  uint32_t stream;
  /* VM: the row counts (CG_AT) whose path sweeps each group of up to 8
   * rows of B over all the call's columns, reading and writing C once per
   * group: the paths whose speed depends on where C lies against B
   * (cg_vm_relocates_c).  0 for the others. */
  uint32_t sweeps;
} cg_kernel_info;

/* All kernels compiled in: tile kernels best first within each ISA, then
 * the thin ones. */
extern const cg_kernel_info cg_kernel_table[];
extern const uint32_t cg_kernel_count;

/* Index of a kernel by name, or -1. */
int cg_kernel_find(const char *name, size_t len);

/* Index of the best kernel of a kind that the ISA level allows (never a
 * streaming variant), or -1. */
int cg_kernel_best(uint32_t kind, uint32_t isa);

#define CG_TILE_PROTO(name)                                                                        \
  void name(int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t rs_a,            \
            int64_t cs_a, const float *b, int64_t rs_b, float beta, float *c, int64_t ldc)
#define CG_BLOCK_PROTO(name)                                                                       \
  void name(int64_t m_all, int64_t n_all, int64_t k, float alpha, const float *a_all, int64_t lda, \
            const float *b_all, int64_t ldb, float beta, float *c_all, int64_t ldc)
/* The tile loops of a block function: NR-column panels outer, MR-row
 * tiles inner, each tile the kernel's own in-place body, inlined:
 * DISPATCH(rs_a, cs_a, rs_b, mask_b, copy) with the tile's m, n, a, b and
 * c in scope, its columns masked when the tile is narrower than NR. */
#define CG_BLOCK_TILES(MR, NR, DISPATCH)                                                           \
  for (int64_t jr = 0; jr < n_all; jr += (NR)) {                                                   \
    const int64_t n = n_all - jr < (NR) ? n_all - jr : (NR);                                       \
    const float *b = b_all + jr;                                                                   \
    for (int64_t ir = 0; ir < m_all; ir += (MR)) {                                                 \
      const int64_t m = m_all - ir < (MR) ? m_all - ir : (MR);                                     \
      const float *a = a_all + ir * lda;                                                           \
      float *c = c_all + ir * ldc + jr;                                                            \
      if (n < (NR))                                                                                \
        DISPATCH(lda, 1, ldb, 1, 0)                                                                \
      else                                                                                         \
        DISPATCH(lda, 1, ldb, 0, 0)                                                                \
    }                                                                                              \
  }
/* A one-row vm kernel's k rows of B in near-equal groups of at most FMAX
 * (<= 8; 8 rows as 4 + 4, not 6 + 2, since every group costs a pass over
 * C): GROUP(F, p, beta_g) once per group, F its row count as a constant
 * (the group body keeps F broadcasts in registers), p its first row,
 * beta_g the caller's beta for the first group and 1 after. */
#define CG_VM1_GROUPS(FMAX, k, beta, GROUP)                                                        \
  do {                                                                                             \
    const int64_t groups_ = ((k) + (FMAX)-1) / (FMAX);                                             \
    const int64_t base_ = groups_ ? (k) / groups_ : 0, extra_ = groups_ ? (k) % groups_ : 0;       \
    for (int64_t g_ = 0, p_ = 0; g_ < groups_; g_++) {                                             \
      const int64_t f_ = base_ + (g_ < extra_);                                                    \
      const float beta_g_ = g_ == 0 ? (beta) : 1.0f;                                               \
      switch (f_) {                                                                                \
      case 1:                                                                                      \
        GROUP(1, p_, beta_g_);                                                                     \
        break;                                                                                     \
      case 2:                                                                                      \
        GROUP(2, p_, beta_g_);                                                                     \
        break;                                                                                     \
      case 3:                                                                                      \
        GROUP(3, p_, beta_g_);                                                                     \
        break;                                                                                     \
      case 4:                                                                                      \
        GROUP(4, p_, beta_g_);                                                                     \
        break;                                                                                     \
      case 5:                                                                                      \
        GROUP((FMAX) < 5 ? (FMAX) : 5, p_, beta_g_);                                               \
        break;                                                                                     \
      case 6:                                                                                      \
        GROUP((FMAX) < 6 ? (FMAX) : 6, p_, beta_g_);                                               \
        break;                                                                                     \
      case 7:                                                                                      \
        GROUP((FMAX) < 7 ? (FMAX) : 7, p_, beta_g_);                                               \
        break;                                                                                     \
      default:                                                                                     \
        GROUP((FMAX) < 8 ? (FMAX) : 8, p_, beta_g_);                                               \
        break;                                                                                     \
      }                                                                                            \
      p_ += f_;                                                                                    \
    }                                                                                              \
  } while (0)
#define CG_VM_PROTO(name)                                                                          \
  void name(int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,             \
            const float *b, int64_t ldb, float beta, float *c, int64_t ldc)
#define CG_MV_PROTO(name)                                                                          \
  void name(int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,             \
            const float *bt, int64_t ldbt, float beta, float *c, int64_t ldc)

CG_TILE_PROTO(sgemm_ref_4x8);
CG_TILE_PROTO(sgemm_ref_4x8_packed);
CG_BLOCK_PROTO(sgemm_ref_4x8_block);
CG_TILE_PROTO(sgemm_avx2_6x16);
CG_TILE_PROTO(sgemm_avx2_6x16_packed);
CG_BLOCK_PROTO(sgemm_avx2_6x16_block);
void sgemm_avx2_6x16_packed_copy(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                 const float *b, float beta, float *c, int64_t ldc,
                                 const cg_copy_job *job);
CG_TILE_PROTO(sgemm_avx512_12x32);
CG_TILE_PROTO(sgemm_avx512_12x32_packed);
CG_BLOCK_PROTO(sgemm_avx512_12x32_block);
void sgemm_avx512_12x32_packed_pf(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                  const float *b, float beta, float *c, int64_t ldc,
                                  const cg_pf_job *pf);
void sgemm_avx512_12x32_packed_copy(int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                    const float *b, float beta, float *c, int64_t ldc,
                                    const cg_copy_job *job);

CG_VM_PROTO(sgemm_ref_vm4);
CG_MV_PROTO(sgemm_ref_mv4);
CG_VM_PROTO(sgemm_avx2_vm4);
CG_MV_PROTO(sgemm_avx2_mv4);
CG_VM_PROTO(sgemm_avx2_vm4_stream);
CG_MV_PROTO(sgemm_avx2_mv4_stream);
CG_VM_PROTO(sgemm_avx2_vm4_prefetch);
CG_MV_PROTO(sgemm_avx2_mv4_prefetch);
CG_VM_PROTO(sgemm_avx512_vm4);
CG_VM_PROTO(sgemm_avx512_vm4_stream);
CG_VM_PROTO(sgemm_avx512_vm4_prefetch);
CG_MV_PROTO(sgemm_avx512_mv4_stream);
CG_MV_PROTO(sgemm_avx512_mv4_prefetch);
CG_MV_PROTO(sgemm_avx512_mv4);

#endif
