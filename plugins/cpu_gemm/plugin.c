/*
 * plugin.c - the cpu_gemm plugin: the olc_plugin table and its entry point.
 *
 * An instance holds the probed processor, the ISA level it will use, its
 * thread pool and one packing workspace per thread.  Policies are cg_policy
 * values on the heap; prepared state is the workload's three matrices.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "olc/plugin.h"

#include "gemm.h"
#include "policy.h"
#include "probe.h"

#define CG_DIM_MAX (1 << 20)
#define CG_MATRIX_MAX (1ll << 30) /* elements per matrix */

typedef struct cg_instance {
  const olc_plugin_host *host;
  cg_cpu cpu;
  uint32_t isa;
  uint32_t threads;
  cg_pool *pool;
  cg_workspace *ws; /* threads entries */
  char identity[512];
} cg_instance;

typedef struct cg_state {
  cg_shape shape;
  float *a, *b, *c;
} cg_state;

static const olc_plugin_host *g_host; /* for errors before an instance exists */

static void report(const olc_plugin_host *host, int32_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void report(const olc_plugin_host *host, int32_t code, const char *fmt, ...) {
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

static void note(const olc_plugin_host *host, int32_t level, const char *msg) {
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

/* Reads m, n, k (and dtype) from the workload's structural properties. */
static int32_t workload_shape(const olc_plugin_host *host, const olc_plugin_workload *w,
                              cg_shape *s) {
  const char *wname;
  int64_t *dims[3] = {&s->m, &s->n, &s->k};
  const char *names[3] = {"m", "n", "k"};
  int seen[3] = {0, 0, 0};
  if (w == NULL || !OLC_PLUGIN_HAS_FIELD(w, olc_plugin_workload, property_count)) {
    report(host, OLC_PLUGIN_E_INVALID, "cpu_gemm: workload missing or too old");
    return OLC_PLUGIN_E_INVALID;
  }
  wname = w->name != NULL ? w->name : "?";
  if (w->operator_name == NULL || strcmp(w->operator_name, "MatMul") != 0) {
    report(host, OLC_PLUGIN_E_UNSUPPORTED, "cpu_gemm: workload %s: operator %s is not MatMul",
           wname, w->operator_name != NULL ? w->operator_name : "(none)");
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  for (uint32_t i = 0; i < w->property_count; i++) {
    const olc_plugin_kv *kv = &w->properties[i];
    if (kv->key == NULL || kv->value == NULL)
      continue;
    if (strcmp(kv->key, "dtype") == 0) {
      if (strcmp(kv->value, "float32") != 0) {
        report(host, OLC_PLUGIN_E_UNSUPPORTED, "cpu_gemm: workload %s: dtype %s is not float32",
               wname, kv->value);
        return OLC_PLUGIN_E_UNSUPPORTED;
      }
      continue;
    }
    for (int d = 0; d < 3; d++) {
      if (strcmp(kv->key, names[d]) != 0)
        continue;
      if (parse_dim(kv->value, dims[d]) != 0) {
        report(host, OLC_PLUGIN_E_INVALID,
               "cpu_gemm: workload %s: property %s=%s is not an integer in 1..%d", wname, kv->key,
               kv->value, CG_DIM_MAX);
        return OLC_PLUGIN_E_INVALID;
      }
      seen[d] = 1;
    }
  }
  for (int d = 0; d < 3; d++) {
    if (!seen[d]) {
      report(host, OLC_PLUGIN_E_INVALID, "cpu_gemm: workload %s: property %s is missing", wname,
             names[d]);
      return OLC_PLUGIN_E_INVALID;
    }
  }
  if (s->m * s->k > CG_MATRIX_MAX || s->k * s->n > CG_MATRIX_MAX || s->m * s->n > CG_MATRIX_MAX) {
    report(host, OLC_PLUGIN_E_INVALID, "cpu_gemm: workload %s: matrices over 2^30 elements", wname);
    return OLC_PLUGIN_E_INVALID;
  }
  return OLC_PLUGIN_OK;
}

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
      report(host, OLC_PLUGIN_E_INVALID, "cpu_gemm: config isa=%s: want ref, avx2 or avx512",
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
    report(host, OLC_PLUGIN_E_INVALID, "cpu_gemm: create without an instance pointer");
    return OLC_PLUGIN_E_INVALID;
  }
  *instance = NULL;
  in = calloc(1, sizeof(*in));
  if (in == NULL) {
    report(host, OLC_PLUGIN_E_NOMEM, "cpu_gemm: out of memory");
    return OLC_PLUGIN_E_NOMEM;
  }
  in->host = host != NULL ? host : g_host;
  cg_probe(&in->cpu);
  in->isa = in->cpu.isa;
  rc = config_isa(in->host, config, config_count, &in->isa);
  if (rc != OLC_PLUGIN_OK) {
    free(in);
    return rc;
  }
  in->threads = thread_count < 1 ? 1 : thread_count > 256 ? 256 : thread_count;
  in->ws = calloc(in->threads, sizeof(cg_workspace));
  if (in->ws == NULL || cg_pool_create(&in->pool, in->threads) != 0) {
    report(in->host, OLC_PLUGIN_E_NOMEM, "cpu_gemm: cannot start %u threads", in->threads);
    cg_destroy(in);
    return OLC_PLUGIN_E_NOMEM;
  }
  cg_probe_identity(in->identity, sizeof(in->identity), &in->cpu, in->isa);
  note(in->host, OLC_PLUGIN_LOG_DEBUG, in->identity);
  *instance = in;
  return OLC_PLUGIN_OK;
}

static int32_t cg_key(void *instance, const olc_plugin_workload *workload,
                      const olc_plugin_key_sink *sink) {
  cg_instance *in = instance;
  cg_shape s;
  char v[24];
  int32_t rc = workload_shape(in->host, workload, &s);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (sink == NULL || !OLC_PLUGIN_HAS_FIELD(sink, olc_plugin_key_sink, add_structure)) {
    report(in->host, OLC_PLUGIN_E_INVALID, "cpu_gemm: key sink missing or too old");
    return OLC_PLUGIN_E_INVALID;
  }
  if ((rc = sink->set_processor(sink->ctx, in->identity)) != OLC_PLUGIN_OK ||
      (rc = sink->set_thread_count(sink->ctx, in->threads)) != OLC_PLUGIN_OK ||
      (rc = sink->add_structure(sink->ctx, "dtype", "float32")) != OLC_PLUGIN_OK)
    return rc;
  snprintf(v, sizeof(v), "%lld", (long long)s.m);
  if ((rc = sink->add_structure(sink->ctx, "m", v)) != OLC_PLUGIN_OK)
    return rc;
  snprintf(v, sizeof(v), "%lld", (long long)s.n);
  if ((rc = sink->add_structure(sink->ctx, "n", v)) != OLC_PLUGIN_OK)
    return rc;
  snprintf(v, sizeof(v), "%lld", (long long)s.k);
  return sink->add_structure(sink->ctx, "k", v);
}

static int32_t cg_candidates(void *instance, const olc_plugin_workload *workload,
                             const olc_plugin_policy_sink *sink) {
  cg_instance *in = instance;
  cg_policy list[CG_CANDIDATES_MAX];
  cg_shape s;
  uint32_t count;
  int32_t rc = workload_shape(in->host, workload, &s);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (sink == NULL || !OLC_PLUGIN_HAS_FIELD(sink, olc_plugin_policy_sink, emit)) {
    report(in->host, OLC_PLUGIN_E_INVALID, "cpu_gemm: policy sink missing or too old");
    return OLC_PLUGIN_E_INVALID;
  }
  count = cg_policy_candidates(list, CG_CANDIDATES_MAX, &in->cpu, in->isa, in->threads, &s);
  for (uint32_t i = 0; i < count; i++) {
    cg_policy *p = malloc(sizeof(*p));
    if (p == NULL) {
      report(in->host, OLC_PLUGIN_E_NOMEM, "cpu_gemm: out of memory");
      return OLC_PLUGIN_E_NOMEM;
    }
    *p = list[i];
    /* A refusal means "stop", not failure: the host has what it wants. */
    if (sink->emit(sink->ctx, p) != OLC_PLUGIN_OK)
      break;
  }
  return OLC_PLUGIN_OK;
}

static int32_t cg_validate(void *instance, const void *bytes, uint64_t len, void **policy) {
  cg_instance *in = instance;
  cg_policy p;
  char why[200];
  if (policy != NULL)
    *policy = NULL;
  if (bytes == NULL || len == 0 || len > CG_POLICY_TEXT_MAX) {
    report(in->host, OLC_PLUGIN_E_INVALID, "cpu_gemm: policy: empty or longer than %d bytes",
           CG_POLICY_TEXT_MAX);
    return OLC_PLUGIN_E_INVALID;
  }
  if (cg_policy_parse(&p, bytes, (size_t)len, in->isa, why, sizeof(why)) != 0) {
    report(in->host, OLC_PLUGIN_E_INVALID, "cpu_gemm: %s", why);
    return OLC_PLUGIN_E_INVALID;
  }
  if (policy != NULL) {
    cg_policy *copy = malloc(sizeof(*copy));
    if (copy == NULL) {
      report(in->host, OLC_PLUGIN_E_NOMEM, "cpu_gemm: out of memory");
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
    report(in->host, OLC_PLUGIN_E_INVALID, "cpu_gemm: serialize without policy or sink");
    return OLC_PLUGIN_E_INVALID;
  }
  len = cg_policy_format(text, sizeof(text), policy);
  if (len == 0) {
    report(in->host, OLC_PLUGIN_E_INVALID, "cpu_gemm: serialize: policy is corrupt");
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
  int32_t rc = workload_shape(in->host, workload, &s);
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
    /* Packing buffers sized for every candidate now, not in a timed run. */
    cg_policy list[CG_CANDIDATES_MAX];
    uint32_t count =
        cg_policy_candidates(list, CG_CANDIDATES_MAX, &in->cpu, in->isa, in->threads, &s);
    for (uint32_t i = 0; i < count; i++) {
      if (cg_gemm_reserve(&s, &list[i], in->threads, in->ws) != 0)
        goto nomem;
    }
  }
  fill_matrix(st->a, s.m * s.k, 1);
  fill_matrix(st->b, s.k * s.n, 2);
  memset(st->c, 0, (size_t)(s.m * s.n) * sizeof(float));
  *state = st;
  return OLC_PLUGIN_OK;
nomem:
  cg_unprepare(in, st);
  report(in->host, OLC_PLUGIN_E_NOMEM, "cpu_gemm: workload %s: out of memory for matrices",
         workload->name != NULL ? workload->name : "?");
  return OLC_PLUGIN_E_NOMEM;
}

static int32_t cg_run(void *instance, const olc_plugin_workload *workload, void *state,
                      const void *policy) {
  cg_instance *in = instance;
  cg_state *st = state;
  const cg_policy *p = policy;
  cg_gemm_args g;
  cg_shape s;
  char why[200];
  int32_t rc = workload_shape(in->host, workload, &s);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (st == NULL || p == NULL || memcmp(&s, &st->shape, sizeof(s)) != 0) {
    report(in->host, OLC_PLUGIN_E_INVALID,
           "cpu_gemm: run needs the prepared state of this "
           "workload and a policy");
    return OLC_PLUGIN_E_INVALID;
  }
  if (cg_policy_check(p, in->isa, why, sizeof(why)) != 0) {
    report(in->host, OLC_PLUGIN_E_INVALID, "cpu_gemm: %s", why);
    return OLC_PLUGIN_E_INVALID;
  }
  g.m = s.m, g.n = s.n, g.k = s.k;
  g.a = st->a, g.lda = s.k;
  g.b = st->b, g.ldb = s.n;
  g.c = st->c, g.ldc = s.n;
  if (cg_gemm(&g, p, in->pool, in->threads, in->ws) != 0) {
    report(in->host, OLC_PLUGIN_E_NOMEM, "cpu_gemm: out of memory for packing buffers");
    return OLC_PLUGIN_E_NOMEM;
  }
  return OLC_PLUGIN_OK;
}

static int32_t cg_flops(void *instance, const olc_plugin_workload *workload, double *flops) {
  cg_instance *in = instance;
  cg_shape s;
  int32_t rc = workload_shape(in->host, workload, &s);
  if (rc == OLC_PLUGIN_OK)
    *flops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
  return rc;
}

static const char *const cg_operators[] = {"MatMul"};

static const olc_plugin cg_plugin = {
    sizeof(olc_plugin),
    OLC_PLUGIN_ABI_MINOR,
    OLC_PLUGIN_ABI_MAJOR,
    0,
    "cpu_gemm",
    "1",
    "single-precision GEMM with CPUID cache-topology blocking (AVX-512, AVX2+FMA, portable C)",
    cg_operators,
    1,
    0,
    cg_create,
    cg_destroy,
    cg_key,
    cg_candidates,
    cg_validate,
    cg_serialize,
    cg_release_policy,
    cg_run,
    cg_prepare,
    cg_unprepare,
    cg_flops,
    NULL, /* execute */
};

OLC_PLUGIN_EXPORT int32_t olc_plugin_entry(uint32_t host_abi_major, const olc_plugin_host *host,
                                           const olc_plugin **plugin);

OLC_PLUGIN_EXPORT int32_t olc_plugin_entry(uint32_t host_abi_major, const olc_plugin_host *host,
                                           const olc_plugin **plugin) {
  if (host_abi_major != OLC_PLUGIN_ABI_MAJOR) {
    report(host, OLC_PLUGIN_E_ABI, "cpu_gemm: speaks plugin abi 1, host speaks %u", host_abi_major);
    return OLC_PLUGIN_E_ABI;
  }
  if (plugin == NULL)
    return OLC_PLUGIN_E_INVALID;
  g_host = host;
  *plugin = &cg_plugin;
  return OLC_PLUGIN_OK;
}
