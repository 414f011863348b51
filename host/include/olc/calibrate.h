/*
 * olc/calibrate.h - the calibrate-and-select loop of the configured
 * workloads: olc_host_calibrate takes each through key -> lookup ->
 * (measure -> save) -> select, with a report that explains every
 * selection; explain and prune over the same store.
 *
 * Thread safety: calibrate, explain and prune are thread-safe on a host
 * (olc/loader.h).  Measuring is serialized in a process: one measurement
 * (of one key) runs at a time, others wait for it, and a plugin's run is
 * never concurrent with itself.  Results (olc_calibration, lookup results)
 * are the caller's objects.
 */
#ifndef OLC_CALIBRATE_H
#define OLC_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "olc/error.h"
#include "olc/export.h"
#include "olc/loader.h"
#include "olc/store.h"

#ifdef __cplusplus
extern "C" {
#endif

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
  /* Keep the run time of every timed run of every candidate, read with
   * olc_calibration_samples (a report's distributions).  Off by default:
   * a fast kernel can have tens of thousands of runs per candidate. */
  int keep_samples;
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

#define OLC_CALIBRATE_OPTIONS_VERSION 1u
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
 * workload as candidates (scoped: see "Rejections" in olc/runtime.h;
 * the others counted by olc_lookup_result_unlisted_count), or with
 * OLC_EXPLAIN_ALL (olc/loader.h) every record of the workload's backend and operator.
 * Never measures.  The workload is named as the host's config names it;
 * olc_binding_explain, of the same shape, explains a workload a program
 * bound in code (olc_host_bind).  *out is freed with
 * olc_lookup_result_free.  Returns like olc_store_lookup (OLC_OK,
 * OLC_E_NOT_FOUND with *out set), or OLC_E_NOT_FOUND (no such workload;
 * *out NULL), OLC_E_UNAVAILABLE (its plugin is not loaded),
 * OLC_E_UNSUPPORTED, OLC_E_INVALID (as olc_host_bind says; an unknown
 * flag).
 */
OLC_API olc_status olc_host_explain(olc_lookup_result **out, olc_host *host, const char *workload,
                                    unsigned flags, olc_error *err);

/* Flags of olc_host_prune. */
#define OLC_PRUNE_DRY_RUN 1u /* only report */
/* Also remove the exact calibrated records of another machine: the
 * record's plugin, loaded here and asked for the key of the record's own
 * workload (the structure its model digest carries), reports another
 * processor or thread count.  Records of plugins not loaded here, legacy
 * records (a digest without a workload), portable records and overrides
 * are kept; so is a record whose plugin refuses that workload's key. */
#define OLC_PRUNE_FOREIGN 2u

/*
 * Removes calibrated records (never overrides) that a loaded plugin rejects
 * as outdated (older implementation) or invalid (its validate says no),
 * and with OLC_PRUNE_FOREIGN those of another machine.  Records of plugins
 * that are not loaded are kept.  report, when set, is called for each
 * record removed (or that would be, with OLC_PRUNE_DRY_RUN); its why
 * begins with "foreign processor" or "foreign thread count" for a foreign
 * record.  *removed (may be NULL) receives how many were (or would be)
 * removed.  Returns OLC_OK, OLC_E_INVALID (host NULL or without a store,
 * unknown flags), OLC_E_UNSUPPORTED (in a child of fork(), olc/loader.h),
 * OLC_E_NOMEM, or what olc_store_remove_if returns (a write failure;
 * OLC_E_READ_ONLY on a read-only store without OLC_PRUNE_DRY_RUN, which
 * only reads).  Not concurrent with olc_host_free.
 */
typedef void (*olc_prune_report_fn)(void *payload, const olc_record *record, const char *why);
OLC_API olc_status olc_host_prune(olc_host *host, unsigned flags, olc_prune_report_fn report,
                                  void *payload, size_t *removed, olc_error *err);

/* What olc_host_verify found for one layer record (olc_verify_entry). */
typedef enum olc_verify_outcome {
  OLC_VERIFY_KEPT = 1,         /* its policy still wins here (or ties within the noise) */
  OLC_VERIFY_RECALIBRATED = 2, /* a challenger won beyond the noise: saved to the user's store */
  OLC_VERIFY_STALE = 3,        /* a challenger won, but the store is read-only: nothing saved */
  OLC_VERIFY_SKIPPED = 4,      /* not verified here (message: why) */
  OLC_VERIFY_FAILED = 5        /* measuring failed (status, message) */
} olc_verify_outcome;

/* One record verified; everything borrowed for the report callback. */
typedef struct olc_verify_entry {
  const olc_record *record; /* the layer's record */
  olc_verify_outcome outcome;
  olc_status status;                  /* OLC_OK, or why it failed or was skipped */
  const char *message;                /* one line */
  double stored_median_us;            /* the record's policy measured here; < 0: not measured */
  double winner_median_us;            /* the winner's (the record's when kept); < 0: none */
  const unsigned char *winner_policy; /* the new policy (recalibrated, stale), else NULL */
  size_t winner_policy_len;
  size_t candidates; /* policies raced, the record's included */
} olc_verify_entry;

typedef void (*olc_verify_report_fn)(void *payload, const olc_verify_entry *entry);

/* How olc_host_verify goes.  Initialize with OLC_VERIFY_OPTIONS_INIT;
 * versioned as olc/store.h says. */
typedef struct olc_verify_options {
  uint32_t version; /* OLC_VERIFY_OPTIONS_VERSION */
  /* 0: every layer record; n: at most n of them, spread evenly over the
   * store's order (the same n records on every run over one store). */
  size_t sample;
  int dry_run;    /* measure and report, save nothing (as a read-only store does) */
  int in_process; /* measure in this process, not in olc-worker */
} olc_verify_options;

#define OLC_VERIFY_OPTIONS_VERSION 1u
#define OLC_VERIFY_OPTIONS_INIT                                                                    \
  { OLC_VERIFY_OPTIONS_VERSION, 0, 0, 0 }

/*
 * Verifies the calibrated records of the store's read-only layers (shipped
 * profiles, olc_store_options.layers) on this machine: for each one that
 * this host would select (its plugin loaded with the record's
 * implementation, its workload's key here has the record's processor and
 * thread count, no record of the user's file or an earlier layer shadows
 * it), its policy is raced first against the plugin's candidates with the
 * [calibration] settings; a tie keeps it, so it is replaced only when a
 * candidate beats it beyond the noise.  Then the winner is saved to the
 * user's store (OLC_VERIFY_RECALIBRATED), where it takes precedence over
 * the layer; with dry_run, or a store that is read-only (read-only mode
 * or a file that cannot be written), nothing is saved (OLC_VERIFY_STALE).
 * Overrides, legacy records (no workload identity) and records of plugins
 * not loaded are OLC_VERIFY_SKIPPED with the reason.  report (may be NULL)
 * is called once per layer record considered, in the store's order;
 * counts (may be NULL) receives how many of each outcome, indexed by
 * olc_verify_outcome (counts[0] the records considered).  Measuring takes
 * the process's measurer and the machine's measurement lock like calibrate.
 *
 * Returns OLC_OK (also when some records failed: their entries say why),
 * OLC_E_INVALID (host NULL or without a store, a bad options version),
 * OLC_E_UNSUPPORTED (in a child of fork()), OLC_E_NOMEM, or the store's
 * listing failures.  Not concurrent with olc_host_free.
 */
OLC_API olc_status olc_host_verify(olc_host *host, const olc_verify_options *options,
                                   olc_verify_report_fn report, void *payload, size_t counts[6],
                                   olc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* OLC_CALIBRATE_H */
