/*
 * persist/write_posix.c - the primitives of the write sequence (write_sequence.c)
 * on POSIX: every name is opened relative to the directory's descriptor
 * (the *at() calls), every descriptor O_CLOEXEC.
 */
#include "persist/posix_int.h"
#include "persist/write_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <dirent.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

#include "util/error.h"

/* renameat2's flags (linux/fs.h), for C libraries without them. */
#define PERSIST_RENAME_NOREPLACE 1u
#define PERSIST_RENAME_EXCHANGE 2u

#define FD(h) ((int)(h))

void olc_persist__os_mutex(int lock) {
  if (lock)
    olc_posix__mutex_lock();
  else
    olc_posix__mutex_unlock();
}

olc_status olc_persist__os_init(olc_persist__writer *w, olc_error *err) {
  (void)w;
  (void)err;
  return OLC_OK;
}

void olc_persist__os_free(olc_persist__writer *w) { (void)w; }

olc_status olc_persist__os_open_dir(olc_persist__writer *w, olc_error *err) {
  int dfd = -1;
  olc_status st = olc_posix__open_dir(&dfd, w->dir, 1, err);
  w->os.dir = dfd;
  return st;
}

olc_status olc_persist__os_check_target(olc_persist__writer *w, olc_error *err) {
  return olc_posix__check_target(FD(w->os.dir), w->base, w->path, &w->opt, err);
}

olc_status olc_persist__os_lock(olc_persist__writer *w, olc_error *err) {
  int lfd = -1;
  olc_status st = olc_posix__lock(&lfd, FD(w->os.dir), w->base, w->path, w->opt.file_mode,
                                  w->opt.lock_timeout_ms, err);
  w->os.lock = lfd;
  if (st == OLC_OK) /* W2b */
    st = olc_posix__gen_prepare(lfd, w->path, err);
  return st;
}

int olc_persist__os_lock_current(olc_persist__writer *w) {
  return olc_posix__lock_current(FD(w->os.lock), FD(w->os.dir), w->base);
}

int olc_persist__os_gen_get(olc_persist__writer *w, uint64_t *gen, uint64_t *instance) {
  return olc_posix__gen_get(FD(w->os.lock), gen, instance);
}

long olc_persist__os_gen_bump(olc_persist__writer *w, int to_odd) {
  return olc_posix__gen_bump(FD(w->os.lock), to_odd);
}

void olc_persist__os_unlock(olc_persist__writer *w) {
  olc_posix__unlock(FD(w->os.lock));
  w->os.lock = -1;
}

void olc_persist__os_close_dir(olc_persist__writer *w) {
  if (w->os.dir != -1)
    OLC_FS(close(FD(w->os.dir)));
  w->os.dir = -1;
}

/* O_NOFOLLOW: the data file is never a symlink (the store resolves the
 * path first).  O_NONBLOCK: a FIFO planted at P must not hang the writer
 * (reading it then rejects it); it changes nothing for regular files. */
long olc_persist__os_base_open(olc_persist__writer *w, olc_file_id *id) {
  struct stat st;
  int fd = OLC_FS(openat(FD(w->os.dir), w->base, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (fd < 0)
    return errno;
  if (OLC_FS(fstat(fd, &st)) != 0) {
    int e = errno;
    OLC_FS(close(fd));
    return e;
  }
  olc_posix__id_from_stat(id, &st);
  w->os.old_mode = (unsigned)st.st_mode & 0777u;
  w->os.base = fd;
  return 0;
}

olc_status olc_persist__os_base_read(olc_persist__writer *w, olc_buf *out, olc_error *err) {
  struct stat st;
  if (OLC_FS(lseek(FD(w->os.base), 0, SEEK_SET)) < 0)
    return olc_persist__os_error(err, OLC_STEP_RELOAD, errno, "cannot read again", w->path);
  return olc_posix__read_fd(out, &st, FD(w->os.base), w->opt.max_file_size, w->path, "reload", err);
}

void olc_persist__os_base_close(olc_persist__writer *w) {
  if (w->os.base != -1)
    OLC_FS(close(FD(w->os.base)));
  w->os.base = -1;
}

olc_status olc_persist__os_read_name(olc_persist__writer *w, const char *name, olc_buf *out,
                                     olc_error *err) {
  struct stat st;
  olc_status s;
  int fd = OLC_FS(openat(FD(w->os.dir), name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (fd < 0)
    return olc_persist__os_error(err, OLC_STEP_RELOAD, errno, "cannot open the file displaced from",
                                 w->path);
  s = olc_posix__read_fd(out, &st, fd, w->opt.max_file_size, w->path, "reload", err);
  OLC_FS(close(fd));
  return s;
}

void olc_persist__os_gc(olc_persist__writer *w) {
  olc_posix__gc(FD(w->os.dir), w->base, w->opt.tmp_grace_seconds);
}

const char *olc_persist__os_tmp_tag(void) { return olc_posix__ns_tag(); }

long olc_persist__os_tmp_create(olc_persist__writer *w, int in_place) {
  unsigned mode;
  int fd, e;
  if (w->old_exists)
    mode = w->os.old_mode;
  else
    mode = w->opt.file_mode & ~(unsigned)olc_posix__umask() & 0777u;
  if (in_place) {
    fd = OLC_FS(openat(FD(w->os.dir), w->base, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
    w->os.tmp = fd;
    return fd < 0 ? errno : 0;
  }
  fd = OLC_FS(
      openat(FD(w->os.dir), w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (fd < 0)
    return errno;
  /* Created 0600 so nobody can open it before it has its final mode. */
  if (OLC_FS(fchmod(fd, (mode_t)mode)) != 0) {
    e = errno;
    OLC_FS(close(fd));
    OLC_FS(unlinkat(FD(w->os.dir), w->tmp, 0));
    return e;
  }
  w->os.tmp = fd;
  return 0;
}

long olc_persist__os_tmp_write(olc_persist__writer *w, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t r = OLC_FS(write(FD(w->os.tmp), p, n));
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

long olc_persist__os_tmp_sync(olc_persist__writer *w) {
  return OLC_FS(fsync(FD(w->os.tmp))) != 0 ? errno : 0;
}

/* NFS reports deferred write errors at the close. */
long olc_persist__os_tmp_close(olc_persist__writer *w, olc_file_id *id) {
  struct stat st;
  int e = 0, fd = FD(w->os.tmp);
  w->os.tmp = -1;
  if (id != NULL) {
    if (OLC_FS(fstat(fd, &st)) != 0)
      e = errno;
    else
      olc_posix__id_from_stat(id, &st);
  }
  if (OLC_FS(close(fd)) != 0 && e == 0)
    e = errno;
  return e;
}

/* renameat2 in the directory, through the system call (older C libraries
 * have no wrapper); ENOSYS where there is none. */
static long rename2(olc_persist__writer *w, const char *from, const char *to, unsigned flags) {
#if defined(__linux__) && defined(SYS_renameat2)
  int dfd = FD(w->os.dir);
  return OLC_FS(syscall(SYS_renameat2, dfd, from, dfd, to, flags)) != 0 ? errno : 0;
#else
  (void)w;
  (void)from;
  (void)to;
  (void)flags;
  return ENOSYS;
#endif
}

/* The old P is then under the temporary's name. */
long olc_persist__os_exchange(olc_persist__writer *w, char *aside, size_t size) {
  snprintf(aside, size, "%s", w->tmp);
  return rename2(w, w->tmp, w->base, PERSIST_RENAME_EXCHANGE);
}

long olc_persist__os_move_new(olc_persist__writer *w) {
  return rename2(w, w->tmp, w->base, PERSIST_RENAME_NOREPLACE);
}

long olc_persist__os_rename(olc_persist__writer *w, const char *from, const char *to) {
  return OLC_FS(renameat(FD(w->os.dir), from, FD(w->os.dir), to)) != 0 ? errno : 0;
}

long olc_persist__os_unlink(olc_persist__writer *w, const char *name) {
  return OLC_FS(unlinkat(FD(w->os.dir), name, 0)) != 0 ? errno : 0;
}

long olc_persist__os_identify(olc_persist__writer *w, const char *name, olc_file_id *id) {
  struct stat st;
  if (OLC_FS(fstatat(FD(w->os.dir), name, &st, AT_SYMLINK_NOFOLLOW)) != 0)
    return errno;
  olc_posix__id_from_stat(id, &st);
  return 0;
}

int olc_persist__os_list(olc_persist__writer *w, int (*each)(const char *name, void *ctx),
                         void *ctx) {
  struct dirent *e;
  DIR *d;
  int fd = OLC_FS(openat(FD(w->os.dir), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)), rc = 0;
  if (fd < 0)
    return -1;
  d = fdopendir(fd);
  if (d == NULL) {
    OLC_FS(close(fd));
    return -1;
  }
  for (;;) {
    errno = 0;
    e = OLC_FS(readdir(d));
    if (e == NULL) {
      rc = errno != 0 ? -1 : 0;
      break;
    }
    if (each(e->d_name, ctx) != 0)
      break;
  }
  OLC_FS(closedir(d));
  return rc;
}

long olc_persist__os_sync_dir(olc_persist__writer *w) {
  return OLC_FS(fsync(FD(w->os.dir))) != 0 ? errno : 0;
}

int olc_persist__os_is_absent(long e) { return e == ENOENT; }
int olc_persist__os_is_exists(long e) { return e == EEXIST; }
int olc_persist__os_is_transient(long e) {
  (void)e;
  return 0;
}
int olc_persist__os_is_unsupported(long e) {
  return e == EINVAL || e == ENOSYS || e == ENOTSUP || e == EOPNOTSUPP;
}

const char *olc_persist__os_strerror(long e, char *buf, size_t size) {
  return olc_error__strerror((int)e, buf, size);
}

olc_status olc_persist__os_error(olc_error *err, olc_step step, long e, const char *what,
                                 const char *name) {
  return olc_error__sys(err, olc_persist__errno_status((int)e, OLC_E_IO), (int)e,
                        olc_step__name(step), "%s '%s'", what, name);
}
