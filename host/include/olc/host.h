/*
 * olc/host.h - the plugin host: configuration, plugin loading with a load
 * report, and the calibrate-and-select loop.
 *
 *   olc_config   an ini file (or the embedded default) read with inih
 *   olc_host     the plugins loaded from the configured directories, one
 *                instance each, and the store they calibrate into
 *   olc_host_calibrate  per workload: key -> lookup -> (measure -> save) ->
 *                select, with a report that explains every selection
 *
 * Thread safety: an olc_config is immutable after loading.  An olc_host is
 * used from one thread at a time.
 */
#ifndef OLC_HOST_H
#define OLC_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "olc/diag.h"
#include "olc/error.h"
#include "olc/export.h"
#include "olc/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- config */

typedef struct olc_config olc_config;

/* [calibration] strategy: how the candidates of one workload are timed. */
typedef enum olc_calibration_strategy {
  /* Every candidate is screened briefly (warm-up, then timed runs for at
   * least min_seconds / 16, at least one); 3 finalists, the plugin's
   * first candidate and the fastest, then run interleaved, in turns, until
   * each has min_repetitions runs and their runs add up to min_seconds;
   * the lowest median wins, the first candidate on a lead under 1% or
   * under two standard errors of the two medians (MAD-based).  The
   * default. */
  OLC_STRATEGY_RACE = 0,
  /* Every candidate is timed in full (min_repetitions and min_seconds),
   * with early abandon of clear losers only. */
  OLC_STRATEGY_FULL = 1
} olc_calibration_strategy;

/* [calibration] settings. */
typedef struct olc_calibration_settings {
  uint32_t warmup;                 /* untimed runs before measuring (default 1) */
  uint32_t min_repetitions;        /* timed runs at least (default 5) */
  double min_seconds;              /* and at least this long (default 0.05) */
  double max_seconds_per_workload; /* budget for all candidates (default 30) */
  double abandon_factor;           /* abandon when > factor x best (default 1.5) */
  /* Appended after 0.1: */
  int isolation;              /* measure in a worker process (default 1; POSIX) */
  double run_timeout_seconds; /* one run's limit in the worker (0: automatic) */
  int strategy;               /* olc_calibration_strategy (default OLC_STRATEGY_RACE) */
} olc_calibration_settings;

/* One [workload.NAME] section. */
typedef struct olc_workload_config {
  const char *name;
  const char *backend;
  const char *operator_name;
  /* "sha256:<hex>" from model = PATH, model_digest as written, or, when
   * neither is given, "workload:<sorted properties>" so that workloads of
   * different shapes never share an exact record.  Never NULL. */
  const char *model_digest;
  const olc_property *properties; /* structural properties, in file order */
  size_t property_count;
  uint32_t line; /* line of the section header */
} olc_workload_config;

/* One [plugin.NAME] section: passed through to the plugin's create. */
typedef struct olc_plugin_config {
  const char *name;
  int enabled;                 /* enabled = false disables the plugin */
  int critical;                /* critical = true makes its load failure fatal */
  const olc_property *entries; /* every key = value, enabled/critical included */
  size_t entry_count;
} olc_plugin_config;

/*
 * Reads an ini file.  Unknown keys and bad values in the host's sections
 * ([host], [store], [calibration], [workload.*]) are OLC_E_CONFIG with
 * err->message "FILE:LINE: ..." and err->line set.  Relative paths resolve
 * against the file's directory.  Returns OLC_OK, OLC_E_CONFIG, OLC_E_IO,
 * OLC_E_NOMEM.
 */
OLC_API olc_status olc_config_load_file(olc_config **out, const char *path, olc_error *err);

/*
 * Parses ini text.  name is used in messages; base_dir resolves relative
 * paths (NULL: the current directory).  text is copied; *out is the
 * caller's, freed with olc_config_free.  Returns OLC_OK, OLC_E_INVALID (out
 * or text NULL), OLC_E_CONFIG (a bad line, key or value: err->message
 * "NAME:LINE: ...", err->line set; text over the size limit), OLC_E_NOMEM.
 */
OLC_API olc_status olc_config_load_string(olc_config **out, const char *text, size_t len,
                                          const char *name, const char *base_dir, olc_error *err);

/*
 * The embedded default configuration (config/default.ini, built in).  Its
 * plugin directories are searched relative to the running executable's
 * build or install tree.  *out is the caller's, freed with olc_config_free.
 * Returns OLC_OK, OLC_E_INVALID (out NULL), OLC_E_NOMEM; OLC_E_CONFIG only
 * if the built-in text were broken (a test keeps it valid).
 */
OLC_API olc_status olc_config_load_default(olc_config **out, olc_error *err);

OLC_API void olc_config_free(olc_config *config);

/* Where the configuration came from ("<embedded default>" or the path). */
OLC_API const char *olc_config_source(const olc_config *config);
OLC_API size_t olc_config_plugin_dir_count(const olc_config *config);
OLC_API const char *olc_config_plugin_dir(const olc_config *config, size_t i);
/* Effective thread count: threads = 0 means the CPUs this process may use
 * (affinity and cgroup quota). */
OLC_API uint32_t olc_config_threads(const olc_config *config);
/* Store options from [store] (path, persistence, lock_timeout_ms) and the
 * defaults for the rest; the strings stay owned by config.  Initialize
 * *out with OLC_STORE_OPTIONS_INIT first: only the fields of out->version
 * are written (a struct whose version is 0 or unknown gets version 1's,
 * which every caller's struct has). */
OLC_API void olc_config_store_options(const olc_config *config, olc_store_options *out);
OLC_API int olc_config_force_portable(const olc_config *config);
OLC_API const olc_calibration_settings *olc_config_calibration(const olc_config *config);
OLC_API size_t olc_config_workload_count(const olc_config *config);
OLC_API const olc_workload_config *olc_config_workload(const olc_config *config, size_t i);
/* NULL when there is no such workload. */
OLC_API const olc_workload_config *olc_config_find_workload(const olc_config *config,
                                                            const char *name);
/* NULL when the file has no [plugin.NAME] section. */
OLC_API const olc_plugin_config *olc_config_plugin(const olc_config *config, const char *name);

/* ------------------------------------------------------------------ host */

typedef struct olc_host olc_host;

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
 * Versioned as olc/store.h says; version 1 is the fields up to ignore_env. */
typedef struct olc_host_options {
  uint32_t version;           /* OLC_HOST_OPTIONS_VERSION */
  int allow_insecure_plugins; /* load files/dirs writable by other users */
  int ignore_env;             /* do not read OLC_PLUGIN_PATH */
  /* Version 2: where the host's diagnostics go (olc/diag.h; NULL: kept,
   * read with olc_host_next_diagnostic). */
  olc_diag_fn diag;
  void *diag_payload;
} olc_host_options;

#define OLC_HOST_OPTIONS_VERSION 2u
#define OLC_HOST_OPTIONS_INIT                                                                      \
  { OLC_HOST_OPTIONS_VERSION, 0, 0, NULL, NULL }

/*
 * fork() (POSIX): plugin instances may run threads (cpu_gemm's pool), which
 * do not exist in a child of fork().  In such a child a host opened before
 * the fork reaches no plugin: calibrate, select and explain report
 * OLC_E_UNSUPPORTED for each workload (and a store validator made from it
 * rejects with the same reason), and olc_host_free releases the host
 * without calling the plugins' destroy.  The child may open a new host: the
 * libraries stay mapped and each plugin creates a new instance.  fork()
 * waits until no thread holds the loader's locks.  The host's store is an
 * olc_store and follows store.h.
 */

/*
 * Loads every plugin of the configured directories (and OLC_PLUGIN_PATH,
 * read with secure_getenv) in sorted order and creates one instance of
 * each with its [plugin.NAME] entries and the effective thread count.
 * Files that fail are skipped and reported; the call fails only when a
 * plugin marked critical fails (OLC_E_PLUGIN), or with OLC_E_INVALID (out
 * or config NULL, an options version other than 1 or 2), OLC_E_NOMEM.
 * store is borrowed and must outlive the host; config too.  options may be
 * NULL.  *out is freed with olc_host_free.
 *
 * Diagnostics (olc/diag.h), to options->diag or kept: a warning "load" for
 * each plugin file skipped for a failure (as the load report says: not
 * disabled, not unavailable here), "plugin_dirs" for a configured plugin
 * directory that does not exist (the @exe_dir@ and @install_plugin_dir@
 * locations excepted: they name where plugins may be), "OLC_PLUGIN_PATH"
 * for an entry of it that is missing or not absolute, and "plugin NAME"
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

/* ------------------------------------------------------------------ loop */

typedef struct olc_calibration olc_calibration;

/* One measured candidate. */
typedef struct olc_candidate_result {
  const unsigned char *policy; /* serialized */
  size_t policy_len;
  double median_us; /* median latency of one run */
  double spread_us; /* median absolute deviation */
  uint32_t samples;
  int abandoned;       /* stopped early: clearly slower than the best */
  olc_status status;   /* OLC_OK, or why it could not be measured */
  const char *message; /* when status != OLC_OK or abandoned */
} olc_candidate_result;

/*
 * The measurements olc_host_calibrate saves with a winner (all in "us"
 * but samples, "count", and gflops, "GFLOP/s", when the plugin can count
 * its operations): median_latency, latency_mad (median absolute
 * deviation), samples, and the median of the plugin's first candidate
 * (its own first guess, what the workload runs without calibration),
 * when that candidate could be measured: the speedup of a selection is
 * first_candidate_median_latency / median_latency.
 */
#define OLC_MEASUREMENT_MEDIAN "median_latency"
#define OLC_MEASUREMENT_FIRST_MEDIAN "first_candidate_median_latency"

/* The outcome for one workload. */
typedef struct olc_workload_result {
  const char *workload;
  const char *backend;
  const char *operator_name;
  olc_status status;               /* OLC_OK, OLC_E_NOT_FOUND (nothing selected), ... */
  const char *message;             /* why, when status != OLC_OK; else NULL or a
                                      warning (e.g. measured in-process: no worker) */
  int calibrated_now;              /* measured in this call (even when an override then won) */
  const olc_record *selected;      /* NULL when nothing was selected */
  const olc_lookup_result *lookup; /* the final lookup (rejections) */
  const olc_candidate_result *candidates; /* measured candidates, in order */
  size_t candidate_count;
  double seconds; /* wall time spent on this workload */
} olc_workload_result;

/* Progress callback (workload i of n, candidate j of m, best so far in us;
 * best_us < 0 when none yet). */
typedef void (*olc_progress_fn)(void *payload, const char *workload, size_t workload_index,
                                size_t workload_count, size_t candidate_index,
                                size_t candidate_count, double best_us);

/* Options for olc_host_calibrate.  Initialize with OLC_CALIBRATE_OPTIONS_INIT.
 * Versioned as olc/store.h says. */
typedef struct olc_calibrate_options {
  uint32_t version;             /* OLC_CALIBRATE_OPTIONS_VERSION */
  const char *const *workloads; /* names to run; NULL: all configured */
  size_t workload_count;
  int recalibrate;    /* measure even when the store has a selection */
  int force_portable; /* in addition to the config's setting */
  int select_only;    /* never measure (olc select) */
  olc_progress_fn progress;
  void *progress_payload;
  /* Version 2 added in_process and run_timeout_seconds. */
  /* Measure in this process.  By default (POSIX) candidates are measured
   * in a worker process (olc-worker, found next to the program, in the
   * install tree or through $OLC_WORKER), so that one that crashes,
   * aborts, exits or hangs is rejected (OLC_E_CRASHED / OLC_E_TIMEOUT)
   * and the loop goes on; only this process writes the store.  Without a
   * worker (Windows, not found) measuring falls back to in-process and
   * the workload's message says so. */
  int in_process;
  /* The longest one run of a candidate may take in the worker before it
   * is killed and the candidate rejected, seconds; 0: automatic (60 s
   * until a candidate was measured, then max(10 s, 20 x the best
   * median)).  A measurement of many runs may take longer. */
  double run_timeout_seconds;
} olc_calibrate_options;

#define OLC_CALIBRATE_OPTIONS_VERSION 2u
#define OLC_CALIBRATE_OPTIONS_INIT                                                                 \
  { OLC_CALIBRATE_OPTIONS_VERSION, NULL, 0, 0, 0, 0, NULL, NULL, 0, 0.0 }

/*
 * Runs the calibrate-and-select loop.  A failing workload does not stop the
 * others; its result carries the status.  A workload whose plugin is not
 * loaded is skipped (OLC_E_UNAVAILABLE) when the load report says it
 * cannot run here or is disabled; otherwise, in a configuration a user
 * wrote (not olc_config_load_default's), it fails with OLC_E_PLUGIN and a
 * message naming the backend and why (the report's failure for its file,
 * or the directories searched when no file provides it).  Returns OLC_OK
 * when the loop ran (check each result), OLC_E_PLUGIN when such a
 * configuration has workloads to run and no plugin loaded at all (err
 * names the directories searched; where "plugin_dirs"), OLC_E_NOT_FOUND
 * for an unknown workload name, OLC_E_INVALID (also for an options
 * version 0 or newer than the library's), OLC_E_NOMEM.  *out is freed
 * with olc_calibration_free.
 */
OLC_API olc_status olc_host_calibrate(olc_calibration **out, olc_host *host,
                                      const olc_calibrate_options *options, olc_error *err);
OLC_API size_t olc_calibration_count(const olc_calibration *calibration);
OLC_API const olc_workload_result *olc_calibration_get(const olc_calibration *calibration,
                                                       size_t i);
OLC_API void olc_calibration_free(olc_calibration *calibration);

/*
 * Explains a workload: a lookup with every record of its backend and
 * operator as a candidate, validated by the plugin.  *out is freed with
 * olc_lookup_result_free.  Returns like olc_store_lookup, or
 * OLC_E_NOT_FOUND / OLC_E_UNAVAILABLE when the workload or its plugin is
 * missing.
 */
OLC_API olc_status olc_host_explain(olc_lookup_result **out, olc_host *host, const char *workload,
                                    olc_error *err);

/*
 * Removes calibrated records (never overrides) that a loaded plugin rejects
 * as outdated (older implementation) or invalid (its validate says no).
 * Records of plugins that are not loaded are kept.  report, when set, is
 * called for each record removed (or that would be, with dry_run).
 */
typedef void (*olc_prune_report_fn)(void *payload, const olc_record *record, const char *why);
OLC_API olc_status olc_host_prune(olc_host *host, int dry_run, olc_prune_report_fn report,
                                  void *payload, size_t *removed, olc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* OLC_HOST_H */
