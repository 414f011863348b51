/*
 * egpu_harness.h - what the example_gpu tests share: the stub host
 * (plugin-api/stub) with a count of the plugin's messages, sinks that
 * collect what the plugin writes, and dlopen of the plugin.
 */
#ifndef EGPU_HARNESS_H
#define EGPU_HARNESS_H

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "olc/plugin.h"
#include "olc_stub_host.h"

/* Not every test uses every helper. */
#define HARNESS_UNUSED __attribute__((unused))

/* The plugin runs against the stub host (plugin-api/stub): the calling
 * thread's last set_error, as the host's is per thread. */
#define harness_host olc_stub_host
#define harness_last_error (*olc_stub_host_last_error())

/* Messages and log lines seen, and how many of them start with the plugin's
 * own name (the host adds "plugin example_gpu: " itself, so none should). */
HARNESS_UNUSED static _Atomic unsigned harness_message_count, harness_prefixed_count;

HARNESS_UNUSED static void harness_count_message(void *payload, int is_error, int32_t value,
                                                 const char *message) {
  (void)payload, (void)is_error, (void)value;
  harness_message_count++;
  if (message != NULL && strncmp(message, "example_gpu", 11) == 0) {
    harness_prefixed_count++;
    fprintf(stderr, "message with the plugin's own prefix: %s\n", message);
  }
}

/* Loads the plugin and asks its entry for the table; NULL on failure. */
HARNESS_UNUSED static const olc_plugin *harness_load(const char *path, void **handle) {
  const olc_plugin *table = NULL;
  olc_plugin_entry_fn entry;
  void *sym;
  olc_stub_host_set_observer(harness_count_message, NULL);
  *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (*handle == NULL) {
    fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
    return NULL;
  }
  sym = dlsym(*handle, OLC_PLUGIN_ENTRY_SYMBOL);
  if (sym == NULL)
    return NULL;
  memcpy(&entry, &sym, sizeof entry);
  if (entry(OLC_PLUGIN_ABI_MAJOR, &harness_host, &table) != OLC_PLUGIN_OK)
    return NULL;
  return table;
}

#ifdef CUNIT_CUNIT_H_SEEN
/* A CUnit test, run last: messages were seen and none carried the prefix. */
HARNESS_UNUSED static void harness_test_messages_unprefixed(void) {
  printf("\n  %u messages, %u with the plugin's own prefix\n", (unsigned)harness_message_count,
         (unsigned)harness_prefixed_count);
  CU_ASSERT(harness_message_count > 0);
  CU_ASSERT_EQUAL(harness_prefixed_count, 0);
}
#endif

/* ---- sinks ------------------------------------------------------------- */

#define HARNESS_MAX_STRUCT 8
typedef struct harness_key {
  char processor[1024];
  uint32_t threads;
  int structure_count;
  char names[HARNESS_MAX_STRUCT][32];
  char values[HARNESS_MAX_STRUCT][64];
} harness_key;

HARNESS_UNUSED static int32_t hk_processor(void *ctx, const char *p) {
  harness_key *k = ctx;
  snprintf(k->processor, sizeof k->processor, "%s", p);
  return OLC_PLUGIN_OK;
}
HARNESS_UNUSED static int32_t hk_threads(void *ctx, uint32_t t) {
  ((harness_key *)ctx)->threads = t;
  return OLC_PLUGIN_OK;
}
HARNESS_UNUSED static int32_t hk_structure(void *ctx, const char *name, const char *value) {
  harness_key *k = ctx;
  if (k->structure_count >= HARNESS_MAX_STRUCT)
    return OLC_PLUGIN_E_LIMIT;
  snprintf(k->names[k->structure_count], sizeof k->names[0], "%s", name);
  snprintf(k->values[k->structure_count], sizeof k->values[0], "%s", value);
  k->structure_count++;
  return OLC_PLUGIN_OK;
}

#define HARNESS_MAX_POLICIES 64
typedef struct harness_policies {
  void *items[HARNESS_MAX_POLICIES];
  int count;
} harness_policies;

HARNESS_UNUSED static int32_t hp_emit(void *ctx, void *policy) {
  harness_policies *p = ctx;
  if (p->count >= HARNESS_MAX_POLICIES)
    return OLC_PLUGIN_E_LIMIT; /* the policy is then lost: tests keep below the cap */
  p->items[p->count++] = policy;
  return OLC_PLUGIN_OK;
}

typedef struct harness_bytes {
  char data[512];
  size_t len;
} harness_bytes;

HARNESS_UNUSED static int32_t hb_write(void *ctx, const void *bytes, uint64_t len) {
  harness_bytes *b = ctx;
  if (b->len + len >= sizeof b->data)
    return OLC_PLUGIN_E_LIMIT;
  memcpy(b->data + b->len, bytes, (size_t)len);
  b->len += (size_t)len;
  b->data[b->len] = '\0';
  return OLC_PLUGIN_OK;
}

/* A MatMul workload over a small static property table. */
typedef struct harness_workload {
  olc_plugin_workload w;
  olc_plugin_kv props[4];
  char m[16], n[16], k[16];
} harness_workload;

HARNESS_UNUSED static void harness_matmul(harness_workload *hw, const char *dtype, unsigned m,
                                          unsigned n, unsigned k) {
  memset(hw, 0, sizeof *hw);
  snprintf(hw->m, sizeof hw->m, "%u", m);
  snprintf(hw->n, sizeof hw->n, "%u", n);
  snprintf(hw->k, sizeof hw->k, "%u", k);
  hw->props[0].key = "dtype";
  hw->props[0].value = dtype;
  hw->props[1].key = "m";
  hw->props[1].value = hw->m;
  hw->props[2].key = "n";
  hw->props[2].value = hw->n;
  hw->props[3].key = "k";
  hw->props[3].value = hw->k;
  hw->w.struct_size = sizeof hw->w;
  hw->w.abi_minor = OLC_PLUGIN_ABI_MINOR;
  hw->w.name = "test";
  hw->w.operator_name = "MatMul";
  hw->w.properties = hw->props;
  hw->w.property_count = 4;
}

#endif
