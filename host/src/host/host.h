/*
 * host/host.h - the host module: the olc_host object and the
 * calibrate-and-select path, as other code (tests) reaches it.
 *
 * The host module is the one door of olc/host.h: it owns the olc_host (the
 * configuration and store it was opened with, the loaded plugins, its
 * diagnostics) and implements every olc_host_* function.  It composes the
 * store key of a workload, looks it up with the plugin's validator, has
 * the calibrate module measure on a miss, saves the winner and selects;
 * the loader (plugins/plugins.h) loads and wraps the plugins, the
 * calibrate module (calibrate/calibrate.h) measures, the store keeps.
 *
 * The select path works on an olc_host_workload, a workload described by
 * what the plugin sees (an olc_plugin_workload) plus what the host adds (a
 * name, the backend), whether it came from an ini section
 * (olc_host__workload_from_config) or from code.
 */
#ifndef OLC_HOST_HOST_H
#define OLC_HOST_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "calibrate/isolate.h"
#include "olc/diag.h"
#include "olc/host.h"
#include "olc/plugin.h"
#include "olc/store.h"
#include "plugins/plugins.h"

/* What olc_host_open takes from a config, so tests can open a host
 * without one. */
typedef struct olc_host_params {
  /* Where the plugins come from and how they are created; store_ops,
   * store_payload and diag are the host's own (ignored here). */
  olc_plugins_params load;
  const olc_config *config; /* kept for calibrate and explain; may be NULL */
  olc_store *store;         /* borrowed, may be NULL (then no store services) */
  int force_portable;       /* for lookups made on a plugin's behalf */
  olc_diag_fn diag;         /* NULL: diagnostics are kept */
  void *diag_payload;
} olc_host_params;

/* Opens a host: OLC_OK, or like olc_plugins__open.  Freed with
 * olc_host_free. */
olc_status olc_host__open(olc_host **out, const olc_host_params *params, olc_error *err);

/* The host's loaded plugins, store and config (borrowed; NULL when none). */
olc_plugin_set *olc_host__plugins(const olc_host *host);
olc_store *olc_host__store(const olc_host *host);
const olc_config *olc_host__config(const olc_host *host);

/* A workload as the select path takes it (borrowed strings). */
typedef struct olc_host_workload {
  const char *name;           /* in results and messages */
  const char *backend;        /* the name of the plugin that serves it */
  olc_plugin_workload plugin; /* operator, properties, model digest */
} olc_host_workload;

/* The workload of a configured [workload.NAME] section: pointers into wc,
 * and into kv (kv_cap entries) for the properties; both must outlive it. */
void olc_host__workload_from_config(olc_host_workload *out, olc_plugin_kv *kv, size_t kv_cap,
                                    const olc_workload_config *wc);

/*
 * The store key of workload w as plugin p reported it in k: backend = the
 * plugin's name, implementation = its version, the workload's operator and
 * model digest ("" when the workload has none: the store needs model and
 * processor together), the plugin's processor, thread count and structure.
 * The same key for calibrate, select, explain, prune and the plugins' own
 * lookups.  Borrowed pointers into p, w and k.
 */
void olc_host__make_key(olc_key *out, const olc_loaded_plugin *p, const olc_plugin_workload *w,
                        const olc_plugin_key *k);

/* What a measuring worker needs to rebuild p as this host made it: the
 * host's thread count and permission policy, p's [plugin.NAME] entries. */
void olc_host__isolate_plugin(olc_isolate_plugin *out, const olc_host *host, olc_loaded_plugin *p);

#endif
