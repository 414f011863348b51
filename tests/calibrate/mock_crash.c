/*
 * tests/calibrate/mock_crash.c - a plugin whose run() misbehaves for chosen
 * candidates, for the crash-isolation tests.
 *
 * Like mock_det (tests/plugins): a policy is "spin_us=N" and run() busy-
 * waits N microseconds on the host's clock; candidates come from
 * [plugin.NAME] candidates = 300,101,200 (default 400,100,200).  Entries
 * name the candidate (by N) that misbehaves inside run():
 *
 *   segv = N    writes to an unmapped address (SIGSEGV)
 *   abort = N   abort() (SIGABRT)
 *   hang = N    sleeps forever
 *   busy = N    spins forever without calling anything
 *   exit = N    exit(3)
 *   fail = N    returns an error with "run failed on purpose"
 *   log = N     logs "run spin_us=N" (info) on every run of that candidate
 *               (log = all: of every candidate)
 *   after = K   the misbehaviour waits for that candidate's K-th run in
 *               this process (1, the first, by default): a candidate that
 *               passes its warm-up and screening and crashes in the final
 *   prepare = A the workload's prepare() does A (segv, abort, hang, exit or
 *               fail: "prepare failed on purpose") before any run
 *
 * Built once per MOCK_CRASH_DEFAULT variant (tests/calibrate/isolation.cmake):
 * the define sets the default misbehaviour "segv=101" etc. so that a
 * variant misbehaves without any config.
 */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#endif
#include <time.h>

#include "mock_scaffold.h"

#ifndef MOCK_NAME
#define MOCK_NAME "mock_crash"
#endif
#define MOCK_MAX 32

/* Read through a volatile so the compiler cannot see the fault coming. */
static volatile uintptr_t mock_bad_address = 16;

enum { ACT_NONE, ACT_SEGV, ACT_ABORT, ACT_HANG, ACT_BUSY, ACT_EXIT, ACT_FAIL, ACT_LOG, ACT_COUNT };
static const char *const act_names[ACT_COUNT] = {"",     "segv", "abort", "hang",
                                                 "busy", "exit", "fail",  "log"};

typedef struct mock_instance {
  uint32_t spins[MOCK_MAX];
  uint32_t spin_count;
  uint32_t trigger[ACT_COUNT]; /* the N that triggers each action (0: none) */
  uint32_t after;              /* misbehave from this run on (after = K) */
  uint32_t runs[ACT_COUNT];    /* runs of each trigger so far */
  int prepare_act;             /* prepare = A (ACT_NONE: prepares) */
  int log_all;                 /* log = all */
} mock_instance;

static int parse_spins(mock_instance *m, const char *s) {
  return mock_parse_spins(m->spins, MOCK_MAX, &m->spin_count, s);
}

/* "segv=101" -> trigger. */
static void parse_action(mock_instance *m, const char *key, const char *value) {
  int a;
  for (a = 1; a < ACT_COUNT; a++)
    if (strcmp(key, act_names[a]) == 0)
      m->trigger[a] = (uint32_t)strtoul(value, NULL, 10);
}

static int32_t mock_create(const olc_plugin_host *host, const olc_plugin_kv *config,
                           uint32_t config_count, uint32_t thread_count, void **instance) {
  mock_instance *m = calloc(1, sizeof *m);
  uint32_t i;
  (void)thread_count;
  mock_host = host;
  if (m == NULL)
    return OLC_PLUGIN_E_NOMEM;
  (void)parse_spins(m, "400,100,200");
#ifdef MOCK_CRASH_DEFAULT
  {
    char def[32];
    char *eq;
    snprintf(def, sizeof def, "%s", MOCK_CRASH_DEFAULT);
    eq = strchr(def, '=');
    if (eq != NULL) {
      *eq = 0;
      parse_action(m, def, eq + 1);
    }
    (void)parse_spins(m, "400,101,200");
  }
#endif
  for (i = 0; i < config_count; i++) {
    if (config[i].key == NULL || config[i].value == NULL)
      continue;
    if (strcmp(config[i].key, "candidates") == 0) {
      if (parse_spins(m, config[i].value) != 0) {
        free(m);
        mock_error(OLC_PLUGIN_E_INVALID, "candidates: expected a list like 400,100,200");
        return OLC_PLUGIN_E_INVALID;
      }
    } else if (strcmp(config[i].key, "after") == 0) {
      m->after = (uint32_t)strtoul(config[i].value, NULL, 10);
    } else if (strcmp(config[i].key, "log") == 0 && strcmp(config[i].value, "all") == 0) {
      m->log_all = 1;
    } else if (strcmp(config[i].key, "prepare") == 0) {
      for (int a = 1; a < ACT_COUNT; a++)
        if (strcmp(config[i].value, act_names[a]) == 0)
          m->prepare_act = a;
    } else {
      parse_action(m, config[i].key, config[i].value);
    }
  }
  *instance = m;
  return OLC_PLUGIN_OK;
}

static void mock_destroy(void *instance) { free(instance); }

static int32_t mock_key(void *instance, const olc_plugin_workload *w,
                        const olc_plugin_key_sink *sink) {
  int32_t rc;
  uint32_t i;
  (void)instance;
  rc = sink->set_processor(sink->ctx, "mock-cpu");
  if (rc == OLC_PLUGIN_OK)
    rc = sink->set_thread_count(sink->ctx, 1);
  for (i = 0; rc == OLC_PLUGIN_OK && i < w->property_count; i++)
    rc = sink->add_structure(sink->ctx, w->properties[i].key, w->properties[i].value);
  return rc;
}

static int32_t mock_candidates(void *instance, const olc_plugin_workload *w,
                               const olc_plugin_policy_sink *sink) {
  const mock_instance *m = instance;
  (void)w;
  return mock_emit_spins(sink, m->spins, m->spin_count);
}

static int32_t mock_validate(void *instance, const void *bytes, uint64_t len, void **policy) {
  char text[32];
  char *end;
  unsigned long v;
  (void)instance;
  if (mock_policy_text(text, sizeof text, bytes, len, 9) != 0)
    return OLC_PLUGIN_E_INVALID;
  v = strtoul(text + 8, &end, 10);
  if (strncmp(text, "spin_us=", 8) != 0 || *end != 0 || v == 0 || v > 1000000ul) {
    mock_error(OLC_PLUGIN_E_INVALID, "not spin_us=N");
    return OLC_PLUGIN_E_INVALID;
  }
  return mock_validated(policy, (uint32_t)v);
}

static int32_t mock_serialize(void *instance, const void *policy, const olc_plugin_byte_sink *out) {
  (void)instance;
  return mock_write_policy(out, "spin_us=", policy);
}

static void misbehave(int act) {
  volatile unsigned long spin = 0;
  struct timespec ts = {3600, 0};
  switch (act) {
  case ACT_SEGV:
    *(volatile int *)mock_bad_address = 1;
    break;
  case ACT_ABORT:
    abort();
  case ACT_HANG:
    for (;;)
      nanosleep(&ts, NULL);
  case ACT_BUSY:
    for (;;)
      spin = spin + 1;
  case ACT_EXIT:
    exit(3);
  default:
    break;
  }
}

static void log_run(const mock_policy *p) {
  char line[48];
  snprintf(line, sizeof line, "run spin_us=%u", (unsigned)p->spin_us);
  mock_log(OLC_PLUGIN_LOG_INFO, line);
}

static int32_t mock_run(void *instance, const olc_plugin_workload *w, void *state,
                        const void *policy) {
  mock_instance *m = instance;
  const mock_policy *p = policy;
  int a;
  (void)w;
  (void)state;
  if (m->log_all)
    log_run(p);
  for (a = 1; a < ACT_COUNT; a++)
    if (m->trigger[a] != 0 && m->trigger[a] == p->spin_us) {
      if (++m->runs[a] < m->after)
        continue;
      if (a == ACT_LOG) {
        log_run(p);
        continue;
      }
      if (a == ACT_FAIL) {
        mock_error(OLC_PLUGIN_E_FAILED, "run failed on purpose");
        return OLC_PLUGIN_E_FAILED;
      }
      misbehave(a);
    }
  mock_busy_wait((uint64_t)p->spin_us * 1000u);
  return OLC_PLUGIN_OK;
}

static int32_t mock_prepare(void *instance, const olc_plugin_workload *w, void **state) {
  mock_instance *m = instance;
  (void)w;
  *state = NULL;
  if (m->prepare_act == ACT_FAIL) {
    mock_error(OLC_PLUGIN_E_FAILED, "prepare failed on purpose");
    return OLC_PLUGIN_E_FAILED;
  }
  if (m->prepare_act != ACT_NONE && m->prepare_act != ACT_LOG)
    misbehave(m->prepare_act);
  return OLC_PLUGIN_OK;
}

static const char *const mock_operators[] = {"MatMul"};

static const olc_plugin mock_table = {MOCK_TABLE_INIT(
    (uint32_t)sizeof(olc_plugin), OLC_PLUGIN_ABI_MINOR, OLC_PLUGIN_ABI_MAJOR, MOCK_NAME, "1",
    "mock plugin that crashes on purpose", mock_operators, 1, mock_create, mock_destroy, mock_key,
    mock_candidates, mock_validate, mock_serialize, mock_release, mock_run, mock_prepare, NULL,
    NULL, NULL, NULL, 0)};

MOCK_ENTRY_POINT(olc_plugin_entry) {
  mock_host = host;
  return mock_hand_table(host_abi_major, plugin, &mock_table);
}
