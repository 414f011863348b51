/*
 * olc/store.h - the calibration profile store.
 *
 * A C rendering of CalibrationProfileStore (docs/store.md; the file:
 * docs/file-format.md; its write protocol: docs/durability.md).
 * Backends describe a workload by a key, hand in their measurements and a
 * serializer for their opaque policy, and the store keeps the records in
 * memory and, unless persistence is disabled, in one version-1 text file
 * shared safely between processes.
 *
 * Thread safety: one olc_store handle may be used from any number of threads
 * at once.  Lookup results and record lists are independent objects owned by
 * the caller.
 *
 * fork() (POSIX): a handle keeps no lock between calls, and fork() waits
 * (pthread_atfork) until no other thread of the process is inside a call on
 * any open handle, so a child never inherits a held store lock or a locked
 * mutex.  The child may then use the handles it inherited like its own:
 * lookups see every save (the lock file's counter is read with pread, so
 * the descriptor the child shares with the parent is harmless), and saves
 * from parent and child are merged under the lock like those of any two
 * processes.  Lookup results and record lists are plain memory.  The one
 * exception is the usual POSIX rule: a fork made from inside a call (a
 * remove_if predicate) leaves that call's handle unusable in the child;
 * such a child should only exec or _exit (descriptors are O_CLOEXEC).
 */
#ifndef OLC_STORE_H
#define OLC_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "olc/diag.h"
#include "olc/error.h"
#include "olc/export.h"
#include "olc/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct olc_store olc_store;
typedef struct olc_lookup_result olc_lookup_result;
typedef struct olc_record_list olc_record_list;

/* Which identity a record carries. */
typedef enum olc_level {
  OLC_LEVEL_EXACT = 0,   /* backend, operator, implementation, model, processor, threads */
  OLC_LEVEL_PORTABLE = 1 /* backend, operator, implementation, sorted structure */
} olc_level;

/* Where a record came from. */
typedef enum olc_origin {
  OLC_ORIGIN_CALIBRATED = 0, /* measured and saved by olc_store_save */
  OLC_ORIGIN_OVERRIDE = 1    /* installed by a user */
} olc_origin;

/* Lookup precedence, 1 = highest. */
typedef enum olc_precedence {
  OLC_PRECEDENCE_EXACT_OVERRIDE = 1,
  OLC_PRECEDENCE_PORTABLE_OVERRIDE = 2,
  OLC_PRECEDENCE_EXACT_CALIBRATED = 3,
  OLC_PRECEDENCE_PORTABLE_CALIBRATED = 4
} olc_precedence;

/* Bit masks of levels, for saving and removing. */
#define OLC_LEVELS_DEFAULT 0u /* exact, plus portable when the key has structure */
#define OLC_LEVEL_BIT_EXACT 1u
#define OLC_LEVEL_BIT_PORTABLE 2u

/* A structural property ("dtype" = "float16"). */
typedef struct olc_property {
  const char *name;
  const char *value;
} olc_property;

/* A named measurement: a finite value with its unit ("median_latency", 2.5, "us"). */
typedef struct olc_measurement {
  const char *name;
  double value;
  const char *unit;
} olc_measurement;

/*
 * A key.  backend, operator_name and implementation are always required.
 * The exact identity adds model_digest, processor and thread_count: it is
 * present when model_digest and processor are both non-NULL (either may be
 * an empty string); giving only one of them is OLC_E_INVALID.  thread_count
 * must be >= 0 (0: not applicable).  The portable identity is the
 * structure, which need not be sorted (the store sorts it) but must not
 * repeat a name.  All strings are UTF-8 without NUL bytes and are borrowed
 * for the duration of the call.
 */
typedef struct olc_key {
  const char *backend;
  const char *operator_name;
  const char *implementation;
  const char *model_digest;
  const char *processor;
  int64_t thread_count;
  const olc_property *structure;
  size_t structure_count;
} olc_key;

/*
 * A read-only view of a stored record.  For an exact record structure_count
 * is 0; for a portable record model_digest and processor are NULL and
 * thread_count is 0.  policy may contain any byte, NUL included; it is also
 * followed by a terminating NUL that is not counted in policy_len.  Every
 * pointer is owned by the object the record was obtained from.
 */
typedef struct olc_record {
  olc_level level;
  olc_origin origin;
  const char *backend;
  const char *operator_name;
  const char *implementation;
  const char *model_digest;
  const char *processor;
  int64_t thread_count;
  const olc_property *structure;
  size_t structure_count;
  const olc_measurement *measurements;
  size_t measurement_count;
  const unsigned char *policy;
  size_t policy_len;
  /* Appended after policy_len (a view the library fills, never a caller's
   * struct): the file the record was read from, the store's own file (its
   * resolved path, olc_store_path) or one of its read-only layer files
   * (olc_store_options.layers), as the path the layer was found under,
   * made absolute at open; NULL for a record that no file holds
   * (persistence off, a read-only handle's saves, and records
   * olc_store_save or a merge has not published yet).  Owned like the
   * other pointers.  from_layer is 1 for a layer's record, else 0. */
  const char *source;
  int from_layer;
} olc_record;

/* Precedence of a record (1..4). */
OLC_API olc_precedence olc_record_precedence(const olc_record *record);
/* "exact" / "portable", "calibrated" / "override". */
OLC_API const char *olc_level_str(olc_level level);
OLC_API const char *olc_origin_str(olc_origin origin);

/*
 * Workload identity: the grammar a host composes exact keys with, and the
 * one a scoped lookup (OLC_LOOKUP_SCOPE_WORKLOAD) reads.  The store itself
 * requires none of it: an exact key's model digest is whatever the caller
 * gives, and every other lookup compares it as an opaque string.
 *
 * Canonical structure text: the properties sorted by name (strcmp order),
 * each written name=value, joined by ';'.  In names and values the bytes
 * '%', ';', '=', '#' and every byte below 0x20 are written %XX (two
 * upper-case hex digits), so the text splits unambiguously at ';' and '='
 * and holds no '#'.  No properties give the empty text.
 *   {m=64, dtype=float32}  ->  dtype=float32;m=64
 *   {note=a;b}             ->  note=a%3Bb
 *
 * The exact key of one workload of one model has the model digest
 * "<model digest>#<canonical structure>"; a workload without a model has
 * "workload:<canonical structure>":
 *   sha256:9f2c...#dtype=float32;k=64;m=64;n=64
 *   workload:dtype=float32;k=64;m=64;n=64
 *
 * The workload identity of a record:
 * - exact: the part of its model digest after the last '#' (the part
 *   before it is the digest's model part); else, when the digest begins
 *   with "workload:", the part after that prefix; else none.  A record
 *   without one is a legacy record: a bare model digest, as hosts wrote
 *   before records were per workload, or any other digest a caller chose
 *   (the keys of examples/calibration_profile_backend are such).
 * - portable: its structure in canonical text.
 */

/*
 * Writes the canonical structure text of count properties (in any order)
 * into buf, NUL-terminated.  *len (may be NULL) receives the text's length
 * without the NUL, also when buf is too small, so buf NULL with buf_size 0
 * asks for the size.  Inputs are borrowed for the call.  Thread-safe.
 *
 * Returns OLC_OK, OLC_E_INVALID (structure NULL with count > 0, a NULL or
 * empty name, a NULL value, a name given twice), OLC_E_LIMIT (the text and
 * its NUL do not fit in buf_size bytes; buf then holds "" when buf_size >
 * 0), OLC_E_NOMEM.
 */
OLC_API olc_status olc_store_structure_text(char *buf, size_t buf_size, size_t *len,
                                            const olc_property *structure, size_t count,
                                            olc_error *err);

/*
 * Composes the model digest of one workload's exact key:
 * "<model_digest>#<canonical structure>", or "workload:<canonical
 * structure>" when model_digest is NULL.  model_digest is written as given
 * (it may hold '#' itself: the last '#' is the one that separates).  The
 * same buffer rules and statuses as olc_store_structure_text.
 */
OLC_API olc_status olc_store_workload_digest(char *buf, size_t buf_size, size_t *len,
                                             const char *model_digest,
                                             const olc_property *structure, size_t count,
                                             olc_error *err);

/*
 * The workload identity that an exact model digest carries: a pointer into
 * model_digest (borrowed from it), or NULL when it carries none (a legacy
 * digest) or model_digest is NULL.  Thread-safe, allocates nothing.
 */
OLC_API const char *olc_store_workload_of_digest(const char *model_digest);

/*
 * Writes a record's workload identity into buf (the same buffer rules as
 * olc_store_structure_text).  Returns OLC_OK, OLC_E_NOT_FOUND (a legacy
 * exact record: it has none; buf holds "" and *len is 0), OLC_E_INVALID
 * (record NULL, or a malformed structure), OLC_E_LIMIT, OLC_E_NOMEM.
 */
OLC_API olc_status olc_record_workload(char *buf, size_t buf_size, size_t *len,
                                       const olc_record *record, olc_error *err);

/*
 * Appends bytes to the output of a serializer.  Returns OLC_OK or
 * OLC_E_NOMEM / OLC_E_LIMIT.
 */
typedef struct olc_bytes olc_bytes;
OLC_API olc_status olc_bytes_append(olc_bytes *out, const void *data, size_t len);

/*
 * Serializer callback: writes the policy with olc_bytes_append.  Returns
 * OLC_OK, or any failure (reported as OLC_E_SERIALIZE with the message the
 * callback wrote into message, message_size bytes including the NUL).
 */
typedef olc_status (*olc_serialize_fn)(olc_bytes *out, void *payload, char *message,
                                       size_t message_size);

/*
 * Validator callback (validates, and may deserialize for its own use):
 * returns OLC_OK when the policy is usable, anything else when not, with a
 * one-line reason written into message (message_size bytes including the
 * NUL).  It may be called from any thread that uses the store.
 */
typedef olc_status (*olc_validate_fn)(const unsigned char *policy, size_t policy_len, void *payload,
                                      char *message, size_t message_size);

/*
 * Versioned structs.  Every struct a caller fills for the library
 * (olc_store_options, olc_save_request, olc_lookup_options here;
 * olc_host_options, olc_calibrate_options and olc_verify_options in
 * olc/loader.h and olc/calibrate.h; olc_workload, olc_select_options and
 * olc_execute_args in olc/runtime.h) begins with uint32_t version, which
 * the *_INIT macro sets to this header's *_VERSION.  Version 1 of each is
 * its layout in release 1.0 (the history starts there).  The library
 * accepts every version from 1 to its own: the fields an older
 * caller's struct lacks take their *_INIT defaults, and the library reads
 * no byte past the end of the caller's version.  Version 0, or one newer
 * than the library's, is OLC_E_INVALID with a message naming the struct and
 * both versions (OLC_E_VERSION is for files).
 *
 * Changing one (the rule for this library's authors): append fields at the
 * end, under a comment saying which version added them ("Version 2: ..."),
 * and bump *_VERSION by one; the *_INIT macro needs a new field only when its default is not
 * zero.  Then add the version's row (its last field) to the struct's table
 * in host/src/util/options.c: the build fails until the rows match
 * *_VERSION.  Fields are never removed, reordered or retyped.
 */

/* Options for olc_store_open. Initialize with OLC_STORE_OPTIONS_INIT;
 * versioned as above. */
typedef struct olc_store_options {
  uint32_t version;           /* OLC_STORE_OPTIONS_VERSION */
  const char *path;           /* NULL: olc_store_default_path() */
  int persistence_enabled;    /* 0: no file-system call at all */
  int64_t lock_timeout_ms;    /* < 0: wait forever */
  int check_for_changes;      /* re-read when another process replaced the file */
  uint32_t tmp_grace_seconds; /* age before a leftover *.tmp is deleted (one whose
                               * writer is gone, on a local file system: at once) */
  uint32_t file_mode;         /* mode of a newly created store file */
  size_t max_file_size;       /* refuse larger files (0: the default, 64 MiB) */
  /* Where the store's diagnostics go (olc/diag.h; NULL: kept,
   * read with olc_store_next_diagnostic). */
  olc_diag_fn diag;
  void *diag_payload;
  /* Read-only layers beneath the store's file, layer_count
   * paths (borrowed for the call to olc_store_open).  A path may end in a
   * component with '*' (the only wildcard; it matches any run of bytes, a
   * leading '.' only when the pattern's component begins with one): the
   * matching names of that directory, in byte (strcmp) order.  Layers are
   * read only with persistence on, at open, and re-checked for changes like
   * the store's file (one stat per layer file per lookup, with
   * check_for_changes); a glob is expanded at open only.  A relative path
   * or pattern is taken against the working directory at open and kept
   * absolute (symlinks not resolved), so a later chdir changes nothing;
   * open fails with OLC_E_IO naming the layer when the working directory
   * cannot be read then.  A layer that does
   * not exist, a glob that matches nothing, a directory, a FIFO or device,
   * a file over max_file_size or a malformed file (file:line:column) is a
   * diagnostic ("layers") and is skipped; a layer file that becomes
   * unreadable keeps the records it last read.  Nothing is ever written to
   * a layer: saves, overrides, removals and imports change the store's own
   * file only, and a save never copies a layer's records into it.
   * Lookup keeps its four precedence levels; within one level a record of
   * the store's file wins over the same identity in a layer, and an
   * earlier layer over a later one (the other is OLC_REASON_SHADOWED). */
  const char *const *layers;
  size_t layer_count;
  /* With persistence: read the file and follow other processes' changes,
   * but never create, lock or write anything in the store's directory.
   * Saves are kept in this handle's memory only (said once, as an
   * OLC_DIAG_WARNING "read_only"); every other write is OLC_E_READ_ONLY. */
  int read_only;
  /* Write a store that lies on a network file system (NFS, SMB/CIFS, 9p,
   * network FUSE such as sshfs); 0: such writes are OLC_E_READ_ONLY. */
  int allow_network_fs;
  /* The layers as one text (borrowed for the call to
   * olc_store_open), as OLC_STORE_LAYERS gives them: paths and globs
   * separated by ',' or ':' (';' on Windows), blank space around each
   * trimmed, empty items skipped.  Non-NULL and not empty: it replaces
   * layers and layer_count. */
  const char *layers_list;
} olc_store_options;

#define OLC_STORE_OPTIONS_VERSION 1u
#define OLC_STORE_OPTIONS_INIT                                                                     \
  { OLC_STORE_OPTIONS_VERSION, NULL, 1, 10000, 1, 3600u, 0600u, 0, NULL, NULL, NULL, 0, 0, 0, NULL }

/*
 * Opt-in environment for embedders: applies the variables the CLI honours
 * to *options (read with secure_getenv, so a set-uid or set-gid process
 * ignores them):
 *   OLC_STORE=PATH                    options->path (borrowed from the
 *                                     environment; empty: unchanged)
 *   OLC_PERSISTENCE=off|read_only|on  persistence_enabled and read_only
 *                                     (also false/no/0 and true/yes/1)
 *   OLC_STORE_LAYERS=LIST             layers_list (borrowed; replaces
 *                                     the layers)
 * A variable that is unset or empty leaves its fields alone.  options must
 * be initialized (OLC_STORE_OPTIONS_INIT).  Returns OLC_OK, OLC_E_INVALID
 * (options NULL, a version 0 or newer than the library's, or an
 * OLC_PERSISTENCE value that is none of the words: nothing changed).
 * Not thread-safe against setenv in other threads (as getenv).
 */
OLC_API olc_status olc_store_options_from_env(olc_store_options *options, olc_error *err);

/* The value of OLC_STORE_LAYERS (secure_getenv; borrowed from the
 * environment), or NULL when it is unset or empty: what
 * olc_store_options_from_env puts in layers_list. */
OLC_API const char *olc_store_env_layers(void);

/* What olc_store_writable found (olc_store_fs_info). */
typedef struct olc_store_fs_info {
  int read_only_mode; /* the handle was opened read-only */
  int read_only_fs;   /* statvfs: ST_RDONLY on the store's directory */
  int dir_writable;   /* access(W_OK) on the directory */
  int file_writable;  /* access(W_OK) on the file (1 when it does not exist) */
  int network;        /* the directory is on a network file system */
  char fs_type[64];   /* "ext4", "nfs4", "fuse.sshfs", ... ("" when unknown) */
} olc_store_fs_info;

/*
 * Whether the store can be written, found without writing anything:
 * statvfs (read-only file system), access(W_OK) on the store's directory
 * and on the file when it exists, statfs and /proc/self/mountinfo for the
 * file system's type.  info (may be NULL) receives the findings.
 *
 * Returns OLC_OK (writable), OLC_E_DISABLED (persistence off: nothing is
 * ever written, but saves work in memory), OLC_E_READ_ONLY with a one-line
 * message naming the path and the reason (read-only mode, a read-only file
 * system, no write permission on the directory or the file, or a network
 * file system without allow_network_fs, with the remedy), OLC_E_INVALID
 * (store NULL).  Thread-safe.
 */
OLC_API olc_status olc_store_writable(olc_store *store, olc_store_fs_info *info, olc_error *err);

/* 1 when the handle was opened read-only (olc_store_options.read_only
 * with persistence on). */
OLC_API int olc_store_is_read_only(const olc_store *store);

/*
 * Opens a store.  With persistence enabled the file is read once now; a
 * missing file is an empty store, and an unreadable one leaves the store
 * empty and is reported by olc_store_load_status() and olc_store_reload(),
 * not here (so that repair and override commands keep working).  Nothing is
 * created on disk until the first write.
 *
 * A read-only handle (read_only) reads the same way but never creates,
 * locks or writes anything in the store's directory: its change check
 * reads P.lock's counter when P.lock exists and is readable, else compares
 * the file's identity (one stat per lookup).
 *
 * Returns OLC_OK, OLC_E_INVALID (also for a path that is a store's lock
 * file or temporary, see olc_store_export_file), OLC_E_NOMEM, OLC_E_NOT_FOUND
 * (no default path can be determined), OLC_E_IO.  *out is freed with
 * olc_store_free.
 */
OLC_API olc_status olc_store_open(olc_store **out, const olc_store_options *options,
                                  olc_error *err);

/* Frees a store handle. NULL is fine. Not concurrent with other calls on it. */
OLC_API void olc_store_free(olc_store *store);

/*
 * Takes the oldest diagnostic the store kept (opened without a diag
 * callback: the last OLC_DIAG_KEEP; olc/diag.h) into *out and forgets it.
 * Today the store warns when its change check degrades (P.lock replaced
 * again and again: a stat per lookup from then on).  Returns OLC_OK,
 * OLC_E_NOT_FOUND (none kept), OLC_E_INVALID (out or store NULL).
 * Thread-safe; each diagnostic is taken once.
 */
OLC_API olc_status olc_store_next_diagnostic(olc_diagnostic *out, olc_store *store);
/* Diagnostics dropped to make room since the store was opened. */
OLC_API uint64_t olc_store_diagnostics_dropped(olc_store *store);

/* The resolved path of the store file (borrowed; NULL when persistence is off). */
OLC_API const char *olc_store_path(const olc_store *store);

/*
 * Writes the default store path into buf: %LOCALAPPDATA%\onnx-light\... on
 * Windows; $XDG_CACHE_HOME/onnx-light/calibration_profiles.txt when that is
 * set and absolute; else $HOME/.cache/onnx-light/... when HOME is absolute;
 * with HOME unset or relative, the
 * home directory of the passwd entry.  Returns OLC_OK, OLC_E_LIMIT (buf too
 * small), OLC_E_NOT_FOUND (no home directory).
 */
OLC_API olc_status olc_store_default_path(char *buf, size_t buf_size, olc_error *err);

/*
 * Re-reads the file now.  Returns OLC_OK (also for a missing file, and
 * always when persistence is off), or the parse/I-O failure; on failure the
 * in-memory snapshot is unchanged.
 */
OLC_API olc_status olc_store_reload(olc_store *store, olc_error *err);

/* Result of the last load attempt (OLC_OK when none failed; a successful
 * write also counts as a good load). */
OLC_API olc_status olc_store_load_status(olc_store *store, olc_error *err);

/* What to save.  Initialize with OLC_SAVE_REQUEST_INIT; versioned as
 * above. */
typedef struct olc_save_request {
  uint32_t version; /* OLC_SAVE_REQUEST_VERSION */
  const olc_key *key;
  const olc_measurement *measurements;
  size_t measurement_count;
  /* The policy: from serialize when it is set, else the bytes below. */
  olc_serialize_fn serialize;
  void *serialize_payload;
  const void *policy;
  size_t policy_len;
  /* Optional; run on the serialized policy before anything is written. */
  olc_validate_fn validate;
  void *validate_payload;
  /* OLC_LEVELS_DEFAULT (every level the key has an identity for;
   * OLC_E_INVALID when it has none), or a mask of OLC_LEVEL_BIT_*. */
  unsigned levels;
} olc_save_request;

#define OLC_SAVE_REQUEST_VERSION 1u
#define OLC_SAVE_REQUEST_INIT                                                                      \
  { OLC_SAVE_REQUEST_VERSION, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL, NULL, OLC_LEVELS_DEFAULT }

/*
 * Saves a calibrated profile (CalibrationProfileStore::Store): the exact record, and the
 * portable record when the key carries structural properties.  Replaces any
 * calibrated record with the same identity.  With persistence enabled the
 * change is merged into the file under the inter-process lock.
 *
 * Returns OLC_OK, OLC_COMMITTED_UNSYNCED, OLC_E_INVALID (bad key, duplicate
 * property name, non-finite measurement), OLC_E_SERIALIZE, OLC_E_VALIDATION,
 * OLC_E_LIMIT (a value or the record over the format's limits, or a file
 * larger than this handle's max_file_size or the 64 MiB a default reader
 * reads: nothing is written then), OLC_E_NOMEM, and the write failures: OLC_E_LOCK_TIMEOUT,
 * OLC_E_LOCK, OLC_E_IO, OLC_E_NOSPC, OLC_E_MALFORMED, OLC_E_VERSION (the file
 * on disk is unreadable; it is never overwritten), OLC_E_READ_ONLY (a store
 * on a network file system without allow_network_fs).  On failure nothing
 * changed, in memory or on disk.
 *
 * A read-only handle keeps the records in its memory only, above what it
 * reads from the file (they survive its reloads until it is freed), and
 * returns OLC_OK; the first such save emits one OLC_DIAG_WARNING
 * "read_only" saying that nothing is written.  Overrides, removals,
 * import and repair on a read-only handle are OLC_E_READ_ONLY.
 */
OLC_API olc_status olc_store_save(olc_store *store, const olc_save_request *request,
                                  olc_error *err);

/* The same as olc_store_save for a user override: the same statuses, and
 * OLC_E_READ_ONLY on a read-only handle (an override is never kept in
 * memory only). */
OLC_API olc_status olc_store_install_override(olc_store *store, const olc_save_request *request,
                                              olc_error *err);

/*
 * Removes the overrides of a key at the given levels (OLC_LEVELS_DEFAULT:
 * exact, plus portable when the key has structure).  Returns OLC_OK,
 * OLC_E_NOT_FOUND when there was none, or a write failure.
 */
OLC_API olc_status olc_store_remove_override(olc_store *store, const olc_key *key, unsigned levels,
                                             olc_error *err);

/* Why a candidate was not selected.  Append-only. */
typedef enum olc_reason {
  OLC_REASON_OUTDATED_IMPLEMENTATION = 1, /* the record's implementation is older */
  OLC_REASON_NEWER_IMPLEMENTATION = 2,    /* the record's implementation is newer */
  OLC_REASON_DIFFERENT_MODEL = 3,
  OLC_REASON_DIFFERENT_PROCESSOR = 4,
  OLC_REASON_DIFFERENT_THREAD_COUNT = 5,
  OLC_REASON_DIFFERENT_STRUCTURE = 6,
  OLC_REASON_FORCE_PORTABLE = 7,     /* exact level skipped by force_portable */
  OLC_REASON_SHADOWED = 8,           /* a higher level was selected */
  OLC_REASON_VALIDATION_FAILED = 9,  /* the backend's validator said no */
  OLC_REASON_DIFFERENT_IDENTITY = 10 /* differs in several fields (all_candidates) */
} olc_reason;

/* "outdated_implementation", ... (stable identifiers, used in JSON). */
OLC_API const char *olc_reason_str(olc_reason reason);

/* One rejected candidate; owned by the lookup result. */
typedef struct olc_rejection {
  olc_reason reason;
  const char *message; /* one line, e.g. "processor differs: \"a\" != \"b\"" */
  const olc_record *record;
} olc_rejection;

/* Which candidates a lookup reports (olc_lookup_options.scope). */
typedef enum olc_lookup_scope {
  OLC_LOOKUP_SCOPE_KEY = 0,     /* every record that matches the key or differs in one field */
  OLC_LOOKUP_SCOPE_WORKLOAD = 1 /* only those of the key's workload, plus legacy records */
} olc_lookup_scope;

/* What to look up.  Initialize with OLC_LOOKUP_OPTIONS_INIT; versioned as
 * above. */
typedef struct olc_lookup_options {
  uint32_t version; /* OLC_LOOKUP_OPTIONS_VERSION */
  /* backend, operator, implementation required; the exact fields and the
   * structure are each optional (a level whose identity is missing is not
   * searched). */
  const olc_key *key;
  int force_portable; /* skip both exact levels */
  int all_candidates; /* report every record of the backend and operator */
  olc_validate_fn validate;
  void *validate_payload;
  int scope; /* olc_lookup_scope */
} olc_lookup_options;

#define OLC_LOOKUP_OPTIONS_VERSION 1u
#define OLC_LOOKUP_OPTIONS_INIT                                                                    \
  { OLC_LOOKUP_OPTIONS_VERSION, NULL, 0, 0, NULL, NULL, OLC_LOOKUP_SCOPE_KEY }

/*
 * Looks up the best profile: exact override, portable override, exact
 * calibrated, portable calibrated; the first whose policy the validator
 * accepts wins.  The result holds a reference to the snapshot it was
 * computed on, so it stays valid after the store is freed.  Sees what other
 * processes saved since the last look (unless check_for_changes is off).
 * *out always receives a result on OLC_OK and on OLC_E_NOT_FOUND (nothing
 * selected; the rejections are still there).
 *
 * The candidates (selected or rejected) are the records of the key's
 * backend and operator that match the key or differ from it in exactly one
 * identity field; the reason names that field.  With all_candidates every
 * record of the backend and operator is reported (scope is then ignored),
 * and one that differs in several identity fields is reported as
 * OLC_REASON_DIFFERENT_IDENTITY with a message listing the fields.
 *
 * With scope OLC_LOOKUP_SCOPE_WORKLOAD the candidates are only those of the
 * key's workload (the workload identity grammar above):
 * - an exact record with the key's model digest, or whose workload identity
 *   equals the one the key's model digest carries: so the same workload of
 *   a changed model is OLC_REASON_DIFFERENT_MODEL, while the records of
 *   other workloads, which differ in the model digest too, are not listed;
 * - a portable record with the key's structure (only its implementation
 *   may differ);
 * - and, added to them, every legacy exact record (no workload identity)
 *   whose model digest equals the model part of the key's digest: such a
 *   record never matches a per-workload key and is reported as
 *   OLC_REASON_DIFFERENT_MODEL with the message "recorded for model \"<d>\"
 *   before records were per workload (recalibrated)".
 * Every record that matches the key is in scope, so both scopes select the
 * same record; precedence, force_portable, shadowing and the validator work
 * the same.  A scoped lookup costs the records of the key's workload and
 * model, not those of its backend and operator (a per-workload index of the
 * snapshot, built by the first scoped lookup).  A scope other than the two
 * is OLC_E_INVALID.
 *
 * Returns OLC_OK, OLC_E_NOT_FOUND, OLC_E_INVALID, OLC_E_NOMEM.  A file that
 * changed on disk but cannot be read is not an error here: the previous
 * snapshot is used and olc_store_load_status() reports it.
 */
OLC_API olc_status olc_store_lookup(olc_lookup_result **out, olc_store *store,
                                    const olc_lookup_options *options, olc_error *err);

/* The selected record, or NULL. Borrowed from the result. */
OLC_API const olc_record *olc_lookup_result_selected(const olc_lookup_result *result);
OLC_API size_t olc_lookup_result_rejected_count(const olc_lookup_result *result);
/* The i-th rejection (i < count), or NULL. Borrowed from the result. */
OLC_API const olc_rejection *olc_lookup_result_rejected(const olc_lookup_result *result, size_t i);
/*
 * The records of the key's backend and operator that the lookup neither
 * selected nor listed as rejected: with OLC_LOOKUP_SCOPE_WORKLOAD the
 * records of other workloads, with OLC_LOOKUP_SCOPE_KEY those that differ
 * in several identity fields, with all_candidates 0.  O(1); 0 for NULL.
 */
OLC_API size_t olc_lookup_result_unlisted_count(const olc_lookup_result *result);
OLC_API void olc_lookup_result_free(olc_lookup_result *result);

/*
 * A copy of every record, in canonical order (the order of the file).
 * Sees other processes' changes like a lookup does.  With layers
 * (olc_store_options.layers) their records are merged in: one identity
 * may then appear several times, the store's own record first, then the
 * layers' in their order (olc_record.source tells them apart).
 * Returns OLC_OK (*out is the caller's: olc_record_list_free),
 * OLC_E_INVALID (out or store NULL; *out NULL) or OLC_E_NOMEM.  A file that
 * cannot be read is not a failure here: the list holds the records last
 * read (olc_store_load_status says why).
 */
OLC_API olc_status olc_store_list(olc_record_list **out, olc_store *store, olc_error *err);
OLC_API size_t olc_record_list_count(const olc_record_list *list);
OLC_API const olc_record *olc_record_list_get(const olc_record_list *list, size_t i);
OLC_API void olc_record_list_free(olc_record_list *list);

/*
 * Predicate for olc_store_remove_if: return 1 to remove the record.  It runs
 * under the handle's write mutex and must not write to the same store.
 */
typedef int (*olc_record_predicate_fn)(const olc_record *record, void *payload);

/*
 * Removes every record the predicate selects, in one locked write.  The
 * predicate sees the records as merged from the file under the lock.
 * *removed (may be NULL) receives the count (0 on failure).  Returns
 * OLC_OK, OLC_E_INVALID (store or predicate NULL), OLC_E_NOMEM, OLC_E_READ_ONLY
 * (read-only mode, or a network file system without allow_network_fs) or
 * a write failure as olc_store_save lists them, OLC_COMMITTED_UNSYNCED
 * included.
 */
OLC_API olc_status olc_store_remove_if(olc_store *store, olc_record_predicate_fn predicate,
                                       void *payload, size_t *removed, olc_error *err);

/*
 * Merges every record of a version-1 file into the store (records with the
 * same identity are replaced) in one locked write.  *imported (may be NULL)
 * receives the count.  A malformed input file changes nothing, and so does
 * a merge whose file would exceed the handle's or a default reader's size
 * limit (OLC_E_LIMIT).  Returns OLC_OK; OLC_E_DISABLED (persistence off);
 * OLC_E_INVALID (path is the store, a lock file or a temporary: see
 * olc_store_export_file); OLC_E_NOT_FOUND (no such file); OLC_E_IO (not a
 * regular file, or a read failed); OLC_E_MALFORMED (err names the line and column) or OLC_E_VERSION
 * (a newer file) for the source; OLC_E_LIMIT; the write's failures
 * (OLC_E_LOCK_TIMEOUT, OLC_E_LOCK, OLC_E_IO, OLC_E_NOSPC) with the store
 * unchanged; OLC_E_NOMEM.  Thread safety as for the store's other writes.
 */
OLC_API olc_status olc_store_import_file(olc_store *store, const char *path, size_t *imported,
                                         olc_error *err);

/*
 * olc_store_import_file for count files at once: every file is read and
 * checked first, then all their records are merged in ONE locked write
 * (of one identity, the record of the file given last wins; the store's
 * own record is replaced).  One file that fails (missing, malformed,
 * forbidden, over the limits) changes nothing, and err names it.  Merging
 * the stores of a sharded tuning (olc_calibrate_options.shard_count) this
 * way takes the store's lock once, however many shards there are.
 * *imported (may be NULL) receives the number of records read from all
 * files.  Returns as olc_store_import_file, and OLC_E_INVALID for paths
 * NULL or count 0.
 */
OLC_API olc_status olc_store_import_files(olc_store *store, const char *const *paths, size_t count,
                                          size_t *imported, olc_error *err);

/*
 * Writes the store's own records (all, or only portable ones; never a
 * layer's, see olc_store_export_source) to path as a valid version-1
 * file, atomically (temporary sibling, fsync, rename, under
 * path.lock, which is left in place like the store's own lock file).
 * path must be absent or a store file; it must not be the store itself, a
 * store's lock file (P.lock next to an existing or this store P, or a file
 * with the lock file's header) or a store's temporary: OLC_E_INVALID, with
 * nothing created.  The same holds for the source of olc_store_import_file
 * and (lock file, temporary) for the path given to olc_store_open.  Import,
 * export and repair return OLC_E_DISABLED when persistence is off.
 * Returns OLC_OK, OLC_COMMITTED_UNSYNCED (written, the directory sync not
 * confirmed), OLC_E_INVALID (store or path NULL, or a forbidden target),
 * OLC_E_DISABLED, OLC_E_LIMIT (the file would exceed what a reader
 * accepts: nothing written), OLC_E_NOMEM, or the write's failures
 * (OLC_E_LOCK_TIMEOUT, OLC_E_LOCK, OLC_E_IO, OLC_E_NOSPC) with path
 * unchanged.  Allowed on a read-only handle (it writes elsewhere).
 */
OLC_API olc_status olc_store_export_file(olc_store *store, const char *path, int portable_only,
                                         olc_error *err);

/*
 * olc_store_export_file for the records of one source (olc_record.source):
 * NULL, the store's own file (olc_store_export_file); "user", the same;
 * "layers", every layer's records; else the records of the layer file (or
 * the store's file) at that path, as olc_record.source names it.  Of the
 * records that share an identity only the one lookups see first is
 * written, and only when it is of the source (a shadowed record is not
 * exported).  A source that matches nothing writes an empty file.  Returns
 * what olc_store_export_file returns.
 */
OLC_API olc_status olc_store_export_source(olc_store *store, const char *path, int portable_only,
                                           const char *source, olc_error *err);

/*
 * Checks that path holds a valid version-1 file.  On failure err names the
 * line, column and reason.  *records (may be NULL) receives the count.
 * Returns OLC_OK; OLC_E_NOT_FOUND; OLC_E_IO (not a regular file, or a read
 * failed); OLC_E_MALFORMED; OLC_E_VERSION (a newer version); OLC_E_LIMIT
 * (over the default reader's limits); OLC_E_NOMEM.  Reads only: any number
 * of threads may call it.
 */
OLC_API olc_status olc_store_check_file(const char *path, size_t *records, olc_error *err);

/* Flags of olc_store_repair. */
#define OLC_REPAIR_FORCE 1u /* also move a regular file that is not a store or is newer */

/*
 * Moves an unreadable store file aside to PATH.corrupt-<UTC time>.<random>
 * under the lock, so the next write starts empty.  With flags 0 only a
 * regular file that is plausibly a damaged store is moved: an empty file, a
 * proper prefix of the header, or a file that begins with the header and
 * fails to parse.  OLC_REPAIR_FORCE moves the file at the store path
 * whatever it holds, as long as it is a regular file (a directory, a FIFO
 * or a device is never moved).  (The store path was resolved at open: a
 * symlink is judged by what it leads to.)  moved_to (may be NULL) receives
 * the new name.  Returns OLC_OK, OLC_E_NOT_FOUND (no file), OLC_E_BUSY (the
 * file is valid: nothing to repair), OLC_E_VERSION (a valid file of a newer
 * version: not moved), OLC_E_INVALID (not a regular file, or a file that
 * does not begin with the store header: not moved; or an unknown flag bit),
 * OLC_E_DISABLED with persistence off, OLC_E_READ_ONLY on a read-only
 * handle, or a lock/I-O failure.  With OLC_REPAIR_FORCE never OLC_E_BUSY,
 * OLC_E_VERSION or the not-a-store OLC_E_INVALID.  No lock file is created
 * next to a file that is refused.
 */
OLC_API olc_status olc_store_repair(olc_store *store, unsigned flags, char *moved_to,
                                    size_t moved_to_size, olc_error *err);

/* The library's version, "MAJOR.MINOR.PATCH" (OLC_VERSION_STRING of the
 * headers it was built with; olc/version.h). */
OLC_API const char *olc_version(void);

#ifdef __cplusplus
}
#endif

#endif /* OLC_STORE_H */
