/*
 * persist/posix_int.h - POSIX helpers shared by the writer, the reader and
 * repair (the *_posix.c files of persist only).
 */
#ifndef OLC_PERSIST_POSIX_INT_H
#define OLC_PERSIST_POSIX_INT_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "persist/persist_int.h"
#include "util/buf.h"

/* Counts the call, then makes it: every file-system call goes through it. */
#define OLC_FS(call) (olc_persist__count(), (call))

/* The process-wide writer mutex (threads of one process are serialized
 * before they reach the file lock; classic fcntl locks need it). */
void olc_posix__mutex_lock(void);
void olc_posix__mutex_unlock(void);
/* 1 when the mutex was free and is now held. */
int olc_posix__mutex_trylock(void);

/* Opens dir (O_DIRECTORY|O_CLOEXEC).  With create, missing directories are
 * made first (mkdir -p, 0700).  Step "mkdir".  Missing without create:
 * OLC_E_NOT_FOUND. */
olc_status olc_posix__open_dir(int *dfd, const char *dir, int create, olc_error *err);

/* Opens/creates "<base>.lock" in dfd and takes the whole-file write lock
 * (steps "lock-open" and "lock") on the file that still has that name once
 * locked (a lock on a replaced or deleted P.lock excludes nobody: it is
 * dropped and the new one locked, OLC_PERSIST__LOCK_TRIES times at most,
 * then OLC_E_LOCK).  *lfd = -1 when the lock is disabled by a test
 * switch. */
olc_status olc_posix__lock(int *lfd, int dfd, const char *base, const char *path, uint32_t mode,
                           int64_t timeout_ms, olc_error *err);
/* 1 when lfd is still the file named "<base>.lock" in dfd (always 1 for
 * lfd < 0, the negative control without a lock). */
int olc_posix__lock_current(int lfd, int dfd, const char *base);
/* Takes fd's whole-file write lock, waiting when wait is 1: an OFD lock
 * while *ofd is 1 (set to 0, and a classic lock taken, on a kernel without
 * them); retries EINTR.  Returns 0, EAGAIN when another holder has it, or
 * the errno of another failure. */
int olc_posix__setlk(int fd, int wait, int *ofd);
/* Releases and closes the lock (step "unlock"); errors cannot matter:
 * close() releases the lock in any case. */
void olc_posix__unlock(int lfd);

/* fstat + read to EOF of an open file (regular files only; larger than
 * max, 0 = no limit: OLC_E_LIMIT before allocating). */
olc_status olc_posix__read_fd(olc_buf *out, struct stat *st, int fd, size_t max, const char *path,
                              const char *where, olc_error *err);

/* Deletes "<base>.<pid>.<16 hex>.tmp" regular files older than grace
 * seconds, and at once those whose writer is gone: the hex begins with
 * this boot's and pid namespace's tag (olc_posix__ns_tag), the directory is
 * on a local file system and kill(pid, 0) says ESRCH (docs/durability.md W5).
 * The caller holds the lock; every failure is ignored. */
void olc_posix__gc(int dfd, const char *base, uint32_t grace_seconds);

/* OLC_PERSIST__TAG_LEN lower hex digits naming this boot and this
 * process's pid namespace, which begin the hex part of its temporaries'
 * names; "" when they cannot be known (no /proc). */
const char *olc_posix__ns_tag(void);

/* The process umask, read without changing it where possible. */
mode_t olc_posix__umask(void);

void olc_posix__id_from_stat(olc_file_id *id, const struct stat *st);

/* Up to cap bytes from the start of fd (pread); the count read. */
size_t olc_posix__read_head(int fd, unsigned char *buf, size_t cap);

/* Before "<base>.lock" is created in dfd (nothing to do when it exists):
 * the target must be absent or a regular file that opt->probe accepts.
 * OLC_OK, OLC_E_INVALID (not a regular file), the probe's refusal, or
 * OLC_E_IO; err->where is "lock-open". */
olc_status olc_posix__check_target(int dfd, const char *base, const char *path,
                                   const olc_persist_options *opt, olc_error *err);

/* Lock held: allocates the page of the generation counter in the locked
 * P.lock and writes a fresh header when it has none (persist.h).  Step
 * "lock": OLC_E_NOSPC when the file system is full, OLC_E_LOCK when P.lock
 * is not a regular file, OLC_E_IO.  lfd < 0 (negative control): OLC_OK. */
olc_status olc_posix__gen_prepare(int lfd, const char *path, olc_error *err);
/* Lock held: makes the generation odd (to_odd) or even again with pread
 * and pwrite; 0 or an errno. */
int olc_posix__gen_bump(int lfd, int to_odd);
/* Lock held: the generation and instance of a valid header (0), else -1. */
int olc_posix__gen_get(int lfd, uint64_t *gen, uint64_t *instance);

#endif
