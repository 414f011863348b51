/*
 * tests/util/olc_1_0.h - the public C API of olc as shipped in release 1.0,
 * frozen: host/include/olc/{export,error,diag,version,store,config,loader,
 * calibrate,runtime}.h of the 1.0 tree, concatenated in include order with
 * their includes of each other removed.  Never edit it and never include
 * it with the current public headers (the names are the same): it is what
 * a program compiled against 1.0 has.  caller_1_0.c alone includes it,
 * and test_compat_1_0 links that caller with the current library: every
 * later release must keep it working (olc/store.h: "Versioned structs").
 */
#ifndef OLC_TEST_FROZEN_OLC_1_0_H
#define OLC_TEST_FROZEN_OLC_1_0_H

/* ---- olc/export.h (1.0) ---- */
/*
 * olc/export.h - the one export macro of the library.
 *
 * The library is built with hidden visibility; only declarations marked
 * OLC_API are exported.  Define OLC_STATIC when linking the static library
 * on Windows.
 */
#ifndef OLC_EXPORT_H
#define OLC_EXPORT_H

#if defined(_WIN32) && !defined(OLC_STATIC)
#if defined(OLC_BUILDING)
#define OLC_API __declspec(dllexport)
#else
#define OLC_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#define OLC_API __attribute__((visibility("default")))
#else
#define OLC_API
#endif

#endif /* OLC_EXPORT_H */

/* ---- olc/error.h (1.0) ---- */
/*
 * olc/error.h - status codes and the caller-owned error record.
 *
 * Every fallible call of the library returns an olc_status and takes an
 * optional olc_error * as its last argument.  The error record is written
 * only on failure (and for the warnings OLC_COMMITTED_UNSYNCED,
 * OLC_FIRST_CANDIDATE and OLC_NEAREST_RECORD), never allocates, and
 * carries a one-line, lower-case message that names the object concerned
 * (path, line, column, plugin, field).
 */
#ifndef OLC_ERROR_H
#define OLC_ERROR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Status codes.  Append-only: a value once published never changes meaning.
 * Zero is success, negative values are failures, positive values are
 * successes that carry a warning.
 */
typedef enum olc_status {
  OLC_OK = 0,
  /* The change is visible on disk, but syncing the directory failed, so its
   * durability across power loss is not confirmed. */
  OLC_COMMITTED_UNSYNCED = 1,
  /* A selection is the plugin's first candidate, not a stored or measured
   * record: nothing was stored and measuring was off, the wait for a
   * measurement timed out or was cancelled, or measuring failed
   * (olc_selection_why in olc/host.h says which).  Usable, not tuned. */
  OLC_FIRST_CANDIDATE = 2,
  /* A selection is the stored policy of the nearest measured workload of
   * the same plugin, operator, processor and thread count (the plugin's
   * distance, validated by it), not one of this workload: nothing was
   * stored for it, or another thread is measuring it (olc/host.h,
   * olc_binding_select).  Usable, measured elsewhere. */
  OLC_NEAREST_RECORD = 3,

  OLC_E_INVALID = -1,      /* bad argument or option */
  OLC_E_NOMEM = -2,        /* out of memory */
  OLC_E_NOT_FOUND = -3,    /* nothing matched (lookup, remove, file) */
  OLC_E_IO = -4,           /* an I/O call failed; see sys_errno and where */
  OLC_E_NOSPC = -5,        /* no space left (ENOSPC, EDQUOT) */
  OLC_E_LOCK_TIMEOUT = -6, /* the store lock was not acquired in time */
  OLC_E_LOCK = -7,         /* taking the store lock failed */
  OLC_E_MALFORMED = -8,    /* a file could not be parsed; see line/column */
  OLC_E_VERSION = -9,      /* a file has an unsupported (newer) version */
  OLC_E_VALIDATION = -10,  /* a backend validator rejected a policy */
  OLC_E_SERIALIZE = -11,   /* a backend serializer failed */
  OLC_E_LIMIT = -12,       /* a size or count limit was exceeded */
  OLC_E_DISABLED = -13,    /* the operation needs persistence, which is off */
  OLC_E_PLUGIN = -14,      /* a plugin failed or misbehaved */
  OLC_E_CONFIG = -15,      /* a configuration file is invalid */
  OLC_E_UNAVAILABLE = -16, /* a backend is not available on this machine */
  OLC_E_DUPLICATE = -17,   /* a duplicate name or record */
  OLC_E_BUSY = -18,        /* the object is in use */
  OLC_E_INTERNAL = -19,    /* an internal invariant failed (a bug) */
  OLC_E_UNSUPPORTED = -20, /* the operation is not supported here */
  OLC_E_CANCELLED = -21,   /* a callback asked to stop */
  OLC_E_TIMEOUT = -22,     /* an operation ran out of time */
  OLC_E_CRASHED = -23,     /* a worker process crashed */
  OLC_E_READ_ONLY = -24,   /* the store cannot or may not be written (read-only mode,
                            * file system, permissions, a network file system) */
  OLC_E_MISMATCH = -25     /* a result differs from the reference (numerical check) */
} olc_status;

/* Static, human-readable text for a status ("io error", ...). Never NULL. */
OLC_API const char *olc_status_str(olc_status status);

/* Symbolic name of a status ("OLC_E_IO", ...). Never NULL. */
OLC_API const char *olc_status_name(olc_status status);

#define OLC_ERROR_MESSAGE_SIZE 224
#define OLC_ERROR_WHERE_SIZE 32
#define OLC_ERROR_RESERVED_SIZE 32

/*
 * Details of a failure.  Caller-owned; pass NULL when not interested.
 * Fields that do not apply are zero.
 *
 * Callers declare it uninitialised wherever they like (on the stack) and
 * hand it to whichever library version they run with, so its size and the
 * offsets of its fields never change.  Fields added later take their bytes
 * from the front of reserved.  A library writes only the fields it knows,
 * and zeroes the whole record before it fills one, so a field that an
 * older library does not know reads 0.  Callers never read or write
 * reserved.
 */
typedef struct olc_error {
  olc_status code;                      /* the status the call returned */
  int sys_errno;                        /* errno (or GetLastError()) of the failing call */
  int32_t backend_code;                 /* a plugin's own status, when one failed */
  uint32_t line;                        /* 1-based line in a file, when parsing */
  uint32_t column;                      /* 1-based byte column in that line */
  uint64_t offset;                      /* 0-based byte offset in the file */
  char where[OLC_ERROR_WHERE_SIZE];     /* step or function: "fsync", "parse" */
  char message[OLC_ERROR_MESSAGE_SIZE]; /* one line, names the object */
  unsigned char reserved[OLC_ERROR_RESERVED_SIZE]; /* for fields to come; zero */
} olc_error;

/* Resets an error record to "no error". NULL is fine. */
OLC_API void olc_error_clear(olc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* OLC_ERROR_H */

/* ---- olc/diag.h (1.0) ---- */
/*
 * olc/diag.h - diagnostics: what the library has to say that is not a
 * failure.
 *
 * The library never prints.  Where something went wrong but the call went
 * on (the store's change check degraded, a plugin file failed to load, a
 * configured plugin directory does not exist, a plugin logged a warning)
 * the handle concerned (an olc_store, an olc_host) emits a diagnostic: a
 * level, where it arose (a short name such as "watch", "load",
 * "plugin_dirs" or "plugin NAME") and a one-line message that names the
 * object (path, plugin).
 *
 * With a callback in the handle's options (olc_store_options.diag,
 * olc_host_options.diag) every diagnostic goes to it as it arises and
 * nothing is kept.  Without one, the handle keeps the last OLC_DIAG_KEEP
 * diagnostics, dropping the oldest (and counting them) to make room; the
 * caller takes them after its calls, oldest first, each once
 * (olc_store_next_diagnostic, olc_host_next_diagnostic) and learns how
 * many were dropped (olc_store_diagnostics_dropped,
 * olc_host_diagnostics_dropped).
 *
 * A front end prints a warning as "PROGRAM: warning: WHERE: MESSAGE".
 */
#ifndef OLC_DIAG_H
#define OLC_DIAG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Severity.  Append-only: a callback ignores or prints levels it does not
 * know. */
typedef enum olc_diag_level {
  OLC_DIAG_WARNING = 1 /* the call went on, in a degraded way or without something */
} olc_diag_level;

/* "warning" (or "diagnostic" for a level this library does not know).
 * Never NULL. */
OLC_API const char *olc_diag_level_str(olc_diag_level level);

/* Diagnostics a handle keeps without a callback. */
#define OLC_DIAG_KEEP 32u
#define OLC_DIAG_WHERE_SIZE 80u
#define OLC_DIAG_MESSAGE_SIZE 256u

/*
 * Receives one diagnostic.  where and message are one line each (control
 * characters are replaced by spaces; a quoted path may hold bytes that are
 * not UTF-8) and live only for the call.  It is called on the thread whose
 * call caused the diagnostic (a plugin's own threads included), never while
 * the library holds a lock, so it may be called from several threads at
 * once when the handle is; it must not call back into the handle that
 * called it.
 */
typedef void (*olc_diag_fn)(void *payload, olc_diag_level level, const char *where,
                            const char *message);

/* A kept diagnostic, copied out by the *_next_diagnostic functions. */
typedef struct olc_diagnostic {
  olc_diag_level level;
  char where[OLC_DIAG_WHERE_SIZE];
  char message[OLC_DIAG_MESSAGE_SIZE];
} olc_diagnostic;

#ifdef __cplusplus
}
#endif

#endif /* OLC_DIAG_H */

/* ---- olc/version.h (1.0) ---- */
/*
 * olc/version.h - the library's release version, for the preprocessor.
 *
 * The version of the headers a program was compiled with; olc_version()
 * (olc/store.h) gives the library's at run time.  They follow semantic
 * versioning: a program built against MAJOR.x runs with any library of the
 * same MAJOR (the shared library's SONAME is libolc.so.MAJOR), and the
 * versioned structs (olc/store.h) let an older program's structs through.
 *
 * The plugin ABI has a version of its own (OLC_PLUGIN_ABI_MAJOR and
 * OLC_PLUGIN_ABI_MINOR in olc/plugin.h), independent of this one: a
 * release of the library may add to the ABI's minor, and a plugin built
 * against any 1.x minor of the ABI loads in every release that speaks ABI
 * major 1.
 *
 * These macros equal the CMake project version the library was built from
 * (project(olc VERSION ...)); host/src/store/version.c and
 * tests/store/test_version.c check it.
 */
#ifndef OLC_VERSION_H
#define OLC_VERSION_H

#define OLC_VERSION_MAJOR 1
#define OLC_VERSION_MINOR 0
#define OLC_VERSION_PATCH 0
/* One number to compare: MAJOR * 10000 + MINOR * 100 + PATCH (10000 for
 * 1.0.0), e.g. #if OLC_VERSION_NUMBER >= 10100. */
#define OLC_VERSION_NUMBER (OLC_VERSION_MAJOR * 10000 + OLC_VERSION_MINOR * 100 + OLC_VERSION_PATCH)
/* "MAJOR.MINOR.PATCH", what olc_version() returns for these headers. */
#define OLC_VERSION_STRING "1.0.0"

#endif /* OLC_VERSION_H */

/* ---- olc/store.h (1.0) ---- */
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

/* ---- olc/config.h (1.0) ---- */
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

#ifdef __cplusplus
extern "C" {
#endif

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

/* ---- olc/loader.h (1.0) ---- */
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

/* ---- olc/calibrate.h (1.0) ---- */
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

/* ---- olc/runtime.h (1.0) ---- */
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

#endif /* OLC_TEST_FROZEN_OLC_1_0_H */
