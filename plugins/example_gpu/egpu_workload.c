/*
 * egpu_workload.c - a workload's properties for example_gpu: parsed and
 * checked into a layout (shape, transposes, batches, bias), the batches'
 * broadcast, and the key's structure.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egpu.h"

/* Strict decimal: digits only, no sign, no leading zero, 1..EGPU_MAX_DIM. */
static int parse_dim(const char *s, uint32_t *out) {
  uint32_t v = 0;
  size_t i;
  if (s == NULL || s[0] == '\0' || (s[0] == '0') || strlen(s) > 6)
    return -1;
  for (i = 0; s[i] != '\0'; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    v = v * 10u + (uint32_t)(s[i] - '0');
  }
  if (v > EGPU_MAX_DIM)
    return -1;
  *out = v;
  return 0;
}

/* "2x1x3": batch dims as written, each a strict decimal; "" is none. */
static int parse_batch(const char *s, egpu_batch *out) {
  char piece[8];
  size_t len;
  const char *x;
  out->rank = 0;
  if (s[0] == '\0')
    return 0;
  for (;;) {
    x = strchr(s, 'x');
    len = x != NULL ? (size_t)(x - s) : strlen(s);
    if (len == 0 || len >= sizeof piece || out->rank == EGPU_MAX_BATCH_RANK)
      return -1;
    memcpy(piece, s, len);
    piece[len] = '\0';
    if (parse_dim(piece, &out->dims[out->rank]) != 0)
      return -1;
    out->rank++;
    if (x == NULL)
      return 0;
    s = x + 1;
  }
}

static uint64_t batch_count(const egpu_batch *b) {
  uint64_t n = 1;
  uint32_t i;
  for (i = 0; i < b->rank; i++)
    n *= b->dims[i];
  return n;
}

int egpu_batch_broadcast(const egpu_batch *a, const egpu_batch *b, egpu_batch *out) {
  uint32_t r = a->rank > b->rank ? a->rank : b->rank, i;
  if (r > EGPU_MAX_BATCH_RANK)
    return -1;
  for (i = 0; i < r; i++) {
    /* Right-aligned: position i of the result is a's i - (r - a->rank). */
    uint32_t da = i + a->rank >= r ? a->dims[i + a->rank - r] : 1u;
    uint32_t db = i + b->rank >= r ? b->dims[i + b->rank - r] : 1u;
    if (da != db && da != 1u && db != 1u)
      return -1;
    out->dims[i] = da != 1u ? da : db;
  }
  out->rank = r;
  return 0;
}

uint64_t egpu_batch_offset(const egpu_batch *y, const egpu_batch *x, const int64_t *st,
                           uint64_t index) {
  uint64_t off = 0;
  uint32_t i = y->rank, lead = y->rank - x->rank;
  while (i-- > 0) {
    uint64_t idx = index % y->dims[i];
    index /= y->dims[i];
    if (i >= lead && x->dims[i - lead] != 1u)
      off += idx * (uint64_t)st[i - lead];
  }
  return off;
}

static const char *const egpu_bias_names[] = {"none", "scalar", "row", "col", "matrix"};

/* One recognized workload property: which field it sets. */
enum {
  P_DTYPE,
  P_DTYPE_B,
  P_M,
  P_N,
  P_K,
  P_TRANS_A,
  P_TRANS_B,
  P_BATCH_A,
  P_BATCH_B,
  P_BIAS,
  P_N_
};
static const char *const egpu_property_names[P_N_] = {
    "dtype", "dtype_b", "m", "n", "k", "trans_a", "trans_b", "batch_a", "batch_b", "bias"};

/* The values of the recognized properties (NULL when absent). */
typedef struct workload_values {
  const char *v[P_N_];
} workload_values;

static int32_t collect_properties(const egpu_instance *inst, const olc_plugin_workload *w,
                                  const char *name, workload_values *out) {
  uint32_t i;
  int p;
  memset(out, 0, sizeof *out);
  for (i = 0; w->properties != NULL && i < w->property_count; i++) {
    const char *key = w->properties[i].key, *value = w->properties[i].value;
    if (key == NULL || value == NULL)
      return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "workload %s: property %u has no %s", name,
                       (unsigned)i, key == NULL ? "name" : "value");
    for (p = 0; p < P_N_ && strcmp(key, egpu_property_names[p]) != 0; p++)
      ;
    /* A property this plugin does not read would change nothing it does:
     * refused, so that no workload is keyed without it. */
    if (p == P_N_)
      return egpu_fail(inst->host, OLC_PLUGIN_E_UNSUPPORTED,
                       "workload %s: property %s is not served (known: dtype, m, n, k, trans_a, "
                       "trans_b, batch_a, batch_b, bias, dtype_b)",
                       name, key);
    if (out->v[p] != NULL)
      return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "workload %s: property %s given twice",
                       name, key);
    out->v[p] = value;
  }
  return OLC_PLUGIN_OK;
}

static int32_t parse_flag(const egpu_instance *inst, const char *name, const char *prop,
                          const char *value, uint32_t *out) {
  *out = 0;
  if (value == NULL)
    return OLC_PLUGIN_OK;
  if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "workload %s: property %s=%s is not 0 or 1",
                     name, prop, value);
  *out = value[0] == '1';
  return OLC_PLUGIN_OK;
}

/* Operator, dtype and the layout properties; m, n, k come after. */
static int32_t parse_layout(const egpu_instance *inst, const olc_plugin_workload *w,
                            const char *name, const workload_values *pv, egpu_layout *l) {
  const char *dtype = pv->v[P_DTYPE];
  uint32_t i;
  int32_t rc;
  l->gemm = strcmp(w->operator_name, EGPU_GEMM) == 0;
  if (dtype == NULL || strcmp(dtype, EGPU_DTYPE) != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_UNSUPPORTED,
                     "workload %s: dtype %s is not served (only float32; float16 and bfloat16 "
                     "are not implemented)",
                     name, dtype != NULL ? dtype : "(missing)");
  if (pv->v[P_DTYPE_B] != NULL && strcmp(pv->v[P_DTYPE_B], dtype) != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_UNSUPPORTED,
                     "workload %s: dtype_b %s is not served (B of another dtype than A is not "
                     "implemented)",
                     name, pv->v[P_DTYPE_B]);
  if ((rc = parse_flag(inst, name, "trans_a", pv->v[P_TRANS_A], &l->trans_a)) != OLC_PLUGIN_OK ||
      (rc = parse_flag(inst, name, "trans_b", pv->v[P_TRANS_B], &l->trans_b)) != OLC_PLUGIN_OK)
    return rc;
  if (pv->v[P_BIAS] != NULL) {
    if (!l->gemm)
      return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                       "workload %s: property bias is Gemm's (MatMul has no bias)", name);
    for (i = 0; i < 5 && strcmp(pv->v[P_BIAS], egpu_bias_names[i]) != 0; i++)
      ;
    if (i == 5)
      return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                       "workload %s: property bias=%s is not none, scalar, row, col or matrix",
                       name, pv->v[P_BIAS]);
    l->bias = i;
  }
  for (i = 0; i < 2; i++) {
    const char *prop = i == 0 ? "batch_a" : "batch_b", *v = pv->v[i == 0 ? P_BATCH_A : P_BATCH_B];
    egpu_batch *b = i == 0 ? &l->batch_a : &l->batch_b;
    if (v == NULL)
      continue;
    if (l->gemm)
      return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                       "workload %s: property %s is MatMul's (Gemm's operands are matrices)", name,
                       prop);
    if (parse_batch(v, b) != 0)
      return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                       "workload %s: property %s=%s is not dimensions like 2x1 (at most %u, each "
                       "in 1..%u)",
                       name, prop, v, EGPU_MAX_BATCH_RANK, EGPU_MAX_DIM);
  }
  if (egpu_batch_broadcast(&l->batch_a, &l->batch_b, &l->batch_y) != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                     "workload %s: batch_a=%s and batch_b=%s do not broadcast", name,
                     pv->v[P_BATCH_A] != NULL ? pv->v[P_BATCH_A] : "",
                     pv->v[P_BATCH_B] != NULL ? pv->v[P_BATCH_B] : "");
  if (batch_count(&l->batch_a) > EGPU_MAX_BATCH || batch_count(&l->batch_b) > EGPU_MAX_BATCH ||
      batch_count(&l->batch_y) > EGPU_MAX_BATCH)
    return egpu_fail(inst->host, OLC_PLUGIN_E_UNSUPPORTED,
                     "workload %s: more than %u products in a batch", name, EGPU_MAX_BATCH);
  l->count_a = (uint32_t)batch_count(&l->batch_a);
  l->count_b = (uint32_t)batch_count(&l->batch_b);
  l->count_y = (uint32_t)batch_count(&l->batch_y);
  return OLC_PLUGIN_OK;
}

int32_t egpu_parse_workload(const egpu_instance *inst, const olc_plugin_workload *workload,
                            egpu_layout *layout) {
  static const char *const dims[3] = {"m", "n", "k"};
  workload_values pv;
  egpu_layout l;
  uint32_t v[3];
  const char *name;
  int32_t rc;
  int i;
  if (!OLC_PLUGIN_HAS_FIELD(workload, olc_plugin_workload, property_count))
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "no workload given");
  name = workload->name != NULL ? workload->name : "(unnamed)";
  if (workload->operator_name == NULL || (strcmp(workload->operator_name, EGPU_MATMUL) != 0 &&
                                          strcmp(workload->operator_name, EGPU_GEMM) != 0))
    return egpu_fail(inst->host, OLC_PLUGIN_E_UNSUPPORTED,
                     "workload %s: operator %s is not served (only MatMul and Gemm)", name,
                     workload->operator_name != NULL ? workload->operator_name : "(none)");
  memset(&l, 0, sizeof l);
  if ((rc = collect_properties(inst, workload, name, &pv)) != OLC_PLUGIN_OK ||
      (rc = parse_layout(inst, workload, name, &pv, &l)) != OLC_PLUGIN_OK)
    return rc;
  for (i = 0; i < 3; i++) {
    const char *s = pv.v[P_M + i];
    if (parse_dim(s, &v[i]) != 0)
      return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                       "workload %s: property %s=%s is not an integer in 1..%u", name, dims[i],
                       s != NULL ? s : "(missing)", EGPU_MAX_DIM);
  }
  l.shape.m = v[0];
  l.shape.n = v[1];
  l.shape.k = v[2];
  /* Each matrix must fit one device allocation and keep its indices in a cl_int. */
  {
    uint64_t ma = (uint64_t)v[0] * v[2], mb = (uint64_t)v[2] * v[1], mc = (uint64_t)v[0] * v[1];
    uint64_t most = ma > mb ? (ma > mc ? ma : mc) : (mb > mc ? mb : mc);
    if (most > 0x7fffffffu || most * 4u > inst->limits.max_mem_alloc_size)
      return egpu_fail(inst->host, OLC_PLUGIN_E_UNSUPPORTED,
                       "workload %s: %ux%ux%u exceeds the device's largest "
                       "allocation (%llu bytes)",
                       name, v[0], v[1], v[2], (unsigned long long)inst->limits.max_mem_alloc_size);
  }
  *layout = l;
  return OLC_PLUGIN_OK;
}

/* The text of batch dims ("2x1"), as the key reports it. */
static void format_batch(const egpu_batch *b, char *buf, size_t size) {
  size_t pos = 0;
  uint32_t i;
  buf[0] = '\0';
  for (i = 0; i < b->rank && pos < size; i++) {
    int n = snprintf(buf + pos, size - pos, "%s%u", i > 0 ? "x" : "", b->dims[i]);
    if (n < 0)
      return;
    pos += (size_t)n;
  }
}

/*
 * The structure: dtype, m, n, k as always, then each layout property that
 * is not at its default (trans_a=1, trans_b=1, batch_a, batch_b, bias), so a
 * layout never shares a record with its plain twin.  A property given at
 * its default (trans_a=0, bias=none, an empty batch, dtype_b=dtype) is left
 * out, so that it keys like its absence (records stored before layouts
 * existed keep their identity), and declared to the host as read.
 */
int32_t egpu_key_structure(const egpu_instance *inst, const olc_plugin_workload *workload,
                           const egpu_layout *l, const olc_plugin_key_sink *sink) {
  workload_values pv;
  const char *value[P_N_];
  int p, use = OLC_PLUGIN_HAS_FIELD(sink, olc_plugin_key_sink, use_property) &&
               sink->use_property != NULL;
  int32_t rc = collect_properties(inst, workload, "(key)", &pv);
  char dims[3][16], batch[2][64];
  if (rc != OLC_PLUGIN_OK)
    return rc;
  memset(value, 0, sizeof value);
  snprintf(dims[0], sizeof dims[0], "%u", l->shape.m);
  snprintf(dims[1], sizeof dims[1], "%u", l->shape.n);
  snprintf(dims[2], sizeof dims[2], "%u", l->shape.k);
  format_batch(&l->batch_a, batch[0], sizeof batch[0]);
  format_batch(&l->batch_b, batch[1], sizeof batch[1]);
  /* The order of the structure: the plain four first, then the layout. */
  value[P_DTYPE] = EGPU_DTYPE;
  value[P_M] = dims[0];
  value[P_N] = dims[1];
  value[P_K] = dims[2];
  value[P_TRANS_A] = l->trans_a ? "1" : NULL;
  value[P_TRANS_B] = l->trans_b ? "1" : NULL;
  value[P_BATCH_A] = l->batch_a.rank > 0 ? batch[0] : NULL;
  value[P_BATCH_B] = l->batch_b.rank > 0 ? batch[1] : NULL;
  value[P_BIAS] = l->bias != EGPU_BIAS_NONE ? egpu_bias_names[l->bias] : NULL;
  {
    static const int order[P_N_] = {P_DTYPE,   P_M,       P_N,       P_K,    P_TRANS_A,
                                    P_TRANS_B, P_BATCH_A, P_BATCH_B, P_BIAS, P_DTYPE_B};
    int i;
    for (i = 0; i < P_N_ && rc == OLC_PLUGIN_OK; i++) {
      p = order[i];
      if (value[p] != NULL)
        rc = sink->add_structure(sink->ctx, egpu_property_names[p], value[p]);
      else if (pv.v[p] != NULL && use) /* given at its default: read, not keyed */
        rc = sink->use_property(sink->ctx, egpu_property_names[p]);
    }
  }
  if (rc != OLC_PLUGIN_OK)
    return egpu_fail(inst->host, rc, "key: the host refused a field (%d)", (int)rc);
  return OLC_PLUGIN_OK;
}
