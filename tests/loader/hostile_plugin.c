/*
 * tests/loader/hostile_plugin.c - one source, many hostile plugins.
 *
 * Without a HOSTILE_* definition it is a small working plugin: a policy is
 * the text "p=N", candidates are p=3 and p=1, run() spins N microseconds on
 * the host's clock.  Each HOSTILE_* definition (hostile_plugins.cmake) breaks one
 * thing, at load time (the table, the entry) or at run time (key,
 * candidates, serialize, validate, prepare, run, flops, the host
 * services), so test_hostile_plugins.c can check the host reports each one
 * and keeps the store intact.  hostile_plugins.md lists the kinds.
 *
 * Like every plugin it links only the ABI header.  The deliberate misuse
 * (writing to stdout, flooding the log) is what a careless plugin does.
 */
#include <math.h>

#include "mock_scaffold.h"

#ifndef HOSTILE_NAME
#define HOSTILE_NAME "hostile_ok"
#endif

/* Bytes that a text format must escape: NUL, newline, quote, backslash,
 * CR, a lone continuation byte, 0xff, tab and a '#'. */
static const char hp_garbage[] = "\0\n\"\\\r\x80\xff\t# ]=[x";
#define HP_GARBAGE_LEN (sizeof hp_garbage - 1)

static int32_t hp_create(const olc_plugin_host *host, const olc_plugin_kv *config,
                         uint32_t config_count, uint32_t thread_count, void **instance) {
  (void)config;
  (void)config_count;
  (void)thread_count;
  mock_host = host;
#if defined(HOSTILE_CREATE_NO_DETAIL)
  return OLC_PLUGIN_E_FAILED; /* and no set_error */
#elif defined(HOSTILE_LOG_FLOOD)
  {
    static char big[1024 * 1024];
    int i;
    memset(big, 'L', sizeof big - 1);
    big[100] = '\n';
    for (i = 0; i < 10000; i++)
      mock_log(i % 7 - 2, "flood"); /* levels -2..4: out of range too */
    mock_log(OLC_PLUGIN_LOG_ERROR, big);
    mock_log(OLC_PLUGIN_LOG_ERROR, NULL);
    mock_log(99, "\xff\xfe not utf-8");
    mock_error(OLC_PLUGIN_E_FAILED, NULL); /* set_error without a failure */
    mock_error(OLC_PLUGIN_E_FAILED, big);
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
  mock_error(OLC_PLUGIN_E_FAILED, "key failed on purpose");
  return OLC_PLUGIN_E_FAILED;
#else
#if defined(HOSTILE_KEY_HUGE)
  {
    /* 1 MiB processor, far past the 4 KiB cap: the sink must refuse. */
    static char huge[1024 * 1024 + 1];
    memset(huge, 'p', sizeof huge - 1);
    rc = sink->set_processor(sink->ctx, huge);
    if (rc == OLC_PLUGIN_OK)
      mock_error(OLC_PLUGIN_E_FAILED, "the host accepted a 1 MiB processor");
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

static int32_t hp_candidates(void *instance, const olc_plugin_workload *w,
                             const olc_plugin_policy_sink *sink) {
  int32_t rc;
  (void)instance;
  (void)w;
#if defined(HOSTILE_DUP_CANDIDATES)
  {
    int i;
    for (i = 0; i < 200; i++) /* the same policy, 200 times, past the cap */
      (void)sink->emit(sink->ctx, new_policy(2));
    return OLC_PLUGIN_OK;
  }
#endif
  rc = sink->emit(sink->ctx, new_policy(3));
  if (rc == OLC_PLUGIN_OK)
    rc = sink->emit(sink->ctx, new_policy(1));
#if defined(HOSTILE_CANDIDATES_FAIL)
  /* Fails after emitting: the two policies must still be released. */
  (void)rc;
  mock_error(OLC_PLUGIN_E_FAILED, "candidates failed after emitting two");
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
  return mock_validated(policy, 1);
#else
#if defined(HOSTILE_VALIDATE_REJECTS_OWN)
  mock_error(OLC_PLUGIN_E_INVALID, "rejects even its own policies");
  return OLC_PLUGIN_E_INVALID;
#endif
  if (mock_policy_text(text, sizeof text, bytes, len, 3) != 0)
    return OLC_PLUGIN_E_INVALID;
  n = strtoul(text + 2, &end, 10);
  if (strncmp(text, "p=", 2) != 0 || *end != 0 || n == 0 || n > 1000) {
    mock_error(OLC_PLUGIN_E_INVALID, "not a p=N policy");
    return OLC_PLUGIN_E_INVALID;
  }
  return mock_validated(policy, (uint32_t)n);
#endif
}

static int32_t hp_serialize(void *instance, const void *policy, const olc_plugin_byte_sink *out) {
  const mock_policy *p = policy;
  (void)instance;
#if defined(HOSTILE_VALIDATE_GARBAGE)
  /* The policy's bytes are binary garbage (plus its number, so the two
   * candidates differ). */
  {
    int32_t rc = out->write(out->ctx, hp_garbage, HP_GARBAGE_LEN);
    char c = (char)('0' + p->spin_us % 10u);
    return rc != OLC_PLUGIN_OK ? rc : out->write(out->ctx, &c, 1);
  }
#elif defined(HOSTILE_SERIALIZE_NULL)
  (void)p;
  return out->write(out->ctx, NULL, 5); /* bytes NULL with a length */
#else
  return mock_write_policy(out, "p=", p);
#endif
}

static int32_t hp_run(void *instance, const olc_plugin_workload *w, void *state,
                      const void *policy) {
  const mock_policy *p = policy;
  (void)instance;
  (void)w;
  (void)state;
#if defined(HOSTILE_RUN_FAILS)
  (void)p;
  mock_error(OLC_PLUGIN_E_FAILED, "run failed on purpose");
  return OLC_PLUGIN_E_FAILED;
#elif defined(HOSTILE_RUN_STATUS)
  (void)p;
  return 12345; /* not a status the ABI defines, and no detail */
#elif defined(HOSTILE_ERROR_ABUSE)
  {
    /* A 64 KiB multi-line, partly non-UTF-8 error message. */
    static char msg[64 * 1024];
    size_t i;
    (void)p;
    for (i = 0; i + 1 < sizeof msg; i++)
      msg[i] = (char)(i % 97 == 0 ? '\n' : 'a' + (char)(i % 26));
    msg[sizeof msg - 1] = 0;
    mock_error(OLC_PLUGIN_E_FAILED, NULL);
    mock_error(OLC_PLUGIN_E_FAILED, msg);
    return OLC_PLUGIN_E_FAILED;
  }
#else
#if defined(HOSTILE_STDOUT)
  printf("hostile_stdout: run %u\n", (unsigned)p->spin_us);
#endif
  mock_busy_wait((uint64_t)p->spin_us * 1000u);
  return OLC_PLUGIN_OK;
#endif
}

static int32_t hp_prepare(void *instance, const olc_plugin_workload *w, void **state) {
  (void)instance;
  (void)w;
#if defined(HOSTILE_PREPARE_FAILS)
  *state = NULL;
  mock_error(OLC_PLUGIN_E_NOMEM, "prepare could not allocate on purpose");
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

static const olc_plugin hp_table = {MOCK_TABLE_INIT(
    (uint32_t)sizeof(olc_plugin), OLC_PLUGIN_ABI_MINOR, OLC_PLUGIN_ABI_MAJOR, HP_NAME, HP_VERSION,
    "hostile plugin for the host tests", HP_OPERATORS, HP_OPERATOR_COUNT, hp_create, hp_destroy,
    hp_key, hp_candidates, hp_validate, hp_serialize, mock_release, hp_run, hp_prepare,
    hp_unprepare, hp_flops, NULL, NULL, 0)};

MOCK_ENTRY_POINT(olc_plugin_entry) {
  mock_host = host;
  (void)hp_garbage; /* used by some kinds only */
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
