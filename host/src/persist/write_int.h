/*
 * persist/write_int.h - the durable write sequence (write_sequence.c, the steps
 * W0-W13 of docs/durability.md, their hooks and retries) over the
 * primitives each platform provides (write_posix.c, write_win32.c), as
 * SQLite's os.c sits over its VFS methods.  Only the files of the writer
 * include it.
 */
#ifndef OLC_PERSIST_WRITE_INT_H
#define OLC_PERSIST_WRITE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "persist/persist_int.h"
#include "util/buf.h"

/* The longest temporary or displaced file name beside P. */
#define OLC_PERSIST__NAME_MAX 4096

/* What the platform holds open for one update.  Handles are file
 * descriptors on POSIX and HANDLEs on Windows; -1 (INVALID_HANDLE_VALUE)
 * when closed. */
typedef struct olc_persist__os {
  intptr_t dir;      /* the directory of P (POSIX; -1 on Windows) */
  intptr_t lock;     /* P.lock, locked */
  intptr_t tmp;      /* the temporary being written */
  intptr_t base;     /* P as merged, held open until the commit */
  void *gen;         /* Windows: the mapped counter of P.lock */
  void *gen_map;     /* Windows: its mapping */
  void *wdir;        /* Windows: the directory as UTF-16 */
  unsigned old_mode; /* POSIX: P's permission bits */
  int no_exchange;   /* the file system cannot exchange: a plain rename */
} olc_persist__os;

/* State of one update, so that the abort path can undo exactly what was
 * done.  Names beside P (tmp, orphan) are relative to dir. */
typedef struct olc_persist__writer {
  const char *path;
  const char *base;
  char *dir;
  olc_persist__os os;
  int tmp_created;
  int gen_odd;     /* the generation counter made odd, not yet even again */
  int lost_lock;   /* P.lock was replaced while held: the attempt is redone */
  int base_known;  /* P is the caller's known file: not read (W3 shortcut) */
  int have_orphan; /* orphan names a displaced file not yet merged into a published one */
  int old_exists;
  int ancestor_exists;
  int linear; /* the orphan descends from the file merged (lineage_linear) */
  const olc_persist_known *known;
  char tmp[OLC_PERSIST__NAME_MAX];
  char orphan[OLC_PERSIST__NAME_MAX];
  olc_persist_options opt;
  olc_file_id old_id; /* P as merged */
  olc_buf old;
  olc_buf next;
  olc_buf displaced; /* the orphan's bytes */
  olc_buf both;      /* P now with the orphan's records (the absorb) */
  olc_buf ancestor;  /* the file merged in the round that displaced the orphan */
} olc_persist__writer;

/* Tries of a replace or a removal that meets a transient sharing error (an
 * antivirus scanner, a reader without FILE_SHARE_DELETE), as SQLite's
 * winRetryIoerr: 25 ms * (i + 1) between them. */
#define OLC_PERSIST__TRANSIENT_TRIES 10

/* The steps write_sequence.c shares with write_commit.c. */
/* A step failed by a hook: errno e on every platform. */
olc_status olc_persist__write_hooked(olc_error *err, olc_step step, int e, const char *what,
                                     const char *name);
/* W3: P under the lock (or the W3 shortcut), held open until the commit. */
olc_status olc_persist__write_reload(olc_persist__writer *w, olc_error *err);
/* W6: a fresh temporary; W7-W9: its content written, synced, closed. */
olc_status olc_persist__write_create_tmp(olc_persist__writer *w, olc_error *err);
olc_status olc_persist__write_tmp(olc_persist__writer *w, olc_file_id *new_id, olc_error *err);
/* W10 (write_commit.c): commits until one replaced exactly the file it
 * merged; a displaced file left unmerged is kept (keep_orphan). */
olc_status olc_persist__write_commit(olc_persist__writer *w, olc_file_id *new_id,
                                     olc_persist_transform_fn transform, void *payload,
                                     olc_error *err);
void olc_persist__write_keep_orphan(olc_persist__writer *w, olc_error *err);

/*
 * The primitives.  Those returning long give 0 or the platform's error
 * code (errno, or a Win32 error), which only the olc_persist__os_is_*
 * tests and olc_persist__os_error interpret.  They call no hook: the
 * sequence does, around them.
 */

/* W0: the process-wide writer mutex (threads of one process are
 * serialized before they reach the file lock). */
void olc_persist__os_mutex(int lock);
/* Platform set-up of w->os (all handles closed); OLC_E_INVALID for a path
 * the platform cannot name. */
olc_status olc_persist__os_init(olc_persist__writer *w, olc_error *err);
void olc_persist__os_free(olc_persist__writer *w);

/* W1: opens the directory (missing ones made, 0700); W1a: no P.lock
 * beside something that is not a store; W2: opens and locks P.lock (steps
 * "lock-open", "lock", their hooks and the wait), and prepares its
 * generation counter.  Each fills err. */
olc_status olc_persist__os_open_dir(olc_persist__writer *w, olc_error *err);
olc_status olc_persist__os_check_target(olc_persist__writer *w, olc_error *err);
olc_status olc_persist__os_lock(olc_persist__writer *w, olc_error *err);
/* 1 while the locked file is still the one named P.lock (always 1 without
 * a lock, the negative control). */
int olc_persist__os_lock_current(olc_persist__writer *w);
/* The counter of the locked P.lock: 0 and its values, -1 without one;
 * bump makes it odd (to_odd) or even again (0 or an error code). */
int olc_persist__os_gen_get(olc_persist__writer *w, uint64_t *gen, uint64_t *instance);
long olc_persist__os_gen_bump(olc_persist__writer *w, int to_odd);
/* W13: releases P.lock and closes the directory. */
void olc_persist__os_unlock(olc_persist__writer *w);
void olc_persist__os_close_dir(olc_persist__writer *w);

/* W3: opens P for reading (regular files only; a FIFO must not hang) and
 * holds it in w->os.base; *id its identity.  Absent: an error code that
 * os_is_absent accepts. */
long olc_persist__os_base_open(olc_persist__writer *w, olc_file_id *id);
/* Reads the held P from its start (size limit of the options); fills
 * err (step "reload"). */
olc_status olc_persist__os_base_read(olc_persist__writer *w, olc_buf *out, olc_error *err);
void olc_persist__os_base_close(olc_persist__writer *w);
/* Reads the file name beside P (step "reload"). */
olc_status olc_persist__os_read_name(olc_persist__writer *w, const char *name, olc_buf *out,
                                     olc_error *err);

/* W5: removes other writers' leftovers (grace of the options). */
void olc_persist__os_gc(olc_persist__writer *w);
/* This platform's tag that begins the hex of a temporary's name ("" when
 * there is none). */
const char *olc_persist__os_tmp_tag(void);
/* W6: creates w->tmp exclusively (0600, then P's mode or the options'),
 * or with in_place (the negative control) opens P itself truncated. */
long olc_persist__os_tmp_create(olc_persist__writer *w, int in_place);
/* W7-W9 on the open temporary (short writes and EINTR looped): write,
 * sync, and close with the identity it had. */
long olc_persist__os_tmp_write(olc_persist__writer *w, const unsigned char *p, size_t n);
long olc_persist__os_tmp_sync(olc_persist__writer *w);
long olc_persist__os_tmp_close(olc_persist__writer *w, olc_file_id *id);

/* W10.  exchange: the temporary takes P's place, and the file that was P
 * is then named aside (size bytes; the platform picks the name);
 * move_new: the temporary becomes P where none exists (an existing one:
 * os_is_exists); rename: from replaces to. */
long olc_persist__os_exchange(olc_persist__writer *w, char *aside, size_t size);
long olc_persist__os_move_new(olc_persist__writer *w);
long olc_persist__os_rename(olc_persist__writer *w, const char *from, const char *to);
long olc_persist__os_unlink(olc_persist__writer *w, const char *name);
/* The identity of the file name beside P, not followed. */
long olc_persist__os_identify(olc_persist__writer *w, const char *name, olc_file_id *id);
/* Calls each(name, ctx) for each entry of the directory until it returns
 * non-zero: 0 when the listing completed or was stopped, -1 when it could
 * not be read. */
int olc_persist__os_list(olc_persist__writer *w, int (*each)(const char *name, void *ctx),
                         void *ctx);
/* W11: syncs the directory (nothing to do on Windows: the replace wrote
 * through). */
long olc_persist__os_sync_dir(olc_persist__writer *w);

/* Error codes: absent, exists, a transient sharing error (retried),
 * a file system that cannot do it (a fallback follows). */
int olc_persist__os_is_absent(long e);
int olc_persist__os_is_exists(long e);
int olc_persist__os_is_transient(long e);
int olc_persist__os_is_unsupported(long e);
/* The text of a primitive's error code, in buf. */
const char *olc_persist__os_strerror(long e, char *buf, size_t size);
/* Fills err from a primitive's error code: "<what> '<name>'" at step. */
olc_status olc_persist__os_error(olc_error *err, olc_step step, long e, const char *what,
                                 const char *name);

#endif
