/*
 * olc/plugin.h - the onnx-light calibration host plugin ABI, version 1.4.
 *
 * Self-contained C99 (also valid C++); no host header is needed, and a
 * plugin never links the host library: everything it gets from the host
 * comes through the olc_plugin_host table.
 *
 * A plugin is a shared library exporting one function, olc_plugin_entry.
 * The host calls it with the ABI major it speaks; the plugin answers with a
 * pointer to its static const olc_plugin table, or OLC_PLUGIN_E_ABI.
 *
 * Versioning rules
 * - The ABI's version is its own, independent of the host library's
 *   release version (OLC_VERSION_* in olc/version.h, libolc's SONAME): a
 *   host release may raise the ABI minor, and the host of release 1.0
 *   speaks ABI 1.5 and loads plugins built against ABI 1.0 to 1.5.
 * - abi_major changes only for incompatible changes; host and plugin must
 *   agree on it.
 * - abi_minor grows when fields are appended.  Every struct that crosses the
 *   boundary starts with {struct_size, abi_minor}; a reader touches a field
 *   only when it lies inside struct_size (OLC_PLUGIN_HAS_FIELD).  The host
 *   never rejects a plugin for a newer minor.
 * - A NULL function pointer means "not implemented"; the required ones are
 *   checked when the plugin is loaded.
 * - The layouts below are frozen for major 1 (checked by static assertions at
 *   the end of this file); new fields are only ever appended.
 *
 * What crosses the boundary: fixed-width integers, doubles, pointers and
 * NUL-terminated UTF-8 strings.  No bool, enum, long, FILE * or C-runtime
 * memory.  Whoever allocates frees: plugin output goes through host-owned
 * sink callbacks that copy what they are given; inputs are borrowed for the
 * duration of the call.
 *
 * Threading: create/destroy are serialized by the host.  key, candidates,
 * validate, serialize and release_policy may be called concurrently on one
 * instance.  run/prepare/unprepare are never called concurrently on one
 * instance.  execute (ABI 1.1) must be reentrant: a runtime calls it from
 * many threads at once on one instance, with the same or different
 * policies, and concurrently with run.
 *
 * Plugins contain no file-system code: persistence belongs to the host
 * (store_lookup / store_save below).
 */
#ifndef OLC_PLUGIN_H
#define OLC_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OLC_PLUGIN_ABI_MAJOR 1u
#define OLC_PLUGIN_ABI_MINOR 5u

/* Name of the one exported symbol. */
#define OLC_PLUGIN_ENTRY_SYMBOL "olc_plugin_entry"

#if defined(_WIN32)
#define OLC_PLUGIN_EXPORT __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define OLC_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define OLC_PLUGIN_EXPORT
#endif

/* True when struct s (whose struct_size says how big it is) has field f. */
#define OLC_PLUGIN_HAS_FIELD(s, type, f)                                                           \
  ((s) != NULL && (size_t)(s)->struct_size >= offsetof(type, f) + sizeof(((type *)0)->f))

/*
 * Status codes (int32_t).  Append-only.  0 is success, negative values are
 * failures; details go through host->set_error.
 */
#define OLC_PLUGIN_OK 0
#define OLC_PLUGIN_E_FAILED (-1)      /* generic failure */
#define OLC_PLUGIN_E_INVALID (-2)     /* bad argument, policy or workload */
#define OLC_PLUGIN_E_NOMEM (-3)       /* out of memory */
#define OLC_PLUGIN_E_ABI (-4)         /* incompatible ABI major */
#define OLC_PLUGIN_E_UNAVAILABLE (-5) /* not usable here (no device, ISA missing): skip */
#define OLC_PLUGIN_E_UNSUPPORTED (-6) /* this workload/operator is not served */
#define OLC_PLUGIN_E_LIMIT (-7)       /* a sink refused: a host cap was reached */
#define OLC_PLUGIN_E_NOT_FOUND (-8)   /* nothing found (store_lookup) */

/* Log levels for host->log. */
#define OLC_PLUGIN_LOG_ERROR 0
#define OLC_PLUGIN_LOG_WARN 1
#define OLC_PLUGIN_LOG_INFO 2
#define OLC_PLUGIN_LOG_DEBUG 3

/* A key/value pair: ini entries, structural properties. */
typedef struct olc_plugin_kv {
  const char *key;
  const char *value;
} olc_plugin_kv;

/* A named measurement, for host->store_save. */
typedef struct olc_plugin_measurement {
  const char *name;
  double value;
  const char *unit;
} olc_plugin_measurement;

/*
 * One workload: an operator and its structural properties as configured
 * (e.g. dtype=float32, m=512, n=512, k=512).  Borrowed for the call.
 */
typedef struct olc_plugin_workload {
  uint32_t struct_size;
  uint32_t abi_minor;
  const char *name;          /* the workload's name in the config */
  const char *operator_name; /* e.g. "MatMul" */
  const olc_plugin_kv *properties;
  uint32_t property_count;
  uint32_t reserved0;
  const char *model_digest; /* "sha256:<hex>" or NULL when none is configured */
  /* ---- ABI 1.3 ---- */
  /* Bit i set: input i is a constant of the binding (a weight, an ONNX
   * initializer), handed over once and packed once (olc_plugin.pack); the
   * measurement packs it outside the timed run.  0 for ini workloads.  A
   * plugin may key on it (cpu_gemm reports "constant" in the structure). */
  uint32_t constant_inputs;
  uint32_t reserved1;
} olc_plugin_workload;

/*
 * Where `key` writes its answer.  Each call copies its arguments.  Returns
 * OLC_PLUGIN_OK, or OLC_PLUGIN_E_LIMIT / OLC_PLUGIN_E_INVALID when a cap is
 * exceeded or a string is not valid UTF-8 (the plugin should then fail).
 */
typedef struct olc_plugin_key_sink {
  uint32_t struct_size;
  uint32_t abi_minor;
  void *ctx;
  /* The processor identity: one canonical, stable string. Required. */
  int32_t (*set_processor)(void *ctx, const char *processor);
  /* The effective thread count the measurements depend on. Required. */
  int32_t (*set_thread_count)(void *ctx, uint32_t thread_count);
  /* A structural property of the workload (portable identity). */
  int32_t (*add_structure)(void *ctx, const char *name, const char *value);
  /* ---- ABI 1.3 ---- */
  /*
   * The workload property `name` was read and decides the key although the
   * structure does not carry it (a property at its default value, left out
   * so that an explicit default and an absent one share one identity).
   * Every workload property must be reported through add_structure under
   * its own name or through use_property: the host refuses a workload with
   * a property the key did neither for (OLC_E_INVALID at bind, naming the
   * property and the plugin), so no property is ever dropped silently.
   */
  int32_t (*use_property)(void *ctx, const char *name);
} olc_plugin_key_sink;

/* Where `serialize` writes bytes.  Copies.  OLC_PLUGIN_OK or an error. */
typedef struct olc_plugin_byte_sink {
  uint32_t struct_size;
  uint32_t abi_minor;
  void *ctx;
  int32_t (*write)(void *ctx, const void *bytes, uint64_t len);
} olc_plugin_byte_sink;

/*
 * Where `candidates` emits policies, best guess first.  Ownership of the
 * policy passes to the host with the call, whatever it returns (the host
 * calls release_policy).  A non-OK return asks the plugin to stop emitting.
 */
typedef struct olc_plugin_policy_sink {
  uint32_t struct_size;
  uint32_t abi_minor;
  void *ctx;
  int32_t (*emit)(void *ctx, void *policy);
} olc_plugin_policy_sink;

/*
 * Services the host hands to the plugin.  Valid from the entry call until
 * the process ends.  Every function is thread-safe.
 */
typedef struct olc_plugin_host {
  uint32_t struct_size;
  uint32_t abi_minor;
  void *ctx; /* pass to every function below */
  /* A one-line message at OLC_PLUGIN_LOG_*. */
  void (*log)(void *ctx, int32_t level, const char *message);
  /* Detail for the failure the current call is about to return (per thread;
   * the last call before returning wins).  code is the plugin's own status. */
  void (*set_error)(void *ctx, int32_t code, const char *message);
  /* Monotonic clock in nanoseconds. */
  uint64_t (*now_ns)(void *ctx);
  /*
   * Lazy calibration at run time: looks up the stored policy for a workload
   * of this plugin's instance (the host asks the plugin for the key and
   * validates with the plugin's validate) and writes its bytes to out.
   * OLC_PLUGIN_OK, OLC_PLUGIN_E_NOT_FOUND, or an error.
   */
  int32_t (*store_lookup)(void *ctx, void *instance, const olc_plugin_workload *workload,
                          const olc_plugin_byte_sink *out);
  /* Saves a calibrated policy (serialized bytes) with its measurements. */
  int32_t (*store_save)(void *ctx, void *instance, const olc_plugin_workload *workload,
                        const void *policy, uint64_t policy_len,
                        const olc_plugin_measurement *measurements, uint32_t measurement_count);
} olc_plugin_host;

/* ------------------------------------------------------------ ABI 1.1 */

/* Element types of a tensor. Append-only. */
#define OLC_PLUGIN_DTYPE_FLOAT32 1u
#define OLC_PLUGIN_DTYPE_FLOAT16 2u
#define OLC_PLUGIN_DTYPE_FLOAT64 3u
#define OLC_PLUGIN_DTYPE_INT8 4u
#define OLC_PLUGIN_DTYPE_BFLOAT16 5u /* ABI 1.3 */

/* The most dimensions a tensor description carries. */
#define OLC_PLUGIN_MAX_RANK 8u

/*
 * A caller-owned tensor, borrowed for one execute call: the plugin keeps no
 * pointer to it (or to data) past the call's return.  dims[0..rank-1] are
 * the sizes, outermost first; strides[i] is the distance in elements
 * between neighbours along dims[i].  A row-major m x k matrix with leading
 * dimension lda >= k has rank 2, dims {m, k}, strides {lda, 1}.  The host
 * checks every description before execute sees it: dims >= 1, strides >= 1,
 * data not NULL, and the extent (sum of (dims[i] - 1) * strides[i], plus 1)
 * times the element size representable in int64_t.  Entries past rank are
 * zero.
 *
 * Views (ABI 1.3, only for a plugin whose table sets
 * OLC_PLUGIN_FEATURE_VIEWS): strides may also be 0 (the tensor is broadcast
 * along that axis: one element repeated) and in any order (a transposed
 * m x k matrix stored k x m row-major is dims {m, k}, strides {1, m}, as
 * DLPack and numpy describe it), and rank may be 0 (a scalar, one element).
 * A plugin without the feature is never handed such a tensor: the host
 * refuses the call (OLC_E_UNSUPPORTED) before execute, so the promise above
 * stands for it.  For every plugin the host refuses an output whose bytes
 * overlap an input's.
 */
typedef struct olc_plugin_tensor {
  uint32_t struct_size;
  uint32_t abi_minor;
  uint32_t dtype; /* OLC_PLUGIN_DTYPE_* */
  uint32_t rank;  /* 1 .. OLC_PLUGIN_MAX_RANK (0: a scalar, with views) */
  int64_t dims[OLC_PLUGIN_MAX_RANK];
  int64_t strides[OLC_PLUGIN_MAX_RANK];
  void *data;
} olc_plugin_tensor;

/*
 * The operands of one execute call, borrowed for the call.
 *
 * MatMul (the operator both shipped plugins serve):
 *   C[m x n] = alpha * A[m x k] * B[k x n] + beta * C
 * inputs[0] = A (rank 2, dims {m, k}), inputs[1] = B (rank 2, dims {k, n}),
 * outputs[0] = C (rank 2, dims {m, n}); fp32; row-major: strides[1] == 1
 * and strides[0] >= dims[1] (the leading dimension).  With beta == 0, C is
 * not read (NaN or garbage there is overwritten).  The shape may differ
 * from the workload's (a runtime executes one selected policy on every size
 * of a bucketed dimension, see key below); a policy must produce the right
 * result for any shape.  What a plugin does not implement (transposed
 * operands: strides[1] != 1; batched ones: rank 3; another dtype; operands
 * that overlap C) is OLC_PLUGIN_E_UNSUPPORTED with a message through
 * host->set_error, never a wrong result; a description that contradicts
 * itself (k of A != k of B, C not m x n) is OLC_PLUGIN_E_INVALID.
 *
 * With views (ABI 1.3), the operators as ONNX defines them:
 *   MatMul: inputs A, B of rank >= 1, output Y, numpy's matmul: the last
 *     two dimensions multiply ([..., m, k] x [..., k, n]), the leading
 *     (batch) dimensions broadcast, a rank-1 A is a row (1 x k) and a
 *     rank-1 B a column (k x 1), the promoted dimension absent from Y.
 *     Y = alpha * A * B + beta * Y as above (ONNX: alpha 1, beta 0).
 *   Gemm: inputs A' (m x k), B' (k x n) and optionally C, output Y (m x n):
 *     Y = alpha * A' * B' + beta * C, C of rank 0, 1 or 2 broadcast to
 *     m x n as ONNX's unidirectional broadcast does (a scalar, a row of n,
 *     a column m x 1, the matrix); no C, or beta 0: no bias.  A transposed
 *     operand (ONNX's transA, transB) is handed as the view of A' or B'
 *     (dims {m, k}, strides {1, lda}); the workload's trans_a and trans_b
 *     say which layout it was calibrated for, and every policy computes
 *     the right result on every layout.
 *   One dtype T for every operand and Y (float32, float16, bfloat16),
 *   accumulated in float32; or, as an extension, float32 A, C and Y with a
 *   float16 or bfloat16 B (the workload's dtype_b).
 */
typedef struct olc_plugin_exec_args {
  uint32_t struct_size;
  uint32_t abi_minor;
  const olc_plugin_tensor *inputs;
  const olc_plugin_tensor *outputs;
  uint32_t input_count;
  uint32_t output_count;
  double alpha; /* scalar attributes; MatMul: 1 and 0 for a plain product */
  double beta;
  /* ---- ABI 1.3 ---- */
  /* input_count entries, or NULL: packed[i], when not NULL, is what pack
   * made of input i for this very policy; execute reads it instead of
   * inputs[i].data (inputs[i] still describes the operand's shape). */
  void *const *packed;
} olc_plugin_exec_args;

/*
 * The operands of matmul_f32 (ABI 1.5), borrowed for the call.  The host
 * guarantees: m, n, k >= 1; lda >= k, ldb >= n, ldc >= n (row-major, the
 * leading dimension in elements); every one of them below 2^28; a, b and
 * c non-null, each matrix's bytes within the address space; C's bytes
 * apart from A's and B's.  With beta == 0, C is not read.  A fixed layout
 * (no struct_size): a later ABI that needs more passes another struct.
 */
typedef struct olc_plugin_matmul_args {
  int64_t m, n, k;
  int64_t lda, ldb, ldc;
  const float *a;
  const float *b;
  float *c;
  float alpha;
  float beta;
} olc_plugin_matmul_args;

/* ------------------------------------------------------------ ABI 1.2 */

/*
 * How far a candidate's execute output may lie from the reference's for one
 * operator and dtype (ABI 1.2, olc_plugin.tolerances).  Before timing, the
 * host runs every candidate through execute on the same host-made inputs
 * (deterministic pseudo-random values in [-1, 1]) and rejects one with an
 * element c where |c - ref| > atol + rtol * |ref| (or c not finite) as
 * numerical_mismatch; the user may tighten atol and rtol in
 * [calibration], never widen them.  The reference is the output of the
 * candidate `reference` names (its serialized form, NUL-terminated, which
 * validate must accept: a plain, trusted policy), or, when NULL, of the
 * plugin's first candidate.  atol and rtol must be finite and >= 0, or the
 * plugin fails to load.  An operator and dtype without a row gets the host's
 * defaults (float32: 1e-3 and 1e-3, float64: 1e-9 and 1e-9; ABI 1.3:
 * float16 1e-2 and 1e-2, bfloat16 5e-2 and 5e-2, the dtype being the
 * output's).  The inputs follow the workload's properties (ABI 1.3: Gemm
 * with its bias, transposed views for a plugin with
 * OLC_PLUGIN_FEATURE_VIEWS, batch dimensions, float16 and bfloat16,
 * dtype_b), and a constant input is packed for each candidate (pack).
 */
typedef struct olc_plugin_tolerance {
  uint32_t struct_size; /* sizeof(olc_plugin_tolerance) as the plugin was compiled */
  uint32_t abi_minor;
  const char *operator_name; /* one of the plugin's operators */
  uint32_t dtype;            /* OLC_PLUGIN_DTYPE_* */
  uint32_t reserved0;
  double atol;           /* absolute, >= 0 */
  double rtol;           /* relative to |ref|, >= 0 */
  const char *reference; /* serialized reference policy, or NULL: the first candidate */
} olc_plugin_tolerance;

/*
 * The plugin's table: static const, valid until the process ends.
 * Required: name, implementation_version, operators, create, destroy, key,
 * candidates, validate, serialize, release_policy, run.
 */
typedef struct olc_plugin {
  uint32_t struct_size; /* sizeof(olc_plugin) as the plugin was compiled */
  uint32_t abi_minor;   /* OLC_PLUGIN_ABI_MINOR as the plugin was compiled */
  uint32_t abi_major;   /* OLC_PLUGIN_ABI_MAJOR */
  uint32_t reserved0;
  const char *name;                   /* unique, [a-z0-9_]+ */
  const char *implementation_version; /* changes whenever policies change meaning */
  const char *description;            /* one line, may be NULL */
  const char *const *operators;       /* operator names served */
  uint32_t operator_count;
  uint32_t reserved1;

  /*
   * Creates an instance.  config: the [plugin.NAME] entries of the ini
   * file (borrowed for the call).  thread_count: the effective thread count
   * the host wants used (>= 1).  Returns OLC_PLUGIN_OK and sets *instance,
   * OLC_PLUGIN_E_UNAVAILABLE (skip this plugin on this machine), or a failure.
   */
  int32_t (*create)(const olc_plugin_host *host, const olc_plugin_kv *config, uint32_t config_count,
                    uint32_t thread_count, void **instance);
  /* Destroys an instance (joins its threads, frees its memory). */
  void (*destroy)(void *instance);

  /*
   * The key of a workload: processor identity, thread count, structure.
   * OLC_PLUGIN_E_UNSUPPORTED when the workload is not one it serves.
   *
   * The structure is the workload's identity: the host composes the model
   * digest of the exact record from the model's digest and this structure
   * (olc/host.h), so two workloads share a record exactly when they share
   * a processor, thread count, model and structure.  A plugin may bucket a
   * property (report "m" = "129-256" for every m in that range) where its
   * measurements show that the best policy does not change within the
   * bucket: a runtime that meets many sizes of one dimension then gets one
   * record and one measurement per bucket, and executes the bucket's policy
   * on each actual size.  key also accepts the structure it reports (a
   * bucket's text as the property's value) and gives the same key for it:
   * the host asks for the key of a stored record's workload from the
   * record's structure (olc prune --foreign); other calls may refuse it.
   */
  int32_t (*key)(void *instance, const olc_plugin_workload *workload,
                 const olc_plugin_key_sink *sink);
  /* The policies worth measuring for a workload, best guess first. */
  int32_t (*candidates)(void *instance, const olc_plugin_workload *workload,
                        const olc_plugin_policy_sink *sink);
  /*
   * Validates serialized policy bytes (borrowed; not NUL-terminated) and,
   * when policy is not NULL, deserializes them into a new policy the host
   * later releases.  A rejection returns OLC_PLUGIN_E_INVALID with a reason
   * through host->set_error.
   */
  int32_t (*validate)(void *instance, const void *bytes, uint64_t len, void **policy);
  /* Writes the serialized form of a policy. */
  int32_t (*serialize)(void *instance, const void *policy, const olc_plugin_byte_sink *out);
  /* Frees a policy made by candidates or validate. NULL is fine. */
  void (*release_policy)(void *instance, void *policy);
  /*
   * Executes the workload once with the policy, synchronously.  state is
   * what prepare returned (NULL when prepare is not implemented).  The host
   * times this call.
   */
  int32_t (*run)(void *instance, const olc_plugin_workload *workload, void *state,
                 const void *policy);

  /* Optional: allocate and fill the workload's buffers once before runs. */
  int32_t (*prepare)(void *instance, const olc_plugin_workload *workload, void **state);
  /* Optional: free what prepare made. */
  void (*unprepare)(void *instance, void *state);
  /* Optional: floating-point operations of one run (for GFLOP/s). */
  int32_t (*flops)(void *instance, const olc_plugin_workload *workload, double *flops);

  /* ---- ABI 1.1 (read only when struct_size covers it) ---- */

  /*
   * Optional: runs the workload's operator with a policy (from candidates
   * or validate) on caller-owned operands (see olc_plugin_exec_args),
   * synchronously.  Reentrant: called from many threads at once on one
   * instance.  Keeps no pointer to args, its tensors or their data after
   * returning.  OLC_PLUGIN_OK, OLC_PLUGIN_E_UNSUPPORTED (a variant the
   * plugin does not implement), OLC_PLUGIN_E_INVALID, OLC_PLUGIN_E_NOMEM or
   * a failure.  A plugin without execute can be calibrated but not run by a
   * runtime; the host reports that.
   */
  int32_t (*execute)(void *instance, const olc_plugin_workload *workload, const void *policy,
                     const olc_plugin_exec_args *args);

  /* ---- ABI 1.2 (read only when struct_size covers it) ---- */

  /*
   * Optional: the numerical check's tolerances, one row per operator and
   * dtype (see olc_plugin_tolerance), static const like the table; NULL
   * with count 0: the host's defaults for every operator.  Read only when
   * execute is set: a plugin without execute is calibrated unchecked.
   */
  const olc_plugin_tolerance *tolerances;
  uint32_t tolerance_count;
  uint32_t reserved2;
  /*
   * Optional: the bytes of the operands one prepared instance of the
   * workload holds (for MatMul the A, B and C that prepare allocates).
   * With [calibration] rotating_buffer_mb (cold-cache measurement) the
   * host prepares N = ceil(size / bytes) + 1 instances and rotates through
   * them between timed runs, so that each run finds its operands out of
   * cache; without this function the host computes the bytes from the
   * operator's shape (MatMul: 4 (mk + kn + mn) for float32).  prepare is
   * then called N times (each state independent), unprepare N times.
   * OLC_PLUGIN_OK with *bytes > 0, or OLC_PLUGIN_E_UNSUPPORTED.
   */
  int32_t (*operand_bytes)(void *instance, const olc_plugin_workload *workload, uint64_t *bytes);

  /* ---- ABI 1.3 (read only when struct_size covers it) ---- */

  uint32_t features; /* OLC_PLUGIN_FEATURE_* */
  uint32_t reserved3;
  /*
   * Optional (with execute): packs constant input `input` of the workload
   * (operand: its description and data, which stay valid and unchanged
   * until release_packed) for one policy, into memory the plugin owns:
   * *packed for exec_args.packed, *bytes its size.  Called once per
   * binding and selected policy, not concurrently with itself on one
   * operand; execute calls reading an earlier packed copy may run
   * meanwhile.  OLC_PLUGIN_OK, OLC_PLUGIN_E_UNSUPPORTED (this input or
   * policy is not packed: execute reads the operand in place),
   * OLC_PLUGIN_E_NOMEM, or a failure.
   */
  int32_t (*pack)(void *instance, const olc_plugin_workload *workload, const void *policy,
                  uint32_t input, const olc_plugin_tensor *operand, void **packed, uint64_t *bytes);
  /* Frees what pack made (no execute reads it any more). NULL is fine. */
  void (*release_packed)(void *instance, void *packed);

  /* ---- ABI 1.4 (read only when struct_size covers it) ---- */

  /*
   * Optional: how far apart two workloads of one operator are, for the
   * policy the host serves on a miss: the policy of the nearest measured
   * workload (same plugin, operator, processor and thread count) rather
   * than the first candidate.  a and b are structures as key reports them
   * (a_count and b_count pairs each, sorted by name; values may be the
   * plugin's own buckets), borrowed for the call.  Returns OLC_PLUGIN_OK
   * with *distance >= 0 (0: as alike as the plugin can tell; smaller is
   * nearer), or OLC_PLUGIN_E_UNSUPPORTED when one's policy must never be
   * served for the other (another dtype or layout).  NULL: the host's
   * default, the sum over the properties of |log2(a / b)| where both
   * values are positive numbers (a "lo-hi" bucket counts as its geometric
   * middle) and 0 where they are equal; any other difference, or a
   * property only one has, is not comparable.  Reentrant.
   */
  int32_t (*distance)(void *instance, const char *operator_name, const olc_plugin_kv *a,
                      uint32_t a_count, const olc_plugin_kv *b, uint32_t b_count, double *distance);

  /* ---- ABI 1.5 (read only when struct_size covers it) ---- */

  /*
   * Optional (with execute): the plain product of a MatMul workload,
   * C = alpha * A * B + beta * C on row-major float32 matrices (see
   * olc_plugin_matmul_args), with a policy as execute takes it.  The host
   * calls it instead of execute for every call it can describe so (the
   * workload's operator is MatMul, no packed operand), after checking what
   * olc_plugin_matmul_args promises, so the plugin decodes nothing: a
   * runtime's smallest products cost what the product costs.  Its result
   * must be execute's on the same operands; same return codes, same
   * reentrancy.  NULL: the host describes the operands and calls execute.
   */
  int32_t (*matmul_f32)(void *instance, const olc_plugin_workload *workload, const void *policy,
                        const olc_plugin_matmul_args *args);
} olc_plugin;

/* olc_plugin.features (ABI 1.3). */
/* execute takes views: strides 0 and in any order, rank 0 (see
 * olc_plugin_tensor); without it the host hands only what ABI 1.1 promised. */
#define OLC_PLUGIN_FEATURE_VIEWS 1u

/*
 * The entry point every plugin exports:
 *
 *   OLC_PLUGIN_EXPORT int32_t olc_plugin_entry(uint32_t host_abi_major,
 *                                              const olc_plugin_host *host,
 *                                              const olc_plugin **plugin);
 *
 * Returns OLC_PLUGIN_OK and *plugin, or OLC_PLUGIN_E_ABI when it does not
 * speak host_abi_major.  host stays valid until the process ends.
 */
typedef int32_t (*olc_plugin_entry_fn)(uint32_t host_abi_major, const olc_plugin_host *host,
                                       const olc_plugin **plugin);

/* Frozen layouts of ABI major 1 (C99-compatible static assertions). */
#define OLC_PLUGIN__ASSERT(name, cond) typedef char olc_plugin__assert_##name[(cond) ? 1 : -1]
OLC_PLUGIN__ASSERT(kv_size, sizeof(olc_plugin_kv) == 2 * sizeof(void *));
OLC_PLUGIN__ASSERT(workload_name, offsetof(olc_plugin_workload, name) == 8);
OLC_PLUGIN__ASSERT(workload_props,
                   offsetof(olc_plugin_workload, properties) == 8 + 2 * sizeof(void *));
OLC_PLUGIN__ASSERT(key_sink_ctx, offsetof(olc_plugin_key_sink, ctx) == 8);
OLC_PLUGIN__ASSERT(host_ctx, offsetof(olc_plugin_host, ctx) == 8);
OLC_PLUGIN__ASSERT(host_log, offsetof(olc_plugin_host, log) == 8 + sizeof(void *));
OLC_PLUGIN__ASSERT(plugin_name, offsetof(olc_plugin, name) == 16);
OLC_PLUGIN__ASSERT(plugin_create, offsetof(olc_plugin, create) == 16 + 4 * sizeof(void *) + 8);
OLC_PLUGIN__ASSERT(plugin_run, offsetof(olc_plugin, run) == 16 + 11 * sizeof(void *) + 8);
OLC_PLUGIN__ASSERT(plugin_flops, offsetof(olc_plugin, flops) == 16 + 14 * sizeof(void *) + 8);
/* ABI 1.1 */
OLC_PLUGIN__ASSERT(plugin_execute, offsetof(olc_plugin, execute) == 16 + 15 * sizeof(void *) + 8);
OLC_PLUGIN__ASSERT(tensor_dims, offsetof(olc_plugin_tensor, dims) == 16);
OLC_PLUGIN__ASSERT(tensor_data, offsetof(olc_plugin_tensor, data) ==
                                    16 + 2 * OLC_PLUGIN_MAX_RANK * sizeof(int64_t));
OLC_PLUGIN__ASSERT(exec_inputs, offsetof(olc_plugin_exec_args, inputs) == 8);
/* ABI 1.2 */
OLC_PLUGIN__ASSERT(plugin_tolerances,
                   offsetof(olc_plugin, tolerances) == 16 + 16 * sizeof(void *) + 8);
OLC_PLUGIN__ASSERT(plugin_operand_bytes,
                   offsetof(olc_plugin, operand_bytes) == 16 + 17 * sizeof(void *) + 16);
OLC_PLUGIN__ASSERT(tolerance_atol, offsetof(olc_plugin_tolerance, atol) == 16 + sizeof(void *));
OLC_PLUGIN__ASSERT(exec_alpha, offsetof(olc_plugin_exec_args, alpha) == 8 + 2 * sizeof(void *) + 8);
/* ABI 1.3 */
OLC_PLUGIN__ASSERT(plugin_features,
                   offsetof(olc_plugin, features) == 16 + 18 * sizeof(void *) + 16);
OLC_PLUGIN__ASSERT(plugin_pack, offsetof(olc_plugin, pack) == 16 + 18 * sizeof(void *) + 24);
OLC_PLUGIN__ASSERT(exec_packed,
                   offsetof(olc_plugin_exec_args, packed) == 8 + 2 * sizeof(void *) + 24);
OLC_PLUGIN__ASSERT(workload_constants,
                   offsetof(olc_plugin_workload, constant_inputs) == 16 + 4 * sizeof(void *));
OLC_PLUGIN__ASSERT(key_sink_use,
                   offsetof(olc_plugin_key_sink, use_property) == 8 + 4 * sizeof(void *));
/* ABI 1.4 */
OLC_PLUGIN__ASSERT(plugin_distance,
                   offsetof(olc_plugin, distance) == 16 + 20 * sizeof(void *) + 24);
/* ABI 1.5 */
OLC_PLUGIN__ASSERT(plugin_matmul_f32,
                   offsetof(olc_plugin, matmul_f32) == 16 + 21 * sizeof(void *) + 24);
OLC_PLUGIN__ASSERT(matmul_args_alpha,
                   offsetof(olc_plugin_matmul_args, alpha) == 48 + 3 * sizeof(void *));

#ifdef __cplusplus
}
#endif

#endif /* OLC_PLUGIN_H */
