/*
 * template_matmul.c - a complete plugin to start from: the olc_plugin table
 * of "template_matmul", a blocked single-precision MatMul whose policy is
 * its block sizes (policy.c) and whose kernel is plain C (matmul.c).
 *
 * What each entry does, and why, is in PLUGIN-API.md (plugin-api/README.md
 * in the source tree).  In short: create/destroy make and free an instance;
 * key says what the measurements depend on; candidates lists the policies
 * worth measuring, best guess first; validate/serialize/release_policy own
 * the policy's meaning; prepare/run/unprepare are what the host times (in
 * a separate olc-worker process); execute runs a policy on a caller's
 * operands, from many threads at once.
 *
 * No file-system call anywhere: persistence belongs to the host.  Messages
 * carry no "template_matmul:" prefix: the host adds the plugin's name.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
#endif

#include "olc/plugin.h"
#include "template.h"

#define TM_DIM_MAX (1 << 20)
#define TM_MATRIX_MAX (1ll << 26) /* elements per prepared matrix (256 MiB) */

/* An instance: read-only after create, so that every query call and
 * execute may run on it from many threads at once. */
typedef struct tm_instance {
  const olc_plugin_host *host;
  uint32_t max_block;
  char identity[200];
} tm_instance;

/* What prepare makes for run: the workload's operands. */
typedef struct tm_state {
  tm_shape shape;
  float *a, *b, *c;
} tm_state;

static const olc_plugin_host *g_host; /* for errors before an instance exists */

#if defined(__GNUC__)
static int32_t fail(const olc_plugin_host *host, int32_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#endif

/* Reports why the current call fails (host->set_error) and returns code. */
static int32_t fail(const olc_plugin_host *host, int32_t code, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  if (host == NULL)
    host = g_host;
  if (host == NULL || !OLC_PLUGIN_HAS_FIELD(host, olc_plugin_host, set_error) ||
      host->set_error == NULL)
    return code;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  host->set_error(host->ctx, code, msg);
  return code;
}

static void note(const olc_plugin_host *host, int32_t level, const char *msg) {
  if (host != NULL && OLC_PLUGIN_HAS_FIELD(host, olc_plugin_host, log) && host->log != NULL)
    host->log(host->ctx, level, msg);
}

/* The processor identity: every record is only valid on a processor that
 * gives the same string.  The blocking depends on the caches, which the
 * model (cpuid's family, model, stepping and brand) determines. */
static void cpu_identity(char *out, size_t size) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  unsigned a, b, c, d, sig = 0, brand[12];
  char vendor[13], text[49];
  size_t n;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) {
    snprintf(out, size, "x86 without cpuid");
    return;
  }
  memcpy(vendor, &b, 4);
  memcpy(vendor + 4, &d, 4);
  memcpy(vendor + 8, &c, 4);
  vendor[12] = 0;
  if (__get_cpuid(1, &sig, &b, &c, &d) == 0)
    sig = 0;
  memset(brand, 0, sizeof brand);
  if ((unsigned)__get_cpuid_max(0x80000000u, NULL) >= 0x80000004u)
    for (unsigned i = 0; i < 3; i++)
      __get_cpuid(0x80000002u + i, &brand[4 * i], &brand[4 * i + 1], &brand[4 * i + 2],
                  &brand[4 * i + 3]);
  memcpy(text, brand, 48);
  text[48] = 0;
  for (n = strlen(text); n > 0 && text[n - 1] == ' '; n--)
    text[n - 1] = 0;
  snprintf(out, size, "%s f=%u m=%u s=%u %s", vendor, ((sig >> 8) & 0xfu) + ((sig >> 20) & 0xffu),
           ((sig >> 4) & 0xfu) | ((sig >> 12) & 0xf0u), sig & 0xfu, text + strspn(text, " "));
#else
  snprintf(out, size, "generic cpu");
#endif
}

static int parse_uint(const char *s, int64_t max, int64_t *out) {
  int64_t v = 0;
  if (s == NULL || *s < '1' || *s > '9')
    return -1;
  for (; *s != 0; s++) {
    if (*s < '0' || *s > '9')
      return -1;
    v = v * 10 + (*s - '0');
    if (v > max)
      return -1;
  }
  *out = v;
  return 0;
}

/* Reads m, n, k (required) and dtype (float32, the default) of a MatMul. */
static int32_t workload_shape(const olc_plugin_host *host, const olc_plugin_workload *w,
                              tm_shape *s) {
  static const char *const names[3] = {"m", "n", "k"};
  int64_t *dims[3] = {&s->m, &s->n, &s->k};
  int seen[3] = {0, 0, 0};
  const char *name = w != NULL && w->name != NULL ? w->name : "?";
  if (w == NULL || !OLC_PLUGIN_HAS_FIELD(w, olc_plugin_workload, property_count))
    return fail(host, OLC_PLUGIN_E_INVALID, "workload missing or too old");
  if (w->operator_name == NULL || strcmp(w->operator_name, "MatMul") != 0)
    return fail(host, OLC_PLUGIN_E_UNSUPPORTED, "workload %s: operator %s is not MatMul", name,
                w->operator_name != NULL ? w->operator_name : "(none)");
  for (uint32_t i = 0; i < w->property_count; i++) {
    const olc_plugin_kv *kv = &w->properties[i];
    if (kv->key == NULL || kv->value == NULL)
      continue;
    if (strcmp(kv->key, "dtype") == 0 && strcmp(kv->value, "float32") != 0)
      return fail(host, OLC_PLUGIN_E_UNSUPPORTED, "workload %s: dtype %s is not float32", name,
                  kv->value);
    for (int d = 0; d < 3; d++) {
      if (strcmp(kv->key, names[d]) != 0)
        continue;
      if (parse_uint(kv->value, TM_DIM_MAX, dims[d]) != 0)
        return fail(host, OLC_PLUGIN_E_INVALID, "workload %s: %s=%s is not an integer in 1..%d",
                    name, kv->key, kv->value, TM_DIM_MAX);
      seen[d] = 1;
    }
  }
  for (int d = 0; d < 3; d++)
    if (!seen[d])
      return fail(host, OLC_PLUGIN_E_INVALID, "workload %s: property %s is missing", name,
                  names[d]);
  return OLC_PLUGIN_OK;
}

/* ---------------------------------------------------------- lifecycle */

/* [plugin.template_matmul] entries: max_block = N caps the block sizes.
 * The host also passes enabled and critical, which are its own. */
static int32_t read_config(tm_instance *in, const olc_plugin_kv *config, uint32_t count) {
  for (uint32_t i = 0; i < count; i++) {
    const char *key = config[i].key != NULL ? config[i].key : "";
    int64_t v;
    if (strcmp(key, "enabled") == 0 || strcmp(key, "critical") == 0)
      continue;
    if (strcmp(key, "max_block") != 0)
      return fail(in->host, OLC_PLUGIN_E_INVALID, "unknown config key \"%s\" (known: max_block)",
                  key);
    if (parse_uint(config[i].value, TM_BLOCK_MAX, &v) != 0)
      return fail(in->host, OLC_PLUGIN_E_INVALID, "config max_block=%s: want 1..%u",
                  config[i].value != NULL ? config[i].value : "", TM_BLOCK_MAX);
    in->max_block = (uint32_t)v;
  }
  return OLC_PLUGIN_OK;
}

static int32_t tm_create(const olc_plugin_host *host, const olc_plugin_kv *config,
                         uint32_t config_count, uint32_t thread_count, void **instance) {
  tm_instance *in;
  int32_t rc;
  (void)thread_count; /* one thread: the key says so */
  if (instance == NULL)
    return fail(host, OLC_PLUGIN_E_INVALID, "create without an instance pointer");
  *instance = NULL;
  in = calloc(1, sizeof *in);
  if (in == NULL)
    return fail(host, OLC_PLUGIN_E_NOMEM, "out of memory");
  in->host = host != NULL ? host : g_host;
  in->max_block = TM_BLOCK_MAX;
  rc = read_config(in, config, config_count);
  if (rc != OLC_PLUGIN_OK) {
    free(in);
    return rc;
  }
  cpu_identity(in->identity, sizeof in->identity);
  note(in->host, OLC_PLUGIN_LOG_DEBUG, in->identity);
  *instance = in;
  return OLC_PLUGIN_OK;
}

static void tm_destroy(void *instance) { free(instance); }

/* ------------------------------------------------------------ queries */

/* Everything the best policy depends on: the processor, one thread, and
 * the shape.  Every property a workload carries must be added here or
 * declared with sink->use_property (ABI 1.3; for one left out at its
 * default value): the host refuses a workload with a property the key did
 * neither for, so no property drops out of a record's identity.  This
 * template reads dtype, m, n and k and adds all four, so a workload with
 * any other property is refused by the host. */
static int32_t tm_key(void *instance, const olc_plugin_workload *workload,
                      const olc_plugin_key_sink *sink) {
  tm_instance *in = instance;
  tm_shape s;
  char v[24];
  int32_t rc = workload_shape(in->host, workload, &s);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (sink == NULL || !OLC_PLUGIN_HAS_FIELD(sink, olc_plugin_key_sink, add_structure))
    return fail(in->host, OLC_PLUGIN_E_INVALID, "key sink missing or too old");
  if ((rc = sink->set_processor(sink->ctx, in->identity)) != OLC_PLUGIN_OK ||
      (rc = sink->set_thread_count(sink->ctx, 1)) != OLC_PLUGIN_OK ||
      (rc = sink->add_structure(sink->ctx, "dtype", "float32")) != OLC_PLUGIN_OK)
    return rc;
  snprintf(v, sizeof v, "%lld", (long long)s.m);
  if ((rc = sink->add_structure(sink->ctx, "m", v)) != OLC_PLUGIN_OK)
    return rc;
  snprintf(v, sizeof v, "%lld", (long long)s.n);
  if ((rc = sink->add_structure(sink->ctx, "n", v)) != OLC_PLUGIN_OK)
    return rc;
  snprintf(v, sizeof v, "%lld", (long long)s.k);
  return sink->add_structure(sink->ctx, "k", v);
}

static int32_t tm_candidates(void *instance, const olc_plugin_workload *workload,
                             const olc_plugin_policy_sink *sink) {
  tm_instance *in = instance;
  tm_policy list[TM_CANDIDATES_MAX];
  tm_shape s;
  uint32_t count;
  int32_t rc = workload_shape(in->host, workload, &s);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (sink == NULL || !OLC_PLUGIN_HAS_FIELD(sink, olc_plugin_policy_sink, emit))
    return fail(in->host, OLC_PLUGIN_E_INVALID, "policy sink missing or too old");
  count = tm_policy_candidates(list, TM_CANDIDATES_MAX, &s, in->max_block);
  for (uint32_t i = 0; i < count; i++) {
    tm_policy *p = malloc(sizeof *p);
    if (p == NULL)
      return fail(in->host, OLC_PLUGIN_E_NOMEM, "out of memory");
    *p = list[i];
    /* The host owns p now, whatever emit returns; a refusal means "stop"
     * (it has enough), not a failure. */
    if (sink->emit(sink->ctx, p) != OLC_PLUGIN_OK)
      break;
  }
  return OLC_PLUGIN_OK;
}

static int32_t tm_validate(void *instance, const void *bytes, uint64_t len, void **policy) {
  tm_instance *in = instance;
  tm_policy p;
  char why[160];
  if (policy != NULL)
    *policy = NULL;
  if (len > TM_POLICY_TEXT_MAX)
    return fail(in->host, OLC_PLUGIN_E_INVALID, "policy is longer than %u bytes",
                TM_POLICY_TEXT_MAX);
  if (tm_policy_parse(&p, bytes, (size_t)len, why, sizeof why) != 0)
    return fail(in->host, OLC_PLUGIN_E_INVALID, "%s", why);
  /* A record measured under a larger max_block is not one this instance
   * would have produced: reject it, and the host recalibrates. */
  if (p.mb > in->max_block || p.nb > in->max_block || p.kb > in->max_block)
    return fail(in->host, OLC_PLUGIN_E_INVALID, "policy has a block larger than max_block=%u",
                (unsigned)in->max_block);
  if (policy != NULL) {
    tm_policy *copy = malloc(sizeof *copy);
    if (copy == NULL)
      return fail(in->host, OLC_PLUGIN_E_NOMEM, "out of memory");
    *copy = p;
    *policy = copy;
  }
  return OLC_PLUGIN_OK;
}

static int32_t tm_serialize(void *instance, const void *policy, const olc_plugin_byte_sink *out) {
  tm_instance *in = instance;
  char text[TM_POLICY_TEXT_MAX + 1];
  size_t len;
  if (policy == NULL || out == NULL || !OLC_PLUGIN_HAS_FIELD(out, olc_plugin_byte_sink, write))
    return fail(in->host, OLC_PLUGIN_E_INVALID, "serialize without a policy or a sink");
  len = tm_policy_format(text, sizeof text, policy);
  if (len == 0)
    return fail(in->host, OLC_PLUGIN_E_INVALID, "serialize: the policy is corrupt");
  return out->write(out->ctx, text, len);
}

static void tm_release_policy(void *instance, void *policy) {
  (void)instance;
  free(policy);
}

/* ----------------------------------------------------- timing (worker) */

static void tm_unprepare(void *instance, void *state) {
  tm_state *st = state;
  (void)instance;
  if (st == NULL)
    return;
  free(st->a);
  free(st->b);
  free(st->c);
  free(st);
}

/* Deterministic values in [-1, 1): every run computes the same thing. */
static void fill(float *x, int64_t count, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 1u;
  for (int64_t i = 0; i < count; i++) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    x[i] = (float)(s >> 8) / (float)(1u << 23) - 1.0f;
  }
}

/* The workload's operands, made once before its runs are timed. */
static int32_t tm_prepare(void *instance, const olc_plugin_workload *workload, void **state) {
  tm_instance *in = instance;
  tm_state *st;
  tm_shape s;
  int32_t rc = workload_shape(in->host, workload, &s);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (s.m * s.k > TM_MATRIX_MAX || s.k * s.n > TM_MATRIX_MAX || s.m * s.n > TM_MATRIX_MAX)
    return fail(in->host, OLC_PLUGIN_E_INVALID, "workload %s: a matrix over %lld elements",
                workload->name != NULL ? workload->name : "?", TM_MATRIX_MAX);
  st = calloc(1, sizeof *st);
  if (st != NULL) {
    st->shape = s;
    st->a = malloc((size_t)(s.m * s.k) * sizeof(float));
    st->b = malloc((size_t)(s.k * s.n) * sizeof(float));
    st->c = malloc((size_t)(s.m * s.n) * sizeof(float));
  }
  if (st == NULL || st->a == NULL || st->b == NULL || st->c == NULL) {
    tm_unprepare(in, st);
    return fail(in->host, OLC_PLUGIN_E_NOMEM, "workload %s: out of memory for the operands",
                workload->name != NULL ? workload->name : "?");
  }
  fill(st->a, s.m * s.k, 1);
  fill(st->b, s.k * s.n, 2);
  *state = st;
  return OLC_PLUGIN_OK;
}

/* One product on the prepared operands: what the host times. */
static int32_t tm_run(void *instance, const olc_plugin_workload *workload, void *state,
                      const void *policy) {
  tm_instance *in = instance;
  tm_state *st = state;
  tm_matmul_args g;
  (void)workload;
  if (st == NULL || policy == NULL)
    return fail(in->host, OLC_PLUGIN_E_INVALID, "run needs the prepared operands and a policy");
  g.shape = st->shape;
  g.a = st->a, g.lda = st->shape.k;
  g.b = st->b, g.ldb = st->shape.n;
  g.c = st->c, g.ldc = st->shape.n;
  g.alpha = 1.0f, g.beta = 0.0f;
  tm_matmul(&g, policy);
  return OLC_PLUGIN_OK;
}

static int32_t tm_flops(void *instance, const olc_plugin_workload *workload, double *flops) {
  tm_instance *in = instance;
  tm_shape s;
  int32_t rc = workload_shape(in->host, workload, &s);
  if (rc == OLC_PLUGIN_OK)
    *flops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
  return rc;
}

/* ------------------------------------------------- execute (ABI 1.1) */

/* The selected policy on a caller's operands, of any shape (the
 * workload's shape need not match).  Reentrant: it reads the instance and
 * the policy and writes only C. */
static int32_t tm_execute(void *instance, const olc_plugin_workload *workload, const void *policy,
                          const olc_plugin_exec_args *args) {
  tm_instance *in = instance;
  tm_matmul_args g;
  char why[200];
  int32_t rc;
  if (workload != NULL && workload->operator_name != NULL &&
      strcmp(workload->operator_name, "MatMul") != 0)
    return fail(in->host, OLC_PLUGIN_E_UNSUPPORTED, "execute: operator %s is not MatMul",
                workload->operator_name);
  if (policy == NULL)
    return fail(in->host, OLC_PLUGIN_E_INVALID, "execute without a policy");
  rc = tm_exec_operands(&g, args, why, sizeof why);
  if (rc != OLC_PLUGIN_OK)
    return fail(in->host, rc, "%s", why);
  tm_matmul(&g, policy);
  return OLC_PLUGIN_OK;
}

/* ------------------------------------------------------ table, entry */

static const char *const tm_operators[] = {"MatMul"};

static const olc_plugin tm_plugin = {
    .struct_size = sizeof(olc_plugin),
    .abi_minor = OLC_PLUGIN_ABI_MINOR,
    .abi_major = OLC_PLUGIN_ABI_MAJOR,
    .name = "template_matmul",
    .implementation_version = "1", /* change it whenever a policy's meaning changes */
    .description = "template plugin: blocked single-precision MatMul, block sizes as the policy",
    .operators = tm_operators,
    .operator_count = 1,
    .create = tm_create,
    .destroy = tm_destroy,
    .key = tm_key,
    .candidates = tm_candidates,
    .validate = tm_validate,
    .serialize = tm_serialize,
    .release_policy = tm_release_policy,
    .run = tm_run,
    .prepare = tm_prepare,
    .unprepare = tm_unprepare,
    .flops = tm_flops,
    .execute = tm_execute,
    /* .tolerances left NULL: the host's defaults for the numerical check */
    /* .operand_bytes left NULL: the host computes them from the shape */
    /* .distance left NULL (ABI 1.4): on a miss the host serves the policy of
     * the nearest measured workload by its default distance, the log2
     * distance of m, n and k with dtype equal */
};

OLC_PLUGIN_EXPORT int32_t olc_plugin_entry(uint32_t host_abi_major, const olc_plugin_host *host,
                                           const olc_plugin **plugin);

OLC_PLUGIN_EXPORT int32_t olc_plugin_entry(uint32_t host_abi_major, const olc_plugin_host *host,
                                           const olc_plugin **plugin) {
  if (host_abi_major != OLC_PLUGIN_ABI_MAJOR)
    return fail(host, OLC_PLUGIN_E_ABI, "speaks plugin abi %u, the host %u",
                (unsigned)OLC_PLUGIN_ABI_MAJOR, (unsigned)host_abi_major);
  if (plugin == NULL)
    return OLC_PLUGIN_E_INVALID;
  g_host = host;
  *plugin = &tm_plugin;
  return OLC_PLUGIN_OK;
}
