/*
 * olc/config.h - the host's configuration: an ini file (or the embedded
 * default) read with inih into an olc_config: the plugin directories, the
 * store's options, the [calibration] settings, the configured workloads
 * and the [plugin.NAME] sections (docs/configuration.md lists every key).
 *
 * Thread safety: an olc_config is immutable after loading and may be read
 * from any number of threads.
 */
#ifndef OLC_CONFIG_H
#define OLC_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "olc/error.h"
#include "olc/export.h"
#include "olc/store.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct olc_config olc_config;

/* [calibration] strategy: how the candidates of one workload are timed. */
typedef enum olc_calibration_strategy {
  /* Every candidate is screened briefly (warm-up, then timed runs for at
   * least min_seconds / 16, at least one); 3 finalists, the plugin's
   * first candidate and the fastest (of screening times within 2% of the
   * fastest left, the earliest offered), then run interleaved, in turns, until
   * each has min_repetitions runs, three turns, and their runs add up to
   * min_seconds; the lowest median wins, the first candidate on a lead
   * under 1% or under two standard errors (MAD-based) in their paired
   * turns (the median of the ratios of each turn's medians), and of two
   * challengers so close the one offered first; a lead over 1% under
   * that noise gets more turns first, up to 4 x the runs and time.  The
   * default. */
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
 * beginning "OLC_CONFIG") and flags lack OLC_CONFIG_LOAD_IGNORE_ENV, else
 * the embedded one (config/default.ini,
 * built in).  The embedded one's install locations (@install_plugin_dir@,
 * @install_profile_dir@: the installed plugins and the system profile
 * layer, share/onnx-light/profiles.d) are searched relative to the
 * running executable (a build tree, or the install's bin) and relative to
 * the olc library's own file (dladdr; GetModuleHandleExW on Windows), so a
 * program installed anywhere that links the installed shared library
 * finds them; statically linked, the executable's directory is the only
 * anchor.  Locations that do not exist are skipped quietly; when no
 * plugin loads, olc_host_open warns ("plugins").  *out is the caller's,
 * freed with olc_config_free.  flags: 0 or OLC_CONFIG_LOAD_IGNORE_ENV (the
 * embedded configuration whatever $OLC_CONFIG says, marked as
 * olc_config_set_ignore_env(config, 1) marks it).  Returns OLC_OK,
 * OLC_E_INVALID (out NULL, an unknown flag), OLC_E_NOMEM, OLC_E_IO or OLC_E_CONFIG for
 * $OLC_CONFIG's file; OLC_E_CONFIG for the embedded text only if it were broken (a test keeps it
 * valid).
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
OLC_API olc_status olc_config_load_default(olc_config **out, unsigned flags, olc_error *err);

/* Flags of olc_config_load_default. */
#define OLC_CONFIG_LOAD_IGNORE_ENV 1u /* no OLC_CONFIG; the result ignores the env */

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
 * layers_list (it replaces the layers); both are read
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

#ifdef __cplusplus
}
#endif

#endif /* OLC_CONFIG_H */
