/*
 * persist/persist.h - the only module that touches the file system.
 *
 * Readers take no lock and read the whole file through one descriptor.
 * Writers follow docs/durability.md ("A write, step by step"): permanent sibling P.lock with an
 * OFD lock (classic fcntl fallback; LockFileEx on Windows), reload the
 * latest file under the lock, let the caller merge, write a unique
 * temporary sibling created O_EXCL|O_NOFOLLOW 0600, fchmod, fsync, close,
 * rename over P, fsync the directory.  The format is not known here: the
 * caller's transform turns the bytes on disk into the bytes to write.
 *
 * The write sequence is written once (write_sequence.c, write_commit.c) over the
 * primitives of each platform (write_posix.c, write_win32.c); readers and
 * repair in read_posix.c, read_win32.c; shared code in persist_common.c.
 */
#ifndef OLC_PERSIST_PERSIST_H
#define OLC_PERSIST_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include "olc/error.h"
#include "util/buf.h"

/* Identity of the file at a path, for cheap change detection. */
typedef struct olc_file_id {
  int exists;
  uint64_t dev; /* st_dev, or the volume serial on Windows */
  uint64_t ino; /* st_ino, or the file index on Windows */
  uint64_t size;
  int64_t mtime_ns;
} olc_file_id;

/* 1 when both describe the same file content (or both are absent). */
int olc_file_id__equal(const olc_file_id *a, const olc_file_id *b);

/* The named steps of the write path, in order.  Each can be made to fail
 * (or to kill the process) from a test build. */
typedef enum olc_step {
  OLC_STEP_NONE = 0,
  OLC_STEP_MKDIR,     /* create missing parent directories (0700) */
  OLC_STEP_LOCK_OPEN, /* open/create P.lock */
  OLC_STEP_LOCK,      /* acquire the lock */
  OLC_STEP_RELOAD,    /* read P under the lock */
  OLC_STEP_MERGE,     /* the caller's transform */
  OLC_STEP_GC,        /* delete stale P.*.tmp */
  OLC_STEP_TMP_CREATE,
  OLC_STEP_WRITE, /* the hook also fires after half of the bytes */
  OLC_STEP_FSYNC,
  OLC_STEP_CLOSE,
  OLC_STEP_RENAME, /* commit point */
  OLC_STEP_DIR_FSYNC,
  OLC_STEP_UNLOCK,
  OLC_STEP_COUNT
} olc_step;

/* "lock", "fsync", ...; NULL for an unknown step. */
const char *olc_step__name(olc_step step);
/* Inverse of olc_step__name; OLC_STEP_NONE when unknown. */
olc_step olc_step__from_name(const char *name);

/*
 * The caller's look at an existing target before P.lock is created next to
 * it (so that no lock file appears beside a file that is not the caller's):
 * head holds the first len bytes (at most OLC_PERSIST_HEAD) of the regular
 * file at path, size its size.  Anything but OLC_OK (with err filled)
 * refuses the operation before anything is created.
 */
#define OLC_PERSIST_HEAD 64u
typedef olc_status (*olc_persist_probe_fn)(const unsigned char *head, size_t len, uint64_t size,
                                           const char *path, void *payload, olc_error *err);

/*
 * The caller's three-way merge, used only when the commit took out of P a
 * file other than the one the update merged into: P.lock was deleted or
 * replaced while it was held, so another writer, locking the new P.lock,
 * committed in between (olc_persist__update).  base/base_len are P as it
 * is now (base_exists = 0 when there is none), displaced/displaced_len the
 * file the commit took out, ancestor/ancestor_len the file this update
 * merged into in the round whose commit took it out, when displaced
 * descends from it (ancestor_exists = 0: not known to, e.g. several writers
 * overlapping, one of them from an older P).  Then what displaced has that
 * ancestor has not (a record added, changed or removed) is exactly the
 * other writers' change.  It appends to out base with that change: per
 * identity whose record differs between ancestor and displaced (absent
 * counts as a version), displaced's (or none: a removal) unless base's
 * differs from ancestor's too (base is later: it stays).  With no ancestor
 * that is the union: base with every record of displaced it lacks.  The transform
 * then runs on out.  payload is the update's (the transform's).  A failure
 * ends the update with the displaced file kept beside P (named in the
 * error).
 */
typedef olc_status (*olc_persist_absorb_fn)(olc_buf *out, const unsigned char *base,
                                            size_t base_len, int base_exists,
                                            const unsigned char *ancestor, size_t ancestor_len,
                                            int ancestor_exists, const unsigned char *displaced,
                                            size_t displaced_len, void *payload, olc_error *err);

typedef struct olc_persist_options {
  int64_t lock_timeout_ms;    /* < 0: forever */
  uint32_t tmp_grace_seconds; /* age before leftover temporaries are deleted */
  uint32_t file_mode;         /* mode for a new file (an existing file keeps its own) */
  size_t max_file_size;       /* refuse to read larger files */
  /* Optional (NULL: any regular file).  Run only while P.lock does not
   * exist yet: an existing lock file is not created again. */
  olc_persist_probe_fn probe;
  void *probe_payload;
  /* Optional (NULL: the file is replaced whole, as an export is: a
   * displaced file is dropped, the last commit wins). */
  olc_persist_absorb_fn absorb;
} olc_persist_options;

/* What is at a path, without following a symlink there. */
typedef enum olc_persist_kind {
  OLC_PERSIST_ABSENT = 0,
  OLC_PERSIST_FILE, /* a regular file */
  OLC_PERSIST_DIRECTORY,
  OLC_PERSIST_SYMLINK,
  OLC_PERSIST_SPECIAL /* a FIFO, a device or a socket */
} olc_persist_kind;

typedef struct olc_persist_probe {
  olc_persist_kind kind;
  uint64_t size;                        /* of a regular file */
  size_t head_len;                      /* bytes in head */
  unsigned char head[OLC_PERSIST_HEAD]; /* the first bytes of a regular file */
} olc_persist_probe;

/* Looks at path: its kind and, for a regular file, its size and first
 * bytes (opened O_NOFOLLOW|O_NONBLOCK: a FIFO never blocks).  Returns OLC_OK
 * (also for an absent path) or OLC_E_IO. */
olc_status olc_persist__probe(olc_persist_probe *out, const char *path, olc_error *err);
/* "a directory", "a symbolic link", "a FIFO, device or socket", "a regular
 * file", "absent". */
const char *olc_persist__kind_str(olc_persist_kind kind);

/*
 * Reads the whole file at path into out (out is reset first) and records
 * its identity in id (may be NULL).  Returns OLC_OK, OLC_E_NOT_FOUND (no
 * file: id->exists = 0), OLC_E_LIMIT (larger than max_file_size; nothing
 * allocated), OLC_E_IO.
 */
olc_status olc_persist__read(olc_buf *out, olc_file_id *id, const char *path, size_t max_file_size,
                             olc_error *err);

/* Identity of the file at path without reading it (absent: exists = 0). */
olc_status olc_persist__stat(olc_file_id *id, const char *path, olc_error *err);

/*
 * The caller's merge.  base/base_len are the bytes read under the lock
 * (base_exists = 0 when there was no file).  It appends the new content to
 * out, or sets *unchanged = 1 to skip the write.  Any failure aborts the
 * write with nothing changed (a malformed base must fail here).
 */
typedef olc_status (*olc_persist_transform_fn)(olc_buf *out, int *unchanged,
                                               const unsigned char *base, size_t base_len,
                                               int base_exists, void *payload, olc_error *err);

/*
 * The locked reload-merge-replace of docs/durability.md.  Before P.lock is
 * created (only while it does not exist) the target is checked: absent, or
 * a regular file that options->probe accepts; anything else is
 * OLC_E_INVALID (not a regular file) or the probe's refusal, with nothing
 * created.  new_id (may be NULL)
 * receives the identity of the file after the call (unchanged file: its
 * current identity).  *written (may be NULL) says whether a new file was
 * renamed into place.
 *
 * Returns OLC_OK, OLC_COMMITTED_UNSYNCED (renamed, directory fsync failed),
 * OLC_E_LOCK_TIMEOUT, OLC_E_LOCK, OLC_E_IO (err->where names the step),
 * OLC_E_NOSPC, OLC_E_LIMIT, OLC_E_NOMEM, or the transform's failure.  On any
 * failure before the rename the old file is byte-identical, the temporary is
 * removed and the lock released.
 */
olc_status olc_persist__update(olc_file_id *new_id, int *written, const char *path,
                               const olc_persist_options *options,
                               olc_persist_transform_fn transform, void *payload, olc_error *err);

/*
 * What a caller holds of P: the file it last wrote (or found unchanged)
 * under the lock, with the P.lock generation counter and header instance
 * right after, while the lock was still held.
 */
typedef struct olc_persist_known {
  olc_file_id id;
  uint64_t gen;      /* even; OLC_PERSIST_GEN_NONE: unknown (never skips) */
  uint64_t instance; /* the header's instance */
} olc_persist_known;

/* base_exists of a transform called by olc_persist__update_known when the
 * file provably is the caller's known one: base is NULL, base_len 0. */
#define OLC_PERSIST_BASE_KNOWN 2

/*
 * olc_persist__update, with change detection under the lock: when known
 * (may be NULL) names a generation, and under the lock the P.lock header
 * still has known's instance and generation and P still has known's
 * identity (dev, ino, size, mtime), P is not read and the transform gets
 * base_exists = OLC_PERSIST_BASE_KNOWN.  Every writer moves the generation
 * under the lock around its rename (and an in-place change by the library
 * as well), so a write by anyone who takes the lock is seen even when it
 * kept the size, the mtime and the inode number; the identity catches a
 * writer that bypassed the lock.  Otherwise P is read as by
 * olc_persist__update.  after (may be NULL) receives the identity of P
 * after the call and, when the counter could be read under the lock, its
 * generation and instance (else gen = OLC_PERSIST_GEN_NONE).  kept (may
 * be NULL) gives, on entry, a block whose memory the transform's output
 * reuses (its bytes are not read; the caller gives it up), and receives
 * the bytes written when a new file was renamed into place (OLC_OK or
 * OLC_COMMITTED_UNSYNCED; the caller owns them then), else it is empty.
 * Same statuses as olc_persist__update.
 */
olc_status olc_persist__update_known(olc_persist_known *after, int *written, const char *path,
                                     const olc_persist_options *options,
                                     const olc_persist_known *known, olc_buf *kept,
                                     olc_persist_transform_fn transform, void *payload,
                                     olc_error *err);

/*
 * Under the lock, renames path to path.corrupt-<YYYYmmddTHHMMSSZ>.<8 hex>
 * when check says the file is a damaged store.  Only a regular file is
 * looked at: anything else at path (a directory, a symlink planted there, a
 * FIFO, a device) is OLC_E_INVALID and stays.  check gets the whole file
 * (complete = 1) or, when it is larger than max_file_size, its first 4096
 * bytes (complete = 0), and answers OLC_OK (a valid file: OLC_E_BUSY, not
 * moved), OLC_E_MALFORMED (damaged: moved), or any other status with err
 * filled (refused: not moved).  options->probe runs first, as for an
 * update, while P.lock does not exist.  Returns OLC_OK, OLC_E_NOT_FOUND,
 * OLC_E_BUSY, OLC_E_INVALID, check's refusal, or a lock/I-O failure.
 */
typedef olc_status (*olc_persist_check_fn)(const unsigned char *bytes, size_t len, int complete,
                                           void *payload, olc_error *err);
olc_status olc_persist__repair(char *moved_to, size_t moved_to_size, const char *path,
                               const olc_persist_options *options, olc_persist_check_fn check,
                               void *payload, olc_error *err);

/*
 * The names beside a store P that belong to its writers, for callers that
 * must not take them for stores: "<P>.lock" (the permanent lock file) and
 * "<P>.<pid>.<16 lower hex>.tmp" (a temporary).  The length of "<P>" when
 * name is one of them, else 0.
 */
#define OLC_PERSIST__LOCK_SUFFIX ".lock"
#define OLC_PERSIST__TMP_SUFFIX ".tmp"
size_t olc_persist__tmp_owner_len(const char *name);
size_t olc_persist__lock_owner_len(const char *name);

/*
 * Makes path absolute and resolves symlinks in its directory and in the
 * file itself when it is a symlink (a missing file is fine; missing
 * directories are kept as written).  *out is malloc'ed.
 */
olc_status olc_persist__resolve(char **out, const char *path, olc_error *err);

/*
 * path made absolute against the working directory of this moment, and
 * otherwise as written: no symlink is followed, so a link swapped later is
 * still read through.  On POSIX a relative path gets the working
 * directory's physical path (getcwd) in front, which the kernel resolves
 * ("..", links) exactly as it resolved the relative path then; on Windows
 * GetFullPathNameW does what Windows does with a relative path.  *out is
 * malloc'ed.  Returns OLC_OK, OLC_E_INVALID (path empty), OLC_E_IO (the
 * working directory cannot be read: removed, or a path too long; the
 * message does not repeat path), OLC_E_NOMEM.
 */
olc_status olc_persist__absolute(char **out, const char *path, olc_error *err);

/* The default store path (see olc_store_default_path). */
olc_status olc_persist__default_path(char *buf, size_t size, olc_error *err);

/*
 * Change detection (the wal-index idea of SQLite).
 *
 * The permanent lock sibling P.lock carries a generation counter that every
 * writer moves under the lock (docs/durability.md, "When the lock file is replaced"):
 *
 *   offset 0   8 bytes  magic "olcgen01"
 *   offset 8   8 bytes  generation, unsigned 64-bit, native byte order
 *                       (little-endian on every supported target)
 *   offset 16  8 bytes  instance: random, new whenever a writer
 *                       (re)initializes the header
 *   size       4096 bytes, allocated (posix_fallocate, or zeros written)
 *              by a writer under the lock before it touches the header; no
 *              space is OLC_E_NOSPC and the write is abandoned cleanly
 *
 * A writer, holding the lock, makes the generation odd right before the
 * step that changes P (the rename W10, or repair's move aside) and even
 * again right after it, whether that step succeeded or failed.  A writer
 * killed in between leaves it odd.  A writer that finds the header short or
 * garbled writes a fresh one (generation 0, a new instance).
 *
 * Nothing maps P.lock on POSIX: whoever may write it can truncate it, and
 * an access through a mapping of a truncated file faults (SIGBUS).  Writers
 * use pread/pwrite on their locked descriptor; a reader keeps a read-only
 * descriptor and reads the 24-byte header with one pread.
 * olc_persist__watch_quiet is that pread and a coarse clock read: it
 * answers 1 (nothing saved since the last settle; no stat) only when the
 * header is intact, the instance is the one the descriptor was opened on,
 * the generation is even and equals the one recorded by
 * olc_persist__watch_settle, and the periodic recheck is not due.
 * Otherwise the caller compares file identities with olc_persist__stat as
 * before: watch_begin (reads the generation first), stat, compare/reload,
 * watch_settle.  Odd (a writer at work or killed at work), nothing open (no
 * P.lock yet, persistence off) and any failure simply mean "compare
 * identities": slower, never wrong, never an error.  On Windows readers map
 * the page read-only instead (a mapped file cannot be truncated there).
 *
 * A P.lock that is cut short, garbled, re-initialized or replaced (another
 * inode at the name) while a watch uses it degrades that watch to the
 * identity comparison, with one warning (olc_persist__watch_warning); at
 * the next recheck it opens P.lock again, at most OLC_PERSIST_WATCH_MAPS
 * times, then compares identities for good.  A replaced P.lock is noticed
 * only at the recheck: every OLC_PERSIST_WATCH_RECHECK_MS (100 ms) a reader
 * compares identities anyway and checks that its descriptor is still the
 * file named P.lock, so a change is then seen within that interval.
 * Mutual exclusion never depends on the counter: it is the lock.
 */
#define OLC_PERSIST_WATCH_RECHECK_MS 100
#define OLC_PERSIST_WATCH_MAPS 5 /* opens of one watch before it gives up */

/* Where a reader reads the counter from: a descriptor (POSIX) or a
 * read-only view (Windows). */
typedef struct olc_persist_gen_src {
  intptr_t fd;       /* POSIX: the open P.lock, -1 when none */
  const void *base;  /* Windows: the mapped page */
  void *handle;      /* Windows: the mapping object */
  uint64_t instance; /* the header's instance when it was opened */
} olc_persist_gen_src;

/* One opening of P.lock; never changed after it is published. */
typedef struct olc_persist_watch_map {
  olc_persist_gen_src src;
  uint64_t epoch; /* 1 .. OLC_PERSIST_WATCH_MAPS */
  olc_file_id id; /* identity of the opened file */
} olc_persist_watch_map;

typedef struct olc_persist_watch {
  char *lock_path; /* "<P>.lock" */
  /* atomic: the current opening, NULL when none.  Older ones stay open
   * until close: another thread may still be reading through them. */
  olc_persist_watch_map *cur;
  olc_persist_watch_map maps[OLC_PERSIST_WATCH_MAPS];
  int nmaps;
  uint64_t seen;       /* atomic: generation << 3 | epoch, or OLC_PERSIST_GEN_NONE */
  int64_t recheck_at;  /* atomic: coarse monotonic ms of the next recheck */
  int64_t interval_ms; /* recheck period */
  int busy;            /* atomic try-lock of the recheck */
  int warn_state;      /* atomic: 0 none, 1 being written, 2 ready, 3 taken */
  char warning[160];   /* the degradation, once */
} olc_persist_watch;

/* A generation read by olc_persist__watch_begin. */
typedef struct olc_persist_watch_token {
  uint64_t gen; /* OLC_PERSIST_GEN_NONE: nothing to settle */
  uint64_t epoch;
} olc_persist_watch_token;

#define OLC_PERSIST_GEN_NONE UINT64_MAX

/* Prepares w for the store file at path; its P.lock is opened at the
 * first begin.  Only OLC_E_NOMEM (or OLC_E_INVALID) can fail; a P.lock
 * that cannot be opened is retried at the recheck interval. */
olc_status olc_persist__watch_open(olc_persist_watch *w, const char *path, olc_error *err);
/* Closes everything (a zeroed or closed watch is fine). */
void olc_persist__watch_close(olc_persist_watch *w);
/* 1: nothing was saved since the last settle (one pread of the header,
 * no stat; thread safe).  0: the caller must compare identities. */
int olc_persist__watch_quiet(olc_persist_watch *w);
/* Call before the identity comparison: does the due recheck (opens,
 * reopens; system calls) and reads the generation. */
olc_persist_watch_token olc_persist__watch_begin(olc_persist_watch *w);
/* Call once the caller holds what the file was at or after its stat that
 * followed begin: later quiet answers 1 until the next save. */
void olc_persist__watch_settle(olc_persist_watch *w, olc_persist_watch_token token);
/* The generation now (OLC_PERSIST_GEN_NONE when nothing is open); tests. */
uint64_t olc_persist__watch_gen(olc_persist_watch *w);
/* The degradation warning (a one-line message naming P.lock), returned
 * once: 1 with msg filled, else 0.  Thread safe. */
int olc_persist__watch_warning(olc_persist_watch *w, char *msg, size_t size);

/*
 * fork(): the store's pthread_atfork handlers call these around a fork
 * (POSIX only).  prepare waits until no other thread of this process is
 * inside a locked write (so no child inherits a held P.lock lock or a
 * locked writer mutex); done (in the parent and in the child) undoes it.
 * A fork from the writing thread itself does not wait.
 */
void olc_persist__fork_prepare(void);
void olc_persist__fork_done(void);

/*
 * The measurement lock: one measurer per user and machine (docs/runtime.md,
 * "One measurer per machine").  A process holds it while it measures one
 * key, so that the timings of two processes never overlap.
 *
 * The file is permanent (never deleted: a lock dies with its holder's
 * descriptor, a file left behind is harmless), opened
 * O_RDWR|O_CREAT|O_CLOEXEC|O_NOFOLLOW with mode 0600 (its directory is
 * created 0700 when missing), and must be a regular file owned by this
 * user: a symlink, FIFO, directory or another user's file in its place is
 * OLC_E_LOCK.  The lock is an OFD write lock on the whole file (classic
 * fcntl where the kernel has no OFD locks; LockFileEx of one byte far
 * beyond the text on Windows, where a locked range cannot be read).
 * Within a process it is also exclusive: one thread holds it at a time
 * (classic fcntl locks would not keep two threads apart), whatever path
 * each thread names.
 *
 * The holder writes one line into the file under the lock,
 *   "olc-measure-lock pid=<pid> started=<s> acquired=<ms>\n"
 * (its process's start and the time it took the lock, since 1970), which
 * a waiter reads to say whom it waits for.  A hint only: the kernel's
 * lock decides, and F_OFD_GETLK names no process.
 */
typedef int (*olc_persist_cancel_fn)(void *payload);

typedef struct olc_persist_mlock olc_persist_mlock;

/* Who holds the lock, as its file says (a hint). */
typedef struct olc_persist_mlock_holder {
  int known;           /* 1 when the file named a holder */
  int64_t pid;         /* its process id */
  int64_t started_s;   /* when that process started, s since 1970 (0: unknown) */
  int64_t acquired_ms; /* when it took the lock, ms since 1970 */
} olc_persist_mlock_holder;

/* How long to wait. */
typedef struct olc_persist_mlock_wait {
  int64_t timeout_ms;           /* < 0: forever; 0: one try */
  olc_persist_cancel_fn cancel; /* polled between tries; non-zero stops (NULL: none) */
  void *cancel_payload;
} olc_persist_mlock_wait;

/* What the wait was. */
typedef struct olc_persist_mlock_outcome {
  int contended;                   /* 1 when a try found the lock held */
  int64_t waited_ms;               /* from the first try to the outcome (0 when not contended) */
  olc_persist_mlock_holder holder; /* the last holder seen while waiting */
} olc_persist_mlock_outcome;

/* Longest sleep between two tries, so a cancel is seen that soon. */
#define OLC_PERSIST_MLOCK_POLL_MS 250

/*
 * The default path of the lock: "$XDG_RUNTIME_DIR/onnx-light/measure.lock"
 * when XDG_RUNTIME_DIR (secure_getenv) is absolute and names a directory
 * owned by this user that neither group nor others may write; else
 * "<store_path>.measure.lock" (store_path may be NULL).  *out is
 * malloc'ed.  Returns OLC_OK, OLC_E_NOT_FOUND (neither: no usable runtime
 * directory and no store path), OLC_E_NOMEM.  Windows has no runtime
 * directory: beside the store.
 */
olc_status olc_persist__mlock_default_path(char **out, const char *store_path, olc_error *err);

/*
 * Opens (creating it and its directory when missing) the lock file at
 * path and takes the lock, trying again with a growing, jittered delay (at
 * most OLC_PERSIST_MLOCK_POLL_MS) until wait->timeout_ms passed or
 * wait->cancel said stop; wait NULL: one try.  Then writes the holder
 * line.  outcome (may be NULL) says how long it waited and for whom.
 *
 * Returns OLC_OK (*out holds the lock; release it with
 * olc_persist__mlock_release, from any thread), OLC_E_LOCK_TIMEOUT (held
 * by another until the timeout), OLC_E_CANCELLED, OLC_E_LOCK (the file is
 * not a regular file of this user, or the lock call failed), OLC_E_IO
 * (cannot open or create it: a read-only directory is EACCES or EROFS in
 * err->sys_errno), OLC_E_INVALID, OLC_E_NOMEM.  On failure *out is NULL.
 * Thread-safe.
 */
olc_status olc_persist__mlock_acquire(olc_persist_mlock **out, olc_persist_mlock_outcome *outcome,
                                      const char *path, const olc_persist_mlock_wait *wait,
                                      olc_error *err);

/* Releases the lock and closes its file (the file stays).  NULL is fine. */
void olc_persist__mlock_release(olc_persist_mlock *lock);

/* Parses a holder line; known = 0 when text is not one. */
void olc_persist__mlock_parse(olc_persist_mlock_holder *out, const char *text, size_t len);

/*
 * Expands a layer pattern whose last component holds '*' (the only
 * wildcard; any run of bytes; a leading '.' matches only a pattern that
 * begins with one): *out receives malloc'ed "DIR/NAME" paths (the array
 * and each string freed by the caller), sorted in byte (strcmp) order, of
 * every entry but "." and "..", whatever its kind (the caller probes
 * each).  Returns OLC_OK (also with no match: *count 0), OLC_E_NOT_FOUND
 * (no such directory), OLC_E_INVALID ('*' before the last component),
 * OLC_E_NOMEM, OLC_E_IO.
 */
olc_status olc_persist__glob(char ***out, size_t *count, const char *pattern, olc_error *err);
/* 1 when name matches the last component of a pattern (glob.c). */
int olc_persist__glob_match(const char *pat, const char *name);
/* Splits pattern at its last separator: the directory ("." when none) in
 * dir (dir_size bytes) and the last component; -1 when it does not fit or
 * '*' is in the directory part. */
int olc_persist__glob_split(char *dir, size_t dir_size, const char **last, const char *pattern);
/* Sorts and frees the lists olc_persist__glob returns. */
void olc_persist__glob_sort(char **names, size_t count);
void olc_persist__glob_free(char **names, size_t count);
/* Appends "dir<sep>name" (no sep when dir ends with one) to the list *v of
 * *n names, *cap allocated: the scans of glob_posix.c and glob_win32.c.
 * OLC_OK or OLC_E_NOMEM. */
olc_status olc_persist__glob_add(char ***v, size_t *n, size_t *cap, const char *dir,
                                 const char *name, char sep);

/*
 * What the file system under a store allows (fs_posix.c), found without
 * writing anything.  The directory is the store's, or its nearest existing
 * ancestor when it does not exist yet (a writer creates the rest).
 * Network file systems: statfs's magic (NFS, SMB/CIFS, 9p, Ceph, AFS,
 * Coda, Lustre, NCP) and the mount's type from /proc/self/mountinfo
 * ("nfs4", "cifs", "fuse.sshfs"); a FUSE mount is network only when its
 * subtype is a known network one (sshfs, rclone, s3fs, ...), so
 * fuse-overlayfs and other local FUSE file systems stay local.  Windows
 * (fs_win32.c): a network share is GetDriveType's DRIVE_REMOTE (type
 * "smb"), a read-only volume GetVolumeInformation's flag, the type its
 * file-system name ("ntfs"); the directory, the file and P.lock are
 * writable when they open with the access a save needs (a read-only file
 * attribute counts as not writable).
 */
typedef struct olc_persist_fs {
  int read_only;     /* statvfs ST_RDONLY on the directory */
  int dir_writable;  /* access(dir, W_OK | X_OK) */
  int dir_errno;     /* its errno when not */
  int file_exists;   /* the store file exists */
  int file_writable; /* access(path, W_OK), 1 when it does not exist */
  int file_errno;    /* its errno when not */
  int lock_writable; /* access(path.lock, W_OK), 1 when it does not exist */
  int network;       /* olc_persist__fs_type_is_network(type) */
  char type[64];     /* "ext4", "nfs4", "fuse.sshfs"; "" when unknown */
  char dir[4096];    /* the directory examined */
} olc_persist_fs;

/* Probes path (resolved).  OLC_OK, OLC_E_INVALID, OLC_E_NOMEM.  With
 * OLC_TEST_HOOKS, OLC_TEST_FSTYPE=<type> replaces the detected type. */
olc_status olc_persist__fs_probe(olc_persist_fs *out, const char *path, olc_error *err);
/* 1 when a mount type string names a network file system (see above). */
int olc_persist__fs_type_is_network(const char *type);

/* The value of an environment variable for an unprivileged process only
 * (secure_getenv: NULL in a set-uid, set-gid or capability-raised one),
 * borrowed from the environment; NULL when unset or empty. */
const char *olc_persist__env(const char *name);

/* Number of file-system calls made by this module since start (tests). */
uint64_t olc_persist__call_count(void);

/*
 * Test hooks, compiled in only with OLC_TEST_HOOKS (the olc_testhooks
 * library used by the tests; the shipped library has none).  Also read from
 * the environment at the first write:
 *   OLC_TEST_FAIL_AT=<step>[:<errno>]  the step fails with errno (default EIO)
 *   OLC_TEST_CRASH_AT=<step>           raise(SIGKILL) right after the step
 *                                      ("write-half": after half the bytes)
 *   OLC_TEST_DISABLE=<safety>[,...]    negative controls: "lock" (no lock),
 *                                      "fsync" (no fsync of the temporary),
 *                                      "rename" (write P in place, O_TRUNC),
 *                                      "dirsync" (no directory fsync),
 *                                      "ofd" (classic fcntl locks), "order"
 *                                      (rename before fsync), "relock" (no
 *                                      check that the locked P.lock still
 *                                      has its name), "mlock" (the
 *                                      measurement lock granted without
 *                                      locking anything), "gencheck"
 *                                      (olc_persist__update_known trusts
 *                                      the identity alone), "exchange"
 *                                      (commit with a plain rename: no
 *                                      check of the file it replaced)
 *   OLC_TEST_WATCH_RECHECK_MS=<ms>     recheck interval of new watches
 *   OLC_TEST_FSTYPE=<type>             the file-system type olc_persist__fs_probe
 *                                      reports ("nfs4", "fuse.sshfs"), read at
 *                                      each probe
 */
#ifdef OLC_TEST_HOOKS
#define OLC_SAFETY_LOCK 1u
#define OLC_SAFETY_FSYNC 2u
#define OLC_SAFETY_RENAME 4u
#define OLC_SAFETY_DIRSYNC 8u
typedef struct olc_persist_hooks {
  olc_step fail_step;
  int fail_errno;
  olc_step crash_step;
  int crash_half_write;
  unsigned disabled_safety; /* OLC_SAFETY_* */
  int64_t watch_recheck_ms; /* > 0: recheck interval of new watches */
  /* Called where a step's fault would be injected, before it (NULL: none):
   * a test acts there as another process would, deterministically. */
  void (*at_step)(olc_step step, void *payload);
  void *at_step_payload;
} olc_persist_hooks;
/* Replaces the hooks (NULL: none). Not thread-safe; set before use. */
void olc_persist__set_hooks(const olc_persist_hooks *hooks);
#endif

#endif
