/*
 * constant.c - a constant operand packed once for a policy (cg_packed):
 * B's KC slices of micro-panels for a tile policy, a row-major copy for
 * the thin kernels (float32, or 16-bit as stored for a vm policy), and how
 * the general driver reads it (cg_packed_apply).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "gemm.h"
#include "kernels/kernels.h"
#include "pack.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

struct cg_packed {
  uint32_t kind; /* CG_KIND_TILE: panels (see cg_pack_constant); else row-major */
  uint32_t nr;
  int64_t kc, k, n;
  float *data; /* CG_BF16 / CG_F16 (a vm policy's): k x n 16-bit elements */
  uint64_t bytes;
  uint32_t dtype; /* of the elements at data */
};

const float *cg_packed_data(const cg_packed *pk) { return pk->data; }
uint64_t cg_packed_bytes(const cg_packed *pk) { return pk->bytes; }

/* Whether a constant packed B fits this product and policy. */
static int packed_fits(const cg_packed *pk, const cg_gemm_args *g, const cg_policy *p) {
  const cg_kernel_info *ki = &cg_kernel_table[p->kernel];
  if (pk->k != g->k || pk->n != g->n)
    return 0;
  if (pk->kind != CG_KIND_TILE)
    return 1; /* row-major fp32 serves any policy */
  return ki->kind == CG_KIND_TILE && pk->nr == ki->nr && pk->kc == (int64_t)p->kc;
}

int cg_packed_apply(cg_gemm_args *g, const cg_policy *p) {
  const cg_packed *pk = g->pb;
  if (!packed_fits(pk, g, p))
    return -1;
  g->general &= ~CG_GENERAL_B;
  if (pk->kind != CG_KIND_TILE && pk->dtype != CG_F32) {
    /* Kept 16-bit: a general B, row-major, which the 16-bit vm kernels
     * read as it is (thin16.c). */
    const cg_view kept = {pk->data, g->n, 1, pk->dtype};
    g->bv = kept, g->general |= CG_GENERAL_B, g->pb = NULL;
  } else if (pk->kind != CG_KIND_TILE) {
    g->b = pk->data, g->ldb = g->n, g->pb = NULL;
  }
  return 0;
}

/* A float16 / bfloat16 view copied row-major (rows x cols) into pk, in
 * its own type. */
static int pack_16bit(cg_packed *pk, const cg_view *v, int64_t rows, int64_t cols) {
  int64_t count;
  uint16_t *d;
  if (__builtin_mul_overflow(rows, cols, &count) ||
      (pk->data = cg_alloc_floats((size_t)count / 2 + 1)) == NULL)
    return -1;
  d = (uint16_t *)(void *)pk->data;
  for (int64_t i = 0; i < rows; i++) {
    if (v->cs == 1) {
      memcpy(d + i * cols, cg_view_at(v, i, 0), (size_t)cols * sizeof(uint16_t));
      continue;
    }
    for (int64_t j = 0; j < cols; j++)
      memcpy(d + i * cols + j, cg_view_at(v, i, j), sizeof(uint16_t));
  }
  pk->dtype = v->dtype;
  pk->bytes = (uint64_t)count * sizeof(uint16_t);
  return 0;
}

int cg_pack_constant(cg_packed **out, const cg_policy *p, int which, const cg_view *v, int64_t rows,
                     int64_t cols, uint64_t *bytes) {
  const cg_kernel_info *ki;
  cg_packed *pk;
  int64_t count = 0;
  *out = NULL;
  if (bytes != NULL)
    *bytes = 0;
  if (which != 1 || p == NULL || v == NULL || v->data == NULL || p->kernel >= cg_kernel_count ||
      rows < 1 || cols < 1 || cg_dtype_size(v->dtype) == 0)
    return -1;
  ki = &cg_kernel_table[p->kernel];
  pk = calloc(1, sizeof(*pk));
  if (pk == NULL)
    return -1;
  pk->kind = ki->kind == CG_KIND_TILE ? CG_KIND_TILE : CG_KIND_VM;
  pk->nr = ki->nr;
  pk->kc = p->kc;
  pk->k = rows, pk->n = cols;
  pk->dtype = CG_F32;
  if (ki->kind == CG_KIND_VM && v->dtype != CG_F32) {
    /* A vm kernel streams B once per call: kept in its 16-bit type (half
     * the bytes of float32), row-major, converted as the kernel loads it. */
    if (pack_16bit(pk, v, rows, cols) != 0) {
      free(pk);
      return -1;
    }
  } else if (pk->kind == CG_KIND_TILE) {
    /* Slice pc (rows pc .. pc + kcur) at pc * panels * nr, its panels
     * kcur x nr each, zero-padded past n: the layout of the workspace's
     * packed block, for every block at once. */
    const int64_t panels = (cols + ki->nr - 1) / ki->nr;
    if (__builtin_mul_overflow(panels * (int64_t)ki->nr, rows, &count) ||
        (pk->data = cg_alloc_floats((size_t)count)) == NULL) {
      free(pk);
      return -1;
    }
    for (int64_t pc = 0; pc < rows; pc += p->kc) {
      const int64_t kcur = min64(p->kc, rows - pc);
      cg_pack_b_view(pk->data + pc * panels * ki->nr, v, pc, 0, kcur, cols, ki->nr);
    }
  } else {
    /* The thin kernels stream B in place: a float32 row-major copy. */
    if (__builtin_mul_overflow(rows, cols, &count) ||
        (pk->data = cg_alloc_floats((size_t)count)) == NULL) {
      free(pk);
      return -1;
    }
    cg_convert_block(pk->data, cols, v, 0, 0, rows, cols);
  }
  if (pk->dtype == CG_F32)
    pk->bytes = (uint64_t)count * sizeof(float);
  if (bytes != NULL)
    *bytes = pk->bytes;
  *out = pk;
  return 0;
}

int cg_pack_shared(const cg_policy *a, const cg_policy *b) {
  const cg_kernel_info *ka = &cg_kernel_table[a->kernel], *kb = &cg_kernel_table[b->kernel];
  if ((ka->kind == CG_KIND_TILE) != (kb->kind == CG_KIND_TILE))
    return 0;
  return ka->kind != CG_KIND_TILE || (ka->nr == kb->nr && a->kc == b->kc);
}

void cg_packed_free(cg_packed *pk) {
  if (pk == NULL)
    return;
  cg_free_floats(pk->data);
  free(pk);
}
