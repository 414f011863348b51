/*
 * gemm.h - the SGEMM drivers: C = alpha * A x B + beta * C, row-major with
 * leading dimensions.  Tile kernels run under the blocked driver (NC, KC
 * and MC loops in Goto/BLIS order, with the policy's blocking, packing and
 * thread split); thin kernels under their own loops (thin.c).
 */
#ifndef CPU_GEMM_GEMM_H
#define CPU_GEMM_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/kernels.h"
#include "policy.h"
#include "threads.h"

/* One thread's packing buffers, grown on demand and kept between runs. */
typedef struct cg_workspace {
  float *a_buf, *b_buf, *edge_b;   /* edge_b: two kc x (group * nr) panel groups */
  size_t a_cap, b_cap, edge_b_cap; /* in floats */
  float *c_buf;                    /* vm: C relocated (cg_vm_relocates_c), CG_VM_C_FLOATS(n) */
  size_t c_cap;
  /* Grouped pack_bj: which half of edge_b holds the group the kernels
   * packed ahead, and what it holds (source, rows, columns); bj_ready is
   * cleared at the start of every run and bj_src at its end (no pointer to
   * a caller's matrix outlives the call). */
  const float *bj_src;
  int64_t bj_rows, bj_width;
  int bj_cur, bj_ready;
} cg_workspace;

/* Element types of an operand (plugin.h's codes). */
#define CG_F32 1u
#define CG_F16 2u
#define CG_BF16 5u

/* An operand read where it lies: element (i, j) at data + i * rs + j * cs,
 * counted in elements of dtype; a stride of 0 repeats one row or column
 * (a broadcast bias).  A transposed matrix is rs 1, cs its leading
 * dimension. */
typedef struct cg_view {
  const void *data;
  int64_t rs, cs;
  uint32_t dtype; /* CG_F32, CG_F16, CG_BF16 */
} cg_view;

/* A constant operand packed once for one policy (cg_pack_constant). */
typedef struct cg_packed cg_packed;

/* C = alpha * A x B + beta * C; with beta == 0 C is not read, with
 * alpha == 0 (or k == 0) A and B are not read.  general, pb and bias
 * select general mode (cg_gemm_needs_ws then always says a workspace is
 * needed, and cg_gemm_one_block declines): a tile policy packs every
 * general operand whatever its pack says; the thin kernels convert it in
 * pieces into the workspace (thin.c).
 *
 * The plain case, every hot path's, is fp32 row-major A and B at a / lda
 * and b / ldb, with general == 0.  Otherwise general says which operands
 * av and bv describe instead (transposed, float16, bfloat16: read while
 * packing, never copied whole); pb, when set, is B already packed for this
 * policy; and with bias.data set the product is
 * C = alpha * A x B + beta * bias (bias broadcast through its strides,
 * added where each tile of C is first stored; C is not read). */
typedef struct cg_gemm_args {
  int64_t m, n, k;
  const float *a;
  int64_t lda;
  const float *b;
  int64_t ldb;
  float *c;
  int64_t ldc;
  float alpha, beta;
  uint32_t general; /* CG_GENERAL_A | CG_GENERAL_B: av / bv replace a / b */
  cg_view av, bv;
  const cg_packed *pb;
  cg_view bias;
} cg_gemm_args;

#define CG_GENERAL_A 1u
#define CG_GENERAL_B 2u

/*
 * Packs a constant operand (which: 0 for A, m x k; 1 for B, k x n) for a
 * policy, in the layout cg_gemm reads through args.pb, on the calling
 * thread, converting its dtype and layout on the way.  A tile policy gets
 * B's KC slices of micro-panels (kc x nr, zero-padded past n: every block
 * the blocked driver reads, whatever its nc, split or pack); a thin one a
 * float32 row-major copy (which also serves any other policy), except
 * that a vm policy keeps a float16 / bfloat16 B in its type (the 16-bit
 * vm kernels read it as stored; any other policy reads it as a general
 * B).  *bytes:
 * its size.  0, or -1: out of memory, a bad view, or which = 0 (A is not
 * packed ahead; the caller then reads it in place).
 *
 * cg_gemm with args.pb set reads B from it alone (args.b / bv and the B
 * bit of general are ignored), from every thread at once; it returns -1
 * when the pack does not fit the product (k, n) or the policy (a tile
 * kernel of another nr, or another kc).
 */
int cg_pack_constant(cg_packed **out, const cg_policy *p, int which, const cg_view *v, int64_t rows,
                     int64_t cols, uint64_t *bytes);
void cg_packed_free(cg_packed *pk);

/* 1 when cg_pack_constant packs B for policies a and b alike (tile
 * kernels of one NR with one KC, or two thin kernels: the row-major
 * copy), so that one pack serves both; else 0. */
int cg_pack_shared(const cg_policy *a, const cg_policy *b);

/*
 * Runs the GEMM on all the threads of pool (the caller alone when pool is
 * NULL, threads is below the pool's size, or the policy's split is none),
 * using one workspace per thread: ws must have as many entries as threads
 * are used, and may be NULL when cg_gemm_needs_ws says none is needed.  The
 * policy must have passed cg_policy_check; it runs correctly on any shape.
 * Returns 0, or -1 when a buffer could not be allocated.
 */
int cg_gemm(const cg_gemm_args *args, const cg_policy *policy, cg_pool *pool, uint32_t threads,
            cg_workspace *ws);

/*
 * Whether a vm product runs on a copy of C placed apart from B (thin.c).
 * A kernel path that sweeps each group of B's rows over all columns
 * (ki->sweeps) stores a line of C and soon loads lines of B; when B's rows
 * lie a multiple of 4 KiB apart (power-of-two widths: 1024, 4096 ...) and
 * C's rows lie less than CG_VM_C_NEAR bytes from B's modulo 4 KiB, those
 * loads wait on the stores whose low address bits they share (4K
 * aliasing), a wait on every group, in cache or not; so the calibration's
 * layout (the plugin's own buffers) and a runtime's could rank the
 * candidates differently.  The copy costs two passes over C, more than
 * the aliasing costs products of fewer than CG_VM_C_MIN_K rows of B or
 * fewer than CG_VM_C_MIN_B floats of B, which keep their C; for those, the
 * AVX-512 streaming variant's own late stores cover C 1-127 bytes past B
 * (alias_soon in that kernel).
 */
#define CG_VM_C_NEAR 768u
#define CG_VM_C_MIN_K 32
#define CG_VM_C_MIN_B 32768
#define CG_VM_C_LD(n) (((n) + 1023) / 1024 * 1024) /* rows 4 KiB multiples apart */
#define CG_VM_C_FLOATS(n) ((size_t)(4 * CG_VM_C_LD(n) + 1024))
static inline int cg_vm_relocates_c(const cg_gemm_args *g, const cg_policy *p) {
  const cg_kernel_info *ki = &cg_kernel_table[p->kernel];
  if (ki->kind != CG_KIND_VM || g->m > 4 || (ki->sweeps & CG_AT(g->m)) == 0 || g->ldb % 1024 != 0 ||
      g->k < CG_VM_C_MIN_K || g->n * g->k < CG_VM_C_MIN_B)
    return 0;
  for (int64_t r = 0; r < g->m; r++) {
    const uintptr_t d = ((uintptr_t)(g->c + r * g->ldc) - (uintptr_t)g->b) & 4095u;
    if (d < CG_VM_C_NEAR || d > 4096u - CG_VM_C_NEAR)
      return 1;
  }
  return 0;
}

/* Whether cg_gemm needs workspaces for this product and policy (packed
 * operands, B's columns gathered for a thin kernel, C relocated); 0 or 1.
 * Inline: it is on every execute call, whose fixed cost decides the
 * smallest products. */
static inline int cg_gemm_needs_ws(const cg_gemm_args *g, const cg_policy *p) {
  const cg_kernel_info *ki = &cg_kernel_table[p->kernel];
  if (g->general != 0 || g->pb != NULL || g->bias.data != NULL)
    return 1; /* general mode: always one (a thread's, or the pool's) */
  if (ki->kind == CG_KIND_TILE)
    return p->pack != 0;
  if (ki->kind == CG_KIND_MV)
    return !(g->n == 1 && g->ldb == 1);
  return cg_vm_relocates_c(g, p);
}

/*
 * The direct path's smallest case: a tile policy that packs nothing and
 * does not split, on a product that is one block of it (m <= mc, n <= nc,
 * k <= kc, alpha != 0): its block function, called here, is the whole
 * product.  Returns 1 when it ran it, 0 for cg_gemm to run.  Inline and
 * tried first by execute (and by cg_gemm, so that run times the same
 * path): it skips the driver's dispatch and loops, part of the fixed cost
 * of a call, which is a visible share of a product this small.
 */
/*
 * The tiniest products (at most CG_TINY_FMAS multiply-adds, 4x4x4 and
 * below), whatever the policy: below any kernel's tile, where a kernel's
 * entry, masks and masked stores cost more than the arithmetic, a scalar
 * loop (cg_gemm_tiny_run, gemm.c) is the whole product.  Returns 1 when it
 * ran it.
 */
#define CG_TINY_FMAS 64
void cg_gemm_tiny_run(const cg_gemm_args *g);
static inline int cg_gemm_tiny(const cg_gemm_args *g) {
  if (g->m > CG_TINY_FMAS || g->n > CG_TINY_FMAS || g->k > CG_TINY_FMAS ||
      g->m * g->n * g->k > CG_TINY_FMAS || g->m < 1 || g->n < 1 || g->k < 1 || g->alpha == 0.0f ||
      g->general != 0 || g->pb != NULL || g->bias.data != NULL)
    return 0; /* alpha 0 is cg_gemm's: A and B not read */
  cg_gemm_tiny_run(g);
  return 1;
}

static inline int cg_gemm_one_block(const cg_gemm_args *g, const cg_policy *p) {
  const cg_kernel_info *ki = &cg_kernel_table[p->kernel];
  if (cg_gemm_tiny(g))
    return 1;
  if (p->split != CG_SPLIT_NONE || p->pack != 0 || ki->kind != CG_KIND_TILE || g->m < 1 ||
      g->n < 1 || g->k < 1 || g->m > p->mc || g->n > p->nc || g->k > p->kc || g->alpha == 0.0f ||
      g->general != 0 || g->pb != NULL || g->bias.data != NULL)
    return 0;
  ki->block(g->m, g->n, g->k, g->alpha, g->a, g->lda, g->b, g->ldb, g->beta, g->c, g->ldc);
  return 1;
}

/* Grows ws[0..threads-1] for a shape and policy ahead of time (so the first
 * timed run does not pay for allocation and page faults).  0 or -1. */
int cg_gemm_reserve(const cg_shape *shape, const cg_policy *policy, uint32_t threads,
                    cg_workspace *ws);

void cg_workspace_free(cg_workspace *ws);

/* Grows *buf to at least need floats (64-byte aligned, touched); 0 or -1. */
int cg_ws_reserve(float **buf, size_t *cap, size_t need);

/* C = beta * C over m x n (beta 0: zeros, C not read); the whole product
 * when alpha or k is 0. */
void cg_scale_c(float *c, int64_t ldc, int64_t m, int64_t n, float beta);

/* A call's balanced share [lo, hi) of an extent, in whole units of q. */
void cg_split_range(int64_t extent, uint32_t q, uint32_t tid, uint32_t n, int64_t *lo, int64_t *hi);

/* The thin drivers (thin.c), called by cg_gemm for CG_KIND_VM / CG_KIND_MV
 * kernels with the thread count it settled on; one workspace (NULL when
 * cg_gemm_needs_ws says none is needed). */
int cg_thin_vm(const cg_gemm_args *g, const cg_policy *p, cg_pool *pool, uint32_t threads,
               cg_workspace *ws);
int cg_thin_mv(const cg_gemm_args *g, const cg_policy *p, cg_pool *pool, uint32_t threads,
               cg_workspace *ws);

/* The thin drivers in general mode (operands through views, a bias):
 * threads workspaces (one each), never C relocated.  0 or -1. */
int cg_thin_general(const cg_gemm_args *g, const cg_policy *p, cg_pool *pool, uint32_t threads,
                    cg_workspace *ws);

/* General mode's vm path for B bfloat16 or float16 with contiguous rows
 * (thin16.c): the 16-bit kernel of the policy's instruction set reads B
 * in place; A is fp32 row-major at a / lda, beta0 the first KC slice's
 * beta.  1 when it ran the product, 0 when it does not apply. */
int cg_thin_vm16(const cg_gemm_args *g, const cg_policy *p, const float *a, int64_t lda,
                 float beta0, cg_pool *pool, uint32_t threads);

/* The blocked driver (gemm.c) over product g on threads threads of pool
 * (1: the caller alone), each with its workspace ws[i] prepared; ki is
 * p's kernel (in general mode a copy without packed_copy). */
void cg_gemm_blocked(const cg_gemm_args *g, const cg_policy *p, cg_workspace *ws,
                     const cg_kernel_info *ki, int general, cg_pool *pool, uint32_t threads);

/* cg_gemm in general mode (general.c): args.general, pb or bias set. */
int cg_gemm_general(const cg_gemm_args *g, const cg_policy *p, cg_pool *pool, uint32_t threads,
                    cg_workspace *ws);

/* Sizes ws (workspace.c) for product g under policy p: the packed blocks
 * its pack asks for, or what a thin kernel relocates.  0, or -1: out of
 * memory. */
int cg_ws_prepare(cg_workspace *ws, const cg_gemm_args *g, const cg_policy *p);

/* C[0..rows)[0..cols) = beta * bias(i0 + i, j0 + j): where a block of C
 * is first stored in general mode. */
void cg_bias_fill(float *c, int64_t ldc, const cg_view *bias, int64_t i0, int64_t j0, int64_t rows,
                  int64_t cols, float beta);

/* Reads the constant g->pb as product g under policy p reads it: a tile
 * policy's panels stay in g->pb; a row-major copy becomes g's B (plain
 * float32 at g->b, or a 16-bit general B), g->pb cleared.  0, or -1 when
 * it does not fit g (k, n) or p (a tile kernel of another nr or kc). */
int cg_packed_apply(cg_gemm_args *g, const cg_policy *p);

/* The floats of a packed constant. */
const float *cg_packed_data(const cg_packed *pk);
/* Its size in bytes. */
uint64_t cg_packed_bytes(const cg_packed *pk);

/* Aligned allocation helpers shared with the plugin's prepared buffers:
 * 64-byte aligned, and transparent huge pages asked for when large. */
float *cg_alloc_floats(size_t count);
void cg_free_floats(float *p);

#endif
