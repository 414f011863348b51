/*
 * host/host_int.h - what the files of the host module share: the olc_host
 * and olc_calibration layouts, the select path of the ini loop, and the
 * runtime path (runtime.h).  Other code uses host/host.h.
 */
#ifndef OLC_HOST_HOST_INT_H
#define OLC_HOST_HOST_INT_H

#ifndef __STDC_NO_ATOMICS__
#include <stdatomic.h>
#endif

#include "calibrate/calibrate.h"
#include "host/host.h"
#include "host/misses.h"
#include "host/runtime.h"
#include "persist/persist.h"
#include "util/arena.h"
#include "util/diag.h"

/* The host's measurement lock (key_measure_lock.c). */
typedef struct olc_host_mlock {
  char *path;         /* NULL: none could be placed (no_path says why) */
  olc_error no_path;  /* why there is no path */
  int64_t timeout_ms; /* [calibration] measure_lock_timeout_seconds */
#ifndef __STDC_NO_ATOMICS__
  atomic_int warned; /* said once that measuring goes on without it */
#else
  int warned;
#endif
} olc_host_mlock;

/* A total time budget ([calibration] max_seconds_total) and what was
 * spent of it; changed only by the process's one measurer. */
typedef struct olc_host_budget {
  double total_seconds; /* 0: none */
  uint64_t spent_ns;
} olc_host_budget;

struct olc_host {
  const olc_config *config; /* NULL when opened by olc_host__open_params without one */
  olc_config *own_config;   /* olc_host_open without a config: the defaults' */
  /* olc_host_options.calibration (a copy, loop_copy), for
   * olc_host_calibrate; NULL: the config's */
  const olc_calibration_settings *loop_settings;
  olc_calibration_settings loop_copy;
  olc_store *store; /* borrowed, may be NULL */
  olc_plugin_set *plugins;
  uint32_t threads;           /* effective, handed to create */
  int force_portable;         /* for lookups made on a plugin's behalf */
  int allow_insecure_plugins; /* the permission policy files were loaded under */
  int ignore_env;             /* olc_host_options.ignore_env: no OLC_WORKER either */
  int contention_env;         /* $OLC_CONTENTION's olc_contention_mode + 1; 0: unset */
  olc_plugins_config_fn plugin_config;
  void *plugin_config_payload;
  olc_diag_sink diag;
  olc_calibration_settings settings; /* how the runtime path measures */
  olc_host_runtime rt;
  olc_host_measure_hook measure_hook; /* tests */
  void *measure_hook_payload;
  olc_host_clock_fn retry_clock; /* tests; NULL: olc_util__now_ns */
  void *retry_clock_payload;
  olc_host_mlock mlock;
  char *record_misses;         /* the missed-workloads file (malloc'ed), NULL: none */
  olc_host_budget lazy_budget; /* the runtime's lazy calibrations together */
  unsigned forks;              /* olc_plugins__forks() when it was opened */
};

/* What a workload result keeps beyond olc_workload_result. */
typedef struct olc_result_extra {
  const olc_run_times *runs; /* candidate_count entries in the arena; NULL: not kept */
  size_t winner;             /* the candidate measuring chose, or candidate_count */
} olc_result_extra;

struct olc_calibration {
  olc_arena arena;         /* strings, candidate arrays, policy copies and run times */
  size_t recorded_removed; /* olc_calibration_recorded_removed */
  olc_workload_result *results;
  olc_lookup_result **lookups; /* owned; results[i].lookup aliases lookups[i] */
  olc_result_extra *extras;    /* count entries */
  size_t count;
};

/* A calibration with count zeroed results. OLC_OK or OLC_E_NOMEM. */
olc_status olc_calibration__new(olc_calibration **out, size_t count);
/* Copies the workload's name, backend and operator into r. */
olc_status olc_calibration__name(olc_calibration *cal, olc_workload_result *r, const char *name,
                                 const char *backend, const char *operator_name);
/* Gives the result i its final lookup (owned by cal from now on). */
void olc_calibration__set_lookup(olc_calibration *cal, size_t i, olc_lookup_result *lookup);

/* How one workload of the ini loop is selected (all borrowed). */
typedef struct olc_host_select_params {
  const olc_calibration_settings *settings;
  int force_portable; /* the config's or the caller's */
  int recalibrate;    /* measure even when the store has a selection */
  int select_only;    /* never measure */
  int in_process;     /* measure here, not in a worker */
  double run_timeout_seconds;
  int keep_samples;        /* keep every candidate's run times */
  int refine;              /* measure stored records a budget cut short */
  olc_host_budget *budget; /* the call's total budget (NULL: none) */
  void (*progress)(void *payload, size_t i, size_t count, double best_us);
  void *progress_payload;
} olc_host_select_params;

/*
 * Key -> lookup -> (candidates measured by key_measure.c -> save -> lookup)
 * for the workload of ini section wc into result i of cal, whose names
 * are set.  What goes wrong with the workload lands in the result (status,
 * message); returns OLC_OK, or OLC_E_NOMEM, which stops the caller.
 */
olc_status olc_host__calibrate_workload(olc_calibration *cal, size_t i, olc_host *host,
                                        const olc_workload_config *wc,
                                        const olc_host_select_params *p);

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

/* The store services a host gives its plugins (store_access.c). */
extern const olc_plugins_store_ops olc_host__store_ops;

/* ------------------------------------------------------------ runtime */

/* A lookup of key for plugin p with its validator (store_access.c): scoped to the
 * workload unless all_candidates. */
olc_status olc_host__lookup(olc_lookup_result **out, olc_host *host, olc_loaded_plugin *p,
                            const olc_key *key, int force_portable, int all_candidates,
                            olc_error *err);
/* A save this host made, or a removal: warm selects look again. */
void olc_host__changed(olc_host *host);
/* Warns (diagnostic "override") of each user override in lr that the
 * plugin's validator rejected, once per slot: select falls back past it,
 * which the user who installed it should hear. */
void olc_host__warn_rejected_overrides(olc_host_slot *s, const olc_lookup_result *lr);

/* workload.c: the olc_workload checks and the description a binding keeps. */
/* OLC_OK, or OLC_E_UNSUPPORTED (err: where fn, the message names fork())
 * when host was opened in a parent of this process: its plugin instances,
 * their threads and its cached selections belong to that process (host.h
 * "fork()").  Every entry that reaches a plugin, or answers for one from
 * the cache, calls it first; it costs an atomic load. */
olc_status olc_host__fork_refused(const char *fn, olc_error *err);
static inline olc_status olc_host__check_fork(const olc_host *host, const char *fn,
                                              olc_error *err) {
  return host->forks == olc_plugins__forks_seen() ? OLC_OK : olc_host__fork_refused(fn, err);
}
olc_status olc_host__check_workload(const olc_workload *w, const char *name, olc_error *err);
/* The workload's model digest: model_digest, or "sha256:<hex>" of
 * model_bytes written into buf (OLC_DIGEST_SIZE); *out NULL when it
 * has no model. */
olc_status olc_host__model_digest(const char **out, char *buf, const olc_workload *w,
                                  olc_error *err);
/* 1 when w's strings are there to hash and compare (no full check). */
int olc_host__describable(const olc_workload *w);
/* The hash of a description (olc_host_select's cache), and whether binding
 * b was made from it.  Neither allocates. */
uint64_t olc_host__describe(const olc_workload *w, const char *model_digest);
int olc_host__same_description(const olc_binding *b, const olc_workload *w,
                               const char *model_digest);
/* Copies the description into b's arena and builds b->workload. */
olc_status olc_host__copy_workload(olc_binding *b, const olc_workload *w, const char *name,
                                   const char *model_digest);

/* bind.c */
olc_status olc_host__bind_with_digest(olc_binding **out, olc_host *host, const olc_workload *w,
                                      const char *model_digest, olc_error *err);
/* A binding's label for messages ("workload 'NAME'"). */
const char *olc_binding__name(const olc_binding *b);

/* table.c: chained hash tables of slots or bindings (next and hash come
 * first in both).  The callers lock. */
void *olc_host__table_find(const olc_host_table *t, uint64_t hash,
                           int (*eq)(const void *entry, const void *ctx), const void *ctx);
olc_status olc_host__table_put(olc_host_table *t, void *entry, uint64_t hash);
/* Calls fn on every entry, then frees the buckets. */
void olc_host__table_free(olc_host_table *t, void (*fn)(void *entry));

/* slots.c */
olc_status olc_host__slot_get(olc_host_slot **out, olc_host *host, olc_loaded_plugin *p,
                              olc_host_key *key, const olc_plugin_workload *w, const char *name,
                              olc_error *err);
void olc_host__slot_free(void *slot);

/* selection.c (the global lock held where it says so). */
olc_status olc_host__stored_selection(olc_selection **out, olc_host_slot *slot,
                                      const olc_record *record, int calibrated_now, olc_error *err);
/* The first candidate for reason kind (OLC_HOST_FIRST_*), made once per
 * kind (again when why changed).  Takes the global lock. */
olc_status olc_host__first_selection(olc_selection **out, olc_host_slot *slot, int kind,
                                     olc_status why, const char *message, olc_error *err);
/* A nearest answer serving rec's policy (a copy, validated and
 * deserialized by the plugin) with why and message; the slot's last one
 * is reused while neighbour, why and message are the same.  Takes the
 * global lock. */
olc_status olc_host__neighbour_selection(olc_selection **out, olc_host_slot *slot,
                                         const olc_record *rec, olc_status why, const char *message,
                                         olc_error *err);
/* nearest.c: the nearest answer for the slot's key (see olc_binding_select
 * in olc/host.h), why and reason saying why the key has none of its own;
 * OLC_E_NOT_FOUND when there is no measured neighbour (fp: force_portable,
 * never one).  Takes the global lock. */
olc_status olc_host__nearest_selection(olc_selection **out, olc_host_slot *slot, int fp,
                                       olc_status why, const char *reason, olc_error *err);
/* prune.c: splits canonical structure text (a copy, cut in place) into at
 * most max name/value pairs; the count, or -1 when it does not parse or
 * has more. */
int olc_host__split_structure(olc_plugin_kv *kv, int max, char *text);
/* Adds s to its slot's list (takes the global lock). */
void olc_host__keep_selection(olc_selection *s);
void olc_host__free_selections(olc_host_slot *slot);
/* 1 when a and b are the same record (identity, policy, measurements). */
int olc_host__same_record(const olc_record *a, const olc_record *b);

/* execute.c.  The bytes of one element of dtype (0: unknown). */
int64_t olc_host__element_size(uint32_t dtype);
/* Checks constant input `input` of a workload bound to plugin p as execute
 * checks an input, into dst ("input N: ..." on failure). */
olc_status olc_host__take_constant(olc_plugin_tensor *dst, const olc_tensor *t, uint32_t input,
                                   olc_loaded_plugin *p, olc_error *err);
/* Checks and hands a's tensors (a loaded) to the plugin's execute with s's
 * policy; an input whose bit is set in constant_mask is constants[i]
 * instead of a's; packed: exec_args.packed (NULL: none).  No allocation,
 * system call or formatting unless it fails. */
/* The caller's execute arguments in the current layout: *out is args
 * itself when it is (the runtime path copies nothing), else copy, loaded
 * from an older version.  OLC_OK or the loader's OLC_E_INVALID. */
olc_status olc_host__execute_args(const olc_execute_args **out, olc_execute_args *copy,
                                  const olc_execute_args *args, olc_error *err);
olc_status olc_host__execute(const olc_selection *s, const olc_plugin_workload *w,
                             const olc_execute_args *a, const olc_tensor *constants,
                             uint32_t constant_mask, void *const *packed, olc_error *err);

/* runtime.c: olc_binding_select without composing the first candidate's
 * message into err (it returns OLC_FIRST_CANDIDATE all the same). */
olc_status olc_host__select_binding(const olc_selection **out, olc_binding *b,
                                    const olc_select_options *opt, olc_error *err);

/* constants.c: w's constants checked and kept by b (b->constants, and
 * their bits in b->workload.constant_inputs); freed by
 * olc_host__free_constants with what was packed. */
olc_status olc_host__bind_constants(olc_binding *b, const olc_workload *w, olc_loaded_plugin *p,
                                    olc_error *err);
void olc_host__free_constants(olc_binding *b);

/* key_measure.c: the one place one key is measured. */
typedef struct olc_host_measure {
  olc_host *host;
  olc_loaded_plugin *plugin;
  const olc_plugin_workload *workload;
  const olc_key *key;
  const char *name; /* the workload's, for messages */
  const olc_calibration_settings *settings;
  int force_portable;
  int in_process;
  double run_timeout_seconds;
  int look_again;       /* look the key up first; a record found there is used */
  olc_cancel_fn cancel; /* polled while waiting for the measurement lock (may be NULL) */
  void *cancel_payload;
  /* The caller's own bound on that wait (a select's timeout_ms), when
   * shorter than [calibration] measure_lock_timeout_seconds: reaching it
   * measures nothing (status OLC_E_TIMEOUT), unlike the configured one. */
  int has_wait_limit;
  int64_t wait_limit_ms;
  olc_arena *arena;
  void (*progress)(void *payload, size_t i, size_t count, double best_us);
  void *progress_payload;
  int keep_samples;        /* keep every candidate's run times */
  olc_host_budget *budget; /* a total budget to measure within and charge (NULL: none) */
  /* Verifying a stored policy (verify.c): it races first, as candidate 0,
   * and is saved over only when another beats it (kept: it won). */
  const void *incumbent;
  size_t incumbent_len;
  int no_save; /* measure and report only (a dry run, a read-only store) */
  /* Out: */
  olc_status status; /* OLC_OK: lookup holds the selection */
  const char *message;
  int measured;                     /* measuring began */
  const char *note;                 /* e.g. measured in-process, no worker */
  olc_candidate_result *candidates; /* in arena */
  size_t candidate_count;
  const olc_run_times *runs; /* with keep_samples: candidate_count entries, in arena */
  size_t winner;             /* the candidate measuring chose, else candidate_count */
  olc_lookup_result *lookup; /* the final lookup (owned by the caller) */
  /* The measurement lock (olc_workload_result's fields of the same names). */
  olc_status lock_status;
  double lock_wait_seconds;
  const char *lock_holder; /* in arena; NULL: not known */
  int measured_elsewhere;  /* the look again found what another saved */
  int kept;                /* the incumbent won (or tied): nothing saved */
} olc_host_measure;

/* Places the host's measurement lock: option_path, else the settings'
 * [calibration] measure_lock, else the default (persist.h) in the user's
 * runtime directory or beside the store.  OLC_OK (also when there is no
 * place: the first measurement says so) or OLC_E_NOMEM. */
olc_status olc_host__mlock_init(olc_host *host, const char *option_path);
void olc_host__mlock_free(olc_host *host);

/*
 * Takes the measurement lock for the measurement of m's key, waiting at
 * most the configured timeout (m->cancel polled meanwhile), and records in
 * m how long it waited, for whom, and lock_status.  *out is the lock to
 * give back with olc_host__mlock_give, or NULL when the host measures
 * without it: after the timeout or when the lock cannot be used (both said
 * as diagnostics).  Returns OLC_OK (measure now), OLC_E_CANCELLED or
 * OLC_E_TIMEOUT (m's own wait limit: measure nothing), OLC_E_NOMEM.
 */
olc_status olc_host__mlock_take(olc_persist_mlock **out, olc_host_measure *m);
void olc_host__mlock_give(olc_persist_mlock *lock);

/* Waits for (and takes) the process's one measurer; timeout_ms < 0: no
 * limit.  OLC_OK, OLC_E_TIMEOUT, OLC_E_CANCELLED.  The global lock is held
 * around the call. */
olc_status olc_host__claim_measurer(int64_t timeout_ms, uint64_t start_ns, olc_cancel_fn cancel,
                                    void *cancel_payload);
void olc_host__release_measurer(void);
/* Waits on the global condition (held) until it is signalled, the time
 * since start_ns reaches timeout_ms, or cancel says stop: OLC_OK (look
 * again), OLC_E_TIMEOUT, OLC_E_CANCELLED. */
olc_status olc_host__wait(int64_t timeout_ms, uint64_t start_ns, olc_cancel_fn cancel,
                          void *cancel_payload);
/* The one place a measurement request is made: m zeroed, then slot s's
 * host, plugin and key, workload w (s's own or its binding's), name,
 * settings, force_portable, in_process, budget and arena, and look_again
 * set.  Each caller then adds only what is its own (the ini loop's
 * progress, samples and run timeout; a select's cancel and wait limit). */
void olc_host__measure_request(olc_host_measure *m, olc_host_slot *s, const olc_plugin_workload *w,
                               const char *name, const olc_calibration_settings *settings,
                               int force_portable, int in_process, olc_host_budget *budget,
                               olc_arena *arena);
/* Measures m's key (the caller holds the measurer): the outcome lands in
 * m.  Returns OLC_OK, or OLC_E_NOMEM. */
olc_status olc_host__measure_key(olc_host_measure *m);

/* verify.c: races rec's policy (the slot's key's stored record) against
 * the plugin's candidates in the first candidate's place, taking the
 * process's measurer: m->kept when it still wins, else the winner is saved
 * (unless no_save) and m->lookup selects it.  m's strings live in arena.
 * Returns like olc_host__measure_key. */
olc_status olc_host__verify_measure(olc_host_measure *m, olc_host_slot *slot, const olc_record *rec,
                                    int no_save, int in_process, olc_arena *arena);

/* ------------------------------------------------------- recorded */

/* misses_append.c: appends slot s's workload to host->record_misses (when
 * set), once per slot; a failure is a "record_misses" warning. */
void olc_host__misses_append(olc_host_slot *s);

/* ini_loop_misses.c: the workloads of a missed-workloads file for
 * olc_host_calibrate's recorded option. */
typedef struct olc_host_misses {
  olc_misses_set set;       /* the file's records, in file order */
  olc_workload_config *wcs; /* one per record, as a configured workload */
  const char **skip;        /* per record: why it is skipped here, or NULL */
  olc_arena arena;
  size_t count;
} olc_host_misses;

/* Reads path into r (a missing file: no records; with shard_count > 0
 * only the records of shard shard_index) and checks each record's
 * processor and thread count against this host.  OLC_OK, the file's
 * failures (olc_misses__load), OLC_E_NOMEM.  r is freed with
 * olc_host__misses_free in any case. */
olc_status olc_host__misses_open(olc_host_misses *r, olc_host *host, const char *path,
                                 uint32_t shard_index, uint32_t shard_count, olc_error *err);
/* The shard (below shard_count; 0 when shard_count is 0) of e's key:
 * 64-bit FNV-1a over backend, operator, processor, the thread count in
 * decimal and identity, each with its terminating zero byte, finalized
 * with MurmurHash3's fmix64, modulo shard_count.  Part of the sharding
 * contract (the docs describe it): fleets of mixed releases split a file
 * the same way only while it does not change. */
uint32_t olc_host__misses_shard(const olc_misses_entry *e, uint32_t shard_count);
/* Removes from path the records whose results in cal have a selection
 * that a file holds (its source is not NULL; cal->recorded_removed counts
 * them).  OLC_OK or olc_misses__remove's
 * failures. */
olc_status olc_host__misses_finish(olc_calibration *cal, const olc_host_misses *r, const char *path,
                                   olc_error *err);
void olc_host__misses_free(olc_host_misses *r);

#endif
