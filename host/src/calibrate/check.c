/* calibrate/check.c - the numerical check of candidates (check.h). */
#include "calibrate/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* Largest operand the check makes (elements of one matrix): a workload
 * bigger than this is not checked rather than exhausting memory. */
#define MAX_ELEMENTS ((int64_t)64 << 20)

void olc_check__init(olc_check *c, olc_loaded_plugin *plugin, const olc_plugin_workload *workload,
                     const olc_check_spec *spec) {
  memset(c, 0, sizeof *c);
  c->plugin = plugin;
  c->workload = workload;
  c->spec = *spec;
}

void olc_check__free(olc_check *c) {
  free(c->a);
  free(c->b);
  free(c->ref);
  free(c->c);
  c->a = c->b = c->ref = c->c = NULL;
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

/* A positive integer property, or 0. */
static int64_t dim(const olc_plugin_workload *w, const char *name) {
  const char *v = property(w, name);
  char *end = NULL;
  long long x;
  if (v == NULL)
    return 0;
  x = strtoll(v, &end, 10);
  return end != v && *end == 0 && x > 0 && x <= MAX_ELEMENTS ? (int64_t)x : 0;
}

static int not_checked(olc_check *c, const char *what) {
  c->impossible = 1;
  snprintf(c->why, sizeof c->why, "not checked: %.180s", what);
  return 0;
}

/* The operator's shape, or 0 with why: what the check can make. */
static int shape(olc_check *c) {
  const olc_plugin_workload *w = c->workload;
  const char *dtype = property(w, "dtype");
  if (w->operator_name == NULL || strcmp(w->operator_name, "MatMul") != 0)
    return not_checked(c, "the check makes operands for MatMul only");
  if (dtype != NULL && strcmp(dtype, "float32") != 0 && strcmp(dtype, "fp32") != 0)
    return not_checked(c, "the check makes float32 operands only");
  c->m = dim(w, "m");
  c->n = dim(w, "n");
  c->k = dim(w, "k");
  if (c->m == 0 || c->n == 0 || c->k == 0)
    return not_checked(c, "the workload has no m, n and k");
  if (c->m * c->k > MAX_ELEMENTS || c->k * c->n > MAX_ELEMENTS || c->m * c->n > MAX_ELEMENTS)
    return not_checked(c, "the operands are too large to check");
  return 1;
}

/* splitmix64: the inputs depend on the seed only. */
static float next_value(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (float)((double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}

static void matrix(olc_plugin_tensor *t, float *data, int64_t rows, int64_t cols) {
  memset(t, 0, sizeof *t);
  t->struct_size = (uint32_t)sizeof *t;
  t->abi_minor = OLC_PLUGIN_ABI_MINOR;
  t->dtype = OLC_PLUGIN_DTYPE_FLOAT32;
  t->rank = 2;
  t->dims[0] = rows;
  t->dims[1] = cols;
  t->strides[0] = cols;
  t->strides[1] = 1;
  t->data = data;
}

/* C = A * B with the policy into out (NaN first: beta = 0 never reads it). */
static olc_status execute(olc_check *c, const void *policy, float *out, olc_error *err) {
  olc_plugin_tensor in[2], o;
  olc_plugin_exec_args args;
  int64_t i;
  for (i = 0; i < c->m * c->n; i++)
    out[i] = NAN;
  matrix(&in[0], c->a, c->m, c->k);
  matrix(&in[1], c->b, c->k, c->n);
  matrix(&o, out, c->m, c->n);
  memset(&args, 0, sizeof args);
  args.struct_size = (uint32_t)sizeof args;
  args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  args.inputs = in;
  args.outputs = &o;
  args.input_count = 2;
  args.output_count = 1;
  args.alpha = 1.0;
  args.beta = 0.0;
  return olc_plugins__execute(c->plugin, c->workload, policy, &args, err);
}

/* Inputs and the reference output, once: 1, 0 when nothing can be
 * checked (why set), -1 when out of memory. */
static int make_reference(olc_check *c) {
  void *ref = NULL;
  olc_error e;
  uint64_t s = c->spec.seed;
  int64_t i;
  olc_status st;
  c->ready = 1;
  if (!shape(c))
    return 0;
  c->a = malloc((size_t)(c->m * c->k) * sizeof *c->a);
  c->b = malloc((size_t)(c->k * c->n) * sizeof *c->b);
  c->ref = malloc((size_t)(c->m * c->n) * sizeof *c->ref);
  c->c = malloc((size_t)(c->m * c->n) * sizeof *c->c);
  if (c->a == NULL || c->b == NULL || c->ref == NULL || c->c == NULL)
    return -1;
  for (i = 0; i < c->m * c->k; i++)
    c->a[i] = next_value(&s);
  for (i = 0; i < c->k * c->n; i++)
    c->b[i] = next_value(&s);
  olc_error_clear(&e);
  st = olc_plugins__validate(&ref, c->plugin, c->spec.reference, c->spec.reference_len, &e);
  if (st == OLC_OK) {
    st = execute(c, ref, c->ref, &e);
    olc_plugins__release(c->plugin, ref);
  }
  if (st == OLC_E_NOMEM)
    return -1;
  if (st != OLC_OK) {
    char m[OLC_ERROR_MESSAGE_SIZE];
    snprintf(m, sizeof m, "the reference candidate failed: %.150s", e.message);
    return not_checked(c, m);
  }
  return 1;
}

/* The element of out farthest outside the tolerance (by excess over its
 * limit). */
static olc_status compare(const olc_check *c, const float *out, olc_error *err) {
  const double atol = c->spec.atol, rtol = c->spec.rtol;
  double worst = 0, worst_err = 0;
  int64_t i, at = -1;
  for (i = 0; i < c->m * c->n; i++) {
    double r = c->ref[i], d = fabs((double)out[i] - r), lim = atol + rtol * fabs(r);
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
  return olc_error__set(err, OLC_E_MISMATCH, "check",
                        "numerical_mismatch: |err| %.1e at C[%lld,%lld] > atol %g + rtol "
                        "%g*|ref| (ref %.6g, got %.6g)",
                        worst_err, (long long)(at / c->n), (long long)(at % c->n), atol, rtol,
                        (double)c->ref[at], (double)out[at]);
}

olc_status olc_check__policy(olc_check *c, const void *policy, const void *bytes, size_t len,
                             int *checked, olc_error *err) {
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
    st = execute(c, policy, c->c, &e);
    if (st == OLC_E_NOMEM)
      return olc_error__set(err, st, "check", "out of memory");
    if (st != OLC_OK)
      return olc_error__set(err, st, "check", "numerical check: execute failed: %s", e.message);
    st = compare(c, c->c, err);
  }
  *checked = st == OLC_OK;
  return st;
}

void olc_check__spec(olc_check_spec *out, const olc_loaded_plugin *plugin,
                     const olc_plugin_workload *workload, const olc_calibration_settings *settings,
                     const void *first, size_t first_len) {
  olc_plugins_tolerance t;
  const char *dtype = property(workload, "dtype");
  uint32_t dt = dtype != NULL && strcmp(dtype, "float64") == 0 ? OLC_PLUGIN_DTYPE_FLOAT64
                                                               : OLC_PLUGIN_DTYPE_FLOAT32;
  memset(out, 0, sizeof *out);
  out->enabled = settings->numerical_check && olc_plugins__can_execute(plugin);
  olc_plugins__tolerance(&t, plugin, workload->operator_name, dt);
  out->atol =
      settings->check_atol > 0 && settings->check_atol < t.atol ? settings->check_atol : t.atol;
  out->rtol =
      settings->check_rtol > 0 && settings->check_rtol < t.rtol ? settings->check_rtol : t.rtol;
  out->seed = OLC_CHECK_SEED;
  out->reference = t.reference != NULL ? (const void *)t.reference : first;
  out->reference_len = t.reference != NULL ? strlen(t.reference) : first_len;
}
