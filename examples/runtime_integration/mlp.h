/*
 * mlp.h - the example's model: a small multilayer perceptron stored in one
 * file, and a plain reference forward pass to check the tuned one against.
 *
 * File layout (native byte order, written by mlp_write): the 8 bytes
 * "OLCMLP1\n", a uint32_t layer count L, L + 1 uint32_t widths
 * (inputs, then each layer's outputs), then each layer's weights as
 * float[in x out], row-major (one row per input).  A layer computes
 * y = x * W, and every layer but the last applies ReLU.
 */
#ifndef MLP_H
#define MLP_H

#include <stddef.h>
#include <stdint.h>

#define MLP_MAX_LAYERS 8

typedef struct mlp {
  uint32_t layers;
  uint32_t width[MLP_MAX_LAYERS + 1];
  float *weights[MLP_MAX_LAYERS]; /* into bytes */
  unsigned char *bytes;           /* the whole file (what the runtime hashes) */
  size_t size;
} mlp;

/* Writes the example's model (deterministic weights) to path: 0, or -1
 * with why. */
int mlp_write(const char *path, char *why, size_t why_size);
/* Reads path into *m: 0, or -1 with why.  mlp_free releases it. */
int mlp_read(mlp *m, const char *path, char *why, size_t why_size);
void mlp_free(mlp *m);
/* Deterministic input rows: batch x width[0]. */
void mlp_input(float *x, size_t count);
/* The reference forward pass of batch rows (double accumulation); out
 * holds batch x width[layers].  0, or -1 when out of memory. */
int mlp_reference(const mlp *m, int64_t batch, const float *x, float *out);
/* The largest difference of got from the reference want (count values),
 * relative to want's largest magnitude (absolute when want is all zero);
 * NaN when got holds a NaN. */
double mlp_max_error(const float *got, const float *want, size_t count);

#endif
