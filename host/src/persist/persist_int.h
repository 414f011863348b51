/*
 * persist/persist_int.h - shared between the files of the persist module
 * (not used outside it).
 */
#ifndef OLC_PERSIST_PERSIST_INT_H
#define OLC_PERSIST_PERSIST_INT_H

#include <stddef.h>
#include <stdint.h>

#include "persist/persist.h"

/* Defaults used when the caller passes no options (or zero fields). */
#define OLC_PERSIST__DEFAULT_TIMEOUT_MS 10000
#define OLC_PERSIST__DEFAULT_GRACE_S 3600u
#define OLC_PERSIST__DEFAULT_MODE 0600u
#define OLC_PERSIST__TMP_TRIES 8
#define OLC_PERSIST__TAG_LEN 6    /* hex digits of the pid-namespace tag in temporary names */
#define OLC_PERSIST__LOCK_TRIES 8 /* lock, or whole updates, on a replaced P.lock */

/* Resolved options: NULL or zero fields replaced by the defaults. */
void olc_persist__options(olc_persist_options *out, const olc_persist_options *in);

/* Counts one file-system call (olc_persist__call_count). */
void olc_persist__count(void);

/* Fills buf with n cryptographically random bytes (best effort fallback). */
void olc_persist__random(unsigned char *buf, size_t n);

/* Next lock-poll delay in ms: doubles *delay_ms (1 .. 1000) and applies a
 * 0.75-1.25 jitter, capped by the time left. */
int64_t olc_persist__backoff(int64_t *delay_ms, int64_t left_ms);

/* A lock that is busy: OLC_E_LOCK_TIMEOUT (naming path) once timeout_ms
 * (>= 0) has passed since start_ms, else sleeps the next backoff and
 * returns OLC_OK (try again).  timeout_ms < 0: wait forever. */
olc_status olc_persist__lock_busy(int64_t timeout_ms, int64_t start_ms, int64_t *delay_ms,
                                  const char *path, olc_error *err);

/* The checks and set-up every repair begins with: moved_to emptied, path
 * and check required, options (NULL: defaults) into *opt, the hooks, and
 * path split into *dir (the caller frees it) and *base. */
olc_status olc_persist__repair_begin(olc_persist_options *opt, char **dir, const char **base,
                                     char *moved_to, size_t moved_to_size, const char *path,
                                     const olc_persist_options *options, int has_check,
                                     olc_error *err);

/* 1 when name is exactly "<base>.<decimal pid>.<16 lower hex>.tmp". */
int olc_persist__is_tmp_name(const char *name, const char *base);
/* A fresh temporary's name for base: "<base>.<pid>.<16 hex>.tmp", the hex
 * beginning with tag (the platform's, so that the next writer can tell a
 * dead writer's leftover: W5), the rest random.  0, or -1 when it does not
 * fit in size. */
int olc_persist__tmp_name(char *buf, size_t size, const char *base, const char *tag);

/* 1 when name, beside P (base), may hold a file displaced from P whose
 * changes no file in P has yet: a temporary's name other than own (a
 * writer's orphan, or its temporary) or a kept "<base>.displaced-*". */
int olc_persist__maybe_orphan(const char *name, const char *base, const char *own);

/* Splits path into a directory (malloc'ed; "." when there is none) and a
 * pointer to the base name inside path.  OLC_E_INVALID for an empty base. */
olc_status olc_persist__split(char **dir, const char **base, const char *path, olc_error *err);

/* Maps an errno of a step to its status: ENOSPC/EDQUOT -> OLC_E_NOSPC,
 * ENOMEM -> OLC_E_NOMEM, else fallback. */
olc_status olc_persist__errno_status(int sys_errno, olc_status fallback);

/* ---- the generation counter of P.lock (see persist.h) ---- */
#define OLC_PERSIST__GEN_SIZE 4096u
#define OLC_PERSIST__GEN_MAGIC "olcgen01" /* 8 bytes at offset 0 */
#define OLC_PERSIST__GEN_OFFSET 8u
#define OLC_PERSIST__GEN_INSTANCE 16u
#define OLC_PERSIST__GEN_HEADER 24u /* magic, generation, instance */

/* 1 when the header h (OLC_PERSIST__GEN_HEADER bytes) carries the magic. */
int olc_persist__gen_header_valid(const unsigned char *h);
/* A fresh header: the magic, generation 0 and a random instance. */
void olc_persist__gen_header_init(unsigned char *h);
/* The value after g at the step that changes P (odd, and different from
 * any value a reader may have settled on: +1 from even, +2 from the odd
 * value a killed writer left), and after it (even again). */
uint64_t olc_persist__gen_next_odd(uint64_t g);
uint64_t olc_persist__gen_next_even(uint64_t g);

/* Reader side, platform part (gen_posix.c, gen_win32.c): opens the counter
 * of lock_path when it is a regular file whose header a writer has
 * initialized; *id receives its identity and src->instance the header's
 * instance.  0 on success, -1 (nothing kept open) otherwise. */
int olc_persist__gen_open_read(olc_persist_gen_src *src, olc_file_id *id, const char *lock_path);
/* The generation now: 0, or -1 when the file has been cut short, garbled
 * or re-initialized (another instance) since it was opened.  Never faults,
 * whatever another process does to the file; thread safe. */
int olc_persist__gen_read(const olc_persist_gen_src *src, uint64_t *gen);
void olc_persist__gen_close_read(olc_persist_gen_src *src);

/* ---- the measurement lock (persist.h; mlock.c, mlock_posix.c, mlock_win32.c) ---- */
struct olc_persist_mlock {
  intptr_t fd; /* the descriptor, or the HANDLE on Windows; -1: none (a test switch) */
  int local;   /* holds the process-wide flag */
};

#define OLC_PERSIST__MLOCK_MAGIC "olc-measure-lock"
#define OLC_PERSIST__MLOCK_NAME "measure.lock"
#define OLC_PERSIST__MLOCK_LINE_MAX 160

/* Platform part.  open: opens or creates path (its directory too, 0700)
 * and checks it (regular file of this user); m->fd set.  try: OLC_OK
 * (locked), OLC_E_BUSY (another holds it) or a failure.  unlock releases
 * what try took.  put writes the holder line of this process; get reads
 * the file's (up to size - 1 bytes, NUL-terminated; 0 on failure). */
olc_status olc_persist__mlock_open(olc_persist_mlock *m, const char *path, olc_error *err);
olc_status olc_persist__mlock_try(olc_persist_mlock *m, const char *path, olc_error *err);
void olc_persist__mlock_put(olc_persist_mlock *m, const char *line, size_t len);
size_t olc_persist__mlock_get(olc_persist_mlock *m, char *buf, size_t size);
void olc_persist__mlock_close(olc_persist_mlock *m);
/* The process-wide flag: 1 when it was free and is now taken. */
int olc_persist__mlock_local_take(void);
void olc_persist__mlock_local_give(void);
/* This process: id and start (s since 1970, 0 unknown). */
int64_t olc_persist__pid(void);
int64_t olc_persist__process_start_s(void);
/* The user's runtime directory (malloc'ed) when it is usable for the
 * lock (persist.h: olc_persist__mlock_default_path); NULL otherwise. */
char *olc_persist__runtime_dir(void);

/* ---- test hooks (no-ops in the shipped library) ---- */
#define OLC_PERSIST__SAFETY_CLASSIC 16u   /* force the classic fcntl lock */
#define OLC_PERSIST__SAFETY_ORDER 32u     /* rename the temporary before its fsync */
#define OLC_PERSIST__SAFETY_RELOCK 64u    /* trust a lock on a replaced P.lock */
#define OLC_PERSIST__SAFETY_MLOCK 128u    /* grant the measurement lock without locking */
#define OLC_PERSIST__SAFETY_GENCHECK 256u /* skip the reload on the identity alone */
#define OLC_PERSIST__SAFETY_EXCHANGE 512u /* commit by rename: what it replaces unchecked */

#ifdef OLC_TEST_HOOKS
/* Loads OLC_TEST_* from the environment once (unless set_hooks was called). */
void olc_persist__hooks_init(void);
/* errno to fail step with, or 0. */
int olc_persist__hook_fail(olc_step step);
/* raise(SIGKILL) / TerminateProcess when step is the crash step. */
void olc_persist__hook_crash(olc_step step);
void olc_persist__hook_crash_half(void);
/* 1 when the safety step (OLC_SAFETY_* or OLC_PERSIST__SAFETY_*) is off. */
int olc_persist__hook_disabled(unsigned safety);
/* Recheck interval of new watches set by a test (0: the default). */
int64_t olc_persist__hook_watch_recheck_ms(void);
/* OLC_TEST_FSTYPE, or NULL. */
const char *olc_persist__hook_fs_type(void);
#else
/* The shipped library: every hook is a constant the compiler folds away. */
#ifndef OLC_SAFETY_LOCK
#define OLC_SAFETY_LOCK 1u
#define OLC_SAFETY_FSYNC 2u
#define OLC_SAFETY_RENAME 4u
#define OLC_SAFETY_DIRSYNC 8u
#endif
static inline void olc_persist__hooks_init(void) {}
static inline int olc_persist__hook_fail(olc_step step) {
  (void)step;
  return 0;
}
static inline void olc_persist__hook_crash(olc_step step) { (void)step; }
static inline void olc_persist__hook_crash_half(void) {}
static inline int olc_persist__hook_disabled(unsigned safety) {
  (void)safety;
  return 0;
}
static inline int64_t olc_persist__hook_watch_recheck_ms(void) { return 0; }
static inline const char *olc_persist__hook_fs_type(void) { return NULL; }
#endif

#endif
