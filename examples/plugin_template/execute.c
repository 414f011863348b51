/*
 * execute.c - the operands of the template plugin's execute (ABI 1.1):
 * what it implements (fp32 row-major MatMul with leading dimensions) and
 * what it refuses, checked before any byte is written.
 */
#include <stdio.h>

#include "olc/plugin.h"
#include "template.h"

/* The bytes a row-major matrix description spans. */
static void extent(const olc_plugin_tensor *t, uintptr_t *lo, uintptr_t *hi) {
  int64_t last = (t->dims[0] - 1) * t->strides[0] + (t->dims[1] - 1) * t->strides[1];
  *lo = (uintptr_t)t->data;
  *hi = *lo + (uintptr_t)(last + 1) * sizeof(float);
}

static int overlaps(const olc_plugin_tensor *x, const olc_plugin_tensor *c) {
  uintptr_t xl, xh, cl, ch;
  extent(x, &xl, &xh);
  extent(c, &cl, &ch);
  return xl < ch && cl < xh;
}

/* One operand: a rank-2 fp32 row-major matrix with a leading dimension. */
static int32_t matrix(const olc_plugin_tensor *t, const char *name, char *why, size_t size) {
  if (!OLC_PLUGIN_HAS_FIELD(t, olc_plugin_tensor, data) || t->data == NULL) {
    snprintf(why, size, "execute: operand %s is missing or has no data", name);
    return OLC_PLUGIN_E_INVALID;
  }
  if (t->dtype != OLC_PLUGIN_DTYPE_FLOAT32) {
    snprintf(why, size, "execute: operand %s: dtype %u is not float32", name, (unsigned)t->dtype);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if (t->rank != 2) {
    snprintf(why, size, "execute: operand %s has rank %u (only plain rank-2 matrices)", name,
             (unsigned)t->rank);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if (t->strides[1] != 1) {
    snprintf(why, size, "execute: operand %s is not row-major (column stride %lld)", name,
             (long long)t->strides[1]);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if (t->dims[0] < 1 || t->dims[1] < 1 || t->strides[0] < t->dims[1]) {
    snprintf(why, size, "execute: operand %s: %lld x %lld with leading dimension %lld", name,
             (long long)t->dims[0], (long long)t->dims[1], (long long)t->strides[0]);
    return OLC_PLUGIN_E_INVALID;
  }
  return OLC_PLUGIN_OK;
}

int32_t tm_exec_operands(tm_matmul_args *out, const struct olc_plugin_exec_args *args, char *why,
                         size_t why_size) {
  const olc_plugin_tensor *a, *b, *c;
  int32_t rc;
  if (!OLC_PLUGIN_HAS_FIELD(args, olc_plugin_exec_args, beta) || args->inputs == NULL ||
      args->outputs == NULL || args->input_count != 2 || args->output_count != 1) {
    snprintf(why, why_size, "execute: MatMul takes two inputs and one output");
    return OLC_PLUGIN_E_INVALID;
  }
  a = &args->inputs[0], b = &args->inputs[1], c = &args->outputs[0];
  if ((rc = matrix(a, "A", why, why_size)) != OLC_PLUGIN_OK ||
      (rc = matrix(b, "B", why, why_size)) != OLC_PLUGIN_OK ||
      (rc = matrix(c, "C", why, why_size)) != OLC_PLUGIN_OK)
    return rc;
  if (a->dims[1] != b->dims[0] || c->dims[0] != a->dims[0] || c->dims[1] != b->dims[1]) {
    snprintf(why, why_size, "execute: A %lld x %lld, B %lld x %lld and C %lld x %lld do not fit",
             (long long)a->dims[0], (long long)a->dims[1], (long long)b->dims[0],
             (long long)b->dims[1], (long long)c->dims[0], (long long)c->dims[1]);
    return OLC_PLUGIN_E_INVALID;
  }
  if (overlaps(a, c) || overlaps(b, c)) {
    snprintf(why, why_size, "execute: an input overlaps C (in-place products are not supported)");
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  out->shape.m = a->dims[0];
  out->shape.n = b->dims[1];
  out->shape.k = a->dims[1];
  out->a = a->data, out->lda = a->strides[0];
  out->b = b->data, out->ldb = b->strides[0];
  out->c = c->data, out->ldc = c->strides[0];
  out->alpha = (float)args->alpha;
  out->beta = (float)args->beta;
  return OLC_PLUGIN_OK;
}
