/*
 * tests/plugins/mock_onnx.c - "mock_onnx": a mock that executes MatMul and
 * Gemm as plugin.h's ABI 1.3 describes them (views, batched MatMul, a
 * broadcast C, float32 / float16 / bfloat16 / float64, dtype_b) and packs
 * constant inputs, plainly, for the numerical check's tests
 * (tests/calibrate/test_numcheck_onnx.c).
 *
 * A policy is "spin_us=N" and run() busy-waits N microseconds, as in
 * mock_det (mock_plugin.c).  [plugin.mock_onnx] entries:
 *   candidates = 400,100,200,800   the policies, in order
 *   wrong = N                      policy spin_us=N computes a wrong result,
 *   wrong_kind = KIND              tail (the default: the last product of
 *                                  every sum dropped, as a kernel that misses
 *                                  the k remainder), bias (C ignored), alpha
 *                                  (alpha taken as 1), trans (a transposed
 *                                  view of A read as if row-major), packed
 *                                  (its packed copy of a constant is off by
 *                                  0.5 in one element; execute in place is
 *                                  right)
 *   trace = 1                      pack and release_packed log "pack N" and
 *                                  "release N" (N: spin_us)
 * Built with MOCK_ONNX_NO_VIEWS it is "mock_onnx_plain": no
 * OLC_PLUGIN_FEATURE_VIEWS, and execute refuses a view.
 *
 * It reports every workload property in its key's structure.  Like every
 * plugin it uses no file-system call and needs only the ABI header.
 */
#include <math.h>

#include "mock_scaffold.h"

#ifndef MOCK_NAME
#define MOCK_NAME "mock_onnx"
#endif
#if defined(MOCK_ONNX_NO_VIEWS)
#define MOCK_ONNX_FEATURES 0u
#else
#define MOCK_ONNX_FEATURES OLC_PLUGIN_FEATURE_VIEWS
#endif

#define ONNX_MAX_CANDIDATES 16

typedef struct onnx_instance {
  uint32_t threads;
  uint32_t spins[ONNX_MAX_CANDIDATES];
  uint32_t spin_count;
  uint32_t wrong_spin;
  char wrong_kind[16];
  int trace;
} onnx_instance;

static int32_t onnx_fail(int32_t code, const char *message) {
  mock_error(code, message);
  return code;
}

static void onnx_trace(const onnx_instance *m, const char *what, uint32_t spin_us) {
  char line[48];
  if (!m->trace)
    return;
  snprintf(line, sizeof line, "%s %u", what, (unsigned)spin_us);
  mock_log(OLC_PLUGIN_LOG_INFO, line);
}

static int32_t onnx_create(const olc_plugin_host *host, const olc_plugin_kv *config,
                           uint32_t config_count, uint32_t thread_count, void **instance) {
  onnx_instance *m;
  uint32_t i;
  mock_host = host;
  if ((m = calloc(1, sizeof *m)) == NULL)
    return OLC_PLUGIN_E_NOMEM;
  m->threads = thread_count;
  snprintf(m->wrong_kind, sizeof m->wrong_kind, "tail");
  (void)mock_parse_spins(m->spins, ONNX_MAX_CANDIDATES, &m->spin_count, "400,100,200,800");
  for (i = 0; i < config_count; i++) {
    const char *k = config[i].key, *v = config[i].value;
    if (k == NULL || v == NULL)
      continue;
    if (strcmp(k, "wrong") == 0)
      m->wrong_spin = (uint32_t)strtoul(v, NULL, 10);
    else if (strcmp(k, "wrong_kind") == 0)
      snprintf(m->wrong_kind, sizeof m->wrong_kind, "%s", v);
    else if (strcmp(k, "trace") == 0)
      m->trace = strcmp(v, "1") == 0;
    else if (strcmp(k, "candidates") == 0 &&
             mock_parse_spins(m->spins, ONNX_MAX_CANDIDATES, &m->spin_count, v) != 0) {
      free(m);
      return onnx_fail(OLC_PLUGIN_E_INVALID, "candidates: expected a list like 400,100,200");
    }
  }
  *instance = m;
  return OLC_PLUGIN_OK;
}

static void onnx_destroy(void *instance) { free(instance); }

static int onnx_serves(const olc_plugin_workload *w) {
  return w != NULL && w->operator_name != NULL &&
         (strcmp(w->operator_name, "MatMul") == 0 || strcmp(w->operator_name, "Gemm") == 0);
}

static int32_t onnx_key(void *instance, const olc_plugin_workload *w,
                        const olc_plugin_key_sink *sink) {
  const onnx_instance *m = instance;
  int32_t rc;
  uint32_t i;
  if (!onnx_serves(w))
    return onnx_fail(OLC_PLUGIN_E_UNSUPPORTED, "operator not served by mock_onnx");
  rc = sink->set_processor(sink->ctx, "mock-cpu");
  if (rc == OLC_PLUGIN_OK)
    rc = sink->set_thread_count(sink->ctx, m->threads);
  for (i = 0; rc == OLC_PLUGIN_OK && i < w->property_count; i++)
    rc = sink->add_structure(sink->ctx, w->properties[i].key, w->properties[i].value);
  return rc;
}

static int32_t onnx_candidates(void *instance, const olc_plugin_workload *w,
                               const olc_plugin_policy_sink *sink) {
  const onnx_instance *m = instance;
  (void)w;
  return mock_emit_spins(sink, m->spins, m->spin_count);
}

static int32_t onnx_validate(void *instance, const void *bytes, uint64_t len, void **policy) {
  char text[32], *end;
  unsigned long v;
  (void)instance;
  if (mock_policy_text(text, sizeof text, bytes, len, 9) != 0)
    return OLC_PLUGIN_E_INVALID;
  if (strncmp(text, "spin_us=", 8) != 0 || text[8] < '0' || text[8] > '9')
    return onnx_fail(OLC_PLUGIN_E_INVALID, "policy is not spin_us=N");
  v = strtoul(text + 8, &end, 10);
  if (*end != 0 || v == 0 || v > 1000000ul)
    return onnx_fail(OLC_PLUGIN_E_INVALID, "spin_us out of range");
  return mock_validated(policy, (uint32_t)v);
}

static int32_t onnx_serialize(void *instance, const void *policy, const olc_plugin_byte_sink *out) {
  (void)instance;
  return mock_write_policy(out, "spin_us=", policy);
}

static int32_t onnx_run(void *instance, const olc_plugin_workload *w, void *state,
                        const void *policy) {
  const mock_policy *p = policy;
  (void)instance;
  (void)w;
  (void)state;
  if (p == NULL)
    return onnx_fail(OLC_PLUGIN_E_INVALID, "run without a policy");
  mock_busy_wait((uint64_t)p->spin_us * 1000u);
  return OLC_PLUGIN_OK;
}

/* ------------------------------------------------------- elements */

static uint32_t onnx_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  return x;
}

/* binary16 nearest to f, ties to even. */
static uint16_t onnx_to_half(float f) {
  uint32_t x = onnx_bits(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu, h, rest;
  float a;
  if (ax > 0x7f800000u)
    return (uint16_t)(sign | 0x7e00u);
  if (ax >= 0x477ff000u)
    return (uint16_t)(sign | 0x7c00u);
  if (ax < 0x38800000u) {
    a = fabsf(f) * 16777216.0f;
    h = (uint32_t)a;
    if (a - (float)h > 0.5f || (a - (float)h == 0.5f && (h & 1u)))
      h++;
    return (uint16_t)(sign | h);
  }
  h = (((ax >> 23) - 112u) << 10) | ((ax & 0x7fffffu) >> 13);
  rest = ax & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
    h++;
  return (uint16_t)(sign | h);
}

static double onnx_from_half(uint16_t h) {
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  double v = e == 0    ? ldexp((double)m, -24)
             : e == 31 ? (m != 0 ? NAN : INFINITY)
                       : ldexp((double)(m | 0x400u), (int)e - 25);
  return (h & 0x8000u) != 0 ? -v : v;
}

static uint16_t onnx_to_bfloat(float f) {
  uint32_t x = onnx_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

static double onnx_from_bfloat(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, sizeof f);
  return (double)f;
}

static double onnx_load(const void *p, int64_t i, uint32_t dtype) {
  uint16_t h;
  if (dtype == OLC_PLUGIN_DTYPE_FLOAT64)
    return ((const double *)p)[i];
  if (dtype == OLC_PLUGIN_DTYPE_FLOAT32)
    return (double)((const float *)p)[i];
  memcpy(&h, (const unsigned char *)p + 2 * i, sizeof h);
  return dtype == OLC_PLUGIN_DTYPE_FLOAT16 ? onnx_from_half(h) : onnx_from_bfloat(h);
}

/* The output element: the float32 sum rounded once to the dtype. */
static void onnx_store(void *p, int64_t i, uint32_t dtype, double v) {
  uint16_t h;
  if (dtype == OLC_PLUGIN_DTYPE_FLOAT64) {
    ((double *)p)[i] = v;
    return;
  }
  if (dtype == OLC_PLUGIN_DTYPE_FLOAT32) {
    ((float *)p)[i] = (float)v;
    return;
  }
  h = dtype == OLC_PLUGIN_DTYPE_FLOAT16 ? onnx_to_half((float)v) : onnx_to_bfloat((float)v);
  memcpy((unsigned char *)p + 2 * i, &h, sizeof h);
}

static int onnx_dtype_ok(uint32_t dtype) {
  return dtype == OLC_PLUGIN_DTYPE_FLOAT32 || dtype == OLC_PLUGIN_DTYPE_FLOAT16 ||
         dtype == OLC_PLUGIN_DTYPE_BFLOAT16 || dtype == OLC_PLUGIN_DTYPE_FLOAT64;
}

/* ------------------------------------------------------------ pack */

/* What pack makes: the operand's elements as doubles, row-major in its
 * dims, and the policy it was packed for. */
typedef struct onnx_packed {
  uint32_t spin_us;
  int64_t count;
  double values[];
} onnx_packed;

static int64_t onnx_count(const olc_plugin_tensor *t) {
  int64_t n = 1;
  uint32_t i;
  for (i = 0; i < t->rank; i++)
    n *= t->dims[i];
  return n;
}

/* Offset of the row-major position at (index into t's dims) by t's strides. */
static int64_t onnx_offset(const olc_plugin_tensor *t, int64_t linear) {
  int64_t off = 0;
  uint32_t i;
  for (i = t->rank; i-- > 0;) {
    off += linear % t->dims[i] * t->strides[i];
    linear /= t->dims[i];
  }
  return off;
}

static int32_t onnx_pack(void *instance, const olc_plugin_workload *w, const void *policy,
                         uint32_t input, const olc_plugin_tensor *operand, void **packed,
                         uint64_t *bytes) {
  const onnx_instance *m = instance;
  const mock_policy *p = policy;
  onnx_packed *k;
  int64_t i, n;
  (void)w;
  (void)input;
  if (p == NULL || operand == NULL || operand->data == NULL || !onnx_dtype_ok(operand->dtype))
    return onnx_fail(OLC_PLUGIN_E_INVALID, "pack: a policy and an operand");
  n = onnx_count(operand);
  if ((k = malloc(sizeof *k + (size_t)n * sizeof(double))) == NULL)
    return OLC_PLUGIN_E_NOMEM;
  k->spin_us = p->spin_us;
  k->count = n;
  for (i = 0; i < n; i++)
    k->values[i] = onnx_load(operand->data, onnx_offset(operand, i), operand->dtype);
  if (m->wrong_spin == p->spin_us && strcmp(m->wrong_kind, "packed") == 0)
    k->values[n - 1] += 0.5;
  onnx_trace(m, "pack", p->spin_us);
  *packed = k;
  *bytes = sizeof *k + (uint64_t)n * sizeof(double);
  return OLC_PLUGIN_OK;
}

static void onnx_release_packed(void *instance, void *packed) {
  onnx_packed *k = packed;
  if (k == NULL)
    return;
  onnx_trace(instance, "release", k->spin_us);
  free(k);
}

/* --------------------------------------------------------- execute */

/* One operand as execute reads it: its description, where its elements
 * are (the packed copy, row-major doubles, or the data by strides). */
typedef struct onnx_operand {
  olc_plugin_tensor t;
  const void *data;
  uint32_t dtype;
} onnx_operand;

static void onnx_operand_of(onnx_operand *o, const olc_plugin_tensor *t, const void *packed) {
  int64_t stride = 1;
  uint32_t i;
  o->t = *t;
  o->data = t->data;
  o->dtype = t->dtype;
  if (packed == NULL)
    return;
  o->data = ((const onnx_packed *)packed)->values;
  o->dtype = OLC_PLUGIN_DTYPE_FLOAT64;
  for (i = t->rank; i-- > 0;) {
    o->t.strides[i] = stride;
    stride *= t->dims[i];
  }
}

/* A view (a stride 0 or out of order, rank 0) where the plugin takes none. */
static int onnx_is_view(const olc_plugin_tensor *t) {
  uint32_t i;
  if (t->rank == 0)
    return 1;
  for (i = 0; i < t->rank; i++)
    if (t->strides[i] < 1 ||
        (i + 1 < t->rank && t->strides[i] < t->strides[i + 1] * t->dims[i + 1]))
      return 1;
  return 0;
}

/* The element at batch index b (of Y's batch dims, rank yb), row i, col j
 * of operand o, whose batch dims broadcast to Y's. */
static double onnx_at(const onnx_operand *o, const int64_t *b, uint32_t yb, int64_t i, int64_t j,
                      int transposed_as_row_major) {
  const olc_plugin_tensor *t = &o->t;
  uint32_t ob = t->rank - 2, d;
  int64_t off = 0, rs = t->strides[ob], cs = t->strides[ob + 1];
  for (d = 0; d < ob; d++)
    if (t->dims[d] > 1)
      off += b[yb - ob + d] * t->strides[d];
  if (transposed_as_row_major) {
    rs = t->dims[ob + 1];
    cs = 1;
  }
  return onnx_load(o->data, off + i * rs + j * cs, o->dtype);
}

/* C (rank 0, 1 or 2) broadcast to m x n at (i, j). */
static double onnx_bias(const onnx_operand *c, int64_t i, int64_t j) {
  const olc_plugin_tensor *t = &c->t;
  int64_t off = 0;
  if (t->rank == 1)
    off = t->dims[0] > 1 ? j * t->strides[0] : 0;
  else if (t->rank == 2)
    off = (t->dims[0] > 1 ? i * t->strides[0] : 0) + (t->dims[1] > 1 ? j * t->strides[1] : 0);
  return onnx_load(c->data, off, c->dtype);
}

static int32_t onnx_execute(void *instance, const olc_plugin_workload *w, const void *policy,
                            const olc_plugin_exec_args *a) {
  const onnx_instance *m = instance;
  const mock_policy *p = policy;
  onnx_operand A, B, C;
  const olc_plugin_tensor *Y;
  int64_t b[OLC_PLUGIN_MAX_RANK], batches = 1, m_, n_, k_, q, i, j, l;
  uint32_t yb, t;
  int gemm, has_c, wrong;
  if (!onnx_serves(w) || p == NULL || a == NULL || a->input_count < 2 || a->output_count != 1)
    return onnx_fail(OLC_PLUGIN_E_INVALID, "execute: MatMul or Gemm with a policy, A, B and Y");
  gemm = strcmp(w->operator_name, "Gemm") == 0;
  has_c = gemm && a->input_count > 2;
  if (a->input_count > (gemm ? 3u : 2u))
    return onnx_fail(OLC_PLUGIN_E_INVALID, "execute: too many inputs");
  Y = &a->outputs[0];
  for (t = 0; t < a->input_count + 1; t++) {
    const olc_plugin_tensor *x = t < a->input_count ? &a->inputs[t] : Y;
    if (!onnx_dtype_ok(x->dtype) || (x->rank < 2 && !(has_c && t == 2)) || x->data == NULL)
      return onnx_fail(OLC_PLUGIN_E_UNSUPPORTED, "execute: an operand it does not take");
    if ((MOCK_ONNX_FEATURES & OLC_PLUGIN_FEATURE_VIEWS) == 0 && onnx_is_view(x))
      return onnx_fail(OLC_PLUGIN_E_UNSUPPORTED, "execute: a view, without the feature");
  }
  for (t = 0; t < 3; t++) {
    const void *pk = a->packed != NULL && t < a->input_count ? a->packed[t] : NULL;
    if (t < a->input_count)
      onnx_operand_of(t == 0 ? &A : t == 1 ? &B : &C, &a->inputs[t], pk);
  }
  yb = Y->rank - 2;
  m_ = Y->dims[yb];
  n_ = Y->dims[yb + 1];
  k_ = A.t.dims[A.t.rank - 1];
  if (A.t.dims[A.t.rank - 2] != m_ || B.t.dims[B.t.rank - 2] != k_ ||
      B.t.dims[B.t.rank - 1] != n_ || A.t.rank - 2 > yb || B.t.rank - 2 > yb)
    return onnx_fail(OLC_PLUGIN_E_INVALID, "execute: A, B and Y do not fit together");
  for (t = 0; t < yb; t++)
    batches *= Y->dims[t];
  wrong = m->wrong_spin != 0 && p->spin_us == m->wrong_spin;
  for (q = 0; q < batches; q++) {
    int64_t r = q;
    for (t = yb; t-- > 0;) {
      b[t] = r % Y->dims[t];
      r /= Y->dims[t];
    }
    for (i = 0; i < m_; i++)
      for (j = 0; j < n_; j++) {
        float acc = 0; /* float32 accumulation, as plugin.h says */
        double y;
        int64_t kk = wrong && strcmp(m->wrong_kind, "tail") == 0 ? k_ - 1 : k_;
        int as_rows = wrong && strcmp(m->wrong_kind, "trans") == 0;
        for (l = 0; l < kk; l++)
          acc += (float)(onnx_at(&A, b, yb, i, l, as_rows) * onnx_at(&B, b, yb, l, j, 0));
        y = (wrong && strcmp(m->wrong_kind, "alpha") == 0 ? 1.0 : a->alpha) * (double)acc;
        if (has_c && !(wrong && strcmp(m->wrong_kind, "bias") == 0))
          y += a->beta * onnx_bias(&C, i, j);
        else if (!gemm && a->beta != 0)
          y += a->beta * onnx_load(Y->data, onnx_offset(Y, q * m_ * n_ + i * n_ + j), Y->dtype);
        onnx_store(Y->data, onnx_offset(Y, q * m_ * n_ + i * n_ + j), Y->dtype, y);
      }
  }
  return OLC_PLUGIN_OK;
}

static const char *const onnx_operators[] = {"MatMul", "Gemm"};

static const olc_plugin onnx_table = {
    .struct_size = (uint32_t)sizeof(olc_plugin),
    .abi_minor = OLC_PLUGIN_ABI_MINOR,
    .abi_major = OLC_PLUGIN_ABI_MAJOR,
    .name = MOCK_NAME,
    .implementation_version = "1",
    .description = "mock of ONNX MatMul and Gemm for the numerical check's tests",
    .operators = onnx_operators,
    .operator_count = 2,
    .create = onnx_create,
    .destroy = onnx_destroy,
    .key = onnx_key,
    .candidates = onnx_candidates,
    .validate = onnx_validate,
    .serialize = onnx_serialize,
    .release_policy = mock_release,
    .run = onnx_run,
    .execute = onnx_execute,
    .features = MOCK_ONNX_FEATURES,
    .pack = onnx_pack,
    .release_packed = onnx_release_packed,
};

MOCK_ENTRY_POINT(olc_plugin_entry) {
  mock_host = host;
  return mock_hand_table(host_abi_major, plugin, &onnx_table);
}
