/*
 * matmul.c - the template plugin's kernel: a blocked single-precision
 * MatMul on row-major operands with leading dimensions.
 *
 * Plain C that a compiler vectorizes: the innermost loop runs along a row
 * of B and of C.  Replace it with your own kernels; what stays is the
 * contract: C = alpha * A * B + beta * C, C not read when beta == 0, the
 * right result for any shape and any policy.
 */
#include "template.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* C = beta * C over the whole product (C = 0 when beta == 0). */
static void scale_c(const tm_matmul_args *g) {
  for (int64_t i = 0; i < g->shape.m; i++) {
    float *c = g->c + i * g->ldc;
    for (int64_t j = 0; j < g->shape.n; j++)
      c[j] = g->beta == 0.0f ? 0.0f : g->beta * c[j];
  }
}

/* C[i0.., j0..] += alpha * A[i0.., p0..] * B[p0.., j0..] over one block. */
static void block(const tm_matmul_args *g, int64_t i0, int64_t i1, int64_t j0, int64_t j1,
                  int64_t p0, int64_t p1) {
  for (int64_t i = i0; i < i1; i++) {
    const float *a = g->a + i * g->lda;
    float *c = g->c + i * g->ldc;
    for (int64_t p = p0; p < p1; p++) {
      const float *b = g->b + p * g->ldb;
      float s = g->alpha * a[p];
      for (int64_t j = j0; j < j1; j++)
        c[j] += s * b[j];
    }
  }
}

void tm_matmul(const tm_matmul_args *g, const tm_policy *p) {
  const tm_shape *s = &g->shape;
  scale_c(g);
  if (g->alpha == 0.0f)
    return;
  for (int64_t p0 = 0; p0 < s->k; p0 += p->kb)
    for (int64_t i0 = 0; i0 < s->m; i0 += p->mb)
      for (int64_t j0 = 0; j0 < s->n; j0 += p->nb)
        block(g, i0, min64(i0 + p->mb, s->m), j0, min64(j0 + p->nb, s->n), p0,
              min64(p0 + p->kb, s->k));
}
