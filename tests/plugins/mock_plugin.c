/*
 * tests/plugins/mock_plugin.c - one source, many mock plugins.
 *
 * Built without defines it is "mock_det", the deterministic test backend:
 * a policy is "spin_us=N" and run() busy-waits N microseconds on the host's
 * clock, so the cheapest candidate is known in advance (README.md).  Compile
 * definitions turn it into the broken or unusual plugins the loader tests
 * need (MOCK_NO_ENTRY, MOCK_ENTRY_ERROR, MOCK_WRONG_MAJOR, ...), and
 * [plugin.NAME] entries make it misbehave at run time for the wrapper tests.
 *
 * Like every plugin it uses no file-system call and links only the ABI
 * header.
 */
#include <math.h>
#include <stdatomic.h>

#include "mock_scaffold.h"

#ifndef MOCK_NAME
#define MOCK_NAME "mock_det"
#endif
#if defined(MOCK_BAD_UTF8_NAME)
#undef MOCK_NAME
#define MOCK_NAME "mock_\xc3\x28" /* a torn two-byte sequence */
#endif
#ifndef MOCK_VERSION
#define MOCK_VERSION "1"
#endif

#define MOCK_MAX_CANDIDATES 64
#define MOCK_DEFAULT_CANDIDATES "400,100,200,800"

typedef struct mock_instance {
  uint32_t threads;
  char processor[128];
  uint32_t spins[MOCK_MAX_CANDIDATES];
  uint32_t spin_count;
  char key_mode[32];        /* key = huge_processor | empty_processor | bad_utf8_structure |
                               duplicate_structure | unsupported | no_processor |
                               null_use_property | bad_utf8_use_property */
  char candidates_mode[32]; /* candidates = none | million | million_ignore | null | LIST */
  char serialize_mode[16];  /* serialize = fail | huge */
  char run_mode[16];        /* run = fail | fail_multiline | fail_bad_utf8 | fail_markup */
  char validate_mode[16];   /* validate = reject */
  int lazy;                 /* lazy = 1: run() looks up / saves through the host */
  char execute_mode[16];    /* execute = fail */
  char bucket[32];          /* bucket = m[,n]: those properties bucketed in the key */
  char distance_mode[16];   /* distance = refuse (MOCK_DISTANCE builds) */
  char keys_on[64];         /* keys_on = a,b: the key reports only those (others dropped) */
  char defaults[64];        /* defaults = trans_b:0[,...]: left out of the key, declared used */
  uint32_t wrong_spin;      /* wrong = N: execute with spin_us=N is off by 1e-2 at C[3,17] */
  int cold;                 /* cold = 1: run fails on the state of the run before (no rotation) */
  uint32_t stall_spin;      /* stall = N:K[:P]: the K-th run of spin_us=N takes P% of */
  uint32_t stall_run;       /* N us (2000: 20 x), as a run a preemption stalled would */
  uint32_t stall_seen;
  uint32_t stall_percent;
  uint32_t fail_spin; /* fail = N:K: the K-th run of spin_us=N and every later one fail, */
  uint32_t fail_run;  /* as a candidate that breaks in the race's final would */
  uint32_t fail_seen;
  uint32_t jitter_spin; /* jitter = N: the runs of spin_us=N take N/2, N, 2N us in turn, */
  uint32_t jitter_seen; /* a median of N with a wide spread */
  int trace;          /* trace = 1: every run and execute logs "run N" / "execute N" (N: spin_us) */
  char pack_mode[16]; /* pack = unsupported | fail */
  int expect_constants; /* constants = N: run fails unless constant_inputs is N */
  const void *last_state;
} mock_instance;

static void trace_call(const mock_instance *m, const char *what, uint32_t spin_us) {
  char line[48];
  if (!m->trace)
    return;
  snprintf(line, sizeof line, "%s %u", what, (unsigned)spin_us);
  mock_log(OLC_PLUGIN_LOG_INFO, line);
}

static void copy_text(char *dst, size_t size, const char *src) {
  snprintf(dst, size, "%s", src != NULL ? src : "");
}

/* MOCK_PRINTS: a plugin that writes to its process's stdout (a debug
 * print left in), flushed at once, so a host that does not keep stdout for
 * itself shows it in the middle of its own output. */
static void mock_print(const char *what) {
#if defined(MOCK_PRINTS)
  printf("mock stdout: %s\n", what);
  fflush(stdout);
#else
  (void)what;
#endif
}

static int parse_spins(mock_instance *m, const char *list) {
  return mock_parse_spins(m->spins, MOCK_MAX_CANDIDATES, &m->spin_count, list);
}

static int32_t mock_create(const olc_plugin_host *host, const olc_plugin_kv *config,
                           uint32_t config_count, uint32_t thread_count, void **instance) {
  mock_instance *m;
  uint32_t i;
  char line[96];
  mock_host = host;
  mock_print("create");
#if defined(MOCK_CREATE_FAILS)
  mock_error(OLC_PLUGIN_E_FAILED, "create failed on purpose");
  return OLC_PLUGIN_E_FAILED;
#elif defined(MOCK_CREATE_UNAVAILABLE)
  mock_error(OLC_PLUGIN_E_UNAVAILABLE, "no mock device on this machine");
  return OLC_PLUGIN_E_UNAVAILABLE;
#endif
  m = calloc(1, sizeof *m);
  if (m == NULL)
    return OLC_PLUGIN_E_NOMEM;
  m->threads = thread_count;
  copy_text(m->processor, sizeof m->processor, "mock-cpu");
  (void)parse_spins(m, MOCK_DEFAULT_CANDIDATES);
  for (i = 0; i < config_count; i++) {
    const char *k = config[i].key;
    const char *v = config[i].value;
    if (k == NULL || v == NULL)
      continue;
    if (strcmp(k, "processor") == 0)
      copy_text(m->processor, sizeof m->processor, v);
    else if (strcmp(k, "key") == 0)
      copy_text(m->key_mode, sizeof m->key_mode, v);
    else if (strcmp(k, "serialize") == 0)
      copy_text(m->serialize_mode, sizeof m->serialize_mode, v);
    else if (strcmp(k, "run") == 0)
      copy_text(m->run_mode, sizeof m->run_mode, v);
    else if (strcmp(k, "validate") == 0)
      copy_text(m->validate_mode, sizeof m->validate_mode, v);
    else if (strcmp(k, "execute") == 0)
      copy_text(m->execute_mode, sizeof m->execute_mode, v);
    else if (strcmp(k, "pack") == 0)
      copy_text(m->pack_mode, sizeof m->pack_mode, v);
    else if (strcmp(k, "constants") == 0)
      m->expect_constants = (int)strtol(v, NULL, 10);
    else if (strcmp(k, "bucket") == 0)
      copy_text(m->bucket, sizeof m->bucket, v);
    else if (strcmp(k, "distance") == 0)
      copy_text(m->distance_mode, sizeof m->distance_mode, v);
    else if (strcmp(k, "keys_on") == 0)
      copy_text(m->keys_on, sizeof m->keys_on, v);
    else if (strcmp(k, "defaults") == 0)
      copy_text(m->defaults, sizeof m->defaults, v);
    else if (strcmp(k, "cold") == 0)
      m->cold = strcmp(v, "1") == 0;
    else if (strcmp(k, "trace") == 0)
      m->trace = strcmp(v, "1") == 0;
    else if (strcmp(k, "stall") == 0) {
      char *end;
      m->stall_spin = (uint32_t)strtoul(v, &end, 10);
      m->stall_run = *end == ':' ? (uint32_t)strtoul(end + 1, &end, 10) : 1u;
      m->stall_percent = *end == ':' ? (uint32_t)strtoul(end + 1, NULL, 10) : 2000u;
    } else if (strcmp(k, "fail") == 0) {
      char *end;
      m->fail_spin = (uint32_t)strtoul(v, &end, 10);
      m->fail_run = *end == ':' ? (uint32_t)strtoul(end + 1, NULL, 10) : 1u;
    } else if (strcmp(k, "jitter") == 0)
      m->jitter_spin = (uint32_t)strtoul(v, NULL, 10);
    else if (strcmp(k, "wrong") == 0)
      m->wrong_spin = (uint32_t)strtoul(v, NULL, 10);
    else if (strcmp(k, "lazy") == 0)
      m->lazy = strcmp(v, "1") == 0 || strcmp(v, "true") == 0;
    else if (strcmp(k, "create") == 0 && strcmp(v, "fail") == 0) {
      free(m);
      mock_error(OLC_PLUGIN_E_FAILED, "create failed on purpose");
      return OLC_PLUGIN_E_FAILED;
    } else if (strcmp(k, "candidates") == 0) {
      copy_text(m->candidates_mode, sizeof m->candidates_mode, v);
      if (v[0] >= '0' && v[0] <= '9' && parse_spins(m, v) != 0) {
        free(m);
        mock_error(OLC_PLUGIN_E_INVALID, "candidates: expected a list like 400,100,200");
        return OLC_PLUGIN_E_INVALID;
      }
    }
  }
  snprintf(line, sizeof line, "created with %u threads", (unsigned)thread_count);
  mock_log(OLC_PLUGIN_LOG_INFO, line);
  *instance = m;
  return OLC_PLUGIN_OK;
}

static void mock_destroy(void *instance) { free(instance); }

static int mock_serves(const olc_plugin_workload *w) {
  return w != NULL && w->operator_name != NULL &&
         (strcmp(w->operator_name, "MatMul") == 0 || strcmp(w->operator_name, "Conv") == 0);
}

/* 1 when name is one of the comma-separated names in list. */
static int in_list(const char *list, const char *name) {
  size_t n = strlen(name);
  const char *s = list;
  while ((s = strstr(s, name)) != NULL) {
    if ((s == list || s[-1] == ',') && (s[n] == 0 || s[n] == ','))
      return 1;
    s += n;
  }
  return 0;
}

/* bucket = m: values up to 16 as given, larger ones as the power-of-two
 * range that holds them ("17-32", "129-256"), as cpu_gemm buckets m. */
static const char *bucketed(char *buf, size_t size, const mock_instance *m, const char *name,
                            const char *value) {
  unsigned long long v, hi = 32;
  char *end;
  if (!in_list(m->bucket, name))
    return value;
  v = strtoull(value, &end, 10);
  if (*end != 0 || v <= 16)
    return value;
  while (hi < v)
    hi <<= 1;
  snprintf(buf, size, "%llu-%llu", hi / 2 + 1, hi);
  return buf;
}

/* 1 when name=value is one of the "name:value" pairs of defaults = ...:
 * a property at its default value, left out of the key. */
static int at_default(const mock_instance *m, const char *name, const char *value) {
  char pair[80];
  snprintf(pair, sizeof pair, "%s:%s", name, value);
  return m->defaults[0] != 0 && in_list(m->defaults, pair);
}

/* One workload property into the key: reported (bucketed when asked),
 * declared used when at its default, or dropped when keys_on leaves it
 * out (a plugin that ignores a property: the host refuses the workload). */
static int32_t key_property(const mock_instance *m, const olc_plugin_kv *kv,
                            const olc_plugin_key_sink *sink) {
  char b[48];
  if (at_default(m, kv->key, kv->value)) {
    /* A sink of ABI < 1.3 cannot take it: the property is then dropped,
     * and the host refuses it. */
    if (OLC_PLUGIN_HAS_FIELD(sink, olc_plugin_key_sink, use_property))
      return sink->use_property(sink->ctx, kv->key);
    return OLC_PLUGIN_OK;
  }
  if (m->keys_on[0] != 0 && !in_list(m->keys_on, kv->key))
    return OLC_PLUGIN_OK;
  return sink->add_structure(sink->ctx, kv->key, bucketed(b, sizeof b, m, kv->key, kv->value));
}

static int32_t mock_key(void *instance, const olc_plugin_workload *w,
                        const olc_plugin_key_sink *sink) {
  static char huge[10 * 1024 + 1];
  const mock_instance *m = instance;
  const char *processor = m->processor;
  int32_t rc = OLC_PLUGIN_OK;
  uint32_t i;
  mock_log(OLC_PLUGIN_LOG_DEBUG, "key");
  if (strcmp(m->key_mode, "unsupported") == 0 || !mock_serves(w)) {
    mock_error(OLC_PLUGIN_E_UNSUPPORTED, "operator not served by the mock");
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if (strcmp(m->key_mode, "invalid") == 0) {
    mock_error(OLC_PLUGIN_E_INVALID, "workload rejected on purpose");
    return OLC_PLUGIN_E_INVALID;
  }
  if (strcmp(m->key_mode, "huge_processor") == 0) {
    memset(huge, 'x', sizeof huge - 1);
    processor = huge;
  } else if (strcmp(m->key_mode, "empty_processor") == 0) {
    processor = "";
  }
  if (strcmp(m->key_mode, "no_processor") != 0)
    rc = sink->set_processor(sink->ctx, processor);
  if (rc == OLC_PLUGIN_OK)
    rc = sink->set_thread_count(sink->ctx, m->threads);
  for (i = 0; rc == OLC_PLUGIN_OK && i < w->property_count; i++)
    rc = key_property(m, &w->properties[i], sink);
  if (rc == OLC_PLUGIN_OK && strcmp(m->key_mode, "bad_utf8_structure") == 0)
    rc = sink->add_structure(sink->ctx, "bad\xc3\x28name", "1");
  if (rc == OLC_PLUGIN_OK && strcmp(m->key_mode, "null_use_property") == 0)
    rc = sink->use_property(sink->ctx, NULL);
  if (rc == OLC_PLUGIN_OK && strcmp(m->key_mode, "bad_utf8_use_property") == 0)
    rc = sink->use_property(sink->ctx, "bad\xc3\x28name");
  if (rc == OLC_PLUGIN_OK && strcmp(m->key_mode, "duplicate_structure") == 0) {
    rc = sink->add_structure(sink->ctx, "twice", "1");
    if (rc == OLC_PLUGIN_OK)
      rc = sink->add_structure(sink->ctx, "twice", "2");
  }
  return rc;
}

/* candidates = by_m: spin_us = 3m + 300, m, 2m + 100 for the workload's m
 * (1 without one), so each shape has its own winner, spin_us=m, at least
 * 2.2 times faster than the others (a lead the race keeps on a machine
 * loaded far beyond its CPUs; m + 100 was not, at m = 512 under ASan). */
static int32_t by_m(const olc_plugin_workload *w, const olc_plugin_policy_sink *sink) {
  static const uint32_t times[3] = {3, 1, 2}, extra[3] = {300, 0, 100};
  unsigned long v = 1;
  uint32_t i;
  int32_t rc = OLC_PLUGIN_OK;
  for (i = 0; i < w->property_count; i++)
    if (strcmp(w->properties[i].key, "m") == 0)
      v = strtoul(w->properties[i].value, NULL, 10);
  if (v == 0 || v > 100000ul)
    v = 1;
  for (i = 0; i < 3 && rc == OLC_PLUGIN_OK; i++) {
    mock_policy *p = new_policy((uint32_t)v * times[i] + extra[i]);
    rc = p != NULL ? sink->emit(sink->ctx, p) : OLC_PLUGIN_E_NOMEM;
  }
  return rc;
}

static int32_t mock_candidates(void *instance, const olc_plugin_workload *w,
                               const olc_plugin_policy_sink *sink) {
  const mock_instance *m = instance;
  const char *mode = m->candidates_mode;
  uint32_t i;
  int32_t rc;
  (void)w;
  if (strcmp(mode, "none") == 0)
    return OLC_PLUGIN_OK;
  if (strcmp(mode, "null") == 0)
    return sink->emit(sink->ctx, NULL);
  if (strcmp(mode, "by_m") == 0)
    return by_m(w, sink);
  if (strcmp(mode, "million") == 0 || strcmp(mode, "million_ignore") == 0) {
    int ignore = strcmp(mode, "million_ignore") == 0;
    int32_t last = OLC_PLUGIN_OK;
    for (i = 0; i < 1000000u; i++) {
      rc = sink->emit(sink->ctx, new_policy(1 + i % 1000u));
      if (rc != OLC_PLUGIN_OK) {
        last = rc;
        if (!ignore)
          return rc;
      }
    }
    return ignore ? OLC_PLUGIN_OK : last;
  }
  return mock_emit_spins(sink, m->spins, m->spin_count);
}

/* Accepts exactly "spin_us=N" with 1 <= N <= 1000000. */
static int32_t mock_validate(void *instance, const void *bytes, uint64_t len, void **policy) {
  const mock_instance *m = instance;
  char text[32];
  char *end;
  unsigned long v;
  if (strcmp(m->validate_mode, "reject") == 0) {
    mock_error(OLC_PLUGIN_E_INVALID, "rejected on purpose");
    return OLC_PLUGIN_E_INVALID;
  }
  if (mock_policy_text(text, sizeof text, bytes, len, 9) != 0)
    return OLC_PLUGIN_E_INVALID;
  if (strncmp(text, "spin_us=", 8) != 0) {
    mock_error(OLC_PLUGIN_E_INVALID, "policy does not start with spin_us=");
    return OLC_PLUGIN_E_INVALID;
  }
  v = strtoul(text + 8, &end, 10);
  if (*end != 0 || v == 0 || v > 1000000ul || text[8] < '0' || text[8] > '9') {
    mock_error(OLC_PLUGIN_E_INVALID, "spin_us out of range");
    return OLC_PLUGIN_E_INVALID;
  }
  return mock_validated(policy, (uint32_t)v);
}

static int32_t mock_serialize(void *instance, const void *policy, const olc_plugin_byte_sink *out) {
  static const char zeros[64 * 1024];
  const mock_instance *m = instance;
  const mock_policy *p = policy;
  if (strcmp(m->serialize_mode, "fail") == 0) {
    mock_error(OLC_PLUGIN_E_FAILED, "serialize failed on purpose");
    return OLC_PLUGIN_E_FAILED;
  }
  if (strcmp(m->serialize_mode, "huge") == 0) {
    int k;
    for (k = 0; k < 40; k++) { /* 2.5 MiB, past the host's 1 MiB cap */
      int32_t rc = out->write(out->ctx, zeros, sizeof zeros);
      if (rc != OLC_PLUGIN_OK)
        return rc;
    }
    return OLC_PLUGIN_OK;
  }
  return mock_write_policy(out, "spin_us=", p);
}

static int32_t collect_bytes(void *ctx, const void *bytes, uint64_t len) {
  char *dst = ctx;
  size_t have = strlen(dst);
  if (have + len >= 32)
    return OLC_PLUGIN_E_LIMIT;
  memcpy(dst + have, bytes, (size_t)len);
  dst[have + len] = 0;
  return OLC_PLUGIN_OK;
}

/* lazy = 1: what a backend that calibrates at run time does. */
static void mock_lazy(mock_instance *m, const olc_plugin_workload *w, const mock_policy *p) {
  char found[32] = "";
  olc_plugin_byte_sink sink = {sizeof(olc_plugin_byte_sink), OLC_PLUGIN_ABI_MINOR, found,
                               collect_bytes};
  int32_t rc = mock_host->store_lookup(mock_host->ctx, m, w, &sink);
  if (rc == OLC_PLUGIN_OK) {
    char line[64];
    snprintf(line, sizeof line, "lazy: found %s", found);
    mock_log(OLC_PLUGIN_LOG_INFO, line);
  } else if (rc == OLC_PLUGIN_E_NOT_FOUND) {
    char text[32];
    int n = snprintf(text, sizeof text, "spin_us=%u", (unsigned)p->spin_us);
    olc_plugin_measurement ms = {"median_latency", (double)p->spin_us, "us"};
    rc = mock_host->store_save(mock_host->ctx, m, w, text, (uint64_t)n, &ms, 1);
    mock_log(OLC_PLUGIN_LOG_INFO, rc == OLC_PLUGIN_OK ? "lazy: saved" : "lazy: save failed");
  } else {
    mock_log(OLC_PLUGIN_LOG_WARN, "lazy: lookup failed");
  }
}

static int32_t mock_run(void *instance, const olc_plugin_workload *w, void *state,
                        const void *policy) {
  mock_instance *m = instance;
  const mock_policy *p = policy;
  uint64_t wait;
  if (strcmp(m->run_mode, "fail") == 0) {
    mock_error(OLC_PLUGIN_E_FAILED, "run failed on purpose");
    return OLC_PLUGIN_E_FAILED;
  }
  if (strcmp(m->run_mode, "fail_multiline") == 0) {
    mock_log(OLC_PLUGIN_LOG_WARN, "two\nlines");
    mock_error(OLC_PLUGIN_E_FAILED, "first line\nsecond line");
    return OLC_PLUGIN_E_FAILED;
  }
  if (strcmp(m->run_mode, "fail_markup") == 0) {
    mock_error(OLC_PLUGIN_E_FAILED, "<script>alert(1)</script><b onclick=\"x\">'&amp;");
    return OLC_PLUGIN_E_FAILED;
  }
  if (strcmp(m->run_mode, "fail_bad_utf8") == 0) {
    mock_error(OLC_PLUGIN_E_FAILED, "bad \xff byte");
    return OLC_PLUGIN_E_FAILED;
  }
  if (p == NULL) {
    mock_error(OLC_PLUGIN_E_INVALID, "run without a policy");
    return OLC_PLUGIN_E_INVALID;
  }
  if (m->expect_constants != 0) {
    uint32_t got =
        OLC_PLUGIN_HAS_FIELD(w, olc_plugin_workload, constant_inputs) ? w->constant_inputs : 0u;
    if (got != (uint32_t)m->expect_constants) {
      char line[80];
      snprintf(line, sizeof line, "run: constant_inputs %u, expected %d", (unsigned)got,
               m->expect_constants);
      mock_error(OLC_PLUGIN_E_FAILED, line);
      return OLC_PLUGIN_E_FAILED;
    }
  }

  if (m->cold && state == m->last_state) {
    mock_error(OLC_PLUGIN_E_FAILED, "run on the state of the run before: operands still cached");
    return OLC_PLUGIN_E_FAILED;
  }
  if (m->fail_spin != 0 && p->spin_us == m->fail_spin && ++m->fail_seen >= m->fail_run) {
    mock_error(OLC_PLUGIN_E_FAILED, "run failed on purpose");
    return OLC_PLUGIN_E_FAILED;
  }
  m->last_state = state;
  mock_print("run");
  trace_call(m, "run", p->spin_us);
  if (state != NULL)
    (*(uint64_t *)state)++;
  if (m->lazy)
    mock_lazy(m, w, p);
  wait = (uint64_t)p->spin_us * 1000u;
  if (m->stall_spin != 0 && p->spin_us == m->stall_spin && ++m->stall_seen == m->stall_run)
    wait = wait * m->stall_percent / 100u;
  if (m->jitter_spin != 0 && p->spin_us == m->jitter_spin) {
    static const unsigned quarters[3] = {2u, 4u, 8u};
    wait = wait * quarters[m->jitter_seen++ % 3u] / 4u;
  }
  mock_busy_wait(wait);
  return OLC_PLUGIN_OK;
}

static int32_t mock_prepare(void *instance, const olc_plugin_workload *w, void **state) {
  (void)instance;
  (void)w;
  *state = calloc(1, sizeof(uint64_t)); /* counts runs */
  return *state != NULL ? OLC_PLUGIN_OK : OLC_PLUGIN_E_NOMEM;
}

static void mock_unprepare(void *instance, void *state) {
  (void)instance;
  free(state);
}

/* 2*m*n*k when the workload has m, n and k. */
static int32_t mock_flops(void *instance, const olc_plugin_workload *w, double *flops) {
  double dims[3] = {0, 0, 0};
  static const char *const names[3] = {"m", "n", "k"};
  uint32_t i;
  int d;
  (void)instance;
  for (i = 0; i < w->property_count; i++)
    for (d = 0; d < 3; d++)
      if (strcmp(w->properties[i].key, names[d]) == 0)
        dims[d] = strtod(w->properties[i].value, NULL);
  if (dims[0] <= 0 || dims[1] <= 0 || dims[2] <= 0)
    return OLC_PLUGIN_E_UNSUPPORTED;
  *flops = 2.0 * dims[0] * dims[1] * dims[2];
  return OLC_PLUGIN_OK;
}

static int32_t exec_fail(int32_t code, const char *message) {
  mock_error(code, message);
  return code;
}

/* What the mock executes: an fp32 matrix of rank 2, row-major (MOCK_VIEWS:
 * any strides, as the host hands a plugin that takes views). */
static int32_t exec_check(const olc_plugin_tensor *t) {
  if (t->dtype != OLC_PLUGIN_DTYPE_FLOAT32)
    return exec_fail(OLC_PLUGIN_E_UNSUPPORTED, "execute: only float32 operands");
#if defined(MOCK_VIEWS)
  if (t->rank != 2) {
    char line[80];
    snprintf(line, sizeof line, "execute: only rank-2 operands (rank %u reached the plugin)",
             (unsigned)t->rank);
    return exec_fail(OLC_PLUGIN_E_UNSUPPORTED, line);
  }
#else
  if (t->rank != 2)
    return exec_fail(OLC_PLUGIN_E_UNSUPPORTED, "execute: only rank-2 operands (no batches)");
  if (t->strides[1] != 1)
    return exec_fail(OLC_PLUGIN_E_UNSUPPORTED, "execute: only row-major operands");
#endif
  return OLC_PLUGIN_OK;
}

/* ---- packed constants (ABI 1.3): a dense row-major copy of the operand,
 * tagged with the policy it was packed for; counted for the tests
 * (mock_pack_counters). */

#define MOCK_PACKED_LIVE 0x70616b64u
#define MOCK_PACKED_DEAD 0x64656164u

typedef struct mock_packed {
  uint32_t magic;
  uint32_t spin_us; /* the policy's */
  int64_t rows, cols;
  float data[];
} mock_packed;

static _Atomic uint64_t mock_packs, mock_releases, mock_bad_releases, mock_packed_reads,
    mock_pack_calls;

/* For the tests (found with dlsym; counted over the process's hosts):
 * pack calls that packed, release_packed calls, releases of a copy that
 * was not live (released twice), executes that read a packed copy, and
 * every pack call. */
/* Exported where the runtime tests run (POSIX); a Windows plugin exports
 * its entry alone (mingw_cross checks). */
#if defined(_WIN32)
#define MOCK_TEST_EXPORT
#else
#define MOCK_TEST_EXPORT OLC_PLUGIN_EXPORT
#endif
MOCK_TEST_EXPORT void mock_pack_counters(uint64_t out[5]);
MOCK_TEST_EXPORT void mock_pack_counters(uint64_t out[5]) {
  out[0] = atomic_load(&mock_packs);
  out[1] = atomic_load(&mock_releases);
  out[2] = atomic_load(&mock_bad_releases);
  out[3] = atomic_load(&mock_packed_reads);
  out[4] = atomic_load(&mock_pack_calls);
}

/* Calls of execute and of matmul_f32 (ABI 1.5, MOCK_MATMUL_F32), for the
 * tests (found with dlsym, counted over the process's hosts). */
static _Atomic uint64_t mock_execute_calls, mock_matmul_calls;
MOCK_TEST_EXPORT void mock_call_counters(uint64_t out[2]);
MOCK_TEST_EXPORT void mock_call_counters(uint64_t out[2]) {
  out[0] = atomic_load(&mock_execute_calls);
  out[1] = atomic_load(&mock_matmul_calls);
}

static int32_t mock_pack(void *instance, const olc_plugin_workload *w, const void *policy,
                         uint32_t input, const olc_plugin_tensor *t, void **packed,
                         uint64_t *bytes) {
  const mock_instance *m = instance;
  mock_packed *p;
  int64_t i, j;
  (void)w;
  atomic_fetch_add(&mock_pack_calls, 1);
  if (strcmp(m->pack_mode, "unsupported") == 0 || input != 1)
    return exec_fail(OLC_PLUGIN_E_UNSUPPORTED, "pack: not packed");
  if (strcmp(m->pack_mode, "fail") == 0)
    return exec_fail(OLC_PLUGIN_E_FAILED, "pack failed on purpose");
  if (policy == NULL || t->rank != 2 || t->dtype != OLC_PLUGIN_DTYPE_FLOAT32)
    return exec_fail(OLC_PLUGIN_E_UNSUPPORTED, "pack: only a float32 matrix");
  p = malloc(sizeof *p + (size_t)(t->dims[0] * t->dims[1]) * sizeof(float));
  if (p == NULL)
    return OLC_PLUGIN_E_NOMEM;
  p->magic = MOCK_PACKED_LIVE;
  p->spin_us = ((const mock_policy *)policy)->spin_us;
  p->rows = t->dims[0];
  p->cols = t->dims[1];
  for (i = 0; i < p->rows; i++)
    for (j = 0; j < p->cols; j++)
      p->data[i * p->cols + j] = ((const float *)t->data)[i * t->strides[0] + j * t->strides[1]];
  *packed = p;
  *bytes = sizeof *p + (uint64_t)(p->rows * p->cols) * sizeof(float);
  atomic_fetch_add(&mock_packs, 1);
  return OLC_PLUGIN_OK;
}

static void mock_release_packed(void *instance, void *packed) {
  mock_packed *p = packed;
  (void)instance;
  if (p == NULL)
    return;
  atomic_fetch_add(&mock_releases, 1);
  if (p->magic != MOCK_PACKED_LIVE) {
    atomic_fetch_add(&mock_bad_releases, 1);
    return;
  }
  p->magic = MOCK_PACKED_DEAD;
  free(p);
}

/* B as execute reads it: the packed copy when the host hands one (made for
 * this very policy), else the operand. */
static int32_t operand_b(const float **data, int64_t *s0, int64_t *s1,
                         const olc_plugin_exec_args *a, const mock_policy *policy) {
  const olc_plugin_tensor *B = &a->inputs[1];
  const mock_packed *p = NULL;
  if (OLC_PLUGIN_HAS_FIELD(a, olc_plugin_exec_args, packed) && a->packed != NULL)
    p = a->packed[1];
  if (p == NULL) {
    *data = B->data;
    *s0 = B->strides[0];
    *s1 = B->strides[1];
    return OLC_PLUGIN_OK;
  }
  if (p->magic != MOCK_PACKED_LIVE)
    return exec_fail(OLC_PLUGIN_E_FAILED, "execute: B's packed copy was released");
  if (p->spin_us != policy->spin_us)
    return exec_fail(OLC_PLUGIN_E_FAILED, "execute: B was packed for another policy");
  if (p->rows != B->dims[0] || p->cols != B->dims[1])
    return exec_fail(OLC_PLUGIN_E_FAILED, "execute: B's packed copy has another shape");
  atomic_fetch_add_explicit(&mock_packed_reads, 1, memory_order_relaxed);
  *data = p->data;
  *s0 = p->cols;
  *s1 = 1;
  return OLC_PLUGIN_OK;
}

/* MatMul: C = alpha * A * B + beta * C, plainly (the reference itself). */
static int32_t mock_execute(void *instance, const olc_plugin_workload *w, const void *policy,
                            const olc_plugin_exec_args *a) {
  const mock_instance *m = instance;
  const olc_plugin_tensor *A, *B, *C;
  const float *bd;
  int64_t i, j, k, bs0, bs1;
  int32_t rc = OLC_PLUGIN_OK;
  uint32_t t;
  atomic_fetch_add(&mock_execute_calls, 1);
  if (strcmp(m->execute_mode, "fail") == 0)
    return exec_fail(OLC_PLUGIN_E_FAILED, "execute failed on purpose");
  if (w == NULL || w->operator_name == NULL || strcmp(w->operator_name, "MatMul") != 0)
    return exec_fail(OLC_PLUGIN_E_UNSUPPORTED, "execute: only MatMul");
  if (policy == NULL || a == NULL || a->input_count != 2 || a->output_count != 1)
    return exec_fail(OLC_PLUGIN_E_INVALID, "execute: MatMul takes a policy, A, B and C");
  A = &a->inputs[0];
  B = &a->inputs[1];
  C = &a->outputs[0];
  for (t = 0; t < 3 && rc == OLC_PLUGIN_OK; t++)
    rc = exec_check(t == 0 ? A : t == 1 ? B : C);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (B->dims[0] != A->dims[1] || C->dims[0] != A->dims[0] || C->dims[1] != B->dims[1])
    return exec_fail(OLC_PLUGIN_E_INVALID, "execute: A, B and C do not fit together");
  rc = operand_b(&bd, &bs0, &bs1, a, policy);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  trace_call(m, "execute", ((const mock_policy *)policy)->spin_us);
  for (i = 0; i < C->dims[0]; i++)
    for (j = 0; j < C->dims[1]; j++) {
      const float *ar = (const float *)A->data + i * A->strides[0];
      float *c = (float *)C->data + i * C->strides[0] + j * C->strides[1];
      double acc = 0;
      for (k = 0; k < A->dims[1]; k++)
        acc += (double)ar[k * A->strides[1]] * (double)bd[k * bs0 + j * bs1];
      *c = (float)(a->alpha * acc + (a->beta != 0 ? a->beta * (double)*c : 0.0));
    }
  /* A policy with a bug that one element shows (the numerical check's test). */
  if (m->wrong_spin != 0 && ((const mock_policy *)policy)->spin_us == m->wrong_spin &&
      C->dims[0] > 3 && C->dims[1] > 17)
    ((float *)C->data)[3 * C->strides[0] + 17 * C->strides[1]] += 1e-2f;
  return OLC_PLUGIN_OK;
}

static const char *const mock_operators[] = {"MatMul", "Conv"};

/* The numerical check's tolerances (ABI 1.2).  MOCK_BAD_TOLERANCE declares
 * a negative one, which the host refuses to load. */
#if defined(MOCK_BAD_TOLERANCE)
#define MOCK_ATOL (-1e-4)
#else
#define MOCK_ATOL 1e-4
#endif
static const olc_plugin_tolerance mock_tolerances[] = {
    {sizeof(olc_plugin_tolerance), OLC_PLUGIN_ABI_MINOR, "MatMul", OLC_PLUGIN_DTYPE_FLOAT32, 0,
     MOCK_ATOL, 1e-4, NULL},
};

#if defined(MOCK_NO_OPERATORS)
#define MOCK_OPERATOR_COUNT 0
#else
#define MOCK_OPERATOR_COUNT 2
#endif
#if defined(MOCK_NULL_REQUIRED)
#define MOCK_RUN NULL
#else
#define MOCK_RUN mock_run
#endif
#if defined(MOCK_NO_EXECUTE)
#define MOCK_EXECUTE NULL
#else
#define MOCK_EXECUTE mock_execute
#endif
#if defined(MOCK_TABLE_MAJOR)
#define MOCK_ABI_MAJOR 2u
#else
#define MOCK_ABI_MAJOR OLC_PLUGIN_ABI_MAJOR
#endif

#if defined(MOCK_VIEWS)
#define MOCK_FEATURES OLC_PLUGIN_FEATURE_VIEWS
#else
#define MOCK_FEATURES 0u
#endif

#if defined(MOCK_DISTANCE)
/* ABI 1.4: a distance of its own, linear in m (the host's default is
 * logarithmic), every other property equal; `distance = refuse` in
 * [plugin.NAME] refuses every pair. */
static const char *mock_kv(const olc_plugin_kv *kv, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(kv[i].key, name) == 0)
      return kv[i].value;
  return NULL;
}

static int32_t mock_distance(void *instance, const char *operator_name, const olc_plugin_kv *a,
                             uint32_t a_count, const olc_plugin_kv *b, uint32_t b_count,
                             double *distance) {
  const mock_instance *m = instance;
  const char *ma = mock_kv(a, a_count, "m"), *mb = mock_kv(b, b_count, "m");
  (void)operator_name;
  if (strcmp(m->distance_mode, "refuse") == 0 || a_count != b_count || ma == NULL || mb == NULL)
    return OLC_PLUGIN_E_UNSUPPORTED;
  for (uint32_t i = 0; i < a_count; i++) {
    const char *v = mock_kv(b, b_count, a[i].key);
    if (v == NULL || (strcmp(a[i].key, "m") != 0 && strcmp(v, a[i].value) != 0))
      return OLC_PLUGIN_E_UNSUPPORTED;
  }
  *distance = fabs(strtod(ma, NULL) - strtod(mb, NULL));
  return OLC_PLUGIN_OK;
}
#define MOCK_DISTANCE_FN mock_distance
#else
#define MOCK_DISTANCE_FN NULL
#endif

#if defined(MOCK_MATMUL_F32)
/* ABI 1.5: the plain product on operands the host checked, in double as
 * execute computes it; `execute = fail` fails it too. */
static int32_t mock_matmul_f32(void *instance, const olc_plugin_workload *w, const void *policy,
                               const olc_plugin_matmul_args *a) {
  const mock_instance *m = instance;
  int64_t i, j, k;
  atomic_fetch_add(&mock_matmul_calls, 1);
  if (strcmp(m->execute_mode, "fail") == 0)
    return exec_fail(OLC_PLUGIN_E_FAILED, "matmul_f32 failed on purpose");
  if (w == NULL || w->operator_name == NULL || strcmp(w->operator_name, "MatMul") != 0 ||
      policy == NULL)
    return exec_fail(OLC_PLUGIN_E_INVALID, "matmul_f32: a MatMul with a policy only");
  trace_call(m, "matmul_f32", ((const mock_policy *)policy)->spin_us);
  for (i = 0; i < a->m; i++)
    for (j = 0; j < a->n; j++) {
      float *c = a->c + i * a->ldc + j;
      double acc = 0;
      for (k = 0; k < a->k; k++)
        acc += (double)a->a[i * a->lda + k] * (double)a->b[k * a->ldb + j];
      *c = (float)((double)a->alpha * acc + (a->beta != 0 ? (double)a->beta * (double)*c : 0.0));
    }
  return OLC_PLUGIN_OK;
}
#define MOCK_MATMUL_FN mock_matmul_f32
#else
#define MOCK_MATMUL_FN NULL
#endif

#define MOCK_TABLE_BODY(size, minor)                                                               \
  MOCK_TABLE_INIT_V14(size, minor, MOCK_ABI_MAJOR, MOCK_NAME, MOCK_VERSION,                        \
                      "mock plugin for the host tests", mock_operators, MOCK_OPERATOR_COUNT,       \
                      mock_create, mock_destroy, mock_key, mock_candidates, mock_validate,         \
                      mock_serialize, mock_release, MOCK_RUN, mock_prepare, mock_unprepare,        \
                      mock_flops, MOCK_EXECUTE, mock_tolerances, 1, MOCK_FEATURES, mock_pack,      \
                      mock_release_packed, MOCK_DISTANCE_FN),                                      \
      .matmul_f32 = MOCK_MATMUL_FN

#if defined(MOCK_NEWER_MINOR)
/* A plugin built against a future 1.3 header: the table grew by appending. */
typedef struct mock_plugin_v1_3 {
  olc_plugin base;
  int32_t (*future_function)(void *instance);
  uint64_t future_field;
} mock_plugin_v1_3;
static const mock_plugin_v1_3 mock_table_ext = {
    .base = {MOCK_TABLE_BODY((uint32_t)sizeof(mock_plugin_v1_3), OLC_PLUGIN_ABI_MINOR + 3u)},
    .future_function = NULL,
    .future_field = 42};
#define MOCK_TABLE (&mock_table_ext.base)
#elif defined(MOCK_ABI_1_2)
/* A plugin built against the 1.2 header: its table ends before features.
 * What lies beyond (MOCK_VIEWS sets the feature there) must never be read. */
static const olc_plugin mock_table = {
    MOCK_TABLE_BODY((uint32_t)offsetof(olc_plugin, features), 2u)};
#define MOCK_TABLE (&mock_table)
#elif defined(MOCK_ABI_1_0)
/* A plugin built against the 1.0 header: its table ends at flops.  The
 * execute beyond it must never be read. */
static const olc_plugin mock_table = {MOCK_TABLE_BODY((uint32_t)offsetof(olc_plugin, execute), 0u)};
#define MOCK_TABLE (&mock_table)
#elif defined(MOCK_STRUCT_TOO_SMALL)
/* A table that claims to end before prepare: smaller than ABI 1.0. */
static const olc_plugin mock_table = {
    MOCK_TABLE_BODY((uint32_t)offsetof(olc_plugin, prepare), OLC_PLUGIN_ABI_MINOR)};
#define MOCK_TABLE (&mock_table)
#else
static const olc_plugin mock_table = {
    MOCK_TABLE_BODY((uint32_t)sizeof(olc_plugin), OLC_PLUGIN_ABI_MINOR)};
#define MOCK_TABLE (&mock_table)
#endif

#if defined(MOCK_NO_ENTRY)
/* Exported, but under another name: the host finds no entry symbol. */
MOCK_ENTRY_POINT(olc_plugin_entry_v0)
#else
MOCK_ENTRY_POINT(olc_plugin_entry)
#endif
{
  mock_host = host;
  mock_print("entry");
#if defined(MOCK_NULL_REQUIRED)
  (void)mock_run; /* built, but not in the table */
#endif
#if defined(MOCK_NO_EXECUTE)
  (void)mock_execute;
#endif
#if defined(MOCK_ENTRY_ERROR)
  (void)host_abi_major;
  (void)plugin;
  (void)MOCK_TABLE;
  mock_error(OLC_PLUGIN_E_FAILED, "entry refused on purpose");
  return OLC_PLUGIN_E_FAILED;
#elif defined(MOCK_WRONG_MAJOR)
  /* Built for a future major 2: refuses the host's 1. */
  if (host_abi_major != 2u) {
    mock_error(OLC_PLUGIN_E_ABI, "mock speaks abi major 2 only");
    return OLC_PLUGIN_E_ABI;
  }
  *plugin = MOCK_TABLE;
  return OLC_PLUGIN_OK;
#else
  return mock_hand_table(host_abi_major, plugin, MOCK_TABLE);
#endif
}
