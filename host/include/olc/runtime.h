/*
 * olc/runtime.h - what an inference runtime does with a host: workloads
 * described in code, bound once, selected (lazily calibrated) and executed
 * from many threads.
 *
 * Thread safety: bind, select and execute are thread-safe on a host
 * (olc/loader.h); execute is reentrant (plugin.h).  Selections are the
 * host's, immutable and valid until olc_host_free.
 */
#ifndef OLC_RUNTIME_H
#define OLC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "olc/error.h"
#include "olc/export.h"
#include "olc/loader.h"
#include "olc/store.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * olc_workload_result.unlisted_count).  OLC_EXPLAIN_ALL lists them all.
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
  /* The operator's constant inputs (weights, ONNX initializers),
   * borrowed for the binding's life and never changed meanwhile; the
   * binding packs each once for its selected policy (olc_binding_execute).
   * A binding with constants is the caller's own: olc_host_select refuses
   * such a workload. */
  const struct olc_constant *constants;
  size_t constant_count; /* at most OLC_EXECUTE_MAX_OPERANDS, inputs distinct */
} olc_workload;

#define OLC_WORKLOAD_VERSION 1u
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
  /* 1 waits (bounded by timeout_ms) for another thread's
   * measurement of this key even when the nearest measured workload's
   * policy could answer at once (on_miss, olc_binding_select); 0 (the
   * default) answers with that policy, OLC_NEAREST_RECORD. */
  int wait;
} olc_select_options;

#define OLC_SELECT_OPTIONS_VERSION 1u
#define OLC_SELECT_OPTIONS_INIT                                                                    \
  { OLC_SELECT_OPTIONS_VERSION, OLC_SELECT_HOST_DEFAULT, -1, NULL, NULL, 0, 0, 0 }

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
 * OLC_E_NOMEM.  Constants are checked as olc_selection_execute
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
 * On a miss, by mode: OLC_SELECT_NEVER gives the policy of the nearest
 * measured workload (below), else the plugin's first candidate (why
 * OLC_E_NOT_FOUND either way); OLC_SELECT_ON_MISS measures the candidates as
 * olc_host_calibrate does (the [calibration] settings; in olc-worker unless
 * in_process or isolation = false), saves the winner and selects it.
 * Concurrent selects of one key make one measurement, the others wait for
 * it; one measurement runs at a time in a process.  A wait that times out
 * or is cancelled gives the first candidate (why OLC_E_TIMEOUT /
 * OLC_E_CANCELLED) and leaves the measurement to whoever makes it; a
 * measurement that fails gives the first candidate with its status as why;
 * a record saved meanwhile (by another process, say) is served, and the
 * key is measured again by the first select 1 s after the failure, the
 * wait doubling with each further failure up to 5 minutes.  While one
 * thread measures a key, the others that select it get the nearest
 * measured workload's policy at once (OLC_NEAREST_RECORD) unless the
 * options ask to wait; with none, they wait as above.
 *
 * The nearest measured workload: of the exact calibrated records of the
 * same plugin (backend and implementation), operator, processor and thread
 * count, the one whose structure the plugin finds nearest to the key's
 * (plugin.h, ABI 1.4 distance; the host's default, a log2 distance of the
 * numeric properties with the others equal, for a plugin without one) and
 * whose policy the plugin validates.  Its selection is no record of the
 * workload (olc_selection_record NULL, olc_selection_nearest the
 * neighbour's record) and its message names the neighbour's workload, its
 * distance and its file.  A miss in never mode is still recorded
 * (record_misses).  With force_portable there is none.
 *
 * Returns OLC_OK (*out: a stored or just measured record),
 * OLC_NEAREST_RECORD (*out: the nearest measured workload's policy; err,
 * when given, holds olc_selection_message), OLC_FIRST_CANDIDATE (*out:
 * the plugin's first candidate; err likewise), or a failure with *out NULL:
 * OLC_E_INVALID (out or b NULL, bad options), the store's lookup failures,
 * the plugin's candidates failures (OLC_E_PLUGIN, OLC_E_UNSUPPORTED: it
 * has no candidate to fall back on), OLC_E_UNSUPPORTED (in a child of
 * fork(): see olc/loader.h "fork()"), OLC_E_NOMEM.  *out is valid until
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

/* For a nearest answer (OLC_NEAREST_RECORD) the record of the nearest
 * measured workload whose policy it serves, else NULL.  Borrowed from s. */
OLC_API const olc_record *olc_selection_nearest(const olc_selection *s);
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
 * of fork(), olc/loader.h "fork()"); OLC_E_PLUGIN (its other failures, with its
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
 * OLC_EXPLAIN_ALL (olc/loader.h) every record of its backend and
 * operator) with the plugin's validator; never measures.  The shape of
 * olc_host_explain, which explains a workload by its configured name.
 * *out is freed with olc_lookup_result_free.  Returns like
 * olc_store_lookup (OLC_OK, OLC_E_NOT_FOUND with *out set, ...),
 * OLC_E_INVALID (NULL arguments, no store, an unknown flag),
 * OLC_E_UNSUPPORTED (in a child of fork()).  Thread-safe.
 */
OLC_API olc_status olc_binding_explain(olc_lookup_result **out, olc_binding *b, unsigned flags,
                                       olc_error *err);

/*
 * Binds the configured workload [workload.NAME] of the host's config as
 * calibrate, select and explain bind it (its model digest, properties and
 * the host's thread count), e.g. to read its key (olc_binding_key) or
 * explain it.  *out is freed with olc_binding_free.  Returns OLC_OK,
 * OLC_E_INVALID (NULL arguments, a host without config), OLC_E_NOT_FOUND
 * (no such workload), OLC_E_UNAVAILABLE (its plugin is not loaded or not
 * usable here), or what olc_host_bind returns.  Thread-safe.
 */
OLC_API olc_status olc_host_bind_workload(olc_binding **out, olc_host *host, const char *workload,
                                          olc_error *err);

/*
 * The key a binding composed (Identity, above): backend, operator, the
 * plugin's implementation, processor and thread count, the identity
 * digest, and the structure.  A user override installed with this key
 * (olc_store_install_override; levels pick exact, portable or both) is
 * the one select finds for the workload.  Borrowed: valid until
 * olc_binding_free.  NULL when b is NULL.
 */
OLC_API const olc_key *olc_binding_key(const olc_binding *b);

/*
 * Validates serialized policy bytes with the validator of the loaded
 * plugin named backend: the check select, calibrate and explain make on a
 * stored record (an override that fails it is rejected and never
 * selected).  Returns OLC_OK, OLC_E_VALIDATION (the plugin rejects the
 * bytes: err->message gives its reason), OLC_E_PLUGIN (its validate
 * failed otherwise), OLC_E_NOT_FOUND (no plugin of that name is loaded),
 * OLC_E_UNAVAILABLE (the plugin is not usable here), OLC_E_INVALID (host
 * or backend NULL, policy NULL with len > 0), OLC_E_UNSUPPORTED (in a
 * child of fork()).  Thread-safe.
 */
OLC_API olc_status olc_host_validate_policy(olc_host *host, const char *backend, const void *policy,
                                            size_t len, olc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* OLC_RUNTIME_H */
