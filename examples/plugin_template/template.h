/*
 * template.h - the template plugin's parts: its policy (block sizes, as
 * text) and its kernel (a blocked single-precision MatMul).
 *
 * A policy here is a plain struct on the heap; its serialized form is one
 * canonical text, "v1 mb=64 nb=64 kb=128", so that every policy has exactly
 * one text and a stored record can be compared byte for byte.
 */
#ifndef TEMPLATE_H
#define TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

/* Block sizes of the MatMul loop nest: rows of C (mb), columns of C (nb)
 * and the shared dimension (kb) handled per block. */
typedef struct tm_policy {
  uint32_t mb, nb, kb;
} tm_policy;

#define TM_BLOCK_MAX 1024u     /* the largest block size a policy may name */
#define TM_POLICY_TEXT_MAX 64u /* the longest serialized policy */
#define TM_CANDIDATES_MAX 16u

/* The shape of one product: C[m x n] = A[m x k] * B[k x n]. */
typedef struct tm_shape {
  int64_t m, n, k;
} tm_shape;

/* Writes the canonical text of p into buf; returns its length, or 0 when
 * it does not fit or p is out of range. */
size_t tm_policy_format(char *buf, size_t size, const tm_policy *p);
/* Parses exactly the canonical text (len bytes, not NUL-terminated).
 * Returns 0, or -1 with a one-line reason in why. */
int tm_policy_parse(tm_policy *out, const void *bytes, size_t len, char *why, size_t why_size);
/* The candidates worth measuring for shape, best guess first; returns the
 * count (at most cap).  max_block caps every block size. */
uint32_t tm_policy_candidates(tm_policy *out, uint32_t cap, const tm_shape *shape,
                              uint32_t max_block);

/* One product with leading dimensions (row-major):
 * C = alpha * A * B + beta * C; with beta == 0, C is not read. */
typedef struct tm_matmul_args {
  tm_shape shape;
  const float *a;
  int64_t lda;
  const float *b;
  int64_t ldb;
  float *c;
  int64_t ldc;
  float alpha, beta;
} tm_matmul_args;

/* Runs the product with p's block sizes.  Reentrant: no state but the
 * arguments. */
void tm_matmul(const tm_matmul_args *args, const tm_policy *p);

struct olc_plugin_exec_args;
/* Checks execute's operands (MatMul: A, B in, C out; fp32, row-major) and
 * turns them into out.  Returns OLC_PLUGIN_OK, OLC_PLUGIN_E_UNSUPPORTED (a
 * variant this plugin does not implement) or OLC_PLUGIN_E_INVALID (a
 * description that contradicts itself), with a one-line reason in why. */
int32_t tm_exec_operands(tm_matmul_args *out, const struct olc_plugin_exec_args *args, char *why,
                         size_t why_size);

#endif
