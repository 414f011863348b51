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

/* One property: dtype, or one of m, n, k; others are ignored.  With
 * buckets, m and n may also be given as the key writes them ("129-256"). */
static int32_t shape_property(const olc_plugin_host *host, const char *wname,
                              const olc_plugin_kv *kv, int buckets, cg_shape *s, int seen[3]) {
  static const char *const names[3] = {"m", "n", "k"};
  static const int64_t exact[3] = {CG_BUCKET_EXACT_M, CG_BUCKET_EXACT_N, 0};
  int64_t *dims[3] = {&s->m, &s->n, &s->k};
  if (strcmp(kv->key, "dtype") == 0) {
    if (strcmp(kv->value, "float32") != 0) {
      cg_report(host, OLC_PLUGIN_E_UNSUPPORTED, "workload %s: dtype %s is not float32", wname,
                kv->value);
      return OLC_PLUGIN_E_UNSUPPORTED;
    }
    return OLC_PLUGIN_OK;
  }
  for (int d = 0; d < 3; d++) {
    if (strcmp(kv->key, names[d]) != 0)
      continue;
    if (parse_dim(kv->value, dims[d]) != 0) {
      int bucket = exact[d] != 0 && parse_bucket(kv->value, exact[d], dims[d]) == 0;
      if (bucket && buckets) {
        seen[d] = 1;
        continue;
      }
      if (bucket)
        cg_report(host, OLC_PLUGIN_E_INVALID,
                  "workload %s: property %s=%s is a bucket of the key, not a size: measuring "
                  "needs one size in it",
                  wname, kv->key, kv->value);
      else
        cg_report(host, OLC_PLUGIN_E_INVALID,
                  "workload %s: property %s=%s is not an integer in 1..%d", wname, kv->key,
                  kv->value, CG_DIM_MAX);
      return OLC_PLUGIN_E_INVALID;
    }
    seen[d] = 1;
  }
  return OLC_PLUGIN_OK;
}

static int32_t workload_shape(const olc_plugin_host *host, const olc_plugin_workload *w,
                              int buckets, cg_shape *s) {
  static const char *const names[3] = {"m", "n", "k"};
  const char *wname;
  int seen[3] = {0, 0, 0};
  if (w == NULL || !OLC_PLUGIN_HAS_FIELD(w, olc_plugin_workload, property_count)) {
    cg_report(host, OLC_PLUGIN_E_INVALID, "workload missing or too old");
    return OLC_PLUGIN_E_INVALID;
  }
  wname = w->name != NULL ? w->name : "?";
  if (w->operator_name == NULL || strcmp(w->operator_name, "MatMul") != 0) {
    cg_report(host, OLC_PLUGIN_E_UNSUPPORTED, "workload %s: operator %s is not MatMul", wname,
              w->operator_name != NULL ? w->operator_name : "(none)");
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  for (uint32_t i = 0; i < w->property_count; i++) {
    const olc_plugin_kv *kv = &w->properties[i];
    int32_t rc;
    if (kv->key == NULL || kv->value == NULL)
      continue;
    if ((rc = shape_property(host, wname, kv, buckets, s, seen)) != OLC_PLUGIN_OK)
      return rc;
  }
  for (int d = 0; d < 3; d++) {
    if (!seen[d]) {
      cg_report(host, OLC_PLUGIN_E_INVALID, "workload %s: property %s is missing", wname, names[d]);
      return OLC_PLUGIN_E_INVALID;
    }
  }
  if (s->m * s->k > CG_MATRIX_MAX || s->k * s->n > CG_MATRIX_MAX || s->m * s->n > CG_MATRIX_MAX) {
    cg_report(host, OLC_PLUGIN_E_INVALID, "workload %s: matrices over 2^30 elements", wname);
    return OLC_PLUGIN_E_INVALID;
  }
  return OLC_PLUGIN_OK;
}

int32_t cg_workload_shape(const olc_plugin_host *host, const olc_plugin_workload *w, cg_shape *s) {
  return workload_shape(host, w, 0, s);
}

void cg_bucket_shape(cg_shape *out, const cg_shape *raw) {
  int64_t lo;
  cg_bucket_range(raw->m, CG_BUCKET_EXACT_M, &lo, &out->m);
  cg_bucket_range(raw->n, CG_BUCKET_EXACT_N, &lo, &out->n);
  out->k = raw->k;
}

int32_t cg_plugin_key(void *instance, const olc_plugin_workload *workload,
                      const olc_plugin_key_sink *sink) {
  cg_instance *in = instance;
  cg_shape s;
  char v[48];
  /* Its own buckets too: a stored record's structure names the workload
   * of the record (the host's prune --foreign asks for its key). */
  int32_t rc = workload_shape(in->host, workload, 1, &s);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (sink == NULL || !OLC_PLUGIN_HAS_FIELD(sink, olc_plugin_key_sink, add_structure)) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "key sink missing or too old");
    return OLC_PLUGIN_E_INVALID;
  }
  if ((rc = sink->set_processor(sink->ctx, in->identity)) != OLC_PLUGIN_OK ||
      (rc = sink->set_thread_count(sink->ctx, in->threads)) != OLC_PLUGIN_OK ||
      (rc = sink->add_structure(sink->ctx, "dtype", "float32")) != OLC_PLUGIN_OK)
    return rc;
  cg_bucket_text(v, sizeof(v), s.m, CG_BUCKET_EXACT_M);
  if ((rc = sink->add_structure(sink->ctx, "m", v)) != OLC_PLUGIN_OK)
    return rc;
  cg_bucket_text(v, sizeof(v), s.n, CG_BUCKET_EXACT_N);
  if ((rc = sink->add_structure(sink->ctx, "n", v)) != OLC_PLUGIN_OK)
    return rc;
  snprintf(v, sizeof(v), "%lld", (long long)s.k);
  return sink->add_structure(sink->ctx, "k", v);
}

int32_t cg_plugin_candidates(void *instance, const olc_plugin_workload *workload,
                             const olc_plugin_policy_sink *sink) {
  cg_instance *in = instance;
  cg_policy list[CG_CANDIDATES_MAX];
  cg_shape raw, s;
  uint32_t count;
  int32_t rc = cg_workload_shape(in->host, workload, &raw);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (sink == NULL || !OLC_PLUGIN_HAS_FIELD(sink, olc_plugin_policy_sink, emit)) {
    cg_report(in->host, OLC_PLUGIN_E_INVALID, "policy sink missing or too old");
    return OLC_PLUGIN_E_INVALID;
  }
  cg_bucket_shape(&s, &raw);
  count = cg_policy_candidates(list, CG_CANDIDATES_MAX, &in->cpu, in->isa, in->threads, &s);
  for (uint32_t i = 0; i < count; i++) {
    cg_policy *p = malloc(sizeof(*p));
    if (p == NULL) {
      cg_report(in->host, OLC_PLUGIN_E_NOMEM, "out of memory");
      return OLC_PLUGIN_E_NOMEM;
    }
    *p = list[i];
    /* A refusal means "stop", not failure: the host has what it wants. */
    if (sink->emit(sink->ctx, p) != OLC_PLUGIN_OK)
      break;
  }
  return OLC_PLUGIN_OK;
}
