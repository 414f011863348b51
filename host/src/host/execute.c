/*
 * host/execute.c - olc_selection_execute, olc_selection_matmul_f32 and the
 * execute part of olc_binding_execute: the tensor descriptions are checked
 * here, before the plugin sees anything (plugin.h lists what the host
 * guarantees), and copied into the ABI's layout on the stack in the same
 * pass, then handed to the plugin's execute.  A plain MatMul (row-major
 * float32 matrices that fit together, nothing packed) goes to the plugin's
 * matmul_f32 (ABI 1.5) instead, with no description at all: checking and
 * copying three descriptions, then decoding them again in the plugin, was
 * most of a small product's cost.
 *
 * Lean on success: no allocation, no system call and no formatting; the
 * checks name a tensor ("input 1") only when they report it, so the cost
 * of a small product is the plugin's.  Nothing is written to the store.
 */
#include <stdint.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"
#include "util/options.h"

_Static_assert(OLC_DTYPE_FLOAT32 == OLC_PLUGIN_DTYPE_FLOAT32 &&
                   OLC_DTYPE_FLOAT16 == OLC_PLUGIN_DTYPE_FLOAT16 &&
                   OLC_DTYPE_FLOAT64 == OLC_PLUGIN_DTYPE_FLOAT64 &&
                   OLC_DTYPE_INT8 == OLC_PLUGIN_DTYPE_INT8 &&
                   OLC_DTYPE_BFLOAT16 == OLC_PLUGIN_DTYPE_BFLOAT16,
               "host and plugin dtypes agree");
_Static_assert(OLC_TENSOR_MAX_RANK == OLC_PLUGIN_MAX_RANK, "host and plugin ranks agree");
_Static_assert(OLC_TENSOR_MAX_RANK == 8, "copy_tensor zeroes axes 0 to 7");

int64_t olc_host__element_size(uint32_t dtype) {
  switch (dtype) {
  case OLC_DTYPE_FLOAT32:
    return 4;
  case OLC_DTYPE_FLOAT16:
  case OLC_DTYPE_BFLOAT16:
    return 2;
  case OLC_DTYPE_FLOAT64:
    return 8;
  case OLC_DTYPE_INT8:
    return 1;
  }
  return 0;
}

/* What a tensor is, for a message: "input 1", "output 0". */
typedef struct tensor_name {
  const char *kind;
  unsigned index;
} tensor_name;

/* The axes of t that hold more than one element at distinct places (dims
 * above 1, strides above 0), innermost (smallest stride) first; on a tie
 * the later axis counts as the inner one, as row-major order has it. */
static uint32_t sorted_axes(uint32_t *axes, const olc_tensor *t) {
  uint32_t i, n = 0;
  for (i = t->rank; i-- > 0;) {
    uint32_t j = n;
    if (t->dims[i] < 2 || t->strides[i] < 1)
      continue;
    while (j > 0 && t->strides[axes[j - 1]] > t->strides[i]) {
      axes[j] = axes[j - 1];
      j--;
    }
    axes[j] = i;
    n++;
  }
  return n;
}

/* Whether an outer stride spans d elements of stride s (outer >= s * d),
 * computed without overflow: s * (d - 1) lies within the checked extent. */
static int spans(int64_t outer, int64_t s, int64_t d) { return outer - s * (d - 1) >= s; }

/* s * d for a message (at most 2^64 - 1 within the checked extent). */
static unsigned long long width(int64_t s, int64_t d) {
  return (unsigned long long)s * (unsigned long long)d;
}

/* No two index tuples of t share an element, apart from the axes a view
 * broadcasts (stride 0; an output has none): each stride spans everything
 * inside it.  The usual failure, a row-major matrix whose leading dimension
 * is below its width, is named so. */
static olc_status check_distinct(const olc_tensor *t, tensor_name n, olc_error *err) {
  uint32_t axes[OLC_TENSOR_MAX_RANK], count = sorted_axes(axes, t), j;
  for (j = 1; j < count; j++) {
    uint32_t in = axes[j - 1], out = axes[j];
    if (spans(t->strides[out], t->strides[in], t->dims[in]))
      continue;
    if (out + 1 == in)
      return olc_error__set(err, OLC_E_INVALID, "execute",
                            "%s %u: leading dimension %lld is smaller than the width %llu", n.kind,
                            n.index, (long long)t->strides[out],
                            width(t->strides[in], t->dims[in]));
    return olc_error__set(err, OLC_E_INVALID, "execute",
                          "%s %u: its elements overlap (stride %u is %lld, below the %llu that "
                          "stride %u spans)",
                          n.kind, n.index, (unsigned)out, (long long)t->strides[out],
                          width(t->strides[in], t->dims[in]), (unsigned)in);
  }
  return OLC_OK;
}

/* What plugin.h promised before views: rank 1 to 8, strides of 1 and
 * above, row-major (innermost stride 1, each outer stride at least what it
 * spans).  "" when t is so, else what it is (NULL: a stride 0).  Called
 * after the extent check. */
static const char *not_row_major(const olc_tensor *t) {
  uint32_t i;
  if (t->rank == 0)
    return "rank 0";
  for (i = 0; i < t->rank; i++)
    if (t->strides[i] == 0)
      return NULL; /* named by the caller with its axis */
  if (t->strides[t->rank - 1] != 1)
    return "strides not row-major";
  for (i = t->rank - 1; i > 0; i--)
    if (!spans(t->strides[i - 1], t->strides[i], t->dims[i]))
      return "strides not row-major";
  return "";
}

static olc_status refuse_view(const olc_tensor *t, tensor_name n, const char *plugin,
                              olc_error *err) {
  const char *why = not_row_major(t);
  uint32_t i;
  if (why == NULL)
    for (i = 0; i < t->rank; i++)
      if (t->strides[i] == 0)
        return olc_error__set(err, OLC_E_UNSUPPORTED, "execute",
                              "%s %u is a view (stride %u is 0): plugin %s does not take views",
                              n.kind, n.index, (unsigned)i, plugin);
  return olc_error__set(err, OLC_E_UNSUPPORTED, "execute",
                        "%s %u is a view (%s): plugin %s does not take views", n.kind, n.index,
                        why != NULL ? why : "", plugin);
}

/* The full check of one tensor, after the cheap path found something: the
 * first problem, reported. */
static olc_status explain_tensor(const olc_tensor *t, tensor_name n, int output, int views,
                                 const char *plugin, olc_error *err) {
  int64_t span = 1, size = olc_host__element_size(t->dtype), bytes;
  uint32_t i;
  olc_status st;
  if (t->data == NULL)
    return olc_error__set(err, OLC_E_INVALID, "execute", "%s %u: data is a null pointer", n.kind,
                          n.index);
  if (t->rank > OLC_TENSOR_MAX_RANK)
    return olc_error__set(err, OLC_E_INVALID, "execute", "%s %u: rank %u is not 0 to %u", n.kind,
                          n.index, (unsigned)t->rank, OLC_TENSOR_MAX_RANK);
  if (size == 0)
    return olc_error__set(err, OLC_E_INVALID, "execute", "%s %u: unknown dtype %u", n.kind, n.index,
                          (unsigned)t->dtype);
  for (i = 0; i < t->rank; i++) {
    int64_t d = t->dims[i], s = t->strides[i];
    if (d < 1)
      return olc_error__set(err, OLC_E_INVALID, "execute", "%s %u: dimension %u is %lld (below 1)",
                            n.kind, n.index, (unsigned)i, (long long)d);
    if (s < 0)
      return olc_error__set(err, OLC_E_INVALID, "execute", "%s %u: stride %u is %lld (below 0)",
                            n.kind, n.index, (unsigned)i, (long long)s);
    if (s > 0 && d - 1 > (INT64_MAX - span) / s)
      return olc_error__set(err, OLC_E_INVALID, "execute", "%s %u: its extent overflows int64",
                            n.kind, n.index);
    span += (d - 1) * s;
  }
  if (span > INT64_MAX / size)
    return olc_error__set(err, OLC_E_INVALID, "execute", "%s %u: its size in bytes overflows int64",
                          n.kind, n.index);
  bytes = span * size;
  if ((uint64_t)bytes - 1u > (uint64_t)(UINTPTR_MAX - (uintptr_t)t->data))
    return olc_error__set(err, OLC_E_INVALID, "execute",
                          "%s %u: its bytes run past the end of the address space", n.kind,
                          n.index);
  if (output)
    for (i = 0; i < t->rank; i++)
      if (t->strides[i] == 0 && t->dims[i] > 1)
        return olc_error__set(err, OLC_E_INVALID, "execute",
                              "%s %u: stride %u is 0 on a dimension of %lld (an output's elements "
                              "would repeat)",
                              n.kind, n.index, (unsigned)i, (long long)t->dims[i]);
  st = check_distinct(t, n, err);
  if (st != OLC_OK)
    return st;
  if (!views) {
    const char *why = not_row_major(t);
    if (why == NULL || why[0] != 0)
      return refuse_view(t, n, plugin, err);
  }
  return OLC_OK;
}

#define ZERO_AXIS(t, i) ((t)->dims[i] = (t)->strides[i] = 0)

/* The description, the entries past rank zeroed as plugin.h promises: a
 * fixed-size copy, then the tail by a switch that falls through (a loop
 * bounded by r became a rep stos, slow to start; a masked copy of every
 * entry costs more than the stores). */
static void copy_tensor(olc_plugin_tensor *dst, const olc_tensor *t, uint32_t r) {
  dst->struct_size = (uint32_t)sizeof *dst;
  dst->abi_minor = OLC_PLUGIN_ABI_MINOR;
  dst->dtype = t->dtype;
  dst->rank = r;
  memcpy(dst->dims, t->dims, sizeof dst->dims);
  memcpy(dst->strides, t->strides, sizeof dst->strides);
  switch (r) {
  case 0:
    ZERO_AXIS(dst, 0);
    /* fallthrough */
  case 1:
    ZERO_AXIS(dst, 1);
    /* fallthrough */
  case 2:
    ZERO_AXIS(dst, 2);
    /* fallthrough */
  case 3:
    ZERO_AXIS(dst, 3);
    /* fallthrough */
  case 4:
    ZERO_AXIS(dst, 4);
    /* fallthrough */
  case 5:
    ZERO_AXIS(dst, 5);
    /* fallthrough */
  case 6:
    ZERO_AXIS(dst, 6);
    /* fallthrough */
  case 7:
    ZERO_AXIS(dst, 7);
    /* fallthrough */
  default:
    break;
  }
  dst->data = t->data;
}

/* Dimensions and strides up to 2^28 keep every sum below 2^62 bytes
 * without a test per step: 8 axes of (2^28 - 1) * 2^28 elements of at
 * most 8 bytes. */
#define PLAIN_LIMIT (UINT64_C(1) << 28)

/*
 * Checks t and copies it into dst, with its byte span in [*lo, *hi).  The
 * common case (row-major, nothing near a limit: the description every
 * runtime hands) costs one branch-free pass over rank; anything else goes
 * to explain_tensor, which either accepts it or says why not.
 */
static olc_status take_tensor(olc_plugin_tensor *dst, uintptr_t *lo, uintptr_t *hi,
                              const olc_tensor *t, tensor_name n, int output, int views,
                              olc_loaded_plugin *plugin, olc_error *err) {
  int64_t size = olc_host__element_size(t->dtype);
  uint64_t span = 1, inner = 1; /* unsigned: a hostile description wraps, never overflows */
  uint32_t i, r = t->rank;
  int plain = t->data != NULL && r - 1u < OLC_TENSOR_MAX_RANK && size != 0;
  if (plain) {
    plain = t->strides[r - 1] == 1;
    for (i = r; i-- > 0;) {
      uint64_t d = (uint64_t)t->dims[i], s = (uint64_t)t->strides[i];
      plain &= (d - 1u < PLAIN_LIMIT) & (s >= inner) & (s <= PLAIN_LIMIT);
      span += (d - 1u) * s;
      inner = s * d;
    }
    plain = plain && span * (uint64_t)size - 1u <= (uint64_t)(UINTPTR_MAX - (uintptr_t)t->data);
  }
  if (!plain) {
    olc_status st = explain_tensor(t, n, output, views, olc_plugins__name(plugin), err);
    if (st != OLC_OK)
      return st;
    span = 1;
    for (i = 0; i < r; i++)
      span += (uint64_t)((t->dims[i] - 1) * t->strides[i]);
  }
  copy_tensor(dst, t, r);
  *lo = (uintptr_t)t->data;
  *hi = *lo + (uintptr_t)(span * (uint64_t)size);
  return OLC_OK;
}

olc_status olc_host__take_constant(olc_plugin_tensor *dst, const olc_tensor *t, uint32_t input,
                                   olc_loaded_plugin *p, olc_error *err) {
  tensor_name n = {"input", (unsigned)input};
  uintptr_t lo = 0, hi = 0;
  int views = (olc_plugins__features(p) & OLC_PLUGIN_FEATURE_VIEWS) != 0;
  return take_tensor(dst, &lo, &hi, t, n, 0, views, p, err);
}

/* The bytes [span[0], span[1]) of a row-major float32 matrix (rows, cols
 * >= 1, ld >= cols, each at most PLAIN_LIMIT); 0 when they would run past
 * the end of the address space. */
static int matrix_span(uintptr_t span[2], const float *data, int64_t rows, int64_t cols,
                       int64_t ld) {
  uint64_t bytes = ((uint64_t)(rows - 1) * (uint64_t)ld + (uint64_t)cols) * sizeof(float);
  span[0] = (uintptr_t)data;
  span[1] = span[0] + (uintptr_t)bytes;
  return bytes - 1u <= (uint64_t)(UINTPTR_MAX - (uintptr_t)data);
}

static int apart(const uintptr_t x[2], const uintptr_t y[2]) {
  return x[1] <= y[0] || y[1] <= x[0];
}

/*
 * Whether a product whose figures are at least 1, whose leading dimensions
 * are not below the widths and whose pointers are set is one matmul_f32
 * takes (plugin.h, olc_plugin_matmul_args): every figure at most
 * PLAIN_LIMIT, each matrix's bytes within the address space, C apart from
 * A and B.
 */
static int plain_product(const olc_plugin_matmul_args *p) {
  uint64_t figures = (uint64_t)(p->m - 1) | (uint64_t)(p->n - 1) | (uint64_t)(p->k - 1) |
                     (uint64_t)(p->lda - 1) | (uint64_t)(p->ldb - 1) | (uint64_t)(p->ldc - 1);
  uintptr_t a[2], b[2], c[2];
  return figures < PLAIN_LIMIT && matrix_span(a, p->a, p->m, p->k, p->lda) &&
         matrix_span(b, p->b, p->k, p->n, p->ldb) && matrix_span(c, p->c, p->m, p->n, p->ldc) &&
         apart(c, a) && apart(c, b);
}

/*
 * The execute arguments of a MatMul as a plain product: A {m, k}, B {k, n}
 * and C {m, n}, float32, rank 2, row-major, nothing near a limit; 0 for
 * anything else, which the general path checks and names.  One pass of
 * loads and compares, no copy of a description.
 */
static int plain_matmul(olc_plugin_matmul_args *p, const olc_execute_args *args) {
  const olc_tensor *a, *b, *c;
  if (args->input_count != 2 || args->output_count != 1 || args->inputs == NULL ||
      args->outputs == NULL)
    return 0;
  a = &args->inputs[0], b = &args->inputs[1], c = &args->outputs[0];
  if (((a->dtype ^ OLC_DTYPE_FLOAT32) | (b->dtype ^ OLC_DTYPE_FLOAT32) |
       (c->dtype ^ OLC_DTYPE_FLOAT32) | (a->rank ^ 2) | (b->rank ^ 2) | (c->rank ^ 2)) != 0 ||
      ((a->strides[1] ^ 1) | (b->strides[1] ^ 1) | (c->strides[1] ^ 1)) != 0)
    return 0;
  p->m = a->dims[0], p->k = a->dims[1], p->n = b->dims[1];
  p->lda = a->strides[0], p->ldb = b->strides[0], p->ldc = c->strides[0];
  p->a = a->data, p->b = b->data, p->c = c->data;
  p->alpha = (float)args->alpha, p->beta = (float)args->beta;
  if ((b->dims[0] != p->k) | (c->dims[0] != p->m) | (c->dims[1] != p->n) | (p->lda < p->k) |
      (p->ldb < p->n) | (p->ldc < p->n) | (p->a == NULL) | (p->b == NULL) | (p->c == NULL))
    return 0;
  return plain_product(p);
}

/* The plugin's part, on tensors checked and copied. */
static olc_status call_plugin(const olc_selection *s, const olc_plugin_workload *w,
                              olc_plugin_tensor *in, uint32_t input_count, olc_plugin_tensor *out,
                              uint32_t output_count, double alpha, double beta, void *const *packed,
                              olc_error *err) {
  olc_plugin_exec_args pa;
  pa.struct_size = (uint32_t)sizeof pa;
  pa.abi_minor = OLC_PLUGIN_ABI_MINOR;
  pa.inputs = in;
  pa.outputs = out;
  pa.input_count = input_count;
  pa.output_count = output_count;
  pa.alpha = alpha;
  pa.beta = beta;
  pa.packed = packed;
  return olc_plugins__execute(s->slot->plugin, w, s->handle, &pa, err);
}

olc_status olc_host__execute(const olc_selection *s, const olc_plugin_workload *w,
                             const olc_execute_args *a, const olc_tensor *constants,
                             uint32_t constant_mask, void *const *packed, olc_error *err) {
  olc_plugin_tensor in[OLC_EXECUTE_MAX_OPERANDS], out[OLC_EXECUTE_MAX_OPERANDS];
  uintptr_t in_span[OLC_EXECUTE_MAX_OPERANDS][2];
  const olc_host_slot *slot = s->slot;
  size_t i, j;
  olc_status st;
  if (!slot->executes)
    return olc_plugins__execute(slot->plugin, w, s->handle, NULL, err);
  if (slot->matmul_f32 && packed == NULL && constant_mask == 0) {
    olc_plugin_matmul_args p;
    if (plain_matmul(&p, a))
      return olc_plugins__matmul_f32(slot->plugin, w, s->handle, &p, err);
  }
  if (a->input_count > OLC_EXECUTE_MAX_OPERANDS || a->output_count > OLC_EXECUTE_MAX_OPERANDS)
    return olc_error__set(err, OLC_E_INVALID, "execute", "more than %u %ss",
                          OLC_EXECUTE_MAX_OPERANDS,
                          a->input_count > OLC_EXECUTE_MAX_OPERANDS ? "input" : "output");
  if ((a->input_count > 0 && a->inputs == NULL) || (a->output_count > 0 && a->outputs == NULL))
    return olc_error__set(err, OLC_E_INVALID, "execute", "%lu %ss at a null pointer",
                          (unsigned long)(a->inputs == NULL ? a->input_count : a->output_count),
                          a->inputs == NULL && a->input_count > 0 ? "input" : "output");
  for (i = 0; i < a->input_count; i++) {
    tensor_name n = {"input", (unsigned)i};
    const olc_tensor *t = &a->inputs[i];
    if (constant_mask & (UINT32_C(1) << i))
      t = &constants[i]; /* the caller's was checked against it */
    st = take_tensor(&in[i], &in_span[i][0], &in_span[i][1], t, n, 0, slot->views, slot->plugin,
                     err);
    if (st != OLC_OK)
      return st;
  }
  for (i = 0; i < a->output_count; i++) {
    tensor_name n = {"output", (unsigned)i};
    uintptr_t span[2] = {0, 0}; /* set by take_tensor on success */
    st = take_tensor(&out[i], &span[0], &span[1], &a->outputs[i], n, 1, slot->views, slot->plugin,
                     err);
    if (st != OLC_OK)
      return st;
    for (j = 0; j < a->input_count; j++)
      if (!apart(span, in_span[j]))
        return olc_error__set(err, OLC_E_UNSUPPORTED, "execute",
                              "output %lu overlaps input %lu (their bytes share memory)",
                              (unsigned long)i, (unsigned long)j);
  }
  return call_plugin(s, w, in, (uint32_t)a->input_count, out, (uint32_t)a->output_count, a->alpha,
                     a->beta, packed, err);
}

olc_status olc_host__execute_args(const olc_execute_args **out, olc_execute_args *copy,
                                  const olc_execute_args *args, olc_error *err) {
  olc_status st;
  *out = args;
  if (args->version == OLC_EXECUTE_ARGS_VERSION)
    return OLC_OK;
  st = olc_options__load(copy, &olc_options__execute, args, "execute", err);
  *out = copy;
  return st;
}

olc_status olc_selection_execute(const olc_selection *s, const olc_execute_args *args,
                                 olc_error *err) {
  olc_execute_args copy;
  const olc_execute_args *a;
  olc_status st;
  if (s == NULL || args == NULL)
    return olc_error__set(err, OLC_E_INVALID, "execute", "no selection or arguments");
  /* The instance's threads (a split policy's pool) are not in a child. */
  st = olc_host__check_fork(s->slot->host, "execute", err);
  if (st != OLC_OK)
    return st;
  st = olc_host__execute_args(&a, &copy, args, err);
  if (st != OLC_OK)
    return st;
  return olc_host__execute(s, &s->slot->workload, a, NULL, 0, NULL, err);
}

static olc_tensor matrix(const float *data, int64_t rows, int64_t cols, int64_t ld) {
  olc_tensor t = {.dtype = OLC_DTYPE_FLOAT32,
                  .rank = 2,
                  .dims = {rows, cols},
                  .strides = {ld, 1},
                  .data = (void *)(uintptr_t)data};
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

/* A matrix (rows, cols >= 1, ld >= cols) taken as the plugin's tensor when
 * every figure is below PLAIN_LIMIT and its bytes do not wrap the address
 * space; 0 otherwise (olc_host__execute then checks it in full). */
static int plain_matrix(olc_plugin_tensor *t, uintptr_t span[2], const float *data, int64_t rows,
                        int64_t cols, int64_t ld) {
  uint32_t i;
  if (((uint64_t)rows | (uint64_t)ld) >= PLAIN_LIMIT || !matrix_span(span, data, rows, cols, ld))
    return 0;
  t->struct_size = (uint32_t)sizeof *t;
  t->abi_minor = OLC_PLUGIN_ABI_MINOR;
  t->dtype = OLC_PLUGIN_DTYPE_FLOAT32;
  t->rank = 2;
  /* Every entry written by value (a struct initializer zeroing the rest
   * became a rep stos, slow to start, on every call). */
  for (i = 0; i < OLC_TENSOR_MAX_RANK; i++) {
    t->dims[i] = i == 0 ? rows : i == 1 ? cols : 0;
    t->strides[i] = i == 0 ? ld : i == 1 ? 1 : 0;
  }
  t->data = (void *)(uintptr_t)data;
  return 1;
}

/* The checked arguments of olc_selection_matmul_f32 through the general
 * path, which names what is wrong with them. */
static olc_status matmul_checked(const olc_selection *s, int64_t m, int64_t n, int64_t k,
                                 float alpha, const float *a, int64_t lda, const float *b,
                                 int64_t ldb, float beta, float *c, int64_t ldc, olc_error *err) {
  olc_tensor in[2], out[1];
  olc_execute_args args;
  in[0] = matrix(a, m, k, lda);
  in[1] = matrix(b, k, n, ldb);
  out[0] = matrix(c, m, n, ldc);
  args.version = OLC_EXECUTE_ARGS_VERSION;
  args.inputs = in;
  args.input_count = 2;
  args.outputs = out;
  args.output_count = 1;
  args.alpha = alpha;
  args.beta = beta;
  return olc_host__execute(s, &s->slot->workload, &args, NULL, 0, NULL, err);
}

olc_status olc_selection_matmul_f32(const olc_selection *s, int64_t m, int64_t n, int64_t k,
                                    float alpha, const float *a, int64_t lda, const float *b,
                                    int64_t ldb, float beta, float *c, int64_t ldc,
                                    olc_error *err) {
  olc_plugin_tensor in[2], out[1];
  uintptr_t span[3][2];
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
  if (s == NULL)
    return olc_error__set(err, OLC_E_INVALID, "execute", "no selection or arguments");
  st = olc_host__check_fork(s->slot->host, "execute", err);
  if (st != OLC_OK)
    return st;
  if (s->slot->matmul_f32) {
    const olc_plugin_matmul_args p = {.m = m,
                                      .n = n,
                                      .k = k,
                                      .lda = lda,
                                      .ldb = ldb,
                                      .ldc = ldc,
                                      .a = a,
                                      .b = b,
                                      .c = c,
                                      .alpha = alpha,
                                      .beta = beta};
    if (plain_product(&p))
      return olc_plugins__matmul_f32(s->slot->plugin, &s->slot->workload, s->handle, &p, err);
  }
  /* Row-major matrices far from any limit, C apart from A and B: the
   * plugin's tensors are filled here, without the general checks. */
  if (s->slot->executes && plain_matrix(&in[0], span[0], a, m, k, lda) &&
      plain_matrix(&in[1], span[1], b, k, n, ldb) && plain_matrix(&out[0], span[2], c, m, n, ldc) &&
      apart(span[2], span[0]) && apart(span[2], span[1]))
    return call_plugin(s, &s->slot->workload, in, 2, out, 1, alpha, beta, NULL, err);
  return matmul_checked(s, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, err);
}
