/*
 * plugins/plugins.h - the loaded plugins as the rest of the host sees them.
 *
 * The loader (loader.c / dl_posix.c / dl_win32.c) fills an olc_host's plugin
 * list; these wrappers are the only code that calls into a plugin table.
 * They guard every field access by struct_size, turn plugin output into
 * host-owned copies through sinks with caps, and turn plugin statuses plus
 * host->set_error detail into olc_status + olc_error (OLC_E_PLUGIN,
 * OLC_E_UNAVAILABLE, OLC_E_VALIDATION, OLC_E_UNSUPPORTED ...).
 */
#ifndef OLC_PLUGINS_PLUGINS_H
#define OLC_PLUGINS_PLUGINS_H

#include <stddef.h>
#include <stdint.h>

#include "olc/host.h"
#include "olc/plugin.h"
#include "olc/store.h"
#include "util/buf.h"

/* Caps on what a plugin may hand back through sinks. */
#define OLC_PLUGINS_MAX_PROCESSOR 4096u
#define OLC_PLUGINS_MAX_STRUCTURE 64u
#define OLC_PLUGINS_MAX_STRING 1024u
#define OLC_PLUGINS_MAX_CANDIDATES 4096u
#define OLC_PLUGINS_MAX_POLICY ((size_t)1 << 20)

/* One loaded, instantiated plugin (owned by the host). */
typedef struct olc_loaded_plugin olc_loaded_plugin;

/* Number of loaded plugins, and the i-th (i < count). */
size_t olc_plugins__count(const olc_host *host);
olc_loaded_plugin *olc_plugins__at(const olc_host *host, size_t i);
/* By plugin name; NULL when not loaded. */
olc_loaded_plugin *olc_plugins__find(const olc_host *host, const char *name);

const char *olc_plugins__name(const olc_loaded_plugin *p);
const char *olc_plugins__version(const olc_loaded_plugin *p);
/* 1 when the plugin lists operator_name among its operators. */
int olc_plugins__serves(const olc_loaded_plugin *p, const char *operator_name);

/* The host's store and config, for the loop. */
olc_store *olc_plugins__store(const olc_host *host);
const olc_config *olc_plugins__config(const olc_host *host);

/* A plugin workload built from a configured one (borrowed pointers into wc
 * and kv, which must outlive the workload). */
void olc_plugins__workload(olc_plugin_workload *out, olc_plugin_kv *kv, size_t kv_cap,
                           const olc_workload_config *wc);

/* A key as the plugin reported it, owned by the caller. */
typedef struct olc_plugin_key {
  char *processor;
  uint32_t thread_count;
  olc_property *structure; /* sorted, names unique */
  size_t structure_count;
  void *storage; /* internal */
} olc_plugin_key;

olc_status olc_plugins__key(olc_plugin_key *out, olc_loaded_plugin *p, const olc_plugin_workload *w,
                            olc_error *err);
void olc_plugin_key__free(olc_plugin_key *key);

/* The store key of workload w as plugin p reported it in k: backend = the
 * plugin's name, implementation = its version, the workload's operator and
 * model digest ("" when the workload has none: the store needs model and
 * processor together).  Borrowed pointers into p, w and k. */
void olc_plugins__make_key(olc_key *out, const olc_loaded_plugin *p, const olc_plugin_workload *w,
                           const olc_plugin_key *k);

/* Candidates: plugin-owned policy handles plus their serialized bytes. */
typedef struct olc_policy_list {
  void **policies;
  olc_buf *serialized; /* serialized[i] is policies[i] */
  size_t count;
} olc_policy_list;

olc_status olc_plugins__candidates(olc_policy_list *out, olc_loaded_plugin *p,
                                   const olc_plugin_workload *w, olc_error *err);
void olc_policy_list__free(olc_policy_list *list, olc_loaded_plugin *p);

/* validate; *policy (may be NULL) receives the deserialized policy. A
 * rejection is OLC_E_VALIDATION with the plugin's message. */
olc_status olc_plugins__validate(void **policy, olc_loaded_plugin *p, const void *bytes, size_t len,
                                 olc_error *err);
olc_status olc_plugins__serialize(olc_buf *out, olc_loaded_plugin *p, const void *policy,
                                  olc_error *err);
void olc_plugins__release(olc_loaded_plugin *p, void *policy);

/* prepare (optional: *state = NULL when absent), run, unprepare, flops
 * (OLC_E_UNSUPPORTED when absent). */
olc_status olc_plugins__prepare(void **state, olc_loaded_plugin *p, const olc_plugin_workload *w,
                                olc_error *err);
olc_status olc_plugins__run(olc_loaded_plugin *p, const olc_plugin_workload *w, void *state,
                            const void *policy, olc_error *err);
void olc_plugins__unprepare(olc_loaded_plugin *p, void *state);
olc_status olc_plugins__flops(double *flops, olc_loaded_plugin *p, const olc_plugin_workload *w,
                              olc_error *err);

/* An olc_validate_fn for the store that calls the plugin's validate;
 * payload is the olc_loaded_plugin. */
olc_status olc_plugins__store_validator(const unsigned char *policy, size_t policy_len,
                                        void *payload, char *message, size_t message_size);

/*
 * What the plugins of host wrote through host->log: the last 64 lines,
 * oldest first, each "NAME: message" (one line, valid UTF-8).  The library
 * never prints them; a front end may.  log_line copies the i-th line into
 * buf and returns its OLC_PLUGIN_LOG_* level, or -1 when i >= count.
 */
size_t olc_plugins__log_count(const olc_host *host);
int32_t olc_plugins__log_line(const olc_host *host, size_t i, char *buf, size_t size);

/* Monotonic clock in nanoseconds (the host's clock, also given to plugins). */
uint64_t olc_plugins__now_ns(void);

#endif
