/*
 * host/host_int.h - what the files of the host module share: the olc_host
 * and olc_calibration layouts and the select path.  Other code uses
 * host/host.h.
 */
#ifndef OLC_HOST_HOST_INT_H
#define OLC_HOST_HOST_INT_H

#include "host/host.h"
#include "util/arena.h"
#include "util/diag.h"

struct olc_host {
  const olc_config *config; /* NULL when opened by olc_host__open without one */
  olc_store *store;         /* borrowed, may be NULL */
  olc_plugin_set *plugins;
  uint32_t threads;           /* effective, handed to create */
  int force_portable;         /* for lookups made on a plugin's behalf */
  int allow_insecure_plugins; /* the permission policy files were loaded under */
  olc_plugins_config_fn plugin_config;
  void *plugin_config_payload;
  olc_diag_sink diag;
};

struct olc_calibration {
  olc_arena arena; /* strings, candidate arrays and policy copies */
  olc_workload_result *results;
  olc_lookup_result **lookups; /* owned; results[i].lookup aliases lookups[i] */
  size_t count;
};

/* A calibration with count zeroed results. OLC_OK or OLC_E_NOMEM. */
olc_status olc_calibration__new(olc_calibration **out, size_t count);
/* Copies the workload's name, backend and operator into r. */
olc_status olc_calibration__name(olc_calibration *cal, olc_workload_result *r,
                                 const olc_host_workload *w);
/* Gives the result i its final lookup (owned by cal from now on). */
void olc_calibration__set_lookup(olc_calibration *cal, size_t i, olc_lookup_result *lookup);

/* How one workload is selected (all borrowed). */
typedef struct olc_host_select_params {
  const olc_calibration_settings *settings;
  int force_portable; /* the config's or the caller's */
  int recalibrate;    /* measure even when the store has a selection */
  int select_only;    /* never measure */
  int in_process;     /* measure here, not in a worker */
  double run_timeout_seconds;
  void (*progress)(void *payload, size_t i, size_t count, double best_us);
  void *progress_payload;
} olc_host_select_params;

/*
 * Key -> lookup -> (candidates measured by the calibrate module -> save
 * -> lookup) for workload w into result i of cal, whose names are set.
 * What goes wrong with the workload lands in the result (status, message);
 * returns OLC_OK, or OLC_E_NOMEM, which stops the caller.
 */
olc_status olc_host__select(olc_calibration *cal, size_t i, olc_host *host,
                            const olc_host_workload *w, const olc_host_select_params *p);

/*
 * Why no loaded plugin provides backend (missing.c), from the load
 * report, into msg: OLC_E_UNAVAILABLE when the workload is to be skipped
 * (the plugin cannot run here or is disabled, or the host runs the
 * embedded default configuration or none), OLC_E_PLUGIN when it fails (a
 * user's configuration names a plugin whose file failed to load, or that
 * no file provides).
 */
olc_status olc_host__missing_plugin(char *msg, size_t size, const olc_host *host,
                                    const char *backend);
/*
 * OLC_E_PLUGIN (message naming the directories searched) when a user's
 * configuration has workload_count > 0 workloads to run and no plugin
 * loaded, none of them unavailable here or disabled either; else OLC_OK.
 */
olc_status olc_host__require_plugins(const olc_host *host, size_t workload_count, olc_error *err);

/* The store services a host gives its plugins (store.c). */
extern const olc_plugins_store_ops olc_host__store_ops;

#endif
