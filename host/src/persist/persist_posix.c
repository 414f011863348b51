/*
 * persist/persist_posix.c - the locked reload-merge-replace of
 * DURABILITY.md 2.1 (steps W0-W13) on POSIX.
 */
#include "persist/posix_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dirent.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

#include "util/error.h"
#include "util/platform.h"

/* renameat2's flags (linux/fs.h), for C libraries without them. */
#define PERSIST_RENAME_NOREPLACE 1u
#define PERSIST_RENAME_EXCHANGE 2u
/* Commits of one update that each displaced another writer's file. */
#define PERSIST_MERGE_ROUNDS 64

/* State of one update, so that the abort path can undo exactly what was
 * done. */
typedef struct writer {
  const char *path;
  const char *base;
  char *dir;
  int dfd;
  int lfd;
  int tfd;
  int tmp_created;
  int gen_odd;     /* the generation counter made odd, not yet even again */
  int lost_lock;   /* P.lock was replaced while held: the attempt is redone */
  int base_known;  /* P is the caller's known file: not read (W3 shortcut) */
  int bfd;         /* P as merged, held open until the commit: its inode number stays its own */
  int no_exchange; /* the file system has no renameat2: a plain rename */
  int have_orphan; /* orphan names a displaced file not yet merged into a published one */
  const olc_persist_known *known;
  char tmp[4096];
  char orphan[4096];
  olc_persist_options opt;
  olc_buf old;
  olc_buf next;
  olc_buf displaced; /* the orphan's bytes */
  olc_buf both;      /* P now with the orphan's records (the absorb) */
  olc_buf ancestor;  /* the file merged in the round that displaced the orphan */
  struct stat old_st;
  int old_exists;
  int ancestor_exists;
  int linear; /* the orphan descends from the file merged (lineage_linear) */
} writer;

static olc_status step_error(olc_error *err, olc_step step, int e, const char *what,
                             const char *name) {
  return olc_error__sys(err, olc_persist__errno_status(e, OLC_E_IO), e, olc_step__name(step),
                        "%s '%s'", what, name);
}

/* W3 shortcut (olc_persist__update_known): under the lock, the P.lock
 * counter that every locked writer moves around its change of P still has
 * the caller's generation and instance, and P still has the caller's
 * identity.  Either alone is not proof: a writer may reuse the inode
 * number, keep the size and land within the mtime's granularity, and a
 * writer that bypasses the lock never moves the counter. */
static int still_known(writer *w) {
  const olc_persist_known *k = w->known;
  uint64_t gen, instance;
  olc_file_id now;
  struct stat st;
  int fd;
  if (k == NULL || !k->id.exists || k->gen == OLC_PERSIST_GEN_NONE || (k->gen & 1u) != 0)
    return 0;
  if (!olc_persist__hook_disabled(OLC_PERSIST__SAFETY_GENCHECK) &&
      (olc_posix__gen_get(w->lfd, &gen, &instance) != 0 || gen != k->gen ||
       instance != k->instance))
    return 0;
  /* Opened, not stat'ed by name: the commit compares what it replaces with
   * this inode, whose number no other file can take while it is open. */
  fd = OLC_FS(openat(w->dfd, w->base, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (fd < 0)
    return 0;
  if (OLC_FS(fstat(fd, &st)) != 0 || !S_ISREG(st.st_mode)) {
    OLC_FS(close(fd));
    return 0;
  }
  olc_posix__id_from_stat(&now, &st);
  if (!olc_file_id__equal(&now, &k->id)) {
    OLC_FS(close(fd));
    return 0;
  }
  w->old_st = st;
  w->bfd = fd;
  return 1;
}

/* W3: the file as it is now, read under the lock.  O_NOFOLLOW: the data
 * file is never a symlink (the store resolves the path first). */
static olc_status reload(writer *w, olc_error *err) {
  int fd = -1;
  int e = olc_persist__hook_fail(OLC_STEP_RELOAD);
  olc_status st;
  if (e == 0 && still_known(w)) {
    w->old_exists = 1;
    w->base_known = 1;
    olc_persist__hook_crash(OLC_STEP_RELOAD);
    return OLC_OK;
  }
  if (e == 0) {
    /* O_NONBLOCK: a FIFO planted at P must not hang the writer (fstat then
     * rejects it); it changes nothing for regular files. */
    fd = OLC_FS(openat(w->dfd, w->base, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    e = fd < 0 ? errno : 0;
  }
  if (e == ENOENT) {
    w->old_exists = 0;
    olc_persist__hook_crash(OLC_STEP_RELOAD);
    return OLC_OK;
  }
  if (e != 0)
    return step_error(err, OLC_STEP_RELOAD, e, "cannot open", w->path);
  st = olc_posix__read_fd(&w->old, &w->old_st, fd, w->opt.max_file_size, w->path, "reload", err);
  if (st != OLC_OK) {
    OLC_FS(close(fd));
    return st;
  }
  w->bfd = fd; /* kept open until the commit (still_known) */
  w->old_exists = 1;
  olc_persist__hook_crash(OLC_STEP_RELOAD);
  return OLC_OK;
}

/* W6: a fresh, unique sibling (or, as a negative control, P itself). */
static olc_status create_tmp(writer *w, olc_error *err) {
  unsigned mode;
  int tries, e = 0;
  if (w->old_exists)
    mode = (unsigned)w->old_st.st_mode & 0777u;
  else
    mode = w->opt.file_mode & ~(unsigned)olc_posix__umask() & 0777u;
  if (olc_persist__hook_disabled(OLC_SAFETY_RENAME)) {
    /* Negative control: in-place rewrite, the unsafe way. */
    w->tfd = OLC_FS(openat(w->dfd, w->base, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
    if (w->tfd < 0)
      return step_error(err, OLC_STEP_TMP_CREATE, errno, "cannot open", w->path);
    olc_persist__hook_crash(OLC_STEP_TMP_CREATE);
    return OLC_OK;
  }
  for (tries = 0; tries < OLC_PERSIST__TMP_TRIES; tries++) {
    /* "<base>.<pid>.<16 hex>.tmp": the hex begins with this pid
     * namespace's tag when it is known, so that the next writer can tell
     * a dead writer's leftover (W5); the rest is random. */
    const char *tag = olc_posix__ns_tag();
    size_t t = strlen(tag);
    unsigned char r[8];
    int i, n;
    olc_persist__random(r, sizeof r);
    n = snprintf(w->tmp, sizeof w->tmp, "%s.%ld.%s", w->base, (long)getpid(), tag);
    if (n < 0 || (size_t)n - t + 21 > sizeof w->tmp)
      return olc_error__set(err, OLC_E_INVALID, "tmp-create", "file name too long: '%s'", w->path);
    for (i = 0; (size_t)(2 * i) + t < 16; i++)
      snprintf(w->tmp + n + 2 * i, 3, "%02x", r[i]);
    memcpy(w->tmp + n - t + 16, ".tmp", 5);
    e = olc_persist__hook_fail(OLC_STEP_TMP_CREATE);
    if (e == 0) {
      w->tfd = OLC_FS(
          openat(w->dfd, w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
      e = w->tfd < 0 ? errno : 0;
    }
    if (e != EEXIST)
      break;
  }
  if (e != 0)
    return step_error(err, OLC_STEP_TMP_CREATE, e, "cannot create a temporary file next to",
                      w->path);
  w->tmp_created = 1;
  /* Created 0600 so nobody can open it before it has its final mode. */
  if (OLC_FS(fchmod(w->tfd, (mode_t)mode)) != 0)
    return step_error(err, OLC_STEP_TMP_CREATE, errno, "cannot set the mode of", w->tmp);
  olc_persist__hook_crash(OLC_STEP_TMP_CREATE);
  return OLC_OK;
}

static int write_all(int fd, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t r = OLC_FS(write(fd, p, n));
    if (r < 0) {
      if (errno == EINTR)
        continue;
      return errno;
    }
    p += r;
    n -= (size_t)r;
  }
  return 0;
}

/* W7-W9: write everything, fsync once (never retried), close and check. */
static olc_status write_tmp(writer *w, struct stat *new_st, olc_error *err) {
  size_t half = w->next.len / 2;
  int e = write_all(w->tfd, w->next.data, half);
  olc_persist__hook_crash_half();
  if (e == 0)
    e = olc_persist__hook_fail(OLC_STEP_WRITE);
  if (e == 0)
    e = write_all(w->tfd, w->next.data + half, w->next.len - half);
  if (e != 0)
    return step_error(err, OLC_STEP_WRITE, e, "cannot write", w->path);
  olc_persist__hook_crash(OLC_STEP_WRITE);
  if (olc_persist__hook_disabled(OLC_PERSIST__SAFETY_ORDER) &&
      OLC_FS(renameat(w->dfd, w->tmp, w->dfd, w->base)) == 0)
    w->tmp_created = 0; /* negative control: the rename comes before the fsync */
  if (!olc_persist__hook_disabled(OLC_SAFETY_FSYNC)) {
    e = olc_persist__hook_fail(OLC_STEP_FSYNC);
    if (e == 0 && OLC_FS(fsync(w->tfd)) != 0)
      e = errno;
    if (e != 0)
      return step_error(err, OLC_STEP_FSYNC, e, "cannot sync", w->path);
  }
  olc_persist__hook_crash(OLC_STEP_FSYNC);
  if (OLC_FS(fstat(w->tfd, new_st)) != 0)
    return step_error(err, OLC_STEP_CLOSE, errno, "cannot stat", w->path);
  e = OLC_FS(close(w->tfd)) != 0 ? errno : 0;
  w->tfd = -1;
  if (e == 0)
    e = olc_persist__hook_fail(OLC_STEP_CLOSE);
  if (e != 0)
    return step_error(err, OLC_STEP_CLOSE, e, "cannot close", w->path);
  olc_persist__hook_crash(OLC_STEP_CLOSE);
  return OLC_OK;
}

/* W11: after the commit point a failure is "committed, unsynced". */
static olc_status sync_dir(writer *w, olc_error *err) {
  int e;
  if (olc_persist__hook_disabled(OLC_SAFETY_DIRSYNC))
    return OLC_OK;
  e = olc_persist__hook_fail(OLC_STEP_DIR_FSYNC);
  if (e == 0 && OLC_FS(fsync(w->dfd)) != 0)
    e = errno;
  if (e == 0 || e == EINVAL || e == ENOTSUP || e == EOPNOTSUPP)
    return OLC_OK; /* some file systems cannot sync a directory (SQLite) */
  return olc_error__sys(err, OLC_COMMITTED_UNSYNCED, e, "dir-fsync",
                        "'%s' was replaced but syncing its directory failed", w->path);
}

/* The identity of P after the call, and the counter read under the lock. */
static void note_after(const writer *w, olc_persist_known *after, const struct stat *st) {
  if (after == NULL)
    return;
  olc_posix__id_from_stat(&after->id, st);
  if (olc_posix__gen_get(w->lfd, &after->gen, &after->instance) != 0 || (after->gen & 1u) != 0)
    after->gen = OLC_PERSIST_GEN_NONE;
}

/* W1-W3: the directory, the target check, the lock, the counter and the
 * file as it is under the lock. */
static olc_status lock_and_reload(writer *w, olc_error *err) {
  olc_status st = olc_posix__open_dir(&w->dfd, w->dir, 1, err);
  if (st == OLC_OK) /* W1a: no P.lock beside something that is not a store */
    st = olc_posix__check_target(w->dfd, w->base, w->path, &w->opt, err);
  if (st == OLC_OK)
    st = olc_posix__lock(&w->lfd, w->dfd, w->base, w->path, w->opt.file_mode,
                         w->opt.lock_timeout_ms, err);
  if (st == OLC_OK)
    st = olc_posix__gen_prepare(w->lfd, w->path, err); /* W2b */
  if (st == OLC_OK)
    st = reload(w, err);
  return st;
}

/* W4: the caller merges into what is on disk now. */
static olc_status merge(writer *w, int *unchanged, olc_persist_transform_fn transform,
                        void *payload, olc_error *err) {
  olc_status st;
  int e = olc_persist__hook_fail(OLC_STEP_MERGE);
  if (e != 0)
    return step_error(err, OLC_STEP_MERGE, e, "merge failed for", w->path);
  st = transform(&w->next, unchanged, w->old.data, w->old.len,
                 w->base_known ? OLC_PERSIST_BASE_KNOWN : w->old_exists, payload, err);
  if (st != OLC_OK) {
    if (err != NULL && err->code == OLC_OK)
      olc_error__set(err, st, "merge", "merge failed for '%s'", w->path);
    return st;
  }
  olc_persist__hook_crash(OLC_STEP_MERGE);
  return OLC_OK;
}

/* W5: the clean-up removes other writers' temporaries, so only under a
 * lock that still excludes them. */
static olc_status clean_up(writer *w, olc_error *err) {
  int e;
  if (!olc_posix__lock_current(w->lfd, w->dfd, w->base)) {
    w->lost_lock = 1;
    return olc_error__set(err, OLC_E_LOCK, "gc",
                          "the lock file '%s.lock' was replaced during the write", w->path);
  }
  olc_posix__gc(w->dfd, w->base, w->opt.tmp_grace_seconds);
  olc_persist__hook_crash(OLC_STEP_GC);
  if (olc_persist__hook_disabled(OLC_SAFETY_RENAME)) {
    e = olc_posix__gen_bump(w->lfd, 1); /* the in-place control changes P from here on */
    if (e != 0)
      return step_error(err, OLC_STEP_LOCK, e, "cannot update the lock file of", w->path);
    w->gen_odd = 1;
  }
  return OLC_OK;
}

/* renameat2 in dfd, through the system call (older C libraries have no
 * wrapper); -1 with ENOSYS where there is none. */
static int rename2(int dfd, const char *from, const char *to, unsigned flags) {
#if defined(__linux__) && defined(SYS_renameat2)
  return (int)OLC_FS(syscall(SYS_renameat2, dfd, from, dfd, to, flags));
#else
  (void)dfd;
  (void)from;
  (void)to;
  (void)flags;
  errno = ENOSYS;
  return -1;
#endif
}

/* The file system (or kernel) has no renameat2 or not this flag. */
static int no_rename2(int e) {
  return e == EINVAL || e == ENOSYS || e == ENOTSUP || e == EOPNOTSUPP;
}

/* The rename of W10 where renameat2 cannot check what it replaces: the
 * window of DURABILITY.md that remains there (README, "Durability"). */
static int plain_rename(writer *w) {
  if (OLC_FS(renameat(w->dfd, w->tmp, w->dfd, w->base)) != 0)
    return errno;
  w->tmp_created = 0;
  return 0;
}

/* 1 when, right after the exchange, nothing beside P may hold a file
 * displaced from P that no file in P descends from yet (another writer's
 * orphan or temporary, a kept displaced file; the orphan just taken out,
 * under the name own, aside).  Writers on a replaced P.lock may each have
 * merged an older P: one whose commit took out a file it did not merge
 * keeps that file under its temporary's name until a commit of its own
 * merged it in.  Only with none such does the displaced file descend from
 * the one this writer merged (P's history is then linear), so that a
 * record the ancestor has and it lacks was removed, not never seen.  A
 * directory that cannot be read proves nothing. */
static int lineage_linear(writer *w, const char *own) {
  struct dirent *e;
  DIR *d;
  int fd = OLC_FS(openat(w->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)), linear = 1;
  if (fd < 0)
    return 0;
  d = fdopendir(fd);
  if (d == NULL) {
    OLC_FS(close(fd));
    return 0;
  }
  for (;;) {
    errno = 0;
    e = OLC_FS(readdir(d));
    if (e == NULL) {
      if (errno != 0)
        linear = 0;
      break;
    }
    if (olc_persist__maybe_orphan(e->d_name, w->base, own)) {
      linear = 0;
      break;
    }
  }
  OLC_FS(closedir(d));
  return linear;
}

/* The temporary becomes P.  A P.lock deleted or replaced while held lets
 * another writer commit between this one's reload and here; a rename would
 * then silently drop that writer's saves.  So the temporary is exchanged
 * with P, and what comes out must be the file merged (same inode, kept open
 * since the reload so that its number cannot be reused); anything else is
 * another writer's file, kept under the temporary's name as the orphan,
 * *again = 1.  Where P was absent, nothing is replaced: a P created since
 * (EEXIST) also asks for another merge.  0 or an errno. */
static int replace_p(writer *w, int *again) {
  struct stat d;
  int e;
  *again = 0;
  if (w->no_exchange || olc_persist__hook_disabled(OLC_PERSIST__SAFETY_EXCHANGE))
    return plain_rename(w);
  if (w->old_exists && w->bfd >= 0) {
    if (rename2(w->dfd, w->tmp, w->base, PERSIST_RENAME_EXCHANGE) == 0) {
      w->tmp_created = 0;
      e = OLC_FS(fstatat(w->dfd, w->tmp, &d, AT_SYMLINK_NOFOLLOW)) != 0 ? errno : 0;
      if (e == ENOENT)
        return 0; /* removed already: nothing left to merge */
      if (e == 0 && d.st_dev == w->old_st.st_dev && d.st_ino == w->old_st.st_ino) {
        /* The old P; a leftover (a failed unlink) is a dead writer's
         * temporary to the next writer's garbage collection. */
        OLC_FS(unlinkat(w->dfd, w->tmp, 0));
        return 0;
      }
      /* Another writer's file, or one that cannot be told: merged again
       * (absorbing the merged file itself changes nothing).  A file
       * replaced whole keeps the last commit, as a rename would. */
      if (w->opt.absorb == NULL) {
        OLC_FS(unlinkat(w->dfd, w->tmp, 0));
        return 0;
      }
      memcpy(w->orphan, w->tmp, sizeof w->orphan);
      w->linear = lineage_linear(w, w->orphan);
      *again = 1;
      return 0;
    }
    e = errno;
    if (no_rename2(e)) {
      w->no_exchange = 1;
      return plain_rename(w);
    }
    if (e != ENOENT)
      return e;
    /* P was removed since the reload: put ours there, replacing nothing. */
  }
  if (rename2(w->dfd, w->tmp, w->base, PERSIST_RENAME_NOREPLACE) == 0) {
    w->tmp_created = 0;
    return 0;
  }
  e = errno;
  if (no_rename2(e)) {
    w->no_exchange = 1;
    return plain_rename(w);
  }
  if (e == EEXIST)
    *again = 1;
  return e == EEXIST ? 0 : e;
}

/* W10, the commit point: the temporary replaces P.  *again: merge again
 * (replace_p). */
static olc_status commit_rename(writer *w, int first, int *again, olc_error *err) {
  /* Odd first: a reader that saw the old even value must not trust it
   * once the new P can be seen.  A counter that cannot be moved would
   * hide this write from readers: nothing is renamed then. */
  int e = w->gen_odd ? 0 : olc_posix__gen_bump(w->lfd, 1);
  *again = 0;
  if (e != 0)
    return step_error(err, OLC_STEP_RENAME, e, "cannot update the lock file of", w->path);
  w->gen_odd = 1;
  /* Someone replaced P.lock since it was locked: a writer that opened the
   * new one may be past its reload now.  Start again under that lock
   * rather than race it (checked last, right before the rename, to leave
   * the least time in between).  Not once a displaced file was taken out
   * of P: its records are in this writer's hands only. */
  if (first && !olc_posix__lock_current(w->lfd, w->dfd, w->base)) {
    w->lost_lock = 1;
    return olc_error__set(err, OLC_E_LOCK, "rename",
                          "the lock file '%s.lock' was replaced during the write", w->path);
  }
  e = olc_persist__hook_fail(OLC_STEP_RENAME);
  if (e == 0)
    e = replace_p(w, again);
  if (e != 0)
    return step_error(err, OLC_STEP_RENAME, e, "cannot replace", w->path);
  return OLC_OK;
}

/* The orphan's bytes, then P as it is now (held open again), with the
 * orphan's records absorbed: the next temporary's content. */
static olc_status merge_again(writer *w, int orphan, olc_persist_transform_fn transform,
                              void *payload, olc_error *err) {
  const unsigned char *base;
  size_t len;
  int unchanged = 0, fd;
  olc_status st = OLC_OK;
  if (w->bfd >= 0)
    OLC_FS(close(w->bfd));
  w->bfd = -1;
  if (w->tmp_created && OLC_FS(unlinkat(w->dfd, w->tmp, 0)) == 0)
    w->tmp_created = 0; /* not committed (EEXIST) */
  olc_buf__reset(&w->old);
  olc_buf__reset(&w->both);
  olc_buf__reset(&w->next);
  if (orphan) {
    struct stat ost;
    olc_buf__reset(&w->displaced);
    fd = OLC_FS(openat(w->dfd, w->orphan, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    if (fd < 0)
      return step_error(err, OLC_STEP_RELOAD, errno, "cannot open the file displaced from",
                        w->path);
    st = olc_posix__read_fd(&w->displaced, &ost, fd, w->opt.max_file_size, w->path, "reload", err);
    OLC_FS(close(fd));
  }
  w->known = NULL; /* P is read */
  w->base_known = 0;
  if (st == OLC_OK)
    st = reload(w, err);
  if (st != OLC_OK)
    return st;
  base = w->old.data;
  len = w->old.len;
  if (orphan && w->opt.absorb != NULL) {
    st = w->opt.absorb(&w->both, w->old.data, w->old.len, w->old_exists, w->ancestor.data,
                       w->ancestor.len, w->ancestor_exists, w->displaced.data, w->displaced.len,
                       payload, err);
    if (st != OLC_OK) {
      if (err != NULL && err->code == OLC_OK)
        olc_error__set(err, st, "merge", "cannot merge the file displaced from '%s'", w->path);
      return st;
    }
    base = w->both.data;
    len = w->both.len;
  }
  st = transform(&w->next, &unchanged, base, len, base != w->old.data ? 1 : w->old_exists, payload,
                 err);
  if (st == OLC_OK && unchanged) { /* P must still be written: the orphan's records */
    olc_buf__reset(&w->next);
    st = olc_buf__append(&w->next, base, len);
  }
  if (st != OLC_OK && err != NULL && err->code == OLC_OK)
    olc_error__set(err, st, "merge", "merge failed for '%s'", w->path);
  return st;
}

/* The file merged in the round whose commit just displaced another
 * writer's: the ancestor of the three-way merge (persist.h, absorb), when
 * that writer's file descends from it (linear: lineage_linear's answer
 * right after the exchange); else none, and absorb's union keeps every
 * record.  Not read under the W3 shortcut: read then through the
 * descriptor held since the reload. */
static olc_status keep_ancestor(writer *w, int linear, olc_error *err) {
  olc_buf t;
  struct stat st;
  olc_buf__reset(&w->ancestor);
  w->ancestor_exists = linear && w->old_exists;
  if (!w->ancestor_exists)
    return OLC_OK;
  if (!w->base_known) {
    t = w->ancestor;
    w->ancestor = w->old;
    w->old = t;
    return OLC_OK;
  }
  if (OLC_FS(lseek(w->bfd, 0, SEEK_SET)) < 0)
    return step_error(err, OLC_STEP_RELOAD, errno, "cannot read again", w->path);
  return olc_posix__read_fd(&w->ancestor, &st, w->bfd, w->opt.max_file_size, w->path, "reload",
                            err);
}

/* W10 and, when the commit displaced another writer's file or found a P
 * created since, the merge of what is there now and another commit, until
 * a commit replaced exactly the file it merged (PERSIST_MERGE_ROUNDS rounds
 * at most: then the displaced file is kept beside P). */
static olc_status commit(writer *w, struct stat *new_st, olc_persist_transform_fn transform,
                         void *payload, olc_error *err) {
  int round, again = 0;
  olc_status st = OLC_OK;
  unsigned char r;
  char merged[sizeof w->orphan];
  for (round = 0; st == OLC_OK; round++) {
    int had = w->have_orphan, orphan;
    if (had)
      memcpy(merged, w->orphan, sizeof merged);
    st = commit_rename(w, round == 0, &again, err);
    if (st != OLC_OK)
      break;
    orphan = again && !w->tmp_created; /* something was displaced */
    if (had && !w->tmp_created) {
      /* The earlier orphan's records are in the file just committed. */
      OLC_FS(unlinkat(w->dfd, merged, 0));
      w->have_orphan = orphan;
    } else if (orphan) {
      w->have_orphan = 1;
    }
    if (orphan && (st = keep_ancestor(w, w->linear, err)) != OLC_OK)
      break;
    if (!again)
      break;
    if (round + 1 >= PERSIST_MERGE_ROUNDS)
      return olc_error__set(err, OLC_E_LOCK, "rename",
                            "the lock file '%s.lock' keeps being replaced during the write",
                            w->path);
    /* Writers merging each other's files again at once would keep
     * displacing each other: a random pause, growing, breaks the tie. */
    olc_persist__random(&r, 1);
    olc_util__sleep_ms((int64_t)(r % (1u << (round < 5 ? round + 1 : 6))));
    st = merge_again(w, w->have_orphan, transform, payload, err);
    if (st == OLC_OK)
      st = create_tmp(w, err);
    if (st == OLC_OK)
      st = write_tmp(w, new_st, err);
  }
  return st;
}

static olc_status run_update(writer *w, olc_persist_known *after, int *written,
                             olc_persist_transform_fn transform, void *payload, olc_error *err) {
  olc_status st;
  int unchanged = 0;
  struct stat new_st;
  st = lock_and_reload(w, err);
  if (st == OLC_OK)
    st = merge(w, &unchanged, transform, payload, err);
  if (st != OLC_OK)
    return st;
  if (unchanged) {
    if (w->old_exists)
      note_after(w, after, &w->old_st);
    return OLC_OK;
  }
  st = clean_up(w, err);
  if (st == OLC_OK)
    st = create_tmp(w, err);
  if (st == OLC_OK)
    st = write_tmp(w, &new_st, err);
  if (st == OLC_OK && w->tmp_created)
    st = commit(w, &new_st, transform, payload, err);
  if (st != OLC_OK)
    return st;
  olc_persist__hook_crash(OLC_STEP_RENAME);
  /* Even after the rename (the crash hook may stop before).  A failure
   * leaves it odd: readers then compare identities, which is safe. */
  (void)olc_posix__gen_bump(w->lfd, 0);
  w->gen_odd = 0;
  if (written != NULL)
    *written = 1;
  note_after(w, after, &new_st); /* a counter left odd: gen unknown */
  st = sync_dir(w, err);
  olc_persist__hook_crash(OLC_STEP_DIR_FSYNC);
  return st;
}

/* A temporary that could not be removed (an append-only or immutable
 * directory) is named in the error, so it can be found and removed.  The
 * name must survive the message's size: after the error when both fit,
 * else first (the error cut short), else its file name alone first (it
 * lies beside the store). */
static void name_leftover(const writer *w, int e, olc_error *err) {
  char buf[96], was[sizeof err->message], *m;
  const char *why;
  size_t cap, dl;
  int n;
  if (err == NULL)
    return;
  m = err->message;
  cap = sizeof err->message;
  memcpy(was, m, cap);
  dl = (size_t)(w->base - w->path);
  why = olc_error__strerror(e, buf, sizeof buf);
  n = snprintf(m, cap, "%s; the temporary '%.*s%s' could not be removed (%s)", was, (int)dl,
               w->path, w->tmp, why);
  if (n >= 0 && (size_t)n < cap)
    return;
  n = snprintf(m, cap, "the temporary '%.*s%s' not removed (%s): %s", (int)dl, w->path, w->tmp, why,
               was);
  if (n >= 0 && (size_t)(n - (int)strlen(was)) < cap)
    return;
  n = snprintf(m, cap, "the temporary '%s' beside the store could not be removed (%s) after: %s",
               w->tmp, why, was);
  if (n < 0) /* (cut short, at worst, after the name) */
    memcpy(m, was, cap);
}

/* A displaced file whose records could not be merged into P leaves the
 * temporaries' names (which the garbage collection removes) for
 * "<base>.displaced-<pid>.<hex>", named in the error, so that its saves can
 * still be recovered (olc import). */
static void keep_orphan(writer *w, olc_error *err) {
  char kept[sizeof w->orphan + 16];
  size_t bl = strlen(w->base), n = strlen(w->orphan);
  size_t len;
  int k;
  if (n < bl + 5)
    return;
  k = snprintf(kept, sizeof kept, "%s.displaced-%.*s", w->base, (int)(n - bl - 5),
               w->orphan + bl + 1);
  if (k < 0 || (size_t)k >= sizeof kept || /* (never: orphan is base plus a suffix) */
      OLC_FS(renameat(w->dfd, w->orphan, w->dfd, kept)) != 0)
    memcpy(kept, w->orphan, sizeof w->orphan); /* still under its first name */
  if (err == NULL)
    return;
  len = strlen(err->message);
  snprintf(err->message + len, sizeof err->message - len,
           "; another writer's file taken out of '%s' was kept as '%s'", w->base, kept);
}

/* Undoes what an attempt left: the temporary (before the commit point),
 * a displaced file not merged, the counter's odd value, the lock, the
 * directory. */
static void finish_attempt(writer *w, olc_status st, olc_error *err) {
  if (w->tfd >= 0)
    OLC_FS(close(w->tfd));
  w->tfd = -1;
  if (w->bfd >= 0)
    OLC_FS(close(w->bfd));
  w->bfd = -1;
  if (w->have_orphan)
    keep_orphan(w, err);
  w->have_orphan = 0;
  /* Abort before the commit point: the temporary goes. */
  if (w->tmp_created && OLC_FS(unlinkat(w->dfd, w->tmp, 0)) != 0 && errno != ENOENT)
    name_leftover(w, errno, err);
  w->tmp_created = 0;
  if (w->gen_odd)
    (void)olc_posix__gen_bump(w->lfd, 0); /* failed rename: even again (a new value) */
  w->gen_odd = 0;
  if (w->lfd >= 0 || st == OLC_OK || st == OLC_COMMITTED_UNSYNCED)
    olc_posix__unlock(w->lfd); /* W13 */
  w->lfd = -1;
  if (w->dfd >= 0)
    OLC_FS(close(w->dfd));
  w->dfd = -1;
  olc_buf__reset(&w->old);
}

olc_status olc_persist__update(olc_file_id *new_id, int *written, const char *path,
                               const olc_persist_options *options,
                               olc_persist_transform_fn transform, void *payload, olc_error *err) {
  olc_persist_known after;
  olc_status st = olc_persist__update_known(&after, written, path, options, NULL, NULL, transform,
                                            payload, err);
  if (new_id != NULL)
    *new_id = after.id;
  return st;
}

olc_status olc_persist__update_known(olc_persist_known *after, int *written, const char *path,
                                     const olc_persist_options *options,
                                     const olc_persist_known *known, olc_buf *kept,
                                     olc_persist_transform_fn transform, void *payload,
                                     olc_error *err) {
  writer w;
  olc_buf spare = OLC_BUF_INIT;
  olc_status st;
  int tries, wrote = 0;
  /* A stale error must not survive into this call's report. */
  olc_error_clear(err);
  if (written != NULL)
    *written = 0;
  if (kept != NULL) { /* its storage becomes the output's */
    spare = *kept;
    memset(kept, 0, sizeof *kept);
  }
  if (after != NULL) {
    memset(after, 0, sizeof *after);
    after->gen = OLC_PERSIST_GEN_NONE;
  }
  if (path == NULL || transform == NULL) {
    olc_buf__free(&spare);
    return olc_error__set(err, OLC_E_INVALID, "update", "no path or no transform");
  }
  memset(&w, 0, sizeof w);
  w.next = spare;
  w.path = path;
  w.known = known;
  w.dfd = w.lfd = w.tfd = w.bfd = -1;
  olc_persist__options(&w.opt, options);
  olc_persist__hooks_init();
  st = olc_persist__split(&w.dir, &w.base, path, err);
  if (st != OLC_OK) {
    olc_buf__free(&w.next);
    return st;
  }
  olc_posix__mutex_lock(); /* W0 */
  for (tries = 0; tries < OLC_PERSIST__LOCK_TRIES; tries++) {
    w.lost_lock = 0;
    w.base_known = 0;
    olc_buf__reset(&w.next); /* each attempt's transform starts empty */
    st = run_update(&w, after, &wrote, transform, payload, err);
    finish_attempt(&w, st, err);
    if (!w.lost_lock)
      break;
  }
  olc_posix__mutex_unlock();
  if (written != NULL)
    *written = wrote;
  if (kept != NULL && wrote && (st == OLC_OK || st == OLC_COMMITTED_UNSYNCED)) {
    *kept = w.next; /* the caller's from now on */
    memset(&w.next, 0, sizeof w.next);
  }
  olc_buf__free(&w.old);
  olc_buf__free(&w.next);
  olc_buf__free(&w.displaced);
  olc_buf__free(&w.both);
  olc_buf__free(&w.ancestor);
  free(w.dir);
  return st;
}
