/*
 * plugin.c - the cpu_gemm plugin: the olc_plugin table and its entry point,
 * the instance's life cycle, the policy codec entries, prepare/run/flops.
 * Policies are cg_policy values on the heap; prepared state is the
 * workload's three matrices.  key and candidates live in workload.c,
 * execute in execute.c; instance.h describes the instance and its locking.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "olc/plugin.h"

#include "gemm.h"
#include "instance.h"
#include "policy.h"
#include "probe.h"

typedef struct cg_state {
  cg_shape shape;
  float *a, *b, *c;
} cg_state;

/* Changes whenever policies or keys change meaning: "2" added the thin
 * kernels and the bucketed m and n of the key (README.md, Key). */
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
  (void)instance;
  if (st == NULL)
    return;
  cg_free_floats(st->a);
  cg_free_floats(st->b);
  cg_free_floats(st->c);
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

static int32_t cg_prepare(void *instance, const olc_plugin_workload *workload, void **state) {
  cg_instance *in = instance;
  cg_state *st;
  cg_shape s;
  int32_t rc = cg_workload_shape(in->host, workload, &s);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  st = calloc(1, sizeof(*st));
  if (st == NULL)
    goto nomem;
  st->shape = s;
  st->a = cg_alloc_floats((size_t)(s.m * s.k));
  st->b = cg_alloc_floats((size_t)(s.k * s.n));
  st->c = cg_alloc_floats((size_t)(s.m * s.n));
  if (st->a == NULL || st->b == NULL || st->c == NULL)
    goto nomem;
  {
    /* Packing buffers sized for every candidate now, not in a timed run
     * (under pool_mu: an execute may be using the pool's workspaces). */
    cg_policy list[CG_CANDIDATES_MAX];
    cg_shape bs;
    uint32_t count;
    int bad = 0;
    cg_bucket_shape(&bs, &s);
    count = cg_policy_candidates(list, CG_CANDIDATES_MAX, &in->cpu, in->isa, in->threads, &bs);
    cg_mutex_lock(&in->pool_mu);
    for (uint32_t i = 0; i < count && !bad; i++)
      bad = cg_gemm_reserve(&s, &list[i], in->threads, in->ws) != 0;
    cg_mutex_unlock(&in->pool_mu);
    if (bad)
      goto nomem;
  }
  fill_matrix(st->a, s.m * s.k, 1);
  fill_matrix(st->b, s.k * s.n, 2);
  memset(st->c, 0, (size_t)(s.m * s.n) * sizeof(float));
  *state = st;
  return OLC_PLUGIN_OK;
nomem:
  cg_unprepare(in, st);
  cg_report(in->host, OLC_PLUGIN_E_NOMEM, "workload %s: out of memory for matrices",
            workload->name != NULL ? workload->name : "?");
  return OLC_PLUGIN_E_NOMEM;
}

static int32_t cg_run(void *instance, const olc_plugin_workload *workload, void *state,
                      const void *policy) {
  cg_instance *in = instance;
  cg_state *st = state;
  const cg_policy *p = policy;
  cg_gemm_args g = {0};
  cg_shape s;
  char why[200];
  int32_t rc = cg_workload_shape(in->host, workload, &s);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (st == NULL || p == NULL || memcmp(&s, &st->shape, sizeof(s)) != 0) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID,
              "run needs the prepared state of this "
              "workload and a policy");
    return OLC_PLUGIN_E_INVALID;
  }
  if (!cg_policy_usable(p, in->isa) && cg_policy_check(p, in->isa, why, sizeof(why)) != 0) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "%s", why);
    return OLC_PLUGIN_E_INVALID;
  }
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
  cg_shape s;
  int32_t rc = cg_workload_shape(in->host, workload, &s);
  if (rc == OLC_PLUGIN_OK)
    *flops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
  return rc;
}

/* ABI 1.2: what one prepared state holds, A, B and C unpadded (the
 * packing workspaces belong to the instance, shared by every state). */
static int32_t cg_operand_bytes(void *instance, const olc_plugin_workload *workload,
                                uint64_t *bytes) {
  cg_instance *in = instance;
  cg_shape s;
  int32_t rc = cg_workload_shape(in->host, workload, &s);
  if (rc == OLC_PLUGIN_OK)
    *bytes =
        (uint64_t)sizeof(float) * ((uint64_t)s.m * (uint64_t)s.k + (uint64_t)s.k * (uint64_t)s.n +
                                   (uint64_t)s.m * (uint64_t)s.n);
  return rc;
}

static const char *const cg_operators[] = {"MatMul"};

/* The numerical check (ABI 1.2): the candidates differ in blocking, hence
 * in summation order (with or without FMA), so their results differ from
 * the first candidate's by rounding only (tests/numcheck: ragged shapes up
 * to k = 4097 of values in [-1, 1]). */
static const olc_plugin_tolerance cg_tolerances[] = {
    {.struct_size = sizeof(olc_plugin_tolerance),
     .abi_minor = OLC_PLUGIN_ABI_MINOR,
     .operator_name = "MatMul",
     .dtype = OLC_PLUGIN_DTYPE_FLOAT32,
     .atol = 1e-3,
     .rtol = 1e-4},
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
    .operator_count = 1,
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
    .tolerance_count = 1,
    .operand_bytes = cg_operand_bytes,
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
