/* calibrate/check.c - the numerical check of candidates (check.h). */
#include "calibrate/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* Largest operand the check makes (elements of one tensor): a workload
 * bigger than this is not checked rather than exhausting memory. */
#define MAX_ELEMENTS ((int64_t)64 << 20)

/* The most batch dimensions of one operand (the last two multiply). */
#define MAX_BATCH (OLC_PLUGIN_MAX_RANK - 2u)

void olc_check__init(olc_check *c, olc_loaded_plugin *plugin, const olc_plugin_workload *workload,
                     const olc_check_spec *spec) {
  memset(c, 0, sizeof *c);
  c->plugin = plugin;
  c->workload = workload;
  c->spec = *spec;
}

void olc_check__free(olc_check *c) {
  uint32_t i;
  for (i = 0; i < OLC_CHECK_MAX_INPUTS; i++) {
    free(c->data[i]);
    c->data[i] = NULL;
  }
  free(c->ref);
  free(c->out);
  c->ref = c->out = NULL;
  c->ready = 0;
}

const char *olc_check__why(const olc_check *c) { return c->impossible ? c->why : ""; }

static const char *property(const olc_plugin_workload *w, const char *name) {
  uint32_t i;
  for (i = 0; i < w->property_count; i++)
    if (w->properties[i].key != NULL && strcmp(w->properties[i].key, name) == 0)
      return w->properties[i].value;
  return NULL;
}

/* A positive integer (at most MAX_ELEMENTS), or 0. */
static int64_t positive(const char *v) {
  char *end = NULL;
  long long x;
  if (v == NULL || *v < '0' || *v > '9')
    return 0;
  x = strtoll(v, &end, 10);
  return end != v && *end == 0 && x > 0 && x <= MAX_ELEMENTS ? (int64_t)x : 0;
}

static int64_t dim(const olc_plugin_workload *w, const char *name) {
  return positive(property(w, name));
}

static int not_checked(olc_check *c, const char *what) {
  c->impossible = 1;
  snprintf(c->why, sizeof c->why, "not checked: %.180s", what);
  return 0;
}

/* ------------------------------------------------------------ dtypes */

static uint32_t dtype_code(const char *v) {
  if (v == NULL || strcmp(v, "float32") == 0 || strcmp(v, "fp32") == 0)
    return OLC_PLUGIN_DTYPE_FLOAT32;
  if (strcmp(v, "float16") == 0 || strcmp(v, "fp16") == 0)
    return OLC_PLUGIN_DTYPE_FLOAT16;
  if (strcmp(v, "bfloat16") == 0 || strcmp(v, "bf16") == 0)
    return OLC_PLUGIN_DTYPE_BFLOAT16;
  if (strcmp(v, "float64") == 0 || strcmp(v, "fp64") == 0)
    return OLC_PLUGIN_DTYPE_FLOAT64;
  return 0;
}

uint32_t olc_check__dtype(const olc_plugin_workload *workload) {
  return dtype_code(property(workload, "dtype"));
}

static size_t element_size(uint32_t dtype) {
  return dtype == OLC_PLUGIN_DTYPE_FLOAT64 ? 8u : dtype == OLC_PLUGIN_DTYPE_FLOAT32 ? 4u : 2u;
}

static uint32_t float_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  return x;
}

static float bits_float(uint32_t x) {
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

/* IEEE binary16 nearest to f, ties to even (the conversion a runtime's
 * Cast makes), in portable C: the host runs on any machine. */
static uint16_t half_bits(float f) {
  uint32_t x = float_bits(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu, h, rest;
  if (ax > 0x7f800000u)
    return (uint16_t)(sign | 0x7e00u);
  if (ax >= 0x477ff000u) /* 65520 and above round to infinity */
    return (uint16_t)(sign | 0x7c00u);
  if (ax < 0x38800000u) {                   /* below 2^-14: a subnormal half, units of 2^-24 */
    float a = bits_float(ax) * 16777216.0f; /* exact: a power-of-two scale */
    uint32_t i = (uint32_t)a;
    float r = a - (float)i;
    if (r > 0.5f || (r == 0.5f && (i & 1u)))
      i++;
    return (uint16_t)(sign | i);
  }
  h = (((ax >> 23) - 112u) << 10) | ((ax & 0x7fffffu) >> 13);
  rest = ax & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
    h++; /* a carry into the exponent is the right result */
  return (uint16_t)(sign | h);
}

static double half_value(uint16_t h) {
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  double v = e == 0    ? ldexp((double)m, -24)
             : e == 31 ? (m != 0 ? NAN : INFINITY)
                       : ldexp((double)(m | 0x400u), (int)e - 25);
  return (h & 0x8000u) != 0 ? -v : v;
}

/* bfloat16 nearest to f, ties to even: the upper half of its bits. */
static uint16_t bfloat_bits(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

static double bfloat_value(uint16_t h) { return (double)bits_float((uint32_t)h << 16); }

static void store(void *p, int64_t i, uint32_t dtype, double v) {
  uint16_t h;
  switch (dtype) {
  case OLC_PLUGIN_DTYPE_FLOAT64:
    ((double *)p)[i] = v;
    return;
  case OLC_PLUGIN_DTYPE_FLOAT16:
    h = half_bits((float)v);
    break;
  case OLC_PLUGIN_DTYPE_BFLOAT16:
    h = bfloat_bits((float)v);
    break;
  default:
    ((float *)p)[i] = (float)v;
    return;
  }
  memcpy((unsigned char *)p + 2 * i, &h, sizeof h);
}

static double load(const void *p, int64_t i, uint32_t dtype) {
  uint16_t h;
  switch (dtype) {
  case OLC_PLUGIN_DTYPE_FLOAT64:
    return ((const double *)p)[i];
  case OLC_PLUGIN_DTYPE_FLOAT16:
  case OLC_PLUGIN_DTYPE_BFLOAT16:
    memcpy(&h, (const unsigned char *)p + 2 * i, sizeof h);
    return dtype == OLC_PLUGIN_DTYPE_FLOAT16 ? half_value(h) : bfloat_value(h);
  default:
    return (double)((const float *)p)[i];
  }
}

/* ------------------------------------------------------------- shape */

/* The operands as the workload describes them. */
typedef struct shape {
  uint32_t dtype, dtype_b;
  int gemm;
  int64_t m, n, k;
  int trans_a, trans_b;
  uint32_t rank_a, rank_b, rank_y; /* batch dimensions of each */
  int64_t batch_a[MAX_BATCH], batch_b[MAX_BATCH], batch_y[MAX_BATCH];
  const char *bias; /* Gemm: none, scalar, row, col, matrix */
} shape;

/* A 0/1 property (absent: 0) into *out; 0 when it is neither. */
static int flag(const olc_plugin_workload *w, const char *name, int *out) {
  const char *v = property(w, name);
  *out = v != NULL && strcmp(v, "1") == 0;
  return v == NULL || strcmp(v, "0") == 0 || strcmp(v, "1") == 0;
}

/* "2x1" into dims (absent: none); 0 when malformed. */
static int batch(const char *v, int64_t *dims, uint32_t *rank) {
  char part[24];
  *rank = 0;
  while (v != NULL && *v != 0) {
    size_t n = strcspn(v, "x");
    if (n == 0 || n >= sizeof part || *rank == MAX_BATCH)
      return 0;
    memcpy(part, v, n);
    part[n] = 0;
    if ((dims[(*rank)++] = positive(part)) == 0)
      return 0;
    v += n;
    if (*v == 'x' && *++v == 0)
      return 0;
  }
  return 1;
}

/* numpy's broadcast of the batch dimensions, aligned at the right. */
static int broadcast(shape *s) {
  uint32_t i;
  s->rank_y = s->rank_a > s->rank_b ? s->rank_a : s->rank_b;
  for (i = 0; i < s->rank_y; i++) {
    int64_t a = i < s->rank_a ? s->batch_a[s->rank_a - 1 - i] : 1;
    int64_t b = i < s->rank_b ? s->batch_b[s->rank_b - 1 - i] : 1;
    if (a != b && a != 1 && b != 1)
      return 0;
    s->batch_y[s->rank_y - 1 - i] = a > b ? a : b;
  }
  return 1;
}

/* The properties that decide the operands, or 0 with why. */
static int parse(olc_check *c, shape *s) {
  const olc_plugin_workload *w = c->workload;
  const char *dtype_b = property(w, "dtype_b");
  char m[OLC_ERROR_MESSAGE_SIZE];
  memset(s, 0, sizeof *s);
  if (w->operator_name == NULL ||
      (strcmp(w->operator_name, "MatMul") != 0 && strcmp(w->operator_name, "Gemm") != 0))
    return not_checked(c, "the check makes operands for MatMul and Gemm only");
  s->gemm = strcmp(w->operator_name, "Gemm") == 0;
  if ((s->dtype = olc_check__dtype(w)) == 0)
    return not_checked(c, "the check makes float32, float16, bfloat16 and float64 operands only");
  s->dtype_b = dtype_b == NULL ? s->dtype : dtype_code(dtype_b);
  if (s->dtype_b != s->dtype &&
      (s->dtype != OLC_PLUGIN_DTYPE_FLOAT32 ||
       (s->dtype_b != OLC_PLUGIN_DTYPE_FLOAT16 && s->dtype_b != OLC_PLUGIN_DTYPE_BFLOAT16)))
    return not_checked(c, "dtype_b is float16 or bfloat16 with a float32 dtype only");
  s->m = dim(w, "m");
  s->n = dim(w, "n");
  s->k = dim(w, "k");
  if (s->m == 0 || s->n == 0 || s->k == 0)
    return not_checked(c, "the workload has no m, n and k");
  if (!flag(w, "trans_a", &s->trans_a) || !flag(w, "trans_b", &s->trans_b))
    return not_checked(c, "trans_a and trans_b are 0 or 1");
  if (!batch(property(w, "batch_a"), s->batch_a, &s->rank_a) ||
      !batch(property(w, "batch_b"), s->batch_b, &s->rank_b) || !broadcast(s))
    return not_checked(c, "batch_a and batch_b are dimensions like 2x1 that broadcast");
  if (s->gemm && s->rank_a + s->rank_b > 0)
    return not_checked(c, "a Gemm has no batch dimensions");
  s->bias = s->gemm ? property(w, "bias") : NULL;
  if (s->bias == NULL)
    s->bias = "none";
  if (strcmp(s->bias, "none") != 0 && strcmp(s->bias, "scalar") != 0 &&
      strcmp(s->bias, "row") != 0 && strcmp(s->bias, "col") != 0 && strcmp(s->bias, "matrix") != 0)
    return not_checked(c, "bias is none, scalar, row, col or matrix");
  if ((s->trans_a || s->trans_b) &&
      (olc_plugins__features(c->plugin) & OLC_PLUGIN_FEATURE_VIEWS) == 0) {
    snprintf(m, sizeof m, "the plugin takes no views (OLC_PLUGIN_FEATURE_VIEWS) for trans_%s = 1",
             s->trans_a ? "a" : "b");
    return not_checked(c, m);
  }
  return 1;
}

/* Elements of dims[0..rank) times rows * cols, or 0 past MAX_ELEMENTS. */
static int64_t elements(const int64_t *dims, uint32_t rank, int64_t rows, int64_t cols) {
  int64_t n = rows;
  uint32_t i;
  if (cols > MAX_ELEMENTS / n)
    return 0;
  n *= cols;
  for (i = 0; i < rank; i++) {
    if (dims[i] > MAX_ELEMENTS / n)
      return 0;
    n *= dims[i];
  }
  return n;
}

/* A contiguous tensor of batch dims, then rows x cols; transposed: the
 * view of a rows x cols matrix stored cols x rows. */
static void describe(olc_plugin_tensor *t, uint32_t dtype, const int64_t *batch_dims, uint32_t rank,
                     int64_t rows, int64_t cols, int transposed) {
  int64_t stride = rows * cols;
  uint32_t i;
  memset(t, 0, sizeof *t);
  t->struct_size = (uint32_t)sizeof *t;
  t->abi_minor = OLC_PLUGIN_ABI_MINOR;
  t->dtype = dtype;
  t->rank = rank + 2;
  for (i = rank; i-- > 0;) {
    t->dims[i] = batch_dims[i];
    t->strides[i] = stride;
    stride *= batch_dims[i];
  }
  t->dims[rank] = rows;
  t->dims[rank + 1] = cols;
  t->strides[rank] = transposed ? 1 : cols;
  t->strides[rank + 1] = transposed ? rows : 1;
}

/* Gemm's C as ONNX broadcasts it to m x n. */
static void describe_bias(olc_plugin_tensor *t, const shape *s, int views) {
  static const int64_t none[1] = {1};
  describe(t, s->dtype, none, 0, s->m, s->n, 0);
  if (strcmp(s->bias, "scalar") == 0) {
    memset(t->dims, 0, sizeof t->dims);
    memset(t->strides, 0, sizeof t->strides);
    t->rank = views ? 0u : 1u; /* without views: one element of rank 1 */
    t->dims[0] = views ? 0 : 1;
    t->strides[0] = views ? 0 : 1;
  } else if (strcmp(s->bias, "row") == 0) {
    t->rank = 1;
    t->dims[0] = s->n;
    t->strides[0] = 1;
    t->dims[1] = t->strides[1] = 0;
  } else if (strcmp(s->bias, "col") == 0) {
    t->dims[1] = 1;
    t->strides[0] = 1;
  }
}

/* Elements a description spans (contiguous as described above). */
static int64_t span(const olc_plugin_tensor *t) {
  int64_t n = 1;
  uint32_t i;
  for (i = 0; i < t->rank; i++)
    n *= t->dims[i];
  return n;
}

/* The operands' descriptions, or 0 with why. */
static int shape_up(olc_check *c, const shape *s) {
  int views = (olc_plugins__features(c->plugin) & OLC_PLUGIN_FEATURE_VIEWS) != 0;
  uint32_t i;
  if (elements(s->batch_a, s->rank_a, s->m, s->k) == 0 ||
      elements(s->batch_b, s->rank_b, s->k, s->n) == 0 ||
      (c->out_count = elements(s->batch_y, s->rank_y, s->m, s->n)) == 0)
    return not_checked(c, "the operands are too large to check");
  describe(&c->inputs[0], s->dtype, s->batch_a, s->rank_a, s->m, s->k, s->trans_a);
  describe(&c->inputs[1], s->dtype_b, s->batch_b, s->rank_b, s->k, s->n, s->trans_b);
  describe(&c->output, s->dtype, s->batch_y, s->rank_y, s->m, s->n, 0);
  c->input_count = 2;
  if (s->gemm && strcmp(s->bias, "none") != 0)
    describe_bias(&c->inputs[c->input_count++], s, views);
  /* Gemm's alpha and beta other than 1, so that a candidate that drops
   * either is caught; ONNX's beta 1 without a C (none is added). */
  c->alpha = s->gemm ? 1.5 : 1.0;
  c->beta = !s->gemm ? 0.0 : c->input_count > 2 ? 0.5 : 1.0;
  for (i = 0; i < c->input_count; i++)
    if (span(&c->inputs[i]) > MAX_ELEMENTS)
      return not_checked(c, "the operands are too large to check");
  return 1;
}

/* ---------------------------------------------------------- running */

/* splitmix64: the inputs depend on the seed only. */
static float next_value(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (float)((double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}

/* The input bits that the plugin is asked to pack. */
static uint32_t constants(const olc_check *c) {
  return c->workload->constant_inputs & ((1u << c->input_count) - 1u);
}

static void release_packed(olc_check *c, void **packed) {
  uint32_t i;
  for (i = 0; i < c->input_count; i++)
    if (packed[i] != NULL)
      olc_plugins__release_packed(c->plugin, packed[i]);
}

/* The output with the policy into out (NaN first: beta = 0 never reads
 * it), its constant inputs packed for it first and released after. */
static olc_status execute(olc_check *c, const void *policy, void *out, const char **what,
                          olc_error *err) {
  void *packed[OLC_CHECK_MAX_INPUTS] = {NULL, NULL, NULL};
  olc_plugin_exec_args args;
  uint32_t i, bits = constants(c);
  int64_t j;
  olc_status st = OLC_OK;
  *what = "execute";
  for (j = 0; j < c->out_count; j++)
    store(out, j, c->output.dtype, NAN);
  for (i = 0; i < c->input_count; i++)
    c->inputs[i].data = c->data[i];
  c->output.data = out;
  for (i = 0; i < c->input_count && st == OLC_OK; i++) {
    uint64_t bytes = 0;
    if ((bits >> i & 1u) == 0 || !olc_plugins__can_pack(c->plugin))
      continue;
    st = olc_plugins__pack(&packed[i], &bytes, c->plugin, c->workload, policy, i, &c->inputs[i],
                           err);
    if (st == OLC_E_UNSUPPORTED)
      st = OLC_OK; /* read in place */
    else if (st != OLC_OK)
      *what = "pack of a constant input";
  }
  if (st == OLC_OK) {
    memset(&args, 0, sizeof args);
    args.struct_size = (uint32_t)sizeof args;
    args.abi_minor = OLC_PLUGIN_ABI_MINOR;
    args.inputs = c->inputs;
    args.outputs = &c->output;
    args.input_count = c->input_count;
    args.output_count = 1;
    args.alpha = c->alpha;
    args.beta = c->beta;
    args.packed = bits != 0 ? packed : NULL;
    st = olc_plugins__execute(c->plugin, c->workload, policy, &args, err);
  }
  release_packed(c, packed);
  return st;
}

/* Inputs and the reference output, once: 1, 0 when nothing can be
 * checked (why set), -1 when out of memory. */
static int make_reference(olc_check *c) {
  void *ref = NULL;
  const char *what;
  olc_error e;
  uint64_t s = c->spec.seed;
  int64_t j, n;
  uint32_t i;
  olc_status st;
  shape sh;
  c->ready = 1;
  if (!parse(c, &sh) || !shape_up(c, &sh))
    return 0;
  for (i = 0; i < c->input_count; i++) {
    n = span(&c->inputs[i]);
    if ((c->data[i] = malloc((size_t)n * element_size(c->inputs[i].dtype))) == NULL)
      return -1;
    for (j = 0; j < n; j++)
      store(c->data[i], j, c->inputs[i].dtype, (double)next_value(&s));
  }
  c->ref = malloc((size_t)c->out_count * element_size(c->output.dtype));
  c->out = malloc((size_t)c->out_count * element_size(c->output.dtype));
  if (c->ref == NULL || c->out == NULL)
    return -1;
  olc_error_clear(&e);
  st = olc_plugins__validate(&ref, c->plugin, c->spec.reference, c->spec.reference_len, &e);
  if (st == OLC_OK) {
    st = execute(c, ref, c->ref, &what, &e);
    olc_plugins__release(c->plugin, ref);
  }
  if (st == OLC_E_NOMEM)
    return -1;
  if (st != OLC_OK) {
    char m[OLC_ERROR_MESSAGE_SIZE];
    snprintf(m, sizeof m, "the reference candidate's %s failed: %.120s", what, e.message);
    return not_checked(c, m);
  }
  return 1;
}

/* The element of out farthest outside the tolerance (by excess over its
 * limit). */
static olc_status compare(const olc_check *c, const void *out, olc_error *err) {
  const double atol = c->spec.atol, rtol = c->spec.rtol;
  const uint32_t dt = c->output.dtype, rank = c->output.rank;
  const int64_t rows = c->output.dims[rank - 2], cols = c->output.dims[rank - 1];
  double worst = 0, worst_err = 0;
  int64_t i, at = -1, row, col;
  char where[80];
  for (i = 0; i < c->out_count; i++) {
    double r = load(c->ref, i, dt), d = fabs(load(out, i, dt) - r), lim = atol + rtol * fabs(r);
    /* d - d is 0 for a finite d, NaN otherwise (no isfinite: mingw-w64). */
    double excess = d - d == 0 ? d - lim : INFINITY;
    if (excess > 0 && (at < 0 || excess > worst)) {
      worst = excess;
      worst_err = d;
      at = i;
    }
  }
  if (at < 0)
    return OLC_OK;
  row = at / cols % rows;
  col = at % cols;
  if (rank > 2)
    snprintf(where, sizeof where, "C[%lld,%lld,%lld]", (long long)(at / (rows * cols)),
             (long long)row, (long long)col);
  else
    snprintf(where, sizeof where, "C[%lld,%lld]", (long long)row, (long long)col);
  return olc_error__set(err, OLC_E_MISMATCH, "check",
                        "numerical_mismatch: |err| %.1e at %s > atol %g + rtol "
                        "%g*|ref| (ref %.6g, got %.6g)",
                        worst_err, where, atol, rtol, load(c->ref, at, dt), load(out, at, dt));
}

olc_status olc_check__policy(olc_check *c, const void *policy, const void *bytes, size_t len,
                             int *checked, olc_error *err) {
  const char *what;
  olc_error e;
  olc_status st;
  int made;
  *checked = 0;
  if (!c->spec.enabled) {
    (void)not_checked(c, "numerical_check is off or the plugin has no execute");
    return OLC_OK;
  }
  if (!c->ready && (made = make_reference(c)) < 0)
    return olc_error__set(err, OLC_E_NOMEM, "check", "out of memory");
  if (c->impossible)
    return OLC_OK;
  /* The reference candidate itself (the plugin's first, usually) has just
   * run to make the reference: its output is compared as it is (a NaN or
   * an infinity still rejects it) instead of running it again. */
  if (len == c->spec.reference_len && c->spec.reference != NULL &&
      memcmp(bytes, c->spec.reference, len) == 0)
    st = compare(c, c->ref, err);
  else {
    olc_error_clear(&e);
    st = execute(c, policy, c->out, &what, &e);
    if (st == OLC_E_NOMEM)
      return olc_error__set(err, st, "check", "out of memory");
    if (st != OLC_OK)
      return olc_error__set(err, st, "check", "numerical check: %s failed: %s", what, e.message);
    st = compare(c, c->out, err);
  }
  *checked = st == OLC_OK;
  return st;
}

void olc_check__spec(olc_check_spec *out, const olc_loaded_plugin *plugin,
                     const olc_plugin_workload *workload, const olc_calibration_settings *settings,
                     const void *first, size_t first_len) {
  olc_plugins_tolerance t;
  uint32_t dt = olc_check__dtype(workload);
  memset(out, 0, sizeof *out);
  out->enabled = settings->numerical_check && olc_plugins__can_execute(plugin);
  olc_plugins__tolerance(&t, plugin, workload->operator_name,
                         dt != 0 ? dt : OLC_PLUGIN_DTYPE_FLOAT32);
  out->atol =
      settings->check_atol > 0 && settings->check_atol < t.atol ? settings->check_atol : t.atol;
  out->rtol =
      settings->check_rtol > 0 && settings->check_rtol < t.rtol ? settings->check_rtol : t.rtol;
  out->seed = OLC_CHECK_SEED;
  out->reference = t.reference != NULL ? (const void *)t.reference : first;
  out->reference_len = t.reference != NULL ? strlen(t.reference) : first_len;
}
