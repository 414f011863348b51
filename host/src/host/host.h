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
 * The select path works on an olc_workload (olc/host.h), whether it came
 * from an ini section (ini_workload.c) or from code.
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
  /* How the runtime path measures (copied); NULL: the config's, or
   * without a config the defaults of the key table. */
  const olc_calibration_settings *settings;
  int select_mode;                 /* olc_select_mode; OLC_SELECT_HOST_DEFAULT: settings' */
  const char *measure_lock;        /* NULL: the config's, else the default (host_int.h) */
  const char *record_misses;       /* NULL: settings' (the config's), else none */
  double max_seconds_total;        /* 0: settings' */
  uint32_t max_runs_per_candidate; /* 0: settings' */
} olc_host_params;

/* Opens a host: OLC_OK, or like olc_plugins__open.  Freed with
 * olc_host_free. */
olc_status olc_host__open_params(olc_host **out, const olc_host_params *params, olc_error *err);

/* The host's loaded plugins, store and config (borrowed; NULL when none). */
olc_plugin_set *olc_host__plugins(const olc_host *host);
olc_store *olc_host__store(const olc_host *host);
const olc_config *olc_host__config(const olc_host *host);
/* The select mode a select that does not say gets (olc_select_mode). */
int olc_host__select_mode(const olc_host *host);

/* The model digest of a configured workload: model = PATH's or
 * model_digest's; NULL for one without a model (whose config digest is
 * "workload:...": the host composes that identity itself). */
const char *olc_host__config_model(const olc_workload_config *wc);
/* 1 when a model digest begins with "workload:", the identity of a
 * workload without a model: bind and the config refuse it as a model
 * (it would be taken for none, and share that workload's record). */
int olc_host__workload_identity(const char *model_digest);

/*
 * The store key of workload w as plugin p reported it in k, with digest as
 * its model digest (NULL: ""; the store needs model and processor
 * together): backend = the plugin's name, implementation = its version,
 * the workload's operator, the plugin's processor, thread count and
 * structure.  Borrowed pointers into p, w, k and digest.
 */
void olc_host__make_key(olc_key *out, const olc_loaded_plugin *p, const olc_plugin_workload *w,
                        const olc_plugin_key *k, const char *digest);

/*
 * The key of workload w for plugin p, as calibrate, select, explain and the
 * plugins' own lookups use it: the plugin's key, and as model digest the
 * workload identity composed from w's model digest (NULL: none) and the
 * plugin's structure (olc/runtime.h "Identity").  OLC_OK, or the plugin's key
 * failure (olc_plugins__key), OLC_E_INVALID (a structure the grammar
 * cannot write), OLC_E_NOMEM.  Freed with olc_host_key__free.
 */
typedef struct olc_host_key olc_host_key;
olc_status olc_host__key(olc_host_key *out, olc_loaded_plugin *p, const olc_plugin_workload *w,
                         olc_error *err);
void olc_host_key__free(olc_host_key *k);

/* Statistics of the runtime path, for tests. */
typedef struct olc_host_stats {
  uint64_t measurements; /* keys measured (a measurement that began) */
  size_t slots;          /* distinct keys bound */
  size_t bindings;       /* workload descriptions cached by olc_host_select */
} olc_host_stats;
void olc_host__stats(olc_host_stats *out, olc_host *host);
/* How often a warm binding rechecks the store (tests shorten it). */
void olc_host__set_recheck_ms(olc_host *host, int64_t ms);
/* Called by the thread that measures, after it claimed the key and before
 * anything is measured (tests: what other threads see meanwhile). */
typedef void (*olc_host_measure_hook)(void *payload, const char *workload);
void olc_host__set_measure_hook(olc_host *host, olc_host_measure_hook fn, void *payload);
/* The clock, in ns, that times the retries of a key whose measurement
 * failed (tests; NULL: olc_util__now_ns).  Set before selecting. */
typedef uint64_t (*olc_host_clock_fn)(void *payload);
void olc_host__set_retry_clock(olc_host *host, olc_host_clock_fn fn, void *payload);

/* What a measuring worker needs to rebuild p as this host made it: the
 * host's thread count and permission policy, p's [plugin.NAME] entries. */
void olc_host__isolate_plugin(olc_isolate_plugin *out, const olc_host *host, olc_loaded_plugin *p);

#endif
