/*
 * tests/hostile/hostile_plugin.c - one source, many hostile plugins.
 *
 * Without a HOSTILE_* definition it is a small working plugin: a policy is
 * the text "p=N", candidates are p=3 and p=1, run() spins N microseconds on
 * the host's clock.  Each HOSTILE_* definition (hostile.cmake) breaks one
 * thing, at load time (the table, the entry) or at run time (key,
 * candidates, serialize, validate, prepare, run, flops, the host
 * services), so test_hostile_plugins.c can check the host reports each one
 * and keeps the store intact.  README.md lists the kinds.
 *
 * Like every plugin it links only the ABI header.  The deliberate misuse
 * (writing to stdout, flooding the log) is what a careless plugin does.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "olc/plugin.h"

#ifndef HOSTILE_NAME
#define HOSTILE_NAME "hostile_ok"
#endif

static const olc_plugin_host *hp_host;

typedef struct hp_policy {
  uint32_t n;
} hp_policy;

static void hp_error(int32_t code, const char *message) {
  if (hp_host != NULL && hp_host->set_error != NULL)
    hp_host->set_error(hp_host->ctx, code, message);
}

static void hp_log(int32_t level, const char *message) {
  if (hp_host != NULL && hp_host->log != NULL)
    hp_host->log(hp_host->ctx, level, message);
}

/* Bytes that a text format must escape: NUL, newline, quote, backslash,
 * CR, a lone continuation byte, 0xff, tab and a '#'. */
static const char hp_garbage[] = "\0\n\"\\\r\x80\xff\t# ]=[x";
#define HP_GARBAGE_LEN (sizeof hp_garbage - 1)

static int32_t hp_create(const olc_plugin_host *host, const olc_plugin_kv *config,
                         uint32_t config_count, uint32_t thread_count, void **instance) {
  (void)config;
  (void)config_count;
  (void)thread_count;
  hp_host = host;
#if defined(HOSTILE_CREATE_NO_DETAIL)
  return OLC_PLUGIN_E_FAILED; /* and no set_error */
#elif defined(HOSTILE_LOG_FLOOD)
  {
    static char big[1024 * 1024];
    int i;
    memset(big, 'L', sizeof big - 1);
    big[100] = '\n';
    for (i = 0; i < 10000; i++)
      hp_log(i % 7 - 2, "flood"); /* levels -2..4: out of range too */
    hp_log(OLC_PLUGIN_LOG_ERROR, big);
    hp_log(OLC_PLUGIN_LOG_ERROR, NULL);
    hp_log(99, "\xff\xfe not utf-8");
    hp_error(OLC_PLUGIN_E_FAILED, NULL); /* set_error without a failure */
    hp_error(OLC_PLUGIN_E_FAILED, big);
  }
#elif defined(HOSTILE_STDOUT)
  printf("hostile_stdout: create writes to the host's stdout\n");
  fprintf(stderr, "hostile_stdout: and to its stderr\n");
  fflush(stdout);
#endif
  *instance = malloc(16);
  return *instance != NULL ? OLC_PLUGIN_OK : OLC_PLUGIN_E_NOMEM;
}

static void hp_destroy(void *instance) { free(instance); }

static int32_t hp_key(void *instance, const olc_plugin_workload *w,
                      const olc_plugin_key_sink *sink) {
  int32_t rc = OLC_PLUGIN_OK;
  uint32_t i;
  (void)instance;
#if defined(HOSTILE_KEY_FAILS)
  (void)w;
  (void)sink;
  (void)rc;
  (void)i;
  hp_error(OLC_PLUGIN_E_FAILED, "key failed on purpose");
  return OLC_PLUGIN_E_FAILED;
#else
#if defined(HOSTILE_KEY_HUGE)
  {
    /* 1 MiB processor, far past the 4 KiB cap: the sink must refuse. */
    static char huge[1024 * 1024 + 1];
    memset(huge, 'p', sizeof huge - 1);
    rc = sink->set_processor(sink->ctx, huge);
    if (rc == OLC_PLUGIN_OK)
      hp_error(OLC_PLUGIN_E_FAILED, "the host accepted a 1 MiB processor");
  }
#elif !defined(HOSTILE_KEY_NO_PROCESSOR)
  rc = sink->set_processor(sink->ctx, "hostile-cpu");
#endif
  /* A key that ignores the sink's refusal and goes on. */
#if defined(HOSTILE_KEY_ZERO_THREADS)
  (void)sink->set_thread_count(sink->ctx, 0);
#else
  (void)sink->set_thread_count(sink->ctx, 1);
#endif
  for (i = 0; i < w->property_count; i++)
    (void)sink->add_structure(sink->ctx, w->properties[i].key, w->properties[i].value);
  return rc == OLC_PLUGIN_OK ? OLC_PLUGIN_OK : rc;
#endif
}

static hp_policy *hp_new(uint32_t n) {
  hp_policy *p = malloc(sizeof *p);
  if (p != NULL)
    p->n = n;
  return p;
}

static int32_t hp_candidates(void *instance, const olc_plugin_workload *w,
                             const olc_plugin_policy_sink *sink) {
  int32_t rc;
  (void)instance;
  (void)w;
#if defined(HOSTILE_DUP_CANDIDATES)
  {
    int i;
    for (i = 0; i < 200; i++) /* the same policy, 200 times, past the cap */
      (void)sink->emit(sink->ctx, hp_new(2));
    return OLC_PLUGIN_OK;
  }
#endif
  rc = sink->emit(sink->ctx, hp_new(3));
  if (rc == OLC_PLUGIN_OK)
    rc = sink->emit(sink->ctx, hp_new(1));
#if defined(HOSTILE_CANDIDATES_FAIL)
  /* Fails after emitting: the two policies must still be released. */
  (void)rc;
  hp_error(OLC_PLUGIN_E_FAILED, "candidates failed after emitting two");
  return OLC_PLUGIN_E_FAILED;
#else
  return rc;
#endif
}

static int32_t hp_validate(void *instance, const void *bytes, uint64_t len, void **policy) {
  char text[16];
  unsigned long n;
  char *end;
  (void)instance;
#if defined(HOSTILE_VALIDATE_GARBAGE)
  /* Accepts anything at all, as long as it can make a policy. */
  (void)text;
  (void)n;
  (void)end;
  (void)bytes;
  (void)len;
  if (policy != NULL && (*policy = hp_new(1)) == NULL)
    return OLC_PLUGIN_E_NOMEM;
  return OLC_PLUGIN_OK;
#else
#if defined(HOSTILE_VALIDATE_REJECTS_OWN)
  hp_error(OLC_PLUGIN_E_INVALID, "rejects even its own policies");
  return OLC_PLUGIN_E_INVALID;
#endif
  if (len < 3 || len >= sizeof text) {
    hp_error(OLC_PLUGIN_E_INVALID, "policy length out of range");
    return OLC_PLUGIN_E_INVALID;
  }
  memcpy(text, bytes, (size_t)len);
  text[len] = 0;
  n = strtoul(text + 2, &end, 10);
  if (strncmp(text, "p=", 2) != 0 || *end != 0 || n == 0 || n > 1000) {
    hp_error(OLC_PLUGIN_E_INVALID, "not a p=N policy");
    return OLC_PLUGIN_E_INVALID;
  }
  if (policy != NULL && (*policy = hp_new((uint32_t)n)) == NULL)
    return OLC_PLUGIN_E_NOMEM;
  return OLC_PLUGIN_OK;
#endif
}

static int32_t hp_serialize(void *instance, const void *policy, const olc_plugin_byte_sink *out) {
  const hp_policy *p = policy;
  char text[16];
  int n;
  (void)instance;
  (void)text;
  (void)n;
#if defined(HOSTILE_VALIDATE_GARBAGE)
  /* The policy's bytes are binary garbage (plus its number, so the two
   * candidates differ). */
  {
    int32_t rc = out->write(out->ctx, hp_garbage, HP_GARBAGE_LEN);
    char c = (char)('0' + p->n % 10u);
    return rc != OLC_PLUGIN_OK ? rc : out->write(out->ctx, &c, 1);
  }
#elif defined(HOSTILE_SERIALIZE_NULL)
  (void)text;
  (void)n;
  (void)p;
  return out->write(out->ctx, NULL, 5); /* bytes NULL with a length */
#else
  n = snprintf(text, sizeof text, "p=%u", (unsigned)p->n);
  return out->write(out->ctx, text, (uint64_t)n);
#endif
}

static void hp_release(void *instance, void *policy) {
  (void)instance;
  free(policy);
}

static int32_t hp_run(void *instance, const olc_plugin_workload *w, void *state,
                      const void *policy) {
  const hp_policy *p = policy;
  uint64_t start;
  (void)instance;
  (void)w;
  (void)state;
#if defined(HOSTILE_RUN_FAILS)
  (void)p;
  (void)start;
  hp_error(OLC_PLUGIN_E_FAILED, "run failed on purpose");
  return OLC_PLUGIN_E_FAILED;
#elif defined(HOSTILE_RUN_STATUS)
  (void)p;
  (void)start;
  return 12345; /* not a status the ABI defines, and no detail */
#elif defined(HOSTILE_ERROR_ABUSE)
  {
    /* A 64 KiB multi-line, partly non-UTF-8 error message. */
    static char msg[64 * 1024];
    size_t i;
    (void)p;
    (void)start;
    for (i = 0; i + 1 < sizeof msg; i++)
      msg[i] = (char)(i % 97 == 0 ? '\n' : 'a' + (char)(i % 26));
    msg[sizeof msg - 1] = 0;
    hp_error(OLC_PLUGIN_E_FAILED, NULL);
    hp_error(OLC_PLUGIN_E_FAILED, msg);
    return OLC_PLUGIN_E_FAILED;
  }
#else
#if defined(HOSTILE_STDOUT)
  printf("hostile_stdout: run %u\n", (unsigned)p->n);
#endif
  start = hp_host->now_ns(hp_host->ctx);
  while (hp_host->now_ns(hp_host->ctx) - start < (uint64_t)p->n * 1000u) {
  }
  return OLC_PLUGIN_OK;
#endif
}

static int32_t hp_prepare(void *instance, const olc_plugin_workload *w, void **state) {
  (void)instance;
  (void)w;
#if defined(HOSTILE_PREPARE_FAILS)
  *state = NULL;
  hp_error(OLC_PLUGIN_E_NOMEM, "prepare could not allocate on purpose");
  return OLC_PLUGIN_E_NOMEM;
#else
  *state = NULL;
  return OLC_PLUGIN_OK;
#endif
}

static void hp_unprepare(void *instance, void *state) {
  (void)instance;
  (void)state;
}

static int32_t hp_flops(void *instance, const olc_plugin_workload *w, double *flops) {
  (void)instance;
  (void)w;
#if defined(HOSTILE_FLOPS_INF)
  *flops = HUGE_VAL; /* +inf: must not end up as a measurement */
#else
  *flops = 1000.0;
#endif
  return OLC_PLUGIN_OK;
}

/* ---------------------------------------------------------------- table */

#if defined(HOSTILE_BAD_OPERATOR)
static const char *const hp_operators[] = {"Mat\xffMul"};
#else
static const char *const hp_operators[] = {"MatMul"};
#endif

#if defined(HOSTILE_LONG_NAME)
#define HP_NAME                                                                                    \
  "hostile_long_name_" /* 18 + 50 = 68 bytes, cap 64 */                                            \
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#elif defined(HOSTILE_EMPTY_NAME)
#define HP_NAME ""
#else
#define HP_NAME HOSTILE_NAME
#endif
#if defined(HOSTILE_NO_VERSION)
#define HP_VERSION NULL
#else
#define HP_VERSION "1"
#endif
#if defined(HOSTILE_NULL_OPERATORS)
#define HP_OPERATORS NULL
#else
#define HP_OPERATORS hp_operators
#endif
#if defined(HOSTILE_MANY_OPERATORS)
#define HP_OPERATOR_COUNT 1000000u /* the array holds one */
#else
#define HP_OPERATOR_COUNT 1u
#endif

static const olc_plugin hp_table = {(uint32_t)sizeof(olc_plugin),
                                    OLC_PLUGIN_ABI_MINOR,
                                    OLC_PLUGIN_ABI_MAJOR,
                                    0,
                                    HP_NAME,
                                    HP_VERSION,
                                    "hostile plugin for the host tests",
                                    HP_OPERATORS,
                                    HP_OPERATOR_COUNT,
                                    0,
                                    hp_create,
                                    hp_destroy,
                                    hp_key,
                                    hp_candidates,
                                    hp_validate,
                                    hp_serialize,
                                    hp_release,
                                    hp_run,
                                    hp_prepare,
                                    hp_unprepare,
                                    hp_flops,
                                    NULL,
                                    NULL,
                                    0,
                                    0,
                                    NULL};

OLC_PLUGIN_EXPORT int32_t olc_plugin_entry(uint32_t host_abi_major, const olc_plugin_host *host,
                                           const olc_plugin **plugin);
OLC_PLUGIN_EXPORT int32_t olc_plugin_entry(uint32_t host_abi_major, const olc_plugin_host *host,
                                           const olc_plugin **plugin) {
  hp_host = host;
  (void)hp_log; /* used by some kinds only */
  (void)hp_garbage;
  (void)hp_error;
  (void)hp_operators;
  if (host_abi_major != OLC_PLUGIN_ABI_MAJOR)
    return OLC_PLUGIN_E_ABI;
#if defined(HOSTILE_STDOUT)
  printf("hostile_stdout: entry writes to the host's stdout\n");
  fflush(stdout);
#endif
#if defined(HOSTILE_NULL_TABLE)
  *plugin = NULL; /* success, and no table */
  (void)hp_table;
  return OLC_PLUGIN_OK;
#elif defined(HOSTILE_ENTRY_STATUS)
  *plugin = &hp_table; /* a table, and a status the ABI does not define */
  return 12345;
#else
  *plugin = &hp_table;
  return OLC_PLUGIN_OK;
#endif
}
