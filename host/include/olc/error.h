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

#include "olc/export.h"

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
