/*
 * tests/plugins/mock_scaffold.h - what the test plugins share: the host's
 * services, a policy that is one number of microseconds written as text
 * ("spin_us=N", "p=N"), a run that busy-waits on the host's clock, the
 * table initializer and the entry point.
 *
 * Included by exactly one source per plugin (mock_plugin.c,
 * tests/calibrate/mock_crash.c, tests/loader/hostile_plugin.c), so its
 * statics are that plugin's own.  Like the plugins it uses no file-system
 * call and needs only the ABI header.
 */
#ifndef OLC_TESTS_MOCK_SCAFFOLD_H
#define OLC_TESTS_MOCK_SCAFFOLD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "olc/plugin.h"

/* Last services table handed in (one per library; the same on every call). */
static const olc_plugin_host *mock_host;

typedef struct mock_policy {
  uint32_t spin_us;
} mock_policy;

static inline void mock_error(int32_t code, const char *message) {
  if (mock_host != NULL && mock_host->set_error != NULL)
    mock_host->set_error(mock_host->ctx, code, message);
}

static inline void mock_log(int32_t level, const char *message) {
  if (mock_host != NULL && mock_host->log != NULL)
    mock_host->log(mock_host->ctx, level, message);
}

static inline mock_policy *new_policy(uint32_t spin_us) {
  mock_policy *p = malloc(sizeof *p);
  if (p != NULL)
    p->spin_us = spin_us;
  return p;
}

static inline void mock_release(void *instance, void *policy) {
  (void)instance;
  free(policy);
}

/* Parses "400,100,200" into spins (at most max): 0 on success. */
static inline int mock_parse_spins(uint32_t *spins, uint32_t max, uint32_t *count,
                                   const char *list) {
  const char *s = list;
  *count = 0;
  while (*s != 0) {
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || v == 0 || v > 1000000ul || *count == max)
      return -1;
    spins[(*count)++] = (uint32_t)v;
    if (*end != ',' && *end != 0)
      return -1;
    s = *end == ',' ? end + 1 : end;
  }
  return *count > 0 ? 0 : -1;
}

/* Emits one policy per entry of spins, in order. */
static inline int32_t mock_emit_spins(const olc_plugin_policy_sink *sink, const uint32_t *spins,
                                      uint32_t count) {
  uint32_t i;
  for (i = 0; i < count; i++) {
    mock_policy *p = new_policy(spins[i]);
    int32_t rc;
    if (p == NULL)
      return OLC_PLUGIN_E_NOMEM;
    rc = sink->emit(sink->ctx, p);
    if (rc != OLC_PLUGIN_OK)
      return rc;
  }
  return OLC_PLUGIN_OK;
}

/* Copies a policy's bytes into text as a C string; min <= len < size, or
 * the error "policy length out of range" and -1. */
static inline int mock_policy_text(char *text, size_t size, const void *bytes, uint64_t len,
                                   uint64_t min) {
  if (len < min || len >= size) {
    mock_error(OLC_PLUGIN_E_INVALID, "policy length out of range");
    return -1;
  }
  memcpy(text, bytes, (size_t)len);
  text[len] = 0;
  return 0;
}

/* What validate hands back once the text checked out: a policy of spin_us
 * where the host asked for one. */
static inline int32_t mock_validated(void **policy, uint32_t spin_us) {
  if (policy != NULL) {
    *policy = new_policy(spin_us);
    if (*policy == NULL)
      return OLC_PLUGIN_E_NOMEM;
  }
  return OLC_PLUGIN_OK;
}

/* Writes PREFIX<spin_us>, the text validate reads back. */
static inline int32_t mock_write_policy(const olc_plugin_byte_sink *out, const char *prefix,
                                        const mock_policy *p) {
  char text[32];
  int n = snprintf(text, sizeof text, "%s%u", prefix, (unsigned)p->spin_us);
  return out->write(out->ctx, text, (uint64_t)n);
}

/* The cost of a policy: exactly wait_ns on the host's clock. */
static inline void mock_busy_wait(uint64_t wait_ns) {
  uint64_t start = mock_host->now_ns(mock_host->ctx);
  while (mock_host->now_ns(mock_host->ctx) - start < wait_ns) {
  }
}

/* What a plugin's entry does once any refusal of its own is past. */
static inline int32_t mock_hand_table(uint32_t host_abi_major, const olc_plugin **plugin,
                                      const olc_plugin *table) {
  if (host_abi_major != OLC_PLUGIN_ABI_MAJOR)
    return OLC_PLUGIN_E_ABI;
  *plugin = table;
  return OLC_PLUGIN_OK;
}

/* The fields of an olc_plugin, by name (the reserved fields and
 * operand_bytes zero); MOCK_TABLE_INIT_V14 with the ABI 1.3 fields
 * (features, pack, release_packed) and 1.4's distance, MOCK_TABLE_INIT_V13
 * with distance NULL (the host's default distance), MOCK_TABLE_INIT
 * without the 1.3 fields either. */
#define MOCK_TABLE_INIT_V14(                                                                       \
    size, minor, major, name_, version, description_, operators_, operator_count_, create_,        \
    destroy_, key_, candidates_, validate_, serialize_, release, run_, prepare_, unprepare_,       \
    flops_, execute_, tolerances_, tolerance_count_, features_, pack_, release_packed_, distance_) \
  .struct_size = (size), .abi_minor = (minor), .abi_major = (major), .name = (name_),              \
  .implementation_version = (version), .description = (description_), .operators = (operators_),   \
  .operator_count = (operator_count_), .create = (create_), .destroy = (destroy_), .key = (key_),  \
  .candidates = (candidates_), .validate = (validate_), .serialize = (serialize_),                 \
  .release_policy = (release), .run = (run_), .prepare = (prepare_), .unprepare = (unprepare_),    \
  .flops = (flops_), .execute = (execute_), .tolerances = (tolerances_),                           \
  .tolerance_count = (tolerance_count_), .features = (features_), .pack = (pack_),                 \
  .release_packed = (release_packed_), .distance = (distance_)
#define MOCK_TABLE_INIT_V13(size, minor, major, name_, version, description_, operators_,          \
                            operator_count_, create_, destroy_, key_, candidates_, validate_,      \
                            serialize_, release, run_, prepare_, unprepare_, flops_, execute_,     \
                            tolerances_, tolerance_count_, features_, pack_, release_packed_)      \
  MOCK_TABLE_INIT_V14(size, minor, major, name_, version, description_, operators_,                \
                      operator_count_, create_, destroy_, key_, candidates_, validate_,            \
                      serialize_, release, run_, prepare_, unprepare_, flops_, execute_,           \
                      tolerances_, tolerance_count_, features_, pack_, release_packed_, NULL)
#define MOCK_TABLE_INIT(size, minor, major, name, version, description, operators, operator_count, \
                        create, destroy, key, candidates, validate, serialize, release, run,       \
                        prepare, unprepare, flops, execute, tolerances, tolerance_count)           \
  MOCK_TABLE_INIT_V13(size, minor, major, name, version, description, operators, operator_count,   \
                      create, destroy, key, candidates, validate, serialize, release, run,         \
                      prepare, unprepare, flops, execute, tolerances, tolerance_count, 0, NULL,    \
                      NULL)

/* Declares and opens the definition of an exported entry point named fn
 * (olc_plugin_entry, or another name where a test wants none found). */
#define MOCK_ENTRY_POINT(fn)                                                                       \
  OLC_PLUGIN_EXPORT int32_t fn(uint32_t host_abi_major, const olc_plugin_host *host,               \
                               const olc_plugin **plugin);                                         \
  OLC_PLUGIN_EXPORT int32_t fn(uint32_t host_abi_major, const olc_plugin_host *host,               \
                               const olc_plugin **plugin)

#endif
