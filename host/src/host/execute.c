/*
 * host/execute.c - olc_selection_execute and olc_selection_matmul_f32: the
 * tensor descriptions are checked here, before the plugin sees anything
 * (plugin.h lists what the host guarantees), then copied into the ABI's
 * layout on the stack and handed to the plugin's execute.  Nothing is
 * allocated and nothing is written to the store.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"
#include "util/options.h"

_Static_assert(OLC_DTYPE_FLOAT32 == OLC_PLUGIN_DTYPE_FLOAT32 &&
                   OLC_DTYPE_FLOAT16 == OLC_PLUGIN_DTYPE_FLOAT16 &&
                   OLC_DTYPE_FLOAT64 == OLC_PLUGIN_DTYPE_FLOAT64 &&
                   OLC_DTYPE_INT8 == OLC_PLUGIN_DTYPE_INT8,
               "host and plugin dtypes agree");
_Static_assert(OLC_TENSOR_MAX_RANK == OLC_PLUGIN_MAX_RANK, "host and plugin ranks agree");

static int64_t element_size(uint32_t dtype) {
  switch (dtype) {
  case OLC_DTYPE_FLOAT32:
    return 4;
  case OLC_DTYPE_FLOAT16:
    return 2;
  case OLC_DTYPE_FLOAT64:
    return 8;
  case OLC_DTYPE_INT8:
    return 1;
  }
  return 0;
}

/* The sizes: each dimension and stride at least 1, and the bytes of the
 * extent (sum of (dims[i] - 1) * strides[i], plus one) within int64. */
static olc_status check_extent(const olc_tensor *t, const char *what, olc_error *err) {
  int64_t span = 1, size = element_size(t->dtype);
  uint32_t i;
  for (i = 0; i < t->rank; i++) {
    int64_t d = t->dims[i], s = t->strides[i];
    if (d < 1)
      return olc_error__set(err, OLC_E_INVALID, "execute", "%s: dimension %u is %lld (below 1)",
                            what, (unsigned)i, (long long)d);
    if (s < 1)
      return olc_error__set(err, OLC_E_INVALID, "execute", "%s: stride %u is %lld (below 1)", what,
                            (unsigned)i, (long long)s);
    if (d - 1 > (INT64_MAX - span) / s)
      return olc_error__set(err, OLC_E_INVALID, "execute", "%s: its extent overflows int64", what);
    span += (d - 1) * s;
  }
  if (span > INT64_MAX / size)
    return olc_error__set(err, OLC_E_INVALID, "execute", "%s: its size in bytes overflows int64",
                          what);
  return OLC_OK;
}

/* A row-major tensor (innermost stride 1): each outer stride spans the
 * dimensions inside it, so rows never overlap (the leading dimension of a
 * matrix is at least its width).  Other layouts are the plugin's to
 * accept or refuse. */
static olc_status check_layout(const olc_tensor *t, const char *what, olc_error *err) {
  uint32_t i;
  if (t->rank < 2 || t->strides[t->rank - 1] != 1)
    return OLC_OK;
  for (i = t->rank - 1; i > 0; i--) {
    int64_t inner = t->strides[i] * t->dims[i];
    if (t->strides[i - 1] < inner)
      return olc_error__set(err, OLC_E_INVALID, "execute",
                            "%s: leading dimension %lld is smaller than the width %lld", what,
                            (long long)t->strides[i - 1], (long long)inner);
  }
  return OLC_OK;
}

static olc_status check_tensor(const olc_tensor *t, const char *what, olc_error *err) {
  olc_status st;
  if (t->data == NULL)
    return olc_error__set(err, OLC_E_INVALID, "execute", "%s: data is a null pointer", what);
  if (t->rank < 1 || t->rank > OLC_TENSOR_MAX_RANK)
    return olc_error__set(err, OLC_E_INVALID, "execute", "%s: rank %u is not 1 to %u", what,
                          (unsigned)t->rank, OLC_TENSOR_MAX_RANK);
  if (element_size(t->dtype) == 0)
    return olc_error__set(err, OLC_E_INVALID, "execute", "%s: unknown dtype %u", what,
                          (unsigned)t->dtype);
  st = check_extent(t, what, err);
  return st == OLC_OK ? check_layout(t, what, err) : st;
}

/* Checks n tensors and copies them into the ABI's layout. */
static olc_status take_tensors(olc_plugin_tensor *dst, const olc_tensor *src, size_t n,
                               const char *kind, olc_error *err) {
  char what[32];
  size_t i;
  if (n > OLC_EXECUTE_MAX_OPERANDS)
    return olc_error__set(err, OLC_E_INVALID, "execute", "more than %u %ss",
                          OLC_EXECUTE_MAX_OPERANDS, kind);
  if (n > 0 && src == NULL)
    return olc_error__set(err, OLC_E_INVALID, "execute", "%lu %ss at a null pointer",
                          (unsigned long)n, kind);
  for (i = 0; i < n; i++) {
    olc_status st;
    snprintf(what, sizeof what, "%s %lu", kind, (unsigned long)i);
    st = check_tensor(&src[i], what, err);
    if (st != OLC_OK)
      return st;
    memset(&dst[i], 0, sizeof dst[i]);
    dst[i].struct_size = (uint32_t)sizeof dst[i];
    dst[i].abi_minor = OLC_PLUGIN_ABI_MINOR;
    dst[i].dtype = src[i].dtype;
    dst[i].rank = src[i].rank;
    memcpy(dst[i].dims, src[i].dims, src[i].rank * sizeof dst[i].dims[0]);
    memcpy(dst[i].strides, src[i].strides, src[i].rank * sizeof dst[i].strides[0]);
    dst[i].data = src[i].data;
  }
  return OLC_OK;
}

olc_status olc_selection_execute(const olc_selection *s, const olc_execute_args *args,
                                 olc_error *err) {
  olc_plugin_tensor in[OLC_EXECUTE_MAX_OPERANDS], out[OLC_EXECUTE_MAX_OPERANDS];
  olc_plugin_exec_args pa;
  olc_execute_args a;
  olc_status st;
  if (s == NULL || args == NULL)
    return olc_error__set(err, OLC_E_INVALID, "execute", "no selection or arguments");
  /* The instance's threads (a split policy's pool) are not in a child. */
  st = olc_host__check_fork(s->slot->host, "execute", err);
  if (st != OLC_OK)
    return st;
  st = olc_options__load(&a, &olc_options__execute, args, "execute", err);
  if (st != OLC_OK)
    return st;
  if (!olc_plugins__can_execute(s->slot->plugin))
    return olc_plugins__execute(s->slot->plugin, &s->slot->workload, s->handle, NULL, err);
  st = take_tensors(in, a.inputs, a.input_count, "input", err);
  if (st == OLC_OK)
    st = take_tensors(out, a.outputs, a.output_count, "output", err);
  if (st != OLC_OK)
    return st;
  memset(&pa, 0, sizeof pa);
  pa.struct_size = (uint32_t)sizeof pa;
  pa.abi_minor = OLC_PLUGIN_ABI_MINOR;
  pa.inputs = in;
  pa.outputs = out;
  pa.input_count = (uint32_t)a.input_count;
  pa.output_count = (uint32_t)a.output_count;
  pa.alpha = a.alpha;
  pa.beta = a.beta;
  return olc_plugins__execute(s->slot->plugin, &s->slot->workload, s->handle, &pa, err);
}

static olc_tensor matrix(const float *data, int64_t rows, int64_t cols, int64_t ld) {
  olc_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = OLC_DTYPE_FLOAT32;
  t.rank = 2;
  t.dims[0] = rows;
  t.dims[1] = cols;
  t.strides[0] = ld;
  t.strides[1] = 1;
  t.data = (void *)(uintptr_t)data;
  return t;
}

/* One matrix argument: present, and its leading dimension not below its
 * width. */
static olc_status check_matrix(const void *p, const char *name, int64_t ld, int64_t width,
                               const char *width_name, olc_error *err) {
  if (p == NULL)
    return olc_error__set(err, OLC_E_INVALID, "matmul", "%s is a null pointer", name);
  if (ld < width)
    return olc_error__set(err, OLC_E_INVALID, "matmul", "ld%s %lld is smaller than %s %lld", name,
                          (long long)ld, width_name, (long long)width);
  return OLC_OK;
}

olc_status olc_selection_matmul_f32(const olc_selection *s, int64_t m, int64_t n, int64_t k,
                                    float alpha, const float *a, int64_t lda, const float *b,
                                    int64_t ldb, float beta, float *c, int64_t ldc,
                                    olc_error *err) {
  olc_tensor in[2], out[1];
  olc_execute_args args = OLC_EXECUTE_ARGS_INIT;
  olc_status st;
  if (m < 1 || n < 1 || k < 1)
    return olc_error__set(err, OLC_E_INVALID, "matmul", "%s is %lld (below 1)",
                          m < 1   ? "m"
                          : n < 1 ? "n"
                                  : "k",
                          (long long)(m < 1   ? m
                                      : n < 1 ? n
                                              : k));
  st = check_matrix(a, "a", lda, k, "k", err);
  if (st == OLC_OK)
    st = check_matrix(b, "b", ldb, n, "n", err);
  if (st == OLC_OK)
    st = check_matrix(c, "c", ldc, n, "n", err);
  if (st != OLC_OK)
    return st;
  in[0] = matrix(a, m, k, lda);
  in[1] = matrix(b, k, n, ldb);
  out[0] = matrix(c, m, n, ldc);
  args.inputs = in;
  args.input_count = 2;
  args.outputs = out;
  args.output_count = 1;
  args.alpha = alpha;
  args.beta = beta;
  return olc_selection_execute(s, &args, err);
}
