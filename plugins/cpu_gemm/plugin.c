/*
 * plugin.c - the cpu_gemm plugin: the olc_plugin table and its entry point,
 * the instance's life cycle, the policy codec entries, prepare/run/flops.
 * Policies are cg_policy values on the heap; prepared state is the
 * workload's operands in its layout (README.md, Calibrating a layout).  key and candidates live in
 * workload.c, execute in execute.c; instance.h describes the instance and its locking.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "olc/plugin.h"

#include "gemm.h"
#include "convert.h"
#include "instance.h"
#include "policy.h"
#include "probe.h"

/* Packed copies of a constant B a state keeps, one per policy run on it
 * (the race alternates candidates, so one entry would pack again on
 * every turn); beyond the count or the bytes, the least recently used goes. */
#define CG_STATE_PACKS CG_CANDIDATES_MAX
#define CG_STATE_PACK_BYTES ((uint64_t)256 << 20)

typedef struct cg_state_pack {
  cg_policy policy;
  void *packed; /* cg_const_b, or NULL: this policy reads B in place */
  uint64_t bytes, used;
} cg_state_pack;

typedef struct cg_state {
  cg_work work;
  cg_shape shape;
  float *a, *b, *c; /* the plain layout's */
  /* Any other layout: operand i's storage and its description as
   * execute gets it (A, B, C when Gemm has a bias; Y last). */
  int general;
  void *data[4];
  olc_plugin_tensor t[4];
  uint32_t inputs;
  cg_state_pack packs[CG_STATE_PACKS];
  uint32_t pack_count;
  uint64_t pack_clock;
} cg_state;

/* Changes whenever policies or keys change meaning: "2" added the thin
 * kernels and the bucketed m and n of the key (README.md, Key).  The
 * layout properties left it: a plain workload keeps its key and its
 * policies their meaning. */
#define CG_IMPLEMENTATION_VERSION "2"

static const olc_plugin_host *g_host; /* for errors before an instance exists */

static void cg_destroy(void *instance) {
  cg_instance *in = instance;
  if (in == NULL)
    return;
  cg_pool_destroy(in->pool);
  if (in->ws != NULL) {
    for (uint32_t i = 0; i < in->threads; i++)
      cg_workspace_free(&in->ws[i]);
    free(in->ws);
  }
  cg_ws_cache_destroy(&in->cache);
  cg_mutex_destroy(&in->pool_mu);
  free(in);
}

static int32_t config_isa(const olc_plugin_host *host, const olc_plugin_kv *config, uint32_t count,
                          uint32_t *isa) {
  for (uint32_t i = 0; i < count; i++) {
    uint32_t want;
    if (config[i].key == NULL || strcmp(config[i].key, "isa") != 0)
      continue;
    if (config[i].value != NULL && strcmp(config[i].value, "ref") == 0)
      want = CG_ISA_REF;
    else if (config[i].value != NULL && strcmp(config[i].value, "avx2") == 0)
      want = CG_ISA_AVX2;
    else if (config[i].value != NULL && strcmp(config[i].value, "avx512") == 0)
      want = CG_ISA_AVX512;
    else {
      cg_report(host, OLC_PLUGIN_E_INVALID, "config isa=%s: want ref, avx2 or avx512",
                config[i].value != NULL ? config[i].value : "");
      return OLC_PLUGIN_E_INVALID;
    }
    /* A cap, never a promise: a shared config may name more than a CPU has. */
    if (want < *isa)
      *isa = want;
  }
  return OLC_PLUGIN_OK;
}

static int32_t cg_create(const olc_plugin_host *host, const olc_plugin_kv *config,
                         uint32_t config_count, uint32_t thread_count, void **instance) {
  cg_instance *in;
  int32_t rc;
  if (instance == NULL) {
    cg_report(host, OLC_PLUGIN_E_INVALID, "create without an instance pointer");
    return OLC_PLUGIN_E_INVALID;
  }
  *instance = NULL;
  in = calloc(1, sizeof(*in));
  if (in == NULL) {
    cg_report(host, OLC_PLUGIN_E_NOMEM, "out of memory");
    return OLC_PLUGIN_E_NOMEM;
  }
  in->host = host != NULL ? host : g_host;
  cg_mutex_init(&in->pool_mu);
  cg_ws_cache_init(&in->cache);
  cg_probe(&in->cpu);
  in->isa = in->cpu.isa;
  rc = config_isa(in->host, config, config_count, &in->isa);
  if (rc != OLC_PLUGIN_OK) {
    cg_destroy(in);
    return rc;
  }
  in->threads = thread_count < 1 ? 1 : thread_count > 256 ? 256 : thread_count;
  in->ws = calloc(in->threads, sizeof(cg_workspace));
  if (in->ws == NULL || cg_pool_create(&in->pool, in->threads) != 0) {
    cg_report(in->host, OLC_PLUGIN_E_NOMEM, "cannot start %u threads", in->threads);
    cg_destroy(in);
    return OLC_PLUGIN_E_NOMEM;
  }
  cg_probe_identity(in->identity, sizeof(in->identity), &in->cpu, in->isa);
  cg_note(in->host, OLC_PLUGIN_LOG_DEBUG, in->identity);
  *instance = in;
  return OLC_PLUGIN_OK;
}

static int32_t cg_validate(void *instance, const void *bytes, uint64_t len, void **policy) {
  cg_instance *in = instance;
  cg_policy p;
  char why[200];
  if (policy != NULL)
    *policy = NULL;
  if (bytes == NULL || len == 0 || len > CG_POLICY_TEXT_MAX) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "policy: empty or longer than %d bytes",
              CG_POLICY_TEXT_MAX);
    return OLC_PLUGIN_E_INVALID;
  }
  if (cg_policy_parse(&p, bytes, (size_t)len, in->isa, why, sizeof(why)) != 0) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "%s", why);
    return OLC_PLUGIN_E_INVALID;
  }
  if (policy != NULL) {
    cg_policy *copy = malloc(sizeof(*copy));
    if (copy == NULL) {
      cg_report(in->host, OLC_PLUGIN_E_NOMEM, "out of memory");
      return OLC_PLUGIN_E_NOMEM;
    }
    *copy = p;
    *policy = copy;
  }
  return OLC_PLUGIN_OK;
}

static int32_t cg_serialize(void *instance, const void *policy, const olc_plugin_byte_sink *out) {
  cg_instance *in = instance;
  char text[CG_POLICY_TEXT_MAX + 1];
  size_t len;
  if (policy == NULL || out == NULL || !OLC_PLUGIN_HAS_FIELD(out, olc_plugin_byte_sink, write)) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "serialize without policy or sink");
    return OLC_PLUGIN_E_INVALID;
  }
  len = cg_policy_format(text, sizeof(text), policy);
  if (len == 0) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "serialize: policy is corrupt");
    return OLC_PLUGIN_E_INVALID;
  }
  return out->write(out->ctx, text, len);
}

static void cg_release_policy(void *instance, void *policy) {
  (void)instance;
  free(policy);
}

static void cg_unprepare(void *instance, void *state) {
  cg_state *st = state;
  if (st == NULL)
    return;
  cg_free_floats(st->a);
  cg_free_floats(st->b);
  cg_free_floats(st->c);
  for (int i = 0; i < 4; i++)
    cg_free_floats(st->data[i]);
  for (uint32_t i = 0; i < st->pack_count; i++)
    cg_plugin_release_packed(instance, st->packs[i].packed);
  free(st);
}

/* Deterministic values in [-1, 1): runs are reproducible across machines. */
static void fill_matrix(float *x, int64_t count, uint64_t seed) {
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  for (int64_t i = 0; i < count; i++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    x[i] = (float)((double)(s >> 40) / (double)(1ull << 23) - 1.0);
  }
}

/* Whether a workload is the plain fp32 row-major MatMul the plain run
 * times (run's own path, as before layouts existed). */
static int work_plain(const cg_work *w) {
  return w->op == CG_OP_MATMUL && w->dtype == CG_F32 && w->dtype_b == CG_F32 && !w->trans_a &&
         !w->trans_b && w->batch_a_rank == 0 && w->batch_b_rank == 0 && !w->constant_b;
}

static size_t elem_size(uint32_t dtype) { return dtype == CG_F32 ? 4u : 2u; }

/* One operand of a layout: rows x cols matrices after the batch dimensions
 * (each matrix stored transposed when trans), filled with the values of
 * seed converted to dtype (seed 0: zeros). */
static int make_operand(cg_state *st, int i, uint32_t dtype, const int64_t *batch, int brank,
                        int64_t rows, int64_t cols, int trans, uint64_t seed) {
  olc_plugin_tensor *t = &st->t[i];
  int64_t count = rows * cols, step;
  float *tmp;
  memset(t, 0, sizeof *t);
  t->struct_size = sizeof *t, t->abi_minor = OLC_PLUGIN_ABI_MINOR;
  t->dtype = dtype;
  t->rank = (uint32_t)brank + 2;
  for (int d = 0; d < brank; d++)
    count *= batch[d];
  step = rows * cols;
  for (int d = brank - 1; d >= 0; d--) {
    t->dims[d] = batch[d], t->strides[d] = step;
    step *= batch[d];
  }
  t->dims[brank] = rows, t->dims[brank + 1] = cols;
  t->strides[brank] = trans ? 1 : cols;
  t->strides[brank + 1] = trans ? rows : 1;
  st->data[i] = cg_alloc_floats((size_t)((count * (int64_t)elem_size(dtype) + 3) / 4));
  if (st->data[i] == NULL)
    return -1;
  t->data = st->data[i];
  if (seed == 0) {
    memset(t->data, 0, (size_t)count * elem_size(dtype));
    return 0;
  }
  if (dtype == CG_F32) {
    fill_matrix(t->data, count, seed);
    return 0;
  }
  if ((tmp = malloc((size_t)count * sizeof(float))) == NULL)
    return -1;
  fill_matrix(tmp, count, seed);
  cg_store_f32(t->data, dtype, tmp, count);
  free(tmp);
  return 0;
}

/* Gemm's C as the bias kind describes it (ONNX's broadcastable shapes). */
static int make_bias(cg_state *st, int i, const cg_work *w) {
  static const int64_t none[1] = {1};
  olc_plugin_tensor *t = &st->t[i];
  int64_t m = w->shape.m, n = w->shape.n;
  int rc;
  switch (w->bias) {
  case CG_BIAS_SCALAR:
    rc = make_operand(st, i, w->dtype, none, 0, 1, 1, 0, 3);
    t->rank = 0, t->dims[0] = t->dims[1] = 0, t->strides[0] = t->strides[1] = 0;
    return rc;
  case CG_BIAS_ROW:
    rc = make_operand(st, i, w->dtype, none, 0, 1, n, 0, 3);
    t->rank = 1, t->dims[0] = n, t->strides[0] = 1, t->dims[1] = t->strides[1] = 0;
    return rc;
  case CG_BIAS_COL:
    return make_operand(st, i, w->dtype, none, 0, m, 1, 0, 3);
  default:
    return make_operand(st, i, w->dtype, none, 0, m, n, 0, 3);
  }
}

static int prepare_general(cg_state *st) {
  const cg_work *w = &st->work;
  int64_t ybatch[CG_BATCH_MAX];
  int yrank = w->batch_a_rank > w->batch_b_rank ? w->batch_a_rank : w->batch_b_rank;
  for (int i = 0; i < yrank; i++) {
    int ia = i - (yrank - w->batch_a_rank), ib = i - (yrank - w->batch_b_rank);
    int64_t da = ia >= 0 ? w->batch_a[ia] : 1, db = ib >= 0 ? w->batch_b[ib] : 1;
    ybatch[i] = da > db ? da : db;
  }
  st->general = 1;
  st->inputs = w->op == CG_OP_GEMM && w->bias != CG_BIAS_NONE ? 3 : 2;
  if (make_operand(st, 0, w->dtype, w->batch_a, w->batch_a_rank, w->shape.m, w->shape.k,
                   (int)w->trans_a, 1) != 0 ||
      make_operand(st, 1, w->dtype_b, w->batch_b, w->batch_b_rank, w->shape.k, w->shape.n,
                   (int)w->trans_b, 2) != 0 ||
      (st->inputs == 3 && make_bias(st, 2, w) != 0) ||
      make_operand(st, 3, w->dtype, ybatch, yrank, w->shape.m, w->shape.n, 0, 0) != 0)
    return -1;
  return 0;
}

static int32_t cg_prepare(void *instance, const olc_plugin_workload *workload, void **state) {
  cg_instance *in = instance;
  cg_state *st;
  cg_work w;
  cg_shape s;
  int32_t rc = cg_workload_parse(in->host, workload, &w);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  s = w.shape;
  st = calloc(1, sizeof(*st));
  if (st == NULL)
    goto nomem;
  st->work = w;
  st->shape = s;
  if (work_plain(&w)) {
    st->a = cg_alloc_floats((size_t)(s.m * s.k));
    st->b = cg_alloc_floats((size_t)(s.k * s.n));
    st->c = cg_alloc_floats((size_t)(s.m * s.n));
    if (st->a == NULL || st->b == NULL || st->c == NULL)
      goto nomem;
    fill_matrix(st->a, s.m * s.k, 1);
    fill_matrix(st->b, s.k * s.n, 2);
    memset(st->c, 0, (size_t)(s.m * s.n) * sizeof(float));
  } else if (prepare_general(st) != 0)
    goto nomem;
  {
    /* Packing buffers sized for every candidate now, not in a timed run
     * (under pool_mu: an execute may be using the pool's workspaces). */
    cg_policy list[CG_CANDIDATES_MAX];
    cg_shape bs;
    uint32_t count;
    int bad = 0;
    cg_bucket_shape(&bs, &s);
    count =
        w.constant_b
            ? cg_policy_candidates_constant_b(list, CG_CANDIDATES_MAX, &in->cpu, in->isa,
                                              in->threads, &bs, w.dtype_b == CG_F32 ? 4u : 2u)
            : cg_policy_candidates(list, CG_CANDIDATES_MAX, &in->cpu, in->isa, in->threads, &bs);
    cg_mutex_lock(&in->pool_mu);
    for (uint32_t i = 0; i < count && !bad; i++)
      bad = cg_gemm_reserve(&s, &list[i], in->threads, in->ws) != 0;
    cg_mutex_unlock(&in->pool_mu);
    if (bad)
      goto nomem;
  }
  *state = st;
  return OLC_PLUGIN_OK;
nomem:
  cg_unprepare(in, st);
  cg_report(in->host, OLC_PLUGIN_E_NOMEM, "workload %s: out of memory for matrices",
            workload->name != NULL ? workload->name : "?");
  return OLC_PLUGIN_E_NOMEM;
}

/* The constant B packed for policy p, from the state's copies or packed
 * now (on the first run of p on this state: a warm-up run, which the host
 * does not time, when it makes them); NULL when p reads B in place.  A
 * copy serves every policy whose pack is alike (cg_pack_shared): a race
 * alternates its candidates, and copies of a large B, one per policy,
 * would overflow CG_STATE_PACK_BYTES and be packed again inside timed
 * runs; for the same reason the first policy's copy is never dropped. */
static void *state_packed(cg_instance *in, const olc_plugin_workload *workload, cg_state *st,
                          const cg_policy *p) {
  /* Slot 0 holds the first policy's copy, never dropped: the race runs
   * the plugin's first candidate first, and to its end. */
  uint32_t slot = st->pack_count, lru = st->pack_count > 1 ? 1 : 0;
  uint64_t bytes = 0, total = 0;
  void *packed = NULL;
  if (cg_reads_b_in_place(p, &st->t[1]))
    return NULL; /* pack declines it: the runs read B as execute would */
  for (uint32_t i = 0; i < st->pack_count; i++) {
    if (cg_pack_shared(&st->packs[i].policy, p)) {
      st->packs[i].used = ++st->pack_clock;
      return st->packs[i].packed;
    }
    total += st->packs[i].bytes;
    if (i > 0 && st->packs[i].used < st->packs[lru].used)
      lru = i;
  }
  if (cg_plugin_pack(in, workload, p, 1, &st->t[1], &packed, &bytes) != OLC_PLUGIN_OK)
    packed = NULL, bytes = 0;
  if (st->pack_count == CG_STATE_PACKS ||
      (st->pack_count > 0 && total + bytes > CG_STATE_PACK_BYTES)) {
    slot = lru;
    cg_plugin_release_packed(in, st->packs[slot].packed);
  } else
    st->pack_count++;
  st->packs[slot].policy = *p;
  st->packs[slot].packed = packed;
  st->packs[slot].bytes = bytes;
  st->packs[slot].used = ++st->pack_clock;
  return packed;
}

/* A layout other than the plain one: through execute's own decoding, so
 * that the measurement times what a runtime's execute runs. */
static int32_t run_general(cg_instance *in, const olc_plugin_workload *workload, cg_state *st,
                           const cg_policy *p) {
  olc_plugin_exec_args args;
  void *packed[3] = {NULL, NULL, NULL};
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args, args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  args.inputs = st->t, args.input_count = st->inputs;
  args.outputs = &st->t[3], args.output_count = 1;
  args.alpha = 1.0, args.beta = st->inputs == 3 ? 1.0 : 0.0;
  if (st->work.constant_b) {
    packed[1] = state_packed(in, workload, st, p);
    args.packed = packed;
    if (packed[1] == NULL)
      /* B read in place: timed on the path a runtime's execute takes,
       * the plain product when the operands are plain. */
      return cg_plugin_execute(in, workload, p, &args);
  }
  return cg_general_execute(in, st->work.op == CG_OP_GEMM, &args, p, 1);
}

static int32_t cg_run(void *instance, const olc_plugin_workload *workload, void *state,
                      const void *policy) {
  cg_instance *in = instance;
  cg_state *st = state;
  const cg_policy *p = policy;
  cg_gemm_args g = {0};
  cg_work w;
  cg_shape s;
  char why[200];
  int32_t rc = cg_workload_parse(in->host, workload, &w);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  s = w.shape;
  if (st == NULL || p == NULL || memcmp(&s, &st->shape, sizeof(s)) != 0 ||
      work_plain(&w) != !st->general) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID,
              "run needs the prepared state of this "
              "workload and a policy");
    return OLC_PLUGIN_E_INVALID;
  }
  if (!cg_policy_usable(p, in->isa) && cg_policy_check(p, in->isa, why, sizeof(why)) != 0) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "%s", why);
    return OLC_PLUGIN_E_INVALID;
  }
  if (st->general)
    return run_general(in, workload, st, p);
  g.m = s.m, g.n = s.n, g.k = s.k;
  g.a = st->a, g.lda = s.k;
  g.b = st->b, g.ldb = s.n;
  g.c = st->c, g.ldc = s.n;
  g.alpha = 1.0f, g.beta = 0.0f;
  /* Waits for an execute that holds the pool: the host times this call. */
  cg_mutex_lock(&in->pool_mu);
  rc = cg_gemm(&g, p, in->pool, in->threads, in->ws) != 0 ? OLC_PLUGIN_E_NOMEM : OLC_PLUGIN_OK;
  cg_mutex_unlock(&in->pool_mu);
  if (rc != OLC_PLUGIN_OK) {
    cg_report(in->host, OLC_PLUGIN_E_NOMEM, "out of memory for packing buffers");
    return OLC_PLUGIN_E_NOMEM;
  }
  return OLC_PLUGIN_OK;
}

static int32_t cg_flops(void *instance, const olc_plugin_workload *workload, double *flops) {
  cg_instance *in = instance;
  cg_work w;
  int32_t rc = cg_workload_parse(in->host, workload, &w);
  if (rc == OLC_PLUGIN_OK)
    *flops = 2.0 * (double)w.shape.m * (double)w.shape.n * (double)w.shape.k *
             (double)cg_work_batches(&w);
  return rc;
}

/* ABI 1.2: what one prepared state holds, A, B, C (Gemm's bias) and Y
 * unpadded, in their dtypes and batches (the packing workspaces belong to
 * the instance, shared by every state). */
static int32_t cg_operand_bytes(void *instance, const olc_plugin_workload *workload,
                                uint64_t *bytes) {
  cg_instance *in = instance;
  cg_work w;
  int32_t rc = cg_workload_parse(in->host, workload, &w);
  if (rc == OLC_PLUGIN_OK) {
    uint64_t m = (uint64_t)w.shape.m, n = (uint64_t)w.shape.n, k = (uint64_t)w.shape.k;
    uint64_t bias = w.bias == CG_BIAS_SCALAR   ? 1
                    : w.bias == CG_BIAS_ROW    ? n
                    : w.bias == CG_BIAS_COL    ? m
                    : w.bias == CG_BIAS_MATRIX ? m * n
                                               : 0;
    *bytes = elem_size(w.dtype) * (m * k * (uint64_t)cg_work_count(w.batch_a, w.batch_a_rank) +
                                   m * n * (uint64_t)cg_work_batches(&w) + bias) +
             elem_size(w.dtype_b) * k * n * (uint64_t)cg_work_count(w.batch_b, w.batch_b_rank);
  }
  return rc;
}

static const char *const cg_operators[] = {"MatMul", "Gemm"};

/* The numerical check (ABI 1.2): the candidates differ in blocking, hence
 * in summation order (with or without FMA), so their results differ from
 * the first candidate's by rounding only (tests/calibrate: ragged shapes up
 * to k = 4097 of values in [-1, 1]). */
#define CG_TOL(op, dt, a, r)                                                                       \
  {                                                                                                \
    .struct_size = sizeof(olc_plugin_tolerance), .abi_minor = OLC_PLUGIN_ABI_MINOR,                \
    .operator_name = op, .dtype = dt, .atol = a, .rtol = r                                         \
  }
/* float16 and bfloat16 accumulate in fp32 like float32 and differ in the
 * rounding of Y to 11 and 8 significant bits: a sum that lies near a
 * rounding boundary may round either way, one unit in the last place
 * (2^-10 and 2^-7 relative), two allowed.  dtype_b (float32 A with a
 * 16-bit B) has a float32 Y: its rows are float32's, B converted exactly. */
static const olc_plugin_tolerance cg_tolerances[] = {
    CG_TOL("MatMul", OLC_PLUGIN_DTYPE_FLOAT32, 1e-3, 1e-4),
    CG_TOL("MatMul", OLC_PLUGIN_DTYPE_FLOAT16, 2e-3, 2e-3),
    CG_TOL("MatMul", OLC_PLUGIN_DTYPE_BFLOAT16, 1.6e-2, 1.6e-2),
    CG_TOL("Gemm", OLC_PLUGIN_DTYPE_FLOAT32, 1e-3, 1e-4),
    CG_TOL("Gemm", OLC_PLUGIN_DTYPE_FLOAT16, 2e-3, 2e-3),
    CG_TOL("Gemm", OLC_PLUGIN_DTYPE_BFLOAT16, 1.6e-2, 1.6e-2),
};

static const olc_plugin cg_plugin = {
    .struct_size = sizeof(olc_plugin),
    .abi_minor = OLC_PLUGIN_ABI_MINOR,
    .abi_major = OLC_PLUGIN_ABI_MAJOR,
    .name = "cpu_gemm",
    .implementation_version = CG_IMPLEMENTATION_VERSION,
    .description =
        "single-precision GEMM with CPUID cache-topology blocking (AVX-512, AVX2+FMA, portable C)",
    .operators = cg_operators,
    .operator_count = 2,
    .create = cg_create,
    .destroy = cg_destroy,
    .key = cg_plugin_key,
    .candidates = cg_plugin_candidates,
    .validate = cg_validate,
    .serialize = cg_serialize,
    .release_policy = cg_release_policy,
    .run = cg_run,
    .prepare = cg_prepare,
    .unprepare = cg_unprepare,
    .flops = cg_flops,
    .execute = cg_plugin_execute,
    .tolerances = cg_tolerances,
    .tolerance_count = sizeof cg_tolerances / sizeof cg_tolerances[0],
    .operand_bytes = cg_operand_bytes,
    .features = OLC_PLUGIN_FEATURE_VIEWS,
    .pack = cg_plugin_pack,
    .release_packed = cg_plugin_release_packed,
    .distance = cg_plugin_distance,
    .matmul_f32 = cg_plugin_matmul_f32,
};

OLC_PLUGIN_EXPORT int32_t olc_plugin_entry(uint32_t host_abi_major, const olc_plugin_host *host,
                                           const olc_plugin **plugin);

OLC_PLUGIN_EXPORT int32_t olc_plugin_entry(uint32_t host_abi_major, const olc_plugin_host *host,
                                           const olc_plugin **plugin) {
  if (host_abi_major != OLC_PLUGIN_ABI_MAJOR) {
    cg_report(host, OLC_PLUGIN_E_ABI, "speaks plugin abi 1, host speaks %u", host_abi_major);
    return OLC_PLUGIN_E_ABI;
  }
  if (plugin == NULL)
    return OLC_PLUGIN_E_INVALID;
  g_host = host;
  *plugin = &cg_plugin;
  return OLC_PLUGIN_OK;
}
