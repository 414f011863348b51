/*
 * plugins/plugins.h - the loader module as the rest of the host sees it.
 *
 * The loader (loader.c / dl_posix.c / dl_win32.c) loads the plugin files of
 * some directories into an olc_plugin_set: one instance of each plugin,
 * the load report, the plugins' log.  The wrappers below are the only code
 * that calls into a plugin table.  They guard every field access by
 * struct_size, turn plugin output into host-owned copies through sinks with
 * caps, and turn plugin statuses plus host->set_error detail into
 * olc_status + olc_error (OLC_E_PLUGIN, OLC_E_UNAVAILABLE,
 * OLC_E_VALIDATION, OLC_E_UNSUPPORTED ...).
 *
 * What the loader leaves to its user: what a plugin's store_lookup and
 * store_save services do (olc_plugins_store_ops; the host module composes
 * the key and owns the store), where warnings go (a diagnostics sink), and
 * anything to do after each run (olc_plugins__set_after_run).
 *
 * Thread safety: a set is built and freed by one thread; the wrappers may
 * be called from many threads at once, except that run, prepare and
 * unprepare are never concurrent on one plugin (plugin.h).
 */
#ifndef OLC_PLUGINS_PLUGINS_H
#define OLC_PLUGINS_PLUGINS_H

#include <stddef.h>
#include <stdint.h>

#include "olc/host.h"
#include "olc/plugin.h"
#include "olc/store.h"
#include "util/buf.h"
#include "util/diag.h"

/* Caps on what a plugin may hand back through sinks. */
#define OLC_PLUGINS_MAX_PROCESSOR 4096u
#define OLC_PLUGINS_MAX_STRUCTURE 64u
#define OLC_PLUGINS_MAX_STRING 1024u
#define OLC_PLUGINS_MAX_CANDIDATES 4096u
#define OLC_PLUGINS_MAX_POLICY ((size_t)1 << 20)

/* Log lines a set keeps (the oldest are dropped), and their size. */
#define OLC_PLUGINS_LOG_LINES 64u
#define OLC_PLUGINS_LOG_LINE_SIZE 256u

/* The loaded plugins of some directories (owned by its opener). */
typedef struct olc_plugin_set olc_plugin_set;
/* One loaded, instantiated plugin (owned by its set). */
typedef struct olc_loaded_plugin olc_loaded_plugin;

/* ---------------------------------------------------------------- loading */

/* The [plugin.NAME] section for name, or NULL (enabled, no entries). */
typedef const olc_plugin_config *(*olc_plugins_config_fn)(void *payload, const char *name);

/*
 * What a plugin's store services do on its behalf.  p is the plugin with
 * the instance the plugin called from (during create: the instance being
 * built), valid for the call only; the loader has checked the ABI inputs.
 */
typedef struct olc_plugins_store_ops {
  /* The policy stored for w: OLC_OK with the bytes in *policy,
   * OLC_E_NOT_FOUND, or a failure. */
  olc_status (*lookup)(void *payload, olc_loaded_plugin *p, const olc_plugin_workload *w,
                       olc_buf *policy);
  /* Saves policy with its measurements for w. */
  olc_status (*save)(void *payload, olc_loaded_plugin *p, const olc_plugin_workload *w,
                     const void *policy, size_t policy_len, const olc_measurement *measurements,
                     size_t measurement_count);
} olc_plugins_store_ops;

typedef struct olc_plugins_params {
  /* Files loaded first, in order (the worker's one file), then the
   * directories searched in order, then OLC_PLUGIN_PATH. */
  const char *const *files;
  size_t file_count;
  const char *const *dirs;
  size_t dir_count;
  /* dir_count flags, or NULL: 1 when a missing dirs[i] is normal (a
   * default location), so it is skipped without a warning. */
  const unsigned char *dir_optional;
  uint32_t threads; /* effective thread count handed to create (0 -> 1) */
  olc_plugins_config_fn plugin_config;
  void *plugin_config_payload;
  int allow_insecure_plugins;
  int ignore_env;
  /* NULL: the store services fail (OLC_PLUGIN_E_FAILED). */
  const olc_plugins_store_ops *store_ops;
  void *store_payload;
  /* Borrowed, may be NULL; must outlive the set.  Gets a warning for every
   * file skipped for a failure (the report's entries that are not loaded,
   * disabled or unavailable), every missing directory that is not
   * optional, and every line a plugin logs at OLC_PLUGIN_LOG_WARN or
   * OLC_PLUGIN_LOG_ERROR. */
  olc_diag_sink *diag;
} olc_plugins_params;

/*
 * Loads the plugins: files that fail are skipped and reported; the call
 * fails only when a plugin marked critical fails (OLC_E_PLUGIN), or with
 * OLC_E_INVALID, OLC_E_NOMEM.  *out is freed with olc_plugins__free.
 */
olc_status olc_plugins__open(olc_plugin_set **out, const olc_plugins_params *params,
                             olc_error *err);
/* Destroys the instances (latest first); the libraries stay mapped (never
 * dlclose).  NULL is fine. */
void olc_plugins__free(olc_plugin_set *set);

/* The load report: one entry per file found (or directory that could not
 * be read), borrowed from the set. */
size_t olc_plugins__report_count(const olc_plugin_set *set);
const olc_load_entry *olc_plugins__report(const olc_plugin_set *set, size_t i);

/* The directories the set was asked to search, in order, as given (the
 * configured ones, then OLC_PLUGIN_PATH's absolute entries), whether or
 * not they exist; NULL past the end. */
size_t olc_plugins__searched_count(const olc_plugin_set *set);
const char *olc_plugins__searched(const olc_plugin_set *set, size_t i);

/* Number of loaded plugins, and the i-th (i < count). */
size_t olc_plugins__count(const olc_plugin_set *set);
olc_loaded_plugin *olc_plugins__at(const olc_plugin_set *set, size_t i);
/* By plugin name; NULL when not loaded. */
olc_loaded_plugin *olc_plugins__find(const olc_plugin_set *set, const char *name);

const char *olc_plugins__name(const olc_loaded_plugin *p);
const char *olc_plugins__version(const olc_loaded_plugin *p);
/* The absolute path of the file it was loaded from. */
const char *olc_plugins__path(const olc_loaded_plugin *p);
/* 1 when the plugin lists operator_name among its operators. */
int olc_plugins__serves(const olc_loaded_plugin *p, const char *operator_name);

/*
 * Calls fn(payload) after every run of p returns (inside the interval a
 * caller times around olc_plugins__run); fn NULL removes it.  Set before
 * the runs start, not while one is under way.
 */
typedef void (*olc_plugins_after_run_fn)(void *payload);
void olc_plugins__set_after_run(olc_loaded_plugin *p, olc_plugins_after_run_fn fn, void *payload);

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

/*
 * execute (ABI 1.1): runs the operator with policy on the caller's operands
 * in args (checked by the caller: plugin.h says what the host guarantees).
 * Reentrant.  OLC_E_UNSUPPORTED when p has no execute (a table of ABI 1.0,
 * or a NULL execute: the message names the plugin and its ABI) or the
 * plugin refuses the variant; OLC_E_INVALID when it finds the description
 * contradictory; OLC_E_PLUGIN for its other failures, with its message.
 */
olc_status olc_plugins__execute(olc_loaded_plugin *p, const olc_plugin_workload *w,
                                const void *policy, const olc_plugin_exec_args *args,
                                olc_error *err);
/* 1 when p implements execute (struct_size covers it and it is set). */
int olc_plugins__can_execute(const olc_loaded_plugin *p);
/* 1 when p implements matmul_f32 (ABI 1.5) beside execute. */
int olc_plugins__has_matmul_f32(const olc_loaded_plugin *p);
/* matmul_f32 on operands checked as olc_plugin_matmul_args promises; only
 * where olc_plugins__has_matmul_f32.  Errors as execute's. */
olc_status olc_plugins__matmul_f32(olc_loaded_plugin *p, const olc_plugin_workload *w,
                                   const void *policy, const olc_plugin_matmul_args *args,
                                   olc_error *err);

/* ABI 1.4 (distance.c): how far apart structures a and b (sorted kv, as
 * key reports them) of operator_name are, for the nearest measured answer
 * on a miss: the plugin's distance, or the host's default for a plugin
 * without one (plugin.h); -1 when they are not comparable (the plugin
 * refused, failed or gave no finite distance >= 0).  Reentrant. */
double olc_plugins__distance(olc_loaded_plugin *p, const char *operator_name,
                             const olc_plugin_kv *a, uint32_t a_count, const olc_plugin_kv *b,
                             uint32_t b_count);
/* 1 when p has its own distance (ABI 1.4). */
int olc_plugins__has_distance(const olc_loaded_plugin *p);

/* ABI 1.3 (packing.c).  The table's OLC_PLUGIN_FEATURE_* bits: 0 for a
 * table that ends before features (built against an older header). */
uint32_t olc_plugins__features(const olc_loaded_plugin *p);
/* 1 when p packs constant inputs (pack and release_packed set, with
 * execute). */
int olc_plugins__can_pack(const olc_loaded_plugin *p);
/*
 * Packs constant input `input` (operand, checked as execute's are) of w
 * for policy: OLC_OK with *packed (the plugin's, freed with
 * olc_plugins__release_packed) and *bytes; OLC_E_UNSUPPORTED when the
 * plugin reads it in place (no pack, or it says so: *packed NULL, no
 * message is composed); OLC_E_NOMEM, OLC_E_PLUGIN with its message.  Not
 * concurrent with itself on one operand (the caller's lock).
 */
olc_status olc_plugins__pack(void **packed, uint64_t *bytes, olc_loaded_plugin *p,
                             const olc_plugin_workload *w, const void *policy, uint32_t input,
                             const olc_plugin_tensor *operand, olc_error *err);
/* Frees what pack made; NULL is fine. */
void olc_plugins__release_packed(olc_loaded_plugin *p, void *packed);

/* How many fork()s led to this process since the library was loaded (a
 * pthread_atfork child handler counts them; 0 on Windows).  A plugin
 * instance created before a fork is not called in the child: its threads
 * did not survive the fork.  The handlers also hold the loader's locks
 * across a fork, so a child never inherits one locked.  An atomic load
 * after the first call: no system call, no lock (a warm select and
 * execute compare it). */
unsigned olc_plugins__forks(void);
/* The count without installing the handlers: for callers that called
 * olc_plugins__forks once before (a host's open), on every call of the
 * runtime path. */
unsigned olc_plugins__forks_seen(void);

/* The numerical check's tolerances for an operator and dtype (ABI 1.2):
 * the plugin's row, or the host's defaults (declared 0). */
typedef struct olc_plugins_tolerance {
  double atol;
  double rtol;
  const char *reference; /* the plugin's reference policy, or NULL: the first candidate */
  int declared;          /* the plugin has a row for them */
} olc_plugins_tolerance;
void olc_plugins__tolerance(olc_plugins_tolerance *out, const olc_loaded_plugin *p,
                            const char *operator_name, uint32_t dtype);
/* The operand bytes of one prepared instance of w (ABI 1.2): OLC_OK with
 * *bytes > 0, or OLC_E_UNSUPPORTED (not implemented, or the plugin did not
 * say). */
olc_status olc_plugins__operand_bytes(uint64_t *bytes, olc_loaded_plugin *p,
                                      const olc_plugin_workload *w);

/* An olc_validate_fn for the store that calls the plugin's validate;
 * payload is the olc_loaded_plugin. */
olc_status olc_plugins__store_validator(const unsigned char *policy, size_t policy_len,
                                        void *payload, char *message, size_t message_size);

/*
 * What the plugins of a set wrote through host->log: the last
 * OLC_PLUGINS_LOG_LINES lines, oldest first, each "NAME: message" (one
 * line, valid UTF-8).  The library never prints them; lines at warning and
 * error level also go to the set's diagnostics sink.  log_line copies the
 * i-th line into buf and returns its OLC_PLUGIN_LOG_* level, or -1 when
 * i >= count.  log_total counts every line ever logged (it only grows), so
 * a caller can tell which lines are new.  Thread-safe.
 */
size_t olc_plugins__log_count(const olc_plugin_set *set);
int32_t olc_plugins__log_line(const olc_plugin_set *set, size_t i, char *buf, size_t size);
size_t olc_plugins__log_total(const olc_plugin_set *set);
/* Logs text as plugin p would through its services (the worker's lines,
 * replayed by the host). */
void olc_plugins__log(olc_loaded_plugin *p, int32_t level, const char *text);

#endif
