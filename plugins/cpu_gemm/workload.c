/*
 * workload.c - the plugin's view of a workload: its shape from the
 * structural properties, its key (processor, threads, bucketed structure)
 * and its candidates; and the messages to the host.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bucket.h"
#include "instance.h"

/* Messages do not name the plugin: the host prefixes every plugin message
 * and log line with "plugin cpu_gemm: ". */
void cg_report(const olc_plugin_host *host, int32_t code, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  if (host == NULL || !OLC_PLUGIN_HAS_FIELD(host, olc_plugin_host, set_error) ||
      host->set_error == NULL)
    return;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  host->set_error(host->ctx, code, msg);
}

void cg_note(const olc_plugin_host *host, int32_t level, const char *msg) {
  if (host != NULL && OLC_PLUGIN_HAS_FIELD(host, olc_plugin_host, log) && host->log != NULL)
    host->log(host->ctx, level, msg);
}

static int parse_dim(const char *s, int64_t *out) {
  int64_t v = 0;
  if (s == NULL || *s == '\0' || *s == '0')
    return -1;
  for (; *s != '\0'; s++) {
    if (*s < '0' || *s > '9' || v > CG_DIM_MAX)
      return -1;
    v = v * 10 + (*s - '0');
  }
  if (v < 1 || v > CG_DIM_MAX)
    return -1;
  *out = v;
  return 0;
}

/* "<lo>-<hi>", exactly one of the buckets above `exact` (bucket.h): its
 * smallest size in *out, which the key puts in that same bucket. */
static int parse_bucket(const char *s, int64_t exact, int64_t *out) {
  const char *dash = strchr(s, '-');
  char lo_text[16];
  int64_t lo, hi, want_lo, want_hi;
  if (dash == NULL || (size_t)(dash - s) >= sizeof lo_text)
    return -1;
  memcpy(lo_text, s, (size_t)(dash - s));
  lo_text[dash - s] = '\0';
  if (parse_dim(lo_text, &lo) != 0 || parse_dim(dash + 1, &hi) != 0 || lo <= exact)
    return -1;
  cg_bucket_range(lo, exact, &want_lo, &want_hi);
  if (lo != want_lo || hi != want_hi)
    return -1;
  *out = lo;
  return 0;
}

/* The properties a workload may have; bits of cg_work.explicit_defaults. */
enum {
  CG_PROP_DTYPE,
  CG_PROP_M,
  CG_PROP_N,
  CG_PROP_K,
  CG_PROP_DTYPE_B,
  CG_PROP_TRANS_A,
  CG_PROP_TRANS_B,
  CG_PROP_BATCH_A,
  CG_PROP_BATCH_B,
  CG_PROP_BIAS,
  CG_PROP_CONSTANT,
  CG_PROP_COUNT
};
static const char *const prop_names[CG_PROP_COUNT] = {"dtype",   "m",       "n",       "k",
                                                      "dtype_b", "trans_a", "trans_b", "batch_a",
                                                      "batch_b", "bias",    "constant"};
static const char *const bias_names[] = {"none", "scalar", "row", "col", "matrix"};

const char *cg_dtype_name(uint32_t dtype) {
  return dtype == CG_F32    ? "float32"
         : dtype == CG_F16  ? "float16"
         : dtype == CG_BF16 ? "bfloat16"
                            : NULL;
}

static int parse_dtype(const char *s, uint32_t *out) {
  static const uint32_t codes[] = {CG_F32, CG_F16, CG_BF16};
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
    if (strcmp(s, cg_dtype_name(codes[i])) == 0) {
      *out = codes[i];
      return 0;
    }
  return -1;
}

/* "2x1": batch dimensions, outermost first, each 1..CG_DIM_MAX. */
static int parse_batch(const char *s, int64_t *dims, int *rank) {
  char part[16];
  int r = 0;
  for (;;) {
    const char *x = strchr(s, 'x');
    size_t len = x != NULL ? (size_t)(x - s) : strlen(s);
    if (len == 0 || len >= sizeof part || r >= CG_BATCH_MAX)
      return -1;
    memcpy(part, s, len);
    part[len] = '\0';
    if (parse_dim(part, &dims[r++]) != 0)
      return -1;
    if (x == NULL)
      break;
    s = x + 1;
  }
  *rank = r;
  return 0;
}

static size_t batch_text(char *out, size_t cap, const int64_t *dims, int rank) {
  size_t len = 0;
  out[0] = '\0';
  for (int i = 0; i < rank; i++) {
    int w = snprintf(out + len, cap - len, i == 0 ? "%lld" : "x%lld", (long long)dims[i]);
    if (w < 0 || (size_t)w >= cap - len)
      return 0;
    len += (size_t)w;
  }
  return len;
}

int64_t cg_work_count(const int64_t *dims, int rank) {
  int64_t c = 1;
  for (int i = 0; i < rank; i++)
    c *= dims[i];
  return c;
}

int64_t cg_work_batches(const cg_work *w) {
  int rank = w->batch_a_rank > w->batch_b_rank ? w->batch_a_rank : w->batch_b_rank;
  int64_t c = 1;
  for (int i = 0; i < rank; i++) {
    int ia = i - (rank - w->batch_a_rank), ib = i - (rank - w->batch_b_rank);
    int64_t da = ia >= 0 ? w->batch_a[ia] : 1, db = ib >= 0 ? w->batch_b[ib] : 1;
    c *= da > db ? da : db;
  }
  return c;
}

static int32_t bad_value(const olc_plugin_host *host, const char *wname, const olc_plugin_kv *kv,
                         const char *want) {
  cg_report(host, OLC_PLUGIN_E_INVALID, "workload %s: property %s=%s: want %s", wname, kv->key,
            kv->value, want);
  return OLC_PLUGIN_E_INVALID;
}

/* A dimension m, n or k.  With buckets, m and n may also be given as the
 * key writes them ("129-256"). */
static int32_t dim_property(const olc_plugin_host *host, const char *wname, const olc_plugin_kv *kv,
                            int d, int buckets, cg_shape *s) {
  static const int64_t exact[3] = {CG_BUCKET_EXACT_M, CG_BUCKET_EXACT_N, 0};
  int64_t *dims[3] = {&s->m, &s->n, &s->k};
  int bucket;
  if (parse_dim(kv->value, dims[d]) == 0)
    return OLC_PLUGIN_OK;
  bucket = exact[d] != 0 && parse_bucket(kv->value, exact[d], dims[d]) == 0;
  if (bucket && buckets)
    return OLC_PLUGIN_OK;
  if (bucket)
    cg_report(host, OLC_PLUGIN_E_INVALID,
              "workload %s: property %s=%s is a bucket of the key, not a size: measuring "
              "needs one size in it",
              wname, kv->key, kv->value);
  else
    cg_report(host, OLC_PLUGIN_E_INVALID, "workload %s: property %s=%s is not an integer in 1..%d",
              wname, kv->key, kv->value, CG_DIM_MAX);
  return OLC_PLUGIN_E_INVALID;
}

/* One property into w; *dflt set when it names its default value. */
static int32_t one_property(const olc_plugin_host *host, const char *wname, const olc_plugin_kv *kv,
                            int prop, int buckets, cg_work *w, int *dflt) {
  *dflt = 0;
  switch (prop) {
  case CG_PROP_DTYPE:
    if (parse_dtype(kv->value, &w->dtype) != 0)
      return bad_value(host, wname, kv, "float32, float16 or bfloat16");
    return OLC_PLUGIN_OK;
  case CG_PROP_M:
  case CG_PROP_N:
  case CG_PROP_K:
    return dim_property(host, wname, kv, prop - CG_PROP_M, buckets, &w->shape);
  case CG_PROP_DTYPE_B:
    if (parse_dtype(kv->value, &w->dtype_b) != 0)
      return bad_value(host, wname, kv, "float32, float16 or bfloat16");
    return OLC_PLUGIN_OK; /* its default depends on dtype: decided after */
  case CG_PROP_TRANS_A:
  case CG_PROP_TRANS_B: {
    uint32_t *t = prop == CG_PROP_TRANS_A ? &w->trans_a : &w->trans_b;
    if (strcmp(kv->value, "0") != 0 && strcmp(kv->value, "1") != 0)
      return bad_value(host, wname, kv, "0 or 1");
    *t = kv->value[0] == '1';
    *dflt = !*t;
    return OLC_PLUGIN_OK;
  }
  case CG_PROP_BATCH_A:
  case CG_PROP_BATCH_B: {
    int a = prop == CG_PROP_BATCH_A;
    if (parse_batch(kv->value, a ? w->batch_a : w->batch_b,
                    a ? &w->batch_a_rank : &w->batch_b_rank) != 0)
      return bad_value(host, wname, kv, "leading dimensions such as 2x1 (at most 6, each >= 1)");
    return OLC_PLUGIN_OK;
  }
  case CG_PROP_BIAS:
    for (uint32_t i = 0; i < sizeof bias_names / sizeof bias_names[0]; i++)
      if (strcmp(kv->value, bias_names[i]) == 0) {
        w->bias = i;
        *dflt = i == CG_BIAS_NONE;
        return OLC_PLUGIN_OK;
      }
    return bad_value(host, wname, kv, "none, scalar, row, col or matrix");
  case CG_PROP_CONSTANT:
    /* The key's own text for constant input B (a stored record's
     * structure); "none" is the default. */
    if (strcmp(kv->value, "b") == 0)
      w->constant_b = 1;
    else if (strcmp(kv->value, "none") == 0)
      *dflt = 1;
    else
      return bad_value(host, wname, kv, "b or none");
    return OLC_PLUGIN_OK;
  default:
    return OLC_PLUGIN_E_INVALID;
  }
}

static int32_t workload_parse(const olc_plugin_host *host, const olc_plugin_workload *w,
                              int buckets, cg_work *out) {
  const char *wname;
  uint32_t seen = 0;
  int64_t na, nb;
  memset(out, 0, sizeof(*out));
  if (w == NULL || !OLC_PLUGIN_HAS_FIELD(w, olc_plugin_workload, property_count)) {
    cg_report(host, OLC_PLUGIN_E_INVALID, "workload missing or too old");
    return OLC_PLUGIN_E_INVALID;
  }
  wname = w->name != NULL ? w->name : "?";
  if (w->operator_name != NULL && strcmp(w->operator_name, "MatMul") == 0)
    out->op = CG_OP_MATMUL;
  else if (w->operator_name != NULL && strcmp(w->operator_name, "Gemm") == 0)
    out->op = CG_OP_GEMM;
  else {
    cg_report(host, OLC_PLUGIN_E_UNSUPPORTED, "workload %s: operator %s is not MatMul or Gemm",
              wname, w->operator_name != NULL ? w->operator_name : "(none)");
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  out->dtype = CG_F32;
  for (uint32_t i = 0; i < w->property_count; i++) {
    const olc_plugin_kv *kv = &w->properties[i];
    int prop = 0, dflt;
    int32_t rc;
    if (kv->key == NULL || kv->value == NULL)
      continue;
    while (prop < CG_PROP_COUNT && strcmp(kv->key, prop_names[prop]) != 0)
      prop++;
    if (prop == CG_PROP_COUNT) {
      /* Never ignored: a property nobody reads would leave two layouts
       * one identity. */
      cg_report(host, OLC_PLUGIN_E_INVALID,
                "workload %s: property %s is not one cpu_gemm knows (dtype, dtype_b, m, n, k, "
                "trans_a, trans_b, batch_a, batch_b, bias)",
                wname, kv->key);
      return OLC_PLUGIN_E_INVALID;
    }
    if ((rc = one_property(host, wname, kv, prop, buckets, out, &dflt)) != OLC_PLUGIN_OK)
      return rc;
    seen |= 1u << prop;
    if (dflt)
      out->explicit_defaults |= 1u << prop;
  }
  for (int d = CG_PROP_M; d <= CG_PROP_K; d++) {
    if (!(seen & (1u << d))) {
      cg_report(host, OLC_PLUGIN_E_INVALID, "workload %s: property %s is missing", wname,
                prop_names[d]);
      return OLC_PLUGIN_E_INVALID;
    }
  }
  if (!(seen & (1u << CG_PROP_DTYPE_B)) || out->dtype_b == out->dtype) {
    if (seen & (1u << CG_PROP_DTYPE_B))
      out->explicit_defaults |= 1u << CG_PROP_DTYPE_B;
    out->dtype_b = out->dtype;
  } else if (out->dtype != CG_F32 || out->dtype_b == CG_F32) {
    cg_report(host, OLC_PLUGIN_E_INVALID,
              "workload %s: dtype_b=%s with dtype=%s: a B of another type than A is float16 or "
              "bfloat16 with a float32 dtype",
              wname, cg_dtype_name(out->dtype_b), cg_dtype_name(out->dtype));
    return OLC_PLUGIN_E_INVALID;
  }
  if (w->abi_minor >= 3 && OLC_PLUGIN_HAS_FIELD(w, olc_plugin_workload, constant_inputs) &&
      (w->constant_inputs & 2u) != 0)
    out->constant_b = 1;
  if (out->op == CG_OP_MATMUL && (seen & (1u << CG_PROP_BIAS))) {
    cg_report(host, OLC_PLUGIN_E_INVALID, "workload %s: bias is Gemm's, MatMul has none", wname);
    return OLC_PLUGIN_E_INVALID;
  }
  if (out->op == CG_OP_GEMM && (out->batch_a_rank | out->batch_b_rank) != 0) {
    cg_report(host, OLC_PLUGIN_E_INVALID,
              "workload %s: batch_a and batch_b are MatMul's, Gemm's operands are matrices", wname);
    return OLC_PLUGIN_E_INVALID;
  }
  for (int i = 1; i <= out->batch_a_rank && i <= out->batch_b_rank; i++) {
    int64_t da = out->batch_a[out->batch_a_rank - i], db = out->batch_b[out->batch_b_rank - i];
    if (da != db && da != 1 && db != 1) {
      cg_report(host, OLC_PLUGIN_E_INVALID,
                "workload %s: batch_a and batch_b do not broadcast (%lld against %lld)", wname,
                (long long)da, (long long)db);
      return OLC_PLUGIN_E_INVALID;
    }
  }
  na = cg_work_count(out->batch_a, out->batch_a_rank);
  nb = cg_work_count(out->batch_b, out->batch_b_rank);
  if (out->shape.m * out->shape.k > CG_MATRIX_MAX / na ||
      out->shape.k * out->shape.n > CG_MATRIX_MAX / nb ||
      out->shape.m * out->shape.n > CG_MATRIX_MAX / cg_work_batches(out)) {
    cg_report(host, OLC_PLUGIN_E_INVALID, "workload %s: matrices over 2^30 elements", wname);
    return OLC_PLUGIN_E_INVALID;
  }
  return OLC_PLUGIN_OK;
}

int32_t cg_workload_parse(const olc_plugin_host *host, const olc_plugin_workload *w, cg_work *out) {
  return workload_parse(host, w, 0, out);
}

int32_t cg_workload_shape(const olc_plugin_host *host, const olc_plugin_workload *w, cg_shape *s) {
  cg_work work;
  int32_t rc = workload_parse(host, w, 0, &work);
  if (rc == OLC_PLUGIN_OK)
    *s = work.shape;
  return rc;
}

void cg_bucket_shape(cg_shape *out, const cg_shape *raw) {
  int64_t lo;
  cg_bucket_range(raw->m, CG_BUCKET_EXACT_M, &lo, &out->m);
  cg_bucket_range(raw->n, CG_BUCKET_EXACT_N, &lo, &out->n);
  out->k = raw->k;
}

/* The layout part of the key: each property away from its default in the
 * structure, in a fixed order after dtype, m, n, k; each at its default
 * out of it (so a plain workload's structure is what it was before these
 * properties existed) and, when the workload named it, declared used. */
static int32_t key_layout(const olc_plugin_key_sink *sink, const cg_work *w) {
  int use =
      OLC_PLUGIN_HAS_FIELD(sink, olc_plugin_key_sink, use_property) && sink->use_property != NULL;
  char v[64];
  int32_t rc = OLC_PLUGIN_OK;
  for (int prop = CG_PROP_DTYPE_B; prop < CG_PROP_COUNT && rc == OLC_PLUGIN_OK; prop++) {
    const char *value = NULL;
    switch (prop) {
    case CG_PROP_DTYPE_B:
      value = w->dtype_b != w->dtype ? cg_dtype_name(w->dtype_b) : NULL;
      break;
    case CG_PROP_TRANS_A:
      value = w->trans_a ? "1" : NULL;
      break;
    case CG_PROP_TRANS_B:
      value = w->trans_b ? "1" : NULL;
      break;
    case CG_PROP_BATCH_A:
    case CG_PROP_BATCH_B: {
      int a = prop == CG_PROP_BATCH_A;
      int rank = a ? w->batch_a_rank : w->batch_b_rank;
      if (rank > 0 && batch_text(v, sizeof v, a ? w->batch_a : w->batch_b, rank) > 0)
        value = v;
      break;
    }
    case CG_PROP_BIAS:
      value = w->bias != CG_BIAS_NONE ? bias_names[w->bias] : NULL;
      break;
    case CG_PROP_CONSTANT:
      value = w->constant_b ? "b" : NULL;
      break;
    default:
      break;
    }
    if (value != NULL)
      rc = sink->add_structure(sink->ctx, prop_names[prop], value);
    else if (use && (w->explicit_defaults & (1u << prop)) != 0)
      rc = sink->use_property(sink->ctx, prop_names[prop]);
  }
  return rc;
}

int32_t cg_plugin_key(void *instance, const olc_plugin_workload *workload,
                      const olc_plugin_key_sink *sink) {
  cg_instance *in = instance;
  cg_work w;
  char v[48];
  /* Its own buckets too: a stored record's structure names the workload
   * of the record (the host's prune --foreign asks for its key). */
  int32_t rc = workload_parse(in->host, workload, 1, &w);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (sink == NULL || !OLC_PLUGIN_HAS_FIELD(sink, olc_plugin_key_sink, add_structure)) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "key sink missing or too old");
    return OLC_PLUGIN_E_INVALID;
  }
  if ((rc = sink->set_processor(sink->ctx, in->identity)) != OLC_PLUGIN_OK ||
      (rc = sink->set_thread_count(sink->ctx, in->threads)) != OLC_PLUGIN_OK ||
      (rc = sink->add_structure(sink->ctx, "dtype", cg_dtype_name(w.dtype))) != OLC_PLUGIN_OK)
    return rc;
  cg_bucket_text(v, sizeof(v), w.shape.m, CG_BUCKET_EXACT_M);
  if ((rc = sink->add_structure(sink->ctx, "m", v)) != OLC_PLUGIN_OK)
    return rc;
  cg_bucket_text(v, sizeof(v), w.shape.n, CG_BUCKET_EXACT_N);
  if ((rc = sink->add_structure(sink->ctx, "n", v)) != OLC_PLUGIN_OK)
    return rc;
  snprintf(v, sizeof(v), "%lld", (long long)w.shape.k);
  if ((rc = sink->add_structure(sink->ctx, "k", v)) != OLC_PLUGIN_OK)
    return rc;
  return key_layout(sink, &w);
}

/* log2(x) for x >= 1 without libm (the plugin links none): the exponent
 * by halving, the mantissa's by ln(m) = 2 atanh((m - 1) / (m + 1)), whose
 * series converges fast for m in [1, 2). */
static double cg_log2(double x) {
  double e = 0, t, t2, term, sum = 0;
  while (x >= 2) {
    x /= 2;
    e += 1;
  }
  t = (x - 1) / (x + 1);
  t2 = t * t;
  term = t;
  for (int i = 1; i < 40; i += 2) {
    sum += term / i;
    term *= t2;
  }
  return e + 2 * sum / 0.69314718055994530942;
}

/* log2 of a dimension of a key's structure: of its size, or for a bucket
 * "lo-hi" of the range's geometric middle (every size of a bucket runs its
 * one policy, so the bucket stands for its middle on a log scale); -1 when
 * the text is neither. */
static double dim_log2(const char *s) {
  char *end;
  double lo = strtod(s, &end), hi;
  if (end == s || !(lo >= 1) || !(lo <= 1e18))
    return -1;
  if (*end == 0)
    return cg_log2(lo);
  if (*end != '-')
    return -1;
  s = end + 1;
  hi = strtod(s, &end);
  if (end == s || *end != 0 || !(hi >= lo) || !(hi <= 1e18))
    return -1;
  return (cg_log2(lo) + cg_log2(hi)) / 2;
}

static const char *kv_find(const olc_plugin_kv *kv, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(kv[i].key, name) == 0)
      return kv[i].value;
  return NULL;
}

/*
 * The policy of a measured shape serves a miss (plugin.h, distance) only
 * for the same layout: dtype, transposes, batch, bias and a constant B
 * change which kernels read the operands well, so they must be equal.
 * Among those, the blocking a policy chose follows the sizes on a log
 * scale (cache levels, thread splits), so the distance is the sum of
 * |log2| of the ratios of m, n and k.
 */
int32_t cg_plugin_distance(void *instance, const char *operator_name, const olc_plugin_kv *a,
                           uint32_t a_count, const olc_plugin_kv *b, uint32_t b_count,
                           double *distance) {
  double d = 0;
  (void)instance;
  (void)operator_name;
  if (a_count != b_count || distance == NULL)
    return OLC_PLUGIN_E_UNSUPPORTED;
  for (uint32_t i = 0; i < a_count; i++) {
    const char *other = kv_find(b, b_count, a[i].key);
    int dim =
        strcmp(a[i].key, "m") == 0 || strcmp(a[i].key, "n") == 0 || strcmp(a[i].key, "k") == 0;
    double x, y;
    if (other == NULL)
      return OLC_PLUGIN_E_UNSUPPORTED;
    if (strcmp(other, a[i].value) == 0)
      continue;
    if (!dim)
      return OLC_PLUGIN_E_UNSUPPORTED;
    x = dim_log2(a[i].value);
    y = dim_log2(other);
    if (x < 0 || y < 0)
      return OLC_PLUGIN_E_UNSUPPORTED;
    d += x > y ? x - y : y - x;
  }
  *distance = d;
  return OLC_PLUGIN_OK;
}

/* Whether a policy reads the operands this layout makes general
 * (transposed, float16, bfloat16, a constant B) the way they are cheap:
 * a tile kernel that packs them, converting once per panel (and, for a
 * constant B, reading the copy packed once), or a thin kernel, which reads
 * every element once anyway. */
static int reads_layout_well(const cg_policy *p, const cg_work *w) {
  const cg_kernel_info *ki = &cg_kernel_table[p->kernel];
  int gen_a = w->trans_a || w->dtype != CG_F32;
  int gen_b = w->trans_b || w->dtype_b != CG_F32 || w->constant_b;
  if (ki->kind != CG_KIND_TILE)
    return 1;
  if (gen_a && !(p->pack & CG_PACK_A))
    return 0;
  if (gen_b && !(p->pack & (CG_PACK_B | CG_PACK_BJ)))
    return 0;
  return 1;
}

int32_t cg_plugin_candidates(void *instance, const olc_plugin_workload *workload,
                             const olc_plugin_policy_sink *sink) {
  cg_instance *in = instance;
  cg_policy list[CG_CANDIDATES_MAX], order[CG_CANDIDATES_MAX];
  cg_work w;
  cg_shape s;
  uint32_t count, n = 0;
  int32_t rc = cg_workload_parse(in->host, workload, &w);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (sink == NULL || !OLC_PLUGIN_HAS_FIELD(sink, olc_plugin_policy_sink, emit)) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "policy sink missing or too old");
    return OLC_PLUGIN_E_INVALID;
  }
  cg_bucket_shape(&s, &w.shape);
  count = w.constant_b
              ? cg_policy_candidates_constant_b(list, CG_CANDIDATES_MAX, &in->cpu, in->isa,
                                                in->threads, &s, w.dtype_b == CG_F32 ? 4u : 2u)
              : cg_policy_candidates(list, CG_CANDIDATES_MAX, &in->cpu, in->isa, in->threads, &s);
  /* Every candidate is correct on every layout; those that read this
   * layout's operands while packing come first (a plain layout keeps the
   * generator's order). */
  for (uint32_t i = 0; i < count; i++)
    if (reads_layout_well(&list[i], &w))
      order[n++] = list[i];
  for (uint32_t i = 0; i < count; i++)
    if (!reads_layout_well(&list[i], &w))
      order[n++] = list[i];
  for (uint32_t i = 0; i < count; i++) {
    cg_policy *p = malloc(sizeof(*p));
    if (p == NULL) {
      cg_report(in->host, OLC_PLUGIN_E_NOMEM, "out of memory");
      return OLC_PLUGIN_E_NOMEM;
    }
    *p = order[i];
    /* A refusal means "stop", not failure: the host has what it wants. */
    if (sink->emit(sink->ctx, p) != OLC_PLUGIN_OK)
      break;
  }
  return OLC_PLUGIN_OK;
}
