/*
 * olc/host.h - the plugin host: configuration, plugin loading with a load
 * report, the calibrate-and-select loop, and the runtime path.
 *
 *   olc_config   an ini file (or the embedded default) read with inih
 *   olc_host     the plugins loaded from the configured directories, one
 *                instance each, and the store they calibrate into
 *   olc_host_calibrate  per workload: key -> lookup -> (measure -> save) ->
 *                select, with a report that explains every selection
 *   olc_host_bind / olc_binding_select / olc_selection_execute  what an
 *                inference runtime does: workloads described in code,
 *                selected (lazily calibrated) and executed from many
 *                threads ("runtime" below)
 *
 * Thread safety: an olc_config is immutable after loading and may be read
 * from any number of threads.  An olc_host may be used from many threads at
 * once: bind, select, execute, calibrate, explain, prune, the load report
 * and the diagnostics are thread-safe, except olc_host_open and
 * olc_host_free, which no other call on the host may overlap (free every
 * binding first).  Measuring is serialized in a process: one measurement
 * (of one key) runs at a time, others wait for it, and a plugin's run is
 * never concurrent with itself; execute is (plugin.h: it is reentrant).
 * Results (olc_calibration, lookup results) are the caller's objects;
 * selections are the host's, immutable and valid until olc_host_free.
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
   * each has min_repetitions runs, three turns, and their runs add up to
   * min_seconds; the lowest median wins, the first candidate on a lead
   * under 1% or under two standard errors (MAD-based) in their paired
   * turns (the median of the ratios of each turn's medians); a lead over
   * 1% under that noise gets more turns first, up to 4 x the runs and
   * time.  The default. */
  OLC_STRATEGY_RACE = 0,
  /* Every candidate is timed in full (min_repetitions and min_seconds),
   * with early abandon of clear losers only. */
  OLC_STRATEGY_FULL = 1
} olc_calibration_strategy;

/* [calibration] contention: what a measurement does when the machine was
 * not quiet (other tasks waiting for its CPUs, stolen time, the reference
 * candidate drifting between turns, a finalist's runs spread wide). */
typedef enum olc_contention_mode {
  /* Wait for a quiet machine and measure again, within the workload's
   * budget; when the budget ends first, the leader is saved as
   * provisional (OLC_MEASUREMENT_CONTENDED).  The default. */
  OLC_CONTENTION_WAIT = 0,
  /* Save the leader as provisional at once, without waiting. */
  OLC_CONTENTION_MARK = 1,
  /* Do not watch: every winner is saved as final. */
  OLC_CONTENTION_IGNORE = 2
} olc_contention_mode;

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
  /* Appended after 0.3: what a runtime's select does on a miss
   * (olc_select_mode: OLC_SELECT_NEVER, the default, or OLC_SELECT_ON_MISS). */
  int select_mode;
  /* Appended after 0.3: the measurement lock, one measurer per machine
   * (see olc_host_options.measure_lock). */
  const char *measure_lock;            /* NULL: the default path */
  double measure_lock_timeout_seconds; /* longest wait for it (default 300) */
  /* Appended after 0.3: the numerical check (plugins with execute): each
   * candidate's output against the reference candidate's before timing. */
  int numerical_check; /* default 1 */
  double check_atol;   /* > 0: tightens the plugin's absolute tolerance; 0: the plugin's */
  double check_rtol;   /* > 0: tightens the plugin's relative tolerance; 0: the plugin's */
  /* Appended after 0.3: cold-cache measurement.  > 0: each candidate's
   * runs rotate through enough prepared instances of the workload to
   * exceed this many MiB (default 0: one instance, warm caches). */
  double rotating_buffer_mb;
  /* Appended after 0.3: budgets beside max_seconds_per_workload (0: none).
   * max_seconds_total bounds one olc_host_calibrate call, or all the
   * lazy calibrations of one host together; max_runs_per_candidate the
   * timed runs of each candidate (warm-up excluded).  A budget that cuts
   * a measurement short saves the leader so far with the measurement
   * OLC_MEASUREMENT_BUDGET. */
  double max_seconds_total;
  uint32_t max_runs_per_candidate;
  /* Appended after 0.3: the recorded-workloads file a never-mode select
   * appends each miss to (olc_host_options.record_misses); NULL: none. */
  const char *record_misses;
  /* Appended after 0.3: olc_contention_mode (default OLC_CONTENTION_WAIT);
   * $OLC_CONTENTION (wait, mark or ignore) overrides it at olc_host_open
   * unless ignore_env. */
  int contention;
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
 * The default configuration: the file $OLC_CONFIG names when it is set
 * (read with secure_getenv; as olc_config_load_file, an error's message
 * beginning "OLC_CONFIG"), else the embedded one (config/default.ini,
 * built in).  The embedded one's install locations (@install_plugin_dir@,
 * @install_profile_dir@: the installed plugins and the system profile
 * layer, share/onnx-light/profiles.d) are searched relative to the
 * running executable (a build tree, or the install's bin) and relative to
 * the olc library's own file (dladdr; GetModuleHandleExW on Windows), so a
 * program installed anywhere that links the installed shared library
 * finds them; statically linked, the executable's directory is the only
 * anchor.  Locations that do not exist are skipped quietly; when no
 * plugin loads, olc_host_open warns ("plugins").  *out is the caller's,
 * freed with olc_config_free.  Returns OLC_OK, OLC_E_INVALID (out NULL),
 * OLC_E_NOMEM, OLC_E_IO or OLC_E_CONFIG for $OLC_CONFIG's file;
 * OLC_E_CONFIG for the embedded text only if it were broken (a test keeps
 * it valid).
 *
 * Precedence, for every setting an embedding program may give in more
 * than one place: an explicit olc_host_options / olc_store_options field
 * or per-call argument (olc_select_options.mode) > the environment
 * (OLC_SELECT_MODE, OLC_STORE, OLC_STORE_LAYERS, OLC_PLUGIN_PATH added to
 * the plugin directories, OLC_WORKER) > the ini file (OLC_CONFIG's, or the
 * caller's) > the built-in default.  olc_host_options.ignore_env turns
 * off the variables the host reads (OLC_SELECT_MODE, OLC_PLUGIN_PATH,
 * OLC_WORKER); a config marked with olc_config_set_ignore_env (or loaded
 * with OLC_CONFIG_LOAD_IGNORE_ENV) turns off every one: OLC_STORE and
 * OLC_STORE_LAYERS in olc_config_store_options, and the host's in an
 * olc_host_open given that config.
 */
OLC_API olc_status olc_config_load_default(olc_config **out, olc_error *err);

/* flags of olc_config_load_default_ext. */
#define OLC_CONFIG_LOAD_IGNORE_ENV 1u /* no OLC_CONFIG; the result ignores the env */

/*
 * olc_config_load_default with flags: OLC_CONFIG_LOAD_IGNORE_ENV loads the
 * embedded configuration whatever $OLC_CONFIG says and marks it as
 * olc_config_set_ignore_env(config, 1) does.  An unknown flag is
 * OLC_E_INVALID.
 */
OLC_API olc_status olc_config_load_default_ext(olc_config **out, unsigned flags, olc_error *err);

/*
 * Marks a configuration to read no environment variable: its
 * olc_config_store_options applies neither OLC_STORE nor
 * OLC_STORE_LAYERS, and a host opened with it reads none of its variables
 * (as olc_host_options.ignore_env).  0 unmarks it.  NULL is ignored.
 */
OLC_API void olc_config_set_ignore_env(olc_config *config, int ignore_env);
/* Whether config is so marked (0 for NULL). */
OLC_API int olc_config_ignore_env(const olc_config *config);

OLC_API void olc_config_free(olc_config *config);

/* Where the configuration came from ("<embedded default>" or the path). */
OLC_API const char *olc_config_source(const olc_config *config);
OLC_API size_t olc_config_plugin_dir_count(const olc_config *config);
OLC_API const char *olc_config_plugin_dir(const olc_config *config, size_t i);
/* Effective thread count: threads = 0 means the CPUs this process may use
 * (affinity and cgroup quota). */
OLC_API uint32_t olc_config_threads(const olc_config *config);
/* Store options from [store] (path, persistence, lock_timeout_ms) and the
 * defaults for the rest; the strings stay owned by config.  The
 * environment beats the file (unless olc_config_ignore_env): a non-empty
 * $OLC_STORE replaces path, a non-empty $OLC_STORE_LAYERS is put in
 * layers_list (version 5 and later; it replaces the layers); both are read
 * with secure_getenv and borrowed from the environment.  A field the
 * caller sets afterwards beats both.  Initialize
 * *out with OLC_STORE_OPTIONS_INIT first: only the fields of out->version
 * are written (a struct whose version is 0 or unknown gets version 1's,
 * which every caller's struct has). */
OLC_API void olc_config_store_options(const olc_config *config, olc_store_options *out);
OLC_API int olc_config_force_portable(const olc_config *config);
OLC_API const olc_calibration_settings *olc_config_calibration(const olc_config *config);
/* The built-in [calibration] defaults (the key table's), for
 * olc_host_options.calibration without a config.  OLC_OK, OLC_E_INVALID
 * (out NULL), OLC_E_NOMEM. */
OLC_API olc_status olc_calibration_defaults(olc_calibration_settings *out);
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
  int ignore_env;             /* read no OLC_PLUGIN_PATH, OLC_WORKER, OLC_SELECT_MODE */
  /* Version 2: where the host's diagnostics go (olc/diag.h; NULL: kept,
   * read with olc_host_next_diagnostic). */
  olc_diag_fn diag;
  void *diag_payload;
  /* Version 3: what olc_binding_select does on a miss when the call does
   * not say (olc_select_mode); OLC_SELECT_HOST_DEFAULT: $OLC_SELECT_MODE
   * ("never" or "on_miss"; unless ignore_env), else the config's
   * [calibration] select_mode. */
  int select_mode;
  /* Version 4: the measurement lock, a file that the processes measuring
   * on this machine (this user's) take in turn, one key at a time, so
   * that their timings never overlap.  NULL: [calibration] measure_lock,
   * else $XDG_RUNTIME_DIR/onnx-light/measure.lock when that directory is
   * this user's alone, else "<store path>.measure.lock".  Where the lock
   * cannot be used (no such place, a read-only directory, a symlink or
   * another user's file in its place) the host measures without it and
   * says so once (a "measure_lock" warning). */
  const char *measure_lock;
  /* Version 5: record misses, and budgets.  record_misses (NULL:
   * [calibration] record_misses, else none) is a recorded-workloads file:
   * a select in never mode appends each workload it finds nothing stored
   * for, once per key and process, for `olc calibrate --recorded` to
   * tune offline ("Recording misses" under runtime below).  The budgets
   * (0: the config's [calibration] max_seconds_total and
   * max_runs_per_candidate) bound this host's lazy calibrations. */
  const char *record_misses;
  double max_seconds_total;
  uint32_t max_runs_per_candidate;
  /* Version 6: the rest of the [host], [calibration] and [store] keys a
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
} olc_host_options;

#define OLC_HOST_OPTIONS_VERSION 6u
#define OLC_HOST_OPTIONS_INIT                                                                      \
  { OLC_HOST_OPTIONS_VERSION, 0, 0, NULL, NULL, 0, NULL, NULL, 0.0, 0, NULL, 0, 0, 0, NULL }

/*
 * fork() (POSIX): plugin instances may run threads (cpu_gemm's pool), which
 * do not exist in a child of fork().  In such a child a host opened before
 * the fork reaches no plugin and serves nothing from its cache: calibrate
 * reports OLC_E_UNSUPPORTED for each workload; olc_host_bind,
 * olc_binding_select and olc_host_select (warm or cold, nothing measured),
 * olc_selection_execute and olc_selection_matmul_f32 (on a selection made
 * before the fork), olc_binding_explain, olc_host_explain and
 * olc_host_prune(_ext) (nothing removed) return OLC_E_UNSUPPORTED with a
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

/* ------------------------------------------------------------------ loop */

typedef struct olc_calibration olc_calibration;

/* One measured candidate. */
typedef struct olc_candidate_result {
  const unsigned char *policy; /* serialized */
  size_t policy_len;
  double median_us; /* median latency of one run (over its samples) */
  double spread_us; /* median absolute deviation of the samples */
  /* Timed samples: each one run, or for runs shorter than 1000 steps of
   * the host's clock (at least 10 us) the mean run time of a batch of
   * consecutive runs lasting that long; one by one when
   * max_runs_per_candidate is set. */
  uint32_t samples;
  int abandoned;       /* stopped early: clearly slower than the best */
  olc_status status;   /* OLC_OK, or why it could not be measured */
  const char *message; /* when status != OLC_OK or abandoned */
  /* Appended after 0.3: 1 when it passed the numerical check (its output
   * matched the reference's within the tolerances), 0 when not checked.
   * One that failed it has status OLC_E_MISMATCH and a message
   * "numerical_mismatch: ..." with the largest error and where. */
  int checked;
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
/* Saved with every winner (unit "flag"): 1 when it passed the numerical
 * check, 0 when it was not checked (numerical_check off, or a plugin
 * without execute).  A record without it was saved unchecked. */
#define OLC_MEASUREMENT_NUMERICAL_CHECK "numerical_check"
/* Saved with every winner: how many prepared instances its runs rotated
 * through (unit "count"; 1: warm caches), and with more than one the
 * bytes of one (OLC_MEASUREMENT_ROTATING_BYTES, "bytes"): cold-cache
 * measurement ([calibration] rotating_buffer_mb). */
#define OLC_MEASUREMENT_ROTATING_COUNT "cache_rotating_instances"
#define OLC_MEASUREMENT_ROTATING_BYTES "cache_rotating_instance_bytes"
/* Saved with a winner whose measuring a budget cut short: its unit names
 * the budget ("total": [calibration] max_seconds_total, "workload":
 * max_seconds_per_workload, "runs": max_runs_per_candidate), its value
 * that budget's limit (seconds, or runs).  olc calibrate --refine (the
 * refine option) measures such a record again; otherwise it is served as
 * stored. */
#define OLC_MEASUREMENT_BUDGET "budget"
/* Saved with a winner measured while the machine was not quiet, when the
 * budget ended before a quiet measurement ([calibration] contention): its
 * unit names the signal ("runnable": other tasks waiting for a CPU beyond
 * those the workload's threads leave free, on average; "steal": the share
 * of CPU time a hypervisor stole; "reference": the first candidate's
 * slowest turn over its fastest; "spread": a finalist's MAD over its
 * median), its value that figure.  Such a record is provisional as a
 * budget-cut one is: served by select, measured again by olc calibrate
 * --refine, and by an on_miss select when the machine is quiet. */
#define OLC_MEASUREMENT_CONTENDED "contended"
/* Saved with a winner other than the first candidate, measured against
 * it: the low end of the speedup's interval (the first candidate's median
 * less two of its standard errors, over the winner's plus two of its; a
 * standard error is 1.2533 x 1.4826 x MAD / sqrt(runs)), unit "x".  At or
 * below 1 the two intervals overlap: the pick is not sure, and olc says
 * so instead of headlining the speedup. */
#define OLC_MEASUREMENT_SPEEDUP_LOW "speedup_low"

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
  /* Appended after 0.3: records of the backend and operator that the
   * final lookup neither selected nor listed (other workloads'). */
  size_t unlisted_count;
  /* Appended after 0.3: the measurement lock (olc_host_options.measure_lock), for a
   * workload that had to be measured.  lock_status: OLC_OK (measured
   * holding the lock, or nothing to measure), OLC_E_LOCK_TIMEOUT (another
   * process held it past [calibration] measure_lock_timeout_seconds: this
   * one measured anyway), OLC_E_CANCELLED (the wait was cancelled; nothing
   * measured), or why the lock could not be used (measured without it;
   * OLC_E_LOCK, OLC_E_IO, OLC_E_NOT_FOUND). */
  olc_status lock_status;
  double lock_wait_seconds; /* waited for it (0: it was free) */
  /* Who held it meanwhile, as its file says ("pid 1234, started
   * 2025-01-02T03:04:05Z"); a hint.  NULL when not known. */
  const char *lock_holder;
  /* 1: another process saved this key while this one waited; it was
   * selected from the store and nothing was measured here. */
  int measured_elsewhere;
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
  /* Version 3 added keep_samples. */
  /* Keep the run time of every timed run of every candidate, read with
   * olc_calibration_samples (a report's distributions).  Off by default:
   * a fast kernel can have tens of thousands of runs per candidate. */
  int keep_samples;
  /* Version 4 added recorded and refine. */
  /* A recorded-workloads file ([calibration] record_misses): tune its
   * workloads instead of the configured ones.  Those recorded on another
   * processor or thread count are skipped (OLC_E_UNAVAILABLE, the message
   * says why); the others go through the loop as configured workloads do,
   * and each one that ends with a selection a file holds (the store's or
   * a layer's record: not one kept in memory with persistence off or by a
   * read-only handle) is removed from the file, under its lock
   * (olc_calibration_recorded_removed).  workloads must be NULL. */
  const char *recorded;
  /* Measure again the stored records that a budget cut short (they carry
   * OLC_MEASUREMENT_BUDGET); without it they are selected as stored. */
  int refine;
  /* Version 5 added shard_index and shard_count. */
  /* With recorded and shard_count > 0: tune only shard shard_index
   * (0-based, below shard_count) of shard_count disjoint parts of the
   * file's workloads, and leave the file as it is (merge the shards' stores
   * with olc_store_import_files, then olc_recorded_remove_stored).  A
   * workload's shard is a hash of its key (backend, operator, processor,
   * thread count, identity) modulo shard_count, so it does not depend on
   * its line, on the other workloads, or on workloads appended meanwhile;
   * a key falls in the same shard on every machine.  Results are those of
   * the shard's workloads only.  With recorded NULL, or shard_index not
   * below a shard_count > 0: OLC_E_INVALID.  0: no sharding. */
  uint32_t shard_index;
  uint32_t shard_count;
} olc_calibrate_options;

#define OLC_CALIBRATE_OPTIONS_VERSION 5u
#define OLC_CALIBRATE_OPTIONS_INIT                                                                 \
  { OLC_CALIBRATE_OPTIONS_VERSION, NULL, 0, 0, 0, 0, NULL, NULL, 0, 0.0, 0, NULL, 0, 0, 0 }

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
 * version 0 or newer than the library's, or recorded with workloads),
 * OLC_E_NOMEM.  With recorded, also the file's failures before anything is
 * measured (OLC_E_MALFORMED "FILE:LINE:COLUMN: ...", also for a store
 * given as the file; OLC_E_VERSION, a newer format; OLC_E_LIMIT, OLC_E_IO;
 * a missing file has no workloads), and those of removing the tuned ones
 * afterwards (OLC_E_LOCK_TIMEOUT, OLC_E_LOCK, OLC_E_IO, OLC_E_NOSPC: what
 * was measured stays saved, the file as it was).  *out is freed with
 * olc_calibration_free.
 */
OLC_API olc_status olc_host_calibrate(olc_calibration **out, olc_host *host,
                                      const olc_calibrate_options *options, olc_error *err);
OLC_API size_t olc_calibration_count(const olc_calibration *calibration);
OLC_API const olc_workload_result *olc_calibration_get(const olc_calibration *calibration,
                                                       size_t i);
OLC_API void olc_calibration_free(olc_calibration *calibration);

/*
 * The run times, in us, of candidate `candidate` of result `workload`, in
 * the order they were timed (warm-up runs excluded; the race's screening
 * runs first, then its final's turns), one per sample (a run, or a batch's
 * mean run time: olc_candidate_result.samples): *out points to that many doubles,
 * borrowed from calibration until olc_calibration_free.  Their median and
 * MAD are the candidate's median_us and spread_us.  Returns the number of
 * runs; 0 with *out NULL when calibration was made without keep_samples,
 * the candidate was not timed (failed before a run, or not reached), or
 * an index is out of range (calibration NULL too).  out may be NULL to
 * ask for the count.  Thread safety: reads only; any number of threads
 * may call it on one calibration.
 */
OLC_API size_t olc_calibration_samples(const double **out, const olc_calibration *calibration,
                                       size_t workload, size_t candidate);

/*
 * The index of the candidate of result `workload` that measuring chose and
 * saved: the one whose policy the store then selected, unless a record of
 * a higher precedence (an override, say) won the final lookup.  The race
 * keeps the plugin's first candidate on a lead it cannot tell from noise,
 * so this is not always the lowest median.  Returns the result's
 * candidate_count when nothing was measured now or no candidate could be,
 * 0 for an index out of range or calibration NULL.  Thread safety as for
 * olc_calibration_samples.
 */
OLC_API size_t olc_calibration_winner(const olc_calibration *calibration, size_t workload);

/* How many workloads a calibration made with the recorded option removed
 * from its file (tuned, or found stored); 0 otherwise or for NULL. */
OLC_API size_t olc_calibration_recorded_removed(const olc_calibration *calibration);

/*
 * Removes from the recorded-workloads file at path, under its lock (the
 * file's reload-merge-replace, so workloads recorded meanwhile are kept
 * unless the store holds them too), every workload whose exact record the
 * store's own file holds: an exact record (calibrated or override, of any
 * implementation) of the workload's backend, operator, processor and
 * thread count whose model digest is the workload's identity.  Records in
 * memory only (persistence off, a read-only handle's saves) and a layer's
 * records do not count.  *removed (may be NULL) counts the workloads
 * removed.  A missing file removes nothing.  Returns OLC_OK, OLC_E_INVALID
 * (path or store NULL), OLC_E_MALFORMED (the file is not a
 * recorded-workloads file, or a line of it does not parse:
 * "FILE:LINE:COLUMN: ..."; nothing written), OLC_E_VERSION,
 * OLC_E_LOCK_TIMEOUT, OLC_E_LOCK, OLC_E_IO, OLC_E_NOSPC, OLC_E_NOMEM.
 * Thread safety: as the store's other calls.
 */
OLC_API olc_status olc_recorded_remove_stored(size_t *removed, const char *path, olc_store *store,
                                              olc_error *err);

/*
 * Explains a configured workload: the lookup calibrate and select make,
 * validated by the plugin, with the records that could have served the
 * workload as candidates (scoped: see "Rejections" under runtime below;
 * the others counted by olc_lookup_result_unlisted_count).  Never
 * measures.  *out is freed with olc_lookup_result_free.  Returns like
 * olc_store_lookup (OLC_OK, OLC_E_NOT_FOUND with *out set), or
 * OLC_E_NOT_FOUND (no such workload; *out NULL), OLC_E_UNAVAILABLE (its
 * plugin is not loaded), OLC_E_UNSUPPORTED, OLC_E_INVALID as olc_host_bind
 * says.
 */
OLC_API olc_status olc_host_explain(olc_lookup_result **out, olc_host *host, const char *workload,
                                    olc_error *err);
/* The same with every record of the workload's backend and operator as a
 * candidate (all_candidates; olc explain --all). */
OLC_API olc_status olc_host_explain_all(olc_lookup_result **out, olc_host *host,
                                        const char *workload, olc_error *err);

/*
 * Removes calibrated records (never overrides) that a loaded plugin rejects
 * as outdated (older implementation) or invalid (its validate says no).
 * Records of plugins that are not loaded are kept.  report, when set, is
 * called for each record removed (or that would be, with dry_run).
 * *removed (may be NULL) receives how many were (or would be) removed.
 * Returns what olc_host_prune_ext returns.
 */
typedef void (*olc_prune_report_fn)(void *payload, const olc_record *record, const char *why);
OLC_API olc_status olc_host_prune(olc_host *host, int dry_run, olc_prune_report_fn report,
                                  void *payload, size_t *removed, olc_error *err);

/* Flags of olc_host_prune_ext. */
#define OLC_PRUNE_DRY_RUN 1u /* only report */
/* Also remove the exact calibrated records of another machine: the
 * record's plugin, loaded here and asked for the key of the record's own
 * workload (the structure its model digest carries), reports another
 * processor or thread count.  Records of plugins not loaded here, legacy
 * records (a digest without a workload), portable records and overrides
 * are kept; so is a record whose plugin refuses that workload's key. */
#define OLC_PRUNE_FOREIGN 2u

/*
 * olc_host_prune with flags (OLC_PRUNE_*); report's why begins with
 * "foreign processor" or "foreign thread count" for a foreign record.
 * Returns OLC_OK, OLC_E_INVALID (host NULL or without a store, unknown
 * flags), OLC_E_UNSUPPORTED (in a child of fork(), above), OLC_E_NOMEM,
 * or what olc_store_remove_if returns (a write
 * failure; OLC_E_READ_ONLY on a read-only store without
 * OLC_PRUNE_DRY_RUN, which only reads).  Not concurrent with
 * olc_host_free.
 */
OLC_API olc_status olc_host_prune_ext(olc_host *host, unsigned flags, olc_prune_report_fn report,
                                      void *payload, size_t *removed, olc_error *err);

/* --------------------------------------------------------------- runtime */

/*
 * What an inference runtime does: describe each workload in code when a
 * model loads, bind it once, select for it from many threads, and execute
 * the selection on its own tensors.
 *
 *   olc_workload w = OLC_WORKLOAD_INIT;          // backend, operator, properties
 *   olc_binding *b;  olc_host_bind(&b, host, &w, &err);
 *   const olc_selection *s;
 *   olc_binding_select(&s, b, NULL, &err);       // OLC_OK or OLC_FIRST_CANDIDATE
 *   olc_selection_matmul_f32(s, m, n, k, 1, a, k, b, n, 0, c, n, &err);
 *
 * Identity.  The exact key of a workload is the plugin's key (processor,
 * thread count, structure: what its key reports through add_structure,
 * after any bucketing) with a model digest the host composes from the
 * workload's model and that structure (the grammar of olc/store.h):
 *   "<model digest>#<canonical structure>"   with a model (model = PATH and
 *        model_bytes: "sha256:<hex>" of the bytes; model_digest as given)
 *   "workload:<canonical structure>"          without one
 * e.g. "sha256:9f2c...#dtype=float32;k=64;m=64;n=64".  So two shapes of one
 * model never share an exact record, and an ini workload without a model
 * keeps the digest it always had ("workload:" and its properties, sorted,
 * when the plugin reports them as given).  A record written before records
 * were per workload (an exact record whose digest is the bare model digest,
 * from `model =` or `model_digest =`) is never selected for any shape of
 * that model: select, calibrate and explain report it as different_model
 * ("... before records were per workload (recalibrated)"), and measuring
 * writes the workload's own record next to it (olc prune leaves it).
 *
 * Rejections.  The lookups of select, calibrate and explain are scoped to
 * the workload (OLC_LOOKUP_SCOPE_WORKLOAD): they list the records that
 * could have served it (the same workload with another implementation,
 * processor or thread count, a failed validation, skipped by
 * force_portable, shadowed, or the same workload of a changed model) and
 * count the records of other workloads (olc_lookup_result_unlisted_count,
 * olc_workload_result.unlisted_count).  olc_host_explain_all lists them all.
 *
 * Recording misses.  With a record_misses file (olc_host_options,
 * [calibration] record_misses), a select in never mode that finds nothing
 * stored appends the workload to it: backend, operator, the processor and
 * thread count of its key, its identity (the key's model digest), its
 * model digest and its properties, one record per key, once per key and
 * host (later misses of that key append nothing).  The file is written as
 * the store is (its own lock, a temporary, fsync, rename), so processes
 * that record at once lose and duplicate nothing; a file that is not a
 * recorded-workloads file, or is malformed or newer, is never rewritten:
 * the select still answers (its first candidate) and the host says so
 * once per key with a "record_misses" warning.  `olc calibrate --recorded
 * FILE` (olc_calibrate_options.recorded) tunes them offline.
 *
 * Budgets.  [calibration] max_seconds_total (or the host option) bounds
 * the lazy calibrations of one host together: once spent, an on_miss
 * select measures nothing and gives the first candidate, why OLC_E_LIMIT.
 */

/* What a select does when nothing is stored for the key. */
typedef enum olc_select_mode {
  OLC_SELECT_HOST_DEFAULT = 0, /* the host's (olc_host_options, [calibration] select_mode) */
  OLC_SELECT_NEVER = 1,        /* the store only: a miss gives the plugin's first candidate */
  OLC_SELECT_ON_MISS = 2       /* a miss is measured (budget, isolation), saved, selected */
} olc_select_mode;

/* A workload described in code.  Initialize with OLC_WORKLOAD_INIT;
 * versioned as olc/store.h says.  Every pointer is borrowed for the call. */
typedef struct olc_workload {
  uint32_t version;               /* OLC_WORKLOAD_VERSION */
  const char *backend;            /* required: the name of a loaded plugin */
  const char *operator_name;      /* required: an operator it serves ("MatMul") */
  const olc_property *properties; /* structural properties (dtype, m, n, k ...) */
  size_t property_count;          /* names unique, non-empty; UTF-8 */
  /* "sha256:<hex>" or any "<algorithm>:<hex>" but "workload:" (the
   * identity of a workload without a model); NULL: none */
  const char *model_digest;
  const void *model_bytes; /* hashed with SHA-256 when model_digest is NULL */
  size_t model_len;        /* bytes at model_bytes (0 with model_bytes NULL: none) */
  const char *name;        /* for messages; NULL: "backend/operator" */
  /* Version 2: the operator's constant inputs (weights, ONNX initializers),
   * borrowed for the binding's life and never changed meanwhile; the
   * binding packs each once for its selected policy (olc_binding_execute).
   * A binding with constants is the caller's own: olc_host_select refuses
   * such a workload. */
  const struct olc_constant *constants;
  size_t constant_count; /* at most OLC_EXECUTE_MAX_OPERANDS, inputs distinct */
} olc_workload;

#define OLC_WORKLOAD_VERSION 2u
#define OLC_WORKLOAD_INIT                                                                          \
  { OLC_WORKLOAD_VERSION, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, 0 }

/* Polled while a select waits; non-zero stops the wait. */
typedef int (*olc_cancel_fn)(void *payload);

/* How one select goes.  Initialize with OLC_SELECT_OPTIONS_INIT (NULL: the
 * defaults); versioned as olc/store.h says. */
typedef struct olc_select_options {
  uint32_t version; /* OLC_SELECT_OPTIONS_VERSION */
  int mode;         /* olc_select_mode; OLC_SELECT_HOST_DEFAULT: the host's */
  /* The longest wait, in milliseconds, for a measurement that another
   * thread of this process is making (of this key, or of another: one
   * measures at a time) or, with a machine-wide measurement lock, another
   * process; < 0 waits as long as it takes (the default), 0 never waits.
   * A measurement this call makes itself is bounded by the configured
   * budget ([calibration] max_seconds_per_workload), not by this. */
  int64_t timeout_ms;
  olc_cancel_fn cancel; /* polled every few milliseconds while waiting; may be NULL */
  void *cancel_payload;
  int force_portable; /* select portable records only (besides the config's) */
  int in_process;     /* measure in this process, not in olc-worker */
} olc_select_options;

#define OLC_SELECT_OPTIONS_VERSION 1u
#define OLC_SELECT_OPTIONS_INIT                                                                    \
  { OLC_SELECT_OPTIONS_VERSION, OLC_SELECT_HOST_DEFAULT, -1, NULL, NULL, 0, 0 }

/* One workload bound to its plugin and key (olc_host_bind). */
typedef struct olc_binding olc_binding;
/* What a select chose: immutable, owned by the host, valid until
 * olc_host_free. */
typedef struct olc_selection olc_selection;

/*
 * Binds a workload: validates it, finds its plugin, asks the plugin for its
 * key and composes the identity (above).  No store access, no measuring.
 * *out is freed with olc_binding_free, before olc_host_free.  Thread-safe.
 *
 * Returns OLC_OK, or for bad input (err->message names the workload):
 * OLC_E_INVALID (w, out or host NULL; a version 0 or newer than the
 * library's; no backend or operator; a property with a NULL or empty name,
 * a NULL value, a name twice, text that is not UTF-8; model_bytes NULL with
 * model_len > 0; an empty model_digest, or one beginning "workload:";
 * or a workload the plugin's key
 * rejects as invalid), OLC_E_NOT_FOUND (no plugin of that backend is
 * loaded), OLC_E_UNAVAILABLE (the plugin is not usable on this machine:
 * its create said so), OLC_E_UNSUPPORTED (the plugin does not serve the
 * operator, or its key does not serve this workload; in a child of
 * fork()), OLC_E_PLUGIN (its key failed otherwise), OLC_E_INTERNAL (hashing model_bytes failed),
 * OLC_E_NOMEM.  Constants (version 2) are checked as olc_selection_execute
 * checks an input: OLC_E_INVALID (more than OLC_EXECUTE_MAX_OPERANDS, at a
 * NULL pointer, an input not below OLC_EXECUTE_MAX_OPERANDS or given twice,
 * a bad description), OLC_E_UNSUPPORTED (a view for a plugin that does
 * not take views).
 */
OLC_API olc_status olc_host_bind(olc_binding **out, olc_host *host, const olc_workload *w,
                                 olc_error *err);
/* NULL is fine.  Not concurrent with other calls on b; its selections
 * stay valid (they are the host's). */
OLC_API void olc_binding_free(olc_binding *b);

/*
 * Selects for a bound workload: the stored record the plugin validates, by
 * the store's precedence.  Many threads may select at once, on one binding
 * or many.  A warm binding (selected before, nothing saved by this host
 * since, the store checked for other processes' changes less than
 * OLC_SELECT_RECHECK_MS ago) answers from its cached selection without
 * allocating, locking or a system call.
 *
 * On a miss, by mode: OLC_SELECT_NEVER gives the plugin's first candidate
 * (why OLC_E_NOT_FOUND); OLC_SELECT_ON_MISS measures the candidates as
 * olc_host_calibrate does (the [calibration] settings; in olc-worker unless
 * in_process or isolation = false), saves the winner and selects it.
 * Concurrent selects of one key make one measurement, the others wait for
 * it; one measurement runs at a time in a process.  A wait that times out
 * or is cancelled gives the first candidate (why OLC_E_TIMEOUT /
 * OLC_E_CANCELLED) and leaves the measurement to whoever makes it; a
 * measurement that fails gives the first candidate with its status as why;
 * a record saved meanwhile (by another process, say) is served, and the
 * key is measured again by the first select 1 s after the failure, the
 * wait doubling with each further failure up to 5 minutes.
 *
 * Returns OLC_OK (*out: a stored or just measured record),
 * OLC_FIRST_CANDIDATE (*out: the plugin's first candidate; err, when
 * given, holds olc_selection_message), or a failure with *out NULL:
 * OLC_E_INVALID (out or b NULL, bad options), the store's lookup failures,
 * the plugin's candidates failures (OLC_E_PLUGIN, OLC_E_UNSUPPORTED: it
 * has no candidate to fall back on), OLC_E_UNSUPPORTED (in a child of
 * fork(): see "fork()" above), OLC_E_NOMEM.  *out is valid until
 * olc_host_free.
 */
OLC_API olc_status olc_binding_select(const olc_selection **out, olc_binding *b,
                                      const olc_select_options *opt, olc_error *err);

/* How often (at most) a warm binding asks the store whether another
 * process changed it. */
#define OLC_SELECT_RECHECK_MS 1000

/*
 * olc_host_bind + olc_binding_select in one call: the binding is made once
 * per workload description (backend, operator, properties in any order,
 * model digest; the name is not part of it) and kept by the host until
 * olc_host_free.  A described workload that was bound before answers
 * without allocating (model_bytes are hashed on every call: give
 * model_digest on a hot path).  Returns like both, and OLC_E_INVALID for a
 * workload with constants (its binding would be shared: bind it with
 * olc_host_bind and execute with olc_binding_execute).  Thread-safe.
 */
OLC_API olc_status olc_host_select(const olc_selection **out, olc_host *host, const olc_workload *w,
                                   const olc_select_options *opt, olc_error *err);

/* The record selected, or NULL for a first candidate.  Borrowed from s. */
OLC_API const olc_record *olc_selection_record(const olc_selection *s);
/* The serialized policy (*len its length), the record's or the first
 * candidate's.  Borrowed from s. */
OLC_API const unsigned char *olc_selection_policy(const olc_selection *s, size_t *len);
/* 1 when this host measured the record (an on_miss select, or calibrate). */
OLC_API int olc_selection_calibrated_now(const olc_selection *s);
/* Why a first candidate: OLC_OK for a record, OLC_E_NOT_FOUND (nothing
 * stored, mode never), OLC_E_TIMEOUT, OLC_E_CANCELLED, or the status of the
 * measurement that failed. */
OLC_API olc_status olc_selection_why(const olc_selection *s);
/* One line saying what s is ("stored exact calibrated record", "first
 * candidate: ..."). Borrowed from s. */
OLC_API const char *olc_selection_message(const olc_selection *s);
/* 1 when the selection's plugin implements execute (ABI 1.1). */
OLC_API int olc_selection_can_execute(const olc_selection *s);

/* Element types (the values of plugin.h's OLC_PLUGIN_DTYPE_*). */
#define OLC_DTYPE_FLOAT32 1u
#define OLC_DTYPE_FLOAT16 2u
#define OLC_DTYPE_FLOAT64 3u
#define OLC_DTYPE_INT8 4u
#define OLC_DTYPE_BFLOAT16 5u
#define OLC_TENSOR_MAX_RANK 8u

/*
 * A tensor in caller memory (mirrors plugin.h's olc_plugin_tensor):
 * dims[0..rank) outermost first (each at least 1), strides[i] in elements
 * between neighbours along dims[i]; a row-major m x k matrix with leading
 * dimension lda has rank 2, dims {m, k}, strides {lda, 1}.  Entries past
 * rank are not read.  Views, as numpy and DLPack describe them: strides in
 * any order (a transposed m x k matrix stored k x m row-major is dims
 * {m, k}, strides {1, m}), a stride 0 on a broadcast axis of an input (one
 * element repeated), rank 0 for a scalar; only a plugin that takes views
 * (plugin ABI 1.3, OLC_PLUGIN_FEATURE_VIEWS) executes them.  Apart from
 * broadcast axes no two indices may name one element.
 */
typedef struct olc_tensor {
  uint32_t dtype; /* OLC_DTYPE_* */
  uint32_t rank;  /* 0 .. OLC_TENSOR_MAX_RANK (0: a scalar, a view) */
  int64_t dims[OLC_TENSOR_MAX_RANK];
  int64_t strides[OLC_TENSOR_MAX_RANK];
  void *data;
} olc_tensor;

/* A constant input of a bound workload (olc_workload.constants). */
typedef struct olc_constant {
  uint32_t input;    /* its position among the operator's inputs (MatMul/Gemm B: 1) */
  olc_tensor tensor; /* as execute would describe it; data borrowed for the binding's life */
} olc_constant;

/* The operands of one execute.  Initialize with OLC_EXECUTE_ARGS_INIT;
 * versioned as olc/store.h says.  MatMul: inputs A, B; output C;
 * C = alpha * A * B + beta * C (beta 0: C is not read). */
typedef struct olc_execute_args {
  uint32_t version; /* OLC_EXECUTE_ARGS_VERSION */
  const olc_tensor *inputs;
  size_t input_count; /* at most OLC_EXECUTE_MAX_OPERANDS */
  const olc_tensor *outputs;
  size_t output_count; /* at most OLC_EXECUTE_MAX_OPERANDS */
  double alpha;
  double beta;
} olc_execute_args;

#define OLC_EXECUTE_MAX_OPERANDS 8u
#define OLC_EXECUTE_ARGS_VERSION 1u
#define OLC_EXECUTE_ARGS_INIT                                                                      \
  { OLC_EXECUTE_ARGS_VERSION, NULL, 0, NULL, 0, 1.0, 0.0 }

/*
 * Runs the selection's policy through its plugin's execute on the caller's
 * tensors, synchronously; the plugin keeps no pointer past the return.
 * Reentrant: any number of threads may execute at once, on one selection
 * or many.  The host checks every description before the plugin sees it;
 * on success it allocates nothing, makes no system call and composes no
 * message (err is written only on failure).  Nothing is written to the
 * store.
 *
 * Returns OLC_OK; OLC_E_INVALID (s or args NULL, a bad args version, more
 * than OLC_EXECUTE_MAX_OPERANDS, and per tensor: data NULL, rank above 8,
 * an unknown dtype, a dimension below 1, a stride below 0, elements that
 * overlap apart from broadcast axes (a leading dimension smaller than the
 * width below it), a stride 0 on an output's axis of more than one
 * element, an extent whose bytes overflow int64 or run past the end of the
 * address space; or what the plugin finds contradictory);
 * OLC_E_UNSUPPORTED (an output whose bytes overlap an input's, for every
 * plugin; a view (rank 0, a stride 0, strides not row-major) for a plugin
 * that does not take views: "input 1 is a view (strides not row-major):
 * plugin x does not take views"; the plugin cannot execute: "plugin 'x'
 * was built for plugin ABI 1.0 and cannot execute", or it refuses the
 * variant: batched operands, another dtype; or the call is made in a child
 * of fork(), "fork()" above); OLC_E_PLUGIN (its other failures, with its
 * message).
 */
OLC_API olc_status olc_selection_execute(const olc_selection *s, const olc_execute_args *args,
                                         olc_error *err);

/*
 * MatMul fp32 row-major: C[m x n] = alpha * A[m x k] * B[k x n] + beta * C
 * with leading dimensions lda >= k, ldb >= n, ldc >= n.  Returns like
 * olc_selection_execute; m, n, k below 1, a leading dimension below its
 * width or a NULL matrix is OLC_E_INVALID naming the argument.
 */
OLC_API olc_status olc_selection_matmul_f32(const olc_selection *s, int64_t m, int64_t n, int64_t k,
                                            float alpha, const float *a, int64_t lda,
                                            const float *b, int64_t ldb, float beta, float *c,
                                            int64_t ldc, olc_error *err);

/*
 * Executes a bound workload with the selection s (from olc_binding_select
 * on b; NULL: b selects now with the default options) on the caller's
 * tensors and the binding's constants.  args lists every input in order;
 * a constant input may be given as a zeroed olc_tensor (data NULL: the
 * binding's is used) or as the bound description itself.  The binding
 * packs each constant once for the selection's policy (the plugin's pack,
 * ABI 1.3) and reuses the packed copy on every call; a new selection
 * (after a calibration or a store change) packs again, while calls still
 * running with the old copy finish with it; the old copy is freed when
 * the last of them returns.  With s NULL, a call whose select still gave
 * the selection the binding's newest one replaced runs with the newer
 * one.  A constant the plugin does not pack (its pack says unsupported)
 * is read in place on every call, and pack is not asked again for that
 * selection.  Reentrant on one binding; warm (packed, selected), it
 * allocates nothing, makes no system call and composes no message.
 * Returns like olc_selection_execute (a first candidate executes:
 * OLC_OK), the failures of olc_binding_select when s is NULL, those of
 * the plugin's pack (OLC_E_PLUGIN, OLC_E_NOMEM), and OLC_E_INVALID for b
 * or args NULL, a selection of another binding's key, or a constant input
 * missing or given with other data.
 */
OLC_API olc_status olc_binding_execute(olc_binding *b, const olc_selection *s,
                                       const olc_execute_args *args, olc_error *err);

/* The bytes of b's packed constants, counting an old selection's copy
 * until its last call returns (0: none packed yet, or none).  Thread-safe. */
OLC_API uint64_t olc_binding_packed_bytes(const olc_binding *b);

/*
 * Explains a bound workload: its lookup (scoped to the workload, or with
 * all_candidates every record of its backend and operator) with the
 * plugin's validator; never measures.  *out is freed with
 * olc_lookup_result_free.  Returns like olc_store_lookup (OLC_OK,
 * OLC_E_NOT_FOUND with *out set, ...), OLC_E_INVALID (NULL arguments, no
 * store), OLC_E_UNSUPPORTED (in a child of fork()).  Thread-safe.
 */
OLC_API olc_status olc_binding_explain(olc_lookup_result **out, olc_binding *b, int all_candidates,
                                       olc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* OLC_HOST_H */
