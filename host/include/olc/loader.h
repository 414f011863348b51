/*
 * olc/loader.h - opening a host: the plugins loaded from the configured
 * directories (one instance each) with the store they calibrate into, the
 * load report that says what was loaded or skipped and why, and the
 * host's diagnostics.  What a host then does is in olc/calibrate.h (the
 * calibrate-and-select loop) and olc/runtime.h (the runtime path).
 *
 * Thread safety: an olc_host may be used from many threads at once (the
 * load report and the diagnostics too), except olc_host_open and
 * olc_host_free, which no other call on the host may overlap (free every
 * binding first).
 */
#ifndef OLC_LOADER_H
#define OLC_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "olc/config.h"
#include "olc/diag.h"
#include "olc/error.h"
#include "olc/export.h"
#include "olc/store.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct olc_host olc_host;

/* Flags of olc_host_explain (olc/calibrate.h) and olc_binding_explain
 * (olc/runtime.h), which both headers share through this one. */
#define OLC_EXPLAIN_ALL 1u /* every record of the backend and operator (olc explain --all) */

/* Where loading a plugin file stopped.  Append-only. */
typedef enum olc_load_stage {
  OLC_LOAD_LOADED = 0,     /* loaded and instantiated */
  OLC_LOAD_OPEN = 1,       /* dlopen failed (not a library, missing deps) */
  OLC_LOAD_SYMBOL = 2,     /* no olc_plugin_entry */
  OLC_LOAD_ABI = 3,        /* incompatible ABI major or entry failure */
  OLC_LOAD_VALIDATE = 4,   /* the table is malformed (size, NULL function) */
  OLC_LOAD_DUPLICATE = 5,  /* another file already provides this name */
  OLC_LOAD_CREATE = 6,     /* create failed or said unavailable */
  OLC_LOAD_DISABLED = 7,   /* [plugin.NAME] enabled = false */
  OLC_LOAD_PERMISSIONS = 8 /* file or directory writable by other users */
} olc_load_stage;

/* "loaded", "open", "symbol", "abi", "validate", "duplicate", "create",
 * "disabled", "permissions". */
OLC_API const char *olc_load_stage_str(olc_load_stage stage);

/* One line of the load report. */
typedef struct olc_load_entry {
  const char *path;        /* absolute path of the file */
  const char *plugin_name; /* NULL when not known */
  const char *plugin_version;
  olc_load_stage stage;
  olc_status status;     /* OLC_OK, or why it was skipped */
  int32_t plugin_status; /* the plugin's own status, when it returned one */
  int unavailable;       /* create said "unavailable here" (skip, not fail) */
  const char *message;   /* one line */
} olc_load_entry;

/* Options for olc_host_open.  Initialize with OLC_HOST_OPTIONS_INIT.
 * Versioned as olc/store.h says. */
typedef struct olc_host_options {
  uint32_t version;           /* OLC_HOST_OPTIONS_VERSION */
  int allow_insecure_plugins; /* load files/dirs writable by other users */
  int ignore_env;             /* read no OLC_PLUGIN_PATH, OLC_WORKER, OLC_SELECT_MODE */
  /* Where the host's diagnostics go (olc/diag.h; NULL: kept,
   * read with olc_host_next_diagnostic). */
  olc_diag_fn diag;
  void *diag_payload;
  /* What olc_binding_select does on a miss when the call does
   * not say (olc_select_mode); OLC_SELECT_HOST_DEFAULT: $OLC_SELECT_MODE
   * ("never" or "on_miss"; unless ignore_env), else the config's
   * [calibration] select_mode. */
  int select_mode;
  /* The measurement lock, a file that the processes measuring
   * on this machine (this user's) take in turn, one key at a time, so
   * that their timings never overlap.  NULL: [calibration] measure_lock,
   * else $XDG_RUNTIME_DIR/onnx-light/measure.lock when that directory is
   * this user's alone, else "<store path>.measure.lock".  Where the lock
   * cannot be used (no such place, a read-only directory, a symlink or
   * another user's file in its place) the host measures without it and
   * says so once (a "measure_lock" warning). */
  const char *measure_lock;
  /* Record misses, and budgets.  record_misses (NULL:
   * [calibration] record_misses, else none) is a recorded-workloads file:
   * a select in never mode appends each workload it finds nothing stored
   * for, once per key and process, for `olc calibrate --recorded` to
   * tune offline ("Recording misses" in olc/runtime.h).  The budgets
   * (0: the config's [calibration] max_seconds_total and
   * max_runs_per_candidate) bound this host's lazy calibrations. */
  const char *record_misses;
  double max_seconds_total;
  uint32_t max_runs_per_candidate;
  /* The rest of the [host], [calibration] and [store] keys a
   * host reads, typed, so that a runtime configures it without ini text
   * (precedence: a field set here > the environment > the ini file > the
   * built-in default; docs/configuration.md).  plugin_dirs: NULL keeps the
   * config's [host] plugin_dirs, else these plugin_dir_count directories
   * (absolute paths, searched in order; OLC_PLUGIN_PATH still adds to
   * them).  threads: 0 keeps [host] threads.  force_portable: 1 selects
   * portable records only (as does [store] force_portable).
   * calibration: NULL keeps the config's [calibration]; else every field
   * of it, for the runtime path and for olc_host_calibrate (start from a
   * copy of olc_config_calibration(config) or olc_calibration_defaults()
   * and change what you need; copied at open, its strings borrowed until
   * olc_host_free); the
   * fields above (select_mode, measure_lock, record_misses, the budgets)
   * still override it when set.  The [store] keys are
   * olc_store_options (olc/store.h), given where the store is opened. */
  const char *const *plugin_dirs;
  size_t plugin_dir_count;
  uint32_t threads;
  int force_portable;
  const olc_calibration_settings *calibration;
  /* [store] verify_layers (olc_verify_layers);
   * OLC_VERIFY_LAYERS_DEFAULT: the config's (never by default). */
  int verify_layers;
} olc_host_options;

/* olc_host_options.verify_layers: whether a runtime checks a record of a
 * read-only layer (a shipped profile) on this machine before it trusts it. */
typedef enum olc_verify_layers {
  OLC_VERIFY_LAYERS_DEFAULT = 0, /* the config's [store] verify_layers */
  OLC_VERIFY_LAYERS_NEVER = 1,   /* serve layer records as they are */
  /* The first select that a layer's calibrated record answers (per key and
   * host) races its policy against the plugin's candidates first, as
   * olc_host_verify does, in on_miss mode only (never mode measures
   * nothing); one that no longer wins beyond the noise is recalibrated into
   * the user's store and the new record served. */
  OLC_VERIFY_LAYERS_ON_FIRST_USE = 2
} olc_verify_layers;

#define OLC_HOST_OPTIONS_VERSION 1u
#define OLC_HOST_OPTIONS_INIT                                                                      \
  { OLC_HOST_OPTIONS_VERSION, 0, 0, NULL, NULL, 0, NULL, NULL, 0.0, 0, NULL, 0, 0, 0, NULL, 0 }

/*
 * fork() (POSIX): plugin instances may run threads (cpu_gemm's pool), which
 * do not exist in a child of fork().  In such a child a host opened before
 * the fork reaches no plugin and serves nothing from its cache: calibrate
 * reports OLC_E_UNSUPPORTED for each workload; olc_host_bind,
 * olc_binding_select and olc_host_select (warm or cold, nothing measured),
 * olc_selection_execute and olc_selection_matmul_f32 (on a selection made
 * before the fork), olc_binding_explain, olc_host_explain and
 * olc_host_prune (nothing removed) return OLC_E_UNSUPPORTED with a
 * message naming fork(); a store validator made from it rejects with the
 * same reason; olc_host_free releases the host without calling the
 * plugins' destroy.  The child may open a new host: the
 * libraries stay mapped and each plugin creates a new instance.  fork()
 * waits until no thread holds the loader's locks.  The host's store is an
 * olc_store and follows store.h.
 */

/*
 * config may be NULL: a host of the built-in defaults (the key table's,
 * no ini text read), configured by options alone.
 *
 * Loads every plugin of the configured directories (and OLC_PLUGIN_PATH,
 * read with secure_getenv) in sorted order and creates one instance of
 * each with its [plugin.NAME] entries and the effective thread count.
 * Files that fail are skipped and reported; the call fails only when a
 * plugin marked critical fails (OLC_E_PLUGIN), or with OLC_E_INVALID (out
 * NULL, an options version 0 or newer than the library's, plugin_dirs
 * NULL with a count, or a directory NULL or empty, a
 * select_mode that is not an olc_select_mode, a max_seconds_total that is
 * negative or not finite), OLC_E_CONFIG (OLC_SELECT_MODE set to neither
 * "never" nor "on_miss": err->message names the variable and its value),
 * OLC_E_NOMEM.
 * store is borrowed and must outlive the host; config too.  options may be
 * NULL.  *out is freed with olc_host_free.
 *
 * Diagnostics (olc/diag.h), to options->diag or kept: a warning "load" for
 * each plugin file skipped for a failure (as the load report says: not
 * disabled, not unavailable here), "plugin_dirs" for a configured plugin
 * directory that does not exist (the @exe_dir@ and @install_plugin_dir@
 * locations excepted: they name where plugins may be), "OLC_PLUGIN_PATH"
 * for an entry of it that is missing or not absolute, "plugins" when no
 * plugin loaded at all (the message lists the directories searched: a
 * runtime that would otherwise run untuned says why), and "plugin NAME"
 * for each line a plugin logs at warning or error level (here or in a
 * measuring worker).
 */
OLC_API olc_status olc_host_open(olc_host **out, const olc_config *config, olc_store *store,
                                 const olc_host_options *options, olc_error *err);
/* Destroys the instances.  The libraries stay mapped (never dlclose).
 * NULL is fine. */
OLC_API void olc_host_free(olc_host *host);

/* The load report: one entry per plugin file found (or plugin directory
 * that could not be read), borrowed from the host; NULL past the end. */
OLC_API size_t olc_host_report_count(const olc_host *host);
OLC_API const olc_load_entry *olc_host_report(const olc_host *host, size_t i);

/*
 * Takes the oldest diagnostic the host kept (opened without a diag
 * callback: the last OLC_DIAG_KEEP) into *out and forgets it.  Returns
 * OLC_OK, OLC_E_NOT_FOUND (none kept), OLC_E_INVALID (out or host NULL).
 * Thread-safe (a plugin's threads may add to them meanwhile); each
 * diagnostic is taken once.
 */
OLC_API olc_status olc_host_next_diagnostic(olc_diagnostic *out, olc_host *host);
/* Diagnostics dropped to make room since the host was opened. */
OLC_API uint64_t olc_host_diagnostics_dropped(olc_host *host);

#ifdef __cplusplus
}
#endif

#endif /* OLC_LOADER_H */
